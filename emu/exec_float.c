/* Floating-point instructions: f32, f64, f16, bf16 and their x2 packed
 * forms.
 *
 * Round-to-nearest f32/f64 add, mul and fma use the host's IEEE arithmetic
 * (same results: x86-64 SSE, no extended precision); the other rounding
 * modes, .sat and .ftz go through fp.c, which rounds the exact result, so
 * every mode the ISA names is exact.  .approx instructions use libm in
 * double precision, rounded once: at least as accurate as the hardware
 * (docs/emulator.md gives the hardware's error bounds, which the tests use
 * as tolerances).  f16/bf16 arithmetic is computed exactly and rounded once
 * to the 16-bit format. */
#include <fenv.h>
#include <math.h>
#include "decode.h"
#include "fp.h"

#define A_(k) const uint64_t *A##k = REG(x, I->s[k])
#define D_ uint64_t *D = REG(x, I->d[0])

static inline float ld32(uint64_t v) { return f32_from((uint32_t)v); }
static inline uint64_t st32(float f) { return f32_bits(f); }

/* ---- fast paths -------------------------------------------------------------------- */
static int h_add_f32(emu_exec *x, const einst *I, uint32_t m)
{ D_; A_(0); A_(1); FOR_LANES(m, l, D[l] = st32(ld32(A0[l]) + ld32(A1[l]))); return 0; }
static int h_sub_f32(emu_exec *x, const einst *I, uint32_t m)
{ D_; A_(0); A_(1); FOR_LANES(m, l, D[l] = st32(ld32(A0[l]) - ld32(A1[l]))); return 0; }
static int h_mul_f32(emu_exec *x, const einst *I, uint32_t m)
{ D_; A_(0); A_(1); FOR_LANES(m, l, D[l] = st32(ld32(A0[l]) * ld32(A1[l]))); return 0; }
static int h_fma_f32(emu_exec *x, const einst *I, uint32_t m)
{ D_; A_(0); A_(1); A_(2); FOR_LANES(m, l, D[l] = st32(fmaf(ld32(A0[l]), ld32(A1[l]), ld32(A2[l])))); return 0; }
static int h_add_f64(emu_exec *x, const einst *I, uint32_t m)
{ D_; A_(0); A_(1); FOR_LANES(m, l, D[l] = f64_bits(f64_from(A0[l]) + f64_from(A1[l]))); return 0; }
static int h_sub_f64(emu_exec *x, const einst *I, uint32_t m)
{ D_; A_(0); A_(1); FOR_LANES(m, l, D[l] = f64_bits(f64_from(A0[l]) - f64_from(A1[l]))); return 0; }
static int h_mul_f64(emu_exec *x, const einst *I, uint32_t m)
{ D_; A_(0); A_(1); FOR_LANES(m, l, D[l] = f64_bits(f64_from(A0[l]) * f64_from(A1[l]))); return 0; }
static int h_fma_f64(emu_exec *x, const einst *I, uint32_t m)
{ D_; A_(0); A_(1); A_(2); FOR_LANES(m, l, D[l] = f64_bits(fma(f64_from(A0[l]), f64_from(A1[l]), f64_from(A2[l])))); return 0; }

/* ---- general f32 / f64 arithmetic ------------------------------------------------- */
enum { FOP_ADD, FOP_SUB, FOP_MUL, FOP_FMA, FOP_DIV, FOP_RCP, FOP_SQRT, FOP_RSQRT, FOP_SIN, FOP_COS,
       FOP_LG2, FOP_EX2, FOP_TANH, FOP_ABS, FOP_NEG, FOP_MIN, FOP_MAX, FOP_COPYSIGN };

/* Directed rounding of f64 results: the error-free transformations of fp.c
 * lose the error when a product or quotient underflows, so the host FPU
 * computes these in the requested mode (volatile keeps the operation
 * between the mode switches). */
static double f64_mode(unsigned op, double a, double b, double c, int mode)
{
    int old = fegetround();
    int want = mode == RND_RZ ? FE_TOWARDZERO : mode == RND_RM ? FE_DOWNWARD : mode == RND_RP ? FE_UPWARD : FE_TONEAREST;
    fesetround(want);
    volatile double va = a, vb = b, vc = c;
    volatile double r;
    switch (op) {
    case FOP_ADD: r = va + vb; break;
    case FOP_SUB: r = va - vb; break;
    case FOP_MUL: r = va * vb; break;
    case FOP_DIV: r = va / vb; break;
    case FOP_RCP: r = 1.0 / va; break;
    case FOP_SQRT: r = sqrt(va); break;
    default: r = fma(va, vb, vc); break;
    }
    fesetround(old);
    return r;
}

static double fmin_ptx(double a, double b, bool nanprop)
{
    if (isnan(a) || isnan(b)) {
        if (nanprop || (isnan(a) && isnan(b))) return NAN;
        return isnan(a) ? b : a;
    }
    if (a == b) return signbit(a) ? a : b; /* -0 < +0 */
    return a < b ? a : b;
}
static double fmax_ptx(double a, double b, bool nanprop)
{
    if (isnan(a) || isnan(b)) {
        if (nanprop || (isnan(a) && isnan(b))) return NAN;
        return isnan(a) ? b : a;
    }
    if (a == b) return signbit(a) ? b : a;
    return a > b ? a : b;
}

/* One operation on doubles holding exact values of format f, result
 * rounded into f in mode rnd. */
static uint64_t fop(unsigned op, double a, double b, double c, fpfmt f, int rnd, uint32_t flags, unsigned sub)
{
    int mode = rnd ? rnd : RND_RN;
    if (f.mbits == 52 && mode != RND_RN && (op == FOP_ADD || op == FOP_SUB || op == FOP_MUL || op == FOP_FMA ||
                                            (op == FOP_DIV && sub != 1 && sub != 2) || (op == FOP_RCP && sub != 1) ||
                                            (op == FOP_SQRT && sub != 1)))
        return f64_bits(f64_mode(op, a, b, c, mode));
    switch (op) {
    case FOP_ADD: return fp_add(a, b, f, mode);
    case FOP_SUB: return fp_add(a, -b, f, mode);
    case FOP_MUL: return fp_mul(a, b, f, mode);
    case FOP_FMA:
        if (f.mbits == 52) return f64_bits(fma(a, b, c));
        return fp_fma(a, b, c, f, mode);
    case FOP_DIV: return sub == 1 || sub == 2 ? fp_round(a / b, 0, f, RND_RN, false) : fp_div(a, b, f, mode);
    case FOP_RCP: return sub == 1 ? fp_round(1.0 / a, 0, f, RND_RN, false) : fp_div(1.0, a, f, mode);
    case FOP_SQRT: return sub == 1 ? fp_round(sqrt(a), 0, f, RND_RN, false) : fp_sqrt(a, f, mode);
    case FOP_RSQRT: return fp_round(1.0 / sqrt(a), 0, f, RND_RN, false);
    case FOP_SIN: return fp_round(sin(a), 0, f, RND_RN, false);
    case FOP_COS: return fp_round(cos(a), 0, f, RND_RN, false);
    case FOP_LG2: return fp_round(log2(a), 0, f, RND_RN, false);
    case FOP_EX2: return fp_round(exp2(a), 0, f, RND_RN, false);
    case FOP_TANH: return fp_round(tanh(a), 0, f, RND_RN, false);
    case FOP_ABS: return fp_round(fabs(a), 0, f, RND_RN, false);
    case FOP_NEG: return fp_round(-a, 0, f, RND_RN, false);
    case FOP_MIN: {
        double r = fmin_ptx(a, b, flags & EI_NAN);
        if ((flags & EI_XORSIGN) && !isnan(r)) r = copysign(fabs(r), (signbit(a) != signbit(b)) ? -1.0 : 1.0);
        return fp_round(r, 0, f, RND_RN, false);
    }
    case FOP_MAX: {
        double r = fmax_ptx(a, b, flags & EI_NAN);
        if ((flags & EI_XORSIGN) && !isnan(r)) r = copysign(fabs(r), (signbit(a) != signbit(b)) ? -1.0 : 1.0);
        return fp_round(r, 0, f, RND_RN, false);
    }
    case FOP_COPYSIGN: return fp_round(copysign(b, a), 0, f, RND_RN, false);
    }
    return 0;
}

static unsigned fop_of(unsigned opc)
{
    switch (opc) {
    case PTX_OPC_ADD: return FOP_ADD;
    case PTX_OPC_SUB: return FOP_SUB;
    case PTX_OPC_MUL: return FOP_MUL;
    case PTX_OPC_MAD: case PTX_OPC_FMA: return FOP_FMA;
    case PTX_OPC_DIV: return FOP_DIV;
    case PTX_OPC_RCP: return FOP_RCP;
    case PTX_OPC_SQRT: return FOP_SQRT;
    case PTX_OPC_RSQRT: return FOP_RSQRT;
    case PTX_OPC_SIN: return FOP_SIN;
    case PTX_OPC_COS: return FOP_COS;
    case PTX_OPC_LG2: return FOP_LG2;
    case PTX_OPC_EX2: return FOP_EX2;
    case PTX_OPC_TANH: return FOP_TANH;
    case PTX_OPC_ABS: return FOP_ABS;
    case PTX_OPC_NEG: return FOP_NEG;
    case PTX_OPC_MIN: return FOP_MIN;
    case PTX_OPC_MAX: return FOP_MAX;
    case PTX_OPC_COPYSIGN: return FOP_COPYSIGN;
    }
    return 99;
}

static unsigned nsrc_of(unsigned op)
{
    switch (op) {
    case FOP_FMA: return 3;
    case FOP_RCP: case FOP_SQRT: case FOP_RSQRT: case FOP_SIN: case FOP_COS: case FOP_LG2:
    case FOP_EX2: case FOP_TANH: case FOP_ABS: case FOP_NEG: return 1;
    default: return 2;
    }
}

/* The opcode family is kept in sub2 of float instructions (their sub is
 * the .approx/.full selector). */
static int h_f32_gen(emu_exec *x, const einst *I, uint32_t m)
{
    D_;
    unsigned op = I->sub2, n = nsrc_of(op);
    const uint64_t *S[3];
    for (unsigned k = 0; k < n; k++) S[k] = REG(x, I->s[k]);
    bool ftz = I->flags & EI_FTZ, sat = I->flags & EI_SAT;
    FOR_LANES(m, l, {
        float v[3] = {0, 0, 0};
        for (unsigned k = 0; k < n; k++) {
            v[k] = ld32(S[k][l]);
            if (ftz) v[k] = f32_ftz(v[k]);
        }
        uint32_t r;
        if (op == FOP_ABS) r = (uint32_t)f32_bits(v[0]) & 0x7fffffffu;
        else if (op == FOP_NEG) r = (uint32_t)f32_bits(v[0]) ^ 0x80000000u;
        else r = (uint32_t)fop(op, v[0], v[1], v[2], FMT_F32, I->rnd, I->flags, I->sub);
        float f = f32_from(r);
        if (ftz) f = f32_ftz(f);
        if (sat) f = isnan(f) || f <= 0.0f ? 0.0f : f > 1.0f ? 1.0f : f; /* [+0, 1], NaN and -0 to +0 */
        D[l] = f32_bits(f);
    });
    return 0;
}

static int h_f64_gen(emu_exec *x, const einst *I, uint32_t m)
{
    D_;
    unsigned op = I->sub2, n = nsrc_of(op);
    const uint64_t *S[3];
    for (unsigned k = 0; k < n; k++) S[k] = REG(x, I->s[k]);
    bool ftz = I->flags & EI_FTZ, sat = I->flags & EI_SAT;
    FOR_LANES(m, l, {
        double v[3] = {0, 0, 0};
        for (unsigned k = 0; k < n; k++) {
            v[k] = f64_from(S[k][l]);
            if (ftz) v[k] = f64_ftz(v[k]);
        }
        uint64_t r;
        if (op == FOP_ABS) r = f64_bits(v[0]) & 0x7fffffffffffffffull;
        else if (op == FOP_NEG) r = f64_bits(v[0]) ^ 0x8000000000000000ull;
        else r = fop(op, v[0], v[1], v[2], FMT_F64, I->rnd, I->flags, I->sub);
        double f = f64_from(r);
        if (ftz) f = f64_ftz(f);
        if (sat) f = isnan(f) || f <= 0.0 ? 0.0 : f > 1.0 ? 1.0 : f;
        D[l] = f64_bits(f);
    });
    return 0;
}

/* f16 / bf16 and the packed x2 forms: each 16-bit element separately. */
static int h_h16_gen(emu_exec *x, const einst *I, uint32_t m)
{
    D_;
    unsigned op = I->sub2, n = nsrc_of(op);
    bool bf = I->type == PTX_T_BF16 || I->type == PTX_T_BF16X2;
    unsigned ne = (I->type == PTX_T_F16X2 || I->type == PTX_T_BF16X2) ? 2 : 1;
    fpfmt f = bf ? FMT_BF16 : FMT_F16;
    const uint64_t *S[3];
    for (unsigned k = 0; k < n; k++) S[k] = REG(x, I->s[k]);
    bool ftz = I->flags & EI_FTZ, sat = I->flags & EI_SAT, relu = I->flags & EI_RELU;
    double minnorm = fp_decode(bf ? 0x0080 : 0x0400, f);
    FOR_LANES(m, l, {
        uint64_t out = 0;
        for (unsigned e = 0; e < ne; e++) {
            double v[3] = {0, 0, 0};
            for (unsigned k = 0; k < n; k++) {
                uint16_t h = (uint16_t)(S[k][l] >> (16 * e));
                v[k] = fp_decode(h, f);
                if (ftz && v[k] != 0 && fabs(v[k]) < minnorm) v[k] = copysign(0.0, v[k]);
            }
            uint64_t r;
            if (op == FOP_ABS) r = (uint16_t)(S[0][l] >> (16 * e)) & 0x7fff;
            else if (op == FOP_NEG) r = (uint16_t)(S[0][l] >> (16 * e)) ^ 0x8000;
            else r = fop(op, v[0], v[1], v[2], f, I->rnd, I->flags, I->sub) & 0xffff;
            double rv = fp_decode(r, f);
            if (ftz && rv != 0 && fabs(rv) < minnorm) { r &= 0x8000; rv = 0; }
            if (sat) {
                if (isnan(rv) || rv <= 0) r = 0;
                else if (rv > 1) r = fp_round(1.0, 0, f, RND_RN, false);
            }
            if (relu && (isnan(rv) || rv < 0)) r = isnan(rv) ? r : 0;
            out |= r << (16 * e);
        }
        D[l] = out;
    });
    return 0;
}

/* ---- comparisons ------------------------------------------------------------------------ */
static bool fcmp(unsigned cmp, double a, double b)
{
    bool un = isnan(a) || isnan(b);
    switch (cmp) {
    case CMP_EQ: return !un && a == b;
    case CMP_NE: return !un && a != b;
    case CMP_LT: return !un && a < b;
    case CMP_LE: return !un && a <= b;
    case CMP_GT: return !un && a > b;
    case CMP_GE: return !un && a >= b;
    case CMP_EQU: return un || a == b;
    case CMP_NEU: return un || a != b;
    case CMP_LTU: return un || a < b;
    case CMP_LEU: return un || a <= b;
    case CMP_GTU: return un || a > b;
    case CMP_GEU: return un || a >= b;
    case CMP_NUM: return !un;
    case CMP_NAN: return un;
    default: return false;
    }
}

static double felem(const einst *I, uint64_t v, unsigned e)
{
    switch (I->type) {
    case PTX_T_F32: {
        float f = ld32(v);
        return (I->flags & EI_FTZ) ? f32_ftz(f) : f;
    }
    case PTX_T_F64: return f64_from(v);
    case PTX_T_F16: case PTX_T_F16X2: return fp_decode((uint16_t)(v >> (16 * e)), FMT_F16);
    default: return fp_decode((uint16_t)(v >> (16 * e)), FMT_BF16);
    }
}

static int h_setp_f(emu_exec *x, const einst *I, uint32_t m)
{
    A_(0); A_(1);
    bool x2 = I->type == PTX_T_F16X2 || I->type == PTX_T_BF16X2;
    if (x2) {
        /* setp.f16x2 p|q: p from the low halves, q from the high halves */
        uint32_t lo = 0, hi = 0;
        FOR_LANES(m, l, {
            if (fcmp(I->sub, felem(I, A0[l], 0), felem(I, A1[l], 0))) lo |= 1u << l;
            if (fcmp(I->sub, felem(I, A0[l], 1), felem(I, A1[l], 1))) hi |= 1u << l;
        });
        uint32_t c = I->sub2 != BOP_NONE ? pread(x, I->s[2]) : 0;
        uint32_t p = lo, q = hi;
        switch (I->sub2) {
        case BOP_AND: p &= c; q &= c; break;
        case BOP_OR: p |= c; q |= c; break;
        case BOP_XOR: p ^= c; q ^= c; break;
        }
        pwrite(x, I->d[0], p, m);
        if (I->flags & EI_PRED_DST2) pwrite(x, I->d[1], q, m);
        return 0;
    }
    uint32_t t = 0;
    FOR_LANES(m, l, if (fcmp(I->sub, felem(I, A0[l], 0), felem(I, A1[l], 0))) t |= 1u << l);
    emu_setp_write(x, I, t, m);
    return 0;
}

static int h_setp_lt_f32(emu_exec *x, const einst *I, uint32_t m)
{
    A_(0); A_(1);
    uint32_t t = 0;
    FOR_LANES(m, l, t |= (uint32_t)(ld32(A0[l]) < ld32(A1[l])) << l);
    pwrite(x, I->d[0], t, m);
    return 0;
}

static int h_testp(emu_exec *x, const einst *I, uint32_t m)
{
    A_(0);
    uint32_t t = 0;
    FOR_LANES(m, l, {
        double v = I->type == PTX_T_F32 ? (double)ld32(A0[l]) : f64_from(A0[l]);
        int cls = I->type == PTX_T_F32 ? fpclassify(ld32(A0[l])) : fpclassify(v);
        bool r = false;
        switch (I->sub) {
        case TESTP_FINITE: r = isfinite(v); break;
        case TESTP_INFINITE: r = isinf(v); break;
        case TESTP_NUMBER: r = !isnan(v); break;
        case TESTP_NOTANUMBER: r = isnan(v); break;
        case TESTP_NORMAL: r = cls == FP_NORMAL; break;
        case TESTP_SUBNORMAL: r = cls == FP_SUBNORMAL; break;
        }
        if (r) t |= 1u << l;
    });
    pwrite(x, I->d[0], t, m);
    return 0;
}

emu_fn emu_lookup_float(unsigned opc, einst *I, const char **why)
{
    unsigned t = I->type;
    bool h16 = t == PTX_T_F16 || t == PTX_T_F16X2 || t == PTX_T_BF16 || t == PTX_T_BF16X2;
    if (opc == PTX_OPC_TESTP) return (t == PTX_T_F32 || t == PTX_T_F64) ? h_testp : NULL;
    if (opc == PTX_OPC_SETP || opc == PTX_OPC_SET) {
        if (opc == PTX_OPC_SET) {
            if (h16) { *why = "set on 16-bit floats"; return NULL; }
            I->flags |= EI_SETOP;
        }
        if (opc == PTX_OPC_SETP && t == PTX_T_F32 && I->sub == CMP_LT && I->sub2 == BOP_NONE &&
            !(I->flags & (EI_FTZ | EI_PRED_DST2)))
            return h_setp_lt_f32;
        return h_setp_f;
    }
    unsigned op = fop_of(opc);
    if (op == 99) { *why = "operation on floating-point operands"; return NULL; }
    I->sub2 = (uint8_t)op;
    if (t == PTX_T_TF32) { *why = "tf32 arithmetic"; return NULL; }
    /* rounding-mode rules of the ISA: approximate forms have none */
    if ((op == FOP_SIN || op == FOP_COS || op == FOP_LG2 || op == FOP_EX2 || op == FOP_TANH || op == FOP_RSQRT) &&
        I->sub != 1) {
        *why = "only the .approx form exists";
        return NULL;
    }
    bool plain = !(I->flags & (EI_FTZ | EI_SAT | EI_RELU)) && (I->rnd == RND_NONE || I->rnd == RND_RN);
    if (t == PTX_T_F32) {
        if (I->flags & EI_RELU) { *why = ".relu"; return NULL; }
        if (plain) {
            switch (op) {
            case FOP_ADD: return h_add_f32;
            case FOP_SUB: return h_sub_f32;
            case FOP_MUL: return h_mul_f32;
            case FOP_FMA: return h_fma_f32;
            }
        }
        return h_f32_gen;
    }
    if (t == PTX_T_F64) {
        if (I->flags & EI_RELU) { *why = ".relu"; return NULL; }
        if (plain) {
            switch (op) {
            case FOP_ADD: return h_add_f64;
            case FOP_SUB: return h_sub_f64;
            case FOP_MUL: return h_mul_f64;
            case FOP_FMA: return h_fma_f64;
            }
        }
        return h_f64_gen;
    }
    if (h16) {
        switch (op) {
        case FOP_ADD: case FOP_SUB: case FOP_MUL: case FOP_FMA: case FOP_ABS: case FOP_NEG:
        case FOP_MIN: case FOP_MAX: case FOP_EX2:
            if (I->rnd != RND_NONE && I->rnd != RND_RN) { *why = "rounding mode"; return NULL; }
            return h_h16_gen;
        default: *why = "operation on 16-bit floats"; return NULL;
        }
    }
    *why = "type";
    return NULL;
}
