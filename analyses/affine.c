/* PROVISIONAL: the affine analyses are being written; until then they
 * return the simple analysis's verdicts with every coefficient unknown. */
#include <string.h>
#include "divergence.h"

div_result *div_analyse(const prog_func *pf, enum div_analysis an, const div_options *o, arena *a)
{
    div_result *r = div_simple(pf, o, a);
    if (an == DIV_AN_SIMPLE) return r;
    uint32_t n = pf->ssa->nvalues ? pf->ssa->nvalues : 1;
    r->analysis = an;
    r->ncoef = an == DIV_AN_AFFINE ? DIV_NCOEF1 : DIV_NCOEF2;
    r->coef = ARENA_NEWN(a, int64_t, (size_t)n * r->ncoef);
    r->bot = ARENA_NEWN(a, uint16_t, n);
    for (uint32_t v = 0; v < pf->ssa->nvalues; v++)
        r->bot[v] = r->state[v] == DIV_UNIFORM ? 1 : (uint16_t)((1u << r->ncoef) - 1);
    return r;
}
