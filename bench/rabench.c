/* ptxray-rabench: what the regalloc pass costs next to the analysis it
 * builds on (issue 7: "the pass itself costs at most 2x the analysis
 * time").
 *
 *   ptxray-rabench CORPUS_DIR [ROUNDS]
 *
 * Over every *.ptx under CORPUS_DIR (recursively, sorted), times
 *   analysis  parse + prog_build (GSA) + the affine divergence analysis of
 *             every function with a body;
 *   pass      parse + ra_run (which builds its own CFGs and SSA, and for
 *             the functions that spill the GSA and the analysis, then
 *             liveness, the scan, placement and the rewrite)
 * at budgets 8 and 16 in the three modes.  A round runs the analysis and
 * the six passes once each on a file; each file's time is its best of
 * ROUNDS (default 5) rounds, in CPU time of the thread so that a busy
 * machine does not skew the ratio; the totals are sums over the files.
 * (Repeating one configuration back to back instead let the analysis,
 * the smaller of the two, run from caches and branch predictors it had
 * warmed itself: its best fell about a third below its typical time, the
 * pass's about a fifth, which put 0.15 on the ratio.)
 * Prints both totals and pass/analysis per budget and mode (target <= 2),
 * and the file with the highest ratio. */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "gen.h" /* collect: the corpus files, sorted */
#include "divergence.h"
#include "program.h"
#include "ptx.h"
#include "regalloc.h"

static double cpu(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

/* One analysis run; -1 when the file does not build (skipped). */
static double time_analysis(const char *name, const char *text, size_t len)
{
    double t0 = cpu();
    ptx_diags d;
    ptx_diags_init(&d);
    ptx_module *m = ptx_parse_string(name, text, len, &d);
    prog *p = m ? prog_build(m, PROG_GSA, NULL, &d) : NULL;
    if (!p) {
        ptx_diags_free(&d);
        ptx_module_free(m);
        return -1;
    }
    for (uint32_t i = 0; i < p->nfuncs; i++) {
        arena a;
        arena_init(&a);
        div_options o;
        memset(&o, 0, sizeof o);
        div_analyse(&p->funcs[i], DIV_AN_AFFINE, &o, &a);
        arena_free(&a);
    }
    prog_free(p);
    ptx_module_free(m);
    ptx_diags_free(&d);
    return cpu() - t0;
}

static double time_pass(const char *name, const char *text, size_t len, unsigned budget, enum ra_mode mode)
{
    double t0 = cpu();
    ptx_diags d;
    ptx_diags_init(&d);
    ptx_module *m = ptx_parse_string(name, text, len, &d);
    ra_options o;
    memset(&o, 0, sizeof o);
    o.budget = budget;
    o.mode = mode;
    ra_stats st;
    int rc = m ? ra_run(m, &o, &st, &d) : -1;
    if (!rc) ra_stats_free(&st);
    ptx_module_free(m);
    ptx_diags_free(&d);
    double t = cpu() - t0;
    return rc ? -1 : t;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: ptxray-rabench CORPUS_DIR [ROUNDS]\n");
        return 2;
    }
    int rounds = argc > 2 ? atoi(argv[2]) : 5;
    if (rounds < 1) rounds = 1;
    file *v = NULL;
    size_t nf = 0, cap = 0;
    collect(argv[1], &v, &nf, &cap);
    if (!nf) {
        fprintf(stderr, "ptxray-rabench: no PTX files under %s\n", argv[1]);
        return 1;
    }
    static const unsigned budgets[] = {8, 16};
    static const enum ra_mode modes[] = {RA_MODE_LINEAR, RA_MODE_DIV, RA_MODE_AFF};
    double an = 0, pass[2][3] = {{0}}, worst = 0;
    const char *worst_file = NULL;
    unsigned worst_b = 0;
    enum ra_mode worst_m = RA_MODE_AFF;
    size_t used = 0;
    for (size_t i = 0; i < nf; i++) {
        size_t len = v[i].len;
        const char *text = v[i].text;
        /* each round runs the analysis and then every configuration once,
         * so each is timed after the others as in a run of the tool, not
         * from caches and branch predictors warmed by itself */
        double a = -1, p[2][3];
        for (int b = 0; b < 2; b++)
            for (int k = 0; k < 3; k++) p[b][k] = -1;
        for (int r = 0; r < rounds; r++) {
            double t = time_analysis(v[i].path, text, len);
            if (t < 0) break;
            if (a < 0 || t < a) a = t;
            for (int b = 0; b < 2; b++)
                for (int k = 0; k < 3; k++) {
                    t = time_pass(v[i].path, text, len, budgets[b], modes[k]);
                    if (t >= 0 && (p[b][k] < 0 || t < p[b][k])) p[b][k] = t;
                }
        }
        if (a < 0) continue; /* not a buildable module (the corpus's bad inputs) */
        used++;
        an += a;
        for (int b = 0; b < 2; b++)
            for (int k = 0; k < 3; k++) {
                if (p[b][k] < 0) continue;
                pass[b][k] += p[b][k];
                /* files under 0.1 ms are timer noise for a ratio */
                if (a > 1e-4 && p[b][k] / a > worst)
                    worst = p[b][k] / a, worst_file = v[i].path, worst_b = budgets[b], worst_m = modes[k];
            }
    }
    printf("regalloc pass vs analysis: %zu files, best of %d interleaved rounds, thread CPU time\n", used, rounds);
    printf("  analysis (parse + GSA + affine divergence): %.3f ms\n", an * 1e3);
    int over = 0;
    for (int b = 0; b < 2; b++)
        for (int k = 0; k < 3; k++) {
            double ratio = pass[b][k] / an;
            over |= ratio > 2.0;
            printf("  pass budget %2u %-6s (parse + ra_run):     %.3f ms  %.2fx%s\n", budgets[b],
                   ra_mode_name(modes[k]), pass[b][k] * 1e3, ratio, ratio > 2.0 ? "  (above the 2x target)" : "");
        }
    if (worst_file)
        printf("  highest file ratio: %.2fx (%s, budget %u, %s)\n", worst, worst_file, worst_b, ra_mode_name(worst_m));
    printf("  target: pass <= 2x analysis: %s\n", over ? "MISSED" : "met");
    for (size_t i = 0; i < nf; i++) free(v[i].path), free(v[i].text);
    free(v);
    return 0;
}
