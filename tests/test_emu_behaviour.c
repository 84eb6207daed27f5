/* Emulator behaviour on small hand-written kernels: faults with positions
 * and addresses, unsupported instructions, limits, deadlocks, launch
 * errors; reconvergence at the immediate post-dominator; the interleaved
 * schedule; the observer hook; determinism. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "emu_harness.h"

#define HDR ".version 8.0\n.target sm_80\n.address_size 64\n"

static const char oob_ptx[] = HDR
    ".visible .entry oob(.param .u64 in, .param .u64 out, .param .u32 k)\n" /* 4 */
    "{\n"                                                                   /* 5 */
    "  .reg .b32 %r<6>;\n"                                                  /* 6 */
    "  .reg .b64 %rd<8>;\n"                                                 /* 7 */
    "  ld.param.u64 %rd1, [in];\n"                                          /* 8 */
    "  ld.param.u64 %rd2, [out];\n"                                         /* 9 */
    "  ld.param.u32 %r1, [k];\n"                                            /* 10 */
    "  mov.u32 %r2, %tid.x;\n"                                              /* 11 */
    "  add.u32 %r3, %r2, %r1;\n"                                            /* 12 */
    "  mul.wide.u32 %rd3, %r3, 4;\n"                                        /* 13 */
    "  add.s64 %rd4, %rd1, %rd3;\n"                                         /* 14 */
    "  ld.global.u32 %r4, [%rd4];\n"                                        /* 15 */
    "  mul.wide.u32 %rd5, %r2, 4;\n"                                        /* 16 */
    "  add.s64 %rd6, %rd2, %rd5;\n"                                         /* 17 */
    "  st.global.u32 [%rd6+2], %r4;\n"                                      /* 18: misaligned */
    "  ret;\n"
    "}\n";

Test(emu_errors, out_of_bounds_has_line_and_address)
{
    eh *h = eh_text(oob_ptx, NULL);
    uint64_t in = eh_zero(h, 64 * 4), out = eh_zero(h, 64 * 4);
    /* k = 40: lanes 24..31 read past the 64-element buffer; lane 24 is the first */
    emu_status st = eh_launch(h, "oob", D1(1), D1(32), "ppu", in, out, 40u);
    cr_assert_eq(st, EMU_ERR_FAULT);
    cr_assert_eq(emu_status_exit_code(st), 1);
    char want[256];
    snprintf(want, sizeof want, "inline.ptx:15:3: error: in 'ld.global.u32': out-of-bounds .global load of 4 bytes at 0x%" PRIx64, in + 256);
    cr_assert(strstr(h->last_err, want) != NULL, "%s", h->last_err);
    cr_assert(strstr(h->last_err, "thread (24,0,0)") != NULL, "%s", h->last_err);
    cr_assert(strstr(h->last_err, "nearest buffer") != NULL, "%s", h->last_err);
    cr_assert(strstr(h->last_err, "ld.global.u32 %r4, [%rd4];\n") != NULL, "the source line is shown: %s", h->last_err);
    /* in bounds, the store is misaligned */
    st = eh_launch(h, "oob", D1(1), D1(32), "ppu", in, out, 0u);
    cr_assert_eq(st, EMU_ERR_FAULT);
    snprintf(want, sizeof want, "inline.ptx:18:3: error: in 'st.global.u32': misaligned .global store of 4 bytes at 0x%" PRIx64 " (must be 4-byte aligned)", out + 2);
    cr_assert(strstr(h->last_err, want) != NULL, "%s", h->last_err);
    eh_close(h);
}

/* sm_90: mapa and the cluster registers need it (the validator checks .target) */
static const char misc_ptx[] = ".version 8.0\n.target sm_90\n.address_size 64\n"
    ".extern .shared .align 4 .b8 dyn[];\n"                                  /* 4 */
    ".visible .entry unsup(.param .u32 n)\n"                                 /* 5 */
    "{\n"                                                                     /* 6 */
    "  .reg .pred %p<2>;\n"                                                   /* 7 */
    "  .reg .b32 %r<4>;\n"                                                    /* 8 */
    "  .reg .b64 %rd<4>;\n"                                                   /* 9 */
    "  ld.param.u32 %r1, [n];\n"                                              /* 10 */
    "  setp.eq.u32 %p1, %r1, 0;\n"                                            /* 11 */
    "  @%p1 bra DONE;\n"                                                      /* 12 */
    "  mov.u64 %rd1, 0;\n"                                                    /* 13 */
    "  mapa.u64 %rd2, %rd1, 1;\n"                                             /* 14 */
    "DONE:\n"                                                                 /* 15 */
    "  ret;\n"                                                                /* 16 */
    "}\n"                                                                     /* 17 */
    ".visible .entry spin()\n"                                                /* 18 */
    "{\n"                                                                     /* 19 */
    "LOOP:\n"                                                                 /* 20 */
    "  bra.uni LOOP;\n"                                                       /* 21 */
    "}\n"                                                                     /* 22 */
    ".visible .entry two_barriers()\n"                                        /* 23 */
    "{\n"                                                                     /* 24 */
    "  .reg .pred %p<2>;\n"                                                   /* 25 */
    "  .reg .b32 %r<2>;\n"                                                    /* 26 */
    "  mov.u32 %r1, %tid.x;\n"                                                /* 27 */
    "  setp.lt.u32 %p1, %r1, 32;\n"                                           /* 28 */
    "  @%p1 bar.sync 1;\n"                                                    /* 29 */
    "  @!%p1 bar.sync 2;\n"                                                   /* 30 */
    "  ret;\n"                                                                /* 31 */
    "}\n"                                                                     /* 32 */
    ".visible .entry shfl_vs_bar()\n"                                         /* 33 */
    "{\n"                                                                     /* 34 */
    "  .reg .pred %p<2>;\n"                                                   /* 35 */
    "  .reg .b32 %r<4>;\n"                                                    /* 36 */
    "  mov.u32 %r1, %tid.x;\n"                                                /* 37 */
    "  setp.lt.u32 %p1, %r1, 16;\n"                                           /* 38 */
    "  @!%p1 bra HIGH;\n"                                                     /* 39 */
    "  shfl.sync.idx.b32 %r2, %r1, 0, 31, -1;\n"                              /* 40 */
    "  bra.uni END;\n"                                                        /* 41 */
    "HIGH:\n"                                                                 /* 42 */
    "  bar.sync 0;\n"                                                         /* 43 */
    "END:\n"                                                                  /* 44 */
    "  ret;\n"                                                                /* 45 */
    "}\n"                                                                     /* 46 */
    ".visible .entry trapper()\n"                                             /* 47 */
    "{\n"                                                                     /* 48 */
    "  trap;\n"                                                               /* 49 */
    "}\n"                                                                     /* 50 */
    ".visible .entry dyn_oob()\n"                                             /* 51 */
    "{\n"                                                                     /* 52 */
    "  .reg .b32 %r<2>;\n"                                                    /* 53 */
    "  ld.shared.u32 %r1, [dyn+8];\n"                                         /* 54 */
    "  ret;\n"                                                                /* 55 */
    "}\n"                                                                     /* 56 */
    ".func (.param .b32 r) forever(.param .b32 x)\n"                          /* 57 */
    "{\n"                                                                     /* 58 */
    "  .local .align 4 .b8 depot[64];\n"                                      /* 59 */
    "  .reg .b32 %r<3>;\n"                                                    /* 60 */
    "  ld.param.b32 %r1, [x];\n"                                              /* 61 */
    "  { .param .b32 a; .param .b32 b;\n"                                     /* 62 */
    "  st.param.b32 [a], %r1;\n"                                              /* 63 */
    "  call.uni (b), forever, (a);\n"                                         /* 64 */
    "  ld.param.b32 %r2, [b]; }\n"                                            /* 65 */
    "  st.param.b32 [r], %r2;\n"                                              /* 66 */
    "  ret;\n"                                                                /* 67 */
    "}\n"                                                                     /* 68 */
    ".visible .entry recurse()\n"                                             /* 69 */
    "{\n"                                                                     /* 70 */
    "  .reg .b32 %r<2>;\n"                                                    /* 71 */
    "  { .param .b32 a; .param .b32 b;\n"                                     /* 72 */
    "  st.param.b32 [a], 1;\n"                                                /* 73 */
    "  call.uni (b), forever, (a); }\n"                                       /* 74 */
    "  ret;\n"                                                                /* 75 */
    "}\n"                                                                     /* 76 */
    ".visible .entry bad_icall(.param .u64 f)\n"                              /* 77 */
    "{\n"                                                                     /* 78 */
    "  .reg .b64 %rd<2>;\n"                                                   /* 79 */
    "  ld.param.u64 %rd1, [f];\n"                                             /* 80 */
    "  { .param .b32 a; .param .b32 rv;\n"                                    /* 81 */
    "  st.param.b32 [a], 1;\n"                                                /* 82 */
    "  pt: .callprototype (.param .b32 _) _ (.param .b32 _);\n"               /* 83 */
    "  call (rv), %rd1, (a), pt; }\n"                                         /* 84 */
    "  ret;\n"                                                                /* 85 */
    "}\n";

Test(emu_errors, unsupported_instruction_only_when_reached)
{
    eh *h = eh_text(misc_ptx, NULL);
    cr_assert_eq(eh_launch(h, "unsup", D1(1), D1(32), "u", 0u), EMU_OK, "%s", h->last_err);
    emu_status st = eh_launch(h, "unsup", D1(1), D1(32), "u", 1u);
    cr_assert_eq(st, EMU_ERR_UNSUPPORTED);
    cr_assert_eq(emu_status_exit_code(st), 2);
    cr_assert(strstr(h->last_err, "inline.ptx:14:3: error: instruction 'mapa.u64' is not supported (thread-block clusters are not emulated)") != NULL,
              "%s", h->last_err);
    eh_close(h);
}

Test(emu_errors, step_limit_deadlock_trap)
{
    emu_options o = {.max_steps = 1000};
    eh *h = eh_text(misc_ptx, &o);
    cr_assert_eq(eh_launch(h, "spin", D1(1), D1(32), ""), EMU_ERR_LIMIT);
    cr_assert(strstr(h->last_err, "inline.ptx:21:3: error: step limit reached: 1000 warp-instructions executed (--max-steps)") != NULL,
              "%s", h->last_err);
    cr_assert_eq(eh_launch(h, "two_barriers", D1(1), D1(64), ""), EMU_ERR_DEADLOCK);
    cr_assert(strstr(h->last_err, "inline.ptx:29:3: error: deadlock: warp 0 of block (0,0,0) waits at barrier 1, which 1 of the 2 expected warps have reached") != NULL,
              "%s", h->last_err);
    cr_assert_eq(eh_launch(h, "shfl_vs_bar", D1(1), D1(32), ""), EMU_ERR_DEADLOCK);
    cr_assert(strstr(h->last_err, "deadlock") != NULL, "%s", h->last_err);
    cr_assert_eq(eh_launch(h, "trapper", D1(2), D1(32), ""), EMU_ERR_TRAP);
    cr_assert(strstr(h->last_err, "inline.ptx:49:3: error: in 'trap': trap (block (0,0,0), thread (0,0,0))") != NULL, "%s", h->last_err);
    cr_assert_eq(eh_launch(h, "dyn_oob", D1(1), D1(32), ""), EMU_ERR_FAULT);
    cr_assert(strstr(h->last_err, "out-of-bounds .shared load of 4 bytes at shared offset 0x8 (the block has 0 bytes of shared memory)") != NULL,
              "%s", h->last_err);
    emu_status st = eh_launch(h, "recurse", D1(1), D1(32), "");
    cr_assert_eq(st, EMU_ERR_LIMIT, "%s", h->last_err);
    cr_assert(strstr(h->last_err, "limit") != NULL, "%s", h->last_err);
    cr_assert_eq(eh_launch(h, "bad_icall", D1(1), D1(32), "l", (uint64_t)0x1234), EMU_ERR_FAULT);
    cr_assert(strstr(h->last_err, "indirect call to 0x1234, which is not the address of a function") != NULL, "%s", h->last_err);
    eh_close(h);
}

Test(emu_errors, launch_errors)
{
    eh *h = eh_text(oob_ptx, NULL);
    uint64_t b = eh_zero(h, 256);
    cr_assert_eq(eh_launch(h, "nope", D1(1), D1(32), ""), EMU_ERR_USAGE);
    cr_assert(strstr(h->last_err, "no kernel named 'nope'") != NULL);
    cr_assert_eq(eh_launch(h, "oob", D1(1), D1(32), "pp", b, b), EMU_ERR_USAGE);
    cr_assert(strstr(h->last_err, "kernel 'oob' takes 3 parameters, 2 given") != NULL, "%s", h->last_err);
    cr_assert_eq(eh_launch(h, "oob", D1(1), D1(32), "ppl", b, b, (uint64_t)1), EMU_ERR_USAGE);
    cr_assert(strstr(h->last_err, "argument 3 has 8 bytes but parameter 'k' has 4") != NULL, "%s", h->last_err);
    cr_assert_eq(eh_launch(h, "oob", D1(1), D1(2048), "ppu", b, b, 0u), EMU_ERR_USAGE);
    cr_assert_eq(eh_launch(h, "oob", D1(0), D1(32), "ppu", b, b, 0u), EMU_ERR_USAGE);
    cr_assert_eq(emu_status_exit_code(EMU_ERR_USAGE), 2);
    eh_close(h);
}

/* ---- reconvergence ------------------------------------------------------------------------- */
static const char ifelse_ptx[] = HDR
    ".visible .entry ifelse(.param .u64 out)\n"
    "{\n"
    "  .reg .pred %p<2>;\n"
    "  .reg .b32 %r<8>;\n"
    "  .reg .b64 %rd<4>;\n"
    "  mov.u32 %r1, %tid.x;\n"            /* 1 */
    "  setp.lt.u32 %p1, %r1, 10;\n"       /* 2 */
    "  @%p1 bra THEN;\n"                  /* 3: divergent */
    "  mul.lo.u32 %r2, %r1, 3;\n"         /* else: 2 instructions */
    "  bra.uni JOIN;\n"
    "THEN:\n"
    "  mul.lo.u32 %r2, %r1, 5;\n"         /* then: 3 instructions */
    "  add.u32 %r2, %r2, 1;\n"
    "  add.u32 %r2, %r2, 1;\n"
    "JOIN:\n"
    "  ld.param.u64 %rd1, [out];\n"       /* the tail: 5 instructions, once if reconverged */
    "  mul.wide.u32 %rd2, %r1, 4;\n"
    "  add.s64 %rd3, %rd1, %rd2;\n"
    "  st.global.u32 [%rd3], %r2;\n"
    "  ret;\n"
    "}\n";

Test(emu_sched, reconverges_at_the_post_dominator)
{
    eh *h = eh_text(ifelse_ptx, NULL);
    uint64_t out = eh_zero(h, 128);
    EH_RUN(h, "ifelse", D1(1), D1(32), "p", out);
    const emu_stats *s = emu_last_stats(h->M);
    cr_expect_eq(s->divergent_branches, 1);
    cr_expect_eq(s->warp_insts, 3 + 2 + 3 + 5, "warp instructions %llu", (unsigned long long)s->warp_insts);
    cr_expect_eq(s->thread_insts, 32 * 2 + 10 + 22 * 2 + 10 * 3 + 32 * 5); /* the guarded branch counts its 10 lanes */
    uint32_t got[32];
    eh_read(h, out, got, 128);
    for (uint32_t t = 0; t < 32; t++) cr_expect_eq(got[t], t < 10 ? 5 * t + 2 : 3 * t);
    eh_close(h);
}

/* Lanes 0..15 wait for a flag that lanes 16..31 set: it works only when the
 * two paths of the warp interleave (independent thread scheduling). */
static const char handoff_ptx[] = HDR
    ".shared .align 4 .b8 flag[8];\n"
    ".visible .entry handoff(.param .u64 out)\n"
    "{\n"
    "  .reg .pred %p<3>;\n"
    "  .reg .b32 %r<8>;\n"
    "  .reg .b64 %rd<4>;\n"
    "  mov.u32 %r1, %tid.x;\n"
    "  setp.lt.u32 %p1, %r1, 16;\n"
    "  @%p1 bra WAIT;\n"                            /* the taken path (waiting) runs first in lock-step */
    "  st.volatile.shared.u32 [flag+4], 42;\n"
    "  st.volatile.shared.u32 [flag], 1;\n"
    "  mov.u32 %r3, 7;\n"
    "  bra.uni DONE;\n"
    "WAIT:\n"
    "  ld.volatile.shared.u32 %r2, [flag];\n"
    "  setp.eq.u32 %p2, %r2, 0;\n"
    "  @%p2 bra WAIT;\n"
    "  ld.volatile.shared.u32 %r3, [flag+4];\n"
    "DONE:\n"
    "  ld.param.u64 %rd1, [out];\n"
    "  mul.wide.u32 %rd2, %r1, 4;\n"
    "  add.s64 %rd3, %rd1, %rd2;\n"
    "  st.global.u32 [%rd3], %r3;\n"
    "  ret;\n"
    "}\n";

Test(emu_sched, interleave_runs_code_that_needs_independent_scheduling)
{
    emu_options lock = {.max_steps = 20000};
    eh *h = eh_text(handoff_ptx, &lock);
    uint64_t out = eh_zero(h, 128);
    /* lock-step: the waiting path runs first and never yields to the producer */
    cr_assert_eq(eh_launch(h, "handoff", D1(1), D1(32), "p", out), EMU_ERR_LIMIT);
    eh_close(h);
    for (uint64_t seed = 1; seed <= 5; seed++) {
        emu_options il = {.max_steps = 20000, .schedule = EMU_SCHED_INTERLEAVE, .seed = seed};
        h = eh_text(handoff_ptx, &il);
        out = eh_zero(h, 128);
        EH_RUN(h, "handoff", D1(1), D1(32), "p", out);
        uint32_t got[32];
        eh_read(h, out, got, 128);
        for (int t = 0; t < 32; t++) cr_expect_eq(got[t], t < 16 ? 42u : 7u, "seed %llu lane %d", (unsigned long long)seed, t);
        eh_close(h);
    }
}

/* The two paths of a diverged warp communicate through shared memory
 * without synchronisation: lock-step gives one fixed answer, the
 * interleaved schedule shows that others are possible. */
static const char racy_ptx[] = HDR
    ".shared .align 4 .b8 s[128];\n"
    ".visible .entry racy(.param .u64 out)\n"
    "{\n"
    "  .reg .pred %p<2>;\n"
    "  .reg .b32 %r<8>;\n"
    "  .reg .b64 %rd<4>;\n"
    "  mov.u32 %r1, %tid.x;\n"
    "  mov.u32 %r5, s;\n"
    "  shl.b32 %r2, %r1, 2;\n"
    "  add.u32 %r2, %r2, %r5;\n"
    "  st.shared.u32 [%r2], 0;\n"
    "  setp.lt.u32 %p1, %r1, 16;\n"
    "  @%p1 bra READER;\n"
    "  add.u32 %r6, %r1, 100;\n"
    "  st.shared.u32 [%r2+-64], %r6;\n"      /* lane t writes word t-16 */
    "  mov.u32 %r3, 0;\n"
    "  bra.uni DONE;\n"
    "READER:\n"
    "  add.u32 %r7, %r1, 1;\n"
    "  add.u32 %r7, %r7, 1;\n"
    "  ld.shared.u32 %r3, [%r2];\n"          /* lane t reads word t */
    "DONE:\n"
    "  ld.param.u64 %rd1, [out];\n"
    "  mul.wide.u32 %rd2, %r1, 4;\n"
    "  add.s64 %rd3, %rd1, %rd2;\n"
    "  st.global.u32 [%rd3], %r3;\n"
    "  ret;\n"
    "}\n";

static void run_racy(const emu_options *o, uint32_t *got)
{
    eh *h = eh_text(racy_ptx, o);
    uint64_t out = eh_zero(h, 128);
    EH_RUN(h, "racy", D1(1), D1(32), "p", out);
    eh_read(h, out, got, 128);
    eh_close(h);
}

Test(emu_sched, interleave_exposes_reliance_on_lockstep)
{
    uint32_t lock1[32], lock2[32], a[32], b[32];
    emu_options lk = {0};
    run_racy(&lk, lock1);
    run_racy(&lk, lock2);
    cr_assert_eq(memcmp(lock1, lock2, sizeof lock1), 0, "lock-step is deterministic");
    /* the taken path (the readers) runs first in lock-step: they see the zeros */
    for (int t = 0; t < 16; t++) cr_expect_eq(lock1[t], 0u);
    int differ = 0;
    for (uint64_t seed = 1; seed <= 16; seed++) {
        emu_options il = {.schedule = EMU_SCHED_INTERLEAVE, .seed = seed};
        run_racy(&il, a);
        run_racy(&il, b);
        cr_assert_eq(memcmp(a, b, sizeof a), 0, "same seed, same result");
        if (memcmp(a, lock1, sizeof a)) differ++;
        for (int t = 0; t < 16; t++) cr_expect(a[t] == 0u || a[t] == (uint32_t)t + 116u);
    }
    cr_expect_gt(differ, 0, "some interleaving lets a reader see the writer's value");
}

/* ---- the observer hook ----------------------------------------------------------------------- */
typedef struct obs_log {
    unsigned before, after;
    uint32_t branch_active, branch_path;
    unsigned add_checked;
    int bad;
} obs_log;

static void on_inst(void *user, const emu_event *ev)
{
    obs_log *L = user;
    if (ev->phase == EMU_OBS_BEFORE) L->before++;
    else L->after++;
    const ptx_inst *in = ev->inst;
    if (ev->phase == EMU_OBS_BEFORE && in->op == PTX_OPC_BRA && in->has_guard) {
        L->branch_active = ev->active_mask;
        L->branch_path = ev->path_mask;
    }
    /* add.u32 %r2, %r2, 1 in the THEN path: %r2 is 5 * tid + 1, then + 2 */
    if (in->op == PTX_OPC_ADD && in->type == PTX_T_U32 && ev->phase == EMU_OBS_AFTER) {
        uint32_t d = in->opd[0].n, r1 = UINT32_MAX;
        for (uint32_t k = 0; k < ev->fn->nregs; k++)
            if (ptx_str_eq(ev->fn->regs[k].name, "%r1")) r1 = k;
        for (unsigned l = 0; l < 32; l++) {
            if (!((ev->active_mask >> l) & 1)) continue;
            uint64_t v = emu_event_reg(ev, d, 0, l);
            uint64_t tid = emu_event_reg(ev, r1, 0, l);
            if (v != 5 * tid + 1 && v != 5 * tid + 2) L->bad++;
            L->add_checked++;
        }
    }
}

Test(emu_sched, observer_sees_masks_and_operands)
{
    obs_log L;
    memset(&L, 0, sizeof L);
    emu_observer ob = {on_inst, &L};
    emu_options o = {.observer = &ob};
    eh *h = eh_text(ifelse_ptx, &o);
    uint64_t out = eh_zero(h, 128);
    EH_RUN(h, "ifelse", D1(1), D1(32), "p", out);
    cr_expect_eq(L.before, 13, "one event per executed warp instruction");
    cr_expect_eq(L.after, 12, "every instruction but ret has an after event");
    cr_expect_eq(L.branch_path, 0xffffffffu);
    cr_expect_eq(L.branch_active, 0x3ffu, "the branch is taken by lanes 0..9");
    cr_expect_eq(L.add_checked, 20);
    cr_expect_eq(L.bad, 0);
    eh_close(h);
}
