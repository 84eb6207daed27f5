// gaussian_fan.cu
//
// Exercises: the Gaussian-elimination kernels of the Rodinia "gaussian"
// benchmark as discussed in GPUDrano (Alur et al., CAV 2017, Fig. 2).
//   Fan1       - computes the multiplier column m[x][t] = a[x][t] / a[t][t];
//                accesses a[N*x+t] are strided by N (uncoalesced).
//   Fan2       - original row-per-thread update (Fig. 2a).  A[N*x+y] and
//                M[N*x+t] have tid-coefficient N => flagged uncoalesced.
//   Fan2_fixed - column-per-thread update (Fig. 2b).  All global indices are
//                tid + c => coalesced.
// Analyses targeted: uncoalesced-access detection (abstract value of index
// as function of tid: 0 / 1 / top), divergence of the y==t branch.
// Written from the paper's description; tid is the global 1-D thread id.

extern "C" __global__ void Fan1(float* m, const float* a, int N, int t) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= N - 1 - t) return;
  int x = tid + t + 1;
  m[N * x + t] = a[N * x + t] / a[N * t + t];
}

// Fig. 2a: each thread updates row x = tid + t + 1.
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

// Fig. 2b: each thread updates column y = tid + t.
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

// ---- host code ----------------------------------------------------------------
// Launches every kernel of this file with the block shapes the emulator tests
// (tests/test_emu_corpus_*.c) run it with; `ptxray launches` reads them.
constexpr int kGaussianFanThreads1 = 32;
constexpr int kGaussianFanThreads2 = 32;
constexpr int kGaussianFanThreads3 = 32;
void launch_gaussian_fan() {
  {
    float * p0 = nullptr;
    const float * p1 = nullptr;
    int p2{};
    int p3{};
    Fan1<<<2, kGaussianFanThreads1>>>(p0, p1, p2, p3);
  }
  {
    float * p0 = nullptr;
    float * p1 = nullptr;
    float * p2 = nullptr;
    int p3{};
    int p4{};
    Fan2<<<2, kGaussianFanThreads2>>>(p0, p1, p2, p3, p4);
  }
  {
    float * p0 = nullptr;
    float * p1 = nullptr;
    float * p2 = nullptr;
    int p3{};
    int p4{};
    Fan2_fixed<<<2, kGaussianFanThreads3>>>(p0, p1, p2, p3, p4);
  }
}
