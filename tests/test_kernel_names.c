/* One way to name a kernel (issue 33, item 5): every option and file that
 * names one -- --kernel, --block KERNEL=, the launch file of --launches
 * (shapes for the analyses, runs for spillcost and run) -- takes the C++
 * name as `ptxray list` prints it, that name without return type and
 * parameters when one function has it, and the PTX symbol, through one
 * matcher (ptx_name_match); an unknown or ambiguous name exits 2 with the
 * file's C++ names.  tests/data/names/kernels.ptx has two instances of a
 * template (MatrixMulCUDA<16>, <32>), two overloads whose names without
 * parameters are the same (scale(float*, int), scale(double*, int)) and an
 * extern "C" kernel (scale_all). */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "testutil.h"
#include "names.h"

#define BIN (char *)tu_bin()
#define F "tests/data/names/kernels.ptx"
#define MM16 "void MatrixMulCUDA<16>(float*, float*, float*, int, int)"
#define MM16_SYM "_Z13MatrixMulCUDAILi16EEvPfS0_S0_ii"
#define MM32_SYM "_Z13MatrixMulCUDAILi32EEvPfS0_S0_ii"
#define SCALE_F_SYM "_Z5scalePfi"
#define SCALE_D_SYM "_Z5scalePdi"
/* what an unknown or ambiguous name lists: ptxray list's names */
#define LIST                                                                                                         \
    "  " MM16 "  [" MM16_SYM "]\n"                                                                                  \
    "  void MatrixMulCUDA<32>(float*, float*, float*, int, int)  [" MM32_SYM "]\n"                                  \
    "  scale(float*, int)  [" SCALE_F_SYM "]\n"                                                                      \
    "  scale(double*, int)  [" SCALE_D_SYM "]\n"                                                                     \
    "  scale_all\n"

/* The three names of MatrixMulCUDA<16>. */
static const char *const mm16_names[] = {MM16, "MatrixMulCUDA<16>", MM16_SYM};

/* ptxray ARGS... (NULL-terminated) at the repository root: exit status
 * want, stdout returned, stderr in *err (NULL: freed). */
static char *px(int want, char **err, ...)
{
    char *argv[40] = {BIN};
    int n = 1;
    va_list ap;
    va_start(ap, err);
    for (char *a; n < 39 && (a = va_arg(ap, char *));) argv[n++] = a;
    va_end(ap);
    argv[n] = NULL;
    tu_at_root();
    char *out, *e;
    int rc = tu_run(argv, &out, &e);
    cr_assert_eq(rc, want, "%s %s %s %s: exit %d: %s", argv[1], argv[2], argv[3], n > 4 ? argv[4] : "", rc, e);
    if (err) *err = e;
    else free(e);
    return out;
}

/* A launch file of text in a temporary directory (rm_file removes both). */
static char *write_file(const char *text)
{
    static char path[128];
    char dir[] = "/tmp/ptxray-knamesXXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/l.json", dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

static void rm_file(const char *path)
{
    char dir[128];
    snprintf(dir, sizeof dir, "%s", path);
    unlink(path);
    *strrchr(dir, '/') = 0;
    rmdir(dir);
}

/* coalescing's JSON: each kernel's symbol -> "x,y,z origin" of its block
 * (shape "-" for none); one string, kernels in file order. */
static char *shapes(char *out)
{
    json_error_t je;
    json_t *j = json_loads(out, 0, &je);
    cr_assert_not_null(j, "%s: %s", je.text, out);
    free(out);
    char *s = calloc(1, 4096);
    size_t i;
    json_t *k;
    json_array_foreach(json_object_get(j, "kernels"), i, k) {
        json_t *b = json_object_get(k, "block"), *sh = json_object_get(b, "shape");
        char shape[64] = "-";
        if (json_is_array(sh))
            snprintf(shape, sizeof shape, "%d,%d,%d", (int)json_integer_value(json_array_get(sh, 0)),
                     (int)json_integer_value(json_array_get(sh, 1)), (int)json_integer_value(json_array_get(sh, 2)));
        snprintf(s + strlen(s), 4096 - strlen(s), "%s %s %s\n", json_string_value(json_object_get(k, "symbol")),
                 shape, json_string_value(json_object_get(b, "origin")));
    }
    json_decref(j);
    return s;
}

/* The symbols of coalescing's kernels[] (what --kernel picked). */
static char *picked(char *out)
{
    char *s = shapes(out);
    for (char *p = s; (p = strchr(p, ' '));) { /* keep the symbols */
        char *nl = strchr(p, '\n');
        memmove(p, nl, strlen(nl) + 1);
    }
    return s;
}

#define DEFAULT "- default: blockDim.x a multiple of 32"

/* --kernel: the C++ name in full, without parameters, the symbol; an
 * overload by its full name; the name two overloads share and an unknown
 * one exit 2 with the list, in every command that has the option. */
Test(kernel_names, kernel_option)
{
    for (int i = 0; i < 3; i++) {
        char *s = picked(px(0, NULL, "coalescing", F, "--kernel", mm16_names[i], "--format", "json", NULL));
        cr_expect_str_eq(s, MM16_SYM "\n", "%s", mm16_names[i]);
        free(s);
    }
    char *s = picked(px(0, NULL, "coalescing", F, "--kernel", "scale(double*, int)", "--format", "json", NULL));
    cr_expect_str_eq(s, SCALE_D_SYM "\n");
    free(s);
    s = picked(px(0, NULL, "coalescing", F, "--kernel", "scale_all", "--format", "json", NULL));
    cr_expect_str_eq(s, "scale_all\n");
    free(s);
    /* --kernel's own: a prefix of one C++ name */
    s = picked(px(0, NULL, "coalescing", F, "--kernel", "MatrixMulCUDA<3", "--format", "json", NULL));
    cr_expect_str_eq(s, MM32_SYM "\n");
    free(s);

    static const char *const cmds[] = {"cfg", "divergence", "uniformize", "coalescing", "analyze", "regalloc", "run"};
    for (size_t c = 0; c < sizeof cmds / sizeof *cmds; c++) {
        bool ra = !strcmp(cmds[c], "regalloc"), run = !strcmp(cmds[c], "run");
        const char *what = run ? "kernel" : "function";
        for (int i = 0; i < 3; i++) {
            char *out = run ? px(0, NULL, "run", F, "--kernel", mm16_names[i], "--grid", "2", "--block", "16,16",
                                 "--arg", "buf:f32:512", "--arg", "buf:f32:512", "--arg", "buf:f32:512", "--arg",
                                 "i32:1", "--arg", "i32:16", NULL)
                      : ra ? px(0, NULL, "regalloc", F, "--kernel", mm16_names[i], "--budget", "8", "-q", NULL)
                           : px(0, NULL, cmds[c], F, "--kernel", mm16_names[i], NULL);
            if (run) cr_expect(strstr(out, "kernel " MM16 ", grid (2,1,1) x block (16,16,1): ok;"), "%s", out);
            /* regalloc and uniformize print PTX, coalescing's text names no
             * kernel without findings (its JSON is checked above) */
            else if (!ra && strcmp(cmds[c], "uniformize") && strcmp(cmds[c], "coalescing"))
                cr_expect(strstr(out, "MatrixMulCUDA<16>") && !strstr(out, "MatrixMulCUDA<32>"), "%s: %s",
                                    cmds[c], out);
            free(out);
        }
        static const struct {
            const char *name, *why;
        } bad[] = {{"scale", "'scale' names 2 %ss"}, {"nope", "no %s named 'nope'"}};
        for (int b = 0; b < 2; b++) {
            char *err, want[2048], why[64];
            char *out = ra ? px(2, &err, cmds[c], F, "--kernel", bad[b].name, "--budget", "8", NULL)
                           : px(2, &err, cmds[c], F, "--kernel", bad[b].name, "--block", "32", NULL);
            snprintf(why, sizeof why, bad[b].why, what);
            snprintf(want, sizeof want,
                     "ptxray %s: " F ": %s; give a symbol, a demangled name or a prefix of one that only one %s "
                     "has:\n" LIST,
                     cmds[c], why, what);
            cr_expect_str_eq(err, want, "%s", cmds[c]);
            cr_expect_str_eq(out, "");
            free(out);
            free(err);
        }
    }
}

/* --block KERNEL=: the three names of a template instance, an overload by
 * its full name, an extern "C" kernel; the shape goes to that function
 * alone. */
Test(kernel_names, block_option)
{
    for (int i = 0; i < 3; i++) {
        char arg[128];
        snprintf(arg, sizeof arg, "%s=16,16", mm16_names[i]);
        char *s = shapes(px(0, NULL, "coalescing", F, "--block", arg, "--format", "json", NULL));
        cr_expect_str_eq(s,
                         MM16_SYM " 16,16,1 --block KERNEL=\n" MM32_SYM " " DEFAULT "\n" SCALE_F_SYM " " DEFAULT
                                  "\n" SCALE_D_SYM " " DEFAULT "\nscale_all " DEFAULT "\n",
                         "%s", arg);
        free(s);
    }
    char *s = shapes(px(0, NULL, "coalescing", F, "--block", "scale(double*, int)=64", "--block", "scale_all=128",
                        "--block", "void MatrixMulCUDA<32>(float*, float*, float*, int, int)=32,8", "--format", "json",
                        NULL));
    cr_expect_str_eq(s, MM16_SYM " " DEFAULT "\n" MM32_SYM " 32,8,1 --block KERNEL=\n" SCALE_F_SYM " " DEFAULT
                        "\n" SCALE_D_SYM " 64,1,1 --block KERNEL=\nscale_all 128,1,1 --block KERNEL=\n");
    free(s);
}

/* --block with the name two overloads share, a template without its
 * arguments and an unknown name: exit 2 in every command, the list of C++
 * names where one file is read, nothing on stdout. */
Test(kernel_names, block_option_errors)
{
    static const char *const one[] = {"divergence", "uniformize", "coalescing", "analyze", "regalloc", "cfg"};
    static const struct {
        const char *arg, *why;
    } bad[] = {
        {"scale=64", "'scale' names several functions"},
        {"MatrixMulCUDA=16,16", "no function named 'MatrixMulCUDA'"},
        {"MatrixMulCUDA<3=16,16", "no function named 'MatrixMulCUDA<3'"}, /* no prefixes */
        {"nope=64", "no function named 'nope'"},
    };
    for (size_t c = 0; c < sizeof one / sizeof *one; c++)
        for (size_t b = 0; b < sizeof bad / sizeof *bad; b++) {
            char *err, want[2048];
            char *out = !strcmp(one[c], "regalloc")
                            ? px(2, &err, one[c], F, "--block", bad[b].arg, "--budget", "8", NULL)
                            : px(2, &err, one[c], F, "--block", bad[b].arg, NULL);
            snprintf(want, sizeof want,
                     "ptxray %s: --block '%s': " F ": %s; give its symbol or its C++ name, in full or without its "
                     "parameters:\n" LIST,
                     one[c], bad[b].arg, bad[b].why);
            cr_expect_str_eq(err, want, "%s", one[c]);
            cr_expect_str_eq(out, "");
            free(out);
            free(err);
        }
    /* commands that read several files check the names after them all */
    static const char *const several[] = {"check", "spillcost"};
    for (size_t c = 0; c < 2; c++) {
        char *err, want[512];
        bool sc = c == 1;
        char *out = sc ? px(2, &err, "spillcost", F, "--budgets", "8", "--block", "scale=64", NULL)
                       : px(2, &err, "check", F, "--block", "scale=64", NULL);
        snprintf(want, sizeof want,
                 "ptxray %s: --block 'scale=64': 'scale' names several functions of a file; give its symbol or its "
                 "C++ name in full (`ptxray list`)\n",
                 several[c]);
        cr_expect(strstr(err, want), "%s: %s", several[c], err);
        cr_expect_str_eq(out, "");
        free(out);
        free(err);
        out = sc ? px(2, &err, "spillcost", F, "--budgets", "8", "--block", "nope=64", NULL)
                 : px(2, &err, "check", F, "--block", "nope=64", NULL);
        snprintf(want, sizeof want, "ptxray %s: --block 'nope=64': no kernel named 'nope' in any file\n", several[c]);
        cr_expect(strstr(err, want), "%s: %s", several[c], err);
        free(out);
        free(err);
        /* and the names they take */
        out = sc ? px(0, NULL, "spillcost", F, "--budgets", "8", "--block", "MatrixMulCUDA<16>=16,16", NULL)
                 : px(0, NULL, "check", F, "--block", "MatrixMulCUDA<16>=16,16", "--block", "scale(float*, int)=64",
                      NULL);
        free(out);
    }
}

/* The launch file's shapes (--launches of the analyses): each kernel by any
 * of its names; a name of another file's kernel is no error (a launch
 * file describes the whole program), one naming two overloads is. */
Test(kernel_names, launch_file_shapes)
{
    char *lf = write_file("{\"kernels\": [\n"
                          " {\"name\": \"MatrixMulCUDA<16>\", \"shapes\": [{\"block\": [16, 16, 1]}]},\n"
                          " {\"name\": \"void MatrixMulCUDA<32>(float*, float*, float*, int, int)\", \"shapes\": "
                          "[{\"block\": [32, 8]}]},\n"
                          " {\"name\": \"" SCALE_D_SYM "\", \"shapes\": [{\"block\": [64]}]},\n"
                          " {\"name\": \"mysgemmNT\", \"shapes\": [{\"block\": [128]}]}\n"
                          "]}\n");
    char want[1024];
    snprintf(want, sizeof want,
             MM16_SYM " 16,16,1 host-code launch at %s\n" MM32_SYM " 32,8,1 host-code launch at %s\n" SCALE_F_SYM
                      " " DEFAULT "\n" SCALE_D_SYM " 64,1,1 host-code launch at %s\nscale_all " DEFAULT "\n",
             lf, lf, lf);
    char *s = shapes(px(0, NULL, "coalescing", F, "--launches", lf, "--format", "json", NULL));
    cr_expect_str_eq(s, want);
    free(s);
    char *out = px(0, NULL, "analyze", F, "--launches", lf, NULL);
    char *at = strstr(out, "== kernel " MM16 " ==\n");
    snprintf(want, sizeof want, "block: 16x16x1 (host-code launch at %s)\n", lf);
    cr_expect(at && strstr(at, want), "%s", out);
    free(out);
    free(px(0, NULL, "check", F, "--launches", lf, NULL));
    free(px(0, NULL, "divergence", F, "--launches", lf, NULL));
    rm_file(lf);

    lf = write_file("{\"kernels\": [{\"name\": \"scale\", \"shapes\": [{\"block\": [64]}]}]}\n");
    char *err;
    out = px(2, &err, "coalescing", F, "--launches", lf, NULL);
    snprintf(want, sizeof want,
             "ptxray coalescing: --launches: " F ": 'scale' names several functions; give its symbol or its C++ "
             "name, in full or without its parameters:\n" LIST);
    cr_expect_str_eq(err, want);
    cr_expect_str_eq(out, "");
    free(out);
    free(err);
    rm_file(lf);
}

/* The launch file's runs: spillcost runs each at the kernel its name
 * picks (the C++ name without parameters, an overload in full); a name in
 * none of the files, and one two overloads share, exit 2 with the list. */
Test(kernel_names, launch_file_runs_spillcost)
{
    char *lf = write_file(
        "{\"kernels\": [\n"
        " {\"name\": \"MatrixMulCUDA<16>\", \"shapes\": [{\"block\": [16, 16], \"launches\": [{\"grid\": [2], "
        "\"args\": [\"buf:f32:512\", \"buf:f32:512:iota\", \"buf:f32:512:rand:3\", \"i32:3\", \"i32:16\"]}]}]},\n"
        " {\"name\": \"scale(double*, int)\", \"shapes\": [{\"block\": [64], \"launches\": [{\"grid\": [1], "
        "\"args\": [\"buf:f64:64:iota\", \"i32:3\"]}]}]}\n"
        "]}\n");
    char *out = px(0, NULL, "spillcost", F, "--budgets", "4", "--launches", lf, "--format", "json", NULL);
    json_error_t je;
    json_t *j = json_loads(out, 0, &je);
    cr_assert_not_null(j, "%s", je.text);
    size_t i;
    json_t *r;
    unsigned ran = 0;
    json_array_foreach(json_object_get(j, "rows"), i, r) {
        const char *sym = json_string_value(json_object_get(r, "symbol"));
        bool ptxas = !strcmp(json_string_value(json_object_get(r, "mode")), "ptxas");
        bool want = !ptxas && (!strcmp(sym, MM16_SYM) || !strcmp(sym, SCALE_D_SYM));
        json_t *d = json_object_get(r, "dynamic");
        cr_expect_eq(d != NULL, want, "%s", sym);
        if (d) {
            cr_expect_eq(json_integer_value(json_object_get(d, "launches")), 1, "%s", sym);
            cr_expect_eq(json_integer_value(json_object_get(d, "differ")), 0, "%s", sym);
            ran++;
        }
    }
    cr_expect_eq(ran, 6, "two kernels in three modes");
    json_decref(j);
    free(out);
    rm_file(lf);

    static const struct {
        const char *name, *want;
    } bad[] = {
        {"mysgemmNT", "ptxray spillcost: %s: kernels[0].shapes[0].launches[0]: no kernel named 'mysgemmNT' in the "
                      "files; give its symbol or its C++ name, in full or without its parameters:\n" LIST},
        {"scale", "ptxray spillcost: %s: kernels[0].shapes[0].launches[0]: 'scale' names 2 kernels of " F
                  "; give its symbol or its C++ name, in full or without its parameters:\n" LIST},
    };
    for (int b = 0; b < 2; b++) {
        char text[512], want[2048], *err;
        snprintf(text, sizeof text,
                 "{\"kernels\": [{\"name\": \"%s\", \"shapes\": [{\"block\": [64], \"launches\": [{\"grid\": [1], "
                 "\"args\": [\"buf:f32:64\", \"i32:3\"]}]}]}]}\n",
                 bad[b].name);
        lf = write_file(text);
        out = px(2, &err, "spillcost", F, "--budgets", "4", "--launches", lf, NULL);
        snprintf(want, sizeof want, bad[b].want, lf);
        cr_expect_str_eq(err, want, "%s", bad[b].name);
        cr_expect_str_eq(out, "");
        free(out);
        free(err);
        rm_file(lf);
    }
}

/* run --launches: the kernel's run from the launch file, the same as the
 * options; the file naming it by its C++ name, run picking it by its
 * symbol; no run of the kernel is an error naming the file's. */
Test(kernel_names, launch_file_runs_run)
{
    char *lf = write_file(
        "{\"kernels\": [\n"
        " {\"name\": \"" MM16 "\", \"shapes\": [{\"block\": [16, 16], \"launches\": [{\"grid\": [2], "
        "\"args\": [\"out=buf:f32:512\", \"buf:f32:512:iota\", \"buf:f32:512:rand:3\", \"i32:3\", \"i32:16\"]}]}]}\n"
        "]}\n");
    char *a = px(0, NULL, "run", F, "--kernel", MM16_SYM, "--launches", lf, "--print", "out:512", "--format", "json",
                 NULL);
    char *b = px(0, NULL, "run", F, "--kernel", "MatrixMulCUDA<16>", "--grid", "2", "--block", "16,16", "--arg",
                 "out=buf:f32:512", "--arg", "buf:f32:512:iota", "--arg", "buf:f32:512:rand:3", "--arg", "i32:3",
                 "--arg", "i32:16", "--print", "out:512", "--format", "json", NULL);
    cr_expect_str_eq(a, b);
    cr_expect(strstr(a, "\"block\": [16, 16, 1]") || strstr(a, "\"block\": [\n"), "%s", a);
    free(a);
    free(b);
    char *err;
    char *out = px(2, &err, "run", F, "--kernel", "scale(float*, int)", "--launches", lf, NULL);
    char want[512];
    snprintf(want, sizeof want, "ptxray run: --launches %s: no run of scale(float*, int); the file has runs of:\n  " MM16 "\n",
             lf);
    cr_expect_str_eq(err, want);
    cr_expect_str_eq(out, "");
    free(out);
    free(err);
    out = px(2, &err, "run", F, "--kernel", MM16_SYM, "--launches", lf, "--grid", "2", NULL);
    cr_expect_str_eq(err, "ptxray run: --launches gives the grid, block and arguments: no --grid, --block or --arg "
                          "with it\n");
    free(out);
    free(err);
    rm_file(lf);
}
