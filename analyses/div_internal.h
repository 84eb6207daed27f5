/* Shared by the simple (divergence.c) and affine (affine.c) analyses. */
#ifndef PTXRAY_DIV_INTERNAL_H
#define PTXRAY_DIV_INTERNAL_H
#include "divergence.h"
#include "u32vec.h"

/* A result with state and source allocated (zero: uniform, no source) and
 * the block shape resolved. */
div_result *div_result_new(const prog_func *pf, enum div_analysis an, const div_options *o, arena *a);

/* Fills r->source and builds users: for every value, the values whose
 * abstract state depends on it (operands, guards, a partial definition's
 * old value, the leaves and gates of gamma/mu/eta).  u32csr_free it. */
void div_graph_build(const prog_func *pf, div_result *r, u32csr *users);

/* Whether the value an instruction defines is a source of divergence;
 * *data is false when its operands do not matter (vote: uniform whatever
 * they are), *shfl_bcast true for shfl.idx (operand 1 does not matter). */
enum div_source div_classify(const ptx_func *fn, const ptx_inst *in, bool *data, bool *shfl_bcast);

#endif
