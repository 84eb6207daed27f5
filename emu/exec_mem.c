/* Memory instructions: ld/ldu/st in every state space with vectors,
 * atom/red, cp.async (completed at issue), cvta, isspacep, and the
 * instructions with no visible effect here (fences, prefetches).
 *
 * Lanes are processed in ascending order: when several lanes of one
 * instruction store to the same address the highest lane's value remains,
 * and atomics of one warp instruction apply in lane order. */
#include <math.h>
#include <string.h>
#include "decode.h"
#include "fp.h"

static inline void addrs(emu_exec *x, const einst *I, uint32_t m, uint64_t *a)
{
    switch (I->am) {
    case AM_REG: {
        const uint64_t *B = REG(x, I->s[0]);
        uint64_t off = (uint64_t)I->imm;
        if (I->flags & EI_ADDR32) FOR_LANES(m, l, a[l] = (uint32_t)(B[l] + off));
        else FOR_LANES(m, l, a[l] = B[l] + off);
        break;
    }
    case AM_IMM: FOR_LANES(m, l, a[l] = (uint64_t)I->imm); break;
    default: {
        uint64_t v = x->f->local_base + (uint64_t)I->imm;
        FOR_LANES(m, l, a[l] = v);
        break;
    }
    }
}

/* Feeds the dynamic checks with the addresses of one warp access. */
static void checks(emu_exec *x, const einst *I, uint32_t m, const uint64_t *a, unsigned bytes, bool write,
                   bool atomic)
{
    unsigned ck = x->M->opt.checks;
    if (I->space == MS_GLOBAL) {
        if (ck & EMU_CHECK_COALESCING) emu_check_global(x, I, a, m, bytes);
        return;
    }
    if (I->space == MS_SHARED) {
        if (ck & (EMU_CHECK_RACE | EMU_CHECK_BANK)) emu_check_shared(x, I, a, m, bytes, write, atomic);
        return;
    }
    if (I->space != MS_GENERIC) return;
    uint32_t mg = 0, ms = 0;
    uint64_t sa[32];
    FOR_LANES(m, l, {
        unsigned sp = emu_generic_space(a[l]);
        if (sp == MS_GLOBAL) mg |= 1u << l;
        else if (sp == MS_SHARED) { ms |= 1u << l; sa[l] = a[l] - WIN_BASE(WIN_SHARED); }
    });
    if (mg && (ck & EMU_CHECK_COALESCING)) emu_check_global(x, I, a, mg, bytes);
    if (ms && (ck & (EMU_CHECK_RACE | EMU_CHECK_BANK))) emu_check_shared(x, I, sa, ms, bytes, write, atomic);
}

/* Spill traffic: bytes the active lanes move to and from the register
 * allocator's slots (emu_stats.spill_*); only for kernels that have them. */
static void count_spill(emu_exec *x, const einst *I, uint32_t m, const uint64_t *a, unsigned bytes, bool write)
{
    uint64_t lo, hi;
    if (I->space == MS_SHARED) {
        lo = x->M->ra_shared_lo, hi = x->M->ra_shared_hi;
    } else if (I->space == MS_LOCAL && x->f->fn->ra_local_hi) {
        lo = (uint64_t)x->f->local_base + x->f->fn->ra_local_lo;
        hi = (uint64_t)x->f->local_base + x->f->fn->ra_local_hi;
    } else {
        return;
    }
    uint64_t n = 0;
    FOR_LANES(m, l, n += a[l] >= lo && a[l] < hi);
    if (!n) return;
    emu_stats *S = &x->M->stats;
    uint64_t *c = I->space == MS_SHARED ? (write ? &S->spill_shared_st : &S->spill_shared_ld)
                                        : (write ? &S->spill_local_st : &S->spill_local_ld);
    *c += n * bytes;
}

/* Host address of one lane's access: the common global and shared cases
 * inline, everything else (and every error) through emu_xlate. */
static inline uint8_t *xl(emu_exec *x, const einst *I, uint64_t a, unsigned bytes, unsigned lane, bool write)
{
    if (I->space == MS_GLOBAL) {
        const gseg *g = x->M->last_seg;
        if (g && a - g->base < g->size && bytes <= g->size - (a - g->base) && !(a & (bytes - 1)))
            return g->data + (a - g->base);
    } else if (I->space == MS_SHARED) {
        if (a < x->M->shared_total && bytes <= x->M->shared_total - a && !(a & (bytes - 1)))
            return x->b->shared + a;
    } else if (I->space == MS_PARAM_K && !write) {
        if (a < x->M->params_size && bytes <= x->M->params_size - a && !(a & (bytes - 1))) return x->M->params + a;
    } else if (I->space == MS_CONST && !write) {
        if (a < x->M->cbank_size && bytes <= x->M->cbank_size - a && !(a & (bytes - 1))) return x->M->cbank + a;
    }
    return emu_xlate(x, I->space, a, bytes, lane, write);
}

/* Fixed-size loads and stores compile to single moves (a memcpy of a
 * variable size is a library call per lane). */
static inline uint64_t load_n(const uint8_t *p, unsigned eb)
{
    switch (eb) {
    case 1: return *p;
    case 2: { uint16_t v; memcpy(&v, p, 2); return v; }
    case 4: { uint32_t v; memcpy(&v, p, 4); return v; }
    default: { uint64_t v; memcpy(&v, p, 8); return v; }
    }
}
static inline void store_n(uint8_t *p, uint64_t v, unsigned eb)
{
    switch (eb) {
    case 1: *p = (uint8_t)v; break;
    case 2: { uint16_t t = (uint16_t)v; memcpy(p, &t, 2); break; }
    case 4: { uint32_t t = (uint32_t)v; memcpy(p, &t, 4); break; }
    default: memcpy(p, &v, 8); break;
    }
}

static int h_ld(emu_exec *x, const einst *I, uint32_t m)
{
    uint64_t a[32];
    unsigned eb = I->bytes, n = I->vec, tot = eb * n;
    bool sg = emu_type_signed(I->type);
    uint64_t rmask = type_mask(I->dbytes);
    if (I->am == AM_IMM && I->space != MS_LOCAL && I->space != MS_GENERIC) {
        /* one address for the whole warp (parameters, constants, a symbol):
         * read it once */
        if (x->M->opt.checks) {
            FOR_LANES(m, l, a[l] = (uint64_t)I->imm);
            checks(x, I, m, a, tot, false, false);
        }
        const uint8_t *p = xl(x, I, (uint64_t)I->imm, tot, (unsigned)__builtin_ctz(m), false);
        if (!p) return 1;
        for (unsigned k = 0; k < n; k++) {
            uint64_t v = load_n(p + k * eb, eb);
            if (sg) v = (uint64_t)sext(v, eb);
            v &= rmask;
            uint64_t *D = REG(x, I->d[k]);
            FOR_LANES(m, l, D[l] = v);
        }
        return 0;
    }
    addrs(x, I, m, a);
    if (x->M->opt.checks) checks(x, I, m, a, tot, false, false);
    if (x->M->ra_slots) count_spill(x, I, m, a, tot, false);
    if (n == 1) {
        uint64_t *D = REG(x, I->d[0]);
        FOR_LANES(m, l, {
            const uint8_t *p = xl(x, I, a[l], tot, l, false);
            if (!p) return 1;
            uint64_t v = load_n(p, eb);
            if (sg) v = (uint64_t)sext(v, eb);
            D[l] = v & rmask;
        });
        return 0;
    }
    uint64_t *D[EI_MAXD];
    for (unsigned k = 0; k < n; k++) D[k] = REG(x, I->d[k]);
    FOR_LANES(m, l, {
        const uint8_t *p = xl(x, I, a[l], tot, l, false);
        if (!p) return 1;
        for (unsigned k = 0; k < n; k++) {
            uint64_t v = load_n(p + k * eb, eb);
            if (sg) v = (uint64_t)sext(v, eb);
            D[k][l] = v & rmask;
        }
    });
    return 0;
}

static int h_st(emu_exec *x, const einst *I, uint32_t m)
{
    uint64_t a[32];
    addrs(x, I, m, a);
    unsigned eb = I->bytes, n = I->vec, tot = eb * n;
    if (x->M->opt.checks) checks(x, I, m, a, tot, true, false);
    if (x->M->ra_slots) count_spill(x, I, m, a, tot, true);
    const uint64_t *S[EI_MAXD];
    for (unsigned k = 0; k < n; k++) S[k] = REG(x, I->s[1 + k]);
    FOR_LANES(m, l, {
        uint8_t *p = xl(x, I, a[l], tot, l, true);
        if (!p) return 1;
        for (unsigned k = 0; k < n; k++) store_n(p + k * eb, S[k][l], eb);
    });
    return 0;
}

/* ---- atomics --------------------------------------------------------------------------- */
static uint64_t atom_apply(const einst *I, uint64_t old, uint64_t b, uint64_t c)
{
    unsigned w = I->bytes;
    uint64_t mask = type_mask(w);
    unsigned t = I->type;
    old &= mask;
    b &= mask;
    switch (I->sub) {
    case AOP_ADD:
        if (t == PTX_T_F32) return f32_bits(f32_from((uint32_t)old) + f32_from((uint32_t)b));
        if (t == PTX_T_F64) return f64_bits(f64_from(old) + f64_from(b));
        if (t == PTX_T_F16) return fp_add(fp_decode(old, FMT_F16), fp_decode(b, FMT_F16), FMT_F16, RND_RN);
        if (t == PTX_T_BF16) return fp_add(fp_decode(old, FMT_BF16), fp_decode(b, FMT_BF16), FMT_BF16, RND_RN);
        return (old + b) & mask;
    case AOP_INC: return old >= b ? 0 : old + 1;
    case AOP_DEC: return (old == 0 || old > b) ? b : old - 1;
    case AOP_MIN:
        if (t == PTX_T_F32) return f32_bits(fminf(f32_from((uint32_t)old), f32_from((uint32_t)b)));
        if (t == PTX_T_F64) return f64_bits(fmin(f64_from(old), f64_from(b)));
        if (emu_type_signed(t)) return sext(old, w) < sext(b, w) ? old : b;
        return old < b ? old : b;
    case AOP_MAX:
        if (t == PTX_T_F32) return f32_bits(fmaxf(f32_from((uint32_t)old), f32_from((uint32_t)b)));
        if (t == PTX_T_F64) return f64_bits(fmax(f64_from(old), f64_from(b)));
        if (emu_type_signed(t)) return sext(old, w) > sext(b, w) ? old : b;
        return old > b ? old : b;
    case AOP_AND: return old & b;
    case AOP_OR: return old | b;
    case AOP_XOR: return old ^ b;
    case AOP_EXCH: return b;
    case AOP_CAS: return old == b ? (c & mask) : old;
    }
    return old;
}

static int h_atom(emu_exec *x, const einst *I, uint32_t m)
{
    uint64_t a[32];
    addrs(x, I, m, a);
    unsigned w = I->bytes;
    if (x->M->opt.checks) checks(x, I, m, a, w, true, true);
    uint64_t *D = REG(x, I->d[0]);
    const uint64_t *B = REG(x, I->s[1]);
    const uint64_t *C = I->sub == AOP_CAS ? REG(x, I->s[2]) : NULL;
    uint64_t rmask = type_mask(I->dbytes ? I->dbytes : w);
    FOR_LANES(m, l, {
        uint8_t *p = xl(x, I, a[l], w, l, true);
        if (!p) return 1;
        uint64_t old = 0;
        memcpy(&old, p, w);
        uint64_t nv = atom_apply(I, old, B[l], C ? C[l] : 0);
        memcpy(p, &nv, w);
        D[l] = old & rmask;
    });
    return 0;
}

/* cp.async: the copy happens at issue, which is one legal completion order;
 * the commit/wait instructions are then no-ops. */
static int h_cp_async(emu_exec *x, const einst *I, uint32_t m)
{
    uint64_t a[32], src[32];
    addrs(x, I, m, a);
    const uint64_t *S = REG(x, I->s[1]);
    const uint64_t *SZ = I->s[2] != EMU_NONE ? REG(x, I->s[2]) : NULL;
    uint64_t off = (uint64_t)(int64_t)(int32_t)I->target;
    FOR_LANES(m, l, src[l] = (I->flags & EI_SRC32) ? (uint32_t)(S[l] + off) : S[l] + off);
    unsigned n = I->bytes;
    if (x->M->opt.checks) {
        einst G = *I;
        G.space = MS_GLOBAL;
        checks(x, &G, m, src, n, false, false);
        checks(x, I, m, a, n, true, false);
    }
    einst G = *I;
    G.space = MS_GLOBAL;
    FOR_LANES(m, l, {
        unsigned keep = SZ ? (unsigned)(SZ[l] < n ? SZ[l] : n) : n;
        uint8_t buf[16] = {0};
        if (keep) {
            const uint8_t *sp = xl(x, &G, src[l], n, l, false);
            if (!sp) return 1;
            memcpy(buf, sp, keep);
        }
        uint8_t *dp = xl(x, I, a[l], n, l, true);
        if (!dp) return 1;
        memcpy(dp, buf, n);
    });
    return 0;
}

static uint64_t window_of(unsigned sp)
{
    switch (sp) {
    case MS_SHARED: return WIN_BASE(WIN_SHARED);
    case MS_LOCAL: return WIN_BASE(WIN_LOCAL);
    case MS_CONST: return WIN_BASE(WIN_CONST);
    case MS_PARAM_K: return WIN_BASE(WIN_PARAM);
    default: return 0;
    }
}

static int h_cvta(emu_exec *x, const einst *I, uint32_t m)
{
    uint64_t *D = REG(x, I->d[0]);
    const uint64_t *A = REG(x, I->s[0]);
    uint64_t w = window_of(I->space);
    uint64_t mask = type_mask(emu_type_bytes(I->type));
    bool to = I->sub;
    FOR_LANES(m, l, {
        uint64_t v = A[l];
        if (!w) D[l] = v & mask;
        else if (to) D[l] = (v - w) & mask;
        else D[l] = (w + (v & 0xffffffffull)) & mask;
    });
    return 0;
}

static int h_isspacep(emu_exec *x, const einst *I, uint32_t m)
{
    const uint64_t *A = REG(x, I->s[0]);
    uint32_t t = 0;
    unsigned want = I->space == MS_PARAM_K ? MS_PARAM_K : I->space;
    FOR_LANES(m, l, if (emu_generic_space(A[l]) == want) t |= 1u << l);
    pwrite(x, I->d[0], t, m);
    return 0;
}

static int h_nop(emu_exec *x, const einst *I, uint32_t m)
{
    (void)x;
    (void)I;
    (void)m;
    return 0;
}

emu_fn emu_lookup_mem(unsigned opc, einst *I, const char **why)
{
    switch (opc) {
    case PTX_OPC_LD: case PTX_OPC_LDU: return h_ld;
    case PTX_OPC_ST: return h_st;
    case PTX_OPC_ATOM: {
        unsigned t = I->type, w = I->bytes;
        bool fl = t == PTX_T_F32 || t == PTX_T_F64 || t == PTX_T_F16 || t == PTX_T_BF16;
        if (w != 2 && w != 4 && w != 8) { *why = "atomic operand size"; return NULL; }
        if (fl && I->sub != AOP_ADD && I->sub != AOP_MIN && I->sub != AOP_MAX && I->sub != AOP_EXCH) { *why = "operation on floats"; return NULL; }
        if ((I->sub == AOP_INC || I->sub == AOP_DEC) && t != PTX_T_U32) { *why = "inc/dec need .u32"; return NULL; }
        if (w == 2 && !(I->sub == AOP_CAS || (fl && I->sub == AOP_ADD))) { *why = "16-bit atomics other than cas and add"; return NULL; }
        return h_atom;
    }
    case PTX_OPC_CP: return h_cp_async;
    case PTX_OPC_CVTA: return h_cvta;
    case PTX_OPC_ISSPACEP: return h_isspacep;
    case PTX_OPC_MEMBAR: return h_nop;
    }
    if (why) *why = "memory operation";
    return NULL;
}
