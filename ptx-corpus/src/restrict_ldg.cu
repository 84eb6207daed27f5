// restrict_ldg.cu
//
// Exercises: read-only data path and aliasing: the same kernel written
// with and without __restrict__ (restrict lets NVVM emit ld.global.nc and
// hoist/reuse loads), explicit __ldg on scalars and float4 (ld.global.nc.v4
// .f32), cache-hinted intrinsics __ldcs/__ldcg/__ldlu/__stcs/__stwt
// (ld.global.cs / .cg / .lu, st.global.cs / .wt), and __builtin_assume_aligned.
// Analyses targeted: alias analysis (restrict), memory-space/cache-operator
// parsing, redundant-load detection (the non-restrict version reloads).

extern "C" __global__ void axpby_alias(const float* x, const float* y, float* z, float a, float b,
                                       int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    z[i] = a * x[i];
    z[i] += b * y[i];   // x/y may alias z: loads cannot be reordered
    z[i] += x[i] * y[i];
  }
}

extern "C" __global__ void axpby_restrict(const float* __restrict__ x, const float* __restrict__ y,
                                          float* __restrict__ z, float a, float b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    z[i] = a * x[i];
    z[i] += b * y[i];
    z[i] += x[i] * y[i];
  }
}

extern "C" __global__ void ldg_vec4(const float4* in, float4* out, const int* perm, int n4) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n4) return;
  int p = __ldg(perm + i);
  float4 v = __ldg(in + p);
  out[i] = make_float4(v.w, v.z, v.y, v.x);
}

extern "C" __global__ void cache_hints(const float* in, float* out, const float* coeff, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float* ain = static_cast<const float*>(__builtin_assume_aligned(in, 16));
  float a = __ldcs(ain + i);     // streaming
  float b = __ldcg(coeff + (i & 255));  // cache global (L2 only)
  float c = __ldlu(ain + (i ^ 1));  // last use
  __stcs(out + i, a * b);
  __stwt(out + n + i, c);
}

// ---- host code ----------------------------------------------------------------
// Launches every kernel of this file with the block shapes the emulator tests
// (tests/test_emu_corpus_*.c) run it with; `ptxray launches` reads them.
constexpr int kRestrictLdgThreads1 = 256;
constexpr int kRestrictLdgThreads2 = 256;
constexpr int kRestrictLdgThreads3 = 128;
constexpr int kRestrictLdgThreads4 = 256;
void launch_restrict_ldg() {
  {
    const float * p0 = nullptr;
    const float * p1 = nullptr;
    float * p2 = nullptr;
    float p3{};
    float p4{};
    int p5{};
    axpby_alias<<<4, kRestrictLdgThreads1>>>(p0, p1, p2, p3, p4, p5);
  }
  {
    const float *__restrict__ p0 = nullptr;
    const float *__restrict__ p1 = nullptr;
    float *__restrict__ p2 = nullptr;
    float p3{};
    float p4{};
    int p5{};
    axpby_restrict<<<4, kRestrictLdgThreads2>>>(p0, p1, p2, p3, p4, p5);
  }
  {
    const float4 * p0 = nullptr;
    float4 * p1 = nullptr;
    const int * p2 = nullptr;
    int p3{};
    ldg_vec4<<<1, kRestrictLdgThreads3>>>(p0, p1, p2, p3);
  }
  {
    const float * p0 = nullptr;
    float * p1 = nullptr;
    const float * p2 = nullptr;
    int p3{};
    cache_hints<<<2, kRestrictLdgThreads4>>>(p0, p1, p2, p3);
  }
}
