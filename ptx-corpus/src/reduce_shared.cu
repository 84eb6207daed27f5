// reduce_shared.cu
//
// Exercises: classic shared-memory tree reduction (sequential addressing,
// stride halves each step), templated on block size (mangled names),
// first-add-during-load, grid-stride accumulation, one partial sum per
// block written by thread 0.  Also the interleaved-addressing version with
// the divergent `tid % (2*s) == 0` test.
// Analyses targeted: divergence (tid < s is divergent only for s < 32),
// barrier inside loop with uniform trip count, shared-memory bank
// conflicts (interleaved version), rem.u32 on a thread id.

template <unsigned BLOCK>
__global__ void reduce_sum(const float* __restrict__ in, float* __restrict__ out, unsigned n) {
  __shared__ float sdata[BLOCK];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * (BLOCK * 2) + tid;
  unsigned gridSize = BLOCK * 2 * gridDim.x;
  float sum = 0.0f;
  while (i < n) {
    sum += in[i];
    if (i + BLOCK < n) sum += in[i + BLOCK];
    i += gridSize;
  }
  sdata[tid] = sum;
  __syncthreads();
  for (unsigned s = BLOCK / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

template __global__ void reduce_sum<128>(const float*, float*, unsigned);
template __global__ void reduce_sum<256>(const float*, float*, unsigned);
template __global__ void reduce_sum<512>(const float*, float*, unsigned);

// Interleaved addressing: highly divergent, bank conflicts.
extern "C" __global__ void reduce_interleaved(const int* in, int* out, int n) {
  extern __shared__ int sbuf[];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  sbuf[tid] = (i < (unsigned)n) ? in[i] : 0;
  __syncthreads();
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    if (tid % (2 * s) == 0) sbuf[tid] += sbuf[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sbuf[0];
}

// ---- host code ----------------------------------------------------------------
// Launches every kernel of this file with the block shapes the emulator tests
// (tests/test_emu_corpus_*.c) run it with; `ptxray launches` reads them.
constexpr int kReduceSharedThreads1 = 256;
template <unsigned N>
void launch_reduce_sum(float const* p0, float* p1, unsigned int p2) {
  reduce_sum<N><<<3, dim3(N)>>>(p0, p1, p2);
}
void launch_reduce_shared() {
  {
    const int * p0 = nullptr;
    int * p1 = nullptr;
    int p2{};
    reduce_interleaved<<<3, kReduceSharedThreads1>>>(p0, p1, p2);
  }
  {
    float const* p0 = nullptr;
    float* p1 = nullptr;
    unsigned int p2{};
    launch_reduce_sum<128>(p0, p1, p2);
  }
  {
    float const* p0 = nullptr;
    float* p1 = nullptr;
    unsigned int p2{};
    launch_reduce_sum<256>(p0, p1, p2);
  }
  {
    float const* p0 = nullptr;
    float* p1 = nullptr;
    unsigned int p2{};
    launch_reduce_sum<512>(p0, p1, p2);
  }
}
