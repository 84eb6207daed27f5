// A barrier in a loop: trip count per thread (bug) and uniform (legal).
__global__ void bug(int *out)
{
    __shared__ int s[128];
    int acc = 0;
    s[threadIdx.x] = threadIdx.x;
    for (int i = 0; i < (int)(threadIdx.x & 3); i++) {
        __syncthreads();
        acc += s[(threadIdx.x + i) & 127];
    }
    out[threadIdx.x] = acc;
}
__global__ void ok(int *out, int n)
{
    __shared__ int s[128];
    int acc = 0;
    s[threadIdx.x] = threadIdx.x;
    for (int i = 0; i < n; i++) {
        __syncthreads();
        acc += s[(threadIdx.x + i) & 127];
    }
    out[threadIdx.x] = acc;
}
