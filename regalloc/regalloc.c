/* The pass driver: per function, analysis, liveness, scan, placement,
 * shared-area fit and rewrite (regalloc.h). */
#include "regalloc.h"
#include <stdlib.h>
#include <string.h>
#include "linear_scan.h"
#include "shared_area.h"
#include "spill_rewrite.h"

#define DEFAULT_THREADS 1024u
#define DEFAULT_SMEM (48u * 1024u)

/* Strong slot accesses need sm_70 and PTX ISA 6.0 (.relaxed.cta). */
static bool strong_ok(const ptx_module *m)
{
    if (m->version_major < 6) return false;
    for (uint32_t i = 0; i < m->nstmts; i++) {
        const ptx_stmt *s = m->stmts[i];
        if (s->kind != PTX_S_TARGET) continue;
        for (uint32_t k = 0; k < s->u.dir->n; k++) {
            ptx_str t = s->u.dir->items[k];
            if (t.n < 4 || memcmp(t.p, "sm_", 3)) continue;
            unsigned v = 0;
            for (uint32_t j = 3; j < t.n && t.p[j] >= '0' && t.p[j] <= '9'; j++) v = v * 10 + (unsigned)(t.p[j] - '0');
            return v >= 70;
        }
    }
    return false;
}

static bool any_shared(const ra_spill *sp, uint32_t n)
{
    for (uint32_t r = 0; r < n; r++)
        if (sp[r].place == RA_P_SHARED || sp[r].place == RA_P_SHARED_AFFINE) return true;
    return false;
}

static void count(ra_func_stats *fs, const ra_spill *sp, const uint8_t *spilled, uint32_t n)
{
    for (uint32_t r = 0; r < n; r++) {
        if (!spilled[r]) continue;
        fs->by_state[sp[r].state < 3 ? sp[r].state : DIV_DIVERGENT]++;
        fs->by_place[sp[r].place]++;
        if (sp[r].place == RA_P_LOCAL && sp[r].why) fs->why_local[sp[r].why]++;
        if (sp[r].sync && (sp[r].place == RA_P_SHARED || sp[r].place == RA_P_SHARED_AFFINE)) fs->sync_slots++;
    }
}

/* only_nonlocal: what the placement or the shared-area fit still sends to
 * .local (a slot past --smem-limit, a value whose placement changed with
 * the spilled set) stays in its register instead. */
static void keep_local_in_regs(const ra_live *L, ra_spill *sp, ra_scan *sc, uint32_t *local_bytes)
{
    for (uint32_t r = 0; r < L->nregs; r++)
        if (sc->spilled[r] && sp[r].place == RA_P_LOCAL) {
            sc->spilled[r] = 0;
            sc->nspilled--;
            sp[r].place = RA_P_NONE;
        }
    *local_bytes = 0;
}

/* What only the placement needs, the divergence analysis first of all:
 * made when something is spilled, so that a function that fits its budget
 * costs liveness and one scan. */
typedef struct placer {
    ra_reginfo *ri;
    uint8_t *unstable;
    uint8_t *sync_why; /* ra_sync_rule (NULL in linear mode) */
    ra_absvals *av;
} placer;

static void need_placer(placer *pl, prog_func *pf, const ra_live *L, const ra_options *o, bool strong, arena *a)
{
    if (pl->av) return;
    if (!pf->gsa) pf->gsa = gsa_build(pf->ssa);
    div_options dopt;
    memset(&dopt, 0, sizeof dopt);
    blk_option_shape(o->blocks, pf->fn, dopt.block); /* else all 0: the analysis reads .reqntid */
    div_result *dr = div_analyse(pf, o->mode == RA_MODE_DIV ? DIV_AN_SIMPLE : DIV_AN_AFFINE, &dopt, a);
    pl->ri = ra_reginfo_build(pf, L, a);
    pl->unstable = ra_unstable_values_sem(pf, L->sem_flags, a);
    if (o->mode != RA_MODE_LINEAR && !o->unsafe_shared_reuse)
        pl->sync_why = ra_sync_rule(pf, L, dr, pl->ri, pl->unstable, strong, a);
    pl->av = ra_absvals_build(pf, dr, L, a);
}

static void place(const prog_func *pf, const placer *pl, const ra_live *L, const uint8_t *spilled,
                  const ra_options *o, ra_spill *sp)
{
    ra_place(pf, pl->av, pl->ri, pl->unstable, pl->sync_why, L, spilled, o, sp);
}

/* The modes' cost model, from where each register would go were it
 * spilled (ra_linear_scan): cost class 0 when that keeps it out of .local
 * (a shared slot, rematerialisation), 1 for .local; and the units its
 * spill code needs at each access besides its temporary. */
static void spill_costs(const prog_func *pf, const placer *pl, const ra_live *L, const ra_options *o, arena *a,
                        ra_spill *would, uint8_t **cost, uint8_t **extra)
{
    uint8_t *all = ARENA_NEWN(a, uint8_t, L->nregs + 1);
    memset(all, 1, L->nregs);
    place(pf, pl, L, all, o, would);
    *cost = all;
    *extra = ARENA_NEWN(a, uint8_t, 2 * L->nregs + 1);
    for (uint32_t r = 0; r < L->nregs; r++) {
        (*cost)[r] = would[r].place == RA_P_LOCAL;
        (*extra)[2 * r] = (uint8_t)ra_extra_units(pf->fn, would, r, false);
        (*extra)[2 * r + 1] = (uint8_t)ra_extra_units(pf->fn, would, r, true);
    }
}

/* What is still over the budget after the rounds of scans (excess, from
 * ra_scan_excess): the spilled registers whose spill code needs extra
 * units at such a point go to .local, which needs none (NULL: nothing). */
static uint8_t *no_room(const ra_live *L, const ra_scan *sc, const uint8_t *extra, const uint32_t *excess, arena *a)
{
    uint8_t *room = NULL;
    for (uint32_t p = 0; p < 2 * L->ninst; p++) {
        if (!excess[p]) continue;
        uint32_t k = p / 2;
        uint8_t want = p & 1 ? RA_OCC_DEF : RA_OCC_USE;
        for (uint32_t j = L->occ_off[k]; j < L->occ_off[k + 1]; j++) {
            const ra_occ *o = &L->occ[j];
            if (!sc->spilled[o->reg] || !(o->role & want) || !extra[2 * o->reg + (p & 1)]) continue;
            if (!room) room = ARENA_NEWN(a, uint8_t, L->nregs + 1);
            room[o->reg] = 1;
        }
    }
    return room;
}

/* a: scratch for this function, reset when it is done (one arena for all
 * functions: its pages are not faulted in again for each).  Returns the
 * rewrite to commit, NULL when nothing was spilled. */
static ra_edit *alloc_func(ptx_module *m, ra_shapes *sh, prog_func *pf, const ra_options *o, bool strong,
                           ra_func_stats *fs, arena *a, ptx_diags *d)
{
    ptx_func *fn = (ptx_func *)pf->fn; /* m is ours to rewrite */
    snprintf(fs->name, sizeof fs->name, "%.*s", (int)fn->name.n, fn->name.p);
    fs->is_entry = fn->is_entry;
    while (fs->func < m->nfuncs && m->funcs[fs->func] != fn) fs->func++;
    ra_live *L = ra_live_build_ssa(pf->ssa, a);
    ra_pressure pb;
    ra_live_pressure(L, &pb);
    fs->pressure_before = fs->pressure_after = pb.gpr;
    fs->pred_before = fs->pred_after = pb.pred;
    uint8_t *unsp = ARENA_NEWN(a, uint8_t, L->nregs + 1);
    ra_find_unspillable(pf, L, unsp);
    ra_spill *sp = ARENA_NEWN(a, ra_spill, L->nregs + 1);
    placer pl = {0};

    /* the block's exact shape, where it is stated (--block, the project
     * file, .reqntid, a launch): the shared area is then sized for its
     * warps, the slot address built from constants and the barrier mask
     * known (the divergence analysis rests on the same shape); the
     * default's is all 0 */
    uint32_t shape[3] = {0, 0, 0};
    if (fn->is_entry) blk_resolve(o->blocks, fn, shape);
    uint64_t known = (uint64_t)shape[0] * (shape[1] ? shape[1] : 1) * (shape[2] ? shape[2] : 1);
    if (known > 1024) shape[0] = shape[1] = shape[2] = 0, known = 0;
    uint32_t threads = known ? (uint32_t)known
                             : ra_kernel_threads(fn, o->max_threads ? o->max_threads : DEFAULT_THREADS);
    fs->warps = fn->is_entry ? (threads + 31) / 32 : 0;
    /* the kernel's own static .shared bytes matter (and are reported) only
     * once some value goes to a shared slot: found when first needed */
    bool have_static = !fn->is_entry;
    fs->static_shared = 0;
    uint32_t limit = o->smem_limit ? o->smem_limit : DEFAULT_SMEM;

    ra_intervals *iv = ra_intervals_build(L, a);
    ra_scan sc;
    uint32_t local_bytes = 0, slot_bytes = 0, moved = 0;
    uint8_t *cost = NULL, *extra = NULL;
    if (o->only_nonlocal) {
        /* those bound for .local are taken out of the scan's choice, so
         * that it picks the nonlocal candidates with the farthest next use
         * instead */
        need_placer(&pl, pf, L, o, strong, a);
        spill_costs(pf, &pl, L, o, a, sp, &cost, &extra);
        for (uint32_t r = 0; r < L->nregs; r++)
            if (cost[r]) unsp[r] = 1;
    }
    fs->budget_used = o->budget;
    bool full_warps = known && known % 32 == 0;
    uint32_t *budget_at = NULL, *excess = NULL;
    uint8_t *room = NULL;
    for (unsigned round = 0;; round++) {
        ra_linear_scan(L, iv, unsp, cost, extra, o->budget, budget_at, a, &sc);
        if (!sc.nspilled) { /* what ra_place and the fit would say of nothing */
            memset(sp, 0, L->nregs * sizeof *sp);
            break;
        }
        need_placer(&pl, pf, L, o, strong, a);
        /* once something must be spilled, scan again with the modes' cost
         * model and the units the spill code needs where it runs */
        if (!cost && o->mode != RA_MODE_LINEAR) {
            spill_costs(pf, &pl, L, o, a, sp, &cost, &extra);
            continue;
        }
        /* a register spilled late adds its spill code's units where the
         * scan had already been: lower the budget there and scan again */
        if (extra) {
            if (!excess) excess = ARENA_NEWN(a, uint32_t, 2 * L->ninst + 1);
            if (ra_scan_excess(L, iv, &sc, extra, o->budget, a, excess) && round < 6) {
                if (!budget_at) {
                    budget_at = ARENA_NEWN(a, uint32_t, 2 * L->ninst + 1);
                    for (uint32_t p = 0; p < 2 * L->ninst; p++) budget_at[p] = o->budget;
                }
                for (uint32_t p = 0; p < 2 * L->ninst; p++)
                    budget_at[p] = budget_at[p] > excess[p] ? budget_at[p] - excess[p] : 0;
                continue;
            }
            room = no_room(L, &sc, extra, excess, a);
        }
        place(pf, &pl, L, sc.spilled, o, sp);
        if (room)
            for (uint32_t r = 0; r < L->nregs; r++)
                if (room[r] && sp[r].place != RA_P_LOCAL) {
                    sp[r].place = RA_P_LOCAL;
                    sp[r].sync = 0;
                    sp[r].why = RA_WHY_ROOM;
                }
        if (!have_static && any_shared(sp, L->nregs)) {
            fs->static_shared = ra_static_shared(m, fn);
            have_static = true;
        }
        moved = ra_fit_shared(L, sp, !full_warps, fs->warps, fs->static_shared, limit, &local_bytes, &slot_bytes);
        if (o->only_nonlocal) keep_local_in_regs(L, sp, &sc, &local_bytes);
        break;
    }
    fs->spilled = sc.nspilled;
    fs->over_budget = sc.over_budget;
    count(fs, sp, sc.spilled, L->nregs);
    fs->local_bytes = local_bytes;
    fs->shared_slot_bytes = slot_bytes;
    fs->shared_bytes = slot_bytes * fs->warps;
    if (moved)
        ptx_diag_add(d, PTX_DIAG_WARNING, fn->name_loc,
                     "%s: the shared spill area would pass %u bytes per block (%u of static shared, %u warps): "
                     "%u value%s moved to .local",
                     fs->name, limit, fs->static_shared, fs->warps, moved, moved == 1 ? "" : "s");
    ra_edit *e = NULL;
    if (sc.nspilled) {
        bool one_dim = known ? shape[1] <= 1 && shape[2] <= 1 : ra_kernel_one_dim(fn);
        ra_rewrite_in rin = {L,       sp,     local_bytes, slot_bytes, one_dim, {shape[0], shape[1], shape[2]},
                             strong,  full_warps, o->sites, o->keep_parsed};
        e = ra_rewrite(sh, fn, &rin, fs);
    }
    arena_reset(a);
    return e;
}

/* Pressure of the rewritten function, by liveness on what was written. */
static void measure_after(ra_func_stats *fs, const ptx_func *fn)
{
    arena a;
    arena_init(&a);
    cfg *g = cfg_build(fn, &a, 0, NULL);
    if (g) {
        ra_pressure p;
        ra_live_pressure(ra_live_build(fn, g, &a), &p);
        fs->pressure_after = p.gpr;
        fs->pred_after = p.pred;
    }
    arena_free(&a);
}

int ra_run(ptx_module *m, const ra_options *o, ra_stats *st, ptx_diags *d)
{
    memset(st, 0, sizeof *st);
    st->mode = o->mode;
    st->budget = o->budget;
    /* every function's CFG and SSA first, so that bad input changes
     * nothing (the GSA, which cannot fail, is added for the functions that
     * spill); each function's are built from its own statements only, so
     * rewriting one leaves the others' valid */
    prog *p = o->prog ? o->prog : prog_build(m, PROG_SSA, o->only, d);
    if (!p) return -1;
    bool strong = strong_ok(m);
    ra_shapes *sh = ra_shapes_new(m);
    arena a;
    arena_init(&a);
    st->funcs = calloc(p->nfuncs + 1, sizeof *st->funcs);
    ra_edit **edits = calloc(p->nfuncs + 1, sizeof *edits);
    if (!st->funcs || !edits) abort();
    uint32_t nedits = 0;
    for (uint32_t k = 0; k < p->nfuncs; k++) {
        ra_options fo = *o;
        if (o->budget_of) { /* 0: a budget nothing reaches */
            fo.budget = o->budget_of(o->budget_ctx, p->funcs[k].fn);
            if (!fo.budget) fo.budget = UINT32_MAX;
        }
        ra_edit *e = alloc_func(m, sh, &p->funcs[k], &fo, strong, &st->funcs[st->nfuncs++], &a, d);
        if (e) edits[nedits++] = e;
    }
    ra_edit_commit_all(edits, nedits);
    free(edits);
    for (uint32_t k = 0; k < st->nfuncs; k++) {
        ra_func_stats *fs = &st->funcs[k];
        if (!fs->spilled) continue;
        if (o->measure_after) measure_after(fs, p->funcs[k].fn);
        else fs->pressure_after = fs->pred_after = RA_NOT_MEASURED;
    }
    arena_free(&a);
    ra_shapes_free(sh);
    if (!o->prog) prog_free(p);
    return 0;
}

struct ra_undo {
    arena_mark mark;
    uint32_t nfuncs;
    struct ra_undo_func {
        ptx_stmt **stmts, **was; /* the array, and its pointers when saved */
        ptx_reg *regs;
        uint32_t nstmts, ninsts, nregs;
    } f[];
};

ra_undo *ra_undo_save(const ptx_module *m)
{
    ra_undo *u = malloc(sizeof *u + (m->nfuncs + 1) * sizeof u->f[0]);
    if (!u) abort();
    u->mark = arena_mark_now(&m->arena);
    u->nfuncs = m->nfuncs;
    for (uint32_t i = 0; i < m->nfuncs; i++) {
        const ptx_func *fn = m->funcs[i];
        ptx_stmt **was = malloc((fn->nstmts + 1) * sizeof *was);
        if (!was) abort();
        if (fn->nstmts) memcpy(was, fn->stmts, fn->nstmts * sizeof *was);
        u->f[i] = (struct ra_undo_func){fn->stmts, was, fn->regs, fn->nstmts, fn->ninsts, fn->nregs};
    }
    return u;
}

void ra_undo_apply(ptx_module *m, ra_undo *u)
{
    for (uint32_t i = 0; i < u->nfuncs; i++) {
        ptx_func *fn = m->funcs[i];
        const struct ra_undo_func *f = &u->f[i];
        if (f->nstmts) memcpy(f->stmts, f->was, f->nstmts * sizeof *f->was);
        fn->stmts = f->stmts, fn->regs = f->regs;
        fn->nstmts = f->nstmts, fn->ninsts = f->ninsts, fn->nregs = f->nregs;
        free(f->was);
    }
    arena_rewind(&m->arena, &u->mark);
    free(u);
}

void ra_stats_free(ra_stats *s)
{
    for (uint32_t k = 0; k < s->nfuncs; k++) free(s->funcs[k].sites);
    free(s->funcs);
    s->funcs = NULL;
    s->nfuncs = 0;
}
