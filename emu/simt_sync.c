/* Block barriers (the lanes of each warp counted per barrier id), warp
 * collectives (the .sync instructions: the entries that reach one wait
 * until every lane of its member mask has), and lanes leaving through
 * exit, which may complete either.  Used by simt.c's interpreter loop. */
#include "decode.h"
#include "simt.h"

/* ---- block barriers --------------------------------------------------------------------- */
static void bar_release(emu_machine *M, block *b, unsigned id)
{
    if (M->sync) emu_sync_bar_release(M, b, id);
    for (uint32_t k = 0; k < b->nwarps; k++) {
        warp *w = &b->warps[k];
        w->bar_lanes[id] = 0;
        w->bar_counted[id] = 0;
        for (uint32_t i = 0; i < w->ne; i++) {
            sentry *e = &w->e[i];
            if (e->state != E_BAR || e->bar_id != id || e->bar_again == 2) continue;
            if (e->bar_again) { /* executes the barrier instruction again, in the new generation */
                e->bar_again = 0;
                e->state = E_RUN;
                continue;
            }
            const einst *I = &e->f->fn->code[e->pc];
            if (I->sub == BAR_RED_POPC || I->sub == BAR_RED_AND || I->sub == BAR_RED_OR) {
                uint32_t v = b->bar_redval[id];
                uint32_t m = e->cmask;
                if (I->sub == BAR_RED_POPC) {
                    uint64_t *D = e->f->r + (size_t)I->d[0] * 32;
                    FOR_LANES(m, l, D[l] = v);
                } else {
                    bool r = I->sub == BAR_RED_AND ? v == 0 : v != 0;
                    uint32_t *p = &e->f->p[I->d[0] & ~PRED_SLOT];
                    *p = (*p & ~m) | (r ? m : 0);
                }
            }
            e->state = E_RUN;
            e->pc++;
        }
        if (sched_its(M)) simt_its_merge_all(w);
    }
    b->bar_warps[id] = 0;
    b->bar_expect[id] = 0;
    b->bar_redval[id] = 0;
    b->epoch++;
    if (M->race) emu_race_barrier(M, b);
}

static void bar_check_block(emu_machine *M, block *b, unsigned id)
{
    if (!b->bar_warps[id]) return;
    uint32_t expect = b->bar_expect[id] ? b->bar_expect[id] : b->live_warps;
    if (b->bar_warps[id] >= expect) bar_release(M, b, id);
}

/* A warp has arrived once all its non-exited lanes have. */
void simt_bar_check_warp(emu_machine *M, block *b, warp *w, unsigned id)
{
    if (w->bar_counted[id] || !w->bar_lanes[id]) return;
    if ((w->bar_lanes[id] | w->exited) != FULL_MASK) return;
    w->bar_counted[id] = 1;
    b->bar_warps[id]++;
    bar_check_block(M, b, id);
}

/* After lanes of w exited: barriers and collectives may now be complete. */

void simt_after_exit(emu_machine *M, block *b, warp *w)
{
    if (w->exited == FULL_MASK && !w->gone) {
        w->gone = true;
        b->live_warps--;
        for (unsigned id = 0; id < 16; id++) bar_check_block(M, b, id);
    }
    for (unsigned id = 0; id < 16; id++) simt_bar_check_warp(M, b, w, id);
    for (uint32_t i = 0; sched_its(M) && i < w->ne; i++) {
        sentry *e = &w->e[i];
        if (e->state == E_BAR && e->bar_again == 2) { /* lanes gone: execute the barrier again, maybe now for all */
            e->state = E_RUN;
            e->bar_again = 0;
            continue;
        }
        uint32_t gone = e->cmem & w->exited & w->lanes;
        if (e->state == E_COLL && e->coll->sub == COLL_BARWARP && gone) {
            if (M->sync) emu_sync_coll_gone(M, b, w, e->f, e->coll, e->cmask, gone, e->cmem);
            emu_fail(M, EMU_ERR_DEADLOCK, e->f->fn, e->coll,
                     "lanes 0x%08x of warp %u of block (%u,%u,%u) exited while lanes 0x%08x wait for them at "
                     "bar.warp.sync (member mask 0x%08x): the PTX ISA makes bar.warp.sync wait for every thread of "
                     "its mask",
                     gone, w->id, b->id.x, b->id.y, b->id.z, e->cmask, e->cmem);
            return;
        }
    }
    for (uint32_t i = 0; i < w->ne; i++)
        if (w->e[i].state == E_COLL) simt_coll_try(M, b, w, w->e[i].coll, NULL);
}

void simt_lanes_exit(emu_machine *M, block *b, warp *w, uint32_t idx, uint32_t m)
{
    w->exited |= m;
    sentry *e = &w->e[idx];
    e->mask &= ~m;
    if (!e->mask) simt_entry_remove(M, w, idx);
    simt_after_exit(M, b, w);
}

/* ---- collectives ------------------------------------------------------------------------ */
/* The ISA makes a collective wait for the member lanes executing one with
 * the same qualifiers (and member mask), not necessarily the same
 * instruction: shfl.sync.bfly.b32 in both arms of an if meet. */
static bool coll_matches(const einst *a, const einst *b)
{
    if (a == b) return true;
    return a->ctl == CTL_COLL && b->ctl == CTL_COLL && a->sub == b->sub && a->sub2 == b->sub2 && a->type == b->type &&
           ((a->flags ^ b->flags) & EI_LEGACY) == 0;
}

/* Runs collective I over the participating lanes, one group per member
 * mask: lanes that name different member masks (the 8-lane tiles of a
 * tiled_partition voting at once) form separate collectives. */
void simt_coll_exec(emu_exec *x, const einst *I, const emu_part *parts, unsigned n, uint32_t all)
{
    emu_cfn fn = (emu_cfn)I->aux;
    if (!fn) return;
    if (I->flags & EI_LEGACY) {
        fn(x, I, parts, n, all);
        return;
    }
    uint32_t memb[32];
    for (unsigned k = 0; k < n; k++)
        FOR_LANES(parts[k].mask, l, memb[l] = (uint32_t)parts[k].r[(size_t)parts[k].I->s[4] * 32 + l]);
    uint32_t left = all;
    while (left) {
        unsigned l0 = (unsigned)__builtin_ctz(left);
        uint32_t g = 0;
        FOR_LANES(left, l, if (memb[l] == memb[l0]) g |= 1u << l);
        left &= ~g;
        /* the members of the mask take part together; a lane outside its own
         * member mask (undefined in the ISA) only sees itself */
        uint32_t groups[33], ng = 0;
        if (g & memb[l0]) groups[ng++] = g & memb[l0];
        FOR_LANES(g & ~memb[l0], l, groups[ng++] = 1u << l);
        for (uint32_t k2 = 0; k2 < ng; k2++) {
            emu_part sub[32];
            unsigned ns = 0;
            for (unsigned k = 0; k < n; k++)
                if (parts[k].mask & groups[k2])
                    sub[ns++] = (emu_part){parts[k].r, parts[k].p, parts[k].mask & groups[k2], parts[k].I};
            fn(x, I, sub, ns, groups[k2]);
        }
    }
}

/* The member mask lane l of waiting entry e names (a legacy collective,
 * without one, waits for the lanes that executed it). */
static uint32_t coll_member(const sentry *e, unsigned l)
{
    if (e->coll->flags & EI_LEGACY) return e->cmem;
    return (uint32_t)e->f->r[(size_t)e->coll->s[4] * 32 + l];
}

/* Executes the collective I for the waiting lanes whose member lanes all
 * wait at one like it with the same member mask (ISA, vote.sync and
 * match.sync: "the same qualifiers and same membermask value").  Lanes are
 * grouped by the mask they name, not by entry: a group under ITS may hold
 * the 8-lane tiles of a tiled_partition, each ready on its own, and lanes
 * waiting at a full-warp vote neither complete nor join half a warp's.
 * The released lanes continue after it; an entry only partly released is
 * split, its other lanes wait on. */
void simt_coll_try(emu_machine *M, block *b, warp *w, const einst *I, frame *trigger_frame)
{
    (void)trigger_frame;
    uint32_t waiting = 0, memb[32];
    for (uint32_t i = 0; i < w->ne; i++) {
        const sentry *e = &w->e[i];
        if (e->state == E_COLL && coll_matches(e->coll, I))
            FOR_LANES(e->cmask, l, {
                waiting |= 1u << l;
                memb[l] = coll_member(e, l);
            });
    }
    uint32_t ready = 0, left = waiting;
    while (left) {
        unsigned l0 = (unsigned)__builtin_ctz(left);
        uint32_t g = 0;
        FOR_LANES(left, l, if (memb[l] == memb[l0]) g |= 1u << l);
        left &= ~g;
        if (!(memb[l0] & w->lanes & ~w->exited & ~g)) ready |= g;
    }
    if (!ready) return;
    /* waiting entries hold disjoint lanes: at most 32 */
    emu_part parts[32];
    uint32_t go[32], n = 0;
    for (uint32_t i = 0; i < w->ne && n < 32; i++) {
        sentry *e = &w->e[i];
        if (e->state == E_COLL && coll_matches(e->coll, I) && (e->cmask & ready)) {
            parts[n] = (emu_part){e->f->r, e->f->p, e->cmask & ready, e->coll};
            go[n++] = i;
        }
    }
    frame *f0 = w->e[go[0]].f;
    emu_exec x = {f0->r, f0->p, f0, w, b, M, I, ready};
    simt_coll_exec(&x, I, parts, n, ready);
    for (uint32_t k = 0; k < n; k++) {
        sentry *e = &w->e[go[k]];
        if (M->sync) {
            uint32_t mine = e->cmask & ready;
            emu_sync_coll_done(M, b, w, e->f, e->coll, ready, e->cmem & w->exited & ~ready,
                               memb[__builtin_ctz(mine)]);
        }
        uint32_t stay = e->cmask & ~ready;
        if (!stay) {
            e->state = E_RUN;
            e->pc++;
            continue;
        }
        /* the released lanes (and those the guard left out) go on as a
         * sibling; the rest of the entry waits on */
        uint32_t goes = e->mask & ~stay, cmem = 0;
        FOR_LANES(stay, l, cmem |= memb[l]);
        e->mask = stay;
        e->cmask = stay;
        e->cmem = cmem & ~w->exited;
        simt_entry_new(w, e->pc + 1, e->rpc, goes, e->parent, e->f);
    }
    if (sched_its(M)) simt_its_merge_all(w);
}
