/* The corpus emulator tests that other suites replay with extra work
 * (divergence claims, coalescing figures, register allocation): every
 * Test(emu_corpus, ...) but unsupported_kernels, which launches with
 * emu_launch directly and stops at its first instruction.  A replaying
 * suite declares them with EMU_REPLAY_DECLARE, makes one test per entry,
 * and calls emu_replay_check_list so the list stays in step. */
#ifndef PTXRAY_EMU_REPLAY_H
#define PTXRAY_EMU_REPLAY_H

#define EMU_CORPUS_TESTS(X)                                                                                 \
    X(sampaio_divergence) X(gaussian_fan) X(transposes) X(transpose_naive_debug) X(matmul_naive)            \
    X(matmul_tiled) X(launch_bounds) X(restrict_ldg) X(particles) X(templates_generic)                      \
    X(nested_divergence) X(loops_break_continue) X(switch_dispatch) X(local_arrays) X(noinline_calls)       \
    X(funcptr_indirect) X(printf_debug)                                                                     \
    X(many_params) X(constant_memory) X(device_globals_init) X(stencils) X(regtile) X(fir_unrolled)        \
    X(int64_math) X(inline_asm_scopes) X(double_math) X(half2_math)                                         \
    X(reduce_shared) X(reduce_shfl) X(scan_block) X(histograms) X(bitonic_sort) X(softmax_layernorm)       \
    X(spmv_csr)                                                                                             \
    X(bfs_frontier) X(warp_vote) X(coop_groups) X(coop_grid_sync) X(volatile_shared) X(dynamic_shared)     \
    X(cp_async_pipeline) X(atomic_cas_loop) X(cluster_fallbacks)                                           \
    X(warp_reduce_tree) X(warp_roles) X(spmv_warp_row) X(warp_stride) X(tile_1d_to_2d)                     \
    X(warp_specialized) X(warp_shfl_ballot)

/* The block shapes the corpus launches are relaunched at (make shapecheck,
 * make synccheck-corpus): ones that keep warps within rows of the block and
 * ones that do not (48, 100 threads). */
#define EMU_REPLAY_NSHAPES 6
#define EMU_REPLAY_SHAPES {{256, 1, 1}, {128, 2, 1}, {32, 8, 1}, {16, 16, 1}, {48, 1, 1}, {100, 1, 1}}

#define EMU_REPLAY_DECLARE(name) void emu_corpus_##name##_impl(void);

/* Fails the current test when an emu_corpus test is neither in
 * EMU_CORPUS_TESTS nor unsupported_kernels, or one listed is gone. */
void emu_replay_check_list(void);

#endif
