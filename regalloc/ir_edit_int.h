/* What ir_edit.c (the shapes table, the edit and its emitted lines) and
 * ir_commit.c (parsing new shapes, copying the lines into the function)
 * share: the two structures and their growable arrays. */
#ifndef PTXRAY_RA_IR_EDIT_INT_H
#define PTXRAY_RA_IR_EDIT_INT_H
#include <stdbool.h>
#include <stdlib.h>
#include "ir_edit.h"
#include "ptx.h"

/* ---- the shapes table ----------------------------------------------------
 * A shape is an emitted line with its registers replaced by placeholders
 * %P<k> (k: order of first appearance) and its integer literals by %N,
 * then \x01 and each placeholder's type + 1.  Spill code repeats few shapes
 * (a reload from some slot into a fresh temporary), so each is parsed once
 * per module, with the literals of its first use, and kept as a master
 * instruction in the module's arena: registers as placeholder numbers,
 * literals in text order.  Every emitted instruction is a copy of its
 * master with its own registers and literals patched in. */
struct ra_shapes {
    ptx_module *m;
    char *text; /* the keys, one after another */
    size_t tlen, tcap;
    uint32_t n, cap, parsed; /* shapes [0, parsed) have their master */
    size_t *off;             /* per shape: key offset in text ... */
    uint32_t *len;           /* ... and length */
    uint32_t *lit;           /* per shape: its first use's literals, at lits[lit ..] */
    int64_t *lits;
    uint32_t nlits, caplits;
    const ptx_inst **master;
    uint32_t *hash; /* open addressing: shape index + 1, 0 empty */
    uint32_t hcap;
    /* ra_edit_emit's fast path: lines by signature (call_sig) */
    struct call_sig *calls;
    uint32_t ncalls, capcalls;
    uint8_t *sigs;
    size_t sglen, sgcap;
    int8_t *rec_src;
    int64_t *rec_val;
    uint32_t nrec, caprec;
    uint32_t *chash; /* open addressing: call index + 1, 0 empty */
    uint32_t chcap;
};

typedef struct pending {
    uint32_t stmt; /* anchor, or RA_EDIT_START */
    uint8_t after;
    uint32_t shape;
    uint32_t args; /* its registers: args[args ..], placeholder k at args + k */
    uint32_t nums; /* its integer literals: nums[nums ..], in text order */
} pending;

typedef struct newvar {
    ptx_space space;
    uint32_t align, bytes;
    const char *name;
} newvar;

struct ra_edit {
    ptx_module *m;
    ptx_func *fn;
    ra_shapes *sh;
    arena names; /* ra_edit_rname's strings, until the commit */
    uint32_t old_nregs;
    /* new registers: type per register past old_nregs */
    uint8_t *rtype;
    char *rtag; /* per new register: 0, or the rematerialisation kind (ra_edit_reg_tagged) */
    uint32_t nnew, capnew;
    char prefix[16]; /* "%ra_" or a variant that clashes with nothing */
    const char **rnames; /* ra_edit_rname results, per register (lazily) */
    uint32_t cap_regs;
    pending *p;
    uint32_t np, capp;
    uint32_t *args;
    uint32_t nargs, capargs;
    int64_t *nums;
    uint32_t nnums, capnums;
    newvar vars[4];
    uint32_t nvars;
    char *syms[4];
    const char *sym_base[4]; /* what each was asked for (string literals) */
    uint32_t nsyms;
    uint32_t cur_stmt;
    uint8_t cur_after;
};

static inline void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n);
    if (!p) abort();
    return p;
}

/* Room for one more of *n elements of size sz in *v (capacity *cap). */
static inline void *grow(void *v, uint32_t n, uint32_t *cap, size_t sz)
{
    if (n < *cap) return v;
    *cap = *cap ? *cap * 2 : 256;
    return xrealloc(v, *cap * sz);
}

/* Room for need elements. */
static inline void *reserve(void *v, uint32_t need, uint32_t *cap, size_t sz)
{
    if (need <= *cap) return v;
    uint32_t c = *cap ? *cap : 256;
    while (c < need) c *= 2;
    *cap = c;
    return xrealloc(v, (size_t)c * sz);
}


/* Decimal digits of v at p (no terminator); their count.  snprintf for
 * every new register name and literal was a visible part of the pass. */
static inline size_t put_u64(char *p, uint64_t v)
{
    char t[20];
    size_t n = 0;
    do t[n++] = (char)('0' + v % 10), v /= 10;
    while (v);
    for (size_t i = 0; i < n; i++) p[i] = t[n - 1 - i];
    return n;
}

static inline size_t put_i64(char *p, int64_t v)
{
    if (v >= 0) return put_u64(p, (uint64_t)v);
    p[0] = '-';
    return 1 + put_u64(p + 1, 0 - (uint64_t)v);
}

static inline bool is_digit(char c) { return c >= '0' && c <= '9'; }

#endif
