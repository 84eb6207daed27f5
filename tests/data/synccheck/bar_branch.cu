// __syncthreads() in a thread-dependent branch (bug) and in a block-uniform one (legal).
__global__ void bug(int *out)
{
    __shared__ int s[128];
    s[threadIdx.x] = threadIdx.x;
    if (threadIdx.x < 48) {
        __syncthreads();
        s[threadIdx.x] += 1;
    }
    out[threadIdx.x] = s[threadIdx.x ^ 1];
}
__global__ void ok(int *out, int n)
{
    __shared__ int s[128];
    s[threadIdx.x] = threadIdx.x;
    if (blockIdx.x < n) {
        __syncthreads();
        s[threadIdx.x] += 1;
    }
    out[threadIdx.x] = s[threadIdx.x ^ 1];
}
// Barrier after an early exit: exited threads do not count (legal).
__global__ void ok_exit(int *out, int n)
{
    __shared__ int s[128];
    if (threadIdx.x >= n) return;
    s[threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = s[(threadIdx.x + 1) % n];
}
// Two different barriers, one per side of a thread-dependent branch.
__global__ void bug_ifelse(int *out)
{
    __shared__ int s[128];
    if (threadIdx.x & 1) {
        s[threadIdx.x] = 1;
        __syncthreads();
    } else {
        s[threadIdx.x] = 2;
        __syncthreads();
    }
    out[threadIdx.x] = s[threadIdx.x ^ 1];
}
