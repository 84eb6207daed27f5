/* ptxray coalescing's runs (docs/coalescing.md): one file, reported as it
 * always was, or many files worked on by -j N threads (batch.h) and
 * reported in the order given, JSON and SARIF written kernel by kernel
 * (json_stream.h) so that memory is bounded by the files in flight, not
 * the run. */
#ifndef PTXRAY_COAL_RUN_H
#define PTXRAY_COAL_RUN_H
#include <stddef.h>
#include "block_opt.h"

struct cfg_set;

typedef struct coal_run_args {
    int format;       /* coal_format */
    const char *out;  /* -o; NULL: stdout */
    const char *only; /* --kernel (one file only) */
    blk_opts blocks;  /* --block, --launches */
    unsigned jobs;    /* -j; 0: one per core */
    struct cfg_set *configs; /* the project files (config.h): shapes and facts; NULL: none */
} coal_run_args;

/* The report of the n files: 0, or 2 after the reasons on stderr.  With
 * several files a bad one is reported on stderr (in file order) and the
 * others still reported; the status is 2 then, and -o writes nothing. */
int coal_run(coal_run_args *a, char **paths, size_t n);

#endif
