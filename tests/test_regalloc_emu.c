/* The register allocator's equivalence test: every emulator corpus test
 * (which compares kernel outputs with C references) runs again on modules
 * that `ptxray regalloc` rewrote, at budgets 8 and 16 in the three modes,
 * with independent thread scheduling (the interleaved schedule), so a
 * shared spill slot raced by the lanes of a warp would show up as a wrong
 * result.  And the reason for the sm_70+ rule: without it, a kernel whose
 * uniform register is redefined on one side of a divergent branch gives
 * wrong results. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "emu_harness.h"
#include "emu_replay.h"
#include "regalloc.h"
#include "testutil.h"


static const struct config {
    enum ra_mode mode;
    unsigned budget;
} configs[] = {
    {RA_MODE_LINEAR, 8}, {RA_MODE_DIV, 8}, {RA_MODE_AFF, 8},
    {RA_MODE_LINEAR, 16}, {RA_MODE_DIV, 16}, {RA_MODE_AFF, 16},
};
#define NCONFIG (sizeof configs / sizeof configs[0])

#define MAXK 256
static struct {
    const struct config *cfg;
    unsigned launches[NCONFIG], modules[NCONFIG];
    char *kernels[NCONFIG][MAXK]; /* "path kernel", each once */
    unsigned nkernels[NCONFIG];
    uint64_t spilled[NCONFIG], shared[NCONFIG], remat[NCONFIG];
    unsigned ci;
} replay;

/* The module the test opened, replaced by its rewritten and re-parsed
 * text: what `ptxray regalloc` prints is what runs. */
static void hook_opened(eh *h)
{
    ra_options o;
    memset(&o, 0, sizeof o);
    o.mode = replay.cfg->mode;
    o.budget = replay.cfg->budget;
    ptx_diags d;
    ptx_diags_init(&d);
    ra_stats st;
    cr_assert_eq(ra_run(h->m, &o, &st, &d), 0, "%s: regalloc failed", h->path);
    for (uint32_t i = 0; i < st.nfuncs; i++) {
        const ra_func_stats *f = &st.funcs[i];
        replay.spilled[replay.ci] += f->spilled;
        replay.shared[replay.ci] += f->by_place[RA_P_SHARED] + f->by_place[RA_P_SHARED_AFFINE];
        replay.remat[replay.ci] += f->by_place[RA_P_CONST] + f->by_place[RA_P_AFFINE];
    }
    ra_stats_free(&st);
    size_t len;
    char *text = tu_print(h->m, &len);
    ptx_module *m2 = ptx_parse_string(h->path, text, len, &d);
    if (!m2) ptx_diags_print(&d, h->path, text, len, stderr);
    cr_assert_not_null(m2, "%s: the rewritten module does not parse (%s budget %u)", h->path,
                       ra_mode_name(o.mode), o.budget);
    free(text);
    ptx_diags_free(&d);
    ptx_module_free(h->m);
    h->m = m2;
    h->opt.schedule = EMU_SCHED_INTERLEAVE;
    h->opt.seed = 0x5eed + replay.ci;
    replay.modules[replay.ci]++;
}

static void hook_launched(eh *h, const char *kernel, emu_status st)
{
    (void)st;
    unsigned c = replay.ci;
    replay.launches[c]++;
    char key[1024];
    snprintf(key, sizeof key, "%s %s", h->path, kernel);
    for (unsigned i = 0; i < replay.nkernels[c]; i++)
        if (!strcmp(replay.kernels[c][i], key)) return;
    if (replay.nkernels[c] < MAXK) replay.kernels[c][replay.nkernels[c]++] = strdup(key);
}

static const eh_hooks ra_hooks = {hook_opened, NULL, hook_launched, NULL};

static void replay_test(void (*body)(void))
{
    for (unsigned i = 0; i < NCONFIG; i++) {
        replay.ci = i;
        replay.cfg = &configs[i];
        eh_hooks_on = &ra_hooks;
        body();
        eh_hooks_on = NULL;
        cr_assert_gt(replay.launches[i], 0, "no launch went through the harness");
    }
    char line[1024];
    int n = 0;
    for (unsigned i = 0; i < NCONFIG; i++)
        n += snprintf(line + n, sizeof line - (size_t)n,
                      "%s%s/%u: %u kernels, %u launches, %llu spilled, %llu shared, %llu remat", i ? "; " : "",
                      ra_mode_name(configs[i].mode), configs[i].budget, replay.nkernels[i], replay.launches[i],
                      (unsigned long long)replay.spilled[i], (unsigned long long)replay.shared[i],
                      (unsigned long long)replay.remat[i]);
    cr_log_info("%s", line);
    for (unsigned i = 0; i < NCONFIG; i++)
        for (unsigned k = 0; k < replay.nkernels[i]; k++) free(replay.kernels[i][k]);
}

EMU_CORPUS_TESTS(EMU_REPLAY_DECLARE)
#define REPLAY(name) \
    Test(regalloc_emu, corpus_##name, .timeout = 300) { replay_test(emu_corpus_##name##_impl); }
EMU_CORPUS_TESTS(REPLAY)

Test(regalloc_emu, list_is_complete) { emu_replay_check_list(); }

/* ---- why the sm_70+ rule ----------------------------------------------------------------------- */
/* %r1 is uniform in both of its definitions: the parameter a, and on the
 * fall-through side of a divergent branch the parameter b.  The taken side
 * reads the first one after a loop.  A shared slot for %r1 (the paper's
 * rule: every value of the register is uniform) is overwritten by the
 * fall-through lanes while the taken lanes still need a. */
static const char *const redefined_ptx =
    ".version 7.0\n.target sm_80\n.address_size 64\n"
    ".visible .entry k(.param .u64 out, .param .u32 a, .param .u32 b)\n{\n"
    "  .reg .pred %p<3>;\n  .reg .b32 %r<8>;\n  .reg .b64 %rd<4>;\n"
    "  ld.param.u64 %rd1, [out];\n"
    "  ld.param.u32 %r1, [a];\n"
    "  mov.u32 %r2, %tid.x;\n"
    "  mul.wide.u32 %rd2, %r2, 4;\n"
    "  add.s64 %rd3, %rd1, %rd2;\n"
    "  setp.lt.u32 %p1, %r2, 16;\n"
    "  @%p1 bra $L_slow;\n"
    "  ld.param.u32 %r1, [b];\n"
    "  st.global.u32 [%rd3], %r1;\n"
    "  bra.uni $L_done;\n"
    "$L_slow:\n"
    "  mov.u32 %r3, 0;\n"
    "$L_loop:\n"
    "  add.s32 %r3, %r3, 1;\n"
    "  setp.lt.u32 %p2, %r3, 40;\n"
    "  @%p2 bra $L_loop;\n"
    "  add.s32 %r4, %r1, %r3;\n"
    "  st.global.u32 [%rd3], %r4;\n"
    "$L_done:\n"
    "  ret;\n}\n";

/* Rewrites the kernel and runs it; returns how many of the 32 outputs are wrong. */
static unsigned run_redefined(bool unsafe, emu_schedule sched, uint64_t seed, uint32_t *shared_slots,
                              uint32_t *split)
{
    ptx_module *m = tu_parse_ok("redefined.ptx", redefined_ptx);
    ra_options o;
    memset(&o, 0, sizeof o);
    o.mode = RA_MODE_DIV;
    o.budget = 4;
    o.unsafe_shared_reuse = unsafe;
    ptx_diags d;
    ptx_diags_init(&d);
    ra_stats st;
    cr_assert_eq(ra_run(m, &o, &st, &d), 0);
    *shared_slots = st.funcs[0].by_place[RA_P_SHARED];
    *split = st.funcs[0].why_local[RA_WHY_SPLIT];
    ra_stats_free(&st);
    ptx_diags_free(&d);
    char *text = tu_print(m, NULL);
    ptx_module_free(m);
    emu_options eo;
    memset(&eo, 0, sizeof eo);
    eo.schedule = sched;
    eo.seed = seed;
    eh *h = eh_text(text, &eo);
    free(text);
    uint64_t out = eh_zero(h, 32 * 4);
    EH_RUN(h, "k", D1(1), D1(32), "pii", out, 100, 7);
    uint32_t v[32];
    eh_read(h, out, v, sizeof v);
    eh_close(h);
    unsigned wrong = 0;
    for (unsigned t = 0; t < 32; t++) wrong += v[t] != (t < 16 ? 140u : 7u);
    return wrong;
}

Test(regalloc_emu, redefined_uniform_needs_the_sm70_rule)
{
    uint32_t slots, split;
    /* the rule keeps %r1 (redefined on one side of a divergent branch) in
     * .local: right with every schedule */
    for (uint64_t seed = 1; seed <= 4; seed++) {
        cr_expect_eq(run_redefined(false, EMU_SCHED_INTERLEAVE, seed, &slots, &split), 0, "seed %llu",
                     (unsigned long long)seed);
        cr_expect_eq(split, 1, "%u", split); /* %r1 is spilled, to .local, for that reason */
    }
    cr_expect_eq(run_redefined(false, EMU_SCHED_LOCKSTEP, 0, &slots, &split), 0);
    /* without it: lock-step runs the taken side to its end first and is
     * still right; interleaved, the taken lanes read b */
    cr_expect_eq(run_redefined(true, EMU_SCHED_LOCKSTEP, 0, &slots, &split), 0);
    cr_expect_eq(slots, 2, "%u", slots); /* %r1, and %rd1 */
    for (uint64_t seed = 1; seed <= 4; seed++)
        cr_expect_eq(run_redefined(true, EMU_SCHED_INTERLEAVE, seed, &slots, &split), 16, "seed %llu",
                     (unsigned long long)seed);
}

/* ---- values written more than once: the synchronised rule ---------------------------------------- */
/* A uniform loop: its counter %r2 and the running value %r3 are uniform and
 * written every iteration.  They get shared slots with bar.warp.sync before
 * each store; the per-thread value %r5 (tid-dependent) goes to .local.
 * out[tid] = tid + sum over i < n of (a + i). */
static const char *const loop_ptx =
    ".version 7.0\n.target sm_80\n.address_size 64\n"
    ".visible .entry k(.param .u64 out, .param .u32 a, .param .u32 n)\n{\n"
    "  .reg .pred %p<3>;\n  .reg .b32 %r<12>;\n  .reg .b64 %rd<4>;\n"
    "  ld.param.u64 %rd1, [out];\n"
    "  ld.param.u32 %r1, [a];\n"
    "  ld.param.u32 %r6, [n];\n"
    "  mov.u32 %r5, %tid.x;\n"
    "  mov.u32 %r2, 0;\n"
    "  mov.u32 %r3, 0;\n"
    "$L_loop:\n"
    "  add.s32 %r4, %r1, %r2;\n"
    "  add.s32 %r3, %r3, %r4;\n"
    "  add.s32 %r2, %r2, 1;\n"
    "  setp.lt.u32 %p1, %r2, %r6;\n"
    "  @%p1 bra $L_loop;\n"
    "  add.s32 %r7, %r3, %r5;\n"
    "  mul.wide.u32 %rd2, %r5, 4;\n"
    "  add.s64 %rd3, %rd1, %rd2;\n"
    "  st.global.u32 [%rd3], %r7;\n"
    "  ret;\n}\n";

/* Whether the rewritten text reads %ntid (the block shape unknown). */
static bool reads_ntid;

/* Rewrites loop_ptx (with `directive` after the kernel's parameter list,
 * e.g. .reqntid; with `shape` stated as --block would) at budget 3 in aff
 * mode and runs it on a block of `threads` x `rows` threads; returns how
 * many outputs are wrong. */
static unsigned run_shaped(const char *directive, const uint32_t *shape, uint32_t threads, uint32_t rows,
                           emu_schedule sched, uint64_t seed, uint32_t *sync_slots, unsigned *barriers,
                           bool *mask_slot)
{
    char src[2048];
    const char *brace = strstr(loop_ptx, ")\n{");
    snprintf(src, sizeof src, "%.*s)%s\n{%s", (int)(brace - loop_ptx), loop_ptx, directive, brace + 3);
    ptx_module *m = tu_parse_ok("loop.ptx", src);
    ra_options o;
    memset(&o, 0, sizeof o);
    o.mode = RA_MODE_AFF;
    o.budget = 3;
    blk_opts bo = {0};
    if (shape) memcpy(bo.all, shape, sizeof bo.all), o.blocks = &bo;
    ptx_diags d;
    ptx_diags_init(&d);
    ra_stats st;
    cr_assert_eq(ra_run(m, &o, &st, &d), 0);
    *sync_slots = st.funcs[0].sync_slots;
    ra_stats_free(&st);
    ptx_diags_free(&d);
    char *text = tu_print(m, NULL);
    ptx_module_free(m);
    *barriers = 0;
    *mask_slot = false;
    reads_ntid = strstr(text, "%ntid") != NULL;
    for (const char *q = text; (q = strstr(q, "bar.warp.sync")); q++) {
        (*barriers)++;
        const char *x = q + strlen("bar.warp.sync");
        while (*x == ' ' || *x == '\t') x++;
        if (*x == '%') *mask_slot = true; /* a register: the mask read from its slot */
    }
    emu_options eo;
    memset(&eo, 0, sizeof eo);
    eo.schedule = sched;
    eo.seed = seed;
    eh *h = eh_text(text, &eo);
    free(text);
    uint64_t out = eh_zero(h, threads * 4);
    emu_dim3 block = {threads, rows, 1};
    EH_RUN(h, "k", D1(1), block, "pii", out, 5, 9);
    uint32_t v[64];
    eh_read(h, out, v, threads * 4);
    eh_close(h);
    unsigned wrong = 0;
    for (unsigned t = 0; t < threads; t++) wrong += v[t] != 5u * 9u + 36u + t;
    return wrong;
}

static unsigned run_loop(const char *directive, uint32_t threads, emu_schedule sched, uint64_t seed,
                         uint32_t *sync_slots, unsigned *barriers, bool *mask_slot)
{
    return run_shaped(directive, NULL, threads, 1, sched, seed, sync_slots, barriers, mask_slot);
}

Test(regalloc_emu, loop_values_share_a_slot_with_warp_sync)
{
    uint32_t slots;
    unsigned barriers;
    bool mask_slot;
    /* any block size: the barrier's mask is the warp's launched lanes, read
     * from the partition's mask slot (48 threads: the second warp has 16) */
    for (uint64_t seed = 1; seed <= 6; seed++)
        cr_expect_eq(run_loop("", 48, EMU_SCHED_INTERLEAVE, seed, &slots, &barriers, &mask_slot), 0, "seed %llu",
                     (unsigned long long)seed);
    cr_expect_eq(run_loop("", 48, EMU_SCHED_LOCKSTEP, 0, &slots, &barriers, &mask_slot), 0);
    cr_expect_geq(slots, 2, "%u", slots);
    cr_expect_geq(barriers, 2, "%u", barriers);
    cr_expect(mask_slot);
    /* .reqntid 64: every warp is full, the mask is an immediate */
    cr_expect_eq(run_loop(" .reqntid 64", 64, EMU_SCHED_INTERLEAVE, 3, &slots, &barriers, &mask_slot), 0);
    cr_expect_geq(slots, 2, "%u", slots);
    cr_expect(!mask_slot);
}

/* A block shape stated with --block (or .reqntid) is exact: the slot
 * address is tid.x + X*tid.y with X a constant (no %ntid read), the area
 * is sized for its warps, and full warps need no mask slot.  Each rewrite
 * is run at the shape it states, under the adversarial ITS schedule. */
Test(regalloc_emu, stated_block_shape_gives_constant_slot_addresses)
{
    uint32_t slots;
    unsigned barriers;
    bool mask_slot;
    static const uint32_t s48[3] = {48, 1, 1}, s64[3] = {64, 1, 1}, s16x4[3] = {16, 4, 1};
    for (uint64_t seed = 1; seed <= 4; seed++) {
        /* 48 threads: the second warp has 16 lanes, its mask from the slot */
        cr_expect_eq(run_shaped("", s48, 48, 1, EMU_SCHED_ITS, seed, &slots, &barriers, &mask_slot), 0);
        cr_expect(mask_slot);
        cr_expect(!reads_ntid);
        cr_expect_geq(slots, 2, "%u", slots);
        /* 64 threads: full warps, the mask an immediate */
        cr_expect_eq(run_shaped("", s64, 64, 1, EMU_SCHED_ITS, seed, &slots, &barriers, &mask_slot), 0);
        cr_expect(!mask_slot);
        cr_expect(!reads_ntid);
        /* 16x4: two rows a warp; every row writes out[tid.x] alike */
        cr_expect_eq(run_shaped("", s16x4, 16, 4, EMU_SCHED_ITS, seed, &slots, &barriers, &mask_slot), 0);
        cr_expect(!mask_slot);
        cr_expect(!reads_ntid);
    }
    /* .reqntid states it too */
    cr_expect_eq(run_shaped(" .reqntid 16, 4", NULL, 16, 4, EMU_SCHED_ITS, 5, &slots, &barriers, &mask_slot), 0);
    cr_expect(!reads_ntid);
    /* no shape: %ntid is read */
    cr_expect_eq(run_loop("", 48, EMU_SCHED_ITS, 1, &slots, &barriers, &mask_slot), 0);
    cr_expect(reads_ntid);
}
