#define _GNU_SOURCE
/* The front end on tests/data/features.ptx, which holds every construct the
 * issue lists: exact IR facts for each. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include "printer.h"
#include "testutil.h"

static ptx_module *features(void) {
    char *t = tu_read(tu_src("tests/data/features.ptx"), NULL);
    cr_assert_not_null(t);
    ptx_module *m = tu_parse_ok("features.ptx", t);
    free(t);
    return m;
}

/* The instruction whose printed form is exactly text (without tab/newline). */
static const ptx_inst *find(const ptx_module *m, const char *fn, const char *text) {
    ptx_func *f = ptx_module_find_func(m, fn);
    cr_assert_not_null(f, "no function %s", fn);
    for (uint32_t i = 0; i < f->nstmts; i++) {
        if (f->stmts[i]->kind != PTX_S_INST) continue;
        char *buf = NULL;
        size_t n = 0;
        FILE *o = open_memstream(&buf, &n);
        ptx_print_inst(o, f, &f->stmts[i]->u.inst);
        fclose(o);
        int hit = n > 3 && strlen(text) == n - 3 && strncmp(buf + 1, text, n - 3) == 0;
        free(buf);
        if (hit) return &f->stmts[i]->u.inst;
    }
    cr_assert_fail("instruction '%s' not found", text);
    return NULL;
}

Test(parser, header_directives) {
    ptx_module *m = features();
    cr_expect_eq(m->version_major, 8);
    cr_expect_eq(m->version_minor, 5);
    cr_expect_eq(m->address_size, 64);
    int files = 0;
    for (uint32_t i = 0; i < m->nstmts; i++) {
        const ptx_stmt *s = m->stmts[i];
        if (s->kind == PTX_S_TARGET) cr_expect(ptx_str_eq(s->u.dir->items[0], "sm_90a"));
        if (s->kind == PTX_S_FILE && files++ == 0) {
            cr_expect(ptx_str_eq(s->u.dir->name, "\"/src/features.cu\""));
            cr_expect_eq(s->u.dir->n, 2);
            cr_expect(ptx_str_eq(s->u.dir->items[0], "1700000000"));
        }
    }
    cr_expect_eq(files, 2);
    ptx_module_free(m);
}

Test(parser, functions_and_signatures) {
    ptx_module *m = features();
    ptx_func *vp = ptx_module_find_func(m, "vprintf");
    cr_assert_not_null(vp);
    cr_expect(!vp->has_body);
    cr_expect_eq(vp->linkage, PTX_LINK_EXTERN);
    cr_expect_eq(vp->nrets, 1);
    cr_expect_eq(vp->nparams, 2);
    ptx_func *k = ptx_module_find_func(m, "features");
    cr_assert_not_null(k);
    cr_expect(k->is_entry);
    cr_expect_eq(k->linkage, PTX_LINK_VISIBLE);
    cr_assert_eq(k->nparams, 3);
    cr_expect(k->params[0]->is_ptr);
    cr_expect_eq(k->params[0]->ptr_space, PTX_SP_GLOBAL);
    cr_expect_eq(k->params[0]->ptr_align, 16);
    cr_expect_eq(k->params[0]->type, PTX_T_U64);
    cr_expect_eq(k->params[2]->align, 8);
    cr_expect_eq(k->params[2]->ndims, 1);
    cr_expect_eq(k->params[2]->dims[0], 24);
    cr_assert_eq(k->nfdirs, 3);
    cr_expect(ptx_str_eq(k->fdirs[0].name, ".maxntid"));
    cr_expect_eq(k->fdirs[0].n, 3);
    cr_expect_eq(k->fdirs[0].vals[0], 128);
    cr_expect(ptx_str_eq(k->fdirs[2].name, ".maxnreg"));
    cr_expect_eq(k->fdirs[2].vals[0], 64);
    ptx_func *a = ptx_module_find_func(m, "arrfn");
    cr_expect(a->noreturn);
    ptx_func *r = ptx_module_find_func(m, "regfunc");
    cr_expect_eq(r->linkage, PTX_LINK_WEAK);
    cr_expect_eq(r->rets[0]->space, PTX_SP_REG);
    /* .reg parameters are registers of the body */
    const ptx_inst *add = find(m, "regfunc", "add.s32 \trv, ra, rb");
    cr_expect_eq(add->opd[0].kind, PTX_O_REG);
    cr_expect_eq(add->opd[2].kind, PTX_O_REG);
    ptx_module_free(m);
}

Test(parser, module_variables) {
    ptx_module *m = features();
    int seen = 0;
    for (uint32_t i = 0; i < m->nstmts; i++) {
        const ptx_stmt *s = m->stmts[i];
        if (s->kind != PTX_S_VAR) continue;
        const ptx_var *v = s->u.var;
        if (ptx_str_eq(v->name, "table")) {
            seen |= 1;
            cr_expect_eq(v->ndims, 2);
            cr_expect_eq(v->dims[0], 2);
            cr_expect_eq(v->dims[1], 3);
            cr_assert_eq(v->init->kind, 'l');
            cr_expect_eq(v->init->items[1]->items[1]->expr->u.i, 8); /* 010 octal */
            cr_expect_eq(v->init->items[1]->items[2]->expr->u.i, 3); /* 0b11 */
        } else if (ptx_str_eq(v->name, "ptrs")) {
            seen |= 2;
            const ptx_expr *e = v->init->items[1]->expr;
            cr_expect_eq(e->kind, PTX_E_BINARY);
            cr_expect_eq(e->u.a->kind, PTX_E_CALL);
            cr_expect(ptx_str_eq(e->u.a->text, "generic"));
        } else if (ptx_str_eq(v->name, "dyn_smem")) {
            seen |= 4;
            cr_expect(v->unsized);
            cr_expect_eq(v->linkage, PTX_LINK_EXTERN);
            cr_expect_eq(v->space, PTX_SP_SHARED);
        } else if (ptx_str_eq(v->name, "tex0")) {
            seen |= 8;
            cr_expect_eq(v->type, PTX_T_TEXREF);
        } else if (ptx_str_eq(v->name, "cvec")) {
            seen |= 16;
            cr_expect_eq(v->vec, 4);
            cr_expect_eq(v->space, PTX_SP_CONST);
        } else if (ptx_str_eq(v->name, "shared_common")) {
            seen |= 32;
            cr_expect_eq(v->linkage, PTX_LINK_COMMON);
        }
    }
    cr_expect_eq(seen, 63);
    ptx_module_free(m);
}

Test(parser, immediates_of_every_base) {
    ptx_module *m = features();
    struct { const char *text; int64_t v; uint8_t flags; } t[] = {
        {"mov.u32 \t%r6, 0x1F", 31, PTX_IMM_INT},
        {"mov.u32 \t%r7, 017", 15, PTX_IMM_INT},
        {"mov.u32 \t%r8, 0b101", 5, PTX_IMM_INT},
        {"mov.u32 \t%r9, -42", -42, PTX_IMM_INT},
        {"mov.u32 \t%r10, 4294967295U", 4294967295LL, PTX_IMM_INT},
        {"mov.f32 \t%f1, 0f3F800000", 0x3F800000, PTX_IMM_F32},
        {"mov.f32 \t%f2, 0fBF800000", 0xBF800000, PTX_IMM_F32},
        {"mov.f64 \t%rd4, 0d3FF0000000000000", 0x3FF0000000000000LL, PTX_IMM_F64},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        const ptx_inst *in = find(m, "features", t[i].text);
        cr_expect_eq(in->opd[1].kind, PTX_O_IMM, "%s", t[i].text);
        cr_expect_eq(in->opd[1].v, t[i].v, "%s", t[i].text);
        cr_expect_eq(in->opd[1].flags, t[i].flags, "%s", t[i].text);
    }
    const ptx_inst *e = find(m, "features", "mov.u32 \t%r11, (1 << 4) + 2");
    cr_expect_eq(e->opd[1].kind, PTX_O_EXPR);
    ptx_module_free(m);
}

Test(parser, operands) {
    ptx_module *m = features();
    const ptx_inst *in;
    in = find(m, "features", "ld.global.f32 \t%f4, [%rd8+-4]");
    cr_expect_eq(in->opd[1].kind, PTX_O_ADDR);
    cr_expect_eq(in->opd[1].v, -4);
    cr_expect_eq(in->opd[1].p.elems[0].kind, PTX_O_REG);
    cr_expect_eq(in->space, PTX_SP_GLOBAL);
    cr_expect_eq(in->type, PTX_T_F32);
    in = find(m, "features", "ld.global.v4.f32 \t{%f6, _, %f7, _}, [%rd8+16]");
    cr_expect_eq(in->vec, 4);
    cr_expect_eq(in->opd[0].kind, PTX_O_VEC);
    cr_expect_eq(in->opd[0].n, 4);
    cr_expect_eq(in->opd[0].p.elems[1].kind, PTX_O_SINK);
    in = find(m, "features", "setp.ge.and.s32 \t%p2|%p3, %r2, 0, !%p1");
    cr_expect_eq(in->opd[0].kind, PTX_O_PAIR);
    cr_expect_eq(in->opd[3].kind, PTX_O_REG);
    cr_expect_eq(in->opd[3].neg, 1);
    in = find(m, "features", "elect.sync \t_|%p1, -1");
    cr_expect_eq(in->opd[0].kind, PTX_O_PAIR);
    cr_expect_eq(in->opd[0].p.elems[0].kind, PTX_O_SINK);
    in = find(m, "features", "mov.u32 \t%r2, %tid.x");
    cr_expect_eq(in->opd[1].kind, PTX_O_SREG);
    cr_expect_eq(in->opd[1].n, PTX_SR_TID);
    cr_expect_eq(in->opd[1].comp, 'x');
    in = find(m, "features", "mov.u32 \t%r5, %envreg3");
    cr_expect_eq(in->opd[1].n, PTX_SR_ENVREG);
    cr_expect_eq(in->opd[1].v, 3);
    in = find(m, "features", "mov.b32 \tplain, %vv.x");
    cr_expect_eq(in->opd[0].kind, PTX_O_REG);
    cr_expect_eq(in->opd[1].comp, 'x');
    in = find(m, "features", "ld.shared.v4.f32 \t{%f6, %f7, %f9, %f10}, [smem_static+16]");
    cr_expect_eq(in->opd[1].p.elems[0].kind, PTX_O_SYM);
    cr_expect_eq(in->opd[1].v, 16);
    in = find(m, "features", "tex.1d.v4.s32.s32 \t{%r21, %r22, %r23, %r24}, [tex0, {%r2}]");
    cr_expect_eq(in->opd[1].n, 2);
    cr_expect_eq(in->opd[1].p.elems[1].kind, PTX_O_VEC);
    in = find(m, "features", "ld.global.L2::cache_hint.f32 \t%f5, [%rd8+4], %rd3");
    cr_expect_eq(in->nopd, 3);
    cr_expect(ptx_inst_has_mod(in, ".L2::cache_hint"));
    in = find(m, "features", "call.uni \t(retval0), vprintf, (param0, param1)");
    cr_expect_eq(in->op, PTX_OPC_CALL);
    cr_expect_eq(in->opd[0].kind, PTX_O_LIST);
    cr_expect_eq(in->opd[0].n, 1);
    cr_expect_eq(in->opd[2].kind, PTX_O_LIST);
    cr_expect_eq(in->opd[2].n, 2);
    in = find(m, "features", "call \t(retval0), %rd9, (param0), prototype_0");
    cr_expect_eq(in->opd[1].kind, PTX_O_REG);
    cr_expect_eq(in->opd[3].kind, PTX_O_SYM);
    in = find(m, "features", "@!%p2 bra.uni \t$L__BB0_2");
    cr_expect(in->has_guard);
    cr_expect(in->guard_neg);
    ptx_module_free(m);
}

Test(parser, scopes_shadow_registers) {
    ptx_module *m = features();
    ptx_func *f = ptx_module_find_func(m, "features");
    const ptx_inst *outer = find(m, "features", "setp.lt.s32 \t%p1, %r2, %r1");
    const ptx_inst *inner = find(m, "features", "setp.eq.s32 \t%p1, %r2, 0");
    cr_expect_neq(outer->opd[0].n, inner->opd[0].n, "inner .reg %p1 must be a new register");
    cr_expect_eq(f->regs[inner->opd[0].n].type, PTX_T_PRED);
    const ptx_inst *after = find(m, "features", "elect.sync \t%r29|%p1, -1");
    cr_expect_eq(after->opd[0].p.elems[1].n, outer->opd[0].n, "outer %p1 visible again after the scope");
    ptx_module_free(m);
}

Test(parser, body_directives) {
    ptx_module *m = features();
    ptx_func *f = ptx_module_find_func(m, "features");
    int proto = 0, btargets = 0, ctargets = 0, pragma = 0, loc_ia = 0, scopes = 0, labels = 0;
    for (uint32_t i = 0; i < f->nstmts; i++) {
        const ptx_stmt *s = f->stmts[i];
        switch (s->kind) {
        case PTX_S_PROTO:
            proto++;
            cr_expect(ptx_str_eq(s->u.dir->name, "prototype_0"));
            cr_expect_eq(s->u.dir->proto->nrets, 1);
            cr_expect_eq(s->u.dir->proto->nparams, 1);
            break;
        case PTX_S_TARGETS:
            if (s->flag == 'b') {
                btargets++;
                cr_expect_eq(s->u.dir->n, 4);
            } else {
                ctargets++;
            }
            break;
        case PTX_S_PRAGMA: pragma++; break;
        case PTX_S_LOC:
            if (s->u.locinfo.ia_file) {
                loc_ia++;
                cr_expect_eq(s->u.locinfo.ia_line, 20);
                cr_expect_eq(s->u.locinfo.ia_col, 7);
                cr_expect_eq(s->u.locinfo.fn_name_len, strlen("$L__info_string0"));
            }
            break;
        case PTX_S_SCOPE_BEGIN: scopes++; break;
        case PTX_S_LABEL: labels++; break;
        default: break;
        }
    }
    cr_expect_eq(proto, 1);
    cr_expect_eq(btargets, 1);
    cr_expect_eq(ctargets, 1);
    cr_expect_eq(pragma, 1);
    cr_expect_eq(loc_ia, 1);
    cr_expect_eq(scopes, 5);
    cr_expect_eq(labels, 3);
    int sections = 0;
    for (uint32_t i = 0; i < m->nstmts; i++)
        if (m->stmts[i]->kind == PTX_S_SECTION) {
            sections++;
            if (sections == 1) cr_expect(memmem(m->stmts[i]->u.dir->raw.p, m->stmts[i]->u.dir->raw.n,
                                                "$L__info_string0:", 17) != NULL);
        }
    cr_expect_eq(sections, 2);
    ptx_module_free(m);
}

Test(parser, positions_are_exact) {
    ptx_module *m = features();
    ptx_func *f = ptx_module_find_func(m, "features");
    /* "\tld.param.u64 \t%rd1, [features_param_0];" is on line 77 of the file */
    char *t = tu_read(tu_src("tests/data/features.ptx"), NULL);
    const char *hit = strstr(t, "\tld.param.u64 \t%rd1, [features_param_0];");
    uint32_t line = 1;
    for (const char *p = t; p < hit; p++) line += *p == '\n';
    for (uint32_t i = 0; i < f->nstmts; i++)
        if (f->stmts[i]->kind == PTX_S_INST) {
            cr_expect_eq(f->stmts[i]->loc.line, line);
            cr_expect_eq(f->stmts[i]->loc.col, 2);
            cr_expect_eq(f->stmts[i]->loc.off, (uint32_t)(hit + 1 - t));
            break;
        }
    free(t);
    ptx_module_free(m);
}

Test(parser, independent_texture_mode) {
    char *t = tu_read(tu_src("tests/data/texmode.ptx"), NULL);
    ptx_module *m = tu_parse_ok("texmode.ptx", t);
    const ptx_var *s = NULL;
    for (uint32_t i = 0; i < m->nstmts; i++)
        if (m->stmts[i]->kind == PTX_S_VAR && ptx_str_eq(m->stmts[i]->u.var->name, "samp0")) s = m->stmts[i]->u.var;
    cr_assert_not_null(s);
    cr_expect_eq(s->type, PTX_T_SAMPLERREF);
    cr_assert_eq(s->init->kind, 'l');
    cr_expect_eq(s->init->n, 2);
    cr_expect_eq(s->init->items[0]->kind, 'k');
    cr_expect(ptx_str_eq(s->init->items[0]->key, "addr_mode_0"));
    const ptx_inst *tex = tu_first_inst(m, "sample", "tex.");
    cr_expect_eq(tex->opd[1].n, 3);
    free(t);
    ptx_module_free(m);
}

static void validation_off(void) { ptx_set_validation(0); }
static void validation_on(void) { ptx_set_validation(1); }

/* With the validation off (ptx_set_validation) an unknown instruction is
 * kept generically with a warning; on, it is an error (test_front.c). */
Test(parser, unknown_opcode_is_generic_with_a_warning, .init = validation_off, .fini = validation_on) {
    const char *src = ".version 9.0\n.target sm_100a\n.address_size 64\n.entry k()\n{\n"
                      "\t.reg .b32 %r<3>;\n\tfrobnicate.sync.aligned::x.b32 \t%r1, [%r2+8], {%r1, _};\n\tret;\n}\n";
    ptx_diags d;
    ptx_diags_init(&d);
    ptx_module *m = ptx_parse_string("u.ptx", src, strlen(src), &d);
    cr_assert_not_null(m);
    cr_expect_eq(d.nerrors, 0);
    cr_expect_eq(d.nwarnings, 1);
    cr_expect_eq(d.v[0].loc.line, 7);
    cr_expect_eq(d.v[0].loc.col, 2);
    const ptx_inst *in = tu_first_inst(m, "k", "frobnicate");
    cr_expect_eq(in->op, PTX_OPC_UNKNOWN);
    cr_expect_eq(in->nopd, 3);
    cr_expect_eq(in->nmods, 3);
    cr_expect_eq(in->type, PTX_T_B32);
    ptx_module_free(m);
    ptx_diags_free(&d);
}

Test(parser, printed_layout) {
    const char *src = ".version 8.0\n.target sm_80\n.address_size 64\n\n"
                      ".visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n\t.reg .b64 \t%rd<3>;\n\t.reg .f32 \t%f<2>;\n\n"
                      "\tld.param.u64 \t%rd1, [k_param_0];\n\tld.global.f32 \t%f1, [%rd1+-4];\n$L__BB0_1:\n\tret;\n}\n";
    ptx_module *m = tu_parse_ok("k.ptx", src);
    char *out = tu_print(m, NULL);
    cr_expect_str_eq(out, ".version 8.0\n.target sm_80\n.address_size 64\n\n"
                          ".visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n\t.reg .b64 \t%rd<3>;\n\t.reg .f32 \t%f<2>;\n"
                          "\tld.param.u64 \t%rd1, [k_param_0];\n\tld.global.f32 \t%f1, [%rd1+-4];\n\n$L__BB0_1:\n\tret;\n}\n\n");
    free(out);
    ptx_module_free(m);
}

/* A .loc number of 10 digits, or with a leading 0, is no ".loc F L C" token
 * (lexer.l reads at most 9 decimal digits there): the general rule reads it,
 * with its value, and the attributes after it.  A leading 0 is octal, as
 * ptxas 13.0 reads it (its line table says line 8 for ".loc 1 010 5"). */
Test(parser, loc_numbers_past_nine_digits) {
    ptx_module *m = tu_parse_ok("loc10.ptx", ".version 8.0\n.target sm_80\n.address_size 64\n.file 1 \"a.cu\"\n"
                                             ".visible .entry k()\n{\n .loc 1 4294967295 1234567890, function_name $L1, "
                                             "inlined_at 1 2 3\n .loc 0000000001 010 3\n ret;\n}\n");
    const ptx_func *f = ptx_module_find_func(m, "k");
    cr_assert_eq(f->nstmts, 3);
    const ptx_locinfo *a = &f->stmts[0]->u.locinfo, *b = &f->stmts[1]->u.locinfo;
    cr_expect_eq(f->stmts[0]->kind, PTX_S_LOC);
    cr_expect_eq(a->file, 1);
    cr_expect_eq(a->line, 4294967295u);
    cr_expect_eq(a->col, 1234567890u);
    cr_expect_eq(a->fn_name_len, 3);
    cr_expect_eq(a->ia_line, 2);
    cr_expect_eq(b->file, 1);
    cr_expect_eq(b->line, 8);
    ptx_module_free(m);
}
