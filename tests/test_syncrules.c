/* The static rules divergent-barrier and divergent-collective (issue 36,
 * analyses/sync_rules.c) on tests/data/synccheck/: for each buggy and
 * legal kernel at the test's block shape, the exact findings of `check`
 * (PTX line, rule, certainty), each confirmed by `run --synccheck` at the
 * same shape under lockstep and ITS (seeds 0-3): a proven finding's
 * instruction is reported by the emulator (as the barrier or as where the
 * other threads waited), a possible one's (or its partner's) too for these
 * kernels, and a legal kernel is quiet in both. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"

#define BIN (char *)tu_bin()

typedef struct want {
    unsigned line;
    const char *rule; /* "barrier", "collective" */
    const char *certainty;
} want;

typedef struct kcase {
    const char *file, *kernel, *symbol, *block, *extra;
    want w[3];
} kcase;

static const kcase cases[] = {
    /* barrier in a thread-dependent branch; in a block-uniform one; after an early exit; one per side */
    {"bar_branch", "bug", "_Z3bugPi", "128", NULL, {{42, "barrier", "proven"}}},
    {"bar_branch", "ok", "_Z2okPii", "128", "i32:1", {{0}}},
    {"bar_branch", "ok_exit", "_Z7ok_exitPii", "128", "i32:40", {{0}}},
    {"bar_branch", "bug_ifelse", "_Z10bug_ifelsePi", "128", NULL,
     {{187, "barrier", "proven"}, {195, "barrier", "proven"}}},
    /* half-warp shuffle with the full mask and with the right one; activemask; a lane outside its mask;
     * __syncwarp and a ballot half the warp skips; the branch's ballot as the mask */
    {"shfl_half", "bug", "_Z3bugPi", "64", NULL, {{41, "collective", "proven"}}},
    {"shfl_half", "ok", "_Z2okPi", "64", NULL, {{0}}},
    {"shfl_half", "ok_activemask", "_Z13ok_activemaskPi", "64", NULL, {{0}}},
    {"shfl_half", "bug_notinmask", "_Z13bug_notinmaskPi", "64", NULL, {{163, "collective", "proven"}}},
    {"shfl_half", "bug_syncwarp", "_Z12bug_syncwarpPi", "64", NULL, {{203, "collective", "proven"}}},
    {"shfl_half", "bug_ballot", "_Z10bug_ballotPi", "64", NULL, {{246, "collective", "proven"}}},
    {"shfl_half", "ok_ballot", "_Z9ok_ballotPi", "64", NULL, {{0}}},
    /* loops with a thread-dependent and a uniform trip count */
    {"loop_trip", "bug", "_Z3bugPi", "128", NULL, {{48, "barrier", "possible"}}},
    {"loop_trip", "ok", "_Z2okPii", "128", "i32:3", {{0}}},
    /* named barriers with counts */
    {"named_bar", "ok", "_Z2okPi", "128", NULL, {{0}}},
    {"named_bar", "bug_counts", "_Z10bug_countsPi", "128", NULL,
     {{109, "barrier", "possible"}, {127, "barrier", "possible"}}},
    {"named_bar", "bug_notwarps", "_Z12bug_notwarpsPii", "128", "i32:48",
     {{170, "barrier", "possible"}, {188, "barrier", "possible"}}},
    /* warp roles: a full-mask shuffle in warp 0's branch, one barrier after (legal); a barrier per role
     * (proven: each warp's threadIdx.x / 32 is known, lane_eval_threads) */
    {"warp_role", "ok", "_Z2okPi", "128", NULL, {{0}}},
    {"warp_role", "bug", "_Z3bugPi", "128", NULL, {{106, "barrier", "proven"}, {114, "barrier", "proven"}}},
    /* a loop until the whole block is done (__syncthreads_or: bar.red, the same in every thread) around a
     * barrier; the same loop on each thread's own trip count */
    {"bar_red", "ok_until", "_Z8ok_untilPi", "128", NULL, {{0}}},
    {"bar_red", "bug_own", "_Z7bug_ownPi", "128", NULL, {{114, "barrier", "possible"}}},
    /* barrier.sync (not .aligned) in both arms */
    {"bar_nonaligned", "ok_nonaligned", "_Z13ok_nonalignedPi", "128", NULL, {{0}}},
};

static const char *path_of(const char *file)
{
    static char path[4096];
    char rel[256];
    snprintf(rel, sizeof rel, "tests/data/synccheck/%s.ptx", file);
    snprintf(path, sizeof path, "%s", tu_src(rel));
    return path;
}

/* check's findings of the two rules in kernel symbol, as "line rule certainty" lines, sorted by line */
static void static_findings(const kcase *k, unsigned *lines, char (*rule)[16], char (*cert)[16], unsigned *n)
{
    char *a[] = {BIN, "check", (char *)path_of(k->file), "--block", (char *)k->block, "--format", "json", NULL};
    char *out, *err;
    int rc = tu_run(a, &out, &err);
    cr_assert(rc == 0 || rc == 1, "%s %s: rc %d\n%s", k->file, k->kernel, rc, err);
    json_error_t je;
    json_t *j = json_loads(out, 0, &je), *x, *l;
    cr_assert_not_null(j, "%s", out);
    size_t i, q;
    *n = 0;
    json_array_foreach(json_object_get(j, "findings"), i, x) {
        const char *r = json_string_value(json_object_get(x, "rule"));
        if (strcmp(json_string_value(json_object_get(x, "symbol")), k->symbol) || strncmp(r, "divergent-", 10) ||
            !strcmp(r, "divergent-branch"))
            continue;
        json_array_foreach(json_object_get(x, "ptx_lines"), q, l) {
            cr_assert_lt(*n, 8);
            lines[*n] = (unsigned)json_integer_value(l);
            snprintf(rule[*n], 16, "%s", r + 10);
            snprintf(cert[*n], 16, "%s", json_string_value(json_object_get(x, "certainty")));
            /* sorted insertion */
            for (unsigned m = *n; m > 0 && lines[m - 1] > lines[m]; m--) {
                unsigned t = lines[m];
                lines[m] = lines[m - 1], lines[m - 1] = t;
                char tr[16], tc[16];
                memcpy(tr, rule[m], 16), memcpy(rule[m], rule[m - 1], 16), memcpy(rule[m - 1], tr, 16);
                memcpy(tc, cert[m], 16), memcpy(cert[m], cert[m - 1], 16), memcpy(cert[m - 1], tc, 16);
            }
            (*n)++;
        }
    }
    json_decref(j);
    free(out);
    free(err);
}

/* The PTX lines run --synccheck reports at the case's shape, over lockstep and ITS seeds 0-3. */
static unsigned dynamic_lines(const kcase *k, unsigned *lines)
{
    static const char *const sched[] = {"lockstep", "its", "its", "its", "its"};
    static const char *const seed[] = {"0", "0", "1", "2", "3"};
    unsigned n = 0;
    for (unsigned s = 0; s < 5; s++) {
        char *a[24];
        int m = 0;
        a[m++] = BIN, a[m++] = "run", a[m++] = (char *)path_of(k->file), a[m++] = "--kernel", a[m++] = (char *)k->kernel;
        a[m++] = "--block", a[m++] = (char *)k->block, a[m++] = "--arg", a[m++] = "buf:i32:128";
        if (k->extra) a[m++] = "--arg", a[m++] = (char *)k->extra;
        a[m++] = "--synccheck", a[m++] = "--schedule", a[m++] = (char *)sched[s], a[m++] = "--seed";
        a[m++] = (char *)seed[s], a[m++] = "--format", a[m++] = "json";
        a[m] = NULL;
        char *out, *err;
        int rc = tu_run(a, &out, &err);
        cr_assert(rc == 0 || rc == 1 || rc == 3, "run %s %s: rc %d\n%s", k->file, k->kernel, rc, err);
        json_error_t je;
        json_t *j = json_loads(out, 0, &je), *x;
        cr_assert_not_null(j, "%s\n%s", out, err);
        size_t i;
        json_array_foreach(json_object_get(j, "synccheck"), i, x) {
            /* the instruction, and where the other threads were (a barrier per side: one report names both) */
            json_t *o;
            size_t q;
            unsigned cand[8], nc = 0;
            cand[nc++] = (unsigned)json_integer_value(json_object_get(x, "line"));
            json_array_foreach(json_object_get(x, "others"), q, o)
                if (json_object_get(o, "line") && nc < 8) cand[nc++] = (unsigned)json_integer_value(json_object_get(o, "line"));
            for (unsigned c = 0; c < nc; c++) {
                bool have = false;
                for (unsigned r = 0; r < n; r++) have |= lines[r] == cand[c];
                if (!have && n < 16) lines[n++] = cand[c];
            }
        }
        json_decref(j);
        free(out);
        free(err);
    }
    return n;
}

static bool in(const unsigned *v, unsigned n, unsigned x)
{
    for (unsigned i = 0; i < n; i++)
        if (v[i] == x) return true;
    return false;
}

Test(syncrules, verdicts_confirmed_by_synccheck)
{
    for (unsigned c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const kcase *k = &cases[c];
        unsigned lines[8], nw = 0, n, dyn[16];
        char rule[8][16], cert[8][16];
        static_findings(k, lines, rule, cert, &n);
        while (nw < 3 && k->w[nw].line) nw++;
        cr_expect_eq(n, nw, "%s %s --block %s: %u findings, want %u", k->file, k->kernel, k->block, n, nw);
        for (unsigned i = 0; i < n && i < nw; i++) {
            cr_expect_eq(lines[i], k->w[i].line, "%s %s: finding %u at line %u, want %u", k->file, k->kernel, i,
                         lines[i], k->w[i].line);
            cr_expect_str_eq(rule[i], k->w[i].rule, "%s %s line %u", k->file, k->kernel, lines[i]);
            cr_expect_str_eq(cert[i], k->w[i].certainty, "%s %s line %u", k->file, k->kernel, lines[i]);
        }
        unsigned nd = dynamic_lines(k, dyn);
        if (!nw) {
            cr_expect_eq(nd, 0, "%s %s: legal, yet run --synccheck reports line %u", k->file, k->kernel, nd ? dyn[0] : 0);
            continue;
        }
        /* proven: the emulator reports that instruction; possible: it reports one of the kernel's findings */
        bool some = false;
        for (unsigned i = 0; i < n; i++) {
            if (!strcmp(cert[i], "proven"))
                cr_expect(in(dyn, nd, lines[i]), "%s %s: proven at line %u, which run --synccheck does not report",
                          k->file, k->kernel, lines[i]);
            some |= in(dyn, nd, lines[i]);
        }
        cr_expect(some, "%s %s: run --synccheck confirms none of the findings", k->file, k->kernel);
    }
}

/* The messages: which threads go round it, where they go and why, the
 * fix; at the default shape the threads of warp 0. */
Test(syncrules, messages_in_the_users_terms)
{
    char *a[] = {BIN, "check", (char *)path_of("bar_branch"), "--block", "128", NULL};
    char *out, *err;
    cr_assert_eq(tu_run(a, &out, &err), 1);
    cr_expect(strstr(out, "bar_branch.cu:7:9: warning: divergent barrier: threads (48..127,0,0) take the other way at "
                          "the branch at bar_branch.cu:6 and wait at PTX line 50 (bar_branch.cu:10), where their warp "
                          "reconverges, while the rest of their warp waits here; an .aligned barrier is executed by "
                          "every live thread of the block, a warp together [divergent-barrier]\n"),
              "%s", out);
    cr_expect(strstr(out, "note: hint: move the barrier out of the branch, to where every thread of the block "
                          "reaches it\n"),
              "%s", out);
    free(out);
    free(err);
    char *b[] = {BIN, "check", (char *)path_of("bar_branch"), NULL};
    cr_assert_eq(tu_run(b, &out, &err), 1);
    cr_expect(strstr(out, "bar_branch.cu:40:9: warning: divergent barrier: threads (1,0,0), (3,0,0), (5,0,0), (7,0,0), "
                          "(9,0,0), (11,0,0), ... (16 threads in all) of warp 0 take the other way at the branch at "
                          "bar_branch.cu:35 and wait at the barrier at PTX line 195 (bar_branch.cu:37) instead; every "
                          "live thread of the block must execute the same .aligned barrier [divergent-barrier]\n"),
              "%s", out);
    free(out);
    free(err);
    char *c[] = {BIN, "check", (char *)path_of("shfl_half"), "--block", "64", NULL};
    cr_assert_eq(tu_run(c, &out, &err), 1);
    cr_expect(strstr(out, "shfl_half.cu:28:5: warning: divergent collective: lanes 0..15 of warp 0 execute it but are "
                          "not in its member mask 0xffff0000 (undefined in the ISA) [divergent-collective]\n"),
              "%s", out);
    cr_expect(strstr(out, "warning: divergent collective: its member mask 0xffffffff names lanes 16..31 of warp 0, "
                          "which take the other way at the branch at shfl_half.cu:37 and wait at PTX line 207 "
                          "(shfl_half.cu:38), where their warp reconverges; it waits for every live lane of its mask "
                          "[divergent-collective]\n"),
              "%s", out);
    cr_expect(strstr(out, "note: hint: use __activemask() or the branch's ballot as the mask, or move it out of the "
                          "branch\n"),
              "%s", out);
    free(out);
    free(err);
}

/* A shape where every thread takes the same side: no finding; a count above the block: proven. */
Test(syncrules, the_shape_in_force)
{
    char *out, *err;
    /* threadIdx.x < 48 at 32 threads: every thread takes the barrier's side */
    char *a[] = {BIN, "check", (char *)path_of("bar_branch"), "--block", "_Z3bugPi=32", "--block", "128", NULL};
    cr_assert_eq(tu_run(a, &out, &err), 1);
    cr_expect(!strstr(out, "bar_branch.cu:7:9: warning"), "%s", out);
    free(out);
    free(err);
    char *b[] = {BIN, "check", (char *)path_of("named_bar"), "--block", "64", NULL};
    cr_assert_eq(tu_run(b, &out, &err), 1);
    cr_expect(strstr(out, "named_bar.cu:23:9: warning: barrier waits for 96 threads, more than the block's 64: it never "
                          "completes [divergent-barrier]\n"),
              "%s", out);
    free(out);
    free(err);
}

/* Warp-level .aligned instructions (ldmatrix): the whole warp executes them
 * together.  The emulator runs no tensor-core instruction (run refuses the
 * kernel and says so), so these verdicts rest on the ISA text alone: exact
 * static verdicts here, a GPU run the only dynamic check. */
Test(syncrules, aligned_warp_instructions)
{
    static const kcase k[] = {
        {"aligned", "bug_half", "_Z8bug_halfPj", "64", NULL, {{51, "collective", "proven"}}},
        {"aligned", "ok_whole", "_Z8ok_wholePji", "64", NULL, {{0}}},
        {"aligned", "maybe", "_Z5maybePjPKi", "64", NULL, {{159, "collective", "possible"}}},
    };
    for (unsigned c = 0; c < 3; c++) {
        unsigned lines[8], n, nw = k[c].w[0].line ? 1 : 0;
        char rule[8][16], cert[8][16];
        static_findings(&k[c], lines, rule, cert, &n);
        cr_expect_eq(n, nw, "%s: %u findings", k[c].kernel, n);
        if (n && nw) {
            cr_expect_eq(lines[0], k[c].w[0].line, "%s: line %u", k[c].kernel, lines[0]);
            cr_expect_str_eq(rule[0], k[c].w[0].rule);
            cr_expect_str_eq(cert[0], k[c].w[0].certainty);
        }
    }
    char *a[] = {BIN, "run", (char *)path_of("aligned"), "--kernel", "bug_half", "--block", "64", "--arg", "buf:u32:64",
                 "--synccheck", NULL};
    char *out, *err;
    cr_expect_eq(tu_run(a, &out, &err), 2);
    cr_expect(strstr(err, "(tensor-core matrix instructions are not emulated)"), "%s", err);
    /* what ran before is all that was checked: no clean bill */
    cr_expect(strstr(out, "synccheck: 0 reports before the launch stopped: unsupported (barriers"), "%s", out);
    free(out);
    free(err);
    char *b[] = {BIN, "check", (char *)path_of("aligned"), "--block", "64", NULL};
    cr_assert_eq(tu_run(b, &out, &err), 1);
    cr_expect(strstr(out, "aligned.cu:10:5: warning: divergent .aligned instruction: lanes 16..31 of warp 0 take the other "
                          "way at the branch at aligned.cu:10 and wait at PTX line 56 (aligned.cu:6), where their warp "
                          "reconverges; every live lane of the warp executes it together [divergent-collective]\n"),
              "%s", out);
    free(out);
    free(err);
}

/* Warpgroup instructions (wgmma, setmaxnreg): every thread of the four
 * warps executes them together.  At a given shape, a branch the threads
 * are known through (threadIdx.x < 64, threadIdx.x / 32 == 1) that keeps
 * each warp whole but splits a warpgroup is proven; one on threadIdx.x /
 * 128 is legal; a branch that may split a warp is the warp-level possible
 * finding; with no shape the warpgroups are not known and nothing more is
 * said (the limit docs/check.md states).  ISA text only: the emulator runs
 * neither. */
Test(syncrules, warpgroup_instructions)
{
    static const kcase k[] = {
        {"warpgroup", "bug_half", "_Z8bug_halfPf", "256", NULL, {{32, "collective", "proven"}}},
        {"warpgroup", "bug_half", "_Z8bug_halfPf", "128", NULL, {{32, "collective", "proven"}}},
        {"warpgroup", "ok_group", "_Z8ok_groupPf", "256", NULL, {{0}}},
        {"warpgroup", "maybe", "_Z5maybePfPKi", "256", NULL, {{112, "collective", "possible"}}},
        {"warpgroup", "ok_block", "_Z8ok_blockPfi", "256", NULL, {{0}}},
        {"warpgroup", "bug_half", "_Z8bug_halfPf", "64", NULL, {{0}}}, /* warps 0 and 1 only: no split */
        {"warpgroup", "bug_role", "_Z8bug_rolePf", "256", NULL, {{182, "collective", "proven"}}},
        {"warpgroup", "bug_role", "_Z8bug_rolePf", "64,2", NULL, {{182, "collective", "proven"}}}, /* warps 1, 3 */
        {"warpgroup", "bug_role", "_Z8bug_rolePf", "32,4", NULL, {{0}}}, /* threadIdx.x / 32 is 0: none runs it */
    };
    for (unsigned c = 0; c < sizeof k / sizeof k[0]; c++) {
        unsigned lines[8], n, nw = k[c].w[0].line ? 1 : 0;
        char rule[8][16], cert[8][16];
        static_findings(&k[c], lines, rule, cert, &n);
        cr_expect_eq(n, nw, "%s at %s: %u findings", k[c].kernel, k[c].block, n);
        if (n && nw) {
            cr_expect_eq(lines[0], k[c].w[0].line, "%s: line %u", k[c].kernel, lines[0]);
            cr_expect_str_eq(rule[0], k[c].w[0].rule);
            cr_expect_str_eq(cert[0], k[c].w[0].certainty);
        }
    }
    char *out, *err;
    char *b[] = {BIN, "check", (char *)path_of("warpgroup"), "--block", "256", NULL};
    cr_assert_eq(tu_run(b, &out, &err), 1);
    cr_expect(strstr(out, "warpgroup.cu:7:5: warning: divergent warpgroup instruction: lanes 0..31 of warp 2 do not "
                          "execute it while other threads of its warpgroup (warps 0..3) do, from the branch at "
                          "warpgroup.cu:7; every thread of the warpgroup executes it together [divergent-collective]\n"),
              "%s", out);
    free(out);
    free(err);
}
