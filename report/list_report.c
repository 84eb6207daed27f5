/* ptxray list (list_report.h). */
#include "list_report.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ptx.h"
#include "spillcost_ptxas.h"
#include "toolchain.h"

/* ".u64", ".b8[32]" (a structure passed by value) */
static void param_type(const ptx_var *v, char *buf, size_t n)
{
    if (v->ndims == 1) snprintf(buf, n, "%s[%llu]", ptx_type_name((ptx_type)v->type), (unsigned long long)v->dims[0]);
    else snprintf(buf, n, "%s", ptx_type_name((ptx_type)v->type));
}

static void bounds(const ptx_func *f)
{
    bool any = false;
    for (uint32_t i = 0; i < f->nfdirs; i++) {
        const ptx_fdirective *d = &f->fdirs[i];
        if (!ptx_str_eq(d->name, ".reqntid") && !ptx_str_eq(d->name, ".maxntid")) continue;
        printf("%s %.*s", any ? "," : "    launch bounds:", (int)d->name.n, d->name.p);
        for (uint32_t k = 0; k < d->n && k < 3; k++) printf("%s%llu", k ? "," : " ", (unsigned long long)d->vals[k]);
        any = true;
    }
    puts(any ? "" : "    launch bounds: none");
}

static void one_file(const ptx_module *m, const char *path, const char *ptxas, const char *dir)
{
    sc_ptxas_info info;
    memset(&info, 0, sizeof info);
    char why[320];
    bool px = !sc_ptxas_module(m, path, ptxas, dir, &info, why, sizeof why);
    uint32_t nk = 0;
    for (uint32_t i = 0; i < m->nfuncs; i++) nk += m->funcs[i]->is_entry && m->funcs[i]->has_body;
    printf("%s: %u kernel%s (%s)\n", path, nk, nk == 1 ? "" : "s", why);
    for (uint32_t i = 0; i < m->nfuncs; i++) {
        const ptx_func *f = m->funcs[i];
        if (!f->is_entry || !f->has_body) continue;
        char *shown = ptx_func_shown(f);
        printf("  %s\n", shown);
        if (strlen(shown) != f->name.n || memcmp(shown, f->name.p, f->name.n))
            printf("    symbol: %.*s\n", (int)f->name.n, f->name.p);
        free(shown);
        printf("    parameters: %u", f->nparams);
        for (uint32_t k = 0; k < f->nparams; k++) {
            char t[64];
            param_type(f->params[k], t, sizeof t);
            printf("%s%s", k ? ", " : " (", t);
        }
        puts(f->nparams ? ")" : "");
        bounds(f);
        if (!px) continue;
        char name[1024];
        snprintf(name, sizeof name, "%.*s", (int)f->name.n, f->name.p);
        const sc_ptxas_func *r = sc_ptxas_find(&info, name);
        if (!r || !r->has_used) {
            puts("    ptxas: not reported");
            continue;
        }
        printf("    ptxas: %u registers, %u bytes spill stores, %u bytes spill loads, %u bytes shared memory, "
               "%u bytes stack frame\n",
               r->registers, r->spill_stores, r->spill_loads, r->smem, r->stack_frame);
    }
    sc_ptxas_free(&info);
}

int list_report(char **files, int n)
{
    const char *ptxas = tc_find_ptxas();
    char dir[] = "/tmp/ptxray-listXXXXXX";
    if (ptxas && !mkdtemp(dir)) ptxas = NULL;
    int rc = 0;
    for (int i = 0; i < n; i++) {
        ptx_module *m = ptx_load(files[i], 1);
        if (!m) {
            rc = 2;
            continue;
        }
        one_file(m, files[i], ptxas, dir);
        ptx_module_free(m);
    }
    if (ptxas) rmdir(dir);
    return rc;
}
