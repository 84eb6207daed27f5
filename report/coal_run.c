/* ptxray coalescing's runs (coal_run.h): the files analysed one per job,
 * each handed back in order and written out before the next (the text, or
 * its JSON kernels and SARIF results one at a time), then freed. */
#include "coal_run.h"
#include <stdlib.h>
#include <string.h>
#include "batch.h"
#include "coalescing_report.h"
#include "json_stream.h"
#include "outfile.h"
#include "pipeline.h"
#include "version.h"

/* One file analysed at each round of its kernels' launch shapes: round r
 * gives a kernel launched with several shapes its r-th (the program is the
 * same in every round; pipeline.h). */
typedef struct coal_file {
    int rc; /* 2: bad input, said on the job's stream */
    const char *path;
    pl_prog pl;
} coal_file;

/* single: the one file of the run, whose --block kernels must all be in it
 * (else they must be in some file: blk_check_seen after the run). */
static void analyse(coal_file *x, const char *path, const char *only, blk_opts *blocks, bool single, FILE *err,
                    struct cfg_set *configs)
{
    x->path = path;
    pl_options o = {.cmd = "coalescing", .kernel = only, .level = PROG_GSA, .passes = PL_COALESCE,
                    .blocks = blocks, .shapes = single ? PL_SHAPES_CHECK : PL_SHAPES_MARK, .err = err,
                    .configs = configs};
    x->rc = pl_load(&x->pl, path, &o);
}

static void release(coal_file *x) { pl_free(&x->pl); }

/* The report being written: the run's totals so far. */
typedef struct writer {
    const coal_run_args *a;
    FILE *f;
    jstream js;
    bool several;
    size_t n;                        /* the files */
    size_t nfiles, nbad, nkernels;   /* those written so far */
    uint32_t tot[6];
    /* the batch */
    char **paths;
    blk_opts *w; /* per worker */
    coal_file *single;
} writer;

static void write_json_file(writer *wr, const coal_file *x)
{
    jstream *js = &wr->js;
    uint32_t tot[5] = {0}, n[5];
    js_open_object(js, NULL);
    if (!wr->several) {
        js_str(js, "tool", "ptxray coalescing");
        js_str(js, "version", PTXRAY_VERSION);
    }
    js_str(js, "file", x->path);
    if (!wr->several) js_put(js, "assumptions", coal_assumptions_json(&x->pl.ctx[0]));
    js_open_array(js, "kernels");
    for (uint32_t q = 0; q < x->pl.ctx[0].res->nfuncs * x->pl.nr; q++) {
        json_t *k = coal_kernel_json(x->pl.ctx, x->pl.nr, q, n);
        if (!k) continue;
        js_put(js, NULL, k);
        wr->nkernels++;
        for (int t = 0; t < 5; t++) tot[t] += n[t];
    }
    js_close(js);
    js_put(js, "summary", coal_summary_json(tot));
    js_close(js);
    for (int t = 0; t < 5; t++) wr->tot[t] += tot[t];
}

static void write_sarif_file(writer *wr, const coal_file *x)
{
    for (uint32_t i = 0; i < x->pl.ctx[0].res->nfuncs; i++)
        for (uint32_t j = 0; j < x->pl.ctx[0].res->f[i].nacc; j++) {
            coal_variant *v;
            uint32_t nv = coal_variants(x->pl.ctx, x->pl.nr, i, j, &v);
            for (uint32_t k = 0; k < nv; k++) js_put(&wr->js, NULL, coal_sarif_access(x->pl.ctx, x->pl.nr, i, &v[k]));
            coal_variants_free(v, nv);
        }
}

/* A file's part of the report, in file order. */
static void write_file(writer *wr, const coal_file *x)
{
    wr->nfiles++;
    if (x->rc) {
        wr->nbad++;
        return;
    }
    if (wr->a->format == COAL_FMT_JSON) write_json_file(wr, x);
    else if (wr->a->format == COAL_FMT_SARIF) write_sarif_file(wr, x);
    else {
        uint32_t t[6];
        if (wr->several) fprintf(wr->f, "== %s ==\n", x->path);
        coal_report_text_count(wr->f, x->pl.ctx, x->pl.nr, t);
        for (int k = 0; k < 6; k++) wr->tot[k] += t[k];
    }
}

static void *analyse_one(void *ctx, unsigned w, size_t i, FILE *err)
{
    writer *wr = ctx;
    coal_file *x = malloc(sizeof *x);
    if (!x) abort();
    analyse(x, wr->paths[i], NULL, &wr->w[w], false, err, wr->a->configs);
    return x;
}

static bool take(void *ctx, size_t i, void *result)
{
    (void)i;
    writer *wr = ctx;
    coal_file *x = result;
    write_file(wr, x);
    release(x);
    free(x);
    return true; /* a bad file is reported, and the others still analysed */
}

/* The files: the one analysed already, or all of them by the batch. */
static void each_file(writer *wr)
{
    if (wr->single) {
        write_file(wr, wr->single);
        return;
    }
    batch_opts bo = {wr->a->jobs, "coalescing", wr->paths};
    batch_run(wr->n, &bo, analyse_one, take, wr);
}

static void fill_results(jstream *js, void *ctx)
{
    (void)js;
    each_file(ctx);
}

static void write_report(writer *wr)
{
    jstream *js = &wr->js;
    const coal_run_args *a = wr->a;
    coal_options co = {NULL, &a->blocks, NULL, NULL};
    coal_report_ctx opts = {NULL, NULL, &co, NULL, NULL};
    if (a->format == COAL_FMT_SARIF) {
        json_t *run, *rules, *root = coal_sarif_log(&run, &rules), *results = json_array(), *props = json_object();
        json_object_set_new(run, "results", results);
        json_object_set_new(props, "assumptions", coal_assumptions_json(&opts));
        json_object_set_new(run, "properties", props);
        js_put_tree(js, NULL, root, results, fill_results, wr);
    } else if (a->format == COAL_FMT_JSON && wr->several) {
        js_open_object(js, NULL);
        js_str(js, "tool", "ptxray coalescing");
        js_str(js, "version", PTXRAY_VERSION);
        js_put(js, "assumptions", coal_assumptions_json(&opts));
        js_open_array(js, "files");
        each_file(wr);
        js_close(js);
        json_t *sum = json_object();
        json_object_set_new(sum, "files", json_integer((json_int_t)wr->nfiles));
        json_object_set_new(sum, "files_with_errors", json_integer((json_int_t)wr->nbad));
        json_object_set_new(sum, "kernels", json_integer((json_int_t)wr->nkernels));
        json_t *counts = coal_summary_json(wr->tot);
        json_object_update(sum, counts);
        json_decref(counts);
        js_put(js, "summary", sum);
    } else each_file(wr);
    if (a->format != COAL_FMT_TEXT) js_finish(js);
    else if (wr->several) {
        const uint32_t *t = wr->tot;
        fprintf(wr->f, "ptxray coalescing: %zu files", wr->nfiles);
        if (wr->nbad) fprintf(wr->f, " (%zu with errors, not analysed)", wr->nbad);
        fprintf(wr->f, ": %u global accesses, %u uncoalesced; %u shared accesses, %u with bank conflicts", t[0], t[1],
                t[2], t[3]);
        if (t[4]) fprintf(wr->f, " (%u not analysed)", t[4]);
        if (t[5]) fprintf(wr->f, "; %u generic accesses not proven global or shared (not analysed)", t[5]);
        fputc('\n', wr->f);
    }
}

int coal_run(coal_run_args *a, char **paths, size_t n)
{
    writer wr = {.a = a, .several = n > 1, .n = n, .paths = paths};
    coal_file one;
    unsigned jobs = a->jobs ? a->jobs : batch_default_jobs();
    if (jobs > n) jobs = n ? (unsigned)n : 1;
    if (n == 1) {
        /* one file: bad input writes nothing */
        analyse(&one, paths[0], a->only, &a->blocks, true, stderr, a->configs);
        if (one.rc) {
            release(&one);
            return 2;
        }
        wr.single = &one;
    } else {
        wr.w = malloc(sizeof *wr.w * jobs);
        if (!wr.w) abort();
        for (unsigned k = 0; k < jobs; k++) wr.w[k] = a->blocks;
    }
    a->jobs = jobs;
    outfile of;
    int rc = 0;
    if (outfile_open(&of, a->out)) rc = 2;
    else {
        wr.f = of.f;
        js_init(&wr.js, of.f);
        write_report(&wr);
        for (unsigned k = 0; wr.w && k < jobs; k++)
            for (uint32_t e = 0; e < a->blocks.n; e++) a->blocks.k[e].seen |= wr.w[k].k[e].seen;
        if (wr.nbad || (wr.several && !blk_check_seen(&a->blocks, "coalescing"))) {
            rc = 2;
            if (of.path) outfile_abort(&of); /* -o: nothing written on exit 2 */
            else outfile_commit(&of);
        } else rc = outfile_commit(&of) ? 2 : 0;
    }
    if (wr.single) release(&one);
    free(wr.w);
    return rc;
}
