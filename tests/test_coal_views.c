/* One model, several views (issue 33): `coalescing`, `check` and `analyze`
 * report the same verdict for the same access at the same shape, because
 * all three take it from coal_verdict_of (analyses/coalescing.h).  Over
 * every corpus file, at the default shape and at 256x1x1, 16x16x1 and
 * 8x32x1, the findings of the three commands' JSON reports must agree:
 * the same rule, PTX lines, certainty and excess sectors (or wavefronts).
 * check and analyze group a source line's instructions into one finding
 * (proven when any of them is, its excess their sum); coalescing lists each
 * access, so its findings are grouped the same way to compare. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"

/* One finding: "file|symbol|rule|ptx lines" -> certainty and excess. */
typedef struct vf {
    char key[8192];
    char cert[16];
    long long excess;
} vf;

typedef struct vlist {
    vf *v;
    size_t n, cap;
} vlist;

static void add(vlist *l, const char *key, const char *cert, long long excess)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 256;
        l->v = realloc(l->v, l->cap * sizeof *l->v);
        cr_assert_not_null(l->v);
    }
    vf *x = &l->v[l->n++];
    snprintf(x->key, sizeof x->key, "%s", key);
    snprintf(x->cert, sizeof x->cert, "%s", cert);
    x->excess = excess;
}

static int cmp_vf(const void *a, const void *b) { return strcmp(((const vf *)a)->key, ((const vf *)b)->key); }

static char **corpus(size_t *n)
{
    glob_t g;
    const char *pats[] = {"ptx-corpus/sm_*/*.ptx", "ptx-corpus/debug/*.ptx"};
    char **v = NULL;
    *n = 0;
    for (int i = 0; i < 2; i++) {
        char pat[1024];
        snprintf(pat, sizeof pat, "%s", tu_src(pats[i]));
        cr_assert_eq(glob(pat, 0, NULL, &g), 0, "%s", pat);
        v = realloc(v, (*n + g.gl_pathc) * sizeof *v);
        for (size_t k = 0; k < g.gl_pathc; k++) v[(*n)++] = strdup(g.gl_pathv[k]);
        globfree(&g);
    }
    return v;
}

static json_t *run(const char *cmd, const char *block, char **files, size_t nf)
{
    char **argv = calloc(nf + 10, sizeof *argv);
    size_t a = 0;
    argv[a++] = (char *)tu_bin();
    argv[a++] = (char *)cmd;
    argv[a++] = "--format";
    argv[a++] = "json";
    if (!strcmp(cmd, "analyze")) argv[a++] = "--no-ptxas";
    if (block) {
        argv[a++] = "--block";
        argv[a++] = (char *)block;
    }
    for (size_t i = 0; i < nf; i++) argv[a++] = files[i];
    argv[a] = NULL;
    char *out = NULL, *err = NULL;
    int st = tu_run(argv, &out, &err);
    cr_assert(st == 0 || st == 1, "%s --block %s: exit %d\n%s", cmd, block ? block : "-", st, err);
    json_error_t je;
    json_t *j = json_loads(out, 0, &je);
    cr_assert_not_null(j, "%s: %s", cmd, je.text);
    free(out);
    free(err);
    free(argv);
    return j;
}

/* The barrier and collective rules are not the coalescing model's:
 * check's and analyze's are compared with each other. */
static bool sync_rule(const char *rule) { return !strcmp(rule, "divergent-barrier") || !strcmp(rule, "divergent-collective"); }

/* A check or analyze finding (not a branch): the coalescing model's into
 * l, the barrier and collective rules' into sl. */
static void from_finding(vlist *l, vlist *sl, json_t *f)
{
    const char *rule = json_string_value(json_object_get(f, "rule"));
    if (!strcmp(rule, "divergent-branch")) return;
    if (sync_rule(rule)) l = sl;
    char key[8192];
    int n = snprintf(key, sizeof key, "%s|%s|%s|", json_string_value(json_object_get(f, "file")),
                     json_string_value(json_object_get(f, "symbol")), rule);
    size_t i;
    json_t *ln;
    json_array_foreach(json_object_get(f, "ptx_lines"), i, ln)
        if ((size_t)n < sizeof key - 24) n += snprintf(key + n, sizeof key - (size_t)n, "%lld,", (long long)json_integer_value(ln));
    add(l, key, json_string_value(json_object_get(f, "certainty")),
        (long long)json_integer_value(json_object_get(f, "excess")));
}

/* coalescing's accesses with a finding, grouped as check groups them: by
 * (kernel, source file and line, rule), else each on its own. */
static void from_coalescing(vlist *l, json_t *j)
{
    size_t fi, ki, ai;
    json_t *file, *k, *a;
    json_array_foreach(json_object_get(j, "files"), fi, file) {
        const char *path = json_string_value(json_object_get(file, "file"));
        json_array_foreach(json_object_get(file, "kernels"), ki, k) {
            const char *sym = json_string_value(json_object_get(k, "symbol"));
            vlist g = {NULL, 0, 0};
            const char *spaces[] = {"accesses", "shared_accesses"};
            for (int s = 0; s < 2; s++)
                json_array_foreach(json_object_get(k, spaces[s]), ai, a) {
                    json_t *fd = json_object_get(a, "finding");
                    if (!json_is_string(fd)) continue;
                    json_t *src = json_object_get(a, "src");
                    char place[600];
                    long long line = (long long)json_integer_value(json_object_get(a, "ptx_line"));
                    if (json_is_object(src))
                        snprintf(place, sizeof place, "src %s:%lld", json_string_value(json_object_get(src, "file")),
                                 (long long)json_integer_value(json_object_get(src, "line")));
                    else snprintf(place, sizeof place, "ptx %lld", line);
                    /* group key | line list so far in cert, excess */
                    size_t q = 0;
                    char gk[1024];
                    snprintf(gk, sizeof gk, "%s|%s", place, json_string_value(fd));
                    while (q < g.n && strncmp(g.v[q].key, gk, strlen(gk))) q++;
                    const char *cert = json_string_value(json_object_get(a, "certainty"));
                    long long ex = (long long)json_integer_value(json_object_get(a, "excess"));
                    if (q == g.n) {
                        char key[8192];
                        snprintf(key, sizeof key, "%s|%lld,", gk, line);
                        add(&g, key, cert, ex);
                    } else {
                        vf *x = &g.v[q];
                        size_t len = strlen(x->key);
                        if (len < sizeof x->key - 24) snprintf(x->key + len, sizeof x->key - len, "%lld,", line);
                        if (!strcmp(cert, "proven")) snprintf(x->cert, sizeof x->cert, "proven");
                        x->excess += ex;
                    }
                }
            for (size_t q = 0; q < g.n; q++) {
                /* "src F:L|rule|lines" -> "path|symbol|rule|lines" */
                const char *bar = strchr(g.v[q].key, '|');
                char key[8192];
                snprintf(key, sizeof key, "%s|%s|%s", path, sym, bar + 1);
                add(l, key, g.v[q].cert, g.v[q].excess);
            }
            free(g.v);
        }
    }
}

static void from_check(vlist *l, vlist *sl, json_t *j)
{
    size_t i;
    json_t *f;
    json_array_foreach(json_object_get(j, "findings"), i, f) from_finding(l, sl, f);
}

static void from_analyze(vlist *l, vlist *sl, json_t *j)
{
    size_t fi, ki, i;
    json_t *file, *k, *f;
    json_array_foreach(json_object_get(j, "files"), fi, file)
        json_array_foreach(json_object_get(file, "kernels"), ki, k)
            json_array_foreach(json_object_get(k, "findings"), i, f) from_finding(l, sl, f);
}

static void expect_same(const char *what, const char *block, vlist *a, vlist *b)
{
    /* an empty list has no array (qsort's argument must not be NULL) */
    if (a->n) qsort(a->v, a->n, sizeof *a->v, cmp_vf);
    if (b->n) qsort(b->v, b->n, sizeof *b->v, cmp_vf);
    size_t i = 0, k = 0, bad = 0;
    while ((i < a->n || k < b->n) && bad < 10) {
        int c = i == a->n ? 1 : k == b->n ? -1 : strcmp(a->v[i].key, b->v[k].key);
        if (c < 0) {
            cr_expect_fail("--block %s: %s only in coalescing: %s", block, what, a->v[i].key);
            bad++, i++;
            continue;
        }
        if (c > 0) {
            cr_expect_fail("--block %s: %s only in %s: %s", block, what, what, b->v[k].key);
            bad++, k++;
            continue;
        }
        if (strcmp(a->v[i].cert, b->v[k].cert) || a->v[i].excess != b->v[k].excess) {
            cr_expect_fail("--block %s: %s %s: coalescing %s excess %lld, %s %s excess %lld", block, what,
                           a->v[i].key, a->v[i].cert, a->v[i].excess, what, b->v[k].cert, b->v[k].excess);
            bad++;
        }
        i++, k++;
    }
}

Test(coal_views, same_findings_from_every_command, .timeout = 600)
{
    size_t nf;
    char **files = corpus(&nf);
    cr_assert_gt(nf, 100);
    const char *blocks[] = {NULL, "256,1,1", "16,16,1", "8,32,1"};
    size_t total = 0;
    for (int b = 0; b < 4; b++) {
        vlist co = {NULL, 0, 0}, ch = {NULL, 0, 0}, an = {NULL, 0, 0}, sch = {NULL, 0, 0}, san = {NULL, 0, 0};
        json_t *j = run("coalescing", blocks[b], files, nf);
        from_coalescing(&co, j);
        json_decref(j);
        j = run("check", blocks[b], files, nf);
        from_check(&ch, &sch, j);
        json_decref(j);
        j = run("analyze", blocks[b], files, nf);
        from_analyze(&an, &san, j);
        json_decref(j);
        const char *bs = blocks[b] ? blocks[b] : "(default)";
        cr_expect_gt(co.n, 50, "--block %s: %zu findings", bs, co.n);
        expect_same("check", bs, &co, &ch);
        /* analyze: the same grouping, rebuilt from coalescing's list */
        qsort(co.v, co.n, sizeof *co.v, cmp_vf);
        expect_same("analyze", bs, &co, &an);
        /* the barrier and collective rules: check's ("only in coalescing") against analyze's */
        expect_same("analyze", bs, &sch, &san);
        total += co.n;
        free(sch.v);
        free(san.v);
        free(co.v);
        free(ch.v);
        free(an.v);
    }
    cr_expect_gt(total, 400);
    for (size_t i = 0; i < nf; i++) free(files[i]);
    free(files);
}
