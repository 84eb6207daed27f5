/* ptxray spillcost: exact counts per mode on a kernel with a loop nest
 * (tests/data/spillcost/loop_spill.ptx; without ptxas, so that the output
 * does not depend on its version), the CSV and JSON structure, the ptxas -v
 * parser on captured output, ptxas's columns when it is installed, the
 * gnuplot chart, --target-regs against ptxas alone, and bad usage (exit 2,
 * nothing written). */
#include <criterion/criterion.h>
#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "spillcost_ptxas.h"
#include "testutil.h"
#include "toolchain.h"

#define BIN ((char *)tu_bin())

static char *data(void)
{
    static char buf[1024];
    snprintf(buf, sizeof buf, "%s", tu_src("tests/data/spillcost/loop_spill.ptx"));
    return buf;
}

/* Criterion runs each test in its own process: the environment is ours. */
static void no_ptxas(void) { setenv("PTXAS", "/nonexistent/ptxas", 1); }

/* The CSV row of one mode with its file column dropped (the path is the
 * test machine's). */
static const char *csv_row(const char *csv, const char *mode, char *buf, size_t n)
{
    char key[64];
    snprintf(key, sizeof key, ",loop_spill,%s,", mode);
    const char *p = strstr(csv, key);
    cr_assert_not_null(p, "no %s row in\n%s", mode, csv);
    p++;
    const char *e = strchr(p, '\n');
    snprintf(buf, n, "%.*s", (int)(e - p), p);
    return buf;
}

Test(spillcost, exact_counts_per_mode_at_budget_8)
{
    no_ptxas();
    char *out, *err, buf[512];
    char *a[] = {BIN, "spillcost", data(), "--budgets", "8", "--format", "csv", NULL};
    cr_assert_eq(tu_run(a, &out, &err), 0, "%s", err);
    /* kernel,mode,budget,spilled,uniform,affine,divergent,
     * loads_shared,stores_shared,loads_local,stores_local,remat,remat_shared,
     * their loop-weighted forms (inner loop 100, outer 10),
     * local_bytes,shared_bytes, and five empty ptxas columns */
    cr_expect_str_eq(csv_row(out, "linear", buf, sizeof buf),
                     "loop_spill,linear,8,7,5,1,1,0,0,14,10,0,0,0,0,545,127,0,32,0,,,,,");
    cr_expect_str_eq(csv_row(out, "div", buf, sizeof buf),
                     "loop_spill,div,8,8,7,0,1,10,9,4,1,0,0,730,126,4,1,0,8,160,,,,,");
    cr_expect_str_eq(csv_row(out, "aff", buf, sizeof buf),
                     "loop_spill,aff,8,8,6,2,0,11,7,0,0,3,4,434,16,0,0,205,0,160,,,,,");
    cr_expect_str_eq(csv_row(out, "ptxas", buf, sizeof buf), "loop_spill,ptxas,8,,,,,,,,,,,,,,,,,,,,,,");
    cr_expect(strstr(err, "note: ptxas not found") != NULL, "%s", err);
    free(out);
    free(err);
}

Test(spillcost, csv_header_and_rows)
{
    no_ptxas();
    char *out, *err;
    char *a[] = {BIN, "spillcost", data(), "--budgets", "16,8", "--format", "csv", NULL};
    cr_assert_eq(tu_run(a, &out, &err), 0, "%s", err);
    const char *want_head =
        "file,kernel,mode,budget,spilled,uniform,affine,divergent,loads_shared,stores_shared,loads_local,"
        "stores_local,remat,remat_shared,loads_shared_w,stores_shared_w,loads_local_w,stores_local_w,remat_w,"
        "local_bytes,shared_bytes,ptxas_registers,ptxas_stack_frame,ptxas_spill_stores,ptxas_spill_loads,"
        "ptxas_smem\n";
    cr_assert_eq(strncmp(out, want_head, strlen(want_head)), 0, "%s", out);
    /* header + 4 modes x 2 budgets, budgets ascending within each mode */
    unsigned lines = 0, commas_bad = 0;
    const char *order[8] = {"linear,8,", "linear,16,", "div,8,", "div,16,", "aff,8,", "aff,16,", "ptxas,8,",
                            "ptxas,16,"};
    for (const char *p = out; *p; lines++) {
        const char *e = strchr(p, '\n');
        cr_assert_not_null(e);
        unsigned c = 0;
        for (const char *q = p; q < e; q++) c += *q == ',';
        commas_bad += c != 25;
        if (lines) {
            char key[64];
            snprintf(key, sizeof key, ",loop_spill,%s", order[lines - 1]);
            cr_expect(strstr(p, key) && strstr(p, key) < e, "line %u: want %s", lines, order[lines - 1]);
        }
        p = e + 1;
    }
    cr_expect_eq(lines, 9);
    cr_expect_eq(commas_bad, 0);
    free(out);
    free(err);
}

Test(spillcost, json_structure_and_totals)
{
    no_ptxas();
    char *out, *err;
    char *a[] = {BIN, "spillcost", data(), "--budgets", "8", "--format", "json", NULL};
    cr_assert_eq(tu_run(a, &out, &err), 0, "%s", err);
    json_error_t je;
    json_t *j = json_loads(out, 0, &je);
    cr_assert_not_null(j, "%s", je.text);
    cr_expect_eq(json_array_size(json_object_get(j, "budgets")), 1);
    cr_expect(json_is_false(json_object_get(j, "ptxas")));
    json_t *rows = json_object_get(j, "rows");
    cr_assert_eq(json_array_size(rows), 4);
    json_t *aff = json_array_get(rows, 2);
    cr_expect_str_eq(json_string_value(json_object_get(aff, "mode")), "aff");
    cr_expect_eq(json_integer_value(json_object_get(aff, "remat_w")), 205);
    cr_expect(json_is_null(json_object_get(aff, "ptxas_registers")));
    json_t *ref = json_array_get(rows, 3);
    cr_expect_str_eq(json_string_value(json_object_get(ref, "mode")), "ptxas");
    cr_expect(json_is_null(json_object_get(ref, "spilled")));
    json_t *tot = json_object_get(j, "totals");
    cr_assert_eq(json_array_size(tot), 4);
    json_t *t = json_array_get(tot, 2);
    cr_expect_str_eq(json_string_value(json_object_get(t, "mode")), "aff");
    cr_expect_eq(json_integer_value(json_object_get(t, "remat_const")), 1);
    cr_expect_eq(json_integer_value(json_object_get(t, "remat_affine")), 2);
    cr_expect_eq(json_integer_value(json_object_get(t, "remat_shared_affine")), 4);
    cr_expect_eq(json_integer_value(json_object_get(t, "loads_local_w")), 0);
    cr_expect(json_is_null(json_object_get(t, "ptxas_spill_bytes")));
    cr_expect_eq(json_array_size(json_object_get(j, "notes")), 1);
    json_decref(j);
    /* deterministic: the same bytes twice */
    char *out2, *err2;
    cr_assert_eq(tu_run(a, &out2, &err2), 0);
    cr_expect_str_eq(out, out2);
    free(out);
    free(err);
    free(out2);
    free(err2);
}

Test(spillcost, text_totals_and_summary)
{
    no_ptxas();
    char *out, *err;
    char *a[] = {BIN, "spillcost", data(), "--budgets", "8", NULL};
    cr_assert_eq(tu_run(a, &out, &err), 0, "%s", err);
    cr_expect(strstr(out, "8  linear        7     24     672       0        0      0       0              -\n"), "%s",
              out);
    cr_expect(strstr(out, "8  aff           8      0       0      18      450      7     205              -\n"), "%s",
              out);
    cr_expect(strstr(out, "Summary at K=8 over all kernels"), "%s", out);
    cr_expect(strstr(out, "div           8    7    0    1         10         4     71.4            0             0"
                          "                    0\n"),
              "%s", out);
    cr_expect(strstr(out, "aff           8    6    2    0         11         0    100.0            1             2"
                          "                    4\n"),
              "%s", out);
    cr_expect(strstr(out, "note: ptxas not found"), "%s", out);
    free(out);
    free(err);
}

/* Captured from ptxas 13.0 -v -arch=sm_80 -maxrregcount 16 (trimmed). */
static const char captured[] =
    "ptxas warning : For profile sm_80 adjusting per thread register count of 16 to lower bound of 24\n"
    "ptxas info    : Overriding maximum register limit 256 for 'k' with  24 of maxrregcount option\n"
    "ptxas info    : 0 bytes gmem\n"
    "ptxas info    : Compiling entry function '_Z18noinline_recursivePyi' for 'sm_80'\n"
    "ptxas info    : Function properties for _Z18noinline_recursivePyi\n"
    "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 24 registers, used 0 barriers, 364 bytes cmem[0]\n"
    "ptxas info    : Compile time = 5.904 ms\n"
    "ptxas info    : Function properties for _Z7fib_reci\n"
    "    24 bytes stack frame, 24 bytes spill stores, 20 bytes spill loads\n"
    "ptxas info    : Compiling entry function 'tiled' for 'sm_80'\n"
    "ptxas info    : Function properties for tiled\n"
    "    40 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads\n"
    "ptxas info    : Used 18 registers, used 1 barriers, 2048 bytes smem, 32 bytes cumulative stack size, "
    "388 bytes cmem[0]\n";

Test(spillcost, ptxas_v_parser)
{
    sc_ptxas_info p;
    cr_assert_eq(sc_ptxas_parse(captured, &p), 0);
    cr_expect_eq(p.nfuncs, 3);
    cr_expect_eq(p.reg_lower_bound, 24);
    const sc_ptxas_func *f = sc_ptxas_find(&p, "_Z18noinline_recursivePyi");
    cr_assert_not_null(f);
    cr_expect(f->has_props && f->has_used);
    cr_expect_eq(f->registers, 24);
    cr_expect_eq(f->stack_frame, 0);
    cr_expect_eq(f->smem, 0);
    f = sc_ptxas_find(&p, "_Z7fib_reci");
    cr_assert_not_null(f);
    cr_expect(f->has_props && !f->has_used);
    cr_expect_eq(f->stack_frame, 24);
    cr_expect_eq(f->spill_stores, 24);
    cr_expect_eq(f->spill_loads, 20);
    f = sc_ptxas_find(&p, "tiled");
    cr_assert_not_null(f);
    cr_expect_eq(f->registers, 18);
    cr_expect_eq(f->stack_frame, 40);
    cr_expect_eq(f->spill_stores, 8);
    cr_expect_eq(f->spill_loads, 12);
    cr_expect_eq(f->smem, 2048);
    cr_expect_null(sc_ptxas_find(&p, "nothere"));
    sc_ptxas_free(&p);
    cr_expect_eq(sc_ptxas_parse("ptxas fatal   : Unresolved extern function 'f'\n", &p), -1);
    cr_expect_eq(sc_ptxas_parse("", &p), -1);
}

/* With ptxas: every row gets its columns, the shared memory ptxas reports
 * is the pass's spill area (the kernel has no other .shared).  The stack
 * frame is not compared with the .local slots: ptxas may keep a small
 * local array in registers (aff at 8 units: 8 bytes, stack frame 0). */
Test(spillcost, ptxas_columns)
{
    if (!tc_find_ptxas()) cr_skip_test("ptxas not found");
    char *out, *err;
    char *a[] = {BIN, "spillcost", data(), "--budgets", "8", "--format", "json", NULL};
    cr_assert_eq(tu_run(a, &out, &err), 0, "%s", err);
    json_t *j = json_loads(out, 0, NULL);
    cr_assert_not_null(j);
    cr_expect(json_is_true(json_object_get(j, "ptxas")));
    json_t *rows = json_object_get(j, "rows");
    cr_assert_eq(json_array_size(rows), 4);
    for (size_t i = 0; i < 4; i++) {
        json_t *r = json_array_get(rows, i);
        cr_expect_gt(json_integer_value(json_object_get(r, "ptxas_registers")), 0, "row %zu", i);
        if (i == 3) continue;
        cr_expect_eq(json_integer_value(json_object_get(r, "ptxas_smem")),
                     json_integer_value(json_object_get(r, "shared_bytes")), "row %zu", i);
    }
    json_decref(j);
    free(out);
    free(err);
}

static unsigned count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    cr_assert_not_null(d);
    unsigned n = 0;
    for (struct dirent *e; (e = readdir(d));) n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

Test(spillcost, plot_writes_svg)
{
    no_ptxas();
    char dir[] = "/tmp/ptxray-sc-plotXXXXXX", svg[128];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(svg, sizeof svg, "%s/cost.svg", dir);
    char *out, *err;
    char *a[] = {BIN, "spillcost", data(), "--budgets", "8,16", "--plot", svg, NULL};
    int rc = tu_run(a, &out, &err);
    if (rc == 2 && strstr(err, "needs gnuplot")) {
        rmdir(dir);
        cr_skip_test("gnuplot not installed");
    }
    cr_assert_eq(rc, 0, "%s", err);
    size_t len;
    char *s = tu_read(svg, &len);
    cr_assert_not_null(s);
    cr_expect(strstr(s, "<svg") != NULL);
    cr_expect(strstr(s, "linear") && strstr(s, "aff"));
    struct stat st;
    cr_assert_eq(stat(svg, &st), 0);
    cr_expect_eq(st.st_mode & 0044, 0044, "the chart is readable like any new file");
    cr_expect_eq(count_entries(dir), 1, "no temporary file left");
    free(s);
    free(out);
    free(err);
    unlink(svg);
    rmdir(dir);
}

Test(spillcost, plot_errors_write_nothing)
{
    no_ptxas();
    char dir[] = "/tmp/ptxray-sc-plotXXXXXX", svg[128];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(svg, sizeof svg, "%s/cost.svg", dir);
    char *out, *err;
    /* gnuplot missing */
    setenv("GNUPLOT", "/nonexistent/gnuplot", 1);
    char *a[] = {BIN, "spillcost", data(), "--budgets", "8", "--plot", svg, NULL};
    cr_expect_eq(tu_run(a, &out, &err), 2);
    cr_expect(strstr(err, "--plot needs gnuplot") != NULL, "%s", err);
    cr_expect_str_eq(out, "");
    cr_expect_eq(count_entries(dir), 0);
    free(out);
    free(err);
    unsetenv("GNUPLOT");
    /* a directory that does not exist (only where gnuplot is installed:
     * otherwise the case above is what happens) */
    snprintf(svg, sizeof svg, "%s/no/such/dir/cost.svg", dir);
    int rc = tu_run(a, &out, &err);
    cr_expect_eq(rc, 2, "%s", err);
    cr_expect_str_eq(out, "");
    cr_expect_eq(count_entries(dir), 0);
    free(out);
    free(err);
    rmdir(dir);
}

/* The chart is SVG: another extension is a usage error, nothing written
 * (issue 20 item 8: x.png used to get SVG). */
Test(spillcost, plot_rejects_other_extensions)
{
    char dir[] = "/tmp/ptxray-sc-extXXXXXX", png[128];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(png, sizeof png, "%s/x.png", dir);
    char *a[] = {BIN, "spillcost", data(), "--budgets", "8", "--plot", png, NULL};
    char *out, *err;
    cr_expect_eq(tu_run(a, &out, &err), 2);
    cr_expect(strstr(err, "the chart is SVG; name it FILE.svg") != NULL, "%s", err);
    cr_expect_str_eq(out, "");
    cr_expect_neq(access(png, F_OK), 0, "%s was written", png);
    free(out);
    free(err);
    rmdir(dir);
}

Test(spillcost, bad_usage_exits_2)
{
    no_ptxas();
    const char *bad[] = {"", "0", "8,", ",8", "8,,16", "a", "8x", "70000", "-8", "8;16"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *out, *err;
        char *a[] = {BIN, "spillcost", data(), "--budgets", (char *)bad[i], NULL};
        cr_expect_eq(tu_run(a, &out, &err), 2, "--budgets '%s'", bad[i]);
        cr_expect_str_eq(out, "", "--budgets '%s'", bad[i]);
        cr_expect(strstr(err, "--budgets") != NULL, "--budgets '%s': %s", bad[i], err);
        free(out);
        free(err);
    }
    char *cases[][8] = {
        {BIN, "spillcost", data(), NULL},                                         /* no --budgets */
        {BIN, "spillcost", "--budgets", "8", NULL},                               /* no file */
        {BIN, "spillcost", data(), "--budgets", "8", "--format", "xml", NULL},
        {BIN, "spillcost", data(), "--budgets", "8", "--arch", "80", NULL},
        {BIN, "spillcost", "-", "--budgets", "8", NULL},
        {BIN, "spillcost", "/nonexistent.ptx", "--budgets", "8", NULL},
        {BIN, "spillcost", data(), "--budgets", "8", "--target-regs", "0", NULL},
        {BIN, "spillcost", data(), "--budgets", "8", "--target-regs", "256", NULL},
        {BIN, "spillcost", data(), "--budgets", "8", "--target-regs", "24x", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *out, *err;
        cr_expect_eq(tu_run(cases[i], &out, &err), 2, "case %zu", i);
        cr_expect_str_eq(out, "", "case %zu", i);
        free(out);
        free(err);
    }
}

/* --target-regs: per file and mode, ptxas -maxrregcount N alone and after
 * the target-registers search, the same bytes ptxas reports on its own
 * (spmv_csr spills at 24 registers under ptxas alone, double_math too but
 * nothing the pass can move helps it), and the totals. */
Test(spillcost, target_regs_before_and_after, .timeout = 300)
{
    if (!tc_find_ptxas()) cr_skip_test("ptxas not found");
    char f1[1024], f2[1024];
    snprintf(f1, sizeof f1, "%s", tu_src("ptx-corpus/sm_80/spmv_csr.ptx"));
    snprintf(f2, sizeof f2, "%s", tu_src("ptx-corpus/sm_80/double_math.ptx"));
    char *out, *err;
    char *a[] = {BIN, "spillcost", f1, f2, "--budgets", "16", "--target-regs", "24", "--format", "json", NULL};
    cr_assert_eq(tu_run(a, &out, &err), 0, "%s", err);
    json_t *j = json_loads(out, 0, NULL);
    cr_assert_not_null(j, "%s", out);
    json_t *t = json_object_get(j, "target_regs");
    cr_assert_not_null(t);
    cr_expect_eq(json_integer_value(json_object_get(t, "regs")), 24);
    json_t *rows = json_object_get(t, "rows");
    cr_assert_eq(json_array_size(rows), 4);
    static const char *const modes[] = {"div", "aff"};
    long alone[2] = {0}, with[2] = {0};
    for (size_t i = 0; i < 4; i++) {
        json_t *r = json_array_get(rows, i);
        cr_expect_str_eq(json_string_value(json_object_get(r, "mode")), modes[i % 2]);
        cr_expect(json_is_true(json_object_get(r, "ok")), "row %zu", i);
        long al = (long)json_integer_value(json_object_get(r, "ptxas_spill_bytes_alone"));
        long wi = (long)json_integer_value(json_object_get(r, "ptxas_spill_bytes_with"));
        cr_expect_gt(al, 0, "row %zu", i);
        if (i < 2) { /* spmv_csr: helped, at a budget below its pressure */
            cr_expect_lt(wi, al, "row %zu", i);
            cr_expect(json_is_integer(json_object_get(r, "budget")), "row %zu", i);
            cr_expect_lt(json_integer_value(json_object_get(r, "budget")),
                         json_integer_value(json_object_get(r, "pressure")), "row %zu", i);
        } else { /* double_math: nothing helps, the output is the input */
            cr_expect_eq(wi, al, "row %zu", i);
            cr_expect(json_is_null(json_object_get(r, "budget")), "row %zu", i);
        }
        alone[i % 2] += al;
        with[i % 2] += wi;
    }
    json_t *tot = json_object_get(t, "totals");
    cr_assert_eq(json_array_size(tot), 2);
    for (size_t m = 0; m < 2; m++) {
        json_t *r = json_array_get(tot, m);
        cr_expect_str_eq(json_string_value(json_object_get(r, "mode")), modes[m]);
        cr_expect_eq(json_integer_value(json_object_get(r, "files")), 2);
        cr_expect_eq(json_integer_value(json_object_get(r, "helped")), 1);
        cr_expect_eq(json_integer_value(json_object_get(r, "ptxas_spill_bytes_alone")), alone[m]);
        cr_expect_eq(json_integer_value(json_object_get(r, "ptxas_spill_bytes_with")), with[m]);
    }
    json_decref(j);
    free(out);
    free(err);
}

/* A launch file in a fresh directory: its path (static buffer). */
static const char *launch_file(const char *text)
{
    static char path[256];
    char dir[] = "/tmp/ptxray-sc-launchXXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/l.launches", dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

/* A launch file (docs/launches.md) with one run of KERNEL. */
#define RUN(kernel, block, grid, args)                                                                           \
    "{\"kernels\": [{\"name\": \"" kernel "\", \"shapes\": [{\"block\": " block ", \"launches\": [{\"grid\": " grid \
    ", \"args\": [" args "]}]}]}]}\n"

static void rm_launch_file(const char *path)
{
    char dir[256];
    snprintf(dir, sizeof dir, "%s", path);
    unlink(path);
    *strrchr(dir, '/') = 0;
    rmdir(dir);
}

/* 128 threads, n = 3: the inner loop runs 9 times per thread, the outer 3.
 * In aff mode the constant 1000 is rebuilt at its one use in the inner
 * loop (9 per thread), 4*tid.x + 7 at its uses in the inner loop and after
 * the nest (10), and the output address from its .shared slot at the three
 * loads and the store (4), all per lane; and the .local and .shared bytes
 * are what `ptxray run` measures on `ptxray regalloc`'s output. */
Test(spillcost, launches_dynamic_figures)
{
    no_ptxas();
    /* out n a b c */
    const char *lf = launch_file(RUN("loop_spill", "[128]", "[1]",
                                     "\"buf:i32:384:rand:5\", \"i32:3\", \"i32:2\", \"i32:3\", \"i32:5\""));
    char *out, *err;
    char *a[] = {BIN, "spillcost", data(), "--budgets", "8", "--format", "json", "--launches", (char *)lf, NULL};
    cr_assert_eq(tu_run(a, &out, &err), 0, "%s", err);
    json_error_t je;
    json_t *j = json_loads(out, 0, &je);
    cr_assert_not_null(j, "%s", je.text);
    json_t *rows = json_object_get(j, "rows");
    cr_assert_eq(json_array_size(rows), 4);
    const char *modes[3] = {"linear", "div", "aff"};
    for (unsigned m = 0; m < 3; m++) {
        json_t *y = json_object_get(json_array_get(rows, m), "dynamic");
        cr_assert_not_null(y, "%s", modes[m]);
        cr_expect_eq(json_integer_value(json_object_get(y, "launches")), 1);
        cr_expect_eq(json_integer_value(json_object_get(y, "differ")), 0);
        /* the same launch under `ptxray run` of the rewrite */
        char rw[300];
        snprintf(rw, sizeof rw, "%s.%s.ptx", lf, modes[m]);
        char *ra[] = {BIN, "regalloc", data(), "--budget", "8", "--mode", (char *)modes[m], "-q", "-o", rw, NULL};
        char *o2, *e2;
        cr_assert_eq(tu_run(ra, &o2, &e2), 0, "%s", e2);
        free(o2);
        free(e2);
        char *rn[] = {BIN, "run", rw, "--kernel", "loop_spill", "--grid", "1", "--block", "128",
                      "--arg", "buf:i32:384:rand:5", "--arg", "i32:3", "--arg", "i32:2", "--arg", "i32:3",
                      "--arg", "i32:5", "--format", "json", NULL};
        cr_assert_eq(tu_run(rn, &o2, &e2), 0, "%s", e2);
        json_t *rj = json_loads(o2, 0, &je);
        cr_assert_not_null(rj, "%s", je.text);
        json_t *sb = json_object_get(rj, "spill_bytes"), *re = json_object_get(rj, "remat_executed");
        static const char *const sk[4] = {"local_loaded", "local_stored", "shared_loaded", "shared_stored"};
        for (unsigned k = 0; k < 4; k++)
            cr_expect_eq(json_integer_value(json_object_get(y, sk[k])), json_integer_value(json_object_get(sb, sk[k])),
                         "%s %s", modes[m], sk[k]);
        static const char *const rk[3] = {"const", "affine", "shared_affine"};
        for (unsigned k = 0; k < 3; k++) {
            char key[64];
            snprintf(key, sizeof key, "remat_%s", rk[k]);
            cr_expect_eq(json_integer_value(json_object_get(y, key)), json_integer_value(json_object_get(re, rk[k])),
                         "%s %s", modes[m], key);
        }
        cr_expect_eq(m == 2, re != NULL, "%s: rematerialisations only in aff", modes[m]);
        json_decref(rj);
        free(o2);
        free(e2);
        if (m == 2) { /* run's text line */
            rn[20] = "text";
            cr_assert_eq(tu_run(rn, &o2, &e2), 0, "%s", e2);
            cr_expect(strstr(o2, "\nrematerialisations (regalloc, per lane): const 1152, affine 1280, "
                                 "shared-affine 512\n"), "%s", o2);
            cr_expect(strstr(o2, "\nspill slots (regalloc): .local 0 bytes loaded, 0 stored; .shared 29184 "
                                 "bytes loaded, 5632 stored\n"), "%s", o2);
            free(o2);
            free(e2);
        }
        unlink(rw);
    }
    json_t *aff = json_object_get(json_array_get(rows, 2), "dynamic");
    cr_expect_eq(json_integer_value(json_object_get(aff, "remat_const")), 128 * 9);
    cr_expect_eq(json_integer_value(json_object_get(aff, "remat_affine")), 128 * 10);
    cr_expect_eq(json_integer_value(json_object_get(aff, "remat_shared_affine")), 128 * 4);
    cr_expect_eq(json_integer_value(json_object_get(aff, "local_loaded")), 0);
    json_t *lin = json_object_get(json_array_get(rows, 0), "dynamic");
    cr_expect_gt(json_integer_value(json_object_get(lin, "local_loaded")), 0);
    cr_expect_null(json_object_get(json_array_get(rows, 3), "dynamic"), "the ptxas row has none");
    json_decref(j);
    free(out);
    free(err);
    /* text: the per-kernel lines, the totals and the summary */
    char *t[] = {BIN, "spillcost", data(), "--budgets", "8", "--launches", (char *)lf, NULL};
    cr_assert_eq(tu_run(t, &out, &err), 0, "%s", err);
    cr_expect(strstr(out, "Dynamic summary at K=8"), "%s", out);
    cr_expect(strstr(out, "aff           29184           0    100.0         1152          1280                  512\n"),
              "%s", out);
    free(out);
    free(err);
    rm_launch_file(lf);
}

Test(spillcost, launches_bad_input_exit_2)
{
    no_ptxas();
    static const struct {
        const char *text, *want;
    } bad[] = {
        /* the line format before launch files were one format: not JSON */
        {"loop_spill 1 32 buf:i32:8 i32:1 i32:1 i32:1 i32:1\n", "l.launches:1:4: error: '[' or '{' expected near 'loop' (a launch file is JSON: docs/launches.md)\n"},
        {RUN("loop_spill", "[32]", "[0]", "\"i32:1\""),
         "l.launches: error: kernels[0].shapes[0].launches[0]: a run has \"grid\" [x, y, z]"},
        {RUN("loop_spill", "[32, 2, 2, 2]", "[1]", "\"i32:1\""),
         "l.launches: error: kernels[0].shapes[0].block: not a block shape"},
        {RUN("loop_spill", "[32]", "[1]", "1"),
         "l.launches: error: kernels[0].shapes[0].launches[0].args[0]: not a string"},
        {RUN("loop_spill", "[32]", "[1]", "\"i32:1\""),
         "l.launches: kernels[0].shapes[0].launches[0]: error: "},
        {RUN("loop_spill", "[32]", "[1]", "\"i32:1\""), "loop_spill.ptx: kernel loop_spill takes 5 parameters, 1 given\n"},
        {RUN("loop_spill", "[32]", "[1]", "\"buf:i32:8\", \"i32:1\", \"i32:1\", \"i32:1\", \"xx:1\""),
         "l.launches: kernels[0].shapes[0].launches[0]: error: "},
        {"{\"kernels\": [{\"name\": \"loop_spill\", \"shapes\": [{\"block\": [32]}]}]}",
         "l.launches: error: no runs (launches with a \"grid\" and \"args\"; docs/launches.md)\n"},
        /* a kernel in none of the files: an error listing their kernels */
        {RUN("nosuch", "[32]", "[1]", ""),
         "/l.launches: kernels[0].shapes[0].launches[0]: no kernel named 'nosuch' in the files; give "
         "its symbol or its C++ name, in full or without its parameters:\n  loop_spill\n"},
    };
    for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *lf = launch_file(bad[i].text);
        char *out, *err;
        char *a[] = {BIN, "spillcost", data(), "--budgets", "8", "--launches", (char *)lf, NULL};
        cr_expect_eq(tu_run(a, &out, &err), 2, "%s", bad[i].text);
        cr_expect(strstr(err, bad[i].want) != NULL, "%s: %s", bad[i].text, err);
        cr_expect_str_eq(out, "", "%s", bad[i].text);
        free(out);
        free(err);
        rm_launch_file(lf);
    }
}

/* Where the .local spill instructions come from (local_w_why): every
 * weighted .local instruction has one reason, so the reasons add up to
 * loads_local_w + stores_local_w; in linear mode the uniform and affine
 * values are there because of the mode.  The text section lists aff's
 * kernels that keep .local spills (avgSquare and sumTriangle of
 * sampaio_divergence: loop counters and sums redefined inside `if (tid <
 * c)`, where the warp may be split). */
Test(spillcost, local_reasons)
{
    no_ptxas();
    char *out, *err;
    char *a[] = {BIN, "spillcost", data(), "--budgets", "8", "--format", "json", NULL};
    cr_assert_eq(tu_run(a, &out, &err), 0, "%s", err);
    json_error_t je;
    json_t *j = json_loads(out, 0, &je);
    cr_assert_not_null(j, "%s", je.text);
    json_t *rows = json_object_get(j, "rows");
    for (unsigned m = 0; m < 3; m++) {
        json_t *r = json_array_get(rows, m), *y = json_object_get(r, "local_w_why");
        cr_assert_not_null(y);
        json_int_t sum = 0;
        const char *k;
        json_t *v;
        json_object_foreach(y, k, v) sum += json_integer_value(v);
        cr_expect_eq(sum, json_integer_value(json_object_get(r, "loads_local_w")) +
                              json_integer_value(json_object_get(r, "stores_local_w")), "row %u", m);
    }
    json_t *lin = json_object_get(json_array_get(rows, 0), "local_w_why");
    cr_expect_eq(json_integer_value(json_object_get(lin, "divergent")), 222);
    cr_expect_eq(json_integer_value(json_object_get(lin, "mode")), 450);
    json_t *div = json_object_get(json_array_get(rows, 1), "local_w_why");
    cr_expect_eq(json_integer_value(json_object_get(div, "divergent")), 5);
    json_decref(j);
    free(out);
    free(err);
    char *t[] = {BIN, "spillcost", (char *)tu_src("ptx-corpus/sm_80/sampaio_divergence.ptx"), "--budgets", "8", NULL};
    cr_assert_eq(tu_run(t, &out, &err), 0, "%s", err);
    const char *s = strstr(out, "Where aff's .local spill instructions at K=8");
    cr_assert_not_null(s, "%s", out);
    cr_expect(strstr(s, "kernel       local~  divergent  redefined where the warp may be split\n"), "%s", s);
    cr_expect(strstr(s, "avgSquare       114         44                                     70\n"), "%s", s);
    cr_expect(strstr(s, "sumTriangle     221        190                                     31\n"), "%s", s);
    cr_expect(strstr(s, "2 kernels       335        234                                    101\n"), "%s", s);
    free(out);
    free(err);
}
