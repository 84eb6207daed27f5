/* The warp-level SIMT emulator: runs a PTX kernel of a parsed module on the
 * CPU, a grid of blocks of warps of 32 lanes, with global, shared, local,
 * constant and parameter memory, SIMT reconvergence, barriers, warp
 * collectives and optional dynamic checks (coalescing, shared-memory races,
 * bank conflicts).  docs/emulator.md describes the model.
 *
 * Typical use:
 *     emu_machine *M = emu_create(module, &opts);
 *     uint64_t x = emu_malloc(M, n * 4, "x");           (device address)
 *     memcpy(emu_host(M, x, n * 4), data, n * 4);
 *     emu_arg args[] = {{&x, 8}, {&n, 4}};
 *     emu_status s = emu_launch(M, "kernel", grid, block, args, 2, &diags);
 *     ... read emu_host(M, x, n * 4) ...
 *     emu_destroy(M);
 *
 * Every error (out-of-bounds access, unsupported instruction, step limit,
 * deadlock, trap) stops the launch and is reported in diags with the PTX
 * position of the instruction; the emulator itself never crashes on bad
 * input.  Everything is deterministic: same inputs and options, same
 * results and reports. */
#ifndef PTXRAY_EMU_H
#define PTXRAY_EMU_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "ir.h"
#include "ptx.h"

typedef struct emu_machine emu_machine;

typedef struct emu_dim3 {
    uint32_t x, y, z;
} emu_dim3;

typedef enum emu_schedule {
    /* Lock-step warps: the paths of a diverged warp run one after the other
     * (stack order) and reconverge at the branch's immediate post-dominator. */
    EMU_SCHED_LOCKSTEP,
    /* Independent thread scheduling as sm_70+ may do it: the divergent paths
     * of a warp run interleaved in a seeded random order, a few instructions
     * at a time, so code that silently relies on lock-step shows up. */
    EMU_SCHED_INTERLEAVE,
    /* Adversarial independent thread scheduling (what the PTX ISA allows
     * on sm_70+, not what today's hardware happens to do): at any
     * instruction a group of lanes may split into two groups that run
     * independently in a seeded random interleaving.  Groups never
     * reconverge at post-dominators; they meet again only where lanes must
     * wait for each other: bar.warp.sync and the .sync collectives (for
     * the lanes of their member masks), bar.sync/barrier, and exit.
     * activemask returns the lanes of the group executing it.  Stricter
     * than the other schedules where the ISA leaves behaviour undefined:
     * a collective executed by a lane outside its member mask, and a
     * bar.warp.sync whose mask names a lane that has exited, stop the run.
     * Same seed, same run (docs/emulator.md, "Independent thread
     * scheduling"). */
    EMU_SCHED_ITS,
} emu_schedule;

enum emu_check {
    EMU_CHECK_COALESCING = 1u << 0, /* sectors/lines per global request */
    EMU_CHECK_RACE = 1u << 1,       /* shared-memory RAW/WAR/WAW hazards */
    EMU_CHECK_BANK = 1u << 2,       /* shared-memory bank conflicts */
    /* barriers and .sync collectives whose threads do not arrive as the
     * PTX ISA requires (divergent-barrier, divergent-collective) */
    EMU_CHECK_SYNC = 1u << 3,
};

typedef enum emu_status {
    EMU_OK = 0,
    EMU_ERR_USAGE,       /* bad launch: unknown kernel, argument sizes, dimensions */
    EMU_ERR_UNSUPPORTED, /* an instruction the emulator does not implement was reached */
    EMU_ERR_FAULT,       /* out-of-bounds / misaligned access, bad call target, ... */
    EMU_ERR_TRAP,        /* trap, or a failed device-side assert */
    EMU_ERR_LIMIT,       /* --max-steps reached, or a resource limit */
    EMU_ERR_DEADLOCK,    /* every thread waits (barrier or warp collective) */
} emu_status;

/* Exit status the CLI uses for a launch status: 0 ok, 1 the kernel itself
 * misbehaved (fault, trap, limit, deadlock), 2 the input could not be run
 * (usage, unsupported instruction). */
int emu_status_exit_code(emu_status s);
const char *emu_status_name(emu_status s);

/* ---- observer: the per-instruction hook --------------------------------- */
enum { EMU_OBS_BEFORE = 0, EMU_OBS_AFTER = 1 };

typedef struct emu_event {
    int phase;               /* EMU_OBS_BEFORE: sources valid; AFTER: results written */
    const ptx_func *fn;      /* the function the instruction belongs to */
    uint32_t stmt;           /* its index in fn->stmts */
    const ptx_inst *inst;
    uint32_t path_mask;      /* lanes of the executing path (before the guard) */
    uint32_t active_mask;    /* lanes that execute it (guard applied) */
    emu_dim3 block;          /* %ctaid */
    uint32_t warp;           /* warp index in the block */
    const void *priv_;       /* for emu_event_reg */
} emu_event;

typedef struct emu_observer {
    void (*on_inst)(void *user, const emu_event *ev);
    void *user;
} emu_observer;

/* Value of register reg (index into ev->fn->regs; comp 0 or 'x'..'w' for a
 * vector register) in lane: integers and floats as raw bits, zero-extended;
 * predicates 0 or 1.  Use ptx_inst_foreach_reg to enumerate the operands. */
uint64_t emu_event_reg(const emu_event *ev, uint32_t reg, uint8_t comp, unsigned lane);

/* ---- options -------------------------------------------------------------- */
typedef struct emu_options {
    emu_schedule schedule;
    uint64_t seed;             /* interleave and its schedules */
    uint64_t max_steps;        /* warp-instructions per launch; 0: EMU_DEFAULT_MAX_STEPS */
    uint32_t shared_bytes;     /* dynamic shared memory per block */
    uint32_t resident_blocks;  /* blocks in flight at once; 0: EMU_DEFAULT_RESIDENT */
    uint32_t local_bytes;      /* per-thread local memory limit; 0: EMU_DEFAULT_LOCAL */
    unsigned checks;           /* EMU_CHECK_* */
    bool cooperative;          /* grid-sync workspace in %envreg1/2; all blocks resident */
    FILE *printf_out;          /* device printf output; NULL: stdout */
    const emu_observer *observer;
} emu_options;

#define EMU_DEFAULT_MAX_STEPS 2000000000ull
#define EMU_DEFAULT_RESIDENT 16u
#define EMU_DEFAULT_LOCAL (512u * 1024u)
#define EMU_MAX_THREADS_PER_BLOCK 1024u

/* The module must outlive the machine.  Never fails for a parsed module
 * (problems are reported when a kernel is launched). */
emu_machine *emu_create(const ptx_module *m, const emu_options *opt);
void emu_destroy(emu_machine *M);
/* A new machine for M's module holding a copy of M's memory: every global
 * buffer and module .global variable at the same device address with the
 * same bytes, the constant bank, the cooperative workspace, and (same
 * seed) the interleave schedule's random state; the rest as emu_create
 * makes it, with options opt (NULL: M's).  So a launch can be
 * rerun from the same inputs (other shapes, more checks) while M stays as
 * it is.  NULL when out of memory. */
emu_machine *emu_clone(const emu_machine *M, const emu_options *opt);

/* The same for a rewrite of M's module (m declares the same module
 * .global and .const variables in the same order, as `ptxray regalloc`'s
 * output does): a launch of the rewritten kernel from the inputs of the
 * original.  NULL when m's variables do not lay out as M's did. */
emu_machine *emu_clone_module(const emu_machine *M, const ptx_module *m, const emu_options *opt);

/* ---- global memory ------------------------------------------------------ */
/* A new zero-filled global buffer; returns its device address (256-byte
 * aligned, with unmapped space around it so overruns fault), 0 if bytes is
 * 0 or too large.  name appears in fault messages. */
uint64_t emu_malloc(emu_machine *M, size_t bytes, const char *name);
/* Host pointer to [addr, addr+bytes) when that range lies in one global
 * buffer or module variable, else NULL. */
void *emu_host(emu_machine *M, uint64_t addr, size_t bytes);

/* Global memory as a list: every buffer and module .global variable, in
 * allocation order (what emu_clone copies).  emu_global_get gives the i-th
 * one's device address, size and bytes (NULL past the end). */
unsigned emu_global_count(const emu_machine *M);
const uint8_t *emu_global_get(const emu_machine *M, unsigned i, uint64_t *addr, size_t *bytes);

/* A module-scope .global or .const variable: device address (for .const an
 * address in the constant bank), size and host pointer.  false if absent. */
bool emu_symbol(emu_machine *M, const char *name, uint64_t *addr, size_t *bytes, void **host,
                ptx_space *space);

/* ---- kernels -------------------------------------------------------------- */
typedef struct emu_param_info {
    uint32_t offset, size, align;
    uint8_t type;  /* ptx_type of the declaration (.b8 for aggregates) */
    bool is_array; /* .b8 name[N] aggregate */
    ptx_str name;
} emu_param_info;

/* The kernel's parameters (up to max of them written to out); returns the
 * count, or -1 if there is no kernel of that name. */
int emu_kernel_params(emu_machine *M, const char *kernel, emu_param_info *out, unsigned max);

typedef struct emu_arg {
    const void *data; /* size bytes, the parameter's value as the host lays it out */
    size_t size;
} emu_arg;

/* Runs the kernel to completion.  Argument i must have exactly the size of
 * parameter i.  Problems are added to d (errors with positions in the PTX);
 * d may be NULL. */
emu_status emu_launch(emu_machine *M, const char *kernel, emu_dim3 grid, emu_dim3 block,
                      const emu_arg *args, unsigned nargs, ptx_diags *d);

typedef struct emu_stats {
    uint64_t warp_insts;    /* warp-instructions issued (predicated-off included) */
    uint64_t thread_insts;  /* lane-instructions executed (guard true) */
    uint64_t blocks, warps, threads;
    uint64_t divergent_branches;
    /* Bytes loaded and stored by lanes (every active lane's access counts)
     * in the register allocator's spill slots: the .local array __ra_local*
     * of the executing function and the kernel's .shared array __ra_shared*
     * (`ptxray regalloc`, docs/regalloc.md "The shared area"); 0 for code
     * without them. */
    uint64_t spill_local_ld, spill_local_st, spill_shared_ld, spill_shared_st;
    /* Rematerialisations the lanes executed (one per active lane of the
     * instruction that starts each; docs/regalloc.md, "Marks of
     * rematerialisation"): constants (rule i), affine functions of the
     * thread coordinates (iii), shared slot plus coordinates (iv). */
    uint64_t remat_const, remat_affine, remat_shared;
    double seconds;         /* wall time of the last launch */
} emu_stats;
/* Statistics of the last launch. */
const emu_stats *emu_last_stats(const emu_machine *M);

/* ---- dynamic-check reports (for the checks enabled in the options) ------ */
/* The source line of an instruction for the reports' "source" column:
 * src(ctx, fn, stmt, buf, n) writes it ("src/x.cu:17") into buf or leaves
 * buf empty.  The emulator knows PTX positions only; which frame of an
 * inlined call a user reads is report/'s rule (srcloc.h). */
typedef struct emu_srcmap {
    void (*src)(void *ctx, const ptx_func *fn, uint32_t stmt, char *buf, size_t n);
    void *ctx;
} emu_srcmap;

/* Text report of the last launch, one section per enabled check, lines
 * ordered by PTX position.  path names the PTX file in positions; sm
 * (NULL: none) the source lines. */
void emu_report_text(emu_machine *M, const char *path, const emu_srcmap *sm, FILE *out);
/* The same as a jansson object (json_t *, declared void * here so this
 * header does not need jansson.h); the caller decrefs it. */
void *emu_report_json(emu_machine *M, const char *path, const emu_srcmap *sm);
/* Number of distinct shared-memory hazards found (racecheck). */
uint64_t emu_race_count(const emu_machine *M);
/* Number of distinct synccheck reports (one per rule, kind and PTX
 * instruction). */
uint64_t emu_sync_count(const emu_machine *M);
/* The synccheck section of emu_report_text alone (also after a launch that
 * failed: a deadlock is reported with where the missing threads were), and
 * its JSON array (json_t *). */
void emu_sync_report_text(emu_machine *M, const char *path, const emu_srcmap *sm, FILE *out);
void *emu_sync_report_json(emu_machine *M, const char *path, const emu_srcmap *sm);

#endif
