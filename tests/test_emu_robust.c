/* Bad or arbitrary input never crashes or hangs the emulator: every kernel
 * of every corpus file (three architectures and the -G builds) is launched
 * with arbitrary arguments (small buffers holding arbitrary bytes, odd
 * sizes and counts) and a step limit.  Whatever the outcome, the status is
 * one of the documented ones and an error names a position, except the
 * launch-level ones.  Under `make check` this runs with ASan and UBSan. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "emu_harness.h"
#include "testutil.h"

static void run_all(const char *path, unsigned *counts)
{
    ptx_diags d;
    ptx_diags_init(&d);
    ptx_module *m = ptx_parse_file(path, &d);
    cr_assert_not_null(m, "%s", path);
    ptx_diags_free(&d);
    for (uint32_t f = 0; f < m->nfuncs; f++) {
        const ptx_func *fn = m->funcs[f];
        if (!fn->is_entry || !fn->has_body) continue;
        char name[1024];
        snprintf(name, sizeof name, "%.*s", (int)fn->name.n, fn->name.p);
        for (unsigned variant = 0; variant < 2; variant++) {
            FILE *devnull = fopen("/dev/null", "w");
            emu_options o = {.max_steps = 20000, .shared_bytes = variant ? 0 : 4096, .printf_out = devnull,
                             .schedule = variant ? EMU_SCHED_INTERLEAVE : EMU_SCHED_LOCKSTEP, .seed = f,
                             .checks = variant ? EMU_CHECK_RACE | EMU_CHECK_BANK | EMU_CHECK_COALESCING : 0};
            emu_machine *M = emu_create(m, &o);
            emu_param_info pi[64];
            int np = emu_kernel_params(M, name, pi, 64);
            cr_assert(np >= 0 && np <= 64);
            emu_arg args[64];
            uint8_t *store[64];
            uint64_t seed = f * 131 + variant;
            for (int k = 0; k < np; k++) {
                store[k] = calloc(pi[k].size + 8, 1);
                if (pi[k].size == 8 && !pi[k].is_array) {
                    /* a small buffer of arbitrary bytes (or, sometimes, a wild pointer) */
                    uint64_t a = emu_malloc(M, 512, "arbitrary");
                    uint8_t *h = emu_host(M, a, 512);
                    for (int i = 0; i < 512; i++) h[i] = (uint8_t)eh_rand(&seed);
                    if (eh_rand(&seed) % 8 == 0) a = eh_rand(&seed);
                    memcpy(store[k], &a, 8);
                } else {
                    for (uint32_t i = 0; i < pi[k].size; i++) store[k][i] = (uint8_t)(eh_rand(&seed) % 70);
                }
                args[k] = (emu_arg){store[k], pi[k].size};
            }
            ptx_diags_init(&d);
            emu_status st = emu_launch(M, name, D1(2), D1(variant ? 96 : 64), args, (unsigned)np, &d);
            cr_assert(st >= EMU_OK && st <= EMU_ERR_DEADLOCK, "%s %s", path, name);
            counts[st]++;
            if (st != EMU_OK) {
                cr_assert_eq(d.nerrors, 1, "%s %s: one error per failed launch", path, name);
                if (st == EMU_ERR_FAULT || st == EMU_ERR_UNSUPPORTED || st == EMU_ERR_TRAP)
                    cr_assert_gt(d.v[0].loc.line, 0, "%s %s: %s", path, name, d.v[0].msg);
            }
            ptx_diags_free(&d);
            for (int k = 0; k < np; k++) free(store[k]);
            emu_destroy(M);
            fclose(devnull);
        }
    }
    ptx_module_free(m);
}

Test(emu_robust, arbitrary_arguments_on_every_corpus_kernel, .timeout = 600)
{
    size_t n;
    char **files = tu_list_ptx(tu_src("ptx-corpus"), &n);
    cr_assert_gt(n, 100);
    unsigned counts[8] = {0};
    for (size_t i = 0; i < n; i++) run_all(files[i], counts);
    tu_free_list(files, n);
    /* the outcomes vary with the data; every kind of ending is seen */
    cr_expect_gt(counts[EMU_OK], 0);
    cr_expect_gt(counts[EMU_ERR_FAULT], 0);
    cr_expect_gt(counts[EMU_ERR_UNSUPPORTED], 0);
    cr_expect_gt(counts[EMU_ERR_LIMIT], 0);
}
