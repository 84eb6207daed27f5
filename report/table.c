#include "table.h"
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

void table_init(table *t, unsigned ncols, unsigned right_mask)
{
    memset(t, 0, sizeof *t);
    t->ncols = ncols;
    t->right = right_mask;
}

static void oom(void)
{
    fputs("ptxray: out of memory\n", stderr);
    abort();
}

void table_cell(table *t, const char *fmt, ...)
{
    va_list ap, aq;
    va_start(ap, fmt);
    va_copy(aq, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) oom();
    while (t->capbuf - t->nbuf < (size_t)n + 1) {
        t->capbuf = t->capbuf ? t->capbuf * 2 : 1024;
        if (!(t->buf = realloc(t->buf, t->capbuf))) oom();
    }
    vsnprintf(t->buf + t->nbuf, (size_t)n + 1, fmt, aq);
    va_end(aq);
    t->ncells++;
    t->nbuf += (size_t)n + 1;
}

void table_heading_row(table *t)
{
    size_t *n = realloc(t->left, (t->nleft + 1) * sizeof *n);
    if (!n) oom();
    t->left = n;
    t->left[t->nleft++] = t->ncells / t->ncols;
}

static bool heading(const table *t, size_t r)
{
    for (size_t i = 0; i < t->nleft; i++)
        if (t->left[i] == r) return true;
    return false;
}

static size_t width(const char *s)
{
    size_t w = 0;
    for (; *s; s++) w += ((unsigned char)*s & 0xc0) != 0x80;
    return w;
}

void table_print(const table *t, FILE *o, const char *indent)
{
    size_t w[32] = {0};
    unsigned nc = t->ncols < 32 ? t->ncols : 32;
    const char *p = t->buf;
    for (size_t i = 0; i < t->ncells; i++, p += strlen(p) + 1) {
        size_t c = i % t->ncols, x = width(p);
        if (c < nc && x > w[c] && !heading(t, i / t->ncols)) w[c] = x;
    }
    const char **row = malloc(sizeof *row * (t->ncols ? t->ncols : 1));
    if (!row) oom();
    p = t->buf;
    for (size_t r = 0; r * t->ncols < t->ncells; r++) {
        fputs(indent, o);
        size_t first = r * t->ncols, last = first + t->ncols;
        if (last > t->ncells) last = t->ncells;
        for (size_t i = first; i < last; i++, p += strlen(p) + 1) row[i - first] = p;
        while (last > first + 1 && !*row[last - 1 - first]) last--; /* no trailing blanks */
        if (heading(t, r)) {
            size_t pos = 0, start = 0;
            for (size_t i = first; i < last; i++) {
                size_t c = i % t->ncols;
                if (c) start += (c - 1 < nc ? w[c - 1] : 0) + 2;
                if (!*row[c]) continue;
                size_t gap = pos < start ? start - pos : pos ? 1 : 0;
                fprintf(o, "%*s%s", (int)gap, "", row[c]);
                pos += gap + width(row[c]);
            }
            fputc('\n', o);
            continue;
        }
        for (size_t i = first; i < last; i++) {
            size_t c = i % t->ncols, pad = c < nc ? w[c] - width(row[c]) : 0;
            bool end = i + 1 == last;
            if (c) fputs("  ", o);
            if (t->right >> c & 1) fprintf(o, "%*s%s", (int)pad, "", row[c]);
            else fprintf(o, "%s%*s", row[c], end ? 0 : (int)pad, "");
        }
        fputc('\n', o);
    }
    free(row);
}

void table_free(table *t)
{
    free(t->buf);
    free(t->left);
    memset(t, 0, sizeof *t);
}
