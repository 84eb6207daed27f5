/* ptxray analyze's report (analyze_report.h). */
#include "analyze_report.h"
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "check_findings.h"
#include "div_report.h"
#include "html.h"
#include "outfile.h"
#include "pressure.h"

/* As check lists them: proven before possible, then by cost (chk_sort). */
static int cmp_cost(const void *a, const void *b)
{
    const chk_finding *x = *(const chk_finding *const *)a, *y = *(const chk_finding *const *)b;
    if (x->certainty != y->certainty) return x->certainty < y->certainty ? -1 : 1;
    if (x->cost != y->cost) return x->cost > y->cost ? -1 : 1;
    if (x->line != y->line) return x->line < y->line ? -1 : 1;
    return x->rule - y->rule;
}

static void pct(FILE *o, const char *what, uint32_t k, uint32_t n)
{
    fprintf(o, "%s %.1f%%", what, n ? 100.0 * k / n : 0.0);
}

/* One analysis of the module at one round of the launch shapes. */
typedef struct round_res {
    ptx_module *m;
    prog *p;
    coal_result *res;
    coal_report_ctx ctx;
    blk_opts blocks; /* with its round: the reports read the shape's origin from it */
    coal_options co;
} round_res;

/* The shares of values and the branches of f at its shape, as the
 * affine analysis of degree 2 finds them; at: "" or " at 16x16x1". */
static void value_lines(FILE *o, const coal_func *f, const char *at, arena *a)
{
    div_options dopt = {.block = {0, 0, 0}, .assume_tid_yz_uniform = false};
    memcpy(dopt.block, f->shape.block, sizeof dopt.block);
    dopt.assume_tid_yz_uniform = !wl_shape_known(&f->shape);
    dr_func df;
    dr_analyse(&df, f->pf, &dopt, NULL, a);
    const dr_stats *st = &df.st[DIV_AN_AFFINE2];
    fprintf(o, "values%s: %u; ", at, st->values);
    pct(o, "uniform", st->state[DIV_UNIFORM], st->values);
    pct(o, ", affine", st->state[DIV_AFFINE], st->values);
    pct(o, ", divergent", st->state[DIV_DIVERGENT], st->values);
    fputs(" (affine analysis, degree 2)\n", o);
    fprintf(o, "branches%s: %u conditional, %u not proven uniform\n", at, st->branches, st->branches_divergent);
}

/* Function i's report: a kernel launched with several shapes (round s
 * analysed it at its s-th) gets the values and branches at each, and one
 * list of findings, each saying at which shapes it holds. */
static void kernel_report(FILE *o, round_res *const *rr, uint32_t nr, uint32_t i, const chk_list *l)
{
    const coal_report_ctx *c = &rr[0]->ctx;
    const coal_func *f = &rr[0]->res->f[i];
    const ptx_func *fn = f->pf->fn;
    uint32_t ns = blk_nshapes(&rr[0]->blocks, fn);
    if (ns > nr) ns = nr;
    char *shown = ptx_func_shown(fn);
    fprintf(o, "\n== %s %s ==\n", fn->is_entry ? "kernel" : "function", shown);
    if (strlen(shown) != fn->name.n || memcmp(shown, fn->name.p, fn->name.n))
        fprintf(o, "symbol: %.*s\n", (int)fn->name.n, fn->name.p);
    free(shown);
    if (ns > 1) {
        fprintf(o, "block: %u launch shapes, analysed at each:", ns);
        for (uint32_t s = 0; s < ns; s++) {
            const coal_func *fs = &rr[s]->res->f[i];
            fprintf(o, "%s %ux%ux%u (%s)", s ? "," : "", fs->shape.block[0], fs->shape.block[1], fs->shape.block[2],
                    blk_origin_for(&rr[s]->blocks, fn, BLK_LAUNCH));
        }
        fputc('\n', o);
        for (uint32_t s = 0; s < ns; s++) {
            const coal_func *fs = &rr[s]->res->f[i];
            char at[64];
            snprintf(at, sizeof at, " at %ux%ux%u", fs->shape.block[0], fs->shape.block[1], fs->shape.block[2]);
            value_lines(o, fs, at, &rr[s]->p->a);
        }
    } else {
        if (wl_shape_known(&f->shape))
            fprintf(o, "block: %ux%ux%u (%s)\n", f->shape.block[0], f->shape.block[1], f->shape.block[2],
                    blk_origin_for(coal_blocks(c->opts), fn, coal_block_origin(c->opts, f)));
        else fputs("block: unknown; assumed " BLK_DEFAULT_TEXT "\n", o);
        value_lines(o, f, "", &rr[0]->p->a);
    }
    rp_result rp;
    rp_compute(f->pf, &rp);
    fprintf(o, "register pressure: at most %u 32-bit register%s and %u predicate%s live (64-bit registers count 2)",
            rp.regs32, rp.regs32 == 1 ? "" : "s", rp.preds, rp.preds == 1 ? "" : "s");
    if (rp.at_stmt != UINT32_MAX) {
        src_pos p;
        src_pos_of(c->files, fn, rp.at_stmt, &p);
        fprintf(o, "; peak at PTX line %u", fn->stmts[rp.at_stmt]->loc.line);
        if (p.file) fprintf(o, " (%s:%u)", p.file, p.line);
    }
    fputc('\n', o);
    const chk_finding **mine = malloc(sizeof *mine * (l->n ? l->n : 1));
    if (!mine) abort();
    size_t n = 0;
    for (size_t i = 0; i < l->n; i++)
        if (strlen(l->v[i].symbol) == fn->name.n && !memcmp(l->v[i].symbol, fn->name.p, fn->name.n))
            mine[n++] = &l->v[i];
    qsort(mine, n, sizeof *mine, cmp_cost);
    if (!n) fputs("findings: none\n", o);
    else fprintf(o, "findings by cost (%zu):\n", n);
    for (size_t i = 0; i < n; i++) {
        const chk_finding *x = mine[i];
        fprintf(o, "  %zu. [%s, %s] ", i + 1, chk_rule_name((enum chk_rule)x->rule),
                chk_certainty_name((enum chk_certainty)x->certainty));
        if (x->src_file) fprintf(o, "%s:%u:%u, ", x->src_file, x->src_line, x->src_col);
        fprintf(o, "PTX line %u", x->line);
        if (x->ninst > 1) fprintf(o, " (%u instructions)", x->ninst);
        if (x->loop_depth) fprintf(o, ", loop depth %u", x->loop_depth);
        fprintf(o, ", cost %" PRIu64 "\n     %s\n", x->cost, x->message);
        if (x->depends) fprintf(o, "     depends on %s\n", x->depends);
        if (x->hint) fprintf(o, "     hint: %s\n", x->hint);
        if (x->nshapes > 1) {
            char at[2048];
            chk_holds_at_text(x, at, sizeof at);
            fprintf(o, "     %s\n", at);
        }
    }
    free(mine);
}

static int load_round(round_res *x, const char *shown, const char *ptx, const coal_options *co,
                      const blk_opts *blocks, uint32_t r)
{
    x->blocks = *blocks;
    x->blocks.round = r;
    x->co = *co;
    x->co.block_ctx = &x->blocks;
    if (chk_load("analyze", ptx, &x->co, &x->m, &x->p, &x->res)) return 2;
    x->ctx = (coal_report_ctx){x->res, shown, &x->co, src_files_build(x->m, &x->p->a)};
    return 0;
}

/* A kernel launched with several shapes is analysed at each: the module
 * once per round, round r giving each kernel its r-th shape; its report
 * comes once, kernels in PTX order (the HTML page: a section per shape). */
static int report(const char *shown, const char *ptx, const coal_options *co, blk_opts *blocks, bool html,
                  const char *out, bool ptxas)
{
    round_res *first = calloc(1, sizeof *first);
    if (!first) abort();
    int rc = load_round(first, shown, ptx, co, blocks, 0);
    if (!rc && !blk_check(&first->blocks, first->m, "analyze", shown)) rc = 2;
    else if (!rc && co->only && !first->res->nfuncs) {
        fprintf(stderr, "ptxray analyze: %s: no function with a body named '%s'\n", shown, co->only);
        rc = 2;
    }
    uint32_t nr = rc ? 1 : blk_module_rounds(&first->blocks, first->m), loaded = 1;
    round_res **rr = calloc(nr, sizeof *rr);
    if (!rr) abort();
    rr[0] = first;
    chk_list l;
    memset(&l, 0, sizeof l);
    size_t at = chk_collect_begin(&l);
    for (uint32_t r = 0; r < nr && !rc; r++) {
        if (r) {
            rr[r] = calloc(1, sizeof *rr[r]);
            if (!rr[r]) abort();
            loaded++;
            if ((rc = load_round(rr[r], shown, ptx, co, blocks, r))) break;
        }
        chk_collect_at(&l, at, shown, &rr[r]->ctx, (1u << CHK_NRULES) - 1);
    }
    chk_collect_end(&l, at, shown);
    if (!rc && html) {
        /* the kernels in PTX order, each at each of its shapes */
        size_t nk = 0;
        html_kernel *ks = NULL;
        for (uint32_t i = 0; i < first->res->nfuncs; i++) {
            uint32_t ns = blk_nshapes(&first->blocks, first->res->f[i].pf->fn);
            if (ns > nr) ns = nr;
            if (!ns) ns = 1;
            for (uint32_t r = 0; r < ns; r++) {
                ks = realloc(ks, (nk + 1) * sizeof *ks);
                if (!ks) abort();
                ks[nk++] = (html_kernel){&rr[r]->ctx, &rr[r]->res->f[i], &l, &rr[r]->p->a};
            }
        }
        outfile of;
        if (outfile_open(&of, out)) rc = 2;
        else {
            html_analyze(of.f, shown, ptx, first->m, ks, nk, ptxas);
            if (outfile_commit(&of)) rc = 2;
        }
        free(ks);
    } else if (!rc) {
        printf("ptxray analyze: %s\n", shown);
        puts("assumed: warps of 32 consecutive threads; 32-byte sectors; allocations 256-byte aligned; no index "
             "wraparound");
        if (!first->res->nfuncs) puts("no function with a body");
        for (uint32_t i = 0; i < first->res->nfuncs; i++) kernel_report(stdout, rr, nr, i, &l);
    }
    chk_free(&l);
    for (uint32_t r = 0; r < loaded; r++) {
        chk_unload(rr[r]->m, rr[r]->p);
        free(rr[r]);
    }
    free(rr);
    return rc;
}

int an_report(const char *shown, const char *ptx, const coal_options *co, blk_opts *blocks)
{
    return report(shown, ptx, co, blocks, false, NULL, false);
}

int an_report_html(const char *shown, const char *ptx, const coal_options *co, blk_opts *blocks, const char *out,
                   bool ptxas)
{
    return report(shown, ptx, co, blocks, true, out, ptxas);
}
