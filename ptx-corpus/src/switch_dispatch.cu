// switch_dispatch.cu
//
// Exercises: switch statements: a dense 10-case switch on an opcode (a
// tiny bytecode interpreter loop -- candidate for a jump table, i.e.
// `brx.idx` with a `.branchtargets` list, if NVVM chooses one), a sparse
// switch (compare chain), a switch with fall-through, and an explicit
// inline-asm `brx.idx` jump table so the construct is present regardless of
// the compiler's lowering choice.
// Analyses targeted: multi-way branches, CFG construction with
// .branchtargets, divergent switch (opcode differs per thread), loops with
// switch bodies.

extern "C" __global__ void bytecode_interp(const unsigned char* code, const int* code_len,
                                           const int* args, int* result, int nprog, int maxlen) {
  int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= nprog) return;
  const unsigned char* pc = code + p * maxlen;
  int len = code_len[p];
  int acc = args[p], reg = 1;
  for (int k = 0; k < len; ++k) {
    switch (pc[k]) {
      case 0: acc += reg; break;
      case 1: acc -= reg; break;
      case 2: acc *= reg; break;
      case 3: acc = reg ? acc / reg : 0; break;
      case 4: reg = acc; break;
      case 5: acc = -acc; break;
      case 6: acc <<= 1; break;
      case 7: acc ^= 0x5a5a; break;
      case 8: reg += 1; break;
      case 9: k = len; break;  // halt
      default: acc = 0x7fffffff; break;
    }
  }
  result[p] = acc;
}

extern "C" __global__ void sparse_switch(const int* keys, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float f;
  switch (keys[i]) {
    case -1000: f = 0.5f; break;
    case 7: f = 1.0f; break;
    case 4096: f = 2.0f; break;
    case 65537: f = 3.0f; break;
    case 1 << 30: f = 4.0f; break;
    default: f = -1.0f;
  }
  out[i] = f;
}

extern "C" __global__ void fallthrough_switch(int* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = data[i];
  int bonus = 0;
  switch (v & 7) {
    case 7: bonus += 7; [[fallthrough]];
    case 6: bonus += 6; [[fallthrough]];
    case 5: bonus += 5; [[fallthrough]];
    case 4: bonus += 4; break;
    case 3: bonus = data[(i + 1) % n]; [[fallthrough]];
    case 2: bonus *= 2; break;
    default: break;
  }
  data[i] = v + bonus;
}

// Hand-written jump table: brx.idx over four targets inside an asm scope.
extern "C" __global__ void asm_jump_table(const unsigned* sel, unsigned* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned r;
  asm volatile(
      "{\n\t"
      ".reg .u32 idx;\n\t"
      "and.b32 idx, %1, 3;\n\t"
      "JT_%=: .branchtargets C0_%=, C1_%=, C2_%=, C3_%=;\n\t"
      "brx.idx idx, JT_%=;\n\t"
      "C0_%=: mov.u32 %0, 11;\n\t"
      "bra.uni DONE_%=;\n\t"
      "C1_%=: mov.u32 %0, 22;\n\t"
      "bra.uni DONE_%=;\n\t"
      "C2_%=: mov.u32 %0, 33;\n\t"
      "bra.uni DONE_%=;\n\t"
      "C3_%=: mov.u32 %0, 44;\n\t"
      "DONE_%=:\n\t"
      "}"
      : "=r"(r)
      : "r"(sel[i]));
  out[i] = r;
}

// ---- host code ----------------------------------------------------------------
// Launches every kernel of this file with the block shapes the emulator tests
// (tests/test_emu_corpus_*.c) run it with; `ptxray launches` reads them.
#define SWITCH_DISPATCH_1_THREADS 64
#define SWITCH_DISPATCH_2_THREADS 32
#define SWITCH_DISPATCH_3_THREADS 32
#define SWITCH_DISPATCH_4_THREADS 32
void launch_switch_dispatch() {
  {
    const unsigned char * p0 = nullptr;
    const int * p1 = nullptr;
    const int * p2 = nullptr;
    int * p3 = nullptr;
    int p4{};
    int p5{};
    bytecode_interp<<<2, SWITCH_DISPATCH_1_THREADS>>>(p0, p1, p2, p3, p4, p5);
  }
  {
    const int * p0 = nullptr;
    float * p1 = nullptr;
    int p2{};
    sparse_switch<<<2, SWITCH_DISPATCH_2_THREADS>>>(p0, p1, p2);
  }
  {
    int * p0 = nullptr;
    int p1{};
    fallthrough_switch<<<1, SWITCH_DISPATCH_3_THREADS>>>(p0, p1);
  }
  {
    const unsigned int * p0 = nullptr;
    unsigned int * p1 = nullptr;
    int p2{};
    asm_jump_table<<<2, SWITCH_DISPATCH_4_THREADS>>>(p0, p1, p2);
  }
}
