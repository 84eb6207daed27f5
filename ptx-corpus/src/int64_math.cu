// int64_math.cu
//
// Exercises: 64-bit integer arithmetic: mul.lo/mul.hi.u64 (__umul64hi),
// rem.u64 with a runtime divisor (NVVM adds a 32-bit fast path: rem.u32
// when both operands fit), signed division by a constant (becomes
// mul.hi), a 64-bit rotate by a runtime amount (shl/shr.b64), popc.b64,
// clz.b64, brev.b64, a 64-bit atomic (atomicMax on unsigned long long),
// a 256-bit addition with an inline-asm add.cc/addc carry chain, and a
// 64-bit hash (splitmix64 mixing).
// Analyses targeted: .u64/.s64/.b64 ops, carry chains (add.cc / addc),
// mixed 32/64-bit conversions (cvt.u64.u32, cvt.s64.s32).

__device__ __forceinline__ unsigned long long splitmix64(unsigned long long x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

extern "C" __global__ void hash64(const unsigned long long* in, unsigned long long* out,
                                  unsigned long long* maxv, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned long long h = splitmix64(in[i] ^ (unsigned long long)i);
  out[i] = h;
  atomicMax(maxv, h);
}

// 64x64 -> 128 bit product, (hi, lo) pairs; mod by runtime value.
extern "C" __global__ void mul128_mod(const unsigned long long* a, const unsigned long long* b,
                                      unsigned long long* hi, unsigned long long* lo,
                                      unsigned long long* rem, unsigned long long m, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned long long x = a[i], y = b[i];
  lo[i] = x * y;
  hi[i] = __umul64hi(x, y);
  rem[i] = (x % m) * (y % m) % m;
}

extern "C" __global__ void bitops64(const long long* in, long long* out, int* counts, int n,
                                    int sh) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  long long v = in[i];
  unsigned long long u = (unsigned long long)v;
  unsigned long long rot = (u << (sh & 63)) | (u >> ((64 - sh) & 63));
  counts[3 * i + 0] = __popcll(u);
  counts[3 * i + 1] = __clzll(v);
  counts[3 * i + 2] = __ffsll(v);
  out[i] = (long long)(__brevll(rot) ^ (unsigned long long)(v / 7)) + (v >> 3);
}

// Add of 256-bit numbers stored as 4 x u64 limbs with explicit carry asm.
extern "C" __global__ void add256(const unsigned long long* a, const unsigned long long* b,
                                  unsigned long long* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const unsigned long long* x = a + 4 * i;
  const unsigned long long* y = b + 4 * i;
  unsigned long long r0, r1, r2, r3;
  asm("{\n\t"
      "add.cc.u64  %0, %4, %8;\n\t"
      "addc.cc.u64 %1, %5, %9;\n\t"
      "addc.cc.u64 %2, %6, %10;\n\t"
      "addc.u64    %3, %7, %11;\n\t"
      "}"
      : "=l"(r0), "=l"(r1), "=l"(r2), "=l"(r3)
      : "l"(x[0]), "l"(x[1]), "l"(x[2]), "l"(x[3]), "l"(y[0]), "l"(y[1]), "l"(y[2]), "l"(y[3]));
  c[4 * i + 0] = r0; c[4 * i + 1] = r1; c[4 * i + 2] = r2; c[4 * i + 3] = r3;
}

// ---- host code ----------------------------------------------------------------
// Launches every kernel of this file with the block shapes the emulator tests
// (tests/test_emu_corpus_*.c) run it with; `ptxray launches` reads them.
#define INT64_MATH_1_THREADS 64
#define INT64_MATH_2_THREADS 64
#define INT64_MATH_3_THREADS 64
#define INT64_MATH_4_THREADS 32
void launch_int64_math() {
  {
    const unsigned long long * p0 = nullptr;
    unsigned long long * p1 = nullptr;
    unsigned long long * p2 = nullptr;
    int p3{};
    hash64<<<2, INT64_MATH_1_THREADS>>>(p0, p1, p2, p3);
  }
  {
    const unsigned long long * p0 = nullptr;
    const unsigned long long * p1 = nullptr;
    unsigned long long * p2 = nullptr;
    unsigned long long * p3 = nullptr;
    unsigned long long * p4 = nullptr;
    unsigned long long p5{};
    int p6{};
    mul128_mod<<<2, INT64_MATH_2_THREADS>>>(p0, p1, p2, p3, p4, p5, p6);
  }
  {
    const long long * p0 = nullptr;
    long long * p1 = nullptr;
    int * p2 = nullptr;
    int p3{};
    int p4{};
    bitops64<<<2, INT64_MATH_3_THREADS>>>(p0, p1, p2, p3, p4);
  }
  {
    const unsigned long long * p0 = nullptr;
    const unsigned long long * p1 = nullptr;
    unsigned long long * p2 = nullptr;
    int p3{};
    add256<<<2, INT64_MATH_4_THREADS>>>(p0, p1, p2, p3);
  }
}
