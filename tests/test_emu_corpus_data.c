/* Corpus kernels on the emulator against C references: parameter passing,
 * constant and global variables, stencils, unrolled filters. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "emu_harness.h"

#define FOR_ARCH(a) for (unsigned ai_ = 0; ai_ < 3; ai_++) for (const char *a = eh_arches[ai_]; a; a = NULL)
#define ALLOC(T, n) ((T *)calloc((size_t)(n), sizeof(T)))

typedef struct SimParams {
    int nx, ny;
    float dt;
    double viscosity;
    float bounds[6];
    char mode;
    _Bool periodic;
} SimParams;

Test(emu_corpus, many_params)
{
    FOR_ARCH(arch) {
        eh *h = eh_open(eh_corpus(arch, "many_params"), NULL);
        int n = 200, stride = 3, g = 5, hh = 2;
        float *in0 = ALLOC(float, 1024), *in1 = ALLOC(float, n), *o0 = ALLOC(float, n), *o1 = ALLOC(float, n);
        float *w0 = ALLOC(float, n), *w1 = ALLOC(float, n);
        double *in2 = ALLOC(double, n), *o2 = ALLOC(double, n), *w2 = ALLOC(double, n);
        int32_t *idx = ALLOC(int32_t, n);
        eh_fill_f32(in0, 1024, 60, -1, 1);
        eh_fill_f32(in1, n, 61, -1, 1);
        eh_fill_f64(in2, n, 62, -1, 1);
        eh_fill_i32(idx, n, 63, 0, 300);
        float a = 1.5f, b = -2.0f, e = 0.25f, f = 0.125f;
        double c = 3.0, d = -0.5;
        signed char flag = -3;
        short sh = 7;
        uint64_t seed = 0x123456789abcull;
        unsigned u = 40000;
        long long ll = -12345;
        unsigned char uc = 200;
        for (int i = 0; i < n; i++) {
            int j = idx[i] * stride + g - hh;
            w0[i] = a * in0[j] + b * in1[i] + e - f + (float)flag + sh + uc;
            w1[i] = (float)(seed ^ (uint64_t)i) + (float)(u + ll);
            w2[i] = c * in2[i] + d;
        }
        uint64_t d0 = eh_zero(h, 4 * n), d1 = eh_zero(h, 4 * n), di0 = eh_buf(h, in0, 4096), di1 = eh_buf(h, in1, 4 * n);
        uint64_t didx = eh_buf(h, idx, 4 * n), di2 = eh_buf(h, in2, 8 * n), d2 = eh_zero(h, 8 * n);
        EH_RUN(h, "many_params_kernel", D1(4), D1(64), "pppppiiffddchclulffiippc", d0, d1, di0, di1, didx, n, stride, a, b,
               c, d, (int)flag, (int)sh, 1, seed, u, (uint64_t)ll, e, f, g, hh, di2, d2, (int)uc);
        eh_read(h, d0, o0, 4 * n);
        eh_read(h, d1, o1, 4 * n);
        eh_read(h, d2, o2, 8 * n);
        eh_expect_f32(o0, w0, n, 1e-6, 1e-4, "many_params out0");
        eh_expect_f32(o1, w1, n, 0, 0, "many_params out1");
        eh_expect_f64(o2, w2, n, 1e-15, 1e-15, "many_params out2");
        /* enable = false: nothing written */
        uint64_t z0 = eh_zero(h, 4 * n);
        EH_RUN(h, "many_params_kernel", D1(4), D1(64), "pppppiiffddchclulffiippc", z0, d1, di0, di1, didx, n, stride, a, b,
               c, d, (int)flag, (int)sh, 0, seed, u, (uint64_t)ll, e, f, g, hh, di2, d2, (int)uc);
        eh_read(h, z0, o0, 4 * n);
        for (int i = 0; i < n; i++) cr_assert_eq(o0[i], 0.0f);

        /* struct by value */
        SimParams p;
        memset(&p, 0, sizeof p);
        p.nx = 40; p.ny = 6; p.dt = 0.5f; p.viscosity = 0.1; p.mode = 'c'; p.periodic = 1;
        float bounds[6] = {-0.5f, 0.5f, 1, 2, 3, 4};
        memcpy(p.bounds, bounds, sizeof bounds);
        int cnt = p.nx * p.ny;
        float *uu = ALLOC(float, cnt), *vv = ALLOC(float, cnt), *vw = ALLOC(float, cnt);
        eh_fill_f32(uu, cnt, 64, -1, 1);
        for (int pass = 0; pass < 2; pass++) {
            p.mode = pass ? 'x' : 'c';
            p.periodic = pass;
            for (int y = 0; y < p.ny; y++)
                for (int x = 0; x < p.nx; x++) {
                    int xl = x > 0 ? x - 1 : (p.periodic ? p.nx - 1 : 0);
                    float val = uu[y * p.nx + x] + (float)(p.dt * p.viscosity) * (uu[y * p.nx + xl] - uu[y * p.nx + x]);
                    if (p.mode == 'c') val = fminf(fmaxf(val, p.bounds[0]), p.bounds[1]);
                    vw[y * p.nx + x] = val + p.bounds[2 + (x & 3)];
                }
            uint64_t du = eh_buf(h, uu, 4 * cnt), dv = eh_zero(h, 4 * cnt);
            EH_RUN(h, "struct_by_value", D2(2, 2), D2(32, 4), "bpp", &p, sizeof p, du, dv);
            eh_read(h, dv, vv, 4 * cnt);
            eh_expect_f32(vv, vw, cnt, 1e-6, 1e-6, "struct_by_value");
        }
        /* __grid_constant__ table, read through an address of the parameter */
        float table[512];
        eh_fill_f32(table, 512, 65, -1, 1);
        int32_t *sel = ALLOC(int32_t, n);
        eh_fill_i32(sel, n, 66, 0, 1000);
        for (int i = 0; i < n; i++) {
            float acc = 0.0f;
            for (int k = 0; k < 8; k++) acc += table[(sel[i] & 63) * 8 + k];
            w0[i] = acc;
        }
        uint64_t dsel = eh_buf(h, sel, 4 * n), dout = eh_zero(h, 4 * n);
        EH_RUN(h, "grid_constant_lookup", D1(4), D1(64), "bppi", table, sizeof table, dsel, dout, n);
        eh_read(h, dout, o0, 4 * n);
        eh_expect_f32(o0, w0, n, 0, 0, "grid_constant_lookup");
        /* struct by pointer */
        p.nx = 50;
        uint64_t dp = eh_buf(h, &p, sizeof p);
        float *vp = ALLOC(float, 64);
        eh_fill_f32(vp, 64, 67, -1, 1);
        for (int x = 0; x < 64; x++) w0[x] = x < p.nx ? vp[x] * (p.dt * p.bounds[x % 6]) : vp[x];
        uint64_t dvp = eh_buf(h, vp, 256);
        EH_RUN(h, "struct_by_pointer", D1(2), D1(32), "pp", dp, dvp);
        eh_read(h, dvp, vp, 256);
        eh_expect_f32(vp, w0, 64, 0, 0, "struct_by_pointer");
        free(in0); free(in1); free(o0); free(o1); free(w0); free(w1); free(in2); free(o2); free(w2); free(idx);
        free(uu); free(vv); free(vw); free(sel); free(vp);
        eh_close(h);
    }
}

Test(emu_corpus, constant_memory)
{
    FOR_ARCH(arch) {
        eh *h = eh_open(eh_corpus(arch, "constant_memory"), NULL);
        int w = 37, hg = 21;
        float *in = ALLOC(float, w * hg), *out = ALLOC(float, w * hg), *want = ALLOC(float, w * hg);
        eh_fill_f32(in, w * hg, 70, 0, 10);
        float gauss[9] = {1.f / 16, 2.f / 16, 1.f / 16, 2.f / 16, 4.f / 16, 2.f / 16, 1.f / 16, 2.f / 16, 1.f / 16};
        for (int y = 1; y < hg - 1; y++)
            for (int x = 1; x < w - 1; x++) {
                float acc = 0;
                for (int dy = -1; dy <= 1; dy++)
                    for (int dx = -1; dx <= 1; dx++) acc = fmaf(gauss[(dy + 1) * 3 + dx + 1], in[(y + dy) * w + x + dx], acc);
                want[y * w + x] = acc * 2.5f;
            }
        uint64_t din = eh_buf(h, in, 4 * w * hg), dout = eh_zero(h, 4 * w * hg);
        EH_RUN(h, "conv3x3_const", D2(3, 6), D2(16, 4), "ppii", din, dout, w, hg);
        eh_read(h, dout, out, 4 * w * hg);
        eh_expect_f32(out, want, w * hg, 1e-6, 1e-6, "conv3x3_const");
        /* the LUT is uninitialised in the PTX: set it like cudaMemcpyToSymbol */
        uint32_t lut[4096];
        uint64_t s = 71;
        for (int i = 0; i < 4096; i++) lut[i] = (uint32_t)eh_rand(&s);
        eh_set_symbol(h, "c_lut", lut, sizeof lut);
        static const int primes[16] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53};
        int n = 300;
        uint8_t *bytes = ALLOC(uint8_t, n);
        uint32_t *lo = ALLOC(uint32_t, n), *lw = ALLOC(uint32_t, n);
        for (int i = 0; i < n; i++) bytes[i] = (uint8_t)eh_rand(&s);
        for (int i = 0; i < n; i++) lw[i] = lut[(bytes[i] * 16u + (i & 15)) & 4095u] ^ (unsigned)primes[i & 15];
        uint64_t db = eh_buf(h, bytes, n), dl = eh_zero(h, 4 * n);
        EH_RUN(h, "lut_translate", D1(3), D1(128), "ppi", db, dl, n);
        eh_read(h, dl, lo, 4 * n);
        eh_expect_i32((int32_t *)lo, (int32_t *)lw, n, "lut_translate");
        struct { float ox, oy, oz, dx, dy, dz, fov; int width, height; } cam = {0.5f, 1, 2, 0.1f, -0.2f, 1, 0.8f, 40, 12};
        eh_set_symbol(h, "c_cam", &cam, sizeof cam);
        float *rays = ALLOC(float, 4 * cam.width * cam.height), *rw = ALLOC(float, 4 * cam.width * cam.height);
        for (int y = 0; y < cam.height; y++)
            for (int x = 0; x < cam.width; x++) {
                float u = (2.0f * (x + 0.5f) / cam.width - 1.0f) * cam.fov;
                float v = (2.0f * (y + 0.5f) / cam.height - 1.0f) * cam.fov;
                float d[3] = {cam.dx + u, cam.dy + v, cam.dz};
                float inv = 1.0f / sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
                float *r = rw + 4 * (y * cam.width + x);
                r[0] = d[0] * inv; r[1] = d[1] * inv; r[2] = d[2] * inv; r[3] = cam.ox;
            }
        uint64_t dr = eh_zero(h, 16 * cam.width * cam.height);
        EH_RUN(h, "camera_rays", D2(3, 2), D2(16, 8), "p", dr);
        eh_read(h, dr, rays, 16 * cam.width * cam.height);
        eh_expect_f32(rays, rw, 4 * cam.width * cam.height, 1e-5, 1e-6, "camera_rays"); /* rsqrt.approx */
        free(in); free(out); free(want); free(bytes); free(lo); free(lw); free(rays); free(rw);
        eh_close(h);
    }
}

Test(emu_corpus, device_globals_init)
{
    FOR_ARCH(arch) {
        eh *h = eh_open(eh_corpus(arch, "device_globals_init"), NULL);
        int n = 100;
        static const int table[8] = {1, 1, 2, 3, 5, 8, 13, 21};
        static const float weights[2][4] = {{0.1f, 0.2f, 0.3f, 0.4f}, {-1.f, -2.f, -3.f, -4.f}};
        static const char name[] = "ptxray";
        static const short flags[3] = {1, 2, 3};
        float *o = ALLOC(float, n), *wt = ALLOC(float, n);
        for (int i = 0; i < n; i++) {
            int fib = table[i & 7] + table[4 + (i & 3)];
            float w = weights[i & 1][i & 3] * 1.5f;
            double v = 3.14159265358979323846 * fib + -0.25 + 7;
            wt[i] = (float)v * w + name[i % 6] + flags[i % 3];
        }
        uint64_t dout = eh_zero(h, 4 * n);
        EH_RUN(h, "use_device_globals", D1(4), D1(32), "pi", dout, n);
        eh_read(h, dout, o, 4 * n);
        eh_expect_f32(o, wt, n, 1e-6, 1e-5, "use_device_globals");
        uint64_t counter;
        eh_get_symbol(h, "g_counter", &counter, 8);
        cr_assert_eq(counter, (uint64_t)n, "g_counter %llu", (unsigned long long)counter);
        /* one warp: every lane reads g_seed before lane 0 writes it */
        uint32_t lo[32], lw[32];
        for (int i = 0; i < 32; i++) {
            uint32_t x = 0xdeadbeefu ^ (uint32_t)i;
            for (int k = 0; k < 4; k++) x = x * 1664525u + 1013904223u;
            lw[i] = x;
        }
        uint64_t dl = eh_zero(h, 128);
        EH_RUN(h, "lcg_random", D1(1), D1(32), "pi", dl, 32);
        eh_read(h, dl, lo, 128);
        eh_expect_i32((int32_t *)lo, (int32_t *)lw, 32, "lcg_random");
        uint32_t seed;
        eh_get_symbol(h, "g_seed", &seed, 4);
        cr_assert_eq(seed, lw[0]);
        free(o); free(wt);
        eh_close(h);
    }
}

Test(emu_corpus, stencils)
{
    FOR_ARCH(arch) {
        eh *h = eh_open(eh_corpus(arch, "stencil2d_5pt"), NULL);
        int nx = 70, ny = 19;
        float alpha = 0.2f;
        float *u = ALLOC(float, nx * ny), *o = ALLOC(float, nx * ny), *w = ALLOC(float, nx * ny);
        eh_fill_f32(u, nx * ny, 80, 0, 1);
        for (int j = 1; j < ny - 1; j++)
            for (int i = 1; i < nx - 1; i++) {
                int c = j * nx + i;
                w[c] = u[c] + alpha * (u[c - 1] + u[c + 1] + u[c - nx] + u[c + nx] - 4.0f * u[c]);
            }
        uint64_t du = eh_buf(h, u, 4 * nx * ny), dn = eh_zero(h, 4 * nx * ny);
        EH_RUN(h, "jacobi5_naive", D2(3, 3), D2(32, 8), "ppiif", du, dn, nx, ny, alpha);
        eh_read(h, dn, o, 4 * nx * ny);
        eh_expect_f32(o, w, nx * ny, 1e-6, 1e-6, "jacobi5_naive");
        /* shared version copies the boundary */
        for (int j = 0; j < ny; j++)
            for (int i = 0; i < nx; i++)
                if (i == 0 || j == 0 || i == nx - 1 || j == ny - 1) w[j * nx + i] = u[j * nx + i];
        dn = eh_zero(h, 4 * nx * ny);
        EH_RUN(h, "jacobi5_shared", D2(3, 3), D2(32, 8), "ppiif", du, dn, nx, ny, alpha);
        eh_read(h, dn, o, 4 * nx * ny);
        eh_expect_f32(o, w, nx * ny, 1e-6, 1e-6, "jacobi5_shared");
        eh_close(h);

        h = eh_open(eh_corpus(arch, "stencil3d_7pt"), NULL);
        int X = 20, Y = 10, Z = 7;
        size_t N3 = (size_t)X * Y * Z;
        double *in = ALLOC(double, N3), *od = ALLOC(double, N3), *wd = ALLOC(double, N3);
        eh_fill_f64(in, N3, 81, -1, 1);
        double c0 = 0.4, c1 = 0.1;
        size_t sxy = (size_t)X * Y;
        for (int z = 1; z < Z - 1; z++)
            for (int y = 1; y < Y - 1; y++)
                for (int x = 1; x < X - 1; x++) {
                    size_t i = z * sxy + (size_t)y * X + x;
                    wd[i] = c0 * in[i] + c1 * (in[i - 1] + in[i + 1] + in[i - X] + in[i + X] + in[i - sxy] + in[i + sxy]);
                }
        uint64_t di = eh_buf(h, in, 8 * N3), dod = eh_zero(h, 8 * N3);
        EH_RUN(h, "stencil7_naive", D3(3, 2, 2), D3(8, 8, 4), "ppiiidd", di, dod, X, Y, Z, c0, c1);
        eh_read(h, dod, od, 8 * N3);
        eh_expect_f64(od, wd, N3, 1e-15, 1e-15, "stencil7_naive");
        float *inf = ALLOC(float, N3), *of = ALLOC(float, N3), *wf = ALLOC(float, N3);
        for (size_t i = 0; i < N3; i++) inf[i] = (float)in[i];
        float f0 = 0.4f, f1 = 0.1f;
        for (int z = 1; z < Z - 1; z++)
            for (int y = 1; y < Y - 1; y++)
                for (int x = 1; x < X - 1; x++) {
                    size_t i = z * sxy + (size_t)y * X + x;
                    wf[i] = f0 * inf[i] + f1 * (inf[i - 1] + inf[i + 1] + inf[i - X] + inf[i + X] + inf[i - sxy] + inf[i + sxy]);
                }
        uint64_t dif = eh_buf(h, inf, 4 * N3), dof = eh_zero(h, 4 * N3);
        EH_RUN(h, "stencil7_25d", D2(1, 2), D2(32, 8), "ppiiiff", dif, dof, X, Y, Z, f0, f1);
        eh_read(h, dof, of, 4 * N3);
        eh_expect_f32(of, wf, N3, 1e-6, 1e-6, "stencil7_25d");
        free(u); free(o); free(w); free(in); free(od); free(wd); free(inf); free(of); free(wf);
        eh_close(h);
    }
}

Test(emu_corpus, regtile)
{
    FOR_ARCH(arch) {
        eh *h = eh_open(eh_corpus(arch, "regtile_16x16"), NULL);
        int M = 32, N = 48, K = 9;
        float *A = ALLOC(float, M * K), *B = ALLOC(float, K * N), *C = ALLOC(float, M * N), *W = ALLOC(float, M * N);
        eh_fill_f32(A, M * K, 90, -1, 1);
        eh_fill_f32(B, K * N, 91, -1, 1);
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++) {
                float acc = 0;
                for (int k = 0; k < K; k++) acc = fmaf(A[i * K + k], B[k * N + j], acc);
                W[i * N + j] = acc;
            }
        uint64_t dA = eh_buf(h, A, 4 * M * K), dB = eh_buf(h, B, 4 * K * N), dC = eh_zero(h, 4 * M * N);
        EH_RUN(h, "sgemm_regtile_16x16", D1(1), D2(3, 2), "pppiii", dA, dB, dC, M, N, K);
        eh_read(h, dC, C, 4 * M * N);
        eh_expect_f32(C, W, M * N, 0, 0, "sgemm_regtile_16x16"); /* the same fmaf chain */
        int T = 64, steps = 5;
        double *x = ALLOC(double, T), *o = ALLOC(double, T), *wd = ALLOC(double, T);
        eh_fill_f64(x, T, 92, -1, 1);
        for (int t = 0; t < T; t++) {
            double v[64];
            for (int i = 0; i < 64; i++) v[i] = x[t] * (i + 1);
            for (int s = 0; s < steps; s++)
                for (int i = 0; i < 64; i++) v[i] = v[i] * 0.999 + v[(i + 1) & 63] * 0.001 + s;
            double r = 0;
            for (int i = 0; i < 64; i++) r += v[i] * (i & 1 ? -1.0 : 1.0);
            wd[t] = r;
        }
        uint64_t dx = eh_buf(h, x, 8 * T), dout = eh_zero(h, 8 * T);
        EH_RUN(h, "dpoly_bank_64", D1(2), D1(32), "ppi", dx, dout, steps);
        eh_read(h, dout, o, 8 * T);
        /* fma contraction in 64 x 5 updates, then an alternating sum of values up to ~70 */
        eh_expect_f64(o, wd, T, 0, 1e-11, "dpoly_bank_64");
        free(A); free(B); free(C); free(W); free(x); free(o); free(wd);
        eh_close(h);
    }
}

Test(emu_corpus, fir_unrolled)
{
    FOR_ARCH(arch) {
        eh *h = eh_open(eh_corpus(arch, "fir_unrolled"), NULL);
        float taps[128];
        eh_fill_f32(taps, 128, 100, -1, 1);
        eh_set_symbol(h, "c_taps", taps, sizeof taps);
        int n = 300;
        float *in = ALLOC(float, n), *out = ALLOC(float, n), *w = ALLOC(float, n);
        eh_fill_f32(in, n, 101, -1, 1);
        static const struct { const char *k; int nt; } ks[] = {
            {"_Z14fir_const_tapsILi31EEvPKfPfi", 31}, {"_Z14fir_const_tapsILi64EEvPKfPfi", 64},
            {"_Z14fir_const_tapsILi127EEvPKfPfi", 127}};
        uint64_t din = eh_buf(h, in, 4 * n);
        for (int k = 0; k < 3; k++) {
            for (int i = 0; i < n; i++) {
                float acc = 0;
                for (int t = 0; t < ks[k].nt; t++) acc = fmaf(taps[t], i - t >= 0 ? in[i - t] : 0.0f, acc);
                w[i] = acc;
            }
            uint64_t dout = eh_zero(h, 4 * n);
            EH_RUN(h, ks[k].k, D1(3), D1(128), "ppi", din, dout, n);
            eh_read(h, dout, out, 4 * n);
            eh_expect_f32(out, w, n, 1e-6, 1e-6, ks[k].k);
        }
        /* sliding window: taps passed by value (256-byte struct) */
        int base_n = 8 * 32 + 64;
        float *in2 = ALLOC(float, base_n), *o2 = ALLOC(float, base_n), *w2 = ALLOC(float, base_n);
        eh_fill_f32(in2, base_n, 102, -1, 1);
        for (int t = 0; t < 32; t++) {
            int base = t * 8;
            if (base + 8 + 64 > base_n) continue;
            for (int o = 0; o < 8; o++) {
                float acc = 0;
                for (int k = 0; k < 64; k++) acc = fmaf(taps[k], in2[base + o + 63 - k], acc);
                w2[base + o] = acc;
            }
        }
        uint64_t di2 = eh_buf(h, in2, 4 * base_n), do2 = eh_zero(h, 4 * base_n);
        EH_RUN(h, "fir_sliding_window", D1(1), D1(32), "ppib", di2, do2, base_n, taps, (size_t)256);
        eh_read(h, do2, o2, 4 * base_n);
        eh_expect_f32(o2, w2, base_n, 0, 0, "fir_sliding_window");
        free(in); free(out); free(w); free(in2); free(o2); free(w2);
        eh_close(h);
    }
}
