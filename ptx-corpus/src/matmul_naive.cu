// matmul_naive.cu
//
// Exercises: naive dense matrix multiply C = alpha*A*B + beta*C, one output
// element per thread, inner product loop over K with a runtime trip count.
// A[row*K + k] is a warp-uniform-in-k broadcast (same row for the warp's x
// lanes), B[k*N + col] is coalesced.  fma.rn.f32 chain.
// Analyses targeted: coalescing, loop-carried accumulator, uniform loop
// bound, 2-D thread indexing.

extern "C" __global__ void sgemm_naive(int M, int N, int K, float alpha,
                                       const float* A, const float* B,
                                       float beta, float* C) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
      acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = alpha * acc + beta * C[row * N + col];
  }
}

// Integer variant with a column-major A (uncoalesced along the warp).
extern "C" __global__ void imatmul_naive_colmajorA(int n, const int* A, const int* B, int* C) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  int col = blockIdx.y;
  if (row >= n) return;
  int acc = 0;
  for (int k = 0; k < n; ++k)
    acc += A[k * n + row] * B[k * n + col];
  C[col * n + row] = acc;
}

// ---- host code ----------------------------------------------------------------
// Launches every kernel of this file with the block shapes the emulator tests
// (tests/test_emu_corpus_*.c) run it with; `ptxray launches` reads them.
void launch_matmul_naive() {
  {
    int p0{};
    int p1{};
    int p2{};
    float p3{};
    const float * p4 = nullptr;
    const float * p5 = nullptr;
    float p6{};
    float * p7 = nullptr;
    sgemm_naive<<<dim3(2, 3), dim3(16, 8)>>>(p0, p1, p2, p3, p4, p5, p6, p7);
  }
  {
    int p0{};
    const int * p1 = nullptr;
    const int * p2 = nullptr;
    int * p3 = nullptr;
    int threads = 32;
    imatmul_naive_colmajorA<<<dim3(2, 37), threads>>>(p0, p1, p2, p3);
  }
}
