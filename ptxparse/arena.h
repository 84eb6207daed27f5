/* Bump allocator for the IR: everything a module owns lives in one arena and
 * dies with it, so analyses never free individual nodes and long runs do not
 * leak (free the arena, free the module). */
#ifndef PTXRAY_ARENA_H
#define PTXRAY_ARENA_H
#include <stddef.h>
#include <stdint.h>

typedef struct arena_chunk arena_chunk;

typedef struct arena {
    arena_chunk *head;
    char *cur, *end;
    size_t next_size; /* size of the next chunk; doubles up to a cap */
    size_t total;     /* bytes of its chunks (malloc or mmap), for the bench */
} arena;

void arena_init(arena *a);
void arena_free(arena *a);
/* Aborts with a message on out-of-memory: the IR has no partial states. */
void *arena_alloc_slow(arena *a, size_t n);
/* Inline: the parser allocates a few blocks per statement, millions per file.
 * Built with -DARENA_PROFILE, every allocation is its own malloc, so that a
 * heap profiler (valgrind massif, heaptrack) charges arena memory to the
 * code that asked for it rather than to the chunk it fell in
 * (docs/front-end.md, "Memory"). */
static inline void *arena_alloc(arena *a, size_t n) {
#ifdef ARENA_PROFILE
    return arena_alloc_slow(a, n ? (n + 7u) & ~(size_t)7u : 8);
#endif
    n = n ? (n + 7u) & ~(size_t)7u : 8;
    if ((size_t)(a->end - a->cur) < n) return arena_alloc_slow(a, n);
    void *p = a->cur;
    a->cur += n;
    return p;
}
void *arena_zalloc(arena *a, size_t n);
char *arena_strndup(arena *a, const char *s, size_t n);
/* Keeps the newest chunk and forgets everything allocated: for scratch pools
 * that live for one statement. */
void arena_reset(arena *a);
/* Hands the kernel back the pages of the newest chunk past what is
 * allocated, for an arena done growing for now (a parsed module's): with
 * transparent huge pages the 2 MiB page being filled was faulted in whole.
 * Allocating on is fine: those pages come back zeroed as they are touched. */
void arena_release_tail(arena *a);

/* A point in an arena to go back to: arena_rewind forgets what was
 * allocated after it and frees the chunks added since (the module a
 * register-allocation run rewrote, put back as parsed for the next run:
 * regalloc.h, ra_undo). */
typedef struct arena_mark {
    arena_chunk *head;
    char *cur, *end;
    size_t next_size, total;
} arena_mark;
static inline arena_mark arena_mark_now(const arena *a) {
    return (arena_mark){a->head, a->cur, a->end, a->next_size, a->total};
}
void arena_rewind(arena *a, const arena_mark *m);

#define ARENA_NEW(a, T) ((T *)arena_zalloc((a), sizeof(T)))
#define ARENA_NEWN(a, T, n) ((T *)arena_zalloc((a), sizeof(T) * (size_t)(n)))

#endif
