#include "spill_rewrite.h"
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "ir_edit.h"

typedef struct rw {
    ra_edit *e;
    ptx_func *fn;
    const ra_rewrite_in *in;
    ra_func_stats *fs;
    const char *local_sym;
    const char *shared_sym; /* the shared spill area, when there are shared slots */
    const char *sq;  /* qualifier of slot accesses: ".relaxed.cta" or ".volatile" */
    uint64_t weight; /* loop weight of the instruction being rewritten (loop_weight) */
    uint32_t stmt;   /* ... and its statement */
    /* base_at's first lines and registers, replayed at the other accesses */
    uint32_t base_from, base_to, base_regs[2];
} rw;

static unsigned bits_of(const rw *w, uint32_t r);

/* One piece of spill code of register r at the statement being rewritten,
 * for in->sites (the array grows at powers of two). */
static void site(rw *w, uint32_t r, enum ra_site_kind k)
{
    if (!w->in->sites) return;
    ra_func_stats *fs = w->fs;
    uint32_t n = fs->nsites;
    if (!(n & (n - 1))) {
        fs->sites = realloc(fs->sites, sizeof *fs->sites * (n ? 2 * (size_t)n : 8));
        if (!fs->sites) abort();
    }
    fs->sites[fs->nsites++] = (ra_site){w->stmt, r, w->weight, (uint8_t)k, (uint8_t)w->in->sp[r].place,
                                        (uint8_t)bits_of(w, r)};
}

/* 10^depth of the loop nest around block b, depth capped at 3 so that a
 * deep nest does not drown everything else (docs/spillcost.md). */
static uint64_t loop_weight(const cfg *g, uint32_t b)
{
    if (b == CFG_NONE || b >= g->nblocks || g->blocks[b].loop == CFG_NONE) return 1;
    uint32_t d = g->loops[g->blocks[b].loop].depth;
    uint64_t w = 1;
    for (uint32_t i = 0; i < d && i < 3; i++) w *= 10;
    return w;
}

static const char *const coord_sreg[DIV_NCOEF1] = {NULL, "%tid.x", "%tid.y", "%tid.z", "%laneid"};

static unsigned bits_of(const rw *w, uint32_t r)
{
    return ptx_type_bits((ptx_type)w->fn->regs[r].type);
}

/* The linear thread id into b, with a as scratch: warps are 32
 * consecutive linear ids.  With the block's shape known, %ntid is
 * constant: tid.x + X·tid.y + X·Y·tid.z, dimensions of 1 left out. */
static void linear_tid(rw *w, const char *b, const char *a)
{
    ra_edit *e = w->e;
    const uint32_t *s = w->in->shape;
    if (s[0]) {
        ra_edit_emit(e, "mov.u32 %s, %%tid.x", b);
        if (s[1] > 1) {
            ra_edit_emit(e, "mov.u32 %s, %%tid.y", a);
            ra_edit_emit(e, "mad.lo.u32 %s, %s, %u, %s", b, a, s[0], b);
        }
        if (s[2] > 1) {
            ra_edit_emit(e, "mov.u32 %s, %%tid.z", a);
            ra_edit_emit(e, "mad.lo.u32 %s, %s, %u, %s", b, a, s[0] * (s[1] ? s[1] : 1), b);
        }
        return;
    }
    if (w->in->one_dim) {
        ra_edit_emit(e, "mov.u32 %s, %%tid.x", b);
        return;
    }
    ra_edit_emit(e, "mov.u32 %s, %%tid.z", b);
    ra_edit_emit(e, "mov.u32 %s, %%ntid.y", a);
    ra_edit_emit(e, "mul.lo.u32 %s, %s, %s", b, b, a);
    ra_edit_emit(e, "mov.u32 %s, %%tid.y", a);
    ra_edit_emit(e, "add.u32 %s, %s, %s", b, b, a);
    ra_edit_emit(e, "mov.u32 %s, %%ntid.x", a);
    ra_edit_emit(e, "mul.lo.u32 %s, %s, %s", b, b, a);
    ra_edit_emit(e, "mov.u32 %s, %%tid.x", a);
    ra_edit_emit(e, "add.u32 %s, %s, %s", b, b, a);
}

/* The warp's partition, __ra_shared + warp * slot bytes, into a fresh
 * register at the edit point, with the warp index from the linear thread
 * id (%warpid is where the warp runs, which may change during its life,
 * not which warp of the block it is).  Computed at each access: no
 * register holds it through the kernel, and ptxas may keep it in one where
 * registers are free.  Two units (the address and a scratch). */
static const char *base_at(rw *w)
{
    ra_edit *e = w->e;
    uint32_t rb = ra_edit_reg(e, PTX_T_U32), ra = ra_edit_reg(e, PTX_T_U32);
    const char *b = ra_edit_rname(e, rb);
    if (w->base_to) { /* the same lines with these two registers */
        ra_edit_replay(e, w->base_from, w->base_to, w->base_regs, (const uint32_t[]){rb, ra}, 2);
        return b;
    }
    const char *a = ra_edit_rname(e, ra);
    w->base_from = ra_edit_mark(e);
    linear_tid(w, b, a);
    ra_edit_emit(e, "shr.u32 %s, %s, 5", b, b);
    ra_edit_emit(e, "mov.u32 %s, %s", a, w->shared_sym);
    ra_edit_emit(e, "mad.lo.u32 %s, %s, %u, %s", b, b, w->in->slot_bytes, a);
    w->base_to = ra_edit_mark(e);
    w->base_regs[0] = rb;
    w->base_regs[1] = ra;
    return b;
}

/* The warp's mask of launched lanes, (1 << (threads - first lane's linear
 * id)) - 1 (a shift by 32 or more gives 0, so a full warp gets all ones),
 * stored at the kernel's start into the partition's mask slot: written once
 * by every lane with the same bits, the write-once rule. */
static void mask_at_start(rw *w)
{
    ra_edit *e = w->e;
    ra_edit_at(e, RA_EDIT_START, false);
    const char *n = ra_edit_rname(e, ra_edit_reg(e, PTX_T_U32));
    const char *b = ra_edit_rname(e, ra_edit_reg(e, PTX_T_U32));
    const char *a = ra_edit_rname(e, ra_edit_reg(e, PTX_T_U32));
    const uint32_t *s = w->in->shape;
    if (s[0]) ra_edit_emit(e, "mov.u32 %s, %u", n, s[0] * (s[1] ? s[1] : 1) * (s[2] ? s[2] : 1));
    else ra_edit_emit(e, "mov.u32 %s, %%ntid.x", n);
    if (!s[0] && !w->in->one_dim) {
        ra_edit_emit(e, "mov.u32 %s, %%ntid.y", a);
        ra_edit_emit(e, "mul.lo.u32 %s, %s, %s", n, n, a);
        ra_edit_emit(e, "mov.u32 %s, %%ntid.z", a);
        ra_edit_emit(e, "mul.lo.u32 %s, %s, %s", n, n, a);
    }
    linear_tid(w, b, a);
    ra_edit_emit(e, "and.b32 %s, %s, -32", a, b);
    ra_edit_emit(e, "sub.u32 %s, %s, %s", n, n, a);
    ra_edit_emit(e, "mov.u32 %s, 1", a);
    ra_edit_emit(e, "shl.b32 %s, %s, %s", n, a, n);
    ra_edit_emit(e, "sub.u32 %s, %s, 1", n, n);
    ra_edit_emit(e, "shr.u32 %s, %s, 5", b, b);
    ra_edit_emit(e, "mov.u32 %s, %s", a, w->shared_sym);
    ra_edit_emit(e, "mad.lo.u32 %s, %s, %u, %s", b, b, w->in->slot_bytes, a);
    ra_edit_emit(e, "st%s.shared.b32 [%s+%u], %s", w->sq, b, RA_MASK_SLOT, n);
}

/* c modulo 2^bits, sign-extended: how the coefficient is written */
static int64_t wrap(int64_t c, unsigned bits)
{
    if (bits >= 64) return c;
    uint64_t m = ((uint64_t)1 << bits) - 1, u = (uint64_t)c & m;
    return (u >> (bits - 1)) ? (int64_t)(u | ~m) : (int64_t)u;
}

static int64_t negate(int64_t c, unsigned bits) { return wrap((int64_t)(0 - (uint64_t)c), bits); }

/* Coordinate i of the thread in a fresh 32-bit register. */
static const char *coord(rw *w, unsigned i)
{
    uint32_t c = ra_edit_reg(w->e, PTX_T_U32);
    const char *n = ra_edit_rname(w->e, c);
    ra_edit_emit(w->e, "mov.u32 %s, %s", n, coord_sreg[i]);
    return n;
}

/* The same widened to 64 bits, for a coefficient that does not fit .s32. */
static const char *coord64(rw *w, unsigned i)
{
    const char *x = coord(w, i);
    uint32_t c = ra_edit_reg(w->e, PTX_T_U64);
    const char *n = ra_edit_rname(w->e, c);
    ra_edit_emit(w->e, "cvt.u64.u32 %s, %s", n, x);
    return n;
}

static bool fits32(int64_t c) { return c >= INT32_MIN && c <= INT32_MAX; }

/* t (= t if have, else 0) + sign * Σ c_i * coordinate_i over the known,
 * non-zero terms; 1 and -1 need no multiplication, and a first term of
 * coefficient 1 at 32 bits is the special register itself. */
static void add_coords(rw *w, uint32_t t, const ra_spill *s, unsigned bits, int sign, bool have)
{
    unsigned terms = ra_coord_terms(s);
    const char *tn = ra_edit_rname(w->e, t);
    for (unsigned i = 1; i < DIV_NCOEF1; i++) {
        if (!(terms >> i & 1)) continue;
        int64_t c = sign > 0 ? wrap(s->coef[i], bits) : negate(s->coef[i], bits);
        if (!have && c == 1 && bits == 32) {
            ra_edit_emit(w->e, "mov.u32 %s, %s", tn, coord_sreg[i]);
        } else if (bits == 64 && fits32(c)) {
            /* the product widened by the multiply: one 32-bit temporary */
            const char *x = coord(w, i);
            if (have) ra_edit_emit(w->e, "mad.wide.s32 %s, %s, %" PRId64 ", %s", tn, x, c, tn);
            else ra_edit_emit(w->e, "mul.wide.s32 %s, %s, %" PRId64, tn, x, c);
        } else {
            const char *x = bits == 64 ? coord64(w, i) : coord(w, i);
            if (!have && c == 1) ra_edit_emit(w->e, "mov.b%u %s, %s", bits, tn, x);
            else if (!have) ra_edit_emit(w->e, "mul.lo.s%u %s, %s, %" PRId64, bits, tn, x, c);
            else if (c == 1) ra_edit_emit(w->e, "add.s%u %s, %s, %s", bits, tn, tn, x);
            else if (c == -1) ra_edit_emit(w->e, "sub.s%u %s, %s, %s", bits, tn, tn, x);
            else ra_edit_emit(w->e, "mad.lo.s%u %s, %s, %" PRId64 ", %s", bits, tn, x, c, tn);
        }
        have = true;
    }
    if (!have) ra_edit_emit(w->e, "mov.b%u %s, 0", bits, tn);
}

/* ra_func_stats.local_w_why's index: RA_WHY_NONE for a divergent value */
static unsigned local_why(const ra_spill *s)
{
    return s->state == DIV_DIVERGENT || s->why >= RA_WHY__COUNT ? RA_WHY_NONE : s->why;
}

static void reload(rw *w, uint32_t r, uint32_t t)
{
    const ra_spill *s = &w->in->sp[r];
    unsigned bits = bits_of(w, r);
    const char *tn = ra_edit_rname(w->e, t);
    switch (s->place) {
    case RA_P_LOCAL:
        ra_edit_emit(w->e, "ld.local.b%u %s, [%s+%u]", bits, tn, w->local_sym, s->slot);
        w->fs->loads_local++;
        w->fs->loads_local_w += w->weight;
        site(w, r, RA_SITE_LOAD);
        w->fs->local_w_why[local_why(s)] += w->weight;
        break;
    case RA_P_SHARED:
        ra_edit_emit(w->e, "ld%s.shared.b%u %s, [%s+%u]", w->sq, bits, tn, base_at(w), s->slot);
        w->fs->loads_shared++;
        w->fs->loads_shared_w += w->weight;
        site(w, r, RA_SITE_LOAD);
        break;
    case RA_P_SHARED_AFFINE:
        ra_edit_emit(w->e, "ld%s.shared.b%u %s, [%s+%u]", w->sq, bits, tn, base_at(w), s->slot);
        add_coords(w, t, s, bits, +1, true);
        w->fs->loads_shared++;
        w->fs->remat_shared++;
        w->fs->loads_shared_w += w->weight;
        w->fs->remat_w += w->weight;
        site(w, r, RA_SITE_LOAD);
        break;
    case RA_P_CONST:
        ra_edit_emit(w->e, "mov.b%u %s, %" PRId64, bits, tn, wrap(s->coef[0], bits));
        w->fs->remat++;
        w->fs->remat_const++;
        w->fs->remat_w += w->weight;
        site(w, r, RA_SITE_REMAT);
        break;
    case RA_P_AFFINE: {
        int64_t c0 = wrap(s->coef[0], bits);
        if (c0) ra_edit_emit(w->e, "mov.b%u %s, %" PRId64, bits, tn, c0);
        add_coords(w, t, s, bits, +1, c0 != 0);
        w->fs->remat++;
        w->fs->remat_w += w->weight;
        site(w, r, RA_SITE_REMAT);
        break;
    }
    default: break;
    }
}

static void store(rw *w, uint32_t r, uint32_t t, const ptx_inst *def)
{
    const ra_spill *s = &w->in->sp[r];
    unsigned bits = bits_of(w, r);
    char guard[48] = "";
    if (def->has_guard)
        snprintf(guard, sizeof guard, "@%s%s ", def->guard_neg ? "!" : "", ra_edit_rname(w->e, def->guard));
    const char *tn = ra_edit_rname(w->e, t);
    switch (s->place) {
    case RA_P_LOCAL:
        ra_edit_emit(w->e, "%sst.local.b%u [%s+%u], %s", guard, bits, w->local_sym, s->slot, tn);
        w->fs->stores_local++;
        w->fs->stores_local_w += w->weight;
        site(w, r, RA_SITE_STORE);
        w->fs->local_w_why[local_why(s)] += w->weight;
        break;
    case RA_P_SHARED_AFFINE:
        /* only the uniform part goes to memory (rule iv); t dies here */
        add_coords(w, t, s, bits, -1, true);
        /* fall through */
    case RA_P_SHARED: {
        const char *b = base_at(w);
        if (s->sync) {
            /* no lane overwrites the slot before every lane has read the
             * value it holds (docs/regalloc.md, "Values written more than
             * once") */
            if (w->in->full_warps) ra_edit_emit(w->e, "bar.warp.sync -1");
            else {
                const char *m = ra_edit_rname(w->e, ra_edit_reg(w->e, PTX_T_U32));
                ra_edit_emit(w->e, "ld%s.shared.b32 %s, [%s+%u]", w->sq, m, b, RA_MASK_SLOT);
                ra_edit_emit(w->e, "bar.warp.sync %s", m);
            }
            w->fs->barriers++;
            w->fs->barriers_w += w->weight;
        }
        ra_edit_emit(w->e, "%sst%s.shared.b%u [%s+%u], %s", guard, w->sq, bits, b, s->slot, tn);
        w->fs->stores_shared++;
        w->fs->stores_shared_w += w->weight;
        site(w, r, RA_SITE_STORE);
        break;
    }
    default: break; /* rematerialised: nothing to keep */
    }
}

static void rename_reg(ptx_operand *o, uint32_t from, uint32_t to)
{
    switch (o->kind) {
    case PTX_O_REG: if (o->n == from) o->n = to; break;
    case PTX_O_ADDR: case PTX_O_VEC: case PTX_O_LIST:
        for (uint32_t i = 0; i < o->n; i++) rename_reg(&o->p.elems[i], from, to);
        break;
    case PTX_O_PAIR:
        rename_reg(&o->p.elems[0], from, to);
        rename_reg(&o->p.elems[1], from, to);
        break;
    default: break;
    }
}

ra_edit *ra_rewrite(ra_shapes *sh, ptx_func *fn, const ra_rewrite_in *in, ra_func_stats *fs)
{
    const ra_live *L = in->L;
    rw w = {ra_edit_new(sh, fn), fn, in, fs, NULL, NULL, in->strong ? ".relaxed.cta" : ".volatile", 1, 0, 0, 0, {0, 0}};
    if (in->local_bytes) {
        w.local_sym = ra_edit_symbol(w.e, "__ra_local");
        ra_edit_array(w.e, PTX_SP_LOCAL, 8, in->local_bytes, w.local_sym);
    }
    if (in->slot_bytes) {
        w.shared_sym = ra_edit_symbol(w.e, "__ra_shared");
        ra_edit_array(w.e, PTX_SP_SHARED, 8, in->slot_bytes * fs->warps, w.shared_sym);
        if (!in->full_warps && ra_any_sync(in->sp, L->nregs)) mask_at_start(&w);
    }
    for (uint32_t k = 0; k < L->ninst; k++) {
        uint32_t st = L->inst_stmt[k];
        ptx_inst *ins = &fn->stmts[st]->u.inst;
        bool own = !in->keep_parsed; /* ins is renamed in place, or in the rewrite's copy (ra_edit_own) */
        w.weight = loop_weight(L->g, L->inst_block[k]);
        w.stmt = st;
        for (uint32_t j = L->occ_off[k]; j < L->occ_off[k + 1]; j++) {
            const ra_occ *o = &L->occ[j];
            if (in->sp[o->reg].place == RA_P_NONE) continue;
            /* a use of a rebuilt value reads a tagged register, which the
             * rebuilding sequence starts by writing without reading it
             * (docs/regalloc.md, "Marks of rematerialisation"); a
             * definition alone gets a plain one */
            char tag = 0;
            if (o->role & RA_OCC_USE) switch (in->sp[o->reg].place) {
                case RA_P_CONST: tag = 'c'; break;
                case RA_P_AFFINE: tag = 'a'; break;
                case RA_P_SHARED_AFFINE: tag = 's'; break;
                default: break;
                }
            uint32_t t = ra_edit_reg_tagged(w.e, fn->regs[o->reg].type, tag);
            if (o->role & RA_OCC_USE) {
                ra_edit_at(w.e, st, false);
                reload(&w, o->reg, t);
            }
            if (!own) ins = ra_edit_own(w.e, st), own = true;
            for (uint32_t i = 0; i < ins->nopd; i++) rename_reg(&ins->opd[i], o->reg, t);
            if (o->role & RA_OCC_DEF) {
                ra_edit_at(w.e, st, true);
                store(&w, o->reg, t, ins);
            }
        }
    }
    return w.e;
}
