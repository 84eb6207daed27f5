/* Affine divergence analyses (paper section 3.4, Fig. 2, 12, 13, 15): the
 * paper's results on hand-written PTX mirroring Fig. 1/8/15, and the PTX
 * arithmetic rules of docs/divergence.md. */
#include <criterion/criterion.h>
#include <string.h>
#include "divergence.h"
#include "testutil.h"

typedef struct run {
    ptx_module *m;
    prog *p;
    div_result *r[3]; /* simple, affine, affine2 */
} run;

static run analyse_module(ptx_module *m, const div_options *o)
{
    run x = {.m = m};
    x.p = tu_gsa_ok(x.m, NULL);
    for (int a = 0; a < 3; a++) x.r[a] = div_analyse(&x.p->funcs[x.p->nfuncs - 1], (enum div_analysis)a, o, &x.p->a);
    return x;
}

static run analyse_file(const char *path)
{
    ptx_diags d;
    ptx_diags_init(&d);
    ptx_module *m = ptx_parse_file(tu_src(path), &d);
    cr_assert(m, "%s", path);
    ptx_diags_free(&d);
    return analyse_module(m, NULL);
}

static run analyse(const char *text, const div_options *o) { return analyse_module(tu_parse_ok("t.ptx", text), o); }

static void done(run *x)
{
    prog_free(x->p);
    ptx_module_free(x->m);
}

static uint32_t value_named(const run *x, const char *name) { return tu_value_named(x->r[0]->pf->ssa, name); }

/* Checks one value under analysis a: its state and its abstract value. */
static void expect(const run *x, int a, const char *name, enum div_state st, const char *text)
{
    uint32_t v = value_named(x, name);
    char buf[256];
    cr_expect_eq(x->r[a]->state[v], st, "%s %s: state %s, expected %s", div_analysis_name((enum div_analysis)a), name,
                 div_state_name((enum div_state)x->r[a]->state[v]), div_state_name(st));
    if (text) {
        div_value_text(x->r[a], v, buf, sizeof buf);
        cr_expect_str_eq(buf, text, "%s %s: '%s', expected '%s'", div_analysis_name((enum div_analysis)a), name, buf,
                         text);
    }
}

static enum div_state branch(const run *x, int a, const char *block)
{
    const cfg *g = x->r[a]->pf->g;
    char buf[64];
    for (uint32_t b = 0; b < g->nblocks; b++)
        if (g->blocks[b].nsucc >= 2 && !strcmp(cfg_block_name(g, b, buf, sizeof buf), block))
            return div_branch(x->r[a], b);
    cr_assert_fail("no branch in %s", block);
    return DIV_DIVERGENT;
}

enum { S = DIV_AN_SIMPLE, A1 = DIV_AN_AFFINE, A2 = DIV_AN_AFFINE2 };
#define U DIV_UNIFORM
#define D DIV_DIVERGENT
#define AF DIV_AFFINE

/* Fig. 2, avgSquare: column "Sec. 3.3" is the simple analysis, "Sec. 3.4"
 * the degree-2 polynomials (0T² + a1·T + a0). */
Test(affine, fig2_avgsquare)
{
    run x = analyse_file("tests/data/fig1_avgsquare.ptx");
    static const struct { const char *what, *name; enum div_state s33, s34; const char *t34; } rows[] = {
        {"c", "%r1.1", U, U, "⊥"},
        {"m", "%rd1.1", U, U, "⊥"},
        {"v", "%rd2.1", U, U, "⊥"},
        {"i (loop)", "%r6.2", D, AF, "tid.x + ⊥"},
        {"N", "%r5.1", D, AF, "tid.x + ⊥"},
        {"d before the loop", "%r3.1", U, U, "0"},
        {"d inside the loop", "%r3.2", U, U, "⊥"},
        {"d after the loop", "%r3.4", D, U, "⊥"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        expect(&x, S, rows[i].name, rows[i].s33, rows[i].s33 == U ? "U" : "D");
        expect(&x, A2, rows[i].name, rows[i].s34, rows[i].t34);
        expect(&x, A1, rows[i].name, rows[i].s34, rows[i].t34); /* no Tid² anywhere: degree 1 agrees */
    }
    /* i < N: both have Tid coefficient 1, so the loop is uniform */
    expect(&x, A1, "%p1.1", U, "⊥");
    cr_expect_eq(branch(&x, S, "$loop"), D);
    cr_expect_eq(branch(&x, A1, "$loop"), U);
    cr_expect_eq(branch(&x, A2, "$loop"), U);
    expect(&x, A1, "%rd3.1", AF, "4·tid.x + ⊥"); /* mul.wide.s32 i, 4 */
    expect(&x, A1, "%rd5.1", AF, "4·tid.x + 0");
    done(&x);
}

/* Fig. 2, sumTriangle (our Fig. 8 transcription). */
Test(affine, fig2_sumtriangle)
{
    run x = analyse_file("tests/data/fig8_sumtriangle.ptx");
    static const struct { const char *what, *name; enum div_state s33, s34; const char *t34; } rows[] = {
        {"c", "%r1.1", U, U, "⊥"},
        {"m", "%rd1.1", U, U, "⊥"},
        {"v", "%rd2.1", U, U, "⊥"},
        {"i (loop)", "%r5.2", D, AF, "tid.x + ⊥"},
        {"L = (Tid + 1) * c", "%r7.1", D, AF, "⊥·tid.x + ⊥"},
        {"d before the loop", "%r4.1", U, U, "0"},
        {"d inside the loop", "%r4.2", U, U, "⊥"},
        {"d after the loop", "%r4.4", D, D, "⊥·tid + ⊥"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        expect(&x, S, rows[i].name, rows[i].s33, rows[i].s33 == U ? "U" : "D");
        expect(&x, A2, rows[i].name, rows[i].s34, rows[i].t34);
    }
    /* degree 1 cannot say that c·Tid + c is affine */
    expect(&x, A1, "%r7.1", D, "⊥·tid.x + ⊥");
    expect(&x, A1, "%r6.1", AF, "tid.x + 1");
    for (int a = 0; a < 3; a++) {
        cr_expect_eq(branch(&x, a, "$l5"), D, "i < L: L's Tid coefficient is unknown");
        cr_expect_eq(branch(&x, a, "BB2"), U, "d %% 2");
    }
    done(&x);
}

/* Fig. 15: the table's two columns. */
Test(affine, fig15_degree_two)
{
    run x = analyse_file("tests/data/fig15_rows.ptx");
    static const struct { const char *what, *name; enum div_state s1, s2; const char *t1, *t2; } rows[] = {
        {"n", "%r1.1", U, U, "⊥", "⊥"},
        {"i0 = n * tid", "%r3.1", D, AF, "⊥·tid.x + 0", "⊥·tid.x + 0"},
        {"i1 = gamma(i0, i2)", "%r3.2", D, AF, "⊥·tid.x + ⊥", "⊥·tid.x + ⊥"},
        {"i2 = i1 + 1", "%r3.3", D, AF, "⊥·tid.x + ⊥", "⊥·tid.x + ⊥"},
        {"k = (tid + 1) * n", "%r5.1", D, AF, "⊥·tid.x + ⊥", "⊥·tid.x + ⊥"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        expect(&x, A1, rows[i].name, rows[i].s1, rows[i].t1);
        expect(&x, A2, rows[i].name, rows[i].s2, rows[i].t2);
    }
    /* the Tid² coefficient is known to be 0 in degree 2 */
    int64_t c = -1;
    cr_expect(div_coef(x.r[A2], value_named(&x, "%r3.2"), 5, &c) && c == 0, "i1: 0·tid.x²");
    cr_expect_not(div_coef(x.r[A1], value_named(&x, "%r3.2"), DIV_C_X, &c));
    done(&x);
}

#define HEAD ".version 8.0\n.target sm_80\n.address_size 64\n"
#define K(decls, body) HEAD ".visible .entry k(.param .u64 o, .param .u32 n){\n" decls "\n ld.param.u64 %rd1, [o];\n ld.param.u32 %r1, [n];\n" body " ret;\n}\n"

/* One place per rule of affine_rules.c. */
Test(affine, integer_arithmetic_rules)
{
    run x = analyse(K(".reg .pred %p<4>; .reg .b32 %r<30>; .reg .b64 %rd<12>; .reg .b16 %rs<3>; .reg .f32 %f<3>;",
                      " mov.u32 %r2, %tid.x;\n"
                      " mad.lo.s32 %r3, %r2, 3, %r1;\n"        /* 3·tid + n */
                      " sub.s32 %r4, %r3, %r2;\n"              /* 2·tid + n */
                      " neg.s32 %r5, %r4;\n"                   /* -2·tid - n */
                      " shl.b32 %r6, %r2, 4;\n"                /* 16·tid */
                      " mad.wide.s32 %rd2, %r2, 8, %rd1;\n"    /* 8·tid + o */
                      " mul.wide.u32 %rd3, %r2, 12;\n"         /* 12·tid */
                      " cvt.u64.u32 %rd4, %r6;\n"              /* 16·tid, widened */
                      " cvt.u16.u32 %rs1, %r4;\n"              /* truncation */
                      " mul.lo.s32 %r7, %r2, -1;\n"            /* -tid */
                      " mul.lo.u32 %r8, %r2, 0xFFFFFFFF;\n"    /* the same, modulo 2^32 */
                      " mul.lo.s32 %r9, %r2, %r2;\n"           /* tid²: degree 2 only */
                      " mul.hi.s32 %r10, %r2, 3;\n"            /* no rule: divergent */
                      " and.b32 %r11, %r2, 31;\n"              /* the lane (warp form) */
                      " and.b32 %r12, %r1, 31;\n"              /* no rule, uniform operands */
                      " add.s32 %r13, %r4, 5;\n"               /* 2·tid + n + 5 */
                      " min.s32 %r14, %r4, %r13;\n"            /* equal tid coefficients */
                      " min.s32 %r15, %r4, %r2;\n"             /* different ones */
                      " setp.lt.s32 %p1, %r4, %r13;\n"         /* uniform: 2·tid cancels */
                      " setp.lt.s32 %p2, %r4, %r3;\n"          /* divergent */
                      " selp.b32 %r16, %r4, %r13, %p1;\n"      /* uniform selector: meet */
                      " selp.b32 %r17, %r4, %r13, %p2;\n"      /* divergent selector */
                      " cvta.to.global.u64 %rd5, %rd2;\n"      /* window offset */
                      " mov.u32 %r18, 7;\n"
                      " cvt.u64.u32 %rd6, %r18;\n"             /* constant widened exactly */
                      " add.s32 %r19, %r2, 0x7FFFFFFF;\n"
                      " add.s32 %r20, %r19, 1;\n"              /* wraps: constant -2^31 */
                      " mov.u32 %r21, %laneid;\n"
                      " shl.b32 %r22, %r21, 2;\n"              /* 4·laneid */
                      " sub.s32 %r23, %r22, %r6;\n"            /* 4·laneid - 16·tid.x */
                      " setp.ne.s32 %p3, %r22, %r6;\n"         /* divergent: coefficients differ */
                      " not.b32 %r24, %r6;\n"                   /* -16·tid - 1 */
                      " mov.f32 %f1, 1.5;\n"                    /* uniform; not the double's bits */
                      " mov.f32 %f2, 0f3FC00000;\n"             /* the same number, its exact bits */
                      " st.global.u32 [%rd1], %r23;\n"),
                    NULL);
    expect(&x, A1, "%r3.1", AF, "3·tid.x + ⊥");
    expect(&x, A1, "%r4.1", AF, "2·tid.x + ⊥");
    expect(&x, A1, "%r5.1", AF, "-2·tid.x + ⊥");
    expect(&x, A1, "%r6.1", AF, "16·tid.x + 0");
    expect(&x, A1, "%rd2.1", AF, "8·tid.x + ⊥");
    expect(&x, A1, "%rd3.1", AF, "12·tid.x + 0");
    expect(&x, A1, "%rd4.1", AF, "16·tid.x + 0");
    expect(&x, A1, "%rs1.1", AF, "2·tid.x + ⊥");
    expect(&x, A1, "%r7.1", AF, "-tid.x + 0");
    expect(&x, A1, "%r8.1", AF, "-tid.x + 0");
    expect(&x, A1, "%r9.1", D, "⊥·tid + ⊥");
    expect(&x, A2, "%r9.1", D, "tid.x² + 0");
    expect(&x, A1, "%r10.1", D, "⊥·tid + ⊥");
    expect(&x, A1, "%r11.1", AF, "laneid + 0"); /* tid.x & 31 with tid.x = 32·w + lane */
    cr_expect_eq(x.r[A1]->cond[value_named(&x, "%r11.1")], DIV_COND_ROWS);
    expect(&x, A1, "%r12.1", U, "⊥");
    expect(&x, A1, "%r14.1", AF, "2·tid.x + ⊥");
    expect(&x, A1, "%r15.1", D, "⊥·tid + ⊥");
    expect(&x, A1, "%p1.1", U, "⊥");
    expect(&x, A1, "%p2.1", D, "⊥·tid + ⊥");
    expect(&x, A1, "%r16.1", AF, "2·tid.x + ⊥");
    expect(&x, A1, "%r17.1", D, "⊥·tid + ⊥");
    expect(&x, A1, "%rd5.1", AF, "8·tid.x + ⊥");
    expect(&x, A1, "%rd6.1", U, "7");
    expect(&x, A1, "%r20.1", AF, "tid.x - 2147483648");
    expect(&x, A1, "%r22.1", AF, "4·laneid + 0");
    expect(&x, A1, "%r23.1", AF, "4·laneid - 16·tid.x + 0");
    expect(&x, A1, "%p3.1", D, "⊥·tid + ⊥");
    expect(&x, A1, "%r24.1", AF, "-16·tid.x - 1");
    expect(&x, A1, "%f1.1", U, "⊥");
    expect(&x, A1, "%f2.1", U, "1069547520");
    expect(&x, S, "%p1.1", D, "D");
    done(&x);
}

/* tid.y and tid.z keep their own coefficients; whether they make a value
 * divergent depends on the block shape (docs/divergence.md). */
Test(affine, multi_dimensional_thread_index)
{
    const char *k = K(".reg .pred %p<3>; .reg .b32 %r<12>; .reg .b64 %rd<4>;",
                      " mov.u32 %r2, %tid.x;\n mov.u32 %r3, %tid.y;\n mov.u32 %r4, %ntid.x;\n"
                      " mad.lo.s32 %r5, %r3, %r4, %r2;\n"    /* tid.y * ntid.x + tid.x */
                      " mul.lo.s32 %r6, %r3, 64;\n"
                      " add.s32 %r7, %r6, %r2;\n"           /* 64·tid.y + tid.x */
                      " setp.lt.s32 %p1, %r6, %r1;\n"       /* depends on tid.y only */
                      " mov.u32 %r8, %tid.z;\n"
                      " st.global.v4.u32 [%rd1], {%r5, %r7, %r8, %r8};\n");
    /* no shape: the default assumption (blockDim.x a multiple of 32) makes
     * tid.y warp-uniform, and the verdicts that use it say so */
    run x = analyse(k, NULL);
    expect(&x, A1, "%r5.1", AF, "⊥·tid.y + tid.x + 0"); /* ntid.x unknown: an unknown tid.y coefficient */
    expect(&x, A2, "%r5.1", AF, "⊥·tid.y + tid.x + 0");
    expect(&x, A1, "%r7.1", AF, "64·tid.y + tid.x + 0");
    expect(&x, A1, "%p1.1", U, "⊥");
    cr_expect_eq(x.r[A1]->cond[value_named(&x, "%p1.1")], DIV_COND_X32);
    cr_expect_eq(x.r[S]->cond[value_named(&x, "%p1.1")], DIV_COND_X32);
    cr_expect(x.r[A1]->shape_assumed);
    done(&x);
    /* 16x16: tid.y differs within a warp */
    div_options sq = {.block = {16, 16, 1}, .assume_tid_yz_uniform = false};
    x = analyse(k, &sq);
    expect(&x, A1, "%p1.1", D, "⊥·tid + ⊥");
    expect(&x, A1, "%r4.1", U, "16");
    cr_expect_eq(x.r[A1]->cond[value_named(&x, "%r4.1")], 0);
    done(&x);
    div_options o = {.block = {64, 4, 2}, .assume_tid_yz_uniform = false};
    x = analyse(k, &o);
    expect(&x, A1, "%r4.1", U, "64"); /* %ntid.x from the shape */
    expect(&x, A1, "%r5.1", AF, "64·tid.y + tid.x + 0");
    expect(&x, A1, "%p1.1", U, "⊥"); /* tid.y is warp-uniform with 64 threads in x */
    expect(&x, A1, "%r6.1", U, "64·tid.y + 0");
    expect(&x, A1, "%r8.1", U, "tid.z + 0");
    done(&x);
    div_options one = {.block = {1, 32, 1}, .assume_tid_yz_uniform = false};
    x = analyse(k, &one);
    expect(&x, A1, "%r2.1", U, "0"); /* a block one thread wide */
    expect(&x, A1, "%r7.1", AF, "64·tid.y + 0");
    done(&x);
}

/* Predicated definitions and gamma functions under uniform and divergent
 * predicates (GAMA, and the guard rule). */
Test(affine, predicates_and_gammas)
{
    run x = analyse(K(".reg .pred %p<4>; .reg .b32 %r<12>; .reg .b64 %rd<4>;",
                      " mov.u32 %r2, %tid.x;\n shl.b32 %r3, %r2, 2;\n"
                      " setp.gt.s32 %p1, %r1, 4;\n"            /* uniform */
                      " setp.gt.s32 %p2, %r2, 4;\n"            /* divergent */
                      " mov.u32 %r4, %r3;\n @%p1 add.s32 %r4, %r3, 8;\n"  /* 4·tid + 0 or 8 */
                      " mov.u32 %r5, %r3;\n @%p2 add.s32 %r5, %r3, 8;\n"
                      " mov.u32 %r6, %r3;\n"
                      " @%p1 bra $a;\n add.s32 %r6, %r3, %r1;\n"
                      "$a:\n"                                  /* gamma(p1, 4·tid, 4·tid + n) */
                      " mov.u32 %r7, %r3;\n"
                      " @%p2 bra $b;\n add.s32 %r7, %r3, 1;\n"
                      "$b:\n"                                  /* gamma(p2, ...): divergent */
                      " st.global.v4.u32 [%rd1], {%r4, %r5, %r6, %r7};\n"),
                    NULL);
    expect(&x, A1, "%r4.2", AF, "4·tid.x + ⊥");
    expect(&x, A1, "%r5.2", D, "⊥·tid + ⊥");
    expect(&x, A1, "%r6.3", AF, "4·tid.x + ⊥");
    expect(&x, A1, "%r7.3", D, "⊥·tid + ⊥");
    cr_expect_eq(branch(&x, A1, "BB0"), U);
    done(&x);
}

/* Corollary 3.4 over the corpus: every value the simple analysis calls
 * uniform is uniform for both affine analyses, and degree 2 is at least as
 * precise as degree 1. */
Test(affine, corpus_subsumes_simple)
{
    size_t n = 0;
    char **files = tu_list_ptx(tu_src("ptx-corpus"), &n);
    uint32_t nvals = 0, more_uniform = 0, affine1 = 0, affine2 = 0;
    for (size_t i = 0; i < n; i++) {
        ptx_diags d;
        ptx_diags_init(&d);
        ptx_module *m = ptx_parse_file(files[i], &d);
        cr_assert(m);
        prog *p = prog_build(m, PROG_GSA, NULL, &d);
        cr_assert(p);
        for (uint32_t k = 0; k < p->nfuncs; k++) {
            div_result *r[3];
            for (int a = 0; a < 3; a++) r[a] = div_analyse(&p->funcs[k], (enum div_analysis)a, NULL, &p->a);
            for (uint32_t v = 0; v < p->funcs[k].ssa->nvalues; v++) {
                nvals++;
                if (r[0]->state[v] == U) {
                    cr_expect_eq(r[1]->state[v], U, "%s: value %u", files[i], v);
                    cr_expect_eq(r[2]->state[v], U, "%s: value %u", files[i], v);
                } else if (r[1]->state[v] == U) {
                    more_uniform++;
                }
                if (r[1]->state[v] == U) cr_expect_eq(r[2]->state[v], U, "%s: value %u", files[i], v);
                if (r[1]->state[v] == AF) cr_expect_neq(r[2]->state[v], D, "%s: value %u", files[i], v);
                affine1 += r[1]->state[v] == AF;
                affine2 += r[2]->state[v] == AF;
            }
        }
        prog_free(p);
        ptx_module_free(m);
        ptx_diags_free(&d);
    }
    cr_log_info("corpus: %u values; affine proves %u more uniform; affine %u, affine2 %u", nvals, more_uniform,
                affine1, affine2);
    cr_expect_gt(more_uniform, 0);
    cr_expect_gt(affine1, 0);
    cr_expect_geq(affine2, affine1);
    tu_free_list(files, n);
}

/* nvcc's own avgSquare (ptx-corpus): the loop is rotated and unrolled by
 * 4, its trip count computed as (max(tid + c, tid + c*c) + ~tid) / c + 1.
 * max keeps the common Tid coefficient and ~tid = -tid - 1 cancels it, so
 * the affine analyses prove every loop branch uniform; only "tid < c"
 * stays divergent. */
Test(affine, corpus_avgsquare_loops_are_uniform)
{
    ptx_diags d;
    ptx_diags_init(&d);
    ptx_module *m = ptx_parse_file(tu_src("ptx-corpus/sm_80/sampaio_divergence.ptx"), &d);
    cr_assert(m);
    prog *p = prog_build(m, PROG_GSA, "avgSquare", &d);
    cr_assert(p);
    ptx_diags_free(&d);
    uint32_t ndiv[3] = {0}, nbr = 0;
    for (int a = 0; a < 3; a++) {
        div_result *r = div_analyse(&p->funcs[0], (enum div_analysis)a, NULL, &p->a);
        for (uint32_t b = 0; b < p->funcs[0].g->nblocks; b++)
            if (p->funcs[0].g->blocks[b].nsucc >= 2) {
                nbr += a == 0;
                ndiv[a] += div_branch(r, b) == D;
            }
    }
    cr_expect_eq(nbr, 6);
    cr_expect_eq(ndiv[S], 5);
    cr_expect_eq(ndiv[A1], 1);
    cr_expect_eq(ndiv[A2], 1);
    prog_free(p);
    ptx_module_free(m);
}
