// transpose_naive.cu
//
// Exercises: naive out-of-place matrix transpose.  Reads are coalesced
// (in[y*w + x]), writes are strided by height (out[x*h + y]) => one
// uncoalesced global store per thread.  2-D thread indexing (%tid.x/%tid.y,
// %ctaid.x/%ctaid.y, %ntid.x/%ntid.y), bounds-check divergence.
// Analyses targeted: coalescing analysis (store flagged, load not),
// 2-D affine index tracking.

extern "C" __global__ void transpose_naive(float* __restrict__ out,
                                           const float* __restrict__ in,
                                           int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) {
    out[x * height + y] = in[y * width + x];
  }
}

// Same, double precision, with a grid-stride loop in y.
extern "C" __global__ void transpose_naive_f64_gridstride(double* out, const double* in,
                                                         int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= width) return;
  for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < height; y += gridDim.y * blockDim.y) {
    out[(size_t)x * height + y] = in[(size_t)y * width + x];
  }
}

// ---- host code ----------------------------------------------------------------
// Launches every kernel of this file with the block shapes the emulator tests
// (tests/test_emu_corpus_*.c) run it with; `ptxray launches` reads them.
void launch_transpose_naive() {
  {
    float *__restrict__ p0 = nullptr;
    const float *__restrict__ p1 = nullptr;
    int p2{};
    int p3{};
    transpose_naive<<<dim3(5, 12), dim3(16, 4)>>>(p0, p1, p2, p3);
  }
  {
    double * p0 = nullptr;
    const double * p1 = nullptr;
    int p2{};
    int p3{};
    transpose_naive_f64_gridstride<<<dim3(3, 2), dim3(32, 4)>>>(p0, p1, p2, p3);
  }
}
