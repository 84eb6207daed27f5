// fir_unrolled.cu
//
// Exercises: FIR filters with fully unrolled tap loops.
//   fir_const_taps<NTAPS> - coefficients in __constant__ memory
//       (ld.const), template instantiations with 31, 64 and 127 taps,
//       each output computed from NTAPS unrolled loads.
//   fir_sliding_window    - each thread computes 8 consecutive outputs,
//       keeping a sliding window of 8+63 samples in registers (hundreds of
//       live values); the 64 coefficients come in a 256-byte struct passed
//       by value (param space, no __grid_constant__).
// Analyses targeted: register pressure, constant-memory classification,
// unrolled straight-line code, template (mangled) kernels.

#define MAX_TAPS 128
__constant__ float c_taps[MAX_TAPS];

template <int NTAPS>
__global__ void fir_const_taps(const float* __restrict__ in, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float acc = 0.0f;
#pragma unroll
  for (int t = 0; t < NTAPS; ++t) {
    int k = i - t;
    acc += c_taps[t] * (k >= 0 ? in[k] : 0.0f);
  }
  out[i] = acc;
}
template __global__ void fir_const_taps<31>(const float*, float*, int);
template __global__ void fir_const_taps<64>(const float*, float*, int);
template __global__ void fir_const_taps<127>(const float*, float*, int);

struct Taps64 { float h[64]; };
#define OUT_PER_THREAD 8

extern "C" __global__ void fir_sliding_window(const float* __restrict__ in, float* __restrict__ out,
                                              int n, Taps64 taps) {
  int base = (blockIdx.x * blockDim.x + threadIdx.x) * OUT_PER_THREAD;
  if (base + OUT_PER_THREAD + 64 > n) return;
  float w[OUT_PER_THREAD + 63];
#pragma unroll
  for (int k = 0; k < OUT_PER_THREAD + 63; ++k) w[k] = in[base + k];
  float h[64];
#pragma unroll
  for (int t = 0; t < 64; ++t) h[t] = taps.h[t];
#pragma unroll
  for (int o = 0; o < OUT_PER_THREAD; ++o) {
    float acc = 0.0f;
#pragma unroll
    for (int t = 0; t < 64; ++t) acc = fmaf(h[t], w[o + 63 - t], acc);
    out[base + o] = acc;
  }
}

// ---- host code ----------------------------------------------------------------
// Launches every kernel of this file with the block shapes the emulator tests
// (tests/test_emu_corpus_*.c) run it with; `ptxray launches` reads them.
void launch_fir_unrolled() {
  {
    const float *__restrict__ p0 = nullptr;
    float *__restrict__ p1 = nullptr;
    int p2{};
    Taps64 p3{};
    int threads = 32;
    fir_sliding_window<<<1, threads>>>(p0, p1, p2, p3);
  }
  {
    float const* p0 = nullptr;
    float* p1 = nullptr;
    int p2{};
    int threads = 128;
    fir_const_taps<31><<<3, threads>>>(p0, p1, p2);
  }
  {
    float const* p0 = nullptr;
    float* p1 = nullptr;
    int p2{};
    int threads = 128;
    fir_const_taps<64><<<3, threads>>>(p0, p1, p2);
  }
  {
    float const* p0 = nullptr;
    float* p1 = nullptr;
    int p2{};
    int threads = 128;
    fir_const_taps<127><<<3, threads>>>(p0, p1, p2);
  }
}
