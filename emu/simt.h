/* Warp execution (simt.c), used by the block scheduler (launch.c). */
#ifndef PTXRAY_EMU_SIMT_H
#define PTXRAY_EMU_SIMT_H
#include "emu_internal.h"

frame *simt_frame_new(emu_machine *M, block *b, warp *w, const efunc *F, uint32_t mask, frame *caller,
                      const einst *call);
uint32_t simt_entry_new(warp *w, uint32_t pc, uint32_t rpc, uint32_t mask, uint32_t parent, frame *fr);
/* Runs entry idx for up to *budget warp-instructions (decremented). */
void simt_run_path(emu_machine *M, block *b, warp *w, uint32_t idx, uint64_t *budget);
/* The entry to run next, EMU_NONE if the warp has none runnable. */
uint32_t simt_pick(emu_machine *M, warp *w);
void simt_after_exit(emu_machine *M, block *b, warp *w);
void simt_frames_release(emu_machine *M, warp *w);
void simt_frame_pool_free(emu_machine *M);
bool simt_unstick(emu_machine *M, warp *w);
/* EMU_SCHED_ITS: split runnable entry idx into two groups at random
 * (returns the one to run now); let idx absorb the groups at its pc. */
uint32_t simt_its_split(emu_machine *M, warp *w, uint32_t idx);
void simt_its_join(emu_machine *M, warp *w, uint32_t idx);

static inline bool sched_its(const emu_machine *M) { return M->opt.schedule == EMU_SCHED_ITS; }
/* Removes an entry; a parent left without children resumes. */
void simt_entry_remove(emu_machine *M, warp *w, uint32_t idx);
/* ITS: every two entries at one point of one frame become one group. */
void simt_its_merge_all(warp *w);

/* simt_sync.c: barriers, collectives, exits. */
void simt_bar_check_warp(emu_machine *M, block *b, warp *w, unsigned id);
void simt_lanes_exit(emu_machine *M, block *b, warp *w, uint32_t idx, uint32_t m);
void simt_coll_exec(emu_exec *x, const einst *I, const emu_part *parts, unsigned n, uint32_t all);
void simt_coll_try(emu_machine *M, block *b, warp *w, const einst *I, frame *trigger_frame);
#endif
