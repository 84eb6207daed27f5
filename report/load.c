/* Loading a file for a command (load.h). */
#include "load.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool wanted(const ptx_func *f, bool entries) { return f->has_body && (f->is_entry || !entries); }

/* How well name matches f: 2 exactly (symbol, demangled name in full or
 * without its return type and parameters), 1 as a prefix of a demangled
 * one, 0 not at all.  Only C++ names match by prefix: a plain kernel name
 * must be given whole, as before there were demangled names. */
static int match(const ptx_func *f, const char *name)
{
    size_t n = strlen(name);
    if (f->name.n == n && !memcmp(f->name.p, name, n)) return 2;
    int best = 0;
    for (int full = 0; full < 2 && best < 2; full++) {
        char *d = ptx_demangle(f->name.p, f->name.n, full);
        if (d && !strcmp(d, name)) best = 2;
        else if (d && !strncmp(d, name, n)) best = 1;
        free(d);
    }
    return best;
}

void load_list(const ptx_module *m, bool entries)
{
    for (uint32_t i = 0; i < m->nfuncs; i++) {
        const ptx_func *f = m->funcs[i];
        if (!wanted(f, entries)) continue;
        char *s = ptx_func_shown(f);
        if (strlen(s) == f->name.n && !memcmp(s, f->name.p, f->name.n)) fprintf(stderr, "  %s\n", s);
        else fprintf(stderr, "  %s  [%.*s]\n", s, (int)f->name.n, f->name.p);
        free(s);
    }
}

const char *load_kernel(const char *cmd, ptx_module *m, const char *path, const char *name, bool entries)
{
    const ptx_func *hit = NULL;
    uint32_t nhits = 0;
    for (int level = 2; level >= 1 && !nhits; level--)
        for (uint32_t i = 0; i < m->nfuncs; i++)
            if (wanted(m->funcs[i], entries) && match(m->funcs[i], name) == level) {
                hit = m->funcs[i];
                nhits++;
            }
    if (nhits == 1) {
        char *s = arena_alloc(&m->arena, hit->name.n + 1);
        memcpy(s, hit->name.p, hit->name.n);
        s[hit->name.n] = 0;
        return s;
    }
    const char *what = entries ? "kernel" : "function";
    const ptx_func *decl = ptx_module_find_func(m, name);
    if (nhits) fprintf(stderr, "ptxray %s: %s: '%s' names %u %ss; ", cmd, path, name, nhits, what);
    else if (decl && !decl->has_body) fprintf(stderr, "ptxray %s: %s: '%s' is only declared here (no body); ", cmd, path, name);
    else fprintf(stderr, "ptxray %s: %s: no %s named '%s'; ", cmd, path, what, name);
    fprintf(stderr, "give a symbol, a demangled name or a prefix of one that only one %s has:\n", what);
    load_list(m, entries);
    return NULL;
}
