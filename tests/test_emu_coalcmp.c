/* The static coalescing model (analyses/coalescing.h) against the
 * emulator's --coalescing figures over every launch of the corpus tests
 * (docs/coalescing-compare.md): a table per global access in
 * build/coalescing-compare.txt, `make coalescing-compare` prints it.
 *
 * The emulator's per-instruction report gives all requests of a launch
 * together; an observer here recomputes each request's sectors from the
 * lanes' addresses so that requests of full warps (what the static model
 * describes) can be told from those of partially active warps.  Its totals
 * must equal the emulator's, so the split cannot drift from what the
 * emulator measures. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check_findings.h"
#include "coalescing.h"
#include "emu_harness.h"
#include "emu_replay.h"
#include "program.h"
#include "semantics.h"
#include "testutil.h"

/* Every Test(emu_corpus, ...) but unsupported_kernels (it launches with
 * emu_launch directly); the same list as tests/test_emu_divcheck.c, kept
 * in step by corpus_list_is_complete. */

/* Rows whose disagreement has no automatic explanation (see classify) but
 * is understood: file is a substring of the corpus path, line its PTX line
 * (0: every line of the kernel).  Each must still match a `differs` row,
 * so a fixed model or a changed corpus takes its entry out. */
static const struct known_discrepancy {
    const char *file, *kernel;
    uint32_t line;
    const char *why;
} known[] = {
    {NULL, NULL, 0, NULL},
};

/* ---- per launch: the observer's count for each static access ---------------------------- */

typedef struct dyn_acc {
    uint64_t n, sum;                 /* every request (checked against the emulator) */
    uint64_t full_n, full_sum;       /* requests with all 32 lanes on global memory */
    uint32_t full_min, full_max;
    uint32_t al_min, al_max;         /* full warps, lane 0 moved to a 128-byte boundary */
    uint64_t part_n;
    uint32_t part_max;
} dyn_acc;

typedef struct shape_res {
    emu_dim3 block;
    coal_result *r;
    uint32_t **idx; /* per function of r: statement -> access index + 1 */
} shape_res;

typedef struct cmp_ctx {
    eh *h;
    prog *p;
    shape_res *shapes;
    unsigned nshapes;
    shape_res *cur;
    dyn_acc **dyn; /* per function of cur->r, per access */
    const ptx_func *last_fn;
    uint32_t last_fi;
    emu_observer obs;
    const emu_observer *test_obs;
    emu_machine *snap; /* the memory the launch in progress started from (relaunches) */
    emu_dim3 grid;
    FILE *devnull;
} cmp_ctx;

/* ---- soundness at other block shapes (issue 33) -------------------------------------------
 * Every launch is launched again, with the same kernel, arguments and grid,
 * from a copy of the memory it started from (as tests/test_emu_shapes.c),
 * at the six shapes of `make shapecheck` and 16x16x1 and 8x32x1; the
 * static bound at that shape (sectors_max, what every view reports) must
 * not be below the most sectors any request of the relaunch touches.
 * `make coalescing-compare` (PTXRAY_COALCMP_SHAPES=all) runs all eight;
 * `make test` the two whose x extent is below a warp. */
#define NRSHAPES 7
static const emu_dim3 rshapes[NRSHAPES] = {{256, 1, 1}, {128, 2, 1}, {32, 8, 1}, {48, 1, 1},
                                           {100, 1, 1}, {16, 16, 1}, {8, 32, 1}};
static struct {
    unsigned relaunches, run, accesses, below;
    /* shared accesses: bank degree (ways) compared with the static bound,
     * below it, and without a static bound */
    unsigned banks, banks_below, banks_unbounded;
    unsigned first, n; /* the shapes tried: rshapes[first .. first + n) */
} rl;

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Distinct 32-byte sectors of the lanes in m, as emu/checks_mem.c counts
 * them (a lane's access may straddle two), addresses lowered by shift. */
static unsigned sectors_of(const uint64_t *a, uint32_t m, unsigned bytes, uint64_t shift)
{
    uint64_t s[64];
    unsigned n = 0;
    for (unsigned l = 0; l < 32; l++) {
        if (!(m >> l & 1)) continue;
        uint64_t x = a[l] - shift, e = x + (bytes ? bytes - 1 : 0);
        s[n++] = x >> 5;
        if ((e >> 5) != (x >> 5)) s[n++] = e >> 5;
    }
    qsort(s, n, sizeof *s, cmp_u64);
    unsigned d = n ? 1 : 0;
    for (unsigned i = 1; i < n; i++) d += s[i] != s[i - 1];
    return d;
}

/* The lanes' addresses of access x; false when the operand has a form the
 * emulator would not take as a global address here. */
static bool lane_addrs(cmp_ctx *k, const emu_event *ev, const coal_access *x, uint64_t *a)
{
    ptx_inst_sem sem;
    ptx_inst_semantics(x->in, &sem);
    unsigned oi = sem.src_addr_opd != PTX_SEM_NO_OPD ? sem.src_addr_opd : sem.addr_opd;
    if (oi == PTX_SEM_NO_OPD || oi >= x->in->nopd) return false;
    const ptx_operand *o = &x->in->opd[oi];
    if (o->kind != PTX_O_ADDR || o->n != 1) return false;
    const ptx_operand *b = &o->p.elems[0];
    uint64_t base = 0;
    if (b->kind == PTX_O_SYM) {
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)b->n, b->p.text);
        size_t sz;
        void *host;
        ptx_space sp;
        if (!emu_symbol(k->h->M, name, &base, &sz, &host, &sp)) return false;
    } else if (b->kind == PTX_O_IMM) base = (uint64_t)b->v;
    else if (b->kind != PTX_O_REG) return false;
    for (unsigned l = 0; l < 32; l++)
        if (ev->active_mask >> l & 1)
            a[l] = (b->kind == PTX_O_REG ? emu_event_reg(ev, b->n, b->comp, l) : base) + (uint64_t)o->v;
    return true;
}

static void observe(void *user, const emu_event *ev)
{
    cmp_ctx *k = user;
    if (k->test_obs && k->test_obs->on_inst) k->test_obs->on_inst(k->test_obs->user, ev);
    if (ev->phase != EMU_OBS_BEFORE || !ev->active_mask || !k->cur) return;
    const coal_result *r = k->cur->r;
    if (ev->fn != k->last_fn) {
        k->last_fn = ev->fn;
        k->last_fi = UINT32_MAX;
        for (uint32_t i = 0; i < r->nfuncs; i++)
            if (r->f[i].pf->fn == ev->fn) k->last_fi = i;
    }
    if (k->last_fi == UINT32_MAX) return;
    uint32_t ai = k->cur->idx[k->last_fi][ev->stmt];
    if (!ai) return;
    const coal_access *x = &r->f[k->last_fi].acc[ai - 1];
    if (x->space != COAL_GLOBAL) return;
    uint64_t a[32];
    if (!lane_addrs(k, ev, x, a)) return;
    /* generic addressing: only the lanes on global memory make the request */
    uint32_t m = ev->active_mask;
    if (!x->explicit_space)
        for (unsigned l = 0; l < 32; l++)
            if ((m >> l & 1) && !emu_host(k->h->M, a[l], x->bytes ? x->bytes : 1)) m &= ~(1u << l);
    if (!m) return;
    dyn_acc *d = &k->dyn[k->last_fi][ai - 1];
    unsigned s = sectors_of(a, m, x->bytes, 0);
    d->n++;
    d->sum += s;
    if (m == 0xffffffffu) {
        unsigned lo = (unsigned)__builtin_ctz(m);
        unsigned al = sectors_of(a, m, x->bytes, a[lo] & (COAL_LINE - 1));
        if (!d->full_n++) d->full_min = d->al_min = UINT32_MAX;
        d->full_sum += s;
        if (s < d->full_min) d->full_min = s;
        if (s > d->full_max) d->full_max = s;
        if (al < d->al_min) d->al_min = al;
        if (al > d->al_max) d->al_max = al;
    } else {
        d->part_n++;
        if (s > d->part_max) d->part_max = s;
    }
}

/* ---- the table: one row per (file, function, PTX line, block shape) ---------------------- */

typedef struct row {
    char file[512], fn[64], op[48];
    uint32_t line;
    emu_dim3 block;
    bool in_static;
    uint8_t pattern;
    int32_t sectors, sectors_max, sectors_aligned;
    uint32_t ideal;
    uint8_t base_k; /* bits of lane 0's address the model knows */
    bool unc, mis;
    uint64_t req, sec_sum, ideal_sum; /* the emulator's */
    uint32_t sec_max;
    dyn_acc d;                        /* the observer's, over every launch */
    const char *agree, *reason;
} row;

static struct {
    row *v;
    size_t n, cap;
    unsigned launches;
    unsigned mismatched; /* rows where the observer and the emulator disagree */
} tab;

/* "transpose" from "_Z9transposePfS_ii"; other names as they are. */
static void short_name(const char *s, char *out, size_t n)
{
    const char *p = s;
    if (strncmp(p, "_Z", 2)) {
        snprintf(out, n, "%s", s);
        return;
    }
    p += 2;
    bool nested = *p == 'N';
    if (nested) p++;
    const char *last = NULL;
    unsigned long len = 0;
    while (*p >= '0' && *p <= '9') {
        char *e;
        len = strtoul(p, &e, 10);
        if (strlen(e) < len) break;
        last = e;
        p = e + len;
        if (!nested) break;
    }
    if (last) snprintf(out, n, "%.*s", (int)len, last);
    else snprintf(out, n, "%s", s);
}

static row *row_for(const char *file, const char *fn, uint32_t line, emu_dim3 b)
{
    for (size_t i = 0; i < tab.n; i++) {
        row *r = &tab.v[i];
        if (r->line == line && r->block.x == b.x && r->block.y == b.y && r->block.z == b.z && !strcmp(r->file, file) &&
            !strcmp(r->fn, fn))
            return r;
    }
    if (tab.n == tab.cap) {
        tab.cap = tab.cap ? 2 * tab.cap : 256;
        tab.v = realloc(tab.v, tab.cap * sizeof *tab.v);
        cr_assert_not_null(tab.v);
    }
    row *r = &tab.v[tab.n++];
    memset(r, 0, sizeof *r);
    snprintf(r->file, sizeof r->file, "%s", file);
    snprintf(r->fn, sizeof r->fn, "%s", fn);
    r->line = line;
    r->block = b;
    r->d.full_min = r->d.al_min = UINT32_MAX;
    return r;
}

static void merge_dyn(dyn_acc *t, const dyn_acc *s)
{
    t->n += s->n;
    t->sum += s->sum;
    if (s->full_n) {
        if (s->full_min < t->full_min) t->full_min = s->full_min;
        if (s->full_max > t->full_max) t->full_max = s->full_max;
        if (s->al_min < t->al_min) t->al_min = s->al_min;
        if (s->al_max > t->al_max) t->al_max = s->al_max;
    }
    t->full_n += s->full_n;
    t->full_sum += s->full_sum;
    t->part_n += s->part_n;
    if (s->part_max > t->part_max) t->part_max = s->part_max;
}

/* ---- precision: check's findings against the emulator (make precision) ---------------------- */

static const coal_access *static_at(const coal_result *r, uint32_t line, uint32_t *fi, uint32_t *ai);
static double avg(uint64_t sum, uint64_t n);

/* One global or shared access that ran, per (file, PTX line, block shape):
 * check's verdict on it at that shape (chk_access_verdict) and what the
 * emulator measured over every launch. */
typedef struct prow {
    char file[512], fn[64], op[48];
    uint32_t line;
    emu_dim3 block;
    bool shared;
    int rule; /* chk_rule, -1: no finding */
    int cert; /* chk_certainty */
    uint32_t excess;
    bool serialised; /* a shared atomic on one word: the emulator counts it as a broadcast */
    uint64_t req, sum, ideal_sum; /* sectors (global) or wavefronts (shared) */
    uint32_t max;
} prow;

static struct {
    prow *v;
    size_t n, cap;
} ptab;

static prow *prow_for(const char *file, const char *fn, uint32_t line, emu_dim3 b, bool shared)
{
    for (size_t i = 0; i < ptab.n; i++) {
        prow *r = &ptab.v[i];
        if (r->line == line && r->shared == shared && r->block.x == b.x && r->block.y == b.y && r->block.z == b.z &&
            !strcmp(r->file, file))
            return r;
    }
    if (ptab.n == ptab.cap) {
        ptab.cap = ptab.cap ? 2 * ptab.cap : 256;
        ptab.v = realloc(ptab.v, ptab.cap * sizeof *ptab.v);
        cr_assert_not_null(ptab.v);
    }
    prow *r = &ptab.v[ptab.n++];
    memset(r, 0, sizeof *r);
    snprintf(r->file, sizeof r->file, "%s", file);
    snprintf(r->fn, sizeof r->fn, "%s", fn);
    r->line = line;
    r->block = b;
    r->shared = shared;
    r->rule = -1;
    return r;
}

/* The emulator's entry e (coalescing or bank_conflicts) into its row, with
 * check's verdict on the static access at that line. */
static void precision_entry(const eh *h, const coal_result *r, json_t *e, emu_dim3 block, bool shared)
{
    uint32_t line = (uint32_t)json_integer_value(json_object_get(e, "line"));
    uint32_t fi = 0, ai = 0;
    const coal_access *x = static_at(r, line, &fi, &ai);
    char fn[64] = "?";
    if (x) {
        char full[256];
        snprintf(full, sizeof full, "%.*s", (int)r->f[fi].pf->fn->name.n, r->f[fi].pf->fn->name.p);
        short_name(full, fn, sizeof fn);
    }
    prow *w = prow_for(h->path, fn, line, block, shared);
    snprintf(w->op, sizeof w->op, "%s", json_string_value(json_object_get(e, "instruction")));
    if (x && (x->space == COAL_SHARED) == shared) {
        coal_report_ctx c = {r, h->path, NULL, NULL, NULL};
        enum chk_rule rule;
        enum chk_certainty cert;
        uint32_t excess;
        char dep[512];
        if (chk_access_verdict(&c, &r->f[fi], x, &rule, &cert, &excess, dep, sizeof dep)) {
            w->rule = (int)rule;
            w->cert = (int)cert;
            w->excess = excess;
            w->serialised = shared && x->bank_serialised;
        }
    }
    w->req += (uint64_t)json_integer_value(json_object_get(e, "requests"));
    w->sum += (uint64_t)json_integer_value(json_object_get(e, shared ? "wavefronts" : "sectors"));
    w->ideal_sum += (uint64_t)json_integer_value(json_object_get(e, shared ? "ideal_wavefronts" : "ideal_sectors"));
    uint32_t mx = (uint32_t)json_integer_value(json_object_get(e, shared ? "ways_max" : "sectors_max"));
    if (mx > w->max) w->max = mx;
}

/* Confirmed: the emulator saw more sectors (wavefronts) than the requests'
 * bytes (distinct words) need. */
static bool prow_waste(const prow *w) { return w->sum > w->ideal_sum; }

static int cmp_prow(const void *a, const void *b)
{
    const prow *x = a, *y = b;
    int c = strcmp(x->file, y->file);
    if (c) return c;
    if (x->line != y->line) return x->line < y->line ? -1 : 1;
    uint64_t bx = (uint64_t)x->block.x << 40 | (uint64_t)x->block.y << 20 | x->block.z;
    uint64_t by = (uint64_t)y->block.x << 40 | (uint64_t)y->block.y << 20 | y->block.z;
    return bx < by ? -1 : bx > by;
}

static void write_precision(FILE *f)
{
    fprintf(f, "# check's coalescing and bank-conflict findings (chk_access_verdict, at each launch's block shape) "
               "against the emulator's\n# measurement over every launch of the corpus emulator tests "
               "(docs/check.md, \"Precision\"); per access and block shape;\n# dyn = sectors (global) or "
               "wavefronts (shared) per request, average, against the ideal\n");
    fprintf(f, "%-40s %-22s %-16s %-13s %-9s %-9s %8s %7s %7s %s\n", "access", "kernel", "opcode", "rule",
            "certainty", "block", "requests", "dyn", "ideal", "verdict");
    unsigned n[2] = {0}, conf[2] = {0}, clean = 0, misses = 0, serial = 0;
    for (size_t i = 0; i < ptab.n; i++) {
        const prow *w = &ptab.v[i];
        const char *file = strncmp(w->file, "ptx-corpus/", 11) ? w->file : w->file + 11;
        char acc[540], blk[40];
        snprintf(acc, sizeof acc, "%s:%u", file, w->line);
        snprintf(blk, sizeof blk, "%ux%ux%u", w->block.x, w->block.y, w->block.z);
        bool waste = prow_waste(w);
        const char *v;
        if (w->rule >= 0 && w->serialised && !waste) {
            serial++;
            v = "unmeasured: the emulator counts atomics on one word as one wavefront";
        } else if (w->rule >= 0) {
            n[w->cert]++;
            conf[w->cert] += waste;
            v = waste ? "confirmed" : w->cert == CHK_PROVEN ? "NOT CONFIRMED" : "not seen";
        } else {
            clean++;
            misses += waste;
            v = waste ? "dynamic-only" : "clean";
        }
        fprintf(f, "%-40s %-22.22s %-16.16s %-13s %-9s %-9s %8llu %7.2f %7.2f %s\n", acc, w->fn, w->op,
                w->rule >= 0 ? chk_rule_name((enum chk_rule)w->rule) : w->shared ? "(shared)" : "(global)",
                w->rule >= 0 ? chk_certainty_name((enum chk_certainty)w->cert) : "-", blk,
                (unsigned long long)w->req, avg(w->sum, w->req), avg(w->ideal_sum, w->req), v);
    }
    fprintf(f, "\nprecision: %u proven findings, %u confirmed dynamically (%.1f%%); %u possible findings, %u seen "
               "dynamically; %u accesses without a finding, %u of them with dynamic waste (misses); %u shared atomics on "
               "one word (serialised in the static model, a broadcast in the emulator's bank check) not compared\n",
            n[CHK_PROVEN], conf[CHK_PROVEN], n[CHK_PROVEN] ? 100.0 * conf[CHK_PROVEN] / n[CHK_PROVEN] : 100.0,
            n[CHK_POSSIBLE], conf[CHK_POSSIBLE], clean, misses, serial);
    if (misses) {
        fprintf(f, "dynamic-only (no static finding, more sectors or wavefronts than ideal):\n");
        for (size_t i = 0; i < ptab.n; i++) {
            const prow *w = &ptab.v[i];
            if (w->rule < 0 && prow_waste(w))
                fprintf(f, "  %s:%u %s %s (block %ux%ux%u): avg %.2f > ideal %.2f, max %u\n", w->file, w->line, w->fn,
                        w->op, w->block.x, w->block.y, w->block.z, avg(w->sum, w->req), avg(w->ideal_sum, w->req),
                        w->max);
        }
    }
}

/* ---- hooks ----------------------------------------------------------------------------------- */

static void hook_opened(eh *h)
{
    cmp_ctx *k = calloc(1, sizeof *k);
    cr_assert_not_null(k);
    k->h = h;
    ptx_diags d;
    ptx_diags_init(&d);
    k->p = prog_build(h->m, PROG_GSA, NULL, &d);
    cr_assert_not_null(k->p, "%s: the program cannot be built (%u errors)", h->path, d.nerrors);
    ptx_diags_free(&d);
    k->test_obs = h->opt.observer;
    k->devnull = fopen("/dev/null", "w");
    cr_assert_not_null(k->devnull);
    k->obs = (emu_observer){observe, k};
    h->opt.observer = &k->obs;
    h->opt.checks |= EMU_CHECK_COALESCING | EMU_CHECK_BANK;
    h->hook_data = k;
}

static shape_res *shape_for(cmp_ctx *k, emu_dim3 b)
{
    for (unsigned i = 0; i < k->nshapes; i++)
        if (k->shapes[i].block.x == b.x && k->shapes[i].block.y == b.y && k->shapes[i].block.z == b.z)
            return &k->shapes[i];
    k->shapes = realloc(k->shapes, (k->nshapes + 1) * sizeof *k->shapes);
    cr_assert_not_null(k->shapes);
    shape_res *s = &k->shapes[k->nshapes++];
    s->block = b;
    blk_opts bo = {.all = {b.x, b.y, b.z}};
    coal_options o = {.blocks = b.x ? &bo : NULL};
    s->r = coal_analyse(k->h->m, k->p, &o, &k->p->a);
    cr_assert_not_null(s->r);
    s->idx = calloc(s->r->nfuncs + 1, sizeof *s->idx);
    for (uint32_t i = 0; i < s->r->nfuncs; i++) {
        const coal_func *f = &s->r->f[i];
        s->idx[i] = calloc(f->pf->fn->nstmts + 1, sizeof **s->idx);
        for (uint32_t a = 0; a < f->nacc; a++) s->idx[i][f->acc[a].stmt] = a + 1;
    }
    return s;
}

static void free_dyn(cmp_ctx *k)
{
    if (!k->dyn) return;
    for (uint32_t i = 0; i < k->cur->r->nfuncs; i++) free(k->dyn[i]);
    free(k->dyn);
    k->dyn = NULL;
}

static void hook_launching(eh *h, const char *kernel, emu_dim3 grid, emu_dim3 block)
{
    (void)kernel;
    cmp_ctx *k = h->hook_data;
    if (rl.n) {
        emu_destroy(k->snap);
        k->snap = emu_clone(h->M, NULL);
        cr_assert_not_null(k->snap, "%s: cannot copy the machine", h->path);
        k->grid = grid;
    }
    free_dyn(k);
    k->cur = shape_for(k, block);
    k->last_fn = NULL;
    k->dyn = calloc(k->cur->r->nfuncs + 1, sizeof *k->dyn);
    for (uint32_t i = 0; i < k->cur->r->nfuncs; i++) k->dyn[i] = calloc(k->cur->r->f[i].nacc + 1, sizeof **k->dyn);
}

/* The static access at PTX line `line`, or NULL; *fi its function. */
static const coal_access *static_at(const coal_result *r, uint32_t line, uint32_t *fi, uint32_t *ai)
{
    for (uint32_t i = 0; i < r->nfuncs; i++)
        for (uint32_t a = 0; a < r->f[i].nacc; a++)
            if (r->f[i].pf->fn->stmts[r->f[i].acc[a].stmt]->loc.line == line) {
                *fi = i;
                *ai = a;
                return &r->f[i].acc[a];
            }
    return NULL;
}

/* The short name of the function holding the instruction at `line`
 * (rows the static model has no global access for). */
static void fn_at(const prog *p, uint32_t line, char *out, size_t n)
{
    snprintf(out, n, "?");
    for (uint32_t i = 0; i < p->nfuncs; i++) {
        const ptx_func *fn = p->funcs[i].fn;
        for (uint32_t s = 0; s < fn->nstmts; s++)
            if (fn->stmts[s]->loc.line == line) {
                char full[256];
                snprintf(full, sizeof full, "%.*s", (int)fn->name.n, fn->name.p);
                short_name(full, out, n);
                return;
            }
    }
}

static void relaunch(eh *h, const char *kernel)
{
    cmp_ctx *k = h->hook_data;
    const emu_stats *os = emu_last_stats(h->M);
    size_t cur = (size_t)(k->cur - k->shapes); /* shape_for may move the shapes */
    for (unsigned si = rl.first; si < rl.first + rl.n; si++) {
        emu_dim3 b = rshapes[si];
        if (!eh_bounds_allow(h->m, kernel, b)) continue;
        shape_res *sr = shape_for(k, b);
        emu_options o = h->opt;
        o.observer = NULL;
        o.printf_out = k->devnull;
        o.checks = EMU_CHECK_COALESCING | EMU_CHECK_BANK;
        o.max_steps = (os->warp_insts + 20000) * 64;
        emu_machine *M = emu_clone(k->snap, &o);
        cr_assert_not_null(M, "%s: cannot copy the machine", h->path);
        ptx_diags d;
        ptx_diags_init(&d);
        emu_status st = emu_launch(M, kernel, k->grid, b, h->args, h->nargs, &d);
        ptx_diags_free(&d);
        rl.relaunches++;
        /* a relaunch the kernel's shape assumptions stop (a fault, the step
         * limit): the requests it made before stopping are compared too */
        rl.run += st == EMU_OK;
        json_t *j = emu_report_json(M, h->path, NULL);
        size_t i;
        json_t *e;
        json_array_foreach(json_object_get(j, "coalescing"), i, e) {
            uint32_t line = (uint32_t)json_integer_value(json_object_get(e, "line"));
            uint32_t fi = 0, ai = 0;
            const coal_access *x = static_at(sr->r, line, &fi, &ai);
            if (!x || x->space != COAL_GLOBAL) continue; /* generic, not proven global: no static figure */
            int32_t mx = (int32_t)json_integer_value(json_object_get(e, "sectors_max"));
            rl.accesses++;
            if (x->sectors_max >= mx) continue;
            rl.below++;
            cr_expect_fail("%s:%u block %ux%ux%u (relaunched; the test's %s): static %d sectors/request (%s), the "
                           "emulator measures up to %d",
                           h->path, line, b.x, b.y, b.z, kernel, x->sectors_max,
                           coal_pattern_name((enum coal_pattern)x->pattern), mx);
        }
        /* shared: the static bank degree every view reports (the worst
         * warp's, bank_degree_max) is never below a request's ways */
        json_array_foreach(json_object_get(j, "bank_conflicts"), i, e) {
            uint32_t line = (uint32_t)json_integer_value(json_object_get(e, "line"));
            uint32_t fi = 0, ai = 0;
            const coal_access *x = static_at(sr->r, line, &fi, &ai);
            if (!x || x->space != COAL_SHARED) continue;
            int32_t mx = (int32_t)json_integer_value(json_object_get(e, "ways_max"));
            if (x->bank_degree_max < 0) {
                rl.banks_unbounded++;
                continue;
            }
            rl.banks++;
            if (x->bank_degree_max >= mx) continue;
            rl.banks_below++;
            cr_expect_fail("%s:%u block %ux%ux%u (relaunched; the test's %s): static bank degree %d (%s), the "
                           "emulator measures up to %d ways",
                           h->path, line, b.x, b.y, b.z, kernel, x->bank_degree_max,
                           coal_pattern_name((enum coal_pattern)x->pattern), mx);
        }
        json_decref(j);
        emu_destroy(M);
    }
    k->cur = &k->shapes[cur];
    emu_destroy(k->snap);
    k->snap = NULL;
}

static void hook_launched(eh *h, const char *kernel, emu_status st)
{
    (void)kernel, (void)st;
    cmp_ctx *k = h->hook_data;
    tab.launches++;
    json_t *j = emu_report_json(h->M, h->path, NULL);
    json_t *co = json_object_get(j, "coalescing");
    cr_assert_not_null(co, "%s: no coalescing report", h->path);
    const coal_result *r = k->cur->r;
    size_t i;
    json_t *e;
    json_array_foreach(co, i, e) {
        uint32_t line = (uint32_t)json_integer_value(json_object_get(e, "line"));
        uint32_t fi = 0, ai = 0;
        const coal_access *x = static_at(r, line, &fi, &ai);
        char fn[64];
        if (x) {
            const ptx_func *f = r->f[fi].pf->fn;
            char full[256];
            snprintf(full, sizeof full, "%.*s", (int)f->name.n, f->name.p);
            short_name(full, fn, sizeof fn);
        } else
            fn_at(k->p, line, fn, sizeof fn);
        row *w = row_for(h->path, fn, line, k->cur->block);
        snprintf(w->op, sizeof w->op, "%s", json_string_value(json_object_get(e, "instruction")));
        if (x && x->space == COAL_GLOBAL) {
            w->in_static = true;
            w->pattern = x->pattern;
            w->sectors = x->sectors;
            w->sectors_max = x->sectors_max;
            w->sectors_aligned = x->sectors_aligned;
            w->ideal = x->ideal;
            w->unc = x->uncoalesced;
            w->mis = x->misaligned;
            w->base_k = x->base.k;
            merge_dyn(&w->d, &k->dyn[fi][ai]);
        }
        w->req += (uint64_t)json_integer_value(json_object_get(e, "requests"));
        w->sec_sum += (uint64_t)json_integer_value(json_object_get(e, "sectors"));
        w->ideal_sum += (uint64_t)json_integer_value(json_object_get(e, "ideal_sectors"));
        uint32_t mx = (uint32_t)json_integer_value(json_object_get(e, "sectors_max"));
        if (mx > w->sec_max) w->sec_max = mx;
        precision_entry(h, r, e, k->cur->block, false);
    }
    json_array_foreach(json_object_get(j, "bank_conflicts"), i, e) precision_entry(h, r, e, k->cur->block, true);
    json_decref(j);
    if (rl.n) relaunch(h, kernel);
}

static void hook_closing(eh *h)
{
    cmp_ctx *k = h->hook_data;
    if (!k) return;
    if (k->cur) free_dyn(k);
    emu_destroy(k->snap);
    if (k->devnull) fclose(k->devnull);
    for (unsigned i = 0; i < k->nshapes; i++) {
        for (uint32_t f = 0; f < k->shapes[i].r->nfuncs; f++) free(k->shapes[i].idx[f]);
        free(k->shapes[i].idx);
    }
    free(k->shapes);
    prog_free(k->p);
    free(k);
    h->hook_data = NULL;
}

static const eh_hooks coalcmp_hooks = {hook_opened, hook_launching, hook_launched, hook_closing};

/* ---- agreement (docs/coalescing-compare.md) ------------------------------------------------- */

static double avg(uint64_t sum, uint64_t n) { return n ? (double)sum / (double)n : 0.0; }

/* The static figures describe one request of a full warp: S exact
 * (sectors >= 0) or a bound B (sectors_max).  Only the observer's
 * full-warp requests are held to them:
 *   exact     S known, every full-warp request touched exactly S sectors;
 *   bound-ok  S unknown, every full-warp request touched at most B;
 *   partial   no full-warp request: every (partial) one touched at most B;
 *   differs   anything else, with a reason when one can be told. */
static void classify(row *w)
{
    const dyn_acc *d = &w->d;
    w->reason = "";
    if (!w->in_static) {
        w->agree = "no-static";
        w->reason = "generic address not proven global";
        return;
    }
    uint32_t bound = w->sectors_max >= 0 ? (uint32_t)w->sectors_max : UINT32_MAX;
    /* docs/coalescing.md, assumption 2: a uniform part of an address whose
     * alignment is not known (a row pitch from a parameter, an offset read
     * from memory) is taken as aligned, and then counts as known: base.k
     * cannot tell the two apart, so it is only shown in the reason */
    if (!d->full_n) {
        w->agree = d->part_max <= bound ? "partial" : "differs";
        if (d->part_max > bound) w->reason = "partial warps above the bound";
        return;
    }
    if (w->sectors >= 0) {
        uint32_t s = (uint32_t)w->sectors;
        if (d->full_min == s && d->full_max == s) {
            w->agree = "exact";
            return;
        }
        w->agree = "differs";
        if (w->sectors_aligned >= 0 && d->al_min == (uint32_t)w->sectors_aligned &&
            d->al_max == (uint32_t)w->sectors_aligned)
            w->reason = w->base_k < 7 ? "alignment: lane 0's offset in its line unknown, taken as 0"
                                      : "alignment: a uniform part taken as aligned is not";
        else if (d->full_max == s && d->full_min < s)
            w->reason = "warps differ: the static figure is the worst warp's";
        else if (d->full_max < s)
            w->reason = "fewer sectors than modelled";
        else
            w->reason = "more sectors than modelled";
        return;
    }
    w->agree = d->full_max <= bound ? "bound-ok" : "differs";
    if (d->full_max > bound)
        w->reason = w->pattern == COAL_P_SYMBOLIC ? "alignment: the symbolic row pitch taken as aligned"
                                                  : "above the static bound";
}

static bool verdict_ok(const row *w) { return w->in_static && !w->unc && !w->mis; }

static const char *verdict(const row *w)
{
    return !w->in_static ? "-" : w->unc ? "uncoalesced" : w->mis ? "misaligned" : "ok";
}

/* Dynamic worse than ideal: more sectors per request on average than the
 * fewest the requested bytes fit in. */
static bool dyn_waste(const row *w) { return w->sec_sum > w->ideal_sum; }

static int cmp_row(const void *a, const void *b)
{
    const row *x = a, *y = b;
    int c = strcmp(x->file, y->file);
    if (c) return c;
    if (x->line != y->line) return x->line < y->line ? -1 : 1;
    c = strcmp(x->fn, y->fn);
    if (c) return c;
    uint64_t bx = (uint64_t)x->block.x << 40 | (uint64_t)x->block.y << 20 | x->block.z;
    uint64_t by = (uint64_t)y->block.x << 40 | (uint64_t)y->block.y << 20 | y->block.z;
    return bx < by ? -1 : bx > by;
}

static const char *static_sectors(const row *w, char *buf, size_t n)
{
    if (!w->in_static) snprintf(buf, n, "-");
    else if (w->sectors >= 0) snprintf(buf, n, "%d", w->sectors);
    else if (w->sectors_max >= 0) snprintf(buf, n, "<=%d", w->sectors_max);
    else snprintf(buf, n, "?");
    return buf;
}

static void write_table(FILE *f)
{
    fprintf(f, "# static coalescing model vs emulator --coalescing, every launch of the corpus emulator tests\n"
               "# (docs/coalescing-compare.md); sectors are per warp request; full = requests of full warps\n");
    fprintf(f, "%-40s %-22s %-16s %-11s %6s %5s %-11s %-9s %8s %8s %6s %4s %6s %-8s %s\n", "access", "kernel", "opcode",
            "pattern", "static", "ideal", "verdict", "block", "requests", "full", "avg", "max", "fullavg", "agree",
            "reason");
    unsigned cnt[5] = {0}, unc = 0, unc_conf = 0, ok = 0, fneg = 0;
    for (size_t i = 0; i < tab.n; i++) {
        const row *w = &tab.v[i];
        const char *file = strncmp(w->file, "ptx-corpus/", 11) ? w->file : w->file + 11;
        char acc[540], blk[40], st[16];
        snprintf(acc, sizeof acc, "%s:%u", file, w->line);
        snprintf(blk, sizeof blk, "%ux%ux%u", w->block.x, w->block.y, w->block.z);
        fprintf(f, "%-40s %-22.22s %-16.16s %-11s %6s %5u %-11s %-9s %8llu %8llu %6.2f %4u %6.2f %-8s %s\n", acc, w->fn,
                w->op, w->in_static ? coal_pattern_name(w->pattern) : "-", static_sectors(w, st, sizeof st), w->ideal,
                verdict(w), blk, (unsigned long long)w->req, (unsigned long long)w->d.full_n, avg(w->sec_sum, w->req),
                w->sec_max, avg(w->d.full_sum, w->d.full_n), w->agree, w->reason);
        cnt[!strcmp(w->agree, "exact")      ? 0
            : !strcmp(w->agree, "bound-ok") ? 1
            : !strcmp(w->agree, "partial")  ? 2
            : !strcmp(w->agree, "differs")  ? 3
                                            : 4]++;
        if (w->unc) {
            unc++;
            unc_conf += dyn_waste(w);
        }
        if (verdict_ok(w)) {
            ok++;
            fneg += dyn_waste(w);
        }
    }
    fprintf(f, "\ntotals: %zu accesses over %u launches: %u exact, %u bound-ok, %u partial, %u differs, %u no-static; "
               "%u uncoalesced verdicts, %u confirmed (dynamic avg > ideal); %u ok verdicts, %u with dynamic avg > ideal\n",
            tab.n, tab.launches, cnt[0], cnt[1], cnt[2], cnt[3], cnt[4], unc, unc_conf, ok, fneg);
    if (fneg) {
        fprintf(f, "ok verdicts with dynamic avg > ideal:\n");
        for (size_t i = 0; i < tab.n; i++) {
            const row *w = &tab.v[i];
            if (verdict_ok(w) && dyn_waste(w))
                fprintf(f, "  %s:%u %s (block %ux%ux%u): avg %.2f > ideal %.2f, full-warp avg %.2f, static %d: %s%s%s\n",
                        w->file, w->line, w->fn, w->block.x, w->block.y, w->block.z, avg(w->sec_sum, w->req),
                        avg(w->ideal_sum, w->req), avg(w->d.full_sum, w->d.full_n), w->sectors, w->agree,
                        w->reason[0] ? ", " : "", w->reason);
        }
    }
}

static const struct known_discrepancy *known_for(const row *w)
{
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        const struct known_discrepancy *q = &known[i];
        if (q->file && strstr(w->file, q->file) && !strcmp(w->fn, q->kernel) && (!q->line || q->line == w->line))
            return q;
    }
    return NULL;
}

/* Reasons classify can tell that explain a difference without a listed
 * entry. */
static bool explained(const row *w)
{
    return !strncmp(w->reason, "warps differ", 12) || !strcmp(w->agree, "no-static") ||
           !strncmp(w->reason, "alignment: ", 11);
}

static void check_rows(void)
{
    bool used[sizeof known / sizeof known[0]] = {false};
    for (size_t i = 0; i < tab.n; i++) {
        const row *w = &tab.v[i];
        /* the observer's request split must add up to the emulator's count */
        if (w->in_static)
            cr_expect(w->d.n == w->req && w->d.sum == w->sec_sum,
                      "%s:%u: the observer counts %llu requests / %llu sectors, the emulator %llu / %llu", w->file,
                      w->line, (unsigned long long)w->d.n, (unsigned long long)w->d.sum, (unsigned long long)w->req,
                      (unsigned long long)w->sec_sum);
        /* sound (issue 33): the bound every view reports is never below a request */
        if (w->in_static)
            cr_expect(w->sectors_max >= 0 && w->sec_max <= (uint32_t)w->sectors_max,
                      "%s:%u %s block %ux%ux%u: static %d sectors/request, the emulator measures up to %u", w->file,
                      w->line, w->fn, w->block.x, w->block.y, w->block.z, w->sectors_max, w->sec_max);
        if (strcmp(w->agree, "differs") || explained(w)) continue;
        const struct known_discrepancy *q = known_for(w);
        if (q) {
            used[q - known] = true;
            continue;
        }
        /* a false negative is the worst case: exact, ok, every full warp above */
        bool fneg = w->sectors >= 0 && verdict_ok(w) && w->d.full_n && w->d.full_min > (uint32_t)w->sectors;
        cr_expect_fail("%s:%u %s block %ux%ux%u: static %d sectors (%s, %s), dynamic full-warp min %u max %u avg %.2f: "
                       "%s%s",
                       w->file, w->line, w->fn, w->block.x, w->block.y, w->block.z, w->sectors,
                       coal_pattern_name(w->pattern), verdict(w), w->d.full_min, w->d.full_max,
                       avg(w->d.full_sum, w->d.full_n), w->reason, fneg ? " (false negative)" : "");
    }
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        if (!known[i].file) continue;
        cr_expect(used[i], "known discrepancy %s %s:%u no longer differs: remove it", known[i].file, known[i].kernel,
                  known[i].line);
    }
}

EMU_CORPUS_TESTS(EMU_REPLAY_DECLARE)

Test(emu_coalcmp, corpus, .timeout = 0)
{
#define CALL(name) emu_corpus_##name##_impl();
    const char *sh = getenv("PTXRAY_COALCMP_SHAPES");
    rl.first = sh && !strcmp(sh, "all") ? 0 : NRSHAPES - 2;
    rl.n = sh && !strcmp(sh, "none") ? 0 : NRSHAPES - rl.first;
    eh_hooks_on = &coalcmp_hooks;
    EMU_CORPUS_TESTS(CALL)
    eh_hooks_on = NULL;
    cr_assert_gt(tab.launches, 0, "no launch went through the harness");
    cr_assert_gt(tab.n, 0, "no global request");
    qsort(tab.v, tab.n, sizeof *tab.v, cmp_row);
    for (size_t i = 0; i < tab.n; i++) classify(&tab.v[i]);
    const char *out = tu_src("build/coalescing-compare.txt");
    FILE *f = fopen(out, "w");
    cr_assert_not_null(f, "cannot write %s", out);
    write_table(f);
    fclose(f);
    const char *pr = getenv("PTXRAY_COALCMP_PRINT");
    if (pr && !strcmp(pr, "1")) write_table(stdout);
    char shapes[256] = "";
    for (unsigned si = rl.first; si < rl.first + rl.n; si++)
        snprintf(shapes + strlen(shapes), sizeof shapes - strlen(shapes), "%s%ux%ux%u", si > rl.first ? ", " : "",
                 rshapes[si].x, rshapes[si].y, rshapes[si].z);
    FILE *tf = fopen(out, "a");
    cr_assert_not_null(tf);
    FILE *outs[2] = {tf, pr && !strcmp(pr, "1") ? stdout : NULL};
    for (int q = 0; q < 2; q++)
        if (outs[q])
            fprintf(outs[q],
                    "relaunched at other shapes (%s): %u relaunches, %u completed; %u accesses compared, %u where the "
                    "static sectors per request are below the measured; %u shared accesses compared, %u where the "
                    "static bank degree is below the measured (%u without a static bound)\n",
                    rl.n ? shapes : "none", rl.relaunches, rl.run, rl.accesses, rl.below, rl.banks, rl.banks_below,
                    rl.banks_unbounded);
    fclose(tf);
    cr_expect_eq(rl.below, 0, "%u accesses where the static count is below the emulator's", rl.below);
    cr_expect_eq(rl.banks_below, 0, "%u shared accesses where the static bank degree is below the emulator's",
                 rl.banks_below);
    if (rl.n) cr_expect_gt(rl.accesses, 100, "relaunches compared only %u accesses", rl.accesses);
    check_rows();
    /* make precision: every proven finding confirmed by the emulator */
    qsort(ptab.v, ptab.n, sizeof *ptab.v, cmp_prow);
    const char *pout = tu_src("build/precision.txt");
    f = fopen(pout, "w");
    cr_assert_not_null(f, "cannot write %s", pout);
    write_precision(f);
    fclose(f);
    pr = getenv("PTXRAY_PRECISION_PRINT");
    if (pr && !strcmp(pr, "1")) write_precision(stdout);
    for (size_t i = 0; i < ptab.n; i++) {
        const prow *w = &ptab.v[i];
        if (w->rule >= 0 && w->cert == CHK_PROVEN && !w->serialised)
            cr_expect(prow_waste(w), "%s:%u %s (block %ux%ux%u): proven %s finding not confirmed: dynamic %.2f, ideal %.2f",
                      w->file, w->line, w->fn, w->block.x, w->block.y, w->block.z,
                      chk_rule_name((enum chk_rule)w->rule), avg(w->sum, w->req), avg(w->ideal_sum, w->req));
    }
}

Test(emu_coalcmp, corpus_list_is_complete) { emu_replay_check_list(); }
