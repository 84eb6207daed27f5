#include "ra_target.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "printer.h"
#include "toolchain.h"

long ra_ptxas_spill_bytes(const char *log)
{
    long sum = 0;
    for (const char *p = log; p && (p = strstr(p, " bytes spill ")); p++) {
        /* the number just before: "N bytes spill stores" / "N bytes spill loads" */
        const char *q = p;
        while (q > log && q[-1] >= '0' && q[-1] <= '9') q--;
        sum += strtol(q, NULL, 10);
    }
    return sum;
}

/* ptxas -v on text; its spill bytes, or -1 (log shown) when it fails. */
static long assemble(const char *cmd, const char *dir, const char *what, const char *text, size_t len,
                     const char *arch, unsigned nregs, int debug)
{
    char ptx[4200], cubin[4200], archopt[80], maxr[32];
    snprintf(ptx, sizeof ptx, "%s/cand.ptx", dir);
    snprintf(cubin, sizeof cubin, "%s/cand.cubin", dir);
    snprintf(archopt, sizeof archopt, "-arch=%s", arch);
    snprintf(maxr, sizeof maxr, "%u", nregs);
    if (tc_write_file(ptx, text, len)) {
        fprintf(stderr, "ptxray %s: cannot write %s\n", cmd, ptx);
        return -1;
    }
    const char *ptxas = tc_find_ptxas();
    char *argv[] = {(char *)ptxas, archopt, "-v", "-maxrregcount", maxr, "-o", cubin, ptx, debug ? "-g" : NULL, NULL};
    char *log = NULL;
    int rc = tc_run(argv, &log);
    long s = ra_ptxas_spill_bytes(log);
    if (rc) {
        fprintf(stderr, "ptxray %s: ptxas %s on %s (status %d)\n%s", cmd, rc < 0 ? "could not be run" : "failed",
                what, rc, log ? log : "");
        s = -1;
    }
    free(log);
    unlink(ptx);
    unlink(cubin);
    return s;
}

int ra_target_regs(const char *cmd, const ptx_module *m, unsigned nregs, const char *arch, const ra_options *o,
                   char **out, size_t *outlen, ra_target_result *res)
{
    memset(res, 0, sizeof *res);
    *out = NULL;
    char archbuf[64];
    if (!arch) {
        if (tc_target_arch(m, archbuf, sizeof archbuf)) {
            fprintf(stderr, "ptxray %s: the module has no .target sm_XX: give --arch\n", cmd);
            return 2;
        }
        arch = archbuf;
    }
    if (!tc_find_ptxas()) {
        fprintf(stderr, "ptxray %s: --target-regs needs ptxas (looked at $PTXAS, PATH and /usr/local/cuda/bin)\n",
                cmd);
        return 2;
    }
    char dir[] = "/tmp/ptxray-tregsXXXXXX";
    if (!mkdtemp(dir)) {
        fprintf(stderr, "ptxray %s: cannot make a temporary directory\n", cmd);
        return 2;
    }
    int debug = tc_target_debug(m);
    int rc = 0;
    size_t inlen;
    char *input = ptx_print_text(m, &inlen), *prev = NULL, *best = NULL;
    size_t prevlen = 0, bestlen = 0;
    res->alone = res->with = assemble(cmd, dir, "the input", input, inlen, arch, nregs, debug);
    if (res->alone < 0) {
        rc = 2;
        goto done;
    }
    /* the input's pressure: a run with a budget nothing reaches */
    ra_options po = *o;
    po.budget = 65535;
    ptx_diags d;
    ptx_diags_init(&d);
    ptx_module *pm = ptx_parse_string("<input>", m->src, m->src_len, &d);
    ra_stats st;
    if (!pm || ra_run(pm, &po, &st, &d)) {
        ptx_diags_print(&d, "<input>", m->src, m->src_len, stderr);
        ptx_diags_free(&d);
        ptx_module_free(pm);
        rc = 2;
        goto done;
    }
    for (uint32_t i = 0; i < st.nfuncs; i++)
        if (st.funcs[i].pressure_before > res->pressure) res->pressure = st.funcs[i].pressure_before;
    ra_stats_free(&st);
    ptx_diags_free(&d);
    ptx_module_free(pm);
    /* from just below the pressure down, at most about 32 budgets; every
     * distinct candidate is assembled (one equal to the one before -- nothing
     * more could move -- or to the input is not) and the one ptxas spills
     * least for is kept, the higher budget (fewer values moved) on a tie.
     * ptxas's spill bytes are not monotonic in the budget: moving more
     * values frees registers in one place and adds slot-address code in
     * another, so the first candidate that helps is often not the best. */
    unsigned step = res->pressure / 32 + 1;
    for (unsigned b = res->pressure > 1 ? res->pressure - 1 : 0; res->alone > 0 && b >= 1; b = b > step ? b - step : 0) {
        ra_options co = *o;
        co.budget = b;
        co.only_nonlocal = true;
        ptx_diags_init(&d);
        ptx_module *cm = ptx_parse_string("<input>", m->src, m->src_len, &d);
        if (!cm || ra_run(cm, &co, &st, &d)) abort(); /* it parsed and built above */
        ra_stats_free(&st);
        ptx_diags_free(&d);
        size_t len;
        char *text = ptx_print_text(cm, &len);
        ptx_module_free(cm);
        if ((prev && len == prevlen && !memcmp(text, prev, len)) || (len == inlen && !memcmp(text, input, len))) {
            free(text);
            continue;
        }
        free(prev);
        prev = text;
        prevlen = len;
        char what[64];
        snprintf(what, sizeof what, "the output at budget %u", b);
        long s = assemble(cmd, dir, what, text, len, arch, nregs, debug);
        res->tried++;
        if (s < 0) {
            rc = 2;
            goto done;
        }
        if (s < res->with) {
            res->with = s;
            res->budget = b;
            free(best);
            best = malloc(len + 1);
            if (!best) abort();
            memcpy(best, text, len + 1);
            bestlen = len;
            if (!s) break; /* nothing left to win */
        }
    }
    if (best) {
        *out = best;
        *outlen = bestlen;
    } else {
        *out = input;
        *outlen = inlen;
        input = NULL;
    }
done:
    if (rc) free(best);
    free(prev);
    free(input);
    rmdir(dir);
    return rc;
}

void ra_target_print(FILE *f, const char *shown, unsigned nregs, const ra_target_result *r)
{
    if (r->budget)
        fprintf(f, "%s: -maxrregcount %u: ptxas alone: %ld bytes spilled; with the pass (budget %u): %ld bytes\n",
                shown, nregs, r->alone, r->budget, r->with);
    else
        fprintf(f, "%s: -maxrregcount %u: ptxas alone: %ld bytes spilled; no budget below the pressure (%u) "
                   "spilled less (%u tried): the output is the input\n",
                shown, nregs, r->alone, r->pressure, r->tried);
}
