/* ptxray check: the coalescing and divergence findings of many PTX files,
 * for CI (docs/check.md): baselines, exit status by rule, text/JSON/SARIF. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "batch.h"
#include "check_run.h"
#include "commands.h"
#include "config_opt.h"

static void usage(FILE *o)
{
    fputs("usage: ptxray check [--format text|json|sarif|html] [--baseline FILE] [--write-baseline FILE]\n"
          "                    [--fail-on RULES] [--enable RULES] [--strict] [--root DIR]\n"
          "                    [--block [KERNEL=]X,Y,Z]... [-j N] [-o OUT]\n"
          "                    [--config FILE | --no-config] [--strict-assumptions] PATH...\n"
          "Checks PTX files (directories: every *.ptx below, recursively) for uncoalesced and\n"
          "misaligned global accesses, shared-memory bank conflicts, barriers and warp\n"
          "collectives that threads skip under divergence and, when enabled, branches not\n"
          "proven warp-uniform: one finding per kernel, source line and rule, by cost.\n"
          "  RULES     comma-separated: uncoalesced, misaligned, bank-conflict, divergent-branch,\n"
          "            divergent-barrier, divergent-collective\n"
          "  --fail-on the rules whose proven findings make the exit status 1 (default\n"
          "            uncoalesced,misaligned,bank-conflict,divergent-barrier,divergent-collective)\n"
          "  --enable  rules reported besides those (divergent-branch is off by default: most\n"
          "            kernels branch on the thread index by design)\n"
          "  --strict  possible findings (that depend on loaded values, unknown strides or\n"
          "            alignments) fail too\n"
          "  --format html  one self-contained page: files and kernels with their finding counts,\n"
          "            linking to a section per file (docs/html.md)\n"
          "  --root    SARIF locations are relative to DIR (default: the current directory)\n"
          "  --baseline        suppress the findings whose fingerprints FILE lists\n"
          "  --write-baseline  write every finding's fingerprint to FILE (exit 0 unless bad input)\n"
          "  --block   the block shape of KERNEL, else of every kernel; repeatable (default:\n"
          "            .reqntid, else blockDim.x is assumed a multiple of 32)\n"
          "  --launches FILE.json  the shapes host code launches kernels with (`ptxray launches`),\n"
          "            after --block and .reqntid; a kernel launched with several is checked at each,\n"
          "            a finding given once with the shapes it holds at (the cost: the highest)\n"
          "  --config FILE  the project file (block shapes, facts about parameters, fail-on,\n"
          "            suppressions; docs/check.md); default: ptxray.yaml or .ptxray.yaml in each\n"
          "            input's directory or the nearest above it; --no-config: none\n"
          "  --strict-assumptions  fail when an assumption or suppression of the project file\n"
          "            changed no finding (each is listed)\n"
          "  -j, --jobs N  files checked in parallel (default: one per core); the report is the\n"
          "            same for every N\n"
          "Exit status: 0 clean, 1 proven findings of a --fail-on rule, 2 bad input or usage (bad files\n"
          "are reported on stderr and the others still checked).  Details: docs/check.md.\n",
          o);
}

static int parse_rules_opt(const char *opt, const char *arg, unsigned *mask)
{
    if (chk_parse_rules(arg, mask)) return 0;
    fprintf(stderr,
            "ptxray check: %s '%s': expected rules among " CHK_RULE_LIST " separated by commas (or none)\n",
            opt, arg);
    return 2;
}

/* 0, 1 (--help printed) or 2 (usage error printed). */
static int parse_args(int argc, char **argv, chk_args *a)
{
    static const struct option opts[] = {{"format", required_argument, 0, 'f'},
                                         {"baseline", required_argument, 0, 'B'},
                                         {"write-baseline", required_argument, 0, 'W'},
                                         {"fail-on", required_argument, 0, 'F'},
                                         {"enable", required_argument, 0, 'E'},
                                         {"launches", required_argument, 0, 'L'},
                                         {"block", required_argument, 0, 'b'},
                                         {"strict", no_argument, 0, 'S'},
                                         {"root", required_argument, 0, 'R'},
                                         {"output", required_argument, 0, 'o'},
                                         {"jobs", required_argument, 0, 'j'},
                                         CFG_OPT_LONG,
                                         {"strict-assumptions", no_argument, 0, 'A'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    memset(a, 0, sizeof *a);
    a->fail_on = a->enable = CHK_DEFAULT_RULES;
    a->co.blocks = &a->blocks;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "f:o:b:j:h", opts, NULL)) != -1) {
        if (cfg_opt_take(c, optarg, &a->config)) continue;
        switch (c) {
        case 'f':
            if (!strcmp(optarg, "html")) a->format = CHK_FMT_HTML;
            else if (!coal_parse_format(optarg, "check", &a->format)) return 2;
            break;
        case 'B': a->baseline = optarg; break;
        case 'W': a->write = optarg; break;
        case 'F':
            if (parse_rules_opt("--fail-on", optarg, &a->fail_on)) return 2;
            a->fail_on_given = true;
            break;
        case 'A': a->strict_assumptions = true; break;
        case 'E':
            if (parse_rules_opt("--enable", optarg, &a->enable)) return 2;
            a->enable |= CHK_DEFAULT_RULES;
            break;
        case 'b':
            if (!blk_add(&a->blocks, optarg, "check")) return 2;
            break;
        case 'L':
            if (!blk_add_launches(&a->blocks, optarg, "check")) return 2;
            break;
        case 'o': a->out = optarg; break;
        case 'j':
            if (!batch_parse_jobs(optarg, "check", &a->jobs)) return 2;
            break;
        case 'S': a->strict = true; break;
        case 'R': a->root = optarg; break;
        case 'h': usage(stdout); return 1;
        default: usage(stderr); return 2;
        }
    }
    if (optind >= argc) {
        usage(stderr);
        return 2;
    }
    return 0;
}

int cmd_check(int argc, char **argv)
{
    chk_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc) return rc == 1 ? 0 : 2;
    return chk_check(&a, argv + optind, argc - optind);
}
