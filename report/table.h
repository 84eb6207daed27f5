/* Text tables with aligned columns: rows are collected first (or made
 * twice, table_stream), so every column gets the width of its widest cell (in UTF-8 characters, since the
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
    const char **row;/* scratch: the cells of the row being printed */
    /* table_stream: 1 measuring, 2 printing (0: collecting for table_print) */
    unsigned pass;
    size_t w[32];    /* column widths, measured by pass 1 */
    FILE *out;
    const char *indent;
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
/* The same output as filling the table with fill(t, ctx) and printing it,
 * but fill is called twice, first to measure the columns, then to print
 * the rows as they complete: memory holds one row, not the table (the
 * divergence report of a 100k-block kernel lists 200k values, 12 MB of
 * cells).  fill must make the same cells both times. */
void table_stream(table *t, FILE *o, const char *indent, void (*fill)(table *t, void *ctx), void *ctx);
void table_free(table *t);

#endif
