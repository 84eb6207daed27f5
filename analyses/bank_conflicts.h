/* Shared-memory bank conflicts of one warp access.
 *
 * The model (CUDA C++ Programming Guide, compute capability 5.x and later;
 * docs/coalescing.md): shared memory is 32 banks of 4-byte words, word w in
 * bank w mod 32, each bank serving one word per cycle.  Lanes that read the
 * same word do not conflict (broadcast; stores to one word do not either:
 * one of them wins).  An access of b bytes per lane is served in phases of
 * 128 / b lanes (b <= 4: the whole warp; 8 bytes: two half-warps; 16 bytes:
 * four quarter-warps), and only lanes of the same phase conflict.  The
 * conflict degree of a phase is the largest number of distinct words any one
 * bank must deliver; the warp needs the sum of its phases' degrees in
 * wavefronts, ideally one per phase.
 *
 * Atomics (atom, red) are not broadcast: every lane's read-modify-write of
 * a word is performed on its own (the guide states the broadcast for reads
 * and the single winner for writes only; an atomic is guaranteed to be
 * performed without interference from other threads), so lanes on one word
 * serialise.  An atomic phase's degree is the largest number of lanes whose
 * words fall in one bank, the same word counted once per lane. */
#ifndef PTXRAY_BANK_CONFLICTS_H
#define PTXRAY_BANK_CONFLICTS_H
#include <stdint.h>

#define BANK_COUNT 32
#define BANK_WORD 4

typedef struct bank_result {
    uint32_t phases;     /* phases with at least one active lane */
    uint32_t degree;     /* n-way: the worst phase's degree (1: no conflict) */
    uint32_t wavefronts; /* sum of the phases' degrees */
} bank_result;

/* addr[l]: byte address of lane l, for the nlanes lanes 0..nlanes-1 (the
 * others inactive); bytes: per lane (1 to 32). */
void bank_conflicts(const int64_t *addr, unsigned nlanes, unsigned bytes, bank_result *out);

/* The same for an atomic: lanes on one word are not merged. */
void bank_conflicts_atomic(const int64_t *addr, unsigned nlanes, unsigned bytes, bank_result *out);

#endif
