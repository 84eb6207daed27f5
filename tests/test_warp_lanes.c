/* The warp classes of block shapes (analyses/warp_classes.h) and the lane
 * offsets of polynomials read from them (analyses/warp_lanes.h), checked
 * against the polynomial evaluated thread by thread. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include "aff_poly.h"
#include "warp_classes.h"
#include "warp_lanes.h"

static const uint32_t shapes[][3] = {
    {16, 16, 1}, {32, 8, 1}, {48, 2, 1}, {100, 1, 1}, {3, 5, 7}, {33, 31, 1}, {8, 4, 4}, {1, 64, 2}, {2048, 1, 1},
};

/* Classes: warps whose coordinates are alike up to a uniform offset. */
Test(warp_lanes, classes_of_block_shapes)
{
    const uint32_t none[3] = {0, 0, 0}, sq[3] = {16, 16, 1}, rows[3] = {32, 8, 1}, wide[3] = {48, 2, 1},
                   part[3] = {100, 1, 1};
    const wc_shape *s = wc_classes(none);
    cr_expect_eq(s->nclasses, 1);
    cr_expect_eq(s->nwarps, 1);
    s = wc_classes(sq);
    cr_expect_eq(s->nclasses, 1);
    cr_expect_eq(s->nwarps, 8);
    /* tid.y's U is 0, 2, ..., 14: the warps agree on one bit */
    cr_expect_eq(s->c[0].t[DIV_C_Y].k, 1);
    cr_expect_eq(s->c[0].t[DIV_C_X].k, 64);
    /* tid.x·tid.y needs tid.y's U: known per warp only */
    cr_expect(s->c[0].bot >> 6 & 1);
    cr_expect_not(s->c[0].bot >> 1 & 1);
    s = wc_classes(rows);
    cr_expect_eq(s->nclasses, 1);
    s = wc_classes(wide);
    cr_expect_eq(s->nclasses, 2);
    cr_expect_eq(s->cls[0], s->cls[2]); /* both within one row, at x 0 and 16 */
    cr_expect_neq(s->cls[0], s->cls[1]);
    cr_expect_eq(s->c[s->cls[0]].t[DIV_C_X].k, 4);
    s = wc_classes(part);
    cr_expect_eq(s->nwarps, 4);
    cr_expect_eq(s->nclasses, 2); /* the last warp has 4 threads */
    cr_expect_eq(s->c[s->cls[3]].nlanes, 4);
    cr_expect_eq(s->c[s->cls[0]].nwarps, 3);
}

static int64_t coord(const uint32_t b[3], uint64_t t, unsigned d)
{
    uint64_t X = b[0], Y = b[1];
    return d == DIV_C_X ? (int64_t)(t % X) : d == DIV_C_Y ? (int64_t)(t / X % Y) : d == DIV_C_Z ? (int64_t)(t / (X * Y)) : (int64_t)(t % 32);
}

/* p at thread t, its terms in `mask` only. */
static int64_t value(const aff *p, const uint32_t b[3], uint64_t t, uint16_t mask)
{
    int64_t v = 0;
    for (unsigned i = 1; i < p->n; i++)
        if (mask >> i & 1) {
            int64_t m = 1;
            for (unsigned f = 0; f < 2; f++)
                if (aff_fac[i][f]) m *= coord(b, t, aff_fac[i][f]);
            v += p->c[i] * m;
        }
    return v;
}

/* Random polynomials of degree 2 over every shape: offsets and lane 0's
 * residue exact, and with unknown coefficients, groups within which the
 * known terms' offsets are exact and whose lanes agree on the unknown
 * monomials. */
Test(warp_lanes, offsets_match_thread_by_thread_evaluation)
{
    srand(19);
    wl_result *w = malloc(sizeof *w);
    for (unsigned si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
        for (unsigned trial = 0; trial < 60; trial++) {
            const uint32_t *b = shapes[si];
            aff p;
            aff_const(&p, DIV_NCOEF2, 0);
            for (unsigned i = 1; i < DIV_NCOEF2; i++)
                if (rand() % 3 == 0) p.c[i] = rand() % 201 - 100;
            if (trial % 2)
                for (unsigned i = 1; i < DIV_NCOEF2; i++)
                    if (rand() % 6 == 0) p.bot |= (uint16_t)(1u << i);
            uint16_t known = (uint16_t)~p.bot, varies = 0;
            warp_shape sh = {{b[0], b[1], b[2]}};
            wl_eval(&p, &sh, res_exact(8), w);
            uint64_t total = (uint64_t)b[0] * b[1] * b[2], nw = (total + 31) / 32;
            cr_assert_eq(w->nwarps, nw > 32 ? 32 : nw);
            for (uint32_t wi = 0; wi < w->nwarps; wi++) {
                const wl_warp *ww = &w->warp[wi];
                uint64_t t0 = 32ull * wi;
                cr_assert_eq(ww->nlanes, total - t0 < 32 ? total - t0 : 32);
                int64_t v0 = value(&p, b, t0, known);
                if (!p.bot) {
                    cr_assert_eq(ww->base.k, RES_KMAX);
                    cr_assert_eq(ww->base.r, (uint64_t)(v0 + 8) & ((1u << RES_KMAX) - 1), "shape %u warp %u", si, wi);
                }
                for (uint32_t l = 0; l < ww->nlanes; l++) {
                    /* the known terms exact in every lane */
                    cr_assert_eq(ww->off[l], value(&p, b, t0 + l, known) - v0, "shape %u warp %u lane %u", si, wi, l);
                    /* one group: the same value of every unknown term's monomial */
                    for (uint32_t l2 = 0; l2 < ww->nlanes; l2++) {
                        bool same = true;
                        for (unsigned i = 1; i < p.n; i++)
                            if (p.bot >> i & 1) {
                                aff m;
                                aff_const(&m, DIV_NCOEF2, 0);
                                m.c[i] = 1;
                                if (value(&m, b, t0 + l, 1u << i) != value(&m, b, t0 + l2, 1u << i)) {
                                    same = false;
                                    varies |= (uint16_t)(1u << i);
                                }
                            }
                        cr_assert_eq(ww->group[l] == ww->group[l2], same, "shape %u warp %u lanes %u %u", si, wi, l, l2);
                    }
                }
            }
            cr_assert_eq(w->status, varies ? WL_SYMBOLIC : WL_EXACT, "shape %u trial %u", si, trial);
            cr_assert_eq(w->sym_monos, varies);
        }
    free(w);
}

/* The unknown shape: tid.x = U + lane, U ≡ 0 (mod 32); tid.y uniform. */
Test(warp_lanes, unknown_shape)
{
    warp_shape none = {{0, 0, 0}};
    wl_result *w = malloc(sizeof *w);
    aff p;
    aff_const(&p, DIV_NCOEF2, 0);
    p.c[DIV_C_X] = 4;
    p.c[DIV_C_Y] = 4 * 1024;
    p.c[14] = 1; /* laneid² */
    wl_eval(&p, &none, res_exact(4), w);
    cr_assert_eq(w->status, WL_EXACT);
    for (uint32_t l = 0; l < 32; l++) cr_expect_eq(w->warp[0].off[l], 4 * (int64_t)l + l * l);
    /* 4·U with U ≡ 0 (mod 32), plus 4096·tid.y, plus 4: 4 modulo 128 */
    cr_expect_eq(w->warp[0].base.k, 7);
    cr_expect_eq(w->warp[0].base.r, 4);
    p.bot = (uint16_t)(1u << DIV_C_Y); /* an unknown stride on tid.y: uniform, lane 0 unknown */
    wl_eval(&p, &none, res_exact(4), w);
    cr_expect_eq(w->status, WL_EXACT);
    cr_expect_eq(w->warp[0].base.k, 0);
    p.bot = (uint16_t)(1u << DIV_C_X); /* an unknown stride on tid.x: every lane its own group */
    wl_eval(&p, &none, res_exact(4), w);
    cr_expect_eq(w->status, WL_SYMBOLIC);
    cr_expect_eq(w->warp[0].ngroups, 32);
    cr_expect_eq(w->warp[0].base.k, 5); /* c·U: a multiple of 32 whatever c is */
    aff_const(&p, DIV_NCOEF2, 0);
    p.c[8] = 1; /* tid.x·laneid = U·lane + lane²: depends on the warp's x */
    wl_eval(&p, &none, res_exact(0), w);
    cr_expect_eq(w->status, WL_POSITION);
    free(w);
}

/* wl_line: the lanes of p with coefficient m = t·unit, from two
 * evaluations, are wl_eval's for every t (offsets, lane 0's residue,
 * groups), over every shape and the unknown one; where it declines
 * (a coefficient past the shape's limit, a result not exact) nothing is
 * claimed. */
Test(warp_lanes, line_matches_wl_eval)
{
    srand(23);
    wl_result *w = malloc(sizeof *w), *v = malloc(sizeof *v);
    wl_line *line = malloc(sizeof *line);
    unsigned taken = 0, declined = 0;
    for (unsigned si = 0; si <= sizeof shapes / sizeof shapes[0]; si++)
        for (unsigned trial = 0; trial < 40; trial++) {
            warp_shape sh = {{0, 0, 0}}; /* the last round: the unknown shape */
            if (si < sizeof shapes / sizeof shapes[0]) memcpy(sh.block, shapes[si], sizeof sh.block);
            aff p;
            aff_const(&p, DIV_NCOEF2, 0);
            for (unsigned i = 1; i < DIV_NCOEF2; i++)
                if (rand() % 3 == 0) p.c[i] = rand() % 201 - 100;
            if (trial % 4 == 3) p.bot |= (uint16_t)(1u << (1 + rand() % (DIV_NCOEF2 - 1)));
            unsigned m = 1 + (unsigned)rand() % (DIV_NCOEF2 - 1);
            if (trial % 2 == 0) { /* lane 0 known but for term m (tid.y: known modulo 2^tz(c) alone) */
                aff_const(&p, DIV_NCOEF2, rand() % 64);
                p.c[DIV_C_LANE] = rand() % 9 - 4;
                m = DIV_C_X + (unsigned)rand() % 3;
            }
            int64_t unit = trial % 5 == 4 ? (int64_t)1 << 60 : (rand() % 64 + 1) * (rand() % 2 ? 1 : -1);
            residue c0 = trial % 3 ? res_exact(rand() % 4096) : res_make(rand() % 64, (unsigned)(rand() % 7));
            if (!wl_line_init(&p, m, unit, 255, &sh, c0, line)) {
                declined++;
                continue;
            }
            taken++;
            for (int64_t t = -255; t <= 255; t += 1 + rand() % 7) {
                aff q = p;
                q.c[m] = t * unit;
                q.bot &= (uint16_t)~(1u << m);
                wl_eval(&q, &sh, c0, v);
                wl_line_at(line, t, w);
                cr_assert_eq(w->status, v->status);
                cr_assert_eq(w->nwarps, v->nwarps);
                cr_assert_eq(w->sym_monos, v->sym_monos);
                for (uint32_t wi = 0; wi < v->nwarps; wi++) {
                    const wl_warp *a = &w->warp[wi], *b = &v->warp[wi];
                    cr_assert_eq(a->nlanes, b->nlanes);
                    cr_assert_eq(a->ngroups, b->ngroups);
                    cr_assert_arr_eq(a->off, b->off, sizeof a->off, "shape %u trial %u t %lld warp %u", si, trial,
                                     (long long)t, wi);
                    cr_assert_arr_eq(a->group, b->group, sizeof a->group);
                    cr_assert_eq(a->base.k, b->base.k, "shape %u trial %u t %lld warp %u", si, trial, (long long)t, wi);
                    cr_assert_eq(a->base.r, b->base.r, "shape %u trial %u t %lld warp %u", si, trial, (long long)t, wi);
                }
            }
        }
    /* both ways taken: the line covers most, 2^60 per unit does not fit */
    cr_expect_gt(taken, 200);
    cr_expect_gt(declined, 40);
    free(line);
    free(v);
    free(w);
}
