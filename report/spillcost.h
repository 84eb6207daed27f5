/* ptxray spillcost: the data it collects and the reports it writes
 * (docs/spillcost.md).  spillcost_run.c runs the pass and ptxas and fills
 * sc_report; spillcost_out.c prints it and draws the plot. */
#ifndef PTXRAY_SPILLCOST_H
#define PTXRAY_SPILLCOST_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "block_opt.h"
#include "emu.h"
#include "ra_target.h"
#include "regalloc.h"
#include "spillcost_ptxas.h"

/* The three modes of the pass, then plain ptxas -maxrregcount K on the
 * original file (the reference row). */
enum { SC_LINEAR, SC_DIV, SC_AFF, SC_PTXAS, SC_NMODES };

/* What the emulator measured of a row's rewritten kernel over its
 * launches (--launches): bytes over all lanes, rematerialisations started
 * per lane (emu_stats.spill_*, remat_*). */
typedef struct sc_dyn {
    unsigned launches, mismatches; /* runs, and those that stopped or left other global memory */
    uint64_t local_ld, local_st, shared_ld, shared_st, remat_c, remat_a, remat_s;
} sc_dyn;

/* One run of the --launches file (docs/launches.md): a launch with its
 * grid and arguments (run's --arg). */
typedef struct sc_launch {
    char *kernel;  /* as the file names it (ptx_name_match) */
    emu_dim3 grid, block;
    char **args;
    unsigned nargs;
    char *where;   /* "FILE: kernels[i].shapes[j].launches[k]" */
    uint8_t seen;  /* BLK_SEEN: some file has the kernel; BLK_CLASH: names several of a file */
} sc_launch;

typedef struct sc_row {
    const char *file;      /* as given */
    char *kernel;          /* malloc'd */
    unsigned mode;         /* SC_* */
    unsigned budget;
    ra_func_stats fs;      /* zero for SC_PTXAS */
    bool have_ptxas;
    sc_ptxas_func px;      /* px.name not owned */
    sc_dyn dyn;            /* launches 0: none */
} sc_row;

/* --target-regs N: ptxas -maxrregcount N alone and after the pass's
 * target-registers search, per file and mode (div, aff). */
typedef struct sc_target {
    const char *file;      /* as given */
    unsigned mode;         /* SC_DIV or SC_AFF */
    bool ok;               /* ptxas ran on the input and every candidate */
    ra_target_result res;
} sc_target;

typedef struct sc_report {
    unsigned nbudgets;
    unsigned *budgets;     /* ascending, distinct */
    size_t nrows, caprows;
    sc_row *rows;          /* file, mode (linear, div, aff, ptxas), budget, kernel order */
    size_t nnotes, capnotes;
    char **notes;
    bool have_ptxas;
    unsigned target_regs;  /* 0: no --target-regs */
    size_t ntargets, captargets;
    sc_target *targets;    /* file, mode order */
    char *launch_path;     /* --launches FILE */
    size_t nlaunches;
    sc_launch *launches;
} sc_report;

/* --launches FILE's runs into r (0), or 2 after "FILE...: error: ..." on
 * stderr (hc_table_load, the one reader of launch files). */
int sc_launches_read(sc_report *r, const char *path);
void sc_launches_free(sc_report *r);

/* The dynamic runs of one file (spillcost_dyn.c): the original's launches
 * at the start, each rewrite's rows (r->rows[from..]) filled after it. */
typedef struct sc_dynfile {
    FILE *devnull;         /* device printf */
    const ptx_module *m0;  /* the original (the caller's, kept until sc_dyn_end), which the machines need */
    emu_machine **orig;    /* per launch: after the original's run; NULL: not this file's, or it stopped */
    char **sym;            /* per launch: the symbol of its kernel in this file; NULL: not this file's */
    bool failed;           /* a launch's arguments do not fit its kernel (said on stderr) */
} sc_dynfile;
/* msgs: where a launch that cannot run is said (the file's stream). */
sc_dynfile *sc_dyn_begin(sc_report *r, const char *path, const ptx_module *m, FILE *msgs);
void sc_dyn_rewritten(sc_report *r, sc_dynfile *df, const char *path, const ptx_module *m, size_t from);
void sc_dyn_end(sc_report *r, sc_dynfile *df);

/* A note at the end of the report, once per text. */
void sc_note(sc_report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

const char *sc_mode_name(unsigned mode);

/* Runs the pass in every mode at r->budgets (and r->target_regs when not
 * 0) on the n files, with ptxas -v when it is found (else a note says so),
 * into r; arch NULL: each file's .target.  The files are worked on by
 * jobs threads (batch.h; 0: one per core), each file's rows, notes and
 * messages taken in file order: r and stderr are the same for every
 * number.  0, or 2 after the reason on stderr (bad input: the first bad
 * file stops the run; a --block kernel in none of the files). */
int sc_collect(sc_report *r, char **files, int n, const char *arch, blk_opts *blocks, unsigned jobs);
void sc_report_free(sc_report *r);

/* Sums over the kernels of one mode at one budget. */
typedef struct sc_total {
    uint64_t spilled, state[3], place[RA_P__COUNT];
    uint64_t loads_local, stores_local, loads_shared, stores_shared, remat, remat_const, remat_shared;
    uint64_t loads_local_w, stores_local_w, loads_shared_w, stores_shared_w, remat_w;
    uint64_t shared_bytes;
    uint64_t ptxas_spill_stores, ptxas_spill_loads; /* bytes, over the kernels ptxas reported */
    uint32_t ptxas_known;                           /* kernels ptxas reported */
    sc_dyn dyn;                                     /* over the rows with launches */
    uint32_t dyn_kernels;
} sc_total;

void sc_totals(const sc_report *r, unsigned mode, unsigned budget, sc_total *t);

enum sc_format { SC_TEXT, SC_JSON, SC_CSV };
void sc_print(FILE *o, const sc_report *r, enum sc_format f);

/* Writes the SVG line chart to path atomically (temporary name in the same
 * directory, renamed when gnuplot succeeded).  Returns 0, or -1 with a
 * message on stderr and nothing left behind. */
int sc_plot(const sc_report *r, const char *gnuplot, const char *path);

#endif
