/* Corpus kernels with atomics, votes, cooperative groups, grid sync,
 * volatile and dynamic shared memory, cp.async. */
#include <criterion/criterion.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "emu_harness.h"

#define FOR_ARCH(a) for (unsigned ai_ = 0; ai_ < 3; ai_++) for (const char *a = eh_arches[ai_]; a; a = NULL)
#define ALLOC(T, n) ((T *)calloc((size_t)(n), sizeof(T)))

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return x < y ? -1 : x > y;
}

/* ---- BFS ---------------------------------------------------------------------------- */
Test(emu_corpus, bfs_frontier)
{
    FOR_ARCH(arch) {
        eh *h = eh_open(eh_corpus(arch, "bfs_frontier"), NULL);
        int n = 120;
        int32_t *ptr = ALLOC(int32_t, n + 1), *adj = ALLOC(int32_t, n * 8), *level = ALLOC(int32_t, n);
        uint64_t s = 270;
        int k = 0;
        for (int v = 0; v < n; v++) {
            ptr[v] = k;
            int deg = (int)(eh_rand(&s) % 6);
            for (int j = 0; j < deg; j++) adj[k++] = (int)(eh_rand(&s) % (uint64_t)n);
        }
        ptr[n] = k;
        /* level 0 = {0..9}, level 1 = their unvisited neighbours */
        for (int v = 0; v < n; v++) level[v] = v < 10 ? 0 : -1;
        int32_t frontier[10], want_level[120], nwant = 0;
        for (int i = 0; i < 10; i++) frontier[i] = i;
        memcpy(want_level, level, 4 * n);
        for (int i = 0; i < 10; i++)
            for (int e = ptr[i]; e < ptr[i + 1]; e++)
                if (want_level[adj[e]] == -1) { want_level[adj[e]] = 1; nwant++; }
        uint64_t dptr = eh_buf(h, ptr, 4 * (n + 1)), dadj = eh_buf(h, adj, 4 * k + 4), dfr = eh_buf(h, frontier, 40);
        uint64_t dout = eh_zero(h, 4 * n), dsize = eh_zero(h, 4), dlev = eh_buf(h, level, 4 * n);
        EH_RUN(h, "bfs_expand_frontier", D1(1), D1(32), "pppippp" "i", dptr, dadj, dfr, 10, dout, dsize, dlev, 0);
        int32_t got_level[120], out[120], size;
        eh_read(h, dlev, got_level, 4 * n);
        eh_read(h, dsize, &size, 4);
        eh_read(h, dout, out, 4 * n);
        eh_expect_i32(got_level, want_level, n, "bfs levels");
        cr_assert_eq(size, nwant);
        /* the new frontier is exactly the vertices at level 1, in some order */
        qsort(out, (size_t)size, 4, cmp_i32);
        int j = 0;
        for (int v = 0; v < n; v++)
            if (want_level[v] == 1) cr_assert_eq(out[j++], v);
        /* Rodinia-style mask BFS, one level, all masked vertices at cost 3 */
        uint8_t *mask = ALLOC(uint8_t, n), *upd = ALLOC(uint8_t, n), *vis = ALLOC(uint8_t, n);
        int32_t *cost = ALLOC(int32_t, n), *wcost = ALLOC(int32_t, n);
        uint8_t *wmask = ALLOC(uint8_t, n), *wupd = ALLOC(uint8_t, n);
        for (int v = 0; v < n; v++) {
            mask[v] = v % 7 == 0;
            vis[v] = v % 3 == 0 || mask[v]; /* the frontier is visited */
            cost[v] = mask[v] ? 3 : 100 + v;
        }
        memcpy(wcost, cost, 4 * n);
        memcpy(wmask, mask, n);
        for (int v = 0; v < n; v++)
            if (mask[v]) {
                wmask[v] = 0;
                for (int e = ptr[v]; e < ptr[v + 1]; e++)
                    if (!vis[adj[e]]) { wcost[adj[e]] = 4; wupd[adj[e]] = 1; }
            }
        uint64_t dm = eh_buf(h, mask, n), du = eh_zero(h, n), dvis = eh_buf(h, vis, n), dcost = eh_buf(h, cost, 4 * n);
        EH_RUN(h, "bfs_topdown_mask", D1(4), D1(32), "ppppppi", dptr, dadj, dm, du, dvis, dcost, n);
        uint8_t gm[120], gu[120];
        eh_read(h, dm, gm, n);
        eh_read(h, du, gu, n);
        eh_read(h, dcost, cost, 4 * n);
        eh_expect_bytes(gm, wmask, n, "bfs mask");
        eh_expect_bytes(gu, wupd, n, "bfs updating");
        eh_expect_i32(cost, wcost, n, "bfs cost");
        /* commit */
        uint8_t done = 1;
        uint64_t ddone = eh_buf(h, &done, 1);
        EH_RUN(h, "bfs_commit", D1(4), D1(32), "ppppi", dm, du, dvis, ddone, n);
        uint8_t gv[120];
        eh_read(h, dm, gm, n);
        eh_read(h, du, gu, n);
        eh_read(h, dvis, gv, n);
        eh_read(h, ddone, &done, 1);
        int any = 0;
        for (int v = 0; v < n; v++) {
            cr_assert_eq(gm[v], wupd[v] ? 1 : wmask[v]);
            cr_assert_eq(gv[v], wupd[v] ? 1 : vis[v]);
            cr_assert_eq(gu[v], 0);
            any |= wupd[v];
        }
        cr_assert_eq(done, any ? 0 : 1);
        free(ptr); free(adj); free(level); free(mask); free(upd); free(vis); free(cost); free(wcost); free(wmask); free(wupd);
        eh_close(h);
    }
}

/* ---- warp votes and matches ----------------------------------------------------------------- */
Test(emu_corpus, warp_vote)
{
    FOR_ARCH(arch) {
        eh *h = eh_open(eh_corpus(arch, "warp_vote"), NULL);
        int n = 150;
        int32_t *in = ALLOC(int32_t, n), *out = ALLOC(int32_t, n), count;
        for (int i = 0; i < n; i++) in[i] = (i * 7) % 5 == 0 ? 0 : i + 1; /* unique kept values */
        int nz = 0;
        for (int i = 0; i < n; i++) nz += in[i] != 0;
        uint64_t din = eh_buf(h, in, 4 * n), dout = eh_zero(h, 4 * n), dc = eh_zero(h, 4);
        EH_RUN(h, "compact_ballot", D1(2), D1(96), "pppi", din, dout, dc, n);
        eh_read(h, dc, &count, 4);
        eh_read(h, dout, out, 4 * n);
        cr_assert_eq(count, nz);
        /* within one warp's chunk the lane order is kept */
        for (int i = 1; i < count; i++)
            if ((out[i] - 1) / 32 == (out[i - 1] - 1) / 32) cr_assert_gt(out[i], out[i - 1]);
        qsort(out, (size_t)count, 4, cmp_i32);
        int j = 0;
        for (int i = 0; i < n; i++)
            if (in[i]) cr_assert_eq(out[j++], in[i]);
        /* any / all / activemask */
        float *x = ALLOC(float, 128);
        int32_t flags[4], fw[4];
        eh_fill_f32(x, 128, 280, 0, 1);
        for (int i = 32; i < 64; i++) x[i] = 2.0f; /* warp 1: all above */
        for (int i = 64; i < 96; i++) x[i] = 0.1f; /* warp 2: none above */
        float thr = 0.5f;
        int nn = 120;
        for (int w = 0; w < 4; w++) {
            int any = 0, all = 1;
            for (int l = 0; l < 32; l++) {
                int i = w * 32 + l;
                float v = i < nn ? x[i] : 0.0f;
                any |= v > thr;
                all &= v > thr;
            }
            fw[w] = (any ? 1 : 0) | (all ? 2 : 0) | (1 << 2);
        }
        uint64_t dx = eh_buf(h, x, 512), dfl = eh_zero(h, 16);
        EH_RUN(h, "vote_any_all", D1(1), D1(128), "ppif", dx, dfl, nn, thr);
        eh_read(h, dfl, flags, 16);
        eh_expect_i32(flags, fw, 4, "vote_any_all");
        /* match.any: per-key counts */
        int nk = 200;
        int32_t *keys = ALLOC(int32_t, nk);
        eh_fill_i32(keys, nk, 281, 0, 9);
        uint32_t *counts = ALLOC(uint32_t, 1024), *cw = ALLOC(uint32_t, 1024);
        for (int i = 0; i < nk; i++) cw[keys[i] & 1023]++;
        uint64_t dk = eh_buf(h, keys, 4 * nk), dcnt = eh_zero(h, 4096);
        EH_RUN(h, "match_aggregate", D1(2), D1(128), "ppi", dk, dcnt, nk);
        eh_read(h, dcnt, counts, 4096);
        eh_expect_i32((int32_t *)counts, (int32_t *)cw, 1024, "match_aggregate");
        /* match.all on one warp, uniform values and not */
        for (int uni = 0; uni < 2; uni++) {
            uint64_t v[32];
            for (int i = 0; i < 32; i++) v[i] = uni ? 0x1234567890ull : (uint64_t)(i % 3);
            int32_t u[32] = {0}, uw[32] = {0};
            uint32_t mask = uni ? 0xffffffffu : 0;
            uw[0] = uni ? (int32_t)mask : 0;
            for (int i = 1; i < 32; i += 2) uw[i] += mask ? 31 - __builtin_clz(mask) : -1;
            uint64_t dv = eh_buf(h, v, 256), du = eh_buf(h, u, 128);
            EH_RUN(h, "match_all_u64", D1(1), D1(32), "ppi", dv, du, 32);
            eh_read(h, du, u, 128);
            eh_expect_i32(u, uw, 32, uni ? "match_all_u64 uniform" : "match_all_u64 mixed");
        }
        free(in); free(out); free(x); free(keys); free(counts); free(cw);
        eh_close(h);
    }
}

/* ---- cooperative groups ------------------------------------------------------------------------- */
Test(emu_corpus, coop_groups)
{
    FOR_ARCH(arch) {
        eh *h = eh_open(eh_corpus(arch, "coop_groups"), NULL);
        int n = 700;
        float *in = ALLOC(float, n), out = 0;
        eh_fill_f32(in, n, 290, -1, 1);
        double want = 0, mag = 0;
        for (int i = 0; i < n; i++) { want += in[i]; mag += fabs(in[i]); }
        uint64_t din = eh_buf(h, in, 4 * n), dout = eh_zero(h, 4);
        EH_RUN(h, "_Z15cg_block_reducePKfPfi", D1(3), D1(256), "ppi", din, dout, n);
        eh_read(h, dout, &out, 4);
        cr_assert(fabs(out - want) <= 1e-6 * mag, "cg_block_reduce %.9g want %.9g", out, want);
        /* tile<8> max with shfl_down, then any/ballot on the partial maxima */
        int nt = 120;
        int32_t *ti = ALLOC(int32_t, nt + 8), *to = ALLOC(int32_t, 128), *tw = ALLOC(int32_t, 128);
        eh_fill_i32(ti, nt, 291, 0, 1200);
        for (int t = 0; t < 128 / 8; t++) {
            int v[8];
            for (int l = 0; l < 8; l++) v[l] = t * 8 + l < nt ? ti[t * 8 + l] : INT_MIN;
            for (int off = 4; off > 0; off /= 2) {
                int nv[8];
                for (int l = 0; l < 8; l++) {
                    int o = l + off < 8 ? v[l + off] : v[l];
                    nv[l] = v[l] > o ? v[l] : o;
                }
                memcpy(v, nv, sizeof v);
            }
            tw[t] = v[0];
            int b = 0;
            for (int l = 0; l < 8; l++) b += v[l] > 1000;
            if (b) tw[nt / 8 + t] = b;
        }
        /* threads >= nt write out[i/8] (tile 15) and out[nt/8 + i/8] too */
        uint64_t dti = eh_buf(h, ti, 4 * nt + 32), dto = eh_zero(h, 4 * 128);
        EH_RUN(h, "_Z12cg_tile8_maxPKiPii", D1(1), D1(128), "ppi", dti, dto, nt);
        eh_read(h, dto, to, 4 * 128);
        eh_expect_i32(to, tw, 128, "cg_tile8_max");
        /* coalesced_threads append */
        int32_t *fi = ALLOC(int32_t, n), *fo = ALLOC(int32_t, n), fc;
        eh_fill_i32(fi, n, 292, -5, 5);
        int pos = 0;
        for (int i = 0; i < n; i++) if (fi[i] > 0) pos++;
        uint64_t dfi = eh_buf(h, fi, 4 * n), dfo = eh_zero(h, 4 * n), dfc = eh_zero(h, 4);
        EH_RUN(h, "_Z16cg_filter_appendPKiPiS1_i", D1(3), D1(256), "pppi", dfi, dfo, dfc, n);
        eh_read(h, dfc, &fc, 4);
        eh_read(h, dfo, fo, 4 * n);
        cr_assert_eq(fc, pos);
        int32_t *sorted = ALLOC(int32_t, n);
        int m = 0;
        for (int i = 0; i < n; i++) if (fi[i] > 0) sorted[m++] = fi[i];
        qsort(sorted, (size_t)m, 4, cmp_i32);
        qsort(fo, (size_t)fc, 4, cmp_i32);
        eh_expect_i32(fo, sorted, (size_t)m, "cg_filter_append");
        free(in); free(ti); free(to); free(tw); free(fi); free(fo); free(sorted);
        eh_close(h);
    }
}

Test(emu_corpus, coop_grid_sync)
{
    FOR_ARCH(arch) {
        emu_options o = {.cooperative = true};
        eh *h = eh_open(eh_corpus(arch, "coop_grid_sync"), &o);
        int n = 3000, G = 4;
        float *d = ALLOC(float, n), *w = ALLOC(float, n), partial[4];
        eh_fill_f32(d, n, 300, -1, 1);
        double tot = 0;
        for (int i = 0; i < n; i++) tot += (double)d[i] * d[i];
        float scale = (float)(1 / sqrt(tot));
        for (int i = 0; i < n; i++) w[i] = d[i] * scale;
        uint64_t dd = eh_buf(h, d, 4 * n), dp = eh_zero(h, 16);
        EH_RUN(h, "_Z19grid_sync_normalizePfS_i", D1(G), D1(256), "ppi", dd, dp, n);
        eh_read(h, dd, d, 4 * n);
        eh_read(h, dp, partial, 16);
        cr_assert_float_eq(partial[0], scale, 1e-5f * scale);
        eh_expect_f32(d, w, n, 1e-5, 1e-7, "grid_sync_normalize");
        free(d); free(w);
        eh_close(h);
        /* without the workspace the kernel traps, as on a non-cooperative launch */
        eh *h2 = eh_open(eh_corpus(arch, "coop_grid_sync"), NULL);
        uint64_t dd2 = eh_zero(h2, 4 * n), dp2 = eh_zero(h2, 16);
        cr_assert_eq(eh_launch(h2, "_Z19grid_sync_normalizePfS_i", D1(G), D1(256), "ppi", dd2, dp2, n), EMU_ERR_TRAP);
        cr_assert(strstr(h2->last_err, "trap") != NULL, "%s", h2->last_err);
        eh_close(h2);
    }
}

/* ---- volatile / warp-synchronous -------------------------------------------------------------------- */
Test(emu_corpus, volatile_shared)
{
    FOR_ARCH(arch) {
        eh *h = eh_open(eh_corpus(arch, "volatile_shared"), NULL);
        unsigned n = 1100, G = 3;
        float *in = ALLOC(float, n), out[3], want[3];
        eh_fill_f32(in, n, 310, -1, 1);
        for (unsigned b = 0; b < G; b++) {
            float s[256];
            for (unsigned t = 0; t < 256; t++) {
                unsigned i = b * 512 + t;
                s[t] = (i < n ? in[i] : 0.f) + (i + 256 < n ? in[i + 256] : 0.f);
            }
            for (unsigned st = 128; st > 32; st >>= 1)
                for (unsigned t = 0; t < st; t++) s[t] += s[t + st];
            /* the warp-synchronous tail in lock-step: all 32 lanes read, then write */
            for (unsigned d = 32; d > 0; d >>= 1) {
                float nw[32];
                for (unsigned t = 0; t < 32; t++) nw[t] = s[t] + s[t + d];
                memcpy(s, nw, sizeof nw);
            }
            want[b] = s[0];
        }
        uint64_t din = eh_buf(h, in, 4 * n), dout = eh_zero(h, 4 * G);
        EH_RUN(h, "reduce_volatile_tail", D1(G), D1(256), "ppu", din, dout, n);
        eh_read(h, dout, out, 4 * G);
        eh_expect_f32(out, want, G, 0, 0, "reduce_volatile_tail");
        for (unsigned b = 0; b < G; b++) {
            float s[256], v[32];
            for (unsigned t = 0; t < 256; t++) {
                unsigned i = b * 256 + t;
                s[t] = i < n ? in[i] : 0.f;
            }
            for (unsigned st = 128; st > 32; st >>= 1)
                for (unsigned t = 0; t < st; t++) s[t] += s[t + st];
            for (unsigned t = 0; t < 32; t++) v[t] = s[t] + s[t + 32];
            for (unsigned off = 16; off > 0; off >>= 1) {
                for (unsigned t = 0; t < 32; t++) s[t] = v[t];
                for (unsigned t = 0; t < 32; t++) v[t] += s[t + off < 32 ? t + off : t];
            }
            want[b] = v[0];
        }
        dout = eh_zero(h, 4 * G);
        EH_RUN(h, "reduce_syncwarp_tail", D1(G), D1(256), "ppu", din, dout, n);
        eh_read(h, dout, out, 4 * G);
        eh_expect_f32(out, want, G, 0, 0, "reduce_syncwarp_tail");
        /* producer/consumer through a volatile flag across two blocks */
        uint64_t dflag = eh_zero(h, 4), dmail = eh_zero(h, 4), dres = eh_zero(h, 8);
        EH_RUN(h, "volatile_flag_handoff", D1(2), D1(32), "ppp", dflag, dmail, dres);
        float res[2];
        eh_read(h, dres, res, 8);
        cr_assert_eq(res[0], 42.0f);
        cr_assert_lt(res[1], (float)(1 << 20));
        free(in);
        eh_close(h);
    }
}

/* ---- dynamic shared memory -------------------------------------------------------------------------- */
Test(emu_corpus, dynamic_shared)
{
    EH_FOR_VARIANT(vk, 1) {
        const char *arch = eh_variant(vk, "dynamic_shared");
        int B = 64, G = 3, n = 180;
        emu_options o = {.shared_bytes = (uint32_t)B * 8};
        eh *h = eh_open(arch, &o);
        float *vals = ALLOC(float, n), *out = ALLOC(float, B * G), *w = ALLOC(float, B * G);
        int32_t *keys = ALLOC(int32_t, n);
        eh_fill_f32(vals, n, 320, -1, 1);
        eh_fill_i32(keys, n, 321, 0, 4);
        for (int b = 0; b < G; b++)
            for (int t = 0; t < B; t++) {
                int gid = b * B + t;
                if (gid >= n) continue;
                float acc = 0;
                for (int j = 0; j < B; j++) {
                    int g2 = b * B + j;
                    int kj = g2 < n ? keys[g2] : -1;
                    if (kj == keys[gid]) acc += g2 < n ? vals[g2] : 0.0f;
                }
                w[gid] = acc;
            }
        uint64_t dv = eh_buf(h, vals, 4 * n), dk = eh_buf(h, keys, 4 * n), dout = eh_zero(h, 4 * B * G);
        EH_RUN(h, "dyn_shared_partition", D1(G), D1(B), "pppi", dv, dk, dout, n);
        eh_read(h, dout, out, 4 * B * G);
        eh_expect_f32(out, w, B * G, 0, 0, "dyn_shared_partition");
        /* reverse per block, int and double */
        int rn = 50;
        int32_t *ri = ALLOC(int32_t, rn * 2), rw[100];
        eh_fill_i32(ri, rn * 2, 322, -99, 99);
        for (int b = 0; b < 2; b++)
            for (int t = 0; t < rn; t++) rw[b * rn + t] = ri[b * rn + rn - 1 - t];
        uint64_t dri = eh_buf(h, ri, 8 * rn);
        EH_RUN(h, "_Z18dyn_shared_reverseIiEvPT_i", D1(2), D1(64), "pi", dri, rn);
        eh_read(h, dri, ri, 8 * rn);
        eh_expect_i32(ri, rw, 2 * rn, "dyn_shared_reverse<int>");
        double *rd = ALLOC(double, rn * 2), rdw[100];
        eh_fill_f64(rd, rn * 2, 323, -1, 1);
        for (int b = 0; b < 2; b++)
            for (int t = 0; t < rn; t++) rdw[b * rn + t] = rd[b * rn + rn - 1 - t];
        uint64_t drd = eh_buf(h, rd, 16 * rn);
        EH_RUN(h, "_Z18dyn_shared_reverseIdEvPT_i", D1(2), D1(64), "pi", drd, rn);
        eh_read(h, drd, rd, 16 * rn);
        eh_expect_f64(rd, rdw, 2 * rn, 0, 0, "dyn_shared_reverse<double>");
        eh_close(h);
        /* row sums with a runtime pitch */
        int cols = 45, pitch = 47, by = 4, nb = 2;
        emu_options o2 = {.shared_bytes = (uint32_t)(by * pitch * 4)};
        h = eh_open(arch, &o2);
        float *m = ALLOC(float, cols * by * nb), rs[8], rsw[8];
        eh_fill_f32(m, cols * by * nb, 324, -1, 1);
        for (int r = 0; r < by * nb; r++) {
            float s = 0;
            for (int c = 0; c < cols; c++) s += m[r * cols + c];
            rsw[r] = s;
        }
        uint64_t dm = eh_buf(h, m, 4 * cols * by * nb), drs = eh_zero(h, 32);
        EH_RUN(h, "dyn_shared_matrix_rowsum", D1(nb), D2(16, by), "ppii", dm, drs, cols, pitch);
        eh_read(h, drs, rs, 32);
        eh_expect_f32(rs, rsw, 8, 0, 0, "dyn_shared_matrix_rowsum");
        free(vals); free(out); free(w); free(keys); free(ri); free(rd); free(m);
        eh_close(h);
    }
}

/* ---- cp.async ------------------------------------------------------------------------------------------ */
Test(emu_corpus, cp_async_pipeline)
{
    FOR_ARCH(arch) {
        eh *h = eh_open(eh_corpus(arch, "cp_async_pipeline"), NULL);
        int nt = 3, G = 2;
        float *in = ALLOC(float, 4 * 256 * nt * G), *out = ALLOC(float, 256 * G), *w = ALLOC(float, 256 * G);
        eh_fill_f32(in, 4 * 256 * nt * G, 330, -1, 1);
        for (int b = 0; b < G; b++)
            for (int t = 0; t < 256; t++) {
                float acc = 0;
                for (int k = 0; k < nt; k++) {
                    const float *v = in + 4 * ((size_t)b * nt * 256 + k * 256 + (t + 1) % 256);
                    acc += v[0] + v[1] + v[2] + v[3];
                }
                w[b * 256 + t] = acc;
            }
        uint64_t din = eh_buf(h, in, 16 * 256 * nt * G), dout = eh_zero(h, 4 * 256 * G);
        EH_RUN(h, "cp_async_double_buffer_sum", D1(G), D1(256), "ppi", din, dout, nt);
        eh_read(h, dout, out, 4 * 256 * G);
        eh_expect_f32(out, w, 256 * G, 0, 0, "cp_async_double_buffer_sum");
        int n = 128;
        float *a = ALLOC(float, n * n), *at = ALLOC(float, n * n), *aw = ALLOC(float, n * n);
        eh_fill_f32(a, n * n, 331, -1, 1);
        for (int r = 0; r < n; r++)
            for (int c = 0; c < n; c++) aw[c * n + r] = a[r * n + c];
        uint64_t da = eh_buf(h, a, 4 * n * n), dat = eh_zero(h, 4 * n * n);
        EH_RUN(h, "cp_async_asm_transpose64", D2(2, 2), D1(256), "ppi", da, dat, n);
        eh_read(h, dat, at, 4 * n * n);
        eh_expect_f32(at, aw, n * n, 0, 0, "cp_async_asm_transpose64");
        free(in); free(out); free(w); free(a); free(at); free(aw);
        eh_close(h);
    }
}

/* ---- atomics ------------------------------------------------------------------------------------------------ */
Test(emu_corpus, atomic_cas_loop)
{
    FOR_ARCH(arch) {
        eh *h = eh_open(eh_corpus(arch, "atomic_cas_loop"), NULL);
        int n = 300;
        float *x = ALLOC(float, n), r = -100.0f, wmax = -100.0f;
        eh_fill_f32(x, n, 340, -50, 50);
        for (int i = 0; i < n; i++) if (x[i] > wmax) wmax = x[i];
        uint64_t dx = eh_buf(h, x, 4 * n), dr = eh_buf(h, &r, 4);
        EH_RUN(h, "cas_float_max", D1(3), D1(128), "ppi", dx, dr, n);
        eh_read(h, dr, &r, 4);
        cr_assert_eq(r, wmax);
        double *xd = ALLOC(double, n), prod = 1.0, wp = 1.0;
        eh_fill_f64(xd, n, 341, 0.99, 1.01);
        for (int i = 0; i < n; i++) wp *= xd[i];
        uint64_t dxd = eh_buf(h, xd, 8 * n), dpr = eh_buf(h, &prod, 8);
        EH_RUN(h, "cas_double_product", D1(3), D1(128), "ppi", dxd, dpr, n);
        eh_read(h, dpr, &prod, 8);
        cr_assert(fabs(prod - wp) <= 1e-13 * fabs(wp), "product %.17g want %.17g", prod, wp); /* order of products */
        /* spin lock: every block appends its sum once */
        int G = 4, B = 64;
        int32_t *in = ALLOC(int32_t, G * B), lock = 0, log[4], len = 0, wsum[4];
        eh_fill_i32(in, G * B, 342, -100, 100);
        for (int b = 0; b < G; b++) { wsum[b] = 0; for (int t = 0; t < B; t++) wsum[b] += in[b * B + t]; }
        uint64_t din = eh_buf(h, in, 4 * G * B), dl = eh_buf(h, &lock, 4), dlog = eh_zero(h, 16), dlen = eh_zero(h, 4);
        EH_RUN(h, "spinlock_append", D1(G), D1(B), "pppp", din, dl, dlog, dlen);
        eh_read(h, dlen, &len, 4);
        eh_read(h, dlog, log, 16);
        eh_read(h, dl, &lock, 4);
        cr_assert_eq(len, G);
        cr_assert_eq(lock, 0);
        qsort(log, 4, 4, cmp_i32);
        qsort(wsum, 4, 4, cmp_i32);
        eh_expect_i32(log, wsum, 4, "spinlock_append");
        /* one warp: the atomics of one instruction apply in lane order */
        uint32_t ring[2] = {0, 0}, bits[17], wbits[17] = {0};
        for (int k = 0; k < 17; k++) bits[k] = k >= 8 && k < 16 ? 0xffffffffu : 0;
        memcpy(wbits, bits, sizeof bits);
        float *v = ALLOC(float, 32), last = 0;
        int32_t sys = 5;
        eh_fill_f32(v, 32, 343, 0, 1);
        uint32_t r0 = 0, r1 = 0;
        for (int i = 0; i < 32; i++) {
            uint32_t slot = r0;
            r0 = r0 >= 63 ? 0 : r0 + 1;
            r1 = (r1 == 0 || r1 > 63) ? 63 : r1 - 1;
            wbits[slot & 7] |= 1u << (i & 31);
            wbits[8 + (slot & 7)] &= ~(1u << (i & 31));
            wbits[16] ^= (uint32_t)i;
        }
        uint64_t dring = eh_buf(h, ring, 8), dbits = eh_buf(h, bits, sizeof bits), dlast = eh_buf(h, &last, 4);
        uint64_t dsys = eh_buf(h, &sys, 4), dv = eh_buf(h, v, 128);
        EH_RUN(h, "misc_atomics", D1(1), D1(32), "pppppi", dring, dbits, dlast, dsys, dv, 32);
        eh_read(h, dring, ring, 8);
        eh_read(h, dbits, bits, sizeof bits);
        eh_read(h, dlast, &last, 4);
        eh_read(h, dsys, &sys, 4);
        cr_assert_eq(ring[0], r0);
        cr_assert_eq(ring[1], r1);
        eh_expect_i32((int32_t *)bits, (int32_t *)wbits, 17, "misc_atomics bits");
        cr_assert_eq(last, v[31]);
        cr_assert_eq(sys, 37);
        free(x); free(xd); free(in); free(v);
        eh_close(h);
    }
}

/* ---- cluster kernels: the sm_75/sm_80 fallbacks run; sm_90 needs clusters ---------------------------------- */
Test(emu_corpus, cluster_fallbacks)
{
    for (int a = 0; a < 2; a++) {
        eh *h = eh_open(eh_corpus(eh_arches[a], "cluster_sm90"), NULL);
        int n = 500;
        int32_t *in = ALLOC(int32_t, n), bins[128], bw[128] = {0};
        eh_fill_i32(in, n, 350, 0, 100000);
        for (int i = 0; i < n; i++) bw[in[i] & 127]++;
        uint64_t din = eh_buf(h, in, 4 * n), db = eh_zero(h, 512);
        EH_RUN(h, "cluster_histogram", D1(2), D1(128), "ppi", din, db, n);
        eh_read(h, db, bins, 512);
        eh_expect_i32(bins, bw, 128, "cluster_histogram");
        float *d = ALLOC(float, 256), *dw = ALLOC(float, 256);
        eh_fill_f32(d, 256, 351, -1, 1);
        for (int b = 0; b < 2; b++)
            for (int t = 0; t < 128; t++) dw[b * 128 + t] = 0.5f * (d[b * 128 + t] + d[b * 128 + (t + 1) % 128]);
        uint64_t dd = eh_buf(h, d, 1024);
        EH_RUN(h, "cluster_neighbor_exchange", D1(2), D1(128), "p", dd);
        eh_read(h, dd, d, 1024);
        eh_expect_f32(d, dw, 256, 0, 0, "cluster_neighbor_exchange");
        free(in); free(d); free(dw);
        eh_close(h);
    }
}
