// local_arrays.cu
//
// Exercises: per-thread arrays that must live in .local memory because
// they are indexed with runtime (thread-dependent) subscripts: a small
// insertion sort on a 32-element private array, a private histogram
// indexed by data, and a stack-based iterative tree traversal (explicit
// stack array + stack pointer).  PTX shows `.local .align 4 .b8
// __local_depot0[...]`, %SP/%SPL, cvta.local and ld.local/st.local.
// Analyses targeted: local memory detection, stack frame size, address
// space inference (generic pointer derived from cvta.local).

extern "C" __global__ void private_sort32(const float* in, float* out, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  float a[32];
  for (int k = 0; k < 32; ++k) a[k] = in[t * 32 + k];
  for (int k = 1; k < 32; ++k) {
    float key = a[k];
    int j = k - 1;
    while (j >= 0 && a[j] > key) {
      a[j + 1] = a[j];
      --j;
    }
    a[j + 1] = key;
  }
  out[t] = a[15] * 0.5f + a[16] * 0.5f;  // median
}

extern "C" __global__ void private_histogram(const unsigned char* in, int len, int* modes,
                                             int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  int h[64];
  for (int k = 0; k < 64; ++k) h[k] = 0;
  for (int k = 0; k < len; ++k) h[in[t * len + k] & 63]++;
  int best = 0;
  // Not unrolled: the fully unrolled argmax made NVVM (CUDA 13.0) vectorise
  // the local loads with a `.pragma "used_bytes_mask"` and, intermittently,
  // produce two different PTX outputs for the same input.
#pragma unroll 1
  for (int k = 1; k < 64; ++k)
    if (h[k] > h[best]) best = k;
  modes[t] = best;
}

struct Node {
  float lo, hi;
  int left, right;  // -1 = leaf
  int payload;
};

// Interval-tree stabbing query using an explicit traversal stack.
extern "C" __global__ void tree_stab_query(const Node* nodes, const float* queries, int* hits,
                                           int nq) {
  int q = blockIdx.x * blockDim.x + threadIdx.x;
  if (q >= nq) return;
  float x = queries[q];
  int stack[48];
  int sp = 0;
  int count = 0;
  stack[sp++] = 0;
  while (sp > 0) {
    int ni = stack[--sp];
    Node nd = nodes[ni];
    if (x < nd.lo || x > nd.hi) continue;
    if (nd.left < 0) {
      count += nd.payload;
      continue;
    }
    if (sp < 46) {
      stack[sp++] = nd.left;
      stack[sp++] = nd.right;
    }
  }
  hits[q] = count;
}

// ---- host code ----------------------------------------------------------------
// Launches every kernel of this file with the block shapes the emulator tests
// (tests/test_emu_corpus_*.c) run it with; `ptxray launches` reads them.
void launch_local_arrays() {
  {
    const float * p0 = nullptr;
    float * p1 = nullptr;
    int p2{};
    int threads = 32;
    private_sort32<<<2, threads>>>(p0, p1, p2);
  }
  {
    const unsigned char * p0 = nullptr;
    int p1{};
    int * p2 = nullptr;
    int p3{};
    int threads = 32;
    private_histogram<<<2, threads>>>(p0, p1, p2, p3);
  }
  {
    const Node * p0 = nullptr;
    const float * p1 = nullptr;
    int * p2 = nullptr;
    int p3{};
    int threads = 32;
    tree_stab_query<<<2, threads>>>(p0, p1, p2, p3);
  }
}
