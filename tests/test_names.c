/* What a new user reads (issue 20, items 6 and 8): C++ kernels by their
 * demangled names in every report (the PTX symbol beside them in JSON),
 * `run`'s source column at the user's frame as check's findings are (an
 * atomicAdd at the user's call, not in device_atomic_functions.hpp; an
 * access inside an inlined helper at the helper's line), and a
 * misalignment known modulo 32 said so, not against a 128-byte boundary. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "testutil.h"

#define BIN (char *)tu_bin()
#define TILE "ptx-corpus/sm_80/tile_1d_to_2d.ptx"
#define T0 "void tile_transpose_smem<0>(float const*, float*, int, int)"
#define T0_SYM "_Z19tile_transpose_smemILi0EEvPKfPfii"
#define T1 "void tile_transpose_smem<1>(float const*, float*, int, int)"
#define T1_SYM "_Z19tile_transpose_smemILi1EEvPKfPfii"

/* $PTXRAY_BIN args... (NULL-terminated) in the repository root; exit
 * status want; stdout returned. */
static char *ptxray(int want, ...)
{
    char *argv[32] = {BIN};
    int n = 1;
    va_list ap;
    va_start(ap, want);
    for (char *a; n < 31 && (a = va_arg(ap, char *));) argv[n++] = a;
    va_end(ap);
    argv[n] = NULL;
    cr_assert_eq(chdir(tu_src(".")), 0);
    char *out, *err;
    int rc = tu_run(argv, &out, &err);
    cr_assert_eq(rc, want, "%s %s: exit %d: %s", argv[1], argv[2], rc, err);
    free(err);
    return out;
}

static json_t *ptxray_json(char *out)
{
    json_error_t e;
    json_t *j = json_loads(out, 0, &e);
    cr_assert_not_null(j, "%s: %s", e.text, out);
    free(out);
    return j;
}

/* The element of array a whose key is value, or NULL. */
static json_t *with(json_t *a, const char *key, const char *value)
{
    size_t i;
    json_t *e;
    json_array_foreach(a, i, e) {
        const char *s = json_string_value(json_object_get(e, key));
        if (s && !strcmp(s, value)) return e;
    }
    return NULL;
}

static void expect_symbol(json_t *o, const char *sym)
{
    cr_assert_not_null(o);
    cr_expect_str_eq(json_string_value(json_object_get(o, "symbol")), sym);
}

/* Outside the places that name the symbol on purpose ("symbol: ..." lines,
 * "[...]" after the name), a text report holds no mangled name. */
static void expect_no_mangled(const char *out, const char *sym)
{
    for (const char *p = strstr(out, sym); p; p = strstr(p + 1, sym))
        cr_expect(p > out && (p[-1] == '[' || (p - out >= 8 && !strncmp(p - 8, "symbol: ", 8))),
                  "a mangled name in the report: ...%.60s", p - (p - out > 20 ? 20 : p - out));
}

Test(names, coalescing)
{
    char *out = ptxray(0, "coalescing", TILE, NULL);
    cr_expect(strstr(out, TILE ":168:2: note: in " T0 ": ld.shared.f32\n") != NULL, "%s", out);
    cr_expect(strstr(out, TILE ":258:2: note: in " T1 ": ld.shared.f32\n") != NULL, "%s", out);
    cr_expect(strstr(out, "_Z") == NULL, "%s", out);
    free(out);
    json_t *j = ptxray_json(ptxray(0, "coalescing", "--format", "json", TILE, NULL));
    expect_symbol(with(json_object_get(j, "kernels"), "name", T0), T0_SYM);
    expect_symbol(with(json_object_get(j, "kernels"), "name", "tile_copy_1d_block"), "tile_copy_1d_block");
    json_decref(j);
    j = ptxray_json(ptxray(0, "coalescing", "--format", "sarif", TILE, NULL));
    /* T0's bank conflict (possible misalignments of rows come before it) */
    json_t *res = json_object_get(json_array_get(json_object_get(j, "runs"), 0), "results"), *r = NULL;
    for (size_t i = 0; i < json_array_size(res) && !r; i++) {
        json_t *x = json_array_get(res, i);
        json_t *k = json_object_get(json_object_get(x, "properties"), "symbol");
        if (json_is_string(k) && !strcmp(json_string_value(k), T0_SYM) &&
            !strcmp(json_string_value(json_object_get(x, "ruleId")), "bank-conflict"))
            r = x;
    }
    cr_assert_not_null(r);
    json_t *props = json_object_get(r, "properties");
    cr_expect_str_eq(json_string_value(json_object_get(props, "kernel")), T0);
    expect_symbol(props, T0_SYM);
    json_t *rel = json_array_get(json_object_get(r, "relatedLocations"), 0);
    cr_expect_str_eq(json_string_value(json_object_get(json_object_get(rel, "message"), "text")),
                     "PTX instruction ld.shared.f32 in " T0);
    json_decref(j);
}

Test(names, divergence)
{
    char *out = ptxray(0, "divergence", TILE, "--kernel", "tile_transpose_smem<1>", NULL);
    cr_expect(!strncmp(out, T1 " (.entry) in " TILE "\n  symbol: " T1_SYM "\n", strlen(T1) + strlen(TILE) + 32),
              "%s", out);
    expect_no_mangled(out, T1_SYM);
    free(out);
    json_t *j = ptxray_json(ptxray(0, "divergence", "--format", "json", TILE, NULL));
    expect_symbol(with(json_object_get(j, "kernels"), "name", T0), T0_SYM);
    expect_symbol(with(json_object_get(j, "kernels"), "name", T1), T1_SYM);
    json_decref(j);
    /* many files, one row per function */
    out = ptxray(0, "divergence", "--summary", TILE, NULL);
    cr_expect(strstr(out, "  " T0 "  ") != NULL, "%s", out);
    cr_expect(strstr(out, "_Z") == NULL, "%s", out);
    free(out);
    j = ptxray_json(ptxray(0, "divergence", "--summary", "--format", "json", TILE, NULL));
    expect_symbol(with(json_object_get(j, "kernels"), "name", T1), T1_SYM);
    json_decref(j);
}

Test(names, cfg)
{
    char *out = ptxray(0, "cfg", TILE, "--kernel", T0_SYM, NULL);
    cr_expect(!strncmp(out, ".entry " T0 " [" T0_SYM "]: ", strlen(T0) + strlen(T0_SYM) + 12), "%s", out);
    expect_no_mangled(out, T0_SYM);
    free(out);
    out = ptxray(0, "cfg", "--format", "dot", TILE, "--kernel", "tile_transpose_smem<0>", NULL);
    cr_expect(strstr(out, "label=\".entry " T0 "\";") != NULL, "%s", out);
    cr_expect(strstr(out, "_Z") == NULL, "%s", out);
    free(out);
    json_t *j = ptxray_json(ptxray(0, "cfg", "--format", "json", TILE, NULL));
    json_t *fs = json_object_get(j, "functions");
    cr_assert(json_is_array(fs), "no functions array");
    expect_symbol(with(fs, "name", T1), T1_SYM);
    json_decref(j);
}

Test(names, parse)
{
    char *out = ptxray(0, "parse", TILE, NULL);
    cr_expect(strstr(out, "\n  .entry " T0 " [" T0_SYM "]: 4 params,") != NULL, "%s", out);
    free(out);
    json_t *j = ptxray_json(ptxray(0, "parse", "--format", "json", TILE, NULL));
    json_t *fs = json_object_get(json_array_get(json_object_get(j, "files"), 0), "functions");
    expect_symbol(with(fs, "name", T1), T1_SYM);
    json_decref(j);
}

#define RUN_T1 "run", TILE, "--kernel", "tile_transpose_smem<1>", "--block", "256", "--arg", "buf:f32:256:iota", \
               "--arg", "buf:f32:256", "--arg", "i32:16", "--arg", "i32:16", "--bankcheck"

Test(names, run)
{
    char *out = ptxray(0, RUN_T1, NULL);
    cr_expect(!strncmp(out, TILE ": kernel " T1 ", grid (1,1,1) x block (256,1,1): ok;", strlen(T1) + 70), "%s", out);
    cr_expect(strstr(out, "_Z") == NULL, "%s", out);
    free(out);
    json_t *j = ptxray_json(ptxray(0, RUN_T1, "--format", "json", NULL));
    cr_expect_str_eq(json_string_value(json_object_get(j, "kernel")), T1);
    expect_symbol(j, T1_SYM);
    json_decref(j);
}

/* ---- run's source column: the frame check names -------------------------- */

/* The "source" of each coalescing entry of `run --format json` by PTX line:
 * line -> source into src[] (0 when absent). */
static json_t *run_coalescing(const char *file, const char *kernel, const char *block, const char *a1,
                              const char *a2, const char *a3)
{
    json_t *j = ptxray_json(ptxray(0, "run", file, "--kernel", kernel, "--block", block, "--arg", a1, "--arg",
                                      a2, "--arg", a3, "--coalescing", "--format", "json", NULL));
    json_t *c = json_incref(json_object_get(j, "coalescing"));
    json_decref(j);
    cr_assert(json_is_array(c));
    return c;
}

static const char *source_at(json_t *c, int ptx_line)
{
    size_t i;
    json_t *e;
    json_array_foreach(c, i, e)
        if (json_integer_value(json_object_get(e, "line")) == ptx_line)
            return json_string_value(json_object_get(e, "source"));
    return NULL;
}

/* histogram_global_u8's four atomicAdd calls: nvcc's .loc for each is in
 * device_atomic_functions.hpp, inlined at the user's line 18..21. */
Test(names, run_atomics_at_the_users_call)
{
    json_t *c = run_coalescing("ptx-corpus/sm_80/histogram_global.ptx", "histogram_global_u8", "64",
                               "buf:u8:256:iota", "buf:u32:256", "i32:256");
    static const struct { int ptx; const char *src; } want[] = {
        {57, "src/histogram_global.cu:17"}, {65, "src/histogram_global.cu:18"}, {73, "src/histogram_global.cu:19"},
        {81, "src/histogram_global.cu:20"}, {89, "src/histogram_global.cu:21"}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const char *s = source_at(c, want[i].ptx);
        cr_assert_not_null(s, "no entry at PTX line %d", want[i].ptx);
        cr_expect_str_eq(s, want[i].src);
    }
    json_decref(c);
    char *out = ptxray(0, "run", "ptx-corpus/sm_80/histogram_global.ptx", "--kernel", "histogram_global_u8", "--block",
                       "64", "--arg", "buf:u8:256:iota", "--arg", "buf:u32:256", "--arg", "i32:256", "--coalescing",
                       NULL);
    cr_expect(strstr(out, ".hpp") == NULL, "%s", out);
    cr_expect(strstr(out, "atom.global.add.u32            2    16.00   16     4.00    4    4.00  "
                          "src/histogram_global.cu:18\n") != NULL,
              "%s", out);
    free(out);
}

/* The strided load inside the inlined helper at the helper's line (21), as
 * check reports it; the atomicAdd at the kernel's line 29. */
Test(names, run_inlined_helper_at_its_line)
{
    json_t *c = run_coalescing("tests/data/findings/helpers.ptx", "helper_kernel", "32", "buf:f32:256", "buf:f32:32",
                               "buf:i32:512");
    cr_expect_str_eq(source_at(c, 43), "helpers.cu:21");
    cr_expect_str_eq(source_at(c, 47), "helpers.cu:28");
    cr_expect_str_eq(source_at(c, 54), "helpers.cu:29");
    json_decref(c);
}

/* ---- a misalignment known modulo 32 ---------------------------------------- */

/* cells[k].vals[tid] with sizeof(cell) = 160: lane 0 is 4 B past a 32-byte
 * boundary, which is all that is known (the message used to say 128). */
Test(names, misalignment_known_modulo_32)
{
    static const char *msg = "misaligned global load: lane 0 is 4 B past a 32-byte boundary, lanes 4 B apart (unit "
                             "stride), 5 sectors/request, ideal 4 (4 if aligned)";
    char want[512];
    snprintf(want, sizeof want, "mod32.cu:13:5: warning: %s [misaligned]\n", msg);
    char *out = ptxray(0, "coalescing", "tests/data/findings/mod32.ptx", NULL);
    cr_expect(!strncmp(out, want, strlen(want)), "%s", out);
    cr_expect(strstr(out, "128-byte") == NULL, "%s", out);
    free(out);
    out = ptxray(1, "check", "tests/data/findings/mod32.ptx", NULL);
    cr_expect(!strncmp(out, want, strlen(want)), "%s", out);
    free(out);
    json_t *j = ptxray_json(ptxray(0, "coalescing", "--format", "json", "tests/data/findings/mod32.ptx", NULL));
    json_t *x = json_array_get(json_object_get(json_array_get(json_object_get(j, "kernels"), 0), "accesses"), 0);
    cr_expect_str_eq(json_string_value(json_object_get(x, "message")), msg);
    json_t *al = json_object_get(x, "alignment");
    cr_expect_eq(json_integer_value(json_object_get(al, "offset")), 4);
    cr_expect_eq(json_integer_value(json_object_get(al, "known_modulo")), 32);
    json_decref(j);
}

Test(names, spillcost)
{
    char *out = ptxray(0, "spillcost", TILE, "--budgets", "16", "--format", "csv", NULL);
    cr_expect(strstr(out, "\n" TILE ",\"" T0 "\",linear,16,") != NULL, "%s", out);
    cr_expect(strstr(out, "_Z") == NULL, "%s", out);
    free(out);
    json_t *j = ptxray_json(ptxray(0, "spillcost", TILE, "--budgets", "16", "--format", "json", NULL));
    expect_symbol(with(json_object_get(j, "rows"), "kernel", T1), T1_SYM);
    json_decref(j);
}
