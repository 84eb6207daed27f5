/* Shared by the affine solver (affine.c) and its transfer functions
 * (affine_rules.c). */
#ifndef PTXRAY_AFFINE_INTERNAL_H
#define PTXRAY_AFFINE_INTERNAL_H
#include "aff_poly.h"
#include "div_internal.h"

typedef struct aff_ctx {
    const prog_func *pf;
    const div_result *r;   /* coef/bot hold the current solution */
    const uint8_t *top;    /* per value: still ⊤ */
    unsigned n;            /* coefficients per value */
    uint16_t divmask;      /* coefficients of monomials with a divergent dimension */
} aff_ctx;

void aff_get(const aff_ctx *cx, uint32_t v, aff *out);
/* Uniform: every coefficient that varies within a warp is known to be 0. */
static inline bool aff_uniform(const aff_ctx *cx, const aff *a) { return aff_zero_on(a, cx->divmask); }

/* The abstract value of instruction-defined value v (paper Fig. 13 and the
 * PTX rules of docs/divergence.md).  ⊤ when an operand is still ⊤. */
void aff_eval_inst(const aff_ctx *cx, uint32_t v, aff *out);

#endif
