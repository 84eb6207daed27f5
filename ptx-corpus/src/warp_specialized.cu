// warp_specialized.cu
//
// Exercises: Hopper-style warp specialisation with warpgroup roles
// (`wg = threadIdx.x / 128`) in a block of 256 threads:
//   ws_producer_consumer - warpgroup 0 produces, copying tiles of 128 floats
//                          from global memory into a two-stage shared ring;
//                          warpgroup 1 consumes them.  The stages are
//                          handed over with named barriers: inline-asm
//                          `bar.sync id, 256` / `bar.arrive id, 256` (full
//                          and empty barrier per stage), and the consumers
//                          alone meet at `bar.sync 5, 128`.  One lane per
//                          consumer warp, chosen with `elect.sync` (inline
//                          asm, sm_90; lane 0 on sm_75/80), publishes the
//                          warp's partial sum.
// Analyses targeted: barriers with an id and a thread count, bar.arrive
// (arrive without waiting), code regions that only one warpgroup runs,
// elect.sync (one lane), uniform loops inside role branches.
// Annotations: a trailing @branch comment gives the true warp-level
// verdict (uniform or divergent) of the branch on its line for a 1-D block
// of 256 threads.  Fully unrolled loops have no branch and no @branch
// comment.

#define WG_THREADS 128
#define STAGES 2
// named barrier ids: 0 is __syncthreads
#define BAR_FULL 1       // 1, 2: stage s holds data (producers arrive, consumers wait)
#define BAR_EMPTY 3      // 3, 4: stage s may be refilled (consumers arrive, producers wait)
#define BAR_CONSUMERS 5  // the consumer warpgroup alone

__device__ __forceinline__ void named_barrier_sync(unsigned id, unsigned nthreads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(nthreads) : "memory");
}

__device__ __forceinline__ void named_barrier_arrive(unsigned id, unsigned nthreads) {
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(nthreads) : "memory");
}

// True in exactly one lane of the (converged) warp.
__device__ __forceinline__ bool elect_one_sync() {
#if __CUDA_ARCH__ >= 900
  unsigned elected;
  asm volatile(
      "{\n\t"
      ".reg .pred %%px;\n\t"
      "elect.sync _|%%px, 0xffffffff;\n\t"
      "selp.u32 %0, 1, 0, %%px;\n\t"
      "}"
      : "=r"(elected));
  return elected != 0;
#else
  return (threadIdx.x & 31) == 0;
#endif
}

// Block b handles ntiles tiles of 128 floats starting at in + b * ntiles * 128:
// out[i] = max(in[i], 0) * scale, and sums[b] = the sum of the out values.
// blockDim.x must be 256.
extern "C" __global__ void __launch_bounds__(256)
    ws_producer_consumer(const float* __restrict__ in, float* __restrict__ out,
                         float* __restrict__ sums, int ntiles, float scale) {
  __shared__ float ring[STAGES][WG_THREADS];
  __shared__ float warp_part[WG_THREADS / 32];
  const unsigned wg = threadIdx.x / WG_THREADS;
  const unsigned t = threadIdx.x % WG_THREADS;
  const size_t base = (size_t)blockIdx.x * ntiles * WG_THREADS;
  if (wg == 0) {  // @branch uniform
    // producer warpgroup
#pragma unroll 1
    for (int k = 0; k < ntiles; ++k) {  // @branch uniform
      const int s = k % STAGES;
      if (k >= STAGES) named_barrier_sync(BAR_EMPTY + s, 2 * WG_THREADS);  // @branch uniform
      ring[s][t] = in[base + (size_t)k * WG_THREADS + t];  // @sectors 4
      named_barrier_arrive(BAR_FULL + s, 2 * WG_THREADS);
    }
  } else {
    // consumer warpgroup
    float acc = 0.0f;
#pragma unroll 1
    for (int k = 0; k < ntiles; ++k) {  // @branch uniform
      const int s = k % STAGES;
      named_barrier_sync(BAR_FULL + s, 2 * WG_THREADS);
      const float v = fmaxf(ring[s][t], 0.0f) * scale;
      if (k + STAGES < ntiles) named_barrier_arrive(BAR_EMPTY + s, 2 * WG_THREADS);  // @branch uniform
      out[base + (size_t)k * WG_THREADS + t] = v;  // @sectors 4
      acc += v;
    }
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, off);
    if (elect_one_sync()) warp_part[t / 32] = acc;  // @branch divergent
    named_barrier_sync(BAR_CONSUMERS, WG_THREADS);
    if (t == 0)  // @branch divergent
      sums[blockIdx.x] = (warp_part[0] + warp_part[1]) + (warp_part[2] + warp_part[3]);
  }
}

// ---- host code ----------------------------------------------------------------
// Launches every kernel of this file with the block shapes the emulator tests
// (tests/test_emu_corpus_*.c) run it with; `ptxray launches` reads them.
void launch_warp_specialized() {
  {
    const float *__restrict__ p0 = nullptr;
    float *__restrict__ p1 = nullptr;
    float *__restrict__ p2 = nullptr;
    int p3{};
    float p4{};
    int threads = 256;
    ws_producer_consumer<<<3, threads>>>(p0, p1, p2, p3, p4);
  }
}
