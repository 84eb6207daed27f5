/* ptxray analyze: one readable report per kernel of a .ptx file, or of the
 * PTX nvcc makes from a .cu file: value shares, register pressure and the
 * findings of `ptxray check` ordered by likely impact (docs/analyze.md). */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "analyze_report.h"
#include "batch.h"
#include "coalescing_report.h"
#include "commands.h"
#include "config_opt.h"
#include "launch_table.h"
#include "nvcc_opts.h"
#include "ra_opts.h"
#include "toolchain.h"

static void usage(FILE *o)
{
    fputs("usage: ptxray analyze FILE.ptx... | FILE.cu [NVCC-OPTIONS] [-- NVCC-ARGS...]\n"
          "                      [--block [KERNEL=]X,Y,Z]... [--kernel NAME] [--format text|json|sarif|html]\n"
          "                      [-j N] [-o OUT] [--no-ptxas] [--budget K [--mode linear|div|aff] [--max-threads N]\n"
          "                      [--smem-limit BYTES]] [--launches FILE.json] [--verbose]\n"
          "One report per kernel: the shares of uniform, affine and divergent values, the\n"
          "register pressure, ptxas -v's registers, spill bytes and shared memory (when\n"
          "ptxas is found), then uncoalesced and misaligned accesses, bank conflicts and\n"
          "branches not proven uniform, with source lines and hints, by likely impact\n"
          "(accesses inside loops first, deeper loops first), after a summary table: a\n"
          "template's instances grouped under it, findings by rule as proven/possible,\n"
          "ranked by proven cost, then possible cost.  A .cu file is compiled with\n"
          "`nvcc -ptx -lineinfo -arch=ARCH` into a temporary directory, with nvcc's options\n"
          "in nvcc's spellings (-I DIR, -IDIR, --include-path=DIR, -DNAME[=V], -U NAME,\n"
          "-include FILE, -std=c++17, -O3, -G, -Xcompiler OPTS, --expt-relaxed-constexpr,\n"
          "...); the preprocessor ones (-I, -isystem, -D, -U, -include, -std, -Xcompiler's\n"
          "-D/-U/-I, and those in --options-file's files) also go to libclang, which reads\n"
          "the launches.  ARCH: the last -arch (or --arch), else the highest arch= of the\n"
          "-gencode options (-ptx makes one architecture's PTX), else sm_90.  Options of\n"
          "other steps than that compile (-c, -dc, -M, -l, -L, -Xlinker, -odir, -code, ...)\n"
          "are ignored with a note; -o is analyze's output.  An option neither analyze's\n"
          "nor nvcc's is an error; after `--` everything goes to nvcc as given (its\n"
          "preprocessor options to libclang too).\n"
          "nvcc's own messages are shown as nvcc prints them.\n"
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

static const struct option opts[] = {{"launches", required_argument, 0, 'L'},
                                     {"block", required_argument, 0, 'b'},
                                     {"kernel", required_argument, 0, 'k'},
                                     {"format", required_argument, 0, 'f'},
                                     {"no-ptxas", no_argument, 0, 'P'},
                                     {"jobs", required_argument, 0, 'j'},
                                     {"verbose", no_argument, 0, 'V'},
                                     CFG_OPT_LONG,
                                     RA_OPT_LONG,
                                     {"help", no_argument, 0, 'h'},
                                     {0, 0, 0, 0}};

static int analyze_run(int argc, char **argv, const nvo_set *nv, int nextra, int format, const char *out,
                       unsigned jobs, bool html, bool ptxas, const ra_options *rap, coal_options *cop,
                       blk_opts *blocksp, bool verbose, cfg_set *configs);

/* The rest of the command line (analyze's own options and the files,
 * nvcc's taken out into nv): the reports. */
static int analyze_with(int argc, char **argv, const nvo_set *nv, int nextra)
{
    const char *out = nv->output;
    int format = COAL_FMT_TEXT;
    bool html = false, ptxas = true;
    blk_opts blocks = {0};
    ra_options ra;
    memset(&ra, 0, sizeof ra);
    ra.mode = RA_MODE_AFF;
    bool have_budget = false, ra_other = false;
    unsigned jobs = 0;
    bool verbose = false;
    cfg_opt copt = {0};
    coal_options co = {NULL, &blocks, NULL, NULL};
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "b:k:f:j:", opts, NULL)) != -1) {
        if (cfg_opt_take(c, optarg, &copt)) continue;
        switch (c) {
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
    /* the project files (docs/check.md, "Stated assumptions"): found
     * before anything runs, so that an error in one stops the run */
    cfg_set configs;
    if (cfg_opt_open(&configs, &copt, argv + optind, (size_t)(argc - optind))) return 2;
    int rc = analyze_run(argc, argv, nv, nextra, format, out, jobs, html, ptxas, rap, &co, &blocks, verbose, &configs);
    return cfg_opt_close(&configs, CFG_SUPPS_SAY, rc);
}

static int analyze_run(int argc, char **argv, const nvo_set *nv, int nextra, int format, const char *out,
                       unsigned jobs, bool html, bool ptxas, const ra_options *rap, coal_options *cop,
                       blk_opts *blocksp, bool verbose, cfg_set *configs)
{
    coal_options *co = cop;
    blk_opts *blocks = blocksp;
    const char *path = argv[optind];
    an_args aa = {format, out, jobs, !ptxas, configs};
    if (optind + 1 < argc) {
        const char *why = html ? "--format html is one page of one file"
                          : co->only ? "--kernel picks a function of one file"
                          : nextra ? "arguments after -- are for nvcc, and .ptx files are not compiled"
                          : nv->first ? "nvcc's options are for a .cu file, and .ptx files are not compiled"
                                      : NULL;
        for (int i = optind; i < argc && !why; i++)
            if (tc_ends_with(argv[i], ".cu")) why = "a .cu file is compiled and analysed alone";
        if (why) {
            fprintf(stderr, "ptxray analyze: several files: %s\n", why);
            return 2;
        }
        return an_report_files(argv + optind, (size_t)(argc - optind), co, blocks, &aa);
    }
    if (!tc_ends_with(path, ".cu")) {
        if (nextra) {
            fprintf(stderr, "ptxray analyze: %s: arguments after -- are for nvcc, and a .ptx file is not compiled\n",
                    path);
            return 2;
        }
        if (nv->first) {
            fprintf(stderr, "ptxray analyze: %s: %s is an option of nvcc, and a .ptx file is not compiled\n", path,
                    nv->first);
            return 2;
        }
        return html ? an_report_html(path, path, co, blocks, out, ptxas, rap, configs) : an_report(path, path, co, blocks, &aa);
    }
    char dir[] = "/tmp/ptxray-analyzeXXXXXX", ptx[sizeof dir + 16];
    if (!mkdtemp(dir)) {
        perror("ptxray analyze: temporary directory");
        return 2;
    }
    hc_table t = {0};
    const char *arch = nvo_arch(nv, "sm_90");
    if (nv->nignored) {
        fputs("ptxray analyze: note: nvcc's ", stderr);
        for (size_t i = 0; i < nv->nignored; i++) fprintf(stderr, "%s%s", i ? ", " : "", nv->ignored[i]);
        fprintf(stderr, " ignored: analyze compiles %s to the PTX of one architecture (%s) in a temporary "
                        "directory\n", path, arch);
    }
    int rc = tc_nvcc_ptx("analyze", path, arch, dir, ptx, sizeof ptx, nv->nvcc, nv->nnvcc);
    if (!rc && !blocks->launches) {
        rc = hc_table_from_cu(&t, path, nv->clang, nv->nclang, "analyze", verbose);
        blocks->launches = &t;
    }
    if (!rc) rc = html ? an_report_html(path, ptx, co, blocks, out, ptxas, rap, configs) : an_report(path, ptx, co, blocks, &aa);
    hc_table_free(&t);
    unlink(ptx);
    rmdir(dir);
    return rc;
}

/* analyze's own option at argv[i] (not nvcc's): 2 when its value is the
 * next argument, 1 when it is in argv[i], 0 when argv[i] is not one.  Long
 * options by their full names (getopt's abbreviations would take nvcc's
 * --verbose-like prefixes); short ones -b, -k, -f, -j with their value
 * apart, and -jN. */
static int own_option(const char *a)
{
    if (a[0] != '-') return 0;
    if (a[1] == '-') {
        size_t n = strcspn(a + 2, "=");
        for (const struct option *o = opts; o->name; o++)
            if (strlen(o->name) == n && !strncmp(a + 2, o->name, n))
                return o->has_arg == required_argument && !a[2 + n] ? 2 : 1;
        return 0;
    }
    if (!a[1] || !strchr("bkfj", a[1])) return 0;
    return !a[2] ? 2 : a[1] == 'j' ? 1 : 0; /* -j4; -fjson would take -frobnicate for a format */
}

int cmd_analyze(int argc, char **argv)
{
    /* nvcc's options, in any of nvcc's spellings, are taken out before
     * getopt (toolchain/nvcc_opts.h: to nvcc, the preprocessor ones to
     * libclang too); analyze's own stay for getopt; everything after `--`
     * goes to nvcc as it is (and its preprocessor options to libclang) */
    nvo_set nv = {0};
    int nextra = 0, rc = 0;
    char **av = calloc((size_t)argc + 1, sizeof *av);
    if (!av) abort();
    int ac = 0;
    av[ac++] = argv[0];
    for (int i = 1; i < argc && !rc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--")) {
            nextra = argc - i - 1;
            for (int j = i + 1; j < argc;) j += nvo_take(&nv, argc, argv, j, true, "analyze");
            break;
        }
        if (a[0] != '-' || !a[1]) {
            av[ac++] = argv[i];
            continue;
        }
        if (!strcmp(a, "--arch") || !strncmp(a, "--arch=", 7)) { /* analyze's spelling of -arch */
            if (!a[6] && i + 1 >= argc) {
                fputs("ptxray analyze: --arch needs a value\n", stderr);
                rc = 2;
            } else nv.arch = a[6] ? a + 7 : argv[++i];
            continue;
        }
        int k = own_option(a);
        if (k && a[1] == '-') {
            for (int j = 0; j < k && i + j < argc; j++) av[ac++] = argv[i + j];
            i += k - 1;
            continue;
        }
        int u = nvo_take(&nv, argc, argv, i, false, "analyze");
        if (u < 0) rc = 2;
        else if (u) i += u - 1;
        else if (k) {
            for (int j = 0; j < k && i + j < argc; j++) av[ac++] = argv[i + j];
            i += k - 1;
        } else {
            fprintf(stderr, "ptxray analyze: unknown option '%s' (neither analyze's nor nvcc's; after `--` "
                            "options go to nvcc as they are)\n", a);
            rc = 2;
        }
    }
    if (!rc && nv.help) {
        usage(stdout);
        rc = -1;
    }
    if (!rc) rc = analyze_with(ac, av, &nv, nextra);
    free(av);
    nvo_free(&nv);
    return rc < 0 ? 0 : rc;
}
