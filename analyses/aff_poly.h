/* The abstract values of the affine analyses (Sampaio et al. 2013, Fig. 12):
 * polynomials in the thread coordinates tid.x, tid.y, tid.z and laneid, of
 * degree 1 (5 coefficients) or 2 (15), whose coefficients are elements of
 * the constant-propagation lattice: ⊤ (not computed yet), an integer, or
 * ⊥ (unknown, but the same for every active thread of a warp).
 *
 * Coefficients are integers modulo 2^w, w the bit width of the register
 * that holds the value, kept sign-extended from w bits.  Addition,
 * subtraction, negation, multiplication and shifts by a constant are ring
 * operations modulo 2^w, so the polynomial stays exact when the machine
 * arithmetic wraps around; only comparisons, min/max and widening
 * conversions rely on the no-wraparound assumption (docs/divergence.md). */
#ifndef PTXRAY_AFF_POLY_H
#define PTXRAY_AFF_POLY_H
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include "divergence.h"

typedef struct aff {
    int64_t c[DIV_NCOEF2];
    uint16_t bot;   /* bit i: coefficient i is ⊥ */
    uint8_t top;    /* the whole value is ⊤ */
    uint8_t n;      /* coefficients in use: DIV_NCOEF1 or DIV_NCOEF2 */
} aff;

#define AFF_ALL(n) ((uint16_t)((1u << (n)) - 1))

/* Only the n coefficients in use are ever read; the constructors clear all
 * DIV_NCOEF2 (a fixed-size clear the compiler inlines: the solvers make
 * one per operand, and a call to memset of n was a tenth of their cost). */
static inline void aff_const(aff *a, unsigned n, int64_t c)
{
    memset(a->c, 0, sizeof a->c);
    a->n = (uint8_t)n;
    a->top = 0;
    a->bot = 0;
    a->c[0] = c;
}
static inline void aff_top(aff *a, unsigned n)
{
    aff_const(a, n, 0);
    a->top = 1;
}
/* every coefficient ⊥: divergent */
static inline void aff_bottom(aff *a, unsigned n)
{
    aff_const(a, n, 0);
    a->bot = AFF_ALL(n);
}
/* 0·tid + ⊥ */
static inline void aff_uniform_unknown(aff *a, unsigned n)
{
    aff_const(a, n, 0);
    a->bot = 1;
}
/* 1·m_i */
static inline void aff_monomial(aff *a, unsigned n, unsigned i)
{
    aff_const(a, n, 0);
    a->c[i] = 1;
}

/* Reduces every known coefficient modulo 2^bits (sign-extended). */
void aff_wrap(aff *a, unsigned bits);
/* r = a ∧ b (Fig. 12's meet, coefficient by coefficient; ⊤ is the unit). */
void aff_meet(aff *r, const aff *a, const aff *b);
void aff_add(aff *r, const aff *a, const aff *b);
void aff_sub(aff *r, const aff *a, const aff *b);
void aff_neg(aff *r, const aff *a);
/* Polynomial product truncated at the degree of n: a product term of
 * higher degree that is not known to be 0 makes the whole result ⊥.
 * 0 × ⊥ = 0 (Fig. 12). */
void aff_mul(aff *r, const aff *a, const aff *b);
/* Whether every coefficient of a monomial in `mask` is known to be 0. */
bool aff_zero_on(const aff *a, uint16_t mask);
/* A known constant: every non-constant coefficient 0 and the constant known. */
bool aff_is_const(const aff *a, int64_t *c);
bool aff_equal(const aff *a, const aff *b);

/* The factors of monomial i: the index of its first and second dimension
 * (DIV_C_X..DIV_C_LANE), 0 for none; the order is div_coef_name's. */
extern const uint8_t aff_fac[DIV_NCOEF2][2];

/* Coefficient indices whose monomial involves one of the dimensions in
 * dims (bit DIV_C_X.. DIV_C_LANE), and those whose monomial has all its
 * factors (one or two) in dims. */
uint16_t aff_mask_any(unsigned dims);
uint16_t aff_mask_all(unsigned dims);

/* Value v's polynomial in an affine analysis' result: the coefficients
 * div_coef does not know are ⊥. */
void aff_of_result(const div_result *r, uint32_t v, aff *out);

#endif
