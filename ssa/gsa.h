/* Gated SSA (Ottenstein et al. 1990; Tu and Padua 1995), as the divergence
 * paper uses it (Sampaio et al. 2013, section 3.2):
 *
 *   gamma  v = γ(p, a, b): at a join, a if the branch on p went one way, b
 *          otherwise.  Joins of more than two paths get nested gammas, one
 *          level per branch that decides between them (brx.idx: one operand
 *          per table entry).
 *   mu     v = μ(init, carried): at a loop header, init on entry and
 *          carried from the previous iteration; either side is itself a
 *          gamma when several entry edges or several latches meet.
 *   eta    v = η(P, x): x as it was in the last iteration of the loops
 *          being left, P the predicates of those loops' exit branches.
 *
 * Every SSA phi becomes a gamma or a mu; every SSA eta an eta.  The gating
 * expression of a join J is built over the region between J's immediate
 * dominator D and J in the CFG without loop back edges (acyclic, see
 * cfg/loops.c): each block's value is "which incoming edge of J will be
 * taken from here", a branch with two different answers becomes a selection
 * on its predicate, and a branch whose successors agree (or only one of
 * which reaches J) disappears.  Paths that leave the region, return or loop
 * back do not reach J and do not gate it; values computed in a loop reach a
 * join outside it only through etas, which carry the loop's exit
 * predicates.  Irreducible regions have no meaningful gates: their phis are
 * flagged and carry every branch of the region as a gate.  docs/gsa.md has
 * the details. */
#ifndef PTXRAY_GSA_H
#define PTXRAY_GSA_H
#include <stddef.h>
#include "ssa.h"

enum gsa_expr_kind { GSA_X_VALUE, GSA_X_SELECT };

typedef struct gsa_expr gsa_expr;
struct gsa_expr {
    uint8_t kind;     /* gsa_expr_kind */
    uint8_t neg;      /* SELECT: the gate is the predicate's negation (@!p bra) */
    uint32_t value;   /* VALUE: an SSA value; SELECT: the gate's value (predicate, or brx.idx index) */
    uint32_t branch;  /* SELECT: the block whose terminator decides */
    uint32_t n;       /* SELECT: one operand per successor of branch, in successor order */
    gsa_expr **ops;   /* NULL where that successor does not lead to the join */
};
/* A VALUE expression is allocated without ops (16 bytes, not 24: one per
 * value a phi or eta reads, 130k in a 100k-block kernel), so a gsa_expr is
 * never copied whole, and ops is read only for e->n > 0. */
#define GSA_VALUE_EXPR_BYTES offsetof(gsa_expr, ops)

enum gsa_kind { GSA_GAMMA, GSA_MU, GSA_ETA };

/* Pointers first, bytes last: 40 bytes, not 48 with padding (one per phi
 * and eta, 92k in a 100k-block kernel). */
typedef struct gsa_node {
    gsa_expr *expr;      /* GAMMA: the selection; MU: the initial value; ETA: the value leaving */
    gsa_expr *carried;   /* MU (reducible loop): the value from the previous iteration */
    uint32_t *gates;     /* ETA, irreducible: branch blocks whose predicates gate it */
    uint32_t loop;       /* MU: the loop; ETA: the outermost loop left */
    uint32_t ngates;
    /* Nodes with the same gates (every eta leaving the same loops, every phi
     * of one irreducible loop) share the array and this number, so that an
     * analysis can treat the set once: 0..gsa_func.ngate_sets-1, or
     * GSA_NO_SET when ngates is 0. */
    uint32_t gate_set;
    uint8_t kind;        /* gsa_kind */
    uint8_t irreducible; /* inside an irreducible loop: gates lists every branch of it */
} gsa_node;

#define GSA_NO_SET UINT32_MAX

typedef struct gsa_func {
    ssa_func *ssa;
    gsa_node *nodes;     /* one per ssa node, same index */
    uint32_t ngate_sets;
    uint32_t ngamma, nmu, neta;
} gsa_func;

gsa_func *gsa_build(ssa_func *s);

/* The gate of the branch ending block b: its predicate's SSA value and
 * whether the branch is taken when it is false; for brx.idx the index value.
 * False if b does not end in a branch with two or more successors. */
bool gsa_branch_gate(const ssa_func *s, uint32_t b, uint32_t *value, bool *neg);

#endif
