/* Element types and data initialisers for `ptxray run`. */
#include "run_spec.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fp.h"
#include "emu_internal.h"

static const elem_type types[] = {
    {"i8", 1, EK_INT},   {"i16", 2, EK_INT},  {"i32", 4, EK_INT},  {"i64", 8, EK_INT},
    {"s8", 1, EK_INT},   {"s16", 2, EK_INT},  {"s32", 4, EK_INT},  {"s64", 8, EK_INT},
    {"u8", 1, EK_UINT},  {"u16", 2, EK_UINT}, {"u32", 4, EK_UINT}, {"u64", 8, EK_UINT},
    {"b8", 1, EK_UINT},  {"b16", 2, EK_UINT}, {"b32", 4, EK_UINT}, {"b64", 8, EK_UINT},
    {"f16", 2, EK_FLOAT}, {"bf16", 2, EK_FLOAT}, {"f32", 4, EK_FLOAT}, {"f64", 8, EK_FLOAT},
};

const elem_type *spec_type(const char *s, size_t n)
{
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (strlen(types[i].name) == n && !memcmp(types[i].name, s, n)) return &types[i];
    return NULL;
}

/* splitmix64: the documented generator of rand:SEED */
uint64_t spec_rand_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static void put_float(const elem_type *t, double v, uint8_t *out)
{
    if (!strcmp(t->name, "f32")) {
        float f = (float)v;
        memcpy(out, &f, 4);
    } else if (!strcmp(t->name, "f64")) {
        memcpy(out, &v, 8);
    } else {
        uint16_t h = (uint16_t)fp_round(v, 0, !strcmp(t->name, "f16") ? FMT_F16 : FMT_BF16, RND_RN, false);
        memcpy(out, &h, 2);
    }
}

bool spec_value(const elem_type *t, const char *text, uint8_t *out, char *err, size_t errn)
{
    char *end;
    errno = 0;
    if (t->kind == EK_FLOAT) {
        double v = strtod(text, &end);
        if (end == text || *end || errno == ERANGE) {
            snprintf(err, errn, "'%s' is not a %s value", text, t->name);
            return false;
        }
        put_float(t, v, out);
        return true;
    }
    uint64_t u;
    if (t->kind == EK_INT) {
        long long v = strtoll(text, &end, 0);
        if (end == text || *end || errno == ERANGE) goto bad;
        if (t->bytes < 8) {
            long long lo = -(1ll << (t->bytes * 8 - 1)), hi = (1ll << (t->bytes * 8 - 1)) - 1;
            if (v < lo || v > hi) {
                snprintf(err, errn, "%s is out of the range of %s", text, t->name);
                return false;
            }
        }
        u = (uint64_t)v;
    } else {
        if (text[0] == '-') goto bad;
        unsigned long long v = strtoull(text, &end, 0);
        if (end == text || *end || errno == ERANGE) goto bad;
        if (t->bytes < 8 && v >> (t->bytes * 8)) {
            snprintf(err, errn, "%s is out of the range of %s", text, t->name);
            return false;
        }
        u = v;
    }
    memcpy(out, &u, t->bytes);
    return true;
bad:
    snprintf(err, errn, "'%s' is not a %s value", text, t->name);
    return false;
}

bool spec_fill(const elem_type *t, const char *init, uint8_t *data, size_t count, char *err, size_t errn)
{
    if (!init || !*init || !strcmp(init, "zero")) {
        memset(data, 0, count * t->bytes);
        return true;
    }
    if (!strncmp(init, "fill:", 5)) {
        uint8_t one[8];
        if (!spec_value(t, init + 5, one, err, errn)) return false;
        for (size_t i = 0; i < count; i++) memcpy(data + i * t->bytes, one, t->bytes);
        return true;
    }
    if (!strcmp(init, "iota") || !strncmp(init, "iota:", 5)) {
        double start = 0, step = 1;
        if (init[4] == ':') {
            char *end;
            start = strtod(init + 5, &end);
            if (*end == ':') step = strtod(end + 1, &end);
            if (*end) {
                snprintf(err, errn, "bad iota initialiser '%s' (iota:START:STEP)", init);
                return false;
            }
        }
        for (size_t i = 0; i < count; i++) {
            double v = start + step * (double)i;
            uint8_t *p = data + i * t->bytes;
            if (t->kind == EK_FLOAT) put_float(t, v, p);
            else {
                int64_t iv = (int64_t)v;
                uint64_t u = (uint64_t)iv;
                memcpy(p, &u, t->bytes);
            }
        }
        return true;
    }
    if (!strncmp(init, "rand:", 5)) {
        char *end;
        errno = 0;
        uint64_t seed = strtoull(init + 5, &end, 0);
        double lo = 0, hi = t->kind == EK_FLOAT ? 1 : 99;
        bool range = false;
        if (*end == ':') {
            range = true;
            lo = strtod(end + 1, &end);
            if (*end != ':') goto bad;
            hi = strtod(end + 1, &end);
        }
        if (*end || errno) goto bad;
        if (hi < lo) {
            snprintf(err, errn, "rand range %g:%g is empty", lo, hi);
            return false;
        }
        (void)range;
        uint64_t st = seed;
        for (size_t i = 0; i < count; i++) {
            uint64_t r = spec_rand_next(&st);
            uint8_t *p = data + i * t->bytes;
            if (t->kind == EK_FLOAT) {
                /* uniform in [lo, hi) from the top 53 bits */
                double u = (double)(r >> 11) * 0x1p-53;
                put_float(t, lo + (hi - lo) * u, p);
            } else {
                /* uniform integer in [lo, hi] */
                int64_t a = (int64_t)lo, b = (int64_t)hi;
                uint64_t span = (uint64_t)(b - a) + 1;
                uint64_t v = (uint64_t)a + (span ? r % span : r);
                memcpy(p, &v, t->bytes);
            }
        }
        return true;
    bad:
        snprintf(err, errn, "bad rand initialiser '%s' (rand:SEED or rand:SEED:LO:HI)", init);
        return false;
    }
    snprintf(err, errn, "unknown initialiser '%s' (zero, fill:V, iota[:START[:STEP]], rand:SEED[:LO:HI])", init);
    return false;
}

void spec_format(const elem_type *t, const uint8_t *p, char *buf, size_t n)
{
    uint64_t u = 0;
    memcpy(&u, p, t->bytes);
    if (t->kind == EK_FLOAT) {
        double v;
        if (!strcmp(t->name, "f32")) v = f32_from((uint32_t)u);
        else if (!strcmp(t->name, "f64")) v = f64_from(u);
        else v = fp_decode(u & 0xffff, !strcmp(t->name, "f16") ? FMT_F16 : FMT_BF16);
        snprintf(buf, n, !strcmp(t->name, "f64") ? "%.17g" : "%.9g", v);
    } else if (t->kind == EK_INT) {
        snprintf(buf, n, "%lld", (long long)sext(u, t->bytes));
    } else {
        snprintf(buf, n, "%llu", (unsigned long long)u);
    }
}

uint8_t *spec_read_file(const char *path, size_t *len, char *err, size_t errn)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errn, "cannot read '%s': %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    while (buf) {
        size_t r = fread(buf + n, 1, cap - n, f);
        n += r;
        if (n < cap) break;
        if (cap > ((size_t)1 << 34)) {
            snprintf(err, errn, "'%s' is too large", path);
            free(buf);
            fclose(f);
            return NULL;
        }
        uint8_t *nb = realloc(buf, cap * 2);
        if (!nb) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
        cap *= 2;
    }
    bool bad = ferror(f);
    fclose(f);
    if (!buf || bad) {
        free(buf);
        snprintf(err, errn, "cannot read '%s'", path);
        return NULL;
    }
    buf[n] = 0; /* n < cap: the loop stops at a short read */
    *len = n;
    return buf;
}

bool spec_number(const char *s, uint64_t *out)
{
    char *end;
    if (!s || !*s || *s == '-') return false;
    unsigned long long v = strtoull(s, &end, 0);
    if (*end) return false;
    *out = v;
    return true;
}
