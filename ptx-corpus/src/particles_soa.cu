// particles_soa.cu
//
// Exercises: Structure-of-Arrays version of particles_aos.cu: eight
// separate float arrays passed inside a struct by value (param space
// struct of pointers, ld.param of a .b8 array), fully coalesced scalar
// accesses, plus a float4-vectorised SoA kernel processing 4 particles per
// thread (ld.global.v4.f32 on each component array).
// Analyses targeted: coalescing (all accesses unit-stride), kernel
// parameter that is a struct (aggregate .param .align 8 .b8 x[64]),
// vectorisation.

struct ParticlesSoA {
  float* x; float* y; float* z;
  float* vx; float* vy; float* vz;
  const float* mass; const float* charge;
};

extern "C" __global__ void particles_soa_update(ParticlesSoA p, int n, float dt, float gx,
                                                float gy, float gz) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float k = dt * p.charge[i] / p.mass[i];
  float vx = p.vx[i] + k * gx;
  float vy = p.vy[i] + k * gy;
  float vz = p.vz[i] + k * gz;
  p.vx[i] = vx; p.vy[i] = vy; p.vz[i] = vz;
  p.x[i] += dt * vx;
  p.y[i] += dt * vy;
  p.z[i] += dt * vz;
}

// 4 particles per thread, n4 = n / 4 (arrays 16-byte aligned).
extern "C" __global__ void particles_soa_update_vec4(float4* __restrict__ x, float4* __restrict__ y,
                                                     float4* __restrict__ z,
                                                     const float4* __restrict__ vx,
                                                     const float4* __restrict__ vy,
                                                     const float4* __restrict__ vz, int n4, float dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n4) return;
  float4 px = x[i], py = y[i], pz = z[i];
  float4 ux = vx[i], uy = vy[i], uz = vz[i];
  px.x += dt * ux.x; px.y += dt * ux.y; px.z += dt * ux.z; px.w += dt * ux.w;
  py.x += dt * uy.x; py.y += dt * uy.y; py.z += dt * uy.z; py.w += dt * uy.w;
  pz.x += dt * uz.x; pz.y += dt * uz.y; pz.z += dt * uz.z; pz.w += dt * uz.w;
  x[i] = px; y[i] = py; z[i] = pz;
}

// ---- host code ----------------------------------------------------------------
// Launches every kernel of this file with the block shapes the emulator tests
// (tests/test_emu_corpus_*.c) run it with; `ptxray launches` reads them.
void launch_particles_soa() {
  {
    ParticlesSoA p0{};
    int p1{};
    float p2{};
    float p3{};
    float p4{};
    float p5{};
    int threads = 128;
    particles_soa_update<<<3, threads>>>(p0, p1, p2, p3, p4, p5);
  }
  {
    float4 *__restrict__ p0 = nullptr;
    float4 *__restrict__ p1 = nullptr;
    float4 *__restrict__ p2 = nullptr;
    const float4 *__restrict__ p3 = nullptr;
    const float4 *__restrict__ p4 = nullptr;
    const float4 *__restrict__ p5 = nullptr;
    int p6{};
    float p7{};
    int threads = 64;
    particles_soa_update_vec4<<<1, threads>>>(p0, p1, p2, p3, p4, p5, p6, p7);
  }
}
