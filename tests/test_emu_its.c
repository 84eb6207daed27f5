/* The adversarial independent-thread-scheduling schedule (EMU_SCHED_ITS,
 * `run --schedule its`, docs/emulator.md): that it has teeth (a per-warp
 * shared slot written in a loop without bar.warp.sync gives wrong results,
 * the legacy warp-synchronous reduction is a race), that it is right where
 * the program synchronises, its strict rules for collectives, and the
 * emulator corpus tests replayed under it for three seeds. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "emu_harness.h"
#include "emu_replay.h"
#include "testutil.h"

/* The kinds of hazard racecheck reported: bit 0 RAW, 1 WAR, 2 WAW. */
static unsigned race_kinds(eh *h)
{
    unsigned kinds = 0;
    char *txt = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&txt, &len);
    emu_report_text(h->M, "t.ptx", NULL, f);
    fclose(f);
    if (strstr(txt, "RAW hazard")) kinds |= 1;
    if (strstr(txt, "WAR hazard")) kinds |= 2;
    if (strstr(txt, "WAW hazard")) kinds |= 4;
    free(txt);
    return kinds;
}

static emu_options sched(emu_schedule s, uint64_t seed, unsigned checks)
{
    emu_options o;
    memset(&o, 0, sizeof o);
    o.schedule = s;
    o.seed = seed;
    o.checks = checks;
    return o;
}

/* ---- a per-warp shared slot written in a loop -------------------------------------------------- */
/* The pattern of a shared spill slot for a value redefined in a loop
 * (issue 15): every lane stores the iteration's uniform value 3i+1 to its
 * warp's slot and reads it back.  Lanes ahead by an iteration overwrite the
 * slot before lagging lanes have read it.  SYNC puts bar.warp.sync on the
 * full mask after the store and after the load (the second keeps the next
 * iteration's store behind every lane's load). */
static char *slot_ptx(bool sync)
{
    char *buf = malloc(4096);
    snprintf(buf, 4096,
             ".version 7.0\n.target sm_80\n.address_size 64\n"
             ".visible .entry slot(.param .u64 out, .param .u32 n)\n{\n"
             "  .reg .pred %%p<3>;\n  .reg .b32 %%r<12>;\n  .reg .b64 %%rd<4>;\n"
             "  .shared .align 4 .b32 s[32];\n"
             "  ld.param.u64 %%rd1, [out];\n  ld.param.u32 %%r1, [n];\n"
             "  mov.u32 %%r2, %%tid.x;\n  shr.u32 %%r3, %%r2, 5;\n  shl.b32 %%r3, %%r3, 2;\n"
             "  mov.u32 %%r4, s;\n  add.u32 %%r4, %%r4, %%r3;\n"
             "  mov.u32 %%r5, 0;\n  mov.u32 %%r6, 0;\n"
             "$L:\n"
             "  mad.lo.u32 %%r7, %%r5, 3, 1;\n"
             "  st.shared.u32 [%%r4], %%r7;\n%s"
             "  add.u32 %%r9, %%r5, 1;\n"
             "  ld.shared.u32 %%r8, [%%r4];\n%s"
             "  add.u32 %%r6, %%r6, %%r8;\n  mov.u32 %%r5, %%r9;\n"
             "  setp.lt.u32 %%p1, %%r5, %%r1;\n  @%%p1 bra $L;\n"
             "  mul.wide.u32 %%rd2, %%r2, 4;\n  add.s64 %%rd3, %%rd1, %%rd2;\n"
             "  st.global.u32 [%%rd3], %%r6;\n  ret;\n}\n",
             sync ? "  bar.warp.sync -1;\n" : "", sync ? "  bar.warp.sync -1;\n" : "");
    return buf;
}

/* Runs slot (2 warps, 10 iterations); returns how many of the 64 lanes
 * have a sum other than 145 = sum of 3i+1, and the hazards racecheck found. */
static unsigned run_slot(bool sync, emu_options o, uint64_t *hazards, unsigned *kinds)
{
    char *ptx = slot_ptx(sync);
    eh *h = eh_text(ptx, &o);
    free(ptx);
    uint64_t out = eh_zero(h, 64 * 4);
    EH_RUN(h, "slot", D1(1), D1(64), "pu", out, 10u);
    uint32_t v[64];
    eh_read(h, out, v, sizeof v);
    if (hazards) *hazards = emu_race_count(h->M);
    if (kinds) *kinds = race_kinds(h);
    eh_close(h);
    unsigned wrong = 0;
    for (unsigned t = 0; t < 64; t++) wrong += v[t] != 145u;
    return wrong;
}

#define NSEEDS 8

Test(emu_its, slot_in_loop_without_warp_sync_fails)
{
    /* lock-step and the interleaved schedule keep a converged warp
     * together: the race cannot show */
    cr_expect_eq(run_slot(false, sched(EMU_SCHED_LOCKSTEP, 0, 0), NULL, NULL), 0);
    for (uint64_t s = 1; s <= NSEEDS; s++) cr_expect_eq(run_slot(false, sched(EMU_SCHED_INTERLEAVE, s, 0), NULL, NULL), 0);
    unsigned failing = 0;
    for (uint64_t s = 1; s <= NSEEDS; s++) failing += run_slot(false, sched(EMU_SCHED_ITS, s, 0), NULL, NULL) > 0;
    cr_expect_gt(failing, 0, "no seed of 1..%d exposed the unsynchronised slot", NSEEDS);
    cr_log_info("slot without bar.warp.sync: wrong under --schedule its for %u of seeds 1..%d", failing, NSEEDS);
    /* racecheck sees it whatever the schedule: a lane reads the slot that
     * another lane wrote, with no bar.warp.sync in between (RAW) */
    uint64_t hz = 0;
    unsigned kinds = 0;
    run_slot(false, sched(EMU_SCHED_LOCKSTEP, 0, EMU_CHECK_RACE), &hz, &kinds);
    cr_expect_eq(kinds & 1, 1u, "kinds %u", kinds);
}

Test(emu_its, slot_in_loop_with_warp_sync_is_right)
{
    /* right for every seed; racecheck still reports the lanes' stores of
     * the same value to the slot between two syncs (one WAW pair: it does
     * not exempt equal values), and nothing else */
    for (uint64_t s = 1; s <= NSEEDS; s++) {
        uint64_t hz = 0;
        unsigned kinds = 0;
        cr_expect_eq(run_slot(true, sched(EMU_SCHED_ITS, s, EMU_CHECK_RACE), &hz, &kinds), 0, "seed %llu",
                     (unsigned long long)s);
        cr_expect_eq(hz, 1, "seed %llu: %llu hazards", (unsigned long long)s, (unsigned long long)hz);
        cr_expect_eq(kinds, 4u, "seed %llu: kinds %u", (unsigned long long)s, kinds);
    }
    cr_expect_eq(run_slot(true, sched(EMU_SCHED_LOCKSTEP, 0, 0), NULL, NULL), 0);
}

Test(emu_its, same_seed_same_run)
{
    char *ptx = slot_ptx(false);
    uint32_t a[64], b[64], c[64];
    uint32_t *res[3] = {a, b, c};
    uint64_t seeds[3] = {5, 5, 6};
    uint64_t steps[3];
    for (unsigned k = 0; k < 3; k++) {
        emu_options o = sched(EMU_SCHED_ITS, seeds[k], 0);
        eh *h = eh_text(ptx, &o);
        uint64_t out = eh_zero(h, 64 * 4);
        EH_RUN(h, "slot", D1(1), D1(64), "pu", out, 10u);
        eh_read(h, out, res[k], 64 * 4);
        steps[k] = emu_last_stats(h->M)->warp_insts;
        eh_close(h);
    }
    free(ptx);
    cr_expect_eq(memcmp(a, b, sizeof a), 0);
    cr_expect_eq(steps[0], steps[1]);
    cr_expect(memcmp(a, c, sizeof a) != 0 || steps[0] != steps[2], "seeds 5 and 6 ran the same way");
}

/* ---- the legacy warp-synchronous reduction ---------------------------------------------------- */
/* 64 threads put in[tid] in s[tid]; after bar.sync the first warp adds
 * s[tid+32], s[tid+16], ..., s[tid+1] into s[tid] through volatile shared
 * accesses (the classic last-warp unroll); thread 0 writes s[0].
 * LEGACY: no __syncwarp.  BETWEEN: bar.warp.sync after each step's store,
 * which still races inside a step (lane 0 reads s[16] while lane 16 writes
 * it).  FULL: v = s[tid] + s[tid+k]; bar.warp.sync; s[tid] = v;
 * bar.warp.sync (the CUDA programming guide's fix). */
enum red_kind { RED_LEGACY, RED_BETWEEN, RED_FULL };

static char *red_ptx(enum red_kind kind)
{
    size_t cap = 8192, n = 0;
    char *b = malloc(cap);
    n += (size_t)snprintf(b + n, cap - n,
                          ".version 7.0\n.target sm_80\n.address_size 64\n"
                          ".visible .entry red(.param .u64 in, .param .u64 out)\n{\n"
                          "  .reg .pred %%p<3>;\n  .reg .b32 %%r<40>;\n  .reg .b64 %%rd<6>;\n"
                          "  .shared .align 4 .b32 s[64];\n"
                          "  ld.param.u64 %%rd1, [in];\n  ld.param.u64 %%rd2, [out];\n"
                          "  mov.u32 %%r1, %%tid.x;\n  mul.wide.u32 %%rd3, %%r1, 4;\n  add.s64 %%rd4, %%rd1, %%rd3;\n"
                          "  ld.global.u32 %%r2, [%%rd4];\n  mov.u32 %%r3, s;\n  shl.b32 %%r4, %%r1, 2;\n"
                          "  add.u32 %%r5, %%r3, %%r4;\n  st.shared.u32 [%%r5], %%r2;\n  bar.sync 0;\n"
                          "  setp.ge.u32 %%p1, %%r1, 32;\n  @%%p1 bra $DONE;\n");
    unsigned r = 10;
    for (unsigned off = 32; off >= 1; off /= 2, r += 3) {
        n += (size_t)snprintf(b + n, cap - n,
                              "  ld.volatile.shared.u32 %%r%u, [%%r5+%u];\n  ld.volatile.shared.u32 %%r%u, [%%r5];\n"
                              "  add.u32 %%r%u, %%r%u, %%r%u;\n",
                              r, off * 4, r + 1, r + 2, r, r + 1);
        if (kind == RED_FULL && off < 32) n += (size_t)snprintf(b + n, cap - n, "  bar.warp.sync -1;\n");
        n += (size_t)snprintf(b + n, cap - n, "  st.volatile.shared.u32 [%%r5], %%r%u;\n", r + 2);
        if (kind != RED_LEGACY) n += (size_t)snprintf(b + n, cap - n, "  bar.warp.sync -1;\n");
    }
    snprintf(b + n, cap - n,
             "$DONE:\n  setp.ne.u32 %%p2, %%r1, 0;\n  @%%p2 bra $END;\n  ld.shared.u32 %%r39, [s];\n"
             "  st.global.u32 [%%rd2], %%r39;\n$END:\n  ret;\n}\n");
    return b;
}

/* Sum of 0..63 is 2016; returns the kernel's sum and the hazards. */
static uint32_t run_red(enum red_kind kind, emu_options o, uint64_t *hazards, unsigned *kinds)
{
    char *ptx = red_ptx(kind);
    eh *h = eh_text(ptx, &o);
    free(ptx);
    uint32_t in[64];
    for (unsigned i = 0; i < 64; i++) in[i] = i;
    uint64_t din = eh_buf(h, in, sizeof in), dout = eh_zero(h, 4);
    EH_RUN(h, "red", D1(1), D1(64), "pp", din, dout);
    uint32_t v;
    eh_read(h, dout, &v, 4);
    *hazards = emu_race_count(h->M);
    *kinds = race_kinds(h);
    eh_close(h);
    return v;
}

Test(emu_its, legacy_warp_reduction_is_a_race)
{
    uint64_t hz;
    unsigned kinds;
    unsigned wrong = 0;
    for (uint64_t s = 1; s <= NSEEDS; s++) {
        uint32_t v = run_red(RED_LEGACY, sched(EMU_SCHED_ITS, s, EMU_CHECK_RACE), &hz, &kinds);
        wrong += v != 2016;
        cr_expect_gt(hz, 0, "seed %llu: legacy reduction not flagged", (unsigned long long)s);
        cr_expect(kinds & 1 && kinds & 2, "seed %llu: kinds %u", (unsigned long long)s, kinds);
    }
    cr_expect_gt(wrong, 0, "the legacy reduction was right for every seed");
    /* lock-step hides the wrong result, not the race */
    cr_expect_eq(run_red(RED_LEGACY, sched(EMU_SCHED_LOCKSTEP, 0, EMU_CHECK_RACE), &hz, &kinds), 2016);
    cr_expect_gt(hz, 0);
    /* a sync between the steps only: still a race inside each step (lane 0
     * reads s[16], lane 16 writes it): in lock-step one WAR per step
     * 16, 8, 4, 2, 1; under ITS a WAR or a RAW, as the lanes happen to go */
    run_red(RED_BETWEEN, sched(EMU_SCHED_LOCKSTEP, 0, EMU_CHECK_RACE), &hz, &kinds);
    cr_expect_eq(hz, 5, "%llu hazards", (unsigned long long)hz);
    cr_expect_eq(kinds, 2u, "kinds %u", kinds);
    for (uint64_t s = 1; s <= 3; s++) {
        run_red(RED_BETWEEN, sched(EMU_SCHED_ITS, s, EMU_CHECK_RACE), &hz, &kinds);
        cr_expect_geq(hz, 5, "seed %llu: %llu hazards", (unsigned long long)s, (unsigned long long)hz);
        cr_expect_eq(kinds & 4, 0u, "seed %llu: kinds %u", (unsigned long long)s, kinds);
    }
}

Test(emu_its, synced_warp_reduction_is_clean)
{
    uint64_t hz;
    unsigned kinds;
    for (uint64_t s = 1; s <= NSEEDS; s++) {
        cr_expect_eq(run_red(RED_FULL, sched(EMU_SCHED_ITS, s, EMU_CHECK_RACE), &hz, &kinds), 2016u);
        cr_expect_eq(hz, 0, "seed %llu: %llu hazards", (unsigned long long)s, (unsigned long long)hz);
    }
    cr_expect_eq(run_red(RED_FULL, sched(EMU_SCHED_LOCKSTEP, 0, EMU_CHECK_RACE), &hz, &kinds), 2016u);
    cr_expect_eq(hz, 0);
}

/* bar.warp.sync on a mask orders only the lanes of that mask: two half-warp
 * syncs do not order lane 0's write before lane 16's read. */
Test(emu_its, warp_sync_orders_only_its_mask)
{
    const char *ptx =
        ".version 7.0\n.target sm_80\n.address_size 64\n"
        ".visible .entry k(.param .u64 out, .param .u32 m)\n{\n"
        "  .reg .pred %p<3>;\n  .reg .b32 %r<12>;\n  .reg .b64 %rd<4>;\n"
        "  .shared .align 4 .b32 s[32];\n"
        "  ld.param.u64 %rd1, [out];\n  ld.param.u32 %r9, [m];\n  mov.u32 %r1, %tid.x;\n"
        "  shl.b32 %r2, %r1, 2;\n  mov.u32 %r3, s;\n  add.u32 %r4, %r3, %r2;\n"
        "  st.shared.u32 [%r4], %r1;\n"
        "  setp.lt.u32 %p1, %r1, 16;\n"
        "  selp.b32 %r5, 0x0000ffff, 0xffff0000, %p1;\n"
        "  or.b32 %r5, %r5, %r9;\n"
        "  bar.warp.sync %r5;\n"
        "  xor.b32 %r6, %r1, 16;\n  shl.b32 %r6, %r6, 2;\n  add.u32 %r7, %r3, %r6;\n"
        "  ld.shared.u32 %r8, [%r7];\n"
        "  mul.wide.u32 %rd2, %r1, 4;\n  add.s64 %rd3, %rd1, %rd2;\n  st.global.u32 [%rd3], %r8;\n  ret;\n}\n";
    /* m = 0: lanes 0..15 sync on 0x0000ffff, lanes 16..31 on 0xffff0000 (two
     * collectives), and lane l reads lane l^16's write: a RAW hazard (one
     * pair of instructions).  m = all ones: one sync of the whole warp. */
    uint32_t ms[2] = {0u, 0xffffffffu};
    uint64_t want[2] = {1, 0};
    for (unsigned k = 0; k < 2; k++)
        for (uint64_t s = 0; s <= 3; s++) {
            emu_options o = sched(s ? EMU_SCHED_ITS : EMU_SCHED_LOCKSTEP, s, EMU_CHECK_RACE);
            eh *h = eh_text(ptx, &o);
            uint64_t out = eh_zero(h, 128);
            EH_RUN(h, "k", D1(1), D1(32), "pu", out, ms[k]);
            cr_expect_eq(emu_race_count(h->M), want[k], "mask 0x%08x seed %llu: %llu hazards", ms[k],
                         (unsigned long long)s, (unsigned long long)emu_race_count(h->M));
            uint32_t v[32];
            eh_read(h, out, v, sizeof v);
            if (k == 1)
                for (unsigned l = 0; l < 32; l++) cr_expect_eq(v[l], l ^ 16u);
            eh_close(h);
        }
}

/* ---- collectives: the ISA's rules, strictly --------------------------------------------------- */
/* Lanes 16..31 exit; the rest sync on the full mask.  The PTX ISA has
 * bar.warp.sync wait for every thread of the mask (shfl.sync & co. only for
 * the non-exited ones): ITS stops the run, the other schedules let the
 * exited lanes count as arrived (what hardware does). */
static const char *const exited_ptx =
    ".version 7.0\n.target sm_80\n.address_size 64\n"
    ".visible .entry k(.param .u64 out, .param .u32 shfl)\n{\n"
    "  .reg .pred %p<4>;\n  .reg .b32 %r<8>;\n  .reg .b64 %rd<4>;\n"
    "  ld.param.u64 %rd1, [out];\n  ld.param.u32 %r6, [shfl];\n  mov.u32 %r1, %tid.x;\n"
    "  setp.ge.u32 %p1, %r1, 16;\n  @%p1 exit;\n"
    "  setp.ne.u32 %p2, %r6, 0;\n"
    "  @%p2 bra $S;\n  bar.warp.sync -1;\n  mov.u32 %r2, %r1;\n  bra.uni $W;\n"
    "$S:\n  shfl.sync.bfly.b32 %r2, %r1, 1, 31, -1;\n"
    "$W:\n  mul.wide.u32 %rd2, %r1, 4;\n  add.s64 %rd3, %rd1, %rd2;\n  st.global.u32 [%rd3], %r2;\n  ret;\n}\n";

Test(emu_its, warp_sync_naming_an_exited_lane_stops_the_run)
{
    for (uint64_t s = 1; s <= 4; s++) {
        emu_options o = sched(EMU_SCHED_ITS, s, 0);
        eh *h = eh_text(exited_ptx, &o);
        uint64_t out = eh_zero(h, 128);
        emu_status st = eh_launch(h, "k", D1(1), D1(32), "pu", out, 0u);
        cr_expect_eq(st, EMU_ERR_DEADLOCK, "seed %llu: %s", (unsigned long long)s, emu_status_name(st));
        cr_expect(strstr(h->last_err, "bar.warp.sync with member mask 0xffffffff") && strstr(h->last_err, "exited"),
                  "%s", h->last_err);
        /* shfl.sync waits only for the non-exited lanes */
        st = eh_launch(h, "k", D1(1), D1(32), "pu", out, 1u);
        cr_expect_eq(st, EMU_OK, "seed %llu: %s", (unsigned long long)s, h->last_err);
        uint32_t v[16];
        eh_read(h, out, v, sizeof v);
        for (unsigned l = 0; l < 16; l++) cr_expect_eq(v[l], l ^ 1u);
        eh_close(h);
    }
    emu_options o = sched(EMU_SCHED_LOCKSTEP, 0, 0);
    eh *h = eh_text(exited_ptx, &o);
    uint64_t out = eh_zero(h, 128);
    cr_expect_eq(eh_launch(h, "k", D1(1), D1(32), "pu", out, 0u), EMU_OK, "%s", h->last_err);
    eh_close(h);
}

Test(emu_its, lane_outside_its_member_mask_stops_the_run)
{
    const char *ptx = ".version 7.0\n.target sm_80\n.address_size 64\n"
                      ".visible .entry k(.param .u64 out)\n{\n"
                      "  .reg .b32 %r<4>;\n  .reg .b64 %rd<2>;\n"
                      "  ld.param.u64 %rd1, [out];\n  mov.u32 %r1, %tid.x;\n"
                      "  shfl.sync.idx.b32 %r2, %r1, 0, 31, 0x0000fffe;\n"
                      "  st.global.u32 [%rd1], %r2;\n  ret;\n}\n";
    emu_options o = sched(EMU_SCHED_ITS, 1, 0);
    eh *h = eh_text(ptx, &o);
    uint64_t out = eh_zero(h, 4);
    emu_status st = eh_launch(h, "k", D1(1), D1(16), "p", out);
    cr_expect_eq(st, EMU_ERR_FAULT, "%s", emu_status_name(st));
    cr_expect(strstr(h->last_err, "lane 0 is not in the member mask 0x0000fffe"), "%s", h->last_err);
    eh_close(h);
}

/* activemask under ITS: the lanes of the executing group, always with the
 * lane's own bit; some seed shows a group smaller than the warp. */
Test(emu_its, activemask_is_the_group)
{
    const char *ptx = ".version 7.0\n.target sm_80\n.address_size 64\n"
                      ".visible .entry k(.param .u64 out)\n{\n"
                      "  .reg .b32 %r<6>;\n  .reg .b64 %rd<4>;\n"
                      "  ld.param.u64 %rd1, [out];\n  mov.u32 %r1, %tid.x;\n"
                      "  add.u32 %r3, %r1, 1;\n  add.u32 %r3, %r3, 2;\n  add.u32 %r3, %r3, 3;\n"
                      "  activemask.b32 %r2;\n"
                      "  mul.wide.u32 %rd2, %r1, 4;\n  add.s64 %rd3, %rd1, %rd2;\n  st.global.u32 [%rd3], %r2;\n"
                      "  ret;\n}\n";
    unsigned partial = 0;
    for (uint64_t s = 1; s <= NSEEDS; s++) {
        emu_options o = sched(EMU_SCHED_ITS, s, 0);
        eh *h = eh_text(ptx, &o);
        uint64_t out = eh_zero(h, 128);
        EH_RUN(h, "k", D1(1), D1(32), "p", out);
        uint32_t v[32];
        eh_read(h, out, v, sizeof v);
        bool any = false;
        for (unsigned l = 0; l < 32; l++) {
            cr_expect(v[l] >> l & 1, "seed %llu lane %u: 0x%08x", (unsigned long long)s, l, v[l]);
            any |= v[l] != 0xffffffffu;
        }
        partial += any;
        eh_close(h);
    }
    cr_expect_gt(partial, 0);
}

/* ---- the emulator corpus tests under ITS -------------------------------------------------------- */
static uint64_t its_seed;
static unsigned its_launches;

static void its_opened(eh *h)
{
    h->opt.schedule = EMU_SCHED_ITS;
    h->opt.seed = its_seed;
}
static void its_launched(eh *h, const char *kernel, emu_status st)
{
    (void)h;
    (void)kernel;
    (void)st;
    its_launches++;
}
static const eh_hooks its_hooks = {its_opened, NULL, its_launched, NULL};

/* Corpus tests whose kernels are not correct under independent thread
 * scheduling (legacy warp-synchronous code; docs/emulator.md lists why):
 * not replayed. */
static const char *const not_its_correct[] = {
    /* legacy warp-synchronous reductions: volatile shared memory, no __syncwarp */
    "volatile_shared", "warp_reduce_tree",
    /* match_all_u64: __match_all_sync(__activemask(), ...): the mask is the
     * group that happens to run together, not the warp */
    "warp_vote",
    /* a __syncwarp() (bar.warp.sync -1) after an early return: the mask
     * names exited lanes, which the PTX ISA's bar.warp.sync waits for */
    "nested_divergence",
    /* lcg_random: every thread reads g_seed while thread 0 writes it */
    "device_globals_init",
    /* correct kernels whose test expects lock-step's lane order: which
     * lane gets which atomicInc slot (misc_atomics), printf's line order */
    "atomic_cas_loop", "printf_debug",
    NULL,
};

static void its_replay(const char *name, void (*body)(void))
{
    for (size_t i = 0; not_its_correct[i]; i++)
        if (!strcmp(not_its_correct[i], name)) return;
    for (its_seed = 1; its_seed <= 3; its_seed++) {
        its_launches = 0;
        eh_hooks_on = &its_hooks;
        body();
        eh_hooks_on = NULL;
        cr_assert_gt(its_launches, 0);
    }
}

EMU_CORPUS_TESTS(EMU_REPLAY_DECLARE)
#define ITS_REPLAY(name) \
    Test(emu_its, corpus_##name, .timeout = 300) { its_replay(#name, emu_corpus_##name##_impl); }
EMU_CORPUS_TESTS(ITS_REPLAY)

/* A collective waits for the lanes of its own member mask at one with the
 * same mask, not for lanes waiting at another mask's (ISA, vote.sync and
 * match.sync: "the same qualifiers and same membermask value"): half a
 * warp's vote (or match.all) in an else-part, then the whole warp's, then
 * bar.sync completes under ITS at every seed, with lockstep's output.
 * Found by the differential tester (fuzz/gen seeds 505, 266 and 44). */
#define BIN (char *)tu_bin()
Test(emu_its, collectives_of_different_member_masks_do_not_meet)
{
    const char *files[] = {"tests/data/fuzz/emu_its_vote_join.ptx", "tests/data/fuzz-repro/emu_its_match_all.ptx"};
    const char *blocks[] = {"64", "32"};
    for (int f = 0; f < 2; f++) {
        char path[1024];
        snprintf(path, sizeof path, "%s", tu_src(files[f]));
        char *ref, *err;
        char *a[] = {BIN, "run", path, "--block", (char *)blocks[f], "--arg", "out=buf:u32:64", "--print", "out:64",
                     "-q", NULL};
        cr_assert_eq(tu_run(a, &ref, &err), 0, "%s: %s", files[f], err);
        free(err);
        for (int seed = 1; seed <= 12; seed++) {
            char s[16], *out;
            snprintf(s, sizeof s, "%d", seed);
            char *b[] = {BIN, "run", path, "--block", (char *)blocks[f], "--arg", "out=buf:u32:64", "--print", "out:64",
                         "-q", "--schedule", "its", "--seed", s, NULL};
            cr_assert_eq(tu_run(b, &out, &err), 0, "%s seed %d: %s", files[f], seed, err);
            cr_expect_str_eq(out, ref, "%s seed %d", files[f], seed);
            free(out);
            free(err);
        }
        free(ref);
    }
}
