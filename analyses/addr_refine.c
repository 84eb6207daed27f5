/* Warp-uniform selects in address computations (addr_refine.h). */
#include <stdlib.h>
#include "addr_refine.h"

#define REFINE_DEPTH 12
#define MAX_ASSUME 8

/* Results computed with no loop assumption in force depend on nothing
 * else and are kept; those computed under one are not. */
struct addr_refine_cache {
    uint8_t *done;
    aff *val;
    uint32_t nassume;
    uint32_t assume_v[MAX_ASSUME];
    aff assume_a[MAX_ASSUME];
};

static struct addr_refine_cache *cache_of(const addr_chain *c)
{
    if (!c->cache) {
        uint32_t n = c->pf->ssa->nvalues ? c->pf->ssa->nvalues : 1;
        struct addr_refine_cache *k = calloc(1, sizeof *k);
        if (!k) abort();
        k->done = calloc(n, 1);
        k->val = calloc(n, sizeof *k->val);
        if (!k->done || !k->val) abort();
        ((addr_chain *)c)->cache = k;
    }
    return c->cache;
}

void addr_refine_free(addr_chain *c)
{
    if (!c->cache) return;
    free(c->cache->done);
    free(c->cache->val);
    free(c->cache);
    c->cache = NULL;
}

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

static residue operand_res(const addr_chain *c, uint32_t st, uint32_t i);

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

static bool refine_node(const addr_chain *c, uint32_t v, aff *out, unsigned depth);
static bool refine_bits(const addr_chain *c, uint32_t st, const ptx_inst *in, aff *out, unsigned depth);
static bool uniform_load(const addr_chain *c, uint32_t st, const ptx_inst *in, unsigned depth);

static void refine_compute(const addr_chain *c, uint32_t v, aff *out, unsigned depth);

static void refine_rec(const addr_chain *c, uint32_t v, aff *out, unsigned depth)
{
    struct addr_refine_cache *k = cache_of(c);
    for (uint32_t i = k->nassume; i-- > 0;)
        if (k->assume_v[i] == v) {
            *out = k->assume_a[i];
            return;
        }
    if (k->done[v]) {
        *out = k->val[v];
        return;
    }
    refine_compute(c, v, out, depth);
    /* a result cut short by the depth limit is not the value's own */
    if (!k->nassume && depth == 0) {
        k->done[v] = 1;
        k->val[v] = *out;
    }
}

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

static bool sext_shift(const addr_chain *c, uint32_t st, const ptx_inst *in, aff *out, unsigned depth)
{
    uint32_t x;
    unsigned s;
    (void)in;
    if (!addr_sext_idiom(c, st, &x, &s)) return false;
    aff a, b;
    refine_rec(c, x, &a, depth + 1);
    aff_const(&b, c->r->ncoef, (int64_t)1 << s);
    aff_mul(out, &a, &b);
    return true;
}

static void refine_compute(const addr_chain *c, uint32_t v, aff *out, unsigned depth)
{
    aff_of_value(c->r, v, out);
    if (addr_poly_lane_exact(c, out) || depth > REFINE_DEPTH) return;
    const ssa_value *val = &c->pf->ssa->values[v];
    if (val->kind == SSA_V_PHI) {
        aff r;
        if (refine_node(c, v, &r, depth) &&
            __builtin_popcount(r.bot & varying_monos(c)) < __builtin_popcount(out->bot & varying_monos(c)))
            *out = r;
        return;
    }
    uint32_t st;
    const ptx_inst *in = addr_def(c, v, &st);
    if (!in || c->pf->ssa->values[v].partial || c->pf->ssa->refs[c->pf->ssa->values[v].ref].opd != 0) return;
    if (!ptx_type_is_int(in->type)) return;
    unsigned n = c->r->ncoef, bits = ptx_type_bits(in->type);
    if (in->op == PTX_OPC_CVT) bits = ptx_type_bits(in->type2); /* cvt.dst.src */
    else if (ptx_inst_has_mod(in, ".wide")) bits *= 2;
    aff a, b, t, r;
    switch (in->op) {
    case PTX_OPC_MOV:
        if (!operand_poly(c, st, 1, &r, depth)) return;
        break;
    case PTX_OPC_CVT:
        if (!ptx_type_is_int(in->type2) || !operand_poly(c, st, 1, &r, depth)) return;
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
    case PTX_OPC_SHR:
        /* shl.b64 t, x, 32; shr.s64 y, t, 32 - s is (int64)(int32)x << s,
         * nvcc's sign extension of an int index times 2^s: x << s as long
         * as x fits in 32 bits (the no-wraparound assumption) */
        if (sext_shift(c, st, in, &r, depth)) break;
        if (!refine_bits(c, st, in, &r, depth)) return;
        break;
    case PTX_OPC_AND:
        if (!refine_bits(c, st, in, &r, depth)) return;
        break;
    case PTX_OPC_LD:
    case PTX_OPC_LDU:
        if (!uniform_load(c, st, in, depth)) return;
        aff_uniform_unknown(&r, n);
        break;
    default: return;
    }
    if (r.top) return;
    aff_wrap(&r, bits);
    /* keep whichever knows more of the varying part */
    if (__builtin_popcount(r.bot & varying_monos(c)) < __builtin_popcount(out->bot & varying_monos(c))) *out = r;
}

void addr_refine(const addr_chain *c, uint32_t v, aff *out) { refine_rec(c, v, out, 0); }

/* tid.x & 31 is the lane when tid.x = X0 + lane with X0 ≡ 0 (mod 32), and
 * (blockIdx.x·blockDim.x + tid.x) >> 5 the same in every lane: for x =
 * B + off[lane] with B mod 2^k + off[lane] within [0, 2^k) in every lane,
 * x & (2^k - 1) = B mod 2^k + off[lane] and x >> k = B >> k.  The masked
 * value is kept when the offsets are s·lane, the same in every warp. */
static bool refine_bits(const addr_chain *c, uint32_t st, const ptx_inst *in, aff *out, unsigned depth)
{
    if (in->nopd != 3 || in->opd[2].kind != PTX_O_IMM) return false;
    int64_t m = in->opd[2].v;
    unsigned k;
    unsigned j = 0; /* and with 2^k - 2^j: the low j bits must be known zero */
    if (in->op == PTX_OPC_AND) {
        if (m <= 0 || m >= (1 << RES_KMAX)) return false;
        j = (unsigned)__builtin_ctzll((unsigned long long)m);
        k = 64 - (unsigned)__builtin_clzll((unsigned long long)m);
        if (m != (int64_t)((1u << k) - (1u << j))) return false;
    } else {
        if (m <= 0 || m >= RES_KMAX) return false;
        k = (unsigned)m;
    }
    aff a;
    if (!operand_poly(c, st, 1, &a, depth) || !addr_poly_lane_exact(c, &a)) return false;
    static wl_result w; /* used after the recursion only */
    wl_eval(&a, &c->shape, operand_res(c, st, 1), &w);
    if (w.status != WL_EXACT) return false;
    /* B known modulo 2^kb only: B mod 2^k is r + j·2^kb for some j, and
     * r + off < 2^kb keeps every such sum below 2^k (blockIdx.x·blockDim.x
     * + tid.x, a multiple of 32 plus the lane, & 255) */
    int64_t low = -1, s = 0;
    bool low_known = true;
    for (uint32_t wi = 0; wi < w.nwarps; wi++) {
        const wl_warp *ww = &w.warp[wi];
        unsigned kb = ww->base.k < k ? ww->base.k : k;
        int64_t b = ww->base.r & ((1 << kb) - 1);
        if (kb < k) low_known = false;
        if (j && (kb < j || (b & ((1 << j) - 1)))) return false;
        if (low >= 0 && b != low) low_known = false;
        low = b;
        int64_t ws = ww->nlanes > 1 ? ww->off[1] : 0;
        if (wi && ws != s) return false;
        s = ws;
        for (uint32_t l = 0; l < ww->nlanes; l++) {
            int64_t x = b + ww->off[l];
            if (x < 0 || x >= (1 << kb)) return false;
            if (ww->off[l] != s * (int64_t)l) return false;
            if (j && (ww->off[l] & ((1 << j) - 1))) return false;
        }
    }
    unsigned n = c->r->ncoef;
    if (in->op == PTX_OPC_SHR) aff_uniform_unknown(out, n);
    else {
        aff_const(out, n, low);
        if (!low_known) aff_uniform_unknown(out, n);
        out->c[DIV_C_LANE] = s;
    }
    return true;
}

/* A load from global, shared or constant memory at an address that is the
 * same in all lanes gives them all the same value. */
static bool uniform_load(const addr_chain *c, uint32_t st, const ptx_inst *in, unsigned depth)
{
    if (in->nopd < 2 || in->opd[1].kind != PTX_O_ADDR || in->opd[1].n != 1 || in->opd[0].kind != PTX_O_REG) return false;
    unsigned sp = in->space;
    enum addr_prov p = addr_operand_prov(c, st, 1);
    bool ok = sp == PTX_SP_GLOBAL || sp == PTX_SP_SHARED || sp == PTX_SP_SHARED_CTA || sp == PTX_SP_CONST ||
              (sp == PTX_SP_NONE && (p == AP_GLOBAL || p == AP_PARAM64 || p == AP_SHARED || p == AP_CONST));
    if (!ok || ptx_inst_has_mod(in, ".volatile")) return false;
    if (in->opd[1].p.elems[0].kind != PTX_O_REG) return in->opd[1].p.elems[0].kind == PTX_O_SYM;
    uint32_t av = ssa_use_value(c->pf->ssa, st, 1);
    if (av == SSA_NONE) return false;
    aff a;
    refine_rec(c, av, &a, depth + 1);
    if (!addr_poly_lane_exact(c, &a)) return false;
    uint16_t vary = varying_monos(c);
    for (unsigned i = 1; i < a.n; i++)
        if ((vary >> i & 1) && a.c[i]) return false;
    return true;
}

static bool gates_uniform(const addr_chain *c, const gsa_expr *e, unsigned depth)
{
    if (!e || e->kind != GSA_X_SELECT) return true;
    if (!uniform_rec(c, e->value, depth + 1)) return false;
    for (uint32_t i = 0; i < e->n; i++)
        if (!gates_uniform(c, e->ops[i], depth)) return false;
    return true;
}

/* A phi: a loop's mu is the meet of its entry value and what each
 * iteration carries back, checked under the assumption that the mu is its
 * entry value (no gate: the lanes still in the loop have run the same
 * iterations); a gamma is the meet of its arguments when every gate is
 * uniform within the warp. */
static bool refine_node(const addr_chain *c, uint32_t v, aff *out, unsigned depth)
{
    const ssa_func *s = c->pf->ssa;
    if (!c->pf->gsa) return false;
    uint32_t k = s->values[v].node;
    const ssa_node *nd = &s->nodes[k];
    const gsa_node *gn = &c->pf->gsa->nodes[k];
    const cfg *g = c->pf->g;
    const cfg_block *b = &g->blocks[nd->block];
    if (gn->irreducible || nd->nargs != b->npred) return false;
    aff init, x;
    aff_top(&init, c->r->ncoef);
    if (gn->kind == GSA_GAMMA) {
        if (!gates_uniform(c, gn->expr, depth)) return false;
        for (uint32_t i = 0; i < nd->nargs; i++) {
            if (nd->args[i] == SSA_NONE) continue;
            refine_rec(c, nd->args[i], &x, depth + 1);
            aff_meet(&init, &init, &x);
        }
        if (init.top) return false;
        *out = init;
        return true;
    }
    if (gn->kind != GSA_MU) return false;
    for (uint32_t i = 0; i < nd->nargs; i++) {
        if (nd->args[i] == SSA_NONE || cfg_is_back_edge(g, b->pred[i], nd->block)) continue;
        refine_rec(c, nd->args[i], &x, depth + 1);
        aff_meet(&init, &init, &x);
    }
    if (init.top || !addr_poly_lane_exact(c, &init)) return false;
    struct addr_refine_cache *kc = cache_of(c);
    if (kc->nassume >= MAX_ASSUME) return false;
    kc->assume_v[kc->nassume] = v;
    kc->assume_a[kc->nassume] = init;
    kc->nassume++;
    aff r = init;
    for (uint32_t i = 0; i < nd->nargs; i++) {
        if (nd->args[i] == SSA_NONE || !cfg_is_back_edge(g, b->pred[i], nd->block)) continue;
        refine_rec(c, nd->args[i], &x, depth + 1);
        aff_meet(&r, &r, &x);
    }
    kc->nassume--;
    /* the assumption holds if going round keeps the lane-varying part */
    uint16_t vary = varying_monos(c);
    if (r.bot & vary) return false;
    for (unsigned i = 1; i < r.n; i++)
        if ((vary >> i & 1) && r.c[i] != init.c[i]) return false;
    *out = r;
    return true;
}

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
        if (!ptx_type_is_int(in->type) || in->nopd != 3) return false;
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
