/* Barriers and warp collectives under divergence (issue 36; docs/check.md,
 * "divergent-barrier", "divergent-collective").  The rules the PTX ISA
 * states, checked with the branch verdicts of the one domain (divergence.h)
 * at the block shape in force:
 *   - bar{.cta}.sync/.red and barrier{.cta}.sync/.red.aligned: every
 *     thread of the CTA that has not exited executes the same barrier
 *     instruction, a warp together.  A branch that is not uniform across
 *     the block (the simple analysis at block granularity, div_options.cta)
 *     and lets threads go round a barrier is a finding when those threads
 *     then wait elsewhere: at another barrier, or (a branch that splits a
 *     warp) at the point where their warp reconverges.  Threads that go on
 *     to exit without another barrier are legal (exited threads do not take
 *     part).  The barrier's id must be the same in every thread, its thread
 *     count too and a multiple of the warp size within the block.
 *   - warp-level .aligned instructions (mma, wmma, ldmatrix, ...): every
 *     live lane of the warp executes them together, as a collective whose
 *     mask is the whole warp; wgmma and setmaxnreg: every thread of the
 *     warpgroup (four warps), which only a branch uniform across the block
 *     leaves together (or, at a given shape, lane by lane);
 *   - shfl/vote/match/redux/elect.sync and bar.warp.sync: every lane named
 *     in the member mask that has not exited executes the same instruction,
 *     and the executing lane is in its mask.  The lanes that execute it
 *     (the branches around it, evaluated lane by lane) are compared with
 *     the mask, known when a constant or a ballot of a predicate known lane
 *     by lane; a mask from activemask is the lanes that execute it.
 * Decisions only: report/check_findings.c words them. */
#ifndef PTXRAY_SYNC_RULES_H
#define PTXRAY_SYNC_RULES_H
#include "addr_chain.h"
#include "divergence.h"

enum sync_rule { SYNC_BARRIER, SYNC_COLLECTIVE };

enum sync_kind {
    SYNC_K_SKIPPED,   /* barrier: threads go round it at `branch`, then wait at `other` (another barrier, or
                       * the point where their warp reconverges: reconv) */
    SYNC_K_ID,        /* barrier: its id (value) may differ between the block's threads */
    SYNC_K_COUNT,     /* barrier: its thread count (value) may differ between threads, or may not be a
                       * multiple of 32 */
    SYNC_K_COUNT_BIG, /* barrier: count (constant) above the block's threads */
    SYNC_K_COUNTS,    /* barrier: the same id with another count at `other` */
    SYNC_K_ABSENT,    /* collective: lanes the mask names do not execute it (they took the other way at
                       * `branch` and wait for their warp at `other`) */
    SYNC_K_NOT_NAMED, /* collective: executing lanes are not in the mask */
    SYNC_K_MASK,      /* collective: in a branch that may split the warp, the mask not known to be the
                       * lanes that execute it */
    SYNC_K_ALIGNED,   /* a warp-level .aligned instruction (mma, ldmatrix, ...) that lanes of a warp skip, or a
                       * warpgroup's (group) that threads of a warpgroup skip: proven (lanes, as ABSENT) or
                       * possible (in a branch that may split the warp, the warpgroup) */
};

typedef struct sync_finding {
    uint32_t stmt;      /* the barrier or collective */
    uint8_t rule, kind; /* sync_rule, sync_kind */
    bool proven;        /* shown at the shape in force; else possible, depending on `value` */
    bool reconv;        /* SKIPPED, ABSENT: other is where the warp reconverges (not a barrier) */
    bool group;         /* ALIGNED: a warpgroup's instruction (wgmma, setmaxnreg): every thread of the
                         * four warps executes it together; warp, lanes: the first warp that skips it */
    uint32_t branch;    /* the branch statement, or UINT32_MAX */
    uint32_t other;     /* see sync_kind; UINT32_MAX: none (the threads reach the end of the kernel) */
    uint32_t value;     /* the SSA value it depends on (the branch's condition, the mask, the id, the
                         * count), or SSA_NONE */
    uint32_t warp;      /* ABSENT, NOT_NAMED: the first warp of the block that shows it */
    uint32_t lanes;     /* those lanes */
    uint32_t mask;      /* the mask that warp used (constant or ballot) */
    int64_t count;      /* COUNT_BIG, COUNTS: the count here */
    int64_t count2;     /* COUNTS: the count at `other` */
    uint32_t *threads;  /* SKIPPED proven: the threads of the block that go round it (bit t of word
                         * t/32), nthreads of them known; NULL */
    uint32_t nthreads;
} sync_finding;

/* The findings of function pf (built at PROG_GSA) whose affine analysis at
 * its block shape is r (and address chains chain, for lane-exact
 * evaluation; may be NULL), in statement order, into *out (from a);
 * returns their count.  Functions without a barrier or collective cost one
 * pass over their statements. */
uint32_t sync_check(const prog_func *pf, const div_result *r, const addr_chain *chain, arena *a, sync_finding **out);

/* "threads (0..15,0,0), (32..47,0,0)": runs of consecutive threads of the
 * bit set t over the first n threads of a block of x·y threads a row,
 * each run within one row; after six runs "... (N threads in all)".  The
 * one writer of thread sets (also the emulator's synccheck). */
void sync_threads_text(const uint32_t *t, uint32_t n, uint32_t x, uint32_t y, char *buf, size_t len);

#endif
