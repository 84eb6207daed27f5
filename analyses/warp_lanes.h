/* The 32 lanes of a warp, and what an affine value is in each of them.
 *
 * A warp is 32 threads with consecutive linear ids tid.x + X·(tid.y +
 * Y·tid.z), starting at a multiple of 32; laneid is the linear id modulo 32.
 * With a known block shape (X, Y, Z) every warp of the block is
 * enumerated, the last one possibly partial.  With no shape the x extent is
 * assumed to be a multiple of 32: then every warp has tid.x = X0 + lane for
 * an unknown X0 ≡ 0 (mod 32), and tid.y, tid.z the same in all its lanes.
 *
 * Given a polynomial of the affine analysis (coefficients on tid.x, tid.y,
 * tid.z, laneid and their products, each known or ⊥), this gives for each
 * warp the offset of every lane from lane 0, exactly, and what is known of
 * lane 0's value modulo a power of two.  Both are read from the warp
 * classes of the shape (warp_classes.h) with the warp form's rules.  An
 * unknown coefficient on a monomial that varies within the warp makes the
 * offsets "symbolic": the lanes then fall into groups within which the
 * offsets are still exact (the lanes of one row of a 16-wide block, say).
 * A product of two coordinates that vary in the warp, with no shape
 * (tid.x², tid.x·laneid), makes them position-dependent. */
#ifndef PTXRAY_WARP_LANES_H
#define PTXRAY_WARP_LANES_H
#include <stdbool.h>
#include "aff_poly.h"
#include "residue.h"

#define WL_LANES 32
#define WL_MAXWARPS 32 /* 1024 threads, the largest block (WC_MAXWARPS) */

typedef struct warp_shape {
    uint32_t block[3]; /* all 0: not known (x extent assumed a multiple of 32) */
} warp_shape;

static inline bool wl_shape_known(const warp_shape *s) { return s->block[0] != 0; }

enum wl_status {
    WL_EXACT,    /* every lane's offset known */
    WL_SYMBOLIC, /* exact within groups; groups apart by unknown uniform amounts */
    WL_POSITION, /* depends on where the warp sits in the block (unknown shape) */
};

typedef struct wl_warp {
    uint32_t nlanes;         /* threads of the block in this warp */
    int64_t off[WL_LANES];   /* value(lane) - value(lane 0), known parts */
    uint8_t group[WL_LANES]; /* lanes of one group differ by exactly off[] */
    uint32_t ngroups;
    residue base;            /* value(lane 0) modulo a power of two */
} wl_warp;

typedef struct wl_result {
    uint8_t status;     /* wl_status */
    uint16_t sym_monos; /* monomials (bit = coefficient index) with an unknown coefficient that vary */
    uint16_t pos_monos; /* monomials that make the offsets position-dependent */
    uint32_t nwarps;    /* 1 with an unknown shape */
    wl_warp warp[WL_MAXWARPS];
} wl_result;

/* Evaluates p over the warps of shape sh; c0 is what is known of p's
 * constant term (its coefficient 0).  A block of more than 1024 threads is
 * evaluated over its first 32 warps. */
void wl_eval(const aff *p, const warp_shape *sh, residue c0, wl_result *out);

/* At a known shape, lane 0's value of p in warp wi exactly (modulo 2^64)
 * when every coefficient of p is known; false otherwise. */
bool wl_lane0_exact(const aff *p, const warp_shape *sh, uint32_t wi, int64_t *v);
/* wl_eval where each unknown coefficient i of p is known to be a multiple
 * of 2^ctz[i] (a row pitch from a parameter times 4 B, or shifted left):
 * lane 0 of each warp is then known modulo more bits. */
void wl_eval_tz(const aff *p, const warp_shape *sh, residue c0, const uint8_t *ctz, wl_result *out);

/* wl_eval of p with its coefficient m set to t·unit, for many integers t
 * with |t| <= tmax (coalescing.c tries every stride of a named unknown):
 * where every such coefficient fits the shape's limit and the results for
 * t = 0 and t = 1 are exact, every lane offset is linear in t (the warp
 * form's sums and products by a constant are exact modulo 2^64), and so
 * is lane 0's residue, whose known bits only depend on t through the
 * trailing zeros of t·unit.  wl_line_init evaluates the two and keeps
 * what the others need; false where that does not hold (then nothing is
 * set, and wl_eval must do each). */
typedef struct wl_line {
    wl_result w0;                           /* t = 0 */
    uint64_t d[WL_MAXWARPS][WL_LANES];      /* the offsets' change per unit of t */
    uint64_t r0[WL_MAXWARPS];               /* monomial m in lane 0 of each warp: U ≡ r0 (mod 2^k0) */
    uint8_t k0[WL_MAXWARPS];
    int64_t unit;
} wl_line;
bool wl_line_init(const aff *p, unsigned m, int64_t unit, int64_t tmax, const warp_shape *sh, residue c0,
                  wl_line *l);
/* The result wl_eval gives for p with coefficient m = t·unit, |t| <= tmax. */
void wl_line_at(const wl_line *l, int64_t t, wl_result *out);

/* Whether the values of the lanes of every warp are pairwise distinct (for
 * exact offsets: offsets distinct within each warp). */
bool wl_injective(const wl_result *w);

#endif
