/* SSA verifier: re-derives every register reference from the instruction
 * and checks it against the SSA tables, so a bug in construction shows up
 * as a message naming the statement rather than as a wrong analysis. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "semantics.h"
#include "ssa.h"

typedef struct vctx {
    const ssa_func *s;
    char *msg;
    size_t size, used;
    uint32_t nerr;
} vctx;

static void fail(vctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(vctx *c, const char *fmt, ...)
{
    c->nerr++;
    if (!c->msg || c->used + 1 >= c->size) return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(c->msg + c->used, c->size - c->used, fmt, ap);
    va_end(ap);
    if (n > 0) c->used += (size_t)n < c->size - c->used ? (size_t)n : c->size - c->used - 1;
    if (c->used + 1 < c->size) c->msg[c->used++] = '\n', c->msg[c->used] = 0;
}

/* Whether the definition of v is available at statement stmt of block blk
 * (stmt = UINT32_MAX: at the end of blk). */
static bool available(const ssa_func *s, uint32_t v, uint32_t blk, uint32_t stmt)
{
    if (v == SSA_NONE || v >= s->nvalues) return false;
    const ssa_value *d = &s->values[v];
    const cfg *g = s->g;
    if (d->kind == SSA_V_ENTRY || d->kind == SSA_V_SREG) return true;
    if (!g->blocks[d->block].reachable || !g->blocks[blk].reachable) return false;
    if (d->block == blk) return d->kind != SSA_V_INST || d->stmt < stmt;
    return cfg_dominates(g, d->block, blk);
}

typedef struct walk {
    vctx *c;
    uint32_t stmt, blk, k;
} walk;

static void check_ref(void *ctx, const ptx_inst *in, const ptx_reg_ref *r)
{
    (void)in;
    walk *w = ctx;
    const ssa_func *s = w->c->s;
    uint32_t line = s->fn->stmts[w->stmt]->loc.line;
    if (w->k >= s->ref_off[w->stmt + 1]) {
        fail(w->c, "line %u: more register references than recorded", line);
        return;
    }
    const ssa_ref *sr = &s->refs[w->k++];
    if (sr->opd != r->opd || sr->role != (uint16_t)r->role) {
        fail(w->c, "line %u: reference %u recorded as operand %u role %u, is %u/%u", line,
             w->k - 1 - s->ref_off[w->stmt], sr->opd, sr->role, r->opd, r->role);
        return;
    }
    if (sr->value == SSA_NONE || sr->value >= s->nvalues) {
        fail(w->c, "line %u: operand %u names no value", line, r->opd);
        return;
    }
    const ssa_value *v = &s->values[sr->value];
    if (r->role & PTX_REF_SREG) {
        if (v->kind != SSA_V_SREG || v->reg != r->o->n || v->comp != r->comp)
            fail(w->c, "line %u: special register operand names the wrong value", line);
        return;
    }
    if (v->reg != r->id || v->kind == SSA_V_SREG) {
        fail(w->c, "line %u: operand %u (register %u) names a value of register %u", line, r->opd, r->id,
             v->reg);
        return;
    }
    if (r->role & PTX_REF_USE) {
        if (!available(s, sr->value, w->blk, w->stmt))
            fail(w->c, "line %u: use of register %u not dominated by its definition", line, r->id);
        return;
    }
    /* a definition */
    if (v->kind != SSA_V_INST || v->stmt != w->stmt || v->ref != w->k - 1 || v->block != w->blk)
        fail(w->c, "line %u: definition of register %u does not point back to its instruction", line, r->id);
    bool partial = (r->role & PTX_REF_MAYDEF) != 0;
    if (partial != (v->partial != 0))
        fail(w->c, "line %u: partial definition flag wrong for register %u", line, r->id);
    /* the old value may come from an earlier definition in the same
     * instruction: an unknown opcode "may define" every register operand,
     * so "foo %r1, %r1" chains two partial definitions of %r1 */
    bool same_inst = v->prev < s->nvalues && s->values[v->prev].kind == SSA_V_INST &&
                     s->values[v->prev].stmt == w->stmt && s->values[v->prev].ref < w->k - 1;
    if (partial && ((!available(s, v->prev, w->blk, w->stmt) && !same_inst) || s->values[v->prev].reg != r->id))
        fail(w->c, "line %u: old value of a partial definition of register %u is not available", line, r->id);
}

uint32_t ssa_verify(const ssa_func *s, char *msg, size_t msgsize)
{
    vctx c = {s, msg, msgsize, 0, 0};
    if (msg && msgsize) msg[0] = 0;
    const cfg *g = s->g;
    uint32_t *ndef = calloc(s->nvalues ? s->nvalues : 1, sizeof *ndef);
    if (!ndef) abort();
    for (uint32_t blk = 0; blk < g->nblocks; blk++) {
        const cfg_block *bb = &g->blocks[blk];
        /* phi and eta functions */
        for (uint32_t k = s->node_off[blk]; k < s->node_off[blk + 1]; k++) {
            const ssa_node *nd = &s->nodes[k];
            if (nd->block != blk || nd->value >= s->nvalues || s->values[nd->value].node != k) {
                fail(&c, "block %u: node %u is not linked to its value", blk, k);
                continue;
            }
            ndef[nd->value]++;
            if (nd->kind == SSA_V_PHI) {
                if (nd->nargs != bb->npred) fail(&c, "block %u: phi has %u arguments for %u predecessors", blk,
                                                 nd->nargs, bb->npred);
                for (uint32_t i = 0; i < nd->nargs && i < bb->npred; i++) {
                    uint32_t p = bb->pred[i];
                    if (!g->blocks[p].reachable) {
                        if (nd->args[i] != SSA_NONE) fail(&c, "block %u: phi argument from an unreachable block", blk);
                        continue;
                    }
                    if (!available(s, nd->args[i], p, UINT32_MAX) || s->values[nd->args[i]].reg != nd->reg)
                        fail(&c, "block %u: phi argument %u is not available at the end of its predecessor", blk, i);
                }
            } else {
                uint32_t a = nd->args[0], p = CFG_NONE;
                for (uint32_t i = 0; i < bb->npred; i++)
                    if (g->blocks[bb->pred[i]].reachable) p = bb->pred[i];
                if (nd->nargs != 1 || p == CFG_NONE || !available(s, a, p, UINT32_MAX) ||
                    s->values[a].reg != nd->reg)
                    fail(&c, "block %u: eta argument is not available on the exit edge", blk);
                else if (s->values[a].kind == SSA_V_ENTRY ||
                         !cfg_loop_contains(g, nd->loop_outer, s->values[a].block))
                    fail(&c, "block %u: eta argument is not defined inside the loop it leaves", blk);
            }
        }
        if (!bb->reachable || bb->kind != CFG_B_REAL) continue;
        for (uint32_t i = bb->first; i < bb->end; i++) {
            const ptx_stmt *st = s->fn->stmts[i];
            if (g->stmt_block[i] != blk) fail(&c, "statement %u is not in block %u", i, blk);
            if (st->kind != PTX_S_INST) continue;
            walk w = {&c, i, blk, s->ref_off[i]};
            ptx_inst_foreach_reg(&st->u.inst, NULL, check_ref, &w);
            if (w.k != s->ref_off[i + 1]) fail(&c, "line %u: fewer register references than recorded", st->loc.line);
            for (uint32_t k = s->ref_off[i]; k < s->ref_off[i + 1]; k++)
                if ((s->refs[k].role & PTX_REF_DEF) && s->refs[k].value < s->nvalues) ndef[s->refs[k].value]++;
        }
    }
    for (uint32_t v = 0; v < s->nvalues; v++) {
        uint8_t kind = s->values[v].kind;
        uint32_t want = kind == SSA_V_ENTRY || kind == SSA_V_SREG ? 0 : 1;
        if (ndef[v] != want) fail(&c, "value %u defined %u times", v, ndef[v]);
    }
    for (uint32_t i = 0; i < s->nret_vals; i++)
        if (g->blocks[CFG_EXIT].reachable && !available(s, s->ret_vals[i], CFG_EXIT, UINT32_MAX))
            fail(&c, "return register %u has no value at the exit", s->ret_regs[i]);
    free(ndef);
    return c.nerr;
}
