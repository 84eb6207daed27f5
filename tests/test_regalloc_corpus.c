/* The allocator over the whole corpus, every mode at budgets 8, 12, 16, 24
 * and 32: the pressure it leaves (measured again by liveness on the
 * rewritten code) is within the budget wherever no single instruction
 * needs more, printing the result is a fixed point, and (with ptxas) the
 * output assembles for the file's own target. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "liveness.h"
#include "program.h"
#include "regalloc.h"
#include "testutil.h"
#include "toolchain.h"

static const unsigned budgets[] = {8, 12, 16, 24, 32};
static const enum ra_mode modes[] = {RA_MODE_LINEAR, RA_MODE_DIV, RA_MODE_AFF};
#define NBUDGET (sizeof budgets / sizeof budgets[0])
#define NMODE (sizeof modes / sizeof modes[0])

static ptx_module *load(const char *path)
{
    ptx_diags d;
    ptx_diags_init(&d);
    ptx_module *m = ptx_parse_file(path, &d);
    cr_assert_not_null(m, "%s", path);
    ptx_diags_free(&d);
    return m;
}

static unsigned kernels(const ptx_module *m)
{
    unsigned n = 0;
    for (uint32_t i = 0; i < m->nfuncs; i++) n += m->funcs[i]->is_entry && m->funcs[i]->has_body;
    return n;
}

/* The rewritten module's text, or NULL (test failed). */
static char *rewrite(const char *path, enum ra_mode mode, unsigned budget, ra_stats *st, size_t *len)
{
    ptx_module *m = load(path);
    ra_options o;
    memset(&o, 0, sizeof o);
    o.mode = mode;
    o.budget = budget;
    o.measure_after = true;
    ptx_diags d;
    ptx_diags_init(&d);
    int rc = ra_run(m, &o, st, &d);
    ptx_diags_free(&d);
    cr_assert_eq(rc, 0, "%s %s %u", path, ra_mode_name(mode), budget);
    char *text = tu_print(m, len);
    ptx_module_free(m);
    return text;
}

Test(regalloc_corpus, pressure_within_budget_and_print_fixed_point, .timeout = 600)
{
    size_t n;
    char **files = tu_list_ptx(tu_src("ptx-corpus"), &n);
    cr_assert_geq(n, 160);
    unsigned combos = 0, funcs = 0, over = 0, spilled_funcs = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t mi = 0; mi < NMODE; mi++)
            for (size_t bi = 0; bi < NBUDGET; bi++) {
                ra_stats st;
                size_t len;
                char *text = rewrite(files[i], modes[mi], budgets[bi], &st, &len);
                const char *what = ra_mode_name(modes[mi]);
                for (uint32_t k = 0; k < st.nfuncs; k++) {
                    const ra_func_stats *f = &st.funcs[k];
                    funcs++;
                    spilled_funcs += f->spilled > 0;
                    if (f->over_budget) {
                        over++;
                        continue;
                    }
                    cr_expect_leq(f->pressure_after, budgets[bi], "%s %s %u: %s pressure %u -> %u", files[i], what,
                                  budgets[bi], f->name, f->pressure_before, f->pressure_after);
                    if (!f->spilled) cr_expect_leq(f->pressure_before, budgets[bi]);
                }
                ra_stats_free(&st);
                ptx_diags d;
                ptx_diags_init(&d);
                ptx_module *m2 = ptx_parse_string("rewritten", text, len, &d);
                if (!m2) ptx_diags_print(&d, "rewritten", text, len, stderr);
                cr_assert_not_null(m2, "%s %s %u: the output does not parse", files[i], what, budgets[bi]);
                cr_expect_eq(d.n, 0, "%s %s %u: %u diagnostics", files[i], what, budgets[bi], d.n);
                ptx_diags_free(&d);
                size_t len2;
                char *again = tu_print(m2, &len2);
                cr_expect(len == len2 && !memcmp(text, again, len), "%s %s %u: printing is not a fixed point",
                          files[i], what, budgets[bi]);
                free(again);
                free(text);
                ptx_module_free(m2);
                combos++;
            }
    cr_expect_eq(combos, n * NMODE * NBUDGET);
    cr_expect_gt(spilled_funcs, funcs / 4);
    cr_log_info("%u file x mode x budget combinations, %u functions allocated (%u with spills, %u with an "
                "instruction over the budget by itself)",
                combos, funcs, spilled_funcs, over);
    tu_free_list(files, n);
}

/* One ptxas run per file, mode and budget (outputs identical to one
 * already assembled, typically nothing spilled at 24 and 32, are not run
 * again). */
Test(regalloc_ptxas, corpus_assembles_in_every_mode, .timeout = 1200)
{
    const char *ptxas = tc_find_ptxas();
    if (!ptxas) cr_skip_test("ptxas not found: the rewritten corpus is not assembled");
    size_t n;
    char **files = tu_list_ptx(tu_src("ptx-corpus"), &n);
    char tmp[] = "/tmp/ptxray-ra-ptxasXXXXXX";
    cr_assert_not_null(mkdtemp(tmp));
    char ptx[600], cubin[600];
    snprintf(ptx, sizeof ptx, "%s/x.ptx", tmp);
    snprintf(cubin, sizeof cubin, "%s/x.cubin", tmp);
    unsigned runs = 0, ok = 0, kernel_combos = 0, kernel_ok = 0;
    for (size_t i = 0; i < n; i++) {
        ptx_module *m = load(files[i]);
        char arch[32], archopt[48];
        cr_assert_eq(tc_target_arch(m, arch, sizeof arch), 0, "%s", files[i]);
        snprintf(archopt, sizeof archopt, "-arch=%s", arch);
        bool debug = tc_target_debug(m);
        unsigned nk = kernels(m);
        ptx_module_free(m);
        char *seen[NMODE * NBUDGET];
        bool seen_ok[NMODE * NBUDGET];
        unsigned nseen = 0;
        for (size_t mi = 0; mi < NMODE; mi++)
            for (size_t bi = 0; bi < NBUDGET; bi++) {
                ra_stats st;
                size_t len;
                char *text = rewrite(files[i], modes[mi], budgets[bi], &st, &len);
                ra_stats_free(&st);
                kernel_combos += nk;
                int same = -1;
                for (unsigned k = 0; k < nseen && same < 0; k++)
                    if (!strcmp(seen[k], text)) same = (int)k;
                bool pass;
                if (same >= 0) {
                    pass = seen_ok[same];
                    free(text);
                } else {
                    FILE *f = fopen(ptx, "w");
                    cr_assert_not_null(f);
                    fwrite(text, 1, len, f);
                    fclose(f);
                    char *argv[] = {(char *)ptxas, archopt, debug ? "-g" : "-O3", ptx, "-o", cubin, NULL};
                    char *log = NULL;
                    int rc = tc_run(argv, &log);
                    runs++;
                    pass = rc == 0;
                    cr_expect(pass, "%s %s budget %u: ptxas %s failed:\n%.2000s", files[i],
                              ra_mode_name(modes[mi]), budgets[bi], archopt, log ? log : "");
                    free(log);
                    seen[nseen] = text;
                    seen_ok[nseen++] = pass;
                }
                ok += pass;
                kernel_ok += pass ? nk : 0;
            }
        for (unsigned k = 0; k < nseen; k++) free(seen[k]);
    }
    cr_expect_eq(ok, n * NMODE * NBUDGET);
    cr_log_info("%u of %zu file x mode x budget combinations assemble (%u of %u kernel combinations), %u ptxas runs",
                ok, n * NMODE * NBUDGET, kernel_ok, kernel_combos, runs);
    unlink(ptx);
    unlink(cubin);
    rmdir(tmp);
    tu_free_list(files, n);
}

/* Liveness from the SSA's recorded references (what the pass uses) and
 * from the instructions themselves (what measures the rewritten code)
 * agree on every corpus function: instructions, occurrences and roles in
 * order, semantics flags and the live-in/live-out sets. */
Test(regalloc_corpus, liveness_from_ssa_matches_liveness_from_instructions)
{
    size_t n;
    char **files = tu_list_ptx(tu_src("ptx-corpus"), &n);
    cr_assert_geq(n, 160);
    unsigned funcs = 0, occs = 0;
    for (size_t i = 0; i < n; i++) {
        ptx_module *m = load(files[i]);
        ptx_diags d;
        ptx_diags_init(&d);
        prog *p = prog_build(m, PROG_SSA, NULL, &d);
        ptx_diags_free(&d);
        cr_assert_not_null(p, "%s", files[i]);
        for (uint32_t k = 0; k < p->nfuncs; k++) {
            arena a;
            arena_init(&a);
            const ra_live *x = ra_live_build(p->funcs[k].fn, p->funcs[k].g, &a);
            const ra_live *y = ra_live_build_ssa(p->funcs[k].ssa, &a);
            const char *fn = files[i];
            cr_assert_eq(x->ninst, y->ninst, "%s", fn);
            cr_assert_eq(x->nregs, y->nregs, "%s", fn);
            cr_assert_eq(memcmp(x->inst_stmt, y->inst_stmt, x->ninst * sizeof *x->inst_stmt), 0, "%s", fn);
            cr_assert_eq(memcmp(x->occ_off, y->occ_off, (x->ninst + 1) * sizeof *x->occ_off), 0, "%s", fn);
            for (uint32_t j = 0; j < x->occ_off[x->ninst]; j++) {
                cr_assert_eq(x->occ[j].reg, y->occ[j].reg, "%s occurrence %u", fn, j);
                cr_assert_eq(x->occ[j].role, y->occ[j].role, "%s occurrence %u", fn, j);
            }
            size_t words = (size_t)p->funcs[k].g->nblocks * x->words;
            cr_assert_eq(memcmp(x->in, y->in, words * sizeof *x->in), 0, "%s live-in", fn);
            cr_assert_eq(memcmp(x->out, y->out, words * sizeof *x->out), 0, "%s live-out", fn);
            cr_assert_eq(memcmp(x->sem_flags, y->sem_flags, p->funcs[k].fn->nstmts * sizeof *x->sem_flags), 0,
                         "%s", fn);
            funcs++;
            occs += x->occ_off[x->ninst];
            arena_free(&a);
        }
        prog_free(p);
        ptx_module_free(m);
    }
    cr_assert_geq(funcs, 500, "%u functions", funcs);
    cr_log_info("liveness: %u functions, %u occurrences agree\n", funcs, occs);
    tu_free_list(files, n);
}
