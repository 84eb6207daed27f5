/* ptxray spillcost's reports: text tables, JSON, CSV and the gnuplot chart. */
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "json_stream.h"
#include "spillcost.h"
#include "table.h"
#include "toolchain.h"
#include "names.h"

void sc_totals(const sc_report *r, unsigned mode, unsigned budget, sc_total *t)
{
    memset(t, 0, sizeof *t);
    for (size_t i = 0; i < r->nrows; i++) {
        const sc_row *w = &r->rows[i];
        if (w->mode != mode || w->budget != budget) continue;
        const ra_func_stats *f = &w->fs;
        t->spilled += f->spilled;
        for (int k = 0; k < 3; k++) t->state[k] += f->by_state[k];
        for (int k = 0; k < RA_P__COUNT; k++) t->place[k] += f->by_place[k];
        t->loads_local += f->loads_local;
        t->stores_local += f->stores_local;
        t->loads_shared += f->loads_shared;
        t->stores_shared += f->stores_shared;
        t->remat += f->remat;
        t->remat_const += f->remat_const;
        t->remat_shared += f->remat_shared;
        t->loads_local_w += f->loads_local_w;
        t->stores_local_w += f->stores_local_w;
        t->loads_shared_w += f->loads_shared_w;
        t->stores_shared_w += f->stores_shared_w;
        t->remat_w += f->remat_w;
        t->shared_bytes += f->shared_bytes;
        if (w->have_ptxas) {
            t->ptxas_spill_stores += w->px.spill_stores;
            t->ptxas_spill_loads += w->px.spill_loads;
            t->ptxas_known++;
        }
        if (w->dyn.launches) {
            sc_dyn *y = &t->dyn;
            const sc_dyn *x = &w->dyn;
            t->dyn_kernels++;
            y->launches += x->launches, y->mismatches += x->mismatches;
            y->local_ld += x->local_ld, y->local_st += x->local_st;
            y->shared_ld += x->shared_ld, y->shared_st += x->shared_st;
            y->remat_c += x->remat_c, y->remat_a += x->remat_a, y->remat_s += x->remat_s;
        }
    }
}

/* div_state order in by_state: uniform, divergent, affine (analyses). */
enum { ST_UNI = 0, ST_DIV = 1, ST_AFF = 2 };

static const char *const col_names[] = {
    "file", "kernel", "mode", "budget", "spilled", "uniform", "affine", "divergent",
    "loads_shared", "stores_shared", "loads_local", "stores_local", "remat", "remat_shared",
    "loads_shared_w", "stores_shared_w", "loads_local_w", "stores_local_w", "remat_w",
    "local_bytes", "shared_bytes",
    "ptxas_registers", "ptxas_stack_frame", "ptxas_spill_stores", "ptxas_spill_loads", "ptxas_smem"};
#define NCOLS (sizeof col_names / sizeof col_names[0])
#define NPASS 21 /* columns up to shared_bytes; then the five of ptxas */

/* Cell c of row w as text; "" where it does not apply (the pass's columns
 * of the ptxas row, ptxas's where it did not run). */
static void cell(const sc_row *w, unsigned c, char *buf, size_t n)
{
    const ra_func_stats *f = &w->fs;
    uint64_t v = 0;
    buf[0] = 0;
    if (c >= 4 && c < NPASS && w->mode == SC_PTXAS) return;
    if (c >= NPASS && !w->have_ptxas) return;
    switch (c) {
    case 0: snprintf(buf, n, "%s", w->file); return;
    case 1: { /* as people read it: demangled (JSON has the symbol too) */
        char *d = ptx_demangle(w->kernel, strlen(w->kernel), true);
        snprintf(buf, n, "%s", d ? d : w->kernel);
        free(d);
        return;
    }
    case 2: snprintf(buf, n, "%s", sc_mode_name(w->mode)); return;
    case 3: v = w->budget; break;
    case 4: v = f->spilled; break;
    case 5: v = f->by_state[ST_UNI]; break;
    case 6: v = f->by_state[ST_AFF]; break;
    case 7: v = f->by_state[ST_DIV]; break;
    case 8: v = f->loads_shared; break;
    case 9: v = f->stores_shared; break;
    case 10: v = f->loads_local; break;
    case 11: v = f->stores_local; break;
    case 12: v = f->remat; break;
    case 13: v = f->remat_shared; break;
    case 14: v = f->loads_shared_w; break;
    case 15: v = f->stores_shared_w; break;
    case 16: v = f->loads_local_w; break;
    case 17: v = f->stores_local_w; break;
    case 18: v = f->remat_w; break;
    case 19: v = f->local_bytes; break;
    case 20: v = f->shared_bytes; break;
    case 21: v = w->px.registers; break;
    case 22: v = w->px.stack_frame; break;
    case 23: v = w->px.spill_stores; break;
    case 24: v = w->px.spill_loads; break;
    case 25: v = w->px.smem; break;
    default: return;
    }
    snprintf(buf, n, "%" PRIu64, v);
}

/* Sums of --target-regs over the files where ptxas ran (sc_target.ok). */
typedef struct target_total {
    long alone, with;
    unsigned files, helped;
} target_total;

static void target_totals(const sc_report *r, unsigned mode, target_total *t)
{
    memset(t, 0, sizeof *t);
    for (size_t i = 0; i < r->ntargets; i++) {
        const sc_target *x = &r->targets[i];
        if (x->mode != mode || !x->ok) continue;
        t->alone += x->res.alone;
        t->with += x->res.with;
        t->files++;
        t->helped += x->res.budget != 0;
    }
}

static void print_targets_text(FILE *o, const sc_report *r)
{
    fprintf(o,
            "\n--target-regs %u: ptxas -maxrregcount %u spill bytes (stores + loads, all functions) alone\n"
            "and after the pass (budget: the one kept, - when none spilled less and the output is the input)\n",
            r->target_regs, r->target_regs);
    table t;
    table_init(&t, 7, ~3u);
    const char *h[] = {"file", "mode", "pressure", "budget", "tried", "alone.B", "with.B"};
    for (unsigned c = 0; c < 7; c++) table_cell(&t, "%s", h[c]);
    for (size_t i = 0; i < r->ntargets; i++) {
        const sc_target *x = &r->targets[i];
        table_cell(&t, "%s", x->file);
        table_cell(&t, "%s", sc_mode_name(x->mode));
        if (!x->ok) {
            for (int k = 0; k < 5; k++) table_cell(&t, "-");
            continue;
        }
        table_cell(&t, "%u", x->res.pressure);
        if (x->res.budget) table_cell(&t, "%u", x->res.budget);
        else table_cell(&t, "-");
        table_cell(&t, "%u", x->res.tried);
        table_cell(&t, "%ld", x->res.alone);
        table_cell(&t, "%ld", x->res.with);
    }
    for (unsigned m = SC_DIV; m <= SC_AFF; m++) {
        target_total tt;
        target_totals(r, m, &tt);
        table_cell(&t, "total (%u of %u files helped)", tt.helped, tt.files);
        table_cell(&t, "%s", sc_mode_name(m));
        for (int k = 0; k < 3; k++) table_cell(&t, "-");
        table_cell(&t, "%ld", tt.alone);
        table_cell(&t, "%ld", tt.with);
    }
    table_print(&t, o, "");
    table_free(&t);
}

static json_t *targets_json(const sc_report *r)
{
    json_t *j = json_object(), *rows = json_array(), *tot = json_array();
    json_object_set_new(j, "regs", json_integer(r->target_regs));
    for (size_t i = 0; i < r->ntargets; i++) {
        const sc_target *x = &r->targets[i];
        json_t *w = json_object();
        json_object_set_new(w, "file", json_string(x->file));
        json_object_set_new(w, "mode", json_string(sc_mode_name(x->mode)));
        json_object_set_new(w, "ok", json_boolean(x->ok));
        json_object_set_new(w, "pressure", x->ok ? json_integer(x->res.pressure) : json_null());
        json_object_set_new(w, "budget", x->ok && x->res.budget ? json_integer(x->res.budget) : json_null());
        json_object_set_new(w, "tried", x->ok ? json_integer(x->res.tried) : json_null());
        json_object_set_new(w, "ptxas_spill_bytes_alone", x->ok ? json_integer(x->res.alone) : json_null());
        json_object_set_new(w, "ptxas_spill_bytes_with", x->ok ? json_integer(x->res.with) : json_null());
        json_array_append_new(rows, w);
    }
    for (unsigned m = SC_DIV; m <= SC_AFF; m++) {
        target_total tt;
        target_totals(r, m, &tt);
        json_t *w = json_object();
        json_object_set_new(w, "mode", json_string(sc_mode_name(m)));
        json_object_set_new(w, "files", json_integer(tt.files));
        json_object_set_new(w, "helped", json_integer(tt.helped));
        json_object_set_new(w, "ptxas_spill_bytes_alone", json_integer(tt.alone));
        json_object_set_new(w, "ptxas_spill_bytes_with", json_integer(tt.with));
        json_array_append_new(tot, w);
    }
    json_object_set_new(j, "rows", rows);
    json_object_set_new(j, "totals", tot);
    return j;
}

/* Where mode aff's loop-weighted .local spill instructions at budget k
 * come from, per kernel: divergent values, and the uniform and affine
 * values kept in .local by reason (ra_func_stats.local_w_why). */
static void print_why_text(FILE *o, const sc_report *r, unsigned k)
{
    bool col[RA_WHY__COUNT] = {true};
    uint64_t tot[RA_WHY__COUNT] = {0}, all = 0;
    size_t nk = 0;
    for (size_t i = 0; i < r->nrows; i++) {
        const sc_row *w = &r->rows[i];
        if (w->mode != SC_AFF || w->budget != k || !(w->fs.loads_local_w + w->fs.stores_local_w)) continue;
        nk++;
        for (unsigned y = 1; y < RA_WHY__COUNT; y++) col[y] |= w->fs.local_w_why[y] != 0;
    }
    if (!nk) return;
    unsigned nc = 3;
    for (unsigned y = 0; y < RA_WHY__COUNT; y++) nc += col[y];
    fprintf(o,
            "\nWhere aff's .local spill instructions at K=%u come from (loop-weighted ~, per kernel): divergent\n"
            "values (per-thread: no warp slot can hold them), and uniform/affine values kept in .local, by reason\n",
            k);
    table t;
    table_init(&t, nc, ~3u);
    table_cell(&t, "file");
    table_cell(&t, "kernel");
    table_cell(&t, "local~");
    table_cell(&t, "divergent");
    for (unsigned y = 1; y < RA_WHY__COUNT; y++)
        if (col[y]) table_cell(&t, "%s", ra_why_name((enum ra_why)y));
    char buf[1024];
    for (size_t i = 0; i < r->nrows; i++) {
        const sc_row *w = &r->rows[i];
        uint64_t l = w->fs.loads_local_w + w->fs.stores_local_w;
        if (w->mode != SC_AFF || w->budget != k || !l) continue;
        cell(w, 0, buf, sizeof buf);
        table_cell(&t, "%s", buf);
        cell(w, 1, buf, sizeof buf);
        table_cell(&t, "%s", buf);
        table_cell(&t, "%" PRIu64, l);
        all += l;
        for (unsigned y = 0; y < RA_WHY__COUNT; y++) {
            if (!col[y]) continue;
            table_cell(&t, "%" PRIu64, w->fs.local_w_why[y]);
            tot[y] += w->fs.local_w_why[y];
        }
    }
    table_cell(&t, "total");
    table_cell(&t, "%zu kernels", nk);
    table_cell(&t, "%" PRIu64, all);
    for (unsigned y = 0; y < RA_WHY__COUNT; y++)
        if (col[y]) table_cell(&t, "%" PRIu64, tot[y]);
    table_print(&t, o, "");
    table_free(&t);
}

/* --launches: per kernel, the emulator's figures beside the static
 * loop-weighted ones; totals per budget and mode; the Fig. 24-26 summary
 * with the dynamic figures. */
static void print_dyn_text(FILE *o, const sc_report *r)
{
    fprintf(o,
            "\nDynamic spill traffic (emulator, %zu launch%s of %s; bytes over all lanes; remat: started per lane;\n"
            "loc~: the static loop-weighted .local loads + stores)\n",
            r->nlaunches, r->nlaunches == 1 ? "" : "es", r->launch_path);
    table t;
    table_init(&t, 14, ~7u);
    const char *h[] = {"file", "kernel", "mode", "K", "launches", "loc~", ".local.ld.B", ".local.st.B", ".shared.ld.B",
                       ".shared.st.B", "remat.const", "remat.affine", "remat.sh-aff", "differ"};
    for (unsigned c = 0; c < 14; c++) table_cell(&t, "%s", h[c]);
    char buf[1024];
    for (size_t i = 0; i < r->nrows; i++) {
        const sc_row *w = &r->rows[i];
        const sc_dyn *y = &w->dyn;
        if (!y->launches) continue;
        for (unsigned c = 0; c < 4; c++) {
            cell(w, c, buf, sizeof buf);
            table_cell(&t, "%s", buf);
        }
        table_cell(&t, "%u", y->launches);
        table_cell(&t, "%" PRIu64, w->fs.loads_local_w + w->fs.stores_local_w);
        table_cell(&t, "%" PRIu64, y->local_ld);
        table_cell(&t, "%" PRIu64, y->local_st);
        table_cell(&t, "%" PRIu64, y->shared_ld);
        table_cell(&t, "%" PRIu64, y->shared_st);
        table_cell(&t, "%" PRIu64, y->remat_c);
        table_cell(&t, "%" PRIu64, y->remat_a);
        table_cell(&t, "%" PRIu64, y->remat_s);
        table_cell(&t, "%u", y->mismatches);
    }
    table_print(&t, o, "");
    table_free(&t);

    fputs("\nDynamic totals over the launched kernels (bytes loaded + stored; % of linear's .local bytes)\n", o);
    table_init(&t, 8, ~3u);
    const char *th[] = {"K", "mode", "kernels", ".local.B", "%linear", ".shared.B", "remat", "differ"};
    for (unsigned c = 0; c < 8; c++) table_cell(&t, "%s", th[c]);
    for (unsigned b = 0; b < r->nbudgets; b++) {
        sc_total lin;
        sc_totals(r, SC_LINEAR, r->budgets[b], &lin);
        uint64_t l0 = lin.dyn.local_ld + lin.dyn.local_st;
        for (unsigned m = 0; m < SC_PTXAS; m++) {
            sc_total s;
            sc_totals(r, m, r->budgets[b], &s);
            uint64_t l = s.dyn.local_ld + s.dyn.local_st;
            table_cell(&t, "%u", r->budgets[b]);
            table_cell(&t, "%s", sc_mode_name(m));
            table_cell(&t, "%u", s.dyn_kernels);
            table_cell(&t, "%" PRIu64, l);
            if (l0) table_cell(&t, "%.1f", 100.0 * (double)l / (double)l0);
            else table_cell(&t, "-");
            table_cell(&t, "%" PRIu64, s.dyn.shared_ld + s.dyn.shared_st);
            table_cell(&t, "%" PRIu64, s.dyn.remat_c + s.dyn.remat_a + s.dyn.remat_s);
            table_cell(&t, "%u", s.dyn.mismatches);
        }
    }
    table_print(&t, o, "");
    table_free(&t);

    unsigned k0 = r->budgets[0];
    fprintf(o,
            "\nDynamic summary at K=%u (Fig. 24-26 with the emulator's figures): spill bytes loaded from .shared\n"
            "and from .local (%% from .shared), rematerialisations executed by kind (per lane)\n",
            k0);
    table_init(&t, 7, ~1u);
    const char *sh[] = {"mode", "ld.shared.B", "ld.local.B", "%shared", "remat.const", "remat.affine",
                        "remat.shared-affine"};
    for (unsigned c = 0; c < 7; c++) table_cell(&t, "%s", sh[c]);
    for (unsigned m = 0; m < SC_PTXAS; m++) {
        sc_total s;
        sc_totals(r, m, k0, &s);
        table_cell(&t, "%s", sc_mode_name(m));
        table_cell(&t, "%" PRIu64, s.dyn.shared_ld);
        table_cell(&t, "%" PRIu64, s.dyn.local_ld);
        uint64_t all = s.dyn.shared_ld + s.dyn.local_ld;
        if (all) table_cell(&t, "%.1f", 100.0 * (double)s.dyn.shared_ld / (double)all);
        else table_cell(&t, "-");
        table_cell(&t, "%" PRIu64, s.dyn.remat_c);
        table_cell(&t, "%" PRIu64, s.dyn.remat_a);
        table_cell(&t, "%" PRIu64, s.dyn.remat_s);
    }
    table_print(&t, o, "");
    table_free(&t);
}

static json_t *dyn_json(const sc_dyn *y)
{
    return json_pack("{s:i,s:i,s:I,s:I,s:I,s:I,s:I,s:I,s:I}", "launches", (int)y->launches, "differ",
                     (int)y->mismatches, "local_loaded", (json_int_t)y->local_ld, "local_stored",
                     (json_int_t)y->local_st, "shared_loaded", (json_int_t)y->shared_ld, "shared_stored",
                     (json_int_t)y->shared_st, "remat_const", (json_int_t)y->remat_c, "remat_affine",
                     (json_int_t)y->remat_a, "remat_shared_affine", (json_int_t)y->remat_s);
}

static void print_text(FILE *o, const sc_report *r)
{
    static const char *const head[NCOLS] = {
        "file", "kernel", "mode", "K", "spilled", "uni", "aff", "div", "ld.sh", "st.sh", "ld.loc", "st.loc",
        "remat", "remat.sh", "ld.sh~", "st.sh~", "ld.loc~", "st.loc~", "remat~", "local.B", "shared.B",
        "regs", "stack", "spill.st", "spill.ld", "smem"};
    table t;
    table_init(&t, NCOLS, ~7u);
    for (unsigned c = 0; c < NCOLS; c++) table_cell(&t, "%s", head[c]);
    char buf[1024];
    for (size_t i = 0; i < r->nrows; i++)
        for (unsigned c = 0; c < NCOLS; c++) {
            cell(&r->rows[i], c, buf, sizeof buf);
            table_cell(&t, "%s", buf[0] ? buf : "-");
        }
    fputs("Spill cost per kernel (~: weighted by 10^loop depth, depth capped at 3; "
          "regs..smem: ptxas -v; .B: bytes)\n",
          o);
    table_print(&t, o, "");
    table_free(&t);

    fputs("\nTotals over the kernels (local/shared: spill loads + stores)\n", o);
    table_init(&t, 10, ~3u);
    const char *th[] = {"K", "mode", "spilled", "local", "local~", "shared", "shared~", "remat", "remat~",
                        "ptxas.spill.B"};
    for (unsigned c = 0; c < 10; c++) table_cell(&t, "%s", th[c]);
    for (unsigned b = 0; b < r->nbudgets; b++)
        for (unsigned m = 0; m < SC_NMODES; m++) {
            sc_total s;
            sc_totals(r, m, r->budgets[b], &s);
            table_cell(&t, "%u", r->budgets[b]);
            table_cell(&t, "%s", sc_mode_name(m));
            if (m == SC_PTXAS) {
                for (int k = 0; k < 7; k++) table_cell(&t, "-");
            } else {
                table_cell(&t, "%" PRIu64, s.spilled);
                table_cell(&t, "%" PRIu64, s.loads_local + s.stores_local);
                table_cell(&t, "%" PRIu64, s.loads_local_w + s.stores_local_w);
                table_cell(&t, "%" PRIu64, s.loads_shared + s.stores_shared);
                table_cell(&t, "%" PRIu64, s.loads_shared_w + s.stores_shared_w);
                table_cell(&t, "%" PRIu64, s.remat + s.remat_shared);
                table_cell(&t, "%" PRIu64, s.remat_w);
            }
            if (s.ptxas_known) table_cell(&t, "%" PRIu64, s.ptxas_spill_stores + s.ptxas_spill_loads);
            else table_cell(&t, "-");
        }
    table_print(&t, o, "");
    table_free(&t);

    unsigned k0 = r->budgets[0];
    fprintf(o,
            "\nSummary at K=%u over all kernels (Sampaio et al. 2013, Fig. 24-26): spilled values by state,\n"
            "spill loads from .shared and .local (%% from .shared), rematerialised uses by kind\n",
            k0);
    table_init(&t, 11, ~1u);
    const char *sh[] = {"mode", "spilled", "uni", "aff", "div", "ld.shared", "ld.local", "%shared", "remat.const",
                        "remat.affine", "remat.shared-affine"};
    for (unsigned c = 0; c < 11; c++) table_cell(&t, "%s", sh[c]);
    for (unsigned m = 0; m < SC_PTXAS; m++) {
        sc_total s;
        sc_totals(r, m, k0, &s);
        table_cell(&t, "%s", sc_mode_name(m));
        table_cell(&t, "%" PRIu64, s.spilled);
        table_cell(&t, "%" PRIu64, s.state[ST_UNI]);
        table_cell(&t, "%" PRIu64, s.state[ST_AFF]);
        table_cell(&t, "%" PRIu64, s.state[ST_DIV]);
        table_cell(&t, "%" PRIu64, s.loads_shared);
        table_cell(&t, "%" PRIu64, s.loads_local);
        uint64_t all = s.loads_shared + s.loads_local;
        if (all) table_cell(&t, "%.1f", 100.0 * (double)s.loads_shared / (double)all);
        else table_cell(&t, "-");
        table_cell(&t, "%" PRIu64, s.remat_const);
        table_cell(&t, "%" PRIu64, s.remat - s.remat_const);
        table_cell(&t, "%" PRIu64, s.remat_shared);
    }
    table_print(&t, o, "");
    table_free(&t);
    print_why_text(o, r, k0);
    if (r->nlaunches) print_dyn_text(o, r);
    if (r->target_regs) print_targets_text(o, r);
    for (size_t i = 0; i < r->nnotes; i++) fprintf(o, "%snote: %s\n", i ? "" : "\n", r->notes[i]);
}

static json_t *total_json(const sc_total *s, unsigned mode)
{
    json_t *j = json_object();
    if (mode != SC_PTXAS) {
        json_object_set_new(j, "spilled", json_integer((json_int_t)s->spilled));
        json_t *st = json_object();
        json_object_set_new(st, "uniform", json_integer((json_int_t)s->state[ST_UNI]));
        json_object_set_new(st, "affine", json_integer((json_int_t)s->state[ST_AFF]));
        json_object_set_new(st, "divergent", json_integer((json_int_t)s->state[ST_DIV]));
        json_object_set_new(j, "states", st);
        json_object_set_new(j, "loads_local", json_integer((json_int_t)s->loads_local));
        json_object_set_new(j, "stores_local", json_integer((json_int_t)s->stores_local));
        json_object_set_new(j, "loads_shared", json_integer((json_int_t)s->loads_shared));
        json_object_set_new(j, "stores_shared", json_integer((json_int_t)s->stores_shared));
        json_object_set_new(j, "remat_const", json_integer((json_int_t)s->remat_const));
        json_object_set_new(j, "remat_affine", json_integer((json_int_t)(s->remat - s->remat_const)));
        json_object_set_new(j, "remat_shared_affine", json_integer((json_int_t)s->remat_shared));
        json_object_set_new(j, "loads_local_w", json_integer((json_int_t)s->loads_local_w));
        json_object_set_new(j, "stores_local_w", json_integer((json_int_t)s->stores_local_w));
        json_object_set_new(j, "loads_shared_w", json_integer((json_int_t)s->loads_shared_w));
        json_object_set_new(j, "stores_shared_w", json_integer((json_int_t)s->stores_shared_w));
        json_object_set_new(j, "remat_w", json_integer((json_int_t)s->remat_w));
    }
    json_object_set_new(j, "ptxas_spill_bytes",
                        s->ptxas_known ? json_integer((json_int_t)(s->ptxas_spill_stores + s->ptxas_spill_loads))
                                       : json_null());
    return j;
}

static json_t *row_json(const sc_row *w)
{
    char buf[1024];
    json_t *j = json_object();
    for (unsigned c = 0; c < NCOLS; c++) {
        cell(w, c, buf, sizeof buf);
        json_t *v;
        if (c < 3) v = json_string(buf);
        else if (!buf[0]) v = json_null();
        else v = json_integer((json_int_t)strtoull(buf, NULL, 10));
        json_object_set_new(j, col_names[c], v);
        if (c == 1) json_object_set_new(j, "symbol", json_string(w->kernel));
    }
    if (w->mode != SC_PTXAS) { /* print_why_text's breakdown: divergent, then by ra_why */
        json_t *y = json_object();
        json_object_set_new(y, "divergent", json_integer((json_int_t)w->fs.local_w_why[RA_WHY_NONE]));
        for (unsigned k = 1; k < RA_WHY__COUNT; k++)
            json_object_set_new(y, ra_why_name((enum ra_why)k), json_integer((json_int_t)w->fs.local_w_why[k]));
        json_object_set_new(j, "local_w_why", y);
        if (w->dyn.launches) json_object_set_new(j, "dynamic", dyn_json(&w->dyn));
    }
    return j;
}

/* Written row by row (json_stream.h): the run's rows are small structs,
 * never one tree. */
static void print_json(FILE *o, const sc_report *r)
{
    jstream js;
    js_init(&js, o);
    js_open_object(&js, NULL);
    json_t *b = json_array();
    for (unsigned i = 0; i < r->nbudgets; i++) json_array_append_new(b, json_integer(r->budgets[i]));
    js_put(&js, "budgets", b);
    js_bool(&js, "ptxas", r->have_ptxas);
    js_open_array(&js, "rows");
    for (size_t i = 0; i < r->nrows; i++) js_put(&js, NULL, row_json(&r->rows[i]));
    js_close(&js);
    json_t *tot = json_array();
    for (unsigned bi = 0; bi < r->nbudgets; bi++)
        for (unsigned m = 0; m < SC_NMODES; m++) {
            sc_total s;
            sc_totals(r, m, r->budgets[bi], &s);
            json_t *j = json_object();
            json_object_set_new(j, "budget", json_integer(r->budgets[bi]));
            json_object_set_new(j, "mode", json_string(sc_mode_name(m)));
            json_t *v = total_json(&s, m);
            json_object_update(j, v);
            json_decref(v);
            if (s.dyn_kernels) json_object_set_new(j, "dynamic", dyn_json(&s.dyn));
            json_array_append_new(tot, j);
        }
    js_put(&js, "totals", tot);
    if (r->target_regs) js_put(&js, "target_regs", targets_json(r));
    json_t *notes = json_array();
    for (size_t i = 0; i < r->nnotes; i++) json_array_append_new(notes, json_string(r->notes[i]));
    js_put(&js, "notes", notes);
    js_finish(&js);
}

/* RFC 4180: quoted when it holds a comma, quote or line break. */
static void csv_field(FILE *o, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, o);
        return;
    }
    fputc('"', o);
    for (; *s; s++) {
        if (*s == '"') fputc('"', o);
        fputc(*s, o);
    }
    fputc('"', o);
}

static void print_csv(FILE *o, const sc_report *r)
{
    for (unsigned c = 0; c < NCOLS; c++) fprintf(o, "%s%s", c ? "," : "", col_names[c]);
    fputc('\n', o);
    char buf[1024];
    for (size_t i = 0; i < r->nrows; i++) {
        for (unsigned c = 0; c < NCOLS; c++) {
            if (c) fputc(',', o);
            cell(&r->rows[i], c, buf, sizeof buf);
            csv_field(o, buf);
        }
        fputc('\n', o);
    }
    /* the notes are not rows: stderr keeps the CSV clean */
    for (size_t i = 0; i < r->nnotes; i++) fprintf(stderr, "ptxray spillcost: note: %s\n", r->notes[i]);
}

void sc_print(FILE *o, const sc_report *r, enum sc_format f)
{
    if (f == SC_JSON) print_json(o, r);
    else if (f == SC_CSV) print_csv(o, r);
    else print_text(o, r);
}

/* A gnuplot single-quoted string: '' stands for a quote. */
static void gp_quoted(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'') fputc('\'', f);
        fputc(*s, f);
    }
    fputc('\'', f);
}

int sc_plot(const sc_report *r, const char *gnuplot, const char *path)
{
    size_t pl = strlen(path);
    char *tmp = malloc(pl + 16), script[] = "/tmp/ptxray-plotXXXXXX";
    if (!tmp) abort();
    /* the temporary SVG sits next to the target so that rename is atomic */
    snprintf(tmp, pl + 16, "%s.XXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        fprintf(stderr, "ptxray spillcost: %s: cannot create a file there\n", path);
        free(tmp);
        return -1;
    }
    close(fd);
    int sfd = mkstemp(script);
    FILE *f = sfd >= 0 ? fdopen(sfd, "w") : NULL;
    if (!f) {
        fprintf(stderr, "ptxray spillcost: cannot write the gnuplot script\n");
        unlink(tmp);
        free(tmp);
        if (sfd >= 0) { close(sfd); unlink(script); }
        return -1;
    }
    fputs("set terminal svg size 800,480 dynamic font 'sans,12' background rgb 'white'\nset output ", f);
    gp_quoted(f, tmp);
    fputs("\nset title 'Local-memory spill traffic (loads + stores weighted by 10^{loop depth})'\n"
          "set xlabel 'register budget K (32-bit units)'\n"
          "set ylabel 'weighted .local spill loads + stores'\n"
          "set y2label 'ptxas -maxrregcount K: spill bytes (stores + loads)'\n"
          "set ytics nomirror\nset y2tics\nset yrange [0:*]\nset y2range [0:*]\n"
          "set key outside bottom center horizontal\nset grid\nset datafile missing '?'\nset xtics (",
          f);
    for (unsigned b = 0; b < r->nbudgets; b++) fprintf(f, "%s%u", b ? ", " : "", r->budgets[b]);
    if (r->nbudgets == 1) fprintf(f, ")\nset xrange [%u:%u]\n", r->budgets[0] - 1, r->budgets[0] + 1);
    else fputs(")\n", f);
    fputs("$d << EOD\n", f);
    bool px_known = false;
    for (unsigned b = 0; b < r->nbudgets; b++) {
        fprintf(f, "%u", r->budgets[b]);
        for (unsigned m = 0; m < SC_NMODES; m++) {
            sc_total s;
            sc_totals(r, m, r->budgets[b], &s);
            if (m < SC_PTXAS) fprintf(f, " %" PRIu64, s.loads_local_w + s.stores_local_w);
            else if (s.ptxas_known) {
                fprintf(f, " %" PRIu64, s.ptxas_spill_stores + s.ptxas_spill_loads);
                px_known = true;
            }
            else fputs(" ?", f);
        }
        fputc('\n', f);
    }
    fputs("EOD\n"
          "plot $d using 1:2 with linespoints lw 2 title 'linear', \\\n"
          "     $d using 1:3 with linespoints lw 2 title 'div', \\\n"
          "     $d using 1:4 with linespoints lw 2 title 'aff'",
          f);
    /* gnuplot rejects a series with no point at all: no ptxas, no line */
    if (px_known)
        fputs(", \\\n     $d using 1:5 axes x1y2 with linespoints lw 2 dt 2 "
              "title 'ptxas -maxrregcount K (bytes, right axis)'",
              f);
    fputs("\nset output\n", f);
    int werr = ferror(f);
    if (fclose(f) || werr) {
        fprintf(stderr, "ptxray spillcost: cannot write the gnuplot script\n");
        unlink(script);
        unlink(tmp);
        free(tmp);
        return -1;
    }
    char *argv[] = {(char *)gnuplot, script, NULL};
    char *log = NULL;
    int rc = tc_run(argv, &log);
    unlink(script);
    struct stat st;
    if (rc != 0 || stat(tmp, &st) || st.st_size == 0) {
        fprintf(stderr, "ptxray spillcost: gnuplot failed (%d): %.500s\n", rc, log ? log : "");
        rc = -1;
    } else {
        /* mkstemp made it 0600: give it the mode a new file would get */
        mode_t um = umask(0);
        umask(um);
        if (chmod(tmp, 0666 & ~um) || rename(tmp, path)) {
            fprintf(stderr, "ptxray spillcost: %s: cannot write it\n", path);
            rc = -1;
        }
    }
    if (rc) unlink(tmp);
    free(log);
    free(tmp);
    return rc ? -1 : 0;
}
