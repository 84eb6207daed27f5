/* Kernel names in reports: people read a C++ kernel's demangled name
 * (ptx_func_shown), tools match the PTX symbol, so JSON carries both. */
#ifndef PTXRAY_KNAME_H
#define PTXRAY_KNAME_H
#include <jansson.h>
#include <stdio.h>
#include "ptx.h"

/* o[key] = fn's name as people read it, o["symbol"] = its PTX symbol. */
void kn_json(json_t *o, const char *key, const ptx_func *fn);
/* fn's name as people read it, then " [SYMBOL]" when that differs. */
void kn_print(FILE *o, const ptx_func *fn);

#endif
