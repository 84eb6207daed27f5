/* ptxray-cfgbench: cost of CFG + dominators + loops + SSA + GSA.
 *
 *   ptxray-cfgbench CORPUS_DIR [BLOCKS]
 *
 * 1. Scaling: generates one kernel of at least BLOCKS basic blocks (default
 *    100000) in memory -- a chain of if/else diamonds, loops with an inner
 *    branch and an early exit, and three-way brx.idx switches, with eight
 *    accumulators live throughout so that joins and loop headers get phi
 *    functions -- parses it (not timed in the target), then times
 *    prog_build(PROG_GSA) on it.  Target: under 1 s.
 * 2. Corpus: every *.ptx file under CORPUS_DIR, read into memory; one pass
 *    parses them all (ptx_parse_string), another builds CFG..GSA for every
 *    function of every file.  Passes repeat until 1 s of each is measured;
 *    the ratio of mean times is the cost of the analyses relative to
 *    parsing.  Target: at most 2x.
 * Times are wall-clock (CLOCK_MONOTONIC), single-threaded, and also CPU
 * time of the thread (CLOCK_THREAD_CPUTIME_ID) for a busy machine.
 */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "program.h"
#include "ptx.h"
#include "gen.h"

/* ---- corpus ------------------------------------------------------------------- */

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: ptxray-cfgbench CORPUS_DIR [BLOCKS]\n");
        return 2;
    }
    unsigned want = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 100000;
    int fail = 0;

    /* 1. scaling */
    size_t len;
    unsigned nb;
    char *text = gen_blocks_kernel(want, &len, &nb);
    ptx_diags d;
    ptx_diags_init(&d);
    double t0 = now(CLOCK_MONOTONIC);
    ptx_module *m = ptx_parse_string("generated.ptx", text, len, &d);
    double tparse = now(CLOCK_MONOTONIC) - t0;
    if (!m) {
        ptx_diags_print(&d, "generated.ptx", text, len, stderr);
        return 2;
    }
    double best = 1e9, cbest = 1e9;
    prog *p = NULL;
    for (int rep = 0; rep < 3; rep++) {
        prog_free(p);
        double w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_THREAD_CPUTIME_ID);
        p = prog_build(m, PROG_GSA, NULL, &d);
        double w = now(CLOCK_MONOTONIC) - w0, c = now(CLOCK_THREAD_CPUTIME_ID) - c0;
        if (w < best) best = w;
        if (c < cbest) cbest = c;
    }
    if (!p) return 2;
    const prog_func *pf = &p->funcs[0];
    printf("scaling: generated kernel, %u basic blocks (%u in the CFG incl. virtual), %u loops, %.1f MB of PTX\n", nb,
           pf->g->nblocks, pf->g->nloops, (double)len / 1e6);
    printf("  SSA values %u, phi %u, eta %u; GSA gamma %u, mu %u, eta %u\n", pf->ssa->nvalues, pf->ssa->nphis,
           pf->ssa->netas, pf->gsa->ngamma, pf->gsa->nmu, pf->gsa->neta);
    printf("  parse %.3f s; CFG+dominators+loops+SSA+GSA best of 3: %.3f s wall, %.3f s cpu  (target < 1 s: %s)\n",
           tparse, best, cbest, (best < 1.0 || cbest < 1.0) ? "PASS" : "FAIL");
    fail |= !(best < 1.0 || cbest < 1.0);
    double v0 = now(CLOCK_MONOTONIC);
    uint32_t bad = ssa_verify(pf->ssa, NULL, 0);
    printf("  verifier: %u violations, %.3f s (not part of the target)\n", bad, now(CLOCK_MONOTONIC) - v0);
    fail |= bad != 0;
    prog_free(p);
    ptx_module_free(m);
    free(text);

    /* 2. corpus */
    file *files = NULL;
    size_t nf = 0, cap = 0, bytes = 0;
    collect(argv[1], &files, &nf, &cap);
    for (size_t i = 0; i < nf; i++) bytes += files[i].len;
    ptx_module **mods = calloc(nf, sizeof *mods);
    double parse_w = 0, parse_c = 0, ana_w = 0, ana_c = 0;
    unsigned passes = 0, nfuncs = 0;
    while (passes < 3 || parse_w < 1.0 || ana_w < 1.0) {
        double w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_THREAD_CPUTIME_ID);
        for (size_t i = 0; i < nf; i++) mods[i] = ptx_parse_string(files[i].path, files[i].text, files[i].len, &d);
        parse_w += now(CLOCK_MONOTONIC) - w0;
        parse_c += now(CLOCK_THREAD_CPUTIME_ID) - c0;
        nfuncs = 0;
        w0 = now(CLOCK_MONOTONIC);
        c0 = now(CLOCK_THREAD_CPUTIME_ID);
        for (size_t i = 0; i < nf; i++) {
            if (!mods[i]) continue;
            prog *q = prog_build(mods[i], PROG_GSA, NULL, &d);
            if (q) nfuncs += q->nfuncs;
            prog_free(q);
        }
        ana_w += now(CLOCK_MONOTONIC) - w0;
        ana_c += now(CLOCK_THREAD_CPUTIME_ID) - c0;
        for (size_t i = 0; i < nf; i++) ptx_module_free(mods[i]);
        passes++;
    }
    double ratio = ana_w / parse_w, cratio = ana_c / parse_c;
    printf("corpus: %zu files, %u functions, %.2f MB, %u passes\n", nf, nfuncs, (double)bytes / 1e6, passes);
    printf("  parse %.2f ms/pass, CFG..GSA %.2f ms/pass: %.2fx parse time wall, %.2fx cpu  (target <= 2x: %s)\n",
           1e3 * parse_w / passes, 1e3 * ana_w / passes, ratio, cratio, (ratio <= 2.0 || cratio <= 2.0) ? "PASS" : "FAIL");
    fail |= !(ratio <= 2.0 || cratio <= 2.0);
    for (size_t i = 0; i < nf; i++) {
        free(files[i].path);
        free(files[i].text);
    }
    free(files);
    free(mods);
    ptx_diags_free(&d);
    return fail;
}
