/* SSA form over PTX virtual registers.
 *
 * nvcc reuses virtual registers (loop counters, accumulators, values merged
 * after an if), so the front end's register names are not values.  This
 * module gives every definition its own value and every register operand
 * the value it reads, without rewriting the PTX:
 *
 *  - values are numbered; value v is the version'th definition of register
 *    reg (version 0: the value on entry, a .reg parameter or undefined);
 *  - each instruction's register references, in ptx_inst_foreach_reg order
 *    (uses, then defs), map to values through ssa_func.refs;
 *  - a definition that may leave the old value in place (guarded "@%p add",
 *    a write to one component, an unknown opcode) is "partial": it reads
 *    the old value (prev) as well as its operands and guard;
 *  - special registers (%tid.x, %ctaid.y, ...) are values defined at entry,
 *    one per register and component;
 *  - phi functions are placed where definitions meet (pruned: only where
 *    the register is live), and eta functions where a value defined in a
 *    loop leaves it (on a landing block, see cfg.h), so every use outside a
 *    loop of a value computed inside it goes through an eta.  ssa/gsa.h
 *    turns phis into gamma and mu functions with their predicates.
 *
 * Built on a CFG made with CFG_SPLIT_LOOP_EXITS.  Unreachable blocks get no
 * values (their references name SSA_NONE). */
#ifndef PTXRAY_SSA_H
#define PTXRAY_SSA_H
#include <stdint.h>
#include "cfg.h"
#include "semantics.h"
#include "u32vec.h"

#define SSA_NONE UINT32_MAX

enum ssa_value_kind {
    SSA_V_ENTRY, /* a register's value on entry: undefined, or a .reg parameter (param = 1) */
    SSA_V_SREG,  /* a special register: reg = ptx_sreg, sreg_index = %envreg3's 3, comp */
    SSA_V_INST,  /* defined by the instruction at stmt, reference number ref */
    SSA_V_PHI,   /* phi at the start of block; node indexes ssa_func.nodes */
    SSA_V_ETA,   /* eta at the start of block (after its phis) */
};

typedef struct ssa_value {
    uint8_t kind;      /* ssa_value_kind */
    uint8_t comp;      /* SREG: component ('x'...) or 0 */
    uint8_t partial;   /* INST: may leave prev in place */
    uint8_t param;     /* ENTRY: a .reg parameter of a .func */
    uint32_t reg;      /* register index (fn->regs); SREG: the ptx_sreg */
    union {            /* one word for both, by kind */
        uint32_t version;    /* 0 for ENTRY; definitions numbered in program order from 1 */
        uint32_t sreg_index; /* SREG: %envreg3's 3 (an SREG value has no version) */
    };
    uint32_t block;
    uint32_t stmt;     /* INST: the statement; others SSA_NONE */
    uint32_t prev;     /* INST partial: the value it may keep; else SSA_NONE */
    union {            /* by kind, as version and sreg_index: 28 bytes a value */
        uint32_t ref;  /* INST: index into refs of its defining reference */
        uint32_t node; /* PHI/ETA: index into nodes */
    };                 /* (SSA_NONE for ENTRY and SREG) */
} ssa_value;

/* A phi or eta function. */
typedef struct ssa_node {
    uint8_t kind;      /* SSA_V_PHI or SSA_V_ETA */
    uint32_t value;    /* the value it defines */
    uint32_t reg;
    uint32_t block;
    uint32_t nargs;    /* PHI: one per predecessor of block, in pred order
                        * (SSA_NONE from unreachable ones); ETA: 1 */
    uint32_t *args;
    /* ETA: the loops it leaves, innermost (that of the exiting block) and
     * outermost. */
    uint32_t loop_inner, loop_outer;
} ssa_node;

/* One register reference of an instruction. */
typedef struct ssa_ref {
    uint32_t value;
    uint32_t opd;      /* operand index or PTX_OPD_GUARD */
    uint16_t role;     /* PTX_REF_* */
    uint8_t comp;
    uint8_t neg;       /* the guard (PTX_REF_GUARD, always the first reference): @!p */
} ssa_ref;

typedef struct ssa_func {
    const ptx_func *fn;
    const cfg *g;
    arena *a;
    uint32_t nvalues;
    ssa_value *values;
    uint32_t nnodes;
    ssa_node *nodes;
    uint32_t *node_off;  /* block b's nodes: [node_off[b], node_off[b+1]), phis then etas */
    uint32_t *ref_off;   /* statement s's references: refs[ref_off[s] .. ref_off[s+1]) */
    ssa_ref *refs;       /* in ptx_inst_foreach_reg's order */
    uint32_t *ref_reg;   /* per reference: its register (an sreg key for PTX_REF_SREG), kept
                          * for unreachable code too, where the value is SSA_NONE */
    ptx_inst_sem *sem;   /* per statement: ptx_inst_semantics, computed once here for every
                          * analysis (zero for what is not an instruction) */
    ptx_iop *iop;        /* per statement: its integer operation (ptx_iop_decode), decoded once
                          * here for every representation of thread dependence */
    /* .func return registers: the value each has at the exit (nrets) */
    uint32_t nret_vals;
    uint32_t *ret_regs, *ret_vals;
    uint32_t nphis, netas, ninst_values;
} ssa_func;

/* Builds SSA for g (which must have been built with CFG_SPLIT_LOOP_EXITS);
 * memory from g's arena. */
ssa_func *ssa_build(const cfg *g);

/* "%r12.3", "%tid.x", "%rd1.0" (entry value) into buf. */
const char *ssa_value_name(const ssa_func *s, uint32_t v, char *buf, unsigned n);

/* The values in an order where most definitions come before their uses:
 * special-register and entry values, then blocks in reverse post-order,
 * nodes before instructions (for solvers seeding their worklists).  ord has
 * room for s->nvalues; returns how many it holds (unreachable code's
 * values are left out). */
uint32_t ssa_value_order(const ssa_func *s, uint32_t *ord);

/* The def-use graph: per value, the values whose definition reads it (the
 * results of the instructions it is an operand or guard of, the partial
 * definitions that may keep it, the phis and etas it is an argument of),
 * for the analyses' solver (analyses/solver.h).  u32csr_free it. */
void ssa_users(const ssa_func *s, u32csr *users);

/* The value read by the guard of the instruction at stmt (SSA_NONE if it
 * has none). */
uint32_t ssa_guard_value(const ssa_func *s, uint32_t stmt);
/* The value read by register operand opd (first register found in it) of the
 * instruction at stmt, SSA_NONE if none. */
uint32_t ssa_use_value(const ssa_func *s, uint32_t stmt, uint32_t opd);

/* Checks the SSA invariants: every value defined exactly once, every use
 * (instruction operand, partial-definition old value, phi argument at the
 * end of its predecessor, eta argument) dominated by its definition, phi
 * argument counts equal to predecessor counts, eta arguments defined inside
 * the loop they leave.  Returns the number of violations, describing up to
 * `max` of them in msg (one per line). */
uint32_t ssa_verify(const ssa_func *s, char *msg, size_t msgsize);

#endif
