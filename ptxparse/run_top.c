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
#include <stdlib.h>
#include <string.h>
#include "run.h"

/* Every dot-word the lexer has a rule for (lexer.l), with what a
 * declaration makes of it: 's' state space, 'l' linkage, 'v' vector, 'a'
 * .align, 'k' anything else (never a type, never a .section name). */
typedef struct kw {
    const char *s;
    uint8_t n, cls, val, fdir; /* fdir: read by the lexer's T_FDIR rule */
} kw;
#define KW(s, c, v) {s, sizeof s - 1, c, v, 0}
#define FDIR(s) {s, sizeof s - 1, 'k', 0, 1}
static const kw lex_keywords[] = {
    KW(".global", 's', PTX_SP_GLOBAL), KW(".shared", 's', PTX_SP_SHARED), KW(".const", 's', PTX_SP_CONST),
    KW(".local", 's', PTX_SP_LOCAL), KW(".reg", 's', PTX_SP_REG), KW(".param", 's', PTX_SP_PARAM),
    KW(".sreg", 's', PTX_SP_SREG), KW(".tex", 's', PTX_SP_TEX),
    KW(".visible", 'l', PTX_LINK_VISIBLE), KW(".extern", 'l', PTX_LINK_EXTERN),
    KW(".weak", 'l', PTX_LINK_WEAK), KW(".common", 'l', PTX_LINK_COMMON),
    KW(".v2", 'v', 2), KW(".v4", 'v', 4), KW(".v8", 'v', 8), KW(".align", 'a', 0),
    KW(".version", 'k', 0), KW(".target", 'k', 0), KW(".address_size", 'k', 0), KW(".file", 'k', 0),
    KW(".loc", 'k', 0), KW(".section", 'k', 0), KW(".entry", 'k', 0), KW(".func", 'k', 0),
    KW(".function", 'k', 0), KW(".ptr", 'k', 0), KW(".attribute", 'k', 0), KW(".pragma", 'k', 0),
    KW(".callprototype", 'k', 0), KW(".calltargets", 'k', 0), KW(".branchtargets", 'k', 0),
    KW(".alias", 'k', 0), FDIR(".maxntid"), FDIR(".reqntid"), FDIR(".minnctapersm"),
    FDIR(".maxnctapersm"), FDIR(".maxnreg"), FDIR(".maxclusterrank"), FDIR(".reqnctapercluster"),
    FDIR(".explicitcluster"), FDIR(".noreturn"), FDIR(".blocksareclusters"), FDIR(".abi_preserve"),
    FDIR(".abi_preserve_control")};

static inline bool same(const char *a, const char *b, uint32_t n) {
    for (uint32_t i = 0; i < n; i++)
        if (a[i] != b[i]) return false;
    return true;
}

/* The keyword w is, or NULL.  The entries are tried by length (the lists
 * below are lex_keywords' indices for each length); an index out of step
 * with the table can only make a keyword missed, and a missed keyword makes
 * the readers leave the item to the grammar. */
static const kw *keyword(ptx_str w) {
    static const uint8_t none[] = {255};
    static const uint8_t l3[] = {12, 13, 14, 255};
    static const uint8_t l4[] = {4, 7, 20, 25, 255};
    static const uint8_t l5[] = {6, 10, 19, 23, 255};
    static const uint8_t l6[] = {2, 3, 5, 15, 22, 31, 255};
    static const uint8_t l7[] = {0, 1, 9, 11, 17, 27, 255};
    static const uint8_t l8[] = {8, 16, 21, 32, 33, 36, 255};
    static const uint8_t l9[] = {24, 40, 255};
    static const uint8_t l10[] = {26, 255};
    static const uint8_t l12[] = {29, 255};
    static const uint8_t l13[] = {18, 34, 35, 42, 255};
    static const uint8_t l14[] = {28, 30, 255};
    static const uint8_t l15[] = {37, 255};
    static const uint8_t l16[] = {39, 255};
    static const uint8_t l18[] = {38, 41, 255};
    static const uint8_t l21[] = {43, 255};
    const uint8_t *c;
    switch (w.n) {
    case 3: c = l3; break;
    case 4: c = l4; break;
    case 5: c = l5; break;
    case 6: c = l6; break;
    case 7: c = l7; break;
    case 8: c = l8; break;
    case 9: c = l9; break;
    case 10: c = l10; break;
    case 12: c = l12; break;
    case 13: c = l13; break;
    case 14: c = l14; break;
    case 15: c = l15; break;
    case 16: c = l16; break;
    case 18: c = l18; break;
    case 21: c = l21; break;
    default: c = none; break;
    }
    for (; *c != 255; c++) {
        const kw *k = &lex_keywords[*c];
        if (k->n == w.n && k->s[1] == w.p[1] && same(k->s + 2, w.p + 2, w.n - 2)) return k;
    }
    return NULL;
}

static bool word_is(ptx_str w, const char *s, uint32_t n) { return w.n == n && same(w.p, s, n); }
#define WORD_IS(w, s) word_is(w, s, sizeof s - 1)

/* A byte that ends a word or number token in every lexer rule: after it no
 * rule could have read a longer token. */
static inline bool tok_end(char c) {
    return CC(c, PTX_CC_BLANK) || c == '\n' || c == '\0' || c == '/' || c == ',' || c == ';' ||
           c == '}' || c == ']' || c == '>' || c == ')' || c == '{' || c == '[' || c == '<' || c == '=' ||
           c == '(';
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

/* The builder calls of an item, recorded while it is read and made only
 * once the whole item has been read (an item left to the grammar must leave
 * no trace), in the order bison's reductions make them. */
enum { A_QUAL, A_RANGE, A_DIM, A_INT, A_FLOAT, A_SYM, A_LIST, A_VAR, A_FUNC, A_RETS, A_PARAMS, A_STR,
       A_FDIR, A_NOBODY, A_END, A_HEAD };
struct ptx_act {
    uint8_t op, k; /* k: qualifier kind; A_VAR: 1 has an initialiser, 2 a parameter; A_FUNC: 1 .entry, 2 quals */
    uint32_t v;
    ptx_str s;
    ptx_loc loc;
};

typedef struct decl_rd {
    ptx_builder *b;
    run_pos r;
    bool param; /* parameters: pushed for the signature, not declared */
    bool full;  /* the action list hit its bound: give the item to the grammar */
} decl_rd;

/* Items larger than this (long initialisers) are left to the grammar. */
#define MAX_ACTS 4096

static void emit(decl_rd *d, int op, int k, uint32_t v, ptx_str s, ptx_loc loc) {
    ptx_builder *b = d->b;
    if (b->acts.n == b->acts.cap) {
        if (b->acts.cap >= MAX_ACTS) {
            d->full = true;
            return;
        }
        uint32_t nc = b->acts.cap ? b->acts.cap * 2 : 64;
        struct ptx_act *nv = realloc(b->acts.v, nc * sizeof *nv);
        if (!nv) {
            d->full = true;
            return;
        }
        b->acts.v = nv;
        b->acts.cap = nc;
    }
    b->acts.v[b->acts.n++] = (struct ptx_act){(uint8_t)op, (uint8_t)k, v, s, loc};
}

/* Makes the recorded calls from index from on, then forgets them.  A_FUNC's
 * function is returned (a declaration's or a definition's header). */
static ptx_func *replay(ptx_builder *b, uint32_t from) {
    ptx_func *f = NULL;
    int64_t range = -1;
    for (uint32_t i = from; i < b->acts.n; i++) {
        const struct ptx_act *a = &b->acts.v[i];
        switch (a->op) {
        case A_QUAL: ptx_b_qual(b, a->k, a->v, a->s, a->loc); break;
        case A_RANGE: range = ptx_b_range(b, a->s, a->loc); break;
        case A_DIM: ptx_b_push_dim(b, a->s, a->loc); break;
        case A_INT: ptx_b_push_init(b, ptx_b_init_expr(b, ptx_b_e_int(b, a->s, a->loc))); break;
        case A_FLOAT: ptx_b_push_init(b, ptx_b_init_expr(b, ptx_b_e_float(b, a->s, a->loc))); break;
        case A_SYM: ptx_b_push_init(b, ptx_b_init_expr(b, ptx_b_e_sym(b, a->s, a->loc))); break;
        case A_LIST: ptx_b_push_init(b, ptx_b_init_list(b, a->v)); break;
        case A_VAR: {
            ptx_init *init = (a->k & 1) ? b->istack.v[--b->istack.n] : NULL;
            ptx_var *v = ptx_b_var(b, a->s, a->loc, range, a->v, init);
            range = -1;
            if (a->k & 2) ptx_b_push_var(b, v);
            else ptx_b_declared(b, v);
            break;
        }
        case A_FUNC: f = ptx_b_func_begin(b, (a->k & 2) ? &b->tmpl : NULL, a->k & 1, a->loc); break;
        case A_RETS: ptx_b_sig_rets(b, a->v, a->loc); break;
        case A_PARAMS: ptx_b_sig_params(b, a->v, a->loc); break;
        case A_STR: ptx_b_push_str(b, a->s); break;
        case A_FDIR: ptx_b_fdir(b, a->s, a->v, a->loc); break;
        case A_NOBODY: ptx_b_no_body(b); break;
        case A_END: ptx_b_func_end(b, f, a->s, a->loc); break;
        case A_HEAD:
            b->fhead_name = a->s;
            b->fhead_loc = a->loc;
            break;
        }
    }
    b->acts.n = from;
    return f;
}

#define NOSTR ((ptx_str){NULL, 0})
#define NOLOC ((ptx_loc){0, 0, 0})

/* Blanks, line ends and comments; most tokens are followed by none or one
 * blank, so the common cases do not call ptx_run_skip. */
static inline void rd_skip(decl_rd *d) {
    const char *p = d->r.p;
    if (*p == ' ') p++;
    if (CC(*p, PTX_CC_BLANK) || *p == '\n' || *p == '/') {
        d->r.p = p;
        ptx_run_skip(&d->r);
    } else {
        d->r.p = p;
    }
}

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
    emit(d, kind == 'i' ? A_INT : kind == 'f' ? A_FLOAT : A_SYM, 0, 0, t, at);
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
    emit(d, A_LIST, 0, n, NOSTR, NOLOC);
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
    if (*d->r.p == '<') {
        p = run_blanks(d->r.p + 1);
        ptx_str t;
        if (*p == '0' || !(p = dec_tok(p, &t))) return false;
        ptx_loc tloc = run_loc(b, &d->r, t.p);
        p = run_blanks(p);
        if (*p != '>' || p[1] == '>' || p[1] == '=') return false;
        emit(d, A_RANGE, 0, 0, t, tloc);
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
        emit(d, A_DIM, 0, 0, t, tloc);
        ndims++;
        d->r.p = p + 1;
        rd_skip(d);
    }
    int has_init = 0;
    if (*d->r.p == '=') {
        if (d->r.p[1] == '=') return false;
        d->r.p++;
        rd_skip(d);
        if (*d->r.p == '{') {
            if (!rd_init_list(d, 0)) return false;
        } else if (!rd_init_atom(d)) {
            return false;
        }
        has_init = 1;
    }
    emit(d, A_VAR, has_init | (d->param ? 2 : 0), ndims, name, nloc);
    return true;
}

/* The qualifiers of a declaration or parameter; false if there are none or
 * one is not for this reader. */
static bool rd_quals(decl_rd *d) {
    ptx_builder *b = d->b;
    uint32_t nq = 0;
    while (*d->r.p == '.') {
        const char *p = d->r.p;
        ptx_str w = dot_word(p);
        if (!w.n || !tok_end(p[w.n]) || p[w.n] == '=' || p[w.n] == '[' || p[w.n] == '<' || p[w.n] == '{' ||
            p[w.n] == '(')
            return false;
        ptx_loc at = run_loc(b, &d->r, p);
        const kw *kk = keyword(w);
        int k = kk ? kk->cls : 't';
        uint8_t tv = 0; /* the tables are set up: parse_owned calls ptx_tables_init */
        uint32_t v = kk ? kk->val : ptx_mod_classify(w.p, w.n, &tv) == PTX_MOD_TYPE ? tv : PTX_T_NONE;
        /* .entry/.func, .ptr, .attribute, unknown words: the grammar */
        if (k == 'k' || (k == 't' && v == PTX_T_NONE)) return false;
        d->r.p = p + w.n;
        rd_skip(d);
        if (k == 'a') {
            ptx_str t;
            const char *q = d->r.p;
            if (*q == '0' || !(q = dec_tok(q, &t)) || *q == '(') return false;
            emit(d, A_QUAL, 'a', 0, t, run_loc(b, &d->r, t.p));
            d->r.p = q;
            rd_skip(d);
        } else {
            emit(d, A_QUAL, k, v, NOSTR, at);
        }
        nq++;
    }
    return nq > 0;
}

/* One pass over "quals declarators;" from d->r. */
static bool rd_decl(decl_rd *d) {
    if (!rd_quals(d)) return false;
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

/* "( quals declarator, ... )" from d->r (at the '('), each parameter pushed
 * as the grammar's param_list does; the count, or -1. */
static int rd_params(decl_rd *d) {
    if (*d->r.p != '(') return -1;
    d->r.p++;
    rd_skip(d);
    int n = 0;
    if (*d->r.p != ')')
        for (;;) {
            if (!rd_quals(d) || !rd_declarator(d)) return -1;
            n++;
            if (*d->r.p == ')') break;
            if (*d->r.p != ',') return -1;
            d->r.p++;
            rd_skip(d);
        }
    d->r.p++;
    return n;
}

/* The parameter reader as it was before the general one below: plain
 * ".param .type name" entries, blanks and line ends between them.  It is
 * used while the lexer is inside a .section directive left open by an
 * earlier error (ls.section != 0: flex would read the next dot-word as the
 * section's name), where the general reader would take lists that the
 * grammar then reports differently; with it, such inputs get the same
 * messages as before. */
static int params_plain(ptx_builder *b, const char *start, const char **end, ptx_loc *at) {
    run_pos r = {start, b->ls.line_start, b->ls.line};
    const char *p = start;
    int n = 0;
    /* the whole list is checked first: the builder sees it only if it is all plain */
    for (int pass = 0; pass < 2; pass++) {
        r = (run_pos){start, b->ls.line_start, b->ls.line};
        for (p = start; CC(*p, PTX_CC_BLANK) || *p == '\n'; p++)
            if (*p == '\n') r.line++, r.line_start = p + 1;
        if (*p != '(') return -1;
        if (pass) *at = run_loc(b, &r, p);
        n = 0;
        for (p++;;) {
            for (; CC(*p, PTX_CC_BLANK) || *p == '\n'; p++)
                if (*p == '\n') r.line++, r.line_start = p + 1;
            if (*p == ')' && n == 0) {
                p++;
                break;
            }
            if (strncmp(p, ".param", 6) != 0 || !CC(p[6], PTX_CC_BLANK)) return -1;
            const char *sp = p, *t = p = run_blanks(p + 6);
            if (*p != '.') return -1;
            for (p++; CC(*p, PTX_CC_IDC); p++) {}
            ptx_type ty = ptx_type_from_str((ptx_str){t, (uint32_t)(p - t)});
            if (ty == PTX_T_NONE || !CC(*p, PTX_CC_BLANK)) return -1;
            const char *nm = p = run_blanks(p);
            if (!CC(*p, PTX_CC_ID0)) return -1;
            while (CC(*p, PTX_CC_IDC)) p++;
            if (pass) { /* pass 0 found the whole list plain */
                ptx_b_qual(b, 's', PTX_SP_PARAM, (ptx_str){0, 0}, run_loc(b, &r, sp));
                ptx_b_qual(b, 't', ty, (ptx_str){0, 0}, run_loc(b, &r, t));
                ptx_b_push_var(b, ptx_b_var(b, (ptx_str){nm, (uint32_t)(p - nm)}, run_loc(b, &r, nm), -1, 0, NULL));
            }
            const char *e = p;
            for (; CC(*e, PTX_CC_BLANK) || *e == '\n'; e++)
                if (*e == '\n') r.line++, r.line_start = e + 1;
            if (*e != ',' && *e != ')') return -1;
            n++;
            p = e + 1;
            if (*e == ')') break;
        }
    }
    b->ls.line = r.line;
    b->ls.line_start = r.line_start;
    *end = p;
    return n;
}

/* A parameter list where the parser could shift T_PARAMS (see lexer.l):
 * checked whole, then built with the grammar's calls.  Returns the number
 * of parameters, or -1 (nothing done) for a shape left to the grammar. */
int ptx_b_params(ptx_builder *b, const char *start, const char **end, ptx_loc *at) {
    if (b->ls.section) return params_plain(b, start, end, at);
    run_pos r0 = {start, b->ls.line_start, b->ls.line};
    ptx_run_skip(&r0);
    uint32_t mark = b->acts.n;
    decl_rd d = {b, r0, true, false};
    int n = rd_params(&d);
    if (n < 0 || d.full) {
        b->acts.n = mark;
        return -1;
    }
    *at = run_loc(b, &r0, r0.p);
    replay(b, mark);
    b->ls.line = d.r.line;
    b->ls.line_start = d.r.line_start;
    *end = d.r.p;
    return n;
}

bool ptx_run_decl(ptx_builder *b, run_pos *r) {
    /* inside a .section left open by an error, flex reads the next dot-word
     * as its name: the grammar reads the declaration */
    if (b->ls.section) return false;
    uint32_t mark = b->acts.n;
    decl_rd d = {b, *r, false, false};
    if (!rd_decl(&d) || d.full) {
        b->acts.n = mark;
        return false;
    }
    replay(b, mark);
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
    if (!name.n || keyword(name) || ptx_type_from_str(name) != PTX_T_NONE) return false;
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

/* A function header, "linkage... (.entry | .func) [(rets)] name [(params)]
 * [performance directives]", followed by '{' (a definition: d->r is left at
 * the '{', which the grammar reads, returns 1) or by ';' (a declaration,
 * complete, returns 0); -1 for any other shape.  The calls are the grammar's
 * func_begin, sig_rets, sig_params, fdir and, for a declaration, no_body and
 * func_end; for a definition the lexer hands the function over as T_FHEAD
 * and the grammar calls func_end after the body. */
static int rd_func(decl_rd *d) {
    ptx_builder *b = d->b;
    bool quals = false;
    ptx_str w;
    const kw *k;
    for (;;) {
        w = dot_word(d->r.p);
        if (!w.n || !tok_end(d->r.p[w.n]) || !(k = keyword(w))) return -1;
        if (k->cls != 'l') break;
        emit(d, A_QUAL, 'l', k->val, NOSTR, run_loc(b, &d->r, d->r.p));
        quals = true;
        d->r.p += w.n;
        rd_skip(d);
    }
    int is_entry = WORD_IS(w, ".entry");
    if (!is_entry && !WORD_IS(w, ".func") && !WORD_IS(w, ".function")) return -1;
    emit(d, A_FUNC, is_entry | (quals ? 2 : 0), 0, NOSTR, run_loc(b, &d->r, d->r.p));
    d->r.p += w.n;
    rd_skip(d);
    if (*d->r.p == '(') {
        ptx_loc at = run_loc(b, &d->r, d->r.p);
        int n = rd_params(d);
        if (n < 0) return -1;
        emit(d, A_RETS, 0, (uint32_t)n, NOSTR, at);
        rd_skip(d);
    }
    const char *nm = d->r.p, *p = nm;
    if (!CC(*p, PTX_CC_ID0)) return -1;
    while (CC(*p, PTX_CC_IDC)) p++;
    if (!tok_end(*p) || *p == '[' || *p == '<' || *p == '{' || *p == '=') return -1;
    ptx_str name = {nm, (uint32_t)(p - nm)};
    ptx_loc nloc = run_loc(b, &d->r, nm);
    d->r.p = p;
    rd_skip(d);
    if (*d->r.p == '(') {
        ptx_loc at = run_loc(b, &d->r, d->r.p);
        int n = rd_params(d);
        if (n < 0) return -1;
        emit(d, A_PARAMS, 0, (uint32_t)n, NOSTR, at);
        rd_skip(d);
    }
    /* performance directives: a keyword of the lexer's T_FDIR rule, then
     * integers separated by commas */
    while (*d->r.p == '.') {
        w = dot_word(d->r.p);
        if (!w.n || !tok_end(d->r.p[w.n]) || !(k = keyword(w)) || k->cls != 'k' || !k->fdir) return -1;
        ptx_loc at = run_loc(b, &d->r, d->r.p);
        d->r.p += w.n;
        rd_skip(d);
        uint32_t n = 0;
        ptx_str v[4];
        while (CC(*d->r.p, PTX_CC_DIGIT)) {
            const char *q = dec_tok(d->r.p, &v[n]);
            if (!q || *q == '(' || *q == '[' || *q == '<' || *q == '{' || *q == '=') return -1;
            d->r.p = q;
            rd_skip(d);
            if (++n == 4) return -1;
            if (*d->r.p != ',') break;
            d->r.p++;
            rd_skip(d);
            if (!CC(*d->r.p, PTX_CC_DIGIT)) return -1;
        }
        for (uint32_t i = 0; i < n; i++) emit(d, A_STR, 0, 0, v[i], NOLOC);
        emit(d, A_FDIR, 0, n, w, at);
    }
    if (*d->r.p == '{') {
        emit(d, A_HEAD, 0, 0, name, nloc);
        return 1;
    }
    if (*d->r.p != ';') return -1;
    d->r.p++;
    emit(d, A_NOBODY, 0, 0, NOSTR, NOLOC);
    emit(d, A_END, 0, 0, name, nloc);
    return 0;
}

uint32_t ptx_b_top(ptx_builder *b, const char *start, const char **end, int *sol, ptx_func **fhead) {
    run_pos r = {start, b->ls.line_start, b->ls.line};
    uint32_t n = 0;
    int semi = 0;
    *fhead = NULL;
    ptx_run_skip(&r);
    while (!b->ls.stop && *r.p == '.') {
        ptx_str w = dot_word(r.p);
        if (!w.n || !tok_end(r.p[w.n])) break;
        bool ok;
        if (WORD_IS(w, ".version")) ok = top_version(b, &r, w);
        else if (WORD_IS(w, ".target")) ok = top_target(b, &r, w);
        else if (WORD_IS(w, ".address_size")) ok = top_address_size(b, &r, w);
        else if (WORD_IS(w, ".file")) ok = top_file(b, &r, w);
        else if (WORD_IS(w, ".section")) ok = top_section(b, &r, w);
        else if (ptx_run_decl(b, &r)) ok = true;
        else {
            uint32_t mark = b->acts.n;
            decl_rd d = {b, r, true, false};
            int kind = rd_func(&d);
            /* a definition's header is a token of its own (T_FHEAD): only
             * where nothing has been read before it */
            if (kind < 0 || d.full || (kind == 1 && (n || !b->ls.fhead_ok))) {
                b->acts.n = mark;
                /* read again by the next call, as that call's first item */
                if (kind == 1 && !d.full && n) b->ls.top_again = 1;
                break;
            }
            ptx_func *f = replay(b, mark);
            r = d.r;
            if (kind == 1) {
                *fhead = f;
                n++;
                break;
            }
            ok = true;
        }
        if (!ok) break;
        const char *after = r.p;
        n++;
        ptx_run_skip(&r);
        /* the lexer's ';' takes the blanks and one line end after it, and
         * the next token starts a statement only if nothing else (another
         * line end, a comment) came between */
        const char *q = run_blanks(after);
        if (*q == '\n') q = run_blanks(q + 1);
        semi = after[-1] == ';' && q == r.p;
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
