/* Streaming JSON writer (json_stream.h).
 *
 * jansson's indented format: a non-empty container puts each member on a
 * line of its own, indented two spaces per depth, members separated by
 * ",", "key": value; the closing bracket on its own line at the
 * container's depth; an empty container is "{}" or "[]".  An element is
 * dumped by jansson at depth 0 and every line after its first is shifted
 * by the current depth (JSON text has no raw newline inside strings, so
 * every newline in the dump is a line break). */
#include <stdlib.h>
#include <string.h>
#include "json_stream.h"

/* Pieces are gathered in s->buf and written when it fills (js_flush,
 * js_finish): a large document is millions of small pieces, and an fwrite
 * for each was a fifth of `cfg --gsa --format json`'s time. */
void js_flush(jstream *s)
{
    if (s->nbuf && fwrite(s->buf, 1, s->nbuf, s->f) != s->nbuf) s->failed = true;
    s->nbuf = 0;
}

static void out_slow(jstream *s, const char *p, size_t n)
{
    js_flush(s);
    if (n > sizeof s->buf) {
        if (fwrite(p, 1, n, s->f) != n) s->failed = true;
        return;
    }
    memcpy(s->buf, p, n);
    s->nbuf = n;
}

static inline void out(jstream *s, const char *p, size_t n)
{
    if (n > sizeof s->buf - s->nbuf) {
        out_slow(s, p, n);
        return;
    }
    memcpy(s->buf + s->nbuf, p, n);
    s->nbuf += n;
}

/* Spaces in 16-byte stores (which may run up to 15 bytes past the indent,
 * inside buf): a memset call per line was a tenth of the JSON's time. */
static inline void indent(jstream *s, unsigned depth)
{
    size_t n = 2 * (size_t)depth;
    if (n + 16 > sizeof s->buf - s->nbuf) js_flush(s); /* 2 * JS_MAXDEPTH + 16 < sizeof buf */
    char *b = s->buf + s->nbuf;
    for (size_t i = 0; i < n; i += 16) memcpy(b + i, "                ", 16);
    s->nbuf += n;
}

/* The bytes put_string copies as they are: printable ASCII but '"' and
 * '\\' (not NUL, which ends the string). */
static const bool plain[256] = {
#define P4(x) [x] = 1, [x + 1] = 1, [x + 2] = 1, [x + 3] = 1
#define P16(x) P4(x), P4(x + 4), P4(x + 8), P4(x + 12)
    [0x20] = 1, [0x21] = 1, P4(0x23) /* not '"' */, P4(0x27), P4(0x2b), [0x2f] = 1,
    P16(0x30), P16(0x40),
    P4(0x50), P4(0x54), P4(0x58) /* not '\\' */, [0x5d] = 1, [0x5e] = 1, [0x5f] = 1,
    P16(0x60), P16(0x70),
#undef P16
#undef P4
};

/* A string as jansson dumps it (json_dumps of json_string(p), without
 * JSON_ENSURE_ASCII or JSON_ESCAPE_SLASH): '"', '\\' and the control
 * characters escaped, the rest as is.  Text that is not all ASCII goes
 * through jansson itself, which also checks its UTF-8 (and fails the
 * stream where jansson would refuse the string). */
static void put_string(jstream *s, const char *p)
{
    const unsigned char *u = (const unsigned char *)p;
    if (sizeof s->buf - s->nbuf >= 66) {
        /* the usual name, up to 64 bytes with nothing to escape: copied as
         * it is scanned, no call */
        char *b = s->buf + s->nbuf;
        size_t i = 0;
        b[0] = '"';
        while (i < 64 && plain[u[i]]) {
            b[1 + i] = (char)u[i];
            i++;
        }
        if (!u[i]) {
            b[1 + i] = '"';
            s->nbuf += i + 2;
            return;
        }
    }
    const unsigned char *q = u;
    while (*q >= 0x20 && *q < 0x80 && *q != '"' && *q != '\\') q++;
    if (!*q) { /* a long name: nothing to escape */
        size_t n = (size_t)(q - u);
        out(s, "\"", 1);
        out(s, p, n);
        out(s, "\"", 1);
        return;
    }
    for (; *q; q++)
        if (*q >= 0x80) {
            json_t *k = json_string(p);
            char *t = k ? json_dumps(k, JSON_ENCODE_ANY) : NULL;
            if (t) out(s, t, strlen(t));
            else s->failed = true;
            free(t);
            json_decref(k);
            return;
        }
    out(s, "\"", 1);
    const unsigned char *run = u;
    for (; *u; u++) {
        if (*u >= 0x20 && *u != '"' && *u != '\\') continue;
        out(s, (const char *)run, (size_t)(u - run));
        run = u + 1;
        char e[8];
        switch (*u) {
        case '"': out(s, "\\\"", 2); break;
        case '\\': out(s, "\\\\", 2); break;
        case '\b': out(s, "\\b", 2); break;
        case '\f': out(s, "\\f", 2); break;
        case '\n': out(s, "\\n", 2); break;
        case '\r': out(s, "\\r", 2); break;
        case '\t': out(s, "\\t", 2); break;
        default:
            snprintf(e, sizeof e, "\\u%04X", *u);
            out(s, e, 6);
        }
    }
    out(s, (const char *)run, (size_t)(u - run));
    out(s, "\"", 1);
}

/* The separator and key before a new member of the innermost container,
 * written straight into buf (the commonest call of a large document). */
static void member(jstream *s, const char *key)
{
    unsigned d = s->depth;
    if (!d) return; /* the document itself */
    if (2 + 2 * (size_t)d + 16 > sizeof s->buf - s->nbuf) js_flush(s); /* 2 * JS_MAXDEPTH + 18 < sizeof buf */
    char *b = s->buf + s->nbuf;
    size_t n = 0;
    if (s->nonempty[d]) b[n++] = ',';
    b[n++] = '\n';
    s->nonempty[d] = true;
    for (size_t i = 0; i < 2 * (size_t)d; i += 16) memcpy(b + n + i, "                ", 16);
    s->nbuf += n + 2 * (size_t)d;
    if (s->is_obj[d]) {
        put_string(s, key ? key : "");
        out(s, ": ", 2);
    }
}

void js_init(jstream *s, FILE *f)
{
    memset(s, 0, sizeof *s);
    s->f = f;
}

static void open_container(jstream *s, const char *key, bool obj)
{
    member(s, key);
    out(s, obj ? "{" : "[", 1);
    if (s->depth == JS_MAXDEPTH) {
        s->failed = true;
        return;
    }
    s->depth++;
    s->nonempty[s->depth] = false;
    s->is_obj[s->depth] = obj;
}

void js_open_object(jstream *s, const char *key) { open_container(s, key, true); }
void js_open_array(jstream *s, const char *key) { open_container(s, key, false); }

void js_close(jstream *s)
{
    if (!s->depth) {
        s->failed = true;
        return;
    }
    bool obj = s->is_obj[s->depth];
    if (s->nonempty[s->depth]) {
        out(s, "\n", 1);
        indent(s, s->depth - 1);
    }
    out(s, obj ? "}" : "]", 1);
    s->depth--;
}

void js_put(jstream *s, const char *key, json_t *v)
{
    member(s, key);
    char *t = v ? json_dumps(v, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY) : NULL;
    json_decref(v);
    if (!t) {
        s->failed = true;
        return;
    }
    const char *p = t;
    for (const char *nl; (nl = strchr(p, '\n')); p = nl + 1) {
        out(s, p, (size_t)(nl - p + 1));
        indent(s, s->depth);
    }
    out(s, p, strlen(p));
    free(t);
}

void js_str(jstream *s, const char *key, const char *v)
{
    member(s, key);
    if (v) put_string(s, v);
    else out(s, "null", 4);
}

void js_int(jstream *s, const char *key, long long v)
{
    member(s, key);
    char t[24];
    unsigned n = 0;
    unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
    do
        t[sizeof t - ++n] = (char)('0' + u % 10);
    while ((u /= 10));
    if (v < 0) t[sizeof t - ++n] = '-';
    out(s, t + sizeof t - n, n);
}

void js_bool(jstream *s, const char *key, bool v)
{
    member(s, key);
    out(s, v ? "true" : "false", v ? 4 : 5);
}

void js_null(jstream *s, const char *key)
{
    member(s, key);
    out(s, "null", 4);
}

static bool holds(json_t *v, json_t *hole)
{
    if (v == hole) return true;
    const char *k;
    json_t *m;
    size_t i;
    if (json_is_object(v)) json_object_foreach(v, k, m) if (holds(m, hole)) return true;
    if (json_is_array(v)) json_array_foreach(v, i, m) if (holds(m, hole)) return true;
    return false;
}

static void put_tree(jstream *s, const char *key, json_t *v, json_t *hole, void (*fill)(jstream *, void *), void *ctx)
{
    if (v == hole) {
        js_open_array(s, key);
        fill(s, ctx);
        js_close(s);
    } else if (!holds(v, hole)) js_put(s, key, json_incref(v));
    else if (json_is_object(v)) {
        const char *k;
        json_t *m;
        js_open_object(s, key);
        json_object_foreach(v, k, m) put_tree(s, k, m, hole, fill, ctx);
        js_close(s);
    } else {
        size_t i;
        json_t *m;
        js_open_array(s, key);
        json_array_foreach(v, i, m) put_tree(s, NULL, m, hole, fill, ctx);
        js_close(s);
    }
}

void js_put_tree(jstream *s, const char *key, json_t *tree, json_t *hole, void (*fill)(jstream *s, void *ctx),
                 void *ctx)
{
    put_tree(s, key, tree, hole, fill, ctx);
    json_decref(tree);
}

bool js_finish(jstream *s)
{
    while (s->depth) js_close(s);
    out(s, "\n", 1);
    js_flush(s);
    return !s->failed && !ferror(s->f);
}
