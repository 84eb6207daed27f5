/* A CFG as inline SVG (html_int.h): the DOT of cfg_dot_func laid out and
 * rendered by Graphviz's libraries in this process (no `dot` to run). */
#include <graphviz/gvc.h>
#include <graphviz/gvplugin.h>
#include <stdlib.h>
#include <string.h>
#include "cfg_print.h"
#include "html_int.h"

/* Graphviz's dot layout and SVG renderer, linked in and registered by
 * hand (no plugin configuration read, nothing loaded on demand): the page
 * does not depend on the plugins or fonts a machine has installed.  Text
 * is measured by Graphviz's built-in font metrics (no pango/fontconfig),
 * so the same DOT lays out to the same bytes everywhere. */
extern gvplugin_library_t gvplugin_dot_layout_LTX_library, gvplugin_core_LTX_library;
static const lt_symlist_t builtins[] = {
    {"gvplugin_dot_layout_LTX_library", &gvplugin_dot_layout_LTX_library},
    {"gvplugin_core_LTX_library", &gvplugin_core_LTX_library},
    {0, 0},
};

/* One context per page: making one is most of a small graph's time. */
static GVC_t *gvc;
static GVC_t *context(void)
{
    if (!gvc) gvc = gvContextPlugins(builtins, 0);
    return gvc;
}

void html_svg_release(void)
{
    if (gvc) gvFreeContext(gvc);
    gvc = NULL;
}

/* Graphviz's SVG without what an inline graph does not need, about a third
 * of its bytes: comments, <title>s (tooltips of node names) and the font
 * attributes every text repeats (the page's style sheet sets them:
 * html_page.c). */
static void put_svg(FILE *o, const char *s, size_t n)
{
    static const char *drop[] = {" font-family=\"Courier,monospace\" font-size=\"10.00\"",
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
    fprintf(m, "digraph %s {\n  id=\"%s_g\";\n  node [shape=box, fontname=\"Courier\", fontsize=10];\n"
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
