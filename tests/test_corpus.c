/* The whole corpus: every file parses without a diagnostic, printing is a
 * fixed point, and (with ptxas) printed PTX assembles to identical code. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"
#include "toolchain.h"

Test(corpus, every_file_parses_cleanly, .timeout = 600) {
    size_t n;
    char **files = tu_list_ptx(tu_src("ptx-corpus"), &n);
    cr_assert_geq(n, 120, "corpus has only %zu PTX files", n);
    size_t insts = 0, kernels = 0;
    for (size_t i = 0; i < n; i++) {
        ptx_diags d;
        ptx_diags_init(&d);
        ptx_module *m = ptx_parse_file(files[i], &d);
        if (!m || d.n) ptx_diags_print(&d, files[i], NULL, 0, stderr);
        cr_expect_not_null(m, "%s does not parse", files[i]);
        cr_expect_eq(d.n, 0, "%s: %u diagnostics", files[i], d.n);
        if (m) {
            for (uint32_t k = 0; k < m->nfuncs; k++) {
                insts += m->funcs[k]->ninsts;
                kernels += m->funcs[k]->is_entry && m->funcs[k]->has_body;
            }
        }
        ptx_module_free(m);
        ptx_diags_free(&d);
    }
    cr_expect_geq(kernels, 120);
    cr_expect_gt(insts, 10000);
    tu_free_list(files, n);
}

Test(corpus, printing_is_a_fixed_point, .timeout = 600) {
    size_t n;
    char **files = tu_list_ptx(tu_src("ptx-corpus"), &n);
    for (size_t i = 0; i < n; i++) {
        ptx_diags d;
        ptx_diags_init(&d);
        ptx_module *m = ptx_parse_file(files[i], &d);
        cr_assert_not_null(m, "%s", files[i]);
        size_t l1, l2;
        char *p1 = tu_print(m, &l1);
        ptx_module *m2 = ptx_parse_string("printed", p1, l1, &d);
        if (!m2) ptx_diags_print(&d, "printed", p1, l1, stderr);
        cr_assert_not_null(m2, "printed %s does not parse", files[i]);
        char *p2 = tu_print(m2, &l2);
        cr_expect(l1 == l2 && memcmp(p1, p2, l1) == 0, "%s: print(parse(print(x))) != print(x)", files[i]);
        /* the printed module has the same shape */
        cr_expect_eq(m->nfuncs, m2->nfuncs);
        for (uint32_t k = 0; k < m->nfuncs && k < m2->nfuncs; k++)
            cr_expect_eq(m->funcs[k]->ninsts, m2->funcs[k]->ninsts, "%s", files[i]);
        free(p1);
        free(p2);
        ptx_module_free(m);
        ptx_module_free(m2);
        ptx_diags_free(&d);
    }
    tu_free_list(files, n);
}

/* The printer's oracle: ptxas on the original and on the printed file must
 * give byte-identical .text sections, for every corpus file. */
Test(corpus, ptxas_code_identical_after_print, .timeout = 1200) {
    if (!tc_find_ptxas()) cr_skip_test("ptxas not found: round trip not checked");
    size_t n, nd;
    char **files = tu_list_ptx(tu_src("ptx-corpus"), &n);
    char **extra = tu_list_ptx(tu_src("tests/data"), &nd);
    char **argv = calloc(n + nd + 3, sizeof *argv);
    argv[0] = (char *)tu_bin();
    argv[1] = "roundtrip";
    for (size_t i = 0; i < n; i++) argv[2 + i] = files[i];
    for (size_t i = 0; i < nd; i++) argv[2 + n + i] = extra[i];
    char *out, *err;
    int rc = tu_run(argv, &out, &err);
    char want[64];
    snprintf(want, sizeof want, "%zu identical, 0 different, 0 failed\n", n + nd);
    if (rc != 0 || !strstr(out, want)) fprintf(stderr, "%s%s", out, err);
    cr_expect_eq(rc, 0);
    cr_expect(strstr(out, want) != NULL, "expected '%s'", want);
    free(out);
    free(err);
    free(argv);
    tu_free_list(files, n);
    tu_free_list(extra, nd);
}

Test(corpus, has_the_required_kernels) {
    const char *need[] = {"avgSquare", "sumTriangle", "Fan1", "Fan2"};
    size_t n;
    char **files = tu_list_ptx(tu_src("ptx-corpus/sm_80"), &n);
    for (size_t k = 0; k < sizeof need / sizeof need[0]; k++) {
        int found = 0;
        for (size_t i = 0; i < n && !found; i++) {
            char *t = tu_read(files[i], NULL);
            found = t && strstr(t, need[k]) != NULL;
            free(t);
        }
        cr_expect(found, "no corpus kernel named %s", need[k]);
    }
    tu_free_list(files, n);
}

/* The lexer's fast paths (whole instructions, "%r1,", "[%rd1+4]", ".loc F L C"
 * as single tokens) must build exactly what the general grammar builds:
 * every corpus file is parsed both ways and compared statement by statement
 * and as printed text. */
static int same_operand(const ptx_operand *a, const ptx_operand *b) {
    if (a->kind != b->kind || a->neg != b->neg || a->comp != b->comp || a->flags != b->flags || a->n != b->n ||
        a->v != b->v)
        return 0;
    switch (a->kind) {
    case PTX_O_IMM: case PTX_O_SYM:
        return a->p.text == b->p.text; /* spans into each module's own copy: compare offsets below */
    case PTX_O_ADDR: case PTX_O_VEC: case PTX_O_PAIR: case PTX_O_LIST:
        for (uint32_t i = 0; i < a->n; i++)
            if (!same_operand(&a->p.elems[i], &b->p.elems[i])) return 0;
        return 1;
    default: return 1;
    }
}

/* A declaration (parameter or body variable) built both ways. */
static void same_var(const char *name, const ptx_module *fm, const ptx_module *sm, const ptx_var *x,
                     const ptx_var *y) {
    cr_expect(x->name.p - fm->src == y->name.p - sm->src && x->name.n == y->name.n && x->space == y->space &&
                  x->type == y->type && x->vec == y->vec && x->linkage == y->linkage && x->is_ptr == y->is_ptr &&
                  x->has_range == y->has_range && x->range == y->range && x->align == y->align &&
                  x->ndims == y->ndims && (x->init == NULL) == (y->init == NULL) && x->loc.line == y->loc.line &&
                  x->loc.col == y->loc.col && x->loc.off == y->loc.off,
              "%s: declaration of %.*s at %u:%u differs", name, (int)x->name.n, x->name.p, x->loc.line, x->loc.col);
}

/* Parses text with the fast paths on and off and expects the same IR. */
/* A register's name: the same span of each module's source, or, for a name
 * the builder wrote itself (a range element used with leading zeros,
 * "%r01", is named "%r1"), the same text. */
static bool same_name(const ptx_module *fast, const ptx_module *slow, ptx_str x, ptx_str y) {
    bool xin = x.p >= fast->src && x.p < fast->src + fast->src_len;
    bool yin = y.p >= slow->src && y.p < slow->src + slow->src_len;
    if (xin && yin) return x.p - fast->src == y.p - slow->src && x.n == y.n;
    return !xin && !yin && x.n == y.n && memcmp(x.p, y.p, x.n) == 0;
}

static void check_fast_general(const char *name, const char *text, size_t len) {
    ptx_diags d;
    ptx_diags_init(&d);
    ptx_set_fast_paths(1);
    ptx_module *fast = ptx_parse_string(name, text, len, &d);
    ptx_set_fast_paths(0);
    ptx_module *slow = ptx_parse_string(name, text, len, &d);
    ptx_set_fast_paths(1);
    if (!fast || !slow) ptx_diags_print(&d, name, text, len, stderr);
    cr_assert(fast && slow, "%s", name);
    char *pf = tu_print(fast, NULL), *ps = tu_print(slow, NULL);
    cr_expect_str_eq(pf, ps, "%s: printed text differs", name);
    cr_assert_eq(fast->nfuncs, slow->nfuncs);
    for (uint32_t k = 0; k < fast->nfuncs; k++) {
        const ptx_func *a = fast->funcs[k], *b = slow->funcs[k];
        cr_assert(a->nrets == b->nrets && a->nparams == b->nparams, "%s: function %u's signature", name, k);
        for (uint32_t i = 0; i < a->nrets + a->nparams; i++) {
            const ptx_var *x = i < a->nrets ? a->rets[i] : a->params[i - a->nrets];
            const ptx_var *y = i < b->nrets ? b->rets[i] : b->params[i - b->nrets];
            same_var(name, fast, slow, x, y);
        }
        cr_assert_eq(a->nstmts, b->nstmts, "%s", name);
        cr_expect_eq(a->ninsts, b->ninsts, "%s", name);
        cr_expect_eq(a->nregs, b->nregs, "%s", name);
        for (uint32_t r = 0; r < a->nregs && r < b->nregs; r++)
            cr_expect(same_name(fast, slow, a->regs[r].name, b->regs[r].name) && a->regs[r].type == b->regs[r].type &&
                          a->regs[r].vec == b->regs[r].vec && a->regs[r].decl == b->regs[r].decl,
                      "%s: register %u differs", name, r);
        for (uint32_t s = 0; s < a->nstmts; s++) {
            const ptx_stmt *x = a->stmts[s], *y = b->stmts[s];
            cr_assert_eq(x->kind, y->kind, "%s: statement %u", name, s);
            cr_expect(x->loc.line == y->loc.line && x->loc.col == y->loc.col && x->loc.off == y->loc.off,
                      "%s: statement %u at %u:%u vs %u:%u", name, s, x->loc.line, x->loc.col, y->loc.line,
                      y->loc.col);
            if (x->kind == PTX_S_VAR) same_var(name, fast, slow, x->u.var, y->u.var);
            if (x->kind == PTX_S_LABEL)
                cr_expect(x->u.name.p - fast->src == y->u.name.p - slow->src && x->u.name.n == y->u.name.n);
            if (x->kind == PTX_S_LOC) {
                const ptx_locinfo *li = &x->u.locinfo, *lj = &y->u.locinfo;
                cr_expect(li->file == lj->file && li->line == lj->line && li->col == lj->col &&
                              li->fn_name_len == lj->fn_name_len && (li->fn_name == NULL) == (lj->fn_name == NULL) &&
                              (!li->fn_name || li->fn_name - fast->src == lj->fn_name - slow->src) &&
                              li->ia_file == lj->ia_file && (!li->ia_file || (li->ia_line == lj->ia_line &&
                                                                              li->ia_col == lj->ia_col)),
                          "%s: .loc at line %u differs", name, x->loc.line);
            }
            if (x->kind != PTX_S_INST) continue;
            const ptx_inst *p = &x->u.inst, *q = &y->u.inst;
            cr_expect(p->op == q->op && p->nopd == q->nopd && p->type == q->type && p->type2 == q->type2 &&
                          p->space == q->space && p->vec == q->vec && p->nmods == q->nmods &&
                          p->opcode - fast->src == q->opcode - slow->src && p->opcode_len == q->opcode_len &&
                          p->has_guard == q->has_guard && p->guard == q->guard && p->guard_neg == q->guard_neg,
                      "%s: instruction at line %u differs", name, x->loc.line);
            for (uint32_t o = 0; o < p->nopd && o < q->nopd; o++) {
                /* literal and symbol spellings point into different buffers */
                ptx_operand oa = p->opd[o], ob = q->opd[o];
                if (oa.kind == PTX_O_IMM || oa.kind == PTX_O_SYM || oa.kind == PTX_O_SREG) {
                    cr_expect((oa.p.text == NULL) == (ob.p.text == NULL) &&
                                  oa.p.text - fast->src == ob.p.text - slow->src,
                              "%s:%u operand %u spelled at a different place", name, x->loc.line, o);
                    oa.p.text = ob.p.text;
                }
                if (oa.kind == PTX_O_ADDR || oa.kind == PTX_O_VEC || oa.kind == PTX_O_PAIR || oa.kind == PTX_O_LIST) {
                    cr_expect(oa.n == ob.n && oa.flags == ob.flags && oa.v == ob.v, "%s:%u operand %u differs",
                              name, x->loc.line, o);
                    for (uint32_t e = 0; e < oa.n && e < ob.n; e++) {
                        ptx_operand ea = oa.p.elems[e], eb = ob.p.elems[e];
                        if (ea.kind == PTX_O_SYM || ea.kind == PTX_O_IMM || ea.kind == PTX_O_SREG) {
                            cr_expect(ea.p.text - fast->src == eb.p.text - slow->src);
                            ea.p.text = eb.p.text;
                        }
                        cr_expect(same_operand(&ea, &eb), "%s:%u operand %u element %u differs", name,
                                  x->loc.line, o, e);
                    }
                    continue;
                }
                cr_expect(same_operand(&oa, &ob), "%s:%u operand %u differs", name, x->loc.line, o);
            }
        }
    }
    free(pf);
    free(ps);
    ptx_module_free(fast);
    ptx_module_free(slow);
    ptx_diags_free(&d);
}

Test(corpus, fast_paths_build_the_same_ir, .timeout = 600) {
    const char *dirs[] = {"ptx-corpus", "tests/data"};
    for (size_t k = 0; k < 2; k++) {
        size_t n;
        char **files = tu_list_ptx(tu_src(dirs[k]), &n);
        for (size_t i = 0; i < n; i++) {
            size_t len;
            char *text = tu_read(files[i], &len);
            check_fast_general(files[i], text, len);
            free(text);
        }
        tu_free_list(files, n);
    }
}

/* The shapes the lexer's statement-run reader takes (build.c, ptx_b_run), and
 * the places where it must stop and leave the text to the grammar. */
static const char run_shapes[] =
    ".version 8.0\n.target sm_80\n.address_size 64\n"
    ".global .align 4 .b8 gsym[64];\n"
    ".func (.param .b32 fr) fn(.param .b32 fa)\n{\n\tret;\n}\n"
    ".func fn2 ( )\n{\n\tret;\n}\n"
    ".func (.param .b32 fr2)fn3(\n\t.param .u64 a,\n\t.param .align 8 .b8 b[16]\n)\n{\n\tret;\n}\n"
    ".func fn4(.param .u32 a , .param .f32 b,\n .param .b64 c\n\n)\n{\n\tret;\n}\n"
    ".func fn5(.param .u32 a, // first\n\t.param .u32 b)\n{\n\tret;\n}\n"
    ".func fn6(.reg .u32 a, .param .u32 b)\n{\n\t.reg .b32 %r <4>;\n\t.reg .b32 %s<4> ;\n\t.reg\t.b16\t%h;\n"
    "\t.reg .b32 %x, %y;\n\t.reg .pred %p<010>;\n\tret;\n}\n"
    ".visible .entry k(.param .u64 k_p0, .param .u32 k_p1)\n{\n"
    "\t.reg .pred %p<4>;\n\t.reg .b32 %r<20>;\n\t.reg .b64 %rd<10>;\n\t.reg .f32 %f<8>;\n"
    "\t.reg .f64 %fd<3>;\n\t.reg .b32 plain;\n\t.reg .v4 .b32 %vq<2>;\n"
    "\t.shared .align 4 .b8 k_smem[64];\n"
    "\tld.param.u64 \t%rd1, [k_p0];\n\tld.param.u32 %r1, [k_p1+0];\n"
    "\tmov.u32 %r2, %tid.x;\n\tmov.u32 %r3, %ctaid.y;\n\tmov.u32 %r4, %envreg3;\n"
    "\tmov.u32 %r4, %laneid;\n\tmov.u64 %rd5, %clock64;\n"
    "\tadd.s32 %r5, %r1, -1;\n\tadd.s32 %r6, %r1, 0x1F;\n\tadd.s32 %r7, %r1, 017;\n"
    "\tadd.s32 %r8, %r1, 42U;\n\tadd.s32 %r8, %r1, 0;\n\tadd.s32 %r8, %r1, -0x7fffffffffffffff;\n"
    "\tadd.s64 %rd3, %rd1, 18446744073709551615;\n\tadd.s64 %rd3, %rd1, 1844674407370955161;\n"
    "\tmov.f32 %f1, 0f3F800000;\n\tmov.f32 %f2, -0f3F800000;\n\tmov.f64 %fd1, 0d3FF0000000000000;\n"
    "\tmov.f64 %fd2, -0D3FF0000000000000;\n\tmov.f32 %f3, 1.5;\n"
    "\tmov.b32 plain, %r8;\n\tadd.s32 %r9, plain, plain;\n\tmov.b32 %r9, %vq1.y;\n"
    "\tld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1+16];\n"
    "\tld.global.v2.f32 {%f1,_}, [%rd1 + -8];\n\tst.global.v2.f32 [%rd1 - 8], { %f1 , %f2 };\n"
    "\tst.global.v2.b32 [%rd1-0x10], {%r1, 7};\n\tst.global.v2.b32 [%rd1+-4], {plain, -1};\n"
    "\tshfl.sync.bfly.b32 %r10|%p1, %r2, 1, 31, -1;\n\tshfl.sync.bfly.b32 _|%p2, %r2, 1, 31, -1;\n"
    "\tshfl.sync.bfly.b32 %r11|_, %r2, 1, 31, -1;\n\tshfl.sync.bfly.b32 %r11 | %p2, %r2, 1, 31, -1;\n"
    "\tsetp.eq.s32 %p3, %r1, 0;\n\t@%p3 bra $L1;\n\t@!%p3 bra $L1;\n\t@ ! %p3 bra.uni $L1;\n"
    "\t@%p3\n\tbra $L1;\n"
    "$L1:\n\t.loc 1 2 3\n\t.loc\t1 2 3, function_name $L__info_string0, inlined_at 1 5 6\n"
    "\t.loc 1 2 3, inlined_at 2 7 8, function_name fname\n\t.loc 1 02 3\n\t.loc 1 2 3 // comment\n"
    "\t/* block\n\t   comment */ add.s32 %r12, %r1, %r1; // trailing\n\n\n"
    "\t{\n\t.reg .pred %p1;\n\tsetp.ne.s32 %p1, %r1, 0;\n\t@%p1 add.s32 %r13, %r1, 1;\n"
    "\tadd.s32 %r13, %r13, %r1;\n\t}\n"
    "\tmov.u64 %rd2, k_smem;\n\tmov.u64 %rd2, gsym;\n\tld.shared.f32 %f5, [k_smem+4];\n"
    "\tld.shared.f32 %f6, [ k_smem ];\n\tld.global.f32 %f6, [gsym+0x10];\n"
    "\tmov.b64 {%r14, %r15}, %rd2;\n"
    "\tproto: .callprototype (.param .b32 _) _ (.param .b32 _);\n"
    "\ttgts: .branchtargets $L1, $L2;\n"
    "\tmy_label :\n"
    "$L2: add.s32 %r17, %r1, 1;\n"
    "\t{ // callseq\n\t.param .b32 param0;\n\tst.param.b32 [param0+0], %r1;\n\t.param .b32 retval0;\n"
    "\tcall.uni (retval0), fn, (param0);\n\tld.param.b32 %r18, [retval0+0];\n\t}\n"
    "\tbrx.idx %r1, tgts;\n"
    "\tret;\n}\n";

Test(corpus, fast_paths_run_shapes) {
    check_fast_general("run_shapes", run_shapes, sizeof run_shapes - 1);
    /* the same with CRLF line ends */
    size_t n = sizeof run_shapes - 1, k = 0;
    char *crlf = malloc(2 * n + 1);
    for (size_t i = 0; i < n; i++) {
        if (run_shapes[i] == '\n') crlf[k++] = '\r';
        crlf[k++] = run_shapes[i];
    }
    check_fast_general("run_shapes_crlf", crlf, k);
    free(crlf);
}

/* The shapes the top-level reader takes (run_top.c: directives, .section
 * text, declarations, function headers and parameter lists) and the body
 * declarations the statement runs now take, next to the ones they leave to
 * the grammar. */
static const char top_shapes[] =
    "// header\n.version 8.5 // trailing\n.target sm_90a, debug\n.address_size 64\n\n"
    "\t.file\t1 \"/src/a.cu\", 1700000000, 4242\n\t.file 2 \"b\\\"q.h\"\n/* block */ .file 3 \"c.h\"\n"
    ".global .align 4 .b8 g_bytes[12] = {72, 101, 0x6c, 0, 0X6F, 1, 2, 3, 4, 5, 6, 7};\n"
    ".global .align 4 .u32 g_a = 5, g_b, g_c[2] = {1, 2};\n"
    ".const .align 4 .f32 g_f[2] = {0f3F800000, 0F40000000};\n"
    ".const .f64 g_d = 0d3FF0000000000000;\n"
    ".global .align 8 .u64 g_tab[2] = {g_a, g_b};\n"
    ".global .u32 g_nest[2][2] = {{1, 2}, {3, 4}};\n"
    ".global .u32 g_empty[1] = {};\n"
    ".visible .global .v4 .f32 g_v;\n.weak .global .u32 g_w;\n.extern .shared .align 16 .b8 g_dyn[];\n"
    ".global .u32 g_multi\n\t= 7\n\t;\n"
    ".global .u32 g_oct = 017;\n.global .u32 g_neg = -1;\n.global .u32 g_expr = 1 + 2;\n"
    ".global .u32 g_kv[1] = {g_a};\n.global .f32 g_dec = 1.5;\n"
    ".global .u64 g_gen = generic(g_a);\n.global .texref g_tex;\n"
    ".extern .func (.param .b32 func_retval0) vprintf\n(\n\t.param .b64 vprintf_param_0,\n"
    "\t.param .b64 vprintf_param_1\n)\n;\n"
    ".weak .func fw(.param .b32 a);\n.extern .func fx;\n"
    ".func (.param .align 16 .b8 fr[16]) f1(.param .align 8 .b8 a[16], .param .u32 b)\n.noreturn\n{\n\tret;\n}\n"
    ".visible .entry k1(\n\t.param .u64 k1_p0,\n\t.param .align 4 .b8 k1_p1[8]\n)\n"
    ".maxntid 256, 1, 1\n.minnctapersm 2\n{\n"
    "\t.local .align 8 .b8 __local_depot0[16];\n\t.shared .align 4 .b8 k1_s[64];\n"
    "\t.reg .b32 %r<4>, %q1, %q2;\n\t.reg .v2 .b32 %v;\n\t.reg .b64 %rd<3>;\n"
    "\t.const .u32 k1_c = 3;\n"
    "\tld.param.u64 %rd1, [k1_p0];\n\tmov.u32 %r1, %q1;\n\tret;\n}\n"
    ".global .u32 g_after;\n"
    ".visible .entry k2()\n.reqntid 64\n.pragma \"nounroll\";\n{\n\tret;\n}\n"
    ".entry k3 (.param .u32 .ptr .global .align 4 k3_p)\n{\n\tret;\n}\n"
    ".func f2(.reg .b32 r)\n{\n\tmov.b32 r, 1;\n\tret;\n}\n"
    ".section .debug_info\n{\n.b32 12 // c\n.b8 \"s}\\\"\"\n/* } */\n.b64 g_a\n}\n"
    ".section\t.debug_abbrev { .b8 1 }\n.section .nv_debug_ptx_txt\n{\n}\n"
    ".global .u32 g_last;";

Test(corpus, fast_paths_top_shapes) {
    check_fast_general("top_shapes", top_shapes, sizeof top_shapes - 1);
    size_t n = sizeof top_shapes - 1, k = 0;
    char *crlf = malloc(2 * n + 1);
    for (size_t i = 0; i < n; i++) {
        if (top_shapes[i] == '\n') crlf[k++] = '\r';
        crlf[k++] = top_shapes[i];
    }
    check_fast_general("top_shapes_crlf", crlf, k);
    free(crlf);
}

/* Broken statements where the run reader would otherwise be reading: it
 * stops before each, and the grammar reports exactly what it reports with the
 * fast paths off. */
static void check_same_diags(const char *name, const char *text) {
    ptx_diags a, b;
    ptx_diags_init(&a);
    ptx_diags_init(&b);
    ptx_set_fast_paths(1);
    ptx_module *ma = ptx_parse_string(name, text, strlen(text), &a);
    ptx_set_fast_paths(0);
    ptx_module *mb = ptx_parse_string(name, text, strlen(text), &b);
    ptx_set_fast_paths(1);
    cr_expect((ma == NULL) == (mb == NULL), "%s: parses one way only", name);
    cr_expect(a.n > 0, "%s: no diagnostic", name);
    cr_expect_eq(a.n, b.n, "%s: %u vs %u diagnostics", name, a.n, b.n);
    for (uint32_t i = 0; i < a.n && i < b.n; i++)
        cr_expect(a.v[i].severity == b.v[i].severity && a.v[i].loc.line == b.v[i].loc.line &&
                      a.v[i].loc.col == b.v[i].loc.col && strcmp(a.v[i].msg, b.v[i].msg) == 0,
                  "%s: diagnostic %u: %u:%u %s vs %u:%u %s", name, i, a.v[i].loc.line, a.v[i].loc.col, a.v[i].msg,
                  b.v[i].loc.line, b.v[i].loc.col, b.v[i].msg);
    ptx_module_free(ma);
    ptx_module_free(mb);
    ptx_diags_free(&a);
    ptx_diags_free(&b);
}

#define RUN_HEAD ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n" \
                 "\t.reg .pred %p<3>;\n\t.reg .b32 %r<9>;\n\t.reg .b64 %rd<4>;\n\t.reg .f32 %f<4>;\n" \
                 "\tmov.u32 %r1, 1;\n"
#define RUN_TAIL "\tmov.u32 %r3, 2;\n$L_end:\n\tret;\n}\n"

Test(corpus, fast_paths_same_diagnostics) {
    static const char *const bodies[] = {
        "\tadd.s32 %r2, %r1, %r9;\n",
        "\t@%r1 bra $L_end;\n",
        "\t@%p7 bra $L_end;\n",
        "\tadd.s64 %rd1, %rd2, 99999999999999999999;\n",
        "\tbra $L_nowhere;\n",
        "$L_end:\n\tmov.u32 %r2, 0;\n",
        "\tld.global.v2.f32 {%f1, %f9}, [%rd1];\n",
        "\tld.global.v2.f32 {%f1, %f2}, [%rd9+4];\n",
        "\tshfl.sync.bfly.b32 %r2|%p9, %r1, 1, 31, -1;\n",
        "\t.loc 1 2 3, colour red\n",
        "\tfrobnicate.b32 %r2, %r1;\n\tfrobnicate.b32 %r2, %r1;\n",
        "\tadd.s32 %r2, %r1, 08;\n",
        "\tadd.s32 %r2, %r1, 1\n\tmov.u32 %r3, 2;\n",
        "\tmov.f32 %f1, 0f3F80000;\n",
        "\tmov.u32 %r2, %r1 mov.u32 %r3, 2;\n",
        "\tld.global.f32 %f1, [nowhere+4];\n",
        "\tst.global.v2.f32 [%rd1], {%f1, nowhere};\n",
        "\tmov.u32 %r2, %r1;\ntgts:\n\t.branchtargets $L_end, nowhere;\n\tbrx.idx %r2, tgts;\n",
        "\t.reg .b32 %r<9>;\n",
        "\t.reg .b32 %q<0>;\n",
        "\t.reg .b32 %q<99999999>;\n",
        "\t.reg .b32 %q;\n\t.reg .b32 %q;\n",
        "\t.reg .b33 %q;\n",
        "\t.reg .b32 %q\n\tmov.u32 %r2, 1;\n",
    };
    for (size_t i = 0; i < sizeof bodies / sizeof bodies[0]; i++) {
        char buf[1024];
        snprintf(buf, sizeof buf, "%s%s%s", RUN_HEAD, bodies[i], RUN_TAIL);
        char name[32];
        snprintf(name, sizeof name, "broken_run_%zu", i);
        check_same_diags(name, buf);
    }
    /* more errors than the limit, all inside what would be one run */
    char big[8192];
    size_t k = (size_t)snprintf(big, sizeof big, "%s", RUN_HEAD);
    for (int i = 0; i < 30; i++) k += (size_t)snprintf(big + k, sizeof big - k, "\tadd.s32 %%r2, %%r1, %%q%d;\n", i);
    snprintf(big + k, sizeof big - k, "%s", RUN_TAIL);
    check_same_diags("broken_run_limit", big);
    /* parameter lists around the fast reader's (ptx_b_params) shapes */
    static const char *const heads[] = {
        ".visible .entry k(.param .u64 p, .param .u64 p)\n{\n\tret;\n}\n",
        ".visible .entry k(.param .u64 p,)\n{\n\tret;\n}\n",
        ".visible .entry k(.param .u64 p\n{\n\tret;\n}\n",
        ".visible .entry k(.param .u65 p)\n{\n\tret;\n}\n",
        ".visible .entry k(.reg .u64 p)\n{\n\tret;\n}\n",
        ".func (.param .b32 r, .param .b32 r) f(.param .b32 a)\n{\n\tret;\n}\n",
        ".func f(.param .b32 a)\n{\n\t.reg .b32 a;\n\tret;\n}\n",
    };
    for (size_t i = 0; i < sizeof heads / sizeof heads[0]; i++) {
        char buf[512], name[32];
        snprintf(buf, sizeof buf, ".version 8.0\n.target sm_80\n.address_size 64\n%s", heads[i]);
        snprintf(name, sizeof name, "broken_params_%zu", i);
        check_same_diags(name, buf);
    }
    /* top-level items and declarations around the top-level reader's shapes
     * (run_top.c): the builder's messages for the ones it takes, the
     * grammar's for the ones it leaves */
    static const char *const tops[] = {
        ".global .u32 g;\n.global .u32 g;\n",
        ".global .u32 g[0];\n",
        ".global .u32 g[2][];\n",
        ".global .align 3 .u32 g;\n",
        ".global .shared .u32 g;\n",
        ".global .u32 .f32 g;\n",
        ".global g;\n",
        ".reg .b32 r;\n",
        ".param .b32 p;\n",
        ".global .u32 %r<4>;\n",
        ".global .u32 g = 99999999999999999999;\n",
        ".global .u32 g = {1, 2;\n",
        ".global .u32 g[2] = {1, 2}\n.global .u32 h;\n",
        ".global .u32 g, ;\n",
        ".global .frob .u32 g;\n",
        ".global .b128 g;\n",
        ".file 1\n",
        ".file 1 \"a\", 1, 2, 3\n",
        ".file x \"a\"\n",
        ".version 8.0\n",
        ".target sm_80 sm_90\n",
        ".address_size 48\n",
        ".section .debug_info { .b8 1\n",
        ".section .global { }\n",
        ".visible .entry k(.param .u64 p) .maxntid 1, 2, 3, 4\n{\n\tret;\n}\n",
        ".visible .entry k(.param .u64 p) .maxntid 1,\n{\n\tret;\n}\n",
        ".visible .global .entry k()\n{\n\tret;\n}\n",
        ".entry (.param .b32 r) k()\n{\n\tret;\n}\n",
        ".func f(.param .b32 a[0])\n{\n\tret;\n}\n",
        ".func f(.param .align 8 .b8 a[16], .param .align 8 .b8 a[16]);\n",
        ".func f(.param .b32 a) ;;\n",
        ".func f(.param .b32 a) .frob\n{\n\tret;\n}\n",
        ".visible .entry k()\n{\n\t.local .u32 l, l;\n\t.visible .shared .u32 s;\n\tret;\n}\n",
        ".visible .entry k()\n{\n\t.reg .b32 %r<2>, %r<3>;\n\tret;\n}\n",
    };
    for (size_t i = 0; i < sizeof tops / sizeof tops[0]; i++) {
        char buf[512], name[32];
        snprintf(buf, sizeof buf, ".version 8.0\n.target sm_80\n.address_size 64\n%s", tops[i]);
        snprintf(name, sizeof name, "broken_top_%zu", i);
        check_same_diags(name, buf);
    }
}
