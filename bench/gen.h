/* Shared by the benchmarks that generate PTX in memory: a growing text
 * buffer and a clock. */
#ifndef PTXRAY_BENCH_GEN_H
#define PTXRAY_BENCH_GEN_H
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static inline double now(clockid_t c)
{
    struct timespec t;
    clock_gettime(c, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

typedef struct buf {
    char *p;
    size_t n, cap;
} buf;

static inline void emit(buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline void emit(buf *b, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(b->p + b->n, b->cap - b->n, fmt, ap);
        va_end(ap);
        if (n >= 0 && (size_t)n < b->cap - b->n) {
            b->n += (size_t)n;
            return;
        }
        b->cap = b->cap ? b->cap * 2 : 1 << 20;
        b->p = realloc(b->p, b->cap);
        if (!b->p) abort();
    }
}

#endif
