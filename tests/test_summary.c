/* analyze's summary table (report/summary_table.c, docs/analyze.md): the
 * template of a C++ symbol (ptx_demangle_template) on names that read
 * wrongly as text, the table's exact text and its ranking, its JSON, the
 * HTML page of 211 template instances (its size; its groups in a
 * browser: tests/test_html.c), and the progress line: never on a stderr
 * that is not a terminal, and on one, rewritten and cleared. */
#define _XOPEN_SOURCE 700 /* posix_openpt, grantpt, unlockpt, ptsname */
#define _DEFAULT_SOURCE
#include <criterion/criterion.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check_findings.h"
#include "ptx.h"
#include "names.h"
#include "testutil.h"

#define SMALL "tests/data/templates/small.ptx"
#define MANY "tests/data/templates/many_instances.ptx"

static char *tmpl(const char *sym)
{
    return ptx_demangle_template(sym, strlen(sym));
}

static void expect_tmpl(const char *sym, const char *want)
{
    char *t = tmpl(sym);
    if (!want) cr_expect_null(t, "%s: %s", sym, t);
    else {
        cr_assert_not_null(t, "%s", sym);
        cr_expect_str_eq(t, want, "%s", sym);
    }
    free(t);
}

/* Symbols g++ makes of templates whose demangled text a parser of
 * "<...>" gets wrong: nested arguments, a template template argument,
 * an operator< template, a function-pointer parameter, a member template
 * of a class template, a namespace; and names without arguments. */
Test(summary, template_names)
{
    expect_tmpl("_Z6reduceIfLi32EL2Op0EEvPKT_PS1_i", "reduce");            /* void reduce<float, 32, (Op)0>(...) */
    expect_tmpl("_ZN2ns6reduceIfLi256EEEvPKT_", "ns::reduce");              /* void ns::reduce<float, 256>(float const*) */
    expect_tmpl("_ZN1AIiE1fILi2EEEvi", "A::f");                            /* void A<int>::f<2>(int) */
    expect_tmpl("_ZltIiEbT_1S", "operator<");                              /* bool operator< <int>(int, S) */
    expect_tmpl("_Z5applyIiEvPT_PFvifE", "apply");                         /* void apply<int>(int*, void (*)(int, float)) */
    expect_tmpl("_Z4nestI1BS0_IiEEvT_IT0_E", "nest");                      /* void nest<B, B<int> >(B<B<int> >) */
    expect_tmpl("_ZlsIiEvT_", "operator<<");                               /* void operator<< <int>(int) */
    expect_tmpl("_Z1gi", NULL);                                            /* g(int) */
    expect_tmpl("plain", NULL);                                            /* extern "C" */
    expect_tmpl("_Z6reduceIfLi32EL2Op0EEvPKT_PS1_i.clone", "reduce");      /* a clone names its function */
}

/* The one ranking: proven cost first, then possible cost, highest first. */
Test(summary, rank_rule)
{
    cr_expect_lt(chk_rank_cmp(1, 0, 0, 1000), 0, "a proven cost before any possible one");
    cr_expect_lt(chk_rank_cmp(5, 0, 4, 9), 0);
    cr_expect_lt(chk_rank_cmp(4, 9, 4, 8), 0, "equal proven: the higher possible first");
    cr_expect_gt(chk_rank_cmp(0, 1, 1, 0), 0);
    cr_expect_eq(chk_rank_cmp(3, 3, 3, 3), 0);
}

static char *analyze(char **extra, int want, char **err)
{
    char *argv[16] = {(char *)tu_bin(), "analyze"};
    size_t n = 2;
    for (size_t i = 0; extra[i]; i++) argv[n++] = extra[i];
    argv[n] = NULL;
    setenv("PTXAS", "/nonexistent/ptxas", 1); /* the table is the same with ptxas's figures */
    char *out = tu_run_want(argv, want, err);
    unsetenv("PTXAS");
    return out;
}

/* The exact table of a small file of three templates and a plain kernel:
 * gather (proven, cost 16) before column (possible, cost 2600), the two
 * without findings by name; the per-kernel reports follow. */
Test(summary, small_table_text)
{
    char *extra[] = {(char *)tu_src(SMALL), NULL};
    char *out = analyze(extra, 0, NULL);
    char want[4096];
    snprintf(want, sizeof want,
             "ptxray analyze: %s\n"
             "assumed: warps of 32 consecutive threads; 32-byte sectors; allocations 256-byte aligned; no index "
             "wraparound\n"
             "ptxas: not run (ptxas not found)\n"
             "summary: 6 functions in 4 groups (3 templates); ranked by proven cost, then possible cost; findings "
             "as proven/possible\n"
             "  template or function  instances  uncoalesced  misaligned  bank-conflict  divergent-branch  proven "
             "cost  possible cost\n"
             "  gather                        2          2/0           -              -                 -           "
             "16              0\n"
             "  column                        2          0/2           -              -                 -            "
             "0           2600\n"
             "  ns::fill                      1            -           -              -                 -            "
             "0              0\n"
             "  plain                         -            -           -              -                 -            "
             "0              0\n"
             "\n== kernel plain ==\n",
             tu_src(SMALL));
    cr_expect_eq(strncmp(out, want, strlen(want)), 0, "got:\n%.*s", (int)strlen(want) + 40, out);
    free(out);
}

/* JSON: "summary_table" in the table's order, each group's symbols in PTX
 * order; the kernels' reports as before. */
Test(summary, many_instances_json)
{
    char *extra[] = {"--format", "json", (char *)tu_src(MANY), NULL};
    char *out = analyze(extra, 0, NULL);
    json_error_t e;
    json_t *j = json_loads(out, 0, &e);
    cr_assert_not_null(j, "%s", e.text);
    json_t *t = json_object_get(j, "summary_table");
    cr_assert_eq(json_array_size(t), 4);
    static const char *names[] = {"reduce_cols", "reduce", "normalize", "fill(float*, float, int)"};
    static const int counts[] = {90, 90, 30, 1};
    size_t total = 0;
    for (size_t i = 0; i < 4; i++) {
        json_t *g = json_array_get(t, i);
        cr_expect_str_eq(json_string_value(json_object_get(g, "name")), names[i]);
        cr_expect_eq(json_integer_value(json_object_get(g, "functions")), counts[i]);
        cr_expect_eq(json_array_size(json_object_get(g, "symbols")), (size_t)counts[i]);
        cr_expect_eq(json_is_true(json_object_get(g, "template")), i < 3);
        total += json_array_size(json_object_get(g, "symbols"));
    }
    cr_expect_eq(total, json_array_size(json_object_get(j, "kernels")));
    cr_expect_eq(total, 211);
    /* reduce_cols: every instance's strided load possibly uncoalesced, and its one-thread store proven divergent */
    json_t *rc = json_object_get(json_object_get(json_array_get(t, 0), "findings"), "uncoalesced");
    cr_expect_eq(json_integer_value(json_object_get(rc, "possible")), 90);
    cr_expect_eq(json_integer_value(json_object_get(rc, "proven")), 0);
    cr_expect_str_eq(json_string_value(json_array_get(json_object_get(json_array_get(t, 1), "symbols"), 0)),
                     "_Z6reduceIfLi32EL2Op0EEvPKT_PS1_i");
    json_decref(j);
    free(out);
}

/* The page of 211 instances: under 3 MB (its groups deflated); every
 * kernel in a closed group, the table's links to them. */
Test(summary, many_instances_html_size)
{
    char path[] = "/tmp/ptxray-summary-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    close(fd);
    char *extra[] = {"--format", "html", "--no-ptxas", (char *)tu_src(MANY), "-o", path, NULL};
    free(analyze(extra, 0, NULL));
    size_t len;
    char *page = tu_read(path, &len);
    unlink(path);
    cr_expect_lt(len, 3000000, "%zu bytes", len);
    size_t groups = 0, deflated = 0;
    for (const char *p = page; (p = strstr(p, "<details class=\"group\"")); p++) groups++;
    for (const char *p = page; (p = strstr(p, "<script type=\"application/x-ptxray-deflate\" class=\"z\">")); p++)
        deflated++;
    cr_expect_eq(groups, 4);
    cr_expect_eq(deflated, 4);
    cr_expect(strstr(page, "<tr><td><a href=\"#g0\">reduce_cols</a></td><td class=\"n\">90</td>"));
    cr_expect_null(strstr(page, "<section class=\"kernel\""), "no section written plain");
    free(page);
}

/* A run of seconds: NCOPIES times the 211 kernels, one job, each copy
 * waiting on a ptxas that takes 0.4 s and fails (the analysis alone
 * takes some 30 ms a copy: a real ptxas would make the test's time
 * depend on the toolkit). */
#define NCOPIES 4

static char *slow_ptxas(void)
{
    char *p = strdup("/tmp/ptxray-slowptxas-XXXXXX");
    int fd = mkstemp(p);
    cr_assert(fd >= 0);
    static const char sh[] = "#!/bin/sh\nsleep 0.4\nexit 1\n";
    cr_assert_eq(write(fd, sh, sizeof sh - 1), (ssize_t)(sizeof sh - 1));
    fchmod(fd, 0700);
    close(fd);
    return p;
}

/* No progress line where stderr is not a terminal, even for a run of
 * seconds. */
Test(summary, no_progress_line_off_a_terminal, .timeout = 300)
{
    char *f = strdup(tu_src(MANY)), *err = NULL;
    char *extra[NCOPIES + 3];
    for (int i = 0; i < NCOPIES; i++) extra[i] = f;
    extra[NCOPIES] = "-j";
    extra[NCOPIES + 1] = "1";
    extra[NCOPIES + 2] = NULL;
    char *argv[NCOPIES + 5] = {(char *)tu_bin(), "analyze"};
    memcpy(argv + 2, extra, sizeof extra);
    char *px = slow_ptxas();
    setenv("PTXAS", px, 1);
    char *out = tu_run_want(argv, 0, &err);
    unsetenv("PTXAS");
    unlink(px);
    free(px);
    cr_expect_str_eq(err, "");
    char want[128];
    snprintf(want, sizeof want, "\nptxray analyze: %d files: %d functions, ", NCOPIES, NCOPIES * 211);
    cr_expect(strstr(out, want));
    free(out);
    free(err);
    free(f);
}

/* On a terminal (a pseudo-terminal as stderr), the same run shows
 * "analyze: N/NCOPIES files", each rewritten with \r, and clears it. */
Test(summary, progress_line_on_a_terminal, .timeout = 300)
{
    int m = posix_openpt(O_RDWR | O_NOCTTY);
    cr_assert(m >= 0);
    cr_assert_eq(grantpt(m), 0);
    cr_assert_eq(unlockpt(m), 0);
    /* opened before the fork: a master with no slave open reads EIO */
    int s = open(ptsname(m), O_RDWR | O_NOCTTY);
    cr_assert(s >= 0);
    const char *f = tu_src(MANY);
    char *fa = strdup(f), *px = slow_ptxas();
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (!pid) {
        int null = open("/dev/null", O_WRONLY);
        if (s < 0 || null < 0) _exit(99);
        dup2(s, 2);
        dup2(null, 1);
        setenv("PTXAS", px, 1);
        char *argv[NCOPIES + 5] = {(char *)tu_bin(), "analyze"};
        for (int i = 0; i < NCOPIES; i++) argv[2 + i] = fa;
        argv[NCOPIES + 2] = "-j";
        argv[NCOPIES + 3] = "1";
        execv(tu_bin(), argv);
        _exit(98);
    }
    close(s);
    char buf[4096];
    size_t n = 0;
    int st;
    for (;;) {
        ssize_t r = read(m, buf + n, sizeof buf - 1 - n);
        if (r > 0) n += (size_t)r;
        else break; /* EIO once the child's side is closed */
        if (n == sizeof buf - 1) break;
    }
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    buf[n] = 0;
    close(m);
    cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d, %zu bytes", st, n);
    char last[64];
    snprintf(last, sizeof last, "\ranalyze: %d/%d files\033[K", NCOPIES, NCOPIES);
    cr_expect(strstr(buf, last), "got %s", buf);
    cr_expect_eq(n >= 4 ? strcmp(buf + n - 4, "\r\033[K") : 1, 0, "cleared at the end");
    unlink(px);
    free(px);
    free(fa);
}
