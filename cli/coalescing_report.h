/* Reports of the coalescing model (analyses/coalescing.h): compiler-style
 * text, JSON (docs/coalescing.md has the schema) and SARIF 2.1.0.  Meant to
 * be shared by `ptxray coalescing` and the later check/analyze commands:
 * coal_report_json and coal_report_sarif return jansson objects that a
 * caller can embed; the write functions print them deterministically. */
#ifndef PTXRAY_COALESCING_REPORT_H
#define PTXRAY_COALESCING_REPORT_H
#include <jansson.h>
#include <stdio.h>
#include "coalescing.h"
#include "srcloc.h"

enum coal_format { COAL_FMT_TEXT, COAL_FMT_JSON, COAL_FMT_SARIF };

typedef struct coal_report_ctx {
    const coal_result *res;
    const char *ptx_path; /* as given on the command line */
    const coal_options *opts;
    const src_files *files;
} coal_report_ctx;

/* The finding's one-line message, without position or rule tag. */
void coal_message(const coal_report_ctx *c, const coal_func *f, const coal_access *x, char *buf, size_t n);
/* A remapping hint for an uncoalesced access, or false. */
bool coal_hint(const coal_report_ctx *c, const coal_func *f, const coal_access *x, char *buf, size_t n);

json_t *coal_report_json(const coal_report_ctx *c);
json_t *coal_report_sarif(const coal_report_ctx *c);
void coal_report_text(FILE *o, const coal_report_ctx *c);

/* JSON_PRESERVE_ORDER, two-space indent, trailing newline. */
int coal_json_dump(FILE *o, json_t *j);

#endif
