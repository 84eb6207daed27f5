// cluster_sm90.cu
//
// Exercises: Hopper thread-block clusters and distributed shared memory:
//   __cluster_dims__(2,1,1)  => .explicitcluster + .reqnctapercluster 2,1,1
//   __block_size__((128,1,1)) => .reqntid 128,1,1 (sm_90 only in CUDA 13)
//   cg::this_cluster(), cluster.sync() (barrier.cluster.arrive/wait),
//   cluster.map_shared_rank() (mapa.u64 on a generic address), block_rank()
//   (%cluster_ctarank), reading and atomically updating a neighbour CTA's
//   shared memory through the generic address that mapa returns (generic
//   ld / atom.add, no explicit shared::cluster state space in the PTX).
// All of this is guarded by `#if __CUDA_ARCH__ >= 900`; on sm_75/sm_80 the
// same kernel names are compiled from a plain fallback (per-block
// histogram without cluster sharing; __launch_bounds__ instead of
// __block_size__), so the file compiles for every corpus arch.
// Analyses targeted: arch-specific directives, new state spaces
// (distributed shared memory via generic pointers), cluster barriers,
// %cluster_ctarank.

#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#define NBINS 64

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900

extern "C" __global__ void __cluster_dims__(2, 1, 1)
cluster_histogram(const int* __restrict__ in, int* __restrict__ bins, int n) {
  __shared__ int smem[NBINS];
  cg::cluster_group cluster = cg::this_cluster();
  unsigned rank = cluster.block_rank();
  for (int b = threadIdx.x; b < NBINS; b += blockDim.x) smem[b] = 0;
  cluster.sync();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    int v = in[i] & (2 * NBINS - 1);
    unsigned dst_rank = v / NBINS;  // bins split across the 2 CTAs of the cluster
    int* dst = cluster.map_shared_rank(smem, dst_rank);
    atomicAdd(dst + (v % NBINS), 1);
  }
  cluster.sync();
  for (int b = threadIdx.x; b < NBINS; b += blockDim.x)
    atomicAdd(&bins[rank * NBINS + b], smem[b]);
}

extern "C" __global__ void __block_size__((128, 1, 1)) __cluster_dims__(4, 1, 1)
cluster_neighbor_exchange(float* data) {
  __shared__ float buf[128];
  cg::cluster_group cluster = cg::this_cluster();
  unsigned rank = cluster.block_rank();
  buf[threadIdx.x] = data[blockIdx.x * 128 + threadIdx.x];
  cluster.sync();
  unsigned nb = (rank + 1) % cluster.num_blocks();
  float* remote = cluster.map_shared_rank(buf, nb);
  float v = remote[threadIdx.x];
  cluster.sync();  // keep neighbour smem alive until everyone has read
  data[blockIdx.x * 128 + threadIdx.x] = 0.5f * (buf[threadIdx.x] + v);
}

#else  // fallback for sm_75 / sm_80

extern "C" __global__ void cluster_histogram(const int* __restrict__ in, int* __restrict__ bins,
                                             int n) {
  __shared__ int smem[2 * NBINS];
  for (int b = threadIdx.x; b < 2 * NBINS; b += blockDim.x) smem[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&smem[in[i] & (2 * NBINS - 1)], 1);
  __syncthreads();
  for (int b = threadIdx.x; b < 2 * NBINS; b += blockDim.x) atomicAdd(&bins[b], smem[b]);
}

extern "C" __global__ void __launch_bounds__(128) cluster_neighbor_exchange(float* data) {
  // without clusters: exchange with the next thread in the same block
  __shared__ float buf[128];
  buf[threadIdx.x] = data[blockIdx.x * 128 + threadIdx.x];
  __syncthreads();
  data[blockIdx.x * 128 + threadIdx.x] = 0.5f * (buf[threadIdx.x] + buf[(threadIdx.x + 1) % 128]);
}

#endif

// ---- host code ----------------------------------------------------------------
// Launches every kernel of this file with the block shapes the emulator tests
// (tests/test_emu_corpus_*.c) run it with; `ptxray launches` reads them.
#define CLUSTER_SM90_1_THREADS 128
#define CLUSTER_SM90_2_THREADS 128
void launch_cluster_sm90() {
  {
    const int *__restrict__ p0 = nullptr;
    int *__restrict__ p1 = nullptr;
    int p2{};
    cluster_histogram<<<2, CLUSTER_SM90_1_THREADS>>>(p0, p1, p2);
  }
  {
    float * p0 = nullptr;
    cluster_neighbor_exchange<<<2, CLUSTER_SM90_2_THREADS>>>(p0);
  }
}
