#include "testutil.h"
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "printer.h"

extern char **environ;

const char *tu_src(const char *rel) {
    static char buf[4096];
    const char *root = getenv("PTXRAY_SRC");
    snprintf(buf, sizeof buf, "%s/%s", root && *root ? root : ".", rel);
    return buf;
}

const char *tu_bin(void) {
    const char *b = getenv("PTXRAY_BIN");
    return b && *b ? b : "bin/ptxray";
}

static void collect(const char *dir, char ***v, size_t *n, size_t *cap) {
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(path, &st)) continue;
        if (S_ISDIR(st.st_mode)) {
            collect(path, v, n, cap);
        } else {
            size_t l = strlen(path);
            if (l > 4 && !strcmp(path + l - 4, ".ptx")) {
                if (*n == *cap) {
                    *cap = *cap ? *cap * 2 : 64;
                    *v = realloc(*v, *cap * sizeof **v);
                }
                (*v)[(*n)++] = strdup(path);
            }
        }
    }
    closedir(d);
}

static int cmpstr(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

char **tu_list_ptx(const char *dir, size_t *n) {
    char **v = NULL;
    size_t cap = 0;
    *n = 0;
    collect(dir, &v, n, &cap);
    if (*n) qsort(v, *n, sizeof *v, cmpstr);
    return v;
}

void tu_free_list(char **v, size_t n) {
    for (size_t i = 0; i < n; i++) free(v[i]);
    free(v);
}

char *tu_read(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) { free(b); b = NULL; }
    fclose(f);
    if (b) b[n] = 0;
    if (len) *len = (size_t)n;
    return b;
}

static char *slurp_fd(int fd) {
    off_t n = lseek(fd, 0, SEEK_END);
    char *b = malloc((size_t)(n > 0 ? n : 0) + 1);
    ssize_t r = n > 0 ? pread(fd, b, (size_t)n, 0) : 0;
    b[r > 0 ? r : 0] = 0;
    close(fd);
    return b;
}

int tu_run(char *const argv[], char **out, char **err) {
    char t1[] = "/tmp/ptxray-tuoXXXXXX", t2[] = "/tmp/ptxray-tueXXXXXX";
    int fo = mkstemp(t1), fe = mkstemp(t2);
    unlink(t1);
    unlink(t2);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fo, 1);
    posix_spawn_file_actions_adddup2(&fa, fe, 2);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    pid_t pid;
    int rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    int st = 0;
    if (rc == 0) waitpid(pid, &st, 0);
    char *o = slurp_fd(fo), *e = slurp_fd(fe);
    if (out) *out = o; else free(o);
    if (err) *err = e; else free(e);
    if (rc != 0) return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

char *tu_print(const ptx_module *m, size_t *len) {
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    ptx_print_module(f, m);
    fclose(f);
    if (len) *len = n;
    return buf;
}

ptx_module *tu_parse_ok(const char *name, const char *text) {
    ptx_diags d;
    ptx_diags_init(&d);
    ptx_module *m = ptx_parse_string(name, text, strlen(text), &d);
    if (!m) {
        ptx_diags_print(&d, name, text, strlen(text), stderr);
        ptx_diags_free(&d);
        cr_assert_fail("%s does not parse", name);
    }
    ptx_diags_free(&d);
    return m;
}

prog *tu_gsa_ok(ptx_module *m, const char *fn) {
    ptx_diags d;
    ptx_diags_init(&d);
    prog *p = prog_build(m, PROG_GSA, fn, &d);
    if (!p) {
        ptx_diags_print(&d, m->path ? m->path : "t.ptx", m->src, m->src_len, stderr);
        ptx_diags_free(&d);
        cr_assert_fail("does not build to GSA%s%s", fn ? ": " : "", fn ? fn : "");
    }
    ptx_diags_free(&d);
    return p;
}

const ptx_inst *tu_first_inst(const ptx_module *m, const char *fn, const char *prefix) {
    ptx_func *f = ptx_module_find_func(m, fn);
    if (!f) return NULL;
    size_t pl = strlen(prefix);
    for (uint32_t i = 0; i < f->nstmts; i++) {
        const ptx_stmt *s = f->stmts[i];
        if (s->kind == PTX_S_INST && s->u.inst.opcode_len >= pl && !memcmp(s->u.inst.opcode, prefix, pl) &&
            (s->u.inst.opcode_len == pl || s->u.inst.opcode[pl] == '.' || prefix[pl - 1] == '.'))
            return &s->u.inst;
    }
    return NULL;
}

void tu_expect_sarif_schema(const char *ptxray_args)
{
    char *probe[] = {"/bin/sh", "-c", "python3 -c 'import jsonschema' 2>/dev/null", NULL};
    cr_assert_eq(tu_run(probe, NULL, NULL), 0,
                 "python3's jsonschema is missing: make deps (scripts/setup.sh) installs python3-jsonschema");
    char cmd[16384], script[4096];
    snprintf(script, sizeof script, "%s", tu_src("tests/validate_sarif.py")); /* tu_src's buffer is static */
    snprintf(cmd, sizeof cmd, "%s %s | python3 %s %s%s", tu_bin(), ptxray_args, script,
             tu_src("tests/data/sarif-2.1.0.schema.json"),
             strncmp(ptxray_args, "check ", 6) ? "" : " --fingerprints");
    char *b[] = {"/bin/sh", "-c", cmd, NULL};
    char *err;
    cr_expect_eq(tu_run(b, NULL, &err), 0, "%s: %s", ptxray_args, err);
    free(err);
}

uint32_t tu_value_named(const ssa_func *s, const char *name)
{
    char buf[64];
    for (uint32_t v = 0; v < s->nvalues; v++)
        if (!strcmp(ssa_value_name(s, v, buf, sizeof buf), name)) return v;
    cr_assert_fail("no SSA value %s", name);
    return 0;
}

void tu_rm_rf(const char *dir)
{
    char *a[] = {"/bin/rm", "-rf", (char *)dir, NULL};
    tu_run(a, NULL, NULL);
}

void tu_at_root(void)
{
    const char *root = getenv("PTXRAY_SRC");
    cr_assert(chdir(root && *root ? root : ".") == 0);
}

char *tu_run_want(char **argv, int want, char **err)
{
    char *out, *e;
    int rc = tu_run(argv, &out, &e);
    cr_assert_eq(rc, want, "%s %s exited %d: %s", argv[1], argv[2], rc, e);
    if (err) *err = e;
    else free(e);
    return out;
}

tu_div_run tu_div_analyse(const char *text, enum div_analysis an, const div_options *o)
{
    tu_div_run x;
    x.m = tu_parse_ok("t.ptx", text);
    x.p = tu_gsa_ok(x.m, NULL);
    x.r = div_analyse(&x.p->funcs[x.p->nfuncs - 1], an, o, &x.p->a);
    return x;
}

void tu_div_done(tu_div_run *x)
{
    prog_free(x->p);
    ptx_module_free(x->m);
}
