/* Lane-exact evaluation (lane_eval.h). */
#include <stdlib.h>
#include <string.h>
#include "addr_refine.h"
#include "lane_eval.h"
#include "warp_form.h"

#define LE_DEPTH 24
#define NSYM 1024
#define SYM_DERIVED 0x40000000u /* symbols below are an SSA value + 1: that value's lane-0 (or uniform) part */

/* One warp's value: lane l is U[sym[l]] + [lo[l], hi[l]]; res[l] is what is
 * known of U[sym[l]] (the same for all lanes of a symbol). */
typedef struct lv {
    uint32_t n;
    int64_t lo[WL_LANES], hi[WL_LANES];
    uint32_t sym[WL_LANES];
    residue res[WL_LANES];
    bool nonneg;
} lv;

/* Derived symbols, per top-level evaluation: the same operation on the
 * same symbols gives the same symbol, in every lane. */
typedef struct symkey {
    uint32_t a, b, tag;
    int64_t k;
} symkey;

typedef struct ectx {
    const addr_chain *c;
    uint32_t wi, nl; /* the warp, its lanes */
    symkey keys[NSYM];
    uint32_t nkeys;
    bool overflow;
    /* a leaf symbol whose residue was too coarse (bit 5 of X0 decides
     * c % 64 for c = tid.x): the warp is re-evaluated once per value of the
     * missing bits (ov_*), each a case of its own */
    uint32_t need_sym;
    unsigned need_k;
    residue need_res;
    uint32_t ov_sym;
    residue ov_res;
    wl_result scratch; /* wl_eval's output, copied out at once */
} ectx;

enum { T_ADD = 1, T_SUB, T_NEG, T_MUL, T_SHR, T_SELP, T_MU };

static uint32_t derive(ectx *e, uint32_t a, uint32_t b, uint32_t tag, int64_t k)
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


static uint64_t zext(int64_t x, unsigned w) { return w >= 64 ? (uint64_t)x : (uint64_t)x & (((uint64_t)1 << w) - 1); }

static void lv_const(lv *a, uint32_t n, int64_t k)
{
    a->n = n;
    for (uint32_t l = 0; l < n; l++) {
        a->lo[l] = a->hi[l] = k;
        a->sym[l] = 0;
        a->res[l] = res_exact(0);
    }
    a->nonneg = k >= 0;
}

static bool lv_exact(const lv *a)
{
    for (uint32_t l = 0; l < a->n; l++)
        if (a->lo[l] != a->hi[l]) return false;
    return true;
}

/* the same value in every lane */
static bool lv_uniform(const lv *a)
{
    for (uint32_t l = 0; l < a->n; l++)
        if (a->lo[l] != a->hi[l] || a->lo[l] != a->lo[0] || a->sym[l] != a->sym[0]) return false;
    return true;
}

static bool lv_const_of(const lv *a, int64_t *k)
{
    if (!a->n || !lv_uniform(a) || a->sym[0]) return false;
    *k = a->lo[0];
    return true;
}

static bool nonneg_rec(const addr_chain *c, uint32_t v, unsigned depth, uint32_t *mus, unsigned nmus);

static bool eval_rec(ectx *e, uint32_t v, lv *out, unsigned depth);

static bool eval_opd(ectx *e, uint32_t st, uint32_t i, lv *out, unsigned depth, uint32_t n)
{
    const ptx_inst *in = &e->c->pf->fn->stmts[st]->u.inst;
    if (i >= in->nopd) return false;
    const ptx_operand *o = &in->opd[i];
    if (o->kind == PTX_O_IMM && o->flags == PTX_IMM_INT) {
        lv_const(out, n, o->v);
        return true;
    }
    if (o->kind != PTX_O_REG && o->kind != PTX_O_SREG) return false;
    uint32_t v = ssa_use_value(e->c->pf->ssa, st, i);
    return v != SSA_NONE && eval_rec(e, v, out, depth + 1);
}

static int64_t imm_of(const ptx_inst *in, uint32_t i, bool *ok)
{
    *ok = i < in->nopd && in->opd[i].kind == PTX_O_IMM && in->opd[i].flags == PTX_IMM_INT;
    return *ok ? in->opd[i].v : 0;
}

/* ---- the ring rules: warp_form.c's, one group of lanes at a time ----------
 *
 * A group is the lanes where each operand keeps one symbol.  Its exact
 * part (each lane's lo, or hi where the rule needs the other end) is a
 * warp form U' + g(l) with U' = U[s] + end[l0] (l0 the group's first lane)
 * known modulo 2^k when U[s] is, or known when the group has no symbol;
 * add, sub, mul and the meet are then warp_form.c's rules at 64 bits.  The
 * intervals ride beside as widths hi - lo >= 0: a sum's widths add, a
 * scaled one scales by |c|, a merge needs them equal.  Which symbol a
 * result has (U - U cancels, U + W is a new one) is this file's: the warp
 * form has one U per value. */

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

/* The form of group gi's ends (hi or lo) of v, first lane l0: U' =
 * U[v->sym[l0]] + end[l0] taken as known to k bits (k = 64: known), g(l)
 * = end[l] - end[l0] in the group and 0 elsewhere, so that the other
 * lanes change nothing. */
static void group_form(const lv *v, bool hi, const uint8_t *grp, uint8_t gi, uint32_t l0, unsigned k, wform *w)
{
    const int64_t *end = hi ? v->hi : v->lo;
    wf_uni(w, (uint64_t)end[l0] + (k < 64 ? v->res[l0].r : 0), k);
    uint64_t any = 0;
    for (uint32_t l = 0; l < WF_LANES; l++) {
        w->g[l] = l < v->n && grp[l] == gi ? (int64_t)((uint64_t)end[l] - (uint64_t)end[l0]) : 0;
        any |= (uint64_t)w->g[l];
    }
    if (any) w->kind = WF_LANE;
}

/* Group gi of r from the rule's result z: lo = off0 + g(l) with symbol
 * sym, U[sym] = U' - off0 known to z's bits (keep: U[sym]'s residue is
 * *keep, the rule having changed only bits it knows), or exact; hi = lo +
 * wid[l] (NULL: 0). */
static void group_put(ectx *e, const wform *z, const uint8_t *grp, uint8_t gi, int64_t off0, uint32_t sym,
                      const residue *keep, const int64_t *wid, lv *r)
{
    bool ex = z->k == 64;
    residue res = ex ? res_exact(0) : keep ? *keep : res_make((int64_t)(z->r - (uint64_t)off0), z->k);
    for (uint32_t l = 0; l < r->n; l++) {
        if (grp[l] != gi) continue;
        int64_t g = z->kind == WF_LANE ? z->g[l] : 0;
        r->lo[l] = ex ? (int64_t)wf_at(z, l) : (int64_t)((uint64_t)off0 + (uint64_t)g);
        if (__builtin_add_overflow(r->lo[l], wid ? wid[l] : 0, &r->hi[l])) e->overflow = true;
        r->sym[l] = ex ? 0 : sym;
        r->res[l] = res;
    }
}

/* a ± b: wf_add / wf_sub on each group's ends (a's lo with b's lo, or with
 * b's hi for a difference); the same symbol on both sides of a
 * difference cancels. */
static void lv_addsub(ectx *e, const lv *a, const lv *b, bool sub, lv *r)
{
    uint8_t grp[WL_LANES];
    int64_t wid[WL_LANES];
    uint32_t ng = lv_groups(a, b, grp);
    r->n = a->n;
    for (uint32_t l = 0; l < a->n; l++) {
        if (lv_big(a->lo[l]) || lv_big(a->hi[l]) || lv_big(b->lo[l]) || lv_big(b->hi[l])) e->overflow = true;
        wid[l] = (a->hi[l] - a->lo[l]) + (b->hi[l] - b->lo[l]);
    }
    if (e->overflow) {
        lv_const(r, a->n, 0);
        return;
    }
    for (uint32_t gi = 0, l0 = 0; gi < ng; gi++) {
        while (grp[l0] != gi) l0++;
        uint32_t sa = a->sym[l0], sb = b->sym[l0], sym;
        bool cancel = sub && sa == sb;
        wform x, y, z;
        group_form(a, false, grp, (uint8_t)gi, l0, cancel ? 64 : lv_k(a, l0), &x);
        group_form(b, sub, grp, (uint8_t)gi, l0, cancel ? 64 : lv_k(b, l0), &y);
        (sub ? wf_sub : wf_add)(&z, &x, &y, 64);
        if (cancel || !sb) sym = cancel ? 0 : sa;
        else if (!sa && !sub) sym = sb;
        else if (!sa) sym = derive(e, sb, 0, T_NEG, 0);
        else sym = derive(e, sa, sb, sub ? T_SUB : T_ADD, 0);
        int64_t off0 = sub ? a->lo[l0] - b->hi[l0] : a->lo[l0] + b->lo[l0];
        group_put(e, &z, grp, (uint8_t)gi, off0, sym, NULL, wid, r);
    }
    r->nonneg = !sub && a->nonneg && b->nonneg;
}

/* a · c: wf_mul by the constant on each symbol's ends (hi for c < 0,
 * which becomes the lower end). */
static void lv_scale(ectx *e, const lv *a, int64_t c, lv *r)
{
    uint8_t grp[WL_LANES];
    int64_t wid[WL_LANES];
    uint32_t ng = lv_groups(a, NULL, grp);
    r->n = a->n;
    for (uint32_t l = 0; l < a->n; l++) {
        int64_t t;
        if (__builtin_mul_overflow(a->lo[l], c, &t) | __builtin_mul_overflow(a->hi[l], c, &t) |
            __builtin_mul_overflow(a->hi[l] - a->lo[l], c < 0 ? -c : c, &wid[l]))
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
        uint32_t s = a->sym[l0];
        wform x, z;
        group_form(a, c < 0, grp, (uint8_t)gi, l0, lv_k(a, l0), &x);
        wf_mul(&z, &x, &k, 64);
        uint32_t sym = !s || !c ? 0 : c == 1 ? s : derive(e, s, 0, T_MUL, c);
        group_put(e, &z, grp, (uint8_t)gi, (c < 0 ? a->hi[l0] : a->lo[l0]) * c, sym, NULL, wid, r);
    }
    r->nonneg = (a->nonneg && c >= 0) || c == 0;
}

/* a · b: a constant factor scales; a uniform unknown times exact lanes
 * splits the lanes into groups of equal lane value (U·v is one unknown per
 * v, and 0 when v is exactly 0): wf_mul of the two uniforms U + ku and
 * W + v in each group. */
static bool lv_mul(ectx *e, const lv *a, const lv *b, lv *r)
{
    int64_t k;
    if (lv_const_of(b, &k)) return lv_scale(e, a, k, r), true;
    if (lv_const_of(a, &k)) return lv_scale(e, b, k, r), true;
    if (!lv_uniform(a)) {
        const lv *t = a;
        a = b, b = t;
    }
    if (!lv_uniform(a) || !lv_exact(b)) return false;
    uint32_t su = a->sym[0];
    int64_t ku = a->lo[0];
    r->n = b->n;
    /* groups: b's symbol and value */
    uint8_t grp[WL_LANES];
    uint32_t ng = 0;
    for (uint32_t l = 0; l < b->n; l++) {
        uint32_t j = 0;
        while (j < l && (b->sym[j] != b->sym[l] || b->lo[j] != b->lo[l])) j++;
        grp[l] = j < l ? grp[j] : (uint8_t)ng++;
        int64_t t;
        if (__builtin_mul_overflow(ku, b->lo[l], &t)) e->overflow = true;
    }
    if (e->overflow) return lv_const(r, b->n, 0), true;
    for (uint32_t gi = 0, l0 = 0; gi < ng; gi++) {
        while (grp[l0] != gi) l0++;
        int64_t v = b->lo[l0];
        uint32_t sym = 0;
        if (b->sym[l0] || v) /* (U + ku)(W + v) - ku·v */
            sym = derive(e, derive(e, su, b->sym[l0], T_MUL, ku), 0, T_MUL, v);
        wform x, y, z;
        group_form(a, false, grp, (uint8_t)gi, l0, lv_k(a, l0), &x);
        group_form(b, false, grp, (uint8_t)gi, l0, lv_k(b, l0), &y);
        wf_mul(&z, &x, &y, 64);
        group_put(e, &z, grp, (uint8_t)gi, ku * v, sym, NULL, NULL, r);
    }
    r->nonneg = a->nonneg && b->nonneg;
    return true;
}

static void want_bits(ectx *e, uint32_t sym, residue r, unsigned k)
{
    if (sym && sym < SYM_DERIVED && r.k < k && !e->need_sym) {
        e->need_sym = sym;
        e->need_k = k;
        e->need_res = r;
    }
}

/* ---- the bit rules: warp_form.c's, one symbol at a time --------------------
 *
 * The lanes of one symbol s, exact, are a warp form: U' = U[s] + lo[l0]
 * (l0 the symbol's first lane) plus g(l) = lo[l] - lo[l0], with U' known
 * modulo 2^k when U[s] is; the lanes of other symbols are given l0's
 * value, so that they change nothing.  The U-free exact lanes are one more
 * such form, with everything known.  Shifts, and, or and xor are then
 * warp_form.c's rules at 64 bits (lane values here do not wrap around:
 * a 64-bit arithmetic shift is floor division). */

typedef void (*wf_rule)(wform *r, const wform *a, const wform *b, unsigned n);

static void wf_sar(wform *r, const wform *a, const wform *b, unsigned n) { wf_shr(r, a, b, n, true); }
static void wf_shru(wform *r, const wform *a, const wform *b, unsigned n) { wf_shr(r, a, b, n, false); }

/* Constant folding, and the sign of a value known to be >= 0 (shr.s by
 * n - 1 is 0): the warp form's rule f on a (its constant, else a uniform
 * of a's sign alone) and the constant b.  Only a constant result is
 * taken, and the rules give one from those two facts only, whatever a's
 * lanes hold.  An unsigned result is read zero-extended, as lanes here
 * are read (no wraparound). */
static bool lv_fold(const lv *a, int64_t b, unsigned bits, bool sgn, wf_rule f, uint32_t n, lv *out)
{
    wform x, y, r;
    int64_t k;
    if (lv_const_of(a, &k)) wf_const(&x, k);
    else wf_uni(&x, 0, 0), x.nn = a->nonneg;
    wf_const(&y, b);
    f(&r, &x, &y, bits);
    if (!wf_is_const(&r, bits, &k)) return false;
    lv_const(out, n, sgn ? k : (int64_t)zext(k, bits));
    return true;
}

/* Whether v's lanes in group gi are exact (and, ufree, without a symbol). */
static bool group_exact(const lv *v, const uint8_t *grp, uint8_t gi, bool ufree)
{
    for (uint32_t l = 0; l < v->n; l++)
        if (grp[l] == gi && (v->lo[l] != v->hi[l] || (ufree && v->sym[l]) || lv_big(v->lo[l]))) return false;
    return true;
}

enum { KEEP_NONE, KEEP_SYM }; /* whether the rule leaves U[s]'s bits above k as they were */

/* r = f(a, b) symbol by symbol, b a constant (bc) or exact U-free lanes
 * (bl); intervals only in U-free lanes of a shift (ival: monotone).  A
 * result is read back as exact lanes, as lanes of U[s] plus known parts
 * (keep: the rule changed only bits U[s] has known), or of a symbol
 * derived from s.  On a symbol whose form does not split, asks
 * (want_bits) for the fewest more bits of it that would make f exact. */
static bool lv_bitop(ectx *e, const lv *a, const wform *bc, const lv *bl, wf_rule f, int keep, uint32_t tag,
                     int64_t k, bool ival, lv *r)
{
    uint8_t grp[WL_LANES];
    uint32_t ng = lv_groups(a, NULL, grp);
    r->n = a->n;
    for (uint32_t gi = 0, l0 = 0; gi < ng; gi++) {
        while (grp[l0] != gi) l0++;
        uint32_t s = a->sym[l0];
        if (!s && ival) { /* U-free lanes of a shift by k: floor of each end */
            for (uint32_t l = l0; l < a->n; l++)
                if (!a->sym[l]) r->lo[l] = a->lo[l] >> k, r->hi[l] = a->hi[l] >> k, r->sym[l] = 0, r->res[l] = res_exact(0);
            continue;
        }
        wform x, p, y;
        unsigned kq = lv_k(a, l0);
        if (!group_exact(a, grp, (uint8_t)gi, false) || (bl && !group_exact(bl, grp, (uint8_t)gi, true))) return false;
        group_form(a, false, grp, (uint8_t)gi, l0, kq, &x);
        if (bl) group_form(bl, false, grp, (uint8_t)gi, l0, 64, &p);
        f(&y, &x, bl ? &p : bc, 64);
        if (y.kind == WF_UNI || y.kind == WF_LANE) {
            if (keep == KEEP_SYM && s) { /* the bits of U' above kq are U[s]'s */
                uint64_t m = ((uint64_t)1 << kq) - 1, lo0 = (uint64_t)a->lo[l0];
                int64_t off0 = (int64_t)(lo0 - ((a->res[l0].r + lo0) & m) + (y.r & m));
                group_put(e, &y, grp, (uint8_t)gi, off0, s, &a->res[l0], NULL, r);
            } else group_put(e, &y, grp, (uint8_t)gi, (int64_t)y.r, y.k == 64 ? 0 : derive(e, s, 0, tag, k), NULL, NULL, r);
            continue;
        }
        for (unsigned kk = kq + 1; s && kk <= RES_KMAX; kk++) {
            group_form(a, false, grp, (uint8_t)gi, l0, kk, &x);
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
static bool lv_shr_floor(ectx *e, const lv *a, unsigned s, lv *r)
{
    for (uint32_t l = 0; l < a->n; l++)
        if (a->sym[l] && a->res[l].k < s) return want_bits(e, a->sym[l], a->res[l], s), false;
    wform c;
    wf_const(&c, s);
    if (!lv_bitop(e, a, &c, NULL, wf_sar, KEEP_NONE, T_SHR, s, true, r)) return false;
    r->nonneg = a->nonneg;
    return true;
}

/* a & m (m a constant): exact lanes when m keeps only U's known bits or
 * clears only them (m = -2^j, j <= k); else, for m >= 0, the bound
 * 0 <= x & m <= m of any x */
static bool lv_and(ectx *e, const lv *a, bool have, int64_t m, lv *r, uint32_t n)
{
    bool ok = have;
    for (uint32_t l = 0; l < n && ok; l++) {
        unsigned k = a->res[l].k;
        if (a->lo[l] != a->hi[l]) ok = false;
        else if (!a->sym[l] || (m >= 0 && m < ((int64_t)1 << k))) continue;
        else if (m < 0 && !(~(uint64_t)m & (~(uint64_t)m + 1))) {
            unsigned j = (unsigned)__builtin_ctzll((uint64_t)m);
            if (j > k) want_bits(e, a->sym[l], a->res[l], j), ok = false;
        } else {
            if (m >= 0) want_bits(e, a->sym[l], a->res[l], 64 - (unsigned)__builtin_clzll((uint64_t)m));
            ok = false;
        }
    }
    wform c;
    wf_const(&c, m);
    if (ok && lv_bitop(e, a, &c, NULL, wf_and, m < 0 ? KEEP_SYM : KEEP_NONE, 0, 0, false, r)) {
        r->nonneg = m >= 0 || a->nonneg;
        return true;
    }
    if (m < 0) return false;
    r->n = n;
    r->nonneg = true;
    for (uint32_t l = 0; l < n; l++) { /* any x: 0 <= x & m <= m */
        r->lo[l] = 0;
        r->hi[l] = m;
        r->sym[l] = 0;
        r->res[l] = res_exact(0);
    }
    return true;
}

/* a | b (a ^ b) with b exact and U-free in every lane, 0 <= b < 2^k where
 * a has a symbol: U[sym]'s bits above k are kept */
static bool lv_or(ectx *e, const lv *a, const lv *b, bool x, lv *r)
{
    for (uint32_t l = 0; l < a->n; l++) {
        if (b->sym[l] || b->lo[l] != b->hi[l] || a->lo[l] != a->hi[l]) return false;
        if (!a->sym[l]) continue;
        if (b->lo[l] < 0) return false;
        unsigned need = 64 - (unsigned)__builtin_clzll((uint64_t)b->lo[l] | 1);
        if (a->res[l].k < need) return want_bits(e, a->sym[l], a->res[l], need), false;
    }
    if (!lv_bitop(e, a, NULL, b, x ? wf_xor : wf_or, KEEP_SYM, 0, 0, false, r)) return false;
    r->nonneg = a->nonneg && b->nonneg;
    return true;
}

/* Both sides with the same lane structure (the same intervals, the same
 * partition of the lanes by symbol): wf_meet of each group's forms keeps
 * the bits of U both sides agree on; a symbol of its own unless both
 * sides have the same. */
static bool lv_merge(ectx *e, const lv *a, const lv *b, uint32_t tag, lv *r)
{
    uint8_t grp[WL_LANES];
    int64_t wid[WL_LANES];
    for (uint32_t l = 0; l < a->n; l++) {
        if (a->lo[l] != b->lo[l] || a->hi[l] != b->hi[l]) return false;
        for (uint32_t j = 0; j < l; j++)
            if ((a->sym[j] == a->sym[l]) != (b->sym[j] == b->sym[l])) return false;
        wid[l] = a->hi[l] - a->lo[l];
    }
    uint32_t ng = lv_groups(a, NULL, grp);
    r->n = a->n;
    for (uint32_t gi = 0, l0 = 0; gi < ng; gi++) {
        while (grp[l0] != gi) l0++;
        uint32_t sa = a->sym[l0], sb = b->sym[l0];
        wform x, y, z;
        group_form(a, false, grp, (uint8_t)gi, l0, lv_k(a, l0), &x);
        group_form(b, false, grp, (uint8_t)gi, l0, lv_k(b, l0), &y);
        wf_meet(&z, &x, &y);
        group_put(e, &z, grp, (uint8_t)gi, a->lo[l0], sa == sb ? sa : derive(e, sa, sb, tag, 0), NULL, wid, r);
    }
    r->nonneg = a->nonneg && b->nonneg;
    return true;
}

/* a rem d (d > 0; rounding towards zero when sgn): warp_form.c's rule on
 * the lanes that are exact and U-free (and >= 0 unless sgn), at 64 bits;
 * elsewhere the bound [0, d - 1] for a >= 0 (nn), else [-(d - 1), d - 1]. */
static void lv_rem(ectx *e, const lv *a, int64_t d, bool sgn, bool nn, lv *r)
{
    uint8_t grp[WL_LANES];
    uint32_t l0 = a->n;
    for (uint32_t l = a->n; l-- > 0;) {
        grp[l] = !a->sym[l] && a->lo[l] == a->hi[l] && (sgn || a->lo[l] >= 0) ? 0 : 1;
        if (!grp[l]) l0 = l;
    }
    r->n = a->n;
    r->nonneg = nn;
    for (uint32_t l = 0; l < a->n; l++)
        if (grp[l]) r->lo[l] = nn ? 0 : -(d - 1), r->hi[l] = d - 1, r->sym[l] = 0, r->res[l] = res_exact(0);
    if (l0 == a->n) return;
    wform x, c, z;
    group_form(a, false, grp, 0, l0, 64, &x);
    wf_const(&c, d);
    (sgn ? wf_rems : wf_remu)(&z, &x, &c, 64);
    group_put(e, &z, grp, 0, 0, 0, NULL, NULL, r);
}

/* A truncation to n bits (docs/coalescing.md, "Truncation"): the lanes
 * that are exact and U-free take the ISA's value, warp_form.c's wf_cvt
 * (the low n bits), read as the target type (zero-extended when
 * unsigned); the others keep their value, under the no-wraparound
 * assumption every address rule here makes. */
static void lv_trunc(ectx *e, lv *a, unsigned n, bool uns)
{
    uint8_t grp[WL_LANES];
    uint32_t l0 = a->n;
    for (uint32_t l = a->n; l-- > 0;) {
        grp[l] = !a->sym[l] && a->lo[l] == a->hi[l] ? 0 : 1;
        if (!grp[l]) l0 = l;
    }
    if (l0 == a->n) return;
    wform x, z;
    bool nowrap = false;
    group_form(a, false, grp, 0, l0, 64, &x);
    wf_cvt(&z, &x, 64, n, false, &nowrap);
    group_put(e, &z, grp, 0, 0, 0, NULL, NULL, a);
    for (uint32_t l = 0; l < a->n && uns; l++)
        if (!grp[l]) a->lo[l] = a->hi[l] = (int64_t)zext(a->lo[l], n);
}

/* The instruction defining the value used as operand i of st (NULL: an
 * immediate, or none). */
static const ptx_inst *opd_def(const addr_chain *c, uint32_t st, uint32_t i, uint32_t *v, uint32_t *dst)
{
    const ptx_inst *in = &c->pf->fn->stmts[st]->u.inst;
    if (i >= in->nopd || in->opd[i].kind != PTX_O_REG) return NULL;
    *v = ssa_use_value(c->pf->ssa, st, i);
    if (*v == SSA_NONE || c->pf->ssa->values[*v].partial) return NULL;
    return addr_def(c, *v, dst);
}

/* nvcc's remainder by a constant d: sub r, x, (mul.lo (add h', (shr.u32 h',
 * 31)), d) with h' = mul.hi.s32 x, M (optionally shr.s32 by s), M the
 * magic number of d: 2^(32+s) <= M·d <= 2^(32+s) + 2^(s+1).  Then for
 * 0 <= x < 2^31 the quotient is floor(x/d) (the error term x·(M·d -
 * 2^(32+s)) / (d·2^(32+s)) stays below 1/d) and r = x mod d, in [0, d).
 * *x gets x's value. */
static bool magic_rem(const addr_chain *c, uint32_t st, const ptx_inst *in, uint32_t *x, int64_t *d)
{
    uint32_t v, mst, ast, hst, tst;
    const ptx_inst *mul = opd_def(c, st, 2, &v, &mst);
    if (in->op != PTX_OPC_SUB || ptx_type_bits(in->type) != 32 || !mul || mul->op != PTX_OPC_MUL ||
        !ptx_inst_has_mod(mul, ".lo") || mul->nopd != 3 || mul->opd[2].kind != PTX_O_IMM || mul->opd[2].v <= 1)
        return false;
    *d = mul->opd[2].v;
    const ptx_inst *add = opd_def(c, mst, 1, &v, &ast);
    if (!add || add->op != PTX_OPC_ADD || add->nopd != 3) return false;
    uint32_t hv, sv;
    const ptx_inst *h = opd_def(c, ast, 1, &hv, &hst), *sh = opd_def(c, ast, 2, &sv, &tst);
    if (!h || !sh || sh->op != PTX_OPC_SHR || sh->nopd != 3 || sh->opd[2].kind != PTX_O_IMM || sh->opd[2].v != 31 ||
        ssa_use_value(c->pf->ssa, tst, 1) != hv)
        return false;
    int64_t s = 0;
    if (h->op == PTX_OPC_SHR) { /* the optional post-shift */
        if (h->type != PTX_T_S32 || h->nopd != 3 || h->opd[2].kind != PTX_O_IMM || h->opd[2].v < 0 ||
            h->opd[2].v > 31)
            return false;
        s = h->opd[2].v;
        h = opd_def(c, hst, 1, &hv, &hst);
    }
    if (!h || h->op != PTX_OPC_MUL || !ptx_inst_has_mod(h, ".hi") || h->type != PTX_T_S32 || h->nopd != 3 ||
        h->opd[2].kind != PTX_O_IMM || h->opd[2].v <= 0)
        return false;
    *x = ssa_use_value(c->pf->ssa, hst, 1);
    if (*x == SSA_NONE || ssa_use_value(c->pf->ssa, st, 1) != *x) return false;
    __int128 md = (__int128)h->opd[2].v * *d, p = (__int128)1 << (32 + s);
    return md >= p && md <= p + ((__int128)1 << (s + 1));
}

/* The value from the affine polynomial, when its lanes are exact. */
static bool eval_leaf(ectx *e, uint32_t v, lv *out)
{
    const addr_chain *c = e->c;
    aff p;
    addr_refine(c, v, &p);
    if (!addr_poly_lane_exact(c, &p)) return false;
    wl_eval(&p, &c->shape, c->res[v], &e->scratch);
    if (e->scratch.status != WL_EXACT || e->wi >= e->scratch.nwarps) return false;
    const wl_warp *w = &e->scratch.warp[e->wi];
    /* c0 + cl·laneid with everything known: no unknown at all */
    bool pure = !p.bot;
    for (unsigned i = 1; i < p.n && pure; i++)
        if (i != DIV_C_LANE && p.c[i]) pure = false;
    out->n = w->nlanes;
    for (uint32_t l = 0; l < w->nlanes; l++) {
        if (__builtin_add_overflow(w->off[l], pure ? p.c[0] : 0, &out->lo[l])) return false;
        out->hi[l] = out->lo[l];
        out->sym[l] = pure ? 0 : v + 1;
        out->res[l] = pure ? res_exact(0) : v + 1 == e->ov_sym ? e->ov_res : w->base;
    }
    out->nonneg = lane_nonneg(c, v);
    return true;
}

/* The value from its warp form (warp_form.h), when that says more than
 * the polynomial: U + g(lane) with g exact, U known (a constant: no
 * symbol) or a symbol of which the form knows the low bits. */
static bool eval_warp_form(ectx *e, uint32_t v, lv *out)
{
    const addr_chain *c = e->c;
    wform wf;
    if (!div_warp_form(c->r, v, &wf) || (wf.kind != WF_LANE && !(wf.kind == WF_UNI && wf.k == 64))) return false;
    bool pure = wf.k == 64;
    residue u = res_make((int64_t)wf.r, wf.k);
    out->n = e->nl;
    for (uint32_t l = 0; l < e->nl; l++) {
        int64_t g = wf.kind == WF_LANE ? wf.g[l] : 0;
        if (__builtin_add_overflow(g, pure ? (int64_t)wf.r : 0, &out->lo[l])) return false;
        out->hi[l] = out->lo[l];
        out->sym[l] = pure ? 0 : v + 1;
        out->res[l] = pure ? res_exact(0) : v + 1 == e->ov_sym ? e->ov_res : u;
    }
    out->nonneg = wf.nn || lane_nonneg(c, v);
    return true;
}

static bool eval_mu(ectx *e, uint32_t v, lv *out, unsigned depth);

static bool eval_inst(ectx *e, uint32_t v, lv *out, unsigned depth)
{
    const addr_chain *c = e->c;
    uint32_t st;
    const ptx_inst *in = addr_def(c, v, &st);
    if (!in || c->pf->ssa->values[v].partial || c->pf->ssa->refs[c->pf->ssa->values[v].ref].opd != 0) return false;
    if (!ptx_type_is_int(in->type)) return false;
    uint32_t n = e->nl;
    unsigned bits = ptx_type_bits(in->type);
    bool ok;
    lv a, b, t;
    switch (in->op) {
    case PTX_OPC_MOV:
        return eval_opd(e, st, 1, out, depth, n);
    case PTX_OPC_CVT:
        if (!ptx_type_is_int(in->type2) || ptx_inst_has_mod(in, ".sat") || !eval_opd(e, st, 1, out, depth, n)) return false;
        if (ptx_type_bits(in->type2) > bits) lv_trunc(e, out, bits, ptx_type_is_unsigned(in->type));
        out->nonneg = out->nonneg || (ptx_type_is_unsigned(in->type) && ptx_type_bits(in->type2) > bits);
        return true;
    case PTX_OPC_ADD:
    case PTX_OPC_SUB: {
        if (in->nopd != 3 || ptx_inst_has_mod(in, ".sat") || ptx_inst_has_mod(in, ".cc")) return false;
        uint32_t x;
        int64_t d;
        if (magic_rem(c, st, in, &x, &d) && lane_nonneg(c, x)) { /* x % d for x >= 0 */
            if (!eval_rec(e, x, &a, depth + 1)) return false;
            lv_rem(e, &a, d, true, true, out);
            return true;
        }
    }
        if (!eval_opd(e, st, 1, &a, depth, n) || !eval_opd(e, st, 2, &b, depth, n)) return false;
        lv_addsub(e, &a, &b, in->op == PTX_OPC_SUB, out);
        return true;
    case PTX_OPC_MUL:
    case PTX_OPC_MAD:
        if (ptx_inst_has_mod(in, ".hi") || ptx_inst_has_mod(in, ".cc")) return false;
        if (!eval_opd(e, st, 1, &a, depth, n) || !eval_opd(e, st, 2, &b, depth, n)) return false;
        if (!lv_mul(e, &a, &b, &t)) return false;
        if (in->op == PTX_OPC_MUL) return *out = t, true;
        if (!eval_opd(e, st, 3, &a, depth, n)) return false;
        lv_addsub(e, &t, &a, false, out);
        return true;
    case PTX_OPC_SHL: {
        int64_t s = imm_of(in, 2, &ok);
        if (!ok || s < 0 || s >= 62 || !eval_opd(e, st, 1, &a, depth, n)) return false;
        lv_scale(e, &a, (int64_t)1 << s, out);
        return true;
    }
    case PTX_OPC_SHR: {
        int64_t s = imm_of(in, 2, &ok);
        if (!ok || s < 0 || s >= (int64_t)bits) return false;
        uint32_t x;
        unsigned sh;
        if (addr_sext_idiom(c, st, &x, &sh)) { /* (int64)(int32)x << sh, no wraparound */
            if (!eval_rec(e, x, &a, depth + 1)) return false;
            lv_scale(e, &a, (int64_t)1 << sh, out);
            return true;
        }
        if (!eval_opd(e, st, 1, &a, depth, n)) return false;
        bool sgn = ptx_type_is_signed(in->type);
        /* a constant, or the sign of a value >= 0 (nvcc's signed-division idiom) */
        if (lv_fold(&a, s, bits, sgn, sgn ? wf_sar : wf_shru, n, out)) return true;
        /* an unsigned shift is floor division for values >= 0 only */
        if (!sgn && !a.nonneg) return false;
        return lv_shr_floor(e, &a, (unsigned)s, out);
    }
    case PTX_OPC_AND: {
        int64_t m = imm_of(in, 2, &ok);
        if (!ok) m = imm_of(in, 1, &ok);
        if (!ok) return false;
        m = wf_sext((uint64_t)m, bits);
        bool have = eval_opd(e, st, in->opd[1].kind == PTX_O_IMM ? 2 : 1, &a, depth, n);
        return lv_and(e, &a, have, m, out, n);
    }
    case PTX_OPC_OR:
    case PTX_OPC_XOR: {
        if (in->nopd != 3 || !eval_opd(e, st, 1, &a, depth, n) || !eval_opd(e, st, 2, &b, depth, n)) return false;
        bool x = in->op == PTX_OPC_XOR;
        return lv_or(e, &a, &b, x, out) || lv_or(e, &b, &a, x, out);
    }
    case PTX_OPC_DIV:
    case PTX_OPC_REM: {
        int64_t d = imm_of(in, 2, &ok);
        if (!ok || d <= 0 || !eval_opd(e, st, 1, &a, depth, n)) return false;
        bool sgn = ptx_type_is_signed(in->type), nn = a.nonneg || !sgn;
        wf_rule f = in->op == PTX_OPC_DIV ? sgn ? wf_divs : wf_divu : sgn ? wf_rems : wf_remu;
        if (lv_fold(&a, d, bits, sgn, f, n, out)) return true;
        bool pow2 = !(d & (d - 1));
        if (nn && a.nonneg && pow2) { /* floor = truncation for x >= 0 */
            if (in->op == PTX_OPC_DIV) return lv_shr_floor(e, &a, (unsigned)__builtin_ctzll((uint64_t)d), out);
            return lv_and(e, &a, true, d - 1, out, n);
        }
        if (in->op == PTX_OPC_REM) return lv_rem(e, &a, d, sgn, nn, out), true; /* rem.u is in [0, d) whatever the sign */
        for (uint32_t l = 0; l < n; l++) /* U-free exact lanes only */
            if (a.sym[l] || a.lo[l] != a.hi[l] || (!sgn && a.lo[l] < 0)) return false;
        wform dc;
        wf_const(&dc, d);
        if (!lv_bitop(e, &a, &dc, NULL, f, KEEP_NONE, 0, 0, false, out)) return false;
        out->nonneg = a.nonneg;
        return true;
    }
    case PTX_OPC_MIN:
    case PTX_OPC_MAX: {
        /* warp_form.c's rule on U-free exact lanes decides which operand
         * each lane takes; the lanes keep their values (no wraparound) */
        if (in->nopd != 3 || !eval_opd(e, st, 1, &a, depth, n) || !eval_opd(e, st, 2, &b, depth, n)) return false;
        for (uint32_t l = 0; l < n; l++)
            if (a.sym[l] || b.sym[l] || a.lo[l] != a.hi[l] || b.lo[l] != b.hi[l]) return false;
        uint8_t grp[WL_LANES] = {0};
        wform x, y, z;
        bool nowrap = false;
        group_form(&a, false, grp, 0, 0, 64, &x);
        group_form(&b, false, grp, 0, 0, 64, &y);
        wf_minmax(&z, &x, &y, bits, ptx_type_is_signed(in->type), in->op == PTX_OPC_MAX, &nowrap);
        *out = a;
        for (uint32_t l = 0; l < n; l++)
            if (wf_sext(wf_at(&z, l), bits) != wf_sext((uint64_t)a.lo[l], bits)) out->lo[l] = out->hi[l] = b.lo[l];
        out->nonneg = in->op == PTX_OPC_MIN ? a.nonneg && b.nonneg : a.nonneg || b.nonneg;
        return true;
    }
    case PTX_OPC_SELP: {
        uint32_t p = ssa_use_value(c->pf->ssa, st, 3);
        if (p == SSA_NONE || !addr_pred_warp_uniform(c, p)) return false;
        if (!eval_opd(e, st, 1, &a, depth, n) || !eval_opd(e, st, 2, &b, depth, n)) return false;
        return lv_merge(e, &a, &b, T_SELP, out);
    }
    default: return false;
    }
}

/* A loop mu, when every back edge brings back its lane structure (j =
 * start + lane; j += 32): the mu is then a new unknown plus the entry's
 * lane parts, in every iteration. */
#define MAX_MU 4
/* per thread: batches analyse files in parallel (report/batch.h) */
static _Thread_local uint32_t mu_v[MAX_MU];
static _Thread_local lv mu_val[MAX_MU];
static _Thread_local unsigned nmu;

static bool eval_mu(ectx *e, uint32_t v, lv *out, unsigned depth)
{
    const addr_chain *c = e->c;
    const ssa_func *s = c->pf->ssa;
    if (!c->pf->gsa || s->values[v].kind != SSA_V_PHI) return false;
    for (unsigned i = 0; i < nmu; i++)
        if (mu_v[i] == v) return *out = mu_val[i], true;
    const ssa_node *nd = &s->nodes[s->values[v].node];
    const gsa_node *gn = &c->pf->gsa->nodes[s->values[v].node];
    const cfg *g = c->pf->g;
    const cfg_block *b = &g->blocks[nd->block];
    if (gn->kind != GSA_MU || gn->irreducible || nd->nargs != b->npred || nmu == MAX_MU) return false;
    lv init, x, r;
    bool have = false;
    for (uint32_t i = 0; i < nd->nargs; i++) {
        if (nd->args[i] == SSA_NONE || cfg_is_back_edge(g, b->pred[i], nd->block)) continue;
        if (!eval_rec(e, nd->args[i], &x, depth + 1)) return false;
        if (!have) init = x, have = true;
        else if (!lv_merge(e, &init, &x, T_MU, &r)) return false;
        else init = r;
    }
    if (!have) return false;
    /* the mu: U_mu + the entry's lane parts, one symbol per entry symbol */
    lv mu = init;
    for (uint32_t l = 0; l < init.n; l++) {
        mu.sym[l] = derive(e, v + 1, init.sym[l], T_MU, 0);
        mu.res[l] = init.res[l];
    }
    mu.nonneg = lane_nonneg(c, v);
    /* the back edges must bring U_mu' + the same lane parts, U_mu' - U_mu
     * the same in all lanes of a group; U_mu's residue is the fixed point
     * of the meet over the iterations */
    bool ok = true, changed = true;
    for (unsigned round = 0; ok && changed && round <= RES_KMAX + 1; round++) {
        changed = false;
        mu_v[nmu] = v;
        mu_val[nmu] = mu;
        nmu++;
        residue rr[WL_LANES];
        memcpy(rr, mu.res, sizeof rr);
        for (uint32_t i = 0; i < nd->nargs && ok; i++) {
            if (nd->args[i] == SSA_NONE || !cfg_is_back_edge(g, b->pred[i], nd->block)) continue;
            if (!eval_rec(e, nd->args[i], &x, depth + 1)) {
                ok = false;
                break;
            }
            for (uint32_t l = 0; l < x.n && ok; l++) {
                int64_t d = x.lo[l] - mu.lo[l];
                if (x.hi[l] - x.lo[l] != mu.hi[l] - mu.lo[l]) ok = false;
                for (uint32_t j = 0; j < l && ok; j++)
                    if ((x.sym[j] == x.sym[l]) != (mu.sym[j] == mu.sym[l]) ||
                        (mu.sym[j] == mu.sym[l] && x.lo[j] - mu.lo[j] != d))
                        ok = false;
                rr[l] = res_meet(rr[l], res_add(x.res[l], res_exact(d)));
            }
        }
        nmu--;
        for (uint32_t l = 0; l < mu.n && ok; l++)
            if (!res_eq(rr[l], mu.res[l])) changed = true, mu.res[l] = rr[l];
    }
    if (!ok || changed) return false;
    *out = mu;
    return true;
}

static bool eval_rec(ectx *e, uint32_t v, lv *out, unsigned depth)
{
    if (depth > LE_DEPTH || e->overflow) return false;
    if (eval_warp_form(e, v, out) || eval_leaf(e, v, out)) return true;
    return e->c->pf->ssa->values[v].kind == SSA_V_PHI ? eval_mu(e, v, out, depth) : eval_inst(e, v, out, depth);
}

enum le_status lane_eval(const addr_chain *c, uint32_t v, le_result *out, wl_result *w)
{
    ectx *e = calloc(1, sizeof *e);
    if (!e) abort();
    e->c = c;
    aff zero;
    aff_const(&zero, c->r->ncoef, 0);
    wl_eval(&zero, &c->shape, res_exact(0), w);
    out->nwarps = w->nwarps;
    out->status = LE_EXACT;
    nmu = 0;
    uint32_t nreal = out->nwarps, nv = 0; /* real warps, virtual (case) warps */
    lv *cases = malloc(sizeof *cases * WL_MAXWARPS);
    if (!cases) abort();
    for (uint32_t wi = 0; wi < nreal && out->status != LE_FAIL; wi++) {
        e->wi = wi;
        e->nl = w->warp[wi].nlanes;
        e->nkeys = 0;
        e->overflow = false;
        e->need_sym = e->ov_sym = 0;
        lv x;
        bool got = eval_rec(e, v, &x, 0) && !e->overflow && x.n == e->nl;
        /* one split on the missing bits of one symbol, at most 8 cases;
         * for a bounded result only when every case comes out exact */
        unsigned d = e->need_sym ? e->need_k - e->need_res.k : 0;
        bool split = e->need_sym && d <= 3 && nv + (1u << d) <= WL_MAXWARPS && (!got || !lv_exact(&x));
        if (split) {
            uint32_t sym = e->need_sym, nv0 = nv;
            residue r0 = e->need_res;
            unsigned k = e->need_k;
            lv y;
            for (uint32_t j = 0; j < 1u << d && split; j++) {
                e->nkeys = 0;
                e->overflow = false;
                e->need_sym = 0;
                e->ov_sym = sym;
                e->ov_res = res_make((int64_t)r0.r + ((int64_t)j << r0.k), k);
                if (eval_rec(e, v, &y, 0) && !e->overflow && y.n == e->nl && (!got || lv_exact(&y))) cases[nv++] = y;
                else split = false;
            }
            e->ov_sym = 0;
            if (split) continue;
            nv = nv0;
        }
        if (!got || nv == WL_MAXWARPS) {
            out->status = LE_FAIL;
            break;
        }
        cases[nv++] = x;
    }
    out->nwarps = w->nwarps = nv;
    for (uint32_t wi = 0; wi < nv && out->status != LE_FAIL; wi++) {
        const lv *x = &cases[wi];
        uint32_t nl = x->n;
        le_warp *o = &out->warp[wi];
        o->nlanes = nl;
        memcpy(o->lo, x->lo, sizeof x->lo[0] * nl);
        memcpy(o->hi, x->hi, sizeof x->hi[0] * nl);
        memcpy(o->sym, x->sym, sizeof x->sym[0] * nl);
        o->base = nl ? x->res[0] : res_exact(0);
        bool exact = lv_exact(x), one = true;
        for (uint32_t l = 0; l < nl; l++) one &= x->sym[l] == x->sym[0];
        if (!exact && !one) out->status = LE_FAIL;
        else if (!exact) out->status = out->status == LE_GROUPS ? LE_FAIL : LE_RANGE;
        else if (!one) out->status = out->status == LE_RANGE ? LE_FAIL : LE_GROUPS;
    }
    free(cases);
    free(e);
    if (out->status == LE_FAIL || out->status == LE_RANGE) return out->status;
    /* as warp_lanes would give it */
    w->status = out->status == LE_EXACT ? WL_EXACT : WL_SYMBOLIC;
    w->sym_monos = w->pos_monos = 0;
    for (uint32_t wi = 0; wi < out->nwarps; wi++) {
        const le_warp *o = &out->warp[wi];
        wl_warp *ww = &w->warp[wi];
        ww->nlanes = o->nlanes;
        ww->ngroups = 0;
        for (uint32_t l = 0; l < o->nlanes; l++) {
            ww->off[l] = o->lo[l] - o->lo[0];
            uint32_t g = ww->ngroups;
            for (uint32_t j = 0; j < l; j++)
                if (o->sym[j] == o->sym[l]) {
                    g = ww->group[j];
                    break;
                }
            if (g == ww->ngroups) ww->ngroups++;
            ww->group[l] = (uint8_t)g;
        }
        ww->base = res_add(o->base, res_exact(o->nlanes ? o->lo[0] : 0));
    }
    return out->status;
}

/* ---- signs ------------------------------------------------------------------ */

static bool opd_nonneg(const addr_chain *c, uint32_t st, uint32_t i, unsigned depth, uint32_t *mus, unsigned nmus)
{
    const ptx_inst *in = &c->pf->fn->stmts[st]->u.inst;
    if (i >= in->nopd) return false;
    const ptx_operand *o = &in->opd[i];
    if (o->kind == PTX_O_IMM) return o->flags == PTX_IMM_INT && o->v >= 0;
    if (o->kind == PTX_O_SREG) return true; /* %tid, %ntid, %ctaid, %laneid, ...: unsigned */
    if (o->kind != PTX_O_REG) return false;
    return nonneg_rec(c, ssa_use_value(c->pf->ssa, st, i), depth + 1, mus, nmus);
}

static bool nonneg_rec(const addr_chain *c, uint32_t v, unsigned depth, uint32_t *mus, unsigned nmus)
{
    if (v == SSA_NONE || depth > LE_DEPTH) return false;
    const ssa_func *s = c->pf->ssa;
    const ssa_value *val = &s->values[v];
    if (val->kind == SSA_V_SREG) return true;
    /* the warp form's sign (warp_form.h, nn), where the form knows v; the
     * recursion below only for what it does not prove */
    wform wf;
    if (div_warp_form(c->r, v, &wf) && (wf.kind == WF_UNI || wf.kind == WF_LANE) && wf.nn) return true;
    if (val->kind == SSA_V_PHI) {
        /* by induction: every entry value is >= 0, and every back edge is,
         * assuming the mu is */
        for (unsigned i = 0; i < nmus; i++)
            if (mus[i] == v) return true;
        if (nmus >= MAX_MU || !c->pf->gsa) return false;
        const ssa_node *nd = &s->nodes[val->node];
        if (c->pf->gsa->nodes[val->node].irreducible) return false;
        mus[nmus] = v;
        for (uint32_t i = 0; i < nd->nargs; i++)
            if (nd->args[i] != SSA_NONE && !nonneg_rec(c, nd->args[i], depth + 1, mus, nmus + 1)) return false;
        return true;
    }
    uint32_t st;
    const ptx_inst *in = addr_def(c, v, &st);
    if (!in || val->partial || s->refs[val->ref].opd != 0) return false;
    bool sgn = ptx_type_is_signed(in->type);
#define NN(i) opd_nonneg(c, st, (i), depth, mus, nmus)
    switch (in->op) {
    case PTX_OPC_MOV: return NN(1);
    case PTX_OPC_CVT:
        if (!ptx_type_is_int(in->type) || !ptx_type_is_int(in->type2)) return false;
        return NN(1) || (ptx_type_is_unsigned(in->type) && ptx_type_bits(in->type2) > ptx_type_bits(in->type));
    case PTX_OPC_ADD:
        if (ptx_inst_has_mod(in, ".cc")) return false;
        return NN(1) && NN(2);
    case PTX_OPC_MUL:
        if (ptx_inst_has_mod(in, ".hi")) return false;
        return NN(1) && NN(2);
    case PTX_OPC_MAD:
        if (ptx_inst_has_mod(in, ".hi") || ptx_inst_has_mod(in, ".cc")) return false;
        return NN(1) && NN(2) && NN(3);
    case PTX_OPC_SHL: return NN(1);
    case PTX_OPC_SHR:
        return !sgn ? in->nopd == 3 && in->opd[2].kind == PTX_O_IMM && in->opd[2].v > 0 : NN(1);
    case PTX_OPC_AND: return NN(1) || NN(2);
    case PTX_OPC_OR:
    case PTX_OPC_MIN: return NN(1) && NN(2);
    case PTX_OPC_MAX: return NN(1) || NN(2);
    case PTX_OPC_DIV:
    case PTX_OPC_REM: return !sgn || (NN(1) && NN(2));
    case PTX_OPC_SELP: return NN(1) && NN(2);
    default: return false;
    }
#undef NN
}

bool lane_nonneg(const addr_chain *c, uint32_t v)
{
    uint32_t mus[MAX_MU];
    return nonneg_rec(c, v, 0, mus, 0);
}
