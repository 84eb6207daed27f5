/* Forms of the CFG / SSA / GSA of a program for `ptxray cfg`.
 *
 * Text: per function a summary, then its blocks.  At the CFG level each
 * block is one line (lines, successors, dominators, loop, control
 * dependence); at the SSA and GSA levels the block's code follows with
 * every register operand renamed to its value (%r5.2: second definition of
 * %r5), preceded by the block's phi (SSA) or gamma/mu/eta (GSA) functions,
 * as in Fig. 9 of Sampaio et al.  Landing blocks are shown just before the
 * block they lead to. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include "cfg_print.h"
#include "div_report.h"
#include "json_stream.h"
#include "kname.h"
#include "printer.h"
#include "semantics.h"
#include "names.h"

#define NAMELEN 160

static const char *bname(const cfg *g, uint32_t b, char *buf)
{
    if (b == CFG_NONE) return "-";
    return cfg_block_name(g, b, buf, NAMELEN);
}

/* First and last PTX line of the block's instructions (0 if none). */
static void block_lines(const cfg *g, uint32_t b, uint32_t *lo, uint32_t *hi)
{
    *lo = *hi = 0;
    const cfg_block *bb = &g->blocks[b];
    if (bb->kind != CFG_B_REAL) return;
    for (uint32_t i = bb->first; i < bb->end; i++) {
        const ptx_stmt *s = g->fn->stmts[i];
        if (s->kind != PTX_S_INST && s->kind != PTX_S_LABEL) continue;
        if (!*lo) *lo = s->loc.line;
        *hi = s->loc.line;
    }
}

static bool is_header(const cfg *g, uint32_t b)
{
    uint32_t l = g->blocks[b].loop;
    if (l == CFG_NONE) return false;
    for (uint32_t h = 0; h < g->loops[l].nheaders; h++)
        if (g->loops[l].headers[h] == b) return true;
    return false;
}

/* Program order for listing: entry, real blocks with each landing block
 * just before the block it leads to, exit. */
static uint32_t listing_order(const cfg *g, uint32_t *order)
{
    uint32_t n = 0;
    order[n++] = CFG_ENTRY;
    for (uint32_t b = 2; b < g->nblocks; b++) {
        if (g->blocks[b].kind == CFG_B_LANDING) continue;
        for (uint32_t i = 0; i < g->blocks[b].npred; i++)
            if (g->blocks[g->blocks[b].pred[i]].kind == CFG_B_LANDING) order[n++] = g->blocks[b].pred[i];
        order[n++] = b;
    }
    for (uint32_t i = 0; i < g->blocks[CFG_EXIT].npred; i++)
        if (g->blocks[g->blocks[CFG_EXIT].pred[i]].kind == CFG_B_LANDING) order[n++] = g->blocks[CFG_EXIT].pred[i];
    order[n++] = CFG_EXIT;
    return n;
}

/* ---- values and GSA expressions as text ---------------------------------- */
static void put_value(FILE *o, const ssa_func *s, uint32_t v)
{
    char buf[NAMELEN];
    fputs(ssa_value_name(s, v, buf, sizeof buf), o);
}

/* Expressions are DAGs; printed as trees (a shared operand is repeated). */
static void put_expr(FILE *o, const ssa_func *s, const gsa_expr *e, unsigned depth)
{
    if (!e) {
        fputs("-", o);
        return;
    }
    if (e->kind == GSA_X_VALUE) {
        put_value(o, s, e->value);
        return;
    }
    if (depth > 64) {
        fputs("...", o);
        return;
    }
    if (e->branch == CFG_NONE) fputs("φ(", o);
    else {
        fputs("γ(", o);
        if (e->neg) fputc('!', o);
        put_value(o, s, e->value);
        fputs(", ", o);
    }
    for (uint32_t i = 0; i < e->n; i++) {
        if (i) fputs(", ", o);
        put_expr(o, s, e->ops[i], depth + 1);
    }
    fputc(')', o);
}

/* Gate lists longer than this are printed once per function, as a named
 * set ("G3"), and referred to by name: every eta leaving the same loops
 * shares one, and a loop with many exits and live-out values would
 * otherwise print the same long list for each. */
#define INLINE_GATES 4

static void put_gate_list(FILE *o, const ssa_func *s, const gsa_node *gn)
{
    if (gn->ngates != 1) fputc('[', o);
    for (uint32_t i = 0; i < gn->ngates; i++) {
        uint32_t v;
        bool neg;
        if (i) fputs(", ", o);
        if (gsa_branch_gate(s, gn->gates[i], &v, &neg)) {
            if (neg) fputc('!', o);
            put_value(o, s, v);
        }
    }
    if (gn->ngates != 1) fputc(']', o);
}

static void put_gates(FILE *o, const ssa_func *s, const gsa_node *gn)
{
    if (gn->ngates > INLINE_GATES) fprintf(o, "G%u", gn->gate_set);
    else put_gate_list(o, s, gn);
}

/* The named gate sets, each once, in set order. */
static void put_gate_sets(FILE *o, const prog_func *pf)
{
    const gsa_func *gf = pf->gsa;
    const gsa_node **first = calloc(gf->ngate_sets ? gf->ngate_sets : 1, sizeof *first);
    if (!first) abort();
    for (uint32_t k = 0; k < pf->ssa->nnodes; k++) {
        const gsa_node *gn = &gf->nodes[k];
        if (gn->ngates > INLINE_GATES && !first[gn->gate_set]) first[gn->gate_set] = gn;
    }
    for (uint32_t i = 0; i < gf->ngate_sets; i++)
        if (first[i]) {
            fprintf(o, "  gate set G%u: ", i);
            put_gate_list(o, pf->ssa, first[i]);
            fputc('\n', o);
        }
    free(first);
}

static void put_node(FILE *o, const prog_func *pf, uint32_t k, enum prog_level level)
{
    const ssa_func *s = pf->ssa;
    const ssa_node *nd = &s->nodes[k];
    char buf[NAMELEN];
    fputc('\t', o);
    put_value(o, s, nd->value);
    fputs(" = ", o);
    if (level == PROG_SSA || !pf->gsa) {
        fputs(nd->kind == SSA_V_ETA ? "η(" : "φ(", o);
        for (uint32_t i = 0; i < nd->nargs; i++) {
            if (i) fputs(", ", o);
            put_value(o, s, nd->args[i]);
            if (nd->kind == SSA_V_PHI) fprintf(o, " [%s]", bname(pf->g, pf->g->blocks[nd->block].pred[i], buf));
        }
        fputs(")\n", o);
        return;
    }
    const gsa_node *gn = &pf->gsa->nodes[k];
    switch (gn->kind) {
    case GSA_GAMMA:
        put_expr(o, s, gn->expr, 0);
        break;
    case GSA_MU:
        if (gn->irreducible) {
            put_expr(o, s, gn->expr, 0);
            break;
        }
        fputs("μ(", o);
        put_expr(o, s, gn->expr, 0);
        fputs(", ", o);
        put_expr(o, s, gn->carried, 0);
        fputc(')', o);
        break;
    case GSA_ETA:
        fputs("η(", o);
        put_gates(o, s, gn);
        fputs(", ", o);
        put_expr(o, s, gn->expr, 0);
        fputc(')', o);
        break;
    }
    if (gn->irreducible) {
        fputs("   // irreducible; gates ", o);
        put_gates(o, s, gn);
    }
    fputc('\n', o);
}

/* The register hook: every REG leaf of the instruction printed as the value
 * its reference names. */
typedef struct refmap {
    const ssa_func *s;
    uint32_t k;      /* next reference: callbacks come in the recorded order */
    uint32_t n;
    const ptx_operand *o[64];
    uint32_t v[64];
    uint32_t guard;
} refmap;

static void map_ref(void *ctx, const ptx_inst *in, const ptx_reg_ref *r)
{
    (void)in;
    refmap *m = ctx;
    uint32_t v = m->s->refs[m->k++].value;
    if (r->role & PTX_REF_GUARD) m->guard = v;
    else if (m->n < 64) {
        m->o[m->n] = r->o;
        m->v[m->n++] = v;
    }
}

static bool reg_hook(FILE *o, void *ctx, const ptx_operand *reg)
{
    refmap *m = ctx;
    uint32_t v = SSA_NONE;
    if (!reg) v = m->guard;
    else if (reg->kind == PTX_O_SREG) return false;
    else
        for (uint32_t i = 0; i < m->n; i++)
            if (m->o[i] == reg) v = m->v[i]; /* a read-modify-write operand: the new value */
    if (v == SSA_NONE) return false;
    put_value(o, m->s, v);
    return true;
}

static void put_inst_ssa(FILE *o, const prog_func *pf, uint32_t i)
{
    const ptx_inst *in = &pf->fn->stmts[i]->u.inst;
    refmap m = {.s = pf->ssa, .k = pf->ssa->ref_off[i], .guard = SSA_NONE};
    ptx_inst_foreach_reg(in, NULL, map_ref, &m);
    fputc('\t', o);
    ptx_print_inst_hooked(o, pf->fn, in, reg_hook, &m);
    fputc('\n', o);
}

static void text_block_code(FILE *o, const prog_func *pf, uint32_t b, enum prog_level level)
{
    const cfg *g = pf->g;
    const cfg_block *bb = &g->blocks[b];
    for (uint32_t k = pf->ssa->node_off[b]; k < pf->ssa->node_off[b + 1]; k++) put_node(o, pf, k, level);
    if (bb->kind != CFG_B_REAL) return;
    for (uint32_t i = bb->first; i < bb->end; i++) {
        const ptx_stmt *s = g->fn->stmts[i];
        if (s->kind != PTX_S_INST) continue;
        if (bb->reachable) put_inst_ssa(o, pf, i);
        else {
            fputc('\t', o);
            ptx_print_inst_hooked(o, pf->fn, &s->u.inst, NULL, NULL);
            fputc('\n', o);
        }
    }
}

static void text_func(FILE *o, const prog_func *pf, enum prog_level level)
{
    const cfg *g = pf->g;
    char b1[NAMELEN], b2[NAMELEN];
    uint32_t nreal = 0, nunreach = 0;
    for (uint32_t b = 0; b < g->nblocks; b++) {
        nreal += g->blocks[b].kind == CFG_B_REAL;
        nunreach += !g->blocks[b].reachable && g->blocks[b].kind == CFG_B_REAL;
    }
    fputs(pf->fn->is_entry ? ".entry " : ".func ", o);
    kn_print(o, pf->fn);
    fprintf(o, ": %u blocks (+%u landing), %u loop%s (%u irreducible), %u unreachable block%s\n", nreal,
            g->nblocks - 2 - nreal, g->nloops, g->nloops == 1 ? "" : "s", g->nirreducible, nunreach,
            nunreach == 1 ? "" : "s");
    if (level >= PROG_SSA)
        fprintf(o, "  SSA: %u values (%u defined by instructions), %u φ, %u η\n", pf->ssa->nvalues,
                pf->ssa->ninst_values, pf->ssa->nphis, pf->ssa->netas);
    if (level >= PROG_GSA) {
        fprintf(o, "  GSA: %u γ, %u μ, %u η\n", pf->gsa->ngamma, pf->gsa->nmu, pf->gsa->neta);
        put_gate_sets(o, pf);
    }
    for (uint32_t l = 0; l < g->nloops; l++) {
        const cfg_loop *lp = &g->loops[l];
        fprintf(o, "  loop %u:%s depth %u, header%s", l, lp->irreducible ? " IRREDUCIBLE," : "", lp->depth,
                lp->nheaders > 1 ? "s" : "");
        for (uint32_t h = 0; h < lp->nheaders; h++) fprintf(o, " %s", bname(g, lp->headers[h], b1));
        fprintf(o, ", %u block%s, latch%s", lp->nblocks, lp->nblocks == 1 ? "" : "s", lp->nlatches == 1 ? "" : "es");
        for (uint32_t i = 0; i < lp->nlatches; i++) fprintf(o, " %s", bname(g, lp->latches[i], b1));
        fputs(", exits", o);
        for (uint32_t i = 0; i < lp->nexits; i++)
            fprintf(o, " %s->%s", bname(g, lp->exit_from[i], b1), bname(g, lp->exit_to[i], b2));
        if (!lp->nexits) fputs(" none (infinite)", o);
        if (lp->parent != CFG_NONE) fprintf(o, ", in loop %u", lp->parent);
        fputc('\n', o);
    }
    uint32_t *order = malloc(sizeof *order * g->nblocks);
    if (!order) abort();
    uint32_t n = listing_order(g, order);
    for (uint32_t k = 0; k < n; k++) {
        uint32_t b = order[k];
        const cfg_block *bb = &g->blocks[b];
        uint32_t lo, hi;
        block_lines(g, b, &lo, &hi);
        fprintf(o, "%s:", bname(g, b, b1));
        if (lo) fprintf(o, " lines %u-%u", lo, hi);
        if (!bb->reachable) fputs(" UNREACHABLE", o);
        fputs(" ->", o);
        for (uint32_t i = 0; i < bb->nsucc; i++) fprintf(o, " %s", bname(g, bb->succ[i], b1));
        if (bb->fake_exit) fputs(" (exit: no path)", o);
        if (!bb->nsucc && !bb->fake_exit) fputs(" -", o);
        if (bb->reachable) {
            fprintf(o, "; idom %s; ipdom %s", bname(g, bb->idom, b1), bname(g, bb->ipdom, b2));
            if (bb->loop != CFG_NONE) fprintf(o, "; loop %u%s", bb->loop, is_header(g, b) ? " header" : "");
            if (g->cdep_off[b] < g->cdep_off[b + 1]) {
                fputs("; control-dependent on", o);
                for (uint32_t i = g->cdep_off[b]; i < g->cdep_off[b + 1]; i++) fprintf(o, " %s", bname(g, g->cdep[i], b1));
            }
        }
        fputc('\n', o);
        if (level >= PROG_SSA) text_block_code(o, pf, b, level);
    }
    free(order);
}

/* ---- Graphviz -------------------------------------------------------------- */
static void dot_escape(FILE *o, const char *s)
{
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') fputc('\\', o);
        if (*s == '\n') fputs("\\l", o);
        else fputc(*s, o);
    }
}

/* Light fills: the labels stay readable, and the three classes apart in
 * print and for the common colour-vision deficiencies (green/yellow differ
 * in lightness, red is the darkest). */
const char *const cfgd_fill[4] = {"#ffffff", "#d8eed8", "#fbe7a1", "#f4b4ae"};

void cfg_dot_classes(const prog_func *pf, const div_result *r, uint8_t *cls)
{
    const cfg *g = pf->g;
    uint8_t *div = malloc(g->nblocks ? g->nblocks : 1), *part = malloc(g->nblocks ? g->nblocks : 1);
    if (!div || !part) abort();
    for (uint32_t b = 0; b < g->nblocks; b++)
        div[b] = g->blocks[b].reachable && g->blocks[b].kind == CFG_B_REAL && g->blocks[b].nsucc >= 2 &&
                 div_branch(r, b) != DIV_UNIFORM;
    div_partial_blocks(g, div, part); /* the blocks after a divergent branch */
    for (uint32_t b = 0; b < g->nblocks; b++) {
        const cfg_block *bb = &g->blocks[b];
        if (!bb->reachable || bb->kind == CFG_B_ENTRY || bb->kind == CFG_B_EXIT) cls[b] = CFGD_NONE;
        else cls[b] = div[b] ? CFGD_DIVERGENT : part[b] ? CFGD_PARTIAL : CFGD_UNIFORM;
    }
    free(div);
    free(part);
}

/* The block's source lines as "file.cu:3,7-9", one file per line, at most
 * MAX_RANGES ranges per file (then "+N lines"). */
#define MAX_RANGES 6
typedef struct srcline {
    const char *file;
    uint32_t line;
} srcline;

static int cmp_srcline(const void *a, const void *b)
{
    const srcline *x = a, *y = b;
    int c = strcmp(x->file, y->file);
    if (c) return c;
    return x->line < y->line ? -1 : x->line > y->line;
}

static void dot_src_lines(FILE *o, const cfg *g, const src_files *sf, uint32_t b)
{
    const cfg_block *bb = &g->blocks[b];
    if (bb->kind != CFG_B_REAL || bb->first >= bb->end) return;
    srcline *v = malloc(sizeof *v * (bb->end - bb->first));
    if (!v) abort();
    uint32_t n = 0;
    for (uint32_t i = bb->first; i < bb->end; i++) {
        if (g->fn->stmts[i]->kind != PTX_S_INST) continue;
        src_pos p;
        src_pos_of(sf, g->fn, i, &p);
        src_frame chain[SRC_MAX_INLINE + 1];
        uint32_t user;
        if (!src_chain(&p, chain, &user)) continue;
        v[n++] = (srcline){chain[user].file, chain[user].line};
    }
    qsort(v, n, sizeof *v, cmp_srcline);
    for (uint32_t i = 0; i < n;) {
        const char *base = strrchr(v[i].file, '/');
        fputs("\\n", o);
        dot_escape(o, base ? base + 1 : v[i].file);
        uint32_t j = i, nr = 0, rest = 0;
        while (j < n && !strcmp(v[j].file, v[i].file)) {
            uint32_t lo = v[j].line, hi = lo;
            while (j < n && !strcmp(v[j].file, v[i].file) && v[j].line <= hi + 1) hi = v[j++].line;
            if (nr++ < MAX_RANGES) {
                fprintf(o, "%c%u", nr == 1 ? ':' : ',', lo);
                if (hi > lo) fprintf(o, "-%u", hi);
            } else rest += hi - lo + 1;
        }
        if (rest) fprintf(o, ",+%u line%s", rest, rest == 1 ? "" : "s");
        i = j;
    }
    free(v);
}

void cfg_dot_func(FILE *o, const prog_func *pf, const cfg_dot_opts *opt)
{
    const cfg *g = pf->g;
    const char *pre = opt->prefix;
    char b1[NAMELEN];
    uint8_t *cls = NULL;
    if (opt->r) {
        cls = malloc(g->nblocks);
        if (!cls) abort();
        cfg_dot_classes(pf, opt->r, cls);
    }
    if (opt->ids) {
        /* a page names the function itself; and Graphviz 2.42's layout of a
         * cluster leaks its skeleton edges */
        fprintf(o, "  subgraph %s {\n", pre);
    } else {
        fprintf(o, "  subgraph cluster_%s {\n    label=\"%s ", pre, pf->fn->is_entry ? ".entry" : ".func");
        char *shown = ptx_func_shown(pf->fn);
        dot_escape(o, shown);
        free(shown);
        fputs("\";\n", o);
    }
    for (uint32_t b = 0; b < g->nblocks; b++) {
        const cfg_block *bb = &g->blocks[b];
        uint32_t lo, hi;
        block_lines(g, b, &lo, &hi);
        fprintf(o, "    %s_b%u [label=\"", pre, b);
        dot_escape(o, bname(g, b, b1));
        if (lo) fprintf(o, "\\nPTX %u-%u", lo, hi);
        if (opt->files) dot_src_lines(o, g, opt->files, b);
        if (opt->level >= PROG_SSA && bb->reachable) {
            /* the block's phi / gamma / mu / eta functions, left-aligned */
            char *buf = NULL;
            size_t len = 0;
            FILE *m = open_memstream(&buf, &len);
            if (m) {
                for (uint32_t k = pf->ssa->node_off[b]; k < pf->ssa->node_off[b + 1]; k++)
                    put_node(m, pf, k, opt->level);
                fclose(m);
                if (len) {
                    fputs("\\n", o);
                    for (char *p = buf; *p; p++)
                        if (*p == '\t') *p = ' ';
                    dot_escape(o, buf);
                }
                free(buf);
            }
        }
        fputc('"', o);
        if (opt->ids) {
            static const char *cn[] = {"none", "uniform", "partial", "divergent"};
            fprintf(o, ", id=\"%s_b%u\", class=\"%s\"", pre, b, cn[cls ? cls[b] : 0]);
        }
        if (bb->kind != CFG_B_REAL) fputs(", shape=ellipse", o);
        if (is_header(g, b)) fputs(", peripheries=2", o);
        if (!bb->reachable) fputs(", style=dashed, fontcolor=gray50, color=gray50", o);
        else if (cls && cls[b] != CFGD_NONE) {
            fprintf(o, ", style=filled, fillcolor=\"%s\"", cfgd_fill[cls[b]]);
            if (cls[b] == CFGD_DIVERGENT) fputs(", color=\"" CFGD_EDGE_COLOUR "\", penwidth=2", o);
        }
        fputs("];\n", o);
    }
    uint32_t ne = 0;
    for (uint32_t b = 0; b < g->nblocks; b++) {
        const cfg_block *bb = &g->blocks[b];
        for (uint32_t i = 0; i < bb->nsucc; i++) {
            uint32_t t = bb->succ[i];
            char at[200] = "";
            size_t k = 0;
            if (opt->ids) k += (size_t)snprintf(at + k, sizeof at - k, ", id=\"%s_e%u\"", pre, ne++);
            if (bb->reachable && cfg_is_back_edge(g, b, t))
                k += (size_t)snprintf(at + k, sizeof at - k, ", style=dashed, color=blue, label=\"back\"");
            else if (bb->nsucc == 2 && bb->term != CFG_NONE && g->fn->stmts[bb->term]->u.inst.has_guard)
                /* at the tail: an edge label is a node to Graphviz's layout,
                 * and these made a large CFG's layout ten times slower */
                k += (size_t)snprintf(at + k, sizeof at - k, ", taillabel=\"%s\"", i == 0 ? "taken" : "fall");
            /* a divergent branch's edges are where the warp splits */
            if (cls && cls[b] == CFGD_DIVERGENT)
                snprintf(at + k, sizeof at - k, ", color=\"" CFGD_EDGE_COLOUR "\", penwidth=2");
            fprintf(o, "    %s_b%u -> %s_b%u", pre, b, pre, t);
            if (at[0]) fprintf(o, " [%s]", at + 2);
            fputs(";\n", o);
        }
        if (bb->fake_exit) {
            fprintf(o, "    %s_b%u -> %s_b%u [", pre, b, pre, CFG_EXIT);
            if (opt->ids) fprintf(o, "id=\"%s_e%u\", ", pre, ne++);
            fputs("style=dotted, label=\"no exit\"];\n", o);
        }
    }
    fputs("  }\n", o);
    free(cls);
}

void cfg_dot_prog(FILE *o, const prog *p, enum prog_level level, const div_result *const *r, const src_files *files)
{
    fputs("digraph ptxray {\n  node [shape=box, fontname=\"monospace\"];\n", o);
    for (uint32_t i = 0; i < p->nfuncs; i++) {
        char pre[16];
        snprintf(pre, sizeof pre, "f%u", i);
        cfg_dot_opts opt = {level, r ? r[i] : NULL, files, pre, false};
        cfg_dot_func(o, &p->funcs[i], &opt);
    }
    fputs("}\n", o);
}

/* ---- JSON ------------------------------------------------------------------- */
/* Written member by member through json_stream.h's scalars: a 100k-block
 * kernel's GSA is ~90 MB of JSON, and building a jansson tree for each
 * block cost three times the analyses.  The bytes are those of the trees
 * the earlier version built (json_stream.h). */
static void jname(jstream *j, const char *key, const cfg *g, uint32_t b)
{
    char buf[NAMELEN];
    js_str(j, key, b == CFG_NONE ? NULL : cfg_block_name(g, b, buf, sizeof buf));
}

static void jvalue(jstream *j, const char *key, const ssa_func *s, uint32_t v)
{
    char buf[NAMELEN];
    js_str(j, key, v == SSA_NONE ? NULL : ssa_value_name(s, v, buf, sizeof buf));
}

static void jexpr(jstream *j, const char *key, const ssa_func *s, const gsa_expr *e, unsigned depth)
{
    if (!e) {
        js_null(j, key);
        return;
    }
    if (e->kind == GSA_X_VALUE) {
        jvalue(j, key, s, e->value);
        return;
    }
    js_open_object(j, key);
    if (e->branch != CFG_NONE) {
        jvalue(j, "gate", s, e->value);
        js_bool(j, "negated", e->neg);
        jname(j, "branch", s->g, e->branch);
    }
    js_open_array(j, "ops");
    for (uint32_t i = 0; i < e->n; i++) {
        if (depth > 64) js_null(j, NULL);
        else jexpr(j, NULL, s, e->ops[i], depth + 1);
    }
    js_close(j);
    js_close(j);
}

static void jblocks(jstream *j, const char *key, const cfg *g, const uint32_t *v, uint32_t n)
{
    js_open_array(j, key);
    for (uint32_t i = 0; i < n; i++) jname(j, NULL, g, v[i]);
    js_close(j);
}

static void jgates(jstream *j, const char *key, const prog_func *pf, const gsa_node *gn)
{
    js_open_array(j, key);
    for (uint32_t i = 0; i < gn->ngates; i++) {
        uint32_t v;
        bool neg;
        js_open_object(j, NULL);
        jname(j, "branch", pf->g, gn->gates[i]);
        if (gsa_branch_gate(pf->ssa, gn->gates[i], &v, &neg)) {
            jvalue(j, "gate", pf->ssa, v);
            js_bool(j, "negated", neg);
        }
        js_close(j);
    }
    js_close(j);
}

/* One block: its edges, dominators, loop, control dependences and, at
 * SSA/GSA level, its phi (gamma, mu, eta) nodes. */
static void json_block(jstream *j, const prog_func *pf, uint32_t b, enum prog_level level)
{
    const cfg *g = pf->g;
    static const char *kinds[] = {"block", "entry", "exit", "landing"};
    const cfg_block *bb = &g->blocks[b];
    uint32_t lo, hi;
    block_lines(g, b, &lo, &hi);
    js_open_object(j, NULL);
    jname(j, "name", g, b);
    js_str(j, "kind", kinds[bb->kind]);
    if (lo) {
        js_open_array(j, "lines");
        js_int(j, NULL, lo);
        js_int(j, NULL, hi);
        js_close(j);
    } else js_null(j, "lines");
    js_bool(j, "reachable", bb->reachable);
    jblocks(j, "succ", g, bb->succ, bb->nsucc);
    jblocks(j, "pred", g, bb->pred, bb->npred);
    jname(j, "idom", g, bb->idom);
    jname(j, "ipdom", g, bb->ipdom);
    if (bb->loop == CFG_NONE) js_null(j, "loop");
    else js_int(j, "loop", bb->loop);
    js_bool(j, "fake_exit_edge", bb->fake_exit);
    jblocks(j, "control_dependent_on", g, g->cdep + g->cdep_off[b], g->cdep_off[b + 1] - g->cdep_off[b]);
    if (level < PROG_SSA) {
        js_close(j);
        return;
    }
    js_open_array(j, level == PROG_SSA ? "phi" : "gsa");
    for (uint32_t q = pf->ssa->node_off[b]; q < pf->ssa->node_off[b + 1]; q++) {
        const ssa_node *nd = &pf->ssa->nodes[q];
        js_open_object(j, NULL);
        jvalue(j, "value", pf->ssa, nd->value);
        if (level == PROG_SSA) {
            js_str(j, "kind", nd->kind == SSA_V_ETA ? "eta" : "phi");
            js_open_array(j, "args");
            for (uint32_t i = 0; i < nd->nargs; i++) jvalue(j, NULL, pf->ssa, nd->args[i]);
            js_close(j);
        } else {
            const gsa_node *gn = &pf->gsa->nodes[q];
            static const char *gk[] = {"gamma", "mu", "eta"};
            js_str(j, "kind", gk[gn->kind]);
            jexpr(j, gn->kind == GSA_MU ? "init" : "expr", pf->ssa, gn->expr, 0);
            if (gn->kind == GSA_MU && !gn->irreducible) jexpr(j, "carried", pf->ssa, gn->carried, 0);
            if ((gn->kind == GSA_ETA || gn->irreducible) && gn->ngates > INLINE_GATES)
                js_int(j, "gate_set", gn->gate_set);
            else if (gn->kind == GSA_ETA || gn->irreducible)
                jgates(j, "gates", pf, gn);
            if (gn->irreducible) js_bool(j, "irreducible", true);
        }
        js_close(j);
    }
    js_close(j);
    js_close(j);
}

static void json_loop(jstream *j, const cfg *g, uint32_t l)
{
    const cfg_loop *lp = &g->loops[l];
    js_open_object(j, NULL);
    js_int(j, "id", l);
    if (lp->parent == CFG_NONE) js_null(j, "parent");
    else js_int(j, "parent", lp->parent);
    js_int(j, "depth", lp->depth);
    js_bool(j, "irreducible", lp->irreducible);
    jblocks(j, "headers", g, lp->headers, lp->nheaders);
    jblocks(j, "latches", g, lp->latches, lp->nlatches);
    jblocks(j, "blocks", g, lp->blocks, lp->nblocks);
    js_open_array(j, "exits");
    for (uint32_t i = 0; i < lp->nexits; i++) {
        js_open_array(j, NULL);
        jname(j, NULL, g, lp->exit_from[i]);
        jname(j, NULL, g, lp->exit_to[i]);
        js_close(j);
    }
    js_close(j);
    js_close(j);
}

/* A function, block by block and loop by loop (json_stream.h: the memory
 * is one block's, not the function's: a 100k-block kernel's GSA is ~90 MB
 * of JSON). */
static void json_func(jstream *s, const prog_func *pf, enum prog_level level)
{
    const cfg *g = pf->g;
    js_open_object(s, NULL);
    char *shown = ptx_func_shown(pf->fn);
    js_put(s, "name", json_string(shown));
    free(shown);
    js_put(s, "symbol", json_stringn(pf->fn->name.p, pf->fn->name.n));
    js_put(s, "kind", json_string(pf->fn->is_entry ? "entry" : "func"));
    uint32_t *order = malloc(sizeof *order * g->nblocks);
    if (!order) abort();
    uint32_t n = listing_order(g, order);
    js_open_array(s, "blocks");
    for (uint32_t k = 0; k < n; k++) json_block(s, pf, order[k], level);
    js_close(s);
    free(order);
    js_open_array(s, "loops");
    for (uint32_t l = 0; l < g->nloops; l++) json_loop(s, g, l);
    js_close(s);
    if (level >= PROG_GSA) {
        /* the long gate lists, once each (nodes name them by "gate_set") */
        uint32_t nsets = 0;
        for (uint32_t k = 0; k < pf->ssa->nnodes; k++)
            if (pf->gsa->nodes[k].gate_set >= nsets) nsets = pf->gsa->nodes[k].gate_set + 1;
        uint8_t *seen = calloc(nsets ? nsets : 1, 1);
        if (!seen) abort();
        js_open_object(s, "gate_sets");
        for (uint32_t k = 0; k < pf->ssa->nnodes; k++) {
            const gsa_node *gn = &pf->gsa->nodes[k];
            if (gn->ngates <= INLINE_GATES || seen[gn->gate_set]) continue;
            seen[gn->gate_set] = 1;
            char key[16];
            snprintf(key, sizeof key, "%u", gn->gate_set);
            jgates(s, key, pf, gn);
        }
        js_close(s);
        free(seen);
    }
    if (level >= PROG_SSA) {
        js_open_object(s, "ssa_stats");
        js_int(s, "values", pf->ssa->nvalues);
        js_int(s, "phi", pf->ssa->nphis);
        js_int(s, "eta", pf->ssa->netas);
        if (level >= PROG_GSA) {
            js_int(s, "gamma", pf->gsa->ngamma);
            js_int(s, "mu", pf->gsa->nmu);
        }
        js_close(s);
    }
    js_close(s);
}

void cfg_print_prog(FILE *o, const prog *p, enum prog_level level, int format)
{
    if (format == CFGP_JSON) {
        jstream s;
        js_init(&s, o);
        js_open_object(&s, NULL);
        js_open_array(&s, "functions");
        for (uint32_t i = 0; i < p->nfuncs; i++) json_func(&s, &p->funcs[i], level);
        js_finish(&s); /* a failed write shows in ferror(o), which the caller checks */
        return;
    }
    if (format == CFGP_DOT) {
        cfg_dot_prog(o, p, level, NULL, NULL);
        return;
    }
    for (uint32_t i = 0; i < p->nfuncs; i++) {
        if (i) fputc('\n', o);
        text_func(o, &p->funcs[i], level);
    }
}
