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
    div_graph_build(pf, r, &users, NULL, NULL);
    /* reachability from the sources */
    uint32_t n = s->nvalues;
    uint32_t *off = users.off, *adj = users.item;
    uint32_t *stack = malloc(sizeof *stack * (n ? n : 1));
    if (!stack) abort();
    uint32_t ns = 0;
    for (uint32_t v = 0; v < n; v++)
        if (r->source[v] != DIV_SRC_NONE) {
            r->state[v] = DIV_DIVERGENT;
            stack[ns++] = v;
        }
    while (ns) {
        uint32_t v = stack[--ns];
        r->steps += off[v + 1] - off[v];
        for (uint32_t e = off[v]; e < off[v + 1]; e++)
            if (r->state[adj[e]] != DIV_DIVERGENT) {
                r->state[adj[e]] = DIV_DIVERGENT;
                stack[ns++] = adj[e];
            }
    }
    u32csr_free(&users);
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
