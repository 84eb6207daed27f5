// warp_roles.cu
//
// Exercises: work split between the warps of a block by conditions on
// threadIdx.x, some aligned to warps (never splitting one) and some not.
//   warp0_block_sum      - `w = threadIdx.x >> 5`: lane 0 of each warp
//                          publishes the warp's sum, `if (w == 0)` the first
//                          warp reduces the partial sums, one atomicAdd.
//   sgemm_split_loaders  - `w = threadIdx.x / 32`, `if (w < 4)`: warps 0-3
//                          stage the A tile, warps 4-7 the B tile (float2),
//                          then all 256 threads compute a 16x16 C tile.
//   mid_side_warp_pairs  - `if ((threadIdx.x / 32) % 2)`: the warps of a
//                          pair read the same 32 stereo frames, the even
//                          one stores mid, the odd one side.
//   fwht256              - in-place Walsh-Hadamard transform of 256 values
//                          in shared memory: at distance h the thread with
//                          `threadIdx.x & h` set does the butterfly, whole
//                          warps for h >= 32 (& 64), lanes within every warp
//                          below (& 4).
//   conv1d_apron         - a 256-sample window per block with a 64-sample
//                          apron on each side: `if (tid >= 64 && tid < 192)`
//                          (the four middle warps) compute the outputs; the
//                          taps are staged by `if (tid < 2 * RADIUS + 1)`.
//   histogram_100bins    - 100 shared bins: `if (tid < NBINS)` splits warp 3.
// Analyses targeted: divergence at warp granularity (tid / 32, tid >> 5,
// bit tests at or above bit 5, ranges with multiple-of-32 bounds are
// uniform per warp), shared-memory atomics, float2 loads.
// Annotations: a trailing @branch comment gives the true warp-level
// verdict (uniform or divergent) of the branch on its line for a 1-D block
// of 256 threads (any multiple of 32 gives the same); a trailing @sectors
// comment the 32-byte sectors one full warp's request on that line touches
// (4-byte floats, 8-byte float2, 256-byte-aligned arrays).  Fully unrolled
// loops have no branch and no @branch comment.

extern "C" __global__ void warp0_block_sum(const float* __restrict__ in, float* __restrict__ out,
                                           unsigned n) {
  __shared__ float warp_sums[32];
  const unsigned w = threadIdx.x >> 5;
  const unsigned lane = threadIdx.x & 31;
  float v = 0.0f;
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)  // @branch divergent
    v += in[i];  // @sectors 4
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
  if (lane == 0) warp_sums[w] = v;  // @branch divergent
  __syncthreads();
  if (w == 0) {  // @branch uniform
    v = 0.0f;
    if (lane < (blockDim.x >> 5)) v = warp_sums[lane];  // @branch divergent
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
    if (lane == 0) atomicAdd(out, v);  // @branch divergent
  }
}

// C = A * B, row-major, M x K times K x N; M, N and K multiples of 16.
// Block: 256 threads (8 warps) per 16x16 tile of C; grid (N / 16, M / 16).
extern "C" __global__ void __launch_bounds__(256)
    sgemm_split_loaders(const float* __restrict__ A, const float* __restrict__ B,
                        float* __restrict__ C, int M, int N, int K) {
  __shared__ __align__(16) float As[16][16];
  __shared__ __align__(16) float Bs[16][16];
  const unsigned tid = threadIdx.x;
  const unsigned w = tid / 32;
  const unsigned tx = tid % 16, ty = tid / 16;
  const unsigned row0 = blockIdx.y * 16, col0 = blockIdx.x * 16;
  // loader layout: 128 threads cover a 16x16 tile as 16 rows of 8 float2
  const unsigned lr = (tid % 128) / 8, lc = (tid % 8) * 2;
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += 16) {  // @branch uniform
    if (w < 4) {  // @branch uniform
      const float2 a = *reinterpret_cast<const float2*>(&A[(size_t)(row0 + lr) * K + k0 + lc]);
      *reinterpret_cast<float2*>(&As[lr][lc]) = a;
    } else {
      const float2 b = *reinterpret_cast<const float2*>(&B[(size_t)(k0 + lr) * N + col0 + lc]);
      *reinterpret_cast<float2*>(&Bs[lr][lc]) = b;
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < 16; ++k) acc += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  C[(size_t)(row0 + ty) * N + col0 + tx] = acc;
}

// Stereo (left, right) frames to planar mid = (l + r) / 2 and side =
// (l - r) / 2.  Warps 2p and 2p + 1 of a block handle the same 32 frames.
extern "C" __global__ void mid_side_warp_pairs(const float2* __restrict__ lr,
                                               float* __restrict__ mid, float* __restrict__ side,
                                               unsigned nframes) {
  const unsigned lane = threadIdx.x % 32;
  const unsigned f = (blockIdx.x * blockDim.x + threadIdx.x) / 64 * 32 + lane;
  if (f < nframes) {  // @branch divergent
    const float2 s = lr[f];  // @sectors 8
    if ((threadIdx.x / 32) % 2)  // @branch uniform
      side[f] = 0.5f * (s.x - s.y);  // @sectors 4
    else
      mid[f] = 0.5f * (s.x + s.y);  // @sectors 4
  }
}

__device__ __forceinline__ void butterfly(float* s, unsigned lo, unsigned h) {
  const float a = s[lo], b = s[lo + h];
  s[lo] = a + b;
  s[lo + h] = a - b;
}

// Unnormalised Walsh-Hadamard transform of each 256-value segment; one
// block of 256 threads per segment.
extern "C" __global__ void __launch_bounds__(256) fwht256(float* __restrict__ data) {
  __shared__ float s[256];
  const unsigned tid = threadIdx.x;
  float* seg = data + blockIdx.x * 256;
  s[tid] = seg[tid];  // @sectors 4
  __syncthreads();
  if (threadIdx.x & 128) butterfly(s, tid - 128, 128);  // @branch uniform
  __syncthreads();
  if (threadIdx.x & 64) butterfly(s, tid - 64, 64);  // @branch uniform
  __syncthreads();
  if (threadIdx.x & 32) butterfly(s, tid - 32, 32);  // @branch uniform
  __syncthreads();
  if (threadIdx.x & 16) butterfly(s, tid - 16, 16);  // @branch divergent
  __syncthreads();
  if (threadIdx.x & 8) butterfly(s, tid - 8, 8);  // @branch divergent
  __syncthreads();
  if (threadIdx.x & 4) butterfly(s, tid - 4, 4);  // @branch divergent
  __syncthreads();
  if (threadIdx.x & 2) butterfly(s, tid - 2, 2);  // @branch divergent
  __syncthreads();
  if (threadIdx.x & 1) butterfly(s, tid - 1, 1);  // @branch divergent
  __syncthreads();
  seg[tid] = s[tid];  // @sectors 4
}

#define RADIUS 16
#define APRON 64

// out[i] = sum_k taps[k] * in[i + k - RADIUS], zero outside [0, n).  Each
// block of 256 threads computes 128 outputs from a 256-sample window.
extern "C" __global__ void __launch_bounds__(256)
    conv1d_apron(const float* __restrict__ in, const float* __restrict__ taps,
                 float* __restrict__ out, int n) {
  __shared__ float win[256];
  __shared__ float w[2 * RADIUS + 1];
  const int tid = threadIdx.x;
  const int g = blockIdx.x * (256 - 2 * APRON) + tid - APRON;
  if (tid < 2 * RADIUS + 1) w[tid] = taps[tid];  // @branch divergent
  float v = 0.0f;
  if (g >= 0 && g < n) v = in[g];  // @branch divergent
  win[tid] = v;
  __syncthreads();
  if (tid >= APRON && tid < 256 - APRON) {  // @branch uniform
    float acc = 0.0f;
#pragma unroll
    for (int k = 0; k <= 2 * RADIUS; ++k) acc += w[k] * win[tid + k - RADIUS];
    if (g < n) out[g] = acc;  // @branch divergent
  }
}

#define NBINS 100

// Histogram of x over [lo, lo + NBINS / inv_width); values outside go to
// the first or last bin.  blockDim.x >= NBINS.
extern "C" __global__ void histogram_100bins(const float* __restrict__ x,
                                             unsigned* __restrict__ hist, unsigned n, float lo,
                                             float inv_width) {
  __shared__ unsigned bins[NBINS];
  const unsigned tid = threadIdx.x;
  if (tid < NBINS) bins[tid] = 0;  // @branch divergent
  __syncthreads();
  for (unsigned i = blockIdx.x * blockDim.x + tid; i < n; i += blockDim.x * gridDim.x) {  // @branch divergent
    const int b = (int)floorf((x[i] - lo) * inv_width);
    atomicAdd(&bins[min(max(b, 0), NBINS - 1)], 1u);
  }
  __syncthreads();
  if (tid < NBINS && bins[tid] != 0) atomicAdd(&hist[tid], bins[tid]);  // @branch divergent
}

// ---- host code ----------------------------------------------------------------
// Launches every kernel of this file with the block shapes the emulator tests
// (tests/test_emu_corpus_*.c) run it with; `ptxray launches` reads them.
#define WARP_ROLES_1_THREADS 256
#define WARP_ROLES_2_THREADS 96
#define WARP_ROLES_3_THREADS 256
#define WARP_ROLES_4_THREADS 256
#define WARP_ROLES_5_THREADS 256
#define WARP_ROLES_6_THREADS 256
#define WARP_ROLES_7_THREADS 256
void launch_warp_roles() {
  {
    const float *__restrict__ p0 = nullptr;
    float *__restrict__ p1 = nullptr;
    unsigned int p2{};
    warp0_block_sum<<<3, WARP_ROLES_1_THREADS>>>(p0, p1, p2);
  }
  {
    const float *__restrict__ p0 = nullptr;
    float *__restrict__ p1 = nullptr;
    unsigned int p2{};
    warp0_block_sum<<<3, WARP_ROLES_2_THREADS>>>(p0, p1, p2);
  }
  {
    const float *__restrict__ p0 = nullptr;
    const float *__restrict__ p1 = nullptr;
    float *__restrict__ p2 = nullptr;
    int p3{};
    int p4{};
    int p5{};
    sgemm_split_loaders<<<dim3(3, 2), WARP_ROLES_3_THREADS>>>(p0, p1, p2, p3, p4, p5);
  }
  {
    const float2 *__restrict__ p0 = nullptr;
    float *__restrict__ p1 = nullptr;
    float *__restrict__ p2 = nullptr;
    unsigned int p3{};
    mid_side_warp_pairs<<<8, WARP_ROLES_4_THREADS>>>(p0, p1, p2, p3);
  }
  {
    float *__restrict__ p0 = nullptr;
    fwht256<<<3, WARP_ROLES_5_THREADS>>>(p0);
  }
  {
    const float *__restrict__ p0 = nullptr;
    const float *__restrict__ p1 = nullptr;
    float *__restrict__ p2 = nullptr;
    int p3{};
    conv1d_apron<<<8, WARP_ROLES_6_THREADS>>>(p0, p1, p2, p3);
  }
  {
    const float *__restrict__ p0 = nullptr;
    unsigned int *__restrict__ p1 = nullptr;
    unsigned int p2{};
    float p3{};
    float p4{};
    histogram_100bins<<<4, WARP_ROLES_7_THREADS>>>(p0, p1, p2, p3, p4);
  }
}
