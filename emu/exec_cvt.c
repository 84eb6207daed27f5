/* cvt in all its forms: integer <-> integer (with .sat), integer <->
 * float, float <-> float (widening exact; narrowing in the given rounding
 * mode, with .ftz/.sat/.relu/.satfinite), round-to-integral, and the packed
 * f16x2/bf16x2/e4m3x2/e5m2x2 forms.  All roundings go through fp.c and are
 * exact. */
#include <math.h>
#include "decode.h"
#include "fp.h"

enum { K_INT, K_F16, K_BF16, K_TF32, K_F32, K_F64, K_E4M3X2, K_E5M2X2, K_F16X2, K_BF16X2, K_OTHER };

static unsigned kind_of(unsigned t)
{
    switch (t) {
    case PTX_T_U8: case PTX_T_U16: case PTX_T_U32: case PTX_T_U64:
    case PTX_T_S8: case PTX_T_S16: case PTX_T_S32: case PTX_T_S64:
    case PTX_T_B8: case PTX_T_B16: case PTX_T_B32: case PTX_T_B64:
        return K_INT;
    case PTX_T_F16: return K_F16;
    case PTX_T_BF16: return K_BF16;
    case PTX_T_TF32: return K_TF32;
    case PTX_T_F32: return K_F32;
    case PTX_T_F64: return K_F64;
    case PTX_T_E4M3X2: return K_E4M3X2;
    case PTX_T_E5M2X2: return K_E5M2X2;
    case PTX_T_F16X2: return K_F16X2;
    case PTX_T_BF16X2: return K_BF16X2;
    default: return K_OTHER;
    }
}

static fpfmt fmt_of(unsigned k)
{
    switch (k) {
    case K_F16: case K_F16X2: return FMT_F16;
    case K_BF16: case K_BF16X2: return FMT_BF16;
    case K_TF32: return FMT_TF32;
    case K_F32: return FMT_F32;
    case K_E4M3X2: return FMT_E4M3;
    case K_E5M2X2: return FMT_E5M2;
    default: return FMT_F64;
    }
}

/* Source float as an exact double (f32 input honouring .ftz). */
static double src_float(const einst *I, unsigned sk, uint64_t v)
{
    switch (sk) {
    case K_F32: {
        float f = f32_from((uint32_t)v);
        if (I->flags & EI_FTZ) f = f32_ftz(f);
        return f;
    }
    case K_F64: return f64_from(v);
    case K_F16: return fp_decode(v & 0xffff, FMT_F16);
    case K_BF16: return fp_decode(v & 0xffff, FMT_BF16);
    default: return 0;
    }
}

/* Round an exact double into destination kind dk, applying the float
 * saturation modifiers; returns the destination bits. */
static uint64_t to_float(const einst *I, unsigned dk, double v, int esign)
{
    fpfmt f = fmt_of(dk);
    int mode = I->rnd ? I->rnd : RND_RN;
    if (mode >= RND_RNI) {
        /* round to an integral value, same format */
        switch (mode) {
        case RND_RNI: v = nearbyint(v); break;
        case RND_RZI: v = trunc(v); break;
        case RND_RMI: v = floor(v); break;
        default: v = ceil(v); break;
        }
        mode = RND_RN;
        esign = 0;
    }
    if ((I->flags & EI_RELU) && !isnan(v) && v < 0) { v = 0; esign = 0; }
    if ((I->flags & EI_SAT) && (isnan(v) || v <= 0 || v >= 1)) { v = isnan(v) || v <= 0 ? 0.0 : 1.0; esign = 0; }
    uint64_t r = fp_round(v, esign, f, mode, (I->flags & EI_SATFINITE) != 0);
    if (dk == K_F32 && (I->flags & EI_FTZ)) r = f32_bits(f32_ftz(f32_from((uint32_t)r)));
    if (dk == K_TF32) r <<= 13; /* tf32 sits in the high bits of a .b32 */
    return r;
}

static int h_cvt(emu_exec *x, const einst *I, uint32_t m)
{
    uint64_t *D = REG(x, I->d[0]);
    const uint64_t *A = REG(x, I->s[0]);
    const uint64_t *B = I->vec == 2 ? REG(x, I->s[1]) : NULL;
    unsigned sk = kind_of(I->type), dk = kind_of(I->type2);
    unsigned sb = emu_type_bytes(I->type), db = emu_type_bytes(I->type2);
    bool ss = emu_type_signed(I->type), ds = emu_type_signed(I->type2);
    unsigned rb = I->dbytes ? I->dbytes : db;
    uint64_t rmask = type_mask(rb);
    FOR_LANES(m, l, {
        uint64_t a = A[l], r = 0;
        if (sk == K_INT && dk == K_INT) {
            if (I->flags & EI_SAT) {
                /* clamp the source value into the destination range */
                __int128 v = ss ? (__int128)sext(a, sb) : (__int128)(a & type_mask(sb));
                __int128 lo = ds ? -((__int128)1 << (db * 8 - 1)) : 0;
                __int128 hi = ds ? ((__int128)1 << (db * 8 - 1)) - 1 : ((__int128)1 << (db * 8)) - 1;
                if (v < lo) v = lo;
                if (v > hi) v = hi;
                r = (uint64_t)v;
            } else {
                r = ss ? (uint64_t)sext(a, sb) : (a & type_mask(sb));
            }
            r &= type_mask(db);
            if (ds) r = (uint64_t)sext(r, db);
        } else if (sk == K_INT) {
            int mode = I->rnd ? I->rnd : RND_RN;
            uint64_t bits;
            if (ss) bits = fp_from_i64(sext(a, sb), fmt_of(dk), mode);
            else bits = fp_from_u64(a & type_mask(sb), fmt_of(dk), mode);
            if (I->flags & (EI_SAT | EI_RELU | EI_SATFINITE)) {
                double v = fp_decode(bits, fmt_of(dk));
                einst J = *I;
                J.rnd = RND_RN;
                bits = to_float(&J, dk, v, 0);
            } else if (dk == K_TF32) {
                bits <<= 13;
            }
            r = bits;
        } else if (dk == K_INT) {
            double v = src_float(I, sk, a);
            switch (I->rnd) {
            case RND_RNI: v = nearbyint(v); break;
            case RND_RMI: v = floor(v); break;
            case RND_RPI: v = ceil(v); break;
            default: v = trunc(v); break;
            }
            /* float to integer saturates; NaN gives 0 */
            if (isnan(v)) r = 0;
            else if (ds) {
                double lo = -ldexp(1.0, (int)db * 8 - 1), hi = ldexp(1.0, (int)db * 8 - 1);
                int64_t iv;
                if (v < lo) iv = (int64_t)lo;
                else if (v >= hi) iv = db == 8 ? INT64_MAX : (int64_t)hi - 1;
                else iv = (int64_t)v;
                r = (uint64_t)iv;
            } else {
                double hi = ldexp(1.0, (int)db * 8);
                r = v <= 0 ? 0 : v >= hi ? type_mask(db) : (uint64_t)v;
            }
            r &= type_mask(db);
            if (ds) r = (uint64_t)sext(r, db);
        } else if (dk == K_F16X2 || dk == K_BF16X2) {
            unsigned ek = dk == K_F16X2 ? K_F16 : K_BF16;
            if (B) {
                uint64_t hi = to_float(I, ek, src_float(I, sk, a), 0);
                uint64_t lo = to_float(I, ek, src_float(I, sk, B[l]), 0);
                r = (hi << 16) | lo;
            } else if (sk == K_E4M3X2 || sk == K_E5M2X2) {
                fpfmt sf = fmt_of(sk);
                uint64_t hi = to_float(I, K_F16, fp_decode((a >> 8) & 0xff, sf), 0);
                uint64_t lo = to_float(I, K_F16, fp_decode(a & 0xff, sf), 0);
                r = (hi << 16) | lo;
            }
        } else if (dk == K_E4M3X2 || dk == K_E5M2X2) {
            if (B) {
                uint64_t hi = to_float(I, dk, src_float(I, sk, a), 0);
                uint64_t lo = to_float(I, dk, src_float(I, sk, B[l]), 0);
                r = (hi << 8) | lo;
            } else { /* from f16x2 */
                uint64_t hi = to_float(I, dk, fp_decode((a >> 16) & 0xffff, FMT_F16), 0);
                uint64_t lo = to_float(I, dk, fp_decode(a & 0xffff, FMT_F16), 0);
                r = (hi << 8) | lo;
            }
        } else {
            r = to_float(I, dk, src_float(I, sk, a), 0);
        }
        D[l] = r & rmask;
    });
    return 0;
}

emu_fn emu_lookup_cvt(einst *I, const char **why)
{
    unsigned sk = kind_of(I->type), dk = kind_of(I->type2);
    if (sk == K_OTHER || dk == K_OTHER) { *why = "conversion between these types"; return NULL; }
    if (I->vec == 2) {
        bool ok = (dk == K_F16X2 || dk == K_BF16X2 || dk == K_E4M3X2 || dk == K_E5M2X2) && sk == K_F32;
        if (!ok) { *why = "packed conversion between these types"; return NULL; }
    } else {
        if (dk == K_F16X2 || dk == K_BF16X2) {
            if (!(dk == K_F16X2 && (sk == K_E4M3X2 || sk == K_E5M2X2))) { *why = "packed conversion needs two sources"; return NULL; }
        }
        if ((dk == K_E4M3X2 || dk == K_E5M2X2) && sk != K_F16X2) { *why = "conversion to fp8 pairs"; return NULL; }
        if ((sk == K_E4M3X2 || sk == K_E5M2X2) && dk != K_F16X2) { *why = "conversion from fp8 pairs"; return NULL; }
        if (sk == K_F16X2 || sk == K_BF16X2 || sk == K_TF32) {
            if (!(sk == K_F16X2 && (dk == K_E4M3X2 || dk == K_E5M2X2))) { *why = "conversion from this type"; return NULL; }
        }
    }
    if (sk == K_INT && dk != K_INT && I->rnd >= RND_RNI) { *why = "integer rounding on an integer-to-float conversion"; return NULL; }
    if (sk != K_INT && dk == K_INT && I->rnd && I->rnd < RND_RNI) { *why = "float-to-integer needs .rni/.rzi/.rmi/.rpi"; return NULL; }
    return h_cvt;
}
