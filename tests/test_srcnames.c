/* Source names (report/srcnames.h, docs/check.md "Source names"): a kernel
 * parameter is called what its .cu calls it in every view, "param N of
 * KERNEL" when the source cannot be read, never NAME_param_N. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "testutil.h"

#define BIN ((char *)tu_bin())
#define FAN "ptx-corpus/sm_80/gaussian_fan.ptx"
/* Fan2(float *m, float *a, float *b, int N, int t): extern "C", nvcc's Fan2_param_3 */
#define FAN2_MSG "lanes 4·N B apart (stride from tid.x·N), up to 32 sectors/request, ideal 4"

/* check exits 1 on a proven finding, 0 with possible ones only */
static char *run_out(char **argv, char **err)
{
    char *out, *e;
    int rc = tu_run(argv, &out, &e);
    cr_assert(rc == 0 || rc == 1, "%s exited %d: %s", argv[1], rc, e);
    if (err) *err = e;
    else free(e);
    return out;
}

static json_t *run_json(char **argv)
{
    char *out = run_out(argv, NULL);
    json_error_t e;
    json_t *j = json_loads(out, 0, &e);
    cr_assert_not_null(j, "%s: %s", e.text, out);
    free(out);
    return j;
}

/* The finding of kernel sym at source line line that names a parameter, or fails. */
static json_t *finding_at(json_t *findings, const char *sym, int line)
{
    size_t i;
    json_t *x;
    json_array_foreach(findings, i, x) {
        json_t *src = json_object_get(x, "src");
        if (!strcmp(json_string_value(json_object_get(x, "symbol")), sym) &&
            json_integer_value(json_object_get(src, "line")) == line && json_object_get(x, "param"))
            return x;
    }
    cr_assert_fail("no finding of %s at line %d", sym, line);
    return NULL;
}

static void expect_param(json_t *p, int index, const char *name)
{
    cr_assert(json_is_object(p));
    cr_expect_eq(json_integer_value(json_object_get(p, "index")), index);
    if (name) cr_expect_str_eq(json_string_value(json_object_get(p, "name")), name);
    else cr_expect(json_is_null(json_object_get(p, "name")));
}

Test(srcnames, check_text_names_the_parameter)
{
    tu_at_root();
    char *a[] = {BIN, "check", FAN, NULL};
    char *out = run_out(a, NULL);
    cr_expect(strstr(out, "src/gaussian_fan.cu:31:5: warning: possible: uncoalesced global access: " FAN2_MSG
                          " [uncoalesced, possible]\n"),
              "%s", out);
    cr_expect(strstr(out, FAN ":137:2: note: depends on the value of N (the lanes' stride is a multiple of it)\n"),
              "%s", out);
    cr_expect(!strstr(out, "_param_"), "%s", out);
    free(out);
}

Test(srcnames, check_json_and_sarif_carry_index_and_name)
{
    tu_at_root();
    char *a[] = {BIN, "check", "--format", "json", FAN, NULL};
    json_t *j = run_json(a);
    json_t *x = finding_at(json_object_get(j, "findings"), "Fan2", 31);
    cr_expect_str_eq(json_string_value(json_object_get(x, "message")), "uncoalesced global access: " FAN2_MSG);
    expect_param(json_object_get(x, "param"), 3, "N");
    json_decref(j);
    char *s[] = {BIN, "check", "--format", "sarif", FAN, NULL};
    char *out = run_out(s, NULL);
    cr_expect(!strstr(out, "_param_"), "%s", out);
    json_t *sj = json_loads(out, 0, NULL);
    json_t *res = json_object_get(json_array_get(json_object_get(sj, "runs"), 0), "results");
    size_t i, n = 0;
    json_t *r;
    json_array_foreach(res, i, r) {
        json_t *p = json_object_get(json_object_get(r, "properties"), "param");
        if (!p) continue;
        n++;
        cr_expect(strstr(json_string_value(json_object_get(json_object_get(r, "message"), "text")), "·N B apart"));
        expect_param(p, json_integer_value(json_object_get(p, "index")) == 2 ? 2 : 3, "N");
    }
    cr_expect_eq(n, 3, "Fan1's access and Fan2's two name N");
    json_decref(sj);
    free(out);
}

/* A C++ kernel (mangled) and a template's instantiations: named through
 * clang's mangling, the template's by the instantiation the host code
 * launches. */
Test(srcnames, mangled_and_template_kernels)
{
    tu_at_root();
    char *a[] = {BIN, "check", "--format", "json", "--block", "8,32", "ptx-corpus/sm_80/matmul_tiled.ptx", NULL};
    json_t *j = run_json(a);
    json_t *f = json_object_get(j, "findings");
    /* matmul_tiled_2x2(const float *A, const float *B, float *C, int n) */
    json_t *x = finding_at(f, "_Z16matmul_tiled_2x2PKfS0_Pfi", 51);
    expect_param(json_object_get(x, "param"), 3, "n");
    cr_expect(strstr(json_string_value(json_object_get(x, "message")), "lanes 8·n B apart (stride from tid.y·n)"));
    /* template <int T> matmul_tiled(const float *A, ..., int M, int N, int K) */
    x = finding_at(f, "_Z12matmul_tiledILi8EEvPKfS1_Pfiii", 24);
    expect_param(json_object_get(x, "param"), 4, "N");
    cr_expect_str_eq(json_string_value(json_object_get(x, "message")),
                     "misaligned global load unless every group of lanes starts on a 32-byte boundary: lanes 4·N B "
                     "apart (stride from tid.y·N); 4 sectors/request if aligned, up to 8 otherwise, ideal 4");
    json_decref(j);
}

/* The coalescing report's JSON and the bank-conflict condition. */
Test(srcnames, coalescing_json_and_bank_condition)
{
    tu_at_root();
    char *a[] = {BIN, "coalescing", "--format", "json", "ptx-corpus/sm_80/transpose_bank_conflict.ptx", NULL};
    char *out = tu_run_want(a, 0, NULL);
    cr_expect(!strstr(out, "_param_"));
    json_t *j = json_loads(out, 0, NULL);
    size_t i, k, n = 0;
    json_t *kern, *x;
    json_array_foreach(json_object_get(j, "kernels"), k, kern) json_array_foreach(json_object_get(kern, "shared_accesses"), i, x)
    {
        json_t *c = json_object_get(x, "bank_conflict_condition");
        if (!json_is_object(c)) continue;
        n++;
        /* transpose_square_runtime_pitch(const float *in, float *out, int n, int pitch) */
        cr_expect_str_eq(json_string_value(json_object_get(c, "value")), "pitch");
        cr_expect(!strncmp(json_string_value(json_object_get(c, "text")), "32-way when `pitch` is a multiple of 32,", 40));
        expect_param(json_object_get(x, "param"), 3, "pitch");
    }
    cr_expect_gt(n, 0);
    json_decref(j);
    free(out);
}

/* analyze's page: the findings' texts name N; the only _param_ left is in
 * the PTX listing itself (its ld.param instructions). */
Test(srcnames, html_page)
{
    tu_at_root();
    char dir[] = "/tmp/ptxray-sn-XXXXXX", page[64];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(page, sizeof page, "%s/page.html", dir);
    /* Graphviz 2.42's dot layout leaks 736 bytes laying out this CFG
     * (new_virtual_edge <- acyclic <- dot_rank).  Debian builds graphviz
     * without frame pointers, so the fast unwinder's stack stops at its
     * gmalloc and the narrow suppression (tests/lsan.supp: the layout
     * plugin) cannot match; the slow unwinder, for this run only, gives the
     * whole stack.  A leak of ours still fails. */
    const char *asan = getenv("ASAN_OPTIONS");
    char opts[512];
    snprintf(opts, sizeof opts, "%s%sfast_unwind_on_malloc=0", asan ? asan : "", asan && *asan ? ":" : "");
    setenv("ASAN_OPTIONS", opts, 1);
    char *a[] = {BIN, "analyze", "--format", "html", FAN, "-o", page, NULL};
    free(tu_run_want(a, 0, NULL));
    char *h = tu_read(page, NULL);
    tu_rm_rf(dir);
    cr_assert_not_null(h);
    cr_expect(strstr(h, "lanes 4·N B apart (stride from tid.x·N)"));
    for (char *p = h; (p = strstr(p, "_param_")); p++) {
        /* inside a PTX cell: <td class="t">ld.param... [Fan2_param_3];</td> */
        char *cell = p;
        while (cell > h && strncmp(cell, "<td", 3)) cell--;
        cr_expect(!strncmp(cell, "<td class=\"t\">ld.param", 22), "%.80s", cell);
    }
    free(h);
}

/* Without the source: "param 3 of Fan2", the JSON's name null. */
Test(srcnames, fallback_without_the_source)
{
    char dir[] = "/tmp/ptxray-sn-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char ptx[64], cmd[256];
    snprintf(ptx, sizeof ptx, "%s/gaussian_fan.ptx", dir);
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", tu_src(FAN), ptx);
    cr_assert_eq(system(cmd), 0);
    cr_assert_eq(chdir(dir), 0); /* .file "src/gaussian_fan.cu" is found nowhere from here */
    char *a[] = {BIN, "check", ptx, NULL};
    char *out = run_out(a, NULL);
    cr_expect(strstr(out, "src/gaussian_fan.cu:31:5: warning: possible: uncoalesced global access: lanes 4·(param 3 "
                          "of Fan2) B apart (stride from tid.x·(param 3 of Fan2)), up to 32 sectors/request, ideal 4"),
              "%s", out);
    cr_expect(strstr(out, ":137:2: note: depends on the value of param 3 of Fan2 (the lanes'"), "%s", out);
    cr_expect(!strstr(out, "_param_"), "%s", out);
    free(out);
    char *j[] = {BIN, "check", "--format", "json", ptx, NULL};
    json_t *o = run_json(j);
    expect_param(json_object_get(finding_at(json_object_get(o, "findings"), "Fan2", 31), "param"), 3, NULL);
    json_decref(o);
    tu_rm_rf(dir);
}

/* A launch file's "params" name the parameters where no source is found;
 * a malformed one is an error. */
Test(srcnames, launch_file_params)
{
    char dir[] = "/tmp/ptxray-sn-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char ptx[64], json[64], bad[64], cmd[256];
    snprintf(ptx, sizeof ptx, "%s/gaussian_fan.ptx", dir);
    snprintf(json, sizeof json, "%s/l.json", dir);
    snprintf(bad, sizeof bad, "%s/bad.json", dir);
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", tu_src(FAN), ptx);
    cr_assert_eq(system(cmd), 0);
    cr_assert_eq(chdir(dir), 0);
    FILE *f = fopen(json, "w");
    cr_assert_not_null(f);
    fputs("{\"kernels\": [{\"name\": \"Fan2\", \"params\": [\"m\", \"a\", \"b\", \"rows\", \"t\"], \"shapes\": []}]}\n", f);
    fclose(f);
    char *a[] = {BIN, "check", "--launches", json, ptx, NULL};
    char *out = run_out(a, NULL);
    cr_expect(strstr(out, "src/gaussian_fan.cu:31:5: warning: possible: uncoalesced global access: lanes 4·rows B "
                          "apart (stride from tid.x·rows)"),
              "%s", out);
    /* Fan1 has no entry: the fallback */
    cr_expect(strstr(out, "lanes 4·(param 2 of Fan1) B apart"), "%s", out);
    free(out);
    f = fopen(bad, "w");
    cr_assert_not_null(f);
    fputs("{\"kernels\": [{\"name\": \"Fan2\", \"params\": [1], \"shapes\": []}]}\n", f);
    fclose(f);
    a[3] = bad;
    char *err;
    cr_expect_eq(tu_run(a, &out, &err), 2);
    char want[160];
    snprintf(want, sizeof want, "%s: error: kernels[0].params: not an array of at most 256 strings", bad);
    cr_expect(strstr(err, want), "%s", err);
    free(out);
    free(err);
    tu_rm_rf(dir);
}

/* The first PTX register (%r7, %rd12) in s, or NULL: where the source has
 * a name or an expression for a value, the reports use it.  None of the
 * corpus's reports (check, coalescing, analyze, in every format) prints
 * one: no exception is needed today (a loop's induction value would be
 * one, named by its register for want of a source name). */
static const char *ptx_register(const char *s)
{
    for (const char *p = s; (p = strstr(p, "%r")); p++) {
        const char *d = p[2] == 'd' ? p + 3 : p + 2;
        if (*d >= '0' && *d <= '9') return p;
    }
    return NULL;
}

/* Runs ptxray with args (NULL-ended), then files[0..n): no NAME_param_N
 * in its output or messages, and no PTX register unless it is a divergence
 * report. */
static void expect_no_param(const char *const *args, char **files, size_t n)
{
    char **argv = calloc(n + 16, sizeof *argv);
    cr_assert_not_null(argv);
    size_t k = 0;
    argv[k++] = BIN;
    for (size_t q = 0; args[q]; q++) argv[k++] = (char *)args[q];
    for (size_t i = 0; i < n; i++) argv[k++] = files[i];
    char *out, *err;
    tu_run(argv, &out, &err);
    cr_expect(strlen(out) > 0 || strlen(err) > 0, "%s %s: nothing", args[0], args[1] ? args[1] : "");
    const char *p = strstr(out, "_param_"), *q = strstr(err, "_param_");
    cr_expect(!p && !q, "%s %s %s: ...%.200s", args[0], args[1] ? args[1] : "", args[2] ? args[2] : "",
              p ? p - 100 : q - 100);
    /* the divergence reports are about registers: they name them */
    const char *r = strcmp(args[0], "divergence") ? ptx_register(out) : NULL, *in = out;
    if (!r && strcmp(args[0], "divergence")) r = ptx_register(in = err);
    cr_expect(!r, "%s %s %s: a PTX register: ...%.200s", args[0], args[1] ? args[1] : "", args[2] ? args[2] : "",
              r ? (r - in > 100 ? r - 100 : in) : "");
    free(out);
    free(err);
    free(argv);
}

/* Every report over the corpus, whose sources are all there: no NAME_param_N
 * and no PTX register in any, at the default shape and the two that find
 * most (the PTX that uniformize and regalloc print is PTX, not a report). */
Test(srcnames, corpus_reports_never_say_param, .timeout = 600)
{
    tu_at_root();
    size_t n;
    char **files = tu_list_ptx("ptx-corpus/sm_80", &n);
    cr_assert_geq(n, 40);
    static const char *const blocks[] = {NULL, "16,16", "8,32"};
    for (size_t b = 0; b < 3; b++) {
        const char *bo = b ? "--block" : NULL, *bv = b ? blocks[b] : NULL;
        static const char *const cmds[][3] = {{"check", "text"},      {"check", "json"},   {"check", "sarif"},
                                              {"coalescing", "text"}, {"coalescing", "json"}, {"coalescing", "sarif"},
                                              {"analyze", "text"},    {"analyze", "json"},  {"analyze", "sarif"}};
        for (size_t c = 0; c < sizeof cmds / sizeof cmds[0]; c++) {
            const char *args[] = {cmds[c][0], "--format", cmds[c][1], bo, bv, NULL};
            expect_no_param(args, files, n);
        }
    }
    /* divergence: one file at a time */
    for (size_t i = 0; i < n; i++) {
        expect_no_param((const char *const[]){"divergence", NULL}, &files[i], 1);
        expect_no_param((const char *const[]){"divergence", "--format", "json", NULL}, &files[i], 1);
    }
    expect_no_param((const char *const[]){"divergence", "--summary", NULL}, files, n);
    tu_free_list(files, n);
}

/* The other builds of the corpus (sm_75, sm_90, the -G ones): check,
 * coalescing and analyze, text and JSON, at the default shape and 16x16,
 * name no value by its PTX register (sm_80: above). */
Test(srcnames, corpus_reports_name_no_register, .timeout = 600)
{
    tu_at_root();
    static const char *const dirs[] = {"ptx-corpus/sm_75", "ptx-corpus/sm_90", "ptx-corpus/debug"};
    for (size_t d = 0; d < 3; d++) {
        size_t n;
        char **files = tu_list_ptx(dirs[d], &n);
        cr_assert_geq(n, 10, "%s", dirs[d]);
        for (size_t b = 0; b < 2; b++) {
            static const char *const cmds[][2] = {{"check", "text"},      {"check", "json"},
                                                  {"coalescing", "text"}, {"coalescing", "json"},
                                                  {"analyze", "text"},    {"analyze", "json"}};
            for (size_t c = 0; c < sizeof cmds / sizeof cmds[0]; c++) {
                const char *args[] = {cmds[c][0], "--format", cmds[c][1], b ? "--block" : NULL, "16,16", NULL};
                expect_no_param(args, files, n);
            }
        }
        tu_free_list(files, n);
    }
}

/* ---- values in source terms ---- */

#define CM "ptx-corpus/sm_80/constant_memory.ptx"
/* camera_rays: rays[y * c_cam.width + x], c_cam a __constant__ Camera whose
 * width is at byte 28 (ld.const.u32 %r3, [c_cam+28]) */
#define CAM_LAYOUT(w) "lanes 16·" w " B apart (stride from tid.y·" w "); 16 sectors/request if aligned, up to 17 otherwise, ideal 16"

/* The finding of kernel sym at source line line (any, param or not). */
static json_t *finding_of(json_t *findings, const char *sym, int line)
{
    size_t i;
    json_t *x;
    json_array_foreach(findings, i, x) {
        json_t *src = json_object_get(x, "src");
        if (!strcmp(json_string_value(json_object_get(x, "symbol")), sym) &&
            json_integer_value(json_object_get(src, "line")) == line)
            return x;
    }
    cr_assert_fail("no finding of %s at line %d", sym, line);
    return NULL;
}

Test(srcnames, constant_struct_field_by_offset)
{
    tu_at_root();
    char *a[] = {BIN, "check", "--block", "16,16", CM, NULL};
    char *out = run_out(a, NULL);
    cr_expect(strstr(out, "src/constant_memory.cu:58:3: warning: possible: misaligned global store unless every "
                          "group of lanes starts on a 32-byte boundary: " CAM_LAYOUT("c_cam.width")
                          " [misaligned, possible]\n"),
              "%s", out);
    free(out);
    char *j[] = {BIN, "check", "--format", "json", "--block", "16,16", CM, NULL};
    json_t *o = run_json(j);
    json_t *x = finding_of(json_object_get(o, "findings"), "camera_rays", 58);
    cr_expect_str_eq(json_string_value(json_object_get(x, "value")), "c_cam.width");
    cr_expect_null(json_object_get(x, "param"), "a variable is no parameter");
    /* conv3x3_const's stride is the parameter w: a param, no value */
    x = finding_at(json_object_get(o, "findings"), "conv3x3_const", 37);
    expect_param(json_object_get(x, "param"), 2, "w");
    cr_expect_null(json_object_get(x, "value"));
    json_decref(o);
    /* SARIF: the same in properties */
    char *sa[] = {BIN, "check", "--format", "sarif", "--block", "16,16", CM, NULL};
    out = run_out(sa, NULL);
    cr_expect(strstr(out, "\"value\": \"c_cam.width\""), "%s", out);
    free(out);
}

/* Without the source: the PTX symbol and the byte offset, in PTX's own
 * brackets, an atom in any expression. */
Test(srcnames, constant_load_without_the_source)
{
    char dir[] = "/tmp/ptxray-sn-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char ptx[64], cmd[256];
    snprintf(ptx, sizeof ptx, "%s/constant_memory.ptx", dir);
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", tu_src(CM), ptx);
    cr_assert_eq(system(cmd), 0);
    cr_assert_eq(chdir(dir), 0); /* .file "src/constant_memory.cu" is found nowhere from here */
    char *a[] = {BIN, "check", "--block", "16,16", ptx, NULL};
    char *out = run_out(a, NULL);
    cr_expect(strstr(out, "src/constant_memory.cu:58:3: warning: possible: misaligned global store unless every "
                          "group of lanes starts on a 32-byte boundary: " CAM_LAYOUT("[c_cam+28]")),
              "%s", out);
    cr_expect(!strstr(out, "c_cam.width"), "%s", out);
    free(out);
    char *j[] = {BIN, "check", "--format", "json", "--block", "16,16", ptx, NULL};
    json_t *o = run_json(j);
    cr_expect_str_eq(json_string_value(json_object_get(finding_of(json_object_get(o, "findings"), "camera_rays", 58),
                                                       "value")),
                     "[c_cam+28]");
    json_decref(o);
    tu_rm_rf(dir);
}

#define EXPRS "tests/data/srcnames/exprs.ptx"
#define ROWS(w) "misaligned global load unless every group of lanes starts on a 32-byte boundary: lanes 4·" w " B apart (stride from tid.y·" w "); 4 sectors/request if aligned, up to 6 otherwise, ideal 4"

/* Hand-written PTX, no source: expressions of its parameters (named by
 * hand), of blockIdx, and loads of .const variables; the bank-conflict
 * condition on 2·s; one too long (4 operators), named by its register. */
Test(srcnames, expressions_of_parameters_and_variables)
{
    tu_at_root();
    char *a[] = {BIN, "check", "--block", "16,16", EXPRS, NULL};
    char *out = run_out(a, NULL);
    static const char *const want[] = {
        EXPRS ":28:5: warning: possible: up to 16-way bank conflict in shared load: lanes 8·s B apart (stride from "
              "tid.x·2·s); 16-way when `2·s` is a multiple of 32, 8-way when it is 16 times an odd number, 4-way "
              "when it is 8 times an odd number, 2-way when it is 4 times an odd number, conflict-free when it is "
              "not a multiple of 4 [bank-conflict, possible]\n",
        EXPRS ":28:5: note: depends on the value of 2·s (the lanes' stride is a multiple of it)\n",
        EXPRS ":51:5: warning: possible: " ROWS("(s - 3)"),
        EXPRS ":73:5: warning: possible: " ROWS("(blockIdx.y·s + 1)"),
        EXPRS ":93:5: warning: possible: " ROWS("[cfg+4]"),       /* .b8 cfg[12]: bytes, no fields */
        EXPRS ":114:5: warning: possible: " ROWS("[cfg+8]"),      /* [%rd5+8], %rd5 = mov cfg */
        EXPRS ":134:5: warning: possible: " ROWS("pitches[2]"),   /* .u32 pitches[4] */
        EXPRS ":154:5: warning: possible: " ROWS("[ns::cfg+4]"),  /* _ZN2ns3cfgE */
        EXPRS ":179:5: warning: possible: " ROWS("%r9"),          /* (p + 1)·(q + 2) + p: too long */
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) cr_expect(strstr(out, want[i]), "%s\n%s", want[i], out);
    free(out);
    /* JSON: "value" where the message names a value that is no parameter */
    char *j[] = {BIN, "check", "--format", "json", "--block", "16,16", EXPRS, NULL};
    json_t *o = run_json(j);
    static const struct {
        int line;
        const char *value;
    } vals[] = {{28, "2·s"}, {51, "s - 3"}, {73, "blockIdx.y·s + 1"}, {93, "[cfg+4]"}, {134, "pitches[2]"}, {179, "%r9"}};
    size_t i, seen = 0;
    json_t *x;
    json_array_foreach(json_object_get(o, "findings"), i, x) for (size_t k = 0; k < sizeof vals / sizeof vals[0]; k++)
    {
        if (json_integer_value(json_object_get(x, "line")) != vals[k].line) continue;
        seen++;
        cr_expect_str_eq(json_string_value(json_object_get(x, "value")), vals[k].value);
        cr_expect_null(json_object_get(x, "param"));
    }
    cr_expect_eq(seen, sizeof vals / sizeof vals[0]);
    json_decref(o);
    /* the coalescing report: the folded stride and the bank condition's value */
    char *c[] = {BIN, "coalescing", "--format", "json", "--block", "16,16", EXPRS, NULL};
    o = run_json(c);
    json_t *k = json_array_get(json_object_get(o, "kernels"), 0);
    cr_assert_str_eq(json_string_value(json_object_get(k, "name")), "bank_twice");
    json_t *sh = json_array_get(json_object_get(k, "shared_accesses"), 0);
    cr_expect_str_eq(json_string_value(json_object_get(sh, "symbolic_stride")), "8·s");
    cr_expect_str_eq(json_string_value(json_object_get(json_object_get(sh, "bank_conflict_condition"), "value")), "2·s");
    json_decref(o);
}

#define VALUES "tests/data/srcnames/values.ptx"
#define VROWS(kind, w) "misaligned global " kind " unless every group of lanes starts on a 32-byte boundary: lanes 4·" w " B apart (stride from tid.y·" w "); 4 sectors/request if aligned, up to 6 otherwise, ideal 4"

/* nvcc's PTX of values.cu, the .cu beside it: a sum of a parameter and a
 * constant (the bank condition's value), the fields of a __constant__
 * struct in a namespace (its layout needs CUDA's vector alignments: pitch
 * is at 48 with float4 16-byte aligned, at 36 without), gridDim.x·cols,
 * and an expression too long to print. */
Test(srcnames, nvcc_values_with_the_source)
{
    tu_at_root();
    char *a[] = {BIN, "check", "--block", "16,16", VALUES, NULL};
    char *out = run_out(a, NULL);
    static const char *const want[] = {
        "values.cu:18:3: warning: possible: " VROWS("access", "(s + 1)"),
        "values.cu:23:3: warning: possible: up to 16-way bank conflict in shared store: lanes 4·(s + 1) B apart "
        "(stride from tid.x·(s + 1)); 16-way when `s + 1` is a multiple of 32, 8-way when it is 16 times an odd "
        "number,",
        "values.cu:29:3: warning: possible: " VROWS("access", "geo::g.pitch"),
        "values.cu:33:3: warning: possible: " VROWS("access", "geo::g.dims[1]"),
        "values.cu:38:3: warning: possible: uncoalesced global access: lanes 4·gridDim.x·cols B apart (stride from "
        "tid.x·gridDim.x·cols), up to 16 sectors/request, ideal 2",
        "values.cu:42:3: warning: possible: " VROWS("access", "%r10"), /* (q + 2)·(p + 1)·(r + 3) + t */
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) cr_expect(strstr(out, want[i]), "%s\n%s", want[i], out);
    free(out);
}
