#include "its_rule.h"
#include <string.h>
#include "semantics.h"

/* Values that lanes of one warp executing the same instruction at different
 * moments may see differently although the analysis calls them uniform:
 * the analysis reasons about a warp that executes an instruction once, in
 * lock-step; on sm_70+ a diverged warp may execute it once per group of
 * lanes.  Weak loads are not here: for the two groups to load different
 * values, something must write the location in between without
 * synchronisation, a data race in the program itself. */
static bool unstable_source(const ptx_inst *in, const uint32_t *sem_flags, uint32_t stmt)
{
    uint32_t flags;
    if (sem_flags) flags = sem_flags[stmt];
    else {
        ptx_inst_sem sem;
        ptx_inst_semantics(in, &sem);
        flags = sem.flags;
    }
    if (flags & (PTX_SEM_ATOMIC | PTX_SEM_UNKNOWN)) return true;
    if ((flags & PTX_SEM_LOAD) && (flags & PTX_SEM_ORDERED)) return true;
    return in->op == PTX_OPC_ACTIVEMASK;
}

static bool unstable_sreg(uint32_t sreg)
{
    return sreg == PTX_SR_WARPID || sreg == PTX_SR_SMID || sreg == PTX_SR_CLOCK || sreg == PTX_SR_CLOCK_HI ||
           sreg == PTX_SR_CLOCK64 || sreg == PTX_SR_GLOBALTIMER || sreg == PTX_SR_GLOBALTIMER_LO ||
           sreg == PTX_SR_GLOBALTIMER_HI || sreg == PTX_SR_PM || sreg == PTX_SR_PM64;
}

static bool expr_unstable(const gsa_expr *e, const uint8_t *u)
{
    if (!e) return false;
    if (e->kind == GSA_X_VALUE) return e->value != SSA_NONE && u[e->value];
    if (e->value != SSA_NONE && u[e->value]) return true;
    for (uint32_t i = 0; i < e->n; i++)
        if (expr_unstable(e->ops[i], u)) return true;
    return false;
}

static bool node_unstable(const prog_func *pf, uint32_t k, const uint8_t *u)
{
    const ssa_func *s = pf->ssa;
    const ssa_node *n = &s->nodes[k];
    for (uint32_t i = 0; i < n->nargs; i++)
        if (n->args[i] != SSA_NONE && u[n->args[i]]) return true;
    if (!pf->gsa) return false;
    const gsa_node *g = &pf->gsa->nodes[k];
    if (expr_unstable(g->expr, u) || expr_unstable(g->carried, u)) return true;
    for (uint32_t i = 0; i < g->ngates; i++) {
        uint32_t gv;
        bool neg;
        if (gsa_branch_gate(s, g->gates[i], &gv, &neg) && gv != SSA_NONE && u[gv]) return true;
    }
    return false;
}

uint8_t *ra_unstable_values(const prog_func *pf, arena *a) { return ra_unstable_values_sem(pf, NULL, a); }

uint8_t *ra_unstable_values_sem(const prog_func *pf, const uint32_t *sem_flags, arena *a)
{
    const ssa_func *s = pf->ssa;
    const ptx_func *fn = pf->fn;
    uint8_t *u = ARENA_NEWN(a, uint8_t, s->nvalues + 1);
    for (uint32_t v = 0; v < s->nvalues; v++) {
        const ssa_value *x = &s->values[v];
        if (x->kind == SSA_V_SREG) u[v] = unstable_sreg(x->reg);
        else if (x->kind == SSA_V_INST) u[v] = unstable_source(&fn->stmts[x->stmt]->u.inst, sem_flags, x->stmt);
    }
    /* forward to a fixed point through operands, guards, kept old values
     * and the arguments and gates of phi/eta functions */
    bool changed = true;
    while (changed) {
        changed = false;
        for (uint32_t v = 0; v < s->nvalues; v++) {
            if (u[v]) continue;
            const ssa_value *x = &s->values[v];
            bool now = false;
            if (x->kind == SSA_V_INST) {
                for (uint32_t k = s->ref_off[x->stmt]; k < s->ref_off[x->stmt + 1] && !now; k++)
                    now = (s->refs[k].role & PTX_REF_USE) && s->refs[k].value != SSA_NONE && u[s->refs[k].value];
                if (x->prev != SSA_NONE && u[x->prev]) now = true;
            } else if (x->kind == SSA_V_PHI || x->kind == SSA_V_ETA) {
                now = node_unstable(pf, x->node, u);
            }
            if (now) u[v] = 1, changed = true;
        }
    }
    return u;
}

enum ra_why ra_write_once(const prog_func *pf, const ra_reginfo *ri, const uint8_t *unstable)
{
    if (!pf->fn->is_entry || ri->param) return RA_WHY_FUNC;
    if (ri->ndefs != 1 || ri->reads_entry || ri->nuse_values > 1 ||
        (ri->nuse_values == 1 && ri->use_value != ri->def_value))
        return RA_WHY_MULTI_DEF;
    if (ri->def_value == SSA_NONE) return RA_WHY_MULTI_DEF; /* written only in unreachable code */
    const ssa_value *d = &pf->ssa->values[ri->def_value];
    if (d->kind != SSA_V_INST) return RA_WHY_MULTI_DEF;
    if (d->partial || pf->fn->stmts[d->stmt]->u.inst.has_guard) return RA_WHY_PARTIAL;
    if (pf->g->blocks[d->block].loop != CFG_NONE) return RA_WHY_LOOP;
    if (unstable[ri->def_value]) return RA_WHY_UNSTABLE;
    return RA_WHY_NONE;
}

/* Whether the branch ending block b may send the lanes of a warp different
 * ways: a divergent verdict, a verdict that rests on the default block
 * shape, or a gate or index that lanes executing it at different moments
 * may read differently (condition 4 for the branch). */
static bool splits(const prog_func *pf, const div_result *dr, const uint8_t *unstable, uint32_t b)
{
    if (div_branch(dr, b) != DIV_UNIFORM || div_branch_cond(dr, b)) return true;
    uint32_t t = pf->g->blocks[b].term;
    if (t == CFG_NONE) return true;
    const ssa_func *s = pf->ssa;
    for (uint32_t k = s->ref_off[t]; k < s->ref_off[t + 1]; k++) {
        const ssa_ref *ref = &s->refs[k];
        if ((ref->role & (PTX_REF_USE | PTX_REF_GUARD)) && ref->value != SSA_NONE && unstable[ref->value]) return true;
    }
    return false;
}

uint8_t *ra_warp_full_blocks(const prog_func *pf, const div_result *dr, const uint8_t *unstable, arena *a)
{
    const cfg *g = pf->g;
    uint8_t *full = ARENA_NEWN(a, uint8_t, g->nblocks + 1);
    /* a call may lose lanes (exit in the callee) or split them for good:
     * no block of such a kernel counts */
    for (uint32_t b = 0; b < g->nblocks; b++)
        for (uint32_t st = g->blocks[b].first; st < g->blocks[b].end; st++) {
            const ptx_stmt *x = pf->fn->stmts[st];
            if (x->kind == PTX_S_INST && x->u.inst.op == PTX_OPC_CALL) return full;
        }
    /* a block control dependent on a branch that splits the warp, or on
     * one in a block not every lane executes, is not executed by every
     * lane (div_partial_blocks); a branch in unreachable code counts as
     * one that splits */
    uint8_t *bad = ARENA_NEWN(a, uint8_t, g->nblocks + 1), *part = ARENA_NEWN(a, uint8_t, g->nblocks + 1);
    for (uint32_t b = 0; b < g->nblocks; b++)
        bad[b] = !g->blocks[b].reachable || (g->blocks[b].nsucc > 1 && splits(pf, dr, unstable, b));
    div_partial_blocks(g, bad, part);
    for (uint32_t b = 0; b < g->nblocks; b++) full[b] = g->blocks[b].reachable && !part[b];
    return full;
}

uint8_t *ra_sync_rule(const prog_func *pf, const ra_live *L, const div_result *dr, const ra_reginfo *ri,
                      const uint8_t *unstable, bool strong, arena *a)
{
    uint32_t n = L->nregs;
    uint8_t *why = ARENA_NEWN(a, uint8_t, n + 1);
    if (!pf->fn->is_entry || !strong) {
        memset(why, pf->fn->is_entry ? RA_WHY_LOOP : RA_WHY_FUNC, n);
        return why;
    }
    const uint8_t *full = ra_warp_full_blocks(pf, dr, unstable, a);
    for (uint32_t r = 0; r < n; r++) {
        if (ri[r].param) why[r] = RA_WHY_FUNC;
        else if (ri[r].reads_entry || ri[r].def_value == SSA_NONE) why[r] = RA_WHY_MULTI_DEF;
    }
    const ssa_func *s = pf->ssa;
    for (uint32_t v = 0; v < s->nvalues; v++) {
        const ssa_value *x = &s->values[v];
        if (x->kind == SSA_V_SREG || x->reg >= n || why[x->reg]) continue;
        uint8_t w = RA_WHY_NONE;
        if (x->kind == SSA_V_INST) {
            if (x->partial || pf->fn->stmts[x->stmt]->u.inst.has_guard) w = RA_WHY_PARTIAL;
            else if (unstable[v]) w = RA_WHY_UNSTABLE;
            else if (!full[x->block]) w = RA_WHY_SPLIT;
        } else if ((x->kind == SSA_V_PHI || x->kind == SSA_V_ETA) && unstable[v]) {
            w = RA_WHY_UNSTABLE;
        }
        why[x->reg] = w;
    }
    return why;
}
