/* The analyses' one solver (analyses/solver.h) on small graphs whose fixed
 * points are known: each vertex's value is the least of its own seed and
 * its inputs' values plus one (a shortest distance from the seeds), which
 * only goes down; the queue's order, a vertex left out of the order, and
 * the two reasons a vertex is queued for. */
#include <criterion/criterion.h>
#include "solver.h"

enum { NV = 8, INF = 1000 };

typedef struct graph {
    uint32_t nv;
    uint32_t from[32], to[32], ne;
    uint32_t dist[NV], seed[NV];
    uint32_t visits[NV];
    unsigned why[NV][8]; /* the reasons each visit was for */
    uint32_t order[64], norder;
    u32csr users;
    /* per vertex: its inputs (the reverse of users), for the evaluation */
    uint32_t in[NV][8], nin[NV];
    uint32_t weak; /* a vertex whose change queues its users for reason 2 */
} graph;

static void edge(graph *g, uint32_t a, uint32_t b)
{
    g->from[g->ne] = a;
    g->to[g->ne] = b;
    g->ne++;
    g->in[b][g->nin[b]++] = a;
}

static void build(graph *g)
{
    u32vec k = {0}, v = {0};
    for (uint32_t e = 0; e < g->ne; e++) {
        u32vec_push(&k, g->from[e]);
        u32vec_push(&v, g->to[e]);
    }
    u32csr_take(&g->users, g->nv, &k, &v);
}

static unsigned visit(void *ctx, uint32_t v, unsigned why)
{
    graph *g = ctx;
    if (g->visits[v] < 8) g->why[v][g->visits[v]] = why;
    g->visits[v]++;
    g->order[g->norder++ % 64] = v;
    uint32_t d = g->seed[v];
    for (uint32_t i = 0; i < g->nin[v]; i++)
        if (g->dist[g->in[v][i]] + 1 < d) d = g->dist[g->in[v][i]] + 1;
    if (d >= g->dist[v]) return 0;
    g->dist[v] = d;
    return v == g->weak ? 2 : 1;
}

static void solve(graph *g, const uint32_t *ord, uint32_t n, bool only_ord)
{
    build(g);
    solver q;
    solver_init(&q, &g->users, g->nv, ord, n, only_ord);
    ssa_value values[NV];
    solver_run(&q, values, g->nv, g, visit);
    solver_free(&q);
    u32csr_free(&g->users);
}

static void init(graph *g, uint32_t nv)
{
    memset(g, 0, sizeof *g);
    g->nv = nv;
    g->weak = UINT32_MAX;
    for (uint32_t v = 0; v < NV; v++) g->dist[v] = g->seed[v] = INF;
}

/* Four vertices, 0 the seed at distance 0, edges 0 -> 1 -> 2 -> 3. */
static void chain4(graph *g)
{
    init(g, 4);
    g->seed[0] = 0;
    edge(g, 0, 1);
    edge(g, 1, 2);
    edge(g, 2, 3);
}

/* A loop 1 -> 2 -> 3 -> 1 entered from 0: the distances from 0, each
 * vertex visited once in order and the loop head once more (its back
 * edge's value changed after it was first visited). */
Test(solver, loop_reaches_the_fixed_point)
{
    graph g;
    chain4(&g);
    edge(&g, 3, 1);
    const uint32_t ord[] = {0, 1, 2, 3};
    solve(&g, ord, 4, false);
    const uint32_t want[] = {0, 1, 2, 3};
    for (uint32_t v = 0; v < 4; v++) cr_expect_eq(g.dist[v], want[v], "vertex %u: %u", v, g.dist[v]);
    /* in order, then 1 again for 3's change: 1 does not change, so that is all */
    cr_expect_eq(g.norder, 5);
    const uint32_t seq[] = {0, 1, 2, 3, 1};
    for (uint32_t i = 0; i < 5; i++) cr_expect_eq(g.order[i], seq[i], "step %u: %u", i, g.order[i]);
}

/* Evaluated against the order (3 first, its input last): the queue takes
 * each changed vertex's users again until nothing changes. */
Test(solver, any_order_ends_at_the_same_point)
{
    graph g;
    chain4(&g);
    const uint32_t ord[] = {3, 2, 1, 0};
    solve(&g, ord, 4, false);
    for (uint32_t v = 0; v < 4; v++) cr_expect_eq(g.dist[v], v);
    cr_expect_eq(g.visits[3], 2);
    cr_expect_eq(g.visits[0], 1);
}

/* only_ord: a vertex the order leaves out (unreachable code) is never
 * visited, though its input changes; without it, it is. */
Test(solver, a_vertex_left_out_stays_at_top)
{
    for (int only = 0; only < 2; only++) {
        graph g;
        init(&g, 3);
        g.seed[0] = 0;
        edge(&g, 0, 1);
        edge(&g, 0, 2);
        const uint32_t ord[] = {0, 1};
        solve(&g, ord, 2, only);
        cr_expect_eq(g.dist[1], 1);
        cr_expect_eq(g.visits[2], only ? 0u : 1u, "only_ord %d", only);
        cr_expect_eq(g.dist[2], only ? (uint32_t)INF : 1u);
    }
}

/* Reasons: a vertex queued for 2 and then for 1 before its visit is
 * visited once, for 1; one queued for 2 alone, for 2. */
Test(solver, the_stronger_reason_wins)
{
    graph g;
    init(&g, 4);
    g.seed[0] = 0;
    g.seed[1] = 0;
    g.weak = 0; /* 0's change queues 2 and 3 for reason 2 */
    edge(&g, 0, 2);
    edge(&g, 0, 3);
    edge(&g, 1, 2); /* 1's change queues 2 for reason 1 */
    /* 2 and 3 first, so that both are queued again after 0 and 1 */
    const uint32_t ord[] = {2, 3, 0, 1};
    solve(&g, ord, 4, false);
    cr_expect_eq(g.dist[2], 1);
    cr_expect_eq(g.dist[3], 1);
    cr_assert_eq(g.visits[2], 2);
    cr_assert_eq(g.visits[3], 2);
    cr_expect_eq(g.why[2][0], 1); /* the order's */
    cr_expect_eq(g.why[2][1], 1);
    cr_expect_eq(g.why[3][1], 2);
}
