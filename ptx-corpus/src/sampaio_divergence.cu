// sampaio_divergence.cu
//
// Exercises: the running examples of Sampaio et al., "Divergence Analysis"
// (TOPLAS 2013).  Fig. 1: avgSquare (loop trip count uniform although the
// induction variable is an affine function of Tid: N - i cancels the Tid
// factor, so the affine analysis proves the loop non-divergent) and
// sumTriangle (trip count depends on Tid: d is uniform inside the loop but
// divergent after it; v[d-1] is a divergent store).  Fig. 15: row
// initialisation, where i0 = n*tid and k = (tid+1)*n are only affine with
// degree-2 polynomial tracking (i1, i2 have 0*Tid^2 coefficients).
//
// Analyses targeted: divergence / uniformity analysis, affine analysis,
// loop trip-count uniformity, divergent branch detection (the d % 2 branch).
// T_id in the paper is threadIdx.x (one-dimensional block).

extern "C" __global__ void avgSquare(float* m, float* v, int c) {
  int tid = threadIdx.x;
  if (tid < c) {
    int d = 0;
    float sum = 0.0F;
    int N = tid + c * c;
    for (int i = tid; i < N; i += c) {
      sum += m[i];
      d += 1;
    }
    v[tid] = sum / d;
  }
}

extern "C" __global__ void sumTriangle(float* m, float* v, int c) {
  int tid = threadIdx.x;
  if (tid < c) {
    int d = 0;
    float sum = 0.0F;
    int L = (tid + 1) * c;
    for (int i = tid; i < L; i += c) {
      if (d % 2) {
        sum += m[i];
      }
      d += 1;
    }
    v[d - 1] = sum;
  }
}

// Fig. 15: "void s(int* m, int n)" -- each processing element initialises one
// row of m with ones.  Written as a while loop like the figure.
extern "C" __global__ void s(int* m, int n) {
  int tid = threadIdx.x;
  int i = n * tid, k = (tid + 1) * n;
  while (i < k) {
    m[i] = 1;
    i = i + 1;
  }
}

// ---- host code ----------------------------------------------------------------
// Launches every kernel of this file with the block shapes the emulator tests
// (tests/test_emu_corpus_*.c) run it with; `ptxray launches` reads them.
void launch_sampaio_divergence() {
  {
    float * p0 = nullptr;
    float * p1 = nullptr;
    int p2{};
    int threads = 64;
    avgSquare<<<1, threads>>>(p0, p1, p2);
  }
  {
    float * p0 = nullptr;
    float * p1 = nullptr;
    int p2{};
    int threads = 32;
    sumTriangle<<<1, threads>>>(p0, p1, p2);
  }
  {
    int * p0 = nullptr;
    int p1{};
    int threads = 32;
    s<<<1, threads>>>(p0, p1);
  }
}
