/* libFuzzer target: the register-allocation rewrite (make fuzz-all).
 * Input: PTX (budget, mode hashed from it, fuzz_common.h).  For a module
 * that parses: ra_run at a budget of 2..65 registers in one of the three
 * modes; its output printed must parse again (abort otherwise) and every
 * function of it must pass the SSA verifier (abort otherwise). */
#include <string.h>
#include "fuzz_common.h"
#include "program.h"
#include "regalloc.h"
#include "ssa.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t p[FZ_NPARAM];
    ptx_module *m = fz_input(data, size, p);
    if (!m) return 0;
    ra_options o;
    memset(&o, 0, sizeof o);
    o.budget = 2u + (p[2] & 63);
    o.mode = (enum ra_mode)(p[3] % 3);
    o.measure_after = p[3] >> 2 & 1;
    ra_stats st;
    memset(&st, 0, sizeof st);
    ptx_diags d;
    ptx_diags_init(&d);
    if (ra_run(m, &o, &st, &d) == 0) {
        size_t n;
        char *out = fz_print(m, &n);
        ptx_module *m2 = fz_parse(out, n);
        if (!m2) {
            fprintf(stderr, "the rewrite (budget %u, mode %s) does not parse again:\n%s\n", o.budget,
                    ra_mode_name(o.mode), out);
            abort();
        }
        ptx_diags d2;
        ptx_diags_init(&d2);
        prog *pg = prog_build(m2, PROG_SSA, NULL, &d2);
        for (uint32_t i = 0; pg && i < pg->nfuncs; i++) {
            char msg[512];
            if (pg->funcs[i].ssa && ssa_verify(pg->funcs[i].ssa, msg, sizeof msg)) {
                fprintf(stderr, "the rewrite (budget %u, mode %s) fails the SSA verifier: %s\n", o.budget,
                        ra_mode_name(o.mode), msg);
                abort();
            }
        }
        prog_free(pg);
        ptx_diags_free(&d2);
        ptx_module_free(m2);
        free(out);
        ra_stats_free(&st);
    }
    ptx_diags_free(&d);
    ptx_module_free(m);
    return 0;
}
