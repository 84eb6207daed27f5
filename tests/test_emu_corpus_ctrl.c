/* Corpus kernels with irregular control flow: nested divergence, loops
 * with several exits, switches and jump tables, local arrays, device
 * function calls (by value, recursive, through pointers), printf.  The
 * kernels that also have a -G build (ptx-corpus/debug) run from it too. */
#include <criterion/criterion.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "emu_harness.h"

#define ALLOC(T, n) ((T *)calloc((size_t)(n), sizeof(T)))

#define FOR_VARIANT(k, ndbg) EH_FOR_VARIANT(k, ndbg)
#define variant eh_variant

Test(emu_corpus, nested_divergence)
{
    FOR_VARIANT(k, 1) {
        eh *h = eh_open(variant(k, "nested_divergence"), NULL);
        int n = 150;
        int32_t *in = ALLOC(int32_t, n), *out = ALLOC(int32_t, n), *w = ALLOC(int32_t, n);
        eh_fill_i32(in, n, 400, -300, 300);
        for (int mode = 0; mode < 3; mode++) {
            for (int i = 0; i < n; i++) {
                int lane = (i % 64) & 31, blk = i / 64, v = in[i], r;
                if (mode == 0) {
                    if (lane < 16) r = v > 0 ? v * 2 : v < -100 ? -v : 0;
                    else r = (blk & 1) ? v + lane : v - lane;
                } else if (mode == 1) {
                    r = (v & 1) ? v * 3 + 1 : v / 2;
                } else {
                    r = lane % 3 == 0 ? 100 : lane % 3 == 1 ? 200 : 300;
                }
                w[i] = r;
            }
            uint64_t din = eh_buf(h, in, 4 * n), dout = eh_zero(h, 4 * n);
            EH_RUN(h, "nested_branches", D1(3), D1(64), "ppii", din, dout, n, mode);
            eh_read(h, dout, out, 4 * n);
            eh_expect_i32(out, w, n, "nested_branches");
        }
        uint32_t *seeds = ALLOC(uint32_t, n);
        uint64_t s = 401;
        for (int i = 0; i < n; i++) seeds[i] = 1 + (uint32_t)(eh_rand(&s) % 1000);
        for (int cap = 0; cap <= 50; cap += 50) {
            for (int i = 0; i < n; i++) {
                uint32_t x = seeds[i];
                int st = 0;
                while (x != 1u) {
                    x = (x & 1u) ? 3u * x + 1u : x >> 1;
                    ++st;
                    if (cap > 0 && st >= cap) break;
                }
                w[i] = st;
            }
            uint64_t ds = eh_buf(h, seeds, 4 * n), dst = eh_zero(h, 4 * n);
            EH_RUN(h, "collatz_steps", D1(3), D1(64), "ppii", ds, dst, n, cap);
            eh_read(h, dst, out, 4 * n);
            eh_expect_i32(out, w, n, "collatz_steps");
        }
        /* half-warp shuffle sum on the low lanes, squares on the high ones (with early exits) */
        int nf = 100, T = 128, nw = (nf + 31) / 32;
        float *fi = ALLOC(float, nf), *fo = ALLOC(float, nw + T), *fw = ALLOC(float, nw + T);
        eh_fill_f32(fi, nf, 402, -1, 1);
        for (int wp = 0; wp < T / 32; wp++) {
            float v[16];
            for (int l = 0; l < 16; l++) v[l] = wp * 32 + l < nf ? fi[wp * 32 + l] : 0.0f;
            for (int o = 8; o > 0; o >>= 1) {
                float nv[16];
                for (int l = 0; l < 16; l++) nv[l] = v[l] + (l + o < 16 ? v[l + o] : v[l]);
                memcpy(v, nv, sizeof v);
            }
            /* warp wp's lane 0 writes out[i / 32] = out[wp]: warps 0..3, so out[nw..] overlaps (see below) */
            fw[wp] = v[0];
            for (int l = 16; l < 32; l++) {
                int i = wp * 32 + l;
                float x = i < nf ? fi[i] : 0.0f;
                if (x < 0.0f) continue;
                fw[nw + i] = x * x;
            }
        }
        uint64_t dfi = eh_buf(h, fi, 4 * nf), dfo = eh_zero(h, 4 * (nw + T));
        EH_RUN(h, "half_warp_sum", D1(1), D1(T), "ppi", dfi, dfo, nf);
        eh_read(h, dfo, fo, 4 * (nw + T));
        eh_expect_f32(fo, fw, nw + T, 0, 0, "half_warp_sum");
        free(in); free(out); free(w); free(seeds); free(fi); free(fo); free(fw);
        eh_close(h);
    }
}

Test(emu_corpus, loops_break_continue)
{
    FOR_VARIANT(k, 0) {
        eh *h = eh_open(variant(k, "loops_break_continue"), NULL);
        int hl = 200, n = 70;
        int32_t *hay = ALLOC(int32_t, hl), *nd = ALLOC(int32_t, n), *pos = ALLOC(int32_t, n), *w = ALLOC(int32_t, n);
        eh_fill_i32(hay, hl, 410, -20, 60);
        eh_fill_i32(nd, n, 411, -5, 80);
        for (int i = 0; i < n; i++) {
            w[i] = -1;
            for (int j = 0; j < hl; j++) {
                if (hay[j] < 0) continue;
                if (hay[j] == nd[i]) { w[i] = j; break; }
            }
        }
        uint64_t dh = eh_buf(h, hay, 4 * hl), dn = eh_buf(h, nd, 4 * n), dp = eh_zero(h, 4 * n);
        EH_RUN(h, "find_first_match", D1(3), D1(32), "pippi", dh, hl, dn, dp, n);
        eh_read(h, dp, pos, 4 * n);
        eh_expect_i32(pos, w, n, "find_first_match");
        /* each thread searches its own matrix */
        int rows = 6, cols = 7, T = 64;
        float *m = ALLOC(float, rows * cols * T), thr = 0.97f;
        eh_fill_f32(m, rows * cols * T, 412, 0, 1);
        for (int i = 0; i < rows * cols * T; i += 5) m[i] = NAN;
        int32_t *where = ALLOC(int32_t, T), *ww = ALLOC(int32_t, T);
        for (int b = 0; b < T; b++) {
            ww[b] = -1;
            const float *mat = m + (size_t)b * rows * cols;
            for (int r = 0; r < rows && ww[b] < 0; r++)
                for (int c = 0; c < cols; c++) {
                    float v = mat[r * cols + c];
                    if (v != v) continue;
                    if (v > thr) { ww[b] = r * cols + c; break; }
                }
        }
        uint64_t dm = eh_buf(h, m, 4 * rows * cols * T), dwh = eh_zero(h, 4 * T);
        EH_RUN(h, "matrix_find_goto", D1(2), D1(32), "piifp", dm, rows, cols, thr, dwh);
        eh_read(h, dwh, where, 4 * T);
        eh_expect_i32(where, ww, T, "matrix_find_goto");
        uint32_t *ga = ALLOC(uint32_t, n), *gb = ALLOC(uint32_t, n), *gg = ALLOC(uint32_t, n), *gw = ALLOC(uint32_t, n);
        uint64_t s = 413;
        for (int i = 0; i < n; i++) {
            ga[i] = (uint32_t)(eh_rand(&s) % 100000);
            gb[i] = i % 9 == 0 ? 0 : (uint32_t)(eh_rand(&s) % 100000);
            uint32_t x = ga[i], y = gb[i];
            while (y) { uint32_t t = x % y; x = y; y = t; }
            gw[i] = x;
        }
        uint64_t dga = eh_buf(h, ga, 4 * n), dgb = eh_buf(h, gb, 4 * n), dgg = eh_zero(h, 4 * n);
        EH_RUN(h, "gcd_dowhile", D1(3), D1(32), "pppi", dga, dgb, dgg, n);
        eh_read(h, dgg, gg, 4 * n);
        eh_expect_i32((int32_t *)gg, (int32_t *)gw, n, "gcd_dowhile");
        float *ni = ALLOC(float, n), *no = ALLOC(float, n), *nw = ALLOC(float, n);
        int32_t *it = ALLOC(int32_t, n), *itw = ALLOC(int32_t, n);
        eh_fill_f32(ni, n, 414, -10, 1000);
        for (int i = 0; i < n; i++) {
            float a = ni[i];
            if (a <= 0.0f) { nw[i] = 0; itw[i] = 0; continue; }
            float x = a;
            int c = 0;
            for (;;) {
                float nx = 0.5f * (x + a / x);
                ++c;
                if (fabsf(nx - x) < 1e-6f * nx || c >= 64) { x = nx; break; }
                x = nx;
            }
            nw[i] = x;
            itw[i] = c;
        }
        uint64_t dni = eh_buf(h, ni, 4 * n), dno = eh_zero(h, 4 * n), dit = eh_zero(h, 4 * n);
        EH_RUN(h, "newton_sqrt_forever", D1(3), D1(32), "pppi", dni, dno, dit, n);
        eh_read(h, dno, no, 4 * n);
        eh_read(h, dit, it, 4 * n);
        eh_expect_f32(no, nw, n, 0, 0, "newton_sqrt_forever");
        eh_expect_i32(it, itw, n, "newton_sqrt_forever iterations");
        /* one block (blocks would overlap on data) */
        int nv = 500, step = 2;
        int32_t *dv = ALLOC(int32_t, nv), *dvw = ALLOC(int32_t, nv);
        eh_fill_i32(dv, nv, 415, 0, 3000);
        for (int i = 0; i < nv; i += 7) dv[i] = 0;
        for (int i = 0; i < nv; i += 11) dv[i] = 600000;
        memcpy(dvw, dv, 4 * nv);
        for (int t = 0; t < 32; t++)
            for (int kk = t; kk < nv; kk += (step + 1) * 32) {
                if (dvw[kk] == 0) continue;
                dvw[kk] = dvw[kk] * 2 + kk;
                if (dvw[kk] > 1 << 20) break;
            }
        int32_t steps1 = step;
        uint64_t ddv = eh_buf(h, dv, 4 * nv), dst = eh_buf(h, &steps1, 4);
        EH_RUN(h, "variable_step", D1(1), D1(32), "pip", ddv, nv, dst);
        eh_read(h, ddv, dv, 4 * nv);
        eh_expect_i32(dv, dvw, nv, "variable_step");
        free(hay); free(nd); free(pos); free(w); free(m); free(where); free(ww); free(ga); free(gb); free(gg); free(gw);
        free(ni); free(no); free(nw); free(it); free(itw); free(dv); free(dvw);
        eh_close(h);
    }
}

static int32_t interp(const uint8_t *pc, int len, int32_t arg)
{
    /* two's complement wrap as on the GPU; INT_MIN / -1 gives INT_MIN (docs/emulator.md) */
    uint32_t acc = (uint32_t)arg, reg = 1;
    for (int k = 0; k < len; ++k) {
        switch (pc[k]) {
        case 0: acc += reg; break;
        case 1: acc -= reg; break;
        case 2: acc *= reg; break;
        case 3:
            if (!reg) acc = 0;
            else if (acc == 0x80000000u && reg == 0xffffffffu) acc = 0x80000000u;
            else acc = (uint32_t)((int32_t)acc / (int32_t)reg);
            break;
        case 4: reg = acc; break;
        case 5: acc = 0u - acc; break;
        case 6: acc <<= 1; break;
        case 7: acc ^= 0x5a5a; break;
        case 8: reg += 1; break;
        case 9: k = len; break;
        default: acc = 0x7fffffff; break;
        }
    }
    return (int32_t)acc;
}

Test(emu_corpus, switch_dispatch)
{
    FOR_VARIANT(k, 1) {
        eh *h = eh_open(variant(k, "switch_dispatch"), NULL);
        int np = 90, maxlen = 24;
        uint8_t *code = ALLOC(uint8_t, np * maxlen);
        int32_t *len = ALLOC(int32_t, np), *args = ALLOC(int32_t, np), *res = ALLOC(int32_t, np), *w = ALLOC(int32_t, np);
        uint64_t s = 420;
        for (int p = 0; p < np; p++) {
            len[p] = (int)(eh_rand(&s) % (uint64_t)(maxlen + 1));
            args[p] = (int32_t)(eh_rand(&s) % 2001) - 1000;
            for (int j = 0; j < maxlen; j++) code[p * maxlen + j] = (uint8_t)(eh_rand(&s) % 12);
            w[p] = interp(code + p * maxlen, len[p], args[p]);
        }
        uint64_t dc = eh_buf(h, code, np * maxlen), dl = eh_buf(h, len, 4 * np), da = eh_buf(h, args, 4 * np), dr = eh_zero(h, 4 * np);
        EH_RUN(h, "bytecode_interp", D1(2), D1(64), "ppppii", dc, dl, da, dr, np, maxlen);
        eh_read(h, dr, res, 4 * np);
        eh_expect_i32(res, w, np, "bytecode_interp");
        int n = 64;
        static const int special[5] = {-1000, 7, 4096, 65537, 1 << 30};
        static const float fv[5] = {0.5f, 1.0f, 2.0f, 3.0f, 4.0f};
        int32_t *keys = ALLOC(int32_t, n);
        float *fo = ALLOC(float, n), *fw = ALLOC(float, n);
        for (int i = 0; i < n; i++) {
            keys[i] = i % 3 == 0 ? special[i % 5] : i * 13;
            fw[i] = -1.0f;
            for (int j = 0; j < 5; j++) if (keys[i] == special[j]) fw[i] = fv[j];
        }
        uint64_t dk = eh_buf(h, keys, 4 * n), dfo = eh_zero(h, 4 * n);
        EH_RUN(h, "sparse_switch", D1(2), D1(32), "ppi", dk, dfo, n);
        eh_read(h, dfo, fo, 4 * n);
        eh_expect_f32(fo, fw, n, 0, 0, "sparse_switch");
        /* one warp: every lane loads before any lane stores */
        int32_t data[32], dw[32];
        eh_fill_i32(data, 32, 421, -50, 50);
        for (int i = 0; i < 32; i++) {
            int v = data[i], bonus = 0;
            switch (v & 7) {
            case 7: bonus += 7; /* fall through */
            case 6: bonus += 6; /* fall through */
            case 5: bonus += 5; /* fall through */
            case 4: bonus += 4; break;
            case 3: bonus = data[(i + 1) % 32]; /* fall through */
            case 2: bonus *= 2; break;
            default: break;
            }
            dw[i] = v + bonus;
        }
        uint64_t dd = eh_buf(h, data, 128);
        EH_RUN(h, "fallthrough_switch", D1(1), D1(32), "pi", dd, 32);
        eh_read(h, dd, data, 128);
        eh_expect_i32(data, dw, 32, "fallthrough_switch");
        uint32_t sel[64], so[64], sw[64];
        static const uint32_t tv[4] = {11, 22, 33, 44};
        for (int i = 0; i < 64; i++) { sel[i] = (uint32_t)(i * 7 + 3); sw[i] = tv[sel[i] & 3]; }
        uint64_t dsel = eh_buf(h, sel, 256), dso = eh_zero(h, 256);
        EH_RUN(h, "asm_jump_table", D1(2), D1(32), "ppi", dsel, dso, 64);
        eh_read(h, dso, so, 256);
        eh_expect_i32((int32_t *)so, (int32_t *)sw, 64, "asm_jump_table");
        free(code); free(len); free(args); free(res); free(w); free(keys); free(fo); free(fw);
        eh_close(h);
    }
}

typedef struct Node {
    float lo, hi;
    int left, right;
    int payload;
} Node;

static int stab(const Node *nd, int i, float x)
{
    if (x < nd[i].lo || x > nd[i].hi) return 0;
    if (nd[i].left < 0) return nd[i].payload;
    return stab(nd, nd[i].right, x) + stab(nd, nd[i].left, x);
}

Test(emu_corpus, local_arrays)
{
    FOR_VARIANT(k, 0) {
        eh *h = eh_open(variant(k, "local_arrays"), NULL);
        int n = 40;
        float *in = ALLOC(float, 32 * n), *out = ALLOC(float, n), *w = ALLOC(float, n);
        eh_fill_f32(in, 32 * n, 430, -100, 100);
        for (int t = 0; t < n; t++) {
            float a[32];
            memcpy(a, in + 32 * t, sizeof a);
            for (int i = 1; i < 32; i++)
                for (int j = i; j > 0 && a[j - 1] > a[j]; j--) { float x = a[j]; a[j] = a[j - 1]; a[j - 1] = x; }
            w[t] = a[15] * 0.5f + a[16] * 0.5f;
        }
        uint64_t din = eh_buf(h, in, 128 * n), dout = eh_zero(h, 4 * n);
        EH_RUN(h, "private_sort32", D1(2), D1(32), "ppi", din, dout, n);
        eh_read(h, dout, out, 4 * n);
        eh_expect_f32(out, w, n, 0, 0, "private_sort32");
        int len = 50;
        uint8_t *bytes = ALLOC(uint8_t, len * n);
        int32_t *modes = ALLOC(int32_t, n), *mw = ALLOC(int32_t, n);
        uint64_t s = 431;
        for (int i = 0; i < len * n; i++) bytes[i] = (uint8_t)(eh_rand(&s) % 200);
        for (int t = 0; t < n; t++) {
            int hh[64] = {0}, best = 0;
            for (int j = 0; j < len; j++) hh[bytes[t * len + j] & 63]++;
            for (int j = 1; j < 64; j++) if (hh[j] > hh[best]) best = j;
            mw[t] = best;
        }
        uint64_t db = eh_buf(h, bytes, len * n), dmo = eh_zero(h, 4 * n);
        EH_RUN(h, "private_histogram", D1(2), D1(32), "pipi", db, len, dmo, n);
        eh_read(h, dmo, modes, 4 * n);
        eh_expect_i32(modes, mw, n, "private_histogram");
        /* an interval tree of 63 nodes (complete, depth 6) */
        Node nodes[63];
        for (int i = 0; i < 63; i++) {
            float c = (float)(eh_rand(&s) % 1000) / 10.0f;
            nodes[i].lo = c - 30.0f;
            nodes[i].hi = c + 30.0f;
            nodes[i].left = 2 * i + 1 < 63 ? 2 * i + 1 : -1;
            nodes[i].right = 2 * i + 2 < 63 ? 2 * i + 2 : -1;
            nodes[i].payload = 1 + (int)(eh_rand(&s) % 9);
        }
        nodes[0].lo = -1000;
        nodes[0].hi = 1000;
        float *q = ALLOC(float, n);
        int32_t *hits = ALLOC(int32_t, n), *hw = ALLOC(int32_t, n);
        eh_fill_f32(q, n, 432, 0, 100);
        for (int i = 0; i < n; i++) hw[i] = stab(nodes, 0, q[i]);
        uint64_t dnodes = eh_buf(h, nodes, sizeof nodes), dq = eh_buf(h, q, 4 * n), dh = eh_zero(h, 4 * n);
        EH_RUN(h, "tree_stab_query", D1(2), D1(32), "pppi", dnodes, dq, dh, n);
        eh_read(h, dh, hits, 4 * n);
        eh_expect_i32(hits, hw, n, "tree_stab_query");
        free(in); free(out); free(w); free(bytes); free(modes); free(mw); free(q); free(hits); free(hw);
        eh_close(h);
    }
}

static uint64_t fib(int n) { return n < 2 ? (uint64_t)n : fib(n - 1) + fib(n - 2); }

Test(emu_corpus, noinline_calls)
{
    FOR_VARIANT(k, 1) {
        eh *h = eh_open(variant(k, "noinline_calls"), NULL);
        int n = 100;
        float *in = ALLOC(float, n), *out = ALLOC(float, n), *w = ALLOC(float, n);
        int32_t *lg = ALLOC(int32_t, n), *lw = ALLOC(int32_t, n);
        eh_fill_f32(in, n, 440, -0.5f, 1.5f);
        for (int i = 0; i < n; i++) {
            w[i] = fminf(fmaxf(in[i], 0.0f), 1.0f);
            if (i & 1) { int r = -1; for (unsigned v = (unsigned)i; v; v >>= 1) r++; lw[i] = r; }
        }
        uint64_t din = eh_buf(h, in, 4 * n), dout = eh_zero(h, 4 * n), dlg = eh_zero(h, 4 * n);
        EH_RUN(h, "noinline_scalar", D1(2), D1(64), "pppi", din, dout, dlg, n);
        eh_read(h, dout, out, 4 * n);
        eh_read(h, dlg, lg, 4 * n);
        eh_expect_f32(out, w, n, 0, 0, "noinline_scalar clamp01");
        eh_expect_i32(lg, lw, n, "noinline_scalar ilog2_floor");
        /* structs by value: Vec4d axpy and a 3x3 matrix times float3 */
        int m = 40;
        double *x = ALLOC(double, 4 * m), *y = ALLOC(double, 4 * m), *yw = ALLOC(double, 4 * m);
        float mats[4][9], *pts = ALLOC(float, 3 * m), *pw = ALLOC(float, 3 * m);
        eh_fill_f64(x, 4 * m, 441, -1, 1);
        eh_fill_f64(y, 4 * m, 442, -1, 1);
        eh_fill_f32(&mats[0][0], 36, 443, -1, 1);
        eh_fill_f32(pts, 3 * m, 444, -1, 1);
        double a = 1.75;
        for (int i = 0; i < 4 * m; i++) yw[i] = a * x[i] + y[i];
        for (int i = 0; i < m; i++) {
            const float *M = mats[i % 4], *p = pts + 3 * i;
            pw[3 * i + 0] = M[0] * p[0] + M[1] * p[1] + M[2] * p[2];
            pw[3 * i + 1] = M[3] * p[0] + M[4] * p[1] + M[5] * p[2];
            pw[3 * i + 2] = M[6] * p[0] + M[7] * p[1] + M[8] * p[2];
        }
        uint64_t dx = eh_buf(h, x, 32 * m), dy = eh_buf(h, y, 32 * m), dm = eh_buf(h, mats, sizeof mats), dp = eh_buf(h, pts, 12 * m);
        EH_RUN(h, "noinline_struct_byval", D1(2), D1(32), "ppdppi", dx, dy, a, dm, dp, m);
        eh_read(h, dy, y, 32 * m);
        eh_read(h, dp, pts, 12 * m);
        eh_expect_f64(y, yw, 4 * m, 1e-15, 1e-15, "vec_axpy"); /* fma contraction */
        eh_expect_f32(pts, pw, 3 * m, 1e-6, 1e-6, "mat3_mul");
        /* an array inside a struct by value, and a pointer-taking function */
        int32_t *data = ALLOC(int32_t, 8 * m), *win = ALLOC(int32_t, m), *ww = ALLOC(int32_t, m);
        float *acc = ALLOC(float, 4 * m), *src = ALLOC(float, 4 * m), *aw = ALLOC(float, 4 * m);
        eh_fill_i32(data, 8 * m, 445, 0, 20);
        eh_fill_f32(acc, 4 * m, 446, -1, 1);
        eh_fill_f32(src, 4 * m, 447, -1, 1);
        for (int i = 0; i < m; i++) {
            int best = 0;
            for (int j = 1; j < 8; j++) if (data[i * 8 + j] > data[i * 8 + best]) best = j;
            ww[i] = best;
            for (int j = 0; j < 4; j++) aw[4 * i + j] = acc[4 * i + j] + src[4 * i + j];
        }
        uint64_t dd = eh_buf(h, data, 32 * m), dw = eh_zero(h, 4 * m), dacc = eh_buf(h, acc, 16 * m), dsrc = eh_buf(h, src, 16 * m);
        EH_RUN(h, "_Z24noinline_array_in_structPKiPiPfPKfi", D1(2), D1(32), "ppppi", dd, dw, dacc, dsrc, m);
        eh_read(h, dw, win, 4 * m);
        eh_read(h, dacc, acc, 16 * m);
        eh_expect_i32(win, ww, m, "hist_argmax");
        eh_expect_f32(acc, aw, 4 * m, 0, 0, "accumulate");
        /* recursion: every lane its own depth */
        uint64_t fo[64], fw[64];
        for (int i = 0; i < 64; i++) fw[i] = fib(i % 13);
        uint64_t dfo = eh_zero(h, 512);
        EH_RUN(h, "_Z18noinline_recursivePyi", D1(1), D1(64), "pi", dfo, 13);
        eh_read(h, dfo, fo, 512);
        eh_expect_u64(fo, fw, 64, "fib_rec");
        free(in); free(out); free(w); free(lg); free(lw); free(x); free(y); free(yw); free(pts); free(pw);
        free(data); free(win); free(ww); free(acc); free(src); free(aw);
        eh_close(h);
    }
}

static float f_apply(int which, float x)
{
    switch (which & 3) {
    case 0: return x * x;
    case 1: return -x;
    case 2: return 1.0f / (1.0f + expf(-x));
    default: return x > 0.0f ? x : 0.0f;
    }
}

Test(emu_corpus, funcptr_indirect)
{
    FOR_VARIANT(k, 1) {
        eh *h = eh_open(variant(k, "funcptr_indirect"), NULL);
        int n = 100;
        float *d = ALLOC(float, n), *o = ALLOC(float, n), *w = ALLOC(float, n);
        eh_fill_f32(d, n, 450, -3, 3);
        for (int which = 0; which < 4; which++) {
            for (int i = 0; i < n; i++) w[i] = f_apply(which, d[i]);
            uint64_t dd = eh_buf(h, d, 4 * n);
            EH_RUN(h, "apply_unary_uniform", D1(2), D1(64), "pii", dd, n, which);
            eh_read(h, dd, o, 4 * n);
            eh_expect_f32(o, w, n, 2e-6, 1e-7, "apply_unary_uniform"); /* sigmoid via ex2.approx */
        }
        int32_t *sel = ALLOC(int32_t, n);
        eh_fill_i32(sel, n, 451, 0, 100);
        for (int i = 0; i < n; i++) w[i] = f_apply(sel[i], d[i]);
        uint64_t dd = eh_buf(h, d, 4 * n), ds = eh_buf(h, sel, 4 * n);
        EH_RUN(h, "apply_unary_divergent", D1(2), D1(64), "ppi", dd, ds, n);
        eh_read(h, dd, o, 4 * n);
        eh_expect_f32(o, w, n, 2e-6, 1e-7, "apply_unary_divergent");
        int rows = 30, cols = 9;
        int32_t *mm = ALLOC(int32_t, rows * cols), out[30], ow[30];
        eh_fill_i32(mm, rows * cols, 452, -9, 9);
        for (int op = 0; op < 3; op++) {
            for (int r = 0; r < rows; r++) {
                uint32_t acc = op == 1 ? 1 : 0;
                for (int c = 0; c < cols; c++) {
                    int32_t v = mm[r * cols + c];
                    if (op == 0) acc += (uint32_t)v;
                    else if (op == 1) acc *= (uint32_t)v;
                    else acc = (int32_t)acc > v ? acc : (uint32_t)v;
                }
                ow[r] = (int32_t)acc;
            }
            uint64_t dm = eh_buf(h, mm, 4 * rows * cols), dout = eh_zero(h, 4 * rows);
            EH_RUN(h, "_Z9fold_rowsPKiPiiii", D1(1), D1(32), "ppiii", dm, dout, rows, cols, op);
            eh_read(h, dout, out, 4 * rows);
            eh_expect_i32(out, ow, rows, "fold_rows");
        }
        free(d); free(o); free(w); free(sel); free(mm);
        eh_close(h);
    }
}

Test(emu_corpus, printf_debug)
{
    for (unsigned k = 0; k < 3; k++) {
        char *buf = NULL;
        size_t len = 0;
        FILE *mem = open_memstream(&buf, &len);
        emu_options o = {.printf_out = mem};
        eh *h = eh_open(variant(k, "printf_debug"), &o);
        float data[32];
        eh_fill_f32(data, 32, 460, -1, 3);
        uint64_t dd = eh_buf(h, data, 128);
        EH_RUN(h, "printf_hello", D1(1), D1(32), "pi", dd, 32);
        int32_t v[8] = {0, 5, -3, 0, 1234567, 9, 0, -18};
        uint64_t dv = eh_buf(h, v, 32);
        EH_RUN(h, "printf_loop", D1(1), D1(32), "pi", dv, 8);
        fclose(mem);
        char want[8192];
        int p = snprintf(want, sizeof want, "kernel launched with 1 blocks of 32 threads\n");
        for (int i = 0; i < 32; i++)
            if (data[i] < 0.0f)
                p += snprintf(want + p, sizeof want - (size_t)p, "thread %d (block 0): negative value %f at 0x%llx\n", i,
                              (double)data[i], (unsigned long long)(dd + 4 * (uint64_t)i));
        for (int i = 0; i < 8; i++)
            if (v[i])
                p += snprintf(want + p, sizeof want - (size_t)p, "[%s] v[%d] = %d (0x%08x), sum-of-digits %lld\n", "dbg", i,
                              v[i], v[i], (long long)(v[i] % 9));
        cr_assert_str_eq(buf, want);
        free(buf);
        eh_close(h);
    }
}
