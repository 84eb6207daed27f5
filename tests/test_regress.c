/* Inputs the fuzzer once broke the front end with (tests/regress/README.md). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"

static void expect_nul_error(const char *file) {
    size_t len;
    char *t = tu_read(tu_src(file), &len);
    cr_assert_not_null(t);
    const char *nul = memchr(t, 0, len);
    cr_assert_not_null(nul, "%s has no NUL byte", file);
    uint32_t line = 1, col = 1;
    for (const char *p = t; p < nul; p++) {
        if (*p == '\n') { line++; col = 1; }
        else col++;
    }
    ptx_diags d;
    ptx_diags_init(&d);
    ptx_module *m = ptx_parse_file(tu_src(file), &d);
    cr_expect_null(m);
    cr_assert_eq(d.n, 1);
    cr_expect_eq(d.v[0].loc.line, line);
    cr_expect_eq(d.v[0].loc.col, col);
    cr_expect(strstr(d.v[0].msg, "NUL byte in input") != NULL, "%s", d.v[0].msg);
    ptx_diags_free(&d);
    free(t);
}

Test(regress, nul_then_ff_after_4k_fuzzer_input) {
    expect_nul_error("tests/regress/crash-5d808c1d14ec8c6d56576451519d20f30541e52a.ptx");
}

Test(regress, nul_then_ff_after_4k_minimal) { expect_nul_error("tests/regress/lexer-oob-nul-ff-after-4k.ptx"); }

Test(regress, module_without_functions) {
    ptx_diags d;
    ptx_diags_init(&d);
    ptx_module *m = ptx_parse_file(tu_src("tests/regress/ubsan-memcpy-null-no-funcs.ptx"), &d);
    cr_assert_not_null(m);
    cr_expect_eq(m->nfuncs, 0);
    cr_expect_eq(d.n, 0);
    char *out = tu_print(m, NULL);
    cr_expect_str_eq(out, ".version 8.0\n.target sm_80\n.address_size 64\n\n");
    free(out);
    ptx_module_free(m);
    ptx_diags_free(&d);
}

/* The printer must separate an operator from its operands: "2 % 1" printed as
 * "2%1" reads back as 2 and the register %1. */
/* Fuzzer inputs: their instructions are garbage the validator refuses;
 * these tests are about what the parser builds of them. */
static void validation_off(void) { ptx_set_validation(0); }
static void validation_on(void) { ptx_set_validation(1); }

Test(regress, printed_modulo_reparses, .init = validation_off, .fini = validation_on) {
    ptx_diags d;
    ptx_diags_init(&d);
    ptx_module *m = ptx_parse_file(tu_src("tests/regress/printer-modulo-merges-with-register.ptx"), &d);
    cr_assert_not_null(m);
    size_t len;
    char *out = tu_print(m, &len);
    cr_expect(strstr(out, "{2 % 1, %f12, %f13, %f14}") != NULL, "%s", out);
    ptx_module *again = ptx_parse_string("printed", out, len, &d);
    cr_expect_not_null(again, "the printed module does not parse");
    ptx_module_free(again);
    ptx_module_free(m);
    free(out);
    ptx_diags_free(&d);
}

/* An unknown opcode "may define" every register operand: "edd.s64 %rd1,
 * %rd1, 32" is two partial definitions of %rd1 in one instruction, the
 * second keeping the first.  The verifier rejected that chain (fuzzer). */
#include "program.h"
Test(regress, unknown_opcode_chains_partial_definitions, .init = validation_off, .fini = validation_on) {
    ptx_diags d;
    ptx_diags_init(&d);
    ptx_module *m = ptx_parse_file(tu_src("tests/regress/ssa-unknown-opcode-two-maydefs.ptx"), &d);
    cr_assert_not_null(m);
    prog *p = prog_build(m, PROG_GSA, NULL, &d);
    cr_assert_not_null(p);
    const ssa_func *s = p->funcs[0].ssa;
    char msg[1024];
    cr_expect_eq(ssa_verify(s, msg, sizeof msg), 0, "%s", msg);
    uint32_t partial = 0;
    for (uint32_t v = 0; v < s->nvalues; v++) partial += s->values[v].kind == SSA_V_INST && s->values[v].partial;
    cr_expect_eq(partial, 2);
    prog_free(p);
    ptx_module_free(m);
    ptx_diags_free(&d);
}

/* "[%tid-0x10]": the grammar dropped the offset of a special-register base
 * (found when a hand-written fast path, since removed, kept it). */
Test(regress, special_register_address_keeps_offset) {
    ptx_diags d;
    ptx_diags_init(&d);
    ptx_module *m = ptx_parse_file(tu_src("tests/regress/grammar-drops-sreg-address-offset.ptx"), &d);
    cr_assert_not_null(m);
    char *out = tu_print(m, NULL);
    const char *p = strstr(out, "[%tid+-16]");
    cr_expect(p && strstr(p + 1, "[%tid+-16]"), "%s", out);
    free(out);
    ptx_module_free(m);
    ptx_diags_free(&d);
}
