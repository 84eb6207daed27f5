/* Instruction semantics: for every PTX instruction, which operands it
 * defines and which it reads, the types involved, the memory it touches and
 * the control-flow / synchronisation / atomicity properties later analyses
 * (CFG, SSA, divergence, coalescing, register allocation, emulation) rely on.
 *
 * The answer is computed from the opcode family (a static table) plus a few
 * modifier-dependent rules (.cc, .wide, mbarrier.arrive vs mbarrier.init, ...).
 * Anything not understood is flagged PTX_SEM_UNKNOWN and described in the
 * most conservative way, so an analysis that honours the fields below is
 * correct without special-casing unknown instructions.
 *
 * Operand model: operands [0, ndef) are written, the others are read.  A
 * VEC/PAIR/LIST operand counts as one operand; every register inside a
 * written VEC/PAIR/LIST is written.  Registers inside an address operand
 * ([%rd1+8], [tex, {%f1, %f2}]) are always read, whatever the operand's
 * position.  The guard predicate is always read.  Use ptx_inst_foreach_reg
 * rather than re-deriving this. */
#ifndef PTXRAY_SEMANTICS_H
#define PTXRAY_SEMANTICS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "ir.h"

enum ptx_sem_flag {
    /* bra, brx.idx: may transfer control to a label operand. */
    PTX_SEM_BRANCH = 1u << 0,
    /* call: may do anything the callee does.  LOAD|STORE|SIDE_EFFECT are set
     * too (the callee may touch any memory, and the .param arguments are read
     * and the return .param written); consult the callee for SYNC etc. */
    PTX_SEM_CALL = 1u << 1,
    PTX_SEM_RET = 1u << 2,
    /* exit, trap: the thread stops (trap also aborts the kernel). */
    PTX_SEM_EXIT = 1u << 3,
    /* Ends a basic block: bra, brx, ret, exit, trap.  Not call (it returns)
     * and not brkpt (execution resumes after it).  A guarded terminator still
     * ends its block but falls through when the guard is false: use
     * ptx_sem_falls_through(). */
    PTX_SEM_TERMINATOR = 1u << 4,
    /* Barrier-like synchronisation with other threads: bar/barrier (incl.
     * bar.warp.sync and barrier.cluster), mbarrier arrive/wait/tx updates,
     * cp.async.mbarrier.arrive, tcgen05.commit, griddepcontrol.wait.  These
     * also order memory among the participants: treat SYNC as a fence too. */
    PTX_SEM_SYNC = 1u << 5,
    /* The result (or effect) depends on values or activity of other threads
     * executing the same instruction: shfl, vote, match, redux, activemask,
     * elect, bar.red, wmma.*, mma, wgmma.mma_async, ldmatrix, stmatrix,
     * movmatrix.  Divergence analysis must not treat these as lane-local. */
    PTX_SEM_COLLECTIVE = 1u << 6,
    /* Atomic read-modify-write of memory: atom, red, sured, multimem.red,
     * cp.reduce.async.bulk, and every update of an mbarrier object
     * (mbarrier arrive/expect_tx/complete_tx, cp.async.mbarrier.arrive,
     * tcgen05.commit: the last two arrive asynchronously). */
    PTX_SEM_ATOMIC = 1u << 7,
    /* Reads memory (the value need not reach a register: red and
     * multimem.red have LOAD too, as they read before writing; wgmma and
     * tcgen05.mma read shared memory through matrix descriptors). */
    PTX_SEM_LOAD = 1u << 8,
    /* Writes memory (or makes it indeterminate: discard). */
    PTX_SEM_STORE = 1u << 9,
    /* Cache hint only, memory contents unchanged: prefetch, prefetchu,
     * applypriority, cp.async.bulk.prefetch. */
    PTX_SEM_PREFETCH = 1u << 10,
    /* Explicit memory ordering point: membar, fence, wgmma.fence,
     * tcgen05.fence, tcgen05.wait, cp.async.wait_group/wait_all,
     * cp.async.bulk.wait_group, wgmma.wait_group. */
    PTX_SEM_FENCE = 1u << 11,
    /* Starts, commits or waits for asynchronous work: the memory or registers
     * it names may change after the instruction retires (cp.async*,
     * st.async, red.async, wgmma.mma_async, tcgen05.ld/st/mma/cp/shift,
     * clusterlaunchcontrol.try_cancel) or it waits for such work. */
    PTX_SEM_ASYNC = 1u << 12,
    /* Writes / reads the implicit carry flag (add.cc, addc, sub.cc, subc,
     * mad.cc, madc): a CC_USE instruction must stay after its CC_DEF. */
    PTX_SEM_CC_DEF = 1u << 13,
    PTX_SEM_CC_USE = 1u << 14,
    /* Must be kept even if nothing reads its definitions (stores, atomics,
     * synchronisation, control flow, hints, traps, volatile/strong loads...).
     * An instruction without SIDE_EFFECT whose defs are dead is removable. */
    PTX_SEM_SIDE_EFFECT = 1u << 15,
    /* Strong memory operation (.volatile, .relaxed, .acquire, .release,
     * .acq_rel, .sc, .mmio, every atom/red, mbarrier arrive/wait): not to be
     * merged, duplicated or reordered like a weak access. */
    PTX_SEM_ORDERED = 1u << 16,
    /* Must be executed convergently by the whole warp (".aligned", also
     * implied by bar.sync/bar.arrive/bar.red): behaviour is undefined in
     * divergent code. */
    PTX_SEM_ALIGNED = 1u << 17,
    /* Opcode family or sub-operation not understood.  Then: every register
     * operand outside an address is possibly defined AND used (ndef = nrmw =
     * nopd, defs reported MAYDEF), and LOAD|STORE|ATOMIC|FENCE|SYNC|
     * COLLECTIVE|SIDE_EFFECT are set.  Control flow is assumed to fall
     * through (an unknown instruction is never a branch or terminator). */
    PTX_SEM_UNKNOWN = 1u << 18,
    /* Integer arithmetic's modifiers: .sat (clamped, not modular), .hi
     * (the high half of a product), .wide (a product at twice the width:
     * dtype says which).  ptx_iop_decode reads them. */
    PTX_SEM_SAT = 1u << 19,
    PTX_SEM_HI = 1u << 20,
    PTX_SEM_WIDE = 1u << 21,
};

/* "No operand" marker for addr_opd / src_addr_opd. */
#define PTX_SEM_NO_OPD 0xffu
/* Tensor memory (tcgen05), which ptx_space does not have yet: used only in
 * ptx_inst_sem.space. */
#define PTX_SEM_SPACE_TMEM ((uint8_t)PTX_SP__COUNT)

typedef struct ptx_inst_sem {
    uint32_t flags;        /* PTX_SEM_* */
    uint8_t ndef;          /* operands [0, ndef) are written */
    uint8_t nrmw;          /* operands [0, nrmw) are also read before being
                            * written (wgmma accumulator; unknown opcodes) */
    /* The memory operand: for ld/st/atom/red/prefetch/mbarrier/... the
     * address operand; for copies (cp.*) the destination.  space is its state
     * space (PTX_SP_NONE = generic addressing).  For address conversions
     * that touch no memory (cvta, cvta.to, isspacep, mapa, getctarank) space
     * is the state space named by the modifier and addr_opd is NO_OPD.
     * Texture and surface instructions use PTX_SP_TEX (backed by global
     * memory: alias analyses must assume they may alias .global). */
    uint8_t addr_opd;
    uint8_t space;
    /* Copies only (cp.async*, cp.reduce.async.bulk*, tensormap.cp_fenceproxy,
     * multimem.cp*): the source address operand and its space. */
    uint8_t src_addr_opd;
    uint8_t src_space;
    /* Destination and source register types (ptx_type).  dtype is the type
     * of what is written to registers (NONE for stores), stype that of the
     * value-carrying sources: cvt.f32.s32 F32/S32, setp.lt.s32 PRED/S32,
     * mul.wide.s32 S64/S32, popc.b64 U32/B64, st.global.f32 NONE/F32,
     * mma/wgmma: D type / type after it (A type; wmma.mma f16: C type). */
    uint8_t dtype, stype;
    /* Bytes per thread touched by the memory access: vector width * type
     * size (ld.v4.f32 = 16), cp.async cp-size, 8 for mbarrier objects.  0
     * when there is no access or its per-thread size is not a simple
     * function of the instruction (matrix, tensor and bulk-tensor operations,
     * prefetches, a non-constant size operand). */
    uint32_t access_bytes;
} ptx_inst_sem;

/* Fills *out for in.  Never fails: unknown things are marked and made
 * conservative. */
void ptx_inst_semantics(const ptx_inst *in, ptx_inst_sem *out);

/* ---- integer operations ----------------------------------------------------
 * The one decoder of the integer arithmetic that the representations of
 * thread dependence model (analyses/: the polynomials, the warp forms, the
 * lane-exact values, the address facts and terms; docs/architecture.md):
 * which operation an instruction is and at which widths, under one set of
 * guards.  What is not the plain operation on integers (a float type, .sat,
 * .hi, a carry, a conversion whose register is wider than its type) is
 * PTX_IOP_GENERIC: its result depends on its operands in a way no rule
 * describes.  The SSA form decodes every statement once (ssa_func.iop). */
typedef enum ptx_iop_rule {
    PTX_IOP_GENERIC,
    PTX_IOP_MOV,     /* mov d, a of a type that is not an integer */
    PTX_IOP_MOV_INT, /* mov d, a of an integer */
    PTX_IOP_ADD, PTX_IOP_SUB, PTX_IOP_NEG, PTX_IOP_NOT,
    PTX_IOP_MUL, PTX_IOP_MAD, /* .lo or .wide (wide: ptx_iop.wide) */
    PTX_IOP_SHL,
    PTX_IOP_CVT_S, PTX_IOP_CVT_U, /* integer to integer, by the source's sign */
    PTX_IOP_CVTA,    /* generic <-> window address: moves by a per-program offset */
    PTX_IOP_MINMAX,  /* min, max of integers (two sources) */
    PTX_IOP_SELP,
    PTX_IOP_CMP,     /* setp of integers */
    PTX_IOP_SHR, PTX_IOP_AND, PTX_IOP_OR, PTX_IOP_XOR, PTX_IOP_DIV, PTX_IOP_REM,
    PTX_IOP_BFE, PTX_IOP_BFI, PTX_IOP_SET,
    /* mov.bN {e0, e1, ...}, x: element i is bits [i·N/k, (i+1)·N/k) of x */
    PTX_IOP_UNPACK,
} ptx_iop_rule;

/* An integer setp/set's comparison (ISA "setp": .lo .ls .hi .hs are the
 * unsigned .lt .le .gt .ge). */
enum ptx_cmp { PTX_CMP_EQ, PTX_CMP_NE, PTX_CMP_LT, PTX_CMP_LE, PTX_CMP_GT, PTX_CMP_GE, PTX_CMP_NONE = 0xff };

typedef struct ptx_iop {
    uint8_t rule;  /* ptx_iop_rule */
    uint8_t w, sw; /* bit widths of the result and of the sources (64 when untyped) */
    uint8_t sgn;   /* a signed instruction type (shr, div, rem, bfe, min, max); for
                    * PTX_IOP_CMP/SET a signed comparison */
    uint8_t wide;  /* mul.wide / mad.wide: the sources are sw bits, the result w = 2·sw */
    uint8_t cmp;   /* PTX_IOP_CMP/SET: a ptx_cmp (PTX_CMP_NONE: none of those) */
    uint8_t comb;  /* PTX_IOP_CMP/SET: the combining operator (PTX_OPC_AND/OR/XOR) or 0 */
} ptx_iop;

/* Decodes in (a statement of fn) with its semantics sem. */
void ptx_iop_decode(const ptx_func *fn, const ptx_inst *in, const ptx_inst_sem *sem, ptx_iop *out);

/* Whether execution can continue with the next statement. */
static inline bool ptx_sem_falls_through(const ptx_inst *in, const ptx_inst_sem *s)
{
    return !(s->flags & PTX_SEM_TERMINATOR) || in->has_guard;
}

/* ---- register def/use walk ------------------------------------------------ */
enum ptx_ref_role {
    PTX_REF_USE = 1u << 0,
    PTX_REF_DEF = 1u << 1,
    /* With DEF: the write may leave (part of) the old value in place, so the
     * old value stays live (no kill): guarded instruction, write to a vector
     * component (%v.x), unknown opcode. */
    PTX_REF_MAYDEF = 1u << 2,
    PTX_REF_GUARD = 1u << 3, /* the guard predicate; o is NULL */
    PTX_REF_ADDR = 1u << 4,  /* inside an address operand [...] */
    PTX_REF_SREG = 1u << 5,  /* a special register: id is a ptx_sreg (always USE) */
};

#define PTX_OPD_GUARD UINT32_MAX

typedef struct ptx_reg_ref {
    uint32_t id;          /* PTX_O_REG: index into fn->regs; SREG: ptx_sreg (o->n) */
    uint32_t opd;         /* top-level operand index, or PTX_OPD_GUARD */
    uint32_t role;        /* PTX_REF_*: exactly one of USE / DEF */
    uint8_t comp;         /* component ('x'...) as written, 0 if none */
    const ptx_operand *o; /* the REG/SREG leaf; NULL for the guard */
} ptx_reg_ref;

typedef void (*ptx_reg_cb)(void *ctx, const ptx_inst *in, const ptx_reg_ref *r);

/* Calls cb for every register occurrence the instruction reads or writes,
 * walking into VEC/PAIR/ADDR/LIST operands: first every USE (guard, then
 * operands left to right, depth first; read-modify-write operands are
 * reported here too), then every DEF (operands left to right).  So an SSA
 * renamer can rename uses before defs in one pass.  Special registers are
 * reported as USE with PTX_REF_SREG; immediates, symbols and sinks (_) are
 * skipped.  sem may be NULL (then it is computed). */
void ptx_inst_foreach_reg(const ptx_inst *in, const ptx_inst_sem *sem, ptx_reg_cb cb,
                          void *ctx);

/* "load|store|atomic" ("none" for 0), truncated to fit n; returns buf. */
const char *ptx_sem_flags_str(uint32_t flags, char *buf, size_t n);

#endif
