/* The progress line (progress.h). */
#include "progress.h"
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

void pg_start(progress *p, const char *what)
{
    p->on = isatty(STDERR_FILENO);
    p->shown = false;
    p->start = now();
    p->last = 0;
    p->what = what;
}

void pg_tick(progress *p, size_t done, size_t total, const char *unit)
{
    if (!p->on) return;
    double t = now();
    if (t - p->start <= 1.0 || (p->shown && t - p->last < 0.1)) return;
    /* \033[K: a shorter line leaves nothing of the longer one before it */
    fprintf(stderr, "\r%s: %zu/%zu %s\033[K", p->what, done, total, unit);
    fflush(stderr);
    p->shown = true;
    p->last = t;
}

void pg_end(progress *p)
{
    if (!p->shown) return;
    fputs("\r\033[K", stderr);
    fflush(stderr);
    p->shown = false;
}
