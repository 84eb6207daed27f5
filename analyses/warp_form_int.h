/* What warp_form.c and warp_iv.c share and nobody else needs: the small
 * helpers on forms, and the exact-lanes constructor the interval rules use
 * for their low ends. */
#ifndef PTXRAY_WARP_FORM_INT_H
#define PTXRAY_WARP_FORM_INT_H
#include "warp_form.h"
#include <string.h>

static inline uint64_t mask(unsigned n) { return n >= 64 ? ~0ull : (1ull << n) - 1; }

/* *r = *a, copying the lane table only where there is one.  An interval
 * is dropped (plain ⊥): a rule that passes a ⊥ operand through does not
 * know what it did to the interval; the interval rules copy it with
 * copy_iv. */
static inline void assign(wform *r, const wform *a)
{
    r->wid = 0;
    if (r == a) return;
    r->kind = a->kind, r->k = a->k, r->r = a->r, r->nn = a->nn, r->sym = a->sym, r->off = a->off;
    if (a->kind == WF_LANE) memcpy(r->g, a->g, sizeof r->g);
}

/* assign without the lane table: the table to take from a (for fix_from
 * in warp_form.c, which copies it as it normalises it), NULL when a has
 * none or r is a. */
static inline const int64_t *assign_head(wform *r, const wform *a)
{
    r->wid = 0;
    if (r == a) return NULL;
    r->kind = a->kind, r->k = a->k, r->r = a->r, r->nn = a->nn, r->sym = a->sym, r->off = a->off;
    return a->kind == WF_LANE ? a->g : NULL;
}

static inline bool is_iv(const wform *a) { return a->kind == WF_BOT && a->wid; }

/* *r = *a, an interval included. */
static inline void copy_iv(wform *r, const wform *a)
{
    if (r == a) return;
    assign(r, a);
    if (is_iv(a)) r->wid = a->wid, memcpy(r->g, a->g, sizeof r->g);
}

static inline bool exact(const wform *a) { return a->kind != WF_TOP && a->kind != WF_BOT && a->k == 64; }

/* a's lanes and U normalised to n bits (warp_form.c fix), for the rules
 * kept in other files (warp_sym.c). */
void wf_fix(wform *a, unsigned n);

/* r = the exact lane values vals (nl lanes: 1 when no operand varies, and
 * the one value is every lane's), n bits. */
void wf_from_lanes(wform *r, const uint64_t *vals, unsigned nl, unsigned n);

#endif
