/* The block shapes host code launches each kernel with, by PTX name: read
 * from the JSON of `ptxray launches` (--launches FILE.json) or taken from a
 * scan (analyze FILE.cu): the constant shapes, and how many launches have
 * an unknown one. */
#ifndef PTXRAY_HOSTCODE_LAUNCH_TABLE_H
#define PTXRAY_HOSTCODE_LAUNCH_TABLE_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "launches.h"

typedef struct hc_shape {
    uint32_t block[3];
    char *at;   /* the first launch with it, "file:line:col" */
    char *from; /* "host-code launch at file:line:col" */
} hc_shape;

typedef struct hc_kshapes {
    char *name;
    hc_shape *s; /* distinct, in the order of their first launch */
    uint32_t n;
    uint32_t unknown; /* launches of an unknown shape, a use of its address (a function pointer) counting one */
} hc_kshapes;

typedef struct hc_table {
    hc_kshapes *k;
    size_t n;
} hc_table;

/* Reads path: 0, or 2 after "path:line:col: error: ..." (or "path: error:
 * ..." for a well-formed JSON of the wrong shape) on err. */
int hc_table_load(hc_table *t, const char *path, FILE *err);
void hc_table_from_result(hc_table *t, const hc_result *r);
/* The kernel named name[0..len), or NULL. */
const hc_kshapes *hc_table_find(const hc_table *t, const char *name, size_t len);
/* The most shapes a kernel has (0 for none). */
uint32_t hc_table_max_shapes(const hc_table *t);
void hc_table_free(hc_table *t);
/* The launch shapes of cu's host code (libclang, with the -I/-D/-U/-std=
 * flags given) into t: 0, or 2 after "ptxray CMD: ..." on stderr.  Without
 * libclang: a warning, no shapes, 0. */
int hc_table_from_cu(hc_table *t, const char *cu, const char *const *flags, size_t nflags, const char *cmd);

#endif
