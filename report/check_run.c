/* ptxray check's run over many files (check_run.h): the file list, the
 * baseline, the findings of each file and the report. */
#include "check_run.h"
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "batch.h"
#include "html.h"
#include "inputs.h"
#include "outfile.h"
#include "pipeline.h"

typedef struct fpset {
    size_t n;
    uint64_t *v; /* sorted */
} fpset;

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* One fingerprint (16 hex digits) at the start of each line; '#' starts a
 * comment, blank lines are skipped, the rest of a line is for people. */
static int load_baseline(const char *path, fpset *s)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "%s:1:1: error: cannot read the baseline: %s\n", path, strerror(errno));
        return 2;
    }
    char line[4096];
    uint32_t ln = 0;
    size_t cap = 0;
    int rc = 0;
    while (fgets(line, sizeof line, f)) {
        ln++;
        if (line[0] == '#' || line[0] == '\n' || line[0] == '\r' || line[0] == 0) continue;
        char *e;
        errno = 0;
        uint64_t fp = strtoull(line, &e, 16);
        if (e - line != 16 || errno || (*e && *e != ' ' && *e != '\t' && *e != '\n' && *e != '\r')) {
            fprintf(stderr, "%s:%u:1: error: expected a fingerprint of 16 hex digits\n", path, ln);
            rc = 2;
            break;
        }
        if (s->n == cap) {
            cap = cap ? 2 * cap : 64;
            s->v = realloc(s->v, cap * sizeof *s->v);
            if (!s->v) abort();
        }
        s->v[s->n++] = fp;
    }
    fclose(f);
    if (s->n) qsort(s->v, s->n, sizeof *s->v, cmp_u64);
    return rc;
}

static int write_baseline(const char *path, const chk_list *l)
{
    outfile of;
    if (outfile_open(&of, path)) return 2;
    fputs("# ptxray check baseline (docs/check.md): fingerprint, rule, PTX file, kernel\n", of.f);
    for (size_t i = 0; i < l->n; i++) {
        char fp[17];
        chk_fingerprint_text(l->v[i].fingerprint, fp);
        fprintf(of.f, "%s %s %s %s\n", fp, chk_rule_name((enum chk_rule)l->v[i].rule), l->v[i].ptx_path,
                l->v[i].symbol);
    }
    return outfile_commit(&of) ? 2 : 0;
}

/* A kernel launched with several shapes is checked at each: the file is
 * parsed and built once and the model run once per round (round r gives
 * each kernel its r-th shape; pipeline.h), and
 * a finding found at several is reported once, with the shapes. */
static int check_file(chk_list *l, const in_unit *u, coal_options *co, blk_opts *blocks, unsigned mask, FILE *err,
                      cfg_set *configs)
{
    const char *path = u->shown;
    size_t first = chk_collect_begin(l);
    pl_prog x;
    pl_options o = {.cmd = "check", .kernel = co->only, .level = PROG_GSA, .passes = PL_COALESCE,
                    .blocks = blocks, .shapes = PL_SHAPES_MARK, .co = co, .err = err,
                    .text = u->text, .text_len = u->len, .plain = !u->text,
                    .configs = configs, .config_from = u->path};
    int rc = pl_load(&x, path, &o);
    if (!rc) {
        for (uint32_t r = 0; r < x.nr; r++) chk_collect_at(l, first, path, &x.ctx[r], mask);
        if (x.cfg && x.cfg->ns) cfg_suppress(l, first, x.m, x.cfg);
        pl_free(&x);
    }
    chk_collect_end(l, first, path);
    for (size_t i = first; i < l->n; i++) l->v[i].also = u->also;
    return rc;
}

static void mark_suppressed(chk_list *l, const fpset *base)
{
    for (size_t i = 0; i < l->n; i++)
        l->v[i].suppressed =
            (base->n && bsearch(&l->v[i].fingerprint, base->v, base->n, sizeof *base->v, cmp_u64) != NULL) ||
            l->v[i].supp;
}

static int report(const chk_args *a, const chk_run *run)
{
    outfile of;
    if (outfile_open(&of, a->out)) return 2;
    if (a->format == COAL_FMT_TEXT) chk_report_text(of.f, run);
    else if (a->format == CHK_FMT_HTML) html_check(of.f, run);
    else if (a->format == COAL_FMT_JSON) chk_write_json(of.f, run);
    else chk_write_sarif(of.f, run);
    return outfile_commit(&of) ? 2 : 0;
}

/* A worker's copy of the options: blk_opts carries the round and the
 * --block entries seen, which are merged into the run's at the end. */
typedef struct chk_worker {
    blk_opts blocks;
    coal_options co;
} chk_worker;

typedef struct chk_batch {
    const in_unit *units;
    unsigned mask;
    chk_worker *w;
    chk_list *l; /* the run's */
    size_t nbad;
    cfg_set *configs;
} chk_batch;

typedef struct chk_file_result {
    chk_list l;
    int rc;
} chk_file_result;

static void *check_one(void *ctx, unsigned w, size_t i, FILE *err)
{
    chk_batch *b = ctx;
    chk_file_result *r = calloc(1, sizeof *r);
    if (!r) abort();
    r->rc = check_file(&r->l, &b->units[i], &b->w[w].co, &b->w[w].blocks, b->mask, err, b->configs);
    return r;
}

static bool merge_one(void *ctx, size_t i, void *result)
{
    (void)i;
    chk_batch *b = ctx;
    chk_file_result *r = result;
    if (r->rc) b->nbad++;
    chk_merge(b->l, &r->l);
    free(r);
    return true; /* bad files are reported and the others still checked */
}

/* Every file's findings into l, in file order; the number of bad files. */
static size_t check_files(chk_args *a, const in_units *u, unsigned mask, chk_list *l, cfg_set *configs)
{
    size_t n = u->n;
    unsigned jobs = a->jobs ? a->jobs : batch_default_jobs();
    if (jobs > n) jobs = n ? (unsigned)n : 1;
    chk_worker *w = malloc(sizeof *w * jobs);
    if (!w) abort();
    for (unsigned k = 0; k < jobs; k++) {
        w[k].blocks = a->blocks;
        w[k].co = a->co;
        w[k].co.blocks = &w[k].blocks;
    }
    char **names = malloc((n ? n : 1) * sizeof *names);
    if (!names) abort();
    for (size_t i = 0; i < n; i++) names[i] = u->v[i].path; /* the progress line reads their sizes */
    chk_batch b = {u->v, mask, w, l, 0, configs};
    batch_opts o = {jobs, "check", names};
    batch_run(n, &o, check_one, merge_one, &b);
    for (unsigned k = 0; k < jobs; k++)
        for (uint32_t e = 0; e < a->blocks.n; e++) a->blocks.k[e].seen |= w[k].blocks.k[e].seen;
    free(w);
    free(names);
    return b.nbad;
}

/* ", 1 suppressed by ptxray.yaml, 1 of 2 assumptions used" when a project
 * file was read, else NULL (the summary is as without one). */
static char *config_note(const cfg_set *s, const chk_list *l)
{
    if (!s->n) return NULL;
    size_t sup = 0;
    for (size_t i = 0; i < l->n; i++) sup += l->v[i].supp != NULL;
    uint32_t nf = 0, used = 0;
    for (size_t i = 0; i < s->n; i++)
        for (uint32_t k = 0; k < s->all[i]->nk; k++)
            for (uint32_t j = 0; j < s->all[i]->k[k].nfacts; j++) {
                nf++;
                used += s->all[i]->k[k].facts[j].changed || s->all[i]->k[k].facts[j].cleared;
            }
    char *t = malloc(256);
    if (!t) abort();
    snprintf(t, 256, ", %zu suppressed by %s, %u of %u assumptions used", sup, s->n == 1 ? s->all[0]->shown : "the project files",
             used, nf);
    return t;
}

int chk_check(chk_args *a, char **paths, int n)
{
    int rc;
    fpset base = {0, NULL};
    if (a->baseline && load_baseline(a->baseline, &base)) {
        free(base.v);
        return 2;
    }
    in_units files = {0, 0, NULL};
    rc = in_collect(&files, "check", paths, n, stderr);
    /* a CI job pointed at the wrong directory must not pass quietly */
    if (!files.n && !rc) {
        fputs("ptxray check: no PTX file found\n", stderr);
        rc = 2;
    }
    /* the project files, found before the run: their fail-on decides the
     * rules collected, and their errors stop it */
    cfg_set configs;
    cfg_set_init(&configs, a->config.mode, a->config.file);
    int crc = 0; /* an input's error (rc) does not stop the run; a project file's does */
    for (size_t i = 0; i < files.n && !crc; i++) {
        const ptx_config *c;
        crc = cfg_for(&configs, files.v[i].path, &c);
    }
    bool has = false;
    unsigned cfg_fail = 0;
    if (!crc) crc = cfg_fail_on(&configs, &has, &cfg_fail, "check");
    if (crc) {
        cfg_set_free(&configs);
        in_free(&files);
        free(base.v);
        return crc;
    }
    if (has && !a->fail_on_given) a->fail_on = cfg_fail;
    chk_list l;
    memset(&l, 0, sizeof l);
    unsigned enabled = a->enable | a->fail_on;
    size_t nbad = check_files(a, &files, enabled, &l, &configs);
    if (nbad) rc = 2;
    chk_sort(&l);
    mark_suppressed(&l, &base);
    for (size_t i = 0; configs.n && i < l.n; i++) { /* a finding that remains was not cleared */
        char at[1024];
        const chk_finding *x = &l.v[i];
        if (x->src_file) snprintf(at, sizeof at, "%s:%u [%s] in %s", x->src_file, x->src_line, chk_rule_name(x->rule), x->kernel);
        else snprintf(at, sizeof at, "PTX line %u [%s] in %s", x->line, chk_rule_name(x->rule), x->kernel);
        cfg_drop_present(&configs, at);
    }
    char *note = config_note(&configs, &l);
    chk_run run = {&l, files.n, nbad, enabled, a->fail_on, a->strict, &a->co, a->root, 0, note};
    for (size_t i = 0; i < files.n; i++) run.nbin += files.v[i].text != NULL;
    if (!blk_check_seen(&a->blocks, "check")) rc = 2; /* nothing written */
    else if (!(rc == 2 && a->out) && report(a, &run)) rc = 2; /* exit 2 writes no file */
    /* a baseline missing the findings of a file that failed to parse would
     * hide them later: none is written then */
    if (a->write && !rc) rc = write_baseline(a->write, &l);
    else if (!rc)
        for (size_t i = 0; i < l.n; i++)
            if (chk_fails(&run, &l.v[i])) rc = 1;
    /* what the project files' assumptions did; an expired suppression
     * (or, --strict-assumptions, one that nothing used) fails the run */
    if (cfg_report_end(&configs, stderr, stderr, a->strict_assumptions, CFG_SUPPS_GATE) && rc != 2 && !a->write) rc = 1;
    cfg_set_free(&configs);
    free(note);
    chk_free(&l);
    in_free(&files);
    free(base.v);
    return rc;
}
