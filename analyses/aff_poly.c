/* Arithmetic on the affine domain (aff_poly.h). */
#include <string.h>
#include "aff_poly.h"

/* Factors of each monomial: index of the first and second dimension
 * (DIV_C_X..DIV_C_LANE), 0 for none; the order is div_coef_name's. */
static const uint8_t fac[DIV_NCOEF2][2] = {
    {0, 0}, {1, 0}, {2, 0}, {3, 0}, {4, 0},
    {1, 1}, {1, 2}, {1, 3}, {1, 4}, {2, 2}, {2, 3}, {2, 4}, {3, 3}, {3, 4}, {4, 4},
};

static unsigned degree(unsigned i) { return i == 0 ? 0 : i < DIV_NCOEF1 ? 1 : 2; }

/* The monomial m_i * m_j, or -1 when its degree exceeds 2. */
static int mono_mul(unsigned i, unsigned j)
{
    if (!i) return (int)j;
    if (!j) return (int)i;
    if (degree(i) + degree(j) > 2) return -1;
    unsigned p = fac[i][0], q = fac[j][0];
    if (p > q) { unsigned t = p; p = q; q = t; }
    for (unsigned k = DIV_NCOEF1; k < DIV_NCOEF2; k++)
        if (fac[k][0] == p && fac[k][1] == q) return (int)k;
    return -1;
}

void aff_top(aff *a, unsigned n)
{
    memset(a, 0, sizeof *a);
    a->top = 1;
    a->n = (uint8_t)n;
}

void aff_const(aff *a, unsigned n, int64_t c)
{
    memset(a, 0, sizeof *a);
    a->n = (uint8_t)n;
    a->c[0] = c;
}

void aff_bottom(aff *a, unsigned n)
{
    memset(a, 0, sizeof *a);
    a->n = (uint8_t)n;
    a->bot = AFF_ALL(n);
}

void aff_uniform_unknown(aff *a, unsigned n)
{
    aff_const(a, n, 0);
    a->bot = 1;
}

void aff_monomial(aff *a, unsigned n, unsigned i)
{
    aff_const(a, n, 0);
    a->c[i] = 1;
}

static int64_t sext(uint64_t x, unsigned bits)
{
    if (bits >= 64 || bits == 0) return (int64_t)x;
    uint64_t m = 1ull << (bits - 1);
    x &= (1ull << bits) - 1;
    return (int64_t)((x ^ m) - m);
}

void aff_wrap(aff *a, unsigned bits)
{
    for (unsigned i = 0; i < a->n; i++)
        if (!(a->bot >> i & 1)) a->c[i] = sext((uint64_t)a->c[i], bits);
}

void aff_meet(aff *r, const aff *a, const aff *b)
{
    if (a->top) { *r = *b; return; }
    if (b->top) { *r = *a; return; }
    aff t = *a;
    t.bot |= b->bot;
    for (unsigned i = 0; i < t.n; i++)
        if (!(t.bot >> i & 1) && a->c[i] != b->c[i]) t.bot |= (uint16_t)(1u << i);
    for (unsigned i = 0; i < t.n; i++)
        if (t.bot >> i & 1) t.c[i] = 0;
    *r = t;
}

static void combine(aff *r, const aff *a, const aff *b, int sign)
{
    if (a->top || b->top) { aff_top(r, a->n); return; }
    aff t;
    aff_const(&t, a->n, 0);
    t.bot = a->bot | b->bot;
    for (unsigned i = 0; i < t.n; i++)
        if (!(t.bot >> i & 1))
            t.c[i] = (int64_t)(sign > 0 ? (uint64_t)a->c[i] + (uint64_t)b->c[i]
                                        : (uint64_t)a->c[i] - (uint64_t)b->c[i]);
    *r = t;
}

void aff_add(aff *r, const aff *a, const aff *b) { combine(r, a, b, 1); }
void aff_sub(aff *r, const aff *a, const aff *b) { combine(r, a, b, -1); }

void aff_neg(aff *r, const aff *a)
{
    aff z;
    aff_const(&z, a->n, 0);
    combine(r, &z, a, -1);
}

void aff_mul(aff *r, const aff *a, const aff *b)
{
    unsigned n = a->n;
    if (a->top || b->top) { aff_top(r, n); return; }
    aff t;
    aff_const(&t, n, 0);
    for (unsigned i = 0; i < n; i++)
        for (unsigned j = 0; j < n; j++) {
            bool ai0 = !(a->bot >> i & 1) && a->c[i] == 0, bj0 = !(b->bot >> j & 1) && b->c[j] == 0;
            if (ai0 || bj0) continue; /* 0 × anything = 0 */
            int k = mono_mul(i, j);
            if (k < 0 || (unsigned)k >= n) { aff_bottom(r, n); return; }
            if ((a->bot >> i & 1) || (b->bot >> j & 1)) {
                t.bot |= (uint16_t)(1u << k);
                t.c[k] = 0;
            } else if (!(t.bot >> k & 1)) {
                t.c[k] = (int64_t)((uint64_t)t.c[k] + (uint64_t)a->c[i] * (uint64_t)b->c[j]);
            }
        }
    *r = t;
}

bool aff_zero_on(const aff *a, uint16_t mask)
{
    if (a->bot & mask) return false;
    for (unsigned i = 0; i < a->n; i++)
        if ((mask >> i & 1) && a->c[i]) return false;
    return true;
}

bool aff_is_const(const aff *a, int64_t *c)
{
    if (a->top || (a->bot & 1) || !aff_zero_on(a, (uint16_t)(AFF_ALL(a->n) & ~1u))) return false;
    *c = a->c[0];
    return true;
}

bool aff_equal(const aff *a, const aff *b)
{
    if (a->top != b->top || a->bot != b->bot) return false;
    for (unsigned i = 0; i < a->n; i++)
        if (!(a->bot >> i & 1) && a->c[i] != b->c[i]) return false;
    return true;
}

uint16_t aff_mask_any(unsigned dims)
{
    uint16_t m = 0;
    for (unsigned i = 1; i < DIV_NCOEF2; i++)
        if ((dims >> fac[i][0] & 1) || (fac[i][1] && (dims >> fac[i][1] & 1))) m |= (uint16_t)(1u << i);
    return m;
}

uint16_t aff_mask_all(unsigned dims)
{
    uint16_t m = 0;
    for (unsigned i = 1; i < DIV_NCOEF2; i++)
        if ((dims >> fac[i][0] & 1) && (!fac[i][1] || (dims >> fac[i][1] & 1))) m |= (uint16_t)(1u << i);
    return m;
}
