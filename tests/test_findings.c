/* `ptxray check` findings a CI can live with (issue 20): one finding per
 * (kernel, source line, rule) at the user's frame of inlined code, sorted
 * by certainty and cost; possible misalignment of an unknown alignment;
 * baselines that survive path spelling, a moved directory and shifted
 * lines; SARIF for code scanning, every log validated against the schema;
 * no file written on exit 2. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "check_report.h"
#include "coalescing.h"
#include "testutil.h"

#define BIN (char *)tu_bin()

static char tmpdir[64];

static void mk_tmp(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/ptxray-findXXXXXX");
    cr_assert_not_null(mkdtemp(tmpdir));
}

static void rm_tmp(void) { tu_rm_rf(tmpdir); }

/* sh -c cmd; its stdout in *out (may be NULL), the exit status returned. */
static int sh(const char *cmd, char **out)
{
    char *a[] = {"/bin/sh", "-c", (char *)cmd, NULL};
    char *err = NULL, *o = NULL;
    int rc = tu_run(a, &o, &err);
    if (out) *out = o;
    else free(o);
    free(err);
    return rc;
}

static json_t *check_json(const char *args)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "%s check --format json %s", tu_bin(), args);
    char *out;
    int rc = sh(cmd, &out);
    cr_assert(rc == 0 || rc == 1, "%s: exit %d", cmd, rc);
    json_t *j = json_loads(out, 0, NULL);
    cr_assert_not_null(j, "%s", out);
    free(out);
    return j;
}

static json_t *finding_at(json_t *fs, const char *src_file, int line)
{
    size_t i;
    json_t *f;
    json_array_foreach(fs, i, f) {
        json_t *s = json_object_get(f, "src");
        if (json_is_object(s) && !strcmp(json_string_value(json_object_get(s, "file")), src_file) &&
            json_integer_value(json_object_get(s, "line")) == line)
            return f;
    }
    return NULL;
}

/* ---- where a finding is ---------------------------------------------------- */

Test(findings, innermost_frame_of_inlined_helper)
{
    char args[4200];
    snprintf(args, sizeof args, "%s", tu_src("tests/data/findings/helpers.ptx"));
    json_t *j = check_json(args);
    json_t *fs = json_object_get(j, "findings");
    /* the helper's line makes the access; the kernel's call is a call site */
    json_t *f = finding_at(fs, "helpers.cu", 21);
    cr_assert_not_null(f);
    cr_expect_str_eq(json_string_value(json_object_get(f, "rule")), "uncoalesced");
    cr_expect_str_eq(json_string_value(json_object_get(f, "certainty")), "proven");
    cr_expect_str_eq(json_string_value(json_object_get(json_object_get(f, "src"), "text")), "    return p[i * 8];");
    json_t *calls = json_object_get(f, "call_sites");
    cr_assert_eq(json_array_size(calls), 1);
    cr_expect_eq(json_integer_value(json_object_get(json_array_get(calls, 0), "line")), 27);
    cr_expect_str_eq(json_string_value(json_object_get(f, "kernel")), "helper_kernel(float const*, float*, int*)");
    cr_expect_str_eq(json_string_value(json_object_get(f, "symbol")), "_Z13helper_kernelPKfPfPi");
    cr_expect_eq(json_integer_value(json_object_get(f, "excess")), 28);
    /* the atomicAdd: the user's call, not device_atomic_functions.hpp */
    f = finding_at(fs, "helpers.cu", 29);
    cr_assert_not_null(f);
    cr_expect_eq(json_array_size(json_object_get(f, "call_sites")), 0);
    cr_expect(strstr(json_string_value(json_object_get(f, "message")), "global atomic") != NULL);
    size_t i;
    json_array_foreach(fs, i, f)
        cr_expect(!strstr(json_string_value(json_object_get(json_object_get(f, "src"), "file")), ".hpp"));
    json_decref(j);
    /* text: gcc style at the helper's line, the call site as a note */
    char cmd[4300], *out;
    snprintf(cmd, sizeof cmd, "%s check %s", tu_bin(), args);
    cr_expect_eq(sh(cmd, &out), 1);
    cr_expect(strstr(out, "helpers.cu:21:5: warning: uncoalesced global load: lanes 32 B apart, 32 sectors/request, "
                          "ideal 4 [uncoalesced]\n"
                          "   21 |     return p[i * 8];\n"
                          "      |     ^\n") != NULL,
              "%s", out);
    cr_expect(strstr(out, "helpers.cu:27:5: note: inlined from here\n") != NULL, "%s", out);
    free(out);
}

/* nodes[k].keys[tid] with sizeof(node) = 136: lane 0 is known only modulo 8,
 * clean when nodes[k] is 32-byte aligned (possible); recs[k].vals[tid] at
 * offset 4 is 4 modulo 8, never aligned (proven). */
Test(findings, array_of_structs_misalignment)
{
    char args[4200];
    snprintf(args, sizeof args, "%s", tu_src("tests/data/findings/helpers.ptx"));
    json_t *j = check_json(args);
    json_t *fs = json_object_get(j, "findings");
    json_t *f = finding_at(fs, "helpers.cu", 34);
    cr_assert_not_null(f);
    cr_expect_str_eq(json_string_value(json_object_get(f, "rule")), "misaligned");
    cr_expect_str_eq(json_string_value(json_object_get(f, "certainty")), "possible");
    cr_expect_str_eq(json_string_value(json_object_get(f, "message")),
                     "misaligned global load unless lane 0 is 32-byte aligned: its address is known only modulo 8 B, "
                     "lanes 4 B apart; 4 sectors/request if aligned, up to 5 otherwise, ideal 4");
    cr_expect(strstr(json_string_value(json_object_get(f, "depends_on")), "clean when it is a multiple of 32 B") != NULL);
    f = finding_at(fs, "helpers.cu", 39);
    cr_assert_not_null(f);
    cr_expect_str_eq(json_string_value(json_object_get(f, "certainty")), "proven");
    /* known modulo 8, not 128 (issue 20 item 8) */
    cr_expect_str_eq(json_string_value(json_object_get(f, "message")),
                     "misaligned global load: lane 0's address is 4 modulo 8 (never on a 32-byte boundary), lanes 4 B "
                     "apart (unit stride), 5 sectors/request, ideal 4 (4 if aligned)");
    cr_expect(json_is_null(json_object_get(f, "depends_on")));
    json_t *sum = json_object_get(j, "summary");
    cr_expect_eq(json_integer_value(json_object_get(sum, "proven")), 3);
    cr_expect_eq(json_integer_value(json_object_get(sum, "possible")), 1);
    json_decref(j);
}

/* On the corpus: one finding per (file, kernel, source line, rule), each
 * listing its PTX instructions; the 256 stores of one unrolled line of the
 * register-tiled GEMM are one finding; proven before possible, by cost. */
Test(findings, corpus_one_per_source_line, .timeout = 120)
{
    char args[4200];
    snprintf(args, sizeof args, "--enable divergent-branch %s", tu_src("ptx-corpus"));
    json_t *j = check_json(args);
    json_t *fs = json_object_get(j, "findings");
    size_t n = json_array_size(fs), i;
    cr_assert_gt(n, 100);
    char **keys = calloc(n, sizeof *keys);
    json_t *f;
    size_t ninst = 0;
    int last_cert = 0;
    json_int_t last_cost = INT64_MAX;
    json_array_foreach(fs, i, f) {
        json_t *s = json_object_get(f, "src");
        char k[2048];
        snprintf(k, sizeof k, "%s|%s|%s|%s:%lld", json_string_value(json_object_get(f, "file")),
                 json_string_value(json_object_get(f, "symbol")), json_string_value(json_object_get(f, "rule")),
                 json_is_object(s) ? json_string_value(json_object_get(s, "file")) : "ptx",
                 (long long)json_integer_value(json_is_object(s) ? json_object_get(s, "line")
                                                                 : json_object_get(f, "line")));
        keys[i] = strdup(k);
        json_int_t ni = json_integer_value(json_object_get(f, "instructions"));
        cr_expect_eq((size_t)ni, json_array_size(json_object_get(f, "ptx_lines")));
        ninst += (size_t)ni;
        int cert = !strcmp(json_string_value(json_object_get(f, "certainty")), "possible");
        json_int_t cost = json_integer_value(json_object_get(f, "cost"));
        cr_expect(cert > last_cert || (cert == last_cert && cost <= last_cost), "finding %zu out of order", i);
        if (cert > last_cert) last_cost = INT64_MAX;
        last_cert = cert;
        last_cost = cost;
        if (strstr(k, "sm_80/regtile_16x16.ptx|sgemm_regtile_16x16|uncoalesced|src/regtile_16x16.cu:42"))
            cr_expect_eq(ni, 256);
    }
    for (size_t a = 0; a < n; a++)
        for (size_t b = a + 1; b < n; b++) cr_expect_str_neq(keys[a], keys[b], "two findings for %s", keys[a]);
    cr_expect_eq((json_int_t)ninst, json_integer_value(json_object_get(json_object_get(j, "summary"), "instructions")));
    cr_log_info("corpus: %zu findings covering %zu PTX instructions", n, ninst);
    for (size_t a = 0; a < n; a++) free(keys[a]);
    free(keys);
    json_decref(j);
}

/* ---- baselines that survive real life (issue 20 item 4) ---------------------- */

/* A kernel with two uncoalesced loads (8 and 12 bytes apart) at source
 * lines 5+shift and 7+shift; `above` goes before the kernel. */
static void put_pair(const char *dir, unsigned shift, const char *above, bool with_source)
{
    char path[512], buf[8192];
    snprintf(path, sizeof path, "%s/k.ptx", dir);
    snprintf(buf, sizeof buf,
             ".version 8.0\n.target sm_80\n.address_size 64\n%s"
             ".visible .entry pair(.param .u64 p_in, .param .u64 p_out)\n{\n"
             "\t.reg .b32 %%r<8>;\n\t.reg .f32 %%f<4>;\n\t.reg .b64 %%rd<16>;\n"
             "\tld.param.u64 %%rd1, [p_in];\n\tld.param.u64 %%rd2, [p_out];\n"
             "\tcvta.to.global.u64 %%rd3, %%rd1;\n\tcvta.to.global.u64 %%rd4, %%rd2;\n"
             "\tmov.u32 %%r1, %%tid.x;\n"
             "\t.loc 1 %u 3\n"
             "\tmul.wide.u32 %%rd5, %%r1, 8;\n\tadd.s64 %%rd6, %%rd3, %%rd5;\n\tld.global.f32 %%f1, [%%rd6];\n"
             "\t.loc 1 %u 3\n"
             "\tmul.wide.u32 %%rd9, %%r1, 12;\n\tadd.s64 %%rd10, %%rd3, %%rd9;\n\tld.global.f32 %%f2, [%%rd10];\n"
             "\tadd.f32 %%f3, %%f1, %%f2;\n"
             "\tmul.wide.u32 %%rd7, %%r1, 4;\n\tadd.s64 %%rd8, %%rd4, %%rd7;\n"
             "\tst.global.f32 [%%rd8], %%f3;\n\tret;\n}\n\t.file 1 \"k.cu\"\n",
             above, 5 + shift, 7 + shift);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(buf, f);
    fclose(f);
    snprintf(path, sizeof path, "%s/k.cu", dir);
    if (!with_source) {
        unlink(path);
        return;
    }
    f = fopen(path, "w");
    cr_assert_not_null(f);
    for (unsigned i = 0; i < shift; i++) fputs("// a line added above\n", f);
    fputs("__global__ void pair(const float *in, float *out)\n{\n    unsigned i = threadIdx.x;\n"
          "    float a =\n        in[2 * i];\n    float b =\n        in[3 * i];\n    out[i] = a + b;\n}\n",
          f);
    fclose(f);
}

static const char *const other_kernel = "// unrelated\n.visible .entry other()\n{\n\tret;\n}\n\n";

/* Writes the baseline from dir (cd there, `check --write-baseline`), then
 * runs `check --baseline` as cmd_tail from run_dir: 0 new findings. */
static void expect_all_suppressed(const char *run_dir, const char *paths)
{
    char cmd[4096], *out;
    snprintf(cmd, sizeof cmd, "cd '%s' && %s check --baseline '%s/base.txt' %s", run_dir, tu_bin(), tmpdir, paths);
    cr_expect_eq(sh(cmd, &out), 0, "%s\n%s", cmd, out);
    cr_expect(strstr(out, " 0 findings (") && strstr(out, "2 suppressed by the baseline"), "%s\n%s", cmd, out);
    free(out);
}

static void write_baseline(const char *dir, const char *path)
{
    char cmd[4096], *out;
    snprintf(cmd, sizeof cmd, "cd '%s' && %s check --write-baseline '%s/base.txt' %s", dir, tu_bin(), tmpdir, path);
    cr_assert_eq(sh(cmd, &out), 0, "%s\n%s", cmd, out);
    free(out);
}

Test(findings, baseline_survives_path_spelling)
{
    for (int src = 0; src < 2; src++) {
        mk_tmp();
        char d[256];
        snprintf(d, sizeof d, "%s/w", tmpdir);
        mkdir(d, 0755);
        put_pair(d, 0, "", src);
        write_baseline(d, "k.ptx");
        expect_all_suppressed(d, "./k.ptx");
        char abs[512];
        snprintf(abs, sizeof abs, "'%s/k.ptx'", d);
        expect_all_suppressed(d, abs);
        expect_all_suppressed(tmpdir, "w/k.ptx");
        expect_all_suppressed(tmpdir, "./w//k.ptx");
        expect_all_suppressed("/", abs);
        expect_all_suppressed(d, "."); /* the directory, searched */
        rm_tmp();
    }
}

Test(findings, baseline_survives_moved_directory)
{
    for (int src = 0; src < 2; src++) {
        mk_tmp();
        char d[256], cmd[1024];
        snprintf(d, sizeof d, "%s/build", tmpdir);
        mkdir(d, 0755);
        put_pair(d, 0, "", src);
        write_baseline(tmpdir, "build");
        snprintf(cmd, sizeof cmd, "mkdir -p '%s/out/ptx' && mv '%s' '%s/out/ptx/sm_80'", tmpdir, d, tmpdir);
        cr_assert_eq(sh(cmd, NULL), 0);
        expect_all_suppressed(tmpdir, "out");
        expect_all_suppressed(tmpdir, "out/ptx/sm_80/k.ptx");
        rm_tmp();
    }
}

/* Lines added above the kernel in the PTX and above the code in the .cu
 * (the .loc lines move with them); with the source readable and without. */
Test(findings, baseline_survives_shifted_lines)
{
    for (int src = 0; src < 2; src++) {
        mk_tmp();
        put_pair(tmpdir, 0, "", src);
        write_baseline(tmpdir, "k.ptx");
        put_pair(tmpdir, 3, other_kernel, src);
        expect_all_suppressed(tmpdir, "k.ptx");
        put_pair(tmpdir, 40, other_kernel, src);
        expect_all_suppressed(tmpdir, "k.ptx");
        /* a changed access is a new finding */
        char cmd[1024], *out;
        snprintf(cmd, sizeof cmd, "sed -i 's/%%r1, 12;/%%r1, 16;/' '%s/k.ptx' && sed -i 's/3 \\* i/4 * i/' '%s/k.cu' 2>/dev/null; "
                                  "cd '%s' && %s check --baseline base.txt k.ptx",
                 tmpdir, tmpdir, tmpdir, tu_bin());
        cr_expect_eq(sh(cmd, &out), 1, "%s", out);
        cr_expect(strstr(out, " 1 findings (") && strstr(out, "1 suppressed by the baseline"), "%s", out);
        free(out);
        rm_tmp();
    }
}

/* ---- SARIF for code scanning (issue 20 item 5) ------------------------------ */

Test(findings, sarif_relative_to_root)
{
    char root[4200], args[8600];
    snprintf(root, sizeof root, "%s", tu_src("tests/data"));
    snprintf(args, sizeof args, "check --format sarif --root %s %s/findings/helpers.ptx", root, root);
    char cmd[9000], *out;
    snprintf(cmd, sizeof cmd, "%s %s", tu_bin(), args);
    cr_assert_eq(sh(cmd, &out), 1);
    json_t *j = json_loads(out, 0, NULL);
    cr_assert_not_null(j, "%s", out);
    json_t *run = json_array_get(json_object_get(j, "runs"), 0);
    char want[4300];
    snprintf(want, sizeof want, "file://%s/", root);
    cr_expect_str_eq(json_string_value(json_object_get(json_object_get(json_object_get(run, "originalUriBaseIds"),
                                                                        "SRCROOT"),
                                                       "uri")),
                     want);
    json_t *res = json_object_get(run, "results"), *r;
    size_t i;
    cr_assert_eq(json_array_size(res), 4);
    json_array_foreach(res, i, r) {
        json_t *locs = json_object_get(r, "locations");
        cr_assert_eq(json_array_size(locs), 1);
        json_t *art = json_object_get(json_object_get(json_array_get(locs, 0), "physicalLocation"), "artifactLocation");
        cr_expect_str_eq(json_string_value(json_object_get(art, "uri")), "findings/helpers.cu");
        cr_expect_str_eq(json_string_value(json_object_get(art, "uriBaseId")), "SRCROOT");
        json_t *rel = json_object_get(r, "relatedLocations");
        cr_assert_geq(json_array_size(rel), 1);
        art = json_object_get(json_object_get(json_array_get(rel, 0), "physicalLocation"), "artifactLocation");
        cr_expect_str_eq(json_string_value(json_object_get(art, "uri")), "findings/helpers.ptx");
        cr_expect(json_is_string(json_object_get(json_object_get(r, "partialFingerprints"), "ptxrayFingerprint/v2")));
        cr_expect(strstr(json_string_value(json_object_get(json_object_get(r, "properties"), "kernel")), "(") != NULL);
    }
    json_t *rules = json_object_get(json_object_get(json_object_get(run, "tool"), "driver"), "rules");
    json_array_foreach(rules, i, r) cr_expect(json_is_string(json_object_get(json_object_get(r, "help"), "text")));
    json_decref(j);
    free(out);
    tu_expect_sarif_schema(args);
}

/* Every kind of SARIF log the commands write, over the corpus and the test
 * data, validated against the schema (tests/validate_sarif.py).  Three
 * tests, one per kind, so that each has its own time limit (under ASan on a
 * loaded machine the three together came near 300 s once source names read
 * the .cu files) and they run in parallel. */
Test(findings, every_check_sarif_validates, .timeout = 300)
{
    static const char *const dirs[] = {"ptx-corpus", "tests/data", "tests/data/coalescing", "tests/data/findings"};
    char args[8600], p[4200];
    for (size_t d = 0; d < sizeof dirs / sizeof dirs[0]; d++) {
        snprintf(p, sizeof p, "%s", tu_src(dirs[d]));
        snprintf(args, sizeof args, "check --format sarif --enable divergent-branch %s", p);
        tu_expect_sarif_schema(args);
        snprintf(args, sizeof args, "check --format sarif --root / --strict %s", p);
        tu_expect_sarif_schema(args);
    }
}

/* coalescing's SARIF of every file in dir, one run per file. */
static void coalescing_sarif_of(const char *dir, const char *redirect)
{
    char args[8600];
    size_t n;
    char **files = tu_list_ptx(tu_src(dir), &n);
    cr_assert_gt(n, 0, "no .ptx in %s", dir);
    for (size_t i = 0; i < n; i++) {
        snprintf(args, sizeof args, "coalescing --format sarif %s%s", files[i], redirect);
        tu_expect_sarif_schema(args);
    }
    tu_free_list(files, n);
}

Test(findings, every_coalescing_sarif_of_the_test_data_validates, .timeout = 300)
{
    coalescing_sarif_of("tests/data", " 2>/dev/null");
}

Test(findings, every_coalescing_sarif_of_the_corpus_validates, .timeout = 300)
{
    coalescing_sarif_of("ptx-corpus/sm_80", "");
}

/* ---- exit 2 writes nothing (issue 20 item 8) ---------------------------------- */

Test(findings, check_o_writes_nothing_on_exit_2)
{
    mk_tmp();
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && printf '.version 8.0\\n.target sm_80\\n.address_size 64\\n.visible .entry k()\\n{\\n\\tadd.s32 "
             "%%r1, ;\\n}\\n' > bad.ptx && cp '%s' good.ptx && %s check -o report.txt bad.ptx good.ptx; echo rc=$?; "
             "ls",
             tmpdir, tu_src("tests/data/findings/helpers.ptx"), tu_bin());
    char *out;
    cr_expect_eq(sh(cmd, &out), 0);
    cr_expect(strstr(out, "rc=2\n") != NULL, "%s", out);
    cr_expect(strstr(out, "report.txt") == NULL, "a report was written on exit 2: %s", out);
    free(out);
    for (int f = 0; f < 2; f++) {
        snprintf(cmd, sizeof cmd, "cd '%s' && %s check --format %s -o r.out bad.ptx; echo rc=$?; ls", tmpdir,
                 tu_bin(), f ? "sarif" : "json");
        cr_expect_eq(sh(cmd, &out), 0);
        cr_expect(strstr(out, "rc=2\n") && !strstr(out, "r.out"), "%s", out);
        free(out);
    }
    rm_tmp();
}

/* ---- the JSON writer --------------------------------------------------------- */

/* check's and analyze's JSON write each finding straight to the stream;
 * the document must be what jansson dumps for it, and each finding have
 * its members, less those jansson leaves out: a call site without a file,
 * text that is not UTF-8, a NULL string. */
Test(findings, json_stream_matches_finding_tree)
{
    chk_pos insts[2] = {{NULL, 7, 5}, {NULL, 9, 5}};
    chk_pos calls[3] = {{"a.cu", 27, 3}, {NULL, 4, 1}, {"b\xff.cu", 5, 2}};
    chk_shape at[2] = {{{0, 0, 0}, "the default", 1234, 0}, {{16, 16, 1}, NULL, 56, 1}};
    chk_finding f[2];
    memset(f, 0, sizeof f);
    for (int k = 0; k < 2; k++) {
        f[k].ptx_path = k ? "x\xc3.ptx" : "dir/x.ptx";
        f[k].kernel = "k(float*)";
        f[k].symbol = k ? NULL : "_Z1kPf";
        f[k].rule = (uint8_t)k;
        f[k].certainty = (uint8_t)k;
        f[k].line = 7;
        f[k].col = 5;
        f[k].ninst = 2;
        f[k].insts = insts;
        f[k].src_file = k ? "bad\xfe.cu" : "x.cu";
        f[k].src_line = 21;
        f[k].src_col = 9;
        f[k].ncalls = 3;
        f[k].calls = calls;
        f[k].src_text = k ? NULL : "    return p[i * 8]; // caf\xe9";
        f[k].message = "uncoalesced \"load\"\n\t";
        f[k].hint = k ? "use \xc3\xa9" : NULL;
        f[k].depends = k ? "tid.y" : NULL;
        f[k].loop_depth = 2;
        f[k].excess = 28;
        f[k].cost = 2800;
        f[k].fingerprint = 0x0123456789abcdefull + (uint64_t)k;
        f[k].nshapes = 2;
        f[k].nat = 2;
        f[k].at = at;
    }
    chk_list l;
    memset(&l, 0, sizeof l);
    l.v = f;
    l.n = 2;
    coal_options co;
    memset(&co, 0, sizeof co);
    chk_run r = {.l = &l, .nfiles = 1, .enabled = 3, .fail_on = 1, .opts = &co};
    char *text = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&text, &len);
    cr_assert(chk_write_json(o, &r));
    fclose(o);
    /* the document as jansson dumps it, and each finding the tree */
    json_error_t err;
    json_t *doc = json_loads(text, 0, &err);
    cr_assert_not_null(doc, "%s", err.text);
    char *again = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    cr_assert_not_null(again);
    cr_expect_eq(strlen(again) + 1, len); /* the stream ends with a newline */
    cr_expect(!strncmp(again, text, strlen(again)));
    json_t *fs = json_object_get(doc, "findings");
    cr_assert_eq(json_array_size(fs), 2);
    /* each finding, as written (jansson's members: what it would keep) */
    static const char *const want[2] = {
        "{\"file\":\"dir/x.ptx\",\"line\":7,\"col\":5,\"rule\":\"uncoalesced\",\"certainty\":\"proven\","
        "\"depends_on\":null,\"kernel\":\"k(float*)\",\"symbol\":\"_Z1kPf\","
        "\"src\":{\"file\":\"x.cu\",\"line\":21,\"col\":9},\"call_sites\":[{\"file\":\"a.cu\",\"line\":27,\"col\":3}],"
        "\"instructions\":2,\"ptx_lines\":[7,9],\"loop_depth\":2,\"excess\":28,\"cost\":2800,"
        "\"message\":\"uncoalesced \\\"load\\\"\\n\\t\",\"hint\":null,\"shapes_analysed\":2,"
        "\"holds_at\":[{\"block\":null,\"from\":\"the default\",\"certainty\":\"proven\",\"cost\":1234},"
        "{\"block\":[16,16,1],\"certainty\":\"possible\",\"cost\":56}],\"fingerprint\":\"0123456789abcdef\"}",
        "{\"line\":7,\"col\":5,\"rule\":\"misaligned\",\"certainty\":\"possible\",\"depends_on\":\"tid.y\","
        "\"kernel\":\"k(float*)\",\"call_sites\":[{\"file\":\"a.cu\",\"line\":27,\"col\":3}],\"instructions\":2,"
        "\"ptx_lines\":[7,9],\"loop_depth\":2,\"excess\":28,\"cost\":2800,"
        "\"message\":\"uncoalesced \\\"load\\\"\\n\\t\",\"hint\":\"use \\u00e9\",\"shapes_analysed\":2,"
        "\"holds_at\":[{\"block\":null,\"from\":\"the default\",\"certainty\":\"proven\",\"cost\":1234},"
        "{\"block\":[16,16,1],\"certainty\":\"possible\",\"cost\":56}],\"fingerprint\":\"0123456789abcdf0\"}",
    };
    for (size_t k = 0; k < 2; k++) {
        json_t *w = json_loads(want[k], 0, &err);
        cr_assert_not_null(w, "%s", err.text);
        char *got = json_dumps(json_array_get(fs, k), JSON_COMPACT | JSON_PRESERVE_ORDER);
        cr_expect(json_equal(json_array_get(fs, k), w), "finding %zu: %s", k, got);
        free(got);
        json_decref(w);
    }
    /* what jansson leaves out: the fileless and the non-UTF-8 call site,
     * the second finding's src (bad file name) and symbol (NULL) */
    cr_expect_eq(json_array_size(json_object_get(json_array_get(fs, 0), "call_sites")), 1);
    cr_expect_null(json_object_get(json_array_get(fs, 1), "src"));
    cr_expect_null(json_object_get(json_array_get(fs, 1), "symbol"));
    free(again);
    json_decref(doc);
    free(text);
}
