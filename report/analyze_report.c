/* ptxray analyze's report (analyze_report.h). */
#include "analyze_report.h"
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "batch.h"
#include "check_report.h"
#include "div_report.h"
#include "html.h"
#include "json_stream.h"
#include "kname.h"
#include "liveness.h"
#include "outfile.h"
#include "pipeline.h"
#include "progress.h"
#include "spillcost_ptxas.h"
#include "summary_table.h"
#include "version.h"
#include "names.h"


static void pct(FILE *o, const char *what, uint32_t k, uint32_t n)
{
    fprintf(o, "%s %.1f%%", what, n ? 100.0 * k / n : 0.0);
}

/* The module's analysis at one round of the launch shapes (the file's
 * pipeline: pipeline.h). */
typedef struct round_res {
    ptx_module *m;
    prog *p;
    const coal_result *res;
    coal_report_ctx ctx;
    const blk_opts *blocks; /* with its round: the reports read the shape's origin from it */
    const coal_options *co;
    const pl_values *val; /* the round's values, per function (pipeline.h) */
} round_res;

/* One shape a kernel was analysed at: its round's view of the kernel and
 * the affine analysis of degree 2 there. */
typedef struct an_shape {
    const round_res *r;
    const coal_func *f;
    dr_stats st;
} an_shape;

/* What the report says of one kernel: a kernel launched with several
 * shapes has its values and branches at each, and one list of findings,
 * each saying at which shapes it holds (as check merges them). */
typedef struct an_kernel {
    an_shape *sh;
    uint32_t ns;
    ra_peak rp;
    const chk_finding **mine; /* its findings by cost */
    size_t n;
    const sc_ptxas_func *px; /* ptxas -v's figures, NULL when not known */
} an_kernel;

static void kernel_data(an_kernel *k, round_res *const *rr, uint32_t nr, uint32_t i, const chk_list *l,
                        const sc_ptxas_info *px)
{
    const ptx_func *fn = rr[0]->res->f[i].pf->fn;
    k->ns = blk_nshapes(rr[0]->blocks, fn);
    if (k->ns > nr) k->ns = nr;
    if (!k->ns) k->ns = 1;
    k->sh = calloc(k->ns, sizeof *k->sh);
    if (!k->sh) abort();
    for (uint32_t s = 0; s < k->ns; s++) {
        an_shape *x = &k->sh[s];
        x->r = rr[s];
        x->f = &rr[s]->res->f[i];
        x->st = rr[s]->val[i].st;
    }
    {
        const prog_func *pf = k->sh[0].f->pf;
        arena la;
        arena_init(&la);
        ra_live_peak(pf->ssa ? ra_live_build_ssa(pf->ssa, &la) : ra_live_build(pf->fn, pf->g, &la), &k->rp);
        arena_free(&la);
    }
    k->mine = malloc(sizeof *k->mine * (l->n ? l->n : 1));
    if (!k->mine) abort();
    k->n = 0;
    for (size_t j = 0; j < l->n; j++)
        if (!l->v[j].suppressed && strlen(l->v[j].symbol) == fn->name.n &&
            !memcmp(l->v[j].symbol, fn->name.p, fn->name.n))
            k->mine[k->n++] = &l->v[j];
    qsort(k->mine, k->n, sizeof *k->mine, chk_cmp_ptr);
    char sym[1024];
    snprintf(sym, sizeof sym, "%.*s", (int)fn->name.n, fn->name.p);
    k->px = px ? sc_ptxas_find(px, sym) : NULL;
    if (k->px && !k->px->has_used) k->px = NULL;
}

/* The shape of s and where it comes from. */
static const char *shape_origin(const an_shape *s)
{
    return blk_origin_for(s->r->blocks, s->f->pf->fn, (enum blk_origin)s->f->origin);
}

static void value_lines(FILE *o, const dr_stats *st, const char *at)
{
    fprintf(o, "values%s: %u; ", at, st->values);
    pct(o, "uniform", st->state[DIV_UNIFORM], st->values);
    pct(o, ", affine", st->state[DIV_AFFINE], st->values);
    pct(o, ", divergent", st->state[DIV_DIVERGENT], st->values);
    fputs(" (affine analysis, degree 2)\n", o);
    fprintf(o, "branches%s: %u conditional, %u not proven uniform\n", at, st->branches, st->branches_divergent);
}

/* ptxas_why: what to say of a kernel ptxas -v did not report (NULL: nothing;
 * the header says why ptxas did not run). */
static void kernel_text(FILE *o, const an_kernel *k, const char *ptxas_why)
{
    const coal_func *f = k->sh[0].f;
    const coal_report_ctx *c = &k->sh[0].r->ctx;
    const ptx_func *fn = f->pf->fn;
    char *shown = ptx_func_shown(fn);
    fprintf(o, "\n== %s %s ==\n", fn->is_entry ? "kernel" : "function", shown);
    if (strlen(shown) != fn->name.n || memcmp(shown, fn->name.p, fn->name.n))
        fprintf(o, "symbol: %.*s\n", (int)fn->name.n, fn->name.p);
    free(shown);
    if (k->ns > 1) {
        fprintf(o, "block: %u launch shapes, analysed at each:", k->ns);
        for (uint32_t s = 0; s < k->ns; s++) {
            const coal_func *fs = k->sh[s].f;
            fprintf(o, "%s %ux%ux%u (%s)", s ? "," : "", fs->shape.block[0], fs->shape.block[1], fs->shape.block[2],
                    blk_origin_for(k->sh[s].r->blocks, fn, BLK_LAUNCH));
        }
        fputc('\n', o);
        for (uint32_t s = 0; s < k->ns; s++) {
            const coal_func *fs = k->sh[s].f;
            char at[64];
            snprintf(at, sizeof at, " at %ux%ux%u", fs->shape.block[0], fs->shape.block[1], fs->shape.block[2]);
            value_lines(o, &k->sh[s].st, at);
        }
    } else {
        if (wl_shape_known(&f->shape))
            fprintf(o, "block: %ux%ux%u (%s)\n", f->shape.block[0], f->shape.block[1], f->shape.block[2],
                    shape_origin(&k->sh[0]));
        else fputs("block: unknown; assumed " BLK_DEFAULT_TEXT "\n", o);
        value_lines(o, &k->sh[0].st, "");
    }
    const ra_peak *rp = &k->rp;
    fprintf(o, "register pressure: at most %u 32-bit register%s and %u predicate%s live (64-bit registers count 2)",
            rp->regs32, rp->regs32 == 1 ? "" : "s", rp->preds, rp->preds == 1 ? "" : "s");
    if (rp->at_stmt != UINT32_MAX) {
        src_pos p;
        src_pos_of(c->files, fn, rp->at_stmt, &p);
        fprintf(o, "; peak at PTX line %u", fn->stmts[rp->at_stmt]->loc.line);
        if (p.file) fprintf(o, " (%s:%u)", p.file, p.line);
    }
    fputc('\n', o);
    char fig[256];
    if (k->px) fprintf(o, "ptxas: %s\n", sc_ptxas_figures(k->px, fig, sizeof fig));
    else if (fn->is_entry && ptxas_why) fprintf(o, "ptxas: %s\n", ptxas_why);
    if (!k->n) fputs("findings: none\n", o);
    else fprintf(o, "findings by cost (%zu):\n", k->n);
    for (size_t i = 0; i < k->n; i++) {
        const chk_finding *x = k->mine[i];
        fprintf(o, "  %zu. [%s, %s] ", i + 1, chk_rule_name((enum chk_rule)x->rule),
                chk_certainty_name((enum chk_certainty)x->certainty));
        if (x->src_file) fprintf(o, "%s:%u:%u, ", x->src_file, x->src_line, x->src_col);
        fprintf(o, "PTX line %u", x->line);
        if (x->ninst > 1) fprintf(o, " (%u instructions)", x->ninst);
        if (x->loop_depth) fprintf(o, ", loop depth %u", x->loop_depth);
        fprintf(o, ", cost %" PRIu64 "\n     %s\n", x->cost, x->message);
        if (x->nshapes > 1) {
            char at[2048];
            chk_holds_at_text(x, at, sizeof at);
            fprintf(o, "     %s\n", at);
        }
        if (x->depends) fprintf(o, "     depends on %s\n", x->depends);
        if (x->assumed) fprintf(o, "     assuming %s\n", x->assumed);
        if (x->hint) fprintf(o, "     hint: %s\n", x->hint);
    }
}

static json_t *block_json(const an_shape *s)
{
    const coal_func *f = s->f;
    json_t *b = json_object();
    json_object_set_new(b, "shape", wl_shape_known(&f->shape) ? blk_shape_json(f->shape.block) : json_null());
    json_object_set_new(b, "origin", json_string(wl_shape_known(&f->shape) ? shape_origin(s)
                                                                           : "unknown; assumed " BLK_DEFAULT_TEXT));
    return b;
}

static json_t *values_json(const dr_stats *st)
{
    return json_pack("{s:i,s:i,s:i,s:i,s:s}", "total", (json_int_t)st->values, "uniform",
                     (json_int_t)st->state[DIV_UNIFORM], "affine", (json_int_t)st->state[DIV_AFFINE], "divergent",
                     (json_int_t)st->state[DIV_DIVERGENT], "analysis", "affine2");
}

static json_t *branches_json(const dr_stats *st)
{
    return json_pack("{s:i,s:i}", "conditional", (json_int_t)st->branches, "not_proven_uniform",
                     (json_int_t)st->branches_divergent);
}

/* A kernel: block, values and branches at its shape; a kernel launched with
 * several shapes has them per shape in "at_shapes" (and no top-level
 * block, values or branches); the findings once, with check's holds_at. */
/* The kernel's JSON but its findings: *findings, the empty array to stream
 * them into. */
static json_t *kernel_json(const an_kernel *k, json_t **findings)
{
    const coal_report_ctx *c = &k->sh[0].r->ctx;
    const ptx_func *fn = k->sh[0].f->pf->fn;
    json_t *o = json_object();
    kn_json(o, "name", fn);
    json_object_set_new(o, "entry", json_boolean(fn->is_entry));
    if (k->ns == 1) {
        json_object_set_new(o, "block", block_json(&k->sh[0]));
        json_object_set_new(o, "values", values_json(&k->sh[0].st));
        json_object_set_new(o, "branches", branches_json(&k->sh[0].st));
    }
    json_t *at = json_array();
    for (uint32_t s = 0; s < k->ns; s++)
        json_array_append_new(at, json_pack("{s:o,s:o,s:o}", "block", block_json(&k->sh[s]), "values",
                                            values_json(&k->sh[s].st), "branches", branches_json(&k->sh[s].st)));
    json_object_set_new(o, "at_shapes", at);
    json_t *rp = json_pack("{s:i,s:i}", "registers32", (json_int_t)k->rp.regs32, "predicates", (json_int_t)k->rp.preds);
    json_t *peak = json_null();
    if (k->rp.at_stmt != UINT32_MAX) {
        src_pos p;
        src_pos_of(c->files, fn, k->rp.at_stmt, &p);
        peak = json_pack("{s:i}", "ptx_line", (json_int_t)fn->stmts[k->rp.at_stmt]->loc.line);
        json_object_set_new(peak, "src", p.file ? json_pack("{s:s,s:i}", "file", p.file, "line", (json_int_t)p.line)
                                                : json_null());
    }
    json_object_set_new(rp, "peak", peak);
    json_object_set_new(o, "register_pressure", rp);
    json_object_set_new(o, "ptxas",
                        k->px ? json_pack("{s:i,s:i,s:i,s:i,s:i}", "registers", (json_int_t)k->px->registers,
                                          "spill_store_bytes", (json_int_t)k->px->spill_stores, "spill_load_bytes",
                                          (json_int_t)k->px->spill_loads, "shared_bytes", (json_int_t)k->px->smem,
                                          "stack_frame_bytes", (json_int_t)k->px->stack_frame)
                              : json_null());
    *findings = json_array(); /* streamed: put_findings */
    json_object_set_new(o, "findings", *findings);
    return o;
}

static void put_findings(jstream *js, void *ctx)
{
    const an_kernel *k = ctx;
    for (size_t i = 0; i < k->n; i++) chk_put_finding(js, k->mine[i]);
}

#define ASSUMED                                                                                                 \
    "warps of 32 consecutive threads; 32-byte sectors; allocations 256-byte aligned; no index wraparound"

/* SARIF: check's log over the kernels' findings (a shallow list: l owns
 * them); nothing fails, so proven findings are warnings and possible ones
 * notes.  temp_ptx: the PTX was nvcc's temporary output, so no location
 * points into it. */
static json_t *report_sarif(const chk_list *l, const coal_options *co, const an_kernel *ks, size_t nk, bool temp_ptx)
{
    chk_list all = *l;
    all.n = 0;
    for (size_t i = 0; i < nk; i++) all.n += ks[i].n;
    all.v = malloc(sizeof *all.v * (all.n ? all.n : 1));
    if (!all.v) abort();
    all.n = 0;
    for (size_t i = 0; i < nk; i++)
        for (size_t j = 0; j < ks[i].n; j++) all.v[all.n++] = *ks[i].mine[j];
    chk_run run = {&all, 1, 0, (1u << CHK_NRULES) - 1, 0, false, co, NULL, 0, NULL};
    json_t *j = chk_report_sarif(&run);
    free(all.v);
    if (temp_ptx) {
        /* nvcc's PTX is gone when the log is read: no locations in it */
        size_t i, k;
        json_t *r, *loc;
        json_array_foreach(json_object_get(json_array_get(json_object_get(j, "runs"), 0), "results"), i, r) {
            json_t *rel = json_object_get(r, "relatedLocations");
            for (k = json_array_size(rel); k-- > 0;) {
                loc = json_array_get(rel, k);
                const char *m = json_string_value(json_object_get(json_object_get(loc, "message"), "text"));
                if (m && !strncmp(m, "PTX instruction ", 16)) json_array_remove(rel, k);
            }
            if (!json_array_size(rel)) json_object_del(r, "relatedLocations");
        }
    }
    return j;
}

/* One file analysed: its rounds, its findings, and (for the text, JSON
 * and SARIF reports) ptxas -v's figures and what each kernel's report says. */
typedef struct an_file {
    int rc; /* 2: bad input, said on the job's stream */
    const char *shown, *ptx;
    pl_prog pl;
    bool loaded;  /* pl */
    blk_opts one; /* the one file's copy of the shapes (pl reads them) */
    round_res **rr;
    uint32_t nr;
    chk_list l;
    an_kernel *ks;
    size_t nk, nfindings;
    const char *cfg_shown; /* the project file, when it has suppressions (the summary table counts them); else NULL */
    bool have_px;
    sc_ptxas_info px;
    char why[320];
    const ptx_func **fns; /* the analysed functions, PTX order */
    sum_table sum;        /* the summary table the report opens with */
} an_file;

/* A kernel launched with several shapes is analysed at each: the model
 * once per round on the one program, round r giving each kernel its r-th
 * shape; its report comes once, kernels in PTX order (the HTML page: a
 * section per shape).  single: the run's one file, whose --block kernels
 * must be in it (else they are marked in blocks, for blk_check_seen after
 * the run). */
static void load_file(an_file *x, const char *shown, const char *ptx, const coal_options *co, blk_opts *blocks,
                      bool single, FILE *err, cfg_set *configs)
{
    memset(x, 0, sizeof *x);
    x->shown = shown;
    x->ptx = ptx;
    /* the one file's --block entries are checked on a copy: the run's stay as given */
    if (single) x->one = *blocks;
    pl_options o = {.cmd = "analyze", .shown = shown, .kernel = co->only, .level = PROG_GSA,
                    .passes = PL_COALESCE | PL_VALUES,
                    .blocks = single ? &x->one : blocks, .shapes = single ? PL_SHAPES_CHECK : PL_SHAPES_MARK, .co = co,
                    .err = err, .configs = configs, .config_from = shown};
    int rc = pl_load(&x->pl, ptx, &o);
    x->loaded = !rc;
    if (!rc && x->pl.unit && x->pl.unit->text) x->shown = shown = x->pl.path; /* a binary's PTX: its unit's name */
    if (!rc && co->only && !x->pl.res[0]->nfuncs) {
        fprintf(err, "ptxray analyze: %s: no function with a body named '%s'\n", shown, co->only);
        rc = 2;
    }
    x->nr = rc ? 1 : x->pl.nr;
    x->rr = calloc(x->nr, sizeof *x->rr);
    if (!x->rr) abort();
    for (uint32_t r = 0; r < x->nr; r++) {
        x->rr[r] = calloc(1, sizeof *x->rr[r]);
        if (!x->rr[r]) abort();
    }
    size_t at = chk_collect_begin(&x->l);
    for (uint32_t r = 0; r < x->nr && !rc; r++) {
        const pl_prog *pl = &x->pl;
        *x->rr[r] = (round_res){pl->m, pl->p, pl->res[r], pl->ctx[r], &pl->rb[r], &pl->rco[r],
                                pl->val + (size_t)r * pl->res[0]->nfuncs};
        chk_collect_at(&x->l, at, shown, &x->rr[r]->ctx, (1u << CHK_NRULES) - 1);
    }
    chk_collect_end(&x->l, at, shown);
    /* as in check: a finding the project file suppresses is in no view
     * (text, JSON, SARIF, HTML, the summary table), and the count says so */
    if (!rc && x->pl.cfg && x->pl.cfg->ns) {
        cfg_suppress(&x->l, at, x->pl.m, x->pl.cfg);
        x->cfg_shown = x->pl.cfg->shown;
        for (size_t i = at; i < x->l.n; i++)
            x->l.v[i].suppressed = x->l.v[i].supp != NULL;
    }
    x->rc = rc;
}

/* ptxas -v and each kernel's report (text, JSON, SARIF); pg: the run's
 * progress line, or NULL (a file of several: the run counts files). */
static void prepare(an_file *x, progress *pg, bool ptxas)
{
    if (ptxas) x->have_px = !sc_ptxas_module(x->rr[0]->m, x->ptx, &x->px, x->why, sizeof x->why);
    else {
        x->have_px = false;
        snprintf(x->why, sizeof x->why, "--no-ptxas");
    }
    x->nk = x->rr[0]->res->nfuncs;
    x->ks = calloc(x->nk ? x->nk : 1, sizeof *x->ks);
    if (!x->ks) abort();
    x->fns = malloc(sizeof *x->fns * (x->nk ? x->nk : 1));
    if (!x->fns) abort();
    for (uint32_t i = 0; i < x->nk; i++) {
        kernel_data(&x->ks[i], x->rr, x->nr, i, &x->l, x->have_px ? &x->px : NULL);
        x->nfindings += x->ks[i].n;
        x->fns[i] = x->rr[0]->res->f[i].pf->fn;
        if (pg) pg_tick(pg, i + 1, x->nk, "kernels");
    }
    if (pg) pg_end(pg);
    sum_build(&x->sum, x->fns, (uint32_t)x->nk, &x->l);
    x->sum.supp_by = x->cfg_shown;
}

static void release(an_file *x)
{
    for (size_t i = 0; i < x->nk; i++) {
        free(x->ks[i].mine);
        free(x->ks[i].sh);
    }
    free(x->ks);
    free(x->fns);
    sum_free(&x->sum);
    if (x->have_px) sc_ptxas_free(&x->px);
    chk_free(&x->l);
    for (uint32_t r = 0; r < x->nr; r++) free(x->rr[r]);
    free(x->rr);
    if (x->loaded) pl_free(&x->pl);
}

static void file_text(FILE *o, const an_file *x)
{
    fprintf(o, "ptxray analyze: %s\n", x->shown);
    fputs("assumed: " ASSUMED "\n", o);
    fprintf(o, x->have_px ? "ptxas: figures from %s\n" : "ptxas: not run (%s)\n", x->why);
    if (!x->nk) fputs("no function with a body\n", o);
    else sum_text(o, &x->sum);
    for (size_t i = 0; i < x->nk; i++) kernel_text(o, &x->ks[i], x->have_px ? "not reported" : NULL);
}

/* A file's JSON, kernel by kernel; several: an element of "files" (the
 * tool and the assumptions are said once, above). */
static void file_json(jstream *js, const an_file *x, bool several)
{
    js_open_object(js, NULL);
    if (!several) {
        js_str(js, "tool", "ptxray analyze");
        js_str(js, "version", PTXRAY_VERSION);
    }
    js_str(js, "file", x->shown);
    if (!several) js_str(js, "assumed", ASSUMED);
    js_put(js, "ptxas", json_pack("{s:b,s:s}", "run", x->have_px, "how", x->why));
    if (x->cfg_shown) js_put(js, "suppressed", json_pack("{s:I,s:s}", "findings", (json_int_t)x->sum.nsupp, "by", x->cfg_shown));
    js_put(js, "summary_table", sum_json(&x->sum, x->fns));
    js_open_array(js, "kernels");
    for (size_t i = 0; i < x->nk; i++) {
        json_t *fs, *k = kernel_json(&x->ks[i], &fs);
        js_put_tree(js, NULL, k, fs, put_findings, (void *)&x->ks[i]);
    }
    js_close(js);
    js_close(js);
}

/* The report of one file, on stdout or -o: written whole or not at all. */
static int write_report(const an_file *x, const an_args *a)
{
    outfile of;
    if (outfile_open(&of, a->out)) return 2;
    if (a->format == COAL_FMT_TEXT) file_text(of.f, x);
    else if (a->format == COAL_FMT_SARIF) {
        json_t *root = report_sarif(&x->l, x->rr[0]->co, x->ks, x->nk, strcmp(x->shown, x->ptx) != 0);
        coal_json_dump(of.f, root);
        json_decref(root);
    } else {
        jstream js;
        js_init(&js, of.f);
        file_json(&js, x, false);
        js_finish(&js);
    }
    return outfile_commit(&of) ? 2 : 0;
}

/* html: the page (a: its -o), else the report a asks for. */
static int report(const char *shown, const char *ptx, const coal_options *co, blk_opts *blocks, bool html,
                  const an_args *a, bool ptxas, const ra_options *ra)
{
    an_file x;
    progress pg;
    pg_start(&pg, "analyze");
    load_file(&x, shown, ptx, co, blocks, true, stderr, a->configs);
    int rc = x.rc;
    round_res *first = x.rr[0], **rr = x.rr;
    ra_stats rst;
    memset(&rst, 0, sizeof rst);
    bool ran = false;
    if (!rc && html && ra) {
        /* the spill code of a regalloc run, at the shapes of the first round */
        ra_options o = *ra;
        o.blocks = first->blocks;
        o.prog = first->p; /* the pipeline's program: nothing is built twice */
        /* with --kernel, that function alone (as the page) */
        char sym[1024];
        if (co->only && first->res->nfuncs == 1) {
            const ptx_func *fn = first->res->f[0].pf->fn;
            snprintf(sym, sizeof sym, "%.*s", (int)fn->name.n, fn->name.p);
            o.only = sym;
        }
        rc = html_ra_run(first->m, shown, &o, &rst);
        ran = !rc;
    }
    if (!rc && html) {
        /* the kernels in PTX order, each at each of its shapes */
        size_t nk = 0;
        html_kernel *ks = NULL;
        uint32_t nf = first->res->nfuncs;
        const ptx_func **fns = malloc(sizeof *fns * (nf ? nf : 1));
        if (!fns) abort();
        for (uint32_t i = 0; i < nf; i++) fns[i] = first->res->f[i].pf->fn;
        sum_table sum;
        sum_build(&sum, fns, nf, &x.l);
        sum.supp_by = x.cfg_shown;
        for (uint32_t i = 0; i < first->res->nfuncs; i++) {
            uint32_t ns = blk_nshapes(first->blocks, first->res->f[i].pf->fn);
            if (ns > x.nr) ns = x.nr;
            if (!ns) ns = 1;
            for (uint32_t r = 0; r < ns; r++) {
                ks = realloc(ks, (nk + 1) * sizeof *ks);
                if (!ks) abort();
                const ptx_func *fn = rr[r]->res->f[i].pf->fn;
                ks[nk++] = (html_kernel){&rr[r]->ctx, &rr[r]->res->f[i], &x.l, &rr[r]->val[i], ran ? &rst : NULL,
                                         ran ? html_ra_func(&rst, rr[r]->m, fn) : NULL, i};
            }
        }
        outfile of;
        if (outfile_open(&of, a->out)) rc = 2;
        else {
            html_analyze(of.f, shown, ptx, first->m, ks, nk, &sum, ptxas, &pg);
            if (outfile_commit(&of)) rc = 2;
        }
        free(ks);
        free(fns);
        sum_free(&sum);
    } else if (!rc) {
        prepare(&x, &pg, !a->no_ptxas);
        rc = write_report(&x, a);
    }
    ra_stats_free(&rst);
    release(&x);
    return rc;
}

int an_report(const char *shown, const char *ptx, const coal_options *co, blk_opts *blocks, const an_args *a)
{
    return report(shown, ptx, co, blocks, false, a, false, NULL);
}

int an_report_html(const char *shown, const char *ptx, const coal_options *co, blk_opts *blocks, const char *out,
                   bool ptxas, const ra_options *ra, cfg_set *configs)
{
    an_args a = {COAL_FMT_TEXT, out, 0, !ptxas, configs};
    return report(shown, ptx, co, blocks, true, &a, ptxas, ra);
}

/* ---- several files -------------------------------------------------------- */

/* The run being written: the files analysed one per job (batch.h), each
 * written out in file order and freed; SARIF gathers the findings (not
 * their JSON) and writes them at the end, finding by finding. */
typedef struct an_run {
    const an_args *a;
    char **paths;
    const coal_options *co;
    blk_opts *w; /* per worker */
    FILE *f;
    jstream js;
    chk_list all; /* SARIF */
    progress pg;  /* files written */
    size_t n;
    size_t nfiles, nbad, nkernels, nfindings;
} an_run;

static void *analyse_one(void *ctx, unsigned w, size_t i, FILE *err)
{
    an_run *run = ctx;
    an_file *x = malloc(sizeof *x);
    if (!x) abort();
    load_file(x, run->paths[i], run->paths[i], run->co, &run->w[w], false, err, run->a->configs);
    if (!x->rc) prepare(x, NULL, !run->a->no_ptxas);
    return x;
}

/* The file's findings into the run's list in the order its report gives
 * them (kernel by kernel, each by cost), as one file's SARIF has them. */
static void gather(an_run *run, an_file *x)
{
    chk_finding *v = malloc(sizeof *v * (x->l.n ? x->l.n : 1));
    bool *used = calloc(x->l.n ? x->l.n : 1, 1);
    if (!v || !used) abort();
    size_t n = 0;
    for (size_t i = 0; i < x->nk; i++)
        for (size_t j = 0; j < x->ks[i].n; j++) {
            used[x->ks[i].mine[j] - x->l.v] = true;
            v[n++] = *x->ks[i].mine[j];
        }
    for (size_t j = 0; j < x->l.n; j++)
        if (!used[j]) v[n++] = x->l.v[j];
    free(used);
    free(x->l.v);
    x->l.v = v;
    x->l.cap = x->l.n;
    chk_merge(&run->all, &x->l);
}

static bool take(void *ctx, size_t i, void *result)
{
    (void)i;
    an_run *run = ctx;
    an_file *x = result;
    run->nfiles++;
    pg_tick(&run->pg, run->nfiles, run->n, "files");
    if (x->rc) run->nbad++;
    else {
        run->nkernels += x->nk;
        run->nfindings += x->nfindings;
        if (run->a->format == COAL_FMT_TEXT) {
            if (run->nfiles > run->nbad + 1) fputc('\n', run->f);
            file_text(run->f, x);
        } else if (run->a->format == COAL_FMT_JSON) file_json(&run->js, x, true);
        if (run->a->format == COAL_FMT_SARIF) gather(run, x);
    }
    release(x);
    free(x);
    return true; /* a bad file is reported, and the others still analysed */
}

int an_report_files(char **paths, size_t n, const coal_options *co, blk_opts *blocks, const an_args *a)
{
    unsigned jobs = a->jobs ? a->jobs : batch_default_jobs();
    if (jobs > n) jobs = n ? (unsigned)n : 1;
    an_run run = {.a = a, .paths = paths, .co = co, .n = n};
    pg_start(&run.pg, "analyze");
    run.w = malloc(sizeof *run.w * jobs);
    if (!run.w) abort();
    for (unsigned k = 0; k < jobs; k++) run.w[k] = *blocks;
    outfile of;
    if (outfile_open(&of, a->out)) {
        free(run.w);
        return 2;
    }
    run.f = of.f;
    js_init(&run.js, of.f);
    if (a->format == COAL_FMT_JSON) {
        js_open_object(&run.js, NULL);
        js_str(&run.js, "tool", "ptxray analyze");
        js_str(&run.js, "version", PTXRAY_VERSION);
        js_str(&run.js, "assumed", ASSUMED);
        js_open_array(&run.js, "files");
    }
    batch_opts bo = {jobs, "analyze", paths};
    batch_run(n, &bo, analyse_one, take, &run);
    pg_end(&run.pg);
    for (unsigned k = 0; k < jobs; k++)
        for (uint32_t e = 0; e < blocks->n; e++) blocks->k[e].seen |= run.w[k].k[e].seen;
    free(run.w);
    if (a->format == COAL_FMT_TEXT) {
        fprintf(of.f, "\nptxray analyze: %zu files", run.nfiles);
        if (run.nbad) fprintf(of.f, " (%zu with errors, not analysed)", run.nbad);
        fprintf(of.f, ": %zu functions, %zu findings\n", run.nkernels, run.nfindings);
    }
    else if (a->format == COAL_FMT_JSON) {
        js_close(&run.js);
        js_put(&run.js, "summary",
               json_pack("{s:I,s:I,s:I,s:I}", "files", (json_int_t)run.nfiles, "files_with_errors",
                         (json_int_t)run.nbad, "functions", (json_int_t)run.nkernels, "findings",
                         (json_int_t)run.nfindings));
        js_finish(&run.js);
    } else {
        chk_run cr = {&run.all, run.nfiles, run.nbad, (1u << CHK_NRULES) - 1, 0, false, co, NULL, 0, NULL};
        chk_write_sarif(of.f, &cr);
    }
    chk_free(&run.all);
    if (run.nbad || !blk_check_seen(blocks, "analyze")) {
        if (of.path) outfile_abort(&of); /* -o: nothing written on exit 2 */
        else outfile_commit(&of);
        return 2;
    }
    return outfile_commit(&of) ? 2 : 0;
}
