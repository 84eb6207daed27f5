/* The launch file (docs/launches.md, "Launch files"), the one reader of
 * it: the block shapes host code launches each kernel with, by the name
 * the file gives (matched to a function with ptx_name_match), read from
 * the JSON of `ptxray launches` (--launches FILE.json of every command) or
 * taken from a scan (analyze FILE.cu): the constant shapes, how many
 * launches have an unknown one, and the runs: launches that also give a
 * grid and arguments (`spillcost --launches`, `run --launches`). */
#ifndef PTXRAY_HOSTCODE_LAUNCH_TABLE_H
#define PTXRAY_HOSTCODE_LAUNCH_TABLE_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "launches.h"

/* A launch with its grid and arguments: what the emulator can run. */
typedef struct hc_run {
    uint32_t grid[3];
    char **args;  /* `ptxray run`'s --arg syntax, one per parameter */
    uint32_t nargs;
    char *where;  /* "FILE: kernels[i].shapes[j].launches[k]", for messages */
} hc_run;

typedef struct hc_shape {
    uint32_t block[3];
    hc_run *runs; /* its launches with a grid, in the file's order */
    uint32_t nruns;
    char *at;   /* the first launch with it, "file:line:col" */
    char *from; /* "host-code launch at file:line:col" */
} hc_shape;

typedef struct hc_kshapes {
    char *name;
    hc_shape *s; /* distinct, in the order of their first launch */
    uint32_t n;
    uint32_t unknown; /* launches of an unknown shape, a use of its address (a function pointer) counting one */
    char **params;    /* its parameters' source names (hc_kernel.params); NULL: not known */
    uint32_t nparams;
} hc_kshapes;

typedef struct hc_table {
    hc_kshapes *k;
    size_t n;
    hc_var *v; /* the device variables of a scan (a launch file has none) */
    size_t nv;
} hc_table;

/* Reads path: 0, or 2 after "path:line:col: error: ..." (or "path: error:
 * ..." for a well-formed JSON of the wrong shape) on err. */
int hc_table_load(hc_table *t, const char *path, FILE *err);
void hc_table_from_result(hc_table *t, const hc_result *r);
/* The kernel named name[0..len), or NULL. */
const hc_kshapes *hc_table_find(const hc_table *t, const char *name, size_t len);
/* The source name of parameter i of the kernel named name[0..len) (PTX
 * NAME_param_i), when t knows it and the kernel has nparams parameters
 * there as in the PTX (a table of another version of the source names
 * nothing); else NULL. */
const char *hc_table_param(const hc_table *t, const char *name, size_t len, uint32_t nparams, uint32_t i);
/* The device variable whose PTX symbol is name[0..len), or NULL. */
const hc_var *hc_table_var(const hc_table *t, const char *name, size_t len);
/* The most shapes a kernel has (0 for none). */
uint32_t hc_table_max_shapes(const hc_table *t);
void hc_table_free(hc_table *t);
/* The launch shapes of cu's host code (libclang, with the -I/-D/-U/-std=
 * flags given) into t: 0, or 2 after "ptxray CMD: ..." on stderr.  Without
 * libclang: a warning, no shapes, 0.  Errors in system headers: one note
 * (hc_note_header_errors; verbose: each file's). */
int hc_table_from_cu(hc_table *t, const char *cu, const char *const *flags, size_t nflags, const char *cmd,
                     bool verbose);

#endif
