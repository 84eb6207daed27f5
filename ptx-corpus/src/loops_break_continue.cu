// loops_break_continue.cu
//
// Exercises: irregular loop structures: nested loops with break and
// continue, a do-while, an early-exit search loop (two exits: found /
// exhausted), a labelled goto out of a nested loop, an infinite for(;;)
// with conditional break, and a loop with a non-constant step.  Most
// loops have data-dependent (divergent) exits.
// Analyses targeted: natural loop detection with multiple exits and
// multiple latches, irreducible-free but complex CFGs, divergent loop
// exits, induction-variable recognition.

extern "C" __global__ void find_first_match(const int* hay, int hay_len, const int* needles,
                                            int* pos, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int needle = needles[i];
  int found = -1;
  for (int k = 0; k < hay_len; ++k) {
    int h = hay[k];
    if (h < 0) continue;    // skip tombstones
    if (h == needle) {
      found = k;
      break;
    }
  }
  pos[i] = found;
}

extern "C" __global__ void matrix_find_goto(const float* m, int rows, int cols, float thr,
                                            int* where) {
  int b = blockIdx.x * blockDim.x + threadIdx.x;
  const float* mat = m + (size_t)b * rows * cols;
  int r = 0, c = 0;
  for (r = 0; r < rows; ++r) {
    for (c = 0; c < cols; ++c) {
      float v = mat[r * cols + c];
      if (v != v) continue;  // NaN
      if (v > thr) goto found;
    }
  }
  where[b] = -1;
  return;
found:
  where[b] = r * cols + c;
}

extern "C" __global__ void gcd_dowhile(const unsigned* a, const unsigned* b, unsigned* g, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned x = a[i], y = b[i];
  if (y == 0) { g[i] = x; return; }
  do {
    unsigned t = x % y;
    x = y;
    y = t;
  } while (y != 0);
  g[i] = x;
}

extern "C" __global__ void newton_sqrt_forever(const float* in, float* out, int* iters, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float a = in[i];
  if (a <= 0.0f) { out[i] = 0.0f; iters[i] = 0; return; }
  float x = a;
  int it = 0;
  for (;;) {
    float nx = 0.5f * (x + a / x);
    ++it;
    if (fabsf(nx - x) < 1e-6f * nx || it >= 64) { x = nx; break; }
    x = nx;
  }
  out[i] = x;
  iters[i] = it;
}

extern "C" __global__ void variable_step(int* data, int n, const int* steps) {
  int t = threadIdx.x;
  int step = steps[blockIdx.x] + 1;
  for (int k = t; k < n; k += step * blockDim.x) {
    if (data[k] == 0) continue;
    data[k] = data[k] * 2 + k;
    if (data[k] > 1 << 20) break;
  }
}

// ---- host code ----------------------------------------------------------------
// Launches every kernel of this file with the block shapes the emulator tests
// (tests/test_emu_corpus_*.c) run it with; `ptxray launches` reads them.
#define LOOPS_BREAK_CONTINUE_1_THREADS 32
#define LOOPS_BREAK_CONTINUE_2_THREADS 32
#define LOOPS_BREAK_CONTINUE_3_THREADS 32
#define LOOPS_BREAK_CONTINUE_4_THREADS 32
#define LOOPS_BREAK_CONTINUE_5_THREADS 32
void launch_loops_break_continue() {
  {
    const int * p0 = nullptr;
    int p1{};
    const int * p2 = nullptr;
    int * p3 = nullptr;
    int p4{};
    find_first_match<<<3, LOOPS_BREAK_CONTINUE_1_THREADS>>>(p0, p1, p2, p3, p4);
  }
  {
    const float * p0 = nullptr;
    int p1{};
    int p2{};
    float p3{};
    int * p4 = nullptr;
    matrix_find_goto<<<2, LOOPS_BREAK_CONTINUE_2_THREADS>>>(p0, p1, p2, p3, p4);
  }
  {
    const unsigned int * p0 = nullptr;
    const unsigned int * p1 = nullptr;
    unsigned int * p2 = nullptr;
    int p3{};
    gcd_dowhile<<<3, LOOPS_BREAK_CONTINUE_3_THREADS>>>(p0, p1, p2, p3);
  }
  {
    const float * p0 = nullptr;
    float * p1 = nullptr;
    int * p2 = nullptr;
    int p3{};
    newton_sqrt_forever<<<3, LOOPS_BREAK_CONTINUE_4_THREADS>>>(p0, p1, p2, p3);
  }
  {
    int * p0 = nullptr;
    int p1{};
    const int * p2 = nullptr;
    variable_step<<<1, LOOPS_BREAK_CONTINUE_5_THREADS>>>(p0, p1, p2);
  }
}
