/* ptxray spillcost --launches: the dynamic figures (spillcost.h,
 * docs/spillcost.md "Dynamic figures").  Each launch of the file runs in
 * the emulator on the original module and on every rewrite (printed and
 * parsed again, as `ptxray regalloc` writes it); the rewritten run must
 * leave global memory as the original's did, and what it moved to and
 * from the spill slots and the rematerialisations it started
 * (emu_stats.spill_*, remat_*) are added to the kernel's row. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "emu.h"
#include "launch_table.h"
#include "printer.h"
#include "ptx.h"
#include "names.h"
#include "run_args.h"
#include "run_spec.h"
#include "spillcost.h"

#define SC_MAX_ARGS 256

void sc_launches_free(sc_report *r)
{
    for (size_t i = 0; i < r->nlaunches; i++) {
        sc_launch *L = &r->launches[i];
        free(L->kernel);
        free(L->where);
        for (unsigned k = 0; k < L->nargs; k++) free(L->args[k]);
        free(L->args);
    }
    free(r->launches);
    free(r->launch_path);
    r->launches = NULL;
    r->nlaunches = 0;
}

static char *dup(const char *s)
{
    char *d = strdup(s);
    if (!d) abort();
    return d;
}

int sc_launches_read(sc_report *r, const char *path)
{
    hc_table t;
    if (hc_table_load(&t, path, stderr)) return 2;
    r->launch_path = dup(path);
    size_t cap = 0;
    int rc = 0;
    for (size_t k = 0; k < t.n; k++)
        for (uint32_t s = 0; s < t.k[k].n; s++)
            for (uint32_t i = 0; i < t.k[k].s[s].nruns; i++) {
                const hc_run *R = &t.k[k].s[s].runs[i];
                const uint32_t *b = t.k[k].s[s].block;
                if (R->nargs > SC_MAX_ARGS) {
                    fprintf(stderr, "%s: error: more than %u arguments\n", R->where, SC_MAX_ARGS);
                    rc = 2;
                    continue;
                }
                sc_launch L = {dup(t.k[k].name), {R->grid[0], R->grid[1], R->grid[2]}, {b[0], b[1], b[2]},
                               calloc(R->nargs + 1, sizeof(char *)), R->nargs, dup(R->where), 0};
                if (!L.args) abort();
                for (unsigned a = 0; a < L.nargs; a++) L.args[a] = dup(R->args[a]);
                if (r->nlaunches == cap) {
                    cap = cap ? 2 * cap : 8;
                    r->launches = realloc(r->launches, cap * sizeof *r->launches);
                    if (!r->launches) abort();
                }
                r->launches[r->nlaunches++] = L;
            }
    hc_table_free(&t);
    if (!rc && !r->nlaunches) {
        fprintf(stderr, "%s: error: no runs (launches with a \"grid\" and \"args\"; docs/launches.md)\n", path);
        rc = 2;
    }
    return rc;
}

/* One launch of m: the machine after it (caller destroys), its status.
 * false with the reason in err when the arguments do not fit the kernel. */
static emu_machine *run_launch(const ptx_module *m, const sc_launch *L, const char *sym, FILE *devnull,
                               emu_status *st, char *err, size_t errn)
{
    emu_options eo;
    memset(&eo, 0, sizeof eo);
    eo.printf_out = devnull;
    run_args R;
    memset(&R, 0, sizeof R);
    R.M = emu_create(m, &eo);
    emu_param_info pinfo[SC_MAX_ARGS];
    uint8_t *bytes[SC_MAX_ARGS] = {0};
    emu_arg args[SC_MAX_ARGS];
    int np = emu_kernel_params(R.M, sym, pinfo, SC_MAX_ARGS);
    bool ok = np >= 0 && (unsigned)np == L->nargs;
    if (!ok) snprintf(err, errn, "kernel %s takes %d parameters, %u given", L->kernel, np, L->nargs);
    for (unsigned i = 0; ok && i < L->nargs; i++) {
        bytes[i] = calloc(pinfo[i].size ? pinfo[i].size : 1, 1);
        if (!bytes[i]) abort();
        if (!run_argument(&R, L->args[i], &pinfo[i], bytes[i])) {
            snprintf(err, errn, "argument %u '%s': %s", i + 1, L->args[i], R.err);
            ok = false;
        }
        args[i] = (emu_arg){bytes[i], pinfo[i].size};
    }
    *st = EMU_ERR_USAGE;
    if (ok) {
        ptx_diags d;
        ptx_diags_init(&d);
        *st = emu_launch(R.M, sym, L->grid, L->block, args, L->nargs, &d);
        ptx_diags_free(&d);
    }
    for (unsigned i = 0; i < L->nargs && i < SC_MAX_ARGS; i++) free(bytes[i]);
    run_args_free(&R);
    if (!ok) {
        emu_destroy(R.M);
        return NULL;
    }
    return R.M;
}

static bool same_globals(const emu_machine *a, const emu_machine *b)
{
    if (emu_global_count(a) != emu_global_count(b)) return false;
    for (unsigned i = 0; i < emu_global_count(a); i++) {
        size_t n, n2;
        const uint8_t *x = emu_global_get(a, i, NULL, &n), *y = emu_global_get(b, i, NULL, &n2);
        if (n != n2 || (n && memcmp(x, y, n))) return false;
    }
    return true;
}

sc_dynfile *sc_dyn_begin(sc_report *r, const char *path, const ptx_module *m, FILE *msgs)
{
    if (!r->nlaunches) return NULL;
    sc_dynfile *df = calloc(1, sizeof *df);
    if (!df) abort();
    const ptx_module *m0 = df->m0 = m; /* outlives the machines */
    df->devnull = fopen("/dev/null", "w");
    df->orig = calloc(r->nlaunches, sizeof *df->orig);
    df->sym = calloc(r->nlaunches, sizeof *df->sym);
    if (!df->devnull || !df->orig || !df->sym) abort();
    for (size_t i = 0; i < r->nlaunches; i++) {
        sc_launch *L = &r->launches[i];
        const ptx_func *f;
        uint32_t n = ptx_name_lookup(m0, L->kernel, strlen(L->kernel), true, false, &f);
        if (n > 1) { /* overloads without their parameters */
            L->seen |= BLK_CLASH;
            fprintf(msgs,
                    "ptxray spillcost: %s: '%s' names %u kernels of %s; give its symbol or its C++ name, in full "
                    "or without its parameters:\n",
                    L->where, L->kernel, n, path);
            ptx_names_print(msgs, m0, true);
            df->failed = true;
            break;
        }
        if (!n) continue;
        L->seen |= BLK_SEEN;
        df->sym[i] = strndup(f->name.p, f->name.n);
        if (!df->sym[i]) abort();
        char err[600];
        emu_status st;
        emu_machine *M = run_launch(m0, L, df->sym[i], df->devnull, &st, err, sizeof err);
        if (!M) {
            fprintf(msgs, "%s: error: %s: %s\n", L->where, path, err);
            df->failed = true;
            break;
        }
        if (st != EMU_OK) {
            sc_note(r, "%s: %s: the original kernel %s stops (%s): launch left out", L->where, path, L->kernel,
                    emu_status_name(st));
            emu_destroy(M);
            continue;
        }
        df->orig[i] = M;
    }
    return df;
}

void sc_dyn_rewritten(sc_report *r, sc_dynfile *df, const char *path, const ptx_module *m, size_t from)
{
    if (!df || df->failed) return;
    size_t len;
    char *text = ptx_print_text(m, &len);
    ptx_diags d;
    ptx_diags_init(&d);
    ptx_module *m2 = ptx_parse_string(path, text, len, &d);
    ptx_diags_free(&d);
    free(text);
    for (size_t i = 0; i < r->nlaunches; i++) {
        if (!df->orig[i]) continue;
        const sc_launch *L = &r->launches[i];
        sc_row *w = NULL;
        for (size_t k = from; k < r->nrows && !w; k++)
            if (!strcmp(r->rows[k].kernel, df->sym[i])) w = &r->rows[k];
        if (!w) continue;
        sc_dyn *y = &w->dyn;
        y->launches++;
        char err[600];
        emu_status st = EMU_ERR_USAGE;
        emu_machine *M = m2 ? run_launch(m2, L, df->sym[i], df->devnull, &st, err, sizeof err) : NULL;
        if (!M || st != EMU_OK || !same_globals(df->orig[i], M)) {
            y->mismatches++;
            sc_note(r, "%s: %s %s K=%u: the rewritten kernel %s %s", L->where, path,
                    sc_mode_name(w->mode), w->budget, L->kernel,
                    !M ? "does not run" : st != EMU_OK ? emu_status_name(st) : "leaves other global memory");
        }
        if (M && st == EMU_OK) {
            const emu_stats *S = emu_last_stats(M);
            y->local_ld += S->spill_local_ld, y->local_st += S->spill_local_st;
            y->shared_ld += S->spill_shared_ld, y->shared_st += S->spill_shared_st;
            y->remat_c += S->remat_const, y->remat_a += S->remat_affine, y->remat_s += S->remat_shared;
        }
        emu_destroy(M);
    }
    ptx_module_free(m2);
}

void sc_dyn_end(sc_report *r, sc_dynfile *df)
{
    if (!df) return;
    for (size_t i = 0; df->orig && i < r->nlaunches; i++) {
        emu_destroy(df->orig[i]);
        free(df->sym[i]);
    }
    free(df->orig);
    free(df->sym);
    if (df->devnull) fclose(df->devnull);
    free(df);
}
