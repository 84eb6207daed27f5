/* Source lines for the reports (srctext.h). */
#include "srctext.h"
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct st_file {
    char *path;   /* as tried */
    char *text;   /* NULL: not readable */
    size_t len;
    uint32_t nlines;
    size_t *start; /* offset of each line */
} st_file;

struct src_texts {
    size_t n, cap;
    st_file *v;
};

src_texts *st_new(void)
{
    src_texts *t = calloc(1, sizeof *t);
    if (!t) abort();
    return t;
}

void st_free(src_texts *t)
{
    if (!t) return;
    for (size_t i = 0; i < t->n; i++) {
        free(t->v[i].path);
        free(t->v[i].text);
        free(t->v[i].start);
    }
    free(t->v);
    free(t);
}

static st_file *load(src_texts *t, const char *path)
{
    for (size_t i = 0; i < t->n; i++)
        if (!strcmp(t->v[i].path, path)) return &t->v[i];
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 16;
        t->v = realloc(t->v, t->cap * sizeof *t->v);
        if (!t->v) abort();
    }
    st_file *f = &t->v[t->n++];
    memset(f, 0, sizeof *f);
    f->path = strdup(path);
    if (!f->path) abort();
    FILE *in = fopen(path, "rb");
    if (!in) return f;
    char *buf = NULL;
    size_t len = 0, cap = 0, k;
    char chunk[65536];
    while ((k = fread(chunk, 1, sizeof chunk, in)) > 0) {
        if (len + k + 1 > cap) {
            cap = 2 * (len + k + 1);
            buf = realloc(buf, cap);
            if (!buf) abort();
        }
        memcpy(buf + len, chunk, k);
        len += k;
    }
    bool err = ferror(in);
    fclose(in);
    if (err) {
        free(buf);
        return f;
    }
    if (!buf) {
        buf = malloc(1);
        if (!buf) abort();
    }
    buf[len] = 0;
    f->text = buf;
    f->len = len;
    /* memchr, not a loop over the bytes: the sources of a check are read
     * whole, and this scan was most of the report's source-line cost */
    uint32_t n = 1;
    for (const char *q = buf, *e = buf + len; (q = memchr(q, '\n', (size_t)(e - q))) != NULL; q++) n++;
    f->start = malloc(sizeof *f->start * (n + 1));
    if (!f->start) abort();
    f->start[0] = 0;
    f->nlines = 1;
    for (const char *q = buf, *e = buf + len; (q = memchr(q, '\n', (size_t)(e - q))) != NULL; q++)
        f->start[f->nlines++] = (size_t)(q - buf) + 1;
    f->start[f->nlines] = len + 1;
    return f;
}

static const char *line_of(st_file *f, uint32_t line, size_t *len)
{
    if (!f->text || !line || line > f->nlines || (line == f->nlines && f->start[line - 1] >= f->len)) return NULL;
    size_t a = f->start[line - 1], b = f->start[line] - 1;
    if (b > f->len) b = f->len;
    if (b > a && f->text[b - 1] == '\r') b--;
    *len = b - a;
    return f->text + a;
}

static st_file *find(src_texts *t, const char *ptx_path, const char *file)
{
    st_file *f = load(t, file);
    if (!f->text && file[0] != '/') {
        /* relative to the PTX file's directory, then its parents */
        const char *slash = strrchr(ptx_path, '/');
        size_t dl = slash ? (size_t)(slash - ptx_path) : 0;
        char cand[4096];
        for (int up = 0; up <= 3 && !f->text; up++) {
            int w = dl ? snprintf(cand, sizeof cand, "%.*s/", (int)dl, ptx_path) : snprintf(cand, sizeof cand, "./");
            for (int k = 0; k < up && w > 0 && (size_t)w < sizeof cand; k++)
                w += snprintf(cand + w, sizeof cand - (size_t)w, "../");
            if (w <= 0 || (size_t)w >= sizeof cand) break;
            snprintf(cand + w, sizeof cand - (size_t)w, "%s", file);
            f = load(t, cand);
        }
    }
    return f;
}

const char *st_find(src_texts *t, const char *ptx_path, const char *file)
{
    st_file *f = find(t, ptx_path, file);
    return f->text ? f->path : NULL;
}

const char *st_line(src_texts *t, const char *ptx_path, const char *file, uint32_t line, size_t *len,
                    const char **found)
{
    if (found) *found = NULL;
    st_file *f = find(t, ptx_path, file);
    if (!f->text) return NULL;
    const char *s = line_of(f, line, len);
    if (s && found) *found = f->path;
    return s;
}
