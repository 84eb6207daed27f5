/* Register pressure (pressure.h). */
#include "pressure.h"
#include <stdlib.h>
#include <string.h>
#include "semantics.h"

typedef struct rp_ctx {
    uint64_t *use, *def; /* of the instruction being visited */
} rp_ctx;

static void on_ref(void *ctx, const ptx_inst *in, const ptx_reg_ref *r)
{
    (void)in;
    rp_ctx *c = ctx;
    if (r->role & PTX_REF_SREG) return;
    /* a definition that may keep the old value does not kill it */
    if ((r->role & PTX_REF_DEF) && !(r->role & PTX_REF_MAYDEF)) c->def[r->id / 64] |= 1ull << (r->id % 64);
    else c->use[r->id / 64] |= 1ull << (r->id % 64);
}

static void inst_refs(const ptx_stmt *s, uint64_t *use, uint64_t *def, size_t w)
{
    memset(use, 0, w * 8);
    memset(def, 0, w * 8);
    rp_ctx c = {use, def};
    ptx_inst_foreach_reg(&s->u.inst, NULL, on_ref, &c);
}

static uint32_t units(const ptx_reg *r)
{
    unsigned bits = ptx_type_bits((ptx_type)r->type);
    return (bits + 31) / 32 * (r->vec > 1 ? r->vec : 1);
}

static void measure(const ptx_func *fn, const uint64_t *live, size_t w, uint32_t stmt, rp_result *out)
{
    uint32_t regs = 0, preds = 0;
    for (size_t k = 0; k < w; k++)
        for (uint64_t m = live[k]; m; m &= m - 1) {
            const ptx_reg *r = &fn->regs[k * 64 + (unsigned)__builtin_ctzll(m)];
            if (r->type == PTX_T_PRED) preds++;
            else regs += units(r);
        }
    if (regs > out->regs32 || out->at_stmt == UINT32_MAX) {
        out->regs32 = regs > out->regs32 ? regs : out->regs32;
        out->at_stmt = stmt;
    }
    if (preds > out->preds) out->preds = preds;
}

void rp_compute(const prog_func *pf, rp_result *out)
{
    const ptx_func *fn = pf->fn;
    const cfg *g = pf->g;
    out->regs32 = out->preds = 0;
    out->at_stmt = UINT32_MAX;
    size_t w = (fn->nregs + 63) / 64;
    if (!w) return;
    uint64_t *mem = calloc((size_t)g->nblocks * 4 * w + 3 * w, 8);
    if (!mem) abort();
    uint64_t *buse = mem, *bdef = mem + g->nblocks * w, *in = mem + 2 * g->nblocks * w,
             *outs = mem + 3 * g->nblocks * w, *u = mem + 4 * g->nblocks * w, *d = u + w, *live = d + w;
    for (uint32_t b = 0; b < g->nblocks; b++) {
        uint64_t *bu = buse + b * w, *bd = bdef + b * w;
        for (uint32_t s = g->blocks[b].first; s < g->blocks[b].end; s++) {
            if (fn->stmts[s]->kind != PTX_S_INST) continue;
            inst_refs(fn->stmts[s], u, d, w);
            for (size_t k = 0; k < w; k++) {
                bu[k] |= u[k] & ~bd[k];
                bd[k] |= d[k];
            }
        }
    }
    /* reverse of reverse post-order converges in a few rounds */
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t i = g->nreach; i-- > 0;) {
            uint32_t b = g->rpo_order[i];
            uint64_t *o = outs + b * w, *n = in + b * w;
            for (uint32_t s = 0; s < g->blocks[b].nsucc; s++)
                for (size_t k = 0; k < w; k++) o[k] |= in[g->blocks[b].succ[s] * w + k];
            for (size_t k = 0; k < w; k++) {
                uint64_t v = buse[b * w + k] | (o[k] & ~bdef[b * w + k]);
                if (v != n[k]) n[k] = v, changed = true;
            }
        }
    }
    for (uint32_t i = 0; i < g->nreach; i++) {
        uint32_t b = g->rpo_order[i];
        memcpy(live, outs + b * w, w * 8);
        for (uint32_t s = g->blocks[b].end; s-- > g->blocks[b].first;) {
            if (fn->stmts[s]->kind != PTX_S_INST) continue;
            measure(fn, live, w, s, out);
            inst_refs(fn->stmts[s], u, d, w);
            for (size_t k = 0; k < w; k++) live[k] = (live[k] & ~d[k]) | u[k];
            measure(fn, live, w, s, out);
        }
    }
    free(mem);
}
