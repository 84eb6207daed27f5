// mma_inline_asm.cu
//
// Exercises: warp-level tensor-core MMA through inline PTX `mma.sync`:
//   - mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 (sm_75+)
//   - mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 (sm_80+,
//     guarded by `#if __CUDA_ARCH__ >= 800`, fallback = two m16n8k8 f16
//     MMAs on sm_75) and ldmatrix.sync.aligned.m8n8.x4.shared.b16 (sm_75+).
// Fragments are held in plain registers (uint32 for packed halves).
// Analyses targeted: inline asm parsing (`{ }` scopes, braces for vector
// operands), arch-dependent PTX, warp-collective operations.

#include <cstdint>

__device__ __forceinline__ void mma_m16n8k8_f16(float (&d)[4], const uint32_t (&a)[2],
                                                uint32_t b, const float (&c)[4]) {
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 "
      "{%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};\n"
      : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(b), "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
}

__device__ __forceinline__ void mma_m16n8k16(float (&d)[4], const uint32_t (&a)[4],
                                             const uint32_t (&b)[2], const float (&c)[4]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
      "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};\n"
      : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]),
        "f"(c[1]), "f"(c[2]), "f"(c[3]));
#else
  // sm_75 fallback: treat data as f16 and split K=16 into two K=8 steps.
  float t[4];
  const uint32_t a0[2] = {a[0], a[1]};
  const uint32_t a1[2] = {a[2], a[3]};
  mma_m16n8k8_f16(t, a0, b[0], c);
  mma_m16n8k8_f16(d, a1, b[1], t);
#endif
}

__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], const void* smem_ptr) {
  unsigned addr = static_cast<unsigned>(__cvta_generic_to_shared(smem_ptr));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}

// One warp computes a 16x8 tile of D = A(16xK) * B(Kx8), K multiple of 16.
extern "C" __global__ void mma_tile_16x8(const uint32_t* __restrict__ A,
                                         const uint32_t* __restrict__ B, float* __restrict__ D,
                                         int K) {
  __shared__ __align__(16) uint32_t sA[16 * 8];  // 16 rows x 16 halves
  int lane = threadIdx.x & 31;
  float acc[4] = {0.f, 0.f, 0.f, 0.f};
  for (int k = 0; k < K; k += 16) {
    for (int i = lane; i < 16 * 8; i += 32) sA[i] = A[(i / 8) * (K / 2) + k / 2 + (i % 8)];
    __syncwarp();
    uint32_t a[4];
    ldmatrix_x4(a, &sA[(lane % 16) * 8 + (lane / 16) * 4]);
    uint32_t b[2] = {B[(k / 2 + (lane % 4)) * 8 + lane / 4], B[(k / 2 + 4 + (lane % 4)) * 8 + lane / 4]};
    mma_m16n8k16(acc, a, b, acc);
    __syncwarp();
  }
  int row = lane / 4, col = (lane % 4) * 2;
  D[row * 8 + col] = acc[0];
  D[row * 8 + col + 1] = acc[1];
  D[(row + 8) * 8 + col] = acc[2];
  D[(row + 8) * 8 + col + 1] = acc[3];
}

// ---- host code ----------------------------------------------------------------
// Launches every kernel of this file with the block shapes the emulator tests
// (tests/test_emu_corpus_*.c) run it with; `ptxray launches` reads them.
constexpr int kMmaInlineAsmThreads1 = 32;
void launch_mma_inline_asm() {
  {
    const uint32_t *__restrict__ p0 = nullptr;
    const uint32_t *__restrict__ p1 = nullptr;
    float *__restrict__ p2 = nullptr;
    int p3{};
    mma_tile_16x8<<<1, kMmaInlineAsmThreads1>>>(p0, p1, p2, p3);
  }
}
