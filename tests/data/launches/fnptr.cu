// Launches through function pointers whose every target is known (issue
// 38): each target kernel gets the launch's shape.
#include <cuda_runtime.h>

__global__ void scale(float *a) { a[threadIdx.x] *= 2.0f; }
__global__ void shift(float *a) { a[threadIdx.x] += 1.0f; }
__global__ void clear(float *a) { a[threadIdx.y * blockDim.x + threadIdx.x] = 0.0f; }

typedef void (*op)(float *);
static op table[] = {scale, shift};

// a helper taking the kernel and the shape: each call gives both
void run(op k, dim3 b, float *d) { k<<<1, b>>>(d); }
// a template helper: its instantiation's parameter
template <class K> void run_t(K k, float *d) { k<<<2, 96>>>(d); }

void host(float *d, int flag, int i) {
  dim3 threads(32, 16);
  void (*k)(float *) = flag ? scale : &clear;
  k<<<1, threads>>>(d);                 // ternary initialiser
  auto r = scale;
  if (flag) r = shift;
  r<<<4, 64>>>(d);                      // reassigned
  table[i % 2]<<<8, 128>>>(d);          // a table, any index
  run(scale, dim3(16, 16), d);          // a helper, two kernels
  run(clear, 256, d);
  run_t(shift, d);                      // a template helper
  void *args[] = {&d};
  cudaLaunchKernel((void *)k, 1, threads, args, 0, 0);
}
