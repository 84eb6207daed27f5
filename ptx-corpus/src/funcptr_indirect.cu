// funcptr_indirect.cu
//
// Exercises: indirect calls through device function pointers.  A
// __device__ table of function pointers (global initialised with
// addresses of functions) and a pointer chosen by a kernel argument /
// per-thread value; PTX contains a `.callprototype` declaration and a
// `call (...), %rd, (...), prototype;` through a register.  Also a
// virtual-function-like dispatch via a struct holding a function pointer.
// Analyses targeted: indirect call resolution (possible targets = address
// taken functions), call graph with unknown edges, divergent indirect
// calls (the target varies per thread).

typedef float (*unary_fn)(float);
typedef int (*binop_fn)(int, int);

__device__ float f_square(float x) { return x * x; }
__device__ float f_neg(float x) { return -x; }
__device__ float f_sigmoid(float x) { return 1.0f / (1.0f + __expf(-x)); }
__device__ float f_relu(float x) { return x > 0.0f ? x : 0.0f; }

__device__ int op_add(int a, int b) { return a + b; }
__device__ int op_mul(int a, int b) { return a * b; }
__device__ int op_max(int a, int b) { return a > b ? a : b; }

__device__ unary_fn g_unary_table[4] = {f_square, f_neg, f_sigmoid, f_relu};
__device__ binop_fn g_binop_table[3] = {op_add, op_mul, op_max};

struct Op {
  binop_fn fn;
  int identity;
};

// Uniform target (selected by kernel argument).
extern "C" __global__ void apply_unary_uniform(float* data, int n, int which) {
  unary_fn f = g_unary_table[which & 3];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = f(data[i]);
}

// Divergent target (selected per element).
extern "C" __global__ void apply_unary_divergent(float* data, const int* sel, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = g_unary_table[sel[i] & 3](data[i]);
}

__device__ __noinline__ int fold(const int* v, int n, Op op) {
  int acc = op.identity;
  for (int i = 0; i < n; ++i) acc = op.fn(acc, v[i]);
  return acc;
}

__global__ void fold_rows(const int* m, int* out, int rows, int cols, int opidx) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  Op op;
  op.fn = g_binop_table[opidx % 3];
  op.identity = (opidx % 3 == 1) ? 1 : 0;
  out[r] = fold(m + r * cols, cols, op);
}

// ---- host code ----------------------------------------------------------------
// Launches every kernel of this file with the block shapes the emulator tests
// (tests/test_emu_corpus_*.c) run it with; `ptxray launches` reads them.
#define FUNCPTR_INDIRECT_1_THREADS 64
#define FUNCPTR_INDIRECT_2_THREADS 64
#define FUNCPTR_INDIRECT_3_THREADS 32
void launch_funcptr_indirect() {
  {
    float * p0 = nullptr;
    int p1{};
    int p2{};
    apply_unary_uniform<<<2, FUNCPTR_INDIRECT_1_THREADS>>>(p0, p1, p2);
  }
  {
    float * p0 = nullptr;
    const int * p1 = nullptr;
    int p2{};
    apply_unary_divergent<<<2, FUNCPTR_INDIRECT_2_THREADS>>>(p0, p1, p2);
  }
  {
    const int * p0 = nullptr;
    int * p1 = nullptr;
    int p2{};
    int p3{};
    int p4{};
    fold_rows<<<1, FUNCPTR_INDIRECT_3_THREADS>>>(p0, p1, p2, p3, p4);
  }
}
