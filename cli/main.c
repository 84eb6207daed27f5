/* ptxray: one binary, subcommands. */
#include <stdio.h>
#include <string.h>
#include "commands.h"
#ifdef __GLIBC__
#include <malloc.h>
#endif

/* The analyses' scratch (arrays over a function's blocks, values and
 * registers, freed when it is done) comes from malloc.  glibc maps
 * blocks of 128 KiB and more (its threshold rises only to the largest one
 * freed so far) and hands freed heap tops back to the kernel: the next
 * function's scratch was then faulted in and zeroed by the kernel again
 * (a third of check's CPU time on a 100k-block kernel was system time; a
 * worker of -j pays it per file).  Kept in the heap, it serves the next
 * function and file.  Peak memory is the same: only what is freed stays. */
static void tune_malloc(void)
{
#ifdef __GLIBC__
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
}

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} commands[] = {
    {"parse", cmd_parse, "check PTX files and summarise them"},
    {"list", cmd_list, "the kernels of PTX files: C++ names, parameters, launch bounds, ptxas -v figures"},
    {"print", cmd_print, "print PTX from the IR (round-trips through ptxas)"},
    {"roundtrip", cmd_roundtrip, "assemble a file and its printed form with ptxas and compare the code"},
    {"cfg", cmd_cfg, "control-flow graph, dominators, loops, SSA and gated SSA (text, dot, json)"},
    {"divergence", cmd_divergence, "which values and branches are uniform across a warp, with statistics"},
    {"uniformize", cmd_uniformize, "mark the branches proven uniform as .uni (bra.uni, brx.idx.uni)"},
    {"run", cmd_run, "execute a kernel on the warp-level SIMT emulator, with dynamic checks"},
    {"coalescing", cmd_coalescing, "uncoalesced global accesses and shared-memory bank conflicts"},
    {"check", cmd_check, "CI check of PTX files and directories: findings, baselines, SARIF"},
    {"analyze", cmd_analyze, "one report per kernel of a .ptx or .cu file, findings by likely impact"},
    {"regalloc", cmd_regalloc, "divergence-aware register allocation: spill to .local/.shared, rematerialise"},
    {"nvcc", cmd_nvcc, "nvcc itself, with warnings at .cu lines and an optional rewrite before ptxas"},
    {"launches", cmd_launches, "kernel launches of CUDA host code and their block shapes (libclang)"},
    {"spillcost", cmd_spillcost, "spill cost of each regalloc mode across budgets, with ptxas -v as reference"},
};

static void usage(FILE *o) {
    fprintf(o, "usage: ptxray <command> [options] FILE...\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(o, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(o, "\n`ptxray <command> --help` describes a command.  Exit status: 0 ok, 1 findings\n"
               "or differences, 2 bad input or usage.\n");
}

int main(int argc, char **argv) {
    tune_malloc();
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
        printf("ptxray %s\n", PTXRAY_VERSION);
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name)) return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "ptxray: unknown command '%s'\n\n", argv[1]);
    usage(stderr);
    return 2;
}
