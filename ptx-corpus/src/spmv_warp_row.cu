// spmv_warp_row.cu
//
// Exercises: CSR sparse matrix-vector products with one warp per row.
//   spmv_warp_row        - `row = (blockIdx.x * blockDim.x + threadIdx.x) /
//                          32`, `lane = threadIdx.x & 31`; the lanes stride
//                          the row's nonzeros (`for (j = rowStart + lane;
//                          j < rowEnd; j += 32)`), shuffle reduction,
//                          `if (lane == 0) y[row] = sum`.
//   spmv_warp_row_axpby  - y = alpha * A * x + beta * y with a persistent
//                          grid: each warp walks rows with a warp-stride
//                          loop, lane 0 reads the row bounds and
//                          broadcasts them with __shfl_sync.
// Analyses targeted: the row index is uniform per warp (the `row >= nrows`
// exit and the warp-stride loop over rows do not split warps); the nonzero
// loop is divergent (lanes run different numbers of iterations when the
// row length is not a multiple of 32); indirect x[col[j]] gathers.
// Annotations: a trailing @branch comment gives the true warp-level
// verdict (uniform or divergent) of the branch on its line for a 1-D block
// of 256 threads (any multiple of 32 gives the same).  Fully unrolled loops
// have no branch and no @branch comment.

extern "C" __global__ void spmv_warp_row(int nrows, const int* __restrict__ rowptr,
                                         const int* __restrict__ col,
                                         const float* __restrict__ val,
                                         const float* __restrict__ x, float* __restrict__ y) {
  const int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x & 31;
  if (row >= nrows) return;  // @branch uniform
  const int rowStart = rowptr[row];
  const int rowEnd = rowptr[row + 1];
  float sum = 0.0f;
  for (int j = rowStart + lane; j < rowEnd; j += 32)  // @branch divergent
    sum += val[j] * x[col[j]];
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1)
    sum += __shfl_down_sync(0xffffffffu, sum, offset);
  if (lane == 0) y[row] = sum;  // @branch divergent
}

extern "C" __global__ void spmv_warp_row_axpby(int nrows, const int* __restrict__ rowptr,
                                               const int* __restrict__ col,
                                               const float* __restrict__ val,
                                               const float* __restrict__ x, float* __restrict__ y,
                                               float alpha, float beta) {
  const unsigned warpsPerBlock = blockDim.x / 32;
  const unsigned lane = threadIdx.x % 32;
  for (unsigned row = blockIdx.x * warpsPerBlock + threadIdx.x / 32; row < nrows;  // @branch uniform
       row += gridDim.x * warpsPerBlock) {
    int bounds = 0;
    if (lane < 2) bounds = rowptr[row + lane];  // @branch divergent
    const int rowStart = __shfl_sync(0xffffffffu, bounds, 0);
    const int rowEnd = __shfl_sync(0xffffffffu, bounds, 1);
    float sum = 0.0f;
    for (int j = rowStart + (int)lane; j < rowEnd; j += 32)  // @branch divergent
      sum += val[j] * x[col[j]];
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1)
      sum += __shfl_xor_sync(0xffffffffu, sum, offset);
    if (lane == 0) y[row] = alpha * sum + beta * y[row];  // @branch divergent
  }
}

// ---- host code ----------------------------------------------------------------
// Launches every kernel of this file with the block shapes the emulator tests
// (tests/test_emu_corpus_*.c) run it with; `ptxray launches` reads them.
#define SPMV_WARP_ROW_1_THREADS 128
#define SPMV_WARP_ROW_2_THREADS 128
void launch_spmv_warp_row() {
  {
    int p0{};
    const int *__restrict__ p1 = nullptr;
    const int *__restrict__ p2 = nullptr;
    const float *__restrict__ p3 = nullptr;
    const float *__restrict__ p4 = nullptr;
    float *__restrict__ p5 = nullptr;
    spmv_warp_row<<<13, SPMV_WARP_ROW_1_THREADS>>>(p0, p1, p2, p3, p4, p5);
  }
  {
    int p0{};
    const int *__restrict__ p1 = nullptr;
    const int *__restrict__ p2 = nullptr;
    const float *__restrict__ p3 = nullptr;
    const float *__restrict__ p4 = nullptr;
    float *__restrict__ p5 = nullptr;
    float p6{};
    float p7{};
    spmv_warp_row_axpby<<<2, SPMV_WARP_ROW_2_THREADS>>>(p0, p1, p2, p3, p4, p5, p6, p7);
  }
}
