#include "ir_edit.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ptx.h"

typedef struct pending {
    uint32_t stmt; /* anchor, or RA_EDIT_START */
    uint8_t after;
    uint32_t line; /* which distinct template it is */
    uint32_t args; /* its registers: args[args ..], placeholder k at args + k */
} pending;

typedef struct newvar {
    ptx_space space;
    uint32_t align, bytes;
    const char *name;
} newvar;

struct ra_edit {
    ptx_module *m;
    ptx_func *fn;
    uint32_t old_nregs;
    /* new registers: type per register past old_nregs */
    uint8_t *rtype;
    uint32_t nnew, capnew;
    char prefix[16]; /* "%ra_" or a variant that clashes with nothing */
    char **names;    /* ra_edit_rname results, per register (lazily) */
    uint8_t *mentioned; /* per register: named in the emitted text */
    uint32_t cap_regs;
    pending *p;
    uint32_t np, capp;
    /* The distinct instruction templates, each parsed once: a line with
     * its registers replaced by placeholders %P<k> (k: order of first
     * appearance), then \x01 and each placeholder's type + 1.  Spill code
     * repeats few shapes (a reload from one slot into a fresh temporary),
     * so the scratch parse reads each shape once and the copies patch in
     * the registers. */
    uint32_t *args;
    uint32_t nargs, capargs;
    char *text;
    size_t tlen, tcap;
    uint32_t nlines, caplines;
    size_t *line_off;   /* per distinct line: offset in text (after the tab) */
    uint32_t *line_len; /* ... and length, without the newline */
    uint32_t *hash;     /* open addressing: line index + 1, 0 empty */
    uint32_t hcap;
    newvar vars[4];
    uint32_t nvars;
    char *syms[4];
    const char *sym_base[4]; /* what each was asked for (string literals) */
    uint32_t nsyms;
    uint32_t cur_stmt;
    uint8_t cur_after;
};

static void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n);
    if (!p) abort();
    return p;
}

/* Decimal digits of v at p (no terminator); their count.  snprintf for
 * every new register name was a visible part of the pass. */
static size_t put_u(char *p, uint32_t v)
{
    char t[10];
    size_t n = 0;
    do t[n++] = (char)('0' + v % 10), v /= 10;
    while (v);
    for (size_t i = 0; i < n; i++) p[i] = t[n - 1 - i];
    return n;
}

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

ra_edit *ra_edit_new(ptx_module *m, ptx_func *fn)
{
    ra_edit *e = calloc(1, sizeof *e);
    if (!e) abort();
    e->m = m;
    e->fn = fn;
    e->old_nregs = fn->nregs;
    for (unsigned k = 0;; k++) {
        if (k) snprintf(e->prefix, sizeof e->prefix, "%%ra%u_", k);
        else snprintf(e->prefix, sizeof e->prefix, "%%ra_");
        if (!prefix_taken(fn, e->prefix)) break;
    }
    e->cur_stmt = RA_EDIT_START;
    return e;
}

static void grow_regs(ra_edit *e, uint32_t n)
{
    if (n <= e->cap_regs) return;
    uint32_t cap = e->cap_regs ? e->cap_regs : 64;
    while (cap < n) cap *= 2;
    e->names = xrealloc(e->names, cap * sizeof *e->names);
    e->mentioned = xrealloc(e->mentioned, cap);
    memset(e->names + e->cap_regs, 0, (cap - e->cap_regs) * sizeof *e->names);
    memset(e->mentioned + e->cap_regs, 0, cap - e->cap_regs);
    e->cap_regs = cap;
}

uint32_t ra_edit_reg(ra_edit *e, unsigned type)
{
    if (e->nnew == e->capnew) {
        e->capnew = e->capnew ? e->capnew * 2 : 64;
        e->rtype = xrealloc(e->rtype, e->capnew);
    }
    e->rtype[e->nnew] = (uint8_t)type;
    return e->old_nregs + e->nnew++;
}

const char *ra_edit_rname(ra_edit *e, uint32_t r)
{
    grow_regs(e, r + 1);
    e->mentioned[r] = 1;
    if (!e->names[r]) {
        char buf[24] = "%x";
        buf[2 + put_u(buf + 2, r)] = 0;
        e->names[r] = strdup(buf);
        if (!e->names[r]) abort();
    }
    return e->names[r];
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

void ra_edit_at(ra_edit *e, uint32_t s, bool after)
{
    e->cur_stmt = s;
    e->cur_after = after;
}

static void put_text(ra_edit *e, const char *s, size_t n)
{
    if (e->tlen + n + 1 > e->tcap) {
        e->tcap = (e->tlen + n + 1) * 2;
        e->text = xrealloc(e->text, e->tcap);
    }
    memcpy(e->text + e->tlen, s, n);
    e->tlen += n;
    e->text[e->tlen] = 0;
}

static uint32_t hash_line(const char *p, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) h = (h ^ (uint8_t)p[i]) * 16777619u;
    return h;
}

/* The index of line p[0..n) among the distinct lines, added if new. */
static uint32_t intern_line(ra_edit *e, const char *p, size_t n)
{
    if ((e->nlines + 1) * 2 > e->hcap) {
        uint32_t cap = e->hcap ? e->hcap * 2 : 256;
        uint32_t *h = calloc(cap, sizeof *h);
        if (!h) abort();
        for (uint32_t i = 0; i < e->nlines; i++) {
            uint32_t j = hash_line(e->text + e->line_off[i], e->line_len[i]) & (cap - 1);
            while (h[j]) j = (j + 1) & (cap - 1);
            h[j] = i + 1;
        }
        free(e->hash);
        e->hash = h;
        e->hcap = cap;
    }
    uint32_t j = hash_line(p, n) & (e->hcap - 1);
    for (; e->hash[j]; j = (j + 1) & (e->hcap - 1)) {
        uint32_t i = e->hash[j] - 1;
        if (e->line_len[i] == n && !memcmp(e->text + e->line_off[i], p, n)) return i;
    }
    if (e->nlines == e->caplines) {
        e->caplines = e->caplines ? e->caplines * 2 : 256;
        e->line_off = xrealloc(e->line_off, e->caplines * sizeof *e->line_off);
        e->line_len = xrealloc(e->line_len, e->caplines * sizeof *e->line_len);
    }
    uint32_t i = e->nlines++;
    put_text(e, "\t", 1);
    e->line_off[i] = e->tlen;
    e->line_len[i] = (uint32_t)n;
    put_text(e, p, n);
    put_text(e, "\n", 1);
    e->hash[j] = i + 1;
    return i;
}

static unsigned reg_type(const ra_edit *e, uint32_t r)
{
    return r < e->old_nregs ? e->fn->regs[r].type : e->rtype[r - e->old_nregs];
}

void ra_edit_emit(ra_edit *e, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof buf - 1) abort();
    if (n == 0 || buf[n - 1] != ';') buf[n++] = ';', buf[n] = 0;
    if (e->np == e->capp) {
        e->capp = e->capp ? e->capp * 2 : 256;
        e->p = xrealloc(e->p, e->capp * sizeof *e->p);
    }
    /* the template: registers %x<r> become placeholders */
    char key[1024];
    size_t kn = 0;
    uint32_t a0 = e->nargs, na = 0;
    for (int i = 0; i < n;) {
        if (buf[i] == '%' && buf[i + 1] == 'x' && buf[i + 2] >= '0' && buf[i + 2] <= '9') {
            uint32_t r = 0;
            for (i += 2; buf[i] >= '0' && buf[i] <= '9'; i++) r = r * 10 + (uint32_t)(buf[i] - '0');
            uint32_t k = 0;
            while (k < na && e->args[a0 + k] != r) k++;
            if (k == na) {
                if (e->nargs == e->capargs) {
                    e->capargs = e->capargs ? e->capargs * 2 : 256;
                    e->args = xrealloc(e->args, e->capargs * sizeof *e->args);
                }
                e->args[e->nargs++] = r;
                na++;
            }
            key[kn++] = '%';
            key[kn++] = 'P';
            kn += put_u(key + kn, k);
        } else
            key[kn++] = buf[i++];
        if (kn + 16 >= sizeof key) abort();
    }
    key[kn++] = '\x01';
    for (uint32_t k = 0; k < na; k++) key[kn++] = (char)(reg_type(e, e->args[a0 + k]) + 1);
    e->p[e->np++] = (pending){e->cur_stmt, e->cur_after, intern_line(e, key, kn), a0};
}

uint32_t ra_edit_count(const ra_edit *e) { return e->np; }

/* ---- commit ------------------------------------------------------------- */

static const char *adup(ra_edit *e, const char *s, size_t n) { return arena_strndup(&e->m->arena, s, n); }

/* Scratch register %t<template>_<k>: the pending's placeholder k. */
static uint32_t map_reg(const ptx_func *mf, uint32_t n, const uint32_t *args)
{
    ptx_str name = mf->regs[n].name;
    if (name.n < 4 || name.p[0] != '%' || name.p[1] != 't') abort();
    uint32_t i = 2;
    while (i < name.n && name.p[i] != '_') i++;
    if (i + 1 >= name.n) abort();
    uint32_t k = 0;
    for (i++; i < name.n; i++) k = k * 10 + (uint32_t)(name.p[i] - '0');
    return args[k];
}

static void copy_opd(ra_edit *e, const ptx_func *mf, const uint32_t *args, ptx_operand *d, const ptx_operand *s)
{
    *d = *s;
    switch (s->kind) {
    case PTX_O_REG: d->n = map_reg(mf, s->n, args); break;
    case PTX_O_SREG: d->p.text = NULL; break; /* printed from the register table */
    case PTX_O_IMM: case PTX_O_SYM: d->p.text = adup(e, s->p.text, s->n); break;
    case PTX_O_ADDR: case PTX_O_VEC: case PTX_O_PAIR: case PTX_O_LIST: {
        uint32_t n = s->kind == PTX_O_PAIR ? 2 : s->n;
        d->p.elems = ARENA_NEWN(&e->m->arena, ptx_operand, n);
        for (uint32_t i = 0; i < n; i++) copy_opd(e, mf, args, &d->p.elems[i], &s->p.elems[i]);
        break;
    }
    case PTX_O_SINK: break;
    default: abort(); /* the pass never writes expressions */
    }
}

static const char *type_word(unsigned t) { return ptx_type_name((ptx_type)t) + 1; }

static ptx_module *parse_scratch(ra_edit *e)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) abort();
    fputs(".version 8.0\n.target sm_90\n.address_size 64\n.entry __ra_scratch()\n{\n", f);
    for (uint32_t t = 0; t < e->nlines; t++) {
        const char *l = e->text + e->line_off[t], *sep = memchr(l, '\x01', e->line_len[t]);
        for (const char *q = sep + 1; q < l + e->line_len[t]; q++)
            fprintf(f, "\t.reg .%s %%t%u_%u;\n", type_word((unsigned)(uint8_t)*q - 1), t, (unsigned)(q - sep - 1));
    }
    for (uint32_t i = 0; i < e->nvars; i++)
        fprintf(f, "\t%s .align %u .b8 %s[%u];\n", ptx_space_name(e->vars[i].space), e->vars[i].align,
                e->vars[i].name, e->vars[i].bytes);
    for (uint32_t t = 0; t < e->nlines; t++) {
        const char *l = e->text + e->line_off[t], *end = memchr(l, '\x01', e->line_len[t]);
        char line[1024];
        size_t n = 0;
        line[n++] = '\t';
        for (const char *q = l; q < end;) {
            if (q[0] == '%' && q + 1 < end && q[1] == 'P') {
                unsigned k = 0;
                for (q += 2; q < end && *q >= '0' && *q <= '9'; q++) k = k * 10 + (unsigned)(*q - '0');
                n += (size_t)snprintf(line + n, sizeof line - n, "%%t%u_%u", t, k);
            } else
                line[n++] = *q++;
            if (n + 32 >= sizeof line) abort();
        }
        line[n++] = '\n';
        fwrite(line, 1, n, f);
    }
    fputs("}\n", f);
    fclose(f);
    ptx_diags d;
    ptx_diags_init(&d);
    ptx_module *mm = ptx_parse_string("regalloc-scratch", buf, len, &d);
    if (!mm || d.nerrors) {
        ptx_diags_print(&d, "regalloc-scratch", buf, len, stderr);
        abort();
    }
    ptx_diags_free(&d);
    free(buf);
    return mm;
}

static ptx_stmt *new_var_stmt(ra_edit *e, ptx_space sp, unsigned type, uint32_t align, const char *name,
                              uint32_t range, uint32_t bytes, ptx_loc loc)
{
    arena *a = &e->m->arena;
    ptx_var *v = ARENA_NEW(a, ptx_var);
    v->name = (ptx_str){adup(e, name, strlen(name)), (uint32_t)strlen(name)};
    v->space = (uint8_t)sp;
    v->type = (uint8_t)type;
    v->align = align;
    v->loc = loc;
    if (range) {
        v->has_range = 1;
        v->range = range;
    }
    if (bytes) {
        v->ndims = 1;
        v->dims = ARENA_NEWN(a, uint64_t, 1);
        v->dims[0] = bytes;
    }
    ptx_stmt *s = ARENA_NEW(a, ptx_stmt);
    s->kind = PTX_S_VAR;
    s->loc = loc;
    s->u.var = v;
    return s;
}

/* New registers are named <prefix><type>_<n>, declared as one range per type. */
static uint32_t declare_regs(ra_edit *e, ptx_stmt **out, ptx_loc loc)
{
    uint32_t nout = 0;
    if (!e->nnew) return 0;
    ptx_reg *regs = ARENA_NEWN(&e->m->arena, ptx_reg, e->old_nregs + e->nnew);
    memcpy(regs, e->fn->regs, e->old_nregs * sizeof *regs);
    uint32_t count[PTX_T__COUNT] = {0};
    for (uint32_t i = 0; i < e->nnew; i++) {
        unsigned t = e->rtype[i];
        char name[64];
        size_t pl = strlen(e->prefix), tl = strlen(type_word(t)), n = 0;
        memcpy(name, e->prefix, pl);
        n += pl;
        memcpy(name + n, type_word(t), tl);
        n += tl;
        name[n++] = '_';
        n += put_u(name + n, count[t]++);
        ptx_reg *r = &regs[e->old_nregs + i];
        r->name = (ptx_str){adup(e, name, n), (uint32_t)n};
        r->type = (uint8_t)t;
        r->vec = 0;
        r->decl = UINT32_MAX;
    }
    for (unsigned t = 0; t < PTX_T__COUNT; t++) {
        if (!count[t]) continue;
        char name[64];
        snprintf(name, sizeof name, "%s%s_", e->prefix, type_word(t));
        out[nout++] = new_var_stmt(e, PTX_SP_REG, t, 0, name, count[t], 0, loc);
    }
    e->fn->regs = regs;
    e->fn->nregs = e->old_nregs + e->nnew;
    return nout;
}

/* Where the start-of-body code goes: after the leading declarations. */
static uint32_t body_start(const ptx_func *fn)
{
    uint32_t s = 0;
    while (s < fn->nstmts &&
           (fn->stmts[s]->kind == PTX_S_VAR || fn->stmts[s]->kind == PTX_S_LOC || fn->stmts[s]->kind == PTX_S_PRAGMA))
        s++;
    return s;
}

void ra_edit_commit(ra_edit *e)
{
    ptx_func *fn = e->fn;
    arena *a = &e->m->arena;
    ptx_module *mm = parse_scratch(e);
    const ptx_func *mf = mm->funcs[0];
    ptx_stmt **made = calloc(e->np + 1, sizeof *made);
    const ptx_stmt **parsed = calloc(e->nlines + 1, sizeof *parsed);
    if (!made || !parsed) abort();
    uint32_t nparsed = 0, start = body_start(fn);
    for (uint32_t s = 0; s < mf->nstmts; s++) {
        if (mf->stmts[s]->kind != PTX_S_INST) continue;
        if (nparsed == e->nlines) abort();
        parsed[nparsed++] = mf->stmts[s];
    }
    if (nparsed != e->nlines) abort();
    uint32_t k = 0;
    for (; k < e->np; k++) {
        const ptx_stmt *st = parsed[e->p[k].line];
        uint32_t anchor = e->p[k].stmt == RA_EDIT_START ? start : e->p[k].stmt;
        ptx_loc loc = anchor < fn->nstmts ? fn->stmts[anchor]->loc : fn->loc;
        ptx_stmt *ns = ARENA_NEW(a, ptx_stmt);
        ns->kind = PTX_S_INST;
        ns->loc = loc;
        ptx_inst *in = &ns->u.inst;
        *in = st->u.inst;
        in->opcode = adup(e, st->u.inst.opcode, st->u.inst.opcode_len);
        const uint32_t *args = e->args + e->p[k].args;
        if (in->has_guard) in->guard = map_reg(mf, st->u.inst.guard, args);
        in->opd = ARENA_NEWN(a, ptx_operand, in->nopd ? in->nopd : 1);
        for (uint32_t i = 0; i < in->nopd; i++) copy_opd(e, mf, args, &in->opd[i], &st->u.inst.opd[i]);
        made[k] = ns;
    }
    free(parsed);

    ptx_loc top = fn->nstmts ? fn->stmts[0]->loc : fn->loc;
    ptx_stmt *decls[PTX_T__COUNT + 8];
    uint32_t ndecl = declare_regs(e, decls, top);
    for (uint32_t i = 0; i < e->nvars; i++)
        decls[ndecl++] = new_var_stmt(e, e->vars[i].space, PTX_T_B8, e->vars[i].align, e->vars[i].name, 0,
                                      e->vars[i].bytes, top);

    /* merge: declarations, then each original statement with what goes
     * before and after it, each group in emission order (a stable counting
     * sort on position * 3 + {0 start of body, 1 before, 2 after}) */
    uint32_t total = fn->nstmts + e->np + ndecl, n = 0;
    ptx_stmt **v = ARENA_NEWN(a, ptx_stmt *, total + 1);
    for (uint32_t i = 0; i < ndecl; i++) v[n++] = decls[i];
    uint32_t nkeys = (fn->nstmts + 1) * 3;
    uint32_t *off = calloc((size_t)nkeys + 1, sizeof *off), *key = calloc(e->np + 1, sizeof *key);
    uint32_t *order = calloc(e->np + 1, sizeof *order);
    if (!off || !key || !order) abort();
    for (uint32_t i = 0; i < e->np; i++) {
        const pending *q = &e->p[i];
        key[i] = q->stmt == RA_EDIT_START ? start * 3 : q->stmt * 3 + (q->after ? 2u : 1u);
        off[key[i] + 1]++;
    }
    for (uint32_t j = 0; j < nkeys; j++) off[j + 1] += off[j];
    for (uint32_t i = 0; i < e->np; i++) order[off[key[i]]++] = i;
    /* off[j] is now the end of bucket j: buckets are consumed in order */
    uint32_t pos = 0;
    for (uint32_t s = 0; s <= fn->nstmts; s++) {
        for (uint32_t j = s * 3; j < s * 3 + 2; j++)
            for (; pos < off[j]; pos++) v[n++] = made[order[pos]];
        if (s == fn->nstmts) break;
        v[n++] = fn->stmts[s];
        for (; pos < off[s * 3 + 2]; pos++) v[n++] = made[order[pos]];
    }
    free(off);
    free(key);
    free(order);
    if (n != total) abort();
    fn->stmts = v;
    fn->nstmts = n;
    fn->ninsts += e->np;

    free(made);
    ptx_module_free(mm);
    for (uint32_t r = 0; r < e->cap_regs; r++) free(e->names[r]);
    free(e->names);
    free(e->mentioned);
    for (uint32_t i = 0; i < e->nsyms; i++) free(e->syms[i]);
    free(e->rtype);
    free(e->p);
    free(e->text);
    free(e->args);
    free(e->line_off);
    free(e->line_len);
    free(e->hash);
    free(e);
}
