// launch_bounds.cu
//
// Exercises: kernel performance directives in PTX:
//   __launch_bounds__(256)        => .maxntid 256, 1, 1
//   __launch_bounds__(128, 4)     => .maxntid 128,1,1 + .minnctapersm 4
//   __launch_bounds__(1024, 1)    => .maxntid + .minnctapersm 1
//   __maxnreg__(32) (CUDA 12.4+)  => .maxnreg 32
// plus a kernel with no directive for comparison.  The kernels themselves
// are a saxpy, a fused multiply chain and a block-wide max.
// Analyses targeted: kernel directive parsing, occupancy estimation.

extern "C" __global__ void __launch_bounds__(256) saxpy_lb256(int n, float a, const float* x,
                                                               float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

extern "C" __global__ void __launch_bounds__(128, 4) poly_lb128_4(float* v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = v[i];
  float r = 1.0f;
#pragma unroll
  for (int k = 1; k < 12; ++k) r = r * x + 1.0f / k;
  v[i] = r;
}

extern "C" __global__ void __launch_bounds__(1024, 1) blockmax_lb1024(const int* in, int* out) {
  __shared__ int s[1024];
  int t = threadIdx.x;
  s[t] = in[blockIdx.x * 1024 + t];
  __syncthreads();
  for (int st = 512; st > 0; st >>= 1) {
    if (t < st) s[t] = max(s[t], s[t + st]);
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

extern "C" __global__ void __maxnreg__(32) saxpy_maxnreg32(int n, float a, const float* x,
                                                           float* y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = a * x[i] + y[i];
}

extern "C" __global__ void saxpy_unbounded(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

// ---- host code ----------------------------------------------------------------
// Launches every kernel of this file with the block shapes the emulator tests
// (tests/test_emu_corpus_*.c) run it with; `ptxray launches` reads them.
#include <cstdlib>
constexpr int kLaunchBoundsThreads1 = 256;
constexpr int kLaunchBoundsThreads2 = 128;
constexpr int kLaunchBoundsThreads3 = 1024;
constexpr int kLaunchBoundsThreads4 = 256;
constexpr int kLaunchBoundsThreads5 = 256;
void launch_launch_bounds() {
  {
    int p0{};
    float p1{};
    const float * p2 = nullptr;
    float * p3 = nullptr;
    saxpy_lb256<<<4, kLaunchBoundsThreads1>>>(p0, p1, p2, p3);
  }
  {
    float * p0 = nullptr;
    int p1{};
    poly_lb128_4<<<8, kLaunchBoundsThreads2>>>(p0, p1);
  }
  {
    const int * p0 = nullptr;
    int * p1 = nullptr;
    blockmax_lb1024<<<3, kLaunchBoundsThreads3>>>(p0, p1);
  }
  {
    int p0{};
    float p1{};
    const float * p2 = nullptr;
    float * p3 = nullptr;
    saxpy_maxnreg32<<<2, kLaunchBoundsThreads4>>>(p0, p1, p2, p3);
  }
  {
    int p0{};
    float p1{};
    const float * p2 = nullptr;
    float * p3 = nullptr;
    saxpy_unbounded<<<4, kLaunchBoundsThreads5>>>(p0, p1, p2, p3);
  }
  {
    int p0{};
    float p1{};
    const float * p2 = nullptr;
    float * p3 = nullptr;
    const char *e = getenv("LAUNCH_BOUNDS_THREADS");
    int threads = e ? atoi(e) : 256;
    saxpy_unbounded<<<4, threads>>>(p0, p1, p2, p3);
  }
}
