/* C++ names for people (ptx.h), with libiberty's demangler: the one
 * c++filt and the binutils use, so the names read as they do there. */
#include <stdlib.h>
#include <string.h>
#include <libiberty/demangle.h>
#include "ptx.h"

char *ptx_demangle(const char *name, size_t n, bool full)
{
    /* only Itanium C++ symbols: a kernel named like an old-style mangled
     * name ("f__Fi") must not be "demangled" */
    if (n < 3 || memcmp(name, "_Z", 2)) return NULL;
    char *s = strndup(name, n);
    if (!s) abort();
    char *d = cplus_demangle(s, full ? DMGL_PARAMS | DMGL_ANSI : 0);
    free(s);
    return d;
}

char *ptx_func_shown(const ptx_func *fn)
{
    char *d = ptx_demangle(fn->name.p, fn->name.n, true);
    if (!d && !(d = strndup(fn->name.p, fn->name.n))) abort();
    return d;
}
