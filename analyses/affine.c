/* The divergence analyses with affine constraints (Sampaio et al. 2013,
 * section 3.4), sparse on the GSA dependence graph: a worklist solver over
 * the lattice of aff_poly.h, each value starting at ⊤ and only moving down
 * (new = old ∧ f(operands)), so it terminates after at most 1 + ncoef
 * changes per value.  Transfer functions for instructions are in
 * affine_rules.c (both components, one case per operation); gamma, mu and
 * eta are here:
 *   GAMA/ETAA  all gates uniform: the meet of the arguments; else ⊥
 *   RMUD/μ     the meet of init and carried (no gate of its own: inside the
 *              loop, the threads still in it have run the same iterations)
 *
 * Instructions: the rules of the two components are in affine_rules.c
 * (with the forms' intervals and their sign bit); what they
 * share is here, decided once for both: a value loaded from memory or the
 * like is ⊥, a predicated definition with a divergent guard is ⊥, an
 * instruction with no rule (the paper's "other operators") is uniform when
 * all its operands are, and a definition under a uniform guard meets the
 * value it may keep.
 *
 * Beside each polynomial the solver keeps the value's warp form
 * (warp_form.h): the reduced product of the two.
 * After each evaluation they exchange what one knows and the other does
 * not: a uniform warp form makes the polynomial uniform, a uniform
 * polynomial the warp form, and a warp form U + c·lane gives the
 * polynomial c·laneid + U when its own lane-varying coefficients are
 * unknown.  Each also carries the DIV_COND_* bits of the default block
 * shape assumption it used (the union over what it was computed from). */
#include <stdlib.h>
#include <string.h>
#include "affine_internal.h"
#include "semantics.h"
#include "solver.h"

/* The loops over a value's coefficients, with the count a constant for
 * the usual DIV_NCOEF2 so that the compiler unrolls and vectorises them
 * (with cx->n they were a tenth of the solver's own instructions). */
static inline __attribute__((always_inline)) bool coefs_any(const int64_t *c, unsigned n)
{
    int64_t any = 0; /* no early exit: the compiler vectorises the or */
    for (unsigned i = 0; i < n; i++) any |= c[i];
    return any != 0;
}
static inline __attribute__((always_inline)) uint16_t coefs_differ(const int64_t *c, const int64_t *d, unsigned n)
{
    uint16_t m = 0;
    for (unsigned i = 0; i < n; i++) m |= (uint16_t)((c[i] != d[i]) << i);
    return m;
}

void aff_get(const aff_ctx *cx, uint32_t v, aff *out)
{
    if (cx->top[v]) {
        aff_top(out, cx->n);
        return;
    }
    out->n = (uint8_t)cx->n;
    out->top = 0;
    out->bot = cx->r->bot[v];
    const int64_t *c = div_coefs(cx->r, v);
    if (cx->n == DIV_NCOEF2) memcpy(out->c, c, sizeof out->c);
    else memcpy(out->c, c, sizeof out->c[0] * cx->n);
}

/* Stores old ∧ a as v's value; whether it changed. */
static void put(aff_ctx *cx, uint32_t v, const aff *a)
{
    div_result *r = (div_result *)cx->r;
    ((uint8_t *)cx->top)[v] = 0;
    r->bot[v] = a->bot;
    /* no row: it reads all zeros, keep it so */
    if (r->cslot[v] == DIV_NOROW && !(cx->n == DIV_NCOEF2 ? coefs_any(a->c, DIV_NCOEF2) : coefs_any(a->c, cx->n)))
        return;
    memcpy(div_coefs_row(r, v, cx->a), a->c, sizeof a->c[0] * cx->n);
}

static inline __attribute__((always_inline)) bool merge(aff_ctx *cx, uint32_t v, const aff *a)
{
    div_result *r = (div_result *)cx->r;
    if (cx->top[v]) {
        put(cx, v, a);
        return true;
    }
    const int64_t *c = div_coefs(r, v);
    /* a coefficient already ⊥ stays ⊥ whatever the two hold */
    uint16_t bot = r->bot[v] | a->bot |
                   (cx->n == DIV_NCOEF2 ? coefs_differ(c, a->c, DIV_NCOEF2) : coefs_differ(c, a->c, cx->n));
    if (bot == r->bot[v]) return false;
    if (r->cslot[v] != DIV_NOROW) { /* else they are zeros already */
        int64_t *w = div_coefs_row(r, v, cx->a);
        for (unsigned i = 0; i < cx->n; i++)
            if (bot >> i & 1) w[i] = 0;
    }
    r->bot[v] = bot;
    return true;
}

/* One value of the product: polynomial, warp form, their assumption bits. */
typedef struct absval {
    aff a;
    wform w;
    uint8_t ac, wc;
} absval;

/* cx->wc[v] holds, above the form's DIV_COND_* bits, one bit for the
 * kind of v's warp form (WC_KIND), kept with cx->wkind by set_wkind:
 * scan_refs then finds the kinds of what an instruction reads in the
 * same load and or as the bits. */
#define WC_CONDS 15u
#define WC_KIND(k) (16u << (k))
static inline void set_wkind(aff_ctx *cx, uint32_t v, uint8_t wc, uint8_t kind)
{
    cx->wkind[v] = kind;
    cx->wc[v] = (uint8_t)((wc & WC_CONDS) | WC_KIND(kind));
}

/* X32 implies ROWS: a verdict resting on ROWS alone rests on less. */
static unsigned cond_rank(unsigned c) { return c & DIV_COND_X32 ? 2 : c & DIV_COND_ROWS ? 1 : 0; }

/* The assumption bits a uniform verdict of v rests on: those of whichever
 * component proves it with fewer. */
static uint8_t verdict_cond(const aff_ctx *cx, uint32_t v)
{
    uint8_t wc = cx->wc[v];
    return wc & WC_KIND(WF_UNI) && cond_rank(wc & WC_CONDS) < cond_rank(cx->ac[v]) ? wc & WC_CONDS : cx->ac[v];
}

/* aff_uniform of aff_get's polynomial, read in place. */
static bool val_uniform(const aff_ctx *cx, uint32_t v)
{
    if (cx->wkind[v] == WF_UNI) return true;
    if (cx->top[v]) return false;
    uint16_t m = cx->divmask;
    if (cx->r->bot[v] & m) return false;
    const int64_t *c = div_coefs(cx->r, v);
    for (m &= AFF_ALL(cx->n); m; m &= (uint16_t)(m - 1))
        if (c[__builtin_ctz(m)]) return false;
    return true;
}

static bool val_top(const aff_ctx *cx, uint32_t v) { return cx->top[v] && cx->wkind[v] == WF_TOP; }

static inline __attribute__((always_inline)) void eval_sreg(const aff_ctx *cx, const ssa_value *val, aff *out)
{
    const div_result *r = cx->r;
    int d = val->comp == 'x' ? 0 : val->comp == 'y' ? 1 : val->comp == 'z' ? 2 : -1;
    switch (val->reg) {
    case PTX_SR_TID:
        if (d < 0) break;
        if (r->block[d] == 1) aff_const(out, cx->n, 0); /* a block one thread wide in d */
        else aff_monomial(out, cx->n, DIV_C_X + (unsigned)d);
        return;
    case PTX_SR_LANEID:
        aff_monomial(out, cx->n, DIV_C_LANE);
        return;
    case PTX_SR_NTID:
        if (d >= 0 && r->block[0]) aff_const(out, cx->n, r->block[d] ? r->block[d] : 1);
        else aff_uniform_unknown(out, cx->n);
        return;
    default:
        break;
    }
    if (r->source[val - cx->pf->ssa->values] != DIV_SRC_NONE) aff_bottom(out, cx->n);
    else aff_uniform_unknown(out, cx->n);
}

/* The gates of the nodes: those of their gating expressions, and their
 * gate sets (shared by every eta leaving the same loops), each with a
 * verdict: divergent once one of its gates is not uniform. */
typedef struct node_gates {
    u32csr expr, set;
    uint8_t *set_div;
    uint8_t *set_cond; /* the assumption bits of the set's uniform gates */
} node_gates;

static inline __attribute__((always_inline)) void eval_node(const aff_ctx *cx, const node_gates *ng, uint32_t v, absval *out)
{
    const ssa_func *s = cx->pf->ssa;
    uint32_t k = s->values[v].node;
    uint32_t set = cx->pf->gsa->nodes[k].gate_set;
    out->ac = out->wc = 0;
    if (set != GSA_NO_SET && ng->set_div[set]) {
        aff_bottom(&out->a, cx->n);
        wf_bot(&out->w);
        return;
    }
    if (set != GSA_NO_SET) out->ac = out->wc = ng->set_cond[set];
    const u32csr *gates = &ng->expr;
    for (uint32_t i = gates->off[k]; i < gates->off[k + 1]; i++) {
        uint32_t gv = gates->item[i];
        /* a gate still ⊤ is optimistically uniform: its change re-queues v */
        if (!val_top(cx, gv) && !val_uniform(cx, gv)) {
            aff_bottom(&out->a, cx->n);
            wf_bot(&out->w);
            return;
        }
        out->ac |= verdict_cond(cx, gv);
    }
    out->wc = out->ac;
    aff_top(&out->a, cx->n);
    wf_top(&out->w);
    const ssa_node *nd = &s->nodes[k];
    for (uint32_t i = 0; i < nd->nargs; i++) {
        if (nd->args[i] == SSA_NONE) continue;
        aff x;
        wform y;
        aff_get(cx, nd->args[i], &x);
        aff_meet(&out->a, &out->a, &x);
        if (out->w.kind == WF_TOP) wf_load(cx, nd->args[i], &out->w); /* ⊤ ∧ y = y */
        else {
            wf_load(cx, nd->args[i], &y);
            wf_meet(&out->w, &out->w, &y);
        }
        out->ac |= cx->ac[nd->args[i]];
        out->wc |= cx->wc[nd->args[i]] & WC_CONDS;
    }
    /* a μ is its own root: the root of its entry value holds on every
     * iteration only for a μ that never changes, and taking it first
     * would change the μ's form once more when a back edge arrives */
    if (out->w.sym && cx->pf->gsa->nodes[k].kind == GSA_MU) out->w.sym = 0, out->w.off = 0;
}

/* What exchange did to the assumption bits: nothing, the form's bits
 * became the polynomial's, or the polynomial's the form's (cx->xch). */
enum { XCH_NONE = 1, XCH_WC_AC, XCH_AC_WC };

/* The reduced product: each component learns what the other knows.
 * Returns what it did to the assumption bits (XCH_*). */
static uint8_t exchange(const aff_ctx *cx, absval *x)
{
    int64_t c;
    if (x->a.top && x->w.kind == WF_TOP) return XCH_NONE;
    bool au = !x->a.top && aff_uniform(cx, &x->a), wu = x->w.kind == WF_UNI;
    if (au && !wu) {
        if (aff_is_const(&x->a, &c)) wf_const(&x->w, c);
        else wf_uni(&x->w, 0, 0);
        x->wc = x->ac;
        return XCH_WC_AC;
    } else if (wu && !au) {
        if (x->w.k == 64) aff_const(&x->a, cx->n, (int64_t)x->w.r);
        else aff_uniform_unknown(&x->a, cx->n);
        x->ac = x->wc;
        return XCH_AC_WC;
    } else if (!au && (x->a.top || (x->a.bot & cx->divmask)) && x->w.kind == WF_LANE) {
        if (wf_is_linear(&x->w, &c)) {
            aff_const(&x->a, cx->n, x->w.k == 64 ? (int64_t)x->w.r : 0);
            if (x->w.k != 64) x->a.bot |= 1;
            x->a.c[DIV_C_LANE] = c;
            x->ac = x->wc;
            return XCH_AC_WC;
        }
        /* g a multiple of %tid.x's or %tid.y's lane table (a 16-wide block:
         * tid.x = lane & 15): c·tid + U, the constant known when both U are */
        for (unsigned d = 0; d < 2; d++) {
            const wform *t = &cx->tidf[d];
            if (t->kind != WF_LANE) continue;
            unsigned l0 = 1;
            while (l0 < WF_LANES && !t->g[l0]) l0++;
            if (l0 == WF_LANES || x->w.g[l0] % t->g[l0]) continue;
            c = x->w.g[l0] / t->g[l0];
            unsigned l = 0;
            while (l < WF_LANES && x->w.g[l] == c * t->g[l]) l++;
            if (l < WF_LANES) continue;
            bool known = x->w.k == 64 && t->k == 64;
            aff_const(&x->a, cx->n, known ? (int64_t)(x->w.r - (uint64_t)c * t->r) : 0);
            if (!known) x->a.bot |= 1;
            x->a.c[DIV_C_X + d] = c;
            x->ac = x->wc;
            return XCH_AC_WC;
        }
    }
    return XCH_NONE;
}

/* Both components ⊤, ⊥ or uniform-unknown (UNIFORM). */
enum { BOTH_TOP, BOTH_UNI, BOTH_BOT };
static void set_both(const aff_ctx *cx, absval *out, int what, bool poly, bool warp)
{
    if (poly) {
        if (what == BOTH_TOP) aff_top(&out->a, cx->n);
        else if (what == BOTH_UNI) aff_uniform_unknown(&out->a, cx->n);
        else aff_bottom(&out->a, cx->n);
    }
    if (warp) {
        if (what == BOTH_TOP) wf_top(&out->w);
        else if (what == BOTH_UNI) wf_uni(&out->w, 0, 0);
        else wf_bot(&out->w);
    }
}

/* The rule of any other operator (paper, Fig. 13): uniform when every
 * operand read from operand `from` on is uniform, else ⊥; ⊤ while one is ⊤
 * (its change re-queues the value). */
static inline __attribute__((always_inline)) int generic(const aff_ctx *cx, uint32_t stmt, unsigned from)
{
    const ssa_func *s = cx->pf->ssa;
    for (uint32_t k = s->ref_off[stmt]; k < s->ref_off[stmt + 1]; k++) {
        const ssa_ref *u = &s->refs[k];
        if (!(u->role & PTX_REF_USE) || (u->role & PTX_REF_GUARD) || u->value == SSA_NONE || u->opd < from) continue;
        if (val_top(cx, u->value)) return BOTH_TOP;
        if (!val_uniform(cx, u->value)) return BOTH_BOT;
    }
    return BOTH_UNI;
}

/* One pass over the references of instruction value v's statement: the
 * values its operands read (cx->opv, for the rules of both components),
 * its guard's value, the union of the assumption bits of what it reads
 * (into out), and, returned, the kinds of the warp forms it reads (its
 * guard aside), WC_KIND(kind) each, for the rules' strictness (eval_inst). */
static inline __attribute__((always_inline)) unsigned scan_refs(const aff_ctx *cx, const ssa_value *val,
                                                                 uint32_t *guard, absval *out, bool forms)
{
    const ssa_func *s = cx->pf->ssa;
    uint32_t k0 = s->ref_off[val->stmt], end = s->ref_off[val->stmt + 1];
    uint8_t ac = 0, wc = 0;
    for (unsigned i = 0; i < AFF_NOPD; i++) cx->opv[i] = SSA_NONE;
    /* ptx_inst_foreach_reg gives the guard first (ssa_guard_value) */
    *guard = k0 < end && (s->refs[k0].role & PTX_REF_GUARD) ? s->refs[k0].value : SSA_NONE;
    for (uint32_t k = end; k-- > k0;) { /* backwards: the first use of an operand is the last written */
        const ssa_ref *u = &s->refs[k];
        if (!(u->role & PTX_REF_USE)) continue;
        if (u->opd < AFF_NOPD) cx->opv[u->opd] = u->value;
        if (u->value == SSA_NONE) continue;
        if (u->role & PTX_REF_GUARD) {
            uint8_t c = verdict_cond(cx, u->value);
            ac |= c, wc |= c;
            continue;
        }
        ac |= cx->ac[u->value], wc |= cx->wc[u->value];
    }
    unsigned kinds = forms ? wc & ~WC_CONDS : 0; /* before the kept value's bits: it is no operand */
    if (val->partial && val->prev != SSA_NONE) ac |= cx->ac[val->prev], wc |= cx->wc[val->prev];
    /* with a known shape no value rests on an assumption */
    out->ac = cx->r->shape_assumed ? ac : 0;
    out->wc = cx->r->shape_assumed ? wc & WC_CONDS : 0;
    return kinds;
}

/* Whether a value statement stmt reads (its guard aside) is an interval:
 * asked only where an interval rule may apply, so not in scan_refs, which
 * every evaluation runs. */
static bool reads_interval(const aff_ctx *cx, uint32_t stmt)
{
    const ssa_func *s = cx->pf->ssa;
    for (uint32_t k = s->ref_off[stmt]; k < s->ref_off[stmt + 1]; k++) {
        const ssa_ref *u = &s->refs[k];
        if (!(u->role & PTX_REF_USE) || (u->role & PTX_REF_GUARD) || u->value == SSA_NONE) continue;
        if (cx->wwid[u->value]) return true; /* only a ⊥ has a width (merge_iv) */
    }
    return false;
}

/* Whether the sign rule may add to the form of an instruction with
 * decoded rule op (wf_sign): one of AFF_SIGN_RULES, or not decoded yet. */
static inline bool may_sign(const aff_op *op) { return !op->decoded || AFF_SIGN_RULES >> op->d.rule & 1; }

/* forms: !cx->poly_only, a constant in each of the solver's two copies
 * (solve).  Whether the rule of the sign may add to the form's (false:
 * the instruction has none, wf_sign). */
static inline __attribute__((always_inline)) bool eval_inst(const aff_ctx *cx, uint32_t v, absval *out, bool forms)
{
    const ssa_func *s = cx->pf->ssa;
    const ssa_value *val = &s->values[v];
    uint32_t gv;
    unsigned kinds = scan_refs(cx, val, &gv, out, forms);
    if (cx->r->source[v] != DIV_SRC_NONE) { /* a load or the like: decoded when the sign rule is first asked */
        set_both(cx, out, BOTH_BOT, true, true);
        return may_sign(&cx->ops[val->stmt]);
    }
    if (gv != SSA_NONE) {
        if (val_top(cx, gv)) { set_both(cx, out, BOTH_TOP, true, true); return true; }
        /* a predicated definition with a divergent guard */
        if (!val_uniform(cx, gv)) { set_both(cx, out, BOTH_BOT, true, true); return true; }
    }
    const ptx_inst *in = &cx->pf->fn->stmts[val->stmt]->u.inst;
    const aff_op *op = aff_decode(cx, val->stmt);
    bool pa = false, pw = !forms;
    if (op->d.rule != PTX_IOP_GENERIC) {
        /* every warp-form rule is strict: ⊤ while an operand is ⊤, else ⊥
         * once one is ⊥ (warp_form.c); then only the polynomial's rule */
        if (forms && !(kinds & (WC_KIND(WF_TOP) | WC_KIND(WF_BOT)))) {
            unsigned ok = aff_rule_both(cx, val->stmt, in, op, val, &out->a, &out->w);
            pa = ok & AFF_R_POLY, pw = ok & AFF_R_WARP;
        } else {
            pa = aff_rule_poly(cx, val->stmt, in, op, val, &out->a);
            if (forms) (kinds & WC_KIND(WF_TOP) ? wf_top : wf_bot)(&out->w), pw = true;
        }
    }
    if (!forms) wf_top(&out->w);
    if (!pa || !pw) set_both(cx, out, generic(cx, val->stmt, op->from), !pa, !pw);
    if (forms && out->w.kind == WF_BOT && (WF_IV_RULES >> op->d.rule & 1)) {
        bool iv = reads_interval(cx, val->stmt);
        if (iv || (WF_IV_MAKE >> op->d.rule & 1)) aff_rule_iv(cx, val->stmt, in, op, iv, &out->w);
    }
    bool sign = may_sign(op);
    if (!val->partial || val->prev == SSA_NONE) return sign;
    /* under a uniform guard every lane keeps, or every lane replaces, the
     * old value */
    if (!out->a.top) {
        aff old;
        aff_get(cx, val->prev, &old);
        aff_meet(&out->a, &out->a, &old);
    }
    if (forms && out->w.kind != WF_TOP) {
        wform old;
        wf_get(cx, val->prev, &old);
        wf_meet(&out->w, &out->w, &old);
    }
    return sign;
}

static inline __attribute__((always_inline)) void eval(const aff_ctx *cx, const node_gates *gates, uint32_t v,
                                                       absval *out, bool forms)
{
    const ssa_value *val = &cx->pf->ssa->values[v];
    bool sign = false; /* a special register's or an entry value's form has its sign */
    switch (val->kind) {
    case SSA_V_SREG:
        eval_sreg(cx, val, &out->a);
        if (!forms) wf_top(&out->w), out->wc = 0;
        else wf_eval_sreg(cx, val, &out->w, &out->wc);
        /* %tid.y/%tid.z are uniform monomials only by the default assumption */
        out->ac = val->reg == PTX_SR_TID && val->comp != 'x' && cx->r->shape_assumed && !cx->r->yz_by_option
                      ? DIV_COND_X32 : 0;
        break;
    case SSA_V_ENTRY:
        out->ac = out->wc = 0;
        if (val->param) aff_bottom(&out->a, cx->n), wf_bot(&out->w); /* a .func's register parameter */
        else aff_uniform_unknown(&out->a, cx->n), wf_uni(&out->w, 0, 0); /* undefined: any value will do */
        break;
    case SSA_V_INST:
        sign = eval_inst(cx, v, out, forms);
        break;
    default: eval_node(cx, gates, v, out), sign = true; break;
    }
    if (!forms) wf_top(&out->w);
    else {
        cx->xch[v] = exchange(cx, out);
        if (sign) wf_sign(cx, v, &out->w);
    }
}

/* The re-evaluation of instruction value v when only the assumption bits
 * of what it reads changed since its last evaluation (solve): its
 * components would come out as they did then, so only the bits are made,
 * as eval makes them (scan_refs, then what exchange did last time).
 * Whether they changed. */
static inline __attribute__((always_inline)) bool eval_conds(aff_ctx *cx, uint32_t v)
{
    absval x;
    uint32_t gv;
    scan_refs(cx, &cx->pf->ssa->values[v], &gv, &x, true);
    if (cx->xch[v] == XCH_WC_AC) x.wc = x.ac;
    else if (cx->xch[v] == XCH_AC_WC) x.ac = x.wc;
    if ((cx->ac[v] | x.ac) == cx->ac[v] && (cx->wc[v] | x.wc) == cx->wc[v]) return false;
    cx->ac[v] |= x.ac;
    cx->wc[v] |= x.wc;
    return true;
}

/* Whether g is the table interned last: values in a row often share a
 * table (a chain of adds to one index).  Lane 1 first: most tables that
 * differ differ there, and a call to memcmp costs more than the test.
 * Inline, so that merge_warp's first evaluation of a value asks it
 * without a call. */
static inline __attribute__((always_inline)) bool wg_is_last(const aff_ctx *cx, const int64_t *g)
{
    uint32_t t = cx->wglast;
    return t < cx->nwg && cx->wg[t][1] == g[1] && !memcmp(cx->wg[t], g, sizeof cx->wg[0]);
}

/* wg_intern past wg_is_last: the hash set, out of line, so that
 * merge_warp, where wg_intern is inlined, makes the test inline and the
 * call only for the set (one function of both: 82K more instructions). */
static __attribute__((noinline)) uint32_t wg_lookup(aff_ctx *cx, const int64_t *g)
{
    /* a sample of lanes that tells apart the tables kernels make (c·lane,
     * lane & m, lane >> s, …), folded with independent multiplies (one
     * chain of eight was half the cost of interning); equal hashes are
     * compared in full */
    uint64_t h = ((uint64_t)g[1] * 0x9e3779b97f4a7c15u) ^ ((uint64_t)g[2] * 0xc2b2ae3d27d4eb4fu) ^
                 ((uint64_t)g[3] * 0x165667b19e3779f9u) ^ ((uint64_t)g[5] * 0xd6e8feb86659fd93u) ^
                 (((uint64_t)g[4] ^ (uint64_t)g[8] ^ ((uint64_t)g[16] << 21) ^ ((uint64_t)g[31] << 42)) * 0xff51afd7ed558ccdu);
    h ^= h >> 29;
    if (2 * (cx->nwg + 1) > cx->hcap) { /* keep the table at most half full */
        uint32_t cap = cx->hcap * 2, *nh = calloc(cap, sizeof *nh);
        if (!nh) abort();
        for (uint32_t i = 0; i < cx->hcap; i++)
            if (cx->wgh[i]) {
                uint32_t j = (uint32_t)cx->wgx[cx->wgh[i] - 1] & (cap - 1);
                while (nh[j]) j = (j + 1) & (cap - 1);
                nh[j] = cx->wgh[i];
            }
        if (cx->hcap > AFF_WGH0) free(cx->wgh); /* else the solver's own first table */
        cx->wgh = nh;
        cx->hcap = cap;
    }
    uint32_t i = (uint32_t)h & (cx->hcap - 1);
    for (; cx->wgh[i]; i = (i + 1) & (cx->hcap - 1)) {
        uint32_t e = cx->wgh[i] - 1;
        if (cx->wgx[e] == h && !memcmp(cx->wg[e], g, sizeof cx->wg[e])) return cx->wglast = e;
    }
    if (cx->nwg == cx->capwg) { /* in the result's arena, where they end: the old copy is left there */
        cx->capwg = cx->capwg ? cx->capwg * 2 : 4;
        int64_t(*wg)[WF_LANES] = arena_alloc(cx->a, sizeof *cx->wg * cx->capwg);
        uint64_t *wgx = arena_alloc(cx->a, sizeof *cx->wgx * cx->capwg);
        uint32_t *wgt = arena_alloc(cx->a, sizeof *cx->wgt * cx->capwg);
        if (cx->nwg)
            memcpy(wg, cx->wg, sizeof *cx->wg * cx->nwg), memcpy(wgx, cx->wgx, sizeof *cx->wgx * cx->nwg),
                memcpy(wgt, cx->wgt, sizeof *cx->wgt * cx->nwg);
        cx->wg = wg, cx->wgx = wgx, cx->wgt = wgt;
    }
    memcpy(cx->wg[cx->nwg], g, sizeof cx->wg[0]);
    cx->wgx[cx->nwg] = h;
    cx->wgt[cx->nwg] = (cx->nwg + 1) | wf_tab_bits(g);
    cx->wgh[i] = ++cx->nwg;
    return cx->wglast = cx->nwg - 1;
}

/* The index of lane table g in cx->wg, added when new.  Tables are kept
 * once each (a kernel has few distinct ones: lane, 4·lane, lane & 15, …),
 * so that equal tables have equal indices and memory grows with the
 * distinct tables, not with the values. */
static uint32_t wg_intern(aff_ctx *cx, const int64_t *g)
{
    return wg_is_last(cx, g) ? cx->wglast : wg_lookup(cx, g);
}

/* merge_warp where the old or the new value is an interval (warp_form.h
 * wid): old ∧ new by wf_meet, widened at a μ (an interval that grows
 * there goes to ⊥ at once: a loop adding to it would grow it without end);
 * whether anything changed. */
static bool merge_iv(aff_ctx *cx, uint32_t v, const wform *w)
{
    wform old, m;
    uint8_t ok = cx->wkind[v];
    if (ok == WF_TOP) m = *w;
    else {
        wf_get(cx, v, &old);
        wf_meet(&m, &old, w);
        m.nn = w->nn && old.nn;
        const ssa_value *val = &cx->pf->ssa->values[v];
        bool mu = val->kind == SSA_V_PHI && cx->pf->gsa->nodes[val->node].kind == GSA_MU;
        uint32_t ow = old.kind == WF_BOT ? old.wid : 0;
        if (mu && m.kind == WF_BOT && m.wid > ow && (ow || old.kind != WF_BOT)) {
            uint8_t nn = m.nn;
            wf_bot(&m);
            m.nn = nn;
        }
    }
    bool iv = m.kind == WF_BOT && m.wid;
    if (m.kind == WF_BOT && !iv) m.k = 0, m.r = 0;
    /* the symbol, as merge_warp keeps it */
    uint64_t sym = (m.kind == WF_BOT && !iv) || m.k == 64 || m.sym == v + 1 ? 0 : m.sym;
    int64_t off = sym ? m.off : 0;
    if (ok != WF_TOP && (sym != cx->wsym[v] || off != cx->woff[v])) sym = 0, off = 0;
    uint64_t any = 0;
    if (iv)
        for (unsigned l = 1; l < WF_LANES; l++) any |= (uint64_t)m.g[l];
    uint32_t tab = m.kind == WF_LANE ? (ok == WF_LANE ? cx->wtab[v] : UINT32_MAX) : UINT32_MAX;
    if (ok != WF_TOP && m.kind == ok && m.k == cx->wk[v] && m.r == cx->wr[v] && m.nn == cx->wnn[v] &&
        sym == cx->wsym[v] && off == cx->woff[v] && (iv ? m.wid : 0) == cx->wwid[v] &&
        (!iv || (any ? cx->wtab[v] != UINT32_MAX && !memcmp(cx->wg[cx->wtab[v]], m.g, sizeof m.g)
                     : cx->wtab[v] == UINT32_MAX)))
        return false;
    if (m.kind == WF_LANE && tab == UINT32_MAX) tab = wg_intern(cx, m.g);
    if (iv && any) /* the old table when it is the same (most changes are to U's bits or the width) */
        tab = ok != WF_TOP && cx->wtab[v] != UINT32_MAX && (ok == WF_LANE || cx->wwid[v]) &&
                      !memcmp(cx->wg[cx->wtab[v]], m.g, sizeof m.g)
                  ? cx->wtab[v]
                  : wg_intern(cx, m.g);
    set_wkind(cx, v, cx->wc[v], m.kind);
    cx->wk[v] = m.k;
    cx->wr[v] = m.r;
    cx->wnn[v] = m.nn;
    cx->wsym[v] = sym;
    cx->woff[v] = off;
    cx->wwid[v] = iv ? m.wid : 0;
    cx->wtab[v] = tab;
    return true;
}

/* Stores old ∧ x's warp form and the union of the bits; what changed:
 * MW_CONDS, the bits, MW_FORM, the form. */
enum { MW_CONDS = 1, MW_FORM = 2 };
static inline __attribute__((always_inline)) unsigned merge_warp(aff_ctx *cx, uint32_t v, const absval *x)
{
    unsigned changed = 0;
    uint8_t ac = cx->ac[v], wc = cx->wc[v];
    if ((ac | x->ac) != ac || (wc | x->wc) != wc) {
        cx->ac[v] = ac | x->ac;
        cx->wc[v] = wc |= x->wc;
        changed = MW_CONDS;
    }
    if (x->w.kind == WF_TOP) return changed;
    const wform *w = &x->w;
    uint8_t ok = cx->wkind[v], kind = w->kind, k = w->k, nn = w->nn;
    /* the first evaluation (nine in ten), not an interval (a value still ⊤
     * has no width, merge_iv): the new form as it is */
    if (__builtin_expect(ok == WF_TOP, 1) && !(kind == WF_BOT && w->wid)) {
        uint64_t sym = kind == WF_BOT || k == 64 || w->sym == v + 1 ? 0 : w->sym;
        int64_t off = sym ? w->off : 0;
        set_wkind(cx, v, wc, kind);
        cx->wk[v] = k;
        cx->wr[v] = w->r;
        cx->wnn[v] = nn;
        cx->wsym[v] = sym;
        cx->woff[v] = off;
        if (kind == WF_LANE) cx->wtab[v] = wf_tab_index1(w) ? wf_tab_index1(w) - 1 : wg_intern(cx, w->g);
        return MW_FORM | changed;
    }
    /* an interval on either side (rare): the general meet */
    if (kind == WF_BOT ? w->wid || cx->wwid[v] : ok == WF_BOT && cx->wwid[v])
        return (merge_iv(cx, v, w) ? MW_FORM : 0) | changed;
    /* old ∧ new: the lane tables must be equal (or there is none: equal
     * tables have equal indices, compared where the form knows its own),
     * then the known bits of U are met */
    uint64_t r = w->r;
    if (ok != WF_TOP) {
        nn = nn && cx->wnn[v]; /* the sign is kept below ⊥ too (wf_sign) */
        if (kind == WF_BOT || ok == WF_BOT || kind != ok ||
            (kind == WF_LANE && (wf_tab_index1(w) ? wf_tab_index1(w) - 1 != cx->wtab[v]
                                                  : memcmp(cx->wg[cx->wtab[v]], w->g, sizeof w->g) != 0)))
            kind = WF_BOT, k = 0, r = 0;
        else wf_meet_bits(cx->wr[v], cx->wk[v], r, k, &r, &k);
    }
    /* the symbol: kept while every evaluation brings the same (warp_form.h) */
    uint64_t sym = kind == WF_BOT || k == 64 || w->sym == v + 1 ? 0 : w->sym;
    int64_t off = sym ? w->off : 0;
    if (ok != WF_TOP) {
        if (sym != cx->wsym[v] || off != cx->woff[v]) sym = 0, off = 0;
        if (kind == ok && k == cx->wk[v] && r == cx->wr[v] && nn == cx->wnn[v] && sym == cx->wsym[v]) return changed;
    }
    set_wkind(cx, v, wc, kind);
    cx->wk[v] = k;
    cx->wr[v] = r;
    cx->wnn[v] = nn;
    cx->wsym[v] = sym;
    cx->woff[v] = off;
    if (kind == WF_LANE && ok == WF_TOP) cx->wtab[v] = wg_intern(cx, w->g); /* else the table is unchanged */
    return MW_FORM | changed;
}

static bool dim_divergent(const div_result *r, unsigned d)
{
    if (d == DIV_C_Y) return !r->tid_y_uniform;
    if (d == DIV_C_Z) return !r->tid_z_uniform;
    return true; /* tid.x and laneid */
}

/* Why a value is in the queue (inq): a value it reads changed (or its
 * first evaluation), or only the assumption bits of what it reads (forms
 * only; eval_conds).  A change in the bits of a loop's μ alone makes
 * the whole loop's body run again, with every value as it was (5% of the
 * evaluations over the corpus). */
enum { Q_VALUE = 1, Q_CONDS = 2 };

/* One evaluation of the solver (solver.h): vertex v, queued for why; the
 * reason to queue its users with, 0 when nothing changed.  Compiled twice:
 * forms (!cx->poly_only) is a constant in each copy, so the
 * polynomials-only tests of eval fold away.  The helpers it calls once
 * per evaluation (eval, merge, merge_warp, eval_node, …) are always_inline:
 * with two call sites GCC kept them out of line, which cost 4% more
 * instructions in both modes. */
typedef struct solve_ctx {
    aff_ctx *cx;
    node_gates *gates;
    const ssa_func *s;
    div_result *r;
    uint32_t nv;
} solve_ctx;

static inline __attribute__((always_inline)) unsigned visit(const solve_ctx *x, uint32_t v, unsigned why, bool forms)
{
    aff_ctx *cx = x->cx;
    node_gates *gates = x->gates;
    const ssa_func *s = x->s;
    uint32_t nv = x->nv;
    x->r->steps++;
    if (v >= nv) { /* a gate set: queued when one of its gates changed */
        uint32_t k = v - nv, i;
        if (gates->set_div[k]) return 0;
        uint8_t c = 0;
        for (i = gates->set.off[k]; i < gates->set.off[k + 1]; i++) {
            uint32_t gv = gates->set.item[i];
            if (!val_top(cx, gv) && !val_uniform(cx, gv)) break;
            c |= verdict_cond(cx, gv);
        }
        if (i == gates->set.off[k + 1]) {
            if ((gates->set_cond[k] | c) == gates->set_cond[k]) return 0;
            gates->set_cond[k] |= c;
        } else gates->set_div[k] = 1;
        return Q_VALUE;
    }
    if (forms && why == Q_CONDS && cx->xch[v] && s->values[v].kind == SSA_V_INST) {
        /* an instruction evaluated before */
        return eval_conds(cx, v) ? Q_CONDS : 0;
    }
    absval nw;
    eval(cx, gates, v, &nw, forms);
    bool ch = !nw.a.top && merge(cx, v, &nw.a);
    unsigned mw = merge_warp(cx, v, &nw);
    if (!ch && !mw) return 0;
    return forms && !ch && mw == MW_CONDS ? Q_CONDS : Q_VALUE;
}

static inline __attribute__((always_inline)) unsigned visit_forms(void *c, uint32_t v, unsigned why)
{
    return visit(c, v, why, true);
}

static inline __attribute__((always_inline)) unsigned visit_poly(void *c, uint32_t v, unsigned why)
{
    return visit(c, v, why, false);
}

div_result *div_analyse(const prog_func *pf, enum div_analysis an, const div_options *o, arena *a)
{
    if (an == DIV_AN_SIMPLE) return div_simple(pf, o, a);
    const ssa_func *s = pf->ssa;
    uint32_t nv = s->nvalues, n1 = nv ? nv : 1;
    div_result *r = div_result_new(pf, an, o, a);
    r->ncoef = an == DIV_AN_AFFINE ? DIV_NCOEF1 : DIV_NCOEF2;
    /* rows are made when a value first gets a non-zero coefficient */
    r->cslot = arena_alloc(a, sizeof *r->cslot * (size_t)n1);
    memset(r->cslot, 0xff, sizeof *r->cslot * (size_t)n1);
    r->bot = arena_alloc(a, sizeof *r->bot * (size_t)n1);
    r->wkind = ARENA_NEWN(a, uint8_t, n1); /* WF_TOP = 0 */
    r->wk = ARENA_NEWN(a, uint8_t, n1);
    r->wnn = ARENA_NEWN(a, uint8_t, n1);
    r->wr = ARENA_NEWN(a, uint64_t, n1);
    r->wtab = ARENA_NEWN(a, uint32_t, n1);
    r->wsym = ARENA_NEWN(a, uint64_t, n1);
    r->woff = ARENA_NEWN(a, int64_t, n1);
    r->wwid = ARENA_NEWN(a, uint32_t, n1);
    memset(r->wtab, 0xff, sizeof *r->wtab * n1);
    unsigned dims = 0;
    for (unsigned d = DIV_C_X; d <= DIV_C_LANE; d++)
        if (dim_divergent(r, d)) dims |= 1u << d;
    uint32_t nvert = div_graph_vertices(pf); /* values, then gate sets */
    uint8_t *top = malloc(n1), *conds = calloc(3 * (size_t)n1, 1);
    if (!top || !conds) abort();
    memset(top, 1, n1);
    memset(conds + n1, WC_KIND(WF_TOP), n1); /* cx.wc */
    uint32_t opv[AFF_NOPD], wgh0[AFF_WGH0] = {0};
    aff_op *ops = calloc(pf->fn->nstmts ? pf->fn->nstmts : 1, sizeof *ops);
    div_stmt_info *info = malloc(sizeof *info * (pf->fn->nstmts ? pf->fn->nstmts : 1));
    if (!ops || !info) abort();
    aff_ctx cx = {.pf = pf, .r = r, .a = a, .top = top, .n = r->ncoef, .ops = ops, .info = info,
                  .divmask = (uint16_t)(aff_mask_any(dims) & AFF_ALL(r->ncoef)),
                  .wkind = r->wkind, .wk = r->wk, .wnn = r->wnn, .wr = r->wr, .wtab = r->wtab, .wsym = r->wsym, .woff = r->woff, .wwid = r->wwid, .ac = conds, .wc = conds + n1, .xch = conds + 2 * n1,
                  .poly_only = o && o->polynomials_only, .opv = opv,
                  .wgh = wgh0, .hcap = AFF_WGH0};
    for (unsigned d = 0; d < 2; d++) wf_tid_form(r, d, &cx.tidf[d]);
    u32csr users;
    node_gates gates;
    div_graph_build(pf, r, &users, info, &gates.expr, &gates.set);
    uint32_t nsets = pf->gsa->ngate_sets ? pf->gsa->ngate_sets : 1;
    gates.set_div = calloc(nsets, 1);
    gates.set_cond = calloc(nsets, 1);
    if (!gates.set_div || !gates.set_cond) abort();
    /* every value once in the SSA order, then those whose inputs changed */
    uint32_t *ord = r->order = arena_alloc(a, sizeof *ord * n1);
    r->norder = ssa_value_order(pf->ssa, ord);
    solver q;
    solver_init(&q, &users, nvert, ord, r->norder, false);
    solve_ctx sc = {&cx, &gates, s, r, nv};
    if (cx.poly_only) solver_run(&q, s->values, nv, &sc, visit_poly);
    else solver_run(&q, s->values, nv, &sc, visit_forms);
    solver_free(&q);
    /* Never reached by a computed value (no execution defines them): any
     * claim holds; say uniform, as the simple analysis does. */
    aff uu;
    aff_uniform_unknown(&uu, cx.n);
    for (uint32_t v = 0; v < nv; v++) {
        if (top[v]) put(&cx, v, &uu);
        if (r->wkind[v] != WF_TOP) continue;
        /* (without the forms, wc's kind bits are never read) */
        if (cx.poly_only) r->wkind[v] = WF_BOT;
        else set_wkind(&cx, v, cx.wc[v], WF_UNI);
        r->wk[v] = 0, r->wr[v] = 0;
    }
    uint16_t pair = (uint16_t)(aff_mask_all(dims) & AFF_ALL(r->ncoef) & ~AFF_ALL(DIV_NCOEF1));
    for (uint32_t v = 0; v < nv; v++) {
        aff x;
        aff_get(&cx, v, &x);
        if (aff_uniform(&cx, &x) || r->wkind[v] == WF_UNI) {
            r->state[v] = DIV_UNIFORM;
            r->cond[v] = verdict_cond(&cx, v);
            continue;
        }
        r->cond[v] = cx.ac[v];
        if (an == DIV_AN_AFFINE) r->state[v] = (x.bot & cx.divmask) ? DIV_DIVERGENT : DIV_AFFINE;
        /* degree 2 (Theorem 3.5): no quadratic term in the varying dimensions */
        else r->state[v] = aff_zero_on(&x, pair) ? DIV_AFFINE : DIV_DIVERGENT;
    }
    /* the lane tables, made in the result's arena */
    r->nwg = cx.nwg;
    r->wg = cx.nwg ? &cx.wg[0][0] : ARENA_NEWN(a, int64_t, WF_LANES);
    if (cx.hcap > AFF_WGH0) free(cx.wgh);
    u32csr_free(&users);
    u32csr_free(&gates.expr);
    u32csr_free(&gates.set);
    free(gates.set_div);
    free(gates.set_cond);
    free(ops);
    free(info);
    free(top);
    free(conds);
    return r;
}

bool div_warp_form(const div_result *r, uint32_t v, wform *out)
{
    if (!r->wkind) return false;
    out->kind = r->wkind[v];
    out->k = r->wk[v];
    out->r = r->wr[v];
    out->nn = r->wnn[v];
    out->sym = r->wsym[v], out->off = r->woff[v];
    out->wid = r->wwid[v];
    if (!out->sym && (out->kind == WF_UNI || out->kind == WF_LANE || out->wid) && out->k < 64) out->sym = v + 1; /* its own root */
    if (out->kind == WF_LANE || (out->wid && r->wtab[v] != UINT32_MAX))
        memcpy(out->g, r->wg + (size_t)r->wtab[v] * WF_LANES, sizeof out->g);
    else if (out->wid) memset(out->g, 0, sizeof out->g);
    out->tab = 0; /* the solver's tables are its own */
    return true;
}

/* ---- the no-wraparound assumption, for the checker of claims (divergence.h) ---------------------- */
void div_nowrap_build(const prog_func *pf, div_nowrap *out)
{
    const ptx_func *fn = pf->fn;
    uint32_t ns = fn->nstmts ? fn->nstmts : 1;
    arena a;
    arena_init(&a);
    div_result *r = div_result_new(pf, DIV_AN_AFFINE, NULL, &a);
    div_stmt_info *info = calloc(ns, sizeof *info);
    aff_op *ops = calloc(ns, sizeof *ops);
    out->read = calloc(ns, 1);
    if (!info || !ops || !out->read) abort();
    div_graph_build(pf, r, &out->users, info, NULL, NULL);
    out->nvertices = div_graph_vertices(pf);
    aff_ctx cx = {.pf = pf, .r = r, .ops = ops, .info = info};
    for (uint32_t s = 0; s < fn->nstmts; s++) {
        uint32_t b = pf->g->stmt_block[s];
        if (fn->stmts[s]->kind != PTX_S_INST || b == CFG_NONE || !pf->g->blocks[b].reachable) continue;
        out->read[s] = aff_nowrap_read(aff_decode(&cx, s));
    }
    free(ops);
    free(info);
    arena_free(&a);
}

void div_nowrap_free(div_nowrap *w)
{
    free(w->read);
    u32csr_free(&w->users);
    w->read = NULL;
}
