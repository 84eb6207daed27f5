#include "emu_harness.h"
#include <criterion/criterion.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"

const char *const eh_arches[3] = {"sm_75", "sm_80", "sm_90"};
const eh_hooks *eh_hooks_on;

const char *eh_corpus(const char *arch, const char *name)
{
    static char buf[512];
    snprintf(buf, sizeof buf, "ptx-corpus/%s/%s.ptx", arch, name);
    return buf;
}

const char *eh_variant(unsigned k, const char *name)
{
    static char buf[512];
    if (k < 3) return eh_corpus(eh_arches[k], name);
    snprintf(buf, sizeof buf, "ptx-corpus/debug/%s.sm_80.ptx", name);
    return buf;
}

static eh *make(ptx_module *m, const char *path, const emu_options *opt)
{
    eh *h = calloc(1, sizeof *h);
    cr_assert_not_null(h);
    h->m = m;
    snprintf(h->path, sizeof h->path, "%s", path);
    if (opt) h->opt = *opt;
    if (eh_hooks_on && eh_hooks_on->opened) eh_hooks_on->opened(h);
    h->M = emu_create(h->m, &h->opt); /* opened may have replaced the module */
    cr_assert_not_null(h->M);
    return h;
}

eh *eh_open(const char *rel, const emu_options *opt)
{
    ptx_diags d;
    ptx_diags_init(&d);
    ptx_module *m = ptx_parse_file(tu_src(rel), &d);
    cr_assert_not_null(m, "cannot parse %s", rel);
    ptx_diags_free(&d);
    return make(m, rel, opt);
}

eh *eh_text(const char *ptx, const emu_options *opt)
{
    ptx_module *m = tu_parse_ok("inline.ptx", ptx);
    return make(m, "inline.ptx", opt);
}

void eh_close(eh *h)
{
    if (!h) return;
    if (eh_hooks_on && eh_hooks_on->closing) eh_hooks_on->closing(h);
    emu_destroy(h->M);
    ptx_module_free(h->m);
    free(h);
}

uint64_t eh_buf(eh *h, const void *data, size_t bytes)
{
    uint64_t a = emu_malloc(h->M, bytes, "test");
    cr_assert_neq(a, 0);
    if (data) memcpy(emu_host(h->M, a, bytes), data, bytes);
    return a;
}

uint64_t eh_zero(eh *h, size_t bytes) { return eh_buf(h, NULL, bytes); }

void eh_read(eh *h, uint64_t addr, void *out, size_t bytes)
{
    void *p = emu_host(h->M, addr, bytes);
    cr_assert_not_null(p);
    memcpy(out, p, bytes);
}

void eh_write(eh *h, uint64_t addr, const void *in, size_t bytes)
{
    void *p = emu_host(h->M, addr, bytes);
    cr_assert_not_null(p);
    memcpy(p, in, bytes);
}

void eh_set_symbol(eh *h, const char *name, const void *data, size_t bytes)
{
    size_t sz;
    void *host;
    cr_assert(emu_symbol(h->M, name, NULL, &sz, &host, NULL), "no symbol %s", name);
    cr_assert_eq(sz, bytes, "symbol %s has %zu bytes, %zu given", name, sz, bytes);
    memcpy(host, data, bytes);
}

void eh_get_symbol(eh *h, const char *name, void *out, size_t bytes)
{
    size_t sz;
    void *host;
    cr_assert(emu_symbol(h->M, name, NULL, &sz, &host, NULL), "no symbol %s", name);
    cr_assert_eq(sz, bytes);
    memcpy(out, host, bytes);
}

emu_status eh_launch(eh *h, const char *kernel, emu_dim3 grid, emu_dim3 block, const char *fmt, ...)
{
    emu_arg args[64];
    uint8_t store[64][8];
    unsigned n = 0;
    va_list ap;
    va_start(ap, fmt);
    for (const char *p = fmt; *p && n < 64; p++, n++) {
        switch (*p) {
        case 'p': case 'l': { uint64_t v = va_arg(ap, uint64_t); memcpy(store[n], &v, 8); args[n] = (emu_arg){store[n], 8}; break; }
        case 'i': case 'u': { uint32_t v = va_arg(ap, uint32_t); memcpy(store[n], &v, 4); args[n] = (emu_arg){store[n], 4}; break; }
        case 'f': { float v = (float)va_arg(ap, double); memcpy(store[n], &v, 4); args[n] = (emu_arg){store[n], 4}; break; }
        case 'd': { double v = va_arg(ap, double); memcpy(store[n], &v, 8); args[n] = (emu_arg){store[n], 8}; break; }
        case 'h': { uint16_t v = (uint16_t)va_arg(ap, int); memcpy(store[n], &v, 2); args[n] = (emu_arg){store[n], 2}; break; }
        case 'c': { uint8_t v = (uint8_t)va_arg(ap, int); store[n][0] = v; args[n] = (emu_arg){store[n], 1}; break; }
        case 'b': { const void *d = va_arg(ap, const void *); size_t s = va_arg(ap, size_t); args[n] = (emu_arg){d, s}; break; }
        default: cr_assert_fail("bad eh_launch format '%c'", *p);
        }
    }
    va_end(ap);
    ptx_diags d;
    ptx_diags_init(&d);
    h->args = args;
    h->nargs = n;
    if (eh_hooks_on && eh_hooks_on->launching) eh_hooks_on->launching(h, kernel, grid, block);
    emu_status st = emu_launch(h->M, kernel, grid, block, args, n, &d);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ptx_diags_print(&d, h->path, h->m->src, h->m->src_len, f);
    fclose(f);
    snprintf(h->last_err, sizeof h->last_err, "%s", buf ? buf : "");
    free(buf);
    ptx_diags_free(&d);
    if (eh_hooks_on && eh_hooks_on->launched) eh_hooks_on->launched(h, kernel, st);
    h->args = NULL;
    h->nargs = 0;
    return st;
}

uint64_t eh_rand(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

void eh_fill_f32(float *v, size_t n, uint64_t seed, float lo, float hi)
{
    for (size_t i = 0; i < n; i++) v[i] = lo + (hi - lo) * (float)((double)(eh_rand(&seed) >> 11) * 0x1p-53);
}

void eh_fill_f64(double *v, size_t n, uint64_t seed, double lo, double hi)
{
    for (size_t i = 0; i < n; i++) v[i] = lo + (hi - lo) * ((double)(eh_rand(&seed) >> 11) * 0x1p-53);
}

void eh_fill_i32(int32_t *v, size_t n, uint64_t seed, int32_t lo, int32_t hi)
{
    uint64_t span = (uint64_t)((int64_t)hi - lo) + 1;
    for (size_t i = 0; i < n; i++) v[i] = (int32_t)(lo + (int64_t)(eh_rand(&seed) % span));
}

void eh_expect_f32(const float *got, const float *want, size_t n, double rel, double abs, const char *what)
{
    for (size_t i = 0; i < n; i++) {
        double g = got[i], w = want[i];
        if (isnan(w) && isnan(g)) continue;
        cr_assert(fabs(g - w) <= abs + rel * fabs(w), "%s[%zu]: got %.9g, want %.9g", what, i, g, w);
    }
}

void eh_expect_f64(const double *got, const double *want, size_t n, double rel, double abs, const char *what)
{
    for (size_t i = 0; i < n; i++) {
        double g = got[i], w = want[i];
        if (isnan(w) && isnan(g)) continue;
        cr_assert(fabs(g - w) <= abs + rel * fabs(w), "%s[%zu]: got %.17g, want %.17g", what, i, g, w);
    }
}

void eh_expect_i32(const int32_t *got, const int32_t *want, size_t n, const char *what)
{
    for (size_t i = 0; i < n; i++) cr_assert_eq(got[i], want[i], "%s[%zu]: got %d, want %d", what, i, got[i], want[i]);
}

void eh_expect_u64(const uint64_t *got, const uint64_t *want, size_t n, const char *what)
{
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(got[i], want[i], "%s[%zu]: got 0x%llx, want 0x%llx", what, i, (unsigned long long)got[i],
                     (unsigned long long)want[i]);
}

void eh_expect_bytes(const void *got, const void *want, size_t n, const char *what)
{
    const uint8_t *g = got, *w = want;
    for (size_t i = 0; i < n; i++) cr_assert_eq(g[i], w[i], "%s byte %zu: got 0x%02x, want 0x%02x", what, i, g[i], w[i]);
}

/* Whether the kernel's launch bounds allow the shape (a launch that
 * breaks them fails on a GPU; the emulator does not check them). */
bool eh_bounds_allow(const ptx_module *m, const char *kernel, emu_dim3 s)
{
    for (uint32_t i = 0; i < m->nfuncs; i++) {
        const ptx_func *f = m->funcs[i];
        if (!f->is_entry || !f->has_body || !ptx_str_eq(f->name, kernel)) continue;
        for (uint32_t j = 0; j < f->nfdirs; j++) {
            const ptx_fdirective *d = &f->fdirs[j];
            uint64_t e[3] = {1, 1, 1};
            for (uint32_t q = 0; q < d->n && q < 3; q++) e[q] = d->vals[q];
            if (ptx_str_eq(d->name, ".reqntid") && d->n && (e[0] != s.x || e[1] != s.y || e[2] != s.z))
                return false;
            if (ptx_str_eq(d->name, ".maxntid") && d->n && (uint64_t)s.x * s.y * s.z > e[0] * e[1] * e[2])
                return false;
        }
    }
    return true;
}
