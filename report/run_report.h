/* `ptxray run` (docs/emulator.md): a kernel launched on the emulator with
 * the data the command line specifies, the checks it asks for, and the
 * report: a summary line and the checks' findings, or JSON; --print values
 * and --dump files after a run that completed. */
#ifndef PTXRAY_RUN_REPORT_H
#define PTXRAY_RUN_REPORT_H
#include <stdbool.h>
#include "divergence.h"
#include "emu.h"

#define RUN_MAX_SPECS 512 /* of each kind */

/* The command line, as given (cli/cmd_run.c checks the options' syntax;
 * the specifications are checked here, against the module). */
typedef struct run_job {
    const char *path;
    const char *kernel;                 /* NULL: the module's only kernel */
    const char *launches;               /* --launches FILE: the kernel's run there gives grid, block, args */
    emu_dim3 grid, block;
    emu_options eo;
    const char *args[RUN_MAX_SPECS];    /* --arg, one per parameter */
    const char *bufs[RUN_MAX_SPECS];    /* --buf NAME=TYPE:COUNT[:INIT] */
    const char *sets[RUN_MAX_SPECS];    /* --set SYM=... */
    const char *dumps[RUN_MAX_SPECS];   /* --dump NAME=PATH */
    const char *prints[RUN_MAX_SPECS];  /* --print NAME[:COUNT] */
    unsigned nargs, nbufs, nsets, ndumps, nprints;
    bool json, quiet;
    bool checkdiv;                      /* --check-divergence with divan */
    enum div_analysis divan;
} run_job;

/* Runs the job and prints its report on stdout.  Returns the exit status:
 * 0, 1 (a fault, trap, deadlock, step limit, race or violated divergence
 * claim), 2 (bad input, an unsupported instruction). */
int run_exec(const run_job *j);

#endif
