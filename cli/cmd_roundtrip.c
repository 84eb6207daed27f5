/* ptxray roundtrip: the printer's oracle, usable by anyone.  The original
 * and the printed PTX are assembled with the same ptxas and options; their
 * .text.* sections must be byte-identical. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "commands.h"
#include "roundtrip.h"
#include "toolchain.h"

static void rt_usage(FILE *o) {
    fputs("usage: ptxray roundtrip [--arch sm_XX] FILE...\n"
          "Prints each file from the IR, assembles the original and the printed PTX\n"
          "with ptxas (found via $PTXAS, PATH or /usr/local/cuda/bin) for the file's\n"
          ".target (or --arch), and compares the code (.text.*) sections byte for byte.\n"
          "Exit status: 0 all identical, 1 some differ, 2 bad input or ptxas failure.\n", o);
}

int cmd_roundtrip(int argc, char **argv) {
    static const struct option opts[] = {
        {"arch", required_argument, 0, 'a'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    const char *arch = NULL;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "a:h", opts, NULL)) != -1) {
        switch (c) {
        case 'a': arch = optarg; break;
        case 'h': rt_usage(stdout); return 0;
        default: rt_usage(stderr); return 2;
        }
    }
    if (optind >= argc) { rt_usage(stderr); return 2; }
    const char *ptxas = tc_find_ptxas();
    if (!ptxas) {
        fputs("ptxray roundtrip: ptxas not found (looked at $PTXAS, PATH and /usr/local/cuda/bin);\n"
              "install the CUDA toolkit or set PTXAS=/path/to/ptxas\n", stderr);
        return 2;
    }
    const char *tmp = getenv("TMPDIR");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/ptxray-rtXXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        perror("ptxray roundtrip: mkdtemp");
        return 2;
    }
    int worst = 0, ndiff = 0, nerr = 0, nok = 0;
    for (int i = optind; i < argc; i++) {
        int r = rt_file(ptxas, argv[i], arch, dir);
        if (r == 0) nok++;
        else if (r == 1) ndiff++;
        else nerr++;
        if (r == 2 || (r == 1 && worst == 0)) worst = r;
    }
    rmdir(dir);
    if (argc - optind > 1) printf("%d identical, %d different, %d failed\n", nok, ndiff, nerr);
    return worst;
}
