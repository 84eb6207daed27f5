/* Kernels' names for people, one way everywhere: C++ symbols demangled
 * (libiberty's demangler, the one c++filt uses), and how a name given to
 * --kernel, --block KERNEL=, a launch file or a baseline picks a function
 * (docs/launches.md, "Naming a kernel").  Reads no PTX: it takes the
 * parsed module's functions. */
#ifndef PTXRAY_NAMES_H
#define PTXRAY_NAMES_H
#include "ptx.h"

/* A C++ symbol (_Z...) demangled, malloc'd: with full, as c++filt shows
 * it ("void k<8>(float const*, int)"), else the qualified name alone
 * ("k<8>").  NULL for any other name (extern "C" kernels, Triton's). */
char *ptx_demangle(const char *name, size_t n, bool full);
/* fn's name for people: demangled in full when it is a C++ symbol, else
 * as written; malloc'd. */
char *ptx_func_shown(const ptx_func *fn);
/* The template a C++ symbol is an instance of: its qualified name with
 * every template argument list left out, read off the demangler's tree
 * (not its text, whose "operator<" or "operator<<" would read as
 * arguments): "ns::reduce" for "void ns::reduce<float, 256>(float
 * const*)", "A::f" for "A<int>::f<2>(int)", "operator<" for
 * "bool operator< <int>(int, int)"; malloc'd.  NULL when the name has no
 * template arguments or is not a C++ symbol. */
char *ptx_demangle_template(const char *name, size_t n);

/* How a name people give for a function (--kernel, --block KERNEL=, the
 * launch files; docs/launches.md, "Naming a kernel") matches it, the same
 * everywhere: PTX_NAME_EXACT when it is fn's symbol, its C++ name as `ptxray
 * list` prints it ("void k<8>(float*)") or that without return type and
 * parameters ("k<8>"); PTX_NAME_PREFIX when it is a prefix of a C++ name
 * (only C++ names: a plain name is given whole); else PTX_NAME_NONE. */
enum { PTX_NAME_NONE, PTX_NAME_PREFIX, PTX_NAME_EXACT };
/* fn's names, demangled once for matching many names against it. */
typedef struct ptx_fname {
    ptx_str sym;
    char *full, *bare; /* NULL for a name that is not a C++ symbol */
} ptx_fname;
void ptx_fname_init(ptx_fname *f, const ptx_func *fn);
void ptx_fname_free(ptx_fname *f);
int ptx_fname_match(const ptx_fname *f, const char *name, size_t n);
int ptx_name_match(const ptx_func *fn, const char *name, size_t n);
/* A glob (fnmatch: `*`, `?`, `[...]`) over the same names: the symbol, the
 * C++ name as `ptxray list` prints it or without its return type and
 * parameters (`transpose*<*>` names every instance of a template).
 * ptx_name_is_glob: whether name has a glob character. */
bool ptx_name_is_glob(const char *name);
bool ptx_name_glob(const ptx_func *fn, const char *pattern);
/* The functions of m with a body (only kernels with entries) that name
 * names at the best level (exact; else, with prefix, as a prefix): how
 * many (one: name picks it; more: name is ambiguous), the first in *hit. */
uint32_t ptx_name_lookup(const ptx_module *m, const char *name, size_t n, bool entries, bool prefix,
                         const ptx_func **hit);
/* m's functions with a body (only kernels with entries) on o, one a line,
 * "  NAME" or "  NAME  [SYMBOL]": what an unknown or ambiguous name lists. */
void ptx_names_print(FILE *o, const ptx_module *m, bool entries);

#endif
