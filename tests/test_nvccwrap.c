/* ptxray nvcc (the pass between nvcc's PTX and ptxas), regalloc
 * --target-regs against ptxas alone, and ra_options.only_nonlocal.  The
 * wrapper tests skip when nvcc is absent, the target-regs ones when ptxas
 * is; the toolchain's spill figures are compared (with-pass below alone,
 * the reported figure equal to what ptxas says on the output), not fixed,
 * since they belong to the installed ptxas. */
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

Test(nvccwrap, ptx_and_cubin_at_budget_8_aff, .timeout = 300)
{
    need_nvcc();
    char *d = tmpdir(), *out, *err;
    char *ptx = join(d, "s.ptx"), *cubin = join(d, "s.cubin");
    char *a[] = {BIN, "nvcc", "--ptxray-budget", "8", "--ptxray-mode", "aff", "-arch=sm_80", "-lineinfo", "-ptx",
                 "-o", ptx, src(CU), NULL};
    cr_assert_eq(tu_run(a, &out, &err), 0, "%s", err);
    free(out);
    free(err);
    char *text = tu_read(ptx, NULL);
    cr_assert_not_null(text);
    /* the pass's spill code: both areas, the warp partition's base, the
     * strong shared slot accesses and a .local store */
    cr_expect(strstr(text, ".local .align 8 .b8 \t__ra_local[") != NULL, "%.400s", text);
    cr_expect(strstr(text, ".shared .align 8 .b8 \t__ra_shared[") != NULL);
    cr_expect(strstr(text, "mov.u32 \t%ra_u32_1, __ra_shared;") != NULL);
    cr_expect(strstr(text, "st.relaxed.cta.shared.b64 \t[%ra_u32_0+0], %ra_b64_0;") != NULL);
    cr_expect(strstr(text, "st.local.b32 \t[__ra_local+") != NULL);
    cr_expect(strstr(text, ".target sm_80") != NULL);
    free(text);

    char *b[] = {BIN, "nvcc", "--ptxray-budget", "8", "--ptxray-mode", "aff", "-arch=sm_80", "-cubin", "-o", cubin,
                 src(CU), NULL};
    cr_assert_eq(tu_run(b, &out, &err), 0, "%s", err);
    cr_expect_str_eq(err, "");
    free(out);
    free(err);
    size_t n = 0;
    char *elf = tu_read(cubin, &n);
    cr_assert_not_null(elf);
    cr_expect_gt(n, 64u);
    cr_expect(!memcmp(elf, "\177ELF", 4), "not an ELF file");
    /* the rewritten code is what ptxas assembled: the kernels have none of
     * their own, so the shared sections are the pass's spill area */
    cr_expect(find_bytes(elf, n, ".nv.shared.avgSquare") != NULL);
    cr_expect(find_bytes(elf, n, ".nv.shared.sumTriangle") != NULL);
    free(elf);
    rm(d, (const char *[]){"s.ptx", "s.cubin", NULL});
}

Test(nvccwrap, object_through_nvccs_own_steps, .timeout = 300)
{
    need_nvcc();
    char *d = tmpdir(), *out, *err, *o = join(d, "s.o");
    /* uncompressed, so that the embedded (rewritten) PTX can be seen */
    char *a[] = {BIN, "nvcc", "--ptxray-budget=8", "-arch=sm_80", "-no-compress", "-c", "-o", o, src(CU), NULL};
    cr_assert_eq(tu_run(a, &out, &err), 0, "%s", err);
    free(out);
    free(err);
    size_t n = 0;
    char *obj = tu_read(o, &n);
    cr_assert_not_null(obj);
    cr_expect(n > 4 && !memcmp(obj, "\177ELF", 4));
    cr_expect(find_bytes(obj, n, "__device_stub__Z9avgSquarePfS_iPfS_i") != NULL, "no host stub");
    cr_expect(find_bytes(obj, n, "st.relaxed.cta.shared.b64") != NULL, "the embedded PTX is not the pass's");
    free(obj);
    rm(d, (const char *[]){"s.o", NULL});
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

Test(nvccwrap, refuses_what_it_does_not_support)
{
    /* argument checks come before nvcc is looked for: no skip */
    expect_usage_error((char *[]){BIN, "nvcc", "-fatbin", "x.cu", NULL},
                       "ptxray nvcc: -fatbin is not supported: the wrapper makes -c, -cubin and -ptx outputs only\n");
    expect_usage_error((char *[]){BIN, "nvcc", "-dc", "x.cu", NULL}, "-dc is not supported");
    expect_usage_error((char *[]){BIN, "nvcc", "-arch=sm_80", "-o", "a.out", "x.cu", NULL},
                       "give -c, -cubin or -ptx (or -o with a .o, .cubin or .ptx name): linking is not supported\n");
    expect_usage_error((char *[]){BIN, "nvcc", "-c", "x.cu", "y.cu", NULL}, "one .cu file at a time (x.cu and y.cu)");
    expect_usage_error((char *[]){BIN, "nvcc", "-c", "x.cu", "y.ptx", NULL}, "y.ptx: only one .cu input");
    expect_usage_error((char *[]){BIN, "nvcc", "-c", NULL}, "no .cu input\n");
    expect_usage_error((char *[]){BIN, "nvcc", "--ptxray-budget", "8", "--ptxray-target-regs", "24", "-c", "x.cu", NULL},
                       "--ptxray-budget and --ptxray-target-regs exclude each other\n");
    expect_usage_error((char *[]){BIN, "nvcc", "--ptxray-mode", "fast", "-c", "x.cu", NULL},
                       "--ptxray-mode fast: expected linear, div or aff\n");
    expect_usage_error((char *[]){BIN, "nvcc", "--ptxray-budget", "0", "-c", "x.cu", NULL},
                       "--ptxray-budget 0: expected a number from 1 to 65535\n");
    expect_usage_error((char *[]){BIN, "nvcc", "--ptxray-bugdet", "8", "-c", "x.cu", NULL},
                       "--ptxray-bugdet: unknown ptxray option\n");
    expect_usage_error((char *[]){BIN, "nvcc", "-c", "x.cu", "-o", NULL}, "-o: missing value\n");
}

Test(nvccwrap, nvcc_errors_pass_through_as_2, .timeout = 120)
{
    need_nvcc();
    char *d = tmpdir(), *cu = join(d, "bad.cu"), *out, *err;
    FILE *f = fopen(cu, "w");
    cr_assert_not_null(f);
    fputs("__global__ void k(int *p) { p[0] = undeclared_name; }\n", f);
    fclose(f);
    char *a[] = {BIN, "nvcc", "-arch=sm_80", "-cubin", "-o", join(d, "bad.cubin"), cu, NULL};
    cr_expect_eq(tu_run(a, &out, &err), 2);
    cr_expect(strstr(err, "undeclared_name") != NULL, "nvcc's message is not shown: %s", err);
    cr_expect(strstr(err, "ptxray nvcc: nvcc -ptx failed (status ") != NULL, "%s", err);
    free(out);
    free(err);
    char *b[] = {BIN, "nvcc", "-arch=sm_80", "-c", "-o", join(d, "bad.o"), cu, NULL};
    cr_expect_eq(tu_run(b, &out, &err), 2);
    cr_expect(strstr(err, "undeclared_name") != NULL, "%s", err);
    cr_expect(access(join(d, "bad.o"), F_OK) != 0, "an object was left behind");
    free(out);
    free(err);
    rm(d, (const char *[]){"bad.cu", "bad.cubin", "bad.o", NULL});
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

Test(nvccwrap, target_regs_through_the_wrapper, .timeout = 300)
{
    need_nvcc();
    char *d = tmpdir(), *cubin = join(d, "p.cubin"), *out, *err;
    /* -maxrregcount N alone makes the default --ptxray-target-regs N */
    char *a[] = {BIN, "nvcc", "-arch=sm_80", "-maxrregcount", "24", "-cubin", "-o", cubin,
                 src("ptx-corpus/src/particles_soa.cu"), NULL};
    cr_assert_eq(tu_run(a, &out, &err), 0, "%s", err);
    long alone, with;
    unsigned b;
    parse_report(err, &alone, &b, &with);
    cr_expect_lt(with, alone);
    cr_expect(strstr(err, "-maxrregcount 24: ptxas alone: ") != NULL, "%s", err);
    size_t n = 0;
    char *elf = tu_read(cubin, &n);
    cr_assert_not_null(elf);
    cr_expect(n > 64 && !memcmp(elf, "\177ELF", 4));
    free(elf);
    free(out);
    free(err);
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
