/* The barrier and collective rules (sync_rules.h).  The ISA text each rule
 * relies on is quoted in docs/check.md; run --synccheck (emu/checks_sync.c)
 * is their oracle. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "aff_poly.h"
#include "div_internal.h"
#include "lane_eval.h"
#include "sync_rules.h"

#define NONE UINT32_MAX

/* A CTA barrier's form: bar{.cta}.sync/.red/.arrive (.aligned implied) and
 * barrier{.cta}.sync/.red/.arrive{.aligned}; operands a (id) and b (count)
 * after bar.red's destination.  Not barrier.cluster, not bar.warp.sync. */
typedef struct bar_form {
    bool aligned, arrive;
    int id, cnt; /* operand indices; cnt -1: no count (every thread of the CTA) */
} bar_form;

static bool cta_barrier(const ptx_inst *in, bar_form *b)
{
    if (in->op == PTX_OPC_BAR) {
        if (ptx_inst_has_mod(in, ".warp")) return false;
        b->aligned = true;
    } else if (in->op == PTX_OPC_BARRIER) {
        if (ptx_inst_has_mod(in, ".cluster")) return false;
        b->aligned = ptx_inst_has_mod(in, ".aligned");
    } else
        return false;
    bool red = ptx_inst_has_mod(in, ".red");
    b->arrive = ptx_inst_has_mod(in, ".arrive");
    if (!red && !b->arrive && !ptx_inst_has_mod(in, ".sync")) return false;
    b->id = red ? 1 : 0;
    b->cnt = red ? (in->nopd == 4 ? 2 : -1) : (in->nopd >= 2 ? 1 : -1);
    return b->id < (int)in->nopd;
}

/* A warp-level .aligned instruction without a member mask (mma, wmma,
 * ldmatrix, stmatrix, movmatrix, wgmma, tcgen05, barrier.cluster,
 * setmaxnreg): "all threads in the warp" execute it together (ISA, .aligned);
 * its mask is the whole warp.  Not a CTA barrier (their own rule). */
static bool warp_aligned(const ptx_inst *in, const ptx_inst_sem *sem)
{
    return (sem->flags & PTX_SEM_ALIGNED) && in->op != PTX_OPC_BAR && in->op != PTX_OPC_BARRIER;
}

/* wgmma (.fence, .commit_group, .wait_group, .mma_async) and setmaxnreg:
 * ISA, ".aligned": "all threads in the warpgroup must execute the same"
 * instruction, and in conditionally executed code only "if it is known
 * that all threads in the warpgroup evaluate the condition identically".
 * A warpgroup is four contiguous warps, the first one's rank a multiple of
 * 4: a branch that keeps each warp together may still split one. */
static bool warpgroup_aligned(const ptx_inst *in)
{
    return in->op == PTX_OPC_WGMMA || in->op == PTX_OPC_SETMAXNREG;
}

/* A warp collective with a member mask (its last operand). */
static bool warp_collective(const ptx_inst *in)
{
    switch (in->op) {
    case PTX_OPC_SHFL: case PTX_OPC_VOTE: case PTX_OPC_MATCH: case PTX_OPC_REDUX: case PTX_OPC_ELECT:
        return in->nopd >= 1 && ptx_inst_has_mod(in, ".sync");
    case PTX_OPC_BAR:
        return in->nopd >= 1 && ptx_inst_has_mod(in, ".warp");
    default:
        return false;
    }
}

typedef struct ctx {
    const prog_func *pf;
    const cfg *g;
    const ssa_func *s;
    const div_result *r;   /* warp granularity, at the shape */
    const div_result *cta; /* block granularity: made when first asked (block_level) */
    div_options cta_opts;
    const addr_chain *chain; /* for lane-exact evaluation (lane_eval.h); may be NULL */
    arena *a;
    sync_finding *v;
    uint32_t n, cap;
    uint32_t *bar;         /* per block: its first barrier that waits for the whole CTA (no count), or NONE */
    uint32_t *seen, *reach, epoch, *stack;
    uint32_t nthreads;     /* threads of a block known (div_pred_threads), 0: none */
} ctx;

static sync_finding *add(ctx *c, uint32_t stmt, uint8_t rule, uint8_t kind)
{
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 8;
        c->v = realloc(c->v, sizeof *c->v * c->cap);
        if (!c->v) abort();
    }
    sync_finding *f = &c->v[c->n++];
    memset(f, 0, sizeof *f);
    f->stmt = stmt, f->rule = rule, f->kind = kind;
    f->branch = f->other = NONE;
    f->value = SSA_NONE;
    return f;
}

/* Operand k of st: its SSA value (SSA_NONE for a literal), and its value
 * when the polynomial knows it as one constant in every thread. */
static uint32_t opd_value(const ctx *c, uint32_t st, unsigned k, bool *known, int64_t *x)
{
    const ptx_operand *o = &c->pf->fn->stmts[st]->u.inst.opd[k];
    *known = false;
    if (o->kind == PTX_O_IMM && o->flags == PTX_IMM_INT) {
        *known = true, *x = o->v;
        return SSA_NONE;
    }
    if (o->kind != PTX_O_REG || o->neg) return SSA_NONE;
    uint32_t v = ssa_use_value(c->s, st, k);
    if (v == SSA_NONE || !div_has_coefs(c->r)) return v;
    aff p;
    aff_of_result(c->r, v, &p);
    if (p.top || p.bot) return v;
    for (unsigned i = 1; i < c->r->ncoef; i++)
        if (p.c[i]) return v;
    *known = true, *x = p.c[0];
    return v;
}

/* The analysis at block granularity, run the first time a rule asks: most
 * barriers are control dependent on no branch and have a literal id. */
/* The lanes of warp w among the first n threads of a block. */
static uint32_t present_lanes(uint32_t n, uint32_t w)
{
    return w * 32 >= n ? 0 : n - w * 32 >= 32 ? ~0u : (1u << (n - w * 32)) - 1;
}

static const div_result *block_level(ctx *c)
{
    if (!c->cta) c->cta = div_simple(c->pf, &c->cta_opts, c->a);
    return c->cta;
}

static bool cta_uniform(ctx *c, uint32_t v) { return v == SSA_NONE || block_level(c)->state[v] == DIV_UNIFORM; }

/* The branches block b is control dependent on, directly or through
 * others, into out (c->stack's room); their count. */
static uint32_t controls(ctx *c, uint32_t b, uint32_t *out)
{
    const cfg *g = c->g;
    uint32_t n = 0, ns = 0, *st = c->stack;
    c->epoch++;
    st[ns++] = b;
    while (ns) {
        uint32_t x = st[--ns];
        for (uint32_t k = g->cdep_off[x]; k < g->cdep_off[x + 1]; k++) {
            uint32_t br = g->cdep[k];
            if (c->seen[br] == c->epoch) continue;
            c->seen[br] = c->epoch;
            out[n++] = br;
            st[ns++] = br;
        }
    }
    return n;
}

/* Marks (c->reach = this epoch) the blocks from which b can be reached. */
static void reaching(ctx *c, uint32_t b)
{
    const cfg *g = c->g;
    uint32_t ns = 0, *st = c->stack;
    c->epoch++;
    c->reach[b] = c->epoch;
    st[ns++] = b;
    while (ns) {
        uint32_t x = st[--ns];
        for (uint32_t k = 0; k < g->blocks[x].npred; k++) {
            uint32_t p = g->blocks[x].pred[k];
            if (c->reach[p] != c->epoch) c->reach[p] = c->epoch, st[ns++] = p;
        }
    }
}

/* From block s, never entering block b: the first barrier met (a block's
 * c->bar, in the order of a depth-first walk), or NONE; *exits when some
 * path reaches the exit without meeting one. */
static uint32_t meets(ctx *c, uint32_t s, uint32_t b, bool *exits)
{
    const cfg *g = c->g;
    uint32_t ns = 0, *st = c->stack, found = NONE;
    *exits = false;
    c->epoch++;
    st[ns++] = s;
    c->seen[s] = c->epoch;
    while (ns) {
        uint32_t x = st[--ns];
        if (x == b) continue;
        if (x == CFG_EXIT) { *exits = true; continue; }
        if (c->bar[x] != NONE) {
            if (found == NONE || c->bar[x] < found) found = c->bar[x];
            continue;
        }
        for (uint32_t k = 0; k < g->blocks[x].nsucc; k++) {
            uint32_t y = g->blocks[x].succ[k];
            if (c->seen[y] != c->epoch) c->seen[y] = c->epoch, st[ns++] = y;
        }
    }
    return found;
}

/* Whether threads that reach block p only go on to exit: the exit, or a
 * block whose first instruction is an unguarded ret or exit (which the
 * ISA counts as exited: they take part in no barrier or collective). */
static bool just_exits(const ctx *c, uint32_t p)
{
    if (p == CFG_NONE || p == CFG_EXIT || c->g->blocks[p].kind == CFG_B_EXIT) return true;
    const ptx_func *fn = c->pf->fn;
    for (uint32_t i = cfg_block_resume_stmt(c->g, p); i < fn->nstmts; i++) {
        if (fn->stmts[i]->kind != PTX_S_INST) continue;
        const ptx_inst *in = &fn->stmts[i]->u.inst;
        return (in->op == PTX_OPC_RET || in->op == PTX_OPC_EXIT) && !in->has_guard;
    }
    return true;
}

/* The point where a warp split at branch br reconverges (lockstep: the
 * branch's immediate post-dominator), as its first statement; NONE when
 * lanes waiting there only go on to exit. */
static uint32_t reconvergence(const ctx *c, uint32_t br)
{
    uint32_t p = c->g->blocks[br].ipdom;
    if (just_exits(c, p)) return NONE;
    const ptx_func *fn = c->pf->fn;
    for (uint32_t i = cfg_block_resume_stmt(c->g, p); i < fn->nstmts; i++)
        if (fn->stmts[i]->kind == PTX_S_INST) return i;
    return NONE;
}

/* Operand k of the setp at st, thread by thread (x[t] over c->nthreads):
 * a literal, or a value lane_eval knows exactly in every warp of the
 * block, free of unknowns. */
static bool operand_threads(const ctx *c, uint32_t st, unsigned k, int64_t *x)
{
    const ptx_operand *o = &c->pf->fn->stmts[st]->u.inst.opd[k];
    if (o->kind == PTX_O_IMM && o->flags == PTX_IMM_INT) {
        for (uint32_t t = 0; t < c->nthreads; t++) x[t] = o->v;
        return true;
    }
    uint32_t v = o->kind == PTX_O_REG && !o->neg ? ssa_use_value(c->s, st, k) : SSA_NONE;
    if (v == SSA_NONE || !c->chain) return false;
    if (lane_eval_threads(c->chain, v, x, c->nthreads)) return true; /* each warp's own thread indices */
    le_result *le = malloc(sizeof *le);
    wl_result *w = malloc(sizeof *w);
    if (!le || !w) abort();
    bool ok = lane_eval(c->chain, v, le, w) == LE_EXACT;
    uint32_t t = 0;
    for (uint32_t wi = 0; ok && wi < le->nwarps; wi++)
        for (uint32_t l = 0; ok && l < le->warp[wi].nlanes; l++, t++) {
            ok = le->warp[wi].sym[l] == 0 && le->warp[wi].lo[l] == le->warp[wi].hi[l] && t < c->nthreads;
            if (ok) x[t] = le->warp[wi].lo[l];
        }
    free(le);
    free(w);
    return ok && t == c->nthreads;
}

static bool pred_rec(const ctx *c, uint32_t v, uint32_t bits[32], unsigned depth);

/* Predicate operand k of st, thread by thread. */
static bool pred_operand(const ctx *c, uint32_t st, unsigned k, uint32_t bits[32], unsigned depth)
{
    const ptx_operand *o = &c->pf->fn->stmts[st]->u.inst.opd[k];
    if (o->kind == PTX_O_IMM && o->flags == PTX_IMM_INT) {
        memset(bits, o->v ? 0xff : 0, 32 * sizeof *bits);
        return true;
    }
    uint32_t v = o->kind == PTX_O_REG ? ssa_use_value(c->s, st, k) : SSA_NONE;
    if (v == SSA_NONE || !pred_rec(c, v, bits, depth + 1)) return false;
    if (o->neg)
        for (unsigned w = 0; w < 32; w++) bits[w] = ~bits[w];
    return true;
}

/* Each thread's value of predicate v (bits; the first c->nthreads count):
 * the domain's (div_pred_threads), else an integer setp whose operands
 * lane_eval knows in every warp, else not, and, or, xor and mov of such
 * predicates (nvcc's `xor.pred p, q, 0; not.pred`). */
static bool pred_rec(const ctx *c, uint32_t v, uint32_t bits[32], unsigned depth)
{
    uint32_t n;
    if (depth > 8) return false;
    if (div_pred_threads(c->r, v, bits, &n)) return n == c->nthreads;
    const ssa_value *val = &c->s->values[v];
    if (!c->nthreads || val->kind != SSA_V_INST || val->partial) return false;
    const ptx_inst *in = &c->pf->fn->stmts[val->stmt]->u.inst;
    if (in->type == PTX_T_PRED) {
        uint32_t t[32];
        switch (in->op) {
        case PTX_OPC_MOV:
            return in->nopd == 2 && pred_operand(c, val->stmt, 1, bits, depth);
        case PTX_OPC_NOT:
            if (in->nopd != 2 || !pred_operand(c, val->stmt, 1, bits, depth)) return false;
            for (unsigned w = 0; w < 32; w++) bits[w] = ~bits[w];
            return true;
        case PTX_OPC_AND: case PTX_OPC_OR: case PTX_OPC_XOR:
            if (in->nopd != 3 || !pred_operand(c, val->stmt, 1, bits, depth) || !pred_operand(c, val->stmt, 2, t, depth))
                return false;
            for (unsigned w = 0; w < 32; w++)
                bits[w] = in->op == PTX_OPC_AND ? bits[w] & t[w] : in->op == PTX_OPC_OR ? bits[w] | t[w] : bits[w] ^ t[w];
            return true;
        default:
            break;
        }
    }
    const ptx_iop *d = &c->s->iop[val->stmt];
    if (d->rule != PTX_IOP_CMP || in->nopd != 3 || d->cmp == PTX_CMP_NONE || d->comb) return false;
    uint8_t cmp = d->cmp, sgn = d->sgn;
    int64_t *a = malloc(sizeof *a * 2 * c->nthreads), *b = a + c->nthreads;
    if (!a) abort();
    bool ok = operand_threads(c, val->stmt, 1, a) && operand_threads(c, val->stmt, 2, b);
    unsigned w = ptx_type_bits(in->type);
    memset(bits, 0, 32 * sizeof *bits);
    for (uint32_t t = 0; ok && t < c->nthreads; t++) {
        int p = div_setp_holds(cmp, sgn, w, a[t], b[t]);
        ok = p >= 0;
        if (p > 0) bits[t / 32] |= 1u << (t % 32);
    }
    free(a);
    return ok;
}

static bool pred_threads(const ctx *c, uint32_t v, uint32_t bits[32])
{
    if (!pred_rec(c, v, bits, 0)) return false;
    for (uint32_t w = 0; w < 32; w++) bits[w] &= present_lanes(c->nthreads, w);
    return true;
}

/* The threads of a block taking successor 0 of branch br (bits, c->nthreads
 * of them), when known lane by lane. */
static bool taken(const ctx *c, uint32_t br, uint32_t bits[32], uint32_t *nt)
{
    uint32_t v, n;
    bool neg;
    if (c->g->blocks[br].nsucc != 2 || !gsa_branch_gate(c->s, br, &v, &neg) || v == SSA_NONE) return false;
    if (!pred_threads(c, v, bits)) return false;
    n = c->nthreads;
    for (uint32_t w = 0; w < 32; w++) bits[w] = (neg ? ~bits[w] : bits[w]) & present_lanes(n, w);
    *nt = n;
    return true;
}

static uint32_t gate_of(const ctx *c, uint32_t br)
{
    uint32_t v;
    bool neg;
    return gsa_branch_gate(c->s, br, &v, &neg) ? v : SSA_NONE;
}


/* ---- divergent-barrier ------------------------------------------------- */

/* A barrier that waits for every thread (no count) at st in block b: the
 * branches that are not uniform across the block and let threads go round
 * it, where those threads then wait elsewhere. */
static void barrier_skipped(ctx *c, uint32_t st, uint32_t b, const bar_form *bf)
{
    const cfg *g = c->g;
    uint32_t *ctl = malloc(sizeof *ctl * (g->nblocks + 1));
    if (!ctl) abort();
    uint32_t nc = controls(c, b, ctl), ndiv = 0;
    for (uint32_t i = 0; i < nc; i++)
        if (div_branch(block_level(c), ctl[i]) != DIV_UNIFORM) ctl[ndiv++] = ctl[i];
    if (!ndiv) {
        free(ctl);
        return;
    }
    reaching(c, b);
    uint32_t reach_epoch = c->epoch;
    sync_finding best = {0};
    bool have = false;
    for (uint32_t i = 0; i < ndiv; i++) {
        uint32_t br = ctl[i];
        const cfg_block *bb = &g->blocks[br];
        uint32_t t0[32], nt = 0;
        bool known = bb->nsucc == 2 && taken(c, br, t0, &nt);
        if (known && !c->r->shape_assumed) {
            /* at a known shape, a branch every thread of the block takes the same way splits nothing */
            bool all = true, none = true;
            for (uint32_t t = 0; t < nt; t++) {
                bool x = t0[t / 32] >> (t % 32) & 1;
                all &= x, none &= !x;
            }
            if (all || none) continue;
        }
        bool warp_split = div_branch(c->r, br) != DIV_UNIFORM;
        /* lanes of a split warp that go round it wait where their warp reconverges */
        uint32_t wait = bf->aligned && warp_split ? reconvergence(c, br) : NONE;
        /* threads that go round it and meet another barrier */
        uint32_t other = NONE;
        bool all_meet = true;
        for (uint32_t k = 0; k < bb->nsucc; k++) {
            bool exits;
            uint32_t m = meets(c, bb->succ[k], b, &exits);
            if (m != NONE && (other == NONE || m < other)) other = m;
            if (c->reach[bb->succ[k]] != reach_epoch && exits) all_meet = false;
        }
        if (!bf->aligned) other = NONE; /* barrier.sync: any barrier instruction of the same id will do */
        if (wait == NONE && other == NONE) continue;
        sync_finding f = {.stmt = st, .rule = SYNC_BARRIER, .kind = SYNC_K_SKIPPED, .branch = bb->term,
                          .other = other != NONE ? other : wait, .reconv = other == NONE, .value = gate_of(c, br)};
        /* proven: the threads of the block known lane by lane, some on
         * each side, the one side reaching the barrier and the other not,
         * no other branch that is not block-uniform around it, and the
         * threads that go round it certainly waiting (in a split warp, or
         * meeting a barrier on every path) */
        if (ndiv == 1 && known &&
            (c->reach[bb->succ[0]] == reach_epoch) != (c->reach[bb->succ[1]] == reach_epoch)) {
            uint32_t *skip = arena_alloc(c->a, 32 * sizeof *skip), n = 0;
            bool s0 = c->reach[bb->succ[0]] != reach_epoch;
            for (uint32_t w = 0; w < 32; w++) {
                skip[w] = (s0 ? t0[w] : ~t0[w]) & present_lanes(nt, w);
                n += skip[w] != 0;
            }
            bool split_warp = false, some_stay = false;
            for (uint32_t w = 0; w * 32 < nt; w++) {
                uint32_t present = present_lanes(nt, w);
                if (skip[w] && skip[w] != present) split_warp = true;
                if (skip[w] != present) some_stay = true;
            }
            bool certain = f.reconv ? split_warp : all_meet;
            if (n && some_stay && certain) {
                f.proven = true;
                f.threads = skip;
                f.nthreads = nt;
            }
        }
        if (!have || (f.proven && !best.proven)) best = f, have = true;
    }
    free(ctl);
    if (!have) return;
    sync_finding *f = add(c, st, SYNC_BARRIER, SYNC_K_SKIPPED);
    *f = best;
}

/* The id and count of every barrier, and the same id with two counts. */
static void barrier_operands(ctx *c, uint32_t st, const bar_form *bf, uint32_t first_bar)
{
    bool known;
    int64_t x;
    uint32_t v = opd_value(c, st, (unsigned)bf->id, &known, &x);
    if (!cta_uniform(c, v)) {
        sync_finding *f = add(c, st, SYNC_BARRIER, SYNC_K_ID);
        f->value = v;
        return;
    }
    if (bf->cnt < 0) return;
    int64_t id = known ? x : -1;
    v = opd_value(c, st, (unsigned)bf->cnt, &known, &x);
    if (!known) {
        /* a count the same in every thread whose low 5 bits are known 0 is a multiple of 32 */
        wform wf;
        bool m32 = v != SSA_NONE && cta_uniform(c, v) && div_warp_form(c->r, v, &wf) && wf.k >= 5 && !(wf.r & 31);
        if (!m32) {
            sync_finding *f = add(c, st, SYNC_BARRIER, SYNC_K_COUNT);
            f->value = v;
        }
        return;
    }
    const div_result *r = c->r;
    uint64_t nt = r->shape_assumed ? 0 : (uint64_t)r->block[0] * (r->block[1] ? r->block[1] : 1) *
                                              (r->block[2] ? r->block[2] : 1);
    if (nt && x > (int64_t)nt) {
        sync_finding *f = add(c, st, SYNC_BARRIER, SYNC_K_COUNT_BIG);
        f->proven = true, f->count = x;
        return;
    }
    if (id < 0) return;
    /* another barrier of the same constant id with another constant count
     * (each of the two is a finding: which one the others meet depends on
     * the schedule) */
    const ptx_func *fn = c->pf->fn;
    for (uint32_t i = first_bar; i < fn->nstmts; i++) {
        if (i == st) continue;
        if (fn->stmts[i]->kind != PTX_S_INST || c->g->stmt_block[i] == CFG_NONE ||
            !c->g->blocks[c->g->stmt_block[i]].reachable)
            continue;
        bar_form of;
        if (!cta_barrier(&fn->stmts[i]->u.inst, &of) || of.cnt < 0) continue;
        bool k1, k2;
        int64_t id2, cnt2;
        opd_value(c, i, (unsigned)of.id, &k1, &id2);
        opd_value(c, i, (unsigned)of.cnt, &k2, &cnt2);
        if (k1 && k2 && id2 == id && cnt2 != x) {
            sync_finding *f = add(c, st, SYNC_BARRIER, SYNC_K_COUNTS);
            f->other = i, f->count = x, f->count2 = cnt2;
            return;
        }
    }
}

/* ---- divergent-collective ---------------------------------------------- */

/* Whether the gate of branch br is a warp vote (vote.sync.any/all/uni)
 * over member mask value mv: every lane of that mask goes the same way
 * (a cooperative group's tile.any()). */
static bool vote_over(const ctx *c, uint32_t br, uint32_t mv)
{
    uint32_t v = gate_of(c, br);
    if (v == SSA_NONE || mv == SSA_NONE) return false;
    const ssa_value *val = &c->s->values[v];
    if (val->kind != SSA_V_INST || val->partial) return false;
    const ptx_inst *d = &c->pf->fn->stmts[val->stmt]->u.inst;
    if (d->op != PTX_OPC_VOTE || ptx_inst_has_mod(d, ".ballot") || d->nopd < 3) return false;
    return ssa_use_value(c->s, val->stmt, d->nopd - 1) == mv;
}

/* What the branches around the collective at st in block b say of its
 * lanes. */
typedef struct lanes_at {
    bool known;      /* ex and gone are exact */
    bool maybe_gone; /* a branch whose other side exits is not known lane by lane */
    uint32_t ndiv;   /* branches (and a guard) that may split a warp (a warpgroup) around it */
    uint32_t first;  /* the innermost such branch (a block), NONE for none or the guard */
    uint32_t ex[32], gone[32]; /* the threads that execute it; those that exited on the way */
} lanes_at;

/* The branches that split warps around it, and its guard, lane by lane.
 * A branch whose other side exits only removes lanes (they exited: no
 * collective waits for them); one on a vote over the collective's own mask
 * keeps that mask's lanes together.  group: a warpgroup's instruction, which
 * only a branch that is the same in every thread of the block (block
 * granularity: the one analysis that sees past a warp) leaves alone; its
 * lanes are known only with the whole block's threads (a shape given). */
static void executing(ctx *c, uint32_t st, uint32_t b, uint32_t mv, bool group, lanes_at *L)
{
    const cfg *g = c->g;
    uint32_t *ctl = malloc(sizeof *ctl * (g->nblocks + 1)), t[32];
    if (!ctl) abort();
    uint32_t nc = controls(c, b, ctl);
    reaching(c, b);
    uint32_t reach_epoch = c->epoch;
    L->known = c->nthreads != 0 && (!group || !c->r->shape_assumed), L->maybe_gone = false;
    for (uint32_t w = 0; w < 32; w++) L->ex[w] = present_lanes(c->nthreads, w), L->gone[w] = 0;
    L->ndiv = 0, L->first = NONE;
    for (uint32_t i = 0; i < nc; i++) {
        uint32_t br = ctl[i];
        const cfg_block *bb = &g->blocks[br];
        if (group ? div_branch(block_level(c), br) == DIV_UNIFORM
                  : div_branch(c->r, br) == DIV_UNIFORM || vote_over(c, br, mv)) {
            /* whole warps go either way (or the mask's lanes together): the
             * lanes are those of a warp that gets there */
            continue;
        }
        bool r0 = c->reach[bb->succ[0]] == reach_epoch, r1 = bb->nsucc == 2 && c->reach[bb->succ[1]] == reach_epoch;
        bool exits = bb->nsucc == 2 && r0 != r1 && just_exits(c, bb->succ[r0 ? 1 : 0]);
        uint32_t nt;
        bool k = bb->nsucc == 2 && r0 != r1 && L->known && taken(c, br, t, &nt);
        if (exits) {
            if (!k) L->maybe_gone = true;
            else
                for (uint32_t w = 0; w < 32; w++) {
                    uint32_t out = r0 ? ~t[w] : t[w];
                    L->gone[w] |= L->ex[w] & out;
                    L->ex[w] &= ~out;
                }
            continue;
        }
        if (L->ndiv++ == 0) L->first = br;
        if (!k) L->known = false;
        else
            for (uint32_t w = 0; w < 32; w++) L->ex[w] &= r0 ? t[w] : ~t[w];
    }
    free(ctl);
    /* its own guard */
    uint32_t gv = ssa_guard_value(c->s, st);
    if (gv != SSA_NONE && (group ? !cta_uniform(c, gv) : c->r->state[gv] != DIV_UNIFORM)) {
        L->ndiv++;
        if (L->known && pred_threads(c, gv, t)) {
            bool neg = c->pf->fn->stmts[st]->u.inst.guard_neg;
            for (uint32_t w = 0; w < 32; w++) L->ex[w] &= neg ? ~t[w] : t[w];
        } else
            L->known = false;
    }
}

/* The member mask of the collective at st, warp by warp (m[w]), when known:
 * a constant, or a ballot (vote.sync.ballot) of a predicate known lane by
 * lane.  *active: it is activemask's result (the lanes that execute it).
 * Its value into *v. */
static bool mask_of(ctx *c, uint32_t st, uint32_t m[32], bool *active, uint32_t *v)
{
    const ptx_inst *in = &c->pf->fn->stmts[st]->u.inst;
    bool known;
    int64_t x;
    *active = false;
    if (!warp_collective(in)) { /* .aligned: the whole warp */
        *v = SSA_NONE;
        memset(m, 0xff, 32 * sizeof *m);
        return true;
    }
    *v = opd_value(c, st, in->nopd - 1, &known, &x);
    if (known) {
        for (uint32_t w = 0; w < 32; w++) m[w] = (uint32_t)x;
        return true;
    }
    if (*v == SSA_NONE) return false;
    const ssa_value *val = &c->s->values[*v];
    if (val->kind != SSA_V_INST || val->partial) return false;
    const ptx_inst *d = &c->pf->fn->stmts[val->stmt]->u.inst;
    if (d->op == PTX_OPC_ACTIVEMASK) { *active = true; return false; }
    if (d->op != PTX_OPC_VOTE || !ptx_inst_has_mod(d, ".ballot") || d->nopd < 2 || d->opd[1].neg) return false;
    uint32_t p = ssa_use_value(c->s, val->stmt, 1), t[32];
    if (p == SSA_NONE || !pred_threads(c, p, t)) return false;
    for (uint32_t w = 0; w < 32; w++) m[w] = t[w];
    return true;
}

/* A warpgroup's instruction that no branch splits a warp around: whether
 * the four warps of a warpgroup, known thread by thread at the shape given,
 * disagree.  Found only when proven: with the threads not known, what
 * keeps a warpgroup together (threadIdx.x / 128, or CUTLASS's shuffle of
 * it) is beyond the warp-granular domain, and a possible finding on every
 * warp-specialised kernel would be noise (docs/check.md says so). */
static void warpgroup_split(ctx *c, uint32_t st, uint32_t b)
{
    lanes_at L;
    executing(c, st, b, SSA_NONE, true, &L);
    if (!L.known || !L.ndiv) return;
    uint32_t wait = L.first == NONE ? NONE : reconvergence(c, L.first);
    for (uint32_t w = 0; w * 32 < c->nthreads; w++) {
        uint32_t g = w & ~3u, absent = present_lanes(c->nthreads, w) & ~L.gone[w] & ~L.ex[w];
        if (!absent || !(L.ex[g] | L.ex[g + 1] | L.ex[g + 2] | L.ex[g + 3]) || wait == NONE) continue;
        sync_finding *f = add(c, st, SYNC_COLLECTIVE, SYNC_K_ALIGNED);
        f->proven = !L.maybe_gone, f->group = true;
        f->warp = w, f->lanes = absent, f->mask = ~0u;
        f->branch = L.first == NONE ? NONE : c->g->blocks[L.first].term;
        f->other = wait;
        return;
    }
}

static void collective(ctx *c, uint32_t st, uint32_t b)
{
    uint32_t m[32], v;
    bool active;
    bool mk = mask_of(c, st, m, &active, &v);
    if (active) return;
    const ptx_inst *in = &c->pf->fn->stmts[st]->u.inst;
    bool aligned = !warp_collective(in);
    lanes_at L;
    executing(c, st, b, v, false, &L);
    if (!L.known || !mk) {
        if (!L.ndiv) { /* no branch splits the warp around it: every live lane executes it */
            if (warpgroup_aligned(in)) warpgroup_split(c, st, b);
            return;
        }
        sync_finding *f = add(c, st, SYNC_COLLECTIVE, aligned ? SYNC_K_ALIGNED : SYNC_K_MASK);
        f->branch = L.first == NONE ? NONE : c->g->blocks[L.first].term;
        f->value = L.known ? v : L.first == NONE ? ssa_guard_value(c->s, st) : gate_of(c, L.first);
        return;
    }
    /* lanes that go round it wait where their warp reconverges, unless
     * they only go on to exit: the innermost branch that splits warps */
    uint32_t wait = L.first == NONE ? NONE : reconvergence(c, L.first);
    for (uint32_t w = 0; w * 32 < c->nthreads; w++) {
        uint32_t present = present_lanes(c->nthreads, w) & ~L.gone[w];
        if (!L.ex[w]) continue;
        uint32_t out = L.ex[w] & ~m[w], absent = m[w] & present & ~L.ex[w];
        if (!out && (!absent || (wait == NONE && L.ndiv))) continue;
        sync_finding *f = add(c, st, SYNC_COLLECTIVE, out ? SYNC_K_NOT_NAMED : aligned ? SYNC_K_ALIGNED : SYNC_K_ABSENT);
        /* lanes that may have exited on the way, not known which: not proven */
        f->proven = !L.maybe_gone;
        f->warp = w, f->lanes = out ? out : absent, f->mask = m[w];
        f->branch = L.first == NONE ? NONE : c->g->blocks[L.first].term;
        f->other = wait, f->reconv = wait != NONE;
        return;
    }
    if (warpgroup_aligned(in)) warpgroup_split(c, st, b); /* every warp whole: the warpgroup may still split */
}

uint32_t sync_check(const prog_func *pf, const div_result *r, const addr_chain *chain, arena *a, sync_finding **out)
{
    const ptx_func *fn = pf->fn;
    const cfg *g = pf->g;
    *out = NULL;
    /* the blocks' barriers first: one pass, and nothing more without one */
    uint32_t *bar = NULL, nsync = 0, first_bar = NONE, *list = NULL;
    for (uint32_t b = 0; b < g->nblocks; b++) {
        const cfg_block *bb = &g->blocks[b];
        if (!bb->reachable || bb->kind != CFG_B_REAL) continue;
        for (uint32_t i = bb->first; i < bb->end; i++) {
            if (fn->stmts[i]->kind != PTX_S_INST) continue;
            const ptx_inst *in = &fn->stmts[i]->u.inst;
            switch (in->op) { /* the opcodes of both (a switch: this pass sees every instruction) */
            case PTX_OPC_BAR: case PTX_OPC_BARRIER: case PTX_OPC_SHFL: case PTX_OPC_VOTE: case PTX_OPC_MATCH:
            case PTX_OPC_REDUX: case PTX_OPC_ELECT:
                break;
            default:
                if (!warp_aligned(in, &pf->ssa->sem[i])) continue;
            }
            bar_form bf;
            bool isbar = cta_barrier(in, &bf);
            if (!isbar && !warp_collective(in) && !warp_aligned(in, &pf->ssa->sem[i])) continue;
            if (!bar) {
                bar = malloc(sizeof *bar * g->nblocks);
                list = malloc(sizeof *list * fn->nstmts);
                if (!bar || !list) abort();
                memset(bar, 0xff, sizeof *bar * g->nblocks);
            }
            list[nsync++] = i;
            if (isbar && first_bar == NONE) first_bar = i;
            if (isbar && !bf.arrive && bf.cnt < 0 && bar[b] == NONE) bar[b] = i;
        }
    }
    if (!nsync) return 0;
    ctx c = {.pf = pf, .g = g, .s = pf->ssa, .r = r, .chain = chain, .a = a, .bar = bar};
    c.cta_opts.cta = true;
    if (!r->shape_assumed) memcpy(c.cta_opts.block, r->block, sizeof c.cta_opts.block);
    c.seen = calloc(g->nblocks + 1, sizeof *c.seen);
    c.reach = calloc(g->nblocks + 1, sizeof *c.reach);
    c.stack = malloc(sizeof *c.stack * (g->nblocks + 1));
    if (!c.seen || !c.reach || !c.stack) abort();
    c.nthreads = 0;
    if (div_has_coefs(r)) {
        /* the threads div_pred_threads knows: the block's, or warp 0's at the default assumption */
        uint64_t n = r->shape_assumed ? 32 : (uint64_t)r->block[0] * (r->block[1] ? r->block[1] : 1) *
                                                 (r->block[2] ? r->block[2] : 1);
        c.nthreads = n && n <= 1024 ? (uint32_t)n : 0;
    }
    /* in statement order: the real blocks are in program order */
    for (uint32_t k = 0; k < nsync; k++) {
        uint32_t i = list[k], b = g->stmt_block[i];
        const ptx_inst *in = &fn->stmts[i]->u.inst;
        bar_form bf;
        if (cta_barrier(in, &bf)) {
            uint32_t before = c.n;
            barrier_operands(&c, i, &bf, first_bar);
            if (c.n == before && !bf.arrive && bf.cnt < 0) barrier_skipped(&c, i, b, &bf);
        } else
            collective(&c, i, b); /* with a member mask, or .aligned: the whole warp */
    }
    free(c.seen);
    free(c.reach);
    free(c.stack);
    free(bar);
    free(list);
    if (c.n) {
        *out = arena_alloc(a, sizeof **out * c.n);
        memcpy(*out, c.v, sizeof **out * c.n);
    }
    free(c.v);
    return c.n;
}

void sync_threads_text(const uint32_t *t, uint32_t n, uint32_t x, uint32_t y, char *buf, size_t len)
{
    uint32_t bx = x ? x : 1, by = y ? y : 1, total = 0, runs = 0;
    size_t k = 0;
    char tmp[128];
    buf[0] = 0;
    for (uint32_t i = 0; i < n; i++) total += (t[i / 32] >> (i % 32)) & 1;
    for (uint32_t i = 0; i < n;) {
        if (!((t[i / 32] >> (i % 32)) & 1)) { i++; continue; }
        uint32_t j = i;
        while (j + 1 < n && ((t[(j + 1) / 32] >> ((j + 1) % 32)) & 1) && (j + 1) % bx) j++;
        if (runs == 6) {
            snprintf(tmp, sizeof tmp, ", ... (%u threads in all)", total);
            if (k + strlen(tmp) < len) { memcpy(buf + k, tmp, strlen(tmp) + 1); k += strlen(tmp); }
            break;
        }
        uint32_t yy = (i / bx) % by, z = i / (bx * by);
        if (j > i) snprintf(tmp, sizeof tmp, "%s(%u..%u,%u,%u)", runs ? ", " : total == 1 ? "thread " : "threads ",
                            i % bx, j % bx, yy, z);
        else snprintf(tmp, sizeof tmp, "%s(%u,%u,%u)", runs ? ", " : total == 1 ? "thread " : "threads ", i % bx, yy, z);
        size_t L = strlen(tmp);
        if (k + L < len) { memcpy(buf + k, tmp, L + 1); k += L; }
        runs++;
        i = j + 1;
    }
}
