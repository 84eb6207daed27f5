/* The verdicts on branches (divergence.h), from an analysis' result: the
 * one place every view asks (divergence, check, analyze, the HTML page,
 * the CFG's colours, uniformize, the allocator's ITS rule and the
 * emulator's check), so that no two of them can disagree. */
#include "aff_poly.h"
#include "div_internal.h"
#include <string.h>

static bool value_uniform(const div_result *r, uint32_t v) { return v == SSA_NONE || r->state[v] == DIV_UNIFORM; }
static unsigned value_cond(const div_result *r, uint32_t v) { return v == SSA_NONE || !r->cond ? 0 : r->cond[v]; }

bool div_stmt_uniform(const div_result *r, uint32_t stmt)
{
    const ssa_func *s = r->pf->ssa;
    if (!value_uniform(r, ssa_guard_value(s, stmt))) return false;
    return s->fn->stmts[stmt]->u.inst.op != PTX_OPC_BRX || value_uniform(r, ssa_use_value(s, stmt, 0));
}

unsigned div_stmt_cond(const div_result *r, uint32_t stmt)
{
    const ssa_func *s = r->pf->ssa;
    if (!div_stmt_uniform(r, stmt)) return 0;
    unsigned c = value_cond(r, ssa_guard_value(s, stmt));
    return s->fn->stmts[stmt]->u.inst.op == PTX_OPC_BRX ? c | value_cond(r, ssa_use_value(s, stmt, 0)) : c;
}

enum div_uni div_uni(div_result *const *r, uint32_t nr, uint32_t stmt, unsigned *cond)
{
    unsigned c = 0;
    *cond = 0;
    for (uint32_t a = 0; a < nr; a++) {
        if (!div_stmt_uniform(r[a], stmt)) return DIV_UNI_NOT_PROVEN;
        c |= div_stmt_cond(r[a], stmt);
    }
    *cond = c;
    return c ? DIV_UNI_ASSUMED : DIV_UNI_YES;
}

void div_partial_blocks(const cfg *g, const uint8_t *split, uint8_t *part)
{
    memset(part, 0, g->nblocks);
    /* rounds in reverse post-order: control dependence has cycles in loops */
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t k = 0; k < g->nreach; k++) {
            uint32_t b = g->rpo_order[k];
            if (part[b]) continue;
            for (uint32_t i = g->cdep_off[b]; i < g->cdep_off[b + 1]; i++)
                if (split[g->cdep[i]] || part[g->cdep[i]]) {
                    part[b] = 1;
                    changed = true;
                    break;
                }
        }
    }
}

/* The gate (gsa_branch_gate: the guard, else a brx.idx's index) and the
 * statement: a guarded brx.idx is uniform when its guard and its index
 * are. */
enum div_state div_branch(const div_result *r, uint32_t b)
{
    uint32_t v, term = r->pf->g->blocks[b].term;
    bool neg;
    if (!gsa_branch_gate(r->pf->ssa, b, &v, &neg) || v == SSA_NONE) return DIV_UNIFORM;
    if (r->state[v] != DIV_UNIFORM) return DIV_DIVERGENT;
    return term == CFG_NONE || div_stmt_uniform(r, term) ? DIV_UNIFORM : DIV_DIVERGENT;
}

unsigned div_branch_cond(const div_result *r, uint32_t b)
{
    uint32_t v, term = r->pf->g->blocks[b].term;
    bool neg;
    if (div_branch(r, b) != DIV_UNIFORM || !gsa_branch_gate(r->pf->ssa, b, &v, &neg) || v == SSA_NONE) return 0;
    return value_cond(r, v) | (term == CFG_NONE ? 0 : div_stmt_cond(r, term));
}

/* Whether x, read as an integer, is what a w-bit register holds (signed or
 * not): then the comparison's operand is x itself, whatever wrapped on the
 * way (the polynomial is exact modulo 2^w). */
static bool fits(__int128 x, unsigned w, bool sgn)
{
    __int128 lo = sgn ? -((__int128)1 << (w - 1)) : 0, hi = sgn ? ((__int128)1 << (w - 1)) : (__int128)1 << w;
    return x >= lo && x < hi;
}

/* Operand i of the setp at st as a polynomial with every coefficient known. */
static bool known_operand(const div_result *r, uint32_t st, const ptx_inst *in, unsigned i, aff *out)
{
    const ptx_operand *o = &in->opd[i];
    if (o->kind == PTX_O_IMM && o->flags == PTX_IMM_INT) {
        aff_const(out, r->ncoef, o->v);
        return true;
    }
    if (o->kind != PTX_O_REG || o->neg) return false;
    uint32_t v = ssa_use_value(r->pf->ssa, st, i);
    if (v == SSA_NONE) return false;
    aff_of_result(r, v, out);
    return !out->top && !out->bot;
}

int div_setp_holds(uint8_t cmp, uint8_t sgn, unsigned w, __int128 x, __int128 y)
{
    if (!fits(x, w, sgn) || !fits(y, w, sgn)) return -1;
    return cmp == WF_EQ ? x == y : cmp == WF_NE ? x != y : cmp == WF_LT ? x < y : cmp == WF_LE ? x <= y
           : cmp == WF_GT ? x > y : x >= y;
}

/* An integer comparison whose two operands the polynomials know exactly,
 * read lane by lane (cmp_split_warps, setp_threads). */
typedef struct setp_eval {
    uint8_t cmp, sgn;
    unsigned w, nm, mi[DIV_NCOEF2];
    aff a, b;
    uint32_t X, Y, n; /* the block's x and y extents and its threads */
} setp_eval;

/* The comparison of the setp at st, and the threads of one block (every
 * block has the same thread coordinates).  The shape is the result's; at
 * the default assumption (blockDim.x a multiple of 32) warp 0 alone is
 * known: its lanes are tid.x = 0..31 of row 0. */
static bool setp_eval_init(const div_result *r, uint32_t st, setp_eval *e)
{
    const ptx_inst *in = &r->pf->fn->stmts[st]->u.inst;
    const ptx_iop *d = &r->pf->ssa->iop[st];
    if (d->rule != PTX_IOP_CMP || in->nopd != 3 || d->cmp == PTX_CMP_NONE || d->comb) return false;
    e->cmp = d->cmp;
    e->sgn = d->sgn;
    if (!known_operand(r, st, in, 1, &e->a) || !known_operand(r, st, in, 2, &e->b)) return false;
    uint32_t X = r->block[0], Y = r->block[1] ? r->block[1] : 1, Z = r->block[2] ? r->block[2] : 1;
    if (r->shape_assumed) X = 32, Y = Z = 1;
    if (!X || (uint64_t)X * Y * Z > 1024) return false;
    e->X = X, e->Y = Y, e->n = X * Y * Z;
    /* the monomials either operand has, with their two factors: a lane's
     * value is the sum of those terms (over the integers: a coefficient
     * below 2^63 times a monomial below 2^20 fits 128 bits) */
    e->nm = 0;
    for (unsigned i = 1; i < r->ncoef; i++)
        if (e->a.c[i] || e->b.c[i]) e->mi[e->nm++] = i;
    e->w = ptx_type_bits(in->type);
    return true;
}

/* Thread t's outcome: 0 or 1, -1 when an operand does not fit its register
 * (the comparison then reads another value). */
static int setp_eval_at(const setp_eval *e, uint32_t t)
{
    int64_t d[5] = {1, t % e->X, t / e->X % e->Y, t / e->X / e->Y, t % 32};
    __int128 x = e->a.c[0], y = e->b.c[0];
    for (unsigned j = 0; j < e->nm; j++) {
        unsigned i = e->mi[j];
        int64_t m = d[aff_fac[i][0]] * (aff_fac[i][1] ? d[aff_fac[i][1]] : 1);
        x += (__int128)e->a.c[i] * m, y += (__int128)e->b.c[i] * m;
    }
    return div_setp_holds(e->cmp, e->sgn, e->w, x, y);
}

/* A guard that is such a comparison: each lane's outcome, warp by warp, over
 * the threads of one block; first: stop at the first warp that splits. */
static uint32_t cmp_split_warps(const div_result *r, uint32_t st, bool first)
{
    setp_eval e;
    if (!setp_eval_init(r, st, &e)) return 0;
    uint32_t split = 0;
    for (uint32_t wp = 0; wp * 32 < e.n; wp++) {
        int seen = -1;
        for (uint32_t t = wp * 32; t < e.n && t < wp * 32 + 32; t++) {
            int p = setp_eval_at(&e, t);
            if (p < 0) return 0;
            if (seen < 0) seen = p;
            else if (seen != p) {
                split |= 1u << wp;
                break;
            }
        }
        if (split && first) break;
    }
    return split;
}

bool div_pred_threads(const div_result *r, uint32_t v, uint32_t bits[32], uint32_t *nthreads)
{
    if (v == SSA_NONE || !div_has_coefs(r)) return false;
    uint32_t X = r->block[0], Y = r->block[1] ? r->block[1] : 1, Z = r->block[2] ? r->block[2] : 1;
    uint64_t n = r->shape_assumed ? 32 : (uint64_t)X * Y * Z;
    if (!n || n > 1024) return false;
    memset(bits, 0, 32 * sizeof *bits);
    *nthreads = (uint32_t)n;
    /* known lane by lane, the same in every warp */
    wform wf;
    if (div_warp_form(r, v, &wf) && (wf.kind == WF_LANE || wf.kind == WF_UNI) && wf.k == 64) {
        for (uint32_t t = 0; t < n; t++)
            if (wf_at(&wf, t % 32) & 1) bits[t / 32] |= 1u << (t % 32);
        return true;
    }
    const ssa_value *val = &r->pf->ssa->values[v];
    setp_eval e;
    if (val->kind != SSA_V_INST || val->partial || !setp_eval_init(r, val->stmt, &e)) return false;
    for (uint32_t t = 0; t < n; t++) {
        int p = setp_eval_at(&e, t);
        if (p < 0) return false;
        if (p) bits[t / 32] |= 1u << (t % 32);
    }
    return true;
}

/* The warps (first: some warp, or 0) that split at the branch ending b. */
static uint32_t split_warps(const div_result *r, uint32_t b, bool first)
{
    const cfg_block *bb = &r->pf->g->blocks[b];
    if (bb->nsucc != 2 || bb->term == CFG_NONE || !div_has_coefs(r)) return 0;
    const ssa_func *s = r->pf->ssa;
    uint32_t v = ssa_guard_value(s, bb->term);
    if (v == SSA_NONE) return 0;
    /* the guard's warp form knows it lane by lane (U known) and it is not
     * the same in every lane: every whole warp splits, and the last warp of
     * a block that is not a multiple of 32 threads when its lanes differ */
    wform wf;
    if (div_warp_form(r, v, &wf) && wf.kind == WF_LANE && wf.k == 64 && !wf_is_uniform(&wf)) {
        uint64_t n = (uint64_t)r->block[0] * (r->block[1] ? r->block[1] : 1) * (r->block[2] ? r->block[2] : 1);
        if (r->shape_assumed || !n || n % 32 == 0) return DIV_SPLIT_ALL;
        for (unsigned l = 1; l < n % 32; l++)
            if (wf.g[l] != wf.g[0]) return DIV_SPLIT_ALL;
        return (uint32_t)((1ull << (n / 32)) - 1); /* the warps before the last (n < 1024) */
    }
    const ssa_value *val = &s->values[v];
    if (val->kind != SSA_V_INST || val->partial) return 0;
    return cmp_split_warps(r, val->stmt, first);
}

uint32_t div_branch_split_warps(const div_result *r, uint32_t b) { return split_warps(r, b, false); }

bool div_branch_proven(const div_result *r, uint32_t b) { return split_warps(r, b, true) != 0; }
