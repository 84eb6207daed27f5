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

/* Gate values of every gamma/mu/eta node: the predicates of the selections
 * in its gating expressions and of its listed branches. */
typedef struct walk {
    const gsa_expr **stack;
    uint32_t n, cap;
} walk;

static void push_expr(walk *w, const gsa_expr *e)
{
    if (!e) return;
    if (w->n == w->cap) {
        w->cap = w->cap ? 2 * w->cap : 16;
        w->stack = realloc(w->stack, sizeof *w->stack * w->cap);
        if (!w->stack) abort();
    }
    w->stack[w->n++] = e;
}

static void node_gates(const prog_func *pf, u32csr *gates)
{
    const ssa_func *s = pf->ssa;
    const gsa_func *gf = pf->gsa;
    u32vec keys = {0}, items = {0};
    walk w = {0};
    for (uint32_t k = 0; k < s->nnodes; k++) {
        const gsa_node *gn = &gf->nodes[k];
        /* gating expressions are DAGs of small depth; duplicates are harmless */
        push_expr(&w, gn->expr);
        push_expr(&w, gn->carried);
        while (w.n) {
            const gsa_expr *e = w.stack[--w.n];
            if (e->kind != GSA_X_SELECT) continue;
            if (e->value != SSA_NONE) {
                u32vec_push(&keys, k);
                u32vec_push(&items, e->value);
            }
            for (uint32_t i = 0; i < e->n; i++) push_expr(&w, e->ops[i]);
        }
        for (uint32_t i = 0; i < gn->ngates; i++) {
            uint32_t gv;
            bool neg;
            if (gsa_branch_gate(s, gn->gates[i], &gv, &neg) && gv != SSA_NONE) {
                u32vec_push(&keys, k);
                u32vec_push(&items, gv);
            }
        }
    }
    u32csr_build(gates, s->nnodes, &keys, &items);
    free(w.stack);
    u32vec_free(&keys);
    u32vec_free(&items);
}

static void eval_node(const aff_ctx *cx, const u32csr *gates, uint32_t v, aff *out)
{
    const ssa_func *s = cx->pf->ssa;
    uint32_t k = s->values[v].node;
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

static void eval(const aff_ctx *cx, const u32csr *gates, uint32_t v, aff *out)
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

/* Values in an order where definitions mostly come before uses: entry
 * values, then blocks in reverse post-order, nodes before instructions. */
static uint32_t *solve_order(const prog_func *pf, uint32_t *count)
{
    const ssa_func *s = pf->ssa;
    const cfg *g = pf->g;
    uint32_t *ord = malloc(sizeof *ord * (s->nvalues ? s->nvalues : 1));
    if (!ord) abort();
    uint32_t n = 0;
    for (uint32_t v = 0; v < s->nvalues; v++)
        if (s->values[v].kind == SSA_V_SREG || s->values[v].kind == SSA_V_ENTRY) ord[n++] = v;
    for (uint32_t i = 0; i < g->nreach; i++) {
        uint32_t b = g->rpo_order[i];
        for (uint32_t k = s->node_off[b]; k < s->node_off[b + 1]; k++) ord[n++] = s->nodes[k].value;
        const cfg_block *bb = &g->blocks[b];
        if (bb->kind != CFG_B_REAL) continue;
        for (uint32_t st = bb->first; st < bb->end; st++)
            for (uint32_t k = s->ref_off[st]; k < s->ref_off[st + 1]; k++)
                if ((s->refs[k].role & PTX_REF_DEF) && s->refs[k].value != SSA_NONE &&
                    s->values[s->refs[k].value].stmt == st && s->values[s->refs[k].value].ref == k)
                    ord[n++] = s->refs[k].value;
    }
    *count = n;
    return ord;
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
    uint8_t *top = malloc(nv ? nv : 1);
    uint8_t *inq = calloc(nv ? nv : 1, 1);
    uint32_t *queue = malloc(sizeof *queue * (nv + 1));
    if (!top || !inq || !queue) abort();
    memset(top, 1, nv);
    aff_ctx cx = {.pf = pf, .r = r, .top = top, .n = r->ncoef,
                  .divmask = (uint16_t)(aff_mask_any(dims) & AFF_ALL(r->ncoef))};
    u32csr users, gates;
    div_graph_build(pf, r, &users);
    node_gates(pf, &gates);
    /* FIFO worklist, each value in it at most once */
    uint32_t head = 0, tail = 0, cnt = 0;
    uint32_t *ord = solve_order(pf, &cnt);
    for (uint32_t i = 0; i < cnt; i++) {
        queue[tail++] = ord[i];
        inq[ord[i]] = 1;
    }
    free(ord);
    uint32_t cap = nv + 1;
    tail %= cap;
    while (head != tail) {
        uint32_t v = queue[head];
        head = (head + 1) % cap;
        inq[v] = 0;
        aff nw, old;
        eval(&cx, &gates, v, &nw);
        if (nw.top) continue;
        aff_get(&cx, v, &old);
        aff_meet(&nw, &old, &nw);
        if (!old.top && aff_equal(&nw, &old)) continue;
        put(&cx, v, &nw);
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
    u32csr_free(&gates);
    free(top);
    free(inq);
    free(queue);
    return r;
}
