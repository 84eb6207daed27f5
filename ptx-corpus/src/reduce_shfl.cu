// reduce_shfl.cu
//
// Exercises: warp-shuffle reductions: __shfl_down_sync (shfl.sync.down.b32),
// __shfl_xor_sync (butterfly / all-reduce), 64-bit shuffle of a double
// (split into two 32-bit shfl), a two-level block reduction (warp partials
// in shared memory, then warp 0 reduces), final atomicAdd to global.
// Analyses targeted: shfl.sync handling, lane id (%laneid / tid & 31)
// uniformity, membermask operand, atomics.

__inline__ __device__ float warp_reduce_sum(float v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1)
    v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

__inline__ __device__ double warp_allreduce_max(double v) {
#pragma unroll
  for (int mask = 16; mask > 0; mask >>= 1)
    v = fmax(v, __shfl_xor_sync(0xffffffffu, v, mask));
  return v;
}

extern "C" __global__ void reduce_shfl_sum(const float* __restrict__ in, float* out, int n) {
  __shared__ float warp_sums[32];
  float v = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    v += in[i];
  int lane = threadIdx.x & 31;
  int warp = threadIdx.x >> 5;
  v = warp_reduce_sum(v);
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = (lane < (int)(blockDim.x + 31) / 32) ? warp_sums[lane] : 0.0f;
    v = warp_reduce_sum(v);
    if (lane == 0) atomicAdd(out, v);
  }
}

extern "C" __global__ void reduce_shfl_max_f64(const double* in, double* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  double v = (i < n) ? in[i] : -1.0e300;
  v = warp_allreduce_max(v);
  if ((threadIdx.x & 31) == 0) out[i >> 5] = v;
}

// Segmented sum using __shfl_up_sync with a predicate on the source lane.
extern "C" __global__ void warp_inclusive_scan(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  int v = (i < n) ? in[i] : 0;
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    int up = __shfl_up_sync(0xffffffffu, v, d);
    if (lane >= d) v += up;
  }
  if (i < n) out[i] = v;
}

// ---- host code ----------------------------------------------------------------
// Launches every kernel of this file with the block shapes the emulator tests
// (tests/test_emu_corpus_*.c) run it with; `ptxray launches` reads them.
void launch_reduce_shfl() {
  {
    const float *__restrict__ p0 = nullptr;
    float * p1 = nullptr;
    int p2{};
    int threads = 96;
    reduce_shfl_sum<<<4, threads>>>(p0, p1, p2);
  }
  {
    const double * p0 = nullptr;
    double * p1 = nullptr;
    int p2{};
    int threads = 128;
    reduce_shfl_max_f64<<<2, threads>>>(p0, p1, p2);
  }
  {
    const int * p0 = nullptr;
    int * p1 = nullptr;
    int p2{};
    int threads = 128;
    warp_inclusive_scan<<<1, threads>>>(p0, p1, p2);
  }
}
