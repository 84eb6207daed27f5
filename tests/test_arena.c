/* arena_rewind (ptxparse/arena.h): what was allocated after a mark is
 * forgotten, the chunks added since are freed, and memory handed out
 * again by arena_zalloc reads as zeros though it was written before. */
#include <criterion/criterion.h>
#include <string.h>
#include "arena.h"

static bool zeros(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i]) return false;
    return true;
}

Test(arena, rewind_forgets_and_clears)
{
    for (int grow = 0; grow < 2; grow++) {
        arena a;
        arena_init(&a);
        char *keep = arena_alloc(&a, 100);
        memset(keep, 7, 100);
        arena_mark m = arena_mark_now(&a);
        /* within the chunk, or past it into new chunks (64 KiB and up) */
        size_t piece = 4096, pieces = grow ? 1024 : 4;
        for (size_t i = 0; i < pieces; i++) memset(arena_alloc(&a, piece), 0xab, piece);
        if (grow) cr_expect_gt(a.total, m.total);
        arena_rewind(&a, &m);
        cr_expect_eq(a.total, m.total);
        cr_expect_eq(a.cur, m.cur);
        cr_expect_eq(a.head, m.head);
        /* the same memory again, cleared where it was written */
        unsigned char *z = arena_zalloc(&a, 3 * piece);
        cr_expect_eq((char *)z, m.cur);
        cr_expect(zeros(z, 3 * piece), "grow %d: written memory handed out again not cleared", grow);
        for (int i = 0; i < 100; i++) cr_expect_eq(keep[i], 7);
        arena_free(&a);
    }
}
