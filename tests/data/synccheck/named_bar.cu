// Named barriers with thread counts: producer warp and consumer warp meet at barrier 1 with 64 threads (legal);
// the bugs: different counts on the two sides; a count (a parameter: ptxas rejects a constant) of no whole warps.
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
__global__ void bug_notwarps(int *out, int count)
{
    __shared__ int s[32];
    unsigned warp = threadIdx.x / 32, lane = threadIdx.x & 31;
    if (warp == 0) {
        s[lane] = lane * 3;
        asm volatile("bar.arrive 1, %0;" ::"r"(count) : "memory");
    } else if (warp == 1) {
        asm volatile("bar.sync 1, %0;" ::"r"(count) : "memory");
        out[lane] = s[lane];
    }
}
