/* Shared by the affine solver (affine.c) and its transfer functions
 * (affine_rules.c). */
#ifndef PTXRAY_AFFINE_INTERNAL_H
#define PTXRAY_AFFINE_INTERNAL_H
#include "aff_poly.h"
#include "div_internal.h"

/* The rule of an instruction (affine_rules.c), decoded once. */
enum {
    AFF_R_GENERIC, AFF_R_FROM, AFF_R_MOV, AFF_R_MOV_INT, AFF_R_ADD, AFF_R_SUB, AFF_R_NEG,
    AFF_R_NOT, AFF_R_MUL, AFF_R_MAD, AFF_R_SHL, AFF_R_CVT_S, AFF_R_CVT_U, AFF_R_CVTA, AFF_R_MINMAX, AFF_R_SELP,
    AFF_R_CMP,
};
typedef struct aff_op {
    uint8_t decoded, rule;
    uint8_t from;          /* AFF_R_FROM: the first operand that matters */
    uint8_t w, sw;         /* bit widths of the result and of the source operands */
} aff_op;

typedef struct aff_ctx {
    const prog_func *pf;
    const div_result *r;   /* coef/bot hold the current solution */
    const uint8_t *top;    /* per value: still ⊤ */
    unsigned n;            /* coefficients per value */
    uint16_t divmask;      /* coefficients of monomials with a divergent dimension */
    aff_op *ops;           /* per statement, decoded on first use */
    const div_stmt_info *info; /* per statement, from div_graph_build */
} aff_ctx;

void aff_get(const aff_ctx *cx, uint32_t v, aff *out);
/* Uniform: every coefficient that varies within a warp is known to be 0. */
static inline bool aff_uniform(const aff_ctx *cx, const aff *a) { return aff_zero_on(a, cx->divmask); }

/* The abstract value of instruction-defined value v (paper Fig. 13 and the
 * PTX rules of docs/divergence.md).  ⊤ when an operand is still ⊤. */
void aff_eval_inst(const aff_ctx *cx, uint32_t v, aff *out);

#endif
