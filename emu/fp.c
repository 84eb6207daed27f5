/* Exact rounding to narrow binary formats; see fp.h. */
#include "fp.h"

#include <math.h>
#include <string.h>
#include "emu_internal.h"

const fpfmt FMT_F16 = {5, 10, FK_IEEE};
const fpfmt FMT_BF16 = {8, 7, FK_IEEE};
const fpfmt FMT_TF32 = {8, 10, FK_IEEE};
const fpfmt FMT_F32 = {8, 23, FK_IEEE};
const fpfmt FMT_F64 = {11, 52, FK_IEEE};
const fpfmt FMT_E4M3 = {4, 3, FK_E4M3};
const fpfmt FMT_E5M2 = {5, 2, FK_IEEE};

uint32_t f32_bits(float f) { uint32_t b; memcpy(&b, &f, 4); return b; }
float f32_from(uint32_t b) { float f; memcpy(&f, &b, 4); return f; }
uint64_t f64_bits(double d) { uint64_t b; memcpy(&b, &d, 8); return b; }
double f64_from(uint64_t b) { double d; memcpy(&d, &b, 8); return d; }

float f32_ftz(float f)
{
    return fpclassify(f) == FP_SUBNORMAL ? copysignf(0.0f, f) : f;
}
double f64_ftz(double d)
{
    return fpclassify(d) == FP_SUBNORMAL ? copysign(0.0, d) : d;
}

/* tf32 is stored in a 32-bit register as an f32 whose low 13 mantissa bits
 * are zero: rounding to it is rounding to 10 mantissa bits, then shifting. */
static uint64_t nan_bits(fpfmt f)
{
    if (f.kind == FK_E4M3) return 0x7f;
    uint64_t expall = ((1ull << f.ebits) - 1) << f.mbits;
    return expall | ((1ull << f.mbits) - 1);
}

static uint64_t maxfin_bits(fpfmt f)
{
    if (f.kind == FK_E4M3) return 0x7e;
    return ((((1ull << f.ebits) - 2)) << f.mbits) | ((1ull << f.mbits) - 1);
}

static uint64_t inf_bits(fpfmt f)
{
    return ((1ull << f.ebits) - 1) << f.mbits;
}

uint64_t fp_round(double s, int esign, fpfmt f, int mode, bool satfinite)
{
    unsigned width = 1u + f.ebits + f.mbits;
    uint64_t sbit = 1ull << (width - 1);
    if (isnan(s)) return nan_bits(f);
    bool neg = signbit(s) != 0;
    uint64_t sg = neg ? sbit : 0;
    if (isinf(s)) {
        if (satfinite || f.kind == FK_E4M3) return sg | maxfin_bits(f);
        return sg | inf_bits(f);
    }
    double a = fabs(s);
    if (a == 0.0) return sg;
    int E;
    double fr = frexp(a, &E);              /* a = fr * 2^E, fr in [0.5, 1) */
    uint64_t M = (uint64_t)ldexp(fr, 53);  /* exact: 53-bit significand */
    int ea = E - 1;                        /* a = 1.x * 2^ea */
    int bias = (1 << (f.ebits - 1)) - 1;
    int emin = 1 - bias;
    bool sub = ea < emin;
    int qexp = (sub ? emin : ea) - f.mbits; /* exponent of one unit in the last place */
    int shift = qexp - (E - 53);            /* low bits of M below that unit */
    int mag_eps = neg ? -esign : esign;
    uint64_t T;
    int cmp;
    bool inexact;
    if (shift >= 64) {
        T = 0;
        cmp = -1;
        inexact = true;
    } else if (shift <= 0) {
        /* cannot happen for formats narrower than the double */
        T = M << (-shift);
        if (mag_eps == 0) { cmp = -1; inexact = false; }
        else if (mag_eps > 0) { cmp = -1; inexact = true; }
        else { T -= 1; cmp = 1; inexact = true; }
    } else {
        uint64_t R = M & ((1ull << shift) - 1), half = 1ull << (shift - 1);
        T = M >> shift;
        inexact = R != 0 || mag_eps != 0;
        if (R == 0 && mag_eps < 0) { T -= 1; cmp = 1; }
        else if (R > half) cmp = 1;
        else if (R < half) cmp = -1;
        else cmp = mag_eps;
    }
    bool up;
    switch (mode) {
    case RND_RZ: up = false; break;
    case RND_RM: up = inexact && neg; break;
    case RND_RP: up = inexact && !neg; break;
    case RND_RNA: up = cmp >= 0 && inexact; break;
    default: up = cmp > 0 || (cmp == 0 && (T & 1)); break;
    }
    T += up;
    uint64_t bits;
    if (sub) bits = T;
    else bits = ((uint64_t)(ea + bias) << f.mbits) + T - (1ull << f.mbits);
    uint64_t maxfin = maxfin_bits(f);
    if (bits > maxfin) {
        /* overflow: infinity or the largest finite value, by direction */
        bool to_max = satfinite || f.kind == FK_E4M3 || mode == RND_RZ ||
                      (mode == RND_RM && !neg) || (mode == RND_RP && neg);
        return sg | (to_max ? maxfin : inf_bits(f));
    }
    return sg | bits;
}

double fp_decode(uint64_t bits, fpfmt f)
{
    unsigned width = 1u + f.ebits + f.mbits;
    bool neg = (bits >> (width - 1)) & 1;
    uint64_t e = (bits >> f.mbits) & ((1ull << f.ebits) - 1);
    uint64_t m = bits & ((1ull << f.mbits) - 1);
    int bias = (1 << (f.ebits - 1)) - 1;
    double v;
    if (f.kind == FK_E4M3 && e == 15 && m == 7) return NAN;
    if (f.kind == FK_IEEE && e == (1ull << f.ebits) - 1)
        v = m ? NAN : INFINITY;
    else if (e == 0)
        v = ldexp((double)m, 1 - bias - f.mbits);
    else
        v = ldexp((double)(m | (1ull << f.mbits)), (int)e - bias - f.mbits);
    return neg ? -v : v;
}

double fp_two_sum_err(double a, double b, double s)
{
    double bb = s - a;
    return (a - (s - bb)) + (b - bb);
}

/* Exact result (s, error sign) rounded into f; for f64 the error sign moves
 * s by one ulp where the mode requires it. */
static uint64_t finish(double s, double err, fpfmt f, int mode)
{
    return fp_round(s, isnan(err) ? 0 : fp_sign(err), f, mode, false);
}

/* a+b overflowed the double although both are finite: the exact value is
 * beyond the double range in the direction of s. */
static uint64_t overflow(double s, fpfmt f, int mode)
{
    bool neg = signbit(s) != 0;
    bool to_max = mode == RND_RZ || (mode == RND_RM && !neg) || (mode == RND_RP && neg);
    unsigned width = 1u + f.ebits + f.mbits;
    uint64_t sg = neg ? 1ull << (width - 1) : 0;
    return sg | (to_max ? maxfin_bits(f) : inf_bits(f));
}

/* An exact zero sum is +0 in every mode but round-down, where it is -0
 * unless both addends are +0 (IEEE 754 6.3). */
static double zero_sum(double s, double a, double b, int mode)
{
    if (s == 0.0 && mode == RND_RM && !(a == 0.0 && b == 0.0 && !signbit(a) && !signbit(b))) return -0.0;
    return s;
}

uint64_t fp_add(double a, double b, fpfmt f, int mode)
{
    double s = zero_sum(a + b, a, b, mode);
    if (isinf(s) && isfinite(a) && isfinite(b)) return overflow(s, f, mode);
    return finish(s, isfinite(s) ? fp_two_sum_err(a, b, s) : 0, f, mode);
}

uint64_t fp_mul(double a, double b, fpfmt f, int mode)
{
    double s = a * b;
    if (isinf(s) && isfinite(a) && isfinite(b)) return overflow(s, f, mode);
    return finish(s, isfinite(s) ? fma(a, b, -s) : 0, f, mode);
}

uint64_t fp_fma(double a, double b, double c, fpfmt f, int mode)
{
    if (f.mbits <= 23) {
        /* a*b of f32 (or narrower) values is exact in a double */
        double p = a * b, s = zero_sum(p + c, p, c, mode);
        if (isinf(s) && isfinite(p) && isfinite(c)) return overflow(s, f, mode);
        return finish(s, isfinite(s) ? fp_two_sum_err(p, c, s) : 0, f, mode);
    }
    /* f64 fma: the exact error of fma is not cheap to get; a directed mode
     * is emulated by comparing with the neighbours (see fp_fma64 in
     * exec_float.c); here only round-to-nearest reaches. */
    double s = fma(a, b, c);
    return f64_bits(s);
}

uint64_t fp_div(double a, double b, fpfmt f, int mode)
{
    double q = a / b;
    if (!isfinite(q) || q == 0.0 || !isfinite(a) || !isfinite(b)) {
        if (isinf(q) && isfinite(a) && isfinite(b) && b != 0.0) return overflow(q, f, mode);
        return finish(q, 0, f, mode);
    }
    double r = fma(-q, b, a); /* exact: a - q*b */
    int es = fp_sign(r) * fp_sign(b);
    return fp_round(q, es, f, mode, false);
}

uint64_t fp_sqrt(double a, fpfmt f, int mode)
{
    double s = sqrt(a);
    if (!isfinite(s) || s == 0.0) return finish(s, 0, f, mode);
    double r = fma(-s, s, a); /* a - s*s, exact */
    return fp_round(s, fp_sign(r), f, mode, false);
}

uint64_t fp_from_i64(int64_t v, fpfmt f, int mode)
{
    double s = (double)v;
    /* exact error in integers: v - (int64)s, with s possibly 2^63 */
    __int128 err = (__int128)v - (__int128)s;
    return fp_round(s, err > 0 ? 1 : err < 0 ? -1 : 0, f, mode, false);
}

uint64_t fp_from_u64(uint64_t v, fpfmt f, int mode)
{
    double s = (double)v;
    __int128 err = (__int128)v - (__int128)s;
    return fp_round(s, err > 0 ? 1 : err < 0 ? -1 : 0, f, mode, false);
}
