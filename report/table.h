/* Text tables with aligned columns: rows are collected first, so every
 * column gets the width of its widest cell (in UTF-8 characters, since the
 * divergence reports print ⊥ and ·). */
#ifndef PTXRAY_TABLE_H
#define PTXRAY_TABLE_H
#include <stdio.h>

typedef struct table {
    unsigned ncols;
    unsigned right;  /* bit c set: column c is right-aligned (numbers) */
    size_t ncells;
    char *buf;       /* the cells' texts, row-major (ncols per row), each
                      * NUL-terminated, one after another: a report of a
                      * million cells costs their bytes, not a malloc'd block
                      * and a pointer each (printing walks them in order) */
    size_t nbuf, capbuf;
    size_t nleft;
    size_t *left;    /* heading rows: see table_heading_row */
} table;

void table_init(table *t, unsigned ncols, unsigned right_mask);
/* Appends one cell (printf format) to the current row; rows fill in order. */
void table_cell(table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Marks the row about to be filled as a heading over groups of columns:
 * each cell starts where its column starts and may run over the empty
 * cells after it; such rows do not widen the columns. */
void table_heading_row(table *t);
/* Prints every row, each prefixed by indent; columns two spaces apart, no
 * trailing blanks. */
void table_print(const table *t, FILE *o, const char *indent);
void table_free(table *t);

#endif
