/* The input layer (inputs.h): paths into PTX units. */
#include "inputs.h"
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "fatbin.h"

static char *xstrdup(const char *s)
{
    char *p = strdup(s);
    if (!p) abort();
    return p;
}

static void push(in_units *u, in_unit x)
{
    if (u->n == u->cap) {
        u->cap = u->cap ? u->cap * 2 : 16;
        u->v = realloc(u->v, u->cap * sizeof *u->v);
        if (!u->v) abort();
    }
    u->v[u->n++] = x;
}

typedef struct strvec {
    size_t n, cap;
    char **v;
} strvec;

static void sv_push(strvec *s, char *p)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 64;
        s->v = realloc(s->v, s->cap * sizeof *s->v);
        if (!s->v) abort();
    }
    s->v[s->n++] = p;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static bool named_ptx(const char *name)
{
    size_t n = strlen(name);
    return n > 4 && !strcmp(name + n - 4, ".ptx");
}

/* Regular files under dir, at any depth. */
static int walk(strvec *out, const char *cmd, const char *dir, FILE *err)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(err, "ptxray %s: %s: %s\n", cmd, dir, strerror(errno));
        return 2;
    }
    int rc = 0;
    size_t dl = strlen(dir);
    bool slash = dl && dir[dl - 1] == '/';
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char *p = malloc(dl + strlen(e->d_name) + 2);
        if (!p) abort();
        sprintf(p, "%s%s%s", dir, slash ? "" : "/", e->d_name);
        struct stat st;
        if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
            rc |= walk(out, cmd, p, err);
            free(p);
        } else if (stat(p, &st) == 0 && S_ISREG(st.st_mode)) sv_push(out, p);
        else free(p);
    }
    closedir(d);
    return rc;
}

/* ---- binaries ---- */

typedef struct ptx_found {
    char *where; /* "libk.a(k.o)" */
    unsigned arch;
    char *text;
    size_t len;
    uint64_t hash;
    bool lineinfo;
} ptx_found;

typedef struct bin_walk {
    const char *cmd, *path;
    bool lineinfo_warn; /* the commands that report findings say when there are no .cu lines */
    FILE *err;
    ptx_found *f;
    size_t n, cap;
    unsigned sass[64], nsass; /* the architectures of the ELF entries */
    bool bad;
} bin_walk;

static uint64_t fnv(const char *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)p[i]) * 0x100000001b3ull;
    return h;
}

static void on_problem(void *ctx, const char *msg)
{
    bin_walk *b = ctx;
    fprintf(b->err, "ptxray %s: %s\n", b->cmd, msg);
    b->bad = true;
}

static void on_entry(void *ctx, const fb_entry *e)
{
    bin_walk *b = ctx;
    if (e->kind != FB_KIND_PTX) {
        bool seen = false;
        for (unsigned i = 0; i < b->nsass; i++) seen |= b->sass[i] == e->arch;
        if (!seen && b->nsass < 64) b->sass[b->nsass++] = e->arch;
        return;
    }
    char where[1024], msg[256];
    fb_where(b->path, e, where, sizeof where);
    size_t len;
    char *text = fb_ptx_text(e, &len, msg, sizeof msg);
    if (!text) {
        fprintf(b->err, "ptxray %s: %s: container %u, entry %u (PTX for compute_%u): %s\n", b->cmd, where,
                e->container, e->index, e->arch, msg);
        b->bad = true;
        return;
    }
    if (b->n == b->cap) {
        b->cap = b->cap ? b->cap * 2 : 8;
        b->f = realloc(b->f, b->cap * sizeof *b->f);
        if (!b->f) abort();
    }
    /* nvcc records -lineinfo and -G in the options it stores with the PTX */
    bool lineinfo = strstr(e->options, "--generate-line-info") || strstr(e->options, "-g ") ||
                    (strlen(e->options) >= 2 && !strcmp(e->options + strlen(e->options) - 2, "-g"));
    b->f[b->n++] = (ptx_found){xstrdup(where), e->arch, text, len, fnv(text, len), lineinfo};
}

/* The units of binary path (already mapped): one per distinct text.  in_dir:
 * met in a directory walk, where a binary without device code is not an
 * error. */
static int add_binary(in_units *u, const char *cmd, const char *path, const fb_file *file, bool in_dir, bool warn,
                      FILE *err)
{
    bin_walk b = {.cmd = cmd, .path = path, .err = err, .lineinfo_warn = warn};
    fb_visit v = {on_entry, on_problem, &b};
    fb_stats st;
    bool ok = fb_walk(path, file->p, file->n, &v, &st);
    int rc = b.bad || !ok ? 2 : 0;
    if (ok && !st.containers && !in_dir) {
        fprintf(err, "ptxray %s: %s: no CUDA device code inside (no fatbin container in any section)\n", cmd, path);
        rc = 2;
    } else if (ok && !st.ptx && st.elf) {
        char archs[256] = "", first[16] = "";
        size_t k = 0;
        for (unsigned i = 0; i < b.nsass && k < sizeof archs - 16; i++)
            k += (size_t)snprintf(archs + k, sizeof archs - k, "%ssm_%u", i ? "," : "", b.sass[i]);
        if (b.nsass) snprintf(first, sizeof first, "%u", b.sass[0]);
        fprintf(err,
                "ptxray %s: %s%s: no PTX inside: built with code=%s only; add `-gencode "
                "arch=compute_%s,code=compute_%s` to ship PTX\n",
                cmd, in_dir ? "warning: " : "", path, archs, first, first);
        if (!in_dir) rc = 2;
    }
    /* names: where[compute_NN], and #k after it where one place holds
     * several texts for one architecture */
    bool warned = false;
    for (size_t i = 0; i < b.n; i++) {
        ptx_found *f = &b.f[i];
        if (!f->text) continue;
        if (!f->lineinfo && !warned && b.lineinfo_warn) {
            fprintf(err,
                    "ptxray %s: warning: %s: PTX built without -lineinfo: findings are placed at PTX lines; "
                    "build with nvcc -lineinfo for .cu lines\n",
                    cmd, path);
            warned = true;
        }
        unsigned same = 0, ord = 0;
        for (size_t j = 0; j < b.n; j++)
            if (b.f[j].arch == f->arch && !strcmp(b.f[j].where, f->where)) {
                same++;
                if (j < i) ord++;
            }
        char shown[1200];
        if (same > 1) snprintf(shown, sizeof shown, "%s[compute_%u#%u]", f->where, f->arch, ord + 1);
        else snprintf(shown, sizeof shown, "%s[compute_%u]", f->where, f->arch);
        /* the same text met before (here or in another file): one unit */
        in_unit *dup = NULL;
        for (size_t k = 0; k < u->n && !dup; k++)
            if (u->v[k].text && u->v[k].len == f->len && !memcmp(u->v[k].text, f->text, f->len)) dup = &u->v[k];
        if (dup) {
            size_t a = dup->also ? strlen(dup->also) : 0;
            dup->also = realloc(dup->also, a + strlen(shown) + 3);
            if (!dup->also) abort();
            sprintf(dup->also + a, "%s%s", a ? ", " : "", shown);
            free(f->text);
        } else push(u, (in_unit){xstrdup(path), xstrdup(shown), f->text, f->len, NULL});
        f->text = NULL;
    }
    for (size_t i = 0; i < b.n; i++) {
        free(b.f[i].where);
        free(b.f[i].text);
    }
    free(b.f);
    return rc;
}

/* One file: a PTX file (in a directory walk only one named .ptx), or a
 * binary's units. */
static int add_file(in_units *u, const char *cmd, const char *path, bool in_dir, bool warn, FILE *err)
{
    fb_file f;
    int e = fb_map(path, &f);
    if (e) {
        if (in_dir) {
            fprintf(err, "ptxray %s: %s: %s\n", cmd, path, strerror(e));
            return 2;
        }
        /* the parser says why, as it does for a PTX file */
        push(u, (in_unit){xstrdup(path), xstrdup(path), NULL, 0, NULL});
        return 0;
    }
    int rc = 0;
    if (fb_detect(f.p, f.n) == FB_TEXT) {
        if (!in_dir || named_ptx(path)) push(u, (in_unit){xstrdup(path), xstrdup(path), NULL, 0, NULL});
    } else rc = add_binary(u, cmd, path, &f, in_dir, warn, err);
    fb_unmap(&f);
    return rc;
}

int in_expand(in_units *u, const char *cmd, const char *path, FILE *err)
{
    return add_file(u, cmd, path, false, false, err);
}

/* A file to read, and whether a directory walk found it. */
typedef struct found {
    char *p; /* first: sorted with cmp_str */
    bool in_dir;
} found;

int in_collect(in_units *u, const char *cmd, char **paths, int n, FILE *err)
{
    int rc = 0;
    strvec walked = {0, 0, NULL};
    size_t nf = 0, cap = (size_t)n + 1;
    found *v = malloc(cap * sizeof *v);
    if (!v) abort();
    for (int i = 0; i < n; i++) {
        struct stat st;
        if (strcmp(paths[i], "-") && stat(paths[i], &st) == 0 && S_ISDIR(st.st_mode))
            rc |= walk(&walked, cmd, paths[i], err);
        else v[nf++] = (found){xstrdup(paths[i]), false};
    }
    if (walked.n) {
        v = realloc(v, (nf + walked.n) * sizeof *v);
        if (!v) abort();
        for (size_t i = 0; i < walked.n; i++) v[nf++] = (found){walked.v[i], true};
    }
    free(walked.v);
    /* sorted, without repeats (as a CI job lists them: the order of the
     * report does not depend on the file system's); a file named as well
     * as found counts as named */
    if (nf) qsort(v, nf, sizeof *v, cmp_str);
    size_t k = 0;
    for (size_t i = 0; i < nf; i++) {
        if (k && !strcmp(v[k - 1].p, v[i].p)) {
            v[k - 1].in_dir &= v[i].in_dir;
            free(v[i].p);
        } else v[k++] = v[i];
    }
    for (size_t i = 0; i < k; i++) {
        rc |= add_file(u, cmd, v[i].p, v[i].in_dir, true, err);
        free(v[i].p);
    }
    free(v);
    return rc;
}

void in_free(in_units *u)
{
    for (size_t i = 0; i < u->n; i++) {
        free(u->v[i].path);
        free(u->v[i].shown);
        free(u->v[i].text);
        free(u->v[i].also);
    }
    free(u->v);
    *u = (in_units){0, 0, NULL};
}

void in_unit_free(in_unit *u)
{
    free(u->path);
    free(u->shown);
    free(u->text);
    free(u->also);
    *u = (in_unit){NULL, NULL, NULL, 0, NULL};
}

/* "app[compute_80]", "libk.a(k.o)[compute_90#2]": the file it names. */
static char *file_of_name(const char *name)
{
    size_t n = strlen(name);
    const char *lb = strrchr(name, '[');
    if (!n || name[n - 1] != ']' || !lb || lb == name) return NULL;
    char *f = strndup(name, (size_t)(lb - name));
    if (!f) abort();
    size_t k = strlen(f);
    struct stat st;
    if (stat(f, &st) && k && f[k - 1] == ')') { /* an archive's member */
        char *lp = strrchr(f, '(');
        if (lp && lp != f) *lp = 0;
    }
    return f;
}

int in_single(in_unit *out, const char *cmd, const char *path, FILE *err)
{
    *out = (in_unit){NULL, NULL, NULL, 0, NULL};
    struct stat st;
    char *file = NULL;
    if (strcmp(path, "-") && stat(path, &st) && !(file = file_of_name(path))) {
        /* not there: the parser says so, as for any PTX file */
        *out = (in_unit){xstrdup(path), xstrdup(path), NULL, 0, NULL};
        return 0;
    }
    if (!file) {
        fb_file f;
        bool binary = false;
        if (strcmp(path, "-") && !fb_map(path, &f)) {
            binary = fb_detect(f.p, f.n) != FB_TEXT;
            fb_unmap(&f);
        }
        if (!binary) {
            *out = (in_unit){xstrdup(path), xstrdup(path), NULL, 0, NULL};
            return 0;
        }
    }
    in_units u = {0, 0, NULL};
    char *one = file ? file : (char *)path;
    int rc = in_collect(&u, cmd, &one, 1, err);
    size_t pick = u.n;
    if (file) {
        for (size_t i = 0; i < u.n; i++)
            if (!strcmp(u.v[i].shown, path)) pick = i;
    } else if (u.n == 1) pick = 0;
    if (!rc && pick == u.n) {
        if (file || u.n) {
            if (file) fprintf(err, "ptxray %s: %s: no such PTX in %s; name one:", cmd, path, file);
            else fprintf(err, "ptxray %s: %s: holds %zu PTX texts; name one:", cmd, path, u.n);
            for (size_t i = 0; i < u.n; i++) fprintf(err, "%s '%s'", i ? "," : "", u.v[i].shown);
            fputc('\n', err);
        }
        rc = 2;
    }
    if (!rc) {
        *out = u.v[pick];
        u.v[pick] = (in_unit){NULL, NULL, NULL, 0, NULL};
    }
    in_free(&u);
    free(file);
    return rc ? 2 : 0;
}

ptx_module *in_load(const in_unit *u, int quiet, FILE *err)
{
    if (u->text) return ptx_load_text(u->shown, u->text, u->len, quiet, err);
    return ptx_load_to(u->path, quiet, err);
}
