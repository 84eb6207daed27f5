#include "shared_area.h"
#include "reach.h"
#include <stdlib.h>
#include <string.h>

static const ptx_fdirective *fdir(const ptx_func *fn, const char *name)
{
    for (uint32_t i = 0; i < fn->nfdirs; i++)
        if (ptx_str_eq(fn->fdirs[i].name, name) && fn->fdirs[i].n) return &fn->fdirs[i];
    return NULL;
}

uint32_t ra_kernel_threads(const ptx_func *fn, uint32_t dflt)
{
    const ptx_fdirective *d = fdir(fn, ".reqntid");
    if (!d) d = fdir(fn, ".maxntid");
    if (!d) return dflt;
    uint64_t t = 1;
    for (uint32_t i = 0; i < d->n && i < 3; i++) t *= d->vals[i] ? d->vals[i] : 1;
    return t > 1024 ? 1024 : (uint32_t)t;
}

bool ra_kernel_one_dim(const ptx_func *fn)
{
    const ptx_fdirective *d = fdir(fn, ".reqntid");
    if (!d) d = fdir(fn, ".maxntid");
    if (!d) return false;
    for (uint32_t i = 1; i < d->n && i < 3; i++)
        if (d->vals[i] > 1) return false;
    return true;
}

static uint64_t var_bytes(const ptx_var *v)
{
    if (v->unsized) return 0;
    uint64_t n = ptx_type_bits((ptx_type)v->type) / 8;
    if (!n) n = 1;
    if (v->vec) n *= v->vec;
    for (uint32_t i = 0; i < v->ndims; i++) n *= v->dims[i];
    return n;
}

static bool is_shared(const ptx_var *v) { return v->space == PTX_SP_SHARED || v->space == PTX_SP_SHARED_CTA; }

/* The module-scope .shared variables, sorted by name so that each name a
 * kernel's code uses is one binary search. */
typedef struct named {
    ptx_str name;
    uint32_t index; /* module statement */
} named;

typedef struct walk {
    named *names;
    uint32_t nnames;
    uint8_t *var_used; /* per module statement */
} walk;

static int str_cmp(ptx_str a, ptx_str b)
{
    int c = memcmp(a.p, b.p, a.n < b.n ? a.n : b.n);
    return c ? c : (a.n > b.n) - (a.n < b.n);
}

static int named_cmp(const void *x, const void *y)
{
    const named *a = x, *b = y;
    int c = str_cmp(a->name, b->name);
    return c ? c : (a->index > b->index) - (a->index < b->index);
}

/* cfg_reach's callback: each name the kernel's code uses */
static void name_used(void *ctx, const ptx_operand *o, ptx_str name)
{
    walk *w = ctx;
    (void)o;
    uint32_t lo = 0, hi = w->nnames;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (str_cmp(w->names[mid].name, name) < 0) lo = mid + 1;
        else hi = mid;
    }
    for (; lo < w->nnames && !str_cmp(w->names[lo].name, name); lo++) w->var_used[w->names[lo].index] = 1;
}

/* The function's own .shared declarations, in order. */
static uint64_t own_shared(const ptx_func *fn)
{
    uint64_t total = 0;
    for (uint32_t s = 0; s < fn->nstmts; s++) {
        const ptx_stmt *st = fn->stmts[s];
        if (st->kind != PTX_S_VAR || !is_shared(st->u.var)) continue;
        uint32_t al = st->u.var->align ? st->u.var->align : 1;
        total = (total + al - 1) / al * al + var_bytes(st->u.var);
    }
    return total;
}

uint32_t ra_static_shared(const ptx_module *m, const ptx_func *fn)
{
    /* without module-scope .shared variables there is nothing to find in
     * the instructions and callees */
    bool module_shared = false;
    for (uint32_t i = 0; i < m->nstmts && !module_shared; i++)
        module_shared = m->stmts[i]->kind == PTX_S_VAR && is_shared(m->stmts[i]->u.var) &&
                        !(m->stmts[i]->u.var->linkage & PTX_LINK_EXTERN);
    if (!module_shared) {
        uint64_t own = own_shared(fn);
        return own > UINT32_MAX ? UINT32_MAX : (uint32_t)own;
    }
    walk w = {calloc(m->nstmts + 1, sizeof(named)), 0, calloc(m->nstmts + 1, 1)};
    uint8_t *reached = calloc(m->nfuncs + 1, 1);
    if (!w.names || !w.var_used || !reached) abort();
    for (uint32_t i = 0; i < m->nstmts; i++)
        if (m->stmts[i]->kind == PTX_S_VAR && is_shared(m->stmts[i]->u.var))
            w.names[w.nnames++] = (named){m->stmts[i]->u.var->name, i};
    qsort(w.names, w.nnames, sizeof *w.names, named_cmp);
    uint64_t total = own_shared(fn);
    uint32_t k = 0;
    while (k < m->nfuncs && m->funcs[k] != fn) k++;
    /* an indirect call may reach any function, and so any variable */
    bool indirect = k < m->nfuncs && cfg_reach(m, k, NULL, reached, name_used, &w);
    for (uint32_t i = 0; i < m->nstmts; i++) {
        const ptx_stmt *s = m->stmts[i];
        if (s->kind != PTX_S_VAR || !is_shared(s->u.var) || (s->u.var->linkage & PTX_LINK_EXTERN)) continue;
        if (!w.var_used[i] && !indirect) continue;
        uint32_t al = s->u.var->align ? s->u.var->align : 1;
        total = (total + al - 1) / al * al + var_bytes(s->u.var);
    }
    free(w.names);
    free(w.var_used);
    free(reached);
    return total > UINT32_MAX ? UINT32_MAX : (uint32_t)total;
}

uint32_t ra_fit_shared(const ra_live *L, ra_spill *sp, bool mask_slot, uint32_t warps, uint32_t static_bytes,
                       uint32_t limit, uint32_t *local_bytes, uint32_t *slot_bytes)
{
    uint32_t moved = 0;
    for (;;) {
        ra_layout(L, sp, mask_slot, local_bytes, slot_bytes);
        if ((uint64_t)static_bytes + (uint64_t)warps * *slot_bytes <= limit) return moved;
        uint32_t victim = UINT32_MAX;
        for (uint32_t r = 0; r < L->nregs; r++) {
            if (sp[r].place != RA_P_SHARED && sp[r].place != RA_P_SHARED_AFFINE) continue;
            if (victim == UINT32_MAX || sp[r].accesses <= sp[victim].accesses) victim = r;
        }
        if (victim == UINT32_MAX) return moved;
        sp[victim].place = RA_P_LOCAL;
        sp[victim].why = RA_WHY_SMEM;
        moved++;
    }
}
