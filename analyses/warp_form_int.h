/* What warp_form.c, warp_cmp.c, warp_iv.c and warp_sym.c share and nobody
 * else needs: the small helpers on forms, and the exact-lanes constructor
 * the interval rules use for their low ends. */
#ifndef PTXRAY_WARP_FORM_INT_H
#define PTXRAY_WARP_FORM_INT_H
#include "warp_form.h"
#include <string.h>

static inline uint64_t mask(unsigned n) { return n >= 64 ? ~0ull : (1ull << n) - 1; }

/* *r = *a, copying the lane table only where there is one.  An interval
 * is dropped (plain ⊥): a rule that passes a ⊥ operand through does not
 * know what it did to the interval; the interval rules copy it with
 * copy_iv. */
static inline void assign(wform *r, const wform *a)
{
    r->wid = 0;
    if (r == a) return;
    r->kind = a->kind, r->k = a->k, r->r = a->r, r->nn = a->nn, r->sym = a->sym, r->off = a->off;
    if (a->kind == WF_LANE) memcpy(r->g, a->g, sizeof r->g), r->tab = a->tab;
}

/* assign without the lane table: the form whose table to take (for
 * fix_from in warp_form.c, which copies it as it normalises it), NULL
 * when a has none or r is a. */
static inline const wform *assign_head(wform *r, const wform *a)
{
    r->wid = 0;
    if (r == a) return NULL;
    r->kind = a->kind, r->k = a->k, r->r = a->r, r->nn = a->nn, r->sym = a->sym, r->off = a->off;
    return a->kind == WF_LANE ? a : NULL;
}

static inline bool is_iv(const wform *a) { return a->kind == WF_BOT && a->wid; }

/* *r = *a, an interval included. */
static inline void copy_iv(wform *r, const wform *a)
{
    if (r == a) return;
    assign(r, a);
    if (is_iv(a)) r->wid = a->wid, memcpy(r->g, a->g, sizeof r->g), r->tab = a->tab;
}

static inline bool exact(const wform *a) { return a->kind != WF_TOP && a->kind != WF_BOT && a->k == 64; }

/* ---- the arithmetic's (warp_form.c) and the comparisons' (warp_cmp.c) ---- */

/* ⊤ if either is ⊤, ⊥ if either is ⊥: true when r was set so. */
static inline bool strict2(wform *r, const wform *a, const wform *b)
{
    /* one test for the common case: both uniform or lane tables */
    if (!((1u << a->kind | 1u << b->kind) & (1u << WF_TOP | 1u << WF_BOT))) return false;
    if (a->kind == WF_TOP || b->kind == WF_TOP) { wf_top(r); return true; }
    if (a->kind == WF_BOT || b->kind == WF_BOT) { wf_bot(r); return true; }
    return false;
}

/* Known low bits of a sum of two partly known numbers (products:
 * residue.h's kb_mul). */
static inline unsigned kmin(unsigned a, unsigned b) { return a < b ? a : b; }

/* The lanes an operation on a and b must compute: one when neither varies. */
static inline unsigned lanes2(const wform *a, const wform *b)
{
    return a->kind == WF_LANE || b->kind == WF_LANE ? WF_LANES : 1;
}

/* The least b with gmax - gmin < 2^b (gmin ≤ 0 ≤ gmax): no split below it,
 * as h(l) = (U mod 2^b) + g(l) in [0, 2^b) for every lane needs the range
 * to fit. */
static inline unsigned range_bits(int64_t gmin, int64_t gmax)
{
    uint64_t d = (uint64_t)gmax - (uint64_t)gmin;
    return d ? 64 - (unsigned)__builtin_clzll(d) : 0;
}

static inline int64_t low_part(const wform *a, unsigned b, unsigned l)
{
    return (int64_t)(a->r & mask(b)) + (a->kind == WF_LANE ? a->g[l] : 0);
}

/* x as an n-bit number whose signed order is the comparison's: signed, or
 * unsigned (below 64 bits zero-extended; at 64, flipping the sign bit maps
 * unsigned order onto signed order). */
static inline int64_t ord_key(uint64_t x, unsigned n, bool sgn)
{
    if (sgn) return wf_sext(x, n);
    return n < 64 ? (int64_t)(x & mask(n)) : (int64_t)(x ^ (1ull << 63));
}

/* The least and greatest g(l) over the lanes (0, 0 for a uniform form). */
static inline void lane_range(const wform *a, int64_t *lo, int64_t *hi)
{
    int64_t mn = 0, mx = 0;
    if (a->kind == WF_LANE) {
        mn = mx = a->g[0];
        for (unsigned l = 0; l < WF_LANES; l += 2) { /* a pair ordered first: three compares for two lanes */
            int64_t x = a->g[l], y = a->g[l + 1], lo = x < y ? x : y, hi = x < y ? y : x;
            if (lo < mn) mn = lo;
            if (hi > mx) mx = hi;
        }
    }
    *lo = mn, *hi = mx;
}

/* a's lanes and U normalised to n bits (warp_form.c fix), for the rules
 * kept in other files (warp_sym.c). */
void wf_fix(wform *a, unsigned n);

/* r = the exact lane values vals (nl lanes: 1 when no operand varies, and
 * the one value is every lane's), n bits. */
void wf_from_lanes(wform *r, const uint64_t *vals, unsigned nl, unsigned n);

#endif
