/* The divergence report as text and as JSON (docs/divergence-reports.md). */
#include <stdlib.h>
#include <string.h>
#include "div_report.h"
#include "json_stream.h"
#include "kname.h"
#include "srcloc.h"
#include "table.h"
#include "names.h"

static const char *const paper_section[DR_NAN] = {
    "Sampaio et al. 2013, section 3.3: uniform or divergent",
    "Sampaio et al. 2013, section 3.4: affine constraints of degree 1 over the thread coordinates",
    "Sampaio et al. 2013, Theorem 3.5: affine constraints of degree 2 over the thread coordinates",
};

#define VALUE_KINDS "instructions, gamma, mu and eta functions (not entry values or special registers)"
#define NO_WRAP "integer arithmetic assumed not to wrap around"

static const char *kind_of(const ptx_func *fn) { return fn->is_entry ? "entry" : "func"; }

static const char *pathname(const char *path) { return strcmp(path, "-") ? path : "<stdin>"; }

/* ---- text ------------------------------------------------------------- */

static void put_pos(FILE *o, const src_files *m, uint32_t file, uint32_t line, uint32_t col)
{
    const char *f = src_file_name(m, file);
    if (f) fprintf(o, "%s:%u:%u", f, line, col);
    else fprintf(o, "file%u:%u:%u", file, line, col);
}

static char *src_text(const src_files *m, const ptx_locinfo *l)
{
    if (!l) return strdup("-");
    char *buf = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&buf, &len);
    if (!o) abort();
    put_pos(o, m, l->file, l->line, l->col);
    if (l->ia_file) {
        fputs(" (inlined at ", o);
        put_pos(o, m, l->ia_file, l->ia_line, l->ia_col);
        fputc(')', o);
    }
    fclose(o);
    return buf;
}

static void text_assumptions(FILE *o, const dr_func *f, const dr_config *c)
{
    const div_result *r = f->r[c->analysis];
    char why[128];
    fprintf(o, "  analysis: %s (%s)\n", div_analysis_name(c->analysis), paper_section[c->analysis]);
    if (f->origin == BLK_DEFAULT)
        fputs("  block shape: unknown; assumed " BLK_DEFAULT_TEXT " (verdicts that rely on it say so)\n", o);
    else fprintf(o, "  block shape: %u,%u,%u (from %s)\n", r->block[0], r->block[1], r->block[2],
                 f->origin_text);
    fprintf(o, "  %%tid.y: %s (%s)\n", r->tid_y_uniform ? "warp-uniform" : "divergent",
            dr_tid_reason(r, &f->div, 1, why, sizeof why));
    fprintf(o, "  %%tid.z: %s (%s)\n", r->tid_z_uniform ? "warp-uniform" : "divergent",
            dr_tid_reason(r, &f->div, 2, why, sizeof why));
    if (c->analysis != DIV_AN_SIMPLE) fputs("  " NO_WRAP "\n", o);
}

typedef struct branch_rows {
    const src_files *m;
    const dr_func *f;
    const dr_config *c;
} branch_rows;

static void fill_branches(table *t, void *ctx)
{
    const branch_rows *x = ctx;
    const dr_func *f = x->f;
    const div_result *r = f->r[x->c->analysis];
    const prog_func *pf = f->pf;
    table_cell(t, "line");
    table_cell(t, "block");
    table_cell(t, "gate");
    table_cell(t, "verdict");
    table_cell(t, "source");
    for (uint32_t i = 0; i < f->nbranches; i++) {
        const dr_branch *br = &f->branches[i];
        char name[256], gate[256] = "-", verdict[128];
        uint32_t gv;
        bool neg;
        if (gsa_branch_gate(pf->ssa, br->block, &gv, &neg) && gv != SSA_NONE)
            ssa_value_name(pf->ssa, gv, gate, sizeof gate);
        char *src = src_text(x->m, br->src);
        table_cell(t, "%u", pf->fn->stmts[br->stmt]->loc.line);
        table_cell(t, "%s", cfg_block_name(pf->g, br->block, name, sizeof name));
        table_cell(t, "%s", gate);
        table_cell(t, "%s", dr_verdict_text(div_branch(r, br->block) == DIV_UNIFORM ? "uniform" : "divergent",
                                            div_branch_cond(r, br->block), verdict, sizeof verdict));
        table_cell(t, "%s", src);
        free(src);
    }
}

/* Streamed (table_stream): a large kernel has tens of thousands of rows. */
static void text_branches(FILE *o, const src_files *m, const dr_func *f, const dr_config *c)
{
    fprintf(o, "\n  conditional branches: %u, %u divergent\n", f->nbranches, f->st[c->analysis].branches_divergent);
    if (!f->nbranches) return;
    table t;
    table_init(&t, 5, 1);
    branch_rows x = {m, f, c};
    table_stream(&t, o, "    ", fill_branches, &x);
    table_free(&t);
}

typedef struct value_rows {
    const dr_func *f;
    const dr_config *c;
} value_rows;

static void fill_values(table *t, void *ctx)
{
    const value_rows *x = ctx;
    const dr_func *f = x->f;
    const div_result *r = f->r[x->c->analysis];
    const prog_func *pf = f->pf;
    table_cell(t, "line");
    table_cell(t, "value");
    table_cell(t, "kind");
    table_cell(t, "state");
    table_cell(t, "abstract value");
    table_cell(t, "source of divergence");
    for (uint32_t i = 0; i < f->nvalues; i++) {
        uint32_t v = f->values[i];
        if (!(x->c->list >> r->state[v] & 1)) continue;
        char name[256], text[512], state[128];
        table_cell(t, "%u", f->lines[i]);
        table_cell(t, "%s", ssa_value_name(pf->ssa, v, name, sizeof name));
        table_cell(t, "%s", dr_value_kind(pf, v));
        table_cell(t, "%s", dr_verdict_text(div_state_name((enum div_state)r->state[v]), r->cond ? r->cond[v] : 0,
                                            state, sizeof state));
        table_cell(t, "%s", div_value_text(r, v, text, sizeof text));
        table_cell(t, "%s", r->source[v] != DIV_SRC_NONE ? div_source_name((enum div_source)r->source[v]) : "");
    }
}

/* Streamed (table_stream): a row per value, 12 MB of cells for the 200k
 * values of a 100k-block kernel if the table were kept. */
static void text_values(FILE *o, const dr_func *f, const dr_config *c)
{
    const div_result *r = f->r[c->analysis];
    uint32_t shown = 0;
    for (uint32_t i = 0; i < f->nvalues; i++) shown += c->list >> r->state[f->values[i]] & 1;
    fprintf(o, "\n  values: %u defined by " VALUE_KINDS ", %u listed\n", f->nvalues, shown);
    if (!shown) return;
    table t;
    table_init(&t, 6, 1);
    value_rows x = {f, c};
    table_stream(&t, o, "    ", fill_values, &x);
    table_free(&t);
}

static void pct_cells(table *t, uint32_t k, uint32_t n)
{
    table_cell(t, "%u", k);
    table_cell(t, "%.1f%%", n ? 100.0 * k / n : 0.0);
}

static void text_stats(FILE *o, const dr_func *f)
{
    fprintf(o, "\n  statistics (%u value%s, %u conditional branch%s; the affine rows assume no wrap-around):\n",
            f->st[0].values, f->st[0].values == 1 ? "" : "s", f->st[0].branches, f->st[0].branches == 1 ? "" : "es");
    table t;
    table_init(&t, 9, 0x1fe);
    const char *head[] = {"analysis", "uniform", "%", "affine", "%", "divergent", "%", "uniform br.", "divergent br."};
    for (int i = 0; i < 9; i++) table_cell(&t, "%s", head[i]);
    for (int an = 0; an < DR_NAN; an++) {
        const dr_stats *st = &f->st[an];
        table_cell(&t, "%s", div_analysis_name((enum div_analysis)an));
        pct_cells(&t, st->state[DIV_UNIFORM], st->values);
        if (an == DIV_AN_SIMPLE) {
            table_cell(&t, "-");
            table_cell(&t, "-");
        } else pct_cells(&t, st->state[DIV_AFFINE], st->values);
        pct_cells(&t, st->state[DIV_DIVERGENT], st->values);
        table_cell(&t, "%u", st->branches - st->branches_divergent);
        table_cell(&t, "%u", st->branches_divergent);
    }
    table_print(&t, o, "    ");
    table_free(&t);
}

void dr_print_text(FILE *o, const ptx_module *m, const char *path, const dr_func *fs, uint32_t n,
                   const dr_config *c)
{
    arena fa;
    arena_init(&fa);
    const src_files *ft = src_files_build(m, &fa);
    for (uint32_t i = 0; i < n; i++) {
        const dr_func *f = &fs[i];
        if (i) fputc('\n', o);
        char *shown = ptx_func_shown(f->pf->fn);
        fprintf(o, "%s (.%s) in %s\n", shown, kind_of(f->pf->fn), pathname(path));
        if (strlen(shown) != f->pf->fn->name.n || memcmp(shown, f->pf->fn->name.p, f->pf->fn->name.n))
            fprintf(o, "  symbol: %.*s\n", (int)f->pf->fn->name.n, f->pf->fn->name.p);
        free(shown);
        text_assumptions(o, f, c);
        text_branches(o, ft, f, c);
        if (c->list) text_values(o, f, c);
        text_stats(o, f);
    }
    arena_free(&fa);
}

/* ---- JSON ------------------------------------------------------------- */

static json_t *jpos(const src_files *m, uint32_t file, uint32_t line, uint32_t col)
{
    json_t *o = json_object();
    const char *f = src_file_name(m, file);
    json_object_set_new(o, "file", f ? json_string(f) : json_null());
    json_object_set_new(o, "line", json_integer(line));
    json_object_set_new(o, "col", json_integer(col));
    return o;
}

static json_t *jsrc(const src_files *m, const ptx_locinfo *l)
{
    if (!l) return json_null();
    json_t *o = jpos(m, l->file, l->line, l->col);
    if (l->ia_file) json_object_set_new(o, "inlined_at", jpos(m, l->ia_file, l->ia_line, l->ia_col));
    return o;
}

static json_t *jname_value(const ssa_func *s, uint32_t v)
{
    char buf[256];
    return v == SSA_NONE ? json_null() : json_string(ssa_value_name(s, v, buf, sizeof buf));
}

static json_t *jcoeffs(const div_result *r, uint32_t v)
{
    if (!div_has_coefs(r)) return json_null();
    json_t *o = json_object();
    for (unsigned i = 0; i < r->ncoef; i++) {
        int64_t c;
        bool known = div_coef(r, v, i, &c);
        if (!known) json_object_set_new(o, div_coef_name(i), json_null());
        else if (c || i == DIV_C_CONST) json_object_set_new(o, div_coef_name(i), json_integer(c));
    }
    return o;
}

/* the assumptions a verdict rests on (DIV_COND_*), null for none */
static json_t *jcond(unsigned cond) { return cond ? json_string(div_cond_text(cond)) : json_null(); }

static json_t *jassumptions_func(const dr_func *f, const dr_config *c)
{
    const div_result *r = f->r[c->analysis];
    char why[128];
    json_t *o = json_object();
    json_object_set_new(o, "block", f->origin == BLK_DEFAULT ? json_null() : blk_shape_json(r->block));
    json_object_set_new(o, "block_from", json_string(f->origin_text));
    json_object_set_new(o, "tid_y_uniform", json_boolean(r->tid_y_uniform));
    json_object_set_new(o, "tid_y_why", json_string(dr_tid_reason(r, &f->div, 1, why, sizeof why)));
    json_object_set_new(o, "tid_z_uniform", json_boolean(r->tid_z_uniform));
    json_object_set_new(o, "tid_z_why", json_string(dr_tid_reason(r, &f->div, 2, why, sizeof why)));
    return o;
}

static json_t *jbranch(const src_files *m, const dr_func *f, const div_result *r, uint32_t i)
{
    const prog_func *pf = f->pf;
    const dr_branch *br = &f->branches[i];
    const ptx_inst *in = &pf->fn->stmts[br->stmt]->u.inst;
    char name[256];
    uint32_t gv = SSA_NONE;
    bool neg;
    if (!gsa_branch_gate(pf->ssa, br->block, &gv, &neg)) gv = SSA_NONE;
    json_t *o = json_object();
    json_object_set_new(o, "block", json_string(cfg_block_name(pf->g, br->block, name, sizeof name)));
    json_object_set_new(o, "ptx_line", json_integer(pf->fn->stmts[br->stmt]->loc.line));
    json_object_set_new(o, "opcode", json_stringn(in->opcode, in->opcode_len));
    json_object_set_new(o, "gate", jname_value(pf->ssa, gv));
    json_object_set_new(o, "src", jsrc(m, br->src));
    json_object_set_new(o, "verdict", json_string(div_branch(r, br->block) == DIV_UNIFORM ? "uniform" : "divergent"));
    json_object_set_new(o, "condition", jcond(div_branch_cond(r, br->block)));
    return o;
}

static json_t *jbranches(const src_files *m, const dr_func *f, const div_result *r)
{
    json_t *a = json_array();
    for (uint32_t i = 0; i < f->nbranches; i++) json_array_append_new(a, jbranch(m, f, r, i));
    return a;
}

/* The i-th value listed, or NULL when its state is not listed. */
static json_t *jvalue(const dr_func *f, const div_result *r, unsigned list, uint32_t i)
{
    const prog_func *pf = f->pf;
    uint32_t v = f->values[i];
    if (!(list >> r->state[v] & 1)) return NULL;
    char text[512];
    json_t *o = json_object();
    json_object_set_new(o, "reg", jname_value(pf->ssa, v));
    json_object_set_new(o, "ptx_line", json_integer(f->lines[i]));
    json_object_set_new(o, "kind", json_string(dr_value_kind(pf, v)));
    json_object_set_new(o, "state", json_string(div_state_name((enum div_state)r->state[v])));
    json_object_set_new(o, "value", json_string(div_value_text(r, v, text, sizeof text)));
    json_object_set_new(o, "coeffs", jcoeffs(r, v));
    json_object_set_new(o, "source", r->source[v] != DIV_SRC_NONE
                                         ? json_string(div_source_name((enum div_source)r->source[v]))
                                         : json_null());
    json_object_set_new(o, "condition", jcond(r->cond ? r->cond[v] : 0));
    return o;
}

static json_t *jvalues(const dr_func *f, const div_result *r, unsigned list)
{
    json_t *a = json_array();
    for (uint32_t i = 0; i < f->nvalues; i++) {
        json_t *o = jvalue(f, r, list, i);
        if (o) json_array_append_new(a, o);
    }
    return a;
}

json_t *dr_stats_json(const dr_stats st3[DR_NAN])
{
    json_t *o = json_object();
    json_object_set_new(o, "values", json_integer(st3[0].values));
    json_object_set_new(o, "branches", json_integer(st3[0].branches));
    for (int an = 0; an < DR_NAN; an++) {
        const dr_stats *st = &st3[an];
        json_t *s = json_object();
        static const enum div_state order[3] = {DIV_UNIFORM, DIV_AFFINE, DIV_DIVERGENT};
        for (int k = 0; k < 3; k++) json_object_set_new(s, div_state_name(order[k]), json_integer(st->state[order[k]]));
        json_object_set_new(s, "branches_uniform", json_integer(st->branches - st->branches_divergent));
        json_object_set_new(s, "branches_divergent", json_integer(st->branches_divergent));
        json_object_set_new(o, div_analysis_name((enum div_analysis)an), s);
    }
    return o;
}

/* Everything of dr_json but the kernels. */
static json_t *json_head(const char *path, const dr_config *c)
{
    json_t *root = json_object();
    json_object_set_new(root, "file", json_string(pathname(path)));
    json_t *an = json_object();
    json_object_set_new(an, "name", json_string(div_analysis_name(c->analysis)));
    json_object_set_new(an, "description", json_string(paper_section[c->analysis]));
    json_object_set_new(root, "analysis", an);
    json_t *as = json_object();
    json_object_set_new(as, "block_option", blk_shape_json(c->blocks.all));
    json_object_set_new(as, "block_per_kernel", blk_kernels_json(&c->blocks));
    json_object_set_new(as, "assume_tid_yz_uniform", json_boolean(c->div.assume_tid_yz_uniform));
    json_object_set_new(as, "no_wraparound", json_boolean(c->analysis != DIV_AN_SIMPLE));
    json_object_set_new(as, "value_kinds", json_pack("[ssss]", "inst", "gamma", "mu", "eta"));
    json_t *states = json_array();
    static const enum div_state order[3] = {DIV_UNIFORM, DIV_AFFINE, DIV_DIVERGENT};
    for (int k = 0; k < 3; k++)
        if (c->list >> order[k] & 1) json_array_append_new(states, json_string(div_state_name(order[k])));
    json_object_set_new(as, "values_listed", states);
    json_object_set_new(root, "assumptions", as);
    return root;
}

json_t *dr_json(const ptx_module *m, const char *path, const dr_func *fs, uint32_t n, const dr_config *c)
{
    json_t *root = json_head(path, c);
    json_t *ks = json_array();
    arena fa;
    arena_init(&fa);
    const src_files *ft = src_files_build(m, &fa);
    for (uint32_t i = 0; i < n; i++) {
        const dr_func *f = &fs[i];
        const div_result *r = f->r[c->analysis];
        json_t *k = json_object();
        kn_json(k, "name", f->pf->fn);
        json_object_set_new(k, "kind", json_string(kind_of(f->pf->fn)));
        json_object_set_new(k, "assumptions", jassumptions_func(f, c));
        json_object_set_new(k, "branches", jbranches(ft, f, r));
        json_object_set_new(k, "values", jvalues(f, r, c->list));
        json_object_set_new(k, "stats", dr_stats_json(f->st));
        json_array_append_new(ks, k);
    }
    arena_free(&fa);
    json_object_set_new(root, "kernels", ks);
    return root;
}

/* dr_json's kernels, element by element. */
typedef struct kernels_ctx {
    const src_files *ft;
    const dr_func *fs;
    uint32_t n;
    const dr_config *c;
} kernels_ctx;

static void put_kernels(jstream *s, void *ctx)
{
    const kernels_ctx *x = ctx;
    for (uint32_t i = 0; i < x->n; i++) {
        const dr_func *f = &x->fs[i];
        const div_result *r = f->r[x->c->analysis];
        js_open_object(s, NULL);
        json_t *names = json_object(), *v;
        const char *k;
        kn_json(names, "name", f->pf->fn);
        json_object_foreach(names, k, v) js_put(s, k, json_incref(v));
        json_decref(names);
        js_put(s, "kind", json_string(kind_of(f->pf->fn)));
        js_put(s, "assumptions", jassumptions_func(f, x->c));
        js_open_array(s, "branches");
        for (uint32_t b = 0; b < f->nbranches; b++) js_put(s, NULL, jbranch(x->ft, f, r, b));
        js_close(s);
        js_open_array(s, "values");
        for (uint32_t k2 = 0; k2 < f->nvalues; k2++) {
            json_t *o = jvalue(f, r, x->c->list, k2);
            if (o) js_put(s, NULL, o);
        }
        js_close(s);
        js_put(s, "stats", dr_stats_json(f->st));
        js_close(s);
    }
}

void dr_json_write(jstream *s, const ptx_module *m, const char *path, const dr_func *fs, uint32_t n,
                   const dr_config *c)
{
    json_t *root = json_head(path, c), *ks = json_array();
    json_object_set_new(root, "kernels", ks);
    arena fa;
    arena_init(&fa);
    kernels_ctx x = {src_files_build(m, &fa), fs, n, c};
    js_put_tree(s, NULL, root, ks, put_kernels, &x);
    arena_free(&fa);
}
