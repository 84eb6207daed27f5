/* Simple divergence analysis (Sampaio et al. 2013, section 3.3, Fig. 10)
 * on gated SSA, extended with the divergence sources and uniform facts of
 * real PTX (docs/divergence.md).  A value is uniform when every active
 * thread of a warp sees the same value; the analysis starts from the
 * sources of divergence and marks everything that depends on them, through
 * data (operands, a partial definition's old value) and through control
 * (the gates of gamma, mu and eta functions: rules GAMD, ETAD, PDVD). */
#ifndef PTXRAY_DIVERGENCE_H
#define PTXRAY_DIVERGENCE_H
#include "program.h"

enum div_state { DIV_UNIFORM = 0, DIV_DIVERGENT = 1 };

typedef struct div_options {
    /* Block shape, 0 = unknown.  %tid.y is warp-uniform only when the x
     * extent is a multiple of 32, %tid.z when x*y is; with an unknown shape
     * (and no .reqntid) they are divergent unless assume_tid_yz_uniform. */
    uint32_t block[3];
    bool assume_tid_yz_uniform;
} div_options;

/* Why a value is a source of divergence (DIV_SRC_NONE: it is not one). */
enum div_source {
    DIV_SRC_NONE, DIV_SRC_TID, DIV_SRC_LANE, DIV_SRC_CLOCK, DIV_SRC_ATOMIC, DIV_SRC_LOCAL_LOAD,
    DIV_SRC_GENERIC_LOAD, DIV_SRC_CALL, DIV_SRC_SHFL, DIV_SRC_COLLECTIVE, DIV_SRC_UNKNOWN, DIV_SRC_PARAM_REG,
    DIV_SRC_UNDEF,
};

typedef struct div_result {
    const prog_func *pf;
    uint8_t *state;   /* per SSA value: div_state */
    uint8_t *source;  /* per SSA value: div_source */
    uint32_t block[3];/* the shape used (from options or .reqntid), 0 = unknown */
    bool tid_y_uniform, tid_z_uniform;
} div_result;

/* Runs the analysis on one function (pf->gsa must be built).  Memory from
 * a; linear in the number of values plus their dependences. */
div_result *div_simple(const prog_func *pf, const div_options *o, arena *a);

/* The verdict of the branch ending block b (which must have two or more
 * successors): its gate's state. */
enum div_state div_branch(const div_result *r, uint32_t b);

const char *div_source_name(enum div_source s);

#endif
