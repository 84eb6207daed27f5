/* The divergence-claim checker (divcheck.h): per function, the claims to
 * check at each statement are laid out once (definitions after it runs,
 * phis and branches before), and every observer event compares the lanes
 * of the executing path with the analysis's result of the moment, so a
 * test can plant a claim after the analysis has run. */
#include "divcheck.h"
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include "program.h"
#include "semantics.h"

enum { IT_DEF, IT_PHI, IT_ETA, IT_BRANCH };

typedef struct dc_item {
    uint32_t value; /* SSA value (branch: the gate) */
    uint32_t reg;   /* register holding it */
    uint32_t block;
    uint8_t comp, kind;
    uint64_t wmask; /* the register's width */
} dc_item;

typedef struct dc_func {
    const prog_func *pf;
    div_result *r;
    /* claims per statement, CSR: before it executes, after it did */
    uint32_t *boff, *aoff;
    dc_item *bitems, *aitems;
    /* 1 + index into divcheck.v of a value's / a branch block's violation */
    uint32_t *viol_v, *viol_b, *viol_s;
    /* per block: div_branch_split_warps at the current shape, asked at the
     * branch's first run (split_known; tests plant claims in r before) */
    uint32_t *split;
    uint8_t *split_known;
    /* the no-wraparound assumption: where the rules use it, and for each
     * such statement whose operands were seen to wrap around, the values
     * that depend on it (made then) */
    div_nowrap nw;
    uint8_t **reach;
    uint32_t *wrapped, nwrapped; /* those statements */
} dc_func;

/* A statement s of function f whose operands wrapped around in a warp. */
typedef struct dc_wrap {
    uint32_t f, s, warp, used;
    emu_dim3 cta;
} dc_wrap;

struct divcheck {
    prog *p;
    enum div_analysis an;
    arena sa;           /* the per-function layout */
    arena ra;           /* analysis results, redone when the shape changes */
    bool analysed;
    enum divcheck_shape shape;
    emu_dim3 block;
    unsigned failing;   /* DIV_COND_* bits that do not hold at block (assumed shape) */
    uint32_t nf;
    dc_func *f;
    const ptx_func *last_fn;
    dc_func *last;
    emu_observer obs;
    uint64_t (*mono)[DIV_NCOEF2]; /* per thread of the block: the monomials */
    uint32_t nthreads;
    divcheck_violation *v; /* in discovery order */
    uint32_t nv, capv;
    uint32_t *ord;         /* report order */
    divcheck_totals tot;
    dc_wrap *wraps;        /* open addressing, capw a power of 2 */
    uint32_t nwraps, capw;
};

static uint64_t width_mask(const ptx_func *fn, uint32_t reg)
{
    unsigned w = ptx_type_bits((ptx_type)fn->regs[reg].type);
    return w == 0 || w >= 64 ? ~0ull : (1ull << w) - 1;
}

static uint32_t first_inst(const ptx_func *fn, const cfg_block *bb)
{
    for (uint32_t s = bb->first; s < bb->end; s++)
        if (fn->stmts[s]->kind == PTX_S_INST) return s;
    return CFG_NONE;
}

/* Lays out the claims of one function: counts per statement, then fills. */
static void layout(divcheck *c, dc_func *F)
{
    const ssa_func *S = F->pf->ssa;
    const cfg *g = F->pf->g;
    const ptx_func *fn = F->pf->fn;
    uint32_t ns = fn->nstmts;
    F->boff = ARENA_NEWN(&c->sa, uint32_t, ns + 2);
    F->aoff = ARENA_NEWN(&c->sa, uint32_t, ns + 2);
    F->viol_v = ARENA_NEWN(&c->sa, uint32_t, S->nvalues + 1);
    F->viol_b = ARENA_NEWN(&c->sa, uint32_t, g->nblocks + 1);
    F->viol_s = ARENA_NEWN(&c->sa, uint32_t, g->nblocks + 1);
    F->split = ARENA_NEWN(&c->sa, uint32_t, g->nblocks + 1);
    F->split_known = ARENA_NEWN(&c->sa, uint8_t, g->nblocks + 1);
    div_nowrap_build(F->pf, &F->nw);
    F->reach = ARENA_NEWN(&c->sa, uint8_t *, ns + 1);
    F->wrapped = ARENA_NEWN(&c->sa, uint32_t, ns + 1);
    for (int pass = 0; pass < 2; pass++) {
        uint32_t nb = 0, na = 0;
        for (uint32_t s = 0; s < ns; s++) {
            F->boff[s] = nb;
            F->aoff[s] = na;
            const ptx_stmt *st = fn->stmts[s];
            uint32_t b = g->stmt_block[s];
            if (st->kind != PTX_S_INST || b == CFG_NONE || !g->blocks[b].reachable) continue;
            const cfg_block *bb = &g->blocks[b];
            /* phis and etas: the register holds the node's value when a path
             * enters the block at its first instruction */
            if (bb->kind == CFG_B_REAL && first_inst(fn, bb) == s) {
                for (uint32_t k = S->node_off[b]; k < S->node_off[b + 1]; k++) {
                    const ssa_node *nd = &S->nodes[k];
                    if (pass)
                        F->bitems[nb] = (dc_item){nd->value, nd->reg, b, 0,
                                                  nd->kind == SSA_V_PHI ? IT_PHI : IT_ETA, width_mask(fn, nd->reg)};
                    nb++;
                }
            }
            uint32_t gate;
            bool neg;
            if (bb->term == s && gsa_branch_gate(S, b, &gate, &neg) && gate != SSA_NONE &&
                S->values[gate].kind != SSA_V_SREG) {
                if (pass)
                    F->bitems[nb] = (dc_item){gate, S->values[gate].reg, b, 0, IT_BRANCH,
                                              width_mask(fn, S->values[gate].reg)};
                nb++;
            }
            /* a call's results arrive when the callee returns, after the event */
            if (st->u.inst.op == PTX_OPC_CALL) continue;
            for (uint32_t k = S->ref_off[s]; k < S->ref_off[s + 1]; k++) {
                const ssa_ref *rf = &S->refs[k];
                if (!(rf->role & PTX_REF_DEF) || rf->value == SSA_NONE) continue;
                uint32_t reg = S->values[rf->value].reg;
                /* written twice by one instruction: only the last write stays */
                bool later = false;
                for (uint32_t j = k + 1; j < S->ref_off[s + 1]; j++)
                    if ((S->refs[j].role & PTX_REF_DEF) && S->refs[j].value != SSA_NONE &&
                        S->values[S->refs[j].value].reg == reg && S->refs[j].comp == rf->comp)
                        later = true;
                if (later) continue;
                if (pass) F->aitems[na] = (dc_item){rf->value, reg, b, rf->comp, IT_DEF, width_mask(fn, reg)};
                na++;
            }
        }
        F->boff[ns] = nb;
        F->aoff[ns] = na;
        if (!pass) {
            F->bitems = ARENA_NEWN(&c->sa, dc_item, nb + 1);
            F->aitems = ARENA_NEWN(&c->sa, dc_item, na + 1);
        }
    }
}

static void on_inst(void *user, const emu_event *ev);

divcheck *divcheck_new(const ptx_module *m, enum div_analysis an, ptx_diags *d)
{
    prog *p = prog_build(m, PROG_GSA, NULL, d);
    if (!p) return NULL;
    divcheck *c = calloc(1, sizeof *c);
    if (!c) {
        prog_free(p);
        return NULL;
    }
    c->p = p;
    c->an = an;
    arena_init(&c->sa);
    arena_init(&c->ra);
    c->nf = p->nfuncs;
    c->f = ARENA_NEWN(&c->sa, dc_func, p->nfuncs + 1);
    for (uint32_t i = 0; i < p->nfuncs; i++) {
        c->f[i].pf = &p->funcs[i];
        layout(c, &c->f[i]);
    }
    c->obs.on_inst = on_inst;
    c->obs.user = c;
    return c;
}

void divcheck_free(divcheck *c)
{
    if (!c) return;
    for (uint32_t i = 0; i < c->nf; i++) {
        div_nowrap_free(&c->f[i].nw);
        for (uint32_t k = 0; k < c->f[i].nwrapped; k++) free(c->f[i].reach[c->f[i].wrapped[k]]);
    }
    free(c->wraps);
    prog_free(c->p);
    arena_free(&c->sa);
    arena_free(&c->ra);
    free(c->mono);
    free(c->v);
    free(c->ord);
    free(c);
}

const emu_observer *divcheck_observer(divcheck *c) { return &c->obs; }

static void forget_findings(divcheck *c)
{
    for (uint32_t i = 0; i < c->nv; i++) {
        const divcheck_violation *x = &c->v[i];
        for (uint32_t k = 0; k < c->nf; k++) {
            if (c->f[k].pf->fn != x->fn) continue;
            if (x->kind == DIVCHECK_BRANCH) c->f[k].viol_b[x->block] = 0;
            else if (x->kind == DIVCHECK_SPLIT) c->f[k].viol_s[x->block] = 0;
            else c->f[k].viol_v[x->value] = 0;
        }
    }
    c->nv = 0;
    memset(&c->tot, 0, sizeof c->tot);
    if (c->nwraps) memset(c->wraps, 0, sizeof *c->wraps * c->capw);
    c->nwraps = 0;
}

void divcheck_set_shape(divcheck *c, enum divcheck_shape s)
{
    if (c->shape != s) c->analysed = false;
    c->shape = s;
}

void divcheck_begin(divcheck *c, emu_dim3 block)
{
    forget_findings(c);
    if (c->analysed && c->block.x == block.x && c->block.y == block.y && c->block.z == block.z) return;
    bool again = !c->analysed || c->shape == DIVCHECK_SHAPE_LAUNCH;
    c->block = block;
    c->analysed = true;
    const uint32_t blk[3] = {block.x, block.y, block.z};
    c->failing = 0;
    for (unsigned bit = DIV_COND_ROWS; bit <= DIV_COND_X32; bit <<= 1)
        if (!div_cond_holds(bit, blk)) c->failing |= bit;
    if (again) {
        arena_reset(&c->ra);
        div_options o;
        memset(&o, 0, sizeof o);
        if (c->shape == DIVCHECK_SHAPE_LAUNCH) memcpy(o.block, blk, sizeof blk);
        for (uint32_t i = 0; i < c->nf; i++) {
            dc_func *F = &c->f[i];
            F->r = div_analyse(F->pf, c->an, &o, &c->ra);
            memset(F->split_known, 0, F->pf->g->nblocks);
        }
    }
    /* the monomials of every thread, as the launch lays threads out in warps */
    uint64_t bx = block.x ? block.x : 1, by = block.y ? block.y : 1, bz = block.z ? block.z : 1;
    /* a larger block does not launch; the dimensions are below 2^31 */
    uint64_t n = bx * by;
    n = n > EMU_MAX_THREADS_PER_BLOCK ? EMU_MAX_THREADS_PER_BLOCK : n * bz;
    if (n > EMU_MAX_THREADS_PER_BLOCK) n = EMU_MAX_THREADS_PER_BLOCK;
    n = (n + 31) / 32 * 32;
    free(c->mono);
    c->mono = calloc((size_t)n, sizeof *c->mono);
    c->nthreads = c->mono ? (uint32_t)n : 0;
    for (uint64_t t = 0; t < c->nthreads; t++) {
        uint64_t x = t % bx, y = (t / bx) % by, z = t / (bx * by), l = t % 32;
        uint64_t *m = c->mono[t];
        m[0] = 1, m[1] = x, m[2] = y, m[3] = z, m[4] = l;
        m[5] = x * x, m[6] = x * y, m[7] = x * z, m[8] = x * l, m[9] = y * y;
        m[10] = y * z, m[11] = y * l, m[12] = z * z, m[13] = z * l, m[14] = l * l;
    }
}

div_result *divcheck_result(divcheck *c, const char *name)
{
    for (uint32_t i = 0; i < c->nf; i++)
        if (ptx_str_eq(c->f[i].pf->fn->name, name)) return c->f[i].r;
    return NULL;
}

/* ---- checking ------------------------------------------------------------------------------ */
static dc_func *func_of(divcheck *c, const ptx_func *fn)
{
    if (fn == c->last_fn) return c->last;
    dc_func *F = NULL;
    for (uint32_t i = 0; i < c->nf; i++)
        if (c->f[i].pf->fn == fn) F = &c->f[i];
    c->last_fn = fn;
    c->last = F;
    return F;
}

/* Report order: PTX position, then execution order at one instruction
 * (phis and etas take effect before it, its own definition after), then
 * value. */
static bool before(const divcheck_violation *a, const divcheck_violation *b)
{
    static const int rank[] = {[DIVCHECK_PHI] = 0, [DIVCHECK_ETA] = 0, [DIVCHECK_VALUE] = 1, [DIVCHECK_BRANCH] = 2};
    uint32_t oa = a->fn->stmts[a->stmt]->loc.off, ob = b->fn->stmts[b->stmt]->loc.off;
    if (oa != ob) return oa < ob;
    if (rank[a->kind] != rank[b->kind]) return rank[a->kind] < rank[b->kind];
    return a->value < b->value;
}

/* Σ cᵢ·mᵢ(t) over the non-constant monomials of value v's polynomial, for
 * thread t of the block, over the integers (check_value reads it modulo
 * the register's width); false when a monomial whose coefficient is
 * unknown differs between t and tf, the warp's first lane: then the lanes'
 * difference is not known. */
static bool poly_at(const divcheck *c, const div_result *r, uint32_t v, uint32_t t, uint32_t tf, __int128 *out)
{
    const int64_t *co = div_coefs(r, v);
    uint16_t bot = r->bot[v];
    __int128 p = 0;
    for (unsigned i = 1; i < r->ncoef; i++) {
        if (bot >> i & 1) {
            if (c->mono[t][i] != c->mono[tf][i]) return false;
            continue;
        }
        p += (__int128)co[i] * (__int128)c->mono[t][i];
    }
    *out = p;
    return true;
}

/* ---- the no-wraparound assumption ------------------------------------------------------------ */
/* The affine analyses assume, at comparisons, min/max and widenings, that
 * each operand read as the instruction's type equals its polynomial over
 * the integers (docs/divergence.md).  Where a warp's operands break that,
 * the claims that depend on the instruction (the analyses' dependence
 * graph) rest on an assumption that failed in that warp: such a claim
 * violated there is counted apart (divcheck_totals.wrapped), as a claim
 * whose shape assumption fails is.  Any other claim is still checked. */
static uint64_t wrap_hash(const dc_wrap *key)
{
    const uint64_t k = 0x9E3779B97F4A7C15ull;
    uint64_t h = ((uint64_t)key->f * k ^ key->s) * k ^ key->warp;
    h = ((h * k ^ key->cta.x) * k ^ key->cta.y) * k ^ key->cta.z;
    return h ^ h >> 29;
}

/* The record equal to key (every field but used), or the empty slot for it. */
static dc_wrap *wrap_slot(dc_wrap *t, uint32_t cap, const dc_wrap *key)
{
    for (uint64_t i = wrap_hash(key);; i++) {
        dc_wrap *w = &t[i & (cap - 1)];
        if (!w->used || (w->f == key->f && w->s == key->s && w->warp == key->warp && w->cta.x == key->cta.x &&
                         w->cta.y == key->cta.y && w->cta.z == key->cta.z))
            return w;
    }
}

/* The key of statement s of function F in ev's warp. */
static dc_wrap wrap_key(const divcheck *c, const dc_func *F, uint32_t s, const emu_event *ev)
{
    return (dc_wrap){(uint32_t)(F - c->f), s, ev->warp, 1, ev->block};
}

/* Every vertex of the dependence graph reachable from the values s defines. */
static uint8_t *reach_of(const dc_func *F, uint32_t s)
{
    const ssa_func *S = F->pf->ssa;
    uint32_t n = F->nw.nvertices, ns = 0;
    uint8_t *seen = calloc(n ? n : 1, 1);
    uint32_t *stack = malloc(sizeof *stack * (n + 1));
    if (!seen || !stack) abort();
    for (uint32_t k = S->ref_off[s]; k < S->ref_off[s + 1]; k++)
        if ((S->refs[k].role & PTX_REF_DEF) && S->refs[k].value != SSA_NONE && !seen[S->refs[k].value])
            seen[stack[ns++] = S->refs[k].value] = 1;
    const u32csr *u = &F->nw.users;
    while (ns) {
        uint32_t v = stack[--ns];
        for (uint32_t e = u->off[v]; e < u->off[v + 1]; e++)
            if (!seen[u->item[e]]) seen[stack[ns++] = u->item[e]] = 1;
    }
    free(stack);
    return seen;
}

static void wrap_note(divcheck *c, dc_func *F, const emu_event *ev)
{
    uint32_t s = ev->stmt;
    if (2 * (c->nwraps + 1) > c->capw) {
        uint32_t cap = c->capw ? 2 * c->capw : 64;
        dc_wrap *t = calloc(cap, sizeof *t);
        if (!t) abort();
        for (uint32_t i = 0; i < c->capw; i++)
            if (c->wraps[i].used) *wrap_slot(t, cap, &c->wraps[i]) = c->wraps[i];
        free(c->wraps);
        c->wraps = t;
        c->capw = cap;
    }
    dc_wrap key = wrap_key(c, F, s, ev), *w = wrap_slot(c->wraps, c->capw, &key);
    if (w->used) return;
    *w = key;
    c->nwraps++;
    if (!F->reach[s]) {
        F->reach[s] = reach_of(F, s);
        F->wrapped[F->nwrapped++] = s;
    }
}

/* Whether v's claim depends on an instruction whose operands wrapped
 * around in ev's warp. */
static bool wrap_reaches(const divcheck *c, const dc_func *F, const emu_event *ev, uint32_t v)
{
    if (!c->nwraps) return false;
    for (uint32_t k = 0; k < F->nwrapped; k++) {
        uint32_t s = F->wrapped[k];
        dc_wrap key = wrap_key(c, F, s, ev);
        if (F->reach[s][v] && wrap_slot(c->wraps, c->capw, &key)->used) return true;
    }
    return false;
}

/* Whether value v, operand of a statement that reads it at read
 * (div_nowrap), equals its polynomial over the integers in the lanes that
 * execute it: 1 yes, 0 no (it wrapped around), -1 not known (a monomial
 * with an unknown coefficient varies among the lanes). */
static int exact_operand(const divcheck *c, const dc_func *F, const emu_event *ev, uint32_t v, uint8_t comp,
                         uint8_t read)
{
    const div_result *r = F->r;
    unsigned w = read & ~DIV_NOWRAP_SIGNED;
    uint64_t m = w >= 64 ? ~0ull : (1ull << w) - 1;
    const int64_t *co = div_coefs(r, v);
    uint16_t bot = r->bot[v];
    uint32_t lanes = ev->active_mask, reg = F->pf->ssa->values[v].reg;
    unsigned f = (unsigned)__builtin_ctz(lanes);
    uint32_t tf = ev->warp * 32 + f;
    __int128 base = 0, p;
    for (uint32_t mm = lanes; mm; mm &= mm - 1) {
        unsigned l = (unsigned)__builtin_ctz(mm);
        uint32_t t = ev->warp * 32 + l;
        if (t >= c->nthreads || !poly_at(c, r, v, t, tf, &p)) return -1;
        uint64_t x = emu_event_reg(ev, reg, comp, l) & m;
        __int128 e = (read & DIV_NOWRAP_SIGNED) ? (__int128)(int64_t)(w >= 64 ? x : x << (64 - w)) >> (w >= 64 ? 0 : 64 - w)
                                                : (__int128)x;
        if (!(bot & 1)) {
            if (e != co[0] + p) return 0;
        } else if (l == f) {
            base = e - p;
        } else if (e - p != base) {
            return 0;
        }
    }
    return 1;
}

/* At a statement whose rule assumes no wraparound: note it when an
 * operand with an affine claim breaks the assumption. */
static void check_wrap(divcheck *c, dc_func *F, const emu_event *ev, uint8_t read)
{
    const ssa_func *S = F->pf->ssa;
    const div_result *r = F->r;
    if (!div_has_coefs(r) || !ev->active_mask) return;
    for (uint32_t k = S->ref_off[ev->stmt]; k < S->ref_off[ev->stmt + 1]; k++) {
        const ssa_ref *rf = &S->refs[k];
        if (!(rf->role & PTX_REF_USE) || (rf->opd != 1 && rf->opd != 2) || rf->value == SSA_NONE) continue;
        if (r->state[rf->value] != DIV_AFFINE) continue; /* uniform: equal in every lane; divergent: no claim */
        if (exact_operand(c, F, ev, rf->value, rf->comp, read) == 0) {
            wrap_note(c, F, ev);
            return;
        }
    }
}

static void violated_as(divcheck *c, dc_func *F, const emu_event *ev, const dc_item *it, enum divcheck_kind kind,
                        unsigned la, unsigned lb, uint64_t ha, uint64_t hb, bool has_exp, bool is_diff, uint64_t exp)
{
    if (wrap_reaches(c, F, ev, it->value)) {
        c->tot.wrapped++;
        return;
    }
    c->tot.occurrences++;
    uint32_t *slot = kind == DIVCHECK_SPLIT    ? &F->viol_s[it->block]
                     : it->kind == IT_BRANCH ? &F->viol_b[it->block]
                                             : &F->viol_v[it->value];
    if (*slot) {
        c->v[*slot - 1].count++;
        return;
    }
    if (c->nv == c->capv) {
        uint32_t cap = c->capv ? c->capv * 2 : 16;
        divcheck_violation *nv = realloc(c->v, cap * sizeof *nv);
        uint32_t *no = realloc(c->ord, cap * sizeof *no);
        if (nv) c->v = nv;
        if (no) c->ord = no;
        if (!nv || !no) return;
        c->capv = cap;
    }
    divcheck_violation *x = &c->v[c->nv];
    *x = (divcheck_violation){kind, ev->fn, ev->stmt, it->value, it->block, 1, ev->block, ev->warp,
                              la, lb, ha, hb, has_exp, is_diff, exp};
    uint32_t pos = c->nv;
    while (pos > 0 && before(x, &c->v[c->ord[pos - 1]])) {
        c->ord[pos] = c->ord[pos - 1];
        pos--;
    }
    c->ord[pos] = c->nv;
    *slot = ++c->nv;
    c->tot.violated++;
}

static void violated(divcheck *c, dc_func *F, const emu_event *ev, const dc_item *it, unsigned la, unsigned lb,
                     uint64_t ha, uint64_t hb, bool has_exp, bool is_diff, uint64_t exp)
{
    static const enum divcheck_kind kinds[] = {DIVCHECK_VALUE, DIVCHECK_PHI, DIVCHECK_ETA, DIVCHECK_BRANCH};
    violated_as(c, F, ev, it, kinds[it->kind], la, lb, ha, hb, has_exp, is_diff, exp);
}

static void check_value(divcheck *c, dc_func *F, const emu_event *ev, const dc_item *it)
{
    const div_result *r = F->r;
    uint32_t v = it->value;
    bool uni = r->state[v] == DIV_UNIFORM;
    bool aff = div_has_coefs(r) && r->ncoef > 1 && (r->bot[v] >> 1) == 0; /* every non-constant coefficient known */
    if (!uni && !aff) return;
    if (c->shape == DIVCHECK_SHAPE_ASSUMED && r->cond && (r->cond[v] & c->failing)) {
        if (it->kind == IT_DEF) c->tot.skipped_values++;
        else c->tot.skipped_phis++;
        return;
    }
    if (it->kind == IT_DEF) c->tot.values++;
    else c->tot.phis++;
    uint32_t lanes = ev->path_mask;
    uint64_t held[32], w = it->wmask;
    for (uint32_t m = lanes; m; m &= m - 1) {
        unsigned l = (unsigned)__builtin_ctz(m);
        held[l] = emu_event_reg(ev, it->reg, it->comp, l) & w;
    }
    unsigned f = (unsigned)__builtin_ctz(lanes);
    if (uni)
        for (uint32_t m = lanes & (lanes - 1); m; m &= m - 1) {
            unsigned l = (unsigned)__builtin_ctz(m);
            if (held[l] != held[f]) {
                violated(c, F, ev, it, f, l, held[f], held[l], false, false, 0);
                return;
            }
        }
    if (!aff) return;
    const int64_t *co = div_coefs(r, v);
    uint64_t kf = 0;
    for (uint32_t m = lanes; m; m &= m - 1) {
        unsigned l = (unsigned)__builtin_ctz(m);
        uint32_t t = ev->warp * 32 + l;
        if (t >= c->nthreads) return; /* a shape the checker was not told about */
        __int128 p;
        poly_at(c, r, v, t, t, &p); /* every non-constant coefficient is known (aff) */
        uint64_t k = (uint64_t)p & w;
        if (!(r->bot[v] & 1)) {
            uint64_t want = ((uint64_t)co[0] + k) & w;
            if (held[l] != want) {
                violated(c, F, ev, it, l, l, held[l], held[l], true, false, want);
                return;
            }
        } else if (l == f) {
            kf = k;
        } else if (((held[l] - k) & w) != ((held[f] - kf) & w)) {
            violated(c, F, ev, it, f, l, held[f], held[l], true, true, (k - kf) & w);
            return;
        }
    }
}

/* A branch claimed divergent in warp ev->warp: when the warp runs it with
 * all its threads, its lanes must not all hold one condition.  At the
 * assumed shape the claim rests on blockDim.x being a multiple of 32 (warp
 * 0's lanes are tid.x = 0..31), and is skipped where that fails. */
static void check_split(divcheck *c, dc_func *F, const emu_event *ev, const dc_item *it, uint32_t split)
{
    if (split != DIV_SPLIT_ALL && (ev->warp >= 32 || !(split >> ev->warp & 1))) return;
    if (c->shape == DIVCHECK_SHAPE_ASSUMED && (c->failing & DIV_COND_X32)) {
        c->tot.skipped_splits++;
        return;
    }
    uint64_t n = (uint64_t)(c->block.x ? c->block.x : 1) * (c->block.y ? c->block.y : 1) * (c->block.z ? c->block.z : 1);
    uint64_t first = (uint64_t)ev->warp * 32, cnt = n > first ? n - first : 0;
    uint32_t whole = cnt >= 32 ? UINT32_MAX : (uint32_t)((1ull << cnt) - 1);
    if (!whole || ev->path_mask != whole) return; /* not run whole: the claim says nothing */
    c->tot.splits++;
    unsigned last = 31 - (unsigned)__builtin_clz(whole);
    uint64_t h0 = emu_event_reg(ev, it->reg, 0, 0) & it->wmask;
    for (unsigned l = 1; l <= last; l++)
        if ((emu_event_reg(ev, it->reg, 0, l) & it->wmask) != h0) return;
    violated_as(c, F, ev, it, DIVCHECK_SPLIT, 0, last, h0, h0, false, false, 0);
}

static void check_branch(divcheck *c, dc_func *F, const emu_event *ev, const dc_item *it)
{
    if (!F->split_known[it->block]) {
        F->split[it->block] = div_branch_split_warps(F->r, it->block);
        F->split_known[it->block] = 1;
    }
    if (F->split[it->block]) check_split(c, F, ev, it, F->split[it->block]);
    if (div_branch(F->r, it->block) != DIV_UNIFORM) return;
    if (c->shape == DIVCHECK_SHAPE_ASSUMED && (div_branch_cond(F->r, it->block) & c->failing)) {
        c->tot.skipped_branches++;
        return;
    }
    c->tot.branches++;
    uint32_t lanes = ev->path_mask;
    unsigned f = (unsigned)__builtin_ctz(lanes);
    uint64_t hf = emu_event_reg(ev, it->reg, 0, f) & it->wmask;
    for (uint32_t m = lanes & (lanes - 1); m; m &= m - 1) {
        unsigned l = (unsigned)__builtin_ctz(m);
        uint64_t h = emu_event_reg(ev, it->reg, 0, l) & it->wmask;
        if (h != hf) {
            violated(c, F, ev, it, f, l, hf, h, false, false, 0);
            return;
        }
    }
}

static void on_inst(void *user, const emu_event *ev)
{
    divcheck *c = user;
    if (!c->analysed || !ev->path_mask) return;
    dc_func *F = func_of(c, ev->fn);
    if (!F || ev->stmt >= F->pf->fn->nstmts) return;
    if (ev->phase == EMU_OBS_BEFORE) {
        if (F->nw.read[ev->stmt]) check_wrap(c, F, ev, F->nw.read[ev->stmt]);
        for (uint32_t k = F->boff[ev->stmt]; k < F->boff[ev->stmt + 1]; k++) {
            const dc_item *it = &F->bitems[k];
            if (it->kind == IT_BRANCH) check_branch(c, F, ev, it);
            else check_value(c, F, ev, it);
        }
    } else {
        for (uint32_t k = F->aoff[ev->stmt]; k < F->aoff[ev->stmt + 1]; k++) check_value(c, F, ev, &F->aitems[k]);
    }
}

/* ---- reports ------------------------------------------------------------------------------- */
void divcheck_get_totals(const divcheck *c, divcheck_totals *t) { *t = c->tot; }

uint32_t divcheck_nviolations(const divcheck *c) { return c->nv; }

const divcheck_violation *divcheck_get_violation(const divcheck *c, uint32_t i)
{
    return i < c->nv ? &c->v[c->ord[i]] : NULL;
}

static const dc_func *func_const(const divcheck *c, const ptx_func *fn)
{
    for (uint32_t i = 0; i < c->nf; i++)
        if (c->f[i].pf->fn == fn) return &c->f[i];
    return NULL;
}

/* "uniform", or the affine form with its known coefficients. */
static const char *claim_text(const div_result *r, uint32_t v, bool uniform_claim, char *buf, size_t n)
{
    bool zero = true;
    int64_t c0 = 0;
    for (unsigned i = 1; i < r->ncoef && div_has_coefs(r); i++)
        if (r->bot[v] >> i & 1 || div_coefs(r, v)[i]) zero = false;
    if (uniform_claim || (zero && !div_coef(r, v, 0, &c0))) snprintf(buf, n, "uniform");
    else div_value_text(r, v, buf, n);
    return buf;
}

/* What the violated claim said: a branch's and a value's uniformity, or the
 * value's affine form. */
static const char *violated_claim(const dc_func *F, const divcheck_violation *x, char *buf, size_t n)
{
    if (x->kind == DIVCHECK_BRANCH || x->kind == DIVCHECK_SPLIT) {
        snprintf(buf, n, x->kind == DIVCHECK_SPLIT ? "divergent" : "uniform");
        return buf;
    }
    return claim_text(F->r, x->value, !x->has_expected, buf, n);
}

/* The assumptions a violated claim rested on (assumed shape only). */
static unsigned claim_cond(const divcheck *c, const dc_func *F, const divcheck_violation *x)
{
    if (c->shape != DIVCHECK_SHAPE_ASSUMED || !F->r->cond) return 0;
    if (x->kind == DIVCHECK_SPLIT) return DIV_COND_X32;
    return x->kind == DIVCHECK_BRANCH ? div_branch_cond(F->r, x->block) : F->r->cond[x->value];
}

static void hex(uint64_t x, char *buf, size_t n) { snprintf(buf, n, "0x%llx", (unsigned long long)x); }

const char *divcheck_message(const divcheck *c, uint32_t i, char *buf, size_t n)
{
    const divcheck_violation *x = divcheck_get_violation(c, i);
    const dc_func *F = x ? func_const(c, x->fn) : NULL;
    if (!F || !n) {
        if (n) buf[0] = 0;
        return buf;
    }
    const div_result *r = F->r;
    char name[128], claim[256], what[160], where[96], a[32], b[32], e[32];
    ssa_value_name(F->pf->ssa, x->value, name, sizeof name);
    if (x->kind == DIVCHECK_BRANCH || x->kind == DIVCHECK_SPLIT) snprintf(what, sizeof what, "branch on %s", name);
    else
        snprintf(what, sizeof what, "%s%s", name,
                 x->kind == DIVCHECK_PHI ? " (phi)" : x->kind == DIVCHECK_ETA ? " (eta)" : "");
    violated_claim(F, x, claim, sizeof claim);
    snprintf(where, sizeof where, "warp %u of block (%u,%u,%u)", x->warp, x->cta.x, x->cta.y, x->cta.z);
    hex(x->held_a, a, sizeof a);
    hex(x->held_b, b, sizeof b);
    hex(x->expected, e, sizeof e);
    char an[160];
    unsigned cond = claim_cond(c, F, x);
    if (cond) snprintf(an, sizeof an, "%s, assuming %s", div_analysis_name(r->analysis), div_cond_text(cond));
    else snprintf(an, sizeof an, "%s", div_analysis_name(r->analysis));
    if (x->kind == DIVCHECK_SPLIT)
        snprintf(buf, n, "%s claimed %s (analysis %s) but %s ran it with all its threads, every lane holding %s", what,
                 claim, an, where, a);
    else if (x->has_expected && !x->expected_is_diff)
        snprintf(buf, n, "%s claimed %s (analysis %s) but %s lane %u holds %s, the claim gives %s", what, claim, an,
                 where, x->lane_b, b, e);
    else if (x->has_expected)
        snprintf(buf, n, "%s claimed %s (analysis %s) but %s lanes %u and %u hold %s and %s, the claim wants a "
                         "difference of %s", what, claim, an, where, x->lane_a, x->lane_b, a, b, e);
    else
        snprintf(buf, n, "%s claimed %s (analysis %s) but %s lanes %u and %u hold %s and %s", what, claim, an, where,
                 x->lane_a, x->lane_b, a, b);
    return buf;
}

void divcheck_report_text(const divcheck *c, const char *path, unsigned max, FILE *out)
{
    const divcheck_totals *t = &c->tot;
    fprintf(out, "divergence check (analysis %s%s): %llu claim%s violated", div_analysis_name(c->an),
            c->shape == DIVCHECK_SHAPE_ASSUMED ? ", block shape assumed" : "", (unsigned long long)t->violated,
            t->violated == 1 ? "" : "s");
    if (t->violated)
        fprintf(out, " in %llu warp-instruction%s", (unsigned long long)t->occurrences, t->occurrences == 1 ? "" : "s");
    fprintf(out, "; checked %llu values, %llu phi/eta values, %llu branches", (unsigned long long)t->values,
            (unsigned long long)t->phis, (unsigned long long)t->branches);
    if (c->shape == DIVCHECK_SHAPE_ASSUMED)
        fprintf(out, "; skipped %llu values, %llu phi/eta values, %llu branches whose assumptions fail at block "
                     "(%u,%u,%u)",
                (unsigned long long)t->skipped_values, (unsigned long long)t->skipped_phis,
                (unsigned long long)t->skipped_branches, c->block.x, c->block.y, c->block.z);
    if (t->splits || t->skipped_splits) {
        fprintf(out, "; checked %llu divergent-branch claims in warps that ran them whole", (unsigned long long)t->splits);
        if (t->skipped_splits)
            fprintf(out, " (skipped %llu whose assumption fails)", (unsigned long long)t->skipped_splits);
    }
    if (t->wrapped)
        fprintf(out, "; %llu not met where values wrapped around (the no-wraparound assumption failed)",
                (unsigned long long)t->wrapped);
    fputc('\n', out);
    char msg[1024];
    for (uint32_t i = 0; i < c->nv && i < max; i++) {
        const divcheck_violation *x = divcheck_get_violation(c, i);
        ptx_loc loc = x->fn->stmts[x->stmt]->loc;
        divcheck_message(c, i, msg, sizeof msg);
        fprintf(out, "%s:%u:%u: divergence claim violated: %s", path, loc.line, loc.col, msg);
        if (x->count > 1) fprintf(out, " (%llu times)", (unsigned long long)x->count);
        fputc('\n', out);
    }
    if (c->nv > max) fprintf(out, "(%u further violated claims not listed)\n", c->nv - max);
}

void *divcheck_report_json(const divcheck *c, const char *path)
{
    static const char *const kind[] = {"value", "phi", "eta", "branch", "split"};
    const divcheck_totals *t = &c->tot;
    json_t *o = json_object();
    json_object_set_new(o, "analysis", json_string(div_analysis_name(c->an)));
    json_object_set_new(o, "violated", json_integer((json_int_t)t->violated));
    json_object_set_new(o, "occurrences", json_integer((json_int_t)t->occurrences));
    json_object_set_new(o, "checked", json_pack("{sIsIsI}", "values", (json_int_t)t->values, "phis",
                                                (json_int_t)t->phis, "branches", (json_int_t)t->branches));
    if (c->shape == DIVCHECK_SHAPE_ASSUMED) {
        json_object_set_new(o, "shape", json_string("assumed"));
        json_object_set_new(o, "skipped", json_pack("{sIsIsI}", "values", (json_int_t)t->skipped_values, "phis",
                                                    (json_int_t)t->skipped_phis, "branches",
                                                    (json_int_t)t->skipped_branches));
    }
    if (t->splits || t->skipped_splits)
        json_object_set_new(o, "splits", json_pack("{sIsI}", "checked", (json_int_t)t->splits, "skipped",
                                                   (json_int_t)t->skipped_splits));
    if (t->wrapped) json_object_set_new(o, "wrapped", json_integer((json_int_t)t->wrapped));
    json_t *arr = json_array();
    char msg[1024], name[128];
    for (uint32_t i = 0; i < c->nv; i++) {
        const divcheck_violation *x = divcheck_get_violation(c, i);
        const dc_func *F = func_const(c, x->fn);
        ptx_loc loc = x->fn->stmts[x->stmt]->loc;
        json_t *e = json_object();
        json_object_set_new(e, "file", json_string(path));
        json_object_set_new(e, "line", json_integer(loc.line));
        json_object_set_new(e, "col", json_integer(loc.col));
        json_object_set_new(e, "function", json_stringn(x->fn->name.p, x->fn->name.n));
        json_object_set_new(e, "kind", json_string(kind[x->kind]));
        json_object_set_new(e, "value", json_string(ssa_value_name(F->pf->ssa, x->value, name, sizeof name)));
        char claim[256];
        json_object_set_new(e, "claim", json_string(violated_claim(F, x, claim, sizeof claim)));
        unsigned cond = claim_cond(c, F, x);
        if (cond) json_object_set_new(e, "assumes", json_string(div_cond_text(cond)));
        json_object_set_new(e, "count", json_integer((json_int_t)x->count));
        json_object_set_new(e, "block", json_pack("[iii]", x->cta.x, x->cta.y, x->cta.z));
        json_object_set_new(e, "warp", json_integer(x->warp));
        json_object_set_new(e, "lanes", json_pack("[ii]", x->lane_a, x->lane_b));
        char a[32], b[32];
        hex(x->held_a, a, sizeof a);
        hex(x->held_b, b, sizeof b);
        json_object_set_new(e, "held", json_pack("[ss]", a, b));
        if (x->has_expected) {
            hex(x->expected, a, sizeof a);
            json_object_set_new(e, x->expected_is_diff ? "expected_difference" : "expected", json_string(a));
        }
        json_object_set_new(e, "message", json_string(divcheck_message(c, i, msg, sizeof msg)));
        json_array_append_new(arr, e);
    }
    json_object_set_new(o, "violations", arr);
    return o;
}
