/* What `ptxray divergence` and `ptxray uniformize` report about a function:
 * the assumptions behind the verdicts, every conditional branch and every
 * value the program defines with its verdict, and statistics for all three
 * analyses (like Sampaio et al. 2013, Fig. 22).  The formats are in
 * docs/divergence-reports.md. */
#ifndef PTXRAY_DIV_REPORT_H
#define PTXRAY_DIV_REPORT_H
#include <jansson.h>
#include <stdio.h>
#include "block_opt.h"
#include "config.h"
#include "divergence.h"

#define DR_NAN 3 /* number of analyses: indexes of r[] and st[] are div_analysis */

typedef struct dr_config {
    enum div_analysis analysis; /* the one whose verdicts are listed */
    div_options div;            /* block all zero: each function's comes from blocks */
    unsigned list;              /* bit s set: list the values whose state is s */
    blk_opts blocks;            /* --block */
    unsigned jobs;              /* --summary -j: files analysed in parallel; 0: one per core */
    cfg_set *configs;           /* the run's project files (their block shapes), opened by the command */
} dr_config;

/* One analysis over one function, counting only what is listed: values
 * defined by instructions, gamma/mu and eta functions; conditional branches
 * in reachable blocks. */
typedef struct dr_stats {
    uint32_t values, state[3]; /* state[] indexed by div_state */
    uint32_t branches, branches_divergent;
} dr_stats;

/* A conditional branch: a reachable block with two or more successors. */
typedef struct dr_branch {
    uint32_t block, stmt;     /* the block and its terminator */
    const ptx_locinfo *src;   /* the nearest .loc before it, or NULL */
} dr_branch;

typedef struct dr_func {
    arena a;                  /* everything below that dr_analyse makes */
    const prog_func *pf;
    div_options div;          /* the options used: the function's --block shape */
    uint8_t origin;           /* blk_origin of its block shape */
    const char *origin_text;  /* blk_origin_for: what the shape comes from */
    div_result *r[DR_NAN];    /* only r[keep] (dr_analyse); the others NULL */
    dr_stats st[DR_NAN];
    uint32_t nbranches;
    dr_branch *branches;      /* in program order */
    uint32_t nvalues;
    uint32_t *values;         /* values of the kinds listed (--values filters
                               * them by state when printing), by PTX line */
    uint32_t *lines;          /* the PTX line of each: its instruction's, or
                               * for a gamma, mu or eta function the first
                               * line of its block */
} dr_func;

/* "simple", "affine", "affine2"; false for anything else. */
bool dr_parse_analysis(const char *s, enum div_analysis *a);
/* "all", "none", or states separated by commas ("divergent,affine") into
 * a dr_config.list mask; false for anything else. */
bool dr_parse_values(const char *s, unsigned *mask);

/* Handles the options both commands share: 'a' --analysis, 'b' --block,
 * 'u' --assume-tid-yz-uniform.  Returns 1 if c is not one of them, 0 when
 * handled, -1 after printing an error prefixed by cmd. */
int dr_option(int c, const char *arg, dr_config *cfg, const char *cmd);

/* Runs the three analyses on pf, with o and the block shape blocks gives
 * pf (NULL: o's), and collects what is listed and counted.  Only the
 * result of analysis `keep` stays (f->r[keep]; DR_KEEP_NONE: counts
 * only): the others are counted and freed one by one before it is run,
 * so that a large function holds one analysis's per-value state at a
 * time, not three (docs/front-end.md, "Memory").  Its memory is f->a:
 * dr_func_free. */
#define DR_KEEP_NONE (-1)
void dr_analyse(dr_func *f, const prog_func *pf, const div_options *o, const blk_opts *blocks, int keep);
void dr_func_free(dr_func *f);

/* The counts of one analysis's result r of pf (every report's one
 * counting): its values of the kinds listed by state, its conditional
 * branches (reachable blocks with two or more successors) and those not
 * proven uniform. */
void dr_count(const prog_func *pf, const div_result *r, dr_stats *st);

/* "uniform", or "uniform (if blockDim.x is a multiple of 32)" with cond bits. */
const char *dr_verdict_text(const char *verdict, unsigned cond, char *buf, size_t n);

/* Why %tid.y (dim 1) or %tid.z (dim 2) was treated as it was. */
const char *dr_tid_reason(const div_result *r, const div_options *o, int dim, char *buf, size_t n);

/* "inst", "gamma", "mu" or "eta". */
const char *dr_value_kind(const prog_func *pf, uint32_t v);

void dr_print_text(FILE *o, const ptx_module *m, const char *path, const dr_func *fs, uint32_t n,
                   const dr_config *c);
/* {"values", "branches", "simple": {...}, "affine": {...}, "affine2": {...}} */
json_t *dr_stats_json(const dr_stats st[DR_NAN]);
json_t *dr_json(const ptx_module *m, const char *path, const dr_func *fs, uint32_t n, const dr_config *c);
/* The same document written to s as it is made, kernel by kernel and value
 * by value (json_stream.h): memory bounded by one value's object, not the
 * tree of a 100k-block kernel's values (which was 100x the input). */
struct jstream;
void dr_json_write(struct jstream *s, const ptx_module *m, const char *path, const dr_func *fs, uint32_t n,
                   const dr_config *c);

/* `ptxray divergence FILE`: the report of path (only `kernel` when not
 * NULL) in text or JSON, written to out (NULL: stdout) once everything is
 * computed.  0, or 2 with the reason on stderr (nothing written). */
int dr_run_file(const char *path, const char *kernel, dr_config *c, bool json, const char *out);
/* `ptxray divergence --summary`: one line per function of the files,
 * sorted by path, and a TOTAL line (text), or the same in JSON. */
int dr_run_summary(char **files, size_t nfiles, dr_config *c, bool json, const char *out);

#endif
