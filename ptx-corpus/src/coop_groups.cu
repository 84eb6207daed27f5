// coop_groups.cu
//
// Exercises: cooperative groups without grid synchronisation:
// this_thread_block() (block.sync() => barrier), tiled_partition<32> and
// tiled_partition<8> static tiles with tile.shfl_down / cg::reduce
// (cg::plus, cg::greater), thread_rank(), meta_group_rank(),
// coalesced_threads() inside a divergent branch (activemask + popc-based
// rank), and tile.any / tile.ballot.
// Analyses targeted: the code patterns CG expands to (activemask,
// shfl.sync with partial masks, bar.warp.sync / bar.sync), inlined
// template-heavy headers (.loc with inlined_at).

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

__global__ void cg_block_reduce(const float* __restrict__ in, float* out, int n) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  __shared__ float partial[32];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? in[i] : 0.0f;
  float w = cg::reduce(warp, v, cg::plus<float>());
  if (warp.thread_rank() == 0) partial[warp.meta_group_rank()] = w;
  block.sync();
  if (warp.meta_group_rank() == 0) {
    float p = warp.thread_rank() < warp.meta_group_size() ? partial[warp.thread_rank()] : 0.0f;
    p = cg::reduce(warp, p, cg::plus<float>());
    if (block.thread_rank() == 0) atomicAdd(out, p);
  }
}

__global__ void cg_tile8_max(const int* in, int* out, int n) {
  auto block = cg::this_thread_block();
  auto tile = cg::tiled_partition<8>(block);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : INT_MIN;
  for (int off = tile.size() / 2; off > 0; off /= 2) v = max(v, tile.shfl_down(v, off));
  if (tile.thread_rank() == 0) out[i / 8] = v;
  if (tile.any(v > 1000)) {
    unsigned b = tile.ballot(v > 1000);
    if (tile.thread_rank() == 0) out[n / 8 + i / 8] = __popc(b);
  }
}

// Warp-aggregated atomic increment via coalesced_threads().
__global__ void cg_filter_append(const int* in, int* out, int* count, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && in[i] > 0) {
    cg::coalesced_group active = cg::coalesced_threads();
    int base = 0;
    if (active.thread_rank() == 0) base = atomicAdd(count, (int)active.size());
    base = active.shfl(base, 0);
    out[base + active.thread_rank()] = in[i];
  }
}

// ---- host code ----------------------------------------------------------------
// Launches every kernel of this file with the block shapes the emulator tests
// (tests/test_emu_corpus_*.c) run it with; `ptxray launches` reads them.
#define COOP_GROUPS_1_THREADS 256
#define COOP_GROUPS_2_THREADS 128
#define COOP_GROUPS_3_THREADS 256
void launch_coop_groups() {
  {
    float const* p0 = nullptr;
    float* p1 = nullptr;
    int p2{};
    cg_block_reduce<<<3, COOP_GROUPS_1_THREADS>>>(p0, p1, p2);
  }
  {
    int const* p0 = nullptr;
    int* p1 = nullptr;
    int p2{};
    cg_tile8_max<<<1, COOP_GROUPS_2_THREADS>>>(p0, p1, p2);
  }
  {
    int const* p0 = nullptr;
    int* p1 = nullptr;
    int* p2 = nullptr;
    int p3{};
    cg_filter_append<<<3, COOP_GROUPS_3_THREADS>>>(p0, p1, p2, p3);
  }
}
