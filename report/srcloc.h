/* Source positions of PTX instructions, from the .loc and .file
 * directives nvcc writes with -lineinfo or -G.
 *
 * An instruction's position is that of the last .loc before it in its
 * function.  When code was inlined, that .loc names the inlined function's
 * line and, in inlined_at, the call site; the call site's own .loc (the
 * last one before with that file, line and column) may be inlined in turn.
 * The reported position is the outermost one, in the function being
 * analysed (the line a user of the kernel wrote); the chain of inner
 * positions comes with it, innermost first.  A .loc with line 0 (code
 * nvcc attributes to no line) gives no position. */
#ifndef PTXRAY_SRCLOC_H
#define PTXRAY_SRCLOC_H
#include <stdbool.h>
#include <stdint.h>
#include "ir.h"

#define SRC_MAX_INLINE 8

typedef struct src_pos {
    const char *file; /* NULL: no source position */
    uint32_t line, col;
    uint32_t ninl;
    struct {
        const char *file;
        uint32_t line, col;
    } inl[SRC_MAX_INLINE]; /* the inlined positions inside the call, innermost first */
} src_pos;

typedef struct src_files {
    uint32_t n;
    uint32_t *index;
    char **path; /* without quotes; arena memory */
} src_files;

src_files *src_files_build(const ptx_module *m, arena *a);
void src_pos_of(const src_files *sf, const ptx_func *fn, uint32_t stmt, src_pos *out);
/* The path of .file index idx (the first with it); NULL when there is none. */
const char *src_file_name(const src_files *sf, uint32_t idx);

/* One position of an inlining chain. */
typedef struct src_frame {
    const char *file;
    uint32_t line, col;
} src_frame;

/* Whether path is a CUDA toolkit header (a directory `include` below one
 * named `cuda...` or `targets`: /usr/local/cuda/include/...,
 * /usr/local/cuda-12.4/targets/x86_64-linux/include/...). */
bool src_is_toolkit(const char *path);
/* p's chain, innermost position first and the outermost (p->file) last,
 * into chain[SRC_MAX_INLINE + 1]; returns its length (0 without a
 * position).  *user is the index of the position a user wrote the code at:
 * the innermost one that is not in a toolkit header (an atomicAdd's own
 * .loc is in device_atomic_functions.hpp; the user's call of it is the
 * next one out).  The positions after it are its call sites. */
uint32_t src_chain(const src_pos *p, src_frame *chain, uint32_t *user);
/* The position a user wrote statement stmt of fn at (src_chain's *user
 * frame): false when the statement has no source position. */
bool src_user_frame(const src_files *sf, const ptx_func *fn, uint32_t stmt, src_frame *out);

#endif
