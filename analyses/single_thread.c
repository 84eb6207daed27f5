/* One-lane predicates and the regions they guard (single_thread.h). */
#include "single_thread.h"
#include "aff_poly.h"

static enum st_class flip(enum st_class c)
{
    return c == ST_ONE ? ST_ALL_BUT_ONE : c == ST_ALL_BUT_ONE ? ST_ONE : ST_OTHER;
}

/* Operand i as a polynomial: a register's value or an integer literal. */
static bool operand_aff(const st_regions *s, uint32_t st, const ptx_inst *in, uint32_t i, aff *out)
{
    if (i >= in->nopd) return false;
    const ptx_operand *o = &in->opd[i];
    if (o->kind == PTX_O_IMM && o->flags == PTX_IMM_INT) {
        aff_const(out, s->r->ncoef, o->v);
        return true;
    }
    if (o->kind != PTX_O_REG && o->kind != PTX_O_SREG) return false;
    uint32_t v = ssa_use_value(s->pf->ssa, st, i);
    if (v == SSA_NONE) return false;
    aff_of_result(s->r, v, out);
    return true;
}


/* a == b holds in at most one lane when a - b differs in every lane. */
static bool distinct_in_lanes(const st_regions *s, uint32_t st, const ptx_inst *in)
{
    aff a, b, d;
    if (!operand_aff(s, st, in, 1, &a) || !operand_aff(s, st, in, 2, &b)) return false;
    aff_sub(&d, &a, &b);
    static _Thread_local wl_result w; /* 25 KB: not on the stack; per thread for parallel batches */
    wl_eval(&d, &s->shape, res_unknown(), &w);
    return wl_injective(&w);
}

static enum st_class class_rec(const st_regions *s, uint32_t v, unsigned depth);

static enum st_class operand_class(const st_regions *s, uint32_t st, const ptx_inst *in, uint32_t i, unsigned depth)
{
    if (i >= in->nopd || in->opd[i].kind != PTX_O_REG) return ST_OTHER;
    uint32_t v = ssa_use_value(s->pf->ssa, st, i);
    if (v == SSA_NONE) return ST_OTHER;
    enum st_class c = class_rec(s, v, depth + 1);
    return in->opd[i].neg ? flip(c) : c;
}

static enum st_class class_rec(const st_regions *s, uint32_t v, unsigned depth)
{
    const ssa_func *ssa = s->pf->ssa;
    if (depth > 16 || v == SSA_NONE || ssa->values[v].kind != SSA_V_INST || ssa->values[v].partial) return ST_OTHER;
    uint32_t st = ssa->values[v].stmt;
    const ptx_inst *in = &s->pf->fn->stmts[st]->u.inst;
    /* p|q destinations: q is the complement (setp) or the one-lane flag (elect) */
    bool second = in->nopd && in->opd[0].kind == PTX_O_PAIR && in->opd[0].p.elems[1].kind == PTX_O_REG &&
                  in->opd[0].p.elems[1].n == ssa->values[v].reg;
    switch (in->op) {
    case PTX_OPC_SETP: {
        const ptx_iop *d = &ssa->iop[st]; /* an integer setp's comparison, decoded once */
        if (d->rule != PTX_IOP_CMP) return ST_OTHER;
        enum st_class c = ST_OTHER;
        if ((d->cmp == PTX_CMP_EQ || d->cmp == PTX_CMP_NE) && distinct_in_lanes(s, st, in))
            c = d->cmp == PTX_CMP_EQ ? ST_ONE : ST_ALL_BUT_ONE;
        if (in->nopd >= 4) { /* setp.cmp.and / .or / .xor with a predicate c */
            enum st_class k = operand_class(s, st, in, 3, depth);
            if (d->comb == PTX_OPC_AND) c = (c == ST_ONE || k == ST_ONE) ? ST_ONE : ST_OTHER;
            else if (d->comb == PTX_OPC_OR) c = (c == ST_ALL_BUT_ONE || k == ST_ALL_BUT_ONE) ? ST_ALL_BUT_ONE : ST_OTHER;
            else c = ST_OTHER;
        }
        return second ? flip(c) : c;
    }
    case PTX_OPC_ELECT: return second ? ST_ONE : ST_OTHER;
    case PTX_OPC_MOV:
        if (in->type != PTX_T_PRED) return ST_OTHER;
        return operand_class(s, st, in, 1, depth);
    case PTX_OPC_NOT:
        if (in->type != PTX_T_PRED) return ST_OTHER;
        return flip(operand_class(s, st, in, 1, depth));
    case PTX_OPC_AND:
    case PTX_OPC_OR: {
        if (in->type != PTX_T_PRED) return ST_OTHER;
        enum st_class a = operand_class(s, st, in, 1, depth), b = operand_class(s, st, in, 2, depth);
        enum st_class want = in->op == PTX_OPC_AND ? ST_ONE : ST_ALL_BUT_ONE;
        return (a == want || b == want) ? want : ST_OTHER;
    }
    default: return ST_OTHER;
    }
}

enum st_class st_pred_class(const st_regions *s, uint32_t v, bool neg)
{
    enum st_class c = class_rec(s, v, 0);
    return neg ? flip(c) : c;
}

/* Whether block b is entered only through an edge that at most one lane takes. */
static bool entered_by_one(const st_regions *s, uint32_t b)
{
    const cfg *g = s->pf->g;
    const cfg_block *bb = &g->blocks[b];
    uint32_t d = CFG_NONE, npred = 0;
    for (uint32_t i = 0; i < bb->npred; i++)
        if (g->blocks[bb->pred[i]].reachable) d = bb->pred[i], npred++;
    if (npred != 1) return false;
    const cfg_block *db = &g->blocks[d];
    if (db->nsucc != 2 || db->succ[0] == db->succ[1]) return false;
    uint32_t pv;
    bool neg;
    if (!gsa_branch_gate(s->pf->ssa, d, &pv, &neg)) return false;
    /* succ[0] is taken when the gate (negated when neg) holds */
    bool taken = db->succ[0] == b;
    return st_pred_class(s, pv, taken ? neg : !neg) == ST_ONE;
}

st_regions *st_build(const prog_func *pf, const div_result *r, const warp_shape *sh, arena *a)
{
    st_regions *s = ARENA_NEW(a, st_regions);
    s->pf = pf;
    s->r = r;
    s->shape = *sh;
    const cfg *g = pf->g;
    s->why = ARENA_NEWN(a, uint32_t, g->nblocks ? g->nblocks : 1);
    for (uint32_t b = 0; b < g->nblocks; b++) s->why[b] = CFG_NONE;
    for (uint32_t i = 0; i < g->nreach; i++) {
        uint32_t b = g->rpo_order[i];
        uint32_t id = g->blocks[b].idom;
        if (id != CFG_NONE && s->why[id] != CFG_NONE) s->why[b] = s->why[id];
        else if (b != CFG_ENTRY && entered_by_one(s, b)) {
            uint32_t d = CFG_NONE;
            for (uint32_t k = 0; k < g->blocks[b].npred; k++)
                if (g->blocks[g->blocks[b].pred[k]].reachable) d = g->blocks[b].pred[k];
            s->why[b] = d;
        }
    }
    return s;
}

bool st_single(const st_regions *s, uint32_t stmt, uint32_t *why_stmt)
{
    const ptx_inst *in = &s->pf->fn->stmts[stmt]->u.inst;
    if (in->has_guard && st_pred_class(s, ssa_guard_value(s->pf->ssa, stmt), in->guard_neg) == ST_ONE) {
        *why_stmt = stmt;
        return true;
    }
    uint32_t b = s->pf->g->stmt_block[stmt];
    if (b == CFG_NONE || s->why[b] == CFG_NONE) return false;
    *why_stmt = s->pf->g->blocks[s->why[b]].term;
    return true;
}
