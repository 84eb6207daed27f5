/* ptxray nvcc: nvcc with the regalloc pass between PTX generation and
 * ptxas (issue 7, item 7; docs/regalloc.md, "The nvcc wrapper").
 *
 *   -ptx    nvcc -ptx to a temporary file, the pass, the rewritten PTX out;
 *   -cubin  the same, then ptxas on the rewritten PTX;
 *   -c      nvcc's own steps (`nvcc -dryrun --keep`) replayed with the pass
 *           run on each PTX file before the ptxas that reads it: nvcc does
 *           not take a .ptx input with -c, and the host stub, fatbinary and
 *           host compilation must stay nvcc's.  The fatbinary then embeds
 *           the rewritten PTX too, so a JIT build sees the same code.
 *
 * Anything else (linking, -fatbin, -dc, -E, ...) is refused with exit 2
 * rather than half supported. */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "block_opt.h"
#include "commands.h"
#include "outfile.h"
#include "printer.h"
#include "ra_target.h"
#include "regalloc.h"
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

enum kind { K_NONE, K_OBJ, K_CUBIN, K_PTX };

typedef struct wrap {
    enum kind kind;
    const char *cu, *out;
    ra_options ro;
    blk_opts blocks;
    unsigned budget, target, maxrreg;
    char **nv; /* the arguments nvcc gets (no kind, -o, input) */
    int nnv;
    char **px; /* extra ptxas arguments for -cubin */
    int npx;
} wrap;

static bool ends_with(const char *s, const char *suf)
{
    size_t n = strlen(s), k = strlen(suf);
    return n >= k && !strcmp(s + n - k, suf);
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

static int parse_args(int argc, char **argv, wrap *w)
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
        if (!strcmp(a, "-c") || !strcmp(a, "--compile")) w->kind = K_OBJ;
        else if (!strcmp(a, "-cubin") || !strcmp(a, "--cubin")) w->kind = K_CUBIN;
        else if (!strcmp(a, "-ptx") || !strcmp(a, "--ptx")) w->kind = K_PTX;
        else if (a[0] != '-' && ends_with(a, ".cu")) {
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
            if (a[0] != '-' && (ends_with(a, ".ptx") || ends_with(a, ".o") || ends_with(a, ".cubin") ||
                                ends_with(a, ".c") || ends_with(a, ".cpp") || ends_with(a, ".fatbin"))) {
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
    if (w->kind == K_NONE && w->out) {
        if (ends_with(w->out, ".o") || ends_with(w->out, ".obj")) w->kind = K_OBJ;
        else if (ends_with(w->out, ".cubin")) w->kind = K_CUBIN;
        else if (ends_with(w->out, ".ptx")) w->kind = K_PTX;
    }
    if (w->kind == K_NONE) {
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

/* nvcc's default output name: the input's base name with suf, here. */
static char *default_out(const char *cu, const char *suf)
{
    const char *b = strrchr(cu, '/');
    b = b ? b + 1 : cu;
    size_t n = strlen(b) - 3;
    char *s = malloc(n + strlen(suf) + 1);
    if (!s) abort();
    memcpy(s, b, n);
    strcpy(s + n, suf);
    return s;
}

static void rm_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        char p[4400];
        while ((e = readdir(d)))
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
                snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
                unlink(p);
            }
        closedir(d);
    }
    rmdir(dir);
}

/* Runs argv, showing its output; 0, or 2 with "what failed". */
static int run_tool(char **argv, const char *what)
{
    char *log = NULL;
    int rc = tc_run(argv, &log);
    if (log) fputs(log, stderr);
    free(log);
    if (rc) {
        fprintf(stderr, "ptxray nvcc: %s %s (status %d)\n", what, rc < 0 ? "could not be run" : "failed", rc);
        return 2;
    }
    return 0;
}

/* The pass on the PTX file in, written to out; 0 or 2. */
static int pass_file(wrap *w, const char *in, const char *out)
{
    ptx_module *m = cli_load(in, 1);
    if (!m) return 2;
    if (!blk_check(&w->blocks, m, "nvcc", w->cu)) {
        ptx_module_free(m);
        return 2;
    }
    char *text = NULL;
    size_t len = 0;
    int rc = 0;
    if (w->target) {
        ra_target_result r;
        rc = ra_target_regs("nvcc", m, w->target, NULL, &w->ro, &text, &len, &r);
        if (!rc) ra_target_print(stderr, w->cu, w->target, &r);
    } else {
        ra_options o = w->ro;
        o.budget = w->budget;
        ptx_diags d;
        ptx_diags_init(&d);
        ra_stats st;
        if (ra_run(m, &o, &st, &d)) rc = 2;
        else {
            FILE *f = open_memstream(&text, &len);
            if (!f) abort();
            ptx_print_module(f, m);
            fclose(f);
            ra_stats_free(&st);
        }
        ptx_diags_print(&d, in, m->src, m->src_len, stderr);
        ptx_diags_free(&d);
    }
    ptx_module_free(m);
    if (!rc) {
        outfile of;
        if (outfile_open(&of, out)) rc = 2;
        else {
            fwrite(text, 1, len, of.f);
            rc = outfile_commit(&of) ? 2 : 0;
        }
    }
    free(text);
    return rc;
}

/* -ptx and -cubin: nvcc -ptx, the pass, and ptxas for a cubin. */
static int ptx_path(wrap *w, const char *nvcc, const char *dir)
{
    char ptx[256], rw[256];
    snprintf(ptx, sizeof ptx, "%s/in.ptx", dir);
    snprintf(rw, sizeof rw, "%s/out.ptx", dir);
    char **argv = calloc((size_t)w->nnv + 8, sizeof *argv);
    if (!argv) abort();
    int n = 0;
    argv[n++] = (char *)nvcc;
    argv[n++] = "-ptx";
    for (int i = 0; i < w->nnv; i++) argv[n++] = w->nv[i];
    argv[n++] = "-o";
    argv[n++] = ptx;
    argv[n++] = (char *)w->cu;
    argv[n] = NULL;
    int rc = run_tool(argv, "nvcc -ptx");
    free(argv);
    if (rc) return rc;
    char *dflt = w->out ? NULL : default_out(w->cu, w->kind == K_PTX ? ".ptx" : ".cubin");
    const char *out = w->out ? w->out : dflt;
    if (w->kind == K_PTX) rc = pass_file(w, ptx, out);
    else if (!(rc = pass_file(w, ptx, rw))) {
        const char *ptxas = tc_find_ptxas();
        ptx_module *m = ptxas ? cli_load(rw, 1) : NULL;
        char arch[64], archopt[80], maxr[16];
        if (!ptxas) {
            fputs("ptxray nvcc: ptxas not found ($PTXAS, PATH, /usr/local/cuda/bin)\n", stderr);
            rc = 2;
        } else if (!m || tc_target_arch(m, arch, sizeof arch)) {
            fputs("ptxray nvcc: the PTX names no sm_XX target\n", stderr);
            rc = 2;
        } else {
            snprintf(archopt, sizeof archopt, "-arch=%s", arch);
            unsigned mr = w->target ? w->target : w->maxrreg;
            snprintf(maxr, sizeof maxr, "%u", mr);
            char **pa = calloc((size_t)w->npx + 10, sizeof *pa);
            if (!pa) abort();
            int k = 0;
            pa[k++] = (char *)ptxas;
            pa[k++] = archopt;
            if (mr) pa[k++] = "-maxrregcount", pa[k++] = maxr;
            for (int i = 0; i < w->npx; i++) pa[k++] = w->px[i];
            pa[k++] = "-o";
            pa[k++] = (char *)out;
            pa[k++] = rw;
            rc = run_tool(pa, "ptxas");
            free(pa);
        }
        ptx_module_free(m);
    }
    free(dflt);
    unlink(ptx);
    unlink(rw);
    return rc;
}

/* Appends s to the script, single-quoted for sh. */
static void sh_quote(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++)
        if (*s == '\'') fputs("'\\''", f);
        else fputc(*s, f);
    fputc('\'', f);
}

/* The quoted "....ptx" operand of a dryrun ptxas line, into buf. */
static int ptxas_input(const char *line, char *buf, size_t n)
{
    for (const char *p = strchr(line, '"'); p; p = strchr(p + 1, '"')) {
        const char *e = strchr(p + 1, '"');
        if (!e) return -1;
        size_t k = (size_t)(e - p - 1);
        if (k > 4 && !memcmp(e - 4, ".ptx", 4) && k < n) {
            memcpy(buf, p + 1, k);
            buf[k] = 0;
            return 0;
        }
        p = e;
    }
    return -1;
}

/* -c: nvcc's own steps, replayed by sh, with the pass before each ptxas. */
static int obj_path(wrap *w, const char *nvcc, const char *dir)
{
    char **argv = calloc((size_t)w->nnv + 16, sizeof *argv);
    if (!argv) abort();
    char *dflt = w->out ? NULL : default_out(w->cu, ".o");
    const char *out = w->out ? w->out : dflt;
    char maxr[16];
    snprintf(maxr, sizeof maxr, "%u", w->target);
    int n = 0;
    argv[n++] = (char *)nvcc;
    argv[n++] = "-dryrun";
    argv[n++] = "--keep";
    argv[n++] = "--keep-dir";
    argv[n++] = (char *)dir;
    argv[n++] = "-c";
    for (int i = 0; i < w->nnv; i++) argv[n++] = w->nv[i];
    if (w->target && !w->maxrreg) argv[n++] = "-maxrregcount", argv[n++] = maxr;
    argv[n++] = "-o";
    argv[n++] = (char *)out;
    argv[n++] = (char *)w->cu;
    char *log = NULL;
    int rc = tc_run(argv, &log);
    free(argv);
    if (rc) {
        if (log) fputs(log, stderr);
        fprintf(stderr, "ptxray nvcc: nvcc -dryrun failed (status %d)\n", rc);
        free(log);
        free(dflt);
        return 2;
    }
    char self[4096];
    ssize_t sn = readlink("/proc/self/exe", self, sizeof self - 1);
    if (sn <= 0) {
        fputs("ptxray nvcc: cannot find the ptxray binary (/proc/self/exe)\n", stderr);
        free(log);
        free(dflt);
        return 2;
    }
    self[sn] = 0;
    char script[256];
    snprintf(script, sizeof script, "%s/steps.sh", dir);
    FILE *f = fopen(script, "w");
    if (!f) abort();
    /* set -a: nvcc's variable lines (PATH, CICC_PATH, ...) reach the tools */
    fputs("set -e -a\n", f);
    char budget[16], mode[16];
    snprintf(budget, sizeof budget, "%u", w->target ? w->target : w->budget);
    snprintf(mode, sizeof mode, "%s", ra_mode_name(w->ro.mode));
    int passes = 0;
    for (char *line = log, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next) *next++ = 0;
        if (strncmp(line, "#$ ", 3)) continue;
        line += 3;
        char ptx[1024];
        if (!strncmp(line, "ptxas ", 6) && !ptxas_input(line, ptx, sizeof ptx)) {
            sh_quote(f, self);
            fputs(" regalloc ", f);
            sh_quote(f, ptx);
            fputs(w->target ? " --target-regs " : " -q --budget ", f);
            fprintf(f, "%s --mode %s", budget, mode);
            if (w->blocks.all[0]) fprintf(f, " --block %u,%u,%u", w->blocks.all[0], w->blocks.all[1], w->blocks.all[2]);
            for (uint32_t k = 0; k < w->blocks.n; k++) {
                fputs(" --block ", f);
                sh_quote(f, w->blocks.k[k].arg);
            }
            fputs(" -o ", f);
            sh_quote(f, ptx);
            fputc('\n', f);
            passes++;
        }
        /* nvcc's own variable lines take the rest of the line literally
         * (SYSTEM_INCLUDES="-isystem" "dir" is not sh): quoted as a whole */
        size_t nl = strspn(line, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_0123456789");
        if (nl && line[nl] == '=' && !(line[0] >= '0' && line[0] <= '9')) {
            fprintf(f, "%.*s=", (int)nl, line);
            sh_quote(f, line + nl + 1);
            fputc('\n', f);
        } else
            fprintf(f, "%s\n", line);
    }
    fclose(f);
    free(log);
    if (!passes) {
        fputs("ptxray nvcc: nvcc -dryrun shows no ptxas step to insert the pass before\n", stderr);
        free(dflt);
        return 2;
    }
    char *sh[] = {"/bin/sh", script, NULL};
    rc = run_tool(sh, "nvcc's steps");
    free(dflt);
    return rc;
}

int cmd_nvcc(int argc, char **argv)
{
    wrap w;
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
    const char *nvcc = tc_find_nvcc();
    char dir[] = "/tmp/ptxray-nvccXXXXXX";
    if (!nvcc) {
        fputs("ptxray nvcc: nvcc not found ($NVCC, PATH, /usr/local/cuda/bin)\n", stderr);
        rc = 2;
    } else if (!mkdtemp(dir)) {
        perror("ptxray nvcc: temporary directory");
        rc = 2;
    } else {
        rc = w.kind == K_OBJ ? obj_path(&w, nvcc, dir) : ptx_path(&w, nvcc, dir);
        rm_dir(dir);
    }
    free(w.nv);
    free(w.px);
    return rc;
}
