/* The divergence-claim checker (emu/divcheck.h, `ptxray run
 * --check-divergence`): no claim of any analysis is violated over the
 * launches of the emulator corpus tests, planted wrong claims (uniform
 * values, branches, phis, affine coefficients) are caught with their value
 * and line, and the CLI option. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "divcheck.h"
#include "emu_harness.h"
#include "emu_replay.h"
#include "testutil.h"

/* ---- every corpus test's launches (emu_replay.h), checked under all three analyses --------- */

/* Claims known to be violated: a soundness bug of an analysis, to be fixed
 * in analyses/ and then removed from here.  file is a substring of the
 * corpus path, analyses a mask of 1 << div_analysis. */
static const struct known_failure {
    const char *file, *kernel;
    unsigned analyses;
    const char *why;
} known_failures[] = {
    /* none: the last one (vote.sync/redux.sync with a per-lane member mask
     * in coop_groups' cg_tile8_max) was fixed in analyses/div_graph.c */
    {NULL, NULL, 0, NULL},
};

static const enum div_analysis all_analyses[3] = {DIV_AN_SIMPLE, DIV_AN_AFFINE, DIV_AN_AFFINE2};

typedef struct checkers {
    divcheck *c[3];
    emu_observer fan;
    const emu_observer *test_obs; /* the corpus test's own observer, if any */
} checkers;

static struct {
    unsigned launches, known;
    uint64_t checks;
} replay;

static void fan_out(void *user, const emu_event *ev)
{
    checkers *k = user;
    for (int i = 0; i < 3; i++) {
        const emu_observer *o = divcheck_observer(k->c[i]);
        o->on_inst(o->user, ev);
    }
    if (k->test_obs && k->test_obs->on_inst) k->test_obs->on_inst(k->test_obs->user, ev);
}

static void hook_opened(eh *h)
{
    checkers *k = calloc(1, sizeof *k);
    cr_assert_not_null(k);
    for (int i = 0; i < 3; i++) {
        ptx_diags d;
        ptx_diags_init(&d);
        k->c[i] = divcheck_new(h->m, all_analyses[i], &d);
        cr_assert_not_null(k->c[i], "%s: the program cannot be built (%u errors)", h->path, d.nerrors);
        ptx_diags_free(&d);
    }
    k->test_obs = h->opt.observer;
    k->fan = (emu_observer){fan_out, k};
    h->opt.observer = &k->fan;
    h->hook_data = k;
}

static void hook_launching(eh *h, const char *kernel, emu_dim3 grid, emu_dim3 block)
{
    (void)kernel, (void)grid;
    checkers *k = h->hook_data;
    for (int i = 0; i < 3; i++) divcheck_begin(k->c[i], block);
}

static const struct known_failure *known(const char *path, const char *kernel, enum div_analysis an)
{
    for (size_t i = 0; i < sizeof known_failures / sizeof known_failures[0]; i++) {
        const struct known_failure *f = &known_failures[i];
        if (f->file && strstr(path, f->file) && !strcmp(kernel, f->kernel) && (f->analyses >> an & 1)) return f;
    }
    return NULL;
}

static void hook_launched(eh *h, const char *kernel, emu_status st)
{
    (void)st; /* claims must hold up to a fault too */
    checkers *k = h->hook_data;
    replay.launches++;
    for (int i = 0; i < 3; i++) {
        divcheck_totals t;
        divcheck_get_totals(k->c[i], &t);
        replay.checks += t.values + t.phis + t.branches;
        const struct known_failure *kf = known(h->path, kernel, all_analyses[i]);
        /* a fixed analysis must take its entry out of the list */
        cr_expect(!kf || t.violated, "%s kernel %s (%s) no longer violates a claim: remove it from known_failures",
                  h->path, kernel, div_analysis_name(all_analyses[i]));
        if (!t.violated) continue;
        if (kf) {
            replay.known++;
            continue;
        }
        char *rep = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&rep, &len);
        divcheck_report_text(k->c[i], h->path, 20, f);
        fclose(f);
        cr_expect_fail("%s kernel %s:\n%s", h->path, kernel, rep);
        free(rep);
    }
}

static void hook_closing(eh *h)
{
    checkers *k = h->hook_data;
    if (!k) return;
    for (int i = 0; i < 3; i++) divcheck_free(k->c[i]);
    free(k);
    h->hook_data = NULL;
}

static const eh_hooks divcheck_hooks = {hook_opened, hook_launching, hook_launched, hook_closing};

static void replay_test(void (*body)(void))
{
    eh_hooks_on = &divcheck_hooks;
    body();
    eh_hooks_on = NULL;
    cr_assert_gt(replay.launches, 0, "no launch went through the harness");
    cr_assert_gt(replay.checks, 0, "no claim was checked");
    cr_log_info("%u launches, %llu claims checked (three analyses), %u known violations", replay.launches,
                (unsigned long long)replay.checks, replay.known);
}

EMU_CORPUS_TESTS(EMU_REPLAY_DECLARE)
#define REPLAY(name) \
    Test(emu_divcheck, corpus_##name) { replay_test(emu_corpus_##name##_impl); }
EMU_CORPUS_TESTS(REPLAY)

Test(emu_divcheck, corpus_list_is_complete) { emu_replay_check_list(); }

/* ---- planted claims ------------------------------------------------------------------------ */
/* k: a uniform branch on n, a store guarded by tid.x < n, and a join of two
 * constants on a divergent branch.  geo: the thread coordinates in affine forms. */
static const char *const kernels =
    ".version 7.0\n"
    ".target sm_80\n"
    ".address_size 64\n"
    ".visible .entry k(.param .u64 out, .param .u32 n)\n"
    "{\n"
    "  .reg .pred %p<4>;\n"
    "  .reg .b32 %r<8>;\n"
    "  .reg .b64 %rd<6>;\n"
    "  ld.param.u64 %rd1, [out];\n"               /* line 9 */
    "  ld.param.u32 %r1, [n];\n"
    "  setp.eq.u32 %p3, %r1, 0;\n"
    "  @%p3 bra $L_done;\n"
    "  mov.u32 %r2, %tid.x;\n"                    /* 13 */
    "  mul.wide.s32 %rd2, %r2, 4;\n"              /* 14 */
    "  add.s64 %rd3, %rd1, %rd2;\n"
    "  setp.ge.u32 %p1, %r2, %r1;\n"              /* 16 */
    "  @%p1 bra $L_done;\n"                       /* 17 */
    "  setp.lt.u32 %p2, %r2, 16;\n"
    "  @%p2 bra $L_a;\n"
    "  mov.u32 %r3, 1;\n"
    "  bra.uni $L_j;\n"
    "$L_a:\n"
    "  mov.u32 %r3, 2;\n"
    "$L_j:\n"
    "  add.s32 %r4, %r3, %r2;\n"                  /* 25 */
    "  st.global.u32 [%rd3], %r4;\n"
    "$L_done:\n"
    "  ret;\n"
    "}\n"
    ".visible .entry geo(.param .u64 out)\n"
    "{\n"
    "  .reg .b32 %r<10>;\n"
    "  .reg .b64 %rd<4>;\n"
    "  ld.param.u64 %rd1, [out];\n"
    "  mov.u32 %r1, %tid.x;\n"                    /* 33 */
    "  mov.u32 %r2, %tid.y;\n"
    "  mov.u32 %r3, %laneid;\n"
    "  mul.lo.u32 %r4, %r1, %r2;\n"               /* 36 */
    "  mov.u32 %r5, %ntid.x;\n"
    "  mad.lo.u32 %r6, %r2, %r5, %r1;\n"          /* 38 */
    "  sub.s32 %r7, 0, %r1;\n"
    "  mul.wide.u32 %rd2, %r6, 4;\n"
    "  add.s64 %rd3, %rd1, %rd2;\n"
    "  st.global.u32 [%rd3], %r4;\n"
    "  ret;\n"
    "}\n"
    /* wrap: 4·tid.x + base widened and compared; base = -16 makes lanes
     * 0-3 of warp 0 wrap around */
    ".visible .entry wrap(.param .u64 out, .param .u32 base)\n"
    "{\n"
    "  .reg .pred %p<2>;\n"
    "  .reg .b32 %r<8>;\n"
    "  .reg .b64 %rd<8>;\n"
    "  ld.param.u64 %rd1, [out];\n"              /* 52 */
    "  ld.param.u32 %r1, [base];\n"
    "  mov.u32 %r2, %tid.x;\n"
    "  shl.b32 %r3, %r2, 2;\n"
    "  add.s32 %r4, %r3, %r1;\n"                 /* 56: 4·tid.x + base */
    "  cvt.u64.u32 %rd2, %r4;\n"                 /* 57: a widening */
    "  add.s64 %rd3, %rd2, 1;\n"
    "  add.s32 %r5, %r3, 7;\n"                   /* 59: beside the widening */
    "  add.s32 %r6, %r4, 16;\n"
    "  setp.lt.u32 %p1, %r4, %r6;\n"             /* 61: a comparison */
    "  selp.u32 %r7, 1, 2, %p1;\n"
    "  mul.wide.u32 %rd4, %r2, 8;\n"             /* 63: a widening that does not wrap */
    "  add.s64 %rd5, %rd1, %rd4;\n"
    "  st.global.u64 [%rd5], %rd3;\n"
    "  st.global.u32 [%rd5+512], %r5;\n"
    "  st.global.u32 [%rd5+516], %r7;\n"
    "  ret;\n"
    "}\n";

typedef struct planted {
    eh *h;
    divcheck *c;
    div_result *r;
    uint64_t out;
} planted;

static planted plant_setup(const char *fn, enum div_analysis an, emu_dim3 block)
{
    planted p;
    p.c = NULL;
    p.h = eh_text(kernels, NULL);
    ptx_diags d;
    ptx_diags_init(&d);
    p.c = divcheck_new(p.h->m, an, &d);
    cr_assert_not_null(p.c);
    ptx_diags_free(&d);
    /* the machine must see the observer: make it again with it */
    emu_destroy(p.h->M);
    p.h->opt.observer = divcheck_observer(p.c);
    p.h->M = emu_create(p.h->m, &p.h->opt);
    divcheck_begin(p.c, block);
    p.r = divcheck_result(p.c, fn);
    cr_assert_not_null(p.r);
    p.out = eh_zero(p.h, 4096);
    return p;
}

static void plant_done(planted *p)
{
    eh_close(p->h);
    divcheck_free(p->c);
}

static uint32_t value_named(const div_result *r, const char *name) { return tu_value_named(r->pf->ssa, name); }

static char *report(const divcheck *c)
{
    char *s = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&s, &n);
    divcheck_report_text(c, "inline.ptx", 20, f);
    fclose(f);
    return s;
}

/* The report is exactly these lines after the summary line. */
static void expect_lines(const divcheck *c, const char *want)
{
    char *s = report(c);
    const char *nl = strchr(s, '\n');
    cr_assert_not_null(nl);
    cr_expect_str_eq(nl + 1, want, "report:\n%s", s);
    free(s);
}

Test(emu_divcheck, analysis_verdicts_hold_on_the_planting_kernels)
{
    for (int i = 0; i < 3; i++) {
        planted p = plant_setup("k", all_analyses[i], D1(64));
        EH_RUN(p.h, "k", D1(1), D1(64), "pi", p.out, 40);
        divcheck_totals t;
        divcheck_get_totals(p.c, &t);
        cr_expect_eq(t.violated, 0);
        /* both warps: the loads of out and n and the test of n; the
         * constant 1 on both warps, 2 on warp 0 only (warp 1's lanes below
         * n are 32..39); the phi of %r3 is divergent.  The affine analyses
         * also claim tid.x, 4·tid.x and 4·tid.x + ⊥ on both warps (6 more). */
        unsigned want_values = all_analyses[i] == DIV_AN_SIMPLE ? 9 : 15;
        cr_expect_eq(t.values, want_values, "values %u (%s)", (unsigned)t.values, div_analysis_name(all_analyses[i]));
        cr_expect_eq(t.phis, 0);
        cr_expect_eq(t.branches, 2, "the branch on n, once per warp");
        char *s = report(p.c);
        char want[200];
        snprintf(want, sizeof want, "divergence check (analysis %s): 0 claims violated;", div_analysis_name(all_analyses[i]));
        cr_expect(!strncmp(s, want, strlen(want)), "%s", s);
        free(s);
        plant_done(&p);
    }
}

Test(emu_divcheck, planted_uniform_tid_is_caught)
{
    planted p = plant_setup("k", DIV_AN_SIMPLE, D1(64));
    uint32_t v = value_named(p.r, "%r2.1");
    cr_assert_eq(p.r->state[v], DIV_DIVERGENT);
    p.r->state[v] = DIV_UNIFORM;
    EH_RUN(p.h, "k", D1(1), D1(64), "pi", p.out, 40);
    cr_assert_eq(divcheck_nviolations(p.c), 1);
    const divcheck_violation *x = divcheck_get_violation(p.c, 0);
    cr_expect_eq(x->kind, DIVCHECK_VALUE);
    cr_expect_eq(x->value, v);
    cr_expect_eq(x->fn->stmts[x->stmt]->loc.line, 13);
    cr_expect_eq(x->count, 2, "both warps");
    expect_lines(p.c, "inline.ptx:13:3: divergence claim violated: %r2.1 claimed uniform (analysis simple) but warp 0 "
                      "of block (0,0,0) lanes 0 and 1 hold 0x0 and 0x1 (2 times)\n");
    plant_done(&p);
}

Test(emu_divcheck, planted_uniform_branch_is_caught)
{
    planted p = plant_setup("k", DIV_AN_AFFINE, D1(64));
    /* the branch's verdict comes from its gate: make the gate uniform */
    uint32_t v = value_named(p.r, "%p1.1");
    cr_assert_eq(p.r->state[v], DIV_DIVERGENT);
    p.r->state[v] = DIV_UNIFORM;
    /* n = 40: warp 0 agrees (every lane below 40), warp 1 does not */
    EH_RUN(p.h, "k", D1(1), D1(64), "pi", p.out, 40);
    cr_assert_eq(divcheck_nviolations(p.c), 2);
    cr_expect_eq(divcheck_get_violation(p.c, 0)->kind, DIVCHECK_VALUE);
    cr_expect_eq(divcheck_get_violation(p.c, 1)->kind, DIVCHECK_BRANCH);
    cr_expect_eq(divcheck_get_violation(p.c, 1)->value, v);
    expect_lines(p.c, "inline.ptx:16:3: divergence claim violated: %p1.1 claimed uniform (analysis affine) but warp 1 "
                      "of block (0,0,0) lanes 0 and 8 hold 0x0 and 0x1\n"
                      "inline.ptx:17:3: divergence claim violated: branch on %p1.1 claimed uniform (analysis affine) "
                      "but warp 1 of block (0,0,0) lanes 0 and 8 hold 0x0 and 0x1\n");
    /* n = 64: every lane agrees */
    divcheck_begin(p.c, D1(64));
    EH_RUN(p.h, "k", D1(1), D1(64), "pi", p.out, 64);
    cr_expect_eq(divcheck_nviolations(p.c), 0);
    plant_done(&p);
}

/* Branches proven divergent (div_branch_split_warps) are checked in every
 * warp the claim names that runs them with all its threads: `tid.x < 16`
 * splits warp 0 of a 64-thread block, and warp 0 runs it whole (n = 40). */
Test(emu_divcheck, proven_divergent_branches_are_checked_warp_by_warp)
{
    planted p = plant_setup("k", DIV_AN_AFFINE, D1(64));
    const prog_func *pf = p.r->pf;
    uint32_t b19 = CFG_NONE;
    for (uint32_t i = 0; i < pf->fn->nstmts; i++)
        if (pf->fn->stmts[i]->loc.line == 19) b19 = pf->g->stmt_block[i];
    cr_assert_neq(b19, CFG_NONE);
    cr_expect_eq(div_branch_split_warps(p.r, b19), 1u, "warp 0 only");
    EH_RUN(p.h, "k", D1(2), D1(64), "pi", p.out, 40);
    divcheck_totals t;
    divcheck_get_totals(p.c, &t);
    cr_expect_eq(t.violated, 0);
    cr_expect_eq(t.splits, 2, "warp 0 of each block: %llu", (unsigned long long)t.splits);
    char *s = report(p.c);
    cr_expect(strstr(s, "; checked 2 divergent-branch claims in warps that ran them whole\n") != NULL, "%s", s);
    free(s);
    /* n = 8: warp 0 no longer runs it whole (lanes 8..31 left at line 17) */
    divcheck_begin(p.c, D1(64));
    EH_RUN(p.h, "k", D1(1), D1(64), "pi", p.out, 8);
    divcheck_get_totals(p.c, &t);
    cr_expect_eq(t.splits, 0);
    cr_expect_eq(t.violated, 0);
    plant_done(&p);
    /* the default assumption names warp 0 (tid.x = lane): skipped where
     * blockDim.x is not a multiple of 32 */
    p = plant_setup("k", DIV_AN_AFFINE, D1(64));
    divcheck_set_shape(p.c, DIVCHECK_SHAPE_ASSUMED);
    divcheck_begin(p.c, D3(16, 2, 1));
    EH_RUN(p.h, "k", D1(1), D3(16, 2, 1), "pi", p.out, 40);
    divcheck_get_totals(p.c, &t);
    cr_expect_eq(t.splits, 0);
    cr_expect_eq(t.skipped_splits, 1, "%llu", (unsigned long long)t.skipped_splits);
    divcheck_begin(p.c, D1(64));
    EH_RUN(p.h, "k", D1(1), D1(64), "pi", p.out, 40);
    divcheck_get_totals(p.c, &t);
    cr_expect_eq(t.splits, 1);
    cr_expect_eq(t.violated, 0);
    plant_done(&p);
}

/* A wrong divergent claim: n planted as the constant 40 makes `tid.x >= n`
 * split warp 1 (lanes 32..39 below, 40..63 not); with n = 64 warp 1 runs
 * the branch whole with every lane's condition false. */
Test(emu_divcheck, planted_divergent_branch_is_caught)
{
    planted p = plant_setup("k", DIV_AN_AFFINE, D1(64));
    uint32_t v = value_named(p.r, "%r1.1");
    arena a;
    arena_init(&a);
    cr_assert_eq(p.r->bot[v], 1, "n: a uniform unknown");
    p.r->bot[v] = 0;
    div_coefs_row(p.r, v, &a)[0] = 40;
    EH_RUN(p.h, "k", D1(1), D1(64), "pi", p.out, 64);
    /* the planted constant is a claim of its own, wrong too */
    cr_assert_eq(divcheck_nviolations(p.c), 2);
    cr_expect_eq(divcheck_get_violation(p.c, 0)->kind, DIVCHECK_VALUE);
    const divcheck_violation *x = divcheck_get_violation(p.c, 1);
    cr_expect_eq(x->kind, DIVCHECK_SPLIT);
    cr_expect_eq(x->warp, 1);
    expect_lines(p.c, "inline.ptx:10:3: divergence claim violated: %r1.1 claimed 40 (analysis affine) but warp 0 of "
                      "block (0,0,0) lane 0 holds 0x40, the claim gives 0x28 (2 times)\n"
                      "inline.ptx:17:3: divergence claim violated: branch on %p1.1 claimed divergent (analysis affine) "
                      "but warp 1 of block (0,0,0) ran it with all its threads, every lane holding 0x0\n");
    plant_done(&p);
    arena_free(&a);
}

Test(emu_divcheck, planted_uniform_phi_is_caught)
{
    planted p = plant_setup("k", DIV_AN_SIMPLE, D1(32));
    /* %r3 is 2 below tid 16 and 1 above: its phi at $L_j */
    uint32_t v = value_named(p.r, "%r3.3");
    cr_assert_eq(p.r->pf->ssa->values[v].kind, SSA_V_PHI);
    cr_assert_eq(p.r->state[v], DIV_DIVERGENT);
    p.r->state[v] = DIV_UNIFORM;
    EH_RUN(p.h, "k", D1(1), D1(32), "pi", p.out, 32);
    cr_assert_eq(divcheck_nviolations(p.c), 1);
    cr_expect_eq(divcheck_get_violation(p.c, 0)->kind, DIVCHECK_PHI);
    expect_lines(p.c, "inline.ptx:25:3: divergence claim violated: %r3.3 (phi) claimed uniform (analysis simple) but "
                      "warp 0 of block (0,0,0) lanes 0 and 16 hold 0x2 and 0x1\n");
    plant_done(&p);
}

/* Sets value v's coefficients: c[i] for the indexes in known (bit i), the
 * others unknown.  Makes the tables (in a, which the caller frees) when the
 * analysis has none. */
static void set_coefs(div_result *r, uint32_t v, unsigned ncoef, unsigned known, const int64_t *c, arena *a)
{
    if (!r->cslot || r->ncoef != ncoef) {
        uint32_t n = r->pf->ssa->nvalues;
        r->cslot = ARENA_NEWN(a, uint32_t, n);
        memset(r->cslot, 0xff, sizeof *r->cslot * n);
        r->crow = NULL;
        r->nrows = r->capblk = 0;
        r->bot = ARENA_NEWN(a, uint16_t, n);
        for (uint32_t k = 0; k < n; k++) r->bot[k] = (uint16_t)((1u << ncoef) - 1);
        r->ncoef = ncoef;
    }
    int64_t *row = div_coefs_row(r, v, a);
    for (unsigned i = 0; i < ncoef; i++) row[i] = c[i];
    r->bot[v] = (uint16_t)(((1u << ncoef) - 1) & ~known);
}

Test(emu_divcheck, affine_claim_of_mul_wide)
{
    struct {
        int64_t c[2];
        unsigned known;
        const char *line; /* NULL: the claim holds */
    } cases[] = {
        {{0, 4}, 0x1e, NULL},
        {{0, 4}, 0x1f, NULL},
        {{0, 5}, 0x1e, "inline.ptx:14:3: divergence claim violated: %rd2.1 claimed 5·tid.x + ⊥ (analysis simple) but "
                       "warp 0 of block (0,0,0) lanes 0 and 1 hold 0x0 and 0x4, the claim wants a difference of 0x5 "
                       "(2 times)\n"},
        {{0, 5}, 0x1f, "inline.ptx:14:3: divergence claim violated: %rd2.1 claimed 5·tid.x + 0 (analysis simple) but "
                       "warp 0 of block (0,0,0) lane 1 holds 0x4, the claim gives 0x5 (2 times)\n"},
        {{8, 4}, 0x1f, "inline.ptx:14:3: divergence claim violated: %rd2.1 claimed 4·tid.x + 8 (analysis simple) but "
                       "warp 0 of block (0,0,0) lane 0 holds 0x0, the claim gives 0x8 (2 times)\n"},
        /* tid.y is 0 in a one-dimensional block: its coefficient does not matter */
        {{0, 4}, 0x1f, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        /* the simple analysis has no coefficients: set_coefs makes them */
        planted p = plant_setup("k", DIV_AN_SIMPLE, D1(64));
        arena own;
        arena_init(&own);
        int64_t c[DIV_NCOEF1] = {cases[i].c[0], cases[i].c[1], i == 5 ? 77 : 0, 0, 0};
        set_coefs(p.r, value_named(p.r, "%rd2.1"), DIV_NCOEF1, cases[i].known, c, &own);
        EH_RUN(p.h, "k", D1(1), D1(64), "pi", p.out, 64);
        expect_lines(p.c, cases[i].line ? cases[i].line : "");
        plant_done(&p);
        arena_free(&own);
    }
}

Test(emu_divcheck, affine_claims_use_the_launch_geometry)
{
    /* block 16x4: two warps, tid.y = 2 + lane/16 in warp 1 */
    struct {
        const char *value;
        enum div_analysis an;
        unsigned ncoef, known;
        int64_t c[DIV_NCOEF2];
        bool holds;
    } cases[] = {
        {"%r1.1", DIV_AN_AFFINE, 5, 0x1f, {0, 1}, true},
        {"%r1.1", DIV_AN_AFFINE, 5, 0x1f, {0, 1 + (1ll << 32)}, true}, /* modulo 2^32 */
        {"%r1.1", DIV_AN_AFFINE, 5, 0x1f, {0, 1 + (1ll << 31)}, false},
        {"%r7.1", DIV_AN_AFFINE, 5, 0x1f, {0, -1}, true},
        {"%r2.1", DIV_AN_AFFINE, 5, 0x1e, {0, 0, 1}, true},
        {"%r2.1", DIV_AN_AFFINE, 5, 0x1e, {0, 0, 2}, false},
        {"%r3.1", DIV_AN_AFFINE, 5, 0x1f, {0, 0, 0, 0, 1}, true},
        {"%r3.1", DIV_AN_AFFINE, 5, 0x1f, {0, 1, 16, 0, 0}, false}, /* laneid is not x + 16y in warp 1 */
        {"%r3.1", DIV_AN_AFFINE, 5, 0x1e, {0, 1, 16, 0, 0}, true},  /* ... but it is up to a constant */
        {"%r6.1", DIV_AN_AFFINE, 5, 0x1f, {0, 1, 16, 0, 0}, true},
        {"%r6.1", DIV_AN_AFFINE, 5, 0x1f, {0, 1, 15, 0, 0}, false},
        {"%r4.1", DIV_AN_AFFINE2, 15, 0x7fff, {[6] = 1}, true},  /* tid.x*tid.y */
        {"%r4.1", DIV_AN_AFFINE2, 15, 0x7fff, {[5] = 1}, false}, /* tid.x*tid.x */
        {"%r4.1", DIV_AN_AFFINE2, 15, 0x7fff, {[11] = 1}, false},/* tid.y*laneid */
        {"%r4.1", DIV_AN_AFFINE2, 15, 0x7ffe, {[6] = 1}, true},
        /* an unknown coefficient: nothing to check */
        {"%r4.1", DIV_AN_AFFINE2, 15, 0x7fbf, {[5] = 1}, true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        planted p = plant_setup("geo", cases[i].an, D2(16, 4));
        arena own;
        arena_init(&own);
        uint32_t v = value_named(p.r, cases[i].value);
        set_coefs(p.r, v, cases[i].ncoef, cases[i].known, cases[i].c, &own);
        EH_RUN(p.h, "geo", D1(1), D2(16, 4), "p", p.out);
        cr_expect_eq(divcheck_nviolations(p.c), cases[i].holds ? 0u : 1u, "case %zu (%s)", i, cases[i].value);
        if (!cases[i].holds && divcheck_nviolations(p.c))
            cr_expect_eq(divcheck_get_violation(p.c, 0)->value, v, "case %zu", i);
        plant_done(&p);
        arena_free(&own);
    }
}

/* The affine analyses assume no wraparound at widenings and comparisons
 * (docs/divergence.md): where a warp's operands wrap, the claims that
 * depend on them are counted apart; every other claim is still checked,
 * in that warp too. */
Test(emu_divcheck, claims_whose_values_wrap_around_are_counted_apart)
{
    for (int i = 1; i < 3; i++) {
        planted p = plant_setup("wrap", all_analyses[i], D1(64));
        cr_assert_eq(p.r->state[value_named(p.r, "%rd2.1")], DIV_AFFINE);
        cr_assert_eq(p.r->state[value_named(p.r, "%p1.1")], DIV_UNIFORM);
        EH_RUN(p.h, "wrap", D1(1), D1(64), "pi", p.out, 5);
        divcheck_totals t;
        divcheck_get_totals(p.c, &t);
        cr_expect_eq(t.violated, 0);
        cr_expect_eq(t.wrapped, 0, "nothing wraps with base 5");
        /* base -16: in warp 0 %rd2, %rd3 (4·tid.x + ⊥, 64 bits), %p1 and %r7 (uniform) */
        divcheck_begin(p.c, D1(64));
        EH_RUN(p.h, "wrap", D1(1), D1(64), "pi", p.out, -16);
        divcheck_get_totals(p.c, &t);
        cr_expect_eq(t.violated, 0, "%s", report(p.c));
        cr_expect_eq(t.wrapped, 4, "%s: %llu", div_analysis_name(all_analyses[i]), (unsigned long long)t.wrapped);
        plant_done(&p);
    }
    /* wrong claims beside the wrapped values, in the same warp: caught */
    planted p = plant_setup("wrap", DIV_AN_AFFINE, D1(64));
    arena own;
    arena_init(&own);
    p.r->state[value_named(p.r, "%r5.1")] = DIV_UNIFORM; /* 4·tid.x + 7 */
    int64_t c[DIV_NCOEF1] = {0, 9};
    set_coefs(p.r, value_named(p.r, "%rd4.1"), DIV_NCOEF1, 0x1f, c, &own); /* 9·tid.x, not 8 */
    EH_RUN(p.h, "wrap", D1(1), D1(64), "pi", p.out, -16);
    expect_lines(p.c, "inline.ptx:59:3: divergence claim violated: %r5.1 claimed uniform (analysis affine) but warp 0 "
                      "of block (0,0,0) lanes 0 and 1 hold 0x7 and 0xb (2 times)\n"
                      "inline.ptx:63:3: divergence claim violated: %rd4.1 claimed 9·tid.x + 0 (analysis affine) but "
                      "warp 0 of block (0,0,0) lane 1 holds 0x8, the claim gives 0x9 (2 times)\n");
    divcheck_totals t;
    divcheck_get_totals(p.c, &t);
    cr_expect_eq(t.wrapped, 4);
    plant_done(&p);
    arena_free(&own);
}

Test(emu_divcheck, report_lists_twenty)
{
    /* every value and branch of avgSquare claimed uniform */
    eh *h = eh_open("ptx-corpus/sm_80/sampaio_divergence.ptx", NULL);
    ptx_diags d;
    ptx_diags_init(&d);
    divcheck *c = divcheck_new(h->m, DIV_AN_SIMPLE, &d);
    cr_assert_not_null(c);
    ptx_diags_free(&d);
    emu_destroy(h->M);
    h->opt.observer = divcheck_observer(c);
    h->M = emu_create(h->m, &h->opt);
    divcheck_begin(c, D1(64));
    div_result *r = divcheck_result(c, "avgSquare");
    cr_assert_not_null(r);
    memset(r->state, DIV_UNIFORM, r->pf->ssa->nvalues);
    uint64_t m = eh_zero(h, 1664 * 4), v = eh_zero(h, 64 * 4);
    EH_RUN(h, "avgSquare", D1(1), D1(64), "ppi", m, v, 40);
    uint32_t n = divcheck_nviolations(c);
    cr_assert_eq(n, 22, "%u", n);
    char *s = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&s, &len);
    divcheck_report_text(c, "x.ptx", 20, f);
    fclose(f);
    unsigned lines = 0, listed = 0;
    for (const char *p = s; *p; p++) lines += *p == '\n';
    for (const char *p = s; (p = strstr(p, ": divergence claim violated: ")); p++) listed++;
    cr_expect_eq(lines, 22, "%s", s);
    cr_expect_eq(listed, 20);
    cr_expect(strstr(s, "\n(2 further violated claims not listed)\n") != NULL, "%s", s);
    /* report order: by position; at line 68 the phi of %r37 comes before
     * the value the instruction defines */
    for (uint32_t i = 1; i < n; i++) {
        const divcheck_violation *a = divcheck_get_violation(c, i - 1), *b = divcheck_get_violation(c, i);
        cr_expect_leq(a->fn->stmts[a->stmt]->loc.off, b->fn->stmts[b->stmt]->loc.off);
    }
    cr_expect(strstr(s, "x.ptx:68:2: divergence claim violated: %r37.3 (phi) claimed uniform (analysis simple) but "
                        "warp 0 of block (0,0,0) lanes 0 and 1 hold 0x0 and 0x1 (20 times)\n"
                        "x.ptx:68:2: divergence claim violated: %rd9.1 claimed uniform") != NULL, "%s", s);
    free(s);
    eh_close(h);
    divcheck_free(c);
}

/* ---- the CLI ------------------------------------------------------------------------------ */
#define BIN ((char *)tu_bin())
static char *corpus(const char *rel)
{
    static char buf[4][1024];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s", tu_src(rel));
    return buf[k];
}

Test(emu_divcheck, cli_reports_no_violation)
{
    const char *an[] = {NULL, "--check-divergence=simple", "--check-divergence=affine", "--check-divergence=affine2"};
    const char *name[] = {"affine", "simple", "affine", "affine2"};
    for (int i = 0; i < 4; i++) {
        char *out, *err;
        char *a[] = {BIN, "run", corpus("ptx-corpus/sm_80/nested_divergence.ptx"), "--kernel", "collatz_steps",
                     "--block", "64", "--arg", "buf:u32:64:iota:1", "--arg", "buf:i32:64", "--arg", "i32:64",
                     "--arg", "i32:1000", i ? (char *)an[i] : "--check-divergence", NULL};
        cr_assert_eq(tu_run(a, &out, &err), 0, "%s", err);
        char want[128];
        snprintf(want, sizeof want, "\ndivergence check (analysis %s): 0 claims violated; checked ", name[i]);
        cr_expect(strstr(out, want) != NULL, "%s", out);
        free(out);
        free(err);
    }
}

Test(emu_divcheck, cli_json_counts)
{
    char *out, *err;
    char *a[] = {BIN, "run", corpus("ptx-corpus/sm_80/sampaio_divergence.ptx"), "--kernel", "avgSquare", "--block",
                 "64", "--arg", "buf:f32:1664:rand:1", "--arg", "buf:f32:64", "--arg", "i32:40",
                 "--check-divergence=affine2", "--format", "json", NULL};
    cr_assert_eq(tu_run(a, &out, &err), 0, "%s", err);
    json_error_t je;
    json_t *root = json_loads(out, 0, &je);
    cr_assert_not_null(root, "%s", je.text);
    json_t *dc = json_object_get(root, "divergence_check");
    cr_assert_not_null(dc, "%s", out);
    cr_expect_str_eq(json_string_value(json_object_get(dc, "analysis")), "affine2");
    cr_expect_eq(json_integer_value(json_object_get(dc, "violated")), 0);
    cr_expect_eq(json_integer_value(json_object_get(dc, "occurrences")), 0);
    json_t *ck = json_object_get(dc, "checked");
    cr_expect_gt(json_integer_value(json_object_get(ck, "values")), 0);
    cr_expect_gt(json_integer_value(json_object_get(ck, "branches")), 0);
    cr_expect_eq(json_array_size(json_object_get(dc, "violations")), 0);
    json_decref(root);
    free(out);
    free(err);
}

Test(emu_divcheck, cli_violation_exit_status_and_json)
{
    /* shfl.sync.idx from a lane outside the member mask: the analysis
     * assumes the source lane takes part, the emulator gives each lane its
     * own value back */
    char *out, *err;
    char *a[] = {BIN, "run", corpus("tests/data/divcheck_shfl_inactive.ptx"), "--block", "16", "--arg", "buf:u32:16",
                 "--check-divergence", "-q", NULL};
    cr_assert_eq(tu_run(a, &out, &err), 1, "%s", err);
    char want[1200];
    snprintf(want, sizeof want,
             "divergence check (analysis affine): 1 claim violated in 1 warp-instruction; checked 5 values, 0 phi/eta "
             "values, 0 branches\n"
             "%s:17:2: divergence claim violated: %%r2.1 claimed uniform (analysis affine) but warp 0 of block "
             "(0,0,0) lanes 0 and 1 hold 0x0 and 0x1\n",
             corpus("tests/data/divcheck_shfl_inactive.ptx"));
    cr_expect_str_eq(out, want);
    free(out);
    free(err);
    char *j[] = {BIN, "run", corpus("tests/data/divcheck_shfl_inactive.ptx"), "--block", "16", "--arg", "buf:u32:16",
                 "--check-divergence=simple", "--format", "json", NULL};
    cr_assert_eq(tu_run(j, &out, &err), 1, "%s", err);
    json_error_t je;
    json_t *root = json_loads(out, 0, &je);
    cr_assert_not_null(root, "%s", je.text);
    json_t *dc = json_object_get(root, "divergence_check");
    cr_expect_eq(json_integer_value(json_object_get(dc, "violated")), 1);
    json_t *v = json_array_get(json_object_get(dc, "violations"), 0);
    cr_assert_not_null(v, "%s", out);
    cr_expect_eq(json_integer_value(json_object_get(v, "line")), 17);
    cr_expect_str_eq(json_string_value(json_object_get(v, "kind")), "value");
    cr_expect_str_eq(json_string_value(json_object_get(v, "value")), "%r2.1");
    cr_expect_str_eq(json_string_value(json_object_get(v, "claim")), "uniform");
    cr_expect_str_eq(json_string_value(json_array_get(json_object_get(v, "held"), 1)), "0x1");
    json_decref(root);
    free(out);
    free(err);
}

Test(emu_divcheck, cli_counts_claims_whose_values_wrap_around)
{
    char *out, *err;
    char *a[] = {BIN, "run", corpus("tests/data/divcheck_wrap.ptx"), "--block", "64", "--arg", "buf:u8:1024", "--arg",
                 "i32:-16", "--check-divergence", "-q", NULL};
    cr_assert_eq(tu_run(a, &out, &err), 0, "%s", err);
    cr_expect_str_eq(out, "divergence check (analysis affine): 0 claims violated; checked 26 values, 0 phi/eta values, "
                          "0 branches; 4 not met where values wrapped around (the no-wraparound assumption failed)\n");
    free(out);
    free(err);
    char *j[] = {BIN, "run", corpus("tests/data/divcheck_wrap.ptx"), "--block", "64", "--arg", "buf:u8:1024", "--arg",
                 "i32:-16", "--check-divergence=affine2", "--format", "json", NULL};
    cr_assert_eq(tu_run(j, &out, &err), 0, "%s", err);
    json_error_t je;
    json_t *root = json_loads(out, 0, &je);
    cr_assert_not_null(root, "%s", je.text);
    json_t *dc = json_object_get(root, "divergence_check");
    cr_expect_eq(json_integer_value(json_object_get(dc, "violated")), 0);
    cr_expect_eq(json_integer_value(json_object_get(dc, "wrapped")), 4, "%s", out);
    json_decref(root);
    free(out);
    free(err);
    /* nothing wraps: no count */
    char *b[] = {BIN, "run", corpus("tests/data/divcheck_wrap.ptx"), "--block", "64", "--arg", "buf:u8:1024", "--arg",
                 "i32:5", "--check-divergence", "-q", NULL};
    cr_assert_eq(tu_run(b, &out, &err), 0, "%s", err);
    cr_expect_str_eq(out, "divergence check (analysis affine): 0 claims violated; checked 26 values, 0 phi/eta values, "
                          "0 branches\n");
    free(out);
    free(err);
}

Test(emu_divcheck, cli_bad_analysis)
{
    char *out, *err;
    char *a[] = {BIN, "run", corpus("ptx-corpus/sm_80/sampaio_divergence.ptx"), "--kernel", "avgSquare", "--block",
                 "64", "--arg", "buf:f32:1664", "--arg", "buf:f32:64", "--arg", "i32:40", "--check-divergence=foo",
                 NULL};
    cr_assert_eq(tu_run(a, &out, &err), 2);
    cr_expect_str_eq(err, "ptxray run: --check-divergence=foo: expected simple, affine or affine2\n");
    cr_expect_str_eq(out, "");
    free(out);
    free(err);
    char *h[] = {BIN, "run", "--help", NULL};
    cr_assert_eq(tu_run(h, &out, &err), 0);
    cr_expect(strstr(out, "--check-divergence[=simple|affine|affine2]") != NULL, "%s", out);
    free(out);
    free(err);
}

/* ---- results narrower than the instruction suggests (tests/data/divcheck_narrow.ptx) ---- */

/* The state and abstract value `divergence --analysis AN` lists for the value
 * named at PTX line `line` (its "%rN.K" spelling). */
static void expect_value(const char *an, const char *kernel, int line, const char *value, const char *state,
                         const char *abs)
{
    char *out, *err;
    char *a[] = {BIN, "divergence", corpus("tests/data/divcheck_narrow.ptx"), "--kernel", (char *)kernel,
                 "--analysis", (char *)an, NULL};
    cr_assert_eq(tu_run(a, &out, &err), 0, "%s", err);
    char want[64];
    snprintf(want, sizeof want, "\n      %d  %s ", line, value);
    const char *p = strstr(out, want);
    cr_assert_not_null(p, "%s %s: no line for %s\n%s", an, kernel, want, out);
    const char *eol = strchr(p + 1, '\n');
    char row[256];
    snprintf(row, sizeof row, "%.*s", (int)(eol - p - 1), p + 1);
    char ws[64];
    snprintf(ws, sizeof ws, " %s ", state);
    cr_expect(strstr(row, ws) != NULL, "%s %s: %s is not %s: %s", an, kernel, value, state, row);
    size_t n = strlen(row), m = strlen(abs);
    cr_expect(n >= m && !strcmp(row + n - m, abs), "%s %s: %s is not %s: %s", an, kernel, value, abs, row);
    free(out);
    free(err);
}

Test(emu_divcheck, narrow_results)
{
    const char *an[] = {"affine", "affine2"};
    for (int i = 0; i < 2; i++) {
        /* mov.b64 {lo, hi}: the halves, a constant's exactly */
        expect_value(an[i], "unpack", 21, "%r1.1", "affine", "tid.x + 0");
        expect_value(an[i], "unpack", 22, "%r3.1", "uniform", "560513589");
        expect_value(an[i], "unpack", 22, "%r4.1", "uniform", "-921707870");
        /* cvt.u8 into .b16 keeps 8 bits: 16*tid.x is not its value */
        expect_value(an[i], "narrow_cvt", 45, "%rs1.1", "divergent", "\xe2\x8a\xa5\xc2\xb7tid + \xe2\x8a\xa5");
        expect_value(an[i], "narrow_cvt", 47, "%rs2.1", "affine", "16\xc2\xb7tid.x + 0");
        /* shfl.sync.idx: clamp 0, 3 (below lane 5) and a segment mask keep
         * each lane's own value; clamp 31 (in a register) and 7 broadcast */
        expect_value(an[i], "shfl_clamp", 69, "%r1.1", "divergent", "\xe2\x8a\xa5\xc2\xb7tid + \xe2\x8a\xa5");
        expect_value(an[i], "shfl_clamp", 70, "%r2.1", "uniform", "\xe2\x8a\xa5");
        expect_value(an[i], "shfl_clamp", 71, "%r3.1", "uniform", "\xe2\x8a\xa5");
        expect_value(an[i], "shfl_clamp", 72, "%r4.1", "divergent", "\xe2\x8a\xa5\xc2\xb7tid + \xe2\x8a\xa5");
        expect_value(an[i], "shfl_clamp", 73, "%r5.1", "divergent", "\xe2\x8a\xa5\xc2\xb7tid + \xe2\x8a\xa5");
    }
    /* and the emulator contradicts no claim of any analysis, at two shapes */
    const char *kernels[] = {"unpack", "narrow_cvt", "shfl_clamp"};
    const char *checks[] = {"--check-divergence=simple", "--check-divergence=affine", "--check-divergence=affine2"};
    const char *blocks[] = {"64", "16,4"};
    for (int k = 0; k < 3; k++)
        for (int c = 0; c < 3; c++)
            for (int b = 0; b < 2; b++) {
                char *out, *err;
                char *a[] = {BIN, "run", corpus("tests/data/divcheck_narrow.ptx"), "--kernel", (char *)kernels[k],
                             "--block", (char *)blocks[b], "--arg", "buf:u32:256", (char *)checks[c], NULL};
                cr_assert_eq(tu_run(a, &out, &err), 0, "%s", err);
                cr_expect(strstr(out, ": 0 claims violated; checked ") != NULL, "%s %s --block %s: %s", kernels[k],
                          checks[c], blocks[b], out);
                free(out);
                free(err);
            }
}
