// Two identical kernels for --block KERNEL= through `ptxray nvcc`
// (tests/test_block_cli.c): the value tid.y * n is uniform only when
// blockDim.x is a multiple of 32.
#define BODY                                              \
    int u = threadIdx.y * n;                              \
    float *p = a + threadIdx.x * 1024 + threadIdx.y;      \
    float v = *p + (float)(threadIdx.x + n);              \
    if (u != 0) return;                                   \
    *p = v;
extern "C" __global__ void ka(float *a, int n) { BODY }
extern "C" __global__ void kb(float *a, int n) { BODY }
