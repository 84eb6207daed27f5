// atomic_cas_loop.cu
//
// Exercises: lock-free read-modify-write via atomicCAS retry loops
// (atom.global.cas.b32 / .b64 inside a loop whose trip count is
// data-dependent and divergent): atomic float max, atomic double multiply,
// a spin lock (atomicCAS + atomicExch + __threadfence) protecting a
// critical section, atomicInc/atomicDec wrap-around counters, atomicExch
// on float, atomicAnd/Or/Xor, and a system-scope / block-scope atomic
// (atomicAdd_block, atomicAdd_system, sm_60+).
// Analyses targeted: loops around atomics (divergent exits), memory
// fences (membar.gl / fence.sc), atomic scopes (.cta / .sys).

__device__ float atomicMaxFloat(float* addr, float val) {
  int* a = reinterpret_cast<int*>(addr);
  int old = *a, assumed;
  do {
    assumed = old;
    if (__int_as_float(assumed) >= val) break;
    old = atomicCAS(a, assumed, __float_as_int(val));
  } while (assumed != old);
  return __int_as_float(old);
}

__device__ double atomicMulDouble(double* addr, double val) {
  unsigned long long* a = reinterpret_cast<unsigned long long*>(addr);
  unsigned long long old = *a, assumed;
  do {
    assumed = old;
    old = atomicCAS(a, assumed, __double_as_longlong(__longlong_as_double(assumed) * val));
  } while (assumed != old);
  return __longlong_as_double(old);
}

extern "C" __global__ void cas_float_max(const float* x, float* result, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicMaxFloat(result, x[i]);
}

extern "C" __global__ void cas_double_product(const double* x, double* result, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicMulDouble(result, x[i]);
}

// One thread per block acquires a global spin lock and appends its block sum.
extern "C" __global__ void spinlock_append(const int* in, int* lock, int* log, int* log_len) {
  __shared__ int bsum;
  if (threadIdx.x == 0) bsum = 0;
  __syncthreads();
  atomicAdd_block(&bsum, in[blockIdx.x * blockDim.x + threadIdx.x]);
  __syncthreads();
  if (threadIdx.x == 0) {
    while (atomicCAS(lock, 0, 1) != 0) {
    }
    __threadfence();
    int pos = *log_len;
    log[pos] = bsum;
    *log_len = pos + 1;
    __threadfence();
    atomicExch(lock, 0);
  }
}

extern "C" __global__ void misc_atomics(unsigned* ring, unsigned* bits, float* last,
                                        int* sys_counter, const float* v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned slot = atomicInc(&ring[0], 63u);
  atomicDec(&ring[1], 63u);
  atomicOr(&bits[slot & 7], 1u << (i & 31));
  atomicAnd(&bits[8 + (slot & 7)], ~(1u << (i & 31)));
  atomicXor(&bits[16], (unsigned)i);
  atomicExch(last, v[i]);
  atomicAdd_system(sys_counter, 1);
}

// ---- host code ----------------------------------------------------------------
// Launches every kernel of this file with the block shapes the emulator tests
// (tests/test_emu_corpus_*.c) run it with; `ptxray launches` reads them.
#define ATOMIC_CAS_LOOP_1_THREADS 128
#define ATOMIC_CAS_LOOP_2_THREADS 128
#define ATOMIC_CAS_LOOP_3_THREADS 64
#define ATOMIC_CAS_LOOP_4_THREADS 32
void launch_atomic_cas_loop() {
  {
    const float * p0 = nullptr;
    float * p1 = nullptr;
    int p2{};
    cas_float_max<<<3, ATOMIC_CAS_LOOP_1_THREADS>>>(p0, p1, p2);
  }
  {
    const double * p0 = nullptr;
    double * p1 = nullptr;
    int p2{};
    cas_double_product<<<3, ATOMIC_CAS_LOOP_2_THREADS>>>(p0, p1, p2);
  }
  {
    const int * p0 = nullptr;
    int * p1 = nullptr;
    int * p2 = nullptr;
    int * p3 = nullptr;
    spinlock_append<<<4, ATOMIC_CAS_LOOP_3_THREADS>>>(p0, p1, p2, p3);
  }
  {
    unsigned int * p0 = nullptr;
    unsigned int * p1 = nullptr;
    float * p2 = nullptr;
    int * p3 = nullptr;
    const float * p4 = nullptr;
    int p5{};
    misc_atomics<<<1, ATOMIC_CAS_LOOP_4_THREADS>>>(p0, p1, p2, p3, p4, p5);
  }
}
