/* A kernel launched with several block shapes (issue 21, item 2): check,
 * coalescing, divergence, uniformize and analyze analyse it at each shape
 * its host code launches it with, and a finding says at which shapes it
 * holds.  tests/data/launches/shapes.cu launches rowsum at 32x8x1, 4x64x1
 * and 2x128x1 (its load of one word per row and its branch on threadIdx.y
 * are clean at 32x8x1 only) and flat at 256x1x1 and at a shape computed at
 * run time; shapes.ptx is its PTX.  The launches JSON is written by hand
 * (the fields `ptxray launches` writes and --launches reads), so that no
 * libclang is needed, and one test checks `ptxray launches` writes the
 * same shapes. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "testutil.h"

#define BIN (char *)tu_bin()
#define CU "tests/data/launches/shapes.cu"
#define PTX "tests/data/launches/shapes.ptx"

static json_t *run_json(char **argv, int want)
{
    char *out = tu_run_want(argv, want, NULL);
    json_error_t je;
    json_t *j = json_loads(out, 0, &je);
    cr_assert_not_null(j, "%s: %s", je.text, out);
    free(out);
    return j;
}

/* A launches file: rowsum at the shapes given ("[32, 8, 1]" at line 28,
 * ...), flat at 256x1x1 with `unknown` launches of an unknown shape. */
static void launches_file(char path[64], const char *const *rowsum, const int *lines, int n, int unknown)
{
    strcpy(path, "/tmp/ptxray-shapes-XXXXXX");
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    FILE *f = fdopen(fd, "w");
    cr_assert_not_null(f);
    fputs("{\"kernels\": [{\"name\": \"rowsum\", \"shapes\": [", f);
    for (int i = 0; i < n; i++)
        fprintf(f, "%s{\"block\": %s, \"launches\": [{\"at\": \"" CU ":%d:3\"}]}", i ? ", " : "", rowsum[i], lines[i]);
    fputs("], \"unknown\": []},\n {\"name\": \"flat\", \"shapes\": [{\"block\": [256, 1, 1], \"launches\": [{\"at\": "
          "\"" CU ":31:3\"}]}], \"unknown\": [",
          f);
    for (int i = 0; i < unknown; i++) fprintf(f, "%s{\"at\": \"" CU ":33:3\", \"why\": \"run time\"}", i ? ", " : "");
    fputs("]}]}\n", f);
    fclose(f);
}

static const char *const all3[] = {"[32, 8, 1]", "[4, 64, 1]", "[2, 128, 1]"};
static const int lines3[] = {28, 29, 30};

#define AT29 "4x64x1 (host-code launch at " CU ":29:3)"
#define AT30 "2x128x1 (host-code launch at " CU ":30:3)"

/* `ptxray launches` finds the shapes the hand-written files give. */
Test(launch_shapes, launches_of_the_source)
{
    tu_at_root();
    char *a[] = {BIN, "launches", "--builtin-cuda", CU, NULL};
    char *out = tu_run_want(a, 0, NULL);
    cr_expect(strstr(out, "rowsum  (" CU ":10)\n  32x8x1 from " CU ":28:3 (<<<>>>)\n  4x64x1 from " CU
                          ":29:3 (<<<>>>)\n  2x128x1 from " CU ":30:3 (<<<>>>)\n"),
              "%s", out);
    cr_expect(strstr(out, "flat  (" CU ":20)\n  256x1x1 from " CU ":31:3 (<<<>>>)\n  unknown at " CU ":33:3"), "%s",
              out);
    free(out);
}

/* check: each finding once, with the shapes it holds at; the cost is the
 * highest of them, the message that of the costliest. */
Test(launch_shapes, check_text_json_sarif)
{
    tu_at_root();
    char js[64];
    launches_file(js, all3, lines3, 3, 1);
    char *t[] = {BIN, "check", "--enable", "divergent-branch", "--launches", js, PTX, NULL};
    char *out = tu_run_want(t, 1, NULL);
    cr_expect(strstr(out, CU ":12:3: warning: uncoalesced global load: no single stride (0 B along tid.x, warp 0 of 8), "
                          "16 sectors/request, ideal 2 [uncoalesced]\n"),
              "%s", out);
    cr_expect(strstr(out, PTX ":37:2: note: in rowsum: 1 PTX instruction, 14 excess sectors, cost 14\n" PTX
                          ":37:2: note: holds at 2 of the 3 launch shapes analysed: " AT29 ", " AT30 "\n"),
              "%s", out);
    cr_expect(strstr(out, PTX ":44:2: note: holds at 2 of the 3 launch shapes analysed: " AT29 ", " AT30 "\n"), "%s",
                     out);
    cr_expect(strstr(out, "ptxray check: 1 files, 2 findings (uncoalesced 1, misaligned 0, bank-conflict 0, "
                          "divergent-branch 1, divergent-barrier 0, divergent-collective 0; 1 proven, 1 possible)"),
              "%s", out);
    free(out);
    char *j[] = {BIN, "check", "--format", "json", "--launches", js, PTX, NULL};
    json_t *r = run_json(j, 1);
    json_t *fs = json_object_get(r, "findings");
    cr_assert_eq(json_array_size(fs), 1);
    json_t *f = json_array_get(fs, 0);
    cr_expect_eq(json_integer_value(json_object_get(f, "cost")), 14);
    cr_expect_eq(json_integer_value(json_object_get(f, "shapes_analysed")), 3);
    json_t *at = json_object_get(f, "holds_at");
    cr_assert_eq(json_array_size(at), 2);
    static const int want[2][4] = {{4, 64, 1, 7}, {2, 128, 1, 14}};
    for (size_t k = 0; k < 2; k++) {
        json_t *s = json_array_get(at, k);
        for (size_t d = 0; d < 3; d++)
            cr_expect_eq(json_integer_value(json_array_get(json_object_get(s, "block"), d)), want[k][d]);
        cr_expect_eq(json_integer_value(json_object_get(s, "cost")), want[k][3]);
        cr_expect_str_eq(json_string_value(json_object_get(s, "certainty")), "proven");
    }
    cr_expect_str_eq(json_string_value(json_object_get(json_array_get(at, 1), "from")),
                     "host-code launch at " CU ":30:3");
    json_decref(r);
    char *s[] = {BIN, "check", "--format", "sarif", "--launches", js, PTX, NULL};
    r = run_json(s, 1);
    json_t *res = json_object_get(json_array_get(json_object_get(r, "runs"), 0), "results");
    cr_assert_eq(json_array_size(res), 1);
    json_t *props = json_object_get(json_array_get(res, 0), "properties");
    cr_expect_eq(json_integer_value(json_object_get(props, "shapesAnalysed")), 3);
    cr_expect_eq(json_array_size(json_object_get(props, "holdsAt")), 2);
    cr_expect_eq(json_integer_value(json_object_get(props, "cost")), 14);
    json_decref(r);
    unlink(js);
}

static char *fingerprint(char **argv, int want)
{
    json_t *r = run_json(argv, want);
    json_t *fs = json_object_get(r, "findings");
    cr_assert_eq(json_array_size(fs), 1);
    char *fp = strdup(json_string_value(json_object_get(json_array_get(fs, 0), "fingerprint")));
    json_decref(r);
    return fp;
}

/* A shape is no part of a fingerprint: a baseline written with one shape,
 * --block or several shapes suppresses the same finding. */
Test(launch_shapes, fingerprints)
{
    tu_at_root();
    char one[64], three[64];
    launches_file(one, all3 + 1, lines3 + 1, 1, 0);
    launches_file(three, all3, lines3, 3, 0);
    char *a[] = {BIN, "check", "--format", "json", "--launches", one, PTX, NULL};
    char *b[] = {BIN, "check", "--format", "json", "--launches", three, PTX, NULL};
    char *c[] = {BIN, "check", "--format", "json", "--block", "rowsum=4,64,1", PTX, NULL};
    char *fa = fingerprint(a, 1), *fb = fingerprint(b, 1), *fc = fingerprint(c, 1);
    cr_expect_str_eq(fa, fb);
    cr_expect_str_eq(fa, fc);
    /* one shape: the finding names it */
    char *t[] = {BIN, "check", "--launches", one, PTX, NULL};
    char *out = tu_run_want(t, 1, NULL);
    cr_expect(strstr(out, PTX ":37:2: note: block " AT29 "\n"), "%s", out);
    free(out);
    free(fa);
    free(fb);
    free(fc);
    unlink(one);
    unlink(three);
}

/* coalescing: a warning once per distinct verdict, with its shapes (here
 * the sectors differ: one at each); JSON: one entry per kernel and shape. */
Test(launch_shapes, coalescing)
{
    tu_at_root();
    char js[64];
    launches_file(js, all3, lines3, 3, 0);
    char *t[] = {BIN, "coalescing", "--launches", js, PTX, NULL};
    char *out = tu_run_want(t, 0, NULL);
    cr_expect(strstr(out, CU ":12:3: warning: uncoalesced global load: no single stride (0 B along tid.x, warp 0 of 8), "
                          "8 sectors/request, ideal 1 [uncoalesced]\n" PTX ":37:2: note: in rowsum: ld.global.f32\n" PTX
                          ":37:2: note: holds at 1 of the 3 launch shapes analysed: " AT29 "\n"),
              "%s", out);
    cr_expect(strstr(out, "16 sectors/request, ideal 2 [uncoalesced]\n" PTX ":37:2: note: in rowsum: ld.global.f32\n" PTX
                          ":37:2: note: holds at 1 of the 3 launch shapes analysed: " AT30 "\n"),
              "%s", out);
    cr_expect(strstr(out, PTX ": 3 global accesses, 1 uncoalesced;"), "%s", out);
    free(out);
    char *j[] = {BIN, "coalescing", "--format", "json", "--launches", js, PTX, NULL};
    json_t *r = run_json(j, 0);
    json_t *ks = json_object_get(r, "kernels");
    cr_assert_eq(json_array_size(ks), 4);
    static const char *const origin[4] = {"host-code launch at " CU ":28:3", "host-code launch at " CU ":29:3",
                                          "host-code launch at " CU ":30:3", "host-code launch at " CU ":31:3"};
    static const int unc[4] = {0, 1, 1, 0};
    for (size_t k = 0; k < 4; k++) {
        json_t *kj = json_array_get(ks, k);
        cr_expect_str_eq(json_string_value(json_object_get(kj, "name")), k < 3 ? "rowsum" : "flat");
        cr_expect_str_eq(json_string_value(json_object_get(json_object_get(kj, "block"), "origin")), origin[k]);
        cr_expect_eq(json_integer_value(json_object_get(json_object_get(kj, "summary"), "uncoalesced")), unc[k]);
    }
    json_decref(r);
    char *s[] = {BIN, "coalescing", "--format", "sarif", "--launches", js, PTX, NULL};
    r = run_json(s, 0);
    json_t *res = json_object_get(json_array_get(json_object_get(r, "runs"), 0), "results");
    cr_assert_eq(json_array_size(res), 2);
    json_t *at = json_object_get(json_object_get(json_array_get(res, 1), "properties"), "holdsAt");
    cr_assert_eq(json_array_size(at), 1);
    cr_expect_eq(json_integer_value(json_array_get(json_object_get(json_array_get(at, 0), "block"), 1)), 128);
    json_decref(r);
    unlink(js);
}

/* divergence: a report per kernel and shape, each naming its launch. */
Test(launch_shapes, divergence)
{
    tu_at_root();
    char js[64];
    launches_file(js, all3, lines3, 3, 0);
    char *j[] = {BIN, "divergence", "--format", "json", "--values", "none", "--launches", js, PTX, NULL};
    json_t *r = run_json(j, 0);
    json_t *ks = json_object_get(r, "kernels");
    cr_assert_eq(json_array_size(ks), 4);
    static const int divergent[4] = {0, 1, 1, 0};
    for (size_t k = 0; k < 4; k++) {
        json_t *kj = json_array_get(ks, k);
        json_t *as = json_object_get(kj, "assumptions");
        char want[128];
        snprintf(want, sizeof want, "host-code launch at " CU ":%d:3", 28 + (int)k);
        cr_expect_str_eq(json_string_value(json_object_get(as, "block_from")), want);
        cr_expect_eq(json_integer_value(json_object_get(json_object_get(json_object_get(kj, "stats"), "affine"),
                                                        "branches_divergent")),
                     divergent[k], "entry %zu", k);
    }
    json_decref(r);
    char *t[] = {BIN, "divergence", "--summary", "--launches", js, PTX, NULL};
    char *out = tu_run_want(t, 0, NULL);
    cr_expect(strstr(out, "rowsum [4x64x1] "), "%s", out);
    cr_expect(strstr(out, "rowsum [2x128x1] "), "%s", out);
    cr_expect(strstr(out, " flat "), "%s", out);
    free(out);
    unlink(js);
}

/* uniformize: a branch becomes .uni only when it is uniform at every shape
 * the kernel is launched with, and, when one of its launches has a shape
 * not known, under the default assumption too (where a verdict that needs
 * blockDim.x to be a multiple of 32 is not enough). */
Test(launch_shapes, uniformize)
{
    tu_at_root();
    static const char *const wide[] = {"[32, 8, 1]", "[64, 4, 1]"};
    struct {
        const char *const *shapes;
        int n, unknown;
        bool rowsum_uni, flat_uni;
    } cases[] = {
        {wide, 2, 0, true, true},   /* 32 and 64 wide: tid.y the same across each warp */
        {all3, 3, 0, false, true},  /* 4x64x1 splits warps on tid.y */
        {all3, 1, 1, true, false},  /* flat: also a launch of run-time shape */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char js[64];
        launches_file(js, cases[i].shapes, lines3, cases[i].n, cases[i].unknown);
        char *u[] = {BIN, "uniformize", "--launches", js, PTX, NULL};
        char *err;
        char *out = tu_run_want(u, 0, &err);
        cr_expect(strstr(out, cases[i].rowsum_uni ? "@%p3 bra.uni \t$L__BB0_6;" : "@%p3 bra \t$L__BB0_6;"),
                  "case %zu: %s", i, out);
        cr_expect(strstr(out, cases[i].flat_uni ? "@%p1 bra.uni \t$L__BB1_2;" : "@%p1 bra \t$L__BB1_2;"),
                  "case %zu: %s", i, out);
        if (!cases[i].flat_uni)
            cr_expect(strstr(err, "1 left as written (uniform only if blockDim.x is a multiple of 32"), "%s", err);
        free(out);
        free(err);
        unlink(js);
    }
}

/* analyze: one report per kernel; the values and branches at each shape,
 * each finding once with its shapes. */
Test(launch_shapes, analyze)
{
    tu_at_root();
    char js[64];
    launches_file(js, all3, lines3, 3, 0);
    char *a[] = {BIN, "analyze", "--launches", js, PTX, NULL};
    char *out = tu_run_want(a, 0, NULL);
    cr_expect(strstr(out, "== kernel rowsum ==\nblock: 3 launch shapes, analysed at each: 32x8x1 (host-code launch at " CU
                          ":28:3), " AT29 ", " AT30 "\n"
                          "values at 32x8x1: 43; uniform 90.7%, affine 9.3%, divergent 0.0% (affine analysis, degree 2)\n"
                          "branches at 32x8x1: 5 conditional, 0 not proven uniform\n"),
              "%s", out);
    cr_expect(strstr(out, "branches at 4x64x1: 5 conditional, 1 not proven uniform\n"), "%s", out);
    cr_expect(strstr(out, "findings by cost (2):\n  1. [uncoalesced, proven] " CU ":12:3, PTX line 37, cost 14\n"), "%s",
              out);
    cr_expect(strstr(out, "     holds at 2 of the 3 launch shapes analysed: " AT29 ", " AT30 "\n  2. [divergent-branch"),
              "%s", out);
    cr_expect(strstr(out, "== kernel flat ==\nblock: 256x1x1 (host-code launch at " CU ":31:3)\nvalues: 8;"), "%s", out);
    const char *p = strstr(out, "== kernel rowsum ==");
    cr_expect(p && !strstr(p + 1, "== kernel rowsum =="), "one report for rowsum:\n%s", out);
    free(out);
    /* JSON: one entry per kernel, the values and branches at each shape in
     * at_shapes, and no top-level block/values for the multi-shape one */
    char *aj[] = {BIN, "analyze", "--format", "json", "--launches", js, PTX, NULL};
    json_t *r = run_json(aj, 0);
    json_t *ks = json_object_get(r, "kernels"), *rowsum = NULL, *flat = NULL;
    size_t i;
    json_t *k;
    json_array_foreach(ks, i, k) {
        const char *n = json_string_value(json_object_get(k, "name"));
        cr_expect(!(n && !strcmp(n, "rowsum") && rowsum), "rowsum twice");
        if (n && !strcmp(n, "rowsum")) rowsum = k;
        if (n && !strcmp(n, "flat")) flat = k;
    }
    cr_assert(rowsum && flat);
    json_t *at = json_object_get(rowsum, "at_shapes");
    cr_expect_eq(json_array_size(at), 3);
    cr_expect_null(json_object_get(rowsum, "values"));
    cr_expect_eq(json_integer_value(json_object_get(
                     json_object_get(json_array_get(at, 1), "branches"), "not_proven_uniform")),
                 1);
    cr_expect_eq(json_integer_value(json_array_get(
                     json_object_get(json_object_get(json_array_get(at, 1), "block"), "shape"), 1)),
                 64);
    cr_expect_eq(json_array_size(json_object_get(rowsum, "findings")), 2);
    cr_expect_eq(json_array_size(json_object_get(flat, "at_shapes")), 1);
    cr_expect_eq(json_integer_value(json_object_get(json_object_get(flat, "values"), "total")), 8);
    json_decref(r);
    unlink(js);
}

/* Item 3: every report names where each kernel's shape comes from, and
 * --block KERNEL= beats the launches: rowsum launched at 4x64x1 only. */
Test(launch_shapes, shape_named_in_every_report)
{
    tu_at_root();
    char js[64];
    launches_file(js, all3 + 1, lines3 + 1, 1, 0);
    const char *from = "host-code launch at " CU ":29:3";
    char *ct[] = {BIN, "check", "--launches", js, PTX, NULL};
    char *out = tu_run_want(ct, 1, NULL);
    cr_expect(strstr(out, PTX ":37:2: note: block " AT29 "\n"), "%s", out);
    free(out);
    char *cs[] = {BIN, "check", "--format", "sarif", "--launches", js, PTX, NULL};
    json_t *r = run_json(cs, 1);
    json_t *p = json_object_get(json_array_get(json_object_get(json_array_get(json_object_get(r, "runs"), 0), "results"), 0),
                                "properties");
    cr_expect_str_eq(json_string_value(json_object_get(json_array_get(json_object_get(p, "holdsAt"), 0), "from")), from);
    json_decref(r);
    char *kt[] = {BIN, "coalescing", "--launches", js, PTX, NULL};
    out = tu_run_want(kt, 0, NULL);
    cr_expect(strstr(out, PTX ":37:2: note: in rowsum: ld.global.f32\n" PTX ":37:2: note: block " AT29 "\n"), "%s", out);
    free(out);
    char *ks[] = {BIN, "coalescing", "--format", "sarif", "--launches", js, PTX, NULL};
    r = run_json(ks, 0);
    p = json_object_get(json_array_get(json_object_get(json_array_get(json_object_get(r, "runs"), 0), "results"), 0),
                        "properties");
    cr_expect_str_eq(json_string_value(json_object_get(json_array_get(json_object_get(p, "holdsAt"), 0), "from")), from);
    json_decref(r);
    char *dt[] = {BIN, "divergence", "--values", "none", "--kernel", "rowsum", "--launches", js, PTX, NULL};
    out = tu_run_want(dt, 0, NULL);
    cr_expect(strstr(out, "  block shape: 4,64,1 (from host-code launch at " CU ":29:3)\n"), "%s", out);
    free(out);
    char *at[] = {BIN, "analyze", "--launches", js, PTX, NULL};
    out = tu_run_want(at, 0, NULL);
    cr_expect(strstr(out, "== kernel rowsum ==\nblock: " AT29 "\n"), "%s", out);
    free(out);
    /* --block KERNEL= beats the launches, and the reports say so */
    char *bt[] = {BIN, "check", "--launches", js, "--block", "rowsum=2,128", PTX, NULL};
    out = tu_run_want(bt, 1, NULL);
    cr_expect(strstr(out, PTX ":37:2: note: block 2x128x1 (--block KERNEL=)\n"), "%s", out);
    free(out);
    unlink(js);
}
