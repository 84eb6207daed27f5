/* ptxray-divbench: cost of the divergence analyses as kernels grow.
 *
 *   ptxray-divbench [MAX_VALUES]
 *
 * Generates kernels of about 10k, 100k and 1M (MAX_VALUES) SSA values --
 * address arithmetic on tid.x (mad, shl, mul.wide, cvt), loads, diamonds
 * on divergent and uniform predicates, selp, and loops whose bound has the
 * same Tid coefficient as the counter (the avgSquare pattern), with eight
 * accumulators live throughout so joins and loop headers get gamma and mu
 * functions -- builds their GSA (not timed), then times the simple, affine
 * and affine2 analyses (best of several runs).  Targets: the work per
 * value (div_result.steps: edges followed, transfer functions evaluated)
 * does not grow with size -- at most 1.1x from the smallest kernel to the
 * largest: the analyses are linear; and affine takes at most 3x the time of
 * the simple analysis at every size.  Time per value is printed too, with
 * the exponent k of time ~ values^k between the smallest and the largest
 * kernel: it exceeds 1 only through the memory hierarchy (a 1M-value
 * kernel's coefficients do not fit in the caches).  Times are CPU time
 * of the thread, so that a busy machine does not skew the ratios.
 *
 *   ptxray-divbench MAX_VALUES CORPUS_DIR
 *
 * also times the affine analyses over every function of the corpus with
 * and without the warp forms (div_options.polynomials_only: the analysis
 * before warp-granular reasoning), interleaved, best of rounds.  Target:
 * the warp forms cost at most 1.3x the polynomials alone.
 *
 *   ptxray-divbench --one affine|affine2 poly|forms CORPUS_DIR
 *
 * runs one pass of one of those four modes, for an instruction count that
 * load cannot skew: `make divbench-instr` runs the four under callgrind
 * (counting inside div_analyse only) and prints each mode's instructions
 * and the two ratios. */
#define _DEFAULT_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "divergence.h"
#include "program.h"
#include "ptx.h"
#include "gen.h"

/* About 7.5 SSA values per segment. */
static char *gen_kernel(unsigned segments)
{
    buf b = {0};
    emit(&b, ".version 8.0\n.target sm_80\n.address_size 64\n\n"
             ".visible .entry big(.param .u64 out, .param .u32 n)\n{\n"
             "\t.reg .pred %%p<4>;\n\t.reg .b32 %%a<9>;\n\t.reg .b32 %%t<6>;\n\t.reg .b32 %%i, %%N, %%n;\n"
             "\t.reg .b64 %%rd<5>;\n"
             "\tld.param.u64 %%rd1, [out];\n\tld.param.u32 %%n, [n];\n");
    for (int i = 1; i <= 8; i++) emit(&b, "\tmov.u32 %%a%d, %%tid.x;\n", i);
    for (unsigned s = 0; s < segments; s++) {
        unsigned a = 1 + s % 8, c = 1 + (s + 3) % 8;
        switch (s % 3) {
        case 0: /* straight-line address arithmetic and a load */
            emit(&b, "\tmov.u32 %%t1, %%tid.x;\n\tmad.lo.s32 %%a%u, %%t1, 4, %%a%u;\n\tshl.b32 %%t2, %%a%u, 2;\n"
                     "\tmul.wide.s32 %%rd2, %%t2, 4;\n\tadd.s64 %%rd3, %%rd1, %%rd2;\n\tld.global.u32 %%t3, [%%rd3];\n"
                     "\tcvt.u64.u32 %%rd4, %%t3;\n\tadd.s32 %%a%u, %%a%u, %%t3;\n\tsub.s32 %%t4, %%a%u, %%t1;\n"
                     "\tselp.b32 %%a%u, %%t4, %%a%u, %%p3;\n",
                 a, a, a, c, c, a, a, a);
            break;
        case 1: /* diamond, divergent or uniform */
            emit(&b, "\tsetp.lt.s32 %%p1, %%a%u, %s;\n\t@%%p1 bra $E%u;\n\tadd.s32 %%a%u, %%a%u, 3;\n"
                     "\tbra.uni $J%u;\n$E%u:\n\tmad.lo.s32 %%a%u, %%a%u, 5, %%n;\n$J%u:\n\tsetp.ne.s32 %%p3, %%a%u, 0;\n",
                 a, s % 2 ? "%n" : "%tid.x", s, a, a, s, s, a, a, s, c);
            break;
        default: /* a loop whose bound has the counter's Tid coefficient */
            emit(&b, "\tmov.u32 %%i, %%tid.x;\n\tadd.s32 %%N, %%tid.x, %%n;\n$H%u:\n\tsetp.ge.s32 %%p2, %%i, %%N;\n"
                     "\t@%%p2 bra $X%u;\n\tadd.s32 %%a%u, %%a%u, %%i;\n\tadd.s32 %%i, %%i, 32;\n\tbra.uni $H%u;\n$X%u:\n",
                 s, s, a, a, s, s);
            break;
        }
    }
    for (int i = 1; i <= 8; i++) emit(&b, "\tst.global.u32 [%%rd1+%d], %%a%d;\n", 4 * (i - 1), i);
    emit(&b, "\tret;\n}\n");
    return b.p;
}

/* One pass of analysis an (0 affine, 1 affine2) over every function, with
 * the warp forms (wf) or polynomials only; thread CPU time. */
static double corpus_pass(prog **progs, size_t nf, int an, int wf)
{
    div_options o;
    memset(&o, 0, sizeof o);
    o.polynomials_only = !wf;
    double t = 0;
    for (size_t i = 0; i < nf; i++) {
        if (!progs[i]) continue;
        arena ar;
        arena_init(&ar);
        double t0 = now(CLOCK_THREAD_CPUTIME_ID);
        for (uint32_t f = 0; f < progs[i]->nfuncs; f++)
            div_analyse(&progs[i]->funcs[f], an ? DIV_AN_AFFINE2 : DIV_AN_AFFINE, &o, &ar);
        t += now(CLOCK_THREAD_CPUTIME_ID) - t0;
        arena_free(&ar);
    }
    return t;
}

/* The affine analyses over the corpus, polynomials only vs with the warp
 * forms.  True when within the target.  one_an >= 0: one pass of that
 * analysis and one_wf only (--one). */
static bool corpus_bench(const char *dir, int one_an, int one_wf)
{
    file *files = NULL;
    size_t nf = 0, cap = 0;
    collect(dir, &files, &nf, &cap);
    prog **progs = calloc(nf ? nf : 1, sizeof *progs);
    ptx_module **mods = calloc(nf ? nf : 1, sizeof *mods);
    size_t nfunc = 0, nval = 0;
    for (size_t i = 0; i < nf; i++) {
        ptx_diags d;
        ptx_diags_init(&d);
        mods[i] = ptx_parse_string(files[i].path, files[i].text, files[i].len, &d);
        if (mods[i]) progs[i] = prog_build(mods[i], PROG_GSA, NULL, &d);
        ptx_diags_free(&d);
        if (!progs[i]) continue;
        nfunc += progs[i]->nfuncs;
        for (uint32_t f = 0; f < progs[i]->nfuncs; f++) nval += progs[i]->funcs[f].ssa->nvalues;
    }
    bool ok = true;
    if (one_an >= 0) { /* --one: a single pass of one mode, for callgrind */
        double t = corpus_pass(progs, nf, one_an, one_wf);
        printf("affine analyses over %s: %zu files, %zu functions, %zu SSA values; %s, %s: %.2f ms (one pass)\n", dir,
               nf, nfunc, nval, one_an ? "affine2" : "affine", one_wf ? "with warp forms" : "polynomials only",
               t * 1e3);
        goto out;
    }
    /* a pass takes about 8 ms: 21 rounds (under 1 s) give each mode's
     * best a fair chance on a shared machine, where 7 often did not */
    enum { ROUNDS = 21 };
    double best[2][2] = {{1e9, 1e9}, {1e9, 1e9}}; /* [analysis affine/affine2][polynomials, warp forms] */
    for (int r = 0; r < ROUNDS; r++)
        for (int an = 0; an < 2; an++)
            for (int wf = 0; wf < 2; wf++) {
                double t = corpus_pass(progs, nf, an, wf);
                if (t < best[an][wf]) best[an][wf] = t;
            }
    printf("affine analyses over %s: %zu files, %zu functions, %zu SSA values (best of %d interleaved rounds)\n", dir, nf,
           nfunc, nval, ROUNDS);
    for (int an = 0; an < 2; an++) {
        double x = best[an][1] / best[an][0];
        printf("  %-7s polynomials only (before) %8.2f ms, with warp forms (after) %8.2f ms: x%.2f (target <= 1.3)%s\n",
               an ? "affine2" : "affine", best[an][0] * 1e3, best[an][1] * 1e3, x, x <= 1.3 ? "" : "  MISSED");
        ok &= x <= 1.3;
    }
out:
    for (size_t i = 0; i < nf; i++) {
        if (progs[i]) prog_free(progs[i]);
        if (mods[i]) ptx_module_free(mods[i]);
        free(files[i].path);
        free(files[i].text);
    }
    free(progs);
    free(mods);
    free(files);
    return ok;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--one")) {
        int an = argc == 5 ? !strcmp(argv[2], "affine2") ? 1 : !strcmp(argv[2], "affine") ? 0 : -1 : -1;
        int wf = argc == 5 ? !strcmp(argv[3], "forms") ? 1 : !strcmp(argv[3], "poly") ? 0 : -1 : -1;
        if (an < 0 || wf < 0) {
            fprintf(stderr, "usage: ptxray-divbench --one affine|affine2 poly|forms CORPUS_DIR\n");
            return 2;
        }
        corpus_bench(argv[4], an, wf);
        return 0;
    }
    unsigned maxv = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 1000000;
    unsigned sizes[3] = {maxv / 100, maxv / 10, maxv};
    double nsper[3][3], stepsper[3][3], tbest[3][3], worst_ratio = 0;
    uint32_t nvals[3];
    int ok = 1;
    printf("divergence analyses on generated kernels (best of runs, thread CPU time)\n");
    printf("%10s %10s | %10s %8s | %10s %8s %6s | %10s %8s %6s\n", "values", "blocks", "simple ms", "ns/val",
           "affine ms", "ns/val", "x", "affine2 ms", "ns/val", "x");
    for (int k = 0; k < 3; k++) {
        char *text = gen_kernel(sizes[k] / 7 + 1);
        ptx_diags d;
        ptx_diags_init(&d);
        ptx_module *m = ptx_parse_string("gen.ptx", text, strlen(text), &d);
        if (!m) {
            ptx_diags_print(&d, "gen.ptx", text, strlen(text), stderr);
            return 2;
        }
        prog *p = prog_build(m, PROG_GSA, NULL, &d);
        if (!p) return 2;
        prog_func *pf = &p->funcs[0];
        uint32_t nv = pf->ssa->nvalues;
        nvals[k] = nv;
        double best[3];
        for (int a = 0; a < 3; a++) {
            best[a] = 1e9;
            int reps = k == 2 ? 3 : 10;
            for (int r = 0; r < reps; r++) {
                arena ar;
                arena_init(&ar);
                double t0 = now(CLOCK_THREAD_CPUTIME_ID);
                div_result *res = div_analyse(pf, (enum div_analysis)a, NULL, &ar);
                double t = now(CLOCK_THREAD_CPUTIME_ID) - t0;
                if (!res) return 2;
                if (t < best[a]) best[a] = t;
                stepsper[k][a] = (double)res->steps / nv;
                arena_free(&ar);
            }
            nsper[k][a] = best[a] * 1e9 / nv;
            tbest[k][a] = best[a];
        }
        double r1 = best[1] / best[0], r2 = best[2] / best[0];
        if (r1 > worst_ratio) worst_ratio = r1;
        printf("%10u %10u | %10.2f %8.1f | %10.2f %8.1f %6.2f | %10.2f %8.1f %6.2f\n", nv, pf->g->nblocks,
               best[0] * 1e3, nsper[k][0], best[1] * 1e3, nsper[k][1], r1, best[2] * 1e3, nsper[k][2], r2);
        prog_free(p);
        ptx_module_free(m);
        ptx_diags_free(&d);
        free(text);
    }
    for (int a = 0; a < 3; a++) {
        double g = stepsper[2][a] / stepsper[0][a];
        double expo = log(tbest[2][a] / tbest[0][a]) / log((double)nvals[2] / nvals[0]);
        printf("%-8s work/value %.2f -> %.2f (x%.2f, target <= 1.1: linear); time ~ values^%.2f, ns/value x%.2f\n",
               div_analysis_name((enum div_analysis)a), stepsper[0][a], stepsper[2][a], g, expo,
               nsper[2][a] / nsper[0][a]);
        if (g > 1.1) printf("  MISSED: work per value grows\n");
        ok &= g <= 1.1;
    }
    printf("affine / simple, worst: x%.2f (target <= 3)%s\n", worst_ratio, worst_ratio <= 3 ? "" : "  MISSED");
    ok &= worst_ratio <= 3;
    if (argc > 2) ok &= corpus_bench(argv[2], -1, 0);
    return ok ? 0 : 1;
}
