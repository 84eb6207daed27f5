/* Names and the text summary of the pass (`ptxray regalloc` on stderr). */
#include "regalloc.h"

const char *ra_mode_name(enum ra_mode m)
{
    switch (m) {
    case RA_MODE_LINEAR: return "linear";
    case RA_MODE_DIV: return "div";
    case RA_MODE_AFF: return "aff";
    }
    return "?";
}

const char *ra_place_name(enum ra_place p)
{
    static const char *const n[RA_P__COUNT] = {"register", "local", "shared", "const", "affine", "shared-affine"};
    return p < RA_P__COUNT ? n[p] : "?";
}

const char *ra_why_name(enum ra_why w)
{
    static const char *const n[RA_WHY__COUNT] = {
        "-", "mode", "in a .func", "several definitions", "defined in a loop", "guarded definition",
        "unstable under independent scheduling", "type", "shared limit",
        "redefined where the warp may be split", "no room for the slot's address",
    };
    return w < RA_WHY__COUNT ? n[w] : "?";
}

static void func_line(FILE *o, const ra_func_stats *f, const ra_stats *s)
{
    if (f->pressure_after == RA_NOT_MEASURED)
        fprintf(o, "  %s: pressure %u -> (not measured) units (.pred %u)", f->name, f->pressure_before, f->pred_before);
    else
        fprintf(o, "  %s: pressure %u -> %u units (.pred %u)", f->name, f->pressure_before, f->pressure_after,
                f->pred_before);
    if (f->budget_used != s->budget) fprintf(o, ", scan budget %u", f->budget_used);
    if (!f->spilled) {
        fputs(": nothing spilled\n", o);
        return;
    }
    fprintf(o, "; %u spilled (uniform %u, affine %u, divergent %u)\n", f->spilled, f->by_state[0], f->by_state[2],
            f->by_state[1]);
    fprintf(o, "    rules: (i) const %u, (ii) shared %u, (iii) affine %u, (iv) shared-affine %u, local %u\n",
            f->by_place[RA_P_CONST], f->by_place[RA_P_SHARED], f->by_place[RA_P_AFFINE],
            f->by_place[RA_P_SHARED_AFFINE], f->by_place[RA_P_LOCAL]);
    if (f->sync_slots)
        fprintf(o, "    written more than once, in slots behind bar.warp.sync: %u (%u barriers)\n", f->sync_slots,
                f->barriers);
    uint32_t kept = 0;
    for (int w = 1; w < RA_WHY__COUNT; w++) kept += f->why_local[w];
    if (kept) {
        fprintf(o, "    uniform/affine in .local: %u (", kept);
        const char *sep = "";
        for (int w = 1; w < RA_WHY__COUNT; w++)
            if (f->why_local[w]) {
                fprintf(o, "%s%s %u", sep, ra_why_name((enum ra_why)w), f->why_local[w]);
                sep = ", ";
            }
        fputs(")\n", o);
    }
    fprintf(o, "    loads: .local %u, .shared %u; stores: .local %u, .shared %u; rematerialised %u", f->loads_local,
            f->loads_shared, f->stores_local, f->stores_shared, f->remat);
    if (f->remat_shared) fprintf(o, ", rebuilt from .shared %u", f->remat_shared);
    fputc('\n', o);
    if (f->local_bytes || f->shared_slot_bytes) {
        fputs("    ", o);
        if (f->local_bytes) fprintf(o, ".local %u bytes per thread%s", f->local_bytes, f->shared_slot_bytes ? "; " : "");
        if (f->shared_slot_bytes)
            fprintf(o, ".shared %u bytes per warp x %u warps = %u bytes per block (+%u static)", f->shared_slot_bytes,
                    f->warps, f->shared_bytes, f->static_shared);
        fputc('\n', o);
    }
    if (f->over_budget)
        fprintf(o, "    instructions over the budget whatever is spilled: %u\n", f->over_budget);
}

void ra_stats_print(FILE *o, const char *path, const ra_stats *s)
{
    fprintf(o, "regalloc %s: mode %s, budget %u units\n", path, ra_mode_name(s->mode), s->budget);
    ra_func_stats t = {0};
    for (uint32_t i = 0; i < s->nfuncs; i++) {
        const ra_func_stats *f = &s->funcs[i];
        func_line(o, f, s);
        t.spilled += f->spilled;
        for (int k = 0; k < 3; k++) t.by_state[k] += f->by_state[k];
        for (int k = 0; k < RA_P__COUNT; k++) t.by_place[k] += f->by_place[k];
        t.loads_local += f->loads_local;
        t.loads_shared += f->loads_shared;
        t.stores_local += f->stores_local;
        t.stores_shared += f->stores_shared;
        t.remat += f->remat;
        t.remat_shared += f->remat_shared;
    }
    if (s->nfuncs > 1)
        fprintf(o,
                "  total: %u spilled (uniform %u, affine %u, divergent %u); loads .local %u, .shared %u; stores "
                ".local %u, .shared %u; rematerialised %u\n",
                t.spilled, t.by_state[0], t.by_state[2], t.by_state[1], t.loads_local, t.loads_shared,
                t.stores_local, t.stores_shared, t.remat + t.remat_shared);
}
