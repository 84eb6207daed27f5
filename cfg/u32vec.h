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
void u32vec_free(u32vec *s);

static inline void u32vec_push(u32vec *s, uint32_t x)
{
    if (s->n == s->cap) u32vec_grow(s);
    s->v[s->n++] = x;
}

#endif
