// A 2-D launch through dim3 and a macro, as benchmark suites write it.
#define BLOCK_SIZE 16

__global__ void transpose(const float *in, float *out, int n) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < n && y < n) out[x * n + y] = in[y * n + x];
}

void run_transpose(const float *in, float *out, int n) {
  dim3 threads(BLOCK_SIZE, BLOCK_SIZE);
  dim3 grid((n + BLOCK_SIZE - 1) / BLOCK_SIZE, (n + BLOCK_SIZE - 1) / BLOCK_SIZE);
  transpose<<<grid, threads>>>(in, out, n);
}
