/* Intervals in the warp form (warp_form.h wid, docs/divergence.md
 * "Intervals"): each rule with its exact result, the dataflow that
 * computes them (a loaded value masked, reduced, scaled, carried around a
 * loop, nvcc's remainder idiom), the address model that reads them
 * (lane_eval.h: a bounded access), and the emulator confirming the
 * sector counts and that no uniform claim rests on an interval. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <string.h>
#include <unistd.h>
#include "coalescing.h"
#include "divergence.h"
#include "testutil.h"
#include "warp_form.h"

static wform cst(int64_t c)
{
    wform k;
    wf_const(&k, c);
    return k;
}

static wform bot(void)
{
    wform b;
    wf_bot(&b);
    return b;
}

/* a is the interval lo + g(l) + [0, wid] with U known (k = 64): lane l's
 * low end is lo + g[l] */
static void expect_iv(const wform *a, int64_t lo, const int64_t *g, uint32_t wid)
{
    cr_assert_eq(a->kind, WF_BOT);
    cr_expect_eq(a->wid, wid);
    cr_expect_eq(a->k, 64);
    for (unsigned l = 0; l < WF_LANES; l++)
        cr_expect_eq((int64_t)(a->r + (uint64_t)a->g[l]), lo + (g ? g[l] : 0), "lane %u", l);
}

/* and with m >= 0 bounds anything, a loaded value included, to [0, m];
 * a mask with its sign bit set bounds nothing. */
Test(warp_form, iv_and_bounds_any_value)
{
    wform x = bot(), r;
    wf_iv_and(&r, &x, 7, 32);
    expect_iv(&r, 0, NULL, 7);
    cr_expect(r.nn);
    wf_iv_and(&r, &x, 1020, 32);
    expect_iv(&r, 0, NULL, 1020);
    wf_iv_and(&r, &x, 0x80000000ll, 32); /* negative as a 32-bit number */
    cr_expect(r.kind == WF_BOT && !r.wid);
    wf_iv_and(&r, &x, -8, 32);
    cr_expect(r.kind == WF_BOT && !r.wid);
    wf_iv_and(&r, &x, 0x7fffffff, 32); /* wider than 2^31 - 1 values: kept (WF_WID_MAX) */
    expect_iv(&r, 0, NULL, 0x7fffffff);
    wf_iv_and(&r, &x, 300, 8); /* 8 bits: 300 is 44 */
    expect_iv(&r, 0, NULL, 44);
}

/* rem by d > 0: [0, d - 1] unsigned or for a dividend >= 0; rem.s of a
 * value of either sign takes the dividend's sign: [-(d - 1), d - 1]. */
Test(warp_form, iv_rem_by_a_constant)
{
    wform x = bot(), r;
    wf_iv_rem(&r, &x, 10, 32, false);
    expect_iv(&r, 0, NULL, 9);
    cr_expect(r.nn);
    wf_iv_rem(&r, &x, 10, 32, true);
    expect_iv(&r, -9, NULL, 18);
    cr_expect(!r.nn);
    x.nn = 1;
    wf_iv_rem(&r, &x, 10, 32, true);
    expect_iv(&r, 0, NULL, 9);
    wf_iv_rem(&r, &x, 1, 32, false); /* x % 1 is 0: the form's rule, not an interval */
    cr_expect(r.kind == WF_BOT && !r.wid);
    wf_iv_rem(&r, &x, 0xffffffffll, 32, true); /* rem.s by -1 */
    cr_expect(r.kind == WF_BOT && !r.wid);
}

/* Sums add widths; a difference subtracts the high end; the lane part and
 * the unknown U of the exact operand stay. */
Test(warp_form, iv_add_sub_and_scale)
{
    wform x = bot(), a, b, r, s;
    int64_t g[WF_LANES], g4[WF_LANES];
    for (unsigned l = 0; l < WF_LANES; l++) g[l] = 4 * l, g4[l] = 16 * l;
    wf_iv_and(&a, &x, 7, 32);
    wf_lane(&b, 4, 0, 64); /* 4·lane, known */
    wf_iv_addsub(&r, &b, &a, 32, false);
    expect_iv(&r, 0, g, 7);
    wf_iv_addsub(&r, &b, &a, 32, true); /* 4·lane - [0, 7] = 4·lane - 7 + [0, 7] */
    expect_iv(&r, -7, g, 7);
    wf_iv_addsub(&s, &r, &r, 32, false); /* two intervals: widths add */
    for (unsigned l = 0; l < WF_LANES; l++) g[l] = 8 * l;
    expect_iv(&s, -14, g, 14);
    wf_iv_scale(&s, &a, 4, 64); /* [0, 7]·4 */
    expect_iv(&s, 0, NULL, 28);
    wf_iv_scale(&s, &a, -2, 32); /* the high end times -2 is the low end */
    expect_iv(&s, -14, NULL, 14);
    wf_iv_addsub(&r, &b, &a, 32, false);
    wf_iv_scale(&s, &r, 4, 32);
    expect_iv(&s, 0, g4, 28);
    /* an unknown U: its known bits and its symbol stay with the low end */
    wform u;
    wf_uni(&u, 0, 8);
    u.sym = 5, u.off = 3;
    wf_iv_addsub(&r, &u, &a, 64, false);
    cr_expect(r.kind == WF_BOT && r.wid == 7 && r.k == 8 && r.r == 0 && r.sym == 5 && r.off == 3);
    /* wider than 2^n - 2 at n bits: every value, plain ⊥ */
    wf_iv_and(&a, &x, 200, 8);
    wf_iv_addsub(&r, &a, &a, 8, false);
    cr_expect(r.kind == WF_BOT && !r.wid);
    wf_iv_scale(&r, &a, (int64_t)1 << 40, 64);
    cr_expect(r.kind == WF_BOT && !r.wid);
}

/* Shifts: each end floored, in the reading of the shift (shr.u: unsigned,
 * shr.s: signed), only where no lane's interval wraps around; an interval
 * narrower than the step becomes exact lanes. */
Test(warp_form, iv_shift_right)
{
    wform x = bot(), a, b, r, lane;
    int64_t g[WF_LANES];
    wf_iv_and(&a, &x, 255, 32);
    wf_iv_shr(&r, &a, 2, 32, false);
    expect_iv(&r, 0, NULL, 63);
    /* 8·lane + [0, 7] >> 3 is lane, exactly */
    wf_lane(&lane, 8, 0, 64);
    wf_iv_and(&a, &x, 7, 32);
    wf_iv_addsub(&b, &lane, &a, 32, false);
    wf_iv_shr(&r, &b, 3, 32, false);
    cr_expect(r.kind == WF_LANE && r.k == 64 && r.r == 0);
    for (unsigned l = 0; l < WF_LANES; l++) cr_expect_eq(r.g[l], (int64_t)l);
    /* 4·lane + [0, 7] >> 2: lane + [0, 1] */
    wf_lane(&lane, 4, 0, 64);
    wf_iv_addsub(&b, &lane, &a, 32, false);
    wf_iv_shr(&r, &b, 2, 32, false);
    for (unsigned l = 0; l < WF_LANES; l++) g[l] = l;
    expect_iv(&r, 0, g, 1);
    /* -8 + [0, 7] >> 3, arithmetic: -1 in every lane */
    wform m8 = cst(-8);
    wf_iv_addsub(&b, &m8, &a, 32, false);
    wf_iv_shr(&r, &b, 3, 32, true);
    cr_expect(r.kind == WF_UNI && r.k == 64 && (int64_t)r.r == -1);
    /* read unsigned, -8 + [0, 7] is 2^32 - 8 + [0, 7]: >> 3 is 2^29 - 1 */
    wf_iv_shr(&r, &b, 3, 32, false);
    cr_expect(r.kind == WF_UNI && r.k == 64 && r.r == (1u << 29) - 1);
    /* -4 + [0, 7] crosses 2^32 read unsigned: nothing */
    wform m4 = cst(-4);
    wf_iv_addsub(&b, &m4, &a, 32, false);
    wf_iv_shr(&r, &b, 1, 32, false);
    cr_expect(r.kind == WF_BOT && !r.wid);
    /* an unknown low end: nothing (the lanes' carries are unknown) */
    wform u;
    wf_uni(&u, 0, 5);
    wf_iv_addsub(&b, &u, &a, 32, false);
    wf_iv_shr(&r, &b, 3, 32, false);
    cr_expect(r.kind == WF_BOT && !r.wid);
}

/* Conversions: a truncation keeps the width; an extension is exact where
 * no lane's interval crosses the source type's end. */
Test(warp_form, iv_conversions)
{
    wform x = bot(), a, b, r;
    bool nowrap = false;
    wf_iv_and(&a, &x, 7, 32);
    wf_iv_cvt(&r, &a, 32, 64, false, &nowrap);
    expect_iv(&r, 0, NULL, 7);
    cr_expect(!nowrap);
    wform big = cst(0x7ffffffc);
    wf_iv_addsub(&b, &big, &a, 32, false);
    wf_iv_cvt(&r, &b, 32, 64, true, &nowrap); /* crosses 2^31 read signed */
    cr_expect(r.kind == WF_BOT && !r.wid);
    wf_iv_cvt(&r, &b, 32, 64, false, &nowrap); /* fine read unsigned */
    expect_iv(&r, 0x7ffffffc, NULL, 7);
    wf_iv_cvt(&r, &b, 32, 16, false, &nowrap); /* the low 16 bits, width kept */
    expect_iv(&r, -4, NULL, 7);
}

/* The meet: the same lane table, U's common bits, the larger width; an
 * exact form is the interval of width 0; other lane tables: ⊥. */
Test(warp_form, iv_meet)
{
    wform x = bot(), a, b, r, z = cst(0), four = cst(4), lane;
    wf_iv_and(&a, &x, 7, 32);
    wf_iv_and(&b, &x, 15, 32);
    wf_meet(&r, &a, &b);
    expect_iv(&r, 0, NULL, 15);
    wf_meet(&r, &z, &a);
    expect_iv(&r, 0, NULL, 7);
    wf_iv_addsub(&b, &four, &a, 32, false); /* 4 + [0, 7] */
    wf_meet(&r, &a, &b);
    cr_expect(r.kind == WF_BOT && r.wid == 7 && r.k == 2 && r.r == 0);
    wf_lane(&lane, 1, 0, 64);
    wf_iv_addsub(&b, &lane, &a, 32, false);
    wf_meet(&r, &a, &b);
    cr_expect(r.kind == WF_BOT && !r.wid);
    wform top;
    wf_top(&top);
    wf_meet(&r, &top, &b);
    cr_expect(wf_equal(&r, &b));
    char buf[96];
    cr_expect_str_eq(wf_text(&b, buf, sizeof buf), "0 + lane + [0, 7]");
}

/* ---- the dataflow ---------------------------------------------------------------------- */

/* x loaded per lane: x & 7, x % 10, (x & 7)·4 as an address offset, a shift
 * of it, nvcc's remainder idiom on i = ctaid·ntid + tid (>= 0), a loop
 * that adds x & 7 each iteration (its width grows: widened to ⊥) and one
 * that adds 32 (the width stays, U's bits meet). */
static const char *const IVK =
    ".version 8.0\n.target sm_80\n.address_size 64\n"
    ".visible .entry ivk(.param .u64 in, .param .u64 out)\n{\n"
    " .reg .pred %p<4>; .reg .b32 %r<30>; .reg .b64 %rd<20>;\n"
    " ld.param.u64 %rd1, [in];\n ld.param.u64 %rd2, [out];\n"
    " cvta.to.global.u64 %rd3, %rd1;\n cvta.to.global.u64 %rd4, %rd2;\n"
    " mov.u32 %r1, %tid.x;\n mul.wide.u32 %rd5, %r1, 4;\n add.s64 %rd6, %rd3, %rd5;\n"
    " ld.global.u32 %r2, [%rd6];\n"
    " and.b32 %r3, %r2, 7;\n rem.u32 %r4, %r2, 10;\n"
    " mul.wide.u32 %rd7, %r3, 4;\n add.s64 %rd8, %rd4, %rd7;\n ld.global.u32 %r5, [%rd8];\n"
    " mul.wide.u32 %rd9, %r4, 4;\n add.s64 %rd10, %rd4, %rd9;\n ld.global.u32 %r6, [%rd10+64];\n"
    " shr.u32 %r7, %r3, 1;\n setp.eq.s32 %p1, %r3, 0;\n"
    " mov.u32 %r8, %ctaid.x;\n mov.u32 %r9, %ntid.x;\n mad.lo.s32 %r10, %r8, %r9, %r1;\n"
    " mul.hi.s32 %r11, %r10, 1717986919;\n shr.s32 %r12, %r11, 2;\n shr.u32 %r13, %r12, 31;\n"
    " add.s32 %r14, %r12, %r13;\n mul.lo.s32 %r15, %r14, 10;\n sub.s32 %r16, %r10, %r15;\n"
    " mul.wide.u32 %rd11, %r16, 4;\n add.s64 %rd12, %rd4, %rd11;\n ld.global.u32 %r17, [%rd12+128];\n"
    " mov.u32 %r18, 0;\n mov.u32 %r19, %r3;\n mov.u32 %r20, 0;\n"
    "$L1:\n add.s32 %r18, %r18, %r3;\n add.s32 %r19, %r19, 32;\n add.s32 %r20, %r20, 1;\n"
    " setp.lt.u32 %p2, %r20, 4;\n @%p2 bra $L1;\n"
    " mul.wide.u32 %rd13, %r19, 4;\n add.s64 %rd14, %rd4, %rd13;\n ld.global.u32 %r21, [%rd14];\n"
    " add.s32 %r22, %r5, %r6;\n add.s32 %r23, %r22, %r17;\n add.s32 %r24, %r23, %r21;\n"
    " add.s32 %r25, %r24, %r18;\n add.s32 %r26, %r25, %r7;\n selp.u32 %r27, 1, 0, %p1;\n"
    " add.s32 %r28, %r26, %r27;\n st.global.u32 [%rd6], %r28;\n ret;\n}\n";

typedef tu_div_run run;

static run analyse(const char *text, const div_options *o) { return tu_div_analyse(text, DIV_AN_AFFINE2, o); }
static void done(run *x) { tu_div_done(x); }

static wform form(const run *x, const char *name)
{
    wform w;
    cr_assert(div_warp_form(x->r, tu_value_named(x->r->pf->ssa, name), &w));
    return w;
}

Test(warp_form, iv_dataflow)
{
    run x = analyse(IVK, NULL);
    const ssa_func *s = x.r->pf->ssa;
    wform w = form(&x, "%r3.1");
    expect_iv(&w, 0, NULL, 7);
    w = form(&x, "%r4.1");
    expect_iv(&w, 0, NULL, 9);
    w = form(&x, "%rd7.1");
    expect_iv(&w, 0, NULL, 28);
    w = form(&x, "%r7.1");
    expect_iv(&w, 0, NULL, 3);
    /* out + [0, 28]: the pointer's U, its own root */
    w = form(&x, "%rd8.1");
    cr_expect(w.kind == WF_BOT && w.wid == 28 && w.k == 0 && w.sym == tu_value_named(s, "%rd4.1") + 1 && !w.off);
    /* nvcc's x % 10 for x = ctaid·ntid + tid >= 0 */
    w = form(&x, "%r16.1");
    expect_iv(&w, 0, NULL, 9);
    cr_expect(w.nn);
    /* the branch verdicts read an interval as ⊥ */
    cr_expect_eq(x.r->state[tu_value_named(s, "%p1.1")], DIV_DIVERGENT);
    cr_expect_eq(x.r->state[tu_value_named(s, "%r3.1")], DIV_DIVERGENT);
    /* the loops: r18 += x & 7 grows at its μ (⊥); r19 += 32 keeps [0, 7]
     * over U ≡ 0 (mod 32) */
    unsigned mus = 0;
    for (uint32_t v = 0; v < s->nvalues; v++) {
        char buf[32];
        const char *n = ssa_value_name(s, v, buf, sizeof buf);
        if (s->values[v].kind != SSA_V_PHI || x.r->pf->gsa->nodes[s->values[v].node].kind != GSA_MU) continue;
        cr_assert(div_warp_form(x.r, v, &w));
        if (!strncmp(n, "%r18.", 5)) {
            cr_expect(w.kind == WF_BOT && !w.wid, "%s", n);
            mus++;
        }
        if (!strncmp(n, "%r19.", 5)) {
            cr_expect(w.kind == WF_BOT && w.wid == 7 && w.k == 5 && !w.r, "%s", n);
            mus++;
        }
    }
    cr_expect_eq(mus, 2);
    done(&x);
    /* the polynomials alone: no forms, no intervals */
    div_options po = {0};
    po.polynomials_only = true;
    x = analyse(IVK, &po);
    w = form(&x, "%r3.1");
    cr_expect(w.kind == WF_BOT && !w.wid);
    done(&x);
}

/* laneid (known in every lane, >= 0) through nvcc's remainder idiom:
 * exact lanes, lane % 10. */
Test(warp_form, iv_magic_remainder_exact_lanes)
{
    static const char *const MAGIC =
        ".version 8.0\n.target sm_80\n.address_size 64\n"
        ".visible .entry mg(.param .u64 out)\n{\n .reg .b32 %r<20>; .reg .b64 %rd<8>;\n"
        " ld.param.u64 %rd1, [out];\n cvta.to.global.u64 %rd2, %rd1;\n mov.u32 %r1, %laneid;\n"
        " mul.hi.s32 %r11, %r1, 1717986919;\n shr.s32 %r12, %r11, 2;\n shr.u32 %r13, %r12, 31;\n"
        " add.s32 %r14, %r12, %r13;\n mul.lo.s32 %r15, %r14, 10;\n sub.s32 %r16, %r1, %r15;\n"
        " mul.wide.u32 %rd3, %r16, 4;\n add.s64 %rd4, %rd2, %rd3;\n st.global.u32 [%rd4], %r1;\n ret;\n}\n";
    run x = analyse(MAGIC, NULL);
    wform w = form(&x, "%r16.1");
    cr_expect(w.kind == WF_LANE && w.k == 64 && w.r == 0);
    for (unsigned l = 0; l < WF_LANES; l++) cr_expect_eq(w.g[l], (int64_t)(l % 10), "lane %u", l);
    done(&x);
}

/* ---- the address model and the emulator -------------------------------------------------- */

static json_t *json_of(char **argv)
{
    char *err = NULL, *out = tu_run_want(argv, 0, &err);
    json_error_t je;
    json_t *j = json_loads(out, 0, &je);
    cr_assert_not_null(j, "%s %s", out, err);
    free(out);
    free(err);
    return j;
}

/* The static model's sectors per request (max) of the access at PTX line
 * `line`, and its pattern. */
static json_t *access_at(json_t *coal, long line)
{
    size_t i, k;
    json_t *fn, *a;
    json_array_foreach(json_object_get(coal, "kernels"), i, fn) {
        json_array_foreach(json_object_get(fn, "accesses"), k, a) {
            if (json_integer_value(json_object_get(a, "ptx_line")) == line) return a;
        }
        json_array_foreach(json_object_get(fn, "shared_accesses"), k, a) {
            if (json_integer_value(json_object_get(a, "ptx_line")) == line) return a;
        }
    }
    cr_assert_fail("no access at line %ld", line);
    return NULL;
}

/* The bounded accesses of IVK, predicted from the intervals, against the
 * emulator at three shapes: the prediction is exact where it says so
 * (sectors_per_request) and an upper bound otherwise, and no uniform claim
 * of the analysis is contradicted. */
Test(warp_form, iv_bounded_accesses_confirmed_by_the_emulator, .timeout = 60)
{
    char path[] = "/tmp/ptxray-iv-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    cr_assert_eq(write(fd, IVK, strlen(IVK)), (ssize_t)strlen(IVK));
    close(fd);
    static const struct { long line; const char *pattern; long exact, max; } want[] = {
        {19, "bounded", 1, 1},   /* out[x & 7]: 32 bytes of a 256-aligned buffer */
        {22, "bounded", -1, 2},  /* out[16 + x % 10]: bytes [64, 104) */
        {36, "bounded", -1, 2},  /* out[32 + i % 10] by nvcc's idiom */
        {48, "bounded", 1, 1},   /* out[(x & 7) + 32·n]: U ≡ 0 (mod 32) */
    };
    const char *shapes[] = {"64", "48", "16,4"};
    for (size_t si = 0; si < 3; si++) {
        char *ca[] = {(char *)tu_bin(), "coalescing", path, "--block", (char *)shapes[si], "--format", "json", NULL};
        json_t *coal = json_of(ca);
        char *ra[] = {(char *)tu_bin(), "run", path, "--block", (char *)shapes[si], "--grid", "2",
                      "--arg", "buf:u32:128:rand:7:0:100000", "--arg", "buf:u32:512", "--coalescing",
                      "--check-divergence", "--format", "json", NULL};
        json_t *run = json_of(ra);
        json_t *dc = json_object_get(run, "divergence_check");
        cr_expect_eq(json_integer_value(json_object_get(dc, "violated")), 0, "block %s", shapes[si]);
        for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
            json_t *a = access_at(coal, want[i].line);
            cr_expect_str_eq(json_string_value(json_object_get(a, "pattern")), want[i].pattern, "line %ld", want[i].line);
            json_t *ex = json_object_get(a, "sectors_per_request");
            long mx = (long)json_integer_value(json_object_get(a, "sectors_per_request_max"));
            if (want[i].exact < 0) cr_expect(json_is_null(ex), "line %ld", want[i].line);
            else cr_expect_eq(json_integer_value(ex), want[i].exact, "line %ld", want[i].line);
            cr_expect_eq(mx, want[i].max, "line %ld block %s", want[i].line, shapes[si]);
            size_t k;
            json_t *d;
            bool seen = false;
            json_array_foreach(json_object_get(run, "coalescing"), k, d) {
                if (json_integer_value(json_object_get(d, "line")) != want[i].line) continue;
                seen = true;
                cr_expect_leq(json_integer_value(json_object_get(d, "sectors_max")), mx, "line %ld block %s",
                              want[i].line, shapes[si]);
            }
            cr_expect(seen, "line %ld not run", want[i].line);
        }
        json_decref(coal);
        json_decref(run);
    }
    unlink(path);
}

/* The interval combined with lanes only lane-exact evaluation knows: at
 * 48x2 warp 1 spans two rows, so tid.x >> 5 is not a form there (the
 * dataflow has ⊥), but each warp's lanes are known; s_bins[warp][x & 255]
 * (histogram_warp_private) is then the row's base, 0 or 1024 bytes by
 * lane, plus the dataflow's [0, 1020]: a 2048-byte window.  With one row
 * per warp (the default shape, 16x16) the window is 1024 bytes. */
Test(warp_form, iv_with_per_warp_lanes)
{
    tu_at_root();
    static const struct { const char *shape; const char *msg; } want[] = {
        {NULL, "lanes within a 1024-byte window"},
        {"48,2,1", "lanes within a 2048-byte window"},
        {"16,16,1", "lanes within a 1024-byte window"},
    };
    for (size_t i = 0; i < 3; i++) {
        char *a[] = {(char *)tu_bin(), "coalescing", "ptx-corpus/sm_80/histogram_shared.ptx", "--format", "json",
                     want[i].shape ? "--block" : NULL, (char *)want[i].shape, NULL};
        json_t *coal = json_of(a);
        json_t *x = access_at(coal, 199);
        cr_expect_str_eq(json_string_value(json_object_get(x, "opcode")), "atom.shared.add.u32");
        cr_expect_str_eq(json_string_value(json_object_get(x, "pattern")), "bounded");
        cr_expect(strstr(json_string_value(json_object_get(x, "message")), want[i].msg), "%s",
                  json_string_value(json_object_get(x, "message")));
        json_decref(coal);
    }
}
