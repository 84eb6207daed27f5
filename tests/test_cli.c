/* The binary as a user runs it: exit statuses, outputs, atomic writes. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "testutil.h"

#define BIN (char *)tu_bin()
static const char *kfile(void) {
    static char p[4096];
    snprintf(p, sizeof p, "%s", tu_src("tests/data/features.ptx"));
    return p;
}

Test(cli, usage_and_unknown_command) {
    char *out, *err;
    char *a0[] = {BIN, NULL};
    cr_expect_eq(tu_run(a0, &out, &err), 2);
    cr_expect(strstr(err, "usage: ptxray") != NULL);
    free(out); free(err);
    char *a1[] = {BIN, "--help", NULL};
    cr_expect_eq(tu_run(a1, &out, &err), 0);
    cr_expect(strstr(out, "roundtrip") != NULL);
    free(out); free(err);
    char *a2[] = {BIN, "frob", NULL};
    cr_expect_eq(tu_run(a2, &out, &err), 2);
    cr_expect(strstr(err, "unknown command 'frob'") != NULL);
    free(out); free(err);
    char *a3[] = {BIN, "parse", "--format", "xml", (char *)kfile(), NULL};
    cr_expect_eq(tu_run(a3, &out, &err), 2);
    free(out); free(err);
}

/* A directory where a file is expected: an error naming it, exit 2, for
 * every command that loads one file (the caret lines' second read of the
 * input must not try to read a directory). */
Test(cli, directory_as_input_is_an_error) {
    const char *cmds[][3] = {{"parse", NULL}, {"print", NULL}, {"divergence", NULL}, {"divergence", "--summary"}};
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", tu_src("tests/data"));
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        char *out, *err;
        char *a[] = {BIN, (char *)cmds[i][0], (char *)(cmds[i][1] ? cmds[i][1] : dir), cmds[i][1] ? dir : NULL, NULL};
        cr_expect_eq(tu_run(a, &out, &err), 2, "%s %s: %s", cmds[i][0], cmds[i][1] ? cmds[i][1] : "", err);
        char want[4200];
        snprintf(want, sizeof want, "%s: error: is a directory\n", dir);
        cr_expect(strstr(err, want) != NULL, "%s: %s", cmds[i][0], err);
        free(out); free(err);
    }
}

Test(cli, parse_summary_and_json) {
    char *out, *err;
    char *a[] = {BIN, "parse", (char *)kfile(), NULL};
    cr_assert_eq(tu_run(a, &out, &err), 0, "%s", err);
    cr_expect(strstr(out, ": PTX 8.5, 1 kernel, 4 device functions, 82 instructions\n") != NULL, "%s", out);
    cr_expect(strstr(out, "  .entry features: 3 params, ") != NULL, "%s", out);
    free(out); free(err);
    char *b[] = {BIN, "parse", "--format", "json", (char *)kfile(), NULL};
    cr_assert_eq(tu_run(b, &out, &err), 0);
    json_error_t je;
    json_t *root = json_loads(out, 0, &je);
    cr_assert_not_null(root, "invalid JSON: %s", je.text);
    json_t *f0 = json_array_get(json_object_get(root, "files"), 0);
    cr_expect(json_is_true(json_object_get(f0, "ok")));
    cr_expect_str_eq(json_string_value(json_object_get(f0, "version")), "8.5");
    json_t *fs = json_object_get(f0, "functions");
    size_t i;
    json_t *f;
    int found = 0;
    json_array_foreach(fs, i, f) {
        if (!strcmp(json_string_value(json_object_get(f, "name")), "features")) {
            found = 1;
            cr_expect_str_eq(json_string_value(json_object_get(f, "kind")), "entry");
            cr_expect_eq(json_integer_value(json_object_get(f, "params")), 3);
        }
    }
    cr_expect(found);
    json_decref(root);
    free(out); free(err);
}

Test(cli, print_to_file_equals_stdout) {
    char dir[] = "/tmp/ptxray-cliXXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char outp[4200];
    snprintf(outp, sizeof outp, "%s/out.ptx", dir);
    char *out, *err, *out2;
    char *a[] = {BIN, "print", (char *)kfile(), "-o", outp, NULL};
    cr_assert_eq(tu_run(a, &out, &err), 0, "%s", err);
    cr_expect_str_eq(out, "");
    free(out); free(err);
    char *b[] = {BIN, "print", (char *)kfile(), NULL};
    cr_assert_eq(tu_run(b, &out2, &err), 0);
    char *file = tu_read(outp, NULL);
    cr_expect_str_eq(file, out2);
    free(file); free(out2); free(err);
    unlink(outp);
    rmdir(dir);
}

Test(cli, failed_print_leaves_output_untouched) {
    char dir[] = "/tmp/ptxray-cliXXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char bad[4200], outp[4200];
    snprintf(bad, sizeof bad, "%s/bad.ptx", dir);
    snprintf(outp, sizeof outp, "%s/out.ptx", dir);
    FILE *f = fopen(bad, "w");
    fputs(".version 8.0\n.target sm_80\n.address_size 64\n.entry k()\n{\n\tret\n}\n", f);
    fclose(f);
    f = fopen(outp, "w");
    fputs("previous contents\n", f);
    fclose(f);
    char *out, *err;
    char *a[] = {BIN, "print", bad, "-o", outp, NULL};
    cr_expect_eq(tu_run(a, &out, &err), 2);
    char want[4300];
    snprintf(want, sizeof want, "%s:7:1: error: unexpected '}', expected ';'\n }\n ^\n", bad);
    cr_expect_str_eq(err, want);
    char *keep = tu_read(outp, NULL);
    cr_expect_str_eq(keep, "previous contents\n");
    free(keep); free(out); free(err);
    /* no temporary left behind */
    char cmd[4400];
    snprintf(cmd, sizeof cmd, "test $(ls -A %s | wc -l) -eq 2", dir);
    cr_expect_eq(system(cmd), 0, "stray files in %s", dir);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_expect_eq(system(cmd), 0);
}

Test(cli, missing_ptxas_is_a_clear_error) {
    char *out, *err;
    setenv("PTXAS", "/nonexistent/ptxas", 1);
    char *a[] = {BIN, "roundtrip", (char *)kfile(), NULL};
    int rc = tu_run(a, &out, &err);
    unsetenv("PTXAS");
    cr_expect_eq(rc, 2);
    cr_expect(strstr(err, "ptxas not found") != NULL, "%s", err);
    free(out); free(err);
}

Test(cli, missing_file) {
    char *out, *err;
    char *a[] = {BIN, "parse", "/nonexistent/x.ptx", NULL};
    cr_expect_eq(tu_run(a, &out, &err), 2);
    cr_expect_str_eq(err, "/nonexistent/x.ptx: error: cannot open: No such file or directory\n");
    free(out); free(err);
}

/* Output files get the mode a new file gets under the umask (0644 under
 * 022, 0640 under 027), not mkstemp's 0600: -o of print, check's JSON,
 * its baseline and regalloc's rewrite. */
Test(cli, output_files_honour_the_umask) {
    char dir[] = "/tmp/ptxray-cliXXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    static const mode_t masks[] = {022, 027};
    for (int k = 0; k < 2; k++) {
        mode_t old = umask(masks[k]);
        char p1[4200], p2[4200], p3[4200], p4[4200];
        snprintf(p1, sizeof p1, "%s/out.ptx", dir);
        snprintf(p2, sizeof p2, "%s/check.json", dir);
        snprintf(p3, sizeof p3, "%s/base.txt", dir);
        snprintf(p4, sizeof p4, "%s/ra.ptx", dir);
        char *a[] = {BIN, "print", (char *)kfile(), "-o", p1, NULL};
        char *b[] = {BIN, "check", (char *)kfile(), "--format", "json", "-o", p2, NULL};
        char *c[] = {BIN, "check", (char *)kfile(), "--write-baseline", p3, NULL};
        char *d[] = {BIN, "regalloc", (char *)kfile(), "--budget", "8", "--mode", "aff", "-o", p4, NULL};
        char **cmds[] = {a, b, c, d};
        const char *paths[] = {p1, p2, p3, p4};
        for (int i = 0; i < 4; i++) {
            char *out, *err;
            int rc = tu_run(cmds[i], &out, &err);
            cr_expect(rc == 0 || rc == 1, "%s: %s", paths[i], err);
            free(out);
            free(err);
            struct stat st;
            cr_assert_eq(stat(paths[i], &st), 0, "%s", paths[i]);
            cr_expect_eq(st.st_mode & 0777, 0666 & ~masks[k], "%s: mode %o under umask %03o", paths[i],
                         (unsigned)(st.st_mode & 0777), (unsigned)masks[k]);
            unlink(paths[i]);
        }
        umask(old);
    }
    rmdir(dir);
}
