/* Lane-exact evaluation of addresses that are not affine in the thread
 * coordinates (docs/coalescing.md, "Lane-exact evaluation").
 *
 * The affine analysis gives up (⊥) on integer operations such as x & 7,
 * x / 8, x % 64, nvcc's signed-division idiom (shr.s32 31; shr.u32; add;
 * shr.s32) or `or` bit tricks.  When such an operation applies to a value
 * whose lanes are known exactly up to a warp-uniform unknown, it can often
 * still be evaluated lane by lane, for every warp of the block.
 *
 * A value is evaluated per warp as, in each lane l,
 *
 *     U[sym[l]] + v[l] + [0, wid]
 *
 * where U[s] is a warp-uniform unknown (s = 0: none, the value is a known
 * function of the lane) of which only a residue modulo 2^k is known, v[l]
 * is known, and wid is the width of the dataflow's interval (warp_form.h
 * wid; 0: exact).  Lanes with the same symbol differ by exactly v[l'] -
 * v[l].  The rules keep this
 * sound for every value of the unknowns.  Each rule is warp_form.c's (the
 * arithmetic, the carry-free split, the known bits of U), applied to one
 * group of lanes at a time, the lanes where each operand keeps one symbol:
 * the group's exact part is a warp form U' + g(l), U' = U[s] + lo[l0].
 * Symbols are the dataflow's (warp_form.h sym: U = ±U_s1 ± U_s2 + off
 * over its roots): a leaf's is its form's, and add, sub and a scale by -1
 * combine them by the dataflow's own rule (wf_sym_sum), so U - U cancels
 * here exactly where it cancels there, and values the dataflow relates
 * share a symbol here.  Where
 * the evaluation of a value fails, its dataflow interval is a leaf (x & 7
 * of a loaded x, x % 10): only warp_form.c's interval rules (wf_iv_addsub,
 * wf_iv_scale, wf_meet) combine it with what is evaluated here, the lanes
 * of a warp the form does not know (a shape whose warps differ).
 * What is decided here is only what the form has no notion of:
 *
 *  - lane groups, where lanes of one value hold different unknowns: add
 *    and sub group by group (the terms by wf_sym_sum; an unknown derived
 *    here, lv_derive, where they do not fit: a root twice, three roots),
 *    a product of a uniform unknown and exact lanes one new unknown per
 *    distinct lane value (the lanes fall into groups, as for a symbolic
 *    stride), the bit rules keep the symbol when they change only its
 *    known bits;
 *  - a selp or mu of two intervals needs the widths equal (the form's meet
 *    would take the larger);
 *  - signs (lane_nonneg): the dataflow's, kept for divergent values too
 *    (affine_rules.c, wf_sign);
 *  - truncation: exact U-free lanes take the ISA's value, others keep it
 *    (no wraparound, docs/coalescing.md "Truncation").
 *
 * When up to 3 more bits of a leaf's residue would make an operation
 * exact (c % 64 with c = tid.x, known only modulo 32), the warp is
 * evaluated once per value of those bits, each case a warp of its own
 * (replacing an interval only when every case is exact).
 *
 * Anything else (a load at a lane-varying address, a shift by a register,
 * ...) fails. */
#ifndef PTXRAY_LANE_EVAL_H
#define PTXRAY_LANE_EVAL_H
#include "addr_chain.h"
#include "warp_lanes.h"

enum le_status {
    LE_FAIL,  /* not evaluated */
    LE_EXACT, /* every lane's offset from lane 0 exact, one symbol: wl status WL_EXACT */
    LE_GROUPS,/* exact within groups of lanes that share a symbol: WL_SYMBOLIC */
    LE_RANGE, /* one symbol, lanes within known intervals (the dataflow's, warp_form.h wid) */
};

typedef struct le_warp {
    uint32_t nlanes;
    int64_t lo[WL_LANES], hi[WL_LANES];
    uint64_t sym[WL_LANES]; /* lane_value.h lsym */
    residue base; /* what is known of U[sym[0]] (exact 0 when sym[0] is 0) */
} le_warp;

typedef struct le_result {
    uint8_t status; /* le_status */
    uint32_t nwarps;
    le_warp warp[WL_MAXWARPS];
} le_result;

/* Evaluates value v (an address or an index) over the warps of the chain's
 * block shape.  Exact and group results are also written to w as
 * warp_lanes would (offsets from lane 0, groups, lane 0's residue). */
enum le_status lane_eval(const addr_chain *c, uint32_t v, le_result *out, wl_result *w);

/* Value v in each of the n threads of a block of the chain's shape (a
 * known one), x[t] for linear thread id t, when every lane of every warp
 * is known with no unknown at all: the polynomial's leaves taken with each
 * warp's own thread indices (lane 0's too), where the dataflow keeps one
 * unknown U for every warp (tid.x & -32, tid.x / 128).  False otherwise. */
bool lane_eval_threads(const addr_chain *c, uint32_t v, int64_t *x, uint32_t n);

/* Whether integer value v is provably >= 0, read as a signed number of
 * its width, in every thread: the dataflow's sign bit (warp_form.h nn,
 * affine_rules.c wf_sign). */
bool lane_nonneg(const addr_chain *c, uint32_t v);

#endif
