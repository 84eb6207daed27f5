/* ptxray divergence: which values and branches are uniform across a warp,
 * for one file in detail or for many files as one line per kernel. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "batch.h"
#include "commands.h"
#include "config_opt.h"
#include "div_report.h"

static void usage(FILE *o)
{
    fputs("usage: ptxray divergence FILE [--kernel NAME] [--analysis simple|affine|affine2]\n"
          "                         [--block [KERNEL=]X,Y,Z]... [--assume-tid-yz-uniform]\n"
          "                         [--format text|json] [--values all|none|STATE,...] [-o OUT]\n"
          "       ptxray divergence --summary [--block [KERNEL=]X,Y,Z]... [--assume-tid-yz-uniform]\n"
          "                         [--format text|json] [-j N] [-o OUT] FILE...\n"
          "Divergence analysis (Sampaio et al. 2013) of every function with a body (or\n"
          "of NAME): the assumptions used, every conditional branch with its verdict,\n"
          "PTX line and source position (.loc), every value defined by an instruction,\n"
          "gamma, mu or eta function with its state and abstract value, and statistics\n"
          "for all three analyses (the paper's Fig. 22).\n"
          "  --analysis  whose verdicts are listed: simple (section 3.3), affine\n"
          "              (default; section 3.4, degree 1) or affine2 (degree 2)\n"
          "  --block     the block shape (1 to 3 extents) of KERNEL, else of every\n"
          "              function; repeatable.  Default: .reqntid, else blockDim.x is\n"
          "              assumed a multiple of 32 (verdicts that rely on it say so)\n"
          "  --launches FILE.json  the shapes host code launches kernels with (`ptxray\n"
          "              launches`), after --block and .reqntid; a kernel launched with several\n"
          "              is reported at each (one report, or --summary row, per shape)\n"
          "  --assume-tid-yz-uniform  treat %tid.y and %tid.z as warp-uniform\n"
          "  --config FILE  the project file's block shapes (docs/check.md, \"Stated\n"
          "              assumptions\"); default: ptxray.yaml in each input's directory or\n"
          "              the nearest above it; --no-config: none\n"
          "  --values    which values to list: all (default), none, or states among\n"
          "              uniform, affine, divergent separated by commas\n"
          "  --summary   one line per function of every FILE and a TOTAL line: values,\n"
          "              the shares of uniform/affine/divergent values and the divergent\n"
          "              branches under each analysis\n"
          "  -j, --jobs N  --summary: files analysed in parallel (default: one per core);\n"
          "              the report is the same for every N\n"
          "Exit status: 0 (the report is information), 2 for bad input or usage\n"
          "(nothing is written).  Formats: docs/divergence-reports.md.\n",
          o);
}

/* The run with its inputs' project files (their shapes), found before
 * anything runs: an error in one stops it.  summary: --summary's table,
 * else one file's report (of kernel, or every function). */
static int with_configs(dr_config *c, const cfg_opt *copt, char **files, size_t n, bool summary, bool json,
                        const char *out, const char *kernel)
{
    cfg_set configs;
    if (cfg_opt_open(&configs, copt, files, n)) return 2;
    c->configs = &configs;
    int rc = summary ? dr_run_summary(files, n, c, json, out) : dr_run_file(files[0], kernel, c, json, out);
    return cfg_opt_close(&configs, CFG_SUPPS_NONE, rc);
}

int cmd_divergence(int argc, char **argv)
{
    static const struct option opts[] = {{"kernel", required_argument, 0, 'k'},
                                         {"analysis", required_argument, 0, 'a'},
                                         {"launches", required_argument, 0, 'L'},
                                         {"block", required_argument, 0, 'b'},
                                         {"assume-tid-yz-uniform", no_argument, 0, 'u'},
                                         {"format", required_argument, 0, 'f'},
                                         {"values", required_argument, 0, 'v'},
                                         {"summary", no_argument, 0, 's'},
                                         {"output", required_argument, 0, 'o'},
                                         {"jobs", required_argument, 0, 'j'},
                                         CFG_OPT_LONG,
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *kernel = NULL, *out = NULL;
    dr_config c = {.analysis = DIV_AN_AFFINE, .list = 7};
    cfg_opt copt = {0};
    bool json = false, summary = false, analysis_given = false, values_given = false, jobs_given = false;
    int opt;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "k:f:o:j:h", opts, NULL)) != -1) {
        if (cfg_opt_take(opt, optarg, &copt)) continue;
        int r = dr_option(opt, optarg, &c, "divergence");
        if (r < 0) return 2;
        if (r == 0) {
            analysis_given |= opt == 'a';
            continue;
        }
        switch (opt) {
        case 'k': kernel = optarg; break;
        case 'f':
            if (!strcmp(optarg, "text") || !strcmp(optarg, "json")) json = optarg[0] == 'j';
            else {
                fprintf(stderr, "ptxray divergence: unknown format '%s' (text or json)\n", optarg);
                return 2;
            }
            break;
        case 'v':
            if (!dr_parse_values(optarg, &c.list)) {
                fprintf(stderr,
                        "ptxray divergence: --values '%s': expected all, none, or uniform, affine, divergent "
                        "separated by commas\n",
                        optarg);
                return 2;
            }
            values_given = true;
            break;
        case 's': summary = true; break;
        case 'o': out = optarg; break;
        case 'j':
            if (!batch_parse_jobs(optarg, "divergence", &c.jobs)) return 2;
            jobs_given = true;
            break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (summary) {
        if (kernel || analysis_given || values_given) {
            fputs("ptxray divergence: --summary runs all three analyses on every function; "
                  "--kernel, --analysis and --values do not apply\n",
                  stderr);
            return 2;
        }
        if (optind >= argc) {
            usage(stderr);
            return 2;
        }
        return with_configs(&c, &copt, argv + optind, (size_t)(argc - optind), true, json, out, NULL);
    }
    if (jobs_given) {
        fputs("ptxray divergence: -j is for --summary (one FILE is analysed on one thread)\n", stderr);
        return 2;
    }
    if (optind + 1 != argc) {
        if (optind + 1 < argc) fputs("ptxray divergence: one FILE at a time (--summary takes several)\n", stderr);
        else usage(stderr);
        return 2;
    }
    return with_configs(&c, &copt, argv + optind, 1, false, json, out, kernel);
}
