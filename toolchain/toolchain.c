#include "toolchain.h"
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "ir.h"

extern char **environ;

static int is_exec(const char *p) {
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0;
}

/* $ENV, then PATH, then /usr/local/cuda/bin; found is the caller's buffer. */
static const char *find_tool(const char *name, const char *envvar, char *found, size_t cap) {
    const char *env = getenv(envvar);
    if (env && *env) return is_exec(env) ? env : NULL;
    size_t nl = strlen(name);
    const char *path = getenv("PATH");
    if (path) {
        const char *p = path;
        while (*p) {
            const char *e = strchr(p, ':');
            size_t n = e ? (size_t)(e - p) : strlen(p);
            if (n && n + nl + 2 < cap) {
                memcpy(found, p, n);
                found[n] = '/';
                memcpy(found + n + 1, name, nl + 1);
                if (is_exec(found)) return found;
            }
            if (!e) break;
            p = e + 1;
        }
    }
    snprintf(found, cap, "/usr/local/cuda/bin/%s", name);
    return is_exec(found) ? found : NULL;
}

const char *tc_find_ptxas(void) {
    static _Thread_local char found[4096]; /* per thread: parallel batches run ptxas */
    return find_tool("ptxas", "PTXAS", found, sizeof found);
}

const char *tc_find_gnuplot(void) {
    static _Thread_local char found[4096]; /* per thread: parallel batches run ptxas */
    return find_tool("gnuplot", "GNUPLOT", found, sizeof found);
}

const char *tc_find_nvcc(void) {
    static _Thread_local char found[4096]; /* per thread: parallel batches run ptxas */
    return find_tool("nvcc", "NVCC", found, sizeof found);
}

int tc_run(char *const argv[], char **log) {
    char tmpl[] = "/tmp/ptxray-logXXXXXX";
    int fd = mkstemp(tmpl);
    if (log) *log = NULL;
    if (fd < 0) return -1;
    unlink(tmpl);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fd, 1);
    posix_spawn_file_actions_adddup2(&fa, fd, 2);
    pid_t pid;
    int rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) { close(fd); return -1; }
    int st;
    while (waitpid(pid, &st, 0) < 0) {}
    if (log) {
        off_t n = lseek(fd, 0, SEEK_END);
        if (n > 0 && n < (1 << 24) && (*log = malloc((size_t)n + 1))) {
            ssize_t r = pread(fd, *log, (size_t)n, 0);
            (*log)[r > 0 ? r : 0] = 0;
        }
    }
    close(fd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

bool tc_ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && !strcmp(s + n - k, suffix);
}

size_t tc_shown_skip(const char *path, size_t len, const char *cwd)
{
    size_t nc = cwd && cwd[0] == '/' && cwd[1] ? strlen(cwd) : 0;
    if (!nc || len <= nc + 1 || memcmp(path, cwd, nc) || path[nc] != '/') return 0;
    for (size_t i = nc; i + 1 < len; i++)
        if (path[i] == '/' && path[i + 1] == '.') return 0;
    return nc + 1;
}

int tc_write_file(const char *path, const char *text, size_t len) {
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    size_t w = fwrite(text, 1, len, f);
    return (fclose(f) || w != len) ? -1 : 0;
}

int tc_nvcc_ptx(const char *cmd, const char *cu, const char *arch, const char *dir, char *ptx, size_t n,
                const char *const *flags, size_t nflags) {
    const char *nvcc = tc_find_nvcc();
    if (!nvcc) {
        fprintf(stderr, "ptxray %s: %s: nvcc not found ($NVCC, PATH, /usr/local/cuda/bin); "
                        "give the PTX instead\n", cmd, cu);
        return 2;
    }
    snprintf(ptx, n, "%s/out.ptx", dir);
    char archopt[64];
    snprintf(archopt, sizeof archopt, "-arch=%s", arch);
    char **argv = calloc(nflags + 8, sizeof *argv);
    if (!argv) abort();
    size_t k = 0;
    argv[k++] = (char *)nvcc;
    argv[k++] = "-ptx";
    argv[k++] = "-lineinfo";
    argv[k++] = archopt;
    for (size_t i = 0; i < nflags; i++) argv[k++] = (char *)flags[i]; /* -I, -D, -U, -std= */
    argv[k++] = "-o";
    argv[k++] = ptx;
    argv[k++] = (char *)cu;
    char *log = NULL;
    int rc = tc_run(argv, &log);
    free(argv);
    if (log) fputs(log, stderr);
    free(log);
    if (rc) {
        fprintf(stderr, "ptxray %s: %s: nvcc %s\n", cmd, cu, rc < 0 ? "could not be run" : "failed");
        return 2;
    }
    return 0;
}

int tc_target_arch(const struct ptx_module *m, char *buf, size_t n) {
    for (uint32_t i = 0; i < m->nstmts; i++) {
        const ptx_stmt *s = m->stmts[i];
        if (s->kind != PTX_S_TARGET) continue;
        for (uint32_t k = 0; k < s->u.dir->n; k++) {
            ptx_str t = s->u.dir->items[k];
            if (t.n > 3 && !memcmp(t.p, "sm_", 3) && t.n < n) {
                memcpy(buf, t.p, t.n);
                buf[t.n] = 0;
                return 0;
            }
        }
    }
    return -1;
}

int tc_target_debug(const struct ptx_module *m) {
    for (uint32_t i = 0; i < m->nstmts; i++) {
        const ptx_stmt *s = m->stmts[i];
        if (s->kind != PTX_S_TARGET) continue;
        for (uint32_t k = 0; k < s->u.dir->n; k++)
            if (ptx_str_eq(s->u.dir->items[k], "debug")) return 1;
    }
    return 0;
}
