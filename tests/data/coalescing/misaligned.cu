// Constant offsets off a 128-byte boundary: in[i + 1] straddles five
// sectors instead of four; in[i + 8] stays on sector boundaries but
// straddles two lines.
extern "C" __global__ void shifted(const float* in, float* out, float* out2) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i + 1];
  out2[i] = in[i + 8];
}
