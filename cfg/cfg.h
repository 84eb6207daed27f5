/* Control-flow graph of one function (.entry or .func with a body).
 *
 * Blocks are ranges of the function's statement list, so they carry labels,
 * .loc lines and declarations as well as instructions.  A new block starts
 * at a label that control flow can reach by name (a bra target or a
 * .branchtargets entry; other labels, like the $L__tmp labels of -G code,
 * do not split blocks) and after every terminator (bra, brx.idx, ret, exit,
 * trap; guarded ones too).  call and brkpt do not end blocks.  Statements
 * that follow a terminator but are not instructions (declarations, .loc,
 * unused labels, closing braces) stay in the terminator's block.
 *
 * Block 0 is a virtual entry (no statements) whose only successor is the
 * first real block; block 1 is a virtual exit that every ret/exit/trap and
 * the end of the body lead to.  Real blocks follow in program order.  With
 * CFG_SPLIT_LOOP_EXITS, loop-exit edges whose target has other
 * predecessors get a virtual landing block (appended after the real ones) so
 * that values leaving a loop have a place of their own (eta functions).
 *
 * Successor order: for a conditional branch "@p bra L", succ[0] is the
 * taken target (L) and succ[1] the fall-through; for brx.idx the targets
 * in table order; for a guarded ret/exit, succ[0] the virtual exit and
 * succ[1] the fall-through.  Duplicate edges (bra to the next block) are
 * kept once, and such a branch has a single successor.
 *
 * Blocks that cannot reach the exit (infinite loops) get a "fake" edge to
 * the exit, used only for post-dominance and control dependence, so every
 * reachable block has an immediate post-dominator.  Unreachable blocks stay
 * in the graph (reachable = 0) but have no dominators. */
#ifndef PTXRAY_CFG_H
#define PTXRAY_CFG_H
#include <stdbool.h>
#include <stdint.h>
#include "ir.h"
#include "ptx.h"

#define CFG_NONE UINT32_MAX
#define CFG_ENTRY 0u
#define CFG_EXIT 1u

enum cfg_block_kind { CFG_B_REAL, CFG_B_ENTRY, CFG_B_EXIT, CFG_B_LANDING };

/* The pointers first and the bytes last: 72 bytes, not 80 with padding. */
typedef struct cfg_block {
    uint32_t *succ, *pred;
    uint32_t first, end;/* statements [first, end) of fn->stmts; empty for virtual blocks */
    uint32_t label;     /* statement index of the label that names the block, or CFG_NONE */
    uint32_t term;      /* statement index of the terminating instruction, or CFG_NONE */
    uint32_t nsucc, npred;
    uint32_t rpo;       /* position in reverse post-order from the entry (CFG_NONE if unreachable) */
    uint32_t loop;      /* innermost loop containing it (index into loops), or CFG_NONE */
    /* Dominator / post-dominator trees.  idom[entry] = ipdom[exit] = CFG_NONE. */
    uint32_t idom, ipdom;
    uint32_t dom_pre, dom_post;   /* pre/post numbers in the dominator tree */
    uint8_t kind;       /* cfg_block_kind */
    uint8_t reachable;  /* from the entry */
    uint8_t fake_exit;  /* has a fake edge to the exit (cannot reach it otherwise) */
    uint8_t header;     /* a header of some loop (in the byte of padding: still 72 bytes) */
} cfg_block;

/* A loop of the loop nesting forest (Steensgaard's construction: strongly
 * connected regions, nested).  A reducible loop has one header; an
 * irreducible one several (every block of the region entered from outside). */
typedef struct cfg_loop { /* pointers first: 64 bytes, not 88 with padding */
    uint32_t *headers;
    uint32_t *blocks;   /* every block in the loop, nested ones included, sorted */
    uint32_t *latches;  /* blocks in the loop with an edge to a header (back edges) */
    uint32_t *exit_from, *exit_to; /* exit edges from a block inside to one outside */
    uint32_t parent;    /* enclosing loop or CFG_NONE */
    uint32_t depth;     /* 1 for outermost */
    uint32_t nheaders;
    uint32_t nblocks;
    uint32_t nlatches;
    uint32_t nexits;
    bool irreducible;
} cfg_loop;

typedef struct cfg {
    const ptx_func *fn;
    arena *a;            /* everything below lives here */
    uint32_t nblocks;
    cfg_block *blocks;
    uint32_t *stmt_block;/* statement index -> block (CFG_NONE for none) */
    uint32_t *rpo_order; /* reachable blocks in reverse post-order (nreach) */
    uint32_t nreach;
    uint32_t nloops;
    cfg_loop *loops;     /* outer loops before the loops they contain */
    /* Control dependence: block b is control dependent on the branch ending
     * block cdep[k] (k in [cdep_off[b], cdep_off[b+1])) */
    uint32_t *cdep_off, *cdep;
    uint32_t nirreducible;
} cfg;

enum cfg_flags {
    CFG_SPLIT_LOOP_EXITS = 1u << 0,
};

/* Builds the CFG, dominator and post-dominator trees, loop forest and
 * control dependence of a function with a body.  Memory comes from a (the
 * caller's arena).  Problems the CFG can see (a branch to a label that is
 * not in the function, a brx.idx whose table is missing) are reported in d
 * as errors with positions, and NULL is returned; d may be NULL. */
cfg *cfg_build(const ptx_func *fn, arena *a, unsigned flags, ptx_diags *d);

/* Whether a dominates b (reflexive).  Both must be reachable. */
static inline bool cfg_dominates(const cfg *g, uint32_t a, uint32_t b)
{
    return g->blocks[a].dom_pre <= g->blocks[b].dom_pre && g->blocks[b].dom_post <= g->blocks[a].dom_post;
}
/* Whether a post-dominates b (reflexive).  Both must be reachable.  A walk
 * up the post-dominator tree, O(its depth): no analysis asks this (they
 * use ipdom and the control dependence), so the tree is not numbered for
 * O(1) queries as the dominator tree is. */
static inline bool cfg_postdominates(const cfg *g, uint32_t a, uint32_t b)
{
    for (uint32_t x = b; x != CFG_NONE; x = g->blocks[x].ipdom)
        if (x == a) return true;
    return false;
}
/* Whether block b is inside loop l (nested loops included). */
bool cfg_loop_contains(const cfg *g, uint32_t l, uint32_t b);
/* Whether the edge from -> to is a back edge of the loop forest (to is a
 * header of a loop containing from).  Inline for the test that settles
 * most calls (to heads no loop): GSA asks it for every edge of its
 * regions, half a million times on a 100k-block kernel. */
bool cfg_is_back_edge_slow(const cfg *g, uint32_t from, uint32_t to);
static inline bool cfg_is_back_edge(const cfg *g, uint32_t from, uint32_t to)
{
    return g->blocks[to].header && cfg_is_back_edge_slow(g, from, to);
}

/* The outermost loop that the edge from -> to leaves, or CFG_NONE. */
uint32_t cfg_exited_loop(const cfg *g, uint32_t from, uint32_t to);

/* The statement at which execution resumes when control reaches block b:
 * its first statement, or for a virtual block the first statement of the
 * real block it leads to; fn->nstmts for the exit. */
uint32_t cfg_block_resume_stmt(const cfg *g, uint32_t b);

/* A printable name: the label ("$L__BB0_3"), "entry", "exit", "BB7" for an
 * unlabelled block, "BB7>BB9" for a landing block.  Written into buf. */
const char *cfg_block_name(const cfg *g, uint32_t b, char *buf, unsigned n);
/* What snprintf(buf, n, "%.*s%u", (int)len, p, num) writes (without the
 * number if !with_num), for names written by the million. */
void cfg_name_num(char *buf, unsigned n, const char *p, size_t len, bool with_num, uint32_t num);

#endif
