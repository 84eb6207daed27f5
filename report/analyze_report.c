/* ptxray analyze's report (analyze_report.h). */
#include "analyze_report.h"
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "check_findings.h"
#include "div_report.h"
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

static void kernel_report(FILE *o, const coal_report_ctx *c, const coal_func *f, const chk_list *l, arena *a)
{
    const ptx_func *fn = f->pf->fn;
    div_options dopt = {.block = {0, 0, 0}, .assume_tid_yz_uniform = false};
    memcpy(dopt.block, f->shape.block, sizeof dopt.block);
    dopt.assume_tid_yz_uniform = !wl_shape_known(&f->shape);
    dr_func df;
    dr_analyse(&df, f->pf, &dopt, NULL, a);
    const dr_stats *st = &df.st[DIV_AN_AFFINE2];
    char *shown = ptx_func_shown(fn);
    fprintf(o, "\n== %s %s ==\n", fn->is_entry ? "kernel" : "function", shown);
    if (strlen(shown) != fn->name.n || memcmp(shown, fn->name.p, fn->name.n))
        fprintf(o, "symbol: %.*s\n", (int)fn->name.n, fn->name.p);
    free(shown);
    if (wl_shape_known(&f->shape))
        fprintf(o, "block: %ux%ux%u (%s)\n", f->shape.block[0], f->shape.block[1], f->shape.block[2],
                blk_origin_text(coal_block_origin(c->opts, f)));
    else fputs("block: unknown; assumed " BLK_DEFAULT_TEXT "\n", o);
    fprintf(o, "values: %u; ", st->values);
    pct(o, "uniform", st->state[DIV_UNIFORM], st->values);
    pct(o, ", affine", st->state[DIV_AFFINE], st->values);
    pct(o, ", divergent", st->state[DIV_DIVERGENT], st->values);
    fputs(" (affine analysis, degree 2)\n", o);
    fprintf(o, "branches: %u conditional, %u not proven uniform\n", st->branches, st->branches_divergent);
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
    }
    free(mine);
}

int an_report(const char *shown, const char *ptx, const coal_options *co, blk_opts *blocks)
{
    ptx_module *m;
    prog *p;
    coal_result *res;
    if (chk_load("analyze", ptx, co, &m, &p, &res)) return 2;
    if (!blk_check(blocks, m, "analyze", shown)) {
        chk_unload(m, p);
        return 2;
    }
    if (co->only && !res->nfuncs) {
        fprintf(stderr, "ptxray analyze: %s: no function with a body named '%s'\n", shown, co->only);
        chk_unload(m, p);
        return 2;
    }
    coal_report_ctx ctx = {res, shown, co, src_files_build(m, &p->a)};
    chk_list l;
    memset(&l, 0, sizeof l);
    chk_collect(&l, shown, &ctx, (1u << CHK_NRULES) - 1);
    printf("ptxray analyze: %s\n", shown);
    puts("assumed: warps of 32 consecutive threads; 32-byte sectors; allocations 256-byte aligned; no index "
         "wraparound");
    if (!res->nfuncs) puts("no function with a body");
    for (uint32_t i = 0; i < res->nfuncs; i++) kernel_report(stdout, &ctx, &res->f[i], &l, &p->a);
    chk_free(&l);
    chk_unload(m, p);
    return 0;
}
