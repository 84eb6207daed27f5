/* Dominators and post-dominators (Cooper, Harvey and Kennedy, "A Simple,
 * Fast Dominance Algorithm": iterate over reverse post-order, intersecting
 * along the current tree), dominator-tree numbering for O(1) queries, and
 * control dependence (Ferrante et al., walked up the post-dominator tree). */
#include <stdlib.h>
#include <string.h>
#include "cfg_impl.h"

/* A graph view: forward (succ/pred) or reverse (pred/succ, plus the fake
 * exit edges of blocks that cannot reach the exit). */
typedef struct view {
    cfg *g;
    bool rev;
    const uint32_t *fake;  /* reverse: blocks with a fake edge to the exit */
    uint32_t nfake;
} view;

static uint32_t nout(const view *v, uint32_t b)
{
    const cfg_block *bb = &v->g->blocks[b];
    if (!v->rev) return bb->nsucc;
    return bb->npred + (b == CFG_EXIT ? v->nfake : 0);
}

static uint32_t out(const view *v, uint32_t b, uint32_t i)
{
    const cfg_block *bb = &v->g->blocks[b];
    if (!v->rev) return bb->succ[i];
    return i < bb->npred ? bb->pred[i] : v->fake[i - bb->npred];
}

static uint32_t nin(const view *v, uint32_t b)
{
    const cfg_block *bb = &v->g->blocks[b];
    if (!v->rev) return bb->npred;
    return bb->nsucc + (bb->fake_exit ? 1 : 0);
}

typedef struct frame {
    uint32_t node, i;
} frame;

/* Post-order of the reachable blocks of the view from root; returns the
 * count.  Only blocks reachable from the entry take part. */
static uint32_t postorder(const view *v, uint32_t root, uint32_t *order, uint8_t *seen)
{
    cfg *g = v->g;
    frame *st = malloc(sizeof *st * g->nblocks);
    if (!st) abort();
    uint32_t n = 0, nf = 0;
    st[nf++] = (frame){root, 0};
    seen[root] = 1;
    while (nf) {
        frame *f = &st[nf - 1];
        if (f->i < nout(v, f->node)) {
            uint32_t t = out(v, f->node, f->i++);
            if (!seen[t] && g->blocks[t].reachable) {
                seen[t] = 1;
                st[nf++] = (frame){t, 0};
            }
        } else {
            order[n++] = f->node;
            nf--;
        }
    }
    free(st);
    return n;
}

void cfg_compute_rpo(cfg *g)
{
    view v = {g, false, NULL, 0};
    uint8_t *seen = calloc(g->nblocks, 1);
    uint32_t *po = malloc(sizeof *po * g->nblocks);
    if (!seen || !po) abort();
    uint32_t n = postorder(&v, CFG_ENTRY, po, seen);
    g->nreach = n;
    g->rpo_order = arena_alloc(g->a, sizeof *g->rpo_order * n); /* n >= 1: the entry */
    for (uint32_t i = 0; i < n; i++) {
        g->rpo_order[i] = po[n - 1 - i];
        g->blocks[po[n - 1 - i]].rpo = i;
    }
    free(seen);
    free(po);
}

/* The nearest common dominator (a position) of the predecessor positions
 * src[0..n) that have one in the tree d so far; CFG_NONE if none has. */
static inline uint32_t meet_preds(const uint32_t *src, uint32_t n, const uint32_t *d)
{
    uint32_t nd = CFG_NONE;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t x = src[i];
        if (d[x] == CFG_NONE) continue;
        if (nd == CFG_NONE) {
            nd = x;
            continue;
        }
        uint32_t y = nd;
        while (x != y) {
            while (x > y) x = d[x];
            while (y > x) y = d[y];
        }
        nd = x;
    }
    return nd;
}

static void number_positions(cfg *g, const uint32_t *order, uint32_t n, const uint32_t *d);

/* Cooper-Harvey-Kennedy over `order` (a reverse post-order of the view,
 * root first); num[b] is b's position in it.  Writes the tree into idom
 * (left alone for blocks not in order).  The iteration runs on positions,
 * not blocks: the in-edges copied once into one array of positions, and
 * the tree as positions, so the passes read two small arrays in order
 * instead of chasing blocks through the view (a third of the dominators'
 * cost on a 100k-block kernel).  The tree is unique, so the order the
 * edges are met in does not change it.  For the forward view it also
 * numbers the tree (number_positions), while the positions are at hand. */
static void chk(const view *v, const uint32_t *order, uint32_t n, const uint32_t *num, uint32_t *idom)
{
    if (!n) {
        if (!v->rev) number_positions(v->g, order, 0, NULL);
        return;
    }
    uint32_t *off = malloc(sizeof *off * (n + 1)), *d = malloc(sizeof *d * n);
    if (!off || !d) abort();
    /* the in-edges read from the blocks directly, not through the view
     * (forward: pred; reverse: succ, then the fake edge to the exit) */
    const cfg_block *blocks = v->g->blocks;
    uint32_t ne = 0;
    for (uint32_t k = 1; k < n; k++) ne += nin(v, order[k]);
    uint32_t *src = malloc(sizeof *src * (ne ? ne : 1));
    if (!src) abort();
    /* later: the positions with an edge from a later one (see below) */
    uint32_t *later = malloc(sizeof *later * n), nlater = 0;
    if (!later) abort();
    ne = 0;
    off[0] = off[1] = 0;
    for (uint32_t k = 1; k < n; k++) {
        const cfg_block *bb = &blocks[order[k]];
        const uint32_t *e = v->rev ? bb->succ : bb->pred;
        uint32_t ni = v->rev ? bb->nsucc : bb->npred, back = 0;
        for (uint32_t i = 0; i < ni; i++) {
            uint32_t p = num[e[i]];
            if (p == CFG_NONE) continue;
            src[ne++] = p;
            back |= p >= k;
        }
        if (v->rev && bb->fake_exit && num[CFG_EXIT] != CFG_NONE) {
            src[ne++] = num[CFG_EXIT];
            back |= num[CFG_EXIT] >= k;
        }
        off[k + 1] = ne;
        if (back) later[nlater++] = k;
    }
    d[0] = 0;
    for (uint32_t k = 1; k < n; k++) d[k] = CFG_NONE;
    /* A pass sets each position from its predecessors in order, so a
     * position whose predecessors all come before it is settled by the
     * pass that sets it and stays so while those do.  Only the positions
     * with an edge from later (for a reducible graph, the loop headers)
     * can be left unsettled: after a pass, those are met again, and a
     * pass runs again only if one changes, and only from it (everything
     * before it is settled).  The iteration stops at the fixed point the
     * full passes reach (the tree is unique), with one pass and the loop
     * headers instead of two or three passes over every position. */
    for (uint32_t from = 1; from < n;) {
        for (uint32_t k = from; k < n; k++) d[k] = meet_preds(src + off[k], off[k + 1] - off[k], d);
        from = n;
        for (uint32_t j = 0; j < nlater; j++) {
            uint32_t k = later[j];
            if (meet_preds(src + off[k], off[k + 1] - off[k], d) != d[k]) {
                from = k;
                break;
            }
        }
    }
    free(later);
    idom[order[0]] = CFG_NONE;
    for (uint32_t k = 1; k < n; k++) idom[order[k]] = d[k] == CFG_NONE ? CFG_NONE : order[d[k]];
    if (!v->rev) number_positions(v->g, order, n, d);
    free(off);
    free(d);
    free(src);
}

/* Pre/post numbers of the dominator tree that chk found, stored in the
 * blocks' dom_* fields; blocks outside it get CFG_NONE.  The tree is in
 * positions: order[k] is the block at position k, d[k] its parent's
 * position, always before it (an idom comes before its blocks in a
 * reverse post-order).  So no walk of the tree is needed: subtree sizes
 * come from one backward pass, pre numbers from one forward pass (each
 * parent hands its children consecutive ranges), and post = pre + size - 1.
 * cfg_dominates compares intervals only, so any pre-order numbering
 * serves; this one replaced a depth-first walk over child lists built for
 * it.  (The post-dominator tree is not numbered: cfg_postdominates.) */
static void number_positions(cfg *g, const uint32_t *order, uint32_t n, const uint32_t *d)
{
    for (uint32_t b = 0; b < g->nblocks; b++) g->blocks[b].dom_pre = g->blocks[b].dom_post = CFG_NONE;
    if (!n) return;
    /* size[k]: subtree size, 0 for positions outside the tree; next[k]:
     * the pre number its next child gets */
    uint32_t *size = malloc(sizeof *size * n), *next = malloc(sizeof *next * n);
    if (!size || !next) abort();
    size[0] = 1;
    for (uint32_t k = 1; k < n; k++) size[k] = d[k] != CFG_NONE && size[d[k]] ? 1 : 0;
    for (uint32_t k = n; k-- > 1;)
        if (size[k]) size[d[k]] += size[k];
    next[0] = 1;
    for (uint32_t k = 0; k < n; k++) {
        if (!size[k]) continue;
        uint32_t pre = k ? next[d[k]] : 0;
        if (k) next[d[k]] += size[k];
        next[k] = pre + 1;
        cfg_block *bb = &g->blocks[order[k]];
        bb->dom_pre = pre;
        bb->dom_post = pre + size[k] - 1;
    }
    free(size);
    free(next);
}

void cfg_compute_dominators(cfg *g)
{
    uint32_t n = g->nblocks;
    view v = {g, false, NULL, 0};
    uint32_t *num = calloc(n, sizeof *num), *idom = calloc(n, sizeof *idom);
    if (!num || !idom) abort();
    for (uint32_t b = 0; b < n; b++) {
        num[b] = g->blocks[b].rpo;
        idom[b] = CFG_NONE;
    }
    chk(&v, g->rpo_order, g->nreach, num, idom);
    for (uint32_t b = 0; b < n; b++) g->blocks[b].idom = idom[b];
    free(num);
    free(idom);
}

void cfg_compute_postdominators(cfg *g)
{
    uint32_t n = g->nblocks;
    uint8_t *seen = calloc(n, 1);
    uint32_t *po = malloc(sizeof *po * n);
    if (!seen || !po) abort();
    /* Blocks that cannot reach the exit: the one latest in reverse
     * post-order of each such region gets a fake exit edge (for a simple
     * infinite loop, its latch). */
    view v = {g, true, NULL, 0};
    uint32_t m = postorder(&v, CFG_EXIT, po, seen);
    u32vec fake = {0};
    for (uint32_t k = g->nreach; k-- > 0;) {
        uint32_t b = g->rpo_order[k];
        if (seen[b]) continue;
        g->blocks[b].fake_exit = 1;
        u32vec_push(&fake, b);
        postorder(&v, b, po, seen);
    }
    /* The real post-order of the reverse graph, fake edges included
     * (without any, the walk above was it). */
    if (fake.n) {
        memset(seen, 0, n);
        v.fake = fake.v;
        v.nfake = fake.n;
        m = postorder(&v, CFG_EXIT, po, seen);
    }
    uint32_t *order = calloc(m ? m : 1, sizeof *order), *num = calloc(n, sizeof *num),
             *ipdom = calloc(n, sizeof *ipdom);
    if (!order || !num || !ipdom) abort();
    for (uint32_t b = 0; b < n; b++) {
        num[b] = CFG_NONE;
        ipdom[b] = CFG_NONE;
    }
    for (uint32_t i = 0; i < m; i++) {
        order[i] = po[m - 1 - i];
        num[order[i]] = i;
    }
    chk(&v, order, m, num, ipdom);
    for (uint32_t b = 0; b < n; b++) g->blocks[b].ipdom = ipdom[b];
    u32vec_free(&fake);
    free(seen);
    free(po);
    free(order);
    free(num);
    free(ipdom);
}

void cfg_compute_control_dependence(cfg *g)
{
    uint32_t n = g->nblocks;
    u32vec dep = {0}, on = {0};
    u32vec_reserve(&dep, n); /* a guess: about one a block */
    u32vec_reserve(&on, n);
    uint32_t *last = malloc(sizeof *last * (n ? n : 1));
    if (!last) abort();
    for (uint32_t b = 0; b < n; b++) last[b] = CFG_NONE;
    for (uint32_t a = 0; a < n; a++) {
        const cfg_block *ba = &g->blocks[a];
        if (!ba->reachable || ba->nsucc < 2) continue;
        for (uint32_t i = 0; i < ba->nsucc; i++)
            for (uint32_t r = ba->succ[i]; r != CFG_NONE && r != ba->ipdom; r = g->blocks[r].ipdom) {
                if (last[r] == a) break; /* reached from an earlier successor: the rest is done */
                last[r] = a;
                u32vec_push(&dep, r);
                u32vec_push(&on, a);
            }
    }
    g->cdep_off = ARENA_NEWN(g->a, uint32_t, n + 1);
    g->cdep = arena_alloc(g->a, sizeof *g->cdep * (dep.n ? dep.n : 1));
    g->cdep[0] = 0; /* when there is none */
    for (uint32_t i = 0; i < dep.n; i++) g->cdep_off[dep.v[i] + 1]++;
    for (uint32_t b = 0; b < n; b++) g->cdep_off[b + 1] += g->cdep_off[b];
    memcpy(last, g->cdep_off, sizeof *last * n);
    for (uint32_t i = 0; i < dep.n; i++) g->cdep[last[dep.v[i]]++] = on.v[i];
    free(last);
    u32vec_free(&dep);
    u32vec_free(&on);
}
