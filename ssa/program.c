#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include "program.h"

/* PROG_RETURN_SCRATCH: the CFG, SSA and GSA builders' scratch arrays (per
 * block, register, reference) are malloc'd and freed by each phase, and
 * glibc keeps what they freed resident as holes in its heap (its mmap
 * threshold rises to the largest block freed) while the next phase's
 * arena data comes from fresh chunks beside them: on the 100k-block
 * kernel 6 MB of the 83 MB peak of `cfg --gsa --format json`, which ends
 * with the build.  Between the phases of a large function they are handed
 * back.  Not by default: analyses that follow the build reuse those pages
 * (check's peak is in its analyses) and would fault them in again (4.6k
 * more page faults for 0.7 MB there); small functions are not worth the
 * call. */
#define TRIM_STMTS 16384u

static void trim_scratch(const ptx_func *fn, bool on)
{
#ifdef __GLIBC__
    if (on && fn->nstmts >= TRIM_STMTS) malloc_trim(0);
#else
    (void)fn;
    (void)on;
#endif
}

prog *prog_build(const ptx_module *m, enum prog_level level, const char *only, ptx_diags *d)
{
    bool trim = (level & PROG_RETURN_SCRATCH) != 0;
    level &= PROG_LEVEL_MASK;
    prog *p = calloc(1, sizeof *p);
    if (!p) abort();
    p->m = m;
    arena_init(&p->a);
    p->funcs = ARENA_NEWN(&p->a, prog_func, m->nfuncs ? m->nfuncs : 1);
    bool ok = true;
    for (uint32_t i = 0; i < m->nfuncs; i++) {
        const ptx_func *fn = m->funcs[i];
        if (!fn->has_body || (only && !ptx_str_eq(fn->name, only))) continue;
        prog_func *pf = &p->funcs[p->nfuncs++];
        pf->fn = fn;
        pf->g = cfg_build(fn, &p->a, CFG_SPLIT_LOOP_EXITS, d);
        if (!pf->g) {
            ok = false;
            continue;
        }
        trim_scratch(fn, trim);
        if (level >= PROG_SSA) {
            pf->ssa = ssa_build(pf->g);
            trim_scratch(fn, trim);
        }
        if (level >= PROG_GSA) {
            pf->gsa = gsa_build(pf->ssa);
            trim_scratch(fn, trim);
        }
    }
    if (!ok) {
        prog_free(p);
        return NULL;
    }
    return p;
}

void prog_free(prog *p)
{
    if (!p) return;
    arena_free(&p->a);
    free(p);
}
