// IPDA (Chikin et al. 2019), Fig. 1: a conditionally defined index.  The
// parallel loop's iteration i is the thread's global id; B holds doubles,
// so neighbouring threads store 8 bytes apart on either side of i < 32.
#define TSIZE 64
extern "C" __global__ void ipda_fig1(double* B, const double* C, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= N) return;
  int idx = 0;
  if (i < (TSIZE / 2))
    idx = TSIZE + i;
  else
    idx = i;
  B[idx] = C[i] * 2.0;
}
