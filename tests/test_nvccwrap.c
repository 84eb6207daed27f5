/* ptxray nvcc (docs/nvcc.md): nvcc as it is, the analysis at its ptxas
 * steps, the rewrite when asked; regalloc --target-regs against ptxas
 * alone, and ra_options.only_nonlocal.  The wrapper tests skip when nvcc
 * is absent, the target-regs ones when ptxas is; the toolchain's spill
 * figures are compared (with-pass below alone), not fixed, since they
 * belong to the installed ptxas. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "divergence.h"
#include "ra_target.h"
#include "regalloc.h"
#include "testutil.h"
#include "nvcc_wrap.h"
#include "printer.h"
#include "toolchain.h"

#define BIN ((char *)tu_bin())

/* memmem is a GNU extension: not under _POSIX_C_SOURCE */
static const void *find_bytes(const char *hay, size_t n, const char *needle)
{
    size_t k = strlen(needle);
    for (size_t i = 0; i + k <= n; i++)
        if (!memcmp(hay + i, needle, k)) return hay + i;
    return NULL;
}

static char *src(const char *rel)
{
    static char buf[4][1024];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s", tu_src(rel));
    return buf[k];
}

/* A fresh temporary directory and a path in it. */
static char *tmpdir(void)
{
    static char d[64];
    snprintf(d, sizeof d, "/tmp/ptxray-nvw-XXXXXX");
    cr_assert_not_null(mkdtemp(d));
    return d;
}

static char *join(const char *dir, const char *name)
{
    static char buf[4][512];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

static void rm(const char *dir, const char *const *names)
{
    for (int i = 0; names[i]; i++) unlink(join(dir, names[i]));
    rmdir(dir);
}

static void need_nvcc(void)
{
    if (!tc_find_nvcc() || !tc_find_ptxas()) cr_skip_test("nvcc/ptxas not found: the wrapper is not run");
}

#define CU "ptx-corpus/src/sampaio_divergence.cu"

static char *write_file(const char *dir, const char *name, const char *text)
{
    char *p = join(dir, name);
    FILE *f = fopen(p, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
    return p;
}

/* The file with nvcc's per-process temporary names ("tmpxft_" and 8 hex
 * digits) blanked: two plain nvcc runs differ in those only (docs/nvcc.md). */
static char *read_norm(const char *path, size_t *n)
{
    char *b = tu_read(path, n);
    cr_assert_not_null(b, "%s", path);
    for (size_t i = 0; i + 15 < *n; i++)
        if (!memcmp(b + i, "tmpxft_", 7)) memset(b + i + 7, 'X', 8);
    return b;
}

static void expect_same_file(const char *a, const char *b)
{
    size_t na, nb;
    char *x = read_norm(a, &na), *y = read_norm(b, &nb);
    cr_expect(na == nb && !memcmp(x, y, na), "%s and %s differ", a, b);
    free(x);
    free(y);
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p++) n++;
    return n;
}

/* Runs argv: its exit status, stderr into *err (stdout dropped). */
static int run_err(char **argv, char **err)
{
    char *out;
    int rc = tu_run(argv, &out, err);
    free(out);
    return rc;
}

static void expect_usage_error(char **argv, const char *msg)
{
    char *out, *err;
    cr_expect_eq(tu_run(argv, &out, &err), 2, "%s", argv[2]);
    cr_expect(strstr(err, msg) != NULL, "%s", err);
    cr_expect_str_eq(out, "");
    free(out);
    free(err);
}

#define UNCOAL_CU                                                              \
    "__global__ void strided(float *a, const float *b, int n)\n"               \
    "{\n"                                                                      \
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"                     \
    "    if (i < n) a[i * 33] = b[i];\n"                                       \
    "}\n"                                                                      \
    "void run(float *a, float *b) { strided<<<8, 128>>>(a, b, 1024); }\n"

/* Default mode: the object is plain nvcc's, the warning is at the .cu line,
 * once for two architectures; ptxas's -v output comes through. */
Test(nvccwrap, default_is_analysis_only, .timeout = 300)
{
    need_nvcc();
    char *d = tmpdir(), *err;
    char *cu = strdup(write_file(d, "u.cu", UNCOAL_CU)), *plain = strdup(join(d, "plain.o")), *w = strdup(join(d, "w.o"));
    char *a[] = {(char *)tc_find_nvcc(), "-c", "-gencode", "arch=compute_80,code=sm_80", "-gencode",
                 "arch=compute_90,code=[sm_90,compute_90]", "-Xptxas", "-v", cu, "-o", plain, NULL};
    cr_assert_eq(run_err(a, &err), 0, "%s", err);
    free(err);
    char *b[] = {BIN, "nvcc", "-c", "-gencode", "arch=compute_80,code=sm_80", "-gencode",
                 "arch=compute_90,code=[sm_90,compute_90]", "-Xptxas", "-v", cu, "-o", w, NULL};
    cr_assert_eq(run_err(b, &err), 0, "%s", err);
    char want[600];
    snprintf(want, sizeof want, "%s:4:", cu);
    cr_expect(strstr(err, want) != NULL, "no warning at u.cu:4: %s", err);
    cr_expect_eq(count(err, "[ptxray-uncoalesced]\n"), 1, "%s", err);
    cr_expect(strstr(err, "warning: uncoalesced global store: lanes 132 B apart") != NULL, "%s", err);
    cr_expect(strstr(err, " in kernel strided(float*, float const*, int) [ptxray-uncoalesced]") != NULL, "%s", err);
    cr_expect_eq(count(err, "Compiling entry function '_Z7stridedPfPKfi'"), 2, "ptxas -v: %s", err);
    free(err);
    expect_same_file(plain, w);
    /* --ptxray-warn=none: nothing of ptxray's */
    char *c[] = {BIN, "nvcc", "--ptxray-warn=none", "-c", "-arch=sm_80", cu, "-o", w, NULL};
    cr_assert_eq(run_err(c, &err), 0, "%s", err);
    cr_expect_str_eq(err, "");
    free(err);
    /* --ptxray-werror: the warning fails the compilation */
    char *e[] = {BIN, "nvcc", "--ptxray-werror", "-c", "-arch=sm_80", cu, "-o", w, NULL};
    cr_expect_neq(run_err(e, &err), 0, "%s", err);
    cr_expect(strstr(err, "1 warning treated as errors (--ptxray-werror)") != NULL, "%s", err);
    free(err);
    rm(d, (const char *[]){"u.cu", "plain.o", "w.o", NULL});
    free(cu);
    free(plain);
    free(w);
}

/* A kernel launched with two shapes is warned about only for what holds at
 * both: a[threadIdx.y * 33 + threadIdx.x] is uncoalesced at 1x32 only. */
Test(nvccwrap, several_launch_shapes, .timeout = 300)
{
    need_nvcc();
    static const char *body = "__global__ void k(float *a)\n"
                              "{\n"
                              "    a[threadIdx.y * 33 + threadIdx.x] = 1.0f;\n"
                              "}\n";
    char *d = tmpdir(), *err, text[1024];
    snprintf(text, sizeof text, "%svoid run(float *a) { k<<<1, dim3(1, 32)>>>(a); }\n", body);
    char *one = strdup(write_file(d, "one.cu", text));
    snprintf(text, sizeof text, "%svoid run(float *a) { k<<<1, dim3(1, 32)>>>(a); k<<<1, dim3(32, 1)>>>(a); }\n", body);
    char *two = strdup(write_file(d, "two.cu", text));
    char *a[] = {BIN, "nvcc", "-c", "-arch=sm_80", one, "-o", join(d, "o.o"), NULL};
    cr_assert_eq(run_err(a, &err), 0, "%s", err);
    cr_expect_eq(count(err, "[ptxray-uncoalesced]"), 1, "%s", err);
    free(err);
    a[4] = two;
    cr_assert_eq(run_err(a, &err), 0, "%s", err);
    cr_expect_eq(count(err, "[ptxray-uncoalesced]"), 0, "%s", err);
    free(err);
    rm(d, (const char *[]){"one.cu", "two.cu", "o.o", NULL});
    free(one);
    free(two);
}

/* The warning calls the row stride what the .cu calls it (cols, parameter
 * 2 of scale_rows), read from the wrapper's own scan of the .cu, never
 * _Z10scale_rowsPfPKfi_param_2. */
Test(nvccwrap, warnings_name_source_parameters, .timeout = 300)
{
    need_nvcc();
    char *d = tmpdir(), *err;
    char *cu = strdup(write_file(d, "rows.cu",
                                 "__global__ void scale_rows(float *a, const float *b, int cols)\n"
                                 "{\n"
                                 "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                 "    a[i * cols] = 2.0f * b[i * cols];\n"
                                 "}\n"
                                 "void run(float *a, float *b, int c) { scale_rows<<<8, 128>>>(a, b, c); }\n"));
    char *a[] = {BIN, "nvcc", "--ptxray-possible", "-c", "-arch=sm_80", cu, "-o", join(d, "o.o"), NULL};
    cr_assert_eq(run_err(a, &err), 0, "%s", err);
    char want[1024];
    snprintf(want, sizeof want,
             "%s:4:5: warning: possible: uncoalesced global access: lanes 4·cols B apart (stride from tid.x·cols), "
             "up to 32 sectors/request, ideal 4 in kernel scale_rows(float*, float const*, int) [ptxray-uncoalesced]\n",
             cu);
    cr_expect(strstr(err, want), "%s", err);
    cr_expect(!strstr(err, "_param_"), "%s", err);
    free(err);
    rm(d, (const char *[]){"rows.cu", "o.o", NULL});
    free(cu);
}

/* The barrier rule among the wrapper's default warnings (issue 36), at the
 * host code's launch shape: 128 threads, of which 48..127 go round the
 * __syncthreads() and wait for their warp. */
Test(nvccwrap, warns_of_a_divergent_barrier, .timeout = 300)
{
    need_nvcc();
    char *d = tmpdir(), *err;
    char *cu = strdup(write_file(d, "bar.cu",
                                 "__global__ void bug(int *out)\n"
                                 "{\n"
                                 "    __shared__ int s[128];\n"
                                 "    s[threadIdx.x] = threadIdx.x;\n"
                                 "    if (threadIdx.x < 48) {\n"
                                 "        __syncthreads();\n"
                                 "        s[threadIdx.x] += 1;\n"
                                 "    }\n"
                                 "    out[threadIdx.x] = s[threadIdx.x ^ 1];\n"
                                 "}\n"
                                 "void run(int *o) { bug<<<4, 128>>>(o); }\n"));
    char *a[] = {BIN, "nvcc", "-c", "-arch=sm_80", cu, "-o", join(d, "o.o"), NULL};
    cr_assert_eq(run_err(a, &err), 0, "%s", err);
    char want[1024];
    snprintf(want, sizeof want,
             "%s:6:9: warning: divergent barrier: threads (48..127,0,0) take the other way at the branch at %s:5 and "
             "wait at PTX line 47 (%s:9), where their warp reconverges, while the rest of their warp waits here; an "
             ".aligned barrier is executed by every live thread of the block, a warp together in kernel bug(int*) "
             "[ptxray-divergent-barrier]\n",
             cu, cu, cu);
    cr_expect(strstr(err, want), "%s", err);
    free(err);
    rm(d, (const char *[]){"bar.cu", "o.o", NULL});
    free(cu);
}

/* The user's -include reaches libclang too (read from nvcc's host
 * preprocessing line): the launch's shape is a macro of the pre-included
 * header, 1x32, where the store is uncoalesced; without the header
 * libclang would not know the shape, and at the default (blockDim.x a
 * multiple of 32) the store is coalesced. */
Test(nvccwrap, pre_include_reaches_the_launches, .timeout = 300)
{
    need_nvcc();
    char *d = tmpdir(), *err;
    char *pre = strdup(write_file(d, "shape.h", "#define SHAPE 1, 32\n"));
    char *cu = strdup(write_file(d, "p.cu", "__global__ void k(float *a)\n"
                                            "{\n"
                                            "    a[threadIdx.y * 33 + threadIdx.x] = 1.0f;\n"
                                            "}\n"
                                            "void run(float *a) { k<<<1, dim3(SHAPE)>>>(a); }\n"));
    char *a[] = {BIN, "nvcc", "-c", "-arch=sm_80", "-include", pre, cu, "-o", join(d, "o.o"), NULL};
    cr_assert_eq(run_err(a, &err), 0, "%s", err);
    cr_expect_eq(count(err, "[ptxray-uncoalesced]"), 1, "%s", err);
    free(err);
    rm(d, (const char *[]){"shape.h", "p.cu", "o.o", NULL});
    free(pre);
    free(cu);
}

/* A .cu that includes cooperative_groups.h: libclang reports errors in the
 * toolkit's own headers (libcu++ written for nvcc), which are not the
 * user's: the wrapper says nothing of them, and still reads the launch
 * (the warning is at the shape the launch gives). */
Test(nvccwrap, silent_about_errors_in_the_toolkits_headers, .timeout = 300)
{
    need_nvcc();
    if (access("/usr/local/cuda/include/cooperative_groups.h", R_OK)) cr_skip_test("no cooperative_groups.h");
    static const char *text = "#include <cooperative_groups.h>\n"
                              "namespace cg = cooperative_groups;\n"
                              "__global__ void k(float *a)\n"
                              "{\n"
                              "    a[cg::this_thread_block().thread_rank() * 33] = 1.0f;\n"
                              "}\n"
                              "void run(float *a) { k<<<1, 128>>>(a); }\n";
    char *d = tmpdir(), *err;
    char *cu = strdup(write_file(d, "cg.cu", text));
    char *a[] = {BIN, "nvcc", "-c", "-arch=sm_80", cu, "-o", join(d, "o.o"), NULL};
    cr_assert_eq(run_err(a, &err), 0, "%s", err);
    cr_expect(strstr(err, "libclang") == NULL, "%s", err);
    cr_expect_eq(count(err, "[ptxray-uncoalesced]"), 1, "%s", err);
    free(err);
    rm(d, (const char *[]){"cg.cu", "o.o", NULL});
    free(cu);
}

/* Rewrite when asked: the cubin's kernels get the pass's shared spill
 * area, one line per rewritten kernel says so. */
Test(nvccwrap, rewrite_at_budget_8, .timeout = 300)
{
    need_nvcc();
    char *d = tmpdir(), *err, *cubin = join(d, "s.cubin");
    char *b[] = {BIN, "nvcc", "--ptxray-budget", "8", "--ptxray-mode", "aff", "--ptxray-warn=none", "-arch=sm_80",
                 "-cubin", "-o", cubin, src(CU), NULL};
    cr_assert_eq(run_err(b, &err), 0, "%s", err);
    cr_expect(strstr(err, "(sm_80): kernel avgSquare: aff at budget 8: ") != NULL, "%s", err);
    cr_expect(strstr(err, "(sm_80): kernel sumTriangle: aff at budget 8: ") != NULL, "%s", err);
    cr_expect_eq(count(err, "; ptxas spill bytes "), count(err, "\n"), "one line per kernel: %s", err);
    free(err);
    size_t n = 0;
    char *elf = tu_read(cubin, &n);
    cr_assert_not_null(elf);
    cr_expect(n > 64 && !memcmp(elf, "\177ELF", 4), "not an ELF file");
    /* the kernels have no shared memory of their own: these are the pass's */
    cr_expect(find_bytes(elf, n, ".nv.shared.avgSquare") != NULL);
    cr_expect(find_bytes(elf, n, ".nv.shared.sumTriangle") != NULL);
    free(elf);
    /* PTXRAY_FLAGS says the same (how CMake builds get it) */
    setenv("PTXRAY_FLAGS", "--ptxray-budget=8  --ptxray-warn=none", 1);
    char *c[] = {BIN, "nvcc", "-arch=sm_80", "-cubin", "-o", cubin, src(CU), NULL};
    int rc = run_err(c, &err);
    unsetenv("PTXRAY_FLAGS");
    cr_assert_eq(rc, 0, "%s", err);
    cr_expect(strstr(err, "kernel avgSquare: aff at budget 8: ") != NULL, "%s", err);
    free(err);
    rm(d, (const char *[]){"s.cubin", NULL});
}

/* -ptx has no ptxas step: nvcc alone, the same PTX. */
Test(nvccwrap, ptx_output_is_nvccs, .timeout = 300)
{
    need_nvcc();
    char *d = tmpdir(), *err, *p1 = strdup(join(d, "a.ptx")), *p2 = strdup(join(d, "b.ptx"));
    char *a[] = {(char *)tc_find_nvcc(), "-arch=sm_80", "-ptx", "-o", p1, src(CU), NULL};
    cr_assert_eq(run_err(a, &err), 0, "%s", err);
    free(err);
    char *b[] = {BIN, "nvcc", "--ptxray-budget=8", "-arch=sm_80", "-ptx", "-o", p2, src(CU), NULL};
    cr_assert_eq(run_err(b, &err), 0, "%s", err);
    cr_expect_str_eq(err, "");
    free(err);
    expect_same_file(p1, p2);
    rm(d, (const char *[]){"a.ptx", "b.ptx", NULL});
    free(p1);
    free(p2);
}

/* nvcc's and ptxas's failures: the same status and messages as nvcc alone. */
Test(nvccwrap, failures_come_through_unchanged, .timeout = 300)
{
    need_nvcc();
    static const char *srcs[] = {
        "__global__ void k(int *p) { p[0] = undeclared_name; }\n",                     /* cudafe/cicc */
        "__global__ void k(int *p) { asm volatile(\"bogus.op.u32 %0;\" : \"=r\"(p[0])); }\n", /* ptxas */
    };
    for (int i = 0; i < 2; i++) {
        char *d = tmpdir(), *e1, *e2;
        char *cu = strdup(write_file(d, "bad.cu", srcs[i])), *o = strdup(join(d, "bad.o"));
        char *a[] = {(char *)tc_find_nvcc(), "-arch=sm_80", "-c", cu, "-o", o, NULL};
        char *b[] = {BIN, "nvcc", "-arch=sm_80", "-c", cu, "-o", o, NULL};
        int r1 = run_err(a, &e1), r2 = run_err(b, &e2);
        cr_expect_neq(r1, 0);
        cr_expect_eq(r2, r1, "status %d, nvcc's %d", r2, r1);
        size_t n1 = strlen(e1), n2 = strlen(e2);
        for (char *p = e1; (p = strstr(p, "tmpxft_")); p++) memset(p + 7, 'X', 8);
        for (char *p = e2; (p = strstr(p, "tmpxft_")); p++) memset(p + 7, 'X', 8);
        cr_expect(n1 == n2 && !strcmp(e1, e2), "nvcc:\n%s\nptxray nvcc:\n%s", e1, e2);
        cr_expect_neq(access(o, F_OK), 0, "an object was left behind");
        free(e1);
        free(e2);
        rm(d, (const char *[]){"bad.cu", "bad.o", NULL});
        free(cu);
        free(o);
    }
}

/* PTX that ptxas assembles but ptxray does not parse: a warning, nvcc's own
 * object; --ptxray-strict: exit 2.  The input is one ptxray refuses by
 * design, not for a form it has yet to learn (those get learned, and the
 * test would lose its input): an inline asm of 1,001 nested { } blocks, past
 * the parser's depth limit (PTX_MAX_SCOPE_DEPTH, bounded recursion over the
 * IR), which ptxas takes. */
Test(nvccwrap, unparsable_ptx_goes_to_ptxas_as_it_is, .timeout = 300)
{
    need_nvcc();
    enum { DEPTH = 1001 };
    char *d = tmpdir(), *err, text[2 * DEPTH + 128];
    char *o1 = strdup(join(d, "a.o")), *o2 = strdup(join(d, "b.o")), *ptx = strdup(join(d, "t.ptx"));
    int k = snprintf(text, sizeof text, "__global__ void k(char *p)\n{\n    asm volatile(\"");
    for (int i = 0; i < DEPTH; i++) text[k++] = '{';
    for (int i = 0; i < DEPTH; i++) text[k++] = '}';
    snprintf(text + k, sizeof text - (size_t)k, "\");\n}\n");
    char *cu = strdup(write_file(d, "asm.cu", text));
    char *pa[] = {(char *)tc_find_nvcc(), "-arch=sm_90", "-ptx", cu, "-o", ptx, NULL};
    cr_assert_eq(run_err(pa, &err), 0, "%s", err);
    free(err);
    char *pp[] = {BIN, "parse", ptx, NULL};
    cr_assert_eq(run_err(pp, &err), 2, "ptxray parses the PTX: %s", err);
    cr_expect(strstr(err, "error: '{' blocks nested too deeply (limit 1000)") != NULL, "%s", err);
    free(err);
    char *pt[] = {(char *)tc_find_ptxas(), "-arch=sm_90", ptx, "-o", o2, NULL};
    cr_assert_eq(run_err(pt, &err), 0, "ptxas rejects the PTX: %s", err);
    free(err);
    unlink(o2);
    char *a[] = {(char *)tc_find_nvcc(), "-arch=sm_90", "-c", cu, "-o", o1, NULL};
    cr_assert_eq(run_err(a, &err), 0, "%s", err);
    free(err);
    char *b[] = {BIN, "nvcc", "-arch=sm_90", "-c", cu, "-o", o2, NULL};
    cr_assert_eq(run_err(b, &err), 0, "%s", err);
    char want[600];
    snprintf(want, sizeof want, "ptxray nvcc: warning: %s (sm_90): the PTX could not be analysed\n", cu);
    cr_expect(strstr(err, want) != NULL, "%s", err);
    free(err);
    expect_same_file(o1, o2);
    unlink(o2);
    char *c[] = {BIN, "nvcc", "--ptxray-strict", "-arch=sm_90", "-c", cu, "-o", o2, NULL};
    cr_expect_eq(run_err(c, &err), 2, "%s", err);
    snprintf(want, sizeof want, "ptxray nvcc: error: %s: not analysed (--ptxray-strict)\n", cu);
    cr_expect(strstr(err, want) != NULL, "%s", err);
    cr_expect_neq(access(o2, F_OK), 0, "an object was written");
    free(err);
    /* a rewrite that cannot parse it either: the original PTX goes to ptxas */
    char *e[] = {BIN, "nvcc", "--ptxray-warn=none", "--ptxray-budget=8", "-arch=sm_90", "-c", cu, "-o", o2, NULL};
    cr_expect_eq(run_err(e, &err), 0, "%s", err);
    snprintf(want, sizeof want, "ptxray nvcc: warning: %s (sm_90): the PTX could not be rewritten: ptxas gets nvcc's PTX\n", cu);
    cr_expect(strstr(err, want) != NULL, "%s", err);
    free(err);
    expect_same_file(o1, o2);
    rm(d, (const char *[]){"asm.cu", "a.o", "b.o", "t.ptx", NULL});
    free(cu);
    free(o1);
    free(o2);
    free(ptx);
}

/* The nvcc path first (CMake's launcher): that nvcc, every option its own. */
Test(nvccwrap, nvcc_path_first_and_plain_commands, .timeout = 120)
{
    need_nvcc();
    char *o1, *o2, *e1, *e2;
    char *a[] = {(char *)tc_find_nvcc(), "--version", NULL};
    char *b[] = {BIN, "nvcc", (char *)tc_find_nvcc(), "--version", NULL};
    cr_assert_eq(tu_run(a, &o1, &e1), 0);
    cr_assert_eq(tu_run(b, &o2, &e2), 0, "%s", e2);
    cr_expect_str_eq(o1, o2);
    cr_expect_str_eq(e1, e2);
    free(o1);
    free(o2);
    free(e1);
    free(e2);
}

Test(nvccwrap, usage_errors)
{
    expect_usage_error((char *[]){BIN, "nvcc", "--ptxray-budget", "8", "--ptxray-target-regs", "24", "-c", "x.cu", NULL},
                       "--ptxray-budget and --ptxray-target-regs exclude each other\n");
    expect_usage_error((char *[]){BIN, "nvcc", "--ptxray-mode", "fast", "-c", "x.cu", NULL},
                       "--ptxray-mode fast: expected linear, div or aff\n");
    expect_usage_error((char *[]){BIN, "nvcc", "--ptxray-mode=div", "-c", "x.cu", NULL},
                       "--ptxray-mode needs --ptxray-budget or --ptxray-target-regs\n");
    expect_usage_error((char *[]){BIN, "nvcc", "--ptxray-budget", "0", "-c", "x.cu", NULL},
                       "--ptxray-budget 0: expected a number from 1 to 65535\n");
    expect_usage_error((char *[]){BIN, "nvcc", "--ptxray-bugdet", "8", "-c", "x.cu", NULL},
                       "--ptxray-bugdet: unknown ptxray option\n");
    expect_usage_error((char *[]){BIN, "nvcc", "--ptxray-warn=slow", "-c", "x.cu", NULL},
                       "--ptxray-warn slow: expected uncoalesced");
    expect_usage_error((char *[]){BIN, "nvcc", "--ptxray-strict=1", "-c", "x.cu", NULL},
                       "--ptxray-strict=1 takes no value\n");
    expect_usage_error((char *[]){BIN, "nvcc", "-c", "x.cu", "--ptxray-budget", NULL}, "--ptxray-budget: missing value\n");
    setenv("PTXRAY_FLAGS", "--ptxray-nope", 1);
    expect_usage_error((char *[]){BIN, "nvcc", "-c", "x.cu", NULL}, "--ptxray-nope: unknown ptxray option\n");
    unsetenv("PTXRAY_FLAGS");
    expect_usage_error((char *[]){BIN, "nvcc", NVW_STEP_ARG, "-arch=sm_80", "x.ptx", NULL},
                       "is ptxray's own (nvcc runs it as ptxas)\n");
}

/* "... ptxas alone: A bytes spilled; with the pass (budget B): W bytes" */
static void parse_report(const char *err, long *alone, unsigned *b, long *with)
{
    const char *p = strstr(err, "ptxas alone: ");
    cr_assert_not_null(p, "%s", err);
    cr_assert_eq(sscanf(p, "ptxas alone: %ld bytes spilled; with the pass (budget %u): %ld bytes", alone, b, with), 3,
                 "%s", err);
}

static long ptxas_spills(const char *ptx, const char *maxr)
{
    char *log = NULL, cubin[] = "/tmp/ptxray-nvw-cubinXXXXXX";
    int fd = mkstemp(cubin);
    cr_assert_geq(fd, 0);
    close(fd);
    char *argv[] = {(char *)tc_find_ptxas(), "-arch=sm_80", "-v", "-maxrregcount", (char *)maxr, "-o", cubin,
                    (char *)ptx, NULL};
    cr_assert_eq(tc_run(argv, &log), 0, "ptxas failed on the output:\n%s", log ? log : "");
    long s = ra_ptxas_spill_bytes(log);
    free(log);
    unlink(cubin);
    return s;
}

Test(nvccwrap, target_regs_spills_less_than_ptxas_alone, .timeout = 300)
{
    if (!tc_find_ptxas()) cr_skip_test("ptxas not found");
    /* kernels ptxas spills at -maxrregcount 24 (none at its default) */
    const char *files[] = {"ptx-corpus/sm_80/particles_soa.ptx", "ptx-corpus/sm_80/spmv_csr.ptx"};
    for (int i = 0; i < 2; i++) {
        char *d = tmpdir(), *o = join(d, "out.ptx"), *out, *err;
        char *a[] = {BIN, "regalloc", src(files[i]), "--target-regs", "24", "--arch", "sm_80", "-o", o, NULL};
        cr_assert_eq(tu_run(a, &out, &err), 0, "%s", err);
        long alone, with;
        unsigned b;
        parse_report(err, &alone, &b, &with);
        cr_expect_gt(alone, 0, "%s", files[i]);
        cr_expect_lt(with, alone, "%s", files[i]);
        cr_expect_eq(ptxas_spills(src(files[i]), "24"), alone, "%s", files[i]);
        /* the output assembles, and ptxas spills what was reported */
        cr_expect_eq(ptxas_spills(o, "24"), with, "%s", files[i]);
        char *text = tu_read(o, NULL);
        cr_expect(strstr(text, "__ra_local") == NULL, "%s: target-regs added .local spills", files[i]);
        cr_expect(strstr(text, "__ra_shared") != NULL || strstr(text, "%ra_") != NULL, "%s: nothing moved", files[i]);
        free(text);
        free(out);
        free(err);
        rm(d, (const char *[]){"out.ptx", NULL});
    }
}

/* "kernel K: --ptxray-target-regs 24 (aff at budget B): ...; ptxas spill
 * bytes A -> W": A and W of the first such line. */
Test(nvccwrap, target_regs_through_the_wrapper, .timeout = 300)
{
    need_nvcc();
    char *d = tmpdir(), *cubin = join(d, "p.cubin"), *err;
    /* --ptxray-target-regs without a value: nvcc's -maxrregcount */
    char *a[] = {BIN, "nvcc", "--ptxray-target-regs", "--ptxray-warn=none", "-arch=sm_80", "-maxrregcount", "24",
                 "-cubin", "-o", cubin, src("ptx-corpus/src/particles_soa.cu"), NULL};
    cr_assert_eq(run_err(a, &err), 0, "%s", err);
    const char *p = strstr(err, ": --ptxray-target-regs 24 (aff at budget ");
    cr_assert_not_null(p, "%s", err);
    long before = -1, after = -1;
    p = strstr(p, "; ptxas spill bytes ");
    cr_assert_not_null(p, "%s", err);
    cr_assert_eq(sscanf(p, "; ptxas spill bytes %ld -> %ld", &before, &after), 2, "%s", err);
    size_t n = 0;
    char *elf = tu_read(cubin, &n);
    cr_assert_not_null(elf);
    cr_expect(n > 64 && !memcmp(elf, "\177ELF", 4));
    free(elf);
    free(err);
    cr_expect_lt(after, before, "%s", "spills did not go down");
    rm(d, (const char *[]){"p.cubin", NULL});
}

Test(nvccwrap, target_regs_usage)
{
    expect_usage_error((char *[]){BIN, "regalloc", "x.ptx", "--target-regs", "24", "--budget", "8", NULL},
                       "--target-regs takes no --budget and no --mode linear");
    expect_usage_error((char *[]){BIN, "regalloc", "x.ptx", "--budget", "8", "--arch", "sm_80", NULL},
                       "--arch goes with --target-regs\n");
    expect_usage_error((char *[]){BIN, "regalloc", "x.ptx", "--target-regs", "0", NULL},
                       "--target-regs 0: expected a number from 1 to 255\n");
}

Test(nvccwrap, ptxas_spill_bytes_sums_every_function)
{
    const char *log = "ptxas info    : Compiling entry function 'a' for 'sm_80'\n"
                      "ptxas info    : Function properties for a\n"
                      "    8 bytes stack frame, 12 bytes spill stores, 20 bytes spill loads\n"
                      "ptxas info    : Function properties for b\n"
                      "    0 bytes stack frame, 0 bytes spill stores, 4 bytes spill loads\n";
    cr_expect_eq(ra_ptxas_spill_bytes(log), 36);
    cr_expect_eq(ra_ptxas_spill_bytes(""), 0);
    cr_expect_eq(ra_ptxas_spill_bytes(NULL), 0);
}

/* only_nonlocal over the corpus at budget 8: registers move to shared
 * slots or are rebuilt, never to .local, and some do move. */
Test(nvccwrap, only_nonlocal_never_spills_to_local, .timeout = 300)
{
    size_t nf;
    char **files = tu_list_ptx(src("ptx-corpus/sm_80"), &nf);
    cr_assert_gt(nf, 0u);
    uint32_t moved = 0, limited = 0;
    for (size_t i = 0; i < nf; i++) {
        char *text = tu_read(files[i], NULL);
        ptx_diags d;
        ptx_diags_init(&d);
        ptx_module *m = ptx_parse_string(files[i], text, strlen(text), &d);
        free(text);
        cr_assert_not_null(m, "%s", files[i]);
        ra_options o;
        memset(&o, 0, sizeof o);
        o.budget = 8;
        o.mode = RA_MODE_AFF;
        o.only_nonlocal = true;
        o.measure_after = true;
        ra_stats st;
        cr_assert_eq(ra_run(m, &o, &st, &d), 0, "%s", files[i]);
        for (uint32_t k = 0; k < st.nfuncs; k++) {
            const ra_func_stats *f = &st.funcs[k];
            cr_expect_eq(f->by_place[RA_P_LOCAL], 0u, "%s %s", files[i], f->name);
            cr_expect_eq(f->local_bytes + f->loads_local + f->stores_local, 0u, "%s %s", files[i], f->name);
            cr_expect_eq(f->by_state[DIV_DIVERGENT], 0u, "%s %s", files[i], f->name);
            moved += f->spilled;
            limited += f->pressure_after > 8;
        }
        ra_stats_free(&st);
        ptx_diags_free(&d);
        ptx_module_free(m);
    }
    tu_free_list(files, nf);
    cr_expect_gt(moved, 100u, "only %u registers moved", moved);
    cr_expect_gt(limited, 0u, "every function reached the budget without .local: the restriction is not binding");
}

/* The target-registers search keeps the candidate ptxas spills least for:
 * its figure is at most every module-wide budget's from the pressure down
 * (what the search covers for a one-function module), and at most ptxas
 * alone's.  spmv_csr at 24: the first budget that helps is not the best. */
Test(nvccwrap, target_regs_keeps_the_least_spilling_candidate, .timeout = 300)
{
    if (!tc_find_ptxas()) cr_skip_test("ptxas not found");
    const char *path = src("ptx-corpus/sm_80/spmv_csr.ptx");
    ptx_module *m = ptx_load(path, 0);
    cr_assert_not_null(m);
    ra_options o;
    memset(&o, 0, sizeof o);
    o.mode = RA_MODE_AFF;
    char *out = NULL;
    size_t len;
    ra_target_result r;
    cr_assert_eq(ra_target_regs("test", m, 24, "sm_80", &o, &out, &len, &r, stderr), 0);
    cr_assert_gt(r.alone, 0);
    cr_expect_leq(r.with, r.alone);
    char *d = tmpdir();
    char *chosen = write_file(d, "chosen.ptx", out);
    cr_expect_eq(ptxas_spills(chosen, "24"), r.with, "the output is not what was measured");
    long least = r.alone;
    unsigned at = 0;
    for (unsigned b = r.pressure - 1; b >= 1; b--) {
        ptx_diags dg;
        ptx_diags_init(&dg);
        ptx_module *cm = ptx_parse_string(path, m->src, m->src_len, &dg);
        ra_options co = o;
        co.budget = b;
        co.only_nonlocal = true;
        ra_stats st;
        cr_assert_eq(ra_run(cm, &co, &st, &dg), 0);
        ra_stats_free(&st);
        ptx_diags_free(&dg);
        size_t n;
        char *text = ptx_print_text(cm, &n);
        ptx_module_free(cm);
        long s = ptxas_spills(write_file(d, "cand.ptx", text), "24");
        free(text);
        if (s < least) least = s, at = b;
    }
    cr_expect_lt(least, r.alone, "no budget helps spmv_csr at 24: the test has lost its subject");
    cr_expect_leq(r.with, least, "kept %ld bytes (budget %u); budget %u gives %ld", r.with, r.budget, at, least);
    free(out);
    ptx_module_free(m);
    rm(d, (const char *[]){"chosen.ptx", "cand.ptx", NULL});
}

/* ra_options.budget_of: each function at its own budget, 0 leaving it as
 * it is; the same text as allocating that function alone at that budget. */
static unsigned sgemm_at_40(const void *ctx, const ptx_func *fn)
{
    (void)ctx;
    return fn->name.n == 19 && !memcmp(fn->name.p, "sgemm_regtile_16x16", 19) ? 40 : 0;
}

Test(nvccwrap, budget_of_is_a_per_function_budget)
{
    const char *path = src("ptx-corpus/sm_80/regtile_16x16.ptx");
    char *text[2];
    for (int k = 0; k < 2; k++) {
        ptx_module *m = ptx_load(path, 0);
        cr_assert_not_null(m);
        ra_options o;
        memset(&o, 0, sizeof o);
        o.mode = RA_MODE_AFF;
        if (k) o.budget = 40, o.only = "sgemm_regtile_16x16";
        else o.budget = 8, o.budget_of = sgemm_at_40; /* budget: not used */
        ptx_diags d;
        ptx_diags_init(&d);
        ra_stats st;
        cr_assert_eq(ra_run(m, &o, &st, &d), 0);
        uint32_t spilled = 0;
        for (uint32_t i = 0; i < st.nfuncs; i++) spilled += st.funcs[i].spilled;
        cr_expect_gt(spilled, 0u);
        ra_stats_free(&st);
        ptx_diags_free(&d);
        size_t n;
        text[k] = ptx_print_text(m, &n);
        ptx_module_free(m);
    }
    cr_expect(strstr(text[0], "%ra_") != NULL || strstr(text[0], "__ra_") != NULL, "nothing rewritten");
    cr_expect_str_eq(text[0], text[1]);
    free(text[0]);
    free(text[1]);
}

/* The project file found from the .cu (docs/check.md, "Stated
 * assumptions"): a suppression with its reason silences the wrapper's
 * warning as it does check's; the object is still nvcc's. */
Test(nvccwrap, project_file_suppression, .timeout = 300)
{
    need_nvcc();
    char *d = tmpdir(), *err;
    char *cu = strdup(write_file(d, "u.cu", UNCOAL_CU)), *o = strdup(join(d, "w.o"));
    char *a[] = {BIN, "nvcc", "-c", "-arch=sm_80", cu, "-o", o, NULL};
    cr_assert_eq(run_err(a, &err), 0, "%s", err);
    cr_expect_eq(count(err, "[ptxray-uncoalesced]\n"), 1, "without the file: %s", err);
    free(err);
    write_file(d, "ptxray.yaml",
               "suppress:\n  - kernel: strided\n    rule: uncoalesced\n    reason: a[i * 33] is the layout the caller "
               "wants\n");
    cr_assert_eq(run_err(a, &err), 0, "%s", err);
    cr_expect_eq(count(err, "[ptxray-uncoalesced]"), 0, "suppressed: %s", err);
    free(err);
    rm(d, (const char *[]){"u.cu", "w.o", "ptxray.yaml", NULL});
    free(cu);
    free(o);
}

/* ptxas -v's "Used N registers, ..." line for kernel name in log (a copy),
 * NULL when it has none. */
static char *used_line(const char *log, const char *name)
{
    char pat[256];
    snprintf(pat, sizeof pat, "Compiling entry function '%s' for ", name);
    const char *p = strstr(log, pat);
    if (!p || !(p = strstr(p, "ptxas info    : Used "))) return NULL;
    return strndup(p, strcspn(p, "\n"));
}

/* The rewrite takes the block shapes of the project file found from the
 * .cu, below --ptxray-block, as `ptxray regalloc` takes them: avgSquare at
 * 64 threads has a shared spill area of 2 warps (64 bytes, not the 32
 * warps of 1,024 threads), and what ptxas says of each kernel is what it
 * says of `ptxray regalloc --config F` on nvcc's PTX. */
Test(nvccwrap, rewrite_reads_the_project_files_shapes, .timeout = 300)
{
    need_nvcc();
    char *d = tmpdir(), *err;
    size_t n;
    char *text = tu_read(src(CU), &n);
    cr_assert_not_null(text);
    char *cu = strdup(write_file(d, "x.cu", text)), *cubin = strdup(join(d, "w.cubin"));
    free(text);
    char *w[] = {BIN, "nvcc", "--ptxray-budget=8", "--ptxray-warn=none", "-arch=sm_80", "-cubin", "-Xptxas", "-v",
                 "-o", cubin, cu, NULL};
    cr_assert_eq(run_err(w, &err), 0, "%s", err);
    char *before = used_line(err, "avgSquare");
    cr_assert_not_null(before, "%s", err);
    cr_expect(strstr(before, ", 1024 bytes smem,") != NULL, "without the file: %s", before);
    free(err);
    char *yaml = strdup(write_file(d, "ptxray.yaml", "kernels:\n  - kernel: \"avg*\"\n    block: [64, 1, 1]\n"));
    char *wlog;
    cr_assert_eq(run_err(w, &wlog), 0, "%s", wlog);
    /* regalloc --config on the same PTX, assembled as nvcc's ptxas step does */
    char *ptx = strdup(join(d, "x.ptx")), *rw = strdup(join(d, "rw.ptx")), *rcubin = strdup(join(d, "rw.cubin"));
    char *p[] = {(char *)tc_find_nvcc(), "-ptx", "-arch=sm_80", "-o", ptx, cu, NULL};
    cr_assert_eq(run_err(p, &err), 0, "%s", err);
    free(err);
    char *r[] = {BIN, "regalloc", ptx, "--budget", "8", "--config", yaml, "-o", rw, NULL};
    cr_assert_eq(run_err(r, &err), 0, "%s", err);
    cr_expect(strstr(err, ".shared 32 bytes per warp x 2 warps = 64 bytes per block") != NULL, "%s", err);
    free(err);
    char *a[] = {(char *)tc_find_ptxas(), "-arch=sm_80", "-m64", "-v", rw, "-o", rcubin, NULL};
    char *rlog;
    cr_assert_eq(run_err(a, &rlog), 0, "%s", rlog);
    static const char *const kernels[] = {"avgSquare", "sumTriangle", "s"};
    for (int k = 0; k < 3; k++) {
        char *x = used_line(wlog, kernels[k]), *y = used_line(rlog, kernels[k]);
        cr_assert_not_null(x, "%s: %s", kernels[k], wlog);
        cr_assert_not_null(y, "%s: %s", kernels[k], rlog);
        cr_expect_str_eq(x, y, "%s: the wrapper's rewrite is not regalloc --config's", kernels[k]);
        if (k == 0) cr_expect(strstr(x, ", 64 bytes smem,") != NULL, "%s", x);
        free(x);
        free(y);
    }
    free(wlog);
    free(rlog);
    free(before);
    rm(d, (const char *[]){"x.cu", "w.cubin", "ptxray.yaml", "x.ptx", "rw.ptx", "rw.cubin", NULL});
    free(cu);
    free(cubin);
    free(yaml);
    free(ptx);
    free(rw);
    free(rcubin);
}
