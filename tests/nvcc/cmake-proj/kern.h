// Shared by the library and the executable: touching it must rebuild both
// through nvcc's depfiles (tests/nvcc/projects.sh).
#pragma once
#define KERN_STRIDE 33
void scale(float *out, const float *in, int n);
void heavy_sum(float *out, const float *in, int n);
