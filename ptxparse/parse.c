/* Front-end driver: read the file, run the lexer and grammar, resolve names,
 * and hand back a module only if no error was found. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "build.h"

int ptx_yyparse(struct ptx_lexstate *lexer, ptx_builder *b);

int ptx_validation = 1;
void ptx_set_validation(int on) { ptx_validation = on != 0; }

/* PTX offsets are 32-bit in the IR: larger files are refused up front. */
#define PTX_MAX_FILE ((size_t)UINT32_MAX - 16)

static void builder_free(ptx_builder *b) {
    free(b->ostack.v); free(b->sstack.v); free(b->vstack.v); free(b->dstack.v);
    free(b->istack.v); free(b->estack.v); free(b->top.v); free(b->funcs.v);
    free(b->body.v); free(b->named.v); free(b->named_bodies.v); free(b->regs.v); free(b->hnext.v); free(b->rdepth.v);
    free(b->heads); free(b->undo.v); free(b->marks.v);
    for (uint32_t i = 0; i < b->ranges.n; i++) free(b->ranges.v[i].ids);
    free(b->ranges.v); free(b->unknown_ops.v);
    ptx_validate_free(b);
    arena_free(&b->pool);
}

void ptx_module_free(ptx_module *m) {
    if (!m) return;
    arena_free(&m->arena);
    if (!m->src_in_arena) free(m->src);
    free(m);
}

static ptx_loc loc_of(const char *buf, size_t off) {
    ptx_loc l = {1, 1, (uint32_t)off};
    const char *ls = buf;
    for (size_t i = 0; i < off; i++)
        if (buf[i] == '\n') { l.line++; ls = buf + i + 1; }
    l.col = (uint32_t)(buf + off - ls) + 1;
    return l;
}

/* Diagnostics come from several passes; they are shown in source order
 * (stable, so messages at one position keep their order). */
static void sort_diags(ptx_diags *d, uint32_t from) {
    for (uint32_t i = from + 1; i < d->n; i++) {
        ptx_diag x = d->v[i];
        uint32_t j = i;
        while (j > from && (d->v[j - 1].loc.line > x.loc.line ||
                            (d->v[j - 1].loc.line == x.loc.line && d->v[j - 1].loc.col > x.loc.col))) {
            d->v[j] = d->v[j - 1];
            j--;
        }
        d->v[j] = x;
    }
}

/* Takes ownership of buf (len bytes + 2 NULs); m: NULL, or a new module
 * whose arena holds buf already (ptx_parse_string). */
static ptx_module *parse_owned(const char *name, char *buf, size_t len, ptx_diags *d, ptx_module *m) {
    ptx_tables_init();
    if (!m) {
        m = calloc(1, sizeof *m);
        if (!m) { free(buf); return NULL; }
        arena_init(&m->arena);
    }
    m->path = name;
    m->src = buf;
    m->src_len = len;
    uint32_t errors_before = d->nerrors;
    uint32_t first_diag = d->n;

    /* flex takes NUL for its end-of-buffer mark: text with a NUL anywhere is
     * refused before lexing (memchr over the whole file costs little). */
    const char *nul = memchr(buf, 0, len);
    if (len == 0) {
        ptx_diag_add(d, PTX_DIAG_ERROR, (ptx_loc){1, 1, 0}, "empty input: PTX must begin with a .version directive");
        ptx_module_free(m);
        return NULL;
    }
    if (nul) {
        ptx_diag_add(d, PTX_DIAG_ERROR, loc_of(buf, (size_t)(nul - buf)),
                     "NUL byte in input: this is a binary file, not PTX text");
        ptx_module_free(m);
        return NULL;
    }

    /* A UTF-8 byte-order mark (editors on Windows write one) reads as three
     * blanks: positions on line 1 still count its bytes. */
    if (len >= 3 && (unsigned char)buf[0] == 0xEF && (unsigned char)buf[1] == 0xBB && (unsigned char)buf[2] == 0xBF)
        memset(buf, ' ', 3);

    ptx_builder *b = calloc(1, sizeof *b);
    if (!b) { ptx_module_free(m); return NULL; }
    b->m = m;
    b->a = &m->arena;
    arena_init(&b->pool);
    b->d = d;
    b->ls = (struct ptx_lexstate){.buf = buf, .len = len, .line = 1, .line_start = buf, .b = b};
    if (ptx_validation) ptx_validate_begin(b);
    ptx_lex_begin(&b->ls);
    ptx_yyparse(&b->ls, b);
    ptx_lex_end(&b->ls);

    if (d->nerrors == errors_before) {
        if (!b->seen_version)
            ptx_diag_add(d, PTX_DIAG_ERROR, (ptx_loc){1, 1, 0}, "missing .version directive");
        else if (!b->seen_target)
            ptx_diag_add(d, PTX_DIAG_ERROR, (ptx_loc){1, 1, 0}, "missing .target directive");
    }
    m->nstmts = b->top.n;
    m->stmts = ARENA_NEWN(&m->arena, ptx_stmt *, b->top.n ? b->top.n : 1);
    if (b->top.n) memcpy(m->stmts, b->top.v, b->top.n * sizeof *m->stmts);
    m->nfuncs = b->funcs.n;
    m->funcs = ARENA_NEWN(&m->arena, ptx_func *, b->funcs.n ? b->funcs.n : 1);
    if (b->funcs.n) memcpy(m->funcs, b->funcs.v, b->funcs.n * sizeof *m->funcs);
    if (d->nerrors == errors_before) ptx_resolve_module(b);
    if (d->nerrors == errors_before && b->vs) ptx_validate_module(b);
    builder_free(b);
    free(b);
    arena_release_tail(&m->arena); /* the analyses allocate in arenas of their own */
    sort_diags(d, first_diag);
    if (d->nerrors != errors_before) {
        ptx_module_free(m);
        return NULL;
    }
    return m;
}

ptx_module *ptx_parse_string(const char *name, const char *text, size_t len, ptx_diags *d) {
    if (len > PTX_MAX_FILE) {
        ptx_diag_add(d, PTX_DIAG_ERROR, (ptx_loc){0, 0, 0}, "input too large (limit 4 GiB)");
        return NULL;
    }
    /* the copy goes in the module's arena: its pages are recycled from
     * module to module like the IR's (arena.c) */
    ptx_module *m = calloc(1, sizeof *m);
    if (!m) {
        ptx_diag_add(d, PTX_DIAG_ERROR, (ptx_loc){0, 0, 0}, "out of memory reading input");
        return NULL;
    }
    arena_init(&m->arena);
    char *buf = arena_alloc(&m->arena, len + 2);
    memcpy(buf, text, len);
    buf[len] = buf[len + 1] = 0;
    m->src_in_arena = true;
    return parse_owned(name, buf, len, d, m);
}

ptx_module *ptx_parse_file(const char *path, ptx_diags *d) {
    int fd = strcmp(path, "-") == 0 ? dup(0) : open(path, O_RDONLY);
    if (fd < 0) {
        ptx_diag_add(d, PTX_DIAG_ERROR, (ptx_loc){0, 0, 0}, "cannot open: %s", strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        ptx_diag_add(d, PTX_DIAG_ERROR, (ptx_loc){0, 0, 0}, "is a directory");
        close(fd);
        return NULL;
    }
    /* a regular file's size + 3: the two NULs and one spare byte, so the
     * read that sees end-of-file needs no larger buffer */
    size_t cap = (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) ? (size_t)st.st_size + 3 : 65536;
    if (cap > PTX_MAX_FILE) {
        ptx_diag_add(d, PTX_DIAG_ERROR, (ptx_loc){0, 0, 0}, "file too large (limit 4 GiB)");
        close(fd);
        return NULL;
    }
    char *buf = malloc(cap);
    size_t len = 0;
    for (;;) {
        if (!buf) break;
        if (len + 2 >= cap) {
            if (cap >= PTX_MAX_FILE) {
                ptx_diag_add(d, PTX_DIAG_ERROR, (ptx_loc){0, 0, 0}, "input too large (limit 4 GiB)");
                free(buf);
                close(fd);
                return NULL;
            }
            size_t nc = cap * 2 > PTX_MAX_FILE ? PTX_MAX_FILE : cap * 2;
            char *nb = realloc(buf, nc);
            if (!nb) { free(buf); buf = NULL; break; }
            buf = nb;
            cap = nc;
        }
        ssize_t r = read(fd, buf + len, cap - 2 - len);
        if (r < 0) {
            if (errno == EINTR) continue;
            ptx_diag_add(d, PTX_DIAG_ERROR, (ptx_loc){0, 0, 0}, "read error: %s", strerror(errno));
            free(buf);
            close(fd);
            return NULL;
        }
        if (r == 0) break;
        len += (size_t)r;
    }
    close(fd);
    if (!buf) {
        ptx_diag_add(d, PTX_DIAG_ERROR, (ptx_loc){0, 0, 0}, "out of memory reading input");
        return NULL;
    }
    buf[len] = buf[len + 1] = 0;
    return parse_owned(path, buf, len, d, NULL);
}

ptx_module *ptx_load(const char *path, int quiet) { return ptx_load_to(path, quiet, stderr); }

ptx_module *ptx_load_text(const char *name, const char *text, size_t len, int quiet, FILE *err) {
    ptx_diags d;
    ptx_diags_init(&d);
    ptx_module *m = ptx_parse_string(name, text, len, &d);
    if (!quiet || !m) ptx_diags_print(&d, name, text, len, err);
    ptx_diags_free(&d);
    return m;
}

ptx_module *ptx_load_to(const char *path, int quiet, FILE *err) {
    ptx_diags d;
    ptx_diags_init(&d);
    ptx_module *m = ptx_parse_file(path, &d);
    if (!quiet || !m) {
        /* the module owns the source; on failure reread it for the caret lines */
        const char *src = m ? m->src : NULL;
        size_t len = m ? m->src_len : 0;
        char *tmp = NULL;
        if (!m && d.n) {
            FILE *f = strcmp(path, "-") ? fopen(path, "rb") : NULL;
            /* only a regular file within the limit: a directory opens, and
             * its ftell is LONG_MAX (a malloc AddressSanitizer aborts on) */
            struct stat st;
            if (f && (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > PTX_MAX_FILE)) {
                fclose(f);
                f = NULL;
            }
            if (f) {
                fseek(f, 0, SEEK_END);
                long n = ftell(f);
                fseek(f, 0, SEEK_SET);
                if (n > 0 && (tmp = malloc((size_t)n + 1)) && fread(tmp, 1, (size_t)n, f) == (size_t)n) {
                    src = tmp;
                    len = (size_t)n;
                }
                fclose(f);
            }
        }
        ptx_diags_print(&d, strcmp(path, "-") ? path : "<stdin>", src, len, err);
        free(tmp);
    }
    ptx_diags_free(&d);
    return m;
}
