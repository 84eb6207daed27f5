/* ptxray launches (hostcode/launches.c, docs/launches.md): the kernel
 * launches of small .cu programs under tests/data/launches/, one per case
 * of issue 21: a 2-D launch through dim3 and a macro, a kernel template
 * launched with two shapes and a host template whose argument is the
 * shape, constexpr shapes, run-time shapes (unknown, with the reason),
 * cudaLaunchKernel, cudaLaunchKernelEx and cudaLaunchCooperativeKernel,
 * kernels launched through function pointers (resolved when every target
 * is known, issue 38; else unknown, with the reason), __launch_bounds__
 * (an upper bound, not a shape), -I/-D, a file libclang cannot fully
 * parse.  Every text is checked twice: with the CUDA toolkit's headers when
 * there is a toolkit, and with ptxray's built-in declarations
 * (--builtin-cuda); the two must agree. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "testutil.h"
#include "toolchain.h"

#define BIN (char *)tu_bin()
#define DIR "tests/data/launches/"

/* `ptxray launches [flag] DIR/file`, both ways, against want; no stderr. */
static void expect_text(const char *file, const char *flag, const char *want)
{
    tu_at_root();
    char path[256];
    snprintf(path, sizeof path, DIR "%s", file);
    for (int builtin = 0; builtin < 2; builtin++) {
        char *argv[8];
        int n = 0;
        argv[n++] = BIN;
        argv[n++] = "launches";
        if (builtin) argv[n++] = "--builtin-cuda";
        if (flag) argv[n++] = (char *)flag;
        argv[n++] = path;
        argv[n] = NULL;
        char *err;
        char *out = tu_run_want(argv, 0, &err);
        cr_expect_str_eq(out, want, "%s%s:\n%s", file, builtin ? " (--builtin-cuda)" : "", out);
        cr_expect_str_eq(err, "", "%s: %s", file, err);
        free(out);
        free(err);
    }
}

Test(launches, dim3_macro)
{
    expect_text("dim3_macro.cu", NULL,
                "_Z9transposePKfPfi  transpose(float const*, float*, int)  (tests/data/launches/dim3_macro.cu:4)\n"
                "  16x16x1 from tests/data/launches/dim3_macro.cu:13:3 (<<<>>>)\n"
                "1 kernel: 1 with a constant block shape (1 shape), 0 launched with unknown shapes only, 0 only through a function pointer, 0 not launched; 1 launch: 1 constant, 0 unknown (0 of a kernel not known statically)\n");
}

Test(launches, templates)
{
    expect_text("templates.cu", NULL,
                "_Z5scaleIdEvPT_S0_i  void scale<double>(double*, double, int)  (tests/data/launches/templates.cu:4)\n"
                "  64x1x1 from tests/data/launches/templates.cu:25:3 (<<<>>>)\n"
                "_Z5scaleIfEvPT_S0_i  void scale<float>(float*, float, int)  (tests/data/launches/templates.cu:4)\n"
                "  128x1x1 from tests/data/launches/templates.cu:23:3 (<<<>>>)\n"
                "  32x4x1 from tests/data/launches/templates.cu:24:3 (<<<>>>)\n"
                "_Z5tiledILi16EEvPfi  void tiled<16>(float*, int)  (tests/data/launches/templates.cu:10)\n"
                "  16x16x1 from tests/data/launches/templates.cu:19:3 (<<<>>>)\n"
                "_Z5tiledILi8EEvPfi  void tiled<8>(float*, int)  (tests/data/launches/templates.cu:10)\n"
                "  8x8x1 from tests/data/launches/templates.cu:19:3 (<<<>>>)\n"
                "4 kernels: 4 with a constant block shape (5 shapes), 0 launched with unknown shapes only, 0 only through a function pointer, 0 not launched; 5 launches: 5 constant, 0 unknown (0 of a kernel not known statically)\n");
}

Test(launches, constexpr)
{
    expect_text("constexpr.cu", NULL,
                "_Z4rowsPf  rows(float*)  (tests/data/launches/constexpr.cu:11)\n"
                "  256x1x1 from tests/data/launches/constexpr.cu:14:3 (<<<>>>)\n"
                "  32x8x1 from tests/data/launches/constexpr.cu:15:3 (<<<>>>)\n"
                "  64x4x1 from tests/data/launches/constexpr.cu:16:3 (<<<>>>)\n"
                "  96x1x1 from tests/data/launches/constexpr.cu:17:3 (<<<>>>)\n"
                "1 kernel: 1 with a constant block shape (4 shapes), 0 launched with unknown shapes only, 0 only through a function pointer, 0 not launched; 4 launches: 4 constant, 0 unknown (0 of a kernel not known statically)\n");
}

Test(launches, runtime)
{
    expect_text("runtime.cu", NULL,
                "_Z4fillPfi  fill(float*, int)  (tests/data/launches/runtime.cu:4)\n"
                "  512x1x1 from tests/data/launches/runtime.cu:26:3 (<<<>>>)\n"
                "  unknown at tests/data/launches/runtime.cu:10:3 (<<<>>>): 'threads' is a parameter of 'launch_with', given by its callers\n"
                "  unknown at tests/data/launches/runtime.cu:17:3 (<<<>>>): 'bs' is computed at run time: argc > 1 ? atoi(argv[1]) : 256\n"
                "  unknown at tests/data/launches/runtime.cu:20:3 (<<<>>>): 't' is assigned at line 19\n"
                "  unknown at tests/data/launches/runtime.cu:23:3 (<<<>>>): the address of 'best' is taken\n"
                "1 kernel: 1 with a constant block shape (1 shape), 0 launched with unknown shapes only, 0 only through a function pointer, 0 not launched; 5 launches: 1 constant, 4 unknown (0 of a kernel not known statically)\n");
}

Test(launches, launch_api)
{
    expect_text("launch_api.cu", NULL,
                "_Z5saxpyfPKfPfi  saxpy(float, float const*, float*, int)  (tests/data/launches/launch_api.cu:2)\n"
                "  256x1x1 from tests/data/launches/launch_api.cu:13:3 (cudaLaunchKernel)\n"
                "  32x4x1 from tests/data/launches/launch_api.cu:14:3 (cudaLaunchKernel)\n"
                "  64x1x1 from tests/data/launches/launch_api.cu:19:3 (cudaLaunchKernelEx)\n"
                "  unknown at tests/data/launches/launch_api.cu:24:3 (cudaLaunchKernelEx): 'rt' is a parameter of 'run', given by its callers\n"
                "_Z8grid_sumPKfPfi  grid_sum(float const*, float*, int)  (tests/data/launches/launch_api.cu:7)\n"
                "  128x1x1 from tests/data/launches/launch_api.cu:27:3 (cudaLaunchCooperativeKernel)\n"
                "2 kernels: 2 with a constant block shape (4 shapes), 0 launched with unknown shapes only, 0 only through a function pointer, 0 not launched; 5 launches: 4 constant, 1 unknown (0 of a kernel not known statically)\n");
}

Test(launches, funcptr)
{
    expect_text("funcptr.cu", NULL,
                "_Z6op_addPfi  op_add(float*, int)  (tests/data/launches/funcptr.cu:5)\n"
                "  128x1x1 from tests/data/launches/funcptr.cu:12:3 (<<<>>> through 'k')\n"
                "_Z6op_mulPfi  op_mul(float*, int)  (tests/data/launches/funcptr.cu:6)\n"
                "  128x1x1 from tests/data/launches/funcptr.cu:12:3 (<<<>>> through 'k')\n"
                "2 kernels: 2 with a constant block shape (2 shapes), 0 launched with unknown shapes only, 0 only through a function pointer, 0 not launched; 2 launches: 2 constant, 0 unknown (0 of a kernel not known statically)\n");
}

/* Issue 38: a launch through a function pointer whose every target is
 * known gives each target the launch's shape: a ternary initialiser (with
 * &kernel), a reassigned pointer, a static table indexed by anything, a
 * helper taking the kernel (and its shape: each call's), a template
 * helper, cudaLaunchKernel with (void *)k.  No address_used_at is left:
 * every use of each kernel's address ends in a resolved launch. */
Test(launches, fnptr_known)
{
    expect_text("fnptr.cu", NULL,
                "_Z5scalePf  scale(float*)  (tests/data/launches/fnptr.cu:5)\n"
                "  16x16x1 from tests/data/launches/fnptr.cu:13:36 (<<<>>> through 'k', passed at tests/data/launches/fnptr.cu:25:3)\n"
                "  32x16x1 from tests/data/launches/fnptr.cu:20:3 (<<<>>> through 'k'), tests/data/launches/fnptr.cu:29:3 (cudaLaunchKernel through 'k')\n"
                "  64x1x1 from tests/data/launches/fnptr.cu:23:3 (<<<>>> through 'r')\n"
                "  128x1x1 from tests/data/launches/fnptr.cu:24:3 (<<<>>> through 'table[i % 2]')\n"
                "_Z5shiftPf  shift(float*)  (tests/data/launches/fnptr.cu:6)\n"
                "  96x1x1 from tests/data/launches/fnptr.cu:15:48 (<<<>>> through 'k', passed at tests/data/launches/fnptr.cu:27:3)\n"
                "  64x1x1 from tests/data/launches/fnptr.cu:23:3 (<<<>>> through 'r')\n"
                "  128x1x1 from tests/data/launches/fnptr.cu:24:3 (<<<>>> through 'table[i % 2]')\n"
                "_Z5clearPf  clear(float*)  (tests/data/launches/fnptr.cu:7)\n"
                "  256x1x1 from tests/data/launches/fnptr.cu:13:36 (<<<>>> through 'k', passed at tests/data/launches/fnptr.cu:26:3)\n"
                "  32x16x1 from tests/data/launches/fnptr.cu:20:3 (<<<>>> through 'k'), tests/data/launches/fnptr.cu:29:3 (cudaLaunchKernel through 'k')\n"
                "3 kernels: 3 with a constant block shape (9 shapes), 0 launched with unknown shapes only, 0 only through a function pointer, 0 not launched; 11 launches: 11 constant, 0 unknown (0 of a kernel not known statically)\n");
}

/* When any target may be unknown, no shape and the reason: a parameter of
 * an exported function no code calls, or of one whose address is kept, a
 * non-const global other files may assign, a load through a pointer, a
 * call's result, a pointer whose address is taken or that a reference is
 * bound to, a helper also named in code whose calls the scan does not
 * follow (a class template's member).  A helper's call with a shape not known gives its kernel an
 * unknown launch with the argument's reason; uses of a kernel that no
 * resolved launch accounts for stay its address_used_at. */
Test(launches, fnptr_unknown)
{
    expect_text("fnptr_unknown.cu", NULL,
                "_Z8only_ptrPf  only_ptr(float*)  (tests/data/launches/fnptr_unknown.cu:3)\n"
                "  not launched directly; its address is used at tests/data/launches/fnptr_unknown.cu:25: launched through a function pointer, its shape is unknown\n"
                "_Z6directPf  direct(float*)  (tests/data/launches/fnptr_unknown.cu:4)\n"
                "  128x1x1 from tests/data/launches/fnptr_unknown.cu:14:35 (<<<>>> through 'k', passed at tests/data/launches/fnptr_unknown.cu:32:3)\n"
                "  32x1x1 from tests/data/launches/fnptr_unknown.cu:31:3 (<<<>>>)\n"
                "  unknown at tests/data/launches/fnptr_unknown.cu:14:35 (<<<>>> through 'k', passed at tests/data/launches/fnptr_unknown.cu:33:3): 'n' is a parameter of 'host', given by its callers\n"
                "  its address is also used at tests/data/launches/fnptr_unknown.cu:28: a launch through a function pointer has an unknown shape\n"
                "launches of a kernel not known statically:\n"
                "  unknown at tests/data/launches/fnptr_unknown.cu:12:35 (<<<>>>): the kernel is 'k', a function pointer: 'k' is a parameter of 'launch_any', which no code of this file calls\n"
                "  unknown at tests/data/launches/fnptr_unknown.cu:16:30 (<<<>>>): the kernel is 'k', a function pointer: 'k' is a parameter of 'twice', which is also used other than called at line 17\n"
                "  unknown at tests/data/launches/fnptr_unknown.cu:20:3 (<<<>>>): the kernel is 'from_elsewhere', a function pointer: 'from_elsewhere' is a non-const global variable, which other files may assign\n"
                "  unknown at tests/data/launches/fnptr_unknown.cu:22:3 (<<<>>>): the kernel is 'a', a function pointer: '*slots' is computed at run time or read from memory\n"
                "  unknown at tests/data/launches/fnptr_unknown.cu:24:3 (<<<>>>): the kernel is 'b', a function pointer: 'lookup(n)' is computed at run time or read from memory\n"
                "  unknown at tests/data/launches/fnptr_unknown.cu:27:3 (<<<>>>): the kernel is 'c', a function pointer: the address of 'c' is taken at line 26\n"
                "  unknown at tests/data/launches/fnptr_unknown.cu:30:3 (<<<>>>): the kernel is 'e', a function pointer: 'e' is passed on or bound to a reference at line 29, where it may be written\n"
                "  unknown at tests/data/launches/fnptr_unknown.cu:39:36 (<<<>>>): the kernel is 'k', a function pointer: 'k' is a parameter of 'in_template', also named at line 40 in code whose calls ptxray does not follow\n"
                "2 kernels: 1 with a constant block shape (2 shapes), 0 launched with unknown shapes only, 1 only through a function pointer, 0 not launched; 11 launches: 2 constant, 9 unknown (8 of a kernel not known statically)\n");
}

/* The JSON of a launch through a function pointer: "through" and, for a
 * parameter, "passed_at"; a direct launch has neither. */
Test(launches, fnptr_json)
{
    tu_at_root();
    char *a[] = {BIN, "launches", "--format", "json", DIR "fnptr_unknown.cu", NULL};
    char *out = tu_run_want(a, 0, NULL);
    json_error_t je;
    json_t *j = json_loads(out, 0, &je);
    cr_assert_not_null(j, "%s", je.text);
    json_t *d = json_array_get(json_object_get(j, "kernels"), 1);
    cr_expect_str_eq(json_string_value(json_object_get(d, "name")), "_Z6directPf");
    cr_expect_str_eq(json_string_value(json_object_get(d, "address_used_at")), DIR "fnptr_unknown.cu:28");
    json_t *shapes = json_object_get(d, "shapes");
    cr_assert_eq(json_array_size(shapes), 2);
    json_t *l0 = json_array_get(json_object_get(json_array_get(shapes, 0), "launches"), 0);
    cr_expect_eq(json_integer_value(json_array_get(json_object_get(json_array_get(shapes, 0), "block"), 0)), 128);
    cr_expect_str_eq(json_string_value(json_object_get(l0, "at")), DIR "fnptr_unknown.cu:14:35");
    cr_expect_str_eq(json_string_value(json_object_get(l0, "through")), "k");
    cr_expect_str_eq(json_string_value(json_object_get(l0, "passed_at")), DIR "fnptr_unknown.cu:32:3");
    json_t *l1 = json_array_get(json_object_get(json_array_get(shapes, 1), "launches"), 0);
    cr_expect_str_eq(json_string_value(json_object_get(l1, "at")), DIR "fnptr_unknown.cu:31:3");
    cr_expect_null(json_object_get(l1, "through"));
    cr_expect_null(json_object_get(l1, "passed_at"));
    json_t *u = json_array_get(json_object_get(d, "unknown"), 0);
    cr_expect_str_eq(json_string_value(json_object_get(u, "passed_at")), DIR "fnptr_unknown.cu:33:3");
    cr_expect_str_eq(json_string_value(json_object_get(u, "why")), "'n' is a parameter of 'host', given by its callers");
    json_t *o = json_array_get(json_object_get(j, "unknown_kernel_launches"), 0);
    cr_expect(json_is_null(json_object_get(o, "kernel")));
    cr_expect_str_eq(json_string_value(json_object_get(o, "expression")), "k");
    cr_expect_null(json_object_get(o, "through"));
    cr_expect_str_eq(json_string_value(json_object_get(o, "why")),
                     "the kernel is 'k', a function pointer: 'k' is a parameter of 'launch_any', which no code of this "
                     "file calls");
    json_decref(j);
    free(out);
}

/* A table of n kernels launched through table[i], written to a temporary
 * .cu; the launches' text. */
static char *table_launch(int n)
{
    char dir[] = "/tmp/ptxray-fnptr-XXXXXX", path[64];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/t.cu", dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    for (int i = 0; i < n; i++) fprintf(f, "__global__ void k%d(float *a) { a[threadIdx.x] = %d; }\n", i, i);
    fputs("static void (*tab[])(float *) = {", f);
    for (int i = 0; i < n; i++) fprintf(f, "%sk%d", i ? ", " : "", i);
    fputs("};\nvoid f(float *d, int i) { tab[i]<<<1, 64>>>(d); }\n", f);
    fclose(f);
    char *a[] = {BIN, "launches", "--builtin-cuda", path, NULL};
    char *out = tu_run_want(a, 0, NULL);
    unlink(path);
    rmdir(dir);
    return out;
}

/* Every element of a table is a target (libclang's children beyond the
 * 16 the evaluator's helper keeps), up to 256; more: unknown, and why. */
Test(launches, fnptr_large_tables)
{
    char *out = table_launch(40);
    cr_expect(strstr(out, "\n_Z3k39Pf  k39(float*)  (") && strstr(out, ":40)\n  64x1x1 from "), "%s", out);
    cr_expect(strstr(out, "40 kernels: 40 with a constant block shape (40 shapes), 0 launched with unknown shapes "
                          "only, 0 only through a function pointer, 0 not launched; 40 launches: 40 constant, 0 "
                          "unknown (0 of a kernel not known statically)\n"),
              "%s", out);
    free(out);
    out = table_launch(300);
    cr_expect(strstr(out, ":302:27 (<<<>>>): the kernel is 'tab[i]', a function pointer: 'tab' has more than 256 uses "
                          "or values (the first beyond them at line 301)\n"),
              "%s", out);
    cr_expect(strstr(out, "300 kernels: 0 with a constant block shape (0 shapes), 0 launched with unknown shapes only, "
                          "300 only through a function pointer, 0 not launched; 1 launch: 0 constant, 1 unknown (1 of a "
                          "kernel not known statically)\n"),
              "%s", out);
    free(out);
}

Test(launches, launch_bounds)
{
    expect_text("launch_bounds.cu", NULL,
                "_Z7boundedPf  bounded(float*)  (tests/data/launches/launch_bounds.cu:4)\n"
                "  unknown at tests/data/launches/launch_bounds.cu:9:3 (<<<>>>): 'threads' is a parameter of 'run', given by its callers\n"
                "  __launch_bounds__(256): at most 256 threads per block, an upper bound, not a shape\n"
                "_Z11bounded_minPf  bounded_min(float*)  (tests/data/launches/launch_bounds.cu:5)\n"
                "  64x1x1 from tests/data/launches/launch_bounds.cu:10:3 (<<<>>>)\n"
                "  __launch_bounds__(128, 4): at most 128 threads per block, an upper bound, not a shape\n"
                "_Z14never_launchedPf  never_launched(float*)  (tests/data/launches/launch_bounds.cu:6)\n"
                "  not launched in the code scanned\n"
                "  __launch_bounds__(1024): at most 1024 threads per block, an upper bound, not a shape\n"
                "3 kernels: 1 with a constant block shape (1 shape), 1 launched with unknown shapes only, 0 only through a function pointer, 1 not launched; 2 launches: 1 constant, 1 unknown (0 of a kernel not known statically)\n");
}

Test(launches, include_and_define)
{
    tu_at_root();
    char *a[] = {BIN, "launches", "-I", DIR "include", "-DTPB=32", DIR "flags.cu", NULL};
    char *out = tu_run_want(a, 0, NULL);
    cr_expect(strstr(out, "_Z4rowsPf  rows(float*)  (" DIR "flags.cu:7)\n"
                          "  32x4x1 from " DIR "flags.cu:9:22 (<<<>>>)\n"),
              "%s", out);
    free(out);
    /* nvcc's spellings: -Ipath, --define-macro */
    char *b[] = {BIN, "launches", "-I" DIR "include", "--define-macro", "TPB=128", DIR "flags.cu", NULL};
    out = tu_run_want(b, 0, NULL);
    cr_expect(strstr(out, "  128x4x1 from " DIR "flags.cu:9:22 (<<<>>>)\n"), "%s", out);
    free(out);
}

/* A file with errors: the launch libclang could evaluate, and a warning. */
Test(launches, partial_parse)
{
    tu_at_root();
    char *a[] = {BIN, "launches", DIR "broken.cu", NULL};
    char *err;
    char *out = tu_run_want(a, 0, &err);
    cr_expect(strstr(out, "_Z2okPf  ok(float*)  (" DIR "broken.cu:3)\n"
                          "  8x4x1 from " DIR "broken.cu:11:3 (<<<>>>)\n"),
              "%s", out);
    cr_expect(strstr(err, "ptxray launches: warning: " DIR "broken.cu: libclang reported 2 errors (first: " DIR
                          "broken.cu:6:3: error: use of undeclared identifier 'undeclared_function'); the launches it "
                          "could evaluate are reported\n"),
              "%s", err);
    free(out);
    free(err);
}

/* The toolkit's cooperative_groups.h gives libclang errors in its own
 * headers (libcu++ written for nvcc): not the user's, so one note for the
 * run, not a warning per file; --verbose lists each file's; the JSON
 * counts them apart from the file's own errors. */
Test(launches, errors_in_the_toolkits_headers_are_one_note)
{
    tu_at_root();
    if (access("/usr/local/cuda/include/cooperative_groups.h", R_OK)) cr_skip_test("no CUDA toolkit");
    static const char *const tail = " in system headers (the CUDA toolkit's own, written for nvcc) in 2 files; the "
                                    "launches it could evaluate are reported";
    char *a[] = {BIN, "launches", "ptx-corpus/src/coop_groups.cu", "ptx-corpus/src/coop_grid_sync.cu", NULL};
    char *err, *out = tu_run_want(a, 0, &err);
    unsigned n;
    int at = -1;
    cr_expect(sscanf(err, "ptxray launches: note: libclang reported %u errors%n", &n, &at) == 1 && at > 0 && n > 1,
              "%s", err);
    char want[400];
    snprintf(want, sizeof want, "%s; --verbose lists them\n", tail);
    cr_expect(at > 0 && !strcmp(err + at, want), "%s", err);
    cr_expect(strstr(out, "(ptx-corpus/src/coop_groups.cu:"), "%s", out);
    free(out);
    free(err);
    char *v[] = {BIN, "launches", "--verbose", "ptx-corpus/src/coop_groups.cu", "ptx-corpus/src/coop_grid_sync.cu",
                 NULL};
    out = tu_run_want(v, 0, &err);
    char *nl = strchr(err, '\n');
    cr_assert_not_null(nl, "%s", err);
    cr_expect(!strncmp(nl - strlen(tail) - 1, tail, strlen(tail)) && nl[-1] == ':', "%s", err);
    cr_expect(strstr(nl, "\n  ptx-corpus/src/coop_groups.cu: ") == nl, "%s", err);
    cr_expect(strstr(err, " errors (first: /usr/local/cuda/include/") != NULL, "%s", err);
    cr_expect(strstr(err, "\n  ptx-corpus/src/coop_grid_sync.cu: ") != NULL, "%s", err);
    free(out);
    free(err);
    char *j[] = {BIN, "launches", "--format", "json", "ptx-corpus/src/coop_groups.cu", NULL};
    out = tu_run_want(j, 0, &err);
    json_error_t je;
    json_t *root = json_loads(out, 0, &je);
    cr_assert_not_null(root, "%s", je.text);
    json_t *f = json_array_get(json_object_get(root, "files"), 0);
    cr_expect_eq(json_integer_value(json_object_get(f, "errors")), 0);
    cr_expect(json_is_null(json_object_get(f, "first_error")));
    cr_expect_gt(json_integer_value(json_object_get(f, "header_errors")), 0);
    cr_expect(!strncmp(json_string_value(json_object_get(f, "first_header_error")), "/usr/local/cuda/include/", 24),
              "%s", out);
    json_decref(root);
    free(out);
    free(err);
}

/* JSON: per kernel the PTX name, a readable one, the shapes with their
 * launches, the unknown launches with the reason, the launch bounds. */
Test(launches, json)
{
    tu_at_root();
    char *a[] = {BIN, "launches", "--format", "json", DIR "launch_bounds.cu", DIR "templates.cu", NULL};
    char *out = tu_run_want(a, 0, NULL);
    json_error_t je;
    json_t *j = json_loads(out, 0, &je);
    cr_assert_not_null(j, "%s", je.text);
    json_t *ks = json_object_get(j, "kernels");
    cr_assert_eq(json_array_size(ks), 7);
    json_t *b = json_array_get(ks, 0);
    cr_expect_str_eq(json_string_value(json_object_get(b, "name")), "_Z7boundedPf");
    cr_expect_str_eq(json_string_value(json_object_get(b, "display")), "bounded(float*)");
    cr_expect_eq(json_integer_value(json_object_get(json_object_get(b, "launch_bounds"), "max_threads")), 256);
    cr_expect_eq(json_array_size(json_object_get(b, "shapes")), 0);
    json_t *u = json_array_get(json_object_get(b, "unknown"), 0);
    cr_expect_str_eq(json_string_value(json_object_get(u, "at")), DIR "launch_bounds.cu:9:3");
    cr_expect_str_eq(json_string_value(json_object_get(u, "why")), "'threads' is a parameter of 'run', given by its callers");
    json_t *s = json_array_get(ks, 4); /* scale<float>: two shapes */
    cr_expect_str_eq(json_string_value(json_object_get(s, "name")), "_Z5scaleIfEvPT_S0_i");
    json_t *shapes = json_object_get(s, "shapes");
    cr_assert_eq(json_array_size(shapes), 2);
    json_t *s1 = json_array_get(shapes, 1);
    cr_expect_eq(json_integer_value(json_array_get(json_object_get(s1, "block"), 0)), 32);
    cr_expect_eq(json_integer_value(json_array_get(json_object_get(s1, "block"), 1)), 4);
    cr_expect_str_eq(json_string_value(json_object_get(json_array_get(json_object_get(s1, "launches"), 0), "at")),
                     DIR "templates.cu:24:3");
    json_t *sum = json_object_get(j, "summary");
    cr_expect_eq(json_integer_value(json_object_get(sum, "kernels")), 7);
    cr_expect_eq(json_integer_value(json_object_get(sum, "shapes")), 6);
    cr_expect_eq(json_integer_value(json_object_get(sum, "unknown")), 1);
    json_decref(j);
    free(out);
}

Test(launches, bad_input)
{
    tu_at_root();
    char *err;
    char *a[] = {BIN, "launches", DIR "no_such_file.cu", NULL};
    char *out = tu_run_want(a, 2, &err);
    cr_expect_str_eq(err, "ptxray launches: " DIR "no_such_file.cu: cannot read the file\n");
    free(out);
    free(err);
    char *b[] = {BIN, "launches", "--format", "xml", DIR "funcptr.cu", NULL};
    out = tu_run_want(b, 2, &err);
    cr_expect_str_eq(err, "ptxray launches: --format 'xml': expected text or json\n");
    free(out);
    free(err);
    char *c[] = {BIN, "launches", "--frobnicate", DIR "funcptr.cu", NULL};
    out = tu_run_want(c, 2, &err);
    cr_expect(strstr(err, "ptxray launches: unknown option '--frobnicate' (neither launches' nor nvcc's)\n"), "%s", err);
    free(out);
    free(err);
}

/* libclang is loaded when host code is first read (hostcode/clang_dl.c),
 * not linked: one that cannot be loaded is a clear error, exit 2, and
 * commands that read no host code never need it. */
Test(launches, libclang_not_loadable)
{
    tu_at_root();
    cr_assert(setenv("PTXRAY_LIBCLANG", "/nonexistent/libclang.so", 1) == 0);
    char *err;
    char *a[] = {BIN, "launches", DIR "funcptr.cu", NULL};
    char *out = tu_run_want(a, 2, &err);
    cr_expect_str_eq(out, "");
    cr_expect(strstr(err, "ptxray launches: " DIR "funcptr.cu: cannot load libclang from "
                          "PTXRAY_LIBCLANG=/nonexistent/libclang.so ("),
              "%s", err);
    free(out);
    free(err);
    char *b[] = {BIN, "parse", "ptx-corpus/sm_80/sampaio_divergence.ptx", NULL};
    out = tu_run_want(b, 0, &err);
    cr_expect(strstr(out, "sampaio") != NULL, "%s", out);
    free(out);
    free(err);
    unsetenv("PTXRAY_LIBCLANG");
}

/* The corpus sources launch every kernel the way the emulator tests run it
 * (host code at the end of each ptx-corpus/src/NAME.cu): `launches` over them
 * names every .entry of the sm_80 PTX and recovers a constant shape for
 * each; the launches whose shape is computed at run time are the unknown
 * ones.  Built-in declarations (the toolkit's headers give the same, in
 * 40 s instead of 1). */
Test(launches, corpus, .timeout = 120)
{
    tu_at_root();
    size_t n;
    char **cu = NULL;
    {
        char **ptx = tu_list_ptx("ptx-corpus/sm_80", &n);
        cu = calloc(n + 5, sizeof *cu);
        cr_assert_not_null(cu);
        cu[0] = BIN;
        cu[1] = "launches";
        cu[2] = "--builtin-cuda";
        cu[3] = "--format=json";
        for (size_t i = 0; i < n; i++) {
            const char *b = strrchr(ptx[i], '/') + 1;
            char *p = malloc(strlen(b) + 32);
            cr_assert_not_null(p);
            sprintf(p, "ptx-corpus/src/%.*s.cu", (int)(strlen(b) - 4), b);
            cu[4 + i] = p;
        }
        tu_free_list(ptx, n);
    }
    char *out = tu_run_want(cu, 0, NULL);
    json_error_t je;
    json_t *j = json_loads(out, 0, &je);
    cr_assert_not_null(j, "%s", je.text);
    json_t *sum = json_object_get(j, "summary");
    cr_expect_eq(json_integer_value(json_object_get(sum, "kernels")), 173);
    cr_expect_eq(json_integer_value(json_object_get(sum, "kernels_with_constant_shapes")), 173);
    cr_expect_eq(json_integer_value(json_object_get(sum, "shapes")), 175);
    cr_expect_eq(json_integer_value(json_object_get(sum, "launches")), 180);
    cr_expect_eq(json_integer_value(json_object_get(sum, "unknown")), 5);
    /* every .entry of the PTX is a kernel with a shape, by its PTX name */
    size_t entries = 0;
    for (size_t i = 0; i < n; i++) {
        char path[512];
        snprintf(path, sizeof path, "ptx-corpus/sm_80/%.*s.ptx", (int)(strlen(cu[4 + i]) - 18), cu[4 + i] + 15);
        char *text = tu_read(path, NULL);
        for (char *p = strstr(text, ".entry "); p; p = strstr(p + 1, ".entry ")) {
            char name[256];
            cr_assert_eq(sscanf(p + 7, "%255[^( \n]", name), 1);
            entries++;
            size_t k;
            json_t *kj;
            bool found = false;
            json_array_foreach(json_object_get(j, "kernels"), k, kj)
                if (!strcmp(json_string_value(json_object_get(kj, "name")), name)) {
                    found = true;
                    cr_expect_gt(json_array_size(json_object_get(kj, "shapes")), 0, "%s: no shape", name);
                }
            cr_expect(found, "%s: .entry %s not among the kernels launched", path, name);
        }
        free(text);
    }
    cr_expect_eq(entries, 173);
    /* the unknown launches and why */
    static const char *const why[] = {
        "the address of 'threads' is taken",
        "'threads' is computed at run time: e ? atoi(e) : 256",
        "'threads' is computed at run time: e ? atoi(e) : 64",
        "'threads' is a parameter of 'launch_layernorm_welford_at', given by its callers",
        "'threads' is a parameter of 'launch_spmv_csr_scalar_at', given by its callers",
    };
    size_t nw = 0, k;
    json_t *kj;
    json_array_foreach(json_object_get(j, "kernels"), k, kj) {
        size_t u;
        json_t *uj;
        json_array_foreach(json_object_get(kj, "unknown"), u, uj) {
            cr_assert_lt(nw, 5);
            cr_expect_str_eq(json_string_value(json_object_get(uj, "why")), why[nw]);
            nw++;
        }
    }
    cr_expect_eq(nw, 5);
    json_decref(j);
    free(out);
    for (size_t i = 0; i < n; i++) free(cu[4 + i]);
    free(cu);
}

/* The n-th report section of kernel k (by demangled name or symbol). */
static const char *find_section(const char *out, const char *k, int nth)
{
    /* a section starts "== kernel NAME ==" (the demangled name), then
     * "symbol: SYMBOL" for a C++ kernel: k is either */
    char head[256], sym[256];
    snprintf(head, sizeof head, "== kernel %s ==\n", k);
    snprintf(sym, sizeof sym, "symbol: %s\n", k);
    int seen = 0;
    for (const char *p = strstr(out, "== kernel "); p; p = strstr(p + 1, "== kernel ")) {
        const char *nl = strchr(p, '\n');
        bool match = !strncmp(p, head, strlen(head)) || (nl && !strncmp(nl + 1, sym, strlen(sym)));
        if (match && seen++ == nth) return p;
    }
    return NULL;
}

/* That section's text up to the next one, its "block:" line left out;
 * NULL when absent. */
static char *section(const char *out, const char *k, int nth)
{
    const char *p = find_section(out, k, nth);
    if (!p) return NULL;
    const char *e = strstr(p + 1, "\n== ");
    size_t n = e ? (size_t)(e - p) : strlen(p);
    char *s = malloc(n + 1);
    cr_assert_not_null(s);
    size_t k2 = 0;
    for (const char *l = p; l < p + n;) {
        const char *nl = memchr(l, '\n', (size_t)(p + n - l));
        size_t len = nl ? (size_t)(nl - l) + 1 : (size_t)(p + n - l);
        if (strncmp(l, "block: ", 7)) {
            memcpy(s + k2, l, len);
            k2 += len;
        }
        l += len;
    }
    s[k2] = 0;
    return s;
}

static char *block_line(const char *out, const char *k, int nth)
{
    const char *p = find_section(out, k, nth);
    cr_assert_not_null(p, "no report %d of %s", nth, k);
    p = strstr(p, "\nblock: ");
    cr_assert_not_null(p, "no block line in report %d of %s", nth, k);
    p++;
    return strndup(p, strcspn(p, "\n"));
}

#define MT2 "_Z16matmul_tiled_2x2PKfS0_Pfi"

/* matmul_tiled_2x2 is launched with 16x16 blocks in its .cu: through the
 * host code's launch shapes (no nvcc needed: `launches` writes the JSON,
 * `analyze --launches` reads it) it gets the findings --block 16,16,1
 * gives by hand, and not those of the default assumption. */
Test(launches, analyze_corpus_16x16)
{
    tu_at_root();
    char json[] = "/tmp/ptxray-launches-XXXXXX";
    int fd = mkstemp(json);
    cr_assert_geq(fd, 0);
    close(fd);
    char *l[] = {BIN, "launches", "--builtin-cuda", "--format", "json", "-o", json, "ptx-corpus/src/matmul_tiled.cu", NULL};
    free(tu_run_want(l, 0, NULL));
    char *a[] = {BIN, "analyze", "--launches", json, "ptx-corpus/sm_80/matmul_tiled.ptx", NULL};
    char *b[] = {BIN, "analyze", "--block", "16,16,1", "ptx-corpus/sm_80/matmul_tiled.ptx", NULL};
    char *c[] = {BIN, "analyze", "ptx-corpus/sm_80/matmul_tiled.ptx", NULL};
    char *oa = tu_run_want(a, 0, NULL), *ob = tu_run_want(b, 0, NULL), *oc = tu_run_want(c, 0, NULL);
    unlink(json);
    char *sa = section(oa, MT2, 0), *sb = section(ob, MT2, 0), *sc = section(oc, MT2, 0);
    cr_assert(sa && sb && sc);
    cr_expect_str_eq(sa, sb, "with the launches:\n%s\nwith --block 16,16,1:\n%s", sa, sb);
    cr_expect_str_neq(sa, sc, "the default assumption gives the same:\n%s", sc);
    cr_expect(strstr(sa, "uncoalesced global load: lanes 8·n B apart (stride from tid.y·n), up to 10 "
                         "sectors/request, ideal 4"),
              "%s", sa);
    cr_expect(!strstr(sc, "stride from tid.y"), "%s", sc);
    char *bl = block_line(oa, MT2, 0);
    cr_expect_str_eq(bl, "block: 16x16x1 (host-code launch at ptx-corpus/src/matmul_tiled.cu:83:5)");
    free(bl);
    bl = block_line(ob, MT2, 0);
    cr_expect_str_eq(bl, "block: 16x16x1 (--block)");
    free(bl);
    /* --block beats the launches */
    char *d[] = {BIN, "analyze", "--launches", json, "--block", MT2 "=32,8", "ptx-corpus/sm_80/matmul_tiled.ptx", NULL};
    free(tu_run_want(l, 0, NULL));
    char *od = tu_run_want(d, 0, NULL);
    unlink(json);
    bl = block_line(od, MT2, 0);
    cr_expect_str_eq(bl, "block: 32x8x1 (--block KERNEL=)");
    free(bl);
    bl = block_line(od, "_Z12matmul_tiledILi32EEvPKfS1_Pfiii", 0);
    cr_expect_str_eq(bl, "block: 32x32x1 (host-code launch at ptx-corpus/src/matmul_tiled.cu:74:3)");
    free(bl);
    free(sa); free(sb); free(sc);
    free(oa); free(ob); free(oc); free(od);
}

/* The same from the .cu: analyze compiles it with nvcc and reads its
 * launches with libclang (skipped without nvcc). */
Test(launches, analyze_cu_16x16, .timeout = 120)
{
    tu_at_root();
    if (!tc_find_nvcc()) {
        cr_skip_test("nvcc not found");
        return;
    }
    char *a[] = {BIN, "analyze", "ptx-corpus/src/matmul_tiled.cu", NULL};
    char *b[] = {BIN, "analyze", "--block", "16,16,1", "ptx-corpus/src/matmul_tiled.cu", NULL};
    char *oa = tu_run_want(a, 0, NULL), *ob = tu_run_want(b, 0, NULL);
    char *sa = section(oa, MT2, 0), *sb = section(ob, MT2, 0);
    cr_assert(sa && sb);
    cr_expect_str_eq(sa, sb);
    char *bl = block_line(oa, MT2, 0);
    cr_expect_str_eq(bl, "block: 16x16x1 (host-code launch at ptx-corpus/src/matmul_tiled.cu:83:5)");
    free(bl);
    free(sa); free(sb); free(oa); free(ob);
}

/* A kernel launched with two shapes gets one report that analyses it at
 * each, in the order of its launches, each named by its launch. */
Test(launches, analyze_two_shapes)
{
    tu_at_root();
    char json[] = "/tmp/ptxray-launches-XXXXXX";
    int fd = mkstemp(json);
    cr_assert_geq(fd, 0);
    close(fd);
    char *l[] = {BIN, "launches", "--builtin-cuda", "--format", "json", "-o", json, "ptx-corpus/src/warp_reduce_tree.cu", NULL};
    free(tu_run_want(l, 0, NULL));
    char *a[] = {BIN, "analyze", "--launches", json, "ptx-corpus/sm_80/warp_reduce_tree.ptx", NULL};
    char *oa = tu_run_want(a, 0, NULL);
    unlink(json);
    char *b0 = block_line(oa, "reduce_tree_classic", 0);
    cr_expect_str_eq(b0, "block: 2 launch shapes, analysed at each: 256x1x1 (host-code launch at "
                         "ptx-corpus/src/warp_reduce_tree.cu:112:5), 128x1x1 (host-code launch at "
                         "ptx-corpus/src/warp_reduce_tree.cu:119:5)", "%s", oa);
    const char *sec = find_section(oa, "reduce_tree_classic", 0);
    cr_expect(strstr(sec, "\nvalues at 256x1x1: ") && strstr(sec, "\nvalues at 128x1x1: "), "%s", sec);
    cr_expect(strstr(sec, "     holds at all 2 launch shapes analysed: 256x1x1 (host-code launch at "
                          "ptx-corpus/src/warp_reduce_tree.cu:112:5), 128x1x1 (host-code launch at "
                          "ptx-corpus/src/warp_reduce_tree.cu:119:5)\n"),
              "%s", sec);
    cr_expect_null(section(oa, "reduce_tree_classic", 1));
    cr_expect_null(section(oa, "reduce_tree_unrolled", 1));
    free(b0); free(oa);
}

/* --launches: bad files are reported like a compiler would, exit 2. */
Test(launches, bad_launches_file)
{
    tu_at_root();
    char path[] = "/tmp/ptxray-launches-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    cr_assert_eq(write(fd, "{\"kernels\": [\n  {\"name\": \"k\", \"shapes\": [{\"block\": [0, 1, 1]}]}\n", 62), 62);
    close(fd);
    char *a[] = {BIN, "check", "--launches", path, "ptx-corpus/sm_80/matmul_tiled.ptx", NULL};
    char *err;
    free(tu_run_want(a, 2, &err));
    char want[256];
    snprintf(want, sizeof want, "%s:2:48: error: ", path); /* FILE:LINE:COL: error: (jansson's message) */
    cr_expect(!strncmp(err, want, strlen(want)), "%s", err);
    free(err);
    FILE *f = fopen(path, "w");
    fputs("{\"kernels\": [{\"name\": \"k\", \"shapes\": [{\"block\": [2048, 1, 1]}]}]}\n", f);
    fclose(f);
    char *b[] = {BIN, "coalescing", "--launches", path, "ptx-corpus/sm_80/matmul_tiled.ptx", NULL};
    free(tu_run_want(b, 2, &err));
    snprintf(want, sizeof want,
             "%s: error: kernels[0].shapes[0].block: not a block shape [x, y, z] of 1 to 1024 threads (expected a "
             "launch file: docs/launches.md)\n",
             path);
    cr_expect_str_eq(err, want);
    free(err);
    unlink(path);
}
