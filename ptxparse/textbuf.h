/* A growing text buffer, always NUL-terminated once written to: what the
 * passes use to build text a bit at a time (the scratch module of the
 * register allocator's new lines, the nvcc wrapper's cicc command). */
#ifndef PTXRAY_TEXTBUF_H
#define PTXRAY_TEXTBUF_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct textbuf {
    char *p;
    size_t n, cap;
} textbuf;

static inline void tb_put(textbuf *b, const char *s, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        b->cap = (b->n + n + 1) * 2;
        if (!(b->p = realloc(b->p, b->cap))) {
            fputs("ptxray: out of memory\n", stderr);
            abort();
        }
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = 0;
}

static inline void tb_puts(textbuf *b, const char *s) { tb_put(b, s, strlen(s)); }

#endif
