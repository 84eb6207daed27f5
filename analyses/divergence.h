/* Simple divergence analysis (Sampaio et al. 2013, section 3.3, Fig. 10)
 * on gated SSA, extended with the divergence sources and uniform facts of
 * real PTX (docs/divergence.md).  A value is uniform when every active
 * thread of a warp sees the same value; the analysis starts from the
 * sources of divergence and marks everything that depends on them, through
 * data (operands, a partial definition's old value) and through control
 * (the gates of gamma, mu and eta functions: rules GAMD, ETAD, PDVD). */
#ifndef PTXRAY_DIVERGENCE_H
#define PTXRAY_DIVERGENCE_H
#include "program.h"
#include "u32vec.h"
#include "warp_form.h"
#include <string.h>

/* What a value is across the active threads of a warp.  DIV_AFFINE: an
 * affine function of the thread coordinates (only the affine analyses say
 * so; the simple one calls such values divergent). */
enum div_state { DIV_UNIFORM = 0, DIV_DIVERGENT = 1, DIV_AFFINE = 2 };

/* Which analysis: the simple one (section 3.3), or affine constraints of
 * degree 1 (section 3.4, Fig. 12/13) or 2 (Theorem 3.5, Fig. 15). */
enum div_analysis { DIV_AN_SIMPLE, DIV_AN_AFFINE, DIV_AN_AFFINE2 };

/* Coefficients of the affine domain: a value is
 *     c0 + cx*tid.x + cy*tid.y + cz*tid.z + cl*laneid  (+ the quadratic
 *     monomials with degree 2),
 * each coefficient an integer the same for every active thread of the
 * warp, or unknown (the paper's ⊥).  Index 0 is the constant term, 1..4 the
 * linear ones, 5..14 the quadratic ones in the order of div_coef_name.
 * Arithmetic is on mathematical integers: the analysis assumes that no
 * address or index computation wraps around (docs/divergence.md). */
enum { DIV_C_CONST, DIV_C_X, DIV_C_Y, DIV_C_Z, DIV_C_LANE };
#define DIV_NCOEF1 5
#define DIV_NCOEF2 15

typedef struct div_options {
    /* Block shape, 0 = unknown (then .reqntid, else the default assumption
     * below).  With a known shape every verdict is exact for it. */
    uint32_t block[3];
    /* Ocelot/GPUDrano's rule: %tid.y and %tid.z warp-uniform whatever the
     * shape (an assumption the user makes, not one the analysis states). */
    bool assume_tid_yz_uniform;
    /* Affine analyses: the polynomials alone, without the warp forms (the
     * analysis as it was before warp-granular reasoning; for the benchmark
     * that measures what the warp forms cost). */
    bool polynomials_only;
    /* Block granularity (simple analysis only): a value is uniform when
     * every thread of the block sees the same.  Every thread index of
     * extent above 1, %warpid and every warp collective's result (shfl,
     * vote, redux, match, activemask, elect: one per warp) are sources.
     * What the barrier rules ask (sync_rules.h). */
    bool cta;
} div_options;

/* The assumptions a verdict can rest on when the block shape is not known
 * (docs/divergence.md, "Block shape"): the default assumption is that
 * blockDim.x is a multiple of 32.  Each value carries the bits of the
 * assumptions its verdict used; a verdict with no bits holds for every
 * shape.
 *   DIV_COND_ROWS: the 32 lanes of a warp are 32 consecutive x indices
 *     (tid.x = 32·w + lane): blockDim.x is a multiple of 32, or the block
 *     is one-dimensional;
 *   DIV_COND_X32: blockDim.x is a multiple of 32 (%ntid.x ≡ 0 mod 32,
 *     %tid.y and %tid.z warp-uniform).  It implies ROWS. */
enum { DIV_COND_ROWS = 1, DIV_COND_X32 = 2 };
/* Whether the assumptions in cond hold for a launch of this block shape
 * (extents 0 read as 1). */
bool div_cond_holds(unsigned cond, const uint32_t block[3]);
/* "blockDim.x is a multiple of 32", "blockDim.x is a multiple of 32 or
 * the block is one-dimensional"; "" for 0. */
const char *div_cond_text(unsigned cond);

/* Why a value is a source of divergence (DIV_SRC_NONE: it is not one). */
enum div_source {
    DIV_SRC_NONE, DIV_SRC_TID, DIV_SRC_LANE, DIV_SRC_CLOCK, DIV_SRC_ATOMIC, DIV_SRC_LOCAL_LOAD,
    DIV_SRC_GENERIC_LOAD, DIV_SRC_CALL, DIV_SRC_SHFL, DIV_SRC_COLLECTIVE, DIV_SRC_UNKNOWN, DIV_SRC_PARAM_REG,
    DIV_SRC_UNDEF,
};

typedef struct div_result {
    const prog_func *pf;
    enum div_analysis analysis;
    uint8_t *state;   /* per SSA value: div_state */
    uint8_t *source;  /* per SSA value: div_source */
    uint32_t block[3];/* the shape used (from options or .reqntid), 0 = unknown */
    bool tid_y_uniform, tid_z_uniform;
    bool shape_assumed; /* no shape: the default assumption (DIV_COND_*) is in force */
    bool yz_by_option;  /* %tid.y/%tid.z uniform because div_options said so (no condition stated) */
    bool cta;           /* div_options.cta: uniform across the block, not the warp */
    uint8_t *cond;    /* per SSA value: the DIV_COND_* bits its verdict rests on */
    /* affine analyses: ncoef coefficients per value (div_coefs), bit i of
     * bot[v] set when coefficient i is unknown; simple: 0/NULL.  Stored
     * sparsely: a value whose coefficients are all 0 has no row
     * (cslot[v] == DIV_NOROW), the others a row of ncoef in crow, made in
     * blocks of DIV_ROWBLK rows (most values of a large kernel are
     * constants, uniform unknowns or divergent: 15 coefficients each were
     * the largest table of `check`); a block is not cleared, each row is
     * zeroed when it is made (most functions use a few rows of their first
     * block) */
    unsigned ncoef;
    uint32_t *cslot;
    int64_t **crow;
    uint32_t nrows, capblk;
    uint16_t *bot;
    /* affine analyses: the warp form of every value (warp_form.h): kind,
     * known low bits of U and U, and for WF_LANE the index of its lane
     * table in wg (WF_LANES entries each); simple: NULL */
    uint8_t *wkind, *wk, *wnn;
    uint64_t *wr;
    uint32_t *wtab;
    uint64_t *wsym;  /* U's roots (0: the value's own), warp_form.h sym */
    int64_t *woff;   /* and U - U_root */
    uint32_t *wwid;  /* ⊥ with an interval: its width (warp_form.h wid); the low
                      * end in wk, wr, wsym, woff and wtab (UINT32_MAX: g = 0) */
    int64_t *wg;
    uint32_t nwg;
    /* affine analyses: the reachable values in ssa_value_order's order
     * (norder of them), kept for the solvers that run after this one
     * (addr_chain.h) so that it is computed once per function; simple: NULL */
    uint32_t *order;
    uint32_t norder;
    /* The work done: dependence edges followed (simple), transfer functions
     * evaluated (affine).  For the linearity benchmark. */
    uint64_t steps;
} div_result;

/* Runs the analysis on one function (pf->gsa must be built).  Memory from
 * a; linear in the number of values plus their dependences. */
div_result *div_simple(const prog_func *pf, const div_options *o, arena *a);

/* Runs the analysis `an` (div_simple for DIV_AN_SIMPLE). */
div_result *div_analyse(const prog_func *pf, enum div_analysis an, const div_options *o, arena *a);

/* Where the affine analyses use the no-wraparound assumption
 * (docs/divergence.md: comparisons, min/max, widenings), for the run-time
 * checker of their claims (emu/divcheck.c), which must tell a claim that
 * is wrong from one whose assumption failed.  read: per statement, 0, or
 * how its rule reads operands 1 and 2 assuming each equals its polynomial
 * over the integers: the width (8..64), | DIV_NOWRAP_SIGNED when read
 * signed.  users: per value (then per gate set, div_graph_vertices), the
 * values whose verdicts depend on it, the graph the analyses propagate
 * over.  Built from pf alone (the same for every analysis and shape). */
enum { DIV_NOWRAP_SIGNED = 0x80 };
typedef struct div_nowrap {
    uint8_t *read;
    u32csr users;
    uint32_t nvertices; /* of users: div_graph_vertices */
} div_nowrap;
void div_nowrap_build(const prog_func *pf, div_nowrap *out);
void div_nowrap_free(div_nowrap *w);

/* The warp form of %tid.x/y/z (d = 0, 1, 2) under r's block shape
 * (warp_rules.c). */
void wf_tid_form(const div_result *r, unsigned d, wform *out);
/* The warp form of value v (affine analyses); false for the simple one. */
bool div_warp_form(const div_result *r, uint32_t v, wform *out);
/* nvcc's remainder by a constant (sub x, q·d with q from mul.hi.s32 by the
 * magic number of d) at statement st: *x the dividend, *d the divisor;
 * the result is x mod d for 0 <= x < 2^31.  The one matcher of the idiom,
 * for the dataflow's rule (warp_rules.c) and lane-exact evaluation. */
bool div_magic_rem(const prog_func *pf, uint32_t st, uint32_t *x, int64_t *d);

/* Coefficient i of value v into *c; false when it is unknown (or the
 * analysis has no coefficients). */
bool div_coef(const div_result *r, uint32_t v, unsigned i, int64_t *c);
#define DIV_NOROW UINT32_MAX
#define DIV_ROWSHIFT 10
#define DIV_ROWBLK (1u << DIV_ROWSHIFT)
/* Whether the analysis has coefficients (the affine ones). */
static inline bool div_has_coefs(const div_result *r) { return r->cslot != NULL; }
/* Value v's ncoef coefficients (⊥ ones read 0); zeros when it has no row.
 * Inline: the solvers read one per operand. */
extern const int64_t div_zero_coefs[DIV_NCOEF2];
static inline const int64_t *div_coefs(const div_result *r, uint32_t v)
{
    uint32_t k = r->cslot[v];
    if (k == DIV_NOROW) return div_zero_coefs;
    return r->crow[k >> DIV_ROWSHIFT] + (size_t)(k & (DIV_ROWBLK - 1)) * r->ncoef;
}
/* Value v's row, made (zeroed, from a) on first use. */
int64_t *div_coefs_row(div_result *r, uint32_t v, arena *a);
/* "1", "tid.x", "tid.y", "tid.z", "laneid", "tid.x*tid.x", "tid.x*tid.y", ... */
const char *div_coef_name(unsigned i);
/* The abstract value as text, like the paper's Fig. 2 ("tid.x + ⊥",
 * "⊥·tid.x + 0", "⊥"; "U"/"D" for the simple analysis). */
const char *div_value_text(const div_result *r, uint32_t v, char *buf, size_t n);
const char *div_state_name(enum div_state s);     /* "uniform", "affine", "divergent" */
const char *div_analysis_name(enum div_analysis a); /* "simple", "affine", "affine2" */

/* The verdict of the branch ending block b (which must have two or more
 * successors): DIV_UNIFORM when its gate is uniform, and for a guarded
 * brx.idx its index too, else DIV_DIVERGENT.  The one branch verdict:
 * every report, the allocator and the emulator's check ask it. */
enum div_state div_branch(const div_result *r, uint32_t b);
/* The DIV_COND_* bits the verdict of that branch rests on (0: none, or
 * divergent). */
unsigned div_branch_cond(const div_result *r, uint32_t b);
/* The same for any bra/brx.idx statement (a guarded bra to the next block
 * has one successor but still a guard). */
bool div_stmt_uniform(const div_result *r, uint32_t stmt);
unsigned div_stmt_cond(const div_result *r, uint32_t stmt);
/* Whether the bra/brx.idx at stmt may carry .uni, from its verdicts at
 * every shape a launch of its function may have (r[0..nr): blk_every_shape):
 * uniform at each, and on no assumption of the default shape (a verdict
 * that rests on it is DIV_UNI_ASSUMED, its bits in *cond).  .uni on a
 * branch a launch of another shape splits is undefined behaviour, so one
 * shape where it is not proven uniform is enough to refuse it. */
enum div_uni { DIV_UNI_YES, DIV_UNI_NOT_PROVEN, DIV_UNI_ASSUMED };
enum div_uni div_uni(div_result *const *r, uint32_t nr, uint32_t stmt, unsigned *cond);
/* The blocks part of a warp may run: part[b] = 1 for a reachable block
 * control dependent on a branch that may split the warp (split[c], per
 * block) or on a branch in such a block (a uniform branch that part of a
 * warp takes still leaves the rest waiting), the least fixed point; 0
 * elsewhere.  The CFG's colours ask it with the divergent branches, the
 * allocator's ITS rule with its own (regalloc/its_rule.c). */
void div_partial_blocks(const cfg *g, const uint8_t *split, uint8_t *part);
/* Which warps of a block split at the two-way branch ending block b
 * whenever they run it with all their threads: bit w for warp w of the
 * block, DIV_SPLIT_ALL when every warp does (the guard's warp form knows it
 * lane by lane); 0: none proven (the simple analysis proves none).  An
 * integer comparison whose operands the polynomials know exactly is
 * evaluated lane by lane at the result's block shape, or for warp 0 alone
 * at the default assumption (blockDim.x a multiple of 32: its lanes are
 * tid.x = 0..31 of row 0): `tid.x == 0` splits warp 0 of every block. */
#define DIV_SPLIT_ALL UINT32_MAX
uint32_t div_branch_split_warps(const div_result *r, uint32_t b);
/* Each thread's value of predicate v over one block at r's shape (the
 * affine analyses; the same in every block): bit t of bits[t / 32] set
 * when it is true in thread t, *nthreads the threads known (the block's,
 * or at the default assumption the 32 of warp 0: tid.x = 0..31 of row 0).
 * False when some thread's value is not known exactly. */
bool div_pred_threads(const div_result *r, uint32_t v, uint32_t bits[32], uint32_t *nthreads);
/* Proven divergent: some warp of every block that runs it whole splits. */
bool div_branch_proven(const div_result *r, uint32_t b);
/* The comparison cmp (a ptx_cmp: ptx_iop_decode's) of x and y read as w-bit integers,
 * signed when sgn: 1 or 0, -1 when x or y is not what such a register
 * holds (the comparison would read another value).  The one evaluation of
 * a setp on known operands: the branch verdicts and the barrier rules. */
int div_setp_holds(uint8_t cmp, uint8_t sgn, unsigned w, __int128 x, __int128 y);

const char *div_source_name(enum div_source s);

#endif
