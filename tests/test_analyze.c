/* `ptxray analyze` for real projects (issue 20, item 7): --format
 * text|json|sarif, -o written whole or not at all, ptxas -v's figures per
 * kernel, -arch and the arguments after `--` passed to nvcc as given, and
 * nvcc's own errors shown as nvcc prints them with exit 2. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "testutil.h"
#include "toolchain.h"

#define TILE "ptx-corpus/sm_80/tile_1d_to_2d.ptx"
#define T0 "void tile_transpose_smem<0>(float const*, float*, int, int)"

static char dir[64];

static void mk_dir(void)
{
    snprintf(dir, sizeof dir, "/tmp/ptxray-anXXXXXX");
    cr_assert_not_null(mkdtemp(dir));
}

static void rm_dir(void) { tu_rm_rf(dir); }

static int mkdir_sub(const char *name)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return mkdir(path, 0755);
}

/* sh -c "cd DIR && CMD": exit status, stdout and stderr (malloc'd). */
static int in_dir(const char *cmd, char **out, char **err)
{
    char full[8400];
    snprintf(full, sizeof full, "cd '%s' && %s", dir, cmd);
    char *a[] = {"/bin/sh", "-c", full, NULL};
    return tu_run(a, out, err);
}

static void write_file(const char *name, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
}

/* o's member at a dotted path ("ptxas.registers"), or NULL. */
static json_t *at(json_t *o, const char *path)
{
    char key[64];
    while (o && *path) {
        size_t n = strcspn(path, ".");
        snprintf(key, sizeof key, "%.*s", (int)n, path);
        o = json_object_get(o, key);
        path += n + (path[n] == '.');
    }
    return o;
}

static json_int_t num(json_t *o, const char *path) { return json_integer_value(at(o, path)); }
static const char *str(json_t *o, const char *path) { return json_string_value(at(o, path)); }

static json_t *kernel_named(json_t *root, const char *name)
{
    size_t i;
    json_t *k;
    json_array_foreach(json_object_get(root, "kernels"), i, k)
        if (!strcmp(json_string_value(json_object_get(k, "name")), name)) return k;
    return NULL;
}

/* The JSON report of a PTX file: per kernel the figures the text gives,
 * ptxas -v's among them, and check's findings. */
Test(analyze, json_report_of_ptx)
{
    char *a[] = {(char *)tu_bin(), "analyze", "--format", "json", (char *)tu_src(TILE), NULL}, *out, *err;
    cr_assert_eq(tu_run(a, &out, &err), 0, "%s", err);
    json_t *j = json_loads(out, 0, NULL);
    cr_assert_not_null(j, "%s", out);
    cr_expect_str_eq(str(j, "tool"), "ptxray analyze");
    cr_expect_eq(json_array_size(at(j, "kernels")), 3);
    json_t *k = kernel_named(j, T0);
    cr_assert_not_null(k);
    cr_expect_str_eq(str(k, "symbol"), "_Z19tile_transpose_smemILi0EEvPKfPfii");
    cr_expect_eq(num(k, "values.total"), 45);
    cr_expect_eq(num(k, "branches.not_proven_uniform"), 2);
    cr_expect_eq(num(k, "register_pressure.registers32"), 14);
    json_t *fs = at(k, "findings");
    /* the bank conflict, two branches, and two loads whose rows (16 floats,
     * a pitch from a parameter) may start off a sector: possible (issue 33) */
    cr_assert_eq(json_array_size(fs), 5);
    json_t *f0 = json_array_get(fs, 0);
    cr_expect_str_eq(str(f0, "rule"), "bank-conflict");
    cr_expect_str_eq(str(f0, "certainty"), "proven");
    cr_expect_eq(num(f0, "src.line"), 51);
    if (tc_find_ptxas()) {
        cr_expect_str_eq(str(j, "ptxas.how"), "ptxas -v -arch=sm_80");
        cr_expect_eq(num(k, "ptxas.registers"), 14);
        cr_expect_eq(num(k, "ptxas.shared_bytes"), 1024);
        cr_expect_eq(num(k, "ptxas.spill_store_bytes"), 0);
        cr_expect_eq(num(kernel_named(j, "void tile_transpose_smem<1>(float const*, float*, int, int)"),
                         "ptxas.shared_bytes"),
                     1088);
    } else cr_expect(json_is_null(at(k, "ptxas")));
    json_decref(j);
    free(out);
    free(err);
    /* the text gives the same figures */
    char *t[] = {(char *)tu_bin(), "analyze", (char *)tu_src(TILE), NULL};
    cr_assert_eq(tu_run(t, &out, &err), 0, "%s", err);
    cr_expect(strstr(out, "\n== kernel " T0 " ==\nsymbol: _Z19tile_transpose_smemILi0EEvPKfPfii\n") != NULL, "%s", out);
    if (tc_find_ptxas())
        cr_expect(strstr(out, "ptxas: 14 registers, 0 bytes spill stores, 0 bytes spill loads, 1024 bytes shared "
                              "memory, 0 bytes stack frame\nfindings by cost (5):\n") != NULL,
                  "%s", out);
    free(out);
    free(err);
}

/* Without ptxas the report says why, and still comes. */
Test(analyze, without_ptxas)
{
    setenv("PTXAS", "/nonexistent/ptxas", 1);
    char *a[] = {(char *)tu_bin(), "analyze", (char *)tu_src(TILE), NULL}, *out, *err;
    int rc = tu_run(a, &out, &err);
    unsetenv("PTXAS");
    cr_assert_eq(rc, 0, "%s", err);
    cr_expect(strstr(out, "\nptxas: not run (ptxas not found)\n") != NULL, "%s", out);
    cr_expect(strstr(out, "registers, ") == NULL, "%s", out);
    free(out);
    free(err);
}

/* --no-ptxas: ptxas is not run, whether or not it is found, in text, JSON
 * and for each file of several (it once ran anyway outside the HTML page). */
Test(analyze, no_ptxas_runs_no_ptxas)
{
    setenv("PTXAS", "/bin/false", 1); /* were it run, it would fail and say so */
    char *a[] = {(char *)tu_bin(), "analyze", "--no-ptxas", (char *)tu_src(TILE), NULL}, *out, *err;
    cr_assert_eq(tu_run(a, &out, &err), 0, "%s", err);
    cr_expect(strstr(out, "\nptxas: not run (--no-ptxas)\n") != NULL, "%s", out);
    cr_expect(strstr(out, "\nptxas: ") == strstr(out, "\nptxas: not run"), "%s", out);
    free(out);
    free(err);
    char *j[] = {(char *)tu_bin(), "analyze", "--no-ptxas", "--format", "json", (char *)tu_src(TILE), NULL};
    cr_assert_eq(tu_run(j, &out, &err), 0, "%s", err);
    json_t *root = json_loads(out, 0, NULL);
    cr_assert_not_null(root, "%s", out);
    cr_expect(json_is_false(at(root, "ptxas.run")));
    cr_expect_str_eq(str(root, "ptxas.how"), "--no-ptxas");
    cr_expect(json_is_null(at(kernel_named(root, T0), "ptxas")));
    json_decref(root);
    free(out);
    free(err);
    char *two[] = {(char *)tu_bin(), "analyze", "--no-ptxas", (char *)tu_src(TILE), (char *)tu_src(TILE), NULL};
    cr_assert_eq(tu_run(two, &out, &err), 0, "%s", err);
    unsetenv("PTXAS");
    char *p = strstr(out, "\nptxas: not run (--no-ptxas)\n");
    cr_expect(p && strstr(p + 1, "\nptxas: not run (--no-ptxas)\n"), "%s", out);
    free(out);
    free(err);
}

Test(analyze, sarif_validates)
{
    char args[4200];
    snprintf(args, sizeof args, "analyze --format sarif %s", tu_src(TILE));
    tu_expect_sarif_schema(args);
}

/* -arch (nvcc's spelling) and `-- ARGS` reach nvcc: SCALE=8 exists only
 * after `--`, and makes the load uncoalesced. */
Test(analyze, cu_flags_reach_nvcc, .timeout = 120)
{
    char *nvcc = (char *)tc_find_nvcc();
    if (!nvcc) cr_skip_test("nvcc not found");
    mk_dir();
    write_file("scale.cu", "#ifndef SCALE\n#define SCALE 1\n#endif\n"
                           "__global__ void scaled(const float *in, float *out)\n{\n"
                           "    int i = threadIdx.x + blockIdx.x * blockDim.x;\n"
                           "    out[i] = in[i * SCALE];\n}\n");
    char cmd[1024], *out, *err;
    snprintf(cmd, sizeof cmd, "%s analyze scale.cu -arch sm_75 --format json -o r.json -- -DSCALE=8", tu_bin());
    cr_assert_eq(in_dir(cmd, &out, &err), 0, "%s", err);
    cr_expect_str_eq(out, "");
    free(out);
    free(err);
    char path[256];
    snprintf(path, sizeof path, "%s/r.json", dir);
    json_t *j = json_load_file(path, 0, NULL);
    cr_assert_not_null(j);
    if (tc_find_ptxas())
        cr_expect_str_eq(str(j, "ptxas.how"), "ptxas -v -arch=sm_75");
    json_t *fs = at(json_array_get(at(j, "kernels"), 0), "findings");
    cr_assert_eq(json_array_size(fs), 1);
    cr_expect_str_eq(str(json_array_get(fs, 0), "message"),
                     "uncoalesced global load: lanes 32 B apart, 32 sectors/request, ideal 4");
    json_decref(j);
    /* without it, the load is coalesced; -arch=X works too */
    snprintf(cmd, sizeof cmd, "%s analyze -arch=sm_75 scale.cu", tu_bin());
    cr_assert_eq(in_dir(cmd, &out, &err), 0, "%s", err);
    cr_expect(strstr(out, "\nfindings: none\n") != NULL, "%s", out);
    if (tc_find_ptxas()) cr_expect(strstr(out, "\nptxas: figures from ptxas -v -arch=sm_75\n") != NULL, "%s", out);
    free(out);
    free(err);
    rm_dir();
}

/* nvcc's errors as nvcc prints them, exit 2, nothing written to -o; the
 * same for an option after `--` nvcc does not know. */
Test(analyze, nvcc_errors_verbatim, .timeout = 120)
{
    if (!tc_find_nvcc()) cr_skip_test("nvcc not found");
    mk_dir();
    write_file("bad.cu", "__global__ void k(float *p)\n{\n    p[threadIdx.x] = undeclared_thing;\n}\n");
    write_file("good.cu", "__global__ void k(float *p) { p[threadIdx.x] = 1.0f; }\n");
    char cmd[1024], *out, *err;
    for (int f = 0; f < 3; f++) {
        static const char *const fmt[] = {"text", "json", "sarif"};
        snprintf(cmd, sizeof cmd, "%s analyze bad.cu --format %s -o r.out", tu_bin(), fmt[f]);
        cr_expect_eq(in_dir(cmd, &out, &err), 2);
        cr_expect(strstr(err, "bad.cu(3): error: identifier \"undeclared_thing\" is undefined\n"
                              "      p[threadIdx.x] = undeclared_thing;\n"
                              "                       ^\n") != NULL,
                  "%s", err);
        cr_expect(strstr(err, "1 error detected in the compilation of \"bad.cu\".\n") != NULL, "%s", err);
        cr_expect(strstr(err, "ptxray analyze: bad.cu: nvcc failed\n") != NULL, "%s", err);
        cr_expect_str_eq(out, "");
        free(out);
        free(err);
    }
    snprintf(cmd, sizeof cmd, "%s analyze good.cu -o r.out -- --no-such-nvcc-option", tu_bin());
    cr_expect_eq(in_dir(cmd, &out, &err), 2);
    cr_expect(strstr(err, "nvcc fatal   : Unknown option '--no-such-nvcc-option'\n") != NULL, "%s", err);
    free(out);
    free(err);
    snprintf(cmd, sizeof cmd, "ls");
    cr_expect_eq(in_dir(cmd, &out, &err), 0);
    cr_expect_str_eq(out, "bad.cu\ngood.cu\n");
    free(out);
    free(err);
    rm_dir();
}

/* Bad usage: exit 2, nothing written. */
Test(analyze, bad_usage)
{
    mk_dir();
    char cmd[8000], *out, *err;
    snprintf(cmd, sizeof cmd, "%s analyze %s --format xml -o r.out", tu_bin(), tu_src(TILE));
    cr_expect_eq(in_dir(cmd, &out, &err), 2);
    cr_expect(strstr(err, "unknown format 'xml'") != NULL, "%s", err);
    free(out);
    free(err);
    snprintf(cmd, sizeof cmd, "%s analyze %s -o r.out -- -G", tu_bin(), tu_src(TILE));
    cr_expect_eq(in_dir(cmd, &out, &err), 2);
    cr_expect(strstr(err, "arguments after -- are for nvcc") != NULL, "%s", err);
    free(out);
    free(err);
    cr_expect_eq(in_dir("ls", &out, &err), 0);
    cr_expect_str_eq(out, "");
    free(out);
    free(err);
    rm_dir();
}

/* nvcc writes the .cu's .file as an absolute path; analyze names it as the
 * user typed it, relative to the current directory (text, JSON and the
 * source line it reads through that name). */
Test(analyze, source_paths_as_typed, .timeout = 120)
{
    if (!tc_find_nvcc()) cr_skip_test("nvcc not found");
    mk_dir();
    cr_assert_eq(mkdir_sub("src"), 0);
    write_file("src/k.cu", "__global__ void k(float *p, int s)\n{\n    if (threadIdx.x & 1)\n        p[threadIdx.x * s] = 1.0f;\n}\n");
    char cmd[1024], *out, *err;
    snprintf(cmd, sizeof cmd, "%s analyze src/k.cu --no-ptxas", tu_bin());
    cr_assert_eq(in_dir(cmd, &out, &err), 0, "%s", err);
    cr_expect(strstr(out, "] src/k.cu:3:") != NULL, "%s", out);
    cr_expect(strstr(out, "/src/k.cu") == NULL, "%s", out);
    free(out);
    free(err);
    snprintf(cmd, sizeof cmd, "%s analyze src/k.cu --no-ptxas --format json", tu_bin());
    cr_assert_eq(in_dir(cmd, &out, &err), 0, "%s", err);
    cr_expect(strstr(out, "\"file\": \"src/k.cu\"") != NULL, "%s", out);
    cr_expect(strstr(out, "if (threadIdx.x & 1)") != NULL, "%s", out);
    cr_expect(strstr(out, "/src/k.cu") == NULL, "%s", out);
    free(out);
    free(err);
    rm_dir();
}
