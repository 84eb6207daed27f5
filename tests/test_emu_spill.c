/* Spill traffic statistics (emu_stats.spill_*): bytes the lanes move to
 * and from the register allocator's slots, the .local array __ra_local
 * and the kernel's .shared array __ra_shared, and nothing else. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include "emu_harness.h"
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
