/* The whole corpus: every file parses without a diagnostic, printing is a
 * fixed point, and (with ptxas) printed PTX assembles to identical code. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"
#include "toolchain.h"

Test(corpus, every_file_parses_cleanly, .timeout = 600) {
    size_t n;
    char **files = tu_list_ptx(tu_src("ptx-corpus"), &n);
    cr_assert_geq(n, 120, "corpus has only %zu PTX files", n);
    size_t insts = 0, kernels = 0;
    for (size_t i = 0; i < n; i++) {
        ptx_diags d;
        ptx_diags_init(&d);
        ptx_module *m = ptx_parse_file(files[i], &d);
        if (!m || d.n) ptx_diags_print(&d, files[i], NULL, 0, stderr);
        cr_expect_not_null(m, "%s does not parse", files[i]);
        cr_expect_eq(d.n, 0, "%s: %u diagnostics", files[i], d.n);
        if (m) {
            for (uint32_t k = 0; k < m->nfuncs; k++) {
                insts += m->funcs[k]->ninsts;
                kernels += m->funcs[k]->is_entry && m->funcs[k]->has_body;
            }
        }
        ptx_module_free(m);
        ptx_diags_free(&d);
    }
    cr_expect_geq(kernels, 120);
    cr_expect_gt(insts, 10000);
    tu_free_list(files, n);
}

Test(corpus, printing_is_a_fixed_point, .timeout = 600) {
    size_t n;
    char **files = tu_list_ptx(tu_src("ptx-corpus"), &n);
    for (size_t i = 0; i < n; i++) {
        ptx_diags d;
        ptx_diags_init(&d);
        ptx_module *m = ptx_parse_file(files[i], &d);
        cr_assert_not_null(m, "%s", files[i]);
        size_t l1, l2;
        char *p1 = tu_print(m, &l1);
        ptx_module *m2 = ptx_parse_string("printed", p1, l1, &d);
        if (!m2) ptx_diags_print(&d, "printed", p1, l1, stderr);
        cr_assert_not_null(m2, "printed %s does not parse", files[i]);
        char *p2 = tu_print(m2, &l2);
        cr_expect(l1 == l2 && memcmp(p1, p2, l1) == 0, "%s: print(parse(print(x))) != print(x)", files[i]);
        /* the printed module has the same shape */
        cr_expect_eq(m->nfuncs, m2->nfuncs);
        for (uint32_t k = 0; k < m->nfuncs && k < m2->nfuncs; k++)
            cr_expect_eq(m->funcs[k]->ninsts, m2->funcs[k]->ninsts, "%s", files[i]);
        free(p1);
        free(p2);
        ptx_module_free(m);
        ptx_module_free(m2);
        ptx_diags_free(&d);
    }
    tu_free_list(files, n);
}

/* The printer's oracle: ptxas on the original and on the printed file must
 * give byte-identical .text sections, for every corpus file. */
Test(corpus, ptxas_code_identical_after_print, .timeout = 1200) {
    if (!tc_find_ptxas()) cr_skip_test("ptxas not found: round trip not checked");
    size_t n, nd;
    char **files = tu_list_ptx(tu_src("ptx-corpus"), &n);
    char **extra = tu_list_ptx(tu_src("tests/data"), &nd);
    char **argv = calloc(n + nd + 3, sizeof *argv);
    argv[0] = (char *)tu_bin();
    argv[1] = "roundtrip";
    for (size_t i = 0; i < n; i++) argv[2 + i] = files[i];
    for (size_t i = 0; i < nd; i++) argv[2 + n + i] = extra[i];
    char *out, *err;
    int rc = tu_run(argv, &out, &err);
    char want[64];
    snprintf(want, sizeof want, "%zu identical, 0 different, 0 failed\n", n + nd);
    if (rc != 0 || !strstr(out, want)) fprintf(stderr, "%s%s", out, err);
    cr_expect_eq(rc, 0);
    cr_expect(strstr(out, want) != NULL, "expected '%s'", want);
    free(out);
    free(err);
    free(argv);
    tu_free_list(files, n);
    tu_free_list(extra, nd);
}

Test(corpus, has_the_required_kernels) {
    const char *need[] = {"avgSquare", "sumTriangle", "Fan1", "Fan2"};
    size_t n;
    char **files = tu_list_ptx(tu_src("ptx-corpus/sm_80"), &n);
    for (size_t k = 0; k < sizeof need / sizeof need[0]; k++) {
        int found = 0;
        for (size_t i = 0; i < n && !found; i++) {
            char *t = tu_read(files[i], NULL);
            found = t && strstr(t, need[k]) != NULL;
            free(t);
        }
        cr_expect(found, "no corpus kernel named %s", need[k]);
    }
    tu_free_list(files, n);
}
