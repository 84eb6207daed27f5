/* gpurun: runs kernels and their `ptxray regalloc` rewrites on a real GPU
 * through the CUDA driver API, checks that every rewrite leaves global
 * memory exactly as the original does, and times each one
 * (docs/gpu-check.md; run by bench/gpu/device.sh on a machine with a GPU).
 *
 *   gpurun [--reps N] [--dump DIR] --variant LABEL=PATTERN[@MAXREG]...
 *          LAUNCHES
 *
 * LAUNCHES has one launch a line, `FILE KERNEL GRID BLOCK [ARG]...`, ARG in
 * `ptxray run`'s --arg syntax (scalars, [NAME=]buf:TYPE:COUNT[:INIT],
 * ptr:NAME[+BYTES]); the data comes from the emulator's own generator
 * (emu/run_spec.c), so the inputs are those `ptxray run` builds from the
 * same line.  PATTERN names a variant's PTX with %s for FILE; the first
 * variant is the reference.  @MAXREG JIT-compiles that variant with
 * CU_JIT_MAX_REGISTERS (ptxas's -maxrregcount).
 *
 * Each variant is JIT-compiled by the driver (the same ptxas as the
 * toolkit's, at -O3), launched once on fresh inputs for the comparison,
 * then --reps more times (inputs restored before each, only the kernel
 * timed with events); the median and minimum are printed.  --dump writes
 * the reference's buffers after its run, one raw file per buffer
 * (DIR/L<launch>.B<buffer>.bin), for comparison with `ptxray run --dump`.
 *
 * Exit status: 0 all variants ran and matched the reference, 1 a mismatch
 * or a failed launch, 2 bad usage or input. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <cuda.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "run_spec.h"

#define MAXARGS 32
#define MAXVAR 32
#define LOGN 8192

typedef struct variant {
    const char *label, *pattern;
    int maxreg; /* 0: the JIT's default */
} variant;

typedef struct buffer {
    char name[64];
    const elem_type *t;
    size_t bytes;
    uint8_t *init, *ref, *got;
    CUdeviceptr dev;
} buffer;

typedef struct launch {
    char file[256], kernel[256];
    unsigned grid[3], block[3];
    buffer bufs[MAXARGS];
    unsigned nbufs;
    /* parameter bytes: a scalar's value or a buffer's (future) address */
    uint8_t pval[MAXARGS][8];
    int pbuf[MAXARGS];        /* buffer index of a pointer parameter, else -1 */
    uint64_t poff[MAXARGS];   /* ptr:NAME+BYTES */
    unsigned nparams;
} launch;

static variant vars[MAXVAR];
static unsigned nvars;
static int failures;

static void die(const char *what, CUresult r)
{
    const char *s = NULL;
    cuGetErrorString(r, &s);
    fprintf(stderr, "gpurun: %s: %s\n", what, s ? s : "unknown CUDA error");
    exit(2);
}
#define CK(call) do { CUresult r_ = (call); if (r_ != CUDA_SUCCESS) die(#call, r_); } while (0)

static bool parse_dim(const char *s, unsigned d[3])
{
    d[0] = d[1] = d[2] = 1;
    char *end;
    for (int i = 0; i < 3; i++) {
        unsigned long v = strtoul(s, &end, 10);
        if (end == s || v == 0) return false;
        d[i] = (unsigned)v;
        if (!*end) return true;
        if (*end != ',') return false;
        s = end + 1;
    }
    return false;
}

static int find_buf(launch *L, const char *name, size_t n)
{
    for (unsigned i = 0; i < L->nbufs; i++)
        if (strlen(L->bufs[i].name) == n && !memcmp(L->bufs[i].name, name, n)) return (int)i;
    return -1;
}

/* One ARG of a launch line; false with a message. */
static bool parse_arg(launch *L, const char *a, char *err, size_t errn)
{
    unsigned p = L->nparams;
    if (p == MAXARGS) { snprintf(err, errn, "too many arguments"); return false; }
    L->pbuf[p] = -1;
    L->poff[p] = 0;
    const char *eq = strchr(a, '='), *colon = strchr(a, ':');
    const char *body = eq && (!colon || eq < colon) ? eq + 1 : a;
    if (!strncmp(body, "buf:", 4)) {
        buffer *b = &L->bufs[L->nbufs];
        if (body != a) snprintf(b->name, sizeof b->name, "%.*s", (int)(eq - a), a);
        else snprintf(b->name, sizeof b->name, "#%u", p);
        const char *ts = body + 4, *te = strchr(ts, ':');
        if (!te || !(b->t = spec_type(ts, (size_t)(te - ts)))) {
            snprintf(err, errn, "bad buffer type in '%s'", a);
            return false;
        }
        char *end;
        unsigned long long count = strtoull(te + 1, &end, 10);
        if (end == te + 1 || (*end && *end != ':') || count == 0) {
            snprintf(err, errn, "bad buffer count in '%s'", a);
            return false;
        }
        b->bytes = (size_t)count * b->t->bytes;
        b->init = malloc(b->bytes);
        b->ref = malloc(b->bytes);
        b->got = malloc(b->bytes);
        if (!b->init || !b->ref || !b->got) { snprintf(err, errn, "out of memory"); return false; }
        if (!spec_fill(b->t, *end ? end + 1 : NULL, b->init, (size_t)count, err, errn)) return false;
        L->pbuf[p] = (int)L->nbufs++;
    } else if (!strncmp(a, "ptr:", 4)) {
        const char *n = a + 4, *plus = strchr(n, '+');
        size_t nl = plus ? (size_t)(plus - n) : strlen(n);
        int bi = find_buf(L, n, nl);
        if (bi < 0) { snprintf(err, errn, "no buffer named in '%s'", a); return false; }
        L->pbuf[p] = bi;
        if (plus && !spec_number(plus + 1, &L->poff[p])) {
            snprintf(err, errn, "bad offset in '%s'", a);
            return false;
        }
    } else {
        const elem_type *t = colon ? spec_type(a, (size_t)(colon - a)) : NULL;
        if (!t) { snprintf(err, errn, "unsupported argument '%s'", a); return false; }
        memset(L->pval[p], 0, 8);
        if (!spec_value(t, colon + 1, L->pval[p], err, errn)) return false;
    }
    L->nparams++;
    return true;
}

/* The PTX text of path, NUL-terminated for the JIT (run_spec's reader). */
static char *slurp(const char *path)
{
    char err[256];
    size_t n;
    uint8_t *b = spec_read_file(path, &n, err, sizeof err), *s = b ? realloc(b, n + 1) : NULL;
    if (!s) { free(b); return NULL; }
    s[n] = 0;
    return (char *)s;
}

/* Restores every buffer's input bytes on the device. */
static void reset(launch *L)
{
    for (unsigned i = 0; i < L->nbufs; i++)
        CK(cuMemcpyHtoD(L->bufs[i].dev, L->bufs[i].init, L->bufs[i].bytes));
}

static CUresult launch_once(launch *L, CUfunction fn)
{
    void *params[MAXARGS];
    uint64_t addr[MAXARGS];
    for (unsigned p = 0; p < L->nparams; p++) {
        if (L->pbuf[p] >= 0) {
            addr[p] = (uint64_t)L->bufs[L->pbuf[p]].dev + L->poff[p];
            params[p] = &addr[p];
        } else {
            params[p] = L->pval[p];
        }
    }
    return cuLaunchKernel(fn, L->grid[0], L->grid[1], L->grid[2], L->block[0], L->block[1],
                          L->block[2], 0, NULL, params, NULL);
}

/* "N bytes spill stores, M bytes spill loads" of ptxas's info log. */
static void spills_of(const char *log, long *st, long *ld)
{
    *st = *ld = -1;
    const char *p = strstr(log, "bytes spill stores"), *nl = strchr(log, '\n');
    /* the figures are on the line after the heading */
    if (!p || !nl || (strchr(nl + 1, '\n') && p > strchr(nl + 1, '\n'))) return;
    const char *q = p;
    while (q > log && q[-1] == ' ') q--;
    while (q > log && q[-1] >= '0' && q[-1] <= '9') q--;
    *st = strtol(q, NULL, 10);
    const char *c = strstr(p, ", ");
    if (c) *ld = strtol(c + 2, NULL, 10);
}

/* Elements that differ between the reference and this run, and the
 * largest absolute difference of float elements. */
static size_t compare(const buffer *b, double *maxdiff)
{
    size_t n = 0, w = b->t->bytes;
    for (size_t i = 0; i < b->bytes; i += w) {
        if (!memcmp(b->ref + i, b->got + i, w)) continue;
        n++;
        if (b->t->kind == EK_FLOAT && w >= 4) {
            double x, y;
            if (w == 4) { float fx, fy; memcpy(&fx, b->ref + i, 4); memcpy(&fy, b->got + i, 4); x = fx; y = fy; }
            else { memcpy(&x, b->ref + i, 8); memcpy(&y, b->got + i, 8); }
            double d = fabs(x - y);
            if (d > *maxdiff || isnan(d)) *maxdiff = d;
        }
    }
    return n;
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

static void run_launch(launch *L, unsigned li, int reps, const char *dump)
{
    for (unsigned i = 0; i < L->nbufs; i++) CK(cuMemAlloc(&L->bufs[i].dev, L->bufs[i].bytes));
    double ref_ms = 0;
    for (unsigned v = 0; v < nvars; v++) {
        char path[1024];
        snprintf(path, sizeof path, vars[v].pattern, L->file);
        char *ptx = slurp(path);
        if (!ptx) {
            printf("%-28s %-14s missing %s\n", L->kernel, vars[v].label, path);
            failures++;
            continue;
        }
        static char info[LOGN], elog[LOGN];
        info[0] = elog[0] = 0;
        CUjit_option opt[6] = {CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                               CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                               CU_JIT_LOG_VERBOSE, CU_JIT_MAX_REGISTERS};
        void *val[6] = {info, (void *)(uintptr_t)LOGN, elog, (void *)(uintptr_t)LOGN,
                        (void *)(uintptr_t)1, (void *)(uintptr_t)vars[v].maxreg};
        CUmodule mod;
        CUresult r = cuModuleLoadDataEx(&mod, ptx, vars[v].maxreg ? 6 : 5, opt, val);
        free(ptx);
        if (r != CUDA_SUCCESS) {
            const char *s = NULL;
            cuGetErrorString(r, &s);
            printf("%-28s %-14s JIT failed: %s\n%s\n", L->kernel, vars[v].label, s, elog);
            failures++;
            continue;
        }
        CUfunction fn;
        CK(cuModuleGetFunction(&fn, mod, L->kernel));
        int regs = 0, local = 0;
        CK(cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, fn));
        CK(cuFuncGetAttribute(&local, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, fn));
        /* the info log covers every function of the module, in no
         * fixed order: the kernel's figures follow "Function properties
         * for NAME" (-1 where the log has none) */
        char key[300];
        snprintf(key, sizeof key, "properties for %s\n", L->kernel);
        const char *mine = strstr(info, key);
        long st = -1, ld = -1;
        if (mine) spills_of(mine, &st, &ld);

        reset(L);
        r = launch_once(L, fn);
        if (r == CUDA_SUCCESS) r = cuCtxSynchronize();
        if (r != CUDA_SUCCESS) {
            const char *s = NULL;
            cuGetErrorString(r, &s);
            printf("%-28s %-14s launch failed: %s\n", L->kernel, vars[v].label, s);
            exit(1); /* the context is unusable after a fault */
        }
        size_t differ = 0;
        double maxdiff = 0;
        for (unsigned i = 0; i < L->nbufs; i++) {
            buffer *b = &L->bufs[i];
            CK(cuMemcpyDtoH(v == 0 ? b->ref : b->got, b->dev, b->bytes));
            if (v) differ += compare(b, &maxdiff);
        }
        if (v == 0 && dump) {
            for (unsigned i = 0; i < L->nbufs; i++) {
                char out[1024];
                snprintf(out, sizeof out, "%s/L%u.B%u.bin", dump, li, i);
                FILE *f = fopen(out, "wb");
                if (!f || fwrite(L->bufs[i].ref, 1, L->bufs[i].bytes, f) != L->bufs[i].bytes) {
                    fprintf(stderr, "gpurun: cannot write %s\n", out);
                    exit(2);
                }
                fclose(f);
            }
        }
        if (differ) failures++;

        float ms[1000];
        CUevent e0, e1;
        CK(cuEventCreate(&e0, CU_EVENT_DEFAULT));
        CK(cuEventCreate(&e1, CU_EVENT_DEFAULT));
        for (int k = 0; k < reps; k++) {
            reset(L);
            CK(cuEventRecord(e0, NULL));
            CK(launch_once(L, fn));
            CK(cuEventRecord(e1, NULL));
            CK(cuEventSynchronize(e1));
            CK(cuEventElapsedTime(&ms[k], e0, e1));
        }
        CK(cuEventDestroy(e0));
        CK(cuEventDestroy(e1));
        qsort(ms, (size_t)reps, sizeof ms[0], cmp_float);
        double med = reps ? ms[reps / 2] : 0, mn = reps ? ms[0] : 0;
        if (v == 0) ref_ms = med;
        char eq[64];
        if (v == 0) snprintf(eq, sizeof eq, "reference");
        else if (!differ) snprintf(eq, sizeof eq, "identical");
        else snprintf(eq, sizeof eq, "DIFFER %zu (max |d| %.3g)", differ, maxdiff);
        printf("%-28s %-14s %4d %6d %7ld %7ld %10.1f %10.1f %7.3f  %s\n", L->kernel, vars[v].label, regs,
               local, st, ld, med * 1000, mn * 1000, ref_ms > 0 ? med / ref_ms : 0, eq);
        fflush(stdout);
        CK(cuModuleUnload(mod));
    }
    for (unsigned i = 0; i < L->nbufs; i++) {
        CK(cuMemFree(L->bufs[i].dev));
        free(L->bufs[i].init);
        free(L->bufs[i].ref);
        free(L->bufs[i].got);
    }
}

int main(int argc, char **argv)
{
    int reps = 30;
    const char *dump = NULL, *file = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--dump") && i + 1 < argc) dump = argv[++i];
        else if (!strcmp(argv[i], "--variant") && i + 1 < argc && nvars < MAXVAR) {
            char *s = argv[++i], *eq = strchr(s, '='), *at = strrchr(s, '@');
            if (!eq) { fprintf(stderr, "gpurun: --variant LABEL=PATTERN[@MAXREG]\n"); return 2; }
            *eq = 0;
            if (at && at > eq) { *at = 0; vars[nvars].maxreg = atoi(at + 1); }
            vars[nvars].label = s;
            vars[nvars].pattern = eq + 1;
            nvars++;
        } else if (!file && argv[i][0] != '-') file = argv[i];
        else { fprintf(stderr, "gpurun: unknown argument '%s'\n", argv[i]); return 2; }
    }
    if (!file || !nvars || reps < 0 || reps > 1000) {
        fprintf(stderr, "usage: gpurun [--reps N] [--dump DIR] --variant LABEL=PATTERN[@MAXREG]... LAUNCHES\n");
        return 2;
    }
    FILE *f = fopen(file, "r");
    if (!f) { fprintf(stderr, "gpurun: cannot read %s\n", file); return 2; }
    CK(cuInit(0));
    CUdevice dev;
    CK(cuDeviceGet(&dev, 0));
    char name[256];
    CK(cuDeviceGetName(name, sizeof name, dev));
    int maj = 0, min = 0, drv = 0;
    CK(cuDeviceGetAttribute(&maj, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
    CK(cuDeviceGetAttribute(&min, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev));
    CK(cuDriverGetVersion(&drv));
    CUcontext ctx;
    CK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CK(cuCtxSetCurrent(ctx));
    printf("device: %s (sm_%d%d), driver API %d, %d timed runs per variant (median, min)\n", name, maj, min,
           drv, reps);
    printf("%-28s %-14s %4s %6s %7s %7s %10s %10s %7s  %s\n", "kernel", "variant", "regs", "local",
           "spill.st", "spill.ld", "median.us", "min.us", "vs.ref", "global memory vs reference");
    char line[8192];
    unsigned lineno = 0, li = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *s = line;
        while (*s == ' ' || *s == '\t') s++;
        if (*s == '#' || *s == '\n' || !*s) continue;
        launch *L = calloc(1, sizeof *L);
        char grid[64], block[64];
        int used = 0;
        if (!L || sscanf(s, "%255s %255s %63s %63s%n", L->file, L->kernel, grid, block, &used) != 4 ||
            !parse_dim(grid, L->grid) || !parse_dim(block, L->block)) {
            fprintf(stderr, "%s:%u:1: error: expected FILE KERNEL GRID BLOCK [ARG]...\n", file, lineno);
            return 2;
        }
        char err[256];
        for (char *tok = strtok(s + used, " \t\n"); tok; tok = strtok(NULL, " \t\n"))
            if (!parse_arg(L, tok, err, sizeof err)) {
                fprintf(stderr, "%s:%u:1: error: %s\n", file, lineno, err);
                return 2;
            }
        run_launch(L, li++, reps, dump);
        free(L);
    }
    fclose(f);
    CK(cuDevicePrimaryCtxRelease(dev));
    printf("launches: %u, variants per launch: %u, mismatches or failures: %d\n", li, nvars, failures);
    return failures ? 1 : 0;
}
