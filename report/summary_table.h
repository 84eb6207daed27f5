/* analyze's summary table (docs/analyze.md, "The summary table"): the
 * functions of a file grouped, a template's instances under their
 * template (ptx_demangle_template) with a count, any other function on
 * its own; per group its findings by rule and certainty and its proven
 * and possible costs; groups ranked as findings are (chk_rank_cmp:
 * proven cost, then possible cost, highest first), ties by name, then
 * by their first function in PTX order.  The text report, its JSON and
 * the HTML page all show this one table. */
#ifndef PTXRAY_SUMMARY_TABLE_H
#define PTXRAY_SUMMARY_TABLE_H
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include "check_findings.h"

typedef struct sum_group {
    char *name;       /* the template ("ns::reduce"), or the function's name for people */
    bool is_template;
    uint32_t n;       /* its functions */
    uint32_t *fn;     /* their indices in the file's function list, in PTX order */
    uint32_t count[CHK_NRULES][2]; /* findings by rule and certainty (chk_certainty) */
    uint64_t cost[2]; /* proven, possible */
} sum_group;

typedef struct sum_table {
    sum_group *g; /* ranked */
    size_t n;
    uint32_t nfuncs;
    uint32_t *group_of; /* per function: its group */
    /* the findings a project file suppressed (in no group), and that
     * file's name; NULL: no project file with suppressions (not said) */
    size_t nsupp;
    const char *supp_by;
} sum_table;

/* The table of the n functions fns (a file's analysed functions, PTX
 * order) and their findings in l (matched by symbol). */
void sum_build(sum_table *t, const ptx_func *const *fns, uint32_t n, const chk_list *l);
/* "summary: ..." then the table, columns aligned; then "suppressed: N
 * findings by FILE" when supp_by is set. */
/* Whether the tables (text, HTML) have a column for rule r: the four
 * always, the barrier and collective rules (bugs, seldom found) only when
 * a group has a finding of them.  JSON has every rule. */
bool sum_shows_rule(const sum_table *t, int r);
void sum_text(FILE *o, const sum_table *t);
/* [{"name", "template", "functions", "symbols": [...], "findings": {RULE:
 * {"proven", "possible"}}, "cost": {"proven", "possible"}}, ...] */
json_t *sum_json(const sum_table *t, const ptx_func *const *fns);
void sum_free(sum_table *t);

#endif
