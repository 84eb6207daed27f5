/* fzgen SEED [--launch]: prints the kernel of SEED (fuzz/gen/fzgen.h), or
 * its launch as a .launches line: what `make difftest` runs, reproduced. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fzgen.h"

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: fzgen SEED [--launch]\n");
        return 2;
    }
    fz_kernel k;
    fz_generate(strtoull(argv[1], NULL, 0), &k);
    if (argc > 2 && !strcmp(argv[2], "--launch")) {
        char line[1024];
        fz_launch_line(&k, line, sizeof line);
        printf("%s\n", line);
    } else
        fwrite(k.ptx, 1, k.len, stdout);
    fz_free(&k);
    return 0;
}
