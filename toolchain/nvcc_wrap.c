/* The nvcc wrapper (nvcc_wrap.h): nvcc with a private ptxas first in PATH. */
#include "nvcc_wrap.h"
#include <dirent.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "nvcc_step.h"
#include "toolchain.h"

extern char **environ;

bool nvw_rewrites(const nvw_opts *o) { return o->budget || o->target || o->target_maxr; }

/* nvcc run as it is: the process becomes nvcc (status and messages are
 * nvcc's own). */
static int exec_plain(const char *nvcc, char **args, int n)
{
    char **argv = calloc((size_t)n + 2, sizeof *argv);
    if (!argv) abort();
    argv[0] = (char *)nvcc;
    for (int i = 0; i < n; i++) argv[i + 1] = args[i];
    fflush(NULL);
    execv(nvcc, argv);
    fprintf(stderr, "ptxray nvcc: %s could not be run\n", nvcc);
    free(argv);
    return 2;
}

/* Runs argv with this process's standard streams: its exit status, 128 +
 * the signal that ended it, or -1 when it could not be started. */
static int run_inherit(char **argv)
{
    pid_t pid;
    fflush(NULL);
    if (posix_spawn(&pid, argv[0], NULL, NULL, argv, environ)) return -1;
    int st;
    while (waitpid(pid, &st, 0) < 0) {}
    return WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : -1;
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

/* The first executable name in the ':'-separated list path, into buf. */
static bool find_in(const char *path, const char *name, char *buf, size_t n)
{
    for (const char *p = path; p && *p;) {
        const char *e = strchr(p, ':');
        size_t k = e ? (size_t)(e - p) : strlen(p);
        if (k && k + strlen(name) + 2 < n) {
            snprintf(buf, n, "%.*s/%s", (int)k, p, name);
            struct stat st;
            if (!stat(buf, &st) && S_ISREG(st.st_mode) && !access(buf, X_OK)) return true;
        }
        p = e ? e + 1 : NULL;
    }
    return false;
}

/* A "NAME=value" line of the listing: the length of NAME, else 0. */
static size_t var_name(const char *l)
{
    size_t k = strspn(l, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_0123456789");
    return k && l[k] == '=' && !(l[0] >= '0' && l[0] <= '9') ? k : 0;
}

/* The "-o "X.ptx"" operand of a cicc line, into buf. */
static bool cicc_output(const char *l, char *buf, size_t n)
{
    const char *o = strstr(l, " -o \"");
    if (!o) return false;
    o += 5;
    const char *e = strchr(o, '"');
    if (!e || (size_t)(e - o) >= n || e - o < 5 || memcmp(e - 4, ".ptx", 4)) return false;
    memcpy(buf, o, (size_t)(e - o));
    buf[e - o] = 0;
    return true;
}

static bool is_cicc(const char *l) { return !strncmp(l, "\"$CICC_PATH/cicc\" ", 18) || !strncmp(l, "cicc ", 5); }

/* Writes the shim and the cicc lines into dir and sets the environment
 * from the listing; false after a message. */
/* The -I, -D, -U, -include and -std= options of the listing's host
 * preprocessing line (nvcc's "HOSTCC ... -E ... -D__CUDACC__ ..."), one a
 * line: what libclang needs to read the .cu's launches (ptxray launches),
 * after nvcc resolved --options-file and the rest.  nvcc's own macros
 * (-D__...), its -include "cuda_runtime.h" and the toolkit's include
 * directories (INCLUDES, SYSTEM_INCLUDES: the launches scan has its own
 * CUDA prelude) are left out. */
static bool write_hcflags(FILE *f, const char *line, const char *toolkit)
{
    char *copy = strdup(line), *save = NULL;
    if (!copy) abort();
    const char *pending = NULL; /* "-I" for -isystem, "-D" ... given apart from their value */
    for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        size_t n = strlen(w);
        if (n >= 2 && w[0] == '"' && w[n - 1] == '"') w[n - 1] = 0, w++;
        if (pending && !strcmp(pending, "-include")) {
            if (strcmp(w, "cuda_runtime.h")) fprintf(f, "-include\n%s\n", w);
            pending = NULL;
        } else if (pending) {
            if ((strcmp(pending, "-I") || !strstr(toolkit, w)) && (!strcmp(pending, "-I") || strncmp(w, "__", 2)))
                fprintf(f, "%s%s\n", pending, w);
            pending = NULL;
        } else if (!strcmp(w, "-include")) pending = "-include";
        else if (!strcmp(w, "-isystem") || !strcmp(w, "-I")) pending = "-I";
        else if (!strcmp(w, "-D")) pending = "-D";
        else if (!strcmp(w, "-U")) pending = "-U";
        else if ((!strncmp(w, "-I", 2) && !strstr(toolkit, w + 2)) || !strncmp(w, "-std=", 5) ||
                 ((!strncmp(w, "-D", 2) || !strncmp(w, "-U", 2)) && strncmp(w + 2, "__", 2)))
            fprintf(f, "%s\n", w);
    }
    free(copy);
    return true;
}

static bool setup(const nvw_opts *o, char *log, const char *dir)
{
    char self[4096], p[4200];
    ssize_t sn = readlink("/proc/self/exe", self, sizeof self - 1);
    if (sn <= 0) {
        fputs("ptxray nvcc: cannot find the ptxray binary (/proc/self/exe)\n", stderr);
        return false;
    }
    self[sn] = 0;
    snprintf(p, sizeof p, "%s/ptxas", dir);
    FILE *f = fopen(p, "w");
    if (!f) return false;
    fputs("#!/bin/sh\nexec '", f);
    for (const char *s = self; *s; s++)
        if (*s == '\'') fputs("'\\''", f);
        else fputc(*s, f);
    fprintf(f, "' nvcc %s \"$@\"\n", NVW_STEP_ARG);
    if (fclose(f) || chmod(p, 0700)) return false;
    snprintf(p, sizeof p, "%s/%s", dir, NVW_CICC_FILE);
    FILE *cf = fopen(p, "w");
    if (!cf) return false;
    snprintf(p, sizeof p, "%s/hcflags", dir);
    FILE *hf = fopen(p, "w");
    if (!hf) return (void)fclose(cf), false;
    const char *path = NULL;
    char toolkit[8192] = "";
    bool hc = false;
    for (char *line = log, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next) *next++ = 0;
        if (strncmp(line, "#$ ", 3)) continue;
        line += 3;
        size_t k = var_name(line);
        char out[4096], key[4096];
        if (k) {
            line[k] = 0;
            if (line[0] != '_') setenv(line, line + k + 1, 1);
            if (!strcmp(line, "PATH")) path = line + k + 1;
            if (!strcmp(line, "INCLUDES") || !strcmp(line, "SYSTEM_INCLUDES"))
                snprintf(toolkit + strlen(toolkit), sizeof toolkit - strlen(toolkit), "%s ", line + k + 1);
        } else if (!hc && strstr(line, " -E ") && strstr(line, " -D__CUDACC__ ")) {
            hc = write_hcflags(hf, line, toolkit);
        } else if (is_cicc(line) && cicc_output(line, out, sizeof out)) {
            nvw_tmpx_key(out, key, sizeof key);
            fprintf(cf, "%s\t%s\n", key, line);
        }
    }
    if (fclose(hf) | fclose(cf)) return false;
    char ptxas[4096];
    if (!find_in(path ? path : getenv("PATH"), "ptxas", ptxas, sizeof ptxas)) {
        fputs("ptxray nvcc: nvcc's ptxas is not found on the PATH nvcc's profile sets\n", stderr);
        return false;
    }
    setenv(NVW_ENV_PTXAS, ptxas, 1);
    const char *cur = getenv("PATH");
    char *np = malloc(strlen(dir) + strlen(cur ? cur : "") + 2);
    if (!np) abort();
    sprintf(np, "%s:%s", dir, cur ? cur : "");
    setenv("PATH", np, 1);
    free(np);
    setenv(NVW_ENV_DIR, dir, 1);
    size_t len = 1;
    for (int i = 0; i < o->ntokens; i++) len += strlen(o->tokens[i]) + 1;
    char *t = calloc(len, 1);
    if (!t) abort();
    for (int i = 0; i < o->ntokens; i++) strcat(strcat(t, o->tokens[i]), "\n");
    setenv(NVW_ENV_OPTS, t, 1);
    free(t);
    return true;
}

int nvw_wrap(const nvw_opts *o, const char *nvcc, char **args, int n)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(args[i], "--dryrun") || !strcmp(args[i], "-dryrun")) return exec_plain(nvcc, args, n);
    char **argv = calloc((size_t)n + 3, sizeof *argv);
    if (!argv) abort();
    argv[0] = (char *)nvcc;
    argv[1] = "--dryrun";
    for (int i = 0; i < n; i++) argv[i + 2] = args[i];
    char *log = NULL;
    int rc = tc_run(argv, &log);
    /* nvcc refuses the options, or there is no ptxas step: nothing to do */
    bool ptxas = false;
    for (const char *p = log; !rc && p && (p = strstr(p, "#$ ptxas ")); p++)
        if (p == log || p[-1] == '\n') ptxas = true;
    if (rc || !ptxas) {
        free(log);
        free(argv);
        return exec_plain(nvcc, args, n);
    }
    char dir[] = "/tmp/ptxray-nvccXXXXXX";
    if (!mkdtemp(dir)) {
        perror("ptxray nvcc: temporary directory");
        free(log);
        free(argv);
        return 2;
    }
    if (!setup(o, log, dir)) {
        fputs("ptxray nvcc: cannot set up the ptxas step\n", stderr);
        rc = 2;
    } else {
        argv[1] = "--dont-use-profile";
        rc = run_inherit(argv);
        if (rc < 0) {
            fprintf(stderr, "ptxray nvcc: %s could not be run\n", nvcc);
            rc = 2;
        }
        char p[4200];
        snprintf(p, sizeof p, "%s/%s", dir, NVW_STRICT_FILE);
        if (rc && !access(p, F_OK)) rc = 2;
    }
    rm_dir(dir);
    free(log);
    free(argv);
    return rc;
}
