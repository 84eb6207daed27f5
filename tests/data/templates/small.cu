// Three kernel templates and a plain kernel for the exact text of
// analyze's summary table (tests/test_summary.c).  gather's loads are
// proven uncoalesced (a stride of S floats); column's load in its loop is
// possibly uncoalesced (the stride `cols` is not known), a higher cost
// than gather's but only possible: gather ranks first.  The PTX beside
// it: nvcc -ptx -lineinfo -O3 -arch=sm_80 small.cu, run in this
// directory, its .file 1 made relative ("small.cu").
template <int S> __global__ void gather(const float *in, float *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[i * S];
}

template <typename T> __global__ void column(const T *in, T *out, int rows, int cols)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    T acc = 0;
    for (int r = 0; r < rows; r++) acc += in[c * cols + r];
    out[c] = acc;
}

namespace ns {
template <typename T, int N> __global__ void fill(T *p, T v)
{
    p[blockIdx.x * blockDim.x + threadIdx.x] = v * N;
}
}

extern "C" __global__ void plain(float *p) { p[blockIdx.x * blockDim.x + threadIdx.x] = 0.0f; }

template __global__ void gather<2>(const float *, float *);
template __global__ void gather<4>(const float *, float *);
template __global__ void column<float>(const float *, float *, int, int);
template __global__ void column<double>(const double *, double *, int, int);
template __global__ void ns::fill<int, 3>(int *, int);
