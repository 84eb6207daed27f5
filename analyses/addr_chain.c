/* Provenance, residues, stride names and loop steps of address values
 * (addr_chain.h).  Provenance and residues are forward data-flow problems on
 * the SSA graph: every value starts at ⊤ and only goes down, phis meet their
 * arguments; the analyses' one solver (solver.h) reaches the fixed point
 * over the SSA's def-use graph (ssa_users).  The rule of each integer
 * operation, for the facts and for the stride names, is in the family's
 * one case of affine_rules.c (rules.h); here, the loads, the variables and
 * the walk. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "addr_chain.h"
#include "rules.h"
#include "semantics.h"
#include "solver.h"

const char *addr_prov_name(enum addr_prov p)
{
    static const char *const n[] = {"top", "integer", "kernel parameter", "global", "shared", "local", "const",
                                    "unknown"};
    return p <= AP_UNKNOWN ? n[p] : "?";
}

const ptx_inst *addr_def(const addr_chain *c, uint32_t v, uint32_t *stmt)
{
    const ssa_func *s = c->pf->ssa;
    if (v == SSA_NONE || v >= s->nvalues || s->values[v].kind != SSA_V_INST) return NULL;
    uint32_t st = s->values[v].stmt;
    if (stmt) *stmt = st;
    return &c->pf->fn->stmts[st]->u.inst;
}

/* The declaration a symbol operand names: a variable of the function or the
 * module, or a parameter. */
static const ptx_var *find_var(const addr_chain *c, ptx_str name)
{
    const ptx_func *fn = c->pf->fn;
    for (uint32_t i = 0; i < fn->nparams; i++)
        if (ptx_str_eqs(fn->params[i]->name, name)) return fn->params[i];
    for (uint32_t i = 0; i < fn->nstmts; i++)
        if (fn->stmts[i]->kind == PTX_S_VAR && ptx_str_eqs(fn->stmts[i]->u.var->name, name))
            return fn->stmts[i]->u.var;
    for (uint32_t i = 0; i < c->m->nstmts; i++)
        if (c->m->stmts[i]->kind == PTX_S_VAR && ptx_str_eqs(c->m->stmts[i]->u.var->name, name))
            return c->m->stmts[i]->u.var;
    return NULL;
}

static unsigned log2_floor(uint64_t x)
{
    unsigned k = 0;
    while (x > 1) x >>= 1, k++;
    return k;
}

/* A variable's address: aligned to its .align, or else to its element. */
static residue var_residue(const ptx_var *v)
{
    uint64_t al = v->align;
    if (!al) al = (ptx_type_bits(v->type) / 8) * (v->vec ? v->vec : 1);
    return res_make(0, al ? log2_floor(al) : 0);
}

static fact fact_top(void) { return (fact){AP_TOP, res_make(0, RES_KMAX)}; }

/* A variable's address, symbol operand o names it. */
fact fact_sym(const addr_chain *c, const ptx_operand *o)
{
    const ptx_var *var = find_var(c, ptx_opd_text(o));
    if (!var) return (fact){AP_UNKNOWN, res_unknown()};
    return (fact){addr_space_prov(var->space), var_residue(var)};
}

static bool is_kernel_param_load_at(const addr_chain *c, const ptx_inst *in, const ptx_var **param, uint32_t *index)
{
    if (in->op != PTX_OPC_LD || !c->pf->fn->is_entry) return false;
    if (in->space != PTX_SP_PARAM && in->space != PTX_SP_PARAM_ENTRY) return false;
    if (in->nopd < 2 || in->opd[1].kind != PTX_O_ADDR || in->opd[1].n != 1) return false;
    const ptx_operand *e = &in->opd[1].p.elems[0];
    if (e->kind != PTX_O_SYM) return false;
    const ptx_func *fn = c->pf->fn;
    for (uint32_t i = 0; i < fn->nparams; i++)
        if (ptx_str_eqs(fn->params[i]->name, ptx_opd_text(e))) {
            *param = fn->params[i];
            *index = i;
            return true;
        }
    return false;
}

static bool is_kernel_param_load(const addr_chain *c, const ptx_inst *in, const ptx_var **param)
{
    uint32_t i;
    return is_kernel_param_load_at(c, in, param, &i);
}

/* r read in a register of `bits` bits: no more bits known than it has. */
static residue bits_of_type(residue r, unsigned bits) { return bits && bits < r.k ? res_make(r.r, bits) : r; }

/* The fact stated about parameter i, or NULL. */
static const param_fact *fact_of(const addr_chain *c, uint32_t i)
{
    for (uint32_t k = 0; c->facts && k < c->facts->n; k++)
        if (c->facts->v[k].param == i) return &c->facts->v[k];
    return NULL;
}

static fact eval_inst(const addr_chain *c, uint32_t v)
{
    const ssa_func *s = c->pf->ssa;
    const ssa_value *val = &s->values[v];
    uint32_t st = val->stmt;
    const ptx_inst *in = &c->pf->fn->stmts[st]->u.inst;
    if (s->refs[val->ref].opd != 0) return fact_int(res_unknown()); /* a second result (p|q, vectors): not an address */
    const ptx_var *param;
    uint32_t pi;
    /* an integer operation: its family's rule (rules.h); loads here */
    fact r = fact_rule(c, st, in);
    switch (in->op) {
    case PTX_OPC_LD:
        if (is_kernel_param_load_at(c, in, &param, &pi)) {
            if (param->is_ptr && param->ptr_space) {
                r.prov = addr_space_prov(param->ptr_space);
                r.res = res_make(0, param->ptr_align ? log2_floor(param->ptr_align) : 0);
            } else if (ptx_type_bits(in->type) == 64) {
                /* cudaMalloc'd memory starts on a 256-byte boundary */
                r.prov = AP_PARAM64;
                r.res = res_make(0, 8);
            }
            /* what the author states replaces what is assumed (a pointer
             * into an allocation may be less aligned than its start) */
            const param_fact *pf = fact_of(c, pi);
            if (pf) r.res = bits_of_type(pf->res, ptx_type_bits(in->type));
            break;
        }
        /* fall through */
    case PTX_OPC_LDU:
    case PTX_OPC_CALL:
        if (ptx_type_bits(in->type) == 64 || in->op == PTX_OPC_CALL) r.prov = AP_UNKNOWN;
        break;
    default:
        break;
    }
    if (val->partial && val->prev != SSA_NONE) r = fact_meet(r, value_fact(c, val->prev));
    return r;
}

static fact eval_value(const addr_chain *c, uint32_t v)
{
    const ssa_func *s = c->pf->ssa;
    const ssa_value *val = &s->values[v];
    switch (val->kind) {
    case SSA_V_SREG: {
        int d = val->comp == 'x' ? 0 : val->comp == 'y' ? 1 : val->comp == 'z' ? 2 : -1;
        if (val->reg == PTX_SR_TID || val->reg == PTX_SR_LANEID) return fact_int(res_exact(0)); /* all tid terms */
        if (val->reg == PTX_SR_NTID && d >= 0) {
            if (wl_shape_known(&c->shape))
                return fact_int(res_exact(c->shape.block[d] ? c->shape.block[d] : 1));
            if (d == 0) return fact_int(res_make(0, 5)); /* the assumed multiple of 32 */
        }
        return fact_int(res_unknown());
    }
    case SSA_V_ENTRY: return (fact){val->param ? AP_UNKNOWN : AP_INT, res_unknown()};
    case SSA_V_INST: return eval_inst(c, v);
    default: {
        const ssa_node *nd = &s->nodes[val->node];
        fact r = fact_top();
        for (uint32_t i = 0; i < nd->nargs; i++)
            if (nd->args[i] != SSA_NONE) r = fact_meet(r, value_fact(c, nd->args[i]));
        return r;
    }
    }
}

/* One evaluation of the solver (solver.h): value v's fact, met with what
 * it had; 1 when that changed. */
static inline __attribute__((always_inline)) unsigned visit(void *x, uint32_t v, unsigned why)
{
    (void)why;
    addr_chain *c = x;
    fact e = eval_value(c, v);
    fact f = c->prov[v] == AP_TOP ? e : fact_meet(e, (fact){c->prov[v], c->res[v]});
    if (f.prov == c->prov[v] && res_eq(f.res, c->res[v])) return 0;
    c->prov[v] = f.prov;
    c->res[v] = f.res;
    return 1;
}

addr_chain *addr_chain_build(const ptx_module *m, const prog_func *pf, const div_result *r, const warp_shape *sh,
                             const param_facts *facts, arena *a)
{
    addr_chain *c = ARENA_NEW(a, addr_chain);
    c->pf = pf;
    c->facts = facts;
    c->r = r;
    c->m = m;
    c->shape = *sh;
    uint32_t nv = pf->ssa->nvalues;
    c->prov = ARENA_NEWN(a, uint8_t, nv ? nv : 1);
    c->res = ARENA_NEWN(a, residue, nv ? nv : 1);
    for (uint32_t v = 0; v < nv; v++) {
        c->prov[v] = AP_TOP;
        c->res[v] = res_make(0, RES_KMAX);
    }
    /* the affine solve's order when it has one (computed once) */
    const uint32_t *ord = r->order;
    uint32_t n = r->norder;
    if (!ord) {
        uint32_t *o = arena_alloc(a, sizeof *o * (nv ? nv : 1));
        n = ssa_value_order(pf->ssa, o);
        ord = o;
    }
    /* Each value can only go down (prov: ⊤, then one kind, then unknown;
     * residues lose bits), so the solve ends. */
    u32csr users;
    ssa_users(pf->ssa, &users);
    solver q;
    solver_init(&q, &users, nv, ord, n, true); /* a value the order leaves out (unreachable code) stays ⊤ */
    solver_run(&q, pf->ssa->values, nv, c, visit);
    solver_free(&q);
    u32csr_free(&users);
    /* never reached (unreachable code): nothing known */
    for (uint32_t v = 0; v < nv; v++)
        if (c->prov[v] == AP_TOP) {
            c->prov[v] = AP_UNKNOWN;
            c->res[v] = res_unknown();
        }
    return c;
}

residue addr_operand_residue(const addr_chain *c, uint32_t stmt, uint32_t opd)
{
    const ptx_inst *in = &c->pf->fn->stmts[stmt]->u.inst;
    if (opd >= in->nopd) return res_unknown();
    const ptx_operand *o = &in->opd[opd];
    if (o->kind != PTX_O_ADDR || o->n != 1) return res_unknown();
    const ptx_operand *e = &o->p.elems[0];
    residue base;
    if (e->kind == PTX_O_SYM) {
        const ptx_var *var = find_var(c, ptx_opd_text(e));
        base = var ? var_residue(var) : res_unknown();
    } else if (e->kind == PTX_O_IMM) base = res_exact(e->v);
    else base = value_fact(c, ssa_use_value(c->pf->ssa, stmt, opd)).res;
    return res_add(base, res_exact(o->v));
}

enum addr_prov addr_operand_prov(const addr_chain *c, uint32_t stmt, uint32_t opd)
{
    const ptx_inst *in = &c->pf->fn->stmts[stmt]->u.inst;
    if (opd >= in->nopd) return AP_UNKNOWN;
    const ptx_operand *o = &in->opd[opd];
    if (o->kind != PTX_O_ADDR || o->n != 1) return AP_UNKNOWN;
    const ptx_operand *e = &o->p.elems[0];
    if (e->kind == PTX_O_SYM) {
        const ptx_var *var = find_var(c, ptx_opd_text(e));
        return var ? addr_space_prov(var->space) : AP_UNKNOWN;
    }
    if (e->kind != PTX_O_REG) return AP_UNKNOWN;
    uint32_t v = ssa_use_value(c->pf->ssa, stmt, opd);
    return v == SSA_NONE ? AP_UNKNOWN : (enum addr_prov)c->prov[v];
}

/* ---- naming unknown coefficients ---------------------------------------- */

#define NAME_DEPTH 24

static term name_rec(const addr_chain *c, uint32_t v, unsigned i, uint32_t *stack, unsigned depth);

term term_opd(const addr_chain *c, uint32_t st, uint32_t opd, unsigned i, uint32_t *stack, unsigned depth)
{
    const ptx_inst *in = &c->pf->fn->stmts[st]->u.inst;
    if (opd >= in->nopd) return term_fail();
    if (in->opd[opd].kind == PTX_O_IMM) return term_const(0);
    uint32_t v = ssa_use_value(c->pf->ssa, st, opd);
    return v == SSA_NONE ? term_fail() : name_rec(c, v, i, stack, depth);
}

/* The coefficient of monomial i in a·b (the instruction at st) when one
 * factor's coefficient is t and the other factor is uniform: t times that
 * factor. */
term term_mul(const addr_chain *c, uint32_t st, term ta, term tb)
{
    const ptx_inst *in = &c->pf->fn->stmts[st]->u.inst;
    if (!ta.ok || !tb.ok || ta.cyc || tb.cyc) return term_fail();
    for (int side = 0; side < 2; side++) {
        term t = side ? tb : ta, u = side ? ta : tb;
        uint32_t other = side ? 1 : 2;
        if (!term_zero(u)) continue;
        const ptx_operand *o = &in->opd[other];
        int64_t kc;
        uint32_t w = SSA_NONE;
        if (o->kind == PTX_O_IMM) return (term){true, false, t.k * o->v, t.sym};
        w = ssa_use_value(c->pf->ssa, st, other);
        if (w == SSA_NONE || c->r->state[w] != DIV_UNIFORM) return term_fail();
        if (div_coef(c->r, w, DIV_C_CONST, &kc)) return (term){true, false, t.k * kc, t.sym};
        if (t.sym != SSA_NONE) return term_fail(); /* a product of two unknowns */
        return (term){true, false, t.k, w};
    }
    return term_fail();
}

static term name_rec(const addr_chain *c, uint32_t v, unsigned i, uint32_t *stack, unsigned depth)
{
    int64_t k;
    if (div_coef(c->r, v, i, &k)) return term_const(k);
    if (depth >= NAME_DEPTH) return term_fail();
    if (depth && stack[0] == v) return (term){true, true, 0, SSA_NONE};
    for (unsigned d = 1; d < depth; d++)
        if (stack[d] == v) return term_fail();
    stack[depth] = v;
    const ssa_func *s = c->pf->ssa;
    const ssa_value *val = &s->values[v];
    if (val->kind == SSA_V_PHI || val->kind == SSA_V_ETA) {
        const ssa_node *nd = &s->nodes[val->node];
        term r = term_fail();
        bool any = false;
        for (uint32_t a = 0; a < nd->nargs; a++) {
            if (nd->args[a] == SSA_NONE) continue;
            /* a phi inside the chain restarts cycle detection at itself */
            uint32_t sub[NAME_DEPTH];
            sub[0] = v;
            term t = name_rec(c, nd->args[a], i, sub, 1);
            if (t.ok && t.cyc) continue; /* the loop's own value coming back unchanged */
            if (!t.ok) return term_fail();
            if (any && (t.k != r.k || t.sym != r.sym)) return term_fail();
            r = t;
            any = true;
        }
        return any ? r : term_fail();
    }
    if (val->kind != SSA_V_INST || val->partial) return term_fail();
    uint32_t st = val->stmt;
    const ptx_inst *in = &c->pf->fn->stmts[st]->u.inst;
    return term_rule(c, st, in, i, stack, depth); /* its family's rule (rules.h) */
}

bool addr_name_coef(const addr_chain *c, uint32_t v, unsigned i, int64_t *k, uint32_t *sym)
{
    uint32_t stack[NAME_DEPTH];
    int64_t kc;
    if (v == SSA_NONE || div_coef(c->r, v, i, &kc)) return false;
    term t = name_rec(c, v, i, stack, 0);
    if (!t.ok || t.cyc || t.sym == SSA_NONE || t.k == 0) return false;
    *k = t.k;
    *sym = t.sym;
    return true;
}

const char *addr_value_label(const addr_chain *c, uint32_t v, char *buf, size_t n, int32_t *param_index)
{
    const ssa_func *s = c->pf->ssa;
    const ssa_value *val = &s->values[v];
    uint32_t st;
    const ptx_inst *in = addr_def(c, v, &st);
    const ptx_var *param;
    if (param_index) *param_index = -1;
    if (in && is_kernel_param_load(c, in, &param)) {
        snprintf(buf, n, "%.*s", (int)param->name.n, param->name.p);
        for (uint32_t i = 0; param_index && i < c->pf->fn->nparams; i++)
            if (c->pf->fn->params[i] == param) *param_index = (int32_t)i;
        return buf;
    }
    if (in && (in->op == PTX_OPC_MOV || in->op == PTX_OPC_CVT) && in->nopd == 2 && in->opd[1].kind == PTX_O_REG) {
        uint32_t w = ssa_use_value(s, st, 1);
        if (w != SSA_NONE && w != v) return addr_value_label(c, w, buf, n, param_index);
    }
    if (in && in->op == PTX_OPC_MOV && in->nopd == 2 && in->opd[1].kind == PTX_O_SREG) {
        /* the operand's n is the ptx_sreg, not its spelling's length */
        const ptx_operand *o = &in->opd[1];
        if (o->comp) snprintf(buf, n, "%s.%c", ptx_sreg_name((ptx_sreg)o->n), o->comp);
        else snprintf(buf, n, "%s", ptx_sreg_name((ptx_sreg)o->n));
        return buf;
    }
    if (val->kind == SSA_V_SREG) {
        if (val->comp) snprintf(buf, n, "%s.%c", ptx_sreg_name((ptx_sreg)val->reg), val->comp);
        else snprintf(buf, n, "%s", ptx_sreg_name((ptx_sreg)val->reg));
        return buf;
    }
    const ptx_reg *rg = &c->pf->fn->regs[val->reg];
    snprintf(buf, n, "%.*s", (int)rg->name.n, rg->name.p);
    return buf;
}

/* ---- loop steps ------------------------------------------------------------ */

/* v = add(p, c) (or sub), through copies: the constant, with p in *base. */
static bool add_const(const addr_chain *c, uint32_t v, uint32_t *base, int64_t *k, uint32_t *stmt)
{
    uint32_t st;
    const ptx_inst *in = addr_def(c, v, &st);
    for (int hops = 0; in && (in->op == PTX_OPC_MOV || in->op == PTX_OPC_CVT) && hops < 4; hops++) {
        uint32_t w = ssa_use_value(c->pf->ssa, st, 1);
        in = addr_def(c, w, &st);
    }
    if (!in || (in->op != PTX_OPC_ADD && in->op != PTX_OPC_SUB) || in->nopd != 3) return false;
    for (int side = 1; side <= 2; side++) {
        uint32_t other = side == 1 ? 2 : 1;
        if (in->op == PTX_OPC_SUB && side == 2) break;
        int64_t kc;
        uint32_t w = SSA_NONE;
        if (in->opd[other].kind == PTX_O_IMM) kc = in->opd[other].v;
        else if ((w = ssa_use_value(c->pf->ssa, st, other)) != SSA_NONE && c->r->state[w] == DIV_UNIFORM &&
                 div_coef(c->r, w, DIV_C_CONST, &kc)) {
        } else continue;
        *base = ssa_use_value(c->pf->ssa, st, side);
        *k = in->op == PTX_OPC_SUB ? -kc : kc;
        *stmt = st;
        return *base != SSA_NONE;
    }
    return false;
}

bool addr_loop_step(const addr_chain *c, uint32_t v, int64_t *step, uint32_t *stmt)
{
    const ssa_func *s = c->pf->ssa;
    const cfg *g = c->pf->g;
    if (v == SSA_NONE || s->values[v].kind != SSA_V_PHI) return false;
    const ssa_node *nd = &s->nodes[s->values[v].node];
    const cfg_block *b = &g->blocks[nd->block];
    if (b->loop == CFG_NONE) return false;
    bool found = false;
    for (uint32_t a = 0; a < nd->nargs && a < b->npred; a++) {
        if (!cfg_is_back_edge(g, b->pred[a], nd->block)) continue;
        uint32_t base, st;
        int64_t k;
        if (!add_const(c, nd->args[a], &base, &k, &st) || base != v) return false;
        if (found && k != *step) return false;
        *step = k;
        *stmt = st;
        found = true;
    }
    return found;
}

uint64_t addr_param_deps(const addr_chain *c, uint32_t v)
{
    const ssa_func *s = c->pf->ssa;
    if (v == SSA_NONE || v >= s->nvalues) return 0;
    uint8_t *seen = calloc(s->nvalues, 1);
    uint32_t *stack = malloc(sizeof *stack * s->nvalues);
    if (!seen || !stack) abort();
    uint64_t deps = 0;
    uint32_t n = 0;
    stack[n++] = v;
    seen[v] = 1;
    while (n) {
        uint32_t u = stack[--n];
        const ssa_value *val = &s->values[u];
#define PUSH(w)                                                     \
    do {                                                            \
        uint32_t w_ = (w);                                          \
        if (w_ != SSA_NONE && w_ < s->nvalues && !seen[w_]) {       \
            seen[w_] = 1;                                           \
            stack[n++] = w_;                                        \
        }                                                           \
    } while (0)
        if (val->kind == SSA_V_INST) {
            const ptx_inst *in = &c->pf->fn->stmts[val->stmt]->u.inst;
            const ptx_var *param;
            uint32_t pi;
            if (is_kernel_param_load_at(c, in, &param, &pi)) {
                if (pi < 64) deps |= (uint64_t)1 << pi;
                continue;
            }
            for (uint32_t k = s->ref_off[val->stmt]; k < s->ref_off[val->stmt + 1]; k++)
                if (s->refs[k].role & PTX_REF_USE) PUSH(s->refs[k].value);
            if (val->partial) PUSH(val->prev);
        } else if (val->kind != SSA_V_SREG && val->kind != SSA_V_ENTRY) {
            const ssa_node *nd = &s->nodes[val->node];
            for (uint32_t i = 0; i < nd->nargs; i++) PUSH(nd->args[i]);
        }
#undef PUSH
    }
    free(seen);
    free(stack);
    return deps;
}
