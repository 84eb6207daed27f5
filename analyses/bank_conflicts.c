/* Bank conflict degree of a warp access (bank_conflicts.h). */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "bank_conflicts.h"

/* floor(a / 4) and a mod 32 (BANK_WORD, BANK_COUNT), for either sign of a
 * (the complement keeps >> off negative numbers). */
static int64_t word_of(int64_t a) { return a >= 0 ? a >> 2 : ~(~a >> 2); }
static unsigned bank_of(int64_t w) { return (unsigned)((uint64_t)w & (BANK_COUNT - 1)); }

/* A phase's distinct words, in a small open-addressed set: sorting the
 * words to find repeats went quadratic on strided and transposed
 * accesses (the insertion sort was 40% of the model on the corpus). */
#define WSET 512 /* > 32 * 9, the most words a phase names */
typedef struct wordset {
    uint32_t nused, used[WSET]; /* slots in use, to clear only those */
    int64_t key[WSET];
    bool full[WSET];
} wordset;

/* true when w was not in the set yet */
static bool wordset_add(wordset *ws, int64_t w)
{
    uint32_t h = (uint32_t)(((uint64_t)w * 0x9E3779B97F4A7C15ull) >> 55); /* 9 bits: WSET */
    while (ws->full[h]) {
        if (ws->key[h] == w) return false;
        h = (h + 1) & (WSET - 1);
    }
    ws->full[h] = true;
    ws->key[h] = w;
    ws->used[ws->nused++] = h;
    return true;
}

/* true when the lanes [first, end) touch words in one strict order, lane
 * by lane (each lane's words past the previous lane's, or all before
 * them): then no word repeats and the set is not needed (the common
 * unit-stride and strided accesses). */
static bool words_disjoint(const int64_t *addr, unsigned first, unsigned end, unsigned bytes)
{
    if (end - first < 2) return true;
    bool up = addr[first + 1] >= addr[first];
    for (unsigned l = first + 1; l < end; l++) {
        int64_t a = addr[l - 1], b = addr[l];
        if (up ? word_of(b) <= word_of(a + (int64_t)bytes - 1) : word_of(b + (int64_t)bytes - 1) >= word_of(a))
            return false;
    }
    return true;
}

/* atomic: a word counts once per lane (no broadcast), else once. */
static void model(const int64_t *addr, unsigned nlanes, unsigned bytes, bool atomic, bank_result *out)
{
    _Static_assert(BANK_WORD == 4 && BANK_COUNT == 32, "word_of and bank_of assume 4-byte words, 32 banks");
    out->phases = out->degree = out->wavefronts = 0;
    if (!bytes) bytes = 1;
    unsigned per = bytes >= 128 ? 1 : 128 / bytes;
    if (per > 32) per = 32;
    if (nlanes > 32) nlanes = 32;
    wordset ws;
    ws.nused = 0;
    bool ws_clear = false; /* ws.full zeroed (only once a phase needs the set) */
    for (unsigned first = 0; first < nlanes; first += per) {
        unsigned nw = 0, per_bank[BANK_COUNT] = {0}, deg = 0;
        unsigned end = first + per < nlanes ? first + per : nlanes;
        bool dedup = !atomic && !words_disjoint(addr, first, end, bytes);
        if (dedup && !ws_clear) {
            memset(ws.full, 0, sizeof ws.full);
            ws_clear = true;
        }
        for (unsigned l = first; l < end; l++) {
            int64_t w0 = word_of(addr[l]), w1 = word_of(addr[l] + (int64_t)bytes - 1);
            for (int64_t w = w0; w <= w1 && nw < 32 * 9; w++, nw++) {
                if (dedup && !wordset_add(&ws, w)) continue;
                unsigned b = bank_of(w);
                if (++per_bank[b] > deg) deg = per_bank[b];
            }
        }
        for (uint32_t i = 0; i < ws.nused; i++) ws.full[ws.used[i]] = false;
        ws.nused = 0;
        if (!nw) continue;
        out->phases++;
        out->wavefronts += deg;
        if (deg > out->degree) out->degree = deg;
    }
}

void bank_conflicts(const int64_t *addr, unsigned nlanes, unsigned bytes, bank_result *out)
{
    model(addr, nlanes, bytes, false, out);
}

void bank_conflicts_atomic(const int64_t *addr, unsigned nlanes, unsigned bytes, bank_result *out)
{
    model(addr, nlanes, bytes, true, out);
}
