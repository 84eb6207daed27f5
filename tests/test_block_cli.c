/* --block, the same in every command (analyses/block_opt.c): KERNEL=X,Y,Z for one
 * kernel, X,Y,Z for the others, then .reqntid, then the default assumption
 * (blockDim.x a multiple of 32).  tests/data/block_shapes.ptx has two
 * identical kernels; given 32x8 (ka) and 16x16 (kb), %tid.y is warp-uniform
 * in ka only, and the column access a[tid.x*1024 + tid.y] touches 32
 * sectors in ka, 16 in kb (two columns per warp). */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "div_report.h"
#include "testutil.h"
#include "toolchain.h"

#define BIN (char *)tu_bin()
#define PTX "tests/data/block_shapes.ptx"
#define KA "--block", "ka=32,8"
#define KB "--block", "kb=16,16"

static char *run_rc(char **argv, int want, char **err)
{
    char *out, *e;
    int rc = tu_run(argv, &out, &e);
    cr_assert_eq(rc, want, "%s exited %d: %s", argv[1], rc, e);
    if (err) *err = e;
    else free(e);
    return out;
}

static json_t *run_json(char **argv, int want)
{
    char *out = run_rc(argv, want, NULL);
    json_error_t je;
    json_t *j = json_loads(out, 0, &je);
    cr_assert_not_null(j, "%s: %s", je.text, out);
    free(out);
    return j;
}

static const char *kernel_str(json_t *j, size_t k, const char *obj, const char *key)
{
    return json_string_value(json_object_get(json_object_get(json_array_get(json_object_get(j, "kernels"), k), obj), key));
}

Test(block_cli, divergence_per_kernel)
{
    tu_at_root();
    char *a[] = {BIN, "divergence", "--values", "none", KA, KB, PTX, NULL};
    char *out = run_rc(a, 0, NULL);
    cr_expect(strstr(out, "ka (.entry) in " PTX "\n"
                          "  analysis: affine (Sampaio et al. 2013, section 3.4: affine constraints of degree 1 over the "
                          "thread coordinates)\n"
                          "  block shape: 32,8,1 (from --block KERNEL=)\n"
                          "  %tid.y: warp-uniform (the x extent, 32, is a multiple of 32)\n"
                          "  %tid.z: warp-uniform (x*y, 256, is a multiple of 32)\n"
                          "  integer arithmetic assumed not to wrap around\n\n"
                          "  conditional branches: 1, 0 divergent\n"
                          "    line  block  gate   verdict  source\n"
                          "      34  BB0    %p1.1  uniform  -\n") != NULL,
              "%s", out);
    cr_expect(strstr(out, "kb (.entry) in " PTX "\n"
                          "  analysis: affine (Sampaio et al. 2013, section 3.4: affine constraints of degree 1 over the "
                          "thread coordinates)\n"
                          "  block shape: 16,16,1 (from --block KERNEL=)\n"
                          "  %tid.y: divergent (the x extent, 16, is not a multiple of 32)\n"
                          "  %tid.z: warp-uniform (x*y, 256, is a multiple of 32)\n"
                          "  integer arithmetic assumed not to wrap around\n\n"
                          "  conditional branches: 1, 1 divergent\n"
                          "    line  block  gate   verdict    source\n"
                          "      64  BB0    %p1.1  divergent  -\n") != NULL,
              "%s", out);
    free(out);
    /* the summary: the same shapes, its JSON names them */
    char *s[] = {BIN, "divergence", "--summary", "--format", "json", "--block", "16,16", KA, PTX, NULL};
    json_t *j = run_json(s, 0);
    json_t *as = json_object_get(j, "assumptions");
    cr_expect_eq(json_integer_value(json_array_get(json_object_get(as, "block_option"), 1)), 16);
    cr_expect_eq(json_integer_value(json_array_get(json_object_get(json_object_get(as, "block_per_kernel"), "ka"), 1)),
                 8);
    json_t *ks = json_object_get(j, "kernels");
    const char *stat = "branches_divergent";
    json_t *ka = json_object_get(json_object_get(json_array_get(ks, 0), "stats"), "affine");
    json_t *kb = json_object_get(json_object_get(json_array_get(ks, 1), "stats"), "affine");
    cr_expect_eq(json_integer_value(json_object_get(ka, stat)), 0);
    cr_expect_eq(json_integer_value(json_object_get(kb, stat)), 1);
    json_decref(j);
}

/* KERNEL= before --block, --block before .reqntid, .reqntid before the
 * default; each report says which. */
Test(block_cli, resolution_order)
{
    tu_at_root();
    char *a[] = {BIN, "divergence", "--format", "json", "--values", "none", "--block", "16,16", KA, PTX, NULL};
    json_t *j = run_json(a, 0);
    cr_expect_str_eq(kernel_str(j, 0, "assumptions", "block_from"), "--block KERNEL=");
    cr_expect_str_eq(kernel_str(j, 1, "assumptions", "block_from"), "--block");
    json_decref(j);
    char *b[] = {BIN, "divergence", "--format", "json", "--values", "none", PTX, NULL};
    j = run_json(b, 0);
    cr_expect_str_eq(kernel_str(j, 0, "assumptions", "block_from"), "default: blockDim.x a multiple of 32");
    cr_expect(json_is_null(json_object_get(json_object_get(json_array_get(json_object_get(j, "kernels"), 0),
                                                           "assumptions"),
                                           "block")));
    json_decref(j);
    /* cluster_neighbor_exchange has .reqntid 128: --block overrides it, a
     * KERNEL= for another kernel does not */
    const char *cl = "ptx-corpus/sm_90/cluster_sm90.ptx";
    char *c[] = {BIN, "coalescing", "--format", "json", "--kernel", "cluster_neighbor_exchange", "--block",
                 "cluster_histogram=64", (char *)cl, NULL};
    j = run_json(c, 0);
    cr_expect_str_eq(kernel_str(j, 0, "block", "origin"), ".reqntid");
    json_decref(j);
    char *d[] = {BIN, "coalescing", "--format", "json", "--kernel", "cluster_neighbor_exchange", "--block", "64",
                 (char *)cl, NULL};
    j = run_json(d, 0);
    cr_expect_str_eq(kernel_str(j, 0, "block", "origin"), "--block");
    cr_expect_eq(json_integer_value(json_array_get(
                     json_object_get(json_object_get(json_array_get(json_object_get(j, "kernels"), 0), "block"), "shape"),
                     0)),
                 64);
    json_decref(j);
}

Test(block_cli, uniformize_per_kernel)
{
    tu_at_root();
    char *err;
    char *a[] = {BIN, "uniformize", KA, KB, PTX, NULL};
    char *out = run_rc(a, 0, &err);
    char *in = tu_read(PTX, NULL);
    const char *at = strstr(in, "\t@%p1 bra \t$L_ka;");
    cr_assert_not_null(at);
    size_t pre = (size_t)(at - in) + strlen("\t@%p1 bra");
    char *want = malloc(strlen(in) + 8);
    memcpy(want, in, pre);
    strcpy(want + pre, ".uni");
    strcpy(want + pre + 4, in + pre);
    cr_expect_str_eq(out, want);
    cr_expect_str_eq(err, "ptxray uniformize: " PTX ": 1 rewritten to .uni, 0 already .uni, 1 left divergent; affine "
                          "analysis, block shape from --block KERNEL=, %tid.y warp-uniform in 1 of 2 functions, "
                          "%tid.z warp-uniform, no integer wrap-around\n");
    free(in);
    free(want);
    free(out);
    free(err);
}

Test(block_cli, coalescing_per_kernel)
{
    tu_at_root();
    char *a[] = {BIN, "coalescing", "--format", "json", KA, KB, PTX, NULL};
    json_t *j = run_json(a, 0);
    json_t *ks = json_object_get(j, "kernels");
    const json_int_t sectors[2] = {32, 16};
    for (size_t k = 0; k < 2; k++) {
        cr_expect_str_eq(kernel_str(j, k, "block", "origin"), "--block KERNEL=");
        json_t *acc = json_object_get(json_array_get(ks, k), "accesses");
        cr_assert_eq(json_array_size(acc), 2);
        for (size_t i = 0; i < 2; i++)
            cr_expect_eq(json_integer_value(json_object_get(json_array_get(acc, i), "sectors_per_request")), sectors[k],
                         "kernel %zu access %zu", k, i);
    }
    json_t *b = json_object_get(json_object_get(j, "assumptions"), "block");
    cr_expect(json_is_null(json_object_get(b, "shape")));
    cr_expect_eq(json_integer_value(json_array_get(json_object_get(json_object_get(b, "per_kernel"), "kb"), 0)), 16);
    cr_expect_str_eq(json_string_value(json_object_get(b, "origin")),
                     "per kernel: --block KERNEL=, else --block, else ptxray.yaml, else .reqntid, else host-code launches, "
                     "else default: blockDim.x a multiple of 32");
    json_decref(j);
    char *t[] = {BIN, "coalescing", KA, PTX, NULL};
    char *out = run_rc(t, 0, NULL);
    cr_expect(strstr(out, "\nassumed: block shape from --block KERNEL= in 1 of 2 functions, else unknown, assumed "
                          "blockDim.x is a multiple of 32; allocations 256-byte aligned; no index wraparound\n") != NULL,
              "%s", out);
    free(out);
    /* SARIF: the run's properties name the shapes */
    char *s[] = {BIN, "coalescing", "--format", "sarif", KA, PTX, NULL};
    j = run_json(s, 0);
    json_t *props = json_object_get(json_array_get(json_object_get(j, "runs"), 0), "properties");
    json_t *pk = json_object_get(json_object_get(json_object_get(props, "assumptions"), "block"), "per_kernel");
    cr_expect_eq(json_integer_value(json_array_get(json_object_get(pk, "ka"), 1)), 8);
    json_decref(j);
}

Test(block_cli, check_per_kernel)
{
    tu_at_root();
    char *a[] = {BIN, "check", "--enable", "divergent-branch", KA, KB, PTX, NULL};
    char *out = run_rc(a, 1, NULL);
    cr_expect(strstr(out, PTX ":29:2: warning: uncoalesced global load: lanes 4096 B apart, 32 sectors/request, ideal 4 "
                          "[uncoalesced]\n" PTX ":29:2: note: in ka: 1 PTX instruction, 28 excess sectors, cost 28\n") != NULL,
              "%s", out);
    cr_expect(strstr(out, PTX ":59:2: warning: uncoalesced global load: no single stride (4096 B along tid.x, warp 0 of "
                          "8), 16 sectors/request, ideal 4 [uncoalesced]\n" PTX ":59:2: note: in kb: 1 PTX instruction, 12 excess "
                          "sectors, cost 12\n") != NULL,
              "%s", out);
    /* the branch on tid.y*n: divergent in kb only */
    cr_expect(strstr(out, PTX ":34:2: warning:") == NULL, "%s", out);
    cr_expect(strstr(out, PTX ":64:2: warning: possible: branch not proven uniform across the warp (affine analysis): "
                          "@%p1 bra $L_kb; [divergent-branch, possible]\n") != NULL,
              "%s", out);
    cr_expect(strstr(out, "assumed: block shape from --block KERNEL=\nptxray check: 1 files, 5 findings") != NULL, "%s",
              out);
    free(out);
    char *j[] = {BIN, "check", "--format", "json", "--block", "64", KA, PTX, NULL};
    json_t *r = run_json(j, 1);
    json_t *b = json_object_get(json_object_get(r, "assumptions"), "block");
    cr_expect_eq(json_integer_value(json_array_get(json_object_get(b, "shape"), 0)), 64);
    cr_expect_eq(json_integer_value(json_array_get(json_object_get(json_object_get(b, "per_kernel"), "ka"), 0)), 32);
    json_decref(r);
}

Test(block_cli, analyze_per_kernel)
{
    tu_at_root();
    char *a[] = {BIN, "analyze", KA, KB, PTX, NULL};
    char *out = run_rc(a, 0, NULL);
    cr_expect(strstr(out, "== kernel ka ==\nblock: 32x8x1 (--block KERNEL=)\n") != NULL, "%s", out);
    cr_expect(strstr(out, "== kernel kb ==\nblock: 16x16x1 (--block KERNEL=)\n") != NULL, "%s", out);
    cr_expect(strstr(out, "branches: 1 conditional, 0 not proven uniform\n") != NULL, "%s", out);
    cr_expect(strstr(out, "branches: 1 conditional, 1 not proven uniform\n") != NULL, "%s", out);
    cr_expect(strstr(out, "     uncoalesced global load: lanes 4096 B apart, 32 sectors/request, ideal 4\n") != NULL,
              "%s", out);
    cr_expect(strstr(out, "     uncoalesced global load: no single stride (4096 B along tid.x, warp 0 of 8), 16 "
                          "sectors/request, ideal 4\n") != NULL,
              "%s", out);
    free(out);
    char *b[] = {BIN, "analyze", KA, PTX, NULL};
    out = run_rc(b, 0, NULL);
    cr_expect(strstr(out, "== kernel kb ==\nblock: unknown; assumed blockDim.x is a multiple of 32\n") != NULL, "%s",
              out);
    free(out);
}

/* tid.y*n is uniform in ka: the affine mode gives it a shared slot there;
 * in kb it is affine (16 lanes per row) and is rebuilt instead. */
Test(block_cli, regalloc_per_kernel)
{
    tu_at_root();
    char *err;
    char *a[] = {BIN, "regalloc", PTX, "--budget", "5", KA, KB, "-o", "/dev/null", NULL};
    free(run_rc(a, 0, &err));
    cr_expect(strstr(err, "  ka: pressure 7 -> 5 units (.pred 1); 4 spilled (uniform 3, affine 1, divergent 0)\n"
                          "    rules: (i) const 0, (ii) shared 3, (iii) affine 0, (iv) shared-affine 1, local 0\n") != NULL,
              "%s", err);
    cr_expect(strstr(err, "  kb: pressure 7 -> 5 units (.pred 1); 4 spilled (uniform 2, affine 2, divergent 0)\n"
                          "    rules: (i) const 0, (ii) shared 2, (iii) affine 1, (iv) shared-affine 1, local 0\n") != NULL,
              "%s", err);
    free(err);
}

Test(block_cli, spillcost_per_kernel)
{
    tu_at_root();
    char *a[] = {BIN, "spillcost", PTX, "--budgets", "5", "--format", "csv", KA, KB, NULL};
    char *out = run_rc(a, 0, NULL);
    /* file,kernel,mode,budget,spilled,uniform,affine,divergent,... */
    cr_expect(strstr(out, "\n" PTX ",ka,aff,5,4,3,1,0,") != NULL, "%s", out);
    cr_expect(strstr(out, "\n" PTX ",kb,aff,5,4,2,2,0,") != NULL, "%s", out);
    free(out);
}

/* Through nvcc (a rewrite at each ptxas step): ka puts more values in
 * shared slots than kb; with no --ptxray-block the two are the same.  The counts
 * (from the wrapper's line per rewritten kernel) belong to the installed
 * nvcc, so only compared. */
static void moved(const char *err, const char *k, int *loc, int *sh)
{
    char pat[64];
    snprintf(pat, sizeof pat, "kernel %s: div at budget 4: ", k);
    const char *p = strstr(err, pat);
    cr_assert_not_null(p, "%s", err);
    int n;
    cr_assert_eq(sscanf(p + strlen(pat), "%d values moved (%d to shared slots, %d to .local", &n, sh, loc), 3, "%s",
                 err);
}

Test(block_cli, nvcc_per_kernel, .timeout = 300)
{
    tu_at_root();
    if (!tc_find_nvcc() || !tc_find_ptxas()) cr_skip_test("nvcc/ptxas not found: the wrapper is not run");
    char dir[] = "/tmp/ptxray-blkXXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char cubin[128];
    snprintf(cubin, sizeof cubin, "%s/o.cubin", dir);
    int loc[2][2], sh[2][2];
    char *err;
    /* a --ptxray-block naming no kernel of this file is no error: PTXRAY_FLAGS
     * holds for every file of a build */
    char *a[] = {BIN, "nvcc", "--ptxray-budget", "4", "--ptxray-mode", "div", "--ptxray-block", "ka=32,8",
                 "--ptxray-block", "kb=16,16", "--ptxray-block=kq=32", "--ptxray-warn=none", "-arch=sm_80", "-cubin",
                 "-o", cubin, "tests/data/block_shapes.cu", NULL};
    free(run_rc(a, 0, &err));
    moved(err, "ka", &loc[0][0], &sh[0][0]);
    moved(err, "kb", &loc[0][1], &sh[0][1]);
    free(err);
    char *b[] = {BIN, "nvcc", "--ptxray-budget", "4", "--ptxray-mode", "div", "--ptxray-warn=none", "-arch=sm_80",
                 "-cubin", "-o", cubin, "tests/data/block_shapes.cu", NULL};
    free(run_rc(b, 0, &err));
    moved(err, "ka", &loc[1][0], &sh[1][0]);
    moved(err, "kb", &loc[1][1], &sh[1][1]);
    free(err);
    /* the scan prefers what goes to a slot, so the difference shows in the
     * values moved to shared slots (and .local does not grow) */
    cr_expect_gt(sh[0][0], sh[0][1], "ka %d to shared slots, kb %d", sh[0][0], sh[0][1]);
    cr_expect_leq(loc[0][0], loc[0][1], "ka %d .local, kb %d", loc[0][0], loc[0][1]);
    cr_expect_eq(loc[1][0], loc[1][1]);
    cr_expect_eq(sh[1][0], sh[1][1]);
    cr_expect_eq(access(cubin, F_OK), 0);
    unlink(cubin);
    rmdir(dir);
}

/* Bad forms and unknown kernels: the message, exit 2, nothing written. */
Test(block_cli, errors_write_nothing)
{
    tu_at_root();
    char dir[] = "/tmp/ptxray-blkXXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char outp[128];
    snprintf(outp, sizeof outp, "%s/out", dir);
    static const struct {
        const char *block, *msg;
    } forms[] = {
        {"32,x", "--block '32,x': expected X[,Y[,Z]] or KERNEL=X[,Y[,Z]], positive integers separated by commas\n"},
        {"1,2,3,4", "--block '1,2,3,4': expected X[,Y[,Z]] or KERNEL=X[,Y[,Z]], positive integers separated by commas\n"},
        {"ka=", "--block 'ka=': expected X[,Y[,Z]] or KERNEL=X[,Y[,Z]], positive integers separated by commas\n"},
        {"=32", "--block '=32': expected KERNEL=X[,Y[,Z]]: the kernel's name is missing\n"},
        {"ka=0,4", "--block 'ka=0,4': each extent must be between 1 and 1024\n"},
        {"ka=64,32", "--block 'ka=64,32': 2048 threads; a block has at most 1024\n"},
        {"kc=32", "--block 'kc=32': " PTX ": no function named 'kc'; give its symbol or its C++ name, in full or "
                  "without its parameters:\n  ka\n  kb\n"},
    };
    /* the commands with -o; analyze prints to stdout */
    static const char *const cmds[] = {"divergence", "uniformize", "coalescing", "check", "regalloc", "analyze"};
    for (size_t c = 0; c < sizeof cmds / sizeof *cmds; c++)
        for (size_t f = 0; f < sizeof forms / sizeof *forms; f++) {
            char *argv[12] = {BIN, (char *)cmds[c], PTX, "--block", "ka=32,8", "--block", (char *)forms[f].block};
            int n = 7;
            if (!strcmp(cmds[c], "regalloc")) argv[n++] = "--budget", argv[n++] = "5";
            if (strcmp(cmds[c], "analyze")) argv[n++] = "-o", argv[n++] = outp;
            argv[n] = NULL;
            char *out, *err, want[512];
            cr_expect_eq(tu_run(argv, &out, &err), 2, "%s %s", cmds[c], forms[f].block);
            /* check reads every file first: an unknown name is one of none of them */
            if (!strcmp(cmds[c], "check") && f == 6)
                snprintf(want, sizeof want, "ptxray check: --block 'kc=32': no kernel named 'kc' in any file\n");
            else snprintf(want, sizeof want, "ptxray %s: %s", cmds[c], forms[f].msg);
            cr_expect_str_eq(err, want, "%s %s", cmds[c], forms[f].block);
            cr_expect_str_eq(out, "", "%s %s", cmds[c], forms[f].block);
            cr_expect_neq(access(outp, F_OK), 0, "%s %s wrote %s", cmds[c], forms[f].block, outp);
            free(out);
            free(err);
        }
    char *s[] = {BIN, "spillcost", PTX, "--budgets", "5", "--block", "kc=32", NULL};
    char *out, *err;
    cr_expect_eq(tu_run(s, &out, &err), 2);
    cr_expect(strstr(err, "ptxray spillcost: --block 'kc=32': no kernel named 'kc' in any file\n") != NULL, "%s", err);
    cr_expect_str_eq(out, "");
    free(out);
    free(err);
    char *d[] = {BIN, "divergence", "--summary", "--block", "kc=32", "-o", outp, PTX, NULL};
    cr_expect_eq(tu_run(d, &out, &err), 2);
    cr_expect_str_eq(err, "ptxray divergence: --block 'kc=32': no kernel named 'kc' in any file\n");
    cr_expect_neq(access(outp, F_OK), 0);
    free(out);
    free(err);
    rmdir(dir);
}

/* The condition a verdict rests on (div_result.cond, filled by the
 * analysis when the default assumption is used), in text and JSON: set by
 * hand here on the gate of Fig. 8's uniform branch (%p2.1, simple
 * analysis). */
Test(block_cli, condition_in_reports)
{
    tu_at_root();
    const char *path = "tests/data/fig8_sumtriangle.ptx";
    ptx_diags d;
    ptx_diags_init(&d);
    ptx_module *m = ptx_parse_file(path, &d);
    cr_assert_not_null(m);
    prog *p = prog_build(m, PROG_GSA, NULL, &d);
    cr_assert_not_null(p);
    dr_config c = {.analysis = DIV_AN_SIMPLE, .list = 7};
    dr_func f;
    dr_analyse(&f, &p->funcs[0], &c.div, &c.blocks, DIV_AN_SIMPLE);
    div_result *r = f.r[DIV_AN_SIMPLE];
    cr_assert_eq(f.nbranches, 2);
    uint32_t gate;
    bool neg;
    cr_assert(gsa_branch_gate(p->funcs[0].ssa, f.branches[1].block, &gate, &neg));
    cr_assert_eq(div_branch(r, f.branches[1].block), DIV_UNIFORM);
    cr_expect_eq(div_branch_cond(r, f.branches[1].block), 0);
    r->cond[gate] = DIV_COND_X32;
    r->cond[f.values[0]] = DIV_COND_ROWS; /* %rd1.1, uniform */
    cr_expect_eq(div_branch_cond(r, f.branches[1].block), DIV_COND_X32);
    cr_expect_eq(div_stmt_cond(r, f.branches[1].stmt), DIV_COND_X32);
    cr_expect_eq(div_branch_cond(r, f.branches[0].block), 0);

    char *buf = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&buf, &len);
    dr_print_text(o, m, path, &f, 1, &c);
    fclose(o);
    cr_expect(strstr(buf, "  block shape: unknown; assumed blockDim.x is a multiple of 32 (verdicts that rely on it "
                          "say so)\n") != NULL,
              "%s", buf);
    cr_expect(strstr(buf, "    line  block  gate   verdict                                      source\n"
                          "      31  $l5    %p1.1  divergent                                    -\n"
                          "      34  BB2    %p2.1  uniform (if blockDim.x is a multiple of 32)  -\n") != NULL,
              "%s", buf);
    cr_expect(strstr(buf, " %p2.1   inst   uniform (if blockDim.x is a multiple of 32)  ") != NULL, "%s", buf);
    cr_expect(strstr(buf, "  %rd1.1  inst   uniform (if blockDim.x is a multiple of 32 or the block is "
                          "one-dimensional)  ") != NULL,
              "%s", buf);
    free(buf);

    json_t *j = dr_json(m, path, &f, 1, &c);
    json_t *k = json_array_get(json_object_get(j, "kernels"), 0), *brs = json_object_get(k, "branches");
    cr_expect(json_is_null(json_object_get(json_array_get(brs, 0), "condition")));
    cr_expect_str_eq(json_string_value(json_object_get(json_array_get(brs, 1), "condition")),
                     "blockDim.x is a multiple of 32");
    size_t i, with = 0;
    json_t *v;
    json_array_foreach(json_object_get(k, "values"), i, v) {
        json_t *cond = json_object_get(v, "condition");
        const char *reg = json_string_value(json_object_get(v, "reg"));
        cr_assert_not_null(cond, "%s has no condition key", reg);
        if (json_is_null(cond)) continue;
        with++;
        cr_expect_str_eq(json_string_value(cond), !strcmp(reg, "%p2.1") ? "blockDim.x is a multiple of 32"
                                                                         : "blockDim.x is a multiple of 32 or the "
                                                                           "block is one-dimensional",
                         "%s", reg);
    }
    cr_expect_eq(with, 2);
    cr_expect_str_eq(kernel_str(j, 0, "assumptions", "block_from"), "default: blockDim.x a multiple of 32");
    json_decref(j);
    dr_func_free(&f);
    prog_free(p);
    ptx_module_free(m);
    ptx_diags_free(&d);
}
