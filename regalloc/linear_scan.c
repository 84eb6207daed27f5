#include "linear_scan.h"
#include <string.h>

#define NOPOINT UINT32_MAX

struct ra_intervals {
    uint32_t *start, *end;
    uint32_t *use_off, *use_pt; /* register r's use points: use_pt[use_off[r] .. use_off[r+1]) ascending */
    uint32_t *soff, *sreg;      /* GPR intervals by start point: sreg[soff[p] .. soff[p+1]) start at p */
};

typedef struct scan_ctx {
    const ra_live *L;
    const ra_intervals *iv;
    uint32_t *cursor; /* first of r's use points not yet passed */
} scan_ctx;

static void touch(ra_intervals *c, uint32_t r, uint32_t p)
{
    if (c->start[r] == NOPOINT || p < c->start[r]) c->start[r] = p;
    if (c->end[r] == NOPOINT || p > c->end[r]) c->end[r] = p;
}

ra_intervals *ra_intervals_build(const ra_live *L, arena *a)
{
    ra_intervals *c = ARENA_NEW(a, ra_intervals);
    uint32_t n = L->nregs, npts = 2 * L->ninst;
    c->start = ARENA_NEWN(a, uint32_t, n + 1);
    c->end = ARENA_NEWN(a, uint32_t, n + 1);
    c->use_off = ARENA_NEWN(a, uint32_t, n + 2);
    uint32_t *fill = ARENA_NEWN(a, uint32_t, (n > npts ? n : npts) + 1);
    for (uint32_t r = 0; r < n; r++) c->start[r] = c->end[r] = NOPOINT;
    for (uint32_t k = 0; k < L->ninst;) {
        uint32_t b = L->inst_block[k], k1 = k;
        while (k1 + 1 < L->ninst && L->inst_block[k1 + 1] == b) k1++;
        if (b != CFG_NONE) {
            const uint64_t *in = L->in + (size_t)b * L->words, *out = L->out + (size_t)b * L->words;
            for (uint32_t w = 0; w < L->words; w++) {
                for (uint64_t x = in[w]; x; x &= x - 1) touch(c, w * 64 + (uint32_t)__builtin_ctzll(x), 2 * k);
                for (uint64_t x = out[w]; x; x &= x - 1) touch(c, w * 64 + (uint32_t)__builtin_ctzll(x), 2 * k1 + 1);
            }
        }
        k = k1 + 1;
    }
    for (uint32_t k = 0; k < L->ninst; k++)
        for (uint32_t j = L->occ_off[k]; j < L->occ_off[k + 1]; j++) {
            const ra_occ *o = &L->occ[j];
            if (o->role & RA_OCC_USE) {
                touch(c, o->reg, 2 * k);
                c->use_off[o->reg + 1]++;
            }
            if (o->role & RA_OCC_DEF) touch(c, o->reg, 2 * k + 1);
        }
    for (uint32_t r = 0; r < n; r++) c->use_off[r + 1] += c->use_off[r];
    c->use_pt = ARENA_NEWN(a, uint32_t, c->use_off[n] + 1);
    for (uint32_t r = 0; r < n; r++) fill[r] = c->use_off[r];
    for (uint32_t k = 0; k < L->ninst; k++)
        for (uint32_t j = L->occ_off[k]; j < L->occ_off[k + 1]; j++)
            if (L->occ[j].role & RA_OCC_USE) c->use_pt[fill[L->occ[j].reg]++] = 2 * k;

    /* intervals by start point (counting sort: registers in index order) */
    c->soff = ARENA_NEWN(a, uint32_t, npts + 2);
    c->sreg = ARENA_NEWN(a, uint32_t, n + 1);
    for (uint32_t r = 0; r < n; r++)
        if (L->cls[r] == RA_CLS_GPR && c->start[r] != NOPOINT) c->soff[c->start[r] + 1]++;
    for (uint32_t p = 0; p < npts; p++) c->soff[p + 1] += c->soff[p];
    memcpy(fill, c->soff, (npts + 1) * sizeof *fill);
    for (uint32_t r = 0; r < n; r++)
        if (L->cls[r] == RA_CLS_GPR && c->start[r] != NOPOINT) c->sreg[fill[c->start[r]]++] = r;
    return c;
}

/* Whether r needs its temporary at point p (read at 2k, written at 2k+1). */
static bool occurs_at(const ra_live *L, uint32_t r, uint32_t p)
{
    uint32_t k = p / 2;
    uint8_t want = p & 1 ? RA_OCC_DEF : RA_OCC_USE;
    for (uint32_t j = L->occ_off[k]; j < L->occ_off[k + 1]; j++)
        if (L->occ[j].reg == r) return (L->occ[j].role & want) != 0;
    return false;
}

/* The temporaries of the spilled registers instruction p/2 reads (p even)
 * or writes (p odd); *x: the most any one of their spill sequences needs
 * besides (they run one after the other). */
static uint32_t temps_at(const ra_live *L, const uint8_t *spilled, const uint8_t *extra, uint32_t p, uint32_t *x)
{
    uint32_t k = p / 2, n = 0;
    uint8_t want = p & 1 ? RA_OCC_DEF : RA_OCC_USE;
    *x = 0;
    for (uint32_t j = L->occ_off[k]; j < L->occ_off[k + 1]; j++) {
        const ra_occ *o = &L->occ[j];
        /* without branches: which operands are spilled is unpredictable */
        uint32_t on = (uint32_t)(spilled[o->reg] & ((o->role & want) != 0));
        n += on * L->units[o->reg];
        if (extra && on && extra[2 * o->reg + (p & 1)] > *x) *x = extra[2 * o->reg + (p & 1)];
    }
    return n;
}

static uint32_t next_use(scan_ctx *c, uint32_t r, uint32_t p)
{
    uint32_t *cur = &c->cursor[r], end = c->iv->use_off[r + 1];
    while (*cur < end && c->iv->use_pt[*cur] <= p) (*cur)++;
    return *cur < end ? c->iv->use_pt[*cur] : NOPOINT;
}

void ra_linear_scan(const ra_live *L, const ra_intervals *iv, const uint8_t *unspillable, const uint8_t *cost,
                    const uint8_t *extra, unsigned budget, const uint32_t *budget_at, arena *a, ra_scan *out)
{
    uint32_t n = L->nregs, npts = 2 * L->ninst;
    scan_ctx c = {L, iv, ARENA_NEWN(a, uint32_t, n + 1)};
    memcpy(c.cursor, iv->use_off, n * sizeof *c.cursor);
    memset(out, 0, sizeof *out);
    out->spilled = ARENA_NEWN(a, uint8_t, n + 1);
    const uint32_t *soff = iv->soff, *sreg = iv->sreg, *end = iv->end;

    uint32_t *active = ARENA_NEWN(a, uint32_t, n + 1), nactive = 0, units = 0, last_over = NOPOINT;
    /* no end among the active intervals is below min_end (spills only
     * remove some): the expiry walk is skipped while min_end >= p */
    uint32_t min_end = NOPOINT;
    for (uint32_t p = 0; p < npts; p++) {
        /* expire what ended before p, then start what begins at p */
        if (min_end < p) {
            uint32_t w = 0;
            min_end = NOPOINT;
            for (uint32_t i = 0; i < nactive; i++) {
                uint32_t r = active[i];
                if (end[r] < p) units -= L->units[r];
                else {
                    active[w++] = r;
                    if (end[r] < min_end) min_end = end[r];
                }
            }
            nactive = w;
        }
        for (uint32_t i = soff[p]; i < soff[p + 1]; i++) {
            uint32_t r = sreg[i];
            active[nactive++] = r;
            units += L->units[r];
            if (end[r] < min_end) min_end = end[r];
        }
        uint32_t x = 0;
        uint32_t pressure = units + (out->nspilled ? temps_at(L, out->spilled, extra, p, &x) : 0) + x;
        unsigned bp = budget_at ? budget_at[p] : budget;
        while (pressure > bp) {
            uint32_t best = NOPOINT, best_i = 0, best_next = 0;
            for (uint32_t i = 0; i < nactive; i++) {
                uint32_t r = active[i];
                if (unspillable[r] || occurs_at(L, r, p)) continue;
                uint32_t nu = next_use(&c, r, p);
                unsigned cr = cost ? cost[r] : 0, cb = cost && best != NOPOINT ? cost[best] : 0;
                bool better = best == NOPOINT || cr < cb ||
                              (cr == cb && (nu > best_next ||
                                            (nu == best_next && (end[r] > end[best] ||
                                                                 (end[r] == end[best] && L->units[r] > L->units[best])))));
                if (better) best = r, best_i = i, best_next = nu;
            }
            if (best == NOPOINT) {
                if (last_over != p / 2) out->over_budget++;
                last_over = p / 2;
                break;
            }
            out->spilled[best] = 1;
            out->nspilled++;
            units -= L->units[best];
            pressure -= L->units[best];
            active[best_i] = active[--nactive];
        }
        if (pressure > out->max_pressure) out->max_pressure = pressure;
    }
}

uint32_t ra_scan_excess(const ra_live *L, const ra_intervals *iv, const ra_scan *sc, const uint8_t *extra,
                        unsigned budget, arena *a, uint32_t *excess)
{
    uint32_t n = L->nregs, npts = 2 * L->ninst, worst = 0;
    int64_t *diff = ARENA_NEWN(a, int64_t, npts + 2);
    for (uint32_t r = 0; r < n; r++)
        if (L->cls[r] == RA_CLS_GPR && iv->start[r] != NOPOINT && !sc->spilled[r]) {
            diff[iv->start[r]] += L->units[r];
            diff[iv->end[r] + 1] -= L->units[r];
        }
    int64_t units = 0;
    for (uint32_t p = 0; p < npts; p++) {
        units += diff[p];
        uint32_t x = 0, t = temps_at(L, sc->spilled, extra, p, &x);
        uint64_t real = (uint64_t)units + t + x;
        excess[p] = real > budget ? (uint32_t)(real - budget) : 0;
        if (excess[p] > worst) worst = excess[p];
    }
    return worst;
}
