/* Address polynomials a little sharper than the affine analysis gives.
 *
 * The affine analysis makes selp p, a, b (and a branch's gamma) ⊥ whenever
 * p is not uniform across the whole launch.  For coalescing what matters is
 * whether p is uniform within each warp: in IPDA's Fig. 1 (Chikin et al.
 * 2019) idx = i < 32 ? 64 + i : i with i = blockIdx.x·blockDim.x + tid.x,
 * and since blockDim.x is a multiple of 32 every warp lies wholly on one
 * side of 32, so idx is i + (a warp-uniform constant) and B[idx] has stride
 * 8 bytes.  Such a comparison is uniform in a warp when the warp's lanes
 * cannot straddle the threshold: their values are B + off[lane] with the
 * offsets exact (warp_lanes) and B known modulo 2^k (addr_chain), and no B
 * of that residue puts zero strictly inside the offsets' range.
 *
 * addr_refine re-evaluates a value's definitions with the affine
 * arithmetic (aff_poly.h), meeting the two sides of such selects, and
 * otherwise takes the affine analysis' own result. */
#ifndef PTXRAY_ADDR_REFINE_H
#define PTXRAY_ADDR_REFINE_H
#include "addr_chain.h"

/* The polynomial of value v (sharpened where possible).  Results are kept
 * in c (addr_refine_free releases them). */
void addr_refine(const addr_chain *c, uint32_t v, aff *out);
void addr_refine_free(addr_chain *c);

/* Whether predicate value v has the same value in all lanes of every warp. */
bool addr_pred_warp_uniform(const addr_chain *c, uint32_t v);

/* Whether the varying monomials (those that differ between the lanes of a
 * warp under the chain's block shape) all have known coefficients. */
bool addr_poly_lane_exact(const addr_chain *c, const aff *p);

/* A load (statement) whose result v's value depends on, within a few
 * definitions, or UINT32_MAX. */
uint32_t addr_loaded_from(const addr_chain *c, uint32_t v);

/* Whether the instruction at st is shr.s64 y, (shl.b64 t, x, 32), 32 - s:
 * nvcc's sign extension of a 32-bit int times 2^s.  Under the
 * no-wraparound assumption (x fits in an int) y = x·2^s. */
bool addr_sext_idiom(const addr_chain *c, uint32_t st, uint32_t *x, unsigned *s);

#endif
