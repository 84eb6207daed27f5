// nested_divergence.cu
//
// Exercises: warp-level divergence with nested if/else (lane-parity,
// data-dependent and block-uniform conditions mixed, so some branches are
// uniform and others divergent), early returns inside divergent regions,
// explicit re-convergence with __syncwarp(), a loop whose exit depends on
// per-thread data (divergent loop) containing a uniform inner branch, and
// a ternary chain that becomes selp.
// Analyses targeted: divergence analysis precision (uniform branch inside
// divergent region), post-dominator / reconvergence points, bra.uni vs
// bra, predicated code.

extern "C" __global__ void nested_branches(const int* in, int* out, int n, int mode) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int lane = threadIdx.x & 31;
  int v = in[i];
  int r;
  if (mode == 0) {              // uniform (kernel parameter)
    if (lane < 16) {            // divergent (lane)
      if (v > 0) {              // divergent (data)
        r = v * 2;
      } else if (v < -100) {
        r = -v;
      } else {
        r = 0;
      }
    } else {
      if (blockIdx.x & 1)       // uniform inside divergent region
        r = v + lane;
      else
        r = v - lane;
    }
  } else if (mode == 1) {
    r = (v & 1) ? v * 3 + 1 : v / 2;
  } else {
    r = lane % 3 == 0 ? 100 : lane % 3 == 1 ? 200 : 300;
  }
  __syncwarp();
  out[i] = r;
}

// Collatz steps: divergent loop trip count with a uniform check inside.
extern "C" __global__ void collatz_steps(const unsigned* seeds, int* steps, int n, int cap) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned x = seeds[i];
  int s = 0;
  while (x != 1u) {
    x = (x & 1u) ? 3u * x + 1u : x >> 1;
    ++s;
    if (cap > 0 && s >= cap) break;  // cap is uniform
  }
  steps[i] = s;
}

// Divergent branch containing a warp-synchronous section on a subset mask.
extern "C" __global__ void half_warp_sum(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  float v = i < n ? in[i] : 0.0f;
  if (lane < 16) {
    unsigned mask = 0x0000ffffu;
    for (int o = 8; o > 0; o >>= 1) v += __shfl_down_sync(mask, v, o, 16);
    __syncwarp(mask);
    if (lane == 0) out[i / 32] = v;
  } else {
    if (v < 0.0f) return;  // early exit from divergent region
    out[(n + 31) / 32 + i] = v * v;
  }
}

// ---- host code ----------------------------------------------------------------
// Launches every kernel of this file with the block shapes the emulator tests
// (tests/test_emu_corpus_*.c) run it with; `ptxray launches` reads them.
#include <cstdlib>
void launch_nested_divergence() {
  {
    const int * p0 = nullptr;
    int * p1 = nullptr;
    int p2{};
    int p3{};
    int threads = 64;
    nested_branches<<<3, threads>>>(p0, p1, p2, p3);
  }
  {
    const unsigned int * p0 = nullptr;
    int * p1 = nullptr;
    int p2{};
    int p3{};
    int threads = 64;
    collatz_steps<<<3, threads>>>(p0, p1, p2, p3);
  }
  {
    const unsigned int * p0 = nullptr;
    int * p1 = nullptr;
    int p2{};
    int p3{};
    const char *e = getenv("NESTED_DIVERGENCE_THREADS");
    int threads = e ? atoi(e) : 64;
    collatz_steps<<<3, threads>>>(p0, p1, p2, p3);
  }
  {
    const float * p0 = nullptr;
    float * p1 = nullptr;
    int p2{};
    int threads = 128;
    half_warp_sum<<<1, threads>>>(p0, p1, p2);
  }
}
