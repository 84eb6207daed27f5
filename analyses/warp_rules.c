/* The warp forms (warp_form.h) of the special registers, and nvcc's
 * remainder idiom.  The forms' rule of each instruction, its interval's
 * and its sign bit's, are in affine_rules.c, in one case with the
 * polynomials'; the arithmetic itself is in warp_form.c and warp_iv.c. */
#include <string.h>
#include "affine_internal.h"
#include "semantics.h"

void wf_get(const aff_ctx *cx, uint32_t v, wform *out) { wf_load(cx, v, out); }

/* Per shape, how the lanes of a warp map to (tid.x, tid.y, tid.z), with
 * t = 32·w + l the linear thread id (CUDA Programming Guide, "Thread
 * Hierarchy": x fastest, then y, then z):
 *   X a multiple of 32, or Y = Z = 1: tid.x = U + l, U ≡ 0 (mod 32);
 *     tid.y, tid.z uniform;
 *   X divides 32: tid.x = l & (X-1); tid.y = U + (l / X) with U ≡ 0
 *     (mod 32/X) when 32 divides X·Y, (l / X) & (Y-1) when X·Y divides 32;
 *     tid.z likewise from X·Y;
 *   otherwise the warps do not all look alike: ⊥ (divergent).
 * An unknown shape is taken to have X a multiple of 32 (DIV_COND_*). */
void wf_tid_form(const div_result *r, unsigned d, wform *out)
{
    uint32_t X = r->block[0], Y = r->block[1] ? r->block[1] : 1, Z = r->block[2] ? r->block[2] : 1;
    if (!X) { /* the default assumption */
        if (d == 0) wf_lane(out, 1, 0, 5);
        else wf_uni(out, 0, 0);
        return;
    }
    uint32_t ext[3] = {X, Y, Z};
    if (ext[d] == 1) { wf_const(out, 0); return; }
    if (d > 0 && (d == 1 ? r->tid_y_uniform : r->tid_z_uniform)) { wf_uni(out, 0, 0); return; }
    if (X % 32 == 0 || (Y == 1 && Z == 1)) {
        if (d == 0) wf_lane(out, 1, 0, 5);
        else wf_uni(out, 0, 0);
        return;
    }
    /* X < 32: a power of two dividing 32, or the warps differ */
    uint32_t inner = d == 0 ? 1 : d == 1 ? X : X * Y; /* threads per step of this dimension */
    if (32 % X) { wf_bot(out); return; }
    if (32 % inner) { /* 32 | inner (inner a multiple of 32 > 32): uniform */
        if (inner % 32 == 0) wf_uni(out, 0, 0);
        else wf_bot(out);
        return;
    }
    unsigned sh = (unsigned)__builtin_ctz(inner);
    uint32_t span = inner * ext[d]; /* threads per wrap of this dimension */
    if (d == 2 || span % 32 == 0) {
        /* tid = (t / inner) mod ext = U + (l >> sh), U ≡ 0 mod 32/inner */
        wf_uni(out, 0, 5 - sh);
        out->kind = WF_LANE;
        for (unsigned l = 0; l < WF_LANES; l++) out->g[l] = l >> sh;
        if (!out->g[31]) out->kind = WF_UNI;
        return;
    }
    if (32 % span == 0) { /* the whole range of this dimension within a warp */
        wf_const(out, 0);
        out->kind = WF_LANE;
        for (unsigned l = 0; l < WF_LANES; l++) out->g[l] = (l >> sh) & (ext[d] - 1);
        return;
    }
    wf_bot(out);
}

/* Special registers that hold small non-negative numbers (ISA, "Special
 * Registers": indices, counts and ids). */
static bool sreg_nonneg(unsigned reg)
{
    switch (reg) {
    case PTX_SR_TID: case PTX_SR_NTID: case PTX_SR_LANEID: case PTX_SR_WARPID: case PTX_SR_NWARPID:
    case PTX_SR_CTAID: case PTX_SR_NCTAID: case PTX_SR_SMID: case PTX_SR_NSMID: case PTX_SR_CLUSTERID:
    case PTX_SR_NCLUSTERID: case PTX_SR_CLUSTER_CTAID: case PTX_SR_CLUSTER_NCTAID: case PTX_SR_CLUSTER_CTARANK:
    case PTX_SR_CLUSTER_NCTARANK:
        return true;
    default:
        return false;
    }
}

static void eval_sreg(const aff_ctx *cx, const ssa_value *val, wform *out, uint8_t *cond);

void wf_eval_sreg(const aff_ctx *cx, const ssa_value *val, wform *out, uint8_t *cond)
{
    eval_sreg(cx, val, out, cond);
    out->nn = sreg_nonneg(val->reg); /* kept when divergent (wf_sign) */
    out->sym = 0, out->off = 0;      /* its own root */
}

static void eval_sreg(const aff_ctx *cx, const ssa_value *val, wform *out, uint8_t *cond)
{
    const div_result *r = cx->r;
    int d = val->comp == 'x' ? 0 : val->comp == 'y' ? 1 : val->comp == 'z' ? 2 : -1;
    *cond = 0;
    switch (val->reg) {
    case PTX_SR_TID:
        if (d < 0) break;
        if (d < 2) *out = cx->tidf[d]; /* made once (div_analyse) */
        else wf_tid_form(r, (unsigned)d, out);
        if (r->shape_assumed) *cond = d == 0 ? DIV_COND_ROWS : r->yz_by_option ? 0 : DIV_COND_X32;
        return;
    case PTX_SR_NTID:
        if (d >= 0 && r->block[0]) wf_const(out, r->block[d] ? r->block[d] : 1);
        else if (d == 0) { /* blockDim.x ≡ 0 mod 32 under the default assumption */
            wf_uni(out, 0, 5);
            *cond = DIV_COND_X32;
        } else wf_uni(out, 0, 0);
        return;
    case PTX_SR_LANEID:
        wf_lane(out, 1, 0, 64);
        return;
    case PTX_SR_LANEMASK_EQ: case PTX_SR_LANEMASK_LE: case PTX_SR_LANEMASK_LT: case PTX_SR_LANEMASK_GE:
    case PTX_SR_LANEMASK_GT: {
        /* 32-bit masks of the lanes =, ≤, <, ≥, > this one (ISA, "%lanemask_*") */
        out->kind = WF_LANE;
        out->k = 64;
        out->r = 0;
        out->tab = 0;
        uint64_t v0 = 0;
        for (unsigned l = 0; l < WF_LANES; l++) {
            uint64_t eq = 1ull << l, lt = eq - 1, v;
            switch (val->reg) {
            case PTX_SR_LANEMASK_EQ: v = eq; break;
            case PTX_SR_LANEMASK_LE: v = lt | eq; break;
            case PTX_SR_LANEMASK_LT: v = lt; break;
            case PTX_SR_LANEMASK_GE: v = ~lt & 0xffffffffu; break;
            default: v = ~(lt | eq) & 0xffffffffu; break;
            }
            if (!l) v0 = v;
            out->g[l] = (int64_t)(int32_t)(uint32_t)(v - v0);
        }
        out->r = (uint64_t)(int64_t)(int32_t)(uint32_t)v0;
        return;
    }
    default:
        break;
    }
    if (r->source[val - cx->pf->ssa->values] != DIV_SRC_NONE) wf_bot(out);
    else wf_uni(out, 0, 0);
}

/* ---- nvcc's remainder by a constant --------------------------------------------
 * (read by the interval rule of sub, affine_rules.c, and by lane-exact
 * evaluation) */

/* The instruction defining operand k of stmt (a register), not a partial
 * definition: NULL otherwise; *st its statement. */
static const ptx_inst *def_of(const prog_func *pf, uint32_t stmt, unsigned k, uint32_t *st, uint32_t *v)
{
    const ssa_func *s = pf->ssa;
    const ptx_inst *in = &pf->fn->stmts[stmt]->u.inst;
    if (k >= in->nopd || in->opd[k].kind != PTX_O_REG) return NULL;
    *v = ssa_use_value(s, stmt, k);
    if (*v == SSA_NONE || s->values[*v].kind != SSA_V_INST || s->values[*v].partial) return NULL;
    *st = s->values[*v].stmt;
    return &pf->fn->stmts[*st]->u.inst;
}

/* div_magic_rem (divergence.h).  The idiom: sub r, x, (mul.lo (add h', (shr.u32
 * h', 31)), d) with h' = mul.hi.s32 x, M (optionally shr.s32 by s), M the
 * magic number of d: 2^(32+s) <= M·d <= 2^(32+s) + 2^(s+1).  Then for
 * 0 <= x < 2^31 the quotient is floor(x/d) (the error term x·(M·d -
 * 2^(32+s)) / (d·2^(32+s)) stays below 1/d) and r = x mod d, in [0, d).
 * *x gets x's value. */
bool div_magic_rem(const prog_func *pf, uint32_t st, uint32_t *x, int64_t *d)
{
    const ssa_func *s = pf->ssa;
    const ptx_inst *in = &pf->fn->stmts[st]->u.inst;
    uint32_t v = 0, mst = 0, ast = 0, hst = 0, tst = 0, hv = 0, sv = 0;
    const ptx_inst *mul = def_of(pf, st, 2, &mst, &v);
    if (in->op != PTX_OPC_SUB || ptx_type_bits(in->type) != 32 || !mul || mul->op != PTX_OPC_MUL ||
        !ptx_inst_has_mod(mul, ".lo") || mul->nopd != 3 || !opd_imm(mul, 2, d) || *d <= 1)
        return false;
    const ptx_inst *add = def_of(pf, mst, 1, &ast, &v);
    if (!add || add->op != PTX_OPC_ADD || add->nopd != 3) return false;
    const ptx_inst *h = def_of(pf, ast, 1, &hst, &hv), *sh = def_of(pf, ast, 2, &tst, &sv);
    int64_t c;
    if (!h || !sh || sh->op != PTX_OPC_SHR || sh->nopd != 3 || !opd_imm(sh, 2, &c) || c != 31 ||
        ssa_use_value(s, tst, 1) != hv)
        return false;
    int64_t sf = 0;
    if (h->op == PTX_OPC_SHR) { /* the optional post-shift */
        if (h->type != PTX_T_S32 || h->nopd != 3 || !opd_imm(h, 2, &sf) || sf < 0 || sf > 31) return false;
        h = def_of(pf, hst, 1, &hst, &hv);
    }
    if (!h || h->op != PTX_OPC_MUL || !ptx_inst_has_mod(h, ".hi") || h->type != PTX_T_S32 || h->nopd != 3 ||
        !opd_imm(h, 2, &c) || c <= 0)
        return false;
    *x = ssa_use_value(s, hst, 1);
    if (*x == SSA_NONE || ssa_use_value(s, st, 1) != *x) return false;
    __int128 md = (__int128)c * *d, p = (__int128)1 << (32 + sf);
    return md >= p && md <= p + ((__int128)1 << (sf + 1));
}
