/* make difftest: generated kernels (fuzz/gen/) through every oracle
 * (fuzz/diff/oracles.h, docs/testing.md).
 *   difftest [-n N] [-s FIRST] [--budgets 8,16,32] [--ptxas-every K] [--save DIR]
 * Seeds FIRST..FIRST+N-1; ptxas on every K-th kernel and its rewrites (0:
 * never; skipped where there is no ptxas).  A failing kernel is written to
 * DIR/seed-S.ptx with its launch in a comment.  Exit 1 on any failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "fzgen.h"
#include "oracles.h"
#include "toolchain.h"

int main(int argc, char **argv)
{
    uint64_t n = 100, first = 1;
    unsigned ptxas_every = 10;
    const char *save = "build/difftest";
    dt_opts o;
    memset(&o, 0, sizeof o);
    o.nbudgets = 3;
    o.budgets[0] = 8, o.budgets[1] = 16, o.budgets[2] = 32;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-n") && v) n = strtoull(v, NULL, 0), i++;
        else if (!strcmp(a, "-s") && v) first = strtoull(v, NULL, 0), i++;
        else if (!strcmp(a, "--ptxas-every") && v) ptxas_every = (unsigned)strtoul(v, NULL, 0), i++;
        else if (!strcmp(a, "--save") && v) save = v, i++;
        else if (!strcmp(a, "--budgets") && v) {
            o.nbudgets = 0;
            for (char *s = (char *)v; *s && o.nbudgets < 8;) {
                o.budgets[o.nbudgets++] = (unsigned)strtoul(s, &s, 10);
                if (*s == ',') s++;
            }
            i++;
        } else {
            fprintf(stderr, "usage: difftest [-n N] [-s FIRST] [--budgets B,B,...] [--ptxas-every K] [--save DIR]\n");
            return 2;
        }
    }
    o.ptxas_path = tc_find_ptxas();
    if (!o.ptxas_path) ptxas_every = 0;
    dt_counts c;
    memset(&c, 0, sizeof c);
    unsigned failed = 0;
    for (uint64_t s = first; s < first + n; s++) {
        fz_kernel k;
        fz_generate(s, &k);
        char line[1024], name[64];
        fz_launch_line(&k, line, sizeof line);
        snprintf(name, sizeof name, "seed %llu", (unsigned long long)s);
        char copy[1024];
        snprintf(copy, sizeof copy, "%s", line);
        dt_launch L;
        if (!dt_parse_launch(copy, &L)) abort();
        o.ptxas = ptxas_every && (s - first) % ptxas_every == 0;
        o.sched_seed = s;
        if (dt_check(name, k.ptx, k.len, &L, &o, &c)) {
            failed++;
            mkdir(save, 0777);
            char path[512];
            snprintf(path, sizeof path, "%s/seed-%llu.ptx", save, (unsigned long long)s);
            FILE *f = fopen(path, "w");
            if (f) {
                fprintf(f, "// launch: %s\n%s", line, k.ptx);
                fclose(f);
                fprintf(stderr, "seed %llu: written to %s\n", (unsigned long long)s, path);
            }
        }
        fz_free(&k);
    }
    dt_print(stdout, &c, &o);
    return failed ? 1 : 0;
}
