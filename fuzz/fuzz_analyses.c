/* libFuzzer target: the analyses at a random block shape (make fuzz-all).
 * Input: PTX (the shape and options hashed from it, fuzz_common.h).  For a module that
 * parses: the three divergence analyses, the coalescing and bank-conflict
 * model (which runs the address chains, lane evaluation and warp forms)
 * with and without the shape, and the barrier and collective rules on
 * its results.  Any crash, sanitizer report or leak is a
 * finding; the analyses have no verdict to check here (the differential
 * oracles, make difftest, do that against the emulator). */
#include <string.h>
#include "coalescing.h"
#include "divergence.h"
#include "fuzz_common.h"
#include "program.h"
#include "sync_rules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t p[FZ_NPARAM];
    ptx_module *m = fz_input(data, size, p);
    if (!m) return 0;
    ptx_diags d;
    ptx_diags_init(&d);
    prog *pg = prog_build(m, PROG_GSA, NULL, &d);
    if (pg) {
        div_options o = {{0, 0, 0}, false, false, false};
        if (p[2] & 1) fz_shape(p, o.block);
        o.assume_tid_yz_uniform = p[2] >> 1 & 1;
        arena a;
        arena_init(&a);
        for (uint32_t i = 0; i < pg->nfuncs; i++)
            for (int an = 0; an < 3; an++) div_analyse(&pg->funcs[i], (enum div_analysis)an, &o, &a);
        blk_opts bo = {0};
        memcpy(bo.all, o.block, sizeof bo.all);
        coal_options co = {.blocks = &bo};
        coal_result *cr = coal_analyse(m, pg, &co, &a);
        for (uint32_t i = 0; cr && i < cr->nfuncs; i++) {
            sync_finding *sf;
            if (cr->f[i].r) sync_check(cr->f[i].pf, cr->f[i].r, cr->f[i].chain, &a, &sf);
        }
        arena_free(&a);
        prog_free(pg);
    }
    ptx_diags_free(&d);
    ptx_module_free(m);
    return 0;
}
