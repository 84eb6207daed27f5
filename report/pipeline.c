/* The one pipeline (pipeline.h): its passes in one visible list. */
#include "pipeline.h"
#include <stdlib.h>
#include <string.h>
#include "load.h"

/* The rounds of shapes.  One round at round 0 reads the caller's shapes
 * (a blk_opts is 2.5 KB: a zeroed copy per file cost about 0.2% of
 * check's instructions over the corpus). */
static void rounds(pl_prog *x, const pl_options *o, blk_opts *b)
{
    x->nr = o->nrounds ? o->nrounds : blk_module_rounds(b, x->m);
    if (x->nr == 1 && !b->round) {
        x->rb = b;
        return;
    }
    x->rb = malloc(x->nr * sizeof *x->rb);
    if (!x->rb) abort();
    x->rb_owned = true;
    for (uint32_t r = 0; r < x->nr; r++) {
        x->rb[r] = *b;
        x->rb[r].round = r;
    }
}

/* The model at each round, with its report context. */
static void coalesce(pl_prog *x, const pl_options *o)
{
    arena *a = &x->p->a;
    /* one allocation for the three (each a multiple of 8 bytes) */
    x->ctx = arena_alloc(a, x->nr * (sizeof *x->ctx + sizeof *x->rco + sizeof *x->res));
    x->rco = (coal_options *)(x->ctx + x->nr);
    x->res = (coal_result **)(x->rco + x->nr);
    x->files = src_files_build(x->m, a);
    /* parameter names: looked up when a report first asks (srcnames.h) */
    x->names = ARENA_NEW(a, sn_src);
    *x->names = (sn_src){.ptx_path = x->path, .files = x->files, .blocks = o->blocks};
    const char *shown = o->shown && !(x->unit && x->unit->text) ? o->shown : x->path;
    cfg_facts_ctx *fc = NULL;
    if (x->cfg) {
        fc = ARENA_NEW(a, cfg_facts_ctx);
        *fc = (cfg_facts_ctx){x->cfg, x->names};
    }
    for (uint32_t r = 0; r < x->nr; r++) {
        coal_options *co = &x->rco[r];
        if (o->co) *co = *o->co;
        else *co = (coal_options){NULL, NULL, NULL, NULL};
        co->only = x->kernel;
        co->blocks = &x->rb[r]; /* the round's shapes */
        if (fc) co->facts_of = cfg_facts_of, co->facts_ctx = fc;
        x->res[r] = coal_analyse(x->m, x->p, co, a);
        x->ctx[r] = (coal_report_ctx){x->res[r], shown, co, x->files, x->names};
    }
}

/* Functions in order, each at the rounds that analyse it. */
static void diverge(pl_prog *x, const pl_options *o)
{
    if (!o->each) x->df = ARENA_NEWN(&x->p->a, dr_func, x->p->nfuncs ? x->p->nfuncs * x->nr : 1);
    for (uint32_t i = 0; i < x->p->nfuncs; i++)
        for (uint32_t r = 0; r < x->nr; r++) {
            if (!blk_round_has(&x->rb[r], x->p->funcs[i].fn)) continue;
            if (!o->each) {
                dr_analyse(&x->df[x->ndf++], &x->p->funcs[i], o->div, &x->rb[r], o->keep);
                continue;
            }
            dr_func f;
            dr_analyse(&f, &x->p->funcs[i], o->div, &x->rb[r], o->keep);
            o->each(o->each_ctx, x, &f);
            dr_func_free(&f);
        }
}

/* One analysis of each function at round 0's shape (blk_resolve:
 * --block, the project file, .reqntid, the launches, else the default). */
static void verdicts(pl_prog *x, const pl_options *o)
{
    x->dv = ARENA_NEWN(&x->p->a, const div_result *, x->p->nfuncs ? x->p->nfuncs : 1);
    for (uint32_t i = 0; i < x->p->nfuncs; i++) {
        div_options d = {{0, 0, 0}, false, false, false};
        if (o->div) d = *o->div;
        blk_resolve(&x->rb[0], x->p->funcs[i].fn, d.block);
        x->dv[i] = div_analyse(&x->p->funcs[i], (enum div_analysis)o->keep, &d, &x->p->a);
    }
}

/* Each function of the model at each of its shapes (blk_nshapes, at most
 * the rounds): the degree-2 affine analysis at the shape the model resolved
 * for it, which analyze's value shares and the HTML page's abstract values
 * report, counted. */
static void values(pl_prog *x)
{
    uint32_t nf = x->res[0]->nfuncs;
    x->val = ARENA_NEWN(&x->p->a, pl_values, (size_t)x->nr * nf + 1);
    for (uint32_t i = 0; i < nf; i++) {
        uint32_t ns = blk_nshapes(&x->rb[0], x->res[0]->f[i].pf->fn);
        if (ns > x->nr) ns = x->nr;
        if (!ns) ns = 1;
        for (uint32_t r = 0; r < ns; r++) {
            const coal_func *f = &x->res[r]->f[i];
            div_options d = {.block = {0, 0, 0}, .assume_tid_yz_uniform = !wl_shape_known(&f->shape)};
            memcpy(d.block, f->shape.block, sizeof d.block);
            pl_values *v = &x->val[(size_t)r * nf + i];
            v->r = div_analyse(f->pf, DIV_AN_AFFINE2, &d, &x->p->a);
            dr_count(f->pf, v->r, &v->st);
        }
    }
}

int pl_load(pl_prog *x, const char *path, const pl_options *o)
{
    FILE *err = o->err ? o->err : stderr;
    const char *given = path; /* path may become the unit's name, freed with it */
    *x = (pl_prog){.path = path};
    /* the project file: before the parse, so that its errors come first */
    if (o->configs && cfg_for(o->configs, o->config_from ? o->config_from : path, &x->cfg)) return 2;
    /* parse */
    if (o->module || o->module_diags) {
        x->m = o->module;
        x->m_borrowed = true;
        if (!x->m) fputs(o->module_diags, err);
    } else if (o->text) x->m = ptx_load_text(o->shown ? o->shown : path, o->text, o->text_len, 1, err);
    else if (o->plain) x->m = ptx_load_to(path, 1, err);
    else {
        /* a binary's PTX, or a name that selects one (inputs.h) */
        x->unit = malloc(sizeof *x->unit);
        if (!x->unit) abort();
        if (in_single(x->unit, o->cmd, path, err)) {
            free(x->unit);
            x->unit = NULL;
            return 2;
        }
        if (x->unit->text) x->path = path = x->unit->shown;
        x->m = in_load(x->unit, 1, err);
    }
    if (!x->m) goto bad;
    /* kernel */
    if (o->kernel && !(x->kernel = load_kernel(o->cmd, x->m, path, o->kernel, false))) goto bad;
    /* build */
    ptx_diags d;
    ptx_diags_init(&d);
    x->p = prog_build(x->m, o->level, x->kernel, &d);
    if (!x->p) ptx_diags_print(&d, path, x->m->src, x->m->src_len, err);
    ptx_diags_free(&d);
    if (!x->p) goto bad;
    /* shapes */
    if (o->shapes == PL_SHAPES_CHECK) {
        if (!blk_check(o->blocks, x->m, o->cmd, o->shown ? o->shown : path)) goto bad;
    } else blk_mark(o->blocks, x->m);
    blk_opts *b = o->blocks;
    if (x->cfg) {
        cfg_mark(x->cfg, x->m);
        x->cb = malloc(sizeof *x->cb);
        if (!x->cb) abort();
        *x->cb = *o->blocks;
        if (!cfg_add_blocks(x->cfg, x->cb, o->cmd)) goto bad;
        b = x->cb;
    }
    rounds(x, o, b);
    /* analyses */
    if (o->passes & PL_COALESCE) coalesce(x, o);
    if ((o->passes & (PL_COALESCE | PL_VALUES)) == (PL_COALESCE | PL_VALUES)) values(x);
    if (o->passes & PL_DIVERGE) diverge(x, o);
    if (o->passes & PL_VERDICTS) verdicts(x, o);
    if ((o->passes & PL_VERDICTS) && !x->files) x->files = src_files_build(x->m, &x->p->a);
    return 0;
bad:
    pl_free(x);
    *x = (pl_prog){.path = given, .cfg = x->cfg}; /* pl_free again does nothing */
    return 2;
}

void pl_free(pl_prog *x)
{
    for (uint32_t i = 0; i < x->ndf; i++) dr_func_free(&x->df[i]);
    if (x->rb_owned) free(x->rb);
    free(x->cb);
    if (x->p) prog_free(x->p);
    if (x->m && !x->m_borrowed) ptx_module_free(x->m);
    if (x->unit) {
        in_unit_free(x->unit);
        free(x->unit);
    }
}
