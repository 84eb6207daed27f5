// A launch whose shape comes from nvcc's preprocessor options (tests/test_nvcc_opts.c):
// TPB from a header found only through -I tests/data/nvflags/inc, ROWS from
// -D (or -Xcompiler -D), undone by -U, PRE from -include tests/data/nvflags/pre.h,
// STD from -std.  The kernel's template arguments are the same macros, so
// nvcc's PTX names the kernel by what nvcc saw, and the launch names it by
// what libclang saw: the report gives the launch's shape only when they agree.
#include "nvflags_cfg.h"
#ifndef ROWS
#define ROWS 1
#endif
#ifndef PRE
#define PRE 1
#endif
#if __cplusplus >= 202002L
#define STD 2
#else
#define STD 1
#endif

template <int R, int D>
__global__ void tile(float *a) { a[(threadIdx.z * R + threadIdx.y) * TPB + threadIdx.x] = 0.0f; }

inline constexpr int depth = PRE * STD; // an inline variable: C++17

void run(float *a) { tile<ROWS, depth><<<1, dim3(TPB, ROWS, depth)>>>(a); }
