/* The coalescing model (analyses/coalescing.h) on the examples of the
 * papers it follows: GPUDrano's Fig. 1 and Fan2 kernels (Alur et al.
 * 2017), IPDA's Fig. 1 (Chikin et al. 2019), plus element widths, layouts,
 * misaligned offsets, single-thread regions and shared-memory banks.  The
 * PTX under tests/data/coalescing/ is nvcc's (-O3 -lineinfo, sm_80) from
 * the .cu beside it. */
#include <criterion/criterion.h>
#include <string.h>
#include "addr_chain.h"
#include "bank_conflicts.h"
#include "coalescing.h"
#include "residue.h"
#include "testutil.h"

typedef struct cx {
    ptx_module *m;
    prog *p;
    coal_result *r;
} cx;

static cx load_opts(const char *rel, const coal_options *o)
{
    cx x;
    ptx_diags d;
    ptx_diags_init(&d);
    x.m = ptx_parse_file(tu_src(rel), &d);
    ptx_diags_free(&d);
    cr_assert(x.m, "%s", rel);
    x.p = tu_gsa_ok(x.m, NULL);
    x.r = coal_analyse(x.m, x.p, o, &x.p->a);
    return x;
}

static cx load(const char *rel) { return load_opts(rel, NULL); }

static void done(cx *x)
{
    prog_free(x->p);
    ptx_module_free(x->m);
}

static const coal_func *func(const cx *x, const char *name)
{
    for (uint32_t i = 0; i < x->r->nfuncs; i++)
        if (ptx_str_eq(x->r->f[i].pf->fn->name, name)) return &x->r->f[i];
    cr_assert_fail("no function %s", name);
    return NULL;
}

/* The n-th access of a space in f (statement order). */
static const coal_access *nth(const coal_func *f, enum coal_space sp, uint32_t n)
{
    for (uint32_t i = 0; i < f->nacc; i++)
        if (f->acc[i].space == sp && n-- == 0) return &f->acc[i];
    cr_assert_fail("fewer accesses than asked for");
    return NULL;
}

static uint32_t count(const coal_func *f, enum coal_space sp)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < f->nacc; i++) n += f->acc[i].space == sp;
    return n;
}

static uint32_t flagged(const coal_func *f)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < f->nacc; i++) n += coal_is_finding(&f->acc[i]);
    return n;
}

static bool opcode_is(const coal_access *a, const char *op)
{
    return strlen(op) == a->in->opcode_len && !memcmp(a->in->opcode, op, a->in->opcode_len);
}

/* pattern, stride (INT64_MIN: none), sectors (-1: unknown), the upper bound, ideal, uncoalesced */
static void expect_access(const coal_access *a, enum coal_pattern pat, int64_t stride, int32_t sectors, int32_t smax,
                          uint32_t ideal, bool unco)
{
    cr_expect_eq(a->pattern, pat, "pattern %s, expected %s", coal_pattern_name((enum coal_pattern)a->pattern),
                 coal_pattern_name(pat));
    if (stride == INT64_MIN) cr_expect(!a->has_stride, "unexpected stride %ld", (long)a->stride);
    else {
        cr_expect(a->has_stride);
        cr_expect_eq(a->stride, stride, "stride %ld, expected %ld", (long)a->stride, (long)stride);
    }
    cr_expect_eq(a->sectors, sectors, "sectors %d, expected %d", a->sectors, sectors);
    cr_expect_eq(a->sectors_max, smax, "sectors_max %d, expected %d", a->sectors_max, smax);
    cr_expect_eq(a->ideal, ideal, "ideal %u, expected %u", a->ideal, ideal);
    cr_expect_eq(a->uncoalesced, unco, "uncoalesced %d", a->uncoalesced);
}

/* GPUDrano Fig. 1: array[0] and array[tid] coalesced, array[8*tid] not. */
Test(coalescing, gpudrano_fig1)
{
    cx x = load("tests/data/coalescing/gpudrano_fig1.ptx");
    const coal_func *f = func(&x, "fig1");
    cr_assert_eq(count(f, COAL_GLOBAL), 4);
    expect_access(nth(f, COAL_GLOBAL, 0), COAL_P_UNIFORM, 0, 1, 1, 1, false);  /* array[0] */
    expect_access(nth(f, COAL_GLOBAL, 1), COAL_P_UNIT, 4, 4, 4, 4, false);     /* array[tid] */
    expect_access(nth(f, COAL_GLOBAL, 2), COAL_P_STRIDE, 32, 32, 32, 4, true); /* array[8*tid] */
    expect_access(nth(f, COAL_GLOBAL, 3), COAL_P_UNIT, 4, 4, 4, 4, false);     /* out[tid] */
    cr_expect_eq(nth(f, COAL_GLOBAL, 3)->kind, COAL_STORE);
    cr_expect_eq(nth(f, COAL_GLOBAL, 0)->lines, 1);
    cr_expect_eq(nth(f, COAL_GLOBAL, 2)->lines, 8);
    cr_expect_eq(flagged(f), 1);
    done(&x);
}

/* The pointer parameter an access's address is built on (index), following
 * the additions: the operand that is a pointer. */
static int base_param(const coal_func *f, const coal_access *a)
{
    uint32_t v = a->addr_value;
    for (int hops = 0; hops < 32 && v != SSA_NONE; hops++) {
        const ssa_value *val = &f->pf->ssa->values[v];
        if (val->kind == SSA_V_PHI) { /* an induction pointer: its entry value */
            const ssa_node *nd = &f->pf->ssa->nodes[val->node];
            const cfg_block *b = &f->pf->g->blocks[nd->block];
            uint32_t next = SSA_NONE;
            for (uint32_t k = 0; k < nd->nargs; k++)
                if (!cfg_is_back_edge(f->pf->g, b->pred[k], nd->block)) next = nd->args[k];
            v = next;
            continue;
        }
        uint32_t st;
        const ptx_inst *in = addr_def(f->chain, v, &st);
        if (!in) return -1;
        if (in->op == PTX_OPC_LD) {
            ptx_str name = ptx_opd_text(&in->opd[1].p.elems[0]);
            for (uint32_t i = 0; i < f->pf->fn->nparams; i++)
                if (ptx_str_eqs(f->pf->fn->params[i]->name, name)) return (int)i;
            return -1;
        }
        uint32_t next = SSA_NONE;
        for (uint32_t o = 1; o < in->nopd; o++) {
            uint32_t w = ssa_use_value(f->pf->ssa, st, o);
            if (w != SSA_NONE && (f->chain->prov[w] == AP_PARAM64 || f->chain->prov[w] == AP_GLOBAL)) next = w;
        }
        v = next;
    }
    return -1;
}

/* Fig. 2a: A[xy] (A is parameter 1) and M[xt] (parameter 0) are flagged,
 * with lanes N floats apart; A[ty], B[x] and B[t] are not.  nvcc unrolls
 * the loop by 4 and peels a remainder loop, so each source access is
 * several PTX accesses. */
Test(coalescing, fan2_original)
{
    cx x = load("tests/data/coalescing/gaussian.ptx");
    const coal_func *f = func(&x, "Fan2");
    uint32_t flagged_by_param[3] = {0}, all_by_param[3] = {0};
    for (uint32_t i = 0; i < f->nacc; i++) {
        const coal_access *a = &f->acc[i];
        int p = base_param(f, a);
        cr_assert(p >= 0 && p <= 2, "PTX line %u: no base parameter", f->pf->fn->stmts[a->stmt]->loc.line);
        all_by_param[p]++;
        if (!a->uncoalesced) continue;
        flagged_by_param[p]++;
        cr_expect_eq(a->pattern, COAL_P_SYMBOLIC);
        cr_expect(a->sym_named);
        cr_expect_eq(a->sym_k, 4);
        cr_expect_eq(a->sym_mono, DIV_C_X);
        char name[64];
        cr_expect_str_eq(addr_value_label(f->chain, a->sym_value, name, sizeof name, NULL), "Fan2_param_3");
        cr_expect_eq(a->sectors, -1);
        cr_expect_eq(a->sectors_max, 32);
        cr_expect_eq(a->ideal, 4);
    }
    /* M: every access (M[xt], 5 loop bodies and their if-branches) */
    cr_expect_eq(flagged_by_param[0], all_by_param[0]);
    cr_expect_eq(all_by_param[0], 10);
    /* A: A[xy] loaded and stored in 5 bodies; A[ty] loaded in 5, never flagged */
    cr_expect_eq(all_by_param[1], 15);
    cr_expect_eq(flagged_by_param[1], 10);
    /* B: B[x] (unit stride) and B[t] (uniform) */
    cr_expect_eq(flagged_by_param[2], 0);
    cr_expect_eq(all_by_param[2], 15);
    /* A[xy]'s induction pointer moves 4 bytes per iteration (16 unrolled):
     * giving the iterations to neighbouring lanes puts them 4 (16) bytes
     * apart, 4 (16) sectors instead of up to 32 */
    bool step4 = false, step16 = false;
    for (uint32_t i = 0; i < f->nacc; i++) {
        const coal_access *a = &f->acc[i];
        if (a->has_step && a->uncoalesced) {
            step4 |= a->step == 4;
            step16 |= a->step == 16;
            cr_expect_eq(a->hint_kind, COAL_HINT_LOOP_TO_LANES);
            cr_expect_eq(a->loop_sectors, a->step == 4 ? 4 : 16);
            cr_expect_eq(a->hint_sectors, a->loop_sectors);
            cr_expect_lt(a->hint_sectors, coal_current_sectors(a));
        }
    }
    cr_expect(step4 && step16);
    done(&x);
}

/* Fig. 2b: nothing flagged; B[x] sits in the region if (y == t), where y =
 * tid + t: one lane at most. */
Test(coalescing, fan2_fixed)
{
    cx x = load("tests/data/coalescing/gaussian.ptx");
    const coal_func *f = func(&x, "Fan2_fixed");
    cr_expect_eq(flagged(f), 0);
    uint32_t single = 0, unit = 0, uniform = 0;
    for (uint32_t i = 0; i < f->nacc; i++) {
        single += f->acc[i].pattern == COAL_P_SINGLE;
        unit += f->acc[i].pattern == COAL_P_UNIT;
        uniform += f->acc[i].pattern == COAL_P_UNIFORM;
    }
    cr_expect_eq(f->nacc, 40);
    cr_expect_eq(single, 20); /* M[xt], B[x], B[t] loaded and B[x] stored, in 5 copies of the branch */
    cr_expect_eq(unit, 15);   /* A[ty] loaded, A[xy] loaded and stored, in 5 copies of the body */
    cr_expect_eq(uniform, 5); /* M[xt] in the body */
    done(&x);
}

/* Rodinia's own 2-D Fan2: rows follow tid.x, so lanes are Size floats apart,
 * while tid.y walks the row; swapping x and y gives 4 sectors. */
Test(coalescing, fan2_rodinia_swap_hint)
{
    cx x = load("tests/data/coalescing/gaussian.ptx");
    const coal_func *f = func(&x, "Fan2_rodinia");
    uint32_t n = 0, swappable = 0;
    for (uint32_t i = 0; i < f->nacc; i++) {
        const coal_access *a = &f->acc[i];
        if (!a->uncoalesced) continue;
        n++;
        cr_expect_eq(a->pattern, COAL_P_SYMBOLIC);
        cr_expect(a->dim_known >> DIV_C_Y & 1);
        if (a->dim_stride[DIV_C_Y]) {
            swappable++;
            cr_expect_eq(a->dim_stride[DIV_C_Y], 4);
            cr_expect_eq(a->swap_xy_sectors, 4);
            cr_expect_eq(a->hint_kind, COAL_HINT_SWAP_XY);
            cr_expect_eq(a->hint_sectors, 4);
        } else {
            cr_expect_eq(a->swap_xy_sectors, -1); /* m[Size*(xidx+1+t) + t]: the same for every tid.y */
            cr_expect_eq(a->hint_kind, COAL_HINT_NONE);
        }
    }
    cr_expect_eq(n, 4);         /* a[..] load and store, the two m[..] */
    cr_expect_eq(swappable, 3); /* all but m[..+t] */
    done(&x);
}

/* IPDA Fig. 1: idx = i < 32 ? 64 + i : i.  The affine analysis makes the
 * select ⊥; within a warp the comparison cannot change (blockDim.x is a
 * multiple of 32), so the store's lanes are 8 bytes apart. */
Test(coalescing, ipda_fig1)
{
    cx x = load("tests/data/coalescing/ipda_fig1.ptx");
    const coal_func *f = func(&x, "ipda_fig1");
    cr_assert_eq(count(f, COAL_GLOBAL), 2);
    const coal_access *st = nth(f, COAL_GLOBAL, 1);
    cr_expect_eq(st->kind, COAL_STORE);
    expect_access(st, COAL_P_UNIT, 8, 8, 8, 8, false);
    expect_access(nth(f, COAL_GLOBAL, 0), COAL_P_UNIT, 8, 8, 8, 8, false);
    /* the warp form proves i < 32 warp-uniform, so the select is a gamma on
     * a uniform gate and the polynomial keeps the common coefficient:
     * 8·tid.x + ⊥ */
    int64_t c;
    cr_expect(div_coef(f->r, st->addr_value, DIV_C_X, &c) && c == 8);
    cr_expect(!div_coef(f->r, st->addr_value, 0, &c));
    done(&x);
}

Test(coalescing, widths_and_layouts)
{
    cx x = load("tests/data/coalescing/widths.ptx");
    const coal_func *f = func(&x, "copy_double");
    for (int i = 0; i < 2; i++) {
        const coal_access *a = nth(f, COAL_GLOBAL, (uint32_t)i);
        cr_expect_eq(a->bytes, 8);
        expect_access(a, COAL_P_UNIT, 8, 8, 8, 8, false);
    }
    f = func(&x, "copy_float4");
    for (int i = 0; i < 2; i++) {
        const coal_access *a = nth(f, COAL_GLOBAL, (uint32_t)i);
        cr_expect_eq(a->bytes, 16);
        cr_expect_eq(a->vec, 4);
        cr_expect_eq(a->elem_bytes, 4);
        expect_access(a, COAL_P_UNIT, 16, 16, 16, 16, false);
    }
    cr_expect(opcode_is(nth(f, COAL_GLOBAL, 0), "ld.global.v4.u32"));
    f = func(&x, "aos_x"); /* float3 structures: lanes 12 bytes apart */
    expect_access(nth(f, COAL_GLOBAL, 0), COAL_P_STRIDE, 12, 12, 12, 4, true);
    expect_access(nth(f, COAL_GLOBAL, 1), COAL_P_UNIT, 4, 4, 4, 4, false);
    f = func(&x, "row_major"); /* a[tid.x*N + tid.y] */
    const coal_access *a = nth(f, COAL_GLOBAL, 0);
    expect_access(a, COAL_P_SYMBOLIC, INT64_MIN, -1, 32, 4, true);
    cr_expect_eq(a->dim_stride[DIV_C_Y], 4);
    cr_expect_eq(a->swap_xy_sectors, 4);
    f = func(&x, "col_major"); /* a[tid.y*N + tid.x]: a row 4·N·tid.y B in, not known modulo 32 */
    expect_access(nth(f, COAL_GLOBAL, 0), COAL_P_UNIT, 4, 4, 5, 4, false);
    cr_expect(!(nth(f, COAL_GLOBAL, 0)->dim_known >> DIV_C_Y & 1)); /* 4·N along tid.y */
    done(&x);
}

/* A 16x16 block puts two rows in a warp: a[tid.y*N + tid.x] is then two
 * runs of 16 floats an unknown N apart: 2 x 2 sectors, the ideal, when
 * each row starts on a sector, but N is not known modulo 8 floats: a row
 * at 4 B past a sector takes 3, so up to 6 (lane 0's row of warp 1 and
 * up is 2·N·4 B past the base: not known either), a possible misaligned
 * finding; a[tid.x*N + tid.y] stays uncoalesced. */
Test(coalescing, block_16x16_rows)
{
    blk_opts bo = {.all = {16, 16, 1}};
    coal_options o = {.blocks = &bo};
    cx x = load_opts("tests/data/coalescing/widths.ptx", &o);
    const coal_func *f = func(&x, "col_major");
    cr_expect_eq(f->origin, BLK_ALL);
    const coal_access *a = nth(f, COAL_GLOBAL, 0);
    expect_access(a, COAL_P_SYMBOLIC, INT64_MIN, -1, 6, 4, false);
    cr_expect_eq(a->sectors_asm, 4);
    cr_expect_eq(a->align_dep, COAL_ALIGN_ROWS);
    coal_verdict v;
    cr_assert(coal_verdict_of(a, &v));
    cr_expect_eq(v.rule, COAL_V_MISALIGNED);
    cr_expect_eq(v.certainty, COAL_POSSIBLE);
    cr_expect_eq(v.dep, COAL_DEP_ROWS);
    cr_expect_eq(v.excess, 2);
    cr_expect_eq(a->nwarps, 8);
    /* the store o[tid.y*blockDim.x + tid.x]: blockDim.x is now 16, every lane exact */
    expect_access(nth(f, COAL_GLOBAL, 1), COAL_P_UNIT, 4, 4, 4, 4, false);
    /* lanes l and l + 16 share tid.x and are 4 bytes apart along tid.y: 16
     * groups of 8 bytes, one sector each when aligned, but only lane 0's
     * group is known to start on one: the others may straddle two */
    f = func(&x, "row_major");
    expect_access(nth(f, COAL_GLOBAL, 0), COAL_P_SYMBOLIC, INT64_MIN, -1, 31, 4, true);
    cr_expect_eq(nth(f, COAL_GLOBAL, 0)->sectors_asm, 16);
    done(&x);
}

/* in[i + 1]: lane 0 4 bytes past a boundary, 5 sectors for 4 sectors'
 * worth; in[i + 8]: 32 bytes past, 4 sectors but 2 lines. */
Test(coalescing, misaligned_offsets)
{
    cx x = load("tests/data/coalescing/misaligned.ptx");
    const coal_func *f = func(&x, "shifted");
    const coal_access *a = nth(f, COAL_GLOBAL, 0);
    expect_access(a, COAL_P_UNIT, 4, 5, 5, 4, true);
    cr_expect(a->misaligned);
    cr_expect_eq(a->sectors_aligned, 4);
    cr_expect_eq(a->base.r % 128, 4);
    cr_expect_geq(a->base.k, 7);
    cr_expect_str_eq(coal_rule(a), "misaligned");
    a = nth(f, COAL_GLOBAL, 2);
    expect_access(a, COAL_P_UNIT, 4, 4, 4, 4, false);
    cr_expect(a->misaligned);
    cr_expect_eq(a->lines, 2);
    cr_expect_eq(a->lines_aligned, 1);
    cr_expect_eq(a->base.r % 128, 32);
    /* the stores out[i], out2[i] are aligned */
    cr_expect(!nth(f, COAL_GLOBAL, 1)->misaligned);
    cr_expect(!nth(f, COAL_GLOBAL, 3)->misaligned);
    done(&x);
}

/* tid.x == k and laneid == 0 let one lane in: its 128-byte stride does not
 * matter; tid.x < 2 lets two in. */
Test(coalescing, single_thread_regions)
{
    cx x = load("tests/data/coalescing/single_thread.ptx");
    const coal_func *f = func(&x, "only_tid_k");
    const coal_access *a = nth(f, COAL_GLOBAL, 0);
    cr_expect_eq(a->dim_stride[DIV_C_X], 128); /* strided, were more lanes there */
    expect_access(a, COAL_P_SINGLE, INT64_MIN, 1, 1, 1, false);
    f = func(&x, "only_lane0");
    expect_access(nth(f, COAL_GLOBAL, 0), COAL_P_SINGLE, INT64_MIN, 1, 1, 1, false);
    f = func(&x, "two_lanes");
    expect_access(nth(f, COAL_GLOBAL, 0), COAL_P_STRIDE, 128, 32, 32, 4, true);
    done(&x);
}

/* Word strides 1, 2, 32 and a broadcast; 8-byte elements in half-warps. */
Test(coalescing, bank_conflicts_kernel)
{
    cx x = load("tests/data/coalescing/bank.ptx");
    const coal_func *f = func(&x, "banks");
    cr_assert_eq(count(f, COAL_SHARED), 6);
    static const struct {
        const char *op;
        int64_t stride;
        int32_t degree, wavefronts, ideal;
    } want[] = {
        {"st.shared.f32", 4, 1, 1, 1},   {"st.shared.f64", 8, 1, 2, 2},   {"ld.shared.f32", 8, 2, 2, 1},
        {"ld.shared.f32", 128, 32, 32, 1}, {"ld.shared.f32", 0, 1, 1, 1}, {"ld.shared.f64", 8, 1, 2, 2},
    };
    for (uint32_t i = 0; i < 6; i++) {
        const coal_access *a = nth(f, COAL_SHARED, i);
        cr_expect(opcode_is(a, want[i].op), "access %u", i);
        cr_expect_eq(a->stride, want[i].stride, "access %u: stride %ld", i, (long)a->stride);
        cr_expect_eq(a->bank_degree, want[i].degree, "access %u: degree %d", i, a->bank_degree);
        cr_expect_eq(a->wavefronts, want[i].wavefronts, "access %u: wavefronts %d", i, a->wavefronts);
        cr_expect_eq(a->ideal_wavefronts, want[i].ideal, "access %u", i);
        cr_expect_eq(coal_is_finding(a), want[i].degree > 1);
    }
    done(&x);
}

static void lanes(int64_t *a, int64_t base, int64_t stride)
{
    for (int l = 0; l < 32; l++) a[l] = base + stride * l;
}

Test(coalescing, bank_model)
{
    int64_t a[32];
    bank_result b;
    static const struct {
        int64_t stride;
        unsigned bytes;
        uint32_t degree, wavefronts, phases;
    } cases[] = {
        {4, 4, 1, 1, 1},    {8, 4, 2, 2, 1},    {12, 4, 1, 1, 1},  {128, 4, 32, 32, 1}, {0, 4, 1, 1, 1},
        {1, 1, 1, 1, 1},    {2, 2, 1, 1, 1},    {8, 8, 1, 2, 2},   {16, 8, 2, 4, 2},    {16, 16, 1, 4, 4},
        {32, 16, 2, 8, 4},  {256, 8, 16, 32, 2}, {64, 4, 16, 16, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        lanes(a, 0, cases[i].stride);
        bank_conflicts(a, 32, cases[i].bytes, &b);
        cr_expect_eq(b.degree, cases[i].degree, "case %zu: degree %u", i, b.degree);
        cr_expect_eq(b.wavefronts, cases[i].wavefronts, "case %zu: wavefronts %u", i, b.wavefronts);
        cr_expect_eq(b.phases, cases[i].phases, "case %zu: phases %u", i, b.phases);
    }
    /* a shift by whole words only rotates the banks */
    lanes(a, 4 * 7, 8);
    bank_conflicts(a, 32, 4, &b);
    cr_expect_eq(b.degree, 2);
    /* half a warp two words apart reaches only half the banks, each once */
    lanes(a, 0, 8);
    bank_conflicts(a, 16, 4, &b);
    cr_expect_eq(b.degree, 1);
    /* ... but 17 lanes wrap round to bank 0 */
    bank_conflicts(a, 17, 4, &b);
    cr_expect_eq(b.degree, 2);
}

/* The degree counts the distinct words of each bank whatever order the
 * lanes name them in (a transposed tile: lane l at word 32 * (l * 7 % 32)
 * puts 32 distinct words in bank 0), below address 0 too (floor division:
 * word -1 is in bank 31), and repeats of a word broadcast. */
Test(coalescing, bank_model_lane_order)
{
    int64_t a[32];
    bank_result b;
    for (int l = 0; l < 32; l++) a[l] = 128 * ((l * 7) % 32);
    bank_conflicts(a, 32, 4, &b);
    cr_expect_eq(b.degree, 32);
    cr_expect_eq(b.wavefronts, 32);
    for (int l = 0; l < 32; l++) a[l] = 4 * (31 - l) - 128; /* words -1 .. -32, reversed: one per bank */
    bank_conflicts(a, 32, 4, &b);
    cr_expect_eq(b.degree, 1);
    for (int l = 0; l < 32; l++) a[l] = -4 - 128 * (l % 4); /* words -1, -33, -65, -97: all bank 31, each 8 times */
    bank_conflicts(a, 32, 4, &b);
    cr_expect_eq(b.degree, 4);
    bank_conflicts_atomic(a, 32, 4, &b);
    cr_expect_eq(b.degree, 32);
    for (int l = 0; l < 32; l++) a[l] = -2 + 4 * l; /* straddling: words -1 .. 31, bank 31 twice */
    bank_conflicts(a, 32, 4, &b);
    cr_expect_eq(b.degree, 2);
}

/* Atomics are not broadcast: lanes on one word serialise. */
Test(coalescing, bank_model_atomics)
{
    int64_t a[32];
    bank_result b;
    lanes(a, 0, 0); /* one word: 32 lanes in turn; a load is a broadcast */
    bank_conflicts_atomic(a, 32, 4, &b);
    cr_expect_eq(b.degree, 32);
    cr_expect_eq(b.wavefronts, 32);
    bank_conflicts(a, 32, 4, &b);
    cr_expect_eq(b.degree, 1);
    for (int l = 0; l < 32; l++) a[l] = 4 * (l / 2); /* pairs on a word */
    bank_conflicts_atomic(a, 32, 4, &b);
    cr_expect_eq(b.degree, 2);
    bank_conflicts(a, 32, 4, &b);
    cr_expect_eq(b.degree, 1);
    /* distinct words: the same degree as a load */
    static const int64_t strides[] = {4, 8, 12, 128};
    for (size_t i = 0; i < sizeof strides / sizeof strides[0]; i++) {
        bank_result l;
        lanes(a, 0, strides[i]);
        bank_conflicts_atomic(a, 32, 4, &b);
        bank_conflicts(a, 32, 4, &l);
        cr_expect_eq(b.degree, l.degree, "stride %ld", (long)strides[i]);
    }
    /* 8-byte atomics on one address: two half-warps of 16 */
    lanes(a, 0, 0);
    bank_conflicts_atomic(a, 32, 8, &b);
    cr_expect_eq(b.degree, 16);
    cr_expect_eq(b.phases, 2);
}

/* atom and red on shared memory (tests/data/coalescing/shared_banks.ptx),
 * explicit and generic through cvta.shared, are shared accesses with a bank
 * degree; the loads of the same words are broadcasts. */
Test(coalescing, shared_atomics)
{
    cx x = load("tests/data/coalescing/shared_banks.ptx");
    const coal_func *f = func(&x, "atom_uniform");
    cr_assert_eq(count(f, COAL_SHARED), 2);
    const coal_access *at = nth(f, COAL_SHARED, 0), *ld = nth(f, COAL_SHARED, 1);
    cr_expect(opcode_is(at, "atom.shared.add.u32"));
    cr_expect_eq(at->kind, COAL_ATOMIC);
    cr_expect_eq(at->pattern, COAL_P_UNIFORM);
    cr_expect_eq(at->bank_degree, 32);
    cr_expect_eq(at->wavefronts, 32);
    cr_expect(at->bank_serialised);
    cr_expect(coal_is_finding(at));
    cr_expect_eq(ld->bank_degree, 1);
    cr_expect(!coal_is_finding(ld));
    f = func(&x, "atom_pairs");
    cr_assert_eq(count(f, COAL_SHARED), 4);
    static const struct {
        const char *op;
        int32_t degree;
        bool serialised;
    } want[] = {{"atom.shared.add.u32", 2, true}, {"ld.shared.u32", 1, false}, {"red.shared.add.u32", 2, false},
                {"atom.shared.add.u32", 1, false}};
    for (uint32_t i = 0; i < 4; i++) {
        const coal_access *a = nth(f, COAL_SHARED, i);
        cr_expect(opcode_is(a, want[i].op), "access %u", i);
        cr_expect_eq(a->bank_degree, want[i].degree, "access %u: degree %d", i, a->bank_degree);
        cr_expect_eq(a->bank_degree_max, want[i].degree, "access %u", i);
        cr_expect_eq(a->bank_serialised, want[i].serialised, "access %u", i);
    }
    cr_expect_eq(nth(f, COAL_SHARED, 2)->kind, COAL_ATOMIC); /* red */
    f = func(&x, "atom_generic");
    cr_assert_eq(count(f, COAL_SHARED), 1);
    const coal_access *g = nth(f, COAL_SHARED, 0);
    cr_expect(!g->explicit_space);
    cr_expect_eq(g->prov, AP_SHARED);
    cr_expect_eq(g->stride, 128);
    cr_expect_eq(g->bank_degree, 32);
    cr_expect(!g->bank_serialised);
    cr_expect_eq(f->generic_unknown, 0);
    f = func(&x, "atom_gather");
    const coal_access *u = nth(f, COAL_SHARED, 0);
    cr_expect_eq(u->kind, COAL_ATOMIC);
    cr_expect(coal_bank_unknown(u));
    cr_expect(!coal_is_finding(u));
    done(&x);
}

/* s[tid.x * stride], stride a parameter: the degree by stride's trailing
 * zeros (gcd(stride, 32) for 4-byte words; doubles in half-warps up to
 * 16); in a 16x16 block, s[tid.y * stride + tid.x] is 2-way unless stride
 * is 16 times an odd number. */
Test(coalescing, bank_symbolic_stride)
{
    cx x = load("tests/data/coalescing/shared_banks.ptx");
    const coal_func *f = func(&x, "sym_stride");
    static const uint8_t want[3][COAL_TZ_CLASSES] = {
        {1, 2, 4, 8, 16, 32, 32, 32}, {1, 2, 4, 8, 16, 16, 16, 16}, {1, 2, 4, 8, 16, 32, 32, 32}};
    for (uint32_t i = 0; i < 3; i++) {
        const coal_access *a = nth(f, COAL_SHARED, i);
        cr_expect_eq(a->pattern, COAL_P_SYMBOLIC);
        cr_expect(a->sym_named);
        cr_expect(a->bank_cond, "access %u", i);
        cr_expect_eq(a->bank_degree, -1);
        cr_expect_eq(a->bank_degree_max, want[i][COAL_TZ_CLASSES - 1]);
        for (unsigned t = 0; t < COAL_TZ_CLASSES; t++)
            cr_expect_eq(a->bank_by_tz[t], want[i][t], "access %u, class %u: %u", i, t, a->bank_by_tz[t]);
        cr_expect(coal_is_finding(a));
        cr_expect(!coal_bank_unknown(a));
    }
    cr_expect_eq(nth(f, COAL_SHARED, 1)->ideal_wavefronts, 2);
    f = func(&x, "sym_rows");
    cr_expect_eq(f->origin, BLK_REQNTID);
    const coal_access *a = nth(f, COAL_SHARED, 0);
    static const uint8_t rows[COAL_TZ_CLASSES] = {2, 2, 2, 2, 1, 2, 2, 2};
    cr_expect(a->bank_cond);
    for (unsigned t = 0; t < COAL_TZ_CLASSES; t++) cr_expect_eq(a->bank_by_tz[t], rows[t], "class %u", t);
    done(&x);
    /* the corpus' runtime pitch: buf[tx * pitch + j] */
    x = load("ptx-corpus/sm_80/transpose_bank_conflict.ptx");
    f = func(&x, "transpose_square_runtime_pitch");
    uint32_t cond = 0;
    for (uint32_t i = 0; i < f->nacc; i++) {
        const coal_access *s = &f->acc[i];
        if (s->space != COAL_SHARED || !s->bank_cond) continue;
        cond++;
        cr_expect_eq(s->bank_degree_max, 32);
        cr_expect_eq(s->bank_by_tz[0], 1);
        cr_expect_eq(s->bank_by_tz[5], 32);
    }
    cr_expect_eq(cond, 5);
    done(&x);
}

Test(coalescing, residues)
{
    residue p = res_make(0, 8), four = res_exact(4), ntid = res_make(0, 5), ctaid = res_unknown();
    residue i = res_mul(ctaid, ntid); /* blockIdx.x * blockDim.x */
    cr_expect_eq(i.k, 5);
    cr_expect_eq(i.r, 0);
    residue a = res_add(p, res_mul(res_add(i, res_exact(1)), four)); /* p + 4*(i + 1) */
    cr_expect_eq(a.k, 7);
    cr_expect_eq(a.r, 4);
    residue m = res_meet(res_make(4, 8), res_make(8, 8)); /* 4 and 8 agree on the low 2 bits */
    cr_expect_eq(m.k, 2);
    cr_expect_eq(m.r, 0);
    cr_expect_eq(res_neg(res_exact(4)).r, (1u << RES_KMAX) - 4);
}

/* Known shapes: an x extent of 48 puts warps at different x positions. */
Test(coalescing, warp_lanes_positions)
{
    aff p;
    aff_const(&p, DIV_NCOEF2, 0);
    p.c[DIV_C_X] = 4;
    p.c[DIV_C_Y] = 4 * 48;
    warp_shape sh = {{48, 2, 1}};
    wl_result *w = malloc(sizeof *w);
    wl_eval(&p, &sh, res_exact(0), w);
    cr_assert_eq(w->status, WL_EXACT);
    cr_assert_eq(w->nwarps, 3);
    /* warp 1: x 32..47 of row 0, then x 0..15 of row 1: contiguous row-major */
    for (uint32_t l = 0; l < 32; l++) cr_expect_eq(w->warp[1].off[l], 4 * (int64_t)l);
    cr_expect_eq(w->warp[1].base.r, 128);
    /* a column-major layout breaks warp 1 at lane 16 */
    p.c[DIV_C_Y] = 4 * 1000;
    wl_eval(&p, &sh, res_exact(0), w);
    cr_expect_eq(w->warp[1].off[15], 60);
    cr_expect_eq(w->warp[1].off[16], 4000 - 128);
    /* unknown shape: tid.x·tid.y varies by an unknown amount */
    warp_shape none = {{0, 0, 0}};
    aff_const(&p, DIV_NCOEF2, 0);
    p.c[6] = 1; /* tid.x·tid.y */
    wl_eval(&p, &none, res_exact(0), w);
    cr_expect_eq(w->status, WL_SYMBOLIC);
    p.c[6] = 0;
    p.c[5] = 1; /* tid.x²: depends on the warp's x */
    wl_eval(&p, &none, res_exact(0), w);
    cr_expect_eq(w->status, WL_POSITION);
    free(w);
}

/* Warp-per-row CSR (ptx-corpus spmv_csr_vector): warp_id = gid >> 5 is the
 * same in every lane, lane = tid.x & 31 is laneid, so row_ptr[warp_id] is
 * one address, vals[start + lane] unit stride in the loop (a mu advanced by
 * 32 elements), and the store under lane == 0 runs on one lane. */
Test(coalescing, warp_per_row_idioms)
{
    cx x = load("ptx-corpus/sm_80/spmv_csr.ptx");
    const coal_func *f = func(&x, "spmv_csr_vector");
    expect_access(nth(f, COAL_GLOBAL, 0), COAL_P_UNIFORM, 0, 1, 1, 1, false);
    expect_access(nth(f, COAL_GLOBAL, 1), COAL_P_UNIFORM, 0, 1, 1, 1, false);
    const coal_access *vals = nth(f, COAL_GLOBAL, 2), *col = nth(f, COAL_GLOBAL, 3);
    cr_expect(opcode_is(vals, "ld.global.nc.f32") && opcode_is(col, "ld.global.nc.s32"));
    /* start = row_ptr[row] is loaded: lane 0 known only modulo 4 B, so 4
     * sectors when aligned, up to 5 (check's possible misaligned) */
    expect_access(vals, COAL_P_UNIT, 4, 4, 5, 4, false);
    expect_access(col, COAL_P_UNIT, 4, 4, 5, 4, false);
    cr_expect_eq(vals->sectors_lo, 4);
    cr_expect_eq(vals->dim_stride[DIV_C_LANE], 4);
    cr_expect(vals->has_step);
    cr_expect_eq(vals->step, 128);
    /* x[col_idx[j]]: a gather */
    const coal_access *gather = nth(f, COAL_GLOBAL, 4);
    cr_expect_eq(gather->pattern, COAL_P_IRREGULAR);
    cr_expect_neq(gather->why_stmt, UINT32_MAX);
    const coal_access *last = &f->acc[f->nacc - 1];
    cr_expect_eq(last->kind, COAL_STORE);
    cr_expect_eq(last->pattern, COAL_P_SINGLE);
    /* the scalar kernel's loop: one thread per row, the pointer moves 4 B
     * (16 B unrolled): neighbouring threads would be that far apart */
    f = func(&x, "spmv_csr_scalar");
    uint32_t hinted = 0;
    for (uint32_t i = 0; i < f->nacc; i++) {
        const coal_access *a = &f->acc[i];
        if (a->hint_kind == COAL_HINT_NONE) continue;
        hinted++;
        cr_expect_eq(a->hint_kind, COAL_HINT_LOOP_TO_LANES);
        cr_expect_eq(a->hint_sectors, a->step == 4 ? 4 : 16, "step %ld", (long)a->step);
    }
    cr_expect_geq(hinted, 2);
    done(&x);
    /* warp-per-row: the loop moves 128 B (512 B unrolled by 4) per
     * iteration; as lanes' stride that is 32 sectors, not fewer than the
     * gathers' 32: no hint (it would widen the stride) */
    x = load("ptx-corpus/sm_80/spmv_warp_row.ptx");
    f = func(&x, "spmv_warp_row");
    uint32_t stepped = 0;
    for (uint32_t i = 0; i < f->nacc; i++) {
        const coal_access *a = &f->acc[i];
        cr_expect_eq(a->hint_kind, COAL_HINT_NONE, "PTX line %u", f->pf->fn->stmts[a->stmt]->loc.line);
        if (a->uncoalesced && a->has_step && (a->step == 128 || a->step == 512)) {
            stepped++;
            cr_expect_eq(a->loop_sectors, 32);
            cr_expect_eq(coal_current_sectors(a), 32);
        }
    }
    cr_expect_geq(stepped, 4);
    done(&x);
    /* coeff[i & 255], which nvcc writes (i << 2) & 1020: blockIdx.x·blockDim.x
     * is a multiple of 32, so a warp's 32 indices stay inside one 256-block */
    x = load("ptx-corpus/sm_80/restrict_ldg.ptx");
    f = func(&x, "cache_hints");
    const coal_access *coeff = nth(f, COAL_GLOBAL, 1);
    cr_expect(opcode_is(coeff, "ld.global.cg.f32"));
    expect_access(coeff, COAL_P_UNIT, 4, 4, 4, 4, false);
    /* ain[i ^ 1]: lane-exact, neighbouring pairs swapped: the warp's 128
     * bytes in another order, 4 sectors (lane_eval.h) */
    expect_access(nth(f, COAL_GLOBAL, 2), COAL_P_PIECEWISE, INT64_MIN, 4, 4, 4, false);
    done(&x);
}

/* ---- lane-exact evaluation (analyses/lane_eval.h) ------------------------------ *
 * One kernel of tests/data/coalescing/lane_exact.ptx per verdict class that
 * the review of the golden files found wrong (20 false positives, 1 false
 * negative): non-affine integer ops on the thread index. */

/* bits[slot & 7] with slot loaded: the offset & 28 is in [0, 28], so every
 * lane's 4 bytes lie in [bits, bits + 32), one sector of a 256-aligned
 * base: exact.  bits[8 + (slot & 7)] likewise in the next sector. */
Test(coalescing, lane_exact_masked)
{
    cx x = load("tests/data/coalescing/lane_exact.ptx");
    const coal_func *f = func(&x, "masked");
    cr_assert_eq(count(f, COAL_GLOBAL), 3);
    expect_access(nth(f, COAL_GLOBAL, 1), COAL_P_BOUNDED, INT64_MIN, 1, 1, 1, false);
    expect_access(nth(f, COAL_GLOBAL, 2), COAL_P_BOUNDED, INT64_MIN, 1, 1, 1, false);
    cr_expect_eq(nth(f, COAL_GLOBAL, 1)->window, 32);
    cr_expect_eq(nth(f, COAL_GLOBAL, 2)->base.r % 128, 32);
    cr_expect(nth(f, COAL_GLOBAL, 1)->lane_eval);
    cr_expect_eq(flagged(f), 0);
    done(&x);
}

/* data[i] with the 64-bit index sign-extended by shl.b64 32 / shr.s64 30:
 * i·4 (no wraparound), unit stride. */
Test(coalescing, lane_exact_sext_idiom)
{
    cx x = load("tests/data/coalescing/lane_exact.ptx");
    const coal_func *f = func(&x, "sext_idx");
    expect_access(nth(f, COAL_GLOBAL, 0), COAL_P_UNIT, 4, 4, 4, 4, false);
    expect_access(nth(f, COAL_GLOBAL, 1), COAL_P_UNIT, 4, 4, 4, 4, false);
    cr_expect_eq(flagged(f), 0);
    done(&x);
}

/* out[i / 8] through nvcc's signed-division idiom: i = ctaid·ntid + tid is
 * >= 0, so (i >> 31) is 0 and the warp writes 4 consecutive ints, 8 lanes
 * each: 16 bytes, 1 sector, ideal 1.  The warp form knows it (i / 8 is
 * U + lane / 8): lane_eval is not needed. */
Test(coalescing, lane_exact_div8)
{
    cx x = load("tests/data/coalescing/lane_exact.ptx");
    const coal_func *f = func(&x, "div8");
    const coal_access *a = nth(f, COAL_GLOBAL, 0);
    expect_access(a, COAL_P_PIECEWISE, INT64_MIN, 1, 1, 1, false);
    cr_expect(!a->lane_eval);
    wform wf;
    cr_assert(div_warp_form(f->r, a->addr_value, &wf));
    cr_expect_eq(wf.kind, WF_LANE);
    for (unsigned l = 0; l < WF_LANES; l++) cr_expect_eq(wf.g[l], 4 * (l / 8), "lane %u", l);
    cr_expect_eq(a->lines, 1);
    done(&x);
}

/* A[(lane/8)·(K/2) + lane%8], K a parameter: 4 groups of 8 lanes, 32
 * contiguous bytes each, K/2·4 bytes apart.  Only a bound: each group is
 * one sector when its start is 32-aligned (2K ≡ 0 mod 32), so 4 = ideal
 * when aligned, but the three groups after lane 0's may each straddle two
 * sectors: up to 7, a possible misaligned finding. */
Test(coalescing, lane_exact_mma_a)
{
    cx x = load("tests/data/coalescing/lane_exact.ptx");
    const coal_func *f = func(&x, "mma_a");
    const coal_access *a = nth(f, COAL_GLOBAL, 0);
    expect_access(a, COAL_P_SYMBOLIC, INT64_MIN, -1, 7, 4, false);
    cr_expect_eq(a->sectors_asm, 4);
    cr_expect_eq(a->ngroups, 4);
    cr_expect_eq(flagged(f), 0);
    coal_verdict v;
    cr_assert(coal_verdict_of(a, &v));
    cr_expect(v.rule == COAL_V_MISALIGNED && v.certainty == COAL_POSSIBLE && v.dep == COAL_DEP_ROWS && v.excess == 3);
    done(&x);
}

/* B[(lane%4)·8 + lane/4] built with shl/and/or: a permutation of 32
 * consecutive words, 4 sectors exactly, ideal 4 (and +128 B likewise). */
Test(coalescing, lane_exact_mma_b)
{
    cx x = load("tests/data/coalescing/lane_exact.ptx");
    const coal_func *f = func(&x, "mma_b");
    expect_access(nth(f, COAL_GLOBAL, 0), COAL_P_PIECEWISE, INT64_MIN, 4, 4, 4, false);
    expect_access(nth(f, COAL_GLOBAL, 1), COAL_P_PIECEWISE, INT64_MIN, 4, 4, 4, false);
    cr_expect_eq(flagged(f), 0);
    done(&x);
}

/* tile[c % 64][c / 64] of float tile[64][68], c = tid.x: the warp's 32
 * consecutive c share one c / 64, the word is 68·col + r and the bank
 * (4·col + r) mod 32: 8 banks, 4 lanes each, 4-way (the review's false
 * negative).  Bit 5 of the warp's first tid.x is not known: both cases are
 * evaluated, the worst reported. */
Test(coalescing, lane_exact_tile_4way)
{
    cx x = load("tests/data/coalescing/lane_exact.ptx");
    const coal_func *f = func(&x, "tile_col");
    const coal_access *s = nth(f, COAL_SHARED, 0);
    cr_expect_eq(s->pattern, COAL_P_STRIDE);
    cr_expect_eq(s->stride, 272);
    cr_expect_eq(s->bank_degree, 4);
    cr_expect_eq(s->wavefronts, 4);
    cr_expect_eq(s->ideal_wavefronts, 1);
    /* the warp form: 272·lane + U for every warp, whatever tid.x's bit 5 */
    cr_expect_eq(s->nwarps, 1);
    cr_expect(coal_is_finding(s));
    expect_access(nth(f, COAL_GLOBAL, 0), COAL_P_UNIT, 4, 4, 4, 4, false);
    done(&x);
}

/* s[t ^ 1]: a permutation of the warp's 32 words, degree 1 (the bitonic
 * sort's s[t ^ j]); s[t ^ k] with k a parameter: the degree is unknown and
 * the access is reported as not analysed, never silently dropped. */
Test(coalescing, lane_exact_xor_and_unknown_bank)
{
    cx x = load("tests/data/coalescing/lane_exact.ptx");
    const coal_func *f = func(&x, "xor_shared");
    const coal_access *s = nth(f, COAL_SHARED, 0);
    cr_expect_eq(s->pattern, COAL_P_PIECEWISE);
    cr_expect_eq(s->bank_degree, 1);
    cr_expect(!coal_bank_unknown(s));
    s = nth(f, COAL_SHARED, 1);
    cr_expect_eq(s->pattern, COAL_P_IRREGULAR);
    cr_expect_eq(s->bank_degree, -1);
    cr_expect(coal_bank_unknown(s));
    cr_expect(!coal_is_finding(s));
    done(&x);
}

/* name[i % 6] with nvcc's magic-number remainder (mul.hi.s32 by
 * 715827883): i >= 0, so the offset is in [0, 5] and the bytes lie in one
 * sector of the 7-byte array when it starts on one (1 sector, ideal 1),
 * but its .align 1 lets the 6-byte window straddle two: a bound of 2. */
Test(coalescing, lane_exact_magic_rem)
{
    cx x = load("tests/data/coalescing/lane_exact.ptx");
    const coal_func *f = func(&x, "rem6");
    const coal_access *a = nth(f, COAL_GLOBAL, 0);
    expect_access(a, COAL_P_BOUNDED, INT64_MIN, -1, 2, 1, false);
    cr_expect_eq(a->sectors_asm, 1);
    cr_expect_eq(a->window, 6);
    cr_expect_eq(flagged(f), 0);
    done(&x);
}
