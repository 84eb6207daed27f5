/* What every command that analyses one file does first: parse it, find
 * the function --kernel names, build the program. */
#ifndef PTXRAY_LOAD_H
#define PTXRAY_LOAD_H
#include "program.h"
#include "ptx.h"

/* Loads path and builds its program up to level (only `kernel`'s function
 * when not NULL), reporting errors as "ptxray CMD: ..." or file:line:col
 * diagnostics; NULL on error (nothing to free), else the program and *m. */
prog *load_prog(const char *cmd, const char *path, const char *kernel, enum prog_level level, ptx_module **m);

#endif
