#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include "program.h"

/* The CFG, SSA and GSA builders' scratch arrays (per block, register,
 * reference) are malloc'd and freed by each phase.  glibc keeps what they
 * freed resident as holes in its heap (its mmap threshold rises to the
 * largest block freed), and the next phase's arena data comes from fresh
 * chunks beside them: on the 100k-block kernel those holes were 6 MB of
 * the 83 MB peak of `cfg --gsa --format json`.  Between the phases of a
 * large function they are handed back; small functions (every corpus
 * file) are not worth the call. */
#define TRIM_STMTS 16384u

static void trim_scratch(const ptx_func *fn)
{
#ifdef __GLIBC__
    if (fn->nstmts >= TRIM_STMTS) malloc_trim(0);
#else
    (void)fn;
#endif
}

prog *prog_build(const ptx_module *m, enum prog_level level, const char *only, ptx_diags *d)
{
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
        trim_scratch(fn);
        if (level >= PROG_SSA) {
            pf->ssa = ssa_build(pf->g);
            trim_scratch(fn);
        }
        if (level >= PROG_GSA) {
            pf->gsa = gsa_build(pf->ssa);
            trim_scratch(fn);
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
