/* Argument and data specifications of `ptxray run` (see run_usage in
 * cli/cmd_run.c and docs/emulator.md): element types, data initialisers and
 * their deterministic random generator. */
#ifndef PTXRAY_RUN_SPEC_H
#define PTXRAY_RUN_SPEC_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum { EK_INT, EK_UINT, EK_FLOAT } elem_kind;

typedef struct elem_type {
    const char *name; /* "i32" */
    unsigned bytes;
    elem_kind kind;
} elem_type;

/* Looks up "i8".."u64", "f16", "bf16", "f32", "f64", "b8".."b64". */
const elem_type *spec_type(const char *s, size_t n);

/* Encodes a decimal/hex/float text as one element; false with a message
 * in err. */
bool spec_value(const elem_type *t, const char *text, uint8_t *out, char *err, size_t errn);

/* Fills count elements of type t per INIT ("zero", "fill:V", "iota[:A[:S]]",
 * "rand:SEED[:LO:HI]"). */
bool spec_fill(const elem_type *t, const char *init, uint8_t *data, size_t count, char *err, size_t errn);

/* Formats one element for --print. */
void spec_format(const elem_type *t, const uint8_t *p, char *buf, size_t n);

/* Reads a whole file (for buf:TYPE:file:PATH), a NUL byte after its *len
 * bytes; NULL with err. */
uint8_t *spec_read_file(const char *path, size_t *len, char *err, size_t errn);

/* A non-negative integer, decimal or 0x hex, the whole of s. */
bool spec_number(const char *s, uint64_t *out);

/* The generator of rand: documented so tests can reproduce the data. */
uint64_t spec_rand_next(uint64_t *state);
#endif
