/* The code sections of a cubin (an ELF file): what the round-trip oracle
 * compares.  Debug and line-table sections are left out on purpose: they
 * legitimately change when comments or blank lines move. */
#ifndef PTXRAY_CUBIN_H
#define PTXRAY_CUBIN_H
#include <stddef.h>

typedef struct cubin_section {
    char *name;            /* ".text._Z3fooPf" */
    unsigned char *data;
    size_t size;
} cubin_section;

typedef struct cubin_text {
    cubin_section *v;
    size_t n;
} cubin_text;

/* Reads every SHT_PROGBITS section named .text.*; returns 0, or -1 with a
 * message in err (which has errn bytes). */
int cubin_read_text(const char *path, cubin_text *out, char *err, size_t errn);
void cubin_text_free(cubin_text *t);
/* NULL if equal, else the name of the first section that differs (or a
 * description when the sets of sections differ). */
const char *cubin_text_diff(const cubin_text *a, const cubin_text *b);

#endif
