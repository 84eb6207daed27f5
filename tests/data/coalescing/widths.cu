// Element sizes, vector widths and layouts: which unit-stride accesses are
// coalesced (double, float4), which strides are not (an array of float3
// structures), and row- versus column-major 2-D indexing.
extern "C" __global__ void copy_double(const double* a, double* b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  b[i] = a[i];
}

extern "C" __global__ void copy_float4(const float4* a, float4* b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  b[i] = a[i];
}

struct P3 { float x, y, z; };
extern "C" __global__ void aos_x(const P3* p, float* o) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  o[i] = p[i].x;
}

// a[tid.x * N + tid.y]: lanes N floats apart, tid.y walks the row.
extern "C" __global__ void row_major(const float* a, float* o, int N) {
  o[threadIdx.y * blockDim.x + threadIdx.x] = a[threadIdx.x * N + threadIdx.y];
}

// a[tid.y * N + tid.x]: lanes one float apart.
extern "C" __global__ void col_major(const float* a, float* o, int N) {
  o[threadIdx.y * blockDim.x + threadIdx.x] = a[threadIdx.y * N + threadIdx.x];
}
