// GPUDrano (Alur et al. 2017), Fig. 1: coalesced and uncoalesced accesses.
// tid is the global 1-D thread id; array and out are in global memory.
extern "C" __global__ void fig1(const int* array, int* out) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  int a = array[0];        // Example 1: coalesced (one address)
  int b = array[tid];      // Example 2: coalesced (consecutive)
  int c = array[8 * tid];  // Example 3: uncoalesced (32 bytes apart)
  out[tid] = a + b + c;
}
