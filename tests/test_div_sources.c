/* The divergence sources and uniform facts of real PTX (docs/divergence.md),
 * one small kernel per fact, for the simple analysis and both affine ones.
 * The affine analyses are at least as precise as the simple one about
 * uniformity (the paper's Corollary 3.4) and never call a source uniform,
 * so every uniform verdict below holds for all three, and so does every
 * divergent one except for the thread coordinates and what is linear in
 * them, which the affine analyses may call affine instead.
 * tests/test_divergence.c has the simple verdicts on sumTriangle and the
 * block shapes given as options; these complete them. */
#include <criterion/criterion.h>
#include <string.h>
#include "divergence.h"
#include "testutil.h"

static const enum div_analysis ANALYSES[] = {DIV_AN_SIMPLE, DIV_AN_AFFINE, DIV_AN_AFFINE2};
#define NANALYSES 3

/* U: uniform in all three.  D: divergent in all three.  N: not uniform
 * (divergent in the simple analysis, affine or divergent in the others). */
enum { U, D, N };
#define ANY_SRC (-1)

typedef struct want {
    const char *name; /* SSA value, like "%r4.1" or "%tid.y" */
    int verdict;
    int source; /* the simple analysis's div_source for it, or ANY_SRC */
} want;


/* Analyses function fn of the module text with each analysis and checks
 * the values. */
static void check(const char *text, const char *fn, const div_options *o, const want *w, size_t n)
{
    ptx_module *m = tu_parse_ok("t.ptx", text);
    ptx_diags d;
    ptx_diags_init(&d);
    prog *p = prog_build(m, PROG_GSA, fn, &d);
    cr_assert(p && p->nfuncs == 1, "no function %s", fn);
    ptx_diags_free(&d);
    const prog_func *pf = &p->funcs[0];
    for (int a = 0; a < NANALYSES; a++) {
        div_result *r = div_analyse(pf, ANALYSES[a], o, &p->a);
        const char *an = div_analysis_name(ANALYSES[a]);
        for (size_t i = 0; i < n; i++) {
            uint32_t v = tu_value_named(pf->ssa, w[i].name);
            int st = r->state[v];
            if (w[i].verdict == U)
                cr_expect_eq(st, DIV_UNIFORM, "%s: %s should be uniform, is %s", an, w[i].name, div_state_name(st));
            else if (w[i].verdict == D || ANALYSES[a] == DIV_AN_SIMPLE)
                cr_expect_eq(st, DIV_DIVERGENT, "%s: %s should be divergent, is %s", an, w[i].name,
                             div_state_name(st));
            else
                cr_expect_neq(st, DIV_UNIFORM, "%s: %s should not be uniform", an, w[i].name);
            if (ANALYSES[a] == DIV_AN_SIMPLE && w[i].source != ANY_SRC)
                cr_expect_eq(r->source[v], w[i].source, "%s: source of %s is '%s', should be '%s'", an, w[i].name,
                             div_source_name(r->source[v]), div_source_name(w[i].source));
        }
    }
    prog_free(p);
    ptx_module_free(m);
}

#define CHECK(text, fn, opts, ...)                                                                                  \
    do {                                                                                                            \
        const want w_[] = {__VA_ARGS__};                                                                            \
        check(text, fn, opts, w_, sizeof w_ / sizeof w_[0]);                                                        \
    } while (0)

#define HEAD ".version 8.0\n.target sm_80\n.address_size 64\n"
/* A kernel k with an output pointer in %rd1 and a uniform u32 in %r1. */
#define KERNEL_AT(head, dirs, body)                                                                                 \
    head ".visible .entry k(.param .u64 o, .param .u32 n)" dirs "\n{\n"                                            \
         " .reg .pred %p<8>; .reg .b32 %r<24>; .reg .b64 %rd<12>;\n"                                               \
         " ld.param.u64 %rd1, [o];\n ld.param.u32 %r1, [n];\n" body " ret;\n}\n"
#define KERNEL(body) KERNEL_AT(HEAD, "", body)
#define KERNEL_REQNTID(dims, body) KERNEL_AT(HEAD, "\n.reqntid " dims, body)

/* ---- sources of divergence ---------------------------------------------------- */

Test(div_sources, tid_x)
{
    CHECK(KERNEL(" mov.u32 %r2, %tid.x;\n add.s32 %r3, %r2, %r1;\n"), "k", NULL, {"%tid.x", N, DIV_SRC_TID},
          {"%r2.1", N, DIV_SRC_NONE}, {"%r3.1", N, DIV_SRC_NONE}, {"%r1.1", U, DIV_SRC_NONE});
}

#define TID_YZ " mov.u32 %r2, %tid.y;\n mov.u32 %r3, %tid.z;\n"

/* A warp is 32 consecutive linear thread indices (x fastest): tid.y is the
 * same across it when the x extent is a multiple of 32, tid.z when x*y is. */
Test(div_sources, tid_yz_from_reqntid)
{
    CHECK(KERNEL_REQNTID("64, 2, 1", TID_YZ), "k", NULL, {"%tid.y", U, DIV_SRC_NONE}, {"%tid.z", U, DIV_SRC_NONE},
          {"%r2.1", U, DIV_SRC_NONE});
    CHECK(KERNEL_REQNTID("16, 2, 4", TID_YZ), "k", NULL, {"%tid.y", N, DIV_SRC_TID}, {"%r2.1", N, ANY_SRC},
          {"%tid.z", U, DIV_SRC_NONE});
    CHECK(KERNEL_REQNTID("8, 2, 4", TID_YZ), "k", NULL, {"%tid.y", N, DIV_SRC_TID}, {"%tid.z", N, DIV_SRC_TID},
          {"%r3.1", N, ANY_SRC});
    /* missing extents are 1 */
    CHECK(KERNEL_REQNTID("128", TID_YZ), "k", NULL, {"%tid.y", U, DIV_SRC_NONE}, {"%tid.z", U, DIV_SRC_NONE});
    CHECK(KERNEL_REQNTID("1, 32", TID_YZ), "k", NULL, {"%tid.y", N, DIV_SRC_TID}, {"%tid.z", U, DIV_SRC_NONE});
}

/* The shape given as an option wins over .reqntid; tid.z divergent with a
 * known shape (x*y = 16). */
Test(div_sources, tid_yz_from_options)
{
    div_options o = {.block = {16, 2, 1}, .assume_tid_yz_uniform = false};
    CHECK(KERNEL_REQNTID("64, 2, 1", TID_YZ), "k", &o, {"%tid.y", N, DIV_SRC_TID}, {"%tid.z", U, DIV_SRC_NONE});
    div_options o2 = {.block = {8, 2, 4}, .assume_tid_yz_uniform = false};
    CHECK(KERNEL(TID_YZ), "k", &o2, {"%tid.y", N, DIV_SRC_TID}, {"%tid.z", N, DIV_SRC_TID});
    div_options o3 = {.block = {32, 1, 1}, .assume_tid_yz_uniform = false};
    CHECK(KERNEL(TID_YZ), "k", &o3, {"%tid.y", U, DIV_SRC_NONE}, {"%tid.z", U, DIV_SRC_NONE},
          {"%r3.1", U, DIV_SRC_NONE});
}

/* assume_tid_yz_uniform overrides even a shape that says otherwise. */
Test(div_sources, tid_yz_assumed_uniform)
{
    div_options o = {.block = {8, 2, 4}, .assume_tid_yz_uniform = true};
    CHECK(KERNEL(TID_YZ), "k", &o, {"%tid.y", U, DIV_SRC_NONE}, {"%tid.z", U, DIV_SRC_NONE});
    div_options o2 = {.block = {0, 0, 0}, .assume_tid_yz_uniform = true};
    CHECK(KERNEL_REQNTID("8, 2, 4", TID_YZ " mov.u32 %r4, %tid.x;\n"), "k", &o2, {"%tid.y", U, DIV_SRC_NONE}, {"%tid.z", U, DIV_SRC_NONE},
          {"%tid.x", N, DIV_SRC_TID});
}

Test(div_sources, laneid)
{
    CHECK(KERNEL(" mov.u32 %r2, %laneid;\n"), "k", NULL, {"%laneid", N, DIV_SRC_LANE}, {"%r2.1", N, DIV_SRC_NONE});
}

/* 1 << laneid and its neighbours: not affine in the lane either. */
Test(div_sources, lanemasks)
{
    CHECK(KERNEL(" mov.u32 %r2, %lanemask_eq;\n mov.u32 %r3, %lanemask_le;\n mov.u32 %r4, %lanemask_lt;\n"
                 " mov.u32 %r5, %lanemask_ge;\n mov.u32 %r6, %lanemask_gt;\n"),
          "k", NULL, {"%lanemask_eq", D, DIV_SRC_LANE}, {"%lanemask_le", D, DIV_SRC_LANE},
          {"%lanemask_lt", D, DIV_SRC_LANE}, {"%lanemask_ge", D, DIV_SRC_LANE}, {"%lanemask_gt", D, DIV_SRC_LANE},
          {"%r2.1", D, ANY_SRC}, {"%r3.1", D, ANY_SRC}, {"%r4.1", D, ANY_SRC}, {"%r5.1", D, ANY_SRC},
          {"%r6.1", D, ANY_SRC});
}

/* Threads of a diverged warp read them at different moments. */
Test(div_sources, clocks_and_timers)
{
    CHECK(KERNEL(" mov.u32 %r2, %clock;\n mov.u64 %rd2, %clock64;\n mov.u64 %rd3, %globaltimer;\n"
                 " mov.u32 %r3, %clock_hi;\n mov.u32 %r4, %globaltimer_lo;\n mov.u32 %r5, %pm0;\n"),
          "k", NULL, {"%clock", D, DIV_SRC_CLOCK}, {"%clock64", D, DIV_SRC_CLOCK},
          {"%globaltimer", D, DIV_SRC_CLOCK}, {"%clock_hi", D, DIV_SRC_CLOCK}, {"%globaltimer_lo", D, DIV_SRC_CLOCK},
          {"%pm0", D, DIV_SRC_CLOCK}, {"%r2.1", D, ANY_SRC}, {"%rd2.1", D, ANY_SRC}, {"%rd3.1", D, ANY_SRC},
          {"%r5.1", D, ANY_SRC});
}

/* Each thread gets the old value its own update saw, even with a uniform
 * address and operands. */
Test(div_sources, atomics)
{
    CHECK(KERNEL(" .shared .align 4 .u32 sh;\n"
                 " atom.global.add.u32 %r2, [%rd1], 1;\n atom.shared.cas.b32 %r3, [sh], %r1, 5;\n"
                 " atom.exch.b32 %r4, [%rd1+4], %r1;\n"),
          "k", NULL, {"%r2.1", D, DIV_SRC_ATOMIC}, {"%r3.1", D, DIV_SRC_ATOMIC}, {"%r4.1", D, DIV_SRC_ATOMIC});
}

/* The same .local address is per-thread memory. */
Test(div_sources, local_load)
{
    CHECK(KERNEL(" .local .align 4 .u32 loc[2];\n st.local.u32 [loc], %r1;\n ld.local.u32 %r2, [loc];\n"
                 " mov.u64 %rd2, loc;\n ld.local.u32 %r3, [%rd2+4];\n"),
          "k", NULL, {"%rd2.1", U, DIV_SRC_NONE}, {"%r2.1", D, DIV_SRC_LOCAL_LOAD}, {"%r3.1", D, DIV_SRC_LOCAL_LOAD});
}

/* A generic address may point into .local, whatever it is. */
Test(div_sources, generic_load)
{
    CHECK(KERNEL(" ld.u32 %r2, [%rd1];\n cvta.to.global.u64 %rd2, %rd1;\n cvta.global.u64 %rd3, %rd2;\n"
                 " ld.u32 %r3, [%rd3+4];\n"),
          "k", NULL, {"%rd3.1", U, DIV_SRC_NONE}, {"%r2.1", D, DIV_SRC_GENERIC_LOAD},
          {"%r3.1", D, DIV_SRC_GENERIC_LOAD});
}

#define CALLEES                                                                                                     \
    ".extern .func (.param .b32 r) ext(.param .b32 a);\n"                                                          \
    ".func (.param .b32 r) body(.param .b32 a)\n{\n .reg .b32 %r<3>;\n ld.param.u32 %r1, [a];\n"                   \
    " add.s32 %r2, %r1, 1;\n st.param.b32 [r], %r2;\n ret;\n}\n"                                                   \
    ".func (.reg .b32 d) regf(.reg .b32 a)\n{\n add.s32 d, a, 1;\n ret;\n}\n"

/* The callee is not analysed, so its results are per thread even with
 * uniform arguments, with or without a body, returned through .param or a
 * register. */
Test(div_sources, call_results)
{
    CHECK(KERNEL_AT(HEAD CALLEES, "",
                    " { .param .b32 param0; st.param.b32 [param0], %r1;\n .param .b32 retval0;\n"
                    " call.uni (retval0), ext, (param0);\n ld.param.b32 %r2, [retval0]; }\n"
                    " { .param .b32 param0; st.param.b32 [param0], %r1;\n .param .b32 retval0;\n"
                    " call.uni (retval0), body, (param0);\n ld.param.b32 %r3, [retval0]; }\n"
                    " call.uni (%r4), regf, (%r1);\n"),
          "k", NULL, {"%r2.1", D, DIV_SRC_CALL}, {"%r3.1", D, DIV_SRC_CALL}, {"%r4.1", D, DIV_SRC_CALL});
}

/* And a .func's own parameters, .param or .reg, come from its callers'
 * threads. */
Test(div_sources, func_parameters)
{
    CHECK(HEAD CALLEES, "body", NULL, {"%r1.1", D, DIV_SRC_CALL}, {"%r2.1", D, DIV_SRC_NONE});
    CHECK(HEAD CALLEES, "regf", NULL, {"a.0", D, DIV_SRC_PARAM_REG}, {"d.1", D, DIV_SRC_NONE});
}

/* bfly/up/down read another lane's value: per lane even for a uniform one
 * (a lane out of range keeps its own), and so is the in-range predicate. */
Test(div_sources, shfl_bfly_up_down)
{
    CHECK(KERNEL(" shfl.sync.bfly.b32 %r2, %r1, 1, 31, -1;\n shfl.sync.up.b32 %r3, %r1, 1, 0, -1;\n"
                 " shfl.sync.down.b32 %r4|%p1, %r1, 1, 31, -1;\n"),
          "k", NULL, {"%r2.1", D, DIV_SRC_SHFL}, {"%r3.1", D, DIV_SRC_SHFL}, {"%r4.1", D, DIV_SRC_SHFL},
          {"%p1.1", D, DIV_SRC_SHFL});
}

/* idx with a per-thread lane index gathers different lanes' values; with a
 * uniform one it broadcasts one lane's value, even a divergent one. */
Test(div_sources, shfl_idx)
{
    CHECK(KERNEL(" mov.u32 %r2, %tid.x;\n and.b32 %r3, %r2, 7;\n"
                 " shfl.sync.idx.b32 %r4|%p1, %r1, %r3, 31, -1;\n"
                 " shfl.sync.idx.b32 %r5|%p2, %r2, %r1, 31, -1;\n"),
          "k", NULL, {"%r4.1", D, DIV_SRC_NONE}, {"%p1.1", D, DIV_SRC_NONE}, {"%r5.1", U, DIV_SRC_NONE},
          {"%p2.1", U, DIV_SRC_NONE});
}

/* match.any gives each lane the mask of the lanes that agree with it.
 * match.all gives every lane the same mask (or 0) and predicate, so it is
 * in fact uniform like vote.all; docs/divergence.md lists all of match as
 * a source, conservatively, and that is what is checked here. */
Test(div_sources, match)
{
    CHECK(KERNEL(" match.any.sync.b32 %r2, %r1, -1;\n match.all.sync.b32 %r3|%p1, %r1, -1;\n"), "k", NULL,
          {"%r2.1", D, DIV_SRC_COLLECTIVE}, {"%r3.1", D, DIV_SRC_COLLECTIVE}, {"%p1.1", D, DIV_SRC_COLLECTIVE});
}

/* Warp-wide matrix fragments: each lane holds its own piece. */
Test(div_sources, ldmatrix)
{
    CHECK(KERNEL(" .shared .align 16 .b8 sh[256];\n ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r2}, [sh];\n"),
          "k", NULL, {"%r2.1", D, DIV_SRC_COLLECTIVE});
}

/* ---- uniform within a warp --------------------------------------------------- */

Test(div_sources, grid_registers)
{
    CHECK(KERNEL(" mov.u32 %r2, %ctaid.x;\n mov.u32 %r3, %ctaid.y;\n mov.u32 %r4, %ctaid.z;\n"
                 " mov.u32 %r5, %nctaid.x;\n mov.u32 %r6, %nctaid.y;\n mov.u32 %r7, %nctaid.z;\n"
                 " mov.u32 %r8, %ntid.x;\n mov.u32 %r9, %ntid.y;\n mov.u32 %r10, %ntid.z;\n"
                 " mov.u32 %r11, %gridid;\n mov.u32 %r12, %smid;\n"),
          "k", NULL, {"%ctaid.x", U, DIV_SRC_NONE}, {"%ctaid.y", U, DIV_SRC_NONE}, {"%ctaid.z", U, DIV_SRC_NONE},
          {"%nctaid.x", U, DIV_SRC_NONE}, {"%nctaid.y", U, DIV_SRC_NONE}, {"%nctaid.z", U, DIV_SRC_NONE},
          {"%ntid.x", U, DIV_SRC_NONE}, {"%ntid.y", U, DIV_SRC_NONE}, {"%ntid.z", U, DIV_SRC_NONE},
          {"%gridid", U, DIV_SRC_NONE}, {"%smid", U, DIV_SRC_NONE}, {"%r2.1", U, DIV_SRC_NONE},
          {"%r10.1", U, DIV_SRC_NONE});
}

Test(div_sources, cluster_registers)
{
    CHECK(KERNEL_AT(".version 8.0\n.target sm_90\n.address_size 64\n", "",
                    " mov.u32 %r2, %clusterid.x;\n mov.u32 %r3, %cluster_ctarank;\n"
                    " mov.u32 %r4, %nclusterid.y;\n"),
          "k", NULL, {"%clusterid.x", U, DIV_SRC_NONE}, {"%cluster_ctarank", U, DIV_SRC_NONE},
          {"%nclusterid.y", U, DIV_SRC_NONE}, {"%r2.1", U, DIV_SRC_NONE});
}

/* A warp's threads run on one SM as one warp. */
Test(div_sources, warp_registers)
{
    CHECK(KERNEL(" mov.u32 %r2, %warpid;\n mov.u32 %r3, %nwarpid;\n"), "k", NULL, {"%warpid", U, DIV_SRC_NONE},
          {"%nwarpid", U, DIV_SRC_NONE}, {"%r2.1", U, DIV_SRC_NONE}, {"%r3.1", U, DIV_SRC_NONE});
}

/* A kernel's own parameters, whole or a field of a struct. */
Test(div_sources, kernel_parameters)
{
    CHECK(HEAD ".visible .entry k(.param .u64 o, .param .align 8 .b8 s[16])\n{\n .reg .b32 %r<4>;\n"
               " .reg .b64 %rd<2>;\n ld.param.u64 %rd1, [o];\n ld.param.u32 %r1, [s+4];\n"
               " ld.param.v2.u32 {%r2, %r3}, [s+8];\n ret;\n}\n",
          "k", NULL, {"%rd1.1", U, DIV_SRC_NONE}, {"%r1.1", U, DIV_SRC_NONE}, {"%r2.1", U, DIV_SRC_NONE},
          {"%r3.1", U, DIV_SRC_NONE});
}

/* Shared memory, constants, global memory: one location for the whole warp
 * when the address is uniform (another thread's racing store aside). */
Test(div_sources, loads_at_uniform_address)
{
    CHECK(HEAD ".const .align 4 .u32 cst[4];\n"
               ".visible .entry k(.param .u64 o, .param .u32 n)\n{\n"
               " .reg .b32 %r<8>; .reg .b64 %rd<4>;\n .shared .align 4 .u32 sh[32];\n"
               " ld.param.u64 %rd1, [o];\n ld.param.u32 %r1, [n];\n cvta.to.global.u64 %rd2, %rd1;\n"
               " ld.global.u32 %r2, [%rd2+8];\n ld.shared.u32 %r3, [sh+4];\n ld.const.u32 %r4, [cst+4];\n"
               " mul.wide.u32 %rd3, %r1, 4;\n add.s64 %rd3, %rd2, %rd3;\n ld.global.nc.u32 %r5, [%rd3];\n"
               " ret;\n}\n",
          "k", NULL, {"%r2.1", U, DIV_SRC_NONE}, {"%r3.1", U, DIV_SRC_NONE}, {"%r4.1", U, DIV_SRC_NONE},
          {"%rd3.2", U, DIV_SRC_NONE}, {"%r5.1", U, DIV_SRC_NONE});
}

Test(div_sources, load_at_divergent_address)
{
    CHECK(KERNEL(" mov.u32 %r2, %tid.x;\n mul.wide.u32 %rd2, %r2, 4;\n add.s64 %rd3, %rd1, %rd2;\n"
                 " ld.global.u32 %r3, [%rd3];\n .shared .align 4 .u32 sh[32];\n mov.u64 %rd4, sh;\n"
                 " add.s64 %rd5, %rd4, %rd2;\n ld.shared.u32 %r4, [%rd5];\n"),
          "k", NULL, {"%rd3.1", N, DIV_SRC_NONE}, {"%r3.1", D, DIV_SRC_NONE}, {"%r4.1", D, DIV_SRC_NONE});
}

/* The result of vote, redux and activemask is the same in every lane that
 * takes part, whatever each lane contributed. */
Test(div_sources, votes)
{
    CHECK(KERNEL(" mov.u32 %r2, %tid.x;\n setp.lt.u32 %p1, %r2, 7;\n"
                 " vote.sync.all.pred %p2, %p1, -1;\n vote.sync.any.pred %p3, %p1, -1;\n"
                 " vote.sync.uni.pred %p4, %p1, -1;\n vote.sync.ballot.b32 %r3, %p1, -1;\n"),
          "k", NULL, {"%p1.1", D, DIV_SRC_NONE}, {"%p2.1", U, DIV_SRC_NONE}, {"%p3.1", U, DIV_SRC_NONE},
          {"%p4.1", U, DIV_SRC_NONE}, {"%r3.1", U, DIV_SRC_NONE});
}

Test(div_sources, redux_and_activemask)
{
    CHECK(KERNEL(" mov.u32 %r2, %tid.x;\n redux.sync.add.u32 %r3, %r2, -1;\n redux.sync.max.s32 %r4, %r2, -1;\n"
                 " activemask.b32 %r5;\n"),
          "k", NULL, {"%r3.1", U, DIV_SRC_NONE}, {"%r4.1", U, DIV_SRC_NONE}, {"%r5.1", U, DIV_SRC_NONE});
}

/* ---- predicated definitions ------------------------------------------------- */

/* Lanes whose guard is false keep the old value. */
Test(div_sources, predicated_definition)
{
    CHECK(KERNEL(" mov.u32 %r2, %tid.x;\n setp.lt.u32 %p1, %r2, 7;\n setp.lt.u32 %p2, %r1, 7;\n"
                 " mov.u32 %r3, 5;\n @%p1 mov.u32 %r3, 9;\n"
                 " mov.u32 %r4, 5;\n @%p2 mov.u32 %r4, %r1;\n @!%p2 add.s32 %r4, %r4, 1;\n"),
          "k", NULL, {"%r3.1", U, DIV_SRC_NONE}, {"%r3.2", D, DIV_SRC_NONE}, {"%r4.2", U, DIV_SRC_NONE},
          {"%r4.3", U, DIV_SRC_NONE});
}

/* The guard matters even where the operands do not: the lanes left out of
 * a vote keep what they had. */
Test(div_sources, predicated_vote)
{
    CHECK(KERNEL(" mov.u32 %r2, %tid.x;\n setp.lt.u32 %p1, %r2, 7;\n mov.u32 %r3, 0;\n"
                 " @%p1 vote.sync.ballot.b32 %r3, %p1, -1;\n"),
          "k", NULL, {"%r3.2", D, DIV_SRC_NONE});
}

/* ---- undefined values ----------------------------------------------------------- */

/* A register read before any definition may hold anything, so it may as
 * well hold the same thing in every thread. */
Test(div_sources, undefined_register)
{
    CHECK(KERNEL(" add.s32 %r3, %r2, %r1;\n"), "k", NULL, {"%r2.0", U, DIV_SRC_NONE}, {"%r3.1", U, DIV_SRC_NONE});
}

/* ---- a uniform load that is not recognised ---------------------------------- */

/* docs/divergence.md: a load from a kernel .param at a uniform address
 * follows the ordinary rule.  The address here is the parameter's, taken
 * with mov, which is uniform; only a load naming the parameter directly is
 * recognised, so this one is called a source. */
Test(div_sources, kernel_parameter_through_register)
{
    CHECK(HEAD ".visible .entry k(.param .u64 o, .param .align 8 .b8 s[16])\n{\n .reg .b32 %r<3>;\n"
               " .reg .b64 %rd<3>;\n ld.param.u64 %rd1, [o];\n mov.u64 %rd2, s;\n ld.param.u32 %r1, [%rd2+8];\n"
               " ret;\n}\n",
          "k", NULL, {"%rd2.1", U, DIV_SRC_NONE}, {"%r1.1", U, DIV_SRC_NONE});
}
