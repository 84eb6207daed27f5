/* libFuzzer target for the PTX front end (`make fuzz`, `make fuzz-smoke`).
 *
 * For each input:
 *  1. ptx_parse_string() on the raw bytes (not NUL-terminated);
 *  2. if it fails, the diagnostics are printed (into a memory stream) so the
 *     caret/source-line code runs on hostile input too;
 *  3. if it succeeds, the module is printed with ptx_print_module() into a
 *     memory stream and the printed text is parsed again: printing a valid
 *     module must give valid PTX, so a failure there abort()s (a finding);
 *  4. CFG, SSA and GSA are built for every function and the SSA verifier
 *     run; a CFG error is fine (a branch to a non-label), a verifier
 *     violation abort()s;
 *  5. everything is freed, so LeakSanitizer reports any leak.
 *
 * With PTXRAY_FUZZ_IDEMPOTENT=1 in the environment it also checks that
 * printing the re-parsed module gives the same text again (print is a fixed
 * point after one round), and aborts if not.
 *
 * With PTXRAY_FUZZ_SKIP_NUL=1 inputs that contain a NUL byte are skipped: a
 * way to look past the known lexer bug (fuzz/crashes/README.md) while it is
 * open.  Off by default, so `make fuzz` / `make fuzz-smoke` still find it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "printer.h"
#include "program.h"
#include "ptx.h"

/* Prints m into a malloc'd buffer (*len bytes, NUL-terminated). */
static char *print_to_mem(const ptx_module *m, size_t *len) {
    char *text = NULL;
    FILE *f = open_memstream(&text, len);
    if (!f) abort();
    ptx_print_module(f, m);
    if (fclose(f) != 0) abort();
    return text;
}

static void drain_diags(const ptx_diags *d, const char *name, const char *src, size_t len) {
    char *text = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&text, &n);
    if (!f) abort();
    ptx_diags_print(d, name, src, len, f);
    fclose(f);
    free(text);
}

static int idempotent = -1, skip_nul = -1;

static int env_flag(const char *name) {
    const char *e = getenv(name);
    return e && *e && strcmp(e, "0") != 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (idempotent < 0) {
        idempotent = env_flag("PTXRAY_FUZZ_IDEMPOTENT");
        skip_nul = env_flag("PTXRAY_FUZZ_SKIP_NUL");
    }
    if (skip_nul && size && memchr(data, 0, size)) return 0;

    ptx_diags d;
    ptx_diags_init(&d);
    ptx_module *m = ptx_parse_string("fuzz.ptx", (const char *)data, size, &d);
    if (!m) {
        drain_diags(&d, "fuzz.ptx", (const char *)data, size);
        ptx_diags_free(&d);
        return 0;
    }
    ptx_diags_free(&d);

    size_t plen = 0;
    char *printed = print_to_mem(m, &plen);

    ptx_diags d2;
    ptx_diags_init(&d2);
    ptx_module *m2 = ptx_parse_string("printed.ptx", printed, plen, &d2);
    if (!m2) {
        fprintf(stderr,
                "\n==== fuzz_parse: the printer produced PTX that does not parse ====\n"
                "---- input (%zu bytes) ----\n%.*s\n---- printed (%zu bytes) ----\n%s\n"
                "---- diagnostics on the printed text ----\n",
                size, (int)(size > 8192 ? 8192 : size), (const char *)data, plen, printed);
        ptx_diags_print(&d2, "printed.ptx", printed, plen, stderr);
        abort();
    }
    if (m2->nfuncs != m->nfuncs) {
        fprintf(stderr, "fuzz_parse: re-parse changed the function count (%u -> %u)\n%s\n",
                m->nfuncs, m2->nfuncs, printed);
        abort();
    }
    for (uint32_t i = 0; i < m->nfuncs; i++) {
        if (m2->funcs[i]->ninsts != m->funcs[i]->ninsts) {
            fprintf(stderr, "fuzz_parse: re-parse changed the instruction count of function %u "
                            "(%u -> %u)\n%s\n", i, m->funcs[i]->ninsts, m2->funcs[i]->ninsts, printed);
            abort();
        }
    }

    if (idempotent) {
        size_t plen2 = 0;
        char *printed2 = print_to_mem(m2, &plen2);
        if (plen2 != plen || memcmp(printed, printed2, plen) != 0) {
            fprintf(stderr, "fuzz_parse: print(parse(print(m))) != print(m)\n---- first ----\n%s\n"
                            "---- second ----\n%s\n", printed, printed2);
            abort();
        }
        free(printed2);
    }

    ptx_diags d3;
    ptx_diags_init(&d3);
    prog *p = prog_build(m, PROG_GSA, NULL, &d3);
    for (uint32_t i = 0; p && i < p->nfuncs; i++) {
        char msg[1024];
        if (ssa_verify(p->funcs[i].ssa, msg, sizeof msg)) {
            fprintf(stderr, "fuzz_parse: SSA verifier failed on function %u:\n%s\n---- input ----\n%.*s\n", i, msg,
                    (int)(size > 8192 ? 8192 : size), (const char *)data);
            abort();
        }
    }
    prog_free(p);
    ptx_diags_free(&d3);

    ptx_module_free(m2);
    ptx_diags_free(&d2);
    ptx_module_free(m);
    free(printed);
    return 0;
}
