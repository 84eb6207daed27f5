// warp_reduce_tree.cu
//
// Exercises: shared-memory tree reductions in three styles, one partial sum
// per block.
//   reduce_tree_classic    - the textbook loop `for (s = blockDim.x / 2;
//                            s > 0; s >>= 1) if (tid < s)`: the stride is
//                            uniform, the guard splits warps once s < 32;
//                            dynamic shared memory, grid-stride loading.
//   reduce_tree_unrolled   - fully unrolled for 256 threads: `tid < 128`,
//                            `tid < 64` (whole warps) and the legacy
//                            warp-synchronous last warp through a volatile
//                            pointer (ld/st.volatile.shared, no barrier).
//   reduce_tree_shfl<BLOCK> - tree steps while s > 32 (unrolled, BLOCK is a
//                            template argument), then the first warp
//                            finishes with __shfl_down_sync.
// Analyses targeted: divergence at warp granularity (a `tid < c` guard with
// c a multiple of 32 never splits a warp, `tid < s` does once s < 32),
// barriers in a loop with a uniform trip count, coalescing of grid-stride
// loads.
// Annotations: a trailing @branch comment gives the true warp-level
// verdict (uniform or divergent) of the branch on its line for a 1-D block
// of 256 threads (any multiple of 32 gives the same); a trailing @sectors
// comment the 32-byte sectors one full warp's request on that line touches
// (4-byte floats, 256-byte-aligned arrays).  Fully unrolled loops have no
// branch and no @branch comment.

extern "C" __global__ void reduce_tree_classic(const float* __restrict__ in,
                                               float* __restrict__ out, unsigned n) {
  extern __shared__ float sdata[];
  const unsigned tid = threadIdx.x;
  float sum = 0.0f;
  for (unsigned i = blockIdx.x * blockDim.x + tid; i < n; i += blockDim.x * gridDim.x)  // @branch divergent
    sum += in[i];  // @sectors 4
  sdata[tid] = sum;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {  // @branch uniform
    if (tid < s) sdata[tid] += sdata[tid + s];  // @branch divergent
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];  // @branch divergent
}

// Each block reduces 512 consecutive elements (two per thread).
extern "C" __global__ void __launch_bounds__(256)
    reduce_tree_unrolled(const float* __restrict__ in, float* __restrict__ out, unsigned n) {
  __shared__ float sdata[256];
  const unsigned tid = threadIdx.x;
  const unsigned i = blockIdx.x * 512 + tid;
  float sum = 0.0f;
  if (i < n) sum = in[i];  // @branch divergent
  if (i + 256 < n) sum += in[i + 256];  // @branch divergent
  sdata[tid] = sum;
  __syncthreads();
  if (tid < 128) sdata[tid] = sum = sum + sdata[tid + 128];  // @branch uniform
  __syncthreads();
  if (tid < 64) sdata[tid] = sum = sum + sdata[tid + 64];  // @branch uniform
  __syncthreads();
  if (tid < 32) {  // @branch uniform
    // the last warp, warp-synchronous: volatile keeps every step in memory
    volatile float* vs = sdata;
    vs[tid] = sum = sum + vs[tid + 32];
    vs[tid] = sum = sum + vs[tid + 16];
    vs[tid] = sum = sum + vs[tid + 8];
    vs[tid] = sum = sum + vs[tid + 4];
    vs[tid] = sum = sum + vs[tid + 2];
    vs[tid] = sum = sum + vs[tid + 1];
  }
  if (tid == 0) out[blockIdx.x] = sum;  // @branch divergent
}

// blockDim.x must equal BLOCK (a power of two, at least 64).
template <unsigned BLOCK>
__global__ void __launch_bounds__(BLOCK)
    reduce_tree_shfl(const float* __restrict__ in, float* __restrict__ out, unsigned n) {
  __shared__ float sdata[BLOCK];
  const unsigned tid = threadIdx.x;
  float sum = 0.0f;
  for (unsigned i = blockIdx.x * BLOCK + tid; i < n; i += BLOCK * gridDim.x)  // @branch divergent
    sum += in[i];  // @sectors 4
  sdata[tid] = sum;
  __syncthreads();
#pragma unroll
  for (unsigned s = BLOCK / 2; s > 32; s >>= 1) {
    if (tid < s) sdata[tid] = sum = sum + sdata[tid + s];  // @branch uniform
    __syncthreads();
  }
  if (tid < 32) {  // @branch uniform
    sum += sdata[tid + 32];
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1)
      sum += __shfl_down_sync(0xffffffffu, sum, offset);
    if (tid == 0) out[blockIdx.x] = sum;  // @branch divergent
  }
}

template __global__ void reduce_tree_shfl<128>(const float*, float*, unsigned);
template __global__ void reduce_tree_shfl<256>(const float*, float*, unsigned);

// ---- host code ----------------------------------------------------------------
// Launches every kernel of this file with the block shapes the emulator tests
// (tests/test_emu_corpus_*.c) run it with; `ptxray launches` reads them.
template <unsigned N>
void launch_reduce_tree_shfl(float const* p0, float* p1, unsigned int p2) {
  reduce_tree_shfl<N><<<3, dim3(N)>>>(p0, p1, p2);
}
void launch_warp_reduce_tree() {
  {
    const float *__restrict__ p0 = nullptr;
    float *__restrict__ p1 = nullptr;
    unsigned int p2{};
    int threads = 256;
    reduce_tree_classic<<<3, threads>>>(p0, p1, p2);
  }
  {
    const float *__restrict__ p0 = nullptr;
    float *__restrict__ p1 = nullptr;
    unsigned int p2{};
    int threads = 128;
    reduce_tree_classic<<<3, threads>>>(p0, p1, p2);
  }
  {
    const float *__restrict__ p0 = nullptr;
    float *__restrict__ p1 = nullptr;
    unsigned int p2{};
    int threads = 256;
    reduce_tree_unrolled<<<3, threads>>>(p0, p1, p2);
  }
  {
    float const* p0 = nullptr;
    float* p1 = nullptr;
    unsigned int p2{};
    launch_reduce_tree_shfl<128>(p0, p1, p2);
  }
  {
    float const* p0 = nullptr;
    float* p1 = nullptr;
    unsigned int p2{};
    launch_reduce_tree_shfl<256>(p0, p1, p2);
  }
}
