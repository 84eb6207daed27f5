// Where check puts its findings (issue 20): an access inside an inlined
// __device__ helper at the helper's line, with the kernel's call as its call
// site; an atomicAdd at the user's call, not inside the toolkit header; an
// array-of-structures access whose structure size is not a multiple of
// 32 bytes as a possible misalignment, and as a proven one when the field's
// offset keeps lane 0 off every 32-byte boundary.
// nvcc -ptx -lineinfo -arch=sm_80 -o helpers.ptx helpers.cu, then .file 1 made "helpers.cu"
struct node {
    float keys[32];
    int count, pad; // sizeof(node) = 136: a multiple of 8, not of 32
};

struct rec {
    int count;
    float vals[32]; // at offset 4
    int pad;
};

__device__ __forceinline__ float load_strided(const float *p, int i)
{
    return p[i * 8];
}

__global__ void helper_kernel(const float *in, float *out, int *hits)
{
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    float v = load_strided(in, i);
    out[i] = v;
    atomicAdd(&hits[i * 16], 1);
}

__global__ void aos_kernel(const node *nodes, float *out, int k)
{
    out[threadIdx.x] = nodes[k].keys[threadIdx.x];
}

__global__ void aos_shifted_kernel(const rec *recs, float *out, int k)
{
    out[threadIdx.x] = recs[k].vals[threadIdx.x];
}
