/* Divergence-aware register allocation as a post-pass on PTX (Sampaio et
 * al. 2013, section 4; docs/regalloc.md).
 *
 * PTX registers are virtual, so the pass does not rename anything: it
 * decides, with a linear scan over the linearised CFG and a budget of K
 * 32-bit register units, which registers must live in memory, and rewrites
 * every definition and use of those into spill code (spill everywhere).
 * The rewritten module is still PTX that ptxas assembles and the emulator
 * runs.  Where a spilled value goes depends on the mode:
 *
 *   linear  every spilled value to a per-thread .local slot;
 *   div     values the simple divergence analysis proves uniform to a
 *           per-warp .shared slot (Fig. 18, rule ii), the rest to .local
 *           (the paper's DivRA);
 *   aff     the affine analysis of degree 1 with all four rules of Fig. 18:
 *           constants and affine functions of the thread coordinates are
 *           rematerialised (i, iii), uniform values and the uniform part of
 *           affine ones go to the warp's .shared slot (ii, iv) (AffRA).
 *
 * A .shared slot is only used for a value that every thread writes at
 * most once (the sm_70+ rule, docs/regalloc.md); the others go to .local. */
#ifndef PTXRAY_REGALLOC_H
#define PTXRAY_REGALLOC_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "block_opt.h"
#include "program.h"
#include "ptx.h"

enum ra_mode { RA_MODE_LINEAR, RA_MODE_DIV, RA_MODE_AFF };

/* Where a spilled register lives: rule (ii) RA_P_SHARED, (i) RA_P_CONST,
 * (iii) RA_P_AFFINE, (iv) RA_P_SHARED_AFFINE. */
enum ra_place {
    RA_P_NONE, /* kept in a register */
    RA_P_LOCAL,
    RA_P_SHARED,
    RA_P_CONST,
    RA_P_AFFINE,
    RA_P_SHARED_AFFINE,
    RA_P__COUNT
};

/* Why a value that is uniform or affine was still placed in .local. */
enum ra_why {
    RA_WHY_NONE,
    RA_WHY_MODE,      /* linear mode, or the mode's analysis cannot use it */
    RA_WHY_FUNC,      /* a .func: its body may run many times per thread */
    RA_WHY_MULTI_DEF, /* more than one definition, or a use that may read another value */
    RA_WHY_LOOP,      /* defined inside a loop: written once per iteration */
    RA_WHY_PARTIAL,   /* a guarded or partial definition */
    RA_WHY_UNSTABLE,  /* depends on a value lanes may read at different times (volatile load, activemask, ...) */
    RA_WHY_TYPE,      /* rule (iv) on a register that is not a 32/64-bit integer */
    RA_WHY_SMEM,      /* the shared spill area would pass --smem-limit */
    RA_WHY_SPLIT,     /* written more than once, and once where the lanes of a warp may be split */
    RA_WHY_ROOM,      /* its spill code's registers would pass the budget where the scan had already been */
    RA_WHY__COUNT
};

typedef struct ra_options {
    unsigned budget;       /* K, in 32-bit register units (.pred not counted) */
    enum ra_mode mode;
    const char *only;      /* allocate only this function (NULL: every function with a body) */
    uint32_t max_threads;  /* threads per block when the kernel has no .reqntid/.maxntid (0: 1024) */
    uint32_t smem_limit;   /* static shared bytes per block the pass may reach (0: 48 KiB) */
    /* For tests only: give uniform values a shared slot without the sm_70+
     * rule (the paper's allocator).  Wrong under divergence: the tests show
     * the emulator catching it. */
    bool unsafe_shared_reuse;
    /* Spill only what the aff/div rules keep out of .local (shared slots,
     * rematerialisation): registers that would go to .local are never
     * chosen by the scan and stay in registers.  For --target-regs, where
     * ptxas's own allocator does the rest (docs/regalloc.md). */
    bool only_nonlocal;
    /* Measure pressure_after/pred_after again by liveness on the rewritten
     * code (a second CFG and liveness per function that spilled).  Off:
     * they are RA_NOT_MEASURED where something was spilled.  The summary
     * of `ptxray regalloc` and the tests ask for it; the benchmark and the
     * nvcc/--target-regs paths do not. */
    bool measure_after;
    /* Record each piece of spill code in ra_func_stats.sites (the HTML
     * page marks the source lines it lands on, docs/html.md). */
    bool sites;
    /* Rename registers in copies of the instructions (ra_edit_own), so
     * that the caller can put each function's statement pointers,
     * registers and counts back as parsed (the HTML page, which shows the
     * PTX as written; renaming in place costs fewer instructions). */
    bool keep_parsed;
    /* The module's program (ssa/program.h), built to PROG_SSA or beyond for
     * the functions the run rewrites (o->only's, or all), used instead of
     * building one: the pipeline's on the HTML page, or one built once for
     * runs undone one after the other (ra_undo: spillcost, --target-regs).
     * A run adds only what it builds lazily (a function's GSA); NULL: the
     * run builds and frees its own. */
    prog *prog;
    /* The shapes (block_opt.h): each function's is the one blk_resolve
     * gives it, as for every analysis; NULL: .reqntid, else the default
     * assumption. */
    const blk_opts *blocks;
    /* fn's own budget instead of budget (--target-regs searches each
     * function's); 0: fn is left as it is.  NULL: budget for all. */
    unsigned (*budget_of)(const void *ctx, const ptx_func *fn);
    const void *budget_ctx;
} ra_options;

#define RA_NOT_MEASURED UINT32_MAX

/* One piece of spill code the rewrite inserted (ra_options.sites): a
 * reload or rematerialisation before statement stmt, or a store after it.
 * stmt and reg index the function as it was before the rewrite, so they
 * name the same statement and register in another parse of the same
 * text. */
enum ra_site_kind { RA_SITE_LOAD, RA_SITE_STORE, RA_SITE_REMAT };
typedef struct ra_site {
    uint32_t stmt;
    uint32_t reg;    /* the spilled register */
    uint64_t weight; /* 10^loop depth, capped at 3: as the _w counts */
    uint8_t kind;    /* ra_site_kind */
    uint8_t place;   /* ra_place: where the value lives (a load from RA_P_SHARED_AFFINE also rebuilds its affine part) */
    uint8_t bits;    /* the register's width */
} ra_site;

/* What the pass did to one function (the spill-cost tools build on it). */
typedef struct ra_func_stats {
    char name[128];
    uint32_t func;            /* index of the function in the module's funcs */
    bool is_entry;
    /* register pressure, max over instructions, in 32-bit units (gpr) and
     * predicates, before and after the rewrite (after: measured again by
     * liveness on the rewritten code; RA_NOT_MEASURED when spilling and
     * ra_options.measure_after was off) */
    uint32_t pressure_before, pred_before, pressure_after, pred_after;
    uint32_t budget_used;     /* the budget the scan had (K: the spill code's own registers are counted where it runs) */
    uint32_t over_budget;     /* instructions whose own operands and unspillable values exceed the budget */
    uint32_t spilled;         /* registers spilled */
    uint32_t by_state[3];     /* ... by div_state (uniform, divergent, affine) */
    uint32_t by_place[RA_P__COUNT];
    uint32_t why_local[RA_WHY__COUNT]; /* uniform/affine values placed in .local, and why */
    uint32_t loads_local, loads_shared, stores_local, stores_shared;
    uint32_t remat;           /* uses rebuilt without memory (rules i, iii) */
    uint32_t remat_shared;    /* uses rebuilt from a shared slot and the thread coordinates (rule iv) */
    uint32_t local_bytes;     /* per thread */
    uint32_t shared_slot_bytes;  /* per warp */
    uint32_t warps;              /* warps per block the shared area is sized for */
    uint32_t shared_bytes;       /* spill area per block: warps x slot bytes */
    uint32_t static_shared;      /* the kernel's own static .shared bytes (0 when no value went to .shared: not looked up) */
    /* The spill loads, stores and rematerialisations above, each weighted
     * by 10^d where d is the loop depth (cfg loops[].depth) of the block of
     * the instruction being rewritten, capped at 3: a static estimate of
     * how often the spill code runs (ptxray spillcost, docs/spillcost.md). */
    uint64_t loads_local_w, stores_local_w, loads_shared_w, stores_shared_w;
    uint64_t remat_w;            /* remat and remat_shared together */
    uint32_t remat_const;        /* of remat, the uses rebuilt as a constant (rule i; the rest are rule iii) */
    uint32_t sync_slots;         /* shared slots under the synchronised rule (values written more than once) */
    uint32_t barriers;           /* bar.warp.sync inserted before their stores */
    uint64_t barriers_w;         /* ... weighted like the spill code */
    ra_site *sites;              /* with ra_options.sites, in rewrite order (malloc'd; ra_stats_free) */
    uint32_t nsites;
    /* loads_local_w + stores_local_w by why the value is in .local:
     * [RA_WHY_NONE] holds the divergent values (no slot can hold a
     * per-thread value), the others the uniform and affine ones by
     * ra_why (spillcost's breakdown, docs/spillcost.md) */
    uint64_t local_w_why[RA_WHY__COUNT];
} ra_func_stats;

typedef struct ra_stats {
    enum ra_mode mode;
    unsigned budget;
    uint32_t nfuncs;
    ra_func_stats *funcs; /* malloc'd; ra_stats_free */
} ra_stats;

void ra_stats_free(ra_stats *s);

/* Allocates every function with a body (or o->only) of m and rewrites it
 * in place (new nodes in m's arena).  Returns 0, or -1 with errors in d
 * when a function's CFG cannot be built (m is then unchanged).  Notes
 * about the shared area falling back to .local go to d as warnings. */
int ra_run(ptx_module *m, const ra_options *o, ra_stats *st, ptx_diags *d);

/* Several runs on one parse (spillcost's modes and budgets, --target-regs'
 * candidates, the HTML page's spill code): saved before a run with
 * ra_options.keep_parsed, put back after it.  Such a run adds statements
 * and registers in arrays of its own, made in m's arena with everything
 * else it makes there, and renames registers only in its own copies of
 * the instructions (ra_edit_own), which take their places in the old
 * statement arrays.  Putting back each function's statement pointers,
 * registers and counts, and m's arena as it was, leaves m as parsed: it
 * prints the same, and nothing the run made stays (its ra_stats are on
 * the heap and name statements and registers by index). */
typedef struct ra_undo ra_undo;
ra_undo *ra_undo_save(const ptx_module *m);
/* m as it was when u was saved; frees u. */
void ra_undo_apply(ptx_module *m, ra_undo *u);

const char *ra_mode_name(enum ra_mode m);      /* "linear", "div", "aff" */
const char *ra_place_name(enum ra_place p);    /* "local", "shared", "const", "affine", "shared-affine" */
const char *ra_why_name(enum ra_why w);

/* The summary `ptxray regalloc` prints on stderr. */
void ra_stats_print(FILE *out, const char *path, const ra_stats *s);

#endif
