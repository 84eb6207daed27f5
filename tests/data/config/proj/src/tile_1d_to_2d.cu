// tile_1d_to_2d.cu
//
// Exercises: a 1-D block of 256 threads used as a 16x16 tile:
// `tx = tid % 16`, `ty = tid / 16`, so one warp covers two tile rows of 16.
//   tile_copy_1d_block        - B[ty * ldb + tx] = A[ty * lda + tx] for the
//                               block's tile, with the leading dimensions
//                               known only at run time.
//   tile_transpose_smem<PAD>  - transpose through a shared tile
//                               float[16][16 + PAD]: PAD = 0 reads a column
//                               of the tile (bank conflicts), PAD = 1 the
//                               usual +1 padding (a warp covers two tile
//                               columns, so a 2-way conflict remains).
// Analyses targeted: divergence of bounds checks on 2-D coordinates made
// from a 1-D thread index (a warp straddles two rows, so neither the row nor
// the column test is uniform), coalescing of 64-byte row segments with a
// run-time pitch, shared-memory bank conflicts of a 16-wide tile.
// Annotations: a trailing @branch comment gives the true warp-level
// verdict (uniform or divergent) of the branch on its line for a 1-D block
// of 256 threads.

#define TILE 16

// The grid covers the matrix with 16x16 tiles: (ceil(cols / 16), ceil(rows / 16)).
extern "C" __global__ void __launch_bounds__(256)
    tile_copy_1d_block(const float* __restrict__ A, float* __restrict__ B, int rows, int cols,
                       int lda, int ldb) {
  const int tx = threadIdx.x % TILE;
  const int ty = threadIdx.x / TILE;
  const int r0 = blockIdx.y * TILE, c0 = blockIdx.x * TILE;
  const float* a = A + (size_t)r0 * lda + c0;
  float* b = B + (size_t)r0 * ldb + c0;
  if (r0 + ty < rows && c0 + tx < cols)  // @branch divergent
    b[ty * ldb + tx] = a[ty * lda + tx];
}

// B (cols x rows) = transpose of A (rows x cols), both row-major and dense.
template <int PAD>
__global__ void __launch_bounds__(256)
    tile_transpose_smem(const float* __restrict__ A, float* __restrict__ B, int rows, int cols) {
  __shared__ float tile[TILE][TILE + PAD];
  const int tx = threadIdx.x % TILE;
  const int ty = threadIdx.x / TILE;
  int r = blockIdx.y * TILE + ty;
  int c = blockIdx.x * TILE + tx;
  if (r < rows && c < cols)  // @branch divergent
    tile[ty][tx] = A[(size_t)r * cols + c];
  __syncthreads();
  r = blockIdx.x * TILE + ty;  // row of B = column of A
  c = blockIdx.y * TILE + tx;
  if (r < cols && c < rows)  // @branch divergent
    B[(size_t)r * rows + c] = tile[tx][ty];
}

template __global__ void tile_transpose_smem<0>(const float*, float*, int, int);
template __global__ void tile_transpose_smem<1>(const float*, float*, int, int);

// ---- host code ----------------------------------------------------------------
// Launches every kernel of this file with the block shapes the emulator tests
// (tests/test_emu_corpus_*.c) run it with; `ptxray launches` reads them.
#define TILE_1D_TO_2D_1_THREADS 256
#define TILE_1D_TO_2D_2_THREADS 256
#define TILE_1D_TO_2D_3_THREADS 256
void launch_tile_1d_to_2d() {
  {
    const float *__restrict__ p0 = nullptr;
    float *__restrict__ p1 = nullptr;
    int p2{};
    int p3{};
    int p4{};
    int p5{};
    tile_copy_1d_block<<<dim3(3, 3), TILE_1D_TO_2D_1_THREADS>>>(p0, p1, p2, p3, p4, p5);
  }
  {
    float const* p0 = nullptr;
    float* p1 = nullptr;
    int p2{};
    int p3{};
    tile_transpose_smem<0><<<dim3(3, 3), TILE_1D_TO_2D_2_THREADS>>>(p0, p1, p2, p3);
  }
  {
    float const* p0 = nullptr;
    float* p1 = nullptr;
    int p2{};
    int p3{};
    tile_transpose_smem<1><<<dim3(3, 3), TILE_1D_TO_2D_3_THREADS>>>(p0, p1, p2, p3);
  }
}
