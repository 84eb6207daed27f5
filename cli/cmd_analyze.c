/* ptxray analyze: one readable report per kernel of a .ptx file, or of the
 * PTX nvcc makes from a .cu file: value shares, register pressure and the
 * findings of `ptxray check` ordered by likely impact (docs/check.md). */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "analyze_report.h"
#include "batch.h"
#include "coalescing_report.h"
#include "commands.h"
#include "launch_table.h"
#include "ra_opts.h"
#include "toolchain.h"

static void usage(FILE *o)
{
    fputs("usage: ptxray analyze FILE.ptx... | FILE.cu [-arch sm_XX] [-IDIR] [-DNAME[=V]] [-UNAME] [-std=c++NN]\n"
          "                      [--block [KERNEL=]X,Y,Z]... [--kernel NAME] [--format text|json|sarif|html]\n"
          "                      [-j N] [-o OUT] [--no-ptxas] [--budget K [--mode linear|div|aff] [--max-threads N]\n"
          "                      [--smem-limit BYTES]] [--verbose] [-- NVCC-ARGS...]\n"
          "One report per kernel: the shares of uniform, affine and divergent values, the\n"
          "register pressure, ptxas -v's registers, spill bytes and shared memory (when\n"
          "ptxas is found), then uncoalesced and misaligned accesses, bank conflicts and\n"
          "branches not proven uniform, with source lines and hints, by likely impact\n"
          "(accesses inside loops first, deeper loops first).  A .cu file is compiled with\n"
          "`nvcc -ptx -lineinfo -arch=ARCH` (default sm_90) into a temporary directory;\n"
          "-I/-D/-U/-std= go to nvcc and libclang, -arch (or --arch) and everything after\n"
          "`--` to nvcc as given.  nvcc's own messages are shown as nvcc prints them.\n"
          "--block: the block shape of KERNEL, else of every kernel; repeatable (default:\n"
          ".reqntid, else the shapes the host code launches it with, else blockDim.x is\n"
          "assumed a multiple of 32).  The launches are read from FILE.cu with libclang\n"
          "(`ptxray launches`; --verbose: libclang's errors in system headers file by file,\n"
          "not just counted), or from --launches FILE.json; a kernel launched with several\n"
          "shapes is analysed at each: one report with the values at each shape and each\n"
          "finding once, saying at which shapes it holds.\n"
          "--format: text (default), json, sarif (the findings, as `ptxray check` writes\n"
          "them), or html: one self-contained page (docs/html.md): per kernel the source with\n"
          "its lines marked by their findings, the PTX of a clicked line with abstract\n"
          "values, the CFG coloured by divergence, registers and spills from `ptxas -v`\n"
          "(--no-ptxas: not run).  -o OUT: written whole or not at all.\n"
          "--budget K (html only): also run `ptxray regalloc --budget K` with --mode (default\n"
          "aff), --max-threads and --smem-limit as it takes them, and mark on each source\n"
          "line (and beside each PTX instruction) the spill reloads, stores and\n"
          "rematerialisations the rewrite puts there, by where the value lives, in the\n"
          "line's cost; the page itself shows the PTX as written.\n"
          "Several .ptx files: each file's report in the order given, worked on by -j N\n"
          "threads (default: one per core; the report is the same for every N): text, one\n"
          "report after the other and a line of totals; JSON, one document with a \"files\"\n"
          "array; SARIF, one run with every file's findings (not html, --kernel or .cu).\n"
          "Exit status: 0, or 2 for bad input, a missing nvcc or a failed compilation (several\n"
          "files: bad ones are reported on stderr and the others still reported).\n",
          o);
}

int cmd_analyze(int argc, char **argv)
{
    static const struct option opts[] = {{"arch", required_argument, 0, 'a'},
                                         {"launches", required_argument, 0, 'L'},
                                         {"block", required_argument, 0, 'b'},
                                         {"kernel", required_argument, 0, 'k'},
                                         {"format", required_argument, 0, 'f'},
                                         {"no-ptxas", no_argument, 0, 'P'},
                                         {"jobs", required_argument, 0, 'j'},
                                         {"verbose", no_argument, 0, 'V'},
                                         RA_OPT_LONG,
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *arch = "sm_90", *out = NULL;
    int format = COAL_FMT_TEXT;
    bool html = false, ptxas = true;
    blk_opts blocks = {0};
    ra_options ra;
    memset(&ra, 0, sizeof ra);
    ra.mode = RA_MODE_AFF;
    bool have_budget = false, ra_other = false;
    unsigned jobs = 0;
    bool verbose = false;
    /* everything after `--` goes to nvcc as it is */
    int nextra = 0;
    char **extra = NULL;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--")) {
            extra = argv + i + 1;
            nextra = argc - i - 1;
            argv[i] = NULL;
            argc = i;
            break;
        }
    /* nvcc's spelling -arch X / -arch=X (getopt would read -a rch) */
    for (int i = 1; i < argc; i++) {
        int take = !strcmp(argv[i], "-arch") && i + 1 < argc ? 2 : !strncmp(argv[i], "-arch=", 6) ? 1 : 0;
        if (!take) continue;
        arch = take == 2 ? argv[i + 1] : argv[i] + 6;
        memmove(argv + i, argv + i + take, (size_t)(argc - i - take + 1) * sizeof *argv);
        argc -= take;
        i--;
    }
    /* -I/-D/-U/-std=: for nvcc and libclang, taken out before getopt */
    const char *flags[128]; /* (a fixed array: nothing to free on the early returns; more flags stay in
                             * argv and getopt rejects them) */
    size_t nflags = 0;
    for (int i = 1; i < argc; i++)
        if (((argv[i][0] == '-' && (argv[i][1] == 'I' || argv[i][1] == 'D' || argv[i][1] == 'U') && argv[i][2]) ||
             !strncmp(argv[i], "-std=", 5)) &&
            nflags < sizeof flags / sizeof flags[0]) {
            flags[nflags++] = argv[i];
            memmove(argv + i, argv + i + 1, (size_t)(argc - i) * sizeof *argv); /* argv[argc] is NULL */
            argc--;
            i--;
        }
    coal_options co = {{0, 0, 0}, NULL, blk_option_shape, &blocks};
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "a:b:k:L:f:o:j:h", opts, NULL)) != -1) {
        switch (c) {
        case 'a': arch = optarg; break;
        case 'b':
            if (!blk_add(&blocks, optarg, "analyze")) return 2;
            break;
        case 'L':
            if (!blk_add_launches(&blocks, optarg, "analyze")) return 2;
            break;
        case 'k': co.only = optarg; break;
        case 'f':
            html = !strcmp(optarg, "html");
            if (!html && strcmp(optarg, "text") && strcmp(optarg, "json") && strcmp(optarg, "sarif")) {
                fprintf(stderr, "ptxray analyze: unknown format '%s' (text, json, sarif or html)\n", optarg);
                return 2;
            }
            if (!html) coal_parse_format(optarg, "analyze", &format);
            break;
        case 'o': out = optarg; break;
        case 'V': verbose = true; break;
        case 'P': ptxas = false; break;
        case 'j':
            if (!batch_parse_jobs(optarg, "analyze", &jobs)) return 2;
            break;
        case RA_OPT_BUDGET:
        case RA_OPT_MODE:
        case RA_OPT_MAX_THREADS:
        case RA_OPT_SMEM_LIMIT:
            if (ra_opt_set((enum ra_opt)c, optarg, "analyze", &ra)) return 2;
            have_budget |= c == RA_OPT_BUDGET;
            ra_other |= c != RA_OPT_BUDGET;
            break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind >= argc) {
        usage(stderr);
        return 2;
    }
    if (ra_other && !have_budget) {
        fputs("ptxray analyze: --mode, --max-threads and --smem-limit go with --budget\n", stderr);
        return 2;
    }
    if (have_budget && !html) {
        fputs("ptxray analyze: --budget (the spill code of a regalloc run) goes with --format html\n", stderr);
        return 2;
    }
    const ra_options *rap = have_budget ? &ra : NULL;
    const char *path = argv[optind];
    an_args aa = {format, out, jobs};
    if (optind + 1 < argc) {
        const char *why = html ? "--format html is one page of one file"
                          : co.only ? "--kernel picks a function of one file"
                          : nextra ? "arguments after -- are for nvcc, and .ptx files are not compiled"
                                   : NULL;
        for (int i = optind; i < argc && !why; i++)
            if (tc_ends_with(argv[i], ".cu")) why = "a .cu file is compiled and analysed alone";
        if (why) {
            fprintf(stderr, "ptxray analyze: several files: %s\n", why);
            return 2;
        }
        return an_report_files(argv + optind, (size_t)(argc - optind), &co, &blocks, &aa);
    }
    if (!tc_ends_with(path, ".cu")) {
        if (nextra) {
            fprintf(stderr, "ptxray analyze: %s: arguments after -- are for nvcc, and a .ptx file is not compiled\n",
                    path);
            return 2;
        }
        return html ? an_report_html(path, path, &co, &blocks, out, ptxas, rap) : an_report(path, path, &co, &blocks, &aa);
    }
    char dir[] = "/tmp/ptxray-analyzeXXXXXX", ptx[sizeof dir + 16];
    if (!mkdtemp(dir)) {
        perror("ptxray analyze: temporary directory");
        return 2;
    }
    hc_table t = {0};
    const char **nv = malloc(sizeof *nv * (nflags + (size_t)nextra + 1));
    if (!nv) abort();
    memcpy(nv, flags, sizeof *nv * nflags);
    if (nextra) memcpy(nv + nflags, extra, sizeof *nv * (size_t)nextra);
    int rc = tc_nvcc_ptx("analyze", path, arch, dir, ptx, sizeof ptx, nv, nflags + (size_t)nextra);
    free(nv);
    if (!rc && !blocks.launches) {
        rc = hc_table_from_cu(&t, path, flags, nflags, "analyze", verbose);
        blocks.launches = &t;
    }
    if (!rc) rc = html ? an_report_html(path, ptx, &co, &blocks, out, ptxas, rap) : an_report(path, ptx, &co, &blocks, &aa);
    hc_table_free(&t);
    unlink(ptx);
    rmdir(dir);
    return rc;
}
