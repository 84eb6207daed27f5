/* ptxray run --synccheck (issue 36): the dynamic oracle of divergent-barrier
 * and divergent-collective on tests/data/synccheck/ (one .cu per pattern,
 * its buggy and legal kernels; the .ptx is nvcc -ptx -lineinfo of it), under
 * the lockstep and the ITS schedule: exact reports and exit statuses. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"

#define BIN (char *)tu_bin()

/* run FILE --kernel K --block B --arg buf:i32:128 [--arg EXTRA] --synccheck
 * --schedule S --seed SEED -q; out/err malloc'd */
static int sc(const char *file, const char *kernel, const char *sched, const char *seed, const char *block,
              const char *extra, char **out, char **err)
{
    static char path[4096];
    char rel[256];
    snprintf(rel, sizeof rel, "tests/data/synccheck/%s.ptx", file);
    snprintf(path, sizeof path, "%s", tu_src(rel));
    char *a[24];
    int n = 0;
    a[n++] = BIN;
    a[n++] = "run";
    a[n++] = path;
    a[n++] = "--kernel";
    a[n++] = (char *)kernel;
    a[n++] = "--block";
    a[n++] = (char *)block;
    a[n++] = "--arg";
    a[n++] = "buf:i32:128";
    if (extra) {
        a[n++] = "--arg";
        a[n++] = (char *)extra;
    }
    a[n++] = "--synccheck";
    a[n++] = "--schedule";
    a[n++] = (char *)sched;
    a[n++] = "--seed";
    a[n++] = (char *)seed;
    a[n++] = "-q";
    a[n] = NULL;
    return tu_run(a, out, err);
}

#define HAS(s, sub) cr_expect(strstr((s), (sub)) != NULL, "missing:\n%s\nin:\n%s", (sub), (s))

static const char *const scheds[] = {"lockstep", "its"};

/* every legal pattern: no report, exit 0, under both schedules and several ITS seeds */
Test(synccheck, legal_patterns_are_quiet)
{
    static const char *const k[][4] = {
        {"shfl_half", "ok", NULL, "64"},          /* half-warp shuffle with the right mask */
        {"shfl_half", "ok_activemask", NULL, "64"},
        {"bar_branch", "ok", "i32:1", "128"},     /* barrier in a block-uniform branch */
        {"bar_branch", "ok_exit", "i32:40", "128"}, /* barrier after an early exit */
        {"warp_role", "ok", NULL, "128"},
        {"loop_trip", "ok", "i32:3", "128"},      /* uniform trip count */
        {"named_bar", "ok", NULL, "128"},         /* producer bar.arrive, consumer bar.sync, 64 threads */
        {"bar_nonaligned", "ok_nonaligned", NULL, "128"}, /* barrier.sync (not .aligned) in both arms */
        {"shfl_half", "ok_ballot", NULL, "64"},   /* the branch's ballot as the mask */
    };
    static const char *const seeds[] = {"0", "1", "2", "3"};
    for (unsigned i = 0; i < sizeof k / sizeof k[0]; i++)
        for (unsigned s = 0; s < 2; s++)
            for (unsigned e = 0; e < (s ? 4u : 1u); e++) {
                char *out, *err;
                int rc = sc(k[i][0], k[i][1], scheds[s], seeds[e], k[i][3], k[i][2], &out, &err);
                cr_expect_eq(rc, 0, "%s %s %s seed %s: rc %d\n%s%s", k[i][0], k[i][1], scheds[s], seeds[e], rc, out, err);
                HAS(out, "synccheck: 0 reports");
                free(out);
                free(err);
            }
}

Test(synccheck, barrier_in_thread_dependent_branch)
{
    for (unsigned s = 0; s < 2; s++) {
        char *out, *err;
        cr_assert_eq(sc("bar_branch", "bug", scheds[s], "0", "64", NULL, &out, &err), 1);
        HAS(out, "synccheck/bar_branch.ptx:42:2: divergent-barrier: 'bar.sync' (barrier 0) executed by part of warp 1 "
                 "of block (0,0,0): an .aligned barrier needs the warp's threads together, 1 time, bar_branch.cu:7\n"
                 "      executed by: threads (32..47,0,0)\n");
        HAS(out, s ? "      threads (48..50,0,0): skipped it, ran on to line 50 (bar_branch.cu:10) and exited while "
                     "the others waited\n"
                   : "      threads (48..63,0,0): skipped it, ran on to line 50 (bar_branch.cu:10) and exited while "
                     "the others waited\n");
        HAS(out, "      fix: move the barrier out of the branch or loop");
        free(out);
        free(err);
    }
}

Test(synccheck, two_barriers_in_if_else)
{
    char *out, *err;
    cr_assert_eq(sc("bar_branch", "bug_ifelse", "lockstep", "0", "64", NULL, &out, &err), 1);
    HAS(out, "synccheck/bar_branch.ptx:187:2: divergent-barrier: 'bar.sync' (barrier 0) executed by part of warp 0 "
             "of block (0,0,0): an .aligned barrier needs the warp's threads together, 2 times, bar_branch.cu:40\n"
             "      executed by: threads (0,0,0), (2,0,0), (4,0,0), (6,0,0), (8,0,0), (10,0,0), ... (16 threads in "
             "all)\n      threads (1,0,0), (3,0,0), (5,0,0), (7,0,0), (9,0,0), (11,0,0), ... (16 threads in all): at "
             "the barrier at line 195 (bar_branch.cu:37)\n");
    free(out);
    free(err);
    /* ITS: the two halves wait at their own barrier for the whole warp: a deadlock, explained */
    cr_assert_eq(sc("bar_branch", "bug_ifelse", "its", "0", "64", NULL, &out, &err), 1);
    HAS(err, "error: deadlock: warp 0 of block (0,0,0) waits at barrier 0");
    HAS(out, "synccheck/bar_branch.ptx:187:2: divergent-barrier: 'bar.sync' (barrier 0): threads of block (0,0,0) "
             "wait forever; live threads of the block never arrive, 1 time, bar_branch.cu:40\n"
             "      waiting: threads (0,0,0), (2,0,0), (4,0,0), (6,0,0), (8,0,0), (10,0,0), ... (32 threads in all)\n"
             "      threads (1,0,0), (3,0,0), (5,0,0), (7,0,0), (9,0,0), (11,0,0), ... (32 threads in all): at the "
             "barrier at line 195 (bar_branch.cu:37)\n");
    free(out);
    free(err);
}

Test(synccheck, warp_roles_with_their_own_barriers)
{
    for (unsigned s = 0; s < 2; s++) {
        char *out, *err;
        cr_assert_eq(sc("warp_role", "bug", scheds[s], "0", "64", NULL, &out, &err), 1);
        HAS(out, "synccheck/warp_role.ptx:114:2: divergent-barrier: 'bar.sync' (barrier 0): one instance completed at "
                 "different barrier instructions in block (0,0,0): an .aligned barrier needs every thread of the "
                 "block at the same one, 1 time, warp_role.cu:20\n      executed by: threads (0..31,0,0)\n"
                 "      threads (32..63,0,0): at the barrier at line 106 (warp_role.cu:23)\n");
        free(out);
        free(err);
    }
}

Test(synccheck, loop_with_thread_dependent_trip_count)
{
    for (unsigned s = 0; s < 2; s++) {
        char *out, *err;
        cr_assert_eq(sc("loop_trip", "bug", scheds[s], "0", "64", NULL, &out, &err), 1);
        HAS(out, "synccheck/loop_trip.ptx:48:2: divergent-barrier: 'bar.sync' (barrier 0) executed by part of warp 0 "
                 "of block (0,0,0): an .aligned barrier needs the warp's threads together, 6 times, loop_trip.cu:8\n"
                 "      executed by: threads (1..3,0,0), (5..7,0,0), (9..11,0,0), (13..15,0,0), (17..19,0,0), "
                 "(21..23,0,0), ... (24 threads in all)\n");
        HAS(out, s ? "      threads (0,0,0), (4,0,0), (8,0,0), (16,0,0), (20,0,0), (24,0,0), ... (7 threads in all): "
                     "skipped it, ran on to line 65 (loop_trip.cu:6)"
                   : "      threads (0,0,0), (4,0,0), (8,0,0), (12,0,0), (16,0,0), (20,0,0), ... (8 threads in all): "
                     "skipped it, ran on to line 65 (loop_trip.cu:6)");
        free(out);
        free(err);
    }
}

Test(synccheck, named_barrier_counts)
{
    for (unsigned s = 0; s < 2; s++) {
        char *out, *err;
        cr_assert_eq(sc("named_bar", "bug_counts", scheds[s], "0", "128", NULL, &out, &err), 1);
        HAS(out, "synccheck: 1 report ");
        HAS(out, "synccheck/named_bar.ptx:109:2: divergent-barrier: 'bar.sync' (barrier 1) with a thread count of 96 "
                 "in warp 1 of block (0,0,0); another arrival gives 64, 1 time, named_bar.cu:23\n"
                 "      executed by: threads (32..63,0,0)\n      fix: give every arrival at this barrier the same "
                 "thread count, a multiple of 32 (whole warps)\n");
        free(out);
        free(err);
        cr_assert_eq(sc("named_bar", "bug_notwarps", scheds[s], "0", "128", "i32:48", &out, &err), 1);
        HAS(out, "synccheck/named_bar.ptx:188:2: divergent-barrier: 'bar.arrive' (barrier 1) with a thread count of "
                 "48 in warp 0 of block (0,0,0): not a positive multiple of 32 within the block, 1 time, "
                 "named_bar.cu:33\n");
        free(out);
        free(err);
    }
}

Test(synccheck, half_warp_shuffle_with_full_mask)
{
    for (unsigned s = 0; s < 2; s++) {
        char *out, *err;
        cr_assert_eq(sc("shfl_half", "bug", scheds[s], "0", "64", NULL, &out, &err), 1);
        HAS(out, s ? "synccheck/shfl_half.ptx:41:2: divergent-collective: 'shfl.sync.idx.b32' with member mask "
                     "0xffffffff in warp 0 of block (0,0,0): member lanes skipped it while the others waited, 1 time, "
                     "shfl_half.cu:6\n      executed by: threads (0..15,0,0)\n      threads (16..17,0,0), "
                     "(19..30,0,0): skipped it, ran on to line 45 (shfl_half.cu:4) and exited while the others waited\n"
                   : "synccheck/shfl_half.ptx:41:2: divergent-collective: 'shfl.sync.idx.b32' with member mask "
                     "0xffffffff in warp 0 of block (0,0,0): member lanes skipped it while the others waited, 2 times, "
                     "shfl_half.cu:6\n      executed by: threads (0..15,0,0)\n      threads (16..31,0,0): skipped it, "
                     "ran on to line 45 (shfl_half.cu:4) and exited while the others waited\n");
        HAS(out, "      fix: move the collective out of the branch, or use __activemask() or the branch's "
                 "__ballot_sync() as its mask");
        free(out);
        free(err);
    }
}

Test(synccheck, ballot_half_the_warp_skips)
{
    for (unsigned s = 0; s < 2; s++) {
        char *out, *err;
        cr_assert_eq(sc("shfl_half", "bug_ballot", scheds[s], "0", "64", NULL, &out, &err), 1);
        HAS(out, "synccheck: 1 report ");
        HAS(out, "synccheck/shfl_half.ptx:246:2: divergent-collective: 'vote.sync.ballot.b32' with member mask "
                 "0xffffffff in warp 0 of block (0,0,0): member lanes skipped it while the others waited, ");
        HAS(out, s ? "      executed by: threads (0..15,0,0)\n      threads (16..17,0,0), (19..30,0,0): skipped it, "
                     "ran on to line 250 (shfl_half.cu:44) and exited while the others waited\n"
                   : "      executed by: threads (0..15,0,0)\n      threads (16..31,0,0): skipped it, ran on to line "
                     "250 (shfl_half.cu:44) and exited while the others waited\n");
        free(out);
        free(err);
    }
}

Test(synccheck, lane_outside_its_own_mask)
{
    for (unsigned s = 0; s < 2; s++) {
        char *out, *err;
        cr_assert_eq(sc("shfl_half", "bug_notinmask", scheds[s], "0", "64", NULL, &out, &err), 1);
        HAS(out, "synccheck/shfl_half.ptx:163:2: divergent-collective: 'shfl.sync.idx.b32' executed in warp 0 of block "
                 "(0,0,0) by lanes outside its member mask 0xffff0000 (undefined in the PTX ISA)");
        HAS(out, s ? "      outside the mask: threads (0..11,0,0), (13..15,0,0)\n"
                   : "      outside the mask: threads (0..15,0,0)\n");
        free(out);
        free(err);
    }
}

Test(synccheck, syncwarp_half_the_warp_skips)
{
    char *out, *err;
    cr_assert_eq(sc("shfl_half", "bug_syncwarp", "lockstep", "0", "64", NULL, &out, &err), 1);
    HAS(out, "synccheck/shfl_half.ptx:203:2: divergent-collective: 'bar.warp.sync' with member mask 0xffffffff in "
             "warp 0 of block (0,0,0): member lanes skipped it while the others waited, 2 times, shfl_half.cu:37\n"
             "      executed by: threads (0..15,0,0)\n      threads (16..31,0,0): skipped it, ran on to line 207 "
             "(shfl_half.cu:38) and exited while the others waited\n");
    free(out);
    free(err);
    cr_assert_eq(sc("shfl_half", "bug_syncwarp", "its", "0", "64", NULL, &out, &err), 1);
    HAS(out, "synccheck/shfl_half.ptx:203:2: divergent-collective: 'bar.warp.sync' with member mask 0xffffffff in "
             "warp 0 of block (0,0,0): member lanes exited while the others waited (bar.warp.sync waits for every "
             "lane of its mask, exited or not), 1 time, shfl_half.cu:37\n"
             "      executed by: thread (13,0,0)\n      threads (18,0,0), (31,0,0): exited\n");
    free(out);
    free(err);
}

Test(synccheck, json_report)
{
    char path[4096];
    snprintf(path, sizeof path, "%s", tu_src("tests/data/synccheck/bar_branch.ptx"));
    char *a[] = {BIN, "run", path, "--kernel", "bug", "--block", "64", "--arg", "buf:i32:64", "--synccheck",
                 "--format", "json", NULL};
    char *out, *err;
    cr_assert_eq(tu_run(a, &out, &err), 1);
    json_error_t je;
    json_t *j = json_loads(out, 0, &je);
    cr_assert(j, "%s", out);
    json_t *r = json_object_get(j, "synccheck");
    cr_assert_eq(json_array_size(r), 1);
    json_t *e = json_array_get(r, 0);
    cr_expect_str_eq(json_string_value(json_object_get(e, "rule")), "divergent-barrier");
    cr_expect_str_eq(json_string_value(json_object_get(e, "kind")), "partial-warp");
    cr_expect_eq(json_integer_value(json_object_get(e, "line")), 42);
    cr_expect_str_eq(json_string_value(json_object_get(e, "source")), "bar_branch.cu:7");
    cr_expect_eq(json_integer_value(json_object_get(e, "warp")), 1);
    cr_expect_eq(json_integer_value(json_object_get(e, "barrier")), 0);
    cr_expect_str_eq(json_string_value(json_object_get(e, "threads")), "threads (32..47,0,0)");
    json_t *o = json_array_get(json_object_get(e, "others"), 0);
    cr_expect_str_eq(json_string_value(json_object_get(o, "threads")), "threads (48..63,0,0)");
    cr_expect_eq(json_integer_value(json_object_get(o, "line")), 50);
    json_decref(j);
    free(out);
    free(err);
}

Test(synccheck, help_documents_it)
{
    char *a[] = {BIN, "run", "--help", NULL};
    char *out, *err;
    cr_assert_eq(tu_run(a, &out, &err), 0);
    HAS(out, "  --synccheck                  barriers and .sync warp collectives");
    HAS(out, "--synccheck a report");
    free(out);
    free(err);
}

/* ---- the corpus: make synccheck-corpus ----------------------------------------------------- */
/* Every launch of the emulator corpus tests (emu_replay.h) again at the
 * six block shapes of make shapecheck, same grid, arguments and memory,
 * under lockstep and ITS (seed 0), with --synccheck: every report printed
 * and counted.  Only with PTXRAY_SYNCCHECK_CORPUS=1 (minutes). */
#include "emu_harness.h"
#include "emu_replay.h"

static const emu_dim3 sc_shapes[EMU_REPLAY_NSHAPES] = EMU_REPLAY_SHAPES;

static struct {
    unsigned launches, run, not_run, with_reports;
    uint64_t reports;
    /* the static rules (check --block) at the same kernel and shape */
    unsigned proven, proven_ok, possible, possible_ok, contradicted, missed, unreached;
} scx;

/* check's findings of the two rules for path at block b, cached (a file
 * has several launches). */
static struct sc_static {
    char path[512];
    emu_dim3 b;
    json_t *f;
} *scs;
static unsigned nscs;

static json_t *static_findings(const char *path, emu_dim3 b)
{
    for (unsigned i = 0; i < nscs; i++)
        if (!strcmp(scs[i].path, path) && scs[i].b.x == b.x && scs[i].b.y == b.y && scs[i].b.z == b.z) return scs[i].f;
    char blk[64];
    snprintf(blk, sizeof blk, "%u,%u,%u", b.x, b.y, b.z);
    char *a[] = {BIN, "check", (char *)path, "--block", blk, "--format", "json", "--no-config", NULL};
    char *out, *err;
    int rc = tu_run(a, &out, &err);
    cr_assert(rc == 0 || rc == 1, "check %s --block %s: rc %d\n%s", path, blk, rc, err);
    json_error_t je;
    json_t *root = json_loads(out, 0, &je);
    cr_assert_not_null(root, "check's JSON: %s", je.text);
    free(out);
    free(err);
    json_t *keep = json_array(), *x;
    size_t i;
    json_array_foreach(json_object_get(root, "findings"), i, x) {
        const char *r = json_string_value(json_object_get(x, "rule"));
        if (!strcmp(r, "divergent-barrier") || !strcmp(r, "divergent-collective")) json_array_append(keep, x);
    }
    json_decref(root);
    scs = realloc(scs, sizeof *scs * (nscs + 1));
    cr_assert_not_null(scs);
    snprintf(scs[nscs].path, sizeof scs[nscs].path, "%s", path);
    scs[nscs].b = b;
    scs[nscs].f = keep;
    return scs[nscs++].f;
}

static bool has_line(const uint32_t *v, unsigned n, uint32_t line)
{
    for (unsigned i = 0; i < n; i++)
        if (v[i] == line) return true;
    return false;
}

/* The static findings of kernel at b against the PTX lines the emulator
 * reported there (both schedules): a proven one must be among them; every
 * finding and every report not found statically is printed. */
static void sc_compare(const char *path, const char *kernel, emu_dim3 b, const uint32_t *dyn, unsigned ndyn,
                       bool faulted)
{
    json_t *f = static_findings(path, b), *x, *l;
    size_t i, j;
    bool *seen = calloc(ndyn + 1, 1);
    cr_assert_not_null(seen);
    json_array_foreach(f, i, x) {
        if (strcmp(json_string_value(json_object_get(x, "symbol")), kernel)) continue;
        bool ok = false;
        json_array_foreach(json_object_get(x, "ptx_lines"), j, l) {
            for (unsigned k = 0; k < ndyn; k++)
                if (dyn[k] == (uint32_t)json_integer_value(l)) ok = seen[k] = true;
        }
        bool proven = !strcmp(json_string_value(json_object_get(x, "certainty")), "proven");
        /* a launch that stopped at a fault (the emulator's own: a barrier
         * count above the block) may not reach it */
        if (proven) scx.proven++, scx.proven_ok += ok, scx.contradicted += !ok && !faulted, scx.unreached += !ok && faulted;
        else scx.possible++, scx.possible_ok += ok;
        printf("static %s %s:%lld %s block %ux%ux%u [%s, %s]: %s\n",
               ok ? "CONFIRMED" : !proven ? "unconfirmed" : faulted ? "not reached (the launch faulted)" : "CONTRADICTED",
               path, (long long)json_integer_value(json_object_get(x, "line")), kernel, b.x, b.y, b.z,
               json_string_value(json_object_get(x, "rule")), proven ? "proven" : "possible",
               json_string_value(json_object_get(x, "message")));
    }
    for (unsigned k = 0; k < ndyn; k++)
        if (!seen[k] && !has_line(dyn, k, dyn[k])) {
            scx.missed++;
            printf("dynamic only %s:%u %s block %ux%ux%u\n", path, dyn[k], kernel, b.x, b.y, b.z);
        }
    free(seen);
}

typedef struct sc_ctx {
    emu_machine *snap;
    emu_dim3 grid, block;
    FILE *devnull;
} sc_ctx;

static void sc_opened(eh *h)
{
    sc_ctx *k = calloc(1, sizeof *k);
    cr_assert_not_null(k);
    k->devnull = fopen("/dev/null", "w");
    h->hook_data = k;
}

static void sc_launching(eh *h, const char *kernel, emu_dim3 grid, emu_dim3 block)
{
    (void)kernel;
    sc_ctx *k = h->hook_data;
    emu_destroy(k->snap);
    k->snap = emu_clone(h->M, NULL);
    cr_assert_not_null(k->snap);
    k->grid = grid;
    k->block = block;
}

static void sc_launched(eh *h, const char *kernel, emu_status st0)
{
    (void)st0;
    sc_ctx *k = h->hook_data;
    scx.launches++;
    const emu_stats *os = emu_last_stats(h->M);
    uint64_t ow = (uint64_t)k->block.x * k->block.y * k->block.z;
    ow = ow ? (ow + 31) / 32 : 1;
    for (unsigned s = 0; s < EMU_REPLAY_NSHAPES; s++) {
        uint32_t dyn[64];
        unsigned ndyn = 0;
        bool ran = false, faulted = false;
        for (unsigned sched = 0; sched < 2; sched++) {
            emu_dim3 b = sc_shapes[s];
            if (!eh_bounds_allow(h->m, kernel, b)) {
                scx.not_run++;
                continue;
            }
            uint64_t nw = ((uint64_t)b.x * b.y * b.z + 31) / 32;
            emu_options o = h->opt;
            o.observer = NULL;
            o.printf_out = k->devnull;
            o.checks = EMU_CHECK_SYNC;
            o.schedule = sched ? EMU_SCHED_ITS : EMU_SCHED_LOCKSTEP;
            o.seed = 0;
            o.max_steps = (os->warp_insts + 20000) * 16 * (nw > ow ? (nw + ow - 1) / ow : 1);
            emu_machine *M = emu_clone(k->snap, &o);
            cr_assert_not_null(M);
            ptx_diags d;
            ptx_diags_init(&d);
            emu_status st = emu_launch(M, kernel, k->grid, b, h->args, h->nargs, &d);
            ran = true; /* a launch that faults ran too (ws_producer_consumer at 48 threads) */
            if (st == EMU_OK) scx.run++;
            else scx.not_run++, faulted = true;
            uint64_t n = emu_sync_count(M);
            if (n) {
                json_t *js = emu_sync_report_json(M, h->path, NULL), *x;
                size_t i;
                json_array_foreach(js, i, x) {
                    uint32_t line = (uint32_t)json_integer_value(json_object_get(x, "line"));
                    if (ndyn < 64 && !has_line(dyn, ndyn, line)) dyn[ndyn++] = line;
                    /* where the other threads waited: a barrier per side, one report */
                    json_t *o;
                    size_t q;
                    json_array_foreach(json_object_get(x, "others"), q, o) {
                        json_t *ol = json_object_get(o, "line");
                        line = ol ? (uint32_t)json_integer_value(ol) : 0;
                        if (ol && ndyn < 64 && !has_line(dyn, ndyn, line)) dyn[ndyn++] = line;
                    }
                }
                json_decref(js);
            }
            if (n) {
                scx.with_reports++;
                scx.reports += n;
                printf("%s kernel %s grid %ux%ux%u block %ux%ux%u, %s: %s%s%s\n", h->path, kernel, k->grid.x,
                       k->grid.y, k->grid.z, b.x, b.y, b.z, sched ? "its" : "lockstep", emu_status_name(st),
                       d.n ? ": " : "", d.n ? d.v[0].msg : "");
                emu_sync_report_text(M, h->path, NULL, stdout);
            }
            ptx_diags_free(&d);
            emu_destroy(M);
        }
        if (ran) sc_compare(h->path, kernel, sc_shapes[s], dyn, ndyn, faulted);
    }
    emu_destroy(k->snap);
    k->snap = NULL;
}

static void sc_closing(eh *h)
{
    sc_ctx *k = h->hook_data;
    if (!k) return;
    emu_destroy(k->snap);
    fclose(k->devnull);
    free(k);
    h->hook_data = NULL;
}

static const eh_hooks sc_hooks = {sc_opened, sc_launching, sc_launched, sc_closing};

EMU_CORPUS_TESTS(EMU_REPLAY_DECLARE)

Test(synccheck, corpus, .timeout = 0)
{
    const char *on = getenv("PTXRAY_SYNCCHECK_CORPUS");
    if (!on || strcmp(on, "1")) cr_skip_test("make synccheck-corpus runs it");
#define CALL(name) emu_corpus_##name##_impl();
    eh_hooks_on = &sc_hooks;
    EMU_CORPUS_TESTS(CALL)
    eh_hooks_on = NULL;
#undef CALL
    cr_assert_gt(scx.launches, 0, "no launch went through the harness");
    cr_expect_gt(scx.run, 0);
    printf("synccheck-corpus: %u launches, %u relaunches run (6 block shapes x lockstep, its), %u not run, "
           "%u with reports, %llu reports\n",
           scx.launches, scx.run, scx.not_run, scx.with_reports, (unsigned long long)scx.reports);
    printf("synccheck-corpus: static rules at the same kernels and shapes: %u proven (%u confirmed, %u not reached "
           "in a launch that faulted, %u contradicted), %u possible (%u confirmed); %u reported lines found only by "
           "the emulator\n",
           scx.proven, scx.proven_ok, scx.unreached, scx.contradicted, scx.possible, scx.possible_ok, scx.missed);
    fflush(stdout);
    cr_expect_eq(scx.contradicted, 0, "a proven static finding the emulator does not confirm");
    for (unsigned i = 0; i < nscs; i++) json_decref(scs[i].f);
    free(scs);
}
