/* libFuzzer target: `ptxray launches` on mutated CUDA host code (make
 * fuzz-all).  The input is written to a .cu file and scanned with the
 * built-in CUDA declarations (no toolkit headers: fast, the same on every
 * machine); the result printed as text and JSON.  libclang must report
 * what it cannot parse and hostcode/ must never crash on it. */
#include <jansson.h>
#include <string.h>
#include <unistd.h>
#include "launches.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char path[64];
    static FILE *devnull;
    if (!path[0]) {
        snprintf(path, sizeof path, "/tmp/ptxray-fuzz-launches-%d.cu", (int)getpid());
        devnull = fopen("/dev/null", "w");
    }
    if (!hc_available()) return 0;
    FILE *f = fopen(path, "wb");
    if (!f) return 0;
    fwrite(data, 1, size, f);
    fclose(f);
    hc_opts o;
    memset(&o, 0, sizeof o);
    o.builtin_cuda = true;
    hc_result r;
    memset(&r, 0, sizeof r);
    if (hc_scan(path, &o, &r, "launches", devnull) == 0) {
        hc_print_text(devnull, &r);
        json_t *j = hc_to_json(&r);
        json_decref(j);
    }
    hc_free(&r);
    return 0;
}
