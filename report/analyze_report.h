/* The report of `ptxray analyze` (docs/analyze.md): per kernel the shares of
 * uniform, affine and divergent values, the register pressure, then the
 * findings of `ptxray check` by likely impact (inside loops first, deeper
 * loops first), ptxas -v's registers, spills and shared memory; as text,
 * JSON or SARIF. */
#ifndef PTXRAY_ANALYZE_REPORT_H
#define PTXRAY_ANALYZE_REPORT_H
#include "block_opt.h"
#include "coalescing.h"
#include "config.h"
#include "regalloc.h"

/* Analyses the PTX file ptx, shown as shown (the .cu it was made from, or
 * itself), and prints the report on stdout: 0, or 2 with the reason on
 * stderr (co->only names no function with a body, a --block kernel is not
 * in the file, bad input). */
typedef struct an_args {
    int format;      /* coal_format: text, json or sarif */
    const char *out; /* -o; NULL: stdout (the file is written whole or not at all) */
    unsigned jobs;   /* several files: -j (0: one per core) */
    bool no_ptxas;   /* --no-ptxas: ptxas -v is not run ("ptxas: not run (--no-ptxas)") */
    cfg_set *configs; /* the project files (config.h): shapes and facts; NULL: none */
} an_args;

int an_report(const char *shown, const char *ptx, const coal_options *co, blk_opts *blocks, const an_args *a);
/* The same as one HTML page (html.h; with `ptxas -v` figures when ptxas)
 * written to out (NULL or "-": stdout) once it is complete: nothing is
 * written on exit 2.  ra: the options of a regalloc run whose spill code
 * the page marks (its blocks are set here: the shapes the analysis
 * uses first), or NULL. */
/* The report of n .ptx files (n > 1) in file order, worked on by a->jobs
 * threads (batch.h), the same bytes for every number: text, each file's
 * report and a line of totals; JSON, one document with a "files" array
 * written kernel by kernel; SARIF, one run with every file's findings.  A
 * bad file is said on stderr (in file order) and the others reported;
 * exit 2 then, and -o is not written.  0 or 2. */
int an_report_files(char **paths, size_t n, const coal_options *co, blk_opts *blocks, const an_args *a);
int an_report_html(const char *shown, const char *ptx, const coal_options *co, blk_opts *blocks, const char *out,
                   bool ptxas, const ra_options *ra, cfg_set *configs);

#endif
