/* Spill everywhere: every instruction that reads a spilled register gets a
 * reload (or rematerialisation) into a fresh register before it, every one
 * that writes it a store after it (with its guard), and the instruction
 * itself names the fresh register instead.  A shared slot's address is
 * computed where it is accessed (no register holds it through the kernel),
 * and a store under the synchronised rule is preceded by bar.warp.sync on
 * the warp's launched lanes (docs/regalloc.md). */
#ifndef PTXRAY_RA_SPILL_REWRITE_H
#define PTXRAY_RA_SPILL_REWRITE_H
#include "regalloc.h"
#include "ir_edit.h"
#include "spill_place.h"

typedef struct ra_rewrite_in {
    const ra_live *L;        /* of the function as it is before the rewrite */
    const ra_spill *sp;
    uint32_t local_bytes;    /* per thread */
    uint32_t slot_bytes;     /* per warp (0: no shared slot) */
    bool one_dim;            /* %tid.y and %tid.z are 0 */
    uint32_t shape[3];       /* the block's exact shape (--block, .reqntid), else zeros */
    bool strong;             /* slot accesses .relaxed.cta (sm_70+, PTX 6.0+), else .volatile */
    bool full_warps;         /* every warp of a block is full (.reqntid): the barrier's mask is 0xffffffff */
    bool sites;              /* record the spill code in fs->sites (ra_options.sites) */
    bool keep_parsed;        /* rename in the rewrite's copies of the instructions (ra_options.keep_parsed) */
} ra_rewrite_in;

/* Rewrites fn (a function of m) in place and counts what it inserted. */
/* The spill code of fn, as an edit to commit (ra_edit_commit_all: the
 * module's edits are committed together, after every function's). */
ra_edit *ra_rewrite(ra_shapes *sh, ptx_func *fn, const ra_rewrite_in *in, ra_func_stats *fs);

#endif
