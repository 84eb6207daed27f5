/* Corpus kernels on the emulator against plain C references: element-wise,
 * stencil, matrix and parameter-passing kernels.  Every kernel runs from
 * the sm_75, sm_80 and sm_90 PTX.  Integer results must be equal; float
 * results within the tolerance noted at each comparison (the reference is
 * compiled without FMA contraction, the PTX contracts a*b+c into fma.rn,
 * so single results may differ in the last bits; sums differ by
 * reassociation where noted). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "emu_harness.h"

#define FOR_ARCH(a) for (unsigned ai_ = 0; ai_ < 3; ai_++) for (const char *a = eh_arches[ai_]; a; a = NULL)
#define ALLOC(T, n) ((T *)calloc((size_t)(n), sizeof(T)))

/* ---- sampaio_divergence -------------------------------------------------------- */
Test(emu_corpus, sampaio_divergence)
{
    EH_FOR_VARIANT(vk, 1) {
        const char *arch = eh_variant(vk, "sampaio_divergence");
        eh *h = eh_open(arch, NULL);
        int c = 40, T = 64; /* threads >= c take no part */
        float *m = ALLOC(float, c * c + T), *v = ALLOC(float, T), *want = ALLOC(float, T);
        eh_fill_f32(m, c * c + T, 1, -1, 1);
        uint64_t dm = eh_buf(h, m, (c * c + T) * 4), dv = eh_zero(h, T * 4);
        EH_RUN(h, "avgSquare", D1(1), D1(T), "ppi", dm, dv, c);
        eh_read(h, dv, v, T * 4);
        for (int t = 0; t < T; t++) {
            if (t >= c) { want[t] = 0; continue; }
            float sum = 0;
            int d = 0;
            for (int i = t; i < t + c * c; i += c) { sum += m[i]; d++; }
            want[t] = sum / d;
        }
        eh_expect_f32(v, want, T, 1e-5, 1e-6, "avgSquare v"); /* same order of additions */
        /* sumTriangle: thread t sums the odd-numbered terms of its column and
         * writes v[d-1] with d = t+1, its trip count */
        uint64_t dv2 = eh_zero(h, T * 4);
        EH_RUN(h, "sumTriangle", D1(1), D1(32), "ppi", dm, dv2, 8);
        float v2[64];
        eh_read(h, dv2, v2, 32 * 4);
        /* with c = 8 every active thread (t < 8) ends with d = t + 1 and writes v[t] */
        for (int t = 0; t < 8; t++) {
            float sum = 0;
            int d = 0;
            for (int i = t; i < (t + 1) * 8; i += 8) { if (d % 2) sum += m[i]; d++; }
            cr_assert_float_eq(v2[d - 1], sum, 1e-5f, "%s sumTriangle v[%d]", arch, d - 1);
        }
        for (int t = 8; t < 32; t++) cr_assert_eq(v2[t], 0.0f);
        /* s: rows of ones */
        int n = 5;
        uint64_t ds = eh_zero(h, 32 * n * 4);
        EH_RUN(h, "s", D1(1), D1(32), "pi", ds, n);
        int32_t *sm = ALLOC(int32_t, 32 * n), *sw = ALLOC(int32_t, 32 * n);
        eh_read(h, ds, sm, 32 * n * 4);
        for (int i = 0; i < 32 * n; i++) sw[i] = 1;
        eh_expect_i32(sm, sw, 32 * n, "s");
        free(m); free(v); free(want); free(sm); free(sw);
        eh_close(h);
    }
}

/* ---- gaussian_fan --------------------------------------------------------------- */
Test(emu_corpus, gaussian_fan)
{
    EH_FOR_VARIANT(vk, 1) {
        eh *h = eh_open(eh_variant(vk, "gaussian_fan"), NULL);
        int N = 48, t = 3;
        float *a = ALLOC(float, N * N), *m = ALLOC(float, N * N), *b = ALLOC(float, N);
        eh_fill_f32(a, N * N, 2, 1, 2);
        eh_fill_f32(b, N, 3, -1, 1);
        uint64_t da = eh_buf(h, a, N * N * 4), dm = eh_zero(h, N * N * 4), db = eh_buf(h, b, N * 4);
        EH_RUN(h, "Fan1", D1(2), D1(32), "ppii", dm, da, N, t);
        float *gm = ALLOC(float, N * N), *wm = ALLOC(float, N * N);
        eh_read(h, dm, gm, N * N * 4);
        for (int x = t + 1; x < N; x++) wm[N * x + t] = a[N * x + t] / a[N * t + t];
        eh_expect_f32(gm, wm, N * N, 0, 0, "Fan1 m"); /* one correctly rounded division */
        /* Fan2 (row per thread) and Fan2_fixed (column per thread) compute the same update */
        const char *kn[2] = {"Fan2", "Fan2_fixed"};
        for (int k = 0; k < 2; k++) {
            uint64_t dA = eh_buf(h, a, N * N * 4), dB = eh_buf(h, b, N * 4);
            EH_RUN(h, kn[k], D1(2), D1(32), "pppii", dm, dA, dB, N, t);
            float *A = ALLOC(float, N * N), *B = ALLOC(float, N), *gA = ALLOC(float, N * N), *gB = ALLOC(float, N);
            memcpy(A, a, N * N * 4);
            memcpy(B, b, N * 4);
            for (int x = t + 1; x < N; x++)
                for (int y = t; y < N; y++) {
                    A[N * x + y] -= wm[N * x + t] * A[N * t + y];
                    if (y == t) B[x] -= wm[N * x + t] * B[t];
                }
            eh_read(h, dA, gA, N * N * 4);
            eh_read(h, dB, gB, N * 4);
            eh_expect_f32(gA, A, N * N, 1e-6, 1e-6, kn[k]); /* fma contraction */
            eh_expect_f32(gB, B, N, 1e-6, 1e-6, kn[k]);
            free(A); free(B); free(gA); free(gB);
        }
        (void)db;
        free(a); free(m); free(b); free(gm); free(wm);
        eh_close(h);
    }
}

/* ---- transposes ------------------------------------------------------------------ */
static void transpose_ref(const float *in, float *out, int w, int hgt)
{
    for (int y = 0; y < hgt; y++)
        for (int x = 0; x < w; x++) out[x * hgt + y] = in[y * w + x];
}

Test(emu_corpus, transposes)
{
    FOR_ARCH(arch) {
        int w = 70, hg = 45; /* not multiples of the tile: exercises the bounds checks */
        float *in = ALLOC(float, w * hg), *want = ALLOC(float, w * hg), *got = ALLOC(float, w * hg);
        eh_fill_f32(in, w * hg, 4, -10, 10);
        transpose_ref(in, want, w, hg);
        eh *h = eh_open(eh_corpus(arch, "transpose_naive"), NULL);
        uint64_t di = eh_buf(h, in, w * hg * 4), dout = eh_zero(h, w * hg * 4);
        EH_RUN(h, "transpose_naive", D2(5, 12), D2(16, 4), "ppii", dout, di, w, hg);
        eh_read(h, dout, got, w * hg * 4);
        eh_expect_f32(got, want, w * hg, 0, 0, "transpose_naive");
        double *ind = ALLOC(double, w * hg), *wantd = ALLOC(double, w * hg), *gotd = ALLOC(double, w * hg);
        for (int i = 0; i < w * hg; i++) ind[i] = in[i] * 3.0;
        for (int y = 0; y < hg; y++)
            for (int x = 0; x < w; x++) wantd[x * hg + y] = ind[y * w + x];
        uint64_t did = eh_buf(h, ind, w * hg * 8), doutd = eh_zero(h, w * hg * 8);
        EH_RUN(h, "transpose_naive_f64_gridstride", D2(3, 2), D2(32, 4), "ppii", doutd, did, w, hg);
        eh_read(h, doutd, gotd, w * hg * 8);
        eh_expect_f64(gotd, wantd, w * hg, 0, 0, "transpose_naive_f64_gridstride");
        eh_close(h);
        h = eh_open(eh_corpus(arch, "transpose_tiled"), NULL);
        di = eh_buf(h, in, w * hg * 4);
        dout = eh_zero(h, w * hg * 4);
        EH_RUN(h, "transpose_tiled_padded", D2(3, 2), D2(32, 8), "ppii", dout, di, w, hg);
        eh_read(h, dout, got, w * hg * 4);
        eh_expect_f32(got, want, w * hg, 0, 0, "transpose_tiled_padded");
        eh_close(h);
        h = eh_open(eh_corpus(arch, "transpose_bank_conflict"), NULL);
        di = eh_buf(h, in, w * hg * 4);
        dout = eh_zero(h, w * hg * 4);
        EH_RUN(h, "transpose_tiled_conflicting", D2(3, 2), D2(32, 8), "ppii", dout, di, w, hg);
        eh_read(h, dout, got, w * hg * 4);
        eh_expect_f32(got, want, w * hg, 0, 0, "transpose_tiled_conflicting");
        /* square n x n with a runtime pitch (32 and 33 give the same result) */
        int n = 64;
        float *sq = ALLOC(float, n * n), *sqw = ALLOC(float, n * n), *sqg = ALLOC(float, n * n);
        eh_fill_f32(sq, n * n, 5, 0, 1);
        transpose_ref(sq, sqw, n, n);
        for (int pitch = 32; pitch <= 33; pitch++) {
            uint64_t dsq = eh_buf(h, sq, n * n * 4), dso = eh_zero(h, n * n * 4);
            EH_RUN(h, "transpose_square_runtime_pitch", D2(2, 2), D2(32, 8), "ppii", dso, dsq, n, pitch);
            eh_read(h, dso, sqg, n * n * 4);
            eh_expect_f32(sqg, sqw, n * n, 0, 0, "transpose_square_runtime_pitch");
        }
        eh_close(h);
        free(in); free(want); free(got); free(ind); free(wantd); free(gotd); free(sq); free(sqw); free(sqg);
    }
}

Test(emu_corpus, transpose_naive_debug)
{
    int w = 70, hg = 45;
    float *in = ALLOC(float, w * hg), *want = ALLOC(float, w * hg), *got = ALLOC(float, w * hg);
    eh_fill_f32(in, w * hg, 4, -10, 10);
    transpose_ref(in, want, w, hg);
    eh *h = eh_open(eh_variant(3, "transpose_naive"), NULL);
    uint64_t di = eh_buf(h, in, w * hg * 4), dout = eh_zero(h, w * hg * 4);
    EH_RUN(h, "transpose_naive", D2(5, 12), D2(16, 4), "ppii", dout, di, w, hg);
    eh_read(h, dout, got, w * hg * 4);
    eh_expect_f32(got, want, w * hg, 0, 0, "transpose_naive -G");
    double *ind = ALLOC(double, w * hg), *wantd = ALLOC(double, w * hg), *gotd = ALLOC(double, w * hg);
    for (int i = 0; i < w * hg; i++) ind[i] = in[i] * 3.0;
    for (int y = 0; y < hg; y++)
        for (int x = 0; x < w; x++) wantd[x * hg + y] = ind[y * w + x];
    uint64_t did = eh_buf(h, ind, w * hg * 8), doutd = eh_zero(h, w * hg * 8);
    EH_RUN(h, "transpose_naive_f64_gridstride", D2(3, 2), D2(32, 4), "ppii", doutd, did, w, hg);
    eh_read(h, doutd, gotd, w * hg * 8);
    eh_expect_f64(gotd, wantd, w * hg, 0, 0, "transpose_naive_f64_gridstride -G");
    free(in); free(want); free(got); free(ind); free(wantd); free(gotd);
    eh_close(h);
}

/* ---- matmul ------------------------------------------------------------------------- */
Test(emu_corpus, matmul_naive)
{
    FOR_ARCH(arch) {
        eh *h = eh_open(eh_corpus(arch, "matmul_naive"), NULL);
        int M = 20, N = 24, K = 17;
        float *A = ALLOC(float, M * K), *B = ALLOC(float, K * N), *C = ALLOC(float, M * N), *W = ALLOC(float, M * N);
        eh_fill_f32(A, M * K, 6, -1, 1);
        eh_fill_f32(B, K * N, 7, -1, 1);
        eh_fill_f32(C, M * N, 8, -1, 1);
        float alpha = 1.5f, beta = -0.5f;
        for (int r = 0; r < M; r++)
            for (int c = 0; c < N; c++) {
                float acc = 0;
                for (int k = 0; k < K; k++) acc += A[r * K + k] * B[k * N + c];
                W[r * N + c] = alpha * acc + beta * C[r * N + c];
            }
        uint64_t dA = eh_buf(h, A, M * K * 4), dB = eh_buf(h, B, K * N * 4), dC = eh_buf(h, C, M * N * 4);
        EH_RUN(h, "sgemm_naive", D2(2, 3), D2(16, 8), "iiifppfp", M, N, K, alpha, dA, dB, beta, dC);
        eh_read(h, dC, C, M * N * 4);
        eh_expect_f32(C, W, M * N, 1e-5, 1e-5, "sgemm_naive"); /* fma chain vs mul+add */
        int n = 37;
        int32_t *IA = ALLOC(int32_t, n * n), *IB = ALLOC(int32_t, n * n), *IC = ALLOC(int32_t, n * n), *IW = ALLOC(int32_t, n * n);
        eh_fill_i32(IA, n * n, 9, -100, 100);
        eh_fill_i32(IB, n * n, 10, -100, 100);
        for (int col = 0; col < n; col++)
            for (int row = 0; row < n; row++) {
                int acc = 0;
                for (int k = 0; k < n; k++) acc += IA[k * n + row] * IB[k * n + col];
                IW[col * n + row] = acc;
            }
        uint64_t dIA = eh_buf(h, IA, n * n * 4), dIB = eh_buf(h, IB, n * n * 4), dIC = eh_zero(h, n * n * 4);
        EH_RUN(h, "imatmul_naive_colmajorA", D2(2, n), D1(32), "ippp", n, dIA, dIB, dIC);
        eh_read(h, dIC, IC, n * n * 4);
        eh_expect_i32(IC, IW, n * n, "imatmul_naive_colmajorA");
        free(A); free(B); free(C); free(W); free(IA); free(IB); free(IC); free(IW);
        eh_close(h);
    }
}

Test(emu_corpus, matmul_tiled)
{
    FOR_ARCH(arch) {
        eh *h = eh_open(eh_corpus(arch, "matmul_tiled"), NULL);
        int M = 40, N = 36, K = 50;
        float *A = ALLOC(float, M * K), *B = ALLOC(float, K * N), *C = ALLOC(float, M * N), *W = ALLOC(float, M * N);
        eh_fill_f32(A, M * K, 11, -1, 1);
        eh_fill_f32(B, K * N, 12, -1, 1);
        for (int r = 0; r < M; r++)
            for (int c = 0; c < N; c++) {
                double acc = 0;
                for (int k = 0; k < K; k++) acc += (double)A[r * K + k] * B[k * N + c];
                W[r * N + c] = (float)acc;
            }
        static const struct { const char *k; int tile; } ts[] = {
            {"_Z12matmul_tiledILi8EEvPKfS1_Pfiii", 8}, {"_Z12matmul_tiledILi16EEvPKfS1_Pfiii", 16},
            {"_Z12matmul_tiledILi32EEvPKfS1_Pfiii", 32}};
        uint64_t dA = eh_buf(h, A, M * K * 4), dB = eh_buf(h, B, K * N * 4);
        for (int t = 0; t < 3; t++) {
            int T = ts[t].tile;
            uint64_t dC = eh_zero(h, M * N * 4);
            EH_RUN(h, ts[t].k, D2((N + T - 1) / T, (M + T - 1) / T), D2(T, T), "pppiii", dA, dB, dC, M, N, K);
            eh_read(h, dC, C, M * N * 4);
            eh_expect_f32(C, W, M * N, 1e-4, 1e-5, ts[t].k); /* 50-term dot products, float vs double */
        }
        int n = 64;
        float *A2 = ALLOC(float, n * n), *B2 = ALLOC(float, n * n), *C2 = ALLOC(float, n * n), *W2 = ALLOC(float, n * n);
        eh_fill_f32(A2, n * n, 13, -1, 1);
        eh_fill_f32(B2, n * n, 14, -1, 1);
        for (int r = 0; r < n; r++)
            for (int c = 0; c < n; c++) {
                double acc = 0;
                for (int k = 0; k < n; k++) acc += (double)A2[r * n + k] * B2[k * n + c];
                W2[r * n + c] = (float)acc;
            }
        uint64_t dA2 = eh_buf(h, A2, n * n * 4), dB2 = eh_buf(h, B2, n * n * 4), dC2 = eh_zero(h, n * n * 4);
        EH_RUN(h, "_Z16matmul_tiled_2x2PKfS0_Pfi", D2(2, 2), D2(16, 16), "pppi", dA2, dB2, dC2, n);
        eh_read(h, dC2, C2, n * n * 4);
        eh_expect_f32(C2, W2, n * n, 1e-4, 1e-5, "matmul_tiled_2x2");
        free(A); free(B); free(C); free(W); free(A2); free(B2); free(C2); free(W2);
        eh_close(h);
    }
}

/* ---- launch_bounds ------------------------------------------------------------------- */
Test(emu_corpus, launch_bounds)
{
    FOR_ARCH(arch) {
        eh *h = eh_open(eh_corpus(arch, "launch_bounds"), NULL);
        int n = 1000;
        float *x = ALLOC(float, n), *y = ALLOC(float, n), *w = ALLOC(float, n), *g = ALLOC(float, n);
        eh_fill_f32(x, n, 15, -5, 5);
        eh_fill_f32(y, n, 16, -5, 5);
        float a = 2.25f;
        for (int i = 0; i < n; i++) w[i] = a * x[i] + y[i];
        const char *sax[3] = {"saxpy_lb256", "saxpy_unbounded", "saxpy_maxnreg32"};
        for (int k = 0; k < 3; k++) {
            uint64_t dx = eh_buf(h, x, n * 4), dy = eh_buf(h, y, n * 4);
            EH_RUN(h, sax[k], D1(k == 2 ? 2 : 4), D1(256), "ifpp", n, a, dx, dy);
            eh_read(h, dy, g, n * 4);
            eh_expect_f32(g, w, n, 1e-6, 1e-6, sax[k]); /* one fma vs mul+add */
        }
        float *v = ALLOC(float, n);
        eh_fill_f32(v, n, 17, -1, 1);
        for (int i = 0; i < n; i++) {
            float r = 1.0f;
            for (int k = 1; k < 12; k++) r = r * v[i] + 1.0f / k;
            w[i] = r;
        }
        uint64_t dv = eh_buf(h, v, n * 4);
        EH_RUN(h, "poly_lb128_4", D1(8), D1(128), "pi", dv, n);
        eh_read(h, dv, g, n * 4);
        eh_expect_f32(g, w, n, 1e-5, 1e-6, "poly_lb128_4");
        int nb = 3;
        int32_t *in = ALLOC(int32_t, 1024 * nb), out[3], want[3];
        eh_fill_i32(in, 1024 * nb, 18, -1000000, 1000000);
        for (int b = 0; b < nb; b++) {
            want[b] = INT32_MIN;
            for (int t = 0; t < 1024; t++) if (in[b * 1024 + t] > want[b]) want[b] = in[b * 1024 + t];
        }
        uint64_t din = eh_buf(h, in, 1024 * nb * 4), dout = eh_zero(h, nb * 4);
        EH_RUN(h, "blockmax_lb1024", D1(nb), D1(1024), "pp", din, dout);
        eh_read(h, dout, out, nb * 4);
        eh_expect_i32(out, want, nb, "blockmax_lb1024");
        free(x); free(y); free(w); free(g); free(v); free(in);
        eh_close(h);
    }
}

/* ---- restrict_ldg --------------------------------------------------------------------- */
Test(emu_corpus, restrict_ldg)
{
    FOR_ARCH(arch) {
        eh *h = eh_open(eh_corpus(arch, "restrict_ldg"), NULL);
        int n = 777;
        float *x = ALLOC(float, n), *y = ALLOC(float, n), *z = ALLOC(float, n), *w = ALLOC(float, n);
        eh_fill_f32(x, n, 19, -2, 2);
        eh_fill_f32(y, n, 20, -2, 2);
        float a = 0.75f, b = -1.25f;
        for (int i = 0; i < n; i++) w[i] = a * x[i] + b * y[i] + x[i] * y[i];
        const char *ks[2] = {"axpby_alias", "axpby_restrict"};
        for (int k = 0; k < 2; k++) {
            uint64_t dx = eh_buf(h, x, n * 4), dy = eh_buf(h, y, n * 4), dz = eh_zero(h, n * 4);
            EH_RUN(h, ks[k], D1(4), D1(256), "pppffi", dx, dy, dz, a, b, n);
            eh_read(h, dz, z, n * 4);
            eh_expect_f32(z, w, n, 1e-5, 1e-5, ks[k]);
        }
        int n4 = 100;
        float *in = ALLOC(float, 4 * n4), *out = ALLOC(float, 4 * n4), *wo = ALLOC(float, 4 * n4);
        int32_t *perm = ALLOC(int32_t, n4);
        eh_fill_f32(in, 4 * n4, 21, -1, 1);
        for (int i = 0; i < n4; i++) perm[i] = (i * 37 + 11) % n4;
        for (int i = 0; i < n4; i++)
            for (int c = 0; c < 4; c++) wo[4 * i + c] = in[4 * perm[i] + 3 - c];
        uint64_t din = eh_buf(h, in, 16 * n4), dout = eh_zero(h, 16 * n4), dp = eh_buf(h, perm, 4 * n4);
        EH_RUN(h, "ldg_vec4", D1(1), D1(128), "pppi", din, dout, dp, n4);
        eh_read(h, dout, out, 16 * n4);
        eh_expect_f32(out, wo, 4 * n4, 0, 0, "ldg_vec4");
        int m = 512;
        float *ci = ALLOC(float, m), *co = ALLOC(float, 256), *cw = ALLOC(float, 2 * m), *cg = ALLOC(float, 2 * m);
        eh_fill_f32(ci, m, 22, -3, 3);
        eh_fill_f32(co, 256, 23, -3, 3);
        for (int i = 0; i < m; i++) {
            cw[i] = ci[i] * co[i & 255];
            cw[m + i] = ci[i ^ 1];
        }
        uint64_t dci = eh_buf(h, ci, 4 * m), dco = eh_buf(h, co, 1024), dcg = eh_zero(h, 8 * m);
        EH_RUN(h, "cache_hints", D1(2), D1(256), "pppi", dci, dcg, dco, m);
        eh_read(h, dcg, cg, 8 * m);
        eh_expect_f32(cg, cw, 2 * m, 0, 0, "cache_hints");
        free(x); free(y); free(z); free(w); free(in); free(out); free(wo); free(perm); free(ci); free(co); free(cw); free(cg);
        eh_close(h);
    }
}

/* ---- particles ------------------------------------------------------------------------ */
Test(emu_corpus, particles)
{
    FOR_ARCH(arch) {
        eh *h = eh_open(eh_corpus(arch, "particles_aos"), NULL);
        int n = 300;
        float *p = ALLOC(float, 8 * n), *w = ALLOC(float, 8 * n), *g = ALLOC(float, 8 * n);
        eh_fill_f32(p, 8 * n, 24, 0.5f, 2);
        float dt = 0.01f, gv[3] = {0.5f, -9.8f, 0.25f};
        memcpy(w, p, 32 * n);
        for (int i = 0; i < n; i++) {
            float *a = w + 8 * i, *b = a + 4;
            float inv = 1.0f / a[3];
            for (int c = 0; c < 3; c++) b[c] += dt * gv[c] * inv * b[3];
            for (int c = 0; c < 3; c++) a[c] += dt * b[c];
        }
        uint64_t dp = eh_buf(h, p, 32 * n);
        EH_RUN(h, "particles_aos_update", D1(3), D1(128), "pifb", dp, n, dt, gv, (size_t)12);
        eh_read(h, dp, g, 32 * n);
        eh_expect_f32(g, w, 8 * n, 1e-5, 1e-6, "particles_aos_update");
        float *pos = ALLOC(float, 3 * n), *vel = ALLOC(float, 3 * n), *pw = ALLOC(float, 3 * n);
        eh_fill_f32(pos, 3 * n, 25, -1, 1);
        eh_fill_f32(vel, 3 * n, 26, -1, 1);
        for (int i = 0; i < 3 * n; i++) pw[i] = pos[i] + vel[i] * dt;
        uint64_t dpos = eh_buf(h, pos, 12 * n), dvel = eh_buf(h, vel, 12 * n);
        EH_RUN(h, "particles_aos_float3", D1(3), D1(128), "ppif", dpos, dvel, n, dt);
        eh_read(h, dpos, pos, 12 * n);
        eh_expect_f32(pos, pw, 3 * n, 1e-6, 1e-7, "particles_aos_float3");
        int nb = 96;
        float *pm = ALLOC(float, 4 * nb), *acc = ALLOC(float, 4 * nb), *aw = ALLOC(float, 4 * nb);
        eh_fill_f32(pm, 4 * nb, 27, -1, 1);
        for (int i = 0; i < nb; i++) pm[4 * i + 3] = fabsf(pm[4 * i + 3]) + 0.1f;
        float eps2 = 0.01f;
        for (int i = 0; i < nb; i++) {
            double ax = 0, ay = 0, az = 0;
            for (int j = 0; j < nb; j++) {
                double dx = pm[4 * j] - pm[4 * i], dy = pm[4 * j + 1] - pm[4 * i + 1], dz = pm[4 * j + 2] - pm[4 * i + 2];
                double r2 = dx * dx + dy * dy + dz * dz + eps2;
                double inv = 1 / sqrt(r2);
                double s = pm[4 * j + 3] * inv * inv * inv;
                ax += dx * s; ay += dy * s; az += dz * s;
            }
            aw[4 * i] = (float)ax; aw[4 * i + 1] = (float)ay; aw[4 * i + 2] = (float)az; aw[4 * i + 3] = 0;
        }
        uint64_t dpm = eh_buf(h, pm, 16 * nb), dacc = eh_zero(h, 16 * nb);
        EH_RUN(h, "nbody_forces_aos", D1(3), D1(32), "ppif", dpm, dacc, nb, eps2);
        eh_read(h, dacc, acc, 16 * nb);
        /* rsqrt.approx (2 ulp on hardware; libm here) and 96-term sums in float */
        eh_expect_f32(acc, aw, 4 * nb, 1e-3, 1e-2, "nbody_forces_aos");
        eh_close(h);
        /* SoA: a struct of 8 pointers by value */
        h = eh_open(eh_corpus(arch, "particles_soa"), NULL);
        float *arr[8], *want[8];
        uint64_t dev[8];
        for (int k = 0; k < 8; k++) {
            arr[k] = ALLOC(float, n);
            want[k] = ALLOC(float, n);
            eh_fill_f32(arr[k], n, 30 + k, 0.5f, 1.5f);
            memcpy(want[k], arr[k], 4 * n);
            dev[k] = eh_buf(h, arr[k], 4 * n);
        }
        float gx = 0.1f, gy = -0.2f, gz = 0.3f;
        for (int i = 0; i < n; i++) {
            float kk = dt * arr[7][i] / arr[6][i];
            float vx = arr[3][i] + kk * gx, vy = arr[4][i] + kk * gy, vz = arr[5][i] + kk * gz;
            want[3][i] = vx; want[4][i] = vy; want[5][i] = vz;
            want[0][i] += dt * vx; want[1][i] += dt * vy; want[2][i] += dt * vz;
        }
        EH_RUN(h, "particles_soa_update", D1(3), D1(128), "biffff", dev, (size_t)64, n, dt, gx, gy, gz);
        for (int k = 0; k < 8; k++) {
            eh_read(h, dev[k], arr[k], 4 * n);
            eh_expect_f32(arr[k], want[k], n, 1e-5, 1e-6, "particles_soa_update");
        }
        int n4 = 64;
        float *v4[6], *w4[6];
        uint64_t d4[6];
        for (int k = 0; k < 6; k++) {
            v4[k] = ALLOC(float, 4 * n4);
            w4[k] = ALLOC(float, 4 * n4);
            eh_fill_f32(v4[k], 4 * n4, 40 + k, -1, 1);
            d4[k] = eh_buf(h, v4[k], 16 * n4);
        }
        for (int k = 0; k < 3; k++)
            for (int i = 0; i < 4 * n4; i++) w4[k][i] = v4[k][i] + dt * v4[k + 3][i];
        EH_RUN(h, "particles_soa_update_vec4", D1(1), D1(64), "ppppppif", d4[0], d4[1], d4[2], d4[3], d4[4], d4[5], n4, dt);
        for (int k = 0; k < 3; k++) {
            eh_read(h, d4[k], v4[k], 16 * n4);
            eh_expect_f32(v4[k], w4[k], 4 * n4, 1e-6, 1e-7, "particles_soa_update_vec4");
        }
        for (int k = 0; k < 8; k++) { free(arr[k]); free(want[k]); }
        for (int k = 0; k < 6; k++) { free(v4[k]); free(w4[k]); }
        free(p); free(w); free(g); free(pos); free(vel); free(pw); free(pm); free(acc); free(aw);
        eh_close(h);
    }
}

/* ---- templates_generic ------------------------------------------------------------------ */
Test(emu_corpus, templates_generic)
{
    FOR_ARCH(arch) {
        eh *h = eh_open(eh_corpus(arch, "templates_generic"), NULL);
        int n = 500;
        float *xf = ALLOC(float, n), *yf = ALLOC(float, n), *wf = ALLOC(float, n);
        eh_fill_f32(xf, n, 50, -3, 3);
        for (int i = 0; i < n; i++) wf[i] = xf[i] * xf[i];
        uint64_t dx = eh_buf(h, xf, 4 * n), dy = eh_zero(h, 4 * n);
        uint8_t empty = 0;
        EH_RUN(h, "_ZN6ptxray6corpus10map_kernelIfNS0_6SquareIfEEEEvPKT_PS4_iT0_", D1(2), D1(64), "ppib", dx, dy, n, &empty, (size_t)1);
        eh_read(h, dy, yf, 4 * n);
        eh_expect_f32(yf, wf, n, 0, 0, "map Square<float>");
        double *xd = ALLOC(double, n), *yd = ALLOC(double, n), *wd = ALLOC(double, n);
        eh_fill_f64(xd, n, 51, -3, 3);
        double ab[2] = {1.5, -0.25};
        for (int i = 0; i < n; i++) wd[i] = ab[0] * xd[i] + ab[1];
        uint64_t dxd = eh_buf(h, xd, 8 * n), dyd = eh_zero(h, 8 * n);
        EH_RUN(h, "_ZN6ptxray6corpus10map_kernelIdNS0_6AffineIdEEEEvPKT_PS4_iT0_", D1(2), D1(64), "ppib", dxd, dyd, n, ab, (size_t)16);
        eh_read(h, dyd, yd, 8 * n);
        eh_expect_f64(yd, wd, n, 1e-15, 1e-15, "map Affine<double>");
        int32_t *xi = ALLOC(int32_t, n), *yi = ALLOC(int32_t, n), *wi = ALLOC(int32_t, n);
        eh_fill_i32(xi, n, 52, -100, 100);
        int32_t lohi[2] = {-10, 25};
        for (int i = 0; i < n; i++) wi[i] = xi[i] < lohi[0] ? lohi[0] : xi[i] > lohi[1] ? lohi[1] : xi[i];
        uint64_t dxi = eh_buf(h, xi, 4 * n), dyi = eh_zero(h, 4 * n);
        EH_RUN(h, "_ZN6ptxray6corpus10map_kernelIiNS0_5ClampIiEEEEvPKT_PS4_iT0_", D1(2), D1(64), "ppib", dxi, dyi, n, lohi, (size_t)8);
        eh_read(h, dyi, yi, 4 * n);
        eh_expect_i32(yi, wi, n, "map Clamp<int>");
        /* block sums */
        int nb = 3;
        int32_t *bi = ALLOC(int32_t, 128 * nb), bo[3], bw[3];
        eh_fill_i32(bi, 128 * nb, 53, -1000, 1000);
        for (int b = 0; b < nb; b++) { bw[b] = 0; for (int t = 0; t < 128; t++) bw[b] += bi[b * 128 + t]; }
        uint64_t dbi = eh_buf(h, bi, 512 * nb), dbo = eh_zero(h, 4 * nb);
        EH_RUN(h, "_ZN6ptxray6corpus16block_sum_kernelIiLi128EEEvPKT_PS2_", D1(nb), D1(128), "pp", dbi, dbo);
        eh_read(h, dbo, bo, 4 * nb);
        eh_expect_i32(bo, bw, nb, "block_sum<int,128>");
        float *bf = ALLOC(float, 256 * nb), bfo[3], bfw[3];
        eh_fill_f32(bf, 256 * nb, 54, -1, 1);
        for (int b = 0; b < nb; b++) { double s = 0; for (int t = 0; t < 256; t++) s += bf[b * 256 + t]; bfw[b] = (float)s; }
        uint64_t dbf = eh_buf(h, bf, 1024 * nb), dbfo = eh_zero(h, 4 * nb);
        EH_RUN(h, "_ZN6ptxray6corpus16block_sum_kernelIfLi256EEEvPKT_PS2_", D1(nb), D1(256), "pp", dbf, dbfo);
        eh_read(h, dbfo, bfo, 4 * nb);
        eh_expect_f32(bfo, bfw, nb, 1e-5, 1e-5, "block_sum<float,256>"); /* tree vs sequential order */
        double *bd = ALLOC(double, 64 * nb), bdo[3], bdw[3];
        eh_fill_f64(bd, 64 * nb, 55, -1, 1);
        for (int b = 0; b < nb; b++) {
            /* the same tree order as the kernel: exact */
            double s[64];
            memcpy(s, bd + b * 64, sizeof s);
            for (int st = 32; st > 0; st >>= 1)
                for (int t = 0; t < st; t++) s[t] += s[t + st];
            bdw[b] = s[0];
        }
        uint64_t dbd = eh_buf(h, bd, 512 * nb), dbdo = eh_zero(h, 8 * nb);
        EH_RUN(h, "_ZN6ptxray6corpus16block_sum_kernelIdLi64EEEvPKT_PS2_", D1(nb), D1(64), "pp", dbd, dbdo);
        eh_read(h, dbdo, bdo, 8 * nb);
        eh_expect_f64(bdo, bdw, nb, 0, 0, "block_sum<double,64>");
        uint64_t *bu = calloc(128 * nb, 8), buo[3], buw[3];
        uint64_t seed = 56;
        for (int i = 0; i < 128 * nb; i++) bu[i] = eh_rand(&seed);
        for (int b = 0; b < nb; b++) { buw[b] = 0; for (int t = 0; t < 128; t++) buw[b] += bu[b * 128 + t]; }
        uint64_t dbu = eh_buf(h, bu, 1024 * nb), dbuo = eh_zero(h, 8 * nb);
        EH_RUN(h, "_ZN6ptxray6corpus16block_sum_kernelIyLi128EEEvPKT_PS2_", D1(nb), D1(128), "pp", dbu, dbuo);
        eh_read(h, dbuo, buo, 8 * nb);
        eh_expect_u64(buo, buw, nb, "block_sum<u64,128>");
        float *va = ALLOC(float, 64), *vb = ALLOC(float, 64), *vc = ALLOC(float, 64), *vo = ALLOC(float, 64), *vw = ALLOC(float, 64);
        eh_fill_f32(va, 64, 57, -1, 1);
        eh_fill_f32(vb, 64, 58, -1, 1);
        eh_fill_f32(vc, 64, 59, -1, 1);
        for (int i = 0; i < 64; i++) vw[i] = va[i] + (vb[i] + (vc[i] + 3.0f));
        uint64_t dva = eh_buf(h, va, 256), dvb = eh_buf(h, vb, 256), dvc = eh_buf(h, vc, 256), dvo = eh_zero(h, 256);
        EH_RUN(h, "_ZN6ptxray6corpus12variadic_sumILi3EEEvPKfS3_S3_Pf", D1(2), D1(32), "pppp", dva, dvb, dvc, dvo);
        eh_read(h, dvo, vo, 256);
        eh_expect_f32(vo, vw, 64, 0, 0, "variadic_sum<3>");
        free(xf); free(yf); free(wf); free(xd); free(yd); free(wd); free(xi); free(yi); free(wi);
        free(bi); free(bf); free(bd); free(bu); free(va); free(vb); free(vc); free(vo); free(vw);
        eh_close(h);
    }
}
