// A file libclang cannot fully parse: the launch it can evaluate is
// reported, with a warning.
__global__ void ok(float *a) { a[threadIdx.x] = 0.0f; }

void broken(float *a) {
  undeclared_function(a);
  ok<<<1, 32 a);
}

void fine(float *a) {
  ok<<<1, dim3(8, 4)>>>(a);
}
