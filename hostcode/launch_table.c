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
    return k;
}

static void add_shape(hc_kshapes *k, const uint32_t b[3], const char *at)
{
    for (uint32_t i = 0; i < k->n; i++)
        if (!memcmp(k->s[i].block, b, 3 * sizeof *b)) return;
    k->s = realloc(k->s, (k->n + 1) * sizeof *k->s);
    if (!k->s) abort();
    hc_shape *s = &k->s[k->n++];
    memcpy(s->block, b, 3 * sizeof *b);
    s->at = dupn(at);
    size_t n = strlen(at) + 32;
    s->from = malloc(n);
    if (!s->from) abort();
    snprintf(s->from, n, "host-code launch at %s", at);
}

static int bad(FILE *err, const char *path, const char *what)
{
    fprintf(err, "%s: error: %s (expected the JSON of `ptxray launches --format json`)\n", path, what);
    return 2;
}

int hc_table_load(hc_table *t, const char *path, FILE *err)
{
    memset(t, 0, sizeof *t);
    json_error_t je;
    json_t *j = json_load_file(path, 0, &je);
    if (!j) {
        if (je.line < 1) fprintf(err, "%s: error: %s\n", path, je.text);
        else fprintf(err, "%s:%d:%d: error: %s\n", path, je.line, je.column, je.text);
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
        char what[160];
        snprintf(what, sizeof what, "kernels[%zu]: no \"name\" string or \"shapes\" array", i);
        if (!name || !json_is_array(shapes)) {
            rc = bad(err, path, what);
            break;
        }
        hc_kshapes *ks2 = kernel(t, name);
        ks2->unknown += (uint32_t)json_array_size(json_object_get(k, "unknown")) +
                        json_is_string(json_object_get(k, "address_used_at"));
        size_t si;
        json_t *s;
        json_array_foreach(shapes, si, s) {
            json_t *b = json_object_get(s, "block");
            const char *at = json_string_value(json_object_get(json_array_get(json_object_get(s, "launches"), 0), "at"));
            uint32_t blk[3];
            bool ok = json_is_array(b) && json_array_size(b) == 3;
            uint64_t total = 1;
            for (size_t d = 0; ok && d < 3; d++) {
                json_t *v = json_array_get(b, d);
                ok = json_is_integer(v) && json_integer_value(v) >= 1 && json_integer_value(v) <= 1024;
                if (ok) total *= (uint64_t)json_integer_value(v);
                blk[d] = ok ? (uint32_t)json_integer_value(v) : 0;
            }
            if (!ok || total > 1024) {
                snprintf(what, sizeof what, "kernels[%zu].shapes[%zu].block: not a block shape [x, y, z] of 1 to 1024 threads", i, si);
                rc = bad(err, path, what);
                break;
            }
            add_shape(ks2, blk, at ? at : path);
        }
    }
    json_decref(j);
    if (rc) hc_table_free(t);
    return rc;
}

void hc_table_from_result(hc_table *t, const hc_result *r)
{
    memset(t, 0, sizeof *t);
    for (size_t i = 0; i < r->nk; i++) kernel(t, r->k[i].name)->unknown += r->k[i].addr_taken != NULL;
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
            free(t->k[i].s[s].at);
            free(t->k[i].s[s].from);
        }
        free(t->k[i].s);
        free(t->k[i].name);
    }
    free(t->k);
    memset(t, 0, sizeof *t);
}

int hc_table_from_cu(hc_table *t, const char *cu, const char *const *flags, size_t nflags, const char *cmd)
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
    hc_free(&r);
    return rc;
}
