/* Transfer functions: the one place for the rule of each PTX integer
 * operation, one case per family of operations (rules), for every
 * representation of a value's dependence on the thread: both components
 * of the domain's product, the polynomial (the paper's Fig. 13 rules CNTA,
 * SUMA, MULA, ..., extended to PTX's integer arithmetic) and the warp form
 * (warp_form.h; its arithmetic is warp_form.c's), with the form's interval
 * and its sign bit; and, each in a mode of its own, lane-exact values, the
 * address facts and the stride names (rules.h).  A domain component
 * without a rule here is uniform when all the operands are and ⊥
 * otherwise (the paper's "other operators"); the other representations
 * give their unknown. */
#include <stdlib.h>
#include <string.h>
#include "affine_internal.h"
#include "lane_eval.h"
#include "rules.h"
#include "semantics.h"


/* Which rule applies to an instruction: its integer operation, decoded
 * once per statement by the SSA form (ptx_iop_decode: the one decoder and
 * its guards), unless div_graph found that only some operands matter
 * (a collective, a vote); then the comparison of a setp. */
static void decode(const aff_ctx *cx, uint32_t in_stmt, aff_op *op)
{
    const div_stmt_info *si = &cx->info[in_stmt];
    op->d = cx->pf->ssa->iop[in_stmt];
    op->decoded = 1;
    op->from = si->dep_from;
    if (si->dep_from) op->d.rule = PTX_IOP_GENERIC;
}

const aff_op *aff_decode(const aff_ctx *cx, uint32_t stmt)
{
    aff_op *op = &cx->ops[stmt];
    if (!op->decoded) decode(cx, stmt, op);
    return op;
}

/* mul.wide.u16 %r, %rs, -21845: the operands are read as the source type,
 * so an unsigned constant is zero-extended (0xaaab, not -21845). */
static void wide_operands(const aff_op *op, aff *a, aff *b)
{
    int64_t k;
    if (!op->d.wide || op->d.sgn || op->d.sw >= 64) return;
    if (aff_is_const(a, &k)) aff_const(a, a->n, (int64_t)((uint64_t)k & ((1ull << op->d.sw) - 1)));
    if (aff_is_const(b, &k)) aff_const(b, b->n, (int64_t)((uint64_t)k & ((1ull << op->d.sw) - 1)));
}

bool aff_unpack_elem(const ptx_inst *in, const ssa_value *val, unsigned *i, unsigned *ew)
{
    const ptx_operand *v = &in->opd[0];
    unsigned bits = ptx_type_bits(in->type);
    if (v->kind != PTX_O_VEC || !v->n || !bits || bits % v->n) return false;
    *ew = bits / v->n;
    for (unsigned k = 0; k < v->n; k++)
        if (v->p.elems[k].kind == PTX_O_REG && v->p.elems[k].n == val->reg) {
            *i = k;
            return true;
        }
    return false;
}

/* What a root says of U (warp_form.h sym): where the symbol is one special
 * register, ±U_s + off, U has U_s's known bits moved by off ((tid + p) -
 * p: tid's U ≡ 0 mod 32).  Only a special register's, whose form is the
 * shape's and never changes: a root the dataflow computes may lose bits
 * later while the values that name it keep their forms, and so are not
 * evaluated again. */
static void sym_refine(const aff_ctx *cx, wform *w, unsigned n)
{
    if ((w->kind != WF_UNI && w->kind != WF_LANE) || w->k == 64 || !w->sym || w->sym >> 32) return;
    uint32_t s = ((uint32_t)w->sym & ~WF_SYM_NEG) - 1;
    uint8_t kind = cx->wkind[s];
    if ((kind == WF_UNI || kind == WF_LANE) && cx->wk[s] > w->k && cx->pf->ssa->values[s].kind == SSA_V_SREG)
        wf_sym_known(w, cx->wr[s], cx->wk[s], n);
}

/* The warp form of a op b, with a - b made as the sub rule makes it when
 * the operands share a root (that is where U - U cancels); else
 * wf_cmp_diff makes it if a method needs it (wf_cmp, called directly). */
static inline __attribute__((always_inline)) void cmp_rule(const aff_ctx *cx, const aff_op *op, const wform *a,
                                                           const wform *b, wform *out, bool *nowrap)
{
    if (!a->sym || !b->sym || a->k == 64 || b->k == 64 || !wf_sym_shares(a->sym, b->sym)) {
        wf_cmp_diff(out, (enum wf_cmp_op)op->d.cmp, a, b, NULL, op->d.sw, op->d.sgn, nowrap);
        return;
    }
    wform d;
    wf_sub(&d, a, b, op->d.sw);
    if (wf_sym_addsub(&d, a, b, op->d.sw, true)) sym_refine(cx, &d, op->d.sw);
    wf_cmp_diff(out, (enum wf_cmp_op)op->d.cmp, a, b, &d, op->d.sw, op->d.sgn, nowrap);
}

/* A polynomial rule's result, reduced to w bits (the rules whose result
 * wraps: the arithmetic is modulo 2^w). */
static inline __attribute__((always_inline)) unsigned wrapped(aff *out, unsigned w)
{
    if (!out->top) aff_wrap(out, w);
    return AFF_R_POLY;
}

/* The interval of x % k, x's value v (>= 0: div_magic_rem's idiom). */
static void iv_magic_rem(const aff_ctx *cx, uint32_t v, int64_t k, unsigned w, wform *out)
{
    wform a, b;
    wf_load(cx, v, &a);
    if (!a.nn) return;
    if ((a.kind == WF_UNI || a.kind == WF_LANE) && a.k == 64) wf_const(&b, k), wf_rems(out, &a, &b, w);
    else wf_iv_rem(out, &a, k, w, true);
}

/* ---- the sign ---------------------------------------------------------------
 *
 * nn (warp_form.h) is one bit beside the form, and unlike the form it is
 * kept for a divergent value too: "every lane's n-bit value, read as a
 * signed n-bit number, is >= 0".  It is the only sign there is: the
 * coalescing and bank models read it (lane_nonneg) where they need an
 * index >= 0.  That reading is the one that is sound for every consumer:
 * a value that is >= 0 as a signed n-bit number is the same number read
 * unsigned, signed or as an integer, so a signed multiply-high (nvcc's
 * remainder idiom), an unsigned shift (floor division) and an address
 * read over the integers all agree on it.  add, mad, mul, shl and a
 * truncation keep it under the no-wraparound assumption the reports
 * state; nothing else assumes anything (docs/divergence.md, "Signs").
 *
 * Each family's rule of the bit is in its case of rules (its sign mode,
 * which sign_rule asks), from the operands' bits alone, for any form; the
 * form's own rules (warp_form.c) prove more where they know the lanes (an
 * exact value's sign, a mask), and the dataflow keeps the union of the
 * two.  Each rule is monotone (an and/or of the operands' bits), an
 * operand still ⊤ counts as >= 0 (optimistic, as the forms are: a mu is
 * >= 0 when its entry values are and its back edges are, assuming it is),
 * and the solver meets the bit with the old one (affine.c, merge_warp), so
 * it only ever goes from 1 to 0 and the fixpoint is reached. */

/* Operand k's sign at width n: an immediate read as an n-bit number; a
 * register's value's bit (one still ⊤ counts as >= 0).  cx->opv holds the
 * values the statement reads: the solver runs the sign rule right after
 * the statement's evaluation (affine.c, eval). */
static inline __attribute__((always_inline)) bool nn_opd(const aff_ctx *cx, uint32_t stmt, const ptx_inst *in,
                                                         unsigned k, unsigned n)
{
    if (k >= in->nopd) return false;
    const ptx_operand *o = &in->opd[k];
    if (o->kind == PTX_O_IMM) return (o->flags & 3) != PTX_IMM_DEC && wf_sext((uint64_t)o->v, n) >= 0;
    if ((o->kind != PTX_O_REG && o->kind != PTX_O_SREG) || o->neg) return false;
    uint32_t v = aff_use(cx, stmt, k);
    return v != SSA_NONE && (cx->wkind[v] == WF_TOP || cx->wnn[v]);
}

/* Operand k as an n-bit constant (false: not an integer immediate). */
static bool opd_imm_n(const ptx_inst *in, unsigned k, unsigned n, int64_t *c)
{
    if (!opd_imm(in, k, c)) return false;
    *c = wf_sext((uint64_t)*c, n);
    return true;
}

/* Where a family's rule proved the sign (nn): the bit is the value's only
 * where the instruction writes it, the register operand 0, in every lane;
 * lanes the guard skips keep the old value. */
static inline __attribute__((always_inline)) bool sign_written(const aff_ctx *cx, const ssa_value *val,
                                                               const ptx_inst *in)
{
    if (cx->pf->ssa->refs[val->ref].opd != 0 || !in->nopd || in->opd[0].kind != PTX_O_REG) return false;
    return !val->partial || (val->prev != SSA_NONE && (cx->wkind[val->prev] == WF_TOP || cx->wnn[val->prev]));
}

/* ---- the other representations' modes (rules.h) -------------------------
 *
 * Lane-exact values, the address facts and the stride names have their rule
 * of each family in the family's case of rules too, each in its own mode
 * (rep), evaluated apart from the dataflow: lane by lane on demand
 * (lane_eval.c), in the address facts' own solve (addr_chain.c), named on
 * demand.  Their arithmetic is their own (lane_rules.c: integers under
 * the no-wraparound assumption; residue.h; the terms' term_add, rules.h,
 * and term_mul, addr_chain.c). */
enum { RULE_LANE = 1, RULE_FACT, RULE_TERM };
#define RULE_BIT(f) (1u << PTX_IOP_##f)
/* The families each mode has a rule for; the others give its unknown. */
static const uint32_t rule_families[] = {
    [RULE_LANE] = RULE_BIT(MOV_INT) | RULE_BIT(CVT_S) | RULE_BIT(CVT_U) | RULE_BIT(ADD) | RULE_BIT(SUB) |
                  RULE_BIT(MUL) | RULE_BIT(MAD) | RULE_BIT(SHL) | RULE_BIT(SHR) | RULE_BIT(AND) | RULE_BIT(OR) |
                  RULE_BIT(XOR) | RULE_BIT(DIV) | RULE_BIT(REM) | RULE_BIT(MINMAX) | RULE_BIT(SELP),
    [RULE_FACT] = RULE_BIT(MOV) | RULE_BIT(MOV_INT) | RULE_BIT(CVTA) | RULE_BIT(CVT_S) | RULE_BIT(CVT_U) |
                  RULE_BIT(ADD) | RULE_BIT(SUB) | RULE_BIT(MUL) | RULE_BIT(MAD) | RULE_BIT(SHL) | RULE_BIT(NEG) |
                  RULE_BIT(NOT) | RULE_BIT(AND) | RULE_BIT(SELP),
    [RULE_TERM] = RULE_BIT(MOV) | RULE_BIT(MOV_INT) | RULE_BIT(CVTA) | RULE_BIT(CVT_S) | RULE_BIT(CVT_U) |
                  RULE_BIT(ADD) | RULE_BIT(SUB) | RULE_BIT(MUL) | RULE_BIT(MAD) | RULE_BIT(SHL) | RULE_BIT(NEG),
};

/* A mode's arguments and result. */
typedef struct lane_call {
    ectx *e;
    unsigned depth;
    lv *out;
} lane_call;
typedef struct fact_call {
    const addr_chain *c;
    fact out;
} fact_call;
typedef struct term_call {
    const addr_chain *c;
    unsigned mono; /* the monomial */
    uint32_t *stack;
    unsigned depth;
    term out;
} term_call;

/* Whether the instruction at st is shr.s64 y, (shl.b64 t, x, 32), 32 - s:
 * nvcc's sign extension of a 32-bit int times 2^s.  Under the
 * no-wraparound assumption (x fits in an int) y = x·2^s. */
static bool lane_sext_idiom(const addr_chain *c, uint32_t st, uint32_t *x, unsigned *s)
{
    const ptx_inst *in = &c->pf->fn->stmts[st]->u.inst;
    if (in->op != PTX_OPC_SHR || in->type != PTX_T_S64 || in->nopd != 3 || in->opd[2].kind != PTX_O_IMM ||
        in->opd[2].v < 0 || in->opd[2].v > 32)
        return false;
    uint32_t t = ssa_use_value(c->pf->ssa, st, 1), tst;
    const ptx_inst *sh = t == SSA_NONE ? NULL : addr_def(c, t, &tst);
    if (!sh || c->pf->ssa->values[t].partial || sh->op != PTX_OPC_SHL || ptx_type_bits(sh->type) != 64 ||
        sh->nopd != 3 || sh->opd[2].kind != PTX_O_IMM || sh->opd[2].v != 32)
        return false;
    *x = ssa_use_value(c->pf->ssa, tst, 1);
    *s = (unsigned)(32 - in->opd[2].v);
    return *x != SSA_NONE;
}


/* The transfer function of each operation: one case per family, the
 * polynomial (out, the paper's Fig. 13 rules and the PTX rules of
 * docs/divergence.md), then, when warp, the warp form (wo, warp_form.h)
 * of the result.  Each component's rule may fail alone (an operand it
 * does not track, a case it has no rule for): the result says which held
 * (AFF_R_POLY, AFF_R_WARP).  Compiled twice (aff_rule_poly,
 * aff_rule_both), warp a constant in each: without it, each case returns
 * after its polynomial, as the polynomials' own rule did.  A form's rule
 * keeps U's symbol only where it says so (returning: mov, add, sub, neg,
 * not, truncation, a selp of equal forms); every other one gives a U of
 * its own (break).
 *
 * ivm (aff_rule_iv): instead, the interval (warp_form.h wid; the
 * arithmetic is warp_form.c's wf_iv_*) of a result whose form is ⊥ (wo),
 * for the rules of WF_IV_RULES: and with a constant m ≥ 0 bounds any
 * value to [0, m], rem by a constant to [0, d - 1] (as sub does for nvcc's
 * remainder idiom), and add, sub, mul and shl by a constant, shr, div by
 * 2^s, cvt, mov and a selp on a uniform predicate carry an interval
 * through (iv: an operand is one; these are asked only then).  The exact
 * forms are untouched.  op->d.w is read where it is used: held in a local, it
 * was kept in a register that each call made GCC spill and reload (4
 * instructions more per call than the polynomials' rule alone).
 *
 * sgn (sign_rule): instead, the sign bit of the result (1: every
 * lane's value is >= 0, the sign above) from the operands' bits (NN), for
 * any form of the result, ⊥ included: the solver asks it after the
 * exchange of the two components (affine.c, eval), where the form's rule
 * may not have run (an operand ⊥).  A family with no rule of the sign
 * (AFF_SIGN_RULES: loads, floating point, predicates, ...) returns 0.
 * The operands' bits first: they decide nearly every call (to "not >=
 * 0"), and the conditions on the result (sign_written), which only a bit
 * that holds needs, after.  Where a family's members have different signs
 * (add and sub, shl and shr, ...), each member has its own label, its sign
 * rule first, falling through to the family's other rules, which the
 * other modes share as before: the sign mode's jump goes straight to the
 * member's rule (a test of op->d.rule inside a shared case cost 2.5
 * instructions more per call than the switch of its own it replaced).
 *
 * rep (RULE_LANE, RULE_FACT, RULE_TERM; rx their arguments, rules.h):
 * instead, the other representations' rule, asked only for the families
 * of rule_families[rep] (rule_op), each after the family's domain modes' tests (a
 * member's own rule under its label, the family's under the shared one);
 * it returns 1 where it wrote the result (a fact or a term: always), 0
 * where there is none. */
static inline __attribute__((always_inline)) unsigned rules(const aff_ctx *cx, uint32_t stmt, const ptx_inst *in,
                                                            const aff_op *op, const ssa_value *val, aff *out,
                                                            wform *wo, bool warp, bool ivm, bool iv, bool sgn,
                                                            unsigned rep, void *rx)
{
    unsigned ok = 0;
    lane_call *L = rx;
    fact_call *F = rx;
    term_call *T = rx;
    aff a, b, c;
    wform x, y, z;
    bool nowrap = false, nn = false;
    int64_t k;
/* operand i as a polynomial (p) and, when warp, a warp form (q), fetched
 * once for both (opds: they fail alike; inline, as the forms' fetch was:
 * the polynomials' own, a call, cost 12 instructions more a fetch); as a
 * warp form alone */
#define OPD(i, p, q) opds(cx, stmt, in, (i), (p), warp ? (q) : NULL)
#define WOPD(i, q) wopd(cx, stmt, in, (i), (q))
/* operand i's sign bit, at the source width */
#define NN(i) nn_opd(cx, stmt, in, (i), op->d.sw)
/* operand i in each lane (lv), as a fact, as a named coefficient */
#define LOPD(i, l) le_opd(L->e, stmt, (i), (l), L->depth)
#define FOPD(i) fact_opd(F->c, stmt, (i))
#define TOPD(i) term_opd(T->c, stmt, (i), T->mono, T->stack, T->depth + 1)
    if (ivm && !(WF_IV_RULES >> op->d.rule & 1)) return 0;
    switch (op->d.rule) {
    case PTX_IOP_MOV: /* ASGA */
        if (sgn) return 0; /* sign: none (not an integer) */
        /* fall through */
    case PTX_IOP_MOV_INT:
        if (sgn) { /* sign: the operand's */
            nn = NN(1);
            break;
        }
        if (ivm) { /* interval: carried */
            WOPD(1, wo);
            return 0;
        }
        if (rep == RULE_LANE) return LOPD(1, L->out); /* lanes, fact, name: the operand's */
        if (rep == RULE_FACT) return F->out = FOPD(1), 1;
        if (rep == RULE_TERM) return T->out = TOPD(1), 1;
        if (!OPD(1, out, wo)) return 0;
        ok = op->d.rule == PTX_IOP_MOV ? AFF_R_POLY : wrapped(out, op->d.w);
        return warp ? ok | AFF_R_WARP : ok;
    case PTX_IOP_UNPACK: { /* polynomial: a constant's bits exactly; the low
                          * element as a truncation (no wraparound); another
                          * element of a value that is not uniform: none (a
                          * carry into it may differ per lane).  Form: (x >>
                          * i·ew) truncated to ew bits; sign: none */
        unsigned i, ew;
        if (sgn) return 0;
        if (!aff_unpack_elem(in, val, &i, &ew) || !OPD(1, out, &x)) return 0;
        if (out->top) ok = AFF_R_POLY;
        else if (aff_is_const(out, &k)) {
            uint64_t bits = ew >= 64 ? (uint64_t)k : (uint64_t)k >> (i * ew);
            aff_const(out, cx->n, wf_sext(bits, ew));
            ok = AFF_R_POLY;
        } else if (aff_uniform(cx, out)) aff_uniform_unknown(out, cx->n), ok = AFF_R_POLY;
        else if (i == 0) ok = AFF_R_POLY;
        if (!warp) return ok;
        wf_const(&y, (int64_t)(i * ew));
        wf_shr(&z, &x, &y, op->d.w, false);
        wf_cvt(wo, &z, op->d.w, ew, false, NULL);
        break;
    }
    case PTX_IOP_SUB: /* SUMA */
        if (sgn) return 0; /* sign: none */
        /* fall through */
    case PTX_IOP_ADD:
        if (sgn) { /* sign: both operands' (no wraparound) */
            nn = NN(1) && NN(2);
            break;
        }
        if (ivm) { /* interval: x % k by nvcc's idiom (a sub), else carried */
            uint32_t v;
            if (op->d.rule == PTX_IOP_SUB && in->op == PTX_OPC_SUB && div_magic_rem(cx->pf, stmt, &v, &k)) {
                iv_magic_rem(cx, v, k, op->d.w, wo);
                return 0;
            }
            if (iv && WOPD(1, &x) && WOPD(2, &y)) wf_iv_addsub(wo, &x, &y, op->d.w, op->d.rule == PTX_IOP_SUB);
            return 0;
        }
        if (rep == RULE_LANE) { /* lanes: x % d by nvcc's idiom (a sub) for x >= 0, else lane by lane */
            lv la, lb;
            uint32_t v;
            if (in->nopd != 3) return 0;
            if (div_magic_rem(L->e->c->pf, stmt, &v, &k) && lane_nonneg(L->e->c, v)) {
                if (!le_eval(L->e, v, &la, L->depth + 1)) return 0;
                la.nonneg = true;
                return lv_rem(L->e, &la, k, true, L->out);
            }
            if (!LOPD(1, &la) || !LOPD(2, &lb)) return 0;
            lv_addsub(L->e, &la, &lb, in->op == PTX_OPC_SUB, L->out);
            return 1;
        }
        if (rep == RULE_FACT) /* fact: a pointer plus or minus an integer stays one */
            return F->out = fact_ptr_arith(FOPD(1), FOPD(2), in->op == PTX_OPC_SUB), 1;
        if (rep == RULE_TERM) return T->out = term_add(TOPD(1), TOPD(2), in->op == PTX_OPC_SUB ? -1 : 1), 1;
        if (!OPD(1, &a, &x) || !OPD(2, &b, &y)) return 0;
        (op->d.rule == PTX_IOP_ADD ? aff_add : aff_sub)(out, &a, &b);
        ok = wrapped(out, op->d.w);
        if (!warp) return ok;
        (op->d.rule == PTX_IOP_ADD ? wf_add : wf_sub)(wo, &x, &y, op->d.w);
        if (wf_sym_addsub(wo, &x, &y, op->d.w, op->d.rule == PTX_IOP_SUB)) sym_refine(cx, wo, op->d.w);
        return ok | AFF_R_WARP;
    case PTX_IOP_NEG: case PTX_IOP_NOT: /* ~a = -a - 1 in two's complement (nvcc's "not" of a loop start); sign: none */
        if (sgn) return 0;
        if (rep == RULE_FACT) { /* fact: an integer; name: neg only */
            residue r = res_neg(FOPD(1).res);
            return F->out = fact_int(op->d.rule == PTX_IOP_NOT ? res_sub(r, res_exact(1)) : r), 1;
        }
        if (rep == RULE_TERM) {
            term t = TOPD(1);
            if (t.cyc) t = term_fail();
            t.k = -t.k;
            return T->out = t, 1;
        }
        if (!OPD(1, &a, &x)) return 0;
        aff_neg(out, &a);
        if (op->d.rule == PTX_IOP_NOT) aff_const(&b, cx->n, 1), aff_sub(out, out, &b);
        ok = wrapped(out, op->d.w);
        if (!warp) return ok;
        (op->d.rule == PTX_IOP_NEG ? wf_neg : wf_not)(wo, &x, op->d.w);
        wf_sym_neg(wo, &x, op->d.w, op->d.rule == PTX_IOP_NOT);
        return ok | AFF_R_WARP;
    case PTX_IOP_MAD: /* MULA; mad.lo / mad.wide: a*b + c; .wide: w is the doubled width */
        if (sgn) { /* sign: every operand's (no wraparound) */
            nn = NN(1) && NN(2) && NN(3);
            break;
        }
        /* fall through */
    case PTX_IOP_MUL: {
        bool mad = op->d.rule == PTX_IOP_MAD;
        if (sgn) { /* sign: both operands' (no wraparound) */
            nn = NN(1) && NN(2);
            break;
        }
        if (ivm) { /* interval: scaled by a constant (the operands extended first) */
            if (!WOPD(1, &x) || !WOPD(2, &y)) return 0;
            if (op->d.wide) {
                wf_iv_cvt(&x, &x, op->d.sw, op->d.w, op->d.sgn, &nowrap);
                if (y.kind != WF_UNI || y.k) wf_cvt(&y, &y, op->d.sw, op->d.w, op->d.sgn, &nowrap);
            }
            if (wf_is_const(&y, op->d.w, &k)) wf_iv_scale(wo, &x, k, op->d.w);
            else if (wf_is_const(&x, op->d.w, &k)) wf_iv_scale(wo, &y, k, op->d.w);
            else return 0;
            if (!mad) return 0;
            if (!WOPD(3, &z)) wf_bot(wo);
            else x = *wo, wf_iv_addsub(wo, &x, &z, op->d.w, false);
            return 0;
        }
        if (rep == RULE_LANE) { /* lanes: a·b (+ c), as integers */
            lv la, lb, lt;
            if (!LOPD(1, &la) || !LOPD(2, &lb) || !lv_mul(L->e, &la, &lb, &lt)) return 0;
            if (!mad) return *L->out = lt, 1;
            if (!LOPD(3, &la)) return 0;
            lv_addsub(L->e, &lt, &la, false, L->out);
            return 1;
        }
        if (rep == RULE_FACT) { /* fact: an integer (+ c) */
            fact f = fact_int(fact_product(FOPD(1), FOPD(2)));
            return F->out = mad ? fact_ptr_arith(f, FOPD(3), false) : f, 1;
        }
        if (rep == RULE_TERM) { /* name: times a uniform factor (+ c's) */
            term t = term_mul(T->c, stmt, TOPD(1), TOPD(2));
            return T->out = mad ? term_add(t, TOPD(3), 1) : t, 1;
        }
        if (!OPD(1, &a, &x) || !OPD(2, &b, &y) || (mad && !OPD(3, &c, &z))) return 0;
        wide_operands(op, &a, &b);
        aff_mul(out, &a, &b);
        if (mad) aff_add(out, out, &c);
        ok = wrapped(out, op->d.w);
        if (!warp) return ok;
        /* a uniform unknown stays one: nothing to extend; no rule here
         * reads whether an extension assumed no wraparound (NULL) */
        if (op->d.wide) {
            if (x.kind != WF_UNI || x.k) wf_cvt(&x, &x, op->d.sw, op->d.w, op->d.sgn, NULL);
            if (y.kind != WF_UNI || y.k) wf_cvt(&y, &y, op->d.sw, op->d.w, op->d.sgn, NULL);
        }
        wf_mul(wo, &x, &y, op->d.w);
        if (mad) wf_add(wo, wo, &z, op->d.w);
        break;
    }
    case PTX_IOP_SHR: /* polynomial: a << k = a * 2^k for a constant k; no shr */
        if (sgn) { /* sign: shr.u by at least 1 clears the sign bit; by 0 keeps the value */
            nn = (!op->d.sgn && opd_imm_n(in, 2, op->d.w, &k) && k > 0) || NN(1);
            break;
        }
        if (rep == RULE_LANE) { /* lanes: by a constant */
            lv la;
            uint32_t v;
            unsigned sh;
            if (!opd_imm(in, 2, &k)) return 0;
            k = (int64_t)wf_shr_amount((uint64_t)k, op->d.w, op->d.sgn);
            if (k == op->d.w) return lv_const(L->out, L->e->nl, 0), 1; /* shr.u by the width or more */
            if (lane_sext_idiom(L->e->c, stmt, &v, &sh)) { /* (int64)(int32)x << sh, no wraparound */
                if (!le_eval(L->e, v, &la, L->depth + 1)) return 0;
                lv_scale(L->e, &la, (int64_t)1 << sh, L->out);
                return 1;
            }
            if (!LOPD(1, &la)) return 0;
            /* a constant, or the sign of a value >= 0 (nvcc's signed-division idiom) */
            if (lv_fold(&la, k, op->d.w, op->d.sgn, op->d.sgn ? lv_rule_sar : lv_rule_shru, L->e->nl, L->out))
                return 1;
            /* an unsigned shift is floor division for values >= 0 only */
            if (!op->d.sgn && !la.nonneg) return 0;
            return lv_shr_floor(L->e, &la, (unsigned)k, L->out);
        }
        /* fall through */
    case PTX_IOP_SHL:
        if (sgn) { /* sign: a's (no wraparound) */
            nn = NN(1);
            break;
        }
        if (ivm) { /* interval: by a constant amount */
            if (!opd_imm(in, 2, &k)) return 0;
            if (op->d.rule == PTX_IOP_SHL) {
                if (wf_shl_factor((uint64_t)k, op->d.w) && WOPD(1, &x))
                    wf_iv_scale(wo, &x, wf_shl_factor((uint64_t)k, op->d.w), op->d.w);
            } else if (WOPD(1, &x))
                wf_iv_shr(wo, &x, (unsigned)wf_shr_amount((uint64_t)k, op->d.w, op->d.sgn), op->d.w, op->d.sgn);
            return 0;
        }
        if (rep) { /* lanes, fact, name: times 2^k for a constant k */
            if (in->nopd != 3 || !opd_imm(in, 2, &k)) return rep == RULE_FACT; /* fact: an integer */
            k = wf_shl_factor((uint64_t)k, op->d.w);
            if (rep == RULE_LANE) {
                lv la;
                if (!LOPD(1, &la)) return 0;
                lv_scale(L->e, &la, k, L->out);
                return 1;
            }
            if (rep == RULE_FACT) return F->out = fact_int(fact_product(FOPD(1), fact_int(res_exact(k)))), 1;
            term t = TOPD(1);
            if (t.cyc || (t.ok && __builtin_mul_overflow(t.k, k, &t.k))) t = term_fail();
            return T->out = t, 1;
        }
        if (op->d.rule == PTX_IOP_SHR) {
            if (!warp || !WOPD(1, &x) || !WOPD(2, &y)) return 0;
            wf_shr(wo, &x, &y, op->d.w, op->d.sgn);
            break;
        }
        if (!OPD(1, &a, &x) || !OPD(2, &b, &y)) return 0;
        if (a.top || b.top) aff_top(out, cx->n), ok = AFF_R_POLY;
        else if (aff_is_const(&b, &k)) { /* b, the constant k, made 2^k */
            b.c[0] = wf_shl_factor((uint64_t)k, op->d.w);
            aff_mul(out, &a, &b);
            ok = wrapped(out, op->d.w);
        }
        if (!warp) return ok;
        wf_shl(wo, &x, &y, op->d.w);
        break;
    case PTX_IOP_AND: /* the forms only; predicates as 0/1 */
        if (sgn) { /* sign: either operand's */
            nn = NN(1) || NN(2);
            break;
        }
        if (rep == RULE_LANE) { /* lanes: with a constant mask, either side */
            lv la;
            if (!opd_imm(in, 2, &k) && !opd_imm(in, 1, &k)) return 0;
            if (!LOPD(in->opd[1].kind == PTX_O_IMM ? 2 : 1, &la)) return 0;
            return lv_and(L->e, &la, wf_sext((uint64_t)k, op->d.w), L->out);
        }
        if (rep == RULE_FACT) { /* fact: a constant mask's known zeros; a pointer rounded down stays one */
            if (!ptx_type_is_int(in->type) || in->nopd != 3 || !opd_imm(in, 2, &k)) return 1;
            fact a = FOPD(1);
            F->out.res = res_and_imm(a.res, k);
            if (addr_is_ptr(a.prov)) F->out.prov = a.prov;
            return 1;
        }
        /* fall through */
    case PTX_IOP_OR: case PTX_IOP_XOR: {
        unsigned m = in->type == PTX_T_PRED ? 64 : op->d.w;
        if (sgn) { /* sign: both operands' */
            nn = NN(1) && NN(2);
            break;
        }
        if (ivm) { /* interval: and x, m bounds any x to [0, m] (either side the constant) */
            if (in->type != PTX_T_PRED && in->nopd == 3 && (opd_imm(in, 2, &k) || opd_imm(in, 1, &k)))
                wf_iv_and(wo, wo, k, op->d.w);
            return 0;
        }
        if (rep == RULE_LANE) { /* lanes: or, xor where the bits do not overlap (either side) */
            lv la, lb;
            bool x = in->op == PTX_OPC_XOR;
            if (in->nopd != 3 || !LOPD(1, &la) || !LOPD(2, &lb)) return 0;
            return lv_or(L->e, &la, &lb, x, L->out) || lv_or(L->e, &lb, &la, x, L->out);
        }
        if (!warp || !WOPD(1, &x) || !WOPD(2, &y)) return 0;
        if (op->d.rule == PTX_IOP_AND) wf_and(wo, &x, &y, m);
        else if (op->d.rule == PTX_IOP_OR) wf_or(wo, &x, &y, m);
        else wf_xor(wo, &x, &y, m);
        break;
    }
    case PTX_IOP_DIV: /* the forms only: div.s/rem.s round towards zero (wf_divs/wf_rems) */
        if (sgn) { /* sign: a quotient is at most the dividend; only a constant divisor is
                    * known not to be 0 (the ISA leaves division by zero unspecified) */
            if (!opd_imm_n(in, 2, op->d.w, &k) || !k) return 0;
            nn = op->d.sgn ? k > 0 && NN(1) : (uint64_t)k >= 2 || NN(1);
            break;
        }
        /* fall through */
    case PTX_IOP_REM:
        if (sgn) { /* sign: a remainder is below the divisor, a constant other than 0 */
            if (!opd_imm_n(in, 2, op->d.w, &k) || !k) return 0;
            nn = op->d.sgn ? NN(1) : k > 0 || NN(1);
            break;
        }
        if (ivm) { /* interval: rem by a constant bounds any value; div by 2^s, a shift (div.s of a value >= 0) */
            if (!opd_imm(in, 2, &k)) return 0;
            if (op->d.rule == PTX_IOP_REM) {
                if (WOPD(1, &x)) wf_iv_rem(wo, &x, k, op->d.w, op->d.sgn);
            } else if (k > 0 && !(k & (k - 1)) && WOPD(1, &x) && (!op->d.sgn || x.nn))
                wf_iv_shr(wo, &x, (unsigned)__builtin_ctzll((uint64_t)k), op->d.w, op->d.sgn);
            return 0;
        }
        if (rep == RULE_LANE) { /* lanes: by a constant d > 0 */
            lv la;
            bool div = in->op == PTX_OPC_DIV;
            if (!opd_imm(in, 2, &k) || k <= 0 || !LOPD(1, &la)) return 0;
            lv_rule f = div ? op->d.sgn ? wf_divs : wf_divu : op->d.sgn ? wf_rems : wf_remu;
            if (lv_fold(&la, k, op->d.w, op->d.sgn, f, L->e->nl, L->out)) return 1;
            if (la.nonneg && !(k & (k - 1))) /* floor = truncation for x >= 0: a shift, a mask */
                return div ? lv_shr_floor(L->e, &la, (unsigned)__builtin_ctzll((uint64_t)k), L->out)
                           : lv_and(L->e, &la, k - 1, L->out);
            return div ? lv_div(L->e, &la, k, op->d.sgn, L->out) : lv_rem(L->e, &la, k, op->d.sgn, L->out);
        }
        if (!warp || !WOPD(1, &x) || !WOPD(2, &y)) return 0;
        if (op->d.rule == PTX_IOP_DIV) (op->d.sgn ? wf_divs : wf_divu)(wo, &x, &y, op->d.w);
        else (op->d.sgn ? wf_rems : wf_remu)(wo, &x, &y, op->d.w);
        break;
    case PTX_IOP_BFE: /* the forms only; sign: none */
        if (sgn) return 0;
        if (!warp || !WOPD(1, &x) || !WOPD(2, &y) || !WOPD(3, &z)) return 0;
        wf_bfe(wo, &x, &y, &z, op->d.w, op->d.sgn);
        break;
    case PTX_IOP_BFI: { /* the forms only; sign: none */
        wform p, q;
        if (sgn) return 0;
        if (!warp || !WOPD(1, &x) || !WOPD(2, &y) || !WOPD(3, &p) || !WOPD(4, &q)) return 0;
        wf_bfi(wo, &x, &y, &p, &q, op->d.w);
        break;
    }
    case PTX_IOP_CVT_U: /* truncation wraps, extension keeps the value */
        if (sgn) { /* sign: a widening zero-extension is below 2^sw; otherwise the source's */
            nn = op->d.w > op->d.sw || NN(1);
            break;
        }
        /* fall through */
    case PTX_IOP_CVT_S: {
        unsigned sb = op->d.sw;
        if (sgn) { /* sign: the source's (a truncation's under the no-wraparound assumption:
                    * the value fits the narrower type, docs/coalescing.md "Truncation") */
            nn = NN(1);
            break;
        }
        if (ivm) { /* interval: carried */
            if (WOPD(1, &x)) wf_iv_cvt(wo, &x, sb, op->d.w, op->d.rule == PTX_IOP_CVT_S, &nowrap);
            return 0;
        }
        if (rep == RULE_LANE) { /* lanes: a widening reads the source's bits (an unsigned one is >= 0); a
                                 * narrowing keeps the value (no wraparound) */
            if (!LOPD(1, L->out)) return 0;
            if (op->d.w > sb) lv_trunc(L->e, L->out, sb, op->d.rule == PTX_IOP_CVT_U);
            L->out->nonneg = L->out->nonneg || (op->d.rule == PTX_IOP_CVT_U && op->d.w > sb);
            return 1;
        }
        if (rep == RULE_FACT) { /* fact: no more bits known than the destination has; a pointer's space kept */
            fact a = FOPD(1);
            F->out.res = op->d.w < a.res.k ? res_make(a.res.r, op->d.w) : a.res;
            F->out.prov = addr_is_ptr(a.prov) || a.prov == AP_UNKNOWN ? a.prov : AP_INT;
            return 1;
        }
        if (rep == RULE_TERM) return T->out = TOPD(1), 1; /* name: the source's */
        if (!OPD(1, out, &x)) return 0;
        if (op->d.w > sb && op->d.rule == PTX_IOP_CVT_U && aff_is_const(out, &k))
            aff_const(out, cx->n, (int64_t)((uint64_t)k & (sb >= 64 ? ~0ull : (1ull << sb) - 1)));
        else if (op->d.w > sb && !out->top)
            aff_wrap(out, sb); /* the value as the source type reads it */
        ok = wrapped(out, op->d.w);
        if (!warp) return ok;
        wf_cvt(wo, &x, sb, op->d.w, op->d.rule == PTX_IOP_CVT_S, NULL);
        /* a truncation keeps U modulo 2^w, and with it U = U_s + off */
        if (op->d.w <= sb && x.sym && wo->k < 64 && (wo->kind == WF_UNI || wo->kind == WF_LANE))
            wo->sym = x.sym, wo->off = wf_sext((uint64_t)x.off, op->d.w);
        return ok | AFF_R_WARP;
    }
    case PTX_IOP_CVTA: /* generic <-> window address: moves by a per-program offset; sign: none */
        if (sgn) return 0;
        if (rep == RULE_FACT) { /* fact: the residue kept (windows are aligned), into cvta's space */
            F->out.res = FOPD(1).res;
            F->out.prov = in->space == PTX_SP_PARAM || in->space == PTX_SP_PARAM_ENTRY ? AP_UNKNOWN
                                                                                     : addr_space_prov(in->space);
            return 1;
        }
        if (rep == RULE_TERM) return T->out = TOPD(1), 1; /* name: the operand's */
        if (!OPD(1, out, wo)) return 0;
        if (!out->top) out->bot |= 1, out->c[0] = 0;
        if (!warp) return AFF_R_POLY;
        if (wo->kind == WF_UNI || wo->kind == WF_LANE) wo->k = 0, wo->r = 0;
        ok = AFF_R_POLY;
        break;
    case PTX_IOP_MINMAX: /* polynomial: equal divergent coefficients, min(a, b) = a + uniform;
                          * form: lane by lane, or a or b in every lane (wf_minmax) */
        if (sgn) { /* sign: signed, min keeps the sign of both, max of either; unsigned (a
                    * value >= 0 is below 2^(n-1)): the other way round */
            nn = (in->op == PTX_OPC_MAX) == !op->d.sgn ? NN(1) && NN(2) : NN(1) || NN(2);
            break;
        }
        if (rep == RULE_LANE) { /* lanes: lane by lane */
            lv la, lb;
            if (!LOPD(1, &la) || !LOPD(2, &lb)) return 0;
            return lv_minmax(&la, &lb, op->d.w, op->d.sgn, in->op == PTX_OPC_MAX, L->out);
        }
        if (!OPD(1, &a, &x) || !OPD(2, &b, &y)) return 0;
        if (a.top || b.top) aff_top(out, cx->n), ok = AFF_R_POLY;
        else if (aff_sub(&c, &a, &b), aff_uniform(cx, &c)) {
            *out = a;
            if (!aff_equal(&a, &b)) out->bot |= 1, out->c[0] = 0;
            ok = AFF_R_POLY;
        }
        if (!warp) return ok;
        wf_minmax(wo, &x, &y, op->d.w, op->d.sgn, in->op == PTX_OPC_MAX, &nowrap);
        break;
    case PTX_IOP_SELP: /* selp a, b, p: a gamma on p; sign: both sides' */
        if (sgn) {
            nn = NN(1) && NN(2);
            break;
        }
        if (ivm) { /* interval: a uniform predicate, one side in every lane */
            if (WOPD(1, &x) && WOPD(2, &y) && WOPD(3, &z) && z.kind == WF_UNI) wf_meet(wo, &x, &y);
            return 0;
        }
        if (rep == RULE_LANE) { /* lanes: a uniform predicate, one side in every lane of the warp */
            lv la, lb;
            uint32_t p = ssa_use_value(L->e->c->pf->ssa, stmt, 3);
            if (p == SSA_NONE || L->e->c->r->state[p] != DIV_UNIFORM) return 0;
            if (!LOPD(1, &la) || !LOPD(2, &lb)) return 0;
            return lv_merge(L->e, &la, &lb, T_SELP, L->out);
        }
        if (rep == RULE_FACT) return F->out = fact_meet(FOPD(1), FOPD(2)), 1; /* fact: both sides' */
        if (!OPD(1, &a, &x) || !OPD(2, &b, &y) || !OPD(3, &c, &z)) return 0;
        if (c.top) aff_top(out, cx->n);
        else if (!aff_uniform(cx, &c)) aff_bottom(out, cx->n);
        else aff_meet(out, &a, &b);
        if (!warp) return AFF_R_POLY;
        wf_selp(wo, &x, &y, &z, op->d.w);
        return AFF_R_POLY | AFF_R_WARP;
    case PTX_IOP_CMP: case PTX_IOP_SET:
        /* polynomial: a < b is uniform when a - b is (the avgSquare
         * insight); setp.cmp.bop d, a, b, c also reads c; sign: none */
        if (sgn) return 0;
        if (!OPD(1, &a, &x) || !OPD(2, &b, &y)) return 0;
        if (a.top || b.top) aff_top(out, cx->n), ok = AFF_R_POLY;
        else if (aff_sub(&c, &a, &b), !aff_uniform(cx, &c)) ;
        else if (in->nopd <= 3) aff_uniform_unknown(out, cx->n), ok = AFF_R_POLY;
        else if (!OPD(3, &c, NULL)) ;
        else if (c.top) aff_top(out, cx->n), ok = AFF_R_POLY;
        else if (aff_uniform(cx, &c)) aff_uniform_unknown(out, cx->n), ok = AFF_R_POLY;
        if (!warp || op->d.cmp == 0xff) return ok;
        if (op->d.rule == PTX_IOP_SET) { /* set: all ones or zero (or 1.0f), uniform when the comparison is */
            if (op->d.comb) return ok;
            cmp_rule(cx, op, &x, &y, wo, &nowrap);
            if (wo->kind == WF_UNI) wf_uni(wo, 0, 0);
            else if (wo->kind == WF_LANE) wf_bot(wo);
            break;
        }
        /* setp: the comparison, negated for the second destination of p|q,
         * combined with the predicate operand c (ISA "setp") */
        cmp_rule(cx, op, &x, &y, wo, &nowrap);
        if (in->opd[0].kind == PTX_O_PAIR && in->opd[0].p.elems[1].kind == PTX_O_REG &&
            in->opd[0].p.elems[1].n == val->reg) {
            wf_const(&y, 1);
            wf_xor(wo, wo, &y, 64);
        }
        if (op->d.comb) {
            if (!WOPD(3, &z)) return ok;
            if (op->d.comb == PTX_OPC_AND) wf_and(wo, wo, &z, 64);
            else if (op->d.comb == PTX_OPC_OR) wf_or(wo, wo, &z, 64);
            else wf_xor(wo, wo, &z, 64);
        }
        break;
    default:
        return 0;
    }
#undef OPD
#undef WOPD
#undef NN
#undef LOPD
#undef FOPD
#undef TOPD
    if (sgn) return nn && sign_written(cx, val, in);
    wo->sym = 0, wo->off = 0; /* a U of its own */
    return ok | AFF_R_WARP;
}

bool aff_rule_poly(const aff_ctx *cx, uint32_t stmt, const ptx_inst *in, const aff_op *op, const ssa_value *val, aff *out)
{
    return rules(cx, stmt, in, op, val, out, NULL, false, false, false, false, 0, NULL) != 0;
}

unsigned aff_rule_both(const aff_ctx *cx, uint32_t stmt, const ptx_inst *in, const aff_op *op, const ssa_value *val,
                       aff *out, wform *wo)
{
    return rules(cx, stmt, in, op, val, out, wo, true, false, false, false, 0, NULL);
}

void aff_rule_iv(const aff_ctx *cx, uint32_t stmt, const ptx_inst *in, const aff_op *op, bool iv, wform *wo)
{
    aff unused; /* the polynomial's rules are not run (they are past each case's interval rule) */
    rules(cx, stmt, in, op, NULL, &unused, wo, true, true, iv, false, 0, NULL);
}

/* The sign of instruction value val's result under its decoded rule op:
 * the sign mode of its family's case. */
static inline __attribute__((always_inline)) bool sign_rule(const aff_ctx *cx, const ssa_value *val,
                                                            const aff_op *op)
{
    const ptx_inst *in = &cx->pf->fn->stmts[val->stmt]->u.inst;
    return rules(cx, val->stmt, in, op, val, NULL, NULL, false, false, false, true, 0, NULL) != 0;
}

/* An instruction whose rule the form's rule has not decoded yet (affine.c
 * decodes it first, mostly): out of line, so that the common case calls
 * nothing and saves no register. */
static __attribute__((noinline)) void sign_undecoded(const aff_ctx *cx, const ssa_value *val, wform *w)
{
    if (sign_rule(cx, val, aff_decode(cx, val->stmt))) w->nn = 1;
}

void wf_sign_rule(const aff_ctx *cx, uint32_t v, wform *w)
{
    const ssa_func *s = cx->pf->ssa;
    const ssa_value *val = &s->values[v];
    bool nn = false;
    if (val->kind == SSA_V_INST) {
        const aff_op *op = &cx->ops[val->stmt];
        if (!op->decoded) { sign_undecoded(cx, val, w); return; }
        nn = sign_rule(cx, val, op);
    } else if (val->kind == SSA_V_PHI || val->kind == SSA_V_ETA) { /* one of the arguments, in every lane */
        const ssa_node *nd = &s->nodes[val->node];
        nn = true;
        for (uint32_t i = 0; i < nd->nargs && nn; i++) {
            uint32_t x = nd->args[i];
            if (x != SSA_NONE && cx->wkind[x] != WF_TOP && !cx->wnn[x]) nn = false;
        }
    }
    if (nn) w->nn = 1;
}

/* ---- the other representations' entry points (rules.h) ------------------------------------------- */
/* The statement's operation as decoded once (ptx_iop_decode), without
 * div_graph's "only some operands matter" (the affine modes' aff_decode):
 * these representations read the operands the rule names.  False where
 * mode rep has no rule for its family (rule_families): rules is not asked
 * (loads, mostly, of every instruction the address facts' solve visits). */
static bool rule_op(const prog_func *pf, uint32_t stmt, unsigned rep, aff_op *op)
{
    *op = (aff_op){.d = pf->ssa->iop[stmt], .decoded = 1};
    return rule_families[rep] >> op->d.rule & 1;
}

bool lane_rule(ectx *e, uint32_t stmt, const ptx_inst *in, lv *out, unsigned depth)
{
    aff_op op;
    lane_call x = {e, depth, out};
    return rule_op(e->c->pf, stmt, RULE_LANE, &op) &&
           rules(NULL, stmt, in, &op, NULL, NULL, NULL, false, false, false, false, RULE_LANE, &x) != 0;
}

fact fact_rule(const addr_chain *c, uint32_t stmt, const ptx_inst *in)
{
    aff_op op;
    fact_call x = {c, fact_int(res_unknown())};
    if (rule_op(c->pf, stmt, RULE_FACT, &op))
        rules(NULL, stmt, in, &op, NULL, NULL, NULL, false, false, false, false, RULE_FACT, &x);
    return x.out;
}

term term_rule(const addr_chain *c, uint32_t stmt, const ptx_inst *in, unsigned i, uint32_t *stack, unsigned depth)
{
    aff_op op;
    term_call x = {c, i, stack, depth, term_fail()};
    if (rule_op(c->pf, stmt, RULE_TERM, &op))
        rules(NULL, stmt, in, &op, NULL, NULL, NULL, false, false, false, false, RULE_TERM, &x);
    return x.out;
}

/* ---- the no-wraparound assumption, for the checker of claims ------------------------------------ */
/* How the rule decoded into op reads operands 1 and 2 under the
 * assumption: the three rules docs/divergence.md names.  An equality is
 * exact modulo 2^w and a narrowing wraps by design: neither assumes.
 * (affine.c, div_nowrap_build, asks it of every statement.) */
uint8_t aff_nowrap_read(const aff_op *op)
{
    uint8_t sgn = op->d.sgn ? DIV_NOWRAP_SIGNED : 0;
    switch (op->d.rule) {
    case PTX_IOP_CVT_S: return op->d.w > op->d.sw ? (uint8_t)(op->d.sw | DIV_NOWRAP_SIGNED) : 0;
    case PTX_IOP_CVT_U: return op->d.w > op->d.sw ? op->d.sw : 0;
    case PTX_IOP_MUL: case PTX_IOP_MAD: return op->d.wide ? (uint8_t)(op->d.sw | sgn) : 0;
    case PTX_IOP_MINMAX: return (uint8_t)(op->d.sw | sgn);
    case PTX_IOP_CMP: case PTX_IOP_SET:
        return op->d.cmp == 0xff || op->d.cmp == WF_EQ || op->d.cmp == WF_NE ? 0 : (uint8_t)(op->d.sw | sgn);
    default: return 0;
    }
}
