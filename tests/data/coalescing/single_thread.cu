// Code that at most one lane runs (GPUDrano's FF⁻): the accesses there are
// never uncoalesced, however strided; tid.x < 2 lets two lanes in.
__device__ __forceinline__ unsigned lane_id() {
  unsigned l;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(l));
  return l;
}

extern "C" __global__ void only_tid_k(float* a, int k) {
  if (threadIdx.x == k) a[threadIdx.x * 32] = 1.0f;
}

extern "C" __global__ void only_lane0(float* a) {
  unsigned l = lane_id();
  if (l == 0) a[(blockIdx.x * blockDim.x + threadIdx.x) * 32] = 2.0f;
}

extern "C" __global__ void two_lanes(float* a) {
  if (threadIdx.x < 2) a[threadIdx.x * 32] = 3.0f;
}
