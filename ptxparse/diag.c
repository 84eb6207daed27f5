/* Compiler-style diagnostics: "file:line:col: error: message", the source
 * line, and a caret under the column. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ptx.h"

void ptx_diags_init(ptx_diags *d) {
    memset(d, 0, sizeof *d);
    d->max_errors = 20;
}

void ptx_diags_free(ptx_diags *d) {
    for (uint32_t i = 0; i < d->n; i++) free(d->v[i].msg);
    free(d->v);
    memset(d, 0, sizeof *d);
}

void ptx_diag_add(ptx_diags *d, ptx_diag_severity sev, ptx_loc loc, const char *fmt, ...) {
    if (sev == PTX_DIAG_ERROR && d->max_errors && d->nerrors >= d->max_errors) return;
    if (d->n == d->cap) {
        uint32_t nc = d->cap ? d->cap * 2 : 8;
        ptx_diag *nv = realloc(d->v, nc * sizeof *nv);
        if (!nv) return;
        d->v = nv;
        d->cap = nc;
    }
    va_list ap;
    va_start(ap, fmt);
    char buf[600];
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char *msg = strdup(buf);
    if (!msg) return;
    d->v[d->n++] = (ptx_diag){(uint8_t)sev, loc, msg};
    if (sev == PTX_DIAG_ERROR) d->nerrors++;
    else if (sev == PTX_DIAG_WARNING) d->nwarnings++;
}

/* Shows at most this many bytes of a long line, centred on the column. */
enum { WINDOW = 100 };

static void print_source_line(FILE *out, const char *src, size_t len, ptx_loc loc) {
    if (!src || loc.line == 0 || loc.off > len) return;
    const char *p = src + loc.off;
    size_t col0 = loc.col ? loc.col - 1 : 0;
    if (col0 > loc.off) col0 = loc.off;
    const char *ls = p - col0, *le = p;
    while (le < src + len && *le != '\n') le++;
    if (le > ls && le[-1] == '\r') le--;
    const char *ws = ls, *we = le;
    int pre = 0, post = 0;
    if ((size_t)(p - ls) > WINDOW / 2) { ws = p - WINDOW / 2; pre = 1; }
    if ((size_t)(we - ws) > WINDOW) { we = ws + WINDOW; post = 1; }
    fputs(pre ? " ..." : " ", out);
    for (const char *q = ws; q < we; q++) fputc((*q == '\t' || (*q >= 32 && *q < 127)) ? *q : '?', out);
    fputs(post ? "...\n" : "\n", out);
    fputs(pre ? "    " : " ", out);
    for (const char *q = ws; q < p; q++) fputc(*q == '\t' ? '\t' : ' ', out);
    fputs("^\n", out);
}

void ptx_diags_print(const ptx_diags *d, const char *path, const char *src, size_t len, FILE *out) {
    static const char *const sev[] = {"error", "warning", "note"};
    for (uint32_t i = 0; i < d->n; i++) {
        const ptx_diag *g = &d->v[i];
        if (g->loc.line)
            fprintf(out, "%s:%u:%u: %s: %s\n", path, g->loc.line, g->loc.col, sev[g->severity], g->msg);
        else
            fprintf(out, "%s: %s: %s\n", path, sev[g->severity], g->msg);
        print_source_line(out, src, len, g->loc);
    }
    if (d->truncated)
        fprintf(out, "%s: note: too many errors (%u), stopping here\n", path, d->max_errors);
}
