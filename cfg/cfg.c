/* Basic blocks and edges of a function; the analyses on top live in dom.c
 * and loops.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cfg_impl.h"
#include "semantics.h"

void u32vec_reserve(u32vec *s, uint32_t n)
{
    if (n <= s->cap) return;
    s->cap = n;
    s->v = realloc(s->v, sizeof *s->v * s->cap);
    if (!s->v) {
        fprintf(stderr, "ptxray: out of memory\n");
        abort();
    }
}

void u32vec_grow(u32vec *s) { u32vec_reserve(s, s->cap ? s->cap * 2 : 16); }

/* off[k] serves as key k's fill cursor and is shifted back afterwards: no
 * cursor array beside the lists (div_graph_build's users list is built at
 * check's memory peak, where the copy was 0.9 MB of a 100k-block kernel). */
void u32csr_build(u32csr *c, uint32_t nkeys, const u32vec *keys, const u32vec *items)
{
    c->off = calloc((size_t)nkeys + 1, sizeof *c->off);
    c->item = malloc(sizeof *c->item * (keys->n ? keys->n : 1));
    if (!c->off || !c->item) {
        fprintf(stderr, "ptxray: out of memory\n");
        abort();
    }
    /* off[k + 1] = the start of key k's lists; filling moves it to their end */
    for (uint32_t i = 0; i < keys->n; i++)
        if (keys->v[i] + 1 < nkeys) c->off[keys->v[i] + 2]++;
    for (uint32_t k = 1; k < nkeys; k++) c->off[k + 1] += c->off[k];
    for (uint32_t i = 0; i < keys->n; i++) c->item[c->off[keys->v[i] + 1]++] = items->v[i];
}

/* As u32csr_build, for pairs the caller is done with: each key is replaced
 * by its pair's place in the lists, and the items are moved there in place
 * (following the permutation's cycles), so that the items' vector becomes
 * the lists: the pairs and the lists are not all in memory at once (2 MB
 * less at check's memory peak on a 100k-block kernel).  Both vectors are
 * emptied. */
void u32csr_take(u32csr *c, uint32_t nkeys, u32vec *keys, u32vec *items)
{
    uint32_t n = keys->n;
    c->off = calloc((size_t)nkeys + 1, sizeof *c->off);
    if (!c->off) {
        fprintf(stderr, "ptxray: out of memory\n");
        abort();
    }
    for (uint32_t i = 0; i < n; i++)
        if (keys->v[i] + 1 < nkeys) c->off[keys->v[i] + 2]++;
    for (uint32_t k = 1; k < nkeys; k++) c->off[k + 1] += c->off[k];
    uint32_t *to = keys->v, *it = items->v;
    for (uint32_t i = 0; i < n; i++) to[i] = c->off[to[i] + 1]++;
    for (uint32_t i = 0; i < n; i++)
        while (to[i] != i) {
            uint32_t j = to[i], x = it[i];
            it[i] = it[j];
            it[j] = x;
            to[i] = to[j];
            to[j] = j;
        }
    free(keys->v);
    *keys = (u32vec){0};
    c->item = it;
    *items = (u32vec){0};
    if (!c->item && !(c->item = malloc(sizeof *c->item))) {
        fprintf(stderr, "ptxray: out of memory\n");
        abort();
    }
}

void u32csr_free(u32csr *c)
{
    free(c->off);
    free(c->item);
}

void u32vec_free(u32vec *s)
{
    free(s->v);
    s->v = NULL;
    s->n = s->cap = 0;
}

/* ---- label table: name -> statement index ------------------------------ */
/* Only for the references the resolver did not record (ptx_stmt_ref,
 * ptx_target_ref: bodies built or edited by a pass), so built on the first
 * such lookup: for a parsed body it is never needed. */
typedef struct labtab {
    uint32_t *slot; /* statement index + 1, 0 = empty */
    uint32_t mask;
    const ptx_func *fn;
} labtab;

static uint32_t str_hash(ptx_str s)
{
    uint32_t h = 2166136261u;
    for (uint32_t i = 0; i < s.n; i++) h = (h ^ (uint8_t)s.p[i]) * 16777619u;
    return h;
}

static ptx_str stmt_name(const ptx_stmt *s)
{
    return s->kind == PTX_S_LABEL ? s->u.name : s->u.dir->name;
}

static void labtab_init(labtab *t, const ptx_func *fn)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < fn->nstmts; i++)
        if (fn->stmts[i]->kind == PTX_S_LABEL || fn->stmts[i]->kind == PTX_S_TARGETS) n++;
    uint32_t cap = 16;
    while (cap < 2 * n + 2) cap *= 2;
    t->slot = calloc(cap, sizeof *t->slot);
    if (!t->slot) abort();
    t->mask = cap - 1;
    t->fn = fn;
    for (uint32_t i = 0; i < fn->nstmts; i++) {
        const ptx_stmt *s = fn->stmts[i];
        if (s->kind != PTX_S_LABEL && s->kind != PTX_S_TARGETS) continue;
        uint32_t h = str_hash(stmt_name(s)) & t->mask;
        while (t->slot[h]) h = (h + 1) & t->mask;
        t->slot[h] = i + 1; /* duplicates were rejected by the parser */
    }
}

static uint32_t labtab_find(labtab *t, const ptx_func *fn, ptx_str name)
{
    if (!t->slot) labtab_init(t, fn);
    for (uint32_t h = str_hash(name) & t->mask; t->slot[h]; h = (h + 1) & t->mask)
        if (ptx_str_eqs(stmt_name(t->fn->stmts[t->slot[h] - 1]), name)) return t->slot[h] - 1;
    return CFG_NONE;
}

/* ---- construction ---------------------------------------------------------- */
typedef struct builder {
    cfg *g;
    labtab labels;      /* built by labtab_find when first needed */
    ptx_diags *d;
    int errors;
    u32vec efrom, eto; /* edges, in creation order */
} builder;

static void edge(builder *b, uint32_t from, uint32_t to)
{
    /* A block has few successors: a linear duplicate check is cheap. */
    for (uint32_t i = b->efrom.n; i-- > 0 && b->efrom.v[i] == from;)
        if (b->eto.v[i] == to) return;
    u32vec_push(&b->efrom, from);
    u32vec_push(&b->eto, to);
}

static void error_at(builder *b, ptx_loc loc, const char *what, ptx_str name)
{
    b->errors++;
    if (b->d) ptx_diag_add(b->d, PTX_DIAG_ERROR, loc, "%s '%.*s'", what, (int)name.n, name.p);
}

/* The labels that control flow reaches by name: targets of bra and entries
 * of .branchtargets tables (brx.idx names the table). */
static void mark_targets(builder *b, uint8_t *is_target)
{
    const ptx_func *fn = b->g->fn;
    for (uint32_t i = 0; i < fn->nstmts; i++) {
        const ptx_stmt *s = fn->stmts[i];
        if (s->kind == PTX_S_TARGETS && s->flag == 'b') {
            for (uint32_t k = 0; k < s->u.dir->n; k++) {
                uint32_t t = ptx_target_ref(fn, s->u.dir, k);
                if (t == UINT32_MAX) t = labtab_find(&b->labels, fn, s->u.dir->items[k]);
                if (t != CFG_NONE && fn->stmts[t]->kind == PTX_S_LABEL) is_target[t] = 1;
            }
        } else if (s->kind == PTX_S_INST && s->u.inst.op == PTX_OPC_BRA && s->u.inst.nopd >= 1 &&
                   s->u.inst.opd[s->u.inst.nopd - 1].kind == PTX_O_SYM) {
            const ptx_operand *o = &s->u.inst.opd[s->u.inst.nopd - 1];
            uint32_t t = ptx_label_ref(fn, o);
            if (t == UINT32_MAX) t = labtab_find(&b->labels, fn, ptx_opd_text(o));
            if (t != CFG_NONE) is_target[t] = 1;
        }
    }
}

/* The block of the label at statement t (a recorded reference), or else
 * of the label named name. */
static uint32_t block_of_label(builder *b, uint32_t t, ptx_str name, ptx_loc loc)
{
    if (t == UINT32_MAX) t = labtab_find(&b->labels, b->g->fn, name);
    if (t == CFG_NONE || b->g->fn->stmts[t]->kind != PTX_S_LABEL) {
        error_at(b, loc, "branch target is not a label of this function:", name);
        return CFG_NONE;
    }
    return b->g->stmt_block[t];
}

/* Successors of block k from its terminator. */
static void block_edges(builder *b, uint32_t k, uint32_t next)
{
    cfg *g = b->g;
    cfg_block *bb = &g->blocks[k];
    const ptx_func *fn = g->fn;
    if (bb->term == CFG_NONE) {
        edge(b, k, next);
        return;
    }
    const ptx_stmt *s = fn->stmts[bb->term];
    const ptx_inst *in = &s->u.inst;
    if (in->op == PTX_OPC_BRA) {
        const ptx_operand *t = in->nopd ? &in->opd[in->nopd - 1] : NULL;
        if (!t || t->kind != PTX_O_SYM) {
            error_at(b, s->loc, "bra needs a label operand:", (ptx_str){in->opcode, in->opcode_len});
        } else {
            /* the resolver recorded which label (ir.h) */
            uint32_t tb = block_of_label(b, ptx_label_ref(fn, t), ptx_opd_text(t), s->loc);
            if (tb != CFG_NONE) edge(b, k, tb);
        }
    } else if (in->op == PTX_OPC_BRX) {
        const ptx_operand *t = in->nopd >= 2 ? &in->opd[1] : NULL;
        uint32_t ts = !t || t->kind != PTX_O_SYM ? CFG_NONE : ptx_stmt_ref(fn, t, PTX_S_TARGETS);
        if (t && t->kind == PTX_O_SYM && ts == UINT32_MAX) ts = labtab_find(&b->labels, fn, ptx_opd_text(t));
        if (ts == CFG_NONE || fn->stmts[ts]->kind != PTX_S_TARGETS || fn->stmts[ts]->flag != 'b') {
            error_at(b, s->loc, "brx.idx needs a .branchtargets table:",
                     t && t->kind == PTX_O_SYM ? ptx_opd_text(t) : (ptx_str){in->opcode, in->opcode_len});
        } else {
            const ptx_dirinfo *di = fn->stmts[ts]->u.dir;
            for (uint32_t i = 0; i < di->n; i++) {
                uint32_t tb = block_of_label(b, ptx_target_ref(fn, di, i), di->items[i], fn->stmts[ts]->loc);
                if (tb != CFG_NONE) edge(b, k, tb);
            }
        }
    } else {
        edge(b, k, CFG_EXIT); /* ret, exit, trap */
    }
    if (in->has_guard) edge(b, k, next); /* a guarded terminator falls through */
}

/* PTX_SEM_TERMINATOR depends on the opcode family alone (semantics.h), so
 * the families are tested directly: this runs for every statement, and the
 * full semantics costs as much as the rest of the CFG construction. */
static bool is_terminator(const ptx_stmt *s)
{
    if (s->kind != PTX_S_INST) return false;
    switch (s->u.inst.op) {
    case PTX_OPC_BRA: case PTX_OPC_BRX: case PTX_OPC_RET: case PTX_OPC_EXIT: case PTX_OPC_TRAP: return true;
    default: return false;
    }
}

/* CSR successor/predecessor arrays from the edge list. */
static void make_adjacency(builder *b)
{
    cfg *g = b->g;
    uint32_t n = g->nblocks, m = b->efrom.n;
    for (uint32_t i = 0; i < m; i++) {
        g->blocks[b->efrom.v[i]].nsucc++;
        g->blocks[b->eto.v[i]].npred++;
    }
    /* m >= 1 (the entry's edge), and every slot is filled below: not zeroed */
    uint32_t *succ = arena_alloc(g->a, sizeof *succ * m), *pred = arena_alloc(g->a, sizeof *pred * m);
    uint32_t so = 0, po = 0;
    for (uint32_t k = 0; k < n; k++) {
        g->blocks[k].succ = succ + so;
        g->blocks[k].pred = pred + po;
        so += g->blocks[k].nsucc;
        po += g->blocks[k].npred;
        g->blocks[k].nsucc = g->blocks[k].npred = 0;
    }
    for (uint32_t i = 0; i < m; i++) {
        cfg_block *f = &g->blocks[b->efrom.v[i]], *t = &g->blocks[b->eto.v[i]];
        f->succ[f->nsucc++] = b->eto.v[i];
        t->pred[t->npred++] = b->efrom.v[i];
    }
}

static void mark_reachable(cfg *g)
{
    u32vec st = {0};
    g->blocks[CFG_ENTRY].reachable = 1;
    u32vec_push(&st, CFG_ENTRY);
    while (st.n) {
        uint32_t k = st.v[--st.n];
        for (uint32_t i = 0; i < g->blocks[k].nsucc; i++) {
            uint32_t s = g->blocks[k].succ[i];
            if (!g->blocks[s].reachable) {
                g->blocks[s].reachable = 1;
                u32vec_push(&st, s);
            }
        }
    }
    u32vec_free(&st);
}

cfg *cfg_build(const ptx_func *fn, arena *a, unsigned flags, ptx_diags *d)
{
    cfg *g = ARENA_NEW(a, cfg);
    g->fn = fn;
    g->a = a;
    builder b = {.g = g, .d = d};
    uint8_t *is_target = calloc(fn->nstmts + 1, 1);
    if (!is_target) abort();
    mark_targets(&b, is_target);

    /* Leaders: the first statement, every targeted label, and the first
     * instruction or targeted label after a terminator (declarations and
     * .loc lines after a ret stay with it, so they do not make empty
     * unreachable blocks). */
    uint32_t nreal = 0;
    g->stmt_block = arena_alloc(a, sizeof *g->stmt_block * (fn->nstmts + 1)); /* every entry set below */
    bool after_term = false;
    for (uint32_t i = 0; i < fn->nstmts; i++) {
        const ptx_stmt *s = fn->stmts[i];
        bool lead = i == 0 || is_target[i] || (after_term && s->kind == PTX_S_INST);
        if (lead) {
            nreal++;
            after_term = false;
        }
        g->stmt_block[i] = 2 + nreal - 1;
        if (is_terminator(s)) after_term = true;
    }
    if (nreal == 0) nreal = 1; /* empty body: one empty block */
    uint32_t cap = 2 + nreal;
    g->nblocks = cap;
    /* on the heap until the loop-exit landings are added (cfg_split_loop_exits
     * grows it), then moved to the arena once: an arena copy per size left the
     * first one dead there (7 MB of a 100k-block kernel's 8) */
    g->blocks = malloc(sizeof *g->blocks * cap); /* every field set below: no calloc */
    if (!g->blocks) abort();
    for (uint32_t k = 0; k < cap; k++) {
        uint32_t at = k >= 2 ? fn->nstmts : 0;
        g->blocks[k] = (cfg_block){.first = at,
                                   .end = at,
                                   .label = CFG_NONE,
                                   .term = CFG_NONE,
                                   .rpo = CFG_NONE,
                                   .loop = CFG_NONE,
                                   .idom = CFG_NONE,
                                   .ipdom = CFG_NONE,
                                   .kind = k == CFG_ENTRY ? CFG_B_ENTRY : k == CFG_EXIT ? CFG_B_EXIT : CFG_B_REAL};
    }
    for (uint32_t i = fn->nstmts; i-- > 0;) {
        cfg_block *bb = &g->blocks[g->stmt_block[i]];
        bb->first = i;
    }
    for (uint32_t k = 2; k < cap; k++) {
        cfg_block *bb = &g->blocks[k];
        if (k + 1 < cap) bb->end = g->blocks[k + 1].first;
        for (uint32_t i = bb->first; i < bb->end; i++) {
            const ptx_stmt *s = fn->stmts[i];
            if (s->kind == PTX_S_LABEL && is_target[i] && bb->label == CFG_NONE) bb->label = i;
            if (bb->term == CFG_NONE && is_terminator(s)) bb->term = i;
        }
    }
    g->stmt_block[fn->nstmts] = CFG_EXIT;
    free(is_target);

    edge(&b, CFG_ENTRY, 2);
    for (uint32_t k = 2; k < cap; k++) block_edges(&b, k, k + 1 < cap ? k + 1 : CFG_EXIT);
    free(b.labels.slot);
    if (b.errors) {
        u32vec_free(&b.efrom);
        u32vec_free(&b.eto);
        free(g->blocks);
        return NULL;
    }
    make_adjacency(&b);
    u32vec_free(&b.efrom);
    u32vec_free(&b.eto);

    mark_reachable(g);
    cfg_find_loops(g);
    if (flags & CFG_SPLIT_LOOP_EXITS) cfg_split_loop_exits(g);
    cfg_finish_loops(g);
    cfg_block *heap = g->blocks;
    g->blocks = arena_alloc(a, sizeof *g->blocks * g->nblocks);
    memcpy(g->blocks, heap, sizeof *g->blocks * g->nblocks);
    free(heap);
    cfg_compute_rpo(g);
    cfg_compute_dominators(g);
    cfg_compute_postdominators(g);
    cfg_compute_control_dependence(g);
    return g;
}

uint32_t cfg_block_resume_stmt(const cfg *g, uint32_t b)
{
    /* Landing blocks and the entry lead to exactly one block; follow them. */
    for (uint32_t guard = 0; guard <= g->nblocks; guard++) {
        const cfg_block *bb = &g->blocks[b];
        if (bb->kind == CFG_B_EXIT) return g->fn->nstmts;
        if (bb->kind == CFG_B_REAL) return bb->first;
        b = bb->succ[0];
    }
    return g->fn->nstmts;
}

/* snprintf(buf, n, "%.*s%u", len, p, num) (no number if !with_num)
 * without the format interpreter: names are written for every block and
 * edge of a large CFG's listing, and snprintf was a quarter of the cost
 * of `cfg --format json`. */
void cfg_name_num(char *buf, unsigned n, const char *p, size_t len, bool with_num, uint32_t num)
{
    if (!n) return;
    char d[10];
    unsigned nd = 0;
    if (with_num) do
            d[nd++] = (char)('0' + num % 10);
        while ((num /= 10));
    size_t k = len < n - 1 ? len : n - 1;
    memcpy(buf, p, k);
    while (nd && k < n - 1) buf[k++] = d[--nd];
    buf[k] = 0;
}

const char *cfg_block_name(const cfg *g, uint32_t b, char *buf, unsigned n)
{
    const cfg_block *bb = &g->blocks[b];
    switch (bb->kind) {
    case CFG_B_ENTRY: snprintf(buf, n, "entry"); break;
    case CFG_B_EXIT: snprintf(buf, n, "exit"); break;
    case CFG_B_LANDING: {
        char x[128], y[128];
        snprintf(buf, n, "%s>%s", cfg_block_name(g, bb->pred[0], x, sizeof x),
                 cfg_block_name(g, bb->succ[0], y, sizeof y));
        break;
    }
    default:
        if (bb->label != CFG_NONE) {
            ptx_str s = g->fn->stmts[bb->label]->u.name;
            cfg_name_num(buf, n, s.p, s.n, false, 0);
        } else {
            cfg_name_num(buf, n, "BB", 2, true, b - 2);
        }
    }
    return buf;
}

bool cfg_loop_contains(const cfg *g, uint32_t l, uint32_t b)
{
    for (uint32_t k = g->blocks[b].loop; k != CFG_NONE; k = g->loops[k].parent)
        if (k == l) return true;
    return false;
}

bool cfg_is_back_edge_slow(const cfg *g, uint32_t from, uint32_t to)
{
    for (uint32_t k = g->blocks[from].loop; k != CFG_NONE; k = g->loops[k].parent)
        for (uint32_t h = 0; h < g->loops[k].nheaders; h++)
            if (g->loops[k].headers[h] == to) return true;
    return false;
}
