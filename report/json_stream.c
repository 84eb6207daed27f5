/* Streaming JSON writer (json_stream.h).
 *
 * jansson's indented format: a non-empty container puts each member on a
 * line of its own, indented two spaces per depth, members separated by
 * ",", "key": value; the closing bracket on its own line at the
 * container's depth; an empty container is "{}" or "[]".  An element is
 * dumped by jansson at depth 0 and every line after its first is shifted
 * by the current depth (JSON text has no raw newline inside strings, so
 * every newline in the dump is a line break). */
#include <string.h>
#include "json_stream.h"

static void out(jstream *s, const char *p, size_t n)
{
    if (n && fwrite(p, 1, n, s->f) != n) s->failed = true;
}

static void indent(jstream *s, unsigned depth)
{
    static const char sp[] = "                                                                ";
    for (unsigned n = 2 * depth; n;) {
        unsigned k = n < sizeof sp - 1 ? n : (unsigned)(sizeof sp - 1);
        out(s, sp, k);
        n -= k;
    }
}

/* The separator and key before a new member of the innermost container. */
static void member(jstream *s, const char *key)
{
    if (!s->depth) return; /* the document itself */
    out(s, s->nonempty[s->depth] ? ",\n" : "\n", s->nonempty[s->depth] ? 2 : 1);
    s->nonempty[s->depth] = true;
    indent(s, s->depth);
    if (s->is_obj[s->depth]) {
        json_t *k = json_string(key ? key : "");
        char *t = k ? json_dumps(k, JSON_ENCODE_ANY) : NULL;
        if (t) {
            out(s, t, strlen(t));
            out(s, ": ", 2);
        } else s->failed = true;
        free(t);
        json_decref(k);
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
    return !s->failed && !ferror(s->f);
}
