// texture_fetch.cu
//
// Exercises: bindless texture objects (cudaTextureObject_t, a .u64 param
// used as a texture handle): tex1Dfetch<float> (tex.1d.v4.f32.s32),
// tex2D<float> with float coordinates (tex.2d.v4.f32.f32), tex2D<float4>,
// tex3D, and tex2DLod.  Bilinear resampling kernel and a 1-D gather via
// texture.
// Analyses targeted: texture instruction parsing (tex.* with vector
// destinations and coordinate vectors), memory space classification
// (texture path is read-only).

extern "C" __global__ void tex1d_gather(cudaTextureObject_t tex, const int* __restrict__ idx,
                                        float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex1Dfetch<float>(tex, idx[i]);
}

extern "C" __global__ void tex2d_resample(cudaTextureObject_t tex, float* out, int w, int h,
                                          float sx, float sy) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float u = (x + 0.5f) * sx;
  float v = (y + 0.5f) * sy;
  out[y * w + x] = tex2D<float>(tex, u, v);
}

extern "C" __global__ void tex2d_rgba_blur(cudaTextureObject_t tex, float4* out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float4 s = make_float4(0.f, 0.f, 0.f, 0.f);
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) {
      float4 c = tex2D<float4>(tex, x + dx + 0.5f, y + dy + 0.5f);
      s.x += c.x; s.y += c.y; s.z += c.z; s.w += c.w;
    }
  const float k = 1.0f / 9.0f;
  out[y * w + x] = make_float4(s.x * k, s.y * k, s.z * k, s.w * k);
}

extern "C" __global__ void tex3d_lod_sample(cudaTextureObject_t vol, cudaTextureObject_t img,
                                            float* out, int n, float lod) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float t = i / (float)n;
  out[i] = tex3D<float>(vol, t, 1.0f - t, 0.5f) + tex2DLod<float>(img, t, t, lod);
}

// ---- host code ----------------------------------------------------------------
// Launches every kernel of this file with the block shapes the emulator tests
// (tests/test_emu_corpus_*.c) run it with; `ptxray launches` reads them.
void launch_texture_fetch() {
  {
    cudaTextureObject_t p0{};
    const int *__restrict__ p1 = nullptr;
    float * p2 = nullptr;
    int p3{};
    int threads = 128;
    tex1d_gather<<<4, threads>>>(p0, p1, p2, p3);
  }
  {
    cudaTextureObject_t p0{};
    float * p1 = nullptr;
    int p2{};
    int p3{};
    float p4{};
    float p5{};
    tex2d_resample<<<dim3(4, 4), dim3(16, 16)>>>(p0, p1, p2, p3, p4, p5);
  }
  {
    cudaTextureObject_t p0{};
    float4 * p1 = nullptr;
    int p2{};
    int p3{};
    tex2d_rgba_blur<<<dim3(4, 4), dim3(16, 16)>>>(p0, p1, p2, p3);
  }
  {
    cudaTextureObject_t p0{};
    cudaTextureObject_t p1{};
    float * p2 = nullptr;
    int p3{};
    float p4{};
    tex3d_lod_sample<<<dim3(4, 4), dim3(16, 16)>>>(p0, p1, p2, p3, p4);
  }
}
