/* Internal steps of cfg_build, one file each. */
#ifndef PTXRAY_CFG_IMPL_H
#define PTXRAY_CFG_IMPL_H
#include "cfg.h"

/* Edge helpers on arena arrays: adds once, keeps order. */
void cfg_edge_add(cfg *g, uint32_t from, uint32_t to);

/* loops.c: loop nesting forest of the reachable blocks. */
void cfg_find_loops(cfg *g);
/* loops.c: landing blocks on loop exits (CFG_SPLIT_LOOP_EXITS); blocks has
 * room for them (cfg_count_exit_edges() more). */
uint32_t cfg_count_exit_edges(const cfg *g);
void cfg_split_loop_exits(cfg *g);

/* dom.c */
void cfg_compute_rpo(cfg *g);
void cfg_compute_dominators(cfg *g);
void cfg_compute_postdominators(cfg *g);
void cfg_compute_control_dependence(cfg *g);

/* A growable uint32 vector on malloc, for scratch work. */
typedef struct u32vec {
    uint32_t *v;
    uint32_t n, cap;
} u32vec;
void u32vec_push(u32vec *s, uint32_t x);
void u32vec_free(u32vec *s);

#endif
