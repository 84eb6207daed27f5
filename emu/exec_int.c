/* Integer, bit, logic, predicate, compare/select and move instructions.
 *
 * Values live in 64-bit slots; a handler reads the operand width it needs
 * and writes its result zero-extended to the instruction width (16, 32 or
 * 64 bits), so no stale high bits leak into later wider reads.  Arithmetic
 * that could overflow is done in unsigned types (two's complement wrap, as
 * on the GPU) so the emulator itself has no undefined behaviour. */
#include <stdlib.h>
#include "decode.h"

#define A_(k) const uint64_t *A##k = REG(x, I->s[k])
#define D_ uint64_t *D = REG(x, I->d[0])

/* ---- binary operations, generated per width ---------------------------------- */
#define BIN3(name, U, S, expr)                                              \
    static int name(emu_exec *x, const einst *I, uint32_t m)                \
    {                                                                       \
        D_; A_(0); A_(1);                                                   \
        FOR_LANES(m, l, {                                                   \
            U a = (U)A0[l], b = (U)A1[l];                                   \
            S sa = (S)a, sb = (S)b;                                         \
            (void)sa; (void)sb;                                             \
            D[l] = (U)(expr);                                               \
        });                                                                 \
        return 0;                                                           \
    }
#define BIN_W(base, expr)                                                   \
    BIN3(base##_16, uint16_t, int16_t, expr)                                \
    BIN3(base##_32, uint32_t, int32_t, expr)                                \
    BIN3(base##_64, uint64_t, int64_t, expr)

BIN_W(h_add, a + b)
BIN_W(h_sub, a - b)
BIN_W(h_mullo, a * b)
BIN_W(h_and, a & b)
BIN_W(h_or, a | b)
BIN_W(h_xor, a ^ b)
BIN_W(h_minu, a < b ? a : b)
BIN_W(h_maxu, a > b ? a : b)
BIN_W(h_mins, sa < sb ? a : b)
BIN_W(h_maxs, sa > sb ? a : b)
/* shifts clamp the amount to the width */
BIN3(h_shl_16, uint16_t, int16_t, (uint32_t)A1[l] >= 16 ? 0 : (uint16_t)(a << (uint32_t)A1[l]))
BIN3(h_shl_32, uint32_t, int32_t, (uint32_t)A1[l] >= 32 ? 0 : a << (uint32_t)A1[l])
BIN3(h_shl_64, uint64_t, int64_t, (uint32_t)A1[l] >= 64 ? 0 : a << (uint32_t)A1[l])
BIN3(h_shru_16, uint16_t, int16_t, (uint32_t)A1[l] >= 16 ? 0 : a >> (uint32_t)A1[l])
BIN3(h_shru_32, uint32_t, int32_t, (uint32_t)A1[l] >= 32 ? 0 : a >> (uint32_t)A1[l])
BIN3(h_shru_64, uint64_t, int64_t, (uint32_t)A1[l] >= 64 ? 0 : a >> (uint32_t)A1[l])
BIN3(h_shrs_16, uint16_t, int16_t, sa >> ((uint32_t)A1[l] >= 15 ? 15 : (uint32_t)A1[l]))
BIN3(h_shrs_32, uint32_t, int32_t, sa >> ((uint32_t)A1[l] >= 31 ? 31 : (uint32_t)A1[l]))
BIN3(h_shrs_64, uint64_t, int64_t, sa >> ((uint32_t)A1[l] >= 63 ? 63 : (uint32_t)A1[l]))

/* Fast paths for the commonest shapes (full warp, 32-bit). */
static int h_add_32_full(emu_exec *x, const einst *I, uint32_t m)
{
    if (m != FULL_MASK) return h_add_32(x, I, m);
    D_; A_(0); A_(1);
    for (unsigned l = 0; l < 32; l++) D[l] = (uint32_t)(A0[l] + A1[l]);
    return 0;
}
static int h_add_64_full(emu_exec *x, const einst *I, uint32_t m)
{
    if (m != FULL_MASK) return h_add_64(x, I, m);
    D_; A_(0); A_(1);
    for (unsigned l = 0; l < 32; l++) D[l] = A0[l] + A1[l];
    return 0;
}

/* ---- division: by zero gives all ones (remainder: the dividend); INT_MIN/-1
 * wraps.  The ISA leaves both unspecified; these are documented choices. */
#define DIVU(name, U)                                                       \
    static int name(emu_exec *x, const einst *I, uint32_t m)                \
    {                                                                       \
        D_; A_(0); A_(1);                                                   \
        FOR_LANES(m, l, {                                                   \
            U a = (U)A0[l], b = (U)A1[l];                                   \
            D[l] = b ? (U)(a / b) : (U)~(U)0;                               \
        });                                                                 \
        return 0;                                                           \
    }
#define REMU(name, U)                                                       \
    static int name(emu_exec *x, const einst *I, uint32_t m)                \
    {                                                                       \
        D_; A_(0); A_(1);                                                   \
        FOR_LANES(m, l, {                                                   \
            U a = (U)A0[l], b = (U)A1[l];                                   \
            D[l] = b ? (U)(a % b) : a;                                      \
        });                                                                 \
        return 0;                                                           \
    }
#define DIVS(name, U, S, MIN)                                               \
    static int name(emu_exec *x, const einst *I, uint32_t m)                \
    {                                                                       \
        D_; A_(0); A_(1);                                                   \
        FOR_LANES(m, l, {                                                   \
            S a = (S)(U)A0[l], b = (S)(U)A1[l];                             \
            U r = !b ? (U)~(U)0 : (a == MIN && b == -1) ? (U)a : (U)(a / b); \
            D[l] = r;                                                       \
        });                                                                 \
        return 0;                                                           \
    }
#define REMS(name, U, S, MIN)                                               \
    static int name(emu_exec *x, const einst *I, uint32_t m)                \
    {                                                                       \
        D_; A_(0); A_(1);                                                   \
        FOR_LANES(m, l, {                                                   \
            S a = (S)(U)A0[l], b = (S)(U)A1[l];                             \
            U r = !b ? (U)a : (a == MIN && b == -1) ? 0 : (U)(a % b);       \
            D[l] = r;                                                       \
        });                                                                 \
        return 0;                                                           \
    }
DIVU(h_divu_16, uint16_t) DIVU(h_divu_32, uint32_t) DIVU(h_divu_64, uint64_t)
REMU(h_remu_16, uint16_t) REMU(h_remu_32, uint32_t) REMU(h_remu_64, uint64_t)
DIVS(h_divs_16, uint16_t, int16_t, INT16_MIN) DIVS(h_divs_32, uint32_t, int32_t, INT32_MIN)
DIVS(h_divs_64, uint64_t, int64_t, INT64_MIN)
REMS(h_rems_16, uint16_t, int16_t, INT16_MIN) REMS(h_rems_32, uint32_t, int32_t, INT32_MIN)
REMS(h_rems_64, uint64_t, int64_t, INT64_MIN)

/* ---- multiply high / wide ----------------------------------------------------- */
static int h_mulhi_u16(emu_exec *x, const einst *I, uint32_t m)
{ D_; A_(0); A_(1); FOR_LANES(m, l, D[l] = (uint16_t)(((uint32_t)(uint16_t)A0[l] * (uint16_t)A1[l]) >> 16)); return 0; }
static int h_mulhi_s16(emu_exec *x, const einst *I, uint32_t m)
{ D_; A_(0); A_(1); FOR_LANES(m, l, D[l] = (uint16_t)((uint32_t)((int32_t)(int16_t)A0[l] * (int16_t)A1[l]) >> 16)); return 0; }
static int h_mulhi_u32(emu_exec *x, const einst *I, uint32_t m)
{ D_; A_(0); A_(1); FOR_LANES(m, l, D[l] = (uint32_t)(((uint64_t)(uint32_t)A0[l] * (uint32_t)A1[l]) >> 32)); return 0; }
static int h_mulhi_s32(emu_exec *x, const einst *I, uint32_t m)
{ D_; A_(0); A_(1); FOR_LANES(m, l, D[l] = (uint32_t)((uint64_t)((int64_t)(int32_t)A0[l] * (int32_t)A1[l]) >> 32)); return 0; }
static int h_mulhi_u64(emu_exec *x, const einst *I, uint32_t m)
{ D_; A_(0); A_(1); FOR_LANES(m, l, D[l] = (uint64_t)(((unsigned __int128)A0[l] * A1[l]) >> 64)); return 0; }
static int h_mulhi_s64(emu_exec *x, const einst *I, uint32_t m)
{ D_; A_(0); A_(1); FOR_LANES(m, l, D[l] = (uint64_t)((unsigned __int128)((__int128)(int64_t)A0[l] * (int64_t)A1[l]) >> 64)); return 0; }
static int h_mulwide_u16(emu_exec *x, const einst *I, uint32_t m)
{ D_; A_(0); A_(1); FOR_LANES(m, l, D[l] = (uint32_t)(uint16_t)A0[l] * (uint16_t)A1[l]); return 0; }
static int h_mulwide_s16(emu_exec *x, const einst *I, uint32_t m)
{ D_; A_(0); A_(1); FOR_LANES(m, l, D[l] = (uint32_t)((int32_t)(int16_t)A0[l] * (int16_t)A1[l])); return 0; }
static int h_mulwide_u32(emu_exec *x, const einst *I, uint32_t m)
{ D_; A_(0); A_(1); FOR_LANES(m, l, D[l] = (uint64_t)(uint32_t)A0[l] * (uint32_t)A1[l]); return 0; }
static int h_mulwide_s32(emu_exec *x, const einst *I, uint32_t m)
{ D_; A_(0); A_(1); FOR_LANES(m, l, D[l] = (uint64_t)((int64_t)(int32_t)A0[l] * (int32_t)A1[l])); return 0; }

/* mad: the product as mul (lo/hi/wide), plus c; .cc writes the carry of
 * that addition; hi.sat.s32 saturates. */
static uint64_t mul_part(unsigned sub, unsigned w, bool s, uint64_t a, uint64_t b)
{
    switch (w) {
    case 2: {
        uint32_t p = s ? (uint32_t)((int32_t)(int16_t)a * (int16_t)b) : (uint32_t)(uint16_t)a * (uint16_t)b;
        return sub == MUL_WIDE ? p : sub == MUL_HI ? (uint16_t)(p >> 16) : (uint16_t)p;
    }
    case 4: {
        uint64_t p = s ? (uint64_t)((int64_t)(int32_t)a * (int32_t)b) : (uint64_t)(uint32_t)a * (uint32_t)b;
        return sub == MUL_WIDE ? p : sub == MUL_HI ? (uint32_t)(p >> 32) : (uint32_t)p;
    }
    default: {
        unsigned __int128 p = s ? (unsigned __int128)((__int128)(int64_t)a * (int64_t)b) : (unsigned __int128)a * b;
        return sub == MUL_HI ? (uint64_t)(p >> 64) : (uint64_t)p;
    }
    }
}

/* mad.lo without carry or saturation: the common case, kept simple so the
 * lane loop vectorises */
static int h_madlo_32(emu_exec *x, const einst *I, uint32_t m)
{
    D_; A_(0); A_(1); A_(2);
    FOR_LANES(m, l, D[l] = (uint32_t)((uint32_t)A0[l] * (uint32_t)A1[l] + (uint32_t)A2[l]));
    return 0;
}
static int h_madlo_64(emu_exec *x, const einst *I, uint32_t m)
{
    D_; A_(0); A_(1); A_(2);
    FOR_LANES(m, l, D[l] = A0[l] * A1[l] + A2[l]);
    return 0;
}
static int h_madwide_s32(emu_exec *x, const einst *I, uint32_t m)
{
    D_; A_(0); A_(1); A_(2);
    FOR_LANES(m, l, D[l] = (uint64_t)((int64_t)(int32_t)A0[l] * (int32_t)A1[l]) + A2[l]);
    return 0;
}
static int h_madwide_u32(emu_exec *x, const einst *I, uint32_t m)
{
    D_; A_(0); A_(1); A_(2);
    FOR_LANES(m, l, D[l] = (uint64_t)(uint32_t)A0[l] * (uint32_t)A1[l] + A2[l]);
    return 0;
}

static int h_mad(emu_exec *x, const einst *I, uint32_t m)
{
    D_; A_(0); A_(1); A_(2);
    unsigned w = emu_type_bytes(I->type);
    bool s = emu_type_signed(I->type);
    unsigned rw = I->sub == MUL_WIDE ? 2 * w : w;
    uint64_t rmask = type_mask(rw);
    uint64_t *CC = (I->flags & EI_CC) ? REG(x, I->d[1]) : NULL;
    FOR_LANES(m, l, {
        uint64_t p = mul_part(I->sub, w, s, A0[l], A1[l]);
        uint64_t c = A2[l] & rmask;
        uint64_t r = (p + c) & rmask;
        if (I->flags & EI_SAT) {
            int64_t t = (int64_t)(int32_t)p + (int64_t)(int32_t)c;
            r = (uint32_t)(t > INT32_MAX ? INT32_MAX : t < INT32_MIN ? INT32_MIN : (int32_t)t);
        }
        if (CC) CC[l] = r < (p & rmask);
        D[l] = r;
    });
    return 0;
}

static int h_madc(emu_exec *x, const einst *I, uint32_t m)
{
    D_; A_(0); A_(1); A_(2);
    const uint64_t *CI = REG(x, I->s[3]);
    unsigned w = emu_type_bytes(I->type);
    bool s = emu_type_signed(I->type);
    uint64_t rmask = type_mask(w);
    uint64_t *CC = (I->flags & EI_CC) ? REG(x, I->d[1]) : NULL;
    FOR_LANES(m, l, {
        uint64_t p = mul_part(I->sub, w, s, A0[l], A1[l]) & rmask;
        unsigned __int128 t = (unsigned __int128)p + (A2[l] & rmask) + (CI[l] & 1);
        D[l] = (uint64_t)t & rmask;
        if (CC) CC[l] = (uint64_t)(t >> (w * 8)) & 1;
    });
    return 0;
}

static int h_mul24(emu_exec *x, const einst *I, uint32_t m)
{
    D_; A_(0); A_(1);
    bool s = emu_type_signed(I->type);
    bool mad = I->sub2;
    const uint64_t *A2 = mad ? REG(x, I->s[2]) : NULL;
    FOR_LANES(m, l, {
        int64_t a = s ? sext(A0[l] & 0xffffff, 3) : (int64_t)(A0[l] & 0xffffff);
        int64_t b = s ? sext(A1[l] & 0xffffff, 3) : (int64_t)(A1[l] & 0xffffff);
        uint64_t p = (uint64_t)(a * b);
        uint32_t r = I->sub == MUL_HI ? (uint32_t)(p >> 16) : (uint32_t)p;
        if (A2) r += (uint32_t)A2[l];
        D[l] = r;
    });
    return 0;
}

static int h_sad(emu_exec *x, const einst *I, uint32_t m)
{
    D_; A_(0); A_(1); A_(2);
    unsigned w = emu_type_bytes(I->type);
    bool s = emu_type_signed(I->type);
    uint64_t mask = type_mask(w);
    FOR_LANES(m, l, {
        uint64_t diff;
        if (s) {
            int64_t a = sext(A0[l], w), b = sext(A1[l], w);
            diff = a > b ? (uint64_t)a - (uint64_t)b : (uint64_t)b - (uint64_t)a;
        } else {
            uint64_t a = A0[l] & mask, b = A1[l] & mask;
            diff = a > b ? a - b : b - a;
        }
        D[l] = (diff + A2[l]) & mask;
    });
    return 0;
}

/* add/sub with .sat (s32), carry (.cc) and carry-in (addc/subc) */
static int h_addsub_ext(emu_exec *x, const einst *I, uint32_t m)
{
    D_; A_(0); A_(1);
    unsigned w = emu_type_bytes(I->type);
    uint64_t mask = type_mask(w);
    bool sub = I->sub2 & 1, carry_in = I->sub2 & 2;
    const uint64_t *CI = carry_in ? REG(x, I->s[2]) : NULL;
    uint64_t *CC = (I->flags & EI_CC) ? REG(x, I->d[1]) : NULL;
    FOR_LANES(m, l, {
        uint64_t a = A0[l] & mask, b = A1[l] & mask, ci = CI ? (CI[l] & 1) : 0;
        uint64_t r;
        if (I->flags & EI_SAT) {
            int64_t t = sub ? (int64_t)(int32_t)a - (int32_t)b : (int64_t)(int32_t)a + (int32_t)b;
            r = (uint32_t)(t > INT32_MAX ? INT32_MAX : t < INT32_MIN ? INT32_MIN : (int32_t)t);
        } else if (!sub) {
            unsigned __int128 t = (unsigned __int128)a + b + ci;
            r = (uint64_t)t & mask;
            if (CC) CC[l] = (uint64_t)(t >> (w * 8)) & 1;
        } else {
            /* borrow: a - (b + borrow_in) */
            unsigned __int128 bb = (unsigned __int128)b + ci;
            r = (uint64_t)((unsigned __int128)a - bb) & mask;
            if (CC) CC[l] = (unsigned __int128)a < bb;
        }
        D[l] = r;
    });
    return 0;
}

/* ---- unary ---------------------------------------------------------------------- */
static int h_abs(emu_exec *x, const einst *I, uint32_t m)
{
    D_; A_(0);
    unsigned w = emu_type_bytes(I->type);
    uint64_t mask = type_mask(w);
    FOR_LANES(m, l, {
        int64_t a = sext(A0[l], w);
        D[l] = (a < 0 ? 0 - (uint64_t)a : (uint64_t)a) & mask;
    });
    return 0;
}
static int h_neg(emu_exec *x, const einst *I, uint32_t m)
{
    D_; A_(0);
    uint64_t mask = type_mask(emu_type_bytes(I->type));
    FOR_LANES(m, l, D[l] = (0 - A0[l]) & mask);
    return 0;
}
static int h_not(emu_exec *x, const einst *I, uint32_t m)
{
    D_; A_(0);
    uint64_t mask = type_mask(emu_type_bytes(I->type));
    FOR_LANES(m, l, D[l] = ~A0[l] & mask);
    return 0;
}
static int h_cnot(emu_exec *x, const einst *I, uint32_t m)
{
    D_; A_(0);
    uint64_t mask = type_mask(emu_type_bytes(I->type));
    FOR_LANES(m, l, D[l] = (A0[l] & mask) == 0);
    return 0;
}
static int h_popc(emu_exec *x, const einst *I, uint32_t m)
{
    D_; A_(0);
    uint64_t mask = type_mask(emu_type_bytes(I->type));
    FOR_LANES(m, l, D[l] = (uint32_t)popc64(A0[l] & mask));
    return 0;
}
static int h_clz(emu_exec *x, const einst *I, uint32_t m)
{
    D_; A_(0);
    unsigned bits = emu_type_bytes(I->type) * 8;
    uint64_t mask = type_mask(bits / 8);
    FOR_LANES(m, l, {
        uint64_t a = A0[l] & mask;
        D[l] = a ? (uint32_t)(__builtin_clzll(a) - (64 - bits)) : bits;
    });
    return 0;
}
static int h_brev(emu_exec *x, const einst *I, uint32_t m)
{
    D_; A_(0);
    unsigned bits = emu_type_bytes(I->type) * 8;
    FOR_LANES(m, l, {
        uint64_t a = A0[l], r = 0;
        for (unsigned i = 0; i < bits; i++) r |= ((a >> i) & 1) << (bits - 1 - i);
        D[l] = r;
    });
    return 0;
}
static int h_bfind(emu_exec *x, const einst *I, uint32_t m)
{
    D_; A_(0);
    unsigned bits = emu_type_bytes(I->type) * 8;
    bool s = emu_type_signed(I->type);
    uint64_t mask = type_mask(bits / 8);
    FOR_LANES(m, l, {
        uint64_t a = A0[l] & mask;
        if (s && ((a >> (bits - 1)) & 1)) a = ~a & mask;
        uint32_t d = 0xffffffffu;
        if (a) d = 63u - (unsigned)__builtin_clzll(a);
        if ((I->flags & EI_SHIFTAMT) && d != 0xffffffffu) d = bits - 1 - d;
        D[l] = d;
    });
    return 0;
}
static int h_fns(emu_exec *x, const einst *I, uint32_t m)
{
    D_; A_(0); A_(1); A_(2);
    FOR_LANES(m, l, {
        uint32_t mask = (uint32_t)A0[l];
        int32_t base = (int32_t)(uint32_t)A1[l], off = (int32_t)(uint32_t)A2[l];
        uint32_t d = 0xffffffffu;
        if (off == 0) {
            if (base >= 0 && base < 32 && ((mask >> base) & 1)) d = (uint32_t)base;
        } else {
            int64_t count = (off < 0 ? -(int64_t)off : off) - 1;
            int inc = off > 0 ? 1 : -1;
            for (int64_t pos = base; pos >= 0 && pos < 32; pos += inc)
                if ((mask >> pos) & 1) {
                    if (count == 0) { d = (uint32_t)pos; break; }
                    count--;
                }
        }
        D[l] = d;
    });
    return 0;
}

static int h_bfe(emu_exec *x, const einst *I, uint32_t m)
{
    D_; A_(0); A_(1); A_(2);
    unsigned bits = emu_type_bytes(I->type) * 8, msb = bits - 1;
    bool s = emu_type_signed(I->type);
    FOR_LANES(m, l, {
        uint64_t a = A0[l];
        unsigned pos = (unsigned)A1[l] & 0xff, len = (unsigned)A2[l] & 0xff;
        unsigned sbit = 0;
        if (s && len) {
            unsigned sp = pos + len - 1 < msb ? pos + len - 1 : msb;
            sbit = (a >> sp) & 1;
        }
        uint64_t d = 0;
        for (unsigned i = 0; i <= msb; i++) {
            unsigned bit = (i < len && pos + i <= msb) ? (a >> (pos + i)) & 1 : sbit;
            d |= (uint64_t)bit << i;
        }
        D[l] = d;
    });
    return 0;
}
static int h_bfi(emu_exec *x, const einst *I, uint32_t m)
{
    D_; A_(0); A_(1); A_(2); A_(3);
    unsigned bits = emu_type_bytes(I->type) * 8, msb = bits - 1;
    uint64_t mask = type_mask(bits / 8);
    FOR_LANES(m, l, {
        uint64_t a = A0[l], f = A1[l] & mask;
        unsigned pos = (unsigned)A2[l] & 0xff, len = (unsigned)A3[l] & 0xff;
        for (unsigned i = 0; i < len && pos + i <= msb; i++)
            f = (f & ~(1ull << (pos + i))) | (((a >> i) & 1) << (pos + i));
        D[l] = f;
    });
    return 0;
}
static int h_szext(emu_exec *x, const einst *I, uint32_t m)
{
    D_; A_(0); A_(1);
    bool s = emu_type_signed(I->type), clamp = I->sub2;
    FOR_LANES(m, l, {
        uint32_t a = (uint32_t)A0[l], b = (uint32_t)A1[l], b1 = b & 31;
        bool too_large = b >= 32 && clamp;
        uint32_t mask = too_large ? 0 : ~0u << b1;
        uint32_t sign_pos = (b1 - 1) & 31;
        bool sbit = !(b1 == 0 || too_large || !s) && ((a >> sign_pos) & 1);
        D[l] = (a & ~mask) | (sbit ? mask : 0);
    });
    return 0;
}
static int h_bmsk(emu_exec *x, const einst *I, uint32_t m)
{
    D_; A_(0); A_(1);
    bool clamp = I->sub2;
    FOR_LANES(m, l, {
        uint32_t a = (uint32_t)A0[l], b = (uint32_t)A1[l];
        uint32_t a1 = a & 31, b1 = b & 31, sum = a1 + b1;
        uint32_t mask0 = ~0u << a1;
        uint32_t mask1 = sum >= 32 ? 0 : ~0u << sum;
        bool over = sum >= 32;
        if (clamp) {
            if (a >= 32) { over = true; mask0 = 0; }
            if (b >= 32) over = true;
        }
        if (over) mask1 = 0;
        else if (b1 == 0) mask1 = ~0u;
        D[l] = mask0 & ~mask1;
    });
    return 0;
}
static int h_dp4a(emu_exec *x, const einst *I, uint32_t m)
{
    D_; A_(0); A_(1); A_(2);
    bool sa = emu_type_signed(I->type), sb = emu_type_signed(I->type2);
    FOR_LANES(m, l, {
        uint32_t a = (uint32_t)A0[l], b = (uint32_t)A1[l];
        uint32_t d = (uint32_t)A2[l];
        for (unsigned i = 0; i < 4; i++) {
            int32_t va = sa ? (int8_t)(a >> (8 * i)) : (int32_t)((a >> (8 * i)) & 0xff);
            int32_t vb = sb ? (int8_t)(b >> (8 * i)) : (int32_t)((b >> (8 * i)) & 0xff);
            d += (uint32_t)(va * vb);
        }
        D[l] = d;
    });
    return 0;
}
static int h_dp2a(emu_exec *x, const einst *I, uint32_t m)
{
    D_; A_(0); A_(1); A_(2);
    bool sa = emu_type_signed(I->type), sb = emu_type_signed(I->type2);
    unsigned sel = I->sub ? 2 : 0;
    FOR_LANES(m, l, {
        uint32_t a = (uint32_t)A0[l], b = (uint32_t)A1[l];
        uint32_t d = (uint32_t)A2[l];
        for (unsigned i = 0; i < 2; i++) {
            int32_t va = sa ? (int16_t)(a >> (16 * i)) : (int32_t)((a >> (16 * i)) & 0xffff);
            unsigned bi = sel + i;
            int32_t vb = sb ? (int8_t)(b >> (8 * bi)) : (int32_t)((b >> (8 * bi)) & 0xff);
            d += (uint32_t)(va * vb);
        }
        D[l] = d;
    });
    return 0;
}
static int h_lop3(emu_exec *x, const einst *I, uint32_t m)
{
    D_; A_(0); A_(1); A_(2); A_(3);
    FOR_LANES(m, l, {
        uint32_t a = (uint32_t)A0[l], b = (uint32_t)A1[l], c = (uint32_t)A2[l], lut = (uint32_t)A3[l] & 0xff;
        uint32_t r = 0;
        for (unsigned i = 0; i < 8; i++)
            if ((lut >> i) & 1) r |= ((i & 4) ? a : ~a) & ((i & 2) ? b : ~b) & ((i & 1) ? c : ~c);
        D[l] = r;
    });
    return 0;
}
static int h_shf(emu_exec *x, const einst *I, uint32_t m)
{
    D_; A_(0); A_(1); A_(2);
    bool left = I->sub == SHF_L, clamp = I->sub2;
    FOR_LANES(m, l, {
        uint64_t v = ((uint64_t)(uint32_t)A1[l] << 32) | (uint32_t)A0[l];
        uint32_t c = (uint32_t)A2[l];
        uint32_t n = clamp ? (c > 32 ? 32 : c) : (c & 31);
        D[l] = left ? (uint32_t)((v << n) >> 32) : (uint32_t)(v >> n);
    });
    return 0;
}
static int h_prmt(emu_exec *x, const einst *I, uint32_t m)
{
    D_; A_(0); A_(1); A_(2);
    /* selection tables of the special modes, byte 0 first */
    static const uint8_t modes[7][4][4] = {
        {{0}},
        {{0, 1, 2, 3}, {1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}},  /* f4e */
        {{0, 7, 6, 5}, {1, 0, 7, 6}, {2, 1, 0, 7}, {3, 2, 1, 0}},  /* b4e */
        {{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}},  /* rc8 */
        {{0, 1, 2, 3}, {1, 1, 2, 3}, {2, 2, 2, 3}, {3, 3, 3, 3}},  /* ecl */
        {{0, 0, 0, 0}, {0, 1, 1, 1}, {0, 1, 2, 2}, {0, 1, 2, 3}},  /* ecr */
        {{0, 1, 0, 1}, {2, 3, 2, 3}, {0, 1, 0, 1}, {2, 3, 2, 3}},  /* rc16 */
    };
    unsigned mode = I->sub;
    FOR_LANES(m, l, {
        uint64_t src = ((uint64_t)(uint32_t)A1[l] << 32) | (uint32_t)A0[l];
        uint32_t c = (uint32_t)A2[l], r = 0;
        for (unsigned i = 0; i < 4; i++) {
            uint32_t byte;
            if (mode == PRMT_DEF) {
                unsigned sel = (c >> (4 * i)) & 0xf;
                byte = (uint32_t)(src >> (8 * (sel & 7))) & 0xff;
                if (sel & 8) byte = (byte & 0x80) ? 0xff : 0;
            } else {
                byte = (uint32_t)(src >> (8 * modes[mode][c & 3][i])) & 0xff;
            }
            r |= byte << (8 * i);
        }
        D[l] = r;
    });
    return 0;
}

/* ---- predicates ------------------------------------------------------------------- */
static int h_pand(emu_exec *x, const einst *I, uint32_t m) { pwrite(x, I->d[0], pread(x, I->s[0]) & pread(x, I->s[1]), m); return 0; }
static int h_por(emu_exec *x, const einst *I, uint32_t m) { pwrite(x, I->d[0], pread(x, I->s[0]) | pread(x, I->s[1]), m); return 0; }
static int h_pxor(emu_exec *x, const einst *I, uint32_t m) { pwrite(x, I->d[0], pread(x, I->s[0]) ^ pread(x, I->s[1]), m); return 0; }
static int h_pnot(emu_exec *x, const einst *I, uint32_t m) { pwrite(x, I->d[0], ~pread(x, I->s[0]), m); return 0; }
static int h_pmov(emu_exec *x, const einst *I, uint32_t m) { pwrite(x, I->d[0], pread(x, I->s[0]), m); return 0; }

static inline bool icmp(unsigned cmp, uint64_t a, uint64_t b, int64_t sa, int64_t sb, bool s)
{
    switch (cmp) {
    case CMP_EQ: return a == b;
    case CMP_NE: return a != b;
    case CMP_LT: return s ? sa < sb : a < b;
    case CMP_LE: return s ? sa <= sb : a <= b;
    case CMP_GT: return s ? sa > sb : a > b;
    case CMP_GE: return s ? sa >= sb : a >= b;
    case CMP_LO: return a < b;
    case CMP_LS: return a <= b;
    case CMP_HI: return a > b;
    case CMP_HS: return a >= b;
    default: return false;
    }
}

/* Combines a comparison result with predicate c; writes p (and q = !t op c). */
void emu_setp_write(emu_exec *x, const einst *I, uint32_t t, uint32_t m)
{
    uint32_t c = I->sub2 != BOP_NONE ? pread(x, I->s[2]) : 0;
    uint32_t p, q;
    switch (I->sub2) {
    case BOP_AND: p = t & c; q = ~t & c; break;
    case BOP_OR: p = t | c; q = ~t | c; break;
    case BOP_XOR: p = t ^ c; q = ~t ^ c; break;
    default: p = t; q = ~t; break;
    }
    if (I->flags & EI_SETOP) {
        /* set: 0xffffffff / 1.0f or 0 in each lane */
        uint64_t *D = REG(x, I->d[0]);
        uint64_t one = I->type2 == PTX_T_F32 ? 0x3f800000u : 0xffffffffu;
        FOR_LANES(m, l, D[l] = ((p >> l) & 1) ? one : 0);
        return;
    }
    pwrite(x, I->d[0], p, m);
    if (I->flags & EI_PRED_DST2) pwrite(x, I->d[1], q, m);
}

static int h_setp_int(emu_exec *x, const einst *I, uint32_t m)
{
    A_(0); A_(1);
    unsigned w = emu_type_bytes(I->type);
    bool s = emu_type_signed(I->type);
    uint64_t mask = type_mask(w);
    uint32_t t = 0;
    unsigned cmp = I->sub;
    FOR_LANES(m, l, {
        uint64_t a = A0[l] & mask, b = A1[l] & mask;
        if (icmp(cmp, a, b, sext(a, w), sext(b, w), s)) t |= 1u << l;
    });
    emu_setp_write(x, I, t, m);
    return 0;
}
/* The hot case: setp.{lt,ge,...}.s32/u32 into one predicate. */
#define SETP32(name, T, op)                                                    \
    static int name(emu_exec *x, const einst *I, uint32_t m)                   \
    {                                                                          \
        A_(0); A_(1);                                                          \
        uint32_t t = 0;                                                        \
        FOR_LANES(m, l, t |= (uint32_t)((T)(uint32_t)A0[l] op (T)(uint32_t)A1[l]) << l); \
        uint32_t *p = &x->p[I->d[0] & ~PRED_SLOT];                             \
        *p = (*p & ~m) | (t & m);                                              \
        return 0;                                                              \
    }
SETP32(h_setp_lt_s32, int32_t, <) SETP32(h_setp_le_s32, int32_t, <=) SETP32(h_setp_gt_s32, int32_t, >)
SETP32(h_setp_ge_s32, int32_t, >=) SETP32(h_setp_eq_32, uint32_t, ==) SETP32(h_setp_ne_32, uint32_t, !=)
SETP32(h_setp_lt_u32, uint32_t, <) SETP32(h_setp_le_u32, uint32_t, <=) SETP32(h_setp_gt_u32, uint32_t, >)
SETP32(h_setp_ge_u32, uint32_t, >=)

static int h_selp(emu_exec *x, const einst *I, uint32_t m)
{
    D_; A_(0); A_(1);
    uint32_t c = pread(x, I->s[2]);
    uint64_t mask = type_mask(emu_type_bytes(I->type));
    FOR_LANES(m, l, D[l] = (((c >> l) & 1) ? A0[l] : A1[l]) & mask);
    return 0;
}
static int h_slct(emu_exec *x, const einst *I, uint32_t m)
{
    D_; A_(0); A_(1); A_(2);
    uint64_t mask = type_mask(emu_type_bytes(I->type));
    bool f = I->type2 == PTX_T_F32;
    FOR_LANES(m, l, {
        bool ge;
        if (f) {
            uint32_t cb = (uint32_t)A2[l];
            bool nan = (cb & 0x7fffffffu) > 0x7f800000u;
            bool neg = (cb >> 31) && (cb & 0x7fffffffu) && !((I->flags & EI_FTZ) && !(cb & 0x7f800000u));
            ge = !nan && !neg;
        } else {
            ge = (int32_t)(uint32_t)A2[l] >= 0;
        }
        D[l] = (ge ? A0[l] : A1[l]) & mask;
    });
    return 0;
}

/* ---- moves --------------------------------------------------------------------------- */
static int h_mov(emu_exec *x, const einst *I, uint32_t m)
{
    D_; A_(0);
    uint64_t mask = type_mask(emu_type_bytes(I->type));
    if (m == FULL_MASK) {
        for (unsigned l = 0; l < 32; l++) D[l] = A0[l] & mask;
    } else {
        FOR_LANES(m, l, D[l] = A0[l] & mask);
    }
    return 0;
}
static int h_unpack(emu_exec *x, const einst *I, uint32_t m)
{
    A_(0);
    unsigned eb = I->bytes;
    uint64_t emask = type_mask(eb);
    for (unsigned k = 0; k < I->vec; k++) {
        uint64_t *D = REG(x, I->d[k]);
        FOR_LANES(m, l, D[l] = (A0[l] >> (8 * eb * k)) & emask);
    }
    return 0;
}
static int h_pack(emu_exec *x, const einst *I, uint32_t m)
{
    uint64_t tmp[32] = {0};
    unsigned eb = I->bytes;
    uint64_t emask = type_mask(eb);
    for (unsigned k = 0; k < I->vec; k++) {
        const uint64_t *A = REG(x, I->s[k]);
        FOR_LANES(m, l, tmp[l] |= (A[l] & emask) << (8 * eb * k));
    }
    uint64_t *D = REG(x, I->d[0]);
    FOR_LANES(m, l, D[l] = tmp[l]);
    return 0;
}

/* ---- lookup ----------------------------------------------------------------------------- */
static int wsel(unsigned t)
{
    switch (emu_type_bytes(t)) {
    case 2: return 0;
    case 4: return 1;
    case 8: return 2;
    default: return -1;
    }
}

#define PICK3(base) (w == 0 ? base##_16 : w == 1 ? base##_32 : base##_64)

emu_fn emu_lookup_int(unsigned opc, einst *I, const char **why)
{
    unsigned t = I->type;
    int w = wsel(t);
    bool s = emu_type_signed(t);
    if (t == PTX_T_PRED) {
        switch (opc) {
        case PTX_OPC_AND: return h_pand;
        case PTX_OPC_OR: return h_por;
        case PTX_OPC_XOR: return h_pxor;
        case PTX_OPC_NOT: return h_pnot;
        case PTX_OPC_MOV: return h_pmov;
        default: *why = "predicate operands"; return NULL;
        }
    }
    if (opc == PTX_OPC_MOV) {
        if (I->sub == 2) return h_unpack;
        if (I->sub == 3) return h_pack;
        if (!emu_type_bytes(t) || emu_type_bytes(t) > 8) { *why = "type"; return NULL; }
        return h_mov;
    }
    if (opc == PTX_OPC_SELP) return emu_type_bytes(t) && emu_type_bytes(t) <= 8 ? h_selp : NULL;
    if (opc == PTX_OPC_SLCT) return h_slct;
    if (w < 0) { *why = "operand type"; return NULL; }
    switch (opc) {
    case PTX_OPC_ADD:
    case PTX_OPC_SUB:
        if ((I->flags & EI_SAT) && t != PTX_T_S32) { *why = ".sat needs .s32"; return NULL; }
        if (I->flags & (EI_SAT | EI_CC)) {
            I->sub2 = opc == PTX_OPC_SUB;
            return h_addsub_ext;
        }
        if (opc == PTX_OPC_ADD) return w == 1 ? h_add_32_full : w == 2 ? h_add_64_full : h_add_16;
        return PICK3(h_sub);
    case PTX_OPC_ADDC:
    case PTX_OPC_SUBC:
        I->sub2 = (opc == PTX_OPC_SUBC) | 2;
        return h_addsub_ext;
    case PTX_OPC_MUL:
        if (I->sub == MUL_LO) return PICK3(h_mullo);
        if (I->sub == MUL_HI) {
            if (w == 0) return s ? h_mulhi_s16 : h_mulhi_u16;
            if (w == 1) return s ? h_mulhi_s32 : h_mulhi_u32;
            return s ? h_mulhi_s64 : h_mulhi_u64;
        }
        if (w == 0) return s ? h_mulwide_s16 : h_mulwide_u16;
        if (w == 1) return s ? h_mulwide_s32 : h_mulwide_u32;
        *why = "mul.wide needs a 16- or 32-bit type";
        return NULL;
    case PTX_OPC_MAD:
        if (I->sub == MUL_WIDE && w == 2) { *why = "mad.wide needs a 16- or 32-bit type"; return NULL; }
        if ((I->flags & EI_SAT) && !(t == PTX_T_S32 && I->sub == MUL_HI)) { *why = ".sat needs mad.hi.s32"; return NULL; }
        if (!(I->flags & (EI_SAT | EI_CC))) {
            if (I->sub == MUL_LO && w == 1) return h_madlo_32;
            if (I->sub == MUL_LO && w == 2) return h_madlo_64;
            if (I->sub == MUL_WIDE && w == 1) return s ? h_madwide_s32 : h_madwide_u32;
        }
        return h_mad;
    case PTX_OPC_MADC: return h_madc;
    case PTX_OPC_MUL24:
    case PTX_OPC_MAD24:
        if (w != 1) { *why = "needs a 32-bit type"; return NULL; }
        if (I->flags & EI_SAT) { *why = ".sat"; return NULL; }
        I->sub2 = opc == PTX_OPC_MAD24;
        return h_mul24;
    case PTX_OPC_SAD: return h_sad;
    case PTX_OPC_DIV:
        if (w == 0) return s ? h_divs_16 : h_divu_16;
        if (w == 1) return s ? h_divs_32 : h_divu_32;
        return s ? h_divs_64 : h_divu_64;
    case PTX_OPC_REM:
        if (w == 0) return s ? h_rems_16 : h_remu_16;
        if (w == 1) return s ? h_rems_32 : h_remu_32;
        return s ? h_rems_64 : h_remu_64;
    case PTX_OPC_ABS: return h_abs;
    case PTX_OPC_NEG: return h_neg;
    case PTX_OPC_MIN:
        if (I->flags & EI_RELU) { *why = ".relu"; return NULL; }
        return s ? PICK3(h_mins) : PICK3(h_minu);
    case PTX_OPC_MAX:
        if (I->flags & EI_RELU) { *why = ".relu"; return NULL; }
        return s ? PICK3(h_maxs) : PICK3(h_maxu);
    case PTX_OPC_AND: return PICK3(h_and);
    case PTX_OPC_OR: return PICK3(h_or);
    case PTX_OPC_XOR: return PICK3(h_xor);
    case PTX_OPC_NOT: return h_not;
    case PTX_OPC_CNOT: return h_cnot;
    case PTX_OPC_SHL: return PICK3(h_shl);
    case PTX_OPC_SHR: return s ? PICK3(h_shrs) : PICK3(h_shru);
    case PTX_OPC_POPC: return w ? h_popc : NULL;
    case PTX_OPC_CLZ: return w ? h_clz : NULL;
    case PTX_OPC_BREV: return w ? h_brev : NULL;
    case PTX_OPC_BFIND: return w ? h_bfind : NULL;
    case PTX_OPC_FNS: return h_fns;
    case PTX_OPC_BFE: return w ? h_bfe : NULL;
    case PTX_OPC_BFI: return w ? h_bfi : NULL;
    case PTX_OPC_SZEXT: return h_szext;
    case PTX_OPC_BMSK: return h_bmsk;
    case PTX_OPC_DP4A: return h_dp4a;
    case PTX_OPC_DP2A: return h_dp2a;
    case PTX_OPC_LOP3: return h_lop3;
    case PTX_OPC_SHF: return h_shf;
    case PTX_OPC_PRMT: return h_prmt;
    case PTX_OPC_SETP:
    case PTX_OPC_SET:
        if (opc == PTX_OPC_SET) {
            I->flags |= EI_SETOP;
            if (I->type2 != PTX_T_U32 && I->type2 != PTX_T_S32 && I->type2 != PTX_T_F32 && I->type2 != PTX_T_B32) {
                *why = "destination type";
                return NULL;
            }
            return h_setp_int;
        }
        if (I->sub >= CMP_EQU) { *why = "unordered comparison on integers"; return NULL; }
        if (w == 1 && I->sub2 == BOP_NONE && !(I->flags & EI_PRED_DST2)) {
            switch (I->sub) {
            case CMP_LT: return s ? h_setp_lt_s32 : h_setp_lt_u32;
            case CMP_LE: return s ? h_setp_le_s32 : h_setp_le_u32;
            case CMP_GT: return s ? h_setp_gt_s32 : h_setp_gt_u32;
            case CMP_GE: return s ? h_setp_ge_s32 : h_setp_ge_u32;
            case CMP_EQ: return h_setp_eq_32;
            case CMP_NE: return h_setp_ne_32;
            case CMP_LO: return h_setp_lt_u32;
            case CMP_LS: return h_setp_le_u32;
            case CMP_HI: return h_setp_gt_u32;
            case CMP_HS: return h_setp_ge_u32;
            }
        }
        return h_setp_int;
    default: break;
    }
    *why = "operation";
    return NULL;
}
