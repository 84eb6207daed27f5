/* The per-warp spill area in .shared: how many warps a block of the kernel
 * can have, how much static shared memory the kernel already uses, and
 * which slots fit under the limit (the rest fall back to .local). */
#ifndef PTXRAY_RA_SHARED_AREA_H
#define PTXRAY_RA_SHARED_AREA_H
#include "spill_place.h"

/* Threads per block: the product of .reqntid, else of .maxntid, else dflt. */
uint32_t ra_kernel_threads(const ptx_func *fn, uint32_t dflt);
/* Whether .reqntid or .maxntid limit the block to one dimension, so that
 * %tid.y and %tid.z are 0 and the warp index is %tid.x / 32. */
bool ra_kernel_one_dim(const ptx_func *fn);

/* Static .shared bytes of the kernel: its own declarations and the
 * module-scope variables it or the functions it calls name (every
 * module-scope one when it calls through a pointer).  Dynamic shared
 * memory (extern, unsized) is not known before launch and not counted. */
uint32_t ra_static_shared(const ptx_module *m, const ptx_func *fn);

/* Moves shared slots to .local, those with the fewest accesses first,
 * until static + warps * slot bytes <= limit; returns how many moved and
 * leaves the new layout in *local_bytes / *slot_bytes. */
uint32_t ra_fit_shared(const ra_live *L, ra_spill *sp, bool mask_slot, uint32_t warps, uint32_t static_bytes,
                       uint32_t limit, uint32_t *local_bytes, uint32_t *slot_bytes);

#endif
