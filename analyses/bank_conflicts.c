/* Bank conflict degree of a warp access (bank_conflicts.h). */
#include <stdbool.h>
#include <stdlib.h>
#include "bank_conflicts.h"

static int64_t floor_div(int64_t a, int64_t b) { return a / b - (a % b != 0 && (a < 0) != (b < 0)); }

/* Insertion sort: the lanes' words mostly come in order, and qsort's
 * calls were most of the cost of the model. */
static void sort_words(int64_t *v, unsigned n)
{
    for (unsigned i = 1; i < n; i++) {
        int64_t x = v[i];
        unsigned j = i;
        for (; j && v[j - 1] > x; j--) v[j] = v[j - 1];
        v[j] = x;
    }
}

/* atomic: a word counts once per lane (no broadcast), else once. */
static void model(const int64_t *addr, unsigned nlanes, unsigned bytes, bool atomic, bank_result *out)
{
    out->phases = out->degree = out->wavefronts = 0;
    if (!bytes) bytes = 1;
    unsigned per = bytes >= 128 ? 1 : 128 / bytes;
    if (per > 32) per = 32;
    if (nlanes > 32) nlanes = 32;
    for (unsigned first = 0; first < nlanes; first += per) {
        int64_t words[32 * 9];
        unsigned nw = 0;
        for (unsigned l = first; l < first + per && l < nlanes; l++) {
            int64_t w0 = floor_div(addr[l], BANK_WORD), w1 = floor_div(addr[l] + (int64_t)bytes - 1, BANK_WORD);
            for (int64_t w = w0; w <= w1 && nw < sizeof words / sizeof words[0]; w++) words[nw++] = w;
        }
        if (!nw) continue;
        sort_words(words, nw);
        unsigned per_bank[BANK_COUNT] = {0}, deg = 0;
        for (unsigned i = 0; i < nw; i++) {
            if (!atomic && i && words[i] == words[i - 1]) continue;
            int64_t b = words[i] - floor_div(words[i], BANK_COUNT) * BANK_COUNT;
            if (++per_bank[b] > deg) deg = per_bank[b];
        }
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
