/* ptxray regalloc: the rewritten module and the summary for each mode
 * (tests/data/regalloc), the filter and output options, the shared-area
 * options, and bad usage and input (exit 2, nothing written). */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "testutil.h"

extern char **environ;

#define BIN ((char *)tu_bin())

static char *src(const char *rel)
{
    static char buf[4][1024];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s", tu_src(rel));
    return buf[k];
}

static char *slurp(int fd)
{
    off_t n = lseek(fd, 0, SEEK_END);
    lseek(fd, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    cr_assert_not_null(s);
    ssize_t got = read(fd, s, (size_t)n);
    s[got > 0 ? got : 0] = 0;
    close(fd);
    return s;
}

/* tu_run with stdin from a file. */
static int run_in(char *const argv[], const char *in, char **out, char **err)
{
    char t1[] = "/tmp/ptxray-rao-XXXXXX", t2[] = "/tmp/ptxray-rae-XXXXXX";
    int fo = mkstemp(t1), fe = mkstemp(t2);
    unlink(t1);
    unlink(t2);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fo, 1);
    posix_spawn_file_actions_adddup2(&fa, fe, 2);
    posix_spawn_file_actions_addopen(&fa, 0, in, O_RDONLY, 0);
    pid_t pid;
    int rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    int st = 0;
    if (rc == 0) waitpid(pid, &st, 0);
    *out = slurp(fo);
    *err = slurp(fe);
    return rc ? -1 : WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

Test(regalloc_cli, rewrites_and_summary_per_mode)
{
    const char *modes[] = {"linear", "div", "aff"};
    for (int i = 0; i < 3; i++) {
        char *out, *err, rel[128];
        char *a[] = {BIN, "regalloc", "-", "--budget", "5", "--mode", (char *)modes[i], NULL};
        cr_assert_eq(run_in(a, src("tests/data/regalloc/spill_rules.ptx"), &out, &err), 0, "%s", err);
        snprintf(rel, sizeof rel, "tests/data/regalloc/spill_rules.%s.out", modes[i]);
        char *want = tu_read(src(rel), NULL);
        cr_assert_not_null(want, "%s", rel);
        cr_expect_str_eq(out, want, "%s", modes[i]);
        free(want);
        snprintf(rel, sizeof rel, "tests/data/regalloc/spill_rules.%s.err", modes[i]);
        want = tu_read(src(rel), NULL);
        cr_assert_not_null(want, "%s", rel);
        cr_expect_str_eq(err, want, "%s", modes[i]);
        free(want);
        free(out);
        free(err);
    }
}

Test(regalloc_cli, output_file_quiet_and_deterministic)
{
    char path[] = "/tmp/ptxray-ra-outXXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
    char *out, *err, *out2, *err2;
    char *a[] = {BIN, "regalloc", src("ptx-corpus/sm_80/matmul_tiled.ptx"), "--budget", "8", "-q", "-o", path, NULL};
    cr_assert_eq(tu_run(a, &out, &err), 0, "%s", err);
    cr_expect_str_eq(out, "");
    cr_expect_str_eq(err, "");
    char *b[] = {BIN, "regalloc", src("ptx-corpus/sm_80/matmul_tiled.ptx"), "--budget", "8", "--mode", "aff", NULL};
    cr_assert_eq(tu_run(b, &out2, &err2), 0, "%s", err2);
    char *file = tu_read(path, NULL);
    cr_expect_str_eq(file, out2, "-o and stdout differ");
    cr_expect(strstr(err2, "mode aff, budget 8 units\n") != NULL, "%s", err2);
    free(out2);
    free(err2);
    /* the same run again gives the same bytes */
    cr_assert_eq(tu_run(b, &out2, &err2), 0);
    cr_expect_str_eq(file, out2);
    free(file);
    free(out);
    free(err);
    free(out2);
    free(err2);
    unlink(path);
}

Test(regalloc_cli, kernel_option_allocates_one_function)
{
    char *out, *err;
    char *a[] = {BIN, "regalloc", src("ptx-corpus/sm_80/sampaio_divergence.ptx"), "--budget", "8", "--mode", "div",
                 "--kernel", "sumTriangle", NULL};
    cr_assert_eq(tu_run(a, &out, &err), 0, "%s", err);
    cr_expect(strstr(err, "  sumTriangle: pressure ") != NULL, "%s", err);
    cr_expect(strstr(err, "avgSquare") == NULL, "%s", err);
    /* avgSquare is printed as it was */
    const char *avg = strstr(out, ".entry avgSquare(");
    cr_assert_not_null(avg);
    const char *end = strstr(avg, "\n}\n");
    cr_assert_not_null(end);
    const char *ra = strstr(avg, "__ra_");
    cr_expect(!ra || ra > end);
    cr_expect(strstr(strstr(out, ".entry sumTriangle("), "__ra_shared") != NULL);
    free(out);
    free(err);
}

Test(regalloc_cli, shared_limit_falls_back_to_local)
{
    char *out, *err;
    /* the per-warp partition of avgSquare is 32 bytes: with 32 warps it
     * does not fit in 512 bytes; with 4 warps (--max-threads 128) it does */
    char *a[] = {BIN, "regalloc", src("ptx-corpus/sm_80/sampaio_divergence.ptx"), "--budget", "8", "--kernel",
                 "avgSquare", "--smem-limit", "512", NULL};
    cr_assert_eq(tu_run(a, &out, &err), 0, "%s", err);
    cr_expect(strstr(err, ": warning: avgSquare: the shared spill area would pass 512 bytes per block (0 of static "
                          "shared, 32 warps): ") != NULL, "%s", err);
    cr_expect(strstr(err, "shared limit ") != NULL, "%s", err);
    cr_expect(strstr(err, "x 32 warps = ") != NULL, "%s", err);
    free(out);
    free(err);
    char *b[] = {BIN, "regalloc", src("ptx-corpus/sm_80/sampaio_divergence.ptx"), "--budget", "8", "--kernel",
                 "avgSquare", "--smem-limit", "512", "--max-threads", "128", NULL};
    cr_assert_eq(tu_run(b, &out, &err), 0, "%s", err);
    cr_expect(strstr(err, "warning") == NULL, "%s", err);
    cr_expect(strstr(err, ".shared 32 bytes per warp x 4 warps = 128 bytes per block (+0 static)\n") != NULL, "%s",
              err);
    free(out);
    free(err);
    /* the kernel's own shared memory counts: matmul_tiled's tiles take 8 KiB */
    char *c[] = {BIN, "regalloc", src("ptx-corpus/sm_80/matmul_tiled.ptx"), "--budget", "8", "--smem-limit", "8192",
                 NULL};
    cr_assert_eq(tu_run(c, &out, &err), 0, "%s", err);
    cr_expect(strstr(err, "(8192 of static shared, ") != NULL, "%s", err);
    free(out);
    free(err);
}

Test(regalloc_cli, bad_usage_and_input)
{
    struct {
        const char *args[8];
        const char *err; /* a substring of stderr */
    } cases[] = {
        {{"regalloc", "X", NULL}, "ptxray regalloc: --budget is required\n"},
        {{"regalloc", "X", "--budget", "0", NULL}, "ptxray regalloc: --budget 0: expected a number from 1 to 65535\n"},
        {{"regalloc", "X", "--budget", "-3", NULL}, "--budget -3: expected a number"},
        {{"regalloc", "X", "--budget", "8x", NULL}, "--budget 8x: expected a number"},
        {{"regalloc", "X", "--budget", "8", "--mode", "fast", NULL},
         "ptxray regalloc: --mode fast: expected linear, div or aff\n"},
        {{"regalloc", "X", "--budget", "8", "--max-threads", "2048", NULL}, "from 1 to 1024"},
        {{"regalloc", "X", "--budget", "8", "--kernel", "nope", NULL}, ": no function named 'nope'; "},
        {{"regalloc", "X", "X", "--budget", "8", NULL}, "usage: ptxray regalloc FILE|-"},
        {{"regalloc", "tests/data/regalloc/missing.ptx", "--budget", "8", NULL}, "missing.ptx"},
    };
    char outpath[] = "/tmp/ptxray-ra-badXXXXXX";
    int fd = mkstemp(outpath);
    close(fd);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *argv[16];
        int n = 0;
        argv[n++] = BIN;
        for (int k = 0; cases[i].args[k]; k++) {
            const char *x = cases[i].args[k];
            argv[n++] = !strcmp(x, "X") ? src("tests/data/regalloc/spill_rules.ptx")
                        : !strncmp(x, "tests/", 6) ? src(x)
                                                   : (char *)x;
        }
        unlink(outpath);
        argv[n++] = "-o";
        argv[n++] = outpath;
        argv[n] = NULL;
        char *out, *err;
        cr_expect_eq(tu_run(argv, &out, &err), 2, "case %zu: %s", i, err);
        cr_expect(strstr(err, cases[i].err) != NULL, "case %zu: %s", i, err);
        cr_expect_str_eq(out, "");
        cr_expect(access(outpath, F_OK) != 0, "case %zu wrote %s", i, outpath);
        free(out);
        free(err);
    }
    /* a syntax error: the compiler-style position, nothing written */
    char bad[] = "/tmp/ptxray-ra-badptxXXXXXX";
    fd = mkstemp(bad);
    const char *text = ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n  mov.u32 %r1, ;\n}\n";
    cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    char *argv[] = {BIN, "regalloc", bad, "--budget", "8", "-o", outpath, NULL};
    char *out, *err;
    cr_expect_eq(tu_run(argv, &out, &err), 2);
    char want[128];
    snprintf(want, sizeof want, "%s:6:11: error: use of undeclared register", bad);
    cr_expect(strstr(err, want) != NULL && strstr(err, "error: ") != NULL, "%s", err);
    cr_expect(access(outpath, F_OK) != 0);
    free(out);
    free(err);
    unlink(bad);
    char *h[] = {BIN, "regalloc", "--help", NULL};
    cr_assert_eq(tu_run(h, &out, &err), 0);
    cr_expect(strstr(out, "--mode linear") != NULL && strstr(out, "--smem-limit") != NULL, "%s", out);
    free(out);
    free(err);
    char *top[] = {BIN, "--help", NULL};
    cr_assert_eq(tu_run(top, &out, &err), 0);
    cr_expect(strstr(out, "  regalloc   ") != NULL, "%s", out);
    free(out);
    free(err);
}
