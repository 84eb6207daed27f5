// barrier.sync without .aligned in both arms of a thread-dependent branch: every thread arrives, at either
// instruction, which the ISA allows for the non-aligned form (legal).
__global__ void ok_nonaligned(int *out)
{
    __shared__ int s[128];
    if (threadIdx.x & 1) {
        s[threadIdx.x] = 1;
        asm volatile("barrier.sync 0;" ::: "memory");
    } else {
        s[threadIdx.x] = 2;
        asm volatile("barrier.sync 0;" ::: "memory");
    }
    out[threadIdx.x] = s[threadIdx.x ^ 1];
}
