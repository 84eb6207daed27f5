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

static void stream_row(table *t);

static char *cell_room(table *t, size_t n)
{
    while (t->capbuf - t->nbuf < n + 1) {
        t->capbuf = t->capbuf ? t->capbuf * 2 : 1024;
        if (!(t->buf = realloc(t->buf, t->capbuf))) oom();
    }
    return t->buf + t->nbuf;
}

/* Formatted once: "%s" (most cells) is copied, anything short is written
 * to the stack first (a table of 200k rows is formatted twice when
 * streamed, and vsnprintf dominated). */
void table_cell(table *t, const char *fmt, ...)
{
    va_list ap, aq;
    va_start(ap, fmt);
    size_t len;
    if (fmt[0] == '%' && fmt[1] == 's' && !fmt[2]) {
        const char *s = va_arg(ap, const char *);
        len = strlen(s);
        memcpy(cell_room(t, len), s, len + 1);
    } else {
        char tmp[128];
        va_copy(aq, ap);
        int n = vsnprintf(tmp, sizeof tmp, fmt, aq);
        va_end(aq);
        if (n < 0) oom();
        len = (size_t)n;
        if (len < sizeof tmp) memcpy(cell_room(t, len), tmp, len + 1);
        else vsnprintf(cell_room(t, len), len + 1, fmt, ap);
    }
    va_end(ap);
    t->ncells++;
    t->nbuf += len + 1;
    if (t->pass && t->ncells % t->ncols == 0) stream_row(t);
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

/* Row r, whose n cells are row[0..n), in the widths w of the first nc
 * columns. */
static void print_row(const table *t, FILE *o, const char *indent, const char **row, size_t n, bool head,
                      const size_t *w, unsigned nc)
{
    fputs(indent, o);
    while (n > 1 && !*row[n - 1]) n--; /* no trailing blanks */
    if (head) {
        size_t pos = 0, start = 0;
        for (size_t c = 0; c < n; c++) {
            if (c) start += (c - 1 < nc ? w[c - 1] : 0) + 2;
            if (!*row[c]) continue;
            size_t gap = pos < start ? start - pos : pos ? 1 : 0;
            fprintf(o, "%*s%s", (int)gap, "", row[c]);
            pos += gap + width(row[c]);
        }
        fputc('\n', o);
        return;
    }
    for (size_t c = 0; c < n; c++) {
        size_t pad = c < nc ? w[c] - width(row[c]) : 0;
        bool end = c + 1 == n;
        if (c) fputs("  ", o);
        if (t->right >> c & 1) fprintf(o, "%*s%s", (int)pad, "", row[c]);
        else fprintf(o, "%s%*s", row[c], end ? 0 : (int)pad, "");
    }
    fputc('\n', o);
}

/* row[0..n): the n cells that start at p; returns the text after them. */
static const char *split_row(const char **row, const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++, p += strlen(p) + 1) row[i] = p;
    return p;
}

static const char **row_room(const table *t)
{
    const char **row = malloc(sizeof *row * (t->ncols ? t->ncols : 1));
    if (!row) oom();
    return row;
}

static void widen(size_t *w, unsigned nc, size_t c, const char *cell)
{
    size_t x = width(cell);
    if (c < nc && x > w[c]) w[c] = x;
}

void table_print(const table *t, FILE *o, const char *indent)
{
    size_t w[32] = {0};
    unsigned nc = t->ncols < 32 ? t->ncols : 32;
    const char *p = t->buf;
    for (size_t i = 0; i < t->ncells; i++, p += strlen(p) + 1)
        if (!heading(t, i / t->ncols)) widen(w, nc, i % t->ncols, p);
    const char **row = row_room(t);
    p = t->buf;
    for (size_t r = 0; r * t->ncols < t->ncells; r++) {
        size_t first = r * t->ncols, n = t->ncells - first < t->ncols ? t->ncells - first : t->ncols;
        p = split_row(row, p, n);
        print_row(t, o, indent, row, n, heading(t, r), w, nc);
    }
    free(row);
}

/* The row being filled is complete (or the last, short one): measure it or
 * print it, then forget its cells. */
static void stream_row(table *t)
{
    size_t n = t->ncells % t->ncols ? t->ncells % t->ncols : t->ncols, r = (t->ncells - 1) / t->ncols;
    unsigned nc = t->ncols < 32 ? t->ncols : 32;
    if (!t->row) t->row = row_room(t);
    const char **row = t->row;
    split_row(row, t->buf, n);
    bool head = heading(t, r);
    if (t->pass == 1) {
        if (!head)
            for (size_t c = 0; c < n; c++) widen(t->w, nc, c, row[c]);
    } else {
        print_row(t, t->out, t->indent, row, n, head, t->w, nc);
    }
    t->nbuf = 0;
}

void table_stream(table *t, FILE *o, const char *indent, void (*fill)(table *t, void *ctx), void *ctx)
{
    t->out = o;
    t->indent = indent;
    memset(t->w, 0, sizeof t->w);
    for (t->pass = 1; t->pass <= 2; t->pass++) {
        t->ncells = t->nbuf = t->nleft = 0;
        fill(t, ctx);
        if (t->ncells % t->ncols) stream_row(t);
    }
    t->pass = 0;
}

void table_free(table *t)
{
    free(t->buf);
    free(t->row);
    free(t->left);
    memset(t, 0, sizeof *t);
}
