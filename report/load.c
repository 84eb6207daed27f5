/* Loading a file for a command (load.h). */
#include "load.h"
#include "names.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void load_list(const ptx_module *m, bool entries) { ptx_names_print(stderr, m, entries); }

const char *load_kernel(const char *cmd, ptx_module *m, const char *path, const char *name, bool entries)
{
    const ptx_func *hit;
    uint32_t nhits = ptx_name_lookup(m, name, strlen(name), entries, true, &hit);
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
