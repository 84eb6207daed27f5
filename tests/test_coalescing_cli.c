/* `ptxray coalescing` as a user runs it: exit statuses, errors, the text,
 * JSON and SARIF reports, determinism, and the golden JSON of every sm_80
 * corpus file (tests/golden/coalescing/, regenerated with
 * PTXRAY_REGEN_GOLDEN=1 or `make golden-coalescing`). */
#include <criterion/criterion.h>
#include <glob.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "testutil.h"

#define BIN (char *)tu_bin()

static char *data(const char *name)
{
    static char p[4][4096];
    static int k;
    k = (k + 1) % 4;
    snprintf(p[k], sizeof p[k], "%s", tu_src(name));
    return p[k];
}

static json_t *run_json(char **argv)
{
    char *out, *err;
    cr_assert_eq(tu_run(argv, &out, &err), 0, "%s", err);
    json_error_t je;
    json_t *j = json_loads(out, 0, &je);
    cr_assert_not_null(j, "invalid JSON: %s", je.text);
    free(out);
    free(err);
    return j;
}

Test(coalescing_cli, bad_input_writes_nothing)
{
    char dir[] = "/tmp/ptxray-coalXXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char bad[4200], outp[4200];
    snprintf(bad, sizeof bad, "%s/bad.ptx", dir);
    snprintf(outp, sizeof outp, "%s/out.json", dir);
    FILE *f = fopen(bad, "w");
    fputs(".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\tadd.s32 %r1, ;\n}\n", f);
    fclose(f);
    char *out, *err;
    char *a[] = {BIN, "coalescing", "--format", "json", "-o", outp, bad, NULL};
    cr_expect_eq(tu_run(a, &out, &err), 2);
    char want[4300];
    snprintf(want, sizeof want, "%s:6:", bad);
    cr_expect(strstr(err, want) != NULL, "%s", err);
    cr_expect(strstr(err, "error:") != NULL && strstr(err, "^") != NULL, "%s", err);
    cr_expect_str_eq(out, "");
    cr_expect_neq(access(outp, F_OK), 0, "an output file was written");
    free(out);
    free(err);
    unlink(bad);
    rmdir(dir);
}

Test(coalescing_cli, usage_errors)
{
    char *fig1 = data("tests/data/coalescing/gpudrano_fig1.ptx");
    const char *blocks[] = {"0", "33,33", "1,2,3,4", "x", "32,", "2048"};
    for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++) {
        char *a[] = {BIN, "coalescing", "--block", (char *)blocks[i], fig1, NULL};
        char *err;
        cr_expect_eq(tu_run(a, NULL, &err), 2, "--block %s", blocks[i]);
        char want[64];
        snprintf(want, sizeof want, "ptxray coalescing: --block '%s': ", blocks[i]);
        cr_expect(strstr(err, want) != NULL, "%s", err);
        free(err);
    }
    char *b[] = {BIN, "coalescing", "--format", "xml", fig1, NULL};
    cr_expect_eq(tu_run(b, NULL, NULL), 2);
    char *c[] = {BIN, "coalescing", "--kernel", "nope", fig1, NULL};
    char *err;
    cr_expect_eq(tu_run(c, NULL, &err), 2);
    cr_expect(strstr(err, "no function named 'nope'") != NULL, "%s", err);
    free(err);
    char *d[] = {BIN, "coalescing", NULL};
    cr_expect_eq(tu_run(d, NULL, NULL), 2);
    char *e[] = {BIN, "coalescing", "--help", NULL};
    char *out;
    cr_expect_eq(tu_run(e, &out, NULL), 0);
    cr_expect(strstr(out, "usage: ptxray coalescing FILE") != NULL);
    free(out);
}

/* The keys the issue asks for, with their types, on every access. */
Test(coalescing_cli, json_keys)
{
    char *a[] = {BIN, "coalescing", "--format", "json", data("tests/data/coalescing/bank.ptx"), NULL};
    json_t *j = run_json(a);
    json_t *as = json_object_get(j, "assumptions");
    cr_assert(json_is_object(as));
    cr_expect(json_is_object(json_object_get(as, "block")));
    cr_expect(json_is_string(json_object_get(json_object_get(as, "block"), "origin")));
    cr_expect(json_is_string(json_object_get(as, "alignment")));
    cr_expect(json_is_string(json_object_get(as, "no_wraparound")));
    json_t *ks = json_object_get(j, "kernels");
    cr_assert_eq(json_array_size(ks), 1);
    json_t *k = json_array_get(ks, 0);
    cr_expect_str_eq(json_string_value(json_object_get(k, "name")), "banks");
    json_t *acc = json_object_get(k, "accesses"), *sh = json_object_get(k, "shared_accesses");
    cr_assert_eq(json_array_size(acc), 2);
    cr_assert_eq(json_array_size(sh), 6);
    size_t i;
    json_t *x;
    json_array_foreach(acc, i, x) {
        cr_expect(json_is_integer(json_object_get(x, "ptx_line")));
        json_t *src = json_object_get(x, "src");
        cr_expect(json_is_string(json_object_get(src, "file")));
        cr_expect(json_is_integer(json_object_get(src, "line")));
        cr_expect(json_is_integer(json_object_get(src, "col")));
        cr_expect(json_is_string(json_object_get(x, "opcode")));
        cr_expect_str_eq(json_string_value(json_object_get(x, "space")), "global");
        cr_expect_str_eq(json_string_value(json_object_get(x, "kind")), "store");
        cr_expect(json_is_integer(json_object_get(x, "bytes_per_lane")));
        cr_expect_str_eq(json_string_value(json_object_get(x, "pattern")), "unit_stride");
        cr_expect(json_is_integer(json_object_get(x, "stride_bytes")));
        cr_expect(json_is_integer(json_object_get(x, "sectors_per_request")));
        cr_expect(json_is_integer(json_object_get(x, "ideal_sectors")));
        cr_expect(json_is_false(json_object_get(x, "uncoalesced")));
    }
    /* s[32 * t]: the 32-way conflict */
    json_t *s32 = json_array_get(sh, 3);
    cr_expect_str_eq(json_string_value(json_object_get(s32, "space")), "shared");
    cr_expect_eq(json_integer_value(json_object_get(s32, "bank_conflict_degree")), 32);
    cr_expect_eq(json_integer_value(json_object_get(s32, "stride_bytes")), 128);
    cr_expect(json_is_true(json_object_get(s32, "bank_conflict")));
    cr_expect_str_eq(json_string_value(json_object_get(s32, "finding")), "bank-conflict");
    cr_expect(json_is_null(json_object_get(s32, "sectors_per_request")));
    cr_expect_eq(json_integer_value(json_object_get(json_object_get(k, "summary"), "bank_conflicts")), 2);
    json_decref(j);
}

/* Symbolic strides: stride_bytes and sectors_per_request null, the bound and
 * the stride's name given; --kernel keeps one function; --block is said. */
Test(coalescing_cli, json_symbolic_and_options)
{
    char *a[] = {BIN, "coalescing", "--format", "json", "--kernel", "row_major", "--block", "32,4",
                 data("tests/data/coalescing/widths.ptx"), NULL};
    json_t *j = run_json(a);
    json_t *ks = json_object_get(j, "kernels");
    cr_assert_eq(json_array_size(ks), 1);
    json_t *k = json_array_get(ks, 0);
    json_t *blk = json_object_get(k, "block");
    cr_expect_str_eq(json_string_value(json_object_get(blk, "origin")), "--block");
    cr_expect_eq(json_integer_value(json_array_get(json_object_get(blk, "shape"), 1)), 4);
    json_t *x = json_array_get(json_object_get(k, "accesses"), 0);
    cr_expect_str_eq(json_string_value(json_object_get(x, "pattern")), "symbolic_stride");
    cr_expect(json_is_null(json_object_get(x, "stride_bytes")));
    cr_expect(json_is_null(json_object_get(x, "sectors_per_request")));
    cr_expect_eq(json_integer_value(json_object_get(x, "sectors_per_request_max")), 32);
    cr_expect_eq(json_integer_value(json_object_get(x, "ideal_sectors")), 4);
    /* the parameter as widths.cu (beside the PTX, named by its .file) calls it */
    cr_expect_str_eq(json_string_value(json_object_get(x, "symbolic_stride")), "4·N");
    json_t *pm = json_object_get(x, "param");
    cr_expect_eq(json_integer_value(json_object_get(pm, "index")), 2);
    cr_expect_str_eq(json_string_value(json_object_get(pm, "name")), "N");
    cr_expect(json_is_true(json_object_get(x, "uncoalesced")));
    json_t *h = json_object_get(x, "hint");
    cr_assert(json_is_object(h));
    cr_expect_str_eq(json_string_value(json_object_get(h, "text")),
                     "swap the roles of tid.x and tid.y (GPUDrano's Fan2 fix): along tid.y the lanes' addresses are 4 "
                     "B apart, so the access would touch 4 sectors per request instead of up to 32");
    cr_expect_str_eq(json_string_value(json_object_get(h, "kind")), "swap_xy");
    cr_expect_eq(json_integer_value(json_object_get(h, "predicted_sectors")), 4);
    cr_expect_eq(json_integer_value(json_object_get(h, "current_sectors")), 32);
    json_decref(j);
}

Test(coalescing_cli, text_like_a_compiler)
{
    char *out, *err;
    char *p = data("tests/data/coalescing/gpudrano_fig1.ptx");
    char *a[] = {BIN, "coalescing", p, NULL};
    cr_assert_eq(tu_run(a, &out, &err), 0, "%s", err);
    char want[8192];
    snprintf(want, sizeof want,
             "gpudrano_fig1.cu:7:3: warning: uncoalesced global load: lanes 32 B apart, 32 sectors/request, ideal 4 "
             "[uncoalesced]\n%s:43:2: note: in fig1: ld.global.u32\n%s: 4 global accesses, 1 uncoalesced; 0 shared "
             "accesses, 0 with bank conflicts\n",
             p, p);
    cr_expect(!strncmp(out, want, strlen(want)), "got:\n%s\nwanted:\n%s", out, want);
    free(out);
    free(err);
    char *b[] = {BIN, "coalescing", "--kernel", "Fan2_rodinia", data("tests/data/coalescing/gaussian.ptx"), NULL};
    cr_assert_eq(tu_run(b, &out, &err), 0, "%s", err);
    cr_expect(strstr(out, "gaussian.cu:39:3: note: hint: swap the roles of tid.x and tid.y (GPUDrano's Fan2 fix): along "
                          "tid.y the lanes' addresses are 4 B apart, so the access would touch 4 sectors per request "
                          "instead of up to 32\n") != NULL,
              "%s", out);
    free(out);
    free(err);
    char *c[] = {BIN, "coalescing", data("tests/data/coalescing/misaligned.ptx"), NULL};
    cr_assert_eq(tu_run(c, &out, &err), 0, "%s", err);
    cr_expect(strstr(out, "misaligned.cu:6:3: warning: misaligned global load: lane 0 is 4 B past a 128-byte "
                          "boundary, lanes 4 B apart (unit stride), 5 sectors/request, ideal 4 (4 if aligned) "
                          "[misaligned]\n") != NULL,
              "%s", out);
    free(out);
    free(err);
}

Test(coalescing_cli, deterministic_and_file_equals_stdout)
{
    const char *fmts[] = {"text", "json", "sarif"};
    char dir[] = "/tmp/ptxray-coalXXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char outp[4200];
    snprintf(outp, sizeof outp, "%s/out", dir);
    for (size_t i = 0; i < 3; i++) {
        char *o1, *o2;
        char *a[] = {BIN, "coalescing", "--format", (char *)fmts[i], data("ptx-corpus/sm_80/matmul_tiled.ptx"), NULL};
        cr_assert_eq(tu_run(a, &o1, NULL), 0);
        cr_assert_eq(tu_run(a, &o2, NULL), 0);
        cr_expect_str_eq(o1, o2, "%s differs between runs", fmts[i]);
        char *b[] = {BIN, "coalescing", "--format", (char *)fmts[i], "-o", outp,
                     data("ptx-corpus/sm_80/matmul_tiled.ptx"), NULL};
        char *o3;
        cr_assert_eq(tu_run(b, &o3, NULL), 0);
        cr_expect_str_eq(o3, "");
        char *file = tu_read(outp, NULL);
        cr_expect_str_eq(file, o1);
        free(file);
        free(o1);
        free(o2);
        free(o3);
    }
    unlink(outp);
    rmdir(dir);
}

/* Every property SARIF 2.1.0 requires of what we write, checked here; and,
 * where python3 has jsonschema, the whole log against a schema of the
 * objects we use (tests/data/sarif-2.1.0.schema.json,
 * additionalProperties false as in the official schema). */
Test(coalescing_cli, sarif_2_1_0)
{
    char *p = data("tests/data/coalescing/gaussian.ptx");
    char *a[] = {BIN, "coalescing", "--format", "sarif", p, NULL};
    json_t *j = run_json(a);
    cr_expect_str_eq(json_string_value(json_object_get(j, "version")), "2.1.0");
    json_t *run = json_array_get(json_object_get(j, "runs"), 0);
    json_t *drv = json_object_get(json_object_get(run, "tool"), "driver");
    cr_expect_str_eq(json_string_value(json_object_get(drv, "name")), "ptxray");
    json_t *rules = json_object_get(drv, "rules");
    cr_assert_eq(json_array_size(rules), 4);
    json_t *res = json_object_get(run, "results");
    /* the flagged accesses of tests/coalescing/fan2_*, and (issue 33) the
     * accesses check calls possibly misaligned: lane 0 known modulo 4 B */
    cr_assert_eq(json_array_size(res), 51);
    size_t i;
    json_t *r;
    json_array_foreach(res, i, r) {
        const char *id = json_string_value(json_object_get(r, "ruleId"));
        json_int_t ri = json_integer_value(json_object_get(r, "ruleIndex"));
        cr_assert(id && ri >= 0 && (size_t)ri < json_array_size(rules));
        cr_expect_str_eq(json_string_value(json_object_get(json_array_get(rules, (size_t)ri), "id")), id);
        cr_expect_str_eq(json_string_value(json_object_get(r, "level")),
                         strcmp(id, "bank-conflict-unknown") ? "warning" : "note");
        cr_expect(json_is_string(json_object_get(json_object_get(r, "message"), "text")));
        json_t *locs = json_object_get(r, "locations");
        cr_assert_eq(json_array_size(locs), 1);
        json_t *src = json_object_get(json_array_get(locs, 0), "physicalLocation");
        cr_expect_str_eq(json_string_value(json_object_get(json_object_get(src, "artifactLocation"), "uri")),
                         "gaussian.cu");
        cr_expect_geq(json_integer_value(json_object_get(json_object_get(src, "region"), "startLine")), 1);
        cr_expect_geq(json_integer_value(json_object_get(json_object_get(src, "region"), "startColumn")), 1);
        json_t *ptx = json_object_get(json_array_get(json_object_get(r, "relatedLocations"), 0), "physicalLocation");
        cr_expect(strstr(json_string_value(json_object_get(json_object_get(ptx, "artifactLocation"), "uri")),
                         "tests/data/coalescing/gaussian.ptx") != NULL);
        cr_expect_eq(json_integer_value(json_object_get(json_object_get(ptx, "region"), "startLine")),
                     json_integer_value(json_object_get(json_object_get(r, "properties"), "ptxLine")));
    }
    json_decref(j);
    char args[4200];
    snprintf(args, sizeof args, "coalescing --format sarif %s", p);
    tu_expect_sarif_schema(args);
}

/* One JSON report per sm_80 corpus file, reviewed by hand when it changes. */
Test(coalescing_golden, corpus_sm80, .timeout = 600)
{
    cr_assert_eq(chdir(tu_src(".")), 0);
    size_t n;
    char **files = tu_list_ptx("ptx-corpus/sm_80", &n);
    cr_assert_geq(n, 40);
    bool regen = getenv("PTXRAY_REGEN_GOLDEN") && !strcmp(getenv("PTXRAY_REGEN_GOLDEN"), "1");
    for (size_t i = 0; i < n; i++) {
        const char *base = strrchr(files[i], '/') + 1;
        char golden[4096];
        snprintf(golden, sizeof golden, "tests/golden/coalescing/%.*s.json", (int)(strlen(base) - 4), base);
        char *a[] = {BIN, "coalescing", "--format", "json", files[i], NULL};
        char *out, *err;
        cr_assert_eq(tu_run(a, &out, &err), 0, "%s: %s", files[i], err);
        if (regen) {
            FILE *f = fopen(golden, "w");
            cr_assert_not_null(f, "%s", golden);
            fputs(out, f);
            fclose(f);
        } else {
            char *want = tu_read(golden, NULL);
            cr_expect_not_null(want, "%s missing (PTXRAY_REGEN_GOLDEN=1 writes it)", golden);
            if (want) cr_expect(!strcmp(out, want), "%s differs from %s", files[i], golden);
            free(want);
        }
        free(out);
        free(err);
    }
    tu_free_list(files, n);
}

/* A shared access whose bank conflicts cannot be analysed (s[t ^ k]) is a
 * note in every format, never dropped; the lane-exact 4-way conflict of
 * tile[c % 64][c / 64] is a finding. */
Test(coalescing_cli, bank_unknown_note)
{
    char *p = data("tests/data/coalescing/lane_exact.ptx");
    char *a[] = {BIN, "coalescing", "--format", "json", p, NULL};
    json_t *j = run_json(a);
    json_t *ks = json_object_get(j, "kernels");
    size_t i;
    json_t *k;
    int seen = 0;
    json_array_foreach(ks, i, k) {
        const char *name = json_string_value(json_object_get(k, "name"));
        json_t *s = json_array_get(json_object_get(k, "shared_accesses"), 0);
        if (!strcmp(name, "xor_shared")) {
            s = json_array_get(json_object_get(k, "shared_accesses"), 1);
            seen++;
            cr_expect(json_is_false(json_object_get(s, "bank_conflict_analysed")));
            cr_expect(json_is_null(json_object_get(s, "bank_conflict_degree")));
            cr_expect(json_is_null(json_object_get(s, "finding")));
            cr_expect_str_eq(json_string_value(json_object_get(s, "message")),
                             "bank conflicts not analysed in shared load: address not affine in the thread index");
            cr_expect_eq(json_integer_value(json_object_get(json_object_get(k, "summary"), "bank_conflicts_not_analysed")), 1);
        } else if (!strcmp(name, "tile_col")) {
            seen++;
            cr_expect(json_is_true(json_object_get(s, "bank_conflict_analysed")));
            cr_expect_eq(json_integer_value(json_object_get(s, "bank_conflict_degree")), 4);
            cr_expect_str_eq(json_string_value(json_object_get(s, "finding")), "bank-conflict");
        }
    }
    cr_expect_eq(seen, 2);
    cr_expect_eq(json_integer_value(json_object_get(json_object_get(j, "summary"), "bank_conflicts_not_analysed")), 1);
    json_decref(j);
    char *b[] = {BIN, "coalescing", p, NULL};
    char *out = NULL, *err = NULL;
    cr_assert_eq(tu_run(b, &out, &err), 0, "%s", err);
    cr_expect(strstr(out, "lane_exact.ptx:193:2: note: bank conflicts not analysed in shared load: address not affine "
                          "in the thread index [bank-conflict-unknown]\n"), "%s", out);
    cr_expect(strstr(out, "3 shared accesses, 1 with bank conflicts (1 not analysed)\n"), "%s", out);
    free(out);
    free(err);
    char *c[] = {BIN, "coalescing", "--format", "sarif", p, NULL};
    j = run_json(c);
    json_t *res = json_object_get(json_array_get(json_object_get(j, "runs"), 0), "results");
    /* the bank conflict, the note, and (issue 33) three accesses whose
     * groups of lanes or window may straddle a sector: possibly misaligned */
    cr_assert_eq(json_array_size(res), 5);
    cr_expect_str_eq(json_string_value(json_object_get(json_array_get(res, 2), "ruleId")), "bank-conflict");
    cr_expect_str_eq(json_string_value(json_object_get(json_array_get(res, 3), "ruleId")), "bank-conflict-unknown");
    cr_expect_str_eq(json_string_value(json_object_get(json_array_get(res, 3), "level")), "note");
    for (size_t i = 0; i < 5; i++)
        if (i != 2 && i != 3)
            cr_expect_str_eq(json_string_value(json_object_get(json_array_get(res, i), "ruleId")), "misaligned");
    json_decref(j);
}

/* ---- hints are improvements (issue 19 item 3) --------------------------------- */

/* Sectors of a full warp whose lanes are `stride` bytes apart, `bytes` each,
 * lane 0 on a 128-byte boundary: the remapped access, recounted here
 * independently of the model. */
static int64_t sectors_of_stride(int64_t stride, int64_t bytes)
{
    int64_t ids[32 * 3];
    size_t n = 0;
    for (int64_t l = 0; l < 32; l++) {
        int64_t a = l * stride, b = a + (bytes ? bytes : 1) - 1;
        int64_t ua = a >= 0 ? a / 32 : -((-a + 31) / 32), ub = b >= 0 ? b / 32 : -((-b + 31) / 32);
        for (int64_t u = ua; u <= ub && n < sizeof ids / sizeof ids[0]; u++) ids[n++] = u;
    }
    int64_t distinct = 0;
    for (size_t i = 0; i < n; i++) {
        bool seen = false;
        for (size_t k = 0; k < i && !seen; k++) seen = ids[k] == ids[i];
        distinct += !seen;
    }
    return distinct;
}

/* Every hint of one report: an object whose predicted sectors are strictly
 * below the access's current sectors (exact, else the bound), equal to the
 * sectors of the remapped address, and said in its text.  The number of
 * hints. */
static unsigned check_hints(const char *path, const char *block)
{
    char *a[] = {BIN, "coalescing", "--format", "json", (char *)path, NULL, NULL, NULL};
    if (block) a[4] = "--block", a[5] = (char *)block, a[6] = (char *)path;
    json_t *j = run_json(a);
    unsigned n = 0;
    size_t i, k;
    json_t *kn, *x;
    json_array_foreach(json_object_get(j, "kernels"), i, kn) {
        json_array_foreach(json_object_get(kn, "shared_accesses"), k, x)
            cr_expect(json_is_null(json_object_get(x, "hint")), "%s: a shared access with a hint", path);
        json_array_foreach(json_object_get(kn, "accesses"), k, x) {
            json_t *h = json_object_get(x, "hint");
            if (json_is_null(h)) continue;
            n++;
            json_int_t line = json_integer_value(json_object_get(x, "ptx_line"));
            cr_assert(json_is_object(h), "%s:%lld: hint not an object", path, (long long)line);
            const char *kind = json_string_value(json_object_get(h, "kind")), *text = json_string_value(json_object_get(h, "text"));
            cr_assert(kind && text, "%s:%lld", path, (long long)line);
            json_int_t pred = json_integer_value(json_object_get(h, "predicted_sectors"));
            json_int_t cur = json_integer_value(json_object_get(h, "current_sectors"));
            json_t *sec = json_object_get(x, "sectors_per_request");
            json_int_t now = json_is_integer(sec) ? json_integer_value(sec)
                                                  : json_integer_value(json_object_get(x, "sectors_per_request_max"));
            cr_expect_eq(cur, now, "%s:%lld: current %lld, access %lld", path, (long long)line, (long long)cur,
                         (long long)now);
            cr_expect_lt(pred, cur, "%s:%lld: predicted %lld not below current %lld: %s", path, (long long)line,
                         (long long)pred, (long long)cur, text);
            cr_expect(json_is_true(json_object_get(x, "uncoalesced")), "%s:%lld", path, (long long)line);
            /* the remapped address: lanes tid.y's stride apart, or the loop's step */
            json_t *stride = !strcmp(kind, "swap_xy") ? json_object_get(json_object_get(x, "strides"), "tid.y")
                             : !strcmp(kind, "loop_to_lanes") ? json_object_get(x, "loop_step_bytes")
                                                              : NULL;
            cr_assert(json_is_integer(stride), "%s:%lld: kind %s without its stride", path, (long long)line, kind);
            int64_t want = sectors_of_stride(json_integer_value(stride), json_integer_value(json_object_get(x, "bytes_per_lane")));
            cr_expect_eq(pred, want, "%s:%lld: predicted %lld, recounted %lld", path, (long long)line, (long long)pred,
                         (long long)want);
            const char *what = !strcmp(kind, "swap_xy") ? "swap_xy_sectors" : "loop_to_lanes_sectors";
            cr_expect_eq(json_integer_value(json_object_get(x, what)), pred, "%s:%lld", path, (long long)line);
            char said[96];
            snprintf(said, sizeof said, "would touch %lld sectors per request instead of %s%lld", (long long)pred,
                     json_is_integer(sec) ? "" : "up to ", (long long)cur);
            cr_expect(strstr(text, said) != NULL, "%s:%lld: %s", path, (long long)line, text);
        }
    }
    json_decref(j);
    return n;
}

Test(coalescing_cli, hints_are_improvements, .timeout = 600)
{
    cr_assert_eq(chdir(tu_src(".")), 0);
    glob_t g;
    cr_assert_eq(glob("ptx-corpus/*/*.ptx", 0, NULL, &g), 0);
    cr_assert_geq(g.gl_pathc, 100);
    unsigned def = 0, b256 = 0;
    for (size_t i = 0; i < g.gl_pathc; i++) {
        def += check_hints(g.gl_pathv[i], NULL);
        b256 += check_hints(g.gl_pathv[i], "256");
    }
    globfree(&g);
    /* both remappings occur, at both shapes */
    cr_expect_geq(def, 100, "%u hints at the default shape", def);
    cr_expect_geq(b256, 100, "%u hints at --block 256", b256);
}

/* The warp-per-row loops move 128 B (512 B unrolled) per iteration: giving
 * their iterations to neighbouring threads would widen the lanes' stride,
 * so no hint; Fan2's M[xt] moves 4 B: 4 sectors instead of up to 32. */
Test(coalescing_cli, loop_hint_only_when_narrower)
{
    char *out, *err;
    char *a[] = {BIN, "coalescing", data("ptx-corpus/sm_80/spmv_warp_row.ptx"), NULL};
    cr_assert_eq(tu_run(a, &out, &err), 0, "%s", err);
    cr_expect(strstr(out, "uncoalesced global load") != NULL, "%s", out);
    cr_expect(strstr(out, "hint:") == NULL, "%s", out);
    free(out);
    free(err);
    char *b[] = {BIN, "coalescing", "--kernel", "Fan2", data("ptx-corpus/sm_80/gaussian_fan.ptx"), NULL};
    cr_assert_eq(tu_run(b, &out, &err), 0, "%s", err);
    cr_expect(strstr(out, "src/gaussian_fan.cu:31:5: note: hint: give the iterations of the loop at "
                          "src/gaussian_fan.cu:27 to neighbouring threads (GPUDrano's Fan2 fix): the address moves 4 B "
                          "per iteration, so lanes 4 B apart would touch 4 sectors per request instead of up to 32\n"),
              "%s", out);
    free(out);
    free(err);
}

/* ---- shared atomics and symbolic shared strides (issue 19 item 4) ------------- */

#define SB "tests/data/coalescing/shared_banks.ptx"
#define COND32(v)                                                                                                    \
    "32-way when `" v "` is a multiple of 32, 16-way when it is 16 times an odd number, 8-way when it is 8 times an " \
    "odd number, 4-way when it is 4 times an odd number, 2-way when it is 2 times an odd number, conflict-free when " \
    "it is odd"

Test(coalescing_cli, bank_atomics_and_conditions_text)
{
    char *out, *err;
    char *p = data(SB);
    char *a[] = {BIN, "coalescing", p, NULL};
    cr_assert_eq(tu_run(a, &out, &err), 0, "%s", err);
    static const char *const want[] = {
        ":23:2: warning: 32-way bank conflict in shared atomic: all lanes at one address, 32 wavefronts, ideal 1 "
        "(atomics on one word serialise) [bank-conflict]\n",
        ":52:2: warning: 2-way bank conflict in shared atomic: no single stride, 2 wavefronts, ideal 1 (atomics on "
        "one word serialise) [bank-conflict]\n",
        ":56:2: warning: 2-way bank conflict in shared atomic: lanes 8 B apart, 2 wavefronts, ideal 1 [bank-conflict]\n",
        ":84:2: warning: 32-way bank conflict in shared atomic: lanes 128 B apart, 32 wavefronts, ideal 1 "
        "[bank-conflict]\n",
        ":84:2: note: in atom_generic: atom.add.u32\n",
        ":112:2: note: bank conflicts not analysed in shared atomic: address depends on a value loaded at PTX line 108 "
        "[bank-conflict-unknown]\n",
        ":137:2: warning: up to 32-way bank conflict in shared load: lanes 4·(param 1 of sym_stride) B apart (stride from "
        "tid.x·(param 1 of sym_stride)); " COND32("param 1 of sym_stride") " [bank-conflict, possible]\n",
        ":140:2: warning: up to 16-way bank conflict in shared load: lanes 8·(param 1 of sym_stride) B apart (stride from "
        "tid.x·(param 1 of sym_stride)); 16-way when `param 1 of sym_stride` is a multiple of 16, 8-way when it is 8 times an "
        "odd number, 4-way when it is 4 times an odd number, 2-way when it is 2 times an odd number, conflict-free "
        "when it is odd [bank-conflict, possible]\n",
        ":141:2: warning: up to 32-way bank conflict in shared atomic: lanes 4·(param 1 of sym_stride) B apart (stride from "
        "tid.x·(param 1 of sym_stride)); " COND32("param 1 of sym_stride") " [bank-conflict, possible]\n",
        ":172:2: warning: up to 2-way bank conflict in shared load: lanes 4·(param 1 of sym_rows) B apart (stride from "
        "tid.y·(param 1 of sym_rows)); 2-way when `param 1 of sym_rows` is a multiple of 32, conflict-free when it is 16 "
        "times an odd number, 2-way when it is not a multiple of 16 [bank-conflict, possible]\n",
        ": 6 global accesses, 0 uncoalesced; 12 shared accesses, 8 with bank conflicts (1 not analysed)\n",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        char line[1024];
        snprintf(line, sizeof line, "%s%s", p, want[i]);
        cr_expect(strstr(out, line) != NULL, "missing:\n%s\nin:\n%s", line, out);
    }
    /* the loads of the atomics' words: a broadcast, no conflict */
    cr_expect(strstr(out, ":26:2:") == NULL && strstr(out, ":53:2:") == NULL, "%s", out);
    free(out);
    free(err);
}

Test(coalescing_cli, bank_atomics_and_conditions_json_sarif)
{
    char *p = data(SB);
    char *a[] = {BIN, "coalescing", "--format", "json", "--kernel", "sym_stride", p, NULL};
    json_t *j = run_json(a);
    json_t *k = json_array_get(json_object_get(j, "kernels"), 0);
    json_t *sh = json_object_get(k, "shared_accesses");
    cr_assert_eq(json_array_size(sh), 3);
    static const int by_tz[3][8] = {
        {1, 2, 4, 8, 16, 32, 32, 32}, {1, 2, 4, 8, 16, 16, 16, 16}, {1, 2, 4, 8, 16, 32, 32, 32}};
    static const char *const kinds[3] = {"load", "load", "atomic"};
    for (size_t i = 0; i < 3; i++) {
        json_t *x = json_array_get(sh, i);
        cr_expect_str_eq(json_string_value(json_object_get(x, "kind")), kinds[i]);
        cr_expect(json_is_null(json_object_get(x, "bank_conflict_degree")), "access %zu", i);
        cr_expect_eq(json_integer_value(json_object_get(x, "bank_conflict_degree_max")), by_tz[i][7], "access %zu", i);
        cr_expect(json_is_null(json_object_get(x, "wavefronts")));
        cr_expect_eq(json_integer_value(json_object_get(x, "ideal_wavefronts")), i == 1 ? 2 : 1);
        cr_expect(json_is_true(json_object_get(x, "bank_conflict")));
        cr_expect(json_is_true(json_object_get(x, "bank_conflict_analysed")));
        cr_expect_str_eq(json_string_value(json_object_get(x, "finding")), "bank-conflict");
        json_t *c = json_object_get(x, "bank_conflict_condition");
        cr_assert(json_is_object(c), "access %zu", i);
        cr_expect_str_eq(json_string_value(json_object_get(c, "value")), "param 1 of sym_stride");
        json_t *by = json_object_get(c, "degree_by_trailing_zeros");
        cr_assert_eq(json_array_size(by), 8);
        for (size_t t = 0; t < 8; t++)
            cr_expect_eq(json_integer_value(json_array_get(by, t)), by_tz[i][t], "access %zu, class %zu", i, t);
        const char *text = json_string_value(json_object_get(c, "text"));
        cr_expect(strstr(json_string_value(json_object_get(x, "message")), text) != NULL);
    }
    cr_expect_str_eq(json_string_value(json_object_get(json_object_get(json_array_get(sh, 0), "bank_conflict_condition"),
                                                       "text")),
                     COND32("param 1 of sym_stride"));
    cr_expect_eq(json_integer_value(json_object_get(json_object_get(k, "summary"), "bank_conflicts")), 3);
    cr_expect_eq(json_integer_value(json_object_get(json_object_get(k, "summary"), "bank_conflicts_not_analysed")), 0);
    json_decref(j);
    /* an exact degree has no condition; a generic atomic is shared by provenance */
    char *b[] = {BIN, "coalescing", "--format", "json", "--kernel", "atom_generic", p, NULL};
    j = run_json(b);
    json_t *x = json_array_get(json_object_get(json_array_get(json_object_get(j, "kernels"), 0), "shared_accesses"), 0);
    cr_expect_str_eq(json_string_value(json_object_get(x, "opcode")), "atom.add.u32");
    cr_expect_str_eq(json_string_value(json_object_get(x, "space_from")), "shared");
    cr_expect_str_eq(json_string_value(json_object_get(x, "kind")), "atomic");
    cr_expect_eq(json_integer_value(json_object_get(x, "bank_conflict_degree")), 32);
    cr_expect_eq(json_integer_value(json_object_get(x, "bank_conflict_degree_max")), 32);
    cr_expect(json_is_null(json_object_get(x, "bank_conflict_condition")));
    json_decref(j);
    /* SARIF: the condition in the message, the bound in the properties */
    char *c[] = {BIN, "coalescing", "--format", "sarif", "--kernel", "sym_stride", p, NULL};
    j = run_json(c);
    json_t *res = json_object_get(json_array_get(json_object_get(j, "runs"), 0), "results");
    cr_assert_eq(json_array_size(res), 3);
    json_t *r = json_array_get(res, 0);
    cr_expect_str_eq(json_string_value(json_object_get(r, "ruleId")), "bank-conflict");
    cr_expect_str_eq(json_string_value(json_object_get(json_object_get(r, "message"), "text")),
                     "up to 32-way bank conflict in shared load: lanes 4·(param 1 of sym_stride) B apart (stride from "
                     "tid.x·(param 1 of sym_stride)); " COND32("param 1 of sym_stride"));
    json_t *props = json_object_get(r, "properties");
    cr_expect(json_is_null(json_object_get(props, "bankConflictDegree")));
    cr_expect_eq(json_integer_value(json_object_get(props, "bankConflictDegreeMax")), 32);
    json_decref(j);
    char args[4200];
    snprintf(args, sizeof args, "coalescing --format sarif %s", p);
    tu_expect_sarif_schema(args);
}
