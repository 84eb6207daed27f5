#include "liveness.h"
#include <stdlib.h>
#include <string.h>
#include "semantics.h"

unsigned ra_type_units(unsigned type, unsigned vec)
{
    if (type == PTX_T_PRED) return 1;
    unsigned bits = ptx_type_bits((ptx_type)type);
    unsigned n = (bits + 31) / 32;
    return n * (vec ? vec : 1);
}

enum ra_class ra_type_class(unsigned type)
{
    if (type == PTX_T_PRED) return RA_CLS_PRED;
    if (type == PTX_T_NONE || type >= PTX_T_TEXREF) return RA_CLS_NONE;
    return RA_CLS_GPR;
}

typedef struct occ_acc {
    ra_occ *v;
    uint32_t n;
    uint8_t *full; /* per occurrence: some definition overwrites the whole register */
} occ_acc;

/* One reference (PTX_REF_* role) of register reg: an occurrence per
 * register, in order of first reference. */
static void add_ref(occ_acc *c, uint32_t reg, unsigned role)
{
    if (role & PTX_REF_SREG) return;
    uint32_t k = 0;
    while (k < c->n && c->v[k].reg != reg) k++;
    if (k == c->n) {
        c->v[c->n].reg = reg;
        c->v[c->n].role = 0;
        c->full[c->n] = 0;
        c->n++;
    }
    if (role & PTX_REF_USE) c->v[k].role |= RA_OCC_USE;
    if (role & PTX_REF_DEF) {
        c->v[k].role |= RA_OCC_DEF;
        if (!(role & PTX_REF_MAYDEF)) c->full[k] = 1;
    }
}

static void on_reg(void *ctx, const ptx_inst *in, const ptx_reg_ref *r)
{
    (void)in;
    add_ref(ctx, r->id, r->role);
}

/* Upper bound on the register references of one instruction: every leaf
 * of every operand plus the guard. */
static uint32_t count_leaves(const ptx_operand *o)
{
    switch (o->kind) {
    case PTX_O_ADDR: case PTX_O_VEC: case PTX_O_PAIR: case PTX_O_LIST: {
        uint32_t n = 0, m = o->kind == PTX_O_PAIR ? 2 : o->n;
        for (uint32_t i = 0; i < m; i++) n += count_leaves(&o->p.elems[i]);
        return n;
    }
    default: return 1;
    }
}

/* The SSA, when given, has every instruction's references and semantics
 * already (the same walk, in the same order): they are not derived again. */
static ra_live *build(const ptx_func *fn, const cfg *g, const ssa_func *ssa, arena *a)
{
    ra_live *L = ARENA_NEW(a, ra_live);
    L->fn = fn;
    L->g = g;
    L->nregs = fn->nregs;
    L->words = (fn->nregs + 63) / 64;
    if (!L->words) L->words = 1;
    L->cls = ARENA_NEWN(a, uint8_t, fn->nregs + 1);
    L->units = ARENA_NEWN(a, uint8_t, fn->nregs + 1);
    for (uint32_t r = 0; r < fn->nregs; r++) {
        L->cls[r] = (uint8_t)ra_type_class(fn->regs[r].type);
        unsigned u = ra_type_units(fn->regs[r].type, fn->regs[r].vec);
        L->units[r] = (uint8_t)(u > 255 ? 255 : u);
    }

    /* instructions in statement order, with their occurrences */
    uint32_t ninst = 0, nleaves = 0, maxleaves = 0;
    for (uint32_t s = 0; s < fn->nstmts; s++) {
        if (fn->stmts[s]->kind != PTX_S_INST) continue;
        const ptx_inst *in = &fn->stmts[s]->u.inst;
        uint32_t n = 1;
        for (uint32_t i = 0; i < in->nopd; i++) n += count_leaves(&in->opd[i]);
        nleaves += n;
        if (n > maxleaves) maxleaves = n;
        ninst++;
    }
    L->ninst = ninst;
    L->inst_stmt = ARENA_NEWN(a, uint32_t, ninst + 1);
    L->inst_block = ARENA_NEWN(a, uint32_t, ninst + 1);
    L->occ_off = ARENA_NEWN(a, uint32_t, ninst + 1);
    L->occ = ARENA_NEWN(a, ra_occ, nleaves + 1);
    L->sem_flags = ARENA_NEWN(a, uint32_t, fn->nstmts + 1);
    memset(L->sem_flags, 0, (fn->nstmts + 1) * sizeof *L->sem_flags);
    occ_acc acc;
    acc.full = ARENA_NEWN(a, uint8_t, maxleaves + 1);
    uint32_t k = 0, no = 0;
    for (uint32_t s = 0; s < fn->nstmts; s++) {
        if (fn->stmts[s]->kind != PTX_S_INST) continue;
        const ptx_inst *in = &fn->stmts[s]->u.inst;
        L->inst_stmt[k] = s;
        L->inst_block[k] = g->stmt_block[s];
        L->occ_off[k] = no;
        acc.v = L->occ + no;
        acc.n = 0;
        if (ssa) {
            L->sem_flags[s] = ssa->sem[s].flags;
            for (uint32_t j = ssa->ref_off[s]; j < ssa->ref_off[s + 1]; j++)
                add_ref(&acc, ssa->ref_reg[j], ssa->refs[j].role);
        } else {
            ptx_inst_sem sem;
            ptx_inst_semantics(in, &sem);
            L->sem_flags[s] = sem.flags;
            ptx_inst_foreach_reg(in, &sem, on_reg, &acc);
        }
        for (uint32_t j = 0; j < acc.n; j++)
            if ((acc.v[j].role & RA_OCC_DEF) && !acc.full[j]) acc.v[j].role |= RA_OCC_MAYDEF;
        no += acc.n;
        k++;
    }
    L->occ_off[ninst] = no;

    /* backward dataflow to a fixed point; blocks are statement ranges, so
     * each block's instructions are a range of the linear order */
    uint32_t nb = g->nblocks, W = L->words;
    L->in = ARENA_NEWN(a, uint64_t, (size_t)nb * W);
    L->out = ARENA_NEWN(a, uint64_t, (size_t)nb * W);
    uint32_t *first = ARENA_NEWN(a, uint32_t, nb), *end = ARENA_NEWN(a, uint32_t, nb);
    for (uint32_t b = 0; b < nb; b++) first[b] = end[b] = 0;
    for (uint32_t i = ninst; i-- > 0;) {
        uint32_t b = L->inst_block[i];
        if (b == CFG_NONE) continue;
        if (end[b] == 0) end[b] = i + 1;
        first[b] = i;
    }
    /* each block's upward-exposed reads (gen) and whole writes (kill), so
     * that the iterations are bitset operations only */
    uint64_t *gen = ARENA_NEWN(a, uint64_t, (size_t)nb * W), *kill = ARENA_NEWN(a, uint64_t, (size_t)nb * W);
    for (uint32_t b = 0; b < nb; b++) {
        uint64_t *ge = gen + (size_t)b * W, *ki = kill + (size_t)b * W;
        for (uint32_t i = first[b]; i < end[b]; i++) {
            for (uint32_t j = L->occ_off[i]; j < L->occ_off[i + 1]; j++) {
                const ra_occ *o = &L->occ[j];
                if ((o->role & (RA_OCC_USE | RA_OCC_MAYDEF)) && !ra_set_has(ki, o->reg))
                    ge[o->reg >> 6] |= 1ull << (o->reg & 63);
            }
            for (uint32_t j = L->occ_off[i]; j < L->occ_off[i + 1]; j++) {
                const ra_occ *o = &L->occ[j];
                if ((o->role & RA_OCC_DEF) && !(o->role & RA_OCC_MAYDEF)) ki[o->reg >> 6] |= 1ull << (o->reg & 63);
            }
        }
    }
    bool changed = true;
    while (changed) {
        changed = false;
        for (uint32_t b = nb; b-- > 0;) {
            const cfg_block *B = &g->blocks[b];
            uint64_t *out = L->out + (size_t)b * W, *in = L->in + (size_t)b * W;
            const uint64_t *ge = gen + (size_t)b * W, *ki = kill + (size_t)b * W;
            for (uint32_t s = 0; s < B->nsucc; s++) {
                const uint64_t *si = L->in + (size_t)B->succ[s] * W;
                for (uint32_t w = 0; w < W; w++) out[w] |= si[w];
            }
            for (uint32_t w = 0; w < W; w++) {
                uint64_t x = ge[w] | (out[w] & ~ki[w]);
                if (x != in[w]) in[w] = x, changed = true;
            }
        }
    }
    return L;
}

ra_live *ra_live_build(const ptx_func *fn, const cfg *g, arena *a) { return build(fn, g, NULL, a); }

ra_live *ra_live_build_ssa(const ssa_func *s, arena *a) { return build(s->fn, s->g, s, a); }

static uint32_t set_units(const ra_live *L, const uint64_t *s, enum ra_class c)
{
    uint32_t n = 0;
    for (uint32_t w = 0; w < L->words; w++) {
        uint64_t x = s[w];
        while (x) {
            uint32_t r = w * 64 + (uint32_t)__builtin_ctzll(x);
            x &= x - 1;
            if (L->cls[r] == c) n += L->units[r];
        }
    }
    return n;
}

/* The live set with its units kept up to date bit by bit: counting the
 * whole set at every instruction made the pressure walk O(instructions x
 * registers), the pass's hottest loop on big kernels (bench/rabench.c). */
typedef struct live_count {
    uint64_t *live;
    uint32_t gpr, pred;
} live_count;

static void lc_set(const ra_live *L, live_count *c, uint32_t r, bool on)
{
    uint64_t bit = 1ull << (r & 63), *w = &c->live[r >> 6];
    if (!(*w & bit) == !on) return;
    *w ^= bit;
    uint32_t *n = L->cls[r] == RA_CLS_GPR ? &c->gpr : L->cls[r] == RA_CLS_PRED ? &c->pred : NULL;
    if (n) *n = on ? *n + L->units[r] : *n - L->units[r];
}

/* lc_set for ra_live_peak: a register of no class counts as a general one */
static void peak_set(const ra_live *L, live_count *c, uint32_t r, bool on)
{
    uint64_t bit = 1ull << (r & 63), *w = &c->live[r >> 6];
    if (!(*w & bit) == !on) return;
    *w ^= bit;
    uint32_t *n = L->cls[r] == RA_CLS_PRED ? &c->pred : &c->gpr;
    *n = on ? *n + L->units[r] : *n - L->units[r];
}

static void note(ra_pressure *p, const live_count *c, uint32_t stmt)
{
    /* >=: the walk goes backwards, so the first instruction in program
     * order that reaches the maximum is the one reported */
    if (c->gpr && c->gpr >= p->gpr) p->gpr = c->gpr, p->gpr_stmt = stmt;
    if (c->pred && c->pred >= p->pred) p->pred = c->pred, p->pred_stmt = stmt;
}

void ra_live_pressure(const ra_live *L, ra_pressure *p)
{
    p->gpr = p->pred = 0;
    p->gpr_stmt = p->pred_stmt = UINT32_MAX;
    uint32_t W = L->words;
    live_count c;
    c.live = malloc(W * sizeof *c.live);
    if (!c.live) abort();
    uint32_t i = L->ninst;
    while (i > 0) {
        uint32_t b = L->inst_block[i - 1];
        uint32_t lo = i - 1;
        while (lo > 0 && L->inst_block[lo - 1] == b) lo--;
        if (b == CFG_NONE) {
            i = lo;
            continue;
        }
        memcpy(c.live, L->out + (size_t)b * W, W * sizeof *c.live);
        c.gpr = set_units(L, c.live, RA_CLS_GPR);
        c.pred = set_units(L, c.live, RA_CLS_PRED);
        for (uint32_t k = i; k-- > lo;) {
            /* right after k: what is live after it and what it defines */
            for (uint32_t j = L->occ_off[k]; j < L->occ_off[k + 1]; j++)
                if (L->occ[j].role & RA_OCC_DEF) lc_set(L, &c, L->occ[j].reg, true);
            note(p, &c, L->inst_stmt[k]);
            /* the transfer from there: the may-defs it would clear are uses
             * too, so (live | defs) - defs | uses is its result */
            for (uint32_t j = L->occ_off[k]; j < L->occ_off[k + 1]; j++) {
                const ra_occ *o = &L->occ[j];
                if ((o->role & RA_OCC_DEF) && !(o->role & RA_OCC_MAYDEF)) lc_set(L, &c, o->reg, false);
            }
            for (uint32_t j = L->occ_off[k]; j < L->occ_off[k + 1]; j++) {
                const ra_occ *o = &L->occ[j];
                if (o->role & (RA_OCC_USE | RA_OCC_MAYDEF)) lc_set(L, &c, o->reg, true);
            }
            note(p, &c, L->inst_stmt[k]);
        }
        i = lo;
    }
    free(c.live);
}

/* Blocks in reverse post-order, each walked backwards: after each
 * instruction, then before it.  The first point found with the most units
 * names the statement (the order of the report before it read this
 * liveness). */
static void peak_note(ra_peak *p, uint32_t regs, uint32_t preds, uint32_t stmt)
{
    if (regs > p->regs32 || p->at_stmt == UINT32_MAX) {
        if (regs > p->regs32) p->regs32 = regs;
        p->at_stmt = stmt;
    }
    if (preds > p->preds) p->preds = preds;
}

/* The first instruction at statement s or after it (L->ninst: none). */
static uint32_t inst_at(const ra_live *L, uint32_t s)
{
    uint32_t lo = 0, hi = L->ninst;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (L->inst_stmt[mid] < s) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

void ra_live_peak(const ra_live *L, ra_peak *p)
{
    p->regs32 = p->preds = 0;
    p->at_stmt = UINT32_MAX;
    if (!L->nregs) return;
    uint32_t W = L->words;
    const cfg *g = L->g;
    live_count c;
    c.live = malloc(W * sizeof *c.live);
    if (!c.live) abort();
    for (uint32_t i = 0; i < g->nreach; i++) {
        uint32_t b = g->rpo_order[i];
        /* blocks are statement ranges, so their instructions a range of
         * the linear order */
        uint32_t first = inst_at(L, g->blocks[b].first), end = inst_at(L, g->blocks[b].end);
        if (first == end) continue;
        memcpy(c.live, L->out + (size_t)b * W, W * sizeof *c.live);
        /* a register of no class counts as a general one here */
        c.gpr = set_units(L, c.live, RA_CLS_GPR) + set_units(L, c.live, RA_CLS_NONE);
        c.pred = set_units(L, c.live, RA_CLS_PRED);
        for (uint32_t k = end; k-- > first;) {
            peak_note(p, c.gpr, c.pred, L->inst_stmt[k]);
            for (uint32_t j = L->occ_off[k]; j < L->occ_off[k + 1]; j++) {
                const ra_occ *o = &L->occ[j];
                if ((o->role & RA_OCC_DEF) && !(o->role & RA_OCC_MAYDEF)) peak_set(L, &c, o->reg, false);
            }
            for (uint32_t j = L->occ_off[k]; j < L->occ_off[k + 1]; j++) {
                const ra_occ *o = &L->occ[j];
                if (o->role & (RA_OCC_USE | RA_OCC_MAYDEF)) peak_set(L, &c, o->reg, true);
            }
            peak_note(p, c.gpr, c.pred, L->inst_stmt[k]);
        }
    }
    free(c.live);
}
