// Warp-level .aligned instructions (ldmatrix here): every live lane of the warp executes them together. The
// emulator runs no tensor-core instruction, so these verdicts are checked against the ISA text only.
__global__ void bug_half(unsigned *out)
{
    __shared__ unsigned short s[256];
    s[threadIdx.x] = threadIdx.x;
    __syncthreads();
    unsigned r = 0;
    unsigned a = (unsigned)__cvta_generic_to_shared(&s[(threadIdx.x & 7) * 8]);
    if ((threadIdx.x & 31) < 16) asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r) : "r"(a));
    out[threadIdx.x] = r;
}
__global__ void ok_whole(unsigned *out, int n)
{
    __shared__ unsigned short s[256];
    s[threadIdx.x] = threadIdx.x;
    __syncthreads();
    unsigned r = 0;
    unsigned a = (unsigned)__cvta_generic_to_shared(&s[(threadIdx.x & 7) * 8]);
    if (blockIdx.x < n) asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r) : "r"(a));
    out[threadIdx.x] = r;
}
__global__ void maybe(unsigned *out, const int *flag)
{
    __shared__ unsigned short s[256];
    s[threadIdx.x] = threadIdx.x;
    __syncthreads();
    unsigned r = 0;
    unsigned a = (unsigned)__cvta_generic_to_shared(&s[(threadIdx.x & 7) * 8]);
    if (flag[threadIdx.x]) asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r) : "r"(a));
    out[threadIdx.x] = r;
}
