/* Code that at most one thread of a warp executes (GPUDrano, Alur et al.
 * 2017, section 4.1: the active-set abstraction FF⁻).  A predicate is
 * "one-lane" (true for at most one active lane: FF⁻) when it is
 *   - setp.eq a, b with a - b taking a different value in every lane of a
 *     warp (tid.x == c, laneid == c, tid.x + ⊥ == ⊥ ...: the affine
 *     analysis, with its warp forms, gives a - b; warp_lanes checks it
 *     is injective on the warp);
 *   - the predicate of elect.sync;
 *   - p && q with p or q one-lane, !q with q "all-but-one-lane" (TT⁻:
 *     setp.ne of the same kind, p || q with p or q all-but-one).
 * An instruction runs on at most one lane when its guard is one-lane, or
 * when a block dominating it is entered only through a branch edge taken
 * when a one-lane predicate holds: every thread that reaches it came in
 * through that edge, in the same warp-wide execution of the branch. */
#ifndef PTXRAY_SINGLE_THREAD_H
#define PTXRAY_SINGLE_THREAD_H
#include <stdbool.h>
#include "divergence.h"
#include "warp_lanes.h"

enum st_class { ST_OTHER, ST_ONE, ST_ALL_BUT_ONE };

typedef struct st_regions {
    const prog_func *pf;
    const div_result *r;
    warp_shape shape;
    uint32_t *why; /* per block: the block whose branch lets at most one lane in, or CFG_NONE */
} st_regions;

st_regions *st_build(const prog_func *pf, const div_result *r, const warp_shape *sh, arena *a);

/* What predicate value v is (its negation when neg). */
enum st_class st_pred_class(const st_regions *s, uint32_t v, bool neg);

/* Whether at most one lane executes the instruction at stmt; *why_stmt: the
 * statement whose predicate says so (the branch, or stmt itself when it is
 * its guard). */
bool st_single(const st_regions *s, uint32_t stmt, uint32_t *why_stmt);

#endif
