/* Gated SSA from SSA: gating templates per join block, instantiated per
 * phi.  See gsa.h for the construction and docs/gsa.md for the reasoning. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gsa.h"
#include "u32vec.h"

/* A template node: a branch deciding between the incoming edges of a
 * join.  Kids encode: TK_NONE, a leaf (incoming edge k of the join) or
 * another template node. */
#define TK_NONE UINT32_MAX
#define TK_LEAF 0x80000000u

typedef struct tnode {
    uint32_t branch;
    uint32_t kid0; /* index of its first kid in the kid pool; nsucc of branch kids */
} tnode;

typedef struct tpl {
    const cfg *g;
    tnode *nodes;
    uint32_t nn, capn;
    uint32_t *kids;
    uint32_t nk, capk;
    uint32_t *mark, stamp;  /* region membership per block */
    uint32_t *val;          /* per block in the region: its kid code */
    uint32_t *vis;          /* stamp: entered by the post-order walk */
    uint32_t *post;         /* scratch post-order */
    uint32_t *stack;        /* scratch DFS (block, next succ) pairs */
} tpl;

static void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p) {
        fprintf(stderr, "ptxray: out of memory\n");
        abort();
    }
    return p;
}

static uint32_t pred_index(const cfg *g, uint32_t j, uint32_t p)
{
    for (uint32_t i = 0; i < g->blocks[j].npred; i++)
        if (g->blocks[j].pred[i] == p) return i;
    return TK_NONE;
}

/* Builds the template deciding which incoming edge of j is taken, starting
 * from d.  carried = false: the entry edges (not back edges) with d the
 * immediate dominator; true: the back edges of loop header j, with d = j.
 * Returns the root kid code; the template nodes are created children first,
 * so instantiating them in index order needs no recursion. */
static uint32_t build_template(tpl *t, uint32_t j, uint32_t d, bool carried, uint32_t *first_node)
{
    const cfg *g = t->g;
    uint32_t tag = ++t->stamp;
    *first_node = t->nn;
    /* the region: blocks that reach a leaf edge of j without back edges,
     * dominated by d, walked backwards */
    uint32_t nst = 0;
    const cfg_block *bj = &g->blocks[j];
    for (uint32_t i = 0; i < bj->npred; i++) {
        uint32_t p = bj->pred[i];
        if (!g->blocks[p].reachable || cfg_is_back_edge(g, p, j) != carried) continue;
        if (t->mark[p] != tag) {
            t->mark[p] = tag;
            t->stack[nst++] = p;
        }
    }
    while (nst) {
        uint32_t x = t->stack[--nst];
        if (x == d) continue;
        const cfg_block *bx = &g->blocks[x];
        for (uint32_t i = 0; i < bx->npred; i++) {
            uint32_t q = bx->pred[i];
            if (!g->blocks[q].reachable || t->mark[q] == tag || cfg_is_back_edge(g, q, x)) continue;
            if (!cfg_dominates(g, d, q)) continue;
            t->mark[q] = tag;
            t->stack[nst++] = q;
        }
    }
    if (t->mark[d] != tag) return TK_NONE; /* no path: cannot happen for a reachable join */
    /* post-order from d over region edges */
    uint32_t npost = 0;
    nst = 0;
    t->stack[nst++] = d;
    t->stack[nst++] = 0;
    t->vis[d] = tag;
    while (nst) {
        uint32_t x = t->stack[nst - 2], *i = &t->stack[nst - 1];
        const cfg_block *bx = &g->blocks[x];
        if (*i < bx->nsucc) {
            uint32_t s = bx->succ[(*i)++];
            if (s == j || t->mark[s] != tag || t->vis[s] == tag || cfg_is_back_edge(g, x, s)) continue;
            t->vis[s] = tag;
            t->stack[nst++] = s;
            t->stack[nst++] = 0;
            continue;
        }
        nst -= 2;
        t->post[npost++] = x;
    }
    for (uint32_t k = 0; k < npost; k++) {
        uint32_t x = t->post[k];
        const cfg_block *bx = &g->blocks[x];
        uint32_t first = t->nk, k0 = TK_NONE;
        bool agree = true;
        if (t->nk + bx->nsucc > t->capk) {
            t->capk = (t->nk + bx->nsucc) * 2;
            t->kids = xrealloc(t->kids, sizeof *t->kids * t->capk);
        }
        for (uint32_t i = 0; i < bx->nsucc; i++) {
            uint32_t s = bx->succ[i], kid = TK_NONE;
            bool back = cfg_is_back_edge(g, x, s);
            if (s == j && back == carried) kid = TK_LEAF | pred_index(g, j, x);
            else if (s != j && !back && t->mark[s] == tag) kid = t->val[s];
            t->kids[t->nk++] = kid;
            if (kid == TK_NONE) continue;
            if (k0 == TK_NONE) k0 = kid;
            else if (kid != k0) agree = false;
        }
        /* all successors that lead to j agree: no decision here */
        if (agree) {
            t->val[x] = k0;
            t->nk = first;
            continue;
        }
        if (t->nn == t->capn) {
            t->capn = t->capn ? t->capn * 2 : 64;
            t->nodes = xrealloc(t->nodes, sizeof *t->nodes * t->capn);
        }
        t->nodes[t->nn] = (tnode){x, first};
        t->val[x] = t->nn++;
    }
    uint32_t root = t->val[d];
    /* leave val clean for the next template */
    for (uint32_t k = 0; k < npost; k++) t->val[t->post[k]] = TK_NONE;
    return root;
}

bool gsa_branch_gate(const ssa_func *s, uint32_t b, uint32_t *value, bool *neg)
{
    const cfg_block *bb = &s->g->blocks[b];
    if (bb->nsucc < 2 || bb->term == CFG_NONE) return false;
    /* from the references, not the instruction (a cache miss per call on
     * large kernels): a guard is always the first */
    const ssa_ref *r = &s->refs[s->ref_off[bb->term]];
    if (s->ref_off[bb->term] < s->ref_off[bb->term + 1] && (r->role & PTX_REF_GUARD)) {
        *value = r->value;
        *neg = r->neg;
        return true;
    }
    *value = ssa_use_value(s, bb->term, 0); /* brx.idx index */
    *neg = false;
    return true;
}

/* Instantiates templates [first, root] for the arguments of one phi. */
typedef struct inst {
    gsa_func *gf;
    const ssa_node *nd;
    gsa_expr **made;   /* per template node */
    uint32_t capmade;
    gsa_expr **leaf;   /* per predecessor index */
    uint32_t capleaf;
    gsa_expr **vx;     /* per SSA value: its VALUE expression, made once and shared
                        * (expressions are read-only; a phi's equal arguments
                        * still share one) */
} inst;

static gsa_expr *value_expr(arena *a, uint32_t v)
{
    /* every field of the 16 bytes written: the inline allocator, not the
     * zeroing call (130k of these in a 100k-block kernel) */
    gsa_expr *e = arena_alloc(a, GSA_VALUE_EXPR_BYTES);
    memset(e, 0, GSA_VALUE_EXPR_BYTES);
    e->kind = GSA_X_VALUE;
    e->value = v;
    return e;
}

static gsa_expr *shared_value_expr(inst *in, arena *a, uint32_t v)
{
    if (v == SSA_NONE) return value_expr(a, v);
    if (!in->vx[v]) in->vx[v] = value_expr(a, v);
    return in->vx[v];
}

static gsa_expr *kid_expr(inst *in, const tpl *t, uint32_t kid, uint32_t first)
{
    (void)t;
    if (kid == TK_NONE) return NULL;
    if (kid & TK_LEAF) return in->leaf[kid & ~TK_LEAF];
    return in->made[kid - first];
}

static gsa_expr *instantiate(inst *in, const tpl *t, uint32_t root, uint32_t first)
{
    if (root == TK_NONE) return NULL;
    ssa_func *s = in->gf->ssa;
    arena *a = s->a;
    const ssa_node *nd = in->nd;
    /* one VALUE expression per distinct argument, so equal arguments compare
     * equal by pointer */
    if (nd->nargs > in->capleaf) {
        in->capleaf = nd->nargs * 2;
        in->leaf = xrealloc(in->leaf, sizeof *in->leaf * in->capleaf);
    }
    for (uint32_t i = 0; i < nd->nargs; i++) {
        in->leaf[i] = NULL;
        for (uint32_t k = 0; k < i; k++)
            if (nd->args[k] == nd->args[i] && in->leaf[k]) in->leaf[i] = in->leaf[k];
        if (!in->leaf[i]) in->leaf[i] = shared_value_expr(in, a, nd->args[i]);
    }
    if (root & TK_LEAF) return in->leaf[root & ~TK_LEAF];
    uint32_t n = root - first + 1;
    if (n > in->capmade) {
        in->capmade = n * 2;
        in->made = xrealloc(in->made, sizeof *in->made * in->capmade);
    }
    for (uint32_t k = 0; k < n; k++) {
        const tnode *tn = &t->nodes[first + k];
        const cfg_block *bb = &s->g->blocks[tn->branch];
        gsa_expr *same = NULL;
        bool agree = true;
        for (uint32_t i = 0; i < bb->nsucc; i++) {
            gsa_expr *e = kid_expr(in, t, t->kids[tn->kid0 + i], first);
            if (!e) continue;
            if (!same) same = e;
            else if (e != same) agree = false;
        }
        if (agree) {
            in->made[k] = same;
            continue;
        }
        gsa_expr *e = ARENA_NEW(a, gsa_expr);
        e->kind = GSA_X_SELECT;
        e->branch = tn->branch;
        bool neg = false;
        e->value = SSA_NONE;
        gsa_branch_gate(s, tn->branch, &e->value, &neg);
        e->neg = neg;
        e->n = bb->nsucc;
        e->ops = ARENA_NEWN(a, gsa_expr *, bb->nsucc);
        for (uint32_t i = 0; i < bb->nsucc; i++) e->ops[i] = kid_expr(in, t, t->kids[tn->kid0 + i], first);
        in->made[k] = e;
    }
    return in->made[n - 1];
}

/* The outermost irreducible loop containing b, or CFG_NONE. */
static uint32_t irreducible_loop(const cfg *g, uint32_t b)
{
    uint32_t found = CFG_NONE;
    for (uint32_t l = g->blocks[b].loop; l != CFG_NONE; l = g->loops[l].parent)
        if (g->loops[l].irreducible) found = l;
    return found;
}

static bool is_header(const cfg_loop *lp, uint32_t b)
{
    for (uint32_t h = 0; h < lp->nheaders; h++)
        if (lp->headers[h] == b) return true;
    return false;
}

enum { M_IN = 1, M_EXIT = 2, M_REACH_EXIT = 4, M_GO_ROUND = 8, M_SEEN = 16, M_GATE = 32 };

/* Marks with `bit` every block of loop lp from which a block marked
 * `seed` is reachable inside one iteration (no back edge of lp), not
 * passing through blocks marked `stop`. */
static void mark_back(const cfg *g, const cfg_loop *lp, uint8_t *mark, uint32_t *stack, uint8_t seed, uint8_t bit,
                      uint8_t stop)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < lp->nblocks; i++)
        if (mark[lp->blocks[i]] & seed) {
            mark[lp->blocks[i]] |= bit;
            stack[n++] = lp->blocks[i];
        }
    while (n) {
        uint32_t b = stack[--n];
        if (is_header(lp, b)) continue; /* its predecessors in lp are the previous iteration */
        const cfg_block *bb = &g->blocks[b];
        for (uint32_t i = 0; i < bb->npred; i++) {
            uint32_t p = bb->pred[i];
            if (!(mark[p] & M_IN) || (mark[p] & (bit | stop))) continue;
            mark[p] |= bit;
            stack[n++] = p;
        }
    }
}

/* Branches inside loop l that decide, within an iteration, whether a
 * thread reaches an exiting block or goes round again without reaching
 * one.  Threads that split there leave l in different iterations even
 * when every exit branch is uniform (LLVM's "cycle with a divergent
 * exit"), so an eta leaving l depends on them too.  A branch splits when
 * one successor can reach an exiting block within the iteration and
 * another can reach a back edge without passing an exiting block. */
static void split_branches(const cfg *g, uint32_t l, uint8_t *mark, uint32_t *stack, u32vec *out)
{
    const cfg_loop *lp = &g->loops[l];
    for (uint32_t i = 0; i < lp->nblocks; i++) mark[lp->blocks[i]] = M_IN;
    for (uint32_t i = 0; i < lp->nexits; i++) mark[lp->exit_from[i]] |= M_EXIT;
    /* within an iteration: the edges into a header are not followed, so
     * the walk backwards starts from the exiting blocks and the latches */
    for (uint32_t i = 0; i < lp->nlatches; i++)
        if (!(mark[lp->latches[i]] & M_EXIT)) mark[lp->latches[i]] |= M_SEEN;
    mark_back(g, lp, mark, stack, M_EXIT, M_REACH_EXIT, 0);
    mark_back(g, lp, mark, stack, M_SEEN, M_GO_ROUND, M_EXIT);
    for (uint32_t i = 0; i < lp->nblocks; i++) {
        const cfg_block *bb = &g->blocks[lp->blocks[i]];
        if (bb->nsucc < 2 || (mark[lp->blocks[i]] & M_EXIT)) continue;
        bool split = false;
        for (uint32_t x = 0; x < bb->nsucc && !split; x++)
            for (uint32_t y = 0; y < bb->nsucc && !split; y++) {
                uint32_t sx = bb->succ[x], sy = bb->succ[y];
                if (x == y || !(mark[sx] & M_IN) || !(mark[sy] & M_IN)) continue;
                bool round = is_header(lp, sx) || (mark[sx] & M_GO_ROUND);
                bool exits = !is_header(lp, sy) && (mark[sy] & M_REACH_EXIT);
                split = round && exits;
            }
        if (split) u32vec_push(out, lp->blocks[i]);
    }
    for (uint32_t i = 0; i < lp->nblocks; i++) mark[lp->blocks[i]] = 0;
}

/* A gate list shared by the nodes with the same key. */
typedef struct gate_list {
    uint32_t id;       /* gsa_node.gate_set */
    uint32_t outer;    /* eta: the outermost loop left (key with the inner loop) */
    uint32_t n;
    uint32_t *v;       /* in the arena */
    struct gate_list *next;
} gate_list;

/* Per loop, its splitting branches and the gate lists of its nodes,
 * computed on first use: every eta leaving the same loops, and every phi
 * of the same irreducible loop, has the same gates. */
typedef struct splits {
    const cfg *g;
    uint8_t *mark;     /* nblocks, zero between uses */
    uint32_t *stack;   /* nblocks */
    u32vec *of;        /* per loop */
    uint8_t *done;     /* per loop */
    gate_list **eta;   /* per inner loop */
    gate_list **irr;   /* per irreducible loop */
    uint32_t nsets;
} splits;

static const u32vec *loop_splits(splits *sp, uint32_t l)
{
    if (!sp->done[l]) {
        split_branches(sp->g, l, sp->mark, sp->stack, &sp->of[l]);
        sp->done[l] = 1;
    }
    return &sp->of[l];
}

static void add_gate(splits *sp, uint32_t b, u32vec *v)
{
    const cfg_block *bb = &sp->g->blocks[b];
    if (!bb->reachable || bb->nsucc < 2 || (sp->mark[b] & M_GATE)) return;
    sp->mark[b] |= M_GATE;
    u32vec_push(v, b);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Branch blocks (two or more successors) that gate a node:
 *  - an eta leaving loops inner..l: the exit branches of those loops and
 *    the branches that split their iterations (split_branches);
 *  - a phi of irreducible loop l: every branch of l, and every branch the
 *    headers are (transitively) control dependent on: which header runs
 *    first is decided outside, possibly several blocks before the entry. */
static gate_list *make_gates(splits *sp, arena *a, uint32_t l, bool exits_only, uint32_t inner)
{
    const cfg *g = sp->g;
    u32vec v = {0};
    for (uint32_t k = exits_only ? inner : l; k != CFG_NONE; k = g->loops[k].parent) {
        const cfg_loop *lp = &g->loops[k];
        uint32_t cnt = exits_only ? lp->nexits : lp->nblocks;
        for (uint32_t i = 0; i < cnt; i++) add_gate(sp, exits_only ? lp->exit_from[i] : lp->blocks[i], &v);
        if (exits_only) {
            const u32vec *sv = loop_splits(sp, k);
            for (uint32_t i = 0; i < sv->n; i++) add_gate(sp, sv->v[i], &v);
        } else {
            u32vec todo = {0};
            for (uint32_t h = 0; h < lp->nheaders; h++) {
                u32vec_push(&todo, lp->headers[h]);
                sp->mark[lp->headers[h]] |= M_SEEN;
            }
            while (todo.n) {
                uint32_t b = todo.v[--todo.n];
                for (uint32_t q = g->cdep_off[b]; q < g->cdep_off[b + 1]; q++) {
                    uint32_t c = g->cdep[q];
                    add_gate(sp, c, &v);
                    if (sp->mark[c] & M_SEEN) continue;
                    sp->mark[c] |= M_SEEN;
                    u32vec_push(&todo, c);
                }
            }
            u32vec_free(&todo);
            for (uint32_t b = 0; b < g->nblocks; b++) sp->mark[b] &= (uint8_t)~M_SEEN;
        }
        if (!exits_only || k == l) break;
    }
    for (uint32_t i = 0; i < v.n; i++) sp->mark[v.v[i]] &= (uint8_t)~M_GATE;
    /* sorted: deterministic and readable */
    if (v.n) qsort(v.v, v.n, sizeof *v.v, cmp_u32);
    gate_list *gl = ARENA_NEW(a, gate_list);
    gl->outer = l;
    gl->n = v.n;
    gl->v = ARENA_NEWN(a, uint32_t, v.n ? v.n : 1);
    if (v.n) memcpy(gl->v, v.v, sizeof *v.v * v.n);
    u32vec_free(&v);
    return gl;
}

static void loop_gates(splits *sp, arena *a, uint32_t l, bool exits_only, uint32_t inner, gsa_node *gn)
{
    gate_list **head = exits_only ? &sp->eta[inner] : &sp->irr[l];
    gate_list *gl = *head;
    while (gl && gl->outer != l) gl = gl->next;
    if (!gl) {
        gl = make_gates(sp, a, l, exits_only, inner);
        gl->id = sp->nsets++;
        gl->next = *head;
        *head = gl;
    }
    gn->ngates = gl->n;
    gn->gates = gl->v;
    gn->gate_set = gl->n ? gl->id : GSA_NO_SET;
}

gsa_func *gsa_build(ssa_func *s)
{
    const cfg *g = s->g;
    arena *a = s->a;
    gsa_func *gf = ARENA_NEW(a, gsa_func);
    gf->ssa = s;
    gf->nodes = ARENA_NEWN(a, gsa_node, s->nnodes ? s->nnodes : 1);
    tpl t = {.g = g};
    t.mark = calloc(g->nblocks, sizeof *t.mark);
    t.vis = calloc(g->nblocks, sizeof *t.vis);
    t.val = malloc(sizeof *t.val * g->nblocks);
    t.post = malloc(sizeof *t.post * g->nblocks);
    t.stack = malloc(sizeof *t.stack * 2 * (g->nblocks + 1));
    if (!t.mark || !t.vis || !t.val || !t.post || !t.stack) abort();
    for (uint32_t b = 0; b < g->nblocks; b++) t.val[b] = TK_NONE;
    inst in = {.gf = gf, .vx = calloc(s->nvalues ? s->nvalues : 1, sizeof *in.vx)};
    if (!in.vx) abort();
    splits sp = {.g = g};
    sp.mark = calloc(g->nblocks ? g->nblocks : 1, 1);
    sp.stack = malloc(sizeof *sp.stack * (g->nblocks ? g->nblocks : 1));
    sp.of = calloc(g->nloops ? g->nloops : 1, sizeof *sp.of);
    sp.done = calloc(g->nloops ? g->nloops : 1, 1);
    sp.eta = calloc(g->nloops ? g->nloops : 1, sizeof *sp.eta);
    sp.irr = calloc(g->nloops ? g->nloops : 1, sizeof *sp.irr);
    if (!sp.mark || !sp.stack || !sp.of || !sp.done || !sp.eta || !sp.irr) abort();
    for (uint32_t b = 0; b < g->nblocks; b++) {
        uint32_t k0 = s->node_off[b], k1 = s->node_off[b + 1];
        if (k0 == k1) continue;
        const cfg_block *bb = &g->blocks[b];
        uint32_t loop = bb->loop;
        bool header = false;
        if (loop != CFG_NONE)
            for (uint32_t h = 0; h < g->loops[loop].nheaders; h++) header |= g->loops[loop].headers[h] == b;
        uint32_t irr = irreducible_loop(g, b);
        bool has_phi = false;
        for (uint32_t k = k0; k < k1; k++) has_phi |= s->nodes[k].kind == SSA_V_PHI;
        /* templates for this block, shared by its phis */
        uint32_t entry_first = 0, entry_root = TK_NONE, car_first = 0, car_root = TK_NONE;
        t.nn = t.nk = 0;
        if (has_phi && irr == CFG_NONE) {
            entry_root = build_template(&t, b, bb->idom, false, &entry_first);
            if (header) car_root = build_template(&t, b, b, true, &car_first);
        }
        for (uint32_t k = k0; k < k1; k++) {
            const ssa_node *nd = &s->nodes[k];
            gsa_node *gn = &gf->nodes[k];
            gn->loop = CFG_NONE;
            gn->gate_set = GSA_NO_SET;
            in.nd = nd;
            if (nd->kind == SSA_V_ETA) {
                gn->kind = GSA_ETA;
                gn->loop = nd->loop_outer;
                gn->expr = shared_value_expr(&in, a, nd->args[0]);
                loop_gates(&sp, a, nd->loop_outer, true, nd->loop_inner, gn);
                gf->neta++;
                continue;
            }
            gn->kind = header ? GSA_MU : GSA_GAMMA;
            if (header) {
                gn->loop = loop;
                gf->nmu++;
            } else {
                gf->ngamma++;
            }
            if (irr != CFG_NONE) {
                /* no gating structure: list the arguments as a selection on
                 * nothing and every branch of the region as gates */
                gn->irreducible = 1;
                loop_gates(&sp, a, irr, false, CFG_NONE, gn);
                gsa_expr *e = ARENA_NEW(a, gsa_expr);
                e->kind = GSA_X_SELECT;
                e->value = SSA_NONE;
                e->branch = CFG_NONE;
                e->n = nd->nargs;
                e->ops = ARENA_NEWN(a, gsa_expr *, nd->nargs ? nd->nargs : 1);
                for (uint32_t i = 0; i < nd->nargs; i++)
                    e->ops[i] = nd->args[i] == SSA_NONE ? NULL : value_expr(a, nd->args[i]);
                gn->expr = e;
                continue;
            }
            gn->expr = instantiate(&in, &t, entry_root, entry_first);
            if (header) gn->carried = instantiate(&in, &t, car_root, car_first);
        }
    }
    free(t.nodes);
    free(t.kids);
    free(t.mark);
    free(t.vis);
    free(t.val);
    free(t.post);
    free(t.stack);
    free(in.made);
    free(in.leaf);
    free(in.vx);
    for (uint32_t l = 0; l < g->nloops; l++) u32vec_free(&sp.of[l]);
    free(sp.of);
    gf->ngate_sets = sp.nsets;
    free(sp.done);
    free(sp.eta);
    free(sp.irr);
    free(sp.mark);
    free(sp.stack);
    return gf;
}
