// coop_grid_sync.cu
//
// Exercises: grid-wide synchronisation with cooperative groups
// (cg::this_grid().sync()) in a persistent two-phase kernel: phase 1
// per-block partial sums, grid.sync(), phase 2 block 0 combines and
// normalises.  Compiles with plain `nvcc -ptx` (no -rdc) on CUDA 13.
// Analyses targeted: grid barrier (lowered to inlined atomics / membar /
// spin loop on a driver-provided workspace), global synchronisation.

#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void grid_sync_normalize(float* data, float* partial, int n) {
  cg::grid_group grid = cg::this_grid();
  cg::thread_block block = cg::this_thread_block();
  __shared__ float s[256];
  float local = 0.0f;
  for (int i = grid.thread_rank(); i < n; i += grid.size()) local += data[i] * data[i];
  s[block.thread_rank()] = local;
  block.sync();
  for (int st = block.size() / 2; st > 0; st >>= 1) {
    if (block.thread_rank() < st) s[block.thread_rank()] += s[block.thread_rank() + st];
    block.sync();
  }
  if (block.thread_rank() == 0) partial[blockIdx.x] = s[0];
  grid.sync();
  if (blockIdx.x == 0 && block.thread_rank() == 0) {
    float tot = 0.0f;
    for (unsigned b = 0; b < gridDim.x; ++b) tot += partial[b];
    partial[0] = rsqrtf(tot);
  }
  grid.sync();
  float scale = partial[0];
  for (int i = grid.thread_rank(); i < n; i += grid.size()) data[i] *= scale;
}

// ---- host code ----------------------------------------------------------------
// Launches every kernel of this file with the block shapes the emulator tests
// (tests/test_emu_corpus_*.c) run it with; `ptxray launches` reads them.
void launch_coop_grid_sync() {
  {
    float * p0 = nullptr;
    float * p1 = nullptr;
    int p2{};
    int threads = 256;
    grid_sync_normalize<<<4, threads>>>(p0, p1, p2);
  }
}
