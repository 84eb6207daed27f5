/* Findings of `ptxray check` and `ptxray analyze` (check_findings.h). */
#include "check_findings.h"
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "div_report.h"
#include "load.h"
#include "printer.h"

static const char *const rule_names[CHK_NRULES] = {"uncoalesced", "misaligned", "bank-conflict", "divergent-branch"};

const char *chk_rule_name(enum chk_rule r) { return r < CHK_NRULES ? rule_names[r] : "?"; }

static int rule_of(const char *s, size_t n)
{
    for (int r = 0; r < CHK_NRULES; r++)
        if (strlen(rule_names[r]) == n && !memcmp(rule_names[r], s, n)) return r;
    return -1;
}

bool chk_parse_rules(const char *s, unsigned *mask)
{
    *mask = 0;
    if (!strcmp(s, "none")) return true;
    for (;;) {
        const char *e = strchr(s, ',');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        int r = rule_of(s, n);
        if (r < 0) return false;
        *mask |= 1u << r;
        if (!e) return true;
        s = e + 1;
    }
}

static char *xstrdup(const char *s)
{
    char *d = strdup(s);
    if (!d) abort();
    return d;
}

static char *inst_raw(const ptx_func *fn, const ptx_inst *in)
{
    char *raw = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&raw, &len);
    if (!f) abort();
    ptx_print_inst(f, fn, in);
    fclose(f);
    return raw;
}

/* The printed instruction with whitespace collapsed and the digits of
 * register and label names dropped: nvcc renumbers %r12 and $L__BB0_3 when
 * unrelated code changes, while opcode, operand shape and symbols stay. */
static char *inst_normalized(const char *raw, bool drop_digits)
{
    size_t len = strlen(raw);
    char *out = malloc(len + 1);
    if (!out) abort();
    size_t k = 0;
    bool in_name = false, space = false;
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)raw[i];
        if (isspace(ch)) {
            space = k > 0;
            in_name = false;
            continue;
        }
        if (ch == '%' || ch == '$') in_name = true;
        else if (!isalnum(ch) && ch != '_') in_name = false;
        if (drop_digits && in_name && isdigit(ch)) continue;
        if (space) out[k++] = ' ';
        space = false;
        out[k++] = (char)ch;
    }
    out[k] = 0;
    return out;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

static uint64_t fnv_str(uint64_t h, const char *s) { return fnv(h, s ? s : "", s ? strlen(s) + 1 : 1); }

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* Without the ordinal: rule, PTX file, kernel, instruction text, the
 * access's pattern, stride and width, and the source file's base name and line (absolute build paths differ between
 * machines).  The PTX line is left out on purpose. */
static uint64_t base_fingerprint(const chk_finding *x)
{
    uint64_t h = 0xcbf29ce484222325ull;
    h = fnv_str(h, "ptxray-check-v1");
    h = fnv_str(h, chk_rule_name((enum chk_rule)x->rule));
    h = fnv_str(h, x->ptx_path);
    h = fnv_str(h, x->kernel);
    h = fnv_str(h, x->inst);
    h = fnv_str(h, x->access);
    h = fnv_str(h, x->src_file ? base_name(x->src_file) : NULL);
    return fnv(h, &x->src_line, sizeof x->src_line);
}

static chk_finding *push_to(chk_finding **v, size_t *n, size_t *cap)
{
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        *v = realloc(*v, *cap * sizeof **v);
        if (!*v) abort();
    }
    chk_finding *x = &(*v)[(*n)++];
    memset(x, 0, sizeof *x);
    return x;
}

static chk_finding *push(chk_list *l) { return push_to(&l->v, &l->n, &l->cap); }

static void locate(chk_finding *x, const coal_report_ctx *c, const coal_func *f, uint32_t stmt)
{
    const ptx_func *fn = f->pf->fn;
    const ptx_stmt *s = fn->stmts[stmt];
    x->line = s->loc.line;
    x->col = s->loc.col;
    src_pos p;
    src_pos_of(c->files, fn, stmt, &p);
    if (p.file) {
        x->src_file = xstrdup(p.file);
        x->src_line = p.line;
        x->src_col = p.col;
    }
    x->kernel = strndup(fn->name.p, fn->name.n);
    if (!x->kernel) abort();
    char *raw = inst_raw(fn, &s->u.inst);
    x->inst = inst_normalized(raw, true);
    free(raw);
    const cfg *g = f->pf->g;
    uint32_t b = g->stmt_block[stmt];
    uint32_t lp = b == CFG_NONE ? CFG_NONE : g->blocks[b].loop;
    x->loop_depth = lp == CFG_NONE ? 0 : g->loops[lp].depth;
}

static void collect_func(chk_list *l, const char *path, const coal_report_ctx *c, const coal_func *f, unsigned mask)
{
    char buf[1024];
    for (uint32_t j = 0; j < f->nacc; j++) {
        const coal_access *a = &f->acc[j];
        if (!coal_is_finding(a)) continue;
        int rule = rule_of(coal_rule(a), strlen(coal_rule(a)));
        if (rule < 0 || !(mask >> rule & 1)) continue;
        chk_finding *x = push(l);
        x->ptx_path = path;
        x->rule = (uint8_t)rule;
        locate(x, c, f, a->stmt);
        coal_message(c, f, a, buf, sizeof buf);
        x->message = xstrdup(buf);
        snprintf(buf, sizeof buf, "%s %s %u %" PRId64, coal_pattern_name((enum coal_pattern)a->pattern),
                 a->has_stride ? "stride" : "-", a->bytes, a->has_stride ? a->stride : 0);
        x->access = xstrdup(buf);
        if (coal_hint(c, f, a, buf, sizeof buf)) x->hint = xstrdup(buf);
    }
    if (!(mask >> CHK_DIVERGENT_BRANCH & 1)) return;
    const cfg *g = f->pf->g;
    for (uint32_t b = 0; b < g->nblocks; b++) {
        const cfg_block *bb = &g->blocks[b];
        if (!bb->reachable || bb->nsucc < 2 || bb->term == CFG_NONE) continue;
        if (dr_branch_uniform(f->r, b)) {
            unsigned cond = dr_branch_cond(f->r, b);
            if (!cond) continue;
            chk_finding *x = push_to(&l->cv, &l->ncv, &l->capcv);
            x->ptx_path = path;
            x->rule = CHK_DIVERGENT_BRANCH;
            locate(x, c, f, bb->term);
            x->message = xstrdup(div_cond_text(cond));
            continue;
        }
        chk_finding *x = push(l);
        x->ptx_path = path;
        x->rule = CHK_DIVERGENT_BRANCH;
        locate(x, c, f, bb->term);
        const char *kw = bb->nsucc > 2 ? "indirect branch" : "branch";
        char *raw = inst_raw(f->pf->fn, &f->pf->fn->stmts[bb->term]->u.inst);
        char *one = inst_normalized(raw, false);
        snprintf(buf, sizeof buf, "%s not proven uniform across the warp (affine analysis): %s", kw, one);
        free(one);
        free(raw);
        x->message = xstrdup(buf);
    }
}

static const char *intern_path(chk_list *l, const char *path)
{
    for (size_t i = l->npaths; i-- > 0;)
        if (!strcmp(l->paths[i], path)) return l->paths[i];
    l->paths = realloc(l->paths, (l->npaths + 1) * sizeof *l->paths);
    if (!l->paths) abort();
    return l->paths[l->npaths++] = xstrdup(path);
}

void chk_collect(chk_list *l, const char *path, const coal_report_ctx *c, unsigned mask)
{
    size_t first = l->n;
    const char *p = intern_path(l, path);
    for (uint32_t i = 0; i < c->res->nfuncs; i++) {
        collect_func(l, p, c, &c->res->f[i], mask);
        l->origin[coal_block_origin(c->opts, &c->res->f[i])]++;
    }
    /* identical findings without a telling source line (no .loc) tell
     * apart by their order in the file */
    size_t n = l->n - first;
    uint64_t *base = malloc(sizeof *base * (n ? n : 1));
    if (!base) abort();
    for (size_t i = 0; i < n; i++) base[i] = base_fingerprint(&l->v[first + i]);
    for (size_t i = 0; i < n; i++) {
        uint32_t ord = 0;
        for (size_t k = 0; k < i; k++) ord += base[k] == base[i];
        l->v[first + i].fingerprint = fnv(base[i], &ord, sizeof ord);
    }
    free(base);
}

int chk_load(const char *cmd, const char *path, const coal_options *o, ptx_module **m, prog **p, coal_result **res)
{
    *p = NULL;
    *m = ptx_load(path, 1);
    if (!*m) return 2;
    coal_options oo = *o;
    if (oo.only && !(oo.only = load_kernel(cmd, *m, path, o->only, false))) {
        ptx_module_free(*m);
        *m = NULL;
        return 2;
    }
    ptx_diags d;
    ptx_diags_init(&d);
    *p = prog_build(*m, PROG_GSA, oo.only, &d);
    if (!*p) {
        ptx_diags_print(&d, path, (*m)->src, (*m)->src_len, stderr);
        ptx_diags_free(&d);
        ptx_module_free(*m);
        *m = NULL;
        return 2;
    }
    ptx_diags_free(&d);
    *res = coal_analyse(*m, *p, &oo, &(*p)->a);
    return 0;
}

void chk_unload(ptx_module *m, prog *p)
{
    if (p) prog_free(p);
    if (m) ptx_module_free(m);
}

static int cmp_finding(const void *a, const void *b)
{
    const chk_finding *x = a, *y = b;
    int c = strcmp(x->ptx_path, y->ptx_path);
    if (c) return c;
    if (x->line != y->line) return x->line < y->line ? -1 : 1;
    if (x->col != y->col) return x->col < y->col ? -1 : 1;
    if (x->rule != y->rule) return x->rule < y->rule ? -1 : 1;
    return x->fingerprint < y->fingerprint ? -1 : x->fingerprint > y->fingerprint;
}

void chk_sort(chk_list *l)
{
    if (l->n) qsort(l->v, l->n, sizeof *l->v, cmp_finding);
    if (l->ncv) qsort(l->cv, l->ncv, sizeof *l->cv, cmp_finding);
}

static void free_findings(chk_finding *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        chk_finding *x = &v[i];
        free(x->kernel);
        free(x->src_file);
        free(x->message);
        free(x->hint);
        free(x->inst);
        free(x->access);
    }
    free(v);
}

void chk_free(chk_list *l)
{
    free_findings(l->v, l->n);
    free_findings(l->cv, l->ncv);
    for (size_t i = 0; i < l->npaths; i++) free(l->paths[i]);
    free(l->paths);
    memset(l, 0, sizeof *l);
}
