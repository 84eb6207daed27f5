/* Reports of the coalescing model (analyses/coalescing.h): compiler-style
 * text, JSON (docs/coalescing.md has the schema) and SARIF 2.1.0, written
 * kernel by kernel (coal_run.h); the JSON and SARIF pieces are jansson
 * objects that check and analyze embed too. */
#ifndef PTXRAY_COALESCING_REPORT_H
#define PTXRAY_COALESCING_REPORT_H
#include <jansson.h>
#include <stdio.h>
#include "block_opt.h"
#include "coalescing.h"
#include "srcloc.h"
#include "srcnames.h"

enum coal_format { COAL_FMT_TEXT, COAL_FMT_JSON, COAL_FMT_SARIF };

typedef struct coal_report_ctx {
    const coal_result *res;
    const char *ptx_path; /* as given on the command line */
    const coal_options *opts;
    const src_files *files;
    sn_src *names;        /* the source names of parameters (srcnames.h); NULL: none */
} coal_report_ctx;

/* A kernel launched with several shapes is analysed at each: the module
 * once per round (blk_opts.round), c[0..nr) below, the same program and
 * functions in each.  What access j of function i is at each round that
 * analyses the function: one variant per distinct verdict (finding or
 * note, rule, message), with the rounds it holds at; the access of its
 * first round. */
typedef struct coal_variant {
    const coal_report_ctx *c;
    const coal_func *f;
    const coal_access *x;
    bool note;          /* bank-conflict-unknown */
    const char *rule;
    uint8_t certainty;  /* coal_certainty of the verdict (a note: proven) */
    bool by_alignment;  /* coal_verdict.by_alignment */
    char msg[1024];
    uint32_t n, *rounds;
} coal_variant;

/* The variants of access j of function i that are findings or notes, in
 * the order of their first round (free with coal_variants_free). */
uint32_t coal_variants(const coal_report_ctx *c, uint32_t nr, uint32_t i, uint32_t j, coal_variant **out);
void coal_variants_free(coal_variant *v, uint32_t n);
/* The rounds that analyse function i at a shape of its own (1 unless it
 * is launched with several shapes). */
uint32_t coal_nshapes(const coal_report_ctx *c, uint32_t nr, uint32_t i);
/* "holds at 2 of the 3 launch shapes analysed: 4x64x1 (host-code launch
 * at a.cu:29:3), ..." and its JSON [{"block", "from"}, ...]. */
void coal_holds_at_text(const coal_report_ctx *c, uint32_t nr, uint32_t i, const coal_variant *v, char *buf, size_t n);
json_t *coal_holds_at_json(const coal_report_ctx *c, uint32_t i, const coal_variant *v);

/* The finding's one-line message, without position or rule tag. */
void coal_message(const coal_report_ctx *c, const coal_func *f, const coal_access *x, char *buf, size_t n);
/* coal_message with word ("access") for the kind of access (load, store,
 * atomic, prefetch): the message of a finding that groups several kinds. */
void coal_message_as(const coal_report_ctx *c, const coal_func *f, const coal_access *x, const char *word, char *buf,
                     size_t n);
/* What a possible finding depends on (coal_verdict's dep), in words. */
void coal_depends_text(const coal_report_ctx *c, const coal_func *f, const coal_access *a, enum coal_dep d, char *dep,
                       size_t n);
/* {"index", "name"} of the kernel parameter x's message names (its
 * symbolic stride), else NULL (srcnames.h). */
json_t *coal_param_json(const coal_report_ctx *c, const coal_func *f, const coal_access *x);
/* The same as an index (-1: none) and a name (NULL: unknown). */
int32_t coal_param(const coal_report_ctx *c, const coal_func *f, const coal_access *x, const char **name);
/* The uniform value x's message names (its symbolic stride's factor, its
 * bank condition's value) when it is not a kernel parameter, as the
 * message names it ("2·s", "c_cam.width"): true; false when there is none
 * or it is a parameter (coal_param). */
bool coal_value_label(const coal_report_ctx *c, const coal_func *f, const coal_access *x, char *buf, size_t n);
/* The remapping hint of an uncoalesced access (coal_access.hint_kind) with
 * its predicted and current sectors per request, or false: never a hint
 * whose predicted sectors are not strictly fewer than the access's. */
bool coal_hint(const coal_report_ctx *c, const coal_func *f, const coal_access *x, char *buf, size_t n);
/* A symbolic shared stride's degree as a condition on the stride's
 * power-of-two factor ("32-way when `p` is a multiple of 32, ..., conflict-free
 * when it is odd"); "" unless x->bank_cond. */
void coal_bank_condition(const coal_report_ctx *c, const coal_func *f, const coal_access *x, char *buf, size_t n);

/* The text report over the nr rounds c[0..nr) of a module (a kernel
 * launched with several shapes is analysed at each; a finding is said
 * once, with the shapes it holds at), counting what its summary line
 * says: global accesses, uncoalesced, shared accesses, with bank
 * conflicts, not analysed, generic accesses not proven global or shared. */
void coal_report_text_count(FILE *o, const coal_report_ctx *c, uint32_t nr, uint32_t tot[6]);
/* The pieces of the JSON and SARIF reports, for writing them kernel by
 * kernel (coal_run.h): entry q = i * nr + r of the JSON "kernels" (function
 * i at round r; NULL when the round does not analyse it) with its summary
 * counts in n (global, uncoalesced, shared, bank conflicts, not analysed);
 * a summary object of such counts; the SARIF result of a variant. */
json_t *coal_kernel_json(const coal_report_ctx *c0, uint32_t nr, uint32_t q, uint32_t n[5]);
json_t *coal_summary_json(const uint32_t n[5]);
json_t *coal_sarif_access(const coal_report_ctx *c0, uint32_t nr, uint32_t i, const coal_variant *v);

/* The model's assumptions (uses c->opts only). */
json_t *coal_assumptions_json(const coal_report_ctx *c);
/* The shapes behind o (NULL when it has none); a function's origin is
 * coal_func.origin. */
const blk_opts *coal_blocks(const coal_options *o);

/* The SARIF pieces, shared with `ptxray check`: a log with one run whose
 * driver lists the coalescing rules (*run and *rules point into it; add
 * "results"), another rule, a rule's index among the coalescing ones, a
 * text message, a location, a result located at its source position when
 * p->file, with its PTX line and column as related location 1, else at the
 * PTX position (one location per result, as code scanning wants). */
json_t *coal_sarif_log(json_t **run, json_t **rules);
void coal_sarif_add_rule(json_t *rules, const char *id, const char *name, const char *short_text,
                         const char *full_text, const char *help);
/* A path as a uri-reference: unreserved characters and '/' kept, the rest
 * percent-encoded. */
void coal_sarif_uri(const char *path, char *buf, size_t n);
size_t coal_sarif_rule_index(const char *rule);
json_t *coal_sarif_text(const char *t);
json_t *coal_sarif_location(const char *file, uint32_t line, uint32_t col, const char *msg);
json_t *coal_sarif_result(const char *rule, size_t rule_index, const char *msg, const src_pos *p,
                          const char *ptx_path, uint32_t line, uint32_t col, const char *ptx_msg);
/* "PTX instruction ld.global.f32 in Fan2" */
void coal_ptx_note(const ptx_func *fn, const ptx_inst *in, char *buf, size_t n);

/* "text", "json", "sarif" into a coal_format; false after an error
 * message naming `ptxray cmd`. */
bool coal_parse_format(const char *s, const char *cmd, int *format);

/* JSON_PRESERVE_ORDER, two-space indent, trailing newline. */
int coal_json_dump(FILE *o, json_t *j);

#endif
