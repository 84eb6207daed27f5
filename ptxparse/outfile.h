/* Output files are written under a temporary name in the same directory and
 * renamed into place only when complete, so a failed run never leaves a
 * partial file behind. */
#ifndef PTXRAY_OUTFILE_H
#define PTXRAY_OUTFILE_H
#include <stdio.h>

typedef struct outfile {
    FILE *f;
    char *path; /* NULL for stdout */
    char *tmp;
} outfile;

/* path NULL or "-" means stdout.  Returns 0, or -1 with a message printed. */
int outfile_open(outfile *o, const char *path);
/* Flushes and renames into place; returns 0, or -1 (message printed, temp removed). */
int outfile_commit(outfile *o);
void outfile_abort(outfile *o);
/* outfile_open, the bytes, outfile_commit: 0 or -1 (message printed). */
int outfile_write(const char *path, const void *data, size_t len);

#endif
