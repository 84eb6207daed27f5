/* The machine and the grid: kernel parameters, block scheduling, step
 * limit, deadlock detection, errors and statistics.
 *
 * Blocks run in waves of --resident-blocks (all of them with
 * --cooperative, for grid-wide synchronisation).  Warps of the resident
 * blocks take turns of QUANTUM warp-instructions in a fixed order, so spin
 * loops waiting for another warp or block make progress and every run is
 * reproducible. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "decode.h"
#include "simt.h"

#define QUANTUM 512u
#define MAX_SHARED_BYTES (1u << 20)

unsigned emu_type_bytes(unsigned t)
{
    switch (t) {
    case PTX_T_B8: case PTX_T_U8: case PTX_T_S8: case PTX_T_E4M3: case PTX_T_E5M2: return 1;
    case PTX_T_B16: case PTX_T_U16: case PTX_T_S16: case PTX_T_F16: case PTX_T_BF16:
    case PTX_T_E4M3X2: case PTX_T_E5M2X2: return 2;
    case PTX_T_B32: case PTX_T_U32: case PTX_T_S32: case PTX_T_F32: case PTX_T_F16X2:
    case PTX_T_BF16X2: case PTX_T_TF32: return 4;
    case PTX_T_B64: case PTX_T_U64: case PTX_T_S64: case PTX_T_F64: return 8;
    case PTX_T_B128: return 16;
    default: return 0;
    }
}

bool emu_type_signed(unsigned t)
{
    return t == PTX_T_S8 || t == PTX_T_S16 || t == PTX_T_S32 || t == PTX_T_S64;
}

bool emu_type_float(unsigned t)
{
    return t == PTX_T_F16 || t == PTX_T_F16X2 || t == PTX_T_BF16 || t == PTX_T_BF16X2 || t == PTX_T_F32 ||
           t == PTX_T_F64 || t == PTX_T_TF32;
}

int emu_status_exit_code(emu_status s)
{
    switch (s) {
    case EMU_OK: return 0;
    case EMU_ERR_USAGE: case EMU_ERR_UNSUPPORTED: return 2;
    default: return 1;
    }
}

const char *emu_status_name(emu_status s)
{
    static const char *const n[] = {"ok", "usage", "unsupported", "fault", "trap", "limit", "deadlock"};
    return (unsigned)s < sizeof n / sizeof n[0] ? n[s] : "?";
}

/* ---- errors -------------------------------------------------------------------------- */
void emu_fail(emu_machine *M, emu_status st, const efunc *f, const einst *I, const char *fmt, ...)
{
    if (M->stop) return; /* the first error is the one to report */
    M->stop = true;
    M->status = st;
    char buf[700];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    ptx_loc loc = {0, 0, 0};
    if (f && I) loc = emu_inst_loc(f, I);
    ptx_diags *d = M->diags ? M->diags : &M->own_diags;
    ptx_diag_add(d, PTX_DIAG_ERROR, loc, "%s", buf);
}

void emu_fault_lane(emu_exec *x, unsigned lane, const char *fmt, ...)
{
    char buf[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    block *b = x->b;
    warp *w = x->w;
    const ptx_inst *in = x->I && x->f ? emu_inst_ir(x->f->fn, x->I) : NULL;
    emu_fail(x->M, EMU_ERR_FAULT, x->f ? x->f->fn : NULL, x->I, "%s%.*s%s: %s (block (%u,%u,%u), thread (%u,%u,%u))",
             in ? "in '" : "", in ? (int)in->opcode_len : 0, in ? in->opcode : "", in ? "'" : "", buf, b->id.x,
             b->id.y, b->id.z, w->tid[0][lane], w->tid[1][lane], w->tid[2][lane]);
}

/* ---- machine ------------------------------------------------------------------------- */
emu_machine *emu_create(const ptx_module *m, const emu_options *opt)
{
    emu_machine *M = calloc(1, sizeof *M);
    if (!M) return NULL;
    M->mod = m;
    if (opt) M->opt = *opt;
    arena_init(&M->ar);
    ptx_diags_init(&M->own_diags);
    M->next_addr = GLOBAL_BASE;
    M->rng = M->opt.seed ^ 0x5eed5eed5eed5eedull;
    emu_vars_init(M);
    return M;
}

static void block_free(emu_machine *M, block *b);

void emu_destroy(emu_machine *M)
{
    if (!M) return;
    for (uint32_t i = 0; i < M->nresident; i++) block_free(M, &M->resident[i]);
    free(M->resident);
    simt_frame_pool_free(M);
    for (uint32_t i = 0; i < M->nsegs; i++) {
        free(M->segs[i].data);
        free(M->segs[i].name);
    }
    free(M->segs);
    free(M->cbank);
    free(M->params);
    free(M->sites);
    emu_race_free(M);
    emu_sync_free(M);
    ptx_diags_free(&M->own_diags);
    arena_free(&M->ar);
    free(M);
}

emu_machine *emu_clone(const emu_machine *M, const emu_options *opt)
{
    return emu_clone_module(M, M->mod, opt);
}

unsigned emu_global_count(const emu_machine *M) { return M->nsegs; }

const uint8_t *emu_global_get(const emu_machine *M, unsigned i, uint64_t *addr, size_t *bytes)
{
    if (i >= M->nsegs) return NULL;
    if (addr) *addr = M->segs[i].base;
    if (bytes) *bytes = M->segs[i].size;
    return M->segs[i].data;
}

emu_machine *emu_clone_module(const emu_machine *M, const ptx_module *m, const emu_options *opt)
{
    emu_machine *C = emu_create(m, opt ? opt : &M->opt);
    if (!C) return NULL;
    /* emu_create lays the module variables out as it did for M, so they
     * are M's first segments; the buffers made after them go to the same
     * addresses (each base is 256-byte aligned, so it is kept) */
    bool ok = C->nsegs <= M->nsegs && C->cbank_size == M->cbank_size;
    for (uint32_t i = 0; ok && i < M->nsegs; i++) {
        const gseg *s = &M->segs[i];
        gseg *t = NULL;
        if (i < C->nsegs) {
            t = &C->segs[i];
        } else {
            C->next_addr = s->base;
            t = emu_seg_new(C, s->size, 256, s->name, s->name ? strlen(s->name) : 0);
        }
        ok = t && t->base == s->base && t->size == s->size;
        if (ok) memcpy(t->data, s->data, s->size);
    }
    if (!ok) {
        emu_destroy(C);
        return NULL;
    }
    if (M->cbank_size) memcpy(C->cbank, M->cbank, M->cbank_size);
    C->next_addr = M->next_addr;
    C->coop_ws = M->coop_ws;
    if (C->opt.seed == M->opt.seed) C->rng = M->rng; /* where the interleaving goes on */
    return C;
}

bool emu_symbol(emu_machine *M, const char *name, uint64_t *addr, size_t *bytes, void **host, ptx_space *space)
{
    ptx_str n = {name, (uint32_t)strlen(name)};
    const mvar *v = emu_var_find(M, n);
    if (!v || (v->space != PTX_SP_GLOBAL && v->space != PTX_SP_CONST)) return false;
    if (addr) *addr = v->addr;
    if (bytes) *bytes = v->size;
    if (space) *space = (ptx_space)v->space;
    if (host) *host = v->space == PTX_SP_GLOBAL ? emu_host(M, v->addr, v->size) : M->cbank + v->addr;
    return true;
}

const emu_stats *emu_last_stats(const emu_machine *M) { return &M->stats; }

/* ---- kernels ------------------------------------------------------------------------- */
static const ptx_func *find_kernel(const emu_machine *M, const char *name)
{
    for (uint32_t i = 0; i < M->mod->nfuncs; i++) {
        const ptx_func *f = M->mod->funcs[i];
        if (f->is_entry && f->has_body && ptx_str_eq(f->name, name)) return f;
    }
    return NULL;
}

static uint32_t param_align(const ptx_var *v)
{
    uint32_t a = v->align ? v->align : emu_type_bytes(v->type) * (v->vec ? v->vec : 1);
    return a ? a : 1;
}

static uint32_t param_size(const ptx_var *v)
{
    uint64_t n = (uint64_t)emu_type_bytes(v->type) * (v->vec ? v->vec : 1);
    for (uint32_t i = 0; i < v->ndims; i++) n *= v->dims[i] ? v->dims[i] : 1;
    return n > (1u << 20) ? (1u << 20) : (uint32_t)n;
}

static void layout_params(emu_machine *M, const ptx_func *k)
{
    M->nkparams = k->nparams;
    M->kparams = ARENA_NEWN(&M->ar, kparam, k->nparams + 1);
    uint32_t off = 0;
    for (uint32_t i = 0; i < k->nparams; i++) {
        const ptx_var *v = k->params[i];
        kparam *p = &M->kparams[i];
        p->align = param_align(v);
        p->size = param_size(v);
        off = (off + p->align - 1) / p->align * p->align;
        p->off = off;
        p->type = v->type;
        p->is_array = v->ndims > 0;
        p->name = v->name;
        off += p->size;
    }
    M->params_size = off;
}

int emu_kernel_params(emu_machine *M, const char *kernel, emu_param_info *out, unsigned max)
{
    const ptx_func *k = find_kernel(M, kernel);
    if (!k) return -1;
    layout_params(M, k);
    for (uint32_t i = 0; i < M->nkparams && i < max; i++) {
        out[i].offset = M->kparams[i].off;
        out[i].size = M->kparams[i].size;
        out[i].align = M->kparams[i].align;
        out[i].type = M->kparams[i].type;
        out[i].is_array = M->kparams[i].is_array;
        out[i].name = M->kparams[i].name;
    }
    return (int)M->nkparams;
}

/* ---- blocks -------------------------------------------------------------------------- */
static bool block_start(emu_machine *M, block *b, uint64_t linear, uint32_t slot)
{
    memset(b, 0, sizeof *b);
    b->linear = (uint32_t)linear;
    b->slot = slot;
    b->id.x = (uint32_t)(linear % M->grid.x);
    b->id.y = (uint32_t)((linear / M->grid.x) % M->grid.y);
    b->id.z = (uint32_t)(linear / ((uint64_t)M->grid.x * M->grid.y));
    b->shared = calloc(M->shared_total ? M->shared_total : 1, 1);
    b->nwarps = M->warps_per_block;
    b->warps = calloc(b->nwarps, sizeof *b->warps);
    if (!b->shared || !b->warps) {
        emu_fail(M, EMU_ERR_LIMIT, NULL, NULL, "out of memory starting a block");
        return false;
    }
    b->live_warps = b->nwarps;
    b->active = true;
    if (M->opt.checks & EMU_CHECK_RACE) emu_race_block_init(M, b);
    const efunc *K = M->funcs[M->kernel_fi];
    uint32_t bx = M->blockdim.x, by = M->blockdim.y;
    for (uint32_t k = 0; k < b->nwarps; k++) {
        warp *w = &b->warps[k];
        w->b = b;
        w->id = k;
        w->free_head = EMU_NONE;
        for (unsigned l = 0; l < 32; l++) {
            uint32_t t = k * 32 + l;
            if (t < M->threads_per_block) w->lanes |= 1u << l;
            w->tid[0][l] = t % bx;
            w->tid[1][l] = (t / bx) % by;
            w->tid[2][l] = t / (bx * by);
        }
        w->exited = ~w->lanes;
        frame *fr = simt_frame_new(M, b, w, K, w->lanes, NULL, NULL);
        if (!fr) return false;
        simt_entry_new(w, 0, EMU_NONE, w->lanes, EMU_NONE, fr);
    }
    M->stats.blocks++;
    M->stats.warps += b->nwarps;
    M->stats.threads += M->threads_per_block;
    return true;
}

static void block_free(emu_machine *M, block *b)
{
    if (!b->warps) {
        free(b->shared);
        b->shared = NULL;
        return;
    }
    for (uint32_t k = 0; k < b->nwarps; k++) {
        warp *w = &b->warps[k];
        /* frames still in use (a run stopped early) are reachable from entries */
        for (uint32_t i = 0; i < w->ne; i++) {
            frame *f = w->e[i].f;
            if (w->e[i].state == E_FREE || !f) continue;
            for (uint32_t j = i + 1; j < w->ne; j++)
                if (w->e[j].f == f) w->e[j].f = NULL;
            f->next_free = w->free_frames;
            w->free_frames = f;
        }
        simt_frames_release(M, w);
        free(w->e);
        free(w->local);
        free(w->ws_vc);
    }
    free(b->warps);
    b->warps = NULL;
    free(b->shared);
    b->shared = NULL;
    if (b->shadow) emu_race_block_free(M, b);
    emu_sync_block_free(b);
    b->active = false;
}

static void report_deadlock(emu_machine *M)
{
    for (uint32_t s = 0; s < M->nresident; s++) {
        block *b = &M->resident[s];
        if (!b->active) continue;
        for (uint32_t k = 0; k < b->nwarps; k++) {
            warp *w = &b->warps[k];
            for (uint32_t i = 0; i < w->ne; i++) {
                sentry *e = &w->e[i];
                if (M->sync && (e->state == E_BAR || e->state == E_COLL)) emu_sync_deadlock(M, b, w, e);
                if (e->state == E_BAR) {
                    unsigned id = e->bar_id;
                    uint32_t expect = b->bar_expect[id] ? b->bar_expect[id] : b->live_warps;
                    emu_fail(M, EMU_ERR_DEADLOCK, e->f->fn, &e->f->fn->code[e->pc],
                             "deadlock: warp %u of block (%u,%u,%u) waits at barrier %u, which %u of the %u "
                             "expected warps have reached (lanes 0x%08x of this warp arrived); no thread can "
                             "make progress",
                             w->id, b->id.x, b->id.y, b->id.z, id, b->bar_warps[id], expect, w->bar_lanes[id]);
                    return;
                }
                if (e->state == E_COLL) {
                    emu_fail(M, EMU_ERR_DEADLOCK, e->f->fn, e->coll,
                             "deadlock: lanes 0x%08x of warp %u of block (%u,%u,%u) wait at a warp-synchronous "
                             "instruction for member lanes 0x%08x that never arrive (the warp diverged)",
                             e->cmask, w->id, b->id.x, b->id.y, b->id.z, e->cmem & ~e->cmask);
                    return;
                }
            }
        }
    }
    emu_fail(M, EMU_ERR_DEADLOCK, NULL, NULL, "deadlock: no thread can make progress");
}

static void run_grid(emu_machine *M)
{
    uint64_t nb = M->nblocks;
    uint32_t R = M->opt.cooperative ? (uint32_t)nb
                 : M->opt.resident_blocks ? M->opt.resident_blocks : EMU_DEFAULT_RESIDENT;
    if (R > nb) R = (uint32_t)nb;
    M->resident = calloc(R, sizeof *M->resident);
    M->nresident = R;
    if (!M->resident) {
        emu_fail(M, EMU_ERR_LIMIT, NULL, NULL, "out of memory");
        return;
    }
    uint64_t next = 0;
    for (uint32_t s = 0; s < R && next < nb && !M->stop; s++) block_start(M, &M->resident[s], next++, s);
    bool inter = M->opt.schedule != EMU_SCHED_LOCKSTEP, its = M->opt.schedule == EMU_SCHED_ITS;
    while (!M->stop) {
        bool progress = false, any = false;
        for (uint32_t s = 0; s < R && !M->stop; s++) {
            block *b = &M->resident[s];
            if (!b->active) continue;
            any = true;
            bool all_done = true;
            for (uint32_t k = 0; k < b->nwarps && !M->stop; k++) {
                warp *w = &b->warps[k];
                if (w->done) continue;
                uint64_t budget = inter ? 1 + emu_rng_next(&M->rng) % QUANTUM : QUANTUM;
                if (budget > M->max_steps - M->steps) budget = M->max_steps - M->steps;
                while (budget && !M->stop && !w->done) {
                    uint32_t idx = simt_pick(M, w);
                    if (idx == EMU_NONE) break;
                    if (its) {
                        /* before each slice: maybe join the groups at this
                         * instruction (1 in 4), maybe split (1 in 3) */
                        uint64_t r = emu_rng_next(&M->rng);
                        if (r % 4 == 0) simt_its_join(M, w, idx);
                        if ((r >> 8) % 3 == 0) idx = simt_its_split(M, w, idx);
                    }
                    uint64_t slice = inter ? 1 + emu_rng_next(&M->rng) % 8 : budget;
                    if (slice > budget) slice = budget;
                    uint64_t left = slice;
                    simt_run_path(M, b, w, idx, &left);
                    budget -= slice - left;
                    progress = true;
                }
                /* a warp waiting on its own lanes (a collective, or a barrier it has
                 * not fully reached) while some of them are parked at a
                 * reconvergence point: let those go on */
                if (!w->done && !M->stop && simt_pick(M, w) == EMU_NONE) {
                    bool self = false;
                    for (uint32_t i = 0; i < w->ne && !self; i++)
                        self = w->e[i].state == E_COLL || (w->e[i].state == E_BAR && !w->bar_counted[w->e[i].bar_id]);
                    if (self && simt_unstick(M, w)) progress = true;
                }
                if (!w->done) all_done = false;
                if (M->steps >= M->max_steps && !M->stop) {
                    /* point at an instruction the warp is executing */
                    uint32_t at = simt_pick(M, w);
                    const efunc *wf = at != EMU_NONE ? w->e[at].f->fn : NULL;
                    const einst *wi = wf && w->e[at].pc < wf->ncode ? &wf->code[w->e[at].pc] : NULL;
                    emu_fail(M, EMU_ERR_LIMIT, wi ? wf : NULL, wi,
                             "step limit reached: %llu warp-instructions executed (--max-steps); the kernel may "
                             "not terminate",
                             (unsigned long long)M->steps);
                }
            }
            if (all_done && !M->stop) {
                block_free(M, b);
                progress = true;
                if (next < nb) block_start(M, b, next++, s);
            }
        }
        if (!any) break;
        if (!progress && !M->stop) {
            for (uint32_t s = 0; s < R; s++) {
                block *b = &M->resident[s];
                for (uint32_t k = 0; b->active && k < b->nwarps; k++)
                    if (!b->warps[k].done && simt_unstick(M, &b->warps[k])) progress = true;
            }
            if (!progress) report_deadlock(M);
        }
    }
}

emu_status emu_launch(emu_machine *M, const char *kernel, emu_dim3 grid, emu_dim3 blk, const emu_arg *args,
                      unsigned nargs, ptx_diags *d)
{
    M->diags = d;
    M->stop = false;
    M->status = EMU_OK;
    memset(&M->stats, 0, sizeof M->stats);
    /* problems found when the machine was created (initialisers) */
    if (M->own_diags.nerrors) {
        for (uint32_t i = 0; i < M->own_diags.n && d; i++)
            ptx_diag_add(d, (ptx_diag_severity)M->own_diags.v[i].severity, M->own_diags.v[i].loc, "%s",
                         M->own_diags.v[i].msg);
        return EMU_ERR_UNSUPPORTED;
    }
    const ptx_func *k = find_kernel(M, kernel);
    ptx_loc nol = {0, 0, 0};
    if (!k) {
        if (d) ptx_diag_add(d, PTX_DIAG_ERROR, nol, "no kernel named '%s' in this module", kernel);
        return EMU_ERR_USAGE;
    }
    uint64_t nthreads = (uint64_t)blk.x * blk.y * blk.z;
    if (!grid.x || !grid.y || !grid.z || !blk.x || !blk.y || !blk.z || nthreads > EMU_MAX_THREADS_PER_BLOCK ||
        blk.z > 64 || grid.y > 65535 || grid.z > 65535 || grid.x > 0x7fffffffu) {
        if (d)
            ptx_diag_add(d, PTX_DIAG_ERROR, nol,
                         "invalid launch dimensions grid (%u,%u,%u) block (%u,%u,%u): every dimension must be at "
                         "least 1, at most %u threads per block (z at most 64), grid y/z at most 65535",
                         grid.x, grid.y, grid.z, blk.x, blk.y, blk.z, EMU_MAX_THREADS_PER_BLOCK);
        return EMU_ERR_USAGE;
    }
    layout_params(M, k);
    if (nargs != M->nkparams) {
        if (d)
            ptx_diag_add(d, PTX_DIAG_ERROR, k->name_loc, "kernel '%s' takes %u parameter%s, %u given", kernel,
                         M->nkparams, M->nkparams == 1 ? "" : "s", nargs);
        return EMU_ERR_USAGE;
    }
    free(M->params);
    M->params = calloc(M->params_size ? M->params_size : 1, 1);
    for (unsigned i = 0; i < nargs; i++) {
        if (args[i].size != M->kparams[i].size || (!args[i].data && args[i].size)) {
            if (d)
                ptx_diag_add(d, PTX_DIAG_ERROR, k->params[i]->loc,
                             "argument %u has %zu bytes but parameter '%.*s' has %u", i + 1, args[i].size,
                             (int)M->kparams[i].name.n, M->kparams[i].name.p, M->kparams[i].size);
            return EMU_ERR_USAGE;
        }
        if (args[i].size) memcpy(M->params + M->kparams[i].off, args[i].data, args[i].size);
    }
    emu_prepare_kernel(M, k);
    for (uint32_t i = 0; i < M->nsites; i++) {
        esite *s = &M->sites[i];
        const efunc *f = s->f;
        uint32_t pc = s->pc;
        memset(s, 0, sizeof *s);
        s->f = f;
        s->pc = pc;
    }
    /* static shared variables, then the dynamic region (--shared-bytes) */
    uint64_t total = M->opt.shared_bytes ? (uint64_t)M->dyn_shared_off + M->opt.shared_bytes : M->static_shared;
    if (total > MAX_SHARED_BYTES) {
        if (d) ptx_diag_add(d, PTX_DIAG_ERROR, nol, "shared memory of %llu bytes per block exceeds the emulator's limit of %u",
                            (unsigned long long)total, MAX_SHARED_BYTES);
        return EMU_ERR_USAGE;
    }
    M->shared_total = (uint32_t)total;
    M->grid = grid;
    M->blockdim = blk;
    M->threads_per_block = (uint32_t)nthreads;
    M->warps_per_block = (uint32_t)((nthreads + 31) / 32);
    M->nblocks = (uint64_t)grid.x * grid.y * grid.z;
    M->steps = 0;
    M->max_steps = M->opt.max_steps ? M->opt.max_steps : EMU_DEFAULT_MAX_STEPS;
    if (M->opt.cooperative) {
        if (M->nblocks > 4096) {
            if (d) ptx_diag_add(d, PTX_DIAG_ERROR, nol, "a cooperative launch keeps every block resident: at most 4096 blocks");
            return EMU_ERR_USAGE;
        }
        if (!M->coop_ws) M->coop_ws = emu_malloc(M, 64, "grid-sync workspace");
        else memset(emu_host(M, M->coop_ws, 64), 0, 64);
    }
    if (M->opt.checks & EMU_CHECK_RACE) emu_race_reset(M);
    if (M->opt.checks & EMU_CHECK_SYNC) emu_sync_reset(M);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    run_grid(M);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    for (uint32_t i = 0; i < M->nresident; i++) block_free(M, &M->resident[i]);
    free(M->resident);
    M->resident = NULL;
    M->nresident = 0;
    M->stats.warp_insts = M->steps;
    M->stats.seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    M->diags = NULL;
    return M->status;
}
