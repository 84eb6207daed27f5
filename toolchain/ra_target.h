/* --target-regs N (issue 7, item 9): move just enough uniform and affine
 * values out of registers (shared slots, rematerialisation; never new
 * .local spills) that ptxas at -maxrregcount N spills less to local memory
 * than it does alone (docs/regalloc.md, "Target registers"). */
#ifndef PTXRAY_RA_TARGET_H
#define PTXRAY_RA_TARGET_H
#include <stddef.h>
#include <stdio.h>
#include "regalloc.h"

typedef struct ra_target_result {
    long alone;      /* ptxas spill bytes (stores + loads, all functions) at -maxrregcount N */
    long with;       /* the same for the chosen output (== alone when budget is 0) */
    unsigned budget; /* the budget kept; 0 when none spilled less (the output is the input) */
    unsigned pressure; /* the input's register pressure, max over functions */
    unsigned tried;  /* candidates assembled */
} ra_target_result;

/* Spill bytes (stores + loads) that `ptxas -v` reports in log, summed over
 * its functions. */
long ra_ptxas_spill_bytes(const char *log);

/* Searches budgets from the input's pressure down, with o's mode and
 * options plus only_nonlocal, assembling each distinct candidate with
 * `ptxas -v -arch=ARCH -maxrregcount N`, and keeps the first whose spill
 * bytes are below ptxas-alone's.  m is the parsed input, as parsed again on
 * return (each run on it is undone: regalloc.h, ra_undo);
 * arch NULL: the module's .target.  *out: the chosen PTX text (malloc'd).
 * Returns 0, or 2 with the reason on err ("ptxray CMD: ...", with the log
 * of a ptxas that failed): stderr, or a parallel batch's stream of the file. */
int ra_target_regs(const char *cmd, ptx_module *m, unsigned nregs, const char *arch, const ra_options *o,
                   char **out, size_t *outlen, ra_target_result *res, FILE *err);

/* The line `ptxray regalloc --target-regs` prints on stderr. */
void ra_target_print(FILE *f, const char *shown, unsigned nregs, const ra_target_result *r);

#endif
