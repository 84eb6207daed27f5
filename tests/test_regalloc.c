/* The register allocator's pieces: liveness and pressure, the linear scan's
 * choices, the rule each spilled value gets (Fig. 18 and the sm_70+ rule),
 * the shared area, the rewrite, and the whole pass over the corpus (the
 * pressure it leaves, printing as a fixed point, determinism). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "linear_scan.h"
#include "printer.h"
#include "regalloc.h"
#include "shared_area.h"
#include "spill_place.h"
#include "testutil.h"

/* ---- fixture: one function with everything the pass computes ------------------------------- */
typedef struct fx {
    ptx_module *m;
    prog *p;
    arena a;
    const prog_func *pf;
    ra_live *L;
} fx;

static fx fx_open(const char *ptx, const char *fn)
{
    fx f;
    memset(&f, 0, sizeof f);
    f.m = tu_parse_ok("inline.ptx", ptx);
    ptx_diags d;
    ptx_diags_init(&d);
    f.p = prog_build(f.m, PROG_GSA, fn, &d);
    cr_assert_not_null(f.p);
    ptx_diags_free(&d);
    cr_assert_eq(f.p->nfuncs, 1);
    f.pf = &f.p->funcs[0];
    arena_init(&f.a);
    f.L = ra_live_build(f.pf->fn, f.pf->g, &f.a);
    return f;
}

static void fx_close(fx *f)
{
    arena_free(&f->a);
    prog_free(f->p);
    ptx_module_free(f->m);
}

static uint32_t reg(const ptx_func *fn, const char *name)
{
    for (uint32_t r = 0; r < fn->nregs; r++)
        if (ptx_str_eq(fn->regs[r].name, name)) return r;
    cr_assert_fail("no register %s", name);
    return 0;
}

/* ---- liveness and pressure ----------------------------------------------------------------- */
static const char *const pressure_ptx =
    ".version 7.0\n.target sm_80\n.address_size 64\n"
    ".visible .entry k(.param .u64 out)\n{\n"
    "  .reg .pred %p<3>;\n  .reg .b16 %rs<3>;\n  .reg .b32 %r<6>;\n  .reg .b64 %rd<4>;\n"
    "  ld.param.u64 %rd1, [out];\n"        /* rd1 */
    "  mov.u32 %r1, %tid.x;\n"             /* rd1 r1: 3 */
    "  mov.u16 %rs1, 3;\n"                 /* + rs1: 4 */
    "  setp.lt.u32 %p1, %r1, 16;\n"        /* + p1 */
    "  setp.lt.u32 %p2, %r1, 8;\n"         /* + p2: 2 predicates */
    "  mul.wide.u32 %rd2, %r1, 4;\n"       /* rd1 r1 rs1 rd2 p1 p2: 6 units */
    "  add.s64 %rd3, %rd1, %rd2;\n"        /* rd1 rd2 read, rd3 written: 2 + 2 + 2 (r1 rs1 live) = 8 */
    "  cvt.u32.u16 %r2, %rs1;\n"
    "  @%p1 add.u32 %r2, %r2, %r1;\n"
    "  @%p2 st.global.u32 [%rd3], %r2;\n"
    "  ret;\n}\n";

Test(regalloc, pressure_counts_units_per_class)
{
    fx f = fx_open(pressure_ptx, NULL);
    ra_pressure p;
    ra_live_pressure(f.L, &p);
    /* after the mul.wide: rd1 rd2 (2 + 2) r1 rs1 (1 + 1); the add then
     * reads rd1 and rd2 for the last time */
    cr_expect_eq(p.gpr, 6, "%u", p.gpr);
    cr_expect_eq(f.pf->fn->stmts[p.gpr_stmt]->loc.line, 15, "%u", f.pf->fn->stmts[p.gpr_stmt]->loc.line);
    cr_expect_eq(p.pred, 2, "%u", p.pred);
    cr_expect_eq(ra_type_units(PTX_T_B64, 0), 2);
    cr_expect_eq(ra_type_units(PTX_T_F16, 0), 1);
    cr_expect_eq(ra_type_units(PTX_T_F32, 4), 4);
    cr_expect_eq(ra_type_class(PTX_T_PRED), RA_CLS_PRED);
    cr_expect_eq(ra_type_class(PTX_T_B32), RA_CLS_GPR);
    /* the guarded add may keep r2's old value: r2 stays live into it
     * (instruction 8), and a register is not live before its definition */
    const ra_occ *o = &f.L->occ[f.L->occ_off[8]];
    cr_expect_eq(o->reg, reg(f.pf->fn, "%p1"));
    bool maydef = false;
    for (uint32_t j = f.L->occ_off[8]; j < f.L->occ_off[9]; j++)
        if (f.L->occ[j].reg == reg(f.pf->fn, "%r2")) maydef = f.L->occ[j].role == (RA_OCC_USE | RA_OCC_DEF | RA_OCC_MAYDEF);
    cr_expect(maydef);
    cr_expect(!ra_set_has(f.L->in + (size_t)f.L->inst_block[0] * f.L->words, reg(f.pf->fn, "%r1")));
    fx_close(&f);
}

/* `analyze`'s figure from the same liveness: the most live between two
 * instructions, where the allocator's counts what an instruction defines
 * even if nothing reads it. */
Test(regalloc, peak_between_instructions)
{
    fx f = fx_open(pressure_ptx, NULL);
    ra_peak k;
    ra_live_peak(f.L, &k);
    /* before the add: rd1 rd2 r1 rs1, found first walking backwards */
    cr_expect_eq(k.regs32, 6, "%u", k.regs32);
    cr_expect_eq(k.preds, 2, "%u", k.preds);
    cr_expect_eq(f.pf->fn->stmts[k.at_stmt]->loc.line, 16, "%u", f.pf->fn->stmts[k.at_stmt]->loc.line);
    fx_close(&f);
    static const char *const dead_ptx =
        ".version 7.0\n.target sm_80\n.address_size 64\n"
        ".visible .entry k(.param .u64 out)\n{\n"
        "  .reg .b32 %r<3>;\n  .reg .b64 %rd<3>;\n"
        "  ld.param.u64 %rd1, [out];\n"
        "  mov.u32 %r1, %tid.x;\n"
        "  mov.b64 %rd2, 5;\n" /* never read */
        "  st.global.u32 [%rd1], %r1;\n"
        "  ret;\n}\n";
    f = fx_open(dead_ptx, NULL);
    ra_live_peak(f.L, &k);
    ra_pressure p;
    ra_live_pressure(f.L, &p);
    cr_expect_eq(k.regs32, 3, "%u", k.regs32);
    cr_expect_eq(k.preds, 0);
    cr_expect_eq(f.pf->fn->stmts[k.at_stmt]->loc.line, 11, "%u", f.pf->fn->stmts[k.at_stmt]->loc.line);
    cr_expect_eq(p.gpr, 5, "%u", p.gpr);
    fx_close(&f);
}

static const char *const loop_ptx =
    ".version 7.0\n.target sm_80\n.address_size 64\n"
    ".visible .entry k(.param .u64 out, .param .u32 n)\n{\n"
    "  .reg .pred %p<2>;\n  .reg .b32 %r<8>;\n  .reg .b64 %rd<3>;\n"
    "  ld.param.u64 %rd1, [out];\n"
    "  ld.param.u32 %r1, [n];\n"
    "  mov.u32 %r2, 0;\n"
    "  mov.u32 %r3, 0;\n"
    "$L_loop:\n"
    "  add.s32 %r3, %r3, %r2;\n"
    "  add.s32 %r2, %r2, 1;\n"
    "  setp.lt.u32 %p1, %r2, %r1;\n"
    "  @%p1 bra $L_loop;\n"
    "  st.global.u32 [%rd1], %r3;\n"
    "  ret;\n}\n";

Test(regalloc, liveness_around_a_loop)
{
    fx f = fx_open(loop_ptx, NULL);
    const ptx_func *fn = f.pf->fn;
    /* every register is live around the back edge into the loop header */
    uint32_t header = f.L->inst_block[4];
    const uint64_t *in = f.L->in + (size_t)header * f.L->words;
    cr_expect(ra_set_has(in, reg(fn, "%rd1")));
    cr_expect(ra_set_has(in, reg(fn, "%r1")));
    cr_expect(ra_set_has(in, reg(fn, "%r2")));
    cr_expect(ra_set_has(in, reg(fn, "%r3")));
    cr_expect(!ra_set_has(in, reg(fn, "%p1")));
    ra_pressure p;
    ra_live_pressure(f.L, &p);
    cr_expect_eq(p.gpr, 5);
    fx_close(&f);
}

/* ---- the scan ------------------------------------------------------------------------------ */
Test(regalloc, scan_spills_the_farthest_next_use)
{
    fx f = fx_open(loop_ptx, NULL);
    const ptx_func *fn = f.pf->fn;
    uint8_t unsp[16] = {0};
    ra_find_unspillable(f.pf, f.L, unsp);
    cr_expect(unsp[reg(fn, "%p1")]);
    ra_scan sc;
    /* 5 units in the loop: rd1 (read after it) goes first, its next use is the farthest */
    for (unsigned k = 3; k <= 4; k++) {
        ra_linear_scan(f.L, ra_intervals_build(f.L, &f.a), unsp, NULL, NULL, k, NULL, &f.a, &sc);
        cr_expect_eq(sc.nspilled, 1);
        cr_expect(sc.spilled[reg(fn, "%rd1")]);
        cr_expect_eq(sc.over_budget, 0);
        cr_expect_leq(sc.max_pressure, k);
    }
    /* two units: then %r1 (next read at the setp, after r2's and r3's
     * reads), and at the setp, where r1's reload needs a unit, %r3 */
    ra_linear_scan(f.L, ra_intervals_build(f.L, &f.a), unsp, NULL, NULL, 2, NULL, &f.a, &sc);
    cr_expect(sc.spilled[reg(fn, "%rd1")]);
    cr_expect(sc.spilled[reg(fn, "%r1")]);
    cr_expect(sc.spilled[reg(fn, "%r3")]);
    cr_expect_eq(sc.nspilled, 3, "%u", sc.nspilled);
    /* the store needs its address (2) and value (1) whatever is spilled */
    cr_expect_eq(sc.over_budget, 1);
    cr_expect_eq(sc.max_pressure, 3);
    ra_linear_scan(f.L, ra_intervals_build(f.L, &f.a), unsp, NULL, NULL, 5, NULL, &f.a, &sc);
    cr_expect_eq(sc.nspilled, 0);
    fx_close(&f);
}

/* ---- placement: the rules of Fig. 18 and the sm_70+ rule ------------------------------------ */
static const char *const rules_ptx =
    ".version 7.0\n.target sm_80\n.address_size 64\n"
    ".visible .entry k(.param .u64 out, .param .u32 n)\n{\n"
    "  .reg .pred %p<4>;\n  .reg .b32 %r<20>;\n  .reg .b64 %rd<10>;\n  .reg .f32 %f<3>;\n"
    "  ld.param.u64 %rd1, [out];\n"
    "  ld.param.u32 %r1, [n];\n"          /* uniform, one definition: (ii) */
    "  mov.u32 %r2, 7;\n"                 /* constant: (i) */
    "  mov.u32 %r3, %tid.x;\n"            /* tid.x: (iii) */
    "  shl.b32 %r4, %r3, 2;\n"            /* 4 tid.x: (iii) */
    "  add.s32 %r5, %r4, %r1;\n"          /* 4 tid.x + ⊥: (iv) */
    "  cvta.to.global.u64 %rd3, %rd1;\n"  /* uniform: (ii) */
    "  mul.wide.u32 %rd4, %r3, 4;\n"      /* 4 tid.x at 64 bits: (iii) */
    "  add.s64 %rd5, %rd3, %rd4;\n"       /* 4 tid.x + ⊥ at 64 bits: (iv) */
    "  ld.global.u32 %r6, [%rd5];\n"      /* divergent */
    "  ld.volatile.global.u32 %r7, [%rd3];\n" /* uniform, but lanes may read it at different times */
    "  add.s32 %r15, %r7, 1;\n"           /* ... and so is what depends on it */
    "  activemask.b32 %r16;\n"            /* the lanes running together now */
    "  mov.u32 %r17, %warpid;\n"          /* where the warp runs now */
    "  setp.eq.u32 %p1, %r1, 0;\n"
    "  @%p1 ld.global.u32 %r8, [%rd3];\n" /* guarded */
    "  mov.u32 %r11, 3;\n"
    "  add.u32 %r11, %r1, %r11;\n"        /* two definitions */
    "  mov.f32 %f1, 0f3F800000;\n"        /* a float constant: no rematerialisation, (ii) */
    "  mov.u32 %r12, 0;\n"
    "$L_loop:\n"
    "  add.s32 %r13, %r12, %r1;\n"        /* one definition, in a loop */
    "  st.global.u32 [%rd3], %r13;\n"
    "  add.s32 %r12, %r12, 1;\n"
    "  setp.lt.u32 %p2, %r12, %r1;\n"
    "  @%p2 bra $L_loop;\n"
    "  st.global.u32 [%rd5], %r2;\n"
    "  st.global.u32 [%rd5], %r4;\n"
    "  st.global.u32 [%rd5], %r5;\n"
    "  st.global.u32 [%rd5], %r6;\n"
    "  st.global.u32 [%rd5], %r15;\n"
    "  st.global.u32 [%rd5], %r16;\n"
    "  st.global.u32 [%rd5], %r17;\n"
    "  st.global.u32 [%rd5], %r8;\n"
    "  st.global.u32 [%rd5], %r11;\n"
    "  st.global.f32 [%rd5], %f1;\n"
    "  st.global.u64 [%rd3], %rd4;\n"
    "  ret;\n}\n"
    ".func (.reg .b32 %ret) f(.reg .b32 %a)\n{\n"
    "  .reg .b32 %s<3>;\n"
    "  ld.global.u32 %s1, [0];\n"
    "  add.u32 %s2, %s1, %a;\n"
    "  mov.u32 %ret, %s2;\n"
    "  ret;\n}\n";

typedef struct placed {
    fx f;
    ra_spill sp[64];
} placed;

/* Every general-purpose register that can be spilled is; sync: with the
 * synchronised rule for values written more than once. */
static void place_src(placed *P, const char *src, const char *fn, enum ra_mode mode, bool unsafe, bool sync)
{
    P->f = fx_open(src, fn);
    fx *f = &P->f;
    cr_assert_lt(f->L->nregs, 64);
    uint8_t unsp[64] = {0}, spilled[64] = {0};
    ra_find_unspillable(f->pf, f->L, unsp);
    for (uint32_t r = 0; r < f->L->nregs; r++) spilled[r] = !unsp[r];
    div_options o;
    memset(&o, 0, sizeof o);
    div_result *dr = div_analyse(f->pf, mode == RA_MODE_DIV ? DIV_AN_SIMPLE : DIV_AN_AFFINE, &o, &f->a);
    ra_reginfo *ri = ra_reginfo_build(f->pf, f->L, &f->a);
    uint8_t *unstable = ra_unstable_values(f->pf, &f->a);
    ra_options ro;
    memset(&ro, 0, sizeof ro);
    ro.mode = mode;
    ro.unsafe_shared_reuse = unsafe;
    uint8_t *sync_why = sync ? ra_sync_rule(f->pf, f->L, dr, ri, unstable, true, &f->a) : NULL;
    ra_place(f->pf, ra_absvals_build(f->pf, dr, f->L, &f->a), ri, unstable, sync_why, f->L, spilled, &ro, P->sp);
}

static void place_all(placed *P, const char *fn, enum ra_mode mode, bool unsafe)
{
    place_src(P, rules_ptx, fn, mode, unsafe, false);
}

static void expect_place(placed *P, const char *name, enum ra_place place, enum ra_why why)
{
    const ra_spill *s = &P->sp[reg(P->f.pf->fn, name)];
    cr_expect_eq(s->place, place, "%s: %s, want %s", name, ra_place_name((enum ra_place)s->place),
                 ra_place_name(place));
    cr_expect_eq(s->why, why, "%s: why %s, want %s", name, ra_why_name((enum ra_why)s->why), ra_why_name(why));
}

Test(regalloc, rules_in_aff_mode)
{
    placed P;
    place_all(&P, "k", RA_MODE_AFF, false);
    expect_place(&P, "%r1", RA_P_SHARED, RA_WHY_NONE);
    expect_place(&P, "%rd1", RA_P_SHARED, RA_WHY_NONE);
    expect_place(&P, "%rd3", RA_P_SHARED, RA_WHY_NONE);
    expect_place(&P, "%r2", RA_P_CONST, RA_WHY_NONE);
    expect_place(&P, "%r3", RA_P_AFFINE, RA_WHY_NONE);
    expect_place(&P, "%r4", RA_P_AFFINE, RA_WHY_NONE);
    expect_place(&P, "%rd4", RA_P_AFFINE, RA_WHY_NONE);
    expect_place(&P, "%r5", RA_P_SHARED_AFFINE, RA_WHY_NONE);
    expect_place(&P, "%rd5", RA_P_SHARED_AFFINE, RA_WHY_NONE);
    expect_place(&P, "%r6", RA_P_LOCAL, RA_WHY_NONE);
    expect_place(&P, "%r7", RA_P_LOCAL, RA_WHY_UNSTABLE);
    expect_place(&P, "%r15", RA_P_LOCAL, RA_WHY_UNSTABLE);
    expect_place(&P, "%r16", RA_P_LOCAL, RA_WHY_UNSTABLE);
    expect_place(&P, "%r17", RA_P_LOCAL, RA_WHY_UNSTABLE);
    expect_place(&P, "%r11", RA_P_LOCAL, RA_WHY_MULTI_DEF);
    expect_place(&P, "%r13", RA_P_LOCAL, RA_WHY_LOOP);
    expect_place(&P, "%f1", RA_P_SHARED, RA_WHY_NONE);
    const ra_spill *s = &P.sp[reg(P.f.pf->fn, "%rd4")];
    cr_expect_eq(s->coef[0], 0);
    cr_expect_eq(s->coef[DIV_C_X], 4);
    s = &P.sp[reg(P.f.pf->fn, "%r2")];
    cr_expect_eq(s->coef[0], 7);
    cr_expect_eq(s->state, DIV_UNIFORM);
    cr_expect_eq(P.sp[reg(P.f.pf->fn, "%r5")].state, DIV_AFFINE);
    cr_expect_eq(ra_coord_terms(&P.sp[reg(P.f.pf->fn, "%r5")]), 1u << DIV_C_X);
    /* predicates are never spilled */
    expect_place(&P, "%p1", RA_P_NONE, RA_WHY_NONE);
    fx_close(&P.f);
}

Test(regalloc, rules_in_div_mode)
{
    placed P;
    place_all(&P, "k", RA_MODE_DIV, false);
    expect_place(&P, "%r1", RA_P_SHARED, RA_WHY_NONE);
    expect_place(&P, "%r2", RA_P_SHARED, RA_WHY_NONE); /* DivRA has rule (ii) only */
    expect_place(&P, "%r3", RA_P_LOCAL, RA_WHY_NONE);  /* divergent for the simple analysis */
    expect_place(&P, "%r5", RA_P_LOCAL, RA_WHY_NONE);
    expect_place(&P, "%r8", RA_P_LOCAL, RA_WHY_PARTIAL);
    expect_place(&P, "%r11", RA_P_LOCAL, RA_WHY_MULTI_DEF);
    expect_place(&P, "%r13", RA_P_LOCAL, RA_WHY_LOOP);
    cr_expect_eq(P.sp[reg(P.f.pf->fn, "%r3")].state, DIV_DIVERGENT);
    fx_close(&P.f);
}

Test(regalloc, rules_in_linear_mode_and_unsafe)
{
    placed P;
    place_all(&P, "k", RA_MODE_LINEAR, false);
    expect_place(&P, "%r1", RA_P_LOCAL, RA_WHY_MODE);
    expect_place(&P, "%r6", RA_P_LOCAL, RA_WHY_NONE);
    fx_close(&P.f);
    /* the paper's rule, without the sm_70+ conditions: every uniform value shares */
    place_all(&P, "k", RA_MODE_DIV, true);
    expect_place(&P, "%r11", RA_P_SHARED, RA_WHY_NONE);
    expect_place(&P, "%r13", RA_P_SHARED, RA_WHY_NONE);
    fx_close(&P.f);
}

/* The synchronised rule: values written more than once share a slot when
 * every definition is in a block every lane of the warp executes equally
 * often (here: outside any branch, or in a loop whose branch is uniform). */
Test(regalloc, rules_sync_values_written_more_than_once)
{
    placed P;
    place_src(&P, rules_ptx, "k", RA_MODE_AFF, false, true);
    expect_place(&P, "%r13", RA_P_SHARED, RA_WHY_NONE); /* defined in a uniform loop */
    expect_place(&P, "%r12", RA_P_SHARED, RA_WHY_NONE); /* its counter: two definitions */
    expect_place(&P, "%r11", RA_P_SHARED, RA_WHY_NONE); /* two definitions, straight-line */
    cr_expect(P.sp[reg(P.f.pf->fn, "%r13")].sync);
    cr_expect(P.sp[reg(P.f.pf->fn, "%r12")].sync);
    cr_expect(P.sp[reg(P.f.pf->fn, "%r11")].sync);
    expect_place(&P, "%r1", RA_P_SHARED, RA_WHY_NONE);  /* written once: no barrier */
    cr_expect(!P.sp[reg(P.f.pf->fn, "%r1")].sync);
    /* what the write-once rule refuses for other reasons stays refused */
    expect_place(&P, "%r7", RA_P_LOCAL, RA_WHY_UNSTABLE);
    fx_close(&P.f);
    place_src(&P, rules_ptx, "k", RA_MODE_DIV, false, true);
    expect_place(&P, "%r8", RA_P_LOCAL, RA_WHY_PARTIAL);
    fx_close(&P.f);
}

/* The same loop under a divergent branch (tid.x < n): the lanes that skip
 * it are not at the barrier, so no slot; and a uniform branch does not
 * split the warp. */
static const char *const split_ptx =
    ".version 7.0\n.target sm_80\n.address_size 64\n"
    ".visible .entry k(.param .u64 out, .param .u32 n)\n{\n"
    "  .reg .pred %p<4>;\n  .reg .b32 %r<20>;\n  .reg .b64 %rd<10>;\n"
    "  ld.param.u64 %rd1, [out];\n"
    "  ld.param.u32 %r1, [n];\n"
    "  mov.u32 %r3, %tid.x;\n"
    "  setp.ge.u32 %p3, %r1, 100;\n"       /* uniform */
    "  @%p3 bra $L_big;\n"
    "  mov.u32 %r14, 0;\n"
    "$L_u:\n"                              /* a uniform loop after a uniform branch */
    "  add.s32 %r14, %r14, %r1;\n"
    "  setp.lt.u32 %p2, %r14, 1000;\n"
    "  @%p2 bra $L_u;\n"
    "  st.global.u32 [%rd1], %r14;\n"
    "$L_big:\n"
    "  setp.ge.u32 %p1, %r3, %r1;\n"       /* divergent */
    "  @%p1 bra $L_done;\n"
    "  mov.u32 %r12, 0;\n"
    "$L_loop:\n"
    "  add.s32 %r13, %r12, %r1;\n"
    "  st.global.u32 [%rd1], %r13;\n"
    "  add.s32 %r12, %r12, 1;\n"
    "  setp.lt.u32 %p2, %r12, %r1;\n"
    "  @%p2 bra $L_loop;\n"
    "$L_done:\n"
    "  ret;\n}\n";

Test(regalloc, rules_sync_not_where_the_warp_may_be_split)
{
    placed P;
    place_src(&P, split_ptx, "k", RA_MODE_AFF, false, true);
    expect_place(&P, "%r13", RA_P_LOCAL, RA_WHY_SPLIT);
    expect_place(&P, "%r12", RA_P_LOCAL, RA_WHY_SPLIT);
    expect_place(&P, "%r14", RA_P_SHARED, RA_WHY_NONE);
    cr_expect(P.sp[reg(P.f.pf->fn, "%r14")].sync);
    /* the blocks: the loop of %r14 is executed by every lane, the one of %r13 not */
    div_options o;
    memset(&o, 0, sizeof o);
    const prog_func *pf = P.f.pf;
    div_result *dr = div_analyse(pf, DIV_AN_AFFINE, &o, &P.f.a);
    uint8_t *full = ra_warp_full_blocks(pf, dr, ra_unstable_values(pf, &P.f.a), &P.f.a);
    const ssa_func *s = pf->ssa;
    unsigned seen = 0;
    for (uint32_t v = 0; v < s->nvalues; v++) {
        const ssa_value *x = &s->values[v];
        if (x->kind != SSA_V_INST) continue;
        if (x->reg == reg(pf->fn, "%r14")) {
            cr_expect(full[x->block]);
            seen++;
        }
        if (x->reg == reg(pf->fn, "%r13")) {
            cr_expect(!full[x->block]);
            seen++;
        }
    }
    cr_expect_eq(seen, 3);
    /* without sm_70 and PTX 6.0 (no strong slot accesses): no slot */
    uint8_t *why = ra_sync_rule(pf, P.f.L, dr, ra_reginfo_build(pf, P.f.L, &P.f.a), ra_unstable_values(pf, &P.f.a),
                                false, &P.f.a);
    cr_expect_neq(why[reg(pf->fn, "%r14")], RA_WHY_NONE);
    fx_close(&P.f);
}

Test(regalloc, rules_in_a_func)
{
    placed P;
    place_all(&P, "f", RA_MODE_AFF, false);
    /* a .func may run many times per thread: no shared slot */
    expect_place(&P, "%s1", RA_P_LOCAL, RA_WHY_FUNC);
    /* parameters and return registers stay in registers */
    expect_place(&P, "%a", RA_P_NONE, RA_WHY_NONE);
    expect_place(&P, "%ret", RA_P_NONE, RA_WHY_NONE);
    fx_close(&P.f);
}

/* ---- the shared area --------------------------------------------------------------------- */
static const char *const area_ptx =
    ".version 7.0\n.target sm_80\n.address_size 64\n"
    ".shared .align 4 .b8 smem_a[1000];\n"   /* named by f, which k1 calls */
    ".shared .align 16 .b8 smem_b[256];\n"   /* named by k1 */
    ".shared .align 4 .b8 smem_c[4096];\n"   /* named by nobody */
    ".extern .shared .align 16 .b8 dyn[];\n" /* dynamic: not known before launch */
    ".func f()\n{\n  .reg .b32 %r<2>;\n  mov.u32 %r1, smem_a;\n  ret;\n}\n"
    ".visible .entry k1()\n.reqntid 64, 2, 1\n{\n  .reg .b32 %r<2>;\n  .shared .align 8 .b8 own[24];\n"
    "  mov.u32 %r1, smem_b;\n  call f;\n  ret;\n}\n"
    ".visible .entry k2()\n.maxntid 96, 1, 1\n{\n  .reg .b64 %rd<2>;\n  prot: .callprototype _ ();\n"
    "  mov.u64 %rd1, f;\n  call %rd1, prot;\n  ret;\n}\n"
    ".visible .entry k3()\n{\n  ret;\n}\n";

Test(regalloc, shared_area_sizes)
{
    ptx_module *m = tu_parse_ok("area.ptx", area_ptx);
    const ptx_func *k1 = ptx_module_find_func(m, "k1"), *k2 = ptx_module_find_func(m, "k2"),
                   *k3 = ptx_module_find_func(m, "k3");
    /* own 24, then smem_a (align 4) to 1024, smem_b (align 16) to 1280 */
    cr_expect_eq(ra_static_shared(m, k1), 1280, "%u", ra_static_shared(m, k1));
    /* a call through a pointer may reach anything: every module-scope one */
    cr_expect_eq(ra_static_shared(m, k2), 1008 + 256 + 4096, "%u", ra_static_shared(m, k2));
    cr_expect_eq(ra_static_shared(m, k3), 0);
    cr_expect_eq(ra_kernel_threads(k1, 1024), 128);
    cr_expect_eq(ra_kernel_threads(k2, 1024), 96);
    cr_expect_eq(ra_kernel_threads(k3, 256), 256);
    cr_expect(!ra_kernel_one_dim(k1));
    cr_expect(ra_kernel_one_dim(k2));
    cr_expect(!ra_kernel_one_dim(k3));
    ptx_module_free(m);
}

/* Before sm_70 (no .relaxed), the slots are accessed .volatile. */
Test(regalloc, slot_accesses_by_target)
{
    const char *targets[2] = {".target sm_80", ".target sm_60"};
    const char *want[2] = {"ld.relaxed.cta.shared.b32", "ld.volatile.shared.b32"};
    for (int i = 0; i < 2; i++) {
        char *text = strdup(rules_ptx);
        memcpy(strstr(text, ".target sm_80"), targets[i], strlen(targets[i]));
        ptx_module *m = tu_parse_ok("rules.ptx", text);
        ra_options o;
        memset(&o, 0, sizeof o);
        o.mode = RA_MODE_DIV;
        o.budget = 4;
        ptx_diags d;
        ptx_diags_init(&d);
        ra_stats st;
        cr_assert_eq(ra_run(m, &o, &st, &d), 0);
        cr_expect_gt(st.funcs[0].loads_shared, 0);
        char *out = tu_print(m, NULL);
        cr_expect(strstr(out, want[i]) != NULL, "%s", targets[i]);
        cr_expect(strstr(out, want[1 - i]) == NULL, "%s", targets[i]);
        free(out);
        ra_stats_free(&st);
        ptx_diags_free(&d);
        ptx_module_free(m);
        free(text);
    }
}

/* Runs on one parse and one program (spillcost, --target-regs, the HTML
 * page): a run with keep_parsed and ra_options.prog, undone after
 * (ra_undo), prints what a run on a fresh parse prints, and leaves the
 * module printing as parsed, run after run. */
Test(regalloc, undone_runs_are_fresh_runs)
{
    const char *path = tu_src("ptx-corpus/sm_80/regtile_16x16.ptx");
    ptx_module *m = ptx_load(path, 1);
    cr_assert_not_null(m);
    size_t n0;
    char *parsed = ptx_print_text(m, &n0);
    ptx_diags pd;
    ptx_diags_init(&pd);
    prog *p = prog_build(m, PROG_SSA, NULL, &pd);
    cr_assert_not_null(p);
    ptx_diags_free(&pd);
    static const unsigned budgets[] = {8, 16, 8};
    static const enum ra_mode modes[] = {RA_MODE_AFF, RA_MODE_DIV, RA_MODE_LINEAR};
    for (unsigned i = 0; i < 3; i++) {
        ra_options o;
        memset(&o, 0, sizeof o);
        o.mode = modes[i];
        o.budget = budgets[i];
        ra_stats st, st2;
        ptx_diags d;
        ptx_diags_init(&d);
        /* on a fresh parse, renaming in place */
        ptx_module *f = ptx_load(path, 1);
        cr_assert_not_null(f);
        cr_assert_eq(ra_run(f, &o, &st, &d), 0);
        size_t nw, ng, nb;
        char *want = ptx_print_text(f, &nw);
        ptx_module_free(f);
        /* on the one parse, undone after */
        o.keep_parsed = true;
        o.prog = p;
        ra_undo *u = ra_undo_save(m);
        size_t total = m->arena.total;
        cr_assert_eq(ra_run(m, &o, &st2, &d), 0);
        char *got = ptx_print_text(m, &ng);
        ra_undo_apply(m, u);
        cr_expect_eq(m->arena.total, total, "run %u: the arena rewound", i);
        char *back = ptx_print_text(m, &nb);
        cr_expect(ng == nw && !memcmp(got, want, nw), "run %u: the rewrite differs from a fresh parse's", i);
        cr_expect(nw != n0 || memcmp(want, parsed, n0), "run %u: nothing spilled", i);
        cr_expect(nb == n0 && !memcmp(back, parsed, n0), "run %u: not as parsed after", i);
        cr_expect_eq(st.funcs[0].spilled, st2.funcs[0].spilled);
        free(want);
        free(got);
        free(back);
        ra_stats_free(&st);
        ra_stats_free(&st2);
        ptx_diags_free(&d);
    }
    free(parsed);
    prog_free(p);
    ptx_module_free(m);
}
