/* ptxray parse / print: the front end's own commands. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "inputs.h"
#include "outfile.h"
#include "parse_report.h"
#include "printer.h"

static void parse_usage(FILE *o) {
    fputs("usage: ptxray parse [--format text|json] [-q] FILE...\n"
          "Parses each file (\"-\" reads standard input) and prints a summary of its\n"
          "functions.  Errors are reported as file:line:col with the source line;\n"
          "the exit status is 2 if any file has an error, else 0.\n", o);
}

int cmd_parse(int argc, char **argv) {
    static const struct option opts[] = {
        {"format", required_argument, 0, 'f'}, {"quiet", no_argument, 0, 'q'},
        {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    bool json = false, quiet = false;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "f:qh", opts, NULL)) != -1) {
        switch (c) {
        case 'f':
            if (!strcmp(optarg, "json")) json = true;
            else if (strcmp(optarg, "text")) { fprintf(stderr, "ptxray parse: unknown format '%s'\n", optarg); return 2; }
            break;
        case 'q': quiet = true; break;
        case 'h': parse_usage(stdout); return 0;
        default: parse_usage(stderr); return 2;
        }
    }
    if (optind >= argc) { parse_usage(stderr); return 2; }
    return parse_report(argv + optind, argc - optind, json, quiet);
}

static void print_usage(FILE *o) {
    fputs("usage: ptxray print FILE [-o OUT]\n"
          "Parses FILE and prints it back from the IR (to OUT, or standard output).\n"
          "The output assembles to the same machine code; comments are dropped.\n"
          "On any error nothing is written and the exit status is 2.\n", o);
}

int cmd_print(int argc, char **argv) {
    static const struct option opts[] = {
        {"output", required_argument, 0, 'o'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    const char *out = NULL;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'h': print_usage(stdout); return 0;
        default: print_usage(stderr); return 2;
        }
    }
    if (optind + 1 != argc) { print_usage(stderr); return 2; }
    in_unit u;
    if (in_single(&u, "print", argv[optind], stderr)) return 2;
    ptx_module *m = in_load(&u, 1, stderr);
    if (!m) { in_unit_free(&u); return 2; }
    outfile of;
    if (outfile_open(&of, out)) { ptx_module_free(m); in_unit_free(&u); return 2; }
    ptx_print_module(of.f, m);
    ptx_module_free(m);
    in_unit_free(&u);
    return outfile_commit(&of) ? 2 : 0;
}
