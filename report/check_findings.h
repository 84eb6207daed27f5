/* The findings `ptxray check` and `ptxray analyze` report (docs/check.md):
 * the coalescing model's uncoalesced, misaligned and bank-conflicting
 * accesses and the branches the affine analysis cannot prove uniform, each
 * with its PTX and source positions, message, loop depth and a fingerprint
 * that survives unrelated edits. */
#ifndef PTXRAY_CHECK_FINDINGS_H
#define PTXRAY_CHECK_FINDINGS_H
#include <stdbool.h>
#include <stdint.h>
#include "coalescing_report.h"

enum chk_rule { CHK_UNCOALESCED, CHK_MISALIGNED, CHK_BANK_CONFLICT, CHK_DIVERGENT_BRANCH, CHK_NRULES };

typedef struct chk_finding {
    const char *ptx_path;   /* the list's copy */
    char *kernel;
    uint8_t rule;           /* chk_rule */
    bool suppressed;        /* by the baseline */
    uint32_t line, col;     /* PTX */
    char *src_file;         /* outermost .loc position, NULL without one */
    uint32_t src_line, src_col;
    char *message, *hint;   /* hint may be NULL */
    char *inst;             /* the instruction, registers without numbers */
    char *access;           /* pattern, stride and bytes of an access; NULL for a branch */
    uint32_t loop_depth;    /* 0: not in a loop */
    uint64_t fingerprint;
} chk_finding;

typedef struct chk_list {
    size_t n, cap;
    chk_finding *v;
    size_t npaths;
    char **paths;
    uint32_t origin[BLK_NORIGINS]; /* functions analysed, by the origin of their block shape */
    /* Branches proven warp-uniform only under the default block-shape
     * assumption (message: the condition, "blockDim.x is a multiple of
     * 32"): not findings, but the verdicts a user with another shape must
     * re-check (with --block). */
    size_t ncv, capcv;
    chk_finding *cv;
} chk_list;

const char *chk_rule_name(enum chk_rule r); /* "uncoalesced", ... */
/* "uncoalesced,bank-conflict" into a mask of (1 << chk_rule); false on an unknown name. */
bool chk_parse_rules(const char *s, unsigned *mask);

/* Appends the findings of rules in mask for every analysed function of a
 * parsed file (res from coal_analyse over p), with their fingerprints. */
void chk_collect(chk_list *l, const char *path, const coal_report_ctx *c, unsigned mask);
/* Parses path, builds it at PROG_GSA and runs the coalescing model (only
 * on the function o->only picks, as --kernel: load.h): 0, or 2 with
 * diagnostics on stderr, as "ptxray CMD: ...".  Free *m and *p with
 * chk_unload. */
int chk_load(const char *cmd, const char *path, const coal_options *o, ptx_module **m, prog **p, coal_result **res);
void chk_unload(ptx_module *m, prog *p);

/* By PTX file, line, column, rule. */
void chk_sort(chk_list *l);
void chk_free(chk_list *l);

#endif
