/* Transfer functions of the affine analyses: one place for the rule of
 * each PTX instruction (the paper's Fig. 13 rules CNTA, SUMA, MULA, ...,
 * extended to PTX's integer arithmetic).  Everything without a rule here
 * is uniform when all its operands are and ⊥ otherwise (the paper's
 * "other operators"). */
#include <stdlib.h>
#include <string.h>
#include "affine_internal.h"
#include "semantics.h"


/* Operand k as an abstract value; false when it has no integer meaning we
 * track (vectors, expressions) or its register has no value. */
static bool opd(const aff_ctx *cx, uint32_t stmt, const ptx_inst *in, unsigned k, aff *out)
{
    if (k >= in->nopd) return false;
    const ptx_operand *o = &in->opd[k];
    switch (o->kind) {
    case PTX_O_IMM:
        /* a decimal float literal ("1.5") is held as double bits whatever
         * the instruction's type: uniform, but not that number */
        if ((o->flags & 3) == PTX_IMM_DEC) aff_uniform_unknown(out, cx->n);
        else aff_const(out, cx->n, o->v);
        return true;
    case PTX_O_SYM:
        aff_uniform_unknown(out, cx->n); /* an address or label: one per program */
        return true;
    case PTX_O_REG: case PTX_O_SREG: {
        uint32_t v = aff_use(cx, stmt, k);
        if (v == SSA_NONE) return false;
        aff_get(cx, v, out);
        return true;
    }
    case PTX_O_ADDR: {
        if (o->n != 1) return false;
        const ptx_operand *b = &o->p.elems[0];
        if (b->kind == PTX_O_SYM || b->kind == PTX_O_IMM) {
            aff_uniform_unknown(out, cx->n);
            return true;
        }
        uint32_t v = aff_use(cx, stmt, k);
        if (v == SSA_NONE) return false;
        aff base, off;
        aff_get(cx, v, &base);
        aff_const(&off, cx->n, o->v);
        aff_add(out, &base, &off);
        return true;
    }
    default:
        return false;
    }
}

/* Operands 1 and 2 (and 3): false if one is not an integer operand. */
static bool opd2(const aff_ctx *cx, uint32_t stmt, const ptx_inst *in, aff *a, aff *b)
{
    return opd(cx, stmt, in, 1, a) && opd(cx, stmt, in, 2, b);
}

/* Which rule applies to an instruction: its integer operation, decoded
 * once per statement by the SSA form (ptx_iop_decode: the one decoder and
 * its guards), unless div_graph found that only some operands matter
 * (a collective, a vote); then the comparison of a setp. */
static void decode(const aff_ctx *cx, uint32_t in_stmt, const ptx_inst *in, aff_op *op)
{
    const div_stmt_info *si = &cx->info[in_stmt];
    const ptx_iop *d = &cx->pf->ssa->iop[in_stmt];
    op->decoded = 1;
    op->from = si->dep_from;
    op->rule = si->dep_from ? PTX_IOP_GENERIC : d->rule;
    op->w = d->w;
    op->sw = d->sw;
    op->sgn = d->sgn;
    op->wide = d->wide;
    if (op->rule == PTX_IOP_CMP || op->rule == PTX_IOP_SET) {
        div_setp_cmp(in, si->stype, &op->cmp, &op->sgn, &op->comb);
        op->sgn = op->cmp == 0xff ? 0 : op->sgn;
    }
}

const aff_op *aff_decode(const aff_ctx *cx, uint32_t stmt, const ptx_inst *in)
{
    aff_op *op = &cx->ops[stmt];
    if (!op->decoded) decode(cx, stmt, in, op);
    return op;
}

/* mul.wide.u16 %r, %rs, -21845: the operands are read as the source type,
 * so an unsigned constant is zero-extended (0xaaab, not -21845). */
static void wide_operands(const aff_op *op, aff *a, aff *b)
{
    int64_t k;
    if (!op->wide || op->sgn || op->sw >= 64) return;
    if (aff_is_const(a, &k)) aff_const(a, a->n, (int64_t)((uint64_t)k & ((1ull << op->sw) - 1)));
    if (aff_is_const(b, &k)) aff_const(b, b->n, (int64_t)((uint64_t)k & ((1ull << op->sw) - 1)));
}

/* The rule for instruction `in` at stmt; false: none applies after all
 * (an operand we do not track), use the generic one. */
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

bool aff_rule(const aff_ctx *cx, uint32_t stmt, const ptx_inst *in, const aff_op *op, const ssa_value *val, aff *out)
{
    unsigned w = op->w;
    aff a, b, c;
    switch (op->rule) {
    case PTX_IOP_UNPACK: { /* a constant's bits exactly; the low element as a
                          * truncation (no wraparound); another element of a
                          * value that is not uniform: none (a carry into it
                          * may differ per lane) */
        unsigned i, ew;
        int64_t k;
        if (!aff_unpack_elem(in, val, &i, &ew) || !opd(cx, stmt, in, 1, out)) return false;
        if (out->top) return true;
        if (aff_is_const(out, &k)) {
            uint64_t bits = ew >= 64 ? (uint64_t)k : (uint64_t)k >> (i * ew);
            aff_const(out, cx->n, wf_sext(bits, ew));
            return true;
        }
        if (aff_uniform(cx, out)) { aff_uniform_unknown(out, cx->n); return true; }
        return i == 0;
    }
    case PTX_IOP_MOV: case PTX_IOP_MOV_INT: /* ASGA */
        if (!opd(cx, stmt, in, 1, out)) return false;
        if (op->rule == PTX_IOP_MOV) return true;
        break;
    case PTX_IOP_ADD: case PTX_IOP_SUB: /* SUMA */
        if (!opd2(cx, stmt, in, &a, &b)) return false;
        (op->rule == PTX_IOP_ADD ? aff_add : aff_sub)(out, &a, &b);
        break;
    case PTX_IOP_NEG:
        if (!opd(cx, stmt, in, 1, &a)) return false;
        aff_neg(out, &a);
        break;
    case PTX_IOP_NOT: /* ~a = -a - 1 in two's complement (nvcc's "not" of a loop start) */
        if (!opd(cx, stmt, in, 1, &a)) return false;
        aff_neg(out, &a);
        aff_const(&b, cx->n, 1);
        aff_sub(out, out, &b);
        break;
    case PTX_IOP_MUL: /* MULA; .wide: w is the doubled width */
        if (!opd2(cx, stmt, in, &a, &b)) return false;
        wide_operands(op, &a, &b);
        aff_mul(out, &a, &b);
        break;
    case PTX_IOP_MAD: /* mad.lo / mad.wide: a*b + c */
        if (!opd2(cx, stmt, in, &a, &b) || !opd(cx, stmt, in, 3, &c)) return false;
        wide_operands(op, &a, &b);
        aff_mul(out, &a, &b);
        aff_add(out, out, &c);
        break;
    case PTX_IOP_SHL: { /* a << k = a * 2^k for a constant k */
        int64_t k;
        if (!opd2(cx, stmt, in, &a, &b)) return false;
        if (a.top || b.top) { aff_top(out, cx->n); return true; }
        if (!aff_is_const(&b, &k)) return false;
        aff_const(&c, cx->n, wf_shl_factor((uint64_t)k, w));
        aff_mul(out, &a, &c);
        break;
    }
    case PTX_IOP_CVT_S: case PTX_IOP_CVT_U: { /* truncation wraps, extension keeps the value */
        int64_t k;
        unsigned sb = op->sw;
        if (!opd(cx, stmt, in, 1, out)) return false;
        if (w > sb && op->rule == PTX_IOP_CVT_U && aff_is_const(out, &k))
            aff_const(out, cx->n, (int64_t)((uint64_t)k & (sb >= 64 ? ~0ull : (1ull << sb) - 1)));
        else if (w > sb && !out->top)
            aff_wrap(out, sb); /* the value as the source type reads it */
        break;
    }
    case PTX_IOP_CVTA: /* generic <-> window address: moves by a per-program offset */
        if (!opd(cx, stmt, in, 1, out)) return false;
        if (!out->top) {
            out->bot |= 1;
            out->c[0] = 0;
        }
        return true;
    case PTX_IOP_MINMAX: { /* equal divergent coefficients: min(a, b) = a + uniform */
        aff d;
        if (!opd2(cx, stmt, in, &a, &b)) return false;
        if (a.top || b.top) { aff_top(out, cx->n); return true; }
        aff_sub(&d, &a, &b);
        if (!aff_uniform(cx, &d)) return false;
        *out = a;
        if (!aff_equal(&a, &b)) {
            out->bot |= 1;
            out->c[0] = 0;
        }
        return true;
    }
    case PTX_IOP_SELP: /* selp a, b, p: a gamma on p */
        if (!opd2(cx, stmt, in, &a, &b) || !opd(cx, stmt, in, 3, &c)) return false;
        if (c.top) { aff_top(out, cx->n); return true; }
        if (!aff_uniform(cx, &c)) aff_bottom(out, cx->n);
        else aff_meet(out, &a, &b);
        return true;
    case PTX_IOP_CMP: case PTX_IOP_SET: { /* a < b is uniform when a - b is (the avgSquare insight) */
        aff d;
        if (!opd2(cx, stmt, in, &a, &b)) return false;
        if (a.top || b.top) { aff_top(out, cx->n); return true; }
        aff_sub(&d, &a, &b);
        if (!aff_uniform(cx, &d)) return false;
        if (in->nopd > 3) { /* setp.cmp.bop d, a, b, c: also reads c */
            if (!opd(cx, stmt, in, 3, &c)) return false;
            if (c.top) { aff_top(out, cx->n); return true; }
            if (!aff_uniform(cx, &c)) return false;
        }
        aff_uniform_unknown(out, cx->n);
        return true;
    }
    default:
        return false;
    }
    if (!out->top) aff_wrap(out, w);
    return true;
}

/* ---- the no-wraparound assumption, for the checker of claims ------------------------------------ */
/* How the rule decoded into op reads operands 1 and 2 under the
 * assumption: the three rules docs/divergence.md names.  An equality is
 * exact modulo 2^w and a narrowing wraps by design: neither assumes. */
static uint8_t nowrap_read(const aff_op *op)
{
    uint8_t sgn = op->sgn ? DIV_NOWRAP_SIGNED : 0;
    switch (op->rule) {
    case PTX_IOP_CVT_S: return op->w > op->sw ? (uint8_t)(op->sw | DIV_NOWRAP_SIGNED) : 0;
    case PTX_IOP_CVT_U: return op->w > op->sw ? op->sw : 0;
    case PTX_IOP_MUL: case PTX_IOP_MAD: return op->wide ? (uint8_t)(op->sw | sgn) : 0;
    case PTX_IOP_MINMAX: return (uint8_t)(op->sw | sgn);
    case PTX_IOP_CMP: case PTX_IOP_SET:
        return op->cmp == 0xff || op->cmp == WF_EQ || op->cmp == WF_NE ? 0 : (uint8_t)(op->sw | sgn);
    default: return 0;
    }
}

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
        out->read[s] = nowrap_read(aff_decode(&cx, s, &fn->stmts[s]->u.inst));
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
