// Shapes known only at run time: each is reported unknown with its reason.
#include <cstdlib>

__global__ void fill(float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = 1.0f;
}

void launch_with(float *a, int n, int threads) {
  fill<<<(n + threads - 1) / threads, threads>>>(a, n);
}

int main(int argc, char **argv) {
  float *a = nullptr;
  int n = 1 << 20;
  int bs = argc > 1 ? atoi(argv[1]) : 256;
  fill<<<n / bs, bs>>>(a, n);
  int t = 256;
  if (n < t) t = n;
  fill<<<1, t>>>(a, n);
  int minGrid = 0, best = 0;
  cudaOccupancyMaxPotentialBlockSize(&minGrid, &best, fill);
  fill<<<n / best, best>>>(a, n);
  launch_with(a, n, 128);
  int fixed = 512;
  fill<<<n / fixed, fixed>>>(a, n);
  return 0;
}
