/* Parallel batches (report/batch.h): `check -j N` over the whole corpus
 * gives the bytes -j 1 gives in every format, with the exit status and
 * the messages for bad files in the same order; and what it gives is the
 * corpus's report, counted independently (the files, the findings each
 * file has when checked alone). */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "testutil.h"

#define BIN (char *)tu_bin()

typedef struct run {
    int rc;
    char *out, *err;
} run;

static run check_corpus(const char *jobs, const char *format)
{
    char *argv[] = {BIN, "check", "-j", (char *)jobs, "--format", (char *)format, "--enable", "divergent-branch",
                    (char *)tu_src("ptx-corpus"), NULL};
    run r;
    r.rc = tu_run(argv, &r.out, &r.err);
    return r;
}

static void run_free(run *r)
{
    free(r->out);
    free(r->err);
}

/* The findings of one file, checked alone (-j 1). */
static size_t findings_alone(const char *path)
{
    char *argv[] = {BIN, "check", "-j", "1", "--format", "json", "--enable", "divergent-branch", (char *)path, NULL};
    char *err, *out;
    int rc = tu_run(argv, &out, &err);
    cr_assert(rc == 0 || rc == 1, "%s: exit %d: %s", path, rc, err);
    json_error_t je;
    json_t *j = json_loads(out, 0, &je);
    cr_assert_not_null(j, "%s: %s", path, je.text);
    size_t n = json_array_size(json_object_get(j, "findings"));
    json_decref(j);
    free(out);
    free(err);
    return n;
}

static size_t count_str(const char *s, const char *what)
{
    size_t n = 0;
    for (const char *p = s; (p = strstr(p, what)); p += strlen(what)) n++;
    return n;
}

Test(batch, corpus_j1_j4_identical_in_every_format, .timeout = 600)
{
    size_t nfiles;
    char **files = tu_list_ptx(tu_src("ptx-corpus"), &nfiles);
    cr_assert_gt(nfiles, 100);
    size_t njson = 0;
    static const char *const formats[] = {"json", "sarif", "text"};
    for (int f = 0; f < 3; f++) {
        run a = check_corpus("1", formats[f]), b = check_corpus("4", formats[f]);
        /* proven uncoalesced accesses are in the corpus by design: status 1 */
        cr_assert_eq(a.rc, 1, "%s: -j 1 exited %d: %s", formats[f], a.rc, a.err);
        cr_assert_eq(b.rc, a.rc, "%s: -j 4 exited %d, -j 1 %d", formats[f], b.rc, a.rc);
        cr_assert_str_eq(b.err, a.err, "%s: stderr differs", formats[f]);
        cr_assert_str_eq(a.err, "", "%s: %s", formats[f], a.err);
        cr_assert(!strcmp(a.out, b.out), "%s: -j 4's report differs from -j 1's (%zu and %zu bytes)", formats[f],
                  strlen(b.out), strlen(a.out));
        json_error_t je;
        if (!strcmp(formats[f], "json")) {
            json_t *j = json_loads(a.out, 0, &je);
            cr_assert_not_null(j, "%s", je.text);
            json_t *sum = json_object_get(j, "summary"), *fs = json_object_get(j, "findings");
            cr_assert_eq((size_t)json_integer_value(json_object_get(sum, "files")), nfiles);
            cr_assert_eq(json_integer_value(json_object_get(sum, "files_with_errors")), 0);
            njson = json_array_size(fs);
            cr_assert_gt(njson, 500);
            cr_assert_eq((size_t)json_integer_value(json_object_get(sum, "findings")), njson);
            /* every file's findings are those it has alone: a sample of
             * the files, each counted in the run's report */
            for (size_t i = 0; i < nfiles; i += 15) {
                const char *rel = files[i] + strlen(tu_src(""));
                while (*rel == '/') rel++;
                size_t mine = 0;
                for (size_t k = 0; k < njson; k++) {
                    const char *file = json_string_value(json_object_get(json_array_get(fs, k), "file"));
                    cr_assert_not_null(file);
                    mine += strstr(file, rel) && !strcmp(strstr(file, rel), rel);
                }
                cr_assert_eq(mine, findings_alone(files[i]), "%s: %zu findings in the run", files[i], mine);
            }
            json_decref(j);
        } else if (!strcmp(formats[f], "sarif")) {
            json_t *j = json_loads(a.out, 0, &je);
            cr_assert_not_null(j, "%s", je.text);
            json_t *res = json_object_get(json_array_get(json_object_get(j, "runs"), 0), "results");
            cr_assert_eq(json_array_size(res), njson);
            json_decref(j);
        } else {
            /* one headline per finding: "file:line:col: warning: ..." */
            size_t n = count_str(a.out, ": warning: ");
            cr_assert_eq(n, njson);
            char want[64];
            snprintf(want, sizeof want, "ptxray check: %zu files, %zu findings", nfiles, njson);
            cr_assert_not_null(strstr(a.out, want), "no '%s'", want);
        }
        run_free(&a);
        run_free(&b);
    }
    tu_free_list(files, nfiles);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "%s", path);
    fputs(text, f);
    fclose(f);
}

/* Bad files among good ones: the same messages in file order, exit 2,
 * the good files still reported. */
Test(batch, bad_files_reported_in_order, .timeout = 120)
{
    char dir[] = "/tmp/ptxray-batchXXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    size_t nfiles;
    char **files = tu_list_ptx(tu_src("ptx-corpus/sm_80"), &nfiles);
    cr_assert_gt(nfiles, 8);
    char path[512], cmd[1200];
    /* good files named g00.., bad ones b<k>.. between them in name order */
    for (size_t i = 0; i < 8; i++) {
        snprintf(cmd, sizeof cmd, "cp '%s' '%s/g%zu.ptx'", files[i], dir, i);
        cr_assert_eq(system(cmd), 0);
    }
    static const char *const bad[] = {".version 8.0\n.target sm_80\n.entry k() { bogus; }\n", "garbage",
                                      "", ".version 8.0\n.target sm_80\n.entry k( { ret; }\n"};
    for (size_t k = 0; k < 4; k++) {
        snprintf(path, sizeof path, "%s/g%zu_bad.ptx", dir, 2 * k);
        write_file(path, bad[k]);
    }
    char missing[600];
    snprintf(missing, sizeof missing, "%s/zz-missing.ptx", dir);
    char *a1[] = {BIN, "check", "-j", "1", dir, missing, NULL}, *a3[] = {BIN, "check", "-j", "3", dir, missing, NULL};
    char *e1, *e3;
    char *o1 = tu_run_want(a1, 2, &e1), *o3 = tu_run_want(a3, 2, &e3);
    cr_assert_str_eq(o3, o1);
    cr_assert_str_eq(e3, e1);
    cr_assert_not_null(strstr(o1, "ptxray check: 13 files, "), "%s", o1);
    cr_assert_not_null(strstr(o1, ", 5 files with errors"), "%s", o1);
    /* one error per bad file, in name order */
    const char *p = e1;
    for (size_t k = 0; k < 4; k++) {
        snprintf(path, sizeof path, "%s/g%zu_bad.ptx:", dir, 2 * k);
        const char *q = strstr(p, path);
        cr_assert_not_null(q, "no message for %s after the earlier ones: %s", path, e1);
        p = q + strlen(path);
    }
    cr_assert_not_null(strstr(p, "zz-missing.ptx"), "%s", e1);
    free(o1);
    free(o3);
    free(e1);
    free(e3);
    tu_rm_rf(dir);
    tu_free_list(files, nfiles);
}

/* The legal spellings a process remembers across files are per target,
 * suffix included: cvt.rs is for sm_100a, not sm_100f (ptxas 13.0:
 * "Feature '.rs' not supported on .target 'sm_100f'"), whether or not an
 * sm_100a file that uses it came first in the same run. */
Test(batch, spellings_per_target_suffix)
{
    char dir[] = "/tmp/ptxray-batchXXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char a[600], f[600], text[600];
    for (int k = 0; k < 2; k++) {
        snprintf(text, sizeof text,
                 ".version 8.8\n.target sm_100%c\n.address_size 64\n.visible .entry k(.param .u32 a)\n{\n"
                 "\t.reg .b32 %%r<4>;\n\t.reg .f32 %%f<3>;\n\tcvt.rs.f16x2.f32 %%r1, %%f1, %%f2, %%r2;\n\tret;\n}\n",
                 k ? 'f' : 'a');
        snprintf(k ? f : a, sizeof a, "%s/%c.ptx", dir, k ? 'f' : 'a');
        write_file(k ? f : a, text);
    }
    char *argv[] = {BIN, "check", "-j", "1", a, f, NULL}, *err;
    char *out = tu_run_want(argv, 2, &err);
    char want[800];
    snprintf(want, sizeof want, "%s:8:2: error: cvt.rs.f16x2.f32 is not available on .target sm_100f; it needs "
             "sm_100a, sm_103a", f);
    cr_expect_not_null(strstr(err, want), "%s", err);
    cr_expect_null(strstr(err, "/a.ptx:"), "%s", err);
    free(out);
    free(err);
    tu_rm_rf(dir);
}

/* --block KERNEL= names a kernel of the last file only: the workers'
 * --block entries seen are merged (no error), and one of no file is an
 * error at every -j. */
Test(batch, block_names_seen_by_any_worker)
{
    size_t nfiles;
    char **files = tu_list_ptx(tu_src("ptx-corpus/sm_80"), &nfiles);
    cr_assert_gt(nfiles, 4);
    char *last = files[nfiles - 1];
    /* the first kernel of the last file */
    char *text = tu_read(last, NULL), name[256];
    const char *e = strstr(text, ".entry ");
    cr_assert_not_null(e, "%s: no kernel", last);
    e += strlen(".entry ");
    size_t n = strcspn(e, " \t\n(");
    cr_assert(n > 0 && n < sizeof name);
    memcpy(name, e, n);
    name[n] = 0;
    free(text);
    char blk[512];
    snprintf(blk, sizeof blk, "%s=64", name);
    char *dir = (char *)tu_src("ptx-corpus/sm_80");
    char *a[] = {BIN, "check", "-j", "4", "--fail-on", "none", "--block", blk, dir, NULL};
    char *err;
    free(tu_run_want(a, 0, &err));
    cr_assert_str_eq(err, "");
    free(err);
    char *b[] = {BIN, "check", "-j", "4", "--fail-on", "none", "--block", "no_such_kernel_h17=64", dir, NULL};
    free(tu_run_want(b, 2, &err));
    cr_assert_not_null(strstr(err, "no kernel named 'no_such_kernel_h17' in any file"), "%s", err);
    free(err);
    tu_free_list(files, nfiles);
}

Test(batch, bad_job_counts)
{
    static const char *const bad[] = {"0", "-2", "x", "4x", "100000"};
    for (int i = 0; i < 5; i++) {
        char *a[] = {BIN, "check", "-j", (char *)bad[i], (char *)tu_src("ptx-corpus/sm_80"), NULL};
        char *err;
        free(tu_run_want(a, 2, &err));
        char want[64];
        snprintf(want, sizeof want, "ptxray check: -j '%s': expected a number", bad[i]);
        cr_assert_not_null(strstr(err, want), "%s", err);
        free(err);
    }
}

/* divergence --summary -j: the same bytes as -j 1 in text and JSON over
 * the corpus, every file's functions there; the first bad file stops the
 * run at every -j, its message alone printed. */
Test(batch, divergence_summary_j1_j4_identical, .timeout = 600)
{
    size_t nfiles;
    char **files = tu_list_ptx(tu_src("ptx-corpus"), &nfiles);
    char **argv = calloc(nfiles + 10, sizeof *argv);
    cr_assert_not_null(argv);
    static const char *const formats[] = {"json", "text"};
    for (int f = 0; f < 2; f++) {
        char *out[2], *err[2];
        for (int r = 0; r < 2; r++) {
            size_t k = 0;
            argv[k++] = BIN;
            argv[k++] = "divergence";
            argv[k++] = "--summary";
            argv[k++] = "-j";
            argv[k++] = r ? "4" : "1";
            argv[k++] = "--format";
            argv[k++] = (char *)formats[f];
            for (size_t i = 0; i < nfiles; i++) argv[k++] = files[nfiles - 1 - i]; /* sorted by the command */
            argv[k] = NULL;
            out[r] = tu_run_want(argv, 0, &err[r]);
            cr_assert_str_eq(err[r], "");
        }
        cr_assert(!strcmp(out[0], out[1]), "%s: -j 4's summary differs from -j 1's", formats[f]);
        if (!f) {
            json_error_t je;
            json_t *j = json_loads(out[0], 0, &je);
            cr_assert_not_null(j, "%s", je.text);
            json_t *total = json_object_get(j, "total"), *ks = json_object_get(j, "kernels");
            cr_assert_eq((size_t)json_integer_value(json_object_get(total, "files")), nfiles);
            cr_assert_eq((size_t)json_integer_value(json_object_get(total, "functions")), json_array_size(ks));
            cr_assert_gt(json_array_size(ks), nfiles);
            /* the rows in file order: each file's rows together, files sorted */
            const char *prev = "";
            for (size_t i = 0; i < json_array_size(ks); i++) {
                const char *file = json_string_value(json_object_get(json_array_get(ks, i), "file"));
                cr_assert_geq(strcmp(file, prev), 0, "%s after %s", file, prev);
                prev = file;
            }
            json_decref(j);
        }
        for (int r = 0; r < 2; r++) {
            free(out[r]);
            free(err[r]);
        }
    }
    free(argv);
    tu_free_list(files, nfiles);
}

Test(batch, divergence_summary_stops_at_the_first_bad_file)
{
    char dir[] = "/tmp/ptxray-batchXXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    size_t nfiles;
    char **files = tu_list_ptx(tu_src("ptx-corpus/sm_80"), &nfiles);
    char p[8][600];
    for (int i = 0; i < 8; i++) {
        snprintf(p[i], sizeof p[i], "%s/f%d.ptx", dir, i);
        char *text = tu_read(files[i], NULL);
        write_file(p[i], i == 3 || i == 6 ? "garbage" : text);
        free(text);
    }
    char *a1[] = {BIN, "divergence", "--summary", "-j", "1", p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], NULL};
    char *a4[] = {BIN, "divergence", "--summary", "-j", "4", p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], NULL};
    char *e1, *e4;
    char *o1 = tu_run_want(a1, 2, &e1), *o4 = tu_run_want(a4, 2, &e4);
    cr_assert_str_eq(o1, "");
    cr_assert_str_eq(o4, "");
    cr_assert_str_eq(e4, e1);
    cr_assert_not_null(strstr(e1, "f3.ptx:1:1: error:"), "%s", e1);
    cr_assert_null(strstr(e1, "f6.ptx"), "%s", e1);
    free(o1);
    free(o4);
    free(e1);
    free(e4);
    tu_rm_rf(dir);
    tu_free_list(files, nfiles);
}
