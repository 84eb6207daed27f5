/* The contents of a divergence report: option parsing, the three analyses,
 * branches with their .loc, the listed values and the statistics.  The
 * text and JSON writers are in div_report_out.c. */
#include "div_report.h"
#include <stdlib.h>
#include <string.h>

bool dr_parse_analysis(const char *s, enum div_analysis *a)
{
    for (int i = 0; i < DR_NAN; i++)
        if (!strcmp(s, div_analysis_name((enum div_analysis)i))) {
            *a = (enum div_analysis)i;
            return true;
        }
    return false;
}

bool dr_parse_values(const char *s, unsigned *mask)
{
    if (!strcmp(s, "all")) {
        *mask = 7;
        return true;
    }
    if (!strcmp(s, "none")) {
        *mask = 0;
        return true;
    }
    unsigned m = 0;
    for (const char *p = s;;) {
        size_t n = strcspn(p, ",");
        int found = -1;
        for (int st = 0; st < 3; st++) {
            const char *nm = div_state_name((enum div_state)st);
            if (n == strlen(nm) && !memcmp(p, nm, n)) found = st;
        }
        if (found < 0) return false;
        m |= 1u << found;
        if (!p[n]) break;
        p += n + 1;
    }
    *mask = m;
    return true;
}

int dr_option(int c, const char *arg, dr_config *cfg, const char *cmd)
{
    switch (c) {
    case 'a':
        if (dr_parse_analysis(arg, &cfg->analysis)) return 0;
        fprintf(stderr, "ptxray %s: unknown analysis '%s' (simple, affine or affine2)\n", cmd, arg);
        return -1;
    case 'b': return blk_add(&cfg->blocks, arg, cmd) ? 0 : -1;
    case 'L': return blk_add_launches(&cfg->blocks, arg, cmd) ? 0 : -1;
    case 'u': cfg->div.assume_tid_yz_uniform = true; return 0;
    default: return 1;
    }
}

const char *dr_verdict_text(const char *verdict, unsigned cond, char *buf, size_t n)
{
    if (cond) snprintf(buf, n, "%s (if %s)", verdict, div_cond_text(cond));
    else snprintf(buf, n, "%s", verdict);
    return buf;
}

const char *dr_tid_reason(const div_result *r, const div_options *o, int dim, char *buf, size_t n)
{
    bool uni = dim == 1 ? r->tid_y_uniform : r->tid_z_uniform;
    uint32_t x = r->block[0], y = r->block[1] ? r->block[1] : 1, z = r->block[2] ? r->block[2] : 1;
    unsigned long long span = dim == 1 ? x : (unsigned long long)x * y;
    const char *what = dim == 1 ? "the x extent" : "x*y";
    if (o && o->assume_tid_yz_uniform) snprintf(buf, n, "--assume-tid-yz-uniform");
    else if (!x && r->shape_assumed) snprintf(buf, n, "assumed: " BLK_DEFAULT_TEXT);
    else if (!x) snprintf(buf, n, "the block shape is unknown");
    else if (uni == (span % 32 == 0)) snprintf(buf, n, "%s, %llu, is %sa multiple of 32", what, span, uni ? "" : "not ");
    else if (uni && (dim == 1 ? y : z) == 1) snprintf(buf, n, "the %s extent is 1", dim == 1 ? "y" : "z");
    else snprintf(buf, n, "block shape %u,%u,%u", x, y, z);
    return buf;
}

static uint32_t first_line_from(const ptx_func *fn, uint32_t i, uint32_t end)
{
    for (uint32_t k = i; k < end; k++)
        if (fn->stmts[k]->kind == PTX_S_INST || fn->stmts[k]->kind == PTX_S_LABEL) return fn->stmts[k]->loc.line;
    return i < fn->nstmts ? fn->stmts[i]->loc.line : 0;
}

/* The first line of every block, for the gamma, mu and eta functions at
 * its start; computed once, as a block may hold many of them. */
static uint32_t *block_lines(const prog_func *pf)
{
    const cfg *g = pf->g;
    const ptx_func *fn = pf->fn;
    uint32_t *l = malloc(sizeof *l * (g->nblocks ? g->nblocks : 1));
    if (!l) abort();
    for (uint32_t b = 0; b < g->nblocks; b++) {
        const cfg_block *bb = &g->blocks[b];
        /* a landing block has no statements: its functions run where it leads */
        l[b] = bb->kind == CFG_B_REAL ? first_line_from(fn, bb->first, bb->end)
                                      : first_line_from(fn, cfg_block_resume_stmt(g, b), fn->nstmts);
    }
    return l;
}

static uint32_t value_line(const prog_func *pf, const uint32_t *blines, uint32_t v)
{
    const ssa_value *val = &pf->ssa->values[v];
    return val->kind == SSA_V_INST ? pf->fn->stmts[val->stmt]->loc.line : blines[val->block];
}

const char *dr_value_kind(const prog_func *pf, uint32_t v)
{
    const ssa_value *val = &pf->ssa->values[v];
    if (val->kind == SSA_V_INST) return "inst";
    switch (pf->gsa->nodes[val->node].kind) {
    case GSA_GAMMA: return "gamma";
    case GSA_MU: return "mu";
    default: return "eta";
    }
}

static bool listed_kind(const ssa_value *val)
{
    return val->kind == SSA_V_INST || val->kind == SSA_V_PHI || val->kind == SSA_V_ETA;
}

typedef struct vkey {
    uint32_t line, group, v;
} vkey;

static int cmp_vkey(const void *a, const void *b)
{
    const vkey *x = a, *y = b;
    if (x->line != y->line) return x->line < y->line ? -1 : 1;
    if (x->group != y->group) return x->group < y->group ? -1 : 1;
    return x->v < y->v ? -1 : x->v > y->v;
}

static void collect_branches(dr_func *f, arena *a)
{
    const cfg *g = f->pf->g;
    const ptx_func *fn = f->pf->fn;
    f->nbranches = 0;
    for (uint32_t b = 0; b < g->nblocks; b++)
        f->nbranches += g->blocks[b].reachable && g->blocks[b].nsucc >= 2 && g->blocks[b].term != CFG_NONE;
    f->branches = ARENA_NEWN(a, dr_branch, f->nbranches ? f->nbranches : 1);
    /* one pass in statement order, so each branch finds the .loc in force */
    const ptx_locinfo *loc = NULL;
    uint32_t k = 0;
    for (uint32_t i = 0; i < fn->nstmts && k < f->nbranches; i++) {
        const ptx_stmt *s = fn->stmts[i];
        if (s->kind == PTX_S_LOC) loc = &s->u.locinfo;
        uint32_t b = g->stmt_block[i];
        if (b == CFG_NONE) continue;
        const cfg_block *bb = &g->blocks[b];
        if (bb->term != i || !bb->reachable || bb->nsucc < 2) continue;
        f->branches[k++] = (dr_branch){b, i, loc};
    }
    f->nbranches = k;
}

void dr_count(const prog_func *pf, const div_result *r, dr_stats *st)
{
    const ssa_func *s = pf->ssa;
    const cfg *g = pf->g;
    memset(st, 0, sizeof *st);
    for (uint32_t v = 0; v < s->nvalues; v++)
        if (listed_kind(&s->values[v])) st->values++, st->state[r->state[v] % 3]++;
    for (uint32_t b = 0; b < g->nblocks; b++)
        if (g->blocks[b].reachable && g->blocks[b].nsucc >= 2 && g->blocks[b].term != CFG_NONE) {
            st->branches++;
            st->branches_divergent += div_branch(r, b) != DIV_UNIFORM;
        }
}

void dr_analyse(dr_func *f, const prog_func *pf, const div_options *o, const blk_opts *blocks, int keep)
{
    memset(f, 0, sizeof *f);
    arena_init(&f->a);
    arena *a = &f->a;
    f->pf = pf;
    f->div = *o;
    uint32_t shape[3];
    f->origin = (uint8_t)blk_resolve(blocks, pf->fn, shape);
    f->origin_text = blk_origin_for(blocks, pf->fn, (enum blk_origin)f->origin);
    if (f->origin <= BLK_CONFIG || f->origin == BLK_LAUNCH)
        memcpy(f->div.block, shape, sizeof shape); /* else the analysis reads .reqntid */
    collect_branches(f, a);
    const ssa_func *s = pf->ssa;
    uint32_t n = 0;
    for (uint32_t v = 0; v < s->nvalues; v++) n += listed_kind(&s->values[v]);
    vkey *keys = malloc(sizeof *keys * (n ? n : 1));
    uint32_t *blines = block_lines(pf);
    if (!keys) abort();
    n = 0;
    for (uint32_t v = 0; v < s->nvalues; v++)
        if (listed_kind(&s->values[v]))
            keys[n++] = (vkey){value_line(pf, blines, v), s->values[v].kind == SSA_V_INST, v};
    qsort(keys, n, sizeof *keys, cmp_vkey);
    f->nvalues = n;
    f->values = ARENA_NEWN(a, uint32_t, n ? n : 1);
    f->lines = ARENA_NEWN(a, uint32_t, n ? n : 1);
    for (uint32_t i = 0; i < n; i++) {
        f->values[i] = keys[i].v;
        f->lines[i] = keys[i].line;
    }
    free(keys);
    free(blines);
    /* the counted-only analyses first, each in an arena freed before the
     * next: the kept one, run last, reuses their chunks (arena.c keeps
     * freed chunks for the next arena that grows the same way) */
    for (int k = 0; k < DR_NAN; k++) {
        int an = k < DR_NAN - 1 ? (k < keep ? k : k + 1) : keep;
        if (keep < 0 || keep >= DR_NAN) an = k;
        arena scratch;
        arena_init(&scratch);
        bool kept = an == keep;
        div_result *r = div_analyse(pf, (enum div_analysis)an, &f->div, kept ? a : &scratch);
        dr_count(pf, r, &f->st[an]);
        f->r[an] = kept ? r : NULL;
        arena_free(&scratch);
    }
}

void dr_func_free(dr_func *f)
{
    arena_free(&f->a);
}
