/* The files of a batch (`check`, `divergence --summary`) worked on by -j N
 * threads, one file per job, with the results handed back in input order
 * (docs/check.md, "Parallel runs").  Each job writes its diagnostics to a
 * stream of its own, which is copied to stderr just before its result is
 * handed back: output and messages are the same bytes, in the same order,
 * for every N.  At most a few jobs per worker run ahead of the first one
 * not yet handed back, so memory is bounded by those, not the run. */
#ifndef PTXRAY_BATCH_H
#define PTXRAY_BATCH_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The result of file i, worked on by worker w (0 to jobs-1: per-worker
 * state is the caller's, indexed by it), diagnostics written to err. */
typedef void *(*batch_work)(void *ctx, unsigned w, size_t i, FILE *err);
/* Called on the calling thread for i = 0, 1, ... in order, each result
 * once.  false stops the batch (a command that stops at its first bad
 * file): no file is started after it, and the results of those already
 * started are still handed back, to be freed, but their diagnostics are
 * dropped. */
typedef bool (*batch_emit)(void *ctx, size_t i, void *result);

typedef struct batch_opts {
    unsigned jobs;      /* 1: the files one after the other on the calling thread */
    const char *cmd;    /* "check": names the progress line */
    char *const *paths; /* the files (their sizes give the progress line's MB/s) */
} batch_opts;

/* The number of online cores: -j's default. */
unsigned batch_default_jobs(void);
/* -j's value: a number from 1 to BATCH_MAX_JOBS; false after
 * "ptxray CMD: -j 'ARG': ..." on stderr. */
#define BATCH_MAX_JOBS 1024
bool batch_parse_jobs(const char *arg, const char *cmd, unsigned *jobs);
/* Works on files 0 to n-1 and hands each result to emit.  On a terminal
 * (stderr), a progress line of files done and MB/s, erased at the end. */
void batch_run(size_t n, const batch_opts *o, batch_work work, batch_emit emit, void *ctx);

#endif
