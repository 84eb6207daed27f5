/* Helpers for the emulator tests: load a PTX file (corpus or inline text),
 * create buffers, launch with a compact argument list, compare results. */
#ifndef PTXRAY_EMU_HARNESS_H
#define PTXRAY_EMU_HARNESS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "emu.h"

typedef struct eh {
    ptx_module *m;
    emu_machine *M;
    emu_options opt;
    char path[512];
    char last_err[2048];  /* diagnostics of the last launch, as printed */
    void *hook_data;      /* for eh_hooks */
    /* the launch in progress, for the launching and launched hooks (to
     * launch it again elsewhere, tests/test_emu_shapes.c) */
    const emu_arg *args;
    unsigned nargs;
} eh;

/* Extra work around every machine and launch the harness makes, so one
 * test can re-run another's launches with more checking (the divergence
 * claims over the corpus tests, tests/test_emu_divcheck.c).  opened runs
 * before the machine is created and may set h->opt.observer (chaining one
 * the test set); launching and launched run around emu_launch. */
typedef struct eh_hooks {
    void (*opened)(eh *h);
    void (*launching)(eh *h, const char *kernel, emu_dim3 grid, emu_dim3 block);
    void (*launched)(eh *h, const char *kernel, emu_status st);
    void (*closing)(eh *h);
} eh_hooks;
/* NULL: none (the default). */
extern const eh_hooks *eh_hooks_on;

/* Corpus file (path relative to the repository), or PTX text. */
eh *eh_open(const char *rel, const emu_options *opt);
eh *eh_text(const char *ptx, const emu_options *opt);
void eh_close(eh *h);

uint64_t eh_buf(eh *h, const void *data, size_t bytes);
uint64_t eh_zero(eh *h, size_t bytes);
void eh_read(eh *h, uint64_t addr, void *out, size_t bytes);
void eh_write(eh *h, uint64_t addr, const void *in, size_t bytes);
/* Copies data into a module .global/.const variable (sizes must match). */
void eh_set_symbol(eh *h, const char *name, const void *data, size_t bytes);
void eh_get_symbol(eh *h, const char *name, void *out, size_t bytes);

/* Launches kernel with arguments described by fmt, one character per
 * parameter: p (uint64_t address), i (int32), u (uint32), l (int64 or
 * uint64), f (float, passed as double), d (double), h (16-bit, passed as
 * int), c (8-bit, passed as int), b (const void *, size_t: raw bytes).
 * Returns the status; the diagnostics are kept in h->last_err. */
emu_status eh_launch(eh *h, const char *kernel, emu_dim3 grid, emu_dim3 block, const char *fmt, ...);

/* Launch that must succeed (fails the test with the diagnostics). */
#define EH_RUN(h, k, g, b, ...)                                                               \
    do {                                                                                      \
        emu_status st_ = eh_launch((h), (k), (g), (b), __VA_ARGS__);                          \
        cr_assert_eq(st_, EMU_OK, "%s %s: %s\n%s", (h)->path, (k), emu_status_name(st_), (h)->last_err); \
    } while (0)

static inline emu_dim3 D1(uint32_t x) { emu_dim3 d = {x, 1, 1}; return d; }
static inline emu_dim3 D2(uint32_t x, uint32_t y) { emu_dim3 d = {x, y, 1}; return d; }
static inline emu_dim3 D3(uint32_t x, uint32_t y, uint32_t z) { emu_dim3 d = {x, y, z}; return d; }

/* Deterministic test data. */
uint64_t eh_rand(uint64_t *s);
void eh_fill_f32(float *v, size_t n, uint64_t seed, float lo, float hi);
void eh_fill_f64(double *v, size_t n, uint64_t seed, double lo, double hi);
void eh_fill_i32(int32_t *v, size_t n, uint64_t seed, int32_t lo, int32_t hi);

/* Element-wise comparisons; the first mismatch fails the test with its
 * index.  Floats: |got - want| <= abs + rel * |want|. */
void eh_expect_f32(const float *got, const float *want, size_t n, double rel, double abs, const char *what);
void eh_expect_f64(const double *got, const double *want, size_t n, double rel, double abs, const char *what);
void eh_expect_i32(const int32_t *got, const int32_t *want, size_t n, const char *what);
void eh_expect_u64(const uint64_t *got, const uint64_t *want, size_t n, const char *what);
void eh_expect_bytes(const void *got, const void *want, size_t n, const char *what);

/* The three architectures every corpus kernel is compiled for. */
extern const char *const eh_arches[3];
/* "ptx-corpus/<arch>/<name>.ptx" */
const char *eh_corpus(const char *arch, const char *name);
/* Variant k of a corpus file: 0..2 the three architectures, 3 the -G build
 * "ptx-corpus/debug/<name>.sm_80.ptx". */
const char *eh_variant(unsigned k, const char *name);
#define EH_FOR_VARIANT(k, with_debug) for (unsigned k = 0; k < 3u + ((with_debug) ? 1u : 0u); k++)
/* Whether kernel's .reqntid/.maxntid allow block shape s (a launch that
 * breaks them fails on a GPU; the emulator does not check them). */
bool eh_bounds_allow(const ptx_module *m, const char *kernel, emu_dim3 s);
#endif
