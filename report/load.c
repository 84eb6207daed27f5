/* Loading a file for a command (load.h). */
#include "load.h"
#include <stdio.h>

prog *load_prog(const char *cmd, const char *path, const char *kernel, enum prog_level level, ptx_module **mp)
{
    *mp = NULL;
    ptx_module *m = ptx_load(path, 1);
    if (!m) return NULL;
    const ptx_func *fn = kernel ? ptx_module_find_func(m, kernel) : NULL;
    if (kernel && (!fn || !fn->has_body)) {
        if (!fn) fprintf(stderr, "ptxray %s: %s: no function named '%s'\n", cmd, path, kernel);
        else fprintf(stderr, "ptxray %s: %s: '%s' is only declared here (no body)\n", cmd, path, kernel);
        ptx_module_free(m);
        return NULL;
    }
    ptx_diags d;
    ptx_diags_init(&d);
    prog *p = prog_build(m, level, kernel, &d);
    if (!p) {
        ptx_diags_print(&d, path, m->src, m->src_len, stderr);
        ptx_module_free(m);
    } else {
        *mp = m;
    }
    ptx_diags_free(&d);
    return p;
}
