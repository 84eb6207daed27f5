/* A growable array of uint32_t on malloc, for scratch work in the CFG and
 * SSA builders (their results live in the arena). */
#ifndef PTXRAY_U32VEC_H
#define PTXRAY_U32VEC_H
#include <stdint.h>

typedef struct u32vec {
    uint32_t *v;
    uint32_t n, cap;
} u32vec;

void u32vec_grow(u32vec *s); /* doubles cap; aborts on out-of-memory */
/* Room for n items in all (a known bound saves the doublings: they were
 * most of the allocator's work in check on small kernels). */
void u32vec_reserve(u32vec *s, uint32_t n);
void u32vec_free(u32vec *s);

static inline void u32vec_push(u32vec *s, uint32_t x)
{
    if (s->n == s->cap) u32vec_grow(s);
    s->v[s->n++] = x;
}

/* Compressed lists: for keys 0..nkeys-1, the items of the (keys[i],
 * items[i]) pairs in pair order: key k's are item[off[k] .. off[k+1]). */
typedef struct u32csr {
    uint32_t *off, *item;
} u32csr;

void u32csr_build(u32csr *c, uint32_t nkeys, const u32vec *keys, const u32vec *items);
/* The same from pairs no longer needed: built in the items' memory, both
 * vectors emptied (cfg.c). */
void u32csr_take(u32csr *c, uint32_t nkeys, u32vec *keys, u32vec *items);
void u32csr_free(u32csr *c);

#endif
