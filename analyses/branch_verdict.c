/* The verdicts on branches (divergence.h), from an analysis' result: the
 * one place every view asks (divergence, check, analyze, the HTML page,
 * the CFG's colours, uniformize, the allocator's ITS rule and the
 * emulator's check), so that no two of them can disagree. */
#include "div_internal.h"

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

uint32_t div_branch_split_warps(const div_result *r, uint32_t b)
{
    const cfg_block *bb = &r->pf->g->blocks[b];
    if (bb->nsucc != 2 || bb->term == CFG_NONE || !div_has_coefs(r)) return 0;
    const ssa_func *s = r->pf->ssa;
    uint32_t v = ssa_guard_value(s, bb->term);
    if (v == SSA_NONE) return 0;
    /* the guard's warp form knows it lane by lane (U known) and it is not
     * the same in every lane: every warp splits */
    wform wf;
    if (div_warp_form(r, v, &wf) && wf.kind == WF_LANE && wf.k == 64 && !wf_is_uniform(&wf)) return DIV_SPLIT_ALL;
    return 0;
}

bool div_branch_proven(const div_result *r, uint32_t b) { return div_branch_split_warps(r, b) != 0; }
