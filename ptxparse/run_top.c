/* Top-level items and declarations read by hand.
 *
 * Where the parser could shift T_TOP (at the top level, no reduction
 * pending, not in error recovery), the lexer lets ptx_b_top read the items
 * ahead, one after the other, while they have one of the shapes nvcc
 * writes:
 *
 *     .version M.m   .target a[, b...]   .address_size N
 *     .file N "path"[, N[, N]]
 *     .section .name { raw text }
 *     declarations (below)
 *
 * and ptx_run_decl reads a declaration, at the top level or in a body run
 * (build.c's ptx_b_run):
 *
 *     quals declarator {, declarator};
 *         quals: state spaces, linkage, types, .v2/.v4/.v8, .align N
 *         declarator: name[<N>]{[N] | []}[= init]
 *         init: a literal (decimal, 0x hex, 0f/0d), an identifier, or a
 *               { } list of those and of nested lists
 *
 * Every token is read exactly as flex would cut it (a word or number must be
 * followed by a byte that cannot continue it in any lexer rule), and the
 * item is built with the builder calls the grammar makes for it, in the
 * order bison reduces them, with the same tokens and positions, so the IR
 * and any message are the same.  A declaration is checked whole before the
 * builder sees any of it.  At the first thing a reader does not expect it
 * stops before that item and flex and bison read it: every syntax error
 * still comes from the grammar. */
#include <string.h>
#include "run.h"

/* Every dot-word the lexer has a rule for (lexer.l), besides types: a
 * .section name must be none of these (flex would not read it as a name). */
static const char *const lex_keywords[] = {
    ".version", ".target", ".address_size", ".file", ".loc", ".section", ".entry", ".func",
    ".function", ".visible", ".extern", ".weak", ".common", ".reg", ".sreg", ".global",
    ".shared", ".const", ".local", ".param", ".tex", ".v2", ".v4", ".v8", ".align", ".ptr",
    ".attribute", ".pragma", ".callprototype", ".calltargets", ".branchtargets", ".alias",
    ".maxntid", ".reqntid", ".minnctapersm", ".maxnctapersm", ".maxnreg", ".maxclusterrank",
    ".reqnctapercluster", ".explicitcluster", ".noreturn", ".blocksareclusters",
    ".abi_preserve", ".abi_preserve_control"};

static bool word_is(ptx_str w, const char *kw) { return strlen(kw) == w.n && memcmp(w.p, kw, w.n) == 0; }

static bool is_keyword(ptx_str w) {
    for (size_t i = 0; i < sizeof lex_keywords / sizeof *lex_keywords; i++)
        if (word_is(w, lex_keywords[i])) return true;
    return false;
}

/* A byte that ends a word or number token in every lexer rule: after it no
 * rule could have read a longer token. */
static inline bool tok_end(char c) {
    return CC(c, PTX_CC_BLANK) || c == '\n' || c == '\0' || c == '/' || c == ',' || c == ';' ||
           c == '}' || c == ']' || c == '>' || c == ')' || c == '{' || c == '[' || c == '<' || c == '=';
}

/* ".word" at p (flex's "."{ID}); its span, or n = 0. */
static ptx_str dot_word(const char *p) {
    if (p[0] != '.' || !CC(p[1], PTX_CC_ID0)) return (ptx_str){p, 0};
    const char *q = p + 2;
    while (CC(*q, PTX_CC_IDC)) q++;
    return (ptx_str){p, (uint32_t)(q - p)};
}

/* A decimal integer token with no leading 0 (which would make it octal),
 * or "0" alone; NULL if there is none or a longer token would be read. */
static const char *dec_tok(const char *p, ptx_str *t) {
    const char *q = p;
    if (*q == '0') q++;
    else
        while (CC(*q, PTX_CC_DIGIT)) q++;
    if (q == p || q - p > 18 || !tok_end(*q)) return NULL;
    *t = (ptx_str){p, (uint32_t)(q - p)};
    return q;
}

/* ---- declarations ---- */

typedef struct decl_rd {
    ptx_builder *b;
    run_pos r;
    bool build; /* second pass: the shape is known to be good, build it */
} decl_rd;

static inline void rd_skip(decl_rd *d) { ptx_run_skip(&d->r); }

/* A literal or identifier of an initialiser; false if it is another shape. */
static bool rd_init_atom(decl_rd *d) {
    const char *p = d->r.p, *q = p;
    ptx_loc at = run_loc(d->b, &d->r, p);
    int kind; /* 'i' integer, 'f' 0f/0d float, 's' symbol */
    if (p[0] == '0' && (p[1] | 0x20) == 'x') {
        for (q = p + 2; CC(*q, PTX_CC_HEX); q++) {}
        if (q == p + 2 || q - p > 18) return false;
        kind = 'i';
    } else if (p[0] == '0' && ((p[1] | 0x20) == 'f' || (p[1] | 0x20) == 'd')) {
        int nd = (p[1] | 0x20) == 'f' ? 8 : 16;
        for (q = p + 2; CC(*q, PTX_CC_HEX); q++) {}
        if (q - p - 2 != nd) return false;
        kind = 'f';
    } else if (CC(*p, PTX_CC_DIGIT)) {
        ptx_str t;
        if (!(q = dec_tok(p, &t))) return false;
        kind = 'i';
    } else if (CC(*p, PTX_CC_ID0)) {
        for (q = p + 1; CC(*q, PTX_CC_IDC); q++) {}
        kind = 's';
    } else {
        return false;
    }
    if (!tok_end(*q) || *q == '=' || *q == '{' || *q == '[' || *q == '<') return false;
    ptx_str t = {p, (uint32_t)(q - p)};
    d->r.p = q;
    rd_skip(d);
    /* an identifier followed by '(' or '=' is a call or key = value */
    if (*d->r.p != ',' && *d->r.p != '}' && *d->r.p != ';') return false;
    if (d->build) {
        ptx_builder *b = d->b;
        ptx_expr *e = kind == 'i' ? ptx_b_e_int(b, t, at) : kind == 'f' ? ptx_b_e_float(b, t, at) : ptx_b_e_sym(b, t, at);
        ptx_b_push_init(b, ptx_b_init_expr(b, e));
    }
    return true;
}

/* "{ init, ... }" (d->r.p at '{'), pushed as one list; depth bounds nesting. */
static bool rd_init_list(decl_rd *d, int depth) {
    if (depth > 8) return false;
    d->r.p++;
    rd_skip(d);
    uint32_t n = 0;
    if (*d->r.p != '}')
        for (;;) {
            if (*d->r.p == '{') {
                if (!rd_init_list(d, depth + 1)) return false;
            } else if (!rd_init_atom(d)) {
                return false;
            }
            n++;
            if (*d->r.p == '}') break;
            if (*d->r.p != ',') return false;
            d->r.p++;
            rd_skip(d);
        }
    d->r.p++;
    rd_skip(d);
    if (d->build) ptx_b_push_init(d->b, ptx_b_init_list(d->b, n));
    return true;
}

/* name[<N>]{[N] | []}[= init], then what follows skipped. */
static bool rd_declarator(decl_rd *d) {
    ptx_builder *b = d->b;
    const char *p = d->r.p, *n0 = p;
    if (*p == '%') {
        for (p++; CC(*p, PTX_CC_IDC); p++) {}
        if (p == n0 + 1) return false;
    } else if (CC(*p, PTX_CC_ID0)) {
        for (p++; CC(*p, PTX_CC_IDC); p++) {}
    } else {
        return false;
    }
    if (!tok_end(*p) || *p == '=' || *p == '{') return false;
    ptx_str name = {n0, (uint32_t)(p - n0)};
    ptx_loc nloc = run_loc(b, &d->r, n0);
    d->r.p = p;
    rd_skip(d);
    int64_t range = -1;
    if (*d->r.p == '<') {
        p = run_blanks(d->r.p + 1);
        ptx_str t;
        if (*p == '0' || !(p = dec_tok(p, &t))) return false;
        ptx_loc tloc = run_loc(b, &d->r, t.p);
        p = run_blanks(p);
        if (*p != '>' || p[1] == '>' || p[1] == '=') return false;
        if (d->build) range = ptx_b_range(b, t, tloc);
        d->r.p = p + 1;
        rd_skip(d);
    }
    uint32_t ndims = 0;
    while (*d->r.p == '[') {
        const char *lb = d->r.p;
        p = run_blanks(lb + 1);
        ptx_str t = {NULL, 0};
        ptx_loc tloc = run_loc(b, &d->r, lb);
        if (*p != ']') {
            if (*p == '0' || !(p = dec_tok(p, &t))) return false;
            tloc = run_loc(b, &d->r, t.p);
            p = run_blanks(p);
            if (*p != ']') return false;
        }
        if (d->build) ptx_b_push_dim(b, t, tloc);
        ndims++;
        d->r.p = p + 1;
        rd_skip(d);
    }
    ptx_init *init = NULL;
    if (*d->r.p == '=') {
        if (d->r.p[1] == '=') return false;
        d->r.p++;
        rd_skip(d);
        if (*d->r.p == '{') {
            if (!rd_init_list(d, 0)) return false;
        } else if (!rd_init_atom(d)) {
            return false;
        }
        if (d->build) init = b->istack.v[--b->istack.n];
    }
    if (d->build) ptx_b_declared(b, ptx_b_var(b, name, nloc, range, ndims, init));
    return true;
}

/* One pass over "quals declarators;" from d->r. */
static bool rd_decl(decl_rd *d) {
    ptx_builder *b = d->b;
    uint32_t nq = 0;
    while (*d->r.p == '.') {
        const char *p = d->r.p;
        ptx_str w = dot_word(p);
        if (!w.n || !tok_end(p[w.n]) || p[w.n] == '=' || p[w.n] == '[' || p[w.n] == '<' || p[w.n] == '{')
            return false;
        ptx_loc at = run_loc(b, &d->r, p);
        int k = 0;
        uint32_t v = 0;
        if (word_is(w, ".global")) k = 's', v = PTX_SP_GLOBAL;
        else if (word_is(w, ".shared")) k = 's', v = PTX_SP_SHARED;
        else if (word_is(w, ".const")) k = 's', v = PTX_SP_CONST;
        else if (word_is(w, ".local")) k = 's', v = PTX_SP_LOCAL;
        else if (word_is(w, ".reg")) k = 's', v = PTX_SP_REG;
        else if (word_is(w, ".param")) k = 's', v = PTX_SP_PARAM;
        else if (word_is(w, ".visible")) k = 'l', v = PTX_LINK_VISIBLE;
        else if (word_is(w, ".extern")) k = 'l', v = PTX_LINK_EXTERN;
        else if (word_is(w, ".weak")) k = 'l', v = PTX_LINK_WEAK;
        else if (word_is(w, ".common")) k = 'l', v = PTX_LINK_COMMON;
        else if (word_is(w, ".v2") || word_is(w, ".v4") || word_is(w, ".v8")) k = 'v', v = (uint32_t)(w.p[2] - '0');
        else if (word_is(w, ".align")) k = 'a';
        else if (!is_keyword(w) && (v = ptx_type_from_str(w)) != PTX_T_NONE) k = 't';
        else return false; /* .entry/.func, .ptr, .attribute, unknown words: the grammar */
        d->r.p = p + w.n;
        rd_skip(d);
        if (k == 'a') {
            ptx_str t;
            const char *q = d->r.p;
            if (*q == '0' || !(q = dec_tok(q, &t))) return false;
            if (d->build) ptx_b_qual(b, 'a', 0, t, run_loc(b, &d->r, t.p));
            d->r.p = q;
            rd_skip(d);
        } else if (d->build) {
            ptx_b_qual(b, k, v, (ptx_str){0, 0}, at);
        }
        nq++;
    }
    if (!nq) return false;
    for (;;) {
        if (!rd_declarator(d)) return false;
        if (*d->r.p == ';') break;
        if (*d->r.p != ',') return false;
        d->r.p++;
        rd_skip(d);
    }
    d->r.p++;
    return true;
}

bool ptx_run_decl(ptx_builder *b, run_pos *r) {
    decl_rd d = {b, *r, false};
    if (!rd_decl(&d)) return false;
    d = (decl_rd){b, *r, true};
    rd_decl(&d);
    *r = d.r;
    return true;
}

/* ---- top-level items ---- */

/* The matching '}' of a .section's text: the loop of the lexer's SECRAW
 * rules (see ptx_raw_block_scan in run.h). */
const char *ptx_raw_block_scan(const char *p, const char *end, uint32_t *linep, const char **lsp) {
    uint32_t line = *linep;
    const char *line_start = *lsp;
    /* the bytes that stop the plain scan; NUL too (the buffer ends in NULs) */
    static const unsigned char stop[256] = {[0] = 1, ['}'] = 1, ['\n'] = 1, ['/'] = 1, ['"'] = 1};
    for (; p < end; p++) {
        while (!stop[(unsigned char)*p]) p++;
        if (p >= end) break;
        char c = *p;
        if (c == '}') break;
        if (c == '\n') {
            line++;
            line_start = p + 1;
        } else if (c == '/' && p[1] == '/') {
            while (p + 1 < end && p[1] != '\n') p++;
        } else if (c == '/' && p[1] == '*') {
            const char *q = p + 2;
            while (q + 1 < end && !(q[0] == '*' && q[1] == '/')) q++;
            if (q + 1 >= end) continue; /* unclosed: a lone '/' */
            for (const char *s = p; s < q; s++)
                if (*s == '\n') {
                    line++;
                    line_start = s + 1;
                }
            p = q + 1;
        } else if (c == '"') {
            const char *q = p + 1;
            while (q < end && *q != '"' && *q != '\n') {
                if (*q == '\\') {
                    if (q + 1 >= end || q[1] == '\n') break;
                    q++;
                }
                q++;
            }
            if (q < end && *q == '"') p = q; /* else a lone '"' */
        }
    }
    if (p >= end) return NULL;
    *linep = line;
    *lsp = line_start;
    return p;
}

/* The end of a string token at p ('"'), as the lexer's rule reads it; NULL
 * if it is not closed on its line. */
static const char *string_end(const char *p) {
    for (p++; *p != '"'; p++) {
        if (*p == '\n' || *p == '\0') return NULL;
        if (*p == '\\') {
            if (p[1] == '\n' || p[1] == '\0') return NULL;
            p++;
        }
    }
    return p + 1;
}

/* ".version M.m": the number as T_FLOAT reads it, digits '.' digits. */
static bool top_version(ptx_builder *b, run_pos *r, ptx_str w) {
    run_pos t = *r;
    t.p += w.n;
    ptx_run_skip(&t);
    const char *p = t.p, *q = p;
    while (CC(*q, PTX_CC_DIGIT)) q++;
    if (q == p || *q != '.' || !CC(q[1], PTX_CC_DIGIT)) return false;
    for (q++; CC(*q, PTX_CC_DIGIT); q++) {}
    if (!tok_end(*q) || *q == '[' || *q == '<' || *q == '{' || *q == '=') return false;
    ptx_b_version(b, (ptx_str){p, (uint32_t)(q - p)}, run_loc(b, &t, p));
    t.p = q;
    *r = t;
    return true;
}

/* ".target a, b": identifiers as T_IDENT reads them. */
static bool top_target(ptx_builder *b, run_pos *r, ptx_str w) {
    enum { MAXN = 8 };
    ptx_str ids[MAXN];
    uint32_t n = 0;
    ptx_loc at = run_loc(b, r, r->p);
    run_pos t = *r;
    t.p += w.n;
    for (;;) {
        ptx_run_skip(&t);
        const char *p = t.p, *q = p;
        if (!CC(*q, PTX_CC_ID0) || n == MAXN) return false;
        while (CC(*q, PTX_CC_IDC)) q++;
        if (!tok_end(*q) || *q == '[' || *q == '<' || *q == '{' || *q == '=') return false;
        ids[n++] = (ptx_str){p, (uint32_t)(q - p)};
        t.p = q;
        run_pos u = t;
        ptx_run_skip(&u);
        if (*u.p != ',') break;
        t = u;
        t.p++;
    }
    for (uint32_t i = 0; i < n; i++) ptx_b_push_str(b, ids[i]);
    ptx_b_target(b, n, at);
    *r = t;
    return true;
}

/* ".address_size N". */
static bool top_address_size(ptx_builder *b, run_pos *r, ptx_str w) {
    ptx_loc at = run_loc(b, r, r->p);
    run_pos t = *r;
    t.p += w.n;
    ptx_run_skip(&t);
    ptx_str v;
    const char *q = dec_tok(t.p, &v);
    if (!q || *q == '[' || *q == '<' || *q == '{' || *q == '=') return false;
    ptx_b_address_size(b, v, at, run_loc(b, &t, v.p));
    t.p = q;
    *r = t;
    return true;
}

/* ".file N "path"[, N...]". */
static bool top_file(ptx_builder *b, run_pos *r, ptx_str w) {
    enum { MAXX = 4 };
    ptx_str idx, path, extra[MAXX];
    uint32_t n = 0;
    ptx_loc at = run_loc(b, r, r->p);
    run_pos t = *r;
    t.p += w.n;
    ptx_run_skip(&t);
    const char *q = dec_tok(t.p, &idx);
    if (!q || *q == '[' || *q == '<' || *q == '{' || *q == '=') return false;
    t.p = q;
    ptx_run_skip(&t);
    if (*t.p != '"' || !(q = string_end(t.p))) return false;
    path = (ptx_str){t.p, (uint32_t)(q - t.p)};
    t.p = q;
    for (;;) {
        run_pos u = t;
        ptx_run_skip(&u);
        if (*u.p != ',') break;
        u.p++;
        ptx_run_skip(&u);
        if (n == MAXX || !(q = dec_tok(u.p, &extra[n])) || *q == '[' || *q == '<' || *q == '{' || *q == '=')
            return false;
        n++;
        u.p = q;
        t = u;
    }
    for (uint32_t i = 0; i < n; i++) ptx_b_push_str(b, extra[i]);
    ptx_b_file(b, idx, path, n, at);
    *r = t;
    return true;
}

/* ".section .name { text }". */
static bool top_section(ptx_builder *b, run_pos *r, ptx_str w) {
    ptx_loc at = run_loc(b, r, r->p);
    run_pos t = *r;
    t.p += w.n;
    ptx_run_skip(&t);
    ptx_str name = dot_word(t.p);
    if (!name.n || is_keyword(name) || ptx_type_from_str(name) != PTX_T_NONE) return false;
    char c = t.p[name.n];
    if (!CC(c, PTX_CC_BLANK) && c != '\n' && c != '{' && c != '/') return false;
    t.p += name.n;
    ptx_run_skip(&t);
    if (*t.p != '{') return false;
    const char *raw = t.p + 1;
    const char *close = ptx_raw_block_scan(raw, b->ls.buf + b->ls.len, &t.line, &t.line_start);
    if (!close) return false; /* unterminated: the lexer reports it */
    ptx_b_section(b, name, (ptx_str){raw, (uint32_t)(close - raw)}, at);
    t.p = close + 1;
    *r = t;
    return true;
}

uint32_t ptx_b_top(ptx_builder *b, const char *start, const char **end, int *sol) {
    run_pos r = {start, b->ls.line_start, b->ls.line};
    uint32_t n = 0;
    int semi = 0;
    ptx_run_skip(&r);
    while (!b->ls.stop && *r.p == '.') {
        ptx_str w = dot_word(r.p);
        if (!w.n || !tok_end(r.p[w.n])) break;
        bool ok;
        if (word_is(w, ".version")) ok = top_version(b, &r, w);
        else if (word_is(w, ".target")) ok = top_target(b, &r, w);
        else if (word_is(w, ".address_size")) ok = top_address_size(b, &r, w);
        else if (word_is(w, ".file")) ok = top_file(b, &r, w);
        else if (word_is(w, ".section")) ok = top_section(b, &r, w);
        else ok = ptx_run_decl(b, &r);
        if (!ok) break;
        semi = r.p[-1] == ';';
        n++;
        ptx_run_skip(&r);
    }
    if (!n) {
        *end = start;
        return 0;
    }
    b->ls.line = r.line;
    b->ls.line_start = r.line_start;
    *end = r.p;
    *sol = semi;
    return n;
}
