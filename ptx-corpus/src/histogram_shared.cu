// histogram_shared.cu
//
// Exercises: privatised histogram: per-block bins in shared memory
// (atom.shared.add.u32), initialisation and merge loops strided by
// blockDim, then a merge into global with atomics only for non-zero bins.
// Also a warp-privatised variant (one sub-histogram per warp, 2-D shared
// array indexed by warp id).
// Analyses targeted: shared vs global atomics, barriers, memory-space
// inference through generic pointers (cvta.shared), divergence of the
// merge condition.

#define NUM_BINS 256

extern "C" __global__ void histogram_shared_u8(const unsigned char* __restrict__ data,
                                               unsigned int* __restrict__ bins, int n) {
  __shared__ unsigned int s_bins[NUM_BINS];
  for (int b = threadIdx.x; b < NUM_BINS; b += blockDim.x) s_bins[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&s_bins[data[i]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < NUM_BINS; b += blockDim.x) {
    unsigned int c = s_bins[b];
    if (c) atomicAdd(&bins[b], c);
  }
}

#define WARPS_PER_BLOCK 8
extern "C" __global__ void __launch_bounds__(WARPS_PER_BLOCK * 32)
histogram_warp_private(const int* __restrict__ keys, unsigned int* bins, int n, int shift) {
  __shared__ unsigned int s_bins[WARPS_PER_BLOCK][NUM_BINS];
  int warp = threadIdx.x / 32;
  unsigned int* flat = &s_bins[0][0];
  for (int b = threadIdx.x; b < WARPS_PER_BLOCK * NUM_BINS; b += blockDim.x) flat[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    unsigned key = ((unsigned)keys[i] >> shift) & (NUM_BINS - 1);
    atomicAdd(&s_bins[warp][key], 1u);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < NUM_BINS; b += blockDim.x) {
    unsigned sum = 0;
#pragma unroll
    for (int w = 0; w < WARPS_PER_BLOCK; ++w) sum += s_bins[w][b];
    if (sum) atomicAdd(&bins[b], sum);
  }
}

// ---- host code ----------------------------------------------------------------
// Launches every kernel of this file with the block shapes the emulator tests
// (tests/test_emu_corpus_*.c) run it with; `ptxray launches` reads them.
constexpr int kHistogramSharedThreads1 = 96;
constexpr int kHistogramSharedThreads2 = 256;
void launch_histogram_shared() {
  {
    const unsigned char *__restrict__ p0 = nullptr;
    unsigned int *__restrict__ p1 = nullptr;
    int p2{};
    histogram_shared_u8<<<3, kHistogramSharedThreads1>>>(p0, p1, p2);
  }
  {
    const int *__restrict__ p0 = nullptr;
    unsigned int * p1 = nullptr;
    int p2{};
    int p3{};
    histogram_warp_private<<<2, kHistogramSharedThreads2>>>(p0, p1, p2, p3);
  }
}
