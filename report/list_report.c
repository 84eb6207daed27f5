/* ptxray list (list_report.h). */
#include "list_report.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fatbin.h"
#include "inputs.h"
#include "ptx.h"
#include "names.h"
#include "spillcost_ptxas.h"

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

/* path: the file ptxas reads (sc_ptxas_module: a copy of a binary's PTX); shown: its name */
static void one_file(const ptx_module *m, const char *path, const char *shown_path)
{
    sc_ptxas_info info;
    char why[320];
    bool px = !sc_ptxas_module(m, path, &info, why, sizeof why);
    uint32_t nk = 0;
    for (uint32_t i = 0; i < m->nfuncs; i++) nk += m->funcs[i]->is_entry && m->funcs[i]->has_body;
    printf("%s: %u kernel%s (%s)\n", shown_path, nk, nk == 1 ? "" : "s", why);
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
        char fig[256];
        printf("    ptxas: %s\n", sc_ptxas_figures(r, fig, sizeof fig));
    }
    sc_ptxas_free(&info);
}

/* What a binary holds: its containers and entries (docs/binaries.md). */
static void on_entry(void *ctx, const fb_entry *e)
{
    FILE *o = ctx;
    const char *kind = e->kind == FB_KIND_PTX ? "PTX" : e->kind == FB_KIND_ELF ? "ELF" : "other";
    fprintf(o, "  container %u, entry %u: %s %s_%u", e->container, e->index, kind,
            e->kind == FB_KIND_PTX ? "compute" : "sm", e->arch);
    if (e->kind == FB_KIND_PTX) fprintf(o, " (PTX ISA %u.%u)", e->major, e->minor);
    if (e->member) fprintf(o, " in %s", e->member);
    if (e->comp == FB_PLAIN) fprintf(o, ", %llu bytes stored plain", (unsigned long long)e->stored);
    else
        fprintf(o, ", %s, %llu bytes -> %llu", fb_comp_name(e->comp), (unsigned long long)e->stored,
                (unsigned long long)e->plain);
    if (*e->name) fprintf(o, ", from %s", e->name);
    if (*e->options) fprintf(o, ", options:%s%s", *e->options == ' ' ? "" : " ", e->options);
    fputc('\n', o);
}

/* The counts, then each entry (its problems are reported when its units
 * are read). */
static void binary_table(const char *path, const fb_file *f)
{
    fb_visit count = {NULL, NULL, NULL}, show = {on_entry, NULL, stdout};
    fb_stats st;
    fb_walk(path, f->p, f->n, &count, &st);
    printf("%s: %u fatbin container%s, %u entr%s (%u PTX, %u ELF)\n", path, st.containers,
           st.containers == 1 ? "" : "s", st.entries, st.entries == 1 ? "y" : "ies", st.ptx, st.elf);
    fb_walk(path, f->p, f->n, &show, &st);
}

int list_report(char **files, int n)
{
    int rc = 0;
    for (int i = 0; i < n; i++) {
        fb_file f;
        if (strcmp(files[i], "-") && !fb_map(files[i], &f)) {
            if (fb_detect(f.p, f.n) != FB_TEXT) binary_table(files[i], &f);
            fb_unmap(&f);
        }
        in_units u = {0, 0, NULL};
        rc |= in_expand(&u, "list", files[i], stderr);
        for (size_t k = 0; k < u.n; k++) {
            ptx_module *m = in_load(&u.v[k], 1, stderr);
            if (!m) {
                rc = 2;
                continue;
            }
            one_file(m, u.v[k].path, u.v[k].shown); /* ptxas reads a copy of a binary's PTX */
            if (u.v[k].also) printf("  the same PTX: %s\n", u.v[k].also);
            ptx_module_free(m);
        }
        in_free(&u);
    }
    return rc ? 2 : 0;
}
