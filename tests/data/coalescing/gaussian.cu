// The Fan2 kernel of Rodinia's gaussian elimination as GPUDrano (Alur et
// al. 2017) discusses it: Fig. 2a (one row per thread: A[xy] and M[xt]
// are N elements apart from lane to lane) and Fig. 2b (one column per
// thread: every index is tid + c).  Fan2_rodinia is the benchmark's own 2-D
// version, whose rows follow tid.x and columns tid.y.
extern "C" __global__ void Fan2(float* M, float* A, float* B, int N, int t) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid + t + 1 >= N) return;
  int x = tid + t + 1;
  for (int y = t; y < N; y++) {
    int xt = N * x + t;
    int xy = N * x + y;
    int ty = N * t + y;
    A[xy] -= M[xt] * A[ty];
    if (y == t)
      B[x] -= M[xt] * B[t];
  }
}

extern "C" __global__ void Fan2_fixed(float* M, float* A, float* B, int N, int t) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid + t >= N) return;
  int y = tid + t;
  for (int x = t + 1; x < N; x++) {
    int xt = N * x + t;
    int xy = N * x + y;
    int ty = N * t + y;
    A[xy] -= M[xt] * A[ty];
    if (y == t)
      B[x] -= M[xt] * B[t];
  }
}

extern "C" __global__ void Fan2_rodinia(float* m_cuda, float* a_cuda, float* b_cuda, int Size, int j1, int t) {
  if (threadIdx.x + blockIdx.x * blockDim.x >= Size - 1 - t) return;
  if (threadIdx.y + blockIdx.y * blockDim.y >= Size - t) return;
  int xidx = blockIdx.x * blockDim.x + threadIdx.x;
  int yidx = blockIdx.y * blockDim.y + threadIdx.y;
  a_cuda[Size * (xidx + 1 + t) + (yidx + t)] -= m_cuda[Size * (xidx + 1 + t) + t] * a_cuda[Size * t + (yidx + t)];
  if (yidx == 0)
    b_cuda[xidx + 1 + t] -= m_cuda[Size * (xidx + 1 + t) + (yidx + t)] * b_cuda[t];
}
