/* Shared helpers for the Criterion tests. */
#ifndef PTXRAY_TESTUTIL_H
#define PTXRAY_TESTUTIL_H
#include <stddef.h>
#include "ptx.h"
#include "program.h"
#include "ssa.h"
#include "divergence.h"

/* $PTXRAY_SRC (repository root) joined with rel; static buffer. */
const char *tu_src(const char *rel);
/* $PTXRAY_BIN, the binary under test. */
const char *tu_bin(void);
/* Sorted list of *.ptx files under dir (recursive); *n receives the count. */
char **tu_list_ptx(const char *dir, size_t *n);
void tu_free_list(char **v, size_t n);
/* Whole file, NUL-terminated; *len may be NULL. */
char *tu_read(const char *path, size_t *len);
/* Runs argv with stdout/stderr captured (malloc'd); returns exit status. */
int tu_run(char *const argv[], char **out, char **err);
/* rm -rf dir (a test's temporary directory). */
void tu_rm_rf(const char *dir);
/* chdir to $PTXRAY_SRC (the source tree), else stay. */
void tu_at_root(void);
/* tu_run, asserting exit status want: stdout, and stderr in *err (freed
 * when err is NULL). */
char *tu_run_want(char **argv, int want, char **err);
/* Text of ptx_print_module(m), malloc'd. */
char *tu_print(const ptx_module *m, size_t *len);
/* The SSA value named name ("%r3.2"), or fails the test. */
uint32_t tu_value_named(const ssa_func *s, const char *name);
/* Parses text or fails the test with the diagnostics. */
ptx_module *tu_parse_ok(const char *name, const char *text);
/* m built to GSA (only function fn when not NULL), or fails the test with
 * the diagnostics. */
prog *tu_gsa_ok(ptx_module *m, const char *fn);
/* A module's last function analysed by one divergence analysis: the
 * tests of the analyses share it. */
typedef struct tu_div_run {
    ptx_module *m;
    prog *p;
    div_result *r;
} tu_div_run;
/* text parsed, built to GSA, its last function analysed by an (or fails
 * the test); tu_div_done frees it. */
tu_div_run tu_div_analyse(const char *text, enum div_analysis an, const div_options *o);
void tu_div_done(tu_div_run *x);
/* First instruction of function fn (by name), or NULL. */
const ptx_inst *tu_first_inst(const ptx_module *m, const char *fn, const char *opcode_prefix);
/* Validates the SARIF `$PTXRAY_BIN ptxray_args` prints against
 * tests/data/sarif-2.1.0.schema.json with python3's jsonschema (required:
 * scripts/setup.sh installs python3-jsonschema) and what code scanning
 * needs besides (tests/validate_sarif.py): one location per result, the
 * uriBaseIds defined, and for `check` partialFingerprints. */
void tu_expect_sarif_schema(const char *ptxray_args);
#endif
