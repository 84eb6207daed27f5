#include "its_rule.h"
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
