/* CFG, dominators, loops, SSA and GSA: the paper's Fig. 8/9, the corpus
 * versions of avgSquare and sumTriangle, small programs for each PTX
 * control-flow feature, and the verifier over every corpus function. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cfg_print.h"
#include "program.h"
#include "semantics.h"
#include "testutil.h"
#include "u32vec.h"

/* GSA (or other level) text of one function of a parsed module. */
static char *listing(const ptx_module *m, const char *fn, enum prog_level level)
{
    ptx_diags d;
    ptx_diags_init(&d);
    prog *p = prog_build(m, level, fn, &d);
    cr_assert(p, "prog_build failed: %s", d.n ? d.v[0].msg : "?");
    ptx_diags_free(&d);
    char *buf = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&buf, &len);
    cfg_print_prog(o, p, level, CFGP_TEXT);
    fclose(o);
    prog_free(p);
    return buf;
}

static char *file_listing(const char *rel, const char *fn)
{
    ptx_diags d;
    ptx_diags_init(&d);
    ptx_module *m = ptx_parse_file(tu_src(rel), &d);
    cr_assert(m, "cannot parse %s", rel);
    ptx_diags_free(&d);
    char *s = listing(m, fn, PROG_GSA);
    ptx_module_free(m);
    return s;
}

/* Asserts that every line of want (newline separated) is a line of text. */
static void has_lines(const char *text, const char *want)
{
    const char *p = want;
    while (*p) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        char line[512];
        snprintf(line, sizeof line, "\n\t%.*s\n", (int)n, p);
        cr_expect(strstr(text, line), "missing line '%.*s' in:\n%s", (int)n, p, text);
        p += n + (e != NULL);
    }
}

static size_t count(const char *text, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle)) n++;
    return n;
}

/* ---- the paper ------------------------------------------------------------- */
Test(gsa, fig8_gives_fig9)
{
    char *t = file_listing("tests/data/fig8_sumtriangle.ptx", "sumTriangle");
    /* Fig. 9: [i1, s1, d1] = mu([i0, s0, d0], [i2, s3, d2]) at l5;
     * s3 = gamma(p1, ...) at the join of the d % 2 branch; d and s leave the
     * loop through eta(p0, ...); i does not (dead after the loop). */
    has_lines(t, "%r3.2 = μ(%r3.1, %r3.4)\n"
                 "%r4.2 = μ(%r4.1, %r4.3)\n"
                 "%r5.2 = μ(%r5.1, %r5.3)\n"
                 "%r3.4 = γ(%p2.1, %r3.2, %r3.3)\n"
                 "%r3.5 = η(%p1.1, %r3.2)\n"
                 "%r4.4 = η(%p1.1, %r4.2)\n"
                 "add.s32 %r10.1, %r4.4, -1;\n"
                 "st.global.u32 [%rd6.1], %r3.5;");
    cr_expect(strstr(t, "GSA: 1 γ, 3 μ, 2 η\n"), "%s", t);
    cr_expect_eq(count(t, "%r5.4"), 0, "no eta for i:\n%s", t);
    cr_expect(strstr(t, "loop 0: depth 1, header $l5, 4 blocks, latch $l11, exits $l5->$l15\n"), "%s", t);
    free(t);
}

Test(gsa, fig8_dominators_and_control_dependence)
{
    char *t = file_listing("tests/data/fig8_sumtriangle.ptx", "sumTriangle");
    cr_expect(strstr(t, "\n$l5: lines 29-31 -> $l15 BB2; idom BB0; ipdom $l15; loop 0 header; control-dependent on $l5\n"), "%s", t);
    cr_expect(strstr(t, "\nBB3: lines 35-38 -> $l11; idom BB2; ipdom $l11; loop 0; control-dependent on BB2\n"), "%s", t);
    cr_expect(strstr(t, "\n$l11: lines 39-42 -> $l5; idom BB2; ipdom $l5; loop 0; control-dependent on $l5\n"), "%s", t);
    free(t);
}

/* nvcc -G keeps the loops of Fig. 1 as written (locals go through extra
 * movs, so the names differ from Fig. 9 but the functions are the same). */
Test(gsa, corpus_sumtriangle_debug)
{
    char *t = file_listing("ptx-corpus/debug/sampaio_divergence.sm_80.ptx", "sumTriangle");
    has_lines(t, "%r15.2 = μ(%r15.1, %r15.3)\n" /* d */
                 "%f7.2 = μ(%f7.1, %f7.3)\n"    /* sum */
                 "%r16.2 = μ(%r16.1, %r16.3)\n" /* i */
                 "%f8.3 = γ(%p6.1, %f8.1, %f8.2)\n"
                 "%f2.2 = η(%p4.1, %f2.1)\n"
                 "%r5.2 = η(%p4.1, %r5.1)");
    cr_expect(strstr(t, "GSA: 1 γ, 3 μ, 2 η\n"), "%s", t);
    free(t);
}

Test(gsa, corpus_avgsquare_debug)
{
    char *t = file_listing("ptx-corpus/debug/sampaio_divergence.sm_80.ptx", "avgSquare");
    has_lines(t, "%r13.2 = μ(%r13.1, %r13.3)\n"
                 "%f8.2 = μ(%f8.1, %f8.3)\n"
                 "%r14.2 = μ(%r14.1, %r14.3)\n"
                 "%f2.2 = η(%p4.1, %f2.1)\n"
                 "%r5.2 = η(%p4.1, %r5.1)");
    cr_expect(strstr(t, "GSA: 0 γ, 3 μ, 2 η\n"), "%s", t);
    free(t);
}

/* Optimised sumTriangle: the loop is unrolled by 4 (the d % 2 test folds
 * away there) with a remainder loop that keeps it.  Values leaving the
 * loops go through etas on landing blocks and meet in nested gammas. */
Test(gsa, corpus_sumtriangle_optimised)
{
    char *t = file_listing("ptx-corpus/sm_80/sampaio_divergence.ptx", "sumTriangle");
    has_lines(t, "%f22.8 = μ(%f22.7, %f22.10)\n"
                 "%r55.8 = μ(%r55.7, %r55.9)\n"
                 "%f22.10 = γ(%p9.1, %f22.8, %f22.9)\n"
                 "%f22.11 = η(%p10.1, %f22.10)\n"
                 "%r55.10 = η(%p10.1, %r55.9)\n"
                 "%f22.7 = γ(%p3.1, %f22.2, %f22.6)\n"
                 "%f22.12 = γ(%p2.1, %f22.1, γ(%p5.1, %f22.7, %f22.11))\n"
                 "%r55.11 = γ(%p2.1, %r55.1, γ(%p5.1, %r55.6, %r55.10))");
    cr_expect(strstr(t, "\n$L__BB1_9>$L__BB1_10: -> $L__BB1_10;"), "landing block missing:\n%s", t);
    free(t);
}

/* ---- control-flow features ------------------------------------------------- */
#define HEAD ".version 8.0\n.target sm_80\n.address_size 64\n"

static prog *build(const char *text, enum prog_level level, ptx_module **mp)
{
    ptx_module *m = tu_parse_ok("t.ptx", text);
    ptx_diags d;
    ptx_diags_init(&d);
    prog *p = prog_build(m, level, NULL, &d);
    cr_assert(p, "prog_build: %s", d.n ? d.v[0].msg : "?");
    ptx_diags_free(&d);
    *mp = m;
    return p;
}

static uint32_t block_named(const cfg *g, const char *name)
{
    char buf[128];
    for (uint32_t b = 0; b < g->nblocks; b++)
        if (!strcmp(cfg_block_name(g, b, buf, sizeof buf), name)) return b;
    cr_assert_fail("no block %s", name);
    return CFG_NONE;
}

Test(cfg, guarded_ret_and_trap_split_blocks)
{
    ptx_module *m;
    prog *p = build(HEAD ".visible .entry k(.param .u32 a){\n .reg .pred %p<2>; .reg .b32 %r<4>;\n"
                         " ld.param.u32 %r1, [a];\n setp.eq.s32 %p1, %r1, 0;\n @%p1 ret;\n"
                         " add.s32 %r2, %r1, 1;\n @!%p1 trap;\n mov.u32 %r3, %r2;\n ret;\n}\n",
                    PROG_GSA, &m);
    const cfg *g = p->funcs[0].g;
    cr_assert_eq(g->nblocks, 5, "entry, exit, 3 blocks: %u", g->nblocks);
    cr_expect_eq(g->blocks[2].nsucc, 2);
    cr_expect_eq(g->blocks[2].succ[0], CFG_EXIT, "guarded ret: exit first");
    cr_expect_eq(g->blocks[2].succ[1], 3u);
    cr_expect_eq(g->blocks[3].succ[0], CFG_EXIT);
    cr_expect_eq(g->blocks[3].succ[1], 4u);
    cr_expect_eq(g->blocks[4].ipdom, CFG_EXIT);
    cr_expect_eq(g->blocks[2].ipdom, CFG_EXIT);
    prog_free(p);
    ptx_module_free(m);
}

Test(cfg, brx_idx_gives_nary_gamma)
{
    ptx_module *m;
    prog *p = build(HEAD ".visible .entry k(.param .u32 a, .param .u64 o){\n .reg .b32 %r<8>; .reg .b64 %rd<2>;\n"
                         " ld.param.u32 %r1, [a];\n ld.param.u64 %rd1, [o];\n"
                         " $T: .branchtargets $A, $B, $C;\n brx.idx %r1, $T;\n"
                         "$A:\n mov.u32 %r2, 10;\n bra.uni $J;\n"
                         "$B:\n mov.u32 %r2, 20;\n bra.uni $J;\n"
                         "$C:\n mov.u32 %r2, 30;\n"
                         "$J:\n st.global.u32 [%rd1], %r2;\n ret;\n}\n",
                    PROG_GSA, &m);
    char *buf = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&buf, &len);
    cfg_print_prog(o, p, PROG_GSA, CFGP_TEXT);
    fclose(o);
    has_lines(buf, "%r2.4 = γ(%r1.1, %r2.1, %r2.2, %r2.3)");
    const cfg *g = p->funcs[0].g;
    uint32_t br = block_named(g, "BB0");
    cr_expect_eq(g->blocks[br].nsucc, 3);
    cr_expect_eq(g->blocks[br].ipdom, block_named(g, "$J"));
    free(buf);
    prog_free(p);
    ptx_module_free(m);
}

Test(cfg, infinite_loop_gets_fake_exit_edge)
{
    ptx_module *m;
    prog *p = build(HEAD ".visible .entry k(){\n .reg .b32 %r<3>;\n mov.u32 %r1, 0;\n"
                         "$L:\n add.s32 %r1, %r1, 1;\n bra.uni $L;\n}\n",
                    PROG_GSA, &m);
    const cfg *g = p->funcs[0].g;
    uint32_t l = block_named(g, "$L");
    cr_expect(g->blocks[l].fake_exit);
    cr_expect_eq(g->blocks[l].ipdom, CFG_EXIT);
    cr_expect_eq(g->nloops, 1);
    cr_expect_eq(g->loops[0].nexits, 0);
    cr_expect_eq(g->blocks[CFG_EXIT].reachable, 0, "no path to the exit");
    prog_free(p);
    ptx_module_free(m);
}

Test(cfg, unreachable_block_is_kept_and_reported)
{
    ptx_module *m;
    prog *p = build(HEAD ".visible .entry k(){\n .reg .b32 %r<3>;\n mov.u32 %r1, 0;\n bra.uni $E;\n"
                         " add.s32 %r1, %r1, 1;\n$E:\n ret;\n}\n",
                    PROG_GSA, &m);
    const cfg *g = p->funcs[0].g;
    cr_assert_eq(g->nblocks, 5);
    cr_expect_eq(g->blocks[3].reachable, 0);
    cr_expect_eq(g->blocks[3].idom, CFG_NONE);
    char msg[512];
    cr_expect_eq(ssa_verify(p->funcs[0].ssa, msg, sizeof msg), 0, "%s", msg);
    prog_free(p);
    ptx_module_free(m);
}

Test(cfg, irreducible_loop_is_detected_and_flagged)
{
    ptx_module *m;
    prog *p = build(HEAD ".visible .entry k(.param .u64 o){\n .reg .pred %p<4>; .reg .b32 %r<3>; .reg .b64 %rd<2>;\n"
                         " ld.param.u64 %rd1, [o];\n mov.u32 %r1, %tid.x;\n setp.lt.u32 %p1, %r1, 5;\n"
                         " @%p1 bra $B;\n"
                         "$A:\n add.s32 %r1, %r1, 1;\n setp.gt.u32 %p2, %r1, 10;\n @%p2 bra $E;\n"
                         "$B:\n add.s32 %r1, %r1, 2;\n setp.gt.u32 %p3, %r1, 20;\n @%p3 bra $E;\n bra.uni $A;\n"
                         "$E:\n st.global.u32 [%rd1], %r1;\n ret;\n}\n",
                    PROG_GSA, &m);
    const cfg *g = p->funcs[0].g;
    cr_assert_eq(g->nloops, 1);
    cr_expect(g->loops[0].irreducible);
    cr_expect_eq(g->loops[0].nheaders, 2);
    cr_expect_eq(g->nirreducible, 1);
    const gsa_func *gf = p->funcs[0].gsa;
    const ssa_func *s = p->funcs[0].ssa;
    uint32_t nirr = 0;
    for (uint32_t k = 0; k < s->nnodes; k++) {
        bool inside = g->blocks[s->nodes[k].block].loop == 0;
        if (s->nodes[k].kind != SSA_V_PHI) continue;
        cr_expect_eq(gf->nodes[k].irreducible, inside);
        if (!inside) continue;
        /* the two branches in the region and the one choosing the header */
        cr_expect_eq(gf->nodes[k].ngates, 3, "every branch of the region gates it");
        nirr++;
    }
    cr_expect_eq(nirr, 2, "phis for %%r1 at both headers");
    char msg[512];
    cr_expect_eq(ssa_verify(s, msg, sizeof msg), 0, "%s", msg);
    prog_free(p);
    ptx_module_free(m);
}

Test(cfg, break_out_of_two_loops_gets_eta_with_both_exits)
{
    ptx_module *m;
    prog *p = build(HEAD ".visible .entry k(.param .u64 o){\n .reg .pred %p<4>; .reg .b32 %r<4>; .reg .b64 %rd<2>;\n"
                         " ld.param.u64 %rd1, [o];\n mov.u32 %r1, 0;\n mov.u32 %r2, %tid.x;\n"
                         "$O:\n mov.u32 %r3, 0;\n"
                         "$I:\n add.s32 %r1, %r1, %r2;\n setp.gt.u32 %p1, %r1, 1000;\n @%p1 bra $X;\n"
                         " add.s32 %r3, %r3, 1;\n setp.lt.u32 %p2, %r3, 8;\n @%p2 bra $I;\n"
                         " setp.lt.u32 %p3, %r1, 500;\n @%p3 bra $O;\n"
                         "$X:\n st.global.u32 [%rd1], %r1;\n ret;\n}\n",
                    PROG_GSA, &m);
    const cfg *g = p->funcs[0].g;
    cr_assert_eq(g->nloops, 2);
    const ssa_func *s = p->funcs[0].ssa;
    const gsa_func *gf = p->funcs[0].gsa;
    /* %r1 leaves the inner loop into the outer one (gated by the inner
     * loop's exits %p1, %p2), both loops at once on the break (%p1, %p2 and
     * the outer exit %p3), and the outer loop normally (%p1, %p3). */
    uint32_t netas = 0, gates[3] = {0, 0, 0}, outer[3] = {0, 0, 0};
    for (uint32_t k = 0; k < s->nnodes; k++) {
        if (s->nodes[k].kind != SSA_V_ETA) continue;
        cr_assert_lt(netas, 3);
        gates[netas] = gf->nodes[k].ngates;
        outer[netas++] = g->loops[s->nodes[k].loop_outer].parent == CFG_NONE;
    }
    cr_expect_eq(netas, 3);
    cr_expect(gates[0] == 2 && !outer[0], "eta into the outer loop: %u gates", gates[0]);
    cr_expect(gates[1] == 3 && outer[1], "eta on the break: %u gates", gates[1]);
    cr_expect(gates[2] == 2 && outer[2], "eta on the outer exit: %u gates", gates[2]);
    char *buf = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&buf, &len);
    cfg_print_prog(o, p, PROG_GSA, CFGP_TEXT);
    fclose(o);
    has_lines(buf, "%r1.5 = η([%p1.1, %p2.1], %r1.4)\n"
                   "%r1.6 = η([%p1.1, %p2.1, %p3.1], %r1.4)\n"
                   "%r1.7 = η([%p1.1, %p3.1], %r1.5)\n"
                   "%r1.8 = γ(%p1.1, %r1.6, %r1.7)");
    free(buf);
    char msg[512];
    cr_expect_eq(ssa_verify(s, msg, sizeof msg), 0, "%s", msg);
    prog_free(p);
    ptx_module_free(m);
}

Test(ssa, predicated_and_multiple_definitions)
{
    ptx_module *m;
    prog *p = build(HEAD ".visible .entry k(.param .u64 o){\n .reg .pred %p<4>; .reg .b32 %r<6>; .reg .b64 %rd<3>;\n"
                         " ld.param.u64 %rd1, [o];\n mov.u32 %r1, %tid.x;\n mov.u32 %r2, 7;\n"
                         " setp.lt.s32 %p1|%p2, %r1, 16;\n @%p1 mov.u32 %r2, 9;\n"
                         " mov.b64 {%r3, %r4}, %rd1;\n add.s32 %r5, %r2, %r3;\n"
                         " st.global.u32 [%rd1], %r5;\n ret;\n}\n",
                    PROG_SSA, &m);
    const ssa_func *s = p->funcs[0].ssa;
    const ptx_func *fn = p->funcs[0].fn;
    uint32_t guarded = CFG_NONE, movb = CFG_NONE, setp = CFG_NONE;
    for (uint32_t i = 0; i < fn->nstmts; i++) {
        if (fn->stmts[i]->kind != PTX_S_INST) continue;
        const ptx_inst *in = &fn->stmts[i]->u.inst;
        if (in->has_guard) guarded = i;
        if (in->opcode_len == 7 && !memcmp(in->opcode, "mov.b64", 7)) movb = i;
        if (in->op == PTX_OPC_SETP) setp = i;
    }
    /* @%p1 mov %r2, 9: a partial definition keeping %r2.1 and reading %p1 */
    uint32_t def = SSA_NONE, defs = 0;
    for (uint32_t k = s->ref_off[guarded]; k < s->ref_off[guarded + 1]; k++)
        if (s->refs[k].role & PTX_REF_DEF) def = s->refs[k].value;
    cr_assert_neq(def, SSA_NONE);
    cr_expect(s->values[def].partial);
    char buf[64];
    cr_expect_str_eq(ssa_value_name(s, s->values[def].prev, buf, sizeof buf), "%r2.1");
    cr_expect_str_eq(ssa_value_name(s, ssa_guard_value(s, guarded), buf, sizeof buf), "%p1.1");
    for (uint32_t k = s->ref_off[setp]; k < s->ref_off[setp + 1]; k++) defs += (s->refs[k].role & PTX_REF_DEF) != 0;
    cr_expect_eq(defs, 2, "setp %%p1|%%p2 defines two values");
    defs = 0;
    for (uint32_t k = s->ref_off[movb]; k < s->ref_off[movb + 1]; k++) defs += (s->refs[k].role & PTX_REF_DEF) != 0;
    cr_expect_eq(defs, 2, "mov.b64 {%%r3, %%r4} defines two values");
    char msg[512];
    cr_expect_eq(ssa_verify(s, msg, sizeof msg), 0, "%s", msg);
    prog_free(p);
    ptx_module_free(m);
}

Test(ssa, func_register_parameters_and_returns)
{
    ptx_module *m;
    prog *p = build(HEAD ".func (.reg .b32 %rv) f(.reg .b32 %a)\n{\n .reg .pred %p<2>;\n"
                         " mov.u32 %rv, %a;\n setp.eq.s32 %p1, %a, 0;\n @%p1 bra $D;\n add.s32 %rv, %a, 1;\n"
                         "$D:\n ret;\n}\n"
                         ".visible .entry k(.param .u64 o){\n .reg .b32 %r<3>; .reg .b64 %rd<2>;\n"
                         " ld.param.u64 %rd1, [o];\n mov.u32 %r1, %tid.x;\n"
                         " { .param .b32 a0; .param .b32 r0; st.param.b32 [a0], %r1;\n"
                         "   call.uni (r0), f, (a0); ld.param.b32 %r2, [r0]; }\n"
                         " st.global.u32 [%rd1], %r2;\n ret;\n}\n",
                    PROG_GSA, &m);
    const ssa_func *s = p->funcs[0].ssa;
    char buf[64];
    cr_assert_eq(s->nret_vals, 1);
    cr_expect_str_eq(ssa_value_name(s, s->ret_vals[0], buf, sizeof buf), "%rv.3", "the phi of both returns");
    uint32_t nparam = 0;
    for (uint32_t v = 0; v < s->nvalues; v++) nparam += s->values[v].kind == SSA_V_ENTRY && s->values[v].param;
    cr_expect_eq(nparam, 1, "%%a is a parameter value");
    /* the call does not end the kernel's block */
    cr_expect_eq(p->funcs[1].g->nblocks, 3);
    char msg[512];
    for (uint32_t i = 0; i < p->nfuncs; i++) cr_expect_eq(ssa_verify(p->funcs[i].ssa, msg, sizeof msg), 0, "%s", msg);
    prog_free(p);
    ptx_module_free(m);
}

Test(cfg, branch_to_a_non_label_is_an_error)
{
    ptx_module *m = tu_parse_ok("t.ptx", HEAD ".global .u32 g;\n.visible .entry k(){\n bra.uni g;\n}\n");
    ptx_diags d;
    ptx_diags_init(&d);
    prog *p = prog_build(m, PROG_CFG, NULL, &d);
    cr_expect_null(p);
    cr_assert_eq(d.nerrors, 1);
    cr_expect_eq(d.v[0].loc.line, 6);
    cr_expect_eq(d.v[0].loc.col, 2);
    cr_expect_str_eq(d.v[0].msg, "branch target is not a label of this function: 'g'");
    ptx_diags_free(&d);
    ptx_module_free(m);
}

/* ---- every corpus function ----------------------------------------------- */
/* Blocks reached from root without passing through cut, over the reachable
 * blocks: forward along successors, or (rev) backward along predecessors
 * with the exit's fake edges to the fake_exit blocks. */
static void reach_without(const cfg *g, uint32_t root, uint32_t cut, bool rev, uint8_t *seen, uint32_t *stack)
{
    memset(seen, 0, g->nblocks);
    if (root == cut) return;
    uint32_t n = 0;
    stack[n++] = root;
    seen[root] = 1;
    while (n) {
        uint32_t b = stack[--n];
        const cfg_block *bb = &g->blocks[b];
        uint32_t nout = rev ? bb->npred : bb->nsucc;
        for (uint32_t i = 0; i < nout + (rev && b == CFG_EXIT ? g->nblocks : 0); i++) {
            uint32_t t;
            if (i < nout) t = rev ? bb->pred[i] : bb->succ[i];
            else if (g->blocks[i - nout].fake_exit) t = i - nout;
            else continue;
            if (t == cut || seen[t] || !g->blocks[t].reachable) continue;
            seen[t] = 1;
            stack[n++] = t;
        }
    }
}

/* The dominator and post-dominator trees against their definition: a
 * (post-)dominates b when every path from the entry to b (from b to the
 * exit) passes through a.  Quadratic: functions of up to 600 blocks. */
static void check_dominance(const cfg *g, const char *where)
{
    if (g->nblocks > 600) return;
    uint8_t *seen = malloc(g->nblocks);
    uint32_t *stack = malloc(sizeof *stack * g->nblocks);
    cr_assert(seen && stack);
    for (uint32_t a = 0; a < g->nblocks; a++) {
        if (!g->blocks[a].reachable) continue;
        reach_without(g, CFG_ENTRY, a, false, seen, stack);
        for (uint32_t b = 0; b < g->nblocks; b++)
            if (g->blocks[b].reachable)
                cr_assert_eq(cfg_dominates(g, a, b), a == b || !seen[b], "%s: %u dominates %u", where, a, b);
        reach_without(g, CFG_EXIT, a, true, seen, stack);
        for (uint32_t b = 0; b < g->nblocks; b++)
            if (g->blocks[b].reachable)
                cr_assert_eq(cfg_postdominates(g, a, b), a == b || !seen[b], "%s: %u post-dominates %u", where, a, b);
    }
    free(seen);
    free(stack);
}

static void check_cfg_invariants(const cfg *g, const char *where)
{
    check_dominance(g, where);
    for (uint32_t b = 0; b < g->nblocks; b++) {
        const cfg_block *bb = &g->blocks[b];
        for (uint32_t i = 0; i < bb->nsucc; i++) {
            const cfg_block *t = &g->blocks[bb->succ[i]];
            uint32_t found = 0;
            for (uint32_t k = 0; k < t->npred; k++) found += t->pred[k] == b;
            cr_assert_eq(found, 1, "%s: edge %u->%u not mirrored", where, b, bb->succ[i]);
        }
        if (!bb->reachable) continue;
        if (b != CFG_ENTRY) {
            cr_assert_neq(bb->idom, CFG_NONE, "%s: block %u has no idom", where, b);
            cr_assert(cfg_dominates(g, bb->idom, b) && bb->idom != b, "%s: idom of %u", where, b);
            for (uint32_t k = 0; k < bb->npred; k++)
                if (g->blocks[bb->pred[k]].reachable)
                    cr_assert(cfg_dominates(g, bb->idom, bb->pred[k]), "%s: idom(%u) must dominate its preds", where, b);
        }
        if (b != CFG_EXIT) {
            cr_assert_neq(bb->ipdom, CFG_NONE, "%s: block %u has no ipdom", where, b);
            for (uint32_t k = 0; k < bb->nsucc; k++)
                cr_assert(cfg_postdominates(g, bb->ipdom, bb->succ[k]) || bb->fake_exit,
                          "%s: ipdom(%u) must post-dominate its succs", where, b);
        }
    }
    for (uint32_t l = 0; l < g->nloops; l++) {
        const cfg_loop *lp = &g->loops[l];
        for (uint32_t h = 0; h < lp->nheaders; h++) cr_assert(cfg_loop_contains(g, l, lp->headers[h]));
        if (!lp->irreducible)
            for (uint32_t i = 0; i < lp->nblocks; i++)
                cr_assert(cfg_dominates(g, lp->headers[0], lp->blocks[i]), "%s: header must dominate its loop", where);
        for (uint32_t i = 0; i < lp->nexits; i++) cr_assert(!cfg_loop_contains(g, l, lp->exit_to[i]));
    }
}

/* file parsed and built up to GSA, or the test fails; *m the module to
 * free after the program. */
static prog *build_gsa(const char *file, ptx_module **m)
{
    ptx_diags d;
    ptx_diags_init(&d);
    *m = ptx_parse_file(file, &d);
    cr_assert(*m, "%s does not parse", file);
    prog *p = prog_build(*m, PROG_GSA, NULL, &d);
    cr_assert(p, "%s: no CFG: %s", file, d.n ? d.v[0].msg : "?");
    ptx_diags_free(&d);
    return p;
}

Test(corpus, verifier_passes_on_every_function, .timeout = 120)
{
    size_t n = 0, nfn = 0, nphi = 0, neta = 0, nirr = 0;
    char **files = tu_list_ptx(tu_src("ptx-corpus"), &n);
    cr_assert_gt(n, 100);
    for (size_t i = 0; i < n; i++) {
        ptx_module *m;
        prog *p = build_gsa(files[i], &m);
        for (uint32_t k = 0; k < p->nfuncs; k++) {
            char where[512], msg[2048];
            snprintf(where, sizeof where, "%s:%.*s", files[i], (int)p->funcs[k].fn->name.n, p->funcs[k].fn->name.p);
            check_cfg_invariants(p->funcs[k].g, where);
            uint32_t bad = ssa_verify(p->funcs[k].ssa, msg, sizeof msg);
            cr_assert_eq(bad, 0, "%s: %u SSA violations:\n%s", where, bad, msg);
            const gsa_func *gf = p->funcs[k].gsa;
            cr_assert_eq(gf->ngamma + gf->nmu, p->funcs[k].ssa->nphis, "%s: every phi classified", where);
            cr_assert_eq(gf->neta, p->funcs[k].ssa->netas);
            nfn++;
            nphi += p->funcs[k].ssa->nphis;
            neta += p->funcs[k].ssa->netas;
            nirr += p->funcs[k].g->nirreducible;
        }
        prog_free(p);
        ptx_module_free(m);
    }
    cr_log_info("verified %zu functions in %zu files: %zu phi, %zu eta, %zu irreducible loops", nfn, n, nphi, neta,
                nirr);
    cr_expect_gt(nfn, 300);
    tu_free_list(files, n);
}

/* The irreducible and non-header-join fixtures: the dominator passes that
 * need a second full pass (an edge from later in the order changes the
 * tree) against the definition, as the corpus test does for every function. */
Test(cfg, dominators_of_irreducible_fixtures)
{
    size_t n = 0, nfn = 0;
    char **files = tu_list_ptx(tu_src("tests/data/uniformity"), &n);
    cr_assert_gt(n, 1);
    for (size_t i = 0; i < n; i++) {
        ptx_module *m;
        prog *p = build_gsa(files[i], &m);
        for (uint32_t k = 0; k < p->nfuncs; k++, nfn++) check_cfg_invariants(p->funcs[k].g, files[i]);
        prog_free(p);
        ptx_module_free(m);
    }
    cr_expect_gt(nfn, 1);
    tu_free_list(files, n);
}

/* ---- the command -------------------------------------------------------------- */
Test(cli, cfg_json_dot_and_errors, .timeout = 60)
{
    char *out = NULL, *err = NULL;
    char *argv[] = {(char *)tu_bin(), "cfg", "--gsa", "--format", "json", "--kernel", "sumTriangle",
                    (char *)tu_src("tests/data/fig8_sumtriangle.ptx"), NULL};
    cr_assert_eq(tu_run(argv, &out, &err), 0, "%s", err);
    json_error_t je;
    json_t *root = json_loads(out, 0, &je);
    cr_assert(root, "bad JSON: %s", je.text);
    json_t *f = json_array_get(json_object_get(root, "functions"), 0);
    cr_expect_str_eq(json_string_value(json_object_get(f, "name")), "sumTriangle");
    json_t *st = json_object_get(f, "ssa_stats");
    cr_expect_eq(json_integer_value(json_object_get(st, "gamma")), 1);
    cr_expect_eq(json_integer_value(json_object_get(st, "mu")), 3);
    cr_expect_eq(json_integer_value(json_object_get(st, "eta")), 2);
    json_decref(root);
    free(out);
    free(err);

    char *argv2[] = {(char *)tu_bin(), "cfg", "--gsa", "--format", "dot",
                     (char *)tu_src("ptx-corpus/sm_80/sampaio_divergence.ptx"), NULL};
    cr_assert_eq(tu_run(argv2, &out, &err), 0, "%s", err);
    cr_expect(strstr(out, "peripheries=2"), "loop headers marked");
    cr_expect(strstr(out, "style=dashed, color=blue, label=\"back\""), "back edges marked");
    /* Graphviz accepts it */
    char path[] = "/tmp/ptxray-dot-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    FILE *fp = fdopen(fd, "w");
    fputs(out, fp);
    fclose(fp);
    char *argv3[] = {"/usr/bin/dot", "-Tsvg", path, NULL}; /* graphviz, from scripts/setup.sh */
    char *svg = NULL, *err3 = NULL;
    cr_expect_eq(tu_run(argv3, &svg, &err3), 0, "dot failed: %s", err3);
    cr_expect(svg && strstr(svg, "<svg"), "no SVG");
    unlink(path);
    free(svg);
    free(err3);
    free(out);
    free(err);

    char *argv4[] = {(char *)tu_bin(), "cfg", "--kernel", "nope",
                     (char *)tu_src("tests/data/fig8_sumtriangle.ptx"), NULL};
    cr_expect_eq(tu_run(argv4, &out, &err), 2);
    cr_expect(strstr(err, "no function named 'nope'"), "%s", err);
    cr_expect_str_eq(out, "");
    free(out);
    free(err);
}

/* The DOT's divergence colours and .cu lines on the 128-thread tree
 * reduction (ptx-corpus/src/reduce_shared.cu), default block shape: the
 * grid-stride loop (lines 19-22, on i = blockIdx.x*256 + tid) diverges; the
 * unrolled `tid < s` steps of line 27 are warp-uniform for s = 64 and 32
 * and divergent from s = 16 on; what follows a divergent branch runs with
 * part of the warp until the branches reconverge. */
static char *dot_line(const char *dot, const char *node)
{
    char key[64];
    snprintf(key, sizeof key, "    %s [", node);
    const char *p = strstr(dot, key);
    if (!p) return strdup("");
    const char *e = strchr(p, '\n');
    return strndup(p, (size_t)(e - p));
}

Test(cli, cfg_dot_divergence_colours, .timeout = 60)
{
    char *out = NULL, *err = NULL;
    char *argv[] = {(char *)tu_bin(), "cfg", "--format", "dot", "--kernel", "reduce_sum<128u>",
                    (char *)tu_src("ptx-corpus/sm_80/reduce_shared.ptx"), NULL};
    cr_assert_eq(tu_run(argv, &out, &err), 0, "%s", err);
    static const struct {
        const char *node, *label, *fill;
        bool red_outline;
    } want[] = {
        {"f0_b2", "BB0\\nPTX 33-48\\nreduce_shared.cu:13,15-16,19", "#f4b4ae", true}, /* while (i < n) */
        {"f0_b3", "BB1\\nPTX 51-53\\nreduce_shared.cu:17", "#fbe7a1", false},        /* inside it */
        {"f0_b5", "BB3\\nPTX 66-69\\nreduce_shared.cu:21", "#fbe7a1", false},        /* if (i + BLOCK < n) */
        {"f0_b7", "$L__BB0_5\\nPTX 78-88\\nreduce_shared.cu:24-25,27", "#d8eed8", false}, /* tid < 64 */
        {"f0_b9", "$L__BB0_7\\nPTX 95-100\\nreduce_shared.cu:27-28", "#d8eed8", false},  /* tid < 32 */
        {"f0_b10", "BB8\\nPTX 102-105\\nreduce_shared.cu:27", "#d8eed8", false},
        {"f0_b11", "$L__BB0_9\\nPTX 107-112\\nreduce_shared.cu:27-28", "#f4b4ae", true}, /* tid < 16 */
        {"f0_b12", "BB10\\nPTX 114-117\\nreduce_shared.cu:27", "#fbe7a1", false},
        {"f0_b23", "$L__BB0_21\\nPTX 181-183\\nreduce_shared.cu:31", "#d8eed8", false}, /* reconverged */
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        char *l = dot_line(out, want[i].node), exp[256];
        snprintf(exp, sizeof exp, "[label=\"%s\"", want[i].label);
        cr_expect(strstr(l, exp), "%s: %s", want[i].node, l);
        snprintf(exp, sizeof exp, "style=filled, fillcolor=\"%s\"", want[i].fill);
        cr_expect(strstr(l, exp), "%s: want %s: %s", want[i].node, want[i].fill, l);
        cr_expect_eq(strstr(l, "color=\"#b3261e\", penwidth=2") != NULL, want[i].red_outline, "%s", l);
        free(l);
    }
    /* the divergent branch's edges, and not the uniform one's */
    cr_expect(strstr(out, "f0_b11 -> f0_b13 [taillabel=\"taken\", color=\"#b3261e\", penwidth=2];"), "%s", out);
    cr_expect(strstr(out, "f0_b7 -> f0_b9 [taillabel=\"taken\"];"), "%s", out);
    free(out);
    free(err);
}

/* %pm0 and %pm0_64 are different special registers: their SSA names must
 * differ (reports and --check-divergence messages name values by them). */
Test(cfg, pm64_sreg_value_name)
{
    ptx_module *m;
    prog *p = build(".version 8.0\n.target sm_80\n.address_size 64\n"
                    ".visible .entry k(.param .u64 o)\n{\n .reg .b32 %r<2>;\n .reg .b64 %rd<3>;\n"
                    " ld.param.u64 %rd1, [o];\n mov.u32 %r1, %pm0;\n mov.u64 %rd2, %pm0_64;\n"
                    " st.global.u32 [%rd1], %r1;\n st.global.u64 [%rd1+8], %rd2;\n ret;\n}\n",
                    PROG_SSA, &m);
    const ssa_func *s = p->funcs[0].ssa;
    char buf[64];
    int seen = 0;
    for (uint32_t v = 0; v < s->nvalues; v++) {
        if (s->values[v].kind != SSA_V_SREG) continue;
        const char *nm = ssa_value_name(s, v, buf, sizeof buf);
        if (!strcmp(nm, "%pm0")) seen |= 1;
        else if (!strcmp(nm, "%pm0_64")) seen |= 2;
    }
    cr_expect_eq(seen, 3, "names of %%pm0 and %%pm0_64");
    prog_free(p);
    ptx_module_free(m);
}

/* u32csr_build and u32csr_take against the definition: key k's items are
 * the items of the pairs with key k, in pair order.  Pairs drawn from a
 * fixed generator: empty, one key, the last key, many repeats. */
Test(cfg, csr_lists_keep_pair_order)
{
    uint32_t seed = 12345;
    for (uint32_t round = 0; round < 40; round++) {
        uint32_t nkeys = round % 7 == 0 ? round / 7 : 1 + round * 13 % 97;
        uint32_t n = round % 5 == 0 ? 0 : round * 37 % 1000;
        if (!nkeys) n = 0;
        u32vec k = {0}, it = {0};
        for (uint32_t i = 0; i < n; i++) {
            seed = seed * 1103515245u + 12345u;
            u32vec_push(&k, round % 3 == 0 ? nkeys - 1 : (seed >> 8) % nkeys);
            u32vec_push(&it, i * 7 + round);
        }
        u32csr a, b;
        u32csr_build(&a, nkeys, &k, &it);
        u32vec k2 = {0}, it2 = {0};
        for (uint32_t i = 0; i < n; i++) {
            u32vec_push(&k2, k.v[i]);
            u32vec_push(&it2, it.v[i]);
        }
        u32csr_take(&b, nkeys, &k2, &it2);
        cr_assert(k2.v == NULL && k2.n == 0 && it2.v == NULL && it2.n == 0);
        cr_assert_eq(a.off[0], 0);
        cr_assert_eq(b.off[0], 0);
        for (uint32_t key = 0; key < nkeys; key++) {
            uint32_t at = a.off[key];
            for (uint32_t i = 0; i < n; i++)
                if (k.v[i] == key) {
                    cr_assert_lt(at, a.off[key + 1], "round %u key %u: too few items", round, key);
                    cr_assert_eq(a.item[at], it.v[i], "round %u key %u", round, key);
                    cr_assert_eq(b.item[at], it.v[i], "round %u key %u (take)", round, key);
                    at++;
                }
            cr_assert_eq(at, a.off[key + 1], "round %u key %u: too many items", round, key);
            cr_assert_eq(a.off[key + 1], b.off[key + 1]);
        }
        cr_assert_eq(nkeys ? a.off[nkeys] : 0, n);
        u32csr_free(&a);
        u32csr_free(&b);
        u32vec_free(&k);
        u32vec_free(&it);
    }
}
