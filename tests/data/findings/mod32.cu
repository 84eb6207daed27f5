// A misalignment known modulo 32 bytes, not 128 (issue 20 item 8): the
// structure's size is a multiple of 32 B but not of 128 B, so lane 0 of
// cells[k].vals[tid] is known to sit 4 B past a 32-byte boundary and
// nothing more.
// nvcc -ptx -lineinfo -arch=sm_80 -o mod32.ptx mod32.cu, then .file 1 made "mod32.cu"
struct cell {
    int tag;
    float vals[39]; // at offset 4; sizeof(cell) = 160 = 5 * 32
};

__global__ void mod32_kernel(const cell *cells, float *out, int k)
{
    out[threadIdx.x] = cells[k].vals[threadIdx.x];
}
