// scan_block.cu
//
// Exercises: block-wide prefix sums.
//   scan_hillis_steele - inclusive scan with double buffering in shared
//                        memory (ping-pong index), barrier every step.
//   scan_blelloch      - work-efficient exclusive scan: up-sweep and
//                        down-sweep with a bank-conflict-avoiding offset
//                        macro, uses dynamic shared memory.
// Analyses targeted: barriers inside loops, divergence of `tid >= offset`
// and `tid < d`, shared-memory index arithmetic (shifts), dynamic shared.

#define LOG_NUM_BANKS 5
#define CONFLICT_FREE_OFFSET(n) ((n) >> LOG_NUM_BANKS)

extern "C" __global__ void scan_hillis_steele(const float* in, float* out, int n) {
  __shared__ float temp[2][1024];
  int tid = threadIdx.x;
  int pout = 0, pin = 1;
  temp[pout][tid] = (tid < n) ? in[blockIdx.x * blockDim.x + tid] : 0.0f;
  __syncthreads();
  for (int offset = 1; offset < blockDim.x; offset *= 2) {
    pout = 1 - pout;
    pin = 1 - pout;
    if (tid >= offset)
      temp[pout][tid] = temp[pin][tid] + temp[pin][tid - offset];
    else
      temp[pout][tid] = temp[pin][tid];
    __syncthreads();
  }
  if (tid < n) out[blockIdx.x * blockDim.x + tid] = temp[pout][tid];
}

// n elements per block (n = 2 * blockDim.x), exclusive.
extern "C" __global__ void scan_blelloch(const int* g_in, int* g_out, int* block_sums, int n) {
  extern __shared__ int temp[];
  int thid = threadIdx.x;
  int base = blockIdx.x * n;
  int ai = thid, bi = thid + n / 2;
  int bankOffsetA = CONFLICT_FREE_OFFSET(ai);
  int bankOffsetB = CONFLICT_FREE_OFFSET(bi);
  temp[ai + bankOffsetA] = g_in[base + ai];
  temp[bi + bankOffsetB] = g_in[base + bi];
  int offset = 1;
  for (int d = n >> 1; d > 0; d >>= 1) {
    __syncthreads();
    if (thid < d) {
      int a = offset * (2 * thid + 1) - 1;
      int b = offset * (2 * thid + 2) - 1;
      a += CONFLICT_FREE_OFFSET(a);
      b += CONFLICT_FREE_OFFSET(b);
      temp[b] += temp[a];
    }
    offset *= 2;
  }
  if (thid == 0) {
    int last = n - 1 + CONFLICT_FREE_OFFSET(n - 1);
    if (block_sums) block_sums[blockIdx.x] = temp[last];
    temp[last] = 0;
  }
  for (int d = 1; d < n; d *= 2) {
    offset >>= 1;
    __syncthreads();
    if (thid < d) {
      int a = offset * (2 * thid + 1) - 1;
      int b = offset * (2 * thid + 2) - 1;
      a += CONFLICT_FREE_OFFSET(a);
      b += CONFLICT_FREE_OFFSET(b);
      int t = temp[a];
      temp[a] = temp[b];
      temp[b] += t;
    }
  }
  __syncthreads();
  g_out[base + ai] = temp[ai + bankOffsetA];
  g_out[base + bi] = temp[bi + bankOffsetB];
}

// Adds the scanned block sums back (second pass of a multi-block scan).
extern "C" __global__ void scan_add_block_sums(int* data, const int* scanned_sums, int n) {
  int i = blockIdx.x * blockDim.x * 2 + threadIdx.x;
  int add = scanned_sums[blockIdx.x];
  if (i < n) data[i] += add;
  if (i + blockDim.x < n) data[i + blockDim.x] += add;
}

// ---- host code ----------------------------------------------------------------
// Launches every kernel of this file with the block shapes the emulator tests
// (tests/test_emu_corpus_*.c) run it with; `ptxray launches` reads them.
#define SCAN_BLOCK_1_THREADS 256
#define SCAN_BLOCK_2_THREADS 128
#define SCAN_BLOCK_3_THREADS 128
void launch_scan_block() {
  {
    const float * p0 = nullptr;
    float * p1 = nullptr;
    int p2{};
    scan_hillis_steele<<<2, SCAN_BLOCK_1_THREADS>>>(p0, p1, p2);
  }
  {
    const int * p0 = nullptr;
    int * p1 = nullptr;
    int * p2 = nullptr;
    int p3{};
    scan_blelloch<<<3, SCAN_BLOCK_2_THREADS>>>(p0, p1, p2, p3);
  }
  {
    int * p0 = nullptr;
    const int * p1 = nullptr;
    int p2{};
    scan_add_block_sums<<<3, SCAN_BLOCK_3_THREADS>>>(p0, p1, p2);
  }
}
