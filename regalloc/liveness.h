/* Liveness of PTX registers over the CFG and register pressure in 32-bit
 * units per class.  Works on registers, not SSA values: the allocator runs
 * on the PTX as it is, after SSA elimination (nvcc's reused registers).
 * The one liveness of ptxray: the allocator's program points and the
 * register pressure `analyze` reports (ra_live_peak) both read it. */
#ifndef PTXRAY_RA_LIVENESS_H
#define PTXRAY_RA_LIVENESS_H
#include <stdint.h>
#include "cfg.h"
#include "ssa.h"

/* Register classes: general-purpose registers share one budget; predicates
 * are a file of their own; NONE: opaque or never allocated. */
enum ra_class { RA_CLS_NONE, RA_CLS_GPR, RA_CLS_PRED };

/* One register's appearance in one instruction (several operands naming the
 * same register are merged). */
enum { RA_OCC_USE = 1, RA_OCC_DEF = 2, RA_OCC_MAYDEF = 4 };
typedef struct ra_occ {
    uint32_t reg;
    uint8_t role;
} ra_occ;

typedef struct ra_live {
    const ptx_func *fn;
    const cfg *g;
    uint32_t nregs, words;  /* words: 64-bit words per register set */
    uint8_t *cls, *units;   /* per register: ra_class, size in its class's units */
    uint64_t *in, *out;     /* per block: live-in, live-out sets */
    /* Instructions in linear order (statement order, which is the block
     * order nvcc wrote): the allocator's program points. */
    uint32_t ninst;
    uint32_t *inst_stmt;
    uint32_t *inst_block;
    uint32_t *occ_off;      /* instruction k's occurrences: occ[occ_off[k] .. occ_off[k+1]) */
    ra_occ *occ;
    /* per statement of fn (fn->nstmts): ptx_inst_semantics flags of its
     * instruction (0 for other statements), computed once for the pass */
    uint32_t *sem_flags;
} ra_live;

/* Units of a register of type t with vector width vec: 64-bit values take
 * two, 16-bit ones one, .b128 four; a predicate one of its own class. */
unsigned ra_type_units(unsigned type, unsigned vec);
enum ra_class ra_type_class(unsigned type);

ra_live *ra_live_build(const ptx_func *fn, const cfg *g, arena *a);
/* The same from the references and semantics an SSA form has recorded (a
 * test checks that both give the same result on the corpus). */
ra_live *ra_live_build_ssa(const ssa_func *s, arena *a);

static inline bool ra_set_has(const uint64_t *s, uint32_t r) { return s[r >> 6] >> (r & 63) & 1; }

typedef struct ra_pressure {
    uint32_t gpr, pred;           /* maximum live units over the instructions */
    uint32_t gpr_stmt, pred_stmt; /* a statement where it is reached (UINT32_MAX: none) */
} ra_pressure;

/* Exact pressure: at each instruction, the larger of what is live before
 * it and what is live after it together with what it defines. */
void ra_live_pressure(const ra_live *L, ra_pressure *p);

/* What `analyze` reports (docs/analyze.md): the most units live at one point
 * between two instructions of a reachable block, a dead definition not
 * counted (ra_live_pressure counts it: the allocator must find it a
 * register).  Registers of no class count as general ones. */
typedef struct ra_peak {
    uint32_t regs32;  /* most 32-bit units live at one point */
    uint32_t preds;   /* most predicates live at one point */
    uint32_t at_stmt; /* an instruction where regs32 is reached (UINT32_MAX: none) */
} ra_peak;
void ra_live_peak(const ra_live *L, ra_peak *p);

#endif
