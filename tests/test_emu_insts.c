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
