/* C++ names for people (names.h), with libiberty's demangler: the one
 * c++filt and the binutils use, so the names read as they do there. */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <libiberty/demangle.h>
#include "names.h"

char *ptx_demangle(const char *name, size_t n, bool full)
{
    /* only Itanium C++ symbols: a kernel named like an old-style mangled
     * name ("f__Fi") must not be "demangled" */
    if (n < 3 || memcmp(name, "_Z", 2)) return NULL;
    char *s = strndup(name, n);
    if (!s) abort();
    char *d = cplus_demangle(s, full ? DMGL_PARAMS | DMGL_ANSI : 0);
    free(s);
    return d;
}

/* d's name with its template argument lists dropped in place (the tree
 * is the caller's copy); *found when there was one. */
static struct demangle_component *drop_args(struct demangle_component *d, bool *found)
{
    if (!d) return d;
    switch (d->type) {
    case DEMANGLE_COMPONENT_TEMPLATE:
        *found = true;
        return drop_args(d->u.s_binary.left, found);
    case DEMANGLE_COMPONENT_QUAL_NAME:
    case DEMANGLE_COMPONENT_LOCAL_NAME:
        d->u.s_binary.left = drop_args(d->u.s_binary.left, found);
        d->u.s_binary.right = drop_args(d->u.s_binary.right, found);
        return d;
    default: return d;
    }
}

char *ptx_demangle_template(const char *name, size_t n)
{
    if (n < 3 || memcmp(name, "_Z", 2)) return NULL;
    char *s = strndup(name, n);
    if (!s) abort();
    void *mem = NULL;
    struct demangle_component *d = cplus_demangle_v3_components(s, DMGL_PARAMS | DMGL_ANSI, &mem);
    char *r = NULL;
    /* a clone (".constprop.0") names its function; a function is its
     * name typed by its signature */
    while (d && d->type == DEMANGLE_COMPONENT_CLONE) d = d->u.s_binary.left;
    if (d && d->type == DEMANGLE_COMPONENT_TYPED_NAME) d = d->u.s_binary.left;
    bool found = false;
    d = drop_args(d, &found);
    if (d && found) {
        size_t alloc = 0;
        r = cplus_demangle_print(DMGL_PARAMS | DMGL_ANSI, d, 64, &alloc);
    }
    free(mem);
    free(s);
    return r;
}

char *ptx_func_shown(const ptx_func *fn)
{
    char *d = ptx_demangle(fn->name.p, fn->name.n, true);
    if (!d && !(d = strndup(fn->name.p, fn->name.n))) abort();
    return d;
}

void ptx_fname_init(ptx_fname *f, const ptx_func *fn)
{
    f->sym = fn->name;
    f->full = ptx_demangle(fn->name.p, fn->name.n, true);
    f->bare = f->full ? ptx_demangle(fn->name.p, fn->name.n, false) : NULL;
}

void ptx_fname_free(ptx_fname *f)
{
    free(f->full);
    free(f->bare);
}

static bool same(const char *s, const char *name, size_t n) { return s && !strncmp(s, name, n) && !s[n]; }

int ptx_fname_match(const ptx_fname *f, const char *name, size_t n)
{
    if (f->sym.n == n && !memcmp(f->sym.p, name, n)) return PTX_NAME_EXACT;
    if (same(f->full, name, n) || same(f->bare, name, n)) return PTX_NAME_EXACT;
    if ((f->full && !strncmp(f->full, name, n)) || (f->bare && !strncmp(f->bare, name, n))) return PTX_NAME_PREFIX;
    return PTX_NAME_NONE;
}

int ptx_name_match(const ptx_func *fn, const char *name, size_t n)
{
    if (fn->name.n == n && !memcmp(fn->name.p, name, n)) return PTX_NAME_EXACT; /* no demangling */
    /* a symbol names only itself (no demangled name starts with _Z), and a
     * plain symbol has no other name */
    if ((n >= 2 && name[0] == '_' && name[1] == 'Z') || fn->name.n < 3 || memcmp(fn->name.p, "_Z", 2))
        return PTX_NAME_NONE;
    ptx_fname f;
    ptx_fname_init(&f, fn);
    int r = ptx_fname_match(&f, name, n);
    ptx_fname_free(&f);
    return r;
}

bool ptx_name_is_glob(const char *name) { return strpbrk(name, "*?[") != NULL; }

bool ptx_name_glob(const ptx_func *fn, const char *pattern)
{
    char *sym = strndup(fn->name.p, fn->name.n);
    if (!sym) abort();
    bool hit = !fnmatch(pattern, sym, 0);
    free(sym);
    if (hit || fn->name.n < 3 || memcmp(fn->name.p, "_Z", 2)) return hit;
    ptx_fname f;
    ptx_fname_init(&f, fn);
    hit = (f.full && !fnmatch(pattern, f.full, 0)) || (f.bare && !fnmatch(pattern, f.bare, 0));
    ptx_fname_free(&f);
    return hit;
}

static bool wanted(const ptx_func *f, bool entries) { return f->has_body && (f->is_entry || !entries); }

uint32_t ptx_name_lookup(const ptx_module *m, const char *name, size_t n, bool entries, bool prefix,
                         const ptx_func **hit)
{
    uint32_t nexact = 0, nprefix = 0;
    const ptx_func *exact = NULL, *pre = NULL;
    for (uint32_t i = 0; i < m->nfuncs; i++) {
        if (!wanted(m->funcs[i], entries)) continue;
        int r = ptx_name_match(m->funcs[i], name, n);
        if (r == PTX_NAME_EXACT && !nexact++) exact = m->funcs[i];
        if (r == PTX_NAME_PREFIX && prefix && !nprefix++) pre = m->funcs[i];
    }
    *hit = nexact ? exact : pre;
    return nexact ? nexact : nprefix;
}

void ptx_names_print(FILE *o, const ptx_module *m, bool entries)
{
    for (uint32_t i = 0; i < m->nfuncs; i++) {
        const ptx_func *f = m->funcs[i];
        if (!wanted(f, entries)) continue;
        char *s = ptx_func_shown(f);
        if (strlen(s) == f->name.n && !memcmp(s, f->name.p, f->name.n)) fprintf(o, "  %s\n", s);
        else fprintf(o, "  %s  [%.*s]\n", s, (int)f->name.n, f->name.p);
        free(s);
    }
}
