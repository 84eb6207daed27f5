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

/* After parsing, every instruction is checked against the PTX ISA's forms
 * (validate.c, isa.def): opcode, modifiers, operands, register types, the
 * .version and .target it needs.  With this off, unknown instructions parse
 * generically with a warning, and the analyses treat them conservatively.
 * Not thread-safe; default on. */
void ptx_set_validation(int on);

#endif
