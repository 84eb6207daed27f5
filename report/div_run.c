/* ptxray divergence's runs (div_report.h): one file in detail, or many
 * files as one line per function. */
#include <stdlib.h>
#include <string.h>
#include "batch.h"
#include "div_report.h"
#include "json_stream.h"
#include "outfile.h"
#include "pipeline.h"
#include "table.h"
#include "names.h"

/* ---- --summary ---------------------------------------------------------- */

typedef struct srow {
    char *file, *name, *symbol; /* name as people read it (demangled), symbol as in the PTX */
    bool entry;
    dr_stats st[DR_NAN];
} srow;

typedef struct summary {
    size_t n, cap;
    srow *rows;
} summary;

static int cmp_path(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* One function's row, from its analysis at one round (pipeline.h). */
static void summary_add(void *ctx, const pl_prog *x, const dr_func *f)
{
    summary *s = ctx;
    const ptx_func *fn = f->pf->fn;
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 64;
        s->rows = realloc(s->rows, s->cap * sizeof *s->rows);
        if (!s->rows) abort();
    }
    srow *r = &s->rows[s->n++];
    r->file = strdup(x->path);
    /* a function launched with several shapes has a row at each */
    char shape[64] = "";
    if (blk_nshapes(&x->rb[0], fn) > 1)
        snprintf(shape, sizeof shape, " [%ux%ux%u]", f->div.block[0], f->div.block[1], f->div.block[2]);
    char *shown = ptx_func_shown(fn);
    size_t len = strlen(shown) + strlen(shape) + 1;
    r->name = malloc(len);
    if (!r->name) abort();
    snprintf(r->name, len, "%s%s", shown, shape);
    free(shown);
    r->symbol = strndup(fn->name.p, fn->name.n);
    r->entry = fn->is_entry;
    memcpy(r->st, f->st, sizeof r->st);
}

/* Analyses one file into rows; 2 on bad input (diagnostics on err).  A
 * row needs only the counts: each function's results are freed at once
 * (their chunks become the next one's). */
static int summary_file(summary *s, const char *path, const div_options *o, blk_opts *blocks, cfg_set *configs,
                        FILE *err)
{
    pl_prog x;
    pl_options po = {.cmd = "divergence", .level = PROG_GSA, .passes = PL_DIVERGE, .blocks = blocks,
                     .shapes = PL_SHAPES_MARK, .div = o, .keep = DR_KEEP_NONE, .each = summary_add, .each_ctx = s,
                     .err = err, .configs = configs};
    if (pl_load(&x, path, &po)) return 2;
    pl_free(&x);
    return 0;
}

/* -j: a worker's --block entries (blk_mark's marks, merged at the end). */
typedef struct sum_batch {
    char **files;
    const div_options *o;
    blk_opts *w;
    cfg_set *configs;
    summary *s;
    int rc;
} sum_batch;

typedef struct sum_result {
    summary s;
    int rc;
} sum_result;

static void *summary_one(void *ctx, unsigned w, size_t i, FILE *err)
{
    sum_batch *b = ctx;
    sum_result *r = calloc(1, sizeof *r);
    if (!r) abort();
    r->rc = summary_file(&r->s, b->files[i], b->o, &b->w[w], b->configs, err);
    return r;
}

static void free_rows(summary *s)
{
    for (size_t i = 0; i < s->n; i++) {
        free(s->rows[i].file);
        free(s->rows[i].name);
        free(s->rows[i].symbol);
    }
    free(s->rows);
}

/* The rows appended in file order; the first bad file stops the run. */
static bool summary_take(void *ctx, size_t i, void *result)
{
    (void)i;
    sum_batch *b = ctx;
    sum_result *r = result;
    if (!b->rc && !r->rc) {
        if (b->s->n + r->s.n > b->s->cap) {
            b->s->cap = (b->s->n + r->s.n) * 2;
            b->s->rows = realloc(b->s->rows, b->s->cap * sizeof *b->s->rows);
            if (!b->s->rows) abort();
        }
        memcpy(b->s->rows + b->s->n, r->s.rows, r->s.n * sizeof *r->s.rows);
        b->s->n += r->s.n;
        free(r->s.rows);
    } else free_rows(&r->s);
    if (!b->rc) b->rc = r->rc;
    free(r);
    return !b->rc;
}

static void pct(table *t, uint32_t k, uint32_t n)
{
    if (n) table_cell(t, "%.1f", 100.0 * k / n);
    else table_cell(t, "-");
}

static void summary_row(table *t, const char *file, const char *name, const dr_stats st[DR_NAN])
{
    table_cell(t, "%s", file);
    table_cell(t, "%s", name);
    table_cell(t, "%u", st[0].values);
    pct(t, st[DIV_AN_SIMPLE].state[DIV_DIVERGENT], st[0].values);
    for (int an = DIV_AN_AFFINE; an <= DIV_AN_AFFINE2; an++)
        for (int k = 0; k < 3; k++) {
            static const int order[3] = {DIV_UNIFORM, DIV_AFFINE, DIV_DIVERGENT};
            pct(t, st[an].state[order[k]], st[0].values);
        }
    table_cell(t, "%u", st[0].branches);
    for (int an = 0; an < DR_NAN; an++) table_cell(t, "%u", st[an].branches_divergent);
}

static void add_stats(dr_stats *a, const dr_stats *b)
{
    a->values += b->values;
    for (int k = 0; k < 3; k++) a->state[k] += b->state[k];
    a->branches += b->branches;
    a->branches_divergent += b->branches_divergent;
}

static void summary_text(FILE *o, const summary *s, const dr_stats total[DR_NAN], size_t nfiles)
{
    fputs("Shares of the values defined by instructions, gamma, mu and eta functions (%);\n"
          "TOTAL pools all values.  The affine analyses assume no integer wrap-around.\n",
          o);
    table t;
    table_init(&t, 14, ~3u);
    table_heading_row(&t);
    const char *group[14] = {"", "", "", "simple", "affine", "", "", "affine2", "", "", "", "divergent branches"};
    for (int i = 0; i < 14; i++) table_cell(&t, "%s", group[i] ? group[i] : "");
    const char *head[14] = {"file", "kernel", "values", "  %div", "%uni", "%aff", "%div", "%uni", "%aff", "%div",
                            "branches", "simple", "affine", "affine2"};
    for (int i = 0; i < 14; i++) table_cell(&t, "%s", head[i]);
    for (size_t i = 0; i < s->n; i++) summary_row(&t, s->rows[i].file, s->rows[i].name, s->rows[i].st);
    char what[64];
    snprintf(what, sizeof what, "%zu functions in %zu files", s->n, nfiles);
    summary_row(&t, "TOTAL", what, total);
    table_print(&t, o, "");
    table_free(&t);
}

static json_t *row_json(const srow *r)
{
    json_t *k = json_object();
    json_object_set_new(k, "file", json_string(r->file));
    json_object_set_new(k, "name", json_string(r->name));
    json_object_set_new(k, "symbol", json_string(r->symbol));
    json_object_set_new(k, "kind", json_string(r->entry ? "entry" : "func"));
    json_object_set_new(k, "stats", dr_stats_json(r->st));
    return k;
}

static void put_rows(jstream *js, void *ctx)
{
    const summary *s = ctx;
    for (size_t i = 0; i < s->n; i++) js_put(js, NULL, row_json(&s->rows[i]));
}

/* The summary's JSON written row by row (json_stream.h). */
static void summary_json(FILE *o, const summary *s, const dr_stats total[DR_NAN], size_t nfiles, const dr_config *c)
{
    json_t *root = json_object(), *ks = json_array(), *as = json_object();
    json_object_set_new(as, "block_option", blk_shape_json(c->blocks.all));
    json_object_set_new(as, "block_per_kernel", blk_kernels_json(&c->blocks));
    json_object_set_new(as, "assume_tid_yz_uniform", json_boolean(c->div.assume_tid_yz_uniform));
    json_object_set_new(as, "no_wraparound_analyses", json_pack("[ss]", "affine", "affine2"));
    json_object_set_new(as, "value_kinds", json_pack("[ssss]", "inst", "gamma", "mu", "eta"));
    json_object_set_new(root, "assumptions", as);
    json_object_set_new(root, "kernels", ks);
    json_t *t = dr_stats_json(total);
    json_object_set_new(t, "files", json_integer((json_int_t)nfiles));
    json_object_set_new(t, "functions", json_integer((json_int_t)s->n));
    json_object_set_new(root, "total", t);
    jstream js;
    js_init(&js, o);
    js_put_tree(&js, NULL, root, ks, put_rows, (void *)s);
    js_finish(&js);
}

int dr_run_summary(char **files, size_t nfiles, dr_config *c, bool json, const char *out)
{
    /* sorted, so that the order does not depend on how the shell sorts a glob */
    char **sorted = malloc(sizeof *sorted * (nfiles ? nfiles : 1));
    if (!sorted) abort();
    memcpy(sorted, files, sizeof *sorted * nfiles);
    qsort(sorted, nfiles, sizeof *sorted, cmp_path);
    summary s = {0};
    unsigned jobs = c->jobs ? c->jobs : batch_default_jobs();
    if (jobs > nfiles) jobs = nfiles ? (unsigned)nfiles : 1;
    blk_opts *w = malloc(sizeof *w * jobs);
    if (!w) abort();
    for (unsigned k = 0; k < jobs; k++) w[k] = c->blocks;
    sum_batch b = {sorted, &c->div, w, c->configs, &s, 0};
    batch_opts bo = {jobs, "divergence", sorted};
    batch_run(nfiles, &bo, summary_one, summary_take, &b);
    for (unsigned k = 0; k < jobs; k++)
        for (uint32_t e = 0; e < c->blocks.n; e++) c->blocks.k[e].seen |= w[k].k[e].seen;
    free(w);
    int rc = b.rc;
    if (!rc && !blk_check_seen(&c->blocks, "divergence")) rc = 2;
    if (!rc) {
        dr_stats total[DR_NAN] = {{0}};
        for (size_t i = 0; i < s.n; i++)
            for (int an = 0; an < DR_NAN; an++) add_stats(&total[an], &s.rows[i].st[an]);
        outfile of;
        if (outfile_open(&of, out)) rc = 2;
        else {
            if (json) summary_json(of.f, &s, total, nfiles, c);
            else summary_text(of.f, &s, total, nfiles);
            rc = outfile_commit(&of) ? 2 : 0;
        }
    }
    free_rows(&s);
    free(sorted);
    return rc;
}

/* ---- one file --------------------------------------------------------- */

int dr_run_file(const char *path, const char *kernel, dr_config *c, bool json, const char *out)
{
    /* everything is computed before the output is opened: an error writes
     * nothing; a function launched with several shapes is analysed at
     * each: one report per function and shape (pipeline.h) */
    pl_prog x;
    pl_options po = {.cmd = "divergence", .kernel = kernel, .level = PROG_GSA, .passes = PL_DIVERGE,
                     .blocks = &c->blocks, .shapes = PL_SHAPES_CHECK, .div = &c->div, .keep = (int)c->analysis,
                     .configs = c->configs};
    if (pl_load(&x, path, &po)) return 2;
    const ptx_module *m = x.m;
    const dr_func *fs = x.df;
    uint32_t n = x.ndf;
    outfile of;
    int rc = 0;
    if (outfile_open(&of, out)) rc = 2;
    else {
        if (json) {
            jstream js;
            js_init(&js, of.f);
            dr_json_write(&js, m, path, fs, n, c);
            js_finish(&js); /* a failed write shows in outfile_commit */
        } else if (!x.p->nfuncs) fprintf(of.f, "%s: no function with a body\n", strcmp(path, "-") ? path : "<stdin>");
        else dr_print_text(of.f, m, path, fs, n, c);
        rc = outfile_commit(&of) ? 2 : 0;
    }
    pl_free(&x);
    return rc;
}
