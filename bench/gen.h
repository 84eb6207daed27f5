/* Shared by the benchmarks that generate PTX in memory: a growing text
 * buffer and a clock. */
#ifndef PTXRAY_BENCH_GEN_H
#define PTXRAY_BENCH_GEN_H
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

typedef struct file {
    char *path, *text;
    size_t len;
} file;

static inline int strcmp_ptr(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Every *.ptx file under dir (recursive, sorted), read into memory. */
static inline void collect(const char *dir, file **v, size_t *n, size_t *cap)
{
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    char **names = NULL;
    size_t nn = 0;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        names = realloc(names, sizeof *names * (nn + 1));
        names[nn] = malloc(strlen(dir) + strlen(e->d_name) + 2);
        sprintf(names[nn++], "%s/%s", dir, e->d_name);
    }
    closedir(d);
    qsort(names, nn, sizeof *names, strcmp_ptr);
    for (size_t i = 0; i < nn; i++) {
        struct stat st;
        if (stat(names[i], &st) == 0 && S_ISDIR(st.st_mode)) collect(names[i], v, n, cap);
        else if (strlen(names[i]) > 4 && !strcmp(names[i] + strlen(names[i]) - 4, ".ptx")) {
            FILE *f = fopen(names[i], "rb");
            if (f) {
                if (*n == *cap) {
                    *cap = *cap ? *cap * 2 : 64;
                    *v = realloc(*v, sizeof **v * *cap);
                }
                file *x = &(*v)[(*n)++];
                x->path = strdup(names[i]);
                fseek(f, 0, SEEK_END);
                x->len = (size_t)ftell(f);
                fseek(f, 0, SEEK_SET);
                x->text = malloc(x->len + 1);
                if (fread(x->text, 1, x->len, f) != x->len) x->len = 0;
                fclose(f);
            }
        }
        free(names[i]);
    }
    free(names);
}

#endif
