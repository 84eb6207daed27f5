// A loop until every thread of the block is done (__syncthreads_or: the same answer in every thread), with a
// barrier inside: every thread runs the same iterations (legal); the bug waits at a barrier only while its
// own work lasts.
__global__ void ok_until(int *out)
{
    __shared__ int s[128];
    int i = threadIdx.x, it = 0;
    s[i] = i;
    while (__syncthreads_or(it < (int)(threadIdx.x & 3))) {
        it++;
        s[i] += 1;
        __syncthreads();
    }
    out[i] = s[i ^ 1] + it;
}
__global__ void bug_own(int *out)
{
    __shared__ int s[128];
    int i = threadIdx.x, it = 0;
    s[i] = i;
    while (it < (int)(threadIdx.x & 3)) {
        it++;
        s[i] += 1;
        __syncthreads();
    }
    out[i] = s[i ^ 1] + it;
}
