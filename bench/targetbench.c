/* ptxray-targetbench: what `--target-regs N` buys over ptxas alone
 * (issue 15: "lowers ptxas's spill bytes by at least 30% (geometric mean
 * over the kernels where ptxas alone spills) versus ptxas alone at the
 * same -maxrregcount").
 *
 *   ptxray-targetbench CORPUS_DIR [N...]      (default N: 24 32)
 *
 * For every *.ptx under CORPUS_DIR (recursively, sorted) and each N, runs
 * ra_target_regs (toolchain/ra_target.c, mode aff: the default of
 * `regalloc --target-regs`) exactly as `ptxray regalloc --target-regs N`
 * does, and prints one row per file where ptxas alone spills: pressure,
 * the budget kept, candidates assembled, spill bytes alone and with the
 * pass.  The summary per N is the geometric mean of (with + 1) / (alone
 * + 1) over those files (+1: a file the pass takes to 0 counts as
 * 1 / (alone + 1), not as 0) and the target: at most 0.70 (30% less).
 * Files ptxas rejects at -maxrregcount N (its lower bound, instructions
 * that need more registers) are listed and left out. */
#define _DEFAULT_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gen.h" /* collect: the corpus files, sorted */
#include "ptx.h"
#include "ra_target.h"
#include "regalloc.h"

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: ptxray-targetbench CORPUS_DIR [N...]\n");
        return 2;
    }
    unsigned ns[16], nn = 0;
    for (int i = 2; i < argc && nn < 16; i++) ns[nn++] = (unsigned)atoi(argv[i]);
    if (!nn) ns[nn++] = 24, ns[nn++] = 32;
    file *v = NULL;
    size_t nf = 0, cap = 0;
    collect(argv[1], &v, &nf, &cap);
    if (!nf) {
        fprintf(stderr, "ptxray-targetbench: no PTX files under %s\n", argv[1]);
        return 1;
    }
    int missed = 0;
    for (unsigned k = 0; k < nn; k++) {
        printf("--target-regs %u (mode aff): ptxas -maxrregcount %u spill bytes, files where ptxas alone spills\n",
               ns[k], ns[k]);
        printf("  %-44s %8s %6s %5s %8s %8s %6s\n", "file", "pressure", "budget", "tried", "alone.B", "with.B",
               "ratio");
        double lsum = 0;
        unsigned files = 0, ok = 0;
        long alone = 0, with = 0;
        for (size_t i = 0; i < nf; i++) {
            ptx_module *m = ptx_load(v[i].path, 0);
            if (!m) continue; /* the corpus's bad inputs */
            ra_options o;
            memset(&o, 0, sizeof o);
            o.mode = RA_MODE_AFF;
            char *out = NULL;
            size_t len;
            ra_target_result r;
            /* ptxas's complaints about a file it rejects go to stderr */
            int rc = ra_target_regs("targetbench", m, ns[k], NULL, &o, &out, &len, &r, stderr);
            free(out);
            ptx_module_free(m);
            if (rc) {
                printf("  %-44s ptxas rejects it at -maxrregcount %u: left out\n", v[i].path, ns[k]);
                continue;
            }
            ok++;
            if (r.alone <= 0) continue;
            double q = (r.with + 1.0) / (r.alone + 1.0);
            char b[16] = "-";
            if (r.budget) snprintf(b, sizeof b, "%u", r.budget);
            printf("  %-44s %8u %6s %5u %8ld %8ld %6.3f\n", v[i].path, r.pressure, b, r.tried, r.alone, r.with, q);
            lsum += log(q);
            files++;
            alone += r.alone;
            with += r.with;
        }
        double g = files ? exp(lsum / files) : 1;
        missed |= g > 0.70;
        printf("  %u files assembled, %u spill alone: bytes %ld -> %ld; geomean (with+1)/(alone+1) %.3f "
               "(%.0f%% less; target <= 0.70: %s)\n\n",
               ok, files, alone, with, g, (1 - g) * 100, g > 0.70 ? "MISSED" : "met");
    }
    for (size_t i = 0; i < nf; i++) free(v[i].path), free(v[i].text);
    free(v);
    return missed;
}
