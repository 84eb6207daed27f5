/* Dynamic check of the divergence analyses (`ptxray run --check-divergence`,
 * docs/emulator.md): an emulator observer that compares what an analysis
 * claims about every value and branch with what the lanes of each warp
 * really hold.
 *
 *   - a value the analysis calls uniform holds the same bits in every lane
 *     of the executing path (for a guarded definition the lanes whose guard
 *     is false keep the old value, which is part of the definition);
 *   - a value whose non-constant affine coefficients are all known is
 *     value - Σ c_i·m_i(lane) (mod 2^width) the same in every lane, and equal
 *     to c0 when the constant is known too;
 *   - a branch the analysis calls uniform sees the same guard (brx.idx:
 *     index) in every lane of the path;
 *   - phi and eta values (not on landing blocks) are checked like values
 *     when a path enters the block.
 *
 * Uses only the observer interface of emu.h, so the emulator core does not
 * depend on the analyses. */
#ifndef PTXRAY_DIVCHECK_H
#define PTXRAY_DIVCHECK_H
#include <stdio.h>
#include "divergence.h"
#include "emu.h"

typedef struct divcheck divcheck;

/* Builds CFG, SSA and GSA for every function of m, for analysis an.  NULL
 * with errors in d when a function's CFG cannot be built.  m must outlive
 * the checker. */
divcheck *divcheck_new(const ptx_module *m, enum div_analysis an, ptx_diags *d);
void divcheck_free(divcheck *c);

/* Prepares for a launch with this block shape: runs the analysis on every
 * function (again only if the shape differs from the last call, so claims a
 * test planted survive; with DIVCHECK_SHAPE_ASSUMED only the first time)
 * and forgets earlier findings. */
void divcheck_begin(divcheck *c, emu_dim3 block);

/* Where the analysis takes the block shape from. */
enum divcheck_shape {
    /* Each launch's shape, as `--block` gives it (div_options.block): the
     * verdicts are exact for that shape.  The default. */
    DIVCHECK_SHAPE_LAUNCH,
    /* None (a kernel's .reqntid still counts): the analysis runs once, on
     * its default assumption (docs/divergence.md, "Block shape"), whatever
     * the launch.  A value's or branch's claim is checked at a launch only
     * when the assumptions it rests on (div_result.cond, div_branch_cond)
     * hold for the launch's shape (div_cond_holds); otherwise it is
     * counted as skipped (divcheck_totals). */
    DIVCHECK_SHAPE_ASSUMED,
};
/* Sets where the shape comes from; takes effect at the next
 * divcheck_begin, which analyses again. */
void divcheck_set_shape(divcheck *c, enum divcheck_shape s);

/* The observer for emu_options.observer; lives as long as c. */
const emu_observer *divcheck_observer(divcheck *c);

/* The result the checker holds for function `name` (NULL when it has no
 * body), valid until a divcheck_begin with another shape.  Tests edit it to
 * plant wrong claims. */
div_result *divcheck_result(divcheck *c, const char *name);

/* DIVCHECK_SPLIT: a branch claimed divergent (div_branch_split_warps: the
 * warp splits whenever it runs the branch with all its threads) that a
 * warp ran whole with one condition in every lane. */
enum divcheck_kind { DIVCHECK_VALUE, DIVCHECK_PHI, DIVCHECK_ETA, DIVCHECK_BRANCH, DIVCHECK_SPLIT };

/* One violated claim, with the first warp-instruction that violated it. */
typedef struct divcheck_violation {
    enum divcheck_kind kind;
    const ptx_func *fn;
    uint32_t stmt;       /* where it was checked: the definition, the block's
                          * first instruction (phi, eta) or the branch */
    uint32_t value;      /* SSA value (branch: its gate) */
    uint32_t block;      /* CFG block: of the phi/eta, or ending in the branch */
    uint64_t count;      /* warp-instructions that violated it */
    emu_dim3 cta;        /* first occurrence: block, warp, lanes */
    uint32_t warp;
    unsigned lane_a, lane_b;
    uint64_t held_a, held_b;
    /* what the claim wanted: lane_b's value (constant known) or the
     * difference held_b - held_a (affine, constant unknown) */
    bool has_expected, expected_is_diff;
    uint64_t expected;
} divcheck_violation;

typedef struct divcheck_totals {
    uint64_t values, phis, branches; /* claims checked, per warp-instruction */
    uint64_t splits;                 /* divergent-branch claims checked: warps that ran one whole */
    uint64_t violated;               /* distinct claims violated */
    uint64_t occurrences;            /* warp-instructions that violated one */
    /* DIVCHECK_SHAPE_ASSUMED: claims not checked, per warp-instruction,
     * because an assumption they rest on fails at the launch's shape */
    uint64_t skipped_values, skipped_phis, skipped_branches, skipped_splits;
    /* claims violated, per warp-instruction, in a warp whose operands
     * wrapped around at an instruction the claim depends on and whose rule
     * assumes they do not (docs/divergence.md): not counted as violated */
    uint64_t wrapped;
} divcheck_totals;

void divcheck_get_totals(const divcheck *c, divcheck_totals *t);
/* Violated claims in report order: PTX position, then phis and etas before
 * the value defined at the same instruction, then SSA value. */
uint32_t divcheck_nviolations(const divcheck *c);
const divcheck_violation *divcheck_get_violation(const divcheck *c, uint32_t i);
/* "%r5.3 claimed uniform (analysis affine) but warp 0 of block (0,0,0)
 * lanes 0 and 1 hold 0x0 and 0x1" into buf.  A claim that rests on an
 * assumption names it: "(analysis affine, assuming blockDim.x is a
 * multiple of 32)". */
const char *divcheck_message(const divcheck *c, uint32_t i, char *buf, size_t n);

/* Report after a launch: a summary line, then one "path:line:col:
 * divergence claim violated: ..." line per violated claim (at most max),
 * then how many more there are.  With DIVCHECK_SHAPE_ASSUMED the summary
 * says so and counts the skipped claims (JSON: "shape": "assumed",
 * "skipped"). */
void divcheck_report_text(const divcheck *c, const char *path, unsigned max, FILE *out);
/* The same as a jansson object (json_t *, declared void * so this header
 * needs no jansson.h), every violation listed; the caller decrefs it. */
void *divcheck_report_json(const divcheck *c, const char *path);

#endif
