/* The HTML pages of `analyze --format html` and `check --format html`
 * (docs/html.md).  The page's behaviour is checked in a real browser:
 * headless Chromium opens it and tests/html_dom.py reports the rendered
 * DOM (the marked source lines, the CFG's nodes and their fills, and what
 * a mouse click on a source line shows), compared here with what `check`
 * and `cfg --format dot` say about the same kernel. */
#define _DEFAULT_SOURCE /* mkstemps */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "testutil.h"

#define TRANSPOSE "ptx-corpus/sm_80/transpose_bank_conflict.ptx"
#define KERNEL "transpose_tiled_conflicting"

static char *src(const char *rel) { return strdup(tu_src(rel)); }

/* The first of names on PATH (malloc'd), or NULL. */
static char *on_path(const char *const *names, size_t n)
{
    const char *path = getenv("PATH");
    for (size_t k = 0; k < n; k++) {
        char *p = strdup(path ? path : "/usr/bin:/bin"), *save = NULL;
        for (char *d = strtok_r(p, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
            char buf[4096];
            snprintf(buf, sizeof buf, "%s/%s", d, names[k]);
            if (!access(buf, X_OK)) {
                free(p);
                return strdup(buf);
            }
        }
        free(p);
    }
    return NULL;
}

/* $PTXRAY_CHROMIUM, else chromium or chromium-browser on PATH; NULL when none. */
static char *find_chromium(void)
{
    const char *e = getenv("PTXRAY_CHROMIUM");
    if (e && *e) return access(e, X_OK) ? NULL : strdup(e);
    static const char *names[] = {"chromium", "chromium-browser"};
    return on_path(names, 2);
}

/* `ptxray analyze --format html --no-ptxas ARGS... -o page`: the page's path (malloc'd). */
static char *page_of(const char *ptx, const char *kernel)
{
    char *path = strdup("/tmp/ptxray-html-XXXXXX.html"); /* the browser goes by the extension */
    int fd = mkstemps(path, 5);
    cr_assert(fd >= 0);
    close(fd);
    char *in = src(ptx), *out = NULL, *err = NULL;
    char *argv[] = {(char *)tu_bin(), "analyze", "--format", "html", "--no-ptxas", in, "-o", path,
                    kernel ? "--kernel" : NULL, (char *)kernel, NULL};
    cr_assert_eq(tu_run(argv, &out, &err), 0, "%s", err);
    cr_expect_str_eq(out, "", "the page goes to -o");
    free(in);
    free(out);
    free(err);
    return path;
}

static json_t *run_json(char *const argv[], int want_rc)
{
    char *out = NULL, *err = NULL;
    cr_assert_eq(tu_run(argv, &out, &err), want_rc, "%s", err);
    json_error_t je;
    json_t *j = json_loads(out, 0, &je);
    cr_assert(j, "bad JSON (%s): %.300s", je.text, out);
    free(out);
    free(err);
    return j;
}

/* The fill of DOT node f0_bN in `ptxray cfg --format dot` ("none" when unfilled). */
static void dot_fill(const char *dot, unsigned b, char *fill, size_t n)
{
    char key[64];
    snprintf(key, sizeof key, "    f0_b%u [", b);
    const char *p = strstr(dot, key);
    cr_assert(p, "no node f0_b%u", b);
    const char *e = strchr(p, '\n'), *f = strstr(p, "fillcolor=\"");
    if (!f || f > e) {
        snprintf(fill, n, "none");
        return;
    }
    f += strlen("fillcolor=\"");
    snprintf(fill, n, "%.*s", (int)(strchr(f, '"') - f), f);
}

Test(html_browser, dom_marks_cfg_and_click, .timeout = 180)
{
    char *chromium = find_chromium();
    if (!chromium) {
        cr_skip_test("chromium not installed (Debian package chromium, scripts/setup.sh): the page is not "
                     "rendered in a browser");
        return;
    }
    char *page = page_of(TRANSPOSE, KERNEL);
    static const char *pyname[] = {"python3"};
    char *py = src("tests/html_dom.py"), *python = on_path(pyname, 1);
    cr_assert(python, "python3 not found (scripts/setup.sh installs it)");
    char *argv[] = {python, py, chromium, page, "0", "30", NULL};
    json_t *dom = run_json(argv, 0);
    free(py);
    free(python);

    /* 1. the finding marks, on the lines `check` names, with the rules it names */
    char *ptx = src(TRANSPOSE);
    char *cargv[] = {(char *)tu_bin(), "check", "--enable", "divergent-branch", "--format", "json", ptx, NULL};
    json_t *chk = run_json(cargv, 1);
    static const char *rules[] = {"uncoalesced", "misaligned", "bank-conflict", "divergent-branch"};
    char want[64][96];
    unsigned wline[64], nw = 0;
    json_t *x;
    size_t i;
    /* per line the rules in their order, as the page's data-rules */
    json_array_foreach(json_object_get(chk, "findings"), i, x)
    {
        if (strcmp(json_string_value(json_object_get(x, "kernel")), KERNEL)) continue;
        unsigned line = (unsigned)json_integer_value(json_object_get(json_object_get(x, "src"), "line"));
        unsigned k = 0;
        while (k < nw && wline[k] != line) k++;
        if (k == nw) {
            cr_assert_lt(nw, 64);
            wline[nw] = line;
            want[nw++][0] = 0;
        }
    }
    for (unsigned k = 0; k < nw; k++)
        for (size_t r = 0; r < 4; r++) {
            json_array_foreach(json_object_get(chk, "findings"), i, x)
            {
                if (strcmp(json_string_value(json_object_get(x, "kernel")), KERNEL) ||
                    json_integer_value(json_object_get(json_object_get(x, "src"), "line")) != wline[k] ||
                    strcmp(json_string_value(json_object_get(x, "rule")), rules[r]))
                    continue;
                if (want[k][0]) strcat(want[k], " ");
                strcat(want[k], rules[r]);
                break;
            }
        }
    json_t *marks = json_object_get(dom, "marks");
    cr_expect_eq(json_array_size(marks), nw, "marked lines: %zu, check's lines: %u", json_array_size(marks), nw);
    json_array_foreach(marks, i, x)
    {
        unsigned line = (unsigned)json_integer_value(json_array_get(x, 0));
        unsigned k = 0;
        while (k < nw && wline[k] != line) k++;
        cr_expect_lt(k, nw, "line %u marked, but check has no finding there", line);
        if (k < nw) cr_expect_str_eq(json_string_value(json_array_get(x, 1)), want[k], "line %u", line);
    }
    /* and exactly: the two guarded loops' branches (22, 29), the global
     * load (23) and, on 30, the 32-way conflict of tile[threadIdx.x][...]
     * (rows 128 B apart) with the global store */
    static const unsigned lines[] = {22, 23, 29, 30};
    for (i = 0; i < 4 && i < json_array_size(marks); i++)
        cr_expect_eq(json_integer_value(json_array_get(json_array_get(marks, i), 0)), lines[i]);
    json_t *m30 = json_array_get(marks, 3);
    cr_expect_str_eq(json_string_value(json_array_get(m30, 1)), "misaligned bank-conflict");
    cr_expect_str_eq(json_string_value(json_array_get(json_array_get(m30, 2), 0)), "bank 32-way");
    cr_expect_str_eq(json_string_value(json_array_get(json_array_get(json_array_get(marks, 0), 2), 0)),
                     "divergent?");

    /* 2. the CFG: one node per block, each with the DOT's fill for its block */
    char *kargv[] = {(char *)tu_bin(), "cfg", "--format", "json", "--kernel", KERNEL, ptx, NULL};
    json_t *cfg = run_json(kargv, 0);
    size_t nblocks = json_array_size(json_object_get(json_array_get(json_object_get(cfg, "functions"), 0), "blocks"));
    json_t *nodes = json_object_get(dom, "nodes");
    cr_expect_eq(json_array_size(nodes), nblocks, "%zu nodes, %zu blocks", json_array_size(nodes), nblocks);
    cr_expect_eq(nblocks, 19);
    char *dargv[] = {(char *)tu_bin(), "cfg", "--format", "dot", "--kernel", KERNEL, ptx, NULL};
    char *dot = NULL, *err = NULL;
    cr_assert_eq(tu_run(dargv, &dot, &err), 0, "%s", err);
    unsigned seen[64] = {0}, ndiv = 0, npart = 0, nuni = 0;
    json_array_foreach(nodes, i, x)
    {
        unsigned b;
        cr_assert_eq(sscanf(json_string_value(json_array_get(x, 0)), "k0_b%u", &b), 1);
        cr_assert_lt(b, 64);
        seen[b]++;
        char fill[32];
        dot_fill(dot, b, fill, sizeof fill);
        const char *got = json_string_value(json_array_get(x, 2)), *cls = json_string_value(json_array_get(x, 1));
        cr_expect_str_eq(got, fill, "block %u", b);
        ndiv += !strcmp(cls, "node divergent") && !strcmp(got, "#f4b4ae");
        npart += !strcmp(cls, "node partial") && !strcmp(got, "#fbe7a1");
        nuni += !strcmp(cls, "node uniform") && !strcmp(got, "#d8eed8");
    }
    for (unsigned b = 0; b < nblocks; b++) cr_expect_eq(seen[b], 1, "block %u: %u nodes", b, seen[b]);
    /* the eight guarded loop bodies: each tests its bound (divergent) and
     * stores with part of the warp */
    cr_expect_eq(ndiv, 8, "%u divergent", ndiv);
    cr_expect_eq(npart, 8, "%u partial", npart);
    cr_expect_eq(nuni, 1, "%u uniform", nuni); /* the __syncthreads() block between the loops */
    free(dot);
    free(err);

    /* 3. a click on line 30 shows its PTX, and only then */
    cr_expect_eq(json_integer_value(json_object_get(dom, "before")), 0, "a PTX group visible before any click");
    json_t *click = json_object_get(dom, "click");
    cr_assert(json_is_object(click), "line 30 has no row");
    cr_expect(json_is_true(json_object_get(click, "selected")));
    json_t *vis = json_object_get(click, "visible");
    cr_assert_eq(json_array_size(vis), 1);
    cr_expect_str_eq(json_string_value(json_array_get(vis, 0)), "k0-p0-30");
    cr_expect_str_eq(json_string_value(json_object_get(click, "heading")),
                     "transpose_bank_conflict.cu:30: 24 PTX instructions");
    json_t *rows = json_object_get(click, "rows");
    cr_expect_eq(json_array_size(rows), 24);
    /* every PTX instruction of line 30's findings is among them */
    json_array_foreach(json_object_get(chk, "findings"), i, x)
    {
        if (strcmp(json_string_value(json_object_get(x, "kernel")), KERNEL) ||
            json_integer_value(json_object_get(json_object_get(x, "src"), "line")) != 30)
            continue;
        size_t j;
        json_t *pl;
        json_array_foreach(json_object_get(x, "ptx_lines"), j, pl)
        {
            bool found = false;
            size_t r;
            json_t *row;
            json_array_foreach(rows, r, row) found |= json_integer_value(json_array_get(row, 0)) == json_integer_value(pl);
            cr_expect(found, "PTX line %lld of a finding on line 30 not shown", (long long)json_integer_value(pl));
        }
    }
    /* the conflicting load with its abstract values: the value it loads,
     * and its address, 128 B per tid.x */
    bool ld = false;
    size_t r;
    json_t *row;
    json_array_foreach(rows, r, row)
    {
        if (json_integer_value(json_array_get(row, 0)) != 131) continue;
        ld = true;
        cr_expect_str_eq(json_string_value(json_array_get(row, 1)), "ld.shared.f32 \t%f5, [%r13];");
        json_t *v = json_array_get(row, 2);
        cr_expect_str_eq(json_string_value(json_array_get(v, 0)), "divergent");
        cr_expect_str_eq(json_string_value(json_array_get(v, 1)), "address 4·tid.y + 128·tid.x + ⊥");
    }
    cr_expect(ld, "PTX line 131 not shown");
    json_decref(cfg);
    json_decref(chk);
    json_decref(dom);
    unlink(page);
    free(page);
    free(ptx);
    free(chromium);
}

/* The same input, the same bytes; the largest corpus file's page under 10
 * times its PTX. */
Test(html, deterministic_and_size, .timeout = 120)
{
    char *a = page_of("ptx-corpus/sm_80/fir_unrolled.ptx", NULL), *b = page_of("ptx-corpus/sm_80/fir_unrolled.ptx", NULL);
    size_t na, nb, np;
    char *ta = tu_read(a, &na), *tb = tu_read(b, &nb), *tp = tu_read(tu_src("ptx-corpus/sm_80/fir_unrolled.ptx"), &np);
    cr_assert(ta && tb && tp);
    cr_expect(na == nb && !memcmp(ta, tb, na), "two runs gave different pages");
    cr_expect_lt(na, 10 * np, "page %zu bytes, PTX %zu", na, np);
    cr_expect(strstr(ta, "<svg"), "no CFG");
    /* self-contained: nothing is fetched */
    cr_expect(!strstr(ta, "src=\"http") && !strstr(ta, "href=\"http") && !strstr(ta, "<link"), "external resource");
    unlink(a);
    unlink(b);
    free(a);
    free(b);
    free(ta);
    free(tb);
    free(tp);
}

/* Without .loc the PTX is the main column, its lines marked. */
Test(html, ptx_only, .timeout = 60)
{
    size_t n;
    char *t = tu_read(tu_src(TRANSPOSE), &n);
    cr_assert(t);
    /* blank the .loc and .file lines: PTX line numbers stay */
    for (char *p = t; (p = strstr(p, "\n\t.")) != NULL; p++)
        if (!strncmp(p + 2, ".loc", 4) || !strncmp(p + 2, ".file", 5))
            for (char *q = p + 1; *q && *q != '\n'; q++) *q = ' ';
    char path[] = "/tmp/ptxray-html-nolocXXXXXX.ptx";
    int fd = mkstemps(path, 4);
    cr_assert(fd >= 0);
    cr_assert_eq(write(fd, t, n), (ssize_t)n);
    close(fd);
    char out[] = "/tmp/ptxray-html-outXXXXXX";
    fd = mkstemp(out);
    close(fd);
    char *o = NULL, *err = NULL;
    char *argv[] = {(char *)tu_bin(), "analyze", "--format", "html", "--no-ptxas", "--kernel", KERNEL, path, "-o", out, NULL};
    cr_assert_eq(tu_run(argv, &o, &err), 0, "%s", err);
    char *page = tu_read(out, NULL);
    cr_assert(page);
    cr_expect(strstr(page, "<table class=\"code ptx ptxmain\">"), "no PTX column");
    cr_expect(!strstr(page, "class=\"src"), "source rows without source");
    /* the conflicting load's row carries its mark */
    const char *row = strstr(page, "<tr><td>131</td>");
    cr_assert(row, "no row for PTX line 131");
    const char *end = strstr(row, "</tr>");
    const char *mark = strstr(row, "bank 32-way");
    cr_expect(mark && mark < end, "PTX line 131 not marked");
    unlink(path);
    unlink(out);
    free(t);
    free(page);
    free(o);
    free(err);
}

/* check's page: an index of files and kernels with their counts, linking
 * to a section per file; bad input writes no page. */
Test(html, check_index, .timeout = 60)
{
    char out[] = "/tmp/ptxray-html-chkXXXXXX";
    int fd = mkstemp(out);
    close(fd);
    char *a = src("ptx-corpus/sm_80/matmul_tiled.ptx"), *b = src(TRANSPOSE), *o = NULL, *err = NULL;
    char *argv[] = {(char *)tu_bin(), "check", "--format", "html", a, b, "-o", out, NULL};
    cr_assert_eq(tu_run(argv, &o, &err), 1, "%s", err);
    char *page = tu_read(out, NULL);
    cr_assert(page);
    /* matmul_tiled_2x2: uncoalesced 2, misaligned 2, bank-conflict 3 (the default rules) */
    const char *r = strstr(page, "<td>matmul_tiled_2x2(float const*, float const*, float*, int)</td>");
    cr_assert(r, "no index row for matmul_tiled_2x2");
    static const char cells[] =
        "<td class=\"n\">2</td><td class=\"n\">2</td><td class=\"n\">3</td><td class=\"n\">7</td></tr>\n";
    cr_expect(!strncmp(r + strlen("<td>matmul_tiled_2x2(float const*, float const*, float*, int)</td>"), cells,
                       strlen(cells)),
              "%.200s", r);
    cr_expect(strstr(page, "<a href=\"#f0\">"), "no link to the first file");
    cr_expect(strstr(page, "<section class=\"file\" id=\"f0\">"), "no section for the first file");
    cr_expect(strstr(page, "<section class=\"file\" id=\"f1\">"), "no section for the second file");
    free(page);
    free(o);
    free(err);
    unlink(out);

    /* bad input: exit 2 and no page */
    char bad[] = "/tmp/ptxray-html-badXXXXXX.ptx";
    fd = mkstemps(bad, 4);
    const char *text = ".version 8.0\n.target sm_80\n.address_size 64\n.entry k( {\n";
    cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    char *argv2[] = {(char *)tu_bin(), "analyze", "--format", "html", "--no-ptxas", bad, "-o", out, NULL};
    cr_expect_eq(tu_run(argv2, &o, &err), 2);
    struct stat st;
    cr_expect_neq(stat(out, &st), 0, "a page was written on exit 2");
    unlink(bad);
    free(o);
    free(err);
    free(a);
    free(b);
}
