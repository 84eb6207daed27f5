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
#include "html.h"
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

/* `ptxray analyze --format html --no-ptxas PTX [--kernel K] [EXTRA...] -o page`: the page's path (malloc'd);
 * PTX under the source tree unless absolute. */
static char *page_ofx(const char *ptx, const char *kernel, const char *const *extra)
{
    char *path = strdup("/tmp/ptxray-html-XXXXXX.html"); /* the browser goes by the extension */
    int fd = mkstemps(path, 5);
    cr_assert(fd >= 0);
    close(fd);
    char *in = ptx[0] == '/' ? strdup(ptx) : src(ptx), *out = NULL, *err = NULL;
    char *argv[24] = {(char *)tu_bin(), "analyze", "--format", "html", "--no-ptxas", in, "-o", path};
    size_t n = 8;
    if (kernel) {
        argv[n++] = "--kernel";
        argv[n++] = (char *)kernel;
    }
    for (size_t i = 0; extra && extra[i]; i++) {
        cr_assert_lt(n, sizeof argv / sizeof argv[0] - 1);
        argv[n++] = (char *)extra[i];
    }
    argv[n] = NULL;
    cr_assert_eq(tu_run(argv, &out, &err), 0, "%s", err);
    cr_expect_str_eq(out, "", "the page goes to -o");
    free(in);
    free(out);
    free(err);
    return path;
}

static char *page_of(const char *ptx, const char *kernel) { return page_ofx(ptx, kernel, NULL); }

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
    /* 0. a small page: its one group open, written plain */
    char *groups = json_dumps(json_object_get(dom, "groups"), JSON_COMPACT);
    cr_expect_str_eq(groups, "[[\"g0\",true,false,\"" KERNEL "\",1]]");
    free(groups);
    cr_expect(json_is_false(json_object_get(dom, "inflated")));

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

/* The page of 211 template instances (tests/data/templates): the summary
 * table's rows as analyze's text has them; its groups closed and
 * deflated; a link into one (location.hash = k5, reduce<float, 32,
 * (Op)1>) inflates it, and the kernel's marks and a click on its loop's
 * branch line work as on a small page. */
Test(html_browser, groups_closed_and_inflated, .timeout = 180)
{
    char *chromium = find_chromium();
    if (!chromium) {
        cr_skip_test("chromium not installed (Debian package chromium, scripts/setup.sh): the page is not "
                     "rendered in a browser");
        return;
    }
    char *page = page_of("tests/data/templates/many_instances.ptx", NULL);
    static const char *pyname[] = {"python3"};
    char *py = src("tests/html_dom.py"), *python = on_path(pyname, 1);
    cr_assert(python, "python3 not found (scripts/setup.sh installs it)");
    char *argv[] = {python, py, chromium, page, "5", "25", NULL};
    json_t *dom = run_json(argv, 0);
    char *sum = json_dumps(json_object_get(dom, "summary"), JSON_COMPACT),
         *groups = json_dumps(json_object_get(dom, "groups"), JSON_COMPACT),
         *marks = json_dumps(json_object_get(dom, "marks"), JSON_COMPACT);
    cr_expect_str_eq(sum, "[[\"reduce_cols\",\"90\",\"0/90\",\"-\",\"-\",\"90/0\",\"90\",\"23760\"],"
                          "[\"reduce\",\"90\",\"-\",\"-\",\"-\",\"90/180\",\"90\",\"990\"],"
                          "[\"normalize\",\"30\",\"-\",\"-\",\"-\",\"0/30\",\"0\",\"36\"],"
                          "[\"fill(float*, float, int)\",\"-\",\"-\",\"-\",\"-\",\"0/1\",\"0\",\"1\"]]");
    cr_expect_str_eq(groups, "[[\"g0\",false,true,\"reduce_cols (90 instances)\",0],"
                             "[\"g1\",false,true,\"reduce (90 instances)\",0],"
                             "[\"g2\",false,true,\"normalize (30 instances)\",0],"
                             "[\"g3\",false,true,\"fill(float*, float, int)\",0]]");
    cr_expect(json_is_true(json_object_get(dom, "inflated")));
    /* the bounds check (21) and the loop's branch (25) possibly divergent,
     * the thread-0 store's branch (28) proven: `check` says the same */
    cr_expect_str_eq(marks, "[[21,\"divergent-branch\",[\"divergent?\"]],[25,\"divergent-branch\",[\"divergent?\"]],"
                            "[28,\"divergent-branch\",[\"divergent\"]]]");
    json_t *click = json_object_get(dom, "click");
    cr_assert(click);
    char *vis = json_dumps(json_object_get(click, "visible"), JSON_COMPACT);
    cr_expect_str_eq(vis, "[\"k5-p0-25\"]");
    cr_expect(json_is_true(json_object_get(click, "selected")));
    cr_expect_str_eq(json_string_value(json_object_get(click, "heading")), "many_instances.cu:25: 7 PTX instructions");
    free(vis);
    free(sum);
    free(groups);
    free(marks);
    json_decref(dom);
    unlink(page);
    free(page);
    free(py);
    free(python);
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
    /* matmul_tiled_2x2: uncoalesced 2, misaligned 2, bank-conflict 3, divergent-barrier 0,
     * divergent-collective 0 (the default rules) */
    const char *r = strstr(page, "<td>matmul_tiled_2x2(float const*, float const*, float*, int)</td>");
    cr_assert(r, "no index row for matmul_tiled_2x2");
    static const char cells[] =
        "<td class=\"n\">2</td><td class=\"n\">2</td><td class=\"n\">3</td><td class=\"n\">0</td><td "
        "class=\"n\">0</td><td class=\"n\">7</td></tr>\n";
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

/* ---- the spill code of a regalloc run (analyze --budget) ------------------ */
/* Sampaio et al.'s example (every kind of spill code at budget 8 in mode
 * aff; Graphviz lays its CFGs out without the leak some loop nests cause
 * in 2.42's acyclic pass, which make check's LeakSanitizer reports). */
#define SAMPAIO "ptx-corpus/sm_80/sampaio_divergence.ptx"
#define SP_SYM "avgSquare"
static const char *const ra_keys[] = {"ld.local", "st.local", "ld.shared", "st.shared", "remat"};

typedef struct want_line {
    unsigned line, n[5];
} want_line;

/* What `ptxray regalloc` put on each .cu line, read from the rewritten PTX
 * alone: per .loc line, the .local reloads and stores (they name
 * __ra_local) and the .shared ones (the only .relaxed.cta accesses: the
 * input has none), less the lane-mask slot's (+0, there when bar.warp.sync
 * takes a register).  Rematerialisations leave no trace to count there.
 * Line 0 (`.loc F 0 C`: code of no source line) is w[0]. */
static size_t spills_in_rewrite(const char *text, want_line *w, size_t max)
{
    const char *b = strstr(text, "bar.warp.sync");
    bool mask = false;
    for (; b && !mask; b = strstr(b + 1, "bar.warp.sync")) {
        const char *p = b + strlen("bar.warp.sync");
        while (*p == ' ' || *p == '\t') p++;
        mask = *p == '%';
    }
    size_t n = 1;
    unsigned cur = 0;
    memset(&w[0], 0, sizeof w[0]);
    for (const char *l = text; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l)) {
        const char *e = strchr(l, '\n');
        size_t len = e ? (size_t)(e - l) : strlen(l);
        char buf[512];
        snprintf(buf, sizeof buf, "%.*s", (int)(len < sizeof buf ? len : sizeof buf - 1), l);
        unsigned f, ln;
        if (sscanf(buf, " .loc %u %u", &f, &ln) == 2) {
            cur = ln;
            continue;
        }
        int k = -1;
        if (strstr(buf, "[__ra_local")) k = strstr(buf, "st.local") ? 1 : 0;
        else if (strstr(buf, ".relaxed.cta.shared") && !(mask && strstr(buf, "+0]")))
            k = strstr(buf, "st.relaxed") ? 3 : 2;
        if (k < 0) continue;
        size_t i = 0;
        while (i < n && w[i].line != cur) i++;
        if (i == n) {
            cr_assert_lt(n, max);
            memset(&w[n], 0, sizeof w[n]);
            w[n++].line = cur;
        }
        w[i].n[k]++;
    }
    return n;
}

static void ra_data(const unsigned *c, int ncat, char *buf, size_t n)
{
    size_t at = 0;
    buf[0] = 0;
    for (int k = 0; k < ncat; k++)
        if (c[k]) at += (size_t)snprintf(buf + at, n - at, "%s%s=%u", at ? " " : "", ra_keys[k], c[k]);
}

/* The counts of a data-ra value ("ld.shared=2 remat=1"). */
static void parse_ra(const char *s, unsigned *c)
{
    memset(c, 0, 5 * sizeof *c);
    char *t = strdup(s), *save = NULL;
    for (char *x = strtok_r(t, " ", &save); x; x = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(x, '=');
        cr_assert(eq, "bad data-ra %s", s);
        *eq = 0;
        int k = 0;
        while (k < 5 && strcmp(ra_keys[k], x)) k++;
        cr_assert_lt(k, 5, "unknown key %s in data-ra", x);
        c[k] = (unsigned)atoi(eq + 1);
    }
    free(t);
}

/* In the browser: the spill marks are on exactly the lines where `ptxray
 * regalloc` (same budget and mode) put spill code, with its counts; the
 * rematerialisations add up to its summary's; the summary states the
 * run; a click on the line with the most spill code shows it beside
 * its PTX instructions. */
Test(html_browser, spill_marks, .timeout = 180)
{
    char *chromium = find_chromium();
    if (!chromium) {
        cr_skip_test("chromium not installed (Debian package chromium, scripts/setup.sh)");
        return;
    }
    static const char *const extra[] = {"--budget", "8", "--mode", "aff", NULL};
    char *ptx = src(SAMPAIO);
    size_t np;
    char *orig = tu_read(ptx, &np);
    cr_assert(orig && !strstr(orig, "relaxed.cta"), "the input has .relaxed.cta accesses of its own");
    free(orig);
    char *err = NULL;
    char *rargv[] = {(char *)tu_bin(), "regalloc", ptx, "--budget", "8", "--mode", "aff", "--kernel", SP_SYM, NULL};
    char *rw = tu_run_want(rargv, 0, &err);
    want_line w[128];
    size_t nw = spills_in_rewrite(rw, w, 128);
    cr_assert_gt(nw, 4, "too little spill code to test with");
    /* the kernel's rematerialisations, from regalloc's summary */
    const char *ks = strstr(err, SP_SYM ":"), *rm = ks ? strstr(ks, "rematerialised ") : NULL;
    cr_assert(rm, "no rematerialisations in regalloc's summary: %s", err);
    unsigned remat = (unsigned)atoi(rm + strlen("rematerialised "));
    cr_assert_gt(remat, 0);

    char *page = page_ofx(SAMPAIO, SP_SYM, extra);
    /* the line with the most spill code, to click */
    size_t best = 1;
    for (size_t i = 2; i < nw; i++)
        if (w[i].n[0] + w[i].n[1] + w[i].n[2] + w[i].n[3] > w[best].n[0] + w[best].n[1] + w[best].n[2] + w[best].n[3])
            best = i;
    char line[16];
    snprintf(line, sizeof line, "%u", w[best].line);
    static const char *pyname[] = {"python3"};
    char *py = src("tests/html_dom.py"), *python = on_path(pyname, 1);
    cr_assert(python);
    char *argv[] = {python, py, chromium, page, "0", line, NULL};
    json_t *dom = run_json(argv, 0);

    json_t *sp = json_object_get(dom, "spills"), *x;
    size_t i;
    unsigned seen = 0, got_remat = 0, total[5] = {0}, clicked[5] = {0};
    json_array_foreach(sp, i, x)
    {
        unsigned ln = (unsigned)json_integer_value(json_array_get(x, 0)), c[5];
        parse_ra(json_string_value(json_array_get(x, 1)), c);
        got_remat += c[4];
        for (int k = 0; k < 5; k++) total[k] += c[k];
        if (ln == w[best].line) memcpy(clicked, c, sizeof clicked);
        cr_assert_gt(ln, 0);
        size_t j = 1;
        while (j < nw && w[j].line != ln) j++;
        char want[160], got[160];
        ra_data(j < nw ? w[j].n : (unsigned[5]){0}, 4, want, sizeof want);
        ra_data(c, 4, got, sizeof got);
        cr_expect_str_eq(got, want, "line %u: spill code (rematerialisations aside)", ln);
        if (j < nw) seen++;
        /* one mark per kind, with its count */
        json_t *marks = json_array_get(x, 2);
        static const char *text[] = {"reload .local", "store .local", "reload .shared", "store .shared", "remat"};
        size_t m = 0;
        for (int k = 0; k < 5; k++) {
            if (!c[k]) continue;
            char t[64];
            snprintf(t, sizeof t, "%s \u00d7%u", text[k], c[k]);
            cr_expect_str_eq(json_string_value(json_array_get(marks, m)), t, "line %u", ln);
            m++;
        }
        cr_expect_eq(json_array_size(marks), m, "line %u", ln);
        /* memory spill code costs: the line is coloured */
        if (c[0] + c[1] + c[2] + c[3])
            cr_expect(!strstr(json_string_value(json_array_get(x, 3)), "c0"), "line %u not coloured", ln);
    }
    /* the code of no source line: a note says how much */
    const char *nol = json_string_value(json_object_get(dom, "noline"));
    unsigned c0[5] = {0};
    if (nol) parse_ra(nol, c0);
    char wnol[160], gnol[160];
    ra_data(w[0].n, 4, wnol, sizeof wnol);
    ra_data(c0, 4, gnol, sizeof gnol);
    cr_expect_str_eq(gnol, wnol, "spill code without a source line");
    for (int k = 0; k < 5; k++) total[k] += c0[k];
    got_remat += c0[4];
    seen++;
    cr_expect_eq(seen, nw, "%zu lines with spill code in the rewrite, %u of them marked", nw, seen);
    cr_expect_eq(got_remat, remat, "rematerialisations: %u marked, regalloc says %u", got_remat, remat);

    /* the summary states the run, its counts those of the rewrite */
    char want[256];
    snprintf(want, sizeof want, "mode aff, budget 8 units: ");
    const char *ra = json_string_value(json_object_get(dom, "regalloc"));
    cr_assert(ra, "no regalloc line in the summary");
    cr_expect(!strncmp(ra, want, strlen(want)), "%s", ra);
    snprintf(want, sizeof want, "%u reloads (%u .local, %u .shared", total[0] + total[2], total[0], total[2]);
    cr_expect(strstr(ra, want), "'%s' not in '%s'", want, ra);
    snprintf(want, sizeof want, "%u stores (%u .local, %u .shared), %u rematerialisations", total[1] + total[3],
             total[1], total[3], remat);
    cr_expect(strstr(ra, want), "'%s' not in '%s'", want, ra);

    /* the clicked line's PTX: each piece of its spill code beside its instruction */
    json_t *click = json_object_get(dom, "click");
    cr_assert(json_is_object(click), "line %s has no row", line);
    unsigned beside[5] = {0};
    json_t *row;
    json_array_foreach(json_object_get(click, "rows"), i, row)
    {
        size_t j;
        json_t *b;
        json_array_foreach(json_array_get(row, 3), j, b)
        {
            const char *t = json_string_value(b);
            bool shared = strstr(t, " .shared") != NULL;
            int k = !strncmp(t, "remat ", 6) ? 4 : !strncmp(t, "store ", 6) ? 1 + 2 * shared : 2 * shared;
            beside[k]++;
        }
    }
    for (int k = 0; k < 5; k++)
        cr_expect_eq(beside[k], clicked[k], "line %s: %u %s beside its PTX, %u on the line", line, beside[k],
                     ra_keys[k], clicked[k]);
    json_decref(dom);
    unlink(page);
    free(page);
    free(py);
    free(python);
    free(rw);
    free(err);
    free(ptx);
    free(chromium);
}

/* The same input and run, the same bytes; the regalloc options as
 * `ptxray regalloc` takes them, and only with the HTML page. */
Test(html, spill_marks_deterministic_and_options, .timeout = 120)
{
    static const char *const lin[] = {"--budget", "10", "--mode", "linear", NULL};
    char *a = page_ofx(SAMPAIO, NULL, lin), *b = page_ofx(SAMPAIO, NULL, lin), *plain = page_of(SAMPAIO, NULL);
    size_t na, nb, np;
    char *ta = tu_read(a, &na), *tb = tu_read(b, &nb), *tp = tu_read(plain, &np);
    cr_assert(ta && tb && tp);
    cr_expect(na == nb && !memcmp(ta, tb, na), "two runs gave different pages");
    cr_expect(strstr(ta, "<dt>regalloc</dt><dd class=\"ra\">mode linear, budget 10 units: "), "no regalloc summary");
    cr_expect(strstr(ta, " data-ra=\"") && strstr(ta, "ld.local="), "no spill marks");
    /* linear mode: everything to .local */
    cr_expect(!strstr(ta, "ld.shared=") && !strstr(ta, "st.shared=") && !strstr(ta, "remat="), "linear mode used shared slots");
    cr_expect(!strstr(tp, "data-ra=") && !strstr(tp, "<dt>regalloc</dt>"), "spill marks without --budget");
    unlink(a);
    unlink(b);
    unlink(plain);
    free(a);
    free(b);
    free(plain);
    free(ta);
    free(tb);
    free(tp);

    /* without .loc: every piece of spill code beside its instruction in
     * the PTX column, as many as regalloc's summary counts */
    size_t nt;
    char *t = tu_read(tu_src(SAMPAIO), &nt);
    cr_assert(t);
    for (char *p = t; (p = strstr(p, "\n\t.")) != NULL; p++)
        if (!strncmp(p + 2, ".loc", 4) || !strncmp(p + 2, ".file", 5))
            for (char *q = p + 1; *q && *q != '\n'; q++) *q = ' ';
    char path[] = "/tmp/ptxray-html-ranolocXXXXXX.ptx";
    int fd = mkstemps(path, 4);
    cr_assert(fd >= 0);
    cr_assert_eq(write(fd, t, nt), (ssize_t)nt);
    close(fd);
    char *err = NULL;
    char *rargv[] = {(char *)tu_bin(), "regalloc", path, "--budget", "8", "--kernel", SP_SYM, "-o", "/dev/null", NULL};
    free(tu_run_want(rargv, 0, &err));
    unsigned ll, ls, sl, ss, re;
    const char *lp = strstr(err, "loads: .local ");
    cr_assert(lp && sscanf(lp, "loads: .local %u, .shared %u; stores: .local %u, .shared %u; rematerialised %u", &ll,
                           &ls, &sl, &ss, &re) == 5,
              "%s", err);
    static const char *const b8[] = {"--budget", "8", NULL};
    char *pg = page_ofx(path, SP_SYM, b8);
    char *tx = tu_read(pg, NULL);
    const char *col = strstr(tx, "<table class=\"code ptx ptxmain\">"), *end = col ? strstr(col, "</table>") : NULL;
    cr_assert(col && end, "no PTX column");
    unsigned marks = 0;
    for (const char *q = col; (q = strstr(q, "<span class=\"b ra ")) && q < end; q++) marks++;
    cr_expect_eq(marks, ll + ls + sl + ss + re, "%u marks in the PTX column, regalloc: %u", marks, ll + ls + sl + ss + re);
    unlink(path);
    unlink(pg);
    free(pg);
    free(tx);
    free(t);
    free(err);

    char *in = src(SAMPAIO);
    struct {
        const char *args[4], *msg;
    } bad[] = {
        {{"--budget", "8", NULL}, "ptxray analyze: --budget (the spill code of a regalloc run) goes with --format html"},
        {{"--format", "html", "--mode", "div"}, "ptxray analyze: --mode, --max-threads and --smem-limit go with --budget"},
        {{"--format", "html", "--budget", "0"}, "ptxray analyze: --budget 0: expected a number from 1 to 65535"},
        {{"--format", "html", "--budget", "8"}, NULL},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *argv[10] = {(char *)tu_bin(), "analyze", in};
        size_t n = 3;
        for (int k = 0; k < 4 && bad[i].args[k]; k++) argv[n++] = (char *)bad[i].args[k];
        if (!bad[i].msg) { /* a bad --mode, as regalloc says it */
            argv[n++] = "--mode";
            argv[n++] = "fast";
        }
        argv[n] = NULL;
        char *out = NULL, *err = NULL;
        cr_expect_eq(tu_run(argv, &out, &err), 2, "case %zu", i);
        cr_expect_str_eq(out, "", "case %zu wrote output", i);
        cr_expect(strstr(err, bad[i].msg ? bad[i].msg : "ptxray analyze: --mode fast: expected linear, div or aff"),
                  "case %zu: %s", i, err);
        free(out);
        free(err);
    }
    free(in);
}

/* analyze's page runs the allocator on the module it shows, not on a second
 * parse of the text (issue 33: nothing parses twice), and each function is
 * as parsed afterwards: the same text printed, while the run's sites name
 * the spill code it made.  Budget 8 spills in regtile_16x16's kernel. */
Test(html, spill_run_leaves_the_module_as_parsed, .timeout = 60)
{
    const char *path = tu_src("ptx-corpus/sm_80/regtile_16x16.ptx");
    ptx_module *m = ptx_load(path, 1);
    cr_assert_not_null(m);
    size_t n0, n1;
    char *before = tu_print(m, &n0);
    ra_options o;
    memset(&o, 0, sizeof o);
    o.mode = RA_MODE_AFF;
    o.budget = 8;
    ra_stats st;
    cr_assert_eq(html_ra_run(m, path, &o, &st), 0);
    uint32_t sites = 0, spilled = 0;
    for (uint32_t k = 0; k < st.nfuncs; k++) sites += st.funcs[k].nsites, spilled += st.funcs[k].spilled;
    cr_expect_gt(spilled, 0u, "nothing spilled: the test needs spill code");
    cr_expect_gt(sites, 0u);
    char *after = tu_print(m, &n1);
    cr_expect(n0 == n1 && !memcmp(before, after, n0), "the module changed");
    free(before);
    free(after);
    ra_stats_free(&st);
    ptx_module_free(m);
}
