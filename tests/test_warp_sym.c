/* Symbol identity in the warp forms (warp_form.h sym, issue 19's point 2):
 * U = ±U_s1 ± U_s2 + off over the roots of the dataflow, so that U - U
 * cancels in the dataflow's own rules (sub, add of a negated value, the
 * comparisons of setp), with exact verdicts and the emulator's word on
 * each claim. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <string.h>
#include <unistd.h>
#include "divergence.h"
#include "testutil.h"
#include "warp_form.h"

#define HEAD ".version 8.0\n.target sm_80\n.address_size 64\n"

/* Two positive terms, the lower root first (warp_form.h sym). */
static uint64_t pair(uint32_t s1, uint32_t s2)
{
    uint32_t lo = (s1 & ~WF_SYM_NEG) < (s2 & ~WF_SYM_NEG) ? s1 : s2, hi = lo == s1 ? s2 : s1;
    return lo | (uint64_t)hi << 32;
}

/* ---- the rules ----------------------------------------------------------------------------- */

/* a = tid + p (roots 1 and 2: U_1 + U_2 + lane), b = p + 64 (U_2 + 64):
 * a - b names root 1 alone, off -64; with U_1 ≡ 0 (mod 32) (tid's) the
 * comparison a < b is the same in every lane (no wraparound), without it
 * (U unknown: the difference's own bits are none) it is not decided. */
Test(warp_sym, difference_of_two_sums_names_the_root_left)
{
    wform a, b, d, r;
    wf_lane(&a, 1, 0, 0);
    a.sym = pair(1, 2), a.off = 0;
    wf_uni(&b, 0, 0);
    b.sym = 2, b.off = 64;
    wf_sub(&d, &a, &b, 32);
    wf_sym_addsub(&d, &a, &b, 32, true);
    cr_expect(d.kind == WF_LANE && d.k == 0 && d.sym == 1 && d.off == -64 && d.g[31] == 31);
    bool nowrap = false;
    wf_cmp_diff(&r, WF_LT, &a, &b, &d, 32, false, &nowrap);
    cr_expect_eq(r.kind, WF_BOT, "U_1's bits unknown: a lane may cross 64");
    wf_sym_known(&d, 0, 5, 32); /* U_1 ≡ 0 (mod 32) */
    cr_expect(d.k == 5 && d.r == 0 && d.sym == 1 && d.off == -64);
    nowrap = false;
    wf_cmp_diff(&r, WF_LT, &a, &b, &d, 32, false, &nowrap);
    cr_expect(r.kind == WF_UNI && nowrap, "tid - 64 < 0 alike in a warp");
    /* U_1 ≡ 16 (mod 32): lanes 0..15 and 16..31 of a warp disagree */
    wf_sub(&d, &a, &b, 32);
    wf_sym_addsub(&d, &a, &b, 32, true);
    wf_sym_known(&d, 16, 5, 32);
    cr_expect(d.k == 5 && d.r == 16);
    wf_cmp_diff(&r, WF_LT, &a, &b, &d, 32, false, &nowrap);
    cr_expect_eq(r.kind, WF_BOT);
}

/* The terms: +U_s and -U_s cancel; 2·U_s and a third root are not kept
 * (none: a new U); every root cancelled makes U exact (off_a - off_b). */
Test(warp_sym, terms_cancel_and_overflow)
{
    wform a, b, n, r;
    wf_lane(&a, 1, 0, 0);
    a.sym = pair(1, 2), a.off = 5;
    wf_uni(&b, 0, 0);
    b.sym = 2, b.off = 64;
    /* -b: the sign of the term, the offset negated; a + (-b) = a - b */
    wf_neg(&n, &b, 32);
    wf_sym_neg(&n, &b, 32, false);
    cr_expect(n.kind == WF_UNI && n.sym == (2 | WF_SYM_NEG) && n.off == -64);
    wf_add(&r, &a, &n, 32);
    wf_sym_addsub(&r, &a, &n, 32, false);
    cr_expect(r.kind == WF_LANE && r.sym == 1 && r.off == 5 - 64);
    /* ~b = -b - 1 */
    wf_not(&n, &b, 32);
    wf_sym_neg(&n, &b, 32, true);
    cr_expect(n.sym == (2 | WF_SYM_NEG) && n.off == -65);
    /* a + b: U_2 twice */
    wf_add(&r, &a, &b, 32);
    wf_sym_addsub(&r, &a, &b, 32, false);
    cr_expect_eq(r.sym, 0);
    /* a + c, c a third root */
    wform c;
    wf_uni(&c, 0, 0);
    c.sym = 3, c.off = 0;
    wf_add(&r, &a, &c, 32);
    wf_sym_addsub(&r, &a, &c, 32, false);
    cr_expect_eq(r.sym, 0);
    /* -(U_1 + U_2) + U_2 = -U_1: the terms stay ordered by root */
    wf_neg(&n, &a, 32);
    wf_sym_neg(&n, &a, 32, false);
    cr_expect(n.sym == pair(1 | WF_SYM_NEG, 2 | WF_SYM_NEG) && n.off == -5);
    wf_add(&r, &n, &b, 32);
    wf_sym_addsub(&r, &n, &b, 32, false);
    cr_expect(r.sym == (1 | WF_SYM_NEG) && r.off == 59);
    /* a - a' with a' = U_1 + U_2 + 12 + lane: 5 - 12, exact */
    wform a2 = a;
    a2.off = 12;
    wf_sub(&r, &a, &a2, 32);
    wf_sym_addsub(&r, &a, &a2, 32, true);
    int64_t k;
    cr_expect(wf_is_const(&r, 32, &k) && k == -7 && r.sym == 0);
    /* an unknown U with no root (an address symbol's) relates to nothing */
    wf_uni(&c, 0, 0);
    wf_sub(&r, &b, &c, 32);
    wf_sym_addsub(&r, &b, &c, 32, true);
    cr_expect_eq(r.sym, 0);
}

/* eq/ne compare the difference modulo 2^n: (p + lane) == (p + 40) holds in
 * no lane, whatever p (no assumption); (p + lane) == (p + 3) in lane 3
 * alone, lane by lane. */
Test(warp_sym, equality_of_values_with_one_root)
{
    wform a, b, r;
    bool nowrap = false;
    wf_lane(&a, 1, 0, 0);
    a.sym = 7, a.off = 0;
    wf_uni(&b, 0, 0);
    b.sym = 7, b.off = 40;
    wf_cmp(&r, WF_EQ, &a, &b, 32, false, &nowrap);
    int64_t k;
    cr_expect(wf_is_const(&r, 64, &k) && k == 0 && !nowrap);
    b.off = 3;
    wf_cmp(&r, WF_NE, &a, &b, 32, false, &nowrap);
    cr_expect(r.kind == WF_LANE && r.k == 64 && !nowrap);
    for (unsigned l = 0; l < 32; l++) cr_expect_eq((int64_t)wf_at(&r, l), l != 3, "lane %u", l);
}

/* ---- the dataflow, and the emulator ------------------------------------------------------- */

typedef tu_div_run run;

static uint32_t value(const run *x, const char *name) { return tu_value_named(x->r->pf->ssa, name); }

/* Runs text under `ptxray run --check-divergence` at each shape with the
 * buffer and arg: no claim contradicted, at least `values` checked. */
static void emu_confirms(const char *text, const char *const *shapes, size_t nshapes, const char *arg, long values)
{
    char path[] = "/tmp/ptxray-ws-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    for (size_t i = 0; i < nshapes; i++) {
        char *argv[] = {(char *)tu_bin(), "run", path, "--block", (char *)shapes[i], "--arg", "buf:u32:512",
                        "--arg", (char *)arg, "--check-divergence", "--format", "json", NULL};
        char *err = NULL, *out = tu_run_want(argv, 0, &err);
        json_error_t je;
        json_t *j = json_loads(out, 0, &je);
        cr_assert_not_null(j, "%s", out);
        json_t *dc = json_object_get(j, "divergence_check");
        cr_assert_not_null(dc, "%s", out);
        cr_expect_eq(json_integer_value(json_object_get(dc, "violated")), 0, "%s %s: %s", shapes[i], arg, out);
        cr_expect_geq(json_integer_value(json_object_get(json_object_get(dc, "checked"), "values")), values, "%s", out);
        json_decref(j);
        free(out);
        free(err);
    }
    unlink(path);
}

/* if (tid + p < p + C): p's U cancels in the comparison, which is then
 * tid < C: with C = 64 the same in every lane of a warp when warps are
 * 32 consecutive tid.x (no wraparound: the analysis states it); with
 * C = 16 lanes 0..15 and 16..31 of warp 0 disagree.  Without the symbols
 * a - b was U + lane with nothing known of U, and both branches were
 * divergent. */
#define CMPSYM_TEXT(C)                                                                                             \
    HEAD ".visible .entry cmpsym(.param .u64 o, .param .u32 p)\n{\n"                                               \
         " .reg .pred %p<3>; .reg .b32 %r<12>; .reg .b64 %rd<5>;\n"                                                \
         " ld.param.u64 %rd1, [o];\n cvta.to.global.u64 %rd2, %rd1;\n ld.param.u32 %r1, [p];\n"                    \
         " mov.u32 %r2, %tid.x;\n add.s32 %r3, %r2, %r1;\n add.s32 %r4, %r1, " C ";\n"                            \
         " setp.lt.u32 %p1, %r3, %r4;\n mov.u32 %r10, 0;\n @%p1 bra $L1;\n mov.u32 %r10, 1;\n"                     \
         "$L1:\n mul.wide.u32 %rd3, %r2, 4;\n add.s64 %rd4, %rd2, %rd3;\n"                                         \
         " st.global.u32 [%rd4], %r10;\n ret;\n}\n"
static const char *const CMPSYM = CMPSYM_TEXT("64");
static const char *const CMPSYM16 = CMPSYM_TEXT("16");

Test(warp_sym, comparison_of_two_sums_with_one_root_is_uniform)
{
    div_options o256 = {.block = {256, 1, 1}}, o48 = {.block = {48, 1, 1}}, o16 = {.block = {16, 16, 1}};
    const div_options *shapes[] = {NULL, &o256, &o48, &o16};
    for (size_t i = 0; i < 4; i++) {
        run x = tu_div_analyse(CMPSYM, DIV_AN_AFFINE, shapes[i]);
        wform w;
        cr_assert(div_warp_form(x.r, value(&x, "%r4.1"), &w));
        cr_expect(w.kind == WF_UNI && w.sym == value(&x, "%r1.1") + 1 && w.off == 64, "p + 64");
        cr_assert(div_warp_form(x.r, value(&x, "%r3.1"), &w));
        if (i < 3) /* tid.x = U + lane: both roots */
            cr_expect(w.kind == WF_LANE && w.k == 0 && !w.off &&
                      w.sym == pair(value(&x, "%r1.1") + 1, value(&x, "%tid.x") + 1), "tid + p (shape %zu)", i);
        else /* 16 x 16: tid.x = lane & 15, known */
            cr_expect(w.kind == WF_LANE && w.sym == value(&x, "%r1.1") + 1 && !w.off && w.g[17] == 1, "tid + p");
        cr_expect_eq(x.r->state[value(&x, "%p1.1")], DIV_UNIFORM, "shape %zu", i);
        cr_expect_eq(x.r->state[value(&x, "%r10.3")], DIV_UNIFORM, "shape %zu", i);
        tu_div_done(&x);
        /* tid < 16: exact, and divergent where a warp holds tid.x 0..31 */
        x = tu_div_analyse(CMPSYM16, DIV_AN_AFFINE, shapes[i]);
        cr_expect_eq(x.r->state[value(&x, "%p1.1")], i < 3 ? DIV_DIVERGENT : DIV_UNIFORM, "shape %zu", i);
        tu_div_done(&x);
    }
    const char *shapes_emu[] = {"256", "128", "48", "16,16", "16,4"};
    emu_confirms(CMPSYM, shapes_emu, 5, "u32:5", 8);
    emu_confirms(CMPSYM, shapes_emu, 5, "u32:100000", 8);
    emu_confirms(CMPSYM16, shapes_emu, 5, "u32:5", 8);
}

/* Cancellations exact modulo 2^32, whatever p (the emulator runs p = 2^32
 * - 6, where p + tid wraps): (tid + p) + (-p) is tid again (U ≡ 0 mod 32:
 * its root's bits), so its >> 5 is uniform; p + laneid == p + 40 holds in
 * no lane. */
static const char *const EXACTSYM =
    HEAD ".visible .entry exactsym(.param .u64 o, .param .u32 p)\n{\n"
         " .reg .pred %p<3>; .reg .b32 %r<14>; .reg .b64 %rd<5>;\n"
         " ld.param.u64 %rd1, [o];\n cvta.to.global.u64 %rd2, %rd1;\n ld.param.u32 %r1, [p];\n"
         " mov.u32 %r2, %tid.x;\n add.s32 %r3, %r2, %r1;\n neg.s32 %r4, %r1;\n add.s32 %r5, %r3, %r4;\n"
         " shr.u32 %r6, %r5, 5;\n setp.eq.u32 %p1, %r6, 1;\n mov.u32 %r10, 0;\n @%p1 bra $L1;\n mov.u32 %r10, 1;\n"
         "$L1:\n mov.u32 %r7, %laneid;\n add.s32 %r8, %r1, %r7;\n add.s32 %r9, %r1, 40;\n"
         " setp.eq.u32 %p2, %r8, %r9;\n @%p2 bra $L2;\n add.s32 %r10, %r10, 2;\n"
         "$L2:\n mul.wide.u32 %rd3, %r2, 4;\n add.s64 %rd4, %rd2, %rd3;\n"
         " st.global.u32 [%rd4], %r10;\n ret;\n}\n";

Test(warp_sym, negated_root_and_equality_cancel_exactly)
{
    run x = tu_div_analyse(EXACTSYM, DIV_AN_AFFINE, NULL);
    wform w;
    cr_assert(div_warp_form(x.r, value(&x, "%r4.1"), &w));
    cr_expect(w.kind == WF_UNI && w.sym == ((value(&x, "%r1.1") + 1) | WF_SYM_NEG) && !w.off, "-p");
    cr_assert(div_warp_form(x.r, value(&x, "%r5.1"), &w));
    cr_expect(w.kind == WF_LANE && w.k == 5 && w.r == 0 && w.sym == value(&x, "%tid.x") + 1 && w.g[31] == 31,
              "tid: U ≡ 0 mod 32 + lane");
    cr_expect_eq(x.r->state[value(&x, "%r6.1")], DIV_UNIFORM);
    cr_expect_eq(x.r->state[value(&x, "%p1.1")], DIV_UNIFORM);
    int64_t k;
    cr_assert(div_warp_form(x.r, value(&x, "%p2.1"), &w));
    cr_expect(wf_is_const(&w, 64, &k) && k == 0, "never equal");
    cr_expect_eq(x.r->state[value(&x, "%r10.5")], DIV_UNIFORM);
    tu_div_done(&x);
    const char *shapes_emu[] = {"256", "64", "48", "16,4"};
    emu_confirms(EXACTSYM, shapes_emu, 4, "u32:4294967290", 8);
    emu_confirms(EXACTSYM, shapes_emu, 4, "u32:7", 8);
}
