/* make difftest: generated kernels (fuzz/gen/) through every oracle
 * (fuzz/diff/oracles.h, docs/testing.md).
 *   difftest [-n N] [-s FIRST] [-j J] [--budgets 8,16,32] [--ptxas-every K] [--save DIR]
 *   difftest [--budgets ...] --file PATH...
 * Seeds FIRST..FIRST+N-1, shared round-robin by J worker processes whose
 * counts are summed (one run, J cores); ptxas on every K-th kernel and its rewrites (0:
 * never; skipped where there is no ptxas).  A failing kernel is written to
 * DIR/seed-S.ptx with its launch in a comment.  --file: the saved kernels
 * instead (their "// launch:" and "// schedule-seed:" headers; ptxas on
 * each), to reproduce or reduce a failure (fuzz/reduce.py).  Exit 1 on any
 * failure, 2 on bad usage or a file without a launch. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "fzgen.h"
#include "oracles.h"
#include "run_spec.h"
#include "toolchain.h"

/* Seeds first + j, first + j + jobs, ... below first + n through every
 * oracle; returns how many kernels failed. */
static uint64_t run_seeds(uint64_t first, uint64_t n, unsigned j, unsigned jobs, unsigned ptxas_every,
                          const char *save, dt_opts *o, dt_counts *cp)
{
    uint64_t failed = 0;
    for (uint64_t s = first + j; s < first + n; s += jobs) {
        fz_kernel k;
        fz_generate(s, &k);
        char line[1024], name[64];
        fz_launch_line(&k, line, sizeof line);
        snprintf(name, sizeof name, "seed %llu", (unsigned long long)s);
        char copy[1024];
        snprintf(copy, sizeof copy, "%s", line);
        dt_launch L;
        if (!dt_parse_launch(copy, &L)) abort();
        o->ptxas = ptxas_every && (s - first) % ptxas_every == 0;
        o->sched_seed = s;
        if (dt_check(name, k.ptx, k.len, &L, o, cp)) {
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
    return failed;
}

/* The saved kernel at path through every oracle: 1 if it failed, 0 if
 * not, -1 if it cannot be read or has no launch (said on stderr). */
static int run_file(const char *path, dt_opts *o, dt_counts *cp)
{
    char err[600];
    size_t len;
    char *text = (char *)spec_read_file(path, &len, err, sizeof err);
    if (!text) return fprintf(stderr, "difftest: %s\n", err), -1;
    char line[1024], sseed[32];
    dt_launch L;
    if (!dt_header(text, "launch", line, sizeof line) || !dt_parse_launch(line, &L)) {
        fprintf(stderr, "difftest: %s: no valid \"// launch: KERNEL GRID BLOCK ARG...\" line\n", path);
        free(text);
        return -1;
    }
    o->sched_seed = dt_header(text, "schedule-seed", sseed, sizeof sseed) ? strtoull(sseed, NULL, 10) : 1;
    o->ptxas = o->ptxas_path != NULL;
    int r = dt_check(path, text, len, &L, o, cp) ? 1 : 0;
    free(text);
    return r;
}

int main(int argc, char **argv)
{
    uint64_t n = 100, first = 1;
    unsigned jobs = 1;
    unsigned ptxas_every = 10;
    const char *save = "build/difftest";
    dt_opts o;
    memset(&o, 0, sizeof o);
    o.nbudgets = 3;
    o.budgets[0] = 8, o.budgets[1] = 16, o.budgets[2] = 32;
    int files = 0; /* --file: argv[files..] */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--file") && v) {
            files = i + 1;
            break;
        } else if (!strcmp(a, "-n") && v) n = strtoull(v, NULL, 0), i++;
        else if (!strcmp(a, "-s") && v) first = strtoull(v, NULL, 0), i++;
        else if (!strcmp(a, "-j") && v) jobs = (unsigned)strtoul(v, NULL, 0), i++;
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
            fprintf(stderr, "usage: difftest [-n N] [-s FIRST] [-j J] [--budgets B,B,...] [--ptxas-every K] [--save DIR]\n"
                            "       difftest [--budgets B,B,...] --file PATH...\n");
            return 2;
        }
    }
    o.ptxas_path = tc_find_ptxas();
    if (!o.ptxas_path) ptxas_every = 0;
    if (jobs < 1 || jobs > 64) jobs = 1;
    dt_counts c;
    memset(&c, 0, sizeof c);
    uint64_t failed = 0;
    if (files) {
        for (int i = files; i < argc; i++) {
            int r = run_file(argv[i], &o, &c);
            if (r < 0) return 2;
            failed += (uint64_t)r;
        }
    } else if (jobs == 1) failed = run_seeds(first, n, 0, 1, ptxas_every, save, &o, &c);
    else {
        /* each worker sends its counts and failures down a pipe: they are
         * all uint64_t, summed field by field */
        int fd[64][2];
        pid_t pid[64];
        for (unsigned j = 0; j < jobs; j++) {
            if (pipe(fd[j])) return perror("pipe"), 2;
            fflush(NULL);
            pid[j] = fork();
            if (pid[j] < 0) return perror("fork"), 2;
            if (!pid[j]) {
                close(fd[j][0]);
                struct { dt_counts c; uint64_t failed; } r;
                memset(&r, 0, sizeof r);
                r.failed = run_seeds(first, n, j, jobs, ptxas_every, save, &o, &r.c);
                if (write(fd[j][1], &r, sizeof r) != (ssize_t)sizeof r) _exit(2);
                _exit(0);
            }
            close(fd[j][1]);
        }
        for (unsigned j = 0; j < jobs; j++) {
            struct { dt_counts c; uint64_t failed; } r;
            int st;
            ssize_t got = read(fd[j][0], &r, sizeof r);
            close(fd[j][0]);
            waitpid(pid[j], &st, 0);
            if (got != (ssize_t)sizeof r || !WIFEXITED(st) || WEXITSTATUS(st)) {
                fprintf(stderr, "difftest: worker %u died (status 0x%x)\n", j, st);
                return 2;
            }
            uint64_t *dst = (uint64_t *)&c;
            const uint64_t *src = (const uint64_t *)&r.c;
            for (size_t q = 0; q < sizeof c / sizeof(uint64_t); q++) dst[q] += src[q];
            failed += r.failed;
        }
    }
    dt_print(stdout, &c, &o);
    return failed ? 1 : 0;
}
