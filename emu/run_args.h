/* The data of a `ptxray run` launch, from the command line's
 * specifications (run_spec.h, docs/emulator.md): global buffers, kernel
 * parameters and module variables, and the lookup --dump and --print use.
 * Every function returns false with the reason in r->err. */
#ifndef PTXRAY_RUN_ARGS_H
#define PTXRAY_RUN_ARGS_H
#include <stdbool.h>
#include "emu.h"
#include "run_spec.h"

#define RUN_MAX_BUFS 256

typedef struct run_buf {
    char *name;         /* malloc'd */
    const elem_type *t;
    uint64_t addr;
    size_t bytes;
    bool is_symbol;     /* a module variable set with --set */
} run_buf;

typedef struct run_args {
    emu_machine *M;
    run_buf bufs[RUN_MAX_BUFS];
    unsigned nbufs;
    unsigned anon;      /* buffers named argN so far */
    char err[512];
} run_args;

/* TYPE:COUNT[:INIT] or TYPE:file:PATH into a new buffer named name (NULL:
 * "argN"). */
bool run_new_buffer(run_args *r, const char *name, const char *spec);
/* One --arg for parameter p (its bytes into out). */
bool run_argument(run_args *r, const char *spec, const emu_param_info *p, uint8_t *out);
/* --set SYM=TYPE:INIT, SYM=TYPE:file:PATH or SYM=struct:FIELDS */
bool run_set_symbol(run_args *r, const char *spec);
/* A buffer or module variable by name (n bytes of it), for --dump and
 * --print: its bytes, size and element type; NULL when there is none. */
const uint8_t *run_named_data(run_args *r, const char *name, size_t n, size_t *bytes, const elem_type **t);
void run_args_free(run_args *r);

#endif
