// Warp-role branches: warp 0 shuffles with the full mask (whole warp there), then all meet at one barrier (legal);
// the bug gives the producer warp its own __syncthreads().
__global__ void ok(int *out)
{
    __shared__ int s[128];
    unsigned warp = threadIdx.x / 32, lane = threadIdx.x & 31;
    int v = threadIdx.x;
    if (warp == 0) v += __shfl_sync(0xffffffffu, v, lane ^ 1);
    else v *= 2;
    s[threadIdx.x] = v;
    __syncthreads();
    out[threadIdx.x] = s[127 - threadIdx.x];
}
__global__ void bug(int *out)
{
    __shared__ int s[128];
    unsigned warp = threadIdx.x / 32;
    if (warp == 0) {
        s[threadIdx.x] = 1;
        __syncthreads();
    } else {
        s[threadIdx.x] = 2;
        __syncthreads();
    }
    out[threadIdx.x] = s[127 - threadIdx.x];
}
