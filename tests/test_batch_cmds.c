/* Parallel batches of coalescing, analyze and spillcost (report/batch.c):
 * -j 4 gives the bytes -j 1 gives in every format, with the same status
 * and messages; and what several files give is what each file gives
 * alone, put together (docs/coalescing.md, docs/check.md, docs/spillcost.md,
 * "Several files"), the totals counted from the single-file reports. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "testutil.h"

#define BIN (char *)tu_bin()

typedef struct run {
    int rc;
    char *out, *err;
} run;

static void run_free(run *r)
{
    free(r->out);
    free(r->err);
}

/* ptxray ARGS... FILES... (args NULL-terminated). */
static run run_args(const char *const *args, char **files, size_t n)
{
    size_t na = 0;
    while (args[na]) na++;
    char **argv = calloc(na + n + 2, sizeof *argv);
    cr_assert_not_null(argv);
    argv[0] = BIN;
    for (size_t i = 0; i < na; i++) argv[1 + i] = (char *)args[i];
    for (size_t i = 0; i < n; i++) argv[1 + na + i] = files[i];
    run r;
    r.rc = tu_run(argv, &r.out, &r.err);
    free(argv);
    return r;
}

/* CMD -j J --format F [EXTRA...] FILES... at J = 1 and 4: the same bytes
 * on stdout and stderr and the same status, which is want; -j 1's run. */
static run same_at_1_and_4(const char *cmd, const char *format, const char *extra, char **files, size_t n, int want)
{
    const char *a1[] = {cmd, "-j", "1", "--format", format, extra, NULL};
    const char *a4[] = {cmd, "-j", "4", "--format", format, extra, NULL};
    run r1 = run_args(a1, files, n), r4 = run_args(a4, files, n);
    cr_assert_eq(r1.rc, want, "%s %s -j 1: exit %d: %.2000s", cmd, format, r1.rc, r1.err);
    cr_assert_eq(r4.rc, r1.rc, "%s %s: -j 4 exited %d, -j 1 %d", cmd, format, r4.rc, r1.rc);
    cr_assert_str_eq(r4.err, r1.err, "%s %s: stderr differs", cmd, format);
    cr_assert(!strcmp(r4.out, r1.out), "%s %s: -j 4's report differs from -j 1's (%zu and %zu bytes)", cmd, format,
              strlen(r4.out), strlen(r1.out));
    run_free(&r4);
    return r1;
}

/* CMD --format F [EXTRA] FILE alone: its report (status 0). */
static char *alone(const char *cmd, const char *format, const char *extra, char *file)
{
    const char *a[] = {cmd, "--format", format, extra, NULL};
    run r = run_args(a, &file, 1);
    cr_assert_eq(r.rc, 0, "%s %s alone: exit %d: %s", cmd, file, r.rc, r.err);
    cr_assert_str_eq(r.err, "", "%s %s alone", cmd, file);
    free(r.err);
    return r.out;
}

static json_t *parse(const char *text)
{
    json_error_t je;
    json_t *j = json_loads(text, 0, &je);
    cr_assert_not_null(j, "%s", je.text);
    return j;
}

static json_int_t jint(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    cr_assert(json_is_integer(v), "no integer %s", key);
    return json_integer_value(v);
}

/* The text of many files is each file's text under "== FILE ==", then
 * the totals of their summary lines. */
static void coalescing_text(const char *out, char **files, size_t n)
{
    size_t cap = 1 << 20, len = 0;
    char *want = malloc(cap);
    cr_assert_not_null(want);
    unsigned long tot[6] = {0};
    for (size_t i = 0; i < n; i++) {
        char *t = alone("coalescing", "text", NULL, files[i]);
        /* "PATH: G global accesses, U uncoalesced; S shared accesses, B with bank conflicts[ (K not analysed)][; N
         * generic ...]" */
        char head[1200];
        snprintf(head, sizeof head, "\n%s: ", files[i]);
        /* (the first line when the file has no warnings) */
        const char *s = !strncmp(t, head + 1, strlen(head + 1)) ? t + strlen(head + 1) : NULL;
        if (!s && (s = strstr(t, head))) s += strlen(head);
        cr_assert_not_null(s, "%s: no summary line", files[i]);
        unsigned long v[4];
        cr_assert_eq(sscanf(s, "%lu global accesses, %lu uncoalesced; %lu shared accesses, %lu with bank conflicts", &v[0],
                            &v[1], &v[2], &v[3]),
                     4, "%s: %.200s", files[i], s);
        for (int k = 0; k < 4; k++) tot[k] += v[k];
        const char *eol = strchr(s, '\n'), *p;
        if ((p = strstr(s, " not analysed)")) && p < eol) {
            while (p > s && p[-1] != '(') p--;
            tot[4] += strtoul(p, NULL, 10);
        }
        if ((p = strstr(s, " generic accesses")) && p < eol) {
            while (p > s && p[-1] != ' ') p--;
            tot[5] += strtoul(p, NULL, 10);
        }
        size_t need = strlen(files[i]) + strlen(t) + 16;
        while (len + need + 1024 > cap) {
            cap *= 2;
            want = realloc(want, cap);
            cr_assert_not_null(want);
        }
        len += (size_t)sprintf(want + len, "== %s ==\n%s", files[i], t);
        free(t);
    }
    len += (size_t)sprintf(want + len,
                           "ptxray coalescing: %zu files: %lu global accesses, %lu uncoalesced; %lu shared accesses, "
                           "%lu with bank conflicts",
                           n, tot[0], tot[1], tot[2], tot[3]);
    if (tot[4]) len += (size_t)sprintf(want + len, " (%lu not analysed)", tot[4]);
    if (tot[5]) len += (size_t)sprintf(want + len, "; %lu generic accesses not proven global or shared (not analysed)",
                                       tot[5]);
    sprintf(want + len, "\n");
    cr_assert_gt(tot[1], 100, "the corpus has uncoalesced accesses by design");
    cr_assert(!strcmp(out, want), "the text of %zu files is not their texts alone put together", n);
    free(want);
}

Test(batch_cmds, coalescing_corpus_j1_j4_identical_in_every_format, .timeout = 900)
{
    size_t n;
    char **files = tu_list_ptx(tu_src("ptx-corpus"), &n);
    cr_assert_gt(n, 100);
    /* JSON: a "files" array holding each file's report alone (less the
     * tool and the assumptions, said once), the summary their sums */
    run r = same_at_1_and_4("coalescing", "json", NULL, files, n, 0);
    cr_assert_str_eq(r.err, "");
    json_t *j = parse(r.out), *fs = json_object_get(j, "files"), *sum = json_object_get(j, "summary");
    cr_assert_str_eq(json_string_value(json_object_get(j, "tool")), "ptxray coalescing");
    cr_assert_eq(json_array_size(fs), n);
    static const char *const counts[] = {"global_accesses", "uncoalesced", "shared_accesses", "bank_conflicts",
                                         "bank_conflicts_not_analysed"};
    json_int_t tot[5] = {0}, kernels = 0;
    for (size_t i = 0; i < n; i++) {
        char *t = alone("coalescing", "json", NULL, files[i]);
        json_t *one = parse(t), *mine = json_array_get(fs, i);
        free(t);
        cr_assert_str_eq(json_string_value(json_object_get(mine, "file")), files[i]);
        cr_assert(json_equal(json_object_get(mine, "kernels"), json_object_get(one, "kernels")), "%s", files[i]);
        cr_assert(json_equal(json_object_get(mine, "summary"), json_object_get(one, "summary")), "%s", files[i]);
        cr_assert(json_equal(json_object_get(j, "assumptions"), json_object_get(one, "assumptions")));
        for (int k = 0; k < 5; k++) tot[k] += jint(json_object_get(one, "summary"), counts[k]);
        kernels += (json_int_t)json_array_size(json_object_get(one, "kernels"));
        json_decref(one);
    }
    cr_assert_eq(jint(sum, "files"), (json_int_t)n);
    cr_assert_eq(jint(sum, "files_with_errors"), 0);
    cr_assert_eq(jint(sum, "kernels"), kernels);
    for (int k = 0; k < 5; k++) cr_assert_eq(jint(sum, counts[k]), tot[k], "%s", counts[k]);
    cr_assert_gt(tot[1], 100);
    json_decref(j);
    run_free(&r);
    /* SARIF: one run, every file's results in file order */
    r = same_at_1_and_4("coalescing", "sarif", NULL, files, n, 0);
    j = parse(r.out);
    cr_assert_eq(json_array_size(json_object_get(j, "runs")), 1);
    json_t *res = json_object_get(json_array_get(json_object_get(j, "runs"), 0), "results");
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        char *t = alone("coalescing", "sarif", NULL, files[i]);
        json_t *one = parse(t);
        free(t);
        json_t *mine = json_object_get(json_array_get(json_object_get(one, "runs"), 0), "results");
        for (size_t k = 0; k < json_array_size(mine); k++, at++)
            cr_assert(json_equal(json_array_get(res, at), json_array_get(mine, k)), "%s: result %zu", files[i], k);
        json_decref(one);
    }
    cr_assert_eq(json_array_size(res), at);
    cr_assert_gt(at, 100);
    json_decref(j);
    run_free(&r);
    r = same_at_1_and_4("coalescing", "text", NULL, files, n, 0);
    coalescing_text(r.out, files, n);
    run_free(&r);
    tu_free_list(files, n);
}

/* One file is reported exactly as before: no header, no totals. */
Test(batch_cmds, coalescing_one_file_unchanged)
{
    char *f = (char *)tu_src("ptx-corpus/sm_80/bfs_frontier.ptx");
    const char *a[] = {"coalescing", "-j", "3", NULL};
    run r = run_args(a, &f, 1);
    cr_assert_eq(r.rc, 0);
    cr_assert_neq(strncmp(r.out, "== ", 3), 0, "%s", r.out);
    cr_assert_null(strstr(r.out, "ptxray coalescing: "), "%s", r.out);
    run_free(&r);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "%s", path);
    fputs(text, f);
    fclose(f);
}

/* d/f0.ptx .. d/f7.ptx: corpus files, f2 and f5 bad. */
static void good_and_bad(char *dir, char p[8][600])
{
    size_t nf;
    char **files = tu_list_ptx(tu_src("ptx-corpus/sm_80"), &nf);
    cr_assert_gt(nf, 8);
    for (int i = 0; i < 8; i++) {
        snprintf(p[i], sizeof p[i], "%s/f%d.ptx", dir, i);
        char *text = tu_read(files[i], NULL);
        write_file(p[i], i == 2 ? ".version 8.0\n.target sm_80\n.entry k() { bogus; }\n" : i == 5 ? "garbage" : text);
        free(text);
    }
    tu_free_list(files, nf);
}

/* coalescing and analyze: bad files said in file order at every -j, the
 * others still reported, exit 2; -o writes nothing then. */
static void bad_files(const char *cmd, const char *total)
{
    char dir[] = "/tmp/ptxray-batchcXXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char p[8][600], *pp[8];
    good_and_bad(dir, p);
    for (int i = 0; i < 8; i++) pp[i] = p[i];
    static const char *const formats[] = {"text", "json", "sarif"};
    for (int f = 0; f < 3; f++) {
        run r = same_at_1_and_4(cmd, formats[f], NULL, pp, 8, 2);
        const char *e2 = strstr(r.err, "f2.ptx:"), *e5 = strstr(r.err, "f5.ptx:1:1: error:");
        cr_assert(e2 && e5 && e2 < e5, "%s", r.err);
        for (int i = 0; i < 8; i++) {
            char name[32];
            snprintf(name, sizeof name, "f%d.ptx", i);
            cr_assert_eq(strstr(r.err, name) != NULL, i == 2 || i == 5, "%s: %s", name, r.err);
            /* the good files are in the report, the bad ones not */
            if (!f) cr_assert_eq(strstr(r.out, name) != NULL, i != 2 && i != 5, "%s", name);
        }
        if (!f) cr_assert_not_null(strstr(r.out, total), "%s", r.out);
        if (f == 1) {
            json_t *j = parse(r.out);
            cr_assert_eq(json_array_size(json_object_get(j, "files")), 6);
            cr_assert_eq(jint(json_object_get(j, "summary"), "files"), 8);
            cr_assert_eq(jint(json_object_get(j, "summary"), "files_with_errors"), 2);
            json_decref(j);
        }
        run_free(&r);
    }
    char out[700];
    snprintf(out, sizeof out, "%s/report.txt", dir);
    const char *a[] = {cmd, "-j", "4", "-o", out, NULL};
    run r = run_args(a, pp, 8);
    cr_assert_eq(r.rc, 2);
    cr_assert_eq(access(out, F_OK), -1, "-o was written on exit 2");
    run_free(&r);
    tu_rm_rf(dir);
}

Test(batch_cmds, coalescing_bad_files_in_order, .timeout = 120)
{
    bad_files("coalescing", "ptxray coalescing: 8 files (2 with errors, not analysed): ");
}

Test(batch_cmds, analyze_bad_files_in_order, .timeout = 300)
{
    setenv("PTXAS", "/nonexistent/ptxas", 1);
    bad_files("analyze", "ptxray analyze: 8 files (2 with errors, not analysed): ");
    unsetenv("PTXAS");
}

/* analyze over the corpus (without ptxas: its figures are the next test's):
 * each file's report alone, put together; the totals counted from them. */
Test(batch_cmds, analyze_corpus_j1_j4_identical_in_every_format, .timeout = 900)
{
    setenv("PTXAS", "/nonexistent/ptxas", 1);
    size_t n;
    char **files = tu_list_ptx(tu_src("ptx-corpus"), &n);
    cr_assert_gt(n, 100);
    run r = same_at_1_and_4("analyze", "json", NULL, files, n, 0);
    cr_assert_str_eq(r.err, "");
    json_t *j = parse(r.out), *fs = json_object_get(j, "files");
    cr_assert_eq(json_array_size(fs), n);
    size_t funcs = 0, findings = 0, at = 0;
    run s = same_at_1_and_4("analyze", "sarif", NULL, files, n, 0);
    json_t *sj = parse(s.out);
    json_t *res = json_object_get(json_array_get(json_object_get(sj, "runs"), 0), "results");
    run t = same_at_1_and_4("analyze", "text", NULL, files, n, 0);
    size_t tlen = 0;
    for (size_t i = 0; i < n; i++) {
        char *o = alone("analyze", "json", NULL, files[i]);
        json_t *one = parse(o), *mine = json_array_get(fs, i);
        free(o);
        cr_assert_str_eq(json_string_value(json_object_get(mine, "file")), files[i]);
        cr_assert(json_equal(json_object_get(mine, "kernels"), json_object_get(one, "kernels")), "%s", files[i]);
        cr_assert(json_equal(json_object_get(mine, "ptxas"), json_object_get(one, "ptxas")), "%s", files[i]);
        json_t *k;
        size_t ki;
        json_array_foreach(json_object_get(one, "kernels"), ki, k) findings += json_array_size(json_object_get(k, "findings"));
        funcs += json_array_size(json_object_get(one, "kernels"));
        json_decref(one);
        o = alone("analyze", "sarif", NULL, files[i]);
        one = parse(o);
        free(o);
        json_t *r1 = json_object_get(json_array_get(json_object_get(one, "runs"), 0), "results");
        for (size_t q = 0; q < json_array_size(r1); q++, at++) {
            cr_assert(json_equal(json_array_get(res, at), json_array_get(r1, q)), "%s: result %zu", files[i], q);
        }
        json_decref(one);
        /* the text: each file's report, a blank line between them */
        o = alone("analyze", "text", NULL, files[i]);
        size_t ol = strlen(o);
        if (i) {
            cr_assert_eq(t.out[tlen], '\n', "%s", files[i]);
            tlen++;
        }
        cr_assert(!strncmp(t.out + tlen, o, ol), "%s: its text differs", files[i]);
        tlen += ol;
        free(o);
    }
    cr_assert_eq(json_array_size(res), at);
    cr_assert_eq(jint(json_object_get(j, "summary"), "functions"), (json_int_t)funcs);
    cr_assert_eq(jint(json_object_get(j, "summary"), "findings"), (json_int_t)findings);
    cr_assert_eq(jint(json_object_get(j, "summary"), "files"), (json_int_t)n);
    cr_assert_eq(at, findings);
    cr_assert_gt(findings, 500);
    char want[128];
    snprintf(want, sizeof want, "\nptxray analyze: %zu files: %zu functions, %zu findings\n", n, funcs, findings);
    cr_assert_str_eq(t.out + tlen, want);
    json_decref(j);
    json_decref(sj);
    run_free(&r);
    run_free(&s);
    run_free(&t);
    tu_free_list(files, n);
    unsetenv("PTXAS");
}

/* The smallest files of a corpus directory (ptxas runs on each). */
static char **smallest(const char *dir, size_t k, size_t *n)
{
    size_t nf;
    char **files = tu_list_ptx(tu_src(dir), &nf);
    cr_assert_geq(nf, k);
    /* by size, then name: a selection sort of k */
    long *size = calloc(nf, sizeof *size);
    cr_assert_not_null(size);
    for (size_t i = 0; i < nf; i++) {
        FILE *f = fopen(files[i], "r");
        cr_assert_not_null(f);
        fseek(f, 0, SEEK_END);
        size[i] = ftell(f);
        fclose(f);
    }
    char **v = calloc(k, sizeof *v);
    cr_assert_not_null(v);
    for (size_t q = 0; q < k; q++) {
        size_t best = nf;
        for (size_t i = 0; i < nf; i++)
            if (size[i] >= 0 && (best == nf || size[i] < size[best])) best = i;
        v[q] = strdup(files[best]);
        size[best] = -1;
    }
    free(size);
    tu_free_list(files, nf);
    *n = k;
    return v;
}

/* With ptxas: its figures per kernel, the same at every -j. */
Test(batch_cmds, analyze_with_ptxas_j1_j4_identical, .timeout = 600)
{
    size_t n;
    char **files = smallest("ptx-corpus/sm_80", 20, &n);
    run r = same_at_1_and_4("analyze", "json", NULL, files, n, 0);
    json_t *j = parse(r.out), *f;
    size_t i, reported = 0;
    json_array_foreach(json_object_get(j, "files"), i, f) {
        cr_assert(json_is_true(json_object_get(json_object_get(f, "ptxas"), "run")), "%s", files[i]);
        json_t *k;
        size_t q;
        json_array_foreach(json_object_get(f, "kernels"), q, k) reported += !json_is_null(json_object_get(k, "ptxas"));
    }
    cr_assert_geq(reported, n);
    json_decref(j);
    run_free(&r);
    tu_free_list(files, n);
}

/* spillcost over 20 files (ptxas on each rewrite): -j 4 gives -j 1's bytes
 * in every format; the rows are each file's rows alone, the notes each
 * said once. */
Test(batch_cmds, spillcost_j1_j4_identical_in_every_format, .timeout = 900)
{
    size_t n;
    char **files = smallest("ptx-corpus/sm_80", 20, &n);
    static const char *const formats[] = {"json", "text", "csv"};
    for (int f = 0; f < 3; f++) {
        const char *a1[] = {"spillcost", "-j", "1", "--budgets", "24", "--format", formats[f], NULL};
        const char *a4[] = {"spillcost", "-j", "4", "--budgets", "24", "--format", formats[f], NULL};
        run r1 = run_args(a1, files, n), r4 = run_args(a4, files, n);
        cr_assert_eq(r1.rc, 0, "%s: %s", formats[f], r1.err);
        cr_assert_eq(r4.rc, 0);
        cr_assert_str_eq(r4.err, r1.err, "%s", formats[f]);
        cr_assert(!strcmp(r4.out, r1.out), "%s: -j 4's report differs from -j 1's", formats[f]);
        if (!f) {
            json_t *j = parse(r1.out), *rows = json_object_get(j, "rows");
            size_t at = 0;
            for (size_t i = 0; i < n; i++) {
                const char *a[] = {"spillcost", "--budgets", "24", "--format", "json", NULL};
                run one = run_args(a, &files[i], 1);
                cr_assert_eq(one.rc, 0, "%s: %s", files[i], one.err);
                json_t *o = parse(one.out), *mine = json_object_get(o, "rows");
                for (size_t k = 0; k < json_array_size(mine); k++, at++)
                    cr_assert(json_equal(json_array_get(rows, at), json_array_get(mine, k)), "%s: row %zu", files[i],
                              k);
                json_decref(o);
                run_free(&one);
            }
            cr_assert_eq(json_array_size(rows), at);
            cr_assert_gt(at, n);
            json_t *notes = json_object_get(j, "notes");
            for (size_t a = 0; a < json_array_size(notes); a++)
                for (size_t b = a + 1; b < json_array_size(notes); b++)
                    cr_assert(!json_equal(json_array_get(notes, a), json_array_get(notes, b)), "a note twice");
            json_decref(j);
        }
        run_free(&r1);
        run_free(&r4);
    }
    tu_free_list(files, n);
}

/* The first kernel's name in a PTX text (static buffer). */
static const char *first_entry(const char *text)
{
    static char name[256];
    const char *e = strstr(text, ".entry ");
    cr_assert_not_null(e);
    e += strlen(".entry ");
    size_t n = strcspn(e, " \t\n(");
    cr_assert(n > 0 && n < sizeof name);
    memcpy(name, e, n);
    name[n] = 0;
    return name;
}

/* --target-regs with a ptxas that fails, its log naming the kernels it was
 * given: the logs come in file order at every -j (they are the file's
 * messages); and the first bad file stops the run, its message alone said. */
Test(batch_cmds, spillcost_messages_in_file_order, .timeout = 600)
{
    char dir[] = "/tmp/ptxray-batchsXXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    size_t nf;
    char **src = smallest("ptx-corpus/sm_80", 4, &nf);
    char fake[700];
    snprintf(fake, sizeof fake, "%s/ptxas", dir);
    write_file(fake, "#!/bin/sh\nfor a; do case \"$a\" in *.ptx) grep -o '^\\.visible \\.entry [A-Za-z0-9_]*' \"$a\";; "
                     "esac; done\nexit 1\n");
    cr_assert_eq(chmod(fake, 0755), 0);
    setenv("PTXAS", fake, 1);
    char names[4][300];
    for (size_t i = 0; i < 4; i++) {
        char *text = tu_read(src[i], NULL);
        snprintf(names[i], sizeof names[i], ".entry %s", first_entry(text));
        free(text);
    }
    const char *a1[] = {"spillcost", "-j", "1", "--budgets", "24", "--target-regs", "20", NULL};
    const char *a4[] = {"spillcost", "-j", "4", "--budgets", "24", "--target-regs", "20", NULL};
    run r1 = run_args(a1, src, 4), r4 = run_args(a4, src, 4);
    unsetenv("PTXAS");
    cr_assert_eq(r1.rc, 0, "%s", r1.err);
    cr_assert_eq(r4.rc, 0);
    cr_assert_str_eq(r4.err, r1.err);
    cr_assert_str_eq(r4.out, r1.out);
    const char *prev = r1.err;
    for (int i = 0; i < 4; i++) {
        /* modes div and aff: the log twice */
        for (int k = 0; k < 2; k++) {
            const char *q = strstr(prev, "ptxray spillcost: ptxas failed on the input");
            cr_assert_not_null(q, "file %d: %s", i, r1.err);
            q = strstr(q, names[i]);
            cr_assert_not_null(q, "%s not after the earlier files' logs: %s", names[i], r1.err);
            prev = q;
        }
    }
    run_free(&r1);
    run_free(&r4);
    /* a bad file stops the run: nothing written, its message alone */
    char p[2][600];
    snprintf(p[0], sizeof p[0], "%s/u0.ptx", dir);
    snprintf(p[1], sizeof p[1], "%s/u1.ptx", dir);
    write_file(p[0], "garbage");
    write_file(p[1], "garbage too");
    char *b[] = {src[0], p[0], src[1], p[1], src[2]};
    const char *c1[] = {"spillcost", "-j", "1", "--budgets", "24", NULL};
    const char *c4[] = {"spillcost", "-j", "4", "--budgets", "24", NULL};
    r1 = run_args(c1, b, 5);
    r4 = run_args(c4, b, 5);
    cr_assert_eq(r1.rc, 2);
    cr_assert_eq(r4.rc, 2);
    cr_assert_str_eq(r1.out, "");
    cr_assert_str_eq(r4.out, "");
    cr_assert_str_eq(r4.err, r1.err);
    cr_assert_not_null(strstr(r1.err, "u0.ptx:1:1: error:"), "%s", r1.err);
    cr_assert_null(strstr(r1.err, "u1.ptx"), "%s", r1.err);
    run_free(&r1);
    run_free(&r4);
    tu_free_list(src, nf);
    tu_rm_rf(dir);
}

Test(batch_cmds, bad_job_counts)
{
    static const char *const cmds[] = {"coalescing", "analyze", "spillcost"};
    static const char *const bad[] = {"0", "-2", "x", "4x", "100000", ""};
    char *f = (char *)tu_src("ptx-corpus/sm_80/bfs_frontier.ptx");
    for (int c = 0; c < 3; c++)
        for (int i = 0; i < 6; i++) {
            char *a[] = {BIN, (char *)cmds[c], "-j", (char *)bad[i], "--budgets", "8", f, f, NULL};
            if (c < 2) a[4] = f, a[5] = NULL; /* (--budgets is spillcost's) */
            char *err;
            char *out = tu_run_want(a, 2, &err);
            cr_assert_str_eq(out, "");
            char want[80];
            snprintf(want, sizeof want, "ptxray %s: -j '%s': expected a number", cmds[c], bad[i]);
            cr_assert_not_null(strstr(err, want), "%s", err);
            free(out);
            free(err);
        }
}

/* What several files cannot take: said, exit 2, nothing written. */
Test(batch_cmds, several_files_limits)
{
    char *f = (char *)tu_src("ptx-corpus/sm_80/bfs_frontier.ptx");
    struct {
        const char *args[6], *msg;
    } cases[] = {
        {{"coalescing", "--kernel", "k", NULL}, "ptxray coalescing: --kernel picks a function of one FILE"},
        {{"analyze", "--format", "html", NULL}, "ptxray analyze: several files: --format html is one page"},
        {{"analyze", "--kernel", "k", NULL}, "ptxray analyze: several files: --kernel picks a function of one file"},
        {{"analyze", "x.cu", NULL}, "ptxray analyze: several files: a .cu file is compiled and analysed alone"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *two[] = {f, f};
        run r = run_args(cases[i].args, two, 2);
        cr_assert_eq(r.rc, 2, "%s", cases[i].msg);
        cr_assert_str_eq(r.out, "");
        cr_assert_not_null(strstr(r.err, cases[i].msg), "%s", r.err);
        run_free(&r);
    }
}
