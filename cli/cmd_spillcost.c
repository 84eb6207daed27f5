/* ptxray spillcost: the cost of the spill code of each mode of the
 * register-allocation pass across budgets, with ptxas's view of the result
 * and plain ptxas -maxrregcount as the reference (docs/spillcost.md). */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "batch.h"
#include "block_opt.h"
#include "commands.h"
#include "spillcost.h"
#include "toolchain.h"

static void usage(FILE *o)
{
    fputs("usage: ptxray spillcost FILE... --budgets K1,K2,... [--arch sm_XX]\n"
          "                          [--target-regs N] [--format text|json|csv] [--plot OUT.svg]\n"
          "                          [--block [KERNEL=]X,Y,Z]... [--launches FILE] [-j N]\n"
          "Runs the register-allocation pass (ptxray regalloc) in each mode (linear, div,\n"
          "aff) at each budget on every file and reports, per kernel, the values spilled\n"
          "and their divergence states, spill loads and stores by space (.shared/.local)\n"
          "and rematerialisations, both as static counts and weighted by 10^(loop depth,\n"
          "at most 3), and the shared bytes per block; then what ptxas -v says about the\n"
          "rewritten code (registers, stack frame, spill bytes, shared memory), and the\n"
          "same for plain ptxas -maxrregcount K on the original file (mode \"ptxas\").\n"
          "A summary over all kernels at the smallest budget follows (Sampaio et al.\n"
          "2013, Fig. 24-26).  docs/spillcost.md.\n"
          "  --budgets  register budgets in 32-bit units, comma-separated\n"
          "  --arch     ptxas -arch (default: each file's .target)\n"
          "  --target-regs  also, per file in modes div and aff: ptxas's spill bytes at\n"
          "             -maxrregcount N alone and after `ptxray regalloc --target-regs N`\n"
          "             (text and JSON; needs ptxas)\n"
          "  --format   text (default), json or csv (the per-kernel rows only)\n"
          "  --plot     SVG line chart (gnuplot) of the loop-weighted local-memory spill\n"
          "             instructions per mode across the budgets, and ptxas's spill bytes\n"
          "  --block    the block shape of KERNEL, else of every kernel, for the divergence\n"
          "             analysis; repeatable (default: .reqntid, else blockDim.x is assumed\n"
          "             a multiple of 32)\n"
          "  --launches FILE  a launch file (docs/launches.md): each of its runs (a launch\n"
          "             with a grid and run's --arg arguments) runs in the emulator on the\n"
          "             original and on every rewrite, which must leave global memory as the\n"
          "             original did; the spill bytes and rematerialisations executed are\n"
          "             printed beside the static figures (text, JSON)\n"
          "  -j, --jobs N  files worked on in parallel (default: one per core); the report\n"
          "             is the same for every N\n"
          "Without ptxas the ptxas columns are \"-\" and a note says so.\n"
          "Exit status: 0, or 2 for bad input or usage (nothing is written).\n",
          o);
}

static int cmp_unsigned(const void *a, const void *b)
{
    unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
    return x < y ? -1 : x > y;
}

/* "8,16,24": numbers from 1 to 65535 (the limit of regalloc --budget),
 * sorted, duplicates dropped.  Returns the count, or 0 after a message. */
static unsigned parse_budgets(const char *s, unsigned **out)
{
    size_t cap = strlen(s) / 2 + 1;
    unsigned *v = malloc(cap * sizeof *v), n = 0;
    if (!v) abort();
    const char *p = s;
    for (;;) {
        char *end;
        errno = 0;
        unsigned long x = *p >= '0' && *p <= '9' ? strtoul(p, &end, 10) : 0;
        if (!x || errno || x > 65535 || (*end && *end != ',')) {
            fprintf(stderr, "ptxray spillcost: --budgets %s: expected numbers from 1 to 65535 separated by commas\n",
                    s);
            free(v);
            return 0;
        }
        v[n++] = (unsigned)x;
        if (!*end) break;
        p = end + 1;
    }
    qsort(v, n, sizeof *v, cmp_unsigned);
    unsigned k = 0;
    for (unsigned i = 0; i < n; i++)
        if (!k || v[k - 1] != v[i]) v[k++] = v[i];
    *out = v;
    return k;
}

int cmd_spillcost(int argc, char **argv)
{
    static const struct option opts[] = {{"budgets", required_argument, 0, 'b'},
                                         {"arch", required_argument, 0, 'a'},
                                         {"format", required_argument, 0, 'f'},
                                         {"plot", required_argument, 0, 'p'},
                                         {"target-regs", required_argument, 0, 'T'},
                                         {"block", required_argument, 0, 'B'},
                                         {"launches", required_argument, 0, 'L'},
                                         {"jobs", required_argument, 0, 'j'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    sc_report r;
    memset(&r, 0, sizeof r);
    blk_opts blocks;
    memset(&blocks, 0, sizeof blocks);
    const char *arch = NULL, *plot = NULL;
    enum sc_format fmt = SC_TEXT;
    unsigned jobs = 0;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "b:a:f:p:T:j:h", opts, NULL)) != -1) {
        switch (c) {
        case 'b':
            free(r.budgets);
            r.budgets = NULL;
            if (!(r.nbudgets = parse_budgets(optarg, &r.budgets))) return 2;
            break;
        case 'a':
            if (strncmp(optarg, "sm_", 3) || !optarg[3] || strlen(optarg) > 16) {
                fprintf(stderr, "ptxray spillcost: --arch %s: expected sm_XX\n", optarg);
                sc_report_free(&r);
                return 2;
            }
            arch = optarg;
            break;
        case 'f':
            if (!strcmp(optarg, "text")) fmt = SC_TEXT;
            else if (!strcmp(optarg, "json")) fmt = SC_JSON;
            else if (!strcmp(optarg, "csv")) fmt = SC_CSV;
            else {
                fprintf(stderr, "ptxray spillcost: --format %s: expected text, json or csv\n", optarg);
                sc_report_free(&r);
                return 2;
            }
            break;
        case 'p': plot = optarg; break;
        case 'j':
            if (!batch_parse_jobs(optarg, "spillcost", &jobs)) {
                sc_report_free(&r);
                return 2;
            }
            break;
        case 'L':
            sc_launches_free(&r);
            if (sc_launches_read(&r, optarg)) {
                sc_report_free(&r);
                return 2;
            }
            break;
        case 'B':
            if (!blk_add(&blocks, optarg, "spillcost")) {
                sc_report_free(&r);
                return 2;
            }
            break;
        case 'T': {
            char *end;
            errno = 0;
            unsigned long v = optarg[0] >= '0' && optarg[0] <= '9' ? strtoul(optarg, &end, 10) : 0;
            if (!v || errno || *end || v > 255) {
                fprintf(stderr, "ptxray spillcost: --target-regs %s: expected a number from 1 to 255\n", optarg);
                sc_report_free(&r);
                return 2;
            }
            r.target_regs = (unsigned)v;
            break;
        }
        case 'h': usage(stdout); sc_report_free(&r); return 0;
        default: usage(stderr); sc_report_free(&r); return 2;
        }
    }
    if (optind >= argc || !r.nbudgets) {
        if (optind < argc) fputs("ptxray spillcost: --budgets is required\n", stderr);
        usage(stderr);
        sc_report_free(&r);
        return 2;
    }
    for (int i = optind; i < argc; i++)
        if (!strcmp(argv[i], "-")) {
            /* every mode and budget parses the file again, and ptxas reads it */
            fputs("ptxray spillcost: reading standard input is not supported: name a file\n", stderr);
            sc_report_free(&r);
            return 2;
        }
    /* before any work: a plot that cannot be drawn is a usage error; the
     * chart is SVG, and an SVG under another name (x.png) is not written */
    size_t pl = plot ? strlen(plot) : 0;
    if (plot && (pl < 4 || strcmp(plot + pl - 4, ".svg"))) {
        fprintf(stderr, "ptxray spillcost: --plot '%s': the chart is SVG; name it FILE.svg\n", plot);
        sc_report_free(&r);
        return 2;
    }
    const char *gnuplot = NULL;
    if (plot && !(gnuplot = tc_find_gnuplot())) {
        fprintf(stderr, "ptxray spillcost: --plot needs gnuplot, which was not found ($GNUPLOT or PATH; "
                        "Debian: apt-get install gnuplot-nox)\n");
        sc_report_free(&r);
        return 2;
    }
    int rc = sc_collect(&r, argv + optind, argc - optind, arch, &blocks, jobs);
    if (!rc && plot && sc_plot(&r, gnuplot, plot)) rc = 2;
    if (!rc) {
        sc_print(stdout, &r, fmt);
        if (fflush(stdout)) rc = 2;
    }
    sc_report_free(&r);
    return rc;
}
