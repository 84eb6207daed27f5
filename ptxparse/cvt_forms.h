/* cvt's packed and narrow floating-point forms (cvt_forms.def): which one an
 * instruction spells, and whether the file's .version and .target have it.
 * Internal to the validator. */
#ifndef PTXRAY_CVT_FORMS_H
#define PTXRAY_CVT_FORMS_H
#include <stddef.h>
#include <stdint.h>
#include "ir.h"

typedef struct ptx_cvt_shape {
    uint8_t nopd;      /* operands, a {a, b, e, f} vector counting as one */
    uint8_t vec4;      /* operand 2 is a vector of four .f32 */
    uint8_t rbits;     /* the last operand is the random bits (.b32) */
    uint8_t dbits;     /* the destination register's width */
    ptx_type src;      /* the type of each source value (a .bN for a packed format) */
} ptx_cvt_shape;

/* Checks cvt's spelling (the whole opcode text) against the table: 0 if no
 * row is about its pair of types (the classic conversions, checked by
 * isa.def's row), 1 with *shape filled when it is a legal form for this
 * version (major*10+minor) and target (sm, suffix 'a', 'f' or 0), -1 with
 * msg and *at (a position in the opcode text) when it is not. */
int ptx_cvt_check(const char *op, size_t n, unsigned ver, unsigned sm, char suffix, ptx_cvt_shape *shape, char *msg,
                  size_t msgn, const char **at);

#endif
