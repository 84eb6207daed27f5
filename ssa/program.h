/* Every function of a module with its CFG, SSA and GSA: what the analyses
 * and the `cfg` command start from.  One arena holds it all. */
#ifndef PTXRAY_PROGRAM_H
#define PTXRAY_PROGRAM_H
#include "gsa.h"

enum prog_level {
    PROG_CFG, PROG_SSA, PROG_GSA,
    PROG_LEVEL_MASK = 0xff,
    /* or'd into prog_build's level by a caller that only prints what is
     * built (cfg text and JSON): large functions' freed build scratch is
     * handed back to the system between phases (program.c) */
    PROG_RETURN_SCRATCH = 0x100,
};

typedef struct prog_func {
    const ptx_func *fn;
    cfg *g;
    ssa_func *ssa; /* PROG_SSA and above */
    gsa_func *gsa; /* PROG_GSA */
} prog_func;

typedef struct prog {
    const ptx_module *m;
    arena a;
    uint32_t nfuncs;
    prog_func *funcs; /* functions with a body, in module order */
} prog;

/* Builds up to `level` for every function with a body (or only the one
 * named `only`).  NULL with errors in d if a CFG cannot be built. */
prog *prog_build(const ptx_module *m, enum prog_level level, const char *only, ptx_diags *d);
void prog_free(prog *p);

#endif
