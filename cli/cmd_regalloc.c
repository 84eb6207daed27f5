/* ptxray regalloc: the divergence-aware register allocation post-pass. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "block_opt.h"
#include "commands.h"
#include "config_opt.h"
#include "inputs.h"
#include "outfile.h"
#include "printer.h"
#include "ra_opts.h"
#include "ra_target.h"
#include "regalloc.h"

static void usage(FILE *o)
{
    fputs("usage: ptxray regalloc FILE|- --budget K [--mode linear|div|aff] [--kernel NAME]\n"
          "                         [--max-threads N] [--smem-limit BYTES] [--block [KERNEL=]X,Y,Z]...\n"
          "                         [-q] [-o OUT|-]\n"
          "       ptxray regalloc FILE|- --target-regs N [--arch sm_XX] [--mode div|aff] [...]\n"
          "Allocates registers with a budget of K 32-bit units per thread (64-bit values\n"
          "take two, predicates are not counted) by linear scan, spills what does not\n"
          "fit (farthest next use first, a store after each definition and a reload\n"
          "before each use) and prints the rewritten PTX (Sampaio et al. 2013, section 4;\n"
          "docs/regalloc.md).  A summary goes to stderr.\n"
          "  --mode linear  every spilled value to .local (per thread)\n"
          "         div     values the simple divergence analysis proves uniform to a\n"
          "                 per-warp .shared slot, the rest to .local\n"
          "         aff     (default) the affine analysis: constants and affine values of\n"
          "                 the thread id rematerialised, uniform values and the uniform\n"
          "                 part of affine ones in .shared, the rest in .local\n"
          "  --kernel       allocate only this function\n"
          "  --max-threads  threads per block when a kernel has no .reqntid/.maxntid\n"
          "                 (default 1024): the shared area has one partition per warp\n"
          "  --smem-limit   static shared bytes per block, the kernel's own included\n"
          "                 (default 49152); slots past it fall back to .local\n"
          "  --target-regs  instead of --budget: move just enough uniform/affine values\n"
          "                 to shared slots or rematerialisation (never new .local\n"
          "                 spills) that `ptxas -maxrregcount N` spills fewer bytes\n"
          "                 than ptxas alone; budgets from the pressure down are tried\n"
          "                 with ptxas -v (docs/regalloc.md, \"Target registers\")\n"
          "  --arch         ptxas's -arch for --target-regs (default: the .target)\n"
          "  --block        the block shape KERNEL (else every kernel) is launched with:\n"
          "                 the divergence analysis, the shared area's size and the\n"
          "                 slot addresses rest on it; repeatable (default: .reqntid,\n"
          "                 else blockDim.x is assumed a multiple of 32)\n"
          "  --config FILE  the project file's block shapes, below --block (docs/check.md,\n"
          "                 \"Stated assumptions\"); default: ptxray.yaml in FILE's directory or\n"
          "                 the nearest above it; --no-config: none\n"
          "  -q             no summary\n"
          "  -o             output file (default stdout)\n"
          "Exit status: 0, or 2 for bad input or usage (nothing is written).\n",
          o);
}

static int run_target(ptx_module *m, const ra_options *o, unsigned target, const char *arch, const char *out,
                      bool quiet, const char *shown)
{
    char *text;
    size_t len;
    ra_target_result r;
    if (ra_target_regs("regalloc", m, target, arch, o, &text, &len, &r, stderr)) return 2;
    int rc = outfile_write(out, text, len) ? 2 : 0;
    if (!rc && !quiet) ra_target_print(stderr, shown, target, &r);
    free(text);
    return rc;
}

static int allocate(const char *input, blk_opts *blocks, const ptx_config *cfg, ra_options *op, unsigned target,
                    const char *arch, const char *out, bool quiet);

int cmd_regalloc(int argc, char **argv)
{
    static const struct option opts[] = {RA_OPT_LONG,
                                         {"kernel", required_argument, 0, 'k'},
                                         {"target-regs", required_argument, 0, 'T'},
                                         {"arch", required_argument, 0, 'A'},
                                         {"block", required_argument, 0, 'B'},
                                         {"output", required_argument, 0, 'o'},
                                         {"quiet", no_argument, 0, 'q'},
                                         CFG_OPT_LONG,
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    blk_opts blocks = {0};
    ra_options o;
    memset(&o, 0, sizeof o);
    o.mode = RA_MODE_AFF;
    o.blocks = &blocks;
    const char *out = NULL;
    bool quiet = false, have_budget = false;
    unsigned target = 0;
    const char *arch = NULL;
    unsigned long v;
    cfg_opt copt = {0};
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "b:m:k:o:qh", opts, NULL)) != -1) {
        if (cfg_opt_take(c, optarg, &copt)) continue;
        switch (c) {
        case 'b': /* -b, -m: the short spellings of --budget, --mode */
        case RA_OPT_BUDGET:
            if (ra_opt_set(RA_OPT_BUDGET, optarg, "regalloc", &o)) return 2;
            have_budget = true;
            break;
        case 'm':
        case RA_OPT_MODE:
        case RA_OPT_MAX_THREADS:
        case RA_OPT_SMEM_LIMIT:
            if (ra_opt_set(c == 'm' ? RA_OPT_MODE : (enum ra_opt)c, optarg, "regalloc", &o)) return 2;
            break;
        case 'k': o.only = optarg; break;
        case 'T':
            if (ra_opt_number("regalloc", "--target-regs", optarg, 255, &v)) return 2;
            target = (unsigned)v;
            break;
        case 'A': arch = optarg; break;
        case 'B':
            if (!blk_add(&blocks, optarg, "regalloc")) return 2;
            break;
        case 'o': out = optarg; break;
        case 'q': quiet = true; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (target && (have_budget || o.mode == RA_MODE_LINEAR)) {
        fputs("ptxray regalloc: --target-regs takes no --budget and no --mode linear (it never adds .local spills)\n",
              stderr);
        return 2;
    }
    if (arch && !target) {
        fputs("ptxray regalloc: --arch goes with --target-regs\n", stderr);
        return 2;
    }
    if (optind + 1 != argc || !(have_budget || target)) {
        if (!have_budget && optind + 1 == argc) fputs("ptxray regalloc: --budget is required\n", stderr);
        usage(stderr);
        return 2;
    }
    /* the project file's shapes, below --block (as every command that
     * analyses divergence reads them); its errors come first */
    cfg_set configs;
    const ptx_config *cfg = NULL;
    if (cfg_opt_open(&configs, &copt, argv + optind, 1)) return 2;
    cfg_for(&configs, argv[optind], &cfg);
    return cfg_opt_close(&configs, CFG_SUPPS_NONE, allocate(argv[optind], &blocks, cfg, &o, target, arch, out, quiet));
}

/* Loads input, checks the shapes and writes the allocated (or targeted) PTX. */
static int allocate(const char *input, blk_opts *blocks, const ptx_config *cfg, ra_options *op, unsigned target,
                    const char *arch, const char *out, bool quiet)
{
    ra_options o = *op;
    in_unit unit; /* a PTX file, or a binary's PTX (inputs.h) */
    if (in_single(&unit, "regalloc", input, stderr)) return 2;
    const char *path = unit.shown;
    const char *shown = strcmp(path, "-") ? path : "<stdin>";
    ptx_module *m = in_load(&unit, 1, stderr);
    if (!m) {
        in_unit_free(&unit);
        return 2;
    }
    if (!blk_check(blocks, m, "regalloc", path)) {
        ptx_module_free(m);
        in_unit_free(&unit);
        return 2;
    }
    if (cfg) {
        cfg_mark(cfg, m);
        if (!cfg_add_blocks(cfg, blocks, "regalloc")) {
            ptx_module_free(m);
            in_unit_free(&unit);
            return 2;
        }
    }
    if (o.only && !(o.only = load_kernel("regalloc", m, shown, o.only, false))) {
        ptx_module_free(m);
        in_unit_free(&unit);
        return 2;
    }
    if (target) {
        int rc = run_target(m, &o, target, arch, out, quiet, shown);
        ptx_module_free(m);
        in_unit_free(&unit);
        return rc;
    }
    /* everything is decided and rewritten before the output is opened */
    ptx_diags d;
    ptx_diags_init(&d);
    ra_stats st;
    o.measure_after = !quiet; /* the summary prints it */
    if (ra_run(m, &o, &st, &d)) {
        ptx_diags_print(&d, shown, m->src, m->src_len, stderr);
        ptx_diags_free(&d);
        ptx_module_free(m);
        in_unit_free(&unit);
        return 2;
    }
    outfile of;
    int rc = 0;
    if (outfile_open(&of, out)) rc = 2;
    else {
        ptx_print_module(of.f, m);
        rc = outfile_commit(&of) ? 2 : 0;
    }
    if (!rc) {
        ptx_diags_print(&d, shown, m->src, m->src_len, stderr);
        if (!quiet) ra_stats_print(stderr, shown, &st);
    }
    ptx_diags_free(&d);
    ra_stats_free(&st);
    ptx_module_free(m);
    in_unit_free(&unit);
    return rc;
}
