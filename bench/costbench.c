/* ptxray-costbench: what the analyses cost next to parsing, and what the
 * largest kernels cost in time and memory (issue 17).
 *
 *   ptxray-costbench PTXRAY CORPUS_DIR [OUTDIR]
 *
 * 1. Generates the kernels of 10k and 100k basic blocks (gen.h's
 *    gen_blocks_kernel, ~0.5 and ~4.9 MB) into OUTDIR (default
 *    build/bench).
 * 2. The PTXRAY binary run on each generated file for `check`,
 *    `divergence --analysis affine` and `cfg --gsa --format json`
 *    (output to /dev/null), best of 3: wall and CPU (user+sys) time, and
 *    peak RSS from wait4's rusage.  Targets on the 100k-block file:
 *    cfg JSON < 0.5 s, its growth from 10k to 100k blocks <= 11x, and
 *    peak RSS <= 8x the input for the three commands.
 * 3. check's analyses against its parse, in this process (after part 2: Linux
 *    counts a parent's peak memory in its children's), over every *.ptx of
 *    CORPUS_DIR and the two generated files: one pass parses each file
 *    (ptx_load: read + parse, as check does), another does check's work
 *    for each (pl_load: read, parse, CFG..GSA, coalescing model with its
 *    affine divergence solve and bank conflicts; then the findings of the
 *    default rules).  analysis = check work - parse.  Passes repeat until
 *    1 s of each; the best pass of each counts.  Target: analysis / parse
 *    <= 1.5.  The report writer is not in either (it is the same for
 *    any analysis cost, and ptxray-checkbench times the whole command).
 * Time targets pass when wall or CPU time meets them (CPU time is what a
 * busy machine leaves trustworthy). */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check_run.h"
#include "gen.h"
#include "pipeline.h"

typedef struct runstat {
    double wall, cpu; /* best of the runs */
    long rss_kb;      /* peak resident set, largest of the runs */
    int rc;
} runstat;

/* Runs PTXRAY args... with stdout on /dev/null. */
static runstat run_cmd(char *const *argv, int reps)
{
    runstat r = {1e9, 1e9, 0, 0};
    for (int k = 0; k < reps; k++) {
        double w0 = now(CLOCK_MONOTONIC);
        pid_t pid = fork();
        if (pid < 0) {
            r.rc = -1;
            return r;
        }
        if (!pid) {
            int fd = open("/dev/null", O_WRONLY);
            if (fd >= 0) dup2(fd, 1);
            execv(argv[0], argv);
            _exit(127);
        }
        int st;
        struct rusage ru;
        while (wait4(pid, &st, 0, &ru) < 0 && errno == EINTR) {}
        double w = now(CLOCK_MONOTONIC) - w0;
        double c = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec +
                   ru.ru_stime.tv_usec * 1e-6;
        if (w < r.wall) r.wall = w;
        if (c < r.cpu) r.cpu = c;
        if (ru.ru_maxrss > r.rss_kb) r.rss_kb = ru.ru_maxrss;
        r.rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    }
    return r;
}

static const char *pf(bool ok) { return ok ? "PASS" : "FAIL"; }

/* ---- check's analyses against its parse ------------------------------------ */
static double pass_parse(char **paths, size_t n)
{
    double c0 = now(CLOCK_THREAD_CPUTIME_ID);
    for (size_t i = 0; i < n; i++) ptx_module_free(ptx_load(paths[i], 1));
    return now(CLOCK_THREAD_CPUTIME_ID) - c0;
}

static double pass_check(char **paths, size_t n, size_t *nfind)
{
    blk_opts blocks = {0};
    coal_options co;
    memset(&co, 0, sizeof co);
    co.blocks = &blocks;
    chk_list l;
    memset(&l, 0, sizeof l);
    double c0 = now(CLOCK_THREAD_CPUTIME_ID);
    for (size_t i = 0; i < n; i++) {
        pl_prog x;
        pl_options o = {.cmd = "check", .level = PROG_GSA, .passes = PL_COALESCE, .blocks = &blocks, .co = &co};
        if (pl_load(&x, paths[i], &o)) continue;
        chk_collect(&l, paths[i], &x.ctx[0], CHK_DEFAULT_RULES);
        pl_free(&x);
    }
    double c = now(CLOCK_THREAD_CPUTIME_ID) - c0;
    *nfind = l.n;
    chk_free(&l);
    return c;
}

static void add_paths(const char *dir, char ***v, size_t *n, size_t *bytes)
{
    file *fs = NULL;
    size_t nf = 0, cap = 0;
    collect(dir, &fs, &nf, &cap);
    for (size_t i = 0; i < nf; i++) {
        *v = realloc(*v, sizeof **v * (*n + 1));
        if (!*v) abort();
        (*v)[(*n)++] = fs[i].path;
        *bytes += fs[i].len;
        free(fs[i].text);
    }
    free(fs);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: ptxray-costbench PTXRAY CORPUS_DIR [OUTDIR]\n");
        return 2;
    }
    const char *bin = argv[1], *outdir = argc > 3 ? argv[3] : "build/bench";
    int fail = 0;

    /* 1. the generated kernels, written by a child: Linux's ru_maxrss of
     * a child counts its parent's peak before the exec, so the bench keeps
     * its own memory small until the runs of part 3 are done */
    static const unsigned sizes[2] = {10000, 100000};
    char gen[2][4096];
    size_t glen[2];
    for (int k = 0; k < 2; k++) snprintf(gen[k], sizeof gen[k], "%s/gen-blocks-%uk.ptx", outdir, sizes[k] / 1000);
    pid_t gpid = fork();
    if (!gpid) {
        for (int k = 0; k < 2; k++) {
            unsigned nb;
            size_t len;
            char *text = gen_blocks_kernel(sizes[k], &len, &nb);
            FILE *f = fopen(gen[k], "wb");
            if (!f || fwrite(text, 1, len, f) != len || fclose(f)) {
                fprintf(stderr, "ptxray-costbench: cannot write %s\n", gen[k]);
                _exit(2);
            }
            free(text);
        }
        _exit(0);
    }
    int gst;
    if (gpid < 0 || waitpid(gpid, &gst, 0) != gpid || !WIFEXITED(gst) || WEXITSTATUS(gst)) return 2;
    for (int k = 0; k < 2; k++) {
        struct stat st;
        if (stat(gen[k], &st)) return 2;
        glen[k] = (size_t)st.st_size;
    }

    /* 2. the large kernels, one process per run */
    static const char *const cmds[3][5] = {{"check", NULL},
                                           {"divergence", "--analysis", "affine", NULL},
                                           {"cfg", "--gsa", "--format", "json", NULL}};
    static const char *const names[3] = {"check", "divergence --analysis affine", "cfg --gsa --format json"};
    runstat rs[3][2];
    for (int c = 0; c < 3; c++)
        for (int k = 0; k < 2; k++) {
            char *av[8];
            int n = 0;
            av[n++] = (char *)bin;
            for (int j = 0; cmds[c][j]; j++) av[n++] = (char *)cmds[c][j];
            av[n++] = gen[k];
            av[n] = NULL;
            rs[c][k] = run_cmd(av, 3);
            if (rs[c][k].rc != 0 && rs[c][k].rc != 1) {
                fprintf(stderr, "ptxray-costbench: %s on %s exited %d\n", names[c], gen[k], rs[c][k].rc);
                fail = 1;
            }
        }
    printf("large kernels (%s %.2f MB, %s %.2f MB), best of 3 runs, output to /dev/null:\n", gen[0],
           (double)glen[0] / 1e6, gen[1], (double)glen[1] / 1e6);
    for (int c = 0; c < 3; c++)
        for (int k = 0; k < 2; k++) {
            double x = rs[c][k].rss_kb * 1024.0 / (double)glen[k];
            printf("  %-28s %3uk blocks: %.3f s wall, %.3f s cpu, peak RSS %.1f MB = %.1fx input", names[c],
                   sizes[k] / 1000, rs[c][k].wall, rs[c][k].cpu, rs[c][k].rss_kb / 1024.0, x);
            if (k == 1) {
                printf("  (target <= 8x: %s)", pf(x <= 8.0));
                fail |= !(x <= 8.0);
            }
            putchar('\n');
        }
    const runstat *j = rs[2];
    bool fast = j[1].wall < 0.5 || j[1].cpu < 0.5;
    double gw = j[1].wall / j[0].wall, gc = j[1].cpu / j[0].cpu;
    bool lin = gw <= 11.0 || gc <= 11.0;
    printf("  cfg --gsa --format json, 100k blocks: %.3f s wall, %.3f s cpu  (target < 0.5 s: %s)\n", j[1].wall, j[1].cpu,
           pf(fast));
    printf("  cfg --gsa --format json, growth 10k -> 100k blocks: %.1fx wall, %.1fx cpu  (target <= 11x: %s)\n", gw, gc,
           pf(lin));
    fail |= !fast || !lin;
    /* 3. analysis / parse (in this process: after the runs, see 1.) */
    char **paths = NULL;
    size_t np = 0, bytes = 0;
    add_paths(argv[2], &paths, &np, &bytes);
    size_t ncorpus = np;
    for (int k = 0; k < 2; k++) {
        paths = realloc(paths, sizeof *paths * (np + 1));
        if (!paths) abort();
        paths[np++] = strdup(gen[k]);
        bytes += glen[k];
    }
    /* [0]: the corpus, [1]: the generated files; each timed on its own */
    double parse_best[2] = {1e9, 1e9}, check_best[2] = {1e9, 1e9}, parse_sum = 0, check_sum = 0;
    size_t nfind = 0, nf1;
    unsigned passes = 0;
    size_t lo[2] = {0, ncorpus}, cnt[2] = {ncorpus, np - ncorpus};
    while (passes < 3 || parse_sum < 1.0 || check_sum < 1.0) {
        nfind = 0;
        for (int k = 0; k < 2; k++) {
            double a = pass_parse(paths + lo[k], cnt[k]), b = pass_check(paths + lo[k], cnt[k], &nf1);
            nfind += nf1;
            parse_sum += a;
            check_sum += b;
            if (a < parse_best[k]) parse_best[k] = a;
            if (b < check_best[k]) check_best[k] = b;
        }
        passes++;
    }
    double pt = parse_best[0] + parse_best[1], ct = check_best[0] + check_best[1];
    double ana = ct - pt, ratio = ana / pt;
    printf("check cost: %zu corpus files + 2 generated (10k, 100k blocks), %.2f MB, %zu findings, best of %u passes (thread CPU time)\n",
           ncorpus, (double)bytes / 1e6, nfind, passes);
    for (int k = 0; k < 2; k++)
        printf("  %-9s parse %6.1f ms, check's work %6.1f ms, analyses %6.1f ms: analysis/parse %.2f\n",
               k ? "generated" : "corpus", 1e3 * parse_best[k], 1e3 * check_best[k],
               1e3 * (check_best[k] - parse_best[k]), (check_best[k] - parse_best[k]) / parse_best[k]);
    printf("  all       parse %6.1f ms, check's work %6.1f ms, analyses %6.1f ms: analysis/parse %.2f  (target <= 1.5: %s)\n",
           1e3 * pt, 1e3 * ct, 1e3 * ana, ratio, pf(ratio <= 1.5));
    fail |= !(ratio <= 1.5);
    for (size_t i = 0; i < np; i++) free(paths[i]);
    free(paths);

    return fail;
}
