/* Grammar actions: build the IR and check what needs context (declared
 * registers and their scopes, guard types, duplicate labels, literal ranges). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "build.h"

#define VPUSH(vec, x)                                                              \
    do {                                                                           \
        if ((vec).n == (vec).cap) {                                                \
            uint32_t nc_ = (vec).cap ? (vec).cap * 2 : 16;                         \
            void *nv_ = realloc((vec).v, (size_t)nc_ * sizeof *(vec).v);           \
            if (!nv_) ptx_oom();                                                   \
            (vec).v = nv_;                                                         \
            (vec).cap = nc_;                                                       \
        }                                                                          \
        (vec).v[(vec).n++] = (x);                                                  \
    } while (0)

/* memcpy with a NULL source is undefined even for 0 bytes; empty scratch
 * stacks have never been allocated. */
static inline void copy_n(void *dst, const void *src, size_t bytes) {
    if (bytes) memcpy(dst, src, bytes);
}

/* n items of sz bytes copied into the arena (one zeroed item for n = 0). */
static inline void *dup_n(arena *a, const void *src, uint32_t n, size_t sz) {
    void *d = n ? arena_alloc(a, n * sz) : arena_zalloc(a, sz);
    copy_n(d, src, n * sz);
    return d;
}

/* The top n items of a scratch stack (v, *top), moved into the arena. */
static inline void *pop_n(arena *a, const void *v, uint32_t *top, uint32_t n, size_t sz) {
    *top -= n;
    return dup_n(a, n ? (const char *)v + (size_t)*top * sz : v, n, sz); /* v: NULL while never pushed */
}

static void ptx_oom(void) {
    fputs("ptxray: fatal: out of memory\n", stderr);
    abort();
}

/* ---- diagnostics ---- */
static void vdiag(ptx_builder *b, ptx_diag_severity sev, ptx_loc loc, const char *fmt, va_list ap) {
    char buf[512];
    vsnprintf(buf, sizeof buf, fmt, ap);
    ptx_diag_add(b->d, sev, loc, "%s", buf);
    if (b->d->nerrors >= b->d->max_errors && !b->ls.stop) {
        b->ls.stop = 1;
        b->d->truncated = 1;
    }
}

void ptx_b_error(ptx_builder *b, ptx_loc loc, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vdiag(b, PTX_DIAG_ERROR, loc, fmt, ap);
    va_end(ap);
}

void ptx_lex_error(struct ptx_lexstate *ls, const ptx_loc *loc, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vdiag(ls->b, PTX_DIAG_ERROR, *loc, fmt, ap);
    va_end(ap);
}

static void unquote(char *dst, size_t cap, const char *name) {
    size_t n = strlen(name);
    if (n >= 2 && name[0] == '"' && name[n - 1] == '"') {
        name++;
        n -= 2;
    }
    if (n >= cap) n = cap - 1;
    memcpy(dst, name, n);
    dst[n] = 0;
}

void ptx_b_syntax_error(ptx_builder *b, ptx_loc loc, const char *got, int at_eof, int nexp,
                        const char **exp) {
    char msg[400], tok[48], g[48];
    if (b->ls.stop) return; /* the input was cut short on purpose after an error */
    size_t k;
    if (at_eof) {
        k = (size_t)snprintf(msg, sizeof msg, "unexpected end of file");
    } else {
        unquote(g, sizeof g, got);
        if (ptx_lex_token_text(&b->ls, loc, tok, sizeof tok) && strcmp(tok, g) != 0 && g[0] != '\'')
            k = (size_t)snprintf(msg, sizeof msg, "unexpected %s '%s'", g, tok);
        else
            k = (size_t)snprintf(msg, sizeof msg, "unexpected %s", g);
    }
    if (nexp > 0 && k < sizeof msg) {
        k += (size_t)snprintf(msg + k, sizeof msg - k, ", expected ");
        for (int i = 0; i < nexp && k < sizeof msg; i++) {
            char e[48];
            unquote(e, sizeof e, exp[i]);
            k += (size_t)snprintf(msg + k, sizeof msg - k, "%s%s", i == 0 ? "" : (i == nexp - 1 ? " or " : ", "), e);
        }
    }
    ptx_b_error(b, loc, "%s", msg);
}

/* ---- small helpers ---- */
static ptx_stmt *new_stmt(ptx_builder *b, int kind, ptx_loc loc) {
    size_t n = ptx_stmt_bytes((unsigned)kind); /* ir.h: a statement has its kind's bytes */
    ptx_stmt *s = arena_alloc(b->a, n);
    memset(s, 0, n);
    s->kind = (uint8_t)kind;
    s->loc = loc;
    return s;
}

/* Does an operand name a symbol (directly or inside an aggregate or a
 * constant expression)? */
static bool opd_names(const ptx_operand *o) {
    switch (o->kind) {
    case PTX_O_SYM: case PTX_O_EXPR: return true;
    case PTX_O_ADDR: case PTX_O_VEC: case PTX_O_PAIR: case PTX_O_LIST:
        for (uint32_t i = 0; i < o->n; i++)
            if (opd_names(&o->p.elems[i])) return true;
        return false;
    default: return false;
    }
}

static void add_stmt(ptx_builder *b, ptx_stmt *s) {
    if (!b->in_body) {
        VPUSH(b->top, s);
        return;
    }
    VPUSH(b->body, s);
    bool named;
    switch (s->kind) {
    case PTX_S_LABEL: case PTX_S_VAR: case PTX_S_PROTO: case PTX_S_TARGETS:
    case PTX_S_SCOPE_BEGIN: case PTX_S_SCOPE_END: named = true; break; /* scopes: resolve.c's block scoping */
    case PTX_S_INST:
        named = false;
        for (uint32_t i = 0; i < s->u.inst.nopd && !named; i++) /* a register, a literal: no call */
            named = (unsigned)(s->u.inst.opd[i].kind - PTX_O_SYM) <= PTX_O_LIST - PTX_O_SYM &&
                    opd_names(&s->u.inst.opd[i]);
        break;
    default: named = false; break;
    }
    if (named) VPUSH(b->named, b->body.n - 1);
}

void ptx_b_push_str(ptx_builder *b, ptx_str s) { VPUSH(b->sstack, s); }

static ptx_str *pop_strs(ptx_builder *b, uint32_t n) {
    return pop_n(b->a, b->sstack.v, &b->sstack.n, n, sizeof(ptx_str));
}

/* A directive's statement, added: its items the top n strings of the string
 * stack; the caller fills in the rest of s->u.dir. */
static ptx_stmt *dir_stmt(ptx_builder *b, int kind, ptx_loc loc, uint32_t n) {
    ptx_stmt *s = new_stmt(b, kind, loc);
    s->u.dir = ARENA_NEW(b->a, ptx_dirinfo);
    s->u.dir->n = n;
    s->u.dir->items = pop_strs(b, n);
    add_stmt(b, s);
    return s;
}

ptx_str ptx_b_span(ptx_builder *b, ptx_loc from, ptx_loc last_char) {
    return (ptx_str){b->ls.buf + from.off, last_char.off + 1 - from.off};
}

/* Parses an integer literal (decimal, 0x hex, 0 octal, 0b binary, optional U).
 * Returns false on overflow past 64 bits. */
static bool parse_uint(ptx_str t, uint64_t *out) {
    const char *p = t.p, *e = t.p + t.n;
    unsigned base = 10;
    uint64_t v = 0;
    if (e > p && (e[-1] == 'U' || e[-1] == 'u')) e--;
    if (e - p > 1 && p[0] == '0') {
        if (p[1] == 'x' || p[1] == 'X') { base = 16; p += 2; }
        else if (p[1] == 'b' || p[1] == 'B') { base = 2; p += 2; }
        else { base = 8; p += 1; }
    } else if (e - p <= 19) {
        /* decimal (.loc numbers, most literals): 19 digits stay below 2^64,
         * so no overflow test per digit (a division, in the loop below) */
        const char *q = p;
        for (; q < e && (unsigned)(*q - '0') < 10u; q++) v = v * 10 + (unsigned)(*q - '0');
        if (q == e) {
            *out = v;
            return true;
        }
        v = 0; /* a byte that is not a digit: the general loop's answer */
    }
    for (; p < e; p++) {
        unsigned d = (*p >= '0' && *p <= '9') ? (unsigned)(*p - '0')
                   : (*p >= 'a' && *p <= 'f') ? (unsigned)(*p - 'a' + 10)
                                              : (unsigned)(*p - 'A' + 10);
        if (v > (UINT64_MAX - d) / base) return false;
        v = v * base + d;
    }
    *out = v;
    return true;
}

static uint64_t int_tok(ptx_builder *b, ptx_str t, ptx_loc loc, uint64_t max, const char *what) {
    uint64_t v = 0;
    if (!parse_uint(t, &v) || v > max) {
        ptx_b_error(b, loc, "%s '%.*s' is out of range (maximum %llu)", what, (int)t.n, t.p,
                    (unsigned long long)max);
        return 0;
    }
    return v;
}

/* ---- module-level directives ---- */
static void check_first(ptx_builder *b, ptx_loc loc) {
    if (!b->seen_version && !b->seen_other) ptx_b_error(b, loc, "PTX must begin with a .version directive");
    b->seen_other = 1;
}

/* dloc: the directive's, where the statement starts; loc: the number's */
void ptx_b_version(ptx_builder *b, ptx_str v, ptx_loc dloc, ptx_loc loc) {
    unsigned maj = 0, min = 0;
    uint32_t i = 0;
    if (b->seen_version) ptx_b_error(b, dloc, "duplicate .version directive");
    if (b->seen_other && !b->seen_version)
        ptx_b_error(b, dloc, ".version must be the first directive of the file");
    for (; i < v.n && v.p[i] >= '0' && v.p[i] <= '9'; i++) maj = maj * 10 + (unsigned)(v.p[i] - '0');
    if (i < v.n && v.p[i] == '.') {
        uint32_t j = i + 1;
        for (; j < v.n && v.p[j] >= '0' && v.p[j] <= '9'; j++) min = min * 10 + (unsigned)(v.p[j] - '0');
        if (j != v.n || j == i + 1) i = 0;
    } else {
        i = 0;
    }
    /* the versions of the PTX ISA, as ptxas 13.0 knows them */
    static const uint8_t last_minor[10] = {0, 5, 3, 2, 3, 1, 5, 8, 8, 0};
    if (i == 0 || maj > 99 || min > 99) {
        ptx_b_error(b, loc, "malformed .version '%.*s': expected MAJOR.MINOR, e.g. 8.5", (int)v.n, v.p);
    } else if (maj < 1 || maj > 9 || min > last_minor[maj]) {
        ptx_b_error(b, loc, "unknown PTX ISA version %u.%u; the versions are 1.0-1.5, 2.0-2.3, 3.0-3.2, 4.0-4.3, "
                    "5.0-5.1, 6.0-6.5, 7.0-7.8, 8.0-8.8 and 9.0", maj, min);
    }
    b->m->version_major = maj;
    b->m->version_minor = min;
    b->seen_version = 1;
    dir_stmt(b, PTX_S_VERSION, dloc, 0)->u.dir->raw = v;
}

/* The targets of the PTX ISA (section 5.1 and its release notes) with the
 * first PTX ISA version that has each, as ptxas 13.0 checks them; "a" and
 * "f" variants (arch-specific, family) need the version given for them. */
static const struct { const char *name; uint8_t ver; } targets[] = {
    {"sm_10", 10}, {"sm_11", 10}, {"sm_12", 12}, {"sm_13", 12}, {"sm_20", 20}, {"sm_21", 20},
    {"sm_30", 30}, {"sm_32", 40}, {"sm_35", 31}, {"sm_37", 41}, {"sm_50", 40}, {"sm_52", 41},
    {"sm_53", 42}, {"sm_60", 50}, {"sm_61", 50}, {"sm_62", 50}, {"sm_70", 60}, {"sm_72", 61},
    {"sm_75", 63}, {"sm_80", 70}, {"sm_86", 71}, {"sm_87", 74}, {"sm_88", 90}, {"sm_89", 78},
    {"sm_90", 78}, {"sm_90a", 80}, {"sm_100", 86}, {"sm_100a", 86}, {"sm_100f", 88},
    {"sm_101", 86}, {"sm_101a", 86}, {"sm_101f", 88}, {"sm_103", 88}, {"sm_103a", 88},
    {"sm_103f", 88}, {"sm_110", 90}, {"sm_110a", 90}, {"sm_110f", 90}, {"sm_120", 87},
    {"sm_120a", 87}, {"sm_120f", 88}, {"sm_121", 88}, {"sm_121a", 88}, {"sm_121f", 88},
    {"texmode_unified", 10}, {"texmode_independent", 15}, {"debug", 30}, {"map_f64_to_f32", 10},
};

void ptx_b_target(ptx_builder *b, uint32_t n, ptx_loc loc) {
    check_first(b, loc);
    b->seen_target = 1;
    ptx_stmt *s = dir_stmt(b, PTX_S_TARGET, loc, n);
    unsigned have = b->m->version_major * 10 + b->m->version_minor;
    for (uint32_t i = 0; i < n; i++) {
        ptx_str t = s->u.dir->items[i];
        size_t k = 0, nt = sizeof targets / sizeof targets[0];
        while (k < nt && !ptx_str_eq(t, targets[k].name)) k++;
        ptx_loc tl = ptx_loc_at(b->ls.buf, b->ls.len, loc, t.p);
        if (k == nt) {
            ptx_b_error(b, tl, "unknown target '%.*s'; expected sm_NN (sm_75 ... sm_121a), texmode_unified, "
                        "texmode_independent, debug or map_f64_to_f32", (int)t.n, t.p);
            continue;
        }
        if (b->seen_version && have < targets[k].ver)
            ptx_b_error(b, tl, ".target %s requires PTX ISA %u.%u or later (the file is .version %u.%u)",
                        targets[k].name, targets[k].ver / 10u, targets[k].ver % 10u, b->m->version_major,
                        b->m->version_minor);
        if (t.n > 3 && !memcmp(t.p, "sm_", 3) && !b->m->target_sm) {
            unsigned v = 0;
            for (uint32_t j = 3; j < t.n && t.p[j] >= '0' && t.p[j] <= '9'; j++) v = v * 10 + (unsigned)(t.p[j] - '0');
            b->m->target_sm = v;
            b->m->target_arch = t.p[t.n - 1] == 'a' || t.p[t.n - 1] == 'f';
            b->m->target_suffix = b->m->target_arch ? (uint8_t)t.p[t.n - 1] : 0;
        }
    }
}

void ptx_b_address_size(ptx_builder *b, ptx_str v, ptx_loc loc, ptx_loc vloc) {
    check_first(b, loc);
    uint64_t x = int_tok(b, v, vloc, 64, ".address_size");
    if (x != 32 && x != 64) ptx_b_error(b, vloc, ".address_size must be 32 or 64, not %.*s", (int)v.n, v.p);
    b->m->address_size = (uint32_t)x;
    dir_stmt(b, PTX_S_ADDRSIZE, loc, 0)->u.dir->raw = v;
}

void ptx_b_file(ptx_builder *b, ptx_str idx, ptx_str path, uint32_t n, ptx_loc loc) {
    check_first(b, loc);
    if (n > 2) ptx_b_error(b, loc, ".file takes at most a timestamp and a size after the name");
    ptx_dirinfo *d = dir_stmt(b, PTX_S_FILE, loc, n)->u.dir;
    d->raw = idx;
    d->name = path;
}

void ptx_b_section(ptx_builder *b, ptx_str name, ptx_str raw, ptx_loc loc) {
    check_first(b, loc);
    ptx_dirinfo *d = dir_stmt(b, PTX_S_SECTION, loc, 0)->u.dir;
    d->name = name;
    d->raw = raw;
}

void ptx_b_alias(ptx_builder *b, ptx_str a, ptx_str c, ptx_loc loc) {
    check_first(b, loc);
    ptx_b_push_str(b, a);
    ptx_b_push_str(b, c);
    dir_stmt(b, PTX_S_ALIAS, loc, 2);
}

void ptx_b_pragma(ptx_builder *b, uint32_t n, ptx_loc loc) {
    if (!b->in_body) check_first(b, loc);
    dir_stmt(b, PTX_S_PRAGMA, loc, n);
}

static void clear_stacks(ptx_builder *b) {
    b->ostack.n = b->sstack.n = b->vstack.n = b->dstack.n = b->istack.n = b->estack.n = 0;
}

void ptx_b_recover_toplevel(ptx_builder *b) {
    /* An error in a function header resynchronised inside its body: skip to
     * the body's closing brace instead of reading statements as top-level
     * items (each would be another, spurious error). */
    if (b->fn && !b->in_body && b->ls.braces > 0) b->ls.skip = 1;
    else b->ls.braces = 0; /* an unbalanced '{' of a broken initialiser */
    b->tmpl_used = 1;
    clear_stacks(b);
    b->in_body = 0;
    b->fn = b->sig = NULL;
    b->body.n = 0;
}

/* A top-level error resynchronised on the '{' of a function body: that
 * body cannot be read in context, so it is skipped whole. */
void ptx_b_recover_body(ptx_builder *b) {
    int braces = b->ls.braces;
    ptx_b_recover_toplevel(b);
    b->ls.braces = braces;
    if (braces > 0) b->ls.skip = 1;
}

void ptx_b_recover_stmt(ptx_builder *b) {
    b->tmpl_used = 1;
    clear_stacks(b);
}

/* ---- declarations ---- */
void ptx_b_qual(ptx_builder *b, int k, uint32_t v, ptx_str s, ptx_loc loc) {
    ptx_var *t = &b->tmpl;
    if (b->tmpl_used) {
        memset(t, 0, sizeof *t);
        b->tmpl_used = 0;
        b->tmpl_bad = 0;
    }
    switch (k) {
    case 's':
        if (t->is_ptr) {
            t->ptr_space = (uint8_t)v;
        } else {
            if (t->space) ptx_b_error(b, loc, "more than one state space in a declaration");
            t->space = (uint8_t)v;
        }
        break;
    case 'l':
        if (!t->linkage) b->tmpl_link_loc = loc;
        t->linkage |= (uint8_t)v;
        break;
    case 't':
        if (t->type) ptx_b_error(b, loc, "more than one type in a declaration");
        t->type = (uint8_t)v;
        break;
    case 'v': t->vec = (uint8_t)v; break;
    case 'a': {
        uint64_t al = int_tok(b, s, loc, 1u << 30, ".align");
        if (al == 0 || (al & (al - 1)) != 0)
            ptx_b_error(b, loc, ".align must be a power of two, not %.*s", (int)s.n, s.p);
        if (t->is_ptr) t->ptr_align = (uint32_t)al;
        else t->align = (uint32_t)al;
        break;
    }
    case 'p': t->is_ptr = 1; break;
    case 'A': t->attrs = s; break;
    default:
        ptx_b_error(b, loc, "unknown type or directive '%.*s' in declaration", (int)s.n, s.p);
        b->tmpl_bad = 1;
        break;
    }
}

int64_t ptx_b_range(ptx_builder *b, ptx_str n, ptx_loc loc) {
    uint64_t v = 0;
    if (!parse_uint(n, &v) || v > (1u << 24)) {
        ptx_b_error(b, loc, "register count '%.*s' is out of range (maximum %u)", (int)n.n, n.p, 1u << 24);
        return 1;
    }
    if (v == 0) ptx_b_error(b, loc, "register range %%name<0> declares no register");
    return (int64_t)(v ? v : 1);
}

void ptx_b_push_dim(ptx_builder *b, ptx_str n, ptx_loc loc) {
    uint64_t v = 0;
    if (n.p) {
        v = int_tok(b, n, loc, (uint64_t)1 << 40, "array size");
        if (v == 0) ptx_b_error(b, loc, "array size must be positive");
    }
    VPUSH(b->dstack, v);
}

ptx_var *ptx_b_var(ptx_builder *b, ptx_str name, ptx_loc loc, int64_t range, uint32_t ndims,
                   ptx_init *init) {
    ptx_var *v = arena_alloc(b->a, sizeof *v);
    *v = b->tmpl;
    b->tmpl_used = 1;
    v->name = name;
    v->loc = loc;
    if (range >= 0) {
        v->has_range = 1;
        v->range = (uint32_t)range;
        if (v->space != PTX_SP_REG)
            ptx_b_error(b, loc, "only .reg declarations can use the %%name<N> form");
    }
    if (ndims) {
        v->ndims = ndims;
        v->dims = pop_n(b->a, b->dstack.v, &b->dstack.n, ndims, sizeof *v->dims);
        for (uint32_t i = 0; i < ndims; i++)
            if (v->dims[i] == 0) {
                if (i != 0) ptx_b_error(b, loc, "only the first array dimension may be left empty");
                v->unsized = 1;
            }
    }
    v->init = init;
    if (!b->tmpl_bad) {
        if (v->space == PTX_SP_NONE) ptx_b_error(b, loc, "declaration of '%.*s' has no state space", (int)name.n, name.p);
        else if (v->type == PTX_T_NONE) ptx_b_error(b, loc, "declaration of '%.*s' has no type", (int)name.n, name.p);
    }
    return v;
}

static ptx_expr *expr_copy(ptx_builder *b, const ptx_expr *e);

ptx_init *ptx_b_init_expr(ptx_builder *b, ptx_expr *e) {
    ptx_init *i = ARENA_NEW(b->a, ptx_init);
    i->kind = 'e';
    i->expr = expr_copy(b, e);
    return i;
}

void ptx_b_push_init(ptx_builder *b, ptx_init *i) { VPUSH(b->istack, i); }

ptx_init *ptx_b_init_list(ptx_builder *b, uint32_t n) {
    ptx_init *i = ARENA_NEW(b->a, ptx_init);
    i->kind = 'l';
    i->n = n;
    i->items = pop_n(b->a, b->istack.v, &b->istack.n, n, sizeof *i->items);
    return i;
}

ptx_init *ptx_b_init_kv(ptx_builder *b, ptx_str k, ptx_str v) {
    ptx_init *i = ARENA_NEW(b->a, ptx_init);
    i->kind = 'k';
    i->key = k;
    i->expr = ARENA_NEW(b->a, ptx_expr);
    i->expr->kind = PTX_E_SYM;
    i->expr->text = v;
    return i;
}

void ptx_b_push_var(ptx_builder *b, ptx_var *v) { VPUSH(b->vstack, v); }

/* ---- registers: scoped names, lazily materialised ranges ---- */
/* hnext/rdepth exist only for single declarations (range elements never
 * enter the scoped hash), so they grow lazily to cover the ids that need them. */
static void side_arrays_cover(ptx_builder *b, uint32_t id) {
    while (b->hnext.n <= id) VPUSH(b->hnext, UINT32_MAX);
    while (b->rdepth.n <= id) VPUSH(b->rdepth, 0);
}

static uint32_t new_reg(ptx_builder *b, ptx_str name, uint8_t type, uint8_t vec, uint32_t decl) {
    ptx_reg r = {name, type, vec, decl};
    VPUSH(b->regs, r);
    uint32_t id = b->regs.n - 1;
    side_arrays_cover(b, id);
    b->rdepth.v[id] = b->depth;
    return id;
}

/* The undo log lists, in insertion order, the single registers now in the
 * table; closing a scope pops its entries, each the head of its chain. */
static void hash_rebuild(ptx_builder *b, uint32_t ncap) {
    uint32_t *nh = realloc(b->heads, ncap * sizeof *nh);
    if (!nh) ptx_oom();
    b->heads = nh;
    b->hcap = ncap;
    for (uint32_t i = 0; i < ncap; i++) nh[i] = UINT32_MAX;
    for (uint32_t i = 0; i < b->undo.n; i++) {
        uint32_t id = b->undo.v[i];
        uint32_t h = ptx_hash(b->regs.v[id].name.p, b->regs.v[id].name.n) & (ncap - 1);
        b->hnext.v[id] = nh[h];
        nh[h] = id;
    }
}

static void hash_insert(ptx_builder *b, uint32_t id) {
    VPUSH(b->undo, id);
    if (b->undo.n * 2 > b->hcap) {
        hash_rebuild(b, b->hcap ? b->hcap * 2 : 256);
        return;
    }
    uint32_t h = ptx_hash(b->regs.v[id].name.p, b->regs.v[id].name.n) & (b->hcap - 1);
    b->hnext.v[id] = b->heads[h];
    b->heads[h] = id;
}

static uint32_t hash_find(ptx_builder *b, ptx_str name) {
    if (!b->hcap) return UINT32_MAX;
    uint32_t h = ptx_hash(name.p, name.n) & (b->hcap - 1);
    for (uint32_t id = b->heads[h]; id != UINT32_MAX; id = b->hnext.v[id])
        if (ptx_str_eqs(b->regs.v[id].name, name)) return id;
    return UINT32_MAX;
}

static inline bool span_eq(const char *a, const char *b, uint32_t n) {
    for (uint32_t i = 0; i < n; i++)
        if (a[i] != b[i]) return false;
    return true;
}

static inline ptx_rangecache *rangecache_slot(ptx_builder *b, uint64_t pword) {
    return &b->rangecache[(pword * 0x9E3779B97F4A7C15ull) >> 58];
}

/* Element num of the innermost range in scope whose prefix is name's first
 * k bytes (pword: up to 8 of them as a word), materialised on first use;
 * UINT32_MAX if none. */
/* Element num of range r (num < r->count), materialised on first use. */
static inline uint32_t range_elem(ptx_builder *b, ptx_range *r, ptx_str name, uint32_t num) {
    if (__builtin_expect(!r->ids, 0)) {
        r->ids = malloc(r->count * sizeof *r->ids);
        if (!r->ids) ptx_oom();
        memset(r->ids, 0xff, r->count * sizeof *r->ids);
    }
    if (r->ids[num] == UINT32_MAX) {
        /* materialised once and not entered in the scoped hash */
        ptx_reg reg = {name, r->type, r->vec, r->decl};
        VPUSH(b->regs, reg);
        r->ids[num] = b->regs.n - 1;
    }
    return r->ids[num];
}

static uint32_t range_find(ptx_builder *b, ptx_str name, uint32_t k, uint64_t pword, uint32_t num) {
    int first = 1;
    for (uint32_t i = b->ranges.n; i-- > 0;) {
        ptx_range *r = &b->ranges.v[i];
        if (r->pword != pword || r->prefix.n != k) continue;
        if (k > 8 && !span_eq(r->prefix.p, name.p, k)) continue;
        if (first && k <= 8) /* the innermost range with this prefix */
            *rangecache_slot(b, pword) = (ptx_rangecache){pword, k, i, b->regcache_gen, 0};
        first = 0;
        if (num >= r->count) continue;
        return range_elem(b, r, name, num);
    }
    return UINT32_MAX;
}

/* %r123 -> element 123 of a range %r<N> in scope.  The number is read by
 * value, as ptxas reads it: "%r01" is element 1, the register "%r1" (ptxas
 * 13.0 assembles the two spellings to the same code).  An element first
 * used with leading zeros gets the name without them, so the printer writes
 * one spelling for it. */
static uint32_t range_lookup(ptx_builder *b, ptx_str name) {
    const char *p = name.p;
    uint32_t n = name.n, k = n;
    while (k && (unsigned)(p[k - 1] - '0') < 10u) k--;
    if (k == n || k == 0) return UINT32_MAX;
    uint32_t z = k; /* the first significant digit */
    while (z < n - 1 && p[z] == '0') z++;
    if (n - z > 8) return UINT32_MAX; /* more than 8 digits exceeds any range */
    uint32_t num = 0;
    for (uint32_t i = z; i < n; i++) num = num * 10 + (uint32_t)(p[i] - '0');
    uint64_t w = 0;
    if (p >= b->ls.buf && p + 8 <= b->ls.buf + b->ls.len + 2) { /* one load: the text ends in 2 NULs */
        memcpy(&w, p, 8);
        if (k < 8) w &= ((uint64_t)1 << (8 * k)) - 1;
    } else {
        for (uint32_t i = 0; i < k && i < 8; i++) w |= (uint64_t)(unsigned char)p[i] << (8 * i);
    }
    if (z > k) {
        char *c = arena_alloc(b->a, k + (n - z));
        memcpy(c, p, k);
        memcpy(c + k, p + z, n - z);
        name = (ptx_str){c, k + (n - z)};
    }
    return range_find(b, name, k, w, num);
}

static inline bool ends_in_digit(ptx_str s) { return s.n && s.p[s.n - 1] >= '0' && s.p[s.n - 1] <= '9'; }

/* Finds a register visible here; UINT32_MAX if none.  A single declaration
 * in an inner scope may shadow a range element ("{ .reg .pred %p1; ...}" in
 * inline asm), so the scoped hash decides first whenever a digit-ended single
 * name is in scope; otherwise ranges, the common case, are tried first. */
static __attribute__((noinline)) uint32_t reg_lookup_slow(ptx_builder *b, ptx_str name) {
    uint32_t id;
    if (b->digit_singles == 0 && ends_in_digit(name)) {
        id = range_lookup(b, name);
        return id != UINT32_MAX ? id : hash_find(b, name);
    }
    id = hash_find(b, name);
    return id != UINT32_MAX ? id : range_lookup(b, name);
}

/* A range element named by up to 8 bytes ("%rd12"), read as one word: the
 * prefix is the bytes before the trailing digits, the range the innermost one
 * with that prefix (the range cache), the element its number.  UINT32_MAX
 * when that does not decide (a longer name, leading zeros, a prefix not
 * cached since the last declaration, a number past the innermost range):
 * reg_lookup_slow then does.  So a register's first use costs what its
 * other uses cost, with no name hashed. */
static inline __attribute__((always_inline)) uint32_t range_direct(ptx_builder *b, ptx_str name) {
    const char *p = name.p;
    uint32_t n = name.n;
    /* 2 to 8 bytes, 8 of them readable in the text (which ends in 2 NULs) */
    if (n - 2 > 6 || p < b->ls.buf || (size_t)(p - b->ls.buf) + 8 > b->ls.len + 2) return UINT32_MAX;
    uint64_t w, keep = ~0ull >> (64 - 8 * n);
    memcpy(&w, p, 8);
    w &= keep;
    /* each byte's high bit set where it is not a digit: d = byte ^ '0' is a
     * digit's value, and (d & 0x7f) + 0x76 carries into bit 7 past 9 */
    uint64_t d = w ^ 0x3030303030303030ull;
    uint64_t nd = (((d & 0x7f7f7f7f7f7f7f7full) + 0x7676767676767676ull) | d) & 0x8080808080808080ull & keep;
    uint32_t k = (uint32_t)(63 - __builtin_clzll(nd)) / 8 + 1; /* nd != 0: p[0] is '%' or a letter */
    if (k == n || (p[k] == '0' && n - k > 1)) return UINT32_MAX;
    uint32_t num = 0;
    for (uint32_t i = k; i < n; i++) num = num * 10 + (uint32_t)(p[i] - '0');
    uint64_t pword = w & (((uint64_t)1 << (8 * k)) - 1);
    const ptx_rangecache *c = rangecache_slot(b, pword);
    if (c->pword != pword || c->k != k || c->gen != b->regcache_gen) return UINT32_MAX;
    ptx_range *r = &b->ranges.v[c->idx];
    return num < r->count ? range_elem(b, r, name, num) : UINT32_MAX;
}

static inline __attribute__((always_inline)) uint32_t reg_lookup(ptx_builder *b, ptx_str name) {
    uint32_t id = b->digit_singles ? UINT32_MAX : range_direct(b, name);
    return id != UINT32_MAX ? id : reg_lookup_slow(b, name);
}

static void declare_reg(ptx_builder *b, ptx_var *v, uint32_t decl) {
    b->regcache_gen++;
    if (v->has_range) {
        for (uint32_t i = 0; i < b->ranges.n; i++) {
            ptx_range *r = &b->ranges.v[i];
            if (r->depth == b->depth && ptx_str_eqs(r->prefix, v->name)) {
                ptx_b_error(b, v->loc, "redeclaration of register range '%.*s<%u>'", (int)v->name.n,
                            v->name.p, v->range);
                return;
            }
        }
        ptx_range r = {v->name, 0, v->range, decl, b->depth, v->type, v->vec, NULL};
        for (uint32_t i = 0; i < v->name.n && i < 8; i++) r.pword |= (uint64_t)(unsigned char)v->name.p[i] << (8 * i);
        VPUSH(b->ranges, r);
        return;
    }
    uint32_t old = hash_find(b, v->name);
    if (old != UINT32_MAX && b->rdepth.v[old] == b->depth) {
        ptx_b_error(b, v->loc, "redeclaration of register '%.*s'", (int)v->name.n, v->name.p);
        return;
    }
    uint32_t id = new_reg(b, v->name, v->type, v->vec, decl);
    hash_insert(b, id);
    if (ends_in_digit(v->name)) b->digit_singles++;
}

static void declare_var_stmt(ptx_builder *b, ptx_var *v) {
    ptx_stmt *s = new_stmt(b, PTX_S_VAR, v->loc);
    s->u.var = v;
    add_stmt(b, s);
}

void ptx_b_declared(ptx_builder *b, ptx_var *v) {
    /* .b128 variables and registers are PTX ISA 8.3 (ptxas: "Feature 'Type .b128'") */
    if (v->type == PTX_T_B128 && b->seen_version && b->m->version_major * 10 + b->m->version_minor < 83)
        ptx_b_error(b, v->loc, "'.b128' requires PTX ISA 8.3 or later (the file is .version %u.%u)",
                    b->m->version_major, b->m->version_minor);
    if (b->in_body) {
        if (v->linkage & (PTX_LINK_VISIBLE | PTX_LINK_WEAK | PTX_LINK_COMMON))
            ptx_b_error(b, b->tmpl_link_loc, "linkage directives are not allowed inside a function body");
        if (v->space == PTX_SP_REG) declare_reg(b, v, b->nvars);
        b->nvars++;
    } else {
        check_first(b, v->loc);
        if (v->space == PTX_SP_REG)
            ptx_b_error(b, v->loc, ".reg variables can only be declared inside a function");
        if (v->space == PTX_SP_PARAM)
            ptx_b_error(b, v->loc, ".param variables can only be declared inside a function or as parameters");
    }
    declare_var_stmt(b, v);
    arena_reset(&b->pool);
}

/* ---- functions ---- */
ptx_func *ptx_b_func_begin(ptx_builder *b, ptx_var *q, int is_entry, ptx_loc loc) {
    check_first(b, loc);
    if (b->in_body) {
        ptx_b_error(b, loc, "function definition inside a function body (missing '}'?)");
    }
    ptx_func *f = ARENA_NEW(b->a, ptx_func);
    b->tmpl_used = 1;
    f->is_entry = (uint8_t)is_entry;
    f->loc = loc;
    if (q) {
        f->linkage = q->linkage;
        if (q->space || q->type || q->vec || q->align || q->is_ptr)
            ptx_b_error(b, loc, "only linkage directives (.visible, .extern, .weak) may precede %s",
                        is_entry ? ".entry" : ".func");
    }
    b->fn = b->sig = f;
    b->vstack.n = 0;
    return f;
}

static ptx_var **pop_vars(ptx_builder *b, uint32_t n) {
    return pop_n(b->a, b->vstack.v, &b->vstack.n, n, sizeof(ptx_var *));
}

static void check_params(ptx_builder *b, ptx_var **v, uint32_t n, int is_entry) {
    for (uint32_t i = 0; i < n; i++) {
        if (v[i]->space != PTX_SP_PARAM && v[i]->space != PTX_SP_REG)
            ptx_b_error(b, v[i]->loc, "parameter '%.*s' must be in the .param or .reg state space",
                        (int)v[i]->name.n, v[i]->name.p);
        else if (is_entry && v[i]->space == PTX_SP_REG)
            ptx_b_error(b, v[i]->loc, "kernel parameter '%.*s' must be in the .param state space",
                        (int)v[i]->name.n, v[i]->name.p);
        for (uint32_t j = 0; j < i; j++)
            if (ptx_str_eqs(v[i]->name, v[j]->name) && !ptx_str_eq(v[i]->name, "_"))
                ptx_b_error(b, v[i]->loc, "duplicate parameter name '%.*s'", (int)v[i]->name.n, v[i]->name.p);
    }
}

/* The return parameters (rets) or the parameters of the header being read. */
void ptx_b_sig_list(ptx_builder *b, uint32_t n, ptx_loc loc, int rets) {
    ptx_func *f = b->sig;
    ptx_var **v = pop_vars(b, n);
    if (!f) return;
    if (rets) {
        /* reported once the header is complete: "(.param ...)" with no name
         * after it is a missing name, not a return list */
        if (f->is_entry) b->entry_rets_loc = loc;
        f->has_rets = 1;
        f->nrets = n;
        f->rets = v;
    } else {
        f->has_params = 1;
        f->nparams = n;
        f->params = v;
    }
    check_params(b, v, n, !rets && f->is_entry);
}

/* A new directive at the end of f's. */
static ptx_fdirective *fdir_push(ptx_builder *b, ptx_func *f) {
    ptx_fdirective *nd = ARENA_NEWN(b->a, ptx_fdirective, f->nfdirs + 1);
    copy_n(nd, f->fdirs, f->nfdirs * sizeof *nd);
    f->fdirs = nd;
    return &nd[f->nfdirs++];
}

void ptx_b_fdir(ptx_builder *b, ptx_str name, uint32_t nargs, ptx_loc loc) {
    ptx_func *f = b->sig;
    ptx_str *args = pop_strs(b, nargs);
    if (!f) return;
    if (nargs > 3) {
        ptx_b_error(b, loc, "%.*s takes at most 3 values", (int)name.n, name.p);
        nargs = 3;
    }
    ptx_fdirective *d = fdir_push(b, f);
    d->name = name;
    d->n = nargs;
    for (uint32_t i = 0; i < nargs; i++) d->vals[i] = int_tok(b, args[i], loc, UINT32_MAX, "directive value");
    if (ptx_str_eq(name, ".noreturn")) f->noreturn = 1;
}

void ptx_b_fdir_pragma(ptx_builder *b, uint32_t n) {
    ptx_func *f = b->sig;
    ptx_str *items = pop_strs(b, n);
    if (!f) return;
    ptx_fdirective *d = fdir_push(b, f);
    d->name = PTX_STR_LIT(".pragma");
    /* the strings and commas between them, as written */
    d->raw = n ? (ptx_str){items[0].p, (uint32_t)(items[n - 1].p + items[n - 1].n - items[0].p)} : (ptx_str){"", 0};
}

void ptx_b_no_body(ptx_builder *b) {
    if (b->fn) b->fn->has_body = 0;
}

static void scope_push(ptx_builder *b) {
    VPUSH(b->marks, b->undo.n);
    b->depth++;
}

static void scope_pop(ptx_builder *b) {
    if (!b->marks.n) return;
    b->regcache_gen++;
    uint32_t mark = b->marks.v[--b->marks.n];
    while (b->undo.n > mark) {
        uint32_t id = b->undo.v[--b->undo.n];
        uint32_t h = ptx_hash(b->regs.v[id].name.p, b->regs.v[id].name.n) & (b->hcap - 1);
        b->heads[h] = b->hnext.v[id];
        if (ends_in_digit(b->regs.v[id].name)) b->digit_singles--;
    }
    while (b->ranges.n && b->ranges.v[b->ranges.n - 1].depth == b->depth) {
        free(b->ranges.v[b->ranges.n - 1].ids);
        b->ranges.n--;
    }
    b->depth--;
}

void ptx_b_body_begin(ptx_builder *b) {
    ptx_func *f = b->fn;
    b->regcache_gen++;
    b->in_body = 1;
    b->body.n = 0;
    b->named_start = b->named.n;
    b->regs.n = b->hnext.n = b->rdepth.n = 0;
    b->undo.n = b->marks.n = 0;
    b->digit_singles = 0;
    b->nvars = 0;
    for (uint32_t i = 0; i < b->ranges.n; i++) free(b->ranges.v[i].ids);
    b->ranges.n = 0;
    for (uint32_t i = 0; i < b->hcap; i++) b->heads[i] = UINT32_MAX;
    b->depth = 0;
    scope_push(b);
    if (b->vs) ptx_validate_body_begin(b);
    if (!f) return;
    f->has_body = 1;
    /* .reg parameters of a .func are registers of its body */
    for (uint32_t i = 0; i < f->nrets; i++)
        if (f->rets[i]->space == PTX_SP_REG) declare_reg(b, f->rets[i], UINT32_MAX);
    for (uint32_t i = 0; i < f->nparams; i++)
        if (f->params[i]->space == PTX_SP_REG) declare_reg(b, f->params[i], UINT32_MAX);
}

/* Statements of capacity a body's list keeps for the next body. */
#define BODY_KEEP 65536u

void ptx_b_body_end(ptx_builder *b) {
    ptx_func *f = b->fn;
    while (b->marks.n) scope_pop(b);
    b->in_body = 0;
    if (!f) return;
    f->nstmts = b->body.n;
    f->stmts = dup_n(b->a, b->body.v, b->body.n, sizeof *f->stmts);
    f->nregs = b->regs.n;
    f->regs = dup_n(b->a, b->regs.v, b->regs.n, sizeof *f->regs);
    ptx_named_slice ns = {f, b->named_start, b->named.n - b->named_start};
    VPUSH(b->named_bodies, ns);
    if (b->vs) ptx_validate_body_end(b, f);
    /* A large body's list is copied: give its scratch back now rather than
     * at the end of the parse, where the resolver's own scratch would come
     * on top of it (2 MB of the parse's peak for a 250k-statement body). */
    if (b->body.cap > BODY_KEEP) {
        free(b->body.v);
        b->body.v = NULL;
        b->body.n = b->body.cap = 0;
    }
}

void ptx_b_func_end(ptx_builder *b, ptx_func *f, ptx_str name, ptx_loc loc) {
    if (f->is_entry && f->has_rets) ptx_b_error(b, b->entry_rets_loc, "a .entry function cannot return values");
    f->name = name;
    f->name_loc = loc;
    ptx_stmt *s = new_stmt(b, PTX_S_FUNC, f->loc);
    s->u.func = f;
    VPUSH(b->top, s);
    VPUSH(b->funcs, f);
    b->fn = b->sig = NULL;
}

void ptx_b_label(ptx_builder *b, ptx_str name, ptx_loc loc) {
    ptx_stmt *s = new_stmt(b, PTX_S_LABEL, loc);
    s->u.name = name;
    add_stmt(b, s);
}

void ptx_b_proto_begin(ptx_builder *b, ptx_str label, ptx_loc loc) {
    ptx_func *p = ARENA_NEW(b->a, ptx_func);
    p->name = label;
    p->loc = loc;
    b->sig = p;
}

void ptx_b_proto_end(ptx_builder *b, ptx_str name, ptx_loc loc) {
    ptx_func *p = b->sig;
    if (!ptx_str_eq(name, "_"))
        ptx_b_error(b, loc, "a .callprototype is written with '_' in place of the function name");
    ptx_dirinfo *d = dir_stmt(b, PTX_S_PROTO, p ? p->loc : loc, 0)->u.dir;
    d->name = p ? p->name : name;
    d->proto = p;
    b->sig = b->fn;
}

void ptx_b_targets(ptx_builder *b, ptx_str label, uint32_t kind, uint32_t n, ptx_loc loc) {
    ptx_stmt *s = dir_stmt(b, PTX_S_TARGETS, loc, n);
    s->flag = (uint8_t)kind;
    s->u.dir->name = label;
}

void ptx_b_scope_begin(ptx_builder *b, ptx_loc loc) {
    if (b->depth >= PTX_MAX_SCOPE_DEPTH) {
        ptx_b_error(b, loc, "'{' blocks nested too deeply (limit %d)", PTX_MAX_SCOPE_DEPTH);
        b->ls.stop = 1; /* the rest of the file cannot be read sensibly */
        return;
    }
    add_stmt(b, new_stmt(b, PTX_S_SCOPE_BEGIN, loc));
    scope_push(b);
}

void ptx_b_scope_end(ptx_builder *b, ptx_loc loc) {
    add_stmt(b, new_stmt(b, PTX_S_SCOPE_END, loc));
    if (b->marks.n > 1) scope_pop(b);
}

/* ".loc F L C": its numbers read by the lexer (one T_LOC3 token), or
 * here, each checked to fit in 32 bits. */
void ptx_b_loc3(ptx_builder *b, ptx_loc3v v, ptx_loc loc) {
    ptx_stmt *s = new_stmt(b, PTX_S_LOC, loc);
    s->u.locinfo.file = v.file;
    s->u.locinfo.line = v.line;
    s->u.locinfo.col = v.col;
    b->cur_loc = s;
}

void ptx_b_loc_begin(ptx_builder *b, ptx_str file, ptx_str line, ptx_str col, ptx_loc loc) {
    ptx_loc3v v;
    v.file = (uint32_t)int_tok(b, file, loc, UINT32_MAX, ".loc file index");
    v.line = (uint32_t)int_tok(b, line, loc, UINT32_MAX, ".loc line");
    v.col = (uint32_t)int_tok(b, col, loc, UINT32_MAX, ".loc column");
    ptx_b_loc3(b, v, loc);
}

/* Is key the .loc attribute want (else reported), on a .loc being built? */
static bool loc_attr(ptx_builder *b, ptx_str key, const char *want, ptx_loc loc) {
    if (ptx_str_eq(key, want)) return b->cur_loc != NULL;
    ptx_b_error(b, loc, "unknown .loc attribute '%.*s' (expected function_name or inlined_at)", (int)key.n, key.p);
    return false;
}

void ptx_b_loc_fn(ptx_builder *b, ptx_str key, ptx_str name, ptx_loc loc) {
    if (!loc_attr(b, key, "function_name", loc)) return;
    b->cur_loc->u.locinfo.fn_name = name.p;
    b->cur_loc->u.locinfo.fn_name_len = name.n;
}

void ptx_b_loc_ia(ptx_builder *b, ptx_str key, ptx_str f, ptx_str l, ptx_str c, ptx_loc loc) {
    if (!loc_attr(b, key, "inlined_at", loc)) return;
    ptx_locinfo *li = &b->cur_loc->u.locinfo;
    li->ia_file = (uint32_t)int_tok(b, f, loc, UINT32_MAX, "inlined_at file");
    li->ia_line = (uint32_t)int_tok(b, l, loc, UINT32_MAX, "inlined_at line");
    li->ia_col = (uint32_t)int_tok(b, c, loc, UINT32_MAX, "inlined_at column");
}

void ptx_b_loc_end(ptx_builder *b) {
    if (b->cur_loc) {
        if (!b->in_body) check_first(b, b->cur_loc->loc);
        add_stmt(b, b->cur_loc);
    }
    b->cur_loc = NULL;
}

/* ---- expressions (built in the per-statement pool) ---- */
static ptx_expr *new_expr(ptx_builder *b, int kind, ptx_loc loc) {
    ptx_expr *e = arena_alloc(&b->pool, sizeof *e);
    memset(e, 0, sizeof *e);
    e->kind = (uint8_t)kind;
    e->loc = loc;
    e->depth = 1;
    return e;
}

ptx_expr *ptx_b_e_int(ptx_builder *b, ptx_str t, ptx_loc loc) {
    ptx_expr *e = new_expr(b, PTX_E_INT, loc);
    uint64_t v = 0;
    if (!parse_uint(t, &v)) ptx_b_error(b, loc, "integer literal '%.*s' does not fit in 64 bits", (int)t.n, t.p);
    e->text = t;
    e->u.i = (int64_t)v;
    return e;
}

ptx_expr *ptx_b_e_float(ptx_builder *b, ptx_str t, ptx_loc loc) {
    ptx_expr *e = new_expr(b, PTX_E_FLOAT, loc);
    e->text = t;
    if (t.n >= 2 && t.p[0] == '0' && (t.p[1] == 'f' || t.p[1] == 'F' || t.p[1] == 'd' || t.p[1] == 'D')) {
        uint64_t v = 0;
        for (uint32_t i = 2; i < t.n; i++) {
            char c = t.p[i];
            v = v * 16 + (uint64_t)(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
        }
        e->fkind = (t.p[1] | 0x20) == 'f' ? 'f' : 'd';
        e->u.i = (int64_t)v;
    } else {
        char buf[80];
        size_t n = t.n < sizeof buf - 1 ? t.n : sizeof buf - 1;
        if (memchr(t.p, '.', t.n) != NULL && memchr((const char *)memchr(t.p, '.', t.n) + 1, '.', t.n - (size_t)((const char *)memchr(t.p, '.', t.n) + 1 - t.p)))
            ptx_b_error(b, loc, "malformed number '%.*s'", (int)t.n, t.p);
        memcpy(buf, t.p, n);
        buf[n] = 0;
        double d = strtod(buf, NULL);
        e->fkind = 'x';
        memcpy(&e->u.i, &d, sizeof d);
    }
    return e;
}

ptx_expr *ptx_b_e_sym(ptx_builder *b, ptx_str t, ptx_loc loc) {
    ptx_expr *e = new_expr(b, PTX_E_SYM, loc);
    e->text = t;
    return e;
}

void ptx_b_push_expr(ptx_builder *b, ptx_expr *e) { VPUSH(b->estack, e); }

ptx_expr *ptx_b_e_call(ptx_builder *b, ptx_str name, uint32_t n, ptx_loc loc) {
    ptx_expr *e = new_expr(b, PTX_E_CALL, loc);
    e->text = name;
    e->nargs = n;
    e->u.args = pop_n(&b->pool, b->estack.v, &b->estack.n, n, sizeof(ptx_expr *));
    for (uint32_t i = 0; i < n; i++)
        if (e->u.args[i]->depth + 1u > e->depth) e->depth = (uint16_t)(e->u.args[i]->depth + 1u > PTX_MAX_EXPR_DEPTH ? PTX_MAX_EXPR_DEPTH : e->u.args[i]->depth + 1u);
    if (!ptx_str_eq(name, "generic") && !ptx_str_eq(name, "mask"))
        ptx_b_error(b, loc, "unknown function '%.*s' in constant expression (expected generic or mask)", (int)name.n, name.p);
    return e;
}

/* Sets e's height from its children; past the limit the node is cut down to
 * a literal 0 so every later recursion over it stays shallow. */
static ptx_expr *with_depth(ptx_builder *b, ptx_expr *e, const ptx_expr *x, const ptx_expr *y,
                            const ptx_expr *z) {
    unsigned d = 0;
    if (x && x->depth > d) d = x->depth;
    if (y && y->depth > d) d = y->depth;
    if (z && z->depth > d) d = z->depth;
    if (d + 1 > PTX_MAX_EXPR_DEPTH) {
        if (d + 1 == PTX_MAX_EXPR_DEPTH + 1)
            ptx_b_error(b, e->loc, "constant expression nested too deeply (limit %d)", PTX_MAX_EXPR_DEPTH);
        e->kind = PTX_E_INT;
        e->text = (ptx_str){"0", 1};
        e->u.i = 0;
        e->b = e->c = NULL;
        e->depth = PTX_MAX_EXPR_DEPTH + 1; /* report once per chain */
        return e;
    }
    e->depth = (uint16_t)(d + 1);
    return e;
}

ptx_expr *ptx_b_e_unary(ptx_builder *b, int op, ptx_expr *a, ptx_loc loc) {
    ptx_expr *e = new_expr(b, op == '(' ? PTX_E_PAREN : PTX_E_UNARY, loc);
    e->op = (uint16_t)op;
    e->u.a = a;
    return with_depth(b, e, a, NULL, NULL);
}

ptx_expr *ptx_b_e_bin(ptx_builder *b, int op, ptx_expr *l, ptx_expr *r, ptx_loc loc) {
    ptx_expr *e = new_expr(b, PTX_E_BINARY, loc);
    e->op = (uint16_t)op;
    e->u.a = l;
    e->b = r;
    return with_depth(b, e, l, r, NULL);
}

ptx_expr *ptx_b_e_cond(ptx_builder *b, ptx_expr *c, ptx_expr *t, ptx_expr *f, ptx_loc loc) {
    ptx_expr *e = new_expr(b, PTX_E_COND, loc);
    e->u.a = c;
    e->b = t;
    e->c = f;
    return with_depth(b, e, c, t, f);
}

static ptx_expr *expr_copy(ptx_builder *b, const ptx_expr *e) {
    if (!e) return NULL;
    ptx_expr *c = arena_alloc(b->a, sizeof *c);
    *c = *e;
    switch (e->kind) {
    case PTX_E_UNARY:
    case PTX_E_PAREN: c->u.a = expr_copy(b, e->u.a); break;
    case PTX_E_BINARY:
        c->u.a = expr_copy(b, e->u.a);
        c->b = expr_copy(b, e->b);
        break;
    case PTX_E_COND:
        c->u.a = expr_copy(b, e->u.a);
        c->b = expr_copy(b, e->b);
        c->c = expr_copy(b, e->c);
        break;
    case PTX_E_CALL:
        c->u.args = ARENA_NEWN(b->a, ptx_expr *, e->nargs ? e->nargs : 1);
        for (uint32_t i = 0; i < e->nargs; i++) c->u.args[i] = expr_copy(b, e->u.args[i]);
        break;
    default: break;
    }
    return c;
}

/* Integer value of a constant expression made of literals only. */
static bool expr_int(const ptx_expr *e, int64_t *out) {
    int64_t a, c;
    switch (e->kind) {
    case PTX_E_INT: *out = e->u.i; return true;
    case PTX_E_PAREN: return expr_int(e->u.a, out);
    case PTX_E_UNARY:
        if (!expr_int(e->u.a, &a)) return false;
        *out = e->op == '-' ? (int64_t)(0 - (uint64_t)a) : e->op == '~' ? ~a : e->op == '!' ? !a : a;
        return true;
    case PTX_E_BINARY:
        if (!expr_int(e->u.a, &a) || !expr_int(e->b, &c)) return false;
        switch (e->op) {
        case '+': *out = (int64_t)((uint64_t)a + (uint64_t)c); return true;
        case '-': *out = (int64_t)((uint64_t)a - (uint64_t)c); return true;
        case '*': *out = (int64_t)((uint64_t)a * (uint64_t)c); return true;
        default: return false;
        }
    default: return false;
    }
}

/* ---- operands ---- */
static inline ptx_operand *opd_push(ptx_builder *b) {
    ptx_operand o;
    memset(&o, 0, sizeof o);
    VPUSH(b->ostack, o);
    return &b->ostack.v[b->ostack.n - 1];
}

/* Fills o for a '%name' or plain register name; false if not a register. */
static bool resolve_reg(ptx_builder *b, ptx_str name, ptx_operand *o) {
    uint8_t comp = 0;
    ptx_str base = name;
    uint32_t id = reg_lookup(b, name);
    if (id == UINT32_MAX && name.n > 2 && name.p[name.n - 2] == '.') {
        base.n -= 2;
        comp = (uint8_t)name.p[name.n - 1];
        id = reg_lookup(b, base);
    }
    if (id != UINT32_MAX) {
        o->kind = PTX_O_REG;
        o->n = id;
        o->comp = comp;
        return true;
    }
    if (name.n && name.p[0] == '%') {
        uint32_t idx;
        ptx_sreg sr = ptx_sreg_lookup(base, &idx);
        if (sr != PTX_SR_UNKNOWN) {
            o->kind = PTX_O_SREG;
            o->n = sr;
            o->v = idx;
            o->comp = comp;
            o->p.text = name.p; /* spelling, component included */
            return true;
        }
    }
    return false;
}

/* resolve_reg, or else the symbol name: its answer. */
static bool reg_or_sym(ptx_builder *b, ptx_str name, ptx_operand *o) {
    if (resolve_reg(b, name, o)) return true;
    o->kind = PTX_O_SYM;
    o->p.text = name.p;
    o->n = name.n;
    return false;
}

void ptx_b_opd_reg(ptx_builder *b, ptx_str name, ptx_loc loc, int neg) {
    ptx_operand *o = opd_push(b);
    if (!reg_or_sym(b, name, o)) {
        if (b->in_body)
            ptx_b_error(b, loc, "use of undeclared register '%.*s'", (int)name.n, name.p);
        else
            ptx_b_error(b, loc, "register '%.*s' used outside a function body", (int)name.n, name.p);
    }
    o->neg = (uint8_t)neg;
}

uint32_t ptx_b_opd_regs(ptx_builder *b, ptx_str run, ptx_loc loc, int mode) {
    const char *p = run.p, *e = run.p + run.n;
    uint32_t n = 0;
    /* room for the run's registers (each takes 3 bytes or more: "%r,"), so
     * that the loop pushes without a test */
    if (b->ostack.cap - b->ostack.n < run.n / 3 + 1) {
        uint32_t nc = b->ostack.cap * 2 + run.n / 3 + 16;
        void *nv = realloc(b->ostack.v, (size_t)nc * sizeof *b->ostack.v);
        if (!nv) ptx_oom();
        b->ostack.v = nv;
        b->ostack.cap = nc;
    }
    while (p < e && !b->ls.stop) {
        const char *s = p;
        /* the name's end: its first ',' or blank, eight bytes at a time (a
         * byte's high bit is set in stop for the first of them exactly) */
        uint64_t w, stop = 0;
        if ((size_t)(p - b->ls.buf) + 8 <= b->ls.len + 2) { /* the text ends in 2 NULs */
            memcpy(&w, p, 8);
            uint64_t c = w ^ 0x2c2c2c2c2c2c2c2cull;
            stop = ((c - 0x0101010101010101ull) & ~c) | ((w - 0x2121212121212121ull) & ~w);
            stop &= 0x8080808080808080ull;
        }
        if (stop) p += __builtin_ctzll(stop) / 8;
        else while ((unsigned char)*p > ' ' && *p != ',') p++;
        ptx_str name = {s, (uint32_t)(p - s)};
        /* ptx_b_opd_reg without the call: a declared register is the rule */
        ptx_operand *o = &b->ostack.v[b->ostack.n++];
        memset(o, 0, sizeof *o);
        if (__builtin_expect(resolve_reg(b, name, o), 1)) {
            o->neg = (uint8_t)(n == 0 && mode == 1);
        } else { /* undeclared: ptx_b_opd_reg says so */
            b->ostack.n--;
            ptx_b_opd_reg(b, name, ptx_loc_at(b->ls.buf, b->ls.len, loc, s), n == 0 && mode == 1);
        }
        if (n++ == 0 && mode == 2) ptx_b_opd_agg(b, PTX_O_PAIR, 2);
        while (p < e && ((unsigned char)*p <= ' ' || *p == ',')) p++;
    }
    return n;
}

void ptx_b_opd_reg_off(ptx_builder *b, ptx_str name, ptx_loc loc, ptx_expr *off, int neg) {
    int64_t v = 0;
    if (!expr_int(off, &v)) ptx_b_error(b, off->loc, "address offset must be an integer constant");
    ptx_b_opd_reg(b, name, loc, 0);
    if (!b->has_off_loc) {
        b->off_loc = loc;
        b->has_off_loc = 1;
    }
    ptx_operand *o = &b->ostack.v[b->ostack.n - 1];
    o->flags |= PTX_ADDR_OFF;
    if (o->kind == PTX_O_SREG) b->sreg_off = neg ? (int64_t)(0 - (uint64_t)v) : v;
    else o->v = neg ? (int64_t)(0 - (uint64_t)v) : v;
    /* "[%r-4]" prints as "[%r+-4]": the same address */
}

static void imm_from(ptx_builder *b, ptx_operand *o, const ptx_expr *lit, const ptx_expr *whole) {
    o->kind = PTX_O_IMM;
    o->v = lit->u.i;
    o->flags = lit->kind == PTX_E_INT ? PTX_IMM_INT
             : lit->fkind == 'f'       ? PTX_IMM_F32
             : lit->fkind == 'd'       ? PTX_IMM_F64
                                       : PTX_IMM_DEC;
    /* spelling: from the sign (if any) to the end of the literal */
    const char *start = whole != lit ? b->ls.buf + whole->loc.off : lit->text.p;
    o->p.text = start;
    o->n = (uint32_t)(lit->text.p + lit->text.n - start);
    if (whole != lit) { /* unary minus */
        if (o->flags == PTX_IMM_INT) o->v = (int64_t)(0 - (uint64_t)o->v);
        else if (o->flags == PTX_IMM_F32) o->v ^= (int64_t)0x80000000u;
        else o->v = (int64_t)((uint64_t)o->v ^ 0x8000000000000000ull);
    }
}

void ptx_b_opd_expr(ptx_builder *b, ptx_expr *e) {
    ptx_operand *o = opd_push(b);
    if (e->kind == PTX_E_INT || e->kind == PTX_E_FLOAT) {
        imm_from(b, o, e, e);
        return;
    }
    if (e->kind == PTX_E_UNARY && e->op == '-' && (e->u.a->kind == PTX_E_INT || e->u.a->kind == PTX_E_FLOAT)) {
        imm_from(b, o, e->u.a, e);
        return;
    }
    if (e->kind == PTX_E_SYM) {
        if (ptx_str_eq(e->text, "_")) {
            o->kind = PTX_O_SINK;
            return;
        }
        if (b->in_body && resolve_reg(b, e->text, o)) return;
        o->kind = PTX_O_SYM;
        o->p.text = e->text.p;
        o->n = e->text.n;
        return;
    }
    if (b->in_body && e->kind == PTX_E_UNARY && e->op == '!' && e->u.a->kind == PTX_E_SYM &&
        resolve_reg(b, e->u.a->text, o)) {
        o->neg = 1;
        return;
    }
    if (b->in_body && e->kind == PTX_E_BINARY && e->op == '|' && e->u.a->kind == PTX_E_SYM &&
        e->b->kind == PTX_E_SYM) {
        ptx_operand x, y;
        memset(&x, 0, sizeof x);
        memset(&y, 0, sizeof y);
        /* "_|P" and "P|_" (elect.sync, shfl.sync): a sink on one side */
        bool sx = ptx_str_eq(e->u.a->text, "_"), sy = ptx_str_eq(e->b->text, "_");
        if (sx) x.kind = PTX_O_SINK;
        if (sy) y.kind = PTX_O_SINK;
        if (!(sx && sy) && (sx || resolve_reg(b, e->u.a->text, &x)) && (sy || resolve_reg(b, e->b->text, &y))) {
            o->kind = PTX_O_PAIR;
            o->n = 2;
            o->p.elems = ARENA_NEWN(b->a, ptx_operand, 2);
            o->p.elems[0] = x;
            o->p.elems[1] = y;
            return;
        }
    }
    o->kind = PTX_O_EXPR;
    o->p.expr = expr_copy(b, e);
}

void ptx_b_opd_agg(ptx_builder *b, int kind, uint32_t n) {
    ptx_operand *el = pop_n(b->a, b->ostack.v, &b->ostack.n, n, sizeof *el);
    ptx_operand *o = opd_push(b);
    o->kind = (uint8_t)kind;
    o->n = n;
    o->p.elems = el;
}

/* o = [base+off] */
static void addr_one(ptx_builder *b, ptx_operand *o, ptx_operand base, int64_t off, uint8_t flags) {
    ptx_operand *el = arena_alloc(b->a, sizeof *el);
    *el = base;
    *o = (ptx_operand){.kind = PTX_O_ADDR, .flags = flags, .n = 1, .p.elems = el, .v = off};
}

void ptx_b_opd_addr(ptx_builder *b, uint32_t n, ptx_loc loc) {
    ptx_loc offloc = b->has_off_loc ? b->off_loc : loc;
    b->has_off_loc = 0;
    if (n == 1) {
        ptx_operand *top = &b->ostack.v[b->ostack.n - 1];
        ptx_operand base = *top;
        int64_t off = 0;
        uint8_t flags = 0;
        if (base.kind == PTX_O_REG && (base.flags & PTX_ADDR_OFF)) {
            off = base.v;
            flags = PTX_ADDR_OFF;
            base.flags = 0;
            base.v = 0;
        } else if (base.kind == PTX_O_SREG && (base.flags & PTX_ADDR_OFF)) {
            /* "[%tid-16]": a special register's v is its family index, so
             * its offset waits in sreg_off (tests/regress) */
            off = b->sreg_off;
            flags = PTX_ADDR_OFF;
            base.flags = 0;
        } else if (base.kind == PTX_O_EXPR && base.p.expr->kind == PTX_E_BINARY &&
                   (base.p.expr->op == '+' || base.p.expr->op == '-') &&
                   base.p.expr->u.a->kind == PTX_E_SYM) {
            /* [sym+4], [sym-4], [reg_without_percent+4] */
            int64_t v;
            ptx_expr *e = base.p.expr;
            if (expr_int(e->b, &v)) {
                ptx_operand s;
                memset(&s, 0, sizeof s);
                reg_or_sym(b, e->u.a->text, &s);
                base = s;
                off = e->op == '-' ? (int64_t)(0 - (uint64_t)v) : v;
                flags = PTX_ADDR_OFF;
            }
        }
        addr_one(b, top, base, off, flags);
        return;
    }
    for (uint32_t i = 0; i < n; i++)
        if (b->ostack.v[b->ostack.n - n + i].flags & PTX_ADDR_OFF)
            ptx_b_error(b, offloc, "an offset is only allowed in a single-element address");
    ptx_b_opd_agg(b, PTX_O_ADDR, n);
}

/* "[base]" or "[base+off]" as lexed by the T_ADDR rule (blanks allowed). */
void ptx_b_opd_addr_tok(ptx_builder *b, ptx_str tok, ptx_loc loc) {
    const char *p = tok.p + 1, *e = tok.p + tok.n - 1; /* inside the brackets */
    while ((unsigned char)*p <= ' ') p++;
    const char *n0 = p;
    while (p < e && (unsigned char)*p > ' ' && *p != '+' && *p != '-' && *p != ']') p++;
    ptx_str name = {n0, (uint32_t)(p - n0)};
    ptx_operand base;
    memset(&base, 0, sizeof base);
    if (!reg_or_sym(b, name, &base) && name.p[0] == '%')
        ptx_b_error(b, ptx_loc_at(b->ls.buf, b->ls.len, loc, n0), "use of undeclared register '%.*s'", (int)name.n, name.p);
    int64_t off = 0;
    uint8_t flags = 0;
    while (p < e && (unsigned char)*p <= ' ') p++;
    if (p < e && (*p == '+' || *p == '-')) {
        int neg = *p++ == '-';
        while ((unsigned char)*p <= ' ') p++;
        if (*p == '-') { neg = !neg; p++; }
        const char *d0 = p;
        while (p < e && (unsigned char)*p > ' ') p++;
        uint64_t v = 0;
        if (!parse_uint((ptx_str){d0, (uint32_t)(p - d0)}, &v))
            ptx_b_error(b, ptx_loc_at(b->ls.buf, b->ls.len, loc, d0), "address offset '%.*s' does not fit in 64 bits", (int)(p - d0), d0);
        off = neg ? (int64_t)(0 - v) : (int64_t)v;
        flags = PTX_ADDR_OFF;
    }
    addr_one(b, opd_push(b), base, off, flags);
}

/* ---- instructions ---- */
int64_t ptx_b_guard(ptx_builder *b, ptx_str name, ptx_loc loc, int neg) {
    ptx_operand o;
    memset(&o, 0, sizeof o);
    if (!resolve_reg(b, name, &o) || o.kind != PTX_O_REG) {
        ptx_b_error(b, loc, "use of undeclared predicate '%.*s' as guard", (int)name.n, name.p);
        return 0;
    }
    if (b->regs.v[o.n].type != PTX_T_PRED) {
        ptx_b_error(b, loc, "guard '%.*s' is not a .pred register (declared %s)", (int)name.n, name.p,
                    ptx_type_name((ptx_type)b->regs.v[o.n].type));
        return 0;
    }
    return ((int64_t)1 << 40) | ((int64_t)(neg != 0) << 32) | o.n;
}

static __attribute__((noinline)) void decode_opcode_slow(ptx_builder *b, ptx_inst *in, ptx_loc loc) {
    const char *p = in->opcode, *e = p + in->opcode_len;
    const char *q = p;
    while (q < e && *q != '.') q++;
    in->op = (uint16_t)ptx_opcode_lookup(p, (size_t)(q - p));
    if (in->op == PTX_OPC_UNKNOWN) {
        ptx_str base = {p, (uint32_t)(q - p)};
        for (uint32_t i = 0; i < b->unknown_ops.n; i++)
            if (ptx_str_eqs(b->unknown_ops.v[i], base)) goto mods;
        VPUSH(b->unknown_ops, base);
        /* with the validation on, validate.c reports it as an error */
        if (!ptx_validation)
            ptx_diag_add(b->d, PTX_DIAG_WARNING, loc, "unknown instruction '%.*s': kept as written and treated conservatively",
                         (int)base.n, base.p);
    }
mods:;
    ptx_mod_iter it = ptx_mods_begin(in);
    for (ptx_str m; ptx_mods_next(&it, &m);) {
        uint8_t v;
        switch (ptx_mod_classify(m.p, m.n, &v)) {
        case PTX_MOD_TYPE: in->type2 = in->type; in->type = v; break;
        case PTX_MOD_SPACE: if (!in->space) in->space = v; break;
        case PTX_MOD_VEC: in->vec = v; break;
        default: break;
        }
        if (in->nmods < 255) in->nmods++;
    }
}

/* A program uses a few hundred distinct opcode spellings millions of times:
 * their decoding is cached, keyed by the spelling, with the validator's id
 * of the spelling (returned). */
static inline uint32_t decode_opcode(ptx_builder *b, ptx_inst *in, ptx_loc loc) {
    uint32_t n = in->opcode_len;
    const char *p = in->opcode;
    /* key: length, first and last 8 bytes, which for up to 16 bytes are the
     * whole name (longer names compare their middle too).  A shorter name is
     * read as one word when the buffer (2 NULs past the text) allows. */
    uint64_t head = 0, tail = 0;
    if (n >= 8) {
        memcpy(&head, p, 8);
        memcpy(&tail, p + n - 8, 8);
    } else if (p + 8 <= b->ls.buf + b->ls.len + 2) {
        memcpy(&head, p, 8);
        head &= n ? ~0ull >> (64 - 8 * n) : 0;
    } else {
        for (uint32_t i = 0; i < n; i++) head |= (uint64_t)(unsigned char)p[i] << (8 * i);
    }
    uint64_t x = head * 0x9E3779B97F4A7C15ull ^ tail * 0xC2B2AE3D27D4EB4Full ^ n;
    ptx_opcache *c = &b->opcache[(x >> 40) & (PTX_OPCACHE_SIZE - 1)];
    if (c->head == head && c->tail == tail && c->len == n && c->text &&
        (n <= 16 || memcmp(c->text + 8, p + 8, n - 16) == 0)) {
        in->op = c->op;
        in->nmods = c->nmods;
        in->type = c->type;
        in->type2 = c->type2;
        in->space = c->space;
        in->vec = c->vec;
        return c->spell;
    }
    decode_opcode_slow(b, in, loc);
    uint32_t spell = b->vs ? ptx_validate_spelling(b, in) : UINT32_MAX;
    *c = (ptx_opcache){p, head, tail, (uint16_t)n, in->op, in->nmods, in->type, in->type2, in->space, in->vec, spell};
    return spell;
}

void ptx_b_inst(ptx_builder *b, int64_t guard, ptx_str opcode, ptx_loc loc, uint32_t nopd) {
    ptx_stmt *s = new_stmt(b, PTX_S_INST, loc);
    ptx_inst *in = &s->u.inst;
    in->opcode = opcode.p;
    if (opcode.n > UINT16_MAX) {
        ptx_b_error(b, loc, "instruction name is too long");
        opcode.n = UINT16_MAX;
    }
    in->opcode_len = (uint16_t)opcode.n;
    if (guard) {
        in->has_guard = 1;
        in->guard_neg = (uint8_t)((guard >> 32) & 1);
        in->guard = (uint32_t)guard;
    }
    if (nopd > 255) {
        ptx_b_error(b, loc, "too many operands (%u; at most 255)", nopd);
        b->ostack.n -= nopd;
        nopd = 0;
    }
    in->nopd = (uint8_t)nopd;
    if (nopd) {
        in->opd = arena_alloc(b->a, nopd * sizeof *in->opd);
        b->ostack.n -= nopd;
        copy_n(in->opd, b->ostack.v + b->ostack.n, nopd * sizeof *in->opd);
    }
    uint32_t spell = decode_opcode(b, in, loc);
    if (in->op == PTX_OPC_CALL) {
        /* "(x)" was read as a parenthesised expression: it is a list here */
        for (uint32_t i = 0; i < nopd; i++) {
            ptx_operand *o = &in->opd[i];
            if (o->kind == PTX_O_EXPR && o->p.expr->kind == PTX_E_PAREN) {
                ptx_expr *inner = o->p.expr->u.a;
                ptx_operand el;
                memset(&el, 0, sizeof el);
                if (inner->kind == PTX_E_SYM) reg_or_sym(b, inner->text, &el);
                else if (inner->kind == PTX_E_INT || inner->kind == PTX_E_FLOAT) imm_from(b, &el, inner, inner);
                else {
                    el.kind = PTX_O_EXPR;
                    el.p.expr = inner;
                }
                o->kind = PTX_O_LIST;
                o->n = 1;
                o->p.elems = ARENA_NEW(b->a, ptx_operand);
                o->p.elems[0] = el;
            }
        }
    }
    if (b->fn) b->fn->ninsts++;
    add_stmt(b, s);
    if (b->vs && b->in_body && b->fn) ptx_validate_inst(b, s, spell);
    if (b->pool.cur != b->pool_reset) { /* most instructions built no expression */
        arena_reset(&b->pool);
        b->pool_reset = b->pool.cur;
    }
}
