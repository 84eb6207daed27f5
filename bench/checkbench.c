/* ptxray-checkbench: how fast `ptxray check` gets through a corpus.
 *
 *   ptxray-checkbench CORPUS_DIR [ROUNDS]
 *
 * Runs the check command in-process (parse, CFG/SSA/GSA, the coalescing
 * model, the affine divergence analysis for branches, fingerprints, the
 * JSON report) over every *.ptx under CORPUS_DIR, ROUNDS times (default 5),
 * with all rules enabled; the report goes to /dev/null.  Prints the
 * fastest round's wall time and files per second (wall clock: the CI user
 * waits for that), and the median. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "commands.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The number of files check saw, from its JSON summary: counted by a
 * first run whose report goes to a temporary file. */
static long count_files(const char *dir)
{
    char tmpl[] = "/tmp/ptxray-checkbenchXXXXXX";
    int fd = mkstemp(tmpl);
    if (fd < 0) return -1;
    close(fd);
    char *argv[] = {"check", "--format", "json", "--fail-on", "none", "-o", tmpl, (char *)dir, NULL};
    cmd_check(8, argv);
    FILE *f = fopen(tmpl, "r");
    long n = -1;
    char line[512];
    while (f && fgets(line, sizeof line, f))
        if (strstr(line, "\"files\":")) n = strtol(strchr(line, ':') + 1, NULL, 10);
    if (f) fclose(f);
    unlink(tmpl);
    return n;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: ptxray-checkbench CORPUS_DIR [ROUNDS]\n");
        return 2;
    }
    int rounds = argc > 2 ? atoi(argv[2]) : 5;
    if (rounds < 1) rounds = 1;
    long files = count_files(argv[1]);
    if (files <= 0) {
        fprintf(stderr, "ptxray-checkbench: no PTX files checked under %s\n", argv[1]);
        return 1;
    }
    double *t = malloc(sizeof *t * (size_t)rounds);
    if (!t || !freopen("/dev/null", "w", stdout)) return 1;
    for (int r = 0; r < rounds; r++) {
        char *cargv[] = {"check", "--format", "json", "--fail-on", "none", "--enable", "divergent-branch",
                         argv[1], NULL};
        double t0 = now();
        int rc = cmd_check(8, cargv);
        t[r] = now() - t0;
        if (rc == 2) {
            fprintf(stderr, "ptxray-checkbench: check reported bad input\n");
            return 1;
        }
    }
    qsort(t, (size_t)rounds, sizeof *t, cmp_d);
    fprintf(stderr, "check: %ld files, best of %d rounds %.3f s (%.0f files/s), median %.3f s (%.0f files/s)\n",
            files, rounds, t[0], files / t[0], t[rounds / 2], files / t[rounds / 2]);
    free(t);
    return 0;
}
