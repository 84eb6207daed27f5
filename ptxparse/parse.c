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
 * whose arena holds buf already (ptx_parse_string).  keep: where a buf that
 * failed to parse goes (as read, its length in keep_len) for the caret lines
 * of its messages, or NULL: freed. */
static ptx_module *parse_owned(const char *name, char *buf, size_t len, ptx_diags *d, ptx_module *m, char **keep,
                               size_t *keep_len) {
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
    bool bom = false;
    if (len == 0) {
        ptx_diag_add(d, PTX_DIAG_ERROR, (ptx_loc){1, 1, 0}, "empty input: PTX must begin with a .version directive");
        goto fail;
    }
    if (nul) {
        ptx_diag_add(d, PTX_DIAG_ERROR, ptx_loc_at(buf, len, (ptx_loc){1, 1, 0}, nul),
                     "NUL byte in input: this is a binary file, not PTX text");
        goto fail;
    }

    /* A UTF-8 byte-order mark (editors on Windows write one) reads as three
     * blanks: positions on line 1 still count its bytes. */
    bom = len >= 3 && (unsigned char)buf[0] == 0xEF && (unsigned char)buf[1] == 0xBB && (unsigned char)buf[2] == 0xBF;
    if (bom) memset(buf, ' ', 3);

    ptx_builder *b = calloc(1, sizeof *b);
    if (!b) goto fail;
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
    if (d->nerrors == errors_before) return m;
fail:
    if (keep && len) {
        if (bom) memcpy(buf, "\xEF\xBB\xBF", 3);
        *keep = buf;
        *keep_len = len;
        m->src = NULL;
    }
    ptx_module_free(m);
    return NULL;
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
    return parse_owned(name, buf, len, d, m, NULL, NULL);
}

/* keep: as parse_owned's, for a regular file named (not stdin) */
static ptx_module *parse_file(const char *path, ptx_diags *d, char **keep, size_t *keep_len) {
    int fd = strcmp(path, "-") == 0 ? dup(0) : open(path, O_RDONLY);
    if (fd < 0) {
        ptx_diag_add(d, PTX_DIAG_ERROR, (ptx_loc){0, 0, 0}, "cannot open: %s", strerror(errno));
        return NULL;
    }
    struct stat st;
    bool stat_ok = fstat(fd, &st) == 0, reg = stat_ok && S_ISREG(st.st_mode);
    /* a regular file's size + 3: the two NULs and one spare byte, so the
     * read that sees end-of-file needs no larger buffer */
    size_t len = 0, cap = reg && st.st_size > 0 ? (size_t)st.st_size + 3 : 65536;
    char *buf = NULL;
    if (stat_ok && S_ISDIR(st.st_mode)) {
        ptx_diag_add(d, PTX_DIAG_ERROR, (ptx_loc){0, 0, 0}, "is a directory");
        goto fail;
    }
    if (cap > PTX_MAX_FILE) {
        ptx_diag_add(d, PTX_DIAG_ERROR, (ptx_loc){0, 0, 0}, "file too large (limit 4 GiB)");
        goto fail;
    }
    buf = malloc(cap);
    for (;;) {
        if (!buf) break;
        if (len + 2 >= cap) {
            if (cap >= PTX_MAX_FILE) {
                ptx_diag_add(d, PTX_DIAG_ERROR, (ptx_loc){0, 0, 0}, "input too large (limit 4 GiB)");
                goto fail;
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
            goto fail;
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
    return parse_owned(path, buf, len, d, NULL, reg && strcmp(path, "-") ? keep : NULL, keep_len);
fail:
    free(buf);
    close(fd);
    return NULL;
}

ptx_module *ptx_parse_file(const char *path, ptx_diags *d) { return parse_file(path, d, NULL, NULL); }

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
    char *text = NULL; /* the module owns the source; a file that failed hands it back */
    size_t len = 0;
    ptx_module *m = parse_file(path, &d, &text, &len);
    if (!quiet || !m)
        ptx_diags_print(&d, strcmp(path, "-") ? path : "<stdin>", m ? m->src : text, m ? m->src_len : len, err);
    free(text);
    ptx_diags_free(&d);
    return m;
}
