// Shapes from constexpr variables, a const global and a static member.
constexpr int kWarps = 8;
constexpr int kThreads = kWarps * 32;
constexpr dim3 kBlock2d(32, kWarps);
static const unsigned kRows = 4;

struct Config {
  static constexpr int block = 96;
};

__global__ void rows(float *a) { a[blockIdx.x * blockDim.x + threadIdx.x] = 0.0f; }

void run(float *a) {
  rows<<<16, kThreads>>>(a);
  rows<<<16, kBlock2d>>>(a);
  rows<<<16, dim3(64, kRows)>>>(a);
  rows<<<16, Config::block>>>(a);
}
