/* The project file, ptxray.yaml (report/config.c, docs/check.md "Stated
 * assumptions"): found upward from the inputs, --config, --no-config; a
 * shape by C++ name and glob for kernels no launch gives; a fact on a
 * parameter that clears a possible misalignment and is reported as used;
 * --strict-assumptions; suppressions with a reason, an expired one, one
 * without a reason; errors at their line and column. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"

#define BIN (char *)tu_bin()
#define PROJ "tests/data/config/proj/ptx"
#define CM PROJ "/constant_memory.ptx"
#define YAML "tests/data/config/proj/ptxray.yaml"

static char *run(char **argv, int want, char **err)
{
    tu_at_root();
    return tu_run_want(argv, want, err);
}

static const char *summary_line(const char *out)
{
    const char *s = strstr(out, "ptxray check: ");
    cr_assert(s, "no summary in %s", out);
    return s;
}

Test(config, found_upward_shapes_by_glob_and_suppression)
{
    char *err, *out = run((char *[]){BIN, "check", PROJ, NULL}, 1, &err);
    /* tile_transpose_smem<0> and <1>: no launch, the glob gives 32x8 */
    cr_assert(strstr(out, "tests/data/config/proj/ptx/tile_1d_to_2d.ptx:168:2: note: in void tile_transpose_smem<0>(float "
                          "const*, float*, int, int): 1 PTX instruction, 7 excess wavefronts, cost 7\n"
                          "tests/data/config/proj/ptx/tile_1d_to_2d.ptx:168:2: note: block 32x8x1 "
                          "(tests/data/config/proj/ptxray.yaml:4)\n"),
              "%s", out);
    cr_assert(strstr(out, "assumed: block shape from ptxray.yaml in 2 of 6 functions, else unknown, assumed blockDim.x "
                          "is a multiple of 32\n"),
              "%s", out);
    cr_assert_str_eq(summary_line(out),
                     "ptxray check: 2 files, 9 findings (uncoalesced 0, misaligned 6, bank-conflict 3; 4 proven, 5 "
                     "possible), 0 suppressed by the baseline, 1 suppressed by tests/data/config/proj/ptxray.yaml, 1 of 2 "
                     "assumptions used; failing on uncoalesced,misaligned,bank-conflict\n");
    /* camera_rays's misalignment is suppressed with its reason */
    cr_assert_null(strstr(out, "in camera_rays"), "%s", out);
    free(out);
    free(err);
}

Test(config, no_config_is_the_plain_run)
{
    char *out = run((char *[]){BIN, "check", "--no-config", PROJ, NULL}, 1, NULL);
    cr_assert_str_eq(summary_line(out), "ptxray check: 2 files, 11 findings (uncoalesced 0, misaligned 8, bank-conflict 3; "
                                        "3 proven, 8 possible), 0 suppressed by the baseline; failing on "
                                        "uncoalesced,misaligned,bank-conflict\n");
    cr_assert(strstr(out, "in camera_rays"), "%s", out);
    cr_assert_null(strstr(out, "ptxray.yaml"), "%s", out);
    free(out);
}

/* conv3x3_const(in, out, w, h): out[y * w + x] is possibly misaligned
 * (lane 0 known modulo 4 B); with w % 32 == 0 the store is aligned and
 * the finding goes, the loads at x - 1 and x + 1 become proven, and the
 * fact says what it changed */
Test(config, fact_clears_a_possible_misalignment_and_is_used)
{
    char *err, *out = run((char *[]){BIN, "check", CM, NULL}, 1, &err);
    cr_assert_null(strstr(out, "src/constant_memory.cu:37:3"), "%s", out);
    cr_assert(strstr(out, "src/constant_memory.cu:36:7: warning: misaligned global load: lane 0 is 124 B past a 128-byte "
                          "boundary, lanes 4 B apart (unit stride), 5 sectors/request, ideal 4 (4 if aligned) "
                          "[misaligned]\n"),
              "%s", out);
    cr_assert(strstr(out, "tests/data/config/proj/ptx/constant_memory.ptx:71:2: note: assuming w % 32 == 0 "
                          "(tests/data/config/proj/ptxray.yaml:8)\n"),
              "%s", out);
    /* the file has no tile_transpose_smem: a warning, not an error */
    cr_assert_str_eq(err, "tests/data/config/proj/ptxray.yaml:4:13: warning: kernel 'tile_transpose_smem<*>' names no "
                          "function of the files read\n"
                          "tests/data/config/proj/ptxray.yaml:8:9: note: assuming w % 32 == 0 (kernel conv3x3_const): "
                          "the verdicts of 10 PTX instructions changed; 1 finding cleared: src/constant_memory.cu:37 "
                          "[misaligned] in conv3x3_const\n");
    free(out);
    free(err);
    char *plain = run((char *[]){BIN, "check", "--no-config", CM, NULL}, 0, NULL);
    cr_assert(strstr(plain, "src/constant_memory.cu:37:3: warning: possible: misaligned global store"), "%s", plain);
    free(plain);
}

Test(config, strict_assumptions_lists_the_unused)
{
    char *err, *out = run((char *[]){BIN, "check", "--strict-assumptions", CM, NULL}, 1, &err);
    cr_assert(strstr(err, "tests/data/config/proj/ptxray.yaml:9:9: error: assumption 'h % 2 == 0' (kernel "
                          "conv3x3_const) changed no finding [--strict-assumptions]\n"),
              "%s", err);
    cr_assert_null(strstr(err, "'w % 32 == 0'"), "%s", err);
    /* the glob named tile_transpose_smem, which this file lacks */
    cr_assert(strstr(err, "tests/data/config/proj/ptxray.yaml:4:13: error: kernel 'tile_transpose_smem<*>' names no "
                          "function of the files read\n"),
              "%s", err);
    free(out);
    free(err);
}

Test(config, config_file_expired_suppression_fails)
{
    char *err, *out = run((char *[]){BIN, "check", "--config", "tests/data/config/expired.yaml", CM, NULL}, 1, &err);
    cr_assert_str_eq(err, "tests/data/config/expired.yaml:2:5: error: suppression of misaligned in camera_rays expired "
                          "on 2001-01-31 (reason: float4 rays; one extra sector per row accepted); renew or remove it\n");
    /* expired: it suppresses nothing any more */
    cr_assert(strstr(out, "in camera_rays"), "%s", out);
    cr_assert_null(strstr(out, "ptxray.yaml"), "%s", out);
    free(out);
    free(err);
}

Test(config, errors_at_their_position)
{
    struct {
        const char *file, *err;
    } cases[] = {
        {"tests/data/config/no_reason.yaml",
         "tests/data/config/no_reason.yaml:2:5: error: suppress: an entry needs 'reason': why the finding is accepted\n"
         "   - kernel: camera_rays\n"
         "     ^\n"},
        {"tests/data/config/typo.yaml",
         "tests/data/config/typo.yaml:3:5: error: kernels: unknown key 'asume' (expected kernel, block, assume)\n"
         "     asume:\n"
         "     ^\n"},
        {"tests/data/config/bad_yaml.yaml",
         "tests/data/config/bad_yaml.yaml:4:1: error: did not find expected ',' or ']' while parsing a flow sequence "
         "(line 3)\n"
         " \n"
         " ^\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *err, *out = run((char *[]){BIN, "check", "--config", (char *)cases[i].file, CM, NULL}, 2, &err);
        cr_assert_str_eq(out, "");
        cr_assert_str_eq(err, cases[i].err);
        free(out);
        free(err);
    }
}

/* A fact's syntax, checked where it is written */
Test(config, bad_fact)
{
    char dir[] = "/tmp/ptxray-configXXXXXX";
    cr_assert(mkdtemp(dir));
    char yaml[256], ptx[256];
    snprintf(yaml, sizeof yaml, "%s/ptxray.yaml", dir);
    snprintf(ptx, sizeof ptx, "%s/k.ptx", dir);
    FILE *f = fopen(yaml, "w");
    fputs("kernels:\n  - kernel: conv3x3_const\n    assume: [w % 24 == 0]\n", f);
    fclose(f);
    tu_at_root();
    char *src = tu_read(CM, NULL);
    f = fopen(ptx, "w");
    fputs(src, f);
    fclose(f);
    free(src);
    char *err, *out = run((char *[]){BIN, "check", ptx, NULL}, 2, &err);
    char want[512];
    snprintf(want, sizeof want,
             "%s:3:14: error: assume: 'w %% 24 == 0': the modulus must be a power of two from 2 to 4096 (the analysis "
             "knows an integer's low bits)\n"
             "     assume: [w %% 24 == 0]\n"
             "              ^\n",
             yaml);
    cr_assert_str_eq(err, want);
    free(out);
    free(err);
    tu_rm_rf(dir);
}

/* analyze reads the same file: the fact's finding says so */
Test(config, analyze_reads_it)
{
    char *err, *out = run((char *[]){BIN, "analyze", "--no-ptxas", CM, NULL}, 0, &err);
    cr_assert(strstr(out, "  1. [misaligned, proven] src/constant_memory.cu:36:7, PTX line 71 (6 instructions), cost 6\n"
                          "     misaligned global load: lane 0 is 124 B past a 128-byte boundary, lanes 4 B apart (unit "
                          "stride), 5 sectors/request, ideal 4 (4 if aligned)\n"
                          "     assuming w % 32 == 0 (tests/data/config/proj/ptxray.yaml:8)\n"),
              "%s", out);
    free(out);
    free(err);
    out = run((char *[]){BIN, "analyze", "--no-ptxas", "--no-config", CM, NULL}, 0, NULL);
    cr_assert_null(strstr(out, "assuming"), "%s", out);
    cr_assert(strstr(out, "src/constant_memory.cu:37:3"), "%s", out);
    free(out);
}

/* fail-on from the file; --fail-on on the command line wins */
Test(config, fail_on_from_the_file)
{
    char dir[] = "/tmp/ptxray-configXXXXXX";
    cr_assert(mkdtemp(dir));
    char yaml[256];
    snprintf(yaml, sizeof yaml, "%s/f.yaml", dir);
    FILE *f = fopen(yaml, "w");
    fputs("fail-on: none\n", f);
    fclose(f);
    char *out = run((char *[]){BIN, "check", "--config", yaml, PROJ, NULL}, 0, NULL);
    cr_assert(strstr(out, "; failing on none\n"), "%s", out);
    free(out);
    out = run((char *[]){BIN, "check", "--config", yaml, "--fail-on", "bank-conflict", PROJ, NULL}, 1, NULL);
    cr_assert(strstr(out, "; failing on bank-conflict\n"), "%s", out);
    free(out);
    tu_rm_rf(dir);
}

/* A fact naming no parameter of the kernels it applies to (a typo, or a
 * source name with no .cu in reach) is said at its line, an error under
 * --strict-assumptions; the fact beside it still applies. */
Test(config, fact_on_no_parameter_is_said)
{
    const char *want = "tests/data/config/no_param.yaml:6:9: %s: assumption 'wdth % 32 == 0': no function kernel "
                       "'conv3x3_const' names has a parameter 'wdth' (its name in the .cu, when the .cu is found, or "
                       "in the PTX)\n";
    char line[512], *err, *out = run((char *[]){BIN, "check", "--config", "tests/data/config/no_param.yaml", CM, NULL},
                                     1, &err);
    snprintf(line, sizeof line, want, "warning");
    cr_assert(strstr(err, line), "%s", err);
    cr_assert(strstr(summary_line(out), "1 of 2 assumptions used"), "%s", out);
    free(out);
    free(err);
    out = run((char *[]){BIN, "check", "--strict-assumptions", "--config", "tests/data/config/no_param.yaml", CM, NULL},
              1, &err);
    snprintf(line, sizeof line, want, "error");
    cr_assert(strstr(err, line), "%s", err);
    cr_assert_null(strstr(err, "'wdth % 32 == 0' (kernel conv3x3_const) changed no finding"), "said once: %s", err);
    free(out);
    free(err);
}

/* The finding an assumption changed says so in SARIF (properties.assumed)
 * and on analyze's HTML page, as in check's text and JSON; not without the
 * file. */
Test(config, sarif_and_html_say_the_assumption)
{
    const char *said = "w % 32 == 0 (tests/data/config/proj/ptxray.yaml:8)";
    char want[256], *err, *out = run((char *[]){BIN, "check", "--format", "sarif", CM, NULL}, 1, &err);
    snprintf(want, sizeof want, "\"assumed\": \"%s\"", said);
    cr_assert(strstr(out, want), "%s", out);
    free(out);
    free(err);
    /* without the fact the finding is possible, which fails no check */
    out = run((char *[]){BIN, "check", "--format", "sarif", "--no-config", CM, NULL}, 0, &err);
    cr_assert_null(strstr(out, "\"assumed\""), "%s", out);
    free(out);
    free(err);
    char dir[] = "/tmp/ptxray-configXXXXXX", page[64];
    cr_assert(mkdtemp(dir));
    snprintf(page, sizeof page, "%s/p.html", dir);
    free(run((char *[]){BIN, "analyze", "--format", "html", "--no-ptxas", CM, "-o", page, NULL}, 0, NULL));
    char *h = tu_read(page, NULL);
    cr_assert_not_null(h);
    snprintf(want, sizeof want, "<span class=\"assumed\">assuming %s</span>", said);
    cr_expect(strstr(h, want), "no '%s' on the page", want);
    free(h);
    free(run((char *[]){BIN, "analyze", "--format", "html", "--no-ptxas", "--no-config", CM, "-o", page, NULL}, 0,
             NULL));
    h = tu_read(page, NULL);
    cr_assert_not_null(h);
    cr_expect_null(strstr(h, "class=\"assumed\""));
    free(h);
    tu_rm_rf(dir);
}

/* coalescing reads the project file too: the same verdicts as check for
 * the accesses (the fact makes conv3x3_const's loads proven misaligned),
 * each changed access saying so in text, JSON and SARIF; suppressions are
 * check's, so camera_rays' access is still reported. */
Test(config, coalescing_reads_it)
{
    const char *said = "w % 32 == 0 (tests/data/config/proj/ptxray.yaml:8)";
    char want[256], *err, *out = run((char *[]){BIN, "coalescing", CM, NULL}, 0, &err);
    snprintf(want, sizeof want, "%s:71:2: note: assuming %s\n", CM, said);
    cr_assert(strstr(out, want), "%s", out);
    cr_assert(strstr(out, "lane 0 is 124 B past a 128-byte boundary"), "%s", out);
    cr_assert(strstr(out, "in camera_rays"), "%s", out);
    free(out);
    free(err);
    out = run((char *[]){BIN, "coalescing", "--format", "json", CM, NULL}, 0, &err);
    snprintf(want, sizeof want, "\"assumed\": \"%s\"", said);
    cr_assert(strstr(out, want), "%s", out);
    free(out);
    free(err);
    out = run((char *[]){BIN, "coalescing", "--format", "sarif", CM, NULL}, 0, &err);
    cr_assert(strstr(out, want), "%s", out);
    free(out);
    free(err);
    out = run((char *[]){BIN, "coalescing", "--no-config", CM, NULL}, 0, &err);
    cr_assert_null(strstr(out, "assuming"), "%s", out);
    cr_assert_null(strstr(out, "124 B past"), "%s", out);
    free(out);
    free(err);
}
