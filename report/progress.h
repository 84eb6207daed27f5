/* A progress line on stderr for long runs (analyze: "analyze: 120/213
 * kernels"), rewritten in place with \r and cleared at the end.  Only
 * when stderr is a terminal and the run has taken more than a second:
 * never in a pipe, a file or CI, and never for a short run, so that
 * reports and logs are the same bytes with or without it. */
#ifndef PTXRAY_PROGRESS_H
#define PTXRAY_PROGRESS_H
#include <stdbool.h>
#include <stddef.h>

typedef struct progress {
    bool on;        /* stderr is a terminal */
    bool shown;     /* a line is on the screen */
    double start, last;
    const char *what; /* "analyze" */
} progress;

/* Starts the clock (the run's start: the time before the first tick counts). */
void pg_start(progress *p, const char *what);
/* "WHAT: done/total UNIT", at most ten times a second, once past a second. */
void pg_tick(progress *p, size_t done, size_t total, const char *unit);
/* Clears the line (if one was shown). */
void pg_end(progress *p);

#endif
