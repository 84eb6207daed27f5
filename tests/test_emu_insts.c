/* Instruction semantics on hand-written kernels against references written
 * from the PTX ISA: rounding modes (checked with the host FPU's rounding
 * modes, not with the emulator's own rounding code), conversions, bit
 * operations, integer edge cases, warp collectives. */
#include <criterion/criterion.h>
#include <fenv.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "emu_harness.h"

#define HDR ".version 8.0\n.target sm_80\n.address_size 64\n"

/* A kernel reading a[i], b[i] (f32: %f1 %f2; b32: %r10 %r11; f64: %fd1 %fd2)
 * and writing each result k to out[k * n + i]. */
#define PROLOGUE(name)                                                             \
    ".visible .entry " name "(.param .u64 a, .param .u64 b, .param .u64 out, .param .u32 n)\n" \
    "{\n"                                                                          \
    "  .reg .pred %p<8>;\n  .reg .b16 %rs<8>;\n  .reg .b32 %r<40>;\n  .reg .f32 %f<40>;\n" \
    "  .reg .b64 %rd<20>;\n  .reg .f64 %fd<20>;\n"                                 \
    "  ld.param.u64 %rd1, [a];\n  ld.param.u64 %rd2, [b];\n  ld.param.u64 %rd3, [out];\n" \
    "  ld.param.u32 %r1, [n];\n  mov.u32 %r2, %tid.x;\n"                           \
    "  setp.ge.u32 %p1, %r2, %r1;\n  @%p1 bra DONE;\n"                             \
    "  mul.wide.u32 %rd4, %r2, 8;\n  add.s64 %rd5, %rd1, %rd4;\n  add.s64 %rd6, %rd2, %rd4;\n" \
    "  mul.wide.u32 %rd9, %r2, 4;\n  add.s64 %rd10, %rd1, %rd9;\n  add.s64 %rd11, %rd2, %rd9;\n" \
    "  add.s64 %rd7, %rd3, %rd4;\n  mul.wide.u32 %rd8, %r1, 8;\n"                  \
    "  ld.global.f32 %f1, [%rd10];\n  ld.global.f32 %f2, [%rd11];\n"               \
    "  ld.global.u32 %r10, [%rd10];\n  ld.global.u32 %r11, [%rd11];\n"             \
    "  ld.global.f64 %fd1, [%rd5];\n  ld.global.f64 %fd2, [%rd6];\n"
#define EPILOGUE "DONE:\n  ret;\n}\n"
/* every result is stored as 8 bytes */
#define OUTF(op) "  " op ";\n  mov.b32 %r39, %f3;\n  cvt.u64.u32 %rd12, %r39;\n  st.global.u64 [%rd7], %rd12;\n  add.s64 %rd7, %rd7, %rd8;\n"
#define OUTR(op) "  " op ";\n  cvt.u64.u32 %rd12, %r3;\n  st.global.u64 [%rd7], %rd12;\n  add.s64 %rd7, %rd7, %rd8;\n"
#define OUTD(op) "  " op ";\n  st.global.f64 [%rd7], %fd3;\n  add.s64 %rd7, %rd7, %rd8;\n"
#define OUTH(op) "  " op ";\n  cvt.u32.u16 %r3, %rs1;\n  cvt.u64.u32 %rd12, %r3;\n  st.global.u64 [%rd7], %rd12;\n  add.s64 %rd7, %rd7, %rd8;\n"

/* The prologue reads 4-byte and 8-byte elements from the same buffers:
 * inputs get 8 bytes per element of room. */
static uint64_t in_buf(eh *h, const void *data, size_t bytes)
{
    uint64_t d = eh_zero(h, 2 * bytes + 16);
    eh_write(h, d, data, bytes);
    return d;
}

static uint32_t fbits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float bitsf(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

/* ---- f32 / f64 rounding modes ------------------------------------------------------------ */
static const char fround_ptx[] = HDR PROLOGUE("fround")
    OUTF("add.rz.f32 %f3, %f1, %f2")   /* 0 */
    OUTF("add.rm.f32 %f3, %f1, %f2")   /* 1 */
    OUTF("add.rp.f32 %f3, %f1, %f2")   /* 2 */
    OUTF("mul.rz.f32 %f3, %f1, %f2")   /* 3 */
    OUTF("mul.rm.f32 %f3, %f1, %f2")   /* 4 */
    OUTF("mul.rp.f32 %f3, %f1, %f2")   /* 5 */
    OUTF("fma.rz.f32 %f3, %f1, %f2, %f1") /* 6 */
    OUTF("fma.rp.f32 %f3, %f1, %f2, %f2") /* 7 */
    OUTF("div.rz.f32 %f3, %f1, %f2")   /* 8 */
    OUTF("div.rm.f32 %f3, %f1, %f2")   /* 9 */
    OUTF("div.rp.f32 %f3, %f1, %f2")   /* 10 */
    OUTF("abs.f32 %f4, %f1;\n  sqrt.rz.f32 %f3, %f4") /* 11 */
    OUTF("abs.f32 %f4, %f1;\n  sqrt.rp.f32 %f3, %f4") /* 12 */
    OUTF("add.rn.ftz.f32 %f3, %f1, %f2") /* 13 */
    OUTF("mul.rn.sat.f32 %f3, %f1, %f2") /* 14 */
    OUTF("rcp.rn.f32 %f3, %f1")        /* 15 */
    OUTF("min.f32 %f3, %f1, %f2")      /* 16 */
    OUTF("max.NaN.f32 %f3, %f1, %f2")  /* 17 */
    OUTF("add.f32 %f3, %f1, %f2")      /* 18 */
    OUTF("fma.rn.f32 %f3, %f1, %f2, %f1") /* 19 */
    EPILOGUE;

typedef float (*fop2)(float, float);
static float f_add(float a, float b) { volatile float x = a, y = b; volatile float r = x + y; return r; }
static float f_mul(float a, float b) { volatile float x = a, y = b; volatile float r = x * y; return r; }
static float f_div(float a, float b) { volatile float x = a, y = b; volatile float r = x / y; return r; }
static float f_fma1(float a, float b) { volatile float x = a, y = b; volatile float r = fmaf(x, y, x); return r; }
static float f_fma2(float a, float b) { volatile float x = a, y = b; volatile float r = fmaf(x, y, y); return r; }
static float f_sqrt(float a, float b) { (void)b; volatile float x = fabsf(a); volatile float r = sqrtf(x); return r; }

/* the host FPU computes the reference in the requested mode */
static float in_mode(fop2 f, float a, float b, int mode)
{
    int old = fegetround();
    fesetround(mode);
    float r = f(a, b);
    fesetround(old);
    return r;
}

static float ftz(float f) { return fpclassify(f) == FP_SUBNORMAL ? copysignf(0.0f, f) : f; }

static void fill_specials(float *a, float *b, int n, uint64_t seed)
{
    eh_fill_f32(a, n, seed, -1000, 1000);
    eh_fill_f32(b, n, seed + 1, -3, 3);
    float sa[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1e-40f, -3e-39f, 3.4e38f, 1.0f, 1e-30f, 7.0f, 0.1f};
    float sb[] = {-0.0f, 0.0f, 2.0f, INFINITY, 1.0f, 1e-40f, 1e-5f, 3.4e38f, NAN, 1e-30f, 3.0f, 3.0f};
    for (int i = 0; i < 12 && i < n; i++) { a[i] = sa[i]; b[i] = sb[i]; }
    /* exact ties and inexact results of every sign */
    for (int i = 12; i < n; i++) {
        if (i % 4 == 1) b[i] = -b[i];
        if (i % 5 == 2) a[i] = a[i] * 1e-35f;
    }
}

static void expect_f32_bits(uint64_t got, float want, const char *what, int i, float a, float b)
{
    float g = bitsf((uint32_t)got);
    if (isnan(want)) {
        cr_assert(isnan(g), "%s[%d] (a=%a b=%a): got %a, want NaN", what, i, a, b, g);
        return;
    }
    cr_assert_eq(fbits(g), fbits(want), "%s[%d] (a=%a b=%a): got %a, want %a", what, i, a, b, g, want);
}

Test(emu_insts, f32_rounding_modes)
{
    int n = 96;
    float a[96], b[96];
    fill_specials(a, b, n, 600);
    eh *h = eh_text(fround_ptx, NULL);
    uint64_t fa = in_buf(h, a, 4 * n), fb = in_buf(h, b, 4 * n), dout = eh_zero(h, 8 * 20 * (size_t)n);
    EH_RUN(h, "fround", D1(1), D1(128), "pppu", fa, fb, dout, (unsigned)n);
    uint64_t *out = calloc(20 * (size_t)n, 8);
    eh_read(h, dout, out, 8 * 20 * (size_t)n);
    static const struct { fop2 f; int mode; } rm[] = {
        {f_add, FE_TOWARDZERO}, {f_add, FE_DOWNWARD}, {f_add, FE_UPWARD}, {f_mul, FE_TOWARDZERO}, {f_mul, FE_DOWNWARD},
        {f_mul, FE_UPWARD}, {f_fma1, FE_TOWARDZERO}, {f_fma2, FE_UPWARD}, {f_div, FE_TOWARDZERO}, {f_div, FE_DOWNWARD},
        {f_div, FE_UPWARD}, {f_sqrt, FE_TOWARDZERO}, {f_sqrt, FE_UPWARD}};
    for (int k = 0; k < 13; k++)
        for (int i = 0; i < n; i++) expect_f32_bits(out[k * n + i], in_mode(rm[k].f, a[i], b[i], rm[k].mode), "rounding", k * 1000 + i, a[i], b[i]);
    for (int i = 0; i < n; i++) {
        expect_f32_bits(out[13 * n + i], ftz(ftz(a[i]) + ftz(b[i])), "add.ftz", i, a[i], b[i]);
        float p = a[i] * b[i];
        /* .sat clamps to [+0, 1]: NaN and -0 become +0 */
        expect_f32_bits(out[14 * n + i], isnan(p) || p <= 0 ? 0.0f : p > 1 ? 1.0f : p, "mul.sat", i, a[i], b[i]);
        expect_f32_bits(out[15 * n + i], 1.0f / a[i], "rcp.rn", i, a[i], b[i]);
        /* min: a NaN operand is ignored; -0 < +0 */
        float mn = isnan(a[i]) ? b[i] : isnan(b[i]) ? a[i] : (a[i] == b[i] ? (signbit(a[i]) ? a[i] : b[i]) : fminf(a[i], b[i]));
        expect_f32_bits(out[16 * n + i], mn, "min", i, a[i], b[i]);
        float mx = (isnan(a[i]) || isnan(b[i])) ? NAN : (a[i] == b[i] ? (signbit(a[i]) ? b[i] : a[i]) : fmaxf(a[i], b[i]));
        expect_f32_bits(out[17 * n + i], mx, "max.NaN", i, a[i], b[i]);
        expect_f32_bits(out[18 * n + i], a[i] + b[i], "add", i, a[i], b[i]);
        expect_f32_bits(out[19 * n + i], fmaf(a[i], b[i], a[i]), "fma.rn", i, a[i], b[i]);
    }
    free(out);
    eh_close(h);
}

static const char dround_ptx[] = HDR PROLOGUE("dround")
    OUTD("add.rm.f64 %fd3, %fd1, %fd2")         /* 0 */
    OUTD("add.rp.f64 %fd3, %fd1, %fd2")         /* 1 */
    OUTD("mul.rz.f64 %fd3, %fd1, %fd2")         /* 2 */
    OUTD("mul.rp.f64 %fd3, %fd1, %fd2")         /* 3 */
    OUTD("fma.rz.f64 %fd3, %fd1, %fd2, %fd1")   /* 4 */
    OUTD("fma.rm.f64 %fd3, %fd1, %fd2, %fd2")   /* 5 */
    OUTD("div.rz.f64 %fd3, %fd1, %fd2")         /* 6 */
    OUTD("div.rp.f64 %fd3, %fd1, %fd2")         /* 7 */
    OUTD("abs.f64 %fd4, %fd1;\n  sqrt.rm.f64 %fd3, %fd4") /* 8 */
    OUTD("sub.rz.f64 %fd3, %fd1, %fd2")         /* 9 */
    EPILOGUE;

typedef double (*dop2)(double, double);
static double d_add(double a, double b) { volatile double x = a, y = b; volatile double r = x + y; return r; }
static double d_sub(double a, double b) { volatile double x = a, y = b; volatile double r = x - y; return r; }
static double d_mul(double a, double b) { volatile double x = a, y = b; volatile double r = x * y; return r; }
static double d_div(double a, double b) { volatile double x = a, y = b; volatile double r = x / y; return r; }
static double d_fma1(double a, double b) { volatile double x = a, y = b; volatile double r = fma(x, y, x); return r; }
static double d_fma2(double a, double b) { volatile double x = a, y = b; volatile double r = fma(x, y, y); return r; }
static double d_sqrt(double a, double b) { (void)b; volatile double x = fabs(a); volatile double r = sqrt(x); return r; }
static double din_mode(dop2 f, double a, double b, int mode)
{
    int old = fegetround();
    fesetround(mode);
    double r = f(a, b);
    fesetround(old);
    return r;
}

Test(emu_insts, f64_rounding_modes)
{
    int n = 80;
    double a[80], b[80];
    eh_fill_f64(a, n, 610, -1e10, 1e10);
    eh_fill_f64(b, n, 611, -7, 7);
    double sa[] = {0.0, -0.0, INFINITY, 1e-310, 1.7e308, 1.0, 3.0, 1e-300};
    double sb[] = {-0.0, 0.0, -INFINITY, 3e-310, 1.7e308, 3.0, 7.0, 1e-300};
    for (int i = 0; i < 8; i++) { a[i] = sa[i]; b[i] = sb[i]; }
    eh *h = eh_text(dround_ptx, NULL);
    uint64_t da = eh_buf(h, a, 8 * n), db = eh_buf(h, b, 8 * n), dout = eh_zero(h, 8 * 10 * (size_t)n);
    EH_RUN(h, "dround", D1(1), D1(96), "pppu", da, db, dout, (unsigned)n);
    double *out = calloc(10 * (size_t)n, 8);
    eh_read(h, dout, out, 80 * (size_t)n);
    static const struct { dop2 f; int mode; } rm[] = {
        {d_add, FE_DOWNWARD}, {d_add, FE_UPWARD}, {d_mul, FE_TOWARDZERO}, {d_mul, FE_UPWARD}, {d_fma1, FE_TOWARDZERO},
        {d_fma2, FE_DOWNWARD}, {d_div, FE_TOWARDZERO}, {d_div, FE_UPWARD}, {d_sqrt, FE_DOWNWARD}, {d_sub, FE_TOWARDZERO}};
    for (int k = 0; k < 10; k++)
        for (int i = 0; i < n; i++) {
            double want = din_mode(rm[k].f, a[i], b[i], rm[k].mode), got = out[k * n + i];
            if (isnan(want)) cr_assert(isnan(got));
            else cr_assert(memcmp(&got, &want, 8) == 0, "op %d [%d] a=%a b=%a: got %a want %a", k, i, a[i], b[i], got, want);
        }
    free(out);
    eh_close(h);
}

/* ---- conversions ---------------------------------------------------------------------------- */
static const char cvt_ptx[] = HDR PROLOGUE("cvts")
    OUTR("cvt.rni.s32.f32 %r3, %f1")               /* 0 */
    OUTR("cvt.rzi.s32.f32 %r3, %f1")               /* 1 */
    OUTR("cvt.rmi.s32.f32 %r3, %f1")               /* 2 */
    OUTR("cvt.rpi.s32.f32 %r3, %f1")               /* 3 */
    OUTR("cvt.rzi.u8.f32 %r3, %f1")                /* 4: saturates to 0..255 */
    OUTH("cvt.rn.f16.f32 %rs1, %f1")               /* 5 */
    OUTH("cvt.rz.f16.f32 %rs1, %f1")               /* 6 */
    OUTH("cvt.rm.f16.f32 %rs1, %f1")               /* 7 */
    OUTH("cvt.rp.f16.f32 %rs1, %f1")               /* 8 */
    OUTH("cvt.rn.bf16.f32 %rs1, %f1")              /* 9 */
    OUTH("cvt.rz.bf16.f32 %rs1, %f1")              /* 10 */
    OUTF("cvt.sat.f32.f32 %f3, %f1")               /* 11 */
    OUTF("cvt.rni.f32.f32 %f3, %f1")               /* 12 */
    OUTF("cvt.rn.f16.f32 %rs2, %f1;\n  cvt.f32.f16 %f3, %rs2") /* 13 */
    OUTF("cvt.rz.f32.s32 %f3, %r11")               /* 14 */
    OUTF("cvt.rm.f32.s32 %f3, %r11")               /* 15 */
    OUTF("cvt.rp.f32.s32 %f3, %r11")               /* 16 */
    OUTR("cvt.s8.s32 %r3, %r11")                   /* 17 */
    OUTR("cvt.sat.u16.s32 %r3, %r11")              /* 18 */
    OUTR("cvt.sat.s8.s32 %r3, %r11")               /* 19 */
    OUTR("cvt.u16.u32 %rs3, %r11;\n  cvt.s32.s16 %r3, %rs3") /* 20 */
    OUTF("cvt.rn.f32.u32 %f3, %r11")               /* 21 */
    OUTF("cvt.rn.f32.f64 %f3, %fd1")               /* 22: f64 bits of the f32 inputs, see below */
    EPILOGUE;

/* Rounding a double to f16/bf16 by scaling with the unit in the last place. */
static double rnd_fmt(double v, int mbits, int emin, double maxfin, int mode)
{
    if (v == 0 || isnan(v) || isinf(v)) return v;
    int e;
    frexp(fabs(v), &e);
    int ex = e - 1 < emin ? emin : e - 1;
    double ulp = ldexp(1.0, ex - mbits), q = v / ulp, r;
    switch (mode) {
    case FE_TOWARDZERO: r = trunc(q); break;
    case FE_DOWNWARD: r = floor(q); break;
    case FE_UPWARD: r = ceil(q); break;
    default: r = nearbyint(q); break;
    }
    r *= ulp;
    if (fabs(r) > maxfin) {
        bool to_max = mode == FE_TOWARDZERO || (mode == FE_DOWNWARD && v > 0) || (mode == FE_UPWARD && v < 0);
        r = copysign(to_max ? maxfin : INFINITY, v);
    }
    return r;
}
static uint16_t half_bits(double v)
{
    if (isnan(v)) return 0x7fff;
    uint16_t s = signbit(v) ? 0x8000 : 0;
    v = fabs(v);
    if (isinf(v)) return s | 0x7c00;
    if (v == 0) return s;
    int e;
    double m = frexp(v, &e);
    if (e - 1 < -14) return s | (uint16_t)(v / ldexp(1.0, -24));
    return s | (uint16_t)(((e - 1 + 15) << 10) | (uint16_t)((m * 2 - 1) * 1024));
}

Test(emu_insts, conversions)
{
    int n = 90;
    float a[90];
    int32_t b[90];
    eh_fill_f32(a, n, 620, -300, 300);
    eh_fill_i32(b, n, 621, INT32_MIN, INT32_MAX);
    float sa[] = {NAN, INFINITY, -INFINITY, 2.5f, -2.5f, 3.5f, 0.49999997f, -0.0f, 3e9f, -3e9f, 65520.0f, 65519.0f,
                  1e-7f, -1e-7f, 6e-8f, 70000.0f, -70000.0f, 1.0f / 3, 255.9f, 256.0f, -1.5f};
    int32_t sb[] = {0, 1, -1, 16777217, -16777217, 33554431, INT32_MAX, INT32_MIN, 65535, 65536, -129, 128, 0x1ff80, -32769};
    for (int i = 0; i < (int)(sizeof sa / 4); i++) a[i] = sa[i];
    for (int i = 0; i < (int)(sizeof sb / 4); i++) b[i] = sb[i];
    eh *h = eh_text(cvt_ptx, NULL);
    uint64_t da = in_buf(h, a, 4 * n), db = in_buf(h, b, 4 * n), dout = eh_zero(h, 8 * 23 * (size_t)n);
    EH_RUN(h, "cvts", D1(1), D1(96), "pppu", da, db, dout, (unsigned)n);
    uint64_t *out = calloc(23 * (size_t)n, 8);
    eh_read(h, dout, out, 8 * 23 * (size_t)n);
    for (int i = 0; i < n; i++) {
        float x = a[i];
        int32_t y = b[i];
        /* float -> integer: NaN gives 0, out-of-range values saturate */
        double r[4] = {nearbyint(x), trunc(x), floor(x), ceil(x)};
        for (int k = 0; k < 4; k++) {
            int32_t want = isnan(x) ? 0 : r[k] >= 2147483648.0 ? INT32_MAX : r[k] < -2147483648.0 ? INT32_MIN : (int32_t)r[k];
            cr_assert_eq((int32_t)out[k * n + i], want, "cvt.s32.f32 mode %d of %a", k, x);
        }
        uint32_t u8 = isnan(x) || x <= 0 ? 0 : x >= 255 ? 255 : (uint32_t)trunc(x);
        cr_assert_eq(out[4 * n + i], u8, "cvt.rzi.u8.f32 %a", x);
        static const int modes[4] = {FE_TONEAREST, FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD};
        for (int k = 0; k < 4; k++) {
            uint16_t want = half_bits(rnd_fmt(x, 10, -14, 65504.0, modes[k]));
            cr_assert_eq(out[(5 + k) * n + i], want, "cvt.f16.f32 mode %d of %a: got %04llx want %04x", k, x,
                         (unsigned long long)out[(5 + k) * n + i], want);
        }
        uint32_t xb = fbits(x);
        uint16_t bfn = isnan(x) ? 0x7fff : (uint16_t)((xb + 0x7fff + ((xb >> 16) & 1)) >> 16);
        uint16_t bfz = isnan(x) ? 0x7fff : (uint16_t)(xb >> 16);
        cr_assert_eq(out[9 * n + i], bfn, "cvt.rn.bf16.f32 %a", x);
        cr_assert_eq(out[10 * n + i], bfz, "cvt.rz.bf16.f32 %a", x);
        float sat = isnan(x) || x <= 0 ? 0.0f : x > 1 ? 1.0f : x;
        cr_assert_eq((uint32_t)out[11 * n + i], fbits(sat), "cvt.sat.f32.f32 %a", x);
        float rni = nearbyintf(x);
        cr_assert(isnan(x) ? isnan(bitsf((uint32_t)out[12 * n + i])) : (uint32_t)out[12 * n + i] == fbits(rni), "cvt.rni.f32.f32 %a", x);
        float back = (float)rnd_fmt(x, 10, -14, 65504.0, FE_TONEAREST);
        cr_assert(isnan(x) ? isnan(bitsf((uint32_t)out[13 * n + i])) : (uint32_t)out[13 * n + i] == fbits(back), "f16 round trip %a", x);
        int fm[3] = {FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD};
        for (int k = 0; k < 3; k++) {
            int old = fegetround();
            fesetround(fm[k]);
            volatile int32_t vy = y;
            volatile float fy = (float)vy;
            fesetround(old);
            cr_assert_eq((uint32_t)out[(14 + k) * n + i], fbits(fy), "cvt.f32.s32 mode %d of %d", k, y);
        }
        cr_assert_eq((int32_t)out[17 * n + i], (int32_t)(int8_t)(uint8_t)y, "cvt.s8.s32 %d", y);
        cr_assert_eq((int32_t)out[18 * n + i], y < 0 ? 0 : y > 65535 ? 65535 : y, "cvt.sat.u16.s32 %d", y);
        cr_assert_eq((int32_t)out[19 * n + i], y < -128 ? -128 : y > 127 ? 127 : y, "cvt.sat.s8.s32 %d", y);
        cr_assert_eq((int32_t)out[20 * n + i], (int32_t)(int16_t)(uint16_t)y, "cvt.u16.u32 then cvt.s32.s16 %d", y);
        cr_assert_eq((uint32_t)out[21 * n + i], fbits((float)(uint32_t)y), "cvt.rn.f32.u32 %u", (uint32_t)y);
    }
    /* %fd1 holds a[2i], a[2i+1] as one double: check its f32 rounding where it is a number */
    for (int i = 0; i < n / 2; i++) {
        double d;
        memcpy(&d, &a[2 * i], 8);
        float want = (float)d;
        uint32_t got = (uint32_t)out[22 * n + i];
        cr_assert(isnan(d) ? isnan(bitsf(got)) : got == fbits(want), "cvt.rn.f32.f64 %a", d);
    }
    free(out);
    eh_close(h);
}

/* ---- bit operations ---------------------------------------------------------------------------- */
static const char bits_ptx[] = HDR PROLOGUE("bits")
    OUTR("prmt.b32 %r3, %r10, %r11, %r11")          /* 0: generic selectors from b */
    OUTR("prmt.b32.f4e %r3, %r10, %r11, %r11")      /* 1 */
    OUTR("prmt.b32.b4e %r3, %r10, %r11, %r11")      /* 2 */
    OUTR("prmt.b32.rc8 %r3, %r10, %r11, %r11")      /* 3 */
    OUTR("prmt.b32.ecl %r3, %r10, %r11, %r11")      /* 4 */
    OUTR("prmt.b32.ecr %r3, %r10, %r11, %r11")      /* 5 */
    OUTR("prmt.b32.rc16 %r3, %r10, %r11, %r11")     /* 6 */
    OUTR("and.b32 %r20, %r11, 255;\n  shr.u32 %r21, %r11, 8;\n  and.b32 %r21, %r21, 255;\n  bfe.u32 %r3, %r10, %r20, %r21") /* 7 */
    OUTR("and.b32 %r20, %r11, 63;\n  shr.u32 %r21, %r11, 8;\n  and.b32 %r21, %r21, 31;\n  bfe.s32 %r3, %r10, %r20, %r21")   /* 8 */
    OUTR("and.b32 %r20, %r11, 63;\n  shr.u32 %r21, %r11, 8;\n  and.b32 %r21, %r21, 63;\n  bfi.b32 %r3, %r10, %r11, %r20, %r21") /* 9 */
    OUTR("shf.l.wrap.b32 %r3, %r10, %r11, %r11")    /* 10 */
    OUTR("shf.r.clamp.b32 %r3, %r10, %r11, %r11")   /* 11 */
    OUTR("bfind.u32 %r3, %r10")                     /* 12 */
    OUTR("bfind.s32 %r3, %r10")                     /* 13 */
    OUTR("bfind.shiftamt.u32 %r3, %r10")            /* 14 */
    OUTR("brev.b32 %r3, %r10")                      /* 15 */
    OUTR("popc.b32 %r3, %r10")                      /* 16 */
    OUTR("clz.b32 %r3, %r10")                       /* 17 */
    OUTR("lop3.b32 %r3, %r10, %r11, %r2, 232")      /* 18: majority (0xe8) */
    OUTR("lop3.b32 %r3, %r10, %r11, %r2, 150")      /* 19: a ^ b ^ c (0x96) */
    OUTR("dp2a.hi.s32.u32 %r3, %r10, %r11, %r2")    /* 20 */
    OUTR("dp4a.s32.s32 %r3, %r10, %r11, %r2")       /* 21 */
    OUTR("sad.u32 %r3, %r10, %r11, %r2")            /* 22 */
    OUTR("mul24.hi.s32 %r3, %r10, %r11")            /* 23 */
    OUTR("szext.clamp.s32 %r3, %r10, %r11")         /* 24 */
    OUTR("bmsk.wrap.b32 %r3, %r10, %r11")           /* 25 */
    EPILOGUE;

static uint32_t prmt_ref(uint32_t a, uint32_t b, uint32_t c, int mode)
{
    /* the ISA's tables of the special modes, result byte 0 first */
    static const int tab[7][4][4] = {{{0}},
        {{0, 1, 2, 3}, {1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}},
        {{0, 7, 6, 5}, {1, 0, 7, 6}, {2, 1, 0, 7}, {3, 2, 1, 0}},
        {{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}},
        {{0, 1, 2, 3}, {1, 1, 2, 3}, {2, 2, 2, 3}, {3, 3, 3, 3}},
        {{0, 0, 0, 0}, {0, 1, 1, 1}, {0, 1, 2, 2}, {0, 1, 2, 3}},
        {{0, 1, 0, 1}, {2, 3, 2, 3}, {0, 1, 0, 1}, {2, 3, 2, 3}}};
    uint8_t src[8];
    for (int k = 0; k < 4; k++) { src[k] = (uint8_t)(a >> (8 * k)); src[4 + k] = (uint8_t)(b >> (8 * k)); }
    uint32_t r = 0;
    for (int k = 0; k < 4; k++) {
        uint8_t v;
        if (mode == 0) {
            int sel = (c >> (4 * k)) & 15;
            v = src[sel & 7];
            if (sel & 8) v = (v & 0x80) ? 0xff : 0;
        } else {
            v = src[tab[mode][c & 3][k]];
        }
        r |= (uint32_t)v << (8 * k);
    }
    return r;
}

Test(emu_insts, bit_operations)
{
    int n = 90;
    uint32_t a[90], b[90];
    uint64_t s = 630;
    for (int i = 0; i < n; i++) { a[i] = (uint32_t)eh_rand(&s); b[i] = (uint32_t)eh_rand(&s) >> (i % 24); }
    a[0] = 0; a[1] = 0xffffffffu; a[2] = 0x80000000u; a[3] = 1; b[4] = 0xffffffffu; b[5] = 40; b[6] = 32;
    eh *h = eh_text(bits_ptx, NULL);
    uint64_t da = in_buf(h, a, 4 * n), db = in_buf(h, b, 4 * n), dout = eh_zero(h, 8 * 26 * (size_t)n);
    EH_RUN(h, "bits", D1(1), D1(96), "pppu", da, db, dout, (unsigned)n);
    uint64_t *out = calloc(26 * (size_t)n, 8);
    eh_read(h, dout, out, 8 * 26 * (size_t)n);
#define CHK(k, want) cr_assert_eq((uint32_t)out[(k) * n + i], (uint32_t)(want), "op %d [%d] a=%08x b=%08x: got %08x want %08x", k, i, x, y, (uint32_t)out[(k) * n + i], (uint32_t)(want))
    for (int i = 0; i < n; i++) {
        uint32_t x = a[i], y = b[i], tid = (uint32_t)i;
        for (int m = 0; m < 7; m++) CHK(m, prmt_ref(x, y, y, m));
        /* bfe: the sign of the field is replicated (s32); positions beyond bit 31 read the sign bit */
        {
            uint32_t pos = y & 255, len = (y >> 8) & 255, d = 0;
            for (uint32_t k = 0; k < 32; k++) if (k < len && pos + k <= 31) d |= ((x >> (pos + k)) & 1) << k;
            CHK(7, d);
            uint32_t pos2 = y & 63, len2 = (y >> 8) & 31, sb = 0, d2 = 0;
            if (len2) sb = (x >> (pos2 + len2 - 1 < 31 ? pos2 + len2 - 1 : 31)) & 1;
            for (uint32_t k = 0; k < 32; k++) d2 |= ((k < len2 && pos2 + k <= 31) ? (x >> (pos2 + k)) & 1 : sb) << k;
            CHK(8, d2);
            uint32_t pos3 = y & 63, len3 = (y >> 8) & 63, f = y;
            for (uint32_t k = 0; k < len3 && pos3 + k <= 31; k++) f = (f & ~(1u << (pos3 + k))) | (((x >> k) & 1) << (pos3 + k));
            CHK(9, f);
        }
        {
            uint64_t v = ((uint64_t)y << 32) | x;
            uint32_t nw = y & 31, nc = y > 32 ? 32 : y;
            CHK(10, (uint32_t)((v << nw) >> 32));
            CHK(11, (uint32_t)(v >> nc));
        }
        {
            int msb = -1, msbs = -1;
            for (int k = 31; k >= 0; k--) if ((x >> k) & 1) { msb = k; break; }
            uint32_t xs = (x & 0x80000000u) ? ~x : x;
            for (int k = 31; k >= 0; k--) if ((xs >> k) & 1) { msbs = k; break; }
            CHK(12, msb < 0 ? 0xffffffffu : (uint32_t)msb);
            CHK(13, msbs < 0 ? 0xffffffffu : (uint32_t)msbs);
            CHK(14, msb < 0 ? 0xffffffffu : (uint32_t)(31 - msb));
        }
        {
            uint32_t r = 0;
            for (int k = 0; k < 32; k++) r |= ((x >> k) & 1) << (31 - k);
            CHK(15, r);
            CHK(16, __builtin_popcount(x));
            CHK(17, x ? __builtin_clz(x) : 32);
        }
        CHK(18, (x & y) | (x & tid) | (y & tid));
        CHK(19, x ^ y ^ tid);
        {
            int32_t d = (int32_t)tid;
            for (int k = 0; k < 2; k++) d += (int32_t)(int16_t)(x >> (16 * k)) * (int32_t)((y >> (8 * (2 + k))) & 0xff);
            CHK(20, (uint32_t)d);
            int32_t e = (int32_t)tid;
            for (int k = 0; k < 4; k++) e += (int32_t)(int8_t)(x >> (8 * k)) * (int32_t)(int8_t)(y >> (8 * k));
            CHK(21, (uint32_t)e);
        }
        CHK(22, tid + (x > y ? x - y : y - x));
        {
            int64_t p = (int64_t)((int32_t)(x << 8) >> 8) * (int64_t)((int32_t)(y << 8) >> 8);
            CHK(23, (uint32_t)((uint64_t)p >> 16));
        }
        {
            /* szext.clamp.s32 and bmsk.wrap.b32, from the ISA pseudo-code */
            uint32_t b1 = y & 31;
            bool too_large = y >= 32;
            uint32_t mask = too_large ? 0 : ~0u << b1;
            bool sbit = !(b1 == 0 || too_large) && ((x >> ((b1 - 1) & 31)) & 1);
            CHK(24, (x & ~mask) | (sbit ? mask : 0));
            uint32_t a1 = x & 31, bb = y & 31, sum = a1 + bb;
            uint32_t m0 = ~0u << a1, m1 = sum >= 32 ? 0 : (bb == 0 ? ~0u : ~0u << sum);
            if (sum >= 32) m1 = 0;
            CHK(25, m0 & ~m1);
        }
    }
#undef CHK
    free(out);
    eh_close(h);
}

/* the ISA's own examples */
static const char isa_ex_ptx[] = HDR
    ".visible .entry ex(.param .u64 out)\n{\n"
    "  .reg .b32 %r<16>;\n  .reg .b64 %rd<3>;\n"
    "  ld.param.u64 %rd1, [out];\n"
    "  fns.b32 %r1, 0xaaaaaaaa, 3, 1;\n"
    "  fns.b32 %r2, 0xaaaaaaaa, 3, -1;\n"
    "  fns.b32 %r3, 0xaaaaaaaa, 2, 1;\n"
    "  fns.b32 %r4, 0xaaaaaaaa, 2, -1;\n"
    "  bmsk.wrap.b32 %r5, 1, 2;\n"
    "  szext.wrap.u32 %r6, 0xffffffff, 0;\n"
    "  fns.b32 %r7, 0x00000000, 5, 2;\n"
    "  st.global.v4.u32 [%rd1], {%r1, %r2, %r3, %r4};\n"
    "  st.global.v2.u32 [%rd1+16], {%r5, %r6};\n"
    "  st.global.u32 [%rd1+24], %r7;\n"
    "  ret;\n}\n";

Test(emu_insts, isa_examples)
{
    eh *h = eh_text(isa_ex_ptx, NULL);
    uint64_t out = eh_zero(h, 32);
    EH_RUN(h, "ex", D1(1), D1(1), "p", out);
    uint32_t r[7];
    eh_read(h, out, r, 28);
    uint32_t want[7] = {3, 3, 3, 1, 0x6, 0, 0xffffffffu};
    eh_expect_i32((int32_t *)r, (int32_t *)want, 7, "fns/bmsk/szext examples");
    eh_close(h);
}

/* ---- integer edge cases --------------------------------------------------------------------------- */
static const char ints_ptx[] = HDR PROLOGUE("ints")
    OUTR("div.s32 %r3, %r10, %r11")           /* 0 */
    OUTR("rem.s32 %r3, %r10, %r11")           /* 1 */
    OUTR("div.u32 %r3, %r10, %r11")           /* 2 */
    OUTR("rem.u32 %r3, %r10, %r11")           /* 3 */
    OUTR("shl.b32 %r3, %r10, %r11")           /* 4 */
    OUTR("shr.s32 %r3, %r10, %r11")           /* 5 */
    OUTR("shr.u32 %r3, %r10, %r11")           /* 6 */
    OUTR("mul.hi.s32 %r3, %r10, %r11")        /* 7 */
    OUTR("mul.hi.u32 %r3, %r10, %r11")        /* 8 */
    OUTR("mad.hi.sat.s32 %r3, %r10, %r11, %r10") /* 9 */
    OUTR("add.sat.s32 %r3, %r10, %r11")       /* 10 */
    OUTR("sub.sat.s32 %r3, %r10, %r11")       /* 11 */
    OUTR("abs.s32 %r3, %r10")                 /* 12 */
    OUTR("min.s32 %r3, %r10, %r11")           /* 13 */
    OUTR("max.u32 %r3, %r10, %r11")           /* 14 */
    OUTR("sub.cc.u32 %r20, %r10, %r11;\n  subc.u32 %r3, %r11, %r10")  /* 15: borrow chain */
    OUTR("add.cc.u32 %r20, %r10, %r11;\n  addc.cc.u32 %r21, %r10, %r11;\n  addc.u32 %r3, 0, 0") /* 16: carry out of the second add */
    OUTR("mad.lo.cc.u32 %r20, %r10, %r11, %r10;\n  madc.hi.u32 %r3, %r10, %r11, 0") /* 17 */
    OUTR("mul.wide.s16 %r3, %rs5, %rs6")      /* 18: set below */
    OUTR("neg.s32 %r3, %r10")                 /* 19 */
    EPILOGUE;

static int32_t sdiv(int32_t a, int32_t b) { return !b ? -1 : (a == INT32_MIN && b == -1) ? INT32_MIN : a / b; }
static int32_t srem(int32_t a, int32_t b) { return !b ? a : (a == INT32_MIN && b == -1) ? 0 : a % b; }
static int32_t sat32(int64_t v) { return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : (int32_t)v; }

Test(emu_insts, integer_edge_cases)
{
    /* the mul.wide.s16 operands: the low halves of a and b */
    char *ptx = strdup(ints_ptx);
    char *p = strstr(ptx, "  mul.wide.s16 %r3, %rs5, %rs6");
    cr_assert_not_null(p);
    char *full = malloc(strlen(ptx) + 256);
    size_t pre = (size_t)(p - ptx);
    memcpy(full, ptx, pre);
    strcpy(full + pre, "  cvt.u16.u32 %rs5, %r10;\n  cvt.u16.u32 %rs6, %r11;\n");
    strcat(full, p);
    int n = 64;
    int32_t a[64], b[64];
    eh_fill_i32(a, n, 640, INT32_MIN, INT32_MAX);
    eh_fill_i32(b, n, 641, -70000, 70000);
    int32_t sa[] = {5, INT32_MIN, INT32_MIN, 7, -7, 1, -1, INT32_MAX, -8, 1234, 0x7fff0000};
    int32_t sb[] = {0, -1, 1, -2, 2, 32, 33, 40, 31, 63, 0x10000};
    for (int i = 0; i < 11; i++) { a[i] = sa[i]; b[i] = sb[i]; }
    eh *h = eh_text(full, NULL);
    uint64_t da = in_buf(h, a, 4 * n), db = in_buf(h, b, 4 * n), dout = eh_zero(h, 8 * 20 * (size_t)n);
    EH_RUN(h, "ints", D1(1), D1(64), "pppu", da, db, dout, (unsigned)n);
    uint64_t *out = calloc(20 * (size_t)n, 8);
    eh_read(h, dout, out, 8 * 20 * (size_t)n);
#define CHK(k, want) cr_assert_eq((uint32_t)out[(k) * n + i], (uint32_t)(want), "op %d [%d] a=%d b=%d: got %d want %d", k, i, x, y, (int32_t)out[(k) * n + i], (int32_t)(want))
    for (int i = 0; i < n; i++) {
        int32_t x = a[i], y = b[i];
        uint32_t ux = (uint32_t)x, uy = (uint32_t)y;
        CHK(0, sdiv(x, y));
        CHK(1, srem(x, y));
        CHK(2, uy ? ux / uy : 0xffffffffu);
        CHK(3, uy ? ux % uy : ux);
        CHK(4, uy >= 32 ? 0 : ux << uy);                        /* shift amounts clamp */
        CHK(5, uy >= 32 ? (x < 0 ? -1 : 0) : x >> uy);
        CHK(6, uy >= 32 ? 0 : ux >> uy);
        CHK(7, (uint32_t)((uint64_t)((int64_t)x * y) >> 32));
        CHK(8, (uint32_t)(((uint64_t)ux * uy) >> 32));
        CHK(9, sat32(((int64_t)x * y >> 32) + x));
        CHK(10, sat32((int64_t)x + y));
        CHK(11, sat32((int64_t)x - y));
        CHK(12, x == INT32_MIN ? (uint32_t)INT32_MIN : (uint32_t)(x < 0 ? -x : x));
        CHK(13, x < y ? x : y);
        CHK(14, ux > uy ? ux : uy);
        uint32_t borrow = ux < uy;
        CHK(15, uy - ux - borrow);
        uint64_t s1 = (uint64_t)ux + uy;
        uint64_t s2 = (uint64_t)ux + uy + (s1 >> 32);
        CHK(16, (uint32_t)(s2 >> 32));
        uint64_t prod = (uint64_t)ux * uy, lo = (uint32_t)prod + (uint64_t)ux;
        CHK(17, (uint32_t)(prod >> 32) + (uint32_t)(lo >> 32));
        CHK(18, (int32_t)(int16_t)x * (int32_t)(int16_t)y);
        CHK(19, 0u - ux);
    }
#undef CHK
    free(out);
    free(ptx);
    free(full);
    eh_close(h);
}

/* ---- warp collectives ------------------------------------------------------------------------------ */
/* sm_90: elect.sync needs it (the validator checks .target) */
static const char warp_ptx[] = ".version 8.0\n.target sm_90\n.address_size 64\n"
    ".visible .entry warp(.param .u64 in, .param .u64 out)\n{\n"
    "  .reg .pred %p<8>;\n  .reg .b32 %r<40>;\n  .reg .b64 %rd<12>;\n"
    "  ld.param.u64 %rd1, [in];\n  ld.param.u64 %rd2, [out];\n"
    "  mov.u32 %r1, %tid.x;\n  mov.u32 %r2, %laneid;\n"
    "  mul.wide.u32 %rd3, %r1, 4;\n  add.s64 %rd4, %rd1, %rd3;\n  ld.global.u32 %r3, [%rd4];\n"
    "  mul.wide.u32 %rd5, %r1, 64;\n  add.s64 %rd6, %rd2, %rd5;\n"        /* 16 results per thread */
    "  shfl.sync.up.b32 %r4|%p1, %r3, 3, 0, -1;\n"
    "  shfl.sync.down.b32 %r5|%p2, %r3, 5, 31, -1;\n"
    "  shfl.sync.bfly.b32 %r6, %r3, 9, 0x0f1f, -1;\n"                    /* segments of 16 lanes */
    "  shfl.sync.idx.b32 %r7, %r3, 6, 0x181f, -1;\n"                     /* segments of 8: lane 6 of each */
    "  selp.u32 %r8, 1, 0, %p1;\n  selp.u32 %r9, 1, 0, %p2;\n"
    "  and.b32 %r10, %r3, 1;\n  setp.eq.u32 %p3, %r10, 1;\n"
    "  vote.sync.ballot.b32 %r11, !%p3, -1;\n"
    "  vote.sync.uni.pred %p4, %p3, -1;\n  selp.u32 %r12, 1, 0, %p4;\n"
    "  redux.sync.add.u32 %r13, %r3, -1;\n"
    "  redux.sync.min.s32 %r14, %r3, -1;\n"
    "  redux.sync.max.u32 %r15, %r3, -1;\n"
    "  redux.sync.xor.b32 %r16, %r3, 0x0000ffff;\n"                       /* lanes 16..31 are not members */
    "  shr.u32 %r17, %r3, 28;\n"
    "  match.any.sync.b32 %r18, %r17, -1;\n"
    "  elect.sync %r19|%p5, -1;\n  selp.u32 %r20, 1, 0, %p5;\n"
    "  setp.lt.u32 %p6, %r2, 12;\n"
    "  @%p6 bra LOW;\n"
    "  activemask.b32 %r21;\n  bra.uni JOIN;\n"
    "LOW:\n  activemask.b32 %r21;\n"
    "JOIN:\n"
    "  st.global.v4.u32 [%rd6], {%r4, %r5, %r6, %r7};\n"
    "  st.global.v4.u32 [%rd6+16], {%r8, %r9, %r11, %r12};\n"
    "  st.global.v4.u32 [%rd6+32], {%r13, %r14, %r15, %r16};\n"
    "  st.global.v4.u32 [%rd6+48], {%r18, %r19, %r20, %r21};\n"
    "  ret;\n}\n";

Test(emu_insts, warp_collectives)
{
    int n = 32;
    int32_t in[32];
    eh_fill_i32(in, n, 650, INT32_MIN, INT32_MAX);
    in[4] = in[9]; /* some equal top nibbles for match.any are likely anyway */
    eh *h = eh_text(warp_ptx, NULL);
    uint64_t din = eh_buf(h, in, 128), dout = eh_zero(h, 64 * 32);
    EH_RUN(h, "warp", D1(1), D1(32), "pp", din, dout);
    uint32_t out[32][16];
    eh_read(h, dout, out, sizeof out);
    uint32_t v[32], ballot_not_odd = 0, add = 0, umax = 0, x16 = 0;
    int32_t smin = INT32_MAX;
    for (int l = 0; l < 32; l++) {
        v[l] = (uint32_t)in[l];
        if (!(v[l] & 1)) ballot_not_odd |= 1u << l;
        add += v[l];
        if ((int32_t)v[l] < smin) smin = (int32_t)v[l];
        if (v[l] > umax) umax = v[l];
        if (l < 16) x16 ^= v[l];
    }
    bool uni = ballot_not_odd == 0 || ballot_not_odd == 0xffffffffu;
    for (int l = 0; l < 32; l++) {
        /* shfl from the ISA formula: up with c = 0, down with c = 31, bfly and idx with segments */
        int j = l - 3;
        bool pu = j >= 0;
        cr_assert_eq(out[l][0], pu ? v[j] : v[l], "shfl.up lane %d", l);
        cr_assert_eq(out[l][4], pu, "shfl.up predicate lane %d", l);
        j = l + 5;
        bool pd = j <= 31;
        cr_assert_eq(out[l][1], pd ? v[j] : v[l], "shfl.down lane %d", l);
        cr_assert_eq(out[l][5], pd);
        uint32_t seg = 0x0f, maxl = (l & seg) | (0x1f & ~seg);
        j = l ^ 9;
        cr_assert_eq(out[l][2], (uint32_t)j <= maxl ? v[j] : v[l], "shfl.bfly lane %d", l);
        uint32_t seg8 = 0x18, minl = l & seg8, maxl8 = (l & seg8) | (0x1f & ~seg8);
        j = (int)(minl | (6 & ~seg8));
        cr_assert_eq(out[l][3], (uint32_t)j <= maxl8 ? v[j] : v[l], "shfl.idx lane %d", l);
        cr_assert_eq(out[l][6], ballot_not_odd, "vote.ballot !p");
        cr_assert_eq(out[l][7], uni);
        cr_assert_eq(out[l][8], add);
        cr_assert_eq((int32_t)out[l][9], smin);
        cr_assert_eq(out[l][10], umax);
        if (l < 16) cr_assert_eq(out[l][11], x16, "redux over the member lanes only");
        uint32_t eq = 0;
        for (int k = 0; k < 32; k++) if ((v[k] >> 28) == (v[l] >> 28)) eq |= 1u << k;
        cr_assert_eq(out[l][12], eq, "match.any lane %d", l);
        cr_assert_eq(out[l][13], 0u, "elect: lane 0 leads");
        cr_assert_eq(out[l][14], l == 0);
        cr_assert_eq(out[l][15], l < 12 ? 0x00000fffu : 0xfffff000u, "activemask in the divergent branch, lane %d", l);
    }
    eh_close(h);
}
