/* Register pressure of a function: the most virtual registers live at once,
 * from a backward liveness over the CFG (docs/check.md, `ptxray analyze`).
 * Counted in 32-bit registers (a 64-bit register counts 2, a 128-bit one 4,
 * 8- and 16-bit ones 1); predicates separately.  PTX registers are virtual:
 * ptxas allocates its own, so this is what the PTX asks for, not what the
 * SASS uses. */
#ifndef PTXRAY_PRESSURE_H
#define PTXRAY_PRESSURE_H
#include <stdint.h>
#include "program.h"

typedef struct rp_result {
    uint32_t regs32;  /* most 32-bit units live at one point */
    uint32_t preds;   /* most predicates live at one point */
    uint32_t at_stmt; /* an instruction where regs32 is reached (UINT32_MAX: none) */
} rp_result;

void rp_compute(const prog_func *pf, rp_result *out);

#endif
