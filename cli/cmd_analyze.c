/* ptxray analyze: one readable report per kernel of a .ptx file, or of the
 * PTX nvcc makes from a .cu file: value shares, register pressure and the
 * findings of `ptxray check` ordered by likely impact (docs/check.md). */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check_findings.h"
#include "commands.h"
#include "div_report.h"
#include "pressure.h"
#include "toolchain.h"

static void usage(FILE *o)
{
    fputs("usage: ptxray analyze FILE.ptx|FILE.cu [--arch sm_XX] [--block [KERNEL=]X,Y,Z]... [--kernel NAME]\n"
          "One report per kernel: the shares of uniform, affine and divergent values, the\n"
          "register pressure, then uncoalesced and misaligned accesses, bank conflicts and\n"
          "branches not proven uniform, with source lines and hints, by likely impact\n"
          "(accesses inside loops first, deeper loops first).  A .cu file is compiled with\n"
          "`nvcc -ptx -lineinfo -arch=ARCH` (default sm_90) into a temporary directory.\n"
          "--block: the block shape of KERNEL, else of every kernel; repeatable (default:\n"
          ".reqntid, else blockDim.x is assumed a multiple of 32).\n"
          "Exit status: 0, or 2 for bad input, a missing nvcc or a failed compilation.\n",
          o);
}

static bool ends_with(const char *s, const char *suf)
{
    size_t n = strlen(s), k = strlen(suf);
    return n >= k && !strcmp(s + n - k, suf);
}

/* The PTX nvcc writes for cu into dir; 0, or 2 with the reason (nvcc's own
 * messages included) on stderr. */
static int compile_cu(const char *cu, const char *arch, const char *dir, char *ptx, size_t n)
{
    const char *nvcc = tc_find_nvcc();
    if (!nvcc) {
        fprintf(stderr, "ptxray analyze: %s: nvcc not found ($NVCC, PATH, /usr/local/cuda/bin); "
                        "give the PTX instead\n", cu);
        return 2;
    }
    snprintf(ptx, n, "%s/out.ptx", dir);
    char archopt[64];
    snprintf(archopt, sizeof archopt, "-arch=%s", arch);
    char *argv[] = {(char *)nvcc, "-ptx", "-lineinfo", archopt, "-o", ptx, (char *)cu, NULL};
    char *log = NULL;
    int rc = tc_run(argv, &log);
    if (log) fputs(log, stderr);
    free(log);
    if (rc) {
        fprintf(stderr, "ptxray analyze: %s: nvcc %s\n", cu, rc < 0 ? "could not be run" : "failed");
        return 2;
    }
    return 0;
}

/* Impact: accesses and branches inside loops before those outside; then
 * uncoalesced/misaligned, bank conflicts, branches; then deeper loops first;
 * then PTX order. */
static int impact_class(const chk_finding *x)
{
    static const int cls[CHK_NRULES] = {0, 0, 1, 2};
    return cls[x->rule];
}

static int cmp_impact(const void *a, const void *b)
{
    const chk_finding *x = *(const chk_finding *const *)a, *y = *(const chk_finding *const *)b;
    int lx = x->loop_depth == 0, ly = y->loop_depth == 0;
    if (lx != ly) return lx - ly;
    if (impact_class(x) != impact_class(y)) return impact_class(x) - impact_class(y);
    if (x->loop_depth != y->loop_depth) return x->loop_depth > y->loop_depth ? -1 : 1;
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
    fprintf(o, "\n== %s %.*s ==\n", fn->is_entry ? "kernel" : "function", (int)fn->name.n, fn->name.p);
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
        if (strlen(l->v[i].kernel) == fn->name.n && !memcmp(l->v[i].kernel, fn->name.p, fn->name.n))
            mine[n++] = &l->v[i];
    qsort(mine, n, sizeof *mine, cmp_impact);
    if (!n) fputs("findings: none\n", o);
    else fprintf(o, "findings by likely impact (%zu):\n", n);
    for (size_t i = 0; i < n; i++) {
        const chk_finding *x = mine[i];
        fprintf(o, "  %zu. [%s] ", i + 1, chk_rule_name((enum chk_rule)x->rule));
        if (x->src_file) fprintf(o, "%s:%u:%u, ", x->src_file, x->src_line, x->src_col);
        fprintf(o, "PTX line %u", x->line);
        if (x->loop_depth) fprintf(o, ", loop depth %u", x->loop_depth);
        fprintf(o, "\n     %s\n", x->message);
        if (x->hint) fprintf(o, "     hint: %s\n", x->hint);
    }
    free(mine);
}

static int analyze_ptx(const char *shown, const char *ptx, const coal_options *co, blk_opts *blocks)
{
    ptx_module *m;
    prog *p;
    coal_result *res;
    if (chk_load(ptx, co, &m, &p, &res)) return 2;
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

int cmd_analyze(int argc, char **argv)
{
    static const struct option opts[] = {{"arch", required_argument, 0, 'a'},
                                         {"block", required_argument, 0, 'b'},
                                         {"kernel", required_argument, 0, 'k'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *arch = "sm_90";
    blk_opts blocks = {0};
    coal_options co = {{0, 0, 0}, NULL, blk_option_shape, &blocks};
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "a:b:k:h", opts, NULL)) != -1) {
        switch (c) {
        case 'a': arch = optarg; break;
        case 'b':
            if (!blk_add(&blocks, optarg, "analyze")) return 2;
            break;
        case 'k': co.only = optarg; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind + 1 != argc) {
        usage(stderr);
        return 2;
    }
    const char *path = argv[optind];
    if (!ends_with(path, ".cu")) return analyze_ptx(path, path, &co, &blocks);
    char dir[] = "/tmp/ptxray-analyzeXXXXXX", ptx[sizeof dir + 16];
    if (!mkdtemp(dir)) {
        perror("ptxray analyze: temporary directory");
        return 2;
    }
    int rc = compile_cu(path, arch, dir, ptx, sizeof ptx);
    if (!rc) rc = analyze_ptx(path, ptx, &co, &blocks);
    unlink(ptx);
    rmdir(dir);
    return rc;
}
