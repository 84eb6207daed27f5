/* The one pipeline (report/pipeline.h): the passes a command asks for run
 * once over one parse and one program, at every round of the shapes, and
 * bad input leaves nothing to free. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include "pipeline.h"
#include "testutil.h"

static const char *shapes_ptx(void)
{
    static char path[4096];
    snprintf(path, sizeof path, "%s", tu_src("tests/data/block_shapes.ptx"));
    return path;
}

Test(pipeline, every_pass_over_one_program)
{
    blk_opts blocks = {0};
    div_options div = {{0, 0, 0}, false, false, false};
    pl_prog x;
    pl_options o = {.cmd = "test", .level = PROG_GSA, .passes = PL_COALESCE | PL_DIVERGE | PL_VERDICTS,
                    .blocks = &blocks, .shapes = PL_SHAPES_CHECK, .div = &div, .keep = DIV_AN_AFFINE2};
    const char *path = shapes_ptx();
    cr_assert_eq(pl_load(&x, path, &o), 0);
    cr_assert_eq(x.p->nfuncs, 2);
    cr_expect(ptx_str_eq(x.p->funcs[0].fn->name, "ka"));
    cr_expect(ptx_str_eq(x.p->funcs[1].fn->name, "kb"));
    /* one round at round 0 reads the caller's shapes, not a copy */
    cr_expect_eq(x.nr, 1);
    cr_expect_eq(x.rb, &blocks);
    cr_expect(!x.rb_owned);
    /* coalescing: over the program built, each function once */
    cr_assert_eq(x.res[0]->nfuncs, 2);
    for (uint32_t i = 0; i < 2; i++) cr_expect_eq(x.res[0]->f[i].pf, &x.p->funcs[i]);
    cr_expect_str_eq(x.ctx[0].ptx_path, path);
    cr_expect_eq(x.ctx[0].res, x.res[0]);
    cr_expect_eq(x.ctx[0].opts, &x.rco[0]);
    cr_expect_eq(x.rco[0].blocks, &x.rb[0]);
    cr_expect_not_null(x.files);
    /* divergence: each function at its one round, the kept analysis there */
    cr_assert_eq(x.ndf, 2);
    for (uint32_t i = 0; i < 2; i++) {
        cr_expect_eq(x.df[i].pf, &x.p->funcs[i]);
        cr_expect_not_null(x.df[i].r[DIV_AN_AFFINE2]);
        cr_expect_null(x.df[i].r[DIV_AN_SIMPLE]);
        cr_assert_not_null(x.dv[i]);
        cr_expect_eq(x.dv[i]->analysis, DIV_AN_AFFINE2);
        cr_expect_eq(x.dv[i]->pf, &x.p->funcs[i]);
    }
    pl_free(&x);
}

/* Two rounds on one program: each round's model has its own shapes, a
 * function with one shape is analysed at round 0 only. */
Test(pipeline, rounds_share_the_program)
{
    blk_opts blocks = {0};
    pl_prog x;
    pl_options o = {.cmd = "test", .level = PROG_GSA, .passes = PL_COALESCE | PL_DIVERGE, .blocks = &blocks,
                    .nrounds = 2, .keep = DR_KEEP_NONE, .div = &(div_options){{0, 0, 0}, false, false, false}};
    cr_assert_eq(pl_load(&x, shapes_ptx(), &o), 0);
    cr_assert_eq(x.nr, 2);
    cr_expect(x.rb_owned);
    for (uint32_t r = 0; r < 2; r++) {
        cr_expect_eq(x.rb[r].round, r);
        cr_expect_eq(x.rco[r].blocks, &x.rb[r]);
        cr_expect_eq(x.res[r]->f[0].pf, &x.p->funcs[0], "round %u", r);
    }
    cr_expect_neq(x.res[0], x.res[1]);
    cr_expect_eq(x.ndf, 2);
    pl_free(&x);
}

/* The values pass: each function at the shape the model resolved for it,
 * the degree-2 affine analysis and its counts, as dr_analyse counts them;
 * a function with one shape has none at a later round. */
Test(pipeline, values_at_the_models_shape)
{
    static const uint32_t want[2][4] = {{6, 5, 3, 0}, {3, 7, 4, 1}}; /* uniform, affine, divergent; branches not uniform */
    for (int known = 0; known < 2; known++) {
        blk_opts blocks = {0};
        if (known) blocks.all[0] = 16, blocks.all[1] = 16, blocks.all[2] = 1;
        pl_prog x;
        pl_options o = {.cmd = "test", .level = PROG_GSA, .passes = PL_COALESCE | PL_VALUES, .blocks = &blocks,
                        .nrounds = 2};
        cr_assert_eq(pl_load(&x, shapes_ptx(), &o), 0);
        cr_assert_eq(x.res[0]->nfuncs, 2);
        for (uint32_t i = 0; i < 2; i++) {
            const pl_values *v = &x.val[i];
            const coal_func *f = &x.res[0]->f[i];
            cr_assert_not_null(v->r);
            cr_expect_eq(v->r->analysis, DIV_AN_AFFINE2);
            cr_expect_eq(v->r->pf, f->pf);
            cr_expect_eq(v->r->block[0], known ? 16u : 0u);
            cr_expect_eq(v->r->block[1], known ? 16u : 0u);
            cr_expect_eq(v->st.values, 14);
            cr_expect_eq(v->st.state[DIV_UNIFORM], want[known][0], "known %d: %u", known, v->st.state[DIV_UNIFORM]);
            cr_expect_eq(v->st.state[DIV_AFFINE], want[known][1]);
            cr_expect_eq(v->st.state[DIV_DIVERGENT], want[known][2]);
            cr_expect_eq(v->st.branches, 1);
            cr_expect_eq(v->st.branches_divergent, want[known][3]);
            /* the same counts as the divergence reports' */
            div_options d = {.block = {0, 0, 0}, .assume_tid_yz_uniform = !wl_shape_known(&f->shape)};
            memcpy(d.block, f->shape.block, sizeof d.block);
            dr_func df;
            dr_analyse(&df, f->pf, &d, NULL, DR_KEEP_NONE);
            cr_expect_eq(memcmp(&df.st[DIV_AN_AFFINE2], &v->st, sizeof v->st), 0);
            dr_func_free(&df);
            /* one shape: nothing at round 1 */
            cr_expect_null(x.val[x.res[0]->nfuncs + i].r);
        }
        pl_free(&x);
    }
}

typedef struct seen {
    uint32_t n;
    const char *names[4];
} seen;

static void count(void *ctx, const pl_prog *x, const dr_func *f)
{
    seen *s = ctx;
    cr_expect_eq(f->pf, &x->p->funcs[s->n]);
    if (s->n < 4) s->names[s->n] = f->pf->fn->name.p;
    s->n++;
}

Test(pipeline, kernel_and_callback)
{
    blk_opts blocks = {0};
    seen s = {0};
    pl_prog x;
    pl_options o = {.cmd = "test", .kernel = "kb", .level = PROG_GSA, .passes = PL_DIVERGE, .blocks = &blocks,
                    .keep = DR_KEEP_NONE, .div = &(div_options){{0, 0, 0}, false, false, false}, .each = count,
                    .each_ctx = &s};
    cr_assert_eq(pl_load(&x, shapes_ptx(), &o), 0);
    cr_expect_str_eq(x.kernel, "kb");
    cr_expect_eq(x.p->nfuncs, 1);
    cr_expect_eq(s.n, 1);
    cr_expect_eq(x.ndf, 0); /* handed over and freed, not kept */
    pl_free(&x);
}

/* Bad input: exit status 2 and nothing to free (a pl_free after it does
 * nothing: ASan in make check). */
Test(pipeline, bad_input_leaves_nothing)
{
    blk_opts blocks = {0};
    pl_prog x;
    pl_options o = {.cmd = "test", .kernel = "nope", .level = PROG_GSA, .passes = PL_COALESCE, .blocks = &blocks};
    FILE *err = tmpfile();
    cr_assert_not_null(err);
    o.err = err;
    cr_expect_eq(pl_load(&x, shapes_ptx(), &o), 2);
    cr_expect_null(x.m);
    cr_expect_null(x.p);
    pl_free(&x);
    /* a --block entry naming no kernel of the one file */
    o.kernel = NULL;
    o.shapes = PL_SHAPES_CHECK;
    cr_assert(blk_add(&blocks, "nope=32", "test"));
    cr_expect_eq(pl_load(&x, shapes_ptx(), &o), 2);
    cr_expect_null(x.p);
    pl_free(&x);
    /* the same entry in one file of several: marked as not seen, no error */
    o.shapes = PL_SHAPES_MARK;
    cr_expect_eq(pl_load(&x, shapes_ptx(), &o), 0);
    cr_expect(!blocks.k[0].seen);
    pl_free(&x);
    cr_expect_eq(pl_load(&x, tu_src("tests/data/no-such-file.ptx"), &o), 2);
    cr_expect_null(x.m);
    pl_free(&x);
    fclose(err);
}

/* A module the caller parsed (the nvcc step, which rewrites it after the
 * warnings): the pipeline analyses it without parsing again and leaves it
 * to the caller (freed below, after pl_free: ASan in make check would see
 * a double free); the caller's failed parse is said on err as the parse
 * pass says one, exit status 2. */
Test(pipeline, a_module_parsed_already)
{
    blk_opts blocks = {0};
    pl_prog x;
    ptx_module *m = ptx_load_to(shapes_ptx(), 1, stderr);
    cr_assert_not_null(m);
    pl_options o = {.cmd = "test", .level = PROG_GSA, .passes = PL_COALESCE, .blocks = &blocks, .module = m};
    cr_assert_eq(pl_load(&x, shapes_ptx(), &o), 0);
    cr_expect_eq(x.m, m);
    cr_expect_eq(x.p->m, m);
    cr_assert_eq(x.res[0]->nfuncs, 2);
    uint32_t nacc[2] = {x.res[0]->f[0].nacc, x.res[0]->f[1].nacc};
    cr_expect_gt(nacc[0] + nacc[1], 0);
    pl_free(&x);
    /* the module is the caller's still, as parsed: a second run on it
     * finds the same accesses */
    cr_assert_eq(pl_load(&x, shapes_ptx(), &o), 0);
    cr_assert_eq(x.res[0]->nfuncs, 2);
    for (uint32_t i = 0; i < 2; i++) cr_expect_eq(x.res[0]->f[i].nacc, nacc[i], "function %u", i);
    pl_free(&x);
    ptx_module_free(m);
    char *said = NULL;
    size_t n = 0;
    FILE *err = open_memstream(&said, &n);
    cr_assert_not_null(err);
    o.module = NULL;
    o.module_diags = "x.ptx:1:1: error: what the parse said\n";
    o.err = err;
    cr_expect_eq(pl_load(&x, "x.ptx", &o), 2);
    cr_expect_null(x.m);
    pl_free(&x);
    fclose(err);
    cr_expect_str_eq(said, "x.ptx:1:1: error: what the parse said\n");
    free(said);
}
