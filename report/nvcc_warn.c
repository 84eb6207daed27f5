/* ptxray nvcc's warnings (nvcc_warn.h). */
#include "nvcc_warn.h"
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>
#include "check_findings.h"
#include "pipeline.h"
#include "srcloc.h"

/* The launch shapes of a->cu: scanned once per nvcc run (libclang takes a
 * second) and kept as `ptxray launches` JSON next to the seen file. */
static bool shapes(const nvw_analysis *a, hc_table *t)
{
    char path[4400], lock[4400];
    const char *slash = strrchr(a->seen, '/');
    int dl = slash ? (int)(slash - a->seen) : 1;
    snprintf(path, sizeof path, "%.*s/launches.json", dl, slash ? a->seen : ".");
    snprintf(lock, sizeof lock, "%.*s/launches.lock", dl, slash ? a->seen : ".");
    FILE *lf = fopen(lock, "a");
    if (lf) flock(fileno(lf), LOCK_EX);
    bool ok = false;
    if (!access(path, F_OK)) ok = !hc_table_load(t, path, stderr);
    else if (hc_available()) {
        hc_opts ho = {.flags = (const char *const *)a->hcflags, .nflags = a->nhcflags};
        hc_result r = {0};
        if (!hc_scan(a->cu, &ho, &r, "nvcc", stderr)) {
            hc_table_from_result(t, &r);
            json_t *j = hc_to_json(&r);
            json_dump_file(j, path, 0);
            json_decref(j);
            ok = true;
        }
        hc_free(&r);
    }
    if (lf) fclose(lf); /* unlocks */
    if (!ok) memset(t, 0, sizeof *t);
    return ok;
}

/* The findings of the PTX at one round of the launch shapes. */
typedef struct round_res {
    chk_list l;
} round_res;

static bool same_place(const chk_finding *x, const chk_finding *y)
{
    return x->rule == y->rule && !strcmp(x->symbol, y->symbol) && x->src_line == y->src_line &&
           x->src_col == y->src_col && x->line == y->line && !strcmp(x->src_file ? x->src_file : "", y->src_file ? y->src_file : "");
}

static bool holds_everywhere(const round_res *rr, uint32_t nr, const chk_finding *x, bool possible)
{
    for (uint32_t r = 1; r < nr; r++) {
        bool found = false;
        for (size_t i = 0; i < rr[r].l.n && !found; i++)
            found = same_place(x, &rr[r].l.v[i]) && (possible || rr[r].l.v[i].certainty == CHK_PROVEN);
        if (!found) return false;
    }
    return true;
}

/* Whether key was printed already (by another architecture's step); adds it. */
static bool seen_before(FILE *sf, const char *key)
{
    if (!sf) return false;
    rewind(sf);
    char line[8192];
    size_t kl = strlen(key);
    while (fgets(line, sizeof line, sf))
        if (!strncmp(line, key, kl) && line[kl] == '\n') return true;
    fseek(sf, 0, SEEK_END);
    fprintf(sf, "%s\n", key);
    fflush(sf);
    return false;
}

static void print_one(const chk_finding *x, const nvw_analysis *a)
{
    const char *rule = chk_rule_name((enum chk_rule)x->rule);
    bool possible = x->certainty == CHK_POSSIBLE;
    if (x->src_file && x->src_col) fprintf(stderr, "%s:%u:%u: ", x->src_file, x->src_line, x->src_col);
    else if (x->src_file) fprintf(stderr, "%s:%u: ", x->src_file, x->src_line);
    else fprintf(stderr, "%s: ", a->cu ? a->cu : a->ptx);
    fprintf(stderr, "warning: %s%s in kernel %s [ptxray-%s]\n", possible ? "possible: " : "", x->message, x->kernel,
            rule);
    if (x->src_file && x->src_text) {
        fprintf(stderr, " %5u | %s\n       | ", x->src_line, x->src_text);
        for (uint32_t c = 1; c < x->src_col; c++) fputc(x->src_text[c - 1] == '\t' ? '\t' : ' ', stderr);
        fputs("^\n", stderr);
    }
    if (x->hint) fprintf(stderr, "%s:%u: note: hint: %s\n", x->src_file ? x->src_file : a->cu ? a->cu : a->ptx,
                         x->src_file ? x->src_line : 0, x->hint);
    if (x->assumed) /* the project file's facts changed it (config.h) */
        fprintf(stderr, "%s:%u: note: assuming %s\n", x->src_file ? x->src_file : a->cu ? a->cu : a->ptx,
                x->src_file ? x->src_line : 0, x->assumed);
}

bool nvw_config_shapes(void *config_ctx, const char *from, blk_opts *b)
{
    const ptx_config *c;
    return !cfg_for(config_ctx, from, &c) && cfg_add_blocks(c, b, "nvcc");
}

int nvw_warn(const nvw_opts *o, const nvw_analysis *a)
{
    hc_table t;
    bool have = a->cu && shapes(a, &t);
    blk_opts blocks = o->blocks;
    blocks.launches = have ? &t : NULL;
    uint32_t nr = blk_rounds(&blocks);
    round_res *rr = calloc(nr, sizeof *rr);
    if (!rr) abort();
    /* every round of the table's shapes, on one parse (pipeline.h) */
    pl_prog pl;
    /* the project file found from the .cu (config.h; the step's, which
     * the rewrite reads too): its shapes and facts, and its suppressions as
     * check applies them; what it says about itself (unused entries,
     * expiry) is check's, which sees the whole project, not one
     * compilation unit */
    pl_options po = {.cmd = "nvcc", .level = PROG_GSA, .passes = PL_COALESCE, .blocks = &blocks,
                     .shapes = PL_SHAPES_MARK, .nrounds = nr, .configs = o->config_ctx,
                     .config_from = a->cu ? a->cu : a->ptx, .module = a->m, .module_diags = a->diags};
    int rc = pl_load(&pl, a->ptx, &po) ? -1 : 0;
    uint32_t loaded = rc ? 0 : nr;
    for (uint32_t r = 0; r < loaded; r++) {
        chk_collect(&rr[r].l, a->ptx, &pl.ctx[r], o->rules);
        if (pl.cfg && pl.cfg->ns) cfg_suppress(&rr[r].l, 0, pl.m, pl.cfg);
        chk_sort(&rr[r].l);
    }
    if (rc) fprintf(stderr, "ptxray nvcc: warning: %s (%s): the PTX could not be analysed\n", a->cu ? a->cu : a->ptx,
                    a->arch);
    else {
        FILE *sf = a->count_only ? NULL : fopen(a->seen, "a+");
        if (sf) flock(fileno(sf), LOCK_EX);
        for (size_t i = 0; i < rr[0].l.n; i++) {
            const chk_finding *x = &rr[0].l.v[i];
            if (x->supp || (!o->possible && x->certainty != CHK_PROVEN) || !holds_everywhere(rr, nr, x, o->possible))
                continue;
            char key[8192];
            snprintf(key, sizeof key, "%s:%u:%u %s %s", x->src_file ? x->src_file : "", x->src_line, x->src_col,
                     chk_rule_name((enum chk_rule)x->rule), x->symbol);
            if (x->src_file && seen_before(sf, key)) continue;
            if (!a->count_only) print_one(x, a);
            rc++;
        }
        if (sf) fclose(sf);
    }
    for (uint32_t r = 0; r < loaded; r++) chk_free(&rr[r].l);
    if (loaded) pl_free(&pl);
    free(rr);
    if (have) hc_table_free(&t);
    return rc;
}
