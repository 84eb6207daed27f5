// bitonic_sort_shared.cu
//
// Exercises: in-block bitonic sort of 1024 key/value pairs in shared
// memory: doubly nested loops (k, j) with a barrier in the inner loop,
// XOR partner indexing (ixj = tid ^ j), data-dependent swaps (divergent
// but short), direction chosen by (tid & k).  Also a warp-level bitonic
// sort using __shfl_xor_sync only (no shared memory).
// Analyses targeted: barriers in nested loops with uniform bounds,
// divergence of the swap branch, XOR-based shared-memory addressing
// (bank-conflict free), shfl.sync.bfly.

#define N_SORT 1024

extern "C" __global__ void bitonic_sort_kv_1024(unsigned* keys, unsigned* vals) {
  __shared__ unsigned sk[N_SORT];
  __shared__ unsigned sv[N_SORT];
  unsigned base = blockIdx.x * N_SORT;
  for (unsigned t = threadIdx.x; t < N_SORT; t += blockDim.x) {
    sk[t] = keys[base + t];
    sv[t] = vals[base + t];
  }
  __syncthreads();
  for (unsigned k = 2; k <= N_SORT; k <<= 1) {
    for (unsigned j = k >> 1; j > 0; j >>= 1) {
      for (unsigned t = threadIdx.x; t < N_SORT; t += blockDim.x) {
        unsigned ixj = t ^ j;
        if (ixj > t) {
          bool up = (t & k) == 0;
          unsigned a = sk[t], b = sk[ixj];
          if ((a > b) == up) {
            sk[t] = b; sk[ixj] = a;
            unsigned va = sv[t]; sv[t] = sv[ixj]; sv[ixj] = va;
          }
        }
      }
      __syncthreads();
    }
  }
  for (unsigned t = threadIdx.x; t < N_SORT; t += blockDim.x) {
    keys[base + t] = sk[t];
    vals[base + t] = sv[t];
  }
}

extern "C" __global__ void bitonic_sort_warp32(float* data) {
  unsigned lane = threadIdx.x & 31;
  float v = data[blockIdx.x * blockDim.x + threadIdx.x];
#pragma unroll
  for (unsigned k = 2; k <= 32; k <<= 1) {
#pragma unroll
    for (unsigned j = k >> 1; j > 0; j >>= 1) {
      float o = __shfl_xor_sync(0xffffffffu, v, j);
      bool lower = (lane & j) == 0;
      bool up = (lane & k) == 0;
      v = (lower == up) ? fminf(v, o) : fmaxf(v, o);
    }
  }
  data[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

// ---- host code ----------------------------------------------------------------
// Launches every kernel of this file with the block shapes the emulator tests
// (tests/test_emu_corpus_*.c) run it with; `ptxray launches` reads them.
void launch_bitonic_sort_shared() {
  {
    unsigned int * p0 = nullptr;
    unsigned int * p1 = nullptr;
    int threads = 256;
    bitonic_sort_kv_1024<<<2, threads>>>(p0, p1);
  }
  {
    float * p0 = nullptr;
    int threads = 96;
    bitonic_sort_warp32<<<1, threads>>>(p0);
  }
}
