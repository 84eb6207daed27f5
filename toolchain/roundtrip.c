/* The printer's oracle (roundtrip.h). */
#include "roundtrip.h"
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "cubin.h"
#include "outfile.h"
#include "printer.h"
#include "ptx.h"
#include "toolchain.h"

int rt_file(const char *ptxas, const char *path, const char *arch_opt, const char *dir) {
    ptx_module *m = ptx_load(path, 1);
    if (!m) return 2;
    char arch[64];
    int debug = tc_target_debug(m);
    if (arch_opt) snprintf(arch, sizeof arch, "%s", arch_opt);
    else if (tc_target_arch(m, arch, sizeof arch)) {
        fprintf(stderr, "%s: no sm_XX in .target; give --arch\n", path);
        ptx_module_free(m);
        return 2;
    }
    char printed[4200], cub_a[4200], cub_b[4200], archarg[80];
    snprintf(printed, sizeof printed, "%s/printed.ptx", dir);
    snprintf(cub_a, sizeof cub_a, "%s/orig.cubin", dir);
    snprintf(cub_b, sizeof cub_b, "%s/printed.cubin", dir);
    snprintf(archarg, sizeof archarg, "-arch=%s", arch);
    outfile of;
    if (outfile_open(&of, printed)) { ptx_module_free(m); return 2; }
    ptx_print_module(of.f, m);
    ptx_module_free(m);
    if (outfile_commit(&of)) return 2;
    const char *srcs[2] = {path, printed}, *outs[2] = {cub_a, cub_b};
    for (int i = 0; i < 2; i++) {
        /* a ".target ..., debug" module is assembled as a -G build would be */
        char *argv[] = {(char *)ptxas, archarg, "-o", (char *)outs[i], (char *)srcs[i], NULL, NULL};
        if (debug) {
            argv[5] = argv[4];
            argv[4] = argv[3];
            argv[3] = argv[2];
            argv[2] = "-g";
        }
        char *log = NULL;
        int rc = tc_run(argv, &log);
        if (rc != 0) {
            fprintf(stderr, "%s: ptxas failed on the %s PTX (status %d)%s%s", path,
                    i ? "printed" : "original", rc, log && *log ? ":\n" : "\n", log ? log : "");
            free(log);
            return 2;
        }
        free(log);
    }
    cubin_text a, b;
    char err[512];
    if (cubin_read_text(cub_a, &a, err, sizeof err) || cubin_read_text(cub_b, &b, err, sizeof err)) {
        fprintf(stderr, "%s: %s\n", path, err);
        return 2;
    }
    const char *diff = cubin_text_diff(&a, &b);
    size_t bytes = 0;
    for (size_t i = 0; i < a.n; i++) bytes += a.v[i].size;
    if (diff) printf("%s: DIFFERENT (%s, %s)\n", path, arch, diff);
    else printf("%s: identical (%s, %zu code section%s, %zu bytes)\n", path, arch, a.n, a.n == 1 ? "" : "s", bytes);
    cubin_text_free(&a);
    cubin_text_free(&b);
    unlink(printed);
    unlink(cub_a);
    unlink(cub_b);
    return diff ? 1 : 0;
}
