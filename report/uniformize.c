/* ptxray uniformize's rewrite (uniformize.h).  The output is the input
 * with ".uni" spliced in after the opcodes of the branches proven uniform
 * and nothing else changed: the source text is copied, not reprinted. */
#include "uniformize.h"
#include <stdlib.h>
#include <string.h>
#include "outfile.h"
#include "pipeline.h"

typedef struct counts {
    uint32_t rewritten, already, already_unproven, divergent, unreachable;
    uint32_t conditional; /* uniform only on the default block-shape assumption: left as written */
    unsigned cond;        /* the bits of those */
    uint32_t nfuncs, origin[BLK_NORIGINS], tid_y, tid_z;
} counts;

typedef struct edits {
    size_t n, cap;
    size_t *at; /* byte offsets in the source where ".uni" goes */
} edits;

static void add_edit(edits *e, size_t at)
{
    if (e->n == e->cap) {
        e->cap = e->cap ? e->cap * 2 : 64;
        e->at = realloc(e->at, e->cap * sizeof *e->at);
        if (!e->at) abort();
    }
    e->at[e->n++] = at;
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

/* Visits the bra and brx.idx of one function, with its verdicts at each of
 * its nr shapes: a branch is marked .uni only when it is uniform at every
 * one.  -1 if an opcode is not in the source buffer (cannot happen for a
 * parsed file). */
static int visit(const ptx_module *m, const prog_func *pf, div_result *const *r, uint32_t nr, counts *k, edits *e)
{
    const ptx_func *fn = pf->fn;
    const cfg *g = pf->g;
    for (uint32_t i = 0; i < fn->nstmts; i++) {
        const ptx_stmt *s = fn->stmts[i];
        if (s->kind != PTX_S_INST) continue;
        const ptx_inst *in = &s->u.inst;
        bool brx = in->op == PTX_OPC_BRX && ptx_inst_has_mod(in, ".idx");
        if (!(in->op == PTX_OPC_BRA && in->has_guard) && !brx) continue;
        uint32_t b = g->stmt_block[i];
        bool already = ptx_inst_has_mod(in, ".uni");
        if (b == CFG_NONE || !g->blocks[b].reachable) {
            /* no SSA values there, so no verdict */
            if (!already) k->unreachable++;
            else k->already++;
            continue;
        }
        /* a verdict that rests on the default shape assumption is
         * reported, not written */
        unsigned c;
        enum div_uni u = div_uni(r, nr, i, &c);
        if (already) {
            k->already++;
            k->already_unproven += u == DIV_UNI_NOT_PROVEN;
        } else if (u == DIV_UNI_NOT_PROVEN) k->divergent++;
        else if (u == DIV_UNI_ASSUMED) {
            k->conditional++;
            k->cond |= c;
        } else {
            const char *end = in->opcode + in->opcode_len;
            if (in->opcode < m->src || end > m->src + m->src_len) return -1;
            add_edit(e, (size_t)(end - m->src));
            k->rewritten++;
        }
    }
    return 0;
}

static void put_summary(const char *path, const counts *k, const dr_config *c)
{
    fprintf(stderr, "ptxray uniformize: %s: %u rewritten to .uni", strcmp(path, "-") ? path : "<stdin>", k->rewritten);
    fprintf(stderr, ", %u already .uni", k->already);
    if (k->already_unproven) fprintf(stderr, " (%u of them not proven uniform)", k->already_unproven);
    fprintf(stderr, ", %u left divergent", k->divergent);
    if (k->conditional)
        fprintf(stderr, ", %u left as written (uniform only if %s: give --block to mark them)", k->conditional,
                div_cond_text(k->cond));
    if (k->unreachable) fprintf(stderr, ", %u unreachable left as written", k->unreachable);
    fprintf(stderr, "; %s analysis", div_analysis_name(c->analysis));
    if (!k->nfuncs) {
        fputs(", no function with a body\n", stderr);
        return;
    }
    char shape[512];
    blk_summary(&c->blocks, k->origin, shape, sizeof shape);
    fprintf(stderr, ", %s", shape);
    if (c->div.assume_tid_yz_uniform) fputs(", %tid.y/%tid.z assumed warp-uniform", stderr);
    else {
        const char *dims[2] = {"y", "z"};
        uint32_t uni[2] = {k->tid_y, k->tid_z};
        for (int d = 0; d < 2; d++) {
            if (uni[d] == 0) fprintf(stderr, ", %%tid.%s divergent", dims[d]);
            else if (uni[d] == k->nfuncs) fprintf(stderr, ", %%tid.%s warp-uniform", dims[d]);
            else fprintf(stderr, ", %%tid.%s warp-uniform in %u of %u functions", dims[d], uni[d], k->nfuncs);
        }
    }
    if (c->analysis != DIV_AN_SIMPLE) fputs(", no integer wrap-around", stderr);
    fputc('\n', stderr);
}

int uni_run(const char *path, const char *kernel, dr_config *c, const char *out)
{
    pl_prog x;
    pl_options po = {.cmd = "uniformize", .kernel = kernel, .level = PROG_GSA, .blocks = &c->blocks,
                     .shapes = PL_SHAPES_CHECK, .configs = c->configs};
    if (pl_load(&x, path, &po)) return 2;
    /* the shapes in force: the options', with the project file's below them */
    const blk_opts *bo = x.cb ? x.cb : &c->blocks;
    const ptx_module *m = x.m;
    prog *p = x.p;
    counts k = {0};
    edits e = {0};
    int rc = 0;
    for (uint32_t i = 0; i < p->nfuncs && !rc; i++) {
        const ptx_func *fn = p->funcs[i].fn;
        /* a .uni must hold at every shape a launch may have */
        uint32_t nr = 0;
        div_result **r = ARENA_NEWN(&p->a, div_result *, blk_nshapes(bo, fn) + 1);
        enum blk_origin from = BLK_DEFAULT, f;
        div_options o = c->div;
        while (blk_every_shape(bo, fn, nr, o.block, &f)) {
            if (!nr) from = f;
            r[nr++] = div_analyse(&p->funcs[i], c->analysis, &o, &p->a);
        }
        k.nfuncs++;
        k.origin[from]++;
        k.tid_y += r[0]->tid_y_uniform;
        k.tid_z += r[0]->tid_z_uniform;
        if (visit(m, &p->funcs[i], r, nr, &k, &e)) {
            fprintf(stderr, "ptxray uniformize: %s: internal error: an opcode is not in the source text\n", path);
            rc = 2;
        }
    }
    if (!rc) {
        if (e.n) qsort(e.at, e.n, sizeof *e.at, cmp_size);
        outfile of;
        if (outfile_open(&of, out)) rc = 2;
        else {
            size_t from = 0;
            for (size_t i = 0; i < e.n; i++) {
                fwrite(m->src + from, 1, e.at[i] - from, of.f);
                fputs(".uni", of.f);
                from = e.at[i];
            }
            fwrite(m->src + from, 1, m->src_len - from, of.f);
            rc = outfile_commit(&of) ? 2 : 0;
        }
        if (!rc) put_summary(path, &k, c);
    }
    free(e.at);
    pl_free(&x);
    return rc;
}
