/* One run of `ptxray check` (docs/check.md): every *.ptx file below the
 * paths given, their findings, the baseline's suppressions, the report
 * (text, JSON or SARIF) and the exit status by rule. */
#ifndef PTXRAY_CHECK_RUN_H
#define PTXRAY_CHECK_RUN_H
#include "check_report.h"
#include "config.h"

#define CHK_DEFAULT_RULES                                                                                        \
    (1u << CHK_UNCOALESCED | 1u << CHK_MISALIGNED | 1u << CHK_BANK_CONFLICT | 1u << CHK_DIVERGENT_BARRIER |          \
     1u << CHK_DIVERGENT_COLLECTIVE)

/* The options of a run (cli/cmd_check.c fills them). */
/* --format html: after the coal_format values */
#define CHK_FMT_HTML (COAL_FMT_SARIF + 1)

typedef struct chk_args {
    int format; /* coal_format, or CHK_FMT_HTML */
    const char *baseline, *write, *out; /* NULL when not given */
    unsigned enable, fail_on;           /* masks of (1 << chk_rule) */
    bool strict;                        /* possible findings fail too */
    const char *root;                   /* --root: SARIF URIs relative to it; NULL: the current directory */
    unsigned jobs;                      /* -j: files checked in parallel; 0: one per core */
    coal_options co;
    blk_opts blocks;
    bool fail_on_given;                 /* --fail-on: the project file's fail-on is not read */
    bool strict_assumptions;            /* --strict-assumptions */
    cfg_opt config;                     /* ptxray.yaml found (default), --config FILE, --no-config */
} chk_args;

/* Checks the n paths (files, or directories searched recursively for
 * *.ptx), writes the report to a->out and the baseline to a->write.
 * Returns the exit status: 0 clean, 1 findings of a --fail-on rule, 2 bad
 * input (bad files are reported on stderr and the others still checked;
 * the report is printed on stdout, but no file is written: neither -o's
 * report nor the baseline). */
int chk_check(chk_args *a, char **paths, int n);

#endif
