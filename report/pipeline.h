/* The one pipeline from a file to the analysed program (docs/architecture.md):
 * every command that analyses PTX loads it here, and nothing parses a file
 * twice.  Its passes, in order:
 *
 *   parse     ptx_load_to        PTX text -> ptx_module (diagnostics, exit 2);
 *             ptx_load_text      PTX taken out of a binary (inputs.h, fatbin/)
 *   kernel    load_kernel        --kernel NAME -> the one function's symbol
 *   build     prog_build         functions -> CFG, SSA, GSA (up to a level)
 *   shapes    blk_check/blk_mark --block, ptxray.yaml, .reqntid, launches,
 *                                 the default:
 *                                 the rounds of launch shapes (blk_opts.round)
 *   coalesce  coal_analyse       each round: the coalescing and bank model
 *   diverge   dr_analyse         each function at each of its rounds: the
 *                                 three divergence analyses
 *   verdicts  div_analyse        each function at its first round: one
 *                                 analysis's verdicts (the DOT's colours)
 *   values    div_analyse        each function the model analysed, at each
 *                                 of its shapes: the degree-2 affine
 *                                 analysis at the model's shape, its counts
 *
 * A command asks for the passes it reports on (pl_options.passes) and reads
 * the result (pl_prog); what is not asked for is not run. */
#ifndef PTXRAY_PIPELINE_H
#define PTXRAY_PIPELINE_H
#include <stdio.h>
#include "coalescing_report.h"
#include "config.h"
#include "div_report.h"
#include "inputs.h"
#include "program.h"

enum pl_pass {
    PL_COALESCE = 1, /* coal_analyse at each round: pl_prog.res, .ctx */
    PL_DIVERGE = 2,  /* dr_analyse of each function at each of its rounds */
    PL_VERDICTS = 4, /* div_analyse (analysis keep) of each function at round 0: pl_prog.dv */
    PL_VALUES = 8,   /* with PL_COALESCE: the degree-2 affine analysis of each function of the model at
                      * each of its shapes, at the model's shape: pl_prog.val */
};

/* A function's values at one of its shapes (PL_VALUES): the degree-2
 * affine analysis at the shape the model resolved for it (coal_func.shape;
 * an unknown one: the default, %tid.y/%tid.z warp-uniform) and its counts
 * (analyze's value shares, the HTML page's abstract values). */
typedef struct pl_values {
    const div_result *r; /* NULL: the function has no such shape */
    dr_stats st;
} pl_values;

/* What the shapes pass does with the --block entries that name kernels. */
enum pl_shapes {
    PL_SHAPES_MARK,  /* one file of several: mark those it has (blk_check_seen after the run) */
    PL_SHAPES_CHECK, /* the run's one file: each must name one of its functions (exit 2) */
};

typedef struct pl_prog pl_prog;

typedef struct pl_options {
    const char *cmd;        /* "ptxray CMD: ..." in messages */
    const char *shown;      /* the file's name in --block errors and reports (a .cu's); NULL: path */
    const char *kernel;     /* --kernel NAME (load.h); NULL: every function with a body */
    enum prog_level level;  /* how far the program is built (PROG_GSA for the analyses) */
    unsigned passes;        /* pl_pass bits */
    blk_opts *blocks;       /* the shapes (block_opt.h; required); read until pl_free */
    enum pl_shapes shapes;
    uint32_t nrounds;       /* rounds of shapes; 0: those the module needs (blk_module_rounds) */
    /* PL_COALESCE: the model's options, copied per round with the kernel's
     * symbol and, when they read the shapes (blk_option_shape), that
     * round's; NULL: those alone */
    const coal_options *co;
    /* PL_DIVERGE: the options (block all zero: each function's from the
     * shapes) and the one analysis whose result stays (dr_analyse's keep;
     * DR_KEEP_NONE: counts only); PL_VERDICTS: the analysis run, with
     * these options (NULL: none) and the shape of round 0 */
    const div_options *div;
    int keep;
    /* PL_DIVERGE: when set, each function's analysis is handed to it (in
     * function order, each at its rounds) and freed at once, so that one
     * is held at a time; else all stay in pl_prog.df */
    void (*each)(void *ctx, const pl_prog *x, const dr_func *f);
    void *each_ctx;
    FILE *err; /* the diagnostics of the parse and build; NULL: stderr */
    /* PTX in memory (a unit out of a binary: inputs.h), named by shown;
     * NULL: the file at path */
    const char *text;
    size_t text_len;
    bool plain; /* path is known to be a PTX file (inputs.h said so): not looked at again */
    /* path parsed already, by a caller that goes on with the module (the
     * nvcc step, which rewrites it after): module, not freed by pl_free, or
     * NULL with module_diags, what the failed parse said (printed on err
     * as the parse pass prints a failure's); both NULL: parse path */
    ptx_module *module;
    const char *module_diags;
    /* The run's project files (config.h; NULL: none): the one found from
     * config_from (NULL: path) gives shapes below --block, facts about
     * parameters to the coalescing model, and is pl_prog.cfg */
    cfg_set *configs;
    const char *config_from;
} pl_options;

struct pl_prog {
    const char *path;       /* the file, or the unit's name ("app[compute_80]") */
    in_unit *unit;          /* what path held, when pl_load looked (owned) */
    ptx_module *m;
    bool m_borrowed;        /* m is pl_options.module: the caller's */
    prog *p;
    const char *kernel;     /* the symbol --kernel named (in m's arena), or NULL */
    const src_files *files; /* the .file table (PL_COALESCE, PL_VERDICTS) */
    sn_src *names;          /* the parameters' source names (PL_COALESCE; srcnames.h) */
    uint32_t nr;            /* rounds of launch shapes (at least 1) */
    blk_opts *rb;           /* per round: the shapes with that round (o->blocks itself for one round 0) */
    bool rb_owned;
    coal_options *rco;      /* per round (PL_COALESCE; in p's arena, as below) */
    coal_result **res;      /* per round (PL_COALESCE) */
    coal_report_ctx *ctx;   /* per round, for the writers (PL_COALESCE) */
    dr_func *df;            /* PL_DIVERGE without each: ndf analyses, functions */
    uint32_t ndf;           /* in order, each at its rounds */
    const div_result **dv;  /* PL_VERDICTS: per function */
    pl_values *val;         /* PL_VALUES: per round r, per function i of res[r]: val[r * res[0]->nfuncs + i] */
    const ptx_config *cfg;  /* the project file, or NULL */
    blk_opts *cb;           /* the options' shapes with the project file's (owned), or NULL */
};

/* Runs the pipeline on path: 0 (pl_free x), or 2 after the reasons on
 * o->err (--kernel and --block errors: stderr) with nothing to free (a
 * pl_free does nothing then). */
int pl_load(pl_prog *x, const char *path, const pl_options *o);
void pl_free(pl_prog *x);

#endif
