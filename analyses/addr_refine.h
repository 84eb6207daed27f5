/* The polynomials of address values for the coalescing model, and a few
 * facts about their definitions.  A warp-uniform select (IPDA's Fig. 1:
 * idx = i < 32 ? 64 + i : i, with i = blockIdx.x·blockDim.x + tid.x and
 * blockDim.x a multiple of 32) is already a gamma on a uniform gate for the
 * affine analysis, whose gates are uniform when the warp forms prove them
 * so (warp_form.h, docs/divergence.md): the polynomial is i + a uniform
 * constant, and B[idx] has stride 8 bytes. */
#ifndef PTXRAY_ADDR_REFINE_H
#define PTXRAY_ADDR_REFINE_H
#include "addr_chain.h"

/* The polynomial of value v (the affine analysis' result). */
void addr_refine(const addr_chain *c, uint32_t v, aff *out);

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
