// device_globals_init.cu
//
// Exercises: __device__ global variables with initialisers in PTX:
//   - scalars of several types (.u32, .f64, .u8 bool), arrays of ints and
//     floats, a 2-D array, a char string;
//   - pointers to other globals (`.u64 p = generic(g_table)` and
//     `generic(g_table)+16` with offsets), an array of pointers;
//   - a struct with mixed members (emitted as .b8 array with byte init);
//   - .visible vs internal (static => no .visible) and a zero-initialised
//     global; a global counter updated with atomics.
// Analyses targeted: global initialiser parsing (generic(), offsets, .b8
// aggregates), symbol resolution, address-of-global constants.

struct Config {
  int version;
  float gain;
  double offset;
  char tag[8];
  short flags[3];
};

__device__ int g_table[8] = {1, 1, 2, 3, 5, 8, 13, 21};
__device__ float g_weights[2][4] = {{0.1f, 0.2f, 0.3f, 0.4f}, {-1.f, -2.f, -3.f, -4.f}};
__device__ double g_pi = 3.14159265358979323846;
__device__ unsigned int g_seed = 0xdeadbeefu;
__device__ bool g_enabled = true;
__device__ char g_name[] = "ptxray";
__device__ int* g_table_ptr = g_table;
__device__ int* g_table_mid = &g_table[4];
__device__ float* g_rows[2] = {g_weights[0], g_weights[1]};
__device__ Config g_config = {3, 1.5f, -0.25, "corpus", {1, 2, 3}};
__device__ unsigned long long g_counter;  // zero-initialised
static __device__ int s_private_state[4] = {7, 7, 7, 7};

extern "C" __global__ void use_device_globals(float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n || !g_enabled) return;
  int fib = g_table_ptr[i & 7] + g_table_mid[i & 3];
  float w = g_rows[i & 1][i & 3] * g_config.gain;
  double v = g_pi * fib + g_config.offset + s_private_state[i & 3];
  out[i] = (float)v * w + g_name[i % 6] + g_config.flags[i % 3];
  atomicAdd(&g_counter, 1ull);
}

extern "C" __global__ void lcg_random(unsigned* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned x = g_seed ^ (unsigned)i;
  for (int k = 0; k < 4; ++k) x = x * 1664525u + 1013904223u;
  out[i] = x;
  if (i == 0) {
    g_seed = x;
    s_private_state[0] += 1;
  }
}

// ---- host code ----------------------------------------------------------------
// Launches every kernel of this file with the block shapes the emulator tests
// (tests/test_emu_corpus_*.c) run it with; `ptxray launches` reads them.
void launch_device_globals_init() {
  {
    float * p0 = nullptr;
    int p1{};
    int threads = 32;
    use_device_globals<<<4, threads>>>(p0, p1);
  }
  {
    unsigned int * p0 = nullptr;
    int p1{};
    int threads = 32;
    lcg_random<<<1, threads>>>(p0, p1);
  }
}
