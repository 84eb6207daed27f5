// double_math.cu
//
// Exercises: double precision arithmetic and libdevice math: fma.rn.f64,
// div.rn.f64, sqrt.rn.f64, exp/log/sin/cos/pow/erf (large inlined
// libdevice bodies with many basic blocks and branches on special values),
// conversions cvt.rn.f32.f64 / cvt.rzi.s32.f64, and a Kahan-compensated
// summation.  Black-Scholes option pricing as a realistic workload.
// Analyses targeted: f64 registers (%fd), many-block CFG from inlined math,
// special-value branches (uniform vs divergent), .f64 immediates
// (0dXXXXXXXXXXXXXXXX).

__device__ __forceinline__ double cnd(double d) {
  return 0.5 * erfc(-d * M_SQRT1_2);
}

extern "C" __global__ void black_scholes_f64(const double* __restrict__ S,
                                             const double* __restrict__ X,
                                             const double* __restrict__ T, double* call,
                                             double* put, double r, double v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double s = S[i], x = X[i], t = T[i];
  double sqrtT = sqrt(t);
  double d1 = (log(s / x) + (r + 0.5 * v * v) * t) / (v * sqrtT);
  double d2 = d1 - v * sqrtT;
  double expRT = exp(-r * t);
  call[i] = s * cnd(d1) - x * expRT * cnd(d2);
  put[i] = x * expRT * (1.0 - cnd(d2)) - s * (1.0 - cnd(d1));
}

extern "C" __global__ void kahan_sum_f64(const double* x, double* out, int n, int per_thread) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  double sum = 0.0, c = 0.0;
  for (int k = 0; k < per_thread; ++k) {
    int i = t * per_thread + k;
    if (i >= n) break;
    double y = x[i] - c;
    double tt = sum + y;
    c = (tt - sum) - y;
    sum = tt;
  }
  out[t] = sum;
}

extern "C" __global__ void trig_pow_f64(const double* a, double* b, int* q, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    double x = a[i];
    double s, c;
    sincos(x, &s, &c);
    b[i] = pow(fabs(s) + 1.0, c) + fma(x, x, -1.0) / (x * x + 1.0);
    q[i] = (int)trunc(x * 0.5);
  }
}

// ---- host code ----------------------------------------------------------------
// Launches every kernel of this file with the block shapes the emulator tests
// (tests/test_emu_corpus_*.c) run it with; `ptxray launches` reads them.
#define DOUBLE_MATH_1_THREADS 64
#define DOUBLE_MATH_2_THREADS 32
#define DOUBLE_MATH_3_THREADS 64
void launch_double_math() {
  {
    const double *__restrict__ p0 = nullptr;
    const double *__restrict__ p1 = nullptr;
    const double *__restrict__ p2 = nullptr;
    double * p3 = nullptr;
    double * p4 = nullptr;
    double p5{};
    double p6{};
    int p7{};
    black_scholes_f64<<<2, DOUBLE_MATH_1_THREADS>>>(p0, p1, p2, p3, p4, p5, p6, p7);
  }
  {
    const double * p0 = nullptr;
    double * p1 = nullptr;
    int p2{};
    int p3{};
    kahan_sum_f64<<<2, DOUBLE_MATH_2_THREADS>>>(p0, p1, p2, p3);
  }
  {
    const double * p0 = nullptr;
    double * p1 = nullptr;
    int * p2 = nullptr;
    int p3{};
    trig_pow_f64<<<2, DOUBLE_MATH_3_THREADS>>>(p0, p1, p2, p3);
  }
}
