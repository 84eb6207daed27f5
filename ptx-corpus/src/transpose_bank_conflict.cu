// transpose_bank_conflict.cu
//
// Exercises: the same tiled transpose as transpose_tiled.cu but WITHOUT
// padding (tile[32][32]).  Reading tile[threadIdx.x][k] makes the 32 lanes
// of a warp hit addresses 128 bytes apart => 32-way shared bank conflict.
// Also contains a square-only variant with the tile index computed through
// a multiply by a runtime pitch to defeat trivial pattern matching.
// Analyses targeted: shared-memory bank-conflict detection (stride 32
// words flagged, compare with transpose_tiled_padded).

#define TILE_DIM 32
#define BLOCK_ROWS 8

extern "C" __global__ void transpose_tiled_conflicting(float* __restrict__ out,
                                                       const float* __restrict__ in,
                                                       int width, int height) {
  __shared__ float tile[TILE_DIM][TILE_DIM];

  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < width && (y + j) < height)
      tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
  __syncthreads();

  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < height && (y + j) < width)
      out[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

// Flat shared buffer, pitch passed at runtime (pitch == 32 conflicts,
// pitch == 33 does not): the analysis cannot decide statically.
extern "C" __global__ void transpose_square_runtime_pitch(float* out, const float* in,
                                                          int n, int pitch) {
  __shared__ float buf[TILE_DIM * (TILE_DIM + 1)];
  int tx = threadIdx.x, ty = threadIdx.y;
  int bx = blockIdx.x * TILE_DIM, by = blockIdx.y * TILE_DIM;
  for (int j = ty; j < TILE_DIM; j += BLOCK_ROWS)
    buf[j * pitch + tx] = in[(by + j) * n + bx + tx];
  __syncthreads();
  for (int j = ty; j < TILE_DIM; j += BLOCK_ROWS)
    out[(bx + j) * n + by + tx] = buf[tx * pitch + j];
}

// ---- host code ----------------------------------------------------------------
// Launches every kernel of this file with the block shapes the emulator tests
// (tests/test_emu_corpus_*.c) run it with; `ptxray launches` reads them.
constexpr dim3 kTransposeBankConflictBlock1(32, 8);
constexpr dim3 kTransposeBankConflictBlock2(32, 8);
void launch_transpose_bank_conflict() {
  {
    float *__restrict__ p0 = nullptr;
    const float *__restrict__ p1 = nullptr;
    int p2{};
    int p3{};
    transpose_tiled_conflicting<<<dim3(3, 2), kTransposeBankConflictBlock1>>>(p0, p1, p2, p3);
  }
  {
    float * p0 = nullptr;
    const float * p1 = nullptr;
    int p2{};
    int p3{};
    transpose_square_runtime_pitch<<<dim3(2, 2), kTransposeBankConflictBlock2>>>(p0, p1, p2, p3);
  }
}
