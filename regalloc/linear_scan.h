/* Linear scan (Poletto and Sarkar 1999) over the linearised CFG, choosing
 * which registers to spill so that at most `budget` units are live at any
 * program point.  Each register is one interval, from the first point where
 * it is live or written to the last (holes filled).  When the pressure at a
 * point passes the budget, the live interval whose next use is farthest is
 * spilled (Belady).  Spilling is "everywhere": a spilled register still
 * needs a short-lived temporary at each instruction that reads or writes
 * it, which the scan counts at that instruction. */
#ifndef PTXRAY_RA_LINEAR_SCAN_H
#define PTXRAY_RA_LINEAR_SCAN_H
#include "liveness.h"

typedef struct ra_scan {
    uint8_t *spilled;      /* per register */
    uint32_t nspilled;
    uint32_t over_budget;  /* instructions where only unspillable values or the instruction's own operands remain */
    uint32_t max_pressure; /* interval pressure at each point once the spills made there, temporaries included */
} ra_scan;

/* Program points: instruction k (in L's linear order) reads at 2k and
 * writes at 2k+1.  The intervals and use points of L's registers, built
 * once for every budget the scan is run with. */
typedef struct ra_intervals ra_intervals;
ra_intervals *ra_intervals_build(const ra_live *L, arena *a);

/* unspillable[r] set: r stays in a register.  cost: NULL, or per register
 * the cost class of spilling it (lower is cheaper: docs/regalloc.md, "The
 * scan"); the scan spills from the cheapest class present, and Belady's
 * farthest next use decides within a class.  extra: NULL, or per register
 * the units its spill code needs besides its temporary at an instruction
 * that reads it (extra[2r]) or writes it (extra[2r+1]): ra_extra_units.
 * budget_at: NULL, or the budget per program point (at most budget). */
void ra_linear_scan(const ra_live *L, const ra_intervals *iv, const uint8_t *unspillable, const uint8_t *cost,
                    const uint8_t *extra, unsigned budget, const uint32_t *budget_at, arena *a, ra_scan *out);

/* The pressure the spilled set of sc really gives at each point, extra
 * units included, above budget: excess[p] (2 * L->ninst entries).  A
 * register spilled at a later point adds its spill code's extra units at
 * the points the scan had passed, which the scan could not see.  Returns
 * the largest excess. */
uint32_t ra_scan_excess(const ra_live *L, const ra_intervals *iv, const ra_scan *sc, const uint8_t *extra,
                        unsigned budget, arena *a, uint32_t *excess);

#endif
