/* --synccheck: barriers and warp collectives whose threads do not arrive
 * as the PTX ISA requires (the oracle of the static rules of the same
 * names, issue 36).  Two rules:
 *
 * divergent-barrier.  The ISA (bar, barrier): "barrier{.cta} instruction
 * causes executing thread to wait for all non-exited threads from its
 * warp"; .aligned: "When specified, it indicates that all threads in CTA
 * will execute the same barrier{.cta} instruction.  In conditionally
 * executed code, an aligned barrier{.cta} instruction should only be used
 * if it is known that all threads in CTA evaluate the condition
 * identically, otherwise behavior is undefined"; "Different warps may
 * execute different forms of the barrier{.cta} instruction using the same
 * barrier name and thread count.  One example mixes barrier{.cta}.sync and
 * barrier{.cta}.arrive to implement producer/consumer models"; bar{.cta}.sync
 * is barrier{.cta}.sync.aligned; "when specifying a thread count, the value
 * must be a multiple of the warp size"; exit: "Barriers exclusively waiting
 * on arrivals from exited threads are always released".  Reported: an .aligned barrier
 * executed by part of a warp while other live lanes of it arrive at
 * another barrier instruction, arrive separately, or run on past the
 * branch's reconvergence point (lockstep; a lane that only goes on to exit
 * is an exited thread, as the ISA counts it, so `if (i >= n) return;`
 * before a barrier is legal); one barrier instance completed by two
 * different .aligned barrier instructions; thread counts that differ
 * between the lanes of a warp or between arrivals, or are not a positive
 * multiple of 32; threads waiting forever at a barrier (a deadlock), with
 * where each missing thread is.
 *
 * divergent-collective.  The ISA (shfl.sync, vote.sync, match.sync,
 * redux.sync, elect.sync): the instruction "will cause executing thread to
 * wait until all non-exited threads corresponding to membermask have
 * executed" it "with the same qualifiers and same membermask value";
 * bar.warp.sync, without the exited-thread exception: "will cause
 * executing thread to wait until all threads corresponding to membermask
 * have executed a bar.warp.sync with the same membermask value"; all of
 * them: "the behavior ... is undefined if the executing thread is not in
 * the membermask".  Reported: an executing lane not in
 * its own member mask; a member lane, live when the others began to wait,
 * that skipped the collective and ran on past the reconvergence point
 * before exiting (lockstep); lanes waiting forever for member lanes that
 * never execute it (a deadlock).
 *
 * Under --schedule its a group of lanes that skips a barrier or
 * collective and runs on to its exit looks like an early exit (groups do
 * not reconverge there), so that case is found under lockstep only; the
 * others under both.  One report per rule, kind and PTX instruction, with
 * its first block and warp and how many times it happened. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include "emu_internal.h"
#include "sync_rules.h"

enum { SC_RULE_BAR, SC_RULE_COLL };
static const char *const rule_name[] = {"divergent-barrier", "divergent-collective"};
enum { SK_BAR_PARTIAL, SK_BAR_TWO, SK_BAR_COUNT_DIFF, SK_BAR_COUNT_BAD, SK_BAR_DEADLOCK, SK_COLL_SELF,
       SK_COLL_SKIPPED, SK_COLL_DEADLOCK, SK_COLL_EXITED };
static const char *const kind_name[] = {"partial-warp", "different-instructions", "different-counts", "bad-count",
                                        "deadlock", "lane-not-in-mask", "skipped", "deadlock",
                                        "exited"};
/* where threads that should have taken part were */
enum { SW_EXITED, SW_BAR, SW_SEPARATE, SW_COLL, SW_GUARD, SW_RECONV, SW_RUN, SW_RAN, SW_COUNT, SW_ELSEWHERE };

#define SC_MAX 1024u
#define SC_GROUPS 8u
#define SC_WORDS 32u /* 1024 threads */

typedef struct sc_group {
    uint8_t where; /* SW_* */
    const efunc *f;
    uint32_t pc;
    uint32_t t[SC_WORDS];
} sc_group;

struct sync_report {
    uint8_t rule, kind;
    const efunc *f;
    const einst *I;
    emu_dim3 blk;
    uint32_t warp; /* UINT32_MAX: the block */
    uint32_t id, a, b; /* barrier id; counts or member mask */
    uint32_t present[SC_WORDS];
    sc_group g[SC_GROUPS];
    uint32_t ng;
    uint64_t count;
};

struct sync_state {
    struct sync_report *r;
    uint32_t n, cap;
    uint64_t dropped;
};

struct sync_arrivals {
    const einst **i[16];
    const efunc **f[16];
};

static struct sync_report *sc_new(emu_machine *M, unsigned rule, unsigned kind, const efunc *f, const einst *I,
                                  const block *b, uint32_t warp)
{
    struct sync_state *S = M->sync;
    for (uint32_t k = 0; k < S->n; k++)
        if (S->r[k].rule == rule && S->r[k].kind == kind && S->r[k].I == I) {
            S->r[k].count++;
            return NULL;
        }
    if (S->n == S->cap) {
        if (S->cap == SC_MAX) {
            S->dropped++;
            return NULL;
        }
        uint32_t nc = S->cap ? S->cap * 2 : 8;
        struct sync_report *nr = realloc(S->r, nc * sizeof *nr);
        if (!nr) return NULL;
        S->r = nr;
        S->cap = nc;
    }
    struct sync_report *r = &S->r[S->n++];
    memset(r, 0, sizeof *r);
    r->rule = (uint8_t)rule;
    r->kind = (uint8_t)kind;
    r->f = f;
    r->I = I;
    r->blk = b->id;
    r->warp = warp;
    r->count = 1;
    return r;
}

static void set_lanes(uint32_t *t, const warp *w, uint32_t lanes)
{
    FOR_LANES(lanes, l, {
        uint32_t id = w->id * 32 + l;
        if (id < SC_WORDS * 32) t[id / 32] |= 1u << (id % 32);
    });
}

/* Adds lanes of w to the report's group for (where, f, pc). */
static void add_where(struct sync_report *r, const warp *w, uint32_t lanes, unsigned where, const efunc *f,
                      uint32_t pc)
{
    if (!r || !lanes) return;
    uint32_t k = 0;
    while (k < r->ng && !(r->g[k].where == where && r->g[k].f == f && r->g[k].pc == pc)) k++;
    if (k == r->ng) {
        /* the last group takes what more groups would list, as "elsewhere" */
        if (r->ng == SC_GROUPS - 1 && where != SW_ELSEWHERE) {
            where = SW_ELSEWHERE;
            f = NULL;
            pc = 0;
        }
        if (r->ng == SC_GROUPS) k = SC_GROUPS - 1;
        else {
            r->ng++;
            r->g[k].where = (uint8_t)where;
            r->g[k].f = f;
            r->g[k].pc = pc;
        }
    }
    set_lanes(r->g[k].t, w, lanes);
}

/* Where the lanes of w are now, added to r: at a barrier, at a collective,
 * running, waiting at a reconvergence point, exited. */
static void classify(struct sync_report *r, const warp *w, uint32_t lanes)
{
    uint32_t gone = lanes & w->exited;
    add_where(r, w, gone, SW_EXITED, NULL, 0);
    lanes &= ~gone;
    /* the innermost entry holding a lane: entries waiting for children
     * (E_WAIT) last */
    for (int pass = 0; pass < 2 && lanes; pass++)
        for (uint32_t i = 0; i < w->ne && lanes; i++) {
            const sentry *e = &w->e[i];
            if (e->state == E_FREE || (e->state == E_WAIT) != (pass == 1)) continue;
            uint32_t here = e->mask & lanes;
            if (!here) continue;
            lanes &= ~here;
            switch (e->state) {
            case E_BAR:
                add_where(r, w, here & e->cmask, SW_BAR, e->f->fn, e->pc);
                add_where(r, w, here & ~e->cmask, SW_GUARD, e->f->fn, e->pc);
                break;
            case E_COLL:
                add_where(r, w, here & e->cmask, SW_COLL, e->f->fn, e->pc);
                add_where(r, w, here & ~e->cmask, SW_GUARD, e->f->fn, e->pc);
                break;
            case E_WAIT: add_where(r, w, here, SW_RECONV, e->f->fn, e->pc); break;
            default: add_where(r, w, here, SW_RUN, e->f->fn, e->pc); break;
            }
        }
    add_where(r, w, lanes, SW_ELSEWHERE, NULL, 0);
}

void emu_sync_reset(emu_machine *M)
{
    if (!M->sync) M->sync = calloc(1, sizeof *M->sync);
    if (M->sync) {
        M->sync->n = 0;
        M->sync->dropped = 0;
    }
}

void emu_sync_free(emu_machine *M)
{
    if (!M->sync) return;
    free(M->sync->r);
    free(M->sync);
    M->sync = NULL;
}

void emu_sync_block_free(block *b)
{
    if (!b->sc) return;
    for (unsigned id = 0; id < 16; id++) {
        free(b->sc->i[id]);
        free(b->sc->f[id]);
    }
    free(b->sc);
    b->sc = NULL;
}

uint32_t emu_sync_n(const emu_machine *M) { return M->sync ? M->sync->n : 0; }
uint64_t emu_sync_count(const emu_machine *M) { return emu_sync_n(M); }

/* ---- barriers ----------------------------------------------------------------------------- */
void emu_sync_bar_badcount(emu_exec *x, const einst *I, unsigned id, uint64_t cnt)
{
    struct sync_report *r = sc_new(x->M, SC_RULE_BAR, SK_BAR_COUNT_BAD, x->f->fn, I, x->b, x->w->id);
    if (!r) return;
    r->id = id;
    r->a = (uint32_t)cnt;
    set_lanes(r->present, x->w, x->path_mask);
}

void emu_sync_bar_arrive(emu_exec *x, const einst *I, unsigned id, uint32_t m)
{
    emu_machine *M = x->M;
    warp *w = x->w;
    block *b = x->b;
    const efunc *F = x->f->fn;
    if (!b->sc) b->sc = calloc(1, sizeof *b->sc);
    if (!b->sc) return;
    if (!b->sc->i[id]) {
        b->sc->i[id] = calloc(M->threads_per_block, sizeof *b->sc->i[id]);
        b->sc->f[id] = calloc(M->threads_per_block, sizeof *b->sc->f[id]);
        if (!b->sc->i[id] || !b->sc->f[id]) return;
    }
    FOR_LANES(m, l, {
        uint32_t t = w->id * 32 + l;
        if (t < M->threads_per_block) {
            b->sc->i[id][t] = I;
            b->sc->f[id][t] = F;
        }
    });
    if (I->flags & EI_HASCOUNT) {
        /* every lane and every arrival names the same count */
        const uint64_t *C = REG(x, I->s[1]);
        unsigned l0 = (unsigned)__builtin_ctz(m);
        uint32_t other = 0, c0 = (uint32_t)C[l0], c1 = c0;
        FOR_LANES(m, l, if ((uint32_t)C[l] != c0) { other |= 1u << l; c1 = (uint32_t)C[l]; });
        uint32_t prev = b->bar_expect[id] * 32;
        if (other || (prev && prev != c0)) {
            struct sync_report *r = sc_new(M, SC_RULE_BAR, SK_BAR_COUNT_DIFF, F, I, b, w->id);
            if (r) {
                r->id = id;
                r->a = c0;
                r->b = other ? c1 : prev;
                set_lanes(r->present, w, m & ~other);
                if (other) add_where(r, w, other, SW_COUNT, F, (uint32_t)(I - F->code));
            }
        }
    }
    if (!(I->flags & EI_ALIGNED)) return;
    /* .aligned: the warp's live lanes execute it together */
    uint32_t live = w->lanes & ~w->exited;
    if (w->sc_part_i[id] == I && M->opt.schedule == EMU_SCHED_ITS) {
        /* ITS: the groups that waited for each other execute it together;
         * lanes that exited without running on past their branch are
         * exited threads */
        w->sc_part_lanes[id] = m;
        w->sc_miss[id] &= ~m;
        if (!(w->sc_miss[id] & ~(w->exited & ~w->sc_ran))) {
            w->sc_part_i[id] = NULL;
            w->sc_miss[id] = 0;
        }
        return;
    }
    if (m == live || w->sc_part_i[id]) return;
    w->sc_part_i[id] = I;
    w->sc_part_f[id] = F;
    w->sc_part_lanes[id] = m;
    w->sc_miss[id] = live & ~m;
}

void emu_sync_bar_wait(emu_exec *x, const einst *I, unsigned id, uint32_t here, uint32_t live)
{
    warp *w = x->w;
    if (w->sc_part_i[id] || !(live & ~here)) return;
    w->sc_part_i[id] = I;
    w->sc_part_f[id] = x->f->fn;
    w->sc_part_lanes[id] = here;
    w->sc_miss[id] = live & ~here;
}

/* Before barrier id of b completes: the aligned barriers executed by part
 * of a warp, and an instance completed by different aligned instructions. */
void emu_sync_bar_release(emu_machine *M, block *b, unsigned id)
{
    struct sync_arrivals *A = b->sc;
    const einst **ai = A ? A->i[id] : NULL;
    const efunc **af = A ? A->f[id] : NULL;
    bool reported = false;
    for (uint32_t k = 0; k < b->nwarps; k++) {
        warp *w = &b->warps[k];
        const einst *I = w->sc_part_i[id];
        if (!I) continue;
        uint32_t miss = w->sc_miss[id];
        /* lanes that exited without running on past the branch are exited
         * threads, which the barrier does not wait for */
        uint32_t bad = 0, sep = 0, other = 0;
        FOR_LANES(miss, l, {
            uint32_t t = w->id * 32 + l;
            const einst *J = ai && t < M->threads_per_block ? ai[t] : NULL;
            if (J == I) sep |= 1u << l;
            else if (J) other |= 1u << l;
            else if (!((w->exited >> l) & 1) || ((w->sc_ran >> l) & 1)) bad |= 1u << l;
        });
        if (sep | other | bad) {
            struct sync_report *r = sc_new(M, SC_RULE_BAR, SK_BAR_PARTIAL, w->sc_part_f[id], I, b, w->id);
            reported = true;
            if (r) {
                r->id = id;
                set_lanes(r->present, w, w->sc_part_lanes[id]);
                add_where(r, w, sep, SW_SEPARATE, w->sc_part_f[id], (uint32_t)(I - w->sc_part_f[id]->code));
                FOR_LANES(other, l, {
                    const efunc *g = af[w->id * 32 + l];
                    add_where(r, w, 1u << l, SW_BAR, g, (uint32_t)(ai[w->id * 32 + l] - g->code));
                });
                uint32_t ran = bad & w->exited & w->sc_ran;
                add_where(r, w, ran, SW_RAN, w->sc_ran_f, w->sc_ran_pc);
                classify(r, w, bad & ~ran);
            }
        }
        w->sc_part_i[id] = NULL;
        w->sc_miss[id] = 0;
        w->sc_ran &= ~miss;
        w->sc_passed &= ~miss;
    }
    if (ai && !reported) {
        /* one instance, several instructions: every aligned one is wrong */
        const einst *first = NULL;
        const efunc *ff = NULL;
        /* named barriers with a thread count pair different instructions
         * (bar.arrive by producers, bar.sync by consumers): the ISA's own
         * pattern */
        bool aligned = false, several = false, counted = false;
        for (uint32_t t = 0; t < M->threads_per_block; t++) {
            if (!ai[t]) continue;
            if (!first) { first = ai[t]; ff = af[t]; }
            else if (ai[t] != first) several = true;
            if (ai[t]->flags & EI_ALIGNED) aligned = true;
            if (ai[t]->flags & (EI_HASCOUNT | EI_NOWAIT)) counted = true;
        }
        if (several && aligned && !counted) {
            struct sync_report *r = sc_new(M, SC_RULE_BAR, SK_BAR_TWO, ff, first, b, UINT32_MAX);
            if (r) {
                r->id = id;
                for (uint32_t k = 0; k < b->nwarps; k++) {
                    const warp *w = &b->warps[k];
                    for (unsigned l = 0; l < 32; l++) {
                        uint32_t t = w->id * 32 + l;
                        if (t >= M->threads_per_block || !ai[t]) continue;
                        if (ai[t] == first) set_lanes(r->present, w, 1u << l);
                        else add_where(r, w, 1u << l, SW_BAR, af[t], (uint32_t)(ai[t] - af[t]->code));
                    }
                }
            }
        }
    }
    if (ai) {
        memset(ai, 0, M->threads_per_block * sizeof *ai);
        memset(af, 0, M->threads_per_block * sizeof *af);
    }
}

/* ---- collectives -------------------------------------------------------------------------- */
void emu_sync_coll_self(emu_exec *x, const einst *I, uint32_t m, const uint64_t *MM)
{
    uint32_t out = 0, mm = 0;
    FOR_LANES(m, l, if (!((MM[l] >> l) & 1)) { if (!out) mm = (uint32_t)MM[l]; out |= 1u << l; });
    if (!out) return;
    struct sync_report *r = sc_new(x->M, SC_RULE_COLL, SK_COLL_SELF, x->f->fn, I, x->b, x->w->id);
    if (!r) return;
    r->a = mm;
    set_lanes(r->present, x->w, out);
}

void emu_sync_coll_done(emu_machine *M, block *b, warp *w, const frame *f, const einst *I, uint32_t done,
                        uint32_t lost, uint32_t memb)
{
    /* member lanes that exited without running on past the branch are
     * exited threads, which the collective does not wait for */
    uint32_t ran = lost & w->sc_ran;
    w->sc_passed &= ~lost;
    w->sc_ran &= ~lost;
    if (!ran) return;
    struct sync_report *r = sc_new(M, SC_RULE_COLL, SK_COLL_SKIPPED, f->fn, I, b, w->id);
    if (!r) return;
    r->a = memb;
    set_lanes(r->present, w, done);
    add_where(r, w, ran, SW_RAN, w->sc_ran_f, w->sc_ran_pc);
}

void emu_sync_coll_gone(emu_machine *M, block *b, warp *w, const frame *f, const einst *I, uint32_t waiting,
                        uint32_t gone, uint32_t memb)
{
    struct sync_report *r = sc_new(M, SC_RULE_COLL, SK_COLL_EXITED, f->fn, I, b, w->id);
    if (!r) return;
    r->a = memb;
    set_lanes(r->present, w, waiting);
    add_where(r, w, gone, SW_EXITED, NULL, 0);
}

void emu_sync_unstick(warp *w, uint32_t lanes)
{
    /* lanes some waiting lanes of the warp need */
    uint32_t need = 0;
    for (unsigned id = 0; id < 16; id++) need |= w->sc_miss[id];
    for (uint32_t i = 0; i < w->ne; i++)
        if (w->e[i].state == E_COLL) need |= w->e[i].cmem & ~w->e[i].cmask;
    w->sc_passed |= lanes & need;
}

/* ---- deadlocks ---------------------------------------------------------------------------- */
void emu_sync_deadlock(emu_machine *M, block *b, warp *w, const sentry *e)
{
    if (e->state == E_COLL) {
        struct sync_report *r = sc_new(M, SC_RULE_COLL, SK_COLL_DEADLOCK, e->f->fn, e->coll, b, w->id);
        if (!r) return;
        r->a = e->cmem | e->cmask;
        set_lanes(r->present, w, e->cmask);
        classify(r, w, e->cmem & ~e->cmask);
        return;
    }
    const einst *I = &e->f->fn->code[e->pc];
    uint32_t missing = 0;
    for (uint32_t k = 0; k < b->nwarps; k++) {
        const warp *v = &b->warps[k];
        uint32_t here = 0;
        for (uint32_t i = 0; i < v->ne; i++)
            if (v->e[i].state == E_BAR && v->e[i].f->fn == e->f->fn && v->e[i].pc == e->pc) here |= v->e[i].cmask;
        missing |= v->lanes & ~v->exited & ~here;
    }
    if (!missing) return; /* all there: a count that asks for more (reported at the arrival) */
    struct sync_report *r = sc_new(M, SC_RULE_BAR, SK_BAR_DEADLOCK, e->f->fn, I, b, w->id);
    if (!r) return;
    r->id = e->bar_id;
    r->a = b->bar_expect[e->bar_id] * 32;
    /* waiting: the lanes at this instruction; the others of the block that
     * have not exited are missing */
    for (uint32_t k = 0; k < b->nwarps; k++) {
        const warp *v = &b->warps[k];
        uint32_t here = 0;
        for (uint32_t i = 0; i < v->ne; i++)
            if (v->e[i].state == E_BAR && v->e[i].f->fn == e->f->fn && v->e[i].pc == e->pc) here |= v->e[i].cmask;
        set_lanes(r->present, v, here);
        classify(r, v, v->lanes & ~v->exited & ~here);
    }
}

/* ---- reports ------------------------------------------------------------------------------ */
/* "threads (0..15,0,0), (32..47,0,0)": the one writer of thread sets
 * (analyses/sync_rules.h), which the static rules' messages use too */
static void fmt_threads(const emu_machine *M, const uint32_t *t, char *buf, size_t n)
{
    uint32_t nt = M->threads_per_block < SC_WORDS * 32 ? M->threads_per_block : SC_WORDS * 32;
    sync_threads_text(t, nt, M->blockdim.x, M->blockdim.y, buf, n);
}

static void src_of(const emu_srcmap *sm, const efunc *f, uint32_t pc, char *buf, size_t n)
{
    buf[0] = 0;
    if (sm && sm->src && f && pc < f->ncode) sm->src(sm->ctx, f->fn, f->code[pc].stmt, buf, n);
}

/* "at the barrier at line 40 (k.cu:9)" */
static void fmt_where(const sc_group *g, const emu_srcmap *sm, char *buf, size_t n)
{
    uint32_t line = g->f && g->pc < g->f->ncode ? emu_inst_loc(g->f, &g->f->code[g->pc]).line : 0;
    char src[300], at[360];
    src_of(sm, g->f, g->pc, src, sizeof src);
    if (src[0]) snprintf(at, sizeof at, "line %u (%s)", line, src);
    else snprintf(at, sizeof at, "line %u", line);
    switch (g->where) {
    case SW_EXITED: snprintf(buf, n, "exited"); break;
    case SW_BAR: snprintf(buf, n, "at the barrier at %s", at); break;
    case SW_SEPARATE: snprintf(buf, n, "executed it apart from them (the warp was not converged)"); break;
    case SW_COLL: snprintf(buf, n, "waiting at the collective at %s", at); break;
    case SW_GUARD: snprintf(buf, n, "at %s with its guard predicate false", at); break;
    case SW_RECONV: snprintf(buf, n, "waiting at %s for the rest of their warp", at); break;
    case SW_RUN: snprintf(buf, n, "still running, at %s", at); break;
    case SW_RAN: snprintf(buf, n, "skipped it, ran on to %s and exited while the others waited", at); break;
    case SW_COUNT: snprintf(buf, n, "executed it with another thread count"); break;
    default: snprintf(buf, n, "elsewhere (at more places than this report lists)"); break;
    }
}

static void fmt_head(const emu_machine *M, const struct sync_report *r, char *buf, size_t n)
{
    const ptx_inst *in = emu_inst_ir(r->f, r->I);
    int ol = (int)in->opcode_len;
    const char *op = in->opcode;
    char blk[64], wp[48] = "";
    snprintf(blk, sizeof blk, "block (%u,%u,%u)", r->blk.x, r->blk.y, r->blk.z);
    if (r->warp != UINT32_MAX) snprintf(wp, sizeof wp, "warp %u of ", r->warp);
    (void)M;
    switch (r->kind) {
    case SK_BAR_PARTIAL:
        snprintf(buf, n, "'%.*s' (barrier %u) executed by part of %s%s: an .aligned barrier needs the warp's threads "
                 "together", ol, op, r->id, wp, blk);
        break;
    case SK_BAR_TWO:
        snprintf(buf, n, "'%.*s' (barrier %u): one instance completed at different barrier instructions in %s: an "
                 ".aligned barrier needs every thread of the block at the same one", ol, op, r->id, blk);
        break;
    case SK_BAR_COUNT_DIFF:
        snprintf(buf, n, "'%.*s' (barrier %u) with a thread count of %u in %s%s; another arrival gives %u", ol, op, r->id,
                 r->a, wp, blk, r->b);
        break;
    case SK_BAR_COUNT_BAD:
        snprintf(buf, n, "'%.*s' (barrier %u) with a thread count of %u in %s%s: not a positive multiple of 32 within "
                 "the block", ol, op, r->id, r->a, wp, blk);
        break;
    case SK_BAR_DEADLOCK:
        snprintf(buf, n, "'%.*s' (barrier %u): threads of %s wait forever; live threads of the block never arrive",
                 ol, op, r->id, blk);
        break;
    case SK_COLL_SELF:
        snprintf(buf, n, "'%.*s' executed in %s%s by lanes outside its member mask 0x%08x (undefined in the PTX ISA)",
                 ol, op, wp, blk, r->a);
        break;
    case SK_COLL_SKIPPED:
        snprintf(buf, n, "'%.*s' with member mask 0x%08x in %s%s: member lanes skipped it while the others waited",
                 ol, op, r->a, wp, blk);
        break;
    case SK_COLL_EXITED:
        snprintf(buf, n, "'%.*s' with member mask 0x%08x in %s%s: member lanes exited while the others waited "
                 "(bar.warp.sync waits for every lane of its mask, exited or not)", ol, op, r->a, wp, blk);
        break;
    default:
        snprintf(buf, n, "'%.*s' with member mask 0x%08x in %s%s: lanes wait forever for member lanes that never "
                 "execute it", ol, op, r->a, wp, blk);
        break;
    }
}

static const char *fix_text(const struct sync_report *r)
{
    switch (r->kind) {
    case SK_BAR_COUNT_DIFF:
    case SK_BAR_COUNT_BAD:
        return "give every arrival at this barrier the same thread count, a multiple of 32 (whole warps)";
    case SK_COLL_SELF:
        return "use __activemask() or the branch's __ballot_sync() as the member mask, so that it names the "
               "executing lanes";
    case SK_COLL_SKIPPED:
    case SK_COLL_DEADLOCK:
    case SK_COLL_EXITED:
        return "move the collective out of the branch, or use __activemask() or the branch's __ballot_sync() as "
               "its mask so that it names only lanes that execute it";
    default:
        return "move the barrier out of the branch or loop so that every thread of the block reaches the same "
               "barrier the same number of times (threads may exit before it), or make the condition uniform "
               "across the block";
    }
}

static int cmp_rep(const void *a, const void *b)
{
    const struct sync_report *x = *(const struct sync_report *const *)a, *y = *(const struct sync_report *const *)b;
    uint32_t ox = x->f->fn->stmts[x->I->stmt]->loc.off, oy = y->f->fn->stmts[y->I->stmt]->loc.off;
    if (ox != oy) return ox < oy ? -1 : 1;
    if (x->rule != y->rule) return x->rule < y->rule ? -1 : 1;
    return x->kind < y->kind ? -1 : x->kind > y->kind;
}

static const struct sync_report **sorted(const emu_machine *M, uint32_t *n)
{
    *n = emu_sync_n(M);
    const struct sync_report **v = calloc(*n + 1, sizeof *v);
    if (!v) { *n = 0; return NULL; }
    for (uint32_t i = 0; i < *n; i++) v[i] = &M->sync->r[i];
    qsort(v, *n, sizeof *v, cmp_rep);
    return v;
}

void emu_sync_report_text(emu_machine *M, const char *path, const emu_srcmap *sm, FILE *out)
{
    uint32_t n;
    const struct sync_report **v = sorted(M, &n);
    /* a launch that stopped (a fault, an instruction not emulated) checked
     * only what ran before: "0 reports" alone would read as a clean bill */
    fprintf(out, "synccheck: %u report%s%s%s (barriers and .sync warp collectives whose threads do not arrive as the\n"
                 "PTX ISA requires: divergent-barrier, divergent-collective)\n",
            n, n == 1 ? "" : "s", M->status == EMU_OK ? "" : " before the launch stopped: ",
            M->status == EMU_OK ? "" : emu_status_name(M->status));
    char head[600], th[400], wh[500], src[300];
    for (uint32_t i = 0; i < n; i++) {
        const struct sync_report *r = v[i];
        ptx_loc loc = emu_inst_loc(r->f, r->I);
        fmt_head(M, r, head, sizeof head);
        src_of(sm, r->f, (uint32_t)(r->I - r->f->code), src, sizeof src);
        fprintf(out, "  %s:%u:%u: %s: %s, %llu time%s%s%s\n", path, loc.line, loc.col, rule_name[r->rule], head,
                (unsigned long long)r->count, r->count == 1 ? "" : "s", src[0] ? ", " : "", src);
        fmt_threads(M, r->present, th, sizeof th);
        if (th[0])
            fprintf(out, "      %s: %s\n", r->kind == SK_BAR_DEADLOCK || r->kind == SK_COLL_DEADLOCK ? "waiting" :
                    r->kind == SK_COLL_SELF ? "outside the mask" : "executed by", th);
        for (uint32_t k = 0; k < r->ng; k++) {
            fmt_threads(M, r->g[k].t, th, sizeof th);
            fmt_where(&r->g[k], sm, wh, sizeof wh);
            fprintf(out, "      %s: %s\n", th, wh);
        }
        fprintf(out, "      fix: %s\n", fix_text(r));
    }
    if (M->sync && M->sync->dropped)
        fprintf(out, "  (%llu further reports not kept)\n", (unsigned long long)M->sync->dropped);
    free(v);
}

void *emu_sync_report_json(emu_machine *M, const char *path, const emu_srcmap *sm)
{
    uint32_t n;
    const struct sync_report **v = sorted(M, &n);
    json_t *arr = json_array();
    char head[600], th[400], wh[500], src[300];
    for (uint32_t i = 0; i < n; i++) {
        const struct sync_report *r = v[i];
        ptx_loc loc = emu_inst_loc(r->f, r->I);
        const ptx_inst *in = emu_inst_ir(r->f, r->I);
        json_t *o = json_object();
        fmt_head(M, r, head, sizeof head);
        src_of(sm, r->f, (uint32_t)(r->I - r->f->code), src, sizeof src);
        json_object_set_new(o, "rule", json_string(rule_name[r->rule]));
        json_object_set_new(o, "kind", json_string(kind_name[r->kind]));
        json_object_set_new(o, "file", json_string(path));
        json_object_set_new(o, "line", json_integer(loc.line));
        json_object_set_new(o, "col", json_integer(loc.col));
        json_object_set_new(o, "instruction", json_stringn(in->opcode, in->opcode_len));
        json_object_set_new(o, "source", json_string(src));
        json_object_set_new(o, "message", json_string(head));
        json_object_set_new(o, "block", json_pack("[iii]", r->blk.x, r->blk.y, r->blk.z));
        json_object_set_new(o, "warp", r->warp == UINT32_MAX ? json_null() : json_integer(r->warp));
        if (r->rule == SC_RULE_BAR) json_object_set_new(o, "barrier", json_integer(r->id));
        else json_object_set_new(o, "member_mask", json_integer(r->a));
        json_object_set_new(o, "count", json_integer((json_int_t)r->count));
        fmt_threads(M, r->present, th, sizeof th);
        json_object_set_new(o, "threads", json_string(th));
        json_t *g = json_array();
        for (uint32_t k = 0; k < r->ng; k++) {
            fmt_threads(M, r->g[k].t, th, sizeof th);
            fmt_where(&r->g[k], sm, wh, sizeof wh);
            json_t *e = json_object();
            json_object_set_new(e, "threads", json_string(th));
            json_object_set_new(e, "where", json_string(wh));
            if (r->g[k].f && r->g[k].pc < r->g[k].f->ncode)
                json_object_set_new(e, "line", json_integer(emu_inst_loc(r->g[k].f, &r->g[k].f->code[r->g[k].pc]).line));
            json_array_append_new(g, e);
        }
        json_object_set_new(o, "others", g);
        json_object_set_new(o, "fix", json_string(fix_text(r)));
        json_array_append_new(arr, o);
    }
    free(v);
    return arr;
}
