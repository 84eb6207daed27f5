/* Where each spilled register goes: the rewriting rules of Fig. 18 chosen
 * from the divergence analysis, the sm_70+ rule (its_rule.h) and the slot
 * layout in .local and in the warp's .shared partition. */
#ifndef PTXRAY_RA_SPILL_PLACE_H
#define PTXRAY_RA_SPILL_PLACE_H
#include "divergence.h"
#include "its_rule.h"
#include "liveness.h"

typedef struct ra_spill {
    uint8_t place;  /* ra_place */
    uint8_t state;  /* div_state of the register: the join over its values */
    uint8_t why;    /* ra_why: why a uniform/affine value is in .local */
    uint8_t known;  /* bit i: coef[i] known */
    int64_t coef[DIV_NCOEF1]; /* CONST, AFFINE: the value; SHARED_AFFINE: the thread-coordinate part */
    uint32_t slot;  /* byte offset in the .local depot or in the warp's .shared partition */
    uint32_t accesses; /* instructions that read or write it: what its slot saves */
    uint8_t sync;   /* shared slot under the synchronised rule: bar.warp.sync before each store */
} ra_spill;

/* Registers that stay in registers whatever the pressure: predicates and
 * opaque types, vectors, .b128, .func parameters and return registers, and
 * operands of instructions the rewrite cannot safely wrap (unknown opcodes,
 * asynchronous ones, call argument lists, vector components, an
 * instruction that overwrites its own guard). */
void ra_find_unspillable(const prog_func *pf, const ra_live *L, uint8_t *out);

/* What each register's definitions and uses read and write (its_rule.h). */
ra_reginfo *ra_reginfo_build(const prog_func *pf, const ra_live *L, arena *a);

/* What the analysis says of each register as a whole: the join over the
 * values it holds and over the values its uses read.  dr: the mode's
 * analysis (the affine one for linear mode, where it only names the
 * states).  One per function, kept for every spill set the scan tries;
 * each register's is made the first time it is spilled. */
typedef struct ra_absvals ra_absvals;
ra_absvals *ra_absvals_build(const prog_func *pf, const div_result *dr, const ra_live *L, arena *a);

/* Chooses the place of every spilled register (out has L->nregs entries;
 * registers not spilled get RA_P_NONE).  sync_why: ra_sync_rule's verdicts
 * for registers the write-once rule refuses (NULL: none get a slot). */
void ra_place(const prog_func *pf, ra_absvals *av, const ra_reginfo *ri, const uint8_t *unstable,
              const uint8_t *sync_why, const ra_live *L, const uint8_t *spilled, const ra_options *o, ra_spill *out);

/* Slot layout, biggest slots first so every slot is aligned to its size.
 * *local_bytes: the per-thread depot; *shared_bytes: one warp's partition.
 * mask_slot: when a synchronised slot remains, the warp's mask of launched
 * lanes takes the first 8 bytes of the partition (RA_MASK_SLOT). */
#define RA_MASK_SLOT 0u
void ra_layout(const ra_live *L, ra_spill *sp, bool mask_slot, uint32_t *local_bytes, uint32_t *shared_bytes);
/* Whether some register has a synchronised shared slot. */
bool ra_any_sync(const ra_spill *sp, uint32_t n);

/* Units the spill code of register r needs besides its own temporary at
 * an instruction that reads it (def false) or writes it (def true), were
 * r placed as sp says: the partition address and its scratch for a slot,
 * the thread coordinate of a rebuilt value. */
unsigned ra_extra_units(const ptx_func *fn, const ra_spill *sp, uint32_t r, bool def);

/* Bytes of a register's slot. */
unsigned ra_slot_size(unsigned type);

/* The thread-coordinate terms of rules (iii) and (iv): bit i set when
 * coefficient i (1..4) is known and not 0. */
unsigned ra_coord_terms(const ra_spill *s);

#endif
