#include "spill_place.h"
#include <stdlib.h>
#include <string.h>
#include "semantics.h"

unsigned ra_slot_size(unsigned type)
{
    unsigned b = ptx_type_bits((ptx_type)type) / 8;
    return b ? b : 4;
}

static bool int_type(unsigned t, unsigned min_bits)
{
    bool in = (t >= PTX_T_B16 && t <= PTX_T_B64) || (t >= PTX_T_U16 && t <= PTX_T_U64) ||
              (t >= PTX_T_S16 && t <= PTX_T_S64);
    return in && ptx_type_bits((ptx_type)t) >= min_bits;
}

/* ---- registers that cannot be spilled ------------------------------------ */
/* Registers inside a call's argument list, or written as a vector
 * component. */
static void mark_lists(uint8_t *out, const ptx_operand *o, bool inside)
{
    switch (o->kind) {
    case PTX_O_REG: if (inside || o->comp) out[o->n] = 1; break;
    case PTX_O_LIST:
        for (uint32_t i = 0; i < o->n; i++) mark_lists(out, &o->p.elems[i], true);
        break;
    case PTX_O_ADDR: case PTX_O_VEC:
        for (uint32_t i = 0; i < o->n; i++) mark_lists(out, &o->p.elems[i], inside);
        break;
    case PTX_O_PAIR:
        mark_lists(out, &o->p.elems[0], inside);
        mark_lists(out, &o->p.elems[1], inside);
        break;
    default: break;
    }
}

void ra_find_unspillable(const prog_func *pf, const ra_live *L, uint8_t *out)
{
    const ptx_func *fn = pf->fn;
    for (uint32_t r = 0; r < L->nregs; r++) {
        const ptx_reg *g = &fn->regs[r];
        out[r] = L->cls[r] != RA_CLS_GPR || g->vec || g->type == PTX_T_B128 || ptx_type_bits((ptx_type)g->type) < 16;
    }
    for (uint32_t k = 0; k < L->ninst; k++) {
        const ptx_inst *in = &fn->stmts[L->inst_stmt[k]]->u.inst;
        uint32_t flags = L->sem_flags[L->inst_stmt[k]];
        /* an asynchronous instruction may write its registers after it
         * retires (wgmma accumulators, tcgen05.ld): a store right after it
         * would save a stale value */
        bool all = (flags & (PTX_SEM_UNKNOWN | PTX_SEM_ASYNC)) != 0;
        for (uint32_t j = L->occ_off[k]; j < L->occ_off[k + 1]; j++) {
            const ra_occ *o = &L->occ[j];
            /* the store after a guarded definition reads the guard again */
            if (in->has_guard && o->reg == in->guard && (o->role & RA_OCC_DEF)) all = true;
        }
        if (all)
            for (uint32_t j = L->occ_off[k]; j < L->occ_off[k + 1]; j++) out[L->occ[j].reg] = 1;
        for (uint32_t i = 0; i < in->nopd; i++) mark_lists(out, &in->opd[i], false);
    }
    const ssa_func *s = pf->ssa;
    for (uint32_t v = 0; v < s->nvalues; v++)
        if (s->values[v].kind == SSA_V_ENTRY && s->values[v].param) out[s->values[v].reg] = 1;
    for (uint32_t i = 0; i < s->nret_vals; i++) out[s->ret_regs[i]] = 1;
}

/* ---- definitions and uses ------------------------------------------------- */
ra_reginfo *ra_reginfo_build(const prog_func *pf, const ra_live *L, arena *a)
{
    const ssa_func *s = pf->ssa;
    const ptx_func *fn = pf->fn;
    ra_reginfo *ri = ARENA_NEWN(a, ra_reginfo, fn->nregs + 1);
    for (uint32_t r = 0; r < fn->nregs; r++) ri[r].def_value = ri[r].use_value = SSA_NONE;
    /* every instruction that writes, reachable or not */
    for (uint32_t k = 0; k < L->ninst; k++)
        for (uint32_t j = L->occ_off[k]; j < L->occ_off[k + 1]; j++)
            if (L->occ[j].role & RA_OCC_DEF) ri[L->occ[j].reg].ndefs++;
    for (uint32_t st = 0; st < fn->nstmts; st++) {
        if (fn->stmts[st]->kind != PTX_S_INST) continue;
        for (uint32_t k = s->ref_off[st]; k < s->ref_off[st + 1]; k++) {
            const ssa_ref *ref = &s->refs[k];
            if (ref->role & (PTX_REF_SREG | PTX_REF_GUARD)) continue;
            uint32_t v = ref->value;
            if (v == SSA_NONE) continue; /* unreachable code */
            const ssa_value *x = &s->values[v];
            if (x->kind == SSA_V_SREG) continue;
            ra_reginfo *g = &ri[x->reg];
            if (ref->role & PTX_REF_USE) {
                if (x->kind == SSA_V_ENTRY) g->reads_entry = true;
                if (g->nuse_values == 0) g->nuse_values = 1, g->use_value = v;
                else if (g->use_value != v) g->nuse_values = 2;
            }
            if (ref->role & PTX_REF_DEF) g->def_value = v;
        }
    }
    for (uint32_t v = 0; v < s->nvalues; v++)
        if (s->values[v].kind == SSA_V_ENTRY && s->values[v].param) ri[s->values[v].reg].param = true;
    for (uint32_t i = 0; i < s->nret_vals; i++) ri[s->ret_regs[i]].param = true;
    return ri;
}

/* ---- abstract values of registers ------------------------------------------ */
typedef struct absval {
    uint8_t state, known, any;
    int64_t c[DIV_NCOEF1];
} absval;

/* The coordinates that differ between the lanes of a warp. */
static unsigned varying(const div_result *dr)
{
    unsigned m = 1u << DIV_C_X | 1u << DIV_C_LANE;
    /* a rewrite must be right for every launch: no default shape assumption */
    if (!dr->tid_y_uniform || (dr->shape_assumed && !dr->yz_by_option)) m |= 1u << DIV_C_Y;
    if (!dr->tid_z_uniform || (dr->shape_assumed && !dr->yz_by_option)) m |= 1u << DIV_C_Z;
    return m;
}

static void absval_of(const div_result *dr, uint32_t v, absval *a)
{
    memset(a, 0, sizeof *a);
    a->any = 1;
    a->state = dr->state[v];
    /* a claim that holds only under the default block shape assumption is
     * no claim for a rewrite, which must be right for every launch */
    if (dr->cond[v]) a->state = DIV_DIVERGENT;
    if (!dr->ncoef || a->state == DIV_DIVERGENT) return;
    for (unsigned i = 0; i < DIV_NCOEF1; i++)
        if (div_coef(dr, v, i, &a->c[i])) a->known |= (uint8_t)(1u << i);
}

/* a := a ∧ b: coefficients stay known where both agree; the state follows
 * from them (the affine analyses) or is the worse of the two (simple). */
static void absval_meet(const div_result *dr, absval *a, const absval *b)
{
    if (!b->any) return;
    if (!a->any) {
        *a = *b;
        return;
    }
    uint8_t known = 0;
    for (unsigned i = 0; i < DIV_NCOEF1; i++)
        if ((a->known & b->known & (1u << i)) && a->c[i] == b->c[i]) known |= (uint8_t)(1u << i);
    a->known = known;
    if (a->state == DIV_DIVERGENT || b->state == DIV_DIVERGENT) {
        a->state = DIV_DIVERGENT;
        return;
    }
    if (!dr->ncoef) {
        a->state = a->state == DIV_UNIFORM && b->state == DIV_UNIFORM ? DIV_UNIFORM : DIV_DIVERGENT;
        return;
    }
    unsigned vary = varying(dr);
    if ((known & vary) != vary) a->state = DIV_DIVERGENT;
    else {
        bool zero = true;
        for (unsigned i = 1; i < DIV_NCOEF1; i++)
            if ((vary >> i & 1) && a->c[i]) zero = false;
        a->state = zero ? DIV_UNIFORM : DIV_AFFINE;
    }
}

unsigned ra_coord_terms(const ra_spill *s)
{
    unsigned m = 0;
    for (unsigned i = 1; i < DIV_NCOEF1; i++)
        if ((s->known >> i & 1) && s->coef[i]) m |= 1u << i;
    return m;
}

struct ra_absvals {
    const prog_func *pf;
    const div_result *dr;
    absval *all;  /* per register: the join over its definitions */
    absval *used; /* ... and over the values its uses read */
    uint8_t *done; /* per register: all and used are made */
    uint32_t *accesses;
    uint32_t n;
};

ra_absvals *ra_absvals_build(const prog_func *pf, const div_result *dr, const ra_live *L, arena *ar)
{
    uint32_t n = L->nregs;
    ra_absvals *av = ARENA_NEW(ar, ra_absvals);
    av->pf = pf;
    av->dr = dr;
    av->n = n;
    av->all = ARENA_NEWN(ar, absval, n + 1);
    av->used = ARENA_NEWN(ar, absval, n + 1);
    av->done = ARENA_NEWN(ar, uint8_t, n + 1);
    av->accesses = ARENA_NEWN(ar, uint32_t, n + 1);
    for (uint32_t k = 0; k < L->ninst; k++)
        for (uint32_t j = L->occ_off[k]; j < L->occ_off[k + 1]; j++) av->accesses[L->occ[j].reg]++;
    return av;
}

/* Makes the abstract values of the registers in want not made yet: the
 * placement needs them only for what is spilled. */
static void absvals_fill(ra_absvals *av, const uint8_t *want)
{
    const ssa_func *s = av->pf->ssa;
    const div_result *dr = av->dr;
    uint32_t n = av->n;
    bool any = false;
    for (uint32_t r = 0; r < n && !any; r++) any = want[r] && !av->done[r];
    if (!any) return;
    for (uint32_t v = 0; v < s->nvalues; v++) {
        const ssa_value *x = &s->values[v];
        if (x->kind != SSA_V_INST && x->kind != SSA_V_PHI && x->kind != SSA_V_ETA) continue;
        if (x->reg >= n || !want[x->reg] || av->done[x->reg]) continue;
        absval a;
        absval_of(dr, v, &a);
        absval_meet(dr, &av->all[x->reg], &a);
    }
    /* statements that are not instructions have no references */
    for (uint32_t k = 0, end = s->ref_off[av->pf->fn->nstmts]; k < end; k++) {
        const ssa_ref *ref = &s->refs[k];
        if (!(ref->role & PTX_REF_USE) || (ref->role & PTX_REF_SREG) || ref->value == SSA_NONE) continue;
        const ssa_value *x = &s->values[ref->value];
        if (x->kind == SSA_V_ENTRY || x->kind == SSA_V_SREG || x->reg >= n || !want[x->reg] || av->done[x->reg])
            continue;
        absval a;
        absval_of(dr, ref->value, &a);
        absval_meet(dr, &av->used[x->reg], &a);
    }
    for (uint32_t r = 0; r < n; r++) av->done[r] |= want[r];
}

void ra_place(const prog_func *pf, ra_absvals *av, const ra_reginfo *ri, const uint8_t *unstable,
              const uint8_t *sync_why, const ra_live *L, const uint8_t *spilled, const ra_options *o, ra_spill *out)
{
    absvals_fill(av, spilled);
    const ptx_func *fn = pf->fn;
    uint32_t n = L->nregs;
    memset(out, 0, n * sizeof *out);
    for (uint32_t r = 0; r < n; r++) out[r].accesses = av->accesses[r];
    for (uint32_t r = 0; r < n; r++) {
        if (!spilled[r]) continue;
        ra_spill *sp = &out[r];
        unsigned type = fn->regs[r].type;
        const absval *A = av->all[r].any ? &av->all[r] : &av->used[r];
        sp->state = A->any ? A->state : DIV_UNIFORM;
        sp->place = RA_P_LOCAL;
        if (o->mode == RA_MODE_LINEAR) {
            if (sp->state != DIV_DIVERGENT) sp->why = RA_WHY_MODE;
            continue;
        }
        /* rules (i) and (iii): every use reads one known formula */
        const absval *U = &av->used[r];
        if (o->mode == RA_MODE_AFF && U->any && !ri[r].reads_entry && U->known == (1u << DIV_NCOEF1) - 1) {
            bool linear = false;
            for (unsigned i = 1; i < DIV_NCOEF1; i++) linear |= U->c[i] != 0;
            if (int_type(type, linear ? 32 : 16)) {
                sp->place = linear ? RA_P_AFFINE : RA_P_CONST;
                sp->known = U->known;
                memcpy(sp->coef, U->c, sizeof sp->coef);
                continue;
            }
        }
        /* rules (ii) and (iv): a shared slot, under the sm_70+ rule */
        unsigned want = RA_P_NONE;
        if (A->any && A->state == DIV_UNIFORM) want = RA_P_SHARED;
        else if (o->mode == RA_MODE_AFF && A->any && A->state == DIV_AFFINE) want = RA_P_SHARED_AFFINE;
        if (want == RA_P_NONE) continue;
        if (want == RA_P_SHARED_AFFINE && !int_type(type, 32)) {
            sp->why = RA_WHY_TYPE;
            continue;
        }
        enum ra_why why = o->unsafe_shared_reuse && fn->is_entry ? RA_WHY_NONE : ra_write_once(pf, &ri[r], unstable);
        /* written more than once: a slot under the synchronised rule */
        if (why != RA_WHY_NONE && sync_why) {
            why = (enum ra_why)sync_why[r];
            sp->sync = why == RA_WHY_NONE;
        }
        if (why != RA_WHY_NONE) {
            sp->why = (uint8_t)why;
            continue;
        }
        sp->place = (uint8_t)want;
        sp->known = A->known;
        memcpy(sp->coef, A->c, sizeof sp->coef);
    }
}

bool ra_any_sync(const ra_spill *sp, uint32_t n)
{
    for (uint32_t r = 0; r < n; r++)
        if (sp[r].sync && (sp[r].place == RA_P_SHARED || sp[r].place == RA_P_SHARED_AFFINE)) return true;
    return false;
}

unsigned ra_extra_units(const ptx_func *fn, const ra_spill *sp, uint32_t r, bool def)
{
    const ra_spill *s = &sp[r];
    unsigned units = ra_type_units(fn->regs[r].type, 0), coord = 1;
    if (ptx_type_bits((ptx_type)fn->regs[r].type) > 32)
        for (unsigned i = 1; i < DIV_NCOEF1; i++)
            if ((s->known >> i & 1) && (s->coef[i] < INT32_MIN || s->coef[i] > INT32_MAX)) coord = 2;
    switch (s->place) {
    case RA_P_SHARED:
        /* the address and its scratch (or the barrier's mask) beside the
         * value a store writes; a load's value is born after them */
        return def ? 2 : units >= 2 ? 0 : 2 - units;
    case RA_P_SHARED_AFFINE:
        /* the coordinate comes after the load, before the store's address */
        return def ? 2 : (units >= 2 ? coord : 2 - units > coord ? 2 - units : coord);
    case RA_P_AFFINE: return def ? 0 : coord;
    default: return 0;
    }
}

void ra_layout(const ra_live *L, ra_spill *sp, bool mask_slot, uint32_t *local_bytes, uint32_t *shared_bytes)
{
    uint32_t lo = 0, sh = mask_slot && ra_any_sync(sp, L->nregs) ? 8 : 0;
    for (unsigned size = 8; size >= 2; size /= 2)
        for (uint32_t r = 0; r < L->nregs; r++) {
            ra_spill *s = &sp[r];
            if (ra_slot_size(L->fn->regs[r].type) != size) continue;
            if (s->place == RA_P_LOCAL) s->slot = lo, lo += size;
            else if (s->place == RA_P_SHARED || s->place == RA_P_SHARED_AFFINE) s->slot = sh, sh += size;
        }
    *local_bytes = lo;
    *shared_bytes = (sh + 7) / 8 * 8;
}
