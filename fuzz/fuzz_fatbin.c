/* libFuzzer target: the fatbin reader (fatbin/, docs/binaries.md) on
 * mutated binaries: ELF files, ar archives and raw fatbins, every
 * container walked and every PTX entry decompressed (zstd, LZ4, plain).
 * Seeds: fuzz/seeds-fatbin/ (nvcc -fatbin output in each compression mode,
 * an object and an archive).  Every size the format states must be
 * checked before use: a read out of bounds, a hang or a leak is a finding. */
#include <stdlib.h>
#include "fatbin.h"

static void on_entry(void *ctx, const fb_entry *e)
{
    (void)ctx;
    if (e->kind != FB_KIND_PTX) return;
    char err[256];
    size_t len;
    free(fb_ptx_text(e, &len, err, sizeof err));
}

static void on_problem(void *ctx, const char *msg)
{
    (void)ctx;
    (void)msg;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fb_visit v = {on_entry, on_problem, NULL};
    fb_stats st;
    fb_walk("fuzz.bin", data, size, &v, &st);
    return 0;
}
