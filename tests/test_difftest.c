/* The differential oracles (fuzz/diff/oracles.h, docs/testing.md) in the test
 * suite:
 *   - regressions: every kernel of tests/data/fuzz/ (a reduced kernel a
 *     difftest run found, its seed in its comment) through every oracle.
 *     Its header says the launch ("// launch: KERNEL GRID BLOCK ARG...")
 *     and the oracle that failed ("// oracle: NAME"); "// status: open"
 *     marks a failure not fixed yet ("// schedule-seed: N" the interleave
 *     and ITS seed that shows it, default 1; "// wrapped: N" the divergence
 *     claims not met where values wrapped around, default 0, exactly): that
 *     oracle must still fail on it (and
 *     no other), so a fix shows up here and the file then says fixed, when
 *     every oracle must pass;
 *   - sample: a few generated kernels through every oracle, 0 failures. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fzgen.h"
#include "oracles.h"
#include "testutil.h"

static dt_opts opts(void)
{
    dt_opts o;
    memset(&o, 0, sizeof o);
    o.nbudgets = 2;
    o.budgets[0] = 8, o.budgets[1] = 16;
    o.sched_seed = 1;
    return o;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot read %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    cr_assert(s && fread(s, 1, (size_t)n, f) == (size_t)n);
    s[n] = 0;
    fclose(f);
    *len = (size_t)n;
    return s;
}

Test(difftest, regressions, .timeout = 0)
{
    const char *dir = tu_src("tests/data/fuzz");
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "no %s", dir);
    unsigned files = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t nl = strlen(e->d_name);
        if (nl < 5 || strcmp(e->d_name + nl - 4, ".ptx")) continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t len;
        char *text = slurp(path, &len);
        char line[512], oracle[64], status[200] = "";
        cr_assert(dt_header(text, "launch", line, sizeof line), "%s: no // launch: line", path);
        cr_assert(dt_header(text, "oracle", oracle, sizeof oracle), "%s: no // oracle: line", path);
        dt_header(text, "status", status, sizeof status);
        bool open = !strncmp(status, "open", 4);
        dt_launch L;
        cr_assert(dt_parse_launch(line, &L), "%s: bad launch", path);
        dt_opts o = opts();
        char sseed[32];
        if (dt_header(text, "schedule-seed", sseed, sizeof sseed)) o.sched_seed = strtoull(sseed, NULL, 10);
        FILE *log = tmpfile();
        o.log = log;
        dt_counts c;
        memset(&c, 0, sizeof c);
        dt_check(e->d_name, text, len, &L, &o, &c);
        rewind(log);
        char msg[4096] = "";
        size_t got = fread(msg, 1, sizeof msg - 1, log);
        msg[got] = 0;
        fclose(log);
        char swrap[32];
        uint64_t wrapped = dt_header(text, "wrapped", swrap, sizeof swrap) ? strtoull(swrap, NULL, 10) : 0;
        cr_expect_eq(c.wrapped, wrapped, "%s: %llu divergence claims not met where values wrapped around, %llu expected",
                     path, (unsigned long long)c.wrapped, (unsigned long long)wrapped);
        for (int i = 0; i < DT_NORACLES; i++) {
            bool named = !strcmp(dt_oracle_name((enum dt_oracle)i), oracle);
            if (open && named)
                cr_expect_gt(c.failures[i], 0, "%s: open, but the %s oracle passes now: mark it fixed", path, oracle);
            else
                cr_expect_eq(c.failures[i], 0, "%s: the %s oracle fails:\n%s", path, dt_oracle_name((enum dt_oracle)i),
                             msg);
        }
        free(text);
        files++;
    }
    closedir(d);
    cr_expect_geq(files, 3, "the regression kernels are gone");
}

/* Generated kernels through every oracle: seeds whose kernels touch none
 * of the open failures of tests/data/fuzz (docs/testing.md). */
Test(difftest, sample, .timeout = 0)
{
    static const uint64_t seeds[] = {1, 2, 3};
    dt_counts c;
    memset(&c, 0, sizeof c);
    dt_opts o = opts();
    for (unsigned i = 0; i < sizeof seeds / sizeof *seeds; i++) {
        fz_kernel k;
        fz_generate(seeds[i], &k);
        char line[1024], name[32];
        fz_launch_line(&k, line, sizeof line);
        snprintf(name, sizeof name, "seed %llu", (unsigned long long)seeds[i]);
        dt_launch L;
        cr_assert(dt_parse_launch(line, &L));
        o.sched_seed = seeds[i];
        unsigned f = dt_check(name, k.ptx, k.len, &L, &o, &c);
        cr_expect_eq(f, 0, "%s: %u oracle failures (listed on stderr)", name, f);
        fz_free(&k);
    }
    cr_expect_eq(c.kernels, 3);
    cr_expect_eq(c.rewrites, 3 * 2 * 3, "every budget and mode rewrote every kernel");
    cr_expect_gt(c.claims[1], 0, "no divergence claim was checked");
    cr_expect_gt(c.g_requests, 0, "no global request was checked");
}

/* Same seed, same kernel and launch; another seed, another kernel. */
Test(difftest, generator_is_deterministic)
{
    fz_kernel a, b, x;
    fz_generate(77, &a);
    fz_generate(77, &b);
    fz_generate(78, &x);
    cr_assert_eq(a.len, b.len);
    cr_assert(!memcmp(a.ptx, b.ptx, a.len));
    char la[1024], lb[1024];
    fz_launch_line(&a, la, sizeof la);
    fz_launch_line(&b, lb, sizeof lb);
    cr_assert_str_eq(la, lb);
    cr_assert(x.len != a.len || memcmp(x.ptx, a.ptx, a.len));
    fz_free(&a);
    fz_free(&b);
    fz_free(&x);
}
