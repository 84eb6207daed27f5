// Named barriers with thread counts: producer warp and consumer warp meet at barrier 1 with 64 threads (legal);
// the bugs give the two sides different counts, or a count that is not whole warps.
__global__ void ok(int *out)
{
    __shared__ int s[32];
    unsigned warp = threadIdx.x / 32, lane = threadIdx.x & 31;
    if (warp == 0) {
        s[lane] = lane * 3;
        asm volatile("bar.arrive 1, 64;" ::: "memory");
    } else if (warp == 1) {
        asm volatile("bar.sync 1, 64;" ::: "memory");
        out[lane] = s[lane];
    }
}
__global__ void bug_counts(int *out)
{
    __shared__ int s[32];
    unsigned warp = threadIdx.x / 32, lane = threadIdx.x & 31;
    if (warp == 0) {
        s[lane] = lane * 3;
        asm volatile("bar.arrive 1, 64;" ::: "memory");
    } else if (warp == 1) {
        asm volatile("bar.sync 1, 96;" ::: "memory");
        out[lane] = s[lane];
    }
}
__global__ void bug_notwarps(int *out)
{
    __shared__ int s[32];
    unsigned warp = threadIdx.x / 32, lane = threadIdx.x & 31;
    if (warp == 0) {
        s[lane] = lane * 3;
        asm volatile("bar.arrive 1, 48;" ::: "memory");
    } else if (warp == 1) {
        asm volatile("bar.sync 1, 48;" ::: "memory");
        out[lane] = s[lane];
    }
}
