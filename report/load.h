/* The function --kernel names, and the list of a file's functions (the
 * pipeline's kernel pass: pipeline.h). */
#ifndef PTXRAY_LOAD_H
#define PTXRAY_LOAD_H
#include <stdbool.h>
#include "program.h"
#include "ptx.h"

/* The function --kernel NAME picks among m's functions with a body (only
 * kernels with entries), the same in every command: NAME is its symbol,
 * its demangled name in full ("void k<8>(float*)") or without return type
 * and parameters ("k<8>") -- ptx_name_lookup, the matcher of every option
 * and file that names a kernel -- or, --kernel's own, a prefix of a
 * demangled name that only one function has.  Returns the symbol (in m's
 * arena), or NULL after "ptxray CMD: PATH: ..." on stderr (no such
 * function, several, or only a declaration) with the file's functions
 * listed. */
const char *load_kernel(const char *cmd, ptx_module *m, const char *path, const char *name, bool entries);
/* m's functions with a body (only kernels with entries) on stderr, one a
 * line, as people name them with the symbol in brackets when it differs. */
void load_list(const ptx_module *m, bool entries);

#endif
