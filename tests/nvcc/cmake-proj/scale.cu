#include "kern.h"

__global__ void scale_kernel(float *out, const float *in, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i * KERN_STRIDE] = 2.0f * in[i]; // ptxray-expect: uncoalesced
}

void scale(float *out, const float *in, int n) { scale_kernel<<<(n + 127) / 128, 128>>>(out, in, n); }
