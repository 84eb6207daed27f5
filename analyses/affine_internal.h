/* Shared by the affine solver (affine.c) and its transfer functions
 * (affine_rules.c for both components, the forms' intervals and their
 * sign bit, warp_rules.c for the special registers). */
#ifndef PTXRAY_AFFINE_INTERNAL_H
#define PTXRAY_AFFINE_INTERNAL_H
#include <string.h>
#include "aff_poly.h"
#include "div_internal.h"
#include "warp_form.h"

/* The rule of an instruction: its integer operation (ptx_iop_decode, the
 * one decoder: semantics.h), with what the solver adds, decoded once. */
typedef struct aff_op {
    ptx_iop d;        /* the statement's operation (ptx_iop_decode); rule PTX_IOP_GENERIC when from is set */
    uint8_t decoded;
    uint8_t from;     /* nonzero: the value depends on operands [from, n) only (div_graph's dep_from) */
} aff_op;

/* The rules whose case in affine_rules.c's rules has a rule of the sign
 * (its sign mode): loads, floating point, predicates, ... have no sign. */
#define AFF_SIGN_RULES                                                                                          \
    (1u << PTX_IOP_MOV_INT | 1u << PTX_IOP_ADD | 1u << PTX_IOP_MUL | 1u << PTX_IOP_MAD | 1u << PTX_IOP_SHL |          \
     1u << PTX_IOP_SHR | 1u << PTX_IOP_AND | 1u << PTX_IOP_OR | 1u << PTX_IOP_XOR | 1u << PTX_IOP_SELP |               \
     1u << PTX_IOP_MINMAX | 1u << PTX_IOP_DIV | 1u << PTX_IOP_REM | 1u << PTX_IOP_CVT_U | 1u << PTX_IOP_CVT_S)

#define AFF_WGH0 64

/* Operands whose values the solver looks up once per evaluation (aff_use). */
#define AFF_NOPD 8

typedef struct aff_ctx {
    const prog_func *pf;
    const div_result *r;   /* its coefficient rows and bot hold the current solution */
    arena *a;              /* r's arena, for coefficient rows */
    const uint8_t *top;    /* per value: still ⊤ */
    unsigned n;            /* coefficients per value */
    uint16_t divmask;      /* coefficients of monomials with a divergent dimension */
    aff_op *ops;           /* per statement, decoded on first use */
    const div_stmt_info *info; /* per statement, from div_graph_build */
    /* the warp forms (warp_form.h) of the values, beside the polynomials */
    uint8_t *wkind, *wk, *wnn;
    uint64_t *wr;
    uint32_t *wtab;        /* WF_LANE: index into wg */
    uint64_t *wsym;        /* symbol identity (warp_form.h sym, off; 0: own root) */
    int64_t *woff;
    uint32_t *wwid;        /* ⊥ with an interval: its width (divergence.h) */
    int64_t (*wg)[WF_LANES]; /* the distinct lane tables (wg_intern), in the result's arena */
    uint64_t *wgx;         /* their hashes */
    uint32_t *wgt;         /* their wform tab: index + 1 and what fix_lanes may skip (warp_form.h) */
    uint32_t nwg, capwg;
    uint32_t wglast;       /* the table wg_intern found or made last */
    uint32_t *wgh, hcap;   /* open-addressed hash set of wg indices + 1 (first AFF_WGH0 slots on the stack) */
    uint8_t *ac, *wc;      /* DIV_COND_* bits the polynomial / the warp form rest on */
    uint8_t *xch;          /* per value: what exchange did last (affine.c; 0: not evaluated), read for instructions */
    bool poly_only;        /* div_options.polynomials_only */
    wform tidf[2];         /* the forms of %tid.x and %tid.y (for the exchange) */
    /* the statement being evaluated: the value operand k < AFF_NOPD reads
     * (ssa_use_value's answer, found in one pass for both rules) */
    uint32_t *opv;
} aff_ctx;

/* The value operand k of stmt (the statement being evaluated) reads. */
static inline uint32_t aff_use(const aff_ctx *cx, uint32_t stmt, unsigned k)
{
    return k < AFF_NOPD ? cx->opv[k] : ssa_use_value(cx->pf->ssa, stmt, k);
}

void aff_get(const aff_ctx *cx, uint32_t v, aff *out);
/* Uniform: every coefficient that varies within a warp is known to be 0. */
static inline bool aff_uniform(const aff_ctx *cx, const aff *a)
{
    /* aff_zero_on, inline: the solver asks it of nearly every value */
    uint16_t m = cx->divmask;
    if (a->bot & m) return false;
    for (m &= AFF_ALL(a->n); m; m &= (uint16_t)(m - 1)) /* the divergent coefficients only */
        if (a->c[__builtin_ctz(m)]) return false;
    return true;
}

/* The rules of an instruction (affine_rules.c: one case per family of
 * operations for both components of the product).  ⊤ when an operand is
 * still ⊤; a component whose rule does not hold (an operand it does not
 * track, no rule of its own) is left to the solver, which applies the rule
 * of the paper's "other operators" (uniform when every operand is) to it,
 * as it does to both for the guard of a predicated definition.
 * aff_rule_poly: the polynomial only, true when its rule held;
 * aff_rule_both: both, AFF_R_POLY | AFF_R_WARP for those that held. */
enum { AFF_R_POLY = 1, AFF_R_WARP = 2 };
bool aff_rule_poly(const aff_ctx *cx, uint32_t stmt, const ptx_inst *in, const aff_op *op, const ssa_value *val, aff *out);
unsigned aff_rule_both(const aff_ctx *cx, uint32_t stmt, const ptx_inst *in, const aff_op *op, const ssa_value *val,
                       aff *out, wform *wo);
/* PTX_IOP_UNPACK: which element of in's vector destination val is, and the
 * elements' width in bits (*ew); false when it is none of them. */
bool aff_unpack_elem(const ptx_inst *in, const ssa_value *val, unsigned *i, unsigned *ew);

/* Decodes the rule of the instruction at stmt once (affine_rules.c). */
const aff_op *aff_decode(const aff_ctx *cx, uint32_t stmt);
/* How the rule decoded into op reads operands 1 and 2 under the
 * no-wraparound assumption (divergence.h, div_nowrap): 0, or a width
 * with DIV_NOWRAP_SIGNED (affine_rules.c). */
uint8_t aff_nowrap_read(const aff_op *op);

void wf_get(const aff_ctx *cx, uint32_t v, wform *out);
/* wf_get, inline: the rules read one per operand. */
static inline void wf_load(const aff_ctx *cx, uint32_t v, wform *out)
{
    out->kind = cx->wkind[v];
    out->k = cx->wk[v];
    out->r = cx->wr[v];
    out->nn = cx->wnn[v];
    out->sym = cx->wsym[v], out->off = cx->woff[v];
    out->wid = out->kind == WF_BOT ? cx->wwid[v] : 0;
    /* a U with no root of its own is its own root (warp_form.h sym) */
    if (!out->sym && (out->kind == WF_UNI || out->kind == WF_LANE || out->wid) && out->k < 64) out->sym = v + 1;
    if (out->kind == WF_LANE) memcpy(out->g, cx->wg[cx->wtab[v]], sizeof out->g), out->tab = cx->wgt[cx->wtab[v]];
    else if (out->wid) { /* an interval's low end */
        if (cx->wtab[v] == UINT32_MAX) memset(out->g, 0, sizeof out->g), out->tab = 0;
        else memcpy(out->g, cx->wg[cx->wtab[v]], sizeof out->g), out->tab = cx->wgt[cx->wtab[v]];
    }
}
/* Operand k of the statement being evaluated as a polynomial (into a)
 * and as a warp form (into w), either NULL where not wanted (a constant
 * in each of the rules' calls, affine_rules.c); false, for both alike,
 * when it is not an integer operand we track (vectors, expressions) or
 * its register has no value. */
static inline __attribute__((always_inline)) bool opds(const aff_ctx *cx, uint32_t stmt, const ptx_inst *in, unsigned k,
                                                       aff *a, wform *w)
{
    if (k >= in->nopd) return false;
    const ptx_operand *o = &in->opd[k];
    switch (o->kind) {
    case PTX_O_IMM:
        /* a decimal float literal ("1.5") is held as double bits whatever
         * the instruction's type: uniform, but not that number */
        if ((o->flags & 3) == PTX_IMM_DEC) {
            if (a) aff_uniform_unknown(a, cx->n);
            if (w) wf_uni(w, 0, 0);
        } else {
            if (a) aff_const(a, cx->n, o->v);
            if (w) wf_const(w, o->v);
        }
        return true;
    case PTX_O_SYM: /* an address or label: one per program */
        if (a) aff_uniform_unknown(a, cx->n);
        if (w) wf_uni(w, 0, 0);
        return true;
    case PTX_O_REG: case PTX_O_SREG: {
        uint32_t v = aff_use(cx, stmt, k);
        if (v == SSA_NONE) return false;
        if (a) aff_get(cx, v, a);
        if (w) {
            wf_load(cx, v, w);
            if (o->neg && w->kind != WF_TOP && w->kind != WF_BOT) { /* the form of !p: 1 - p */
                wform one;
                wf_const(&one, 1);
                wf_xor(w, w, &one, 64);
            }
        }
        return true;
    }
    case PTX_O_ADDR: {
        if (o->n != 1) return false;
        const ptx_operand *b = &o->p.elems[0];
        if (b->kind == PTX_O_SYM || b->kind == PTX_O_IMM) {
            if (a) aff_uniform_unknown(a, cx->n);
            if (w) wf_uni(w, 0, 0);
            return true;
        }
        uint32_t v = aff_use(cx, stmt, k);
        if (v == SSA_NONE) return false;
        if (a) {
            aff base, off;
            aff_get(cx, v, &base);
            aff_const(&off, cx->n, o->v);
            aff_add(a, &base, &off);
        }
        if (w) {
            wform base, off;
            wf_load(cx, v, &base);
            wf_const(&off, o->v);
            wf_add(w, &base, &off, 64);
            wf_sym_addsub(w, &base, &off, 64, false);
        }
        return true;
    }
    default:
        return false;
    }
}
/* Operand k as an integer immediate (false: not one). */
static inline bool opd_imm(const ptx_inst *in, unsigned k, int64_t *c)
{
    if (k >= in->nopd || in->opd[k].kind != PTX_O_IMM || (in->opd[k].flags & 3) == PTX_IMM_DEC) return false;
    *c = in->opd[k].v;
    return true;
}
/* Operand k as a warp form alone. */
static inline __attribute__((always_inline)) bool wopd(const aff_ctx *cx, uint32_t stmt, const ptx_inst *in, unsigned k,
                                                       wform *w)
{
    return opds(cx, stmt, in, k, NULL, w);
}

/* The warp form of a special register under the result's block shape;
 * *cond: the DIV_COND_* bits it rests on. */
void wf_eval_sreg(const aff_ctx *cx, const ssa_value *val, wform *out, uint8_t *cond);
/* Sets w's sign bit (nn) where the operands' signs prove it, whatever w's
 * kind (⊥ included); w ⊤: unchanged (affine_rules.c: an instruction's
 * family's case of rules, in its sign mode).  v is the value just
 * evaluated: an instruction's operands are still in cx->opv. */
void wf_sign_rule(const aff_ctx *cx, uint32_t v, wform *w);
/* Where the form's rule of the instruction gave ⊥: the interval rule, if
 * the instruction has one and its operands allow (affine_rules.c, in the
 * instruction's case of the rules); iv: whether an operand is an
 * interval.  WF_IV_RULES: the rules that have one (the others are not
 * called). */
void aff_rule_iv(const aff_ctx *cx, uint32_t stmt, const ptx_inst *in, const aff_op *op, bool iv, wform *out);
#define WF_IV_RULES                                                                                             \
    (1u << PTX_IOP_AND | 1u << PTX_IOP_REM | 1u << PTX_IOP_SUB | 1u << PTX_IOP_MOV_INT | 1u << PTX_IOP_ADD |             \
     1u << PTX_IOP_MUL | 1u << PTX_IOP_MAD | 1u << PTX_IOP_SHL | 1u << PTX_IOP_SHR | 1u << PTX_IOP_DIV |                  \
     1u << PTX_IOP_CVT_S | 1u << PTX_IOP_CVT_U | 1u << PTX_IOP_SELP)
/* Of those, the ones that may make an interval where no operand is one
 * (the others only carry one: not called then). */
#define WF_IV_MAKE (1u << PTX_IOP_AND | 1u << PTX_IOP_REM | 1u << PTX_IOP_SUB)
_Static_assert(PTX_IOP_SET < 32, "WF_IV_RULES is a 32-bit mask of rules");
/* wf_sign_rule where it may add to w's sign: asked (affine.c, eval) of
 * phis, etas and instructions that may have a rule of the sign
 * (AFF_SIGN_RULES, or not decoded yet). */
static inline void wf_sign(const aff_ctx *cx, uint32_t v, wform *w)
{
    /* nothing to add where the form's rule proved it, or knows every lane
     * (and so that one is < 0) */
    if (w->kind == WF_TOP || w->nn || (w->kind != WF_BOT && w->k == 64)) return;
    /* the solver's merge keeps a sign bit only while every evaluation
     * brings it (affine.c merge_warp): once the stored one is 0, the bit
     * found here would be dropped */
    if (cx->wkind[v] != WF_TOP && !cx->wnn[v]) return;
    wf_sign_rule(cx, v, w);
}

#endif
