/* A kernel's reach: the call graph's part that the emulator and the
 * register allocator ask for (the control flow between functions, where
 * cfg.h has it within one). */
#ifndef PTXRAY_REACH_H
#define PTXRAY_REACH_H
#include <stdbool.h>
#include "ir.h"

/* What kernel k (m->funcs[k]) reaches: from k, every function with a body
 * that an operand of a reached function names (a call, or its address
 * taken) or that seed marks (NULL: none; the emulator's function-pointer
 * tables), in reached[] (per m->funcs, zeroed by the caller); use(ctx, o,
 * name) for every name an operand of a reached function uses.  Returns
 * whether one of them calls through a register.  The one walk of a
 * kernel's reach: the emulator's functions to decode and shared variables
 * to lay out, the allocator's static shared memory. */
bool cfg_reach(const ptx_module *m, uint32_t k, const uint8_t *seed, uint8_t *reached, ptx_sym_fn use,
               void *ctx);

#endif
