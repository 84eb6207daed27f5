// templates_generic.cu
//
// Exercises: C++ templates producing many mangled kernels: a generic
// element-wise map with a functor type parameter (lambda-free functors
// with operator()), a templated reduction over types (int, float, double,
// unsigned long long) and block sizes, a non-type template pointer-to-
// member-like selector, variadic template helper, and a kernel in a
// namespace (_ZN...E mangling).  Also a templated struct with a static
// __device__ member function.
// Analyses targeted: symbol demangling / long mangled names, identical
// code shapes over different register types (%r, %f, %fd, %rd).

namespace ptxray { namespace corpus {

template <typename T> struct Square { __device__ T operator()(T x) const { return x * x; } };
template <typename T> struct Affine {
  T a, b;
  __device__ T operator()(T x) const { return a * x + b; }
};
template <typename T> struct Clamp {
  T lo, hi;
  __device__ T operator()(T x) const { return x < lo ? lo : (x > hi ? hi : x); }
};

template <typename T, typename F>
__global__ void map_kernel(const T* __restrict__ in, T* __restrict__ out, int n, F f) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    out[i] = f(in[i]);
}

template __global__ void map_kernel<float, Square<float>>(const float*, float*, int, Square<float>);
template __global__ void map_kernel<double, Affine<double>>(const double*, double*, int,
                                                            Affine<double>);
template __global__ void map_kernel<int, Clamp<int>>(const int*, int*, int, Clamp<int>);

template <typename T, int BLOCK>
struct BlockSum {
  static __device__ T run(T v, T* smem) {
    smem[threadIdx.x] = v;
    __syncthreads();
#pragma unroll
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
      if (threadIdx.x < s) smem[threadIdx.x] += smem[threadIdx.x + s];
      __syncthreads();
    }
    return smem[0];
  }
};

template <typename T, int BLOCK>
__global__ void block_sum_kernel(const T* in, T* out) {
  __shared__ T smem[BLOCK];
  T v = in[blockIdx.x * BLOCK + threadIdx.x];
  T s = BlockSum<T, BLOCK>::run(v, smem);
  if (threadIdx.x == 0) out[blockIdx.x] = s;
}

template __global__ void block_sum_kernel<int, 128>(const int*, int*);
template __global__ void block_sum_kernel<float, 256>(const float*, float*);
template __global__ void block_sum_kernel<double, 64>(const double*, double*);
template __global__ void block_sum_kernel<unsigned long long, 128>(const unsigned long long*,
                                                                   unsigned long long*);

template <typename T> __device__ T sum_all(T x) { return x; }
template <typename T, typename... Rest> __device__ T sum_all(T x, Rest... rest) {
  return x + sum_all<T>(rest...);
}

template <int N>
__global__ void variadic_sum(const float* a, const float* b, const float* c, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = sum_all(a[i], b[i], c[i], (float)N);
}
template __global__ void variadic_sum<3>(const float*, const float*, const float*, float*);

}}  // namespace ptxray::corpus

// ---- host code ----------------------------------------------------------------
// Launches every kernel of this file with the block shapes the emulator tests
// (tests/test_emu_corpus_*.c) run it with; `ptxray launches` reads them.
constexpr int kTemplatesGenericThreads1 = 64;
constexpr int kTemplatesGenericThreads2 = 64;
constexpr int kTemplatesGenericThreads3 = 64;
constexpr int kTemplatesGenericThreads8 = 32;
template <unsigned N>
void launch_block_sum_kernel_int(int const* p0, int* p1) {
  ptxray::corpus::block_sum_kernel<int, N><<<3, dim3(N)>>>(p0, p1);
}
template <unsigned N>
void launch_block_sum_kernel_float(float const* p0, float* p1) {
  ptxray::corpus::block_sum_kernel<float, N><<<3, dim3(N)>>>(p0, p1);
}
template <unsigned N>
void launch_block_sum_kernel_double(double const* p0, double* p1) {
  ptxray::corpus::block_sum_kernel<double, N><<<3, dim3(N)>>>(p0, p1);
}
template <unsigned N>
void launch_block_sum_kernel_unsigned_long_long(unsigned long long const* p0, unsigned long long* p1) {
  ptxray::corpus::block_sum_kernel<unsigned long long, N><<<3, dim3(N)>>>(p0, p1);
}
void launch_templates_generic() {
  {
    float const* p0 = nullptr;
    float* p1 = nullptr;
    int p2{};
    ptxray::corpus::Square<float> p3{};
    ptxray::corpus::map_kernel<float, ptxray::corpus::Square<float> ><<<2, kTemplatesGenericThreads1>>>(p0, p1, p2, p3);
  }
  {
    double const* p0 = nullptr;
    double* p1 = nullptr;
    int p2{};
    ptxray::corpus::Affine<double> p3{};
    ptxray::corpus::map_kernel<double, ptxray::corpus::Affine<double> ><<<2, kTemplatesGenericThreads2>>>(p0, p1, p2, p3);
  }
  {
    int const* p0 = nullptr;
    int* p1 = nullptr;
    int p2{};
    ptxray::corpus::Clamp<int> p3{};
    ptxray::corpus::map_kernel<int, ptxray::corpus::Clamp<int> ><<<2, kTemplatesGenericThreads3>>>(p0, p1, p2, p3);
  }
  {
    int const* p0 = nullptr;
    int* p1 = nullptr;
    launch_block_sum_kernel_int<128>(p0, p1);
  }
  {
    float const* p0 = nullptr;
    float* p1 = nullptr;
    launch_block_sum_kernel_float<256>(p0, p1);
  }
  {
    double const* p0 = nullptr;
    double* p1 = nullptr;
    launch_block_sum_kernel_double<64>(p0, p1);
  }
  {
    unsigned long long const* p0 = nullptr;
    unsigned long long* p1 = nullptr;
    launch_block_sum_kernel_unsigned_long_long<128>(p0, p1);
  }
  {
    float const* p0 = nullptr;
    float const* p1 = nullptr;
    float const* p2 = nullptr;
    float* p3 = nullptr;
    ptxray::corpus::variadic_sum<3><<<2, kTemplatesGenericThreads8>>>(p0, p1, p2, p3);
  }
}
