/* The simple divergence analysis as graph reachability (paper, "Sparse
 * Implementation"): the divergent values are those reachable from a
 * source in the dependence graph of the GSA program (div_graph.c). */
#include <stdlib.h>
#include "div_internal.h"

div_result *div_simple(const prog_func *pf, const div_options *o, arena *a)
{
    const ssa_func *s = pf->ssa;
    div_result *r = div_result_new(pf, DIV_AN_SIMPLE, o, a);
    u32csr users;
    div_graph_build(pf, r, &users, NULL, NULL, NULL);
    if (r->cta) /* block granularity: %warpid, and a warp collective's result (one per warp, or per lane) */
        for (uint32_t v = 0; v < s->nvalues; v++) {
            const ssa_value *val = &s->values[v];
            if (r->source[v] != DIV_SRC_NONE) continue;
            if (val->kind == SSA_V_SREG && val->reg == PTX_SR_WARPID) r->source[v] = DIV_SRC_TID;
            if (val->kind == SSA_V_INST && (s->sem[val->stmt].flags & PTX_SEM_COLLECTIVE) &&
                s->fn->stmts[val->stmt]->u.inst.op != PTX_OPC_BAR && s->fn->stmts[val->stmt]->u.inst.op != PTX_OPC_BARRIER)
                r->source[v] = DIV_SRC_COLLECTIVE; /* bar.red's result is the block's: the same in every thread */
        }
    /* reachability from the sources over the values and the gate sets,
     * and with it the assumption bits: those of the %tid.y/%tid.z a value
     * is computed from under the default shape (the same union over the
     * same graph).  A vertex's mask grows at most twice: 2n pushes. */
    enum { DIV_BIT = 0x80 };
    uint32_t n = div_graph_vertices(pf);
    uint32_t *off = users.off, *adj = users.item;
    uint32_t *stack = malloc(sizeof *stack * (2 * (size_t)n + 1));
    uint8_t *mask = calloc(n ? n : 1, 1);
    if (!stack || !mask) abort();
    bool assumed = r->shape_assumed && !r->yz_by_option;
    uint32_t ns = 0;
    for (uint32_t v = 0; v < s->nvalues; v++) {
        const ssa_value *val = &s->values[v];
        if (r->source[v] != DIV_SRC_NONE) mask[v] |= DIV_BIT;
        if (assumed && val->kind == SSA_V_SREG && val->reg == PTX_SR_TID && val->comp != 'x') mask[v] |= DIV_COND_X32;
        if (mask[v]) stack[ns++] = v;
    }
    while (ns) {
        uint32_t v = stack[--ns];
        r->steps += off[v + 1] - off[v];
        for (uint32_t e = off[v]; e < off[v + 1]; e++)
            if ((mask[adj[e]] | mask[v]) != mask[adj[e]]) {
                mask[adj[e]] |= mask[v];
                stack[ns++] = adj[e];
            }
    }
    for (uint32_t v = 0; v < s->nvalues; v++) {
        r->state[v] = mask[v] & DIV_BIT ? DIV_DIVERGENT : DIV_UNIFORM;
        r->cond[v] = mask[v] & DIV_BIT ? 0 : mask[v];
    }
    u32csr_free(&users);
    free(mask);
    free(stack);
    return r;
}

bool div_cond_holds(unsigned cond, const uint32_t block[3])
{
    uint32_t x = block[0] ? block[0] : 1, y = block[1] ? block[1] : 1, z = block[2] ? block[2] : 1;
    if ((cond & DIV_COND_X32) && x % 32) return false;
    if ((cond & DIV_COND_ROWS) && x % 32 && (y != 1 || z != 1)) return false;
    return true;
}

const char *div_cond_text(unsigned cond)
{
    if (cond & DIV_COND_X32) return "blockDim.x is a multiple of 32";
    if (cond & DIV_COND_ROWS) return "blockDim.x is a multiple of 32 or the block is one-dimensional";
    return "";
}
