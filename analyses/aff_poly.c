/* Arithmetic on the affine domain (aff_poly.h). */
#include <string.h>
#include "aff_poly.h"

const uint8_t aff_fac[DIV_NCOEF2][2] = {
    {0, 0}, {1, 0}, {2, 0}, {3, 0}, {4, 0},
    {1, 1}, {1, 2}, {1, 3}, {1, 4}, {2, 2}, {2, 3}, {2, 4}, {3, 3}, {3, 4}, {4, 4},
};

/* mono[i][j]: the index of monomial m_i * m_j, or -1 when its degree
 * exceeds 2 (generated from aff_fac). */
static const int8_t mono[DIV_NCOEF2][DIV_NCOEF2] = {
    { 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14},
    { 1,  5,  6,  7,  8, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1},
    { 2,  6,  9, 10, 11, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1},
    { 3,  7, 10, 12, 13, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1},
    { 4,  8, 11, 13, 14, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1},
    { 5, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1},
    { 6, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1},
    { 7, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1},
    { 8, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1},
    { 9, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1},
    {10, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1},
    {11, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1},
    {12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1},
    {13, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1},
    {14, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1},
};

void aff_wrap(aff *a, unsigned bits)
{
    for (unsigned i = 0; i < a->n; i++)
        if (!(a->bot >> i & 1)) a->c[i] = wf_sext((uint64_t)a->c[i], bits);
}

static void copy(aff *r, const aff *a)
{
    if (r == a) return;
    r->n = a->n;
    r->top = a->top;
    r->bot = a->bot;
    memcpy(r->c, a->c, sizeof a->c[0] * a->n);
}

/* The meet of two values not ⊤ over their n coefficients: the ones that
 * differ first, then the result, two loops with no dependence from one
 * coefficient to the next; inlined with n a constant for the usual
 * DIV_NCOEF2 they vectorise. */
static inline __attribute__((always_inline)) void meet_n(aff *r, const aff *a, const aff *b, unsigned n)
{
    uint16_t bot = a->bot | b->bot;
    for (unsigned i = 0; i < n; i++) bot |= (uint16_t)((a->c[i] != b->c[i]) << i);
    for (unsigned i = 0; i < n; i++) r->c[i] = (bot >> i & 1) ? 0 : a->c[i];
    r->n = (uint8_t)n;
    r->top = 0;
    r->bot = bot;
}

void aff_meet(aff *r, const aff *a, const aff *b)
{
    if (a->top) { copy(r, b); return; }
    if (b->top) { copy(r, a); return; }
    if (a->n == DIV_NCOEF2) meet_n(r, a, b, DIV_NCOEF2);
    else meet_n(r, a, b, a->n);
}

/* r may be a or b: each coefficient reads only its own index. */
static void combine(aff *r, const aff *a, const aff *b, int sign)
{
    unsigned n = a->n;
    if (a->top || b->top) { aff_top(r, n); return; }
    uint16_t bot = a->bot | b->bot;
    for (unsigned i = 0; i < n; i++)
        r->c[i] = (bot >> i & 1) ? 0
                  : (int64_t)(sign > 0 ? (uint64_t)a->c[i] + (uint64_t)b->c[i] : (uint64_t)a->c[i] - (uint64_t)b->c[i]);
    r->n = (uint8_t)n;
    r->top = 0;
    r->bot = bot;
}

void aff_add(aff *r, const aff *a, const aff *b) { combine(r, a, b, 1); }
void aff_sub(aff *r, const aff *a, const aff *b) { combine(r, a, b, -1); }

void aff_neg(aff *r, const aff *a)
{
    aff z;
    aff_const(&z, a->n, 0);
    combine(r, &z, a, -1);
}

/* Indices of the coefficients that are not known to be 0. */
static unsigned nonzero(const aff *a, uint8_t *idx)
{
    unsigned m = 0;
    for (unsigned i = 0; i < a->n; i++)
        if ((a->bot >> i & 1) || a->c[i]) idx[m++] = (uint8_t)i;
    return m;
}

void aff_mul(aff *r, const aff *a, const aff *b)
{
    unsigned n = a->n;
    if (a->top || b->top) { aff_top(r, n); return; }
    aff t;
    aff_const(&t, n, 0);
    uint8_t ia[DIV_NCOEF2], ib[DIV_NCOEF2];
    unsigned na = nonzero(a, ia), nb = nonzero(b, ib); /* 0 × anything = 0 */
    for (unsigned x = 0; x < na; x++)
        for (unsigned y = 0; y < nb; y++) {
            unsigned i = ia[x], j = ib[y];
            int k = mono[i][j];
            if (k < 0 || (unsigned)k >= n) { aff_bottom(r, n); return; }
            if ((a->bot >> i & 1) || (b->bot >> j & 1)) {
                t.bot |= (uint16_t)(1u << k);
                t.c[k] = 0;
            } else if (!(t.bot >> k & 1)) {
                t.c[k] = (int64_t)((uint64_t)t.c[k] + (uint64_t)a->c[i] * (uint64_t)b->c[j]);
            }
        }
    copy(r, &t);
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
        if ((dims >> aff_fac[i][0] & 1) || (aff_fac[i][1] && (dims >> aff_fac[i][1] & 1))) m |= (uint16_t)(1u << i);
    return m;
}

uint16_t aff_mask_all(unsigned dims)
{
    uint16_t m = 0;
    for (unsigned i = 1; i < DIV_NCOEF2; i++)
        if ((dims >> aff_fac[i][0] & 1) && (!aff_fac[i][1] || (dims >> aff_fac[i][1] & 1))) m |= (uint16_t)(1u << i);
    return m;
}

void aff_of_result(const div_result *r, uint32_t v, aff *out)
{
    unsigned n = r->ncoef;
    aff_const(out, n, 0);
    if (!r->cslot) { /* div_coef knows none */
        out->bot = AFF_ALL(n);
        return;
    }
    /* div_coef's answers, read from the row at once */
    uint16_t bot = r->bot[v] & AFF_ALL(n);
    const int64_t *row = div_coefs(r, v);
    for (unsigned i = 0; i < n; i++) out->c[i] = bot >> i & 1 ? 0 : row[i];
    out->bot = bot;
}
