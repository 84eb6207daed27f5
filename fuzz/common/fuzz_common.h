/* Shared by the libFuzzer targets of `make fuzz-all` (docs/testing.md):
 * four parameter bytes (block shape, budget, schedule) hashed from the
 * input, which is PTX text.  Each target frees everything, so LeakSanitizer sees a
 * leak as a finding. */
#ifndef PTXRAY_FUZZ_COMMON_H
#define PTXRAY_FUZZ_COMMON_H
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "printer.h"
#include "ptx.h"

#define FZ_NPARAM 4

/* A block shape of at most 1024 threads from two bytes: x 1..64 (often a
 * multiple of 32), y and z small. */
static inline void fz_shape(const uint8_t *p, uint32_t b[3])
{
    b[0] = p[0] & 0x80 ? 32u * (1u + (p[0] & 3)) : 1u + (p[0] & 63);
    b[1] = 1u + (p[1] & 7);
    b[2] = 1u + (p[1] >> 3 & 3);
}

static inline ptx_module *fz_parse(const char *text, size_t len)
{
    ptx_diags d;
    ptx_diags_init(&d);
    ptx_module *m = ptx_parse_string("fuzz.ptx", text, len, &d);
    ptx_diags_free(&d);
    return m;
}

/* The input as a target reads it: the parameter bytes p, an FNV-1a hash
 * of the whole input, which is all PTX text (so the seeds, plain PTX
 * files, parse as they are, and every mutation draws other parameters),
 * and the module it parses to (NULL: not PTX). */
static inline ptx_module *fz_input(const uint8_t *data, size_t size, uint8_t p[FZ_NPARAM])
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < size; i++) h = (h ^ data[i]) * 16777619u;
    for (unsigned i = 0; i < FZ_NPARAM; i++) p[i] = (uint8_t)(h >> (8 * i));
    return fz_parse((const char *)data, size);
}

static inline char *fz_print(const ptx_module *m, size_t *len)
{
    char *t = NULL;
    FILE *f = open_memstream(&t, len);
    if (!f) abort();
    ptx_print_module(f, m);
    if (fclose(f)) abort();
    return t;
}
#endif
