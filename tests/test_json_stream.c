/* report/json_stream.c: a document streamed container by container is
 * byte-identical to jansson's json_dumpf of the whole tree with
 * JSON_INDENT(2) | JSON_PRESERVE_ORDER, at every split between streamed
 * containers and dumped elements, and with strings, integers, booleans
 * and nulls written by js_str / js_int / js_bool / js_null; empty
 * containers, escapes (control characters too), non-ASCII text and
 * scalars as members included.  And `cfg --gsa --format json` (written
 * that way) is, for every corpus file, what jansson re-dumps from it. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "json_stream.h"
#include "testutil.h"

/* Streams v: containers above depth `cut` are opened and closed, the rest
 * dumped whole. */
static void stream(jstream *s, const char *key, json_t *v, int depth, int cut, bool scalars)
{
    if (scalars && json_is_string(v)) {
        js_str(s, key, json_string_value(v));
        return;
    }
    if (scalars && json_is_integer(v)) {
        js_int(s, key, json_integer_value(v));
        return;
    }
    if (scalars && json_is_boolean(v)) {
        js_bool(s, key, json_is_true(v));
        return;
    }
    if (scalars && json_is_null(v)) {
        js_null(s, key);
        return;
    }
    if (depth >= cut || !(json_is_object(v) || json_is_array(v))) {
        js_put(s, key, json_incref(v));
        return;
    }
    if (json_is_object(v)) {
        js_open_object(s, key);
        /* jansson's iteration order is its insertion order (JSON_PRESERVE_ORDER in the dump) */
        const char *k;
        json_t *x;
        void *tmp;
        json_object_foreach_safe(v, tmp, k, x) stream(s, k, x, depth + 1, cut, scalars);
    } else {
        js_open_array(s, key);
        size_t i;
        json_t *x;
        json_array_foreach(v, i, x) stream(s, NULL, x, depth + 1, cut, scalars);
    }
    js_close(s);
}

static char *dump_whole(json_t *v)
{
    char *p = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&p, &n);
    cr_assert(f);
    json_dumpf(v, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    fputc('\n', f);
    fclose(f);
    return p;
}

static char *dump_streamed(json_t *v, int cut, bool scalars)
{
    char *p = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&p, &n);
    cr_assert(f);
    jstream s;
    js_init(&s, f);
    stream(&s, NULL, v, 0, cut, scalars);
    cr_assert(js_finish(&s));
    fclose(f);
    return p;
}

static const char *docs[] = {
    "{\"functions\": [{\"name\": \"k\", \"blocks\": [], \"loops\": [{\"id\": 0, \"exits\": [[\"a\", \"b\"]]}],"
    " \"gate_sets\": {}, \"ssa_stats\": {\"values\": 3}}, {\"name\": \"f\", \"blocks\": [{\"succ\": [], \"x\": null}]}]}",
    "[]",
    "{}",
    "[1, 2.5, \"s\", true, false, null, [], {}, [[[]]], {\"a\": {\"b\": {\"c\": []}}}]",
    "{\"esc\": \"line\\nbreak \\\"quoted\\\" tab\\t back\\\\slash\", \"utf8\": \"\\u00e9\\u4e2d \\ud83d\\ude00\","
    " \"\\u00e9 key\": [\"\\n\"], \"z\": 0, \"a\": -1}",
    "{\"ctl\": \"\\u0001\\u001f\\u007f\\b\\f\\r/\", \"big\": [9223372036854775807, -9223372036854775808, 10, 0],"
    " \"\\\"k\\\\\": [{\"\": \"\"}]}",
};

Test(json_stream, same_bytes_as_json_dumpf)
{
    for (size_t d = 0; d < sizeof docs / sizeof docs[0]; d++) {
        json_error_t e;
        json_t *v = json_loads(docs[d], 0, &e);
        cr_assert(v, "doc %zu: %s", d, e.text);
        char *want = dump_whole(v);
        for (int cut = 0; cut <= 5; cut++)
            for (int scalars = 0; scalars < 2; scalars++) {
                char *got = dump_streamed(v, cut, scalars);
                cr_expect_str_eq(got, want, "doc %zu, streamed above depth %d%s", d, cut,
                                 scalars ? ", scalars written directly" : "");
                free(got);
            }
        free(want);
        json_decref(v);
    }
}

Test(json_stream, close_without_open_and_deep_nesting_fail)
{
    char *p = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&p, &n);
    jstream s;
    js_init(&s, f);
    js_close(&s);
    cr_expect(!js_finish(&s));
    fclose(f);
    free(p);
    f = open_memstream(&p, &n);
    js_init(&s, f);
    for (int i = 0; i <= JS_MAXDEPTH; i++) js_open_array(&s, NULL);
    cr_expect(!js_finish(&s));
    fclose(f);
    free(p);
}

/* js_put_tree: every array of every document taken in turn as the hole,
 * emptied, and its elements written back by the fill: the bytes of the
 * whole tree's dump. */
typedef struct hole_fill {
    json_t *elems;
} hole_fill;

static void fill_elems(jstream *s, void *ctx)
{
    hole_fill *h = ctx;
    size_t i;
    json_t *x;
    json_array_foreach(h->elems, i, x) js_put(s, NULL, json_incref(x));
}

static void arrays_of(json_t *v, json_t **out, size_t *n)
{
    if (json_is_array(v)) out[(*n)++] = v;
    const char *k;
    json_t *x;
    size_t i;
    if (json_is_object(v)) json_object_foreach(v, k, x) arrays_of(x, out, n);
    if (json_is_array(v)) json_array_foreach(v, i, x) arrays_of(x, out, n);
}

Test(json_stream, put_tree_fills_the_hole_in_place)
{
    size_t tried = 0;
    for (size_t d = 0; d < sizeof docs / sizeof docs[0]; d++) {
        json_error_t e;
        json_t *v = json_loads(docs[d], 0, &e);
        cr_assert(v, "doc %zu: %s", d, e.text);
        char *want = dump_whole(v);
        json_t *arrays[64];
        size_t na = 0;
        arrays_of(v, arrays, &na);
        for (size_t a = 0; a < na; a++) {
            hole_fill h = {json_copy(arrays[a])}; /* shallow: the elements shared */
            json_array_clear(arrays[a]);
            char *p = NULL;
            size_t n = 0;
            FILE *f = open_memstream(&p, &n);
            jstream s;
            js_init(&s, f);
            js_put_tree(&s, NULL, json_incref(v), arrays[a], fill_elems, &h);
            cr_assert(js_finish(&s));
            fclose(f);
            cr_expect_str_eq(p, want, "doc %zu, array %zu as the hole", d, a);
            json_array_extend(arrays[a], h.elems);
            json_decref(h.elems);
            free(p);
            tried++;
        }
        free(want);
        json_decref(v);
    }
    cr_assert_geq(tried, 12);
}

/* Nesting to JS_MAXDEPTH works (a GSA expression nests two containers a
 * level, to 66 levels). */
Test(json_stream, nesting_to_the_limit)
{
    json_t *v = json_array(), *in = v;
    for (int i = 1; i < JS_MAXDEPTH; i++) {
        json_t *x = i % 2 ? json_object() : json_array();
        if (json_is_array(in)) json_array_append_new(in, x);
        else json_object_set_new(in, "ops", x);
        in = x;
    }
    char *want = dump_whole(v), *got = dump_streamed(v, JS_MAXDEPTH, true);
    cr_expect_str_eq(got, want);
    free(got);
    free(want);
    json_decref(v);
}

Test(json_stream, cfg_gsa_json_is_what_jansson_dumps, .timeout = 300)
{
    size_t n;
    char **files = tu_list_ptx(tu_src("ptx-corpus"), &n);
    cr_assert_geq(n, 120);
    for (size_t i = 0; i < n; i++) {
        char *argv[] = {(char *)tu_bin(), "cfg", "--gsa", "--format", "json", files[i], NULL};
        char *out = tu_run_want(argv, 0, NULL);
        json_error_t e;
        json_t *v = json_loads(out, 0, &e);
        cr_assert(v, "%s: %s", files[i], e.text);
        char *again = dump_whole(v);
        cr_expect_str_eq(out, again, "%s", files[i]);
        free(again);
        json_decref(v);
        free(out);
    }
    tu_free_list(files, n);
}
