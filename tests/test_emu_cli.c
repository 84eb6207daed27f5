/* ptxray run as a user runs it: argument specifications, dumps and prints,
 * reports, exit statuses, messages. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "testutil.h"

#define BIN (char *)tu_bin()

static char *corpus(const char *rel)
{
    static char buf[8][4096];
    static int k;
    k = (k + 1) % 8;
    snprintf(buf[k], sizeof buf[k], "%s", tu_src(rel));
    return buf[k];
}

/* splitmix64 as documented for rand:SEED */
static uint64_t sm(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

Test(emu_cli, help_documents_the_specs)
{
    char *out, *err;
    char *a[] = {BIN, "run", "--help", NULL};
    cr_assert_eq(tu_run(a, &out, &err), 0);
    cr_expect(strstr(out, "[NAME=]buf:TYPE:COUNT[:INIT]") != NULL);
    cr_expect(strstr(out, "rand:SEED[:LO:HI]") != NULL);
    cr_expect(strstr(out, "--racecheck") != NULL);
    cr_expect(strstr(out, "Exit status") != NULL);
    free(out); free(err);
    char *b[] = {BIN, "--help", NULL};
    cr_assert_eq(tu_run(b, &out, &err), 0);
    cr_expect(strstr(out, "run ") != NULL);
    free(out); free(err);
}

Test(emu_cli, run_dump_print_and_rand_data)
{
    char dir[] = "/tmp/ptxray-runXXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char dump[4200];
    snprintf(dump, sizeof dump, "%s/y.bin", dir);
    char dumparg[4300];
    snprintf(dumparg, sizeof dumparg, "y=%s", dump);
    char *out, *err;
    /* saxpy: y = a x + y on rand data; the dump must equal a C computation */
    char *a[] = {BIN, "run", corpus("ptx-corpus/sm_80/launch_bounds.ptx"), "--kernel", "saxpy_unbounded",
                 "--grid", "4", "--block", "256", "--arg", "i32:1000", "--arg", "f32:2.5",
                 "--arg", "x=buf:f32:1000:rand:11:-1:1", "--arg", "y=buf:f32:1000:iota:0:0.5",
                 "--dump", dumparg, "--print", "y:4", NULL};
    cr_assert_eq(tu_run(a, &out, &err), 0, "%s", err);
    cr_expect(strstr(out, "kernel saxpy_unbounded, grid (4,1,1) x block (256,1,1): ok; ") != NULL, "%s", out);
    size_t len;
    char *bytes = tu_read(dump, &len);
    cr_assert_eq(len, 4000u);
    float y[1000];
    memcpy(y, bytes, 4000);
    uint64_t st = 11;
    for (int i = 0; i < 1000; i++) {
        float x = (float)(-1.0 + 2.0 * ((double)(sm(&st) >> 11) * 0x1p-53));
        float want = 2.5f * x + 0.5f * (float)i;
        cr_assert(fabsf(y[i] - want) <= 1e-6f * fabsf(want) + 1e-6f, "y[%d] = %.9g want %.9g", i, y[i], want);
    }
    char want4[256];
    snprintf(want4, sizeof want4, "y: %.9g %.9g %.9g %.9g\n", y[0], y[1], y[2], y[3]);
    cr_expect(strstr(out, want4) != NULL, "%s vs %s", out, want4);
    free(bytes); free(out); free(err);
    /* integer rand range */
    char *b[] = {BIN, "run", corpus("ptx-corpus/sm_80/templates_generic.ptx"), "--kernel",
                 "_ZN6ptxray6corpus10map_kernelIiNS0_5ClampIiEEEEvPKT_PS4_iT0_", "--block", "64",
                 "--arg", "x=buf:i32:100:rand:5:-20:20", "--arg", "y=buf:i32:100", "--arg", "i32:100",
                 "--arg", "struct:i32:-10,i32:10", "--print", "y:100", "-q", NULL};
    cr_assert_eq(tu_run(b, &out, &err), 0, "%s", err);
    char expect[2048] = "y:";
    st = 5;
    for (int i = 0; i < 100; i++) {
        int v = -20 + (int)(sm(&st) % 41);
        v = v < -10 ? -10 : v > 10 ? 10 : v;
        char t[16];
        snprintf(t, sizeof t, " %d", v);
        strcat(expect, t);
    }
    strcat(expect, "\n");
    cr_expect_str_eq(out, expect);
    free(out); free(err);
    snprintf(want4, sizeof want4, "rm -rf %s", dir);
    cr_expect_eq(system(want4), 0);
}

Test(emu_cli, set_symbols_and_json_report)
{
    char *out, *err;
    /* c_lut (uninitialised .const) set from the command line */
    char *a[] = {BIN, "run", corpus("ptx-corpus/sm_80/constant_memory.ptx"), "--kernel", "lut_translate",
                 "--block", "32", "--set", "c_lut=u32:iota:1000", "--arg", "buf:u8:32:iota",
                 "--arg", "o=buf:u32:32", "--arg", "i32:32", "--print", "o:3", "-q", NULL};
    cr_assert_eq(tu_run(a, &out, &err), 0, "%s", err);
    /* out[i] = lut[(i*16 + (i & 15)) & 4095] ^ primes[i & 15] with lut[k] = 1000 + k */
    cr_expect_str_eq(out, "o: 1002 1018 1039\n", "%s", out);
    free(out); free(err);
    char *b[] = {BIN, "run", corpus("ptx-corpus/sm_80/transpose_bank_conflict.ptx"), "--kernel",
                 "transpose_tiled_conflicting", "--grid", "1,1", "--block", "32,8", "--arg", "buf:f32:1024",
                 "--arg", "buf:f32:1024:rand:1", "--arg", "i32:32", "--arg", "i32:32", "--bankcheck",
                 "--coalescing", "--racecheck", "--format", "json", NULL};
    cr_assert_eq(tu_run(b, &out, &err), 0, "%s", err);
    json_error_t je;
    json_t *root = json_loads(out, 0, &je);
    cr_assert_not_null(root, "%s", je.text);
    cr_expect_str_eq(json_string_value(json_object_get(root, "status")), "ok");
    json_t *bk = json_object_get(root, "bank_conflicts"), *e;
    size_t i;
    long long worst = 0;
    json_array_foreach(bk, i, e) if (json_integer_value(json_object_get(e, "ways_max")) > worst) worst = json_integer_value(json_object_get(e, "ways_max"));
    cr_expect_eq(worst, 32);
    cr_expect_eq(json_array_size(json_object_get(root, "races")), 0);
    cr_expect_gt(json_array_size(json_object_get(root, "coalescing")), 0);
    json_decref(root);
    free(out); free(err);
}

Test(emu_cli, exit_statuses_and_messages)
{
    char *out, *err;
    const char *f = corpus("ptx-corpus/sm_80/sampaio_divergence.ptx");
    /* bad specs: 2 with the argument named */
    char *a[] = {BIN, "run", (char *)f, "--kernel", "avgSquare", "--block", "32", "--arg", "buf:f33:10", "--arg",
                 "buf:f32:10", "--arg", "i32:3", NULL};
    cr_assert_eq(tu_run(a, &out, &err), 2);
    cr_expect(strstr(err, "--arg 1 'buf:f33:10' (parameter avgSquare_param_0): unknown element type 'f33'") != NULL, "%s", err);
    free(out); free(err);
    char *b[] = {BIN, "run", (char *)f, "--kernel", "avgSquare", "--block", "32", "--arg", "i32:1", NULL};
    cr_assert_eq(tu_run(b, &out, &err), 2);
    cr_expect(strstr(err, "kernel 'avgSquare' takes 3 parameters, 1 --arg given") != NULL, "%s", err);
    free(out); free(err);
    char *c[] = {BIN, "run", (char *)f, "--kernel", "avgSquare", "--block", "32", "--arg", "buf:f32:10", "--arg",
                 "buf:f32:10", "--arg", "i64:3", NULL};
    cr_assert_eq(tu_run(c, &out, &err), 2);
    cr_expect(strstr(err, "a i64 value has 8 bytes but the parameter has 4") != NULL, "%s", err);
    free(out); free(err);
    char *d[] = {BIN, "run", (char *)f, "--block", "32", NULL};
    cr_assert_eq(tu_run(d, &out, &err), 2);
    cr_expect(strstr(err, "has 3 kernels; name one with --kernel:\n  avgSquare\n  sumTriangle\n  s\n") != NULL, "%s", err);
    free(out); free(err);
    char *g[] = {BIN, "run", (char *)f, "--kernel", "s", "--block", "2000", "--arg", "buf:i32:4", "--arg", "i32:1", NULL};
    cr_assert_eq(tu_run(g, &out, &err), 2);
    free(out); free(err);
    char *g2[] = {BIN, "run", (char *)f, "--kernel", "s", "--block", "x", NULL};
    cr_assert_eq(tu_run(g2, &out, &err), 2);
    cr_expect(strstr(err, "--block 'x': expected X[,Y[,Z]]") != NULL, "%s", err);
    free(out); free(err);
    /* a kernel fault: 1, with position and address */
    char *h[] = {BIN, "run", (char *)f, "--kernel", "s", "--block", "32", "--arg", "m=buf:i32:10", "--arg", "i32:4", NULL};
    cr_assert_eq(tu_run(h, &out, &err), 1);
    cr_expect(strstr(err, "sampaio_divergence.ptx:") != NULL && strstr(err, ": error: in 'st.global.u32': out-of-bounds .global store of 4 bytes at 0x") != NULL,
              "%s", err);
    cr_expect(strstr(err, "nearest buffer 'm'") != NULL, "%s", err);
    free(out); free(err);
    /* an unsupported instruction: 2 */
    char *k[] = {BIN, "run", corpus("ptx-corpus/sm_80/texture_fetch.ptx"), "--kernel", "tex1d_gather", "--block", "32",
                 "--arg", "u64:0", "--arg", "buf:f32:32", "--arg", "buf:i32:32", "--arg", "i32:32", NULL};
    cr_assert_eq(tu_run(k, &out, &err), 2);
    cr_expect(strstr(err, ": error: instruction 'tex.1d.v4.f32.s32' is not supported (texture and surface instructions are not emulated)") != NULL, "%s", err);
    free(out); free(err);
    /* hazards found by --racecheck: 1 */
    char *r[] = {BIN, "run", corpus("ptx-corpus/sm_80/volatile_shared.ptx"), "--kernel", "reduce_volatile_tail",
                 "--block", "256", "--arg", "buf:f32:512:fill:1", "--arg", "out=buf:f32:1", "--arg", "u32:512",
                 "--racecheck", "--print", "out", NULL};
    cr_assert_eq(tu_run(r, &out, &err), 1, "%s", err);
    cr_expect(strstr(out, "racecheck: ") != NULL && strstr(out, "RAW hazard") != NULL, "%s", out);
    cr_expect(strstr(out, "src/volatile_shared.cu:") != NULL, "the CUDA line is named: %s", out);
    cr_expect(strstr(out, "out: 512\n") != NULL, "%s", out);
    free(out); free(err);
    /* the step limit: 1 */
    char *s[] = {BIN, "run", corpus("ptx-corpus/sm_80/nested_divergence.ptx"), "--kernel", "collatz_steps", "--block",
                 "32", "--arg", "buf:u32:32:fill:0", "--arg", "buf:i32:32", "--arg", "i32:32", "--arg", "i32:0",
                 "--max-steps", "10000", NULL};
    cr_assert_eq(tu_run(s, &out, &err), 1);
    cr_expect(strstr(err, "step limit reached: 10000 warp-instructions executed (--max-steps)") != NULL, "%s", err);
    free(out); free(err);
}

Test(emu_cli, output_is_deterministic)
{
    char *o1, *o2, *e1, *e2;
    char *a[] = {BIN, "run", corpus("ptx-corpus/sm_80/reduce_shfl.ptx"), "--kernel", "reduce_shfl_sum", "--grid", "3",
                 "--block", "128", "--arg", "buf:f32:5000:rand:3", "--arg", "s=buf:f32:1", "--arg", "i32:5000",
                 "--coalescing", "--bankcheck", "--racecheck", "--print", "s", "--schedule", "interleave", "--seed", "9",
                 NULL};
    cr_assert_eq(tu_run(a, &o1, &e1), 0, "%s", e1);
    cr_assert_eq(tu_run(a, &o2, &e2), 0);
    cr_expect_str_eq(o1, o2);
    free(o1); free(o2); free(e1); free(e2);
}
