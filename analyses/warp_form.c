/* The arithmetic of warp forms (warp_form.h): each PTX integer operation
 * on v(l) = U + g(l), exact modulo 2^n.  The ISA semantics each rule
 * relies on are cited next to it; docs/divergence.md lists them. */
#include "warp_form.h"
#include "residue.h"
#include "warp_form_int.h"
#include <stdio.h>
#include <string.h>


void wf_top(wform *a) { a->kind = WF_TOP, a->k = 0, a->r = 0, a->nn = 0, a->sym = 0, a->off = 0, a->wid = 0, a->tab = 0; }

void wf_lane(wform *a, int64_t c, uint64_t r, unsigned k)
{
    wf_uni(a, r, k);
    if (!c) return;
    a->kind = WF_LANE;
    uint64_t x = 0; /* l·c, by additions: SSE2 has no 64-bit multiply */
    for (unsigned l = 0; l < WF_LANES; l++, x += (uint64_t)c) a->g[l] = (int64_t)x;
}

bool wf_is_uniform(const wform *a) { return a->kind == WF_UNI; }

bool wf_is_const(const wform *a, unsigned n, int64_t *c)
{
    if (a->kind != WF_UNI || a->k != 64) return false;
    *c = wf_sext(a->r, n);
    return true;
}

bool wf_is_linear(const wform *a, int64_t *c)
{
    if (a->kind != WF_LANE) return false;
    /* the last lane first: a table that is not linear mostly shows it
     * there (a mask, a wrap, a row of lanes), not at lane 2 */
    uint64_t c1 = (uint64_t)a->g[1], x = c1, bad = 0;
    if ((uint64_t)a->g[WF_LANES - 1] != c1 * (WF_LANES - 1)) return false;
    /* then the others, with no early exit: the loop vectorises */
    for (unsigned l = 2; l < WF_LANES; l++) x += c1, bad |= (uint64_t)a->g[l] ^ x;
    if (bad) return false;
    *c = a->g[1];
    return true;
}

bool wf_equal(const wform *a, const wform *b)
{
    if (a->kind != b->kind || a->k != b->k || a->r != b->r || a->nn != b->nn || a->sym != b->sym || a->off != b->off)
        return false;
    if (is_iv(a) || is_iv(b)) return a->wid == b->wid && !memcmp(a->g, b->g, sizeof a->g);
    return a->kind != WF_LANE || !memcmp(a->g, b->g, sizeof a->g);
}

/* The or of src's lanes, and (*wide) that of each plus 2^31, 0 above bit 31
 * when every lane is a 32-bit number; the lanes copied into dst on the way
 * unless dst is src or NULL: one pass where a check and a copy were two. */
static inline __attribute__((always_inline)) uint64_t scan_lanes(int64_t *dst, const int64_t *src, uint64_t *wide)
{
    uint64_t any = 0, w = 0;
    if (dst && dst != src)
        for (unsigned l = 0; l < WF_LANES; l++)
            dst[l] = src[l], any |= (uint64_t)src[l], w |= (uint64_t)src[l] + 0x80000000u;
    else
        for (unsigned l = 0; l < WF_LANES; l++) any |= (uint64_t)src[l], w |= (uint64_t)src[l] + 0x80000000u;
    *wide = w;
    return any;
}

uint32_t wf_tab_bits(const int64_t *g)
{
    uint64_t wide, any = scan_lanes(NULL, g, &wide);
    if (g[0] || !any) return 0;
    return WF_TAB_G64 | (wide >> 32 ? 0 : WF_TAB_G32);
}

/* Brings a result to normal form for width n: g wrapped to n bits with
 * g(0) = 0 (its old g(0) moved into U), U's known bits capped at n (all n
 * known: exact), g = 0 a uniform value.  fix_from takes a WF_LANE's table
 * from s (an operand: one pass, where a copy and then fix were two; NULL:
 * a->g), and with it s's interned table where it copies the table
 * unchanged (warp_form.h tab). */
static __attribute__((noinline)) void fix_lanes(wform *a, const wform *s, unsigned n)
{
    /* a new U: whatever moved it keeps the symbol itself (wf_sym_addsub) */
    a->sym = 0, a->off = 0;
    if (a->kind != WF_LANE) return; /* ⊤ or ⊥: fix_from brings a uniform form itself */
    /* s's table keeps its index where it is copied unchanged below; one
     * the caller wrote into a->g has none */
    const int64_t *src = s ? s->g : a->g;
    uint32_t stab = s ? s->tab : 0;
    a->tab = 0;
    unsigned sh = 64 - (n ? n : 64); /* sign extension from n bits: shift up, then back */
    uint64_t wide;
    if (stab & (!sh ? WF_TAB_G64 : n == 32 ? WF_TAB_G32 : 0)) { /* normal at n bits already */
        if (src != a->g) memcpy(a->g, src, sizeof a->g);
        a->tab = stab;
    } else if (!sh && !src[0]) { /* 64 bits, g(0) = 0: only whether g vanishes */
        if (!scan_lanes(a->g, src, &wide)) a->kind = WF_UNI;
        a->tab = stab;
    } else if (n == 32) { /* the common width: one sign extension a lane */
        uint64_t g0 = (uint64_t)src[0], any = 0;
        /* g(0) = 0 and every lane a 32-bit number already (an operand's
         * table, mostly): the check is cheaper than the extension, which
         * reads src again where it fails (src is a->g, untouched, or a
         * table apart from it) */
        if (!g0) {
            any = scan_lanes(a->g, src, &wide);
            if (!(wide >> 32)) {
                if (!any) a->kind = WF_UNI;
                a->tab = stab;
                goto lanes_done;
            }
            any = 0;
        }
        for (unsigned l = 0; l < WF_LANES; l++) {
            /* (x mod 2^32) read as signed, in and/xor/sub: SSE2 has no
             * 64-bit arithmetic shift, and vectorises this shorter */
            int64_t d = (int64_t)((((uint64_t)src[l] - g0) & 0xffffffffu) ^ 0x80000000u) - 0x80000000;
            a->g[l] = d;
            any |= (uint64_t)d;
        }
        a->r += g0;
        if (!any) a->kind = WF_UNI;
    } else {
        uint64_t g0 = (uint64_t)src[0], any = 0;
        for (unsigned l = 0; l < WF_LANES; l++) {
            int64_t d = (int64_t)(((uint64_t)src[l] - g0) << sh) >> sh;
            a->g[l] = d;
            any |= (uint64_t)d;
        }
        a->r += g0;
        if (!any) a->kind = WF_UNI;
    }
lanes_done:
    if (a->k >= n) a->k = 64;
    if (a->k == 64) {
        a->r = (uint64_t)((int64_t)(a->r << sh) >> sh);
        /* an exact value: its sign is known */
        uint64_t neg = a->r; /* the sign bits of every lane, or-ed: no early exit, so it vectorises */
        if (a->kind == WF_LANE)
            for (unsigned l = 0; l < WF_LANES; l++) neg |= (a->r + (uint64_t)a->g[l]) << sh;
        a->nn = !(neg >> 63);
    } else a->r &= mask(a->k);
}

/* fix_from: a uniform form inline (most results: a few instructions), a
 * lane table out of line. */
static inline __attribute__((always_inline)) void fix_from(wform *a, const wform *s, unsigned n)
{
    if (a->kind != WF_UNI) { fix_lanes(a, s, n); return; }
    a->sym = 0, a->off = 0;
    if (a->k >= n) a->k = 64;
    if (a->k == 64) {
        unsigned sh = 64 - (n ? n : 64);
        a->r = (uint64_t)((int64_t)(a->r << sh) >> sh);
        a->nn = !(a->r >> 63);
    } else a->r &= mask(a->k);
}

static void fix(wform *a, unsigned n) { fix_from(a, NULL, n); }
void wf_fix(wform *a, unsigned n) { fix(a, n); }

/* The meet where one side is an interval (warp_iv.c): the meet of the low
 * ends with the larger width. */
static void meet_iv(wform *r, const wform *a, const wform *b)
{
    wform la, lb, m;
    uint32_t wa, wb;
    uint8_t nn = a->nn && b->nn;
    if (!wf_low(a, &la, &wa) || !wf_low(b, &lb, &wb)) { wf_bot(r); return; }
    wf_meet(&m, &la, &lb); /* ⊥ unless the lane tables agree */
    wf_interval(r, &m, wa > wb ? wa : wb, 64);
    r->nn = nn;
}

/* wf_meet of two uniform or two varying forms: out of line, so that
 * wf_meet's other cases (most calls) save no register. */
static __attribute__((noinline)) void meet_forms(wform *r, const wform *a, const wform *b)
{
    if (a->kind == WF_LANE && memcmp(a->g, b->g, sizeof a->g)) {
        wf_bot(r);
        return;
    }
    uint8_t nn = a->nn && b->nn, k;
    uint64_t u;
    wf_meet_bits(a->r, a->k, b->r, b->k, &u, &k);
    bool same = a->sym == b->sym && a->off == b->off;
    assign(r, a);
    r->k = k, r->r = u, r->nn = nn;
    if (!same) r->sym = 0, r->off = 0;
}

void wf_meet(wform *r, const wform *a, const wform *b)
{
    if (a->kind == WF_TOP) { copy_iv(r, b); return; }
    if (b->kind == WF_TOP) { copy_iv(r, a); return; }
    if (is_iv(a) || is_iv(b)) { meet_iv(r, a, b); return; }
    if (a->kind == WF_BOT || b->kind == WF_BOT || a->kind != b->kind) { wf_bot(r); return; }
    meet_forms(r, a, b);
}

void wf_meet_bits(uint64_t ra, unsigned ka, uint64_t rb, unsigned kb, uint64_t *r, uint8_t *k)
{
    *k = (uint8_t)kb_agree(ra, ka, rb, kb);
    *r = ra & mask(*k);
}

void wf_from_lanes(wform *r, const uint64_t *vals, unsigned nl, unsigned n)
{
    r->k = 64, r->wid = 0;
    if (nl == 1) {
        r->kind = WF_UNI;
        r->r = vals[0];
    } else {
        r->kind = WF_LANE;
        r->r = 0;
        for (unsigned l = 0; l < WF_LANES; l++) r->g[l] = (int64_t)vals[l];
    }
    fix(r, n);
}

void wf_add(wform *r, const wform *a, const wform *b, unsigned n)
{
    if (strict2(r, a, b)) return;
    uint8_t k = (uint8_t)kmin(a->k, b->k), nn = a->nn && b->nn, kind = a->kind == WF_LANE || b->kind == WF_LANE ? WF_LANE : WF_UNI;
    uint64_t u = a->r + b->r;
    const wform *g = NULL; /* the lane table's, normalised into r->g by fix_from */
    if (a->kind == WF_LANE && b->kind == WF_LANE) /* element by element: r may be a or b */
        for (unsigned l = 0; l < WF_LANES; l++) r->g[l] = (int64_t)((uint64_t)a->g[l] + (uint64_t)b->g[l]);
    else if (a->kind == WF_LANE) g = a;
    else if (b->kind == WF_LANE) g = b;
    r->kind = kind, r->k = k, r->r = u, r->nn = nn, r->wid = 0;
    fix_from(r, g, n);
}

void wf_neg(wform *r, const wform *a, unsigned n)
{
    if (a->kind == WF_TOP || a->kind == WF_BOT) { assign(r, a); return; }
    r->kind = a->kind, r->k = a->k, r->r = 0 - a->r, r->nn = 0;
    if (a->kind == WF_LANE)
        for (unsigned l = 0; l < WF_LANES; l++) r->g[l] = (int64_t)(0 - (uint64_t)a->g[l]);
    fix(r, n);
}

void wf_sub(wform *r, const wform *a, const wform *b, unsigned n)
{
    wform nb;
    wf_neg(&nb, b, n);
    wf_add(r, a, &nb, n);
}

/* not.bN: ~v = -v - 1 in two's complement. */
void wf_not(wform *r, const wform *a, unsigned n)
{
    wform one;
    wf_const(&one, 1);
    wf_neg(r, a, n);
    wf_sub(r, r, &one, n);
}

/* a · c for a known c: U·c is known modulo 2^(k + tz(c)). */
static void scale(wform *r, const wform *a, uint64_t c, unsigned n)
{
    unsigned k = a->k == 64 ? 64 : a->k + kb_tz(c, 64);
    r->kind = a->kind, r->k = (uint8_t)(k > 64 ? 64 : k), r->r = a->r * c, r->nn = a->nn && (int64_t)c >= 0;
    if (a->kind == WF_LANE && c && !(c & (c - 1))) { /* shl, index scaling: a shift vectorises, a multiply not */
        unsigned s = (unsigned)__builtin_ctzll(c);
        for (unsigned l = 0; l < WF_LANES; l++) r->g[l] = (int64_t)((uint64_t)a->g[l] << s);
    } else if (a->kind == WF_LANE)
        for (unsigned l = 0; l < WF_LANES; l++) r->g[l] = (int64_t)((uint64_t)a->g[l] * c);
    fix(r, n);
}

void wf_mul(wform *r, const wform *a, const wform *b, unsigned n)
{
    int64_t c;
    if (wf_is_const(b, 64, &c) && a->kind != WF_TOP) { if (a->kind == WF_BOT) wf_bot(r); else scale(r, a, (uint64_t)c, n); return; }
    if (wf_is_const(a, 64, &c) && b->kind != WF_TOP) { if (b->kind == WF_BOT) wf_bot(r); else scale(r, b, (uint64_t)c, n); return; }
    if (strict2(r, a, b)) return;
    if (exact(a) && exact(b)) {
        uint64_t v[WF_LANES];
        unsigned nl = lanes2(a, b);
        for (unsigned l = 0; l < nl; l++) v[l] = wf_at(a, l) * wf_at(b, l);
        wf_from_lanes(r, v, nl, n);
        return;
    }
    if (a->kind == WF_UNI && b->kind == WF_UNI) {
        unsigned k = kb_mul(a->r, a->k, b->r, b->k);
        wf_uni(r, a->r * b->r, k);
        r->nn = a->nn && b->nn;
        fix(r, n);
        return;
    }
    wf_bot(r); /* a lane-varying factor times an unknown uniform one */
}

/* The split of a (see warp_form.h): the smallest b ≤ min(k, n) such that
 * h(l) = (U mod 2^b) + g(l) lies in [0, 2^b) for every lane; -1 if none. */
static int split(const wform *a, unsigned n)
{
    if (a->kind != WF_UNI && a->kind != WF_LANE) return -1;
    int64_t gmin = 0, gmax = 0;
    if (a->kind == WF_LANE) {
        lane_range(a, &gmin, &gmax);
        if (gmin > 0) gmin = 0; /* the range counts 0 in */
        if (gmax < 0) gmax = 0;
    }
    unsigned top = a->k < n ? a->k : n;
    if (top > 62) top = 62; /* an exact value needs no split; keep the sums in range */
    for (unsigned b = range_bits(gmin, gmax); b <= top; b++) {
        int64_t rb = (int64_t)(a->r & mask(b));
        if (rb + gmin >= 0 && rb + gmax < (int64_t)1 << b) return (int)b;
    }
    return -1;
}

/* Applies a per-lane operation to exact operands. */
typedef uint64_t (*lane_op)(uint64_t x, uint64_t y, unsigned n, bool sgn);

static void lanewise(wform *r, const wform *a, const wform *b, unsigned n, bool sgn, lane_op f)
{
    uint64_t v[WF_LANES];
    unsigned nl = lanes2(a, b);
    for (unsigned l = 0; l < nl; l++) v[l] = f(wf_at(a, l) & mask(n), wf_at(b, l) & mask(n), n, sgn);
    wf_from_lanes(r, v, nl, n);
}

/* shr.bN by c: the ISA clamps shift amounts above N to N. */
static uint64_t op_shr(uint64_t x, uint64_t c, unsigned n, bool sgn)
{
    if (c >= n) c = n - 1 + !sgn; /* logical: 0; arithmetic: the sign everywhere */
    if (c >= 64) return 0;
    return sgn ? (uint64_t)(wf_sext(x, n) >> c) : x >> c;
}
static uint64_t op_and(uint64_t x, uint64_t y, unsigned n, bool sgn) { (void)n, (void)sgn; return x & y; }
static uint64_t op_or(uint64_t x, uint64_t y, unsigned n, bool sgn) { (void)n, (void)sgn; return x | y; }
static uint64_t op_xor(uint64_t x, uint64_t y, unsigned n, bool sgn) { (void)n, (void)sgn; return x ^ y; }
/* div/rem by 0 are unspecified in the ISA: no exact answer.  div.s and
 * rem.s round towards zero; x / -1 is -x modulo 2^n (no C overflow). */
static uint64_t op_div(uint64_t x, uint64_t y, unsigned n, bool sgn)
{
    if (!y) return 0;
    if (!sgn) return x / y;
    int64_t sy = wf_sext(y, n);
    return sy == -1 ? 0 - x : (uint64_t)(wf_sext(x, n) / sy);
}
static uint64_t op_rem(uint64_t x, uint64_t y, unsigned n, bool sgn)
{
    if (!y) return 0;
    if (!sgn) return x % y;
    int64_t sy = wf_sext(y, n);
    return sy == -1 ? 0 : (uint64_t)(wf_sext(x, n) % sy);
}

void wf_shl(wform *r, const wform *a, const wform *s, unsigned n)
{
    int64_t c;
    if (strict2(r, a, s)) return;
    if (!wf_is_const(s, 64, &c)) {
        if (a->kind == WF_UNI && s->kind == WF_UNI) wf_uni(r, 0, 0);
        else wf_bot(r);
        return;
    }
    if (!wf_shl_factor((uint64_t)c, n)) { wf_const(r, 0); return; }
    scale(r, a, (uint64_t)wf_shl_factor((uint64_t)c, n), n);
    r->nn = a->nn; /* no wraparound */
}

void wf_shr(wform *r, const wform *a, const wform *s, unsigned n, bool sgn)
{
    int64_t c;
    if (strict2(r, a, s)) return;
    if (exact(a) && exact(s)) { lanewise(r, a, s, n, sgn, op_shr); return; }
    if (!wf_is_const(s, 64, &c)) {
        if (a->kind == WF_UNI && s->kind == WF_UNI) wf_uni(r, 0, 0);
        else wf_bot(r);
        return;
    }
    if (a->nn) sgn = false; /* the sign bit is 0: shr.s is shr.u */
    c = (int64_t)wf_shr_amount((uint64_t)c, n, sgn);
    if (c >= 64 || (!sgn && (uint64_t)c >= n) || (a->nn && (uint64_t)c >= n - 1)) { wf_const(r, 0); return; }
    unsigned k = a->k > (unsigned)c ? a->k - (unsigned)c : 0;
    uint8_t nn = !sgn ? c > 0 || a->nn : a->nn;
    if (a->kind == WF_UNI) { /* the known low bits move down */
        wf_uni(r, a->r >> c, k);
        r->nn = nn;
        fix(r, n);
        return;
    }
    int b = split(a, n);
    if (b < 0) { wf_bot(r); return; }
    /* v = H·2^b + h(l), 0 ≤ h < 2^b, no carry between them: v >> c is
     * (U >> c) + (h(l) >> c) - (h(0) >> c) for c < b, and U >> c for c ≥ b
     * (for shr.s too: the sign is among H's bits) */
    wform x;
    wf_uni(&x, a->r >> c, k);
    x.nn = nn;
    if (c < b) {
        x.kind = WF_LANE;
        int64_t h0 = low_part(a, (unsigned)b, 0) >> c;
        for (unsigned l = 0; l < WF_LANES; l++) x.g[l] = (low_part(a, (unsigned)b, l) >> c) - h0;
    }
    fix(&x, n);
    *r = x;
}

/* and/or/xor with a known mask m: the low part takes the operation lane by
 * lane, the high part (U's bits) as a uniform value; a result bit is known
 * where U's bit is known or where m forces it (0 for and, 1 for or). */
static void bitop_const(wform *r, const wform *a, uint64_t m, unsigned n, lane_op f)
{
    m &= mask(n);
    uint64_t forced = f == op_and ? ~m & mask(n) : f == op_or ? m : 0;
    /* known bits of the result: below U's k, and then every bit the mask
     * forces (the residue keeps the run from bit 0 to the first unknown) */
    unsigned k = a->k >= n ? 64 : a->k;
    if (k < 64) {
        /* the run of forced bits from k up */
        uint64_t free = ~(forced >> k);
        k += free ? (unsigned)__builtin_ctzll(free) : 64 - k;
        if (k >= n) k = 64;
    }
    uint64_t kn = a->k >= 64 ? ~0ull : mask(a->k);
    uint64_t u = (f(a->r, m, n, false) & kn) | (f == op_or ? m & ~kn : 0);
    bool mnn = n >= 64 ? (int64_t)m >= 0 : !(m >> (n - 1) & 1);
    uint8_t nn = f == op_and ? a->nn || mnn : a->nn && mnn;
    if (a->kind == WF_UNI) {
        wf_uni(r, u, k);
        r->nn = nn;
        fix(r, n);
        return;
    }
    /* and with a mask inside U's known bits: each lane's result is its
     * known low bits, r + g(l) (mod 2^k), masked; no split needed */
    if (f == op_and && a->k < 64 && !(m & ~mask(a->k))) {
        uint64_t v[WF_LANES];
        for (unsigned l = 0; l < WF_LANES; l++) v[l] = (a->r + (uint64_t)a->g[l]) & m;
        wf_from_lanes(r, v, WF_LANES, n);
        r->nn = nn;
        return;
    }
    /* v = H·2^b + h(l): f acts on h lane by lane and on H as a uniform
     * value; h(0) = U mod 2^b, so U' = f(U, m) */
    int b = split(a, n);
    if (b < 0) { wf_bot(r); return; }
    uint64_t mlo = m & mask((unsigned)b), lo = mask((unsigned)b), rb = a->r & lo;
    /* f on each lane's low part rb + g(l), less lane 0's, written over r
     * (which may be a: lane l reads only a's lane l), the operator chosen
     * once outside the loop (f is op_and, op_or or op_xor: bitop) */
    uint64_t h0 = f(rb + (uint64_t)a->g[0], mlo, n, false) & lo;
    if (f == op_and)
        for (unsigned l = 0; l < WF_LANES; l++) r->g[l] = (int64_t)((((rb + (uint64_t)a->g[l]) & mlo) & lo) - h0);
    else if (f == op_or)
        for (unsigned l = 0; l < WF_LANES; l++) r->g[l] = (int64_t)((((rb + (uint64_t)a->g[l]) | mlo) & lo) - h0);
    else
        for (unsigned l = 0; l < WF_LANES; l++) r->g[l] = (int64_t)((((rb + (uint64_t)a->g[l]) ^ mlo) & lo) - h0);
    r->kind = WF_LANE, r->k = (uint8_t)k, r->r = u, r->nn = nn, r->wid = 0;
    fix(r, n);
}

/* and/or/xor with an exact operand p(l) that varies: at a split b of a
 * above which every lane's p has the same bits, f acts on h(l) and p(l)'s
 * low bits lane by lane (the result stays below 2^b: no carry) and on U
 * and p's common high bits as a uniform value; U's known bits stay known. */
static void bitop_lanes(wform *r, const wform *a, const wform *p, unsigned n, lane_op f)
{
    int b = split(a, n);
    unsigned top = a->k < n ? a->k : n;
    if (top > 62) top = 62;
    for (; b >= 0 && (unsigned)b <= top; b++) {
        uint64_t hi = (wf_at(p, 0) & mask(n)) >> b;
        unsigned l = 1;
        while (l < WF_LANES && (wf_at(p, l) & mask(n)) >> b == hi) l++;
        if (l == WF_LANES) break;
    }
    if (b < 0 || (unsigned)b > top) { wf_bot(r); return; }
    uint64_t lo = mask((unsigned)b), h0 = f((uint64_t)low_part(a, (unsigned)b, 0), wf_at(p, 0) & lo, n, false);
    bool pnn = true;
    wform x;
    for (unsigned l = 0; l < WF_LANES; l++) {
        x.g[l] = (int64_t)(f((uint64_t)low_part(a, (unsigned)b, l), wf_at(p, l) & lo, n, false) - h0);
        pnn = pnn && (n >= 64 ? (int64_t)wf_at(p, l) >= 0 : !(wf_at(p, l) >> (n - 1) & 1));
    }
    x.kind = WF_LANE;
    x.k = a->k;
    x.r = f(a->r, wf_at(p, 0), n, false) & mask(a->k);
    x.nn = f == op_and ? a->nn || pnn : a->nn && pnn;
    fix(&x, n);
    *r = x;
}

static void bitop(wform *r, const wform *a, const wform *b, unsigned n, lane_op f)
{
    int64_t c;
    if (strict2(r, a, b)) return;
    if (exact(a) && exact(b)) { /* lanewise, the operator chosen outside the loop */
        uint64_t v[WF_LANES], m = mask(n);
        unsigned nl = lanes2(a, b);
        if (f == op_and)
            for (unsigned l = 0; l < nl; l++) v[l] = wf_at(a, l) & wf_at(b, l) & m;
        else if (f == op_or)
            for (unsigned l = 0; l < nl; l++) v[l] = (wf_at(a, l) | wf_at(b, l)) & m;
        else
            for (unsigned l = 0; l < nl; l++) v[l] = (wf_at(a, l) ^ wf_at(b, l)) & m;
        wf_from_lanes(r, v, nl, n);
        return;
    }
    if (wf_is_const(b, 64, &c)) { bitop_const(r, a, (uint64_t)c, n, f); return; }
    if (wf_is_const(a, 64, &c)) { bitop_const(r, b, (uint64_t)c, n, f); return; }
    if (exact(b)) { bitop_lanes(r, a, b, n, f); return; }
    if (exact(a)) { bitop_lanes(r, b, a, n, f); return; }
    if (a->kind == WF_UNI && b->kind == WF_UNI) {
        unsigned k = kmin(a->k, b->k);
        wf_uni(r, f(a->r, b->r, n, false), k);
        r->nn = f == op_and ? a->nn || b->nn : a->nn && b->nn;
        fix(r, n);
        return;
    }
    wf_bot(r);
}

void wf_and(wform *r, const wform *a, const wform *b, unsigned n) { bitop(r, a, b, n, op_and); }
void wf_or(wform *r, const wform *a, const wform *b, unsigned n) { bitop(r, a, b, n, op_or); }
void wf_xor(wform *r, const wform *a, const wform *b, unsigned n) { bitop(r, a, b, n, op_xor); }

/* div.u/rem.u by a known c > 0.  Powers of two are shifts and masks; for
 * other c, when 2^b divides c (b the split), v = H·2^b + h with h < 2^b
 * cannot cross a multiple of c: v / c = (H·2^b) / c is uniform and
 * v % c = (H·2^b % c) + h(l), U's low b bits unchanged. */
static void divrem(wform *r, const wform *a, const wform *d, unsigned n, bool rem, bool sgn)
{
    int64_t c;
    if (strict2(r, a, d)) return;
    if (exact(a) && exact(d)) { lanewise(r, a, d, n, sgn, rem ? op_rem : op_div); return; }
    /* div.s/rem.s round towards zero: the unsigned rules only for a
     * non-negative dividend and a positive constant divisor */
    if (!wf_is_const(d, n, &c) || !((uint64_t)c & mask(n)) || (sgn && (!a->nn || c <= 0))) {
        if (a->kind == WF_UNI && d->kind == WF_UNI) wf_uni(r, 0, 0);
        else wf_bot(r);
        return;
    }
    uint64_t u = (uint64_t)c & mask(n);
    if (!(u & (u - 1))) {
        wform s;
        if (!rem) {
            wf_const(&s, __builtin_ctzll(u));
            wf_shr(r, a, &s, n, false);
        } else {
            wf_const(&s, (int64_t)(u - 1));
            wf_and(r, a, &s, n);
        }
        return;
    }
    bool dnn = wf_sext(u, n) > 0; /* v % c < c; v / c < 2^(n-1) for c ≥ 2 */
    if (a->kind == WF_UNI) { wf_uni(r, 0, 0); r->nn = rem ? dnn : 1; return; }
    int b = split(a, n);
    if (b < 0 || (unsigned)__builtin_ctzll(u) < (unsigned)b) { wf_bot(r); return; }
    if (!rem) { wf_uni(r, 0, 0); r->nn = 1; return; }
    uint64_t u0 = a->r & mask((unsigned)b);
    const wform *g = assign_head(r, a);
    r->k = (uint8_t)b, r->r = u0, r->nn = dnn;
    fix_from(r, g, n);
}

void wf_divu(wform *r, const wform *a, const wform *b, unsigned n) { divrem(r, a, b, n, false, false); }
void wf_remu(wform *r, const wform *a, const wform *b, unsigned n) { divrem(r, a, b, n, true, false); }
void wf_divs(wform *r, const wform *a, const wform *b, unsigned n) { divrem(r, a, b, n, false, true); }
void wf_rems(wform *r, const wform *a, const wform *b, unsigned n) { divrem(r, a, b, n, true, true); }

/* bfe.u d, a, pos, len = (a >> pos) & (2^len - 1); bfe.s sign-extends the
 * field from its top bit, the msb of a when the field runs past it (ISA:
 * "bfe").  Both as compositions of the rules above. */
void wf_bfe(wform *r, const wform *a, const wform *pos, const wform *len, unsigned n, bool sgn)
{
    int64_t p, q;
    if (strict2(r, a, pos)) return;
    if (len->kind == WF_TOP) { wf_top(r); return; }
    if (!wf_is_const(pos, 64, &p) || !wf_is_const(len, 64, &q)) {
        if (a->kind == WF_UNI && pos->kind == WF_UNI && len->kind == WF_UNI) wf_uni(r, 0, 0);
        else wf_bot(r);
        return;
    }
    p &= 0xff, q &= 0xff; /* the ISA takes the low 8 bits of each */
    if (!q || (!sgn && (uint64_t)p >= n)) { wf_const(r, 0); return; }
    if ((uint64_t)p >= n) p = n - 1, q = 1;
    wform t, s;
    if (!sgn) {
        wf_const(&s, p);
        wf_shr(&t, a, &s, n, false);
        wf_const(&s, (uint64_t)q >= 64 ? -1 : (int64_t)((1ull << q) - 1));
        wf_and(r, &t, &s, n);
        return;
    }
    if ((uint64_t)(p + q) > n) q = n - p;
    wf_const(&s, n - p - q);
    wf_shl(&t, a, &s, n);
    wf_const(&s, n - q);
    wf_shr(r, &t, &s, n, true);
}

/* bfi (ISA "bfi"): pos and len are taken modulo 256; bits past the msb
 * are not inserted.  The kept and the inserted bits are disjoint, so the
 * result is their sum, with no carry. */
void wf_bfi(wform *r, const wform *a, const wform *b, const wform *pos, const wform *len, unsigned n)
{
    int64_t p, q;
    if (strict2(r, a, b)) return;
    if (pos->kind == WF_TOP || len->kind == WF_TOP) { wf_top(r); return; }
    if (!wf_is_const(pos, 64, &p) || !wf_is_const(len, 64, &q)) {
        if (a->kind == WF_UNI && b->kind == WF_UNI && pos->kind == WF_UNI && len->kind == WF_UNI) wf_uni(r, 0, 0);
        else wf_bot(r);
        return;
    }
    p &= 0xff, q &= 0xff;
    if (!q || (uint64_t)p >= n) { assign(r, b); return; }
    if ((uint64_t)(p + q) > n) q = n - p;
    uint64_t m = (q >= 64 ? ~0ull : (1ull << q) - 1) << p;
    wform keep, ins, c;
    wf_const(&c, (int64_t)~m);
    wf_and(&keep, b, &c, n);
    wf_const(&c, p);
    wf_shl(&ins, a, &c, n);
    wf_const(&c, (int64_t)m);
    wf_and(&ins, &ins, &c, n);
    wf_add(r, &keep, &ins, n);
    r->nn = keep.nn && ins.nn;
}

static uint64_t op_ext(uint64_t x, uint64_t sn, unsigned n, bool sgn)
{
    (void)n;
    return sgn ? (uint64_t)wf_sext(x, (unsigned)sn) : x & mask((unsigned)sn);
}

void wf_cvt(wform *r, const wform *a, unsigned sn, unsigned n, bool sgn, bool *nowrap)
{
    if (a->kind == WF_TOP || a->kind == WF_BOT) { assign(r, a); return; }
    if (n <= sn) { /* truncation: the low n bits */
        uint8_t nn = n == sn && a->nn;
        const wform *g = assign_head(r, a);
        r->nn = nn;
        fix_from(r, g, n);
        return;
    }
    if (exact(a)) {
        wform w;
        wf_const(&w, sn);
        lanewise(r, a, &w, n, sgn, op_ext);
        return;
    }
    /* extension: U's known low bits stay; with a split the high field is
     * extended as a whole and h is unchanged; without one, only if no
     * lane's value wraps around in sn bits (asked only by a caller who
     * reads it: the split is a pass over the lanes) */
    if (nowrap && a->kind == WF_LANE && !a->nn && split(a, sn) < 0) *nowrap = true;
    uint8_t nn = !sgn || a->nn; /* a zero-extended value is below 2^sn */
    const wform *g = assign_head(r, a);
    r->nn = nn;
    fix_from(r, g, n);
}

void wf_selp(wform *r, const wform *a, const wform *b, const wform *p, unsigned n)
{
    if (p->kind == WF_TOP) { wf_top(r); return; }
    if (p->kind == WF_UNI) { wf_meet(r, a, b); return; }
    if (strict2(r, a, b)) return;
    if (p->kind == WF_BOT || !exact(p)) { wf_bot(r); return; }
    /* the same U in both (known, or one symbol): lanes mix nothing */
    if (wf_equal(a, b) && (a->k == 64 || a->sym)) { assign(r, a); return; }
    if (!exact(a) || !exact(b)) { wf_bot(r); return; }
    uint64_t v[WF_LANES];
    for (unsigned l = 0; l < WF_LANES; l++) v[l] = wf_at(p, l) & 1 ? wf_at(a, l) : wf_at(b, l);
    wf_from_lanes(r, v, WF_LANES, n);
}

/* min/max: a or b, compared as signed or unsigned n-bit numbers (ISA
 * "min", "max").  Exact lanes: lane by lane; else a or b in every lane
 * when a < b is uniform: their meet. */
static uint64_t op_min(uint64_t x, uint64_t y, unsigned n, bool sgn) { return ord_key(y, n, sgn) < ord_key(x, n, sgn) ? y : x; }
static uint64_t op_max(uint64_t x, uint64_t y, unsigned n, bool sgn) { return ord_key(x, n, sgn) < ord_key(y, n, sgn) ? y : x; }

void wf_minmax(wform *r, const wform *a, const wform *b, unsigned n, bool sgn, bool max, bool *nowrap)
{
    if (strict2(r, a, b)) return;
    if (exact(a) && exact(b)) { lanewise(r, a, b, n, sgn, max ? op_max : op_min); return; }
    wform c;
    wf_cmp(&c, WF_LT, a, b, n, sgn, nowrap);
    if (c.kind != WF_UNI) wf_bot(r);
    else wf_meet(r, a, b);
}

const char *wf_text(const wform *a, char *buf, unsigned len)
{
    int64_t c;
    wform lo;
    uint32_t wid;
    if (is_iv(a) && wf_low(a, &lo, &wid) && len > 24) { /* "U + lane + [0, 7]" */
        wf_text(&lo, buf, len - 24);
        size_t n = strlen(buf);
        snprintf(buf + n, len - n, " + [0, %u]", wid);
    } else if (a->kind == WF_TOP) snprintf(buf, len, "⊤");
    else if (a->kind == WF_BOT) snprintf(buf, len, "⊥");
    else {
        char u[48];
        if (a->k == 64) snprintf(u, sizeof u, "%lld", (long long)a->r);
        else if (a->k) snprintf(u, sizeof u, "U≡%llu mod 2^%u", (unsigned long long)a->r, a->k);
        else snprintf(u, sizeof u, "U");
        if (a->kind == WF_UNI) snprintf(buf, len, "%s", u);
        else if (wf_is_linear(a, &c)) {
            if (c == 1) snprintf(buf, len, "%s + lane", u);
            else snprintf(buf, len, "%s + %lld·lane", u, (long long)c);
        } else {
            int w = snprintf(buf, len, "%s + g[", u);
            for (unsigned l = 0; l < WF_LANES && w > 0 && (unsigned)w < len; l++)
                w += snprintf(buf + w, len - (unsigned)w, l ? ",%lld" : "%lld", (long long)a->g[l]);
            if (w > 0 && (unsigned)w < len) snprintf(buf + w, len - (unsigned)w, "]");
        }
    }
    return buf;
}
