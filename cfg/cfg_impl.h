/* Internal steps of cfg_build, one file each. */
#ifndef PTXRAY_CFG_IMPL_H
#define PTXRAY_CFG_IMPL_H
#include "cfg.h"
#include "u32vec.h"

/* loops.c: loop nesting forest of the reachable blocks (block loop fields,
 * headers, parents); cfg_finish_loops then fills the loops' block lists,
 * latches and exits, after any splitting. */
void cfg_find_loops(cfg *g);
void cfg_finish_loops(cfg *g);
/* loops.c: landing blocks on loop exits (CFG_SPLIT_LOOP_EXITS), between
 * the two; blocks is still malloc'd then, and grows with realloc. */
void cfg_split_loop_exits(cfg *g);

/* dom.c */
void cfg_compute_rpo(cfg *g);
void cfg_compute_dominators(cfg *g);
void cfg_compute_postdominators(cfg *g);
void cfg_compute_control_dependence(cfg *g);


#endif
