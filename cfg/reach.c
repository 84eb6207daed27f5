/* A kernel's reach (reach.h). */
#include <stdlib.h>
#include <string.h>
#include "reach.h"

typedef struct reach {
    const ptx_module *m;
    uint8_t *named;
    ptx_sym_fn use;
    void *ctx;
} reach;

static void reach_name(void *ctx, const ptx_operand *o, ptx_str name) {
    reach *r = ctx;
    r->use(r->ctx, o, name);
    for (uint32_t i = 0; i < r->m->nfuncs; i++)
        if (ptx_str_eqs(r->m->funcs[i]->name, name)) r->named[i] = 1;
}

bool cfg_reach(const ptx_module *m, uint32_t k, const uint8_t *seed, uint8_t *reached, ptx_sym_fn use, void *ctx) {
    uint32_t nf = m->nfuncs, nstack = 0;
    uint8_t *named = calloc(nf + 1, 1);
    uint32_t *stack = malloc((nf + 1) * sizeof *stack);
    if (!named || !stack) abort();
    if (seed) memcpy(named, seed, nf);
    reach r = {m, named, use, ctx};
    bool indirect = false;
    reached[k] = 1;
    stack[nstack++] = k;
    while (nstack) {
        const ptx_func *f = m->funcs[stack[--nstack]];
        for (uint32_t s = 0; s < f->nstmts; s++) {
            const ptx_stmt *st = f->stmts[s];
            if (st->kind != PTX_S_INST) continue;
            const ptx_inst *in = &st->u.inst;
            for (uint32_t i = 0; i < in->nopd; i++) {
                ptx_opd_syms(&in->opd[i], reach_name, &r);
                if (in->op == PTX_OPC_CALL && in->opd[i].kind == PTX_O_REG) indirect = true;
            }
        }
        for (uint32_t g = 0; g < nf; g++)
            if (named[g] && !reached[g] && m->funcs[g]->has_body) {
                reached[g] = 1;
                stack[nstack++] = g;
            }
    }
    free(named);
    free(stack);
    return indirect;
}

