// One uncoalesced load (line 7: lanes 132 bytes apart) for tests/test_binaries.c,
// which builds this file into executables, libraries, objects and archives.
__global__ void strided(float *out, const float *in, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i * 33];
}

int main() { strided<<<1, 32>>>(nullptr, nullptr, 0); return 0; }
