/* A CFG as inline SVG (html_int.h): the DOT of cfg_dot_func laid out and
 * rendered by Graphviz's libraries in this process (no `dot` to run). */
#include <graphviz/gvc.h>
#include <stdlib.h>
#include <string.h>
#include "cfg_print.h"
#include "html_int.h"

/* One context per process: loading the plugin list is most of a small
 * graph's time.  Never freed (it lives as long as the process). */
static GVC_t *context(void)
{
    static GVC_t *gvc;
    if (!gvc) gvc = gvContext();
    return gvc;
}

/* Graphviz's SVG without what an inline graph does not need, about a third
 * of its bytes: comments, <title>s (tooltips of node names) and the font
 * attributes every text repeats (the page's style sheet sets them:
 * html_page.c). */
static void put_svg(FILE *o, const char *s, size_t n)
{
    static const char *drop[] = {" font-family=\"monospace\" font-size=\"10.00\"",
                                 " font-family=\"sans-serif\" font-size=\"9.00\"", " text-anchor=\"middle\""};
    const char *e = s + n;
    while (s < e) {
        if (*s == '<' && (size_t)(e - s) > 4 && !memcmp(s, "<!--", 4)) {
            const char *q = strstr(s, "-->");
            if (!q) break;
            s = q + 3;
            if (s < e && *s == '\n') s++;
            continue;
        }
        if (*s == '<' && (size_t)(e - s) > 7 && !memcmp(s, "<title>", 7)) {
            const char *q = strstr(s, "</title>");
            if (!q) break;
            s = q + 8;
            if (s < e && *s == '\n') s++;
            continue;
        }
        if (*s == ' ') {
            size_t k = 0;
            for (; k < sizeof drop / sizeof *drop; k++) {
                size_t l = strlen(drop[k]);
                if ((size_t)(e - s) >= l && !memcmp(s, drop[k], l)) {
                    s += l;
                    break;
                }
            }
            if (k < sizeof drop / sizeof *drop) continue;
        }
        fputc(*s++, o);
    }
}

void html_cfg_svg(FILE *o, const prog_func *pf, const div_result *r, const src_files *sf, const char *prefix)
{
    char *dot = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&dot, &len);
    if (!m) abort();
    fprintf(m, "digraph %s {\n  id=\"%s_g\";\n  node [shape=box, fontname=\"monospace\", fontsize=10];\n"
               "  edge [fontname=\"sans-serif\", fontsize=9];\n",
            prefix, prefix);
    cfg_dot_opts opt = {PROG_CFG, r, sf, prefix, true};
    cfg_dot_func(m, pf, &opt);
    fputs("}\n", m);
    fclose(m);
    GVC_t *gvc = context();
    Agraph_t *g = gvc ? agmemread(dot) : NULL;
    char *svg = NULL;
    unsigned n = 0;
    if (g && !gvLayout(gvc, g, "dot") && !gvRenderData(gvc, g, "svg", &svg, &n) && svg) {
        /* from <svg on: the XML prologue and doctype do not belong inline */
        const char *s = strstr(svg, "<svg");
        if (s) put_svg(o, s, n - (size_t)(s - svg));
        else fputs("<p class=\"note\">Graphviz gave no SVG.</p>\n", o);
    } else fputs("<p class=\"note\">Graphviz could not lay the graph out.</p>\n", o);
    if (svg) gvFreeRenderData(svg);
    if (g) {
        gvFreeLayout(gvc, g);
        agclose(g);
    }
    free(dot);
}
