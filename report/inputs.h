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

#endif
