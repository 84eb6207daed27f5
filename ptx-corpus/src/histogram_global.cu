// histogram_global.cu
//
// Exercises: 256-bin byte histogram with atomics directly on global memory
// (atom.global.add.u32; NVVM 13 emits atom even when the result is unused),
// uchar4 vector loads (ld.global.v4.u8 / 32-bit load + bfe), grid-stride
// loop, plus a float-weighted variant (atomicAdd on float)
// (atom.global.add.f32) and a 64-bit counter variant (atom.global.add.u64).
// Analyses targeted: atomic detection / contention, data-dependent
// (indirect) addresses, memory-space classification (global atomics).

extern "C" __global__ void histogram_global_u8(const unsigned char* __restrict__ data,
                                               unsigned int* __restrict__ bins, int n) {
  int stride = blockDim.x * gridDim.x;
  int n4 = n / 4;
  const uchar4* data4 = reinterpret_cast<const uchar4*>(data);
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
    uchar4 v = data4[i];
    atomicAdd(&bins[v.x], 1u);
    atomicAdd(&bins[v.y], 1u);
    atomicAdd(&bins[v.z], 1u);
    atomicAdd(&bins[v.w], 1u);
  }
  // tail
  int t = 4 * n4 + blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n) atomicAdd(&bins[data[t]], 1u);
}

extern "C" __global__ void histogram_global_weighted(const float* __restrict__ x,
                                                     const float* __restrict__ w,
                                                     float* bins, int nbins,
                                                     float lo, float hi, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  if (v < lo || v >= hi) return;
  int b = (int)((v - lo) / (hi - lo) * nbins);
  b = min(b, nbins - 1);
  atomicAdd(&bins[b], w[i]);
}

extern "C" __global__ void histogram_global_u64(const int* keys, unsigned long long* counts,
                                                unsigned long long* total, int n, int nbins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int k = keys[i];
    unsigned int old = (unsigned int)atomicAdd(&counts[((unsigned)k) % nbins], 1ull);
    if (old == 0) atomicAdd(total, 1ull);  // count distinct non-empty bins
  }
}

// ---- host code ----------------------------------------------------------------
// Launches every kernel of this file with the block shapes the emulator tests
// (tests/test_emu_corpus_*.c) run it with; `ptxray launches` reads them.
#define HISTOGRAM_GLOBAL_1_THREADS 64
#define HISTOGRAM_GLOBAL_2_THREADS 128
#define HISTOGRAM_GLOBAL_3_THREADS 128
void launch_histogram_global() {
  {
    const unsigned char *__restrict__ p0 = nullptr;
    unsigned int *__restrict__ p1 = nullptr;
    int p2{};
    histogram_global_u8<<<2, HISTOGRAM_GLOBAL_1_THREADS>>>(p0, p1, p2);
  }
  {
    const unsigned char *__restrict__ p0 = nullptr;
    unsigned int *__restrict__ p1 = nullptr;
    int p2{};
    int min_grid = 0, threads = 0;
    cudaOccupancyMaxPotentialBlockSize(&min_grid, &threads, histogram_global_u8);
    histogram_global_u8<<<min_grid, threads>>>(p0, p1, p2);
  }
  {
    const float *__restrict__ p0 = nullptr;
    const float *__restrict__ p1 = nullptr;
    float * p2 = nullptr;
    int p3{};
    float p4{};
    float p5{};
    int p6{};
    histogram_global_weighted<<<4, HISTOGRAM_GLOBAL_2_THREADS>>>(p0, p1, p2, p3, p4, p5, p6);
  }
  {
    const int * p0 = nullptr;
    unsigned long long * p1 = nullptr;
    unsigned long long * p2 = nullptr;
    int p3{};
    int p4{};
    histogram_global_u64<<<3, HISTOGRAM_GLOBAL_3_THREADS>>>(p0, p1, p2, p3, p4);
  }
}
