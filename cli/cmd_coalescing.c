/* ptxray coalescing: uncoalesced global accesses and shared-memory bank
 * conflicts (analyses/coalescing.h, docs/coalescing.md). */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "coalescing_report.h"
#include "commands.h"
#include "outfile.h"

static void usage(FILE *o)
{
    fputs("usage: ptxray coalescing FILE [--kernel NAME] [--block [KERNEL=]X,Y,Z]... [--format text|json|sarif]\n"
          "                         [-o OUT]\n"
          "Finds global loads, stores and atomics whose warp touches more 32-byte sectors\n"
          "than its bytes need (strided, data-dependent or misaligned addresses), and\n"
          "shared-memory accesses with bank conflicts.  Each access's address is taken\n"
          "from the affine analysis as a function of tid.x/y/z and laneid; the 32 lanes\n"
          "of a warp have consecutive linear thread ids.\n"
          "  --kernel  only this function\n"
          "  --block   the block shape of KERNEL, else of every function; repeatable\n"
          "            (default: .reqntid, else blockDim.x is assumed a multiple of 32,\n"
          "            which the report says)\n"
          "  --launches FILE.json  the shapes host code launches kernels with (`ptxray launches`),\n"
          "            after --block and .reqntid; a kernel launched with several is analysed at\n"
          "            each, and a finding says at which shapes it holds\n"
          "  --format  text (default: warnings like a compiler, then a summary),\n"
          "            json (every access) or sarif (SARIF 2.1.0, the findings)\n"
          "Exit status: 0 (findings or not), 2 for bad input (nothing is written).\n",
          o);
}

int cmd_coalescing(int argc, char **argv)
{
    static const struct option opts[] = {{"kernel", required_argument, 0, 'k'},
                                         {"launches", required_argument, 0, 'L'},
                                         {"block", required_argument, 0, 'b'},
                                         {"format", required_argument, 0, 'f'},
                                         {"output", required_argument, 0, 'o'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *kernel = NULL, *out = NULL;
    blk_opts blocks = {0};
    coal_options co = {{0, 0, 0}, NULL, blk_option_shape, &blocks};
    int format = COAL_FMT_TEXT;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "k:b:f:o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'k': kernel = optarg; break;
        case 'b':
            if (!blk_add(&blocks, optarg, "coalescing")) return 2;
            break;
        case 'L':
            if (!blk_add_launches(&blocks, optarg, "coalescing")) return 2;
            break;
        case 'f':
            if (!coal_parse_format(optarg, "coalescing", &format)) return 2;
            break;
        case 'o': out = optarg; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind + 1 != argc) {
        usage(stderr);
        return 2;
    }
    const char *path = argv[optind];
    ptx_module *m;
    prog *p = load_prog("coalescing", path, &kernel, PROG_GSA, &m);
    if (!p) return 2;
    if (!blk_check(&blocks, m, "coalescing", path)) {
        prog_free(p);
        ptx_module_free(m);
        return 2;
    }
    co.only = kernel;
    /* a kernel launched with several shapes is analysed at each: round r
     * gives it its r-th (the program is the same in every round) */
    uint32_t nr = blk_module_rounds(&blocks, m);
    blk_opts *rb = calloc(nr, sizeof *rb);
    coal_options *rco = calloc(nr, sizeof *rco);
    coal_report_ctx *ctx = calloc(nr, sizeof *ctx);
    if (!rb || !rco || !ctx) abort();
    const src_files *files = src_files_build(m, &p->a);
    for (uint32_t r = 0; r < nr; r++) {
        rb[r] = blocks;
        rb[r].round = r;
        rco[r] = co;
        rco[r].block_ctx = &rb[r];
        ctx[r] = (coal_report_ctx){coal_analyse(m, p, &rco[r], &p->a), path, &rco[r], files};
    }
    outfile of;
    int rc = 0;
    if (outfile_open(&of, out)) rc = 2;
    else {
        if (format == COAL_FMT_TEXT) coal_report_text_at(of.f, ctx, nr);
        else {
            json_t *j = format == COAL_FMT_JSON ? coal_report_json_at(ctx, nr) : coal_report_sarif_at(ctx, nr);
            coal_json_dump(of.f, j);
            json_decref(j);
        }
        rc = outfile_commit(&of) ? 2 : 0;
    }
    free(ctx);
    free(rco);
    free(rb);
    prog_free(p);
    ptx_module_free(m);
    return rc;
}
