/* Uncoalesced global accesses and shared-memory bank conflicts (issue 5):
 * the model behind `ptxray coalescing`, docs/coalescing.md.
 *
 * For every global access (ld, st, atom, red, cp.async, prefetch in .global,
 * or generic through a pointer that provably points there) and every shared
 * ld, st, atom and red of each function, the warp's access is modelled from
 * the address's polynomial in the thread coordinates (the affine analysis of
 * degree 2, with its warp forms): 32 lanes with consecutive linear
 * thread ids, 32-byte sectors and 128-byte lines.  The result says how the
 * lanes' addresses are laid out (pattern, stride), how many sectors a fully
 * active warp touches against the fewest its bytes could fit in, whether
 * a constant offset breaks the alignment, whether at most one lane runs it
 * (then it is never uncoalesced), and for shared memory the bank conflict
 * degree (atomics: lanes on one word serialise), as a function of the
 * stride's power-of-two factor when the stride is a named unknown.  An
 * uncoalesced access gets the remapping hint that the same sector model
 * predicts to be an improvement, with its predicted sectors.  Reports
 * (cli/coalescing_report.c) and later commands read these structures;
 * nothing here prints. */
#ifndef PTXRAY_COALESCING_H
#define PTXRAY_COALESCING_H
#include <stdbool.h>
#include "addr_chain.h"
#include "bank_conflicts.h"
#include "block_opt.h"

#define COAL_SECTOR 32
#define COAL_LINE 128

typedef struct coal_options {
    const char *only; /* analyse only this function (NULL: all with a body) */
    /* The shapes: each function is analysed at the one blk_resolve gives
     * it (block_opt.h: --block KERNEL=, --block, the project file,
     * .reqntid, a host-code launch, else the default), and its origin is
     * that one's.  NULL: .reqntid, else the default. */
    const blk_opts *blocks;
    /* The facts stated about fn's parameters (addr_chain.h): true with
     * out filled (out->n may be 0).  NULL: none.  A function with facts is
     * analysed twice, without them and with them, and every access whose
     * verdict they changed says so (coal_access.assumed). */
    bool (*facts_of)(const void *ctx, const ptx_func *fn, param_facts *out);
    const void *facts_ctx;
} coal_options;

enum coal_kind { COAL_LOAD, COAL_STORE, COAL_ATOMIC };
enum coal_space { COAL_GLOBAL, COAL_SHARED };
enum coal_pattern {
    COAL_P_UNIFORM,   /* every lane the same address */
    COAL_P_UNIT,      /* consecutive lanes, consecutive elements */
    COAL_P_STRIDE,    /* a constant stride other than the element size */
    COAL_P_PIECEWISE, /* offsets known exactly but no single stride (2-D blocks) */
    COAL_P_SYMBOLIC,  /* a stride the analysis cannot evaluate (tid.x·N) */
    COAL_P_IRREGULAR, /* not affine in the thread index: data-dependent, ... */
    COAL_P_SINGLE,    /* at most one lane executes it */
    COAL_P_BOUNDED,   /* lanes known only to lie within a window (x & 28, x % 6): lane_eval.h */
};

/* A remapping of the threads to the work that the report suggests for an
 * uncoalesced global access, with its cost predicted by the same sector
 * model (a warp of 32 lanes, the access's bytes per lane, lane 0 on a
 * 128-byte boundary).  Only a remapping whose predicted sectors are
 * strictly fewer than the access's (coal_current_sectors) is kept. */
enum coal_hint_kind {
    COAL_HINT_NONE,
    COAL_HINT_SWAP_XY,       /* swap the roles of tid.x and tid.y: lanes dim_stride[tid.y] apart */
    COAL_HINT_LOOP_TO_LANES, /* give the loop's iterations to neighbouring threads: lanes step apart (GPUDrano) */
};

/* What makes the worst alignment worse than the assumed one. */
enum coal_align {
    COAL_ALIGN_NONE,
    COAL_ALIGN_LANE0, /* lane 0's address, known only modulo base.k < 5 bits */
    COAL_ALIGN_ROWS,  /* where each group of lanes starts: their distance not known modulo 32 B */
};

/* Classes of a symbolic shared stride S by its trailing zero bits: class
 * t < 7 is S = 2^t · odd, class 7 is S a multiple of 128 (0 included). */
#define COAL_TZ_CLASSES 8

typedef struct coal_access {
    uint32_t stmt;           /* in pf->fn->stmts */
    const ptx_inst *in;
    uint8_t kind, space, pattern;
    uint8_t prov;            /* how the space is known: addr_prov (AP_GLOBAL/AP_SHARED: explicit or cvta) */
    bool explicit_space;     /* .global / .shared written on the instruction */
    bool prefetch;
    uint32_t bytes;          /* per lane (0 for prefetches: they fetch the line) */
    uint32_t vec, elem_bytes;
    uint32_t addr_value;     /* SSA value of the address register, or SSA_NONE */
    aff poly;                /* the address, bytes */
    bool has_stride;
    int64_t stride;          /* between consecutive lanes, bytes */
    uint8_t dim_known;       /* bit d (DIV_C_X..DIV_C_LANE): dim_stride[d] is known */
    int64_t dim_stride[5];   /* the address's coefficient on tid.x, tid.y, tid.z, laneid */
    int32_t sectors;         /* per request of a full warp, lane 0 aligned as far as known; -1 unknown */
    /* An upper bound over everything the PTX does not fix: lane 0's
     * address modulo 32 where only its low bits are known, and where the
     * lanes fall in groups an unknown distance apart (the rows of a block
     * narrower than a warp, a row pitch from a parameter), where each
     * group starts.  Never below what a launch measures (make
     * coalescing-compare); above sectors when the alignment matters. */
    int32_t sectors_max;
    /* The fewest over those alignments: sectors_max of the best case
     * (-1 unknown).  sectors_asm: the bound with every unknown alignment
     * taken as aligned (= sectors when that is exact). */
    int32_t sectors_lo, sectors_asm;
    uint8_t align_dep;       /* coal_align: what sectors_max > sectors_asm depends on */
    residue align_base;      /* lane 0's residue in the warp whose worst alignment is sectors_max */
    int32_t lines;           /* 128-byte lines; -1 unknown */
    uint32_t ideal;          /* the fewest sectors the bytes touched fit in */
    residue base;            /* lane 0's address modulo 2^k (worst warp) */
    bool misaligned;
    int32_t sectors_aligned; /* sectors if lane 0 were on a 128-byte boundary */
    int32_t lines_aligned;
    bool uncoalesced;
    uint32_t worst_warp, nwarps;
    bool sym_named;          /* symbolic: coefficient = sym_k · sym_value on monomial sym_mono */
    int64_t sym_k;
    uint32_t sym_value;
    unsigned sym_mono;
    uint32_t why_stmt;       /* single-thread: the predicate's branch or guard; irregular: the load; else UINT32_MAX */
    bool has_step;           /* the address is a loop's induction pointer */
    int64_t step;
    uint32_t step_stmt;
    int32_t swap_xy_sectors; /* what-if tid.x and tid.y swapped roles; -1 not evaluated */
    int32_t loop_sectors;    /* what-if the loop's iterations went to neighbouring lanes (lanes step apart); -1 not evaluated */
    uint8_t hint_kind;       /* coal_hint_kind: the best remapping that is an improvement, or NONE */
    int32_t hint_sectors;    /* its predicted sectors per request, < coal_current_sectors; -1 with NONE */
    int32_t bank_degree;     /* shared: n-way conflict; -1 unknown (or conditional: bank_cond) */
    int32_t bank_degree_max; /* shared: the worst case (= bank_degree when known); -1 unknown */
    int32_t wavefronts, ideal_wavefronts; /* wavefronts -1 when the degree is not known exactly */
    bool bank_serialised;    /* atomic: lanes on one word add to the degree (no broadcast for atomics) */
    /* shared, symbolic stride sym_k·S (sym_named): the degree depends on S;
     * bank_by_tz[t] is the worst degree over the S of class t
     * (COAL_TZ_CLASSES), bank_degree_max the largest of them */
    bool bank_cond;
    uint8_t bank_by_tz[COAL_TZ_CLASSES];
    bool lane_eval;          /* the offsets come from lane-exact evaluation (lane_eval.h), not the affine polynomial */
    uint32_t ngroups;        /* symbolic: groups of lanes in the worst warp */
    int64_t window;          /* bounded: bytes from the lowest to the end of the highest possible access */
    /* Bit j: the function's fact j (coal_func.facts) changed this access's
     * verdict (coal_verdict_of) from what it is without the facts; was: 1 +
     * the rule of that verdict (coal_vrule) when it was a finding, else 0
     * (a finding the facts cleared: assumed set, no finding now). */
    uint32_t assumed;
    uint8_t was;
} coal_access;

typedef struct coal_func {
    const prog_func *pf;
    const div_result *r;
    const addr_chain *chain;
    warp_shape shape;
    uint8_t origin;           /* blk_origin: where shape comes from */
    uint32_t nacc;
    coal_access *acc;         /* in statement order */
    uint32_t generic_unknown; /* generic accesses whose space is not proven */
    const param_facts *facts; /* the facts stated about its parameters (NULL: none) */
} coal_func;

typedef struct coal_result {
    const ptx_module *m;
    const prog *p;
    uint32_t nfuncs;
    coal_func *f;
} coal_result;

/* Analyses every function of p (built at PROG_GSA).  Memory from a. */
coal_result *coal_analyse(const ptx_module *m, const prog *p, const coal_options *o, arena *a);

const char *coal_pattern_name(enum coal_pattern p); /* "unit_stride", ... */
const char *coal_kind_name(enum coal_kind k);       /* "load", "store", "atomic" */
const char *coal_hint_kind_name(enum coal_hint_kind k); /* "swap_xy", "loop_to_lanes"; NULL for NONE */

/* The sectors a hint is measured against: the exact count, else the bound. */
static inline int32_t coal_current_sectors(const coal_access *x)
{
    return x->sectors >= 0 ? x->sectors : x->sectors_max;
}

/* A finding: an uncoalesced global access, or a shared access with a bank
 * conflict. */
static inline bool coal_is_finding(const coal_access *x)
{
    return x->space == COAL_GLOBAL ? x->uncoalesced || x->misaligned : x->bank_degree_max > 1;
}

/* A shared access whose bank conflicts could not be analysed (an address
 * that is not exact within the warp, and not a named symbolic stride):
 * reported as a note, never dropped. */
static inline bool coal_bank_unknown(const coal_access *x)
{
    return x->space == COAL_SHARED && x->bank_degree < 0 && !x->bank_cond;
}

/* The finding's rule: "uncoalesced", "misaligned" (the access would be
 * coalesced if aligned), "bank-conflict". */
const char *coal_rule(const coal_access *x);

/* ---- the verdict ------------------------------------------------------------
 * One decision per access, which every view reports (coalescing, check,
 * analyze, the HTML page, the nvcc wrapper's warnings): whether it is a
 * finding, its rule, whether the model proves it for every launch at the
 * shape or it depends on something the PTX does not fix (and on what), and
 * its excess.  Reports only put it into words. */
enum coal_vrule { COAL_V_UNCOALESCED, COAL_V_MISALIGNED, COAL_V_BANK_CONFLICT };
enum coal_certainty { COAL_PROVEN, COAL_POSSIBLE };
enum coal_dep {
    COAL_DEP_NONE,        /* proven */
    COAL_DEP_ALIGN,       /* lane 0's alignment, known only modulo 2^base.k */
    COAL_DEP_ROWS,        /* where each group of lanes (a row) starts */
    COAL_DEP_SYM_STRIDE,  /* the value of sym_value (the lanes' stride is a multiple of it) */
    COAL_DEP_GROUPS,      /* the unknown distance between groups of lanes (lane_eval) */
    COAL_DEP_LOADED_STRIDE, /* a value loaded at why_stmt (the stride) */
    COAL_DEP_STRIDE,      /* an unknown stride */
    COAL_DEP_LOADED_ADDR, /* a value loaded at why_stmt (the lanes' addresses) */
    COAL_DEP_ADDR,        /* the lanes' addresses (not affine in the thread index) */
    COAL_DEP_WINDOW,      /* where the lanes fall in their window */
    COAL_DEP_LANES,       /* the lanes' addresses */
    COAL_DEP_BANK_STRIDE, /* shared: the value of sym_value */
};
typedef struct coal_verdict {
    uint8_t rule;      /* coal_vrule */
    uint8_t certainty; /* coal_certainty */
    uint8_t dep;       /* coal_dep: COAL_DEP_NONE when proven */
    uint32_t excess;   /* excess sectors (global) or wavefronts/ways (shared) per request, at least 1 */
    bool by_alignment; /* global: no finding at the assumed alignment, only at a worse one the PTX allows */
    int32_t sectors;   /* global: the sectors per request the report states (the bound when not exact) */
    uint32_t ideal;
} coal_verdict;

/* False when x is no finding; else its verdict. */
bool coal_verdict_of(const coal_access *x, coal_verdict *v);
const char *coal_vrule_name(enum coal_vrule r); /* "uncoalesced", "misaligned", "bank-conflict" */

#endif
