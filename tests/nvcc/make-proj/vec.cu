#include "vec.h"

__device__ float twice(float x) { return VEC_SCALE * x; }

__global__ void transpose_tile(float *out, const float *in, int n)
{
    __shared__ float tile[32][VEC_STRIDE];
    int x = threadIdx.x, y = threadIdx.y;
    tile[y][x] = in[(blockIdx.x * 32 + y) * n + x];
    __syncthreads();
    out[(blockIdx.x * 32 + x) * n + y] = twice(tile[x][y]); // ptxray-expect: bank-conflict
}

void vec_run(float *a, const float *b, int n) { transpose_tile<<<n / 32, dim3(32, 32)>>>(a, b, n); }
