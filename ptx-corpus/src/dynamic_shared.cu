// dynamic_shared.cu
//
// Exercises: dynamic shared memory (`extern __shared__` => `.extern .shared
// .align 16 .b8 name[]`): a single buffer carved into several typed
// sub-arrays (float and int regions, offsets depending on a runtime
// parameter), a templated kernel using a type-punned extern array, and a
// shared-memory staging copy.
// Analyses targeted: shared memory with unknown size, address arithmetic
// on shared pointers, bank conflicts with runtime pitch.

extern "C" __global__ void dyn_shared_partition(const float* __restrict__ vals,
                                                const int* __restrict__ keys, float* out, int n) {
  extern __shared__ __align__(16) unsigned char smem[];
  float* s_vals = reinterpret_cast<float*>(smem);
  int* s_keys = reinterpret_cast<int*>(smem + blockDim.x * sizeof(float));
  int gid = blockIdx.x * blockDim.x + threadIdx.x;
  s_vals[threadIdx.x] = gid < n ? vals[gid] : 0.0f;
  s_keys[threadIdx.x] = gid < n ? keys[gid] : -1;
  __syncthreads();
  // each thread sums the values of its block that share its key
  float acc = 0.0f;
  int my = s_keys[threadIdx.x];
  for (unsigned j = 0; j < blockDim.x; ++j)
    if (s_keys[j] == my) acc += s_vals[j];
  if (gid < n) out[gid] = acc;
}

template <typename T>
__global__ void dyn_shared_reverse(T* d, int n) {
  extern __shared__ __align__(sizeof(double)) unsigned char raw[];
  T* s = reinterpret_cast<T*>(raw);
  int t = threadIdx.x;
  int tr = n - t - 1;
  if (t < n) s[t] = d[blockIdx.x * n + t];
  __syncthreads();
  if (t < n) d[blockIdx.x * n + t] = s[tr];
}
template __global__ void dyn_shared_reverse<int>(int*, int);
template __global__ void dyn_shared_reverse<double>(double*, int);

extern "C" __global__ void dyn_shared_matrix_rowsum(const float* m, float* rowsum, int cols,
                                                    int pitch) {
  extern __shared__ float tile[];  // blockDim.y rows of `pitch` floats
  int r = threadIdx.y;
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    tile[r * pitch + c] = m[(blockIdx.x * blockDim.y + r) * cols + c];
  __syncthreads();
  if (threadIdx.x == 0) {
    float s = 0.0f;
    for (int c = 0; c < cols; ++c) s += tile[r * pitch + c];
    rowsum[blockIdx.x * blockDim.y + r] = s;
  }
}

// ---- host code ----------------------------------------------------------------
// Launches every kernel of this file with the block shapes the emulator tests
// (tests/test_emu_corpus_*.c) run it with; `ptxray launches` reads them.
constexpr int kDynamicSharedThreads1 = 64;
constexpr dim3 kDynamicSharedBlock2(16, 4);
constexpr int kDynamicSharedThreads3 = 64;
constexpr int kDynamicSharedThreads4 = 64;
void launch_dynamic_shared() {
  {
    const float *__restrict__ p0 = nullptr;
    const int *__restrict__ p1 = nullptr;
    float * p2 = nullptr;
    int p3{};
    dyn_shared_partition<<<3, kDynamicSharedThreads1>>>(p0, p1, p2, p3);
  }
  {
    const float * p0 = nullptr;
    float * p1 = nullptr;
    int p2{};
    int p3{};
    dyn_shared_matrix_rowsum<<<2, kDynamicSharedBlock2>>>(p0, p1, p2, p3);
  }
  {
    int* p0 = nullptr;
    int p1{};
    dyn_shared_reverse<int><<<2, kDynamicSharedThreads3>>>(p0, p1);
  }
  {
    double* p0 = nullptr;
    int p1{};
    dyn_shared_reverse<double><<<2, kDynamicSharedThreads4>>>(p0, p1);
  }
}
