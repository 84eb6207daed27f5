/* One kernel's section of analyze's HTML page (html_int.h): the summary,
 * the source column (each .cu line marked by its findings, coloured by
 * their cost; a click shows its PTX beside it with each instruction's
 * abstract value), or the PTX column when there is no .loc, the CFG, and
 * the findings by cost. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "div_report.h"
#include "cfg_print.h"
#include "html_int.h"
#include "printer.h"
#include "ssa.h"
#include "names.h"

/* What the section knows about each instruction. */
typedef struct iinfo {
    uint32_t stmt, ptx_line;
    int32_t file;  /* index into the kernel's source files; -1: no source position */
    uint32_t line; /* in it (the user's frame, as findings name it) */
} iinfo;

typedef struct ksrc {
    const char *path; /* as .file names it */
    uint32_t lo, hi;  /* the lines its instructions are on */
} ksrc;

/* A piece of spill code of the regalloc run and the source line of the
 * instruction it serves (file -1: none); seq keeps the rewrite's order. */
typedef struct ksite {
    const ra_site *s;
    int32_t file;
    uint32_t line, seq;
} ksite;

typedef struct kctx {
    FILE *o;
    const html_kernel *k;
    const ptx_func *fn;
    const div_result *r;
    uint32_t idx;
    iinfo *in;
    uint32_t nin;
    ksrc *files;
    uint32_t nfiles;
    const chk_finding **fs; /* this kernel's findings by cost */
    size_t nfs;
    uint32_t *def;          /* per statement: the first value it defines, or SSA_NONE */
    const coal_access **acc;/* per statement: its access, or NULL */
    ksite *sites;           /* by statement */
    const ksite **byline;   /* the same by file and line */
    uint32_t nsites;
    html_ra_line noline;    /* the spill code of instructions without a source line (.loc line 0) */
} kctx;

static int cmp_site_stmt(const void *a, const void *b)
{
    const ksite *x = a, *y = b;
    if (x->s->stmt != y->s->stmt) return x->s->stmt < y->s->stmt ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int cmp_site_line(const void *a, const void *b)
{
    const ksite *x = *(const ksite *const *)a, *y = *(const ksite *const *)b;
    if (x->file != y->file) return x->file < y->file ? -1 : 1;
    if (x->line != y->line) return x->line < y->line ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The iinfo of statement stmt, or NULL (c->in is in statement order). */
static const iinfo *info_of(const kctx *c, uint32_t stmt)
{
    uint32_t lo = 0, hi = c->nin;
    while (lo < hi) {
        uint32_t m = (lo + hi) / 2;
        if (c->in[m].stmt < stmt) lo = m + 1;
        else hi = m;
    }
    return lo < c->nin && c->in[lo].stmt == stmt ? &c->in[lo] : NULL;
}

/* The regalloc run's spill code in this function, each at the source line
 * of the instruction it serves. */
static void collect_sites(kctx *c)
{
    const ra_func_stats *f = c->k->raf;
    if (!f || !f->nsites) return;
    c->sites = malloc(sizeof *c->sites * f->nsites);
    c->byline = malloc(sizeof *c->byline * f->nsites);
    if (!c->sites || !c->byline) abort();
    for (uint32_t i = 0; i < f->nsites; i++) {
        const iinfo *x = info_of(c, f->sites[i].stmt);
        c->sites[i] = (ksite){&f->sites[i], x ? x->file : -1, x ? x->line : 0, i};
        if (c->sites[i].file < 0) html_ra_line_add(&c->noline, &f->sites[i]);
    }
    c->nsites = f->nsites;
    qsort(c->sites, c->nsites, sizeof *c->sites, cmp_site_stmt);
    for (uint32_t i = 0; i < c->nsites; i++) c->byline[i] = &c->sites[i];
    qsort(c->byline, c->nsites, sizeof *c->byline, cmp_site_line);
}

/* The first site by statement at or after stmt. */
static uint32_t site_at_stmt(const kctx *c, uint32_t stmt)
{
    uint32_t lo = 0, hi = c->nsites;
    while (lo < hi) {
        uint32_t m = (lo + hi) / 2;
        if (c->sites[m].s->stmt < stmt) lo = m + 1;
        else hi = m;
    }
    return lo;
}

/* The spill code on line `line` of source file f. */
static void sites_on_line(const kctx *c, uint32_t f, uint32_t line, html_ra_line *l)
{
    memset(l, 0, sizeof *l);
    uint32_t lo = 0, hi = c->nsites;
    while (lo < hi) {
        uint32_t m = (lo + hi) / 2;
        const ksite *x = c->byline[m];
        if (x->file < (int32_t)f || (x->file == (int32_t)f && x->line < line)) lo = m + 1;
        else hi = m;
    }
    for (; lo < c->nsites && c->byline[lo]->file == (int32_t)f && c->byline[lo]->line == line; lo++)
        html_ra_line_add(l, c->byline[lo]->s);
}

/* The spill code of the instruction at stmt, as marks. */
static void inst_sites(const kctx *c, uint32_t stmt)
{
    for (uint32_t i = site_at_stmt(c, stmt); i < c->nsites && c->sites[i].s->stmt == stmt; i++)
        html_ra_inst_mark(c->o, c->fn, c->sites[i].s);
}


static void collect(kctx *c)
{
    const ptx_func *fn = c->fn;
    const html_kernel *k = c->k;
    c->in = malloc(sizeof *c->in * (fn->nstmts ? fn->nstmts : 1));
    c->files = malloc(sizeof *c->files * (fn->nstmts ? fn->nstmts : 1));
    c->def = malloc(sizeof *c->def * (fn->nstmts ? fn->nstmts : 1));
    c->acc = calloc(fn->nstmts ? fn->nstmts : 1, sizeof *c->acc);
    if (!c->in || !c->files || !c->def || !c->acc) abort();
    for (uint32_t i = 0; i < fn->nstmts; i++) {
        c->def[i] = SSA_NONE;
        if (fn->stmts[i]->kind != PTX_S_INST) continue;
        iinfo *x = &c->in[c->nin++];
        *x = (iinfo){i, fn->stmts[i]->loc.line, -1, 0};
        src_pos p;
        src_pos_of(k->ctx->files, fn, i, &p);
        src_frame chain[SRC_MAX_INLINE + 1];
        uint32_t user;
        if (!src_chain(&p, chain, &user)) continue;
        uint32_t f = 0;
        while (f < c->nfiles && strcmp(c->files[f].path, chain[user].file)) f++;
        if (f == c->nfiles) c->files[c->nfiles++] = (ksrc){chain[user].file, chain[user].line, chain[user].line};
        if (chain[user].line < c->files[f].lo) c->files[f].lo = chain[user].line;
        if (chain[user].line > c->files[f].hi) c->files[f].hi = chain[user].line;
        x->file = (int32_t)f;
        x->line = chain[user].line;
    }
    const ssa_func *s = k->f->pf->ssa;
    for (uint32_t v = 0; v < s->nvalues; v++)
        if (s->values[v].kind == SSA_V_INST && c->def[s->values[v].stmt] == SSA_NONE) c->def[s->values[v].stmt] = v;
    for (uint32_t a = 0; a < k->f->nacc; a++) c->acc[k->f->acc[a].stmt] = &k->f->acc[a];
    const chk_list *l = k->l;
    c->fs = malloc(sizeof *c->fs * (l->n ? l->n : 1));
    if (!c->fs) abort();
    for (size_t i = 0; i < l->n; i++)
        if (!l->v[i].suppressed && strlen(l->v[i].symbol) == fn->name.n &&
            !memcmp(l->v[i].symbol, fn->name.p, fn->name.n))
            c->fs[c->nfs++] = &l->v[i];
    qsort(c->fs, c->nfs, sizeof *c->fs, chk_cmp_ptr);
    collect_sites(c);
}

/* The statement at PTX line `line` (instructions are one per line in
 * nvcc's PTX; the first one otherwise), or UINT32_MAX. */
static uint32_t stmt_at(const kctx *c, uint32_t line)
{
    uint32_t lo = 0, hi = c->nin;
    while (lo < hi) {
        uint32_t m = (lo + hi) / 2;
        if (c->in[m].ptx_line < line) lo = m + 1;
        else hi = m;
    }
    return lo < c->nin && c->in[lo].ptx_line == line ? c->in[lo].stmt : UINT32_MAX;
}

/* A finding's badge: rule, certainty, and the worst of its accesses'
 * sectors per request or bank-conflict degree. */
static void badge(const kctx *c, const chk_finding *x)
{
    FILE *o = c->o;
    int32_t sect = -1, ideal = 0, deg = -1;
    for (uint32_t i = 0; i < x->ninst; i++) {
        if (x->insts[i].file) continue;
        uint32_t st = stmt_at(c, x->insts[i].line);
        const coal_access *a = st == UINT32_MAX ? NULL : c->acc[st];
        if (!a) continue;
        int32_t s = coal_current_sectors(a);
        if (s > sect) sect = s, ideal = (int32_t)a->ideal;
        int32_t d = a->bank_degree >= 0 ? a->bank_degree : a->bank_degree_max;
        if (d > deg) deg = d;
    }
    const char *cert = chk_certainty_name((enum chk_certainty)x->certainty);
    bool poss = x->certainty == CHK_POSSIBLE;
    fprintf(o, "<span class=\"b %s %s\" title=\"%s: ", html_rule_class(x->rule), cert, cert);
    html_escz(o, x->message);
    if (x->depends) {
        fputs(" (depends on ", o);
        html_escz(o, x->depends);
        fputc(')', o);
    }
    fputs("\">", o);
    /* short: the page's legend says what the styles mean, the title the rest */
    switch (x->rule) {
    case CHK_DIVERGENT_BRANCH: fputs("divergent", o); break;
    case CHK_DIVERGENT_BARRIER: fputs("barrier", o); break;
    case CHK_DIVERGENT_COLLECTIVE: fputs("collective", o); break;
    case CHK_BANK_CONFLICT:
        if (deg > 0) fprintf(o, "bank %s%d-way", poss ? "&le;" : "", deg);
        else fputs("bank conflict", o);
        break;
    case CHK_MISALIGNED:
        /* the excess per request of one of its instructions */
        fprintf(o, "misaligned +%llu sect.", (unsigned long long)(x->ninst ? x->excess / x->ninst : x->excess));
        break;
    default:
        fputs("uncoalesced", o);
        if (sect > 0) fprintf(o, " %s%d/%d sect.", poss ? "&le;" : "", sect, ideal);
    }
    fprintf(o, "%s</span>", poss ? "?" : "");
}

static int cost_class(uint64_t cost)
{
    return !cost ? 0 : cost < 10 ? 1 : cost < 100 ? 2 : cost < 1000 ? 3 : 4;
}

/* A value's verdict: "uniform", "divergent", or its affine form
 * ("4·tid.x + ⊥") with its SSA name as title. */
static void put_value(const kctx *c, const ssa_func *s, uint32_t v, const char *pre)
{
    FILE *o = c->o;
    char buf[256], name[64];
    enum div_state st = (enum div_state)c->r->state[v];
    static const char *cls[] = {"u", "d", "a"};
    fprintf(o, "<i class=\"%s\" title=\"%s\">%s", cls[st], ssa_value_name(s, v, name, sizeof name), pre);
    if (st == DIV_AFFINE) html_escz(o, div_value_text(c->r, v, buf, sizeof buf));
    else fputs(div_state_name(st), o);
    fputs("</i>", o);
}

/* The instruction's abstract values: the value it defines, a branch's
 * verdict, an access's address. */
static void value_cell(const kctx *c, uint32_t stmt)
{
    FILE *o = c->o;
    const ptx_inst *in = &c->fn->stmts[stmt]->u.inst;
    const ssa_func *s = c->k->f->pf->ssa;
    uint32_t v = c->def[stmt];
    if (in->op == PTX_OPC_BRA || in->op == PTX_OPC_BRX) {
        if (!in->has_guard && in->op == PTX_OPC_BRA) return;
        bool u = div_stmt_uniform(c->r, stmt);
        fprintf(o, "<i class=\"%s\">branch %s</i>", u ? "u" : "d", u ? "uniform" : "divergent");
        return;
    }
    if (v != SSA_NONE) put_value(c, s, v, "");
    /* an access: where it goes, too */
    if (c->acc[stmt] && c->acc[stmt]->addr_value != SSA_NONE) put_value(c, s, c->acc[stmt]->addr_value, "address ");
}

/* One PTX instruction as a row: line, marks (PTX-only pages: its
 * findings and spill code), text, values (and its spill code when the
 * row has no marks). */
static void ptx_row(const kctx *c, const iinfo *x, bool marks)
{
    FILE *o = c->o;
    fprintf(o, "<tr><td>%u</td>", x->ptx_line);
    if (marks) {
        fputs("<td class=\"mk\">", o);
        for (size_t i = 0; i < c->nfs; i++)
            for (uint32_t j = 0; j < c->fs[i]->ninst; j++)
                if (!c->fs[i]->insts[j].file && c->fs[i]->insts[j].line == x->ptx_line) {
                    badge(c, c->fs[i]);
                    break;
                }
        inst_sites(c, x->stmt);
        fputs("</td>", o);
    }
    char *t = NULL;
    size_t n = 0;
    FILE *m = open_memstream(&t, &n);
    if (!m) abort();
    ptx_print_inst(m, c->fn, &c->fn->stmts[x->stmt]->u.inst);
    fclose(m);
    /* without the printer's indent and newline */
    size_t b = 0;
    while (b < n && (t[b] == '\t' || t[b] == ' ')) b++;
    while (n > b && (t[n - 1] == '\n' || t[n - 1] == ' ')) n--;
    fputs("<td class=\"t\">", o);
    html_esc(o, t + b, n - b);
    free(t);
    fputs("</td><td>", o);
    value_cell(c, x->stmt);
    if (!marks) inst_sites(c, x->stmt);
    fputs("</td></tr>\n", o);
}

/* Whether finding x is on line `line` of source file f. */
static bool on_line(const kctx *c, const chk_finding *x, uint32_t f, uint32_t line)
{
    return x->src_file && x->src_line == line && !strcmp(x->src_file, c->files[f].path);
}

/* The source column: each file's lines from the first to the last that
 * has code, with a line of context around; runs of lines further than
 * GAP_CONTEXT from code become one elided row. */
#define GAP_CONTEXT 6
static void source_column(const kctx *c)
{
    FILE *o = c->o;
    src_texts *texts = c->k->l->texts;
    const char *ptx = c->k->ctx->ptx_path;
    for (uint32_t f = 0; f < c->nfiles; f++) {
        const ksrc *sf = &c->files[f];
        const char *found = NULL;
        size_t len;
        uint32_t lo = sf->lo > 2 ? sf->lo - 2 : 1, hi = sf->hi + 1;
        bool readable = texts && st_line(texts, ptx, sf->path, sf->lo, &len, &found);
        fputs("<h3>", o);
        html_escz(o, sf->path);
        if (!readable) fputs(" <span class=\"note\">(source not found: line numbers only)</span>", o);
        fputs(c->k->ra ? "</h3>\n<table class=\"code src ra\">\n" : "</h3>\n<table class=\"code src\">\n", o);
        uint8_t *has = calloc(hi - lo + 1, 1);
        if (!has) abort();
        for (uint32_t i = 0; i < c->nin; i++)
            if (c->in[i].file == (int32_t)f) has[c->in[i].line - lo] = 1;
        bool gap = false;
        for (uint32_t ln = lo; ln <= hi; ln++) {
            /* lines more than GAP_CONTEXT from any code are left out (a
             * kernel spread over a long file, or over a header) */
            bool near = false;
            for (uint32_t q = ln > lo + GAP_CONTEXT ? ln - GAP_CONTEXT : lo; q <= hi && q <= ln + GAP_CONTEXT && !near; q++)
                near = has[q - lo];
            if (!near && ln > sf->lo && ln < sf->hi) {
                if (!gap) fputs("<tr class=\"gap\"><td class=\"ln\">&#8942;</td><td></td><td></td></tr>\n", o);
                gap = true;
                continue;
            }
            gap = false;
            const char *t = readable ? st_line(texts, ptx, sf->path, ln, &len, NULL) : NULL;
            if (!t && ln > sf->hi) break;
            uint64_t cost = 0;
            char rules[64] = "";
            unsigned mask = 0;
            for (size_t i = 0; i < c->nfs; i++)
                if (on_line(c, c->fs[i], f, ln)) {
                    cost += c->fs[i]->cost;
                    mask |= 1u << c->fs[i]->rule;
                }
            for (int r = 0; r < CHK_NRULES; r++)
                if (mask >> r & 1) {
                    if (rules[0]) strcat(rules, " ");
                    strcat(rules, chk_rule_name((enum chk_rule)r));
                }
            html_ra_line spill;
            char ra[128] = "";
            if (has[ln - lo]) sites_on_line(c, f, ln, &spill);
            else memset(&spill, 0, sizeof spill);
            cost += spill.cost;
            html_ra_line_data(&spill, ra, sizeof ra);
            fprintf(o, "<tr class=\"src%s c%d\" id=\"k%u-s%u-%u\" data-line=\"%u\"", has[ln - lo] ? "" : " nocode",
                    cost_class(cost), c->idx, f, ln, ln);
            if (rules[0]) fprintf(o, " data-rules=\"%s\"", rules);
            if (ra[0]) fprintf(o, " data-ra=\"%s\"", ra);
            if (has[ln - lo]) fprintf(o, " data-ptx=\"k%u-p%u-%u\"", c->idx, f, ln);
            fprintf(o, "><td class=\"ln\">%u</td><td class=\"mk\">", ln);
            for (size_t i = 0; i < c->nfs; i++)
                if (on_line(c, c->fs[i], f, ln)) badge(c, c->fs[i]);
            html_ra_line_marks(o, &spill);
            fputs("</td><td class=\"t\">", o);
            if (t) html_esc(o, t, len);
            fputs("</td></tr>\n", o);
        }
        fputs("</table>\n", o);
        free(has);
    }
}

/* Beside it, the PTX of each source line, hidden until its line is clicked. */
static void ptx_groups(const kctx *c)
{
    FILE *o = c->o;
    fputs("<p class=\"ptxhint note\">Click a source line to see its PTX instructions and their abstract values "
          "(uniform, affine in the thread index, divergent).</p>\n",
          o);
    for (uint32_t f = 0; f < c->nfiles; f++) {
        const ksrc *sf = &c->files[f];
        uint32_t *cnt = calloc(sf->hi - sf->lo + 1, sizeof *cnt);
        if (!cnt) abort();
        for (uint32_t i = 0; i < c->nin; i++)
            if (c->in[i].file == (int32_t)f) cnt[c->in[i].line - sf->lo]++;
        const char *base = strrchr(sf->path, '/');
        for (uint32_t ln = sf->lo; ln <= sf->hi; ln++) {
            if (!cnt[ln - sf->lo]) continue;
            fprintf(o, "<div class=\"ptxgrp\" id=\"k%u-p%u-%u\" hidden><h4>", c->idx, f, ln);
            html_escz(o, base ? base + 1 : sf->path);
            fprintf(o, ":%u: %u PTX instruction%s</h4>\n<table class=\"code ptx\">\n", ln, cnt[ln - sf->lo],
                    cnt[ln - sf->lo] == 1 ? "" : "s");
            for (uint32_t i = 0; i < c->nin; i++)
                if (c->in[i].file == (int32_t)f && c->in[i].line == ln) ptx_row(c, &c->in[i], false);
            fputs("</table></div>\n", o);
        }
        free(cnt);
    }
}

static void pct(FILE *o, const char *what, uint32_t k, uint32_t n)
{
    fprintf(o, "%s %.1f%%", what, n ? 100.0 * k / n : 0.0);
}

static void summary(const kctx *c, const dr_stats *st, const sc_ptxas_info *px, const char *why)
{
    FILE *o = c->o;
    const coal_func *f = c->k->f;
    const ptx_func *fn = c->fn;
    fputs("<dl class=\"sum\">", o);
    char *shown = ptx_func_shown(fn);
    if (strlen(shown) != fn->name.n || memcmp(shown, fn->name.p, fn->name.n)) {
        fputs("<dt>symbol</dt><dd><code>", o);
        html_esc(o, fn->name.p, fn->name.n);
        fputs("</code></dd>", o);
    }
    free(shown);
    fputs("<dt>block shape</dt><dd>", o);
    if (wl_shape_known(&f->shape)) {
        fprintf(o, "%ux%ux%u (", f->shape.block[0], f->shape.block[1], f->shape.block[2]);
        html_escz(o, blk_origin_for(coal_blocks(c->k->ctx->opts), fn, (enum blk_origin)f->origin));
        fputc(')', o);
    } else fputs("unknown; assumed " BLK_DEFAULT_TEXT, o);
    fputs("</dd><dt>ptxas</dt><dd>", o);
    char name[1024];
    snprintf(name, sizeof name, "%.*s", (int)fn->name.n, fn->name.p);
    const sc_ptxas_func *r = px ? sc_ptxas_find(px, name) : NULL;
    if (r && r->has_used)
        fprintf(o, "%u registers, %u bytes spill stores, %u bytes spill loads, %u bytes shared memory (", r->registers,
                r->spill_stores, r->spill_loads, r->smem);
    else fputs("no figures (", o);
    html_escz(o, px && !(r && r->has_used) ? "not reported" : why);
    fprintf(o, ")</dd><dt>values</dt><dd>%u: ", st->values);
    pct(o, "uniform", st->state[DIV_UNIFORM], st->values);
    pct(o, ", affine", st->state[DIV_AFFINE], st->values);
    pct(o, ", divergent", st->state[DIV_DIVERGENT], st->values);
    fputs(" (affine analysis, degree 2)<div class=\"shares\">", o);
    static const char *cls[] = {"s-u", "s-d", "s-a"};
    static const int order[] = {DIV_UNIFORM, DIV_AFFINE, DIV_DIVERGENT};
    for (int i = 0; i < 3; i++)
        if (st->values && st->state[order[i]])
            fprintf(o, "<span class=\"%s\" style=\"width:%.1f%%\"></span>", cls[order[i]],
                    100.0 * st->state[order[i]] / st->values);
    fprintf(o, "</div></dd><dt>branches</dt><dd>%u conditional, %u not proven uniform</dd>", st->branches,
            st->branches_divergent);
    if (c->k->ra) html_ra_summary(o, c->k->ra, c->k->raf);
    fprintf(o, "<dt>findings</dt><dd>%zu</dd></dl>\n", c->nfs);
}

static void findings_list(const kctx *c)
{
    FILE *o = c->o;
    fprintf(o, "<h3>Findings by cost (%zu)</h3>\n", c->nfs);
    if (!c->nfs) {
        fputs("<p class=\"note\">none</p>\n", o);
        return;
    }
    fputs("<ol class=\"findings\">\n", o);
    for (size_t i = 0; i < c->nfs; i++) {
        const chk_finding *x = c->fs[i];
        fputs("<li>", o);
        badge(c, x);
        if (x->src_file) {
            uint32_t f = 0;
            while (f < c->nfiles && strcmp(c->files[f].path, x->src_file)) f++;
            if (f < c->nfiles) fprintf(o, "<a href=\"#k%u-s%u-%u\">", c->idx, f, x->src_line);
            html_escz(o, x->src_file);
            fprintf(o, ":%u:%u", x->src_line, x->src_col);
            if (f < c->nfiles) fputs("</a>", o);
            fputs(", ", o);
        }
        fprintf(o, "PTX line %u", x->line);
        if (x->ninst > 1) fprintf(o, " (%u instructions)", x->ninst);
        if (x->loop_depth) fprintf(o, ", loop depth %u", x->loop_depth);
        fprintf(o, ", cost %" PRIu64 ": ", x->cost);
        html_finding_msg(o, x);
        html_finding_hint(o, x, "<br>");
        if (x->assumed) { /* a project file's facts changed it (config.h) */
            fputs("<br><span class=\"assumed\">assuming ", o);
            html_escz(o, x->assumed);
            fputs("</span>", o);
        }
        fputs("</li>\n", o);
    }
    fputs("</ol>\n", o);
}

void html_kernel_section(FILE *o, const html_kernel *k, uint32_t idx, const sc_ptxas_info *px, const char *why)
{
    const coal_func *f = k->f;
    kctx c = {o, k, f->pf->fn, k->val->r, idx, NULL, 0, NULL, 0, NULL, 0, NULL, NULL, NULL, NULL, 0, {{0}, {0}, 0}};
    collect(&c);
    char *shown = ptx_func_shown(c.fn);
    fprintf(o, "<section class=\"kernel\" id=\"k%u\"><h2>%s ", idx, c.fn->is_entry ? "kernel" : "function");
    html_escz(o, shown);
    fputs("</h2>\n", o);
    free(shown);
    summary(&c, &k->val->st, px, why);
    if (c.nfiles) {
        fputs("<div class=\"cols\"><div class=\"main\">\n", o);
        source_column(&c);
        if (c.noline.n[0] + c.noline.n[1] + c.noline.n[2] + c.noline.n[3] + c.noline.n[4]) {
            /* in the summary's counts, and beside their PTX nowhere: say so */
            char ra[128];
            html_ra_line_data(&c.noline, ra, sizeof ra);
            fprintf(o, "<p class=\"note ranoline\" data-ra=\"%s\">Spill code of instructions without a source line "
                       "(.loc line 0): ", ra);
            html_ra_line_marks(o, &c.noline);
            fputs("</p>\n", o);
        }
        fputs("</div><div class=\"side\">\n", o);
        ptx_groups(&c);
        fputs("</div></div>\n", o);
    } else {
        /* no .loc: the PTX is the main column */
        fputs("<h3>PTX <span class=\"note\">(no source lines: the PTX has no .loc)</span></h3>\n"
              "<table class=\"code ptx ptxmain\">\n",
              o);
        for (uint32_t i = 0; i < c.nin; i++) ptx_row(&c, &c.in[i], true);
        fputs("</table>\n", o);
    }
    fprintf(o, "<h3>Control-flow graph</h3>\n<p class=\"legend note\">blocks:<span style=\"background:%s\"></span>whole "
               "warp<span style=\"background:%s\"></span>part of a warp (after a divergent branch)<span "
               "style=\"background:%s;border-color:" CFGD_EDGE_COLOUR "\"></span>ends in a branch not proven uniform "
               "(its edges red); dashed blue: back edges</p>\n<div class=\"cfg\">\n",
            cfgd_fill[CFGD_UNIFORM], cfgd_fill[CFGD_PARTIAL], cfgd_fill[CFGD_DIVERGENT]);
    char pre[16];
    snprintf(pre, sizeof pre, "k%u", idx);
    html_cfg_svg(o, f->pf, c.r, k->ctx->files, pre);
    fputs("</div>\n", o);
    findings_list(&c);
    fputs("</section>\n", o);
    free(c.in);
    free(c.files);
    free(c.def);
    free(c.acc);
    free(c.fs);
    free(c.sites);
    free(c.byline);
}
