/* Warp collectives: shfl, vote, match, redux, elect, bar.warp.sync.
 *
 * The lanes taking part may come from several paths of a diverged warp
 * (independent thread scheduling), even from different instructions with
 * the same qualifiers: simt.c gathers the paths waiting at such
 * collectives into parts (each with its own register file and
 * instruction) and calls these functions once all lanes named in the
 * member mask have arrived.  A
 * source lane that takes no part supplies the reading lane's own value
 * (the ISA leaves that undefined). */
#include "decode.h"

typedef struct lanes {
    const emu_part *part[32];
} lanes;

static void map_lanes(const emu_part *parts, unsigned n, lanes *L)
{
    for (unsigned l = 0; l < 32; l++) L->part[l] = NULL;
    for (unsigned k = 0; k < n; k++)
        for (uint32_t m = parts[k].mask; m; m &= m - 1) L->part[__builtin_ctz(m)] = &parts[k];
}

static inline uint64_t rd(const emu_part *p, uint32_t slot, unsigned lane)
{
    return p->r[(size_t)slot * 32 + lane];
}
static inline void wr(const emu_part *p, uint32_t slot, unsigned lane, uint64_t v)
{
    p->r[(size_t)slot * 32 + lane] = v;
}
static inline bool prd(const emu_part *p, uint32_t slot, unsigned lane)
{
    uint32_t v = p->p[slot & ~(PRED_SLOT | PNEG)];
    if (slot & PNEG) v = ~v;
    return (v >> lane) & 1;
}
static inline void pwr(const emu_part *p, uint32_t slot, unsigned lane, bool v)
{
    uint32_t *q = &p->p[slot & ~PRED_SLOT];
    *q = (*q & ~(1u << lane)) | ((uint32_t)v << lane);
}

static int c_shfl(emu_exec *x, const einst *I, const emu_part *parts, unsigned n, uint32_t all)
{
    (void)x;
    lanes L;
    map_lanes(parts, n, &L);
    uint64_t src[32], res[32];
    bool pv[32];
    for (unsigned l = 0; l < 32; l++) src[l] = L.part[l] ? rd(L.part[l], L.part[l]->I->s[0], l) : 0;
    for (uint32_t mm = all; mm; mm &= mm - 1) {
        unsigned lane = (unsigned)__builtin_ctz(mm);
        const emu_part *p = L.part[lane];
        uint32_t b = (uint32_t)rd(p, p->I->s[1], lane), c = (uint32_t)rd(p, p->I->s[2], lane);
        uint32_t bval = b & 31, cval = c & 31, segmask = (c >> 8) & 31;
        uint32_t maxl = (lane & segmask) | (cval & ~segmask), minl = lane & segmask;
        int32_t j;
        bool ok;
        switch (I->sub2) {
        case SHFL_UP: j = (int32_t)lane - (int32_t)bval; ok = j >= (int32_t)maxl; break;
        case SHFL_DOWN: j = (int32_t)(lane + bval); ok = j <= (int32_t)maxl; break;
        case SHFL_BFLY: j = (int32_t)(lane ^ bval); ok = j <= (int32_t)maxl; break;
        default: j = (int32_t)(minl | (bval & ~segmask)); ok = j <= (int32_t)maxl; break;
        }
        if (!ok) j = (int32_t)lane;
        res[lane] = (all >> j) & 1 ? src[j] : src[lane];
        pv[lane] = ok;
    }
    for (uint32_t mm = all; mm; mm &= mm - 1) {
        unsigned lane = (unsigned)__builtin_ctz(mm);
        const emu_part *p = L.part[lane];
        wr(p, p->I->d[0], lane, res[lane] & 0xffffffffu);
        if (p->I->flags & EI_PRED_DST2) pwr(p, p->I->d[1], lane, pv[lane]);
    }
    return 0;
}

static int c_vote(emu_exec *x, const einst *I, const emu_part *parts, unsigned n, uint32_t all)
{
    (void)x;
    lanes L;
    map_lanes(parts, n, &L);
    uint32_t bal = 0;
    for (uint32_t mm = all; mm; mm &= mm - 1) {
        unsigned lane = (unsigned)__builtin_ctz(mm);
        if (prd(L.part[lane], L.part[lane]->I->s[0], lane)) bal |= 1u << lane;
    }
    bool any = bal != 0, allt = bal == all, uni = bal == 0 || bal == all;
    for (uint32_t mm = all; mm; mm &= mm - 1) {
        unsigned lane = (unsigned)__builtin_ctz(mm);
        const emu_part *p = L.part[lane];
        switch (I->sub2) {
        case VOTE_ALL: pwr(p, p->I->d[0], lane, allt); break;
        case VOTE_ANY: pwr(p, p->I->d[0], lane, any); break;
        case VOTE_UNI: pwr(p, p->I->d[0], lane, uni); break;
        default: wr(p, p->I->d[0], lane, bal); break;
        }
    }
    return 0;
}

static int c_match(emu_exec *x, const einst *I, const emu_part *parts, unsigned n, uint32_t all)
{
    (void)x;
    lanes L;
    map_lanes(parts, n, &L);
    uint64_t mask = type_mask(emu_type_bytes(I->type));
    uint64_t v[32];
    for (uint32_t mm = all; mm; mm &= mm - 1) {
        unsigned lane = (unsigned)__builtin_ctz(mm);
        v[lane] = rd(L.part[lane], L.part[lane]->I->s[0], lane) & mask;
    }
    unsigned first = (unsigned)__builtin_ctz(all);
    bool same = true;
    for (uint32_t mm = all; mm; mm &= mm - 1)
        if (v[__builtin_ctz(mm)] != v[first]) same = false;
    for (uint32_t mm = all; mm; mm &= mm - 1) {
        unsigned lane = (unsigned)__builtin_ctz(mm);
        const emu_part *p = L.part[lane];
        if (I->sub == COLL_MATCH_ANY) {
            uint32_t eq = 0;
            for (uint32_t k = all; k; k &= k - 1)
                if (v[__builtin_ctz(k)] == v[lane]) eq |= 1u << __builtin_ctz(k);
            wr(p, p->I->d[0], lane, eq);
        } else {
            wr(p, p->I->d[0], lane, same ? all : 0);
            if (p->I->flags & EI_PRED_DST2) pwr(p, p->I->d[1], lane, same);
        }
    }
    return 0;
}

static int c_redux(emu_exec *x, const einst *I, const emu_part *parts, unsigned n, uint32_t all)
{
    (void)x;
    lanes L;
    map_lanes(parts, n, &L);
    bool s = emu_type_signed(I->type);
    uint32_t acc = 0;
    bool firstv = true;
    for (uint32_t mm = all; mm; mm &= mm - 1) {
        unsigned lane = (unsigned)__builtin_ctz(mm);
        uint32_t v = (uint32_t)rd(L.part[lane], L.part[lane]->I->s[0], lane);
        if (firstv) { acc = v; firstv = false; continue; }
        switch (I->sub2) {
        case AOP_ADD: acc += v; break;
        case AOP_MIN: acc = s ? ((int32_t)v < (int32_t)acc ? v : acc) : (v < acc ? v : acc); break;
        case AOP_MAX: acc = s ? ((int32_t)v > (int32_t)acc ? v : acc) : (v > acc ? v : acc); break;
        case AOP_AND: acc &= v; break;
        case AOP_OR: acc |= v; break;
        case AOP_XOR: acc ^= v; break;
        }
    }
    for (uint32_t mm = all; mm; mm &= mm - 1) {
        unsigned lane = (unsigned)__builtin_ctz(mm);
        wr(L.part[lane], L.part[lane]->I->d[0], lane, acc);
    }
    return 0;
}

static int c_elect(emu_exec *x, const einst *I, const emu_part *parts, unsigned n, uint32_t all)
{
    (void)x;
    (void)I;
    lanes L;
    map_lanes(parts, n, &L);
    unsigned leader = (unsigned)__builtin_ctz(all);
    for (uint32_t mm = all; mm; mm &= mm - 1) {
        unsigned lane = (unsigned)__builtin_ctz(mm);
        wr(L.part[lane], L.part[lane]->I->d[0], lane, leader);
        pwr(L.part[lane], L.part[lane]->I->d[1], lane, lane == leader);
    }
    return 0;
}

static int c_barwarp(emu_exec *x, const einst *I, const emu_part *parts, unsigned n, uint32_t all)
{
    (void)I;
    (void)parts;
    (void)n;
    /* orders the participants' shared accesses (racecheck) */
    if (x->M->opt.checks & EMU_CHECK_RACE) emu_race_warp_sync(x->M, x->w, all);
    return 0;
}

emu_cfn emu_lookup_coll(unsigned opc, einst *I, const char **why)
{
    switch (opc) {
    case COLL_SHFL:
        if (I->type != PTX_T_B32) { *why = "shfl needs .b32"; return NULL; }
        return c_shfl;
    case COLL_VOTE: return c_vote;
    case COLL_MATCH_ANY: case COLL_MATCH_ALL:
        if (I->type != PTX_T_B32 && I->type != PTX_T_B64) { *why = "match needs .b32 or .b64"; return NULL; }
        return c_match;
    case COLL_REDUX:
        if (emu_type_bytes(I->type) != 4 || emu_type_float(I->type)) { *why = "redux on this type"; return NULL; }
        return c_redux;
    case COLL_ELECT: return c_elect;
    case COLL_BARWARP: return c_barwarp;
    }
    *why = "collective";
    return NULL;
}
