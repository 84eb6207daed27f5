/* ptxray coalescing: uncoalesced global accesses and shared-memory bank
 * conflicts (analyses/coalescing.h, docs/coalescing.md). */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "batch.h"
#include "coal_run.h"
#include "coalescing_report.h"
#include "commands.h"
#include "config_opt.h"

static void usage(FILE *o)
{
    fputs("usage: ptxray coalescing FILE... [--kernel NAME] [--block [KERNEL=]X,Y,Z]... [--format text|json|sarif]\n"
          "                         [-j N] [-o OUT] [--config FILE | --no-config]\n"
          "Finds global loads, stores and atomics whose warp touches more 32-byte sectors\n"
          "than its bytes need (strided, data-dependent or misaligned addresses), and\n"
          "shared-memory accesses with bank conflicts.  Each access's address is taken\n"
          "from the affine analysis as a function of tid.x/y/z and laneid; the 32 lanes\n"
          "of a warp have consecutive linear thread ids.\n"
          "  --kernel  only this function (one FILE)\n"
          "  --block   the block shape of KERNEL, else of every function; repeatable\n"
          "            (default: .reqntid, else blockDim.x is assumed a multiple of 32,\n"
          "            which the report says)\n"
          "  --launches FILE.json  the shapes host code launches kernels with (`ptxray launches`),\n"
          "            after --block and .reqntid; a kernel launched with several is analysed at\n"
          "            each, and a finding says at which shapes it holds\n"
          "  --format  text (default: warnings like a compiler, then a summary),\n"
          "            json (every access) or sarif (SARIF 2.1.0, the findings)\n"
          "  -j, --jobs N  files analysed in parallel (default: one per core); the report is\n"
          "            the same for every N\n"
          "  --config FILE  the project file's block shapes and facts about parameters\n"
          "            (docs/check.md, \"Stated assumptions\"); default: ptxray.yaml in each\n"
          "            input's directory or the nearest above it; --no-config: none\n"
          "Several files: each file's report in the order given (text: under a line\n"
          "\"== FILE ==\", then a line of totals; JSON: one document with a \"files\" array;\n"
          "SARIF: one run with every file's results).  docs/coalescing.md.\n"
          "Exit status: 0 (findings or not), 2 for bad input (one file: nothing is written;\n"
          "several: bad files are reported on stderr, the others still reported, -o not written).\n",
          o);
}

int cmd_coalescing(int argc, char **argv)
{
    static const struct option opts[] = {{"kernel", required_argument, 0, 'k'},
                                         {"launches", required_argument, 0, 'L'},
                                         {"block", required_argument, 0, 'b'},
                                         {"format", required_argument, 0, 'f'},
                                         {"output", required_argument, 0, 'o'},
                                         {"jobs", required_argument, 0, 'j'},
                                         CFG_OPT_LONG,
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    coal_run_args a;
    memset(&a, 0, sizeof a);
    a.format = COAL_FMT_TEXT;
    cfg_opt copt = {0};
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "k:b:f:o:j:h", opts, NULL)) != -1) {
        if (cfg_opt_take(c, optarg, &copt)) continue;
        switch (c) {
        case 'k': a.only = optarg; break;
        case 'b':
            if (!blk_add(&a.blocks, optarg, "coalescing")) return 2;
            break;
        case 'L':
            if (!blk_add_launches(&a.blocks, optarg, "coalescing")) return 2;
            break;
        case 'f':
            if (!coal_parse_format(optarg, "coalescing", &a.format)) return 2;
            break;
        case 'o': a.out = optarg; break;
        case 'j':
            if (!batch_parse_jobs(optarg, "coalescing", &a.jobs)) return 2;
            break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind >= argc) {
        usage(stderr);
        return 2;
    }
    if (a.only && optind + 1 < argc) {
        fputs("ptxray coalescing: --kernel picks a function of one FILE\n", stderr);
        return 2;
    }
    /* the project files, found before anything runs: an error in one
     * stops the run (as in check and analyze) */
    cfg_set configs;
    if (cfg_opt_open(&configs, &copt, argv + optind, (size_t)(argc - optind))) return 2;
    a.configs = &configs;
    return cfg_opt_close(&configs, CFG_SUPPS_NONE, coal_run(&a, argv + optind, (size_t)(argc - optind)));
}
