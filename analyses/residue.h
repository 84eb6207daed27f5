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

/* The rules on known low bits, at any width (k up to 64; r < 2^k): the
 * warp form's U (warp_form.c) and the residues here both use them. */

/* Known trailing zero bits: as many as k when r is 0. */
static inline unsigned kb_tz(uint64_t r, unsigned k)
{
    if (k < 64) r &= ((uint64_t)1 << k) - 1;
    return r ? (unsigned)__builtin_ctzll(r) : k;
}
/* (ra + 2^ka·s)(rb + 2^kb·t) ≡ ra·rb modulo 2^min(ka + tz(rb), kb + tz(ra)). */
static inline unsigned kb_mul(uint64_t ra, unsigned ka, uint64_t rb, unsigned kb)
{
    unsigned k1 = ka + kb_tz(rb, kb), k2 = kb + kb_tz(ra, ka);
    return k1 < k2 ? k1 : k2;
}
/* The low bits two partly known numbers agree on (64: both known, equal). */
static inline unsigned kb_agree(uint64_t ra, unsigned ka, uint64_t rb, unsigned kb)
{
    unsigned m = ka < kb ? ka : kb, d = ra != rb ? (unsigned)__builtin_ctzll(ra ^ rb) : 64; /* the first bit they differ in */
    if (m > 64) m = 64;
    return d < m ? d : m;
}

static inline unsigned res_tz(residue a) { return kb_tz(a.r, a.k); }

static inline residue res_add(residue a, residue b)
{
    unsigned k = a.k < b.k ? a.k : b.k;
    return res_make((int64_t)a.r + b.r, k);
}
static inline residue res_neg(residue a) { return res_make(-(int64_t)a.r, a.k); }
static inline residue res_sub(residue a, residue b) { return res_add(a, res_neg(b)); }

static inline residue res_mul(residue a, residue b) { return res_make((int64_t)a.r * b.r, kb_mul(a.r, a.k, b.r, b.k)); }

/* Known bits of x & mask: a mask bit 0 gives a known 0. */
static inline residue res_and_imm(residue a, int64_t mask)
{
    unsigned k = 0;
    while (k < RES_KMAX && (k < a.k || !((uint64_t)mask >> k & 1))) k++;
    return res_make((int64_t)(a.r & (uint64_t)mask), k);
}

/* The strongest fact true of both. */
static inline residue res_meet(residue a, residue b) { return res_make(a.r, kb_agree(a.r, a.k, b.r, b.k)); }

static inline int res_eq(residue a, residue b) { return a.r == b.r && a.k == b.k; }

#endif
