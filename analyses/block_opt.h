/* --block, the same for every command that analyses divergence or
 * coalescing (docs/divergence-reports.md, "Block shape").  A function's
 * block shape is, in this order: the one a `--block KERNEL=X,Y,Z` naming
 * it gives, else `--block X,Y,Z`, else the project file's (a ptxray.yaml
 * entry naming it, a glob allowed: report/config.h), else its .reqntid, else the shape its
 * host code launches it with (--launches FILE.json, or the .cu of
 * `analyze`; docs/launches.md), else none: the default assumption,
 * blockDim.x a multiple of 32, which the analyses apply themselves when
 * the shape they are given is all zero. */
#ifndef PTXRAY_BLOCK_OPT_H
#define PTXRAY_BLOCK_OPT_H
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include "launch_table.h"
#include "ptx.h"

enum blk_origin { BLK_KERNEL, BLK_ALL, BLK_CONFIG, BLK_REQNTID, BLK_LAUNCH, BLK_DEFAULT, BLK_NORIGINS };

#define BLK_DEFAULT_TEXT "blockDim.x is a multiple of 32"
#define BLK_ORDER_TEXT \
    "per kernel: --block KERNEL=, else --block, else ptxray.yaml, else .reqntid, else host-code launches, else " \
    "default: blockDim.x a multiple of 32"

typedef struct blk_kernel {
    const char *arg;  /* the option's value, "KERNEL=X,Y,Z" (not copied); a project file's: the pattern */
    size_t len;       /* of the kernel's name */
    uint32_t block[3];
    uint8_t seen;     /* BLK_SEEN: a file has one function with a body of that name;
                       * BLK_CLASH: a file has several (merged with |=) */
    bool glob;        /* arg is an fnmatch pattern (ptx_name_glob) */
    const char *from; /* a project file's entry: where ("ptxray.yaml:5"); NULL: --block */
} blk_kernel;

enum { BLK_SEEN = 1, BLK_CLASH = 2 };

#define BLK_MAX 64

typedef struct blk_opts {
    uint32_t all[3];  /* --block X,Y,Z; all zero when not given */
    uint32_t n;
    blk_kernel k[BLK_MAX]; /* --block KERNEL=X,Y,Z, in the order given (the last wins) */
    const hc_table *launches; /* host-code launch shapes; NULL: none */
    uint32_t round; /* a kernel launched with several shapes gets its shape number round
                     * (the last one past its count): commands that analyse each shape
                     * run once per round (blk_module_rounds) */
} blk_opts;

/* --launches FILE.json: loads it into b (kept until exit).  false after an
 * error on stderr. */
bool blk_add_launches(blk_opts *b, const char *path, const char *cmd);
/* How many shapes the kernel with the most has, over the whole table (at
 * least 1); blk_module_rounds counts those of one module's kernels. */
uint32_t blk_rounds(const blk_opts *b);
/* fn's entry in the launch table, shapes or not (its parameters' names:
 * report/srcnames.h), or NULL. */
const hc_kshapes *blk_launch_entry(const blk_opts *b, const ptx_func *fn);
/* The shapes host code launches fn with (NULL: none), and how many. */
const hc_kshapes *blk_launch_shapes(const blk_opts *b, const ptx_func *fn);
/* How many shapes fn is analysed at: its launch shapes when they give its
 * shape (nothing above them in the precedence), else 1. */
uint32_t blk_nshapes(const blk_opts *b, const ptx_func *fn);
/* Shape s (from 0) of every shape a launch of fn may have, for what must
 * hold at all of them (uniformize's .uni): its shapes (blk_nshapes, shape
 * s at round s), then the default assumption too when host code also
 * launches it with a shape it does not fix.  The shape into block, all
 * zero where the analysis reads .reqntid or assumes the default, and its
 * origin into *o; false past the last. */
bool blk_every_shape(const blk_opts *b, const ptx_func *fn, uint32_t s, uint32_t block[3], enum blk_origin *o);
/* The rounds m needs: the most shapes one of its functions is analysed at
 * (at least 1). */
uint32_t blk_module_rounds(const blk_opts *b, const ptx_module *m);
/* Whether fn is analysed at a shape of its own in b's round: round 0, or
 * a round below blk_nshapes (a function with fewer shapes is done). */
bool blk_round_has(const blk_opts *b, const ptx_func *fn);
/* What a report says fn's shape comes from: blk_origin_text(o), or for a
 * host-code launch "host-code launch at FILE:LINE:COL" (the first launch
 * with the shape of the current round). */
const char *blk_origin_for(const blk_opts *b, const ptx_func *fn, enum blk_origin o);

/* Adds a project file's shape for the kernels pattern names (a name as
 * --block KERNEL= takes it, or a glob: `transpose*<*>`), below every
 * --block; from: where it is written ("ptxray.yaml:5", kept).  false when
 * the table is full (BLK_MAX). */
bool blk_add_config(blk_opts *b, const char *pattern, const uint32_t block[3], const char *from);
/* Adds one --block value: "X[,Y[,Z]]" or "KERNEL=X[,Y[,Z]]", missing
 * extents 1, each 1-1024, at most 1024 threads; at most BLK_MAX kernels
 * (nothing to free).  false after
 * "ptxray CMD: --block '...': why" on stderr. */
bool blk_add(blk_opts *b, const char *arg, const char *cmd);
/* fn's shape into block (all zero for the default) and its origin; b may be NULL. */
enum blk_origin blk_resolve(const blk_opts *b, const ptx_func *fn, uint32_t block[3]);
/* The shape the options give fn (per kernel, else --block): the callback
 * of coal_options and ra_options, ctx a blk_opts. */
bool blk_option_shape(const void *ctx, const ptx_func *fn, uint32_t block[3]);
/* "--block KERNEL=", "--block", ".reqntid", "host-code launch", "default: blockDim.x a multiple of 32" */
const char *blk_origin_text(enum blk_origin o);

/* Marks the entries that name a function with a body of m (as every
 * option naming a kernel does, ptx_name_match: the symbol, the C++ name in
 * full or without its parameters; no prefix, a shape is not a pick). */
void blk_mark(blk_opts *b, const ptx_module *m);
/* blk_mark, then false after an error for an entry naming no function of
 * m or several (overloads without their parameters), or a launch-table
 * kernel naming several, with m's functions listed. */
bool blk_check(blk_opts *b, const ptx_module *m, const char *cmd, const char *path);
/* After blk_mark over several files: false after an error for an entry
 * none of them had, or one naming several functions of a file. */
bool blk_check_seen(const blk_opts *b, const char *cmd);

/* "block shape from --block KERNEL= in 1 of 3 functions, from .reqntid in
 * 1 of 3 functions, else unknown, assumed blockDim.x is a multiple of 32"
 * from the number of functions of each origin. */
void blk_summary(const blk_opts *b, const uint32_t count[BLK_NORIGINS], char *buf, size_t n);
/* [x, y, z], or null for all zero */
json_t *blk_shape_json(const uint32_t block[3]);
/* {"KERNEL": [x, y, z], ...} */
json_t *blk_kernels_json(const blk_opts *b);

#endif
