// __launch_bounds__ is an upper bound on the block, not a shape.
#define MAX_THREADS 256

__global__ void __launch_bounds__(MAX_THREADS) bounded(float *a) { a[threadIdx.x] = 0.0f; }
__global__ void __launch_bounds__(128, 4) bounded_min(float *a) { a[threadIdx.x] = 1.0f; }
__global__ void __launch_bounds__(1024) never_launched(float *a) { a[threadIdx.x] = 2.0f; }

void run(float *a, int threads) {
  bounded<<<1, threads>>>(a);
  bounded_min<<<1, 64>>>(a);
}
