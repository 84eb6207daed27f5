// Values the reports name in source terms (tests/test_srcnames.c,
// docs/check.md "Source names"): a stride computed from a parameter (s + 1),
// fields of a __constant__ struct in a namespace, whose layout needs the
// vector types' alignment (int2, float4), and an expression too long to
// print.  PTX: nvcc -arch=sm_80 -ptx -lineinfo values.cu (CUDA 13.0), its
// .file made relative (as ptx-corpus/regen does).
namespace geo {
struct Grid {
  int2 origin;
  int dims[3];
  float4 pad;  // 16-byte aligned: at offset 32, not 20
  int pitch;
};
__constant__ Grid g;
}  // namespace geo

__global__ void plus_one(float *a, int s) {
  a[threadIdx.y * (s + 1) + threadIdx.x] += 1.0f;
}

__global__ void bank_plus_one(float *out, int s) {
  __shared__ float sm[8192];
  sm[threadIdx.x * (s + 1)] = out[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = sm[threadIdx.x * (s + 1)];
}

__global__ void grid_pitch(float *a) {
  a[threadIdx.y * geo::g.pitch + threadIdx.x] += 1.0f;
}

__global__ void grid_dims(float *a) {
  a[threadIdx.y * geo::g.dims[1] + threadIdx.x] += 1.0f;
}

__global__ void grid_cols(float *a, int cols) {
  int stride = gridDim.x * cols;
  a[threadIdx.x * stride + stride] += 1.0f;
}

__global__ void too_long(float *a, int p, int q, int r, int t) {
  a[threadIdx.y * ((p + 1) * (q + 2) * (r + 3) + t) + threadIdx.x] += 1.0f;
}
