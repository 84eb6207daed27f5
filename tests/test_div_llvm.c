/* The uniformity scenarios of LLVM's NVPTX tests
 * (llvm/test/Analysis/UniformityAnalysis/NVPTX, one .ll each), hand-translated to PTX
 * in tests/data/uniformity/ (each file's header says which CHECK lines it
 * reproduces).  Every test checks, for the simple and both affine analyses,
 * the verdict of every conditional branch of the function and of every
 * value the .ll CHECKs.  Where ours legitimately differs from LLVM's the
 * comment says why.
 *
 * The affine analyses must agree with the simple one on uniform vs not
 * uniform here (nothing in these scenarios is a comparison that affine
 * constraints could prove uniform).  What they should add, the affine
 * coefficients of the thread-index values, is in the *_affine_precision
 * tests. */
#include <criterion/criterion.h>
#include <string.h>
#include "divergence.h"
#include "testutil.h"

static const enum div_analysis ANALYSES[] = {DIV_AN_SIMPLE, DIV_AN_AFFINE, DIV_AN_AFFINE2};
#define NANALYSES 3

typedef struct run {
    ptx_module *m;
    prog *p;
    const prog_func *pf;
    div_result *r[NANALYSES];
} run;

static run load(const char *file, const char *fn, const div_options *o)
{
    char rel[256];
    snprintf(rel, sizeof rel, "tests/data/uniformity/%s", file);
    run x;
    ptx_diags d;
    ptx_diags_init(&d);
    x.m = ptx_parse_file(tu_src(rel), &d);
    cr_assert(x.m, "%s does not parse", rel);
    x.p = prog_build(x.m, PROG_GSA, fn, &d);
    cr_assert(x.p && x.p->nfuncs == 1, "%s: no function %s", rel, fn);
    ptx_diags_free(&d);
    x.pf = &x.p->funcs[0];
    for (int i = 0; i < NANALYSES; i++) x.r[i] = div_analyse(x.pf, ANALYSES[i], o, &x.p->a);
    return x;
}

static void done(run *x)
{
    prog_free(x->p);
    ptx_module_free(x->m);
}

static uint32_t value(const run *x, const char *name) { return tu_value_named(x->pf->ssa, name); }

/* Expected verdicts.  D: divergent in all three analyses (not an affine
 * function of the thread coordinates: predicates on them, gammas and etas
 * with divergent gates, per-thread loads).  N: not uniform, affine in the
 * affine analyses (the thread-index values and their sums; their exact
 * form is in the *_affine_precision tests), divergent in the simple one. */
enum { U, D, N };

typedef struct want {
    const char *name; /* SSA value; for a branch, the value of its gate */
    int verdict;
    const char *llvm; /* the .ll's name, for the messages */
} want;

static void expect_values(const run *x, const want *w, size_t n)
{
    for (int a = 0; a < NANALYSES; a++)
        for (size_t i = 0; i < n; i++) {
            int st = x->r[a]->state[value(x, w[i].name)];
            const char *an = div_analysis_name(ANALYSES[a]);
            if (w[i].verdict == U)
                cr_expect_eq(st, DIV_UNIFORM, "%s: %s (%s) should be uniform, is %s", an, w[i].name, w[i].llvm,
                             div_state_name(st));
            else if (w[i].verdict == D)
                cr_expect_eq(st, DIV_DIVERGENT, "%s: %s (%s) should be divergent, is %s", an, w[i].name,
                             w[i].llvm, div_state_name(st));
            else if (ANALYSES[a] == DIV_AN_SIMPLE)
                cr_expect_eq(st, DIV_DIVERGENT, "%s: %s (%s) should be divergent, is %s", an, w[i].name,
                             w[i].llvm, div_state_name(st));
            else
                cr_expect_neq(st, DIV_UNIFORM, "%s: %s (%s) should not be uniform", an, w[i].name, w[i].llvm);
        }
}

/* Every conditional branch of the function, identified by its gate, with
 * its verdict: one missing from w fails the test. */
static void expect_branches(const run *x, const want *w, size_t n)
{
    const cfg *g = x->pf->g;
    size_t seen = 0;
    for (uint32_t b = 0; b < g->nblocks; b++) {
        if (!g->blocks[b].reachable || g->blocks[b].nsucc < 2) continue;
        uint32_t gv;
        bool neg;
        char bn[64], vn[64];
        cfg_block_name(g, b, bn, sizeof bn);
        cr_assert(gsa_branch_gate(x->pf->ssa, b, &gv, &neg) && gv != SSA_NONE, "branch %s has no gate", bn);
        ssa_value_name(x->pf->ssa, gv, vn, sizeof vn);
        size_t i = 0;
        while (i < n && strcmp(w[i].name, vn)) i++;
        cr_assert_lt(i, n, "branch %s on %s not expected", bn, vn);
        seen++;
        for (int a = 0; a < NANALYSES; a++) {
            int want_st = w[i].verdict == U ? DIV_UNIFORM : DIV_DIVERGENT;
            cr_expect_eq(div_branch(x->r[a], b), want_st, "%s: branch %s on %s (br %s) should be %s",
                         div_analysis_name(ANALYSES[a]), bn, vn, w[i].llvm, div_state_name(want_st));
        }
    }
    cr_expect_eq(seen, n, "%zu conditional branches, %zu expected", seen, n);
}

#define EXPECT_VALUES(x, ...)                                                                                       \
    do {                                                                                                            \
        const want w_[] = {__VA_ARGS__};                                                                            \
        expect_values(x, w_, sizeof w_ / sizeof w_[0]);                                                             \
    } while (0)
#define EXPECT_BRANCHES(x, ...)                                                                                     \
    do {                                                                                                            \
        const want w_[] = {__VA_ARGS__};                                                                            \
        expect_branches(x, w_, sizeof w_ / sizeof w_[0]);                                                           \
    } while (0)

/* An affine value: the coefficients of 1, tid.x, tid.y, tid.z, laneid;
 * bit i of unknown set when coefficient i is unknown (only the constant
 * term may be: a uniform but unknown offset).  With degree 2 the quadratic
 * coefficients must all be known zeros. */
static void expect_affine(const run *x, const char *name, const int64_t c[DIV_NCOEF1], unsigned unknown)
{
    uint32_t v = value(x, name);
    for (int a = 1; a < NANALYSES; a++) {
        const div_result *r = x->r[a];
        const char *an = div_analysis_name(ANALYSES[a]);
        char txt[256];
        div_value_text(r, v, txt, sizeof txt);
        if (r->state[v] != DIV_AFFINE) {
            cr_expect_fail("%s: %s should be affine, is %s (%s)", an, name, div_state_name(r->state[v]), txt);
            continue;
        }
        for (unsigned i = 0; i < r->ncoef; i++) {
            int64_t got = 0;
            bool known = div_coef(r, v, i, &got);
            if (i < DIV_NCOEF1 && (unknown >> i & 1)) {
                cr_expect(!known, "%s: %s: coefficient of %s should be unknown (%s)", an, name, div_coef_name(i),
                          txt);
                continue;
            }
            int64_t want = i < DIV_NCOEF1 ? c[i] : 0;
            cr_expect(known && got == want, "%s: %s: coefficient of %s should be %lld (%s)", an, name,
                      div_coef_name(i), (long long)want, txt);
        }
    }
}

#define C0 1u /* unknown constant term */
static const int64_t TIDX[DIV_NCOEF1] = {0, 1, 0, 0, 0};
static const int64_t TIDY[DIV_NCOEF1] = {0, 0, 1, 0, 0};
static const int64_t TIDZ[DIV_NCOEF1] = {0, 0, 0, 1, 0};
static const int64_t LANE[DIV_NCOEF1] = {0, 0, 0, 0, 1};

/* ---- diverge.ll ---------------------------------------------------------- */

/* The branch is on a kernel parameter.  %a1, %b2 and %c depend on tid.x,
 * and LLVM (which does not CHECK them) calls them divergent; so do we. */
Test(div_llvm, diverge_no_diverge)
{
    run x = load("diverge.ptx", "no_diverge", NULL);
    EXPECT_VALUES(&x, {"%p1.1", U, "%cond"}, {"%r4.1", N, "%tid"}, {"%r5.1", N, "%a1"}, {"%r6.1", N, "%b2"},
                  {"%r7.3", N, "%c"});
    EXPECT_BRANCHES(&x, {"%p1.1", U, "%cond"});
    done(&x);
}

/* LLVM treats tid.y and tid.z as divergent whatever the shape; ptxray's
 * default assumption (blockDim.x a multiple of 32) makes them warp-uniform,
 * so these scenarios are given blocks in which they vary within a warp and
 * reach past the constant 5 they are compared with: 4x8 (tid.y 0..7 in
 * every warp), 2x2x16 (tid.z = 8·w + lane / 4). */
static const div_options SHAPE_Y = {.block = {4, 8, 1}, .assume_tid_yz_uniform = false};
static const div_options SHAPE_Z = {.block = {2, 2, 16}, .assume_tid_yz_uniform = false};

Test(div_llvm, diverge_sync)
{
    run x = load("diverge.ptx", "sync", &SHAPE_Y);
    EXPECT_VALUES(&x, {"%r3.1", N, "%tid = tid.y"}, {"%p1.1", D, "%cond"}, {"%r4.1", U, "%a"},
                  {"%r4.2", U, "%b"}, {"%r4.3", D, "%c"});
    EXPECT_BRANCHES(&x, {"%p1.1", D, "%cond"});
    done(&x);
}

/* LLVM knows nothing of the block shape and always calls tid.y divergent.
 * Given a block whose x extent is a multiple of 32, every thread of a warp
 * has the same tid.y, and @sync becomes uniform throughout. */
Test(div_llvm, diverge_sync_block_64x4)
{
    div_options o = {.block = {64, 4, 1}, .assume_tid_yz_uniform = false};
    run x = load("diverge.ptx", "sync", &o);
    EXPECT_VALUES(&x, {"%r3.1", U, "%tid = tid.y"}, {"%p1.1", U, "%cond"}, {"%r4.3", U, "%c"});
    EXPECT_BRANCHES(&x, {"%p1.1", U, "%cond"});
    done(&x);
}

Test(div_llvm, diverge_mixed)
{
    run x = load("diverge.ptx", "mixed", &SHAPE_Z);
    EXPECT_VALUES(&x, {"%r4.1", N, "%tid = tid.z"}, {"%p1.1", D, "%cond"}, {"%p2.1", U, "%cond2"},
                  {"%r5.3", U, "%c"}, {"%r6.3", D, "%c2"});
    EXPECT_BRANCHES(&x, {"%p1.1", D, "%cond"}, {"%p2.1", U, "%cond2"});
    done(&x);
}

/* A .func's parameters are read with ld.param from its own parameter
 * space: per thread, as LLVM treats a __device__ function's arguments. */
Test(div_llvm, diverge_device)
{
    run x = load("diverge.ptx", "device", NULL);
    EXPECT_VALUES(&x, {"%r1.1", D, "%n"}, {"%r2.1", D, "%a"}, {"%r3.1", D, "%b"}, {"%p1.1", D, "%cond"},
                  {"%r4.3", D, "%c"});
    EXPECT_BRANCHES(&x, {"%p1.1", D, "%cond"});
    done(&x);
}

/* %i inside the loop is uniform; read after the loop, through the eta of
 * the laneid-dependent exit, it is divergent, and so is %cond. */
Test(div_llvm, diverge_loop)
{
    run x = load("diverge.ptx", "loop", NULL);
    EXPECT_VALUES(&x, {"%r1.1", N, "%laneid"}, {"%r3.2", U, "%i1 carried (mu)"}, {"%r2.1", U, "%i"},
                  {"%r3.3", U, "%i1"}, {"%p1.1", D, "%exit_cond"}, {"%r2.2", D, "%i after the loop (eta)"},
                  {"%p2.1", D, "%cond"});
    EXPECT_BRANCHES(&x, {"%p1.1", D, "%exit_cond"}, {"%p2.1", D, "%cond"});
    done(&x);
}

Test(div_llvm, diverge_lcssa)
{
    run x = load("diverge.ptx", "lcssa", NULL);
    EXPECT_VALUES(&x, {"%r1.1", N, "%tid"}, {"%r2.1", U, "%i"}, {"%p1.1", D, "%exit_cond"},
                  {"%r2.2", D, "%i after the loop (eta)"}, {"%r4.1", D, "%i.lcssa"}, {"%p2.1", D, "%cond"});
    EXPECT_BRANCHES(&x, {"%p1.1", D, "%exit_cond"}, {"%p2.1", D, "%cond"});
    done(&x);
}

/* %2 = %0 + 2 after a divergent diamond: no phi, so no sync dependence. */
Test(div_llvm, diverge_sync_no_loop)
{
    run x = load("diverge.ptx", "sync_no_loop", NULL);
    EXPECT_VALUES(&x, {"%r2.1", U, "%0"}, {"%p1.1", D, "%1"}, {"%r4.1", U, "%2"});
    EXPECT_BRANCHES(&x, {"%p1.1", D, "%1"});
    done(&x);
}

/* Fails with the provisional affine analyses, which copy the simple
 * verdicts: the thread-index values and the sums of them with uniform
 * values are affine, and %c = gamma(uniform %cond, a + tid.x, b + tid.x)
 * keeps the common tid.x coefficient (the paper's rule GAMA). */
Test(div_llvm, diverge_affine_precision)
{
    run x = load("diverge.ptx", "no_diverge", NULL);
    expect_affine(&x, "%r4.1", TIDX, 0);
    expect_affine(&x, "%r5.1", TIDX, C0);
    expect_affine(&x, "%r6.1", TIDX, C0);
    expect_affine(&x, "%r7.3", TIDX, C0);
    done(&x);
    x = load("diverge.ptx", "sync", &SHAPE_Y);
    expect_affine(&x, "%r3.1", TIDY, 0);
    done(&x);
    x = load("diverge.ptx", "mixed", &SHAPE_Z);
    expect_affine(&x, "%r4.1", TIDZ, 0);
    done(&x);
    x = load("diverge.ptx", "loop", NULL);
    expect_affine(&x, "%r1.1", LANE, 0);
    done(&x);
    x = load("diverge.ptx", "lcssa", NULL);
    expect_affine(&x, "%r1.1", TIDX, 0);
    done(&x);
}

/* ---- hidden_diverge.ll ---------------------------------------------------- */

/* C is reached from entry (divergent) and from B (uniform): the gamma of
 * %phi.var.hidden is gated by the divergent branch though its immediate
 * dominator's side is uniform. */
Test(div_llvm, hidden_diverge)
{
    run x = load("hidden_diverge.ptx", "hidden_diverge", NULL);
    EXPECT_VALUES(&x, {"%r4.1", N, "%tid"}, {"%p1.1", D, "%cond.var"}, {"%p2.1", U, "%cond.uni"},
                  {"%r5.3", D, "%phi.var.hidden"}, {"%r6.3", D, "%phi.ipd"});
    EXPECT_BRANCHES(&x, {"%p1.1", D, "%cond.var"}, {"%p2.1", U, "%cond.uni"});
    done(&x);
}

Test(div_llvm, hidden_diverge_affine_precision)
{
    run x = load("hidden_diverge.ptx", "hidden_diverge", NULL);
    expect_affine(&x, "%r4.1", TIDX, 0);
    done(&x);
}

/* ---- irreducible.ll --------------------------------------------------------- */

/* The .ll CHECKs only %cmp and its branch.  Its NOTE: the new analysis
 * assumes the whole cycle divergent (the switch on tid.x / i3 decides
 * which entry runs next), so every value in it is divergent, and so is
 * every irreducible phi here, gated by the switch. */
Test(div_llvm, irreducible)
{
    run x = load("irreducible.ptx", "unstructured_loop", NULL);
    EXPECT_VALUES(&x, {"%p1.1", U, "%entry_cond"}, {"%r1.1", N, "%tid"}, {"%r2.2", D, "%i1"},
                  {"%r3.2", D, "%i2"}, {"%r5.1", D, "%j1"}, {"%r6.1", D, "%j2"}, {"%r4.3", D, "%i3"},
                  {"%r7.1", D, "%div"}, {"%r4.4", D, "%i3 after the loop (eta)"}, {"%p4.1", D, "%cmp"});
    EXPECT_BRANCHES(&x, {"%p1.1", U, "%entry_cond"}, {"%p2.1", D, "switch case 1"}, {"%p3.1", D, "switch case 2"},
                    {"%p4.1", D, "%cmp"});
    done(&x);
}

Test(div_llvm, irreducible_affine_precision)
{
    run x = load("irreducible.ptx", "unstructured_loop", NULL);
    expect_affine(&x, "%r1.1", TIDX, 0);
    done(&x);
}

/* ---- daorder.ll --------------------------------------------------------------- */

/* The divergent join C comes before the uniform loop D/E; the loop must
 * stay uniform. */
Test(div_llvm, daorder)
{
    run x = load("daorder.ptx", "daorder", NULL);
    EXPECT_VALUES(&x, {"%r2.1", N, "%tid"}, {"%p1.1", D, "%cond"}, {"%r3.1", U, "%defAtA"},
                  {"%r4.1", U, "%defAtB"}, {"%r5.3", D, "%defAtC"}, {"%r6.2", U, "%i"}, {"%r7.1", U, "%i.inc"},
                  {"%p2.1", U, "%loopCnt"});
    EXPECT_BRANCHES(&x, {"%p1.1", D, "%cond"}, {"%p2.1", U, "%loopCnt"});
    done(&x);
}

Test(div_llvm, daorder_affine_precision)
{
    run x = load("daorder.ptx", "daorder", NULL);
    expect_affine(&x, "%r2.1", TIDX, 0);
    done(&x);
}

/* ---- non-header-join.ll --------------------------------------------------------- */

/* No value in foo: only the branches.  The parameter (per thread) makes the
 * entry branch divergent; for.cond1 branches on a constant. */
Test(div_llvm, non_header_join)
{
    run x = load("non-header-join.ptx", "foo", NULL);
    EXPECT_VALUES(&x, {"%p1.1", D, "%b"}, {"%p2.1", U, "i1 false"});
    EXPECT_BRANCHES(&x, {"%p1.1", D, "%b"}, {"%p2.1", U, "i1 false"});
    done(&x);
}

/* foo_values (ours): %ctaid.x + 7 is computed in the cycle from uniform
 * operands alone.  LLVM taints every definition of an assumed-divergent
 * cycle; here it is uniform: every thread that executes it computes the
 * same number, whichever entry it came in by. */
Test(div_llvm, non_header_join_values)
{
    run x = load("non-header-join.ptx", "foo_values", NULL);
    EXPECT_VALUES(&x, {"%p1.1", D, "%b"}, {"%r1.1", U, "%ctaid.x"}, {"%r3.1", U, "%ctaid.x + 7, in the cycle"});
    EXPECT_BRANCHES(&x, {"%p1.1", D, "%b"}, {"%p2.1", U, "i1 false"});
    done(&x);
}

/* The counter carried around the cycle: threads enter it at for.cond1 or at
 * if.end16 depending on the divergent %b, so at either join threads hold
 * different counts (LLVM: the cycle is assumed divergent).  Fails while the
 * irreducible phis of the GSA are gated only by the branches inside the
 * cycle and those immediately before a header: here the entry branch
 * reaches both headers through unconditional blocks (if.then and the
 * fall-through block), so it is missed and the counter called uniform. */
Test(div_llvm, non_header_join_cycle_values)
{
    run x = load("non-header-join.ptx", "foo_values", NULL);
    EXPECT_VALUES(&x, {"%r2.2", D, "counter at for.cond1"}, {"%r2.3", D, "counter + 1 in for.body4"},
                  {"%r2.4", D, "counter at if.end16"}, {"%r2.5", D, "counter + %ctaid.x + 7"});
    done(&x);
}

/* ---- generic-load-divergence.ll --------------------------------------------------- */

/* The pointer is uniform (a uniform choice between two uniform pointers);
 * LLVM, following it back through the addrspacecasts to param and global
 * space, also calls the load uniform.  Ours calls every generic load a
 * source of divergence (it may read .local), so %v differs. */
Test(div_llvm, generic_load_uniform_pointer)
{
    run x = load("generic-load-divergence.ptx", "uniform_generic_ptr_phi_load", NULL);
    EXPECT_VALUES(&x, {"%p1.1", U, "%cmp"}, {"%rd3.1", U, "%gen_param"}, {"%rd4.1", U, "%pg"},
                  {"%rd5.1", U, "%gen_global"}, {"%rd6.3", U, "%ptr"}, {"%r2.1", D, "%v (LLVM: uniform)"});
    EXPECT_BRANCHES(&x, {"%p1.1", U, "%cmp"});
    for (int a = 0; a < NANALYSES; a++)
        cr_expect_eq(x.r[a]->source[value(&x, "%r2.1")], DIV_SRC_GENERIC_LOAD);
    done(&x);
}

Test(div_llvm, generic_load_divergent_pointer)
{
    run x = load("generic-load-divergence.ptx", "divergent_generic_load", NULL);
    EXPECT_VALUES(&x, {"%r1.1", N, "%tid"}, {"%rd3.1", N, "4 * %tid"}, {"%rd4.1", N, "%p"}, {"%r2.1", D, "%v"});
    done(&x);
}

/* base + 4*tid.x: the mul.wide and the add are exact on integers. */
Test(div_llvm, generic_load_affine_precision)
{
    run x = load("generic-load-divergence.ptx", "divergent_generic_load", NULL);
    static const int64_t four_tid[DIV_NCOEF1] = {0, 4, 0, 0, 0};
    expect_affine(&x, "%r1.1", TIDX, 0);
    expect_affine(&x, "%rd3.1", four_tid, 0);
    expect_affine(&x, "%rd4.1", four_tid, C0);
    done(&x);
}

/* ---- alloca-tid-load.ll --------------------------------------------------------- */

/* LLVM calls the alloca (%a) divergent; here the depot's address is the
 * same number in every thread (each thread's .local window maps it to its
 * own memory), so it is uniform, and the load that reads the memory behind
 * it is the source of divergence: ld.local, or a generic ld at -O0. */
Test(div_llvm, alloca_tid_load)
{
    run x = load("alloca-tid-load.ptx", "alloca_tid_load", NULL);
    EXPECT_VALUES(&x, {"%r1.1", N, "%tid_value"}, {"%SPL.1", U, "__local_depot0"},
                  {"%rd2.1", U, "%a (LLVM: divergent)"}, {"%r2.1", D, "%v"});
    for (int a = 0; a < NANALYSES; a++) cr_expect_eq(x.r[a]->source[value(&x, "%r2.1")], DIV_SRC_LOCAL_LOAD);
    done(&x);
    x = load("alloca-tid-load.ptx", "alloca_tid_load_O0", NULL);
    EXPECT_VALUES(&x, {"%r1.1", N, "%tid_value"}, {"%SP.1", U, "generic __local_depot1"},
                  {"%rd2.1", U, "%a (LLVM: divergent)"}, {"%r2.1", D, "%v"});
    for (int a = 0; a < NANALYSES; a++) cr_expect_eq(x.r[a]->source[value(&x, "%r2.1")], DIV_SRC_GENERIC_LOAD);
    done(&x);
}

Test(div_llvm, alloca_tid_load_affine_precision)
{
    run x = load("alloca-tid-load.ptx", "alloca_tid_load", NULL);
    expect_affine(&x, "%r1.1", TIDX, 0);
    done(&x);
}

/* ---- temporal divergence behind a non-exiting branch (not an LLVM file) ---- */

/* The only exit branch (i < n) is uniform, but the divergent i < tid.x
 * before it sends some threads back to the header, so threads leave in
 * different iterations: i after the loop is divergent (LLVM: the cycle has
 * a divergent exit).  Inside the loop i stays uniform.  Fails while the
 * eta is gated only by the exit branches of the loop. */
Test(div_llvm, exit_behind_divergent_branch)
{
    run x = load("exit-behind-divergent-branch.ptx", "exit_behind_divergent_branch", NULL);
    EXPECT_VALUES(&x, {"%r3.2", U, "i at the header (mu)"}, {"%r3.3", U, "i + 1"}, {"%p1.1", D, "i < tid.x"},
                  {"%p2.1", U, "i < n"}, {"%r3.4", D, "i after the loop (eta)"});
    EXPECT_BRANCHES(&x, {"%p1.1", D, "i < tid.x"}, {"%p2.1", U, "i < n"});
    done(&x);
}
