// warp_vote.cu
//
// Exercises: warp vote and match intrinsics: __ballot_sync
// (vote.sync.ballot.b32), __any_sync / __all_sync (vote.sync.any/all.pred),
// __activemask (activemask.b32), __match_any_sync / __match_all_sync
// (match.any.sync.b32 / match.all.sync.b64, sm_70+), __popc/__ffs/__clz on
// masks, __syncwarp with a partial mask, %laneid / %lanemask_lt via
// inline asm.
// Analyses targeted: vote/match instructions, warp-uniform results
// (ballot results are uniform across the warp), partial masks.

__device__ __forceinline__ unsigned lanemask_lt() {
  unsigned m;
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(m));
  return m;
}

__device__ __forceinline__ unsigned laneid() {
  unsigned l;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(l));
  return l;
}

// Stream compaction with ballot + popc.
extern "C" __global__ void compact_ballot(const int* in, int* out, int* count, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  bool keep = v != 0;
  unsigned mask = __ballot_sync(0xffffffffu, keep);
  int warp_base = 0;
  if (laneid() == 0 && mask) warp_base = atomicAdd(count, __popc(mask));
  warp_base = __shfl_sync(0xffffffffu, warp_base, 0);
  if (keep) out[warp_base + __popc(mask & lanemask_lt())] = v;
}

extern "C" __global__ void vote_any_all(const float* x, int* flags, int n, float thr) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? x[i] : 0.0f;
  int any = __any_sync(0xffffffffu, v > thr);
  int all = __all_sync(0xffffffffu, v > thr);
  unsigned active = __activemask();
  if ((threadIdx.x & 31) == 0) flags[i / 32] = (any ? 1 : 0) | (all ? 2 : 0) | (__ffs(active) << 2);
}

// Group lanes holding equal keys; leader of each group does one atomic.
extern "C" __global__ void match_aggregate(const int* keys, unsigned* counts, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int k = keys[i];
  unsigned active = __activemask();
  unsigned peers = __match_any_sync(active, k);
  int leader = __ffs(peers) - 1;
  if ((int)laneid() == leader) atomicAdd(&counts[k & 1023], __popc(peers));
  __syncwarp(active);
}

extern "C" __global__ void match_all_u64(const unsigned long long* v, int* uniform, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int pred = 0;
  unsigned mask = __match_all_sync(__activemask(), v[i], &pred);
  if ((threadIdx.x & 31) == 0) uniform[i / 32] = pred ? (int)mask : 0;
  if (threadIdx.x & 1) {
    // partial-warp sync of the odd lanes only
    __syncwarp(0xaaaaaaaau);
    uniform[i] += 31 - __clz(mask);
  }
}

// ---- host code ----------------------------------------------------------------
// Launches every kernel of this file with the block shapes the emulator tests
// (tests/test_emu_corpus_*.c) run it with; `ptxray launches` reads them.
constexpr int kWarpVoteThreads1 = 96;
constexpr int kWarpVoteThreads2 = 128;
constexpr int kWarpVoteThreads3 = 128;
constexpr int kWarpVoteThreads4 = 32;
void launch_warp_vote() {
  {
    const int * p0 = nullptr;
    int * p1 = nullptr;
    int * p2 = nullptr;
    int p3{};
    compact_ballot<<<2, kWarpVoteThreads1>>>(p0, p1, p2, p3);
  }
  {
    const float * p0 = nullptr;
    int * p1 = nullptr;
    int p2{};
    float p3{};
    vote_any_all<<<1, kWarpVoteThreads2>>>(p0, p1, p2, p3);
  }
  {
    const int * p0 = nullptr;
    unsigned int * p1 = nullptr;
    int p2{};
    match_aggregate<<<2, kWarpVoteThreads3>>>(p0, p1, p2);
  }
  {
    const unsigned long long * p0 = nullptr;
    int * p1 = nullptr;
    int p2{};
    match_all_u64<<<1, kWarpVoteThreads4>>>(p0, p1, p2);
  }
}
