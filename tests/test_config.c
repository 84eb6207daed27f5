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
                     "ptxray check: 2 files, 9 findings (uncoalesced 0, misaligned 6, bank-conflict 3, divergent-barrier 0, "
                     "divergent-collective 0; 4 proven, 5 possible), 0 suppressed by the baseline, 1 suppressed by "
                     "tests/data/config/proj/ptxray.yaml, 1 of 2 assumptions used; failing on "
                     "uncoalesced,misaligned,bank-conflict,divergent-barrier,divergent-collective\n");
    /* camera_rays's misalignment is suppressed with its reason */
    cr_assert_null(strstr(out, "in camera_rays"), "%s", out);
    free(out);
    free(err);
}

Test(config, no_config_is_the_plain_run)
{
    char *out = run((char *[]){BIN, "check", "--no-config", PROJ, NULL}, 1, NULL);
    cr_assert_str_eq(summary_line(out), "ptxray check: 2 files, 11 findings (uncoalesced 0, misaligned 8, bank-conflict 3, "
                                        "divergent-barrier 0, divergent-collective 0; 3 proven, 8 possible), 0 "
                                        "suppressed by the baseline; failing on "
                                        "uncoalesced,misaligned,bank-conflict,divergent-barrier,divergent-collective\n");
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

/* analyze applies the project file's suppressions as check does: the
 * finding is in no view (text, its summary table, JSON, SARIF, HTML), and
 * each says how many were suppressed and by which file; an expired
 * suppression suppresses nothing and is a warning (analyze gates nothing). */
Test(config, analyze_applies_suppressions)
{
    const char *by = "suppressed: 1 finding by tests/data/config/proj/ptxray.yaml\n";
    char *err, *out = run((char *[]){BIN, "analyze", "--no-ptxas", CM, NULL}, 0, &err);
    cr_assert(strstr(out, by), "%s", out);
    cr_assert(strstr(out, "  camera_rays                   -            -           -              -               0/1"
                          "            0              1\n"),
              "%s", out);
    cr_assert_null(strstr(out, "[misaligned, possible] src/constant_memory.cu:53"), "%s", out);
    free(out);
    free(err);
    out = run((char *[]){BIN, "analyze", "--no-ptxas", "--no-config", CM, NULL}, 0, NULL);
    cr_assert_null(strstr(out, "suppressed:"), "%s", out);
    cr_assert(strstr(out, "  camera_rays                   -            -         0/1              -               0/1"
                          "            0              2\n"),
              "%s", out);
    free(out);
    out = run((char *[]){BIN, "analyze", "--no-ptxas", "--format", "json", CM, NULL}, 0, NULL);
    cr_assert(strstr(out, "  \"suppressed\": {\n    \"findings\": 1,\n    \"by\": \"tests/data/config/proj/ptxray.yaml\"\n"),
              "%s", out);
    free(out);
    /* SARIF: 6 results without the file; the fact clears one, the suppression another */
    size_t n[2];
    for (int c = 0; c < 2; c++) {
        out = run((char *[]){BIN, "analyze", "--no-ptxas", "--format", "sarif", c ? "--no-config" : "--config", c ? CM : YAML,
                             c ? NULL : CM, NULL},
                  0, NULL);
        n[c] = 0;
        for (const char *p = out; (p = strstr(p, "\"ruleId\"")); p++) n[c]++;
        cr_expect_eq(strstr(out, "camera_rays") && strstr(strstr(out, "camera_rays"), "misaligned") ? 1 : 0,
                     c ? 1 : 0);
        free(out);
    }
    cr_assert_eq(n[0], 4);
    cr_assert_eq(n[1], 6);
    char dir[] = "/tmp/ptxray-configXXXXXX", page[64];
    cr_assert(mkdtemp(dir));
    snprintf(page, sizeof page, "%s/p.html", dir);
    free(run((char *[]){BIN, "analyze", "--format", "html", "--no-ptxas", CM, "-o", page, NULL}, 0, NULL));
    char *h = tu_read(page, NULL);
    cr_assert_not_null(h);
    cr_expect(strstr(h, "<p>suppressed: 1 finding by tests/data/config/proj/ptxray.yaml</p>\n<table"));
    free(h);
    tu_rm_rf(dir);
    out = run((char *[]){BIN, "analyze", "--no-ptxas", "--config", "tests/data/config/expired.yaml", CM, NULL}, 0, &err);
    cr_assert_str_eq(err, "tests/data/config/expired.yaml:2:5: warning: suppression of misaligned in camera_rays expired "
                          "on 2001-01-31 (reason: float4 rays; one extra sector per row accepted); renew or remove it\n");
    cr_assert(strstr(out, "suppressed: 0 findings by tests/data/config/expired.yaml\n"), "%s", out);
    free(out);
    free(err);
}

/* The project file's shapes reach every command that analyses divergence:
 * a branch on %tid.y is warp-uniform at the default shape (blockDim.x a
 * multiple of 32) and splits warps at 16x16, which the file states. */
static const char ytest_ptx[] = ".version 7.0\n.target sm_80\n.address_size 64\n\n"
                                ".visible .entry ytest(.param .u64 p)\n{\n"
                                "\t.reg .pred %p<2>;\n\t.reg .b32 %r<3>;\n\t.reg .b64 %rd<3>;\n\n"
                                "\tld.param.u64 %rd1, [p];\n\tmov.u32 %r1, %tid.y;\n"
                                "\tsetp.ne.s32 %p1, %r1, 0;\n\t@%p1 bra $L_end;\n"
                                "\tcvta.to.global.u64 %rd2, %rd1;\n\tmov.u32 %r2, 1;\n\tst.global.u32 [%rd2], %r2;\n"
                                "$L_end:\n\tret;\n}\n";

Test(config, shapes_reach_divergence_cfg_and_uniformize)
{
    char dir[] = "/tmp/ptxray-configXXXXXX", ptx[64], yaml[64], o1[64], o2[64];
    cr_assert(mkdtemp(dir));
    snprintf(ptx, sizeof ptx, "%s/y.ptx", dir);
    snprintf(yaml, sizeof yaml, "%s/ptxray.yaml", dir);
    snprintf(o1, sizeof o1, "%s/u1.ptx", dir);
    snprintf(o2, sizeof o2, "%s/u2.ptx", dir);
    FILE *f = fopen(ptx, "w");
    cr_assert(f);
    fputs(ytest_ptx, f);
    fclose(f);
    f = fopen(yaml, "w");
    cr_assert(f);
    fputs("kernels:\n  - kernel: ytest\n    block: [16, 16]\n", f);
    fclose(f);
    char want[256], *err, *out = run((char *[]){BIN, "divergence", "--values", "none", ptx, NULL}, 0, &err);
    snprintf(want, sizeof want, "  block shape: 16,16,1 (from %s:2)\n", yaml);
    cr_assert(strstr(out, want), "%s", out);
    cr_assert(strstr(out, "divergent"), "%s", out);
    cr_assert_str_eq(err, "");
    free(out);
    free(err);
    out = run((char *[]){BIN, "divergence", "--values", "none", "--no-config", ptx, NULL}, 0, NULL);
    cr_assert(strstr(out, "  block shape: unknown; assumed blockDim.x is a multiple of 32"), "%s", out);
    free(out);
    out = run((char *[]){BIN, "divergence", "--summary", ptx, NULL}, 0, NULL);
    cr_assert(strstr(out, "ytest "), "%s", out);
    free(out);
    /* uniformize: at 16x16 the branch splits warps; at 32x8 (a second
     * file, by --config) it is uniform and marked; at the default it is
     * uniform only if blockDim.x is a multiple of 32, and left as written */
    free(run((char *[]){BIN, "uniformize", ptx, "-o", o1, NULL}, 0, &err));
    cr_assert(strstr(err, "0 rewritten to .uni, 0 already .uni, 1 left divergent; affine analysis, block shape from "
                          "ptxray.yaml,"),
              "%s", err);
    free(err);
    char *a = tu_read(o1, NULL);
    cr_assert_str_eq(a, ytest_ptx);
    free(a);
    char yaml2[64];
    snprintf(yaml2, sizeof yaml2, "%s/other.yaml", dir);
    f = fopen(yaml2, "w");
    cr_assert(f);
    fputs("kernels:\n  - kernel: ytest\n    block: [32, 8]\n", f);
    fclose(f);
    free(run((char *[]){BIN, "uniformize", "--config", yaml2, ptx, "-o", o2, NULL}, 0, &err));
    cr_assert(strstr(err, "1 rewritten to .uni"), "%s", err);
    free(err);
    a = tu_read(o2, NULL);
    cr_assert(strstr(a, "@%p1 bra.uni $L_end;"), "%s", a);
    free(a);
    free(run((char *[]){BIN, "uniformize", "--no-config", ptx, "-o", o2, NULL}, 0, &err));
    cr_assert(strstr(err, "0 rewritten to .uni, 0 already .uni, 0 left divergent, 1 left as written"), "%s", err);
    free(err);
    /* cfg's DOT: the branch's block red (not proven uniform) at 16x16, not at the default */
    char *d1 = run((char *[]){BIN, "cfg", "--format", "dot", ptx, NULL}, 0, NULL);
    char *d2 = run((char *[]){BIN, "cfg", "--format", "dot", "--no-config", ptx, NULL}, 0, NULL);
    cr_assert_str_neq(d1, d2);
    char *d3 = run((char *[]){BIN, "cfg", "--format", "dot", "--no-config", "--block", "16,16", ptx, NULL}, 0, NULL);
    cr_assert_str_eq(d1, d3);
    free(d1);
    free(d2);
    free(d3);
    tu_rm_rf(dir);
}

/* regalloc reads the project file's shapes too (below --block): every
 * kernel at 16x16 by a glob gives the PTX --block 16,16 gives, whose
 * uniform and affine classes are not those of the default shape. */
Test(config, regalloc_reads_its_shapes)
{
    char dir[] = "/tmp/ptxray-configXXXXXX", ptx[64], yaml[64];
    cr_assert(mkdtemp(dir));
    snprintf(ptx, sizeof ptx, "%s/m.ptx", dir);
    snprintf(yaml, sizeof yaml, "%s/ptxray.yaml", dir);
    size_t len;
    char *text = tu_read(tu_src("ptx-corpus/sm_80/matmul_tiled.ptx"), &len);
    cr_assert(text);
    FILE *f = fopen(ptx, "w");
    cr_assert(f);
    fwrite(text, 1, len, f);
    fclose(f);
    free(text);
    f = fopen(yaml, "w");
    cr_assert(f);
    fputs("kernels:\n  - kernel: \"*\"\n    block: [16, 16]\n", f);
    fclose(f);
    const char *at16 = "pressure 29 -> 15 units (.pred 3); 14 spilled (uniform 10, affine 4, divergent 0)\n";
    const char *dflt = "pressure 29 -> 15 units (.pred 3); 14 spilled (uniform 12, affine 2, divergent 0)\n";
    char *err, *out = run((char *[]){BIN, "regalloc", ptx, "--budget", "16", NULL}, 0, &err);
    cr_assert(strstr(err, at16), "%s", err);
    char *blk = run((char *[]){BIN, "regalloc", ptx, "--budget", "16", "--no-config", "--block", "16,16", NULL}, 0, NULL);
    cr_assert_str_eq(out, blk);
    free(blk);
    free(out);
    free(err);
    out = run((char *[]){BIN, "regalloc", ptx, "--budget", "16", "--no-config", NULL}, 0, &err);
    cr_assert(strstr(err, dflt), "%s", err);
    free(out);
    free(err);
    tu_rm_rf(dir);
}
