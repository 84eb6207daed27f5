/* ptxray nvcc: the options of the nvcc wrapper (issue 7, item 7); the
 * steps are toolchain/nvcc_wrap.c's.  Only -c, -cubin and -ptx outputs are
 * made: anything else (linking, -fatbin, -dc, -E, ...) is refused with exit
 * 2 rather than half supported. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "nvcc_wrap.h"
#include "toolchain.h"

#define DEFAULT_BUDGET 64u

static void usage(FILE *o)
{
    fputs("usage: ptxray nvcc [--ptxray-budget K | --ptxray-target-regs N] [--ptxray-mode M]\n"
          "                   (-c | -cubin | -ptx) [-o OUT] [nvcc options] FILE.cu\n"
          "Compiles FILE.cu like nvcc with `ptxray regalloc` run on the PTX before ptxas.\n"
          "  --ptxray-budget K       the pass's budget in 32-bit units (as regalloc --budget)\n"
          "  --ptxray-target-regs N  regalloc --target-regs N: only shared slots and\n"
          "                          rematerialisation, chosen so that ptxas at\n"
          "                          -maxrregcount N spills less; -maxrregcount N is then\n"
          "                          also given to ptxas\n"
          "  --ptxray-mode M         linear, div or aff (default aff)\n"
          "  --ptxray-block [KERNEL=]X,Y,Z  (or --block) the block shape of KERNEL, else of\n"
          "                          every kernel, for the divergence analysis; repeatable\n"
          "                          (default: .reqntid, else blockDim.x is assumed a\n"
          "                          multiple of 32)\n"
          "Default: --ptxray-target-regs N when -maxrregcount N is given, else\n"
          "--ptxray-budget 64.  The output kind is -c, -cubin or -ptx, or follows -o's\n"
          "suffix (.o, .cubin, .ptx); default names as nvcc's (FILE.o, FILE.cubin,\n"
          "FILE.ptx).  Other nvcc options (-arch, -code, -gencode, -I, -D, -O, -lineinfo,\n"
          "-G, -maxrregcount, -Xptxas, ...) are passed on.  Linking, -fatbin, -dc and the\n"
          "other phases are not supported.\n"
          "Exit status: 0, or 2 for bad usage, a missing nvcc/ptxas or a failed step\n"
          "(nvcc's and ptxas's own messages are shown).\n",
          o);
}

static int num(const char *opt, const char *s, unsigned max, unsigned *out)
{
    char *end;
    errno = 0;
    unsigned long v = s ? strtoul(s, &end, 10) : 0;
    if (!s || !*s || *end || errno || v == 0 || v > max || *s == '-') {
        fprintf(stderr, "ptxray nvcc: %s %s: expected a number from 1 to %u\n", opt, s ? s : "(missing)", max);
        return -1;
    }
    *out = (unsigned)v;
    return 0;
}

/* "--opt V", "--opt=V" (and "-opt V", "-opt=V" for nvcc's single-dash
 * spellings): the value, advancing *i; NULL if a is not opt. */
static const char *opt_value(int argc, char **argv, int *i, const char *opt, bool *missing)
{
    const char *a = argv[*i];
    size_t n = strlen(opt);
    if (strncmp(a, opt, n)) return NULL;
    if (a[n] == '=') return a + n + 1;
    if (a[n]) return NULL;
    if (*i + 1 >= argc) {
        *missing = true;
        return NULL;
    }
    return argv[++*i];
}

static int parse_args(int argc, char **argv, nvcc_wrap *w)
{
    static const char *refused[] = {"-fatbin", "--fatbin", "-E", "--preprocess", "-M", "-MM", "-MD", "-MMD",
                                    "--generate-dependencies", "-dc", "--device-c", "-dw", "--device-w", "-dlink",
                                    "--device-link", "-link", "--link", "-lib", "--lib", "-run", "--run", "-cuda",
                                    "--cuda", "-optix-ir", "--optix-ir", "-lto", "-dlto", "--dlink-time-opt",
                                    "-rdc=true", "--relocatable-device-code=true", "-x", "--x", "-ltoir", "-ptxas",
                                    NULL};
    const char *mode = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        bool missing = false;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) return 1;
        if ((v = opt_value(argc, argv, &i, "--ptxray-budget", &missing))) {
            if (num("--ptxray-budget", v, 65535, &w->budget)) return -1;
            continue;
        }
        if ((v = opt_value(argc, argv, &i, "--ptxray-target-regs", &missing))) {
            if (num("--ptxray-target-regs", v, 255, &w->target)) return -1;
            continue;
        }
        if ((v = opt_value(argc, argv, &i, "--ptxray-mode", &missing))) {
            mode = v;
            continue;
        }
        if ((v = opt_value(argc, argv, &i, "--ptxray-block", &missing)) ||
            (v = opt_value(argc, argv, &i, "--block", &missing))) {
            if (!blk_add(&w->blocks, v, "nvcc")) return -1;
            continue;
        }
        if ((v = opt_value(argc, argv, &i, "-o", &missing)) || (v = opt_value(argc, argv, &i, "--output-file", &missing))) {
            w->out = v;
            continue;
        }
        if (missing || !strncmp(a, "--ptxray", 8)) {
            fprintf(stderr, "ptxray nvcc: %s: %s\n", a, missing ? "missing value" : "unknown ptxray option");
            return -1;
        }
        if (!strcmp(a, "-c") || !strcmp(a, "--compile")) w->kind = NVW_OBJ;
        else if (!strcmp(a, "-cubin") || !strcmp(a, "--cubin")) w->kind = NVW_CUBIN;
        else if (!strcmp(a, "-ptx") || !strcmp(a, "--ptx")) w->kind = NVW_PTX;
        else if (a[0] != '-' && tc_ends_with(a, ".cu")) {
            if (w->cu) {
                fprintf(stderr, "ptxray nvcc: one .cu file at a time (%s and %s)\n", w->cu, a);
                return -1;
            }
            w->cu = a;
        } else {
            for (int k = 0; refused[k]; k++)
                if (!strcmp(a, refused[k]) || (!strncmp(a, refused[k], strlen(refused[k])) &&
                                               a[strlen(refused[k])] == '=' && strncmp(a, "-rdc", 4))) {
                    fprintf(stderr, "ptxray nvcc: %s is not supported: the wrapper makes -c, -cubin and -ptx "
                                    "outputs only\n", a);
                    return -1;
                }
            if (a[0] != '-' && (tc_ends_with(a, ".ptx") || tc_ends_with(a, ".o") || tc_ends_with(a, ".cubin") ||
                                tc_ends_with(a, ".c") || tc_ends_with(a, ".cpp") || tc_ends_with(a, ".fatbin"))) {
                fprintf(stderr, "ptxray nvcc: %s: only one .cu input is supported\n", a);
                return -1;
            }
            /* ptxas needs these for -cubin (nvcc passes them on itself) */
            const char *mr = NULL;
            int j = i;
            if ((mr = opt_value(argc, argv, &j, "-maxrregcount", &missing)) ||
                (mr = opt_value(argc, argv, &j, "--maxrregcount", &missing))) {
                if (num("-maxrregcount", mr, 255, &w->maxrreg)) return -1;
                w->nv[w->nnv++] = argv[i];
                if (j != i) w->nv[w->nnv++] = argv[j];
                i = j;
                continue;
            }
            if ((mr = opt_value(argc, argv, &j, "-Xptxas", &missing)) ||
                (mr = opt_value(argc, argv, &j, "--ptxas-options", &missing)))
                w->px[w->npx++] = (char *)mr;
            if (!strcmp(a, "-G") || !strcmp(a, "--device-debug")) w->px[w->npx++] = "-g";
            if (!strcmp(a, "-lineinfo") || !strcmp(a, "--generate-line-info")) w->px[w->npx++] = "-lineinfo";
            w->nv[w->nnv++] = argv[i];
        }
    }
    if (mode) {
        if (!strcmp(mode, "linear")) w->ro.mode = RA_MODE_LINEAR;
        else if (!strcmp(mode, "div")) w->ro.mode = RA_MODE_DIV;
        else if (!strcmp(mode, "aff")) w->ro.mode = RA_MODE_AFF;
        else {
            fprintf(stderr, "ptxray nvcc: --ptxray-mode %s: expected linear, div or aff\n", mode);
            return -1;
        }
    }
    if (w->budget && w->target) {
        fputs("ptxray nvcc: --ptxray-budget and --ptxray-target-regs exclude each other\n", stderr);
        return -1;
    }
    if (w->target && w->ro.mode == RA_MODE_LINEAR) {
        fputs("ptxray nvcc: --ptxray-target-regs takes no --ptxray-mode linear (it never adds .local spills)\n",
              stderr);
        return -1;
    }
    if (!w->budget && !w->target) {
        if (w->maxrreg && w->ro.mode != RA_MODE_LINEAR) w->target = w->maxrreg;
        else w->budget = DEFAULT_BUDGET;
    }
    if (w->kind == NVW_NONE && w->out) {
        if (tc_ends_with(w->out, ".o") || tc_ends_with(w->out, ".obj")) w->kind = NVW_OBJ;
        else if (tc_ends_with(w->out, ".cubin")) w->kind = NVW_CUBIN;
        else if (tc_ends_with(w->out, ".ptx")) w->kind = NVW_PTX;
    }
    if (w->kind == NVW_NONE) {
        fputs("ptxray nvcc: give -c, -cubin or -ptx (or -o with a .o, .cubin or .ptx name): linking is not "
              "supported\n", stderr);
        return -1;
    }
    if (!w->cu) {
        fputs("ptxray nvcc: no .cu input\n", stderr);
        return -1;
    }
    return 0;
}

int cmd_nvcc(int argc, char **argv)
{
    nvcc_wrap w;
    memset(&w, 0, sizeof w);
    w.ro.mode = RA_MODE_AFF;
    w.ro.block_of = blk_option_shape;
    w.ro.block_ctx = &w.blocks;
    w.nv = calloc((size_t)argc + 1, sizeof *w.nv);
    w.px = calloc((size_t)argc + 1, sizeof *w.px);
    if (!w.nv || !w.px) abort();
    int rc = parse_args(argc, argv, &w);
    if (rc) {
        if (rc > 0) usage(stdout);
        else fputs("(`ptxray nvcc --help` for the usage)\n", stderr);
        free(w.nv);
        free(w.px);
        return rc > 0 ? 0 : 2;
    }
    rc = nvw_run(&w);
    free(w.nv);
    free(w.px);
    return rc;
}
