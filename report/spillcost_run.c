/* ptxray spillcost's runs (spillcost.h): the pass in every mode at every
 * budget, ptxas -v on what it wrote, and plain ptxas -maxrregcount as the
 * reference, into an sc_report. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "batch.h"
#include "printer.h"
#include "ptx.h"
#include "names.h"
#include "spillcost.h"
#include "toolchain.h"

const char *sc_mode_name(unsigned mode)
{
    static const char *const n[SC_NMODES] = {"linear", "div", "aff", "ptxas"};
    return mode < SC_NMODES ? n[mode] : "?";
}

#define note sc_note
void sc_note(sc_report *r, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    for (size_t i = 0; i < r->nnotes; i++)
        if (!strcmp(r->notes[i], buf)) return; /* said once is enough */
    if (r->nnotes == r->capnotes) {
        r->capnotes = r->capnotes ? 2 * r->capnotes : 8;
        r->notes = realloc(r->notes, r->capnotes * sizeof *r->notes);
        if (!r->notes) abort();
    }
    r->notes[r->nnotes] = strdup(buf);
    if (!r->notes[r->nnotes++]) abort();
}

static sc_row *add_row(sc_report *r, const char *file, const char *kernel, unsigned mode, unsigned budget)
{
    if (r->nrows == r->caprows) {
        r->caprows = r->caprows ? 2 * r->caprows : 64;
        r->rows = realloc(r->rows, r->caprows * sizeof *r->rows);
        if (!r->rows) abort();
    }
    sc_row *w = &r->rows[r->nrows++];
    memset(w, 0, sizeof *w);
    w->file = file;
    w->kernel = strdup(kernel);
    if (!w->kernel) abort();
    w->mode = mode;
    w->budget = budget;
    return w;
}

/* Functions with a body in module order: ra_run fills its stats in this
 * order, and ra_func_stats.name may be cut short for long C++ names. */
static char **body_names(const ptx_module *m, uint32_t *n)
{
    char **v = calloc(m->nfuncs + 1, sizeof *v);
    if (!v) abort();
    *n = 0;
    for (uint32_t i = 0; i < m->nfuncs; i++) {
        const ptx_func *f = m->funcs[i];
        if (!f->has_body) continue;
        v[*n] = malloc(f->name.n + 1);
        if (!v[*n]) abort();
        memcpy(v[*n], f->name.p, f->name.n);
        v[(*n)++][f->name.n] = 0;
    }
    return v;
}

/* A worker's: the report of the file it works on (its rows, notes and
 * targets, merged into the run's in file order), its copies of --block
 * and of the launches (whose marks are merged at the end), its own
 * temporary files for ptxas, and the file's diagnostics stream. */
typedef struct ctx {
    sc_report *r;
    blk_opts *blocks;    /* --block */
    const char *ptxas;   /* NULL: no ptxas */
    char dir[64], ptx[600], cubin[600];
    FILE *err;
    sc_launch *launches;
} ctx;

/* ptxas -v on the text, with a cache per file: outputs where nothing
 * spilled are the same in every mode. */
typedef struct cache_ent {
    char *text;
    int rc;
    sc_ptxas_info info;
} cache_ent;

static void attach(sc_report *r, size_t from, const sc_ptxas_info *info)
{
    for (size_t i = from; i < r->nrows; i++) {
        const sc_ptxas_func *f = sc_ptxas_find(info, r->rows[i].kernel);
        if (!f || !f->has_used) continue;
        r->rows[i].have_ptxas = true;
        r->rows[i].px = *f;
        r->rows[i].px.name = NULL;
    }
}

static const cache_ent *ptxas_text(ctx *c, cache_ent **cache, size_t *ncache, char *text, size_t len,
                                   const char *arch, bool debug, const char *what)
{
    for (size_t i = 0; i < *ncache; i++)
        if (!strcmp((*cache)[i].text, text)) {
            free(text);
            return &(*cache)[i];
        }
    *cache = realloc(*cache, (*ncache + 1) * sizeof **cache);
    if (!*cache) abort();
    cache_ent *e = &(*cache)[(*ncache)++];
    e->text = text;
    if (tc_write_file(c->ptx, text, len)) {
        note(c->r, "%s: could not write %s for ptxas", what, c->ptx);
        e->rc = -1;
        memset(&e->info, 0, sizeof e->info);
        return e;
    }
    char *log = NULL;
    e->rc = sc_ptxas_run(c->ptxas, c->ptx, c->cubin, arch, debug, 0, &e->info, &log);
    char why[512];
    if (e->rc) note(c->r, "%s: ptxas failed: %s", what, sc_ptxas_why(log, why, sizeof why));
    free(log);
    return e;
}

/* --target-regs N on one file, modes div and aff (ra_target.h). */
static void target_file(ctx *c, const char *path, ptx_module *m, prog *p, const char *arch)
{
    sc_report *r = c->r;
    static const unsigned modes[2] = {SC_DIV, SC_AFF};
    for (unsigned i = 0; i < 2; i++) {
        ra_options o;
        memset(&o, 0, sizeof o);
        o.mode = modes[i] == SC_DIV ? RA_MODE_DIV : RA_MODE_AFF;
        o.blocks = c->blocks;
        o.prog = p;
        if (r->ntargets == r->captargets) {
            r->captargets = r->captargets ? 2 * r->captargets : 16;
            r->targets = realloc(r->targets, r->captargets * sizeof *r->targets);
            if (!r->targets) abort();
        }
        sc_target *t = &r->targets[r->ntargets++];
        memset(t, 0, sizeof *t);
        t->file = path;
        t->mode = modes[i];
        char *out = NULL;
        size_t len;
        t->ok = !ra_target_regs("spillcost", m, r->target_regs, arch, &o, &out, &len, &t->res, c->err);
        if (!t->ok)
            note(r, "%s %s --target-regs %u: ptxas failed on the input or a candidate (its log is above)", path,
                 sc_mode_name(modes[i]), r->target_regs);
        free(out);
    }
}

static int one_file(ctx *c, const char *path, const char *arch_opt)
{
    sc_report *r = c->r;
    /* parsed once: each run below is undone after it (ra_undo) */
    ptx_module *m = ptx_load_to(path, 0, c->err);
    if (!m) return -1;
    char arch[32] = "";
    if (arch_opt) snprintf(arch, sizeof arch, "%s", arch_opt);
    else if (tc_target_arch(m, arch, sizeof arch)) note(r, "%s: no sm_ target and no --arch: ptxas not run", path);
    bool debug = tc_target_debug(m);
    blk_mark(c->blocks, m);
    uint32_t nb;
    char **names = body_names(m, &nb);
    bool run_px = c->ptxas && arch[0];
    cache_ent *cache = NULL;
    size_t ncache = 0;
    int rc = 0;
    sc_dynfile *df = sc_dyn_begin(r, path, m, c->err);
    if (df && df->failed) rc = -1;
    /* one program for every run, each undone after it (ra_undo) */
    prog *p = NULL;
    if (!rc) {
        ptx_diags d;
        ptx_diags_init(&d);
        if (!(p = prog_build(m, PROG_SSA, NULL, &d))) {
            ptx_diags_print(&d, path, m->src, m->src_len, c->err);
            rc = -1;
        }
        ptx_diags_free(&d);
    }
    static const enum ra_mode modes[3] = {RA_MODE_LINEAR, RA_MODE_DIV, RA_MODE_AFF};
    for (unsigned mi = 0; mi < 3 && !rc; mi++)
        for (unsigned bi = 0; bi < r->nbudgets && !rc; bi++) {
            ra_options o;
            memset(&o, 0, sizeof o);
            o.mode = modes[mi];
            o.blocks = c->blocks;
            o.budget = r->budgets[bi];
            o.keep_parsed = true;
            o.prog = p;
            ra_stats st;
            ptx_diags d;
            ptx_diags_init(&d);
            ra_undo *u = ra_undo_save(m);
            if (ra_run(m, &o, &st, &d)) {
                ptx_diags_print(&d, path, m->src, m->src_len, c->err);
                rc = -1;
            } else {
                size_t from = r->nrows;
                for (uint32_t k = 0; k < st.nfuncs && k < nb; k++) {
                    if (!st.funcs[k].is_entry) continue;
                    sc_row *w = add_row(r, path, names[k], mi, o.budget);
                    w->fs = st.funcs[k];
                }
                sc_dyn_rewritten(r, df, path, m, from);
                if (run_px) {
                    size_t len;
                    char *text = ptx_print_text(m, &len), what[700];
                    snprintf(what, sizeof what, "%s %s K=%u", path, ra_mode_name(o.mode), o.budget);
                    const cache_ent *e = ptxas_text(c, &cache, &ncache, text, len, arch, debug, what);
                    if (!e->rc) attach(r, from, &e->info);
                }
            }
            ra_stats_free(&st);
            ptx_diags_free(&d);
            ra_undo_apply(m, u);
        }
    if (r->target_regs && !rc) {
        if (run_px) target_file(c, path, m, p, arch);
        else note(r, "%s: --target-regs needs ptxas and an sm_ target: not run", path);
    }
    /* the reference: ptxas's own allocator held to K on the original */
    for (unsigned bi = 0; bi < r->nbudgets && !rc; bi++) {
        size_t from = r->nrows;
        for (uint32_t k = 0; k < nb; k++) {
            /* the rows of the pass name the kernels (entries) */
            bool entry = false;
            for (size_t i = 0; i < from && !entry; i++)
                entry = r->rows[i].file == path && !strcmp(r->rows[i].kernel, names[k]);
            if (entry) add_row(r, path, names[k], SC_PTXAS, r->budgets[bi]);
        }
        if (!run_px) continue;
        sc_ptxas_info info;
        char *log = NULL;
        if (sc_ptxas_run(c->ptxas, path, c->cubin, arch, debug, r->budgets[bi], &info, &log)) {
            char why[512];
            note(r, "%s ptxas -maxrregcount %u: ptxas failed: %s", path, r->budgets[bi],
                 sc_ptxas_why(log, why, sizeof why));
        } else {
            attach(r, from, &info);
            if (info.reg_lower_bound > r->budgets[bi])
                note(r, "ptxas -arch=%s raises -maxrregcount %u to its lower bound of %u", arch, r->budgets[bi],
                     info.reg_lower_bound);
            sc_ptxas_free(&info);
        }
        free(log);
    }
    sc_dyn_end(r, df);
    if (p) prog_free(p);
    ptx_module_free(m);
    for (size_t i = 0; i < ncache; i++) {
        free(cache[i].text);
        sc_ptxas_free(&cache[i].info);
    }
    free(cache);
    for (uint32_t k = 0; k < nb; k++) free(names[k]);
    free(names);
    return rc;
}

void sc_report_free(sc_report *r)
{
    free(r->targets);
    for (size_t i = 0; i < r->nrows; i++) free(r->rows[i].kernel);
    free(r->rows);
    for (size_t i = 0; i < r->nnotes; i++) free(r->notes[i]);
    free(r->notes);
    free(r->budgets);
    sc_launches_free(r);
}

/* One file's part of the report, made by a worker. */
typedef struct sc_part {
    sc_report r;
    int rc;
} sc_part;

typedef struct sc_batch {
    sc_report *r; /* the run's */
    char **files;
    const char *arch;
    ctx *w;       /* per worker */
    int rc;
} sc_batch;

static void *file_one(void *bctx, unsigned w, size_t i, FILE *err)
{
    sc_batch *b = bctx;
    ctx *c = &b->w[w];
    sc_part *p = calloc(1, sizeof *p);
    if (!p) abort();
    /* the run's settings; rows, notes and targets of its own */
    p->r.nbudgets = b->r->nbudgets;
    p->r.budgets = b->r->budgets;
    p->r.have_ptxas = b->r->have_ptxas;
    p->r.target_regs = b->r->target_regs;
    p->r.launch_path = b->r->launch_path;
    p->r.nlaunches = b->r->nlaunches;
    p->r.launches = c->launches;
    c->r = &p->r;
    c->err = err;
    p->rc = one_file(c, b->files[i], b->arch) ? 2 : 0;
    return p;
}

/* The file's rows, notes (each said once in the run) and targets after
 * the earlier files'; the first bad file stops the run. */
static bool file_take(void *bctx, size_t i, void *result)
{
    (void)i;
    sc_batch *b = bctx;
    sc_part *p = result;
    sc_report *r = b->r;
    if (!b->rc && !p->rc) {
        if (r->nrows + p->r.nrows > r->caprows) {
            r->caprows = (r->nrows + p->r.nrows) * 2;
            r->rows = realloc(r->rows, r->caprows * sizeof *r->rows);
            if (!r->rows) abort();
        }
        if (p->r.nrows) memcpy(r->rows + r->nrows, p->r.rows, p->r.nrows * sizeof *r->rows);
        r->nrows += p->r.nrows;
        p->r.nrows = 0;
        for (size_t k = 0; k < p->r.nnotes; k++) note(r, "%s", p->r.notes[k]);
        if (r->ntargets + p->r.ntargets > r->captargets) {
            r->captargets = (r->ntargets + p->r.ntargets) * 2;
            r->targets = realloc(r->targets, r->captargets * sizeof *r->targets);
            if (!r->targets) abort();
        }
        if (p->r.ntargets) memcpy(r->targets + r->ntargets, p->r.targets, p->r.ntargets * sizeof *r->targets);
        r->ntargets += p->r.ntargets;
    }
    if (!b->rc) b->rc = p->rc;
    /* the settings are the run's */
    p->r.budgets = NULL;
    p->r.launch_path = NULL;
    p->r.launches = NULL;
    p->r.nlaunches = 0;
    sc_report_free(&p->r);
    free(p);
    return !b->rc;
}

int sc_collect(sc_report *r, char **files, int n, const char *arch, blk_opts *blocks, unsigned jobs)
{
    const char *ptxas = tc_find_ptxas();
    r->have_ptxas = ptxas != NULL;
    if (!r->have_ptxas) note(r, "ptxas not found ($PTXAS, PATH, /usr/local/cuda/bin): the ptxas columns are \"-\"");
    if (!jobs) jobs = batch_default_jobs();
    if (jobs > (unsigned)n) jobs = n > 0 ? (unsigned)n : 1;
    ctx *w = calloc(jobs, sizeof *w);
    if (!w) abort();
    for (unsigned k = 0; k < jobs; k++) {
        w[k].ptxas = ptxas;
        w[k].blocks = malloc(sizeof *w[k].blocks);
        w[k].launches = malloc(sizeof *w[k].launches * (r->nlaunches ? r->nlaunches : 1));
        if (!w[k].blocks || !w[k].launches) abort();
        *w[k].blocks = *blocks;
        if (r->nlaunches) memcpy(w[k].launches, r->launches, sizeof *r->launches * r->nlaunches);
        snprintf(w[k].dir, sizeof w[k].dir, "/tmp/ptxray-spillcostXXXXXX");
        if (w[k].ptxas && !mkdtemp(w[k].dir)) {
            note(r, "could not create a temporary directory: ptxas not run");
            w[k].ptxas = NULL;
        }
        if (w[k].ptxas) {
            snprintf(w[k].ptx, sizeof w[k].ptx, "%s/x.ptx", w[k].dir);
            snprintf(w[k].cubin, sizeof w[k].cubin, "%s/x.cubin", w[k].dir);
        }
    }
    sc_batch b = {r, files, arch, w, 0};
    batch_opts bo = {jobs, "spillcost", files};
    batch_run((size_t)n, &bo, file_one, file_take, &b);
    int rc = b.rc;
    for (unsigned k = 0; k < jobs; k++) {
        for (uint32_t e = 0; e < blocks->n; e++) blocks->k[e].seen |= w[k].blocks->k[e].seen;
        for (size_t i = 0; i < r->nlaunches; i++) r->launches[i].seen |= w[k].launches[i].seen;
        if (w[k].ptxas) {
            unlink(w[k].ptx);
            unlink(w[k].cubin);
            rmdir(w[k].dir);
        }
        free(w[k].blocks);
        free(w[k].launches);
    }
    free(w);
    if (!rc && !blk_check_seen(blocks, "spillcost")) rc = 2;
    /* a run asks for a kernel: one that no file has is a misspelt name
     * or a file left out, not a launch to skip (docs/launches.md) */
    for (size_t i = 0; !rc && i < r->nlaunches; i++)
        if (!r->launches[i].seen) {
            fprintf(stderr,
                    "ptxray spillcost: %s: no kernel named '%s' in the files; give its symbol or its C++ name, in "
                    "full or without its parameters:\n",
                    r->launches[i].where, r->launches[i].kernel);
            for (int f = 0; f < n; f++) {
                ptx_module *m = ptx_load_to(files[f], 1, stderr);
                if (n > 1) fprintf(stderr, " %s:\n", files[f]);
                if (m) ptx_names_print(stderr, m, true);
                ptx_module_free(m);
            }
            rc = 2;
        }
    return rc;
}
