/* ptxray analyze: one readable report per kernel of a .ptx file, or of the
 * PTX nvcc makes from a .cu file: value shares, register pressure and the
 * findings of `ptxray check` ordered by likely impact (docs/check.md). */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check_findings.h"
#include "launch_table.h"
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
          ".reqntid, else the shapes the host code launches it with, else blockDim.x is\n"
          "assumed a multiple of 32).  The launches are read from FILE.cu with libclang\n"
          "(`ptxray launches`), or from --launches FILE.json; a kernel launched with several\n"
          "shapes gets one report per shape.  -I/-D/-std flags are passed to libclang.\n"
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
static int compile_cu(const char *cu, const char *arch, const char *dir, char *ptx, size_t n, const char *const *flags,
                      size_t nflags)
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
    char **argv = calloc(nflags + 8, sizeof *argv);
    if (!argv) abort();
    size_t k = 0;
    argv[k++] = (char *)nvcc;
    argv[k++] = "-ptx";
    argv[k++] = "-lineinfo";
    argv[k++] = archopt;
    for (size_t i = 0; i < nflags; i++) argv[k++] = (char *)flags[i];
    argv[k++] = "-o";
    argv[k++] = ptx;
    argv[k++] = (char *)cu;
    char *log = NULL;
    int rc = tc_run(argv, &log);
    free(argv);
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
                blk_origin_for(coal_blocks(c->opts), fn, coal_block_origin(c->opts, f)));
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

/* One analysis of the module at one round of the launch shapes. */
typedef struct round_res {
    ptx_module *m;
    prog *p;
    coal_result *res;
    coal_report_ctx ctx;
    chk_list l;
    blk_opts blocks; /* with its round: the reports read the shape's origin from it */
    coal_options co;
} round_res;

/* A kernel launched with several shapes is analysed at each: round r uses
 * its r-th shape, and its report comes once per shape, kernels in PTX
 * order. */
static int analyze_ptx(const char *shown, const char *ptx, const coal_options *co, blk_opts *blocks)
{
    uint32_t nr = blk_rounds(blocks);
    round_res *rr = calloc(nr, sizeof *rr);
    if (!rr) abort();
    int rc = 0;
    uint32_t loaded = 0;
    for (uint32_t r = 0; r < nr && !rc; r++, loaded++) {
        round_res *x = &rr[r];
        x->blocks = *blocks;
        x->blocks.round = r;
        x->co = *co;
        x->co.block_ctx = &x->blocks;
        if (chk_load(ptx, &x->co, &x->m, &x->p, &x->res)) {
            rc = 2;
            break;
        }
        if (!blk_check(&x->blocks, x->m, "analyze", shown)) rc = 2;
        else if (co->only && !x->res->nfuncs) {
            fprintf(stderr, "ptxray analyze: %s: no function with a body named '%s'\n", shown, co->only);
            rc = 2;
        }
        if (rc) {
            loaded++;
            break;
        }
        x->ctx = (coal_report_ctx){x->res, shown, &x->co, src_files_build(x->m, &x->p->a)};
        memset(&x->l, 0, sizeof x->l);
        chk_collect(&x->l, shown, &x->ctx, (1u << CHK_NRULES) - 1);
    }
    if (!rc) {
        printf("ptxray analyze: %s\n", shown);
        puts("assumed: warps of 32 consecutive threads; 32-byte sectors; allocations 256-byte aligned; no index "
             "wraparound");
        if (!rr[0].res->nfuncs) puts("no function with a body");
        for (uint32_t i = 0; i < rr[0].res->nfuncs; i++) {
            const hc_kshapes *ks = blk_launch_shapes(&rr[0].blocks, rr[0].res->f[i].pf->fn);
            uint32_t n = ks && coal_block_origin(&rr[0].co, &rr[0].res->f[i]) == BLK_LAUNCH ? ks->n : 1;
            for (uint32_t r = 0; r < n && r < nr; r++)
                kernel_report(stdout, &rr[r].ctx, &rr[r].res->f[i], &rr[r].l, &rr[r].p->a);
        }
    }
    for (uint32_t r = 0; r < loaded && r < nr; r++) {
        if (rr[r].res) chk_free(&rr[r].l);
        if (rr[r].m) chk_unload(rr[r].m, rr[r].p);
    }
    free(rr);
    return rc;
}

/* The launch shapes of cu's host code into t (libclang), with the -I/-D/-std
 * flags given; a warning and no shapes when ptxray has no libclang. */
static int cu_launches(const char *cu, const char *const *flags, size_t nflags, hc_table *t)
{
    memset(t, 0, sizeof *t);
    if (!hc_available()) {
        fprintf(stderr, "ptxray analyze: warning: built without libclang: the launch shapes of %s are not read\n", cu);
        return 0;
    }
    hc_opts o = {.flags = flags, .nflags = nflags};
    hc_result r = {0};
    int rc = hc_scan(cu, &o, &r, "analyze", stderr);
    if (!rc) hc_table_from_result(t, &r);
    hc_free(&r);
    return rc;
}

int cmd_analyze(int argc, char **argv)
{
    static const struct option opts[] = {{"arch", required_argument, 0, 'a'},
                                         {"launches", required_argument, 0, 'L'},
                                         {"block", required_argument, 0, 'b'},
                                         {"kernel", required_argument, 0, 'k'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *arch = "sm_90";
    blk_opts blocks = {0};
    /* -I/-D/-U/-std=, for libclang (and nvcc) */
    const char **flags = calloc((size_t)argc + 1, sizeof *flags);
    size_t nflags = 0;
    if (!flags) abort();
    for (int i = 1; i < argc; i++)
        if ((argv[i][0] == '-' && (argv[i][1] == 'I' || argv[i][1] == 'D' || argv[i][1] == 'U') && argv[i][2]) ||
            !strncmp(argv[i], "-std=", 5)) {
            flags[nflags++] = argv[i];
            memmove(argv + i, argv + i + 1, (size_t)(argc - i) * sizeof *argv); /* argv[argc] is NULL */
            argc--;
            i--;
        }
    coal_options co = {{0, 0, 0}, NULL, blk_option_shape, &blocks};
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "a:b:k:h", opts, NULL)) != -1) {
        switch (c) {
        case 'a': arch = optarg; break;
        case 'b':
            if (!blk_add(&blocks, optarg, "analyze")) return 2;
            break;
        case 'L':
            if (!blk_add_launches(&blocks, optarg, "analyze")) return 2;
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
    if (!ends_with(path, ".cu")) {
        free(flags);
        return analyze_ptx(path, path, &co, &blocks);
    }
    char dir[] = "/tmp/ptxray-analyzeXXXXXX", ptx[sizeof dir + 16];
    if (!mkdtemp(dir)) {
        perror("ptxray analyze: temporary directory");
        free(flags);
        return 2;
    }
    hc_table t = {0};
    int rc = compile_cu(path, arch, dir, ptx, sizeof ptx, flags, nflags);
    if (!rc && !blocks.launches) {
        rc = cu_launches(path, flags, nflags, &t);
        blocks.launches = &t;
    }
    if (!rc) rc = analyze_ptx(path, ptx, &co, &blocks);
    hc_table_free(&t);
    free(flags);
    unlink(ptx);
    rmdir(dir);
    return rc;
}
