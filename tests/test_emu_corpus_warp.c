/* Corpus kernels of the warp-granular idioms (warp_reduce_tree, warp_roles,
 * spmv_warp_row, warp_stride, tile_1d_to_2d, warp_specialized,
 * warp_shfl_ballot).  References in C; where the kernel's order of float
 * operations is fixed (per-lane fma chains, shuffle trees, shared-memory
 * trees), the reference follows the same order and the results must be
 * equal. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "emu_harness.h"

#define FOR_ARCH(a) for (unsigned ai_ = 0; ai_ < 3; ai_++) for (const char *a = eh_arches[ai_]; a; a = NULL)
#define ALLOC(T, n) ((T *)calloc((size_t)(n), sizeof(T)))

/* v[0] after the tree v[t] += v[t + s] for s = n/2 .. 1 (n a power of two):
 * a shared-memory tree, or lane 0 of a __shfl_down_sync / __shfl_xor_sync
 * tree over n lanes. */
static float tree_sum(float *v, unsigned n)
{
    for (unsigned s = n / 2; s > 0; s >>= 1)
        for (unsigned t = 0; t < s; t++) v[t] += v[t + s];
    return v[0];
}

/* ---- warp_reduce_tree ---------------------------------------------------------------- */
Test(emu_corpus, warp_reduce_tree)
{
    FOR_ARCH(arch) {
        unsigned n = 5000, G = 3;
        float *in = ALLOC(float, n), out[3], want[3], s[512];
        eh_fill_f32(in, n, 700, -1, 1);
        /* classic loop over blockDim.x, dynamic shared memory */
        static const unsigned Bs[2] = {256, 128};
        for (int k = 0; k < 2; k++) {
            unsigned B = Bs[k];
            emu_options o = {.shared_bytes = B * 4};
            eh *h = eh_open(eh_corpus(arch, "warp_reduce_tree"), &o);
            for (unsigned b = 0; b < G; b++) {
                for (unsigned t = 0; t < B; t++) {
                    float sum = 0.0f;
                    for (unsigned i = b * B + t; i < n; i += B * G) sum += in[i];
                    s[t] = sum;
                }
                want[b] = tree_sum(s, B);
            }
            uint64_t din = eh_buf(h, in, 4 * n), dout = eh_zero(h, 4 * G);
            EH_RUN(h, "reduce_tree_classic", D1(G), D1(B), "ppu", din, dout, n);
            eh_read(h, dout, out, 4 * G);
            eh_expect_f32(out, want, G, 0, 0, "reduce_tree_classic");
            eh_close(h);
        }
        eh *h = eh_open(eh_corpus(arch, "warp_reduce_tree"), NULL);
        uint64_t din = eh_buf(h, in, 4 * n);
        /* unrolled, 512 elements per block: the last block ends inside its
         * second half (1300) or inside its first half (1100) */
        static const unsigned nus[2] = {1300, 1100};
        for (int k = 0; k < 2; k++) {
            unsigned nu = nus[k], Gu = 3;
            float uo[3], uw[3];
            for (unsigned b = 0; b < Gu; b++) {
                for (unsigned t = 0; t < 256; t++) {
                    unsigned i = b * 512 + t;
                    float sum = 0.0f;
                    if (i < nu) sum = in[i];
                    if (i + 256 < nu) sum += in[i + 256];
                    s[t] = sum;
                }
                uw[b] = tree_sum(s, 256); /* the volatile last warp runs in lock step */
            }
            uint64_t duo = eh_zero(h, 4 * Gu);
            EH_RUN(h, "reduce_tree_unrolled", D1(Gu), D1(256), "ppu", din, duo, nu);
            eh_read(h, duo, uo, 4 * Gu);
            eh_expect_f32(uo, uw, Gu, 0, 0, "reduce_tree_unrolled");
        }
        /* tree down to 64 in shared memory, then shuffles */
        static const struct { const char *k; unsigned B; } ks[2] = {
            {"_Z16reduce_tree_shflILj128EEvPKfPfj", 128}, {"_Z16reduce_tree_shflILj256EEvPKfPfj", 256}};
        for (int k = 0; k < 2; k++) {
            unsigned B = ks[k].B;
            for (unsigned b = 0; b < G; b++) {
                for (unsigned t = 0; t < B; t++) {
                    float sum = 0.0f;
                    for (unsigned i = b * B + t; i < n; i += B * G) sum += in[i];
                    s[t] = sum;
                }
                for (unsigned st = B / 2; st > 32; st >>= 1)
                    for (unsigned t = 0; t < st; t++) s[t] += s[t + st];
                for (unsigned t = 0; t < 32; t++) s[t] += s[t + 32];
                want[b] = tree_sum(s, 32);
            }
            uint64_t dout = eh_zero(h, 4 * G);
            EH_RUN(h, ks[k].k, D1(G), D1(B), "ppu", din, dout, n);
            eh_read(h, dout, out, 4 * G);
            eh_expect_f32(out, want, G, 0, 0, ks[k].k);
        }
        free(in);
        eh_close(h);
    }
}

/* ---- warp_roles ------------------------------------------------------------------------ */
static void fwht_ref(float *s, unsigned n)
{
    for (unsigned h = n / 2; h > 0; h >>= 1)
        for (unsigned lo = 0; lo < n; lo++)
            if (!(lo & h)) {
                float a = s[lo], b = s[lo + h];
                s[lo] = a + b;
                s[lo + h] = a - b;
            }
}

Test(emu_corpus, warp_roles)
{
    FOR_ARCH(arch) {
        eh *h = eh_open(eh_corpus(arch, "warp_roles"), NULL);
        /* two-level block sum: atomics from three blocks, 256 and 96 threads */
        unsigned n = 3000;
        float *x = ALLOC(float, n);
        eh_fill_f32(x, n, 710, -1, 1);
        double want = 0, mag = 0;
        for (unsigned i = 0; i < n; i++) { want += x[i]; mag += fabs(x[i]); }
        uint64_t dx = eh_buf(h, x, 4 * n);
        static const unsigned bs[2] = {256, 96};
        for (int k = 0; k < 2; k++) {
            float got;
            uint64_t dsum = eh_zero(h, 4);
            EH_RUN(h, "warp0_block_sum", D1(3), D1(bs[k]), "ppu", dx, dsum, n);
            eh_read(h, dsum, &got, 4);
            cr_assert(fabs(got - want) <= 1e-6 * mag, "%s warp0_block_sum (%u threads) %.9g want %.9g", arch, bs[k], got, want);
        }
        /* GEMM with loader warps: fma chains in k order */
        int M = 32, N = 48, K = 64;
        float *A = ALLOC(float, M * K), *B = ALLOC(float, K * N), *C = ALLOC(float, M * N), *W = ALLOC(float, M * N);
        eh_fill_f32(A, M * K, 711, -1, 1);
        eh_fill_f32(B, K * N, 712, -1, 1);
        for (int r = 0; r < M; r++)
            for (int c = 0; c < N; c++) {
                float acc = 0.0f;
                for (int k = 0; k < K; k++) acc = fmaf(A[r * K + k], B[k * N + c], acc);
                W[r * N + c] = acc;
            }
        uint64_t dA = eh_buf(h, A, 4 * M * K), dB = eh_buf(h, B, 4 * K * N), dC = eh_zero(h, 4 * M * N);
        EH_RUN(h, "sgemm_split_loaders", D2(N / 16, M / 16), D1(256), "pppiii", dA, dB, dC, M, N, K);
        eh_read(h, dC, C, 4 * M * N);
        eh_expect_f32(C, W, M * N, 0, 0, "sgemm_split_loaders");
        /* mid/side by warp pairs: 1000 frames, 128 per block */
        unsigned nf = 1000;
        float *lr = ALLOC(float, 2 * nf), *mid = ALLOC(float, nf), *side = ALLOC(float, nf);
        float *mw = ALLOC(float, nf), *sw = ALLOC(float, nf);
        eh_fill_f32(lr, 2 * nf, 713, -1, 1);
        for (unsigned f = 0; f < nf; f++) {
            mw[f] = 0.5f * (lr[2 * f] + lr[2 * f + 1]);
            sw[f] = 0.5f * (lr[2 * f] - lr[2 * f + 1]);
        }
        uint64_t dlr = eh_buf(h, lr, 8 * nf), dmid = eh_zero(h, 4 * nf), dside = eh_zero(h, 4 * nf);
        EH_RUN(h, "mid_side_warp_pairs", D1((nf + 127) / 128), D1(256), "pppu", dlr, dmid, dside, nf);
        eh_read(h, dmid, mid, 4 * nf);
        eh_read(h, dside, side, 4 * nf);
        eh_expect_f32(mid, mw, nf, 0, 0, "mid_side_warp_pairs mid");
        eh_expect_f32(side, sw, nf, 0, 0, "mid_side_warp_pairs side");
        /* Walsh-Hadamard transform of three segments */
        float *d = ALLOC(float, 768), *dw = ALLOC(float, 768);
        eh_fill_f32(d, 768, 714, -1, 1);
        memcpy(dw, d, 768 * 4);
        for (int b = 0; b < 3; b++) fwht_ref(dw + 256 * b, 256);
        uint64_t dd = eh_buf(h, d, 768 * 4);
        EH_RUN(h, "fwht256", D1(3), D1(256), "p", dd);
        eh_read(h, dd, d, 768 * 4);
        eh_expect_f32(d, dw, 768, 0, 0, "fwht256");
        /* 1-D convolution with aprons: 33 taps, zero outside [0, n) */
        int nc = 1000, R = 16;
        float *cin = ALLOC(float, nc), taps[33], *cout = ALLOC(float, nc), *cw = ALLOC(float, nc);
        eh_fill_f32(cin, nc, 715, -1, 1);
        eh_fill_f32(taps, 33, 716, -0.5f, 0.5f);
        for (int g = 0; g < nc; g++) {
            float acc = 0.0f;
            for (int k = 0; k <= 2 * R; k++) {
                int j = g + k - R;
                acc = fmaf(taps[k], j >= 0 && j < nc ? cin[j] : 0.0f, acc);
            }
            cw[g] = acc;
        }
        uint64_t dcin = eh_buf(h, cin, 4 * nc), dtaps = eh_buf(h, taps, 4 * 33), dcout = eh_zero(h, 4 * nc);
        EH_RUN(h, "conv1d_apron", D1((nc + 127) / 128), D1(256), "pppi", dcin, dtaps, dcout, nc);
        eh_read(h, dcout, cout, 4 * nc);
        eh_expect_f32(cout, cw, nc, 0, 0, "conv1d_apron");
        /* 100-bin histogram, values below and above the range clamped */
        unsigned nh = 5000;
        float *hx = ALLOC(float, nh), lo = 0.0f, inv = 100.0f;
        uint32_t hist[100], hw[100] = {0};
        eh_fill_f32(hx, nh, 717, -0.2f, 1.2f);
        for (unsigned i = 0; i < nh; i++) {
            int b = (int)floorf((hx[i] - lo) * inv);
            hw[b < 0 ? 0 : b > 99 ? 99 : b]++;
        }
        uint64_t dhx = eh_buf(h, hx, 4 * nh), dh = eh_zero(h, 400);
        EH_RUN(h, "histogram_100bins", D1(4), D1(256), "ppuff", dhx, dh, nh, lo, inv);
        eh_read(h, dh, hist, 400);
        eh_expect_i32((int32_t *)hist, (int32_t *)hw, 100, "histogram_100bins");
        free(x); free(A); free(B); free(C); free(W); free(lr); free(mid); free(side); free(mw); free(sw);
        free(d); free(dw); free(cin); free(cout); free(cw); free(hx);
        eh_close(h);
    }
}

/* ---- spmv_warp_row --------------------------------------------------------------------- */
typedef struct wcsr {
    int n, nnz;
    int32_t *ptr, *col;
    float *val;
} wcsr;

/* Row lengths 0..69, with rows of exactly 32 and 64 nonzeros. */
static wcsr make_wcsr(int n, uint64_t seed)
{
    wcsr a;
    a.n = n;
    a.ptr = ALLOC(int32_t, n + 1);
    a.col = ALLOC(int32_t, n * 70 + 1);
    a.val = ALLOC(float, n * 70 + 1);
    int k = 0;
    for (int r = 0; r < n; r++) {
        a.ptr[r] = k;
        int len = r == 3 ? 32 : r == 4 ? 64 : (int)(eh_rand(&seed) % 70);
        for (int j = 0; j < len; j++) {
            a.col[k] = (int)(eh_rand(&seed) % (uint64_t)n);
            a.val[k] = (float)((double)(eh_rand(&seed) >> 11) * 0x1p-53 * 2 - 1);
            k++;
        }
    }
    a.ptr[n] = k;
    a.nnz = k;
    return a;
}

/* One warp per row: per-lane fma chains over j = start + lane, += 32,
 * then the shuffle tree (lane 0's value). */
static float warp_row_dot(const wcsr *a, const float *x, int r)
{
    float lane[32];
    for (int l = 0; l < 32; l++) {
        float s = 0.0f;
        for (int j = a->ptr[r] + l; j < a->ptr[r + 1]; j += 32) s = fmaf(a->val[j], x[a->col[j]], s);
        lane[l] = s;
    }
    return tree_sum(lane, 32);
}

Test(emu_corpus, spmv_warp_row)
{
    FOR_ARCH(arch) {
        eh *h = eh_open(eh_corpus(arch, "spmv_warp_row"), NULL);
        int n = 50;
        wcsr a = make_wcsr(n, 720);
        float *x = ALLOC(float, n), *y = ALLOC(float, n), *w = ALLOC(float, n), *y0 = ALLOC(float, n);
        eh_fill_f32(x, n, 721, -1, 1);
        eh_fill_f32(y0, n, 722, -1, 1);
        for (int r = 0; r < n; r++) w[r] = warp_row_dot(&a, x, r);
        uint64_t dp = eh_buf(h, a.ptr, 4 * (n + 1)), dc = eh_buf(h, a.col, 4 * a.nnz + 4), dv = eh_buf(h, a.val, 4 * a.nnz + 4);
        uint64_t dx = eh_buf(h, x, 4 * n), dy = eh_zero(h, 4 * n);
        /* 13 blocks of 4 warps: 52 warps, the last two past the rows */
        EH_RUN(h, "spmv_warp_row", D1(13), D1(128), "ippppp", n, dp, dc, dv, dx, dy);
        eh_read(h, dy, y, 4 * n);
        eh_expect_f32(y, w, n, 0, 0, "spmv_warp_row");
        /* persistent grid: 8 warps walk 50 rows */
        float alpha = 1.5f, beta = -0.5f;
        for (int r = 0; r < n; r++) w[r] = fmaf(alpha, warp_row_dot(&a, x, r), beta * y0[r]);
        uint64_t dy0 = eh_buf(h, y0, 4 * n);
        EH_RUN(h, "spmv_warp_row_axpby", D1(2), D1(128), "ipppppff", n, dp, dc, dv, dx, dy0, alpha, beta);
        eh_read(h, dy0, y, 4 * n);
        eh_expect_f32(y, w, n, 0, 0, "spmv_warp_row_axpby");
        free(a.ptr); free(a.col); free(a.val); free(x); free(y); free(w); free(y0);
        eh_close(h);
    }
}

/* ---- warp_stride ----------------------------------------------------------------------- */
Test(emu_corpus, warp_stride)
{
    FOR_ARCH(arch) {
        eh *h = eh_open(eh_corpus(arch, "warp_stride"), NULL);
        /* 37 rows of 70 columns over 8 warps */
        unsigned nr = 37, nc = 70;
        float *A = ALLOC(float, nr * nc), norms[37], nw[37];
        eh_fill_f32(A, nr * nc, 730, -2, 2);
        for (unsigned r = 0; r < nr; r++) {
            float lane[32];
            for (unsigned l = 0; l < 32; l++) {
                float ss = 0.0f;
                for (unsigned c = l; c < nc; c += 32) ss = fmaf(A[r * nc + c], A[r * nc + c], ss);
                lane[l] = ss;
            }
            nw[r] = sqrtf(tree_sum(lane, 32));
        }
        uint64_t dA = eh_buf(h, A, 4 * nr * nc), dn = eh_zero(h, 4 * nr);
        EH_RUN(h, "row_norms_warp_stride", D1(2), D1(128), "ppuu", dA, dn, nr, nc);
        eh_read(h, dn, norms, 4 * nr);
        eh_expect_f32(norms, nw, nr, 0, 0, "row_norms_warp_stride");
        /* 20 vectors of 32 over 4 warps */
        unsigned nv = 20;
        float eps = 1e-6f, *v = ALLOC(float, 32 * nv), *vw = ALLOC(float, 32 * nv);
        eh_fill_f32(v, 32 * nv, 731, -1, 1);
        for (unsigned i = 0; i < nv; i++) {
            double ss = 0;
            for (unsigned l = 0; l < 32; l++) ss += (double)v[32 * i + l] * v[32 * i + l];
            for (unsigned l = 0; l < 32; l++) vw[32 * i + l] = (float)(v[32 * i + l] / sqrt(ss + eps));
        }
        uint64_t dv = eh_buf(h, v, 4 * 32 * nv);
        EH_RUN(h, "normalize_vec32", D1(2), D1(64), "puf", dv, nv, eps);
        eh_read(h, dv, v, 4 * 32 * nv);
        eh_expect_f32(v, vw, 32 * nv, 1e-6, 1e-7, "normalize_vec32"); /* rsqrt.approx */
        /* scale 21 rows of 45 columns, pitch 48: the padding stays */
        unsigned sr = 21, sc = 45, ld = 48;
        float *S = ALLOC(float, sr * ld), *SW = ALLOC(float, sr * ld), scale[21];
        eh_fill_f32(S, sr * ld, 732, -1, 1);
        eh_fill_f32(scale, sr, 733, 0.5f, 2);
        memcpy(SW, S, 4 * sr * ld);
        for (unsigned r = 0; r < sr; r++)
            for (unsigned c = 0; c < sc; c++) SW[r * ld + c] *= scale[r];
        uint64_t dS = eh_buf(h, S, 4 * sr * ld), dsc = eh_buf(h, scale, 4 * sr);
        EH_RUN(h, "scale_rows_warp_stride", D1(2), D1(96), "ppuuu", dS, dsc, sr, sc, ld);
        eh_read(h, dS, S, 4 * sr * ld);
        eh_expect_f32(S, SW, sr * ld, 0, 0, "scale_rows_warp_stride");
        free(A); free(v); free(vw); free(S); free(SW);
        eh_close(h);
    }
}

/* ---- tile_1d_to_2d --------------------------------------------------------------------- */
Test(emu_corpus, tile_1d_to_2d)
{
    FOR_ARCH(arch) {
        eh *h = eh_open(eh_corpus(arch, "tile_1d_to_2d"), NULL);
        int rows = 37, cols = 45, lda = 50, ldb = 48;
        float *A = ALLOC(float, rows * lda), *B = ALLOC(float, rows * ldb), *BW = ALLOC(float, rows * ldb);
        eh_fill_f32(A, rows * lda, 740, -1, 1);
        for (int i = 0; i < rows * ldb; i++) BW[i] = -7.0f; /* untouched outside the matrix */
        for (int r = 0; r < rows; r++)
            for (int c = 0; c < cols; c++) BW[r * ldb + c] = A[r * lda + c];
        for (int i = 0; i < rows * ldb; i++) B[i] = -7.0f;
        uint64_t dA = eh_buf(h, A, 4 * rows * lda), dB = eh_buf(h, B, 4 * rows * ldb);
        EH_RUN(h, "tile_copy_1d_block", D2(3, 3), D1(256), "ppiiii", dA, dB, rows, cols, lda, ldb);
        eh_read(h, dB, B, 4 * rows * ldb);
        eh_expect_f32(B, BW, rows * ldb, 0, 0, "tile_copy_1d_block");
        /* transposes of a dense 40 x 35 matrix */
        int tr = 40, tc = 35;
        float *T = ALLOC(float, tr * tc), *TT = ALLOC(float, tr * tc), *TW = ALLOC(float, tr * tc);
        eh_fill_f32(T, tr * tc, 741, -1, 1);
        for (int r = 0; r < tr; r++)
            for (int c = 0; c < tc; c++) TW[c * tr + r] = T[r * tc + c];
        uint64_t dT = eh_buf(h, T, 4 * tr * tc);
        static const char *ks[2] = {"_Z19tile_transpose_smemILi0EEvPKfPfii", "_Z19tile_transpose_smemILi1EEvPKfPfii"};
        for (int k = 0; k < 2; k++) {
            uint64_t dTT = eh_zero(h, 4 * tr * tc);
            EH_RUN(h, ks[k], D2((tc + 15) / 16, (tr + 15) / 16), D1(256), "ppii", dT, dTT, tr, tc);
            eh_read(h, dTT, TT, 4 * tr * tc);
            eh_expect_f32(TT, TW, tr * tc, 0, 0, ks[k]);
        }
        free(A); free(B); free(BW); free(T); free(TT); free(TW);
        eh_close(h);
    }
}

/* ---- warp_specialized ------------------------------------------------------------------ */
Test(emu_corpus, warp_specialized)
{
    FOR_ARCH(arch) {
        eh *h = eh_open(eh_corpus(arch, "warp_specialized"), NULL);
        /* 3 blocks, 5 tiles each: the two-stage ring wraps twice */
        int G = 3, nt = 5, ne = G * nt * 128;
        float scale = 0.75f;
        float *in = ALLOC(float, ne), *out = ALLOC(float, ne), *ow = ALLOC(float, ne), sums[3], sw[3];
        eh_fill_f32(in, ne, 750, -1, 1);
        for (int i = 0; i < ne; i++) ow[i] = fmaxf(in[i], 0.0f) * scale;
        for (int b = 0; b < G; b++) {
            float part[4];
            for (int w = 0; w < 4; w++) {
                float lane[32];
                for (int l = 0; l < 32; l++) {
                    float acc = 0.0f;
                    for (int k = 0; k < nt; k++) acc += ow[(b * nt + k) * 128 + w * 32 + l];
                    lane[l] = acc;
                }
                part[w] = tree_sum(lane, 32); /* every lane of the xor tree holds this value */
            }
            sw[b] = (part[0] + part[1]) + (part[2] + part[3]);
        }
        uint64_t din = eh_buf(h, in, 4 * ne), dout = eh_zero(h, 4 * ne), ds = eh_zero(h, 12);
        EH_RUN(h, "ws_producer_consumer", D1(G), D1(256), "pppif", din, dout, ds, nt, scale);
        eh_read(h, dout, out, 4 * ne);
        eh_read(h, ds, sums, 12);
        eh_expect_f32(out, ow, ne, 0, 0, "ws_producer_consumer out");
        eh_expect_f32(sums, sw, G, 0, 0, "ws_producer_consumer sums");
        /* one tile: no stage is refilled */
        uint64_t ds1 = eh_zero(h, 12);
        EH_RUN(h, "ws_producer_consumer", D1(1), D1(256), "pppif", din, dout, ds1, 1, scale);
        eh_read(h, ds1, sums, 4);
        float l1[32], p1[4];
        for (int w = 0; w < 4; w++) {
            for (int l = 0; l < 32; l++) l1[l] = 0.0f + ow[w * 32 + l];
            p1[w] = tree_sum(l1, 32);
        }
        float s1 = (p1[0] + p1[1]) + (p1[2] + p1[3]);
        eh_expect_f32(sums, &s1, 1, 0, 0, "ws_producer_consumer, one tile");
        free(in); free(out); free(ow);
        eh_close(h);
    }
}

/* ---- warp_shfl_ballot ------------------------------------------------------------------ */
static int cmp_f32(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

Test(emu_corpus, warp_shfl_ballot)
{
    FOR_ARCH(arch) {
        eh *h = eh_open(eh_corpus(arch, "warp_shfl_ballot"), NULL);
        /* compaction of x > 0.3 (warp 5 keeps nothing) */
        unsigned n = 1000;
        float thr = 0.3f, *x = ALLOC(float, n), *out = ALLOC(float, n), *want = ALLOC(float, n);
        eh_fill_f32(x, n, 760, -1, 1);
        for (unsigned i = 160; i < 192; i++) x[i] = -0.5f;
        unsigned count, nk = 0;
        for (unsigned i = 0; i < n; i++) if (x[i] > thr) want[nk++] = x[i];
        uint64_t dx = eh_buf(h, x, 4 * n), dout = eh_zero(h, 4 * n), dc = eh_zero(h, 4);
        EH_RUN(h, "compact_warp_aggregated", D1((n + 127) / 128), D1(128), "pppuf", dx, dout, dc, n, thr);
        eh_read(h, dc, &count, 4);
        eh_read(h, dout, out, 4 * n);
        cr_assert_eq(count, nk, "%s compact_warp_aggregated: %u kept, want %u", arch, count, nk);
        /* each warp's values are contiguous and in lane order */
        for (unsigned w = 0; w * 32 < n; w++) {
            unsigned first = 0, m = 0;
            for (unsigned i = w * 32; i < n && i < w * 32 + 32; i++) {
                if (!(x[i] > thr)) continue;
                if (!m) {
                    for (first = 0; first < count && out[first] != x[i]; first++) {}
                    cr_assert_lt(first, count, "%s warp %u: %g not written", arch, w, x[i]);
                }
                cr_assert(out[first + m] == x[i], "%s warp %u: slot %u", arch, w, first + m);
                m++;
            }
        }
        qsort(out, count, 4, cmp_f32);
        qsort(want, nk, 4, cmp_f32);
        eh_expect_f32(out, want, nk, 0, 0, "compact_warp_aggregated");
        /* row centring: 11 rows of 77 over 12 warps */
        unsigned nr = 11, nc = 77;
        float *in = ALLOC(float, nr * nc), *y = ALLOC(float, nr * nc), *yw = ALLOC(float, nr * nc), off[11];
        eh_fill_f32(in, nr * nc, 761, -3, 3);
        eh_fill_f32(off, nr, 762, -1, 1);
        for (unsigned r = 0; r < nr; r++) {
            float lane[32];
            for (unsigned l = 0; l < 32; l++) {
                float s = 0.0f;
                for (unsigned c = l; c < nc; c += 32) s += in[r * nc + c];
                lane[l] = s;
            }
            float sum = tree_sum(lane, 32);
            float shift = off[r] - sum / (float)nc;
            for (unsigned c = 0; c < nc; c++) yw[r * nc + c] = in[r * nc + c] + shift;
        }
        uint64_t din = eh_buf(h, in, 4 * nr * nc), doff = eh_buf(h, off, 4 * nr), dy = eh_zero(h, 4 * nr * nc);
        EH_RUN(h, "row_center_warp", D1(3), D1(128), "pppuu", din, doff, dy, nr, nc);
        eh_read(h, dy, y, 4 * nr * nc);
        eh_expect_f32(y, yw, nr * nc, 0, 0, "row_center_warp");
        /* first match per segment: none in segment 3, the last element in 5, the first in 7 */
        unsigned ns = 10, sl = 100;
        int key = 7;
        int32_t *a = ALLOC(int32_t, ns * sl), first[10], fw[10];
        eh_fill_i32(a, ns * sl, 763, 0, 60);
        for (unsigned j = 0; j < sl; j++) {
            if (a[3 * sl + j] == key) a[3 * sl + j] = key + 1;
            if (a[5 * sl + j] == key) a[5 * sl + j] = key + 1;
        }
        a[5 * sl + sl - 1] = key;
        a[7 * sl] = key;
        for (unsigned s = 0; s < ns; s++) {
            fw[s] = -1;
            for (unsigned j = 0; j < sl; j++)
                if (a[s * sl + j] == key) { fw[s] = (int32_t)j; break; }
        }
        uint64_t da = eh_buf(h, a, 4 * ns * sl), df = eh_zero(h, 4 * ns);
        EH_RUN(h, "warp_find_first", D1(3), D1(128), "ppuui", da, df, ns, sl, key);
        eh_read(h, df, first, 4 * ns);
        eh_expect_i32(first, fw, ns, "warp_find_first");
        free(x); free(out); free(want); free(in); free(y); free(yw); free(a);
        eh_close(h);
    }
}
