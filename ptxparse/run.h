/* Internal: what the hand-written statement readers share (build.c's
 * statement runs, run_top.c's top-level items and declarations).  Each
 * reader takes a statement only when it has read the whole of it the way
 * flex and bison would, and builds it with the grammar's builder calls;
 * anything else is left to flex and bison (docs/front-end.md). */
#ifndef PTXRAY_RUN_H
#define PTXRAY_RUN_H
#include <stdbool.h>
#include "build.h"

#define CC(c, k) (ptx_cc[(unsigned char)(c)] & (k))

typedef struct run_pos {
    const char *p;
    const char *line_start;
    uint32_t line;
} run_pos;

static inline ptx_loc run_loc(const ptx_builder *b, const run_pos *r, const char *at) {
    return (ptx_loc){r->line, (uint32_t)(at - r->line_start) + 1, (uint32_t)(at - b->ls.buf)};
}

static inline const char *run_blanks(const char *p) {
    while (CC(*p, PTX_CC_BLANK)) p++;
    return p;
}

/* Blanks, newlines and comments (what flex skips between tokens); stops at
 * an unterminated block comment, which the lexer reports. */
void ptx_run_skip(run_pos *r);

/* A declaration "quals declarator {, declarator};" of the simple shapes
 * (run_top.c); false, with nothing built, for any other. */
bool ptx_run_decl(ptx_builder *b, run_pos *r);

/* A .section's text from p (just after its '{'): the matching '}', with
 * line/line_start moved over the newlines before it, or NULL when there is
 * none.  It skips what the lexer's SECRAW rules skip: // and closed block
 * comments, closed strings. */
const char *ptx_raw_block_scan(const char *p, const char *end, uint32_t *line, const char **line_start);

#endif
