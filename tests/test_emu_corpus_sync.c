/* Corpus kernels that synchronise: barriers, shared memory, warp
 * shuffles and votes, atomics, cp.async, grid synchronisation.  References
 * in C; where the kernel's order of float operations is fixed, the
 * reference follows the same order and the results must be equal. */
#include <criterion/criterion.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "emu_harness.h"

#define FOR_ARCH(a) for (unsigned ai_ = 0; ai_ < 3; ai_++) for (const char *a = eh_arches[ai_]; a; a = NULL)
#define ALLOC(T, n) ((T *)calloc((size_t)(n), sizeof(T)))

/* ---- reductions ---------------------------------------------------------------------- */
Test(emu_corpus, reduce_shared)
{
    FOR_ARCH(arch) {
        eh *h = eh_open(eh_corpus(arch, "reduce_shared"), NULL);
        static const struct { const char *k; unsigned B; } ks[] = {
            {"_Z10reduce_sumILj128EEvPKfPfj", 128}, {"_Z10reduce_sumILj256EEvPKfPfj", 256}, {"_Z10reduce_sumILj512EEvPKfPfj", 512}};
        unsigned n = 5000, G = 3;
        float *in = ALLOC(float, n), out[3], want[3];
        eh_fill_f32(in, n, 200, -1, 1);
        uint64_t din = eh_buf(h, in, 4 * n);
        for (int k = 0; k < 3; k++) {
            unsigned B = ks[k].B;
            for (unsigned b = 0; b < G; b++) {
                float *s = ALLOC(float, B);
                for (unsigned t = 0; t < B; t++) {
                    float sum = 0;
                    for (unsigned i = b * B * 2 + t; i < n; i += B * 2 * G) {
                        sum += in[i];
                        if (i + B < n) sum += in[i + B];
                    }
                    s[t] = sum;
                }
                for (unsigned st = B / 2; st > 0; st >>= 1)
                    for (unsigned t = 0; t < st; t++) s[t] += s[t + st];
                want[b] = s[0];
                free(s);
            }
            uint64_t dout = eh_zero(h, 4 * G);
            EH_RUN(h, ks[k].k, D1(G), D1(B), "ppu", din, dout, n);
            eh_read(h, dout, out, 4 * G);
            eh_expect_f32(out, want, G, 0, 0, ks[k].k); /* the same order of additions */
        }
        /* interleaved addressing, dynamic shared memory */
        emu_options o = {.shared_bytes = 256 * 4};
        eh *h2 = eh_open(eh_corpus(arch, "reduce_shared"), &o);
        int ni = 700;
        int32_t *ii = ALLOC(int32_t, ni), io[3], iw[3] = {0, 0, 0};
        eh_fill_i32(ii, ni, 201, -1000, 1000);
        for (int i = 0; i < ni; i++) iw[i / 256] += ii[i];
        uint64_t dii = eh_buf(h2, ii, 4 * ni), dio = eh_zero(h2, 12);
        EH_RUN(h2, "reduce_interleaved", D1(3), D1(256), "ppi", dii, dio, ni);
        eh_read(h2, dio, io, 12);
        eh_expect_i32(io, iw, 3, "reduce_interleaved");
        free(in); free(ii);
        eh_close(h);
        eh_close(h2);
    }
}

Test(emu_corpus, reduce_shfl)
{
    EH_FOR_VARIANT(vk, 1) {
        const char *arch = eh_variant(vk, "reduce_shfl");
        eh *h = eh_open(arch, NULL);
        int n = 3000;
        float *in = ALLOC(float, n), out;
        eh_fill_f32(in, n, 210, -1, 1);
        double want = 0, mag = 0;
        for (int i = 0; i < n; i++) { want += in[i]; mag += fabs(in[i]); }
        uint64_t din = eh_buf(h, in, 4 * n), dout = eh_zero(h, 4);
        EH_RUN(h, "reduce_shfl_sum", D1(4), D1(96), "ppi", din, dout, n);
        eh_read(h, dout, &out, 4);
        cr_assert(fabs(out - want) <= 1e-6 * mag, "%s reduce_shfl_sum %.9g want %.9g", arch, out, want);
        /* warp all-reduce max over doubles */
        int nd = 200;
        double *xd = ALLOC(double, nd), od[8], wd[8];
        eh_fill_f64(xd, nd, 211, -100, 100);
        for (int w = 0; w < 7; w++) {
            wd[w] = -1.0e300;
            for (int l = 0; l < 32; l++) if (w * 32 + l < nd && xd[w * 32 + l] > wd[w]) wd[w] = xd[w * 32 + l];
        }
        uint64_t dxd = eh_buf(h, xd, 8 * nd), dod = eh_zero(h, 8 * 8);
        EH_RUN(h, "reduce_shfl_max_f64", D1(2), D1(128), "ppi", dxd, dod, nd);
        eh_read(h, dod, od, 8 * 7);
        eh_expect_f64(od, wd, 7, 0, 0, "reduce_shfl_max_f64");
        /* inclusive warp scan */
        int ns = 100;
        int32_t *si = ALLOC(int32_t, ns), *so = ALLOC(int32_t, ns), *sw = ALLOC(int32_t, ns);
        eh_fill_i32(si, ns, 212, -50, 50);
        for (int i = 0; i < ns; i++) sw[i] = si[i] + ((i & 31) ? sw[i - 1] : 0);
        uint64_t dsi = eh_buf(h, si, 4 * ns), dso = eh_zero(h, 4 * ns);
        EH_RUN(h, "warp_inclusive_scan", D1(1), D1(128), "ppi", dsi, dso, ns);
        eh_read(h, dso, so, 4 * ns);
        eh_expect_i32(so, sw, ns, "warp_inclusive_scan");
        free(in); free(xd); free(si); free(so); free(sw);
        eh_close(h);
    }
}

Test(emu_corpus, scan_block)
{
    FOR_ARCH(arch) {
        eh *h = eh_open(eh_corpus(arch, "scan_block"), NULL);
        int B = 256, G = 2, n = 200; /* threads with tid >= n contribute 0 */
        float *in = ALLOC(float, B * G), *out = ALLOC(float, B * G), *want = ALLOC(float, B * G);
        eh_fill_f32(in, B * G, 220, -1, 1);
        for (int b = 0; b < G; b++) {
            float t[2][256];
            int pout = 0, pin = 1;
            for (int i = 0; i < B; i++) t[pout][i] = i < n ? in[b * B + i] : 0.0f;
            for (int off = 1; off < B; off *= 2) {
                pout = 1 - pout;
                pin = 1 - pout;
                for (int i = 0; i < B; i++) t[pout][i] = i >= off ? t[pin][i] + t[pin][i - off] : t[pin][i];
            }
            for (int i = 0; i < n; i++) want[b * B + i] = t[pout][i];
        }
        uint64_t din = eh_buf(h, in, 4 * B * G), dout = eh_zero(h, 4 * B * G);
        EH_RUN(h, "scan_hillis_steele", D1(G), D1(B), "ppi", din, dout, n);
        eh_read(h, dout, out, 4 * B * G);
        eh_expect_f32(out, want, B * G, 0, 0, "scan_hillis_steele");
        eh_close(h);
        /* Blelloch: n = 2 * blockDim per block, then the block sums added back */
        int T = 128, N = 2 * T, nb = 3;
        emu_options o = {.shared_bytes = (uint32_t)(N + N / 32) * 4};
        h = eh_open(eh_corpus(arch, "scan_block"), &o);
        int32_t *gi = ALLOC(int32_t, N * nb), *go = ALLOC(int32_t, N * nb), *gw = ALLOC(int32_t, N * nb), bs[3], bw[3];
        eh_fill_i32(gi, N * nb, 221, -20, 20);
        for (int b = 0; b < nb; b++) {
            int acc = 0;
            for (int i = 0; i < N; i++) { gw[b * N + i] = acc; acc += gi[b * N + i]; }
            bw[b] = acc;
        }
        uint64_t dgi = eh_buf(h, gi, 4 * N * nb), dgo = eh_zero(h, 4 * N * nb), dbs = eh_zero(h, 12);
        EH_RUN(h, "scan_blelloch", D1(nb), D1(T), "pppi", dgi, dgo, dbs, N);
        eh_read(h, dgo, go, 4 * N * nb);
        eh_read(h, dbs, bs, 12);
        eh_expect_i32(go, gw, N * nb, "scan_blelloch");
        eh_expect_i32(bs, bw, nb, "scan_blelloch block sums");
        int32_t scanned[3] = {0, bw[0], bw[0] + bw[1]};
        uint64_t dsc = eh_buf(h, scanned, 12);
        int total = N * nb - 5;
        for (int i = 0; i < N * nb; i++) if (i < total) gw[i] += scanned[i / N];
        EH_RUN(h, "scan_add_block_sums", D1(nb), D1(T), "ppi", dgo, dsc, total);
        eh_read(h, dgo, go, 4 * N * nb);
        eh_expect_i32(go, gw, N * nb, "scan_add_block_sums");
        free(in); free(out); free(want); free(gi); free(go); free(gw);
        eh_close(h);
    }
}

/* ---- histograms ------------------------------------------------------------------------ */
Test(emu_corpus, histograms)
{
    EH_FOR_VARIANT(vk, 1) {
        const char *arch = vk < 3 ? eh_arches[vk] : "sm_80";
        eh *h = eh_open(eh_variant(vk, "histogram_global"), NULL);
        int n = 1003; /* a tail after the uchar4 loop */
        uint8_t *d = ALLOC(uint8_t, n + 4);
        uint64_t s = 230;
        for (int i = 0; i < n; i++) d[i] = (uint8_t)(eh_rand(&s) % 97);
        uint32_t bins[256], want[256] = {0};
        for (int i = 0; i < n; i++) want[d[i]]++;
        uint64_t dd = eh_buf(h, d, n + 4), dbins = eh_zero(h, 1024);
        EH_RUN(h, "histogram_global_u8", D1(2), D1(64), "ppi", dd, dbins, n);
        eh_read(h, dbins, bins, 1024);
        eh_expect_i32((int32_t *)bins, (int32_t *)want, 256, "histogram_global_u8");
        int nw = 500, nbins = 10;
        float *x = ALLOC(float, nw), *w = ALLOC(float, nw), fb[10], fw[10] = {0};
        eh_fill_f32(x, nw, 231, -0.5f, 1.5f);
        eh_fill_f32(w, nw, 232, 0, 1);
        float lo = 0, hi = 1;
        for (int i = 0; i < nw; i++) {
            if (x[i] < lo || x[i] >= hi) continue;
            int b = (int)((x[i] - lo) / (hi - lo) * nbins);
            if (b > nbins - 1) b = nbins - 1;
            fw[b] += w[i];
        }
        uint64_t dx = eh_buf(h, x, 4 * nw), dw = eh_buf(h, w, 4 * nw), dfb = eh_zero(h, 40);
        EH_RUN(h, "histogram_global_weighted", D1(4), D1(128), "pppiffi", dx, dw, dfb, nbins, lo, hi, nw);
        eh_read(h, dfb, fb, 40);
        eh_expect_f32(fb, fw, nbins, 1e-5, 1e-5, "histogram_global_weighted"); /* atomic order */
        int nk = 300, nb64 = 50;
        int32_t *keys = ALLOC(int32_t, nk);
        eh_fill_i32(keys, nk, 233, -1000, 1000);
        uint64_t counts[50], cw[50] = {0}, total, tw = 0;
        for (int i = 0; i < nk; i++) cw[(unsigned)keys[i] % nb64]++;
        for (int b = 0; b < nb64; b++) tw += cw[b] != 0;
        uint64_t dk = eh_buf(h, keys, 4 * nk), dc = eh_zero(h, 8 * nb64), dt = eh_zero(h, 8);
        EH_RUN(h, "histogram_global_u64", D1(3), D1(128), "pppii", dk, dc, dt, nk, nb64);
        eh_read(h, dc, counts, 8 * nb64);
        eh_read(h, dt, &total, 8);
        eh_expect_u64(counts, cw, nb64, "histogram_global_u64");
        cr_assert_eq(total, tw);
        eh_close(h);
        if (vk == 3) { /* histogram_shared has no -G build */
            free(d); free(x); free(w); free(keys);
            continue;
        }
        h = eh_open(eh_corpus(arch, "histogram_shared"), NULL);
        dd = eh_buf(h, d, n + 4);
        dbins = eh_zero(h, 1024);
        EH_RUN(h, "histogram_shared_u8", D1(3), D1(96), "ppi", dd, dbins, n);
        eh_read(h, dbins, bins, 1024);
        eh_expect_i32((int32_t *)bins, (int32_t *)want, 256, "histogram_shared_u8");
        int shift = 3;
        uint32_t w2[256] = {0};
        for (int i = 0; i < nk; i++) w2[((unsigned)keys[i] >> shift) & 255]++;
        dk = eh_buf(h, keys, 4 * nk);
        dbins = eh_zero(h, 1024);
        EH_RUN(h, "histogram_warp_private", D1(2), D1(256), "ppii", dk, dbins, nk, shift);
        eh_read(h, dbins, bins, 1024);
        eh_expect_i32((int32_t *)bins, (int32_t *)w2, 256, "histogram_warp_private");
        free(d); free(x); free(w); free(keys);
        eh_close(h);
    }
}

/* ---- sorting ------------------------------------------------------------------------------ */
Test(emu_corpus, bitonic_sort)
{
    FOR_ARCH(arch) {
        eh *h = eh_open(eh_corpus(arch, "bitonic_sort_shared"), NULL);
        int nb = 2;
        uint32_t *keys = ALLOC(uint32_t, 1024 * nb), *vals = ALLOC(uint32_t, 1024 * nb);
        uint64_t s = 240;
        for (int b = 0; b < nb; b++) {
            /* a permutation of 0..1023 so keys are distinct; value = key * 7 + b */
            for (int i = 0; i < 1024; i++) keys[b * 1024 + i] = (uint32_t)i;
            for (int i = 1023; i > 0; i--) {
                int j = (int)(eh_rand(&s) % (uint64_t)(i + 1));
                uint32_t t = keys[b * 1024 + i];
                keys[b * 1024 + i] = keys[b * 1024 + j];
                keys[b * 1024 + j] = t;
            }
            for (int i = 0; i < 1024; i++) vals[b * 1024 + i] = keys[b * 1024 + i] * 7 + (uint32_t)b;
        }
        uint64_t dk = eh_buf(h, keys, 4096 * nb), dv = eh_buf(h, vals, 4096 * nb);
        EH_RUN(h, "bitonic_sort_kv_1024", D1(nb), D1(256), "pp", dk, dv);
        eh_read(h, dk, keys, 4096 * nb);
        eh_read(h, dv, vals, 4096 * nb);
        for (int b = 0; b < nb; b++)
            for (int i = 0; i < 1024; i++) {
                cr_assert_eq(keys[b * 1024 + i], (uint32_t)i, "%s block %d key %d", arch, b, i);
                cr_assert_eq(vals[b * 1024 + i], (uint32_t)i * 7 + (uint32_t)b);
            }
        int n = 96;
        float *f = ALLOC(float, n), *fw = ALLOC(float, n);
        eh_fill_f32(f, n, 241, -10, 10);
        memcpy(fw, f, 4 * n);
        for (int w = 0; w < n / 32; w++)
            for (int i = 0; i < 32; i++)
                for (int j = i + 1; j < 32; j++)
                    if (fw[w * 32 + j] < fw[w * 32 + i]) { float t = fw[w * 32 + i]; fw[w * 32 + i] = fw[w * 32 + j]; fw[w * 32 + j] = t; }
        uint64_t df = eh_buf(h, f, 4 * n);
        EH_RUN(h, "bitonic_sort_warp32", D1(1), D1(n), "p", df);
        eh_read(h, df, f, 4 * n);
        eh_expect_f32(f, fw, n, 0, 0, "bitonic_sort_warp32");
        free(keys); free(vals); free(f); free(fw);
        eh_close(h);
    }
}

/* ---- softmax / layernorm -------------------------------------------------------------------- */
Test(emu_corpus, softmax_layernorm)
{
    FOR_ARCH(arch) {
        eh *h = eh_open(eh_corpus(arch, "softmax_rowwise"), NULL);
        int rows = 5, cols = 70;
        float *x = ALLOC(float, rows * cols), *y = ALLOC(float, rows * cols), *w = ALLOC(float, rows * cols);
        eh_fill_f32(x, rows * cols, 250, -4, 4);
        for (int r = 0; r < rows; r++) {
            double m = -INFINITY, s = 0;
            for (int c = 0; c < cols; c++) m = fmax(m, x[r * cols + c]);
            for (int c = 0; c < cols; c++) s += exp(x[r * cols + c] - m);
            for (int c = 0; c < cols; c++) w[r * cols + c] = (float)(exp(x[r * cols + c] - m) / s);
        }
        uint64_t dx = eh_buf(h, x, 4 * rows * cols), dy = eh_zero(h, 4 * rows * cols);
        EH_RUN(h, "softmax_warp_per_row", D1(2), D1(96), "ppii", dx, dy, rows, cols);
        eh_read(h, dy, y, 4 * rows * cols);
        /* ex2.approx (2 ulp on hardware) inside an online max/sum: 1e-5 relative */
        eh_expect_f32(y, w, rows * cols, 1e-5, 1e-7, "softmax_warp_per_row");
        int lcols = 300, lrows = 3;
        float *lx = ALLOC(float, lrows * lcols), *ly = ALLOC(float, lrows * lcols), *lw = ALLOC(float, lrows * lcols);
        float *gamma = ALLOC(float, lcols), *beta = ALLOC(float, lcols);
        eh_fill_f32(lx, lrows * lcols, 251, -2, 3);
        eh_fill_f32(gamma, lcols, 252, 0.5f, 1.5f);
        eh_fill_f32(beta, lcols, 253, -1, 1);
        float eps = 1e-5f;
        for (int r = 0; r < lrows; r++) {
            double mu = 0, var = 0;
            for (int c = 0; c < lcols; c++) mu += lx[r * lcols + c];
            mu /= lcols;
            for (int c = 0; c < lcols; c++) var += (lx[r * lcols + c] - mu) * (lx[r * lcols + c] - mu);
            double rstd = 1 / sqrt(var / lcols + eps);
            for (int c = 0; c < lcols; c++) lw[r * lcols + c] = (float)((lx[r * lcols + c] - mu) * rstd * gamma[c] + beta[c]);
        }
        uint64_t dlx = eh_buf(h, lx, 4 * lrows * lcols), dly = eh_zero(h, 4 * lrows * lcols);
        uint64_t dg = eh_buf(h, gamma, 4 * lcols), db = eh_buf(h, beta, 4 * lcols);
        EH_RUN(h, "layernorm_welford", D1(lrows), D1(128), "ppppif", dlx, dly, dg, db, lcols, eps);
        eh_read(h, dly, ly, 4 * lrows * lcols);
        /* Welford merges in float against a two-pass double reference */
        eh_expect_f32(ly, lw, lrows * lcols, 1e-4, 1e-4, "layernorm_welford");
        free(x); free(y); free(w); free(lx); free(ly); free(lw); free(gamma); free(beta);
        eh_close(h);
    }
}

/* ---- sparse and graph kernels ------------------------------------------------------------------ */
typedef struct csr {
    int n, nnz;
    int32_t *ptr, *col;
    float *val;
    double *vald;
} csr;

static csr make_csr(int n, uint64_t seed)
{
    csr a;
    a.n = n;
    a.ptr = ALLOC(int32_t, n + 1);
    a.col = ALLOC(int32_t, n * 64);
    a.val = ALLOC(float, n * 64);
    a.vald = ALLOC(double, n * 64);
    int k = 0;
    for (int r = 0; r < n; r++) {
        a.ptr[r] = k;
        int len = (int)(eh_rand(&seed) % 60); /* some rows longer than a warp */
        for (int j = 0; j < len; j++) {
            a.col[k] = (int)(eh_rand(&seed) % (uint64_t)n);
            a.val[k] = (float)((double)(eh_rand(&seed) >> 11) * 0x1p-53 * 2 - 1);
            a.vald[k] = a.val[k] * 1.25;
            k++;
        }
    }
    a.ptr[n] = k;
    a.nnz = k;
    return a;
}

Test(emu_corpus, spmv_csr)
{
    FOR_ARCH(arch) {
        eh *h = eh_open(eh_corpus(arch, "spmv_csr"), NULL);
        int n = 50;
        csr a = make_csr(n, 260);
        float *x = ALLOC(float, n), *y = ALLOC(float, n), *w = ALLOC(float, n);
        double *xd = ALLOC(double, n), *yd = ALLOC(double, n), *wd = ALLOC(double, n), *mag = ALLOC(double, n);
        eh_fill_f32(x, n, 261, -1, 1);
        for (int i = 0; i < n; i++) xd[i] = x[i] * 0.5;
        for (int r = 0; r < n; r++) {
            double s = 0;
            mag[r] = 0;
            for (int j = a.ptr[r]; j < a.ptr[r + 1]; j++) { s += (double)a.val[j] * x[a.col[j]]; mag[r] += fabs(a.val[j] * x[a.col[j]]); }
            w[r] = (float)s;
        }
        uint64_t dp = eh_buf(h, a.ptr, 4 * (n + 1)), dc = eh_buf(h, a.col, 4 * a.nnz + 4), dv = eh_buf(h, a.val, 4 * a.nnz + 4);
        uint64_t dx = eh_buf(h, x, 4 * n);
        const char *ks[2] = {"spmv_csr_scalar", "spmv_csr_vector"};
        for (int k = 0; k < 2; k++) {
            uint64_t dy = eh_zero(h, 4 * n);
            EH_RUN(h, ks[k], D1(k ? 13 : 2), D1(128), "ippppp", n, dp, dc, dv, dx, dy);
            eh_read(h, dy, y, 4 * n);
            for (int r = 0; r < n; r++)
                cr_assert(fabs(y[r] - w[r]) <= 1e-6 * mag[r] + 1e-7, "%s %s row %d: %.9g want %.9g", arch, ks[k], r, y[r], w[r]);
        }
        /* templated: y = alpha * A x + beta * y */
        float alpha = 2.0f, beta = -1.0f;
        float *y0 = ALLOC(float, n);
        eh_fill_f32(y0, n, 262, -1, 1);
        uint64_t dyf = eh_buf(h, y0, 4 * n);
        EH_RUN(h, "_Z17spmv_csr_vector_tIfEviPKiS1_PKT_S4_PS2_S2_S2_", D1(13), D1(128), "ipppppff", n, dp, dc, dv, dx, dyf, alpha, beta);
        eh_read(h, dyf, y, 4 * n);
        for (int r = 0; r < n; r++) {
            float want = alpha * w[r] + beta * y0[r];
            cr_assert(fabs(y[r] - want) <= 2e-6 * mag[r] + 1e-6, "%s spmv_t<float> row %d", arch, r);
        }
        for (int r = 0; r < n; r++) {
            double s = 0;
            for (int j = a.ptr[r]; j < a.ptr[r + 1]; j++) s += a.vald[j] * xd[a.col[j]];
            wd[r] = 0.5 * s + 3.0 * (double)y0[r];
            yd[r] = y0[r];
        }
        uint64_t dvd = eh_buf(h, a.vald, 8 * a.nnz + 8), dxd = eh_buf(h, xd, 8 * n), dyd = eh_buf(h, yd, 8 * n);
        EH_RUN(h, "_Z17spmv_csr_vector_tIdEviPKiS1_PKT_S4_PS2_S2_S2_", D1(13), D1(128), "ipppppdd", n, dp, dc, dvd, dxd, dyd, 0.5, 3.0);
        eh_read(h, dyd, yd, 8 * n);
        eh_expect_f64(yd, wd, n, 1e-13, 1e-13, "spmv_t<double>");
        free(a.ptr); free(a.col); free(a.val); free(a.vald); free(x); free(y); free(w); free(xd); free(yd); free(wd); free(mag); free(y0);
        eh_close(h);
    }
}
