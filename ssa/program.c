#include <stdlib.h>
#include <string.h>
#include "program.h"

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
        if (level >= PROG_SSA) pf->ssa = ssa_build(pf->g);
        if (level >= PROG_GSA) pf->gsa = gsa_build(pf->ssa);
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
