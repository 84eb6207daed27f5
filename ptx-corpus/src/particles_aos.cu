// particles_aos.cu
//
// Exercises: Array-of-Structures particle update.  struct Particle
// {float3 pos; float mass; float3 vel; float charge;} = 32 bytes, loaded as
// two float4 (ld.global.v4.f32) via reinterpret_cast, and a packed float3
// variant (12-byte stride, scalar loads, uncoalesced-ish).  Also a simple
// O(N^2) n-body force with float4 positions and rsqrtf (rsqrt.approx).
// Analyses targeted: vector loads/stores (.v4/.v2), struct field offsets,
// stride-of-struct coalescing (compare with particles_soa.cu).

struct __align__(16) Particle {
  float3 pos;
  float mass;
  float3 vel;
  float charge;
};

extern "C" __global__ void particles_aos_update(Particle* p, int n, float dt, float3 g) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float4* raw = reinterpret_cast<float4*>(p + i);
  float4 a = raw[0];  // pos.xyz, mass
  float4 b = raw[1];  // vel.xyz, charge
  float inv_m = 1.0f / a.w;
  b.x += dt * g.x * inv_m * b.w;
  b.y += dt * g.y * inv_m * b.w;
  b.z += dt * g.z * inv_m * b.w;
  a.x += dt * b.x;
  a.y += dt * b.y;
  a.z += dt * b.z;
  raw[0] = a;
  raw[1] = b;
}

// Packed float3 arrays: 12-byte element stride.
extern "C" __global__ void particles_aos_float3(float3* pos, const float3* vel, int n, float dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float3 p = pos[i], v = vel[i];
    p.x += v.x * dt; p.y += v.y * dt; p.z += v.z * dt;
    pos[i] = p;
  }
}

extern "C" __global__ void nbody_forces_aos(const float4* __restrict__ posmass,
                                            float4* __restrict__ accel, int n, float eps2) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float4 pi = posmass[i];
  float ax = 0.f, ay = 0.f, az = 0.f;
  for (int j = 0; j < n; ++j) {
    float4 pj = posmass[j];
    float dx = pj.x - pi.x, dy = pj.y - pi.y, dz = pj.z - pi.z;
    float r2 = dx * dx + dy * dy + dz * dz + eps2;
    float inv = rsqrtf(r2);
    float s = pj.w * inv * inv * inv;
    ax += dx * s; ay += dy * s; az += dz * s;
  }
  accel[i] = make_float4(ax, ay, az, 0.f);
}

// ---- host code ----------------------------------------------------------------
// Launches every kernel of this file with the block shapes the emulator tests
// (tests/test_emu_corpus_*.c) run it with; `ptxray launches` reads them.
constexpr int kParticlesAosThreads1 = 128;
constexpr int kParticlesAosThreads2 = 128;
constexpr int kParticlesAosThreads3 = 32;
void launch_particles_aos() {
  {
    Particle * p0 = nullptr;
    int p1{};
    float p2{};
    float3 p3{};
    particles_aos_update<<<3, kParticlesAosThreads1>>>(p0, p1, p2, p3);
  }
  {
    float3 * p0 = nullptr;
    const float3 * p1 = nullptr;
    int p2{};
    float p3{};
    particles_aos_float3<<<3, kParticlesAosThreads2>>>(p0, p1, p2, p3);
  }
  {
    const float4 *__restrict__ p0 = nullptr;
    float4 *__restrict__ p1 = nullptr;
    int p2{};
    float p3{};
    nbody_forces_aos<<<3, kParticlesAosThreads3>>>(p0, p1, p2, p3);
  }
}
