/* What is known of an integer modulo a power of two: x ≡ r (mod 2^k).
 * The coalescing model needs addresses modulo 32 (sectors) and 128 (lines
 * and shared-memory banks), so RES_KMAX bits are plenty; k = 0 says
 * nothing.  All arithmetic is exact modulo 2^k: adding or multiplying
 * numbers known modulo 2^ka and 2^kb gives a result known modulo the
 * smaller power (multiplication keeps more when a factor has known
 * trailing zeros). */
#ifndef PTXRAY_RESIDUE_H
#define PTXRAY_RESIDUE_H
#include <stdint.h>

#define RES_KMAX 12

typedef struct residue {
    uint16_t r; /* < 2^k */
    uint8_t k;
} residue;

static inline residue res_make(int64_t r, unsigned k)
{
    if (k > RES_KMAX) k = RES_KMAX;
    residue x = {(uint16_t)((uint64_t)r & ((1u << k) - 1)), (uint8_t)k};
    return x;
}
static inline residue res_exact(int64_t c) { return res_make(c, RES_KMAX); }
static inline residue res_unknown(void) { return res_make(0, 0); }

/* Known trailing zero bits: as many as k when r is 0. */
static inline unsigned res_tz(residue a)
{
    if (!a.r) return a.k;
    unsigned t = 0;
    while (!(a.r >> t & 1)) t++;
    return t;
}

static inline residue res_add(residue a, residue b)
{
    unsigned k = a.k < b.k ? a.k : b.k;
    return res_make((int64_t)a.r + b.r, k);
}
static inline residue res_neg(residue a) { return res_make(-(int64_t)a.r, a.k); }
static inline residue res_sub(residue a, residue b) { return res_add(a, res_neg(b)); }

/* (ra + 2^ka·s)(rb + 2^kb·t) ≡ ra·rb modulo 2^min(ka + tz(rb), kb + tz(ra)). */
static inline residue res_mul(residue a, residue b)
{
    unsigned k1 = a.k + res_tz(b), k2 = b.k + res_tz(a);
    return res_make((int64_t)a.r * b.r, k1 < k2 ? k1 : k2);
}

/* The strongest fact true of both. */
static inline residue res_meet(residue a, residue b)
{
    unsigned k = a.k < b.k ? a.k : b.k;
    unsigned d = 0;
    while (d < k && !((a.r ^ b.r) >> d & 1)) d++;
    return res_make(a.r, d);
}

static inline int res_eq(residue a, residue b) { return a.r == b.r && a.k == b.k; }

#endif
