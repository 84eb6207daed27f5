/* The symbols of the warp forms (warp_form.h sym; docs/divergence.md,
 * "Symbols"): a value's uniform part as a signed sum of at most two roots
 * plus a known offset, modulo 2^n, so that U - U cancels where the
 * dataflow (warp_rules.c) and lane-exact evaluation (lane_rules.c) meet
 * it.  wf_sym_sum is the one rule for both. */
#include "warp_form_int.h"

/* A form's U as terms and an offset (warp_form.h sym): a known U is off
 * alone; false for an unknown U with no root (an address's, a symbol's). */
static bool sym_terms(const wform *a, uint64_t *t, uint64_t *off)
{
    if (a->k == 64) { *t = 0, *off = a->r; return true; }
    if (!a->sym) return false;
    *t = a->sym, *off = (uint64_t)a->off;
    return true;
}

/* The terms of sa ± sb in general (sym_sum below has the common case). */
static bool sym_sum_terms(uint64_t sa, uint64_t sb, bool neg, uint64_t *out, bool *cancel)
{
    uint32_t t[4] = {(uint32_t)sa, (uint32_t)(sa >> 32), 0, 0}, b[2] = {(uint32_t)sb, (uint32_t)(sb >> 32)};
    unsigned nt = 2;
    for (unsigned i = 0; i < 2; i++) {
        if (!b[i]) continue;
        uint32_t x = neg ? b[i] ^ WF_SYM_NEG : b[i], j = 0;
        while (j < nt && (t[j] & ~WF_SYM_NEG) != (x & ~WF_SYM_NEG)) j++;
        if (j == nt) t[nt++] = x;
        else if (t[j] != x) t[j] = 0, *cancel = true; /* U_s - U_s */
        else return false;                            /* 2·U_s */
    }
    uint32_t u[2] = {0, 0};
    unsigned nu = 0;
    for (unsigned i = 0; i < nt; i++)
        if (t[i]) {
            if (nu == 2) return false;
            u[nu++] = t[i];
        }
    if (nu == 2 && (u[0] & ~WF_SYM_NEG) > (u[1] & ~WF_SYM_NEG)) { uint32_t x = u[0]; u[0] = u[1], u[1] = x; }
    *out = u[0] | (uint64_t)u[1] << 32;
    return true;
}

/* wf_sym_sum, and whether a root cancelled (*cancel: the operands share
 * one, wf_sym_shares); inline where wf_sym_addsub meets its common case. */
static inline __attribute__((always_inline)) bool sym_sum(uint64_t sa, uint64_t sb, bool neg, uint64_t *out,
                                                          bool *cancel)
{
    *cancel = false;
    if (!(sa >> 32) && !(sb >> 32) && sa && sb) { /* one root each, the common case: sym_sum_terms, unrolled */
        uint32_t x = (uint32_t)sa, y = neg ? (uint32_t)sb ^ WF_SYM_NEG : (uint32_t)sb;
        uint32_t rx = x & ~WF_SYM_NEG, ry = y & ~WF_SYM_NEG;
        if (rx == ry) {
            if (x == y) return false; /* 2·U_s */
            *out = 0;                 /* U_s - U_s */
            *cancel = true;
            return true;
        }
        *out = rx < ry ? x | (uint64_t)y << 32 : y | (uint64_t)x << 32;
        return true;
    }
    return sym_sum_terms(sa, sb, neg, out, cancel);
}

bool wf_sym_sum(uint64_t sa, uint64_t sb, bool neg, uint64_t *out)
{
    bool cancel;
    return sym_sum(sa, sb, neg, out, &cancel);
}

/* Every root cancelled (g(0) = 0 in both): U_r = off.  Out of line, as
 * the case below: the common case then calls nothing. */
static __attribute__((noinline)) bool sym_exact(wform *r, uint64_t off, unsigned n)
{
    if (r->k == 64) return false;
    r->k = 64;
    r->r = off;
    r->nn = 0;
    wf_fix(r, n);
    return false;
}

/* wf_sym_addsub's end, from the sum s of the terms (ok: there is one) and
 * the offset; both: a root cancelled. */
static inline __attribute__((always_inline)) bool sym_set(wform *r, bool ok, uint64_t s, uint64_t off, unsigned n,
                                                          bool both)
{
    if (!ok) return false;
    if (!s) return sym_exact(r, off, n);
    if (r->k == 64) return false;
    r->sym = s, r->off = wf_sext(off, n);
    return both;
}

/* wf_sym_addsub where a term has two roots (rare). */
static __attribute__((noinline)) bool sym_addsub_terms(wform *r, uint64_t ta, uint64_t tb, uint64_t off, unsigned n,
                                                       bool sub)
{
    uint64_t s = 0;
    bool both = false, ok = sym_sum_terms(ta, tb, sub, &s, &both);
    return sym_set(r, ok, s, off, n, both);
}

bool wf_sym_addsub(wform *r, const wform *a, const wform *b, unsigned n, bool sub)
{
    r->sym = 0, r->off = 0;
    if (r->kind != WF_UNI && r->kind != WF_LANE) return false;
    uint64_t ta, tb, oa, ob, s = 0;
    bool both = false, ok = true;
    if (!sym_terms(a, &ta, &oa) || !sym_terms(b, &tb, &ob)) return false;
    uint64_t off = sub ? oa - ob : oa + ob;
    if (!tb) s = ta; /* the common case: a known amount added */
    else if (!ta) s = sub ? wf_sym_negate(tb) : tb;
    else if (ta >> 32 || tb >> 32) return sym_addsub_terms(r, ta, tb, off, n, sub);
    else ok = sym_sum(ta, tb, sub, &s, &both); /* one root each */
    return sym_set(r, ok, s, off, n, both);
}

void wf_sym_neg(wform *r, const wform *a, unsigned n, bool not)
{
    r->sym = 0, r->off = 0;
    if ((r->kind != WF_UNI && r->kind != WF_LANE) || r->k == 64 || a->k == 64 || !a->sym) return;
    r->sym = wf_sym_negate(a->sym);
    r->off = wf_sext(0 - (uint64_t)a->off - (not ? 1 : 0), n);
}

void wf_sym_known(wform *r, uint64_t rs, unsigned ks, unsigned n)
{
    if ((r->kind != WF_UNI && r->kind != WF_LANE) || r->k >= ks || !r->sym || r->sym >> 32) return;
    uint64_t u = ((uint32_t)r->sym & WF_SYM_NEG ? 0 - rs : rs) + (uint64_t)r->off;
    if (ks >= (n ? n : 64)) { /* every bit of U: exact */
        r->k = 64, r->r = u, r->nn = 0;
        wf_fix(r, n);
        return;
    }
    r->k = (uint8_t)ks, r->r = u & mask(ks);
}
