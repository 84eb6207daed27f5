/* The dynamic checks on small hand-written kernels whose counts are known:
 * bank-conflict degrees, coalescing sectors/lines, shared-memory hazards.
 * The numbers come from the JSON report (emu_report_json). */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include "emu_harness.h"

#define HDR ".version 8.0\n.target sm_80\n.address_size 64\n"

/* The JSON entry of the check `key` for PTX line `line`. */
static json_t *entry(json_t *rep, const char *key, int line)
{
    json_t *arr = json_object_get(rep, key), *e;
    size_t i;
    json_array_foreach(arr, i, e)
        if (json_integer_value(json_object_get(e, "line")) == line) return e;
    return NULL;
}
static long long ival(json_t *e, const char *k) { return (long long)json_integer_value(json_object_get(e, k)); }

/* line numbers below are those of the PTX text (HDR is lines 1-3) */
static const char bank_ptx[] = HDR
    ".shared .align 16 .b8 sm[2048];\n"                /* 4 */
    ".visible .entry banks(.param .u64 out)\n"          /* 5 */
    "{\n"                                                /* 6 */
    "  .reg .b32 %r<12>;\n"                              /* 7 */
    "  .reg .b64 %rd<6>;\n"                              /* 8 */
    "  mov.u32 %r1, %tid.x;\n"                           /* 9 */
    "  mov.u32 %r2, sm;\n"                               /* 10 */
    "  shl.b32 %r3, %r1, 3;\n"                           /* 11 */
    "  add.u32 %r4, %r2, %r3;\n"                         /* 12 */
    "  st.shared.u32 [%r4], %r1;\n"                      /* 13: stride 2 words: 2-way */
    "  shl.b32 %r5, %r1, 2;\n"                           /* 14 */
    "  add.u32 %r6, %r2, %r5;\n"                         /* 15 */
    "  ld.shared.u32 %r7, [%r6];\n"                      /* 16: stride 1: no conflict */
    "  ld.shared.u32 %r8, [sm+64];\n"                    /* 17: one word: broadcast */
    "  shl.b32 %r9, %r1, 7;\n"                           /* 18 */
    "  add.u32 %r10, %r2, %r9;\n"                        /* 19 */
    "  and.b32 %r10, %r10, 2047;\n"                      /* 20: 16 distinct words, one bank */
    "  ld.shared.u32 %r11, [%r10];\n"                    /* 21: 16-way */
    "  ld.shared.v2.u32 {%r7, %r8}, [%r3];\n"            /* 22: 8 bytes/lane, consecutive: 2 phases, no conflict */
    "  ld.param.u64 %rd1, [out];\n"                      /* 23 */
    "  cvta.to.global.u64 %rd2, %rd1;\n"                 /* 24 */
    "  mul.wide.u32 %rd3, %r1, 4;\n"                     /* 25 */
    "  add.s64 %rd4, %rd2, %rd3;\n"                      /* 26 */
    "  add.u32 %r7, %r7, %r11;\n"                        /* 27 */
    "  st.global.u32 [%rd4], %r7;\n"                     /* 28 */
    "  ret;\n"
    "}\n";

Test(emu_checks, bank_conflict_degrees)
{
    emu_options o = {.checks = EMU_CHECK_BANK};
    eh *h = eh_text(bank_ptx, &o);
    uint64_t out = eh_zero(h, 4 * 64);
    EH_RUN(h, "banks", D1(1), D1(64), "p", out);
    json_t *rep = emu_report_json(h->M, "inline.ptx", NULL);
    json_t *e;
    cr_assert_not_null(e = entry(rep, "bank_conflicts", 13));
    cr_expect_eq(ival(e, "requests"), 2);       /* two warps */
    cr_expect_eq(ival(e, "ways_max"), 2);
    cr_expect_eq(ival(e, "ways_sum"), 4);       /* 2-way in each request */
    cr_expect_eq(ival(e, "wavefronts"), 4);
    cr_assert_not_null(e = entry(rep, "bank_conflicts", 16));
    cr_expect_eq(ival(e, "ways_max"), 1);
    cr_expect_eq(ival(e, "wavefronts"), 2);
    cr_assert_not_null(e = entry(rep, "bank_conflicts", 17));
    cr_expect_eq(ival(e, "ways_max"), 1);       /* same word: broadcast */
    cr_assert_not_null(e = entry(rep, "bank_conflicts", 21));
    cr_expect_eq(ival(e, "ways_max"), 16);      /* lanes 128 bytes apart, wrapping every 16 */
    cr_expect_eq(ival(e, "ways_sum"), 32);
    cr_assert_not_null(e = entry(rep, "bank_conflicts", 22));
    cr_expect_eq(ival(e, "ways_max"), 1);
    cr_expect_eq(ival(e, "wavefronts"), 4);     /* 2 half-warp phases per request */
    cr_expect_eq(ival(e, "ideal_wavefronts"), 4);
    cr_expect_null(entry(rep, "bank_conflicts", 28)); /* a global store is not a shared access */
    json_decref(rep);
    eh_close(h);
}

static const char coal_ptx[] = HDR
    ".visible .entry coal(.param .u64 in, .param .u64 out)\n"  /* 4 */
    "{\n"                                                       /* 5 */
    "  .reg .b32 %r<4>;\n"                                      /* 6 */
    "  .reg .f32 %f<10>;\n"                                     /* 7 */
    "  .reg .b64 %rd<12>;\n"                                    /* 8 */
    "  ld.param.u64 %rd1, [in];\n"                              /* 9 */
    "  ld.param.u64 %rd2, [out];\n"                             /* 10 */
    "  mov.u32 %r1, %tid.x;\n"                                  /* 11 */
    "  mul.wide.u32 %rd3, %r1, 4;\n"                            /* 12 */
    "  add.s64 %rd4, %rd1, %rd3;\n"                             /* 13 */
    "  ld.global.f32 %f1, [%rd4];\n"                            /* 14: unit stride: 4 sectors, 1 line */
    "  mul.wide.u32 %rd5, %r1, 8;\n"                            /* 15 */
    "  add.s64 %rd6, %rd1, %rd5;\n"                             /* 16 */
    "  ld.global.f32 %f2, [%rd6];\n"                            /* 17: stride 2: 8 sectors, 2 lines */
    "  ld.global.f32 %f3, [%rd1+256];\n"                        /* 18: broadcast: 1 sector */
    "  mul.wide.u32 %rd7, %r1, 16;\n"                           /* 19 */
    "  add.s64 %rd8, %rd1, %rd7;\n"                             /* 20 */
    "  ld.global.v4.f32 {%f4, %f5, %f6, %f7}, [%rd8];\n"        /* 21: 16 bytes/lane: 16 sectors, 4 lines */
    "  mul.wide.u32 %rd9, %r1, 128;\n"                          /* 22 */
    "  add.s64 %rd10, %rd1, %rd9;\n"                            /* 23 */
    "  ld.global.f32 %f8, [%rd10+4];\n"                         /* 24: stride 128: 32 sectors, 32 lines */
    "  add.f32 %f9, %f1, %f2;\n"                                /* 25 */
    "  add.s64 %rd11, %rd2, %rd3;\n"                            /* 26 */
    "  st.global.f32 [%rd11], %f9;\n"                           /* 27: unit stride store */
    "  ret;\n"
    "}\n";

Test(emu_checks, coalescing_sectors_and_lines)
{
    emu_options o = {.checks = EMU_CHECK_COALESCING};
    eh *h = eh_text(coal_ptx, &o);
    uint64_t in = eh_zero(h, 128 * 64 + 64), out = eh_zero(h, 4 * 64);
    EH_RUN(h, "coal", D1(1), D1(64), "pp", in, out);
    json_t *rep = emu_report_json(h->M, "inline.ptx", NULL);
    static const struct { int line; long long sectors_per_req, lines_per_req, ideal_per_req; } want[] = {
        {14, 4, 1, 4}, {17, 8, 2, 4}, {18, 1, 1, 1}, {21, 16, 4, 16}, {24, 32, 32, 4}, {27, 4, 1, 4}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        json_t *e = entry(rep, "coalescing", want[i].line);
        cr_assert_not_null(e, "line %d", want[i].line);
        cr_expect_eq(ival(e, "requests"), 2, "line %d", want[i].line);
        cr_expect_eq(ival(e, "sectors"), 2 * want[i].sectors_per_req, "line %d sectors", want[i].line);
        cr_expect_eq(ival(e, "sectors_max"), want[i].sectors_per_req, "line %d", want[i].line);
        cr_expect_eq(ival(e, "lines"), 2 * want[i].lines_per_req, "line %d lines", want[i].line);
        cr_expect_eq(ival(e, "ideal_sectors"), 2 * want[i].ideal_per_req, "line %d ideal", want[i].line);
    }
    cr_expect_null(entry(rep, "coalescing", 9)); /* ld.param is not a global request */
    json_decref(rep);
    eh_close(h);
}

static const char race_ptx[] = HDR
    ".shared .align 4 .b8 s[1024];\n"                     /* 4 */
    ".visible .entry races(.param .u64 out)\n"            /* 5 */
    "{\n"                                                  /* 6 */
    "  .reg .b32 %r<16>;\n"                                /* 7 */
    "  .reg .b64 %rd<4>;\n"                                /* 8 */
    "  mov.u32 %r1, %tid.x;\n"                             /* 9 */
    "  mov.u32 %r11, s;\n"                                 /* 10 */
    "  shl.b32 %r2, %r1, 2;\n"                             /* 11 */
    "  add.u32 %r2, %r2, %r11;\n"                          /* 12: own word */
    "  add.u32 %r3, %r1, 1;\n"                             /* 13 */
    "  and.b32 %r3, %r3, 31;\n"                            /* 14 */
    "  shl.b32 %r4, %r3, 2;\n"                             /* 15 */
    "  add.u32 %r4, %r4, %r11;\n"                          /* 16: the next lane's word */
    "  st.shared.u32 [%r2], %r1;\n"                        /* 17: A */
    "  ld.shared.u32 %r5, [%r4];\n"                        /* 18: B reads what the neighbour wrote: RAW x32 */
    "  bar.sync 0;\n"                                      /* 19 */
    "  ld.shared.u32 %r6, [%r4];\n"                        /* 20: C after the barrier: none */
    "  st.shared.u32 [%r2+128], %r6;\n"                    /* 21: D own words: none */
    "  bar.sync 0;\n"                                      /* 22 */
    "  st.shared.u32 [s+256], %r1;\n"                      /* 23: E all lanes one word: WAW x31 */
    "  bar.sync 0;\n"                                      /* 24 */
    "  ld.shared.u32 %r7, [%r2];\n"                        /* 25: F */
    "  st.shared.u32 [%r4], %r7;\n"                        /* 26: G overwrites what the neighbour read: WAR x32 */
    "  bar.sync 0;\n"                                      /* 27 */
    "  st.shared.u32 [%r2+512], %r1;\n"                    /* 28: H */
    "  bar.warp.sync -1;\n"                                /* 29 */
    "  ld.shared.u32 %r8, [%r4+512];\n"                    /* 30: I ordered by bar.warp.sync: none */
    "  atom.shared.add.u32 %r9, [s+768], 1;\n"             /* 31: atomics are not checked */
    "  atom.shared.add.u32 %r9, [s+768], 1;\n"             /* 32 */
    "  ld.param.u64 %rd1, [out];\n"
    "  cvta.to.global.u64 %rd2, %rd1;\n"
    "  add.u32 %r10, %r5, %r8;\n"
    "  st.global.u32 [%rd2], %r10;\n"
    "  ret;\n"
    "}\n";

Test(emu_checks, racecheck_hazards)
{
    emu_options o = {.checks = EMU_CHECK_RACE};
    eh *h = eh_text(race_ptx, &o);
    uint64_t out = eh_zero(h, 4);
    EH_RUN(h, "races", D1(2), D1(32), "p", out); /* two blocks: shadows are per block */
    json_t *rep = emu_report_json(h->M, "inline.ptx", NULL);
    json_t *races = json_object_get(rep, "races"), *e;
    cr_assert_eq(json_array_size(races), 3, "%s", json_dumps(races, 0));
    cr_assert_eq(emu_race_count(h->M), 3);
    static const struct { const char *kind; int l1, l2; long long count; } want[] = {
        {"RAW", 17, 18, 64}, {"WAW", 23, 23, 62}, {"WAR", 25, 26, 64}};
    for (size_t k = 0; k < 3; k++) {
        size_t i;
        bool found = false;
        json_array_foreach(races, i, e) {
            if (strcmp(json_string_value(json_object_get(e, "kind")), want[k].kind)) continue;
            found = true;
            cr_expect_eq(ival(e, "first_line"), want[k].l1, "%s", want[k].kind);
            cr_expect_eq(ival(e, "second_line"), want[k].l2, "%s", want[k].kind);
            cr_expect_eq(ival(e, "count"), want[k].count, "%s count (32 lanes x 2 blocks)", want[k].kind);
        }
        cr_expect(found, "no %s hazard", want[k].kind);
    }
    json_decref(rep);
    eh_close(h);
}

Test(emu_checks, racecheck_clean_corpus_kernels)
{
    /* properly synchronised corpus kernels have no hazard */
    emu_options o = {.checks = EMU_CHECK_RACE | EMU_CHECK_BANK | EMU_CHECK_COALESCING};
    eh *h = eh_open("ptx-corpus/sm_80/transpose_tiled.ptx", &o);
    int w = 64, hg = 64;
    float *in = calloc((size_t)w * hg, 4);
    uint64_t di = eh_buf(h, in, 4 * w * hg), dout = eh_zero(h, 4 * w * hg);
    EH_RUN(h, "transpose_tiled_padded", D2(2, 2), D2(32, 8), "ppii", dout, di, w, hg);
    cr_expect_eq(emu_race_count(h->M), 0);
    json_t *rep = emu_report_json(h->M, "x.ptx", NULL), *e;
    size_t i;
    /* the padded tile has no bank conflict; every global access is fully coalesced */
    json_array_foreach(json_object_get(rep, "bank_conflicts"), i, e) cr_expect_eq(ival(e, "ways_max"), 1);
    json_array_foreach(json_object_get(rep, "coalescing"), i, e) cr_expect_eq(ival(e, "sectors_max"), 4);
    json_decref(rep);
    free(in);
    eh_close(h);
    /* the unpadded tile: the column read is a 32-way conflict */
    h = eh_open("ptx-corpus/sm_80/transpose_bank_conflict.ptx", &o);
    in = calloc((size_t)w * hg, 4);
    di = eh_buf(h, in, 4 * w * hg);
    dout = eh_zero(h, 4 * w * hg);
    EH_RUN(h, "transpose_tiled_conflicting", D2(2, 2), D2(32, 8), "ppii", dout, di, w, hg);
    rep = emu_report_json(h->M, "x.ptx", NULL);
    long long worst = 0;
    json_array_foreach(json_object_get(rep, "bank_conflicts"), i, e) if (ival(e, "ways_max") > worst) worst = ival(e, "ways_max");
    cr_expect_eq(worst, 32);
    cr_expect_eq(emu_race_count(h->M), 0);
    json_decref(rep);
    free(in);
    eh_close(h);
}

Test(emu_checks, racecheck_finds_warp_synchronous_code)
{
    /* the legacy volatile tail reduction relies on lock-step; the __syncwarp version does not */
    emu_options o = {.checks = EMU_CHECK_RACE};
    eh *h = eh_open("ptx-corpus/sm_80/volatile_shared.ptx", &o);
    float in[512];
    for (int i = 0; i < 512; i++) in[i] = 1.0f;
    uint64_t di = eh_buf(h, in, sizeof in), dout = eh_zero(h, 4);
    EH_RUN(h, "reduce_volatile_tail", D1(1), D1(256), "ppu", di, dout, 512u);
    cr_expect_gt(emu_race_count(h->M), 0);
    float r;
    eh_read(h, dout, &r, 4);
    cr_expect_eq(r, 512.0f);
    di = eh_buf(h, in, 1024);
    dout = eh_zero(h, 4);
    EH_RUN(h, "reduce_syncwarp_tail", D1(1), D1(256), "ppu", di, dout, 256u);
    cr_expect_eq(emu_race_count(h->M), 0);
    eh_close(h);
}

Test(emu_checks, report_text_names_positions)
{
    emu_options o = {.checks = EMU_CHECK_RACE | EMU_CHECK_BANK | EMU_CHECK_COALESCING};
    eh *h = eh_text(race_ptx, &o);
    uint64_t out = eh_zero(h, 4);
    EH_RUN(h, "races", D1(1), D1(32), "p", out);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    emu_report_text(h->M, "k.ptx", NULL, f);
    fclose(f);
    cr_expect(strstr(buf, "racecheck: 3 shared-memory hazards") != NULL, "%s", buf);
    cr_expect(strstr(buf, "k.ptx:18:3: RAW hazard: 'st.shared.u32' (line 17) then 'ld.shared.u32' (line 18), 32 times") != NULL, "%s", buf);
    cr_expect(strstr(buf, "k.ptx:23:3: WAW hazard") != NULL, "%s", buf);
    cr_expect(strstr(buf, "bank conflicts:") != NULL);
    cr_expect(strstr(buf, "coalescing:") != NULL);
    /* the same run twice gives the same bytes */
    char *buf2 = NULL;
    size_t len2 = 0;
    EH_RUN(h, "races", D1(1), D1(32), "p", out);
    f = open_memstream(&buf2, &len2);
    emu_report_text(h->M, "k.ptx", NULL, f);
    fclose(f);
    cr_expect_str_eq(buf, buf2);
    free(buf);
    free(buf2);
    eh_close(h);
}
