/* .loc / .file / inlined_at resolution (srcloc.h). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "srcloc.h"
#include "toolchain.h"

/* A .file index as strtoul reads its text in base 10; the usual few
 * decimal digits read here (strtoul was a third of this table's cost). */
static uint32_t file_index(ptx_str raw)
{
    uint64_t v = 0;
    size_t j = 0;
    while (j < raw.n && j < 19 && raw.p[j] >= '0' && raw.p[j] <= '9') v = v * 10 + (uint64_t)(raw.p[j++] - '0');
    if (j == raw.n && j) return (uint32_t)v;
    char num[24];
    size_t k = raw.n < sizeof num - 1 ? raw.n : sizeof num - 1;
    memcpy(num, raw.p, k);
    num[k] = 0;
    return (uint32_t)strtoul(num, NULL, 10);
}

src_files *src_files_build(const ptx_module *m, arena *a)
{
    char cwd[4096];
    const char *at = getcwd(cwd, sizeof cwd); /* paths below it shown relative */
    src_files *sf = ARENA_NEW(a, src_files);
    uint32_t n = 0;
    for (uint32_t i = 0; i < m->nstmts; i++) n += m->stmts[i]->kind == PTX_S_FILE;
    sf->index = ARENA_NEWN(a, uint32_t, n ? n : 1);
    sf->path = ARENA_NEWN(a, char *, n ? n : 1);
    for (uint32_t i = 0; i < m->nstmts; i++) {
        const ptx_stmt *s = m->stmts[i];
        if (s->kind != PTX_S_FILE) continue;
        const ptx_dirinfo *d = s->u.dir;
        ptx_str nm = d->name;
        if (nm.n >= 2 && nm.p[0] == '"') nm.p++, nm.n -= 2;
        size_t skip = tc_shown_skip(nm.p, nm.n, at);
        nm.p += skip, nm.n -= skip;
        sf->index[sf->n] = file_index(d->raw);
        sf->path[sf->n] = arena_strndup(a, nm.p, nm.n);
        sf->n++;
    }
    return sf;
}

const char *src_file_name(const src_files *sf, uint32_t idx)
{
    for (uint32_t i = 0; i < sf->n; i++)
        if (sf->index[i] == idx) return sf->path[i];
    return NULL;
}

static const char *file_name(const src_files *sf, uint32_t idx)
{
    const char *p = src_file_name(sf, idx);
    return p ? p : "?";
}

/* The last .loc at or before statement `from` with this position. */
static int32_t find_loc(const ptx_func *fn, int32_t from, uint32_t file, uint32_t line, uint32_t col)
{
    for (int32_t i = from; i >= 0; i--) {
        const ptx_stmt *s = fn->stmts[i];
        if (s->kind == PTX_S_LOC && s->u.locinfo.file == file && s->u.locinfo.line == line &&
            s->u.locinfo.col == col)
            return i;
    }
    return -1;
}

void src_pos_of(const src_files *sf, const ptx_func *fn, uint32_t stmt, src_pos *out)
{
    memset(out, 0, sizeof *out);
    int32_t at = -1;
    for (int32_t i = (int32_t)stmt; i >= 0; i--)
        if (fn->stmts[i]->kind == PTX_S_LOC) {
            at = i;
            break;
        }
    if (at < 0 || !fn->stmts[at]->u.locinfo.line) return;
    /* positions[0] is the .loc's own; each call site follows */
    struct { uint32_t file, line, col; } pos[SRC_MAX_INLINE + 1];
    uint32_t np = 0;
    const ptx_locinfo *li = &fn->stmts[at]->u.locinfo;
    pos[np].file = li->file, pos[np].line = li->line, pos[np].col = li->col, np++;
    while (li->ia_file && np <= SRC_MAX_INLINE) {
        pos[np].file = li->ia_file, pos[np].line = li->ia_line, pos[np].col = li->ia_col, np++;
        int32_t k = find_loc(fn, at - 1, li->ia_file, li->ia_line, li->ia_col);
        if (k < 0) break;
        at = k;
        li = &fn->stmts[k]->u.locinfo;
    }
    out->file = file_name(sf, pos[np - 1].file);
    out->line = pos[np - 1].line;
    out->col = pos[np - 1].col;
    for (uint32_t i = 0; i + 1 < np; i++) {
        out->inl[out->ninl].file = file_name(sf, pos[i].file);
        out->inl[out->ninl].line = pos[i].line;
        out->inl[out->ninl].col = pos[i].col;
        out->ninl++;
    }
}

bool src_is_toolkit(const char *path)
{
    const char *inc = strstr(path, "/include/");
    if (!inc) return false;
    for (const char *p = path; p < inc; p++) {
        if (p != path && p[-1] != '/') continue;
        if (!strncmp(p, "cuda", 4) || !strncmp(p, "targets/", 8)) return true;
    }
    return false;
}

uint32_t src_chain(const src_pos *p, src_frame *chain, uint32_t *user)
{
    *user = 0;
    if (!p->file) return 0;
    uint32_t n = 0;
    for (uint32_t i = 0; i < p->ninl; i++) chain[n++] = (src_frame){p->inl[i].file, p->inl[i].line, p->inl[i].col};
    chain[n++] = (src_frame){p->file, p->line, p->col};
    *user = n - 1;
    for (uint32_t i = 0; i < n; i++)
        if (!src_is_toolkit(chain[i].file)) {
            *user = i;
            break;
        }
    return n;
}

bool src_user_frame(const src_files *sf, const ptx_func *fn, uint32_t stmt, src_frame *out)
{
    src_pos p;
    src_pos_of(sf, fn, stmt, &p);
    src_frame chain[SRC_MAX_INLINE + 1];
    uint32_t user;
    if (!src_chain(&p, chain, &user)) return false;
    *out = chain[user];
    return true;
}
