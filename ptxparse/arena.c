#include "arena.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct arena_chunk {
    arena_chunk *next;
    size_t size;
    max_align_t data[];
};

#define ARENA_MIN_CHUNK ((size_t)64 * 1024)
#define ARENA_MAX_CHUNK ((size_t)16 * 1024 * 1024)

void arena_init(arena *a) {
    memset(a, 0, sizeof *a);
    a->next_size = ARENA_MIN_CHUNK;
}

void arena_free(arena *a) {
    arena_chunk *c = a->head;
    while (c) {
        arena_chunk *n = c->next;
        free(c);
        c = n;
    }
    arena_init(a);
}

static void arena_grow(arena *a, size_t n) {
    size_t size = a->next_size;
    if (size < n) size = n;
    arena_chunk *c = malloc(sizeof(arena_chunk) + size);
    if (!c) {
        fprintf(stderr, "ptxray: fatal: out of memory (arena chunk of %zu bytes)\n", size);
        abort();
    }
    c->size = size;
    c->next = a->head;
    a->head = c;
    a->cur = (char *)c->data;
    a->end = a->cur + size;
    a->total += sizeof(arena_chunk) + size;
    if (a->next_size < ARENA_MAX_CHUNK) a->next_size *= 2;
}

/* n is already rounded by arena_alloc and does not fit in the current chunk. */
void *arena_alloc_slow(arena *a, size_t n) {
    arena_grow(a, n);
    void *p = a->cur;
    a->cur += n;
    return p;
}

void *arena_zalloc(arena *a, size_t n) {
    void *p = arena_alloc(a, n);
    memset(p, 0, n);
    return p;
}

char *arena_strndup(arena *a, const char *s, size_t n) {
    char *p = arena_alloc(a, n + 1);
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}

void arena_reset(arena *a) {
    if (!a->head) return;
    arena_chunk *keep = a->head, *c = keep->next;
    while (c) {
        arena_chunk *n = c->next;
        a->total -= sizeof(arena_chunk) + c->size;
        free(c);
        c = n;
    }
    keep->next = NULL;
    a->cur = (char *)keep->data;
    a->end = a->cur + keep->size;
}
