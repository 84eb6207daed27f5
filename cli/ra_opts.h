/* The register-allocation options that `ptxray regalloc` and `ptxray
 * analyze --format html` (which marks the spill code on its page) take
 * alike: --budget, --mode, --max-threads, --smem-limit. */
#ifndef PTXRAY_RA_OPTS_H
#define PTXRAY_RA_OPTS_H
#include <getopt.h>
#include "regalloc.h"

/* getopt_long codes (above any short option) */
enum ra_opt { RA_OPT_BUDGET = 0x100, RA_OPT_MODE, RA_OPT_MAX_THREADS, RA_OPT_SMEM_LIMIT };

/* The four as struct option entries, for a command's table. */
#define RA_OPT_LONG                                                                                                    \
    {"budget", required_argument, 0, RA_OPT_BUDGET}, {"mode", required_argument, 0, RA_OPT_MODE},                      \
        {"max-threads", required_argument, 0, RA_OPT_MAX_THREADS},                                                     \
        {"smem-limit", required_argument, 0, RA_OPT_SMEM_LIMIT}

/* Sets o's field for option `which` from arg: 0, or -1 after
 * "ptxray CMD: --OPT ARG: why" on stderr. */
int ra_opt_set(enum ra_opt which, const char *arg, const char *cmd, ra_options *o);

/* A number from 1 to max: 0, or -1 after "ptxray CMD: OPT S: expected a
 * number from 1 to MAX". */
int ra_opt_number(const char *cmd, const char *opt, const char *s, unsigned long max, unsigned long *out);

#endif
