/* Launch shapes by kernel (launch_table.h). */
#include "launch_table.h"
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static char *dupn(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (!d) abort();
    memcpy(d, s, n);
    return d;
}

static hc_kshapes *kernel(hc_table *t, const char *name)
{
    for (size_t i = 0; i < t->n; i++)
        if (!strcmp(t->k[i].name, name)) return &t->k[i];
    t->k = realloc(t->k, (t->n + 1) * sizeof *t->k);
    if (!t->k) abort();
    hc_kshapes *k = &t->k[t->n++];
    k->name = dupn(name);
    k->s = NULL;
    k->n = k->unknown = 0;
    k->params = NULL;
    k->nparams = 0;
    return k;
}

static void set_params(hc_kshapes *k, const char *const *names, uint32_t n)
{
    if (k->params) return;
    k->params = calloc((size_t)n + 1, sizeof *k->params);
    if (!k->params) abort();
    k->nparams = n;
    for (uint32_t i = 0; i < n; i++) k->params[i] = dupn(names[i]);
}

static hc_shape *add_shape(hc_kshapes *k, const uint32_t b[3], const char *at)
{
    for (uint32_t i = 0; i < k->n; i++)
        if (!memcmp(k->s[i].block, b, 3 * sizeof *b)) return &k->s[i];
    k->s = realloc(k->s, (k->n + 1) * sizeof *k->s);
    if (!k->s) abort();
    hc_shape *s = &k->s[k->n++];
    memset(s, 0, sizeof *s);
    memcpy(s->block, b, 3 * sizeof *b);
    s->at = dupn(at);
    size_t n = strlen(at) + 32;
    s->from = malloc(n);
    if (!s->from) abort();
    snprintf(s->from, n, "host-code launch at %s", at);
    return s;
}

/* v: an array of 1 to 3 integers in [1, max] (missing extents 1) into d,
 * their product at most total_max. */
static bool dims(json_t *v, uint32_t d[3], uint64_t max, uint64_t total_max)
{
    size_t n = json_array_size(v);
    uint64_t total = 1;
    if (!json_is_array(v) || n < 1 || n > 3) return false;
    for (size_t i = 0; i < 3; i++) {
        json_t *e = json_array_get(v, i);
        json_int_t x = i < n ? (json_is_integer(e) ? json_integer_value(e) : 0) : 1;
        if (x < 1 || (uint64_t)x > max) return false;
        d[i] = (uint32_t)x;
        total *= (uint64_t)x;
    }
    return total <= total_max;
}

/* A launch's "grid" and "args" (a run) into s; false with what is wrong. */
static bool add_run(hc_shape *s, json_t *l, const char *path, const char *where, char *what, size_t n)
{
    json_t *g = json_object_get(l, "grid"), *a = json_object_get(l, "args");
    if (!g && !a) return true;
    if (!dims(g, (uint32_t[3]){0}, 0x7fffffffu, UINT64_MAX) || (a && !json_is_array(a))) {
        snprintf(what, n, "%s: a run has \"grid\" [x, y, z] (1 to 2^31-1 each) and \"args\" [\"SPEC\", ...]",
                 where);
        return false;
    }
    size_t i;
    json_t *e;
    json_array_foreach(a, i, e) if (!json_is_string(e)) {
        snprintf(what, n, "%s.args[%zu]: not a string (`ptxray run`'s --arg syntax)", where, i);
        return false;
    }
    s->runs = realloc(s->runs, (s->nruns + 1) * sizeof *s->runs);
    if (!s->runs) abort();
    hc_run *r = &s->runs[s->nruns++];
    dims(g, r->grid, 0x7fffffffu, UINT64_MAX);
    r->nargs = (uint32_t)json_array_size(a);
    r->args = calloc(r->nargs + 1, sizeof *r->args);
    if (!r->args) abort();
    json_array_foreach(a, i, e) r->args[i] = dupn(json_string_value(e));
    size_t wn = strlen(path) + strlen(where) + 3;
    r->where = malloc(wn);
    if (!r->where) abort();
    snprintf(r->where, wn, "%s: %s", path, where);
    return true;
}

static int bad(FILE *err, const char *path, const char *what)
{
    fprintf(err, "%s: error: %s (expected a launch file: docs/launches.md)\n", path, what);
    return 2;
}

int hc_table_load(hc_table *t, const char *path, FILE *err)
{
    memset(t, 0, sizeof *t);
    json_error_t je;
    json_t *j = json_load_file(path, 0, &je);
    if (!j) {
        if (je.line < 1) fprintf(err, "%s: error: %s\n", path, je.text);
        else fprintf(err, "%s:%d:%d: error: %s (a launch file is JSON: docs/launches.md)\n", path, je.line, je.column,
                     je.text);
        return 2;
    }
    int rc = 0;
    json_t *ks = json_object_get(j, "kernels");
    if (!json_is_object(j) || !json_is_array(ks)) rc = bad(err, path, "no \"kernels\" array");
    size_t i;
    json_t *k;
    json_array_foreach(ks, i, k) {
        if (rc) break;
        const char *name = json_string_value(json_object_get(k, "name"));
        json_t *shapes = json_object_get(k, "shapes");
        char what[300];
        snprintf(what, sizeof what, "kernels[%zu]: no \"name\" string or \"shapes\" array", i);
        if (!name || !json_is_array(shapes)) {
            rc = bad(err, path, what);
            break;
        }
        hc_kshapes *ks2 = kernel(t, name);
        json_t *ps = json_object_get(k, "params");
        if (json_is_array(ps)) { /* optional: the parameters' source names */
            const char *pn[256];
            size_t pi;
            json_t *pe;
            bool ok = json_array_size(ps) <= sizeof pn / sizeof pn[0];
            json_array_foreach(ps, pi, pe) if (ok) ok = (pn[pi] = json_string_value(pe)) != NULL;
            if (!ok) {
                snprintf(what, sizeof what, "kernels[%zu].params: not an array of at most 256 strings", i);
                rc = bad(err, path, what);
                break;
            }
            set_params(ks2, pn, (uint32_t)json_array_size(ps));
        }
        ks2->unknown += (uint32_t)json_array_size(json_object_get(k, "unknown")) +
                        json_is_string(json_object_get(k, "address_used_at"));
        size_t si;
        json_t *s;
        json_array_foreach(shapes, si, s) {
            json_t *ls = json_object_get(s, "launches");
            const char *at = json_string_value(json_object_get(json_array_get(ls, 0), "at"));
            uint32_t blk[3];
            if (!dims(json_object_get(s, "block"), blk, 1024, 1024)) {
                snprintf(what, sizeof what, "kernels[%zu].shapes[%zu].block: not a block shape [x, y, z] of 1 to 1024 threads", i, si);
                rc = bad(err, path, what);
                break;
            }
            hc_shape *sh = add_shape(ks2, blk, at ? at : path);
            size_t li;
            json_t *l;
            json_array_foreach(ls, li, l) {
                char where[100];
                snprintf(where, sizeof where, "kernels[%zu].shapes[%zu].launches[%zu]", i, si, li);
                if (!add_run(sh, l, path, where, what, sizeof what)) {
                    rc = bad(err, path, what);
                    break;
                }
            }
            if (rc) break;
        }
    }
    json_decref(j);
    if (rc) hc_table_free(t);
    return rc;
}

void hc_table_from_result(hc_table *t, const hc_result *r)
{
    memset(t, 0, sizeof *t);
    if (r->nv) {
        t->v = malloc(r->nv * sizeof *t->v);
        if (!t->v) abort();
        for (size_t i = 0; i < r->nv; i++) hc_var_copy(&t->v[i], &r->v[i]);
        t->nv = r->nv;
    }
    for (size_t i = 0; i < r->nk; i++) {
        hc_kshapes *k = kernel(t, r->k[i].name);
        k->unknown += r->k[i].addr_taken != NULL;
        if (r->k[i].params) set_params(k, (const char *const *)r->k[i].params, r->k[i].nparams);
    }
    /* the launches in file, line, column order, as `launches` shows them */
    size_t *ix = malloc((r->nl ? r->nl : 1) * sizeof *ix);
    if (!ix) abort();
    size_t n = 0;
    for (size_t i = 0; i < r->nl; i++)
        if (r->l[i].known && r->l[i].kernel) ix[n++] = i;
        else if (r->l[i].kernel) kernel(t, r->l[i].kernel)->unknown++;
    for (size_t a = 1; a < n; a++) /* insertion sort: few launches */
        for (size_t b = a; b > 0; b--) {
            const hc_launch *x = &r->l[ix[b - 1]], *y = &r->l[ix[b]];
            int c = strcmp(x->file, y->file);
            if (c < 0 || (!c && (x->line < y->line || (x->line == y->line && x->col <= y->col)))) break;
            size_t tmp = ix[b];
            ix[b] = ix[b - 1];
            ix[b - 1] = tmp;
        }
    for (size_t a = 0; a < n; a++) {
        const hc_launch *l = &r->l[ix[a]];
        char at[4200];
        snprintf(at, sizeof at, "%s:%u:%u", l->file, l->line, l->col);
        add_shape(kernel(t, l->kernel), l->block, at);
    }
    free(ix);
}

const hc_kshapes *hc_table_find(const hc_table *t, const char *name, size_t len)
{
    for (size_t i = 0; t && i < t->n; i++)
        if (strlen(t->k[i].name) == len && !memcmp(t->k[i].name, name, len)) return &t->k[i];
    return NULL;
}

const char *hc_table_param(const hc_table *t, const char *name, size_t len, uint32_t nparams, uint32_t i)
{
    const hc_kshapes *k = hc_table_find(t, name, len);
    if (!k || !k->params || k->nparams != nparams || i >= nparams || !k->params[i][0]) return NULL;
    return k->params[i];
}

const hc_var *hc_table_var(const hc_table *t, const char *name, size_t len)
{
    for (size_t i = 0; t && i < t->nv; i++)
        if (strlen(t->v[i].name) == len && !memcmp(t->v[i].name, name, len)) return &t->v[i];
    return NULL;
}

uint32_t hc_table_max_shapes(const hc_table *t)
{
    uint32_t m = 0;
    for (size_t i = 0; t && i < t->n; i++)
        if (t->k[i].n > m) m = t->k[i].n;
    return m;
}

void hc_table_free(hc_table *t)
{
    for (size_t i = 0; i < t->n; i++) {
        for (uint32_t s = 0; s < t->k[i].n; s++) {
            hc_shape *sh = &t->k[i].s[s];
            for (uint32_t r = 0; r < sh->nruns; r++) {
                for (uint32_t a = 0; a < sh->runs[r].nargs; a++) free(sh->runs[r].args[a]);
                free(sh->runs[r].args);
                free(sh->runs[r].where);
            }
            free(sh->runs);
            free(sh->at);
            free(sh->from);
        }
        free(t->k[i].s);
        free(t->k[i].name);
        for (uint32_t j = 0; j < t->k[i].nparams; j++) free(t->k[i].params[j]);
        free(t->k[i].params);
    }
    free(t->k);
    for (size_t i = 0; i < t->nv; i++) hc_var_free(&t->v[i]);
    free(t->v);
    memset(t, 0, sizeof *t);
}

int hc_table_from_cu(hc_table *t, const char *cu, const char *const *flags, size_t nflags, const char *cmd,
                     bool verbose)
{
    memset(t, 0, sizeof *t);
    if (!hc_available()) {
        fprintf(stderr, "ptxray %s: warning: built without libclang: the launch shapes of %s are not read\n", cmd, cu);
        return 0;
    }
    hc_opts o = {.flags = flags, .nflags = nflags};
    hc_result r = {0};
    int rc = hc_scan(cu, &o, &r, cmd, stderr);
    if (!rc) hc_table_from_result(t, &r);
    hc_note_header_errors(&r, cmd, verbose, stderr);
    hc_free(&r);
    return rc;
}
