/* The comparisons of warp forms (warp_form.h wf_cmp, wf_cmp_diff): the
 * predicate a op b of setp/set on v(l) = U + g(l), exact modulo 2^n where
 * the method says so, else under the no-wraparound assumption it states
 * (*nowrap).  The ISA semantics each method relies on are cited next to
 * it; docs/divergence.md lists them.  Kept apart from the arithmetic
 * (warp_form.c); the small helpers both use are in warp_form_int.h. */
#include "warp_form_int.h"

__extension__ typedef __int128 i128;

static bool cmp_keys(enum wf_cmp_op op, int64_t a, int64_t b)
{
    switch (op) {
    case WF_EQ: return a == b;
    case WF_NE: return a != b;
    case WF_LT: return a < b;
    case WF_LE: return a <= b;
    case WF_GT: return a > b;
    default: return a >= b;
    }
}

static bool cmp_lane(enum wf_cmp_op op, uint64_t x, uint64_t y, unsigned n, bool sgn)
{
    return cmp_keys(op, ord_key(x, n, sgn), ord_key(y, n, sgn));
}

/* v[l] = a op b in each of the first nl lanes of two exact forms: the
 * operator's switch outside the lane loop. */
static void cmp_lanes(uint64_t *v, unsigned nl, enum wf_cmp_op op, const wform *a, const wform *b, unsigned n, bool sgn)
{
    int64_t ka[WF_LANES], kb[WF_LANES];
    for (unsigned l = 0; l < nl; l++) ka[l] = ord_key(wf_at(a, l), n, sgn), kb[l] = ord_key(wf_at(b, l), n, sgn);
    switch (op) {
    case WF_EQ: for (unsigned l = 0; l < nl; l++) v[l] = ka[l] == kb[l]; break;
    case WF_NE: for (unsigned l = 0; l < nl; l++) v[l] = ka[l] != kb[l]; break;
    case WF_LT: for (unsigned l = 0; l < nl; l++) v[l] = ka[l] < kb[l]; break;
    case WF_LE: for (unsigned l = 0; l < nl; l++) v[l] = ka[l] <= kb[l]; break;
    case WF_GT: for (unsigned l = 0; l < nl; l++) v[l] = ka[l] > kb[l]; break;
    default: for (unsigned l = 0; l < nl; l++) v[l] = ka[l] >= kb[l]; break;
    }
}

/* Whether g is 0 in every lane (split_upto(a, .., 0) >= 0). */
static bool g_zero(const wform *a)
{
    if (a->kind == WF_LANE)
        for (unsigned l = 0; l < WF_LANES; l++)
            if (a->g[l]) return false;
    return true;
}

/* split(a, n) of a uniform or varying form when it is at most top (top ≤
 * min(k, n), < 63), else -1: split's search, from g's range gmin..gmax. */
static int split_upto(const wform *a, int64_t gmin, int64_t gmax, unsigned top)
{
    if (gmin > 0) gmin = 0; /* split's range counts 0 in */
    if (gmax < 0) gmax = 0;
    for (unsigned b = range_bits(gmin, gmax); b <= top; b++) {
        int64_t rb = (int64_t)(a->r & mask(b));
        if (rb + gmin >= 0 && rb + gmax < (int64_t)1 << b) return (int)b;
    }
    return -1;
}

/* Whether some U ≡ r (mod 2^k) lies in [lo, hi]. */
static bool residue_in(uint64_t r, unsigned k, i128 lo, i128 hi, unsigned n)
{
    if (lo > hi) return false;
    if (!k) return true; /* every U */
    if (k >= 64) {
        i128 u = wf_sext(r, n);
        return lo <= u && u <= hi;
    }
    /* the least such U >= lo: lo + ((r - lo) mod 2^k), whose low k bits
     * are those of the 64-bit difference (no 128-bit division) */
    i128 first = lo + (i128)((r - (uint64_t)lo) & mask(k));
    return first <= hi;
}

/* d = a - b with its symbol: U - U cancels (wf_sym_addsub). */
static void diff(wform *d, const wform *a, const wform *b, unsigned n)
{
    wf_sub(d, a, b, n);
    wf_sym_addsub(d, a, b, n, true);
}

void wf_cmp(wform *r, enum wf_cmp_op op, const wform *a, const wform *b, unsigned n, bool sgn, bool *nowrap)
{
    wf_cmp_diff(r, op, a, b, NULL, n, sgn, nowrap);
}

/* The methods in order: uniform operands; exact lanes; for eq/ne the
 * difference (exact modulo 2^n); for an ordered comparison the split, then
 * the difference over the integers (no wraparound).  dd: the difference
 * when the caller has it (NULL: made here where a method reads it). */
void wf_cmp_diff(wform *r, enum wf_cmp_op op, const wform *a, const wform *b, const wform *dd, unsigned n, bool sgn,
                 bool *nowrap)
{
    if (strict2(r, a, b)) return;
    if (a->kind == WF_UNI && b->kind == WF_UNI && (a->k != 64 || b->k != 64)) {
        wf_uni(r, 0, 0); /* two uniform values: the same outcome in every lane */
        r->nn = 1;
        return;
    }
    if (exact(a) && exact(b)) {
        uint64_t v[WF_LANES];
        unsigned nl = lanes2(a, b);
        cmp_lanes(v, nl, op, a, b, n, sgn);
        wf_from_lanes(r, v, nl, 64);
        return;
    }
    wform d; /* a - b: made where a method reads it */
    if (op == WF_EQ || op == WF_NE) {
        if (dd) d = *dd;
        else diff(&d, a, b, n);
        /* a == b ⟺ a - b ≡ 0 (mod 2^n): exact */
        if (d.kind == WF_UNI) { wf_uni(r, 0, 0); r->nn = 1; return; }
        if (exact(&d)) {
            wform z;
            wf_const(&z, 0);
            wf_cmp(r, op, &d, &z, n, false, nowrap);
            return;
        }
        unsigned k = d.k < n ? d.k : n;
        for (unsigned l = 0; l < WF_LANES; l++)
            if (!((d.r + (uint64_t)d.g[l]) & mask(k))) { wf_bot(r); return; } /* lane l can be 0 */
        wf_uni(r, 0, 0); /* no lane is ever equal: all false (eq) or all true (ne) */
        r->nn = 1;
        return;
    }
    /* ordered, exact: both split at a common b; then the outcome is that of
     * the high parts, or of the low parts when the high parts are equal */
    unsigned top = kmin(kmin(a->k, b->k), n);
    /* a - b may cancel a root only where both name it (or the caller made
     * it so): there it is made symbol-aware; elsewhere the shortcuts below
     * (an early ⊥, the difference of the uniform parts alone) hold */
    bool shared = dd || (a->sym && b->sym && wf_sym_shares(a->sym, b->sym));
    if (top == 0 && !shared) {
        /* a U with no known bit (both uniform returned above): no split
         * but at 0, where a varying side fails, and a - b below has k =
         * 0, so every threshold is some U's: ⊥ as soon as a - b varies
         * modulo 2^n (its form a lane table, gmin < gmax), found here
         * without making a - b */
        uint64_t m = mask(n);
        for (unsigned l = 1; l < WF_LANES; l++) {
            uint64_t ga = a->kind == WF_LANE ? (uint64_t)a->g[l] : 0, gb = b->kind == WF_LANE ? (uint64_t)b->g[l] : 0;
            if ((ga - gb) & m) { wf_bot(r); return; }
        }
    }
    int64_t amin = 0, amax = 0, bmin = 0, bmax = 0;
    bool split = top == 0 ? g_zero(a) && g_zero(b) : top < 63; /* a split at 0: no lane varies */
    if (top && top < 63) {
        lane_range(a, &amin, &amax);
        lane_range(b, &bmin, &bmax);
        split = split_upto(a, amin, amax, top) >= 0 && split_upto(b, bmin, bmax, top) >= 0;
    }
    if (split) {
        bool first = false, same = true;
        if (a->kind == WF_LANE && b->kind == WF_LANE)
            for (unsigned l = 0; l < WF_LANES && same; l++) {
                bool o = cmp_lane(op, (uint64_t)low_part(a, top, l), (uint64_t)low_part(b, top, l), 64, false);
                if (!l) first = o;
                else same = o == first;
            }
        else { /* one side is the same in every lane, and the comparison is
                * monotone in the other (low parts in [0, 2^top): cmp_lane's
                * order is theirs): its least and greatest lanes decide */
            uint64_t ra = a->r & mask(top), rb = b->r & mask(top);
            same = cmp_lane(op, ra + (uint64_t)amin, rb + (uint64_t)bmin, 64, false) ==
                   cmp_lane(op, ra + (uint64_t)amax, rb + (uint64_t)bmax, 64, false);
        }
        if (same) { wf_uni(r, 0, 0); r->nn = 1; return; }
    }
    /* ordered, no wraparound: a - b over the integers is U + g(l); the
     * lanes disagree only if some U of the known residue puts a threshold
     * strictly inside [U + gmin, U + gmax] */
    int64_t gmin = 0, gmax = 0;
    if (shared) {
        if (dd) d = *dd;
        else diff(&d, a, b, n);
        if (d.kind == WF_UNI) { *nowrap = true; wf_uni(r, 0, 0); r->nn = 1; return; }
        if (exact(&d)) { /* the lanes of a - b known (U cancelled): d(l) op 0 in each lane */
            wform z;
            wf_const(&z, 0);
            *nowrap = true;
            wf_cmp(r, op, &d, &z, n, true, nowrap);
            return;
        }
        lane_range(&d, &gmin, &gmax); /* d.g(0) = 0: the range counts 0 in */
    } else {
        /* one side uniform, the other's g in range above and within n signed
         * bits: d's g is that g (negated for b), its range known; only d's U
         * is made, from the uniform parts (g(0) = 0: the same U and k) */
        int64_t half = n >= 64 ? INT64_MAX : (int64_t)1 << (n - 1); /* 2^(n-1), short of one at 64 */
        if (top && top < 63 && a->kind == WF_LANE && b->kind != WF_LANE && !a->g[0] && amin >= -half && amax < half)
            gmin = amin, gmax = amax;
        else if (top && top < 63 && b->kind == WF_LANE && a->kind != WF_LANE && !b->g[0] && bmin > -half && bmax <= half)
            gmin = -bmax, gmax = -bmin;
        if (gmin < gmax) { /* U_a - U_b, known where both are (residue_in reads no more) */
            d.k = (uint8_t)kmin(a->k, b->k);
            if (d.k >= n) d.k = 64;
            d.r = a->r - b->r;
        } else {
            wf_sub(&d, a, b, n);
            if (d.kind == WF_UNI) { *nowrap = true; wf_uni(r, 0, 0); r->nn = 1; return; }
            lane_range(&d, &gmin, &gmax);
        }
    }
    i128 t = op == WF_LT || op == WF_GE ? 0 : 1; /* lt: d < 0; le: d < 1; gt = !le; ge = !lt */
    if (residue_in(d.r, d.k < n ? d.k : 64, t - gmax, t - gmin - 1, n)) { wf_bot(r); return; }
    *nowrap = true;
    wf_uni(r, 0, 0);
    r->nn = 1;
}
