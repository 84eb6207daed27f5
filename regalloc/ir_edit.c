#include "ir_edit.h"
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ir_edit_int.h"

ra_shapes *ra_shapes_new(ptx_module *m)
{
    ra_shapes *s = calloc(1, sizeof *s);
    if (!s) abort();
    s->m = m;
    return s;
}

void ra_shapes_free(ra_shapes *s)
{
    if (!s) return;
    free(s->text);
    free(s->off);
    free(s->len);
    free(s->lit);
    free(s->lits);
    free(s->master);
    free(s->hash);
    free(s->calls);
    free(s->sigs);
    free(s->rec_src);
    free(s->rec_val);
    free(s->chash);
    free(s);
}

static void put_text(ra_shapes *s, const char *p, size_t n)
{
    if (s->tlen + n > s->tcap) {
        s->tcap = (s->tlen + n) * 2;
        s->text = xrealloc(s->text, s->tcap);
    }
    memcpy(s->text + s->tlen, p, n);
    s->tlen += n;
}

/* Eight bytes at a time: shape keys, and signatures that are mostly
 * pointers and numbers. */
static uint32_t hash_bytes(const uint8_t *p, size_t n)
{
    uint64_t h = n, w;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        memcpy(&w, p + i, 8);
        h = ((h << 5 | h >> 59) ^ w) * 0x517cc1b727220a95ull;
    }
    for (; i < n; i++) h = ((h << 5 | h >> 59) ^ p[i]) * 0x517cc1b727220a95ull;
    return (uint32_t)(h >> 32);
}

/* The index of shape key[0..n), added (with the literals of this first use)
 * if new. */
static uint32_t intern(ra_shapes *s, const char *key, size_t n, const int64_t *lit, uint32_t nlit)
{
    if ((s->n + 1) * 2 > s->hcap) {
        uint32_t cap = s->hcap ? s->hcap * 2 : 64;
        uint32_t *h = calloc(cap, sizeof *h);
        if (!h) abort();
        for (uint32_t i = 0; i < s->n; i++) {
            uint32_t j = hash_bytes((const uint8_t *)s->text + s->off[i], s->len[i]) & (cap - 1);
            while (h[j]) j = (j + 1) & (cap - 1);
            h[j] = i + 1;
        }
        free(s->hash);
        s->hash = h;
        s->hcap = cap;
    }
    uint32_t j = hash_bytes((const uint8_t *)key, n) & (s->hcap - 1);
    for (; s->hash[j]; j = (j + 1) & (s->hcap - 1)) {
        uint32_t i = s->hash[j] - 1;
        if (s->len[i] == n && !memcmp(s->text + s->off[i], key, n)) return i;
    }
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 64;
        s->off = xrealloc(s->off, s->cap * sizeof *s->off);
        s->len = xrealloc(s->len, s->cap * sizeof *s->len);
        s->lit = xrealloc(s->lit, s->cap * sizeof *s->lit);
        s->master = xrealloc(s->master, s->cap * sizeof *s->master);
    }
    uint32_t i = s->n++;
    s->off[i] = s->tlen;
    s->len[i] = (uint32_t)n;
    s->lit[i] = s->nlits;
    s->master[i] = NULL;
    put_text(s, key, n);
    for (uint32_t k = 0; k < nlit; k++) {
        s->lits = grow(s->lits, s->nlits, &s->caplits, sizeof *s->lits);
        s->lits[s->nlits++] = lit[k];
    }
    s->hash[j] = i + 1;
    return i;
}

/* ---- edits ---------------------------------------------------------------- */

static bool starts_with(ptx_str s, const char *z)
{
    size_t n = strlen(z);
    return s.n >= n && !memcmp(s.p, z, n);
}

/* Whether some register of fn, or a register range declared in it, could
 * collide with names that start with prefix. */
static bool prefix_taken(const ptx_func *fn, const char *prefix)
{
    for (uint32_t r = 0; r < fn->nregs; r++)
        if (starts_with(fn->regs[r].name, prefix)) return true;
    for (uint32_t s = 0; s < fn->nstmts; s++) {
        const ptx_stmt *st = fn->stmts[s];
        if (st->kind == PTX_S_VAR && starts_with(st->u.var->name, prefix)) return true;
    }
    return false;
}

ra_edit *ra_edit_new(ra_shapes *sh, ptx_func *fn)
{
    ra_edit *e = calloc(1, sizeof *e);
    if (!e) abort();
    e->m = sh->m;
    e->fn = fn;
    e->sh = sh;
    arena_init(&e->names);
    e->old_nregs = fn->nregs;
    for (unsigned k = 0;; k++) {
        if (k) snprintf(e->prefix, sizeof e->prefix, "%%ra%u_", k);
        else snprintf(e->prefix, sizeof e->prefix, "%%ra_");
        if (!prefix_taken(fn, e->prefix)) break;
    }
    e->cur_stmt = RA_EDIT_START;
    return e;
}

uint32_t ra_edit_reg_tagged(ra_edit *e, unsigned type, char tag)
{
    if (e->nnew == e->capnew) { /* both arrays grow together */
        e->capnew = e->capnew ? e->capnew * 2 : 256;
        e->rtype = xrealloc(e->rtype, e->capnew);
        e->rtag = xrealloc(e->rtag, e->capnew);
    }
    e->rtype[e->nnew] = (uint8_t)type;
    e->rtag[e->nnew] = tag;
    return e->old_nregs + e->nnew++;
}

uint32_t ra_edit_reg(ra_edit *e, unsigned type) { return ra_edit_reg_tagged(e, type, 0); }

const char *ra_edit_rname(ra_edit *e, uint32_t r)
{
    if (r >= e->cap_regs) {
        uint32_t cap = e->cap_regs ? e->cap_regs : 64;
        while (cap <= r) cap *= 2;
        e->rnames = xrealloc(e->rnames, cap * sizeof *e->rnames);
        memset(e->rnames + e->cap_regs, 0, (cap - e->cap_regs) * sizeof *e->rnames);
        e->cap_regs = cap;
    }
    if (!e->rnames[r]) {
        char buf[24] = "%x";
        e->rnames[r] = arena_strndup(&e->names, buf, 2 + put_u64(buf + 2, r));
    }
    return e->rnames[r];
}

static bool symbol_taken(const ptx_module *m, const ptx_func *fn, const char *name)
{
    for (uint32_t i = 0; i < m->nstmts; i++) {
        const ptx_stmt *s = m->stmts[i];
        if (s->kind == PTX_S_VAR && ptx_str_eq(s->u.var->name, name)) return true;
    }
    for (uint32_t i = 0; i < m->nfuncs; i++)
        if (ptx_str_eq(m->funcs[i]->name, name)) return true;
    for (uint32_t i = 0; i < fn->nstmts; i++) {
        const ptx_stmt *s = fn->stmts[i];
        if (s->kind == PTX_S_VAR && ptx_str_eq(s->u.var->name, name)) return true;
        if (s->kind == PTX_S_LABEL && ptx_str_eq(s->u.name, name)) return true;
    }
    for (uint32_t i = 0; i < fn->nparams; i++)
        if (ptx_str_eq(fn->params[i]->name, name)) return true;
    return false;
}

const char *ra_edit_symbol(ra_edit *e, const char *base)
{
    for (uint32_t i = 0; i < e->nsyms; i++)
        if (!strcmp(e->sym_base[i], base)) return e->syms[i];
    if (e->nsyms == sizeof e->syms / sizeof e->syms[0]) abort();
    char buf[64];
    for (unsigned k = 0;; k++) {
        if (k) snprintf(buf, sizeof buf, "%s%u", base, k);
        else snprintf(buf, sizeof buf, "%s", base);
        if (!symbol_taken(e->m, e->fn, buf)) break;
    }
    e->syms[e->nsyms] = strdup(buf);
    e->sym_base[e->nsyms] = base;
    if (!e->syms[e->nsyms]) abort();
    return e->syms[e->nsyms++];
}

void ra_edit_array(ra_edit *e, ptx_space space, uint32_t align, uint32_t bytes, const char *name)
{
    if (e->nvars == sizeof e->vars / sizeof e->vars[0]) abort();
    e->vars[e->nvars++] = (newvar){space, align, bytes ? bytes : align, name};
}

static void own_opd(arena *a, ptx_operand *d, const ptx_operand *s)
{
    *d = *s;
    uint32_t n = s->kind == PTX_O_PAIR ? 2 : s->n;
    if (s->kind != PTX_O_ADDR && s->kind != PTX_O_VEC && s->kind != PTX_O_LIST && s->kind != PTX_O_PAIR) return;
    d->p.elems = ARENA_NEWN(a, ptx_operand, n ? n : 1);
    for (uint32_t i = 0; i < n; i++) own_opd(a, &d->p.elems[i], &s->p.elems[i]);
}

ptx_inst *ra_edit_own(ra_edit *e, uint32_t s)
{
    arena *a = &e->m->arena;
    const ptx_stmt *old = e->fn->stmts[s];
    size_t bytes = ptx_stmt_bytes(old->kind); /* an instruction's, not sizeof(ptx_stmt) */
    ptx_stmt *st = arena_alloc(a, bytes);
    memcpy(st, old, bytes);
    ptx_inst *in = &st->u.inst;
    in->opd = ARENA_NEWN(a, ptx_operand, in->nopd ? in->nopd : 1);
    for (uint32_t i = 0; i < in->nopd; i++) own_opd(a, &in->opd[i], &old->u.inst.opd[i]);
    e->fn->stmts[s] = st;
    return in;
}

void ra_edit_at(ra_edit *e, uint32_t s, bool after)
{
    e->cur_stmt = s;
    e->cur_after = after;
}

static unsigned reg_type(const ra_edit *e, uint32_t r)
{
    return r < e->old_nregs ? e->fn->regs[r].type : e->rtype[r - e->old_nregs];
}

static bool is_word(char c) { return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '.' || c == '$'; }

/* The shape of one emitted line, built as the line is formatted: a
 * register (%x<r>) becomes a placeholder, an integer literal (an operand
 * or an address offset: after ' ', ',', '[' or '+') becomes %N and its
 * value goes to e->nums.  Formatting the line with vsnprintf and reading
 * it back was a fifth of the pass. */
typedef struct shape_b {
    ra_edit *e;
    char k[1024];
    size_t n;
    uint32_t a0, na; /* the line's registers: e->args[a0 .. a0 + na) */
} shape_b;

static void sb_char(shape_b *b, char c)
{
    if (b->n + 24 >= sizeof b->k) abort();
    b->k[b->n++] = c;
}

/* An integer literal may follow c: an operand or an address offset. */
static bool literal_after(char c) { return c == ' ' || c == ',' || c == '[' || c == '+'; }

/* "%x<r>" at p (ra_edit_rname's spelling): r, and the end of the name;
 * NULL when p is not one. */
static const char *xreg_at(const char *p, uint32_t *r)
{
    if (p[0] != '%' || p[1] != 'x' || !is_digit(p[2])) return NULL;
    uint32_t v = 0;
    for (p += 2; is_digit(*p); p++) v = v * 10 + (uint32_t)(*p - '0');
    *r = v;
    return p;
}

static bool sb_literal_here(const shape_b *b) { return b->n && literal_after(b->k[b->n - 1]); }

static void sb_literal(shape_b *b, int64_t v)
{
    ra_edit *e = b->e;
    e->nums = grow(e->nums, e->nnums, &e->capnums, sizeof *e->nums);
    e->nums[e->nnums++] = v;
    sb_char(b, '%');
    sb_char(b, 'N');
}

static void sb_reg(shape_b *b, uint32_t r)
{
    ra_edit *e = b->e;
    uint32_t k = 0;
    while (k < b->na && e->args[b->a0 + k] != r) k++;
    if (k == b->na) {
        e->args = grow(e->args, e->nargs, &e->capargs, sizeof *e->args);
        e->args[e->nargs++] = r;
        b->na++;
    }
    sb_char(b, '%');
    sb_char(b, 'P');
    b->n += put_u64(b->k + b->n, k);
}

/* Text of the format or of a %s argument: registers and literals in it
 * are found the same way (digits inside a word, .b32 or a symbol, and
 * float spellings like 0f3F800000 are neither). */
static void sb_text(shape_b *b, const char *s, size_t n)
{
    for (const char *p = s, *end = s + n; p < end;) {
        uint32_t r;
        const char *q = xreg_at(p, &r);
        if (q) {
            sb_reg(b, r);
            p = q;
            continue;
        }
        if ((is_digit(*p) || *p == '-') && sb_literal_here(b)) {
            bool neg = *p == '-' && b->k[b->n - 1] != '+';
            uint64_t v = 0;
            for (q = p + neg; is_digit(*q) && q - p < 19; q++) v = v * 10 + (uint64_t)(*q - '0');
            if (q > p + neg && !is_word(*q)) {
                sb_literal(b, neg ? (int64_t)(0 - v) : (int64_t)v);
                p = q;
                continue;
            }
        }
        sb_char(b, *p++);
    }
}

static void sb_number(shape_b *b, int64_t v, bool is_signed)
{
    if (sb_literal_here(b)) {
        sb_literal(b, v);
        return;
    }
    if (b->n + 24 >= sizeof b->k) abort();
    b->n += is_signed ? put_i64(b->k + b->n, v) : put_u64(b->k + b->n, (uint64_t)v);
}

/* One conversion of an emitted line's format, with the format's text
 * before it. */
typedef struct conv {
    const char *pre; /* the text before it (no '%' in it) ... */
    uint32_t npre;   /* ... and its length */
    char kind;       /* 's', 'u', 'd'; '%' for "%%"; 0: the end of the format */
    bool lit;        /* a number where a literal goes (literal_after the format's character before it) */
    const char *s;
    int64_t v;
} conv;

#define MAX_CONV 16

/* Register name "%x<r>" (ra_edit_rname), whole. */
static bool reg_name(const char *s, uint32_t *r)
{
    const char *e = xreg_at(s, r);
    return e && !*e;
}

/* The slow path: the line's shape from its text; nsrc[i]: where literal i
 * came from (a conversion's index, or -1: the format's or a text
 * argument's own). */
static uint32_t shape_of_text(ra_edit *e, const conv *cv, int8_t *nsrc)
{
    shape_b b;
    b.e = e;
    b.n = 0;
    b.a0 = e->nargs;
    b.na = 0;
    uint32_t n0 = e->nnums;
    for (const conv *c = cv;; c++) {
        sb_text(&b, c->pre, c->npre);
        if (!c->kind) break;
        if (c->kind == '%') sb_char(&b, '%');
        else if (c->kind == 's') sb_text(&b, c->s, strlen(c->s));
        else {
            uint32_t before = e->nnums;
            sb_number(&b, c->v, c->kind == 'd');
            if (e->nnums > before) nsrc[before - n0] = (int8_t)(c - cv);
        }
    }
    if (b.n == 0 || b.k[b.n - 1] != ';') sb_char(&b, ';');
    sb_char(&b, '\x01');
    for (uint32_t k = 0; k < b.na; k++) sb_char(&b, (char)(reg_type(e, e->args[b.a0 + k]) + 1));
    /* no numbers yet: nums may still be NULL, and NULL + 0 is undefined */
    return intern(e->sh, b.k, b.n, e->nums ? e->nums + n0 : NULL, e->nnums - n0);
}

/* The fast path.  A line is known by its signature: its format (by
 * address: each call site has its own), for each register argument the
 * first argument holding the same register and its type, the text of the
 * other string arguments, and the numbers that are not literals.  Lines
 * with the same signature have the same shape; their registers are the
 * distinct register arguments in order and their literals follow a
 * recipe kept from the first (a number argument, or a constant of the
 * text).  Formatting each spill line and reading it back was a fifth of
 * the pass; a signature costs a walk over the format. */
typedef struct call_sig {
    size_t off;       /* in sigs */
    uint32_t len;
    uint32_t shape;
    uint32_t rec, nrec; /* recipe: rec_src/rec_val[rec .. rec + nrec) */
} call_sig;

void ra_edit_emit(ra_edit *e, const char *fmt, ...)
{
    ra_shapes *sh = e->sh;
    conv cv[MAX_CONV];
    unsigned nc = 0;
    bool cacheable = true;
    va_list ap;
    va_start(ap, fmt);
    /* the conversions the pass writes: %s, %u, %d (with l or ll) and %% */
    char prev = 0; /* the format's character before a conversion, 1: a conversion */
    for (const char *f = fmt;;) {
        const char *q = strchr(f, '%');
        if (nc == MAX_CONV) abort();
        conv *c = &cv[nc++];
        c->pre = f;
        c->npre = (uint32_t)(q ? q - f : (ptrdiff_t)strlen(f));
        if (!q) {
            c->kind = 0;
            break;
        }
        if (q > f) prev = q[-1];
        if (q[1] == '%') {
            c->kind = '%';
            prev = '%';
            f = q + 2;
            continue;
        }
        unsigned longs = 0;
        for (f = q + 1; *f == 'l'; f++) longs++;
        c->kind = *f;
        c->lit = literal_after(prev);
        if (prev == 1 && *f != 's') cacheable = false; /* a number right after a conversion */
        switch (*f) {
        case 's': c->s = va_arg(ap, const char *); break;
        case 'u':
            c->v = (int64_t)(longs == 0 ? va_arg(ap, unsigned) : longs == 1 ? va_arg(ap, unsigned long)
                                                                          : va_arg(ap, unsigned long long));
            break;
        case 'd': c->v = longs == 0 ? va_arg(ap, int) : longs == 1 ? va_arg(ap, long) : va_arg(ap, long long); break;
        default: abort(); /* a conversion the pass does not write */
        }
        prev = 1;
        f++;
    }
    va_end(ap);

    uint8_t sig[512];
    size_t sn = 0;
    memcpy(sig, &fmt, sizeof fmt);
    sn += sizeof fmt;
    uint32_t rv[MAX_CONV], nr = 0;
    for (unsigned i = 0; i < nc && cacheable; i++) {
        const conv *c = &cv[i];
        uint32_t r;
        if (c->kind == '%' || !c->kind) continue; /* the format's own text */
        if (sn + 32 >= sizeof sig) {
            cacheable = false;
            break;
        }
        if (c->kind == 's' && reg_name(c->s, &r)) {
            uint32_t j = 0;
            while (j < nr && rv[j] != r) j++;
            if (j == nr) rv[nr++] = r;
            sig[sn++] = 'R';
            sig[sn++] = (uint8_t)j;
            sig[sn++] = (uint8_t)reg_type(e, r);
        } else if (c->kind == 's') {
            size_t len = strlen(c->s);
            if (len > 24 || strstr(c->s, "%x")) cacheable = false; /* a register inside text: the slow path */
            else {
                sig[sn++] = 'S';
                sig[sn++] = (uint8_t)len;
                memcpy(sig + sn, c->s, len);
                sn += len;
            }
        } else if (c->lit)
            sig[sn++] = 'L';
        else {
            sig[sn++] = 'U';
            memcpy(sig + sn, &c->v, sizeof c->v);
            sn += sizeof c->v;
        }
    }

    uint32_t h = 0, slot = 0;
    if (cacheable) {
        h = hash_bytes(sig, sn);
        if (sh->chcap)
            for (slot = h & (sh->chcap - 1); sh->chash[slot]; slot = (slot + 1) & (sh->chcap - 1)) {
                const call_sig *cs = &sh->calls[sh->chash[slot] - 1];
                if (cs->len != sn || memcmp(sh->sigs + cs->off, sig, sn)) continue;
                uint32_t a0 = e->nargs, n0 = e->nnums;
                for (uint32_t j = 0; j < nr; j++) {
                    e->args = grow(e->args, e->nargs, &e->capargs, sizeof *e->args);
                    e->args[e->nargs++] = rv[j];
                }
                for (uint32_t j = 0; j < cs->nrec; j++) {
                    int8_t src = sh->rec_src[cs->rec + j];
                    e->nums = grow(e->nums, e->nnums, &e->capnums, sizeof *e->nums);
                    e->nums[e->nnums++] = src < 0 ? sh->rec_val[cs->rec + j] : cv[src].v;
                }
                e->p = grow(e->p, e->np, &e->capp, sizeof *e->p);
                e->p[e->np++] = (pending){e->cur_stmt, e->cur_after, cs->shape, a0, n0};
                return;
            }
    }

    uint32_t a0 = e->nargs, n0 = e->nnums;
    int8_t nsrc[64];
    memset(nsrc, -1, sizeof nsrc);
    uint32_t shape = shape_of_text(e, cv, nsrc);
    e->p = grow(e->p, e->np, &e->capp, sizeof *e->p);
    e->p[e->np++] = (pending){e->cur_stmt, e->cur_after, shape, a0, n0};
    uint32_t nlit = e->nnums - n0;
    if (!cacheable || nlit > sizeof nsrc || e->nargs - a0 != nr) return;
    /* remember the signature (rehash at half load) */
    if ((sh->ncalls + 1) * 2 > sh->chcap) {
        uint32_t cap = sh->chcap ? sh->chcap * 2 : 64;
        uint32_t *t = calloc(cap, sizeof *t);
        if (!t) abort();
        for (uint32_t i = 0; i < sh->ncalls; i++) {
            uint32_t j = hash_bytes(sh->sigs + sh->calls[i].off, sh->calls[i].len) & (cap - 1);
            while (t[j]) j = (j + 1) & (cap - 1);
            t[j] = i + 1;
        }
        free(sh->chash);
        sh->chash = t;
        sh->chcap = cap;
    }
    for (slot = h & (sh->chcap - 1); sh->chash[slot];) slot = (slot + 1) & (sh->chcap - 1);
    sh->calls = grow(sh->calls, sh->ncalls, &sh->capcalls, sizeof *sh->calls);
    call_sig *cs = &sh->calls[sh->ncalls];
    cs->off = sh->sglen;
    cs->len = (uint32_t)sn;
    cs->shape = shape;
    cs->rec = sh->nrec;
    cs->nrec = nlit;
    if (sh->sglen + sn > sh->sgcap) {
        sh->sgcap = (sh->sglen + sn) * 2;
        sh->sigs = xrealloc(sh->sigs, sh->sgcap);
    }
    memcpy(sh->sigs + sh->sglen, sig, sn);
    sh->sglen += sn;
    for (uint32_t j = 0; j < nlit; j++) {
        if (sh->nrec == sh->caprec) {
            sh->caprec = sh->caprec ? sh->caprec * 2 : 256;
            sh->rec_src = xrealloc(sh->rec_src, sh->caprec * sizeof *sh->rec_src);
            sh->rec_val = xrealloc(sh->rec_val, sh->caprec * sizeof *sh->rec_val);
        }
        sh->rec_src[sh->nrec] = nsrc[j];
        sh->rec_val[sh->nrec++] = e->nums[n0 + j];
    }
    sh->chash[slot] = ++sh->ncalls;
}

uint32_t ra_edit_mark(const ra_edit *e) { return e->np; }

void ra_edit_replay(ra_edit *e, uint32_t from, uint32_t to, const uint32_t *old, const uint32_t *new_, unsigned n)
{
    if (from >= to) return;
    /* the lines' registers and literals are contiguous: from line from's
     * up to line to's (or the end) */
    uint32_t a_lo = e->p[from].args, a_hi = to < e->np ? e->p[to].args : e->nargs;
    uint32_t n_lo = e->p[from].nums, n_hi = to < e->np ? e->p[to].nums : e->nnums;
    uint32_t da = e->nargs - a_lo, dn = e->nnums - n_lo;
    e->args = reserve(e->args, e->nargs + (a_hi - a_lo), &e->capargs, sizeof *e->args);
    e->nums = reserve(e->nums, e->nnums + (n_hi - n_lo), &e->capnums, sizeof *e->nums);
    e->p = reserve(e->p, e->np + (to - from), &e->capp, sizeof *e->p);
    for (uint32_t k = a_lo; k < a_hi; k++) {
        uint32_t r = e->args[k];
        for (unsigned j = 0; j < n; j++)
            if (r == old[j]) {
                r = new_[j];
                break;
            }
        e->args[e->nargs++] = r;
    }
    memcpy(e->nums + e->nnums, e->nums + n_lo, (n_hi - n_lo) * sizeof *e->nums);
    e->nnums += n_hi - n_lo;
    for (uint32_t i = from; i < to; i++)
        e->p[e->np++] = (pending){e->cur_stmt, e->cur_after, e->p[i].shape, e->p[i].args + da, e->p[i].nums + dn};
}
