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
