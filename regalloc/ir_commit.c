/* Committing edits (ir_edit.h): the lines of shapes not seen before are
 * parsed in one scratch module, then every pending line is copied from
 * its shape's master into the function with its registers and literals
 * patched in, and the new registers and variables are declared. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "ir_edit_int.h"
#include "textbuf.h"

/* p + i for the edit's growing arrays, which stay NULL until their first
 * element (and NULL + 0 is undefined: clang's UBSan, fuzz_regalloc) */
static inline const int64_t *nums_at(const int64_t *p, uint32_t i) { return p ? p + i : NULL; }
static inline const uint32_t *args_at(const uint32_t *p, uint32_t i) { return p ? p + i : NULL; }

static const char *adup(ra_edit *e, const char *s, size_t n) { return arena_strndup(&e->m->arena, s, n); }

static const char *type_word(unsigned t) { return ptx_type_name((ptx_type)t) + 1; }

static void sput_u(textbuf *b, uint64_t v)
{
    char t[20];
    tb_put(b, t, put_u64(t, v));
}

/* The scratch module's registers: one range per type, %T<type>_<g>, the
 * g-th placeholder of that type among the shapes being parsed (one .reg
 * line per placeholder made the parse of the scratch cost several times
 * that of its instructions). */
typedef struct scratch {
    const ptx_func *mf;
    uint32_t *k[PTX_T__COUNT]; /* per type: g -> placeholder number in its shape */
    uint32_t n[PTX_T__COUNT], cap[PTX_T__COUNT];
} scratch;

static void sput_reg(textbuf *b, unsigned type, uint32_t g)
{
    tb_puts(b, "%T");
    sput_u(b, type);
    tb_puts(b, "_");
    sput_u(b, g);
}

static uint32_t placeholder(const scratch *sc, uint32_t n)
{
    ptx_str name = sc->mf->regs[n].name;
    uint32_t i = 2, type = 0, g = 0;
    if (name.n < 5 || name.p[0] != '%' || name.p[1] != 'T') abort();
    for (; i < name.n && is_digit(name.p[i]); i++) type = type * 10 + (uint32_t)(name.p[i] - '0');
    if (i >= name.n || name.p[i] != '_' || type >= PTX_T__COUNT) abort();
    for (i++; i < name.n; i++) g = g * 10 + (uint32_t)(name.p[i] - '0');
    if (g >= sc->n[type]) abort();
    return sc->k[type][g];
}

/* The master copy of scratch operand s, in the module's arena: registers
 * as placeholder numbers. */
static void master_opd(ra_edit *e, const scratch *sc, ptx_operand *d, const ptx_operand *s)
{
    *d = *s;
    switch (s->kind) {
    case PTX_O_REG: d->n = placeholder(sc, s->n); break;
    case PTX_O_SREG: d->p.text = NULL; break; /* printed from the register table */
    case PTX_O_IMM: case PTX_O_SYM: d->p.text = adup(e, s->p.text, s->n); break;
    case PTX_O_ADDR: case PTX_O_VEC: case PTX_O_PAIR: case PTX_O_LIST: {
        uint32_t n = s->kind == PTX_O_PAIR ? 2 : s->n;
        d->p.elems = ARENA_NEWN(&e->m->arena, ptx_operand, n);
        for (uint32_t i = 0; i < n; i++) master_opd(e, sc, &d->p.elems[i], &s->p.elems[i]);
        break;
    }
    case PTX_O_SINK: break;
    default: abort(); /* the pass never writes expressions */
    }
}

/* Parses the shapes that have no master yet (all first used by these
 * edits, so their arrays are the only symbols they name: each name is
 * declared once) and makes their masters.  One scratch module for all:
 * its fixed cost was a visible part of the pass. */
static void parse_new_shapes(ra_edit *const *edits, uint32_t nedits)
{
    ra_edit *e = edits[0];
    ra_shapes *sh = e->sh;
    if (sh->parsed == sh->n) return;
    scratch sc;
    memset(&sc, 0, sizeof sc);
    /* each new shape's placeholders, numbered per type: g[gi ..] */
    uint32_t *g = NULL, ng = 0, capg = 0;
    for (uint32_t t = sh->parsed; t < sh->n; t++) {
        const char *l = sh->text + sh->off[t], *sep = memchr(l, '\x01', sh->len[t]);
        for (const char *q = sep + 1; q < l + sh->len[t]; q++) {
            unsigned ty = (unsigned)(uint8_t)*q - 1;
            sc.k[ty] = grow(sc.k[ty], sc.n[ty], &sc.cap[ty], sizeof *sc.k[ty]);
            sc.k[ty][sc.n[ty]] = (uint32_t)(q - sep - 1);
            g = grow(g, ng, &capg, sizeof *g);
            g[ng++] = sc.n[ty]++;
        }
    }
    textbuf b = {0};
    tb_puts(&b, ".version 8.0\n.target sm_90\n.address_size 64\n.entry __ra_scratch()\n{\n");
    for (unsigned ty = 0; ty < PTX_T__COUNT; ty++) {
        if (!sc.n[ty]) continue;
        tb_puts(&b, "\t.reg .");
        tb_puts(&b, type_word(ty));
        tb_puts(&b, " %T");
        sput_u(&b, ty);
        tb_puts(&b, "_<");
        sput_u(&b, sc.n[ty]);
        tb_puts(&b, ">;\n");
    }
    for (uint32_t x = 0; x < nedits; x++)
        for (uint32_t i = 0; i < edits[x]->nvars; i++) {
            const newvar *nv = &edits[x]->vars[i];
            bool seen = false;
            for (uint32_t y = 0; y <= x && !seen; y++)
                for (uint32_t j = 0; j < (y < x ? edits[y]->nvars : i) && !seen; j++)
                    seen = !strcmp(edits[y]->vars[j].name, nv->name);
            if (seen) continue;
            tb_puts(&b, "\t");
            tb_puts(&b, ptx_space_name(nv->space));
            tb_puts(&b, " .align ");
            sput_u(&b, nv->align);
            tb_puts(&b, " .b8 ");
            tb_puts(&b, nv->name);
            tb_puts(&b, "[");
            sput_u(&b, nv->bytes);
            tb_puts(&b, "];\n");
        }
    uint32_t gi = 0;
    for (uint32_t t = sh->parsed; t < sh->n; t++) {
        const char *l = sh->text + sh->off[t], *end = memchr(l, '\x01', sh->len[t]);
        const int64_t *lit = nums_at(sh->lits, sh->lit[t]);
        tb_puts(&b, "\t");
        for (const char *q = l; q < end;) {
            if (q[0] == '%' && q + 1 < end && q[1] == 'P') {
                uint32_t k = 0;
                for (q += 2; q < end && is_digit(*q); q++) k = k * 10 + (uint32_t)(*q - '0');
                sput_reg(&b, (unsigned)(uint8_t)end[1 + k] - 1, g[gi + k]);
            } else if (q[0] == '%' && q + 1 < end && q[1] == 'N') {
                char num[24];
                tb_put(&b, num, put_i64(num, *lit++));
                q += 2;
            } else
                tb_put(&b, q++, 1);
        }
        gi += (uint32_t)(l + sh->len[t] - end - 1);
        tb_puts(&b, "\n");
    }
    tb_puts(&b, "}\n");
    ptx_diags d;
    ptx_diags_init(&d);
    ptx_module *mm = ptx_parse_string("regalloc-scratch", b.p, b.n, &d);
    if (!mm || d.nerrors) {
        ptx_diags_print(&d, "regalloc-scratch", b.p, b.n, stderr);
        abort();
    }
    ptx_diags_free(&d);
    sc.mf = mm->funcs[0];
    uint32_t t = sh->parsed;
    for (uint32_t s = 0; s < sc.mf->nstmts; s++) {
        const ptx_stmt *st = sc.mf->stmts[s];
        if (st->kind != PTX_S_INST) continue;
        if (t == sh->n) abort();
        ptx_inst *in = ARENA_NEW(&e->m->arena, ptx_inst);
        *in = st->u.inst;
        in->opcode = adup(e, st->u.inst.opcode, st->u.inst.opcode_len);
        if (in->has_guard) in->guard = placeholder(&sc, st->u.inst.guard);
        in->opd = ARENA_NEWN(&e->m->arena, ptx_operand, in->nopd ? in->nopd : 1);
        for (uint32_t i = 0; i < in->nopd; i++) master_opd(e, &sc, &in->opd[i], &st->u.inst.opd[i]);
        sh->master[t++] = in;
    }
    if (t != sh->n) abort();
    sh->parsed = sh->n;
    ptx_module_free(mm);
    free(b.p);
    free(g);
    for (unsigned ty = 0; ty < PTX_T__COUNT; ty++) free(sc.k[ty]);
}

/* One use of a shape: its registers (args) and integer literals (lit,
 * consumed in text order, which is operand order). */
typedef struct patch {
    const uint32_t *args;
    const int64_t *lit;
} patch;

static void copy_opd(ra_edit *e, patch *pt, ptx_operand *d, const ptx_operand *s)
{
    *d = *s;
    switch (s->kind) {
    case PTX_O_REG: d->n = pt->args[s->n]; break;
    case PTX_O_IMM:
        if (s->flags == PTX_IMM_INT) {
            int64_t v = *pt->lit++;
            if (v != s->v) {
                char t[24];
                size_t n = put_i64(t, v);
                d->v = v;
                d->p.text = adup(e, t, n);
                d->n = (uint32_t)n;
            }
        }
        break;
    case PTX_O_ADDR: case PTX_O_VEC: case PTX_O_PAIR: case PTX_O_LIST: {
        uint32_t n = s->kind == PTX_O_PAIR ? 2 : s->n;
        d->p.elems = ARENA_NEWN(&e->m->arena, ptx_operand, n);
        for (uint32_t i = 0; i < n; i++) copy_opd(e, pt, &d->p.elems[i], &s->p.elems[i]);
        if (s->kind == PTX_O_ADDR && (s->flags & PTX_ADDR_OFF)) d->v = *pt->lit++;
        break;
    }
    default: break; /* SREG, SYM and SINK are shared with the master */
    }
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

/* New registers are named <prefix><type>_<n>, declared as one range per
 * type; a tagged one <prefix>m<tag>_<type>_<n> (ra_edit_reg_tagged), one
 * range per tag and type. */
static const char ra_tags[] = {0, 'c', 'a', 's'};

static uint32_t declare_regs(ra_edit *e, ptx_stmt **out, ptx_loc loc)
{
    uint32_t nout = 0;
    if (!e->nnew) return 0;
    ptx_reg *regs = ARENA_NEWN(&e->m->arena, ptx_reg, e->old_nregs + e->nnew);
    memcpy(regs, e->fn->regs, e->old_nregs * sizeof *regs);
    uint32_t count[sizeof ra_tags][PTX_T__COUNT] = {{0}};
    for (uint32_t i = 0; i < e->nnew; i++) {
        unsigned t = e->rtype[i], g = 0;
        while (g + 1 < sizeof ra_tags && ra_tags[g] != e->rtag[i]) g++;
        if (ra_tags[g] != e->rtag[i]) abort();
        char name[64];
        size_t pl = strlen(e->prefix), tl = strlen(type_word(t)), n = 0;
        memcpy(name, e->prefix, pl);
        n += pl;
        if (g) {
            name[n++] = 'm';
            name[n++] = ra_tags[g];
            name[n++] = '_';
        }
        memcpy(name + n, type_word(t), tl);
        n += tl;
        name[n++] = '_';
        n += put_u64(name + n, count[g][t]++);
        ptx_reg *r = &regs[e->old_nregs + i];
        r->name = (ptx_str){adup(e, name, n), (uint32_t)n};
        r->type = (uint8_t)t;
        r->vec = 0;
        r->decl = UINT32_MAX;
    }
    for (unsigned g = 0; g < sizeof ra_tags; g++)
        for (unsigned t = 0; t < PTX_T__COUNT; t++) {
            if (!count[g][t]) continue;
            char name[64];
            if (g) snprintf(name, sizeof name, "%sm%c_%s_", e->prefix, ra_tags[g], type_word(t));
            else snprintf(name, sizeof name, "%s%s_", e->prefix, type_word(t));
            out[nout++] = new_var_stmt(e, PTX_SP_REG, t, 0, name, count[g][t], 0, loc);
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

static void commit_one(ra_edit *e)
{
    ptx_func *fn = e->fn;
    arena *a = &e->m->arena;
    ptx_stmt **made = calloc(e->np + 1, sizeof *made);
    if (!made) abort();
    uint32_t start = body_start(fn);
    for (uint32_t k = 0; k < e->np; k++) {
        const ptx_inst *ms = e->sh->master[e->p[k].shape];
        uint32_t anchor = e->p[k].stmt == RA_EDIT_START ? start : e->p[k].stmt;
        /* not zeroed: every field is set here, and every operand by copy_opd */
        ptx_stmt *ns = arena_alloc(a, sizeof *ns);
        ns->kind = PTX_S_INST;
        ns->flag = 0;
        ns->pad_[0] = ns->pad_[1] = 0;
        ns->loc = anchor < fn->nstmts ? fn->stmts[anchor]->loc : fn->loc;
        ptx_inst *in = &ns->u.inst;
        *in = *ms;
        patch pt = {args_at(e->args, e->p[k].args), nums_at(e->nums, e->p[k].nums)};
        if (in->has_guard) in->guard = pt.args[ms->guard];
        in->opd = arena_alloc(a, (in->nopd ? in->nopd : 1) * sizeof *in->opd);
        if (!in->nopd) memset(in->opd, 0, sizeof *in->opd);
        for (uint32_t i = 0; i < in->nopd; i++) copy_opd(e, &pt, &in->opd[i], &ms->opd[i]);
        if (pt.lit != nums_at(e->nums, k + 1 < e->np ? e->p[k + 1].nums : e->nnums)) abort();
        made[k] = ns;
    }

    ptx_loc top = fn->nstmts ? fn->stmts[0]->loc : fn->loc;
    ptx_stmt *decls[4 * PTX_T__COUNT + 8];
    uint32_t ndecl = declare_regs(e, decls, top);
    for (uint32_t i = 0; i < e->nvars; i++)
        decls[ndecl++] = new_var_stmt(e, e->vars[i].space, PTX_T_B8, e->vars[i].align, e->vars[i].name, 0,
                                      e->vars[i].bytes, top);

    /* merge: declarations, then each original statement with what goes
     * before and after it, each group in emission order: a stable sort on
     * position * 3 + {0 start of body, 1 before, 2 after}, which the
     * rewrite's walk in statement order nearly always emits already */
    uint32_t total = fn->nstmts + e->np + ndecl, n = 0;
    ptx_stmt **v = ARENA_NEWN(a, ptx_stmt *, total + 1);
    for (uint32_t i = 0; i < ndecl; i++) v[n++] = decls[i];
    uint32_t *key = malloc((e->np + 1) * sizeof *key), *order = NULL;
    if (!key) abort();
    bool sorted = true;
    for (uint32_t i = 0; i < e->np; i++) {
        const pending *q = &e->p[i];
        key[i] = q->stmt == RA_EDIT_START ? start * 3 : q->stmt * 3 + (q->after ? 2u : 1u);
        if (i && key[i] < key[i - 1]) sorted = false;
    }
    if (!sorted) { /* a counting sort */
        uint32_t nkeys = (fn->nstmts + 1) * 3;
        uint32_t *off = calloc((size_t)nkeys + 1, sizeof *off);
        order = malloc((e->np + 1) * sizeof *order);
        if (!off || !order) abort();
        for (uint32_t i = 0; i < e->np; i++) off[key[i] + 1]++;
        for (uint32_t j = 0; j < nkeys; j++) off[j + 1] += off[j];
        for (uint32_t i = 0; i < e->np; i++) order[off[key[i]]++] = i;
        free(off);
    }
    uint32_t pos = 0;
#define AT(p) (order ? order[p] : (p))
    for (uint32_t s = 0; s <= fn->nstmts; s++) {
        for (; pos < e->np && key[AT(pos)] <= s * 3 + 1; pos++) v[n++] = made[AT(pos)];
        if (s == fn->nstmts) break;
        v[n++] = fn->stmts[s];
        for (; pos < e->np && key[AT(pos)] == s * 3 + 2; pos++) v[n++] = made[AT(pos)];
    }
#undef AT
    free(key);
    free(order);
    if (n != total) abort();
    fn->stmts = v;
    fn->nstmts = n;
    fn->ninsts += e->np;

    free(made);
    arena_free(&e->names);
    free(e->rnames);
    for (uint32_t i = 0; i < e->nsyms; i++) free(e->syms[i]);
    free(e->rtype);
    free(e->rtag);
    free(e->p);
    free(e->args);
    free(e->nums);
    free(e);
}

void ra_edit_commit_all(ra_edit *const *edits, uint32_t n)
{
    if (!n) return;
    parse_new_shapes(edits, n);
    for (uint32_t i = 0; i < n; i++) commit_one(edits[i]);
}

