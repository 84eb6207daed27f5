/* SIMT execution of one warp: paths (SIMT entries), frames, control flow,
 * independent thread scheduling (barriers and warp collectives: simt_sync.c).  See emu_internal.h for the model and
 * docs/emulator.md for the rules. */
#include <stdlib.h>
#include <string.h>
#include "decode.h"
#include "simt.h"

static void *xcalloc(size_t n, size_t s)
{
    void *p = calloc(n ? n : 1, s ? s : 1);
    if (!p) {
        fputs("ptxray: out of memory\n", stderr);
        abort();
    }
    return p;
}

/* ---- special registers ------------------------------------------------------------ */
uint64_t emu_sreg_value(emu_exec *x, unsigned k, unsigned lane)
{
    emu_machine *M = x->M;
    warp *w = x->w;
    block *b = x->b;
    switch (k) {
    case SR_TID_X: case SR_TID_Y: case SR_TID_Z: return w->tid[k - SR_TID_X][lane];
    case SR_NTID_X: return M->blockdim.x;
    case SR_NTID_Y: return M->blockdim.y;
    case SR_NTID_Z: return M->blockdim.z;
    case SR_LANEID: return lane;
    case SR_WARPID: return w->id;
    case SR_NWARPID: return 64;
    case SR_CTAID_X: return b->id.x;
    case SR_CTAID_Y: return b->id.y;
    case SR_CTAID_Z: return b->id.z;
    case SR_NCTAID_X: return M->grid.x;
    case SR_NCTAID_Y: return M->grid.y;
    case SR_NCTAID_Z: return M->grid.z;
    case SR_SMID: return b->slot;
    case SR_NSMID: return M->nresident;
    case SR_GRIDID: return 1;
    case SR_LM_EQ: return 1u << lane;
    case SR_LM_LE: return (uint32_t)((2ull << lane) - 1);
    case SR_LM_LT: return (1u << lane) - 1;
    case SR_LM_GE: return ~((1u << lane) - 1);
    case SR_LM_GT: return (uint32_t)~((2ull << lane) - 1);
    case SR_CLOCK: return (uint32_t)M->clock;
    case SR_CLOCK_HI: return (uint32_t)(M->clock >> 32);
    case SR_CLOCK64: case SR_GTIMER: return M->clock;
    case SR_GTIMER_LO: return (uint32_t)M->clock;
    case SR_GTIMER_HI: return (uint32_t)(M->clock >> 32);
    case SR_DYN_SMEM: return M->opt.shared_bytes;
    case SR_TOTAL_SMEM: case SR_AGGR_SMEM: return M->shared_total;
    case SR_ZERO: return 0;
    default:
        if (k == SR_ENVREG0 + 1) return M->coop_ws >> 32; /* grid-sync workspace, high half */
        if (k == SR_ENVREG0 + 2) return M->coop_ws & 0xffffffffu;
        return 0;
    }
}

static void init_slots(emu_exec *x, frame *fr, uint32_t mask, bool dyn_only)
{
    const efunc *F = fr->fn;
    for (uint32_t i = 0; i < F->ninit; i++) {
        const slotinit *si = &F->init[i];
        if (dyn_only && !(si->kind == SI_SREG && dec_sreg_dynamic((unsigned)si->v))) continue;
        if (si->kind == SI_PCONST) {
            fr->p[si->slot & ~PRED_SLOT] = (uint32_t)si->v;
            continue;
        }
        uint64_t *r = fr->r + (size_t)si->slot * 32;
        switch (si->kind) {
        case SI_CONST: for (unsigned l = 0; l < 32; l++) r[l] = si->v; break;
        case SI_FRAME: for (unsigned l = 0; l < 32; l++) r[l] = fr->local_base + si->v; break;
        default: {
            unsigned k = (unsigned)si->v;
            if (k <= SR_TID_Z) {
                for (unsigned l = 0; l < 32; l++) r[l] = x->w->tid[k - SR_TID_X][l];
            } else if (k == SR_LANEID || (k >= SR_LM_EQ && k <= SR_LM_GT)) {
                for (unsigned l = 0; l < 32; l++) r[l] = emu_sreg_value(x, k, l);
            } else {
                /* the same in every lane */
                uint64_t v = emu_sreg_value(x, k, 0);
                if (dyn_only) FOR_LANES(mask, l, r[l] = v);
                else for (unsigned l = 0; l < 32; l++) r[l] = v;
            }
            break;
        }
        }
    }
}

void emu_refresh_dyn_sregs(emu_exec *x)
{
    init_slots(x, x->f, FULL_MASK, true);
}

/* ---- frames --------------------------------------------------------------------------- */
static uint32_t align16(uint32_t v) { return (v + 15u) & ~15u; }

frame *simt_frame_new(emu_machine *M, block *b, warp *w, const efunc *F, uint32_t mask, frame *caller,
                      const einst *call)
{
    if (w->nframes >= EMU_MAX_CALL_DEPTH) {
        emu_fail(M, EMU_ERR_LIMIT, caller ? caller->fn : NULL, call,
                 "call depth limit (%u frames in one warp) reached: unbounded recursion?", EMU_MAX_CALL_DEPTH);
        return NULL;
    }
    frame *fr = NULL;
    for (frame **pp = &w->free_frames; *pp; pp = &(*pp)->next_free)
        if ((*pp)->fn == F) {
            fr = *pp;
            *pp = fr->next_free;
            break;
        }
    for (frame **pp = &M->frame_pool; !fr && *pp; pp = &(*pp)->next_free)
        if ((*pp)->fn == F) {
            fr = *pp;
            *pp = fr->next_free;
            break;
        }
    if (!fr) {
        fr = xcalloc(1, sizeof *fr);
        fr->fn = F;
        fr->r = xcalloc((size_t)F->nslots * 32, sizeof(uint64_t));
        fr->p = xcalloc(F->npreds + 1, sizeof(uint32_t));
    } else {
        memset(fr->r, 0, (size_t)F->nslots * 32 * sizeof(uint64_t));
        memset(fr->p, 0, (F->npreds + 1) * sizeof(uint32_t));
    }
    fr->returned = 0;
    fr->nentries = 0;
    fr->call_mask = mask;
    fr->caller = caller;
    fr->call = call;
    fr->next_free = NULL;
    uint32_t base = 0;
    FOR_LANES(mask, l, if (w->sp[l] > base) base = w->sp[l]);
    base = align16(base);
    uint64_t top = (uint64_t)base + F->local_size;
    if (top > UINT32_MAX || !emu_local_reserve(M, w, (uint32_t)top)) {
        emu_fail(M, EMU_ERR_LIMIT, caller ? caller->fn : F, call ? call : F->code,
                 "local memory limit reached: %llu bytes per thread needed (--local-bytes)", (unsigned long long)top);
        fr->next_free = w->free_frames;
        w->free_frames = fr;
        return NULL;
    }
    FOR_LANES(mask, l, {
        fr->saved_sp[l] = w->sp[l];
        w->sp[l] = (uint32_t)top;
    });
    if (F->local_size)
        FOR_LANES(mask, l, memset(w->local + (size_t)l * w->local_cap + base, 0, F->local_size));
    fr->local_base = base;
    emu_exec x = {fr->r, fr->p, fr, w, b, M, NULL, mask};
    init_slots(&x, fr, mask, false);
    w->nframes++;
    return fr;
}

static void frame_finish(emu_machine *M, warp *w, frame *fr)
{
    const efunc *F = fr->fn;
    if (fr->caller && fr->call) {
        const ecall *cd = fr->call->aux;
        frame *cf = fr->caller;
        uint32_t live = fr->call_mask & ~w->exited;
        for (uint32_t k = 0; k < cd->nrets && k < F->nrets; k++) {
            uint32_t size = F->ret_size[k] < cd->rets[k].size ? F->ret_size[k] : cd->rets[k].size;
            FOR_LANES(live, l, {
                const uint8_t *src = w->local + (size_t)l * w->local_cap + fr->local_base + F->ret_off[k];
                if (cd->rets[k].kind == 'f') {
                    memcpy(w->local + (size_t)l * w->local_cap + cf->local_base + cd->rets[k].off, src, size);
                } else {
                    uint64_t v = 0;
                    memcpy(&v, src, size > 8 ? 8 : size);
                    cf->r[(size_t)cd->rets[k].slot * 32 + l] = v;
                }
            });
        }
    }
    FOR_LANES(fr->call_mask, l, w->sp[l] = fr->saved_sp[l]);
    w->nframes--;
    fr->next_free = w->free_frames;
    w->free_frames = fr;
    (void)M;
}

/* A finished block's frames go to the machine's pool: the next blocks
 * reuse them without fresh pages (allocating per block made page faults
 * the largest cost of short kernels). */
void simt_frames_release(emu_machine *M, warp *w)
{
    while (w->free_frames) {
        frame *f = w->free_frames;
        w->free_frames = f->next_free;
        f->next_free = M->frame_pool;
        M->frame_pool = f;
    }
}

void simt_frame_pool_free(emu_machine *M)
{
    while (M->frame_pool) {
        frame *f = M->frame_pool;
        M->frame_pool = f->next_free;
        free(f->r);
        free(f->p);
        free(f);
    }
}

/* ---- entries ------------------------------------------------------------------------------ */
uint32_t simt_entry_new(warp *w, uint32_t pc, uint32_t rpc, uint32_t mask, uint32_t parent, frame *fr)
{
    uint32_t idx;
    if (w->free_head != EMU_NONE) {
        idx = w->free_head;
        w->free_head = w->e[idx].parent;
    } else {
        if (w->ne == w->cap) {
            w->cap = w->cap ? w->cap * 2 : 8;
            sentry *ne = realloc(w->e, w->cap * sizeof *ne);
            if (!ne) abort();
            w->e = ne;
        }
        idx = w->ne++;
    }
    sentry *e = &w->e[idx];
    memset(e, 0, sizeof *e);
    e->pc = pc;
    e->rpc = rpc;
    e->mask = mask;
    e->state = E_RUN;
    e->parent = parent;
    e->seq = ++w->seq;
    e->f = fr;
    e->sc_rpc = EMU_NONE;
    fr->nentries++;
    w->nlive++;
    if (parent != EMU_NONE) w->e[parent].nchild++;
    return idx;
}

/* Removes an entry; a parent left without children resumes (or goes too,
 * if all its lanes have exited or returned). */
void simt_entry_remove(emu_machine *M, warp *w, uint32_t idx)
{
    while (idx != EMU_NONE) {
        sentry *e = &w->e[idx];
        uint32_t parent = e->parent;
        frame *fr = e->f;
        e->state = E_FREE;
        e->parent = w->free_head;
        w->free_head = idx;
        w->nlive--;
        if (--fr->nentries == 0) frame_finish(M, w, fr);
        idx = EMU_NONE;
        if (parent != EMU_NONE) {
            sentry *p = &w->e[parent];
            if (--p->nchild == 0) {
                p->state = E_RUN;
                p->mask &= ~w->exited & ~p->f->returned;
                if (!p->mask) idx = parent;
            }
        }
    }
    if (w->nlive == 0) w->done = true;
}

/* ---- independent thread scheduling (EMU_SCHED_ITS) ------------------------------------ */

/* Entry j joins entry i (same frame, parent, pc): one group from now on. */
static void entry_absorb(warp *w, uint32_t i, uint32_t j)
{
    sentry *a = &w->e[i], *b = &w->e[j];
    a->mask |= b->mask;
    b->state = E_FREE;
    b->f->nentries--;
    if (b->parent != EMU_NONE) w->e[b->parent].nchild--;
    b->parent = w->free_head;
    w->free_head = j;
    w->nlive--;
}

static bool entries_meet(const sentry *a, const sentry *b)
{
    return a->state == E_RUN && b->state == E_RUN && a->f == b->f && a->pc == b->pc && a->rpc == b->rpc &&
           a->parent == b->parent;
}

/* Groups of w at the same instruction of the same frame become one (after
 * a barrier or collective released them: where ITS reconverges). */
void simt_its_merge_all(warp *w)
{
    for (uint32_t i = 0; i < w->ne; i++) {
        if (w->e[i].state != E_RUN) continue;
        for (uint32_t j = i + 1; j < w->ne; j++)
            if (entries_meet(&w->e[i], &w->e[j])) entry_absorb(w, i, j);
    }
}

/* Splits the lanes of runnable entry idx into two groups at random (a
 * random subset, one lane against the rest, or the lower lanes against
 * the upper ones); the new group is a sibling at the same pc.  Returns
 * the index of the group to run now. */
uint32_t simt_its_split(emu_machine *M, warp *w, uint32_t idx)
{
    sentry *e = &w->e[idx];
    uint32_t mask = e->mask & ~w->exited & ~e->f->returned;
    unsigned n = popc32(mask);
    if (n < 2) return idx;
    uint64_t r = emu_rng_next(&M->rng);
    uint32_t part = 0;
    switch (r % 3) {
    case 0: /* a random non-empty proper subset */
        do {
            part = (uint32_t)emu_rng_next(&M->rng) & mask;
        } while (!part || part == mask);
        break;
    case 1: { /* one lane */
        unsigned k = (unsigned)((r >> 8) % n);
        uint32_t m = mask;
        while (k--) m &= m - 1;
        part = m & -m;
        break;
    }
    default: { /* the lowest k lanes */
        unsigned k = 1 + (unsigned)((r >> 8) % (n - 1));
        uint32_t m = mask;
        while (k--) {
            part |= m & -m;
            m &= m - 1;
        }
        break;
    }
    }
    e->mask = mask & ~part;
    uint32_t ni = simt_entry_new(w, w->e[idx].pc, w->e[idx].rpc, part, w->e[idx].parent, w->e[idx].f);
    w->e[ni].sc_rpc = w->e[idx].sc_rpc;
    return (emu_rng_next(&M->rng) & 1) ? ni : idx;
}

/* Two groups that happen to be at the same instruction may run it
 * together (one more interleaving; it also keeps the number of groups of
 * a long loop small): idx absorbs such siblings. */
void simt_its_join(emu_machine *M, warp *w, uint32_t idx)
{
    (void)M;
    for (uint32_t j = 0; j < w->ne; j++)
        if (j != idx && entries_meet(&w->e[idx], &w->e[j])) entry_absorb(w, idx, j);
}

/* The PTX ISA leaves undefined a collective executed by a lane its member
 * mask does not name, and makes bar.warp.sync (unlike shfl/vote/match/
 * redux.sync, which skip exited threads) wait for every thread of its
 * mask: under ITS both stop the run.  need: the member lanes named. */
static bool its_coll_ok(emu_exec *x, const einst *I, uint32_t m, const uint64_t *MM, uint32_t need)
{
    bool ok = true;
    FOR_LANES(m, l, {
        if (ok && !((MM[l] >> l) & 1)) {
            emu_fault_lane(x, l, "lane %u is not in the member mask 0x%08x of this warp collective (undefined in the PTX ISA)",
                           l, (uint32_t)MM[l]);
            ok = false;
        }
    });
    if (!ok) return false;
    warp *w = x->w;
    uint32_t gone = need & w->exited & w->lanes;
    if (I->sub == COLL_BARWARP && gone) {
        if (x->M->sync) emu_sync_coll_gone(x->M, x->b, w, x->f, I, m, gone, need);
        emu_fail(x->M, EMU_ERR_DEADLOCK, x->f->fn, I,
                 "bar.warp.sync with member mask 0x%08x waits for lanes 0x%08x of warp %u of block (%u,%u,%u), which "
                 "have exited: the PTX ISA makes bar.warp.sync wait for every thread of its mask (only the .sync "
                 "collectives shfl/vote/match/redux skip exited threads)",
                 need, gone, w->id, x->b->id.x, x->b->id.y, x->b->id.z);
        return false;
    }
    return true;
}

/* An aligned barrier (bar.*, barrier.*.aligned) is executed by the whole
 * warp together: under ITS a group reaching one waits there (E_BAR,
 * bar_again 2) until every lane of the warp still in this frame is at
 * it; then the last group absorbs the waiting ones and executes it for
 * all.  Returns whether entry idx may execute it now. */
static bool its_aligned_here(emu_exec *x, warp *w, uint32_t idx, frame *f, uint32_t pc, uint8_t id)
{
    uint32_t live = 0, here = w->e[idx].mask;
    for (uint32_t j = 0; j < w->ne; j++) {
        const sentry *e = &w->e[j];
        if (e->state == E_FREE || e->f != f) continue;
        live |= e->mask;
        if (j != idx && e->state == E_BAR && e->bar_again == 2 && e->pc == pc) here |= e->mask;
    }
    live &= ~w->exited & ~f->returned;
    if ((here & live) != live) {
        if (x->M->sync) emu_sync_bar_wait(x, &f->fn->code[pc], id, here & live, live);
        sentry *ce = &w->e[idx];
        ce->state = E_BAR;
        ce->bar_id = id;
        ce->bar_again = 2;
        ce->cmask = ce->mask;
        return false;
    }
    for (uint32_t j = 0; j < w->ne; j++) {
        sentry *e = &w->e[j];
        if (j != idx && e->state == E_BAR && e->bar_again == 2 && e->f == f && e->pc == pc) {
            e->bar_again = 0;
            entry_absorb(w, idx, j);
        }
    }
    return true;
}

/* ---- the interpreter loop --------------------------------------------------------------- */
/* The rematerialisations the lanes of m start (emu_stats.remat_*). */
static void count_remat(emu_machine *M, const einst *I, uint32_t m)
{
    uint64_t n = popc32(m);
    if (I->flags & EI_REMAT_C) M->stats.remat_const += n;
    else if (I->flags & EI_REMAT_A) M->stats.remat_affine += n;
    else M->stats.remat_shared += n;
}

static void observe(emu_machine *M, warp *w, block *b, frame *f, const einst *I, uint32_t path, uint32_t m, int phase)
{
    const emu_observer *o = M->opt.observer;
    emu_event ev;
    ev.phase = phase;
    ev.fn = f->fn->fn;
    ev.stmt = I->stmt;
    ev.inst = &f->fn->fn->stmts[I->stmt]->u.inst;
    ev.path_mask = path;
    ev.active_mask = m;
    ev.block = b->id;
    ev.warp = w->id;
    ev.priv_ = f;
    o->on_inst(o->user, &ev);
}

uint64_t emu_event_reg(const emu_event *ev, uint32_t reg, uint8_t comp, unsigned lane)
{
    const frame *f = ev->priv_;
    if (!f || reg >= f->fn->fn->nregs || lane >= 32) return 0;
    uint32_t s = f->fn->reg_slot[reg];
    if (s & PRED_SLOT) return (f->p[s & ~PRED_SLOT] >> lane) & 1;
    const ptx_reg *r = &f->fn->fn->regs[reg];
    if (comp && r->vec > 1) s += comp == 'y' ? 1 : comp == 'z' ? 2 : comp == 'w' ? 3 : 0;
    return f->r[(size_t)s * 32 + lane];
}

/* Splits the entry by the lanes' next pc (groups[k] lanes go to pcs[k]),
 * reconverging at r. */
static void diverge(warp *w, uint32_t idx, uint32_t r, const uint32_t *pcs, const uint32_t *groups, unsigned n,
                    bool its)
{
    sentry *e = &w->e[idx];
    uint32_t branch_rpc = r;
    if (its) { /* --synccheck: a new branch region for these lanes */
        w->sc_passed &= ~e->mask;
        w->sc_ran &= ~e->mask;
    }
    if (r == EMU_NONE || its) r = e->rpc; /* ITS: the sides are groups of their own, never waited for */
    frame *fr = e->f;
    if (r == e->rpc) {
        uint32_t parent = e->parent, rpc = e->rpc;
        e->pc = pcs[0];
        e->mask = groups[0];
        if (its) e->sc_rpc = branch_rpc;
        for (unsigned k = n; k-- > 1;) {
            uint32_t c = simt_entry_new(w, pcs[k], rpc, groups[k], parent, fr);
            if (its) w->e[c].sc_rpc = branch_rpc;
        }
        /* the entry itself continues first: make it the newest */
        w->e[idx].seq = ++w->seq;
        return;
    }
    e->state = E_WAIT;
    e->pc = r;
    for (unsigned k = n; k-- > 0;) simt_entry_new(w, pcs[k], r, groups[k], idx, fr);
}

static const efunc *call_target(emu_machine *M, uint64_t addr) { return emu_func_by_addr(M, addr); }

/* A call: the entry waits at the next instruction; the calling lanes run
 * the callee in a new frame (one per distinct target of an indirect call). */
static bool do_call(emu_machine *M, block *b, warp *w, uint32_t idx, const einst *I, uint32_t m, emu_exec *x)
{
    const ecall *cd = I->aux;
    frame *cf = w->e[idx].f;
    const efunc *cur = cf->fn;
    w->e[idx].state = E_WAIT;
    w->e[idx].pc++;
    uint32_t pending = m;
    while (pending) {
        uint32_t g = pending;
        const efunc *F;
        uint32_t fidx = cd->callee;
        if (cd->callee == EMU_NONE) {
            const uint64_t *T = cf->r + (size_t)cd->target_slot * 32;
            unsigned l0 = (unsigned)__builtin_ctz(pending);
            uint64_t t = T[l0];
            g = 0;
            FOR_LANES(pending, l, if (T[l] == t) g |= 1u << l);
            F = call_target(M, t);
            if (!F) {
                emu_fault_lane(x, l0, "indirect call to 0x%llx, which is not the address of a function",
                               (unsigned long long)t);
                return false;
            }
            fidx = F->index;
        } else {
            F = M->funcs[fidx];
        }
        pending &= ~g;
        if (cd->builtin) {
            if (cd->builtin == BI_ASSERTFAIL) {
                unsigned l0 = (unsigned)__builtin_ctz(g);
                emu_fault_lane(x, l0, "device-side assert failed (__assertfail)");
                M->status = EMU_ERR_TRAP;
                return false;
            }
            /* vprintf(fmt, args): lane order */
            FOR_LANES(g, l, {
                uint64_t av[2] = {0, 0};
                for (unsigned k = 0; k < 2 && k < cd->nargs; k++) {
                    const struct ecall_opd *a = &cd->args[k];
                    if (a->kind == 'f')
                        memcpy(&av[k], w->local + (size_t)l * w->local_cap + cf->local_base + a->off, a->size > 8 ? 8 : a->size);
                    else
                        av[k] = cf->r[(size_t)a->slot * 32 + l];
                }
                int32_t ret = 0;
                if (emu_vprintf(x, l, av[0], av[1], &ret)) return false;
                if (cd->nrets) {
                    const struct ecall_opd *rr = &cd->rets[0];
                    if (rr->kind == 'f')
                        memcpy(w->local + (size_t)l * w->local_cap + cf->local_base + rr->off, &ret, rr->size < 4 ? rr->size : 4);
                    else
                        cf->r[(size_t)rr->slot * 32 + l] = (uint32_t)ret;
                }
            });
            continue;
        }
        if (!F) {
            emu_fail(M, EMU_ERR_UNSUPPORTED, cur, I, "call to a function without a body");
            return false;
        }
        frame *nf = simt_frame_new(M, b, w, F, g, cf, I);
        if (!nf) return false;
        /* arguments: caller .param variables (or registers) into the callee's formals */
        for (uint32_t k = 0; k < cd->nargs && k < F->nparams; k++) {
            const struct ecall_opd *a = &cd->args[k];
            uint32_t size = F->param_size[k];
            FOR_LANES(g, l, {
                uint8_t *dst = w->local + (size_t)l * w->local_cap + nf->local_base + F->param_off[k];
                if (a->kind == 'f') {
                    memcpy(dst, w->local + (size_t)l * w->local_cap + cf->local_base + a->off, size < a->size ? size : a->size);
                } else {
                    uint64_t v = cf->r[(size_t)a->slot * 32 + l];
                    memcpy(dst, &v, size < 8 ? size : 8);
                }
            });
        }
        simt_entry_new(w, 0, EMU_NONE, g, idx, nf);
    }
    if (w->e[idx].nchild == 0) w->e[idx].state = E_RUN;
    return true;
}

/* Runs entry idx of w for up to *budget warp-instructions. */
void simt_run_path(emu_machine *M, block *b, warp *w, uint32_t idx, uint64_t *budget)
{
    sentry *e = &w->e[idx];
    frame *f = e->f;
    const efunc *F = f->fn;
    const einst *code = F->code;
    uint32_t pc = e->pc, rpc = e->rpc;
    uint32_t mask = e->mask & ~w->exited & ~f->returned;
    e->mask = mask;
    if (!mask) {
        simt_entry_remove(M, w, idx);
        return;
    }
    emu_exec x = {f->r, f->p, f, w, b, M, NULL, mask};
    const bool obs = M->opt.observer && M->opt.observer->on_inst;
    uint64_t steps = 0, limit = *budget, tinsts = 0;
    for (;;) {
        if (pc == rpc) {
            w->e[idx].pc = pc;
            simt_entry_remove(M, w, idx);
            break;
        }
        if (pc == w->e[idx].sc_rpc) { /* ITS: this group has gone past its branch */
            if (M->sync) w->sc_passed |= mask;
            w->e[idx].sc_rpc = EMU_NONE;
        }
        if (pc >= F->ncode) {
            /* falling off the end of a body is a return */
            if (!f->caller) simt_lanes_exit(M, b, w, idx, mask);
            else {
                f->returned |= mask;
                w->e[idx].mask = 0;
                simt_entry_remove(M, w, idx);
            }
            break;
        }
        const einst *I = &code[pc];
        uint32_t m = mask;
        if (I->has_guard) {
            uint32_t g = f->p[I->guard];
            m &= I->guard_neg ? ~g : g;
        }
        steps++;
        tinsts += m == FULL_MASK ? 32u : popc32(m);
        if (obs) observe(M, w, b, f, I, mask, m, EMU_OBS_BEFORE);
        if (I->ctl == CTL_NONE) {
            if (w->sc_passed & m) emu_sync_ran(w, F, pc, m);
            if (m) {
                if (I->flags & (EI_DYN_SREG | EI_REMAT_C | EI_REMAT_A | EI_REMAT_S)) {
                    if (I->flags & EI_DYN_SREG) {
                        M->clock = M->steps + steps;
                        emu_refresh_dyn_sregs(&x);
                    }
                    if (I->flags & (EI_REMAT_C | EI_REMAT_A | EI_REMAT_S)) count_remat(M, I, m);
                }
                x.I = I;
                if (I->fn(&x, I, m)) {
                    w->e[idx].pc = pc;
                    break;
                }
            }
            if (obs) observe(M, w, b, f, I, mask, m, EMU_OBS_AFTER);
            pc++;
            if (steps >= limit) {
                w->e[idx].pc = pc;
                break;
            }
            continue;
        }
        /* control and synchronisation */
        x.I = I;
        w->e[idx].pc = pc;
        bool cont = false;
        switch (I->ctl) {
        case CTL_BRA: {
            uint32_t nt = mask & ~m;
            if (!nt) { pc = I->target; cont = true; break; }
            if (!m) { pc++; cont = true; break; }
            M->stats.divergent_branches++;
            uint32_t pcs[2] = {I->target, pc + 1}, groups[2] = {m, nt};
            diverge(w, idx, I->rpc, pcs, groups, 2, sched_its(M));
            break;
        }
        case CTL_BRX: {
            const ebrx *t = I->aux;
            const uint64_t *X = REG(&x, I->s[0]);
            uint32_t pcs[33], groups[33];
            unsigned n = 0;
            bool bad = false;
            FOR_LANES(m, l, {
                uint32_t k = (uint32_t)X[l];
                if (k >= t->n) {
                    if (!bad) emu_fault_lane(&x, l, "brx.idx index %u is outside its table of %u targets", k, t->n);
                    bad = true;
                } else {
                    unsigned j = 0;
                    while (j < n && pcs[j] != t->pc[k]) j++;
                    if (j == n) { pcs[n] = t->pc[k]; groups[n++] = 0; }
                    groups[j] |= 1u << l;
                }
            });
            if (bad) break;
            if (mask & ~m) { pcs[n] = pc + 1; groups[n++] = mask & ~m; }
            if (n == 1) { pc = pcs[0]; cont = true; break; }
            M->stats.divergent_branches++;
            diverge(w, idx, I->rpc, pcs, groups, n, sched_its(M));
            break;
        }
        case CTL_CALL:
            if (!m) { pc++; cont = true; break; }
            if (!do_call(M, b, w, idx, I, m, &x)) break;
            if (w->e[idx].state == E_RUN) { pc = w->e[idx].pc; cont = true; }
            break;
        case CTL_RET:
            if (!m) { pc++; cont = true; break; }
            if (!f->caller) { simt_lanes_exit(M, b, w, idx, m); }
            else {
                f->returned |= m;
                w->e[idx].mask &= ~m;
                if (!w->e[idx].mask) simt_entry_remove(M, w, idx);
            }
            if (m != mask && w->e[idx].state == E_RUN && w->e[idx].mask) { pc++; mask &= ~m; cont = true; }
            break;
        case CTL_EXIT:
            if (!m) { pc++; cont = true; break; }
            simt_lanes_exit(M, b, w, idx, m);
            if (m != mask) { pc++; mask &= ~m; cont = true; }
            break;
        case CTL_TRAP:
            if (!m) { pc++; cont = true; break; }
            emu_fault_lane(&x, (unsigned)__builtin_ctz(m), "trap");
            M->status = EMU_ERR_TRAP;
            break;
        case CTL_UNSUP:
            emu_fail(M, EMU_ERR_UNSUPPORTED, F, I, "%s", (const char *)I->aux);
            break;
        case CTL_ACTMASK: {
            uint64_t *D = REG(&x, I->d[0]);
            FOR_LANES(m, l, D[l] = m);
            pc++;
            cont = true;
            break;
        }
        case CTL_BAR: {
            if (!m) { pc++; cont = true; break; }
            const uint64_t *A = REG(&x, I->s[0]);
            unsigned l0 = (unsigned)__builtin_ctz(m);
            uint64_t id = A[l0];
            if (id >= 16) { emu_fault_lane(&x, l0, "barrier %llu is outside 0..15", (unsigned long long)id); break; }
            uint32_t cnt = 0;
            if (I->flags & EI_HASCOUNT) {
                uint64_t c = REG(&x, I->s[1])[l0];
                if (c == 0 || c % 32 || c > M->threads_per_block + 31) {
                    if (M->sync) emu_sync_bar_badcount(&x, I, (unsigned)id, c);
                    emu_fault_lane(&x, l0, "barrier thread count %llu is not a positive multiple of 32 within the block",
                                   (unsigned long long)c);
                    break;
                }
                cnt = (uint32_t)(c / 32);
            }
            if (sched_its(M) && (I->flags & EI_ALIGNED)) {
                if (!its_aligned_here(&x, w, idx, f, pc, (uint8_t)id)) break;
                /* now with the lanes of the groups it absorbed */
                mask = w->e[idx].mask;
                m = mask;
                if (I->has_guard) m &= I->guard_neg ? ~f->p[I->guard] : f->p[I->guard];
                x.path_mask = mask;
            }
            if (sched_its(M) && (w->bar_lanes[id] & m)) {
                /* a group that went on after bar.arrive reached the barrier
                 * again before the rest of its warp arrived: its lanes have
                 * arrived in this generation, so they wait for it to complete
                 * and then arrive in the next one (no lost arrival) */
                sentry *ce = &w->e[idx];
                ce->state = E_BAR;
                ce->bar_id = (uint8_t)id;
                ce->bar_again = 1;
                ce->cmask = m;
                break;
            }
            if (M->sync) emu_sync_bar_arrive(&x, I, (unsigned)id, m);
            if (I->sub >= BAR_RED_POPC) {
                uint32_t p = pread(&x, I->s[2]) & m;
                if (I->sub == BAR_RED_POPC) b->bar_redval[id] += (uint32_t)popc32(p);
                else if (I->sub == BAR_RED_AND) b->bar_redval[id] += (uint32_t)popc32(m & ~p);
                else b->bar_redval[id] += (uint32_t)popc32(p);
            }
            if (cnt) b->bar_expect[id] = cnt;
            w->bar_lanes[id] |= m;
            if (I->sub == BAR_ARRIVE) {
                pc++;
                cont = true;
                simt_bar_check_warp(M, b, w, (unsigned)id);
                break;
            }
            sentry *ce = &w->e[idx];
            ce->state = E_BAR;
            ce->bar_id = (uint8_t)id;
            ce->cmask = m;
            simt_bar_check_warp(M, b, w, (unsigned)id);
            break;
        }
        case CTL_COLL: {
            if (!m) { pc++; cont = true; break; }
            uint32_t need;
            if (I->flags & EI_LEGACY) need = m;
            else {
                const uint64_t *MM = REG(&x, I->s[4]);
                if (M->sync) emu_sync_coll_self(&x, I, m, MM);
                need = 0;
                FOR_LANES(m, l, need |= (uint32_t)MM[l]);
                if (sched_its(M) && !its_coll_ok(&x, I, m, MM, need)) break;
                need &= ~w->exited;
            }
            if (!(need & ~m)) {
                emu_part part = {x.r, x.p, m, I};
                simt_coll_exec(&x, I, &part, 1, m);
                if (obs) observe(M, w, b, f, I, mask, m, EMU_OBS_AFTER);
                pc++;
                cont = true;
                break;
            }
            /* wait for the other lanes of the member mask (other paths) */
            sentry *ce = &w->e[idx];
            ce->state = E_COLL;
            ce->coll = I;
            ce->cmask = m;
            ce->cmem = need;
            simt_coll_try(M, b, w, I, f);
            break;
        }
        default:
            emu_fail(M, EMU_ERR_UNSUPPORTED, F, I, "internal: unknown control kind");
            break;
        }
        /* the after event: once the instruction has taken effect for the path
         * (not for ret/exit/trap, nor a barrier or collective that waits) */
        if (obs && !M->stop && I->ctl != CTL_COLL && I->ctl != CTL_RET && I->ctl != CTL_EXIT &&
            !(I->ctl == CTL_BAR && !cont))
            observe(M, w, b, f, I, mask, m, EMU_OBS_AFTER);
        if (M->stop || !cont) break;
        if (steps >= limit) {
            w->e[idx].pc = pc;
            w->e[idx].mask = mask;
            break;
        }
    }
    M->stats.thread_insts += tinsts;
    M->steps += steps;
    *budget = steps >= *budget ? 0 : *budget - steps;
}

/* When no path of the block can move: lanes that already reached a
 * reconvergence point, while their siblings wait at a barrier or a warp
 * collective that needs them, go on alone (as independent thread
 * scheduling on sm_70+ lets them; e.g. "if (i >= n) return; __syncwarp();"
 * where the returning lanes must exit for the sync to complete).  Returns
 * whether any lanes were released. */
bool simt_unstick(emu_machine *M, warp *w)
{
    bool any = false;
    for (uint32_t i = 0; i < w->ne; i++) {
        sentry *P = &w->e[i];
        if (P->state != E_WAIT) continue;
        uint32_t busy = 0;
        for (uint32_t j = 0; j < w->ne; j++) {
            if (j == i || w->e[j].state == E_FREE) continue;
            for (uint32_t q = w->e[j].parent; q != EMU_NONE; q = w->e[q].parent)
                if (q == i) {
                    busy |= w->e[j].mask;
                    break;
                }
        }
        uint32_t arrived = P->mask & ~busy & ~w->exited & ~P->f->returned;
        if (!arrived || arrived == (P->mask & ~w->exited & ~P->f->returned)) continue;
        if (M->sync) emu_sync_unstick(w, arrived);
        P->mask &= ~arrived;
        uint32_t pc = P->pc, rpc = P->rpc, parent = P->parent;
        frame *f = P->f;
        simt_entry_new(w, pc, rpc, arrived, parent, f);
        any = true;
    }
    return any;
}

/* Lock-step: the newest runnable entry (stack order).  Interleave: a random
 * runnable entry. */
uint32_t simt_pick(emu_machine *M, warp *w)
{
    uint32_t best = EMU_NONE, n = 0;
    uint64_t bs = 0;
    if (M->opt.schedule != EMU_SCHED_LOCKSTEP) {
        uint32_t cand[64];
        for (uint32_t i = 0; i < w->ne; i++)
            if (w->e[i].state == E_RUN && n < 64) cand[n++] = i;
        if (!n) return EMU_NONE;
        return cand[emu_rng_next(&M->rng) % n];
    }
    for (uint32_t i = 0; i < w->ne; i++)
        if (w->e[i].state == E_RUN && w->e[i].seq >= bs) {
            bs = w->e[i].seq;
            best = i;
        }
    return best;
}
