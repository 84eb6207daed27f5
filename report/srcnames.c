/* Source names of PTX values (srcnames.h). */
#include "srcnames.h"
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "launch_table.h"
#include "srctext.h"
#include "names.h"

/* The .cu files parsed in this run, by the path they were read from: a
 * batch (check -j N) asks for one .cu from several threads and files, and
 * libclang takes about half a second a file, so each is parsed once, under
 * the lock, and kept until exit. */
typedef struct parsed {
    char *path;
    hc_table t; /* empty when the file could not be parsed */
} parsed;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static parsed **cache; /* each apart: the tables handed out stay where they are */
static size_t ncache;

static void free_cache(void)
{
    for (size_t i = 0; i < ncache; i++) {
        free(cache[i]->path);
        hc_table_free(&cache[i]->t);
        free(cache[i]);
    }
    free(cache);
    cache = NULL;
    ncache = 0;
}

static const hc_table *parse_once(const char *path)
{
    pthread_mutex_lock(&mu);
    for (size_t i = 0; i < ncache; i++)
        if (!strcmp(cache[i]->path, path)) {
            pthread_mutex_unlock(&mu);
            return &cache[i]->t;
        }
    if (!ncache) atexit(free_cache);
    parsed **c = realloc(cache, (ncache + 1) * sizeof *cache);
    if (!c) abort();
    cache = c;
    parsed *p = calloc(1, sizeof *p);
    if (!p) abort();
    cache[ncache] = p;
    p->path = strdup(path);
    if (!p->path) abort();
    if (hc_available()) {
        /* quietly: a source libclang cannot read only loses its names.
         * With ptxray's own minimal CUDA declarations, not the toolkit's
         * headers: a parameter's name does not need its type's, and the
         * parse takes 0.04 s instead of 0.5 (the corpus's 57 sources give
         * the same names either way). */
        FILE *devnull = fopen("/dev/null", "w");
        hc_result r = {0};
        if (devnull && !hc_scan(path, &(hc_opts){.builtin_cuda = true}, &r, "names", devnull)) hc_table_from_result(&p->t, &r);
        hc_free(&r);
        if (devnull) fclose(devnull);
    }
    ncache++;
    const hc_table *t = &p->t;
    pthread_mutex_unlock(&mu);
    return t;
}

static bool ends_with(const char *s, const char *suf)
{
    size_t n = strlen(s), k = strlen(suf);
    return n >= k && !strcmp(s + n - k, suf);
}

/* The tables of the .cu files the .file directives name (the main file
 * first, as nvcc writes it), those that can be read. */
static void look(sn_src *s)
{
    s->looked = true;
    if (!s->files || !s->ptx_path) return;
    src_texts *st = NULL;
    for (uint32_t i = 0; i < s->files->n && s->ntabs < sizeof s->tabs / sizeof s->tabs[0]; i++) {
        const char *f = s->files->path[i];
        if (!ends_with(f, ".cu") || src_is_toolkit(f)) continue;
        if (!st) st = st_new();
        const char *found = st_find(st, s->ptx_path, f);
        if (found) s->tabs[s->ntabs++] = parse_once(found);
    }
    st_free(st);
}

const char *sn_param_name(sn_src *s, const ptx_func *fn, uint32_t i)
{
    if (!s) return NULL;
    if (s->blocks) {
        const hc_kshapes *k = blk_launch_entry(s->blocks, fn);
        if (k && k->params && k->nparams == fn->nparams && i < k->nparams && k->params[i][0]) return k->params[i];
    }
    if (!s->looked) look(s);
    for (uint32_t t = 0; t < s->ntabs; t++) {
        const char *n = hc_table_param(s->tabs[t], fn->name.p, fn->name.n, fn->nparams, i);
        if (n) return n;
    }
    return NULL;
}

/* nvcc's name for parameter i of fn: NAME_param_i. */
static bool nvcc_param_name(const ptx_func *fn, int32_t i, const char *ptx)
{
    size_t n = fn->name.n;
    char suffix[24];
    snprintf(suffix, sizeof suffix, "_param_%d", (int)i);
    return strlen(ptx) == n + strlen(suffix) && !memcmp(ptx, fn->name.p, n) && !strcmp(ptx + n, suffix);
}

/* ---- values in source terms ----------------------------------------------- */

/* A uniform value as an expression of kernel parameters, special registers,
 * constants and device variables: k·t, t rendered with the precedence of
 * its outermost operator. */
enum { SX_WORDS, SX_SUM, SX_PRODUCT, SX_ATOM }; /* SX_WORDS: "param 3 of Fan2", bracketed whenever combined */
#define SX_LEN 96
#define SX_DEPTH 8
#define SX_MAX_OPS 3
#define SX_MAX_CHARS 40

typedef struct sx {
    bool ok, cst; /* cst: the constant k alone */
    int64_t k;    /* the value is k·t */
    int prec;     /* t's */
    char t[SX_LEN];
} sx;

typedef struct sx_ctx {
    sn_src *s;
    const addr_chain *c;
} sx_ctx;

static sx sx_fail(void) { return (sx){0}; }
static sx sx_const(int64_t k) { return (sx){.ok = true, .cst = true, .k = k, .prec = SX_ATOM}; }

static sx sx_atom(const char *name)
{
    sx r = {.ok = true, .k = 1, .prec = strchr(name, ' ') ? SX_WORDS : SX_ATOM};
    if (snprintf(r.t, sizeof r.t, "%s", name) >= (int)sizeof r.t) return sx_fail();
    return r;
}

/* a's text into buf (false when it does not fit), *prec its precedence. */
static bool sx_text(const sx *a, char *buf, size_t n, int *prec)
{
    int w;
    if (a->cst) {
        w = snprintf(buf, n, "%lld", (long long)a->k);
        *prec = a->k < 0 ? SX_SUM : SX_ATOM;
    } else if (a->k == 1) {
        w = snprintf(buf, n, "%s", a->t);
        *prec = a->prec;
    } else {
        bool br = a->prec < SX_PRODUCT;
        if (a->k == -1) w = snprintf(buf, n, "-%s%s%s", br ? "(" : "", a->t, br ? ")" : "");
        else w = snprintf(buf, n, "%lld·%s%s%s", (long long)a->k, br ? "(" : "", a->t, br ? ")" : "");
        *prec = a->k < 0 ? SX_SUM : SX_PRODUCT;
    }
    return w >= 0 && (size_t)w < n;
}

/* a's text, bracketed when its precedence is below min. */
static bool sx_operand(const sx *a, int min, char *buf, size_t n)
{
    char t[SX_LEN];
    int prec;
    if (!sx_text(a, t, sizeof t, &prec)) return false;
    int w = prec < min ? snprintf(buf, n, "(%s)", t) : snprintf(buf, n, "%s", t);
    return w >= 0 && (size_t)w < n;
}

static sx sx_mul(sx a, sx b)
{
    if (!a.ok || !b.ok) return sx_fail();
    int64_t k;
    if (__builtin_mul_overflow(a.k, b.k, &k) || k > INT32_MAX || k < INT32_MIN) return sx_fail();
    if (!k) return sx_const(0);
    if (a.cst) { /* constants lead: 2·s */
        b.k = k;
        return b;
    }
    if (b.cst) {
        a.k = k;
        return a;
    }
    a.k = b.k = 1;
    sx r = {.ok = true, .k = k, .prec = SX_PRODUCT};
    char x[SX_LEN], y[SX_LEN];
    if (!sx_operand(&a, SX_PRODUCT, x, sizeof x) || !sx_operand(&b, SX_PRODUCT, y, sizeof y) ||
        snprintf(r.t, sizeof r.t, "%s·%s", x, y) >= (int)sizeof r.t)
        return sx_fail();
    return r;
}

/* a + sign·b */
static sx sx_add(sx a, sx b, int sign)
{
    if (!a.ok || !b.ok) return sx_fail();
    int64_t kb = sign * b.k, k;
    if (a.cst && b.cst) {
        if (__builtin_add_overflow(a.k, kb, &k) || k > INT32_MAX || k < INT32_MIN) return sx_fail();
        return sx_const(k);
    }
    if (b.cst && !kb) return a;
    if (a.cst && sign > 0) { /* constants last: s + 1 */
        sx t = a;
        a = b;
        b = t;
        kb = b.k;
    }
    if (a.cst && !a.k) return sx_mul(sx_const(sign), b);
    /* a + kb·t: "a - 2·t" for kb < 0, the term bracketed as it needs */
    b.k = kb < 0 ? -kb : kb;
    sx r = {.ok = true, .k = 1, .prec = SX_SUM};
    char x[SX_LEN], y[SX_LEN];
    if (!sx_operand(&a, SX_SUM, x, sizeof x) || !sx_operand(&b, kb < 0 ? SX_PRODUCT : SX_SUM, y, sizeof y) ||
        snprintf(r.t, sizeof r.t, "%s %s %s", x, kb < 0 ? "-" : "+", y) >= (int)sizeof r.t)
        return sx_fail();
    return r;
}

/* A special register as messages name it: blockDim.x for %ntid.x (the
 * CUDA names of the uniform ones), else the PTX name; one without a
 * component (%smid, a numbered %envreg3) is not named. */
static sx sx_sreg(ptx_sreg r, unsigned comp)
{
    const char *n = r == PTX_SR_NTID ? "blockDim" : r == PTX_SR_NCTAID ? "gridDim" : r == PTX_SR_CTAID ? "blockIdx" : NULL;
    char buf[48];
    if (!comp) return sx_fail();
    snprintf(buf, sizeof buf, "%s.%c", n ? n : ptx_sreg_name(r), (char)comp);
    return sx_atom(buf);
}

static const ptx_var *module_var(const ptx_module *m, ptx_str name)
{
    for (uint32_t i = 0; i < m->nstmts; i++)
        if (m->stmts[i]->kind == PTX_S_VAR && ptx_str_eqs(m->stmts[i]->u.var->name, name)) return m->stmts[i]->u.var;
    return NULL;
}

/* The device variable sym's layout from the source: the launch table's
 * scan, else the .cu files the .file directives name. */
static const hc_var *source_var(sn_src *s, ptx_str sym)
{
    if (!s) return NULL;
    const hc_var *v = s->blocks && s->blocks->launches ? hc_table_var(s->blocks->launches, sym.p, sym.n) : NULL;
    if (v) return v;
    if (!s->looked) look(s);
    for (uint32_t t = 0; t < s->ntabs; t++)
        if ((v = hc_table_var(s->tabs[t], sym.p, sym.n))) return v;
    return NULL;
}

/* What a load of bytes bytes at byte off of module variable var reads:
 * "c_cam.width", "coef[3]" with the source; without it, "coef[3]" of a
 * PTX array of that element, "[c_cam+28]" of bytes (.b8 c_cam[36]). */
static sx var_load(sx_ctx *x, const ptx_var *var, int64_t off, uint32_t bytes)
{
    if (off < 0 || var->unsized || var->vec) return sx_fail();
    uint64_t el = ptx_type_bits(var->type) / 8, size = el;
    for (uint32_t d = 0; d < var->ndims; d++) size *= var->dims[d];
    if (!el || (uint64_t)off + bytes > size) return sx_fail();
    char *shown = ptx_demangle(var->name.p, var->name.n, false);
    char name[SX_LEN], path[SX_LEN];
    snprintf(name, sizeof name, "%.*s", shown ? (int)strlen(shown) : (int)var->name.n, shown ? shown : var->name.p);
    free(shown);
    const hc_var *hv = source_var(x->s, var->name);
    char buf[2 * SX_LEN];
    /* a layout of another size is of another version of the source */
    if (hv && hv->size == size && hc_var_path(hv, (uint64_t)off, bytes, path, sizeof path))
        snprintf(buf, sizeof buf, "%s%s", name, path);
    else if (el == bytes && var->type != PTX_T_B8 && var->ndims <= 1 && off % (int64_t)el == 0) {
        if (var->ndims) snprintf(buf, sizeof buf, "%s[%lld]", name, (long long)(off / (int64_t)el));
        else snprintf(buf, sizeof buf, "%s", name);
    } else /* PTX's own words for the bytes at that address: an atom in any expression */
        snprintf(buf, sizeof buf, "[%s+%lld]", name, (long long)off);
    return sx_atom(buf);
}

static sx sx_value(sx_ctx *x, uint32_t v, unsigned depth);

static sx sx_operand_of(sx_ctx *x, uint32_t st, uint32_t i, unsigned depth)
{
    const ptx_inst *in = &x->c->pf->fn->stmts[st]->u.inst;
    if (i >= in->nopd) return sx_fail();
    const ptx_operand *o = &in->opd[i];
    switch (o->kind) {
    case PTX_O_IMM: return o->flags == PTX_IMM_INT ? sx_const(o->v) : sx_fail();
    case PTX_O_SREG: return sx_sreg((ptx_sreg)o->n, o->comp);
    case PTX_O_REG: {
        uint32_t w = ssa_use_value(x->c->pf->ssa, st, i);
        return w == SSA_NONE ? sx_fail() : sx_value(x, w, depth + 1);
    }
    default: return sx_fail();
    }
}

/* A scalar load from a module variable at a constant offset: [var+off],
 * or [%rd+off] with %rd = mov var. */
static sx sx_load(sx_ctx *x, uint32_t st, const ptx_inst *in)
{
    if (in->vec || in->nopd != 2 || in->opd[0].kind != PTX_O_REG || in->opd[1].kind != PTX_O_ADDR ||
        in->opd[1].n != 1)
        return sx_fail();
    if (in->space != PTX_SP_CONST && in->space != PTX_SP_GLOBAL) return sx_fail();
    const ptx_operand *e = &in->opd[1].p.elems[0];
    int64_t off = in->opd[1].v;
    ptx_str name;
    if (e->kind == PTX_O_SYM) name = ptx_opd_text(e);
    else if (e->kind == PTX_O_REG) {
        uint32_t dst;
        const ptx_inst *d = addr_def(x->c, ssa_use_value(x->c->pf->ssa, st, 1), &dst);
        if (!d || d->op != PTX_OPC_MOV || d->nopd != 2 || d->opd[1].kind != PTX_O_SYM) return sx_fail();
        name = ptx_opd_text(&d->opd[1]);
    } else return sx_fail();
    const ptx_var *var = module_var(x->c->m, name);
    if (!var || var->space != in->space) return sx_fail();
    return var_load(x, var, off, ptx_type_bits(in->type) / 8);
}

static sx sx_value(sx_ctx *x, uint32_t v, unsigned depth)
{
    if (depth > SX_DEPTH) return sx_fail();
    const addr_chain *c = x->c;
    char buf[160];
    int32_t pi;
    addr_value_label(c, v, buf, sizeof buf, &pi);
    if (pi >= 0) return sx_atom(sn_value_label(x->s, c, v, buf, sizeof buf, NULL)); /* a parameter */
    const ssa_func *s = c->pf->ssa;
    const ssa_value *val = &s->values[v];
    if (val->kind == SSA_V_SREG) return sx_sreg((ptx_sreg)val->reg, val->comp);
    if (val->kind != SSA_V_INST || val->partial || s->refs[val->ref].opd != 0) return sx_fail();
    uint32_t st = val->stmt;
    const ptx_inst *in = &c->pf->fn->stmts[st]->u.inst;
    if (in->op == PTX_OPC_LD || in->op == PTX_OPC_LDU) return sx_load(x, st, in);
    /* the integer operation as every representation reads it (ptx_iop_decode:
     * no .sat, .hi or carry, integer types) */
    const ptx_iop *d = &s->iop[st];
    switch (d->rule) {
    case PTX_IOP_MOV:
    case PTX_IOP_MOV_INT: return sx_operand_of(x, st, 1, depth);
    case PTX_IOP_CVT_S:
    case PTX_IOP_CVT_U:
        /* an integer widened (or kept): the same value; a narrowing one is
         * another value */
        if (in->nopd != 2 || d->w < d->sw) return sx_fail();
        return sx_operand_of(x, st, 1, depth);
    case PTX_IOP_ADD:
    case PTX_IOP_SUB:
        if (in->nopd != 3) return sx_fail();
        return sx_add(sx_operand_of(x, st, 1, depth), sx_operand_of(x, st, 2, depth), d->rule == PTX_IOP_SUB ? -1 : 1);
    case PTX_IOP_MUL:
        if (in->nopd != 3) return sx_fail();
        return sx_mul(sx_operand_of(x, st, 1, depth), sx_operand_of(x, st, 2, depth));
    case PTX_IOP_MAD:
        if (in->nopd != 4) return sx_fail();
        return sx_add(sx_mul(sx_operand_of(x, st, 1, depth), sx_operand_of(x, st, 2, depth)),
                      sx_operand_of(x, st, 3, depth), 1);
    case PTX_IOP_SHL:
        /* by a constant below the width: a multiplication by 2^k */
        if (in->nopd != 3 || in->opd[2].kind != PTX_O_IMM || in->opd[2].flags != PTX_IMM_INT || in->opd[2].v < 0 ||
            in->opd[2].v >= 31 || (unsigned)in->opd[2].v >= d->w)
            return sx_fail();
        return sx_mul(sx_operand_of(x, st, 1, depth), sx_const((int64_t)1 << in->opd[2].v));
    case PTX_IOP_NEG:
        if (in->nopd != 2) return sx_fail();
        return sx_mul(sx_const(-1), sx_operand_of(x, st, 1, depth));
    default: return sx_fail();
    }
}

/* The text of k·v when it is short: at most SX_MAX_OPS operators and
 * SX_MAX_CHARS characters. */
static bool value_text(sn_src *s, const addr_chain *c, uint32_t v, int64_t k, char *buf, size_t n)
{
    sx_ctx x = {s, c};
    sx e = sx_mul(sx_const(k), sx_value(&x, v, 0));
    char t[SX_LEN];
    int prec;
    if (!e.ok || !sx_text(&e, t, sizeof t, &prec)) return false;
    unsigned ops = 0, chars = 0;
    for (const char *p = t; *p; p++) {
        chars += ((unsigned char)*p & 0xC0) != 0x80;
        if (!strncmp(p, "·", strlen("·")) || !strncmp(p, " + ", 3) || !strncmp(p, " - ", 3)) ops++;
    }
    ops += t[0] == '-';
    if (ops > SX_MAX_OPS || chars > SX_MAX_CHARS || (size_t)snprintf(buf, n, "%s", t) >= n) return false;
    return true;
}

const char *sn_value_label(sn_src *s, const addr_chain *c, uint32_t v, char *buf, size_t n, int32_t *param)
{
    int32_t i;
    addr_value_label(c, v, buf, n, &i);
    if (param) *param = i;
    if (i < 0) {
        char t[SX_LEN];
        if (value_text(s, c, v, 1, t, sizeof t)) snprintf(buf, n, "%s", t);
        return buf;
    }
    const ptx_func *fn = c->pf->fn;
    const char *name = sn_param_name(s, fn, (uint32_t)i);
    if (name) snprintf(buf, n, "%s", name);
    else if (nvcc_param_name(fn, i, buf)) { /* a name PTX written by hand gives ("pitch") stays */
        char *shown = ptx_demangle(fn->name.p, fn->name.n, false);
        snprintf(buf, n, "param %d of %.*s", i, shown ? (int)strlen(shown) : (int)fn->name.n,
                 shown ? shown : fn->name.p);
        free(shown);
    }
    return buf;
}

const char *sn_value_times(sn_src *s, const addr_chain *c, uint32_t v, int64_t k, char *buf, size_t n)
{
    int32_t i;
    addr_value_label(c, v, buf, n, &i);
    if (i < 0 && value_text(s, c, v, k, buf, n)) return buf;
    char name[160];
    sn_value_label(s, c, v, name, sizeof name, NULL);
    bool br = sn_label_compound(name);
    if (k == 1) snprintf(buf, n, "%s", name);
    else if (k == -1) snprintf(buf, n, "-%s%s%s", br ? "(" : "", name, br ? ")" : "");
    else snprintf(buf, n, "%lld·%s%s%s", (long long)k, br ? "(" : "", name, br ? ")" : "");
    return buf;
}

int32_t sn_value_param(sn_src *s, const addr_chain *c, uint32_t v, const char **name)
{
    char buf[8];
    int32_t i;
    addr_value_label(c, v, buf, sizeof buf, &i);
    *name = i < 0 ? NULL : sn_param_name(s, c->pf->fn, (uint32_t)i);
    return i;
}

json_t *sn_param_json(sn_src *s, const addr_chain *c, uint32_t v)
{
    const char *name;
    int32_t i = sn_value_param(s, c, v, &name);
    if (i < 0) return NULL;
    return json_pack("{s:i, s:o}", "index", (json_int_t)i, "name", name ? json_string(name) : json_null());
}

bool sn_label_compound(const char *label) { return strchr(label, ' ') != NULL || label[0] == '-'; }
