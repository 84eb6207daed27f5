/* ptxray nvcc (docs/nvcc.md): nvcc itself, with ptxray between the PTX it
 * generates and ptxas.
 *
 * nvcc is run with every option the user gave, and --dont-use-profile with
 * the environment its nvcc.profile would have set (read from `nvcc
 * --dryrun` with the same options) except that PATH starts with a private
 * directory holding a `ptxas` that is ptxray (nvcc runs ptxas through
 * PATH).  So nvcc does every step itself, as it would, and the wrapper
 * only sees the ptxas steps: once per real target architecture, where it
 * analyses the PTX (warnings at the .cu lines) and, when asked, rewrites
 * it, then runs nvcc's own ptxas with nvcc's own arguments.  A command
 * with no ptxas step (linking, -ptx, -M, -E, --version, ...) is nvcc run
 * as it is. */
#ifndef PTXRAY_NVCC_WRAP_H
#define PTXRAY_NVCC_WRAP_H
#include <stdbool.h>
#include "block_opt.h"
#include "regalloc.h"

/* What the --ptxray-... options and PTXRAY_FLAGS ask for (cli/cmd_nvcc.c). */
typedef struct nvw_opts {
    ra_options ro;           /* the mode (default aff) and the block shapes */
    blk_opts blocks;
    unsigned budget;         /* --ptxray-budget K: rewrite at K; 0: not asked */
    unsigned target;         /* --ptxray-target-regs=N; */
    bool target_maxr;        /* --ptxray-target-regs: N from -maxrregcount */
    bool werror, strict, possible, verbose;
    unsigned rules;          /* the rules warned about, (1 << chk_rule); 0: no analysis */
    char **tokens;           /* the options as given, "--ptxray-x=v", for the ptxas step */
    int ntokens;
    /* The ptxas step's project file (ptxray.yaml, found from the .cu, else
     * the PTX): report's (config.h), so cli/cmd_nvcc.c fills these in.
     * config_ctx is what the warnings read it through; config_shapes adds
     * its block shapes to b (below --ptxray-block, as `ptxray regalloc`
     * takes them) for the rewrite: false after a message. */
    void *config_ctx;
    bool (*config_shapes)(void *config_ctx, const char *from, blk_opts *b);
} nvw_opts;

/* Whether a rewrite is asked for. */
bool nvw_rewrites(const nvw_opts *o);

/* The wrapper: nvcc (a path) with args[0..n).  Returns nvcc's exit status
 * (2 when it cannot be run or the setup fails, or when a --ptxray-strict
 * ptxas step refused the PTX). */
int nvw_wrap(const nvw_opts *o, const char *nvcc, char **args, int n);

/* The environment variables that carry the options to the ptxas step. */
#define NVW_ENV_OPTS "PTXRAY_NVCC_OPTS"   /* the tokens, '\n'-separated */
#define NVW_ENV_DIR "PTXRAY_NVCC_DIR"     /* the private directory */
#define NVW_ENV_PTXAS "PTXRAY_NVCC_PTXAS" /* nvcc's own ptxas */
#define NVW_STEP_ARG "--ptxray-ptxas-step" /* the shim's first argument */
#define NVW_CICC_FILE "cicc.lines"         /* in the directory: the PTX each cicc line makes, and the line */
#define NVW_SEEN_FILE "seen"               /* warnings printed already (the other architectures) */
#define NVW_STRICT_FILE "strict-failed"    /* a strict step refused its PTX */

#endif
