/* ptxray list: the kernels of PTX files, by their C++ names (report/list_report.c). */
#include <getopt.h>
#include <stdio.h>
#include "commands.h"
#include "list_report.h"

static void usage(FILE *o)
{
    fputs("usage: ptxray list FILE...\n"
          "Lists the kernels of each file: the name (C++ names demangled, with the\n"
          "symbol), the parameters' types, the launch bounds (.reqntid, .maxntid) and,\n"
          "when ptxas is found ($PTXAS, PATH, /usr/local/cuda/bin), what ptxas -v says\n"
          "for the file's .target: registers, spill bytes, shared memory, stack frame.\n"
          "Every --kernel option takes these names, their symbols or a unique prefix.\n"
          "Exit status: 0, or 2 if a file cannot be read or parsed.\n",
          o);
}

int cmd_list(int argc, char **argv)
{
    static const struct option opts[] = {{"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (c == 'h') {
            usage(stdout);
            return 0;
        }
        usage(stderr);
        return 2;
    }
    if (optind >= argc) {
        usage(stderr);
        return 2;
    }
    return list_report(argv + optind, argc - optind);
}
