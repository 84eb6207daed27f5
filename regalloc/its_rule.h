/* The sm_70+ rule: when a spilled value may share one .shared slot among
 * the lanes of a warp although those lanes are scheduled independently
 * (docs/regalloc.md, "Correctness under independent thread scheduling").
 *
 * A slot is shared only by a value that
 *   1. is defined by exactly one instruction, with no guard and no partial
 *      write, and every use reads that definition (so it dominates them);
 *   2. whose definition is outside every loop of a kernel (.entry) body:
 *      each thread executes it at most once per launch;
 *   3. is uniform (rule ii) or has a uniform part (rule iv) by the analysis;
 *   4. is stable: it depends on nothing that lanes executing the same
 *      instruction at different times may read differently (strong or
 *      atomic loads, activemask, %warpid, %smid).
 * Then every lane writes the slot once, all writes carry the same bits, and
 * a lane reads the slot only after its own write: whatever the interleaving
 * of the lanes, each read returns the bits the reader wrote. */
#ifndef PTXRAY_RA_ITS_RULE_H
#define PTXRAY_RA_ITS_RULE_H
#include "program.h"
#include "regalloc.h"
#include "divergence.h"
#include "liveness.h"

/* Per SSA value: 1 when it is not stable (condition 4). */
uint8_t *ra_unstable_values(const prog_func *pf, arena *a);
/* The same with the instructions' semantics flags per statement of the
 * function (ra_live.sem_flags) instead of computing them again. */
uint8_t *ra_unstable_values_sem(const prog_func *pf, const uint32_t *sem_flags, arena *a);

/* What the pass knows about one register's definitions and uses. */
typedef struct ra_reginfo {
    uint32_t ndefs;       /* instructions that write it */
    uint32_t def_value;   /* the value the last of them defines */
    uint32_t nuse_values; /* 0, 1, or 2 for "two or more" distinct values read by its uses */
    uint32_t use_value;   /* the value read when nuse_values == 1 */
    bool reads_entry;     /* a use may read the value on entry (undefined or a parameter) */
    bool param;           /* a .reg parameter or return register of a .func */
} ra_reginfo;

/* Conditions 1, 2 and 4 for register r: RA_WHY_NONE when a shared slot is
 * allowed, else why not. */
enum ra_why ra_write_once(const prog_func *pf, const ra_reginfo *ri, const uint8_t *unstable);

/* The synchronised rule (docs/regalloc.md, "Values written more than once"):
 * a register written more than once per thread may still share a slot when
 * every one of its definitions is in a block that every launched lane of
 * the warp executes equally often, in the same order (no divergent or
 * unstable branch, no call, on which the block is control dependent), and
 * every store to the slot is preceded by bar.warp.sync on the warp's
 * launched lanes.  Per register of L: RA_WHY_NONE when the rule allows it
 * (condition 3, the state, is ra_place's), else why not.  strong: the
 * target has sm_70+ and PTX 6.0+ (strong slot accesses, bar.warp.sync). */
uint8_t *ra_sync_rule(const prog_func *pf, const ra_live *L, const div_result *dr, const ra_reginfo *ri,
                      const uint8_t *unstable, bool strong, arena *a);

/* Per block of pf->g: 1 when every launched lane of a warp executes it
 * equally often (ra_sync_rule); exposed for the tests. */
uint8_t *ra_warp_full_blocks(const prog_func *pf, const div_result *dr, const uint8_t *unstable, arena *a);

#endif
