/* Shared by the benchmarks: a growing text buffer and a clock for those
 * that generate PTX in memory, the corpus files read into memory, and the
 * generated many-block kernel. */
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
/* The generated kernel of ptxray-cfgbench and ptxray-costbench: a chain of
 * if/else diamonds, loops with an inner branch and an early exit, and
 * three-way brx.idx switches, with eight accumulators live throughout, so
 * that joins and loop headers get phi functions; at least `want` basic
 * blocks. */
/* Returns the PTX text; *blocks receives the number of basic blocks. */
static inline char *gen_blocks_kernel(unsigned want, size_t *len, unsigned *blocks)
{
    buf b = {0};
    emit(&b, ".version 8.0\n.target sm_80\n.address_size 64\n\n"
             ".visible .entry big(.param .u64 out, .param .u32 n)\n{\n"
             "\t.reg .pred %%p<4>;\n\t.reg .b32 %%a<9>;\n\t.reg .b32 %%t<4>;\n\t.reg .b32 %%c;\n"
             "\t.reg .b64 %%rd<3>;\n\t.reg .b32 %%n;\n"
             "\tld.param.u64 %%rd1, [out];\n\tld.param.u32 %%n, [n];\n");
    for (int i = 1; i <= 8; i++) emit(&b, "\tmov.u32 %%a%d, %%tid.x;\n", i);
    unsigned nb = 1, seg = 0, lab = 0;
    while (nb < want) {
        unsigned a = 1 + seg % 8, c = 1 + (seg + 3) % 8;
        switch (seg % 3) {
        case 0: /* diamond: 3 blocks */
            emit(&b, "\tsetp.lt.u32 %%p1, %%a%u, %%a%u;\n\t@%%p1 bra $E%u;\n"
                     "\tadd.s32 %%a%u, %%a%u, 3;\n\tbra.uni $J%u;\n"
                     "$E%u:\n\tmul.lo.s32 %%a%u, %%a%u, 5;\n$J%u:\n",
                 a, c, lab, a, a, lab, lab, a, a, lab);
            nb += 3;
            break;
        case 1: /* loop with an inner if and an early exit: 5 blocks */
            emit(&b, "\tmov.u32 %%c, 0;\n$H%u:\n\tadd.s32 %%a%u, %%a%u, %%c;\n"
                     "\tsetp.gt.u32 %%p2, %%a%u, %%n;\n\t@%%p2 bra $X%u;\n"
                     "\tand.b32 %%t1, %%c, 1;\n\tsetp.eq.u32 %%p3, %%t1, 0;\n\t@%%p3 bra $S%u;\n"
                     "\txor.b32 %%a%u, %%a%u, %%c;\n$S%u:\n\tadd.s32 %%c, %%c, 1;\n"
                     "\tsetp.lt.u32 %%p1, %%c, %%n;\n\t@%%p1 bra $H%u;\n$X%u:\n",
                 lab, a, a, a, lab, lab, c, c, lab, lab, lab);
            nb += 5;
            break;
        default: /* three-way switch: 5 blocks */
            emit(&b, "\trem.u32 %%t2, %%a%u, 3;\n\t$T%u: .branchtargets $K%u_0, $K%u_1, $K%u_2;\n"
                     "\tbrx.idx %%t2, $T%u;\n"
                     "$K%u_0:\n\tadd.s32 %%a%u, %%a%u, 1;\n\tbra.uni $W%u;\n"
                     "$K%u_1:\n\tadd.s32 %%a%u, %%a%u, 2;\n\tbra.uni $W%u;\n"
                     "$K%u_2:\n\tadd.s32 %%a%u, %%a%u, 7;\n$W%u:\n",
                 a, lab, lab, lab, lab, lab, lab, c, c, lab, lab, c, c, lab, lab, c, c, lab);
            nb += 5;
            break;
        }
        seg++;
        lab++;
    }
    for (int i = 1; i <= 8; i++)
        emit(&b, "\tst.global.u32 [%%rd1+%d], %%a%d;\n", 4 * (i - 1), i);
    emit(&b, "\tret;\n}\n");
    *len = b.n;
    *blocks = nb;
    return b.p;
}

#endif
