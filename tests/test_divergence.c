/* Simple divergence analysis (paper section 3.3) on GSA. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include "divergence.h"
#include "semantics.h"
#include "testutil.h"

typedef tu_div_run run;

static run analyse(const char *text, const div_options *o) { return tu_div_analyse(text, DIV_AN_SIMPLE, o); }
static void done(run *x) { tu_div_done(x); }

/* State of the value named like "%r4.2". */
static uint32_t value_of(const run *x, const char *name) { return tu_value_named(x->r->pf->ssa, name); }

static int state_of(const run *x, const char *name) { return x->r->state[value_of(x, name)]; }

static run fig8(void)
{
    run x;
    ptx_diags d;
    ptx_diags_init(&d);
    x.m = ptx_parse_file(tu_src("tests/data/fig8_sumtriangle.ptx"), &d);
    ptx_diags_free(&d);
    cr_assert(x.m);
    x.p = tu_gsa_ok(x.m, NULL);
    x.r = div_simple(&x.p->funcs[0], NULL, &x.p->a);
    return x;
}

/* Sec. 3.3 on Fig. 9: d1 is uniform inside the loop (every thread still in
 * it has done the same number of iterations), p1 = d1 % 2 too, so the d % 2
 * branch is uniform; i, L, p0 depend on Tid; d3 = eta(p0, d1) is divergent
 * after the loop (PDVD); s depends on m[i] with a divergent i. */
Test(divergence, fig9_simple)
{
    run x = fig8();
    cr_expect_eq(state_of(&x, "%r4.2"), DIV_UNIFORM, "d1 = mu(d0, d2)");
    cr_expect_eq(state_of(&x, "%r4.3"), DIV_UNIFORM, "d2 = d1 + 1");
    cr_expect_eq(state_of(&x, "%p2.1"), DIV_UNIFORM, "p1 = d1 % 2");
    cr_expect_eq(state_of(&x, "%r5.2"), DIV_DIVERGENT, "i1");
    cr_expect_eq(state_of(&x, "%r7.1"), DIV_DIVERGENT, "L");
    cr_expect_eq(state_of(&x, "%p1.1"), DIV_DIVERGENT, "p0");
    cr_expect_eq(state_of(&x, "%r4.4"), DIV_DIVERGENT, "d3 = eta(p0, d1)");
    cr_expect_eq(state_of(&x, "%r3.3"), DIV_DIVERGENT, "s2 = s1 + m[i]");
    cr_expect_eq(state_of(&x, "%r1.1"), DIV_UNIFORM, "c, a kernel parameter");
    const cfg *g = x.r->pf->g;
    char buf[64];
    for (uint32_t b = 0; b < g->nblocks; b++) {
        if (g->blocks[b].nsucc < 2) continue;
        const char *nm = cfg_block_name(g, b, buf, sizeof buf);
        if (!strcmp(nm, "$l5")) cr_expect_eq(div_branch(x.r, b), DIV_DIVERGENT, "loop exit branch");
        else if (!strcmp(nm, "BB2")) cr_expect_eq(div_branch(x.r, b), DIV_UNIFORM, "d %% 2 branch");
        else cr_assert_fail("unexpected branch block %s", nm);
    }
    done(&x);
}

#define HEAD ".version 8.0\n.target sm_80\n.address_size 64\n"

Test(divergence, tid_y_depends_on_block_shape)
{
    const char *k = HEAD ".visible .entry k(.param .u64 o){\n .reg .b32 %r<3>; .reg .b64 %rd<2>;\n"
                         " ld.param.u64 %rd1, [o];\n mov.u32 %r1, %tid.y;\n mov.u32 %r2, %tid.z;\n"
                         " st.global.v2.u32 [%rd1], {%r1, %r2};\n ret;\n}\n";
    /* unknown shape: the default assumption, stated on the verdict */
    run x = analyse(k, NULL);
    cr_expect_eq(state_of(&x, "%r1.1"), DIV_UNIFORM, "unknown shape: blockDim.x assumed a multiple of 32");
    cr_expect_eq(x.r->cond[value_of(&x, "%r1.1")], DIV_COND_X32);
    done(&x);
    div_options o = {.block = {64, 2, 1}, .assume_tid_yz_uniform = false};
    x = analyse(k, &o);
    cr_expect_eq(state_of(&x, "%r1.1"), DIV_UNIFORM, "x extent 64");
    cr_expect_eq(state_of(&x, "%r2.1"), DIV_UNIFORM, "x*y = 128");
    done(&x);
    div_options o2 = {.block = {48, 2, 1}, .assume_tid_yz_uniform = false};
    x = analyse(k, &o2);
    cr_expect_eq(state_of(&x, "%r1.1"), DIV_DIVERGENT, "x extent 48");
    cr_expect_eq(state_of(&x, "%r2.1"), DIV_UNIFORM, "x*y = 96");
    done(&x);
    div_options o4 = {.block = {16, 1, 1}, .assume_tid_yz_uniform = false};
    x = analyse(k, &o4);
    cr_expect_eq(state_of(&x, "%r1.1"), DIV_UNIFORM, "y extent 1: %%tid.y is 0");
    cr_expect_eq(state_of(&x, "%r2.1"), DIV_UNIFORM, "z extent 1");
    done(&x);
    div_options o5 = {.block = {16, 2, 1}, .assume_tid_yz_uniform = false};
    x = analyse(k, &o5);
    cr_expect_eq(state_of(&x, "%r1.1"), DIV_DIVERGENT, "16 x 2: one warp holds both rows");
    done(&x);
    div_options o3 = {.block = {0, 0, 0}, .assume_tid_yz_uniform = true};
    x = analyse(k, &o3);
    cr_expect_eq(state_of(&x, "%r1.1"), DIV_UNIFORM, "--assume-tid-yz-uniform");
    done(&x);
}

Test(divergence, ptx_sources_and_uniform_facts)
{
    run x = analyse(HEAD ".visible .entry k(.param .u64 o){\n .reg .pred %p<3>; .reg .b32 %r<12>; .reg .b64 %rd<4>;\n"
                         " .local .u32 loc;\n"
                         " ld.param.u64 %rd1, [o];\n mov.u32 %r1, %tid.x;\n ld.global.u32 %r2, [%rd1];\n"
                         " ld.global.u32 %r3, [%rd1+4];\n atom.global.add.u32 %r4, [%rd1], 1;\n"
                         " ld.local.u32 %r5, [loc];\n ld.u32 %r6, [%rd1];\n"
                         " setp.lt.u32 %p1, %r1, 7;\n vote.sync.ballot.b32 %r7, %p1, -1;\n"
                         " shfl.sync.idx.b32 %r8|%p2, %r1, 0, 31, -1;\n shfl.sync.down.b32 %r9, %r2, 1, 31, -1;\n"
                         " mov.u32 %r10, %ctaid.x;\n mov.u32 %r11, %laneid;\n"
                         " st.global.u32 [%rd1], %r9;\n ret;\n}\n",
                    NULL);
    cr_expect_eq(state_of(&x, "%r1.1"), DIV_DIVERGENT, "%%tid.x");
    cr_expect_eq(state_of(&x, "%r2.1"), DIV_UNIFORM, "load from a uniform .global address");
    cr_expect_eq(state_of(&x, "%r4.1"), DIV_DIVERGENT, "atom");
    cr_expect_eq(state_of(&x, "%r5.1"), DIV_DIVERGENT, "ld.local");
    cr_expect_eq(state_of(&x, "%r6.1"), DIV_DIVERGENT, "generic load");
    cr_expect_eq(state_of(&x, "%r7.1"), DIV_UNIFORM, "vote.ballot");
    cr_expect_eq(state_of(&x, "%r8.1"), DIV_UNIFORM, "shfl.idx broadcast of a divergent value from lane 0");
    cr_expect_eq(state_of(&x, "%r9.1"), DIV_DIVERGENT, "shfl.down");
    cr_expect_eq(state_of(&x, "%r10.1"), DIV_UNIFORM, "%%ctaid.x");
    cr_expect_eq(state_of(&x, "%r11.1"), DIV_DIVERGENT, "%%laneid");
    done(&x);
}

Test(divergence, predicated_definition_with_divergent_guard)
{
    run x = analyse(HEAD ".visible .entry k(.param .u64 o){\n .reg .pred %p<2>; .reg .b32 %r<3>; .reg .b64 %rd<2>;\n"
                         " ld.param.u64 %rd1, [o];\n mov.u32 %r1, %tid.x;\n mov.u32 %r2, 5;\n"
                         " setp.lt.u32 %p1, %r1, 7;\n @%p1 mov.u32 %r2, 9;\n"
                         " st.global.u32 [%rd1], %r2;\n ret;\n}\n",
                    NULL);
    cr_expect_eq(state_of(&x, "%r2.1"), DIV_UNIFORM);
    cr_expect_eq(state_of(&x, "%r2.2"), DIV_DIVERGENT, "@%%p1 mov with a divergent %%p1");
    done(&x);
}

/* The verdicts hold over the whole corpus without crashing, and every
 * kernel that reads %tid.x has at least one divergent value. */
Test(divergence, corpus_runs)
{
    size_t n = 0;
    char **files = tu_list_ptx(tu_src("ptx-corpus"), &n);
    uint32_t nvals = 0, ndiv = 0;
    for (size_t i = 0; i < n; i++) {
        ptx_diags d;
        ptx_diags_init(&d);
        ptx_module *m = ptx_parse_file(files[i], &d);
        cr_assert(m);
        prog *p = prog_build(m, PROG_GSA, NULL, &d);
        cr_assert(p);
        for (uint32_t k = 0; k < p->nfuncs; k++) {
            div_result *r = div_simple(&p->funcs[k], NULL, &p->a);
            for (uint32_t v = 0; v < p->funcs[k].ssa->nvalues; v++) {
                nvals++;
                ndiv += r->state[v];
            }
        }
        prog_free(p);
        ptx_module_free(m);
        ptx_diags_free(&d);
    }
    cr_log_info("corpus: %u values, %u divergent (%.1f%%)", nvals, ndiv, 100.0 * ndiv / nvals);
    cr_expect_gt(ndiv, 0);
    cr_expect_lt(ndiv, nvals);
    tu_free_list(files, n);
}

/* vote/redux results are uniform only when the member mask is: a per-lane
 * mask (tiled_partition<8>) gives each tile its own result.  Found by
 * ptxray run --check-divergence on coop_groups' cg_tile8_max. */
Test(divergence, vote_with_per_lane_member_mask)
{
    run x = analyse(HEAD ".visible .entry k(.param .u64 o){\n .reg .pred %p<2>; .reg .b32 %r<9>; .reg .b64 %rd<2>;\n"
                         " ld.param.u64 %rd1, [o];\n mov.u32 %r1, %laneid;\n and.b32 %r2, %r1, -8;\n"
                         " mov.u32 %r3, 255;\n shl.b32 %r4, %r3, %r2;\n setp.lt.u32 %p1, %r1, 4;\n"
                         " vote.sync.ballot.b32 %r5, %p1, %r4;\n redux.sync.add.u32 %r6, %r1, %r4;\n"
                         " vote.sync.ballot.b32 %r7, %p1, -1;\n redux.sync.add.u32 %r8, %r1, -1;\n"
                         " st.global.v4.u32 [%rd1], {%r5, %r6, %r7, %r8};\n ret;\n}\n",
                    NULL);
    cr_expect_eq(state_of(&x, "%r5.1"), DIV_DIVERGENT, "ballot over a per-lane mask");
    cr_expect_eq(state_of(&x, "%r6.1"), DIV_DIVERGENT, "redux over a per-lane mask");
    cr_expect_eq(state_of(&x, "%r7.1"), DIV_UNIFORM, "ballot over the full warp");
    cr_expect_eq(state_of(&x, "%r8.1"), DIV_UNIFORM, "redux over the full warp");
    done(&x);
}

/* The blocks part of a warp may run (div_partial_blocks): those after a
 * divergent branch, and after a uniform branch taken in such a block;
 * not those after a uniform branch the whole warp takes, nor the join. */
static uint32_t block_of(const tu_div_run *x, enum ptx_opcode op, int64_t imm)
{
    const prog_func *pf = &x->p->funcs[x->p->nfuncs - 1];
    for (uint32_t i = 0; i < pf->fn->nstmts; i++) {
        const ptx_stmt *s = pf->fn->stmts[i];
        if (s->kind != PTX_S_INST || s->u.inst.op != op) continue;
        const ptx_inst *in = &s->u.inst;
        if (imm < 0 || (in->nopd == 3 && in->opd[2].kind == PTX_O_IMM && in->opd[2].v == imm))
            return pf->g->stmt_block[i];
    }
    cr_assert_fail("no such instruction");
    return 0;
}

Test(divergence, partial_blocks)
{
    static const char *text = ".version 7.0\n.target sm_80\n.address_size 64\n"
                              ".visible .entry k(.param .u32 n)\n{\n"
                              "\t.reg .pred %p<4>;\n\t.reg .b32 %r<4>;\n"
                              "\tld.param.u32 %r1, [n];\n\tmov.u32 %r2, %tid.x;\n"
                              "\tsetp.eq.s32 %p1, %r1, 0;\n\t@%p1 bra $U;\n"
                              "\tadd.s32 %r3, %r1, 1;\n"            /* A: the whole warp or none of it */
                              "$U:\n\tsetp.lt.s32 %p2, %r2, 5;\n\t@%p2 bra $J;\n" /* divergent */
                              "\tsetp.eq.s32 %p3, %r1, 7;\n\t@%p3 bra $J;\n"      /* B: uniform, in part of the warp */
                              "\tadd.s32 %r3, %r1, 2;\n"            /* C */
                              "$J:\n\tret;\n}\n";
    tu_div_run x = tu_div_analyse(text, DIV_AN_AFFINE, NULL);
    const prog_func *pf = &x.p->funcs[x.p->nfuncs - 1];
    const cfg *g = pf->g;
    uint8_t *split = calloc(g->nblocks, 1), *part = malloc(g->nblocks);
    cr_assert(split && part);
    for (uint32_t b = 0; b < g->nblocks; b++)
        split[b] = g->blocks[b].reachable && g->blocks[b].nsucc >= 2 && div_branch(x.r, b) != DIV_UNIFORM;
    uint32_t a = block_of(&x, PTX_OPC_ADD, 1), u = block_of(&x, PTX_OPC_SETP, 5), b = block_of(&x, PTX_OPC_SETP, 7),
             c = block_of(&x, PTX_OPC_ADD, 2), j = block_of(&x, PTX_OPC_RET, -1);
    cr_expect(split[u]);
    cr_expect(!split[b]);
    div_partial_blocks(g, split, part);
    cr_expect_eq(part[a], 0);
    cr_expect_eq(part[u], 0);
    cr_expect_eq(part[b], 1);
    cr_expect_eq(part[c], 1);
    cr_expect_eq(part[j], 0);
    /* with no branch that splits, no block is partial */
    memset(split, 0, g->nblocks);
    div_partial_blocks(g, split, part);
    for (uint32_t k = 0; k < g->nblocks; k++) cr_expect_eq(part[k], 0);
    free(split);
    free(part);
    tu_div_done(&x);
}
