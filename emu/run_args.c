/* The buffers and parameters of a `ptxray run` launch (run_args.h). */
#include "run_args.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static run_buf *find_buf(run_args *r, const char *name, size_t n)
{
    for (unsigned i = 0; i < r->nbufs; i++)
        if (strlen(r->bufs[i].name) == n && !memcmp(r->bufs[i].name, name, n)) return &r->bufs[i];
    return NULL;
}

/* Splits at the first ':' (returns the rest, or NULL). */
static const char *field(const char *s, char *out, size_t n)
{
    const char *c = strchr(s, ':');
    size_t len = c ? (size_t)(c - s) : strlen(s);
    if (len >= n) len = n - 1;
    memcpy(out, s, len);
    out[len] = 0;
    return c ? c + 1 : NULL;
}

bool run_new_buffer(run_args *r, const char *name, const char *spec)
{
    char tn[32], cnt[64];
    const char *rest = field(spec, tn, sizeof tn);
    const elem_type *t = spec_type(tn, strlen(tn));
    if (!t) {
        snprintf(r->err, sizeof r->err, "unknown element type '%s'", tn);
        return false;
    }
    if (!rest) {
        snprintf(r->err, sizeof r->err, "'%s': expected TYPE:COUNT[:INIT] or TYPE:file:PATH", spec);
        return false;
    }
    if (r->nbufs == RUN_MAX_BUFS) {
        snprintf(r->err, sizeof r->err, "too many buffers");
        return false;
    }
    if (name && find_buf(r, name, strlen(name))) {
        snprintf(r->err, sizeof r->err, "buffer '%s' is defined twice", name);
        return false;
    }
    uint8_t *filedata = NULL;
    size_t count, flen = 0;
    const char *init = field(rest, cnt, sizeof cnt);
    if (!strcmp(cnt, "file")) {
        if (!init) {
            snprintf(r->err, sizeof r->err, "'%s': file needs a PATH", spec);
            return false;
        }
        filedata = spec_read_file(init, &flen, r->err, sizeof r->err);
        if (!filedata) return false;
        if (flen % t->bytes || !flen) {
            snprintf(r->err, sizeof r->err, "'%s' has %zu bytes, not a positive multiple of %u (%s)", init, flen,
                     t->bytes, t->name);
            free(filedata);
            return false;
        }
        count = flen / t->bytes;
    } else {
        char *end;
        unsigned long long c = strtoull(cnt, &end, 0);
        if (!cnt[0] || *end || c == 0 || c > (1ull << 32)) {
            snprintf(r->err, sizeof r->err, "'%s' is not an element count (1 to 2^32)", cnt);
            return false;
        }
        count = (size_t)c;
    }
    char nm[64];
    if (!name) {
        snprintf(nm, sizeof nm, "arg%u", ++r->anon);
        name = nm;
    }
    size_t bytes = count * t->bytes;
    uint64_t addr = emu_malloc(r->M, bytes, name);
    uint8_t *host = addr ? emu_host(r->M, addr, bytes) : NULL;
    if (!host) {
        snprintf(r->err, sizeof r->err, "cannot allocate %zu bytes", bytes);
        free(filedata);
        return false;
    }
    if (filedata) {
        memcpy(host, filedata, bytes);
        free(filedata);
    } else if (!spec_fill(t, init, host, count, r->err, sizeof r->err)) {
        return false;
    }
    run_buf *b = &r->bufs[r->nbufs++];
    b->name = strdup(name);
    b->t = t;
    b->addr = addr;
    b->bytes = bytes;
    b->is_symbol = false;
    return true;
}

/* ptr:NAME[+BYTES] */
static bool pointer(run_args *r, const char *s, uint64_t *out)
{
    const char *plus = strchr(s, '+');
    size_t n = plus ? (size_t)(plus - s) : strlen(s);
    run_buf *b = find_buf(r, s, n);
    if (!b) {
        snprintf(r->err, sizeof r->err, "no buffer named '%.*s' (define it before with --buf or NAME=buf:...)", (int)n, s);
        return false;
    }
    uint64_t off = 0;
    if (plus) {
        char *end;
        off = strtoull(plus + 1, &end, 0);
        if (*end || off > b->bytes) {
            snprintf(r->err, sizeof r->err, "bad offset in 'ptr:%s'", s);
            return false;
        }
    }
    *out = b->addr + off;
    return true;
}

/* struct:FIELD,... into dst (size bytes) */
static bool structure(run_args *r, const char *s, uint8_t *dst, size_t size)
{
    size_t off = 0;
    memset(dst, 0, size);
    char tmp[512];
    snprintf(tmp, sizeof tmp, "%s", s);
    for (char *save = NULL, *f = strtok_r(tmp, ",", &save); f; f = strtok_r(NULL, ",", &save)) {
        uint8_t val[8];
        unsigned n;
        if (!strncmp(f, "ptr:", 4)) {
            uint64_t a;
            if (!pointer(r, f + 4, &a)) return false;
            memcpy(val, &a, 8);
            n = 8;
        } else {
            char tn[32];
            const char *v = field(f, tn, sizeof tn);
            const elem_type *t = spec_type(tn, strlen(tn));
            if (!t || !v) {
                snprintf(r->err, sizeof r->err, "struct field '%s' is not TYPE:VALUE or ptr:NAME", f);
                return false;
            }
            if (!spec_value(t, v, val, r->err, sizeof r->err)) return false;
            n = t->bytes;
        }
        off = (off + n - 1) / n * n;
        if (off + n > size) {
            snprintf(r->err, sizeof r->err, "struct fields need more than the parameter's %zu bytes", size);
            return false;
        }
        memcpy(dst + off, val, n);
        off += n;
    }
    return true;
}

static const char *type_word(uint8_t t) { return ptx_type_name((ptx_type)t); }

bool run_argument(run_args *r, const char *spec, const emu_param_info *p, uint8_t *out)
{
    const char *eq = strchr(spec, '=');
    const char *colon = strchr(spec, ':');
    const char *name = NULL;
    char nm[128];
    const char *body = spec;
    if (eq && (!colon || eq < colon)) {
        size_t n = (size_t)(eq - spec);
        if (n == 0 || n >= sizeof nm) {
            snprintf(r->err, sizeof r->err, "bad buffer name in '%s'", spec);
            return false;
        }
        memcpy(nm, spec, n);
        nm[n] = 0;
        name = nm;
        body = eq + 1;
    }
    if (!strncmp(body, "buf:", 4)) {
        if (p->size != 8) {
            snprintf(r->err, sizeof r->err, "a buffer address is 8 bytes but the parameter is %u bytes (%s)", p->size,
                     type_word(p->type));
            return false;
        }
        if (!run_new_buffer(r, name, body + 4)) return false;
        memcpy(out, &r->bufs[r->nbufs - 1].addr, 8);
        return true;
    }
    if (name) {
        snprintf(r->err, sizeof r->err, "only buf: arguments take a NAME=");
        return false;
    }
    if (!strncmp(body, "ptr:", 4)) {
        if (p->size != 8) {
            snprintf(r->err, sizeof r->err, "an address is 8 bytes but the parameter is %u bytes", p->size);
            return false;
        }
        uint64_t a;
        if (!pointer(r, body + 4, &a)) return false;
        memcpy(out, &a, 8);
        return true;
    }
    if (!strncmp(body, "struct:", 7)) return structure(r, body + 7, out, p->size);
    if (!strcmp(body, "zero")) {
        memset(out, 0, p->size);
        return true;
    }
    char tn[32];
    const char *v = field(body, tn, sizeof tn);
    const elem_type *t = spec_type(tn, strlen(tn));
    if (!t || !v) {
        snprintf(r->err, sizeof r->err, "'%s' is not TYPE:VALUE, buf:, ptr:, struct: or zero", body);
        return false;
    }
    if (t->bytes != p->size) {
        snprintf(r->err, sizeof r->err, "a %s value has %u bytes but the parameter has %u (%s)", t->name, t->bytes,
                 p->size, p->is_array ? ".b8 array" : type_word(p->type));
        return false;
    }
    return spec_value(t, v, out, r->err, sizeof r->err);
}

bool run_set_symbol(run_args *r, const char *spec)
{
    const char *eq = strchr(spec, '=');
    if (!eq || eq == spec) {
        snprintf(r->err, sizeof r->err, "--set '%s': expected SYM=TYPE:INIT, SYM=TYPE:file:PATH or SYM=struct:...", spec);
        return false;
    }
    char sym[256];
    size_t n = (size_t)(eq - spec) < sizeof sym - 1 ? (size_t)(eq - spec) : sizeof sym - 1;
    memcpy(sym, spec, n);
    sym[n] = 0;
    uint64_t addr;
    size_t bytes;
    void *host;
    if (!emu_symbol(r->M, sym, &addr, &bytes, &host, NULL) || !host) {
        snprintf(r->err, sizeof r->err, "--set: no .global or .const variable '%s' in the module", sym);
        return false;
    }
    const char *v = eq + 1;
    if (!strncmp(v, "struct:", 7)) return structure(r, v + 7, host, bytes);
    char tn[32];
    const char *rest = field(v, tn, sizeof tn);
    const elem_type *t = spec_type(tn, strlen(tn));
    if (!t) {
        snprintf(r->err, sizeof r->err, "--set %s: unknown element type '%s'", sym, tn);
        return false;
    }
    if (rest && !strncmp(rest, "file:", 5)) {
        size_t flen;
        uint8_t *d = spec_read_file(rest + 5, &flen, r->err, sizeof r->err);
        if (!d) return false;
        if (flen != bytes) {
            snprintf(r->err, sizeof r->err, "--set %s: '%s' has %zu bytes, the variable %zu", sym, rest + 5, flen, bytes);
            free(d);
            return false;
        }
        memcpy(host, d, bytes);
        free(d);
    } else if (!spec_fill(t, rest, host, bytes / t->bytes, r->err, sizeof r->err)) {
        return false;
    }
    if (!find_buf(r, sym, strlen(sym)) && r->nbufs < RUN_MAX_BUFS) {
        run_buf *b = &r->bufs[r->nbufs++];
        b->name = strdup(sym);
        b->t = t;
        b->addr = addr;
        b->bytes = bytes;
        b->is_symbol = true;
    }
    return true;
}

const uint8_t *run_named_data(run_args *r, const char *name, size_t n, size_t *bytes, const elem_type **t)
{
    run_buf *b = find_buf(r, name, n);
    char sym[256];
    if (n >= sizeof sym) return NULL;
    memcpy(sym, name, n);
    sym[n] = 0;
    uint64_t addr;
    void *host;
    size_t sz;
    if (b && !b->is_symbol) {
        *bytes = b->bytes;
        *t = b->t;
        return emu_host(r->M, b->addr, b->bytes);
    }
    if (emu_symbol(r->M, sym, &addr, &sz, &host, NULL) && host) {
        *bytes = sz;
        *t = b ? b->t : spec_type("u8", 2);
        return host;
    }
    return NULL;
}

void run_args_free(run_args *r)
{
    for (unsigned i = 0; i < r->nbufs; i++) free(r->bufs[i].name);
    r->nbufs = 0;
}
