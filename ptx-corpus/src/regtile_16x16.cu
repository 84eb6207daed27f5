// regtile_16x16.cu
//
// Exercises: extreme register pressure.  Each thread accumulates a fully
// unrolled 16x16 register tile of C (256 live f32 accumulators) across a
// runtime K loop, with 16 A values and 16 B values live per k step
// (=> several hundred virtual %f registers in PTX, spills when ptxas
// allocates).  The output loop is also fully unrolled (256 stores).
// A second kernel keeps 64 long-lived double accumulators.
// Analyses targeted: register-pressure / liveness analysis, very large
// basic blocks, max-live computation, unrolled-loop handling.

#define RT 16

extern "C" __global__ void sgemm_regtile_16x16(const float* __restrict__ A,
                                               const float* __restrict__ B,
                                               float* __restrict__ C, int M, int N, int K) {
  float acc[RT][RT];
#pragma unroll
  for (int i = 0; i < RT; ++i)
#pragma unroll
    for (int j = 0; j < RT; ++j) acc[i][j] = 0.0f;

  int row0 = (blockIdx.y * blockDim.y + threadIdx.y) * RT;
  int col0 = (blockIdx.x * blockDim.x + threadIdx.x) * RT;
  if (row0 >= M || col0 >= N) return;

  for (int k = 0; k < K; ++k) {
    float a[RT], b[RT];
#pragma unroll
    for (int i = 0; i < RT; ++i) a[i] = A[(size_t)(row0 + i) * K + k];
#pragma unroll
    for (int j = 0; j < RT; ++j) b[j] = B[(size_t)k * N + col0 + j];
#pragma unroll
    for (int i = 0; i < RT; ++i)
#pragma unroll
      for (int j = 0; j < RT; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
  }

#pragma unroll
  for (int i = 0; i < RT; ++i)
#pragma unroll
    for (int j = 0; j < RT; ++j) C[(size_t)(row0 + i) * N + col0 + j] = acc[i][j];
}

// 64 double accumulators updated with a polynomial recurrence; every value
// stays live across the whole loop.
extern "C" __global__ void dpoly_bank_64(const double* __restrict__ x, double* __restrict__ out,
                                         int steps) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  double v[64];
  double base = x[t];
#pragma unroll
  for (int i = 0; i < 64; ++i) v[i] = base * (i + 1);
  for (int s = 0; s < steps; ++s) {
#pragma unroll
    for (int i = 0; i < 64; ++i) v[i] = v[i] * 0.999 + v[(i + 1) & 63] * 0.001 + s;
  }
  double r = 0.0;
#pragma unroll
  for (int i = 0; i < 64; ++i) r += v[i] * (i & 1 ? -1.0 : 1.0);
  out[t] = r;
}

// ---- host code ----------------------------------------------------------------
// Launches every kernel of this file with the block shapes the emulator tests
// (tests/test_emu_corpus_*.c) run it with; `ptxray launches` reads them.
#define REGTILE_16X16_1_BLOCK_X 3
#define REGTILE_16X16_1_BLOCK_Y 2
#define REGTILE_16X16_2_THREADS 32
void launch_regtile_16x16() {
  {
    const float *__restrict__ p0 = nullptr;
    const float *__restrict__ p1 = nullptr;
    float *__restrict__ p2 = nullptr;
    int p3{};
    int p4{};
    int p5{};
    dim3 block(REGTILE_16X16_1_BLOCK_X, REGTILE_16X16_1_BLOCK_Y);
    sgemm_regtile_16x16<<<1, block>>>(p0, p1, p2, p3, p4, p5);
  }
  {
    const double *__restrict__ p0 = nullptr;
    double *__restrict__ p1 = nullptr;
    int p2{};
    dpoly_bank_64<<<2, REGTILE_16X16_2_THREADS>>>(p0, p1, p2);
  }
}
