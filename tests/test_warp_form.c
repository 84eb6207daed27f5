/* Warp-granular reasoning (analyses/warp_form.h, issue 19): the rules of
 * the warp form one by one, the verdicts of the idioms CUDA programmers
 * write (warp ids, lane ids, tree reductions, warp ranges), with the
 * assumption each rests on, and the per-source-line verdicts the corpus
 * kernels written for them carry as annotations (// @branch, // @sectors). */
#include <criterion/criterion.h>
#include <jansson.h>
#include <string.h>
#include <unistd.h>
#include "divergence.h"
#include "testutil.h"
#include "warp_form.h"

/* ---- the rules ----------------------------------------------------------------------------- */

/* tid.x under the default shape: U + lane with U ≡ 0 (mod 32) */
static wform tid_x(void)
{
    wform t;
    wf_lane(&t, 1, 0, 5);
    t.nn = 1;
    return t;
}

static wform cst(int64_t c)
{
    wform k;
    wf_const(&k, c);
    return k;
}

/* The rules lane_eval applies a symbol at a time: and with a mask inside
 * U's known bits needs no split; and/or/xor with an operand known in every
 * lane act on the low part lane by lane. */
Test(warp_form, masks_within_known_bits_and_bitwise_ops_with_lane_operands)
{
    wform t, r, k, row, lane;
    int64_t c;
    wf_lane(&t, 1, 16, 5); /* U + lane, U ≡ 16 (mod 32): no split at any b <= 5 */
    k = cst(7);
    wf_and(&r, &t, &k, 32); /* (16 + lane) & 7 = lane & 7 */
    cr_expect(r.kind == WF_LANE && r.k == 64 && r.r == 0);
    for (unsigned l = 0; l < 32; l++) cr_expect_eq(r.g[l], (int64_t)(l & 7));
    k = cst(16);
    wf_and(&r, &t, &k, 32); /* (16 + lane) & 16: bit 4 of 16 + lane */
    cr_expect(r.kind == WF_LANE && r.k == 64);
    for (unsigned l = 0; l < 32; l++) cr_expect_eq((int64_t)(r.r + (uint64_t)r.g[l]), (int64_t)((16 + l) & 16));
    k = cst(32);
    wf_and(&r, &t, &k, 32); /* bit 5 is unknown and lanes carry into it */
    cr_expect_eq(r.kind, WF_BOT);
    /* (row << 5) | (tid & 31): the warp-per-row index, U + lane */
    wf_uni(&row, 0, 5);
    lane = tid_x();
    k = cst(31);
    wf_and(&lane, &lane, &k, 32);
    wf_or(&r, &row, &lane, 32);
    cr_expect(wf_is_linear(&r, &c) && c == 1 && r.k == 5 && r.r == 0);
    wf_xor(&r, &row, &lane, 32);
    cr_expect(wf_is_linear(&r, &c) && c == 1 && r.k == 5);
    /* (row << 4) | lane: lane's bit 4 meets U's unknown bits */
    wf_uni(&row, 0, 4);
    wf_or(&r, &row, &lane, 32);
    cr_expect_eq(r.kind, WF_BOT);
    /* (row << 5) | (lane + 32·(lane / 16)): the high bits of p differ
     * between lanes above every split */
    wf_uni(&row, 0, 5);
    wform p = lane;
    for (unsigned l = 0; l < 32; l++) p.g[l] = (int64_t)(l + 32 * (l / 16));
    wf_or(&r, &row, &p, 32);
    cr_expect_eq(r.kind, WF_BOT);
}

Test(warp_form, shifts_masks_and_remainders_of_the_thread_index)
{
    wform t = tid_x(), r, k;
    k = cst(5);
    wf_shr(&r, &t, &k, 32, false); /* tid >> 5: the warp index */
    cr_expect_eq(r.kind, WF_UNI);
    k = cst(4);
    wf_shr(&r, &t, &k, 32, false); /* tid >> 4: two values per warp */
    cr_expect_eq(r.kind, WF_LANE);
    for (unsigned l = 0; l < 32; l++) cr_expect_eq(r.g[l], (int64_t)(l >> 4));
    k = cst(31);
    wf_and(&r, &t, &k, 32); /* tid & 31: exactly the lane */
    int64_t c;
    cr_expect(wf_is_linear(&r, &c) && c == 1 && r.k == 64 && r.r == 0);
    k = cst(64);
    wf_and(&r, &t, &k, 32); /* tid & 64: a warp bit */
    cr_expect_eq(r.kind, WF_UNI);
    k = cst(4);
    wf_and(&r, &t, &k, 32); /* tid & 4: a lane bit */
    cr_expect_eq(r.kind, WF_LANE);
    k = cst(32);
    wf_divu(&r, &t, &k, 32);
    cr_expect_eq(r.kind, WF_UNI);
    wf_remu(&r, &t, &k, 32);
    cr_expect(wf_is_linear(&r, &c) && c == 1 && r.k == 64);
    k = cst(96); /* a multiple of 32: tid % 96 = (32w % 96) + lane */
    wf_remu(&r, &t, &k, 32);
    cr_expect(wf_is_linear(&r, &c) && c == 1);
    cr_expect_eq(r.k, 5);
    wf_divu(&r, &t, &k, 32);
    cr_expect_eq(r.kind, WF_UNI);
    k = cst(48); /* 16·3: a warp can straddle a multiple of 48 */
    wf_divu(&r, &t, &k, 32);
    cr_expect_eq(r.kind, WF_BOT);
    k = cst(31); /* the sign of a non-negative value: 0 */
    wf_shr(&r, &t, &k, 32, true);
    cr_expect(wf_is_const(&r, 32, &c) && c == 0);
}

/* div.s/rem.s round towards zero; a dividend that may be negative and is
 * not known in every lane gives nothing beyond uniformity. */
/* ISA "shl": shift amounts above the register width are clamped to it, so
 * shl by s >= n gives 0; the amount is unsigned (-1 is above any width).
 * The one reading every rule uses (wf_shl_factor), and wf_shl on it. */
Test(warp_form, shifts_at_and_past_the_width)
{
    cr_expect_eq(wf_shl_factor(0, 32), 1);
    cr_expect_eq(wf_shl_factor(31, 32), (int64_t)1 << 31);
    cr_expect_eq(wf_shl_factor(32, 32), 0);
    cr_expect_eq(wf_shl_factor(40, 32), 0);
    cr_expect_eq(wf_shl_factor(40, 64), (int64_t)1 << 40);
    cr_expect_eq(wf_shl_factor(64, 64), 0);
    cr_expect_eq(wf_shl_factor((uint64_t)-1, 16), 0);
    wform a, s, r;
    wf_lane(&a, 1, 0, 64); /* the lane index */
    wf_const(&s, 40);
    wf_shl(&r, &a, &s, 32);
    int64_t c;
    cr_expect(wf_is_const(&r, 32, &c) && c == 0, "lane << 40 at 32 bits is 0");
    wf_shl(&r, &a, &s, 64);
    cr_expect(wf_is_linear(&r, &c) && c == (int64_t)1 << 40, "lane << 40 at 64 bits: %lld", (long long)c);
    /* shr: clamped to the width, so shr.u by >= n is 0 and shr.s by >= n
     * is the sign in every bit (wf_shr_amount) */
    cr_expect_eq(wf_shr_amount(5, 32, false), 5);
    cr_expect_eq(wf_shr_amount(32, 32, false), 32);
    cr_expect_eq(wf_shr_amount(40, 32, true), 31);
    cr_expect_eq(wf_shr_amount((uint64_t)-1, 64, true), 63);
    wform m;
    wf_const(&m, -8);
    wf_shr(&r, &m, &s, 32, true);
    cr_expect(wf_is_const(&r, 32, &c) && c == -1, "-8 >> 40 (shr.s32) is -1: %lld", (long long)c);
    wf_shr(&r, &m, &s, 32, false);
    cr_expect(wf_is_const(&r, 32, &c) && c == 0, "shr.u32 by 40 is 0: %lld", (long long)c);
}

Test(warp_form, signed_division_and_remainder)
{
    wform r, a = cst(-7), k = cst(2), t = tid_x();
    int64_t c;
    wf_divs(&r, &a, &k, 32);
    cr_expect(wf_is_const(&r, 32, &c) && c == -3);
    wf_rems(&r, &a, &k, 32);
    cr_expect(wf_is_const(&r, 32, &c) && c == -1);
    wf_divu(&r, &a, &k, 32); /* 0xfffffff9 / 2 */
    cr_expect(wf_is_const(&r, 32, &c) && c == 0x7ffffffc);
    a = cst(INT32_MIN), k = cst(-1); /* wraps around to itself, no C overflow */
    wf_divs(&r, &a, &k, 32);
    cr_expect(wf_is_const(&r, 32, &c) && c == INT32_MIN);
    wf_rems(&r, &a, &k, 32);
    cr_expect(wf_is_const(&r, 32, &c) && c == 0);
    k = cst(32); /* tid ≥ 0: the unsigned rules */
    wf_divs(&r, &t, &k, 32);
    cr_expect_eq(r.kind, WF_UNI);
    wf_rems(&r, &t, &k, 32);
    cr_expect(wf_is_linear(&r, &c) && c == 1 && r.k == 64);
    t.nn = 0; /* a dividend that may be negative */
    wf_rems(&r, &t, &k, 32);
    cr_expect_eq(r.kind, WF_BOT);
    wf_uni(&a, 0, 0);
    wf_divs(&r, &a, &k, 32);
    cr_expect(r.kind == WF_UNI && r.k == 0);
    wf_uni(&a, 0, 0), a.nn = 1; /* only the sign known: shr.s by n − 1 is 0 */
    k = cst(31);
    wf_shr(&r, &a, &k, 32, true);
    cr_expect(wf_is_const(&r, 32, &c) && c == 0);
}

/* min/max compare as the type says; exact lanes lane by lane, otherwise
 * a or b in every lane only when a < b is uniform (the meet). */
Test(warp_form, min_and_max)
{
    wform r, a = cst(-1), b = cst(5), t = tid_x(), l, k;
    bool nowrap = false;
    int64_t c;
    wf_minmax(&r, &a, &b, 32, true, false, &nowrap); /* signed: -1 */
    cr_expect(wf_is_const(&r, 32, &c) && c == -1);
    wf_minmax(&r, &a, &b, 32, false, false, &nowrap); /* unsigned: 0xffffffff > 5 */
    cr_expect(wf_is_const(&r, 32, &c) && c == 5);
    wf_minmax(&r, &a, &b, 32, false, true, &nowrap);
    cr_expect(wf_is_const(&r, 32, &c) && c == -1);
    wf_lane(&l, 1, 0, 64); /* the lane index, exact: min(lane, 20) lane by lane */
    k = cst(20);
    wf_minmax(&r, &l, &k, 32, true, false, &nowrap);
    cr_expect(r.kind == WF_LANE && r.k == 64 && r.g[3] == 3 && r.g[20] == 20 && r.g[31] == 20);
    k = cst(128); /* tid < 128 is uniform: min(tid, 128) is tid or 128 in a warp, not both, but which is not known */
    wf_minmax(&r, &t, &k, 32, false, false, &nowrap);
    cr_expect_eq(r.kind, WF_BOT); /* the meet of U + lane and a constant */
    wf_uni(&a, 0, 0), wf_uni(&b, 0, 0);
    wf_minmax(&r, &a, &b, 32, true, true, &nowrap);
    cr_expect_eq(r.kind, WF_UNI);
    k = cst(16); /* tid < 16 splits a warp: no answer */
    wf_minmax(&r, &t, &k, 32, false, true, &nowrap);
    cr_expect_eq(r.kind, WF_BOT);
}

Test(warp_form, comparisons_that_cannot_split_a_warp)
{
    wform t = tid_x(), p, k;
    bool nowrap;
    static const struct { enum wf_cmp_op op; int64_t c; bool uniform; } cases[] = {
        {WF_LT, 128, true}, {WF_LT, 64, true}, {WF_LT, 32, true}, {WF_LT, 16, false}, {WF_EQ, 0, false},
        {WF_LT, 100, false}, {WF_GE, 64, true}, {WF_NE, 0, false}, {WF_LE, 63, true}, {WF_GT, 31, true},
        {WF_LT, 0, true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        nowrap = false;
        k = cst(cases[i].c);
        wf_cmp(&p, cases[i].op, &t, &k, 32, false, &nowrap);
        cr_expect_eq(p.kind == WF_UNI, cases[i].uniform, "case %zu: tid op %lld", i, (long long)cases[i].c);
        cr_expect(!nowrap || !cases[i].uniform || p.kind == WF_UNI, "case %zu", i);
    }
    /* (tid - 64) <u 128, nvcc's tid >= 64 && tid < 192: exact, no wraparound assumed */
    wform d, off = cst(-64);
    wf_add(&d, &t, &off, 32);
    k = cst(128);
    nowrap = false;
    wf_cmp(&p, WF_LT, &d, &k, 32, false, &nowrap);
    cr_expect_eq(p.kind, WF_UNI);
    cr_expect(!nowrap);
    /* lane == 0 of an exact lane: a known predicate per lane */
    wform lane = cst(0), one;
    wf_lane(&lane, 1, 0, 64);
    k = cst(0);
    wf_cmp(&p, WF_EQ, &lane, &k, 32, false, &nowrap);
    cr_expect_eq(p.kind, WF_LANE);
    cr_expect_eq(p.k, 64);
    cr_expect_eq((int64_t)p.r + p.g[0], 1);
    cr_expect_eq((int64_t)p.r + p.g[7], 0);
    one = cst(1);
    wf_xor(&p, &p, &one, 64); /* not.pred */
    cr_expect_eq((int64_t)p.r + p.g[0], 0);
}

Test(warp_form, meet_and_arithmetic)
{
    wform t = tid_x(), a, b, m, k = cst(32);
    wf_add(&a, &t, &k, 32); /* tid + 32: U + lane, U ≡ 0 mod 32 */
    wf_meet(&m, &t, &a);
    cr_expect_eq(m.kind, WF_LANE);
    cr_expect_eq(m.k, 5);
    k = cst(1);
    wf_add(&b, &t, &k, 32); /* U ≡ 1 mod 32: the meet keeps no bit */
    wf_meet(&m, &t, &b);
    cr_expect_eq(m.kind, WF_LANE);
    cr_expect_eq(m.k, 0);
    wform sq;
    wf_shr(&sq, &t, &(wform){0}, 32, false); /* a ⊤ shift amount */
    cr_expect_eq(sq.kind, WF_TOP);
    k = cst(4);
    wf_mul(&a, &t, &k, 32);
    int64_t c;
    cr_expect(wf_is_linear(&a, &c) && c == 4 && a.k == 7);
    wform u;
    wf_uni(&u, 0, 0);
    wf_mul(&a, &t, &u, 32); /* lane times an unknown uniform: not known per lane */
    cr_expect_eq(a.kind, WF_BOT);
    /* bfi: the warp index above the lane bits (warp-pair frame index) */
    wform w, lane, pos = cst(5), len = cst(27);
    wf_uni(&w, 0, 0);
    wf_lane(&lane, 1, 0, 64);
    wf_bfi(&a, &w, &lane, &pos, &len, 32);
    cr_expect(wf_is_linear(&a, &c) && c == 1 && a.k == 5);
}

/* ---- the analysis on the idioms of the issue ------------------------------------------------ */

#define HEAD ".version 8.0\n.target sm_80\n.address_size 64\n"

typedef tu_div_run run;

static run analyse(const char *text, const div_options *o) { return tu_div_analyse(text, DIV_AN_AFFINE, o); }
static void done(run *x) { tu_div_done(x); }

static uint32_t value(const run *x, const char *name) { return tu_value_named(x->r->pf->ssa, name); }

/* The predicates of warp_ids (nvcc -O3 turns its ifs into selp): each
 * verdict, and the assumption it rests on. */
static const char *const WARP_IDS =
    HEAD ".visible .entry warp_ids(.param .u64 o)\n{\n"
         " .reg .pred %p<8>; .reg .b32 %r<20>; .reg .b64 %rd<3>;\n"
         " ld.param.u64 %rd1, [o];\n"
         " mov.u32 %r1, %tid.x;\n"
         " and.b32 %r2, %r1, -32;\n setp.eq.s32 %p1, %r2, 0;\n"  /* w == 0 */
         " setp.lt.u32 %p2, %r1, 128;\n"                         /* w < 4 */
         " and.b32 %r6, %r1, 32;\n setp.eq.s32 %p3, %r6, 0;\n"   /* (tid / 32) % 2 */
         " and.b32 %r9, %r1, 64;\n setp.eq.s32 %p4, %r9, 0;\n"   /* tid & 64 */
         " and.b32 %r12, %r1, 4;\n setp.eq.s32 %p5, %r12, 0;\n"  /* tid & 4 */
         " add.s32 %r15, %r1, -64;\n setp.lt.u32 %p6, %r15, 128;\n" /* tid >= 64 && tid < 192 */
         " setp.lt.u32 %p7, %r1, 100;\n"                         /* tid < 100 */
         " shr.u32 %r16, %r1, 5;\n"                              /* the warp id */
         " and.b32 %r17, %r1, 31;\n"                             /* the lane */
         " selp.u32 %r3, 1, 0, %p1;\n selp.u32 %r4, 1, 0, %p2;\n selp.u32 %r5, 1, 0, %p3;\n"
         " selp.u32 %r7, 1, 0, %p4;\n selp.u32 %r8, 1, 0, %p5;\n selp.u32 %r10, 1, 0, %p6;\n"
         " selp.u32 %r11, 1, 0, %p7;\n"
         " st.global.v4.u32 [%rd1], {%r3, %r4, %r5, %r7};\n"
         " st.global.v4.u32 [%rd1+16], {%r8, %r10, %r11, %r16};\n"
         " st.global.u32 [%rd1+32], %r17;\n ret;\n}\n";

Test(warp_form, warp_and_lane_ids_default_shape)
{
    run x = analyse(WARP_IDS, NULL);
    static const struct { const char *v; int state; } want[] = {
        {"%p1.1", DIV_UNIFORM}, {"%p2.1", DIV_UNIFORM}, {"%p3.1", DIV_UNIFORM}, {"%p4.1", DIV_UNIFORM},
        {"%p5.1", DIV_DIVERGENT}, {"%p6.1", DIV_UNIFORM}, {"%p7.1", DIV_DIVERGENT}, {"%r16.1", DIV_UNIFORM},
        {"%r17.1", DIV_AFFINE},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        uint32_t v = value(&x, want[i].v);
        cr_expect_eq(x.r->state[v], want[i].state, "%s: %s", want[i].v, div_state_name((enum div_state)x.r->state[v]));
        /* each rests on the lanes being consecutive x indices */
        if (want[i].state != DIV_DIVERGENT) cr_expect_eq(x.r->cond[v], DIV_COND_ROWS, "%s", want[i].v);
    }
    int64_t c;
    cr_expect(div_coef(x.r, value(&x, "%r17.1"), DIV_C_LANE, &c) && c == 1); /* laneid + 0 */
    cr_expect(div_coef(x.r, value(&x, "%r17.1"), 0, &c) && c == 0);
    done(&x);
}

/* The same kernel at exact shapes: 256x1x1 keeps every verdict and states
 * no assumption; 16x16 and 100x1 differ where the shape matters. */
Test(warp_form, warp_and_lane_ids_exact_shapes)
{
    div_options b256 = {.block = {256, 1, 1}, .assume_tid_yz_uniform = false}, b16 = {.block = {16, 16, 1}, .assume_tid_yz_uniform = false}, b100 = {.block = {100, 1, 1}, .assume_tid_yz_uniform = false};
    run x = analyse(WARP_IDS, &b256);
    const char *uni[] = {"%p1.1", "%p2.1", "%p3.1", "%p4.1", "%p6.1", "%r16.1"};
    for (size_t i = 0; i < 6; i++) {
        uint32_t v = value(&x, uni[i]);
        cr_expect_eq(x.r->state[v], DIV_UNIFORM, "%s", uni[i]);
        cr_expect_eq(x.r->cond[v], 0, "%s", uni[i]);
    }
    done(&x);
    /* 16x16: tid.x = lane & 15, so tid.x & 64 is 0 and tid.x >> 5 is 0
     * (uniform); tid.x & 4 and tid.x < 100? all 16 lanes below 100 */
    x = analyse(WARP_IDS, &b16);
    cr_expect_eq(x.r->state[value(&x, "%p4.1")], DIV_UNIFORM);
    cr_expect_eq(x.r->state[value(&x, "%p5.1")], DIV_DIVERGENT);
    cr_expect_eq(x.r->state[value(&x, "%p7.1")], DIV_UNIFORM);
    /* tid & 31 at 16 wide is tid.x itself (lane & 15): affine in tid.x */
    cr_expect_eq(x.r->state[value(&x, "%r17.1")], DIV_AFFINE);
    int64_t c;
    cr_expect(div_coef(x.r, value(&x, "%r17.1"), DIV_C_X, &c) && c == 1);
    cr_expect(div_coef(x.r, value(&x, "%r17.1"), 0, &c) && c == 0);
    done(&x);
    /* 100x1: one-dimensional, so the lanes are still consecutive */
    x = analyse(WARP_IDS, &b100);
    cr_expect_eq(x.r->state[value(&x, "%p2.1")], DIV_UNIFORM);
    cr_expect_eq(x.r->state[value(&x, "%p7.1")], DIV_DIVERGENT);
    done(&x);
}

/* Warp-per-row: row = (ctaid·ntid + tid) / 32 is warp-uniform because
 * ntid is a multiple of 32 (the assumption it states); at 48 threads it
 * is not. */
Test(warp_form, warp_per_row_needs_blockdim_multiple_of_32)
{
    const char *k = HEAD ".visible .entry k(.param .u64 o, .param .u32 n)\n{\n"
                         " .reg .pred %p<2>; .reg .b32 %r<8>; .reg .b64 %rd<3>;\n"
                         " ld.param.u64 %rd1, [o];\n ld.param.u32 %r7, [n];\n"
                         " mov.u32 %r1, %ctaid.x;\n mov.u32 %r2, %ntid.x;\n mov.u32 %r3, %tid.x;\n"
                         " mad.lo.s32 %r4, %r1, %r2, %r3;\n shr.u32 %r5, %r4, 5;\n"
                         " setp.ge.s32 %p1, %r5, %r7;\n @%p1 bra $done;\n"
                         " st.global.u32 [%rd1], %r5;\n$done:\n ret;\n}\n";
    run x = analyse(k, NULL);
    uint32_t row = value(&x, "%r5.1");
    cr_expect_eq(x.r->state[row], DIV_UNIFORM);
    cr_expect_eq(x.r->cond[row], DIV_COND_X32 | DIV_COND_ROWS);
    cr_expect_str_eq(div_cond_text(x.r->cond[row]), "blockDim.x is a multiple of 32");
    const cfg *g = x.r->pf->g;
    unsigned nbr = 0;
    for (uint32_t bi = 0; bi < g->nblocks; bi++)
        if (g->blocks[bi].reachable && g->blocks[bi].nsucc > 1) {
            nbr++;
            cr_expect_eq(div_branch(x.r, bi), DIV_UNIFORM);
            cr_expect_eq(div_branch_cond(x.r, bi), DIV_COND_X32 | DIV_COND_ROWS);
        }
    cr_expect_eq(nbr, 1);
    done(&x);
    div_options b48 = {.block = {48, 1, 1}, .assume_tid_yz_uniform = false};
    x = analyse(k, &b48);
    cr_expect_eq(x.r->state[value(&x, "%r5.1")], DIV_DIVERGENT);
    done(&x);
    div_options b64 = {.block = {64, 1, 1}, .assume_tid_yz_uniform = false};
    x = analyse(k, &b64);
    cr_expect_eq(x.r->state[value(&x, "%r5.1")], DIV_UNIFORM);
    cr_expect_eq(x.r->cond[value(&x, "%r5.1")], 0);
    done(&x);
}

/* div.s/rem.s of values known in every lane: the quotient rounds towards
 * zero lane by lane (ISA, "div"), so laneid - 40 (every lane in -40..-9)
 * divided by 64 is 0 in all of them: uniform, whatever the block shape;
 * the remainder by 8 is not.  The same rule (wf_divs/wf_rems) serves
 * branch verdicts and addresses, and the emulator confirms the claims. */
static const char *const SDIV =
    HEAD ".visible .entry sdiv(.param .u64 o)\n{\n"
         " .reg .pred %p<3>; .reg .b32 %r<9>; .reg .b64 %rd<4>;\n"
         " ld.param.u64 %rd1, [o];\n cvta.to.global.u64 %rd2, %rd1;\n"
         " mov.u32 %r1, %laneid;\n sub.s32 %r2, %r1, 40;\n"
         " div.s32 %r3, %r2, 64;\n setp.eq.s32 %p1, %r3, 0;\n"
         " rem.s32 %r4, %r2, 8;\n setp.eq.s32 %p2, %r4, 0;\n"
         " selp.u32 %r5, 1, 0, %p1;\n selp.u32 %r6, 1, 0, %p2;\n"
         " mov.u32 %r7, %tid.x;\n mul.wide.u32 %rd3, %r7, 8;\n add.s64 %rd3, %rd2, %rd3;\n"
         " st.global.v2.u32 [%rd3], {%r5, %r6};\n ret;\n}\n";

/* Runs text under `ptxray run --check-divergence` at three block shapes
 * (a full, a partial and a two-dimensional one): no claim of the analysis
 * may be contradicted, and at least `values` values are checked. */
static void emu_confirms_args(const char *text, long values, const char *const *args, size_t nargs);

static void emu_confirms(const char *text, long values) { emu_confirms_args(text, values, NULL, 0); }

/* The same, with these --arg values after the buffer. */
static void emu_confirms_args(const char *text, long values, const char *const *args, size_t nargs)
{
    char path[] = "/tmp/ptxray-wf-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    const char *shapes[] = {"64", "48", "16,4"};
    for (size_t i = 0; i < 3; i++) {
        char *argv[16] = {(char *)tu_bin(), "run", path, "--block", (char *)shapes[i], "--arg", "buf:u32:128",
                          "--check-divergence", "--format", "json"};
        for (size_t k = 0; k < nargs && k < 2; k++) argv[10 + 2 * k] = "--arg", argv[11 + 2 * k] = (char *)args[k];
        char *err = NULL, *out = tu_run_want(argv, 0, &err);
        json_error_t je;
        json_t *j = json_loads(out, 0, &je);
        cr_assert_not_null(j, "%s", out);
        json_t *dc = json_object_get(j, "divergence_check");
        cr_assert_not_null(dc, "%s", out);
        cr_expect_eq(json_integer_value(json_object_get(dc, "violated")), 0, "%s", out);
        cr_expect_geq(json_integer_value(json_object_get(json_object_get(dc, "checked"), "values")), values, "%s", out);
        json_decref(j);
        free(out);
        free(err);
    }
    unlink(path);
}

Test(warp_form, signed_division_of_lane_values)
{
    run x = analyse(SDIV, NULL);
    cr_expect_eq(x.r->state[value(&x, "%r3.1")], DIV_UNIFORM);
    cr_expect_eq(x.r->state[value(&x, "%p1.1")], DIV_UNIFORM);
    cr_expect_eq(x.r->state[value(&x, "%r4.1")], DIV_DIVERGENT);
    cr_expect_eq(x.r->state[value(&x, "%p2.1")], DIV_DIVERGENT);
    done(&x);
    emu_confirms(SDIV, 8);
}

/* min/max of values known in every lane, lane by lane (ISA "min", "max";
 * wf_minmax, the one place of the rule): min.u32(laneid, 40) is laneid
 * itself, max.u32(laneid, 40) is 40 in every lane, and max.s32(laneid - 40,
 * -20) is neither a nor b in all lanes (divergent). */
static const char *const MINMAX =
    HEAD ".visible .entry minmax(.param .u64 o)\n{\n"
         " .reg .pred %p<3>; .reg .b32 %r<12>; .reg .b64 %rd<4>;\n"
         " ld.param.u64 %rd1, [o];\n cvta.to.global.u64 %rd2, %rd1;\n"
         " mov.u32 %r1, %laneid;\n"
         " min.u32 %r2, %r1, 40;\n max.u32 %r3, %r1, 40;\n"
         " sub.s32 %r4, %r1, 40;\n max.s32 %r5, %r4, -20;\n"
         " setp.eq.s32 %p1, %r3, 40;\n selp.u32 %r6, 1, 0, %p1;\n"
         " add.s32 %r7, %r2, %r5;\n add.s32 %r8, %r7, %r6;\n"
         " mov.u32 %r9, %tid.x;\n mul.wide.u32 %rd3, %r9, 4;\n add.s64 %rd3, %rd2, %rd3;\n"
         " st.global.u32 [%rd3], %r8;\n ret;\n}\n";

Test(warp_form, min_max_of_lane_values)
{
    run x = analyse(MINMAX, NULL);
    int64_t c;
    cr_expect_eq(x.r->state[value(&x, "%r2.1")], DIV_AFFINE);
    cr_expect(div_coef(x.r, value(&x, "%r2.1"), DIV_C_LANE, &c) && c == 1);
    cr_expect_eq(x.r->state[value(&x, "%r3.1")], DIV_UNIFORM);
    cr_expect_eq(x.r->state[value(&x, "%p1.1")], DIV_UNIFORM);
    cr_expect_eq(x.r->state[value(&x, "%r5.1")], DIV_DIVERGENT);
    done(&x);
    emu_confirms(MINMAX, 8);
}

/* Symbol identity (warp_form.h sym): n + lane + 7 - n is lane + 7 in
 * every warp, whatever n (the form is exact modulo 2^32, so n close to
 * 2^32 changes nothing), so (lane + 7) >> 6 is 0 and the branch uniform;
 * without the identity U_n - U_n was an unknown, and the shift split
 * lanes. */
static const char *const SYMID =
    HEAD ".visible .entry symid(.param .u64 o, .param .u32 n)\n{\n"
         " .reg .pred %p<3>; .reg .b32 %r<12>; .reg .b64 %rd<5>;\n"
         " ld.param.u64 %rd1, [o];\n cvta.to.global.u64 %rd2, %rd1;\n ld.param.u32 %r1, [n];\n"
         " mov.u32 %r2, %laneid;\n add.s32 %r3, %r1, %r2;\n add.s32 %r4, %r3, 7;\n sub.s32 %r5, %r4, %r1;\n"
         " shr.u32 %r6, %r5, 6;\n setp.eq.s32 %p1, %r6, 0;\n mov.u32 %r10, 0;\n @%p1 bra $L1;\n mov.u32 %r10, 1;\n"
         "$L1:\n mov.u32 %r7, %tid.x;\n mul.wide.u32 %rd3, %r7, 4;\n add.s64 %rd4, %rd2, %rd3;\n"
         " st.global.u32 [%rd4], %r10;\n ret;\n}\n";

/* selp of two uniform unknowns by a lane-varying predicate mixes two U:
 * divergent, although both forms read "U" (the rule once took equal
 * forms for equal values; the emulator contradicts that with a = 0,
 * b = 5). */
static const char *const SELPMIX =
    HEAD ".visible .entry selpmix(.param .u64 o, .param .u32 a, .param .u32 b)\n{\n"
         " .reg .pred %p<3>; .reg .b32 %r<12>; .reg .b64 %rd<5>;\n"
         " ld.param.u64 %rd1, [o];\n cvta.to.global.u64 %rd2, %rd1;\n ld.param.u32 %r1, [a];\n ld.param.u32 %r2, [b];\n"
         " mov.u32 %r3, %laneid;\n and.b32 %r4, %r3, 1;\n setp.eq.u32 %p1, %r4, 0;\n selp.u32 %r5, %r1, %r2, %p1;\n"
         " selp.u32 %r6, %r1, %r1, %p1;\n add.s32 %r5, %r5, %r6;\n"
         " setp.eq.u32 %p2, %r5, 0;\n mov.u32 %r10, 0;\n @%p2 bra $L1;\n mov.u32 %r10, 1;\n"
         "$L1:\n mov.u32 %r7, %tid.x;\n mul.wide.u32 %rd3, %r7, 4;\n add.s64 %rd4, %rd2, %rd3;\n"
         " st.global.u32 [%rd4], %r10;\n ret;\n}\n";

Test(warp_form, symbol_identity_cancels_a_uniform_root)
{
    run x = analyse(SYMID, NULL);
    wform w;
    cr_assert(div_warp_form(x.r, value(&x, "%r5.1"), &w));
    cr_expect(w.kind == WF_LANE && w.k == 64 && w.r == 7 && w.g[31] == 31, "lane + 7");
    cr_assert(div_warp_form(x.r, value(&x, "%r4.1"), &w));
    cr_expect(w.kind == WF_LANE && w.sym == value(&x, "%r1.1") + 1 && w.off == 7, "n + 7 + lane");
    cr_expect_eq(x.r->state[value(&x, "%r6.1")], DIV_UNIFORM);
    cr_expect_eq(x.r->state[value(&x, "%p1.1")], DIV_UNIFORM);
    done(&x);
    const char *n[] = {"u32:4294967290"};
    emu_confirms_args(SYMID, 8, n, 1);
}

Test(warp_form, selp_of_two_unknowns_by_a_lane_predicate)
{
    run x = analyse(SELPMIX, NULL);
    cr_expect_eq(x.r->state[value(&x, "%r5.1")], DIV_DIVERGENT);
    cr_expect_eq(x.r->state[value(&x, "%r6.1")], DIV_UNIFORM); /* the same unknown either way */
    cr_expect_eq(x.r->state[value(&x, "%p2.1")], DIV_DIVERGENT);
    done(&x);
    const char *ab[] = {"u32:0", "u32:5"};
    emu_confirms_args(SELPMIX, 8, ab, 2);
}

/* The sign (warp_form.h nn, affine_rules.c wf_sign) is the dataflow's, kept
 * for divergent values too: it is the one coalescing reads (lane_nonneg).
 * A loaded x is any 32-bit number, so x & 255, x >> 1, min.u(x & 255, x),
 * x % 64, the zero-extension of x, a truncation of a 64-bit value >= 0
 * (under the no-wraparound assumption, as add's) and a loop mu whose entry
 * and back edge are >= 0 are >= 0 as signed numbers; max.u(x & 255, x),
 * x - 1, the truncation of a loaded 64-bit value and a quotient by a
 * register (which may be 0) are not. */
static const char *const SIGNS =
    HEAD ".visible .entry signs(.param .u64 o)\n{\n"
         " .reg .pred %p<3>; .reg .b32 %r<20>; .reg .b64 %rd<9>;\n"
         " ld.param.u64 %rd1, [o];\n cvta.to.global.u64 %rd2, %rd1;\n"
         " mov.u32 %r1, %tid.x;\n mul.wide.u32 %rd3, %r1, 4;\n add.s64 %rd4, %rd2, %rd3;\n"
         " ld.global.u32 %r2, [%rd4];\n"
         " and.b32 %r3, %r2, 255;\n shr.u32 %r4, %r2, 1;\n"
         " max.u32 %r5, %r3, %r2;\n min.u32 %r6, %r3, %r2;\n"
         " rem.u32 %r7, %r2, 64;\n div.u32 %r8, %r2, %r1;\n sub.s32 %r9, %r3, 1;\n"
         " cvt.u64.u32 %rd5, %r2;\n ld.global.u64 %rd6, [%rd4];\n and.b64 %rd7, %rd6, 9223372036854775807;\n"
         " cvt.u32.u64 %r10, %rd7;\n cvt.u32.u64 %r14, %rd6;\n"
         " mov.u32 %r11, %r3;\n"
         "$L1:\n add.s32 %r11, %r11, 32;\n setp.lt.u32 %p1, %r11, %r2;\n @%p1 bra $L1;\n"
         " add.s32 %r12, %r4, %r5;\n add.s32 %r12, %r12, %r6;\n add.s32 %r12, %r12, %r7;\n"
         " add.s32 %r12, %r12, %r8;\n add.s32 %r12, %r12, %r9;\n add.s32 %r12, %r12, %r10;\n"
         " add.s32 %r12, %r12, %r11;\n cvt.u32.u64 %r13, %rd5;\n add.s32 %r12, %r12, %r13;\n"
         " st.global.u32 [%rd4], %r12;\n ret;\n}\n";

static bool nonneg(const run *x, const char *name)
{
    wform w;
    cr_assert(div_warp_form(x->r, value(x, name), &w));
    return w.nn;
}

Test(warp_form, signs_of_divergent_values)
{
    run x = analyse(SIGNS, NULL);
    cr_expect_eq(x.r->state[value(&x, "%r3.1")], DIV_DIVERGENT);
    const char *pos[] = {"%r3.1", "%r4.1", "%r6.1", "%r7.1", "%rd5.1", "%rd7.1", "%r10.1", "%r11.2", "%r11.3"};
    const char *neg[] = {"%r2.1", "%r5.1", "%r8.1", "%r9.1", "%r14.1", "%rd6.1"};
    for (size_t i = 0; i < sizeof pos / sizeof *pos; i++) cr_expect(nonneg(&x, pos[i]), "%s", pos[i]);
    for (size_t i = 0; i < sizeof neg / sizeof *neg; i++) cr_expect(!nonneg(&x, neg[i]), "%s", neg[i]);
    done(&x);
}

Test(warp_form, conditions_hold_at_shapes)
{
    uint32_t s256[3] = {256, 1, 1}, s128x2[3] = {128, 2, 1}, s32x8[3] = {32, 8, 1}, s16[3] = {16, 16, 1},
             s48[3] = {48, 1, 1}, s100[3] = {100, 0, 0};
    unsigned both = DIV_COND_ROWS | DIV_COND_X32;
    cr_expect(div_cond_holds(both, s256) && div_cond_holds(both, s128x2) && div_cond_holds(both, s32x8));
    cr_expect(!div_cond_holds(both, s16) && !div_cond_holds(both, s48) && !div_cond_holds(both, s100));
    cr_expect(div_cond_holds(DIV_COND_ROWS, s48) && div_cond_holds(DIV_COND_ROWS, s100));
    cr_expect(!div_cond_holds(DIV_COND_ROWS, s16));
    cr_expect(div_cond_holds(0, s16));
}

/* ---- the corpus kernels' annotations -------------------------------------------------------- */

static const char *const ANNOTATED[] = {"warp_reduce_tree", "warp_roles", "spmv_warp_row", "warp_stride",
                                        "tile_1d_to_2d", "warp_specialized", "warp_shfl_ballot"};
#define NANNOTATED (sizeof ANNOTATED / sizeof ANNOTATED[0])
static const char *const ARCHES[] = {"sm_75", "sm_80", "sm_90"};

/* A corpus source, split into lines (1-based through line()). */
typedef struct annotated {
    char rel[128];
    char *text;
    char **lines;
    size_t n;
} annotated;

static annotated load_annotated(const char *name)
{
    annotated a;
    snprintf(a.rel, sizeof a.rel, "ptx-corpus/src/%s.cu", name);
    a.text = tu_read(tu_src(a.rel), NULL);
    cr_assert_not_null(a.text, "%s", a.rel);
    size_t cap = 64;
    a.lines = malloc(cap * sizeof *a.lines);
    a.n = 0;
    for (char *p = a.text; p && *p;) {
        if (a.n == cap) a.lines = realloc(a.lines, (cap *= 2) * sizeof *a.lines);
        a.lines[a.n++] = p;
        char *e = strchr(p, '\n');
        if (!e) break;
        *e = 0;
        p = e + 1;
    }
    return a;
}

static void annotated_free(annotated *a)
{
    free(a->lines);
    free(a->text);
}

/* The annotation on source line i: its @tag's value into word, or -1.  The
 * files' headers mention the tags in prose: only a verdict (@branch) or a
 * count (@sectors) is an annotation. */
static int annotation(const annotated *a, size_t i, const char *tag, char *word, size_t wn)
{
    if (i < 1 || i > a->n) return -1;
    const char *at = strstr(a->lines[i - 1], tag);
    if (!at) return -1;
    at += strlen(tag);
    while (*at == ' ') at++;
    size_t k = 0;
    while (at[k] && at[k] != ' ' && k + 1 < wn) word[k] = at[k], k++;
    word[k] = 0;
    if (!strcmp(tag, "@branch")) return !strcmp(word, "uniform") || !strcmp(word, "divergent") ? 0 : -1;
    return k && strspn(word, "0123456789") == k ? 0 : -1;
}

/* The corpus PTX of a source for an arch, as an absolute path. */
static const char *corpus_ptx(const char *arch, const char *name, char *buf, size_t n)
{
    char rel[128];
    snprintf(rel, sizeof rel, "ptx-corpus/%s/%s.ptx", arch, name);
    snprintf(buf, n, "%s", tu_src(rel));
    return buf;
}

static json_t *run_json(char **argv)
{
    char *out = NULL, *err = NULL;
    int rc = tu_run(argv, &out, &err);
    cr_assert(rc == 0 || rc == 1, "%s: exit %d: %s", argv[1], rc, err);
    json_error_t je;
    json_t *j = json_loads(out, 0, &je);
    cr_assert_not_null(j, "%s", je.text);
    free(out);
    free(err);
    return j;
}

/* Every annotated line is flagged exactly when it is annotated divergent,
 * and no other line is flagged; flagged[i] for source line i.  Returns the
 * annotated lines checked. */
static unsigned expect_flagged_divergent(const annotated *a, const uint8_t *flagged, const char *what)
{
    unsigned checked = 0;
    for (size_t l = 1; l <= a->n; l++) {
        char w[32];
        if (annotation(a, l, "@branch", w, sizeof w) < 0) {
            cr_expect(!flagged[l], "%s:%zu (%s): divergent-branch finding on a line without a branch", a->rel, l, what);
            continue;
        }
        cr_expect_eq(flagged[l], !strcmp(w, "divergent"), "%s:%zu (%s): annotated %s, %s", a->rel, l, what, w,
                     flagged[l] ? "flagged" : "not flagged");
        checked++;
    }
    return checked;
}

/* Every conditional branch of the annotated kernels, at the default shape
 * and at 256 threads, has the verdict its source line states; every
 * annotated line is seen on every arch. */
Test(warp_form, corpus_branch_verdicts_per_source_line, .timeout = 120)
{
    unsigned checked = 0;
    for (size_t f = 0; f < NANNOTATED; f++) {
        annotated src = load_annotated(ANNOTATED[f]);
        for (size_t a = 0; a < 3; a++)
            for (int shape = 0; shape < 2; shape++) {
                char ptx[512];
                char *argv[] = {(char *)tu_bin(), "divergence", "--format", "json", "--values", "none",
                                (char *)corpus_ptx(ARCHES[a], ANNOTATED[f], ptx, sizeof ptx),
                                shape ? "--block" : NULL, "256", NULL};
                json_t *j = run_json(argv);
                uint8_t *seen = calloc(src.n + 1, 1); /* 1: uniform seen, 2: divergent seen */
                size_t ki, bi;
                json_t *k, *b;
                json_array_foreach(json_object_get(j, "kernels"), ki, k)
                    json_array_foreach(json_object_get(k, "branches"), bi, b) {
                        json_t *so = json_object_get(b, "src");
                        size_t line = json_is_object(so) ? (size_t)json_integer_value(json_object_get(so, "line")) : 0;
                        const char *v = json_string_value(json_object_get(b, "verdict"));
                        if (line >= 1 && line <= src.n) seen[line] |= !strcmp(v, "divergent") ? 2 : 1;
                    }
                for (size_t i = 1; i <= src.n; i++) {
                    char w[32];
                    if (annotation(&src, i, "@branch", w, sizeof w) < 0) continue;
                    cr_expect(seen[i], "%s:%zu (%s): no branch on an annotated line", src.rel, i, ARCHES[a]);
                    if (!seen[i]) continue;
                    const char *got = seen[i] & 2 ? "divergent" : "uniform";
                    cr_expect_str_eq(got, w, "%s:%zu (%s%s): %s, annotated %s", src.rel, i, ARCHES[a],
                                     shape ? ", 256 threads" : "", got, w);
                    checked++;
                }
                free(seen);
                json_decref(j);
            }
        annotated_free(&src);
    }
    cr_expect_geq(checked, 40);
    cr_log_info("per-line branch verdicts checked: %u", checked);
}

/* The sectors a full warp's request touches, where the source line states
 * them (256 threads, aligned allocations). */
Test(warp_form, corpus_sector_counts_per_source_line, .timeout = 120)
{
    unsigned checked = 0;
    for (size_t f = 0; f < NANNOTATED; f++) {
        annotated src = load_annotated(ANNOTATED[f]);
        for (size_t a = 0; a < 3; a++) {
            char ptx[512];
            char *argv[] = {(char *)tu_bin(), "coalescing", "--format", "json", "--block", "256",
                            (char *)corpus_ptx(ARCHES[a], ANNOTATED[f], ptx, sizeof ptx), NULL};
            json_t *j = run_json(argv);
            size_t ki, xi;
            json_t *k, *x;
            json_array_foreach(json_object_get(j, "kernels"), ki, k)
                json_array_foreach(json_object_get(k, "accesses"), xi, x) {
                    json_t *so = json_object_get(x, "src");
                    if (strcmp(json_string_value(json_object_get(x, "space")), "global") || !json_is_object(so)) continue;
                    size_t line = (size_t)json_integer_value(json_object_get(so, "line"));
                    char w[32];
                    if (annotation(&src, line, "@sectors", w, sizeof w) < 0) continue;
                    json_t *sec = json_object_get(x, "sectors_per_request");
                    cr_expect(json_is_integer(sec) && json_integer_value(sec) == atoi(w),
                              "%s:%zu (%s): %lld sectors, annotated %s", src.rel, line, ARCHES[a],
                              json_is_integer(sec) ? (long long)json_integer_value(sec) : -1LL, w);
                    checked++;
                }
            json_decref(j);
        }
        annotated_free(&src);
    }
    cr_expect_geq(checked, 30);
    cr_log_info("per-line sector counts checked: %u", checked);
}

/* The same verdicts through `check --enable divergent-branch`: its
 * divergent-branch findings sit exactly on the lines annotated divergent,
 * and on no line annotated uniform. */
Test(warp_form, corpus_check_divergent_branch_findings_per_source_line, .timeout = 120)
{
    unsigned checked = 0;
    for (size_t f = 0; f < NANNOTATED; f++) {
        annotated src = load_annotated(ANNOTATED[f]);
        for (size_t a = 0; a < 3; a++) {
            char ptx[512];
            char *argv[] = {(char *)tu_bin(), "check", "--enable", "divergent-branch", "--format", "json",
                            (char *)corpus_ptx(ARCHES[a], ANNOTATED[f], ptx, sizeof ptx), NULL};
            json_t *j = run_json(argv);
            uint8_t *flagged = calloc(src.n + 1, 1);
            size_t i;
            json_t *x;
            json_array_foreach(json_object_get(j, "findings"), i, x) {
                if (strcmp(json_string_value(json_object_get(x, "rule")), "divergent-branch")) continue;
                json_t *so = json_object_get(x, "src");
                size_t line = json_is_object(so) ? (size_t)json_integer_value(json_object_get(so, "line")) : 0;
                cr_expect(line >= 1 && line <= src.n, "%s (%s): a divergent-branch finding without a source line",
                          src.rel, ARCHES[a]);
                if (line >= 1 && line <= src.n) flagged[line] = 1;
            }
            checked += expect_flagged_divergent(&src, flagged, ARCHES[a]);
            free(flagged);
            json_decref(j);
        }
        annotated_free(&src);
    }
    cr_expect_geq(checked, 40);
    cr_log_info("per-line check verdicts: %u", checked);
}

/* check lists the uniform verdicts that rest on the default block shape,
 * in JSON and SARIF, each on a line annotated uniform, with its condition;
 * at an exact shape there are none; the text says how many. */
Test(warp_form, check_lists_conditional_verdicts)
{
    annotated src = load_annotated("warp_reduce_tree");
    char ptx[512];
    corpus_ptx("sm_80", "warp_reduce_tree", ptx, sizeof ptx);
    char *aj[] = {(char *)tu_bin(), "check", "--enable", "divergent-branch", "--format", "json", ptx, NULL};
    char *as[] = {(char *)tu_bin(), "check", "--enable", "divergent-branch", "--format", "sarif", ptx, NULL};
    char *ab[] = {(char *)tu_bin(), "check", "--enable", "divergent-branch", "--format", "json", "--block", "256",
                  ptx, NULL};
    json_t *j = run_json(aj), *sj = run_json(as), *bj = run_json(ab);
    json_t *cv = json_object_get(j, "conditional_verdicts");
    json_t *scv = json_object_get(json_object_get(json_array_get(json_object_get(sj, "runs"), 0), "properties"),
                                  "conditionalVerdicts");
    cr_assert_eq(json_array_size(cv), 8);
    cr_expect(json_equal(cv, scv), "SARIF and JSON list the same conditional verdicts");
    size_t i;
    json_t *x;
    json_array_foreach(cv, i, x) {
        cr_expect_str_eq(json_string_value(json_object_get(x, "verdict")), "uniform");
        cr_expect_str_eq(json_string_value(json_object_get(x, "condition")),
                         "blockDim.x is a multiple of 32 or the block is one-dimensional");
        size_t line = (size_t)json_integer_value(json_object_get(json_object_get(x, "src"), "line"));
        char w[32];
        cr_assert(line >= 1 && line <= src.n && annotation(&src, line, "@branch", w, sizeof w) >= 0,
                  "conditional verdict on unannotated line %zu", line);
        cr_expect_str_eq(w, "uniform", "line %zu", line);
    }
    cr_expect_eq(json_array_size(json_object_get(bj, "conditional_verdicts")), 0);
    char *at[] = {(char *)tu_bin(), "check", "--enable", "divergent-branch", ptx, NULL};
    char *so, *se;
    tu_run(at, &so, &se);
    cr_expect(strstr(so, "\nassumed: 8 branches proven uniform only if blockDim.x is a multiple of 32 or the block "
                         "is one-dimensional (--format json or sarif lists them; --block X,Y,Z checks them at your "
                         "shape)\n") != NULL, "%s", so);
    free(so);
    free(se);
    json_decref(j);
    json_decref(sj);
    json_decref(bj);
    annotated_free(&src);
}

/* uniformize writes .uni only on verdicts that hold for every launch: the
 * reduction's `tid < 128/64/32` branches (uniform if blockDim.x is a
 * multiple of 32) are left as written and counted, and marked once the
 * shape is given. */
Test(warp_form, uniformize_leaves_conditional_branches_unwritten)
{
    char in[512], out1[] = "/tmp/ptxray-wfu1-XXXXXX", out2[] = "/tmp/ptxray-wfu2-XXXXXX";
    snprintf(in, sizeof in, "%s", tu_src("ptx-corpus/sm_80/warp_reduce_tree.ptx"));
    int fd1 = mkstemp(out1), fd2 = mkstemp(out2);
    cr_assert(fd1 >= 0 && fd2 >= 0);
    close(fd1);
    close(fd2);
    char *a1[] = {(char *)tu_bin(), "uniformize", in, "-o", out1, NULL};
    char *a2[] = {(char *)tu_bin(), "uniformize", "--block", "256", in, "-o", out2, NULL};
    char *so, *se;
    cr_assert_eq(tu_run(a1, &so, &se), 0, "%s", se);
    cr_expect(strstr(se, ": 2 rewritten to .uni, 0 already .uni, 13 left divergent, 8 left as written (uniform only "
                         "if blockDim.x is a multiple of 32 or the block is one-dimensional: give --block to mark "
                         "them);") != NULL, "%s", se);
    free(so);
    free(se);
    cr_assert_eq(tu_run(a2, &so, &se), 0, "%s", se);
    cr_expect(strstr(se, ": 10 rewritten to .uni, 0 already .uni, 13 left divergent;") != NULL, "%s", se);
    free(so);
    free(se);
    unlink(out1);
    unlink(out2);
}

/* And through `analyze`: its [divergent-branch] findings name exactly the
 * source lines annotated divergent (text report, every annotated file on
 * sm_80), and the unrolled reduction's summary line counts its three
 * warp-uniform branches as proven. */
Test(warp_form, analyze_divergent_branch_findings_per_source_line, .timeout = 120)
{
    unsigned checked = 0;
    for (size_t f = 0; f < NANNOTATED; f++) {
        annotated src = load_annotated(ANNOTATED[f]);
        char ptx[512];
        char *argv[] = {(char *)tu_bin(), "analyze", (char *)corpus_ptx("sm_80", ANNOTATED[f], ptx, sizeof ptx), NULL};
        char *out = NULL, *err = NULL;
        int rc = tu_run(argv, &out, &err);
        cr_assert(rc == 0 || rc == 1, "analyze exit %d: %s", rc, err);
        uint8_t *flagged = calloc(src.n + 1, 1);
        char pat[160];
        for (int c = 0; c < 2; c++) {
            snprintf(pat, sizeof pat, "[divergent-branch, %s] src/%s.cu:", c ? "possible" : "proven", ANNOTATED[f]);
            for (const char *p = strstr(out, pat); p; p = strstr(p + 1, pat)) {
                size_t line = (size_t)strtoul(p + strlen(pat), NULL, 10);
                if (line >= 1 && line <= src.n) flagged[line] = 1;
            }
        }
        checked += expect_flagged_divergent(&src, flagged, "analyze");
        if (!strcmp(ANNOTATED[f], "warp_reduce_tree")) {
            const char *k = strstr(out, "== kernel reduce_tree_unrolled ==\nblock: unknown; assumed blockDim.x is a "
                                        "multiple of 32\n");
            cr_expect(k && strstr(k, "branches: 6 conditional, 3 not proven uniform\n"), "%s", out);
        }
        free(flagged);
        free(out);
        free(err);
        annotated_free(&src);
    }
    cr_expect_geq(checked, 40);
    cr_log_info("per-line analyze verdicts: %u", checked);
}
