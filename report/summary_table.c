/* analyze's summary table (summary_table.h). */
#include "summary_table.h"
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "table.h"
#include "names.h"

typedef struct fkey {
    char *name;
    bool tmpl;
    uint32_t i;
} fkey;

static int cmp_key(const void *a, const void *b)
{
    const fkey *x = a, *y = b;
    if (x->tmpl != y->tmpl) return x->tmpl ? -1 : 1;
    int c = strcmp(x->name, y->name);
    if (c) return c;
    return x->i < y->i ? -1 : x->i > y->i;
}

/* Functions by symbol, to find a finding's (qsort and bsearch have no
 * context argument: the symbols are compared through the pointers). */
typedef struct sym_ix {
    const ptx_func *fn;
    uint32_t i;
} sym_ix;

static int cmp_sym(const void *a, const void *b)
{
    const ptx_func *x = ((const sym_ix *)a)->fn, *y = ((const sym_ix *)b)->fn;
    size_t n = x->name.n < y->name.n ? x->name.n : y->name.n;
    int c = memcmp(x->name.p, y->name.p, n);
    if (c) return c;
    return x->name.n < y->name.n ? -1 : x->name.n > y->name.n;
}

static int cmp_group(const void *a, const void *b)
{
    const sum_group *x = a, *y = b;
    int c = chk_rank_cmp(x->cost[CHK_PROVEN], x->cost[CHK_POSSIBLE], y->cost[CHK_PROVEN], y->cost[CHK_POSSIBLE]);
    if (c) return c;
    if ((c = strcmp(x->name, y->name))) return c;
    return x->fn[0] < y->fn[0] ? -1 : x->fn[0] > y->fn[0];
}

void sum_build(sum_table *t, const ptx_func *const *fns, uint32_t n, const chk_list *l)
{
    memset(t, 0, sizeof *t);
    t->nfuncs = n;
    fkey *k = malloc(sizeof *k * (n ? n : 1));
    sym_ix *by = malloc(sizeof *by * (n ? n : 1));
    t->group_of = malloc(sizeof *t->group_of * (n ? n : 1));
    t->g = calloc(n ? n : 1, sizeof *t->g);
    if (!k || !by || !t->group_of || !t->g) abort();
    for (uint32_t i = 0; i < n; i++) {
        char *tn = ptx_demangle_template(fns[i]->name.p, fns[i]->name.n);
        k[i] = (fkey){tn ? tn : ptx_func_shown(fns[i]), tn != NULL, i};
        by[i] = (sym_ix){fns[i], i};
    }
    qsort(k, n, sizeof *k, cmp_key);
    for (uint32_t i = 0; i < n;) {
        uint32_t j = i;
        /* a template's instances share a group; another function is its own */
        while (j < n && (j == i || (k[i].tmpl && k[j].tmpl && !strcmp(k[i].name, k[j].name)))) j++;
        sum_group *g = &t->g[t->n++];
        g->name = k[i].name;
        g->is_template = k[i].tmpl;
        g->n = j - i;
        g->fn = malloc(sizeof *g->fn * g->n);
        if (!g->fn) abort();
        for (uint32_t q = i; q < j; q++) {
            g->fn[q - i] = k[q].i;
            if (q > i) free(k[q].name);
        }
        i = j;
    }
    free(k);
    for (size_t gi = 0; gi < t->n; gi++)
        for (uint32_t q = 0; q < t->g[gi].n; q++) t->group_of[t->g[gi].fn[q]] = (uint32_t)gi;
    qsort(by, n, sizeof *by, cmp_sym);
    for (size_t j = 0; j < l->n; j++) {
        const chk_finding *x = &l->v[j];
        if (x->suppressed) { /* the project file's: in no view, counted */
            t->nsupp += x->supp != NULL;
            continue;
        }
        ptx_func probe;
        probe.name.p = x->symbol;
        probe.name.n = strlen(x->symbol);
        sym_ix key = {&probe, 0};
        const sym_ix *hit = n ? bsearch(&key, by, n, sizeof *by, cmp_sym) : NULL;
        if (!hit) continue;
        sum_group *g = &t->g[t->group_of[hit->i]];
        g->count[x->rule][x->certainty]++;
        g->cost[x->certainty] += x->cost;
    }
    free(by);
    qsort(t->g, t->n, sizeof *t->g, cmp_group);
    for (size_t gi = 0; gi < t->n; gi++)
        for (uint32_t q = 0; q < t->g[gi].n; q++) t->group_of[t->g[gi].fn[q]] = (uint32_t)gi;
}

bool sum_shows_rule(const sum_table *t, int r)
{
    if (r < CHK_DIVERGENT_BARRIER) return true;
    for (size_t i = 0; i < t->n; i++)
        if (t->g[i].count[r][0] || t->g[i].count[r][1]) return true;
    return false;
}

void sum_text(FILE *o, const sum_table *t)
{
    uint32_t ntmpl = 0;
    for (size_t i = 0; i < t->n; i++) ntmpl += t->g[i].is_template;
    fprintf(o, "summary: %u function%s in %zu group%s", t->nfuncs, t->nfuncs == 1 ? "" : "s", t->n,
            t->n == 1 ? "" : "s");
    if (ntmpl) fprintf(o, " (%u template%s)", ntmpl, ntmpl == 1 ? "" : "s");
    fputs("; ranked by proven cost, then possible cost; findings as proven/possible\n", o);
    if (t->supp_by) fprintf(o, "suppressed: %zu finding%s by %s\n", t->nsupp, t->nsupp == 1 ? "" : "s", t->supp_by);
    if (!t->n) return;
    table tb;
    /* name, instances, the rules, the two costs: numbers right-aligned */
    int nr = 0;
    for (int r = 0; r < CHK_NRULES; r++) nr += sum_shows_rule(t, r);
    table_init(&tb, 2 + (unsigned)nr + 2, ~1u);
    table_cell(&tb, "template or function");
    table_cell(&tb, "instances");
    for (int r = 0; r < CHK_NRULES; r++)
        if (sum_shows_rule(t, r)) table_cell(&tb, "%s", chk_rule_name((enum chk_rule)r));
    table_cell(&tb, "proven cost");
    table_cell(&tb, "possible cost");
    for (size_t i = 0; i < t->n; i++) {
        const sum_group *g = &t->g[i];
        table_cell(&tb, "%s", g->name);
        if (g->is_template) table_cell(&tb, "%u", g->n);
        else table_cell(&tb, "-");
        for (int r = 0; r < CHK_NRULES; r++)
            if (!sum_shows_rule(t, r)) continue;
            else if (g->count[r][0] || g->count[r][1]) table_cell(&tb, "%u/%u", g->count[r][0], g->count[r][1]);
            else table_cell(&tb, "-");
        table_cell(&tb, "%" PRIu64, g->cost[CHK_PROVEN]);
        table_cell(&tb, "%" PRIu64, g->cost[CHK_POSSIBLE]);
    }
    table_print(&tb, o, "  ");
    table_free(&tb);
}

json_t *sum_json(const sum_table *t, const ptx_func *const *fns)
{
    json_t *a = json_array();
    for (size_t i = 0; i < t->n; i++) {
        const sum_group *g = &t->g[i];
        json_t *syms = json_array(), *f = json_object();
        for (uint32_t q = 0; q < g->n; q++)
            json_array_append_new(syms, json_stringn(fns[g->fn[q]]->name.p, fns[g->fn[q]]->name.n));
        for (int r = 0; r < CHK_NRULES; r++)
            json_object_set_new(f, chk_rule_name((enum chk_rule)r),
                                json_pack("{s:I,s:I}", "proven", (json_int_t)g->count[r][CHK_PROVEN], "possible",
                                          (json_int_t)g->count[r][CHK_POSSIBLE]));
        json_array_append_new(
            a, json_pack("{s:s,s:b,s:I,s:o,s:o,s:{s:I,s:I}}", "name", g->name, "template", g->is_template,
                         "functions", (json_int_t)g->n, "symbols", syms, "findings", f, "cost", "proven",
                         (json_int_t)g->cost[CHK_PROVEN], "possible", (json_int_t)g->cost[CHK_POSSIBLE]));
    }
    return a;
}

void sum_free(sum_table *t)
{
    for (size_t i = 0; i < t->n; i++) {
        free(t->g[i].name);
        free(t->g[i].fn);
    }
    free(t->g);
    free(t->group_of);
    memset(t, 0, sizeof *t);
}
