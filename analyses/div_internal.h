/* Shared by the simple (divergence.c) and affine (affine.c) analyses. */
#ifndef PTXRAY_DIV_INTERNAL_H
#define PTXRAY_DIV_INTERNAL_H
#include "divergence.h"
#include "semantics.h"
#include "u32vec.h"

/* What div_graph_build learnt about each instruction, for the affine
 * analysis (which would otherwise decode every instruction again). */
typedef struct div_stmt_info {
    uint8_t dtype, stype; /* ptx_inst_sem's */
    uint8_t carry;        /* reads or writes the carry flag */
    uint8_t dep_from;     /* div_classify's */
} div_stmt_info;

/* A result with state and source allocated (zero: uniform, no source) and
 * the block shape resolved. */
div_result *div_result_new(const prog_func *pf, enum div_analysis an, const div_options *o, arena *a);

/* Fills r->source and builds users: for every value, the values whose
 * abstract state depends on it (operands, guards, a partial definition's
 * old value, the leaves and gates of gamma/mu/eta).  u32csr_free it.
 * The graph's vertices are the values, then one per gate set of the GSA
 * (div_graph_vertices in all): a node with a gate set depends on the set's
 * vertex, which depends on the set's gates.
 * info: NULL, or one entry per statement, filled for the instructions of
 * reachable blocks.  gates: NULL, or for every gamma/mu/eta node the
 * values of the predicates of the selections in its gating expressions,
 * and then set_gates: for every gate set, the values of its predicates. */
void div_graph_build(const prog_func *pf, div_result *r, u32csr *users, div_stmt_info *info, u32csr *gates,
                     u32csr *set_gates);
static inline uint32_t div_graph_vertices(const prog_func *pf) { return pf->ssa->nvalues + pf->gsa->ngate_sets; }

/* Whether the value an instruction defines is a source of divergence;
 * *dep_from: the first operand that matters (0: all; vote.sync: its member
 * mask only; shfl.idx: lane, clamp and mask, not the value shuffled, when
 * its clamp operand is a constant that sends every lane to one (s, stmt:
 * the function's SSA and the statement, to find that constant)). The
 * guard always matters. */
enum div_source div_classify(const ptx_func *fn, const ssa_func *s, uint32_t stmt, const ptx_inst *in,
                             const ptx_inst_sem *sem, uint8_t *dep_from);

#endif
