/* A generator of random valid PTX kernels for the differential tests
 * (issue 35; docs/testing.md): deterministic from a seed, every kernel
 * accepted by ptxas, terminating, and race-free under every schedule the
 * emulator has (lock-step, interleave, ITS), so its global memory after a
 * launch is a function of the inputs alone and any rewrite must leave it
 * the same.
 *
 * What a kernel holds (each drawn per seed): structured and unstructured
 * control flow (if/else, short-circuit conditions, a jump from a then-part
 * into the middle of its else-part, loops with break and continue),
 * loops with bounded trip counts (constant, uniform from a parameter,
 * divergent from the thread index or loaded data), nested divergence,
 * predicated instructions and selp, bar.sync between shared-memory phases,
 * bar.warp.sync between warp-level exchanges, warp collectives (shfl,
 * vote, redux, match) with member masks that name exactly the lanes that
 * execute them, global loads at affine (tid.x/y/z, lane, warp, block),
 * power-of-two mask, 2-D tile and gather addresses, shared memory at the
 * same patterns, device-function calls, 8/16/32/64-bit integer and 32/64-
 * bit float arithmetic, and a pool of values live from the entry to the
 * final stores large enough to spill at small register budgets.
 *
 * Every address is in bounds by construction (the generator knows the
 * launch); the uniform unknown parts of global addresses (block index,
 * parameter, loop counter) are multiples of 128 bytes, so the coalescing
 * model's alignment assumption (docs/coalescing.md, assumption 2) holds
 * and a static figure below the measured one is a bug, not an assumption.
 *
 * The launch is given as `ptxray run` arguments (run_spec.h), the same
 * line a .launches file holds: KERNEL GRID BLOCK ARG... */
#ifndef PTXRAY_FZGEN_H
#define PTXRAY_FZGEN_H
#include <stddef.h>
#include <stdint.h>

#define FZ_MAX_ARGS 8

typedef struct fz_kernel {
    uint64_t seed;
    char *ptx;        /* malloc'd, NUL-terminated */
    size_t len;
    char kernel[32];
    uint32_t grid[3], block[3];
    unsigned nargs;
    char args[FZ_MAX_ARGS][64]; /* `ptxray run --arg` specs, in parameter order */
    /* what was drawn, for the counts difftest prints */
    unsigned nstmts, nloops, nbranches, ncoll, nbar, ncalls, npool;
    uint64_t max_steps; /* a generous bound on the launch's warp-instructions */
} fz_kernel;

/* Generates the kernel of seed into k (free with fz_free). */
void fz_generate(uint64_t seed, fz_kernel *k);
void fz_free(fz_kernel *k);

/* The launch as one .launches line (no newline): "fz_k 2,1 64,2 buf:..." */
void fz_launch_line(const fz_kernel *k, char *buf, size_t n);

#endif
