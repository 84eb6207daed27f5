/* PTX text from the IR, in nvcc's layout.  The output assembles to the same
 * machine code as the input (the round-trip test checks this with ptxas). */
#ifndef PTXRAY_PRINTER_H
#define PTXRAY_PRINTER_H
#include <stdio.h>
#include "ir.h"

void ptx_print_module(FILE *out, const ptx_module *m);
/* The module's text in memory (malloc'd, NUL-terminated), *len its length. */
char *ptx_print_text(const ptx_module *m, size_t *len);
void ptx_print_inst(FILE *out, const ptx_func *f, const ptx_inst *in);
void ptx_print_expr(FILE *out, const ptx_expr *e);

/* Prints a register operand its own way (SSA value names): called for
 * every REG/SREG leaf (reg) and for the guard (reg NULL); returns false to
 * let the default spelling be printed. */
typedef bool (*ptx_reg_hook)(FILE *out, void *ctx, const ptx_operand *reg);
/* One instruction on one line, without the leading tab, ';' included, no
 * newline, register names through fn. */
void ptx_print_inst_hooked(FILE *out, const ptx_func *f, const ptx_inst *in, ptx_reg_hook fn, void *ctx);

#endif
