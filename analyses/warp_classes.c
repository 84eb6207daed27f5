/* The warp classes of a block shape (warp_classes.h). */
#include <string.h>
#include "warp_classes.h"
#include "aff_poly.h"

/* Built per thread (batch runs analyse files in parallel) for the last
 * shape asked for: a function's accesses all ask for its shape. */
static _Thread_local wc_shape cache;
static _Thread_local bool cached;

/* A coordinate's form: lane l at U + g[l], U ≡ r (mod 2^k); never negative. */
static void coord(wform *f, const int64_t *g, uint64_t r, unsigned k)
{
    wf_uni(f, r, k);
    f->nn = 1;
    for (unsigned l = 0; l < WF_LANES; l++)
        if (g[l]) {
            f->kind = WF_LANE;
            memcpy(f->g, g, sizeof f->g);
            break;
        }
}

static int64_t g_at(const wform *f, unsigned l) { return f->kind == WF_LANE ? f->g[l] : 0; }

/* Monomial i's form from the coordinates' forms t. */
static void monomial(wform *m, const wform *t, unsigned i)
{
    unsigned a = aff_fac[i][0], b = aff_fac[i][1];
    if (!b) *m = t[a];
    else wf_mul(m, &t[a], &t[b], 64);
}

/* The unknown shape: tid.x = U + lane with U ≡ 0 (mod 32), tid.y and
 * tid.z uniform. */
static void build_default(wc_shape *s)
{
    int64_t lane[WF_LANES], zero[WF_LANES] = {0};
    for (unsigned l = 0; l < WF_LANES; l++) lane[l] = l;
    wc_class *c = &s->c[0];
    s->nwarps = s->nclasses = 1;
    s->cls[0] = 0;
    c->nlanes = WF_LANES;
    c->nwarps = 1;
    c->warp[0] = 0;
    wf_const(&c->t[0], 1);
    coord(&c->t[DIV_C_X], lane, 0, 5);
    coord(&c->t[DIV_C_Y], zero, 0, 0);
    coord(&c->t[DIV_C_Z], zero, 0, 0);
    coord(&c->t[DIV_C_LANE], lane, 0, 64);
    /* the lane offsets of a term with a known coefficient stay below 32²
     * (tid.x's U goes to lane 0's residue) */
    s->climit = INT64_MAX / 16 / (31 * 31);
}

static void build_known(wc_shape *s, const uint32_t block[3])
{
    uint64_t X = block[0], Y = block[1] ? block[1] : 1, Z = block[2] ? block[2] : 1;
    uint64_t total = X * Y * Z, nw = (total + WF_LANES - 1) / WF_LANES, maxc = WF_LANES - 1;
    if (nw > WC_MAXWARPS) nw = WC_MAXWARPS;
    if (!nw) nw = 1;
    s->nwarps = (uint32_t)nw;
    s->nclasses = 0;
    for (uint32_t w = 0; w < nw; w++) {
        uint64_t first = (uint64_t)w * WF_LANES;
        uint32_t nl = (uint32_t)(total - first < WF_LANES ? total - first : WF_LANES);
        int64_t g[4][WF_LANES] = {{0}};
        for (uint32_t l = 0; l < nl; l++) {
            uint64_t t = first + l, tid[3] = {t % X, t / X % Y, t / (X * Y)};
            for (unsigned d = 0; d < 3; d++) {
                if (!l) s->u[w][d] = (uint32_t)tid[d];
                g[d][l] = (int64_t)tid[d] - s->u[w][d];
                if (tid[d] > maxc) maxc = tid[d];
            }
            g[3][l] = l;
        }
        uint32_t ci = 0;
        for (; ci < s->nclasses; ci++) {
            const wc_class *c = &s->c[ci];
            bool same = c->nlanes == nl;
            for (unsigned d = 0; d < 3 && same; d++)
                for (uint32_t l = 0; l < nl && same; l++) same = g_at(&c->t[DIV_C_X + d], l) == g[d][l];
            if (same) break;
        }
        wc_class *c = &s->c[ci];
        if (ci == s->nclasses) { /* a new class: its U known, for now */
            s->nclasses++;
            c->nlanes = nl;
            c->nwarps = 0;
            wf_const(&c->t[0], 1);
            for (unsigned d = 0; d < 3; d++) coord(&c->t[DIV_C_X + d], g[d], s->u[w][d], 64);
            coord(&c->t[DIV_C_LANE], g[3], 0, 64);
        } else /* U: the bits the class' warps agree on */
            for (unsigned d = 0; d < 3; d++) {
                wform *f = &c->t[DIV_C_X + d];
                wf_meet_bits(f->r, f->k, s->u[w][d], 64, &f->r, &f->k);
            }
        c->warp[c->nwarps++] = w;
        s->cls[w] = (uint8_t)ci;
    }
    s->climit = INT64_MAX / 16 / (int64_t)(maxc * maxc);
}

/* Coordinate d's form in warp w, U known. */
static void warp_coord(const wc_shape *s, uint32_t w, unsigned d, wform *f)
{
    *f = s->c[s->cls[w]].t[d];
    if (d >= DIV_C_X && d <= DIV_C_Z) f->r = s->u[w][d - DIV_C_X], f->k = 64;
}

static void build(wc_shape *s, const uint32_t block[3])
{
    memcpy(s->block, block, sizeof s->block);
    bool known = block[0] != 0;
    if (known) build_known(s, block);
    else build_default(s);
    for (uint32_t ci = 0; ci < s->nclasses; ci++) {
        wc_class *c = &s->c[ci];
        c->bot = 0;
        c->vary = 0;
        for (unsigned d = DIV_C_X; d <= DIV_C_LANE; d++)
            if (c->t[d].kind == WF_LANE) c->vary |= (uint8_t)(1u << d);
        for (unsigned i = 0; i < DIV_NCOEF2; i++) {
            monomial(&c->mono[i], c->t, i);
            /* a class' ⊥ monomial is known per warp; the unknown
             * shape's stays ⊥ */
            if (known && c->mono[i].kind == WF_BOT) c->bot |= (uint16_t)(1u << i);
        }
    }
    for (uint32_t w = 0; w < s->nwarps; w++) {
        const wc_class *c = &s->c[s->cls[w]];
        if (!c->bot) continue;
        wform t[DIV_C_LANE + 1];
        for (unsigned d = 0; d <= DIV_C_LANE; d++) warp_coord(s, w, d, &t[d]);
        for (unsigned i = WC_MONO2; i < WC_MONO2 + WC_NMONO2; i++)
            if (c->bot >> i & 1) monomial(&s->wmono[w][i - WC_MONO2], t, i);
    }
    /* lane 0 of each warp: U alone (g(0) = 0) */
    for (uint32_t w = 0; w < s->nwarps; w++) {
        wform t[DIV_C_LANE + 1], m;
        for (unsigned d = 0; d <= DIV_C_LANE; d++) {
            if (known) warp_coord(s, w, d, &t[d]);
            else t[d] = s->c[0].t[d];
            wf_uni(&t[d], t[d].r, t[d].k);
        }
        for (unsigned i = 0; i < DIV_NCOEF2; i++) {
            monomial(&m, t, i);
            s->r0[w][i] = m.r;
            s->k0[w][i] = m.k;
        }
    }
}

const wc_shape *wc_classes(const uint32_t block[3])
{
    if (!cached || memcmp(cache.block, block, sizeof cache.block)) {
        build(&cache, block);
        cached = true;
    }
    return &cache;
}

const wform *wc_mono(const wc_shape *s, uint32_t w, unsigned i)
{
    const wc_class *c = &s->c[s->cls[w]];
    return c->bot >> i & 1 ? &s->wmono[w][i - WC_MONO2] : &c->mono[i];
}

bool wc_position(const wc_class *c, unsigned i)
{
    unsigned a = aff_fac[i][0], b = aff_fac[i][1];
    return (c->vary >> a & 1) && (c->vary >> b & 1);
}
