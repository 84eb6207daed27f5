/* JSON written as it is built (json_stream.c): the containers of a large
 * document (a run's kernels, a kernel's blocks) are opened and closed
 * here, and each element is built as a small jansson tree, written, and
 * freed.  Memory then stays bounded by the largest element instead of
 * the whole document, and the bytes are exactly those json_dumpf(root,
 * JSON_INDENT(2) | JSON_PRESERVE_ORDER) gives for the same tree. */
#ifndef PTXRAY_JSON_STREAM_H
#define PTXRAY_JSON_STREAM_H
#include <stdbool.h>
#include <stdio.h>
#include <jansson.h>

#define JS_MAXDEPTH 192 /* cfg_print.c: a GSA expression nests 2 containers a level, to 66 levels */

typedef struct jstream {
    FILE *f;
    unsigned depth;                  /* open containers */
    bool nonempty[JS_MAXDEPTH + 1];  /* the container at each depth has an element */
    bool is_obj[JS_MAXDEPTH + 1];
    bool failed;                     /* a write failed, or the nesting was too deep */
    size_t nbuf;                     /* bytes in buf, not yet written to f */
    char buf[16384];
} jstream;

void js_init(jstream *s, FILE *f);
/* Opens an object or array: as the member `key` of the enclosing object,
 * or (key NULL) as an element of the enclosing array or as the document. */
void js_open_object(jstream *s, const char *key);
void js_open_array(jstream *s, const char *key);
/* Closes the innermost container. */
void js_close(jstream *s);
/* Writes v (whose reference it takes) as member `key` or as an element. */
void js_put(jstream *s, const char *key, json_t *v);
/* Writes tree (whose reference it takes) as js_put does, except the
 * array hole somewhere inside it (empty, found by identity), whose
 * elements fill writes (with js_put): a report's large list streamed
 * inside the small tree of everything around it. */
void js_put_tree(jstream *s, const char *key, json_t *tree, json_t *hole, void (*fill)(jstream *s, void *ctx),
                 void *ctx);
/* Scalars written directly, as jansson would dump json_string(v) (v NULL:
 * null), json_integer, json_boolean and json_null: for the elements too
 * many to build as trees (a 100k-block kernel's blocks). */
void js_str(jstream *s, const char *key, const char *v);
void js_int(jstream *s, const char *key, long long v);
void js_bool(jstream *s, const char *key, bool v);
void js_null(jstream *s, const char *key);
/* Writes out what is buffered: f is behind the calls until then (or
 * js_finish), so a caller writing to f itself flushes first. */
void js_flush(jstream *s);
/* Ends the document with a newline; false when any write failed. */
bool js_finish(jstream *s);

#endif
