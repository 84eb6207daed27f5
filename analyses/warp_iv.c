/* The interval rules of the warp forms (warp_form.h, "intervals"): what a
 * rule can still say of a value known only within [low end, low end + wid]
 * in each lane, used where the form's own rule gave ⊥ (affine_rules.c
 * aff_rule_iv) and by lane-exact evaluation (lane_eval.c).  The ISA
 * semantics each rule relies on are cited next to it; docs/divergence.md,
 * "Intervals", lists them. */
#include "warp_form_int.h"

/* ---- intervals ---------------------------------------------------------------
 *
 * Below the forms, a value known only within an interval: lane l holds
 * U + g(l) + t, 0 ≤ t ≤ wid, modulo 2^n (warp_form.h wid).  The form
 * U + g is its low end.  It is stored as ⊥ (a branch on it is divergent)
 * with the low end and the width beside, as the sign is: every rule that
 * does not know intervals sees ⊥.  Modulo 2^n a sum of two such sets is
 * the sum of the low ends plus [0, wa + wb], and a product by c the low end
 * times c plus [0, wid·c] (c ≥ 0), with no assumption; the sets are the
 * residues, so nothing wraps as long as wid < 2^n - 1 (wider is every
 * value: ⊥).  Where a rule reads the lanes as numbers (shifts, extensions)
 * it says how.  The lattice: an exact form (wid 0) above its intervals,
 * wider ones below narrower, plain ⊥ at the bottom; the meet of two with
 * the same g is the meet of their low ends with the larger width. */

bool wf_low(const wform *a, wform *lo, uint32_t *wid)
{
    if (a->kind == WF_UNI || a->kind == WF_LANE) {
        copy_iv(lo, a);
        *wid = 0;
        return true;
    }
    if (!is_iv(a)) return false;
    assign(lo, a);
    lo->nn = 0; /* the low end need not be a value the lanes take */
    lo->kind = WF_UNI;
    for (unsigned l = 1; l < WF_LANES && lo->kind == WF_UNI; l++)
        if (a->g[l]) lo->kind = WF_LANE;
    if (lo->kind == WF_LANE) memcpy(lo->g, a->g, sizeof lo->g), lo->tab = a->tab;
    *wid = a->wid;
    return true;
}

void wf_interval(wform *r, const wform *lo, uint64_t wid, unsigned n)
{
    uint64_t cap = !n || n >= 32 ? WF_WID_MAX : (1ull << n) - 2; /* n = 0: 64 bits */
    if ((lo->kind != WF_UNI && lo->kind != WF_LANE) || wid > cap) { wf_bot(r); return; }
    copy_iv(r, lo);
    if (!wid) return;
    if (r->kind == WF_UNI) memset(r->g, 0, sizeof r->g), r->tab = 0;
    r->kind = WF_BOT;
    r->wid = (uint32_t)wid;
    /* the sign, where every lane's low end is known: ≥ 0 and the high end
     * below 2^(n-1) */
    bool nn = r->k == 64;
    int64_t top = !n || n >= 64 ? INT64_MAX : (int64_t)((1ull << (n - 1)) - 1);
    for (unsigned l = 0; l < WF_LANES && nn; l++) {
        int64_t x = wf_sext(r->r + (uint64_t)r->g[l], n);
        nn = x >= 0 && x <= top - (int64_t)wid;
    }
    r->nn = nn;
}

void wf_iv_addsub(wform *r, const wform *a, const wform *b, unsigned n, bool sub)
{
    wform la, lb, z, t, c;
    uint32_t wa, wb;
    if (!wf_low(a, &la, &wa) || !wf_low(b, &lb, &wb)) { wf_bot(r); return; }
    (sub ? wf_sub : wf_add)(&z, &la, &lb, n);
    wf_sym_addsub(&z, &la, &lb, n, sub);
    if (sub && wb) { /* minus b's high end */
        wf_const(&c, -(int64_t)wb);
        wf_add(&t, &z, &c, n);
        wf_sym_addsub(&t, &z, &c, n, false);
        z = t;
    }
    wf_interval(r, &z, (uint64_t)wa + wb, n);
}

void wf_iv_scale(wform *r, const wform *a, int64_t c, unsigned n)
{
    wform la, k, z, t;
    uint32_t wa;
    uint64_t w;
    if (!wf_low(a, &la, &wa) || __builtin_mul_overflow((uint64_t)wa, c < 0 ? 0 - (uint64_t)c : (uint64_t)c, &w)) {
        wf_bot(r);
        return;
    }
    wf_const(&k, c);
    wf_mul(&z, &la, &k, n);
    if (c < 0) { /* the high end times c is the new low end */
        wf_const(&k, (int64_t)(0 - w));
        wf_add(&t, &z, &k, n);
        z = t;
    }
    wf_interval(r, &z, w, n);
}

void wf_iv_and(wform *r, const wform *a, int64_t m, unsigned n)
{
    (void)a; /* any x: 0 ≤ x & m ≤ m when m's sign bit is clear */
    m = wf_sext((uint64_t)m, n);
    wform z;
    wf_const(&z, 0);
    if (m <= 0) { wf_bot(r); return; }
    wf_interval(r, &z, (uint64_t)m, n);
    r->nn = r->kind == WF_BOT && r->wid;
}

void wf_iv_rem(wform *r, const wform *a, int64_t d, unsigned n, bool sgn)
{
    /* rem.u: [0, d); rem.s takes the dividend's sign (ISA "rem") */
    d = sgn ? wf_sext((uint64_t)d, n) : (int64_t)((uint64_t)d & mask(n));
    wform z;
    if (d <= 1) { wf_bot(r); return; }
    bool pos = !sgn || a->nn;
    wf_const(&z, pos ? 0 : -(d - 1));
    wf_interval(r, &z, (uint64_t)(d - 1) * (pos ? 1 : 2), n);
    if (pos) r->nn = r->kind == WF_BOT && r->wid;
}

void wf_iv_shr(wform *r, const wform *a, unsigned s, unsigned n, bool sgn)
{
    wform la;
    uint32_t wa;
    if (!wf_low(a, &la, &wa) || !exact(&la) || !n || n > 64 || s >= n) { wf_bot(r); return; }
    /* each lane's ends read as n-bit numbers (signed for shr.s), the
     * interval not crossing the end of that range: floor of each end */
    uint64_t lo[WF_LANES];
    uint64_t w = 0;
    int64_t smax = n >= 64 ? INT64_MAX : (int64_t)((1ull << (n - 1)) - 1);
    uint64_t umax = mask(n);
    unsigned nl = la.kind == WF_LANE ? WF_LANES : 1;
    for (unsigned l = 0; l < nl; l++) {
        uint64_t x = wf_at(&la, l), d;
        if (sgn) {
            int64_t v = wf_sext(x, n);
            if (v > smax - (int64_t)wa) { wf_bot(r); return; }
            lo[l] = (uint64_t)(v >> s);
            d = (uint64_t)(((v + (int64_t)wa) >> s) - (v >> s));
        } else {
            uint64_t v = x & umax;
            if (v > umax - wa) { wf_bot(r); return; }
            lo[l] = v >> s;
            d = ((v + wa) >> s) - (v >> s);
        }
        if (d > w) w = d;
    }
    wform z;
    wf_from_lanes(&z, lo, nl, n);
    wf_interval(r, &z, w, n);
}

void wf_iv_cvt(wform *r, const wform *a, unsigned sn, unsigned n, bool sgn, bool *nowrap)
{
    wform la, z;
    uint32_t wa;
    if (!wf_low(a, &la, &wa) || !sn || !n || sn > 64 || n > 64) { wf_bot(r); return; }
    if (n > sn && exact(&la)) { /* an extension is exact when no lane's interval crosses the range's end */
        int64_t smax = (int64_t)((1ull << (sn - 1)) - 1);
        unsigned nl = la.kind == WF_LANE ? WF_LANES : 1;
        for (unsigned l = 0; l < nl; l++) {
            uint64_t x = wf_at(&la, l);
            bool over = sgn ? wf_sext(x, sn) > smax - (int64_t)wa : (x & mask(sn)) > mask(sn) - wa;
            if (over) { wf_bot(r); return; }
        }
    } else if (n > sn) *nowrap = true; /* U unknown: under the no-wraparound assumption */
    wf_cvt(&z, &la, sn, n, sgn, nowrap);
    z.sym = 0, z.off = 0;
    if (n <= sn && la.sym && z.k < 64) z.sym = la.sym, z.off = wf_sext((uint64_t)la.off, n);
    wf_interval(r, &z, wa, n);
}
