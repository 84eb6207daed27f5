/* Names and text of the affine domain's coefficients, and their sparse rows (divergence.h). */
#include <stdio.h>
#include <string.h>
#include "divergence.h"

static const char *const coef_names[DIV_NCOEF2] = {
    "1", "tid.x", "tid.y", "tid.z", "laneid",
    "tid.x*tid.x", "tid.x*tid.y", "tid.x*tid.z", "tid.x*laneid", "tid.y*tid.y",
    "tid.y*tid.z", "tid.y*laneid", "tid.z*tid.z", "tid.z*laneid", "laneid*laneid",
};

/* How the text form writes each monomial (the paper writes T² for Tid²). */
static const char *const coef_text[DIV_NCOEF2] = {
    "", "tid.x", "tid.y", "tid.z", "laneid",
    "tid.x²", "tid.x·tid.y", "tid.x·tid.z", "tid.x·laneid", "tid.y²",
    "tid.y·tid.z", "tid.y·laneid", "tid.z²", "tid.z·laneid", "laneid²",
};

const char *div_coef_name(unsigned i) { return i < DIV_NCOEF2 ? coef_names[i] : "?"; }

const char *div_state_name(enum div_state s)
{
    return s == DIV_UNIFORM ? "uniform" : s == DIV_AFFINE ? "affine" : "divergent";
}

const char *div_analysis_name(enum div_analysis a)
{
    return a == DIV_AN_SIMPLE ? "simple" : a == DIV_AN_AFFINE ? "affine" : "affine2";
}

const int64_t div_zero_coefs[DIV_NCOEF2];

int64_t *div_coefs_row(div_result *r, uint32_t v, arena *a)
{
    if (r->cslot[v] == DIV_NOROW) {
        uint32_t k = r->nrows++, blk = k >> DIV_ROWSHIFT;
        if (!(k & (DIV_ROWBLK - 1))) {
            if (blk == r->capblk) { /* the directory: a few pointers, doubled in the arena */
                uint32_t cap = r->capblk ? 2 * r->capblk : 16;
                int64_t **d = arena_alloc(a, sizeof *d * cap);
                if (r->capblk) memcpy(d, r->crow, sizeof *d * r->capblk);
                r->crow = d;
                r->capblk = cap;
            }
            /* not cleared: a row is zeroed when it is made (clearing the
             * whole block was 11% of check on the corpus, whose functions
             * use a few rows of it) */
            r->crow[blk] = arena_alloc(a, sizeof **r->crow * DIV_ROWBLK * r->ncoef);
        }
        r->cslot[v] = k;
        int64_t *row = (int64_t *)div_coefs(r, v);
        memset(row, 0, sizeof *row * r->ncoef);
        return row;
    }
    return (int64_t *)div_coefs(r, v);
}

bool div_coef(const div_result *r, uint32_t v, unsigned i, int64_t *c)
{
    if (!r->cslot || i >= r->ncoef || (r->bot[v] >> i & 1)) return false;
    *c = div_coefs(r, v)[i];
    return true;
}

/* Terms highest degree first, zero terms left out, the constant always
 * written: "2·tid.x + ⊥", "⊥·tid.x + 0".  A value whose every coefficient is
 * unknown (the paper's ⊥T² + ⊥T + ⊥) is "⊥·tid + ⊥", so that it reads
 * differently from a uniform unknown, "⊥". */
const char *div_value_text(const div_result *r, uint32_t v, char *buf, size_t n)
{
    if (!n) return buf;
    if (!r->cslot) {
        snprintf(buf, n, "%s", r->state[v] == DIV_UNIFORM ? "U" : "D");
        return buf;
    }
    if (r->bot[v] == (uint16_t)((1u << r->ncoef) - 1)) {
        snprintf(buf, n, "⊥·tid + ⊥");
        return buf;
    }
    size_t len = 0;
    buf[0] = 0;
    for (unsigned k = r->ncoef; k-- > 1;) {
        int64_t c;
        bool known = div_coef(r, v, k, &c);
        if (known && c == 0) continue;
        const char *sep = len ? (known && c < 0 ? " - " : " + ") : (known && c < 0 ? "-" : "");
        char coef[32] = "";
        if (!known) snprintf(coef, sizeof coef, "⊥·");
        else if (c != 1 && c != -1)
            snprintf(coef, sizeof coef, "%llu·", c < 0 ? 0ull - (unsigned long long)c : (unsigned long long)c);
        int w = snprintf(buf + len, n - len, "%s%s%s", sep, coef, coef_text[k]);
        if (w < 0 || (size_t)w >= n - len) return buf;
        len += (size_t)w;
    }
    int64_t c0;
    if (!div_coef(r, v, 0, &c0)) snprintf(buf + len, n - len, "%s⊥", len ? " + " : "");
    else if (!len) snprintf(buf + len, n - len, "%lld", (long long)c0);
    else snprintf(buf + len, n - len, " %s %llu", c0 < 0 ? "-" : "+",
                  c0 < 0 ? 0ull - (unsigned long long)c0 : (unsigned long long)c0);
    return buf;
}
