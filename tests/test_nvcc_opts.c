/* nvcc's options in `analyze FILE.cu` and `launches` (issue 38, item 2;
 * toolchain/nvcc_opts.c): each family in each of nvcc's spellings, with
 * its effect.  tests/data/nvflags/flags.cu takes its block shape and its
 * kernel's template arguments from the preprocessor options (-I, -D, -U,
 * -include, -std, -Xcompiler -D), so the report's kernel (the PTX nvcc
 * made) and the launch's shape beside it (what libclang read) show that
 * both saw the same headers and macros.  -arch/-gencode show in ptxas's
 * architecture; what reaches nvcc is read from a stand-in nvcc ($NVCC)
 * that writes its arguments down and runs the real one.  Without nvcc the
 * tests that compile are skipped. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "testutil.h"
#include "toolchain.h"

#define BIN (char *)tu_bin()
#define CU "tests/data/nvflags/flags.cu"
#define INC "tests/data/nvflags/inc"
#define PRE "tests/data/nvflags/pre.h"
#define TILE "ptx-corpus/sm_80/tile_1d_to_2d.ptx"
#define NOTE_IGNORED_END " ignored: analyze compiles " CU " to the PTX of one architecture"

static void need_nvcc(void)
{
    if (!tc_find_nvcc() || !tc_find_ptxas()) cr_skip_test("nvcc or ptxas not found");
}

/* `ptxray CMD FILE ARGS...` at the root (args NULL-terminated): its exit
 * status, stdout and stderr. */
static int run_cmd(const char *cmd, const char *file, const char *const *args, char **out, char **err)
{
    tu_at_root();
    char *argv[40];
    int n = 0;
    argv[n++] = BIN;
    argv[n++] = (char *)cmd;
    argv[n++] = (char *)file;
    for (int i = 0; args[i] && n < 39; i++) argv[n++] = (char *)args[i];
    argv[n] = NULL;
    return tu_run(argv, out, err);
}

/* analyze CU ARGS: exit 0, nothing on stderr, the kernel tile<r, d> (nvcc's
 * view) launched at 64 x r x d (libclang's), and ptxas at arch. */
static void expect_shape_arch(int r, int d, const char *arch, const char *const *args)
{
    char *out, *err;
    int rc = run_cmd("analyze", CU, args, &out, &err);
    cr_assert_eq(rc, 0, "%s", err);
    char want[512];
    snprintf(want, sizeof want,
             "\n== kernel void tile<%d, %d>(float*) ==\nsymbol: _Z4tileILi%dELi%dEEvPf\n"
             "block: 64x%dx%d (host-code launch at " CU ":25:22)\n",
             r, d, r, d, r, d);
    cr_expect(strstr(out, want) != NULL, "%s: want%s\ngot:\n%s", args[0], want, out);
    if (arch) {
        snprintf(want, sizeof want, "\nptxas: figures from ptxas -v -arch=%s\n", arch);
        cr_expect(strstr(out, want) != NULL, "%s: want %s\ngot:\n%s", args[0], want, out);
    }
    cr_expect_str_eq(err, "", "%s", args[0]);
    free(out);
    free(err);
}

#define SHAPE(r, d, ...) expect_shape_arch(r, d, NULL, (const char *const[]){__VA_ARGS__, NULL})
#define ARCH(arch, ...) expect_shape_arch(1, 1, arch, (const char *const[]){"-I", INC, __VA_ARGS__, NULL})

/* The header is found only through -I (nvcc fails without it), in every
 * spelling, also among a list's values and as -isystem. */
Test(nvcc_opts, include_path, .timeout = 300)
{
    need_nvcc();
    SHAPE(1, 1, "-I", INC);
    SHAPE(1, 1, "-I" INC);
    SHAPE(1, 1, "-I=" INC);
    SHAPE(1, 1, "--include-path", INC);
    SHAPE(1, 1, "--include-path=" INC);
    SHAPE(1, 1, "-Ino/such/dir," INC);
    SHAPE(1, 1, "-isystem", INC);
    SHAPE(1, 1, "--system-include=" INC);
    char *out, *err;
    cr_expect_eq(run_cmd("analyze", CU, (const char *const[]){"-DROWS=2", NULL}, &out, &err), 2);
    cr_expect(strstr(err, "nvflags_cfg.h: No such file or directory\n") != NULL, "%s", err);
    cr_expect(strstr(err, "ptxray analyze: " CU ": nvcc failed\n") != NULL, "%s", err);
    cr_expect_str_eq(out, "");
    free(out);
    free(err);
}

/* -D in every spelling (a list's values too) and -U after it. */
Test(nvcc_opts, define_undefine, .timeout = 300)
{
    need_nvcc();
    SHAPE(2, 1, "-I", INC, "-DROWS=2");
    SHAPE(2, 1, "-I", INC, "-D", "ROWS=2");
    SHAPE(2, 1, "-I", INC, "-D=ROWS=2");
    SHAPE(2, 1, "-I", INC, "--define-macro", "ROWS=2");
    SHAPE(2, 1, "-I", INC, "--define-macro=ROWS=2");
    SHAPE(3, 1, "-I", INC, "-DUNUSED,ROWS=3");
    SHAPE(1, 1, "-I", INC, "-DROWS=2", "-UROWS");
    SHAPE(1, 1, "-I", INC, "-DROWS=2", "-U", "ROWS");
    SHAPE(1, 1, "-I", INC, "--define-macro=ROWS=2", "--undefine-macro=ROWS");
    SHAPE(4, 1, "-I", INC, "-DROWS=2", "-UROWS", "-DROWS=4");
}

/* -include FILE (--pre-include): PRE is 3. */
Test(nvcc_opts, pre_include, .timeout = 300)
{
    need_nvcc();
    SHAPE(1, 3, "-I", INC, "-include", PRE);
    SHAPE(1, 3, "-I", INC, "--pre-include=" PRE);
    SHAPE(2, 3, "-I", INC, "--pre-include", PRE, "-DROWS=2");
}

/* -std: C++20 makes STD 2 (the file's inline variable needs C++17). */
Test(nvcc_opts, std, .timeout = 300)
{
    need_nvcc();
    SHAPE(1, 1, "-I", INC, "-std=c++17");
    SHAPE(1, 2, "-I", INC, "-std=c++20");
    SHAPE(1, 2, "-I", INC, "-std", "c++20");
    SHAPE(1, 2, "-I", INC, "--std=c++20");
    SHAPE(1, 6, "-I", INC, "--std", "c++20", "-include", PRE);
}

/* -Xcompiler: to nvcc (its host compiler preprocesses both sides), and its
 * -D/-U/-I items to libclang. */
Test(nvcc_opts, xcompiler, .timeout = 300)
{
    need_nvcc();
    SHAPE(5, 1, "-I", INC, "-Xcompiler", "-DROWS=5");
    SHAPE(5, 1, "-I", INC, "-Xcompiler=-Wall,-DROWS=5");
    SHAPE(5, 1, "-I", INC, "--compiler-options", "-DROWS=5");
    SHAPE(1, 1, "-I", INC, "-Xcompiler", "-DROWS=5,-UROWS");
    SHAPE(1, 1, "-Xcompiler", "-I" INC);
}

/* -arch in nvcc's spellings and analyze's --arch, the last one winning as
 * in nvcc; -gencode: the highest arch= when there is no -arch; -O3 and
 * the command line. */
Test(nvcc_opts, arch_gencode, .timeout = 300)
{
    need_nvcc();
    ARCH("sm_90", "-O3");
    ARCH("sm_75", "-arch", "sm_75");
    ARCH("sm_75", "-arch=sm_75");
    ARCH("sm_75", "--gpu-architecture=sm_75");
    ARCH("sm_75", "--gpu-architecture", "sm_75");
    ARCH("sm_75", "--arch", "sm_75");
    ARCH("sm_75", "-arch=compute_75");
    ARCH("sm_75", "-arch=sm_86", "-arch=sm_75");
    ARCH("sm_86", "-gencode", "arch=compute_75,code=sm_75", "-gencode=arch=compute_86,code=[sm_86,compute_86]",
         "--generate-code", "arch=compute_80,code=sm_80");
    ARCH("sm_80", "--generate-code=arch=compute_80,code=sm_80");
    ARCH("sm_75", "-arch=sm_75", "-gencode", "arch=compute_86,code=sm_86");
    expect_shape_arch(2, 1, "sm_90",
                      (const char *const[]){"-I", INC, "-DROWS=2", "-O3", "-arch=sm_90", "-std=c++17", NULL});
}

/* --options-file (-optf; CMake's response files): nvcc reads the files,
 * and their preprocessor options reach libclang too. */
Test(nvcc_opts, options_file, .timeout = 300)
{
    need_nvcc();
    char dir[] = "/tmp/ptxray-nvoXXXXXX", a[64], b[64];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(a, sizeof a, "%s/inc.rsp", dir);
    snprintf(b, sizeof b, "%s/defs.rsp", dir);
    FILE *f = fopen(a, "w");
    cr_assert_not_null(f);
    fputs("-I\"" INC "\"\n", f);
    fclose(f);
    f = fopen(b, "w");
    cr_assert_not_null(f);
    fputs("  -DROWS=2\t--pre-include " PRE "\n\n", f);
    fclose(f);
    char both[130];
    snprintf(both, sizeof both, "%s,%s", a, b);
    SHAPE(1, 1, "--options-file", a);
    SHAPE(2, 3, "-optf", both);
    SHAPE(2, 1, "-optf", a, "-DROWS=2");
    char *out, *err;
    cr_expect_eq(run_cmd("analyze", CU, (const char *const[]){"--options-file", "no/such.rsp", NULL}, &out, &err), 2);
    cr_expect_str_eq(err, "ptxray analyze: --options-file no/such.rsp: cannot read the file\n");
    free(out);
    free(err);
    cr_expect_eq(run_cmd("launches", CU, (const char *const[]){"-optf", both, NULL}, &out, &err), 0);
    static const char want[] = "_Z4tileILi2ELi3EEvPf  void tile<2, 3>(float*)  (" CU ":21)\n  64x2x3 from " CU
                               ":25:22 (<<<>>>)\n";
    cr_expect(!strncmp(out, want, strlen(want)), "%s", out);
    free(out);
    free(err);
    tu_rm_rf(dir);
}

/* What reaches nvcc: the options as given, in their order, after
 * analyze's -ptx -lineinfo -arch=ARCH (-gencode and -arch taken out);
 * other steps' options do not, with a note; -o is analyze's report; after
 * `--` everything goes as given. */
Test(nvcc_opts, nvcc_command_line, .timeout = 300)
{
    need_nvcc();
    char dir[] = "/tmp/ptxray-nvoXXXXXX", fake[64], log[64], rep[64];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(fake, sizeof fake, "%s/nvcc", dir);
    snprintf(log, sizeof log, "%s/args", dir);
    snprintf(rep, sizeof rep, "%s/report.txt", dir);
    FILE *f = fopen(fake, "w");
    cr_assert_not_null(f);
    fprintf(f, "#!/bin/sh\nfor a in \"$@\"; do printf '%%s\\n' \"$a\"; done > '%s'\nexec '%s' \"$@\"\n", log,
            tc_find_nvcc());
    fclose(f);
    cr_assert_eq(chmod(fake, 0755), 0);
    cr_assert_eq(setenv("NVCC", fake, 1), 0);
    char *out, *err;
    int rc = run_cmd("analyze", CU,
                     (const char *const[]){"-I", INC, "-O3", "-c", "--expt-relaxed-constexpr", "-Xcompiler", "-Wall",
                                           "-L/usr/lib", "-lcudart", "-gencode", "arch=compute_80,code=sm_80",
                                           "-lineinfo", "-rdc=true", "-code=sm_80", "-odir", "objs", "-o", rep,
                                           "--extended-lambda", "-w", "--", "-DROWS=2", NULL},
                     &out, &err);
    cr_assert_eq(rc, 0, "%s", err);
    cr_expect_str_eq(out, "");
    cr_expect_str_eq(err, "ptxray analyze: note: nvcc's -c, -L/usr/lib, -lcudart, -code=sm_80, -odir objs" NOTE_IGNORED_END
                          " (compute_80) in a temporary directory\n");
    char *args = tu_read(log, NULL);
    cr_assert_not_null(args);
    /* the PTX's temporary path masked */
    char *o = strstr(args, "\n-o\n/tmp/ptxray-analyze");
    cr_assert_not_null(o, "%s", args);
    char *e = strchr(o + 4, '\n');
    cr_assert_not_null(e);
    memmove(o + 4, e + 1, strlen(e + 1) + 1);
    cr_expect_str_eq(args, "-ptx\n-lineinfo\n-arch=compute_80\n-I\n" INC "\n-O3\n--expt-relaxed-constexpr\n"
                           "-Xcompiler\n-Wall\n-lineinfo\n-rdc=true\n--extended-lambda\n-w\n-DROWS=2\n-o\n" CU "\n");
    free(args);
    char *r = tu_read(rep, NULL);
    cr_assert_not_null(r);
    cr_expect(strstr(r, "ptxray analyze: " CU "\n") == r, "%s", r);
    /* `-- -DROWS=2` reached libclang too */
    cr_expect(strstr(r, "\n== kernel void tile<2, 1>(float*) ==\nsymbol: _Z4tileILi2ELi1EEvPf\n"
                        "block: 64x2x1 (host-code launch at " CU ":25:22)\n"),
              "%s", r);
    free(r);
    free(out);
    free(err);
    tu_rm_rf(dir);
}

/* Bad options: exit 2 and one line saying why, before anything runs. */
Test(nvcc_opts, bad_options)
{
    static const struct {
        const char *file, *args[4], *err;
    } cases[] = {
        {CU, {"-frobnicate"}, "ptxray analyze: unknown option '-frobnicate' (neither analyze's nor nvcc's; after `--` "
                              "options go to nvcc as they are)\n"},
        {CU, {"--form", "json"}, "ptxray analyze: unknown option '--form' (neither analyze's nor nvcc's; after `--` "
                                 "options go to nvcc as they are)\n"},
        {CU, {"-I"}, "ptxray analyze: -I needs a value\n"},
        {CU, {"--arch"}, "ptxray analyze: --arch needs a value\n"},
        {CU, {"-lineinfo=true"}, "ptxray analyze: -lineinfo takes no value\n"},
        {CU, {"-gencode", "sm_90"}, "ptxray analyze: -gencode sm_90: no arch= (nvcc's form: arch=compute_90,code=sm_90)\n"},
        {TILE, {"-DX=1"}, "ptxray analyze: " TILE ": -DX=1 is an option of nvcc, and a .ptx file is not compiled\n"},
        {TILE, {"-arch", "sm_80", TILE}, "ptxray analyze: several files: nvcc's options are for a .cu file, and .ptx "
                                         "files are not compiled\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *out, *err;
        cr_expect_eq(run_cmd("analyze", cases[i].file, cases[i].args, &out, &err), 2, "%s", cases[i].args[0]);
        cr_expect_str_eq(err, cases[i].err);
        cr_expect_str_eq(out, "");
        free(out);
        free(err);
    }
}

/* `ptxray launches` reads the same spellings through the same code; nvcc's
 * other options are accepted and mean nothing to it. */
Test(nvcc_opts, launches_spellings)
{
    static const struct {
        const char *args[12];
        int r, d;
    } cases[] = {
        {{"-I=" INC, "-D", "ROWS=2", "--pre-include=" PRE, "-std", "c++20"}, 2, 6},
        {{"--include-path", INC, "-O3", "-arch=sm_90", "-c", "-gencode", "arch=compute_80,code=sm_80", "-DROWS=3,UNUSED"}, 3, 1},
        {{"-I" INC, "-Xcompiler", "-Wall,-DROWS=4", "--expt-relaxed-constexpr"}, 4, 1},
        {{"-I" INC, "-DROWS=4", "--undefine-macro", "ROWS", "-include", PRE}, 1, 3},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *out, *err, want[512];
        cr_expect_eq(run_cmd("launches", CU, cases[i].args, &out, &err), 0, "%s", err);
        int r = cases[i].r, d = cases[i].d;
        snprintf(want, sizeof want,
                 "_Z4tileILi%dELi%dEEvPf  void tile<%d, %d>(float*)  (" CU ":21)\n  64x%dx%d from " CU
                 ":25:22 (<<<>>>)\n",
                 r, d, r, d, r, d);
        cr_expect(!strncmp(out, want, strlen(want)), "case %zu: want\n%s\ngot:\n%s", i, want, out);
        cr_expect_str_eq(err, "");
        free(out);
        free(err);
    }
}
