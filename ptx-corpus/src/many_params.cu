// many_params.cu
//
// Exercises: kernel parameter handling:
//   - a kernel with 24 parameters of mixed types (pointers, int, float,
//     double, char, short, bool, unsigned long long) => many .param
//     declarations with different sizes/alignments;
//   - a struct passed by value (SimParams: mixed scalars + a float[6]
//     array) => `.param .align 8 .b8 name[N]`, fields read with
//     ld.param at byte offsets;
//   - a large struct (2 KB) marked __grid_constant__ so its address can be
//     taken without a local copy: PTX takes the param symbol's address
//     (`mov.b64 %rd, kernel_param_0`) and reads it with ld.param through a
//     register (`ld.param.f32 %f, [%rd+4]`);
//   - a __restrict__ const struct pointer for comparison.
// Analyses targeted: param space layout, aggregate params, address-taken
// params (__grid_constant__), uniformity (all params are uniform).

struct SimParams {
  int nx, ny;
  float dt;
  double viscosity;
  float bounds[6];
  char mode;
  bool periodic;
};

struct BigTable {
  float coeff[512];  // 2 KB
};

extern "C" __global__ void many_params_kernel(
    float* out0, float* out1, const float* in0, const float* in1, const int* idx, int n,
    int stride, float a, float b, double c, double d, char flag, short sh, bool enable,
    unsigned long long seed, unsigned u, long long ll, float e, float f, int g, int h,
    const double* in2, double* out2, unsigned char uc) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n || !enable) return;
  int j = idx[i] * stride + g - h;
  out0[i] = a * in0[j] + b * in1[i] + e - f + (float)flag + sh + uc;
  out1[i] = (float)(seed ^ (unsigned long long)i) + (float)(u + ll);
  out2[i] = c * in2[i] + d;
}

extern "C" __global__ void struct_by_value(SimParams p, const float* __restrict__ u,
                                           float* __restrict__ v) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= p.nx || y >= p.ny) return;
  int xl = x > 0 ? x - 1 : (p.periodic ? p.nx - 1 : 0);
  float val = u[y * p.nx + x] + (float)(p.dt * p.viscosity) * (u[y * p.nx + xl] - u[y * p.nx + x]);
  if (p.mode == 'c') val = fminf(fmaxf(val, p.bounds[0]), p.bounds[1]);
  v[y * p.nx + x] = val + p.bounds[2 + (x & 3)];
}

// __grid_constant__ lets the kernel take the address of the param directly.
extern "C" __global__ void grid_constant_lookup(const __grid_constant__ BigTable table,
                                                const int* __restrict__ sel, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float* row = &table.coeff[(sel[i] & 63) * 8];  // address of a param
  float acc = 0.0f;
#pragma unroll
  for (int k = 0; k < 8; ++k) acc += row[k];
  out[i] = acc;
}

extern "C" __global__ void struct_by_pointer(const SimParams* __restrict__ p, float* v) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x < p->nx) v[x] *= p->dt * p->bounds[x % 6];
}

// ---- host code ----------------------------------------------------------------
// Launches every kernel of this file with the block shapes the emulator tests
// (tests/test_emu_corpus_*.c) run it with; `ptxray launches` reads them.
constexpr int kManyParamsThreads1 = 64;
constexpr dim3 kManyParamsBlock2(32, 4);
constexpr int kManyParamsThreads3 = 64;
constexpr int kManyParamsThreads4 = 32;
void launch_many_params() {
  {
    float * p0 = nullptr;
    float * p1 = nullptr;
    const float * p2 = nullptr;
    const float * p3 = nullptr;
    const int * p4 = nullptr;
    int p5{};
    int p6{};
    float p7{};
    float p8{};
    double p9{};
    double p10{};
    char p11{};
    short p12{};
    bool p13{};
    unsigned long long p14{};
    unsigned int p15{};
    long long p16{};
    float p17{};
    float p18{};
    int p19{};
    int p20{};
    const double * p21 = nullptr;
    double * p22 = nullptr;
    unsigned char p23{};
    many_params_kernel<<<4, kManyParamsThreads1>>>(p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11, p12, p13, p14, p15, p16, p17, p18, p19, p20, p21, p22, p23);
  }
  {
    SimParams p0{};
    const float *__restrict__ p1 = nullptr;
    float *__restrict__ p2 = nullptr;
    struct_by_value<<<dim3(2, 2), kManyParamsBlock2>>>(p0, p1, p2);
  }
  {
    const BigTable p0{};
    const int *__restrict__ p1 = nullptr;
    float * p2 = nullptr;
    int p3{};
    grid_constant_lookup<<<4, kManyParamsThreads3>>>(p0, p1, p2, p3);
  }
  {
    const SimParams *__restrict__ p0 = nullptr;
    float * p1 = nullptr;
    struct_by_pointer<<<2, kManyParamsThreads4>>>(p0, p1);
  }
}
