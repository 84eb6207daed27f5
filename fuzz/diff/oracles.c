/* The differential oracles (oracles.h; docs/testing.md). */
#include "oracles.h"
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "coalescing.h"
#include "div_report.h"
#include "divcheck.h"
#include "emu.h"
#include "printer.h"
#include "program.h"
#include "ptx.h"
#include "regalloc.h"
#include "run_args.h"
#include "semantics.h"
#include "toolchain.h"
#include "uniformize.h"

static const enum ra_mode modes[3] = {RA_MODE_LINEAR, RA_MODE_DIV, RA_MODE_AFF};

const char *dt_oracle_name(enum dt_oracle o)
{
    static const char *const n[] = {"generator", "rewrite", "ptxas", "divergence", "coalescing", "bank-conflicts"};
    return o < DT_NORACLES ? n[o] : "?";
}

bool dt_parse_launch(char *line, dt_launch *L)
{
    memset(L, 0, sizeof *L);
    char *tok[DT_MAX_ARGS + 3];
    unsigned n = 0;
    for (char *s = NULL, *t = strtok_r(line, " \t\r\n", &s); t; t = strtok_r(NULL, " \t\r\n", &s)) {
        if (n == DT_MAX_ARGS + 3) return false;
        tok[n++] = t;
    }
    if (n < 3) return false;
    snprintf(L->kernel, sizeof L->kernel, "%s", tok[0]);
    for (int d = 0; d < 2; d++) {
        uint32_t *v = d ? L->block : L->grid;
        v[0] = v[1] = v[2] = 1;
        char *p = tok[1 + d];
        for (int i = 0; i < 3 && *p; i++) {
            char *e;
            unsigned long x = strtoul(p, &e, 10);
            if (e == p || !x) return false;
            v[i] = (uint32_t)x;
            p = *e == ',' ? e + 1 : e;
        }
    }
    L->nargs = n - 3;
    for (unsigned i = 0; i < L->nargs; i++) L->args[i] = tok[3 + i];
    return true;
}

bool dt_header(const char *text, const char *key, char *out, size_t n)
{
    char pat[64];
    snprintf(pat, sizeof pat, "// %s: ", key);
    const char *p = strstr(text, pat);
    if (!p) return false;
    p += strlen(pat);
    size_t k = strcspn(p, "\n");
    snprintf(out, n, "%.*s", (int)k, p);
    return true;
}

/* ---- one kernel ------------------------------------------------------------------------------ */

typedef struct acc_obs {
    /* per access: global sectors or shared degree, full-warp requests of the worst warp */
    uint32_t max_any, worst_min, worst_max;
    uint64_t n, worst_n;
} acc_obs;

typedef struct run_ctx {
    const char *name;
    const dt_opts *o;
    dt_counts *c;
    unsigned fails;
    FILE *log;
    const ptx_module *m;
    prog *p;
    coal_result *cr;
    uint32_t **idx;  /* per function of cr: statement -> access + 1 */
    acc_obs **obs;   /* per function, per access */
    divcheck *dc[4];
    emu_machine *R;  /* the running reference (for emu_host) */
    const ptx_func *last_fn;
    uint32_t last_fi;
    emu_observer ob;
    char first[4][600]; /* first failure message per oracle kind */
} run_ctx;

static void fail(run_ctx *k, enum dt_oracle o, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fail(run_ctx *k, enum dt_oracle o, const char *fmt, ...)
{
    k->fails++;
    k->c->failures[o]++;
    fprintf(k->log, "%s: %s: ", k->name, dt_oracle_name(o));
    va_list ap;
    va_start(ap, fmt);
    vfprintf(k->log, fmt, ap);
    va_end(ap);
    fputc('\n', k->log);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Distinct 32-byte sectors of the lanes in m (an access may straddle two),
 * as emu/checks_mem.c counts them. */
static unsigned sectors_of(const uint64_t *a, uint32_t m, unsigned bytes)
{
    uint64_t s[64];
    unsigned n = 0;
    for (unsigned l = 0; l < 32; l++) {
        if (!(m >> l & 1)) continue;
        uint64_t x = a[l], e = x + (bytes ? bytes - 1 : 0);
        s[n++] = x >> 5;
        if ((e >> 5) != (x >> 5)) s[n++] = e >> 5;
    }
    qsort(s, n, sizeof *s, cmp_u64);
    unsigned d = n ? 1 : 0;
    for (unsigned i = 1; i < n; i++) d += s[i] != s[i - 1];
    return d;
}

/* Bank-conflict degree of 4-byte shared accesses: the most distinct words
 * in one bank (lanes on one word: a broadcast), or for atomics the most
 * lanes in one bank (they serialise). */
static unsigned degree_of(const uint64_t *a, uint32_t m, bool atomic)
{
    uint64_t w[32];
    unsigned n = 0, best = 0;
    for (unsigned l = 0; l < 32; l++)
        if (m >> l & 1) w[n++] = a[l] >> 2;
    if (!atomic) {
        qsort(w, n, sizeof *w, cmp_u64);
        unsigned k = 0;
        for (unsigned i = 0; i < n; i++)
            if (!i || w[i] != w[i - 1]) w[k++] = w[i];
        n = k;
    }
    unsigned cnt[32] = {0};
    for (unsigned i = 0; i < n; i++)
        if (++cnt[w[i] & 31] > best) best = cnt[w[i] & 31];
    return best;
}

/* The lanes' addresses of access x ([reg+off] or [sym+off]). */
static bool lane_addrs(run_ctx *k, const emu_event *ev, const coal_access *x, uint64_t *a)
{
    ptx_inst_sem sem;
    ptx_inst_semantics(x->in, &sem);
    unsigned oi = sem.src_addr_opd != PTX_SEM_NO_OPD ? sem.src_addr_opd : sem.addr_opd;
    if (oi == PTX_SEM_NO_OPD || oi >= x->in->nopd) return false;
    const ptx_operand *o = &x->in->opd[oi];
    if (o->kind != PTX_O_ADDR || o->n != 1) return false;
    const ptx_operand *b = &o->p.elems[0];
    if (b->kind != PTX_O_REG) return false;
    (void)k;
    for (unsigned l = 0; l < 32; l++)
        if (ev->active_mask >> l & 1) a[l] = emu_event_reg(ev, b->n, b->comp, l) + (uint64_t)o->v;
    return true;
}

static void observe(void *user, const emu_event *ev)
{
    run_ctx *k = user;
    for (int i = 0; i < 4; i++) {
        const emu_observer *d = divcheck_observer(k->dc[i]);
        if (d && d->on_inst) d->on_inst(d->user, ev);
    }
    if (ev->phase != EMU_OBS_BEFORE || !ev->active_mask) return;
    const coal_result *r = k->cr;
    if (ev->fn != k->last_fn) {
        k->last_fn = ev->fn;
        k->last_fi = UINT32_MAX;
        for (uint32_t i = 0; i < r->nfuncs; i++)
            if (r->f[i].pf->fn == ev->fn) k->last_fi = i;
    }
    if (k->last_fi == UINT32_MAX) return;
    uint32_t ai = k->idx[k->last_fi][ev->stmt];
    if (!ai) return;
    const coal_access *x = &r->f[k->last_fi].acc[ai - 1];
    uint64_t a[32];
    if (!lane_addrs(k, ev, x, a)) return;
    uint32_t m = ev->active_mask;
    unsigned v;
    int32_t bound, exact;
    if (x->space == COAL_GLOBAL) {
        if (!x->explicit_space || x->prefetch) return;
        v = sectors_of(a, m, x->bytes);
        /* sectors is exact only where the model says the count does not
         * depend on an alignment it takes as aligned (align_dep); else it
         * is the aligned case and only the bound is a claim */
        bound = x->sectors_max, exact = x->align_dep == COAL_ALIGN_NONE ? x->sectors : -1;
        k->c->g_requests++;
    } else {
        if (x->bytes != 4 || x->bank_cond) return;
        v = degree_of(a, m, x->kind == COAL_ATOMIC);
        bound = x->bank_degree_max, exact = x->bank_degree;
        k->c->s_requests++;
    }
    acc_obs *s = &k->obs[k->last_fi][ai - 1];
    s->n++;
    if (v > s->max_any) s->max_any = v;
    if (bound >= 0 && v > (uint32_t)bound)
        fail(k, x->space == COAL_GLOBAL ? DT_COALESCING : DT_BANK,
             "line %u %s: block (%u,%u,%u) warp %u lanes 0x%08x: measured %u %s, static bound %d (exact %d)",
             ev->fn->stmts[ev->stmt]->loc.line, x->space == COAL_GLOBAL ? "global" : "shared", ev->block.x, ev->block.y, ev->block.z,
             ev->warp, m, v, x->space == COAL_GLOBAL ? "sectors" : "ways", bound, exact);
    if (exact >= 0 && m == 0xffffffffu && ev->warp == x->worst_warp) {
        if (!s->worst_n++) s->worst_min = s->worst_max = v;
        if (v < s->worst_min) s->worst_min = v;
        if (v > s->worst_max) s->worst_max = v;
    }
}

/* Memory of two machines equal: the first difference into buf. */
static bool same_globals(const emu_machine *a, const emu_machine *b, char *buf, size_t n)
{
    if (emu_global_count(a) != emu_global_count(b)) {
        snprintf(buf, n, "%u global buffers, not %u", emu_global_count(b), emu_global_count(a));
        return false;
    }
    for (unsigned i = 0; i < emu_global_count(a); i++) {
        size_t na, nb;
        const uint8_t *x = emu_global_get(a, i, NULL, &na), *y = emu_global_get(b, i, NULL, &nb);
        if (na != nb) {
            snprintf(buf, n, "buffer %u has %zu bytes, not %zu", i, nb, na);
            return false;
        }
        for (size_t j = 0; j < na; j++)
            if (x[j] != y[j]) {
                snprintf(buf, n, "buffer %u byte %zu: 0x%02x, not 0x%02x", i, j, y[j], x[j]);
                return false;
            }
    }
    return true;
}

static char *print_module(const ptx_module *m, size_t *len)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    if (!f) abort();
    ptx_print_module(f, m);
    fclose(f);
    *len = n;
    return buf;
}

static bool ptxas_ok(const dt_opts *o, const char *text, size_t len, char *why, size_t n)
{
    char path[] = "/tmp/ptxray-difftest-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) return snprintf(why, n, "cannot write a temporary file"), false;
    bool ok = write(fd, text, len) == (ssize_t)len;
    close(fd);
    char *log = NULL;
    char *argv[] = {(char *)o->ptxas_path, "-arch=sm_80", path, "-o", "/dev/null", NULL};
    int rc = ok ? tc_run(argv, &log) : -1;
    unlink(path);
    if (rc) {
        snprintf(why, n, "%.300s", log ? log : "cannot run ptxas");
        char *nl = strchr(why, '\n');
        if (nl) *nl = 0;
    }
    free(log);
    return rc == 0;
}

/* Launches module m (NULL: the snapshot's own) on a copy of S under a
 * schedule; the machine after it, status in *st. */
static emu_machine *relaunch(const emu_machine *S, const ptx_module *m, const dt_launch *L, const emu_arg *args,
                             emu_schedule sch, uint64_t seed, uint64_t max_steps, FILE *devnull, emu_status *st)
{
    emu_options eo;
    memset(&eo, 0, sizeof eo);
    eo.schedule = sch;
    eo.seed = seed;
    eo.max_steps = max_steps;
    eo.printf_out = devnull;
    emu_machine *M = m ? emu_clone_module(S, m, &eo) : emu_clone(S, &eo);
    if (!M) {
        *st = EMU_ERR_USAGE;
        return NULL;
    }
    emu_dim3 g = {L->grid[0], L->grid[1], L->grid[2]}, b = {L->block[0], L->block[1], L->block[2]};
    *st = emu_launch(M, L->kernel, g, b, args, L->nargs, NULL);
    return M;
}

/* The rewritten module m2 under the three schedules against R. */
static void run_schedules(run_ctx *k, const emu_machine *S, const emu_machine *R, const ptx_module *m2,
                          const dt_launch *L, const emu_arg *args, uint64_t limit, FILE *devnull, const char *what,
                          bool orig)
{
    static const emu_schedule sch[3] = {EMU_SCHED_LOCKSTEP, EMU_SCHED_INTERLEAVE, EMU_SCHED_ITS};
    static const char *const sname[3] = {"lockstep", "interleave", "its"};
    for (int i = orig ? 1 : 0; i < 3; i++) {
        emu_status st;
        emu_machine *M = relaunch(S, m2, L, args, sch[i], k->o->sched_seed, limit, devnull, &st);
        char diff[200] = "";
        if (orig) k->c->orig_runs++;
        else k->c->runs++;
        if (!M) fail(k, DT_REWRITE, "%s: the machine cannot be copied for it", what);
        else if (st != EMU_OK)
            fail(k, DT_REWRITE, "%s --schedule %s --seed %llu: %s", what, sname[i],
                 (unsigned long long)k->o->sched_seed, emu_status_name(st));
        else if (!same_globals(R, M, diff, sizeof diff))
            fail(k, DT_REWRITE, "%s --schedule %s --seed %llu differs from the original's lock-step run: %s", what,
                 sname[i], (unsigned long long)k->o->sched_seed, diff);
        emu_destroy(M);
    }
}

static void check_ptxas(run_ctx *k, const char *what, const char *text, size_t len)
{
    if (!k->o->ptxas || !k->o->ptxas_path) return;
    char why[400];
    k->c->ptxas_checked++;
    if (!ptxas_ok(k->o, text, len, why, sizeof why)) fail(k, DT_PTXAS, "%s rejected: %s", what, why);
}

/* uniformize's output for the original text (at the launch shape when
 * block is set, else at the default assumption), parsed; NULL on error. */
static ptx_module *uniformized(run_ctx *k, const char *ptx, size_t len, const char *block, char **text, size_t *tlen)
{
    char in[] = "/tmp/ptxray-uni-in-XXXXXX", out[] = "/tmp/ptxray-uni-out-XXXXXX";
    int fi = mkstemp(in), fo = mkstemp(out);
    if (fi < 0 || fo < 0) abort();
    if (write(fi, ptx, len) != (ssize_t)len) abort();
    close(fi);
    close(fo);
    dr_config c;
    memset(&c, 0, sizeof c);
    c.analysis = DIV_AN_AFFINE;
    if (block && dr_option('b', block, &c, "difftest")) abort();
    /* its summary line on stderr is not wanted */
    fflush(stderr);
    int save = dup(2), dn = open("/dev/null", O_WRONLY);
    dup2(dn, 2);
    int rc = uni_run(in, NULL, &c, out);
    fflush(stderr);
    dup2(save, 2);
    close(save);
    close(dn);
    ptx_module *m = NULL;
    *text = NULL;
    if (rc) fail(k, DT_REWRITE, "uniformize%s%s fails (exit %d)", block ? " --block " : "", block ? block : "", rc);
    else {
        FILE *f = fopen(out, "rb");
        if (!f) abort();
        fseek(f, 0, SEEK_END);
        long n = ftell(f);
        fseek(f, 0, SEEK_SET);
        *text = malloc((size_t)n + 1);
        if (!*text || fread(*text, 1, (size_t)n, f) != (size_t)n) abort();
        (*text)[n] = 0;
        *tlen = (size_t)n;
        fclose(f);
        ptx_diags d;
        ptx_diags_init(&d);
        m = ptx_parse_string(k->name, *text, *tlen, &d);
        ptx_diags_free(&d);
        if (!m) fail(k, DT_REWRITE, "uniformize's output does not parse");
    }
    unlink(in);
    unlink(out);
    return m;
}

unsigned dt_check(const char *name, const char *ptx, size_t len, const dt_launch *L, const dt_opts *o, dt_counts *c)
{
    run_ctx K;
    memset(&K, 0, sizeof K);
    run_ctx *k = &K;
    k->name = name, k->o = o, k->c = c, k->log = o->log ? o->log : stderr;
    c->kernels++;
    FILE *devnull = fopen("/dev/null", "w");
    if (!devnull) abort();
    ptx_diags d;
    ptx_diags_init(&d);
    ptx_module *m = ptx_parse_string(name, ptx, len, &d);
    if (!m || d.nerrors) {
        fail(k, DT_GEN, "does not parse (%u errors)", d.nerrors);
        ptx_diags_free(&d);
        ptx_module_free(m);
        fclose(devnull);
        return k->fails;
    }
    k->m = m;
    check_ptxas(k, "the original", ptx, len);

    /* the inputs: a machine with the arguments made, not launched */
    emu_options eo;
    memset(&eo, 0, sizeof eo);
    eo.printf_out = devnull;
    run_args RA;
    memset(&RA, 0, sizeof RA);
    emu_machine *S = RA.M = emu_create(m, &eo);
    emu_param_info pinfo[DT_MAX_ARGS];
    uint8_t *bytes[DT_MAX_ARGS] = {0};
    emu_arg args[DT_MAX_ARGS];
    int np = emu_kernel_params(S, L->kernel, pinfo, DT_MAX_ARGS);
    bool ok = np >= 0 && (unsigned)np == L->nargs;
    if (!ok) fail(k, DT_GEN, "kernel %s takes %d parameters, %u given", L->kernel, np, L->nargs);
    for (unsigned i = 0; ok && i < L->nargs; i++) {
        bytes[i] = calloc(pinfo[i].size ? pinfo[i].size : 1, 1);
        if (!bytes[i]) abort();
        if (!run_argument(&RA, L->args[i], &pinfo[i], bytes[i])) {
            fail(k, DT_GEN, "argument %u '%s': %s", i + 1, L->args[i], RA.err);
            ok = false;
        }
        args[i] = (emu_arg){bytes[i], pinfo[i].size};
    }
    emu_dim3 grid = {L->grid[0], L->grid[1], L->grid[2]}, block = {L->block[0], L->block[1], L->block[2]};
    char blk[48];
    snprintf(blk, sizeof blk, "%u,%u,%u", block.x, block.y, block.z);

    /* the analyses at the launch shape */
    if (ok) {
        k->p = prog_build(m, PROG_GSA, NULL, &d);
        if (!k->p) {
            fail(k, DT_GEN, "the program cannot be built");
            ok = false;
        }
    }
    arena ar;
    arena_init(&ar);
    if (ok) {
        blk_opts bo = {.all = {block.x, block.y, block.z}};
        coal_options co = {.blocks = &bo};
        k->cr = coal_analyse(m, k->p, &co, &ar);
        k->idx = calloc(k->cr->nfuncs + 1, sizeof *k->idx);
        k->obs = calloc(k->cr->nfuncs + 1, sizeof *k->obs);
        for (uint32_t i = 0; i < k->cr->nfuncs; i++) {
            const coal_func *f = &k->cr->f[i];
            k->idx[i] = calloc(f->pf->fn->nstmts + 1, sizeof **k->idx);
            k->obs[i] = calloc(f->nacc + 1, sizeof **k->obs);
            for (uint32_t a = 0; a < f->nacc; a++) k->idx[i][f->acc[a].stmt] = a + 1;
            for (uint32_t a = 0; a < f->nacc; a++) {
                if (f->acc[a].space == COAL_GLOBAL) c->g_accesses++;
                else c->s_accesses++;
            }
        }
        static const enum div_analysis an[4] = {DIV_AN_SIMPLE, DIV_AN_AFFINE, DIV_AN_AFFINE2, DIV_AN_AFFINE};
        for (int i = 0; i < 4; i++) {
            k->dc[i] = divcheck_new(m, an[i], &d);
            if (!k->dc[i]) {
                fail(k, DT_GEN, "divcheck cannot be built");
                ok = false;
                break;
            }
            if (i == 3) divcheck_set_shape(k->dc[i], DIVCHECK_SHAPE_ASSUMED);
            divcheck_begin(k->dc[i], block);
        }
    }

    /* the reference: lock-step, with every check */
    emu_machine *R = NULL;
    uint64_t limit = 0;
    if (ok) {
        emu_options ro = eo;
        k->ob = (emu_observer){observe, k};
        ro.observer = &k->ob;
        ro.checks = EMU_CHECK_COALESCING | EMU_CHECK_BANK;
        /* a generated kernel runs a few million warp-instructions at most
         * (loops of at most 5 trips); a saved one cut down by fuzz/reduce.py
         * may loop forever: it stops here, as a kernel that does not run */
        ro.max_steps = 100000000;
        R = emu_clone(S, &ro);
        ptx_diags rd;
        ptx_diags_init(&rd);
        emu_status st = emu_launch(R, L->kernel, grid, block, args, L->nargs, &rd);
        ptx_diags_free(&rd);
        if (st != EMU_OK) {
            fail(k, DT_GEN, "the original's lock-step run stops: %s", emu_status_name(st));
            ok = false;
        }
        limit = (emu_last_stats(R)->warp_insts + 20000) * 64;
    }
    if (ok) {
        /* divergence claims */
        for (int i = 0; i < 4; i++) {
            divcheck_totals t;
            divcheck_get_totals(k->dc[i], &t);
            c->claims[i] += t.values + t.phis + t.branches + t.splits;
            if (i == 3) c->skipped += t.skipped_values + t.skipped_phis + t.skipped_branches + t.skipped_splits;
            c->wrapped += t.wrapped;
            for (uint32_t v = 0; v < divcheck_nviolations(k->dc[i]); v++) {
                char msg[600];
                const divcheck_violation *x = divcheck_get_violation(k->dc[i], v);
                fail(k, DT_DIVERGENCE, "line %u: %s%s", x->fn->stmts[x->stmt]->loc.line,
                     divcheck_message(k->dc[i], v, msg, sizeof msg), i == 3 ? " (default assumption)" : "");
            }
        }
        /* exact figures of the worst warp */
        for (uint32_t i = 0; i < k->cr->nfuncs; i++)
            for (uint32_t a = 0; a < k->cr->f[i].nacc; a++) {
                const coal_access *x = &k->cr->f[i].acc[a];
                const acc_obs *s = &k->obs[i][a];
                bool g = x->space == COAL_GLOBAL;
                int32_t exact = g ? (x->align_dep == COAL_ALIGN_NONE ? x->sectors : -1) : x->bank_degree;
                if (!s->worst_n || exact < 0) continue;
                if (g) c->g_exact++;
                else c->s_exact++;
                if (s->worst_min != (uint32_t)exact || s->worst_max != (uint32_t)exact)
                    fail(k, g ? DT_COALESCING : DT_BANK,
                         "line %u %s: static exact %d %s (worst warp %u), measured %u..%u over its %llu full-warp "
                         "requests",
                         k->cr->f[i].pf->fn->stmts[x->stmt]->loc.line, g ? "global" : "shared", exact, g ? "sectors" : "ways", x->worst_warp,
                         s->worst_min, s->worst_max, (unsigned long long)s->worst_n);
            }
        /* the original under the other schedules */
        run_schedules(k, S, R, NULL, L, args, limit, devnull, "the original", true);
        /* regalloc's rewrites */
        for (unsigned b = 0; b < o->nbudgets; b++)
            for (unsigned md = 0; md < 3; md++) {
                char what[96];
                snprintf(what, sizeof what, "regalloc --mode %s --budget %u", ra_mode_name(modes[md]), o->budgets[b]);
                ptx_diags rd;
                ptx_diags_init(&rd);
                ptx_module *m1 = ptx_parse_string(name, ptx, len, &rd);
                ra_options ro;
                memset(&ro, 0, sizeof ro);
                ro.mode = modes[md];
                ro.budget = o->budgets[b];
                ra_stats rs;
                memset(&rs, 0, sizeof rs);
                if (!m1 || ra_run(m1, &ro, &rs, &rd)) {
                    fail(k, DT_REWRITE, "%s fails", what);
                    ptx_module_free(m1);
                    ptx_diags_free(&rd);
                    continue;
                }
                for (uint32_t f = 0; f < rs.nfuncs; f++) c->spilled += rs.funcs[f].spilled;
                ra_stats_free(&rs);
                size_t tl;
                char *text = print_module(m1, &tl);
                ptx_module_free(m1);
                ptx_module *m2 = ptx_parse_string(name, text, tl, &rd);
                ptx_diags_free(&rd);
                c->rewrites++;
                if (!m2) fail(k, DT_REWRITE, "%s: the output does not parse", what);
                else {
                    check_ptxas(k, what, text, tl);
                    run_schedules(k, S, R, m2, L, args, limit * 4, devnull, what, false);
                }
                ptx_module_free(m2);
                free(text);
            }
        /* uniformize at the launch shape and at the default assumption */
        for (int u = 0; u < 2; u++) {
            char *text;
            size_t tl = 0;
            ptx_module *m2 = uniformized(k, ptx, len, u ? NULL : blk, &text, &tl);
            c->uni_rewrites++;
            if (m2) {
                check_ptxas(k, u ? "uniformize" : "uniformize --block", text, tl);
                run_schedules(k, S, R, m2, L, args, limit * 4, devnull, u ? "uniformize" : "uniformize --block", false);
            }
            ptx_module_free(m2);
            free(text);
        }
    }
    for (int i = 0; i < 4; i++) divcheck_free(k->dc[i]);
    if (k->cr) {
        for (uint32_t i = 0; i < k->cr->nfuncs; i++) free(k->idx[i]), free(k->obs[i]);
        free(k->idx);
        free(k->obs);
    }
    arena_free(&ar);
    prog_free(k->p);
    emu_destroy(R);
    for (unsigned i = 0; i < L->nargs && i < DT_MAX_ARGS; i++) free(bytes[i]);
    run_args_free(&RA);
    emu_destroy(S);
    ptx_diags_free(&d);
    ptx_module_free(m);
    fclose(devnull);
    return k->fails;
}

void dt_print(FILE *f, const dt_counts *c, const dt_opts *o)
{
    uint64_t fails = 0;
    for (int i = 0; i < DT_NORACLES; i++) fails += c->failures[i];
    fprintf(f, "difftest: %llu kernels\n", (unsigned long long)c->kernels);
    fprintf(f, "  rewrite:     %llu regalloc rewrites (budgets", (unsigned long long)c->rewrites);
    for (unsigned b = 0; b < o->nbudgets; b++) fprintf(f, " %u", o->budgets[b]);
    fprintf(f, " x linear div aff; %llu registers spilled) + %llu uniformize; %llu rewritten runs (lockstep, "
               "interleave, its), %llu runs of the originals (interleave, its): %llu failures\n",
            (unsigned long long)c->spilled, (unsigned long long)c->uni_rewrites, (unsigned long long)c->runs,
            (unsigned long long)c->orig_runs, (unsigned long long)c->failures[DT_REWRITE]);
    fprintf(f, "  ptxas:       %llu modules assembled%s: %llu rejected\n", (unsigned long long)c->ptxas_checked,
            o->ptxas_path ? "" : " (no ptxas here)", (unsigned long long)c->failures[DT_PTXAS]);
    fprintf(f, "  divergence:  claims checked per warp-instruction: simple %llu, affine %llu, affine2 %llu at the "
               "launch shape; affine %llu at the default assumption (%llu skipped: assumption false); %llu not met where "
               "values wrapped around (no-wraparound assumption false): %llu violated\n",
            (unsigned long long)c->claims[0], (unsigned long long)c->claims[1], (unsigned long long)c->claims[2],
            (unsigned long long)c->claims[3], (unsigned long long)c->skipped, (unsigned long long)c->wrapped,
            (unsigned long long)c->failures[DT_DIVERGENCE]);
    fprintf(f, "  coalescing:  %llu global accesses, %llu requests checked against the bound, %llu accesses exact "
               "and equal checked: %llu failures\n",
            (unsigned long long)c->g_accesses, (unsigned long long)c->g_requests, (unsigned long long)c->g_exact,
            (unsigned long long)c->failures[DT_COALESCING]);
    fprintf(f, "  banks:       %llu shared accesses, %llu requests checked against the bound, %llu accesses exact "
               "and equal checked: %llu failures\n",
            (unsigned long long)c->s_accesses, (unsigned long long)c->s_requests, (unsigned long long)c->s_exact,
            (unsigned long long)c->failures[DT_BANK]);
    fprintf(f, "  generator:   %llu kernels that do not run: %llu\n", (unsigned long long)c->failures[DT_GEN],
            (unsigned long long)c->failures[DT_GEN]);
    fprintf(f, "failures: %llu\n", (unsigned long long)fails);
}
