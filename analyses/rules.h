/* The representations whose rules of the integer operations are in the
 * domain's one case per family (affine_rules.c, rules) beside the
 * polynomial's and the warp form's, though they are evaluated apart:
 * lane-exact values (lane_value.h, evaluated on demand, one warp at a
 * time), the address facts (provenance and residue, solved after the
 * affine analysis over its results) and the stride names (terms, named on
 * demand).  Here: their carriers, the operand reads each family's case
 * calls back (each representation reads an operand its own way: by
 * recursion, or from its solve), and the entry points of the rules.
 * Internal to analyses/. */
#ifndef PTXRAY_RULES_H
#define PTXRAY_RULES_H
#include "lane_value.h"

/* ---- the address facts (addr_chain.c) ---------------------------------- */

typedef struct fact {
    uint8_t prov; /* addr_prov */
    residue res;
} fact;

static inline fact fact_int(residue r) { return (fact){AP_INT, r}; }
static inline bool addr_is_ptr(uint8_t p) { return p >= AP_PARAM64 && p <= AP_CONST; }

static inline enum addr_prov addr_space_prov(unsigned sp)
{
    switch (sp) {
    case PTX_SP_GLOBAL: return AP_GLOBAL;
    case PTX_SP_SHARED: case PTX_SP_SHARED_CTA: case PTX_SP_SHARED_CLUSTER: return AP_SHARED;
    case PTX_SP_LOCAL: return AP_LOCAL;
    case PTX_SP_CONST: return AP_CONST;
    default: return AP_UNKNOWN;
    }
}

static inline fact fact_meet(fact a, fact b)
{
    if (a.prov == AP_TOP) return b;
    if (b.prov == AP_TOP) return a;
    fact r;
    r.res = res_meet(a.res, b.res);
    if (a.prov == b.prov) r.prov = a.prov;
    else if (a.prov == AP_INT) r.prov = b.prov; /* a pointer or 0 (null) */
    else if (b.prov == AP_INT) r.prov = a.prov;
    else r.prov = AP_UNKNOWN;
    return r;
}

/* a ± b: a pointer plus an integer stays in the pointer's space */
static inline fact fact_ptr_arith(fact a, fact b, bool sub)
{
    fact r;
    r.res = sub ? res_sub(a.res, b.res) : res_add(a.res, b.res);
    if (sub && addr_is_ptr(a.prov) && addr_is_ptr(b.prov)) r.prov = AP_INT; /* a difference */
    else if (b.prov == AP_INT) r.prov = a.prov;
    else if (a.prov == AP_INT && !sub) r.prov = b.prov;
    else if (a.prov == AP_PARAM64 && addr_is_ptr(b.prov)) r.prov = b.prov;
    else if (b.prov == AP_PARAM64 && addr_is_ptr(a.prov)) r.prov = a.prov;
    else r.prov = AP_UNKNOWN;
    return r;
}

/* A product's residue; a pointer times anything is a number we know
 * nothing about (its base alignment says nothing of the product). */
static inline residue fact_product(fact a, fact b)
{
    residue ra = addr_is_ptr(a.prov) ? res_unknown() : a.res, rb = addr_is_ptr(b.prov) ? res_unknown() : b.res;
    return res_mul(ra, rb);
}

/* A variable's address: the symbol operand o names it (addr_chain.c). */
fact fact_sym(const addr_chain *c, const ptx_operand *o);

static inline fact value_fact(const addr_chain *c, uint32_t v)
{
    if (v == SSA_NONE) return fact_int(res_unknown());
    return (fact){c->prov[v], c->res[v]};
}

/* Operand i of the instruction at stmt: a register's fact, an immediate,
 * a variable's address.  Inline: the address facts' solve reads operands
 * through it for every instruction it visits. */
static inline fact fact_opd(const addr_chain *c, uint32_t stmt, uint32_t i)
{
    const ptx_inst *in = &c->pf->fn->stmts[stmt]->u.inst;
    if (i >= in->nopd) return fact_int(res_unknown());
    const ptx_operand *o = &in->opd[i];
    switch (o->kind) {
    case PTX_O_IMM: return fact_int(o->flags == PTX_IMM_INT ? res_exact(o->v) : res_unknown());
    case PTX_O_SYM: return fact_sym(c, o);
    case PTX_O_REG:
    case PTX_O_SREG: return value_fact(c, ssa_use_value(c->pf->ssa, stmt, i));
    default: return (fact){AP_UNKNOWN, res_unknown()};
    }
}

/* The fact of the result of the integer operation at stmt, by its
 * family's rule (affine_rules.c); an integer with no known bits where the
 * family has none. */
fact fact_rule(const addr_chain *c, uint32_t stmt, const ptx_inst *in);

/* ---- the stride names (addr_chain.c, addr_name_coef) -------------------- */

/* The coefficient of one monomial in a value, named: k·U[sym] with sym a
 * uniform value the affine analysis could not know (a parameter), or k
 * when sym is SSA_NONE. */
typedef struct term {
    bool ok;
    bool cyc;     /* the value being named, come back round a loop */
    int64_t k;
    uint32_t sym;
} term;

static inline term term_const(int64_t k) { return (term){true, false, k, SSA_NONE}; }
static inline term term_fail(void) { return (term){false, false, 0, SSA_NONE}; }
static inline bool term_zero(term t) { return t.ok && !t.cyc && t.sym == SSA_NONE && t.k == 0; }

/* a + sign·b */
static inline term term_add(term a, term b, int sign)
{
    if (!a.ok || !b.ok) return term_fail();
    if (term_zero(b)) return a;
    if (term_zero(a)) return sign > 0 || b.cyc ? b : (term){true, false, -b.k, b.sym};
    if (a.cyc || b.cyc) return term_fail(); /* the loop changes the coefficient every time round */
    if (a.sym == b.sym) return (term){true, false, a.k + sign * b.k, a.sym};
    return term_fail();
}

/* The coefficient in a·b (the mul or mad at st) when one factor's
 * coefficient is ta or tb and the other factor is uniform: that one times
 * the other factor (addr_chain.c). */
term term_mul(const addr_chain *c, uint32_t st, term ta, term tb);

/* Monomial i's coefficient in operand opd of the instruction at st, named
 * (addr_chain.c); stack and depth: the values on the way, for cycles. */
term term_opd(const addr_chain *c, uint32_t st, uint32_t opd, unsigned i, uint32_t *stack, unsigned depth);

/* The same in the result of the integer operation at st, by its family's
 * rule (affine_rules.c); term_fail where the family has none. */
term term_rule(const addr_chain *c, uint32_t st, const ptx_inst *in, unsigned i, uint32_t *stack, unsigned depth);

/* ---- lane-exact values (lane_eval.c) ------------------------------------ */

/* Value v, and operand i of the instruction at st, in each lane of e's
 * warp (lane_eval.c). */
bool le_eval(ectx *e, uint32_t v, lv *out, unsigned depth);
bool le_opd(ectx *e, uint32_t st, uint32_t i, lv *out, unsigned depth);

/* The result of the integer operation at st in each lane, by its
 * family's rule (affine_rules.c); false where the family has none or it
 * fails. */
bool lane_rule(ectx *e, uint32_t st, const ptx_inst *in, lv *out, unsigned depth);

#endif
