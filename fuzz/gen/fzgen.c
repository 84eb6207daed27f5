/* The kernel generator of the differential tests: fzgen.h says what a
 * kernel holds and why it is valid; docs/testing.md what the oracles do
 * with it.  Everything is drawn from one splitmix64 stream, so a seed is a
 * kernel on every machine. */
#include "fzgen.h"
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- text ---------------------------------------------------------------------------------------- */

typedef struct sb {
    char *p;
    size_t n, cap;
} sb;

static void sbv(sb *b, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int k = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (k < 0) abort();
    if (b->n + (size_t)k + 1 > b->cap) {
        b->cap = (b->cap + (size_t)k + 1) * 2;
        b->p = realloc(b->p, b->cap);
        if (!b->p) abort();
    }
    vsnprintf(b->p + b->n, (size_t)k + 1, fmt, ap);
    b->n += (size_t)k;
}

static void sbf(sb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sbf(sb *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sbv(b, fmt, ap);
    va_end(ap);
}

/* ---- state --------------------------------------------------------------------------------------- */

enum { T_U32, T_U64, T_F32, T_F64, T_U16, T_NT };
static const char *const rpre[T_NT] = {"%r", "%rd", "%f", "%fd", "%rs"};
static const char *const rdecl[T_NT] = {".b32", ".b64", ".f32", ".f64", ".b16"};

#define MAXPOOL 48
#define MAXTMP 1024
#define NSLOTS 32 /* store sites per output region */

typedef struct fnst {
    sb body;
    unsigned nreg[T_NT], npred;
    unsigned pool[T_NT][MAXPOOL], npool[T_NT];
    struct tmpreg {
        uint8_t t;
        unsigned r;
    } tmp[MAXTMP];
    unsigned ntmp;
    /* temporaries made by the statement being generated: in scope only
     * from the next statement on, so no operand of an instruction picks the
     * register that instruction defines */
    struct tmpreg pend[256];
    unsigned npend;
    bool is_kernel;
} fnst;

typedef struct gen {
    uint64_t s;
    fz_kernel *k;
    fnst *f;     /* the function being generated */
    unsigned nlab;
    /* the kernel's special registers (u32 unless said) */
    unsigned tx, ty, tz, lane, warp, tlin, bid, gtid, fm, kpar;
    unsigned rd_in, rd_oa, rd_ob, rd_oc, rd_od, rd_cnt; /* u64 */
    unsigned shb;                                        /* u32: fz_sh's address */
    /* the launch */
    uint32_t bx, by, bz, gx, gy, T, TT, NB;
    uint32_t TP; /* T rounded up to a multiple of 32: gtid = bid * TP + tlin, so
                  * a block's part of an address is a multiple of 128 bytes */
    bool full; /* T is a multiple of 32: every warp has 32 lanes */
    uint32_t nin;   /* u32 elements of in (a power of two) */
    uint32_t shn;   /* u32 elements of fz_sh (a power of two >= 2T) */
    unsigned slot[5]; /* next store site per region A, B, C, D, red */
    int budget;
    unsigned nfuncs;
    bool exited;
} gen;

/* Where a statement is generated. */
typedef struct ctx {
    bool conv;        /* every thread of the block runs here together: bar.sync allowed */
    uint32_t cmask;   /* collectives allowed: the lanes here are fm & cmask; 0: none */
    uint32_t lbits;   /* laneid bits fixed by enclosing lane conditions */
    int depth;
    int lab_brk, lab_cont; /* innermost loop's labels, -1 outside loops */
    unsigned loop_var;     /* innermost uniform loop's counter (u32), UINT32_MAX: none */
    unsigned loop_max;     /* its largest value */
} ctx;

static uint64_t rnd(gen *g)
{
    uint64_t z = (g->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static unsigned rn(gen *g, unsigned n) { return n ? (unsigned)(rnd(g) % n) : 0; }
static bool chance(gen *g, unsigned pct) { return rn(g, 100) < pct; }

static void emit(gen *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void emit(gen *g, const char *fmt, ...)
{
    sbf(&g->f->body, "\t");
    va_list ap;
    va_start(ap, fmt);
    sbv(&g->f->body, fmt, ap);
    va_end(ap);
    sbf(&g->f->body, "\n");
    g->k->nstmts++;
}

static void label(gen *g, int l) { sbf(&g->f->body, "$L_%d:\n", l); }
static int newlab(gen *g) { return (int)g->nlab++; }

static unsigned newreg(gen *g, int t) { return g->f->nreg[t]++; }
static unsigned newpred(gen *g) { return g->f->npred++; }

/* A register's name (rotating buffers: several in one emit). */
static const char *R(int t, unsigned r)
{
    static char buf[16][16];
    static unsigned i;
    char *b = buf[i++ % 16];
    snprintf(b, 16, "%s%u", rpre[t], r);
    return b;
}
static const char *P(unsigned p)
{
    static char buf[8][16];
    static unsigned i;
    char *b = buf[i++ % 8];
    snprintf(b, 16, "%%p%u", p);
    return b;
}

static unsigned tmp(gen *g, int t)
{
    unsigned r = newreg(g, t);
    fnst *f = g->f;
    if (f->npend < 256) f->pend[f->npend++] = (struct tmpreg){(uint8_t)t, r};
    return r;
}

/* A defined value of type t: a pool variable or a temporary in scope. */
static unsigned pick(gen *g, int t)
{
    fnst *f = g->f;
    unsigned nt = 0;
    for (unsigned i = 0; i < f->ntmp; i++) nt += f->tmp[i].t == t;
    unsigned n = f->npool[t] + nt;
    if (!n) abort(); /* every function defines one of each type at entry */
    unsigned c = rn(g, n);
    if (c < f->npool[t]) return f->pool[t][c];
    c -= f->npool[t];
    for (unsigned i = 0; i < f->ntmp; i++)
        if (f->tmp[i].t == t && !c--) return f->tmp[i].r;
    abort();
}

/* A register to write: a pool variable (redefined, so live across) or a
 * new temporary. */
static unsigned dest(gen *g, int t)
{
    if (g->f->npool[t] && chance(g, 45)) return g->f->pool[t][rn(g, g->f->npool[t])];
    return tmp(g, t);
}

/* An existing register to overwrite under a guard (never a new one: its
 * value would be undefined where the guard is false). */
static unsigned redef(gen *g, int t) { return g->f->pool[t][rn(g, g->f->npool[t])]; }

/* ---- arithmetic ------------------------------------------------------------------------------------ */

static uint32_t imm32(gen *g)
{
    static const uint32_t v[] = {0, 1, 2, 3, 5, 7, 8, 31, 32, 255, 1024, 0x7fffffff, 0x80000000u, 0xffffffffu};
    return chance(g, 60) ? v[rn(g, sizeof v / sizeof *v)] : (uint32_t)rnd(g);
}

/* "%rN" or an immediate */
static const char *opnd32(gen *g)
{
    static char buf[8][24];
    static unsigned i;
    char *b = buf[i++ % 8];
    if (chance(g, 25)) snprintf(b, 24, "%u", imm32(g));
    else snprintf(b, 24, "%s", R(T_U32, pick(g, T_U32)));
    return b;
}

/* The guard prefix of a predicated instruction ("" most of the time). */
static void guard(gen *g, char *buf, size_t n, bool allow)
{
    buf[0] = 0;
    if (!allow || !chance(g, 15)) return;
    unsigned p = newpred(g);
    emit(g, "setp.%s.u32 %s, %s, %s;", (const char *[]){"lt", "ne", "hi", "eq", "ge"}[rn(g, 5)], P(p),
         R(T_U32, pick(g, T_U32)), opnd32(g));
    snprintf(buf, n, "@%s%s ", chance(g, 30) ? "!" : "", P(p));
}

static void arith_u32(gen *g)
{
    char gd[24];
    guard(g, gd, sizeof gd, true);
    unsigned d = gd[0] ? redef(g, T_U32) : dest(g, T_U32);
    const char *a = R(T_U32, pick(g, T_U32)), *b = opnd32(g), *D = R(T_U32, d);
    switch (rn(g, 22)) {
    case 0: emit(g, "%sadd.s32 %s, %s, %s;", gd, D, a, b); break;
    case 1: emit(g, "%ssub.s32 %s, %s, %s;", gd, D, a, b); break;
    case 2: emit(g, "%smul.lo.s32 %s, %s, %s;", gd, D, a, b); break;
    case 3: emit(g, "%smad.lo.s32 %s, %s, %s, %s;", gd, D, a, b, R(T_U32, pick(g, T_U32))); break;
    case 4: emit(g, "%smul.hi.u32 %s, %s, %s;", gd, D, a, b); break;
    case 5: emit(g, "%sand.b32 %s, %s, %s;", gd, D, a, b); break;
    case 6: emit(g, "%sor.b32 %s, %s, %s;", gd, D, a, b); break;
    case 7: emit(g, "%sxor.b32 %s, %s, %s;", gd, D, a, b); break;
    case 8: emit(g, "%snot.b32 %s, %s;", gd, D, a); break;
    case 9: emit(g, "%sshl.b32 %s, %s, %u;", gd, D, a, rn(g, 33)); break;
    case 10: emit(g, "%sshr.%s32 %s, %s, %s;", gd, chance(g, 50) ? "u" : "s", D, a, R(T_U32, pick(g, T_U32))); break;
    case 11: emit(g, "%smin.%s32 %s, %s, %s;", gd, chance(g, 50) ? "u" : "s", D, a, b); break;
    case 12: emit(g, "%smax.%s32 %s, %s, %s;", gd, chance(g, 50) ? "u" : "s", D, a, b); break;
    case 13: emit(g, "%spopc.b32 %s, %s;", gd, D, a); break;
    case 14: emit(g, "%sclz.b32 %s, %s;", gd, D, a); break;
    case 15: emit(g, "%sbrev.b32 %s, %s;", gd, D, a); break;
    case 16: emit(g, "%sbfe.u32 %s, %s, %u, %u;", gd, D, a, rn(g, 32), rn(g, 33)); break;
    case 17: emit(g, "%sbfi.b32 %s, %s, %s, %u, %u;", gd, D, a, R(T_U32, pick(g, T_U32)), rn(g, 32), rn(g, 33)); break;
    case 18: { /* a divisor made nonzero first */
        unsigned t = tmp(g, T_U32);
        emit(g, "or.b32 %s, %s, 1;", R(T_U32, t), R(T_U32, pick(g, T_U32)));
        emit(g, "%s%s.u32 %s, %s, %s;", gd, chance(g, 50) ? "div" : "rem", D, a, R(T_U32, t));
        break;
    }
    case 19: {
        unsigned p = newpred(g);
        emit(g, "setp.%s.%s32 %s, %s, %s;", (const char *[]){"lt", "le", "gt", "ge", "eq", "ne"}[rn(g, 6)],
             chance(g, 50) ? "u" : "s", P(p), a, b);
        emit(g, "%sselp.b32 %s, %s, %s, %s;", gd, D, R(T_U32, pick(g, T_U32)), opnd32(g), P(p));
        break;
    }
    case 20: emit(g, "%sprmt.b32 %s, %s, %s, 0x%04x;", gd, D, a, R(T_U32, pick(g, T_U32)), rn(g, 0x10000) & 0x7777);
        break;
    default: emit(g, "%sabs.s32 %s, %s;", gd, D, a); break;
    }
}

static void arith_u64(gen *g)
{
    unsigned d = dest(g, T_U64);
    const char *D = R(T_U64, d), *a = R(T_U64, pick(g, T_U64));
    switch (rn(g, 9)) {
    case 0: emit(g, "add.s64 %s, %s, %s;", D, a, R(T_U64, pick(g, T_U64))); break;
    case 1: emit(g, "sub.s64 %s, %s, %s;", D, a, R(T_U64, pick(g, T_U64))); break;
    case 2: emit(g, "mul.lo.s64 %s, %s, %s;", D, a, R(T_U64, pick(g, T_U64))); break;
    case 3: emit(g, "xor.b64 %s, %s, %s;", D, a, R(T_U64, pick(g, T_U64))); break;
    case 4: emit(g, "shl.b64 %s, %s, %u;", D, a, rn(g, 64)); break;
    case 5: emit(g, "shr.u64 %s, %s, %u;", D, a, rn(g, 64)); break;
    case 6: emit(g, "mul.wide.u32 %s, %s, %s;", D, R(T_U32, pick(g, T_U32)), R(T_U32, pick(g, T_U32))); break;
    case 7: emit(g, "cvt.u64.u32 %s, %s;", D, R(T_U32, pick(g, T_U32))); break;
    default: emit(g, "mad.lo.s64 %s, %s, %s, %s;", D, a, R(T_U64, pick(g, T_U64)), R(T_U64, pick(g, T_U64))); break;
    }
    if (chance(g, 30)) { /* back to 32 bits */
        unsigned r = dest(g, T_U32);
        if (chance(g, 50)) emit(g, "cvt.u32.u64 %s, %s;", R(T_U32, r), D);
        else {
            unsigned lo = tmp(g, T_U32), hi = tmp(g, T_U32);
            emit(g, "mov.b64 {%s, %s}, %s;", R(T_U32, lo), R(T_U32, hi), D);
            emit(g, "xor.b32 %s, %s, %s;", R(T_U32, r), R(T_U32, lo), R(T_U32, hi));
        }
    }
}

static void arith_f32(gen *g)
{
    unsigned d = dest(g, T_F32);
    const char *D = R(T_F32, d), *a = R(T_F32, pick(g, T_F32)), *b = R(T_F32, pick(g, T_F32));
    switch (rn(g, 11)) {
    case 0: emit(g, "add.rn.f32 %s, %s, %s;", D, a, b); break;
    case 1: emit(g, "sub.rn.f32 %s, %s, %s;", D, a, b); break;
    case 2: emit(g, "mul.rn.f32 %s, %s, %s;", D, a, b); break;
    case 3: emit(g, "fma.rn.f32 %s, %s, %s, %s;", D, a, b, R(T_F32, pick(g, T_F32))); break;
    case 4: emit(g, "min.f32 %s, %s, %s;", D, a, b); break;
    case 5: emit(g, "max.f32 %s, %s, %s;", D, a, b); break;
    case 6: emit(g, "abs.f32 %s, %s;", D, a); break;
    case 7: emit(g, "neg.f32 %s, %s;", D, a); break;
    case 8: emit(g, "cvt.rn.f32.u32 %s, %s;", D, R(T_U32, pick(g, T_U32))); break;
    case 9: emit(g, "cvt.rn.f32.f64 %s, %s;", D, R(T_F64, pick(g, T_F64))); break;
    default: emit(g, "mul.rn.f32 %s, %s, 0f3F000000;", D, a); break;
    }
    if (chance(g, 25)) {
        unsigned r = dest(g, T_U32);
        if (chance(g, 60)) emit(g, "mov.b32 %s, %s;", R(T_U32, r), D);
        else {
            unsigned p = newpred(g);
            emit(g, "setp.%s.f32 %s, %s, %s;", (const char *[]){"lt", "ge", "neu", "gtu"}[rn(g, 4)], P(p), D,
                 R(T_F32, pick(g, T_F32)));
            emit(g, "selp.b32 %s, %s, %s, %s;", R(T_U32, r), R(T_U32, pick(g, T_U32)), opnd32(g), P(p));
        }
    }
}

static void arith_f64(gen *g)
{
    unsigned d = dest(g, T_F64);
    const char *D = R(T_F64, d), *a = R(T_F64, pick(g, T_F64)), *b = R(T_F64, pick(g, T_F64));
    switch (rn(g, 7)) {
    case 0: emit(g, "add.rn.f64 %s, %s, %s;", D, a, b); break;
    case 1: emit(g, "mul.rn.f64 %s, %s, %s;", D, a, b); break;
    case 2: emit(g, "fma.rn.f64 %s, %s, %s, %s;", D, a, b, R(T_F64, pick(g, T_F64))); break;
    case 3: emit(g, "max.f64 %s, %s, %s;", D, a, b); break;
    case 4: emit(g, "cvt.rn.f64.u32 %s, %s;", D, R(T_U32, pick(g, T_U32))); break;
    case 5: emit(g, "cvt.f64.f32 %s, %s;", D, R(T_F32, pick(g, T_F32))); break;
    default: emit(g, "sub.rn.f64 %s, %s, %s;", D, a, b); break;
    }
    if (chance(g, 25)) {
        unsigned r = dest(g, T_U64);
        emit(g, "mov.b64 %s, %s;", R(T_U64, r), D);
    }
}

static void arith_u16(gen *g)
{
    unsigned d = dest(g, T_U16);
    const char *D = R(T_U16, d), *a = R(T_U16, pick(g, T_U16)), *b = R(T_U16, pick(g, T_U16));
    switch (rn(g, 7)) {
    case 0: emit(g, "add.u16 %s, %s, %s;", D, a, b); break;
    case 1: emit(g, "mul.lo.u16 %s, %s, %s;", D, a, b); break;
    case 2: emit(g, "xor.b16 %s, %s, %s;", D, a, b); break;
    case 3: emit(g, "shr.u16 %s, %s, %u;", D, a, rn(g, 16)); break;
    case 4: emit(g, "cvt.u16.u32 %s, %s;", D, R(T_U32, pick(g, T_U32))); break;
    case 5: emit(g, "cvt.u8.u32 %s, %s;", D, R(T_U32, pick(g, T_U32))); break; /* 8-bit: truncation */
    default: emit(g, "max.s16 %s, %s, %s;", D, a, b); break;
    }
    if (chance(g, 30)) {
        unsigned r = dest(g, T_U32);
        emit(g, "cvt.u32.%s %s, %s;", chance(g, 50) ? "u16" : "s8", R(T_U32, r), D);
    }
}

static void arith(gen *g)
{
    unsigned c = rn(g, 100);
    if (c < 55) arith_u32(g);
    else if (c < 70) arith_u64(g);
    else if (c < 83) arith_f32(g);
    else if (c < 92) arith_f64(g);
    else arith_u16(g);
}

/* ---- addresses ----------------------------------------------------------------------------------- */

/* A u32 register holding an index of at most lim - 1 (lim a power of two),
 * built from a pattern the analyses model.  uscale: the coefficient unit
 * of uniform unknown terms (block index, parameter, loop counter), so that
 * their bytes are a multiple of 128 (assumption 2 holds). */
static unsigned index_expr(gen *g, const ctx *c, uint32_t lim, uint32_t uscale, bool allow_gather)
{
    unsigned kind = rn(g, allow_gather ? 7 : 6);
    unsigned r = tmp(g, T_U32);
    const char *D = R(T_U32, r);
    switch (kind) {
    case 0: /* affine in tid.x/y/z */
    case 1: {
        static const uint32_t co[] = {0, 1, 1, 1, 2, 3, 4, 8, 16, 17, 32, 33};
        uint32_t cx = co[rn(g, 12)], cy = co[rn(g, 12)], cz = co[rn(g, 12)], c0 = rn(g, 4) * (chance(g, 50) ? 1 : 8);
        uint64_t mx = (uint64_t)cx * (g->bx - 1) + (uint64_t)cy * (g->by - 1) + (uint64_t)cz * (g->bz - 1) + c0;
        if (mx >= lim) cx = 1, cy = g->bx, cz = g->bx * g->by, c0 = 0; /* the linear id */
        mx = (uint64_t)cx * (g->bx - 1) + (uint64_t)cy * (g->by - 1) + (uint64_t)cz * (g->bz - 1) + c0;
        emit(g, "mul.lo.s32 %s, %s, %u;", D, R(T_U32, g->tx), cx);
        emit(g, "mad.lo.s32 %s, %s, %u, %s;", D, R(T_U32, g->ty), cy, D);
        emit(g, "mad.lo.s32 %s, %s, %u, %s;", D, R(T_U32, g->tz), cz, D);
        if (c0) emit(g, "add.s32 %s, %s, %u;", D, D, c0);
        /* uniform unknown parts, multiples of uscale */
        uint64_t room = lim - 1 - mx;
        if (chance(g, 40) && room >= (uint64_t)uscale * (g->NB - 1) + 1) {
            uint32_t m = (uint32_t)(room / ((uint64_t)uscale * g->NB));
            uint32_t k = m ? 1 + rn(g, m < 4 ? m : 4) : 0;
            if (k) {
                emit(g, "mad.lo.s32 %s, %s, %u, %s;", D, R(T_U32, g->bid), k * uscale, D);
                room -= (uint64_t)k * uscale * (g->NB - 1);
            }
        }
        if (c->loop_var != UINT32_MAX && chance(g, 50) && room >= (uint64_t)uscale * c->loop_max) {
            emit(g, "mad.lo.s32 %s, %s, %u, %s;", D, R(T_U32, c->loop_var), uscale, D);
            room -= (uint64_t)uscale * c->loop_max;
        }
        if (chance(g, 25) && room >= (uint64_t)uscale * 7) {
            unsigned t = tmp(g, T_U32);
            emit(g, "and.b32 %s, %s, 7;", R(T_U32, t), R(T_U32, g->kpar));
            emit(g, "mad.lo.s32 %s, %s, %u, %s;", D, R(T_U32, t), uscale, D);
        }
        break;
    }
    case 2: { /* lane and warp ids */
        uint32_t cl = (uint32_t[]){1, 1, 2, 4, 5, 8, 32}[rn(g, 7)];
        uint32_t nw = (g->T + 31) / 32;
        uint32_t cw = (uint32_t[]){0, 1, 32, 33, 64}[rn(g, 5)];
        /* the warp index is a uniform part of the address: a multiple of
         * 128 bytes in global memory (assumption 2; shared banks do not
         * depend on it) */
        if (uscale > 1) cw = uscale * rn(g, 3);
        if ((uint64_t)cl * 31 + (uint64_t)cw * (nw - 1) >= lim) cl = 1, cw = 32;
        emit(g, "mul.lo.s32 %s, %s, %u;", D, R(T_U32, g->lane), cl);
        emit(g, "mad.lo.s32 %s, %s, %u, %s;", D, R(T_U32, g->warp), cw, D);
        break;
    }
    case 3: { /* a power-of-two mask or xor of the linear id */
        uint32_t m = (1u << rn(g, 11)) - 1;
        if (m >= lim) m = lim - 1;
        switch (rn(g, 3)) {
        case 0: emit(g, "and.b32 %s, %s, %u;", D, R(T_U32, g->tlin), m); break;
        case 1: emit(g, "xor.b32 %s, %s, %u;", D, R(T_U32, g->tlin), rn(g, 32));
                emit(g, "and.b32 %s, %s, %u;", D, D, lim - 1); break;
        default: emit(g, "shr.u32 %s, %s, %u;", D, R(T_U32, g->tlin), 1 + rn(g, 4));
                emit(g, "shl.b32 %s, %s, %u;", D, D, rn(g, 4));
                emit(g, "and.b32 %s, %s, %u;", D, D, lim - 1); break;
        }
        break;
    }
    case 4: { /* a 2-D tile: row pitch W >= bx, maybe padded */
        uint32_t W = g->bx + (uint32_t[]){0, 0, 1, 4, 32}[rn(g, 5)];
        uint64_t mx = (uint64_t)W * g->by * g->bz;
        bool swap = chance(g, 30); /* transposed: tid.x walks the rows */
        if (mx >= lim) W = g->bx, swap = false;
        if (swap) {
            uint32_t H = g->by;
            emit(g, "mul.lo.s32 %s, %s, %u;", D, R(T_U32, g->tx), H);
            emit(g, "add.s32 %s, %s, %s;", D, D, R(T_U32, g->ty));
            emit(g, "mad.lo.s32 %s, %s, %u, %s;", D, R(T_U32, g->tz), g->bx * H, D);
        } else {
            emit(g, "mad.lo.s32 %s, %s, %u, %s;", D, R(T_U32, g->ty), W, R(T_U32, g->tx));
            emit(g, "mad.lo.s32 %s, %s, %u, %s;", D, R(T_U32, g->tz), W * g->by, D);
        }
        break;
    }
    case 5: /* uniform: the same element in every lane */
        emit(g, "and.b32 %s, %s, %u;", D, R(T_U32, g->kpar), (lim - 1) & ~(uscale - 1));
        break;
    default: { /* a gather through a loaded index */
        unsigned a = tmp(g, T_U64), v = tmp(g, T_U32);
        emit(g, "mul.wide.u32 %s, %s, 4;", R(T_U64, a), R(T_U32, g->gtid));
        emit(g, "add.s64 %s, %s, %s;", R(T_U64, a), R(T_U64, g->rd_in), R(T_U64, a));
        emit(g, "ld.global.u32 %s, [%s];", R(T_U32, v), R(T_U64, a));
        emit(g, "and.b32 %s, %s, %u;", D, R(T_U32, v), lim - 1);
        break;
    }
    }
    return r;
}

/* ---- memory ---------------------------------------------------------------------------------------- */

static void global_load(gen *g, const ctx *c)
{
    static const struct {
        const char *op;
        unsigned es, vec;
        int t;
    } L[] = {{"u32", 4, 1, T_U32}, {"u32", 4, 1, T_U32}, {"u8", 1, 1, T_U32},  {"s16", 2, 1, T_U32},
             {"u64", 8, 1, T_U64}, {"f32", 4, 1, T_F32}, {"f64", 8, 1, T_F64}, {"v2.u32", 8, 2, T_U32},
             {"v4.u32", 16, 4, T_U32}, {"u16", 2, 1, T_U16}};
    unsigned w = rn(g, sizeof L / sizeof *L);
    uint32_t lim = g->nin * 4 / L[w].es / 2; /* half: room for the constant offset */
    unsigned idx = index_expr(g, c, lim, 128 / L[w].es, true);
    unsigned a = tmp(g, T_U64);
    emit(g, "mul.wide.u32 %s, %s, %u;", R(T_U64, a), R(T_U32, idx), L[w].es);
    emit(g, "add.s64 %s, %s, %s;", R(T_U64, a), R(T_U64, g->rd_in), R(T_U64, a));
    unsigned off = chance(g, 30) ? L[w].es * rn(g, 40) : 0;
    const char *cache = (const char *[]){"", "", "", ".nc", ".ca", ".cg"}[rn(g, 6)];
    char gd[24];
    guard(g, gd, sizeof gd, L[w].vec == 1);
    if (L[w].vec == 1) {
        unsigned d = gd[0] ? redef(g, L[w].t) : dest(g, L[w].t);
        emit(g, "%sld.global%s.%s %s, [%s+%u];", gd, cache, L[w].op, R(L[w].t, d), R(T_U64, a), off);
    } else {
        unsigned d[4];
        for (unsigned i = 0; i < L[w].vec; i++) d[i] = tmp(g, T_U32);
        if (L[w].vec == 2)
            emit(g, "ld.global%s.%s {%s, %s}, [%s+%u];", cache, L[w].op, R(T_U32, d[0]), R(T_U32, d[1]),
                 R(T_U64, a), off);
        else
            emit(g, "ld.global%s.%s {%s, %s, %s, %s}, [%s+%u];", cache, L[w].op, R(T_U32, d[0]), R(T_U32, d[1]),
                 R(T_U32, d[2]), R(T_U32, d[3]), R(T_U64, a), off);
    }
}

/* One store site: a new slot of one region of out, written by every
 * thread that reaches it, at its own address (no two threads share one). */
static void global_store(gen *g)
{
    unsigned reg = rn(g, 4);
    if (g->slot[reg] >= NSLOTS) return;
    unsigned j = g->slot[reg]++;
    char gd[24];
    guard(g, gd, sizeof gd, true);
    switch (reg) {
    case 0: emit(g, "%sst.global.u32 [%s+%u], %s;", gd, R(T_U64, g->rd_oa), j * g->TT * 4, R(T_U32, pick(g, T_U32)));
        break;
    case 1: emit(g, "%sst.global.u32 [%s+%u], %s;", gd, R(T_U64, g->rd_ob), j * 4, R(T_U32, pick(g, T_U32))); break;
    case 2:
        if (chance(g, 50))
            emit(g, "%sst.global.u16 [%s+%u], %s;", gd, R(T_U64, g->rd_oc), j * g->TT * 4, R(T_U16, pick(g, T_U16)));
        else
            emit(g, "%sst.global.u8 [%s+%u], %s;", gd, R(T_U64, g->rd_oc), j * g->TT * 4, R(T_U16, pick(g, T_U16)));
        break;
    default:
        if (chance(g, 50))
            emit(g, "%sst.global.u64 [%s+%u], %s;", gd, R(T_U64, g->rd_od), j * g->TT * 8, R(T_U64, pick(g, T_U64)));
        else
            emit(g, "%sst.global.f64 [%s+%u], %s;", gd, R(T_U64, g->rd_od), j * g->TT * 8, R(T_F64, pick(g, T_F64)));
        break;
    }
}

/* A reduction into the block's counters: commutative, so the result does
 * not depend on the order. */
static void global_red(gen *g)
{
    static const char *const op[] = {"add.u32", "min.u32", "max.u32", "xor.b32", "or.b32", "and.b32"};
    unsigned o = rn(g, 6); /* one operation per word: add and min do not commute */
    emit(g, "red.global.%s [%s+%u], %s;", op[o], R(T_U64, g->rd_cnt), 4 * o, R(T_U32, pick(g, T_U32)));
}

/* A shared read at one of the modelled patterns (u32 or f32). */
static void shared_read(gen *g, const ctx *c)
{
    unsigned idx;
    if (chance(g, 25)) { /* stride s over the linear id, wrapping */
        idx = tmp(g, T_U32);
        emit(g, "mul.lo.s32 %s, %s, %u;", R(T_U32, idx), R(T_U32, g->tlin), (uint32_t[]){1, 2, 3, 4, 8, 16, 32, 33}[rn(g, 8)]);
        emit(g, "and.b32 %s, %s, %u;", R(T_U32, idx), R(T_U32, idx), g->shn - 1);
    } else
        idx = index_expr(g, c, g->shn, 1, true);
    unsigned a = tmp(g, T_U32);
    emit(g, "shl.b32 %s, %s, 2;", R(T_U32, a), R(T_U32, idx));
    emit(g, "add.s32 %s, %s, %s;", R(T_U32, a), R(T_U32, g->shb), R(T_U32, a));
    if (chance(g, 75)) emit(g, "ld.shared.u32 %s, [%s];", R(T_U32, dest(g, T_U32)), R(T_U32, a));
    else emit(g, "ld.shared.f32 %s, [%s];", R(T_F32, dest(g, T_F32)), R(T_U32, a));
}

/* ---- statements ---------------------------------------------------------------------------------- */

static void stmts(gen *g, ctx c, int n);

static void scope_end(gen *g, unsigned mark)
{
    g->f->ntmp = mark;
    g->f->npend = 0;
}

static void flush(gen *g)
{
    fnst *f = g->f;
    for (unsigned i = 0; i < f->npend && f->ntmp < MAXTMP; i++) f->tmp[f->ntmp++] = f->pend[i];
    f->npend = 0;
}

/* A condition into a new predicate; *kind: 0 divergent, 1 uniform over the
 * block, 2 a lane condition (laneid & 1<<*bit). */
static unsigned cond(gen *g, const ctx *c, int *kind, unsigned *bit)
{
    unsigned p = newpred(g);
    unsigned r = rn(g, 100);
    if (r < 20 && g->f->is_kernel && c->cmask) {
        *kind = 2;
        unsigned b;
        do b = rn(g, 5); while (c->lbits >> b & 1);
        *bit = b;
        unsigned t = tmp(g, T_U32);
        emit(g, "and.b32 %s, %s, %u;", R(T_U32, t), R(T_U32, g->lane), 1u << b);
        emit(g, "setp.ne.u32 %s, %s, 0;", P(p), R(T_U32, t));
        return p;
    }
    if (r < 40 && g->f->is_kernel) {
        *kind = 1;
        unsigned t = tmp(g, T_U32);
        if (chance(g, 50)) emit(g, "and.b32 %s, %s, %u;", R(T_U32, t), R(T_U32, g->kpar), 1u << rn(g, 3));
        else emit(g, "and.b32 %s, %s, 1;", R(T_U32, t), R(T_U32, g->bid));
        emit(g, "setp.%s.u32 %s, %s, 0;", chance(g, 50) ? "eq" : "ne", P(p), R(T_U32, t));
        return p;
    }
    *kind = 0;
    if (g->f->is_kernel && chance(g, 30)) { /* on the thread index */
        unsigned t = tmp(g, T_U32);
        const unsigned src[3] = {g->tx, g->ty, g->tlin};
        emit(g, "and.b32 %s, %s, %u;", R(T_U32, t), R(T_U32, src[rn(g, 3)]), 1u + rn(g, 15));
        emit(g, "setp.%s.u32 %s, %s, %u;", chance(g, 50) ? "lt" : "eq", P(p), R(T_U32, t), rn(g, 8));
    } else if (chance(g, 20)) {
        emit(g, "setp.lt.f32 %s, %s, %s;", P(p), R(T_F32, pick(g, T_F32)), R(T_F32, pick(g, T_F32)));
    } else if (chance(g, 20)) { /* a compound predicate */
        unsigned q = newpred(g);
        emit(g, "setp.ne.u32 %s, %s, %s;", P(q), R(T_U32, pick(g, T_U32)), opnd32(g));
        emit(g, "setp.lt.%s.u32 %s, %s, %s, %s;", chance(g, 50) ? "and" : "or", P(p), R(T_U32, pick(g, T_U32)),
             opnd32(g), P(q));
    } else {
        emit(g, "setp.%s.u32 %s, %s, %s;", (const char *[]){"lt", "hi", "ne", "eq", "ls"}[rn(g, 5)], P(p),
             R(T_U32, pick(g, T_U32)), opnd32(g));
    }
    return p;
}

static void if_else(gen *g, ctx c)
{
    g->k->nbranches++;
    unsigned mark = g->f->ntmp;
    int kind;
    unsigned bit = 0;
    unsigned p = cond(g, &c, &kind, &bit);
    int lelse = newlab(g), lend = newlab(g);
    bool has_else = chance(g, 60);
    bool shortc = kind == 0 && chance(g, 25);
    bool into_else = kind == 0 && has_else && chance(g, 25);
    ctx t = c, e = c;
    t.depth = e.depth = c.depth + 1;
    if (kind == 0) {
        t.conv = e.conv = false;
        t.cmask = e.cmask = 0;
    } else if (kind == 2) {
        t.conv = e.conv = false;
        uint32_t cls = 0;
        for (unsigned l = 0; l < 32; l++)
            if (l >> bit & 1) cls |= 1u << l;
        t.cmask = c.cmask & cls;
        e.cmask = c.cmask & ~cls;
        t.lbits = e.lbits = c.lbits | 1u << bit;
    }
    emit(g, "@!%s bra $L_%d;", P(p), has_else ? lelse : lend);
    if (shortc) {
        unsigned q = cond(g, &c, &kind, &bit);
        emit(g, "@!%s bra $L_%d;", P(q), has_else ? lelse : lend);
    }
    int lmid = into_else ? newlab(g) : -1;
    flush(g); /* the condition's temporaries: defined on both paths */
    unsigned tmark = g->f->ntmp;
    int n1 = 1 + rn(g, 4), n2 = 1 + rn(g, 4);
    if (into_else) {
        stmts(g, t, n1 / 2 + 1);
        unsigned q = cond(g, &t, &kind, &bit);
        emit(g, "@%s bra $L_%d;", P(q), lmid);
        stmts(g, t, n1 - n1 / 2);
    } else
        stmts(g, t, n1);
    scope_end(g, tmark);
    if (has_else) {
        emit(g, "bra.uni $L_%d;", lend);
        label(g, lelse);
        if (into_else) {
            stmts(g, e, n2 / 2 + 1);
            scope_end(g, tmark); /* not defined on the path from the then-part */
            label(g, lmid);
            stmts(g, e, n2 - n2 / 2);
        } else
            stmts(g, e, n2);
    }
    label(g, lend);
    scope_end(g, mark);
}

static void loop(gen *g, ctx c)
{
    if (c.depth > 3) return;
    g->k->nloops++;
    unsigned mark = g->f->ntmp;
    unsigned trip = tmp(g, T_U32), i = tmp(g, T_U32);
    unsigned tk = rn(g, 4), tmax;
    bool warp_uniform = true, block_uniform = true;
    switch (tk) {
    case 0: tmax = 1 + rn(g, 5); emit(g, "mov.u32 %s, %u;", R(T_U32, trip), tmax); break;
    case 1: tmax = 4; emit(g, "and.b32 %s, %s, 3;", R(T_U32, trip), R(T_U32, g->kpar));
            emit(g, "add.s32 %s, %s, 1;", R(T_U32, trip), R(T_U32, trip)); break;
    case 2: tmax = 4; emit(g, "and.b32 %s, %s, 3;", R(T_U32, trip), R(T_U32, g->f->is_kernel ? g->tx : pick(g, T_U32)));
            emit(g, "add.s32 %s, %s, 1;", R(T_U32, trip), R(T_U32, trip));
            warp_uniform = block_uniform = false; break;
    default: tmax = 3; emit(g, "and.b32 %s, %s, 3;", R(T_U32, trip), R(T_U32, pick(g, T_U32)));
             emit(g, "min.u32 %s, %s, 3;", R(T_U32, trip), R(T_U32, trip));
             warp_uniform = block_uniform = false; break;
    }
    bool brk = chance(g, 25), cont = chance(g, 20), top = chance(g, 40);
    int lhead = newlab(g), lcont = newlab(g), lend = newlab(g);
    ctx b = c;
    b.depth = c.depth + 1;
    b.lab_brk = brk ? lend : -1;
    b.lab_cont = cont ? lcont : -1;
    if (!warp_uniform || brk || cont) b.cmask = 0;
    if (!block_uniform || brk || cont) b.conv = false;
    b.loop_var = warp_uniform ? i : UINT32_MAX;
    b.loop_max = tmax - 1;
    emit(g, "mov.u32 %s, 0;", R(T_U32, i));
    label(g, lhead);
    if (top) {
        unsigned p = newpred(g);
        emit(g, "setp.ge.u32 %s, %s, %s;", P(p), R(T_U32, i), R(T_U32, trip));
        emit(g, "@%s bra $L_%d;", P(p), lend);
    }
    stmts(g, b, 1 + rn(g, 5));
    label(g, lcont);
    emit(g, "add.s32 %s, %s, 1;", R(T_U32, i), R(T_U32, i));
    if (top) emit(g, "bra.uni $L_%d;", lhead);
    else {
        unsigned p = newpred(g);
        emit(g, "setp.lt.u32 %s, %s, %s;", P(p), R(T_U32, i), R(T_U32, trip));
        emit(g, "@%s bra $L_%d;", P(p), lhead);
    }
    label(g, lend);
    scope_end(g, mark);
}

/* A warp collective over exactly the lanes that run it: fm & c.cmask. */
static void collective(gen *g, const ctx *c)
{
    g->k->ncoll++;
    unsigned m = tmp(g, T_U32);
    emit(g, "and.b32 %s, %s, %u;", R(T_U32, m), R(T_U32, g->fm), c->cmask);
    const char *M = R(T_U32, m);
    unsigned d = dest(g, T_U32);
    const char *D = R(T_U32, d), *a = R(T_U32, pick(g, T_U32));
    unsigned w = rn(g, 7);
    if (w == 0 && !g->full) w = 1;
    switch (w) {
    case 0: { /* shfl: a source lane that runs it (bfly over free lane bits) */
        uint32_t free = ~c->lbits & 31;
        if (c->cmask == 0xffffffffu && chance(g, 60)) {
            const char *mode = (const char *[]){"idx", "up", "down", "bfly"}[rn(g, 4)];
            uint32_t clamp = chance(g, 50) ? 0x1f : (uint32_t[]){0x181f, 0x1c1f, 0x1e1f, 0x0}[rn(g, 4)];
            if (!strcmp(mode, "up")) clamp &= 0x1f00;
            if (chance(g, 40))
                emit(g, "shfl.sync.%s.b32 %s, %s, %s, %u, %s;", mode, D, a, R(T_U32, pick(g, T_U32)), clamp, M);
            else {
                unsigned p = newpred(g);
                emit(g, "shfl.sync.%s.b32 %s|%s, %s, %u, %u, %s;", mode, D, P(p), a, rn(g, 32), clamp, M);
                emit(g, "@%s add.s32 %s, %s, 1;", P(p), D, D);
            }
        } else if (free) {
            uint32_t x = (1u + rn(g, 31)) & free;
            if (!x) x = free & -free;
            emit(g, "shfl.sync.bfly.b32 %s, %s, %u, 31, %s;", D, a, x, M);
        }
        break;
    }
    case 1: {
        unsigned p = newpred(g);
        emit(g, "setp.ne.u32 %s, %s, %s;", P(p), a, opnd32(g));
        emit(g, "vote.sync.ballot.b32 %s, %s, %s;", D, P(p), M);
        break;
    }
    case 2: {
        unsigned p = newpred(g), q = newpred(g);
        emit(g, "setp.lt.u32 %s, %s, %s;", P(p), a, opnd32(g));
        emit(g, "vote.sync.%s.pred %s, %s, %s;", (const char *[]){"any", "all", "uni"}[rn(g, 3)], P(q), P(p), M);
        emit(g, "selp.b32 %s, %s, %s, %s;", D, R(T_U32, pick(g, T_U32)), opnd32(g), P(q));
        break;
    }
    case 3:
    case 4:
        emit(g, "redux.sync.%s %s, %s, %s;",
             (const char *[]){"add.u32", "min.u32", "max.s32", "and.b32", "or.b32", "xor.b32", "add.s32"}[rn(g, 7)], D,
             a, M);
        break;
    case 5: emit(g, "match.any.sync.b32 %s, %s, %s;", D, a, M); break;
    default: {
        unsigned p = newpred(g);
        emit(g, "match.all.sync.b32 %s|%s, %s, %s;", D, P(p), a, M);
        emit(g, "@!%s xor.b32 %s, %s, 0x55;", P(p), D, D);
        break;
    }
    }
}

/* Shared memory, block-wide: every thread writes its own slots, a barrier,
 * reads at a pattern, a barrier (so the next writes wait for the reads). */
static void shared_phase(gen *g, const ctx *c)
{
    g->k->nbar += 3;
    /* free reads (stmt) since the last barrier may read the slots written here */
    emit(g, "bar.sync 0;");
    uint32_t S = 1;
    while (S * 2 * g->T <= g->shn && chance(g, 40)) S *= 2;
    if (chance(g, 20) && 3 * g->T <= g->shn) S = 3;
    unsigned a = tmp(g, T_U32);
    emit(g, "mul.lo.s32 %s, %s, %u;", R(T_U32, a), R(T_U32, g->tlin), S * 4);
    emit(g, "add.s32 %s, %s, %s;", R(T_U32, a), R(T_U32, g->shb), R(T_U32, a));
    unsigned nw = 1 + rn(g, S);
    for (unsigned j = 0; j < nw; j++) emit(g, "st.shared.u32 [%s+%u], %s;", R(T_U32, a), 4 * j, R(T_U32, pick(g, T_U32)));
    if (chance(g, 20))
        emit(g, "st.shared.f32 [%s+%u], %s;", R(T_U32, a), 4 * rn(g, S), R(T_F32, pick(g, T_F32)));
    emit(g, "bar.sync 0;");
    unsigned nr = 1 + rn(g, 3);
    for (unsigned j = 0; j < nr; j++) {
        shared_read(g, c);
        if (chance(g, 50)) arith(g);
    }
    if (chance(g, 15)) { /* a shared atomic on a word of the block's: order-free */
        emit(g, "bar.sync 0;");
        unsigned t = tmp(g, T_U32);
        emit(g, "and.b32 %s, %s, %u;", R(T_U32, t), R(T_U32, g->tlin), (g->shn - 1) & ~3u & (chance(g, 50) ? 0 : 0xfc));
        emit(g, "add.s32 %s, %s, %s;", R(T_U32, t), R(T_U32, g->shb), R(T_U32, t));
        emit(g, "red.shared.add.u32 [%s], %s;", R(T_U32, t), R(T_U32, pick(g, T_U32)));
        emit(g, "bar.sync 0;");
        shared_read(g, c);
    }
    emit(g, "bar.sync 0;");
}

/* Shared memory within each warp: own slot, bar.warp.sync, a lane's slot
 * of the same warp, bar.warp.sync. */
static void warp_phase(gen *g)
{
    g->k->nbar += 4;
    emit(g, "bar.sync 0;"); /* free reads of other warps' slots end here */
    unsigned a = tmp(g, T_U32), b = tmp(g, T_U32);
    emit(g, "shl.b32 %s, %s, 2;", R(T_U32, a), R(T_U32, g->tlin));
    emit(g, "add.s32 %s, %s, %s;", R(T_U32, a), R(T_U32, g->shb), R(T_U32, a));
    emit(g, "st.shared.u32 [%s], %s;", R(T_U32, a), R(T_U32, pick(g, T_U32)));
    emit(g, "bar.warp.sync %s;", R(T_U32, g->fm));
    if (chance(g, 50)) emit(g, "xor.b32 %s, %s, %u;", R(T_U32, b), R(T_U32, g->lane), 1 + rn(g, 31));
    else emit(g, "and.b32 %s, %s, %u;", R(T_U32, b), R(T_U32, g->lane), rn(g, 32));
    emit(g, "mad.lo.s32 %s, %s, 32, %s;", R(T_U32, b), R(T_U32, g->warp), R(T_U32, b));
    emit(g, "shl.b32 %s, %s, 2;", R(T_U32, b), R(T_U32, b));
    emit(g, "add.s32 %s, %s, %s;", R(T_U32, b), R(T_U32, g->shb), R(T_U32, b));
    emit(g, "ld.shared.u32 %s, [%s];", R(T_U32, dest(g, T_U32)), R(T_U32, b));
    emit(g, "bar.warp.sync %s;", R(T_U32, g->fm));
    emit(g, "bar.sync 0;"); /* before free reads of this warp's slots by other warps */
}

static void call(gen *g)
{
    if (!g->nfuncs) return;
    g->k->ncalls++;
    unsigned f = rn(g, g->nfuncs);
    unsigned d = dest(g, T_U32);
    emit(g, "{");
    emit(g, ".param .b32 fz_a0;");
    emit(g, "st.param.b32 [fz_a0], %s;", R(T_U32, pick(g, T_U32)));
    emit(g, ".param .b32 fz_a1;");
    emit(g, "st.param.b32 [fz_a1], %s;", R(T_U32, pick(g, T_U32)));
    emit(g, ".param .b32 fz_rv;");
    emit(g, "call.uni (fz_rv), fz_f%u, (fz_a0, fz_a1);", f);
    emit(g, "ld.param.b32 %s, [fz_rv];", R(T_U32, d));
    emit(g, "}");
}

static void stmt(gen *g, const ctx *c)
{
    flush(g);
    g->budget--;
    unsigned r = rn(g, 100);
    bool kern = g->f->is_kernel;
    if (r < 34) arith(g);
    else if (r < 44 && kern) global_load(g, c);
    else if (r < 50 && kern) global_store(g);
    else if (r < 52 && kern) global_red(g);
    else if (r < 60 && c->depth < 4) if_else(g, *c);
    else if (r < 66 && c->depth < 3) loop(g, *c);
    else if (r < 72 && kern && c->cmask) collective(g, c);
    else if (r < 75 && kern && c->conv) shared_phase(g, c);
    else if (r < 77 && kern && c->conv) warp_phase(g);
    else if (r < 80 && kern) shared_read(g, c); /* of the last phase's data: no writes race with it */
    else if (r < 83 && kern) call(g);
    else if (r < 86 && (c->lab_brk >= 0 || c->lab_cont >= 0)) {
        unsigned p = newpred(g);
        emit(g, "setp.%s.u32 %s, %s, %s;", chance(g, 50) ? "lt" : "eq", P(p), R(T_U32, pick(g, T_U32)), opnd32(g));
        emit(g, "@%s bra $L_%d;", P(p), c->lab_brk >= 0 && (c->lab_cont < 0 || chance(g, 50)) ? c->lab_brk : c->lab_cont);
    } else arith(g);
}

static void stmts(gen *g, ctx c, int n)
{
    for (int i = 0; i < n && g->budget > 0; i++) stmt(g, &c);
    flush(g);
}

/* ---- functions ----------------------------------------------------------------------------------- */

static void decls(sb *out, const fnst *f)
{
    for (int t = 0; t < T_NT; t++)
        if (f->nreg[t]) sbf(out, "\t.reg %s \t%s<%u>;\n", rdecl[t], rpre[t], f->nreg[t]);
    if (f->npred) sbf(out, "\t.reg .pred \t%%p<%u>;\n", f->npred);
}

static void pool_init(gen *g, unsigned counts[T_NT], unsigned seedreg)
{
    fnst *f = g->f;
    for (int t = 0; t < T_NT; t++)
        for (unsigned i = 0; i < counts[t] && i < MAXPOOL; i++) {
            unsigned r = newreg(g, t);
            f->pool[t][f->npool[t]++] = r;
            uint32_t k = (uint32_t)rnd(g);
            const char *s = R(T_U32, seedreg);
            switch (t) {
            case T_U32: emit(g, "xor.b32 %s, %s, %u;", R(t, r), s, k); break;
            case T_U64: emit(g, "mul.wide.u32 %s, %s, %u;", R(t, r), s, k | 1); break;
            case T_F32: emit(g, "cvt.rn.f32.u32 %s, %s;", R(t, r), s);
                        emit(g, "mul.rn.f32 %s, %s, 0f3E800000;", R(t, r), R(t, r)); break;
            case T_F64: emit(g, "cvt.rn.f64.u32 %s, %s;", R(t, r), s); break;
            default: emit(g, "cvt.u16.u32 %s, %s;", R(t, r), s); break;
            }
            if (t == T_U32) seedreg = r;
        }
}

/* Folds every pool value into one u32 (the function's or kernel's result). */
static unsigned fold(gen *g)
{
    fnst *f = g->f;
    unsigned acc = newreg(g, T_U32);
    emit(g, "mov.u32 %s, 0;", R(T_U32, acc));
    for (int t = 0; t < T_NT; t++)
        for (unsigned i = 0; i < f->npool[t]; i++) {
            unsigned v = f->pool[t][i], x = newreg(g, T_U32);
            switch (t) {
            case T_U32: x = v; break;
            case T_U64: emit(g, "cvt.u32.u64 %s, %s;", R(T_U32, x), R(t, v)); break;
            case T_F32: emit(g, "mov.b32 %s, %s;", R(T_U32, x), R(t, v)); break;
            case T_F64: {
                unsigned y = newreg(g, T_U64);
                emit(g, "mov.b64 %s, %s;", R(T_U64, y), R(t, v));
                emit(g, "cvt.u32.u64 %s, %s;", R(T_U32, x), R(T_U64, y));
                break;
            }
            default: emit(g, "cvt.u32.u16 %s, %s;", R(T_U32, x), R(t, v)); break;
            }
            emit(g, "mad.lo.s32 %s, %s, 31, %s;", R(T_U32, acc), R(T_U32, acc), R(T_U32, x));
        }
    return acc;
}

static void gen_func(gen *g, unsigned id, sb *out)
{
    fnst F;
    memset(&F, 0, sizeof F);
    fnst *save = g->f;
    g->f = &F;
    unsigned a = newreg(g, T_U32), b = newreg(g, T_U32);
    emit(g, "ld.param.u32 %s, [fz_f%u_a];", R(T_U32, a), id);
    emit(g, "ld.param.u32 %s, [fz_f%u_b];", R(T_U32, b), id);
    F.pool[T_U32][F.npool[T_U32]++] = a;
    F.pool[T_U32][F.npool[T_U32]++] = b;
    unsigned counts[T_NT] = {1 + rn(g, 4), 1, 1, 1, 1};
    pool_init(g, counts, b);
    ctx c = {.conv = false, .cmask = 0, .depth = 1, .lab_brk = -1, .lab_cont = -1, .loop_var = UINT32_MAX};
    int save_budget = g->budget;
    g->budget = 4 + rn(g, 10);
    stmts(g, c, g->budget);
    g->budget = save_budget;
    unsigned acc = fold(g);
    emit(g, "st.param.b32 [fz_f%u_ret], %s;", id, R(T_U32, acc));
    emit(g, "ret;");
    sbf(out, ".func (.param .b32 fz_f%u_ret) fz_f%u(\n\t.param .b32 fz_f%u_a,\n\t.param .b32 fz_f%u_b\n)\n{\n", id, id,
        id, id);
    decls(out, &F);
    sbf(out, "\n%s}\n\n", F.body.p ? F.body.p : "");
    free(F.body.p);
    g->f = save;
}

/* ---- the kernel ---------------------------------------------------------------------------------- */

static void launch_shape(gen *g)
{
    static const uint32_t shapes[][3] = {
        {32, 1, 1}, {64, 1, 1}, {128, 1, 1}, {256, 1, 1}, {96, 1, 1}, {8, 4, 1},  {4, 8, 1},  {16, 2, 1},
        {16, 4, 2}, {8, 8, 4},  {32, 2, 1}, {32, 4, 2},  {4, 4, 2},  {2, 16, 1}, {16, 16, 1}, {8, 2, 2},
        {48, 1, 1}, {40, 1, 1}, {8, 3, 1},  {20, 3, 1},  {100, 1, 1}, {6, 6, 1},
    };
    unsigned i = rn(g, sizeof shapes / sizeof *shapes);
    g->bx = shapes[i][0], g->by = shapes[i][1], g->bz = shapes[i][2];
    g->gx = 1 + rn(g, 3);
    g->gy = chance(g, 25) ? 2 : 1;
    g->T = g->bx * g->by * g->bz;
    g->NB = g->gx * g->gy;
    g->TP = (g->T + 31) / 32 * 32;
    g->TT = g->TP * g->NB; /* the padded grid: gtid < TT */
    g->full = g->T % 32 == 0;
    g->nin = 1u << 14;
    g->shn = 64;
    while (g->shn < 2 * g->T) g->shn *= 2;
    if (chance(g, 30) && g->shn * 8 <= 16384) g->shn *= 2;
}

void fz_generate(uint64_t seed, fz_kernel *k)
{
    memset(k, 0, sizeof *k);
    k->seed = seed;
    gen G;
    memset(&G, 0, sizeof G);
    gen *g = &G;
    g->s = seed * 0x2545f4914f6cdd1dull + 35;
    g->k = k;
    launch_shape(g);
    snprintf(k->kernel, sizeof k->kernel, "fz_k");
    sb out = {0};
    sbf(&out, "// generated by fuzz/gen (ptxray difftest), seed %llu\n", (unsigned long long)seed);
    sbf(&out, ".version 8.0\n.target sm_80\n.address_size 64\n\n");
    uint32_t shbytes = g->shn * 4;
    sbf(&out, ".shared .align 16 .b8 fz_sh[%u];\n\n", shbytes);
    g->nfuncs = rn(g, 3);
    for (unsigned f = 0; f < g->nfuncs; f++) gen_func(g, f, &out);
    k->nstmts = 0;

    fnst F;
    memset(&F, 0, sizeof F);
    F.is_kernel = true;
    g->f = &F;
    /* entry: coordinates, ids, the member mask, the pointers */
    unsigned rin = newreg(g, T_U64), rout = newreg(g, T_U64);
    g->kpar = newreg(g, T_U32);
    emit(g, "ld.param.u64 %s, [fz_k_in];", R(T_U64, rin));
    emit(g, "ld.param.u64 %s, [fz_k_out];", R(T_U64, rout));
    emit(g, "ld.param.u32 %s, [fz_k_k];", R(T_U32, g->kpar));
    g->rd_in = newreg(g, T_U64);
    emit(g, "cvta.to.global.u64 %s, %s;", R(T_U64, g->rd_in), R(T_U64, rin));
    unsigned ro = newreg(g, T_U64);
    emit(g, "cvta.to.global.u64 %s, %s;", R(T_U64, ro), R(T_U64, rout));
    g->tx = newreg(g, T_U32), g->ty = newreg(g, T_U32), g->tz = newreg(g, T_U32);
    emit(g, "mov.u32 %s, %%tid.x;", R(T_U32, g->tx));
    emit(g, "mov.u32 %s, %%tid.y;", R(T_U32, g->ty));
    emit(g, "mov.u32 %s, %%tid.z;", R(T_U32, g->tz));
    unsigned ntx = newreg(g, T_U32), nty = newreg(g, T_U32), ntz = newreg(g, T_U32);
    emit(g, "mov.u32 %s, %%ntid.x;", R(T_U32, ntx));
    emit(g, "mov.u32 %s, %%ntid.y;", R(T_U32, nty));
    emit(g, "mov.u32 %s, %%ntid.z;", R(T_U32, ntz));
    g->tlin = newreg(g, T_U32);
    emit(g, "mad.lo.s32 %s, %s, %s, %s;", R(T_U32, g->tlin), R(T_U32, g->tz), R(T_U32, nty), R(T_U32, g->ty));
    emit(g, "mad.lo.s32 %s, %s, %s, %s;", R(T_U32, g->tlin), R(T_U32, g->tlin), R(T_U32, ntx), R(T_U32, g->tx));
    unsigned nt = newreg(g, T_U32);
    emit(g, "mul.lo.s32 %s, %s, %s;", R(T_U32, nt), R(T_U32, ntx), R(T_U32, nty));
    emit(g, "mul.lo.s32 %s, %s, %s;", R(T_U32, nt), R(T_U32, nt), R(T_U32, ntz));
    g->lane = newreg(g, T_U32);
    emit(g, "mov.u32 %s, %%laneid;", R(T_U32, g->lane));
    g->warp = newreg(g, T_U32);
    emit(g, "shr.u32 %s, %s, 5;", R(T_U32, g->warp), R(T_U32, g->tlin));
    unsigned cx = newreg(g, T_U32), cy = newreg(g, T_U32), ncx = newreg(g, T_U32);
    emit(g, "mov.u32 %s, %%ctaid.x;", R(T_U32, cx));
    emit(g, "mov.u32 %s, %%ctaid.y;", R(T_U32, cy));
    emit(g, "mov.u32 %s, %%nctaid.x;", R(T_U32, ncx));
    g->bid = newreg(g, T_U32);
    emit(g, "mad.lo.s32 %s, %s, %s, %s;", R(T_U32, g->bid), R(T_U32, cy), R(T_U32, ncx), R(T_U32, cx));
    g->gtid = newreg(g, T_U32);
    emit(g, "mad.lo.s32 %s, %s, %u, %s;", R(T_U32, g->gtid), R(T_U32, g->bid), g->TP, R(T_U32, g->tlin));
    /* the warp's lanes: (1 << min(T - 32·warp, 32)) - 1, shl by 32 giving 0 */
    g->fm = newreg(g, T_U32);
    unsigned nl = newreg(g, T_U32);
    emit(g, "shl.b32 %s, %s, 5;", R(T_U32, nl), R(T_U32, g->warp));
    emit(g, "sub.s32 %s, %s, %s;", R(T_U32, nl), R(T_U32, nt), R(T_U32, nl));
    emit(g, "min.u32 %s, %s, 32;", R(T_U32, nl), R(T_U32, nl));
    emit(g, "mov.u32 %s, 1;", R(T_U32, g->fm));
    emit(g, "shl.b32 %s, %s, %s;", R(T_U32, g->fm), R(T_U32, g->fm), R(T_U32, nl));
    emit(g, "sub.s32 %s, %s, 1;", R(T_U32, g->fm), R(T_U32, g->fm));
    /* out's regions (fzgen.h): A transposed u32, B per-thread u32, C
     * transposed u16 (slots 4·TT bytes apart), D transposed u64, then 8
     * counters per block (128 bytes apart): every uniform part of a store
     * address a multiple of 128 bytes */
    uint64_t A = 0, B = A + (uint64_t)NSLOTS * g->TT * 4, C = B + (uint64_t)NSLOTS * g->TT * 4,
             D = C + (uint64_t)NSLOTS * g->TT * 4, E = D + (uint64_t)NSLOTS * g->TT * 8, END = E + 128ull * g->NB;
    g->rd_oa = newreg(g, T_U64), g->rd_ob = newreg(g, T_U64), g->rd_oc = newreg(g, T_U64), g->rd_od = newreg(g, T_U64);
    g->rd_cnt = newreg(g, T_U64);
    unsigned w = newreg(g, T_U64);
    emit(g, "mul.wide.u32 %s, %s, 4;", R(T_U64, w), R(T_U32, g->gtid));
    emit(g, "add.s64 %s, %s, %s;", R(T_U64, g->rd_oa), R(T_U64, ro), R(T_U64, w));
    emit(g, "mul.wide.u32 %s, %s, %u;", R(T_U64, w), R(T_U32, g->gtid), NSLOTS * 4);
    emit(g, "add.s64 %s, %s, %s;", R(T_U64, g->rd_ob), R(T_U64, ro), R(T_U64, w));
    emit(g, "add.s64 %s, %s, %llu;", R(T_U64, g->rd_ob), R(T_U64, g->rd_ob), (unsigned long long)B);
    emit(g, "mul.wide.u32 %s, %s, 2;", R(T_U64, w), R(T_U32, g->gtid));
    emit(g, "add.s64 %s, %s, %s;", R(T_U64, g->rd_oc), R(T_U64, ro), R(T_U64, w));
    emit(g, "add.s64 %s, %s, %llu;", R(T_U64, g->rd_oc), R(T_U64, g->rd_oc), (unsigned long long)C);
    emit(g, "mul.wide.u32 %s, %s, 8;", R(T_U64, w), R(T_U32, g->gtid));
    emit(g, "add.s64 %s, %s, %s;", R(T_U64, g->rd_od), R(T_U64, ro), R(T_U64, w));
    emit(g, "add.s64 %s, %s, %llu;", R(T_U64, g->rd_od), R(T_U64, g->rd_od), (unsigned long long)D);
    emit(g, "mul.wide.u32 %s, %s, 128;", R(T_U64, w), R(T_U32, g->bid));
    emit(g, "add.s64 %s, %s, %s;", R(T_U64, g->rd_cnt), R(T_U64, ro), R(T_U64, w));
    emit(g, "add.s64 %s, %s, %llu;", R(T_U64, g->rd_cnt), R(T_U64, g->rd_cnt), (unsigned long long)E);
    g->shb = newreg(g, T_U32);
    emit(g, "mov.u32 %s, fz_sh;", R(T_U32, g->shb));
    /* shared memory zeroed by a loop over the block (trip count differs by
     * thread where T does not divide it), then a barrier */
    {
        unsigned i = newreg(g, T_U32), a = newreg(g, T_U32), p = newpred(g);
        int l = newlab(g);
        emit(g, "mov.u32 %s, %s;", R(T_U32, i), R(T_U32, g->tlin));
        label(g, l);
        emit(g, "shl.b32 %s, %s, 2;", R(T_U32, a), R(T_U32, i));
        emit(g, "add.s32 %s, %s, %s;", R(T_U32, a), R(T_U32, g->shb), R(T_U32, a));
        emit(g, "st.shared.u32 [%s], %s;", R(T_U32, a), R(T_U32, i));
        emit(g, "add.s32 %s, %s, %s;", R(T_U32, i), R(T_U32, i), R(T_U32, nt));
        emit(g, "setp.lt.u32 %s, %s, %u;", P(p), R(T_U32, i), g->shn);
        emit(g, "@%s bra $L_%d;", P(p), l);
        emit(g, "bar.sync 0;");
    }
    /* the pool: values from the input, live to the end */
    unsigned seedv = newreg(g, T_U32);
    {
        unsigned a = newreg(g, T_U64);
        emit(g, "mul.wide.u32 %s, %s, 4;", R(T_U64, a), R(T_U32, g->gtid));
        emit(g, "add.s64 %s, %s, %s;", R(T_U64, a), R(T_U64, g->rd_in), R(T_U64, a));
        emit(g, "ld.global.u32 %s, [%s];", R(T_U32, seedv), R(T_U64, a));
    }
    unsigned big = chance(g, 40);
    unsigned counts[T_NT] = {big ? 16 + rn(g, 32) : 3 + rn(g, 10), 1 + rn(g, big ? 8 : 3), 1 + rn(g, big ? 8 : 4),
                             1 + rn(g, 3), 1 + rn(g, 3)};
    pool_init(g, counts, seedv);
    for (int t = 0; t < T_NT; t++) k->npool += F.npool[t];
    ctx c = {.conv = true, .cmask = 0xffffffffu, .lbits = 0, .depth = 0, .lab_brk = -1, .lab_cont = -1,
             .loop_var = UINT32_MAX};
    g->budget = 20 + (int)rn(g, 120);
    stmts(g, c, 1000);
    /* an early exit of some threads, then the results */
    if (chance(g, 25)) {
        int kind;
        unsigned bit;
        ctx e = c;
        e.cmask = 0;
        unsigned p = cond(g, &e, &kind, &bit);
        emit(g, "@%s bra $L_%d;", P(p), g->nlab);
        g->exited = true;
        global_store(g);
        emit(g, "exit;");
        label(g, newlab(g));
    }
    unsigned acc = fold(g);
    emit(g, "st.global.u32 [%s+%llu], %s;", R(T_U64, g->rd_ob), (unsigned long long)(NSLOTS - 1) * 4, R(T_U32, acc));
    emit(g, "ret;");

    sbf(&out, ".visible .entry fz_k(\n\t.param .u64 fz_k_in,\n\t.param .u64 fz_k_out,\n\t.param .u32 fz_k_k\n)\n{\n");
    decls(&out, &F);
    sbf(&out, "\n%s}\n", F.body.p);
    free(F.body.p);
    k->ptx = out.p;
    k->len = out.n;

    k->grid[0] = g->gx, k->grid[1] = g->gy, k->grid[2] = 1;
    k->block[0] = g->bx, k->block[1] = g->by, k->block[2] = g->bz;
    k->nargs = 3;
    snprintf(k->args[0], sizeof k->args[0], "buf:u32:%u:rand:%llu:0:4294967295", g->nin,
             (unsigned long long)(seed & 0xffffffffu));
    snprintf(k->args[1], sizeof k->args[1], "buf:u8:%llu", (unsigned long long)END);
    snprintf(k->args[2], sizeof k->args[2], "u32:%u", (uint32_t)rnd(g) & 0xffff);
    k->max_steps = 20000000;
}

void fz_free(fz_kernel *k)
{
    free(k->ptx);
    k->ptx = NULL;
}

void fz_launch_line(const fz_kernel *k, char *buf, size_t n)
{
    int o = snprintf(buf, n, "%s %u,%u,%u %u,%u,%u", k->kernel, k->grid[0], k->grid[1], k->grid[2], k->block[0],
                     k->block[1], k->block[2]);
    for (unsigned i = 0; i < k->nargs && o > 0 && (size_t)o < n; i++) o += snprintf(buf + o, n - (size_t)o, " %s", k->args[i]);
}
