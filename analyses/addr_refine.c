/* Warp-uniform selects in address computations (addr_refine.h). */
#include "addr_refine.h"

#define REFINE_DEPTH 12

static void aff_of_value(const div_result *r, uint32_t v, aff *out)
{
    aff_const(out, r->ncoef, 0);
    for (unsigned i = 0; i < r->ncoef; i++)
        if (!div_coef(r, v, i, &out->c[i])) {
            out->c[i] = 0;
            out->bot |= (uint16_t)(1u << i);
        }
}

/* The monomials that vary between the lanes of a warp. */
static uint16_t varying_monos(const addr_chain *c)
{
    unsigned dims = 1u << DIV_C_X | 1u << DIV_C_LANE;
    if (!c->r->tid_y_uniform) dims |= 1u << DIV_C_Y;
    if (!c->r->tid_z_uniform) dims |= 1u << DIV_C_Z;
    uint16_t m = 0;
    for (unsigned i = 1; i < c->r->ncoef; i++)
        if (wl_mono_dims(i) & dims) m |= (uint16_t)(1u << i);
    /* with an unknown shape, tid.y·tid.x varies too (and is in the set) */
    return m;
}

bool addr_poly_lane_exact(const addr_chain *c, const aff *p) { return !(p->bot & varying_monos(c)); }

static bool int_type(unsigned t) { return t >= PTX_T_B8 && t <= PTX_T_S64; }

static void refine_rec(const addr_chain *c, uint32_t v, aff *out, unsigned depth);
static bool uniform_rec(const addr_chain *c, uint32_t v, unsigned depth);

static bool operand_poly(const addr_chain *c, uint32_t st, uint32_t i, aff *out, unsigned depth)
{
    const ptx_inst *in = &c->pf->fn->stmts[st]->u.inst;
    if (i >= in->nopd) return false;
    const ptx_operand *o = &in->opd[i];
    if (o->kind == PTX_O_IMM && o->flags == PTX_IMM_INT) {
        aff_const(out, c->r->ncoef, o->v);
        return true;
    }
    if (o->kind != PTX_O_REG && o->kind != PTX_O_SREG) return false;
    uint32_t v = ssa_use_value(c->pf->ssa, st, i);
    if (v == SSA_NONE) return false;
    refine_rec(c, v, out, depth + 1);
    return true;
}

static residue operand_res(const addr_chain *c, uint32_t st, uint32_t i)
{
    const ptx_inst *in = &c->pf->fn->stmts[st]->u.inst;
    const ptx_operand *o = &in->opd[i];
    if (o->kind == PTX_O_IMM && o->flags == PTX_IMM_INT) return res_exact(o->v);
    uint32_t v = ssa_use_value(c->pf->ssa, st, i);
    return v == SSA_NONE ? res_unknown() : c->res[v];
}

static void refine_rec(const addr_chain *c, uint32_t v, aff *out, unsigned depth)
{
    aff_of_value(c->r, v, out);
    if (addr_poly_lane_exact(c, out) || depth > REFINE_DEPTH) return;
    uint32_t st;
    const ptx_inst *in = addr_def(c, v, &st);
    if (!in || c->pf->ssa->values[v].partial || c->pf->ssa->refs[c->pf->ssa->values[v].ref].opd != 0) return;
    if (!int_type(in->type)) return;
    unsigned n = c->r->ncoef, bits = ptx_type_bits(in->type);
    if (in->op == PTX_OPC_CVT) bits = ptx_type_bits(in->type2); /* cvt.dst.src */
    else if (ptx_inst_has_mod(in, ".wide")) bits *= 2;
    aff a, b, t, r;
    switch (in->op) {
    case PTX_OPC_MOV:
        if (!operand_poly(c, st, 1, &r, depth)) return;
        break;
    case PTX_OPC_CVT:
        if (!int_type(in->type2) || !operand_poly(c, st, 1, &r, depth)) return;
        break;
    case PTX_OPC_ADD:
    case PTX_OPC_SUB:
        if (in->nopd != 3 || ptx_inst_has_mod(in, ".sat") || ptx_inst_has_mod(in, ".cc")) return;
        if (!operand_poly(c, st, 1, &a, depth) || !operand_poly(c, st, 2, &b, depth)) return;
        if (in->op == PTX_OPC_ADD) aff_add(&r, &a, &b);
        else aff_sub(&r, &a, &b);
        break;
    case PTX_OPC_MUL:
    case PTX_OPC_MAD:
        if (ptx_inst_has_mod(in, ".hi") || ptx_inst_has_mod(in, ".cc")) return;
        if (!operand_poly(c, st, 1, &a, depth) || !operand_poly(c, st, 2, &b, depth)) return;
        aff_mul(&r, &a, &b);
        if (in->op == PTX_OPC_MAD) {
            if (!operand_poly(c, st, 3, &t, depth)) return;
            aff_add(&r, &r, &t);
        }
        break;
    case PTX_OPC_SHL:
        if (in->nopd != 3 || in->opd[2].kind != PTX_O_IMM || in->opd[2].v < 0 || in->opd[2].v >= 63) return;
        if (!operand_poly(c, st, 1, &a, depth)) return;
        aff_const(&b, n, (int64_t)1 << in->opd[2].v);
        aff_mul(&r, &a, &b);
        break;
    case PTX_OPC_SELP: {
        uint32_t p = ssa_use_value(c->pf->ssa, st, 3);
        if (p == SSA_NONE || !uniform_rec(c, p, depth + 1)) return;
        if (!operand_poly(c, st, 1, &a, depth) || !operand_poly(c, st, 2, &b, depth)) return;
        aff_meet(&r, &a, &b);
        break;
    }
    default: return;
    }
    if (r.top) return;
    aff_wrap(&r, bits);
    /* keep whichever knows more of the varying part */
    if (__builtin_popcount(r.bot & varying_monos(c)) < __builtin_popcount(out->bot & varying_monos(c))) *out = r;
}

void addr_refine(const addr_chain *c, uint32_t v, aff *out) { refine_rec(c, v, out, 0); }

/* No x ≡ res (mod 2^k) with lo <= x <= hi. */
static bool residue_misses(residue res, int64_t lo, int64_t hi)
{
    if (lo > hi) return true;
    if (!res.k) return false;
    int64_t m = (int64_t)1 << res.k;
    int64_t x = lo + (((int64_t)res.r - lo) % m + m) % m;
    return x > hi;
}

/* a cmp b, with a - b = B + off[lane] in each warp: the same in every lane? */
static bool compare_uniform(const addr_chain *c, const ptx_inst *in, uint32_t st, unsigned depth)
{
    aff a, b, d;
    if (!operand_poly(c, st, 1, &a, depth) || !operand_poly(c, st, 2, &b, depth)) return false;
    aff_sub(&d, &a, &b);
    if (!addr_poly_lane_exact(c, &d)) return false;
    ptx_str cmp = ptx_inst_mod(in, 0);
    int kind; /* 0: d < 0 flips; 1: d == 0 */
    int64_t shift = 0, sign = 1;
    if (ptx_str_eq(cmp, ".lt") || ptx_str_eq(cmp, ".ge") || ptx_str_eq(cmp, ".lo") || ptx_str_eq(cmp, ".hs")) kind = 0;
    else if (ptx_str_eq(cmp, ".le") || ptx_str_eq(cmp, ".gt") || ptx_str_eq(cmp, ".ls") || ptx_str_eq(cmp, ".hi"))
        kind = 0, shift = -1; /* d <= 0: d - 1 < 0 */
    else if (ptx_str_eq(cmp, ".eq") || ptx_str_eq(cmp, ".ne")) kind = 1;
    else return false;
    (void)sign;
    residue c0 = res_sub(operand_res(c, st, 1), operand_res(c, st, 2));
    static wl_result w; /* too large for the stack; not re-entered during its use */
    wl_eval(&d, &c->shape, c0, &w);
    if (w.status != WL_EXACT) return false;
    for (uint32_t wi = 0; wi < w.nwarps; wi++) {
        const wl_warp *ww = &w.warp[wi];
        residue base = res_add(ww->base, res_exact(shift));
        int64_t mn = 0, mx = 0;
        for (uint32_t l = 0; l < ww->nlanes; l++) {
            if (ww->off[l] < mn) mn = ww->off[l];
            if (ww->off[l] > mx) mx = ww->off[l];
        }
        if (mn == mx) continue;
        if (kind == 0) {
            /* B + off < 0 holds in some lanes and not others iff -mx <= B <= -mn - 1 */
            if (!residue_misses(base, -mx, -mn - 1)) return false;
        } else {
            for (uint32_t l = 0; l < ww->nlanes; l++)
                if (!residue_misses(base, -ww->off[l], -ww->off[l])) return false;
        }
    }
    return true;
}

static bool uniform_rec(const addr_chain *c, uint32_t v, unsigned depth)
{
    if (v == SSA_NONE) return false;
    if (c->r->state[v] == DIV_UNIFORM) return true;
    if (depth > REFINE_DEPTH) return false;
    uint32_t st;
    const ptx_inst *in = addr_def(c, v, &st);
    if (!in || c->pf->ssa->values[v].partial) return false;
    switch (in->op) {
    case PTX_OPC_SETP:
        if (!int_type(in->type) || in->nopd != 3) return false;
        return compare_uniform(c, in, st, depth);
    case PTX_OPC_NOT:
    case PTX_OPC_MOV:
        if (in->type != PTX_T_PRED) return false;
        return uniform_rec(c, ssa_use_value(c->pf->ssa, st, 1), depth + 1);
    case PTX_OPC_AND:
    case PTX_OPC_OR:
    case PTX_OPC_XOR:
        if (in->type != PTX_T_PRED) return false;
        return uniform_rec(c, ssa_use_value(c->pf->ssa, st, 1), depth + 1) &&
               uniform_rec(c, ssa_use_value(c->pf->ssa, st, 2), depth + 1);
    default: return false;
    }
}

bool addr_pred_warp_uniform(const addr_chain *c, uint32_t v) { return uniform_rec(c, v, 0); }

uint32_t addr_loaded_from(const addr_chain *c, uint32_t v)
{
    /* breadth-first over operands, a few levels up */
    uint32_t queue[64], n = 0, head = 0;
    if (v == SSA_NONE) return UINT32_MAX;
    queue[n++] = v;
    while (head < n) {
        uint32_t w = queue[head++], st;
        const ptx_inst *in = addr_def(c, w, &st);
        if (!in) continue;
        if (in->op == PTX_OPC_LD || in->op == PTX_OPC_LDU || in->op == PTX_OPC_ATOM) {
            if (in->space != PTX_SP_PARAM && in->space != PTX_SP_PARAM_ENTRY) return st;
            continue;
        }
        for (uint32_t i = 1; i < in->nopd && n < 64; i++) {
            uint32_t u = ssa_use_value(c->pf->ssa, st, i);
            if (u != SSA_NONE) queue[n++] = u;
        }
    }
    return UINT32_MAX;
}
