// 211 kernels from three kernel templates and one plain kernel, as a
// templated reduction library instantiates them (issue 38: analyze's
// summary table groups them per template; tests/test_summary.c).  The
// PTX beside it: nvcc -ptx -lineinfo -O3 -arch=sm_80 many_instances.cu,
// run in this directory, its .file 1 made
// relative ("many_instances.cu").
enum class Op { Sum, Max, Min };

template <Op OP, typename T> __device__ T combine(T a, T b)
{
    if (OP == Op::Sum) return a + b;
    if (OP == Op::Max) return a > b ? a : b;
    return a < b ? a : b;
}

// A shared-memory tree reduction of one block's elements.
template <typename T, int BS, Op OP> __global__ void reduce(const T *in, T *out, int n)
{
    __shared__ T s[BS];
    int i = blockIdx.x * BS + threadIdx.x;
    s[threadIdx.x] = i < n ? in[i] : T(0);
    __syncthreads();
#pragma unroll 1
    for (int k = BS / 2; k > 0; k /= 2) {
        if (threadIdx.x < k) s[threadIdx.x] = combine<OP>(s[threadIdx.x], s[threadIdx.x + k]);
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}

// The same over a column of a row-major matrix: each thread reads with a
// stride of `cols` elements (uncoalesced).
template <typename T, int BS, Op OP> __global__ void reduce_cols(const T *in, T *out, int rows, int cols)
{
    __shared__ T s[BS];
    int c = blockIdx.x * BS + threadIdx.x;
    T acc = T(0);
#pragma unroll 1
    for (int r = 0; r < rows; r++) acc = combine<OP>(acc, in[c * cols + r]);
    s[threadIdx.x] = acc;
    __syncthreads();
    if (threadIdx.x == 0) out[blockIdx.x] = s[BS - 1];
}

// Each element divided by the block's total.
template <typename T, int BS> __global__ void normalize(T *v, const T *total, int n)
{
    int i = blockIdx.x * BS + threadIdx.x;
    if (i < n) v[i] = v[i] / total[blockIdx.x];
}

__global__ void fill(float *v, float x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] = x;
}

#define OPS(K, T, BS) template __global__ void K<T, BS, Op::Sum>(const T *, T *, int); \
    template __global__ void K<T, BS, Op::Max>(const T *, T *, int);                   \
    template __global__ void K<T, BS, Op::Min>(const T *, T *, int);
#define OPS_COLS(T, BS) template __global__ void reduce_cols<T, BS, Op::Sum>(const T *, T *, int, int); \
    template __global__ void reduce_cols<T, BS, Op::Max>(const T *, T *, int, int);                      \
    template __global__ void reduce_cols<T, BS, Op::Min>(const T *, T *, int, int);
#define SIZES(T)                                                                                     \
    OPS(reduce, T, 32) OPS(reduce, T, 64) OPS(reduce, T, 128) OPS(reduce, T, 256) OPS(reduce, T, 512) \
    OPS(reduce, T, 1024) OPS_COLS(T, 32) OPS_COLS(T, 64) OPS_COLS(T, 128) OPS_COLS(T, 256)           \
    OPS_COLS(T, 512) OPS_COLS(T, 1024)                                                               \
    template __global__ void normalize<T, 32>(T *, const T *, int);                                  \
    template __global__ void normalize<T, 64>(T *, const T *, int);                                  \
    template __global__ void normalize<T, 128>(T *, const T *, int);                                 \
    template __global__ void normalize<T, 256>(T *, const T *, int);                                 \
    template __global__ void normalize<T, 512>(T *, const T *, int);                                 \
    template __global__ void normalize<T, 1024>(T *, const T *, int);

SIZES(float)
SIZES(double)
SIZES(int)
SIZES(unsigned)
SIZES(long long)
