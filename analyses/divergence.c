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
    /* reachability from the sources, over the values and the gate sets */
    uint32_t n = div_graph_vertices(pf);
    uint32_t *off = users.off, *adj = users.item;
    uint32_t *stack = malloc(sizeof *stack * (n ? n : 1));
    uint8_t *div = calloc(n ? n : 1, 1);
    if (!stack || !div) abort();
    uint32_t ns = 0;
    for (uint32_t v = 0; v < s->nvalues; v++)
        if (r->source[v] != DIV_SRC_NONE) {
            div[v] = 1;
            stack[ns++] = v;
        }
    while (ns) {
        uint32_t v = stack[--ns];
        r->steps += off[v + 1] - off[v];
        for (uint32_t e = off[v]; e < off[v + 1]; e++)
            if (!div[adj[e]]) {
                div[adj[e]] = 1;
                stack[ns++] = adj[e];
            }
    }
    for (uint32_t v = 0; v < s->nvalues; v++) r->state[v] = div[v] ? DIV_DIVERGENT : DIV_UNIFORM;
    /* the assumption bits: those of the %tid.y/%tid.z it was computed
     * from under the default shape (the union over the same graph) */
    if (r->shape_assumed && !r->yz_by_option) {
        uint8_t *cv = calloc(n ? n : 1, 1);
        if (!cv) abort();
        ns = 0;
        for (uint32_t v = 0; v < s->nvalues; v++)
            if (s->values[v].kind == SSA_V_SREG && s->values[v].reg == PTX_SR_TID && s->values[v].comp != 'x') {
                cv[v] = DIV_COND_X32;
                stack[ns++] = v;
            }
        while (ns) {
            uint32_t v = stack[--ns];
            for (uint32_t e = off[v]; e < off[v + 1]; e++)
                if ((cv[adj[e]] | cv[v]) != cv[adj[e]]) {
                    cv[adj[e]] |= cv[v];
                    stack[ns++] = adj[e];
                }
        }
        for (uint32_t v = 0; v < s->nvalues; v++) r->cond[v] = r->state[v] == DIV_UNIFORM ? cv[v] : 0;
        free(cv);
    }
    u32csr_free(&users);
    free(div);
    free(stack);
    return r;
}

enum div_state div_branch(const div_result *r, uint32_t b)
{
    uint32_t v;
    bool neg;
    if (!gsa_branch_gate(r->pf->ssa, b, &v, &neg) || v == SSA_NONE) return DIV_UNIFORM;
    return r->state[v] == DIV_UNIFORM ? DIV_UNIFORM : DIV_DIVERGENT;
}

unsigned div_branch_cond(const div_result *r, uint32_t b)
{
    uint32_t v;
    bool neg;
    if (!r->cond || !gsa_branch_gate(r->pf->ssa, b, &v, &neg) || v == SSA_NONE) return 0;
    return r->cond[v];
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
