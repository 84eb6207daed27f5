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
#include "printer.h"
#include "ptx.h"
#include "run_args.h"
#include "run_spec.h"
#include "spillcost.h"

#define SC_MAX_ARGS 256

static bool parse_dim(const char *s, emu_dim3 *d)
{
    uint64_t v[3] = {1, 1, 1};
    unsigned n = 0;
    const char *p = s;
    for (;;) {
        char tok[32];
        const char *c = strchr(p, ',');
        size_t len = c ? (size_t)(c - p) : strlen(p);
        if (n == 3 || !len || len >= sizeof tok) return false;
        memcpy(tok, p, len);
        tok[len] = 0;
        if (!spec_number(tok, &v[n]) || !v[n] || v[n] > 0x7fffffffu) return false;
        n++;
        if (!c) break;
        p = c + 1;
    }
    d->x = (uint32_t)v[0], d->y = (uint32_t)v[1], d->z = (uint32_t)v[2];
    return true;
}

void sc_launches_free(sc_report *r)
{
    for (size_t i = 0; i < r->nlaunches; i++) {
        sc_launch *L = &r->launches[i];
        free(L->kernel);
        for (unsigned k = 0; k < L->nargs; k++) free(L->args[k]);
        free(L->args);
    }
    free(r->launches);
    free(r->launch_path);
    r->launches = NULL;
    r->nlaunches = 0;
}

int sc_launches_read(sc_report *r, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "ptxray spillcost: --launches %s: %s\n", path, strerror(errno));
        return 2;
    }
    r->launch_path = strdup(path);
    if (!r->launch_path) abort();
    char line[8192];
    unsigned ln = 0;
    size_t cap = 0;
    int rc = 0;
    while (!rc && fgets(line, sizeof line, f)) {
        ln++;
        size_t n = strlen(line);
        if (n == sizeof line - 1 && line[n - 1] != '\n') {
            fprintf(stderr, "%s:%u:1: error: line longer than %zu characters\n", path, ln, sizeof line - 2);
            rc = 2;
            break;
        }
        char *hash = strchr(line, '#');
        if (hash) *hash = 0;
        char *tok[SC_MAX_ARGS + 3];
        unsigned nt = 0;
        for (char *save = NULL, *t = strtok_r(line, " \t\r\n", &save); t; t = strtok_r(NULL, " \t\r\n", &save)) {
            if (nt == SC_MAX_ARGS + 3) {
                fprintf(stderr, "%s:%u:1: error: more than %u arguments\n", path, ln, SC_MAX_ARGS);
                rc = 2;
                break;
            }
            tok[nt++] = t;
        }
        if (rc || !nt) continue;
        sc_launch L;
        memset(&L, 0, sizeof L);
        if (nt < 3 || !parse_dim(tok[1], &L.grid) || !parse_dim(tok[2], &L.block)) {
            fprintf(stderr,
                    "%s:%u:1: error: expected KERNEL GRID BLOCK [ARG]... (GRID, BLOCK: X[,Y[,Z]], positive)\n",
                    path, ln);
            rc = 2;
            break;
        }
        L.kernel = strdup(tok[0]);
        L.line = ln;
        L.nargs = nt - 3;
        L.args = calloc(L.nargs + 1, sizeof *L.args);
        if (!L.kernel || !L.args) abort();
        for (unsigned k = 0; k < L.nargs; k++)
            if (!(L.args[k] = strdup(tok[3 + k]))) abort();
        if (r->nlaunches == cap) {
            cap = cap ? 2 * cap : 8;
            r->launches = realloc(r->launches, cap * sizeof *r->launches);
            if (!r->launches) abort();
        }
        r->launches[r->nlaunches++] = L;
    }
    fclose(f);
    if (!rc && !r->nlaunches) {
        fprintf(stderr, "%s: error: no launches\n", path);
        rc = 2;
    }
    return rc;
}

/* One launch of m: the machine after it (caller destroys), its status.
 * false with the reason in err when the arguments do not fit the kernel. */
static emu_machine *run_launch(const ptx_module *m, const sc_launch *L, FILE *devnull, emu_status *st, char *err,
                               size_t errn)
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
    int np = emu_kernel_params(R.M, L->kernel, pinfo, SC_MAX_ARGS);
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
        *st = emu_launch(R.M, L->kernel, L->grid, L->block, args, L->nargs, &d);
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

static bool has_kernel(const ptx_module *m, const char *k)
{
    const ptx_func *f = ptx_module_find_func(m, k);
    return f && f->is_entry && f->has_body;
}

sc_dynfile *sc_dyn_begin(sc_report *r, const char *path, FILE *msgs)
{
    if (!r->nlaunches) return NULL;
    sc_dynfile *df = calloc(1, sizeof *df);
    if (!df) abort();
    const ptx_module *m0 = df->m0 = ptx_load_to(path, 1, msgs); /* outlives the machines */
    if (!m0) {
        df->failed = true;
        return df;
    }
    df->devnull = fopen("/dev/null", "w");
    df->orig = calloc(r->nlaunches, sizeof *df->orig);
    if (!df->devnull || !df->orig) abort();
    for (size_t i = 0; i < r->nlaunches; i++) {
        sc_launch *L = &r->launches[i];
        if (!has_kernel(m0, L->kernel)) continue;
        L->seen = true;
        char err[600];
        emu_status st;
        emu_machine *M = run_launch(m0, L, df->devnull, &st, err, sizeof err);
        if (!M) {
            fprintf(msgs, "%s:%u:1: error: %s: %s\n", r->launch_path, L->line, path, err);
            df->failed = true;
            break;
        }
        if (st != EMU_OK) {
            sc_note(r, "%s:%u: %s: the original kernel %s stops (%s): launch left out", r->launch_path, L->line, path,
                    L->kernel, emu_status_name(st));
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
            if (!strcmp(r->rows[k].kernel, L->kernel)) w = &r->rows[k];
        if (!w) continue;
        sc_dyn *y = &w->dyn;
        y->launches++;
        char err[600];
        emu_status st = EMU_ERR_USAGE;
        emu_machine *M = m2 ? run_launch(m2, L, df->devnull, &st, err, sizeof err) : NULL;
        if (!M || st != EMU_OK || !same_globals(df->orig[i], M)) {
            y->mismatches++;
            sc_note(r, "%s:%u: %s %s K=%u: the rewritten kernel %s %s", r->launch_path, L->line, path,
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
    for (size_t i = 0; i < r->nlaunches; i++) emu_destroy(df->orig[i]);
    free(df->orig);
    ptx_module_free(df->m0);
    fclose(df->devnull);
    free(df);
}
