/* Corpus kernels exercising arithmetic: 64-bit integers and carry chains,
 * inline-asm bit operations and special registers, double precision with
 * libdevice math, half and bfloat16.  The 16-bit float references round
 * with their own code (scaling by the unit in the last place), independent
 * of the emulator's fp.c.  Also the kernels listed as unsupported. */
#include <criterion/criterion.h>
#include <fenv.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "emu_harness.h"

#define FOR_ARCH(a) for (unsigned ai_ = 0; ai_ < 3; ai_++) for (const char *a = eh_arches[ai_]; a; a = NULL)
#define ALLOC(T, n) ((T *)calloc((size_t)(n), sizeof(T)))

static uint64_t splitmix(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

Test(emu_corpus, int64_math)
{
    FOR_ARCH(arch) {
        eh *h = eh_open(eh_corpus(arch, "int64_math"), NULL);
        int n = 100;
        uint64_t *in = calloc(n, 8), *out = calloc(n, 8), *w = calloc(n, 8), maxv = 0, mw = 0;
        uint64_t s = 500;
        for (int i = 0; i < n; i++) in[i] = eh_rand(&s);
        for (int i = 0; i < n; i++) {
            w[i] = splitmix(in[i] ^ (uint64_t)i);
            if (w[i] > mw) mw = w[i];
        }
        uint64_t din = eh_buf(h, in, 8 * n), dout = eh_zero(h, 8 * n), dmax = eh_zero(h, 8);
        EH_RUN(h, "hash64", D1(2), D1(64), "pppi", din, dout, dmax, n);
        eh_read(h, dout, out, 8 * n);
        eh_read(h, dmax, &maxv, 8);
        eh_expect_u64(out, w, n, "hash64");
        cr_assert_eq(maxv, mw);
        uint64_t *a = calloc(n, 8), *b = calloc(n, 8), *hi = calloc(n, 8), *lo = calloc(n, 8), *rem = calloc(n, 8);
        uint64_t *hw = calloc(n, 8), *lw = calloc(n, 8), *rw = calloc(n, 8);
        for (int i = 0; i < n; i++) {
            a[i] = eh_rand(&s) >> (i % 40); /* small values take the 32-bit fast path */
            b[i] = eh_rand(&s) >> (i % 33);
        }
        uint64_t m = 1000000007ull;
        for (int pass = 0; pass < 2; pass++) {
            if (pass) m = 0xfffffffffffull; /* above 32 bits */
            for (int i = 0; i < n; i++) {
                lw[i] = a[i] * b[i];
                hw[i] = (uint64_t)(((unsigned __int128)a[i] * b[i]) >> 64);
                rw[i] = (a[i] % m) * (b[i] % m) % m;
            }
            uint64_t da = eh_buf(h, a, 8 * n), db = eh_buf(h, b, 8 * n), dh = eh_zero(h, 8 * n), dl = eh_zero(h, 8 * n), dr = eh_zero(h, 8 * n);
            EH_RUN(h, "mul128_mod", D1(2), D1(64), "ppppp" "li", da, db, dh, dl, dr, m, n);
            eh_read(h, dh, hi, 8 * n);
            eh_read(h, dl, lo, 8 * n);
            eh_read(h, dr, rem, 8 * n);
            eh_expect_u64(hi, hw, n, "mul128_mod hi");
            eh_expect_u64(lo, lw, n, "mul128_mod lo");
            eh_expect_u64(rem, rw, n, "mul128_mod rem");
        }
        int64_t *v = calloc(n, 8), *bo = calloc(n, 8), *bw = calloc(n, 8);
        int32_t *cnt = ALLOC(int32_t, 3 * n), *cw = ALLOC(int32_t, 3 * n);
        for (int i = 0; i < n; i++) v[i] = (int64_t)(eh_rand(&s) >> (i % 64)) * (i & 1 ? -1 : 1);
        v[0] = 0;
        v[1] = INT64_MIN;
        int sh = 13;
        for (int i = 0; i < n; i++) {
            uint64_t u = (uint64_t)v[i];
            uint64_t rot = (u << (sh & 63)) | (u >> ((64 - sh) & 63));
            cw[3 * i] = __builtin_popcountll(u);
            cw[3 * i + 1] = u ? __builtin_clzll(u) : 64;
            cw[3 * i + 2] = u ? __builtin_ctzll(u) + 1 : 0;
            uint64_t br = 0;
            for (int k = 0; k < 64; k++) br |= ((rot >> k) & 1) << (63 - k);
            bw[i] = (int64_t)((br ^ (uint64_t)(v[i] / 7)) + (uint64_t)(v[i] >> 3));
        }
        uint64_t dv = eh_buf(h, v, 8 * n), dbo = eh_zero(h, 8 * n), dc = eh_zero(h, 12 * n);
        EH_RUN(h, "bitops64", D1(2), D1(64), "pppii", dv, dbo, dc, n, sh);
        eh_read(h, dbo, bo, 8 * n);
        eh_read(h, dc, cnt, 12 * n);
        eh_expect_u64((uint64_t *)bo, (uint64_t *)bw, n, "bitops64");
        eh_expect_i32(cnt, cw, 3 * n, "bitops64 counts");
        /* 256-bit additions with carry chains */
        int na = 40;
        uint64_t *x = calloc(4 * na, 8), *y = calloc(4 * na, 8), *c = calloc(4 * na, 8), *cwant = calloc(4 * na, 8);
        for (int i = 0; i < 4 * na; i++) { x[i] = eh_rand(&s); y[i] = i % 3 ? eh_rand(&s) : ~x[i]; }
        for (int i = 0; i < na; i++) {
            unsigned __int128 carry = 0;
            for (int k = 0; k < 4; k++) {
                unsigned __int128 t = (unsigned __int128)x[4 * i + k] + y[4 * i + k] + carry;
                cwant[4 * i + k] = (uint64_t)t;
                carry = t >> 64;
            }
        }
        uint64_t dx = eh_buf(h, x, 32 * na), dy = eh_buf(h, y, 32 * na), dcc = eh_zero(h, 32 * na);
        EH_RUN(h, "add256", D1(2), D1(32), "pppi", dx, dy, dcc, na);
        eh_read(h, dcc, c, 32 * na);
        eh_expect_u64(c, cwant, 4 * na, "add256");
        free(in); free(out); free(w); free(a); free(b); free(hi); free(lo); free(rem); free(hw); free(lw); free(rw);
        free(v); free(bo); free(bw); free(cnt); free(cw); free(x); free(y); free(c); free(cwant);
        eh_close(h);
    }
}

Test(emu_corpus, inline_asm_scopes)
{
    FOR_ARCH(arch) {
        eh *h = eh_open(eh_corpus(arch, "inline_asm_scopes"), NULL);
        int n = 100;
        uint32_t *in = ALLOC(uint32_t, n), *out = ALLOC(uint32_t, n), *w = ALLOC(uint32_t, n);
        uint64_t s = 510;
        for (int i = 0; i < n; i++) in[i] = (uint32_t)(eh_rand(&s) >> (i % 32));
        in[0] = 0;
        in[1] = 0xffffffffu;
        for (int i = 0; i < n; i++) {
            uint32_t v = in[i];
            uint32_t t = v + 17u, a = t > 1000u ? 1000u : t;
            uint32_t b = 0;
            for (uint32_t c = v; c; c >>= 1) b++;
            /* bit_tricks(v, a): bfe takes bits 4..11 of v and bfi puts them into a, but
             * prmt 0x3210 selects the four bytes of its first source (v), so lop3 0x96
             * gives v ^ a ^ v = a, and dp4a adds the byte products of v and a */
            uint32_t p = v, l = v ^ a ^ p, dd = l;
            for (int k = 0; k < 4; k++) dd += ((v >> (8 * k)) & 0xff) * ((a >> (8 * k)) & 0xff);
            w[i] = a ^ (b << 16) ^ dd;
        }
        uint64_t din = eh_buf(h, in, 4 * n), dout = eh_zero(h, 4 * n);
        EH_RUN(h, "asm_scopes_kernel", D1(2), D1(64), "ppi", din, dout, n);
        eh_read(h, dout, out, 4 * n);
        eh_expect_i32((int32_t *)out, (int32_t *)w, n, "asm_scopes_kernel");
        /* special registers: %warpid is the warp in the block, clock64 advances */
        uint64_t t[128];
        uint32_t ids[64];
        uint64_t dt = eh_zero(h, 8 * 128), dids = eh_zero(h, 4 * 64);
        EH_RUN(h, "asm_special_regs", D1(1), D1(64), "pp", dt, dids);
        eh_read(h, dt, t, 8 * 128);
        eh_read(h, dids, ids, 4 * 64);
        for (int g = 0; g < 64; g++) {
            cr_assert_gt(t[2 * g], 0, "clock64 delta");
            cr_assert_lt(t[2 * g], 100, "clock64 delta");
            cr_assert_eq((ids[g] >> 8) & 0xff, (uint32_t)g / 32, "%%warpid");
            cr_assert_eq(ids[g] >> 16, 0, "%%smid");
        }
        free(in); free(out); free(w);
        eh_close(h);
    }
}

static double cnd(double d) { return 0.5 * erfc(-d * 0.70710678118654752440); }

Test(emu_corpus, double_math)
{
    FOR_ARCH(arch) {
        eh *h = eh_open(eh_corpus(arch, "double_math"), NULL);
        int n = 90;
        double *S = ALLOC(double, n), *X = ALLOC(double, n), *T = ALLOC(double, n);
        double *call = ALLOC(double, n), *put = ALLOC(double, n), *cw = ALLOC(double, n), *pw = ALLOC(double, n);
        eh_fill_f64(S, n, 520, 5, 30);
        eh_fill_f64(X, n, 521, 1, 100);
        eh_fill_f64(T, n, 522, 0.25, 10);
        double r = 0.02, v = 0.3;
        for (int i = 0; i < n; i++) {
            double sqrtT = sqrt(T[i]);
            double d1 = (log(S[i] / X[i]) + (r + 0.5 * v * v) * T[i]) / (v * sqrtT);
            double d2 = d1 - v * sqrtT;
            double expRT = exp(-r * T[i]);
            cw[i] = S[i] * cnd(d1) - X[i] * expRT * cnd(d2);
            pw[i] = X[i] * expRT * (1.0 - cnd(d2)) - S[i] * (1.0 - cnd(d1));
        }
        uint64_t dS = eh_buf(h, S, 8 * n), dX = eh_buf(h, X, 8 * n), dT = eh_buf(h, T, 8 * n);
        uint64_t dc = eh_zero(h, 8 * n), dp = eh_zero(h, 8 * n);
        EH_RUN(h, "black_scholes_f64", D1(2), D1(64), "pppppddi", dS, dX, dT, dc, dp, r, v, n);
        eh_read(h, dc, call, 8 * n);
        eh_read(h, dp, put, 8 * n);
        /* libdevice log/exp/erfc (about 1 ulp) against glibc; prices up to ~30 */
        eh_expect_f64(call, cw, n, 1e-12, 1e-12, "black_scholes call");
        eh_expect_f64(put, pw, n, 1e-12, 1e-12, "black_scholes put");
        int T2 = 64, per = 37, nk = T2 * per - 50;
        double *x = ALLOC(double, nk), *o = ALLOC(double, T2), *ow = ALLOC(double, T2);
        eh_fill_f64(x, nk, 523, -1e8, 1e8);
        for (int t = 0; t < T2; t++) {
            double sum = 0.0, c = 0.0;
            for (int k = 0; k < per; k++) {
                int i = t * per + k;
                if (i >= nk) break;
                double y = x[i] - c;
                double tt = sum + y;
                c = (tt - sum) - y;
                sum = tt;
            }
            ow[t] = sum;
        }
        uint64_t dx = eh_buf(h, x, 8 * nk), dout = eh_zero(h, 8 * T2);
        EH_RUN(h, "kahan_sum_f64", D1(2), D1(32), "ppii", dx, dout, nk, per);
        eh_read(h, dout, o, 8 * T2);
        eh_expect_f64(o, ow, T2, 0, 0, "kahan_sum_f64");
        double *ta = ALLOC(double, n), *tb = ALLOC(double, n), *tbw = ALLOC(double, n);
        int32_t *q = ALLOC(int32_t, n), *qw = ALLOC(int32_t, n);
        eh_fill_f64(ta, n, 524, -20, 20);
        for (int i = 0; i < n; i++) {
            double sn = sin(ta[i]), cs = cos(ta[i]);
            tbw[i] = pow(fabs(sn) + 1.0, cs) + fma(ta[i], ta[i], -1.0) / (ta[i] * ta[i] + 1.0);
            qw[i] = (int)trunc(ta[i] * 0.5);
        }
        uint64_t dta = eh_buf(h, ta, 8 * n), dtb = eh_zero(h, 8 * n), dq = eh_zero(h, 4 * n);
        EH_RUN(h, "trig_pow_f64", D1(2), D1(64), "pppi", dta, dtb, dq, n);
        eh_read(h, dtb, tb, 8 * n);
        eh_read(h, dq, q, 4 * n);
        eh_expect_f64(tb, tbw, n, 1e-13, 1e-13, "trig_pow_f64");
        eh_expect_i32(q, qw, n, "trig_pow_f64 trunc");
        free(S); free(X); free(T); free(call); free(put); free(cw); free(pw); free(x); free(o); free(ow);
        free(ta); free(tb); free(tbw); free(q); free(qw);
        eh_close(h);
    }
}

/* ---- 16-bit floats, reference rounding ----------------------------------------------------------------- */
/* Round an exactly known double to a binary format with mbits fraction
 * bits and minimum normal exponent emin, to nearest even, by scaling with
 * the unit in the last place (no bit manipulation, unlike fp.c). */
static double round_fmt(double v, int mbits, int emin, double maxfin)
{
    if (v == 0 || isnan(v) || isinf(v)) return v;
    int e;
    frexp(fabs(v), &e); /* |v| in [2^(e-1), 2^e) */
    int ex = e - 1 < emin ? emin : e - 1;
    double ulp = ldexp(1.0, ex - mbits);
    double r = nearbyint(v / ulp) * ulp; /* default rounding: to nearest even */
    if (fabs(r) > maxfin) r = copysign(INFINITY, v);
    return r;
}
static double to_half(double v) { return round_fmt(v, 10, -14, 65504.0); }
static double to_bf16(double v) { return round_fmt(v, 7, -126, 3.3895313892515355e38); }

static uint16_t half_bits(double v)
{
    /* encode an exactly representable half */
    if (isnan(v)) return 0x7fff;
    uint16_t s = signbit(v) ? 0x8000 : 0;
    v = fabs(v);
    if (isinf(v)) return s | 0x7c00;
    if (v == 0) return s;
    int e;
    double m = frexp(v, &e); /* v = m * 2^e */
    if (e - 1 < -14) return s | (uint16_t)(v / ldexp(1.0, -24));
    return s | (uint16_t)(((e - 1 + 15) << 10) | (uint16_t)((m * 2 - 1) * 1024));
}
static double half_val(uint16_t b)
{
    int e = (b >> 10) & 31, m = b & 1023;
    double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m + 1024, e - 25);
    return (b & 0x8000) ? -v : v;
}
static uint16_t bf16_bits(double v)
{
    float f = (float)v; /* exactly representable */
    uint32_t u;
    memcpy(&u, &f, 4);
    return (uint16_t)(u >> 16);
}
static double bf16_val(uint16_t b)
{
    uint32_t u = (uint32_t)b << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

Test(emu_corpus, half2_math)
{
    FOR_ARCH(arch) {
        eh *h = eh_open(eh_corpus(arch, "half2_math"), NULL);
        int n2 = 80;
        uint16_t *x = ALLOC(uint16_t, 2 * n2), *y = ALLOC(uint16_t, 2 * n2), *yw = ALLOC(uint16_t, 2 * n2);
        float tmp[2];
        uint64_t s = 530;
        for (int i = 0; i < 2 * n2; i++) {
            eh_fill_f32(tmp, 2, s++, -4, 4);
            x[i] = half_bits(to_half(tmp[0]));
            y[i] = half_bits(to_half(tmp[1]));
        }
        uint16_t a[2] = {half_bits(to_half(1.375)), half_bits(to_half(-0.8125))};
        for (int i = 0; i < 2 * n2; i++) yw[i] = half_bits(to_half(half_val(a[i & 1]) * half_val(x[i]) + half_val(y[i])));
        uint64_t dx = eh_buf(h, x, 4 * n2), dy = eh_buf(h, y, 4 * n2);
        EH_RUN(h, "haxpy2", D1(2), D1(64), "ibpp", n2, a, (size_t)4, dx, dy);
        eh_read(h, dy, y, 4 * n2);
        for (int i = 0; i < 2 * n2; i++) cr_assert_eq(y[i], yw[i], "%s haxpy2[%d] %04x want %04x", arch, i, y[i], yw[i]);
        /* dot with relu: one element per thread, so each thread's half sum is one product */
        uint16_t *pa = ALLOC(uint16_t, 2 * n2), *pb = ALLOC(uint16_t, 2 * n2);
        double want = 0, mag = 0;
        for (int i = 0; i < 2 * n2; i++) {
            eh_fill_f32(tmp, 2, s++, -2, 2);
            pa[i] = half_bits(to_half(tmp[0]));
            pb[i] = half_bits(to_half(tmp[1]));
        }
        for (int i = 0; i < n2; i++) {
            double p0 = to_half(half_val(pa[2 * i]) * half_val(pb[2 * i]));
            double p1 = to_half(half_val(pa[2 * i + 1]) * half_val(pb[2 * i + 1]));
            p0 = p0 > 0 ? p0 : 0;
            p1 = p1 > 0 ? p1 : 0;
            want += (float)p0 + (float)p1;
            mag += p0 + p1;
        }
        float out = 0;
        uint64_t dpa = eh_buf(h, pa, 4 * n2), dpb = eh_buf(h, pb, 4 * n2), dout = eh_zero(h, 4);
        EH_RUN(h, "half2_dot_relu", D1(1), D1(96), "pppi", dpa, dpb, dout, n2);
        eh_read(h, dout, &out, 4);
        cr_assert(fabs(out - want) <= 1e-6 * mag + 1e-6, "%s half2_dot_relu %.9g want %.9g", arch, out, want);
        /* float -> half with a clamp at 65000 */
        int n = 70;
        float *fin = ALLOC(float, n);
        uint16_t *ho = ALLOC(uint16_t, n), *hw = ALLOC(uint16_t, n);
        eh_fill_f32(fin, n, s++, -3000, 3000);
        float scale = 25.0f;
        for (int i = 0; i < n; i++) {
            double hv = to_half((double)(fin[i] * scale));
            if (hv > to_half(65000.0)) hv = to_half(65000.0);
            hw[i] = half_bits(hv);
        }
        uint64_t dfin = eh_buf(h, fin, 4 * n), dho = eh_zero(h, 2 * n);
        EH_RUN(h, "float_to_half_scale", D1(2), D1(64), "ppfi", dfin, dho, scale, n);
        eh_read(h, dho, ho, 2 * n);
        for (int i = 0; i < n; i++) cr_assert_eq(ho[i], hw[i], "%s float_to_half_scale[%d] %04x want %04x", arch, i, ho[i], hw[i]);
        /* bf16 axpy: sm_80+ uses fma.rn.bf16x2 with a rounded to bf16; sm_75 converts to float */
        uint16_t *bx = ALLOC(uint16_t, 2 * n2), *by = ALLOC(uint16_t, 2 * n2), *bw = ALLOC(uint16_t, 2 * n2);
        for (int i = 0; i < 2 * n2; i++) {
            eh_fill_f32(tmp, 2, s++, -4, 4);
            bx[i] = bf16_bits(to_bf16(tmp[0]));
            by[i] = bf16_bits(to_bf16(tmp[1]));
        }
        float fa = 1.2345f;
        bool native = strcmp(arch, "sm_75") != 0;
        for (int i = 0; i < 2 * n2; i++) {
            double r;
            if (native) r = to_bf16(to_bf16(fa) * bf16_val(bx[i]) + bf16_val(by[i]));
            else r = to_bf16((double)fmaf(fa, (float)bf16_val(bx[i]), (float)bf16_val(by[i])));
            bw[i] = bf16_bits(r);
        }
        uint64_t dbx = eh_buf(h, bx, 4 * n2), dby = eh_buf(h, by, 4 * n2);
        EH_RUN(h, "bf16_axpy", D1(2), D1(64), "ifpp", n2, fa, dbx, dby);
        eh_read(h, dby, by, 4 * n2);
        for (int i = 0; i < 2 * n2; i++) cr_assert_eq(by[i], bw[i], "%s bf16_axpy[%d] %04x want %04x", arch, i, by[i], bw[i]);
        free(x); free(y); free(yw); free(pa); free(pb); free(fin); free(ho); free(hw); free(bx); free(by); free(bw);
        eh_close(h);
    }
}

/* ---- the kernels the emulator does not run: a clear message, status unsupported (exit 2) ---------------------- */
Test(emu_corpus, unsupported_kernels)
{
    static const struct { const char *file, *kernel, *msg; int arches; } u[] = {
        {"texture_fetch", "tex1d_gather", "texture and surface instructions are not emulated", 7},
        {"texture_fetch", "tex2d_resample", "texture and surface instructions are not emulated", 7},
        {"texture_fetch", "tex2d_rgba_blur", "texture and surface instructions are not emulated", 7},
        {"texture_fetch", "tex3d_lod_sample", "texture and surface instructions are not emulated", 7},
        {"wmma_gemm", "_Z17wmma_gemm_f16_f32PK6__halfS1_Pfiiiff", "tensor-core matrix instructions are not emulated", 7},
        {"wmma_gemm", "_Z16wmma_gemm_s8_s32PKaS0_Piii", "tensor-core matrix instructions are not emulated", 7},
        {"mma_inline_asm", "mma_tile_16x8", "tensor-core matrix instructions are not emulated", 7},
        {"cluster_sm90", "cluster_histogram", "thread-block clusters are not emulated", 4},
        {"cluster_sm90", "cluster_neighbor_exchange", "thread-block clusters are not emulated", 4},
    };
    for (size_t i = 0; i < sizeof u / sizeof u[0]; i++)
        for (int a = 0; a < 3; a++) {
            if (!(u[i].arches & (1 << a))) continue;
            eh *h = eh_open(eh_corpus(eh_arches[a], u[i].file), NULL);
            emu_param_info pi[16];
            int np = emu_kernel_params(h->M, u[i].kernel, pi, 16);
            cr_assert_gt(np, 0);
            emu_arg args[16];
            uint8_t zero[4096];
            memset(zero, 0, sizeof zero);
            int32_t sixty_four = 64; /* sizes and counts: large enough to reach the instruction */
            uint64_t buf = eh_zero(h, 1 << 16);
            uint8_t ptrs[16][8];
            for (int k = 0; k < np; k++) {
                memcpy(ptrs[k], &buf, 8);
                const void *val = pi[k].size == 8 && !pi[k].is_array ? (void *)ptrs[k] : pi[k].size == 4 ? (void *)&sixty_four : (void *)zero;
                args[k] = (emu_arg){val, pi[k].size};
            }
            ptx_diags d;
            ptx_diags_init(&d);
            emu_status st = emu_launch(h->M, u[i].kernel, D1(1), D1(128), args, (unsigned)np, &d);
            cr_assert_eq(st, EMU_ERR_UNSUPPORTED, "%s %s: %s", u[i].file, u[i].kernel, emu_status_name(st));
            cr_assert_eq(emu_status_exit_code(st), 2);
            cr_assert_eq(d.nerrors, 1);
            cr_assert(d.v[0].loc.line > 0, "the message has the instruction's position");
            cr_assert(strstr(d.v[0].msg, u[i].msg) != NULL, "%s", d.v[0].msg);
            ptx_diags_free(&d);
            eh_close(h);
        }
}
