/* PTX text from the IR, in nvcc's layout.  The output assembles to the same
 * machine code as the input (the round-trip test checks this with ptxas). */
#ifndef PTXRAY_PRINTER_H
#define PTXRAY_PRINTER_H
#include <stdio.h>
#include "ir.h"

void ptx_print_module(FILE *out, const ptx_module *m);
void ptx_print_inst(FILE *out, const ptx_func *f, const ptx_inst *in);
void ptx_print_operand(FILE *out, const ptx_func *f, const ptx_operand *o);
void ptx_print_expr(FILE *out, const ptx_expr *e);

#endif
