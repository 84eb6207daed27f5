/* Transfer functions of the affine analyses: one place for the rule of
 * each PTX instruction (the paper's Fig. 13 rules CNTA, SUMA, MULA, ...,
 * extended to PTX's integer arithmetic).  Everything without a rule here
 * is uniform when all its operands are and ⊥ otherwise (the paper's
 * "other operators"). */
#include <stdlib.h>
#include <string.h>
#include "affine_internal.h"
#include "semantics.h"


static unsigned type_bits(unsigned t)
{
    unsigned b = ptx_type_bits((ptx_type)t);
    return b ? b : 64;
}

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

/* The modifiers decode asks about, found in one pass over the opcode. */
enum { M_SAT = 1, M_HI = 2, M_WIDE = 4 };
static unsigned mods_of(const ptx_inst *in)
{
    unsigned bits = 0;
    ptx_mod_iter it = ptx_mods_begin(in);
    ptx_str m;
    while (ptx_mods_next(&it, &m)) {
        if (m.n == 4 && !memcmp(m.p, ".sat", 4)) bits |= M_SAT;
        else if (m.n == 3 && !memcmp(m.p, ".hi", 3)) bits |= M_HI;
        else if (m.n == 5 && !memcmp(m.p, ".wide", 5)) bits |= M_WIDE;
    }
    return bits;
}

/* Integer add/sub/mul/mad without saturation, carry or high half: ring
 * operations modulo 2^w. */
static bool plain_int(const ptx_inst *in, const div_stmt_info *si, unsigned mods)
{
    return ptx_type_is_int(in->type) && !si->carry && !(mods & (M_SAT | M_HI));
}

/* Which rule applies to an instruction: decided once per statement, since
 * a value is evaluated several times while the solver iterates. */
static void decode(const aff_ctx *cx, uint32_t in_stmt, const ptx_inst *in, aff_op *op)
{
    const div_stmt_info *si = &cx->info[in_stmt];
    op->decoded = 1;
    op->from = si->dep_from;
    op->w = (uint8_t)type_bits(si->dtype);
    op->sw = (uint8_t)type_bits(si->stype);
    op->sgn = (uint8_t)ptx_type_is_signed(in->type);
    op->wide = 0;
    op->rule = AFF_R_GENERIC;
    if (si->dep_from) { op->rule = AFF_R_FROM; return; }
    switch (in->op) {
    case PTX_OPC_MOV:
        /* an unpack (mov.b64 {lo, hi}, d) gives each element its bits of
         * d, not d; a pack (mov.b64 d, {lo, hi}) has the generic rule
         * (uniform when every element is) */
        if (in->nopd != 2 || in->opd[1].kind == PTX_O_VEC) break;
        if (in->opd[0].kind == PTX_O_VEC) op->rule = AFF_R_UNPACK;
        else op->rule = ptx_type_is_int(si->dtype) ? AFF_R_MOV_INT : AFF_R_MOV;
        break;
    case PTX_OPC_ADD: if (plain_int(in, si, mods_of(in))) op->rule = AFF_R_ADD; break;
    case PTX_OPC_SUB: if (plain_int(in, si, mods_of(in))) op->rule = AFF_R_SUB; break;
    case PTX_OPC_NEG: if (ptx_type_is_int(in->type)) op->rule = AFF_R_NEG; break;
    case PTX_OPC_NOT: if (ptx_type_is_int(in->type)) op->rule = AFF_R_NOT; break;
    case PTX_OPC_MUL: case PTX_OPC_MAD: {
        unsigned m = mods_of(in);
        if (!plain_int(in, si, m)) break;
        op->rule = in->op == PTX_OPC_MUL ? AFF_R_MUL : AFF_R_MAD;
        op->wide = (m & M_WIDE) != 0;
        break;
    }
    case PTX_OPC_SHL: if (ptx_type_is_int(in->type)) op->rule = AFF_R_SHL; break;
    case PTX_OPC_CVT:
        /* cvt.u8.u32 into a .b16 register keeps the low 8 bits and extends
         * them to 16 (ISA: a destination register wider than the type): a
         * result the rules below, which keep the value at the type's width,
         * do not describe; the generic rule (uniform when the source is) */
        if (in->opd[0].kind == PTX_O_REG && ptx_type_bits((ptx_type)cx->pf->fn->regs[in->opd[0].n].type) > op->w)
            break;
        /* likewise cvt.u32.s8 from a .b16 register reads the low 8 bits
         * of it, sign-extended: a truncation the polynomial of the
         * register's value (kept at 16 bits) does not describe either.
         * The no-wraparound assumption covers index arithmetic, 32 bits
         * and wider (cvt.s64.s32 of a 64-bit index, nvcc's (int) cast,
         * keeps its rule); 8- and 16-bit values wrap as a matter of course */
        if (op->sw < 32 && in->nopd > 1 && in->opd[1].kind == PTX_O_REG &&
            ptx_type_bits((ptx_type)cx->pf->fn->regs[in->opd[1].n].type) > op->sw)
            break;
        if (ptx_type_is_int(si->dtype) && ptx_type_is_int(si->stype) && !(mods_of(in) & M_SAT))
            op->rule = ptx_type_is_signed(si->stype) ? AFF_R_CVT_S : AFF_R_CVT_U;
        break;
    case PTX_OPC_CVTA: op->rule = AFF_R_CVTA; break;
    case PTX_OPC_MIN: case PTX_OPC_MAX: if (ptx_type_is_int(in->type) && in->nopd == 3) op->rule = AFF_R_MINMAX; break;
    case PTX_OPC_SELP: op->rule = AFF_R_SELP; break;
    case PTX_OPC_SETP: case PTX_OPC_SET:
        if (!ptx_type_is_int(si->stype)) break;
        op->rule = in->op == PTX_OPC_SETP ? AFF_R_CMP : AFF_R_SET;
        div_setp_cmp(in, si->stype, &op->cmp, &op->sgn, &op->comb);
        op->sgn = op->cmp == 0xff ? 0 : op->sgn;
        break;
    case PTX_OPC_SHR: if (ptx_type_is_int(in->type)) op->rule = AFF_R_SHR; break;
    case PTX_OPC_AND: op->rule = AFF_R_AND; break;
    case PTX_OPC_OR: op->rule = AFF_R_OR; break;
    case PTX_OPC_XOR: op->rule = AFF_R_XOR; break;
    case PTX_OPC_DIV: if (ptx_type_is_int(in->type)) op->rule = AFF_R_DIV; break;
    case PTX_OPC_REM: if (ptx_type_is_int(in->type)) op->rule = AFF_R_REM; break;
    case PTX_OPC_BFE: if (in->nopd == 4) op->rule = AFF_R_BFE; break;
    case PTX_OPC_BFI: if (in->nopd == 5) op->rule = AFF_R_BFI; break;
    default: break;
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
    case AFF_R_UNPACK: { /* a constant's bits exactly; the low element as a
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
    case AFF_R_MOV: case AFF_R_MOV_INT: /* ASGA */
        if (!opd(cx, stmt, in, 1, out)) return false;
        if (op->rule == AFF_R_MOV) return true;
        break;
    case AFF_R_ADD: case AFF_R_SUB: /* SUMA */
        if (!opd2(cx, stmt, in, &a, &b)) return false;
        (op->rule == AFF_R_ADD ? aff_add : aff_sub)(out, &a, &b);
        break;
    case AFF_R_NEG:
        if (!opd(cx, stmt, in, 1, &a)) return false;
        aff_neg(out, &a);
        break;
    case AFF_R_NOT: /* ~a = -a - 1 in two's complement (nvcc's "not" of a loop start) */
        if (!opd(cx, stmt, in, 1, &a)) return false;
        aff_neg(out, &a);
        aff_const(&b, cx->n, 1);
        aff_sub(out, out, &b);
        break;
    case AFF_R_MUL: /* MULA; .wide: w is the doubled width */
        if (!opd2(cx, stmt, in, &a, &b)) return false;
        wide_operands(op, &a, &b);
        aff_mul(out, &a, &b);
        break;
    case AFF_R_MAD: /* mad.lo / mad.wide: a*b + c */
        if (!opd2(cx, stmt, in, &a, &b) || !opd(cx, stmt, in, 3, &c)) return false;
        wide_operands(op, &a, &b);
        aff_mul(out, &a, &b);
        aff_add(out, out, &c);
        break;
    case AFF_R_SHL: { /* a << k = a * 2^k for a constant k */
        int64_t k;
        if (!opd2(cx, stmt, in, &a, &b)) return false;
        if (a.top || b.top) { aff_top(out, cx->n); return true; }
        if (!aff_is_const(&b, &k)) return false;
        aff_const(&c, cx->n, wf_shl_factor((uint64_t)k, w));
        aff_mul(out, &a, &c);
        break;
    }
    case AFF_R_CVT_S: case AFF_R_CVT_U: { /* truncation wraps, extension keeps the value */
        int64_t k;
        unsigned sb = op->sw;
        if (!opd(cx, stmt, in, 1, out)) return false;
        if (w > sb && op->rule == AFF_R_CVT_U && aff_is_const(out, &k))
            aff_const(out, cx->n, (int64_t)((uint64_t)k & (sb >= 64 ? ~0ull : (1ull << sb) - 1)));
        else if (w > sb && !out->top)
            aff_wrap(out, sb); /* the value as the source type reads it */
        break;
    }
    case AFF_R_CVTA: /* generic <-> window address: moves by a per-program offset */
        if (!opd(cx, stmt, in, 1, out)) return false;
        if (!out->top) {
            out->bot |= 1;
            out->c[0] = 0;
        }
        return true;
    case AFF_R_MINMAX: { /* equal divergent coefficients: min(a, b) = a + uniform */
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
    case AFF_R_SELP: /* selp a, b, p: a gamma on p */
        if (!opd2(cx, stmt, in, &a, &b) || !opd(cx, stmt, in, 3, &c)) return false;
        if (c.top) { aff_top(out, cx->n); return true; }
        if (!aff_uniform(cx, &c)) aff_bottom(out, cx->n);
        else aff_meet(out, &a, &b);
        return true;
    case AFF_R_CMP: case AFF_R_SET: { /* a < b is uniform when a - b is (the avgSquare insight) */
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
    case AFF_R_CVT_S: return op->w > op->sw ? (uint8_t)(op->sw | DIV_NOWRAP_SIGNED) : 0;
    case AFF_R_CVT_U: return op->w > op->sw ? op->sw : 0;
    case AFF_R_MUL: case AFF_R_MAD: return op->wide ? (uint8_t)(op->sw | sgn) : 0;
    case AFF_R_MINMAX: return (uint8_t)(op->sw | sgn);
    case AFF_R_CMP: case AFF_R_SET:
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
