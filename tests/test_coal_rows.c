/* Sound at every block shape (issue 33): the coalescing model's sectors
 * per request (sectors_max, the bound every view reports) is never below
 * what the emulator measures, whatever the block shape (x below, equal to
 * or above a warp; 1-, 2- and 3-D) and whatever the PTX leaves open about
 * alignment: here a row pitch or an offset from a parameter, odd and even.
 *
 * tests/data/coalescing/pitch_rows.ptx holds row-major tiles.  Each kernel
 * is analysed at each shape, and launched in the emulator at that shape
 * with several pitches; the emulator's worst request (emu_report_json,
 * sectors_max) must not exceed the static bound.  The exact static figures
 * of a few (kernel, shape) pairs are checked too, with the verdict the
 * views share (coal_verdict_of): rule, certainty and what it depends on. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include "coalescing.h"
#include "emu_harness.h"
#include "testutil.h"

#define ROWS_PTX "tests/data/coalescing/pitch_rows.ptx"

typedef struct sx {
    ptx_module *m;
    prog *p;
    coal_result *r;
} sx;

static sx analyse(const char *kernel, emu_dim3 b)
{
    sx x;
    ptx_diags d;
    ptx_diags_init(&d);
    x.m = ptx_parse_file(tu_src(ROWS_PTX), &d);
    ptx_diags_free(&d);
    cr_assert(x.m);
    x.p = tu_gsa_ok(x.m, NULL);
    blk_opts bo = {.all = {b.x, b.y, b.z}};
    coal_options o = {.blocks = b.x ? &bo : NULL, .only = kernel};
    x.r = coal_analyse(x.m, x.p, &o, &x.p->a);
    cr_assert_eq(x.r->nfuncs, 1);
    return x;
}

static void done(sx *x)
{
    prog_free(x->p);
    ptx_module_free(x->m);
}

static uint32_t line_of(const coal_func *f, const coal_access *a) { return f->pf->fn->stmts[a->stmt]->loc.line; }

/* The kernels' arguments: every buffer 1 MiB (the largest tile touches
 * 64 rows of a 1001-float pitch, or 4 slabs of them). */
#define BUF (1u << 20)

static emu_status launch(eh *h, const char *k, emu_dim3 b, uint32_t pitch)
{
    uint64_t a = eh_zero(h, BUF), c = eh_zero(h, BUF);
    emu_dim3 g = D2(2, 2);
    if (!strcmp(k, "grid_f32")) return eh_launch(h, k, g, b, "ppu", a, c, pitch);
    if (!strcmp(k, "tile3d_f32")) return eh_launch(h, k, D1(1), b, "puu", a, pitch, b.y);
    return eh_launch(h, k, D1(1), b, "pu", a, pitch);
}

static const char *const kernels[] = {"tile_f32", "tile_f64", "tile3d_f32", "grid_f32", "fixed17_f32",
                                      "aligned_rows_f32"};
/* x below, equal to and above a warp; 1-, 2- and 3-D; odd x extents */
static const emu_dim3 shapes[] = {{256, 1, 1}, {32, 8, 1}, {16, 16, 1}, {8, 32, 1}, {4, 64, 1}, {2, 16, 1},
                                  {24, 4, 1},  {48, 2, 1}, {100, 1, 1}, {8, 8, 4},  {16, 4, 4}, {4, 4, 8}};
/* pitches (and fixed17's offsets) in elements: odd, even, a multiple of a sector's worth */
static const uint32_t pitches[] = {17, 33, 1001, 18, 100, 64, 3, 5};

Test(coal_rows, static_never_below_the_emulator, .timeout = 120)
{
    unsigned compared = 0, above = 0;
    for (size_t ki = 0; ki < sizeof kernels / sizeof kernels[0]; ki++)
        for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
            emu_dim3 b = shapes[si];
            sx x = analyse(kernels[ki], b);
            const coal_func *f = &x.r->f[0];
            for (size_t pi = 0; pi < sizeof pitches / sizeof pitches[0]; pi++) {
                uint32_t pitch = pitches[pi];
                bool fixed = !strcmp(kernels[ki], "fixed17_f32");
                uint64_t row = fixed ? 17 : !strcmp(kernels[ki], "aligned_rows_f32") ? 16ull * pitch : pitch;
                uint64_t need = (2ull * b.y * b.z + 1) * (row + 2ull * b.x) * 8 + (fixed ? 8ull * pitch : 0);
                if ((fixed || pitch >= b.x) && need <= BUF) {
                    emu_options o = {.checks = EMU_CHECK_COALESCING};
                    eh *h = eh_open(ROWS_PTX, &o);
                    emu_status st = launch(h, kernels[ki], b, pitch);
                    cr_assert_eq(st, EMU_OK, "%s %ux%ux%u pitch %u: %s\n%s", kernels[ki], b.x, b.y, b.z, pitch,
                                 emu_status_name(st), h->last_err);
                    json_t *rep = emu_report_json(h->M, ROWS_PTX, NULL);
                    size_t i;
                    json_t *e;
                    json_array_foreach(json_object_get(rep, "coalescing"), i, e) {
                        uint32_t line = (uint32_t)json_integer_value(json_object_get(e, "line"));
                        int32_t mx = (int32_t)json_integer_value(json_object_get(e, "sectors_max"));
                        const coal_access *a = NULL;
                        for (uint32_t j = 0; j < f->nacc; j++)
                            if (line_of(f, &f->acc[j]) == line) a = &f->acc[j];
                        cr_assert_not_null(a, "%s: no static access at PTX line %u", kernels[ki], line);
                        compared++;
                        above += mx < a->sectors_max;
                        cr_expect_geq(a->sectors_max, mx,
                                      "%s block %ux%ux%u pitch %u, PTX line %u: static %d sectors/request (%s), the "
                                      "emulator measures %d",
                                      kernels[ki], b.x, b.y, b.z, pitch, line, a->sectors_max,
                                      coal_pattern_name((enum coal_pattern)a->pattern), mx);
                        /* a verdict of no finding is only sound when no request wastes a sector */
                        coal_verdict v;
                        if (!coal_verdict_of(a, &v))
                            cr_expect_leq(mx, (int32_t)a->ideal,
                                          "%s block %ux%ux%u pitch %u, PTX line %u: no finding, but %d sectors "
                                          "measured against an ideal of %u",
                                          kernels[ki], b.x, b.y, b.z, pitch, line, mx, a->ideal);
                    }
                    json_decref(rep);
                    eh_close(h);
                }
            }
            done(&x);
        }
    cr_expect_gt(compared, 500, "%u accesses compared", compared);
    cr_expect_gt(above, 0, "the bound is a bound: some launches measure less");
}

/* The figures and verdicts at the shapes the issue names. */
typedef struct want {
    const char *kernel;
    emu_dim3 block;
    int32_t sectors, sectors_max; /* sectors -1: only a bound */
    uint32_t ideal;
    int rule; /* coal_vrule, -1: no finding */
    int cert;
    int dep;
} want;

static const want wants[] = {
    /* 16 floats per row, two rows per warp: 2 + 2 aligned, a row at 4 B past a sector takes 3 */
    {"tile_f32", {16, 16, 1}, -1, 6, 4, COAL_V_MISALIGNED, COAL_POSSIBLE, COAL_DEP_ROWS},
    {"tile_f32", {8, 32, 1}, -1, 8, 4, COAL_V_MISALIGNED, COAL_POSSIBLE, COAL_DEP_ROWS},
    /* eight rows of 16 B: eight sectors at best, ideal 4; lane 0's row on
     * a sector, the seven others up to 2 (the next warp's first row is
     * 8·4·pitch B on: on a sector too) */
    {"tile_f32", {4, 64, 1}, -1, 15, 4, COAL_V_UNCOALESCED, COAL_POSSIBLE, COAL_DEP_SYM_STRIDE},
    /* one row per warp: lane 0 at a row start, pitch·4·tid.y B in */
    {"tile_f32", {32, 8, 1}, 4, 5, 4, COAL_V_MISALIGNED, COAL_POSSIBLE, COAL_DEP_ALIGN},
    {"tile_f32", {256, 1, 1}, 4, 4, 4, -1, 0, 0},
    /* 8 doubles per row at 8x32: 4 rows of 2 sectors, lane 0's on a
     * sector (its row is 4·8·pitch B on), the three others up to 3: 11 */
    {"tile_f64", {8, 32, 1}, -1, 11, 8, COAL_V_MISALIGNED, COAL_POSSIBLE, COAL_DEP_ROWS},
    {"tile_f64", {16, 16, 1}, -1, 10, 8, COAL_V_MISALIGNED, COAL_POSSIBLE, COAL_DEP_ROWS},
    /* a 3-D block: 8 rows of 8 floats in 4 slabs, four rows a warp */
    {"tile3d_f32", {8, 8, 4}, -1, 8, 4, COAL_V_MISALIGNED, COAL_POSSIBLE, COAL_DEP_ROWS},
    {"grid_f32", {16, 16, 1}, -1, 6, 4, COAL_V_MISALIGNED, COAL_POSSIBLE, COAL_DEP_ROWS},
    /* the pitch fixed at 17 floats: the rows' places are known, lane 0's is not */
    {"fixed17_f32", {16, 16, 1}, 5, 5, 4, COAL_V_UNCOALESCED, COAL_PROVEN, COAL_DEP_NONE},
    {"fixed17_f32", {256, 1, 1}, 4, 5, 4, COAL_V_MISALIGNED, COAL_POSSIBLE, COAL_DEP_ALIGN},
    /* rows 64·pitch B apart: always on a sector, whatever the pitch */
    {"aligned_rows_f32", {16, 16, 1}, -1, 4, 4, -1, 0, 0},
    {"aligned_rows_f32", {8, 32, 1}, -1, 4, 4, -1, 0, 0},
    {"aligned_rows_f32", {32, 8, 1}, 4, 4, 4, -1, 0, 0},
};

Test(coal_rows, exact_figures_and_verdicts)
{
    for (size_t i = 0; i < sizeof wants / sizeof wants[0]; i++) {
        const want *w = &wants[i];
        sx x = analyse(w->kernel, w->block);
        const coal_func *f = &x.r->f[0];
        cr_assert_geq(f->nacc, 2);
        for (uint32_t j = 0; j < f->nacc; j++) {
            const coal_access *a = &f->acc[j];
            char at[96];
            snprintf(at, sizeof at, "%s %ux%ux%u line %u", w->kernel, w->block.x, w->block.y, w->block.z, line_of(f, a));
            cr_expect_eq(a->sectors, w->sectors, "%s: sectors %d", at, a->sectors);
            cr_expect_eq(a->sectors_max, w->sectors_max, "%s: sectors_max %d", at, a->sectors_max);
            cr_expect_eq(a->ideal, w->ideal, "%s: ideal %u", at, a->ideal);
            coal_verdict v;
            bool fnd = coal_verdict_of(a, &v);
            cr_expect_eq(fnd, w->rule >= 0, "%s: finding %d", at, fnd);
            if (!fnd || w->rule < 0) continue;
            cr_expect_eq(v.rule, w->rule, "%s: rule %s", at, coal_vrule_name((enum coal_vrule)v.rule));
            cr_expect_eq(v.certainty, w->cert, "%s: certainty %u", at, v.certainty);
            cr_expect_eq(v.dep, w->dep, "%s: depends %u", at, v.dep);
        }
        done(&x);
    }
}
