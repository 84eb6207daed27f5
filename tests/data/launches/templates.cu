// A kernel template launched with two shapes, and a host template whose
// argument is the tile (and block) size.
template <typename T>
__global__ void scale(T *a, T s, int n) {
  int i = blockIdx.x * blockDim.x * blockDim.y + threadIdx.y * blockDim.x + threadIdx.x;
  if (i < n) a[i] *= s;
}

template <int TILE>
__global__ void tiled(float *a, int n) {
  int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
  if (x < n && y < n) a[y * n + x] += 1.0f;
}

template <int TILE>
void launch_tiled(float *a, int n) {
  dim3 block(TILE, TILE);
  dim3 grid(n / TILE, n / TILE);
  tiled<TILE><<<grid, block>>>(a, n);
}

void run(float *a, double *b, int n) {
  scale<float><<<n / 128, 128>>>(a, 2.0f, n);
  scale<float><<<n / 128, dim3(32, 4)>>>(a, 0.5f, n);
  scale<double><<<n / 64, 64>>>(b, 2.0, n);
  launch_tiled<8>(a, n);
  launch_tiled<16>(a, n);
}
