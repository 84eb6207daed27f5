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

/* nvw_opts.config_shapes: the block shapes of the project file found from
 * `from`, config_ctx a cfg_set (config.h), added to b (cfg_add_blocks). */
bool nvw_config_shapes(void *config_ctx, const char *from, blk_opts *b);

#endif
