/* Address polynomials for the coalescing model (addr_refine.h).  The
 * hand-written sharpening this file once did (warp-uniform selects, lane
 * masks, nvcc's sign-extension idiom) is now the affine analysis' own,
 * through the warp forms (warp_form.h): what remains is reading its
 * results and recognising a few definitions. */
#include "addr_refine.h"

void addr_refine(const addr_chain *c, uint32_t v, aff *out) { aff_of_result(c->r, v, out); }

bool addr_pred_warp_uniform(const addr_chain *c, uint32_t v) { return c->r->state[v] == DIV_UNIFORM; }

/* The monomials that vary between the lanes of a warp. */
static uint16_t varying_monos(const addr_chain *c)
{
    unsigned dims = 1u << DIV_C_X | 1u << DIV_C_LANE;
    if (!c->r->tid_y_uniform) dims |= 1u << DIV_C_Y;
    if (!c->r->tid_z_uniform) dims |= 1u << DIV_C_Z;
    /* with an unknown shape, tid.y·tid.x varies too (and is in the set) */
    return (uint16_t)(aff_mask_any(dims) & AFF_ALL(c->r->ncoef));
}

bool addr_poly_lane_exact(const addr_chain *c, const aff *p) { return !(p->bot & varying_monos(c)); }

bool addr_sext_idiom(const addr_chain *c, uint32_t st, uint32_t *x, unsigned *s)
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
