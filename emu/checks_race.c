/* --racecheck: shared-memory hazards between threads of a block within one
 * barrier interval (Boyer et al., "Automated dynamic analysis of CUDA
 * programs"), extended with write-after-write hazards and any number of
 * blocks (each block's shared memory has its own shadow).
 *
 * Every shared byte remembers, for the current barrier interval, the last
 * thread that wrote it and the thread(s) that read it.  An access by
 * another thread in the same interval is a hazard: read after a foreign
 * write (RAW), write after a foreign read (WAR) or after a foreign write
 * (WAW).  A completed barrier starts a new interval.  bar.warp.sync orders
 * the lanes of its warp: accesses of two lanes of one warp separated by a
 * bar.warp.sync are not a hazard.  Atomics are not checked (they do not
 * race with each other by definition).  Assumption: any completed barrier
 * of the block (named barriers included) starts a new interval for all
 * its threads. */
#include <stdlib.h>
#include <string.h>
#include "emu_internal.h"

#define MULTI 0xffffffffu
#define MAX_HAZ 4096u

typedef struct cell {
    uint32_t w_tid, w_ep, w_site, w_wep; /* last writer (thread id + 1), interval, site, warp-sync epoch */
    /* readers in interval r_ep: one warp (r_warp = warp + 1; r_lanes read it at
     * that warp's sync epoch r_wep, earlier reads are ordered by a
     * bar.warp.sync) or several warps (r_warp = MULTI) */
    uint32_t r_ep, r_site, r_warp, r_wep, r_lanes, r_tid;
} cell;

struct race_shadow {
    cell *c;
    uint32_t n;
};

typedef struct hazard {
    uint8_t kind; /* 0 RAW, 1 WAR, 2 WAW */
    uint32_t first_site, second_site;
    uint64_t count;
    emu_dim3 block;
    uint32_t t1, t2; /* linear thread ids in the block */
    uint64_t offset;
} hazard;

struct race_state {
    hazard *h;
    uint32_t n, cap;
    uint64_t dropped;
};

void emu_race_block_init(emu_machine *M, block *b)
{
    if (!M->race) M->race = calloc(1, sizeof *M->race);
    b->shadow = calloc(1, sizeof *b->shadow);
    if (!b->shadow) return;
    b->shadow->n = M->shared_total;
    b->shadow->c = calloc(M->shared_total ? M->shared_total : 1, sizeof(cell));
    if (!b->shadow->c) {
        free(b->shadow);
        b->shadow = NULL;
    }
}

void emu_race_block_free(emu_machine *M, block *b)
{
    (void)M;
    if (!b->shadow) return;
    free(b->shadow->c);
    free(b->shadow);
    b->shadow = NULL;
}

void emu_race_barrier(emu_machine *M, block *b)
{
    /* intervals are numbered: nothing to clear */
    (void)M;
    (void)b;
}

void emu_race_reset(emu_machine *M)
{
    if (!M->race) M->race = calloc(1, sizeof *M->race);
    if (M->race) {
        M->race->n = 0;
        M->race->dropped = 0;
    }
}

void emu_race_free(emu_machine *M)
{
    if (!M->race) return;
    free(M->race->h);
    free(M->race);
    M->race = NULL;
}

uint64_t emu_race_count(const emu_machine *M)
{
    return M->race ? M->race->n : 0;
}

static void record(emu_machine *M, block *b, unsigned kind, uint32_t s1, uint32_t s2, uint32_t t1, uint32_t t2,
                   uint64_t off)
{
    struct race_state *R = M->race;
    if (!R) return;
    for (uint32_t i = 0; i < R->n; i++) {
        hazard *h = &R->h[i];
        if (h->kind == kind && h->first_site == s1 && h->second_site == s2) {
            h->count++;
            return;
        }
    }
    if (R->n == MAX_HAZ) {
        R->dropped++;
        return;
    }
    if (R->n == R->cap) {
        uint32_t nc = R->cap ? R->cap * 2 : 16;
        hazard *nh = realloc(R->h, nc * sizeof *nh);
        if (!nh) return;
        R->h = nh;
        R->cap = nc;
    }
    R->h[R->n++] = (hazard){(uint8_t)kind, s1, s2, 1, b->id, t1, t2, off};
}

/* bar.warp.sync over `lanes` of w, generation G = the new ws_epoch: every
 * participant is now ordered after what any participant was ordered after,
 * and after everything the participants did before G (vector clocks over
 * the 32 lanes, with the warp's generation counter as the clock). */
void emu_race_warp_sync(emu_machine *M, warp *w, uint32_t lanes)
{
    (void)M;
    uint32_t G = ++w->ws_epoch;
    if (!w->ws_vc && !(w->ws_vc = calloc(32, sizeof *w->ws_vc))) return;
    uint32_t join[32] = {0};
    FOR_LANES(lanes, b, {
        for (unsigned a = 0; a < 32; a++)
            if (w->ws_vc[b][a] > join[a]) join[a] = w->ws_vc[b][a];
    });
    FOR_LANES(lanes, a, join[a] = G);
    FOR_LANES(lanes, b, memcpy(w->ws_vc[b], join, sizeof join));
}

/* The lanes a of w whose accesses at generation gen or earlier lane b is
 * ordered after (a bar.warp.sync of both since). */
static inline uint32_t ordered_before(const warp *w, unsigned b, uint32_t gen)
{
    if (!w->ws_vc) return 0;
    uint32_t m = 0;
    for (unsigned a = 0; a < 32; a++)
        if (w->ws_vc[b][a] > gen) m |= 1u << a;
    return m;
}

/* Thread stored as id+1 with its access at generation stored_wep, and the
 * current thread t of warp w: are the two accesses ordered by
 * bar.warp.syncs in between? */
static inline bool warp_ordered(uint32_t stored, uint32_t stored_wep, uint32_t t, const warp *w)
{
    if ((stored - 1) / 32 != t / 32 || !w->ws_vc) return false;
    return w->ws_vc[t % 32][(stored - 1) % 32] > stored_wep;
}

void emu_race_access(emu_exec *x, const einst *I, const uint64_t *addr, uint32_t m, unsigned bytes, bool write)
{
    block *b = x->b;
    warp *w = x->w;
    if (!b->shadow) return;
    cell *C = b->shadow->c;
    uint32_t n = b->shadow->n;
    uint32_t ep = b->epoch + 1;
    uint32_t site = I->site;
    uint32_t wid = w->id + 1, wep = w->ws_epoch;
    uint32_t live = w->lanes & ~w->exited;
    FOR_LANES(m, l, {
        uint32_t t = w->id * 32 + l, me = t + 1;
        uint64_t a = addr[l];
        bool raw = false, war = false, waw = false;
        for (unsigned k = 0; k < bytes; k++) {
            if (a + k >= n) break;
            cell *c = &C[a + k];
            if (!write) {
                if (!raw && c->w_ep == ep && c->w_tid && c->w_tid != me && !warp_ordered(c->w_tid, c->w_wep, t, w)) {
                    record(x->M, b, 0, c->w_site, site, c->w_tid - 1, t, a + k);
                    raw = true;
                }
                if (c->r_ep != ep) {
                    c->r_ep = ep;
                    c->r_warp = wid;
                    c->r_wep = wep;
                    c->r_lanes = 1u << l;
                    c->r_site = site;
                    c->r_tid = t;
                } else if (c->r_warp == wid) {
                    if (c->r_wep != wep) {
                        /* readers every live lane is ordered after can no
                         * longer race with a write: forget them; the rest
                         * are kept at the newer generation (conservative) */
                        uint32_t keep = 0;
                        for (uint32_t q = live; q; q &= q - 1)
                            keep |= ~ordered_before(w, (unsigned)__builtin_ctz(q), c->r_wep);
                        c->r_lanes &= keep;
                        c->r_wep = wep;
                    }
                    c->r_lanes |= 1u << l;
                    c->r_site = site;
                    c->r_tid = t;
                } else {
                    c->r_warp = MULTI;
                }
            } else {
                if (!waw && c->w_ep == ep && c->w_tid && c->w_tid != me && !warp_ordered(c->w_tid, c->w_wep, t, w)) {
                    record(x->M, b, 2, c->w_site, site, c->w_tid - 1, t, a + k);
                    waw = true;
                }
                if (!war && c->r_ep == ep) {
                    bool haz = c->r_warp == MULTI || c->r_warp != wid ||
                               (c->r_lanes & ~(1u << l) & ~ordered_before(w, l, c->r_wep));
                    if (haz) {
                        uint32_t reader = c->r_warp == MULTI ? MULTI : c->r_tid;
                        if (reader == t && c->r_warp != MULTI) reader = MULTI; /* other lanes of its warp */
                        record(x->M, b, 1, c->r_site, site, reader, t, a + k);
                        war = true;
                    }
                }
                c->w_tid = me;
                c->w_ep = ep;
                c->w_site = site;
                c->w_wep = wep;
            }
        }
    });
}

/* For report.c */
uint32_t emu_race_n(const emu_machine *M) { return M->race ? M->race->n : 0; }
void emu_race_get(const emu_machine *M, uint32_t i, unsigned *kind, uint32_t *s1, uint32_t *s2, uint64_t *count,
                  emu_dim3 *blk, uint32_t *t1, uint32_t *t2, uint64_t *off)
{
    const hazard *h = &M->race->h[i];
    *kind = h->kind;
    *s1 = h->first_site;
    *s2 = h->second_site;
    *count = h->count;
    *blk = h->block;
    *t1 = h->t1;
    *t2 = h->t2;
    *off = h->offset;
}
uint64_t emu_race_dropped(const emu_machine *M) { return M->race ? M->race->dropped : 0; }
