// constant_memory.cu
//
// Exercises: __constant__ memory: a scalar, an initialised array (emitted
// with `= {...}` initialiser in .const space), a struct, and a large
// uninitialised lookup table; uniform (broadcast) and divergent (indexed
// by thread data) constant loads (ld.const.f32 / ld.const.u32).  Also a
// 3x3 convolution with the filter in constant memory.
// Analyses targeted: .const declarations with initialisers, constant-bank
// access uniformity (divergent index => serialised), address of constant
// symbols (mov.u64 %rd, c_sym).

struct Camera {
  float3 origin;
  float3 dir;
  float fov;
  int width, height;
};

__constant__ float c_scale = 2.5f;
__constant__ float c_gauss3x3[9] = {1.f / 16, 2.f / 16, 1.f / 16, 2.f / 16, 4.f / 16,
                                    2.f / 16, 1.f / 16, 2.f / 16, 1.f / 16};
__constant__ int c_primes[16] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53};
__constant__ Camera c_cam;
__constant__ unsigned int c_lut[4096];

extern "C" __global__ void conv3x3_const(const float* __restrict__ in, float* __restrict__ out,
                                         int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1) return;
  float acc = 0.0f;
#pragma unroll
  for (int dy = -1; dy <= 1; ++dy)
#pragma unroll
    for (int dx = -1; dx <= 1; ++dx)
      acc += c_gauss3x3[(dy + 1) * 3 + (dx + 1)] * in[(y + dy) * w + (x + dx)];
  out[y * w + x] = acc * c_scale;
}

// Divergent constant index: each thread reads a different LUT entry.
extern "C" __global__ void lut_translate(const unsigned char* __restrict__ in,
                                         unsigned* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    unsigned v = c_lut[(in[i] * 16u + (i & 15)) & 4095u];
    out[i] = v ^ (unsigned)c_primes[i & 15];
  }
}

extern "C" __global__ void camera_rays(float4* rays) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= c_cam.width || y >= c_cam.height) return;
  float u = (2.0f * (x + 0.5f) / c_cam.width - 1.0f) * c_cam.fov;
  float v = (2.0f * (y + 0.5f) / c_cam.height - 1.0f) * c_cam.fov;
  float3 d = make_float3(c_cam.dir.x + u, c_cam.dir.y + v, c_cam.dir.z);
  float inv = rsqrtf(d.x * d.x + d.y * d.y + d.z * d.z);
  rays[y * c_cam.width + x] = make_float4(d.x * inv, d.y * inv, d.z * inv, c_cam.origin.x);
}

// ---- host code ----------------------------------------------------------------
// Launches every kernel of this file with the block shapes the emulator tests
// (tests/test_emu_corpus_*.c) run it with; `ptxray launches` reads them.
constexpr dim3 kConstantMemoryBlock1(16, 4);
constexpr int kConstantMemoryThreads2 = 128;
constexpr dim3 kConstantMemoryBlock3(16, 8);
void launch_constant_memory() {
  {
    const float *__restrict__ p0 = nullptr;
    float *__restrict__ p1 = nullptr;
    int p2{};
    int p3{};
    conv3x3_const<<<dim3(3, 6), kConstantMemoryBlock1>>>(p0, p1, p2, p3);
  }
  {
    const unsigned char *__restrict__ p0 = nullptr;
    unsigned int *__restrict__ p1 = nullptr;
    int p2{};
    lut_translate<<<3, kConstantMemoryThreads2>>>(p0, p1, p2);
  }
  {
    float4 * p0 = nullptr;
    camera_rays<<<dim3(3, 2), kConstantMemoryBlock3>>>(p0);
  }
}
