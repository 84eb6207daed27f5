// warp_shfl_ballot.cu
//
// Exercises: warp shuffle and ballot idioms.
//   compact_warp_aggregated - stream compaction (keep x > threshold) with a
//                             warp-aggregated atomic: __ballot_sync, __popc
//                             of the ballot for the warp's count, lane 0
//                             reserves the slots and broadcasts the base
//                             with __shfl_sync(mask, v, 0), each kept lane
//                             writes at base + __popc(ballot & ((1u << lane)
//                             - 1)).  Warps with nothing to keep skip on the
//                             (warp-uniform) ballot.
//   row_center_warp         - one warp per row: xor-shuffle sum for the row
//                             mean, the row's offset read by lane 0 and
//                             broadcast from lane 0.
//   warp_find_first         - one warp per segment scans 32 elements at a
//                             time; a ballot of the matches decides, for the
//                             whole warp, whether to stop (__ffs of the
//                             ballot is the first match).
// Analyses targeted: shfl.sync idx/bfly, vote.sync.ballot results are
// uniform across the warp (branches on them do not split a warp), popc of
// a lane mask, warp-per-row indexing (uniform exits), divergent
// lane-stride loops.
// Annotations: a trailing @branch comment gives the true warp-level
// verdict (uniform or divergent) of the branch on its line for a 1-D block
// of 256 threads (any multiple of 32 gives the same); a trailing @sectors
// comment the 32-byte sectors one full warp's request on that line touches
// (4-byte elements, 256-byte-aligned arrays).  Fully unrolled loops have no
// branch and no @branch comment.

extern "C" __global__ void compact_warp_aggregated(const float* __restrict__ x,
                                                   float* __restrict__ out,
                                                   unsigned* __restrict__ count, unsigned n,
                                                   float threshold) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned lane = threadIdx.x & 31;
  float v = 0.0f;
  bool keep = false;
  if (i < n) {  // @branch divergent
    v = x[i];  // @sectors 4
    keep = v > threshold;
  }
  const unsigned ballot = __ballot_sync(0xffffffffu, keep);
  if (ballot != 0) {  // @branch uniform
    unsigned base = 0;
    if (lane == 0) base = atomicAdd(count, __popc(ballot));  // @branch divergent
    base = __shfl_sync(0xffffffffu, base, 0);
    if (keep) out[base + __popc(ballot & ((1u << lane) - 1))] = v;  // @branch divergent
  }
}

// out[r][c] = in[r][c] - mean(in[r][:]) + offset[r], row-major, dense.
extern "C" __global__ void row_center_warp(const float* __restrict__ in,
                                           const float* __restrict__ offset,
                                           float* __restrict__ out, unsigned nrows,
                                           unsigned ncols) {
  const unsigned row = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const unsigned lane = threadIdx.x % 32;
  if (row >= nrows) return;  // @branch uniform
  const float* xr = in + (size_t)row * ncols;
  float* yr = out + (size_t)row * ncols;
  float sum = 0.0f;
  for (unsigned c = lane; c < ncols; c += 32) sum += xr[c];  // @branch divergent
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, off);
  float shift = 0.0f;
  if (lane == 0) shift = offset[row];  // @branch divergent
  shift = __shfl_sync(0xffffffffu, shift, 0) - sum / (float)ncols;
  for (unsigned c = lane; c < ncols; c += 32) yr[c] = xr[c] + shift;  // @branch divergent
}

// first[s] = the smallest j with a[s * seglen + j] == key, or -1.
extern "C" __global__ void warp_find_first(const int* __restrict__ a, int* __restrict__ first,
                                           unsigned nseg, unsigned seglen, int key) {
  const unsigned seg = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const unsigned lane = threadIdx.x % 32;
  if (seg >= nseg) return;  // @branch uniform
  const int* s = a + (size_t)seg * seglen;
  int found = -1;
  for (unsigned base = 0; base < seglen; base += 32) {  // @branch uniform
    bool hit = false;
    if (base + lane < seglen) hit = s[base + lane] == key;  // @branch divergent
    const unsigned ballot = __ballot_sync(0xffffffffu, hit);
    if (ballot != 0) {  // @branch uniform
      found = (int)(base + __ffs(ballot) - 1);
      break;
    }
  }
  if (lane == 0) first[seg] = found;  // @branch divergent
}

// ---- host code ----------------------------------------------------------------
// Launches every kernel of this file with the block shapes the emulator tests
// (tests/test_emu_corpus_*.c) run it with; `ptxray launches` reads them.
constexpr int kWarpShflBallotThreads1 = 128;
constexpr int kWarpShflBallotThreads2 = 128;
constexpr int kWarpShflBallotThreads3 = 128;
void launch_warp_shfl_ballot() {
  {
    const float *__restrict__ p0 = nullptr;
    float *__restrict__ p1 = nullptr;
    unsigned int *__restrict__ p2 = nullptr;
    unsigned int p3{};
    float p4{};
    compact_warp_aggregated<<<8, kWarpShflBallotThreads1>>>(p0, p1, p2, p3, p4);
  }
  {
    const float *__restrict__ p0 = nullptr;
    const float *__restrict__ p1 = nullptr;
    float *__restrict__ p2 = nullptr;
    unsigned int p3{};
    unsigned int p4{};
    row_center_warp<<<3, kWarpShflBallotThreads2>>>(p0, p1, p2, p3, p4);
  }
  {
    const int *__restrict__ p0 = nullptr;
    int *__restrict__ p1 = nullptr;
    unsigned int p2{};
    unsigned int p3{};
    int p4{};
    warp_find_first<<<3, kWarpShflBallotThreads3>>>(p0, p1, p2, p3, p4);
  }
}
