/* The divergence analyses with affine constraints (Sampaio et al. 2013,
 * section 3.4), sparse on the GSA dependence graph: a worklist solver over
 * the lattice of aff_poly.h, each value starting at ⊤ and only moving down
 * (new = old ∧ f(operands)), so it terminates after at most 1 + ncoef
 * changes per value.  Transfer functions for instructions are in
 * affine_rules.c; gamma, mu and eta are here:
 *   GAMA/ETAA  all gates uniform: the meet of the arguments; else ⊥
 *   RMUD/μ     the meet of init and carried (no gate of its own: inside the
 *              loop, the threads still in it have run the same iterations) */
#include <stdlib.h>
#include <string.h>
#include "affine_internal.h"
#include "semantics.h"

void aff_get(const aff_ctx *cx, uint32_t v, aff *out)
{
    if (cx->top[v]) {
        aff_top(out, cx->n);
        return;
    }
    out->n = (uint8_t)cx->n;
    out->top = 0;
    out->bot = cx->r->bot[v];
    memcpy(out->c, cx->r->coef + (size_t)v * cx->n, sizeof out->c[0] * cx->n);
}

/* Stores old ∧ a as v's value; whether it changed. */
static bool merge(aff_ctx *cx, uint32_t v, const aff *a)
{
    div_result *r = (div_result *)cx->r;
    int64_t *c = r->coef + (size_t)v * cx->n;
    if (cx->top[v]) {
        ((uint8_t *)cx->top)[v] = 0;
        r->bot[v] = a->bot;
        memcpy(c, a->c, sizeof a->c[0] * cx->n);
        return true;
    }
    uint16_t bot = r->bot[v] | a->bot;
    for (unsigned i = 0; i < cx->n; i++)
        if (!(bot >> i & 1) && c[i] != a->c[i]) bot |= (uint16_t)(1u << i);
    if (bot == r->bot[v]) return false;
    for (unsigned i = 0; i < cx->n; i++)
        if (bot >> i & 1) c[i] = 0;
    r->bot[v] = bot;
    return true;
}

static void put(aff_ctx *cx, uint32_t v, const aff *a)
{
    div_result *r = (div_result *)cx->r;
    ((uint8_t *)cx->top)[v] = 0;
    r->bot[v] = a->bot;
    memcpy(r->coef + (size_t)v * cx->n, a->c, sizeof a->c[0] * cx->n);
}

static void eval_sreg(const aff_ctx *cx, const ssa_value *val, aff *out)
{
    const div_result *r = cx->r;
    int d = val->comp == 'x' ? 0 : val->comp == 'y' ? 1 : val->comp == 'z' ? 2 : -1;
    switch (val->reg) {
    case PTX_SR_TID:
        if (d < 0) break;
        if (r->block[d] == 1) aff_const(out, cx->n, 0); /* a block one thread wide in d */
        else aff_monomial(out, cx->n, DIV_C_X + (unsigned)d);
        return;
    case PTX_SR_LANEID:
        aff_monomial(out, cx->n, DIV_C_LANE);
        return;
    case PTX_SR_NTID:
        if (d >= 0 && r->block[0]) aff_const(out, cx->n, r->block[d] ? r->block[d] : 1);
        else aff_uniform_unknown(out, cx->n);
        return;
    default:
        break;
    }
    if (r->source[val - cx->pf->ssa->values] != DIV_SRC_NONE) aff_bottom(out, cx->n);
    else aff_uniform_unknown(out, cx->n);
}

/* The gates of the nodes: those of their gating expressions, and their
 * gate sets (shared by every eta leaving the same loops), each with a
 * verdict: divergent once one of its gates is not uniform. */
typedef struct node_gates {
    u32csr expr, set;
    uint8_t *set_div;
} node_gates;

static void eval_node(const aff_ctx *cx, const node_gates *ng, uint32_t v, aff *out)
{
    const ssa_func *s = cx->pf->ssa;
    uint32_t k = s->values[v].node;
    uint32_t set = cx->pf->gsa->nodes[k].gate_set;
    if (set != GSA_NO_SET && ng->set_div[set]) {
        aff_bottom(out, cx->n);
        return;
    }
    const u32csr *gates = &ng->expr;
    for (uint32_t i = gates->off[k]; i < gates->off[k + 1]; i++) {
        aff g;
        aff_get(cx, gates->item[i], &g);
        /* a gate still ⊤ is optimistically uniform: its change re-queues v */
        if (!g.top && !aff_uniform(cx, &g)) {
            aff_bottom(out, cx->n);
            return;
        }
    }
    aff_top(out, cx->n);
    const ssa_node *nd = &s->nodes[k];
    for (uint32_t i = 0; i < nd->nargs; i++) {
        if (nd->args[i] == SSA_NONE) continue;
        aff x;
        aff_get(cx, nd->args[i], &x);
        aff_meet(out, out, &x);
    }
}

static void eval(const aff_ctx *cx, const node_gates *gates, uint32_t v, aff *out)
{
    const ssa_value *val = &cx->pf->ssa->values[v];
    switch (val->kind) {
    case SSA_V_SREG: eval_sreg(cx, val, out); break;
    case SSA_V_ENTRY:
        if (val->param) aff_bottom(out, cx->n); /* a .func's register parameter */
        else aff_uniform_unknown(out, cx->n);   /* undefined: any value will do, as in div_simple */
        break;
    case SSA_V_INST: aff_eval_inst(cx, v, out); break;
    default: eval_node(cx, gates, v, out); break;
    }
}

static bool dim_divergent(const div_result *r, unsigned d)
{
    if (d == DIV_C_Y) return !r->tid_y_uniform;
    if (d == DIV_C_Z) return !r->tid_z_uniform;
    return true; /* tid.x and laneid */
}

div_result *div_analyse(const prog_func *pf, enum div_analysis an, const div_options *o, arena *a)
{
    if (an == DIV_AN_SIMPLE) return div_simple(pf, o, a);
    const ssa_func *s = pf->ssa;
    uint32_t nv = s->nvalues;
    div_result *r = div_result_new(pf, an, o, a);
    r->ncoef = an == DIV_AN_AFFINE ? DIV_NCOEF1 : DIV_NCOEF2;
    r->coef = ARENA_NEWN(a, int64_t, (size_t)(nv ? nv : 1) * r->ncoef);
    r->bot = ARENA_NEWN(a, uint16_t, nv ? nv : 1);
    unsigned dims = 0;
    for (unsigned d = DIV_C_X; d <= DIV_C_LANE; d++)
        if (dim_divergent(r, d)) dims |= 1u << d;
    uint32_t nvert = div_graph_vertices(pf); /* values, then gate sets */
    uint8_t *top = malloc(nv ? nv : 1);
    uint8_t *inq = calloc(nvert ? nvert : 1, 1);
    uint32_t *queue = malloc(sizeof *queue * (nvert + 1));
    if (!top || !inq || !queue) abort();
    memset(top, 1, nv);
    aff_op *ops = calloc(pf->fn->nstmts ? pf->fn->nstmts : 1, sizeof *ops);
    div_stmt_info *info = malloc(sizeof *info * (pf->fn->nstmts ? pf->fn->nstmts : 1));
    if (!ops || !info) abort();
    aff_ctx cx = {.pf = pf, .r = r, .top = top, .n = r->ncoef, .ops = ops, .info = info,
                  .divmask = (uint16_t)(aff_mask_any(dims) & AFF_ALL(r->ncoef))};
    u32csr users;
    node_gates gates;
    div_graph_build(pf, r, &users, info, &gates.expr, &gates.set);
    gates.set_div = calloc(pf->gsa->ngate_sets ? pf->gsa->ngate_sets : 1, 1);
    if (!gates.set_div) abort();
    /* FIFO worklist, each value in it at most once */
    uint32_t head = 0, tail = 0;
    uint32_t *ord = malloc(sizeof *ord * (pf->ssa->nvalues ? pf->ssa->nvalues : 1));
    if (!ord) abort();
    uint32_t cnt = ssa_value_order(pf->ssa, ord);
    for (uint32_t i = 0; i < cnt; i++) {
        queue[tail++] = ord[i];
        inq[ord[i]] = 1;
    }
    free(ord);
    uint32_t cap = nvert + 1;
    tail %= cap;
    while (head != tail) {
        uint32_t v = queue[head];
        head = (head + 1) % cap;
        inq[v] = 0;
        r->steps++;
        if (v >= nv) { /* a gate set: queued when one of its gates changed */
            uint32_t k = v - nv, i;
            if (gates.set_div[k]) continue;
            for (i = gates.set.off[k]; i < gates.set.off[k + 1]; i++) {
                aff g;
                aff_get(&cx, gates.set.item[i], &g);
                if (!g.top && !aff_uniform(&cx, &g)) break;
            }
            if (i == gates.set.off[k + 1]) continue;
            gates.set_div[k] = 1;
        } else {
            aff nw;
            eval(&cx, &gates, v, &nw);
            if (nw.top || !merge(&cx, v, &nw)) continue;
        }
        for (uint32_t e = users.off[v]; e < users.off[v + 1]; e++) {
            uint32_t u = users.item[e];
            if (inq[u]) continue;
            inq[u] = 1;
            queue[tail] = u;
            tail = (tail + 1) % cap;
        }
    }
    /* Never reached by a computed value (no execution defines them): any
     * claim holds; say uniform, as the simple analysis does. */
    aff uu;
    aff_uniform_unknown(&uu, cx.n);
    for (uint32_t v = 0; v < nv; v++)
        if (top[v]) put(&cx, v, &uu);
    uint16_t pair = (uint16_t)(aff_mask_all(dims) & AFF_ALL(r->ncoef) & ~AFF_ALL(DIV_NCOEF1));
    for (uint32_t v = 0; v < nv; v++) {
        aff x;
        aff_get(&cx, v, &x);
        if (aff_uniform(&cx, &x)) r->state[v] = DIV_UNIFORM;
        else if (an == DIV_AN_AFFINE) r->state[v] = (x.bot & cx.divmask) ? DIV_DIVERGENT : DIV_AFFINE;
        /* degree 2 (Theorem 3.5): no quadratic term in the varying dimensions */
        else r->state[v] = aff_zero_on(&x, pair) ? DIV_AFFINE : DIV_DIVERGENT;
    }
    u32csr_free(&users);
    u32csr_free(&gates.expr);
    u32csr_free(&gates.set);
    free(gates.set_div);
    free(ops);
    free(info);
    free(top);
    free(inq);
    free(queue);
    return r;
}
