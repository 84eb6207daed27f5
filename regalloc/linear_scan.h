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

/* unspillable[r] set: r stays in a register. */
void ra_linear_scan(const ra_live *L, const ra_intervals *iv, const uint8_t *unspillable, unsigned budget, arena *a,
                    ra_scan *out);

#endif
