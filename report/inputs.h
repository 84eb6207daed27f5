/* A command's inputs as the PTX units the pipeline reads
 * (docs/binaries.md).  Each path given is a PTX file, a binary that ships
 * PTX (an ELF executable, shared library or object, an ar archive of
 * objects, a raw fatbin: told by their first bytes, never by their names;
 * fatbin/ reads them), or a directory holding either.  A binary gives one
 * unit per distinct PTX text among its entries, named where it was found
 * and for which architecture: "app[compute_80]", "libk.a(k.o)[compute_90]";
 * the same text in several entries is one unit, and `also` lists the other
 * places. */
#ifndef PTXRAY_INPUTS_H
#define PTXRAY_INPUTS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "ptx.h"

typedef struct in_unit {
    char *path;  /* the file */
    char *shown; /* its name in reports and messages: path, or "app[compute_80]" */
    char *text;  /* a binary's PTX, NUL-terminated; NULL: the PTX file at path */
    size_t len;
    char *also;  /* where else the same PTX was found ("app[compute_86]"), or NULL */
} in_unit;

typedef struct in_units {
    size_t n, cap;
    in_unit *v;
} in_units;

/* Every path, in order, directories walked in name order (symbolic links
 * to directories not followed; there a file counts when its name ends in
 * .ptx or it is a binary holding PTX).  Problems go to err as
 * "ptxray CMD: ..." lines.  Returns 0, or 2 when a path could not be read,
 * a binary named on the command line holds no PTX, or an entry could not
 * be read (the other entries are still units). */
int in_collect(in_units *u, const char *cmd, char **paths, int n, FILE *err);
void in_free(in_units *u);
/* One path's units, the path taken as a file (a directory is not walked:
 * the parser says what it is), without the warning about line
 * information (for list, parse, print: they report no findings). */
int in_expand(in_units *u, const char *cmd, const char *path, FILE *err);

/* The one unit a command of one input reads at path: a PTX file as it is
 * (text NULL), the PTX of a binary that holds one text, or the unit a
 * name as reports show it selects ("app[compute_90]").  Returns 0, or 2
 * after a message (a binary holding none, or several: they are listed). */
int in_single(in_unit *u, const char *cmd, const char *path, FILE *err);
void in_unit_free(in_unit *u);

/* The unit parsed, its diagnostics on err (ptx_load_to, ptx_load_text);
 * the module keeps a pointer to u->shown. */
ptx_module *in_load(const in_unit *u, int quiet, FILE *err);

#endif
