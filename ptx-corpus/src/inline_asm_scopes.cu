// inline_asm_scopes.cu
//
// Exercises: inline PTX with `{ }` scopes declaring local .reg / .pred
// registers (so the same register names appear in several scopes),
// predicated instructions (@p / @!p), labels inside inline asm
// (uniquified with %= ), bfe/bfi/prmt/lop3/dp4a, special registers
// (%clock64, %globaltimer, %smid, %warpid, %nsmid), `asm volatile` with
// "memory" clobber, membar/fence, and ld.global.cg / st.global.wb cache
// operators.
// Analyses targeted: nested scopes in the PTX body, name shadowing,
// predicates, labels inside nested blocks, special-register uniformity
// (%smid is uniform per CTA, %warpid is not stable).

#include <cstdint>

__device__ __forceinline__ uint32_t clamp_add_sat(uint32_t a, uint32_t b, uint32_t hi) {
  uint32_t r;
  asm("{\n\t"
      ".reg .u32 t;\n\t"
      ".reg .pred p;\n\t"
      "add.u32 t, %1, %2;\n\t"
      "setp.gt.u32 p, t, %3;\n\t"
      "selp.u32 %0, %3, t, p;\n\t"
      "}"
      : "=r"(r)
      : "r"(a), "r"(b), "r"(hi));
  return r;
}

__device__ __forceinline__ uint32_t count_down_loop(uint32_t n) {
  uint32_t steps;
  asm volatile("{\n\t"
               ".reg .u32 c;\n\t"
               ".reg .pred done;\n\t"
               "mov.u32 c, %1;\n\t"
               "mov.u32 %0, 0;\n\t"
               "LOOP_%=:\n\t"
               "setp.eq.u32 done, c, 0;\n\t"
               "@done bra.uni END_%=;\n\t"
               "shr.u32 c, c, 1;\n\t"
               "add.u32 %0, %0, 1;\n\t"
               "bra.uni LOOP_%=;\n\t"
               "END_%=:\n\t"
               "}"
               : "=r"(steps)
               : "r"(n));
  return steps;
}

__device__ __forceinline__ uint32_t bit_tricks(uint32_t x, uint32_t y) {
  uint32_t f, i, p, l, d;
  asm("bfe.u32 %0, %1, 4, 8;" : "=r"(f) : "r"(x));
  asm("bfi.b32 %0, %1, %2, 8, 8;" : "=r"(i) : "r"(f), "r"(y));
  asm("prmt.b32 %0, %1, %2, 0x3210;" : "=r"(p) : "r"(x), "r"(i));
  asm("lop3.b32 %0, %1, %2, %3, 0x96;" : "=r"(l) : "r"(x), "r"(y), "r"(p));
  asm("dp4a.u32.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(x), "r"(y), "r"(l));
  return d;
}

extern "C" __global__ void asm_scopes_kernel(const uint32_t* in, uint32_t* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  uint32_t v;
  asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(in + i));
  uint32_t a = clamp_add_sat(v, 17u, 1000u);
  uint32_t b = count_down_loop(v);
  uint32_t c = bit_tricks(v, a);
  uint32_t r = a ^ (b << 16) ^ c;
  asm volatile("st.global.wb.u32 [%0], %1;" ::"l"(out + i), "r"(r) : "memory");
}

extern "C" __global__ void asm_special_regs(unsigned long long* t, unsigned* ids) {
  unsigned long long c0, c1, gt;
  unsigned smid, warpid, nsmid;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(c0));
  asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
  asm volatile("mov.u32 %0, %%warpid;" : "=r"(warpid));
  asm volatile("mov.u32 %0, %%nsmid;" : "=r"(nsmid));
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(gt));
  asm volatile("membar.gl;" ::: "memory");
  asm volatile("fence.acq_rel.gpu;" ::: "memory");
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(c1));
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  t[2 * g] = c1 - c0;
  t[2 * g + 1] = gt;
  ids[g] = (smid << 16) | (warpid << 8) | (nsmid & 0xff);
}

// ---- host code ----------------------------------------------------------------
// Launches every kernel of this file with the block shapes the emulator tests
// (tests/test_emu_corpus_*.c) run it with; `ptxray launches` reads them.
void launch_inline_asm_scopes() {
  {
    const uint32_t * p0 = nullptr;
    uint32_t * p1 = nullptr;
    int p2{};
    int threads = 64;
    asm_scopes_kernel<<<2, threads>>>(p0, p1, p2);
  }
  {
    unsigned long long * p0 = nullptr;
    unsigned int * p1 = nullptr;
    int threads = 64;
    asm_special_regs<<<1, threads>>>(p0, p1);
  }
}
