/* The rules of lane-exact evaluation (lane_value.h): warp_form.c's rules
 * applied to groups of lanes, with the symbols that the warp form has no
 * notion of.  Intervals are the dataflow's (warp_form.h wid): a group's
 * form is then an interval, and only the form's interval rules apply. */
#include "lane_value.h"

lsym lv_derive(ectx *e, lsym a, lsym b, uint32_t tag, int64_t k)
{
    for (uint32_t i = 0; i < e->nkeys; i++)
        if (e->keys[i].a == a && e->keys[i].b == b && e->keys[i].tag == tag && e->keys[i].k == k)
            return SYM_DERIVED + i;
    if (e->nkeys == NSYM) {
        e->overflow = true;
        return SYM_DERIVED + NSYM; /* never equal to a real one; the result is discarded */
    }
    e->keys[e->nkeys] = (symkey){a, b, tag, k};
    return SYM_DERIVED + e->nkeys++;
}

/* ---- the ring rules: warp_form.c's, one group of lanes at a time ----------
 *
 * A group is the lanes where each operand keeps one symbol.  Its lanes are
 * a warp form U' + g(l) with U' = U[s] + v[l0] (l0 the group's first lane)
 * known modulo 2^k when U[s] is, or known when the group has no symbol;
 * add, sub, mul and the meet are then warp_form.c's rules at 64 bits.
 * Which symbol a result has is the dataflow's rule (wf_sym_sum: U - U
 * cancels, U + W is a sum of two roots); this file adds the groups, and
 * a derived unknown where the terms do not fit. */

/* Lanes whose ends are this large might overflow int64 in a sum or a
 * difference: given up (the caller sees e->overflow). */
#define LV_BIG ((int64_t)1 << 60)
static bool lv_big(int64_t x) { return x > LV_BIG || x < -LV_BIG; }

/* grp[l]: the group of lane l, by a's symbol and b's (b NULL: a's alone);
 * the number of groups. */
static uint32_t lv_groups(const lv *a, const lv *b, uint8_t *grp)
{
    uint32_t ng = 0;
    for (uint32_t l = 0; l < a->n; l++) {
        uint32_t j = 0;
        while (j < l && (a->sym[j] != a->sym[l] || (b && b->sym[j] != b->sym[l]))) j++;
        grp[l] = j < l ? grp[j] : (uint8_t)ng++;
    }
    return ng;
}

/* What is known of U' in group gi's form: U[s]'s bits, or all of it
 * without a symbol. */
static unsigned lv_k(const lv *v, uint32_t l0) { return v->sym[l0] ? v->res[l0].k : 64; }

/* The form of group gi of v, first lane l0: U' = U[v->sym[l0]] + v[l0]
 * taken as known to k bits (k = 64: known), g(l) = v[l] - v[l0] in the
 * group and 0 elsewhere, so that the other lanes change nothing; an
 * interval of v's width above that low end. */
static void group_form(const lv *v, const uint8_t *grp, uint8_t gi, uint32_t l0, unsigned k, wform *w)
{
    const int64_t *end = v->v;
    wf_uni(w, (uint64_t)end[l0] + (k < 64 ? v->res[l0].r : 0), k);
    uint64_t any = 0;
    for (uint32_t l = 0; l < WF_LANES; l++) {
        w->g[l] = l < v->n && grp[l] == gi ? (int64_t)((uint64_t)end[l] - (uint64_t)end[l0]) : 0;
        any |= (uint64_t)w->g[l];
    }
    if (any) w->kind = WF_LANE;
    if (v->wid) w->kind = WF_BOT, w->wid = v->wid; /* g is filled for every lane */
}

/* Group gi of r from the rule's result z: v = off0 + g(l) with symbol
 * sym, U[sym] = U' - off0 known to z's bits (keep: U[sym]'s residue is
 * *keep, the rule having changed only bits it knows), or exact; an
 * interval's low end so, its width r's (the same in every group: the
 * operands' widths are). */
static void group_put(const wform *z, const uint8_t *grp, uint8_t gi, int64_t off0, lsym sym,
                      const residue *keep, lv *r)
{
    wform lo;
    if (z->kind == WF_BOT && wf_low(z, &lo, &r->wid)) z = &lo;
    bool ex = z->k == 64;
    residue res = ex ? res_exact(0) : keep ? *keep : res_make((int64_t)(z->r - (uint64_t)off0), z->k);
    for (uint32_t l = 0; l < r->n; l++) {
        if (grp[l] != gi) continue;
        int64_t g = z->kind == WF_LANE ? z->g[l] : 0;
        r->v[l] = ex ? (int64_t)wf_at(z, l) : (int64_t)((uint64_t)off0 + (uint64_t)g);
        r->sym[l] = ex ? 0 : sym;
        r->res[l] = res;
    }
}

/* a ± b: wf_add / wf_sub on each group, the symbols summed by
 * wf_sym_sum (every root cancelled: the U parts are 0, the lanes exact). */
void lv_addsub(ectx *e, const lv *a, const lv *b, bool sub, lv *r)
{
    uint8_t grp[WL_LANES];
    uint32_t ng = lv_groups(a, b, grp);
    bool iv = a->wid || b->wid;
    r->n = a->n;
    r->wid = 0;
    for (uint32_t l = 0; l < a->n; l++)
        if (lv_big(a->v[l]) || lv_big(b->v[l])) e->overflow = true;
    if (e->overflow) {
        lv_const(r, a->n, 0);
        return;
    }
    for (uint32_t gi = 0, l0 = 0; gi < ng; gi++) {
        while (grp[l0] != gi) l0++;
        lsym sa = a->sym[l0], sb = b->sym[l0], sym;
        /* the terms (wf_sym_sum): every root cancelled, the U parts are 0 */
        bool terms = wf_sym_sum(sa, sb, sub, &sym), cancel = terms && !sym;
        wform x, y, z;
        group_form(a, grp, (uint8_t)gi, l0, cancel ? 64 : lv_k(a, l0), &x);
        group_form(b, grp, (uint8_t)gi, l0, cancel ? 64 : lv_k(b, l0), &y);
        if (iv) wf_iv_addsub(&z, &x, &y, 64, sub);
        else (sub ? wf_sub : wf_add)(&z, &x, &y, 64);
        if (z.kind == WF_BOT && !z.wid) e->overflow = true; /* too wide an interval */
        if (!terms) sym = lv_derive(e, sa, sb, sub ? T_SUB : T_ADD, 0);
        int64_t off0 = sub ? a->v[l0] - b->v[l0] - (int64_t)b->wid : a->v[l0] + b->v[l0];
        group_put(&z, grp, (uint8_t)gi, off0, sym, NULL, r);
    }
    r->nonneg = !sub && a->nonneg && b->nonneg;
}

/* a · c: wf_mul by the constant on each symbol's lanes. */
void lv_scale(ectx *e, const lv *a, int64_t c, lv *r)
{
    uint8_t grp[WL_LANES];
    uint32_t ng = lv_groups(a, NULL, grp);
    r->n = a->n;
    r->wid = 0;
    for (uint32_t l = 0; l < a->n; l++) {
        int64_t t;
        if (__builtin_mul_overflow(a->v[l] + (int64_t)a->wid, c, &t) | __builtin_mul_overflow(a->v[l], c, &t))
            e->overflow = true;
    }
    if (e->overflow) {
        lv_const(r, a->n, 0);
        return;
    }
    wform k;
    wf_const(&k, c);
    for (uint32_t gi = 0, l0 = 0; gi < ng; gi++) {
        while (grp[l0] != gi) l0++;
        lsym s = a->sym[l0];
        wform x, z;
        group_form(a, grp, (uint8_t)gi, l0, lv_k(a, l0), &x);
        if (a->wid) wf_iv_scale(&z, &x, c, 64); /* c < 0: the high end is the low */
        else wf_mul(&z, &x, &k, 64);
        if (z.kind == WF_BOT && !z.wid) e->overflow = true;
        lsym sym = !s || !c ? 0 : c == 1 ? s : c == -1 ? wf_sym_negate(s) : lv_derive(e, s, 0, T_MUL, c);
        group_put(&z, grp, (uint8_t)gi, (a->v[l0] + (c < 0 ? (int64_t)a->wid : 0)) * c, sym, NULL, r);
    }
    r->nonneg = (a->nonneg && c >= 0) || c == 0;
}

/* a · b: a constant factor scales; a uniform unknown times exact lanes
 * splits the lanes into groups of equal lane value (U·v is one unknown per
 * v, and 0 when v is exactly 0): wf_mul of the two uniforms U + ku and
 * W + v in each group. */
bool lv_mul(ectx *e, const lv *a, const lv *b, lv *r)
{
    int64_t k;
    if (lv_const_of(b, &k)) return lv_scale(e, a, k, r), true;
    if (lv_const_of(a, &k)) return lv_scale(e, b, k, r), true;
    if (!lv_uniform(a)) {
        const lv *t = a;
        a = b, b = t;
    }
    if (!lv_uniform(a) || b->wid) return false;
    lsym su = a->sym[0];
    int64_t ku = a->v[0];
    r->n = b->n;
    r->wid = 0;
    /* groups: b's symbol and value */
    uint8_t grp[WL_LANES];
    uint32_t ng = 0;
    for (uint32_t l = 0; l < b->n; l++) {
        uint32_t j = 0;
        while (j < l && (b->sym[j] != b->sym[l] || b->v[j] != b->v[l])) j++;
        grp[l] = j < l ? grp[j] : (uint8_t)ng++;
        int64_t t;
        if (__builtin_mul_overflow(ku, b->v[l], &t)) e->overflow = true;
    }
    if (e->overflow) return lv_const(r, b->n, 0), true;
    for (uint32_t gi = 0, l0 = 0; gi < ng; gi++) {
        while (grp[l0] != gi) l0++;
        int64_t v = b->v[l0];
        lsym sym = 0;
        if (b->sym[l0] || v) /* (U + ku)(W + v) - ku·v */
            sym = lv_derive(e, lv_derive(e, su, b->sym[l0], T_MUL, ku), 0, T_MUL, v);
        wform x, y, z;
        group_form(a, grp, (uint8_t)gi, l0, lv_k(a, l0), &x);
        group_form(b, grp, (uint8_t)gi, l0, lv_k(b, l0), &y);
        wf_mul(&z, &x, &y, 64);
        group_put(&z, grp, (uint8_t)gi, ku * v, sym, NULL, r);
    }
    r->nonneg = a->nonneg && b->nonneg;
    return true;
}

static void want_bits(ectx *e, lsym sym, residue r, unsigned k)
{
    if (sym && sym < SYM_DERIVED && r.k < k && !e->need_sym) {
        e->need_sym = sym;
        e->need_k = k;
        e->need_res = r;
    }
}

/* ---- the bit rules: warp_form.c's, one symbol at a time --------------------
 *
 * The lanes of one symbol s are a warp form: U' = U[s] + v[l0]
 * (l0 the symbol's first lane) plus g(l) = v[l] - v[l0], with U' known
 * modulo 2^k when U[s] is; the lanes of other symbols are given l0's
 * value, so that they change nothing.  The U-free exact lanes are one more
 * such form, with everything known.  Shifts, and, or and xor are then
 * warp_form.c's rules at 64 bits (lane values here do not wrap around:
 * a 64-bit arithmetic shift is floor division). */

void lv_rule_sar(wform *r, const wform *a, const wform *b, unsigned n) { wf_shr(r, a, b, n, true); }
void lv_rule_shru(wform *r, const wform *a, const wform *b, unsigned n) { wf_shr(r, a, b, n, false); }

/* Constant folding, and the sign of a value known to be >= 0 (shr.s by
 * n - 1 is 0): the warp form's rule f on a (its constant, else a uniform
 * of a's sign alone) and the constant b.  Only a constant result is
 * taken, and the rules give one from those two facts only, whatever a's
 * lanes hold.  An unsigned result is read zero-extended, as lanes here
 * are read (no wraparound). */
bool lv_fold(const lv *a, int64_t b, unsigned bits, bool sgn, lv_rule f, uint32_t n, lv *out)
{
    wform x, y, r;
    int64_t k;
    if (lv_const_of(a, &k)) wf_const(&x, k);
    else wf_uni(&x, 0, 0), x.nn = a->nonneg;
    wf_const(&y, b);
    f(&r, &x, &y, bits);
    if (!wf_is_const(&r, bits, &k)) return false;
    lv_const(out, n, sgn ? k : (int64_t)lv_zext(k, bits));
    return true;
}

/* Whether v's lanes in group gi are small enough (and, ufree, without a
 * symbol). */
static bool group_exact(const lv *v, const uint8_t *grp, uint8_t gi, bool ufree)
{
    for (uint32_t l = 0; l < v->n; l++)
        if (grp[l] == gi && ((ufree && v->sym[l]) || lv_big(v->v[l]))) return false;
    return true;
}

enum { KEEP_NONE, KEEP_SYM }; /* whether the rule leaves U[s]'s bits above k as they were */

/* r = f(a, b) symbol by symbol, b a constant (bc) or exact U-free lanes
 * (bl).  A result is read back as exact lanes, as lanes of U[s] plus known parts
 * (keep: the rule changed only bits U[s] has known), or of a symbol
 * derived from s.  On a symbol whose form does not split, asks
 * (want_bits) for the fewest more bits of it that would make f exact. */
static bool lv_bitop(ectx *e, const lv *a, const wform *bc, const lv *bl, lv_rule f, int keep, uint32_t tag,
                     int64_t k, lv *r)
{
    uint8_t grp[WL_LANES];
    uint32_t ng = lv_groups(a, NULL, grp);
    if (a->wid || (bl && bl->wid)) return false; /* the bit rules are for exact lanes */
    r->n = a->n;
    r->wid = 0;
    for (uint32_t gi = 0, l0 = 0; gi < ng; gi++) {
        while (grp[l0] != gi) l0++;
        lsym s = a->sym[l0];
        wform x, p, y;
        unsigned kq = lv_k(a, l0);
        if (!group_exact(a, grp, (uint8_t)gi, false) || (bl && !group_exact(bl, grp, (uint8_t)gi, true))) return false;
        group_form(a, grp, (uint8_t)gi, l0, kq, &x);
        if (bl) group_form(bl, grp, (uint8_t)gi, l0, 64, &p);
        f(&y, &x, bl ? &p : bc, 64);
        if (y.kind == WF_UNI || y.kind == WF_LANE) {
            if (keep == KEEP_SYM && s) { /* the bits of U' above kq are U[s]'s */
                uint64_t m = ((uint64_t)1 << kq) - 1, lo0 = (uint64_t)a->v[l0];
                int64_t off0 = (int64_t)(lo0 - ((a->res[l0].r + lo0) & m) + (y.r & m));
                group_put(&y, grp, (uint8_t)gi, off0, s, &a->res[l0], r);
            } else group_put(&y, grp, (uint8_t)gi, (int64_t)y.r, y.k == 64 ? 0 : lv_derive(e, s, 0, tag, k), NULL, r);
            continue;
        }
        for (unsigned kk = kq + 1; s && kk <= RES_KMAX; kk++) {
            group_form(a, grp, (uint8_t)gi, l0, kk, &x);
            f(&y, &x, bl ? &p : bc, 64);
            if (y.kind == WF_UNI || y.kind == WF_LANE) {
                want_bits(e, s, a->res[l0], kk);
                break;
            }
        }
        return false;
    }
    return true;
}

/* floor(a / 2^s): U[sym]'s low s bits must be known */
bool lv_shr_floor(ectx *e, const lv *a, unsigned s, lv *r)
{
    for (uint32_t l = 0; l < a->n; l++)
        if (a->sym[l] && a->res[l].k < s) return want_bits(e, a->sym[l], a->res[l], s), false;
    wform c;
    wf_const(&c, s);
    if (!lv_bitop(e, a, &c, NULL, lv_rule_sar, KEEP_NONE, T_SHR, s, r)) return false;
    r->nonneg = a->nonneg;
    return true;
}

/* a & m (m a constant): exact lanes when m keeps only U's known bits or
 * clears only them (m = -2^j, j <= k).  Otherwise, for m >= 0, the
 * dataflow's interval [0, m] (warp_form.c wf_iv_and) is the answer. */
bool lv_and(ectx *e, const lv *a, int64_t m, lv *r)
{
    for (uint32_t l = 0; l < a->n; l++) {
        unsigned k = a->res[l].k;
        if (!a->sym[l] || (m >= 0 && m < ((int64_t)1 << k))) continue;
        if (m < 0 && !(~(uint64_t)m & (~(uint64_t)m + 1))) {
            unsigned j = (unsigned)__builtin_ctzll((uint64_t)m);
            if (j > k) return want_bits(e, a->sym[l], a->res[l], j), false;
        } else {
            if (m >= 0) want_bits(e, a->sym[l], a->res[l], 64 - (unsigned)__builtin_clzll((uint64_t)m));
            return false;
        }
    }
    wform c;
    wf_const(&c, m);
    if (!lv_bitop(e, a, &c, NULL, wf_and, m < 0 ? KEEP_SYM : KEEP_NONE, 0, 0, r)) return false;
    r->nonneg = m >= 0 || a->nonneg;
    return true;
}

/* a | b (a ^ b) with b exact and U-free in every lane, 0 <= b < 2^k where
 * a has a symbol: U[sym]'s bits above k are kept */
bool lv_or(ectx *e, const lv *a, const lv *b, bool x, lv *r)
{
    for (uint32_t l = 0; l < a->n; l++) {
        if (b->sym[l]) return false;
        if (!a->sym[l]) continue;
        if (b->v[l] < 0) return false;
        unsigned need = 64 - (unsigned)__builtin_clzll((uint64_t)b->v[l] | 1);
        if (a->res[l].k < need) return want_bits(e, a->sym[l], a->res[l], need), false;
    }
    if (!lv_bitop(e, a, NULL, b, x ? wf_xor : wf_or, KEEP_SYM, 0, 0, r)) return false;
    r->nonneg = a->nonneg && b->nonneg;
    return true;
}

/* Both sides with the same lane structure (the same lane values, the same
 * partition of the lanes by symbol): wf_meet of each group's forms keeps
 * the bits of U both sides agree on; a symbol of its own unless both
 * sides have the same. */
bool lv_merge(ectx *e, const lv *a, const lv *b, uint32_t tag, lv *r)
{
    uint8_t grp[WL_LANES];
    if (a->wid != b->wid) return false;
    for (uint32_t l = 0; l < a->n; l++) {
        if (a->v[l] != b->v[l]) return false;
        for (uint32_t j = 0; j < l; j++)
            if ((a->sym[j] == a->sym[l]) != (b->sym[j] == b->sym[l])) return false;
    }
    uint32_t ng = lv_groups(a, NULL, grp);
    r->n = a->n;
    r->wid = 0;
    for (uint32_t gi = 0, l0 = 0; gi < ng; gi++) {
        while (grp[l0] != gi) l0++;
        lsym sa = a->sym[l0], sb = b->sym[l0];
        wform x, y, z;
        group_form(a, grp, (uint8_t)gi, l0, lv_k(a, l0), &x);
        group_form(b, grp, (uint8_t)gi, l0, lv_k(b, l0), &y);
        wf_meet(&z, &x, &y);
        group_put(&z, grp, (uint8_t)gi, a->v[l0], sa == sb ? sa : lv_derive(e, sa, sb, tag, 0), NULL, r);
    }
    r->nonneg = a->nonneg && b->nonneg;
    return true;
}

/* a rem d (d > 0; rounding towards zero when sgn): warp_form.c's rule,
 * at 64 bits, on lanes that are all U-free (and >= 0 unless sgn).  A lane
 * with an unknown has only a bound, the dataflow's interval (wf_iv_rem). */
bool lv_rem(ectx *e, const lv *a, int64_t d, bool sgn, lv *r)
{
    uint8_t grp[WL_LANES] = {0};
    if (a->wid) return false;
    for (uint32_t l = 0; l < a->n; l++)
        if (a->sym[l] || (!sgn && a->v[l] < 0)) return false;
    wform x, c, z;
    group_form(a, grp, 0, 0, 64, &x);
    wf_const(&c, d);
    (sgn ? wf_rems : wf_remu)(&z, &x, &c, 64);
    r->n = a->n;
    r->wid = 0;
    group_put(&z, grp, 0, 0, 0, NULL, r);
    r->nonneg = a->nonneg || !sgn;
    (void)e;
    return true;
}

/* A truncation to n bits (docs/coalescing.md, "Truncation"): the lanes
 * that are U-free take the ISA's value, warp_form.c's wf_cvt (the low n
 * bits), read as the target type (zero-extended when unsigned); the others
 * keep their value, under the no-wraparound assumption every address rule
 * here makes. */
void lv_trunc(ectx *e, lv *a, unsigned n, bool uns)
{
    if (a->wid) return; /* an interval keeps its lanes, under the assumption */
    uint8_t grp[WL_LANES];
    uint32_t l0 = a->n;
    for (uint32_t l = a->n; l-- > 0;) {
        grp[l] = a->sym[l] ? 1 : 0;
        if (!grp[l]) l0 = l;
    }
    if (l0 == a->n) return;
    wform x, z;
    bool nowrap = false;
    group_form(a, grp, 0, l0, 64, &x);
    wf_cvt(&z, &x, 64, n, false, &nowrap);
    group_put(&z, grp, 0, 0, 0, NULL, a);
    for (uint32_t l = 0; l < a->n && uns; l++)
        if (!grp[l]) a->v[l] = (int64_t)lv_zext(a->v[l], n);
    (void)e;
}

/* a / d (d > 0 a constant; rounding towards zero when sgn): warp_form.c's
 * rule on lanes that are all exact and U-free (and >= 0 unless sgn). */
bool lv_div(ectx *e, const lv *a, int64_t d, bool sgn, lv *r)
{
    for (uint32_t l = 0; l < a->n; l++)
        if (a->sym[l] || (!sgn && a->v[l] < 0)) return false;
    if (a->wid) return false;
    wform dc;
    wf_const(&dc, d);
    if (!lv_bitop(e, a, &dc, NULL, sgn ? wf_divs : wf_divu, KEEP_NONE, 0, 0, r)) return false;
    r->nonneg = a->nonneg;
    return true;
}

/* min/max of lanes that are all exact and U-free: warp_form.c's rule
 * decides which operand each lane takes (in the type's order); the lanes
 * keep their values (no wraparound). */
bool lv_minmax(const lv *a, const lv *b, unsigned bits, bool sgn, bool max, lv *r)
{
    for (uint32_t l = 0; l < a->n; l++)
        if (a->sym[l] || b->sym[l]) return false;
    if (a->wid || b->wid) return false;
    uint8_t grp[WL_LANES] = {0};
    wform x, y, z;
    bool nowrap = false;
    group_form(a, grp, 0, 0, 64, &x);
    group_form(b, grp, 0, 0, 64, &y);
    wf_minmax(&z, &x, &y, bits, sgn, max, &nowrap);
    *r = *a;
    for (uint32_t l = 0; l < a->n; l++)
        if (wf_sext(wf_at(&z, l), bits) != wf_sext((uint64_t)a->v[l], bits)) r->v[l] = b->v[l];
    r->nonneg = max ? a->nonneg || b->nonneg : a->nonneg && b->nonneg;
    return true;
}
