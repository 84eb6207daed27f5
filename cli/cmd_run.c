/* ptxray run: execute a kernel on the warp-level SIMT emulator. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "run_report.h"
#include "run_spec.h"

static void run_usage(FILE *o)
{
    fputs("usage: ptxray run FILE --kernel NAME --grid X[,Y[,Z]] --block X[,Y[,Z]] --arg SPEC...\n"
          "Executes a kernel on the warp-level SIMT emulator (docs/emulator.md).\n"
          "\n"
          "Arguments, one --arg per kernel parameter, in order:\n"
          "  TYPE:VALUE                   a scalar: i8 i16 i32 i64 u8 u16 u32 u64 f16 bf16 f32 f64\n"
          "                               (decimal, 0x hex, or a float), e.g. i32:1024 f32:0.5\n"
          "  [NAME=]buf:TYPE:COUNT[:INIT] a new zero-based global buffer of COUNT elements; the\n"
          "                               parameter is its address.  INIT is one of\n"
          "                                 zero (default), fill:V, iota[:START[:STEP]],\n"
          "                                 rand:SEED[:LO:HI] (splitmix64; integers uniform in\n"
          "                                 [LO,HI], default [0,99]; floats in [LO,HI), default [0,1))\n"
          "  [NAME=]buf:TYPE:file:PATH    a buffer holding the bytes of PATH\n"
          "  ptr:NAME[+BYTES]             the address of a buffer defined before\n"
          "  struct:FIELD,FIELD,...       a structure passed by value; each FIELD is TYPE:VALUE or\n"
          "                               ptr:NAME[+BYTES], placed at its natural alignment\n"
          "  zero                         a parameter of any size, all bytes zero\n"
          "Data options:\n"
          "  --buf NAME=TYPE:COUNT[:INIT] a global buffer that is not a parameter (for ptr:)\n"
          "  --set SYM=TYPE:INIT          initialise a module .global or .const variable (whole),\n"
          "  --set SYM=TYPE:file:PATH     from a file, or\n"
          "  --set SYM=struct:FIELDS      from fields\n"
          "  --dump NAME=PATH             after the run, write a buffer or module variable to PATH\n"
          "                               (raw bytes)\n"
          "  --print NAME[:COUNT]         after the run, print its first COUNT elements (default 16;\n"
          "                               a module variable not set with --set prints as bytes)\n"
          "Execution:\n"
          "  --kernel NAME                the kernel (optional when the module has one)\n"
          "  --launches FILE              the grid, block and arguments of the kernel's run in a\n"
          "                               launch file (docs/launches.md), instead of the options\n"
          "  --grid X[,Y[,Z]]             blocks (default 1,1,1)\n"
          "  --block X[,Y[,Z]]            threads per block (at most 1024)\n"
          "  --shared-bytes N             dynamic shared memory per block\n"
          "  --schedule lockstep|interleave|its\n"
          "                               lockstep (default): diverged paths of a warp in stack order;\n"
          "                               interleave: diverged paths interleaved at random (--seed N);\n"
          "                               its: any group of lanes may split off and run apart until a\n"
          "                               bar.warp.sync, .sync collective, barrier or exit (--seed N)\n"
          "  --max-steps N                stop after N warp-instructions (default 2000000000)\n"
          "  --resident-blocks N          blocks executing concurrently (default 16)\n"
          "  --local-bytes N              local memory per thread (default 524288)\n"
          "  --cooperative                all blocks resident and a grid-sync workspace (grid.sync())\n"
          "Checks (reported per PTX instruction, with the CUDA line when .loc is present):\n"
          "  --coalescing                 32-byte sectors and 128-byte lines per global request\n"
          "  --racecheck                  shared-memory RAW/WAR/WAW hazards between barriers\n"
          "  --bankcheck                  shared-memory bank-conflict degree per request\n"
          "  --synccheck                  barriers and .sync warp collectives whose threads do not\n"
          "                               arrive as the PTX ISA requires (divergent-barrier,\n"
          "                               divergent-collective), with where the others were\n"
          "  --check-divergence[=simple|affine|affine2]\n"
          "                               check what the divergence analysis (default affine)\n"
          "                               claims against every warp: uniform values and\n"
          "                               branches, affine coefficients\n"
          "Output:\n"
          "  --format text|json           summary and reports (default text)\n"
          "  -q, --quiet                  no summary line\n"
          "Exit status: 0 ok; 1 the kernel faulted (out-of-bounds or misaligned access, reported\n"
          "with its PTX line and address), trapped, deadlocked, hit --max-steps, --racecheck\n"
          "found hazards, --synccheck a report or --check-divergence a violated claim; 2 bad usage or input, or an\n"
          "instruction the emulator does not support.\n",
          o);
}

static bool dims(const char *s, emu_dim3 *d)
{
    unsigned long v[3] = {1, 1, 1};
    int k = 0;
    const char *p = s;
    while (k < 3) {
        char *end;
        if (*p < '0' || *p > '9') return false;
        v[k++] = strtoul(p, &end, 10);
        if (v[k - 1] == 0 || v[k - 1] > 0x7fffffffu) return false;
        if (!*end) break;
        if (*end != ',') return false;
        p = end + 1;
    }
    if (k == 3 && strchr(p, ',')) return false;
    d->x = (uint32_t)v[0];
    d->y = (uint32_t)v[1];
    d->z = (uint32_t)v[2];
    return true;
}

enum { O_KERNEL = 256, O_GRID, O_BLOCK, O_ARG, O_BUF, O_SET, O_DUMP, O_PRINT, O_SHARED, O_SCHED, O_SEED,
       O_STEPS, O_RESIDENT, O_LOCAL, O_COOP, O_COAL, O_RACE, O_BANK, O_SYNC, O_CHECKDIV, O_FORMAT, O_LAUNCHES };

int cmd_run(int argc, char **argv)
{
    static const struct option opts[] = {
        {"kernel", required_argument, 0, O_KERNEL}, {"grid", required_argument, 0, O_GRID},
        {"block", required_argument, 0, O_BLOCK}, {"arg", required_argument, 0, O_ARG},
        {"buf", required_argument, 0, O_BUF}, {"set", required_argument, 0, O_SET},
        {"dump", required_argument, 0, O_DUMP}, {"print", required_argument, 0, O_PRINT},
        {"shared-bytes", required_argument, 0, O_SHARED}, {"schedule", required_argument, 0, O_SCHED},
        {"seed", required_argument, 0, O_SEED}, {"max-steps", required_argument, 0, O_STEPS},
        {"resident-blocks", required_argument, 0, O_RESIDENT}, {"local-bytes", required_argument, 0, O_LOCAL},
        {"cooperative", no_argument, 0, O_COOP}, {"coalescing", no_argument, 0, O_COAL},
        {"racecheck", no_argument, 0, O_RACE}, {"bankcheck", no_argument, 0, O_BANK},
        {"synccheck", no_argument, 0, O_SYNC},
        {"check-divergence", optional_argument, 0, O_CHECKDIV},
        {"format", required_argument, 0, O_FORMAT}, {"quiet", no_argument, 0, 'q'},
        {"launches", required_argument, 0, O_LAUNCHES},
        {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    run_job J;
    memset(&J, 0, sizeof J);
    J.grid = (emu_dim3){1, 1, 1};
    J.eo.printf_out = stdout;
    J.divan = DIV_AN_AFFINE;
    int c;
    uint64_t v;
    optind = 1;
#define BAD(...) do { fprintf(stderr, "ptxray run: " __VA_ARGS__); fputc('\n', stderr); return 2; } while (0)
    while ((c = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
        switch (c) {
        case O_KERNEL: J.kernel = optarg; break;
        case O_LAUNCHES: J.launches = optarg; break;
        case O_GRID: if (!dims(optarg, &J.grid)) BAD("--grid '%s': expected X[,Y[,Z]] of positive integers", optarg); break;
        case O_BLOCK: if (!dims(optarg, &J.block)) BAD("--block '%s': expected X[,Y[,Z]] of positive integers", optarg); break;
        case O_ARG: if (J.nargs == RUN_MAX_SPECS) BAD("too many --arg"); J.args[J.nargs++] = optarg; break;
        case O_BUF: if (J.nbufs == RUN_MAX_SPECS) BAD("too many --buf"); J.bufs[J.nbufs++] = optarg; break;
        case O_SET: if (J.nsets == RUN_MAX_SPECS) BAD("too many --set"); J.sets[J.nsets++] = optarg; break;
        case O_DUMP: if (J.ndumps == RUN_MAX_SPECS) BAD("too many --dump"); J.dumps[J.ndumps++] = optarg; break;
        case O_PRINT: if (J.nprints == RUN_MAX_SPECS) BAD("too many --print"); J.prints[J.nprints++] = optarg; break;
        case O_SHARED:
            if (!spec_number(optarg, &v) || v > (1u << 20)) BAD("--shared-bytes '%s': expected 0 to 1048576", optarg);
            J.eo.shared_bytes = (uint32_t)v;
            break;
        case O_SCHED:
            if (!strcmp(optarg, "lockstep")) J.eo.schedule = EMU_SCHED_LOCKSTEP;
            else if (!strcmp(optarg, "interleave")) J.eo.schedule = EMU_SCHED_INTERLEAVE;
            else if (!strcmp(optarg, "its")) J.eo.schedule = EMU_SCHED_ITS;
            else BAD("--schedule '%s': expected lockstep, interleave or its", optarg);
            break;
        case O_SEED: if (!spec_number(optarg, &J.eo.seed)) BAD("--seed '%s': expected a non-negative integer", optarg); break;
        case O_STEPS: if (!spec_number(optarg, &J.eo.max_steps) || !J.eo.max_steps) BAD("--max-steps '%s': expected a positive integer", optarg); break;
        case O_RESIDENT:
            if (!spec_number(optarg, &v) || !v || v > 4096) BAD("--resident-blocks '%s': expected 1 to 4096", optarg);
            J.eo.resident_blocks = (uint32_t)v;
            break;
        case O_LOCAL:
            if (!spec_number(optarg, &v) || !v || v > (1u << 30)) BAD("--local-bytes '%s': expected 1 to 2^30", optarg);
            J.eo.local_bytes = (uint32_t)v;
            break;
        case O_COOP: J.eo.cooperative = true; break;
        case O_COAL: J.eo.checks |= EMU_CHECK_COALESCING; break;
        case O_RACE: J.eo.checks |= EMU_CHECK_RACE; break;
        case O_BANK: J.eo.checks |= EMU_CHECK_BANK; break;
        case O_SYNC: J.eo.checks |= EMU_CHECK_SYNC; break;
        case O_CHECKDIV:
            J.checkdiv = true;
            if (!optarg || !strcmp(optarg, "affine")) J.divan = DIV_AN_AFFINE;
            else if (!strcmp(optarg, "simple")) J.divan = DIV_AN_SIMPLE;
            else if (!strcmp(optarg, "affine2")) J.divan = DIV_AN_AFFINE2;
            else BAD("--check-divergence=%s: expected simple, affine or affine2", optarg);
            break;
        case O_FORMAT:
            if (!strcmp(optarg, "json")) J.json = true;
            else if (strcmp(optarg, "text")) BAD("--format '%s': expected text or json", optarg);
            break;
        case 'q': J.quiet = true; break;
        case 'h': run_usage(stdout); return 0;
        default: run_usage(stderr); return 2;
        }
    }
    if (optind + 1 != argc) {
        run_usage(stderr);
        return 2;
    }
    if (J.launches && (J.block.x || J.nargs || J.grid.x != 1 || J.grid.y != 1 || J.grid.z != 1))
        BAD("--launches gives the grid, block and arguments: no --grid, --block or --arg with it");
    if (!J.block.x && !J.launches) BAD("--block is required");
    J.path = argv[optind];
    return run_exec(&J);
#undef BAD
}
