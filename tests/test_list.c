/* ptxray list and --kernel by C++ name (issue 20, item 6): names come from
 * libiberty's demangler; every command that takes --kernel resolves it the
 * same way (report/load.c). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"
#include "toolchain.h"

#define BIN (char *)tu_bin()
#define MATMUL "ptx-corpus/sm_80/matmul_tiled.ptx"

static const char *matmul_head =
    MATMUL ": 4 kernels (%s)\n"
    "  void matmul_tiled<8>(float const*, float const*, float*, int, int, int)\n"
    "    symbol: _Z12matmul_tiledILi8EEvPKfS1_Pfiii\n"
    "    parameters: 6 (.u64, .u64, .u64, .u32, .u32, .u32)\n"
    "    launch bounds: none\n";

Test(list, cpp_kernels_without_ptxas)
{
    char *out, *err, want[4096];
    setenv("PTXAS", "/nonexistent/ptxas", 1);
    char *a[] = {BIN, "list", (char *)tu_src(MATMUL), NULL};
    int rc = tu_run(a, &out, &err);
    unsetenv("PTXAS");
    cr_assert_eq(rc, 0, "%s", err);
    char *rel = strstr(out, MATMUL);
    cr_assert(rel);
    snprintf(want, sizeof want, matmul_head, "ptxas not found");
    strcat(want, "  void matmul_tiled<16>(float const*, float const*, float*, int, int, int)\n"
                 "    symbol: _Z12matmul_tiledILi16EEvPKfS1_Pfiii\n"
                 "    parameters: 6 (.u64, .u64, .u64, .u32, .u32, .u32)\n"
                 "    launch bounds: none\n"
                 "  void matmul_tiled<32>(float const*, float const*, float*, int, int, int)\n"
                 "    symbol: _Z12matmul_tiledILi32EEvPKfS1_Pfiii\n"
                 "    parameters: 6 (.u64, .u64, .u64, .u32, .u32, .u32)\n"
                 "    launch bounds: none\n"
                 "  matmul_tiled_2x2(float const*, float const*, float*, int)\n"
                 "    symbol: _Z16matmul_tiled_2x2PKfS0_Pfi\n"
                 "    parameters: 4 (.u64, .u64, .u64, .u32)\n"
                 "    launch bounds: none\n");
    cr_expect_str_eq(rel, want);
    cr_expect_str_eq(err, "");
    free(out);
    free(err);
}

Test(list, ptxas_figures_and_launch_bounds)
{
    if (!tc_find_ptxas()) cr_skip_test("ptxas not found");
    char *out, *err, want[4096];
    char *matmul = strdup(tu_src(MATMUL)); /* tu_src's buffer is static */
    char *a[] = {BIN, "list", matmul, (char *)tu_src("ptx-corpus/sm_80/launch_bounds.ptx"), NULL};
    cr_assert_eq(tu_run(a, &out, &err), 0, "%s", err);
    free(matmul);
    snprintf(want, sizeof want, matmul_head, "ptxas -v -arch=sm_80");
    strcat(want, "    ptxas: 32 registers, 0 bytes spill stores, 0 bytes spill loads, 512 bytes shared memory, "
                 "0 bytes stack frame\n");
    cr_expect(strstr(out, want), "%s", out);
    cr_expect(strstr(out, "  void matmul_tiled<32>(float const*, float const*, float*, int, int, int)\n"
                          "    symbol: _Z12matmul_tiledILi32EEvPKfS1_Pfiii\n"
                          "    parameters: 6 (.u64, .u64, .u64, .u32, .u32, .u32)\n"
                          "    launch bounds: none\n"
                          "    ptxas: 32 registers, 0 bytes spill stores, 0 bytes spill loads, 8192 bytes shared "
                          "memory, 0 bytes stack frame\n"),
              "%s", out);
    cr_expect(strstr(out, "launch_bounds.ptx: 5 kernels (ptxas -v -arch=sm_80)\n"
                          "  saxpy_lb256\n"
                          "    parameters: 4 (.u32, .f32, .u64, .u64)\n"
                          "    launch bounds: .maxntid 256,1,1\n"
                          "    ptxas: 10 registers, 0 bytes spill stores, 0 bytes spill loads, 0 bytes shared "
                          "memory, 0 bytes stack frame\n"),
              "%s", out);
    free(out);
    free(err);
}

/* The same four spellings in every command that takes --kernel. */
Test(list, kernel_by_demangled_name_everywhere)
{
    static const char *cmds[][6] = {
        {"cfg", NULL},
        {"divergence", NULL},
        {"uniformize", NULL},
        {"coalescing", NULL},
        {"analyze", NULL},
        {"regalloc", "--budget", "16", "-q", NULL},
        {"run", "--block", "8,8", "--arg", "zero", NULL},
    };
    static const char *names[] = {"matmul_tiled<16>", "void matmul_tiled<16>(float const*, float const*, float*, int, int, int)",
                                  "matmul_tiled<16", "_Z12matmul_tiledILi16EEvPKfS1_Pfiii"};
    for (size_t c = 0; c < sizeof cmds / sizeof cmds[0]; c++)
        for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
            char *argv[16], *out, *err;
            int n = 0;
            argv[n++] = BIN;
            argv[n++] = (char *)cmds[c][0];
            argv[n++] = (char *)tu_src(MATMUL);
            argv[n++] = "--kernel";
            argv[n++] = (char *)names[k];
            for (int i = 1; cmds[c][i]; i++) argv[n++] = (char *)cmds[c][i];
            argv[n] = NULL;
            int rc = tu_run(argv, &out, &err);
            /* run: six parameters, one --arg: a usage error that names the kernel found */
            if (!strcmp(cmds[c][0], "run")) {
                cr_expect_eq(rc, 2);
                cr_expect(strstr(err, "kernel 'void matmul_tiled<16>(float const*, float const*, float*, int, int, int)' "
                                 "takes 6 parameters"), "%s: %s",
                          names[k], err);
            } else {
                cr_expect_eq(rc, 0, "%s --kernel '%s': %s", cmds[c][0], names[k], err);
                /* the reports name only that kernel (uniformize and regalloc write the whole file) */
                if (c != 2 && c != 5)
                    cr_expect(!strstr(out, "ILi8EE") && !strstr(out, "ILi32EE"),
                              "%s --kernel %s: other kernels in %s", cmds[c][0], names[k], out);
            }
            free(out);
            free(err);
        }
}

Test(list, ambiguous_and_unknown_names_exit_2_with_the_kernels)
{
    static const char *cmds[] = {"cfg", "divergence", "uniformize", "coalescing", "analyze", "regalloc", "run"};
    static const char *list =
        "  void matmul_tiled<8>(float const*, float const*, float*, int, int, int)  [_Z12matmul_tiledILi8EEvPKfS1_Pfiii]\n"
        "  void matmul_tiled<16>(float const*, float const*, float*, int, int, int)  [_Z12matmul_tiledILi16EEvPKfS1_Pfiii]\n"
        "  void matmul_tiled<32>(float const*, float const*, float*, int, int, int)  [_Z12matmul_tiledILi32EEvPKfS1_Pfiii]\n"
        "  matmul_tiled_2x2(float const*, float const*, float*, int)  [_Z16matmul_tiled_2x2PKfS0_Pfi]\n";
    for (size_t c = 0; c < sizeof cmds / sizeof cmds[0]; c++)
        for (int unknown = 0; unknown < 2; unknown++) {
            char *out, *err, want[2048];
            const char *name = unknown ? "gemm" : "matmul_tiled";
            const char *what = !strcmp(cmds[c], "run") ? "kernel" : "function";
            char *argv[] = {BIN, (char *)cmds[c], (char *)tu_src(MATMUL), "--kernel", (char *)name,
                            "--budget", "8", "--block", "32", NULL};
            if (strcmp(cmds[c], "regalloc")) argv[5] = NULL;
            if (!strcmp(cmds[c], "run")) argv[5] = "--block", argv[6] = "32", argv[7] = NULL;
            cr_expect_eq(tu_run(argv, &out, &err), 2, "%s", cmds[c]);
            if (unknown)
                snprintf(want, sizeof want, "ptxray %s: %s: no %s named 'gemm'; give a symbol, a demangled name or a "
                         "prefix of one that only one %s has:\n%s", cmds[c], tu_src(MATMUL), what, what, list);
            else
                snprintf(want, sizeof want, "ptxray %s: %s: 'matmul_tiled' names 4 %ss; give a symbol, a demangled "
                         "name or a prefix of one that only one %s has:\n%s", cmds[c], tu_src(MATMUL), what, what, list);
            cr_expect_str_eq(err, want, "%s", cmds[c]);
            cr_expect_str_eq(out, "");
            free(out);
            free(err);
        }
}
