/* Loop nesting forest (Steensgaard 1993, as surveyed by Ramalingam 2002):
 * the loops of a region are its non-trivial strongly connected components;
 * a loop's headers are its blocks entered from outside it; removing the
 * edges into a loop's headers and repeating inside it gives the nested
 * loops.  For reducible code this is the natural-loop forest (loops sharing
 * a header merge into one); an irreducible region comes out as one loop
 * with several headers instead of being missed.  Removing every loop's back
 * edges leaves an acyclic graph, which the GSA gating construction relies
 * on. */
#include <stdlib.h>
#include <string.h>
#include "cfg_impl.h"

typedef struct frame {
    uint32_t node, i;
} frame;

typedef struct scc_state {
    cfg *g;
    uint32_t *region;  /* region stamp of each block */
    uint32_t *hdr;     /* stamp of the region whose headers it is */
    uint32_t *seen;    /* stamp: visited in the current region */
    uint32_t *idx, *low;
    uint8_t *onstack;
    uint32_t *mark;    /* SCC serial number, for header detection */
    u32vec stack;
    frame *frames;
    /* the forest, grown on malloc, copied to the arena at the end */
    cfg_loop *loops;
    uint32_t nloops, cap;
    u32vec work;       /* loops whose bodies are still to be searched */
    uint32_t serial;
} scc_state;

static bool considered(const scc_state *s, uint32_t b, uint32_t r)
{
    return s->region[b] == r && s->hdr[b] != r;
}

static uint32_t new_loop(scc_state *s, uint32_t parent)
{
    if (s->nloops == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 8;
        s->loops = realloc(s->loops, sizeof *s->loops * s->cap);
        if (!s->loops) abort();
    }
    cfg_loop *l = &s->loops[s->nloops];
    memset(l, 0, sizeof *l);
    l->parent = parent;
    l->depth = parent == CFG_NONE ? 1 : s->loops[parent].depth + 1;
    return s->nloops++;
}

/* An SCC of the current region has been popped into comp[0..n): make it a
 * loop if it is a cycle. */
static void found_scc(scc_state *s, const uint32_t *comp, uint32_t n, uint32_t r, uint32_t parent)
{
    cfg *g = s->g;
    if (n == 1) {
        bool self = false;
        for (uint32_t i = 0; i < g->blocks[comp[0]].nsucc; i++)
            if (g->blocks[comp[0]].succ[i] == comp[0] && considered(s, comp[0], r)) self = true;
        if (!self) return;
    }
    uint32_t id = new_loop(s, parent);
    s->serial++;
    for (uint32_t i = 0; i < n; i++) {
        s->mark[comp[i]] = s->serial;
        g->blocks[comp[i]].loop = id;
    }
    u32vec hs = {0};
    for (uint32_t i = 0; i < n; i++) {
        const cfg_block *bb = &g->blocks[comp[i]];
        for (uint32_t k = 0; k < bb->npred; k++) {
            uint32_t p = bb->pred[k];
            if (g->blocks[p].reachable && s->mark[p] != s->serial) {
                u32vec_push(&hs, comp[i]);
                break;
            }
        }
    }
    if (!hs.n) u32vec_push(&hs, comp[0]); /* cannot happen for reachable code; stay total */
    /* headers sorted, so the forest does not depend on DFS order */
    for (uint32_t i = 1; i < hs.n; i++)
        for (uint32_t j = i; j > 0 && hs.v[j - 1] > hs.v[j]; j--) {
            uint32_t t = hs.v[j];
            hs.v[j] = hs.v[j - 1];
            hs.v[j - 1] = t;
        }
    cfg_loop *l = &s->loops[id];
    l->nheaders = hs.n;
    l->headers = ARENA_NEWN(g->a, uint32_t, hs.n);
    memcpy(l->headers, hs.v, sizeof *hs.v * hs.n);
    l->irreducible = hs.n > 1;
    /* the body is searched later with its own region stamp (id + 2) */
    l->nblocks = n;
    l->blocks = ARENA_NEWN(g->a, uint32_t, n);
    memcpy(l->blocks, comp, sizeof *comp * n);
    u32vec_free(&hs);
    u32vec_push(&s->work, id);
}

/* Tarjan's algorithm over the blocks of one region, iteratively. */
static void scc_region(scc_state *s, const uint32_t *nodes, uint32_t n, uint32_t r, uint32_t parent)
{
    cfg *g = s->g;
    uint32_t counter = 0;
    for (uint32_t k = 0; k < n; k++) {
        if (s->seen[nodes[k]] == r) continue;
        uint32_t nf = 0;
        s->frames[nf++] = (frame){nodes[k], 0};
        s->seen[nodes[k]] = r;
        s->idx[nodes[k]] = s->low[nodes[k]] = counter++;
        s->onstack[nodes[k]] = 1;
        u32vec_push(&s->stack, nodes[k]);
        while (nf) {
            frame *f = &s->frames[nf - 1];
            uint32_t b = f->node;
            if (f->i < g->blocks[b].nsucc) {
                uint32_t t = g->blocks[b].succ[f->i++];
                if (!considered(s, t, r)) continue;
                if (s->seen[t] != r) {
                    s->seen[t] = r;
                    s->idx[t] = s->low[t] = counter++;
                    s->onstack[t] = 1;
                    u32vec_push(&s->stack, t);
                    s->frames[nf++] = (frame){t, 0};
                } else if (s->onstack[t] && s->idx[t] < s->low[b]) {
                    s->low[b] = s->idx[t];
                }
                continue;
            }
            nf--;
            if (s->low[b] == s->idx[b]) {
                uint32_t top = s->stack.n;
                do s->onstack[s->stack.v[--s->stack.n]] = 0;
                while (s->stack.v[s->stack.n] != b);
                found_scc(s, s->stack.v + s->stack.n, top - s->stack.n, r, parent);
            }
            if (nf) {
                uint32_t p = s->frames[nf - 1].node;
                if (s->low[b] < s->low[p]) s->low[p] = s->low[b];
            }
        }
    }
}

/* Block lists, latches and exits of every loop, from the innermost-loop
 * field of each block (after any edge splitting). */
static void finish_loops(cfg *g)
{
    uint32_t *count = calloc(g->nloops + 1, sizeof *count);
    if (!count) abort();
    for (uint32_t b = 0; b < g->nblocks; b++)
        for (uint32_t l = g->blocks[b].loop; l != CFG_NONE; l = g->loops[l].parent) count[l]++;
    for (uint32_t l = 0; l < g->nloops; l++) {
        g->loops[l].blocks = arena_alloc(g->a, sizeof *g->loops[l].blocks * count[l]); /* filled below */
        g->loops[l].nblocks = 0;
    }
    for (uint32_t b = 0; b < g->nblocks; b++)
        for (uint32_t l = g->blocks[b].loop; l != CFG_NONE; l = g->loops[l].parent)
            g->loops[l].blocks[g->loops[l].nblocks++] = b;
    u32vec lat = {0}, ef = {0}, et = {0}; /* scratch, reused loop after loop */
    for (uint32_t l = 0; l < g->nloops; l++) {
        cfg_loop *lp = &g->loops[l];
        lat.n = ef.n = et.n = 0;
        for (uint32_t i = 0; i < lp->nblocks; i++) {
            const cfg_block *bb = &g->blocks[lp->blocks[i]];
            bool latch = false;
            for (uint32_t k = 0; k < bb->nsucc; k++) {
                uint32_t t = bb->succ[k];
                for (uint32_t h = 0; h < lp->nheaders; h++)
                    if (lp->headers[h] == t) latch = true;
                if (!cfg_loop_contains(g, l, t)) {
                    u32vec_push(&ef, lp->blocks[i]);
                    u32vec_push(&et, t);
                }
            }
            if (latch) u32vec_push(&lat, lp->blocks[i]);
        }
        lp->nlatches = lat.n;
        lp->latches = ARENA_NEWN(g->a, uint32_t, lat.n ? lat.n : 1);
        if (lat.n) memcpy(lp->latches, lat.v, sizeof *lat.v * lat.n);
        lp->nexits = ef.n;
        lp->exit_from = ARENA_NEWN(g->a, uint32_t, ef.n ? ef.n : 1);
        lp->exit_to = ARENA_NEWN(g->a, uint32_t, ef.n ? ef.n : 1);
        if (ef.n) {
            memcpy(lp->exit_from, ef.v, sizeof *ef.v * ef.n);
            memcpy(lp->exit_to, et.v, sizeof *et.v * et.n);
        }
    }
    u32vec_free(&lat);
    u32vec_free(&ef);
    u32vec_free(&et);
    free(count);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Loop ids in program order: a pre-order of the forest with siblings
 * sorted by their first header, so loop 0 is the first loop of the listing
 * and a parent still comes before its children. */
static void renumber_loops(cfg *g)
{
    uint32_t n = g->nloops;
    if (n < 2) return;
    /* children lists (index n = the roots), each sorted by first header */
    uint32_t *cnt = calloc(n + 2, sizeof *cnt), *kids = malloc(sizeof *kids * n);
    uint32_t *order = malloc(sizeof *order * n), *newid = malloc(sizeof *newid * n);
    uint32_t *stack = malloc(sizeof *stack * (n + 1));
    if (!cnt || !kids || !order || !newid || !stack) abort();
    for (uint32_t l = 0; l < n; l++) cnt[(g->loops[l].parent == CFG_NONE ? n : g->loops[l].parent) + 1]++;
    for (uint32_t p = 0; p <= n; p++) cnt[p + 1] += cnt[p];
    memcpy(newid, cnt, sizeof *newid * n); /* fill pointers for parents 0..n-1 */
    uint32_t rootfill = cnt[n];
    for (uint32_t l = 0; l < n; l++) {
        uint32_t p = g->loops[l].parent;
        kids[p == CFG_NONE ? rootfill++ : newid[p]++] = l;
    }
    /* each list sorted by (first header, loop id): the stable order of
     * the ids the lists were filled in.  By key, not by insertion sort:
     * the roots of a long kernel are thousands of loops (100k blocks:
     * 7692, and insertion sort was most of the CFG's time) */
    uint64_t *key = malloc(sizeof *key * n);
    if (!key) abort();
    for (uint32_t p = 0; p <= n; p++) {
        uint32_t lo = cnt[p], hi = cnt[p + 1];
        if (hi - lo < 2) continue;
        for (uint32_t i = lo; i < hi; i++) key[i] = (uint64_t)g->loops[kids[i]].headers[0] << 32 | kids[i];
        qsort(key + lo, hi - lo, sizeof *key, cmp_u64);
        for (uint32_t i = lo; i < hi; i++) kids[i] = (uint32_t)key[i];
    }
    free(key);
    /* pre-order: push siblings in reverse so the first is visited first */
    uint32_t nord = 0, nst = 0;
    for (uint32_t i = cnt[n + 1]; i-- > cnt[n];) stack[nst++] = kids[i];
    while (nst) {
        uint32_t l = stack[--nst];
        order[nord++] = l;
        for (uint32_t i = cnt[l + 1]; i-- > cnt[l];) stack[nst++] = kids[i];
    }
    for (uint32_t i = 0; i < n; i++) newid[order[i]] = i;
    /* permuted in place through a heap copy (an arena copy would leave
     * the first array dead there) */
    cfg_loop *old = malloc(sizeof *old * n);
    if (!old) abort();
    memcpy(old, g->loops, sizeof *old * n);
    for (uint32_t i = 0; i < n; i++) {
        g->loops[i] = old[order[i]];
        if (g->loops[i].parent != CFG_NONE) g->loops[i].parent = newid[g->loops[i].parent];
    }
    free(old);
    for (uint32_t b = 0; b < g->nblocks; b++)
        if (g->blocks[b].loop != CFG_NONE) g->blocks[b].loop = newid[g->blocks[b].loop];
    free(cnt);
    free(kids);
    free(order);
    free(newid);
    free(stack);
}

void cfg_find_loops(cfg *g)
{
    uint32_t n = g->nblocks;
    scc_state s = {.g = g};
    s.region = calloc(n, sizeof *s.region);
    s.hdr = calloc(n, sizeof *s.hdr);
    s.seen = calloc(n, sizeof *s.seen);
    s.idx = malloc(sizeof *s.idx * (n ? n : 1)); /* set when a block is first seen */
    s.low = malloc(sizeof *s.low * (n ? n : 1));
    s.onstack = calloc(n, 1);
    s.mark = calloc(n, sizeof *s.mark);
    s.frames = malloc(sizeof *s.frames * (n ? n : 1));
    if (!s.region || !s.hdr || !s.seen || !s.idx || !s.low || !s.onstack || !s.mark || !s.frames) abort();

    /* region stamps: 1 for the whole function, loop id + 2 for a loop body */
    u32vec all = {0};
    for (uint32_t b = 0; b < n; b++)
        if (g->blocks[b].reachable) {
            s.region[b] = 1;
            u32vec_push(&all, b);
        }
    scc_region(&s, all.v, all.n, 1, CFG_NONE);
    u32vec_free(&all);
    for (uint32_t w = 0; w < s.work.n; w++) {
        uint32_t id = s.work.v[w], r = id + 2;
        cfg_loop *l = &s.loops[id];
        for (uint32_t i = 0; i < l->nblocks; i++) s.region[l->blocks[i]] = r;
        for (uint32_t h = 0; h < l->nheaders; h++) s.hdr[l->headers[h]] = r;
        /* the body as found_scc stored it (in the arena: found_scc may move
         * s.loops, not that).  Unsorted: the order the search meets the
         * blocks in changes the order loops are found in, not the loops,
         * and renumber_loops orders them by their headers. */
        const uint32_t *nodes = l->blocks;
        scc_region(&s, nodes, l->nblocks, r, id);
    }
    g->nloops = s.nloops;
    g->loops = ARENA_NEWN(g->a, cfg_loop, s.nloops ? s.nloops : 1);
    if (s.nloops) memcpy(g->loops, s.loops, sizeof *s.loops * s.nloops);
    free(s.loops);
    free(s.region);
    free(s.hdr);
    free(s.seen);
    free(s.idx);
    free(s.low);
    free(s.onstack);
    free(s.mark);
    free(s.frames);
    u32vec_free(&s.stack);
    u32vec_free(&s.work);
    renumber_loops(g);
    for (uint32_t l = 0; l < g->nloops; l++) {
        g->nirreducible += g->loops[l].irreducible;
        for (uint32_t h = 0; h < g->loops[l].nheaders; h++) g->blocks[g->loops[l].headers[h]].header = 1;
    }
}

void cfg_finish_loops(cfg *g) { finish_loops(g); }

/* The outermost loop that the edge u -> v leaves, or CFG_NONE. */
uint32_t cfg_exited_loop(const cfg *g, uint32_t u, uint32_t v)
{
    uint32_t out = CFG_NONE;
    for (uint32_t l = g->blocks[u].loop; l != CFG_NONE && !cfg_loop_contains(g, l, v); l = g->loops[l].parent)
        out = l;
    return out;
}

/* A loop-exit edge u -> v gets a landing block when v has other
 * predecessors, so that each eta function sits on one exit edge and reads a
 * value from inside the loop; a join after the landings merges them.  The
 * edges are found first (by v, then by predecessor: the landings' order),
 * so the blocks grow once by their exact number and the loops' lists are
 * made once, after the split (cfg_finish_loops), not before it as well. */
void cfg_split_loop_exits(cfg *g)
{
    uint32_t n0 = g->nblocks;
    u32vec ev = {0}, ek = {0}; /* landing on pred ek of block ev */
    for (uint32_t v = 0; v < n0; v++) {
        const cfg_block *bv = &g->blocks[v];
        if (!bv->reachable) continue;
        uint32_t nreach = 0;
        for (uint32_t k = 0; k < bv->npred; k++) nreach += g->blocks[bv->pred[k]].reachable;
        if (nreach < 2) continue;
        for (uint32_t k = 0; k < bv->npred; k++) {
            uint32_t u = bv->pred[k];
            if (!g->blocks[u].reachable || g->blocks[u].loop == CFG_NONE || cfg_exited_loop(g, u, v) == CFG_NONE)
                continue;
            u32vec_push(&ev, v);
            u32vec_push(&ek, k);
        }
    }
    if (!ev.n) return;
    /* g->blocks is still on the heap here (cfg_build moves it to the arena) */
    cfg_block *nb = realloc(g->blocks, sizeof *nb * (n0 + ev.n));
    if (!nb) abort();
    g->blocks = nb;
    /* the landings' one-item edge lists, in one piece */
    uint32_t *edges = arena_alloc(g->a, sizeof *edges * 2 * (size_t)ev.n);
    for (uint32_t e = 0; e < ev.n; e++) {
        uint32_t v = ev.v[e], k = ek.v[e];
        uint32_t u = g->blocks[v].pred[k];
        uint32_t w = g->nblocks++;
        cfg_block *bw = &g->blocks[w];
        memset(bw, 0, sizeof *bw);
        bw->kind = CFG_B_LANDING;
        bw->reachable = 1;
        bw->first = bw->end = g->blocks[v].kind == CFG_B_EXIT ? g->fn->nstmts : g->blocks[v].first;
        bw->label = bw->term = bw->rpo = bw->idom = bw->ipdom = CFG_NONE;
        bw->nsucc = bw->npred = 1;
        bw->succ = edges + 2 * e;
        bw->pred = edges + 2 * e + 1;
        bw->succ[0] = v;
        bw->pred[0] = u;
        uint32_t l = g->blocks[u].loop;
        while (l != CFG_NONE && !cfg_loop_contains(g, l, v)) l = g->loops[l].parent;
        bw->loop = l;
        cfg_block *bu = &g->blocks[u];
        for (uint32_t i = 0; i < bu->nsucc; i++)
            if (bu->succ[i] == v) bu->succ[i] = w;
        g->blocks[v].pred[k] = w;
    }
    u32vec_free(&ev);
    u32vec_free(&ek);
}
