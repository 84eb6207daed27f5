/* `ptxray check` and `ptxray analyze` as a user runs them: exit statuses,
 * order, baselines and their fingerprints, --fail-on, SARIF, directories,
 * the per-kernel report of analyze on PTX and on CUDA source. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "testutil.h"

#define BIN (char *)tu_bin()

/* A kernel with one uncoalesced load (8 B between lanes for 4-byte
 * elements) and a coalesced store; TOP goes before the kernel, BODY before
 * the load, NEW before the ret. */
static const char *const kernel_fmt =
    ".version 8.0\n.target sm_80\n.address_size 64\n%s"
    ".visible .entry strided(.param .u64 p_in, .param .u64 p_out)\n{\n"
    "\t.reg .b32 %%r<8>;\n\t.reg .f32 %%f<4>;\n\t.reg .b64 %%rd<16>;\n"
    "\t.loc 1 3 0\n"
    "\tld.param.u64 %%rd1, [p_in];\n\tld.param.u64 %%rd2, [p_out];\n"
    "\tcvta.to.global.u64 %%rd3, %%rd1;\n\tcvta.to.global.u64 %%rd4, %%rd2;\n"
    "\tmov.u32 %%r1, %%tid.x;\n%s"
    "\t.loc 1 5 3\n"
    "\tmul.wide.u32 %%rd5, %%r1, %u;\n\tadd.s64 %%rd6, %%rd3, %%rd5;\n\tld.global.f32 %%f1, [%%rd6];\n"
    "\tmul.wide.u32 %%rd7, %%r1, 4;\n\tadd.s64 %%rd8, %%rd4, %%rd7;\n"
    "\t.loc 1 6 3\n"
    "\tst.global.f32 [%%rd8], %%f1;\n%s"
    "\tret;\n}\n\t.file 1 \"k.cu\"\n";

static const char *const clean_ptx =
    ".version 8.0\n.target sm_80\n.address_size 64\n"
    ".visible .entry copy(.param .u64 p_in, .param .u64 p_out)\n{\n"
    "\t.reg .b32 %r<4>;\n\t.reg .f32 %f<2>;\n\t.reg .b64 %rd<8>;\n"
    "\tld.param.u64 %rd1, [p_in];\n\tld.param.u64 %rd2, [p_out];\n"
    "\tcvta.to.global.u64 %rd3, %rd1;\n\tcvta.to.global.u64 %rd4, %rd2;\n"
    "\tmov.u32 %r1, %tid.x;\n\tmul.wide.u32 %rd5, %r1, 4;\n"
    "\tadd.s64 %rd6, %rd3, %rd5;\n\tld.global.f32 %f1, [%rd6];\n"
    "\tadd.s64 %rd7, %rd4, %rd5;\n\tst.global.f32 [%rd7], %f1;\n\tret;\n}\n";

static const char *const new_access =
    "\t.loc 1 7 3\n\tmul.wide.u32 %rd9, %r1, 12;\n\tadd.s64 %rd10, %rd3, %rd9;\n"
    "\tld.global.f32 %f2, [%rd10];\n\tst.global.f32 [%rd8], %f2;\n";

static const char *const unrelated_top = "// an unrelated comment\n// and another\n\n"
                                         ".visible .entry other()\n{\n\tret;\n}\n\n";

typedef struct tmp {
    char dir[64];
} tmp;

static void tmp_init(tmp *t)
{
    snprintf(t->dir, sizeof t->dir, "/tmp/ptxray-checkXXXXXX");
    cr_assert_not_null(mkdtemp(t->dir));
}

static const char *tmp_path(const tmp *t, const char *name)
{
    static char p[4][256];
    static int k;
    k = (k + 1) % 4;
    snprintf(p[k], sizeof p[k], "%s/%s", t->dir, name);
    return p[k];
}

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "%s", path);
    fputs(text, f);
    fclose(f);
}

static void put_kernel(const char *path, const char *top, const char *body, unsigned stride, const char *extra)
{
    char buf[8192];
    snprintf(buf, sizeof buf, kernel_fmt, top, body, stride, extra);
    put(path, buf);
}

static void tmp_free(tmp *t)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", t->dir);
    char *a[] = {"/bin/sh", "-c", cmd, NULL};
    tu_run(a, NULL, NULL);
}

static int run(char **argv, char **out)
{
    char *err = NULL;
    int rc = tu_run(argv, out, &err);
    free(err);
    return rc;
}

static size_t count_of(const char *s, const char *needle)
{
    size_t n = 0;
    for (const char *p = s; (p = strstr(p, needle)); p += strlen(needle)) n++;
    return n;
}

Test(check, exit_codes)
{
    tmp t;
    tmp_init(&t);
    put(tmp_path(&t, "clean.ptx"), clean_ptx);
    put_kernel(tmp_path(&t, "strided.ptx"), "", "", 8, "");
    put(tmp_path(&t, "bad.ptx"), ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\tadd.s32 %r1, ;\n}\n");
    char *out, *err;
    char *a[] = {BIN, "check", (char *)tmp_path(&t, "clean.ptx"), NULL};
    cr_expect_eq(run(a, &out), 0);
    cr_expect(strstr(out, "ptxray check: 1 files, 0 findings (uncoalesced 0, misaligned 0, bank-conflict 0, "
                          "divergent-barrier 0, divergent-collective 0; 0 proven, 0 possible)") != NULL,
              "%s", out);
    free(out);
    char *b[] = {BIN, "check", (char *)tmp_path(&t, "strided.ptx"), NULL};
    cr_expect_eq(run(b, &out), 1);
    char want[1024];
    snprintf(want, sizeof want,
             "k.cu:5:3: warning: uncoalesced global load: lanes 8 B apart, 8 sectors/request, ideal 4 [uncoalesced]\n"
             "%s:18:2: note: in strided: 1 PTX instruction, 4 excess sectors, cost 4\n"
             "assumed: block shape unknown, assumed blockDim.x is a multiple of 32\n"
             "ptxray check: 1 files, 1 findings (uncoalesced 1, misaligned 0, bank-conflict 0, divergent-barrier 0, "
             "divergent-collective 0; 1 proven, 0 possible), 0 suppressed by the baseline; failing on "
             "uncoalesced,misaligned,bank-conflict,divergent-barrier,divergent-collective\n",
             tmp_path(&t, "strided.ptx"));
    cr_expect_str_eq(out, want);
    free(out);
    /* the source beside the PTX: its line with a caret under the column, as gcc prints it */
    put(tmp_path(&t, "k.cu"), "__global__ void strided(const float *in, float *out)\n{\n"
                              "    unsigned i = threadIdx.x;\n    // load\n\tfloat v = in[2 * i];\n"
                              "    out[i] = v;\n}\n");
    cr_expect_eq(run(b, &out), 1);
    snprintf(want, sizeof want,
             "k.cu:5:3: warning: uncoalesced global load: lanes 8 B apart, 8 sectors/request, ideal 4 [uncoalesced]\n"
             "    5 | \tfloat v = in[2 * i];\n"
             "      | \t ^\n"
             "%s:18:2: note: in strided: 1 PTX instruction, 4 excess sectors, cost 4\n",
             tmp_path(&t, "strided.ptx"));
    cr_expect(!strncmp(out, want, strlen(want)), "%s", out);
    free(out);
    /* a bad file: its diagnostic, the others still checked, exit 2 */
    char *c[] = {BIN, "check", (char *)tmp_path(&t, "bad.ptx"), (char *)tmp_path(&t, "strided.ptx"), NULL};
    cr_expect_eq(tu_run(c, &out, &err), 2);
    snprintf(want, sizeof want, "%s:6:", tmp_path(&t, "bad.ptx"));
    cr_expect(strstr(err, want) && strstr(err, "error:"), "%s", err);
    cr_expect(strstr(out, "2 files, 1 findings") && strstr(out, "1 files with errors"), "%s", out);
    free(out);
    free(err);
    mkdir(tmp_path(&t, "empty"), 0755);
    char *e[] = {BIN, "check", (char *)tmp_path(&t, "empty"), NULL};
    cr_expect_eq(tu_run(e, &out, &err), 2);
    cr_expect_str_eq(err, "ptxray check: no PTX file found\n");
    free(out);
    free(err);
    char *d[] = {BIN, "check", "--fail-on", "uncoalesced,bogus", (char *)tmp_path(&t, "clean.ptx"), NULL};
    cr_expect_eq(tu_run(d, &out, &err), 2);
    cr_expect(strstr(err, "bogus") != NULL, "%s", err);
    free(out);
    free(err);
    tmp_free(&t);
}

Test(check, directories_sorted_and_deterministic)
{
    tmp t;
    tmp_init(&t);
    mkdir(tmp_path(&t, "b"), 0755);
    mkdir(tmp_path(&t, "a"), 0755);
    mkdir(tmp_path(&t, "a/deep"), 0755);
    put_kernel(tmp_path(&t, "b/z.ptx"), "", "", 8, "");
    put_kernel(tmp_path(&t, "a/deep/y.ptx"), "", "", 8, new_access);
    put(tmp_path(&t, "a/x.ptx"), clean_ptx);
    put(tmp_path(&t, "a/notes.txt"), "not PTX\n");
    char *o1, *o2;
    char *a[] = {BIN, "check", "--format", "json", t.dir, NULL};
    cr_assert_eq(run(a, &o1), 1);
    cr_assert_eq(run(a, &o2), 1);
    cr_expect_str_eq(o1, o2);
    json_t *j = json_loads(o1, 0, NULL);
    cr_assert_not_null(j);
    cr_expect_eq(json_integer_value(json_object_get(json_object_get(j, "summary"), "files")), 3);
    json_t *fs = json_object_get(j, "findings");
    cr_assert_eq(json_array_size(fs), 3);
    /* by cost: 12-byte lanes waste 8 sectors, 8-byte lanes 4; then by file */
    const char *want[3][2] = {{"a/deep/y.ptx", "26"}, {"a/deep/y.ptx", "18"}, {"b/z.ptx", "18"}};
    for (size_t i = 0; i < 3; i++) {
        json_t *f = json_array_get(fs, i);
        cr_expect_str_eq(json_string_value(json_object_get(f, "file")), tmp_path(&t, want[i][0]));
        cr_expect_eq(json_integer_value(json_object_get(f, "line")), atoi(want[i][1]));
        cr_expect_str_eq(json_string_value(json_object_get(f, "rule")), "uncoalesced");
        cr_expect_eq(strlen(json_string_value(json_object_get(f, "fingerprint"))), 16);
    }
    json_decref(j);
    free(o1);
    free(o2);
    tmp_free(&t);
}

static const char *fingerprint_of(const char *ptx)
{
    static char fp[17];
    char *a[] = {BIN, "check", "--format", "json", (char *)ptx, NULL};
    char *out;
    run(a, &out);
    json_t *j = json_loads(out, 0, NULL);
    cr_assert_not_null(j, "%s", out);
    const char *s = json_string_value(json_object_get(json_array_get(json_object_get(j, "findings"), 0), "fingerprint"));
    cr_assert_not_null(s);
    snprintf(fp, sizeof fp, "%s", s);
    json_decref(j);
    free(out);
    return fp;
}

Test(check, fingerprint_survives_unrelated_edits)
{
    tmp t;
    tmp_init(&t);
    const char *k = tmp_path(&t, "k.ptx");
    put_kernel(k, "", "", 8, "");
    char before[17];
    snprintf(before, sizeof before, "%s", fingerprint_of(k));
    put_kernel(k, unrelated_top, "\tadd.u32 %r2, %r1, 7;\n\tadd.u32 %r3, %r2, 1;\n", 8, "");
    cr_expect_str_eq(fingerprint_of(k), before, "lines inserted above moved the fingerprint");
    put_kernel(k, "", "", 16, "");
    cr_expect_str_neq(fingerprint_of(k), before, "a different stride kept the fingerprint");
    tmp_free(&t);
}

Test(check, baseline_round_trip)
{
    tmp t;
    tmp_init(&t);
    const char *k = tmp_path(&t, "k.ptx"), *base = tmp_path(&t, "base.txt");
    put_kernel(k, "", "", 8, "");
    char *out;
    char *w[] = {BIN, "check", "--write-baseline", (char *)base, (char *)k, NULL};
    cr_assert_eq(run(w, &out), 0);
    free(out);
    char *text = tu_read(base, NULL);
    cr_expect_eq(count_of(text, "\n"), 2, "%s", text);
    cr_expect(strstr(text, " uncoalesced ") != NULL, "%s", text);
    free(text);
    char *c[] = {BIN, "check", "--baseline", (char *)base, (char *)k, NULL};
    cr_expect_eq(run(c, &out), 0);
    cr_expect(strstr(out, "0 findings") && strstr(out, "1 suppressed by the baseline"), "%s", out);
    cr_expect(!strstr(out, "warning:"), "%s", out);
    free(out);
    /* unrelated lines above: still suppressed */
    put_kernel(k, unrelated_top, "\tadd.u32 %r2, %r1, 7;\n", 8, "");
    cr_expect_eq(run(c, &out), 0, "%s", out);
    free(out);
    /* a new uncoalesced access: reported alone */
    put_kernel(k, unrelated_top, "\tadd.u32 %r2, %r1, 7;\n", 8, new_access);
    cr_expect_eq(run(c, &out), 1);
    cr_expect_eq(count_of(out, "warning:"), 1, "%s", out);
    cr_expect(strstr(out, "lanes 12 B apart") != NULL, "%s", out);
    free(out);
    /* a damaged baseline is bad input */
    put(base, "# comment\nnot-a-fingerprint\n");
    char *e[] = {BIN, "check", "--baseline", (char *)base, (char *)k, NULL};
    char *err;
    cr_expect_eq(tu_run(e, &out, &err), 2);
    char want[300];
    snprintf(want, sizeof want, "%s:2:1: error:", base);
    cr_expect(strstr(err, want) != NULL, "%s", err);
    free(out);
    free(err);
    tmp_free(&t);
}

Test(check, fail_on_selects_rules)
{
    const char *g = tu_src("tests/data/coalescing/gaussian.ptx");
    char path[4096];
    snprintf(path, sizeof path, "%s", g);
    char *out;
    char *a[] = {BIN, "check", "--fail-on", "bank-conflict", path, NULL};
    cr_expect_eq(run(a, &out), 0);
    cr_expect(strstr(out, "[uncoalesced, possible]") && !strstr(out, "[divergent-branch"), "%s", out);
    cr_expect(strstr(out, "failing on bank-conflict\n") != NULL, "%s", out);
    free(out);
    /* gaussian's branches and strides depend on values the analysis cannot see:
     * possible findings, which fail only with --strict */
    char *b[] = {BIN, "check", "--fail-on", "divergent-branch", path, NULL};
    cr_expect_eq(run(b, &out), 0);
    cr_expect(strstr(out, "[divergent-branch, possible]") && strstr(out, "[uncoalesced, possible]"), "%s", out);
    free(out);
    char *bs[] = {BIN, "check", "--fail-on", "divergent-branch", "--strict", path, NULL};
    cr_expect_eq(run(bs, &out), 1);
    cr_expect(strstr(out, "failing on divergent-branch (--strict: possible findings too)\n") != NULL, "%s", out);
    free(out);
    char *c[] = {BIN, "check", "--fail-on", "none", "--enable", "divergent-branch", path, NULL};
    cr_expect_eq(run(c, &out), 0);
    cr_expect(strstr(out, "[divergent-branch, possible]") && strstr(out, "failing on none\n"), "%s", out);
    free(out);
    char *d[] = {BIN, "check", "--fail-on", "uncoalesced", path, NULL};
    cr_expect_eq(run(d, &out), 0);
    free(out);
    char *ds[] = {BIN, "check", "--fail-on", "uncoalesced", "--strict", path, NULL};
    cr_expect_eq(run(ds, &out), 1);
    free(out);
}

/* Proven and possible (issue 20 item 2): a branch on tid.x & 1 splits every
 * warp (proven), a branch on a loaded value may (possible); a stride of 8
 * bytes wastes sectors at every launch (proven), a stride from a parameter
 * may (possible).  Proven findings fail by default, possible ones with
 * --strict; JSON and SARIF carry the certainty. */
Test(check, proven_and_possible)
{
    char st[4096], g[4096];
    snprintf(st, sizeof st, "%s", tu_src("tests/data/coalescing/single_thread.ptx"));
    snprintf(g, sizeof g, "%s", tu_src("tests/data/coalescing/gaussian.ptx"));
    char *out;
    char *a[] = {BIN, "check", "--fail-on", "divergent-branch", st, NULL};
    cr_expect_eq(run(a, &out), 1);
    cr_expect(strstr(out, "single_thread.cu:15:3: warning: divergent branch: its condition differs between the lanes "
                          "of a warp: @%p1 bra $L__BB1_2; [divergent-branch]\n") != NULL, "%s", out);
    cr_expect(strstr(out, "single_thread.cu:10:3: warning: possible: branch not proven uniform across the warp "
                          "(affine analysis): @%p1 bra $L__BB0_2; [divergent-branch, possible]\n") != NULL, "%s", out);
    free(out);
    char *j[] = {BIN, "check", "--format", "json", g, NULL};
    cr_expect_eq(run(j, &out), 0);
    json_t *root = json_loads(out, 0, NULL);
    cr_assert_not_null(root, "%s", out);
    json_t *fs = json_object_get(root, "findings");
    cr_assert_gt(json_array_size(fs), 0);
    size_t i;
    json_t *f;
    json_array_foreach(fs, i, f) {
        cr_expect_str_eq(json_string_value(json_object_get(f, "certainty")), "possible");
        cr_expect(json_is_string(json_object_get(f, "depends_on")));
    }
    json_t *sum = json_object_get(root, "summary");
    cr_expect_eq(json_integer_value(json_object_get(sum, "proven")), 0);
    cr_expect_eq(json_integer_value(json_object_get(sum, "possible")), (json_int_t)json_array_size(fs));
    json_decref(root);
    free(out);
    /* SARIF: proven of a --fail-on rule is an error, of another rule a warning, possible a note */
    char *s[] = {BIN, "check", "--format", "sarif", "--fail-on", "uncoalesced", "--enable", "divergent-branch", st, NULL};
    cr_expect_eq(run(s, &out), 1);
    root = json_loads(out, 0, NULL);
    cr_assert_not_null(root, "%s", out);
    json_t *res = json_object_get(json_array_get(json_object_get(root, "runs"), 0), "results");
    bool seen[3] = {false, false, false};
    json_array_foreach(res, i, f) {
        const char *lvl = json_string_value(json_object_get(f, "level"));
        const char *cert = json_string_value(json_object_get(json_object_get(f, "properties"), "certainty"));
        const char *rule = json_string_value(json_object_get(f, "ruleId"));
        cr_assert(lvl && cert && rule);
        int k = !strcmp(cert, "possible") ? 2 : !strcmp(rule, "uncoalesced") ? 0 : 1;
        const char *want[3] = {"error", "warning", "note"};
        cr_expect_str_eq(lvl, want[k], "%s %s", rule, cert);
        seen[k] = true;
    }
    cr_expect(seen[0] && seen[1] && seen[2], "%d %d %d", seen[0], seen[1], seen[2]);
    json_decref(root);
    free(out);
}

/* `threadIdx.x == 0` splits warp 0 of every block, as a 32-thread tile's
 * `thread_rank() == 0` (tid.x & 31) splits every warp: both proven (issue
 * 38); `threadIdx.x == n` depends on n.  At 1x64 tid.x is 0 in every
 * thread: no finding; at 16x16 warp 0 holds tid.x 0..15 twice: still split.
 * The emulator's check holds each claim (run --check-divergence). */
Test(check, thread_index_tests_are_proven_alike)
{
    char p[4096];
    snprintf(p, sizeof p, "%s", tu_src("tests/data/branch_certainty.ptx"));
    char *out;
    char *a[] = {BIN, "check", "--enable", "divergent-branch", "--fail-on", "none", p, NULL};
    cr_expect_eq(run(a, &out), 0);
    cr_expect(strstr(out, "branch_certainty.ptx:19:2: warning: divergent branch: its condition differs between the "
                          "lanes of a warp: @%p1 bra $L__BB0_2; [divergent-branch]\n") != NULL, "%s", out);
    cr_expect(strstr(out, "branch_certainty.ptx:24:2: warning: divergent branch: its condition differs between the "
                          "lanes of a warp: @%p2 bra $L__BB0_4; [divergent-branch]\n") != NULL, "%s", out);
    cr_expect(strstr(out, "branch_certainty.ptx:28:2: warning: possible: branch not proven uniform across the warp "
                          "(affine analysis): @%p3 bra $L__BB0_6; [divergent-branch, possible]\n") != NULL, "%s", out);
    cr_expect(strstr(out, "divergent-branch 3, divergent-barrier 0, divergent-collective 0; 2 proven, 1 possible)") != NULL,
              "%s", out);
    free(out);
    char *b[] = {BIN, "check", "--enable", "divergent-branch", "--fail-on", "none", "--block", "1,64", p, NULL};
    cr_expect_eq(run(b, &out), 0);
    cr_expect(strstr(out, "divergent-branch 0, divergent-barrier 0, divergent-collective 0; 0 proven, 0 possible)") !=
                  NULL,
              "%s", out);
    free(out);
    char *c[] = {BIN, "check", "--enable", "divergent-branch", "--fail-on", "none", "--block", "16,16", p, NULL};
    cr_expect_eq(run(c, &out), 0);
    cr_expect(strstr(out, "divergent-branch 3, divergent-barrier 0, divergent-collective 0; 2 proven, 1 possible)") != NULL,
              "%s", out);
    free(out);
    char *r[] = {BIN, "run", p, "--kernel", "branches", "--grid", "2", "--block", "64", "--arg", "buf:u32:4",
                 "--arg", "u32:7", "--check-divergence", "-q", NULL};
    cr_expect_eq(run(r, &out), 0);
    cr_expect(strstr(out, "0 claims violated") != NULL, "%s", out);
    /* warps 0 and 1 for the tile's test, warp 0 for threadIdx.x == 0, both blocks */
    cr_expect(strstr(out, "; checked 6 divergent-branch claims in warps that ran them whole\n") != NULL, "%s", out);
    free(out);
}

Test(check, sarif_2_1_0)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", tu_src("tests/data/coalescing"));
    char *out;
    char *a[] = {BIN, "check", "--format", "sarif", "--enable", "divergent-branch", dir, NULL};
    cr_assert_eq(run(a, &out), 1);
    json_t *j = json_loads(out, 0, NULL);
    cr_assert_not_null(j);
    cr_expect_str_eq(json_string_value(json_object_get(j, "version")), "2.1.0");
    json_t *runs = json_object_get(j, "runs");
    cr_assert_eq(json_array_size(runs), 1);
    json_t *rules = json_object_get(json_object_get(json_object_get(json_array_get(runs, 0), "tool"), "driver"), "rules");
    cr_assert_eq(json_array_size(rules), 7);
    const char *ids[7] = {"uncoalesced",      "misaligned",        "bank-conflict",       "bank-conflict-unknown",
                          "divergent-branch", "divergent-barrier", "divergent-collective"};
    for (size_t i = 0; i < 7; i++)
        cr_expect_str_eq(json_string_value(json_object_get(json_array_get(rules, i), "id")), ids[i]);
    json_t *res = json_object_get(json_array_get(runs, 0), "results");
    cr_assert_gt(json_array_size(res), 20);
    size_t i;
    json_t *r;
    bool seen[5] = {false};
    json_array_foreach(res, i, r) {
        json_int_t ri = json_integer_value(json_object_get(r, "ruleIndex"));
        cr_assert(ri >= 0 && ri < 5);
        seen[ri] = true;
        cr_expect_str_eq(json_string_value(json_object_get(r, "ruleId")), ids[ri]);
        const char *fp = json_string_value(json_object_get(json_object_get(r, "partialFingerprints"),
                                                           "ptxrayFingerprint/v2"));
        cr_expect(fp && strlen(fp) == 16);
    }
    /* check reports findings only: no bank-conflict-unknown notes */
    for (int k = 0; k < 5; k++)
        if (k != 3) cr_expect(seen[k], "no %s result", ids[k]);
    cr_expect(!seen[3], "a note among check's results");
    json_decref(j);
    free(out);
    char args[4200];
    snprintf(args, sizeof args, "check --format sarif --enable divergent-branch %s", dir);
    tu_expect_sarif_schema(args);
}

Test(check, write_baseline_is_atomic_and_skipped_on_errors)
{
    tmp t;
    tmp_init(&t);
    put(tmp_path(&t, "bad.ptx"), "garbage\n");
    put_kernel(tmp_path(&t, "k.ptx"), "", "", 8, "");
    char *out;
    char *a[] = {BIN, "check", "--write-baseline", (char *)tmp_path(&t, "base.txt"), t.dir, NULL};
    cr_expect_eq(run(a, &out), 2);
    cr_expect_neq(access(tmp_path(&t, "base.txt"), F_OK), 0, "a baseline was written despite a bad file");
    free(out);
    tmp_free(&t);
}

/* ---- analyze ----------------------------------------------------------- */

Test(check_analyze, ptx_report)
{
    tmp t;
    tmp_init(&t);
    const char *k = tmp_path(&t, "k.ptx");
    put_kernel(k, "", "", 8, new_access);
    char *out;
    char *a[] = {BIN, "analyze", (char *)k, NULL};
    setenv("PTXAS", "/nonexistent/ptxas", 1); /* ptxas's figures: tests/test_analyze.c */
    int rc = run(a, &out);
    unsetenv("PTXAS");
    cr_assert_eq(rc, 0);
    char want[4096];
    snprintf(want, sizeof want,
             "ptxray analyze: %s\n"
             "assumed: warps of 32 consecutive threads; 32-byte sectors; allocations 256-byte aligned; no index "
             "wraparound\n"
             "ptxas: not run (ptxas not found)\n"
             "summary: 1 function in 1 group; ranked by proven cost, then possible cost; findings as "
             "proven/possible\n"
             "  template or function  instances  uncoalesced  misaligned  bank-conflict  divergent-branch  "
             "proven cost  possible cost\n"
             "  strided                       -          2/0           -              -                 -  "
             "         12              0\n"
             "\n== kernel strided ==\n"
             "block: unknown; assumed blockDim.x is a multiple of 32\n"
             "values: 13; uniform 30.8%%, affine 53.8%%, divergent 15.4%% (affine analysis, degree 2)\n"
             "branches: 0 conditional, 0 not proven uniform\n"
             /* rd3, rd4, r1, f1 and rd7 before the store's address: 2 + 2 + 1 + 1 + 2 */
             "register pressure: at most 8 32-bit registers and 0 predicates live (64-bit registers count 2); "
             "peak at PTX line 20 (k.cu:5)\n"
             "findings by cost (2):\n"
             "  1. [uncoalesced, proven] k.cu:7:3, PTX line 26, cost 8\n"
             "     uncoalesced global load: lanes 12 B apart, 12 sectors/request, ideal 4\n"
             "  2. [uncoalesced, proven] k.cu:5:3, PTX line 18, cost 4\n"
             "     uncoalesced global load: lanes 8 B apart, 8 sectors/request, ideal 4\n",
             k);
    cr_expect_str_eq(out, want);
    free(out);
    char *b[] = {BIN, "analyze", "--kernel", "nope", (char *)k, NULL};
    cr_expect_eq(run(b, &out), 2);
    free(out);
    tmp_free(&t);
}

Test(check_analyze, loops_first)
{
    char path[4096];
    snprintf(path, sizeof path, "%s", tu_src("ptx-corpus/sm_80/gaussian_fan.ptx"));
    char *out;
    char *a[] = {BIN, "analyze", "--kernel", "Fan2", path, NULL};
    cr_assert_eq(run(a, &out), 0);
    cr_expect(strstr(out, "\n== kernel Fan2 ==\n") && !strstr(out, "== kernel Fan1 =="), "%s", out);
    /* the costliest: an access in the loop (its excess times 10) */
    const char *first = strstr(out, "  1. [uncoalesced"), *branch = strstr(out, "[divergent-branch");
    cr_expect(first && strstr(first, "loop depth 1, cost ") && strstr(first, "loop depth 1, cost ") < strchr(first, '\n'),
              "%s", out);
    cr_expect(branch && branch > first, "%s", out);
    free(out);
}

static bool have_nvcc(void) { return access("/usr/local/cuda/bin/nvcc", X_OK) == 0; }

Test(check_analyze, cuda_source, .timeout = 300)
{
    if (!have_nvcc()) cr_skip("no /usr/local/cuda/bin/nvcc");
    char path[4096];
    snprintf(path, sizeof path, "%s", tu_src("tests/data/coalescing/misaligned.cu"));
    char *out, *err;
    char *a[] = {BIN, "analyze", "--arch", "sm_80", path, NULL};
    cr_assert_eq(tu_run(a, &out, &err), 0, "%s", err);
    char head[4200];
    snprintf(head, sizeof head, "ptxray analyze: %s\n", path);
    cr_expect(!strncmp(out, head, strlen(head)), "%s", out);
    cr_expect(strstr(out, "\n== kernel shifted ==\n") != NULL, "%s", out);
    cr_expect(strstr(out, "[misaligned, proven] ") != NULL && strstr(out, "misaligned.cu:6:") != NULL, "%s", out);
    free(out);
    free(err);
    tmp t;
    tmp_init(&t);
    put(tmp_path(&t, "broken.cu"), "__global__ void k() { this is not C++; }\n");
    char *b[] = {BIN, "analyze", (char *)tmp_path(&t, "broken.cu"), NULL};
    cr_expect_eq(tu_run(b, &out, &err), 2);
    cr_expect(strstr(err, "broken.cu") && strstr(err, "error") && strstr(err, "nvcc failed"), "%s", err);
    cr_expect_str_eq(out, "");
    free(out);
    free(err);
    tmp_free(&t);
}
