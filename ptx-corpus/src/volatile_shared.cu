// volatile_shared.cu
//
// Exercises: `volatile` shared memory in the legacy warp-synchronous
// reduction idiom (last 32 elements reduced without barriers: ld.volatile
// .shared / st.volatile.shared), a volatile global flag polled in a loop
// (ld.volatile.global), and the modern replacement using __syncwarp for
// comparison.
// Analyses targeted: .volatile qualifiers on loads/stores, memory-ordering
// reasoning, intra-warp races without barriers.

__device__ void warp_reduce_volatile(volatile float* s, unsigned tid) {
  s[tid] += s[tid + 32];
  s[tid] += s[tid + 16];
  s[tid] += s[tid + 8];
  s[tid] += s[tid + 4];
  s[tid] += s[tid + 2];
  s[tid] += s[tid + 1];
}

extern "C" __global__ void reduce_volatile_tail(const float* in, float* out, unsigned n) {
  __shared__ float s[256];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * 512 + tid;
  s[tid] = (i < n ? in[i] : 0.f) + (i + 256 < n ? in[i + 256] : 0.f);
  __syncthreads();
  for (unsigned st = 128; st > 32; st >>= 1) {
    if (tid < st) s[tid] += s[tid + st];
    __syncthreads();
  }
  if (tid < 32) warp_reduce_volatile(s, tid);
  if (tid == 0) out[blockIdx.x] = s[0];
}

extern "C" __global__ void reduce_syncwarp_tail(const float* in, float* out, unsigned n) {
  __shared__ float s[256];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * 256 + tid;
  s[tid] = i < n ? in[i] : 0.f;
  __syncthreads();
  for (unsigned st = 128; st > 32; st >>= 1) {
    if (tid < st) s[tid] += s[tid + st];
    __syncthreads();
  }
  if (tid < 32) {
    float v = s[tid] + s[tid + 32];
    for (int off = 16; off > 0; off >>= 1) {
      s[tid] = v;
      __syncwarp();
      v += s[tid + off < 32 ? tid + off : tid];
      __syncwarp();
    }
    if (tid == 0) out[blockIdx.x] = v;
  }
}

// Producer/consumer through a volatile flag in global memory.
extern "C" __global__ void volatile_flag_handoff(volatile int* flag, volatile float* mailbox,
                                                 float* out) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    mailbox[0] = 42.0f;
    __threadfence();
    flag[0] = 1;
  } else if (blockIdx.x == 1 && threadIdx.x == 0) {
    int spins = 0;
    while (flag[0] == 0 && spins < (1 << 20)) ++spins;
    out[0] = mailbox[0];
    out[1] = (float)spins;
  }
}

// ---- host code ----------------------------------------------------------------
// Launches every kernel of this file with the block shapes the emulator tests
// (tests/test_emu_corpus_*.c) run it with; `ptxray launches` reads them.
constexpr int kVolatileSharedThreads1 = 256;
constexpr int kVolatileSharedThreads2 = 256;
constexpr int kVolatileSharedThreads3 = 32;
void launch_volatile_shared() {
  {
    const float * p0 = nullptr;
    float * p1 = nullptr;
    unsigned int p2{};
    reduce_volatile_tail<<<3, kVolatileSharedThreads1>>>(p0, p1, p2);
  }
  {
    const float * p0 = nullptr;
    float * p1 = nullptr;
    unsigned int p2{};
    reduce_syncwarp_tail<<<3, kVolatileSharedThreads2>>>(p0, p1, p2);
  }
  {
    volatile int * p0 = nullptr;
    volatile float * p1 = nullptr;
    float * p2 = nullptr;
    volatile_flag_handoff<<<2, kVolatileSharedThreads3>>>(p0, p1, p2);
  }
}
