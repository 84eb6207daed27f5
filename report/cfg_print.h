/* Text, Graphviz and JSON forms of CFG / SSA / GSA (`ptxray cfg`). */
#ifndef PTXRAY_CFG_PRINT_H
#define PTXRAY_CFG_PRINT_H
#include <stdio.h>
#include "block_opt.h"
#include "divergence.h"
#include "program.h"
#include "srcloc.h"

enum { CFGP_TEXT, CFGP_DOT, CFGP_JSON };

/* DOT without divergence colours or .cu lines: cfg_dot_prog does those. */
void cfg_print_prog(FILE *out, const prog *p, enum prog_level level, int format);

/* What a block of the DOT is coloured by (docs/cfg.md, "Graphviz"): a
 * reachable block or landing block executes with the whole warp
 * (CFGD_UNIFORM), with part of it because it is control-dependent, at any
 * distance, on a branch not proven uniform (CFGD_PARTIAL), or ends in such
 * a branch itself (CFGD_DIVERGENT, whether or not it is also partial);
 * entry, exit and unreachable blocks have no colour (CFGD_NONE). */
enum cfgd_class { CFGD_NONE, CFGD_UNIFORM, CFGD_PARTIAL, CFGD_DIVERGENT };
/* Their fill colours ("#rrggbb"); the outline and the branch's edges of a
 * CFGD_DIVERGENT block are CFGD_EDGE_COLOUR. */
extern const char *const cfgd_fill[4];
#define CFGD_EDGE_COLOUR "#b3261e"

/* The class of every block of pf under r (pf->g->nblocks entries, into cls). */
void cfg_dot_classes(const prog_func *pf, const div_result *r, uint8_t *cls);

/* One function's graph as a DOT cluster, its nodes named P_bN (P: prefix):
 * blocks with their PTX lines and, when files is not NULL, the source
 * lines of their instructions (the user's frame, as findings name it);
 * coloured by divergence when r is not NULL; at level SSA/GSA with the
 * block's phi/gamma/mu/eta functions.  With ids (for pages holding several
 * graphs), every node and edge gets an SVG id (P_bN, P_eN) and the nodes
 * their class (none, uniform, partial, divergent) as an SVG class, and the
 * graph is a plain subgraph instead of a cluster labelled with the
 * function's name. */
typedef struct cfg_dot_opts {
    enum prog_level level;
    const div_result *r;
    const src_files *files;
    const char *prefix;
    bool ids;
} cfg_dot_opts;
void cfg_dot_func(FILE *o, const prog_func *pf, const cfg_dot_opts *opt);
/* A whole digraph around cfg_dot_func clusters (prefix "fI" for function
 * I); r[i] may be NULL, r itself too. */
void cfg_dot_prog(FILE *o, const prog *p, enum prog_level level, const div_result *const *r, const src_files *files);

#endif
