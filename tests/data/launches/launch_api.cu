// The runtime API's launch functions.
__global__ void saxpy(float a, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

__global__ void grid_sum(const float *x, float *out, int n) {
  if (blockIdx.x == 0 && threadIdx.x == 0) *out = x[n - 1];
}

void run(float a, float *x, float *y, float *out, int n, int rt) {
  void *args[] = {&a, &x, &y, &n};
  cudaLaunchKernel((const void *)saxpy, dim3(n / 256), dim3(256), args, 0, 0);
  cudaLaunchKernel(saxpy, dim3(n / 128), dim3(32, 4), args, 0, 0);

  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(n / 64);
  cfg.blockDim = dim3(64, 1, 1);
  cudaLaunchKernelEx(&cfg, saxpy, a, (const float *)x, y, n);

  cudaLaunchConfig_t rtcfg = {};
  rtcfg.gridDim = dim3(1);
  rtcfg.blockDim = dim3(rt);
  cudaLaunchKernelEx(&rtcfg, saxpy, a, (const float *)x, y, n);

  void *sargs[] = {&x, &out, &n};
  cudaLaunchCooperativeKernel((const void *)grid_sum, dim3(8), dim3(128), sargs, 0, 0);
}
