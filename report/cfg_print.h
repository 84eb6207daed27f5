/* Text, Graphviz and JSON forms of CFG / SSA / GSA (`ptxray cfg`). */
#ifndef PTXRAY_CFG_PRINT_H
#define PTXRAY_CFG_PRINT_H
#include <stdio.h>
#include "program.h"

enum { CFGP_TEXT, CFGP_DOT, CFGP_JSON };

void cfg_print_prog(FILE *out, const prog *p, enum prog_level level, int format);

#endif
