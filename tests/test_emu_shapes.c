/* The emulator keeps the divergence analysis honest about block shapes
 * (docs/emulator.md, "Block shapes"): every launch of the emulator corpus
 * tests (emu_replay.h) is launched again, with the same kernel, arguments
 * and grid, from a copy of the memory it started from (emu_clone), at six
 * block shapes: 256x1x1, 128x2x1, 32x8x1 (they satisfy the analysis's
 * default assumption, blockDim.x a multiple of 32) and 16x16x1, 48x1x1,
 * 100x1x1 (they break it).  Two checkers observe each relaunch:
 *   exact    the analysis told the launch's shape (as `--block` does):
 *            every claim must hold;
 *   assumed  the analysis told no shape (DIVCHECK_SHAPE_ASSUMED): a claim
 *            counts only where the assumptions it rests on hold at the
 *            shape (div_cond_holds); the others are counted as skipped.
 * A relaunch the emulator stops (a fault, a trap, the step limit, a
 * deadlock: a kernel that assumes its shape) or that the kernel's
 * .reqntid/.maxntid forbids is "not run" at that shape, not a failure; the
 * claims it checked before stopping must hold all the same.
 *
 * `make test` and `make check` run it with the affine analysis;
 * `make shapecheck` (PTXRAY_SHAPES_ANALYSES=all PTXRAY_SHAPES_PRINT=1) with
 * all three and prints the figures per shape. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "divcheck.h"
#include "emu_harness.h"
#include "emu_replay.h"
#include "testutil.h"

#define NSHAPES EMU_REPLAY_NSHAPES
static const emu_dim3 shapes[NSHAPES] = EMU_REPLAY_SHAPES;

enum { EXACT, ASSUMED, NCHECKERS };
static const char *const checker_name[NCHECKERS] = {"exact", "assumed"};
static const enum div_analysis all_analyses[3] = {DIV_AN_SIMPLE, DIV_AN_AFFINE, DIV_AN_AFFINE2};

/* Why a relaunch did not run: an emu_status, or the launch bounds. */
#define NR_BOUNDS 7
#define NR_KINDS 8

typedef struct counts {
    uint64_t values, phis, branches;                         /* claims checked */
    uint64_t splits;                                         /* divergent-branch claims checked */
    uint64_t skipped_values, skipped_phis, skipped_branches; /* assumptions fail at the shape */
    uint64_t violated;                                       /* distinct claims, per relaunch */
} counts;

static struct {
    unsigned nan, an[3];   /* the analyses cross-checked */
    bool verbose;          /* every relaunch that did not run, on stderr */
    unsigned launches;
    unsigned run[NSHAPES], not_run[NSHAPES], why[NSHAPES][NR_KINDS];
    counts ck[NCHECKERS][3];      /* completed relaunches, per checker and analysis */
    counts aborted[NCHECKERS][3]; /* what stopped relaunches checked before they stopped */
    uint64_t relaunch_steps;
} xs;

typedef struct shape_ctx {
    divcheck *c[NCHECKERS][3];
    emu_observer fan;
    emu_machine *snap; /* the memory the launch in progress started from */
    emu_dim3 grid, block; /* its grid and shape */
    FILE *devnull;     /* device printf of the relaunches */
} shape_ctx;

static void pick_analyses(void)
{
    if (xs.nan) return;
    const char *v = getenv("PTXRAY_SHAPES_VERBOSE");
    xs.verbose = v && !strcmp(v, "1");
    const char *e = getenv("PTXRAY_SHAPES_ANALYSES");
    if (e && !strcmp(e, "all")) {
        for (unsigned i = 0; i < 3; i++) xs.an[xs.nan++] = all_analyses[i];
    } else {
        xs.an[xs.nan++] = DIV_AN_AFFINE;
    }
}

static void fan_out(void *user, const emu_event *ev)
{
    shape_ctx *k = user;
    for (unsigned w = 0; w < NCHECKERS; w++)
        for (unsigned a = 0; a < xs.nan; a++) {
            const emu_observer *o = divcheck_observer(k->c[w][a]);
            o->on_inst(o->user, ev);
        }
}

static void hook_opened(eh *h)
{
    pick_analyses();
    shape_ctx *k = calloc(1, sizeof *k);
    cr_assert_not_null(k);
    for (unsigned w = 0; w < NCHECKERS; w++)
        for (unsigned a = 0; a < xs.nan; a++) {
            ptx_diags d;
            ptx_diags_init(&d);
            k->c[w][a] = divcheck_new(h->m, (enum div_analysis)xs.an[a], &d);
            cr_assert_not_null(k->c[w][a], "%s: the program cannot be built (%u errors)", h->path, d.nerrors);
            ptx_diags_free(&d);
            if (w == ASSUMED) divcheck_set_shape(k->c[w][a], DIVCHECK_SHAPE_ASSUMED);
        }
    k->fan = (emu_observer){fan_out, k};
    k->devnull = fopen("/dev/null", "w");
    cr_assert_not_null(k->devnull);
    /* the test's own launches are left alone: no observer on h->M */
    h->hook_data = k;
}

static void hook_launching(eh *h, const char *kernel, emu_dim3 grid, emu_dim3 block)
{
    (void)kernel;
    shape_ctx *k = h->hook_data;
    emu_destroy(k->snap);
    k->snap = emu_clone(h->M, NULL);
    cr_assert_not_null(k->snap, "%s: cannot copy the machine", h->path);
    k->grid = grid;
    k->block = block;
}

static void add(counts *to, const divcheck_totals *t)
{
    to->values += t->values, to->phis += t->phis, to->branches += t->branches, to->splits += t->splits;
    to->skipped_values += t->skipped_values, to->skipped_phis += t->skipped_phis;
    to->skipped_branches += t->skipped_branches, to->violated += t->violated;
}

static void hook_launched(eh *h, const char *kernel, emu_status st0)
{
    (void)st0; /* a launch the test expects to stop is relaunched too */
    shape_ctx *k = h->hook_data;
    cr_assert_not_null(k->snap);
    xs.launches++;
    /* a relaunch that runs far longer than the test's launch (a kernel
     * spinning on something its shape never sets) stops at a step limit */
    const emu_stats *os = emu_last_stats(h->M);
    uint64_t ow = (uint64_t)k->block.x * k->block.y * k->block.z;
    ow = ow ? (ow + 31) / 32 : 1;
    for (unsigned s = 0; s < NSHAPES; s++) {
        emu_dim3 b = shapes[s];
        if (!eh_bounds_allow(h->m, kernel, b)) {
            if (xs.verbose)
                fprintf(stderr, "%s %s block %ux%ux%u: not launched, .reqntid/.maxntid forbid it\n", h->path, kernel,
                        b.x, b.y, b.z);
            xs.not_run[s]++;
            xs.why[s][NR_BOUNDS]++;
            continue;
        }
        uint64_t nw = ((uint64_t)b.x * b.y * b.z + 31) / 32;
        emu_options o = h->opt;
        o.observer = &k->fan;
        o.printf_out = k->devnull;
        o.checks = 0;
        o.max_steps = (os->warp_insts + 20000) * 16 * (nw > ow ? (nw + ow - 1) / ow : 1);
        for (unsigned w = 0; w < NCHECKERS; w++)
            for (unsigned a = 0; a < xs.nan; a++) divcheck_begin(k->c[w][a], b);
        emu_machine *M = emu_clone(k->snap, &o);
        cr_assert_not_null(M, "%s: cannot copy the machine", h->path);
        ptx_diags d;
        ptx_diags_init(&d);
        emu_status st = emu_launch(M, kernel, k->grid, b, h->args, h->nargs, &d);
        xs.relaunch_steps += emu_last_stats(M)->warp_insts;
        if (st != EMU_OK && xs.verbose)
            fprintf(stderr, "%s %s grid %ux%ux%u block %ux%ux%u (the test's: %ux%ux%u, %llu warp-instructions): %s "
                            "after %llu warp-instructions: %s\n",
                    h->path, kernel, k->grid.x, k->grid.y, k->grid.z, b.x, b.y, b.z, k->block.x, k->block.y,
                    k->block.z, (unsigned long long)os->warp_insts, emu_status_name(st),
                    (unsigned long long)emu_last_stats(M)->warp_insts, d.n ? d.v[0].msg : "");
        ptx_diags_free(&d);
        if (st == EMU_OK) xs.run[s]++;
        else xs.not_run[s]++, xs.why[s][st]++;
        emu_destroy(M);
        for (unsigned w = 0; w < NCHECKERS; w++)
            for (unsigned a = 0; a < xs.nan; a++) {
                divcheck_totals t;
                divcheck_get_totals(k->c[w][a], &t);
                add(st == EMU_OK ? &xs.ck[w][a] : &xs.aborted[w][a], &t);
                if (!t.violated) continue;
                char *rep = NULL;
                size_t len = 0;
                FILE *f = open_memstream(&rep, &len);
                divcheck_report_text(k->c[w][a], h->path, 20, f);
                fclose(f);
                cr_expect_fail("%s kernel %s relaunched at block %ux%ux%u (%s; checker %s):\n%s", h->path, kernel, b.x,
                               b.y, b.z, st == EMU_OK ? "completed" : emu_status_name(st), checker_name[w], rep);
                free(rep);
            }
    }
    emu_destroy(k->snap);
    k->snap = NULL;
}

static void hook_closing(eh *h)
{
    shape_ctx *k = h->hook_data;
    if (!k) return;
    for (unsigned w = 0; w < NCHECKERS; w++)
        for (unsigned a = 0; a < xs.nan; a++) divcheck_free(k->c[w][a]);
    emu_destroy(k->snap);
    fclose(k->devnull);
    free(k);
    h->hook_data = NULL;
}

static const eh_hooks shape_hooks = {hook_opened, hook_launching, hook_launched, hook_closing};

/* ---- the figures ------------------------------------------------------------------------------ */
static const char *const why_name[NR_KINDS] = {"", "usage", "unsupported", "fault", "trap", "limit", "deadlock",
                                               "launch bounds"};

static uint64_t sum_run(const unsigned *v)
{
    uint64_t n = 0;
    for (unsigned s = 0; s < NSHAPES; s++) n += v[s];
    return n;
}

/* One line: launches, relaunches, and per analysis and checker the claims
 * checked, skipped and violated. */
static void summary_line(FILE *f)
{
    fprintf(f, "block shapes: %u launches, %llu relaunches run, %llu not run", xs.launches,
            (unsigned long long)sum_run(xs.run), (unsigned long long)sum_run(xs.not_run));
    for (unsigned a = 0; a < xs.nan; a++)
        for (unsigned w = 0; w < NCHECKERS; w++) {
            const counts *c = &xs.ck[w][a], *x = &xs.aborted[w][a];
            fprintf(f, "; %s %s: %llu values, %llu phi/eta, %llu branches, %llu divergent branches checked",
                    div_analysis_name(xs.an[a]), checker_name[w], (unsigned long long)c->values,
                    (unsigned long long)c->phis, (unsigned long long)c->branches, (unsigned long long)c->splits);
            if (w == ASSUMED)
                fprintf(f, ", %llu skipped (assumption fails)",
                        (unsigned long long)(c->skipped_values + c->skipped_phis + c->skipped_branches));
            fprintf(f, ", %llu violated", (unsigned long long)(c->violated + x->violated));
        }
    fputc('\n', f);
}

static void counts_row(FILE *f, const char *an, const char *ck, const counts *c)
{
    fprintf(f, "  %-8s %-16s %11llu %9llu %9llu %9llu %9llu %9llu %9llu %9llu\n", an, ck, (unsigned long long)c->values,
            (unsigned long long)c->phis, (unsigned long long)c->branches, (unsigned long long)c->splits,
            (unsigned long long)c->skipped_values,
            (unsigned long long)c->skipped_phis, (unsigned long long)c->skipped_branches,
            (unsigned long long)c->violated);
}

/* The figures of `make shapecheck`. */
static void table(FILE *f)
{
    fprintf(f, "\nrelaunches per block shape (%u launches of the corpus tests):\n", xs.launches);
    fprintf(f, "  %-9s %5s %8s  why not run\n", "block", "run", "not run");
    for (unsigned s = 0; s < NSHAPES; s++) {
        char b[32];
        snprintf(b, sizeof b, "%ux%ux%u", shapes[s].x, shapes[s].y, shapes[s].z);
        fprintf(f, "  %-9s %5u %8u ", b, xs.run[s], xs.not_run[s]);
        const char *sep = " ";
        for (unsigned r = 1; r < NR_KINDS; r++)
            if (xs.why[s][r]) fprintf(f, "%s%s %u", sep, why_name[r], xs.why[s][r]), sep = ", ";
        fputc('\n', f);
    }
    fprintf(f, "\nclaims checked and skipped, per warp-instruction (\"stopped\": relaunches that did not complete, up "
               "to where they stopped):\n");
    fprintf(f, "  %-8s %-16s %11s %9s %9s %9s %9s %9s %9s %9s\n", "analysis", "checker", "values", "phi/eta", "branches",
            "divergent", "skip val", "skip phi", "skip br", "violated");
    for (unsigned a = 0; a < xs.nan; a++)
        for (unsigned w = 0; w < NCHECKERS; w++) {
            char ck[32];
            counts_row(f, div_analysis_name(xs.an[a]), checker_name[w], &xs.ck[w][a]);
            snprintf(ck, sizeof ck, "%s, stopped", checker_name[w]);
            counts_row(f, "", ck, &xs.aborted[w][a]);
        }
    fprintf(f, "\n%llu warp-instructions relaunched\n", (unsigned long long)xs.relaunch_steps);
}

EMU_CORPUS_TESTS(EMU_REPLAY_DECLARE)

Test(emu_shapes, corpus, .timeout = 0)
{
#define CALL(name) emu_corpus_##name##_impl();
    eh_hooks_on = &shape_hooks;
    EMU_CORPUS_TESTS(CALL)
    eh_hooks_on = NULL;
    cr_assert_gt(xs.launches, 0, "no launch went through the harness");
    for (unsigned s = 0; s < NSHAPES; s++)
        cr_expect_gt(xs.run[s], 0, "no relaunch completed at block %ux%ux%u", shapes[s].x, shapes[s].y, shapes[s].z);
    for (unsigned a = 0; a < xs.nan; a++)
        for (unsigned w = 0; w < NCHECKERS; w++) {
            const counts *c = &xs.ck[w][a];
            cr_expect_gt(c->values + c->branches, 0, "%s %s: no claim checked", div_analysis_name(xs.an[a]),
                         checker_name[w]);
            /* the affine analyses prove `tid.x == 0`-style branches divergent
             * in most corpus kernels: the check of those claims ran */
            if (xs.an[a] != DIV_AN_SIMPLE)
                cr_expect_gt(c->splits, 0, "%s %s: no divergent-branch claim checked", div_analysis_name(xs.an[a]),
                             checker_name[w]);
            cr_expect_eq(c->violated + xs.aborted[w][a].violated, 0, "%s %s: violated claims (listed above)",
                         div_analysis_name(xs.an[a]), checker_name[w]);
        }
    char *line = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&line, &len);
    summary_line(f);
    fclose(f);
    fputs(line, stdout);
    const char *pr = getenv("PTXRAY_SHAPES_PRINT");
    if (pr && !strcmp(pr, "1")) table(stdout);
    fflush(stdout);
    free(line);
}

Test(emu_shapes, corpus_list_is_complete) { emu_replay_check_list(); }

/* ---- planted conditional claims ------------------------------------------------------------- */
/* geo: out[tid.y·ntid.x + tid.x] = tid.x where tid.y = 0 and tid.y where
 * tid.x >= 8: a branch on tid.y (uniform in a warp when each warp lies in
 * one row of the block) and one on tid.x (never uniform across a warp). */
static const char *const geo_ptx =
    ".version 7.0\n"
    ".target sm_80\n"
    ".address_size 64\n"
    ".visible .entry geo(.param .u64 out)\n"
    "{\n"
    "  .reg .pred %p<3>;\n"
    "  .reg .b32 %r<6>;\n"
    "  .reg .b64 %rd<4>;\n"
    "  ld.param.u64 %rd1, [out];\n"
    "  mov.u32 %r1, %tid.x;\n"                  /* line 10 */
    "  mov.u32 %r2, %tid.y;\n"                  /* 11 */
    "  mov.u32 %r3, %ntid.x;\n"
    "  mad.lo.u32 %r4, %r2, %r3, %r1;\n"
    "  mul.wide.u32 %rd2, %r4, 4;\n"
    "  add.s64 %rd3, %rd1, %rd2;\n"
    "  setp.ne.u32 %p1, %r2, 0;\n"              /* 16 */
    "  @%p1 bra $L_a;\n"                        /* 17 */
    "  st.global.u32 [%rd3], %r1;\n"
    "$L_a:\n"
    "  setp.lt.u32 %p2, %r1, 8;\n"              /* 20 */
    "  @%p2 bra $L_b;\n"                        /* 21 */
    "  st.global.u32 [%rd3], %r2;\n"
    "$L_b:\n"
    "  ret;\n"
    "}\n";

typedef struct planted {
    eh *h;
    divcheck *c;
    div_result *r;
    uint64_t out;
} planted;

/* The checker with no shape given to the analysis (assumed), observing
 * the machine of a fresh harness. */
static planted plant_setup(void)
{
    planted p;
    p.h = eh_text(geo_ptx, NULL);
    ptx_diags d;
    ptx_diags_init(&d);
    p.c = divcheck_new(p.h->m, DIV_AN_AFFINE, &d);
    cr_assert_not_null(p.c);
    ptx_diags_free(&d);
    divcheck_set_shape(p.c, DIVCHECK_SHAPE_ASSUMED);
    emu_destroy(p.h->M);
    p.h->opt.observer = divcheck_observer(p.c);
    p.h->M = emu_create(p.h->m, &p.h->opt);
    divcheck_begin(p.c, D1(256));
    p.r = divcheck_result(p.c, "geo");
    cr_assert_not_null(p.r);
    cr_assert_not_null(p.r->cond);
    p.out = eh_zero(p.h, 4096);
    return p;
}

static void plant_done(planted *p)
{
    eh_close(p->h);
    divcheck_free(p->c);
}

static uint32_t value_named(const div_result *r, const char *name) { return tu_value_named(r->pf->ssa, name); }

/* Runs geo at this shape (the analysis is not redone, the plants stay). */
static divcheck_totals run_at(planted *p, emu_dim3 b)
{
    divcheck_begin(p->c, b);
    EH_RUN(p->h, "geo", D1(2), b, "p", p->out);
    divcheck_totals t;
    divcheck_get_totals(p->c, &t);
    return t;
}

static char *report(const divcheck *c)
{
    char *s = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&s, &n);
    divcheck_report_text(c, "geo.ptx", 20, f);
    fclose(f);
    return s;
}

Test(emu_shapes, planted_wrong_conditional_value_is_caught_where_its_condition_holds)
{
    planted p = plant_setup();
    /* "tid.x is uniform if blockDim.x is a multiple of 32": wrong */
    uint32_t v = value_named(p.r, "%r1.1");
    cr_assert_neq(p.r->state[v], DIV_UNIFORM);
    p.r->state[v] = DIV_UNIFORM;
    p.r->cond[v] = DIV_COND_X32;
    /* 32x8 satisfies the condition: the claim is checked and caught */
    divcheck_totals t = run_at(&p, D2(32, 8));
    cr_expect_eq(t.violated, 1);
    cr_expect_eq(t.skipped_values, 0);
    cr_assert_eq(divcheck_nviolations(p.c), 1);
    const divcheck_violation *x = divcheck_get_violation(p.c, 0);
    cr_expect_eq(x->value, v);
    cr_expect_eq(x->count, 16, "every warp of both blocks: %llu", (unsigned long long)x->count);
    char *s = report(p.c);
    cr_expect(strstr(s, "divergence check (analysis affine, block shape assumed): 1 claim violated in 16 "
                        "warp-instructions; checked ") == s, "%s", s);
    cr_expect(strstr(s, "geo.ptx:10:3: divergence claim violated: %r1.1 claimed uniform (analysis affine, assuming "
                        "blockDim.x is a multiple of 32) but warp 0 of block (0,0,0) lanes 0 and 1 hold 0x0 and "
                        "0x1 (16 times)\n") != NULL, "%s", s);
    free(s);
    /* 256x1 and 48x1 (one-dimensional): X32 holds at 256 only.  The
     * analysis's own conditional claims (tid.y-derived values) are skipped
     * too where their condition fails: count the plant's against a run
     * without it */
    t = run_at(&p, D1(256));
    cr_expect_eq(t.violated, 1);
    uint8_t st = p.r->state[v], cd = p.r->cond[v];
    p.r->state[v] = DIV_AFFINE, p.r->cond[v] = 0;
    divcheck_totals b48 = run_at(&p, D1(48)), b16 = run_at(&p, D2(16, 16));
    p.r->state[v] = st, p.r->cond[v] = cd;
    t = run_at(&p, D1(48));
    cr_expect_eq(t.violated, 0);
    cr_expect_eq(t.skipped_values - b48.skipped_values, 4, "two warps of two blocks: %llu",
                 (unsigned long long)(t.skipped_values - b48.skipped_values));
    /* 16x16 breaks it: skipped, not reported */
    t = run_at(&p, D2(16, 16));
    cr_expect_eq(t.violated, 0);
    cr_expect_eq(t.skipped_values - b16.skipped_values, 16);
    s = report(p.c);
    char want[300];
    /* the kernel's `tid.x < 16`-style branches are claimed divergent in
     * warp 0 at the assumed shape: skipped too */
    cr_expect_gt(t.skipped_splits, 0);
    snprintf(want, sizeof want, "; skipped %llu values, 0 phi/eta values, %llu branches whose assumptions fail at block "
             "(16,16,1); checked 0 divergent-branch claims in warps that ran them whole (skipped %llu whose assumption "
             "fails)\n", (unsigned long long)t.skipped_values, (unsigned long long)t.skipped_branches,
             (unsigned long long)t.skipped_splits);
    cr_expect(strstr(s, want) != NULL, "%s", s);
    free(s);
    plant_done(&p);
}

Test(emu_shapes, planted_conditional_value_is_skipped_where_its_condition_fails)
{
    planted p = plant_setup();
    /* "tid.y is uniform if blockDim.x is a multiple of 32": right, and
     * wrong at 16x16, where a warp spans two rows */
    uint32_t v = value_named(p.r, "%r2.1");
    /* the analysis itself says so under the default assumption */
    cr_expect_eq(p.r->state[v], DIV_UNIFORM);
    cr_expect_eq(p.r->cond[v], DIV_COND_X32);
    p.r->state[v] = DIV_UNIFORM;
    p.r->cond[v] = DIV_COND_X32;
    divcheck_totals t = run_at(&p, D2(32, 8));
    cr_expect_eq(t.violated, 0);
    cr_expect_eq(t.skipped_values, 0);
    cr_expect_geq(t.values, 16, "the claim on %%r2.1 is checked in every warp");
    t = run_at(&p, D2(128, 2));
    cr_expect_eq(t.violated, 0);
    divcheck_totals with = run_at(&p, D2(16, 16));
    cr_expect_eq(with.violated, 0);
    cr_expect_geq(with.skipped_values, 16);
    /* the same claim without its condition is caught at 16x16, and is no
     * longer among the skipped */
    p.r->cond[v] = 0;
    t = run_at(&p, D2(16, 16));
    cr_expect_eq(t.violated, 1);
    cr_expect_eq(with.skipped_values - t.skipped_values, 16);
    plant_done(&p);
}

Test(emu_shapes, planted_conditional_branches)
{
    planted p = plant_setup();
    /* the branch on tid.y != 0 claimed uniform where a warp lies in one row
     * (right), the one on tid.x < 8 too (wrong) */
    uint32_t g1 = value_named(p.r, "%p1.1"), g2 = value_named(p.r, "%p2.1");
    p.r->state[g1] = p.r->state[g2] = DIV_UNIFORM;
    p.r->cond[g1] = p.r->cond[g2] = DIV_COND_ROWS;
    /* 48x1 is one-dimensional: ROWS holds; the tid.x branch is caught */
    divcheck_totals t = run_at(&p, D1(48));
    cr_expect_eq(t.skipped_branches, 0);
    cr_expect_eq(t.branches, 8, "two branches, two warps, two blocks: %llu", (unsigned long long)t.branches);
    cr_expect_eq(divcheck_nviolations(p.c), 2, "the gate %%p2.1 and its branch");
    char *s = report(p.c);
    cr_expect(strstr(s, "geo.ptx:21:3: divergence claim violated: branch on %p2.1 claimed uniform (analysis affine, "
                        "assuming blockDim.x is a multiple of 32 or the block is one-dimensional) but warp 0 of block "
                        "(0,0,0) lanes 0 and 8 hold 0x1 and 0x0") != NULL, "%s", s);
    free(s);
    /* 16x16: ROWS fails, both branches skipped */
    t = run_at(&p, D2(16, 16));
    cr_expect_eq(t.violated, 0);
    cr_expect_eq(t.branches, 0);
    cr_expect_eq(t.skipped_branches, 32, "%llu", (unsigned long long)t.skipped_branches);
    plant_done(&p);
}

Test(emu_shapes, assumed_shape_analyses_once_and_reports_json)
{
    planted p = plant_setup();
    div_result *r = p.r;
    run_at(&p, D2(16, 16));
    run_at(&p, D1(100));
    cr_expect_eq(divcheck_result(p.c, "geo"), r, "a new shape does not redo the analysis");
    json_t *j = divcheck_report_json(p.c, "geo.ptx");
    cr_expect_str_eq(json_string_value(json_object_get(j, "shape")), "assumed");
    cr_expect_not_null(json_object_get(json_object_get(j, "skipped"), "branches"));
    json_decref(j);
    /* back to the launch's shape: analysed again, for that shape */
    divcheck_set_shape(p.c, DIVCHECK_SHAPE_LAUNCH);
    divcheck_begin(p.c, D1(100));
    div_result *r2 = divcheck_result(p.c, "geo");
    cr_expect_eq(r2->block[0], 100);
    j = divcheck_report_json(p.c, "geo.ptx");
    cr_expect_null(json_object_get(j, "shape"));
    json_decref(j);
    plant_done(&p);
}
