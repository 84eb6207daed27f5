// warp_stride.cu
//
// Exercises: warp-stride loops, the warp-granular form of a grid-stride
// loop: `for (i = blockIdx.x * warpsPerBlock + threadIdx.x / 32; i < n;
// i += gridDim.x * warpsPerBlock)`, each warp owning item i and its lanes
// indexing inside it.
//   row_norms_warp_stride - Euclidean norm of each row of a row-major
//                           matrix with any number of columns: the lanes
//                           stride the row (`for (c = lane; c < ncols;
//                           c += 32)`), xor-shuffle reduction, lane 0 stores.
//   normalize_vec32       - in-place L2 normalisation of 32-float vectors
//                           (one vector per warp, one element per lane:
//                           v[32 * i + lane]).
//   scale_rows_warp_stride - a warp-stride loop over rows nested with a
//                           lane-stride loop over the columns, the row's
//                           scale read once by lane 0 and broadcast.
// Analyses targeted: the outer loop's trip count depends only on
// warp-uniform values (uniform), the inner lane-stride loop splits warps
// when ncols is not a multiple of 32; coalescing of v[32 * i + lane].
// Annotations: a trailing @branch comment gives the true warp-level
// verdict (uniform or divergent) of the branch on its line for a 1-D block
// of 256 threads (any multiple of 32 gives the same); a trailing @sectors
// comment the 32-byte sectors one full warp's request on that line touches
// (4-byte floats, 256-byte-aligned arrays).  Fully unrolled loops have no
// branch and no @branch comment.

extern "C" __global__ void row_norms_warp_stride(const float* __restrict__ A,
                                                 float* __restrict__ norms, unsigned nrows,
                                                 unsigned ncols) {
  const unsigned warpsPerBlock = blockDim.x / 32;
  const unsigned lane = threadIdx.x % 32;
  for (unsigned i = blockIdx.x * warpsPerBlock + threadIdx.x / 32; i < nrows; i += gridDim.x * warpsPerBlock) {  // @branch uniform
    const float* row = A + (size_t)i * ncols;
    float ss = 0.0f;
    for (unsigned c = lane; c < ncols; c += 32) {  // @branch divergent
      const float a = row[c];
      ss += a * a;
    }
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) ss += __shfl_xor_sync(0xffffffffu, ss, off);
    if (lane == 0) norms[i] = sqrtf(ss);  // @branch divergent
  }
}

extern "C" __global__ void normalize_vec32(float* __restrict__ v, unsigned nvec, float eps) {
  const unsigned warpsPerBlock = blockDim.x / 32;
  const unsigned lane = threadIdx.x % 32;
  for (unsigned i = blockIdx.x * warpsPerBlock + threadIdx.x / 32; i < nvec; i += gridDim.x * warpsPerBlock) {  // @branch uniform
    const float x = v[32 * i + lane];  // @sectors 4
    float ss = x * x;
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) ss += __shfl_xor_sync(0xffffffffu, ss, off);
    v[32 * i + lane] = x * rsqrtf(ss + eps);  // @sectors 4
  }
}

extern "C" __global__ void scale_rows_warp_stride(float* __restrict__ A, const float* __restrict__ scale,
                                                  unsigned nrows, unsigned ncols, unsigned ld) {
  const unsigned warpsPerBlock = blockDim.x / 32;
  const unsigned lane = threadIdx.x % 32;
  for (unsigned r = blockIdx.x * warpsPerBlock + threadIdx.x / 32; r < nrows; r += gridDim.x * warpsPerBlock) {  // @branch uniform
    float s = 0.0f;
    if (lane == 0) s = scale[r];  // @branch divergent
    s = __shfl_sync(0xffffffffu, s, 0);
    float* row = A + (size_t)r * ld;
    for (unsigned c = lane; c < ncols; c += 32)  // @branch divergent
      row[c] *= s;
  }
}

// ---- host code ----------------------------------------------------------------
// Launches every kernel of this file with the block shapes the emulator tests
// (tests/test_emu_corpus_*.c) run it with; `ptxray launches` reads them.
#define WARP_STRIDE_1_THREADS 128
#define WARP_STRIDE_2_THREADS 64
#define WARP_STRIDE_3_THREADS 96
void launch_warp_stride() {
  {
    const float *__restrict__ p0 = nullptr;
    float *__restrict__ p1 = nullptr;
    unsigned int p2{};
    unsigned int p3{};
    row_norms_warp_stride<<<2, WARP_STRIDE_1_THREADS>>>(p0, p1, p2, p3);
  }
  {
    float *__restrict__ p0 = nullptr;
    unsigned int p1{};
    float p2{};
    normalize_vec32<<<2, WARP_STRIDE_2_THREADS>>>(p0, p1, p2);
  }
  {
    float *__restrict__ p0 = nullptr;
    const float *__restrict__ p1 = nullptr;
    unsigned int p2{};
    unsigned int p3{};
    unsigned int p4{};
    scale_rows_warp_stride<<<2, WARP_STRIDE_3_THREADS>>>(p0, p1, p2, p3, p4);
  }
}
