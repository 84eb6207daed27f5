/* The one fixpoint solver of the analyses over the SSA values: a FIFO
 * worklist on a dependence graph (per vertex, the vertices whose
 * evaluation reads it), each vertex in the queue at most once.  The
 * affine analyses (affine.c: values, then gate sets) and the address
 * facts (addr_chain.c) run it, each with its own lattice and transfer
 * functions: a vertex starts at ⊤ and only goes down (new = old ∧
 * f(operands)), so each changes a bounded number of times and the queue
 * empties.  The simple analysis is the paper's reachability
 * (divergence.c) and stays as it is.
 *
 * visit(ctx, v, why) evaluates vertex v, queued for reason why, and
 * returns the reason to queue its users with, or 0 when nothing changed.
 * A reason is 1 or 2, 1 the stronger: a user already in the queue keeps
 * the stronger of its two (the affine analyses queue a value whose
 * operands changed (1) or only their assumption bits (2); the address
 * facts only 1).
 *
 * solver_run is always_inline, with visit a constant at each call: the
 * compiler inlines visit into the loop, so that an instance costs what a
 * hand-written loop did. */
#ifndef PTXRAY_SOLVER_H
#define PTXRAY_SOLVER_H
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "ssa.h"
#include "u32vec.h"

typedef struct solver {
    const u32csr *users;
    uint8_t *inq;     /* per vertex: 0, or the reason it is queued */
    uint32_t *queue;  /* cap slots, a ring */
    uint32_t head, tail, cap;
} solver;

/* A solver over nvert vertices whose queue starts with the n vertices of
 * ord, in that order, each for reason 1.  only_ord: the vertices not in
 * ord (unreachable code's values) are never visited; else they are when
 * something they read changes. */
static inline void solver_init(solver *q, const u32csr *users, uint32_t nvert, const uint32_t *ord, uint32_t n,
                               bool only_ord)
{
    q->users = users;
    q->inq = malloc(nvert ? nvert : 1);
    q->queue = malloc(sizeof *q->queue * ((size_t)nvert + 1));
    if (!q->inq || !q->queue) abort();
    /* a vertex marked queued that is not in the queue is never queued */
    memset(q->inq, only_ord ? 2 : 0, nvert);
    q->cap = nvert + 1;
    q->head = 0;
    q->tail = 0;
    for (uint32_t i = 0; i < n; i++) { /* n <= nvert < cap: no wrap */
        q->queue[q->tail++] = ord[i];
        q->inq[ord[i]] = 1;
    }
}

static inline void solver_free(solver *q)
{
    free(q->inq);
    free(q->queue);
}

/* Until the queue is empty.  values/nv: the SSA values, whose record the
 * next vertex's evaluation reads first (vertices from nv up are not
 * values): loading it was a cache miss on large kernels (40% of the
 * affine solve's samples), now it overlaps the evaluation before it. */
static inline __attribute__((always_inline)) void solver_run(solver *q, const ssa_value *values, uint32_t nv,
                                                             void *ctx, unsigned (*visit)(void *, uint32_t, unsigned))
{
    uint32_t head = q->head, tail = q->tail, cap = q->cap;
    uint8_t *inq = q->inq;
    uint32_t *queue = q->queue;
    const uint32_t *off = q->users->off, *item = q->users->item;
    while (head != tail) {
        uint32_t v = queue[head];
        if (++head == cap) head = 0;
        unsigned why = inq[v];
        inq[v] = 0;
        if (head != tail && queue[head] < nv) __builtin_prefetch(&values[queue[head]]);
        unsigned qu = visit(ctx, v, why);
        if (!qu) continue;
        for (uint32_t e = off[v]; e < off[v + 1]; e++) {
            uint32_t u = item[e];
            if (inq[u]) {
                if (qu == 1) inq[u] = 1; /* the stronger of the two */
                continue;
            }
            inq[u] = (uint8_t)qu;
            queue[tail] = u;
            if (++tail == cap) tail = 0;
        }
    }
    q->head = head;
    q->tail = tail;
}

#endif
