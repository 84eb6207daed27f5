/* Lane offsets of affine values (warp_lanes.h). */
#include <string.h>
#include "warp_lanes.h"

static bool coef_known(const aff *p, unsigned i) { return !(p->bot >> i & 1); }

/* Refines the grouping of w's lanes by the values key[]: lanes stay in one
 * group only if their keys agree. */
static void split_groups(wl_warp *w, const int64_t *key)
{
    uint8_t ng = 0, newg[WL_LANES];
    for (uint32_t l = 0; l < w->nlanes; l++) {
        uint32_t k = 0;
        for (; k < l; k++)
            if (w->group[k] == w->group[l] && key[k] == key[l]) break;
        newg[l] = k < l ? newg[k] : ng++;
    }
    memcpy(w->group, newg, w->nlanes);
    w->ngroups = ng;
}

/* c·m, or false when it does not fit. */
static bool mul_ok(int64_t c, int64_t m, int64_t *out) { return !__builtin_mul_overflow(c, m, out); }

/* Unknown shape: one warp stands for all. tid.x = X0 + lane with X0 ≡ 0
 * (mod 32); tid.y = Y0, tid.z = Z0 unknown and the same in every lane. */
static void eval_default(const aff *p, residue c0, wl_result *out)
{
    wl_warp *w = &out->warp[0];
    w->nlanes = WL_LANES;
    w->ngroups = 1;
    w->base = c0;
    for (unsigned i = 1; i < p->n; i++) {
        bool known = coef_known(p, i);
        int64_t c = p->c[i];
        if (known && c == 0) continue;
        unsigned a = aff_fac[i][0], b = aff_fac[i][1];
        bool lane_a = a == DIV_C_X || a == DIV_C_LANE, lane_b = b == DIV_C_X || b == DIV_C_LANE;
        residue cr = known ? res_exact(c) : res_unknown();
        if (!b) { /* linear */
            if (lane_a) {
                if (known) {
                    for (uint32_t l = 0; l < WL_LANES; l++) {
                        int64_t t;
                        if (!mul_ok(c, (int64_t)l, &t) || __builtin_add_overflow(w->off[l], t, &w->off[l])) {
                            out->sym_monos |= (uint16_t)(1u << i);
                            break;
                        }
                    }
                } else out->sym_monos |= (uint16_t)(1u << i);
                /* c·X0: a multiple of 32·c, whatever c is */
                if (a == DIV_C_X) w->base = res_add(w->base, res_mul(cr, res_make(0, 5)));
            } else {
                w->base = res_add(w->base, res_mul(cr, res_unknown()));
            }
            continue;
        }
        if (a == DIV_C_LANE && b == DIV_C_LANE) { /* laneid² */
            if (!known) out->sym_monos |= (uint16_t)(1u << i);
            else
                for (uint32_t l = 0; l < WL_LANES; l++) {
                    int64_t t;
                    if (!mul_ok(c, (int64_t)(l * l), &t) || __builtin_add_overflow(w->off[l], t, &w->off[l])) {
                        out->sym_monos |= (uint16_t)(1u << i);
                        break;
                    }
                }
            continue;
        }
        if (lane_a && lane_b) { /* tid.x², tid.x·laneid: 2·X0·lane, X0·lane */
            out->pos_monos |= (uint16_t)(1u << i);
            continue;
        }
        if (lane_a || lane_b) { /* tid.x·tid.y, laneid·tid.z...: lane times an unknown */
            out->sym_monos |= (uint16_t)(1u << i);
            if (a == DIV_C_X) w->base = res_add(w->base, res_make(0, 5) /* X0·Y0·c */);
            continue;
        }
        w->base = res_add(w->base, res_mul(cr, res_unknown()));
    }
    if (out->pos_monos) out->status = WL_POSITION;
    else if (out->sym_monos) {
        out->status = WL_SYMBOLIC;
        /* every varying unknown term separates all lanes: tid.x and laneid
         * differ in each of them */
        for (uint32_t l = 0; l < WL_LANES; l++) w->group[l] = (uint8_t)l;
        w->ngroups = WL_LANES;
    }
}

static int64_t dim_value(unsigned d, const uint32_t t[3], uint32_t lane)
{
    return d == 0 ? 1 : d == DIV_C_LANE ? (int64_t)lane : (int64_t)t[d - 1];
}

/* The warps eval_known evaluates. */
static uint32_t known_warps(const warp_shape *sh)
{
    uint64_t X = sh->block[0], Y = sh->block[1] ? sh->block[1] : 1, Z = sh->block[2] ? sh->block[2] : 1;
    uint64_t total = X * Y * Z;
    uint64_t nw = (total + WL_LANES - 1) / WL_LANES;
    if (nw > WL_MAXWARPS) nw = WL_MAXWARPS;
    if (nw == 0) nw = 1;
    return (uint32_t)nw;
}

static void eval_known(const aff *p, const warp_shape *sh, residue c0, wl_result *out)
{
    uint64_t X = sh->block[0], Y = sh->block[1] ? sh->block[1] : 1, Z = sh->block[2] ? sh->block[2] : 1;
    uint64_t total = X * Y * Z;
    uint32_t nw = known_warps(sh);
    out->nwarps = nw;
    for (uint32_t wi = 0; wi < nw; wi++) {
        wl_warp *w = &out->warp[wi];
        uint64_t first = (uint64_t)wi * WL_LANES;
        w->nlanes = (uint32_t)(total - first < WL_LANES ? total - first : WL_LANES);
        w->ngroups = 1;
        w->base = c0;
        uint32_t tid[WL_LANES][3];
        for (uint32_t l = 0; l < w->nlanes; l++) {
            uint64_t t = first + l;
            tid[l][0] = (uint32_t)(t % X);
            tid[l][1] = (uint32_t)(t / X % Y);
            tid[l][2] = (uint32_t)(t / (X * Y));
        }
        for (unsigned i = 1; i < p->n; i++) {
            bool known = coef_known(p, i);
            int64_t c = p->c[i];
            if (known && c == 0) continue;
            int64_t m[WL_LANES] = {0};
            bool varies = false;
            for (uint32_t l = 0; l < w->nlanes; l++) {
                m[l] = dim_value(aff_fac[i][0], tid[l], l) * dim_value(aff_fac[i][1], tid[l], l);
                if (m[l] != m[0]) varies = true;
            }
            if (known) {
                int64_t b0;
                bool ok = mul_ok(c, m[0], &b0);
                for (uint32_t l = 1; ok && l < w->nlanes; l++) {
                    int64_t t;
                    ok = mul_ok(c, m[l] - m[0], &t) && !__builtin_add_overflow(w->off[l], t, &w->off[l]);
                }
                if (ok) {
                    w->base = res_add(w->base, res_exact(b0));
                    continue;
                }
            }
            /* unknown (or too large) coefficient */
            w->base = res_add(w->base, m[0] ? res_unknown() : res_exact(0));
            if (varies) {
                out->sym_monos |= (uint16_t)(1u << i);
                split_groups(w, m);
            }
        }
    }
    out->status = out->sym_monos ? WL_SYMBOLIC : WL_EXACT;
}

void wl_eval(const aff *p, const warp_shape *sh, residue c0, wl_result *out)
{
    out->status = WL_EXACT;
    out->sym_monos = out->pos_monos = 0;
    out->nwarps = 1;
    /* only the warps evaluated (readers stop at nwarps): clearing all 32
     * was nine tenths of the cost of an evaluation, itself a fifth of
     * check's analyses */
    memset(out->warp, 0, sizeof out->warp[0] * (wl_shape_known(sh) ? known_warps(sh) : 1));
    if (wl_shape_known(sh)) eval_known(p, sh, c0, out);
    else eval_default(p, c0, out);
}

bool wl_injective(const wl_result *r)
{
    if (r->status != WL_EXACT) return false;
    for (uint32_t wi = 0; wi < r->nwarps; wi++) {
        const wl_warp *w = &r->warp[wi];
        for (uint32_t a = 0; a < w->nlanes; a++)
            for (uint32_t b = a + 1; b < w->nlanes; b++)
                if (w->off[a] == w->off[b]) return false;
    }
    return true;
}
