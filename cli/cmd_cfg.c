/* ptxray cfg: control-flow graphs, dominators, loops, SSA and GSA. */
#include <getopt.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include "cfg.h"
#include "commands.h"
#include "cfg_print.h"
#include "config_opt.h"
#include "outfile.h"
#include "pipeline.h"

static void usage(FILE *o)
{
    fputs("usage: ptxray cfg FILE [--kernel NAME] [--ssa|--gsa] [--format text|dot|json] [--block [KERNEL=]X,Y,Z]\n"
          "                 [-o OUT]\n"
          "Prints the control-flow graph of every function with a body (or of NAME):\n"
          "basic blocks with their PTX lines, successors, immediate dominator and\n"
          "post-dominator, loops (headers, latches, exits; irreducible ones flagged),\n"
          "control dependence and unreachable blocks.\n"
          "  --ssa     also the SSA form: phi functions and the value each register\n"
          "            operand names (%r1.2 = second definition of %r1)\n"
          "  --gsa     gated SSA (Sampaio et al. 2013, Fig. 9): gamma at joins with\n"
          "            their gating predicates, mu at loop headers, eta at loop exits\n"
          "  --format  text (default), dot (Graphviz: dot -Tsvg; one node per block,\n"
          "            loop headers doubled, back edges dashed; blocks coloured by the affine\n"
          "            analysis: green whole warp, yellow part of a warp, red ends in a\n"
          "            branch not proven uniform; each labelled with its .cu lines) or json\n"
          "  --block   the block shape the dot colours assume (default: .reqntid, else\n"
          "            blockDim.x a multiple of 32); repeatable\n"
          "  --config FILE  the project file's block shapes, below --block (docs/check.md,\n"
          "            \"Stated assumptions\"); default: ptxray.yaml in FILE's directory or the\n"
          "            nearest above it; --no-config: none\n"
          "Exit status: 0, or 2 for bad input (nothing is written).\n",
          o);
}

int cmd_cfg(int argc, char **argv)
{
    static const struct option opts[] = {{"kernel", required_argument, 0, 'k'},
                                         {"ssa", no_argument, 0, 's'},
                                         {"gsa", no_argument, 0, 'g'},
                                         {"format", required_argument, 0, 'f'},
                                         {"output", required_argument, 0, 'o'},
                                         {"block", required_argument, 0, 'b'},
                                         CFG_OPT_LONG,
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *kernel = NULL, *out = NULL;
    enum prog_level level = PROG_CFG;
    int format = CFGP_TEXT;
    blk_opts blocks = {0};
    cfg_opt copt = {0};
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "k:f:o:b:h", opts, NULL)) != -1) {
        if (cfg_opt_take(c, optarg, &copt)) continue;
        switch (c) {
        case 'k': kernel = optarg; break;
        case 's': level = PROG_SSA; break;
        case 'g': level = PROG_GSA; break;
        case 'f':
            if (!strcmp(optarg, "text")) format = CFGP_TEXT;
            else if (!strcmp(optarg, "dot")) format = CFGP_DOT;
            else if (!strcmp(optarg, "json")) format = CFGP_JSON;
            else {
                fprintf(stderr, "ptxray cfg: unknown format '%s' (text, dot or json)\n", optarg);
                return 2;
            }
            break;
        case 'o': out = optarg; break;
        case 'b':
            if (!blk_add(&blocks, optarg, "cfg")) return 2;
            break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind + 1 != argc) {
        usage(stderr);
        return 2;
    }
    const char *path = argv[optind];
    /* Build everything before opening the output, so an error writes
     * nothing.  The DOT's colours are the affine analysis (degree 2) of
     * each function at its shape (--block, .reqntid, else the default), on
     * GSA; text and JSON only print what is built, so its scratch need not
     * stay (pipeline.h). */
    cfg_set configs;
    if (cfg_opt_open(&configs, &copt, argv + optind, 1)) return 2;
    pl_prog x;
    pl_options po = {.cmd = "cfg", .kernel = kernel,
                     .level = format == CFGP_DOT ? PROG_GSA : level | PROG_RETURN_SCRATCH,
                     .passes = format == CFGP_DOT ? PL_VERDICTS : 0, .keep = DIV_AN_AFFINE2,
                     .blocks = &blocks, .shapes = PL_SHAPES_CHECK, .configs = &configs};
    if (pl_load(&x, path, &po)) {
        cfg_set_free(&configs); /* nothing was read: nothing to say about the project file */
        return 2;
    }
    outfile of;
    int rc = 0;
    if (outfile_open(&of, out)) rc = 2;
    else {
        if (format == CFGP_DOT) cfg_dot_prog(of.f, x.p, level, x.dv, x.files);
        else cfg_print_prog(of.f, x.p, level, format);
        rc = outfile_commit(&of) ? 2 : 0;
    }
    pl_free(&x);
    return cfg_opt_close(&configs, CFG_SUPPS_NONE, rc);
}
