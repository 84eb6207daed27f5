/* The register allocator's rewrites under the adversarial ITS schedule
 * (docs/emulator.md, "Independent thread scheduling"; `make regalloc-its`).
 *
 * Every launch of the emulator corpus tests is launched again from the
 * same inputs (emu_clone_module of the machine just before the test's own
 * launch):
 *   - the original kernel under --schedule its for each seed: if one of
 *     these runs stops (fault, deadlock, ...) the kernel is not ITS-correct
 *     and the launch is left out; bytes of global memory that differ
 *     between the test's own (lock-step) run and these are
 *     schedule-dependent (float atomics, a racing read) and not compared;
 *   - the kernel as `ptxray regalloc` rewrote it (printed and parsed
 *     again), in each mode and budget, under --schedule its for each seed:
 *     it must complete and leave every other byte of global memory as the
 *     original did.
 * make test / make check run a fixed sample (budgets 8 and 16, the three
 * modes, seeds 1 and 2); PTXRAY_RA_ITS=all (make regalloc-its) runs budgets
 * 8 12 16 24 32 and 20 seeds, with a table per mode and budget. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "emu_harness.h"
#include "emu_replay.h"
#include "regalloc.h"
#include "testutil.h"

static const enum ra_mode modes[3] = {RA_MODE_LINEAR, RA_MODE_DIV, RA_MODE_AFF};
static const unsigned all_budgets[5] = {8, 12, 16, 24, 32};
static const unsigned sample_budgets[2] = {8, 16};
#define MAXCFG 15
#define MAXKEYS 4096

/* What the emulator measured of the spill code (emu_stats): bytes to and
 * from the .local and .shared slots, rematerialisations started, per lane. */
typedef struct dyn {
    uint64_t local_ld, local_st, shared_ld, shared_st, remat_c, remat_a, remat_s;
} dyn;

static struct {
    bool all;
    const unsigned *budgets;
    unsigned nbudgets, nseeds, ncfg;
    unsigned launches, skipped_fail, not_its, schedule_dep, runs, mismatches;
    unsigned cfg_runs[MAXCFG], cfg_mismatch[MAXCFG];
    uint64_t bytes_unstable;
    char *kernels[MAXKEYS];
    unsigned nkernels;
    FILE *devnull;
    /* dynamic spill traffic of the rewritten kernels (seed 1's run):
     * per configuration, and per kernel the .local bytes */
    dyn cfg_dyn[MAXCFG];
    uint64_t kernel_local[MAXKEYS][MAXCFG];
} rs;

typedef struct its_ctx {
    emu_machine *snap;          /* the machine before the test's launch */
    emu_dim3 grid, block;
    ptx_module *rewritten[MAXCFG];
} its_ctx;

static enum ra_mode cfg_mode(unsigned c) { return modes[c % 3]; }
static unsigned cfg_budget(unsigned c) { return rs.budgets[c / 3]; }

static void hook_opened(eh *h)
{
    its_ctx *k = calloc(1, sizeof *k);
    cr_assert_not_null(k);
    h->hook_data = k;
}

static void hook_closing(eh *h)
{
    its_ctx *k = h->hook_data;
    if (!k) return;
    emu_destroy(k->snap);
    for (unsigned c = 0; c < MAXCFG; c++) ptx_module_free(k->rewritten[c]);
    free(k);
    h->hook_data = NULL;
}

static void hook_launching(eh *h, const char *kernel, emu_dim3 grid, emu_dim3 block)
{
    (void)kernel;
    its_ctx *k = h->hook_data;
    emu_destroy(k->snap);
    k->snap = emu_clone(h->M, NULL);
    cr_assert_not_null(k->snap, "%s: cannot copy the machine", h->path);
    k->grid = grid;
    k->block = block;
}

/* The test's module rewritten by the allocator in configuration c, as
 * `ptxray regalloc` prints it, parsed again. */
static ptx_module *rewritten(eh *h, unsigned c)
{
    its_ctx *k = h->hook_data;
    if (k->rewritten[c]) return k->rewritten[c];
    ptx_diags d;
    ptx_diags_init(&d);
    ptx_module *m = ptx_parse_string(h->path, h->m->src, h->m->src_len, &d);
    cr_assert_not_null(m, "%s: does not parse again", h->path);
    ra_options o;
    memset(&o, 0, sizeof o);
    o.mode = cfg_mode(c);
    o.budget = cfg_budget(c);
    ra_stats st;
    cr_assert_eq(ra_run(m, &o, &st, &d), 0, "%s: regalloc failed", h->path);
    ra_stats_free(&st);
    size_t len;
    char *text = tu_print(m, &len);
    ptx_module_free(m);
    ptx_module *m2 = ptx_parse_string(h->path, text, len, &d);
    cr_assert_not_null(m2, "%s: the rewritten module does not parse (%s budget %u)", h->path, ra_mode_name(o.mode),
                       o.budget);
    free(text);
    ptx_diags_free(&d);
    k->rewritten[c] = m2;
    return m2;
}

/* Launches kernel on a copy of the snapshot, for module m (NULL: the
 * original) under ITS with seed s. */
static emu_machine *relaunch(eh *h, const ptx_module *m, const char *kernel, uint64_t seed, emu_status *st,
                             uint64_t max_steps)
{
    its_ctx *k = h->hook_data;
    emu_options o = h->opt;
    o.schedule = EMU_SCHED_ITS;
    o.seed = seed;
    o.checks = 0;
    o.observer = NULL;
    o.printf_out = rs.devnull;
    o.max_steps = max_steps;
    emu_machine *M = m ? emu_clone_module(k->snap, m, &o) : emu_clone(k->snap, &o);
    cr_assert_not_null(M, "%s: cannot copy the machine", h->path);
    ptx_diags d;
    ptx_diags_init(&d);
    *st = emu_launch(M, kernel, k->grid, k->block, h->args, h->nargs, &d);
    ptx_diags_free(&d);
    return M;
}

/* Marks in unstable[] (one flag per byte of global memory, segments in
 * order) the bytes where M differs from the reference R. */
static void mark_unstable(const emu_machine *R, const emu_machine *M, uint8_t *unstable)
{
    size_t off = 0;
    for (unsigned i = 0; i < emu_global_count(R); i++) {
        size_t n, n2;
        const uint8_t *a = emu_global_get(R, i, NULL, &n), *b = emu_global_get(M, i, NULL, &n2);
        for (size_t j = 0; j < n; j++) unstable[off + j] |= !b || n2 != n || a[j] != b[j];
        off += n;
    }
}

/* The first stable byte where M differs from R: segment and offset; false if none. */
static bool first_diff(const emu_machine *R, const emu_machine *M, const uint8_t *unstable, unsigned *seg,
                       size_t *at)
{
    size_t off = 0;
    if (emu_global_count(M) < emu_global_count(R)) {
        *seg = emu_global_count(M), *at = 0;
        return true;
    }
    for (unsigned i = 0; i < emu_global_count(R); i++) {
        size_t n, n2;
        const uint8_t *a = emu_global_get(R, i, NULL, &n), *b = emu_global_get(M, i, NULL, &n2);
        for (size_t j = 0; j < n; j++)
            if (!unstable[off + j] && (n2 != n || a[j] != b[j])) {
                *seg = i, *at = j;
                return true;
            }
        off += n;
    }
    return false;
}

/* Kernels of the corpus that are not correct under independent thread
 * scheduling (docs/emulator.md, "The corpus under ITS"), or whose output
 * is timing: it depends on the schedule in ways a few seeds need not show. */
static const char *const not_its_correct[] = {
    "reduce_volatile_tail",  /* volatile_shared: legacy warp-synchronous reduction */
    "reduce_tree_unrolled",  /* warp_reduce_tree: the same */
    "match_all_u64",         /* warp_vote: __match_all_sync(__activemask(), ...) */
    "nested_branches",       /* nested_divergence: __syncwarp() after an early return */
    "lcg_random",            /* device_globals_init: reads g_seed while thread 0 writes it */
    /* correct, but out[1] is the number of spins until another block's flag
     * is seen: timing, which the rewrite's extra instructions change */
    "volatile_flag_handoff",
    NULL,
};

static void hook_launched(eh *h, const char *kernel, emu_status st0)
{
    its_ctx *k = h->hook_data;
    cr_assert_not_null(k->snap);
    rs.launches++;
    if (st0 != EMU_OK) { /* a launch the test expects to stop */
        rs.skipped_fail++;
        return;
    }
    char key[600];
    snprintf(key, sizeof key, "%s %s", h->path, kernel);
    unsigned ki = 0;
    while (ki < rs.nkernels && strcmp(rs.kernels[ki], key)) ki++;
    if (ki == rs.nkernels && rs.nkernels < MAXKEYS) rs.kernels[rs.nkernels++] = strdup(key);

    for (unsigned i = 0; not_its_correct[i]; i++)
        if (!strcmp(not_its_correct[i], kernel)) {
            rs.not_its++;
            return;
        }
    const emu_machine *R = h->M;
    size_t total = 0;
    for (unsigned i = 0; i < emu_global_count(R); i++) {
        size_t n;
        emu_global_get(R, i, NULL, &n);
        total += n;
    }
    uint8_t *unstable = calloc(total ? total : 1, 1);
    cr_assert_not_null(unstable);
    /* a relaunch that runs far longer than the test's launch is stuck */
    uint64_t limit = (emu_last_stats(R)->warp_insts + 20000) * 64;
    for (uint64_t s = 1; s <= rs.nseeds; s++) {
        emu_status st;
        emu_machine *M = relaunch(h, NULL, kernel, s, &st, limit);
        if (st != EMU_OK) {
            fprintf(stderr, "%s %s: not ITS-correct: --schedule its --seed %llu stops (%s): left out\n", h->path,
                    kernel, (unsigned long long)s, emu_status_name(st));
            rs.not_its++;
            emu_destroy(M);
            free(unstable);
            return;
        }
        mark_unstable(R, M, unstable);
        emu_destroy(M);
    }
    size_t nunst = 0;
    for (size_t i = 0; i < total; i++) nunst += unstable[i];
    if (nunst) {
        /* a few runs cannot tell which bytes are stable, and the
         * rewritten code's other timing gives other orders: such a launch
         * is left to the test's own reference checks (regalloc_emu) */
        rs.schedule_dep++;
        rs.bytes_unstable += nunst;
        free(unstable);
        return;
    }
    for (unsigned c = 0; c < rs.ncfg; c++) {
        const ptx_module *m = rewritten(h, c);
        for (uint64_t s = 1; s <= rs.nseeds; s++) {
            emu_status st;
            emu_machine *M = relaunch(h, m, kernel, s, &st, limit * 4);
            unsigned seg = 0;
            size_t at = 0;
            bool bad = st != EMU_OK || first_diff(R, M, unstable, &seg, &at);
            rs.runs++;
            rs.cfg_runs[c]++;
            if (s == 1 && st == EMU_OK) {
                const emu_stats *S = emu_last_stats(M);
                dyn *y = &rs.cfg_dyn[c];
                y->local_ld += S->spill_local_ld, y->local_st += S->spill_local_st;
                y->shared_ld += S->spill_shared_ld, y->shared_st += S->spill_shared_st;
                y->remat_c += S->remat_const, y->remat_a += S->remat_affine, y->remat_s += S->remat_shared;
                if (ki < MAXKEYS) rs.kernel_local[ki][c] += S->spill_local_ld + S->spill_local_st;
            }
            if (bad) {
                rs.mismatches++;
                rs.cfg_mismatch[c]++;
                if (st != EMU_OK)
                    fprintf(stderr, "%s %s: rewritten (%s, budget %u) --schedule its --seed %llu stops: %s\n",
                            h->path, kernel, ra_mode_name(cfg_mode(c)), cfg_budget(c), (unsigned long long)s,
                            emu_status_name(st));
                else
                    fprintf(stderr, "%s %s: rewritten (%s, budget %u) --schedule its --seed %llu differs from the "
                                    "original: global buffer %u, byte %zu\n",
                            h->path, kernel, ra_mode_name(cfg_mode(c)), cfg_budget(c), (unsigned long long)s, seg,
                            at);
            }
            emu_destroy(M);
        }
    }
    free(unstable);
}

/* The dynamic figures (docs/spillcost.md, "Dynamic figures"): per mode
 * and budget, then (make regalloc-its) per kernel at the smallest budget
 * where linear mode moved .local bytes. */
static void print_dynamic(void)
{
    printf("dynamic spill traffic (seed 1, bytes over all lanes; remat: rematerialisations started, per lane):\n");
    printf("  %-7s %6s %14s %14s %14s %14s %12s %12s %12s %8s\n", "mode", "budget", ".local ld", ".local st",
           ".shared ld", ".shared st", "remat const", "remat aff", "remat sh-aff", "local %");
    for (unsigned c = 0; c < rs.ncfg; c++) {
        const dyn *y = &rs.cfg_dyn[c], *lin = &rs.cfg_dyn[c / 3 * 3];
        uint64_t l = y->local_ld + y->local_st, l0 = lin->local_ld + lin->local_st;
        printf("  %-7s %6u %14llu %14llu %14llu %14llu %12llu %12llu %12llu %7.1f%%\n", ra_mode_name(cfg_mode(c)),
               cfg_budget(c), (unsigned long long)y->local_ld, (unsigned long long)y->local_st,
               (unsigned long long)y->shared_ld, (unsigned long long)y->shared_st, (unsigned long long)y->remat_c,
               (unsigned long long)y->remat_a, (unsigned long long)y->remat_s, l0 ? 100.0 * (double)l / (double)l0 : 0.0);
    }
    if (!rs.all) return;
    printf("per kernel, budget %u: .local bytes loaded + stored (linear, div, aff), kernels where linear has some:\n",
           rs.budgets[0]);
    for (unsigned k = 0; k < rs.nkernels && k < MAXKEYS; k++) {
        const uint64_t *v = rs.kernel_local[k];
        if (!v[0]) continue;
        printf("  %-60s %12llu %12llu %12llu %7.1f%%\n", rs.kernels[k], (unsigned long long)v[0],
               (unsigned long long)v[1], (unsigned long long)v[2], 100.0 * (double)v[2] / (double)v[0]);
    }
}

static const eh_hooks its_hooks = {hook_opened, hook_launching, hook_launched, hook_closing};

EMU_CORPUS_TESTS(EMU_REPLAY_DECLARE)

Test(regalloc_its, corpus, .timeout = 0)
{
    const char *e = getenv("PTXRAY_RA_ITS");
    rs.all = e && !strcmp(e, "all");
    rs.budgets = rs.all ? all_budgets : sample_budgets;
    rs.nbudgets = rs.all ? 5 : 2;
    rs.nseeds = rs.all ? 20 : 2;
    rs.ncfg = rs.nbudgets * 3;
    rs.devnull = fopen("/dev/null", "w");
    cr_assert_not_null(rs.devnull);
#define CALL(name) emu_corpus_##name##_impl();
    eh_hooks_on = &its_hooks;
    EMU_CORPUS_TESTS(CALL)
    eh_hooks_on = NULL;
    fclose(rs.devnull);
    cr_assert_gt(rs.runs, 0, "no rewritten kernel ran");
    printf("regalloc its: %u kernels, %u launches (left out: %u stop in the test, %u not ITS-correct, %u whose "
           "output depends on the schedule); %u runs of rewritten kernels (budgets",
           rs.nkernels, rs.launches, rs.skipped_fail, rs.not_its, rs.schedule_dep, rs.runs);
    for (unsigned b = 0; b < rs.nbudgets; b++) printf(" %u", rs.budgets[b]);
    printf(" x modes linear div aff x seeds 1..%u), %u mismatches\n", rs.nseeds, rs.mismatches);
    if (rs.all) {
        printf("  %-7s %6s %8s %10s\n", "mode", "budget", "runs", "mismatches");
        for (unsigned c = 0; c < rs.ncfg; c++)
            printf("  %-7s %6u %8u %10u\n", ra_mode_name(cfg_mode(c)), cfg_budget(c), rs.cfg_runs[c],
                   rs.cfg_mismatch[c]);
    }
    print_dynamic();
    fflush(stdout);
    for (unsigned i = 0; i < rs.nkernels; i++) free(rs.kernels[i]);
    cr_expect_eq(rs.mismatches, 0, "%u rewritten runs differ from the original (listed on stderr)", rs.mismatches);
}

Test(regalloc_its, corpus_list_is_complete) { emu_replay_check_list(); }
