/* SSA construction: Cytron et al.'s phi placement at the iterated dominance
 * frontier, pruned by per-register liveness (so no dead phis appear in the
 * GSA listing), eta placement on loop-exit landing blocks, and renaming by a
 * walk of the dominator tree.  Work is per register and proportional to its
 * live range, so a kernel with many short-lived registers stays linear. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "semantics.h"
#include "ssa.h"
#include "u32vec.h"


static void *xcalloc(size_t n, size_t sz)
{
    void *p = calloc(n ? n : 1, sz);
    if (!p) {
        fprintf(stderr, "ptxray: out of memory\n");
        abort();
    }
    return p;
}

/* For scratch whose every item is written before it is read: zeroing it
 * first was a pass over each per-block and per-register array. */
static void *xmalloc(size_t n, size_t sz)
{
    void *p = malloc((n ? n : 1) * sz);
    if (!p) {
        fprintf(stderr, "ptxray: out of memory\n");
        abort();
    }
    return p;
}


/* ---- pass 1: the references of every instruction ------------------------ */
/* The references go straight into their final form (a reference and its
 * register id side by side), grown on the heap and copied to the arena
 * once: an intermediate triple per reference cost three capacity checks
 * and a second pass. */
typedef struct refctx {
    ssa_ref *refs;
    uint32_t *ids;
    uint32_t n, cap;
} refctx;

static void refs_grow(refctx *c)
{
    c->cap = c->cap ? 2 * c->cap : 64;
    c->refs = realloc(c->refs, sizeof *c->refs * c->cap);
    c->ids = realloc(c->ids, sizeof *c->ids * c->cap);
    if (!c->refs || !c->ids) {
        fprintf(stderr, "ptxray: out of memory\n");
        abort();
    }
}

static void ref_cb(void *ctx, const ptx_inst *in, const ptx_reg_ref *r)
{
    refctx *c = ctx;
    if (c->n == c->cap) refs_grow(c);
    c->refs[c->n] = (ssa_ref){.value = SSA_NONE,
                              .opd = r->opd,
                              .role = (uint16_t)r->role,
                              .comp = r->comp,
                              .neg = (r->role & PTX_REF_GUARD) && in->guard_neg};
    c->ids[c->n++] = r->role & PTX_REF_SREG ? (uint32_t)r->o->n | (uint32_t)r->o->v << 8 : r->id;
}

typedef struct builder {
    ssa_func *s;
    const cfg *g;
    const ptx_func *fn;
    uint32_t nregs, nblocks;
    ssa_value *values;
    uint32_t nvalues, capvalues;
    uint32_t *ref_id;        /* per ref: register index or sreg key */
    u32csr defs, ues;           /* per register: blocks defining it / reading it before any def */
    u32csr df;                  /* dominance frontier per block */
    u32csr domkids;
    uint32_t *eta_inner, *eta_outer; /* per block: loops left on arrival (landing blocks) */
    u32vec node_block, node_reg, node_kind;
} builder;

static uint32_t new_value(builder *b, uint8_t kind, uint32_t reg, uint32_t block)
{
    if (b->nvalues == b->capvalues) abort(); /* value_room's bound is wrong */
    ssa_value *v = &b->values[b->nvalues];
    memset(v, 0, sizeof *v);
    v->kind = kind;
    v->reg = reg;
    v->block = block;
    v->stmt = v->ref = v->prev = v->node = SSA_NONE;
    return b->nvalues++;
}

static void collect_refs(builder *b)
{
    ssa_func *s = b->s;
    const ptx_func *fn = b->fn;
    refctx c = {0};
    c.cap = 2 * fn->nstmts + 16; /* a guess: two references a statement */
    c.refs = malloc(sizeof *c.refs * c.cap);
    c.ids = malloc(sizeof *c.ids * c.cap);
    if (!c.refs || !c.ids) abort();
    s->ref_off = arena_alloc(s->a, sizeof *s->ref_off * (fn->nstmts + 1)); /* every entry set below */
    s->sem = ARENA_NEWN(s->a, ptx_inst_sem, fn->nstmts + 1);
    s->iop = ARENA_NEWN(s->a, ptx_iop, fn->nstmts + 1);
    for (uint32_t i = 0; i < fn->nstmts; i++) {
        s->ref_off[i] = c.n;
        const ptx_stmt *st = fn->stmts[i];
        if (st->kind != PTX_S_INST) continue;
        ptx_inst_semantics(&st->u.inst, &s->sem[i]);
        ptx_iop_decode(fn, &st->u.inst, &s->sem[i], &s->iop[i]);
        ptx_inst_foreach_reg(&st->u.inst, &s->sem[i], ref_cb, &c);
    }
    uint32_t n = c.n;
    s->ref_off[fn->nstmts] = n;
    s->refs = arena_alloc(s->a, sizeof *s->refs * (n ? n : 1));
    b->ref_id = s->ref_reg = arena_alloc(s->a, sizeof *s->ref_reg * (n + 1));
    if (n) memcpy(s->refs, c.refs, sizeof *s->refs * n);
    else memset(s->refs, 0, sizeof *s->refs);
    memcpy(s->ref_reg, c.ids, sizeof *s->ref_reg * n);
    s->ref_reg[n] = 0;
    free(c.refs);
    free(c.ids);
}

static bool is_reg_ref(const ssa_ref *r) { return !(r->role & PTX_REF_SREG); }
/* A definition that keeps part of the old value reads it. */
static bool reads_old(const ssa_ref *r) { return (r->role & PTX_REF_DEF) && (r->role & PTX_REF_MAYDEF); }

/* Return registers of a .func are read at the exit. */
static void find_ret_regs(builder *b)
{
    ssa_func *s = b->s;
    const ptx_func *fn = b->fn;
    u32vec rr = {0};
    for (uint32_t i = 0; i < fn->nrets; i++) {
        if (fn->rets[i]->space != PTX_SP_REG) continue;
        for (uint32_t r = 0; r < fn->nregs; r++)
            if (ptx_str_eqs(fn->regs[r].name, fn->rets[i]->name)) {
                u32vec_push(&rr, r);
                break;
            }
    }
    s->nret_vals = rr.n;
    s->ret_regs = ARENA_NEWN(s->a, uint32_t, rr.n ? rr.n : 1);
    s->ret_vals = ARENA_NEWN(s->a, uint32_t, rr.n ? rr.n : 1);
    for (uint32_t i = 0; i < rr.n; i++) {
        s->ret_regs[i] = rr.v[i];
        s->ret_vals[i] = SSA_NONE;
    }
    free(rr.v);
}

/* Blocks defining each register, and blocks reading it before defining it. */
static void def_use_blocks(builder *b)
{
    const cfg *g = b->g;
    const ssa_func *s = b->s;
    uint32_t *dstamp = xcalloc(b->nregs, sizeof *dstamp), *ustamp = xcalloc(b->nregs, sizeof *ustamp);
    uint32_t *defd = xcalloc(b->nregs, sizeof *defd);
    u32vec dk = {0}, di = {0}, uk = {0}, ui = {0};
    uint32_t bound = s->ref_off[b->fn->nstmts] + s->nret_vals; /* at most one of each a reference */
    u32vec_reserve(&dk, bound);
    u32vec_reserve(&di, bound);
    u32vec_reserve(&uk, bound);
    u32vec_reserve(&ui, bound);
    for (uint32_t blk = 0; blk < g->nblocks; blk++) {
        const cfg_block *bb = &g->blocks[blk];
        if (!bb->reachable || bb->kind != CFG_B_REAL) continue;
        uint32_t tag = blk + 1;
        for (uint32_t i = bb->first; i < bb->end; i++)
            for (uint32_t k = s->ref_off[i]; k < s->ref_off[i + 1]; k++) {
                const ssa_ref *r = &s->refs[k];
                if (!is_reg_ref(r)) continue;
                uint32_t reg = b->ref_id[k];
                bool use = (r->role & PTX_REF_USE) || reads_old(r);
                if (use && defd[reg] != tag && ustamp[reg] != tag) {
                    ustamp[reg] = tag;
                    u32vec_push(&uk, reg);
                    u32vec_push(&ui, blk);
                }
                if (r->role & PTX_REF_DEF) {
                    defd[reg] = tag;
                    if (dstamp[reg] != tag) {
                        dstamp[reg] = tag;
                        u32vec_push(&dk, reg);
                        u32vec_push(&di, blk);
                    }
                }
            }
    }
    for (uint32_t i = 0; i < s->nret_vals; i++) {
        u32vec_push(&uk, s->ret_regs[i]);
        u32vec_push(&ui, CFG_EXIT);
    }
    u32csr_build(&b->defs, b->nregs, &dk, &di);
    u32csr_build(&b->ues, b->nregs, &uk, &ui);
    free(dk.v);
    free(di.v);
    free(uk.v);
    free(ui.v);
    free(dstamp);
    free(ustamp);
    free(defd);
}

static void dominance_frontiers(builder *b)
{
    const cfg *g = b->g;
    u32vec k = {0}, it = {0};
    u32vec_reserve(&k, g->nblocks); /* frontiers are mostly small: a guess */
    u32vec_reserve(&it, g->nblocks);
    uint32_t *seen = xcalloc(g->nblocks, sizeof *seen);
    for (uint32_t j = 0; j < g->nblocks; j++) {
        const cfg_block *bj = &g->blocks[j];
        if (!bj->reachable || bj->npred < 2) continue;
        for (uint32_t i = 0; i < bj->npred; i++) {
            /* runs from two predecessors can share a tail: stop where the
             * other run already went */
            for (uint32_t r = bj->pred[i]; r != CFG_NONE && r != bj->idom && g->blocks[r].reachable && seen[r] != j + 1;
                 r = g->blocks[r].idom) {
                seen[r] = j + 1;
                u32vec_push(&k, r);
                u32vec_push(&it, j);
            }
        }
    }
    free(seen);
    u32csr_build(&b->df, g->nblocks, &k, &it);
    free(k.v);
    free(it.v);
    u32vec ck = {0}, ci = {0};
    u32vec_reserve(&ck, g->nblocks);
    u32vec_reserve(&ci, g->nblocks);
    for (uint32_t j = 0; j < g->nblocks; j++)
        if (g->blocks[j].reachable && g->blocks[j].idom != CFG_NONE) {
            u32vec_push(&ck, g->blocks[j].idom);
            u32vec_push(&ci, j);
        }
    u32csr_build(&b->domkids, g->nblocks, &ck, &ci);
    free(ck.v);
    free(ci.v);
}

/* Landing blocks (and exit targets with a single predecessor) receive the
 * values that leave the loops of that edge. */
static void eta_blocks(builder *b)
{
    const cfg *g = b->g;
    b->eta_inner = xmalloc(g->nblocks, sizeof *b->eta_inner);
    b->eta_outer = xmalloc(g->nblocks, sizeof *b->eta_outer);
    for (uint32_t y = 0; y < g->nblocks; y++) {
        b->eta_inner[y] = b->eta_outer[y] = CFG_NONE;
        const cfg_block *by = &g->blocks[y];
        if (!by->reachable) continue;
        uint32_t u = CFG_NONE, n = 0;
        for (uint32_t i = 0; i < by->npred; i++)
            if (g->blocks[by->pred[i]].reachable) {
                u = by->pred[i];
                n++;
            }
        if (n != 1) continue; /* CFG_SPLIT_LOOP_EXITS gave every exit edge such a block */
        uint32_t out = cfg_exited_loop(g, u, y);
        if (out == CFG_NONE) continue;
        b->eta_inner[y] = g->blocks[u].loop;
        b->eta_outer[y] = out;
    }
}

/* Per register: live-in blocks, eta blocks, phi blocks.  Registers go 32
 * at a time, one bit each in a word per block: the liveness walk and the
 * iterated dominance frontier move the bits of all 32 together, so
 * registers live over the same blocks (a kernel's pointers, indices and
 * counters, live across all of a large kernel) share one walk instead of
 * one each; work stays within the union of the 32 live ranges, so many
 * short-lived registers stay linear.  The nodes are those of one walk per
 * register; layout_nodes puts them in order.  (Words of 32 bits, not 64:
 * the scratch stays the size the walk per register had.) */
typedef uint32_t regbits;
#define REGBITS 32

typedef struct nodeset {
    regbits *live; /* live-in (not at blocks that define it) */
    regbits *def;  /* defines it (the entry defines all; etas join) */
    regbits *idf;  /* in the iterated dominance frontier */
    regbits *pend; /* bits still to push from the block; != 0: queued */
    regbits *loop; /* per loop: contains a definition */
    uint32_t *stack, nst, nb;
    uint32_t *touched, ntouched; /* blocks to clear after a batch (NULL: one batch, no clearing) */
    u32vec loops_touched;
} nodeset;

/* Before setting a bit of x: x joins the blocks to clear. */
static void ns_touch(nodeset *w, uint32_t x)
{
    if (w->touched && !(w->live[x] | w->def[x] | w->idf[x])) w->touched[w->ntouched++] = x;
}

/* Queues bits m (not 0) of block x for the walk in progress. */
static void ns_push(nodeset *w, uint32_t x, regbits m)
{
    if (!w->pend[x]) w->stack[w->nst++] = x;
    w->pend[x] |= m;
}

static void ns_node(builder *b, const uint32_t *regs, uint32_t blk, regbits bits, uint32_t kind)
{
    while (bits) {
        unsigned i = (unsigned)__builtin_ctz(bits);
        bits &= bits - 1;
        u32vec_push(&b->node_block, blk);
        u32vec_push(&b->node_reg, regs[i]);
        u32vec_push(&b->node_kind, kind);
    }
}

static void place_batch(builder *b, nodeset *w, const uint32_t *regs, unsigned nr, const uint32_t *poff,
                        const uint32_t *pred)
{
    const cfg *g = b->g;
    regbits all = nr == REGBITS ? ~(regbits)0 : ((regbits)1 << nr) - 1;
    w->ntouched = 0;
    w->loops_touched.n = 0;
    for (unsigned i = 0; i < nr; i++)
        for (uint32_t k = b->defs.off[regs[i]]; k < b->defs.off[regs[i] + 1]; k++) {
            ns_touch(w, b->defs.item[k]);
            w->def[b->defs.item[k]] |= (regbits)1 << i;
        }
    ns_touch(w, CFG_ENTRY);
    w->def[CFG_ENTRY] = all;
    /* live-in blocks: backwards from the upward-exposed uses up to defs */
    w->nst = 0;
    for (unsigned i = 0; i < nr; i++) {
        regbits bit = (regbits)1 << i;
        for (uint32_t k = b->ues.off[regs[i]]; k < b->ues.off[regs[i] + 1]; k++) {
            uint32_t x = b->ues.item[k];
            if (w->live[x] & bit) continue;
            ns_touch(w, x);
            w->live[x] |= bit;
            ns_push(w, x, bit);
        }
    }
    while (w->nst) {
        uint32_t x = w->stack[--w->nst];
        regbits m = w->pend[x];
        w->pend[x] = 0;
        for (uint32_t i = poff[x]; i < poff[x + 1]; i++) {
            uint32_t p = pred[i];
            regbits nw = m & ~w->live[p] & ~w->def[p];
            if (!nw) continue;
            ns_touch(w, p);
            w->live[p] |= nw;
            ns_push(w, p, nw);
        }
    }
    /* loops with a definition */
    for (unsigned i = 0; i < nr; i++) {
        regbits bit = (regbits)1 << i;
        for (uint32_t k = b->defs.off[regs[i]]; k < b->defs.off[regs[i] + 1]; k++)
            for (uint32_t l = g->blocks[b->defs.item[k]].loop; l != CFG_NONE && !(w->loop[l] & bit);
                 l = g->loops[l].parent) {
                if (!w->loop[l]) u32vec_push(&w->loops_touched, l);
                w->loop[l] |= bit;
            }
    }
    /* the frontier walk starts from the definitions ... */
    for (unsigned i = 0; i < nr; i++)
        for (uint32_t k = b->defs.off[regs[i]]; k < b->defs.off[regs[i] + 1]; k++)
            ns_push(w, b->defs.item[k], (regbits)1 << i);
    /* ... and the etas: live into a landing block of a loop that defines it */
    for (uint32_t t = 0, n = w->touched ? w->ntouched : w->nb; t < n; t++) {
        uint32_t y = w->touched ? w->touched[t] : t;
        if (b->eta_outer[y] == CFG_NONE) continue;
        regbits e = w->live[y] & w->loop[b->eta_outer[y]];
        if (!e) continue;
        ns_node(b, regs, y, e, SSA_V_ETA);
        regbits nd = e & ~w->def[y];
        w->def[y] |= nd;
        if (nd) ns_push(w, y, nd);
    }
    /* phis: iterated dominance frontier of the definitions, where live */
    while (w->nst) {
        uint32_t x = w->stack[--w->nst];
        regbits m = w->pend[x];
        w->pend[x] = 0;
        for (uint32_t k = b->df.off[x]; k < b->df.off[x + 1]; k++) {
            uint32_t y = b->df.item[k];
            regbits nw = m & ~w->idf[y];
            if (!nw) continue;
            ns_touch(w, y);
            w->idf[y] |= nw;
            if (nw & w->live[y]) ns_node(b, regs, y, nw & w->live[y], SSA_V_PHI);
            regbits nd = nw & ~w->def[y];
            if (!nd) continue;
            w->def[y] |= nd;
            ns_push(w, y, nd);
        }
    }
    for (uint32_t t = 0; w->touched && t < w->ntouched; t++) {
        uint32_t x = w->touched[t];
        w->live[x] = w->def[x] = w->idf[x] = 0;
    }
    for (uint32_t t = 0; t < w->loops_touched.n; t++) w->loop[w->loops_touched.v[t]] = 0;
}

static void place_nodes(builder *b)
{
    const cfg *g = b->g;
    uint32_t nb = g->nblocks;
    u32vec_reserve(&b->node_block, nb); /* a guess: a node a block */
    u32vec_reserve(&b->node_reg, nb);
    u32vec_reserve(&b->node_kind, nb);
    /* the reachable predecessors of every block, packed: the liveness walk
     * visits every block a register is live in, and reading them from the
     * blocks was most of its cost on large kernels */
    uint32_t *poff = xmalloc((size_t)nb + 1, sizeof *poff), np = 0;
    for (uint32_t x = 0; x < nb; x++) {
        poff[x] = np;
        const cfg_block *bx = &g->blocks[x];
        for (uint32_t i = 0; i < bx->npred; i++) np += g->blocks[bx->pred[i]].reachable;
    }
    poff[nb] = np;
    uint32_t *pred = xmalloc(np ? np : 1, sizeof *pred);
    for (uint32_t x = 0, k = 0; x < nb; x++) {
        const cfg_block *bx = &g->blocks[x];
        for (uint32_t i = 0; i < bx->npred; i++)
            if (g->blocks[bx->pred[i]].reachable) pred[k++] = bx->pred[i];
    }
    nodeset w = {0};
    w.live = xcalloc(nb, sizeof *w.live);
    w.def = xcalloc(nb, sizeof *w.def);
    w.idf = xcalloc(nb, sizeof *w.idf);
    w.pend = xcalloc(nb, sizeof *w.pend);
    w.loop = xcalloc(g->nloops + 1, sizeof *w.loop);
    w.stack = xmalloc(nb, sizeof *w.stack); /* a block is queued once at a time */
    w.nb = nb;
    /* with one batch nothing is cleared: no list of the blocks touched */
    uint32_t active = 0;
    for (uint32_t r = 0; r < b->nregs; r++) active += b->ues.off[r] != b->ues.off[r + 1];
    if (active > REGBITS) w.touched = xmalloc(nb, sizeof *w.touched);
    uint32_t regs[REGBITS];
    unsigned nr = 0;
    for (uint32_t r = 0; r < b->nregs; r++) {
        if (b->ues.off[r] == b->ues.off[r + 1]) continue; /* never read before written: no merges */
        regs[nr++] = r;
        if (nr == REGBITS) {
            place_batch(b, &w, regs, nr, poff, pred);
            nr = 0;
        }
    }
    if (nr) place_batch(b, &w, regs, nr, poff, pred);
    free(w.live);
    free(w.def);
    free(w.idf);
    free(w.pend);
    free(w.loop);
    free(w.stack);
    free(w.touched);
    free(w.loops_touched.v);
    free(poff);
    free(pred);
}

/* Orders the nodes: by block, phis before etas, then by register. */
static void layout_nodes(builder *b)
{
    ssa_func *s = b->s;
    const cfg *g = b->g;
    uint32_t n = b->node_block.n;
    /* counting sort by (block, kind), stable in register order (nodes were
     * created register by register) */
    uint32_t nk = g->nblocks * 2;
    uint32_t *cnt = xcalloc(nk + 1, sizeof *cnt);
    for (uint32_t i = 0; i < n; i++)
        cnt[b->node_block.v[i] * 2 + (b->node_kind.v[i] == SSA_V_ETA) + 1]++;
    for (uint32_t k = 0; k < nk; k++) cnt[k + 1] += cnt[k];
    s->nnodes = n;
    s->nodes = ARENA_NEWN(s->a, ssa_node, n ? n : 1);
    s->node_off = arena_alloc(s->a, sizeof *s->node_off * (g->nblocks + 1)); /* every entry set below */
    for (uint32_t blk = 0; blk <= g->nblocks; blk++) s->node_off[blk] = cnt[blk * 2];
    uint32_t *fill = xmalloc(nk, sizeof *fill);
    memcpy(fill, cnt, sizeof *fill * nk);
    /* the arguments of every node in one array (one allocation per node
     * was 1.5% of check on a large kernel) */
    size_t nargs = 0;
    for (uint32_t i = 0; i < n; i++)
        nargs += b->node_kind.v[i] == SSA_V_ETA ? 1 : g->blocks[b->node_block.v[i]].npred;
    uint32_t *args = arena_alloc(s->a, sizeof *args * (nargs ? nargs : 1));
    memset(args, 0xff, sizeof *args * nargs); /* SSA_NONE */
    for (uint32_t i = 0; i < n; i++) {
        uint32_t blk = b->node_block.v[i], kind = b->node_kind.v[i];
        ssa_node *nd = &s->nodes[fill[blk * 2 + (kind == SSA_V_ETA)]++];
        nd->kind = (uint8_t)kind;
        nd->reg = b->node_reg.v[i];
        nd->block = blk;
        nd->loop_inner = kind == SSA_V_ETA ? b->eta_inner[blk] : CFG_NONE;
        nd->loop_outer = kind == SSA_V_ETA ? b->eta_outer[blk] : CFG_NONE;
        nd->nargs = kind == SSA_V_ETA ? 1 : g->blocks[blk].npred;
        nd->args = args;
        args += nd->nargs;
        if (kind == SSA_V_ETA) s->netas++;
        else s->nphis++;
    }
    free(fill);
    free(cnt);
    /* each (block, kind) run by register: place_nodes makes a run's nodes
     * in ascending runs of a batch each, so the insertion sort moves
     * little */
    for (uint32_t i = 1; i < n; i++) {
        ssa_node x = s->nodes[i];
        uint32_t j = i;
        for (; j && s->nodes[j - 1].block == x.block && s->nodes[j - 1].kind == x.kind && s->nodes[j - 1].reg > x.reg; j--)
            s->nodes[j] = s->nodes[j - 1];
        s->nodes[j] = x;
    }
}

/* Room for every value, in the arena (no copy at the end): one per
 * definition and node, and at most one entry value per register and one
 * special-register value per reference to one. */
static void value_room(builder *b)
{
    const ssa_func *s = b->s;
    uint32_t nrefs = s->ref_off[b->fn->nstmts];
    size_t n = (size_t)s->nnodes + b->nregs;
    for (uint32_t k = 0; k < nrefs; k++) n += (s->refs[k].role & (PTX_REF_DEF | PTX_REF_SREG)) != 0;
    if (n >= UINT32_MAX) abort();
    b->capvalues = (uint32_t)n;
    b->values = arena_alloc(s->a, sizeof *b->values * (n ? n : 1));
}

/* ---- renaming ---------------------------------------------------------------- */
typedef struct renamer {
    builder *b;
    uint32_t *cur;   /* current value per register (SSA_NONE: the entry value) */
    uint32_t *entry; /* entry value per register, made on first use */
    u32vec log;         /* (register, previous cur) pairs to undo */
    u32vec sreg_key, sreg_val;
    uint32_t *is_param;
} renamer;

/* The entry value of reg, made on first use. */
static uint32_t entry_value(renamer *rn, uint32_t reg)
{
    if (rn->entry[reg] == SSA_NONE) {
        rn->entry[reg] = new_value(rn->b, SSA_V_ENTRY, reg, CFG_ENTRY);
        rn->b->values[rn->entry[reg]].param = rn->is_param[reg] != 0;
    }
    return rn->entry[reg];
}

/* Inline for the common case, a value defined on the way here: it runs
 * for every use and phi argument. */
static inline uint32_t current(renamer *rn, uint32_t reg)
{
    return rn->cur[reg] != SSA_NONE ? rn->cur[reg] : entry_value(rn, reg);
}

static void set_current(renamer *rn, uint32_t reg, uint32_t v)
{
    u32vec_push(&rn->log, reg);
    u32vec_push(&rn->log, rn->cur[reg]);
    rn->cur[reg] = v;
}

static uint32_t sreg_value(renamer *rn, uint32_t key, uint8_t comp)
{
    uint32_t full = key | (uint32_t)comp << 24;
    for (uint32_t i = 0; i < rn->sreg_key.n; i++)
        if (rn->sreg_key.v[i] == full) return rn->sreg_val.v[i];
    uint32_t v = new_value(rn->b, SSA_V_SREG, key & 0xff, CFG_ENTRY);
    rn->b->values[v].sreg_index = key >> 8;
    rn->b->values[v].comp = comp;
    u32vec_push(&rn->sreg_key, full);
    u32vec_push(&rn->sreg_val, v);
    return v;
}

static void rename_block(renamer *rn, uint32_t blk)
{
    builder *b = rn->b;
    ssa_func *s = b->s;
    const cfg *g = b->g;
    const cfg_block *bb = &g->blocks[blk];
    for (uint32_t k = s->node_off[blk]; k < s->node_off[blk + 1]; k++) {
        ssa_node *nd = &s->nodes[k];
        if (nd->kind == SSA_V_ETA) nd->args[0] = current(rn, nd->reg);
        uint32_t v = new_value(b, nd->kind, nd->reg, blk);
        b->values[v].node = k;
        nd->value = v;
        set_current(rn, nd->reg, v);
    }
    if (bb->kind == CFG_B_REAL)
        for (uint32_t i = bb->first; i < bb->end; i++)
            for (uint32_t k = s->ref_off[i]; k < s->ref_off[i + 1]; k++) {
                ssa_ref *r = &s->refs[k];
                uint32_t id = b->ref_id[k];
                if (!is_reg_ref(r)) {
                    r->value = sreg_value(rn, id, r->comp);
                } else if (r->role & PTX_REF_USE) {
                    r->value = current(rn, id);
                } else {
                    uint32_t old = reads_old(r) ? current(rn, id) : SSA_NONE;
                    uint32_t v = new_value(b, SSA_V_INST, id, blk);
                    ssa_value *val = &b->values[v];
                    val->stmt = i;
                    val->ref = k;
                    val->partial = old != SSA_NONE;
                    val->prev = old;
                    r->value = v;
                    set_current(rn, id, v);
                }
            }
    if (blk == CFG_EXIT)
        for (uint32_t i = 0; i < s->nret_vals; i++) s->ret_vals[i] = current(rn, s->ret_regs[i]);
    for (uint32_t i = 0; i < bb->nsucc; i++) {
        uint32_t t = bb->succ[i];
        const cfg_block *bt = &g->blocks[t];
        if (s->node_off[t] == s->node_off[t + 1]) continue; /* no phis to feed */
        uint32_t j = 0;
        while (j < bt->npred && bt->pred[j] != blk) j++;
        for (uint32_t k = s->node_off[t]; k < s->node_off[t + 1]; k++)
            if (s->nodes[k].kind == SSA_V_PHI) s->nodes[k].args[j] = current(rn, s->nodes[k].reg);
    }
}

static void rename_all(builder *b)
{
    renamer rn = {.b = b};
    u32vec_reserve(&rn.log, 2 * b->capvalues); /* a pair per definition at most */
    rn.cur = xmalloc(b->nregs, sizeof *rn.cur);
    rn.entry = xmalloc(b->nregs, sizeof *rn.entry);
    rn.is_param = xcalloc(b->nregs, sizeof *rn.is_param);
    for (uint32_t r = 0; r < b->nregs; r++) rn.cur[r] = rn.entry[r] = SSA_NONE;
    for (uint32_t i = 0; i < b->fn->nparams; i++) {
        if (b->fn->params[i]->space != PTX_SP_REG) continue;
        for (uint32_t r = 0; r < b->nregs; r++)
            if (ptx_str_eqs(b->fn->regs[r].name, b->fn->params[i]->name)) rn.is_param[r] = 1;
    }
    /* iterative walk of the dominator tree: (block, next child, log mark) */
    u32vec st = {0};
    u32vec_push(&st, CFG_ENTRY);
    u32vec_push(&st, 0);
    u32vec_push(&st, 0);
    rename_block(&rn, CFG_ENTRY);
    while (st.n) {
        uint32_t blk = st.v[st.n - 3], *next = &st.v[st.n - 2], mark = st.v[st.n - 1];
        uint32_t c0 = b->domkids.off[blk], c1 = b->domkids.off[blk + 1];
        if (c0 + *next < c1) {
            uint32_t kid = b->domkids.item[c0 + (*next)++];
            uint32_t m = rn.log.n;
            u32vec_push(&st, kid);
            u32vec_push(&st, 0);
            u32vec_push(&st, m);
            rename_block(&rn, kid);
            continue;
        }
        /* leave blk: undo its definitions */
        while (rn.log.n > mark) {
            uint32_t prev = rn.log.v[--rn.log.n];
            uint32_t reg = rn.log.v[--rn.log.n];
            rn.cur[reg] = prev;
        }
        st.n -= 3;
    }
    free(st.v);
    free(rn.cur);
    free(rn.entry);
    free(rn.is_param);
    free(rn.log.v);
    free(rn.sreg_key.v);
    free(rn.sreg_val.v);
}

/* Versions in program order: blocks in order, nodes then instructions. */
static void number_versions(builder *b)
{
    const cfg *g = b->g;
    ssa_func *s = b->s;
    uint32_t *next = xmalloc(b->nregs, sizeof *next);
    for (uint32_t r = 0; r < b->nregs; r++) next[r] = 1;
    /* program order of blocks: real blocks by index, a landing block just
     * before the block it leads to */
    for (uint32_t blk = 0; blk < g->nblocks; blk++) {
        const cfg_block *bb = &g->blocks[blk];
        if (!bb->reachable || bb->kind == CFG_B_LANDING) continue;
        for (uint32_t i = 0; i < bb->npred; i++) {
            uint32_t p = bb->pred[i];
            if (g->blocks[p].kind != CFG_B_LANDING) continue;
            for (uint32_t k = s->node_off[p]; k < s->node_off[p + 1]; k++)
                b->values[s->nodes[k].value].version = next[s->nodes[k].reg]++;
        }
        for (uint32_t k = s->node_off[blk]; k < s->node_off[blk + 1]; k++)
            b->values[s->nodes[k].value].version = next[s->nodes[k].reg]++;
        if (bb->kind != CFG_B_REAL) continue;
        for (uint32_t i = bb->first; i < bb->end; i++)
            for (uint32_t k = s->ref_off[i]; k < s->ref_off[i + 1]; k++) {
                const ssa_ref *r = &s->refs[k];
                if (is_reg_ref(r) && (r->role & PTX_REF_DEF) && r->value != SSA_NONE)
                    b->values[r->value].version = next[b->values[r->value].reg]++;
            }
    }
    free(next);
}

ssa_func *ssa_build(const cfg *g)
{
    ssa_func *s = ARENA_NEW(g->a, ssa_func);
    s->fn = g->fn;
    s->g = g;
    s->a = g->a;
    builder b = {.s = s, .g = g, .fn = g->fn, .nregs = g->fn->nregs, .nblocks = g->nblocks};
    collect_refs(&b);
    find_ret_regs(&b);
    def_use_blocks(&b);
    dominance_frontiers(&b);
    eta_blocks(&b);
    place_nodes(&b);
    layout_nodes(&b);
    value_room(&b);
    rename_all(&b);
    number_versions(&b);
    s->nvalues = b.nvalues;
    s->values = b.values;
    for (uint32_t v = 0; v < b.nvalues; v++) s->ninst_values += b.values[v].kind == SSA_V_INST;
    u32csr_free(&b.defs);
    u32csr_free(&b.ues);
    u32csr_free(&b.df);
    u32csr_free(&b.domkids);
    free(b.eta_inner);
    free(b.eta_outer);
    free(b.node_block.v);
    free(b.node_reg.v);
    free(b.node_kind.v);
    return s;
}

const char *ssa_value_name(const ssa_func *s, uint32_t v, char *buf, unsigned n)
{
    if (v == SSA_NONE) {
        snprintf(buf, n, "undef");
        return buf;
    }
    const ssa_value *val = &s->values[v];
    if (val->kind == SSA_V_SREG) {
        const char *nm = ptx_sreg_name((ptx_sreg)val->reg);
        bool family = val->reg == PTX_SR_PM || val->reg == PTX_SR_PM64 || val->reg == PTX_SR_ENVREG ||
                      val->reg == PTX_SR_RESERVED_SMEM;
        char idx[16] = "";
        /* %pm0_64 shares the %pm family name: the suffix keeps it apart from %pm0 */
        if (family) snprintf(idx, sizeof idx, "%u%s", val->sreg_index, val->reg == PTX_SR_PM64 ? "_64" : "");
        if (val->comp) snprintf(buf, n, "%s%s.%c", nm, idx, val->comp);
        else snprintf(buf, n, "%s%s", nm, idx);
        return buf;
    }
    ptx_str nm = s->fn->regs[val->reg].name;
    /* "%r5.2", as snprintf(buf, n, "%.*s.%u") would write it */
    if (n) {
        size_t k = nm.n < n - 1 ? nm.n : n - 1;
        memcpy(buf, nm.p, k);
        if (k < n - 1) {
            buf[k] = '.';
            cfg_name_num(buf + k + 1, n - (unsigned)k - 1, "", 0, true, val->version);
        } else buf[k] = 0;
    }
    return buf;
}

uint32_t ssa_guard_value(const ssa_func *s, uint32_t stmt)
{
    uint32_t k = s->ref_off[stmt]; /* ptx_inst_foreach_reg gives the guard first */
    return k < s->ref_off[stmt + 1] && (s->refs[k].role & PTX_REF_GUARD) ? s->refs[k].value : SSA_NONE;
}

uint32_t ssa_use_value(const ssa_func *s, uint32_t stmt, uint32_t opd)
{
    for (uint32_t k = s->ref_off[stmt]; k < s->ref_off[stmt + 1]; k++)
        if (s->refs[k].opd == opd && (s->refs[k].role & PTX_REF_USE)) return s->refs[k].value;
    return SSA_NONE;
}

/* One edge from -> v: counted into cnt[from + 1] (item NULL), or stored
 * at item[pos[from]++]. */
static void user_edge(uint32_t *pos, uint32_t *item, uint32_t from, uint32_t v)
{
    if (item) item[pos[from]++] = v;
    else pos[from + 1]++;
}

/* Every dependence of the values, in value order: counted (item NULL),
 * then stored. */
static void user_edges(const ssa_func *s, uint32_t *pos, uint32_t *item)
{
    for (uint32_t v = 0; v < s->nvalues; v++) {
        const ssa_value *val = &s->values[v];
        if (val->kind == SSA_V_INST) {
            for (uint32_t k = s->ref_off[val->stmt]; k < s->ref_off[val->stmt + 1]; k++)
                if ((s->refs[k].role & PTX_REF_USE) && s->refs[k].value != SSA_NONE)
                    user_edge(pos, item, s->refs[k].value, v);
            if (val->partial && val->prev != SSA_NONE) user_edge(pos, item, val->prev, v);
        } else if (val->kind != SSA_V_SREG && val->kind != SSA_V_ENTRY) {
            const ssa_node *nd = &s->nodes[val->node];
            for (uint32_t i = 0; i < nd->nargs; i++)
                if (nd->args[i] != SSA_NONE) user_edge(pos, item, nd->args[i], v);
        }
    }
}

/* Counted, then filled: no growing edge lists (their doublings were most
 * of the allocator's work in the address facts' solve). */
void ssa_users(const ssa_func *s, u32csr *users)
{
    uint32_t n = s->nvalues;
    users->off = calloc((size_t)n + 1, sizeof *users->off);
    uint32_t *fill = malloc(sizeof *fill * (n ? n : 1));
    if (!users->off || !fill) abort();
    user_edges(s, users->off, NULL);
    for (uint32_t k = 0; k < n; k++) users->off[k + 1] += users->off[k];
    users->item = malloc(sizeof *users->item * (users->off[n] ? users->off[n] : 1));
    if (!users->item) abort();
    if (n) memcpy(fill, users->off, sizeof *fill * n);
    user_edges(s, fill, users->item);
    free(fill);
}

uint32_t ssa_value_order(const ssa_func *s, uint32_t *ord)
{
    const cfg *g = s->g;
    uint32_t n = 0;
    for (uint32_t v = 0; v < s->nvalues; v++)
        if (s->values[v].kind == SSA_V_SREG || s->values[v].kind == SSA_V_ENTRY) ord[n++] = v;
    for (uint32_t i = 0; i < g->nreach; i++) {
        uint32_t b = g->rpo_order[i];
        for (uint32_t k = s->node_off[b]; k < s->node_off[b + 1]; k++) ord[n++] = s->nodes[k].value;
        const cfg_block *bb = &g->blocks[b];
        if (bb->kind != CFG_B_REAL) continue;
        for (uint32_t st = bb->first; st < bb->end; st++)
            for (uint32_t k = s->ref_off[st]; k < s->ref_off[st + 1]; k++) {
                /* a register reference that only defines made its value
                 * (one that reads too names the value read, ssa_build) */
                uint32_t v = s->refs[k].value, role = s->refs[k].role;
                if ((role & (PTX_REF_DEF | PTX_REF_USE | PTX_REF_SREG)) == PTX_REF_DEF && v != SSA_NONE) ord[n++] = v;
            }
    }
    return n;
}
