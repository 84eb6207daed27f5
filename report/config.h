/* The project file, ptxray.yaml (docs/check.md, "Stated assumptions"):
 * what a team knows that the PTX cannot say, written once for every run.
 *
 *   fail-on: uncoalesced,misaligned       # as --fail-on (the command line wins)
 *   kernels:
 *     - kernel: "transpose*<*>"           # a name as --block KERNEL= takes it, or a glob
 *       block: [32, 8, 1]                 # its block shape (below --block, above .reqntid)
 *       assume:                           # facts about its parameters
 *         - width % 32 == 0
 *         - in % 128 == 0                 # a pointer 128-byte aligned
 *   suppress:
 *     - kernel: conv3x3_const
 *       rule: misaligned
 *       file: constant_memory.cu          # optional, with line: optional
 *       line: 36
 *       reason: halo loads, measured     # required
 *       expires: 2027-06-30               # optional: after it, check fails
 *
 * Found as .clang-tidy is: ptxray.yaml (or .ptxray.yaml) in an input
 * file's directory, else its parent's, up to the root, the nearest wins;
 * `--config FILE` names one for every input, `--no-config` reads none.
 * Read with libyaml; an error in it is `FILE:LINE:COL: error: ...` with the
 * line and a caret (ptxparse's diagnostics), exit 2; an unknown key is an
 * error (a typo must not drop an assumption silently). */
#ifndef PTXRAY_CONFIG_H
#define PTXRAY_CONFIG_H
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "addr_chain.h"
#include "block_opt.h"

typedef struct ptx_config ptx_config;

/* A fact about a parameter: `NAME % 2^k == R`; NAME its source name (as
 * the .cu calls it, report/srcnames.h) or its PTX name. */
typedef struct cfg_fact {
    char *text;   /* as written, whitespace collapsed */
    char *param;
    residue res;
    uint32_t line, col;
    char *where;  /* "ptxray.yaml:7" */
    const ptx_config *cfg;
    /* counted from every thread (atomics): accesses whose finding it
     * changed, and whose finding it cleared (they are findings without it) */
    uint32_t changed, cleared;
    /* functions analysed that its kernel entry names, and those of them
     * where it named a parameter (atomics): asked but never bound is a name
     * no parameter has, said at the end */
    uint32_t asked, bound;
    /* where findings it cleared were, "src/x.cu:37 [misaligned] in k", each
     * once, sorted (under a lock); cfg_drop_present removes those a finding
     * of the run still has (only some of their PTX instructions cleared) */
    size_t ncleared_at;
    char **cleared_at;
} cfg_fact;

typedef struct cfg_kernel {
    char *pattern;
    uint32_t line, col;
    bool has_block;
    uint32_t block[3];
    char *where;
    uint32_t nfacts;
    cfg_fact *facts;
    uint32_t matched; /* functions it named (atomic) */
} cfg_kernel;

typedef struct cfg_supp {
    char *kernel;   /* pattern */
    char *file;     /* NULL: any; else the source (or PTX) file's path, a suffix of it after '/', or a glob */
    uint32_t src_line; /* 0: any */
    unsigned rules; /* mask of (1 << chk_rule) */
    char *rule_text;
    char *reason;
    char *expires;  /* YYYY-MM-DD or NULL */
    bool expired;
    uint32_t line, col;
    char *where;
    uint32_t used;  /* findings it suppressed (atomic) */
} cfg_supp;

struct ptx_config {
    char *path;    /* as opened */
    char *shown;   /* relative to the current directory when below it */
    bool has_fail_on;
    unsigned fail_on;
    uint32_t nk, ns;
    cfg_kernel *k;
    cfg_supp *s;
};

enum cfg_mode { CONFIG_DISCOVER, CONFIG_FILE, CONFIG_NONE };

/* What a command line says of the project file (cli/config_opt.h parses
 * it): --config FILE, --no-config, else (all zero) the file found from
 * each input's directory. */
typedef struct cfg_opt {
    enum cfg_mode mode;
    const char *file; /* --config FILE */
} cfg_opt;

/* The project files of a run: one per input directory, found once. */
typedef struct cfg_set {
    enum cfg_mode mode;
    const char *file; /* --config FILE */
    pthread_mutex_t mu;
    size_t ndirs;
    char **dirs;             /* absolute directories looked at */
    ptx_config **dcfg;       /* the file each found (NULL: none) */
    size_t n;
    ptx_config **all;        /* every file read, in the order first found */
} cfg_set;

void cfg_set_init(cfg_set *s, enum cfg_mode mode, const char *file);
void cfg_set_free(cfg_set *s);
/* The project file for input (a path; its directory is where the search
 * starts), NULL when none: 0, or 2 after the error on stderr. */
int cfg_for(cfg_set *s, const char *input, const ptx_config **out);
/* Initialises s and finds the project file of each of the n inputs before
 * anything runs, so that an error in one stops the run: 0, or 2 after the
 * error on stderr (s then freed). */
int cfg_set_open(cfg_set *s, enum cfg_mode mode, const char *file, char *const *inputs, size_t n);
/* Reads path into *out: 0, or 2 after FILE:LINE:COL: error on err. */
int cfg_load(const char *path, ptx_config **out, FILE *err);
void cfg_free(ptx_config *c);

/* Appends c's block shapes to b (below --block): false when the table is
 * full (message on stderr). */
bool cfg_add_blocks(const ptx_config *c, blk_opts *b, const char *cmd);

/* Counts, for each kernel entry of c, whether m has a function it names
 * (cfg_report_end warns about those that named none). */
void cfg_mark(const ptx_config *c, const ptx_module *m);
/* Whether pattern (a name or a glob) names fn, as --block KERNEL= does. */
bool cfg_names(const char *pattern, const ptx_func *fn);

/* What the coalescing model's facts_of reads (coalescing.h): the file's
 * config and the parameters' source names. */
struct sn_src;
typedef struct cfg_facts_ctx {
    const ptx_config *cfg;
    struct sn_src *names;
} cfg_facts_ctx;
bool cfg_facts_of(const void *ctx, const ptx_func *fn, param_facts *out);

/* A fact changed (cleared: removed) the finding of a PTX instruction:
 * counted; at, for a cleared one, where it was. */
void cfg_fact_note(const cfg_fact *f, bool cleared, const char *at);

/* The suppression of c that covers a finding (rule, kernel fn, source file
 * and line, or the PTX path and line without one), NULL if none; an
 * expired one covers nothing. */
cfg_supp *cfg_suppression(const ptx_config *c, unsigned rule, const ptx_func *fn, const char *file, uint32_t line);
/* Marks the findings first.. of l (of module m) that c suppresses
 * (chk_finding.supp) and counts them on the suppression: check's and the
 * nvcc wrapper's. */
struct chk_list;
void cfg_suppress(struct chk_list *l, size_t first, const ptx_module *m, const ptx_config *c);

/* Drops from each fact's cleared_at the places where a finding remains:
 * at is one, as cfg_fact_note's at. */
void cfg_drop_present(cfg_set *s, const char *at);

/* The end of a run: warnings for kernel patterns that named nothing,
 * errors for expired suppressions; with strict (--strict-assumptions),
 * every assumption and suppression no finding used.  Prints the facts used
 * and what they changed (text reports: out, may be NULL).  supps: what
 * the run did with the suppressions (enum cfg_supps).  Returns 1 when an
 * expired suppression (CFG_SUPPS_GATE) or (strict) an unused assumption
 * makes the run fail, else 0. */
enum cfg_supps {
    CFG_SUPPS_NONE, /* not applied (coalescing lists every access) */
    CFG_SUPPS_GATE, /* applied, and an expired one fails the run (check) */
    CFG_SUPPS_SAY,  /* applied, and an expired one is a warning (analyze) */
};
int cfg_report_end(cfg_set *s, FILE *out, FILE *err, bool strict, enum cfg_supps supps);

/* The fail-on of the files read: 0 and *mask when none or all that say
 * one agree (*has false when none says), 2 after an error when they differ. */
int cfg_fail_on(const cfg_set *s, bool *has, unsigned *mask, const char *cmd);

#endif
