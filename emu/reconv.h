/* Reconvergence points of divergent branches: the immediate post-dominator
 * of the branch's block (from the CFG module). */
#ifndef PTXRAY_EMU_RECONV_H
#define PTXRAY_EMU_RECONV_H
#include "cfg.h"
#include "emu_internal.h"

/* The statement where the paths leaving the branch ending at statement
 * stmt reconverge, or EMU_NONE when that is the function's exit (the
 * paths then meet only when they return). */
uint32_t emu_reconv_point(const cfg *g, uint32_t stmt);

/* Sets rpc of every bra/brx.idx of F (EMU_NONE: no reconvergence point
 * inside the function). */
void emu_reconv_fill(emu_machine *M, efunc *F);
#endif
