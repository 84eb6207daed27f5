#include "spillcost_ptxas.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ir.h"
#include "toolchain.h"

static sc_ptxas_func *func_named(sc_ptxas_info *p, const char *s, size_t n)
{
    for (uint32_t i = 0; i < p->nfuncs; i++)
        if (strlen(p->funcs[i].name) == n && !memcmp(p->funcs[i].name, s, n)) return &p->funcs[i];
    sc_ptxas_func *v = realloc(p->funcs, (p->nfuncs + 1) * sizeof *v);
    char *name = malloc(n + 1);
    if (!v || !name) abort();
    memcpy(name, s, n);
    name[n] = 0;
    p->funcs = v;
    sc_ptxas_func *f = &v[p->nfuncs++];
    memset(f, 0, sizeof *f);
    f->name = name;
    return f;
}

/* The number just before " WHAT" in the line [s, e), if any. */
static bool number_before(const char *s, const char *e, const char *what, uint32_t *out)
{
    size_t wn = strlen(what);
    for (const char *p = s; p + wn <= e; p++) {
        if (memcmp(p, what, wn)) continue;
        const char *q = p;
        while (q > s && q[-1] == ' ') q--;
        const char *d = q;
        while (d > s && d[-1] >= '0' && d[-1] <= '9') d--;
        if (d == q) continue;
        uint64_t v = 0;
        for (; d < q; d++) v = v * 10 + (uint64_t)(*d - '0');
        *out = v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
        return true;
    }
    return false;
}

static bool line_has(const char *s, const char *e, const char *what)
{
    size_t wn = strlen(what);
    for (const char *p = s; p + wn <= e; p++)
        if (!memcmp(p, what, wn)) return true;
    return false;
}

/* The name after `key` up to the next quote (quoted) or the end of line. */
static bool name_after(const char *s, const char *e, const char *key, bool quoted, const char **ns, size_t *nn)
{
    size_t kn = strlen(key);
    for (const char *p = s; p + kn <= e; p++) {
        if (memcmp(p, key, kn)) continue;
        const char *b = p + kn, *q = b;
        while (q < e && (quoted ? *q != '\'' : *q != ' ' && *q != '\r')) q++;
        if (q == b) return false;
        *ns = b;
        *nn = (size_t)(q - b);
        return true;
    }
    return false;
}

int sc_ptxas_parse(const char *log, sc_ptxas_info *out)
{
    memset(out, 0, sizeof *out);
    sc_ptxas_func *cur = NULL;
    for (const char *s = log; s && *s;) {
        const char *e = strchr(s, '\n');
        if (!e) e = s + strlen(s);
        const char *ns;
        size_t nn;
        /* the stack/spill line follows "Function properties for NAME", the
         * Used line follows "Compiling entry function 'NAME'" and that */
        if (name_after(s, e, "Compiling entry function '", true, &ns, &nn)) cur = func_named(out, ns, nn);
        else if (name_after(s, e, "Function properties for ", false, &ns, &nn)) cur = func_named(out, ns, nn);
        else if (cur && number_before(s, e, "bytes stack frame", &cur->stack_frame)) {
            cur->has_props = true;
            number_before(s, e, "bytes spill stores", &cur->spill_stores);
            number_before(s, e, "bytes spill loads", &cur->spill_loads);
        } else if (cur && line_has(s, e, "Used ") && number_before(s, e, "registers", &cur->registers)) {
            cur->has_used = true;
            if (!number_before(s, e, "bytes smem", &cur->smem)) cur->smem = 0;
        } else if (name_after(s, e, "to lower bound of ", false, &ns, &nn)) {
            out->reg_lower_bound = (uint32_t)strtoul(ns, NULL, 10);
        }
        s = *e ? e + 1 : e;
    }
    if (!out->nfuncs) return -1;
    return 0;
}

const sc_ptxas_func *sc_ptxas_find(const sc_ptxas_info *p, const char *name)
{
    for (uint32_t i = 0; i < p->nfuncs; i++)
        if (!strcmp(p->funcs[i].name, name)) return &p->funcs[i];
    return NULL;
}

void sc_ptxas_free(sc_ptxas_info *p)
{
    for (uint32_t i = 0; i < p->nfuncs; i++) free(p->funcs[i].name);
    free(p->funcs);
    memset(p, 0, sizeof *p);
}

const char *sc_ptxas_why(const char *log, char *buf, size_t n)
{
    const char *best = NULL, *last = NULL;
    for (const char *s = log; s && *s;) {
        const char *e = strchr(s, '\n');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        char line[512];
        snprintf(line, sizeof line, "%.*s", (int)len, s);
        if (len) last = s;
        if (!best && (strstr(line, "fatal") || strstr(line, "error"))) best = s;
        s = e ? e + 1 : s + len;
    }
    const char *p = best ? best : last;
    if (!p) return snprintf(buf, n, "no output"), buf;
    size_t len = strcspn(p, "\n");
    snprintf(buf, n, "%.*s", (int)len, p);
    return buf;
}

int sc_ptxas_run(const char *ptxas, const char *ptx, const char *cubin, const char *arch, bool debug,
                 unsigned maxrreg, sc_ptxas_info *out, char **log)
{
    char archopt[64], rr[16];
    snprintf(archopt, sizeof archopt, "-arch=%s", arch);
    snprintf(rr, sizeof rr, "%u", maxrreg);
    /* debug PTX (.target ..., debug) only assembles with -g */
    char *argv[] = {(char *)ptxas, "-v", archopt, debug ? "-g" : "-O3", (char *)ptx, "-o", (char *)cubin,
                    "-maxrregcount", rr, NULL};
    if (!maxrreg) argv[7] = NULL;
    memset(out, 0, sizeof *out);
    int rc = tc_run(argv, log);
    if (rc != 0 || sc_ptxas_parse(*log, out)) {
        sc_ptxas_free(out);
        return -1;
    }
    return 0;
}

int sc_ptxas_module(const struct ptx_module *m, const char *path, sc_ptxas_info *out, char *why, size_t n)
{
    memset(out, 0, sizeof *out);
    const char *ptxas = tc_find_ptxas();
    char arch[32], dir[] = "/tmp/ptxray-ptxasXXXXXX", cubin[sizeof dir + 16];
    if (!ptxas) return snprintf(why, n, "ptxas not found"), -1;
    if (tc_target_arch(m, arch, sizeof arch)) return snprintf(why, n, "no sm_XX in .target"), -1;
    if (!mkdtemp(dir)) return snprintf(why, n, "no temporary directory"), -1;
    snprintf(cubin, sizeof cubin, "%s/out.cubin", dir);
    /* a module read from memory (a binary's PTX, fatbin/) has no file of its
     * own: ptxas reads a copy of its text */
    char copy[sizeof dir + 16] = "";
    if (m->src_in_arena) {
        snprintf(copy, sizeof copy, "%s/in.ptx", dir);
        FILE *f = fopen(copy, "wb");
        bool ok = f && fwrite(m->src, 1, m->src_len, f) == m->src_len;
        if (f && fclose(f)) ok = false;
        if (!ok) {
            unlink(copy);
            rmdir(dir);
            return snprintf(why, n, "no temporary file for ptxas"), -1;
        }
        path = copy;
    }
    char *log = NULL;
    int rc = sc_ptxas_run(ptxas, path, cubin, arch, tc_target_debug(m), 0, out, &log);
    if (rc) {
        char w[256];
        snprintf(why, n, "ptxas failed: %s", sc_ptxas_why(log, w, sizeof w));
    } else snprintf(why, n, "ptxas -v -arch=%s", arch);
    free(log);
    unlink(cubin);
    if (*copy) unlink(copy);
    rmdir(dir);
    return rc;
}

const char *sc_ptxas_figures(const sc_ptxas_func *f, char *buf, size_t n)
{
    snprintf(buf, n,
             "%u registers, %u bytes spill stores, %u bytes spill loads, %u bytes shared memory, %u bytes stack frame",
             f->registers, f->spill_stores, f->spill_loads, f->smem, f->stack_frame);
    return buf;
}
