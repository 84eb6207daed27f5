/* The findings `ptxray check` and `ptxray analyze` report (docs/check.md):
 * the coalescing model's uncoalesced, misaligned and bank-conflicting
 * accesses and the branches the affine analysis cannot prove uniform,
 * grouped by source location: one finding per (kernel, source file, line,
 * rule), at the innermost position of the inlining chain that is not in a
 * CUDA toolkit header, with the PTX instructions it covers, its cost
 * (excess sectors or wavefronts summed, weighted by loop depth), its
 * certainty (proven, or possible with what it depends on) and a
 * fingerprint that survives path spelling, moved directories and shifted
 * lines. */
#ifndef PTXRAY_CHECK_FINDINGS_H
#define PTXRAY_CHECK_FINDINGS_H
#include <stdbool.h>
#include <stdint.h>
#include "coalescing_report.h"
#include "srctext.h"

enum chk_rule {
    CHK_UNCOALESCED, CHK_MISALIGNED, CHK_BANK_CONFLICT, CHK_DIVERGENT_BRANCH, CHK_DIVERGENT_BARRIER,
    CHK_DIVERGENT_COLLECTIVE, CHK_NRULES
};

/* proven: the model shows the excess for every launch that satisfies the
 * stated assumptions; possible: it depends on a loaded value, an unknown
 * alignment, an unknown stride or the lanes' branch conditions. */
enum chk_certainty { CHK_PROVEN, CHK_POSSIBLE };

/* A loop multiplies a finding's excess by this per level of depth. */
#define CHK_LOOP_WEIGHT 10

typedef struct chk_pos {
    char *file; /* NULL for a PTX position (the finding's ptx_path) */
    uint32_t line, col;
} chk_pos;

/* A block shape a finding was found at: the kernel's shape and what it
 * comes from (blk_origin_for), with the finding's cost and certainty
 * there. */
typedef struct chk_shape {
    uint32_t block[3];      /* all zero: the default assumption */
    char *from;
    uint64_t cost;
    uint8_t certainty;
} chk_shape;

typedef struct chk_finding {
    const char *ptx_path;   /* the list's copy */
    const char *also;       /* a binary's PTX found in other places too (inputs.h), or NULL; not owned */
    char *kernel;           /* as people name it: demangled when a C++ symbol */
    char *symbol;           /* the PTX symbol */
    uint8_t rule;           /* chk_rule */
    uint8_t certainty;      /* chk_certainty */
    bool suppressed;        /* by the baseline */
    uint32_t line, col;     /* the first PTX instruction */
    uint32_t ninst;         /* PTX instructions covered */
    chk_pos *insts;         /* their PTX positions, in PTX order */
    char *src_file;         /* the user's frame, NULL without .loc */
    uint32_t src_line, src_col;
    uint32_t ncalls;        /* the call sites it was inlined at, innermost first */
    chk_pos *calls;
    char *src_text;         /* the source line as read, NULL when it could not be */
    char *message, *hint;   /* of the costliest instruction; hint may be NULL */
    char *depends;          /* possible: what it depends on; NULL when proven */
    bool has_param;         /* the message names kernel parameter param (srcnames.h) */
    uint32_t param;
    char *param_name;       /* its source name; NULL when unknown */
    char *value;            /* the uniform value the message names when it is not a parameter ("2·s", "c_cam.width"); else NULL */
    char *inst;             /* the first instruction, registers without numbers */
    char *access;           /* pattern, stride and bytes of an access; NULL for a branch */
    uint32_t loop_depth;    /* the deepest of its instructions; 0: not in a loop */
    uint64_t excess;        /* excess sectors or wavefronts per request summed over its instructions (1 per branch) */
    uint64_t cost;          /* each instruction's excess times CHK_LOOP_WEIGHT^depth, summed */
    uint64_t fingerprint;
    uint8_t origin;         /* blk_origin of the kernel's shape */
    uint32_t nshapes;       /* the shapes its kernel was analysed at (blk_nshapes) */
    uint32_t nat;           /* those it holds at (1 to nshapes), in launch order */
    chk_shape *at;
    /* While a function's findings are collected and grouped: the accesses
     * its access text (the group's first) and its message and hint (the
     * group's representative, with its excess) are written from, once
     * grouping has dropped the rest; NULL for a branch. */
    const coal_access *acc_src, *msg_src;
    uint32_t msg_excess;
    bool mixed; /* the group holds several kinds of access (a load and a store): an "access" */
    /* The project file's facts that changed it (report/config.h): "w % 32
     * == 0 (ptxray.yaml:7)", several joined by "; "; NULL: none */
    char *assumed;
    const void *supp; /* the project file's suppression (cfg_supp) that covers it, or NULL */
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
     * re-check (with --block).  One per branch, not grouped. */
    size_t ncv, capcv;
    chk_finding *cv;
    size_t ungrouped;               /* PTX-level findings before grouping */
    src_texts *texts;               /* source lines read (created by chk_collect) */
} chk_list;

const char *chk_rule_name(enum chk_rule r); /* "uncoalesced", ... */
/* Every rule's name, for messages that list them. */
#define CHK_RULE_LIST "uncoalesced, misaligned, bank-conflict, divergent-branch, divergent-barrier, divergent-collective"
const char *chk_certainty_name(enum chk_certainty c); /* "proven", "possible" */
/* "uncoalesced,bank-conflict" into a mask of (1 << chk_rule); false on an unknown name. */
bool chk_parse_rules(const char *s, unsigned *mask);

/* The verdict on one access of the coalescing model, as check reports it:
 * false when it is no finding; else its rule, certainty, excess sectors or
 * wavefronts per request (at least 1) and, when possible, what it depends
 * on (into dep).  Includes the possible misalignment of an access whose
 * lane 0 alignment is not known (docs/check.md). */
bool chk_access_verdict(const coal_report_ctx *c, const coal_func *f, const coal_access *a, enum chk_rule *rule,
                        enum chk_certainty *cert, uint32_t *excess, char *dep, size_t ndep);

/* Appends the findings of rules in mask for every analysed function of a
 * parsed file (res from coal_analyse over p), grouped, with their
 * fingerprints. */
void chk_collect(chk_list *l, const char *path, const coal_report_ctx *c, unsigned mask);
/* The same for a file whose kernels are analysed at several launch shapes
 * (blk_module_rounds): first = chk_collect_begin(l), then chk_collect_at
 * once per round (the round of the blk_opts behind c->opts; a function
 * that has no shape of its own in the round is skipped), each finding
 * merged with the same one of an earlier round (same kernel, rule and
 * source line, or PTX position without one) and the shape added to the
 * ones it holds at, then chk_collect_end for the source lines and the
 * fingerprints (a shape is no part of them). */
size_t chk_collect_begin(chk_list *l);
void chk_collect_at(chk_list *l, size_t first, const char *path, const coal_report_ctx *c, unsigned mask);
void chk_collect_end(chk_list *l, size_t first, const char *path);
/* "16x16x1 (host-code launch at a.cu:83:5)", "default: blockDim.x ..." */
void chk_shape_text(const chk_shape *s, char *buf, size_t n);
/* Where x holds: "block 16x16x1 (--block KERNEL=)" for a kernel analysed
 * at one shape, "holds at 2 of the 3 launch shapes analysed: 16x16x1
 * (host-code launch at a.cu:83:5), ..." ("holds at all 3 ...") for one
 * analysed at several. */
void chk_holds_at_text(const chk_finding *x, char *buf, size_t n);
/* [{"block": [x, y, z] or null, "from", "certainty", "cost"}, ...] */
json_t *chk_holds_at_json(const chk_finding *x);
/* Appends src's findings (those of the files after dst's, in order) to
 * dst's and empties src: a parallel run's per-file lists into the run's. */
void chk_merge(chk_list *dst, chk_list *src);

/* The one ranking of every view (check's text, SARIF and HTML, analyze's
 * findings and its summary table): by proven cost, highest first, then by
 * possible cost (a possible finding's cost is a bound).  A finding ranks
 * as (cost, 0) when proven and (0, cost) when possible; its cost is at
 * least 1 (excess >= 1), so every proven finding comes before every
 * possible one.  A group of findings (analyze's summary) ranks by its
 * proven and possible costs summed: one with a proven finding first.
 * <0, 0 or >0 as qsort wants. */
int chk_rank_cmp(uint64_t proven_a, uint64_t possible_a, uint64_t proven_b, uint64_t possible_b);
/* chk_rank_cmp's order, then PTX file, line, column, rule. */
void chk_sort(chk_list *l);
/* chk_sort's order for an array of pointers to findings (qsort). */
int chk_cmp_ptr(const void *a, const void *b);
void chk_free(chk_list *l);

#endif
