/* What the parts of the HTML writer (html.h) share: escaping, the page's
 * frame, a kernel's section and its CFG as SVG. */
#ifndef PTXRAY_HTML_INT_H
#define PTXRAY_HTML_INT_H
#include <stdio.h>
#include "html.h"
#include "spillcost_ptxas.h"

/* s (n bytes) with &, <, > and " escaped. */
void html_esc(FILE *o, const char *s, size_t n);
void html_escz(FILE *o, const char *s);

/* <!DOCTYPE html> up to <body>: the style sheet and the script. */
void html_begin(FILE *o, const char *title);
void html_end(FILE *o);

/* A finding's message with what it depends on, and its hint (after
 * `before`, nothing when it has none): the kernel's list and check's
 * index write them alike. */
void html_finding_msg(FILE *o, const chk_finding *x);
void html_finding_hint(FILE *o, const chk_finding *x, const char *before);

/* A badge for a finding's rule: its CSS class ("div", "unc", "mis", "bank"). */
const char *html_rule_class(int rule);

/* Kernel number idx's section (id "kIDX"); px: ptxas -v's figures, or NULL
 * with why saying why there are none. */
void html_kernel_section(FILE *o, const html_kernel *k, uint32_t idx, const sc_ptxas_info *px, const char *why);

/* pf's CFG as inline SVG (Graphviz's dot layout, in-process), nodes and
 * edges with ids "PREFIX_bN"/"PREFIX_eN"; coloured by r.  A note instead
 * when Graphviz fails. */
void html_cfg_svg(FILE *o, const prog_func *pf, const div_result *r, const src_files *sf, const char *prefix);
/* How the page shows the spill code of a regalloc run (html_spill.c). */
/* What the spill code adds to a line's cost: B sectors per warp for a
 * B-byte .local access, one wavefront per .shared one, nothing for a
 * rematerialisation; times its loop weight. */
uint64_t html_ra_site_cost(const ra_site *s);
/* The spill code on one source line: counts and loop-weighted counts of
 * .local reloads and stores, .shared reloads and stores, and
 * rematerialisations; its cost. */
#define HTML_RA_NCAT 5
typedef struct html_ra_line {
    uint32_t n[HTML_RA_NCAT];
    uint64_t w[HTML_RA_NCAT];
    uint64_t cost;
} html_ra_line;
void html_ra_line_add(html_ra_line *l, const ra_site *s);
/* Its data-ra attribute ("ld.local=2 st.local=1 ld.shared=1 st.shared=1
 * remat=3", the counts that are not 0); its marks. */
void html_ra_line_data(const html_ra_line *l, char *buf, size_t n);
void html_ra_line_marks(FILE *o, const html_ra_line *l);
/* One piece of spill code beside the instruction it serves. */
void html_ra_inst_mark(FILE *o, const ptx_func *fn, const ra_site *s);
/* The kernel summary's line for the run; the page's legend of the marks. */
void html_ra_summary(FILE *o, const ra_stats *st, const ra_func_stats *f);
void html_ra_legend(FILE *o);

/* Frees Graphviz's context (html_cfg_svg makes one on first use). */
void html_svg_release(void);

#endif
