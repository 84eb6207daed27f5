/* Public entry points of the PTX front end. */
#ifndef PTXRAY_PTX_H
#define PTXRAY_PTX_H
#include <stdbool.h>
#include <stdio.h>
#include "ir.h"

typedef enum { PTX_DIAG_ERROR, PTX_DIAG_WARNING, PTX_DIAG_NOTE } ptx_diag_severity;

typedef struct ptx_diag {
    uint8_t severity;
    ptx_loc loc;     /* line 0 = no position (whole-file problems) */
    char *msg;       /* malloc'd */
} ptx_diag;

typedef struct ptx_diags {
    ptx_diag *v;
    uint32_t n, cap;
    uint32_t nerrors, nwarnings;
    uint32_t max_errors; /* parsing stops after this many errors (default 20) */
    uint8_t truncated;   /* true when the error limit stopped the parse */
} ptx_diags;

void ptx_diags_init(ptx_diags *d);
void ptx_diags_free(ptx_diags *d);
void ptx_diag_add(ptx_diags *d, ptx_diag_severity sev, ptx_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Prints "path:line:col: error: msg", the source line and a caret under the
 * column, like a compiler.  src may be NULL (no source line shown). */
void ptx_diags_print(const ptx_diags *d, const char *path, const char *src, size_t len,
                     FILE *out);

/* Parse a whole PTX file.  Returns NULL if the file could not be read or any
 * error was found (the diagnostics say why); otherwise the module, which the
 * caller frees with ptx_module_free.  Warnings do not make it fail. */
ptx_module *ptx_parse_file(const char *path, ptx_diags *d);
/* Same from memory; the text is copied. name is used in diagnostics. */
ptx_module *ptx_parse_string(const char *name, const char *text, size_t len, ptx_diags *d);
void ptx_module_free(ptx_module *m);
/* ptx_parse_file with its diagnostics printed to stderr like a compiler's
 * (all of them, or with quiet only those of a file that failed; "-" is
 * shown as <stdin>): what every command does to read its input. */
ptx_module *ptx_load(const char *path, int quiet);
/* The same with the diagnostics written to err (a batch's per-file stream). */
ptx_module *ptx_load_to(const char *path, int quiet, FILE *err);
/* The same for PTX in memory (taken out of a binary: fatbin/), shown as
 * name, which the module keeps a pointer to. */
ptx_module *ptx_load_text(const char *name, const char *text, size_t len, int quiet, FILE *err);

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

/* After parsing, every instruction is checked against the PTX ISA's forms
 * (validate.c, isa.def): opcode, modifiers, operands, register types, the
 * .version and .target it needs.  With this off, unknown instructions parse
 * generically with a warning, and the analyses treat them conservatively.
 * Not thread-safe; default on. */
void ptx_set_validation(int on);

#endif
