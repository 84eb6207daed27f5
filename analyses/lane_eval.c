/* Lane-exact evaluation (lane_eval.h): the leaves, loops (eval_mu) and
 * the warps; the rule of each integer operation is in the family's one
 * case of affine_rules.c (rules.h). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "lane_eval.h"
#include "lane_value.h"
#include "rules.h"

#define LE_DEPTH 24

/* The monomials that vary between the lanes of a warp. */
static uint16_t varying_monos(const addr_chain *c)
{
    unsigned dims = 1u << DIV_C_X | 1u << DIV_C_LANE;
    if (!c->r->tid_y_uniform) dims |= 1u << DIV_C_Y;
    if (!c->r->tid_z_uniform) dims |= 1u << DIV_C_Z;
    /* with an unknown shape, tid.y·tid.x varies too (and is in the set) */
    return (uint16_t)(aff_mask_any(dims) & AFF_ALL(c->r->ncoef));
}

/* Whether the varying monomials (those that differ between the lanes of a
 * warp under the chain's block shape) all have known coefficients. */
static bool poly_lane_exact(const addr_chain *c, const aff *p) { return !(p->bot & varying_monos(c)); }

bool le_opd(ectx *e, uint32_t st, uint32_t i, lv *out, unsigned depth)
{
    const ptx_inst *in = &e->c->pf->fn->stmts[st]->u.inst;
    if (i >= in->nopd) return false;
    const ptx_operand *o = &in->opd[i];
    if (o->kind == PTX_O_IMM && o->flags == PTX_IMM_INT) {
        lv_const(out, e->nl, o->v);
        return true;
    }
    if (o->kind != PTX_O_REG && o->kind != PTX_O_SREG) return false;
    uint32_t v = ssa_use_value(e->c->pf->ssa, st, i);
    return v != SSA_NONE && le_eval(e, v, out, depth + 1);
}

/* The value from the affine polynomial, when its lanes are exact. */
static bool eval_leaf(ectx *e, uint32_t v, lv *out)
{
    const addr_chain *c = e->c;
    aff p;
    aff_of_result(c->r, v, &p);
    if (!poly_lane_exact(c, &p)) return false;
    wl_eval(&p, &c->shape, c->res[v], &e->scratch);
    if (e->scratch.status != WL_EXACT || e->wi >= e->scratch.nwarps) return false;
    const wl_warp *w = &e->scratch.warp[e->wi];
    /* c0 + cl·laneid with everything known: no unknown at all; for
     * lane_eval_threads at a known shape, any polynomial whose every
     * coefficient is known (lane 0's thread indices are this warp's) */
    bool pure = !p.bot;
    for (unsigned i = 1; i < p.n && pure; i++)
        if (i != DIV_C_LANE && p.c[i]) pure = false;
    int64_t x0 = p.c[0];
    if (e->exact && !pure && !wl_lane0_exact(&p, &c->shape, e->wi, &x0)) return false;
    pure = pure || e->exact;
    /* lane 0's value, U: the dataflow's root + off where it has one
     * (warp_form.h sym), else v's own */
    lsym sym = pure ? 0 : v + 1;
    int64_t off = pure ? x0 : 0;
    wform wf;
    if (!pure && div_warp_form(c->r, v, &wf) && (wf.kind == WF_UNI || wf.kind == WF_LANE) && wf.k < 64)
        sym = wf.sym, off = wf.off;
    residue base = res_add(w->base, res_exact((int64_t)(0 - (uint64_t)off)));
    out->n = w->nlanes;
    out->wid = 0;
    for (uint32_t l = 0; l < w->nlanes; l++) {
        if (__builtin_add_overflow(w->off[l], off, &out->v[l])) return false;
        out->sym[l] = sym;
        out->res[l] = pure ? res_exact(0) : sym == e->ov_sym ? e->ov_res : base;
    }
    out->nonneg = lane_nonneg(c, v);
    return true;
}

/* The value from its warp form (warp_form.h), when that says more than
 * the polynomial: U + g(lane) with g exact, U known (a constant: no
 * symbol) or a symbol of which the form knows the low bits; iv: an
 * interval's (warp_form.h wid), U + g(lane) + [0, wid]. */
static bool eval_warp_form(ectx *e, uint32_t v, lv *out, bool iv)
{
    const addr_chain *c = e->c;
    wform wf;
    if (!div_warp_form(c->r, v, &wf)) return false;
    if (iv ? wf.kind != WF_BOT || !wf.wid : wf.kind != WF_LANE && !(wf.kind == WF_UNI && wf.k == 64)) return false;
    /* U known: no symbol; else U = U[root] + off, the dataflow's root (warp_form.h sym) */
    bool pure = wf.k == 64;
    lsym sym = pure ? 0 : wf.sym;
    int64_t off = pure ? (int64_t)wf.r : wf.off;
    residue u = res_make((int64_t)(wf.r - (uint64_t)wf.off), wf.k); /* U[root] */
    out->n = e->nl;
    out->wid = iv ? wf.wid : 0;
    for (uint32_t l = 0; l < e->nl; l++) {
        int64_t g = wf.kind == WF_LANE || iv ? wf.g[l] : 0;
        if (__builtin_add_overflow(g, off, &out->v[l])) return false;
        out->sym[l] = sym;
        out->res[l] = pure ? res_exact(0) : sym == e->ov_sym ? e->ov_res : u;
    }
    out->nonneg = wf.nn;
    return true;
}

static bool eval_mu(ectx *e, uint32_t v, lv *out, unsigned depth);

static bool eval_inst(ectx *e, uint32_t v, lv *out, unsigned depth)
{
    const addr_chain *c = e->c;
    uint32_t st;
    const ptx_inst *in = addr_def(c, v, &st);
    if (!in || c->pf->ssa->values[v].partial || c->pf->ssa->refs[c->pf->ssa->values[v].ref].opd != 0) return false;
    if (!ptx_type_is_int(in->type)) return false;
    return lane_rule(e, st, in, out, depth); /* its family's rule (rules.h) */
}

/* A loop mu, when every back edge brings back its lane structure (j =
 * start + lane; j += 32): the mu is then a new unknown plus the entry's
 * lane parts, in every iteration. */
#define MAX_MU 4
/* per thread: batches analyse files in parallel (report/batch.h) */
static _Thread_local uint32_t mu_v[MAX_MU];
static _Thread_local lv mu_val[MAX_MU];
static _Thread_local unsigned nmu;

static bool eval_mu(ectx *e, uint32_t v, lv *out, unsigned depth)
{
    const addr_chain *c = e->c;
    const ssa_func *s = c->pf->ssa;
    if (!c->pf->gsa || s->values[v].kind != SSA_V_PHI) return false;
    for (unsigned i = 0; i < nmu; i++)
        if (mu_v[i] == v) return *out = mu_val[i], true;
    const ssa_node *nd = &s->nodes[s->values[v].node];
    const gsa_node *gn = &c->pf->gsa->nodes[s->values[v].node];
    const cfg *g = c->pf->g;
    const cfg_block *b = &g->blocks[nd->block];
    if (gn->kind != GSA_MU || gn->irreducible || nd->nargs != b->npred || nmu == MAX_MU) return false;
    lv init, x, r;
    bool have = false;
    for (uint32_t i = 0; i < nd->nargs; i++) {
        if (nd->args[i] == SSA_NONE || cfg_is_back_edge(g, b->pred[i], nd->block)) continue;
        if (!le_eval(e, nd->args[i], &x, depth + 1)) return false;
        if (!have) init = x, have = true;
        else if (!lv_merge(e, &init, &x, T_MU, &r)) return false;
        else init = r;
    }
    if (!have) return false;
    /* the mu: U_mu + the entry's lane parts, one symbol per entry symbol */
    lv mu = init;
    for (uint32_t l = 0; l < init.n; l++) {
        mu.sym[l] = lv_derive(e, v + 1, init.sym[l], T_MU, 0);
        mu.res[l] = init.res[l];
    }
    mu.nonneg = lane_nonneg(c, v);
    /* the back edges must bring U_mu' + the same lane parts, U_mu' - U_mu
     * the same in all lanes of a group; U_mu's residue is the fixed point
     * of the meet over the iterations */
    bool ok = true, changed = true;
    for (unsigned round = 0; ok && changed && round <= RES_KMAX + 1; round++) {
        changed = false;
        mu_v[nmu] = v;
        mu_val[nmu] = mu;
        nmu++;
        residue rr[WL_LANES];
        memcpy(rr, mu.res, sizeof rr);
        for (uint32_t i = 0; i < nd->nargs && ok; i++) {
            if (nd->args[i] == SSA_NONE || !cfg_is_back_edge(g, b->pred[i], nd->block)) continue;
            if (!le_eval(e, nd->args[i], &x, depth + 1)) {
                ok = false;
                break;
            }
            if (x.wid != mu.wid) ok = false;
            for (uint32_t l = 0; l < x.n && ok; l++) {
                int64_t d = x.v[l] - mu.v[l];
                for (uint32_t j = 0; j < l && ok; j++)
                    if ((x.sym[j] == x.sym[l]) != (mu.sym[j] == mu.sym[l]) ||
                        (mu.sym[j] == mu.sym[l] && x.v[j] - mu.v[j] != d))
                        ok = false;
                rr[l] = res_meet(rr[l], res_add(x.res[l], res_exact(d)));
            }
        }
        nmu--;
        for (uint32_t l = 0; l < mu.n && ok; l++)
            if (!res_eq(rr[l], mu.res[l])) changed = true, mu.res[l] = rr[l];
    }
    if (!ok || changed) return false;
    *out = mu;
    return true;
}

bool le_eval(ectx *e, uint32_t v, lv *out, unsigned depth)
{
    if (depth > LE_DEPTH || e->overflow) return false;
    if (e->exact) { /* the leaf first: the form's U is one unknown for every warp */
        if (eval_leaf(e, v, out) || (eval_warp_form(e, v, out, false) && !out->sym[0])) return true;
        return e->c->pf->ssa->values[v].kind == SSA_V_PHI ? eval_mu(e, v, out, depth) : eval_inst(e, v, out, depth);
    }
    if (eval_warp_form(e, v, out, false) || eval_leaf(e, v, out)) return true;
    if (e->c->pf->ssa->values[v].kind == SSA_V_PHI ? eval_mu(e, v, out, depth) : eval_inst(e, v, out, depth))
        return true;
    /* known only within an interval: the dataflow's */
    return !e->overflow && eval_warp_form(e, v, out, true);
}

/* A context for chain c, and the warps of its shape and their lanes in w. */
static ectx *ectx_new(const addr_chain *c, wl_result *w)
{
    /* only the fields before keys are cleared: zeroing the whole context
     * (keys and a wl_result, about 30 KB) was 3% of check on the corpus */
    ectx *e = malloc(sizeof *e);
    if (!e) abort();
    memset(e, 0, offsetof(ectx, keys));
    e->c = c;
    aff zero;
    aff_const(&zero, c->r->ncoef, 0);
    wl_eval(&zero, &c->shape, res_exact(0), w);
    return e;
}

enum le_status lane_eval(const addr_chain *c, uint32_t v, le_result *out, wl_result *w)
{
    ectx *e = ectx_new(c, w);
    out->nwarps = w->nwarps;
    out->status = LE_EXACT;
    nmu = 0;
    uint32_t nreal = out->nwarps, nv = 0; /* real warps, virtual (case) warps */
    lv *cases = malloc(sizeof *cases * WL_MAXWARPS);
    if (!cases) abort();
    for (uint32_t wi = 0; wi < nreal && out->status != LE_FAIL; wi++) {
        e->wi = wi;
        e->nl = w->warp[wi].nlanes;
        e->nkeys = 0;
        e->overflow = false;
        e->need_sym = e->ov_sym = 0;
        lv x;
        bool got = le_eval(e, v, &x, 0) && !e->overflow && x.n == e->nl;
        /* one split on the missing bits of one symbol, at most 8 cases;
         * for an interval only when every case comes out exact */
        unsigned d = e->need_sym ? e->need_k - e->need_res.k : 0;
        bool split = e->need_sym && d <= 3 && nv + (1u << d) <= WL_MAXWARPS && (!got || x.wid);
        if (split) {
            lsym sym = e->need_sym;
            uint32_t nv0 = nv;
            residue r0 = e->need_res;
            unsigned k = e->need_k;
            lv y;
            for (uint32_t j = 0; j < 1u << d && split; j++) {
                e->nkeys = 0;
                e->overflow = false;
                e->need_sym = 0;
                e->ov_sym = sym;
                e->ov_res = res_make((int64_t)r0.r + ((int64_t)j << r0.k), k);
                if (le_eval(e, v, &y, 0) && !e->overflow && y.n == e->nl && (!got || !y.wid)) cases[nv++] = y;
                else split = false;
            }
            e->ov_sym = 0;
            if (split) continue;
            nv = nv0;
        }
        if (!got || nv == WL_MAXWARPS) {
            out->status = LE_FAIL;
            break;
        }
        cases[nv++] = x;
    }
    out->nwarps = w->nwarps = nv;
    for (uint32_t wi = 0; wi < nv && out->status != LE_FAIL; wi++) {
        const lv *x = &cases[wi];
        uint32_t nl = x->n;
        le_warp *o = &out->warp[wi];
        o->nlanes = nl;
        memcpy(o->lo, x->v, sizeof x->v[0] * nl);
        memcpy(o->sym, x->sym, sizeof x->sym[0] * nl);
        for (uint32_t l = 0; l < nl; l++)
            if (__builtin_add_overflow(x->v[l], (int64_t)x->wid, &o->hi[l])) out->status = LE_FAIL;
        o->base = nl ? x->res[0] : res_exact(0);
        bool one = true;
        for (uint32_t l = 0; l < nl; l++) one &= x->sym[l] == x->sym[0];
        if (out->status == LE_FAIL || (x->wid && !one)) out->status = LE_FAIL;
        else if (x->wid) out->status = out->status == LE_GROUPS ? LE_FAIL : LE_RANGE;
        else if (!one) out->status = out->status == LE_RANGE ? LE_FAIL : LE_GROUPS;
    }
    free(cases);
    free(e);
    if (out->status == LE_FAIL || out->status == LE_RANGE) return out->status;
    /* as warp_lanes would give it */
    w->status = out->status == LE_EXACT ? WL_EXACT : WL_SYMBOLIC;
    w->sym_monos = w->pos_monos = 0;
    for (uint32_t wi = 0; wi < out->nwarps; wi++) {
        const le_warp *o = &out->warp[wi];
        wl_warp *ww = &w->warp[wi];
        ww->nlanes = o->nlanes;
        ww->ngroups = 0;
        for (uint32_t l = 0; l < o->nlanes; l++) {
            ww->off[l] = o->lo[l] - o->lo[0];
            uint32_t g = ww->ngroups;
            for (uint32_t j = 0; j < l; j++)
                if (o->sym[j] == o->sym[l]) {
                    g = ww->group[j];
                    break;
                }
            if (g == ww->ngroups) ww->ngroups++;
            ww->group[l] = (uint8_t)g;
        }
        ww->base = res_add(o->base, res_exact(o->nlanes ? o->lo[0] : 0));
    }
    return out->status;
}

bool lane_eval_threads(const addr_chain *c, uint32_t v, int64_t *x, uint32_t n)
{
    if (!wl_shape_known(&c->shape)) return false;
    wl_result *w = malloc(sizeof *w);
    if (!w) abort();
    ectx *e = ectx_new(c, w);
    e->exact = true;
    uint32_t t = 0;
    bool ok = true;
    for (uint32_t wi = 0; ok && wi < w->nwarps; wi++) {
        e->wi = wi;
        e->nl = w->warp[wi].nlanes;
        e->nkeys = 0;
        lv a;
        ok = le_eval(e, v, &a, 0) && !e->overflow && a.n == e->nl && !a.wid;
        for (uint32_t l = 0; ok && l < a.n; l++) {
            ok = !a.sym[l] && t < n;
            if (ok) x[t++] = a.v[l];
        }
    }
    free(w);
    free(e);
    return ok && t == n;
}

/* ---- signs ------------------------------------------------------------------ */

/* The dataflow's sign (affine_rules.c, wf_sign): one rule for the branch
 * verdicts and the addresses. */
bool lane_nonneg(const addr_chain *c, uint32_t v)
{
    wform wf;
    return v != SSA_NONE && div_warp_form(c->r, v, &wf) && wf.nn;
}
