// A kernel launched with three block shapes, one launched with a constant
// shape and one of run-time shape (tests/test_launches.c: check,
// coalescing, divergence, uniformize and analyze at each shape).
// shapes.ptx: nvcc -ptx -lineinfo -O3 -arch=sm_80, `.file` made relative.
#include <cstdlib>

// rowsum: a warp spans 32/blockDim.x rows: the load of one word per row is
// coalesced when the block is 32 wide, not when it is 4 or 2 wide, and the
// branch on threadIdx.y is uniform only when it is 32 wide.
extern "C" __global__ void rowsum(const float *in, float *out, int n)
{
  float v = in[threadIdx.y * 64];
  if (threadIdx.y < 4)
    for (int i = 0; i < n; i++) v = v * v + 1.0f;
  out[(blockIdx.x * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x] = v;
}

// flat: threadIdx.y is 0 in a 256x1x1 block; at a shape not known, only
// if blockDim.x is a multiple of 32 is it the same across a warp.
extern "C" __global__ void flat(float *out)
{
  if (threadIdx.y == 0) out[threadIdx.x] = 1.0f;
}

int main(int argc, char **argv)
{
  float *in = nullptr, *out = nullptr;
  rowsum<<<1, dim3(32, 8)>>>(in, out, argc);
  rowsum<<<1, dim3(4, 64)>>>(in, out, argc);
  rowsum<<<1, dim3(2, 128)>>>(in, out, argc);
  flat<<<1, 256>>>(out);
  int t = argc > 1 ? atoi(argv[1]) : 128;
  flat<<<1, t>>>(out);
  return 0;
}
