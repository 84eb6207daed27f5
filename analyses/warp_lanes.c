/* Lane offsets of affine values (warp_lanes.h): a reader of the warp
 * classes' forms (warp_classes.h).  Each term of the polynomial is its
 * monomial's form scaled by the coefficient and summed with the warp
 * form's rules, once per class of warps alike; lane 0 of each warp is the
 * same sum over U alone.  What is its own here is what the form cannot
 * carry: a term whose coefficient is unknown (⊥) is the same in the lanes
 * where its monomial is, so it splits the lanes into groups, within which
 * the offsets of the other terms stay exact (the form has one U per warp,
 * not one per group). */
#include <string.h>
#include "warp_lanes.h"
#include "warp_classes.h"

_Static_assert(WL_LANES == WF_LANES && WL_MAXWARPS == WC_MAXWARPS, "a warp_lanes warp is a warp_classes warp");

static bool coef_known(const aff *p, unsigned i) { return !(p->bot >> i & 1); }

/* Whether p's coefficient i is a known one whose terms cannot overflow
 * (wc_shape's climit; a larger one is taken as unknown). */
static bool coef_fits(const aff *p, unsigned i, const wc_shape *s)
{
    return coef_known(p, i) && p->c[i] >= -s->climit && p->c[i] <= s->climit;
}

/* Every lane of w a group of its own. */
static void singletons(wl_warp *w)
{
    for (uint32_t l = 0; l < w->nlanes; l++) w->group[l] = (uint8_t)l;
    w->ngroups = w->nlanes;
}

/* Refines the grouping of w's lanes by the values key[]: lanes stay in one
 * group only if their keys agree. */
static void split_groups(wl_warp *w, const int64_t *key)
{
    if (w->ngroups == w->nlanes) return; /* every lane on its own already */
    uint8_t ng = 0, newg[WL_LANES], first[WL_LANES];
    for (uint32_t l = 0; l < w->nlanes; l++) {
        uint32_t k = 0;
        for (; k < ng; k++)
            if (w->group[first[k]] == w->group[l] && key[first[k]] == key[l]) break;
        if (k == ng) first[ng++] = (uint8_t)l;
        newg[l] = (uint8_t)k;
    }
    memcpy(w->group, newg, w->nlanes);
    w->ngroups = ng;
}

/* The lane offsets of p in warp wi (or every warp of its class, when p
 * uses none of the monomials the class does not know, c->bot). */
static void eval_lanes(const aff *p, const wc_shape *s, uint32_t wi, wl_warp *w, wl_result *out)
{
    const wc_class *c = &s->c[s->cls[wi]];
    wform acc, coef, term;
    wf_const(&acc, 0);
    w->nlanes = c->nlanes;
    w->ngroups = 1;
    memset(w->group, 0, sizeof w->group);
    for (unsigned i = 1; i < p->n; i++) {
        if (coef_known(p, i) && !p->c[i]) continue;
        const wform *m = wc_mono(s, wi, i);
        uint16_t bit = (uint16_t)(1u << i);
        if (m->kind == WF_UNI) continue; /* the same in every lane: lane 0's alone (lane0) */
        if (m->kind == WF_BOT) { /* the unknown shape: a varying factor times an unknown */
            if (wc_position(c, i)) out->pos_monos |= bit;
            else {
                out->sym_monos |= bit;
                singletons(w);
            }
        } else if (coef_fits(p, i, s)) {
            wf_const(&coef, p->c[i]);
            wf_mul(&term, &coef, m, 64);
            wf_add(&acc, &acc, &term, 64);
        } else { /* the same within the lanes where m is */
            int64_t step;
            out->sym_monos |= bit;
            if (wf_is_linear(m, &step) && step) singletons(w); /* lane·step: no two alike */
            else split_groups(w, m->g);
        }
    }
    if (acc.kind == WF_LANE) memcpy(w->off, acc.g, sizeof w->off);
    else memset(w->off, 0, sizeof w->off);
}

/* p over the monomials' U in lane 0 of warp wi, without c0, as a
 * uniform form (k = 64: known); an unknown coefficient i is a multiple of
 * 2^ctz[i] (ctz NULL: nothing known). */
static void lane0_terms(const aff *p, const wc_shape *s, uint32_t wi, const uint8_t *ctz, wform *acc)
{
    wform coef, m, term;
    wf_const(acc, 0);
    for (unsigned i = 1; i < p->n; i++) {
        if ((coef_known(p, i) && !p->c[i]) || (s->k0[wi][i] == 64 && !s->r0[wi][i])) continue; /* c·0 */
        if (coef_fits(p, i, s)) wf_const(&coef, p->c[i]);
        else wf_uni(&coef, 0, ctz && !coef_known(p, i) ? ctz[i] : 0);
        wf_uni(&m, s->r0[wi][i], s->k0[wi][i]);
        wf_mul(&term, &coef, &m, 64);
        wf_add(acc, acc, &term, 64);
    }
}

/* Lane 0 of warp wi: c0 plus the terms. */
static residue lane0(const aff *p, const wc_shape *s, uint32_t wi, residue c0, const uint8_t *ctz)
{
    wform acc;
    lane0_terms(p, s, wi, ctz, &acc);
    return res_add(c0, res_make((int64_t)acc.r, acc.k));
}

bool wl_lane0_exact(const aff *p, const warp_shape *sh, uint32_t wi, int64_t *v)
{
    if (!wl_shape_known(sh) || p->top || p->bot) return false;
    const wc_shape *s = wc_classes(sh->block);
    if (wi >= s->nwarps) return false;
    wform acc;
    lane0_terms(p, s, wi, NULL, &acc); /* every coefficient known: k = 64 unless a term is not */
    if (acc.k != 64) return false;
    *v = (int64_t)((uint64_t)p->c[0] + acc.r);
    return true;
}

void wl_eval(const aff *p, const warp_shape *sh, residue c0, wl_result *out) { wl_eval_tz(p, sh, c0, NULL, out); }

void wl_eval_tz(const aff *p, const warp_shape *sh, residue c0, const uint8_t *ctz, wl_result *out)
{
    const wc_shape *s = wc_classes(sh->block);
    uint16_t uses = 0;
    for (unsigned i = 1; i < p->n; i++)
        if (!coef_known(p, i) || p->c[i]) uses |= (uint16_t)(1u << i);
    out->sym_monos = out->pos_monos = 0;
    out->nwarps = s->nwarps;
    for (uint32_t ci = 0; ci < s->nclasses; ci++) {
        const wc_class *c = &s->c[ci];
        bool per_warp = uses & c->bot; /* the class split: U's bits lacking */
        for (uint32_t j = 0; j < c->nwarps; j++) {
            wl_warp *w = &out->warp[c->warp[j]];
            if (per_warp || !j) eval_lanes(p, s, c->warp[j], w, out);
            else {
                const wl_warp *w0 = &out->warp[c->warp[0]];
                w->nlanes = w0->nlanes;
                w->ngroups = w0->ngroups;
                memcpy(w->off, w0->off, sizeof w->off);
                memcpy(w->group, w0->group, sizeof w->group);
            }
            w->base = lane0(p, s, c->warp[j], c0, ctz);
        }
    }
    out->status = out->pos_monos ? WL_POSITION : out->sym_monos ? WL_SYMBOLIC : WL_EXACT;
}

bool wl_line_init(const aff *p, unsigned m, int64_t unit, int64_t tmax, const warp_shape *sh, residue c0,
                  wl_line *l)
{
    const wc_shape *s = wc_classes(sh->block);
    int64_t cmax;
    /* every t·unit a known coefficient that fits (coef_fits): one that
     * does not is unknown to lane0, whatever the status */
    if (m == 0 || m >= p->n || tmax < 1 || __builtin_mul_overflow(unit < 0 ? -unit : unit, tmax, &cmax) ||
        unit == INT64_MIN || cmax > s->climit)
        return false;
    aff q = *p;
    q.bot &= (uint16_t)~(1u << m);
    q.c[m] = 0;
    wl_eval(&q, sh, c0, &l->w0);
    if (l->w0.status != WL_EXACT) return false;
    for (uint32_t wi = 0; wi < l->w0.nwarps; wi++) { /* before w1's wl_eval: s is the thread's last shape */
        l->r0[wi] = s->r0[wi][m];
        l->k0[wi] = s->k0[wi][m];
    }
    /* t = 1: with an exact result every t != 0 is exact too (the status
     * depends on the coefficient only through whether it is 0 and fits) */
    q.c[m] = unit;
    static _Thread_local wl_result w1; /* 25 KB: not on the stack */
    wl_eval(&q, sh, c0, &w1);
    if (w1.status != WL_EXACT || w1.nwarps != l->w0.nwarps) return false;
    for (uint32_t wi = 0; wi < w1.nwarps; wi++) {
        const wl_warp *a = &l->w0.warp[wi], *b = &w1.warp[wi];
        if (a->nlanes != b->nlanes || a->ngroups != b->ngroups || memcmp(a->group, b->group, sizeof a->group))
            return false;
        for (unsigned ln = 0; ln < WL_LANES; ln++) l->d[wi][ln] = (uint64_t)b->off[ln] - (uint64_t)a->off[ln];
    }
    l->unit = unit;
    return true;
}

void wl_line_at(const wl_line *l, int64_t t, wl_result *out)
{
    const wl_result *w0 = &l->w0;
    if (!t) {
        *out = *w0;
        return;
    }
    uint64_t c = (uint64_t)t * (uint64_t)l->unit;
    out->status = w0->status;
    out->sym_monos = w0->sym_monos;
    out->pos_monos = w0->pos_monos;
    out->nwarps = w0->nwarps;
    for (uint32_t wi = 0; wi < w0->nwarps; wi++) {
        const wl_warp *a = &w0->warp[wi];
        wl_warp *w = &out->warp[wi];
        w->nlanes = a->nlanes;
        w->ngroups = a->ngroups;
        memcpy(w->group, a->group, sizeof w->group);
        for (unsigned ln = 0; ln < WL_LANES; ln++) w->off[ln] = (int64_t)((uint64_t)a->off[ln] + (uint64_t)t * l->d[wi][ln]);
        /* lane0's term c·U, U ≡ r0 (mod 2^k0): known modulo 2^(k0 + tz(c))
         * (the warp form's scale), added to the others' sum (t = 0) */
        unsigned k = l->k0[wi] == 64 ? 64 : l->k0[wi] + kb_tz(c, 64);
        if (k > a->base.k) k = a->base.k;
        w->base = res_make((int64_t)((uint64_t)a->base.r + c * l->r0[wi]), k);
    }
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
