/* `ptxray launches` output: per kernel, its distinct block shapes with the
 * launches that use each, its launches of unknown shape with the reason,
 * its __launch_bounds__ (launches.h).  Text and JSON. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include "launches.h"

static size_t file_index(const hc_result *r, const char *f)
{
    for (size_t i = 0; f && i < r->nfiles; i++)
        if (!strcmp(r->files[i], f)) return i;
    return r->nfiles;
}

static const hc_result *sort_r;

/* Declared kernels first, by file and line, then the others as found. */
static int cmp_kernel(const void *a, const void *b)
{
    const hc_kernel *x = &sort_r->k[*(const size_t *)a], *y = &sort_r->k[*(const size_t *)b];
    int dx = !x->file, dy = !y->file;
    if (dx != dy) return dx - dy;
    if (!dx) {
        size_t fx = file_index(sort_r, x->file), fy = file_index(sort_r, y->file);
        if (fx != fy) return fx < fy ? -1 : 1;
        int c = strcmp(x->file, y->file);
        if (c) return c;
        if (x->line != y->line) return x->line < y->line ? -1 : 1;
        c = strcmp(x->name, y->name);
        if (c) return c;
    }
    return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

/* By file (in scan order), line, column, kernel. */
static int cmp_launch(const void *a, const void *b)
{
    const hc_launch *x = &sort_r->l[*(const size_t *)a], *y = &sort_r->l[*(const size_t *)b];
    size_t fx = file_index(sort_r, x->file), fy = file_index(sort_r, y->file);
    if (fx != fy) return fx < fy ? -1 : 1;
    int c = strcmp(x->file, y->file);
    if (c) return c;
    if (x->line != y->line) return x->line < y->line ? -1 : 1;
    if (x->col != y->col) return x->col < y->col ? -1 : 1;
    c = strcmp(x->kernel ? x->kernel : "", y->kernel ? y->kernel : "");
    if (c) return c;
    return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

static size_t *order(const hc_result *r, bool kernels)
{
    size_t n = kernels ? r->nk : r->nl;
    size_t *ix = malloc((n ? n : 1) * sizeof *ix);
    if (!ix) abort();
    for (size_t i = 0; i < n; i++) ix[i] = i;
    sort_r = r;
    qsort(ix, n, sizeof *ix, kernels ? cmp_kernel : cmp_launch);
    return ix;
}

/* How l launches: "<<<>>>", "cudaLaunchKernel" ..., and for a launch
 * through a function pointer "<<<>>> through 'k'", with the call that
 * passed the kernel when the pointer is a parameter. */
static const char *via_of(const hc_launch *l, char *buf, size_t n)
{
    const char *v = hc_via_text((enum hc_via)l->via);
    if (!l->through) return v;
    if (l->called_at) snprintf(buf, n, "%s through '%s', passed at %s", v, l->through, l->called_at);
    else snprintf(buf, n, "%s through '%s'", v, l->through);
    return buf;
}

static bool same_shape(const uint32_t a[3], const uint32_t b[3]) { return !memcmp(a, b, 3 * sizeof *a); }

typedef struct counts {
    size_t launches, known, unknown, shapes, kernels_known, kernels_unknown_only, not_launched, fnptr, fnptr_only;
} counts;

static counts count(const hc_result *r)
{
    counts c = {0};
    for (size_t i = 0; i < r->nl; i++) {
        c.launches++;
        if (r->l[i].known) c.known++;
        else c.unknown++;
        if (!r->l[i].kernel) c.fnptr++;
    }
    for (size_t k = 0; k < r->nk; k++) {
        size_t nshape = 0, nunk = 0;
        for (size_t i = 0; i < r->nl; i++) {
            const hc_launch *l = &r->l[i];
            if (!l->kernel || strcmp(l->kernel, r->k[k].name)) continue;
            if (!l->known) {
                nunk++;
                continue;
            }
            bool first = true;
            for (size_t j = 0; j < i && first; j++)
                if (r->l[j].known && r->l[j].kernel && !strcmp(r->l[j].kernel, l->kernel) &&
                    same_shape(r->l[j].block, l->block))
                    first = false;
            nshape += first;
        }
        c.shapes += nshape;
        if (nshape) c.kernels_known++;
        else if (nunk) c.kernels_unknown_only++;
        else if (r->k[k].addr_taken) c.fnptr_only++;
        else c.not_launched++;
    }
    return c;
}

static void print_kernel(FILE *o, const hc_result *r, const hc_kernel *k, const size_t *lx)
{
    fprintf(o, "%s", k->name);
    if (strcmp(k->name, k->display)) fprintf(o, "  %s", k->display);
    if (k->file) fprintf(o, "  (%s:%u)", k->file, k->line);
    fputc('\n', o);
    bool any = false;
    /* distinct shapes, in the order of their first launch */
    for (size_t a = 0; a < r->nl; a++) {
        const hc_launch *l = &r->l[lx[a]];
        if (!l->known || !l->kernel || strcmp(l->kernel, k->name)) continue;
        bool first = true;
        for (size_t b = 0; b < a && first; b++) {
            const hc_launch *m = &r->l[lx[b]];
            if (m->known && m->kernel && !strcmp(m->kernel, k->name) && same_shape(m->block, l->block)) first = false;
        }
        if (!first) continue;
        any = true;
        fprintf(o, "  %ux%ux%u from", l->block[0], l->block[1], l->block[2]);
        const char *sep = " ";
        for (size_t b = a; b < r->nl; b++) {
            const hc_launch *m = &r->l[lx[b]];
            if (!m->known || !m->kernel || strcmp(m->kernel, k->name) || !same_shape(m->block, l->block)) continue;
            char vb[4400];
            fprintf(o, "%s%s:%u:%u (%s)", sep, m->file, m->line, m->col, via_of(m, vb, sizeof vb));
            sep = ", ";
        }
        fputc('\n', o);
    }
    for (size_t a = 0; a < r->nl; a++) {
        const hc_launch *l = &r->l[lx[a]];
        if (l->known || !l->kernel || strcmp(l->kernel, k->name)) continue;
        any = true;
        char vb[4400];
        fprintf(o, "  unknown at %s:%u:%u (%s): %s\n", l->file, l->line, l->col, via_of(l, vb, sizeof vb),
                l->why ? l->why : "?");
    }
    if (k->addr_taken && any)
        fprintf(o, "  its address is also used at %s: a launch through a function pointer has an unknown shape\n",
                k->addr_taken);
    else if (k->addr_taken)
        fprintf(o, "  not launched directly; its address is used at %s: launched through a function pointer, its "
                   "shape is unknown\n",
                k->addr_taken);
    else if (!any) fputs("  not launched in the code scanned\n", o);
    if (k->max_threads) {
        fprintf(o, "  __launch_bounds__(%u", k->max_threads);
        if (k->min_blocks) fprintf(o, ", %u", k->min_blocks);
        fprintf(o, "): at most %u threads per block, an upper bound, not a shape\n", k->max_threads);
    }
}

void hc_print_text(FILE *o, const hc_result *r)
{
    size_t *kx = order(r, true), *lx = order(r, false);
    for (size_t i = 0; i < r->nk; i++) print_kernel(o, r, &r->k[kx[i]], lx);
    bool hdr = false;
    for (size_t a = 0; a < r->nl; a++) {
        const hc_launch *l = &r->l[lx[a]];
        if (l->kernel) continue;
        if (!hdr) fputs("launches of a kernel not known statically:\n", o);
        hdr = true;
        fprintf(o, "  unknown at %s:%u:%u (%s): %s\n", l->file, l->line, l->col, hc_via_text((enum hc_via)l->via),
                l->why ? l->why : "?");
    }
    counts c = count(r);
    fprintf(o,
            "%zu kernel%s: %zu with a constant block shape (%zu shape%s), %zu launched with unknown shapes only, "
            "%zu only through a function pointer, %zu not launched; %zu launch%s: %zu constant, %zu unknown (%zu of a "
            "kernel not known statically)\n",
            r->nk, r->nk == 1 ? "" : "s", c.kernels_known, c.shapes, c.shapes == 1 ? "" : "s", c.kernels_unknown_only,
            c.fnptr_only, c.not_launched, c.launches, c.launches == 1 ? "" : "es", c.known, c.unknown, c.fnptr);
    free(kx);
    free(lx);
}

static json_t *at_json(const hc_launch *l)
{
    char buf[4200];
    snprintf(buf, sizeof buf, "%s:%u:%u", l->file, l->line, l->col);
    return json_string(buf);
}

/* A launch through a function pointer: the pointer, and the call that
 * passed the kernel when it is a parameter. */
static void through_json(json_t *j, const hc_launch *l)
{
    if (l->through) json_object_set_new(j, "through", json_string(l->through));
    if (l->called_at) json_object_set_new(j, "passed_at", json_string(l->called_at));
}

static json_t *launch_json(const hc_launch *l, bool with_kernel)
{
    json_t *j = json_object();
    json_object_set_new(j, "at", at_json(l));
    json_object_set_new(j, "via", json_string(hc_via_text((enum hc_via)l->via)));
    through_json(j, l);
    if (with_kernel) {
        json_object_set_new(j, "kernel", l->kernel ? json_string(l->kernel) : json_null());
        json_object_set_new(j, "expression", json_string(l->display ? l->display : ""));
    }
    if (l->known) json_object_set_new(j, "block", json_pack("[iii]", (json_int_t)l->block[0], (json_int_t)l->block[1],
                                                             (json_int_t)l->block[2]));
    else json_object_set_new(j, "why", json_string(l->why ? l->why : "?"));
    return j;
}

void *hc_to_json(const hc_result *r)
{
    size_t *kx = order(r, true), *lx = order(r, false);
    json_t *root = json_object(), *files = json_array(), *kernels = json_array(), *other = json_array();
    for (size_t i = 0; i < r->nfiles; i++) {
        json_t *f = json_pack("{s:s, s:i, s:o}", "path", r->files[i], "errors", (json_int_t)r->file_errors[i],
                              "first_error",
                              r->file_first_error[i] ? json_string(r->file_first_error[i]) : json_null());
        if (r->file_header_errors[i]) {
            json_object_set_new(f, "header_errors", json_integer((json_int_t)r->file_header_errors[i]));
            json_object_set_new(f, "first_header_error", json_string(r->file_first_header_error[i]));
        }
        json_array_append_new(files, f);
    }
    for (size_t i = 0; i < r->nk; i++) {
        const hc_kernel *k = &r->k[kx[i]];
        json_t *jk = json_object(), *shapes = json_array(), *unknown = json_array();
        json_object_set_new(jk, "name", json_string(k->name));
        json_object_set_new(jk, "display", json_string(k->display));
        if (k->file) {
            char buf[4200];
            snprintf(buf, sizeof buf, "%s:%u", k->file, k->line);
            json_object_set_new(jk, "declared", json_string(buf));
        } else json_object_set_new(jk, "declared", json_null());
        if (k->params) { /* the source names the reports give NAME_param_i (a launch file's optional "params") */
            json_t *ps = json_array();
            for (uint32_t j = 0; j < k->nparams; j++) json_array_append_new(ps, json_string(k->params[j]));
            json_object_set_new(jk, "params", ps);
        }
        json_object_set_new(jk, "launch_bounds",
                            k->max_threads ? json_pack("{s:i, s:i}", "max_threads", (json_int_t)k->max_threads,
                                                       "min_blocks", (json_int_t)k->min_blocks)
                                           : json_null());
        json_object_set_new(jk, "address_used_at", k->addr_taken ? json_string(k->addr_taken) : json_null());
        for (size_t a = 0; a < r->nl; a++) {
            const hc_launch *l = &r->l[lx[a]];
            if (!l->kernel || strcmp(l->kernel, k->name)) continue;
            if (!l->known) {
                json_array_append_new(unknown, launch_json(l, false));
                continue;
            }
            json_t *sh = NULL;
            size_t si;
            json_array_foreach(shapes, si, sh) {
                json_t *b = json_object_get(sh, "block");
                if ((uint32_t)json_integer_value(json_array_get(b, 0)) == l->block[0] &&
                    (uint32_t)json_integer_value(json_array_get(b, 1)) == l->block[1] &&
                    (uint32_t)json_integer_value(json_array_get(b, 2)) == l->block[2])
                    break;
                sh = NULL;
            }
            if (!sh) {
                sh = json_pack("{s:[iii], s:[]}", "block", (json_int_t)l->block[0], (json_int_t)l->block[1],
                               (json_int_t)l->block[2], "launches");
                json_array_append_new(shapes, sh);
            }
            json_t *lj = json_object();
            json_object_set_new(lj, "at", at_json(l));
            json_object_set_new(lj, "via", json_string(hc_via_text((enum hc_via)l->via)));
            through_json(lj, l);
            json_array_append_new(json_object_get(sh, "launches"), lj);
        }
        json_object_set_new(jk, "shapes", shapes);
        json_object_set_new(jk, "unknown", unknown);
        json_array_append_new(kernels, jk);
    }
    for (size_t a = 0; a < r->nl; a++)
        if (!r->l[lx[a]].kernel) json_array_append_new(other, launch_json(&r->l[lx[a]], true));
    counts c = count(r);
    json_object_set_new(root, "files", files);
    json_object_set_new(root, "kernels", kernels);
    json_object_set_new(root, "unknown_kernel_launches", other);
    json_object_set_new(root, "summary",
                        json_pack("{s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i}", "kernels", (json_int_t)r->nk,
                                  "kernels_with_constant_shapes", (json_int_t)c.kernels_known, "shapes",
                                  (json_int_t)c.shapes, "kernels_unknown_only", (json_int_t)c.kernels_unknown_only,
                                  "kernels_function_pointer_only", (json_int_t)c.fnptr_only,
                                  "kernels_not_launched", (json_int_t)c.not_launched, "launches",
                                  (json_int_t)c.launches, "constant", (json_int_t)c.known, "unknown",
                                  (json_int_t)c.unknown, "unknown_kernel", (json_int_t)c.fnptr));
    free(kx);
    free(lx);
    return root;
}
