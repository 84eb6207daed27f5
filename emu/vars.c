/* Module-scope variables: .global variables become global segments (one
 * allocation each, so an overrun of one faults instead of silently reading
 * its neighbour), .const variables are laid out in one constant bank, and
 * .shared variables are recorded here and placed per kernel (decode.c).
 * Initialisers are evaluated into memory, including addresses of other
 * variables (generic(sym)+off) and of functions (function-pointer tables). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "emu_internal.h"
#include "fp.h"

static uint64_t var_elem_bytes(const ptx_var *v)
{
    unsigned b = emu_type_bytes(v->type);
    if (v->type == PTX_T_PRED) b = 1;
    return (uint64_t)b * (v->vec ? v->vec : 1);
}

/* Element count; *unsized when a dimension is [] (extern shared). */
static uint64_t var_count(const ptx_var *v, bool *unsized)
{
    uint64_t n = 1;
    *unsized = false;
    for (uint32_t i = 0; i < v->ndims; i++) {
        if (v->dims[i] == 0) { *unsized = true; continue; }
        n *= v->dims[i];
        if (n > (1ull << 34)) return 1ull << 34;
    }
    return n;
}

static uint32_t var_align(const ptx_var *v)
{
    uint32_t a = v->align ? v->align : (uint32_t)emu_type_bytes(v->type) * (v->vec ? v->vec : 1);
    return a ? a : 1;
}

const mvar *emu_var_find(const emu_machine *M, ptx_str name)
{
    for (uint32_t i = 0; i < M->nvars; i++)
        if (ptx_str_eqs(M->vars[i].name, name)) return &M->vars[i];
    return NULL;
}

/* A function by name: its definition when the module also declares it
 * (forward declarations come first in mod->funcs). */
bool emu_func_index(const emu_machine *M, ptx_str name, uint32_t *index)
{
    bool found = false;
    for (uint32_t i = 0; i < M->mod->nfuncs; i++) {
        const ptx_func *f = M->mod->funcs[i];
        if (!ptx_str_eqs(f->name, name)) continue;
        if (!found || f->has_body) *index = i;
        found = true;
        if (f->has_body) break;
    }
    return found;
}

/* Address a symbol stands for in an initialiser or a constant expression. */
static bool sym_value(const emu_machine *M, ptx_str name, bool generic, int64_t *out, char *err,
                      size_t errn)
{
    const mvar *v = emu_var_find(M, name);
    if (v) {
        switch (v->space) {
        case PTX_SP_GLOBAL: *out = (int64_t)v->addr; return true;
        case PTX_SP_CONST: *out = (int64_t)(generic ? WIN_BASE(WIN_CONST) + v->addr : v->addr); return true;
        default:
            snprintf(err, errn, "the address of '%.*s' (%s) is not a constant here", (int)name.n, name.p,
                     ptx_space_name((ptx_space)v->space));
            return false;
        }
    }
    uint32_t fi;
    if (emu_func_index(M, name, &fi)) {
        *out = (int64_t)emu_func_addr(fi);
        return true;
    }
    snprintf(err, errn, "unknown symbol '%.*s' in a constant expression", (int)name.n, name.p);
    return false;
}

static bool eval(const emu_machine *M, const ptx_expr *e, int64_t *out, char *err, size_t errn)
{
    int64_t a, b, c;
    switch (e->kind) {
    case PTX_E_INT: *out = e->u.i; return true;
    case PTX_E_FLOAT:
        snprintf(err, errn, "a floating-point constant where an integer is needed");
        return false;
    case PTX_E_SYM: return sym_value(M, e->text, false, out, err, errn);
    case PTX_E_PAREN: return eval(M, e->u.a, out, err, errn);
    case PTX_E_CALL:
        if (ptx_str_eq(e->text, "generic") && e->nargs == 1 && e->u.args[0]->kind == PTX_E_SYM)
            return sym_value(M, e->u.args[0]->text, true, out, err, errn);
        snprintf(err, errn, "unsupported constant expression '%.*s(...)'", (int)e->text.n, e->text.p);
        return false;
    case PTX_E_UNARY:
        if (!eval(M, e->u.a, &a, err, errn)) return false;
        switch (e->op) {
        case '-': *out = (int64_t)(0 - (uint64_t)a); return true;
        case '+': *out = a; return true;
        case '~': *out = ~a; return true;
        case '!': *out = !a; return true;
        }
        break;
    case PTX_E_COND:
        if (!eval(M, e->u.a, &a, err, errn)) return false;
        return eval(M, a ? e->b : e->c, out, err, errn);
    case PTX_E_BINARY: {
        if (!eval(M, e->u.a, &a, err, errn) || !eval(M, e->b, &b, err, errn)) return false;
        uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
        switch (e->op) {
        case '+': c = (int64_t)(ua + ub); break;
        case '-': c = (int64_t)(ua - ub); break;
        case '*': c = (int64_t)(ua * ub); break;
        case '/':
        case '%':
            if (b == 0 || (a == INT64_MIN && b == -1)) {
                snprintf(err, errn, "division by zero in a constant expression");
                return false;
            }
            c = e->op == '/' ? a / b : a % b;
            break;
        case '&': c = a & b; break;
        case '|': c = a | b; break;
        case '^': c = a ^ b; break;
        case PTX_OP_SHL: c = (int64_t)(ua << (ub & 63)); break;
        case PTX_OP_SHR: c = a >> (ub & 63); break;
        case PTX_OP_LAND: c = a && b; break;
        case PTX_OP_LOR: c = a || b; break;
        case PTX_OP_EQ: c = a == b; break;
        case PTX_OP_NE: c = a != b; break;
        case PTX_OP_LE: c = a <= b; break;
        case PTX_OP_GE: c = a >= b; break;
        case '<': c = a < b; break;
        case '>': c = a > b; break;
        default:
            snprintf(err, errn, "unsupported operator in a constant expression");
            return false;
        }
        *out = c;
        return true;
    }
    }
    snprintf(err, errn, "unsupported constant expression");
    return false;
}

bool emu_eval_expr(const emu_machine *M, const ptx_expr *e, int64_t *out, char *err, size_t errn)
{
    return eval(M, e, out, err, errn);
}

/* A float initialiser: 0f/0d bits, decimal, integer, or a negated one. */
static bool eval_float(const emu_machine *M, const ptx_expr *e, double *out, char *err, size_t errn)
{
    switch (e->kind) {
    case PTX_E_FLOAT:
        if (e->fkind == 'f') *out = f32_from((uint32_t)e->u.i);
        else if (e->fkind == 'd') *out = f64_from((uint64_t)e->u.i);
        else {
            char buf[128];
            size_t n = e->text.n < sizeof buf - 1 ? e->text.n : sizeof buf - 1;
            memcpy(buf, e->text.p, n);
            buf[n] = 0;
            *out = strtod(buf, NULL);
        }
        return true;
    case PTX_E_UNARY:
        if (e->op == '-' || e->op == '+') {
            if (!eval_float(M, e->u.a, out, err, errn)) return false;
            if (e->op == '-') *out = -*out;
            return true;
        }
        break;
    case PTX_E_PAREN: return eval_float(M, e->u.a, out, err, errn);
    default: break;
    }
    int64_t v;
    if (!eval(M, e, &v, err, errn)) return false;
    *out = (double)v;
    return true;
}

typedef struct initw {
    const emu_machine *M;
    const ptx_var *v;
    uint8_t *data;
    uint64_t ebytes, nelem, pos;
    char *err;
    size_t errn;
} initw;

static bool put_elem(initw *w, const ptx_expr *e)
{
    if (w->pos >= w->nelem) {
        snprintf(w->err, w->errn, "too many initialisers for '%.*s'", (int)w->v->name.n, w->v->name.p);
        return false;
    }
    uint8_t *dst = w->data + w->pos * w->ebytes;
    unsigned t = w->v->type;
    if (t == PTX_T_F32 || t == PTX_T_F64 || t == PTX_T_F16 || t == PTX_T_BF16) {
        double d;
        /* 0f/0d literals are bit patterns of their own width: keep them exact */
        if (e->kind == PTX_E_FLOAT && ((e->fkind == 'f' && t == PTX_T_F32) || (e->fkind == 'd' && t == PTX_T_F64))) {
            uint64_t bits = (uint64_t)e->u.i;
            memcpy(dst, &bits, w->ebytes > 8 ? 8 : w->ebytes);
        } else {
            if (!eval_float(w->M, e, &d, w->err, w->errn)) return false;
            uint64_t bits = t == PTX_T_F32 ? f32_bits((float)d)
                            : t == PTX_T_F64 ? f64_bits(d)
                            : fp_round(d, 0, t == PTX_T_F16 ? FMT_F16 : FMT_BF16, RND_RN, false);
            memcpy(dst, &bits, w->ebytes > 8 ? 8 : w->ebytes);
        }
    } else {
        int64_t v;
        if (!eval(w->M, e, &v, w->err, w->errn)) return false;
        uint64_t u = (uint64_t)v;
        memcpy(dst, &u, w->ebytes > 8 ? 8 : w->ebytes);
    }
    w->pos++;
    return true;
}

static bool put_init(initw *w, const ptx_init *in, unsigned depth)
{
    if (depth > 64) {
        snprintf(w->err, w->errn, "initialiser nested too deeply");
        return false;
    }
    switch (in->kind) {
    case 'e': return put_elem(w, in->expr);
    case 'l': {
        /* a nested list of a multi-dimensional array fills one row: pad it */
        uint64_t start = w->pos, row = 0;
        if (depth > 0 && depth < w->v->ndims) {
            row = 1;
            for (uint32_t k = depth; k < w->v->ndims; k++) row *= w->v->dims[k] ? w->v->dims[k] : 1;
        }
        for (uint32_t i = 0; i < in->n; i++)
            if (!put_init(w, in->items[i], depth + 1)) return false;
        if (row && w->pos < start + row) w->pos = start + row;
        return true;
    }
    default:
        snprintf(w->err, w->errn, "unsupported initialiser in '%.*s'", (int)w->v->name.n, w->v->name.p);
        return false;
    }
}

static bool init_var(emu_machine *M, const ptx_var *v, uint8_t *data, uint64_t size, char *err, size_t errn)
{
    if (!v->init) return true;
    initw w = {M, v, data, var_elem_bytes(v), 0, 0, err, errn};
    if (v->vec > 1) w.ebytes = emu_type_bytes(v->type);
    if (!w.ebytes) w.ebytes = 1;
    w.nelem = size / w.ebytes;
    return put_init(&w, v->init, 0);
}

bool emu_vars_init(emu_machine *M)
{
    if (M->vars_ready) return M->status == EMU_OK;
    M->vars_ready = true;
    const ptx_module *m = M->mod;
    /* module-scope variables, then .shared variables declared inside
     * function bodies (static per block like module-scope ones) */
    uint32_t cap = 0;
    for (uint32_t i = 0; i < m->nstmts; i++)
        if (m->stmts[i]->kind == PTX_S_VAR) cap++;
    for (uint32_t f = 0; f < m->nfuncs; f++)
        for (uint32_t i = 0; i < m->funcs[f]->nstmts; i++)
            if (m->funcs[f]->stmts[i]->kind == PTX_S_VAR) cap++;
    M->vars = cap ? ARENA_NEWN(&M->ar, mvar, cap) : NULL;
    /* first pass: addresses, so initialisers may refer to later variables */
    uint32_t fi = 0, si = 0;
    for (;;) {
        const ptx_stmt *s;
        const ptx_func *owner = NULL;
        if (si < m->nstmts) {
            s = m->stmts[si++];
        } else {
            while (fi < m->nfuncs && si - m->nstmts >= m->funcs[fi]->nstmts) {
                fi++;
                si = m->nstmts;
            }
            if (fi >= m->nfuncs) break;
            owner = m->funcs[fi];
            s = owner->stmts[si - m->nstmts];
            si++;
        }
        if (s->kind != PTX_S_VAR) continue;
        const ptx_var *v = s->u.var;
        if (owner && v->space != PTX_SP_SHARED && v->space != PTX_SP_SHARED_CTA) continue;
        if (v->space != PTX_SP_GLOBAL && v->space != PTX_SP_CONST && v->space != PTX_SP_SHARED &&
            v->space != PTX_SP_SHARED_CTA)
            continue;
        bool unsized;
        uint64_t n = var_count(v, &unsized);
        uint64_t size = var_elem_bytes(v) * n;
        mvar *mv = &M->vars[M->nvars++];
        memset(mv, 0, sizeof *mv);
        mv->name = v->name;
        mv->space = v->space == PTX_SP_SHARED_CTA ? PTX_SP_SHARED : v->space;
        mv->align = var_align(v);
        mv->var = v;
        mv->owner = owner;
        if (unsized && mv->space == PTX_SP_SHARED) {
            mv->is_extern_shared = true;
            mv->size = 0;
            continue;
        }
        if (unsized) size = 0;
        mv->size = size;
        if (mv->space == PTX_SP_GLOBAL) {
            gseg *g = emu_seg_new(M, size ? size : 1, mv->align, v->name.p, v->name.n);
            if (!g) return false;
            mv->addr = g->base;
        } else if (mv->space == PTX_SP_CONST) {
            uint64_t off = (M->cbank_size + mv->align - 1) / mv->align * mv->align;
            if (off + size > (1u << 30)) {
                emu_fail(M, EMU_ERR_LIMIT, NULL, NULL, "constant bank larger than 1 GiB");
                return false;
            }
            uint8_t *nb = realloc(M->cbank, off + size + 1);
            if (!nb) return false;
            memset(nb + M->cbank_size, 0, off + size + 1 - M->cbank_size);
            M->cbank = nb;
            M->cbank_size = (uint32_t)(off + size);
            mv->addr = off;
        }
    }
    for (uint32_t k = 0; k < M->nvars; k++) {
        mvar *mv = &M->vars[k];
        if (!mv->var->init || mv->space == PTX_SP_SHARED) continue;
        uint8_t *data = mv->space == PTX_SP_GLOBAL ? emu_host(M, mv->addr, mv->size) : M->cbank + mv->addr;
        char err[256];
        if (!data || !init_var(M, mv->var, data, mv->size, err, sizeof err)) {
            if (M->diags) ptx_diag_add(M->diags, PTX_DIAG_ERROR, mv->var->loc, "%s", err);
            M->status = EMU_ERR_UNSUPPORTED;
            return false;
        }
    }
    return true;
}
