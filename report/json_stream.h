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

#define JS_MAXDEPTH 32

typedef struct jstream {
    FILE *f;
    unsigned depth;                  /* open containers */
    bool nonempty[JS_MAXDEPTH + 1];  /* the container at each depth has an element */
    bool is_obj[JS_MAXDEPTH + 1];
    bool failed;                     /* a write failed, or the nesting was too deep */
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
/* Ends the document with a newline; false when any write failed. */
bool js_finish(jstream *s);

#endif
