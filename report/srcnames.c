/* Source names of PTX values (srcnames.h). */
#include "srcnames.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "launch_table.h"
#include "srctext.h"

/* The .cu files parsed in this run, by the path they were read from: a
 * batch (check -j N) asks for one .cu from several threads and files, and
 * libclang takes about half a second a file, so each is parsed once, under
 * the lock, and kept until exit. */
typedef struct parsed {
    char *path;
    hc_table t; /* empty when the file could not be parsed */
} parsed;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static parsed **cache; /* each apart: the tables handed out stay where they are */
static size_t ncache;

static void free_cache(void)
{
    for (size_t i = 0; i < ncache; i++) {
        free(cache[i]->path);
        hc_table_free(&cache[i]->t);
        free(cache[i]);
    }
    free(cache);
    cache = NULL;
    ncache = 0;
}

static const hc_table *parse_once(const char *path)
{
    pthread_mutex_lock(&mu);
    for (size_t i = 0; i < ncache; i++)
        if (!strcmp(cache[i]->path, path)) {
            pthread_mutex_unlock(&mu);
            return &cache[i]->t;
        }
    if (!ncache) atexit(free_cache);
    parsed **c = realloc(cache, (ncache + 1) * sizeof *cache);
    if (!c) abort();
    cache = c;
    parsed *p = calloc(1, sizeof *p);
    if (!p) abort();
    cache[ncache] = p;
    p->path = strdup(path);
    if (!p->path) abort();
    if (hc_available()) {
        /* quietly: a source libclang cannot read only loses its names.
         * With ptxray's own minimal CUDA declarations, not the toolkit's
         * headers: a parameter's name does not need its type's, and the
         * parse takes 0.04 s instead of 0.5 (the corpus's 57 sources give
         * the same names either way). */
        FILE *devnull = fopen("/dev/null", "w");
        hc_result r = {0};
        if (devnull && !hc_scan(path, &(hc_opts){.builtin_cuda = true}, &r, "names", devnull)) hc_table_from_result(&p->t, &r);
        hc_free(&r);
        if (devnull) fclose(devnull);
    }
    ncache++;
    const hc_table *t = &p->t;
    pthread_mutex_unlock(&mu);
    return t;
}

static bool ends_with(const char *s, const char *suf)
{
    size_t n = strlen(s), k = strlen(suf);
    return n >= k && !strcmp(s + n - k, suf);
}

/* The tables of the .cu files the .file directives name (the main file
 * first, as nvcc writes it), those that can be read. */
static void look(sn_src *s)
{
    s->looked = true;
    if (!s->files || !s->ptx_path) return;
    src_texts *st = NULL;
    for (uint32_t i = 0; i < s->files->n && s->ntabs < sizeof s->tabs / sizeof s->tabs[0]; i++) {
        const char *f = s->files->path[i];
        if (!ends_with(f, ".cu") || src_is_toolkit(f)) continue;
        if (!st) st = st_new();
        const char *found = st_find(st, s->ptx_path, f);
        if (found) s->tabs[s->ntabs++] = parse_once(found);
    }
    st_free(st);
}

const char *sn_param_name(sn_src *s, const ptx_func *fn, uint32_t i)
{
    if (!s) return NULL;
    if (s->blocks) {
        const hc_kshapes *k = blk_launch_entry(s->blocks, fn);
        if (k && k->params && k->nparams == fn->nparams && i < k->nparams && k->params[i][0]) return k->params[i];
    }
    if (!s->looked) look(s);
    for (uint32_t t = 0; t < s->ntabs; t++) {
        const char *n = hc_table_param(s->tabs[t], fn->name.p, fn->name.n, fn->nparams, i);
        if (n) return n;
    }
    return NULL;
}

/* nvcc's name for parameter i of fn: NAME_param_i. */
static bool nvcc_param_name(const ptx_func *fn, int32_t i, const char *ptx)
{
    size_t n = fn->name.n;
    char suffix[24];
    snprintf(suffix, sizeof suffix, "_param_%d", (int)i);
    return strlen(ptx) == n + strlen(suffix) && !memcmp(ptx, fn->name.p, n) && !strcmp(ptx + n, suffix);
}

const char *sn_value_label(sn_src *s, const addr_chain *c, uint32_t v, char *buf, size_t n, int32_t *param)
{
    int32_t i;
    addr_value_label(c, v, buf, n, &i);
    if (param) *param = i;
    if (i < 0) return buf;
    const ptx_func *fn = c->pf->fn;
    const char *name = sn_param_name(s, fn, (uint32_t)i);
    if (name) snprintf(buf, n, "%s", name);
    else if (nvcc_param_name(fn, i, buf)) { /* a name PTX written by hand gives ("pitch") stays */
        char *shown = ptx_demangle(fn->name.p, fn->name.n, false);
        snprintf(buf, n, "param %d of %.*s", i, shown ? (int)strlen(shown) : (int)fn->name.n,
                 shown ? shown : fn->name.p);
        free(shown);
    }
    return buf;
}

int32_t sn_value_param(sn_src *s, const addr_chain *c, uint32_t v, const char **name)
{
    char buf[8];
    int32_t i;
    addr_value_label(c, v, buf, sizeof buf, &i);
    *name = i < 0 ? NULL : sn_param_name(s, c->pf->fn, (uint32_t)i);
    return i;
}

json_t *sn_param_json(sn_src *s, const addr_chain *c, uint32_t v)
{
    const char *name;
    int32_t i = sn_value_param(s, c, v, &name);
    if (i < 0) return NULL;
    return json_pack("{s:i, s:o}", "index", (json_int_t)i, "name", name ? json_string(name) : json_null());
}

bool sn_label_compound(const char *label) { return strchr(label, ' ') != NULL; }
