/* ptxray nvcc's work (docs/regalloc.md, "The nvcc wrapper"): nvcc with
 * the regalloc pass between PTX generation and ptxas.
 *
 *   -ptx    nvcc -ptx to a temporary file, the pass, the rewritten PTX out;
 *   -cubin  the same, then ptxas on the rewritten PTX;
 *   -c      nvcc's own steps (`nvcc -dryrun --keep`) replayed with the pass
 *           run on each PTX file before the ptxas that reads it: nvcc does
 *           not take a .ptx input with -c, and the host stub, fatbinary and
 *           host compilation must stay nvcc's.  The fatbinary then embeds
 *           the rewritten PTX too, so a JIT build sees the same code. */
#ifndef PTXRAY_NVCC_WRAP_H
#define PTXRAY_NVCC_WRAP_H
#include "block_opt.h"
#include "regalloc.h"

enum nvw_kind { NVW_NONE, NVW_OBJ, NVW_CUBIN, NVW_PTX };

/* What the command line asks for (cli/cmd_nvcc.c fills it). */
typedef struct nvcc_wrap {
    enum nvw_kind kind;
    const char *cu, *out;     /* out NULL: nvcc's default name */
    ra_options ro;
    blk_opts blocks;
    unsigned budget, target, maxrreg;
    char **nv; /* the arguments nvcc gets (no kind, -o, input) */
    int nnv;
    char **px; /* extra ptxas arguments for -cubin */
    int npx;
} nvcc_wrap;

/* Finds nvcc, runs the steps in a temporary directory (removed after) and
 * writes the output.  0, or 2 with the reason (and nvcc's and ptxas's own
 * messages) on stderr. */
int nvw_run(nvcc_wrap *w);

#endif
