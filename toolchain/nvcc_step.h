/* The ptxas step of ptxray nvcc (nvcc_wrap.h, docs/nvcc.md): nvcc runs it
 * as `ptxas ARGS` once per real target architecture.  It analyses the PTX
 * (through the callback: the findings live in report/), rewrites it when
 * asked, and then becomes nvcc's own ptxas with nvcc's arguments (the
 * input replaced by the rewritten PTX, if any), so ptxas's messages and
 * exit status are nvcc's to see. */
#ifndef PTXRAY_NVCC_STEP_H
#define PTXRAY_NVCC_STEP_H
#include <stddef.h>
#include "nvcc_wrap.h"
#include "ptx.h"

typedef struct nvw_analysis {
    const char *ptx;  /* the PTX to analyse: with .loc lines when they could be had */
    const char *cu;   /* the .cu it comes from (cicc's --orig_src_path_name); NULL when not known */
    const char *arch; /* "sm_80" */
    const char *seen; /* the file of the warnings printed already (other architectures) */
    char **hcflags;   /* -I/-D/-U/-std= of the .cu's compilation, for its launch shapes */
    size_t nhcflags;
    bool count_only;  /* count what would be printed; print nothing, record nothing */
    /* the step's one parse of ptx, which it rewrites after (pipeline.h,
     * pl_options.module): m, or NULL with diags what the failed parse said;
     * both NULL: ptx is another text (one with .loc lines), parsed there */
    ptx_module *m;
    const char *diags;
} nvw_analysis;

/* Prints the warnings; returns how many, or -1 after a message saying why
 * the PTX could not be analysed. */
typedef int (*nvw_analyse_fn)(const nvw_opts *o, const nvw_analysis *a);

/* The step over ptxas's arguments args[0..n).  Returns only on failure
 * (else the process becomes ptxas): 1 for --ptxray-werror's warnings, 2
 * for a --ptxray-strict refusal or a broken setup. */
int nvw_step(const nvw_opts *o, char **args, int n, nvw_analyse_fn analyse);

/* A temporary file's name without nvcc's per-process part (the
 * "tmpxft_0000abcd_" of /tmp/tmpxft_0000abcd_00000000-7_a.ptx), so that the
 * dryrun's names match the run's. */
void nvw_tmpx_key(const char *path, char *buf, size_t n);

#endif
