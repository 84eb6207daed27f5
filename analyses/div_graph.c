/* The dependence graph of a GSA program that both divergence analyses
 * propagate on, and the sources of divergence of real PTX.  Where PTX
 * differs from the paper's mu-SIMD, the rules are in classify() and
 * docs/divergence.md. */
#include <stdlib.h>
#include <string.h>
#include "div_internal.h"
#include "semantics.h"

const char *div_source_name(enum div_source s)
{
    static const char *n[] = {"none", "thread id", "lane id/mask", "clock or timer", "atomic result",
                              "load from .local", "generic load (may be .local)", "call result",
                              "shfl", "warp collective", "unknown instruction", ".func parameter",
                              "undefined"};
    return s <= DIV_SRC_UNDEF ? n[s] : "?";
}

static bool multiple_of_32(uint32_t x) { return x && x % 32 == 0; }

static enum div_source sreg_source(const div_result *r, const ssa_value *v)
{
    switch (v->reg) {
    case PTX_SR_TID:
        if (v->comp == 'y' && r->tid_y_uniform) return DIV_SRC_NONE;
        if (v->comp == 'z' && r->tid_z_uniform) return DIV_SRC_NONE;
        return DIV_SRC_TID;
    case PTX_SR_LANEID: case PTX_SR_LANEMASK_EQ: case PTX_SR_LANEMASK_LE: case PTX_SR_LANEMASK_LT:
    case PTX_SR_LANEMASK_GE: case PTX_SR_LANEMASK_GT:
        return DIV_SRC_LANE;
    case PTX_SR_CLOCK: case PTX_SR_CLOCK_HI: case PTX_SR_CLOCK64: case PTX_SR_PM: case PTX_SR_PM64:
    case PTX_SR_GLOBALTIMER: case PTX_SR_GLOBALTIMER_LO: case PTX_SR_GLOBALTIMER_HI:
        return DIV_SRC_CLOCK;
    case PTX_SR_UNKNOWN:
        return DIV_SRC_UNKNOWN;
    default:
        return DIV_SRC_NONE; /* %ctaid, %ntid, %nctaid, %warpid, %smid, %clusterid, ...: one per warp */
    }
}

/* The .param variable a ld.param reads, if it is one of the kernel's own
 * parameters (the same for every thread). */
static bool reads_kernel_param(const ptx_func *fn, const ptx_inst *in, const ptx_inst_sem *sem)
{
    if (!fn->is_entry || sem->addr_opd == PTX_SEM_NO_OPD || sem->addr_opd >= in->nopd) return false;
    const ptx_operand *a = &in->opd[sem->addr_opd];
    if (a->kind != PTX_O_ADDR || a->n != 1) return false;
    /* [%rd+8] after "mov.u64 %rd, param": only a kernel parameter's address
     * can be taken that way (the .param variables of a call sequence are
     * read by name), so the load follows the ordinary rule */
    if (a->p.elems[0].kind == PTX_O_REG) return true;
    if (a->p.elems[0].kind != PTX_O_SYM) return false;
    ptx_str name = ptx_opd_text(&a->p.elems[0]);
    for (uint32_t i = 0; i < fn->nparams; i++)
        if (ptx_str_eqs(fn->params[i]->name, name)) return true;
    return false;
}

/* Operand k of statement stmt as a constant: an integer literal, or a
 * register whose one reaching definition is "mov d, literal" (nvcc keeps
 * shfl's clamp operand in a register).  Nothing else: the simple analysis
 * folds no arithmetic. */
static bool const_opd(const ssa_func *s, uint32_t stmt, const ptx_inst *in, unsigned k, uint64_t *out)
{
    if (k >= in->nopd) return false;
    const ptx_operand *o = &in->opd[k];
    if (o->kind == PTX_O_IMM) {
        if ((o->flags & 3) != PTX_IMM_INT) return false;
        *out = (uint64_t)o->v;
        return true;
    }
    if (o->kind != PTX_O_REG) return false;
    for (uint32_t q = s->ref_off[stmt]; q < s->ref_off[stmt + 1]; q++) {
        const ssa_ref *u = &s->refs[q];
        if (u->opd != k || !(u->role & PTX_REF_USE) || u->value == SSA_NONE) continue;
        const ssa_value *v = &s->values[u->value];
        if (v->kind != SSA_V_INST || v->partial) return false;
        const ptx_inst *d = &s->fn->stmts[v->stmt]->u.inst;
        if (d->op != PTX_OPC_MOV || d->nopd != 2 || d->opd[1].kind != PTX_O_IMM) return false;
        return const_opd(s, v->stmt, d, 1, out);
    }
    return false;
}

/* shfl.idx d|p, a, b, c gives lane j = minLane | (b & ~segmask) of a, and
 * a lane keeps its own a where j > maxLane = minLane | (clamp & ~segmask),
 * with c = segmask << 8 | clamp (ISA, shfl.sync).  One source lane for the
 * whole warp only when segmask is 0 and b & 31 <= clamp in every lane: a
 * constant c with clamp 31 (every __shfl_sync of width 32), or constant b
 * and c. */
static bool shfl_broadcast(const ssa_func *s, uint32_t stmt, const ptx_inst *in)
{
    uint64_t c, b;
    if (!const_opd(s, stmt, in, 3, &c) || (c >> 8 & 0x1f) != 0) return false;
    if ((c & 0x1f) == 0x1f) return true;
    return const_opd(s, stmt, in, 2, &b) && (b & 0x1f) <= (c & 0x1f);
}

enum div_source div_classify(const ptx_func *fn, const ssa_func *s, uint32_t stmt, const ptx_inst *in,
                             const ptx_inst_sem *semp, uint8_t *dep_from)
{
    ptx_inst_sem sem = *semp;
    *dep_from = 0;
    if (sem.flags & PTX_SEM_UNKNOWN) return DIV_SRC_UNKNOWN;
    switch (in->op) {
    case PTX_OPC_VOTE: case PTX_OPC_REDUX: case PTX_OPC_ACTIVEMASK:
        /* every lane of one member mask gets the same result: uniform when
         * the mask (the last operand of the .sync forms) is; a per-lane
         * mask (tiled_partition<8>) gives each tile its own result */
        *dep_from = (uint8_t)(ptx_inst_has_mod(in, ".sync") && in->nopd >= 3 ? in->nopd - 1 : in->nopd);
        return DIV_SRC_NONE;
    case PTX_OPC_BAR: case PTX_OPC_BARRIER:
        /* bar.red / barrier.red (__syncthreads_or, _and, _count): the
         * reduction over the threads that take part, the same in each
         * (ISA "bar, barrier"); its operands are not what it returns */
        if (ptx_inst_has_mod(in, ".red")) {
            *dep_from = (uint8_t)in->nopd;
            return DIV_SRC_NONE;
        }
        break;
    case PTX_OPC_SHFL:
        if (ptx_inst_has_mod(in, ".idx")) {
            /* one source lane for all: uniform if lane, clamp and mask are;
             * else a lane may keep its own value, so the value shuffled
             * matters too */
            *dep_from = shfl_broadcast(s, stmt, in) ? 2 : 1;
            return DIV_SRC_NONE;
        }
        return DIV_SRC_SHFL;
    case PTX_OPC_CALL:
        return DIV_SRC_CALL;
    default:
        break;
    }
    if (sem.flags & PTX_SEM_ATOMIC) return DIV_SRC_ATOMIC;
    if (sem.flags & PTX_SEM_COLLECTIVE) return DIV_SRC_COLLECTIVE;
    if ((sem.flags & PTX_SEM_LOAD) && !(sem.flags & PTX_SEM_STORE)) {
        if (sem.space == PTX_SP_LOCAL) return DIV_SRC_LOCAL_LOAD;
        if (sem.space == PTX_SP_NONE && (in->op == PTX_OPC_LD || in->op == PTX_OPC_LDU)) return DIV_SRC_GENERIC_LOAD;
        /* call arguments/returns and a .func's own parameters are per thread */
        if (sem.space == PTX_SP_PARAM && !reads_kernel_param(fn, in, &sem)) return DIV_SRC_CALL;
    }
    return DIV_SRC_NONE;
}

typedef struct graph {
    u32vec from, to; /* dependence edges: to depends on from */
    bool want_gates;
    u32vec gnode, gval; /* gate gval of node gnode (its gating expressions) */
    u32vec sset, sval;  /* gate sval of gate set sset */
} graph;

static void gate(graph *gr, uint32_t node, uint32_t value)
{
    if (!gr->want_gates || value == SSA_NONE) return;
    u32vec_push(&gr->gnode, node);
    u32vec_push(&gr->gval, value);
}

static void dep(graph *gr, uint32_t from, uint32_t to)
{
    if (from == SSA_NONE || to == SSA_NONE) return;
    u32vec_push(&gr->from, from);
    u32vec_push(&gr->to, to);
}

/* Leaves and gates of a gating expression (a DAG: visited by pointer in a
 * small open-addressing set).  The set and the stack live across the
 * walks of one graph, the set emptied slot by slot after each walk: a
 * set and a stack allocated per walk were nine tenths of the walks' cost
 * (most expressions are a few nodes). */
typedef struct seen {
    const gsa_expr **slot;
    uint32_t cap, n;
    uint32_t *filled; /* the slots in use, to empty them */
} seen;

typedef struct walk {
    seen s;
    const gsa_expr **stack;
    uint32_t cap;
} walk;

static bool seen_add(seen *s, const gsa_expr *e)
{
    if (2 * (s->n + 1) > s->cap) {
        uint32_t ncap = s->cap ? s->cap * 2 : 64;
        const gsa_expr **ns = calloc(ncap, sizeof *ns);
        uint32_t *nf = malloc(sizeof *nf * (ncap / 2));
        if (!ns || !nf) abort();
        for (uint32_t k = 0; k < s->n; k++) {
            const gsa_expr *x = s->slot[s->filled[k]];
            uint32_t h = (uint32_t)((uintptr_t)x >> 4) & (ncap - 1);
            while (ns[h]) h = (h + 1) & (ncap - 1);
            ns[h] = x;
            nf[k] = h;
        }
        free(s->slot);
        free(s->filled);
        s->slot = ns;
        s->filled = nf;
        s->cap = ncap;
    }
    uint32_t h = (uint32_t)((uintptr_t)e >> 4) & (s->cap - 1);
    while (s->slot[h]) {
        if (s->slot[h] == e) return false;
        h = (h + 1) & (s->cap - 1);
    }
    s->slot[h] = e;
    s->filled[s->n++] = h;
    return true;
}

static void expr_deps(graph *gr, walk *w, const gsa_expr *root, uint32_t to, uint32_t node)
{
    if (!root) return;
    seen *s = &w->s;
    uint32_t n = 0;
    seen_add(s, root);
    if (!w->cap) {
        w->stack = malloc(sizeof *w->stack * (w->cap = 16));
        if (!w->stack) abort();
    }
    w->stack[n++] = root;
    while (n) {
        const gsa_expr *e = w->stack[--n];
        dep(gr, e->value, to); /* VALUE: the operand; SELECT: its gate (GAMD/PDVD) */
        if (e->kind != GSA_X_SELECT) continue;
        gate(gr, node, e->value);
        for (uint32_t i = 0; i < e->n; i++) {
            if (!e->ops[i] || !seen_add(s, e->ops[i])) continue;
            if (n == w->cap) {
                w->stack = realloc(w->stack, sizeof *w->stack * (w->cap *= 2));
                if (!w->stack) abort();
            }
            w->stack[n++] = e->ops[i];
        }
    }
    for (uint32_t k = 0; k < s->n; k++) s->slot[s->filled[k]] = NULL;
    s->n = 0;
}

static void block_shape(const prog_func *pf, const div_options *o, div_result *r)
{
    for (int i = 0; i < 3; i++) r->block[i] = o ? o->block[i] : 0;
    if (!r->block[0])
        for (uint32_t i = 0; i < pf->fn->nfdirs; i++) {
            const ptx_fdirective *d = &pf->fn->fdirs[i];
            if (!ptx_str_eq(d->name, ".reqntid")) continue;
            for (uint32_t k = 0; k < 3; k++) r->block[k] = k < d->n ? (uint32_t)d->vals[k] : 1;
        }
    r->cta = o && o->cta;
    r->shape_assumed = !r->block[0];
    if (r->cta) { /* a dimension of extent 1 has %tid 0 in every thread; others differ */
        r->tid_y_uniform = r->block[0] && r->block[1] <= 1;
        r->tid_z_uniform = r->block[0] && r->block[2] <= 1;
        return;
    }
    bool assume = o && o->assume_tid_yz_uniform;
    /* no shape: the default assumption, blockDim.x a multiple of 32
     * (DIV_COND_X32 on what rests on it) */
    r->yz_by_option = assume;
    assume |= r->shape_assumed;
    /* a dimension of extent 1 has %tid 0 everywhere */
    r->tid_y_uniform = assume || multiple_of_32(r->block[0]) || r->block[1] == 1;
    r->tid_z_uniform = assume || (r->block[0] && multiple_of_32(r->block[0] * (r->block[1] ? r->block[1] : 1))) ||
                       r->block[2] == 1;
}


div_result *div_result_new(const prog_func *pf, enum div_analysis an, const div_options *o, arena *a)
{
    uint32_t n = pf->ssa->nvalues ? pf->ssa->nvalues : 1;
    div_result *r = ARENA_NEW(a, div_result);
    r->pf = pf;
    r->analysis = an;
    r->state = ARENA_NEWN(a, uint8_t, n);
    r->source = ARENA_NEWN(a, uint8_t, n);
    r->cond = ARENA_NEWN(a, uint8_t, n);
    block_shape(pf, o, r);
    return r;
}

void div_graph_build(const prog_func *pf, div_result *r, u32csr *users, div_stmt_info *info, u32csr *gates,
                     u32csr *set_gates)
{
    const ssa_func *s = pf->ssa;
    const gsa_func *gf = pf->gsa;
    const cfg *g = pf->g;
    const ptx_func *fn = pf->fn;
    graph gr = {.want_gates = gates != NULL};
    /* sized for the usual counts (about an edge a reference and two a
     * node), so that they seldom grow */
    uint32_t guess = s->ref_off[fn->nstmts] + 2 * s->nnodes + 16;
    u32vec_reserve(&gr.from, guess);
    u32vec_reserve(&gr.to, guess);
    if (gr.want_gates) {
        u32vec_reserve(&gr.gnode, 2 * s->nnodes + 16);
        u32vec_reserve(&gr.gval, 2 * s->nnodes + 16);
    }
    /* sources among entry values */
    for (uint32_t v = 0; v < s->nvalues; v++) {
        const ssa_value *val = &s->values[v];
        if (val->kind == SSA_V_SREG) r->source[v] = (uint8_t)sreg_source(r, val);
        else if (val->kind == SSA_V_ENTRY && val->param) r->source[v] = DIV_SRC_PARAM_REG;
        /* an undefined entry value is any value: uniform is as good as any */
    }
    /* instruction definitions */
    for (uint32_t b = 0; b < g->nblocks; b++) {
        const cfg_block *bb = &g->blocks[b];
        if (!bb->reachable || bb->kind != CFG_B_REAL) continue;
        for (uint32_t i = bb->first; i < bb->end; i++) {
            if (fn->stmts[i]->kind != PTX_S_INST) continue;
            const ptx_inst *in = &fn->stmts[i]->u.inst;
            uint8_t from;
            const ptx_inst_sem *sem = &s->sem[i];
            enum div_source src = div_classify(fn, s, i, in, sem, &from);
            if (info) {
                info[i].dtype = sem->dtype;
                info[i].stype = sem->stype;
                info[i].carry = (sem->flags & (PTX_SEM_CC_DEF | PTX_SEM_CC_USE)) != 0;
                info[i].dep_from = from;
            }
            for (uint32_t k = s->ref_off[i]; k < s->ref_off[i + 1]; k++) {
                const ssa_ref *d = &s->refs[k];
                if (!(d->role & PTX_REF_DEF)) continue;
                r->source[d->value] = (uint8_t)src;
                if (s->values[d->value].partial) dep(&gr, s->values[d->value].prev, d->value);
                for (uint32_t q = s->ref_off[i]; q < s->ref_off[i + 1]; q++) {
                    const ssa_ref *u = &s->refs[q];
                    if (!(u->role & PTX_REF_USE)) continue;
                    /* the guard always matters; a broadcast "shfl.sync.idx d|p, a,
                     * b, c, mask" gives every lane lane b's a: it depends on b, c
                     * and mask (operands 2-4), not on a (operand 1) */
                    bool guard = (u->role & PTX_REF_GUARD) != 0;
                    if (!guard && u->opd < from) continue;
                    dep(&gr, u->value, d->value);
                }
            }
        }
    }
    /* gamma, mu, eta.  Nodes that share a gate set (every eta leaving the
     * same loops) depend on one vertex for the set, numbered after the
     * values, which depends on the set's gates: edges per node, not per
     * node and gate -- a loop with hundreds of exits and live-out values
     * would otherwise make the graph quadratic. */
    uint8_t *emitted = calloc(gf->ngate_sets ? gf->ngate_sets : 1, 1);
    if (!emitted) abort();
    walk w = {0};
    for (uint32_t k = 0; k < s->nnodes; k++) {
        const gsa_node *gn = &gf->nodes[k];
        uint32_t to = s->nodes[k].value;
        expr_deps(&gr, &w, gn->expr, to, k);
        expr_deps(&gr, &w, gn->carried, to, k);
        if (gn->gate_set == GSA_NO_SET) continue;
        uint32_t sv = s->nvalues + gn->gate_set;
        if (!emitted[gn->gate_set]) {
            emitted[gn->gate_set] = 1;
            for (uint32_t i = 0; i < gn->ngates; i++) {
                uint32_t gv;
                bool neg;
                if (!gsa_branch_gate(s, gn->gates[i], &gv, &neg) || gv == SSA_NONE) continue;
                dep(&gr, gv, sv);
                if (gr.want_gates) {
                    u32vec_push(&gr.sset, gn->gate_set);
                    u32vec_push(&gr.sval, gv);
                }
            }
        }
        dep(&gr, sv, to);
    }
    free(emitted);
    free(w.s.slot);
    free(w.s.filled);
    free(w.stack);
    if (gates) {
        u32csr_take(gates, s->nnodes, &gr.gnode, &gr.gval);
        u32csr_take(set_gates, gf->ngate_sets, &gr.sset, &gr.sval);
    }
    /* check's memory peak on a large kernel: the pairs become the lists */
    u32csr_take(users, div_graph_vertices(pf), &gr.from, &gr.to);
}
