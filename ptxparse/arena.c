/* Large chunks are mapped directly, 2 MiB-aligned and with transparent huge
 * pages requested: the IR of a 100 MB file is about 600 MB, and faulting it
 * in 4 KiB at a time cost as much time in the kernel as the whole parse in
 * user space.  Freed large chunks are kept for the next arena (up to
 * ARENA_RETAIN bytes), so a process that parses file after file does not
 * have the kernel zero fresh pages for each (docs/front-end.md, "Speed").
 * Smaller chunks come from malloc. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, madvise */
#include "arena.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <threads.h>

struct arena_chunk {
    arena_chunk *next;
    size_t size;   /* usable bytes in data[] */
    size_t mapped; /* bytes mapped for this chunk, 0 when malloc'd */
    max_align_t data[];
};

#define ARENA_MIN_CHUNK ((size_t)64 * 1024)
#define ARENA_MAX_CHUNK ((size_t)16 * 1024 * 1024)
#define ARENA_HUGE ((size_t)2 * 1024 * 1024)
#define ARENA_RETAIN ((size_t)1024 * 1024 * 1024)

/* Freed mapped chunks, newest first; shared by all arenas of the process. */
static struct {
    mtx_t lock;
    arena_chunk *head;
    size_t bytes;
} retained;
static once_flag retained_once = ONCE_FLAG_INIT;
static void retained_init(void) { mtx_init(&retained.lock, mtx_plain); }

/* A retained chunk of exactly `mapped` bytes (large chunks come in a few
 * sizes: 2, 4, 8, 16 MiB and the odd big request), or NULL. */
static arena_chunk *retained_take(size_t mapped) {
    call_once(&retained_once, retained_init);
    mtx_lock(&retained.lock);
    arena_chunk **pp = &retained.head, *c;
    while ((c = *pp) && c->mapped != mapped) pp = &c->next;
    if (c) {
        *pp = c->next;
        retained.bytes -= c->mapped;
    }
    mtx_unlock(&retained.lock);
    return c;
}

/* false when the chunk is not kept (the cap is reached): unmap it. */
static bool retained_put(arena_chunk *c) {
    call_once(&retained_once, retained_init);
    mtx_lock(&retained.lock);
    bool keep = retained.bytes + c->mapped <= ARENA_RETAIN;
    if (keep) {
        c->next = retained.head;
        retained.head = c;
        retained.bytes += c->mapped;
    }
    mtx_unlock(&retained.lock);
    return keep;
}

void arena_init(arena *a) {
    memset(a, 0, sizeof *a);
    a->next_size = ARENA_MIN_CHUNK;
}

static void chunk_free(arena_chunk *c) {
    if (!c->mapped) free(c);
    else if (!retained_put(c)) munmap(c, c->mapped);
}

void arena_free(arena *a) {
    arena_chunk *c = a->head;
    while (c) {
        arena_chunk *n = c->next;
        chunk_free(c);
        c = n;
    }
    arena_init(a);
}

/* bytes (a multiple of ARENA_HUGE) at a 2 MiB boundary, with huge pages
 * asked for; NULL where mapping fails (the caller falls back to malloc). */
static void *map_huge(size_t bytes) {
#if defined(MAP_ANONYMOUS) && defined(MADV_HUGEPAGE)
    size_t span = bytes + ARENA_HUGE;
    char *p = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return NULL;
    char *q = (char *)(((uintptr_t)p + ARENA_HUGE - 1) & ~(uintptr_t)(ARENA_HUGE - 1));
    if (q > p) munmap(p, (size_t)(q - p));
    if (q + bytes < p + span) munmap(q + bytes, (size_t)(p + span - (q + bytes)));
    madvise(q, bytes, MADV_HUGEPAGE); /* advice: without THP, plain pages */
    return q;
#else
    (void)bytes;
    return NULL;
#endif
}

static void arena_grow(arena *a, size_t n) {
    size_t size = a->next_size;
    if (size < n) size = n;
    size_t bytes = sizeof(arena_chunk) + size, mapped = 0;
    arena_chunk *c = NULL;
    if (bytes >= ARENA_HUGE) {
        mapped = (bytes + ARENA_HUGE - 1) & ~(ARENA_HUGE - 1);
        c = retained_take(mapped);
        if (!c) c = map_huge(mapped);
        if (c) size = mapped - sizeof(arena_chunk); /* the rounding is usable too */
        else mapped = 0;
    }
    if (!c) c = malloc(bytes);
    if (!c) {
        fprintf(stderr, "ptxray: fatal: out of memory (arena chunk of %zu bytes)\n", size);
        abort();
    }
    c->size = size;
    c->mapped = mapped;
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
        chunk_free(c);
        c = n;
    }
    keep->next = NULL;
    a->cur = (char *)keep->data;
    a->end = a->cur + keep->size;
}
