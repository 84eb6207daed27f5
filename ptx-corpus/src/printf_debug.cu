// printf_debug.cu
//
// Exercises: device-side printf => `vprintf` extern .func declaration, a
// .global .b8 string constant array ($str), a local-memory argument buffer
// (depot) filled with st.local of mixed types (int, double promoted from
// float, 64-bit pointer, char*), call.uni vprintf.  printf inside a
// divergent condition and inside a loop.
// Analyses targeted: extern function declarations, string globals,
// .local stack frames, calls inside divergent regions.

#include <cstdio>

extern "C" __global__ void printf_hello(const float* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0) printf("kernel launched with %d blocks of %d threads\n", gridDim.x, blockDim.x);
  if (i < n && data[i] < 0.0f)
    printf("thread %d (block %d): negative value %f at %p\n", threadIdx.x, blockIdx.x,
           (double)data[i], (const void*)&data[i]);
}

extern "C" __global__ void printf_loop(const int* v, int n) {
  if (threadIdx.x != 0) return;
  for (int i = 0; i < n; ++i) {
    if (v[i] == 0) continue;
    printf("[%s] v[%d] = %d (0x%08x), sum-of-digits %lld\n", "dbg", i, v[i], v[i],
           (long long)(v[i] % 9));
  }
}

// ---- host code ----------------------------------------------------------------
// Launches every kernel of this file with the block shapes the emulator tests
// (tests/test_emu_corpus_*.c) run it with; `ptxray launches` reads them.
#define PRINTF_DEBUG_1_THREADS 32
#define PRINTF_DEBUG_2_THREADS 32
void launch_printf_debug() {
  {
    const float * p0 = nullptr;
    int p1{};
    printf_hello<<<1, PRINTF_DEBUG_1_THREADS>>>(p0, p1);
  }
  {
    const int * p0 = nullptr;
    int p1{};
    printf_loop<<<1, PRINTF_DEBUG_2_THREADS>>>(p0, p1);
  }
}
