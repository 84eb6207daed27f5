/* ptxray uniformize: marks every conditional branch that the divergence
 * analysis proves uniform as such (bra -> bra.uni, brx.idx -> brx.idx.uni;
 * report/uniformize.c). */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "config_opt.h"
#include "uniformize.h"

static void usage(FILE *o)
{
    fputs("usage: ptxray uniformize FILE [--kernel NAME] [--analysis simple|affine|affine2]\n"
          "                         [--block [KERNEL=]X,Y,Z]... [--assume-tid-yz-uniform] [-o OUT]\n"
          "Writes FILE with every conditional branch that the divergence analysis\n"
          "proves uniform marked .uni: \"@%p bra L\" becomes \"@%p bra.uni L\", a\n"
          "brx.idx with a uniform index \"brx.idx.uni\".  Nothing else changes, byte\n"
          "for byte.  Unconditional bra are left as written (they cannot diverge, and\n"
          "ptxas knows it).  Options as for `ptxray divergence` (default: affine);\n"
          "--launches FILE.json: the shapes host code launches kernels with; a branch is\n"
          "marked only when uniform at each (and at the default if some launch's is unknown).\n"
          "--config FILE: the project file's block shapes (docs/check.md, \"Stated assumptions\");\n"
          "default: ptxray.yaml in FILE's directory or the nearest above it; --no-config: none.\n"
          "A one-line summary goes to stderr.\n"
          "Exit status: 0, or 2 for bad input or usage (nothing is written).\n",
          o);
}

int cmd_uniformize(int argc, char **argv)
{
    static const struct option opts[] = {{"kernel", required_argument, 0, 'k'},
                                         {"analysis", required_argument, 0, 'a'},
                                         {"launches", required_argument, 0, 'L'},
                                         {"block", required_argument, 0, 'b'},
                                         {"assume-tid-yz-uniform", no_argument, 0, 'u'},
                                         {"output", required_argument, 0, 'o'},
                                         CFG_OPT_LONG,
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *kernel = NULL, *out = NULL;
    dr_config c = {.analysis = DIV_AN_AFFINE};
    cfg_opt copt = {0};
    int opt;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "k:o:h", opts, NULL)) != -1) {
        if (cfg_opt_take(opt, optarg, &copt)) continue;
        int r = dr_option(opt, optarg, &c, "uniformize");
        if (r < 0) return 2;
        if (r == 0) continue;
        switch (opt) {
        case 'k': kernel = optarg; break;
        case 'o': out = optarg; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind + 1 != argc) {
        usage(stderr);
        return 2;
    }
    cfg_set configs;
    if (cfg_opt_open(&configs, &copt, argv + optind, 1)) return 2;
    c.configs = &configs;
    return cfg_opt_close(&configs, CFG_SUPPS_NONE, uni_run(argv[optind], kernel, &c, out));
}
