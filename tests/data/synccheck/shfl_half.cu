// Half-warp shuffle: the bug names the whole warp, the legal form names the half that executes it.
__global__ void bug(int *out)
{
    int v = threadIdx.x;
    unsigned lane = threadIdx.x & 31;
    if (lane < 16) v = __shfl_sync(0xffffffffu, v, lane ^ 1);
    out[threadIdx.x] = v;
}
__global__ void ok(int *out)
{
    int v = threadIdx.x;
    unsigned lane = threadIdx.x & 31;
    if (lane < 16) v = __shfl_sync(0x0000ffffu, v, lane ^ 1);
    out[threadIdx.x] = v;
}
// Active-mask: the mask is who is here; a mask that leaves out the executing lane is undefined.
__global__ void ok_activemask(int *out)
{
    int v = threadIdx.x;
    unsigned lane = threadIdx.x & 31;
    if (lane < 16) v = __shfl_sync(__activemask(), v, lane ^ 1);
    out[threadIdx.x] = v;
}
__global__ void bug_notinmask(int *out)
{
    int v = threadIdx.x;
    unsigned lane = threadIdx.x & 31;
    if (lane < 16) v = __shfl_sync(0xffff0000u, v, 16);
    out[threadIdx.x] = v;
}
// __syncwarp in a branch half the warp skips.
__global__ void bug_syncwarp(int *out)
{
    __shared__ int s[64];
    unsigned lane = threadIdx.x & 31;
    s[threadIdx.x] = threadIdx.x;
    if (lane < 16) __syncwarp();
    out[threadIdx.x] = s[threadIdx.x ^ 1];
}
// A ballot with the full mask in a branch half the warp skips (bug), and with the branch's own ballot as the
// mask (legal).
__global__ void bug_ballot(int *out)
{
    unsigned lane = threadIdx.x & 31, b = 0;
    if (lane < 16) b = __ballot_sync(0xffffffffu, threadIdx.x & 2);
    out[threadIdx.x] = b;
}
__global__ void ok_ballot(int *out)
{
    unsigned lane = threadIdx.x & 31, b = 0;
    unsigned m = __ballot_sync(0xffffffffu, lane < 16);
    if (lane < 16) b = __ballot_sync(m, threadIdx.x & 2);
    out[threadIdx.x] = b;
}
