/* Chunks grow from 64 KiB to 16 MiB, each size a power of two (the header
 * included), so that freed chunks can serve the next arena: a process that
 * parses file after file (a batch, the benchmark, the tests) then does not
 * have the kernel fault in and zero fresh pages for each, which cost about
 * as much as the parse itself for a 100 MB file.  Up to ARENA_RETAIN bytes
 * are kept.  Chunks of 2 MiB and more are mapped directly, 2 MiB-aligned,
 * with transparent huge pages requested (512 times fewer page faults).
 * Under AddressSanitizer nothing is kept, so that a use after
 * ptx_module_free is still caught.  docs/front-end.md, "Speed". */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, madvise */
#include "arena.h"
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <threads.h>
#include <unistd.h>

struct arena_chunk {
    arena_chunk *next;
    size_t bytes; /* the whole chunk, header included */
    /* [clean, end of chunk) is known to hold zeros: fresh mapped pages, or
     * pages handed back by arena_release_tail.  For an arena's newest
     * chunk, [max(clean, cur), end): what arena_alloc hands out lies below
     * cur.  arena_zalloc clears only what lies below it, so fresh memory
     * is not written twice (the kernel zeroes it when first touched). */
    char *clean;
    bool mapped; /* mmap'd (else malloc'd) */
    max_align_t data[];
};

#define ARENA_MIN_CHUNK ((size_t)64 * 1024)
#define ARENA_MAX_CHUNK ((size_t)16 * 1024 * 1024)
#define ARENA_HUGE ((size_t)2 * 1024 * 1024)
#if defined(__SANITIZE_ADDRESS__) /* gcc */
#define ARENA_RETAIN ((size_t)0)
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) /* clang */
#define ARENA_RETAIN ((size_t)0)
#endif
#endif
#ifdef ARENA_PROFILE /* nothing kept: each allocation is freed to malloc */
#define ARENA_RETAIN ((size_t)0)
#endif
#ifndef ARENA_RETAIN
#define ARENA_RETAIN ((size_t)1024 * 1024 * 1024)
#endif
#define NCLASS 10 /* 64 KiB << 0..8, then any other size */

/* Freed chunks by size class, newest first; shared by all arenas. */
static struct {
    mtx_t lock;
    arena_chunk *head[NCLASS];
    size_t bytes;
} retained;
static once_flag retained_once = ONCE_FLAG_INIT;
static void retained_init(void) { mtx_init(&retained.lock, mtx_plain); }

static unsigned size_class(size_t bytes) {
    for (unsigned k = 0; k < NCLASS - 1; k++)
        if (bytes == ARENA_MIN_CHUNK << k) return k;
    return NCLASS - 1;
}

/* A kept chunk of exactly `bytes`, or NULL. */
static arena_chunk *retained_take(size_t bytes) {
    if (!ARENA_RETAIN) return NULL;
    call_once(&retained_once, retained_init);
    mtx_lock(&retained.lock);
    arena_chunk **pp = &retained.head[size_class(bytes)], *c;
    while ((c = *pp) && c->bytes != bytes) pp = &c->next;
    if (c) {
        *pp = c->next;
        retained.bytes -= c->bytes;
    }
    mtx_unlock(&retained.lock);
    return c;
}

/* false when the chunk is not kept (the cap is reached). */
static bool retained_put(arena_chunk *c) {
    if (!ARENA_RETAIN) return false;
    call_once(&retained_once, retained_init);
    mtx_lock(&retained.lock);
    bool keep = retained.bytes + c->bytes <= ARENA_RETAIN;
    if (keep) {
        unsigned k = size_class(c->bytes);
        c->next = retained.head[k];
        retained.head[k] = c;
        retained.bytes += c->bytes;
    }
    mtx_unlock(&retained.lock);
    return keep;
}

static void chunk_free(arena_chunk *c) {
    if (retained_put(c)) return;
    if (c->mapped) munmap(c, c->bytes);
    else free(c);
}

void arena_init(arena *a) {
    memset(a, 0, sizeof *a);
    a->next_size = ARENA_MIN_CHUNK;
}

/* The newest chunk's clean mark, before it stops being the newest. */
static void mark_dirty_below_cur(arena *a) {
    if (a->head && a->cur > a->head->clean) a->head->clean = a->cur;
}

void arena_free(arena *a) {
    mark_dirty_below_cur(a);
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

void arena_release_tail(arena *a) {
#if defined(MADV_DONTNEED) && !defined(ARENA_PROFILE)
    if (!a->head || !a->head->mapped) return;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t from = ((uintptr_t)a->cur + page - 1) & ~(page - 1), to = (uintptr_t)a->end;
    /* advice: harmless if refused; if taken, the pages read as zeros */
    if (to > from && !madvise((void *)from, to - from, MADV_DONTNEED) && (char *)from < a->head->clean)
        a->head->clean = (char *)from;
#else
    (void)a;
#endif
}

static void arena_grow(arena *a, size_t n) {
    /* the chunk being left is never bumped again: dirty up to cur, its
     * tail handed back */
    mark_dirty_below_cur(a);
    arena_release_tail(a);
    size_t bytes = a->next_size;
    if (bytes - sizeof(arena_chunk) < n) {
        /* a big request (a source text): its own size, rounded */
        size_t unit = sizeof(arena_chunk) + n >= ARENA_HUGE ? ARENA_HUGE : ARENA_MIN_CHUNK;
        bytes = (sizeof(arena_chunk) + n + unit - 1) & ~(unit - 1);
    } else if (a->next_size < ARENA_MAX_CHUNK) {
        a->next_size *= 2;
    }
    arena_chunk *c = retained_take(bytes);
    if (!c && bytes >= ARENA_HUGE && (c = map_huge(bytes)) != NULL) {
        c->mapped = true;
        c->clean = (char *)c->data; /* fresh pages */
    }
    if (!c) {
        c = malloc(bytes);
        if (!c) {
            fprintf(stderr, "ptxray: fatal: out of memory (arena chunk of %zu bytes)\n", bytes);
            abort();
        }
        c->mapped = false;
        c->clean = (char *)c + bytes; /* malloc's memory: unknown */
    }
    c->bytes = bytes;
    c->next = a->head;
    a->head = c;
    a->cur = (char *)c->data;
    a->end = (char *)c + bytes;
    a->total += bytes;
}

/* n is already rounded by arena_alloc and does not fit in the current chunk. */
void *arena_alloc_slow(arena *a, size_t n) {
#ifdef ARENA_PROFILE
    arena_chunk *c = malloc(sizeof(arena_chunk) + n);
    if (!c) abort();
    c->bytes = sizeof(arena_chunk) + n;
    c->mapped = false;
    c->clean = (char *)c->data + n; /* malloc's memory: unknown */
    c->next = a->head;
    a->head = c;
    a->cur = a->end = (char *)c->data + n;
    a->total += c->bytes;
    return c->data;
#endif
    arena_grow(a, n);
    void *p = a->cur;
    a->cur += n;
    return p;
}

void *arena_zalloc(arena *a, size_t n) {
    char *p = arena_alloc(a, n), *clean = a->head->clean;
    if (p < clean) memset(p, 0, (size_t)(clean - p) < n ? (size_t)(clean - p) : n);
    return p;
}

char *arena_strndup(arena *a, const char *s, size_t n) {
    char *p = arena_alloc(a, n + 1);
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}

void arena_rewind(arena *a, const arena_mark *m) {
    /* what lies below cur in the newest chunk may have been written: the
     * chunk that stays newest then clears it when handed out again */
    mark_dirty_below_cur(a);
    while (a->head && a->head != m->head) {
        arena_chunk *c = a->head;
        a->head = c->next;
        chunk_free(c);
    }
    a->cur = m->cur;
    a->end = m->end;
    a->next_size = m->next_size;
    a->total = m->total;
}

void arena_reset(arena *a) {
    if (!a->head) return;
    mark_dirty_below_cur(a);
    arena_chunk *keep = a->head, *c = keep->next;
    while (c) {
        arena_chunk *n = c->next;
        a->total -= c->bytes;
        chunk_free(c);
        c = n;
    }
    keep->next = NULL;
    a->cur = (char *)keep->data;
    a->end = (char *)keep + keep->bytes;
}
