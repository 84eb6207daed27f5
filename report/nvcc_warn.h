/* The warnings of ptxray nvcc (docs/nvcc.md): check's findings on the PTX
 * of one ptxas step, printed like a compiler's at their .cu lines. */
#ifndef PTXRAY_NVCC_WARN_H
#define PTXRAY_NVCC_WARN_H
#include "nvcc_step.h"

/* The analysis of a ptxas step (nvw_analyse_fn): findings of o->rules,
 * proven only unless o->possible, at every launch shape of their kernel
 * (a kernel launched with several shapes is analysed at each, and a
 * finding is printed only if it holds at all of them), each printed once
 * per nvcc run (not again for the next architecture). */
int nvw_warn(const nvw_opts *o, const nvw_analysis *a);

#endif
