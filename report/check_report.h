/* The reports of `ptxray check` (docs/check.md): compiler-style text with a
 * summary line, JSON, and SARIF 2.1.0 built from the coalescing report's
 * SARIF pieces.  Findings suppressed by the baseline are counted, not
 * listed. */
#ifndef PTXRAY_CHECK_REPORT_H
#define PTXRAY_CHECK_REPORT_H
#include <stdio.h>
#include "check_findings.h"
#include "json_stream.h"

typedef struct chk_run {
    const chk_list *l;          /* sorted */
    size_t nfiles, nbad;        /* files checked, files with errors */
    unsigned enabled, fail_on;  /* masks of (1 << chk_rule) */
    bool strict;                /* possible findings fail too */
    const coal_options *opts;
    const char *root;           /* SARIF URIs are relative to it (absolute, no trailing slash); NULL: cwd */
    size_t nbin;                /* of nfiles, PTX texts read out of binaries (inputs.h) */
    const char *config_note;    /* the project files' part of the summary (suppressions, assumptions), or NULL */
} chk_run;

/* Whether x makes the exit status 1: unsuppressed, of a --fail-on rule,
 * proven (or --strict). */
bool chk_fails(const chk_run *r, const chk_finding *x);

void chk_report_text(FILE *o, const chk_run *r);
/* The JSON and SARIF reports written finding by finding (json_stream.h:
 * the bytes of json_dumpf on the whole tree, without the tree); false
 * when a write failed. */
bool chk_write_json(FILE *o, const chk_run *r);
bool chk_write_sarif(FILE *o, const chk_run *r);
/* One finding as check's JSON lists it (analyze's JSON too), as an element
 * or the member key of the stream's innermost container. */
void chk_put_finding(jstream *s, const chk_finding *x);
/* The SARIF log as one tree (analyze's, which edits it). */
json_t *chk_report_sarif(const chk_run *r);
/* "uncoalesced 3, misaligned 0, bank-conflict 1" over enabled rules, unsuppressed findings. */
void chk_counts_text(const chk_run *r, char *buf, size_t n);
/* "%016" PRIx64 */
void chk_fingerprint_text(uint64_t fp, char buf[17]);

#endif
