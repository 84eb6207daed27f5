/* Spill traffic statistics (emu_stats.spill_*): bytes the lanes move to
 * and from the register allocator's slots, the .local array __ra_local
 * and the kernel's .shared array __ra_shared, and nothing else. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "emu_harness.h"
#include "regalloc.h"
#include "testutil.h"

/* 40 threads (a full warp and 8 lanes of a second), 3 iterations: per
 * iteration each thread stores 4 bytes to __ra_local, loads 8 (two 4-byte
 * loads), stores 8 to __ra_shared (one .b64), loads 4; and it also
 * touches its own .local array and another .shared array, which do not
 * count.  Thread 0 skips the shared load (guard false). */
static const char *const spill_ptx =
    ".version 7.0\n.target sm_80\n.address_size 64\n"
    ".visible .entry k(.param .u64 out)\n{\n"
    "  .reg .pred %p<3>;\n  .reg .b32 %r<12>;\n  .reg .b64 %rd<4>;\n"
    "  .local .align 8 .b8 __ra_local[16];\n  .local .align 4 .b8 mine[8];\n"
    "  .shared .align 8 .b8 __ra_shared[128];\n  .shared .align 4 .b8 other[64];\n"
    "  ld.param.u64 %rd1, [out];\n  mov.u32 %r1, %tid.x;\n  mov.u32 %r2, 0;\n"
    "  shr.u32 %r3, %r1, 5;\n  shl.b32 %r3, %r3, 3;\n  mov.u32 %r4, __ra_shared;\n  add.u32 %r4, %r4, %r3;\n"
    "  setp.ne.u32 %p2, %r1, 0;\n"
    "$L:\n"
    "  st.local.b32 [__ra_local+4], %r2;\n"
    "  ld.local.b32 %r5, [__ra_local+4];\n  ld.local.b32 %r6, [__ra_local+0];\n"
    "  st.local.b32 [mine], %r5;\n  ld.local.b32 %r7, [mine];\n"
    "  cvt.u64.u32 %rd2, %r2;\n  st.shared.b64 [%r4], %rd2;\n"
    "  @%p2 ld.shared.b32 %r8, [%r4];\n"
    "  st.shared.b32 [other], %r7;\n  ld.shared.b32 %r9, [other];\n"
    "  add.u32 %r2, %r2, 1;\n  setp.lt.u32 %p1, %r2, 3;\n  @%p1 bra $L;\n"
    "  st.global.u32 [%rd1], %r2;\n  ret;\n}\n";

Test(emu_spill, slot_bytes_by_space)
{
    eh *h = eh_text(spill_ptx, NULL);
    uint64_t out = eh_zero(h, 4);
    EH_RUN(h, "k", D1(1), D1(40), "p", out);
    const emu_stats *S = emu_last_stats(h->M);
    cr_expect_eq(S->spill_local_st, 40u * 3 * 4, "%llu", (unsigned long long)S->spill_local_st);
    cr_expect_eq(S->spill_local_ld, 40u * 3 * 8, "%llu", (unsigned long long)S->spill_local_ld);
    cr_expect_eq(S->spill_shared_st, 40u * 3 * 8, "%llu", (unsigned long long)S->spill_shared_st);
    cr_expect_eq(S->spill_shared_ld, 39u * 3 * 4, "%llu", (unsigned long long)S->spill_shared_ld);
    eh_close(h);
}

/* The same kernel with the arrays under other names counts nothing. */
Test(emu_spill, nothing_without_slots)
{
    char ptx[4096];
    snprintf(ptx, sizeof ptx, "%s", spill_ptx);
    for (char *p = ptx; (p = strstr(p, "__ra_")); p += 5) memcpy(p, "__rb_", 5);
    eh *h = eh_text(ptx, NULL);
    uint64_t out = eh_zero(h, 4);
    EH_RUN(h, "k", D1(1), D1(40), "p", out);
    const emu_stats *S = emu_last_stats(h->M);
    cr_expect_eq(S->spill_local_ld + S->spill_local_st + S->spill_shared_ld + S->spill_shared_st, 0u);
    uint32_t v;
    eh_read(h, out, &v, 4);
    cr_expect_eq(v, 3u);
    eh_close(h);
}

/* Rematerialisations executed (emu_stats.remat_*): an unguarded
 * instruction whose destination is a %ra_m<kind>_ register it does not
 * read starts one.  40 threads, 3 iterations; per iteration each thread
 * starts an affine one (mov from %tid.x, then an add that reads it: one),
 * a constant one, and a shared-affine one (ld.shared, then an add); a
 * guarded write of a tagged register, a %ra_mx_ (no such kind) and a
 * %rb_ma_ (not the pass's prefix) count nothing; %ra1_mc_ (the prefix
 * the pass takes when %ra_ is in use) counts once per thread, before the
 * loop. */
static const char *const remat_ptx =
    ".version 7.0\n.target sm_80\n.address_size 64\n"
    ".visible .entry k(.param .u64 out)\n{\n"
    "  .reg .pred %p<3>;\n  .reg .b32 %r<12>;\n  .reg .b64 %rd<4>;\n"
    "  .reg .b32 %ra_ma_b32_<2>;\n  .reg .b32 %ra_mc_b32_<2>;\n  .reg .b32 %ra_ms_b32_<1>;\n"
    "  .reg .b32 %ra_mx_b32_<1>;\n  .reg .b32 %rb_ma_b32_<1>;\n  .reg .b64 %ra1_mc_b64_<1>;\n"
    "  .shared .align 8 .b8 __ra_shared[64];\n"
    "  ld.param.u64 %rd1, [out];\n  mov.u32 %r1, %tid.x;\n  mov.u32 %r2, 0;\n  mov.u32 %r3, 0;\n"
    "  setp.ne.u32 %p2, %r1, 0;\n"
    "  mov.b64 %ra1_mc_b64_0, 9;\n"
    "$L:\n"
    "  mov.u32 %ra_ma_b32_0, %tid.x;\n  add.s32 %ra_ma_b32_0, %ra_ma_b32_0, 1;\n"
    "  add.u32 %r3, %r3, %ra_ma_b32_0;\n"
    "  mov.b32 %ra_mc_b32_0, 5;\n  add.u32 %r3, %r3, %ra_mc_b32_0;\n"
    "  ld.shared.b32 %ra_ms_b32_0, [__ra_shared];\n  add.s32 %ra_ms_b32_0, %ra_ms_b32_0, %r1;\n"
    "  @%p2 mov.b32 %ra_mc_b32_1, 6;\n"
    "  mov.b32 %ra_mx_b32_0, 7;\n  mov.b32 %rb_ma_b32_0, 8;\n"
    "  add.u32 %r2, %r2, 1;\n  setp.lt.u32 %p1, %r2, 3;\n  @%p1 bra $L;\n"
    "  st.global.u32 [%rd1], %r2;\n  ret;\n}\n";

Test(emu_spill, remat_marks_counted_per_lane)
{
    eh *h = eh_text(remat_ptx, NULL);
    uint64_t out = eh_zero(h, 4);
    EH_RUN(h, "k", D1(1), D1(40), "p", out);
    const emu_stats *S = emu_last_stats(h->M);
    cr_expect_eq(S->remat_affine, 40u * 3, "%llu", (unsigned long long)S->remat_affine);
    cr_expect_eq(S->remat_const, 40u * 3 + 40, "%llu", (unsigned long long)S->remat_const);
    cr_expect_eq(S->remat_shared, 40u * 3, "%llu", (unsigned long long)S->remat_shared);
    eh_close(h);
}

/* Through the real rewrite: a straight-line kernel (every thread runs
 * every instruction once), so each lane executes each rematerialisation
 * the pass reports once: executed = static count x threads, by kind. */
static const char *const straight_ptx =
    ".version 7.0\n.target sm_80\n.address_size 64\n"
    ".visible .entry k(.param .u64 out, .param .u32 n)\n{\n"
    "  .reg .b32 %r<20>;\n  .reg .b64 %rd<6>;\n"
    "  ld.param.u64 %rd1, [out];\n  ld.param.u32 %r9, [n];\n  mov.u32 %r1, %tid.x;\n"
    "  mul.lo.s32 %r2, %r1, 4;\n  add.s32 %r3, %r1, 7;\n  mov.u32 %r4, 100;\n  mov.u32 %r5, 3;\n"
    "  mad.lo.s32 %r6, %r1, 3, %r9;\n"
    "  add.s32 %r10, %r2, %r3;\n  add.s32 %r10, %r10, %r4;\n  add.s32 %r10, %r10, %r6;\n"
    "  mul.lo.s32 %r11, %r10, %r5;\n  add.s32 %r11, %r11, %r2;\n  add.s32 %r11, %r11, %r3;\n"
    "  add.s32 %r11, %r11, %r4;\n  add.s32 %r11, %r11, %r5;\n  add.s32 %r11, %r11, %r6;\n"
    "  mul.wide.u32 %rd2, %r1, 4;\n  add.s64 %rd3, %rd1, %rd2;\n  st.global.u32 [%rd3], %r11;\n  ret;\n}\n";

Test(emu_spill, remat_executed_matches_the_rewrite)
{
    ptx_diags d;
    ptx_diags_init(&d);
    ptx_module *m = ptx_parse_string("straight.ptx", straight_ptx, strlen(straight_ptx), &d);
    cr_assert_not_null(m);
    ra_options o;
    memset(&o, 0, sizeof o);
    o.mode = RA_MODE_AFF;
    o.budget = 3;
    ra_stats st;
    cr_assert_eq(ra_run(m, &o, &st, &d), 0);
    const ra_func_stats *fs = &st.funcs[0];
    cr_assert_gt(fs->remat - fs->remat_const, 0u, "no affine rematerialisation: the test needs one");
    cr_assert_gt(fs->remat_const, 0u, "no constant rematerialisation: the test needs one");
    cr_assert_gt(fs->remat_shared, 0u, "no shared-affine rematerialisation: the test needs one");
    size_t len;
    char *text = tu_print(m, &len);
    eh *h = eh_text(text, NULL);
    uint64_t out = eh_zero(h, 40 * 4);
    EH_RUN(h, "k", D1(1), D1(40), "pi", out, 11);
    const emu_stats *S = emu_last_stats(h->M);
    cr_expect_eq(S->remat_const, 40ull * fs->remat_const);
    cr_expect_eq(S->remat_affine, 40ull * (fs->remat - fs->remat_const));
    cr_expect_eq(S->remat_shared, 40ull * fs->remat_shared);
    uint32_t v[40];
    eh_read(h, out, v, sizeof v);
    for (uint32_t t = 0; t < 40; t++) {
        uint32_t r2 = 4 * t, r3 = t + 7, r6 = 3 * t + 11, r10 = r2 + r3 + 100 + r6;
        cr_expect_eq(v[t], r10 * 3 + r2 + r3 + 100 + 3 + r6, "thread %u", t);
    }
    eh_close(h);
    free(text);
    ra_stats_free(&st);
    ptx_module_free(m);
    ptx_diags_free(&d);
}
