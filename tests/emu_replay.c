/* emu_replay.h: the check that the replayed list matches the corpus tests. */
#include <criterion/criterion.h>
#include <stdbool.h>
#include <string.h>
#include "emu_replay.h"

/* Criterion keeps its tests in the cr_tst section. */
extern struct criterion_test *__start_cr_tst[] __attribute__((weak));
extern struct criterion_test *__stop_cr_tst[] __attribute__((weak));

void emu_replay_check_list(void)
{
#define EMU_REPLAY_NAME(name) #name,
    static const char *const listed[] = {EMU_CORPUS_TESTS(EMU_REPLAY_NAME) "unsupported_kernels"};
    cr_assert_not_null(__start_cr_tst, "no cr_tst section");
    unsigned found = 0;
    for (struct criterion_test **p = __start_cr_tst; p < __stop_cr_tst; p++) {
        if (!*p || strcmp((*p)->category, "emu_corpus")) continue;
        found++;
        bool in = false;
        for (size_t i = 0; i < sizeof listed / sizeof listed[0]; i++) in |= !strcmp(listed[i], (*p)->name);
        cr_expect(in, "emu_corpus/%s is not in EMU_CORPUS_TESTS of tests/emu_replay.h", (*p)->name);
    }
    cr_expect_eq(found, sizeof listed / sizeof listed[0]);
}
