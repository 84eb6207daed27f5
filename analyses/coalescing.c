/* The warp access model (coalescing.h). */
#include <stdlib.h>
#include <string.h>
#include "coalescing.h"
#include "lane_eval.h"
#include "semantics.h"
#include "single_thread.h"

const char *coal_pattern_name(enum coal_pattern p)
{
    static const char *const n[] = {"uniform", "unit_stride", "constant_stride", "piecewise",
                                    "symbolic_stride", "irregular", "single_thread", "bounded"};
    return p <= COAL_P_BOUNDED ? n[p] : "?";
}

const char *coal_kind_name(enum coal_kind k)
{
    return k == COAL_LOAD ? "load" : k == COAL_STORE ? "store" : "atomic";
}

const char *coal_hint_kind_name(enum coal_hint_kind k)
{
    return k == COAL_HINT_SWAP_XY ? "swap_xy" : k == COAL_HINT_LOOP_TO_LANES ? "loop_to_lanes" : NULL;
}

static enum coal_vrule rule_of(const coal_access *x)
{
    if (x->space == COAL_SHARED) return COAL_V_BANK_CONFLICT;
    if (x->misaligned && x->pattern != COAL_P_SYMBOLIC && x->pattern != COAL_P_IRREGULAR && x->pattern != COAL_P_BOUNDED &&
        x->sectors_aligned <= (int32_t)x->ideal)
        return COAL_V_MISALIGNED;
    return COAL_V_UNCOALESCED;
}

const char *coal_rule(const coal_access *x) { return coal_vrule_name(rule_of(x)); }

const char *coal_vrule_name(enum coal_vrule r)
{
    return r == COAL_V_UNCOALESCED ? "uncoalesced" : r == COAL_V_MISALIGNED ? "misaligned" : "bank-conflict";
}

/* What an access whose sectors the model cannot count exactly depends on. */
static enum coal_dep pattern_dep(const coal_access *a)
{
    switch (a->pattern) {
    case COAL_P_SYMBOLIC:
        return a->sym_named ? COAL_DEP_SYM_STRIDE
               : a->lane_eval ? COAL_DEP_GROUPS
               : a->why_stmt != UINT32_MAX ? COAL_DEP_LOADED_STRIDE
                                           : COAL_DEP_STRIDE;
    case COAL_P_IRREGULAR: return a->why_stmt != UINT32_MAX ? COAL_DEP_LOADED_ADDR : COAL_DEP_ADDR;
    case COAL_P_BOUNDED: return COAL_DEP_WINDOW;
    default: return COAL_DEP_LANES;
    }
}

static enum coal_dep align_dep(const coal_access *a)
{
    return a->align_dep == COAL_ALIGN_ROWS ? COAL_DEP_ROWS : COAL_DEP_ALIGN;
}

bool coal_verdict_of(const coal_access *a, coal_verdict *v)
{
    *v = (coal_verdict){0};
    v->sectors = coal_current_sectors(a);
    v->ideal = a->ideal;
    int64_t ex;
    if (a->space == COAL_GLOBAL) {
        if (coal_is_finding(a)) {
            v->rule = (uint8_t)rule_of(a);
            ex = (int64_t)v->sectors - (int64_t)a->ideal;
            /* misaligned across a 128-byte line but not one sector more:
             * no sector wasted, unless a worse alignment wastes some */
            if (a->sectors < 0 || ex > 0) {
                if (a->sectors < 0) {
                    v->certainty = COAL_POSSIBLE;
                    v->dep = (uint8_t)pattern_dep(a);
                } else if (a->sectors_lo >= 0 && a->sectors_lo <= (int32_t)a->ideal) {
                    /* clean at the best alignment the PTX allows (sectors_lo:
                     * no warp is worse than ideal at every alignment) */
                    v->certainty = COAL_POSSIBLE;
                    v->dep = (uint8_t)align_dep(a);
                } else v->certainty = COAL_PROVEN;
                v->excess = ex > 0 ? (uint32_t)ex : 1;
                return true;
            }
        }
        /* taken as aligned, but not known to be: a worse alignment costs
         * sectors (the rows of a block narrower than a warp, lane 0 known
         * only modulo 2^k) */
        int32_t at = a->sectors >= 0 ? a->sectors : a->sectors_asm;
        if (a->prefetch || at < 0 || a->sectors_max <= at || a->sectors_max <= (int32_t)a->ideal) return false;
        v->rule = COAL_V_MISALIGNED;
        v->certainty = COAL_POSSIBLE;
        v->dep = (uint8_t)align_dep(a);
        v->by_alignment = true;
        v->sectors = a->sectors_max;
        v->excess = (uint32_t)(a->sectors_max - (at > (int32_t)a->ideal ? at : (int32_t)a->ideal));
        return true;
    }
    if (!coal_is_finding(a)) return false;
    v->rule = COAL_V_BANK_CONFLICT;
    if (a->bank_degree >= 0 && a->wavefronts >= 0) {
        ex = (int64_t)a->wavefronts - (a->ideal_wavefronts > 0 ? a->ideal_wavefronts : 1);
        v->certainty = COAL_PROVEN;
    } else {
        ex = (int64_t)a->bank_degree_max - 1;
        v->certainty = COAL_POSSIBLE;
        v->dep = (uint8_t)(a->bank_cond ? COAL_DEP_BANK_STRIDE : pattern_dep(a));
    }
    v->excess = ex > 0 ? (uint32_t)ex : 1;
    return true;
}

/* ---- counting sectors ------------------------------------------------------ */

static int64_t floor_div(int64_t a, int64_t b) { return a / b - (a % b != 0 && (a < 0) != (b < 0)); }

/* floor(a / 2^s) for either sign of a (the complement keeps >> off
 * negative numbers). */
static int64_t floor_shr(int64_t a, unsigned s) { return a >= 0 ? a >> s : ~(~a >> s); }

static int cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

/* Distinct units of `gran` bytes that [start[i], start[i] + len) touch,
 * counting at most the first WL_LANES * 3 units the lanes name (in lane
 * order): the general case, for count_units. */
static uint32_t count_units_capped(const int64_t *start, uint32_t n, uint32_t len, int64_t gran)
{
    int64_t ids[WL_LANES * 3];
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        int64_t a = floor_div(start[i], gran), b = floor_div(start[i] + (len ? len : 1) - 1, gran);
        for (int64_t u = a; u <= b && k < sizeof ids / sizeof ids[0]; u++) ids[k++] = u;
    }
    qsort(ids, k, sizeof ids[0], cmp_i64);
    uint32_t d = 0;
    for (uint32_t i = 0; i < k; i++)
        if (!i || ids[i] != ids[i - 1]) d++;
    return d;
}

/* Sorts a warp's (at most WL_LANES) values: insertion sort, as lane
 * addresses mostly come in order; this and the linear counts below
 * replaced a qsort per count, half of check's analysis time. */
static void sort_i64(int64_t *v, uint32_t n)
{
    for (uint32_t i = 1; i < n; i++) {
        int64_t x = v[i];
        uint32_t j = i;
        for (; j && v[j - 1] > x; j--) v[j] = v[j - 1];
        v[j] = x;
    }
}

/* Distinct units of `gran` bytes that [start[i], start[i] + len) touch;
 * start sorted.  Each lane's units are an interval whose both ends grow
 * with start, so a lane adds the units past the previous lane's last. */
static uint32_t count_units(const int64_t *start, uint32_t n, uint32_t len, int64_t gran)
{
    /* the units are sectors and lines, powers of two: shifts, not the
     * divisions that were a third of this count's cost */
    unsigned lg = (unsigned)__builtin_ctzll((uint64_t)gran);
    if (gran <= 0 || gran != (int64_t)1 << lg) return count_units_capped(start, n, len, gran);
    uint64_t named = 0, d = 0;
    int64_t prev = 0;
    for (uint32_t i = 0; i < n; i++) {
        int64_t a = floor_shr(start[i], lg), b = floor_shr(start[i] + (len ? len : 1) - 1, lg);
        named += (uint64_t)(b - a) + 1;
        int64_t from = i && prev + 1 > a ? prev + 1 : a;
        if (b >= from) d += (uint64_t)(b - from) + 1;
        if (!i || b > prev) prev = b;
    }
    if (named > WL_LANES * 3) return count_units_capped(start, n, len, gran); /* the cap's count */
    return (uint32_t)d;
}

/* Bytes in the union of [start[i], start[i] + len); start sorted. */
static int64_t union_bytes(const int64_t *s, uint32_t n, uint32_t len)
{
    int64_t total = 0, end = INT64_MIN;
    for (uint32_t i = 0; i < n; i++) {
        int64_t a = s[i], b = s[i] + len;
        if (a < end) a = end;
        if (b > a) total += b - a;
        if (b > end) end = b;
    }
    return total;
}

static uint32_t log2_ceil(uint32_t x)
{
    return x <= 1 ? 0 : 32 - (uint32_t)__builtin_clz(x - 1); /* natural() runs per warp: no loop */
}

/* A correct program's lane 0 is naturally aligned for the access. */
static residue natural(residue r, uint32_t bytes)
{
    uint32_t lb = bytes ? log2_ceil(bytes) : 0;
    if (r.k >= lb) return r;
    return res_make(0, lb);
}

/* The warp's lane addresses, lane 0 at `base` (its known residue; the
 * unknown high bits taken as 0, i.e. aligned as far as not known). */
static void lane_addrs(const wl_warp *w, int64_t base, int64_t *out)
{
    for (uint32_t l = 0; l < w->nlanes; l++) out[l] = base + w->off[l];
}

typedef struct warp_count {
    uint32_t sectors, lines, ideal, sectors0, lines0;
    uint32_t lo, hi; /* sectors at the best and worst offsets of lane 0 that agree with what is known */
} warp_count;

/* One unit count of count_units's, kept lane by lane. */
typedef struct ucount {
    int64_t prev;
    uint64_t d;
} ucount;

static void uc_add(ucount *u, bool first, int64_t a, int64_t b)
{
    int64_t from = !first && u->prev + 1 > a ? u->prev + 1 : a;
    if (b >= from) u->d += (uint64_t)(b - from) + 1;
    if (first || b > u->prev) u->prev = b;
}

/* count_warp's counts for lanes of at most 2 * COAL_SECTOR bytes (so no
 * lane names more than 3 sectors and count_units's cap is never reached),
 * start0 sorted: the sectors and lines of start0 and of start0 moved by r,
 * and the union's bytes, in one walk over the lanes instead of five (they
 * were a twentieth of check on the corpus). */
static void count_all(const int64_t *start0, uint32_t n, uint32_t bytes, int64_t r, warp_count *c)
{
    const unsigned ls = (unsigned)__builtin_ctzll(COAL_SECTOR), ll = (unsigned)__builtin_ctzll(COAL_LINE);
    _Static_assert((COAL_SECTOR & (COAL_SECTOR - 1)) == 0 && (COAL_LINE & (COAL_LINE - 1)) == 0, "units are powers of two");
    ucount s0 = {0, 0}, l0 = {0, 0}, s1 = {0, 0}, l1 = {0, 0};
    bool ms = r % COAL_SECTOR != 0, ml = r % COAL_LINE != 0;
    int64_t len = bytes ? bytes : 1, total = 0, end = INT64_MIN;
    for (uint32_t i = 0; i < n; i++) {
        int64_t a = start0[i], z = a + len - 1;
        uc_add(&s0, !i, floor_shr(a, ls), floor_shr(z, ls));
        uc_add(&l0, !i, floor_shr(a, ll), floor_shr(z, ll));
        if (ms) uc_add(&s1, !i, floor_shr(a + r, ls), floor_shr(z + r, ls));
        if (ml) uc_add(&l1, !i, floor_shr(a + r, ll), floor_shr(z + r, ll));
        int64_t ua = a + r, ub = a + r + bytes; /* union_bytes's */
        if (ua < end) ua = end;
        if (ub > ua) total += ub - ua;
        if (ub > end) end = ub;
    }
    c->sectors0 = (uint32_t)s0.d;
    c->lines0 = (uint32_t)l0.d;
    c->sectors = ms ? (uint32_t)s1.d : c->sectors0;
    c->lines = ml ? (uint32_t)l1.d : c->lines0;
    c->ideal = (uint32_t)((total + COAL_SECTOR - 1) / COAL_SECTOR);
}

/* Sectors of lanes at offsets a (sorted when bytes <= 2 * COAL_SECTOR,
 * count_all's case; else in lane order, count_units_capped's) from their
 * first lane, that lane at o. */
static uint32_t sectors_at(const int64_t *a, uint32_t n, uint32_t bytes, int64_t o)
{
    if (bytes > 2 * COAL_SECTOR) {
        int64_t t[WL_LANES];
        for (uint32_t i = 0; i < n; i++) t[i] = a[i] + o;
        return count_units_capped(t, n, bytes, COAL_SECTOR);
    }
    const unsigned ls = (unsigned)__builtin_ctzll(COAL_SECTOR);
    ucount s = {0, 0};
    int64_t len = bytes ? bytes : 1;
    for (uint32_t i = 0; i < n; i++) uc_add(&s, !i, floor_shr(a[i] + o, ls), floor_shr(a[i] + o + len - 1, ls));
    return (uint32_t)s.d;
}

/* The fewest and most sectors of lanes at offsets a (as sectors_at) over
 * every place of their first lane modulo a sector that agrees with b
 * (known modulo 2^b.k, b.k < 5): the alignments the PTX does not fix.
 * The lanes' bytes are merged into runs first (a warp at unit stride is
 * one run), so each place costs a pass over the runs, not the lanes. */
static void align_range_count(const int64_t *a, uint32_t n, uint32_t bytes, residue b, uint32_t *lo, uint32_t *hi);

/* align_range with the last answer kept: the accesses of a kernel mostly
 * repeat one layout (a warp at unit stride, lane 0 known modulo 4 B),
 * and comparing it is a fraction of counting it again */
static void align_range(const int64_t *a, uint32_t n, uint32_t bytes, residue b, uint32_t *lo, uint32_t *hi)
{
    enum { NLAST = 4 };
    static _Thread_local struct {
        uint32_t n, bytes, lo, hi;
        int64_t r;
        unsigned k;
        int64_t a[WL_LANES];
    } last[NLAST];
    static _Thread_local unsigned next;
    int64_t r = b.r & (((int64_t)1 << b.k) - 1);
    for (unsigned i = 0; i < NLAST; i++)
        if (n == last[i].n && bytes == last[i].bytes && b.k == last[i].k && r == last[i].r &&
            !memcmp(a, last[i].a, n * sizeof *a)) {
            *lo = last[i].lo, *hi = last[i].hi;
            return;
        }
    align_range_count(a, n, bytes, b, lo, hi);
    if (n > WL_LANES || !n) return;
    unsigned i = next++ % NLAST;
    last[i].n = n, last[i].bytes = bytes, last[i].k = b.k, last[i].r = r, last[i].lo = *lo, last[i].hi = *hi;
    memcpy(last[i].a, a, n * sizeof *a);
}

static void align_range_count(const int64_t *a, uint32_t n, uint32_t bytes, residue b, uint32_t *lo, uint32_t *hi)
{
    int64_t step = (int64_t)1 << b.k;
    *lo = UINT32_MAX;
    *hi = 0;
    if (bytes > 2 * COAL_SECTOR) { /* lane order and the cap: count each */
        for (int64_t o = b.r & (step - 1); o < COAL_SECTOR; o += step) {
            uint32_t s = sectors_at(a, n, bytes, o);
            if (s < *lo) *lo = s;
            if (s > *hi) *hi = s;
        }
        return;
    }
    int64_t rs[WL_LANES], re[WL_LANES], len = bytes ? bytes : 1; /* runs [rs, re] of bytes, a sorted */
    uint32_t m = 0;
    const unsigned ls = (unsigned)__builtin_ctzll(COAL_SECTOR);
    int64_t o0 = b.r & (step - 1);
    uint32_t unit = 1; /* lanes len bytes apart (a sorted): one run, no merging */
    while (unit < n && a[unit] - a[unit - 1] == len) unit++;
    if (n && unit == n) {
        int64_t run = a[n - 1] + len - 1 - a[0], t0 = (a[0] + o0) & (step - 1);
        int64_t t1 = t0 + (COAL_SECTOR - 1 - t0) / step * step;
        *lo = (uint32_t)(((t0 + run) >> ls) + 1);
        *hi = (uint32_t)(((t1 + run) >> ls) + 1);
        return;
    }
    /* the common case costs one pass: runs a sector or more apart (no
     * sector shared, whatever the place) that each keep their count at
     * every place (a naturally aligned lane never straddles): then every
     * place counts the same */
    bool fixed = true;
    uint32_t same = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (m && a[i] <= re[m - 1] + 1) {
            if (a[i] + len - 1 > re[m - 1]) re[m - 1] = a[i] + len - 1;
            continue;
        }
        if (m) {
            int64_t run = re[m - 1] - rs[m - 1], t0 = (rs[m - 1] + o0) & (step - 1);
            int64_t t1 = t0 + (COAL_SECTOR - 1 - t0) / step * step;
            fixed = fixed && a[i] - re[m - 1] > COAL_SECTOR && ((t0 + run) >> ls) == ((t1 + run) >> ls);
            same += (uint32_t)((t0 + run) >> ls) + 1;
        }
        rs[m] = a[i], re[m] = a[i] + len - 1, m++;
    }
    if (fixed && m > 1) {
        int64_t run = re[m - 1] - rs[m - 1], t0 = (rs[m - 1] + o0) & (step - 1);
        int64_t t1 = t0 + (COAL_SECTOR - 1 - t0) / step * step;
        if (((t0 + run) >> ls) == ((t1 + run) >> ls)) {
            *lo = *hi = same + (uint32_t)((t0 + run) >> ls) + 1;
            return;
        }
    }
    if (m == 1) {
        /* one run of len bytes starting t into a sector takes
         * floor((t + len - 1) / 32) + 1 sectors, growing with t, and t
         * takes every value ≡ rs + o0 (mod step) below 32 */
        int64_t run = re[0] - rs[0], t0 = (rs[0] + o0) & (step - 1), t1 = t0 + (COAL_SECTOR - 1 - t0) / step * step;
        *lo = (uint32_t)(((t0 + run) >> ls) + 1);
        *hi = (uint32_t)(((t1 + run) >> ls) + 1);
        return;
    }
    for (int64_t o = o0; o < COAL_SECTOR; o += step) {
        uint32_t s = 0;
        int64_t prev = 0;
        for (uint32_t i = 0; i < m; i++) {
            int64_t f = floor_shr(rs[i] + o, ls), l = floor_shr(re[i] + o, ls);
            s += (uint32_t)(l - f + 1) - (i && f == prev);
            prev = l;
        }
        if (s < *lo) *lo = s;
        if (s > *hi) *hi = s;
    }
}

static void count_warp(const wl_warp *w, residue base, uint32_t bytes, bool prefetch, warp_count *c)
{
    int64_t a[WL_LANES], a0[WL_LANES];
    lane_addrs(w, 0, a0);
    if (!prefetch && bytes > 2 * COAL_SECTOR) {
        /* lanes naming more than 3 sectors each may reach the count's cap,
         * which keeps the units of the first lanes in lane order */
        lane_addrs(w, base.r, a);
        c->sectors = count_units_capped(a, w->nlanes, bytes, COAL_SECTOR);
        c->lines = count_units_capped(a, w->nlanes, bytes, COAL_LINE);
        c->sectors0 = count_units_capped(a0, w->nlanes, bytes, COAL_SECTOR);
        c->lines0 = count_units_capped(a0, w->nlanes, bytes, COAL_LINE);
        sort_i64(a, w->nlanes);
        c->ideal = (uint32_t)((union_bytes(a, w->nlanes, bytes) + COAL_SECTOR - 1) / COAL_SECTOR);
        c->lo = c->hi = c->sectors;
        if (base.k < 5) align_range(a0, w->nlanes, bytes, base, &c->lo, &c->hi);
        return;
    }
    sort_i64(a0, w->nlanes);
    if (prefetch) { /* each lane brings in its 128-byte line: 4 sectors */
        for (uint32_t l = 0; l < w->nlanes; l++) a[l] = base.r + a0[l];
        c->lines0 = count_units(a0, w->nlanes, 1, COAL_LINE);
        c->lines = base.r % COAL_LINE ? count_units(a, w->nlanes, 1, COAL_LINE) : c->lines0; /* see below */
        c->sectors = 4 * c->lines;
        c->sectors0 = 4 * c->lines0;
        c->ideal = 4;
        c->lo = c->hi = c->sectors;
        return;
    }
    /* a is a0 moved by base.r: by a multiple of the unit, the same count
     * (lane 0 often sits at a known multiple of 128) */
    count_all(a0, w->nlanes, bytes, base.r, c);
    c->lo = c->hi = c->sectors;
    if (base.k < 5) align_range(a0, w->nlanes, bytes, base, &c->lo, &c->hi);
}

/* Worst case over the groups of a symbolic warp: groups far apart (no
 * sector shared).  max: each group aligned as far as known (its first
 * lane at lane 0's known residue); worst: each group at the worst place
 * that agrees with what is known of it, lane 0's group from base, every
 * other from base and its known offset modulo 2^kg (the groups' distance,
 * an unknown integer times a known multiple of 2^kg).  *rows: another
 * group's place made it worse. */
static void count_groups(const wl_warp *w, residue base, uint32_t bytes, bool prefetch, unsigned kg, uint32_t *max,
                         uint32_t *ideal, uint32_t *worst, bool *rows)
{
    *max = *worst = 0;
    int64_t bsum = 0;
    unsigned lb = bytes ? log2_ceil(bytes) : 0;
    for (uint32_t g = 0; g < w->ngroups; g++) {
        int64_t a[WL_LANES], rel[WL_LANES];
        uint32_t n = 0, l0 = 0;
        int64_t first = 0;
        for (uint32_t l = 0; l < w->nlanes; l++)
            if (w->group[l] == g) {
                if (!n) first = w->off[l], l0 = l;
                a[n++] = (int64_t)base.r + w->off[l] - first;
            }
        if (!n) continue;
        uint32_t cnt;
        if (!prefetch && bytes > 2 * COAL_SECTOR) { /* see count_warp */
            cnt = count_units_capped(a, n, bytes, COAL_SECTOR);
            sort_i64(a, n);
            bsum += union_bytes(a, n, bytes);
        } else {
            sort_i64(a, n);
            if (prefetch) {
                cnt = 4 * count_units(a, n, 1, COAL_LINE);
            } else {
                cnt = count_units(a, n, bytes, COAL_SECTOR);
                bsum += union_bytes(a, n, bytes);
            }
        }
        *max += cnt;
        uint32_t lo, hi = cnt;
        /* a lone lane of a power of two bytes up to a sector is naturally
         * aligned: it never straddles (an irregular access's 32 groups) */
        if (prefetch || (n == 1 && bytes <= COAL_SECTOR && !(bytes & (bytes - 1)))) {
            *worst += hi;
            continue;
        }
        residue at = base;
        if (l0) {
            at = res_make((int64_t)base.r + first, base.k < kg ? base.k : kg);
            if (at.k < lb) at = res_make(0, lb); /* natural() */
        }
        if (at.k < 5) {
            /* the group's offsets from its first lane: a less lane 0's
             * residue (sorted but for the capped case, as a) */
            if (bytes > 2 * COAL_SECTOR)
                for (uint32_t l = 0, q = 0; l < w->nlanes; l++)
                    if (w->group[l] == g) a[q++] = (int64_t)base.r + w->off[l] - first;
            for (uint32_t q = 0; q < n; q++) rel[q] = a[q] - (int64_t)base.r;
            align_range(rel, n, bytes, at, &lo, &hi);
            if (hi < cnt) hi = cnt;
            if (l0 && hi > cnt) *rows = true;
        }
        *worst += hi;
    }
    *ideal = prefetch ? 4 : (uint32_t)((bsum + COAL_SECTOR - 1) / COAL_SECTOR);
}

/* ---- classification -------------------------------------------------------- */

static void classify_offsets(const wl_result *w, uint32_t bytes, coal_access *x)
{
    /* the same single stride in every warp, or not */
    bool uniform = true, strided = true;
    int64_t s = 0;
    bool have = false;
    for (uint32_t wi = 0; wi < w->nwarps; wi++) {
        const wl_warp *ww = &w->warp[wi];
        if (ww->nlanes < 2) continue;
        int64_t ds = ww->off[1] - ww->off[0];
        if (!have) s = ds, have = true;
        for (uint32_t l = 0; l < ww->nlanes; l++) {
            if (ww->off[l] != 0) uniform = false;
            if (ww->off[l] != s * (int64_t)l) strided = false;
        }
        if (ds != s) strided = false;
    }
    if (uniform) {
        x->pattern = COAL_P_UNIFORM;
        x->has_stride = true;
        x->stride = 0;
    } else if (strided) {
        x->pattern = s == (int64_t)bytes && bytes ? COAL_P_UNIT : COAL_P_STRIDE;
        x->has_stride = true;
        x->stride = s;
    } else x->pattern = COAL_P_PIECEWISE;
}


/* Whether warp wi's lanes are those of warp wi - 1 moved by a multiple of
 * 128 bytes (the same offsets; lane 0's residue, aligned as the models
 * take it, the same modulo 128): sectors, lines and banks (words modulo
 * 32) are then counted the same, and as the worst warp is the first to
 * reach the maximum, the warp can be skipped.  Most blocks' warps are
 * alike. */
static bool same_as_previous(const wl_result *w, uint32_t wi, uint32_t bytes)
{
    if (!wi) return false;
    const wl_warp *a = &w->warp[wi], *b = &w->warp[wi - 1];
    residue ra = natural(a->base, bytes), rb = natural(b->base, bytes);
    /* and as much known of it below a sector: the worst alignment
     * (align_range, only where fewer than 5 bits are known) depends on it */
    return a->nlanes == b->nlanes && (ra.r & 127) == (rb.r & 127) && (ra.k < 5 ? ra.k : 5) == (rb.k < 5 ? rb.k : 5) &&
           !memcmp(a->off, b->off, sizeof a->off[0] * a->nlanes);
}

static void model_exact(const wl_result *w, coal_access *x)
{
    classify_offsets(w, x->bytes, x);
    x->sectors = -1;
    int32_t lo = -1, hi = -1;
    for (uint32_t wi = 0; wi < w->nwarps; wi++) {
        if (same_as_previous(w, wi, x->bytes)) continue;
        residue base = natural(w->warp[wi].base, x->bytes);
        warp_count c;
        count_warp(&w->warp[wi], base, x->bytes, x->prefetch, &c);
        /* the launch has this warp: at least its best, at most its worst */
        if ((int32_t)c.lo > lo) lo = (int32_t)c.lo;
        if ((int32_t)c.hi > hi) { /* the first warp to reach the worst */
            hi = (int32_t)c.hi;
            x->align_base = base;
        }
        if ((int32_t)c.sectors > x->sectors) {
            x->sectors = (int32_t)c.sectors;
            x->lines = (int32_t)c.lines;
            x->ideal = c.ideal;
            x->sectors_aligned = (int32_t)c.sectors0;
            x->lines_aligned = (int32_t)c.lines0;
            x->base = base;
            x->worst_warp = wi;
        }
    }
    x->sectors_asm = x->sectors;
    x->sectors_max = hi > x->sectors ? hi : x->sectors;
    x->sectors_lo = lo;
    x->align_dep = x->sectors_max > x->sectors ? COAL_ALIGN_LANE0 : COAL_ALIGN_NONE;
    x->misaligned = x->sectors > x->sectors_aligned || x->lines > x->lines_aligned;
    x->uncoalesced = x->sectors > (int32_t)x->ideal;
}

/* kg: the groups of a warp are an unknown multiple of 2^kg bytes apart,
 * beyond their known offsets (count_groups). */
static void model_symbolic(const wl_result *w, unsigned kg, coal_access *x)
{
    x->pattern = w->status == WL_POSITION ? COAL_P_IRREGULAR : COAL_P_SYMBOLIC;
    x->sectors = x->lines = -1;
    x->sectors_asm = 0;
    int32_t hi = 0;
    bool rows = false;
    for (uint32_t wi = 0; wi < w->nwarps; wi++) {
        const wl_warp *ww = &w->warp[wi];
        uint32_t mx, ideal, worst;
        if (w->status == WL_POSITION) {
            wl_warp single = *ww;
            for (uint32_t l = 0; l < single.nlanes; l++) single.group[l] = (uint8_t)l;
            single.ngroups = single.nlanes;
            count_groups(&single, natural(res_make(0, 0), x->bytes), x->bytes, x->prefetch, 0, &mx, &ideal, &worst,
                         &rows);
        } else count_groups(ww, natural(ww->base, x->bytes), x->bytes, x->prefetch, kg, &mx, &ideal, &worst, &rows);
        if ((int32_t)mx > x->sectors_asm) {
            x->sectors_asm = (int32_t)mx;
            x->ideal = ideal;
            x->worst_warp = wi;
        }
        if ((int32_t)worst > hi) {
            hi = (int32_t)worst;
            x->align_base = natural(ww->base, x->bytes);
        }
    }
    x->sectors_max = hi > x->sectors_asm ? hi : x->sectors_asm;
    x->align_dep = x->sectors_max == x->sectors_asm ? COAL_ALIGN_NONE : rows ? COAL_ALIGN_ROWS : COAL_ALIGN_LANE0;
    x->uncoalesced = x->sectors_asm > (int32_t)x->ideal;
}

/* Nothing known of the lanes' addresses: each lane on its own. */
static void model_irregular(coal_access *x)
{
    wl_result *w = malloc(sizeof *w); /* one warp read: only it cleared */
    if (!w) abort();
    w->status = WL_POSITION;
    w->sym_monos = w->pos_monos = 0;
    w->nwarps = 1;
    memset(&w->warp[0], 0, sizeof w->warp[0]);
    w->warp[0].nlanes = WL_LANES;
    model_symbolic(w, 0, x);
    free(w);
}

/* Lanes known only within intervals (lane_eval's LE_RANGE): every lane's
 * bytes lie in [base + min lo, base + max hi + bytes), so the warp touches
 * at most the sectors of that window, placed as far as lane 0's residue is
 * known (unknown bits aligned, the usual assumption).  Exact when the
 * window is inside one sector: every lane touches that sector.  The ideal
 * is what one lane's bytes need (all lanes may share one address). */
static void model_bounded(const le_result *le, residue off, coal_access *x)
{
    x->pattern = COAL_P_BOUNDED;
    x->sectors = x->sectors_max = x->lines = -1;
    x->ideal = x->prefetch ? 4 : (x->bytes + COAL_SECTOR - 1) / COAL_SECTOR;
    bool one_sector = true, one_line = true;
    int32_t worst = -1; /* the window at the worst place that agrees with its known residue */
    for (uint32_t wi = 0; wi < le->nwarps; wi++) {
        const le_warp *ww = &le->warp[wi];
        if (!ww->nlanes) continue;
        int64_t mn = ww->lo[0], mx = ww->hi[0];
        for (uint32_t l = 0; l < ww->nlanes; l++) {
            if (ww->lo[l] < mn) mn = ww->lo[l];
            if (ww->hi[l] > mx) mx = ww->hi[l];
        }
        /* the window's start is U + mn: its residue, naturally aligned */
        residue b = natural(res_add(res_add(ww->base, off), res_exact(mn)), x->bytes);
        int64_t start = b.r, len;
        uint32_t sec = UINT32_MAX, lines = UINT32_MAX; /* a huge window: capped below */
        if (!__builtin_sub_overflow(mx, mn, &len) && len < ((int64_t)1 << 24)) {
            len += x->bytes ? x->bytes : 1;
            sec = x->prefetch ? 4 * count_units(&start, 1, (uint32_t)len, COAL_LINE)
                              : count_units(&start, 1, (uint32_t)len, COAL_SECTOR);
            lines = count_units(&start, 1, (uint32_t)len, COAL_LINE);
            uint32_t lo, hi = sec;
            if (!x->prefetch && b.k < 5) align_range(&(int64_t){0}, 1, (uint32_t)len, b, &lo, &hi);
            if ((int32_t)hi > worst) {
                worst = (int32_t)hi;
                x->align_base = b;
            }
        } else len = INT64_MAX, worst = INT32_MAX;
        if (!x->prefetch && sec > 1) one_sector = false;
        if (lines > 1) one_line = false;
        if (sec > (uint32_t)INT32_MAX) sec = INT32_MAX;
        if ((int32_t)sec > x->sectors_max) {
            x->sectors_max = (int32_t)sec;
            x->window = len;
            x->base = b;
            x->worst_warp = wi;
        }
    }
    /* never above one sector per lane's bytes, the irregular bound */
    uint32_t per_lane = x->prefetch ? 4 : count_units(&(int64_t){0}, 1, x->bytes, COAL_SECTOR);
    uint32_t cap = 0;
    for (uint32_t wi = 0; wi < le->nwarps; wi++)
        if (le->warp[wi].nlanes * per_lane > cap) cap = le->warp[wi].nlanes * per_lane;
    if (x->sectors_max > (int32_t)cap) x->sectors_max = (int32_t)cap;
    if (worst > (int32_t)cap) worst = (int32_t)cap;
    x->sectors_asm = x->sectors_max;
    if (worst > x->sectors_max) {
        x->sectors_max = worst;
        x->align_dep = COAL_ALIGN_LANE0;
        one_sector = false;
    }
    if (one_sector && !x->prefetch) x->sectors = x->sectors_max;
    if (x->prefetch && one_line) x->sectors = 4;
    if (one_line) x->lines = 1;
    x->uncoalesced = x->sectors_asm > (int32_t)x->ideal;
}

/* Lane-exact evaluation of an address the affine polynomial calls
 * irregular.  True when it modelled x. */
static bool model_lane_eval(coal_func *f, const ptx_operand *ad, coal_access *x, wl_result *w)
{
    if (x->addr_value == SSA_NONE) return false;
    le_result *le = malloc(sizeof *le);
    wl_result *lw = malloc(sizeof *lw);
    if (!le || !lw) abort();
    enum le_status s = lane_eval(f->chain, x->addr_value, le, lw);
    residue off = res_exact(ad->v); /* [%r + off] */
    if (s == LE_EXACT || s == LE_GROUPS) {
        for (uint32_t wi = 0; wi < lw->nwarps; wi++) lw->warp[wi].base = res_add(lw->warp[wi].base, off);
        *w = *lw;
        if (s == LE_EXACT) model_exact(w, x);
        else {
            model_symbolic(w, 0, x);
            x->ngroups = w->warp[x->worst_warp].ngroups;
        }
    } else if (s == LE_RANGE) {
        model_bounded(le, off, x);
        /* shared: distinct words within 128 bytes are in distinct banks */
        if (x->space == COAL_SHARED && x->kind != COAL_ATOMIC && x->window <= BANK_COUNT * BANK_WORD) {
            int64_t a[WL_LANES] = {0};
            bank_result b;
            bank_conflicts(a, WL_LANES, x->bytes, &b);
            x->bank_degree = x->bank_degree_max = 1;
            x->wavefronts = x->ideal_wavefronts = (int32_t)b.phases;
        }
    }
    x->lane_eval = s != LE_FAIL;
    if (x->lane_eval) x->nwarps = le->nwarps; /* warps, or the cases of a warp's unknown bits */
    free(le);
    free(lw);
    return s != LE_FAIL;
}

/* ---- remapping hints -------------------------------------------------------- */

/* Sectors per request of a full warp whose lanes are `stride` bytes apart,
 * lane 0 on a 128-byte boundary: the cost of a remapping, by the model of
 * count_warp.  -1 when the offsets overflow. */
static int32_t what_if_stride(int64_t stride, uint32_t bytes)
{
    aff p;
    aff_const(&p, DIV_NCOEF2, 0);
    p.c[DIV_C_X] = stride;
    warp_shape sh = {{0, 0, 0}};
    wl_result *w = malloc(sizeof *w); /* wl_eval sets what it gives */
    if (!w) abort();
    wl_eval(&p, &sh, res_exact(0), w);
    int32_t n = -1;
    if (w->status == WL_EXACT) {
        warp_count c;
        count_warp(&w->warp[0], natural(res_exact(0), bytes), bytes, false, &c);
        n = (int32_t)c.sectors;
    }
    free(w);
    return n;
}

/* The remappings of an uncoalesced global access, each costed with the
 * sector model, and the best one that is strictly cheaper than the access
 * (coal_current_sectors):
 *   - tid.y in tid.x's place, when the stride along tid.y is known: Juravle's
 *     what-if remapping (2011, section 5.1), GPUDrano's Fan2 fix;
 *   - the loop's iterations given to neighbouring threads, when the address
 *     is a loop's induction pointer: lanes `step` bytes apart (GPUDrano).
 * Prefetches get none. */
static void remap_hints(coal_access *x)
{
    x->swap_xy_sectors = x->loop_sectors = x->hint_sectors = -1;
    x->hint_kind = COAL_HINT_NONE;
    if (x->prefetch) return;
    if ((x->dim_known >> DIV_C_Y & 1) && x->dim_stride[DIV_C_Y] != 0)
        x->swap_xy_sectors = what_if_stride(x->dim_stride[DIV_C_Y], x->bytes);
    if (x->has_step && x->step != 0) x->loop_sectors = what_if_stride(x->step, x->bytes);
    int32_t now = coal_current_sectors(x);
    if (x->swap_xy_sectors >= 0 && x->swap_xy_sectors < now) {
        x->hint_kind = COAL_HINT_SWAP_XY;
        x->hint_sectors = x->swap_xy_sectors;
    }
    if (x->loop_sectors >= 0 && x->loop_sectors < now &&
        (x->hint_kind == COAL_HINT_NONE || x->loop_sectors < x->hint_sectors)) {
        x->hint_kind = COAL_HINT_LOOP_TO_LANES;
        x->hint_sectors = x->loop_sectors;
    }
}

/* ---- finding the accesses -------------------------------------------------- */

static bool shared_space(unsigned sp) { return sp == PTX_SP_SHARED || sp == PTX_SP_SHARED_CTA; }

/* The shared accesses the bank model covers: loads, stores and atomics
 * (atom, red), one address per lane. */
static bool shared_op(const ptx_inst *in)
{
    return in->op == PTX_OPC_LD || in->op == PTX_OPC_ST || in->op == PTX_OPC_ATOM || in->op == PTX_OPC_RED;
}

/* Which of the instruction's operands is a global (or shared) access, if any. */
static bool pick_access(const coal_func *f, uint32_t st, const ptx_inst *in, const ptx_inst_sem *sem,
                        coal_access *x, uint32_t *opd, bool *unproven)
{
    *unproven = false;
    if (!(sem->flags & (PTX_SEM_LOAD | PTX_SEM_STORE | PTX_SEM_PREFETCH)) || (sem->flags & PTX_SEM_UNKNOWN) ||
        (sem->flags & PTX_SEM_CALL) || (sem->flags & PTX_SEM_COLLECTIVE))
        return false;
    bool copy = in->op == PTX_OPC_CP;
    uint32_t o = copy ? sem->src_addr_opd : sem->addr_opd;
    unsigned sp = copy ? sem->src_space : sem->space;
    if (o == PTX_SEM_NO_OPD || o >= in->nopd || in->opd[o].kind != PTX_O_ADDR || in->opd[o].n != 1) return false;
    if (copy && ptx_inst_has_mod(in, ".bulk")) return false; /* one thread moves a block: not a lane access */
    bool prefetch = (sem->flags & PTX_SEM_PREFETCH) != 0;
    if (!prefetch && !sem->access_bytes) return false;
    if (prefetch && (ptx_inst_has_mod(in, ".tensormap") || in->op == PTX_OPC_CP)) return false;
    x->prefetch = prefetch;
    if (sp == PTX_SP_GLOBAL) {
        x->space = COAL_GLOBAL;
        x->explicit_space = true;
        x->prov = AP_GLOBAL;
    } else if (shared_space(sp) && !copy && !prefetch && shared_op(in)) {
        x->space = COAL_SHARED;
        x->explicit_space = true;
        x->prov = AP_SHARED;
    } else if (sp == PTX_SP_NONE) {
        enum addr_prov p = addr_operand_prov(f->chain, st, o);
        x->prov = (uint8_t)p;
        if (p == AP_GLOBAL || p == AP_PARAM64) x->space = COAL_GLOBAL;
        else if (p == AP_SHARED && !copy && !prefetch && shared_op(in))
            x->space = COAL_SHARED;
        else {
            *unproven = p != AP_LOCAL && p != AP_CONST && p != AP_SHARED;
            return false;
        }
    } else return false;
    x->kind = (sem->flags & PTX_SEM_ATOMIC) ? COAL_ATOMIC : (sem->flags & PTX_SEM_STORE) && !copy ? COAL_STORE : COAL_LOAD;
    if (copy) x->kind = COAL_LOAD; /* cp.async reads global memory */
    x->bytes = prefetch ? 0 : sem->access_bytes;
    x->vec = in->vec ? in->vec : 1;
    x->elem_bytes = x->bytes / x->vec;
    *opd = o;
    return true;
}

/* What is known of U, lane 0's value, of address value v = U + g(lane):
 * the warp form knows nothing of where allocations start, so a sum whose
 * uniform side is a pointer takes that pointer's alignment (addr_chain.h:
 * kernel pointer parameters are 256-byte aligned) plus the other side's U. */
static residue warp_base(const coal_func *f, uint32_t v, unsigned depth)
{
    wform wf;
    if (v == SSA_NONE || !div_warp_form(f->r, v, &wf) || (wf.kind != WF_UNI && wf.kind != WF_LANE)) return res_unknown();
    residue own = res_make((int64_t)wf.r, wf.k);
    if (wf.kind == WF_UNI && f->chain->prov[v] >= AP_PARAM64 && f->chain->prov[v] <= AP_CONST)
        return f->chain->res[v].k > own.k ? f->chain->res[v] : own;
    uint32_t st;
    const ptx_inst *in = addr_def(f->chain, v, &st);
    if (!in || depth > 4) return own;
    if (in->op == PTX_OPC_CVTA && in->nopd == 2 && in->opd[1].kind == PTX_O_REG)
        return warp_base(f, ssa_use_value(f->pf->ssa, st, 1), depth + 1);
    if (in->op != PTX_OPC_ADD || in->nopd != 3 || in->opd[1].kind != PTX_O_REG) return own;
    residue a = warp_base(f, ssa_use_value(f->pf->ssa, st, 1), depth + 1);
    residue b = in->opd[2].kind == PTX_O_IMM ? res_exact(in->opd[2].v)
                : in->opd[2].kind == PTX_O_REG ? warp_base(f, ssa_use_value(f->pf->ssa, st, 2), depth + 1)
                : res_unknown();
    residue sum = res_add(a, b);
    return sum.k > own.k ? sum : own;
}

/* The lanes of the address from its warp form (warp_form.h), when the
 * polynomial does not know them: v = U + g(lane) in every warp, so the
 * offsets from lane 0 are g, and lane 0 sits at U.  The warps and their
 * active lanes come from the block shape. */
static bool from_warp_form(const coal_func *f, const coal_access *x, const ptx_operand *ad, residue c0, wl_result *w)
{
    wform wf;
    if (x->addr_value == SSA_NONE || !div_warp_form(f->r, x->addr_value, &wf)) return false;
    if (wf.kind != WF_LANE && wf.kind != WF_UNI) return false;
    aff z;
    aff_const(&z, f->r->ncoef, 0);
    wl_eval(&z, &f->shape, c0, w);
    residue base = res_add(warp_base(f, x->addr_value, 0), res_exact(ad->v)); /* [%r + off] */
    for (uint32_t wi = 0; wi < w->nwarps; wi++) {
        wl_warp *wp = &w->warp[wi];
        wp->base = base;
        wp->ngroups = 1;
        for (unsigned l = 0; l < WL_LANES; l++) {
            wp->off[l] = wf.kind == WF_LANE ? wf.g[l] : 0;
            wp->group[l] = 0;
        }
    }
    w->status = WL_EXACT;
    return true;
}

/* ---- banks ---------------------------------------------------------------- */

/* The worst warp's bank degree of the exact lanes w (bank_conflicts.h;
 * atomics not broadcast): bank_degree_max, wavefronts, ideal_wavefronts,
 * worst_warp, bank_serialised. */
static void bank_warps(const wl_result *w, coal_access *x)
{
    bool atomic = x->kind == COAL_ATOMIC;
    x->bank_degree_max = 0;
    for (uint32_t wi = 0; wi < w->nwarps; wi++) {
        if (same_as_previous(w, wi, x->bytes)) continue;
        int64_t a[WL_LANES];
        lane_addrs(&w->warp[wi], natural(w->warp[wi].base, x->bytes).r, a);
        bank_result b;
        if (atomic) bank_conflicts_atomic(a, w->warp[wi].nlanes, x->bytes, &b);
        else bank_conflicts(a, w->warp[wi].nlanes, x->bytes, &b);
        if ((int32_t)b.degree > x->bank_degree_max) {
            x->bank_degree_max = (int32_t)b.degree;
            x->wavefronts = (int32_t)b.wavefronts;
            x->ideal_wavefronts = (int32_t)b.phases;
            x->worst_warp = wi;
            if (atomic) {
                bank_result l;
                bank_conflicts(a, w->warp[wi].nlanes, x->bytes, &l);
                x->bank_serialised = b.degree > l.degree;
            }
        }
    }
}

static unsigned tz_class(int64_t s)
{
    if (s == 0) return COAL_TZ_CLASSES - 1;
    unsigned t = (unsigned)__builtin_ctzll((unsigned long long)s);
    return t < COAL_TZ_CLASSES - 1 ? t : COAL_TZ_CLASSES - 1;
}

/* A shared access whose lane stride is sym_k·S, S a named uniform unknown
 * (a kernel parameter, ...): the bank degree for every S in [-255, 255],
 * the worst of each class of S's trailing zeros (COAL_TZ_CLASSES).  Banks
 * are words modulo 32, i.e. bytes modulo 128, so S modulo 128 gives the
 * banks; S up to 255 also separates the lanes that only a small S puts on
 * one word (S = 0: one address, a broadcast, or 32 serialised atomics).
 * With the same degree in every class the degree is exact. */
static void bank_by_stride(const coal_func *f, residue c0, const wl_result *w0, coal_access *x)
{
    if (w0->sym_monos != (uint16_t)(1u << x->sym_mono)) return; /* another unknown varies */
    wl_result *w = malloc(sizeof *w);
    /* the 511 strides' lanes from two evaluations where they are linear
     * in S (warp_lanes.h): a wl_eval each was 5% of check on the corpus */
    wl_line *line = malloc(sizeof *line);
    if (!w || !line) abort();
    bool lin = wl_line_init(&x->poly, x->sym_mono, x->sym_k, 255, &f->shape, c0, line);
    coal_access t = *x;
    int32_t deg[COAL_TZ_CLASSES] = {0}, wavefronts = 0, phases = 0;
    bool ok = true;
    for (int64_t s = -255; s <= 255 && ok; s++) {
        if (lin) wl_line_at(line, s, w);
        else {
            aff p = x->poly;
            ok = !__builtin_mul_overflow(x->sym_k, s, &p.c[x->sym_mono]);
            p.bot &= (uint16_t)~(1u << x->sym_mono);
            if (!ok) break;
            wl_eval(&p, &f->shape, c0, w);
        }
        if (w->status != WL_EXACT) {
            ok = false;
            break;
        }
        bank_warps(w, &t);
        unsigned k = tz_class(s);
        if (t.bank_degree_max > deg[k]) deg[k] = t.bank_degree_max;
        if (t.wavefronts > wavefronts) wavefronts = t.wavefronts;
        phases = t.ideal_wavefronts;
    }
    free(line);
    free(w);
    if (!ok) return;
    bool same = true;
    x->bank_degree_max = 0;
    for (unsigned k = 0; k < COAL_TZ_CLASSES; k++) {
        x->bank_by_tz[k] = (uint8_t)deg[k];
        if (deg[k] > x->bank_degree_max) x->bank_degree_max = deg[k];
        if (deg[k] != deg[0]) same = false;
    }
    x->ideal_wavefronts = phases;
    if (same) { /* whatever S is */
        x->bank_degree = x->bank_degree_max;
        x->wavefronts = wavefronts;
    } else x->bank_cond = true;
}

/* A load (statement) whose result v's value depends on, within a few
 * definitions (breadth-first over operands), or UINT32_MAX: what an
 * address depends on, for the report. */
static uint32_t loaded_from(const addr_chain *c, uint32_t v)
{
    uint32_t queue[64], n = 0, head = 0;
    if (v == SSA_NONE) return UINT32_MAX;
    queue[n++] = v;
    while (head < n) {
        uint32_t w = queue[head++], st;
        const ptx_inst *in = addr_def(c, w, &st);
        if (!in) continue;
        if (in->op == PTX_OPC_LD || in->op == PTX_OPC_LDU || in->op == PTX_OPC_ATOM) {
            if (in->space != PTX_SP_PARAM && in->space != PTX_SP_PARAM_ENTRY) return st;
            continue;
        }
        for (uint32_t i = 1; i < in->nopd && n < 64; i++) {
            uint32_t u = ssa_use_value(c->pf->ssa, st, i);
            if (u != SSA_NONE) queue[n++] = u;
        }
    }
    return UINT32_MAX;
}

static void analyse_access(coal_func *f, const st_regions *sr, uint32_t st, uint32_t o, coal_access *x, wl_result *w)
{
    const addr_chain *c = f->chain;
    const ptx_operand *ad = &x->in->opd[o];
    unsigned n = f->r->ncoef;
    x->why_stmt = UINT32_MAX;
    x->sectors = x->sectors_max = x->lines = -1;
    x->sectors_lo = x->sectors_asm = -1;
    x->sectors_aligned = x->lines_aligned = -1;
    x->bank_degree = x->bank_degree_max = x->wavefronts = x->ideal_wavefronts = -1;
    x->swap_xy_sectors = x->loop_sectors = x->hint_sectors = -1;
    x->addr_value = SSA_NONE;
    x->nwarps = 1;
    const ptx_operand *e = &ad->p.elems[0];
    if (e->kind == PTX_O_REG) {
        x->addr_value = ssa_use_value(f->pf->ssa, st, o);
        if (x->addr_value == SSA_NONE) aff_bottom(&x->poly, n);
        else aff_of_result(c->r, x->addr_value, &x->poly);
    } else aff_const(&x->poly, n, 0); /* a variable or an absolute address: the same in every lane */
    residue c0 = addr_operand_residue(c, st, o);
    for (unsigned d = DIV_C_X; d <= DIV_C_LANE; d++)
        if (!(x->poly.bot >> d & 1)) {
            x->dim_known |= (uint8_t)(1u << d);
            x->dim_stride[d] = x->poly.c[d];
        }
    if (x->addr_value != SSA_NONE) x->has_step = addr_loop_step(c, x->addr_value, &x->step, &x->step_stmt);

    uint32_t why;
    if (st_single(sr, st, &why)) {
        x->pattern = COAL_P_SINGLE;
        x->why_stmt = why;
        x->sectors = x->sectors_max = (int32_t)(x->prefetch ? 4 : count_units(&(int64_t){0}, 1, x->bytes, COAL_SECTOR));
        x->lines = 1;
        x->ideal = (uint32_t)x->sectors;
        x->sectors_asm = x->sectors_lo = x->sectors;
        if (x->space == COAL_SHARED) x->bank_degree = x->bank_degree_max = x->wavefronts = x->ideal_wavefronts = 1;
        return;
    }
    /* a polynomial whose terms vanish in lane 0 of every warp (laneid, or
     * tid.x where it is lane & (X-1)): its constant term is lane 0's value,
     * U, of which the warp form may know more bits (an allocation's
     * alignment plus a uniform offset) */
    wform tx;
    wf_tid_form(f->r, 0, &tx);
    bool x0 = aff_zero_on(&x->poly, (uint16_t)(1u << DIV_C_X)) || (tx.kind == WF_LANE && tx.k == 64 && !tx.r);
    if (x->addr_value != SSA_NONE && x0 && aff_zero_on(&x->poly, (uint16_t)(1u << DIV_C_Y | 1u << DIV_C_Z))) {
        residue wb = res_add(warp_base(f, x->addr_value, 0), res_exact(ad->v));
        if (wb.k > c0.k) c0 = wb;
    }
    /* an unknown coefficient named k·S (a row pitch S from a parameter, k
     * the element size) is a multiple of 2^(tz(k) + S's known zeros): lane
     * 0 of each warp, a row start, is known modulo that much more */
    uint8_t ctz[DIV_NCOEF2];
    bool named = false;
    uint16_t tried = 0, got = 0; /* monomials named here, for the symbolic stride below */
    int64_t nk[DIV_NCOEF2];
    uint32_t nsym[DIV_NCOEF2];
    /* tid.x, tid.y, tid.z: a pitch multiplies one of them, not a product */
    uint16_t varying = (uint16_t)(x->poly.bot & (1u << DIV_C_X | 1u << DIV_C_Y | 1u << DIV_C_Z));
    if (x->addr_value != SSA_NONE && varying && x->poly.bot != AFF_ALL(n))
        for (unsigned i = 1; i < n; i++) {
            ctz[i] = 0;
            int64_t k;
            uint32_t sym;
            if (!(varying >> i & 1)) continue;
            tried |= (uint16_t)(1u << i);
            if (!addr_name_coef(c, x->addr_value, i, &k, &sym)) continue;
            got |= (uint16_t)(1u << i);
            nk[i] = k, nsym[i] = sym;
            if (k) {
                unsigned t = (unsigned)__builtin_ctzll((unsigned long long)k) + res_tz(c->res[sym]);
                ctz[i] = (uint8_t)(t < 63 ? t : 63);
                named = true;
            }
        }
    wl_eval_tz(&x->poly, &f->shape, c0, named ? ctz : NULL, w);
    if (w->status != WL_EXACT) from_warp_form(f, x, ad, c0, w);
    x->nwarps = w->nwarps;
    bool all_bot = x->poly.bot == AFF_ALL(n);
    if (w->status == WL_EXACT) {
        model_exact(w, x);
    } else if ((all_bot || w->status == WL_POSITION) && model_lane_eval(f, ad, x, w)) {
        if (x->pattern == COAL_P_SYMBOLIC || x->pattern == COAL_P_BOUNDED) {
            uint32_t ld = loaded_from(c, x->addr_value);
            if (ld != UINT32_MAX) x->why_stmt = ld;
        }
    } else if (all_bot) {
        x->pattern = COAL_P_IRREGULAR;
        x->why_stmt = loaded_from(c, x->addr_value);
        model_irregular(x);
    } else {
        for (unsigned i = 1; i < n && !x->sym_named; i++)
            if (w->sym_monos >> i & 1) {
                x->sym_mono = i;
                if (tried >> i & 1) { /* named above */
                    x->sym_named = got >> i & 1;
                    if (x->sym_named) x->sym_k = nk[i], x->sym_value = nsym[i];
                } else x->sym_named = addr_name_coef(c, x->addr_value, i, &x->sym_k, &x->sym_value);
            }
        /* the groups differ by the unknown coefficient times an integer:
         * by a multiple of its known factor when it is the only unknown */
        unsigned kg = x->sym_named && w->sym_monos == (uint16_t)(1u << x->sym_mono) && x->sym_k
                          ? (unsigned)__builtin_ctzll((unsigned long long)x->sym_k) + res_tz(c->res[x->sym_value])
                          : 0;
        model_symbolic(w, kg, x);
        if (x->pattern == COAL_P_SYMBOLIC && !x->sym_named) {
            uint32_t ld = loaded_from(c, x->addr_value);
            if (ld != UINT32_MAX) x->why_stmt = ld;
        }
    }
    if (x->space == COAL_GLOBAL) {
        if (x->uncoalesced) remap_hints(x);
        return;
    }
    /* shared: banks */
    x->uncoalesced = false;
    x->misaligned = false;
    if (w->status == WL_EXACT) {
        bank_warps(w, x);
        x->bank_degree = x->bank_degree_max;
    } else if (x->pattern == COAL_P_SYMBOLIC && x->sym_named && w->status == WL_SYMBOLIC)
        bank_by_stride(f, c0, w, x);
}

/* The shape every command analyses pf at, with its origin: one rule
 * (blk_resolve); the default's is all zero (warp_lanes.h: unknown). */
static void shape_of(const prog_func *pf, const coal_options *o, coal_func *f)
{
    f->origin = (uint8_t)blk_resolve(o ? o->blocks : NULL, pf->fn, f->shape.block);
}

/* One function's accesses, with the facts given (NULL: none). */
static void analyse_func(coal_func *f, const ptx_module *m, const prog_func *pf, const coal_options *o,
                         const param_facts *facts, arena *a, wl_result *w)
{
    memset(f, 0, sizeof *f);
    f->pf = pf;
    f->facts = facts;
    shape_of(pf, o, f);
    div_options dopt = {.block = {0, 0, 0}, .assume_tid_yz_uniform = false};
    memcpy(dopt.block, f->shape.block, sizeof dopt.block);
    /* the default shape's x extent is a multiple of 32: tid.y and tid.z
     * are the same in all lanes of a warp */
    dopt.assume_tid_yz_uniform = !wl_shape_known(&f->shape);
    f->r = div_analyse(pf, DIV_AN_AFFINE2, &dopt, a);
    f->chain = addr_chain_build(m, pf, f->r, &f->shape, facts, a);
    st_regions *sr = st_build(pf, f->r, &f->shape, a);
    uint32_t cap = 0;
    for (uint32_t st = 0; st < pf->fn->nstmts; st++) {
        const ptx_stmt *s = pf->fn->stmts[st];
        if (s->kind != PTX_S_INST) continue;
        uint32_t b = pf->g->stmt_block[st];
        if (b == CFG_NONE || !pf->g->blocks[b].reachable) continue;
        const ptx_inst_sem *sem = &pf->ssa->sem[st];
        /* pick_access's first test, before the access record is
         * cleared: clearing it for every instruction was 0.6% of check
         * on a 100k-block kernel, whose instructions are mostly not
         * memory accesses */
        if (!(sem->flags & (PTX_SEM_LOAD | PTX_SEM_STORE | PTX_SEM_PREFETCH))) continue;
        coal_access x;
        memset(&x, 0, sizeof x);
        x.stmt = st;
        x.in = &s->u.inst;
        uint32_t opd;
        bool unproven;
        if (!pick_access(f, st, &s->u.inst, sem, &x, &opd, &unproven)) {
            if (unproven) f->generic_unknown++;
            continue;
        }
        analyse_access(f, sr, st, opd, &x, w);
        if (f->nacc == cap) {
            cap = cap ? 2 * cap : 16;
            /* not cleared: entries are written before they count (clearing
             * each doubling was 1.4% of check on the corpus) */
            coal_access *n = arena_alloc(a, sizeof *n * cap);
            if (f->nacc) memcpy(n, f->acc, sizeof *n * f->nacc);
            f->acc = n;
        }
        f->acc[f->nacc++] = x;
    }
}

static bool same_verdict(const coal_access *x, const coal_access *y)
{
    coal_verdict a, b;
    bool fa = coal_verdict_of(x, &a), fb = coal_verdict_of(y, &b);
    if (fa != fb) return false;
    return !fa || (a.rule == b.rule && a.certainty == b.certainty && a.dep == b.dep && a.excess == b.excess &&
                   a.by_alignment == b.by_alignment && a.sectors == b.sectors && a.ideal == b.ideal);
}

/* Marks each access of f (analysed with its facts) whose verdict differs
 * from base's (the same function without them) with the facts on the
 * parameters its address is computed from (all of them when it reaches
 * none: a fact changed it some other way). */
static void compare_facts(coal_func *f, const coal_func *base)
{
    uint32_t all = f->facts->n >= 32 ? UINT32_MAX : (1u << f->facts->n) - 1;
    for (uint32_t i = 0, j = 0; i < f->nacc; i++) {
        coal_access *x = &f->acc[i];
        while (j < base->nacc && base->acc[j].stmt < x->stmt) j++;
        if (j == base->nacc || base->acc[j].stmt != x->stmt || same_verdict(x, &base->acc[j])) continue;
        coal_verdict v;
        x->was = coal_verdict_of(&base->acc[j], &v) ? (uint8_t)(1 + v.rule) : 0;
        uint64_t deps = addr_param_deps(f->chain, x->addr_value);
        for (uint32_t k = 0; k < f->facts->n; k++)
            if (f->facts->v[k].param < 64 && (deps >> f->facts->v[k].param & 1)) x->assumed |= 1u << k;
        if (!x->assumed) x->assumed = all;
    }
}

coal_result *coal_analyse(const ptx_module *m, const prog *p, const coal_options *o, arena *a)
{
    coal_result *res = ARENA_NEW(a, coal_result);
    res->m = m;
    res->p = p;
    res->f = ARENA_NEWN(a, coal_func, p->nfuncs ? p->nfuncs : 1);
    wl_result *w = malloc(sizeof *w);
    if (!w) abort();
    for (uint32_t fi = 0; fi < p->nfuncs; fi++) {
        const prog_func *pf = &p->funcs[fi];
        if (o && o->only && !ptx_str_eq(pf->fn->name, o->only)) continue;
        coal_func *f = &res->f[res->nfuncs++];
        param_facts *facts = NULL;
        if (o && o->facts_of) {
            param_facts pf_ = {0};
            if (o->facts_of(o->facts_ctx, pf->fn, &pf_) && pf_.n) {
                facts = ARENA_NEW(a, param_facts);
                *facts = pf_;
            }
        }
        if (!facts) {
            analyse_func(f, m, pf, o, NULL, a, w);
            continue;
        }
        coal_func base;
        analyse_func(&base, m, pf, o, NULL, a, w);
        analyse_func(f, m, pf, o, facts, a, w);
        compare_facts(f, &base);
    }
    free(w);
    return res;
}
