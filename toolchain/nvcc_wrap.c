/* The nvcc wrapper's steps (nvcc_wrap.h). */
#include "nvcc_wrap.h"
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "outfile.h"
#include "printer.h"
#include "ptx.h"
#include "ra_target.h"
#include "toolchain.h"

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
static int pass_file(nvcc_wrap *w, const char *in, const char *out)
{
    ptx_module *m = ptx_load(in, 1);
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
            text = ptx_print_text(m, &len);
            ra_stats_free(&st);
        }
        ptx_diags_print(&d, in, m->src, m->src_len, stderr);
        ptx_diags_free(&d);
    }
    ptx_module_free(m);
    if (!rc && outfile_write(out, text, len)) rc = 2;
    free(text);
    return rc;
}

/* -ptx and -cubin: nvcc -ptx, the pass, and ptxas for a cubin. */
static int ptx_path(nvcc_wrap *w, const char *nvcc, const char *dir)
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
    char *dflt = w->out ? NULL : default_out(w->cu, w->kind == NVW_PTX ? ".ptx" : ".cubin");
    const char *out = w->out ? w->out : dflt;
    if (w->kind == NVW_PTX) rc = pass_file(w, ptx, out);
    else if (!(rc = pass_file(w, ptx, rw))) {
        const char *ptxas = tc_find_ptxas();
        ptx_module *m = ptxas ? ptx_load(rw, 1) : NULL;
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
static int obj_path(nvcc_wrap *w, const char *nvcc, const char *dir)
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

int nvw_run(nvcc_wrap *w)
{
    int rc;
    const char *nvcc = tc_find_nvcc();
    char dir[] = "/tmp/ptxray-nvccXXXXXX";
    if (!nvcc) {
        fputs("ptxray nvcc: nvcc not found ($NVCC, PATH, /usr/local/cuda/bin)\n", stderr);
        rc = 2;
    } else if (!mkdtemp(dir)) {
        perror("ptxray nvcc: temporary directory");
        rc = 2;
    } else {
        rc = w->kind == NVW_OBJ ? obj_path(w, nvcc, dir) : ptx_path(w, nvcc, dir);
        rm_dir(dir);
    }
    return rc;
}
