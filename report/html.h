/* ptxray's HTML pages (docs/html.md): one self-contained file (inline CSS,
 * inline SVG, a small inline script; nothing fetched) that opens from disk.
 * analyze's page has, per kernel, a summary, the .cu source with each
 * line marked by its findings and coloured by their cost, the PTX of a
 * clicked line with each instruction's abstract value, and the CFG drawn
 * by Graphviz, coloured by divergence; check's page an index of files and
 * kernels with their finding counts, linking to a section per file.  The
 * same input gives the same bytes. */
#ifndef PTXRAY_HTML_H
#define PTXRAY_HTML_H
#include <stdbool.h>
#include <stdio.h>
#include "check_report.h"
#include "pipeline.h"
#include "regalloc.h"
#include "progress.h"
#include "summary_table.h"

/* One kernel at one block shape, as analyze analysed it. */
typedef struct html_kernel {
    const coal_report_ctx *ctx;
    const coal_func *f;
    const chk_list *l;    /* the file's findings (all kernels) */
    const pl_values *val; /* its values at this shape (pipeline.h, PL_VALUES) */
    const ra_stats *ra;   /* the regalloc run whose spill code the page marks (NULL: none) */
    const ra_func_stats *raf; /* this function's part of it (NULL: none) */
    uint32_t func;        /* its index in the file's functions (the summary table's) */
} html_kernel;

/* analyze's page for the n kernels of module m, read from ptx and shown as
 * shown: sum (summary_table.h) on top, then its groups in its order, each
 * a <details> with its kernels' sections in PTX order.  A page whose
 * sections come to more than HTML_PLAIN_MAX bytes has its groups closed,
 * each one's sections deflated (zlib) and base64'd in a <script> the
 * page's script inflates when the group is opened (or a link points
 * into it); else they are open, as written.  With ptxas, the registers,
 * spills and shared memory of `ptxas -v` (when it is found and assembles
 * the file).  pg: the run's progress line, ticked per kernel section. */
#define HTML_PLAIN_MAX (1u << 20)
void html_analyze(FILE *o, const char *shown, const char *ptx, const ptx_module *m, const html_kernel *ks, size_t n,
                  const sum_table *sum, bool ptxas, progress *pg);
/* The spill code of a regalloc run for analyze's page (html_spill.c).  html_ra_run: ra_run
 * with o (and ra_options.sites) on m itself, whose functions then get
 * their statements and registers back, as written; 0, or 2 with the reason
 * on stderr (its warnings go there too).  html_ra_func: fn's part of the
 * run, or NULL. */
int html_ra_run(ptx_module *m, const char *shown, const ra_options *o, ra_stats *st);
const ra_func_stats *html_ra_func(const ra_stats *st, const ptx_module *m, const ptx_func *fn);
/* check's page for a run (r->l sorted). */
void html_check(FILE *o, const chk_run *r);

#endif
