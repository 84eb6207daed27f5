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

void table_cell(table *t, const char *fmt, ...)
{
    va_list ap, aq;
    va_start(ap, fmt);
    va_copy(aq, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (s) vsnprintf(s, (size_t)n + 1, fmt, aq);
    va_end(aq);
    va_end(ap);
    if (t->ncells == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 64;
        t->cells = realloc(t->cells, t->cap * sizeof *t->cells);
    }
    if (!s || !t->cells) {
        fputs("ptxray: out of memory\n", stderr);
        abort();
    }
    t->cells[t->ncells++] = s;
}

void table_heading_row(table *t)
{
    size_t *n = realloc(t->left, (t->nleft + 1) * sizeof *n);
    if (!n) {
        fputs("ptxray: out of memory\n", stderr);
        abort();
    }
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
    for (size_t i = 0; i < t->ncells; i++) {
        size_t c = i % t->ncols, x = width(t->cells[i]);
        if (c < nc && x > w[c] && !heading(t, i / t->ncols)) w[c] = x;
    }
    for (size_t r = 0; r * t->ncols < t->ncells; r++) {
        fputs(indent, o);
        size_t first = r * t->ncols, last = first + t->ncols;
        if (last > t->ncells) last = t->ncells;
        while (last > first + 1 && !*t->cells[last - 1]) last--; /* no trailing blanks */
        if (heading(t, r)) {
            size_t pos = 0, start = 0;
            for (size_t i = first; i < last; i++) {
                size_t c = i % t->ncols;
                if (c) start += (c - 1 < nc ? w[c - 1] : 0) + 2;
                if (!*t->cells[i]) continue;
                size_t gap = pos < start ? start - pos : pos ? 1 : 0;
                fprintf(o, "%*s%s", (int)gap, "", t->cells[i]);
                pos += gap + width(t->cells[i]);
            }
            fputc('\n', o);
            continue;
        }
        for (size_t i = first; i < last; i++) {
            size_t c = i % t->ncols, pad = c < nc ? w[c] - width(t->cells[i]) : 0;
            bool end = i + 1 == last;
            if (c) fputs("  ", o);
            if (t->right >> c & 1) fprintf(o, "%*s%s", (int)pad, "", t->cells[i]);
            else fprintf(o, "%s%*s", t->cells[i], end ? 0 : (int)pad, "");
        }
        fputc('\n', o);
    }
}

void table_free(table *t)
{
    for (size_t i = 0; i < t->ncells; i++) free(t->cells[i]);
    free(t->cells);
    free(t->left);
    memset(t, 0, sizeof *t);
}
