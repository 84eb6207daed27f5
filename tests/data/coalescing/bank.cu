// Shared-memory bank conflicts (32 banks of 4 bytes): word strides 1, 2 and
// 32, one word read by every lane (a broadcast), and 8-byte elements.
extern "C" __global__ void banks(float* out, double* dout) {
  __shared__ float s[32 * 32];
  __shared__ double d[64];
  unsigned t = threadIdx.x;
  s[t] = (float)t;                  // stride 1 word: no conflict
  d[t] = (double)t;                 // 8 bytes, half-warp phases: no conflict
  __syncthreads();
  float v = s[2 * t];               // stride 2 words: 2-way
  v += s[32 * t];                   // stride 32 words: 32-way
  v += s[0];                        // broadcast: no conflict
  out[blockIdx.x * blockDim.x + t] = v;
  dout[blockIdx.x * blockDim.x + t] = d[t];
}
