// half2_math.cu
//
// Exercises: half precision: __half2 packed arithmetic (__hfma2, __hmul2,
// __hadd2 => fma.rn.f16x2 / mul.f16x2 / add.f16x2), conversions
// __float2half_rn / __half22float2 / __floats2half2_rn (cvt.rn.f16.f32,
// mov.b32 {%rs, %rs}), __hmax (sm_80+ max.f16; emulated on sm_75 by the
// header), half comparisons (setp.*.f16x2), and a bfloat16 axpy
// (__nv_bfloat162: __hfma2 guarded by __CUDA_ARCH__ >= 800, float fallback
// on sm_75).
// Analyses targeted: .f16/.f16x2/.bf16x2 types, .b16 registers (%rs),
// vector unpack/pack movs.

#include <cuda_fp16.h>
#include <cuda_bf16.h>

extern "C" __global__ void haxpy2(int n2, __half2 a, const __half2* __restrict__ x,
                                  __half2* __restrict__ y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n2) y[i] = __hfma2(a, x[i], y[i]);
}

extern "C" __global__ void half2_dot_relu(const __half2* a, const __half2* b, float* out,
                                          int n2) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  __half2 acc = __float2half2_rn(0.0f);
  for (int k = i; k < n2; k += blockDim.x * gridDim.x) {
    __half2 p = __hmul2(a[k], b[k]);
    p = __hmax2(p, __float2half2_rn(0.0f));
    acc = __hadd2(acc, p);
  }
  float2 f = __half22float2(acc);
  atomicAdd(out, f.x + f.y);
}

extern "C" __global__ void float_to_half_scale(const float* in, __half* out, float scale, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    __half h = __float2half_rn(in[i] * scale);
    if (__hgt(h, __float2half(65000.0f))) h = __float2half(65000.0f);
    out[i] = h;
  }
}

extern "C" __global__ void bf16_axpy(int n2, float a, const __nv_bfloat162* x,
                                     __nv_bfloat162* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n2) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    __nv_bfloat162 av = __float2bfloat162_rn(a);
    y[i] = __hfma2(av, x[i], y[i]);  // fma.rn.bf16x2
#else
    float2 xf = __bfloat1622float2(x[i]), yf = __bfloat1622float2(y[i]);
    y[i] = __floats2bfloat162_rn(fmaf(a, xf.x, yf.x), fmaf(a, xf.y, yf.y));
#endif
  }
}

// ---- host code ----------------------------------------------------------------
// Launches every kernel of this file with the block shapes the emulator tests
// (tests/test_emu_corpus_*.c) run it with; `ptxray launches` reads them.
void launch_half2_math() {
  {
    int p0{};
    __half2 p1{};
    const __half2 *__restrict__ p2 = nullptr;
    __half2 *__restrict__ p3 = nullptr;
    int threads = 64;
    haxpy2<<<2, threads>>>(p0, p1, p2, p3);
  }
  {
    const __half2 * p0 = nullptr;
    const __half2 * p1 = nullptr;
    float * p2 = nullptr;
    int p3{};
    int threads = 96;
    half2_dot_relu<<<1, threads>>>(p0, p1, p2, p3);
  }
  {
    const float * p0 = nullptr;
    __half * p1 = nullptr;
    float p2{};
    int p3{};
    int threads = 64;
    float_to_half_scale<<<2, threads>>>(p0, p1, p2, p3);
  }
  {
    int p0{};
    float p1{};
    const __nv_bfloat162 * p2 = nullptr;
    __nv_bfloat162 * p3 = nullptr;
    int threads = 64;
    bf16_axpy<<<2, threads>>>(p0, p1, p2, p3);
  }
}
