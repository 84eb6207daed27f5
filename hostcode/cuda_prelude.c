/* The flags and in-memory headers libclang parses CUDA host code with
 * (cuda_prelude.h, docs/launches.md). */
#include "cuda_prelude.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Both modes: what nvcc knows and clang 14 does not (__noinline__ is a
 * keyword for nvcc, newer load/store intrinsics), declared for the host
 * side's parse of device code. */
#define COMMON_PRELUDE                                                                                    \
    "#pragma clang system_header\n"                                                                       \
    "#ifndef __noinline__\n#define __noinline__ __attribute__((noinline))\n#endif\n"                     \
    "#ifndef __grid_constant__\n#define __grid_constant__\n#endif\n"                                      \
    "template <class T> __device__ T __ldcs(const T *);\n"                                               \
    "template <class T> __device__ T __ldcg(const T *);\n"                                               \
    "template <class T> __device__ T __ldlu(const T *);\n"                                               \
    "template <class T> __device__ T __ldcv(const T *);\n"                                               \
    "template <class T> __device__ T __ldca(const T *);\n"                                               \
    "template <class T> __device__ void __stcs(T *, T);\n"                                               \
    "template <class T> __device__ void __stcg(T *, T);\n"                                               \
    "template <class T> __device__ void __stwb(T *, T);\n"                                               \
    "template <class T> __device__ void __stwt(T *, T);\n"

/* Built-in mode: a minimal CUDA runtime, enough for host code that
 * launches kernels and for simple device code. */
static const char builtin_prelude[] =
    "#pragma clang system_header\n"
    "#define __CUDACC__ 1\n"
    "#define __NVCC__ 1\n"
    "#define __CUDACC_VER_MAJOR__ 12\n"
    "#define __global__ __attribute__((global))\n"
    "#define __device__ __attribute__((device))\n"
    "#define __host__ __attribute__((host))\n"
    "#define __shared__ __attribute__((shared))\n"
    "#define __constant__ __attribute__((constant))\n"
    "#define __managed__ __attribute__((managed))\n"
    "#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))\n"
    "#define __forceinline__ __inline__ __attribute__((always_inline))\n"
    "#define __restrict__ __restrict\n"
    "#define __align__(n) __attribute__((aligned(n)))\n"
    "#define __cluster_dims__(...)\n"
    "#define __block_size__(...)\n"
    "#define __maxnreg__(n)\n"
    "typedef __SIZE_TYPE__ size_t;\n"
    /* aligned as vector_types.h aligns them (N2: twice the element, N4: four
     * times, at most 16): srcnames reads __constant__ structs' layouts */
    "#define PTXRAY_VEC(T, N) struct N##1 { T x; }; struct __attribute__((aligned(2 * sizeof(T)))) N##2 { T x, y; };\\\n"
    "  struct N##3 { T x, y, z; };\\\n"
    "  struct __attribute__((aligned(4 * sizeof(T) < 16 ? 4 * sizeof(T) : 16))) N##4 { T x, y, z, w; };\n"
    "PTXRAY_VEC(float, float) PTXRAY_VEC(double, double) PTXRAY_VEC(int, int) PTXRAY_VEC(unsigned, uint)\n"
    "PTXRAY_VEC(char, char) PTXRAY_VEC(unsigned char, uchar) PTXRAY_VEC(short, short)\n"
    "PTXRAY_VEC(unsigned short, ushort) PTXRAY_VEC(long long, longlong) PTXRAY_VEC(unsigned long long, ulonglong)\n"
    "PTXRAY_VEC(long, long) PTXRAY_VEC(unsigned long, ulong)\n"
    "#undef PTXRAY_VEC\n"
    "typedef unsigned long long cudaTextureObject_t;\n"
    "typedef unsigned long long cudaSurfaceObject_t;\n"
    "struct dim3 {\n"
    "  unsigned x, y, z;\n"
    "  __host__ __device__ constexpr dim3(unsigned vx = 1, unsigned vy = 1, unsigned vz = 1) : x(vx), y(vy), z(vz) {}\n"
    "  __host__ __device__ constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}\n"
    "  __host__ __device__ constexpr operator uint3() const { return uint3{x, y, z}; }\n"
    "};\n"
    "struct __half { unsigned short __x; }; struct __attribute__((aligned(4))) __half2 { __half x, y; };\n"
    "typedef __half half;\n"
    "struct __nv_bfloat16 { unsigned short __x; };\n"
    "struct __attribute__((aligned(4))) __nv_bfloat162 { __nv_bfloat16 x, y; };\n"
    "extern const __device__ uint3 threadIdx, blockIdx;\n"
    "extern const __device__ dim3 blockDim, gridDim;\n"
    "extern const __device__ int warpSize;\n"
    "typedef struct CUstream_st *cudaStream_t;\n"
    "typedef struct CUfunc_st *cudaFunction_t;\n"
    "typedef struct CUkern_st *cudaKernel_t;\n"
    "typedef enum cudaError { cudaSuccess = 0 } cudaError_t;\n"
    "enum cudaMemcpyKind { cudaMemcpyHostToHost, cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost,\n"
    "  cudaMemcpyDeviceToDevice, cudaMemcpyDefault };\n"
    "struct cudaLaunchAttribute_st; typedef struct cudaLaunchAttribute_st cudaLaunchAttribute;\n"
    "typedef struct cudaLaunchConfig_st { dim3 gridDim; dim3 blockDim; size_t dynamicSmemBytes;\n"
    "  cudaStream_t stream; cudaLaunchAttribute *attrs; unsigned numAttrs; } cudaLaunchConfig_t;\n"
    "extern \"C\" {\n"
    "unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem = 0, void *stream = 0);\n"
    "cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args,\n"
    "  size_t sharedMem, cudaStream_t stream);\n"
    "cudaError_t cudaLaunchCooperativeKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args,\n"
    "  size_t sharedMem, cudaStream_t stream);\n"
    "cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func, void **args);\n"
    "cudaError_t cudaMalloc(void **p, size_t n);\n"
    "cudaError_t cudaMallocManaged(void **p, size_t n, unsigned flags = 1);\n"
    "cudaError_t cudaFree(void *p);\n"
    "cudaError_t cudaMemcpy(void *d, const void *s, size_t n, cudaMemcpyKind k);\n"
    "cudaError_t cudaMemset(void *d, int v, size_t n);\n"
    "cudaError_t cudaDeviceSynchronize(void);\n"
    "cudaError_t cudaGetLastError(void);\n"
    "const char *cudaGetErrorString(cudaError_t e);\n"
    "cudaError_t cudaStreamCreate(cudaStream_t *s);\n"
    "cudaError_t cudaStreamDestroy(cudaStream_t s);\n"
    "cudaError_t cudaStreamSynchronize(cudaStream_t s);\n"
    "cudaError_t cudaOccupancyMaxPotentialBlockSize(int *minGridSize, int *blockSize, const void *func,\n"
    "  size_t dynamicSMemSize = 0, int blockSizeLimit = 0);\n"
    "cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count, size_t offset = 0,\n"
    "  cudaMemcpyKind kind = cudaMemcpyHostToDevice);\n"
    "}\n"
    "template <class T> static inline cudaError_t cudaMalloc(T **p, size_t n) { return cudaMalloc((void **)p, n); }\n"
    "template <class T> static inline cudaError_t cudaLaunchKernel(T *func, dim3 g, dim3 b, void **args,\n"
    "  size_t sm = 0, cudaStream_t s = 0) { return cudaLaunchKernel((const void *)func, g, b, args, sm, s); }\n"
    "template <class T> static inline cudaError_t cudaLaunchCooperativeKernel(T *func, dim3 g, dim3 b, void **args,\n"
    "  size_t sm = 0, cudaStream_t s = 0) { return cudaLaunchCooperativeKernel((const void *)func, g, b, args, sm, s); }\n"
    "template <typename... E, typename... A> static inline cudaError_t cudaLaunchKernelEx(\n"
    "  const cudaLaunchConfig_t *config, void (*kernel)(E...), A &&...args) {\n"
    "  void *p[sizeof...(A) + 1] = {(void *)&args...}; return cudaLaunchKernelExC(config, (const void *)kernel, p); }\n"
    "template <class T> static inline cudaError_t cudaOccupancyMaxPotentialBlockSize(int *g, int *b, T func,\n"
    "  size_t sm = 0, int lim = 0) { return cudaOccupancyMaxPotentialBlockSize(g, b, (const void *)func, sm, lim); }\n"
    "template <class T> static inline cudaError_t cudaMemcpyToSymbol(const T &symbol, const void *src, size_t count,\n"
    "  size_t offset = 0, cudaMemcpyKind kind = cudaMemcpyHostToDevice) {\n"
    "  return cudaMemcpyToSymbol((const void *)&symbol, src, count, offset, kind); }\n"
    "__device__ void __syncthreads(void);\n"
    "__device__ void __syncwarp(unsigned mask = 0xffffffffu);\n"
    "__device__ void __threadfence(void);\n"
    "template <class T> __device__ T __shfl_sync(unsigned m, T v, int l, int w = 32);\n"
    "template <class T> __device__ T __shfl_down_sync(unsigned m, T v, unsigned d, int w = 32);\n"
    "template <class T> __device__ T __shfl_up_sync(unsigned m, T v, unsigned d, int w = 32);\n"
    "template <class T> __device__ T __shfl_xor_sync(unsigned m, T v, int l, int w = 32);\n"
    "__device__ unsigned __ballot_sync(unsigned m, int p);\n"
    "__device__ int __any_sync(unsigned m, int p);\n"
    "__device__ int __all_sync(unsigned m, int p);\n"
    "__device__ unsigned __activemask(void);\n"
    "__device__ int __popc(unsigned x); __device__ int __ffs(int x); __device__ int __clz(int x);\n"
    "template <class T> __device__ T __ldg(const T *p);\n"
    "template <class T> __device__ T atomicAdd(T *p, T v);\n"
    "template <class T> __device__ T atomicSub(T *p, T v);\n"
    "template <class T> __device__ T atomicMax(T *p, T v);\n"
    "template <class T> __device__ T atomicMin(T *p, T v);\n"
    "template <class T> __device__ T atomicExch(T *p, T v);\n"
    "template <class T> __device__ T atomicOr(T *p, T v);\n"
    "template <class T> __device__ T atomicAnd(T *p, T v);\n"
    "template <class T> __device__ T atomicCAS(T *p, T c, T v);\n"
    "extern \"C\" int printf(const char *, ...);\n"
    "#define PTXRAY_HD extern \"C\" __host__ __device__\n"
    "PTXRAY_HD float sqrtf(float); PTXRAY_HD float expf(float); PTXRAY_HD float fabsf(float);\n"
    "PTXRAY_HD float fmaxf(float, float); PTXRAY_HD float fminf(float, float); PTXRAY_HD float rsqrtf(float);\n"
    "PTXRAY_HD float __expf(float); PTXRAY_HD float __fdividef(float, float); PTXRAY_HD float logf(float);\n"
    "PTXRAY_HD double sqrt(double); PTXRAY_HD double exp(double); PTXRAY_HD double fabs(double);\n"
    "#undef PTXRAY_HD\n"
    COMMON_PRELUDE;

/* Toolkit mode: after clang's CUDA wrapper and the toolkit's headers. */
static const char toolkit_prelude[] = COMMON_PRELUDE;

/* clang 14's wrapper includes these; CUDA 12 removed texture references
 * (and with them the templates the first one uses). */
static const char texture_stub[] =
    "#pragma clang system_header\n"
    "template <class T, class... A> __device__ void __nv_tex_surf_handler(const char *, T *, A...);\n";

static const hc_vfile toolkit_files[] = {
    {HC_OVERLAY_DIR "/ptxray_prelude.h", toolkit_prelude},
    {HC_OVERLAY_DIR "/__clang_cuda_texture_intrinsics.h", texture_stub},
    {HC_OVERLAY_DIR "/texture_fetch_functions.h", "#pragma clang system_header\n"},
};

/* Built-in mode: the usual CUDA includes find nothing more to declare. */
#define EMPTY "#pragma clang system_header\n"
static const hc_vfile builtin_files[] = {
    {HC_OVERLAY_DIR "/ptxray_prelude.h", builtin_prelude},
    {HC_OVERLAY_DIR "/cuda_runtime.h", EMPTY},
    {HC_OVERLAY_DIR "/cuda_runtime_api.h", EMPTY},
    {HC_OVERLAY_DIR "/cuda.h", EMPTY},
    {HC_OVERLAY_DIR "/device_launch_parameters.h", EMPTY},
    {HC_OVERLAY_DIR "/cuda_fp16.h", EMPTY},
    {HC_OVERLAY_DIR "/cuda_bf16.h", EMPTY},
};

const hc_vfile *hc_vfiles(bool toolkit, size_t *n)
{
    *n = toolkit ? sizeof toolkit_files / sizeof toolkit_files[0] : sizeof builtin_files / sizeof builtin_files[0];
    return toolkit ? toolkit_files : builtin_files;
}

static bool has_runtime(const char *dir)
{
    if (!dir || !*dir || strlen(dir) > 4000) return false;
    char p[4200];
    snprintf(p, sizeof p, "%s/include/cuda_runtime.h", dir);
    return access(p, R_OK) == 0;
}

const char *hc_cuda_dir(const char *cuda_path)
{
    static char buf[4096];
    const char *c[3] = {cuda_path, cuda_path ? NULL : getenv("CUDA_PATH"), cuda_path ? NULL : "/usr/local/cuda"};
    for (int i = 0; i < 3; i++)
        if (has_runtime(c[i])) {
            snprintf(buf, sizeof buf, "%s", c[i]);
            return buf;
        }
    return NULL;
}

size_t hc_base_args(const char *toolkit, const char *args[HC_MAX_BASE_ARGS], char bufs[][HC_ARGBUF])
{
    size_t n = 0, nb = 0;
    args[n++] = "-x";
    args[n++] = "cuda";
    args[n++] = "--cuda-host-only";
    args[n++] = "-nocudalib";
    args[n++] = "-Wno-unknown-cuda-version";
    args[n++] = "-ferror-limit=0";
    args[n++] = "-std=c++17";
    args[n++] = "-I" HC_OVERLAY_DIR;
    if (toolkit) {
        snprintf(bufs[nb], HC_ARGBUF, "--cuda-path=%s", toolkit);
        args[n++] = bufs[nb++];
        /* CUDA 13 keeps libcu++ (cuda/std/...) under include/cccl */
        args[n++] = "-isystem";
        snprintf(bufs[nb], HC_ARGBUF, "%s/include/cccl", toolkit);
        args[n++] = bufs[nb++];
    } else {
        args[n++] = "-nocudainc";
    }
    args[n++] = "-include";
    args[n++] = HC_OVERLAY_DIR "/ptxray_prelude.h";
    return n;
}
