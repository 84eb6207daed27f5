/* Internal structures of the emulator, shared by its modules.
 *
 * Decoding turns every function body into an array of einst (one per PTX
 * instruction) whose operands are slot numbers: a function's register file
 * is one array of 64-bit values per lane, [slot][lane], holding its
 * registers, the special registers it reads, and its immediates (copied in
 * when a frame is created), so every handler reads operands the same way
 * and the lane loops vectorise.  Predicates are separate: one 32-bit lane
 * mask per predicate register.
 *
 * A warp is a set of SIMT entries (paths): each has a pc, a lane mask, a
 * reconvergence pc and a parent.  A divergent branch turns the current
 * entry into a waiting entry at the reconvergence point with one child per
 * side; a child that reaches the reconvergence pc disappears, and when the
 * last child has gone the parent continues with all its lanes.  Calls work
 * the same way with the call's next instruction as reconvergence point and a
 * new frame (registers, local memory) for the callee. */
#ifndef PTXRAY_EMU_INTERNAL_H
#define PTXRAY_EMU_INTERNAL_H
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "emu.h"
#include "semantics.h"

#define EMU_NONE UINT32_MAX
#define EMU_MAX_CALL_DEPTH 4096u
#define FULL_MASK 0xffffffffu

/* ---- address spaces --------------------------------------------------------
 * Global addresses are generic addresses.  Shared, local, constant and
 * kernel-parameter addresses are offsets in their space; cvta adds the
 * space's window to make a generic address. */
#define WIN_SHIFT 40
#define WIN_PARAM 0x7cull
#define WIN_CONST 0x7dull
#define WIN_SHARED 0x7eull
#define WIN_LOCAL 0x7full
#define WIN_FUNC 0x7bull /* function "addresses" for indirect calls */
#define GLOBAL_BASE 0x100000000000ull
#define WIN_BASE(w) ((w) << WIN_SHIFT)
#define WIN_SIZE (1ull << 32)

enum mspace { MS_GENERIC, MS_GLOBAL, MS_SHARED, MS_LOCAL, MS_CONST, MS_PARAM_K, MS__COUNT };

/* ---- decoded instructions -------------------------------------------------- */
typedef struct einst einst;
typedef struct emu_exec emu_exec;
typedef int (*emu_fn)(emu_exec *x, const einst *I, uint32_t m);

/* A lane group of one path taking part in a warp collective. */
typedef struct emu_part {
    uint64_t *r;
    uint32_t *p;
    uint32_t mask;
    const einst *I; /* this group's own instruction (operand slots) */
} emu_part;
typedef int (*emu_cfn)(emu_exec *x, const einst *I, const emu_part *parts, unsigned nparts,
                       uint32_t all);

enum ctl_kind {
    CTL_NONE = 0,
    CTL_BRA,
    CTL_BRX,
    CTL_CALL,
    CTL_RET,
    CTL_EXIT,
    CTL_BAR,     /* bar/barrier sync/arrive/red */
    CTL_COLL,    /* warp collective with membermask: shfl/vote/match/redux/bar.warp */
    CTL_ACTMASK, /* activemask: needs the path mask */
    CTL_TRAP,
    CTL_UNSUP,   /* not implemented: stops the run when reached */
};

/* Address modes of a memory operand. */
enum { AM_REG, AM_IMM, AM_FRAME };

enum einst_flags {
    EI_DYN_SREG = 1u << 0,  /* reads %clock & co: refresh before executing */
    EI_ADDR32 = 1u << 1,    /* address register is 32-bit */
    EI_FTZ = 1u << 2,
    EI_SAT = 1u << 3,
    EI_RELU = 1u << 4,
    EI_SATFINITE = 1u << 5,
    EI_NAN = 1u << 6,       /* min/max .NaN */
    EI_CC = 1u << 7,        /* writes the carry flag */
    EI_SIGNED = 1u << 8,
    EI_NEGC = 1u << 9,      /* setp/vote/bar.red predicate source negated */
    EI_ALIGNED = 1u << 10,
    EI_HASCOUNT = 1u << 11, /* bar with thread count */
    EI_PRED_DST2 = 1u << 12,/* second (predicate) destination present (setp p|q, shfl d|p) */
    EI_NOWAIT = 1u << 13,   /* bar.arrive */
    EI_XORSIGN = 1u << 14,
    EI_ABS = 1u << 15,
    EI_UNI = 1u << 16,
    EI_MEM = 1u << 17,      /* a memory access: gets a check site */
    EI_SHIFTAMT = 1u << 18,
    EI_LEGACY = 1u << 19,   /* shfl/vote without .sync: the active lanes are the members */
    EI_SETOP = 1u << 20,    /* set (value result) rather than setp */
    EI_SRC32 = 1u << 21,    /* cp.async: source address register is 32-bit */
    /* starts a rematerialisation of `ptxray regalloc` (emu_stats.remat_*):
     * a constant, an affine function of the thread coordinates, a shared
     * slot plus the coordinates */
    EI_REMAT_C = 1u << 22,
    EI_REMAT_A = 1u << 23,
    EI_REMAT_S = 1u << 24,
};

/* Rounding modes. */
enum rnd { RND_NONE, RND_RN, RND_RZ, RND_RM, RND_RP, RND_RNA, RND_RNI, RND_RZI, RND_RMI, RND_RPI };

enum { MUL_LO, MUL_HI, MUL_WIDE };
enum { SHF_L = 1, SHF_R = 2 };              /* sub; sub2: 1 clamp, 0 wrap */
enum { PRMT_DEF, PRMT_F4E, PRMT_B4E, PRMT_RC8, PRMT_ECL, PRMT_ECR, PRMT_RC16 };
enum { AOP_ADD, AOP_INC, AOP_DEC, AOP_MIN, AOP_MAX, AOP_AND, AOP_OR, AOP_XOR, AOP_EXCH, AOP_CAS };
enum { SHFL_UP, SHFL_DOWN, SHFL_BFLY, SHFL_IDX };
enum { VOTE_ALL, VOTE_ANY, VOTE_UNI, VOTE_BALLOT };
enum { BOP_NONE, BOP_AND, BOP_OR, BOP_XOR };
enum { TESTP_FINITE, TESTP_INFINITE, TESTP_NUMBER, TESTP_NOTANUMBER, TESTP_NORMAL, TESTP_SUBNORMAL };
enum { BAR_SYNC, BAR_ARRIVE, BAR_RED_POPC, BAR_RED_AND, BAR_RED_OR };
enum { COLL_SHFL, COLL_VOTE, COLL_MATCH_ANY, COLL_MATCH_ALL, COLL_REDUX, COLL_BARWARP, COLL_ELECT };

#define PNEG 0x80000000u /* on a predicate source slot: negated */
#define EI_MAXD 4
#define EI_MAXS 5

struct einst {
    emu_fn fn;            /* CTL_NONE handlers */
    uint8_t ctl;          /* ctl_kind */
    uint8_t has_guard, guard_neg;
    uint8_t type, type2;  /* ptx_type: instruction type, second type */
    uint8_t vec;          /* vector elements (1 if scalar) */
    uint8_t space;        /* mspace of a memory access */
    uint8_t am;           /* AM_* */
    uint8_t rnd;          /* rnd */
    uint8_t sub;          /* sub-operation (comparison, atomic op, shuffle mode, ...) */
    uint8_t sub2;         /* second sub-operation (setp combine, ...) */
    uint8_t dbytes;       /* destination register width in bytes (ld/cvt/atom), 0: type's */
    uint16_t bytes;       /* bytes per element of a memory access */
    uint32_t flags;       /* einst_flags */
    uint32_t guard;       /* predicate slot */
    uint32_t d[EI_MAXD];  /* destination slots */
    uint32_t s[EI_MAXS];  /* source slots; memory ops: s[0] = address base */
    int64_t imm;          /* address offset / absolute address / misc */
    uint32_t target;      /* branch target pc; cp.async: the source address offset */
    uint32_t rpc;         /* reconvergence pc of a branch */
    uint32_t stmt;        /* statement index in the function */
    uint32_t site;        /* memory-check site (EMU_NONE: none) */
    const void *aux;      /* brx table, call descriptor, cfn, message */
};

/* Call descriptor (CTL_CALL). */
typedef struct ecall {
    uint32_t callee;        /* function index, or EMU_NONE for an indirect call */
    uint32_t target_slot;   /* indirect: slot of the address register */
    uint8_t builtin;        /* BI_* for vprintf & co */
    uint32_t nargs, nrets;
    struct ecall_opd {
        uint8_t kind;       /* 'f' frame param (off), 'r' register slot, 'i' immediate slot */
        uint32_t off, size, slot;
    } *args, *rets;
} ecall;
enum { BI_NONE, BI_VPRINTF, BI_ASSERTFAIL, BI_MALLOC, BI_FREE };

/* Indirect branch table (CTL_BRX). */
typedef struct ebrx {
    uint32_t n;
    uint32_t *pc;
} ebrx;

/* ---- decoded functions ------------------------------------------------------ */
enum { SR_TID_X, SR_TID_Y, SR_TID_Z, SR_NTID_X, SR_NTID_Y, SR_NTID_Z, SR_LANEID, SR_WARPID,
       SR_NWARPID, SR_CTAID_X, SR_CTAID_Y, SR_CTAID_Z, SR_NCTAID_X, SR_NCTAID_Y, SR_NCTAID_Z,
       SR_SMID, SR_NSMID, SR_GRIDID, SR_LM_EQ, SR_LM_LE, SR_LM_LT, SR_LM_GE, SR_LM_GT,
       SR_CLOCK, SR_CLOCK_HI, SR_CLOCK64, SR_GTIMER, SR_GTIMER_LO, SR_GTIMER_HI,
       SR_DYN_SMEM, SR_TOTAL_SMEM, SR_AGGR_SMEM, SR_ZERO, SR_ENVREG0,
       SR__COUNT = SR_ENVREG0 + 32 };

enum { SI_CONST, SI_SREG, SI_FRAME, SI_PCONST };
typedef struct slotinit {
    uint32_t slot;        /* value slot, or PRED_SLOT|index for SI_PCONST */
    uint8_t kind;
    uint64_t v;           /* constant; SR_* kind; frame offset; predicate mask */
} slotinit;

typedef struct efunc {
    const ptx_func *fn;
    uint32_t index;
    einst *code;
    uint32_t ncode;
    uint32_t nslots;      /* value slots: registers, sinks, sregs, constants */
    uint32_t npreds;      /* predicate slots (incl. a sink) */
    slotinit *init;       /* slots filled when a frame is created */
    uint32_t ninit;
    uint32_t *reg_slot;   /* fn->regs index -> slot, PRED_SLOT|idx for predicates */
    uint32_t *stmt_pc;    /* statement index -> pc of the first instruction at or after it */
    uint32_t local_size;  /* frame bytes per lane (locals, .param variables, formals) */
    uint32_t nparams, nrets;
    uint32_t *param_off, *param_size, *ret_off, *ret_size;
    bool has_dyn_sreg;
    uint32_t ra_local_lo, ra_local_hi; /* frame range of the allocator's __ra_local* slots (hi 0: none) */
} efunc;
#define PRED_SLOT 0x40000000u

/* Per memory instruction statistics for the checks. */
typedef struct esite {
    const efunc *f;
    uint32_t pc;
    uint64_t g_execs, g_sectors, g_lines, g_bytes, g_ideal;
    uint32_t g_sec_max, g_line_max;
    uint64_t s_execs, s_ways_sum, s_wavefronts, s_ideal;
    uint32_t s_ways_max;
} esite;

/* ---- runtime ---------------------------------------------------------------- */
typedef struct frame frame;
struct frame {
    const efunc *fn;
    uint64_t *r;
    uint32_t *p;
    uint32_t returned;    /* lanes that executed ret in this frame */
    uint32_t nentries;    /* live SIMT entries in this frame */
    uint32_t call_mask;
    uint32_t local_base;
    frame *caller;        /* NULL for the kernel */
    const einst *call;    /* the call instruction in the caller */
    uint32_t saved_sp[32];
    frame *next_free;
};

enum { E_FREE, E_RUN, E_WAIT, E_BAR, E_COLL };

typedef struct sentry {
    uint32_t pc, rpc;
    uint32_t mask;
    uint8_t state;
    uint8_t bar_id;
    uint8_t bar_again;    /* E_BAR under ITS: lanes that already arrived, waiting to arrive again */
    uint32_t parent;
    uint32_t nchild;
    uint64_t seq;
    frame *f;
    const einst *coll;    /* E_COLL: the collective it waits at */
    uint32_t cmask;       /* E_BAR/E_COLL: the lanes executing it */
    uint32_t cmem;        /* E_COLL: the member mask it needs */
    /* ITS, --synccheck: the reconvergence pc of the branch that made this
     * group (EMU_NONE: none); a group reaching it has gone past the branch,
     * as lockstep lanes leaving a reconvergence point do (simt_unstick) */
    uint32_t sc_rpc;
} sentry;

typedef struct block block;
typedef struct warp {
    block *b;
    uint32_t id;
    uint32_t lanes;       /* lanes that exist */
    uint32_t exited;
    sentry *e;
    uint32_t ne, cap, nlive;
    uint32_t free_head;
    uint64_t seq;
    uint32_t tid[3][32];
    uint8_t *local;       /* 32 lanes x local_cap bytes */
    uint32_t local_cap;
    uint32_t sp[32];
    uint32_t bar_lanes[16];
    uint8_t bar_counted[16];
    uint32_t ws_epoch;    /* bar.warp.sync generations (race check) */
    uint32_t (*ws_vc)[32];/* race check: ws_vc[b][a] = the last generation after which lane b is
                           * ordered after lane a by bar.warp.syncs (NULL: none yet) */
    /* --synccheck (checks_sync.c): per barrier id, the first execution of an
     * .aligned barrier by part of the warp (its lanes, the live lanes it
     * missed); lanes that ran on past a reconvergence point while lanes of
     * the warp waited for them at a barrier or collective (sc_passed), and
     * those of them that executed something there (sc_ran, first at
     * sc_ran_f/pc) */
    uint32_t sc_part_lanes[16], sc_miss[16];
    const einst *sc_part_i[16];
    const efunc *sc_part_f[16];
    uint32_t sc_passed, sc_ran, sc_ran_pc;
    const efunc *sc_ran_f;
    uint32_t nframes;
    bool done;
    bool gone;            /* all lanes exited: no longer counted by barriers */
    frame *free_frames;
} warp;

struct block {
    emu_dim3 id;
    uint32_t linear;
    uint32_t slot;        /* resident slot (%smid) */
    uint8_t *shared;
    uint32_t nwarps;
    warp *warps;
    uint32_t bar_warps[16];
    uint32_t bar_expect[16]; /* warps expected (0: all non-exited) */
    uint32_t bar_redval[16];
    uint8_t bar_red_kind[16];
    uint32_t epoch;       /* completed barriers (race check) */
    uint32_t live_warps;
    struct race_shadow *shadow;
    struct sync_arrivals *sc; /* --synccheck: the instruction each thread arrived at, per barrier id */
    bool active;
};

/* Global allocation. */
typedef struct gseg {
    uint64_t base, size;
    uint8_t *data;
    char *name;
} gseg;

typedef struct kparam {
    uint32_t off, size, align;
    uint8_t type;
    bool is_array;
    ptx_str name;
} kparam;

struct emu_machine {
    const ptx_module *mod;
    emu_options opt;
    arena ar;             /* decoded code and per-machine tables */
    /* global memory */
    gseg *segs;
    uint32_t nsegs, segcap;
    uint64_t next_addr;
    const gseg *last_seg;
    /* constant bank */
    uint8_t *cbank;
    uint32_t cbank_size;
    /* module variables */
    struct mvar *vars;
    uint32_t nvars;
    bool vars_ready;
    /* decoded functions (per prepared kernel) */
    efunc **funcs;
    uint32_t nfuncs;
    const ptx_func *prepared;    /* the kernel the functions were decoded for */
    uint32_t kernel_fi;
    uint32_t static_shared, dyn_shared_off, shared_total;
    esite *sites;
    uint32_t nsites, sitecap;
    /* launch */
    emu_dim3 grid, blockdim;
    uint32_t threads_per_block, warps_per_block;
    uint8_t *params;
    uint32_t params_size;
    kparam *kparams;
    uint32_t nkparams;
    block *resident;
    uint32_t nresident;
    uint64_t next_block, nblocks;
    uint64_t steps, max_steps;
    uint64_t clock;       /* %clock value for the instruction being executed */
    uint64_t rng;
    emu_status status;
    ptx_diags *diags;
    ptx_diags own_diags;  /* problems found before a launch (initialisers) */
    bool stop;
    uint64_t coop_ws;
    emu_stats stats;
    uint32_t ra_shared_lo, ra_shared_hi; /* shared range of the kernel's __ra_shared* slots (hi 0: none) */
    bool ra_slots;                       /* either range exists: count spill traffic */
    /* checks */
    struct race_state *race;
    struct sync_state *sync; /* --synccheck (NULL: off) */
    frame *frame_pool;    /* frames of finished blocks, for reuse */
};

/* The context a handler runs in. */
struct emu_exec {
    uint64_t *r;
    uint32_t *p;
    frame *f;
    warp *w;
    block *b;
    emu_machine *M;
    const einst *I;
    uint32_t path_mask;
};

#define REG(x, slot) ((x)->r + (size_t)(slot) * 32)

/* Every active lane l of m, fast when the whole warp is active. */
#define FOR_LANES(m, l, ...)                                                    \
    do {                                                                        \
        uint32_t m_ = (m);                                                      \
        if (m_ == FULL_MASK) {                                                  \
            for (unsigned l = 0; l < 32; l++) { __VA_ARGS__; }                  \
        } else {                                                                \
            while (m_) {                                                        \
                unsigned l = (unsigned)__builtin_ctz(m_);                       \
                m_ &= m_ - 1;                                                   \
                { __VA_ARGS__; }                                                \
            }                                                                   \
        }                                                                       \
    } while (0)

/* Predicate slots: read (honouring a PNEG source) and write active lanes. */
static inline uint32_t pread(const emu_exec *x, uint32_t s)
{
    uint32_t v = x->p[s & ~(PRED_SLOT | PNEG)];
    return (s & PNEG) ? ~v : v;
}
static inline void pwrite(emu_exec *x, uint32_t s, uint32_t bits, uint32_t m)
{
    uint32_t *p = &x->p[s & ~PRED_SLOT];
    *p = (*p & ~m) | (bits & m);
}
void emu_setp_write(emu_exec *x, const einst *I, uint32_t t, uint32_t m);

/* ---- module-level helpers ----------------------------------------------------- */
/* decode.c */
bool emu_prepare_kernel(emu_machine *M, const ptx_func *kernel);
const efunc *emu_func_by_addr(const emu_machine *M, uint64_t addr);
uint64_t emu_func_addr(uint32_t index);
ptx_loc emu_inst_loc(const efunc *f, const einst *I);
const ptx_inst *emu_inst_ir(const efunc *f, const einst *I);

/* vars.c: module variables (global segments, constant bank, shared layout) */
typedef struct mvar {
    ptx_str name;
    uint8_t space;       /* ptx_space */
    uint64_t addr;       /* global: generic address; const: bank offset; shared: offset */
    uint64_t size;
    uint32_t align;
    const ptx_var *var;
    const ptx_func *owner; /* function declaring it (function-scope .shared), or NULL */
    bool is_extern_shared;
} mvar;
bool emu_func_index(const emu_machine *M, ptx_str name, uint32_t *index);
bool emu_vars_init(emu_machine *M);
const mvar *emu_var_find(const emu_machine *M, ptx_str name);
bool emu_eval_expr(const emu_machine *M, const ptx_expr *e, int64_t *out, char *err, size_t errn);

/* mem.c */
gseg *emu_seg_new(emu_machine *M, size_t bytes, size_t align, const char *name, size_t namelen);
const gseg *emu_seg_find(emu_machine *M, uint64_t addr);
/* Host pointer for a lane's access, or NULL after reporting a fault. */
uint8_t *emu_xlate(emu_exec *x, unsigned space, uint64_t addr, unsigned bytes, unsigned lane,
                   bool write);
/* The space a generic address falls in (MS_GLOBAL etc.) */
unsigned emu_generic_space(uint64_t addr);
bool emu_local_reserve(emu_machine *M, warp *w, uint32_t bytes);

/* errors (sched.c) */
void emu_fail(emu_machine *M, emu_status st, const efunc *f, const einst *I, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* Fault with the lane's thread and block coordinates appended. */
void emu_fault_lane(emu_exec *x, unsigned lane, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* exec_*.c: handler lookup used by decode.c */
uint64_t emu_sreg_value(emu_exec *x, unsigned kind, unsigned lane);
void emu_refresh_dyn_sregs(emu_exec *x);

/* checks */
void emu_check_global(emu_exec *x, const einst *I, const uint64_t *addr, uint32_t m, unsigned bytes);
void emu_check_shared(emu_exec *x, const einst *I, const uint64_t *addr, uint32_t m, unsigned bytes,
                      bool write, bool atomic);
void emu_race_access(emu_exec *x, const einst *I, const uint64_t *addr, uint32_t m, unsigned bytes, bool write);
void emu_race_barrier(emu_machine *M, block *b);
/* bar.warp.sync completed by lanes `lanes` of w: orders their accesses. */
void emu_race_warp_sync(emu_machine *M, warp *w, uint32_t lanes);
void emu_race_block_init(emu_machine *M, block *b);
void emu_race_block_free(emu_machine *M, block *b);
void emu_race_free(emu_machine *M);
/* The hazards found, for report.c: kind 0 RAW, 1 WAR, 2 WAW; sites index
 * M->sites; threads are linear ids in the block (UINT32_MAX: several). */
uint32_t emu_race_n(const emu_machine *M);
void emu_race_get(const emu_machine *M, uint32_t i, unsigned *kind, uint32_t *s1, uint32_t *s2, uint64_t *count,
                  emu_dim3 *blk, uint32_t *t1, uint32_t *t2, uint64_t *off);
uint64_t emu_race_dropped(const emu_machine *M);
void emu_race_reset(emu_machine *M);
uint32_t emu_site_new(emu_machine *M, const efunc *f, uint32_t pc);

/* checks_sync.c: --synccheck (divergent-barrier, divergent-collective) */
void emu_sync_reset(emu_machine *M);
void emu_sync_free(emu_machine *M);
void emu_sync_block_free(block *b);
/* lanes m of x's warp execute barrier I with id */
void emu_sync_bar_arrive(emu_exec *x, const einst *I, unsigned id, uint32_t m);
/* ITS: lanes here of the warp wait at aligned barrier I for the others of live */
void emu_sync_bar_wait(emu_exec *x, const einst *I, unsigned id, uint32_t here, uint32_t live);
/* a barrier thread count that is not a positive multiple of 32 */
void emu_sync_bar_badcount(emu_exec *x, const einst *I, unsigned id, uint64_t cnt);
void emu_sync_bar_release(emu_machine *M, block *b, unsigned id);
/* lanes of m not in their own member mask MM[l] */
void emu_sync_coll_self(emu_exec *x, const einst *I, uint32_t m, const uint64_t *MM);
/* a collective completed for lanes done of w; lanes lost, named by the
 * waiting lanes' masks when they began to wait, exited meanwhile */
void emu_sync_coll_done(emu_machine *M, block *b, warp *w, const frame *f, const einst *I, uint32_t done,
                        uint32_t lost, uint32_t memb);
/* ITS: member lanes gone of a bar.warp.sync exited while lanes waiting wait */
void emu_sync_coll_gone(emu_machine *M, block *b, warp *w, const frame *f, const einst *I, uint32_t waiting,
                        uint32_t gone, uint32_t memb);
/* lockstep: lanes leave reconvergence point pc while others wait */
void emu_sync_unstick(warp *w, uint32_t lanes);
static inline void emu_sync_ran(warp *w, const efunc *f, uint32_t pc, uint32_t m)
{
    uint32_t r = w->sc_passed & m;
    if (!r) return;
    if (!w->sc_ran) {
        w->sc_ran_f = f;
        w->sc_ran_pc = pc;
    }
    w->sc_ran |= r;
    w->sc_passed &= ~r;
}
/* the run deadlocked with entry e of warp w of block b waiting */
void emu_sync_deadlock(emu_machine *M, block *b, warp *w, const sentry *e);
uint32_t emu_sync_n(const emu_machine *M);


/* vprintf.c */
int emu_vprintf(emu_exec *x, unsigned lane, uint64_t fmt, uint64_t args, int32_t *ret);

/* rng (splitmix64) */
static inline uint64_t emu_rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Population count without a libgcc call (the build targets baseline
 * x86-64, which has no popcnt instruction). */
static inline unsigned popc32(uint32_t v)
{
    v = v - ((v >> 1) & 0x55555555u);
    v = (v & 0x33333333u) + ((v >> 2) & 0x33333333u);
    return (((v + (v >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24;
}
static inline unsigned popc64(uint64_t v) { return popc32((uint32_t)v) + popc32((uint32_t)(v >> 32)); }

static inline uint64_t type_mask(unsigned bytes)
{
    return bytes >= 8 ? ~0ull : (1ull << (bytes * 8)) - 1;
}
static inline int64_t sext(uint64_t v, unsigned bytes)
{
    if (bytes >= 8) return (int64_t)v;
    unsigned sh = 64 - bytes * 8;
    return (int64_t)(v << sh) >> sh;
}
/* Bytes of a scalar ptx_type (1 for b8 ..., 4 for f16x2; 0 for none). */
unsigned emu_type_bytes(unsigned t);
bool emu_type_signed(unsigned t);
bool emu_type_float(unsigned t);

#endif
