#include "ra_target.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "printer.h"
#include "toolchain.h"

long ra_ptxas_spill_bytes(const char *log)
{
    long sum = 0;
    for (const char *p = log; p && (p = strstr(p, " bytes spill ")); p++) {
        /* the number just before: "N bytes spill stores" / "N bytes spill loads" */
        const char *q = p;
        while (q > log && q[-1] >= '0' && q[-1] <= '9') q--;
        sum += strtol(q, NULL, 10);
    }
    return sum;
}

/* Spill bytes of function name in log: the "Function properties for NAME"
 * blocks, summed (a .func is listed under each kernel that calls it).  A
 * name of 127 bytes is ra_func_stats's truncation: matched as a prefix. */
static long fn_spill(const char *log, const char *name)
{
    static const char key[] = "Function properties for ";
    size_t n = strlen(name);
    long sum = 0;
    for (const char *p = log; p && (p = strstr(p, key)); p++) {
        const char *q = p + sizeof key - 1;
        if (strncmp(q, name, n) || (q[n] != '\n' && n < 127)) continue;
        const char *e = strchr(q, '\n');
        if (!e) break;
        const char *eol = strchr(e + 1, '\n');
        size_t k = eol ? (size_t)(eol - e) : strlen(e);
        char line[256];
        if (k >= sizeof line) k = sizeof line - 1;
        memcpy(line, e, k);
        line[k] = 0;
        sum += ra_ptxas_spill_bytes(line);
    }
    return sum;
}

/* ptxas -v on text; its spill bytes, or -1 (log shown) when it fails.
 * *logp (when given): ptxas's log, malloc'd. */
static long assemble(FILE *err, const char *cmd, const char *dir, const char *what, const char *text, size_t len,
                     const char *arch, unsigned nregs, int debug, char **logp)
{
    char ptx[4200], cubin[4200], archopt[80], maxr[32];
    snprintf(ptx, sizeof ptx, "%s/cand.ptx", dir);
    snprintf(cubin, sizeof cubin, "%s/cand.cubin", dir);
    snprintf(archopt, sizeof archopt, "-arch=%s", arch);
    snprintf(maxr, sizeof maxr, "%u", nregs);
    if (tc_write_file(ptx, text, len)) {
        fprintf(err, "ptxray %s: cannot write %s\n", cmd, ptx);
        return -1;
    }
    const char *ptxas = tc_find_ptxas();
    char *argv[] = {(char *)ptxas, archopt, "-v", "-maxrregcount", maxr, "-o", cubin, ptx, debug ? "-g" : NULL, NULL};
    char *log = NULL;
    int rc = tc_run(argv, &log);
    long s = ra_ptxas_spill_bytes(log);
    if (rc) {
        fprintf(err, "ptxray %s: ptxas %s on %s (status %d)\n%s", cmd, rc < 0 ? "could not be run" : "failed",
                what, rc, log ? log : "");
        s = -1;
    }
    if (logp && s >= 0) *logp = log;
    else free(log);
    unlink(ptx);
    unlink(cubin);
    return s;
}

/* One function's search: its budgets from its own pressure down, and the
 * one at which ptxas spilled least for it. */
typedef struct fsearch {
    char name[128];
    unsigned pressure, step, cur; /* cur: this round's budget, 0 when done */
    unsigned best_budget;         /* 0: none spilled less than alone */
    long alone, best;
} fsearch;

typedef struct search {
    fsearch *f;
    uint32_t n;
    bool final; /* each function at its best budget, else at cur */
} search;

static unsigned budget_of(const void *ctx, const ptx_func *fn)
{
    const search *s = ctx;
    for (uint32_t i = 0; i < s->n; i++) {
        const fsearch *f = &s->f[i];
        size_t n = strlen(f->name);
        if ((fn->name.n == n || (n == 127 && fn->name.n > n)) && !memcmp(fn->name.p, f->name, n))
            return s->final ? f->best_budget : f->cur;
    }
    return 0; /* not searched: left as it is */
}

/* The input rewritten with s's budgets (o's mode and options plus
 * only_nonlocal), printed; malloc'd. */
static char *candidate(ptx_module *m, const ra_options *o, prog *p, const search *s, size_t *len)
{
    ra_options co = *o;
    co.prog = p;
    co.budget = 65535;
    co.only_nonlocal = true;
    co.budget_of = budget_of;
    co.budget_ctx = s;
    co.keep_parsed = true;
    ptx_diags d;
    ptx_diags_init(&d);
    ra_undo *u = ra_undo_save(m);
    ra_stats st;
    if (ra_run(m, &co, &st, &d)) abort(); /* it ran before, on the same module */
    ra_stats_free(&st);
    ptx_diags_free(&d);
    char *text = ptx_print_text(m, len);
    ra_undo_apply(m, u);
    return text;
}

int ra_target_regs(const char *cmd, ptx_module *m, unsigned nregs, const char *arch, const ra_options *o,
                   char **out, size_t *outlen, ra_target_result *res, FILE *err)
{
    memset(res, 0, sizeof *res);
    *out = NULL;
    char archbuf[64];
    if (!arch) {
        if (tc_target_arch(m, archbuf, sizeof archbuf)) {
            fprintf(err, "ptxray %s: the module has no .target sm_XX: give --arch\n", cmd);
            return 2;
        }
        arch = archbuf;
    }
    if (!tc_find_ptxas()) {
        fprintf(err, "ptxray %s: --target-regs needs ptxas (looked at $PTXAS, PATH and /usr/local/cuda/bin)\n",
                cmd);
        return 2;
    }
    char dir[] = "/tmp/ptxray-tregsXXXXXX";
    if (!mkdtemp(dir)) {
        fprintf(err, "ptxray %s: cannot make a temporary directory\n", cmd);
        return 2;
    }
    int debug = tc_target_debug(m);
    int rc = 0;
    size_t inlen;
    char *input = ptx_print_text(m, &inlen), *prev = NULL, *best = NULL, *log = NULL;
    size_t prevlen = 0, bestlen = 0;
    search sr = {0};
    prog *own = NULL; /* the program built here, when o has none */
    res->alone = res->with = assemble(err, cmd, dir, "the input", input, inlen, arch, nregs, debug, &log);
    if (res->alone < 0) {
        rc = 2;
        goto done;
    }
    /* the input's pressure per function: a run with a budget nothing reaches */
    ra_options po = *o;
    po.budget = 65535;
    po.keep_parsed = true;
    ptx_diags d;
    ptx_diags_init(&d);
    /* one program for the pressure run and every candidate, each undone
     * after it (ra_undo) */
    if (!po.prog) po.prog = own = prog_build(m, PROG_SSA, o->only, &d);
    ra_stats st;
    bool bad = !po.prog;
    if (!bad) {
        ra_undo *u = ra_undo_save(m);
        bad = ra_run(m, &po, &st, &d) != 0;
        ra_undo_apply(m, u);
    }
    if (bad) {
        ptx_diags_print(&d, "<input>", m->src, m->src_len, err);
        ptx_diags_free(&d);
        rc = 2;
        goto done;
    }
    /* the functions ptxas spills in alone are searched, each from its own
     * pressure down: one module-wide budget from the highest pressure
     * misses the budgets that help a smaller function of the same module */
    sr.f = calloc(st.nfuncs + 1, sizeof *sr.f);
    if (!sr.f) abort();
    for (uint32_t i = 0; i < st.nfuncs; i++) {
        const ra_func_stats *fs = &st.funcs[i];
        if (fs->pressure_before > res->pressure) res->pressure = fs->pressure_before;
        long a = fn_spill(log, fs->name);
        if (a <= 0 || fs->pressure_before < 2) continue;
        fsearch *f = &sr.f[sr.n++];
        snprintf(f->name, sizeof f->name, "%s", fs->name);
        f->pressure = fs->pressure_before;
        f->step = f->pressure / 32 + 1;
        f->cur = f->pressure - 1;
        f->alone = f->best = a;
    }
    ra_stats_free(&st);
    ptx_diags_free(&d);
    free(log);
    log = NULL;
    /* Rounds: every searched function one step further down (at most
     * about 32 budgets each).  Each distinct candidate is assembled (one
     * equal to the one before -- nothing more could move -- or to the
     * input is not); per function, the budget ptxas spilled least for
     * is kept, the higher budget (fewer values moved) on a tie.  ptxas's
     * spill bytes are not monotonic in the budget: moving more values
     * frees registers in one place and adds slot-address code in another,
     * so the first budget that helps is often not the best.  The whole
     * candidate that spilled least is kept too. */
    for (;;) {
        unsigned top = 0;
        for (uint32_t i = 0; i < sr.n; i++)
            if (sr.f[i].cur > top) top = sr.f[i].cur;
        if (!top || res->alone <= 0) break;
        size_t len;
        char *text = candidate(m, o, po.prog, &sr, &len);
        bool same = (prev && len == prevlen && !memcmp(text, prev, len)) || (len == inlen && !memcmp(text, input, len));
        long s = -1;
        if (same)
            free(text);
        else {
            free(prev);
            prev = text;
            prevlen = len;
            char what[64];
            snprintf(what, sizeof what, "the output at budget %u", top);
            s = assemble(err, cmd, dir, what, text, len, arch, nregs, debug, &log);
            res->tried++;
            if (s < 0) {
                rc = 2;
                goto done;
            }
            for (uint32_t i = 0; i < sr.n; i++) {
                fsearch *f = &sr.f[i];
                if (!f->cur) continue;
                long fsb = fn_spill(log, f->name);
                if (fsb < f->best) f->best = fsb, f->best_budget = f->cur;
            }
            free(log);
            log = NULL;
            if (s < res->with) {
                res->with = s;
                res->budget = top;
                free(best);
                best = malloc(len + 1);
                if (!best) abort();
                memcpy(best, text, len + 1);
                bestlen = len;
            }
        }
        for (uint32_t i = 0; i < sr.n; i++) {
            fsearch *f = &sr.f[i];
            f->cur = f->cur > f->step ? f->cur - f->step : 0;
            if (!f->best) f->cur = 0; /* nothing left to win for it */
        }
    }
    /* each function at its own best budget, when that is not one of the
     * candidates already assembled */
    unsigned nbest = 0, topbest = 0;
    for (uint32_t i = 0; i < sr.n; i++)
        if (sr.f[i].best_budget) {
            nbest++;
            if (sr.f[i].best_budget > topbest) topbest = sr.f[i].best_budget;
        }
    if (nbest) {
        sr.final = true;
        size_t len;
        char *text = candidate(m, o, po.prog, &sr, &len);
        if (!(best && len == bestlen && !memcmp(text, best, len))) {
            long s = assemble(err, cmd, dir, "the output at each function's best budget", text, len, arch, nregs, debug,
                              NULL);
            res->tried++;
            if (s < 0) {
                free(text);
                rc = 2;
                goto done;
            }
            if (s < res->with) {
                res->with = s;
                res->budget = topbest;
                free(best);
                best = text;
                bestlen = len;
                text = NULL;
            }
        }
        free(text);
    }
    if (best) {
        *out = best;
        *outlen = bestlen;
    } else {
        *out = input;
        *outlen = inlen;
        input = NULL;
    }
done:
    if (own) prog_free(own);
    if (rc) free(best);
    free(log);
    free(sr.f);
    free(prev);
    free(input);
    rmdir(dir);
    return rc;
}

void ra_target_print(FILE *f, const char *shown, unsigned nregs, const ra_target_result *r)
{
    if (r->budget)
        fprintf(f, "%s: -maxrregcount %u: ptxas alone: %ld bytes spilled; with the pass (budget %u): %ld bytes\n",
                shown, nregs, r->alone, r->budget, r->with);
    else
        fprintf(f, "%s: -maxrregcount %u: ptxas alone: %ld bytes spilled; no budget below the pressure (%u) "
                   "spilled less (%u tried): the output is the input\n",
                shown, nregs, r->alone, r->pressure, r->tried);
}
