/* report/table.c: a table streamed with table_stream (rows made twice,
 * measured then printed one at a time) prints exactly what the same rows
 * collected and printed by table_print do, with heading rows, right- and
 * left-aligned columns, UTF-8 cells (a column's width counts characters),
 * empty trailing cells (never padded), a short last row, cells longer
 * than table_cell's stack buffer, and non-"%s" formats. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "table.h"

typedef struct rows {
    unsigned n;     /* data rows */
    bool heading;   /* a heading row first */
    bool short_end; /* the last row has only two cells */
} rows;

static void fill(table *t, void *ctx)
{
    const rows *r = ctx;
    if (r->heading) {
        table_heading_row(t);
        table_cell(t, "group one");
        table_cell(t, "%s", "");
        table_cell(t, "group two spans");
        table_cell(t, "%s", "");
    }
    table_cell(t, "line");
    table_cell(t, "%s", "value");
    table_cell(t, "%s", "state");
    table_cell(t, "%s", "note");
    char longer[300];
    memset(longer, 'x', sizeof longer - 1);
    longer[sizeof longer - 1] = 0;
    for (unsigned i = 0; i < r->n; i++) {
        table_cell(t, "%u", i * 37 % 1000);
        table_cell(t, "%%r%u.%u", i, i % 3);
        table_cell(t, "%s", i % 4 == 1 ? "\xe2\x8a\xa5" : i % 4 == 2 ? "affine \xc2\xb7 1" : "uniform");
        table_cell(t, "%s", i % 5 == 0 ? "" : i == 7 ? longer : "note");
    }
    if (r->short_end) {
        table_cell(t, "%d", -5);
        table_cell(t, "%s", "end");
    }
}

static char *collected(const rows *r, unsigned right)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&buf, &len);
    cr_assert_not_null(o);
    table t;
    table_init(&t, 4, right);
    fill(&t, (void *)r);
    table_print(&t, o, "  ");
    table_free(&t);
    fclose(o);
    return buf;
}

static char *streamed(const rows *r, unsigned right)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&buf, &len);
    cr_assert_not_null(o);
    table t;
    table_init(&t, 4, right);
    table_stream(&t, o, "  ", fill, (void *)r);
    table_free(&t);
    fclose(o);
    return buf;
}

Test(table, streamed_equals_collected)
{
    unsigned ncase = 0;
    for (unsigned n = 0; n <= 12; n += 3)
        for (unsigned h = 0; h < 2; h++)
            for (unsigned s = 0; s < 2; s++)
                for (unsigned right = 0; right < 16; right += 5) {
                    rows r = {n, h, s};
                    char *a = collected(&r, right), *b = streamed(&r, right);
                    cr_expect_str_eq(b, a, "n %u heading %u short %u right %#x", n, h, s, right);
                    free(a);
                    free(b);
                    ncase++;
                }
    cr_assert_eq(ncase, 5 * 2 * 2 * 4);
}

/* The widths themselves: what either way prints for a small table. */
Test(table, columns_aligned)
{
    rows r = {3, true, true};
    char *b = streamed(&r, 1);
    /* widths 4 (right), 5, 10 ("affine · 1" in characters), 4; the
     * heading's second cell starts where column 2 does (4+2+5+2) */
    const char *want = "  group one    group two spans\n"
                       "  line  value  state       note\n"
                       "     0  %r0.0  uniform\n"
                       "    37  %r1.1  \xe2\x8a\xa5           note\n"
                       "    74  %r2.2  affine \xc2\xb7 1  note\n"
                       "    -5  end\n";
    cr_expect_str_eq(b, want);
    free(b);
}
