/* The spill code of a `regalloc` run on analyze's HTML page (html_int.h):
 * the run, on the page's own module, put back as written afterwards, and
 * how the page shows it: a line of the kernel's summary, the marks of a
 * source line, an instruction's. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "html_int.h"

/* What a source line's marks count, in this order. */
enum { RA_LD_LOCAL, RA_ST_LOCAL, RA_LD_SHARED, RA_ST_SHARED, RA_REMAT };
static const char *const key[HTML_RA_NCAT] = {"ld.local", "st.local", "ld.shared", "st.shared", "remat"};

int html_ra_run(ptx_module *m, const char *shown, const ra_options *o, ra_stats *st)
{
    /* on the page's own module, put back as parsed after (ra_undo): the
     * page shows the PTX as written, and the sites' statement and
     * register indices name the same ones.  So the text is not parsed a
     * second time. */
    ra_undo *u = ra_undo_save(m);
    ptx_diags d;
    ptx_diags_init(&d);
    ra_options x = *o;
    x.sites = true;
    x.keep_parsed = true;
    x.measure_after = true; /* the summary shows the pressure after */
    int rc = ra_run(m, &x, st, &d) ? 2 : 0;
    /* the run's errors, and its warnings (values moved to .local for the
     * shared-area limit), as `ptxray regalloc` prints them */
    ptx_diags_print(&d, shown, m->src, m->src_len, stderr);
    ptx_diags_free(&d);
    ra_undo_apply(m, u);
    if (rc) ra_stats_free(st);
    return rc;
}

const ra_func_stats *html_ra_func(const ra_stats *st, const ptx_module *m, const ptx_func *fn)
{
    uint32_t i = 0;
    while (i < m->nfuncs && m->funcs[i] != fn) i++;
    for (uint32_t k = 0; k < st->nfuncs; k++)
        if (st->funcs[k].func == i) return &st->funcs[k];
    return NULL;
}

static int category(const ra_site *s)
{
    if (s->kind == RA_SITE_REMAT) return RA_REMAT;
    bool sh = s->place == RA_P_SHARED || s->place == RA_P_SHARED_AFFINE;
    return (s->kind == RA_SITE_STORE ? RA_ST_LOCAL : RA_LD_LOCAL) + (sh ? RA_LD_SHARED : 0);
}

uint64_t html_ra_site_cost(const ra_site *s)
{
    switch (category(s)) {
    case RA_LD_LOCAL:
    case RA_ST_LOCAL:
        /* .local is interleaved per thread: a warp's access of a B-byte
         * value is 32·B bytes, B sectors, all of it traffic a register
         * would not make */
        return (s->bits >= 8 ? s->bits / 8u : 1u) * s->weight;
    case RA_LD_SHARED:
    case RA_ST_SHARED: return s->weight; /* one wavefront: the warp's lanes share the slot */
    default: return 0;                   /* rematerialised: arithmetic, no memory */
    }
}

void html_ra_line_add(html_ra_line *l, const ra_site *s)
{
    int k = category(s);
    l->n[k]++;
    l->w[k] += s->weight;
    l->cost += html_ra_site_cost(s);
}

void html_ra_line_data(const html_ra_line *l, char *buf, size_t n)
{
    size_t at = 0;
    buf[0] = 0;
    for (int k = 0; k < HTML_RA_NCAT && at < n; k++)
        if (l->n[k]) at += (size_t)snprintf(buf + at, n - at, "%s%s=%u", at ? " " : "", key[k], l->n[k]);
}

static const char *cls(int k) { return k == RA_REMAT ? "remat" : k >= RA_LD_SHARED ? "shared" : "local"; }

void html_ra_line_marks(FILE *o, const html_ra_line *l)
{
    static const char *what[HTML_RA_NCAT] = {"spill reload%s from the thread's .local slot",
                                             "spill store%s to the thread's .local slot",
                                             "spill reload%s from the warp's .shared slot",
                                             "spill store%s to the warp's .shared slot",
                                             "rematerialisation%s (no memory access)"};
    static const char *text[HTML_RA_NCAT] = {"reload .local", "store .local", "reload .shared", "store .shared",
                                             "remat"};
    for (int k = 0; k < HTML_RA_NCAT; k++) {
        if (!l->n[k]) continue;
        fprintf(o, "<span class=\"b ra %s\" title=\"%u ", cls(k), l->n[k]);
        fprintf(o, what[k], l->n[k] == 1 ? "" : "s");
        fprintf(o, ", loop-weighted %" PRIu64 "\">%s &times;%u</span>", l->w[k], text[k], l->n[k]);
    }
}

void html_ra_inst_mark(FILE *o, const ptx_func *fn, const ra_site *s)
{
    /* short: a page has one per piece of spill code (the legend says where
     * a reload and a store go; the title only what is particular) */
    int k = category(s);
    const ptx_str *r = &fn->regs[s->reg].name;
    static const char *verb[HTML_RA_NCAT] = {"reload", "store", "reload", "store", "remat"};
    const char *why = k == RA_REMAT ? (s->place == RA_P_CONST ? "a constant" : "from the thread coordinates")
                      : s->place != RA_P_SHARED_AFFINE ? NULL
                      : s->kind == RA_SITE_STORE       ? "its uniform part"
                                                       : "its uniform part, the thread coordinates added";
    fprintf(o, "<span class=\"b ra %s\"", cls(k));
    if (why || s->weight > 1) {
        fprintf(o, " title=\"%s", why ? why : "");
        if (s->weight > 1) fprintf(o, "%sloop weight %" PRIu64, why ? "; " : "", s->weight);
        fputc('"', o);
    }
    fprintf(o, ">%s ", verb[k]);
    html_esc(o, r->p, r->n);
    if (k != RA_REMAT) fputs(k >= RA_LD_SHARED ? " .shared" : " .local", o);
    fputs("</span>", o);
}

void html_ra_summary(FILE *o, const ra_stats *st, const ra_func_stats *f)
{
    fprintf(o, "<dt>regalloc</dt><dd class=\"ra\">mode %s, budget %u units: ", ra_mode_name(st->mode), st->budget);
    if (!f || !f->spilled) {
        fputs("nothing spilled", o);
        if (f) fprintf(o, " (pressure %u units)", f->pressure_before);
        fputs("</dd>", o);
        return;
    }
    uint32_t sh = f->by_place[RA_P_SHARED] + f->by_place[RA_P_SHARED_AFFINE];
    uint32_t re = f->by_place[RA_P_CONST] + f->by_place[RA_P_AFFINE];
    fprintf(o, "%u register%s spilled (%u to .local, %u to per-warp .shared slots, %u rematerialised); ", f->spilled,
            f->spilled == 1 ? "" : "s", f->by_place[RA_P_LOCAL], sh, re);
    fprintf(o, "spill code: %u reloads (%u .local, %u .shared, of which %u add the thread coordinates), %u stores "
               "(%u .local, %u .shared), %u rematerialisations; ",
            f->loads_local + f->loads_shared, f->loads_local, f->loads_shared, f->remat_shared,
            f->stores_local + f->stores_shared, f->stores_local, f->stores_shared, f->remat);
    fprintf(o, "loop-weighted: .local %" PRIu64 " reloads, %" PRIu64 " stores, .shared %" PRIu64 " reloads, %" PRIu64
               " stores, %" PRIu64 " rematerialisations and additions of the coordinates; ",
            f->loads_local_w, f->stores_local_w, f->loads_shared_w, f->stores_shared_w, f->remat_w);
    fprintf(o, "%u bytes of .local per thread, %u bytes of .shared per block; pressure %u", f->local_bytes,
            f->shared_bytes, f->pressure_before);
    if (f->pressure_after != RA_NOT_MEASURED) fprintf(o, " &rarr; %u", f->pressure_after);
    fputs(" units</dd>", o);
}

void html_ra_legend(FILE *o)
{
    fputs("<p class=\"note\">Spill code of the regalloc run: <span class=\"b ra local\">reload .local &times;2</span>"
          "per-thread .local slot <span class=\"b ra shared\">store .shared &times;1</span>per-warp .shared slot "
          "<span class=\"b ra remat\">remat &times;1</span>rebuilt without memory; on the line of the instruction "
          "it serves (a reload or rematerialisation before it, a store after it), and beside that instruction in "
          "the PTX.  It adds to the line's cost: B sectors per warp for a B-byte .local access, one wavefront per "
          ".shared one, &times;10 per loop level.</p>\n",
          o);
}
