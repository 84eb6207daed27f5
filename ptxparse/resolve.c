/* Name resolution after parsing: every symbol operand must name a label,
 * variable, parameter, function or prototype that exists, labels are unique
 * per function, functions are defined once.  Forward references are legal in
 * PTX, so this runs once the whole module is built. */
#include <stdlib.h>
#include <string.h>
#include "build.h"

enum { K_LABEL = 1, K_VAR, K_FUNC, K_PROTO, K_TARGETS, K_PARAM, K_REG };


/* PTX block scoping (ISA 4.4 and 5.3: a label or variable declared in a
 * { } block is visible in that block and the blocks nested in it, forward
 * references included, and may shadow one of an enclosing block; sibling
 * blocks may reuse a name, as inline-asm blocks do).  Each scope's
 * declarations are chained per name; a use is resolved to the declaration in
 * the innermost enclosing scope.  The same chains find what one scope
 * declares twice (declare, below). */
typedef struct {
    ptx_str name;
    uint32_t scope, next, stmt; /* next: the name's next older declaration + 1 (0: none) */
    uint32_t count;             /* N of a register range %r<N>, else 0 */
    ptx_loc loc;
    uint8_t kind;
} decl;

typedef struct {
    uint32_t *parent, *depth; /* per scope (0 = the body) */
    uint32_t *first, *first_range; /* per scope: where its declarations, its ranges begin */
    uint32_t nscopes, cap;
    decl *d;                  /* in the order they are declared */
    uint32_t ndecl, dcap;
    uint32_t *head; /* hash of names -> first declaration + 1 */
    ptx_str *hkey;
    uint32_t hcap;
    uint32_t *ranges, nranges; /* the register ranges among d (room for dcap) */
} scopes;

typedef struct {
    ptx_builder *b;
    const scopes *global; /* the module's names: one scope (ptx_resolve_module) */
    const scopes *sc;     /* the body's, and the block of the statement at at */
    uint32_t scope;
    ptx_loc at;
} rctx;

static void *xrealloc(void *p, size_t n) {
    void *q = realloc(p, n ? n : 1);
    if (!q) abort();
    return q;
}

static void scopes_free(scopes *s) {
    free(s->parent); free(s->depth); free(s->first); free(s->first_range); free(s->d); free(s->head); free(s->hkey); free(s->ranges);
}

static uint32_t scope_new(scopes *s, uint32_t parent) {
    if (s->nscopes == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 16;
        s->parent = xrealloc(s->parent, s->cap * sizeof *s->parent);
        s->depth = xrealloc(s->depth, s->cap * sizeof *s->depth);
        s->first = xrealloc(s->first, s->cap * sizeof *s->first);
        s->first_range = xrealloc(s->first_range, s->cap * sizeof *s->first_range);
    }
    s->first[s->nscopes] = s->ndecl;
    s->first_range[s->nscopes] = s->nranges;
    s->parent[s->nscopes] = parent;
    s->depth[s->nscopes] = s->nscopes ? s->depth[parent] + 1 : 0;
    return s->nscopes++;
}

static uint32_t *scope_slot(scopes *s, ptx_str k) {
    for (uint32_t i = ptx_hash(k.p, k.n) & (s->hcap - 1);; i = (i + 1) & (s->hcap - 1))
        if (!s->head[i] || ptx_str_eqs(s->hkey[i], k)) {
            s->hkey[i] = k;
            return &s->head[i];
        }
}

/* Room for n declarations without growing (a body's are counted first). */
static void scopes_reserve(scopes *s, uint32_t n) {
    if (n * 2 > s->hcap) {
        uint32_t nc = s->hcap ? s->hcap : 64;
        while (n * 2 > nc) nc *= 2;
        free(s->head);
        free(s->hkey);
        s->head = calloc(nc, sizeof *s->head);
        s->hkey = calloc(nc, sizeof *s->hkey);
        if (!s->head || !s->hkey) abort();
        s->hcap = nc;
        for (uint32_t i = 0; i < s->ndecl; i++) /* rebuilt: each chain's head is its newest */
            *scope_slot(s, s->d[i].name) = i + 1;
    }
    if (n > s->dcap) {
        s->dcap = n;
        s->d = xrealloc(s->d, n * sizeof *s->d);
        s->ranges = xrealloc(s->ranges, n * sizeof *s->ranges);
    }
}

/* Empties s for the next body, with room for its n declarations: a module's
 * bodies share one table. */
static void scopes_reset(scopes *s, uint32_t n) {
    s->nscopes = s->ndecl = s->nranges = 0;
    if (s->hcap > 64 && (uint64_t)n * 8 < s->hcap) { /* much too big: made again */
        free(s->head);
        free(s->hkey);
        s->head = NULL;
        s->hkey = NULL;
        s->hcap = 0;
    } else if (s->hcap) {
        memset(s->head, 0, s->hcap * sizeof *s->head);
    }
    scopes_reserve(s, n);
}

/* Puts x at the head of its name's chain: a chain runs from the newest
 * declaration to the oldest. */
static void scope_decl(scopes *s, decl x) {
    if (s->ndecl + 1 > s->dcap || (s->ndecl + 1) * 2 > s->hcap) scopes_reserve(s, 2 * s->ndecl + 32);
    uint32_t *h = scope_slot(s, x.name), i = s->ndecl++;
    x.next = *h;
    s->d[i] = x;
    if (x.count) s->ranges[s->nranges++] = i;
    *h = i + 1;
}

/* The declaration of name visible in scope (innermost; in one scope the
 * first), or UINT32_MAX.  Registers are found by the builder, never as
 * symbols. */
static uint32_t scope_find(const scopes *s, ptx_str name, uint32_t scope) {
    if (!s->hcap) return UINT32_MAX;
    uint32_t best = UINT32_MAX;
    for (uint32_t i = ptx_hash(name.p, name.n) & (s->hcap - 1); s->head[i]; i = (i + 1) & (s->hcap - 1)) {
        if (!ptx_str_eqs(s->hkey[i], name)) continue;
        for (uint32_t d = s->head[i]; d; d = s->d[d - 1].next) {
            uint32_t ds = s->d[d - 1].scope, u = scope;
            if (s->d[d - 1].kind == K_REG) continue;
            while (s->depth[u] > s->depth[ds]) u = s->parent[u];
            if (u == ds && (best == UINT32_MAX || s->depth[ds] >= s->depth[s->d[best].scope])) best = d - 1;
        }
        break;
    }
    return best;
}

/* One namespace per scope, as ptxas has it ("Duplicate definition of
 * variable"): a function's return and ordinary parameters belong to its
 * body's outermost block, and in one block a parameter, a label, a variable
 * of any state space, a register and the names %r0..%r(N-1) of a range %r<N>
 * must all differ; an inner block may reuse a name of an outer one.  Register
 * against register is build.c's to report, label against label is reported
 * as a redefinition; every other pair at the later declaration. */
static bool is_label(unsigned kind) { return kind == K_LABEL || kind == K_PROTO || kind == K_TARGETS; }

static const char *ns_what(int kind) {
    switch (kind) {
    case K_PARAM: return "a parameter";
    case K_LABEL: case K_TARGETS: case K_PROTO: return "a label";
    case K_REG: return "a register";
    default: return "a variable";
    }
}

static void ns_report(ptx_builder *b, const decl *later, const decl *first) {
    ptx_b_error(b, later->loc, "redeclaration of '%.*s' in the same scope: already declared as %s at line %u, column %u",
                (int)later->name.n, later->name.p, ns_what(first->kind), first->loc.line, first->loc.col);
}

/* Is name the element i < r->count of the range r ("%r12" of "%r<13>")?
 * By value, as ptxas compares them: "%r012" is element 12 too. */
static bool ns_in_range(ptx_str name, const decl *r) {
    uint32_t k = r->name.n;
    if (name.n <= k || name.p[k - 1] != r->name.p[k - 1] || memcmp(name.p, r->name.p, k) != 0) return false;
    while (k + 1 < name.n && name.p[k] == '0') k++;
    if (name.n - k > 9) return false;
    uint64_t v = 0;
    for (uint32_t i = k; i < name.n; i++) {
        if (name.p[i] < '0' || name.p[i] > '9') return false;
        v = v * 10 + (uint64_t)(name.p[i] - '0');
    }
    return v < r->count;
}

/* last < y < next by name (length, bytes, then declaration), either bound
 * NULL for none: the several messages of one range's declaration come in
 * that order. */
static bool name_before(const decl *a, const decl *b) {
    if (a->name.n != b->name.n) return a->name.n < b->name.n;
    int c = memcmp(a->name.p, b->name.p, a->name.n);
    return c ? c < 0 : a < b;
}
static bool name_between(const decl *last, const decl *y, const decl *next) {
    return (!last || name_before(last, y)) && (!next || name_before(y, next));
}

static void range_report(ptx_builder *b, const decl *e, const decl *g, bool range_later) {
    if (!range_later)
        ptx_b_error(b, e->loc, "redeclaration of '%.*s' in the same scope: already declared by the register "
                    "range '%.*s<%u>' at line %u, column %u", (int)e->name.n, e->name.p, (int)g->name.n,
                    g->name.p, g->count, g->loc.line, g->loc.col);
    else
        ptx_b_error(b, g->loc, "register range '%.*s<%u>' declares '%.*s', already declared in the same "
                    "scope as %s at line %u, column %u", (int)g->name.n, g->name.p, g->count,
                    (int)e->name.n, e->name.p, ns_what(e->kind), e->loc.line, e->loc.col);
}

/* Adds x to s and reports what its scope declared before it under that name
 * (or, for a range, among its elements): each pair once, at the later of the
 * two. */
static void declare(ptx_builder *b, scopes *s, decl x) {
    uint32_t i = s->ndecl, from = s->first[x.scope];
    scope_decl(s, x);
    const decl *self = &s->d[i];
    /* the scope's earlier declarations of the name that are not labels, from
     * the newest (none older than the scope): the last, the first, and the
     * first after the last range */
    const decl *first = NULL, *prev = NULL, *run = NULL;
    bool label = false, other = false, range = false;
    for (uint32_t d = self->next; d > from; d = s->d[d - 1].next) {
        const decl *y = &s->d[d - 1];
        if (y->scope != x.scope) continue;
        label |= y->kind == K_LABEL;
        other |= is_label(y->kind);
        if (is_label(y->kind)) continue;
        if (!prev) prev = y;
        first = y;
        range |= y->count != 0;
        if (!range) run = y;
    }
    if (is_label(x.kind)) {
        if (first && !first->count) ns_report(b, self, first);
    } else if (!x.count && prev) {
        if (!prev->count && !(x.kind == K_REG && prev->kind == K_REG)) ns_report(b, self, run);
    } else if (!x.count && other) { /* the first of the name that is not a label: after each label of it */
        for (const decl *y = s->d + from; y < self; y++)
            if (y->scope == x.scope && is_label(y->kind) && ptx_str_eqs(y->name, x.name)) ns_report(b, self, y);
    }
    /* the ranges x is an element of, or for a range the elements declared
     * before it, in the order of their names (a label is an identifier,
     * never %-named: the grammar's T_IDENT) */
    for (const decl *last = NULL, *next; !is_label(x.kind); last = next) {
        next = NULL;
        if (!x.count) {
            for (uint32_t r = s->first_range[x.scope]; r < s->nranges; r++) {
                const decl *g = &s->d[s->ranges[r]];
                if (g->scope == x.scope && ns_in_range(x.name, g) && name_between(last, g, next)) next = g;
            }
        } else {
            for (const decl *y = s->d + from; y < self; y++)
                if (y->scope == x.scope && !y->count && !is_label(y->kind) && ns_in_range(y->name, self) &&
                    name_between(last, y, next))
                    next = y;
        }
        if (!next) break;
        if (x.count) range_report(b, next, self, true);
        else range_report(b, self, next, false);
    }
    if (label && (x.kind == K_LABEL || x.kind == K_TARGETS))
        ptx_b_error(b, x.loc, "redefinition of label '%.*s'", (int)x.name.n, x.name.p);
}

/* The predefined identifiers of the ISA (section 4.4.3) that are not special
 * registers: WARP_SZ, the warp size as a constant. */
static bool predefined(ptx_str name) { return ptx_str_eq(name, "WARP_SZ"); }

/* The operand is the module's being built: resolution fills in its v. */
static void check_sym(void *ctx, const ptx_operand *o, ptx_str name) {
    const rctx *c = ctx;
    uint32_t d = scope_find(c->sc, name, c->scope);
    if (d != UINT32_MAX) {
        /* a label or table reached by name: downstream passes take the statement from v */
        if (o && c->sc->d[d].stmt != UINT32_MAX) ((ptx_operand *)o)->v = (int64_t)c->sc->d[d].stmt + 1;
        return;
    }
    if (scope_find(c->global, name, 0) != UINT32_MAX || predefined(name)) return;
    ptx_b_error(c->b, ptx_loc_at(c->b->ls.buf, c->b->ls.len, c->at, name.p), "use of undeclared identifier '%.*s'", (int)name.n, name.p);
}

static void check_init(rctx *c, const ptx_init *in) {
    if (!in) return;
    if (in->kind == 'e') ptx_expr_syms(in->expr, check_sym, c);
    else if (in->kind == 'l')
        for (uint32_t i = 0; i < in->n; i++) check_init(c, in->items[i]);
}

/* The statement index of each label a .branchtargets table of a body
 * names, filled in by the caller (UINT32_MAX: not a label), so that the CFG
 * and the emulator need no lookup by name (ptx_target_ref).  NULL for
 * .calltargets. */
static uint32_t *target_refs(ptx_builder *b, ptx_stmt *s) {
    ptx_dirinfo *d = s->u.dir;
    if (s->flag != 'b' || !d->n) return NULL;
    d->refs = arena_alloc(b->a, d->n * sizeof *d->refs);
    memset(d->refs, 0xff, d->n * sizeof *d->refs);
    return d->refs;
}

static inline uint32_t nth(const uint32_t *idx, uint32_t i) { return idx ? idx[i] : i; }

/* Names are resolved per { } block: a body without blocks is one scope.
 * idx: the indices of the body's statements that define or use a name (the
 * builder's list), or NULL: all n of them. */
static void resolve_names(ptx_builder *b, const scopes *global, scopes *scs, ptx_func *f, const uint32_t *idx,
                          uint32_t nstmts) {
    uint32_t *at = malloc((nstmts ? nstmts : 1) * sizeof *at), ndecl = f->nrets + f->nparams;
    if (!at) abort();
    for (uint32_t i = 0; i < nstmts; i++) {
        unsigned kind = f->stmts[nth(idx, i)]->kind;
        ndecl += kind == PTX_S_LABEL || kind == PTX_S_VAR || kind == PTX_S_PROTO || kind == PTX_S_TARGETS;
    }
    scopes_reset(scs, ndecl);
    scopes sc = *scs; /* worked on as a local, handed back at the end */
    uint32_t cur = scope_new(&sc, 0);
    /* the parameters belong to the body's outermost block, ahead of its names */
    for (uint32_t i = 0; i < f->nrets + f->nparams; i++) {
        const ptx_var *v = i < f->nrets ? f->rets[i] : f->params[i - f->nrets];
        declare(b, &sc, (decl){v->name, 0, 0, UINT32_MAX, 0, v->loc, K_PARAM});
    }
    for (uint32_t i = 0; i < nstmts; i++) {
        ptx_stmt *s = f->stmts[nth(idx, i)];
        if (s->kind == PTX_S_SCOPE_BEGIN) cur = scope_new(&sc, cur);
        else if (s->kind == PTX_S_SCOPE_END && cur) cur = sc.parent[cur];
        at[i] = cur;
        decl x = {{0, 0}, cur, 0, UINT32_MAX, 0, s->loc, 0};
        switch (s->kind) {
        case PTX_S_LABEL: x.name = s->u.name; x.kind = K_LABEL; break;
        case PTX_S_VAR:
            x.name = s->u.var->name;
            x.kind = s->u.var->space == PTX_SP_REG ? K_REG : K_VAR;
            x.count = s->u.var->has_range ? s->u.var->range : 0;
            break;
        case PTX_S_PROTO: x.name = s->u.dir->name; x.kind = K_PROTO; break;
        case PTX_S_TARGETS: x.name = s->u.dir->name; x.kind = K_TARGETS; break;
        default: continue;
        }
        if (s->kind == PTX_S_LABEL || s->kind == PTX_S_TARGETS) x.stmt = nth(idx, i);
        declare(b, &sc, x);
    }
    rctx c = {b, global, &sc, 0, {0, 0, 0}};
    for (uint32_t i = 0; i < nstmts; i++) {
        ptx_stmt *s = f->stmts[nth(idx, i)];
        c.at = s->loc;
        c.scope = at[i];
        if (s->kind == PTX_S_INST) {
            for (uint32_t k = 0; k < s->u.inst.nopd; k++) ptx_opd_syms(&s->u.inst.opd[k], check_sym, &c);
        } else if (s->kind == PTX_S_TARGETS) {
            uint32_t *refs = target_refs(b, s);
            for (uint32_t k = 0; k < s->u.dir->n; k++) {
                uint32_t d = scope_find(&sc, s->u.dir->items[k], at[i]), g = scope_find(global, s->u.dir->items[k], 0);
                int kind = d != UINT32_MAX ? sc.d[d].kind : g != UINT32_MAX ? global->d[g].kind : 0;
                if (refs && kind == K_LABEL) refs[k] = sc.d[d].stmt;
                if (s->flag == 'b' ? kind != K_LABEL : kind != K_FUNC)
                    ptx_b_error(b, ptx_loc_at(b->ls.buf, b->ls.len, s->loc, s->u.dir->items[k].p), "%s '%.*s' is not %s",
                                s->flag == 'b' ? ".branchtargets entry" : ".calltargets entry",
                                (int)s->u.dir->items[k].n, s->u.dir->items[k].p,
                                s->flag == 'b' ? "a label of this function" : "a function");
            }
        } else if (s->kind == PTX_S_VAR) {
            check_init(&c, s->u.var->init);
        }
        if (b->ls.stop) break;
    }
    free(at);
    *scs = sc;
}

void ptx_resolve_module(ptx_builder *b) {
    ptx_module *m = b->m;
    /* the module's variables, functions and aliases: one scope, a name
     * declared once, at its first statement; for a function, stmt is where
     * its first body was seen */
    scopes global = {0};
    scopes_reset(&global, m->nstmts);
    scope_new(&global, 0);
    for (uint32_t i = 0; i < m->nstmts; i++) {
        ptx_stmt *s = m->stmts[i];
        ptx_str name = s->kind == PTX_S_VAR ? s->u.var->name : s->kind == PTX_S_FUNC ? s->u.func->name
                     : s->kind == PTX_S_ALIAS ? s->u.dir->items[0] : (ptx_str){0, 0};
        if (!name.p) continue;
        uint32_t d = scope_find(&global, name, 0);
        if (d == UINT32_MAX) {
            d = global.ndecl;
            scope_decl(&global, (decl){name, 0, 0, UINT32_MAX, 0, s->loc, s->kind == PTX_S_VAR ? K_VAR : K_FUNC});
        } else if (s->kind == PTX_S_VAR && !(s->u.var->linkage & PTX_LINK_EXTERN)) {
            ptx_b_error(b, s->loc, "redefinition of '%.*s'", (int)name.n, name.p);
        }
        if (s->kind != PTX_S_FUNC || !s->u.func->has_body) continue;
        if (global.d[d].stmt != UINT32_MAX) /* two bodies for one name */
            ptx_b_error(b, s->u.func->name_loc, "redefinition of function '%.*s'", (int)name.n, name.p);
        global.d[d].stmt = i;
    }
    scopes sc = {0}; /* empty here: module-level initialisers name globals only */
    rctx c = {b, &global, &sc, 0, {0, 0, 0}};
    for (uint32_t i = 0; i < m->nstmts; i++)
        if (m->stmts[i]->kind == PTX_S_VAR) {
            c.at = m->stmts[i]->loc;
            check_init(&c, m->stmts[i]->u.var->init);
        }
    /* bodies were closed in the order their functions were added */
    uint32_t k = 0;
    for (uint32_t i = 0; i < m->nfuncs && !b->ls.stop; i++) {
        ptx_func *f = m->funcs[i];
        if (!f->has_body) continue;
        if (k < b->named_bodies.n && b->named_bodies.v[k].f == f) {
            const ptx_named_slice *ns = &b->named_bodies.v[k++];
            resolve_names(b, &global, &sc, f, ns->n ? b->named.v + ns->first : NULL, ns->n);
        } else {
            resolve_names(b, &global, &sc, f, NULL, f->nstmts);
        }
    }
    scopes_free(&sc);
    scopes_free(&global);
}
