/* The differential oracles of `make difftest` (docs/testing.md): one
 * kernel and its launch through every analysis and rewrite, each result
 * held against the emulator.  fuzz/difftest.c runs them over generated
 * kernels (fuzz/gen/), tests/test_difftest.c over the reduced kernels of
 * tests/data/fuzz/.
 *
 *   rewrite     the kernel rewritten by regalloc at each budget in the
 *               three modes, and by uniformize (at the launch shape and at
 *               the default assumption), run under lockstep, interleave and
 *               ITS: global memory byte-equal to the original's lock-step
 *               run; the original itself under interleave and ITS too;
 *               ptxas accepts the original and every rewrite (when asked)
 *   divergence  every uniform / affine claim of the three analyses at the
 *               launch shape, and of affine at the default assumption (the
 *               claims whose assumption the launch satisfies), checked by
 *               the emulator's divergence check on every warp-instruction
 *   coalescing  per global request, the lanes' sectors never above the
 *               static bound (sectors_max), and equal to the exact figure
 *               (sectors) for the full-warp requests of the warp the model
 *               names as the worst; per shared request the same for the
 *               bank-conflict degree (bank_degree_max, bank_degree). */
#ifndef PTXRAY_FUZZ_ORACLES_H
#define PTXRAY_FUZZ_ORACLES_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define DT_MAX_ARGS 16

typedef struct dt_launch {
    char kernel[64];
    uint32_t grid[3], block[3];
    unsigned nargs;
    const char *args[DT_MAX_ARGS]; /* `ptxray run --arg` specs */
} dt_launch;

/* "KERNEL GRID BLOCK ARG..." (a .launches line) into L, the args pointing
 * into line (which it edits); false if malformed. */
bool dt_parse_launch(char *line, dt_launch *L);

enum dt_oracle { DT_GEN, DT_REWRITE, DT_PTXAS, DT_DIVERGENCE, DT_COALESCING, DT_BANK, DT_NORACLES };
const char *dt_oracle_name(enum dt_oracle o);

typedef struct dt_opts {
    unsigned nbudgets;
    unsigned budgets[8];
    bool ptxas;        /* run ptxas on the original and every rewrite */
    const char *ptxas_path;
    uint64_t sched_seed; /* the interleave and ITS seed (difftest: the kernel's) */
    FILE *log;         /* failures, one line each (NULL: stderr) */
} dt_opts;

typedef struct dt_counts {
    uint64_t kernels, rewrites, uni_rewrites, runs, orig_runs, ptxas_checked, spilled;
    uint64_t claims[4], skipped; /* simple, affine, affine2 at the shape; affine at the default assumption */
    uint64_t wrapped;            /* claims violated where the no-wraparound assumption failed (divcheck) */
    uint64_t g_requests, g_exact, s_requests, s_exact, g_accesses, s_accesses;
    uint64_t failures[DT_NORACLES];
} dt_counts;

/* Every oracle on one kernel; the failures are added to c->failures and
 * logged ("NAME: oracle: what differed").  Returns how many there were. */
unsigned dt_check(const char *name, const char *ptx, size_t len, const dt_launch *L, const dt_opts *o, dt_counts *c);

/* The value of a saved kernel's header line "// KEY: VALUE" (to the end of
 * the line) into out: "launch", "oracle", "status", "schedule-seed"
 * (docs/testing.md).  False when there is none. */
bool dt_header(const char *text, const char *key, char *out, size_t n);

/* The counts as difftest prints them. */
void dt_print(FILE *f, const dt_counts *c, const dt_opts *o);

#endif
