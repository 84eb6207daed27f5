// noinline_calls.cu
//
// Exercises: real PTX function calls (.func) from __noinline__ device
// functions: scalar params and return values (.param .b32 func_retval0),
// a struct passed and returned by value (.param .align 16 .b8 x[32]), a
// fixed-size array wrapped in a struct passed by value, a pointer param,
// a recursive function (factorial/fib style, stack frame via %SP and
// .local depot), and a call inside a divergent branch.
// Analyses targeted: interprocedural analysis, call graph, parameter
// passing through .param space (st.param / ld.param / call.uni),
// divergence propagated through call arguments and return values.

struct Vec4d { double x, y, z, w; };
struct Mat3 { float m[9]; };
struct Hist8 { int bins[8]; };

__device__ __noinline__ float clamp01(float v) { return fminf(fmaxf(v, 0.0f), 1.0f); }

__device__ __noinline__ int ilog2_floor(unsigned v) {
  int r = -1;
  while (v) { v >>= 1; ++r; }
  return r;
}

__device__ __noinline__ Vec4d vec_axpy(double a, Vec4d x, Vec4d y) {
  Vec4d r;
  r.x = a * x.x + y.x; r.y = a * x.y + y.y; r.z = a * x.z + y.z; r.w = a * x.w + y.w;
  return r;
}

__device__ __noinline__ float3 mat3_mul(Mat3 M, float3 v) {
  return make_float3(M.m[0] * v.x + M.m[1] * v.y + M.m[2] * v.z,
                     M.m[3] * v.x + M.m[4] * v.y + M.m[5] * v.z,
                     M.m[6] * v.x + M.m[7] * v.y + M.m[8] * v.z);
}

__device__ __noinline__ int hist_argmax(Hist8 h) {
  int best = 0;
  for (int i = 1; i < 8; ++i)
    if (h.bins[i] > h.bins[best]) best = i;
  return best;
}

__device__ __noinline__ void accumulate(float* dst, const float* src, int n) {
  for (int i = 0; i < n; ++i) dst[i] += src[i];
}

__device__ __noinline__ unsigned long long fib_rec(int n) {
  return n < 2 ? (unsigned long long)n : fib_rec(n - 1) + fib_rec(n - 2);
}

extern "C" __global__ void noinline_scalar(const float* in, float* out, int* lg, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = clamp01(in[i]);
    if (i & 1) lg[i] = ilog2_floor((unsigned)i);  // call in divergent branch
  }
}

extern "C" __global__ void noinline_struct_byval(const Vec4d* x, Vec4d* y, double a,
                                                 const Mat3* mats, float3* pts, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  y[i] = vec_axpy(a, x[i], y[i]);
  pts[i] = mat3_mul(mats[i % 4], pts[i]);
}

__global__ void noinline_array_in_struct(const int* data, int* winner, float* acc,
                                         const float* src, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Hist8 h;
  for (int k = 0; k < 8; ++k) h.bins[k] = data[i * 8 + k];
  winner[i] = hist_argmax(h);
  accumulate(acc + 4 * i, src + 4 * i, 4);
}

__global__ void noinline_recursive(unsigned long long* out, int n) {
  int i = threadIdx.x;
  out[i] = fib_rec(i % n);
}

// ---- host code ----------------------------------------------------------------
// Launches every kernel of this file with the block shapes the emulator tests
// (tests/test_emu_corpus_*.c) run it with; `ptxray launches` reads them.
#define NOINLINE_CALLS_1_THREADS 64
#define NOINLINE_CALLS_2_THREADS 32
#define NOINLINE_CALLS_3_THREADS 32
#define NOINLINE_CALLS_4_THREADS 64
void launch_noinline_calls() {
  {
    const float * p0 = nullptr;
    float * p1 = nullptr;
    int * p2 = nullptr;
    int p3{};
    noinline_scalar<<<2, NOINLINE_CALLS_1_THREADS>>>(p0, p1, p2, p3);
  }
  {
    const Vec4d * p0 = nullptr;
    Vec4d * p1 = nullptr;
    double p2{};
    const Mat3 * p3 = nullptr;
    float3 * p4 = nullptr;
    int p5{};
    noinline_struct_byval<<<2, NOINLINE_CALLS_2_THREADS>>>(p0, p1, p2, p3, p4, p5);
  }
  {
    const int * p0 = nullptr;
    int * p1 = nullptr;
    float * p2 = nullptr;
    const float * p3 = nullptr;
    int p4{};
    noinline_array_in_struct<<<2, NOINLINE_CALLS_3_THREADS>>>(p0, p1, p2, p3, p4);
  }
  {
    unsigned long long * p0 = nullptr;
    int p1{};
    noinline_recursive<<<1, NOINLINE_CALLS_4_THREADS>>>(p0, p1);
  }
}
