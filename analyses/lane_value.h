/* One warp's value in lane-exact evaluation (lane_eval.h), and the rules
 * on it (lane_rules.c).  Internal to analyses/: lane_eval.c, lane_rules.c,
 * and affine_rules.c, where each operation family's rule is (rules.h). */
#ifndef PTXRAY_LANE_VALUE_H
#define PTXRAY_LANE_VALUE_H
#include "addr_chain.h"
#include "warp_form.h"
#include "warp_lanes.h"

#define NSYM 1024
/* A symbol is the dataflow's (warp_form.h sym): ±U of at most two roots,
 * a root an SSA value + 1 (that value's U) or, from SYM_DERIVED on, an
 * unknown derived here (lv_derive: a product, a shift, a mu, a sum that
 * has no terms).  One rule, wf_sym_sum, adds them: U - U cancels here
 * exactly where it cancels in the dataflow. */
#define SYM_DERIVED 0x40000000u
typedef uint64_t lsym;

/* One warp's value: lane l is U[sym[l]] + v[l] + [0, wid]; res[l] is what
 * is known of U[sym[l]] (the same for all lanes of a symbol).  The
 * interval is the dataflow's (warp_form.h wid), read where lane-exact
 * evaluation fails; the rules pass it through warp_form.c's interval
 * rules (wf_iv_addsub, wf_iv_scale, wf_meet) or give up. */
typedef struct lv {
    uint32_t n;
    uint32_t wid;
    int64_t v[WL_LANES];
    lsym sym[WL_LANES];
    residue res[WL_LANES];
    bool nonneg;
} lv;

/* Derived symbols, per top-level evaluation: the same operation on the
 * same symbols gives the same symbol, in every lane. */
typedef struct symkey {
    lsym a, b;
    uint32_t tag;
    int64_t k;
} symkey;

typedef struct ectx {
    const addr_chain *c;
    uint32_t wi, nl; /* the warp, its lanes */
    uint32_t nkeys;
    bool overflow;
    /* a leaf symbol whose residue was too coarse (bit 5 of X0 decides
     * c % 64 for c = tid.x): the warp is re-evaluated once per value of the
     * missing bits (ov_*), each a case of its own */
    lsym need_sym;
    unsigned need_k;
    residue need_res;
    lsym ov_sym;
    residue ov_res;
    /* lane_eval_threads: leaves exact or nothing (no unknown anywhere) */
    bool exact;
    /* the large parts last, not cleared (see lane_eval): keys are read
     * below nkeys, scratch after wl_eval wrote it */
    symkey keys[NSYM];
    wl_result scratch; /* wl_eval's output, copied out at once */
} ectx;

enum { T_ADD = 1, T_SUB, T_MUL, T_SHR, T_SELP, T_MU };

/* The symbol of operation tag (with constant k) on symbols a and b: the
 * same operation on the same symbols gives the same symbol. */
lsym lv_derive(ectx *e, lsym a, lsym b, uint32_t tag, int64_t k);

static inline uint64_t lv_zext(int64_t x, unsigned w) { return w >= 64 ? (uint64_t)x : (uint64_t)x & (((uint64_t)1 << w) - 1); }

static inline void lv_const(lv *a, uint32_t n, int64_t k)
{
    a->n = n;
    a->wid = 0;
    for (uint32_t l = 0; l < n; l++) {
        a->v[l] = k;
        a->sym[l] = 0;
        a->res[l] = res_exact(0);
    }
    a->nonneg = k >= 0;
}

/* the same value in every lane */
static inline bool lv_uniform(const lv *a)
{
    if (a->wid) return false;
    for (uint32_t l = 0; l < a->n; l++)
        if (a->v[l] != a->v[0] || a->sym[l] != a->sym[0]) return false;
    return true;
}

static inline bool lv_const_of(const lv *a, int64_t *k)
{
    if (!a->n || !lv_uniform(a) || a->sym[0]) return false;
    *k = a->v[0];
    return true;
}

typedef void (*lv_rule)(wform *r, const wform *a, const wform *b, unsigned n);
void lv_rule_sar(wform *r, const wform *a, const wform *b, unsigned n);
void lv_rule_shru(wform *r, const wform *a, const wform *b, unsigned n);

/* The rules (lane_rules.c); a result out of int64 range sets e->overflow. */
void lv_addsub(ectx *e, const lv *a, const lv *b, bool sub, lv *r);
void lv_scale(ectx *e, const lv *a, int64_t c, lv *r);
bool lv_mul(ectx *e, const lv *a, const lv *b, lv *r);
bool lv_merge(ectx *e, const lv *a, const lv *b, uint32_t tag, lv *r);
bool lv_fold(const lv *a, int64_t b, unsigned bits, bool sgn, lv_rule f, uint32_t n, lv *out);
bool lv_shr_floor(ectx *e, const lv *a, unsigned s, lv *r);
bool lv_and(ectx *e, const lv *a, int64_t m, lv *r);
bool lv_or(ectx *e, const lv *a, const lv *b, bool x, lv *r);
bool lv_div(ectx *e, const lv *a, int64_t d, bool sgn, lv *r);
bool lv_rem(ectx *e, const lv *a, int64_t d, bool sgn, lv *r);
bool lv_minmax(const lv *a, const lv *b, unsigned bits, bool sgn, bool max, lv *r);
void lv_trunc(ectx *e, lv *a, unsigned n, bool uns);

#endif
