/* ptxray divergence and ptxray uniformize as a user runs them
 * (docs/divergence-reports.md). */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "testutil.h"
#include "toolchain.h"

#define BIN (char *)tu_bin()
#define FIG8 "tests/data/fig8_sumtriangle.ptx"
#define SAMPAIO_DEBUG "ptx-corpus/debug/sampaio_divergence.sm_80.ptx"

/* Runs from the source root so reports name files as relative paths, as
 * the goldens do (Criterion runs each test in its own process). */
static char *run_ok(char **argv)
{
    char *out, *err;
    int rc = tu_run(argv, &out, &err);
    cr_assert_eq(rc, 0, "%s exited %d: %s", argv[1], rc, err);
    free(err);
    return out;
}

Test(div_cli, fig8_text_simple_golden)
{
    tu_at_root();
    char *argv[] = {BIN, "divergence", "--analysis", "simple", FIG8, NULL};
    char *out = run_ok(argv);
    char *want = tu_read("tests/data/fig8_sumtriangle.simple.txt", NULL);
    cr_assert_not_null(want);
    cr_expect_str_eq(out, want);
    free(out);
    free(want);
}

/* The paper's Fig. 2, column Sec. 3.4, as the affine2 report prints it
 * (checked by hand: L = ⊥·tid.x + ⊥, d before/inside/after the loop 0 / ⊥ /
 * ⊥·tid + ⊥, i = tid.x + ⊥). */
Test(div_cli, fig8_text_affine2_golden)
{
    tu_at_root();
    char *argv[] = {BIN, "divergence", "--analysis", "affine2", FIG8, NULL};
    char *out = run_ok(argv);
    char *want = tu_read("tests/data/fig8_sumtriangle.affine2.txt", NULL);
    cr_assert_not_null(want);
    cr_expect_str_eq(out, want);
    free(out);
    free(want);
}

/* The paper's Fig. 2, column Sec. 3.3, for sumTriangle, and the two
 * branches of Fig. 8, read from the JSON. */
Test(div_cli, fig8_json_simple_matches_paper)
{
    tu_at_root();
    char *argv[] = {BIN, "divergence", "--analysis", "simple", "--format", "json", FIG8, NULL};
    char *out = run_ok(argv);
    json_error_t je;
    json_t *root = json_loads(out, 0, &je);
    cr_assert_not_null(root, "%s", je.text);
    json_t *k = json_array_get(json_object_get(root, "kernels"), 0);
    static const struct { const char *reg, *state, *what; } want[] = {
        {"%r1.1", "uniform", "c"},           {"%rd1.1", "uniform", "m"},
        {"%rd2.1", "uniform", "v"},          {"%r5.2", "divergent", "i"},
        {"%r7.1", "divergent", "L"},         {"%r4.1", "uniform", "d before the loop"},
        {"%r4.2", "uniform", "d in the loop"}, {"%r4.4", "divergent", "d after the loop"},
    };
    size_t i;
    json_t *v;
    for (size_t w = 0; w < sizeof want / sizeof want[0]; w++) {
        const char *got = NULL;
        json_array_foreach(json_object_get(k, "values"), i, v)
            if (!strcmp(json_string_value(json_object_get(v, "reg")), want[w].reg))
                got = json_string_value(json_object_get(v, "state"));
        cr_expect(got && !strcmp(got, want[w].state), "%s (%s): %s", want[w].what, want[w].reg, got);
    }
    json_t *br = json_object_get(k, "branches");
    cr_assert_eq(json_array_size(br), 2);
    cr_expect_eq(json_integer_value(json_object_get(json_array_get(br, 0), "ptx_line")), 31);
    cr_expect_str_eq(json_string_value(json_object_get(json_array_get(br, 0), "verdict")), "divergent", "loop exit");
    cr_expect_eq(json_integer_value(json_object_get(json_array_get(br, 1), "ptx_line")), 34);
    cr_expect_str_eq(json_string_value(json_object_get(json_array_get(br, 1), "verdict")), "uniform", "d %% 2");
    json_decref(root);
    free(out);
}

/* The whole JSON against the golden. */
Test(div_cli, fig8_json_simple_golden)
{
    tu_at_root();
    char *argv[] = {BIN, "divergence", "--analysis", "simple", "--format", "json", FIG8, NULL};
    char *out = run_ok(argv);
    json_error_t je;
    json_t *got = json_loads(out, 0, &je), *want = json_load_file("tests/data/fig8_sumtriangle.simple.json", 0, &je);
    cr_assert(got && want, "%s", je.text);
    char *a = json_dumps(got, JSON_INDENT(2) | JSON_PRESERVE_ORDER),
         *b = json_dumps(want, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    cr_expect_str_eq(a, b);
    free(a);
    free(b);
    json_decref(got);
    json_decref(want);
    free(out);
}

static bool one_of(const char *s, const char *const *set)
{
    for (; s && *set; set++)
        if (!strcmp(s, *set)) return true;
    return false;
}

static bool coef_name(const char *k)
{
    static const char *const names[] = {"1", "tid.x", "tid.y", "tid.z", "laneid", "tid.x*tid.x", "tid.x*tid.y",
                                        "tid.x*tid.z", "tid.x*laneid", "tid.y*tid.y", "tid.y*tid.z", "tid.y*laneid",
                                        "tid.z*tid.z", "tid.z*laneid", "laneid*laneid", NULL};
    return one_of(k, names);
}

/* The schema of docs/divergence-reports.md, for each analysis. */
static void check_schema(json_t *root, const char *an, size_t nkernels)
{
    static const char *const states[] = {"uniform", "affine", "divergent", NULL};
    static const char *const verdicts[] = {"uniform", "divergent", NULL};
    static const char *const kinds[] = {"inst", "gamma", "mu", "eta", NULL};
    static const char *const analyses[] = {"simple", "affine", "affine2", NULL};
    cr_assert(json_is_object(root));
    cr_expect_str_eq(json_string_value(json_object_get(json_object_get(root, "analysis"), "name")), an);
    json_t *as = json_object_get(root, "assumptions");
    cr_assert(json_is_object(as));
    cr_expect(json_is_boolean(json_object_get(as, "assume_tid_yz_uniform")));
    cr_expect(json_is_boolean(json_object_get(as, "no_wraparound")));
    cr_expect_eq(json_is_true(json_object_get(as, "no_wraparound")), strcmp(an, "simple") != 0);
    json_t *ks = json_object_get(root, "kernels");
    cr_assert_eq(json_array_size(ks), nkernels);
    size_t i, j;
    json_t *k, *x;
    json_array_foreach(ks, i, k) {
        cr_expect(json_is_string(json_object_get(k, "name")));
        json_t *ka = json_object_get(k, "assumptions");
        cr_expect(one_of(json_string_value(json_object_get(ka, "block_from")),
                         (const char *const[]){"--block KERNEL=", "--block", ".reqntid",
                                               "default: blockDim.x a multiple of 32", NULL}));
        cr_expect(json_is_boolean(json_object_get(ka, "tid_y_uniform")));
        cr_expect(json_is_string(json_object_get(ka, "tid_z_why")));
        json_array_foreach(json_object_get(k, "branches"), j, x) {
            cr_expect(json_integer_value(json_object_get(x, "ptx_line")) > 0);
            json_t *src = json_object_get(x, "src");
            cr_expect(json_is_null(src) || (json_is_object(src) && json_is_integer(json_object_get(src, "line")) &&
                                            json_is_integer(json_object_get(src, "col")) &&
                                            json_object_get(src, "file")));
            cr_expect(one_of(json_string_value(json_object_get(x, "verdict")), verdicts));
        }
        uint32_t count[3] = {0};
        json_array_foreach(json_object_get(k, "values"), j, x) {
            cr_expect(json_is_string(json_object_get(x, "reg")));
            cr_expect(json_integer_value(json_object_get(x, "ptx_line")) > 0);
            cr_expect(one_of(json_string_value(json_object_get(x, "kind")), kinds));
            const char *st = json_string_value(json_object_get(x, "state"));
            cr_expect(one_of(st, states));
            for (int s = 0; s < 3; s++) count[s] += st && !strcmp(st, states[s]);
            json_t *co = json_object_get(x, "coeffs");
            if (!strcmp(an, "simple")) cr_expect(json_is_null(co));
            else {
                cr_assert(json_is_object(co), "coeffs of %s", json_string_value(json_object_get(x, "reg")));
                cr_expect(json_object_get(co, "1") != NULL, "no constant term");
                const char *key;
                json_t *c;
                json_object_foreach(co, key, c) {
                    cr_expect(coef_name(key), "coefficient %s", key);
                    cr_expect(json_is_null(c) || json_is_integer(c));
                    cr_expect(!json_is_integer(c) || json_integer_value(c) != 0 || !strcmp(key, "1"),
                              "zero coefficient %s listed", key);
                    if (!strcmp(an, "affine")) cr_expect(!strchr(key, '*'), "degree 2 term %s", key);
                }
            }
        }
        json_t *stats = json_object_get(k, "stats");
        json_int_t nv = json_integer_value(json_object_get(stats, "values"));
        cr_expect_eq((size_t)nv, json_array_size(json_object_get(k, "values")));
        for (int a = 0; a < 3; a++) {
            json_t *s = json_object_get(stats, analyses[a]);
            cr_assert(json_is_object(s), "stats.%s", analyses[a]);
            json_int_t sum = 0;
            for (int st = 0; st < 3; st++) sum += json_integer_value(json_object_get(s, states[st]));
            cr_expect_eq(sum, nv, "stats.%s", analyses[a]);
            cr_expect_eq(json_integer_value(json_object_get(s, "branches_uniform")) +
                             json_integer_value(json_object_get(s, "branches_divergent")),
                         json_integer_value(json_object_get(stats, "branches")));
            if (!strcmp(analyses[a], an))
                for (int st = 0; st < 3; st++)
                    cr_expect_eq(json_integer_value(json_object_get(s, states[st])), count[st],
                                 "stats.%s.%s against the values listed", an, states[st]);
        }
    }
}

Test(div_cli, json_schema_for_every_analysis)
{
    tu_at_root();
    const char *files[] = {FIG8, SAMPAIO_DEBUG};
    size_t nk[] = {1, 3};
    const char *an[] = {"simple", "affine", "affine2"};
    for (int f = 0; f < 2; f++)
        for (int a = 0; a < 3; a++) {
            char *argv[] = {BIN, "divergence", "--analysis", (char *)an[a], "--format", "json", (char *)files[f], NULL};
            char *out = run_ok(argv);
            json_error_t je;
            json_t *root = json_loads(out, 0, &je);
            cr_assert_not_null(root, "%s --analysis %s: %s", files[f], an[a], je.text);
            check_schema(root, an[a], nk[f]);
            json_decref(root);
            free(out);
        }
}

Test(div_cli, default_analysis_is_affine)
{
    tu_at_root();
    char *argv[] = {BIN, "divergence", FIG8, NULL};
    char *out = run_ok(argv);
    cr_expect(strstr(out, "  analysis: affine (") != NULL, "%s", out);
    cr_expect(strstr(out, "  integer arithmetic assumed not to wrap around\n") != NULL);
    free(out);
}

Test(div_cli, same_input_same_bytes)
{
    tu_at_root();
    const char *fmts[] = {"text", "json"};
    for (int i = 0; i < 2; i++) {
        char *argv[] = {BIN, "divergence", "--format", (char *)fmts[i], "ptx-corpus/sm_80/bfs_frontier.ptx", NULL};
        char *a = run_ok(argv), *b = run_ok(argv);
        cr_expect_str_eq(a, b, "%s", fmts[i]);
        free(a);
        free(b);
    }
    char *s[] = {BIN, "divergence", "--summary", "ptx-corpus/sm_75/scan_block.ptx", "ptx-corpus/sm_90/scan_block.ptx",
                 NULL};
    char *a = run_ok(s), *b = run_ok(s);
    cr_expect_str_eq(a, b);
    free(a);
    free(b);
}

static json_t *branch_at(json_t *kernel, json_int_t line)
{
    size_t i;
    json_t *b;
    json_array_foreach(json_object_get(kernel, "branches"), i, b)
        if (json_integer_value(json_object_get(b, "ptx_line")) == line) return b;
    return NULL;
}

static void expect_src(json_t *b, const char *file, int line, int col)
{
    cr_assert_not_null(b);
    json_t *src = json_object_get(b, "src");
    cr_assert(json_is_object(src));
    cr_expect_str_eq(json_string_value(json_object_get(src, "file")), file);
    cr_expect_eq(json_integer_value(json_object_get(src, "line")), line);
    cr_expect_eq(json_integer_value(json_object_get(src, "col")), col);
}

/* nvcc -G: the branch "if (tid < c)" (line 18 of the .cu) is at PTX line 41
 * under ".loc 1 18 3"; the loop test at line 77 has no .loc in its block,
 * so the one in force is ".loc 1 22 5" (the for). */
Test(div_cli, branch_source_position_from_loc)
{
    tu_at_root();
    char *argv[] = {BIN, "divergence", "--analysis", "simple", "--format", "json", SAMPAIO_DEBUG, NULL};
    char *out = run_ok(argv);
    json_t *root = json_loads(out, 0, NULL);
    cr_assert_not_null(root);
    json_t *k = json_array_get(json_object_get(root, "kernels"), 0);
    cr_expect_str_eq(json_string_value(json_object_get(k, "name")), "avgSquare");
    expect_src(branch_at(k, 41), "src/sampaio_divergence.cu", 18, 3);
    expect_src(branch_at(k, 77), "src/sampaio_divergence.cu", 22, 5);
    json_decref(root);
    free(out);
    char *t[] = {BIN, "divergence", "--analysis", "simple", "--values", "none", SAMPAIO_DEBUG, NULL};
    out = run_ok(t);
    cr_expect(strstr(out, "\n      41  BB0        %p2.1  divergent  src/sampaio_divergence.cu:18:3\n") != NULL, "%s",
              out);
    free(out);
}

static char *write_tmp(char *dir, const char *name, const char *text)
{
    static char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

/* .file resolution, a branch before any .loc, an index without .file, and
 * inlined_at. */
Test(div_cli, loc_resolution_cases)
{
    char dir[] = "/tmp/ptxray-divXXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    const char *ptx = ".version 7.0\n.target sm_80\n.address_size 64\n"
                      ".visible .entry k(.param .u32 n)\n{\n"
                      "\t.reg .pred %p<4>;\n\t.reg .b32 %r<4>;\n"
                      "\tmov.u32 %r1, %tid.x;\n"
                      "\tsetp.eq.u32 %p1, %r1, 0;\n"
                      "\t@%p1 bra $A;\n"                                  /* line 10: no .loc yet */
                      "\t.loc 2 7 9\n"
                      "\tsetp.eq.u32 %p2, %r1, 1;\n"
                      "\t@%p2 bra $A;\n"                                  /* line 13: file 2 */
                      "\t.loc 5 3 1\n"
                      "\tld.param.u32 %r2, [n];\n\tsetp.eq.u32 %p3, %r2, 1;\n"
                      "\t@%p3 bra $A;\n"                                  /* line 17: no .file 5 */
                      "\t.loc 1 4 2, function_name $L__info_string0, inlined_at 2 8 5\n"
                      "\t@!%p3 bra $A;\n"                                 /* line 19 */
                      "\tst.global.u32 [0], %r1;\n"
                      "$A:\n\tret;\n}\n"
                      "\t.file 1 \"a.cu\"\n\t.file 2 \"dir/b.h\"\n"
                      "\t.section .debug_str\n\t{\n$L__info_string0:\n.b8 102,0\n\t}\n";
    char *path = write_tmp(dir, "loc.ptx", ptx);
    char *argv[] = {BIN, "divergence", "--format", "json", "--values", "none", path, NULL};
    char *out = run_ok(argv);
    json_t *root = json_loads(out, 0, NULL);
    cr_assert_not_null(root, "%s", out);
    json_t *k = json_array_get(json_object_get(root, "kernels"), 0);
    cr_assert_eq(json_array_size(json_object_get(k, "branches")), 4, "%s", out);
    cr_expect(json_is_null(json_object_get(branch_at(k, 10), "src")));
    expect_src(branch_at(k, 13), "dir/b.h", 7, 9);
    json_t *nofile = json_object_get(branch_at(k, 17), "src");
    cr_expect(json_is_null(json_object_get(nofile, "file")));
    cr_expect_eq(json_integer_value(json_object_get(nofile, "line")), 3);
    json_t *b19 = branch_at(k, 19);
    expect_src(b19, "a.cu", 4, 2);
    json_t *ia = json_object_get(json_object_get(b19, "src"), "inlined_at");
    cr_expect_str_eq(json_string_value(json_object_get(ia, "file")), "dir/b.h");
    cr_expect_eq(json_integer_value(json_object_get(ia, "line")), 8);
    cr_expect_eq(json_integer_value(json_object_get(ia, "col")), 5);
    cr_expect_str_eq(json_string_value(json_object_get(branch_at(k, 10), "verdict")), "divergent");
    cr_expect_str_eq(json_string_value(json_object_get(branch_at(k, 17), "verdict")), "uniform");
    json_decref(root);
    free(out);
    char *t[] = {BIN, "divergence", "--values", "none", path, NULL};
    out = run_ok(t);
    cr_expect(strstr(out, "  a.cu:4:2 (inlined at dir/b.h:8:5)\n") != NULL, "%s", out);
    cr_expect(strstr(out, "  file5:3:1\n") != NULL, "%s", out);
    free(out);
    char cmd[4300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_expect_eq(system(cmd), 0);
}

Test(div_cli, values_filter)
{
    tu_at_root();
    char *argv[] = {BIN, "divergence", "--analysis", "simple", "--values", "uniform", "--format", "json", FIG8, NULL};
    char *out = run_ok(argv);
    json_t *root = json_loads(out, 0, NULL);
    json_t *vals = json_object_get(json_array_get(json_object_get(root, "kernels"), 0), "values");
    cr_expect_eq(json_array_size(vals), 9);
    size_t i;
    json_t *v;
    json_array_foreach(vals, i, v) cr_expect_str_eq(json_string_value(json_object_get(v, "state")), "uniform");
    json_decref(root);
    free(out);
    char *n[] = {BIN, "divergence", "--analysis", "simple", "--values", "none", FIG8, NULL};
    out = run_ok(n);
    cr_expect(strstr(out, "values:") == NULL && strstr(out, "%rd1.1") == NULL, "%s", out);
    cr_expect(strstr(out, "statistics (27 values, 2 conditional branches") != NULL, "%s", out);
    free(out);
    char *d[] = {BIN, "divergence", "--analysis", "simple", "--values", "divergent,affine", FIG8, NULL};
    out = run_ok(d);
    cr_expect(strstr(out, ", 18 listed\n") != NULL, "%s", out);
    free(out);
}

Test(div_cli, kernel_and_block_shape_sources)
{
    tu_at_root();
    char *argv[] = {BIN, "divergence", "--kernel", "cluster_neighbor_exchange", "--format", "json", "--values", "none",
                    "ptx-corpus/sm_90/cluster_sm90.ptx", NULL};
    char *out = run_ok(argv);
    json_t *root = json_loads(out, 0, NULL);
    json_t *ks = json_object_get(root, "kernels");
    cr_assert_eq(json_array_size(ks), 1);
    json_t *as = json_object_get(json_array_get(ks, 0), "assumptions");
    cr_expect_str_eq(json_string_value(json_object_get(as, "block_from")), ".reqntid");
    cr_expect_eq(json_integer_value(json_array_get(json_object_get(as, "block"), 0)), 128);
    cr_expect(json_is_true(json_object_get(as, "tid_y_uniform")));
    cr_expect_str_eq(json_string_value(json_object_get(as, "tid_y_why")), "the x extent, 128, is a multiple of 32");
    json_decref(root);
    free(out);
    char *b[] = {BIN, "divergence", "--block", "48,2", "--values", "none", FIG8, NULL};
    out = run_ok(b);
    cr_expect(strstr(out, "  block shape: 48,2,1 (from --block)\n"
                          "  %tid.y: divergent (the x extent, 48, is not a multiple of 32)\n"
                          "  %tid.z: warp-uniform (x*y, 96, is a multiple of 32)\n") != NULL,
              "%s", out);
    free(out);
    char *u[] = {BIN, "divergence", "--assume-tid-yz-uniform", "--values", "none", FIG8, NULL};
    out = run_ok(u);
    cr_expect(strstr(out, "  %tid.y: warp-uniform (--assume-tid-yz-uniform)\n") != NULL, "%s", out);
    free(out);
}

/* Each bad invocation exits 2, says why, and leaves -o untouched. */
Test(div_cli, usage_errors_write_nothing)
{
    tu_at_root();
    char dir[] = "/tmp/ptxray-divXXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char *outp = strdup(write_tmp(dir, "out.txt", "previous contents\n"));
    char *bad = strdup(write_tmp(dir, "bad.ptx", ".version 8.0\n.target sm_80\n.address_size 64\n.entry k()\n{\n\tret\n}\n"));
    struct {
        char *args[8];
        const char *msg;
    } cases[] = {
        {{"divergence", "--analysis", "fancy", FIG8}, "unknown analysis 'fancy'"},
        {{"divergence", "--block", "32,x", FIG8}, "--block '32,x': expected X[,Y[,Z]]"},
        {{"divergence", "--block", "0,1", FIG8}, "between 1 and 1024"},
        {{"divergence", "--block", "64,32", FIG8}, "2048 threads; a block has at most 1024"},
        {{"divergence", "--format", "xml", FIG8}, "unknown format 'xml'"},
        {{"divergence", "--values", "some", FIG8}, "--values 'some'"},
        {{"divergence", "--kernel", "nope", FIG8}, "no function named 'nope'"},
        {{"divergence", FIG8, FIG8}, "one FILE at a time"},
        {{"divergence", "--summary", "--analysis", "simple", FIG8}, "do not apply"},
        {{"divergence", "--summary"}, "usage:"},
        {{"divergence", bad}, "error: unexpected '}'"},
        {{"divergence", "--summary", FIG8, bad}, "error: unexpected '}'"},
        {{"divergence", "/nonexistent/x.ptx"}, "cannot open"},
        {{"uniformize", "--block", "1,2,3,4", FIG8}, "--block '1,2,3,4'"},
        {{"uniformize", "--analysis", "x", FIG8}, "unknown analysis 'x'"},
        {{"uniformize", bad}, "error: unexpected '}'"},
        {{"uniformize", "--kernel", "nope", FIG8}, "no function named 'nope'"},
        {{"uniformize", FIG8, FIG8}, "usage:"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char *argv[12] = {BIN};
        int n = 1;
        for (int i = 0; cases[c].args[i]; i++) argv[n++] = cases[c].args[i];
        argv[n++] = "-o";
        argv[n++] = outp;
        char *out, *err;
        int rc = tu_run(argv, &out, &err);
        cr_expect_eq(rc, 2, "case %zu (%s %s): exit %d", c, argv[1], argv[2], rc);
        cr_expect(strstr(err, cases[c].msg) != NULL, "case %zu: stderr '%s' lacks '%s'", c, err, cases[c].msg);
        cr_expect_str_eq(out, "", "case %zu", c);
        char *keep = tu_read(outp, NULL);
        cr_expect_str_eq(keep, "previous contents\n", "case %zu overwrote -o", c);
        free(keep);
        free(out);
        free(err);
    }
    char cmd[4400];
    snprintf(cmd, sizeof cmd, "test $(ls -A %s | wc -l) -eq 2", dir);
    cr_expect_eq(system(cmd), 0, "stray files in %s", dir);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_expect_eq(system(cmd), 0);
    free(outp);
    free(bad);
}

static size_t count_lines(const char *s)
{
    size_t n = 0;
    for (; *s; s++) n += *s == '\n';
    return n;
}

static uint32_t functions_with_body(const char *path)
{
    ptx_diags d;
    ptx_diags_init(&d);
    ptx_module *m = ptx_parse_file(path, &d);
    cr_assert_not_null(m, "%s", path);
    uint32_t n = 0;
    for (uint32_t i = 0; i < m->nfuncs; i++) n += m->funcs[i]->has_body;
    ptx_module_free(m);
    ptx_diags_free(&d);
    return n;
}

/* Two notes, two heading rows, a row per function, TOTAL; files sorted
 * whatever the argument order. */
Test(div_cli, summary_two_files)
{
    tu_at_root();
    const char *a = "ptx-corpus/sm_80/matmul_tiled.ptx", *b = "ptx-corpus/sm_80/sampaio_divergence.ptx";
    uint32_t nf = functions_with_body(a) + functions_with_body(b);
    cr_assert_eq(nf, 7);
    char *argv[] = {BIN, "divergence", "--summary", (char *)b, (char *)a, NULL};
    char *out = run_ok(argv);
    cr_expect_eq(count_lines(out), 2 + 2 + nf + 1, "%s", out);
    const char *pa = strstr(out, a), *pb = strstr(out, b);
    cr_expect(pa && pb && pa < pb, "files not in sorted order:\n%s", out);
    cr_expect(strstr(out, "\nTOTAL ") != NULL && strstr(out, " 7 functions in 2 files ") != NULL, "%s", out);
    cr_expect(strstr(out, "sampaio_divergence.ptx  sumTriangle ") != NULL, "%s", out);
    free(out);
    char *j[] = {BIN, "divergence", "--summary", "--format", "json", (char *)a, (char *)b, NULL};
    out = run_ok(j);
    json_t *root = json_loads(out, 0, NULL);
    cr_assert_not_null(root);
    json_t *ks = json_object_get(root, "kernels"), *total = json_object_get(root, "total");
    cr_expect_eq(json_array_size(ks), nf);
    size_t i;
    json_t *k;
    json_int_t values = 0;
    json_array_foreach(ks, i, k) values += json_integer_value(json_object_get(json_object_get(k, "stats"), "values"));
    cr_expect_eq(json_integer_value(json_object_get(total, "values")), values);
    cr_expect_eq(json_integer_value(json_object_get(total, "files")), 2);
    json_decref(root);
    free(out);
}

/* ---- uniformize --------------------------------------------------------- */

/* With --analysis simple, the d % 2 branch of Fig. 8 (PTX line 34) is
 * uniform and becomes bra.uni; the loop exit (line 31) stays. */
Test(div_cli, uniformize_fig8_simple)
{
    tu_at_root();
    char *argv[] = {BIN, "uniformize", "--analysis", "simple", FIG8, NULL};
    char *out, *err;
    cr_assert_eq(tu_run(argv, &out, &err), 0, "%s", err);
    char *in = tu_read(FIG8, NULL);
    char *want = malloc(strlen(in) + 8);
    const char *at = strstr(in, "\t@%p2 bra \t$l11;");
    cr_assert_not_null(at);
    size_t pre = (size_t)(at - in) + strlen("\t@%p2 bra");
    memcpy(want, in, pre);
    strcpy(want + pre, ".uni");
    strcpy(want + pre + 4, in + pre);
    cr_expect_str_eq(out, want);
    cr_expect(strstr(out, "\t@%p1 bra \t$l15;") != NULL);
    cr_expect_str_eq(err, "ptxray uniformize: " FIG8 ": 1 rewritten to .uni, 0 already .uni, 1 left divergent; "
                          "simple analysis, block shape unknown, assumed blockDim.x is a multiple of 32, %tid.y warp-uniform, "
                          "%tid.z warp-uniform\n");
    free(in);
    free(want);
    free(out);
    free(err);
}

Test(div_cli, uniformize_to_file_equals_stdout)
{
    tu_at_root();
    char dir[] = "/tmp/ptxray-divXXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char outp[4200];
    snprintf(outp, sizeof outp, "%s/u.ptx", dir);
    char *a[] = {BIN, "uniformize", "ptx-corpus/sm_80/gaussian_fan.ptx", "-o", outp, NULL};
    char *out = run_ok(a);
    cr_expect_str_eq(out, "");
    free(out);
    char *b[] = {BIN, "uniformize", "ptx-corpus/sm_80/gaussian_fan.ptx", NULL};
    out = run_ok(b);
    char *file = tu_read(outp, NULL);
    cr_expect_str_eq(file, out);
    free(file);
    free(out);
    unlink(outp);
    rmdir(dir);
}

/* Whether out is in with ".uni" inserted right after some bra / brx.idx
 * opcodes and nothing else; *n receives the number of insertions. */
static bool only_uni_inserted(const char *in, size_t inlen, const char *out, size_t outlen, unsigned *n)
{
    size_t i = 0, o = 0;
    *n = 0;
    while (i < inlen || o < outlen) {
        if (i < inlen && o < outlen && in[i] == out[o]) {
            i++;
            o++;
            continue;
        }
        if (o + 4 > outlen || memcmp(out + o, ".uni", 4)) return false;
        bool bra = o >= 3 && !memcmp(out + o - 3, "bra", 3), brx = o >= 7 && !memcmp(out + o - 7, "brx.idx", 7);
        if (!bra && !brx) return false;
        o += 4;
        (*n)++;
    }
    return true;
}

/* Every corpus file, default analysis: the output is the input plus the
 * ".uni" tokens that stderr counts. */
Test(div_cli, uniformize_corpus_only_inserts_uni, .timeout = 600)
{
    size_t n;
    char **files = tu_list_ptx(tu_src("ptx-corpus"), &n);
    cr_assert_geq(n, 150);
    unsigned total = 0;
    for (size_t f = 0; f < n; f++) {
        char *argv[] = {BIN, "uniformize", files[f], NULL};
        char *out, *err;
        cr_assert_eq(tu_run(argv, &out, &err), 0, "%s: %s", files[f], err);
        size_t inlen;
        char *in = tu_read(files[f], &inlen);
        unsigned ins, said = 0;
        cr_expect(only_uni_inserted(in, inlen, out, strlen(out), &ins), "%s: more than .uni changed", files[f]);
        char head[4200];
        size_t hl = (size_t)snprintf(head, sizeof head, "ptxray uniformize: %s: ", files[f]);
        cr_expect(!strncmp(err, head, hl) && sscanf(err + hl, "%u rewritten to .uni", &said) == 1, "%s", err);
        cr_expect_eq(ins, said, "%s: %u inserted, stderr says %u", files[f], ins, said);
        total += ins;
        free(in);
        free(out);
        free(err);
    }
    cr_expect_gt(total, 100, "only %u branches rewritten in the corpus", total);
    tu_free_list(files, n);
}

/* ... and ptxas accepts every rewritten file (for the arch of its .target,
 * -g for debug targets, as ptx-corpus/check-ptxas does). */
Test(div_cli, uniformize_corpus_ptxas_accepts, .timeout = 1200)
{
    const char *ptxas = tc_find_ptxas();
    if (!ptxas) cr_skip_test("ptxas not found: uniformized corpus not assembled");
    char dir[] = "/tmp/ptxray-divXXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char upath[4200], cubin[4200];
    snprintf(upath, sizeof upath, "%s/u.ptx", dir);
    snprintf(cubin, sizeof cubin, "%s/u.cubin", dir);
    size_t n;
    char **files = tu_list_ptx(tu_src("ptx-corpus"), &n);
    unsigned assembled = 0;
    for (size_t f = 0; f < n; f++) {
        char *argv[] = {BIN, "uniformize", files[f], "-o", upath, NULL};
        char *err;
        cr_assert_eq(tu_run(argv, NULL, &err), 0, "%s: %s", files[f], err);
        bool changed = strstr(err, ": 0 rewritten") == NULL;
        free(err);
        if (!changed) continue; /* identical to the input, which the corpus tests assemble */
        ptx_diags d;
        ptx_diags_init(&d);
        ptx_module *m = ptx_parse_file(files[f], &d);
        cr_assert_not_null(m);
        char arch[32], archarg[48];
        cr_assert_eq(tc_target_arch(m, arch, sizeof arch), 0, "%s: no sm_ target", files[f]);
        snprintf(archarg, sizeof archarg, "-arch=%s", arch);
        char *pargv[] = {(char *)ptxas, archarg, upath, "-o", cubin, NULL, NULL};
        if (tc_target_debug(m)) {
            pargv[5] = pargv[4];
            pargv[4] = pargv[3];
            pargv[3] = pargv[2];
            pargv[2] = "-g";
        }
        char *log = NULL;
        int rc = tc_run(pargv, &log);
        cr_expect_eq(rc, 0, "ptxas %s rejects uniformized %s:\n%s", archarg, files[f], log ? log : "");
        assembled++;
        free(log);
        ptx_module_free(m);
        ptx_diags_free(&d);
    }
    cr_expect_gt(assembled, 50);
    tu_free_list(files, n);
    char cmd[4300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_expect_eq(system(cmd), 0);
}

/* brx.idx with a uniform index gets .uni, with a divergent one not; a
 * guarded bra to the next instruction (one successor) still gets .uni when
 * its guard is uniform; an existing .uni the analysis cannot prove is
 * counted; unconditional bra stay as written. */
Test(div_cli, uniformize_brx_and_special_cases)
{
    char dir[] = "/tmp/ptxray-divXXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    const char *ptx = ".version 7.0\n.target sm_80\n.address_size 64\n\n"
                      ".visible .entry k(.param .u32 n, .param .u64 out)\n{\n"
                      "\t.reg .pred \t%p<4>;\n\t.reg .b32 \t%r<6>;\n\t.reg .b64 \t%rd<2>;\n\n"
                      "\tld.param.u32 \t%r1, [n];\n\tld.param.u64 \t%rd1, [out];\n"
                      "\tmov.u32 \t%r2, %tid.x;\n\tand.b32 \t%r3, %r1, 1;\n\tand.b32 \t%r4, %r2, 1;\n"
                      "\tsetp.eq.u32 \t%p1, %r1, 0;\n\tsetp.eq.u32 \t%p2, %r2, 0;\n"
                      "\t@%p1 bra \t$N;\n$N:\n"
                      "\t@%p2 bra.uni \t$N2;\n$N2:\n"
                      "\tbra \t$A;\n$A:\n"
                      "\t$T1: .branchtargets $B0, $B1;\n\tbrx.idx \t%r3, $T1;\n$B0:\n"
                      "\t$T2: .branchtargets $C0, $C1;\n\tbrx.idx \t%r4, $T2;\n$B1:\n"
                      "\tbra.uni \t$C0;\n$C0:\n\tst.global.u32 \t[%rd1], %r1;\n$C1:\n\tret;\n}\n";
    char *path = strdup(write_tmp(dir, "brx.ptx", ptx));
    char upath[4200];
    snprintf(upath, sizeof upath, "%s/u.ptx", dir);
    char *argv[] = {BIN, "uniformize", "--analysis", "simple", path, "-o", upath, NULL};
    char *out, *err;
    cr_assert_eq(tu_run(argv, &out, &err), 0, "%s", err);
    char *got = tu_read(upath, NULL);
    char *want = strdup(ptx);
    const char *edits[][2] = {{"\t@%p1 bra \t$N;", "\t@%p1 bra.uni \t$N;"},
                              {"\tbrx.idx \t%r3, $T1;", "\tbrx.idx.uni \t%r3, $T1;"}};
    for (int e = 0; e < 2; e++) {
        char *at = strstr(want, edits[e][0]);
        cr_assert_not_null(at);
        size_t pre = (size_t)(at - want), ol = strlen(edits[e][0]), nl = strlen(edits[e][1]);
        char *w = malloc(strlen(want) + nl - ol + 1);
        memcpy(w, want, pre);
        strcpy(w + pre, edits[e][1]);
        strcpy(w + pre + nl, at + ol);
        free(want);
        want = w;
    }
    cr_expect_str_eq(got, want);
    char head[4400];
    snprintf(head, sizeof head,
             "ptxray uniformize: %s: 2 rewritten to .uni, 1 already .uni (1 of them not proven uniform), "
             "1 left divergent; simple analysis, block shape unknown, assumed blockDim.x is a multiple of 32, "
             "%%tid.y warp-uniform, %%tid.z warp-uniform\n",
             path);
    cr_expect_str_eq(err, head);
    const char *ptxas = tc_find_ptxas();
    if (ptxas) {
        char cubin[4300];
        snprintf(cubin, sizeof cubin, "%s/u.cubin", dir);
        char *pargv[] = {(char *)ptxas, "-arch=sm_80", upath, "-o", cubin, NULL};
        char *log = NULL;
        cr_expect_eq(tc_run(pargv, &log), 0, "ptxas: %s", log ? log : "");
        free(log);
    }
    free(got);
    free(want);
    free(out);
    free(err);
    free(path);
    char cmd[4300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_expect_eq(system(cmd), 0);
}
