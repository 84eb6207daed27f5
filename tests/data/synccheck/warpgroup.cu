// Warpgroup instructions (wgmma, setmaxnreg): "all threads in the warpgroup must execute the same" one (ISA,
// .aligned), four warps together: a branch may keep every warp whole and still split a warpgroup.
// The emulator runs neither instruction, so these verdicts are checked against the ISA text only.
// PTX: nvcc -lineinfo -arch=sm_90a -ptx warpgroup.cu (CUDA 13.0), its .file made relative as in the other files here.
__global__ void bug_half(float *out)
{
    if (threadIdx.x < 64) asm volatile("wgmma.fence.sync.aligned;");
    out[threadIdx.x] = 0.0f;
}
__global__ void ok_group(float *out)
{
    if (threadIdx.x / 128 == 0) asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
    else asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
    out[threadIdx.x] = 0.0f;
}
__global__ void maybe(float *out, const int *flag)
{
    if (flag[threadIdx.x]) asm volatile("wgmma.commit_group.sync.aligned;");
    out[threadIdx.x] = 0.0f;
}
__global__ void ok_block(float *out, int n)
{
    if (blockIdx.x < n) asm volatile("wgmma.wait_group.sync.aligned 0;");
    out[threadIdx.x] = 0.0f;
}
__global__ void bug_role(float *out)
{
    if (threadIdx.x / 32 == 1) asm volatile("wgmma.fence.sync.aligned;");
    out[threadIdx.x] = 0.0f;
}
