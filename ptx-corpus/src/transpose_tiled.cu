// transpose_tiled.cu
//
// Exercises: shared-memory tiled transpose with the classic +1 column
// padding (tile[32][33]) to avoid shared-memory bank conflicts.  Both the
// global load and the global store are coalesced; the tile read is
// column-wise in shared memory.  bar.sync between phases, a statically
// sized .shared array, a loop over the 32x8 block covering a 32x32 tile.
// Analyses targeted: coalescing (none flagged), bank-conflict analysis
// (stride 33 => conflict-free), barrier placement / divergence around
// bar.sync.

#define TILE_DIM 32
#define BLOCK_ROWS 8

extern "C" __global__ void transpose_tiled_padded(float* __restrict__ out,
                                                  const float* __restrict__ in,
                                                  int width, int height) {
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];

  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
    if (x < width && (y + j) < height)
      tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
  }
  __syncthreads();

  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
    if (x < height && (y + j) < width)
      out[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
  }
}

// ---- host code ----------------------------------------------------------------
// Launches every kernel of this file with the block shapes the emulator tests
// (tests/test_emu_corpus_*.c) run it with; `ptxray launches` reads them.
#define TRANSPOSE_TILED_1_BLOCK_X 32
#define TRANSPOSE_TILED_1_BLOCK_Y 8
void launch_transpose_tiled() {
  {
    float *__restrict__ p0 = nullptr;
    const float *__restrict__ p1 = nullptr;
    int p2{};
    int p3{};
    dim3 block(TRANSPOSE_TILED_1_BLOCK_X, TRANSPOSE_TILED_1_BLOCK_Y);
    transpose_tiled_padded<<<dim3(3, 2), block>>>(p0, p1, p2, p3);
  }
}
