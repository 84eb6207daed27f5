/* The warp form of an integer value: how it depends on the lane within a
 * warp, as opposed to the warp's position in the block (docs/divergence.md,
 * "Warp-granular reasoning").
 *
 * The 32 lanes of a warp are threads with consecutive linear thread ids
 * t = 32·w + lane.  In every warp, lane l holds
 *
 *     v(l) = U + g(l)   (mod 2^n, n the value's width)
 *
 * where U is the same in all lanes of the warp (its low k bits known:
 * U ≡ r mod 2^k; k = 64: U is known) and g is a function of the lane alone,
 * known exactly, with g(0) = 0.  %tid.x in a block whose x extent is a
 * multiple of 32 is U + l with U ≡ 0 (mod 32); tid >> 5 is then uniform
 * (g = 0) and tid & 31 is exactly l (k = 64, U = 0).
 *
 * The lattice, top to bottom: ⊤ (not computed), then for each g a chain of
 * ever fewer known bits of U, then ⊥ (nothing known: treat as divergent).
 * Two values meet to the same g with the bits of U they agree on, or to ⊥
 * when their g differ.  A uniform value is g = 0 (WF_UNI).
 *
 * Every rule is exact modulo 2^n; none assumes that the arithmetic does not
 * wrap around, except the ordered comparison of wf_cmp's second method,
 * widening conversions of a value whose low bits do not split, and the
 * non-negativity (nn) that add, mul and shl keep.
 * The split: when U's low b bits are known (b ≤ k) and r mod 2^b + g(l)
 * lies in [0, 2^b) for every lane, the low b bits of v are that sum and
 * the bits above are U's alone, with no carry between them, so shifts by
 * s, masks, remainders by multiples of 2^b, comparisons with constants and
 * extensions act on the two parts separately. */
#ifndef PTXRAY_WARP_FORM_H
#define PTXRAY_WARP_FORM_H
#include <stdbool.h>
#include <stdint.h>
#include "semantics.h" /* ptx_cmp: the comparisons, as the decoder gives them */

#define WF_LANES 32
#define WF_SYM_NEG 0x80000000u /* a term of sym: -U_s */

enum wf_kind { WF_TOP, WF_UNI, WF_LANE, WF_BOT };

typedef struct wform {
    uint8_t kind; /* wf_kind */
    uint8_t k;    /* known low bits of U, 0..64 */
    uint8_t nn;   /* every lane's value, read as a signed n-bit number, is ≥ 0
                   * (thread and block indices and what is built from them
                   * with add, mul, shl: under the no-wraparound assumption);
                   * the dataflow keeps it for ⊥ too, adding what the
                   * operands' signs prove (affine_rules.c, wf_sign) */
    uint64_t r;   /* U mod 2^k */
    /* Symbol identity: U = ±U_s1 ± U_s2 + off (mod 2^n) in every warp,
     * U_s the U of SSA value s - 1 (a root), over at most two roots
     * (docs/divergence.md, "Symbols").  sym packs the terms, 32
     * bits each, the lower root in the low half: s, with WF_SYM_NEG set
     * for -U_s; 0: none known.  Kept only by the rules that move U by a
     * sum of roots and a known amount (mov, add, sub, neg, not,
     * truncation, and the meet of equal ones), so that (p + g) - p is g
     * and (tid + p) - (p + 64) is tid - 64 exactly; the dataflow reads a
     * value with none as its own root. */
    uint64_t sym;
    int64_t off;
    /* An interval below the form (⊥ only; 0 elsewhere): lane l holds
     * U + g(l) + t for some t in [0, wid] (mod 2^n), U and g as above
     * (g filled for every lane, zeros when the lanes share the low end).
     * The branch verdicts read it as ⊥; the address models read the
     * window (docs/divergence.md, "Intervals"). */
    uint32_t wid;
    /* Which of the affine solver's interned lane tables g is (affine.c,
     * wg_intern: index (tab & WF_TAB_INDEX) - 1), so that a result that
     * keeps an operand's table is not interned again, and what the table
     * is known to be (WF_TAB_*, so that fix_from need not scan it); 0: not
     * known.  wf_load sets it; assign, copy_iv and wf_low copy it with g;
     * fix_from passes an operand's on where it copies that table
     * unchanged; every other writer of g (the constructors first) sets 0. */
    uint32_t tab;
    int64_t g[WF_LANES]; /* WF_LANE, or ⊥ with wid: g(l), g(0) = 0, sign-extended from n bits */
} wform;

#define WF_TAB_INDEX 0x3fffffffu /* a billion tables of 256 bytes: more than memory holds */
#define WF_TAB_G64 0x40000000u   /* g(0) = 0 and some g(l) ≠ 0: normal at 64 bits */
#define WF_TAB_G32 0x80000000u   /* and every g(l) a 32-bit number: normal at 32 bits */
/* The interned table a's g is, plus 1; 0: not known (the one reading of
 * tab's index). */
static inline uint32_t wf_tab_index1(const wform *a) { return a->tab & WF_TAB_INDEX; }
/* The WF_TAB_* bits of table g (asked once a table, where the solver
 * interns it). */
uint32_t wf_tab_bits(const int64_t *g);

/* The widest interval kept: wider is plain ⊥ (and a μ whose interval
 * grows goes to ⊥ at once, the widening that ends the dataflow). */
#define WF_WID_MAX 0x7fffffffu

/* Comparison operators of setp/set on integers. */
enum wf_cmp_op { WF_EQ = PTX_CMP_EQ, WF_NE = PTX_CMP_NE, WF_LT = PTX_CMP_LT, WF_LE = PTX_CMP_LE, WF_GT = PTX_CMP_GT,
                 WF_GE = PTX_CMP_GE }; /* the decoder's (ptx_iop.cmp) */

void wf_top(wform *a);
/* ⊥, uniform and constant forms: inline, the rules and the solver make
 * one for nearly every value */
static inline void wf_bot(wform *a) { a->kind = WF_BOT, a->k = 0, a->r = 0, a->nn = 0, a->sym = 0, a->off = 0, a->wid = 0, a->tab = 0; }
/* uniform, U ≡ r mod 2^k */
static inline void wf_uni(wform *a, uint64_t r, unsigned k)
{
    a->kind = WF_UNI;
    a->k = (uint8_t)(k > 64 ? 64 : k);
    a->r = a->k >= 64 ? r : r & ((1ull << a->k) - 1);
    a->nn = 0;
    a->sym = 0, a->off = 0, a->wid = 0, a->tab = 0;
}
/* uniform and known */
static inline void wf_const(wform *a, int64_t c)
{
    a->kind = WF_UNI;
    a->k = 64;
    a->r = (uint64_t)c;
    a->nn = c >= 0;
    a->sym = 0, a->off = 0, a->wid = 0, a->tab = 0;
}
/* U + l·c for U ≡ r mod 2^k: the lane index scaled. */
void wf_lane(wform *a, int64_t c, uint64_t r, unsigned k);

bool wf_is_uniform(const wform *a);
bool wf_is_const(const wform *a, unsigned n, int64_t *c);
/* Whether g is l·c for every lane (c = g(1)). */
bool wf_is_linear(const wform *a, int64_t *c);
bool wf_equal(const wform *a, const wform *b);
/* x as an n-bit two's complement number (n = 0 or 64: x itself). */
static inline int64_t wf_sext(uint64_t x, unsigned n)
{
    if (!n || n >= 64) return (int64_t)x;
    uint64_t m = 1ull << (n - 1);
    return (int64_t)((x & ((m << 1) - 1)) ^ m) - (int64_t)m;
}
/* Lane l's value r + g(l): U + g(l) when U is known (k = 64). */
static inline uint64_t wf_at(const wform *a, unsigned l) { return a->r + (a->kind == WF_LANE ? (uint64_t)a->g[l] : 0); }

/* r = a ∧ b. */
void wf_meet(wform *r, const wform *a, const wform *b);
/* The terms of sa + sb (neg: sa - sb), packed as sym; 0 when all cancel;
 * false when a root would count twice or three roots remain.  The one
 * rule of symbols for the dataflow and lane-exact evaluation (lane_rules.c
 * adds its own derived unknowns as roots). */
bool wf_sym_sum(uint64_t sa, uint64_t sb, bool neg, uint64_t *out);
/* -U for U of symbol s: each term's sign flipped. */
static inline uint64_t wf_sym_negate(uint64_t s)
{
    return s ^ (s ? WF_SYM_NEG : 0) ^ (s >> 32 ? (uint64_t)WF_SYM_NEG << 32 : 0);
}
/* Whether symbols a and b have a root in common (where a sum of them may
 * cancel one). */
static inline bool wf_sym_shares(uint64_t a, uint64_t b)
{
    uint32_t m = ~WF_SYM_NEG, a0 = (uint32_t)a & m, a1 = (uint32_t)(a >> 32) & m, b0 = (uint32_t)b & m,
             b1 = (uint32_t)(b >> 32) & m;
    return (a0 && (a0 == b0 || a0 == b1)) || (a1 && (a1 == b0 || a1 == b1));
}
/* The symbol of r = a + b (sub: a - b), r from wf_add/wf_sub: the sum of
 * the operands' terms (a known U adds to off), each root's +U_s and -U_s
 * cancelling; U exact when every term cancels (U_r = off_a ± off_b);
 * none when a term would have a coefficient other than ±1 or three roots
 * remain.  True when some root cancelled and one is left (the caller may
 * know that root's bits: affine_rules.c, sym_refine). */
bool wf_sym_addsub(wform *r, const wform *a, const wform *b, unsigned n, bool sub);
/* The symbol of r = -a (not: ~a = -a - 1), r from wf_neg/wf_not: a's terms
 * negated. */
void wf_sym_neg(wform *r, const wform *a, unsigned n, bool not);
/* r's U when its symbol is one root, ±U_s + off, and U_s ≡ rs (mod 2^ks):
 * ±rs + off modulo 2^ks, kept where that knows more bits than r. */
void wf_sym_known(wform *r, uint64_t rs, unsigned ks, unsigned n);
/* What two partly known numbers, x ≡ ra (mod 2^ka) and y ≡ rb (mod 2^kb),
 * are both known to be: the low bits they agree on (k = 64: known). */
void wf_meet_bits(uint64_t ra, unsigned ka, uint64_t rb, unsigned kb, uint64_t *r, uint8_t *k);

/* Arithmetic modulo 2^n (n = 1..64). */
void wf_add(wform *r, const wform *a, const wform *b, unsigned n);
void wf_sub(wform *r, const wform *a, const wform *b, unsigned n);
void wf_neg(wform *r, const wform *a, unsigned n);
void wf_not(wform *r, const wform *a, unsigned n);
void wf_mul(wform *r, const wform *a, const wform *b, unsigned n);
void wf_shl(wform *r, const wform *a, const wform *s, unsigned n);
/* shl by s at width n is a multiplication by this factor modulo 2^n: 2^s,
 * or 0 when s >= n (ISA "shl": shift amounts greater than the register
 * width are clamped to it; s is read unsigned).  The one reading of a
 * constant left shift: the polynomials, the warp forms and their
 * intervals, the address facts and terms, and lane-exact evaluation. */
static inline int64_t wf_shl_factor(uint64_t s, unsigned n) { return s >= n ? 0 : (int64_t)((uint64_t)1 << s); }
/* shr by s at width n shifts by this much (ISA "shr": amounts greater
 * than the width are clamped to it; s is read unsigned): s below n, else n
 * for shr.u (every bit shifted out: 0) and n - 1 for shr.s (the sign in
 * every bit).  The one reading of a constant right shift. */
static inline uint64_t wf_shr_amount(uint64_t s, unsigned n, bool sgn) { return s < n ? s : (uint64_t)n - 1 + !sgn; }
/* Logical (sgn false) or arithmetic right shift by s. */
void wf_shr(wform *r, const wform *a, const wform *s, unsigned n, bool sgn);
/* Bitwise and / or / xor. */
void wf_and(wform *r, const wform *a, const wform *b, unsigned n);
void wf_or(wform *r, const wform *a, const wform *b, unsigned n);
void wf_xor(wform *r, const wform *a, const wform *b, unsigned n);
/* Unsigned division and remainder by b. */
void wf_divu(wform *r, const wform *a, const wform *b, unsigned n);
void wf_remu(wform *r, const wform *a, const wform *b, unsigned n);
/* Signed (rounding towards zero): exact lanes, or a dividend ≥ 0 and a
 * positive constant divisor (the unsigned rules). */
void wf_divs(wform *r, const wform *a, const wform *b, unsigned n);
void wf_rems(wform *r, const wform *a, const wform *b, unsigned n);
/* bfe.u / bfe.s with position and length. */
void wf_bfe(wform *r, const wform *a, const wform *pos, const wform *len, unsigned n, bool sgn);
/* bfi d, a, b, pos, len: b with bits [pos, pos + len) taken from a's low
 * bits. */
void wf_bfi(wform *r, const wform *a, const wform *b, const wform *pos, const wform *len, unsigned n);
/* Integer conversion of an sn-bit value to n bits (sgn: sign-extending).
 * *nowrap (NULL: not asked) set when the result relies on no wraparound. */
void wf_cvt(wform *r, const wform *a, unsigned sn, unsigned n, bool sgn, bool *nowrap);
/* selp a, b, p (p a predicate, as 0/1). */
void wf_selp(wform *r, const wform *a, const wform *b, const wform *p, unsigned n);
/* The predicate a op b (0/1) for n-bit operands, signed or not.  The exact
 * methods come first; an ordered comparison that only the no-wraparound
 * assumption makes uniform sets *nowrap. */
void wf_cmp(wform *r, enum wf_cmp_op op, const wform *a, const wform *b, unsigned n, bool sgn, bool *nowrap);
/* wf_cmp with the difference a - b given (wf_sub, wf_sym_addsub, and what
 * the caller knows of its U beyond that: affine_rules.c, sym_refine). */
void wf_cmp_diff(wform *r, enum wf_cmp_op op, const wform *a, const wform *b, const wform *d, unsigned n, bool sgn,
                 bool *nowrap);

/* min (max: max) of n-bit operands, signed or not: lane by lane when
 * both are exact, else the meet when a < b is uniform (*nowrap as for
 * wf_cmp). */
void wf_minmax(wform *r, const wform *a, const wform *b, unsigned n, bool sgn, bool max, bool *nowrap);

/* ---- intervals (⊥ with wid > 0): the rules used where the form's own rule
 * gives ⊥; every one is exact modulo 2^n unless it says otherwise ---- */

/* Whether a has a low end (an exact-lane form, or an interval): *lo gets
 * it as a form (WF_UNI or WF_LANE), *wid the width (0 for the form). */
bool wf_low(const wform *a, wform *lo, uint32_t *wid);
/* r = lo + [0, wid], lo a form from wf_low or a rule (wid 0: lo itself);
 * plain ⊥ when lo is not a form or wid > min(WF_WID_MAX, 2^n - 2). */
void wf_interval(wform *r, const wform *lo, uint64_t wid, unsigned n);
/* a ± b where either is an interval: the low ends' sum (a - b: minus b's
 * high end), the widths added. */
void wf_iv_addsub(wform *r, const wform *a, const wform *b, unsigned n, bool sub);
/* a · c, c a constant: the low end scaled (c < 0: the high end), the width
 * by |c|. */
void wf_iv_scale(wform *r, const wform *a, int64_t c, unsigned n);
/* a & m for any a (even ⊥), m ≥ 0 as an n-bit signed number: [0, m]. */
void wf_iv_and(wform *r, const wform *a, int64_t m, unsigned n);
/* a rem d, d > 0 a constant, for any a: [0, d - 1] when unsigned or a ≥ 0
 * (a->nn), else [-(d - 1), d - 1]. */
void wf_iv_rem(wform *r, const wform *a, int64_t d, unsigned n, bool sgn);
/* a >> s (floor; sgn: arithmetic) of an interval with a known low end,
 * when no lane's interval wraps around in that reading: each end shifted. */
void wf_iv_shr(wform *r, const wform *a, unsigned s, unsigned n, bool sgn);
/* Integer conversion of an interval: the low end converted (wf_cvt),
 * the width kept; a widening one when no lane wraps (a known low end) or
 * under the no-wraparound assumption of wf_cvt (*nowrap). */
void wf_iv_cvt(wform *r, const wform *a, unsigned sn, unsigned n, bool sgn, bool *nowrap);

/* The text form: "U", "U + lane", "U + 4·lane" (U ≡ 0 mod 32), "lane & 15 + U", "⊥";
 * an interval "U + 4·lane + [0, 3]". */
const char *wf_text(const wform *a, char *buf, unsigned len);

#endif
