/* `ptxray uniformize`: every conditional branch that the divergence
 * analysis proves uniform marked as such (bra -> bra.uni, brx.idx ->
 * brx.idx.uni); a verdict that rests on the default block-shape assumption
 * is reported, not written. */
#ifndef PTXRAY_UNIFORMIZE_H
#define PTXRAY_UNIFORMIZE_H
#include "div_report.h"

/* Writes path with the marks to out (NULL: stdout) and a one-line summary
 * to stderr; only `kernel`'s branches when not NULL.  0, or 2 with the
 * reason on stderr (nothing written). */
int uni_run(const char *path, const char *kernel, dr_config *c, const char *out);

#endif
