/* The frame of ptxray's HTML pages (html.h): escaping, the style sheet and
 * the script, analyze's page around its kernel sections, and check's page
 * (an index of files and kernels, then a section per file). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include "html_int.h"
#include "toolchain.h"
#include "version.h"

void html_finding_msg(FILE *o, const chk_finding *x)
{
    fputs("<span class=\"msg\">", o);
    html_escz(o, x->message);
    fputs("</span>", o);
    if (x->depends) {
        fputs(" <span class=\"hint\">(depends on ", o);
        html_escz(o, x->depends);
        fputs(")</span>", o);
    }
}

void html_finding_hint(FILE *o, const chk_finding *x, const char *before)
{
    if (!x->hint) return;
    fprintf(o, "%s<span class=\"hint\">hint: ", before);
    html_escz(o, x->hint);
    fputs("</span>", o);
}

void html_esc(FILE *o, const char *s, size_t n)
{
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        const char *r = s[i] == '&' ? "&amp;" : s[i] == '<' ? "&lt;" : s[i] == '>' ? "&gt;" : s[i] == '"' ? "&quot;" : NULL;
        if (!r) continue;
        fwrite(s + run, 1, i - run, o);
        fputs(r, o);
        run = i + 1;
    }
    fwrite(s + run, 1, n - run, o);
}

void html_escz(FILE *o, const char *s) { html_esc(o, s, strlen(s)); }

const char *html_rule_class(int rule)
{
    static const char *c[CHK_NRULES] = {"unc", "mis", "bank", "div", "bar", "coll"};
    return rule >= 0 && rule < CHK_NRULES ? c[rule] : "x";
}

/* Colours: the CFG's (cfg_print.h) for divergence, and a light-to-dark
 * orange scale for a source line's cost (c1: under 10, c2: under 100, c3:
 * under 1000, c4: more; loop depth weighs 10 per level, docs/check.md). */
static const char css[] =
    "body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#1d1d1f;background:#fafafa}"
    "header{background:#24292f;color:#fff;padding:10px 18px}header h1{font-size:18px;margin:0}"
    "header p{margin:4px 0 0;font-size:12px;color:#c9d1d9}main{padding:8px 18px}"
    "a{color:#0b57d0}nav ul{margin:4px 0;padding-left:18px}"
    "section.kernel,section.file{background:#fff;border:1px solid #d0d7de;border-radius:6px;margin:14px 0;padding:4px 14px 12px}"
    "h2{font-size:16px;margin:10px 0 6px;font-family:ui-monospace,monospace;word-break:break-all}"
    "h3{font-size:14px;margin:12px 0 4px}dl.sum{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:4px 0}"
    "dl.sum dt{color:#57606a}dl.sum dd{margin:0}"
    ".shares{display:flex;height:10px;width:320px;border-radius:3px;overflow:hidden;margin-top:3px}"
    ".shares span{display:block}.s-u{background:#8fca8f}.s-a{background:#7fb3e6}.s-d{background:#e8857c}"
    ".cols{display:grid;grid-template-columns:minmax(0,3fr) minmax(0,2fr);gap:12px;align-items:start}"
    ".side{position:sticky;top:6px;max-height:90vh;overflow:auto;border:1px solid #d0d7de;border-radius:4px;background:#f6f8fa;padding:4px 6px}"
    "table.code{border-collapse:collapse;width:100%;font:12px/1.45 ui-monospace,SFMono-Regular,monospace}"
    "table.code td{padding:0 6px;vertical-align:top;white-space:pre}"
    "td.ln,table.ptx td:first-child{color:#8c959f;text-align:right;user-select:none;width:1%}td.mk{width:1%}"
    "td.t{white-space:pre-wrap!important;word-break:break-all}"
    "tr.src[data-ptx]{cursor:pointer}tr.src[data-ptx]:hover td{background:#eaeef2}"
    "tr.nocode td.t{color:#6e7781}tr.sel td{outline:1px solid #0b57d0;background:#ddf4ff!important}"
    "tr.c1 td{background:#fff4e0}tr.c2 td{background:#ffe2b8}tr.c3 td{background:#ffc98a}tr.c4 td{background:#ffa95e}"
    ".b{display:inline-block;border-radius:3px;padding:0 4px;margin-right:3px;font:11px/1.5 system-ui,sans-serif;white-space:nowrap}"
    ".b.div{background:#f4b4ae;color:#5c0f0a}.b.bar{background:#f7c873;color:#5a3800}.b.coll{background:#e8b4e0;color:#5a0f4f}.b.unc{background:#b9d7f5;color:#0a3069}.b.mis{background:#d8c8f0;color:#3b1d70}"
    ".b.bank{background:#f7d38a;color:#5a3b00}.b.ra.local{background:#e9b3d9;color:#5a0f45}"
    ".b.ra.shared{background:#c8e6c9;color:#1b4d1e}.b.ra.remat{background:#e6e6e6;color:#3d3d3d}"
    "td .b.ra{margin-left:4px}table.src.ra td.mk{white-space:normal;min-width:12em;max-width:22em}.b.possible{opacity:.75;border:1px dashed #57606a}"
    "i.u,i.a,i.d{font:11px/1.5 ui-monospace,monospace;border-radius:3px;padding:0 4px;white-space:nowrap}"
    "table.ptx td:last-child{white-space:normal}table.ptx td.t{min-width:17em}"
    "i.u{background:#d8eed8}i.a{background:#d6e6f7}i.d{background:#f4b4ae}"
    ".ptxgrp h4{margin:4px 0;font-size:12px}.note{color:#57606a;font-size:12px}"
    ".cfg text{text-anchor:middle;font:9px sans-serif}.cfg .node text{font:10px monospace}"
    ".cfg{overflow:auto;border:1px solid #d0d7de;border-radius:4px;background:#fff;max-height:80vh}"
    ".legend span{display:inline-block;border:1px solid #8c959f;width:12px;height:10px;margin:0 3px 0 10px;vertical-align:middle}"
    "ol.findings li{margin:3px 0}ol.findings .msg{color:#24292f}ol.findings .hint,ol.findings .assumed{color:#57606a}"
    "table.index{border-collapse:collapse}table.index td,table.index th{border-bottom:1px solid #d0d7de;padding:2px 8px;text-align:left}"
    "table.index td.n{text-align:right}details.group{margin:10px 0}details.group>summary{cursor:pointer;"
    "font:600 14px ui-monospace,monospace}pre.q{margin:2px 0 6px;padding:2px 6px;background:#f6f8fa;font:12px ui-monospace,monospace}";

/* A click on a source line shows its PTX group (and only it) beside the
 * source; so does a link to the line (#kK-sF-L: the findings list links
 * there, and a page opened with one shows it at once; #show=kK-sF-L does
 * the same without scrolling to it). */
static const char script[] =
    "function ptxrayShow(r){if(!r||!r.dataset||!r.dataset.ptx)return;"
    "var k=r.closest('section.kernel');"
    "k.querySelectorAll('.ptxgrp').forEach(function(g){g.hidden=true;});"
    "k.querySelectorAll('tr.sel').forEach(function(x){x.classList.remove('sel');});"
    "var g=document.getElementById(r.dataset.ptx);if(!g)return;"
    "g.hidden=false;r.classList.add('sel');"
    "var h=k.querySelector('.ptxhint');if(h)h.hidden=true;}"
    "document.addEventListener('click',function(e){ptxrayShow(e.target.closest('tr.src[data-ptx]'));});"
    "function ptxrayOpen(d){if(d._p)return d._p;var z=d.querySelector(':scope>script.z');"
    "if(!z)return d._p=Promise.resolve(false);"
    "var b=Uint8Array.from(atob(z.textContent),function(c){return c.charCodeAt(0);});"
    "return d._p=new Response(new Blob([b]).stream().pipeThrough(new DecompressionStream('deflate'))).text()"
    ".then(function(t){z.remove();d.insertAdjacentHTML('beforeend',t);return true;});}"
    "document.addEventListener('toggle',function(e){if(e.target.open&&e.target.matches('details.group'))"
    "ptxrayOpen(e.target);},true);"
    "function ptxrayHash(){var h=location.hash.slice(1),s=h.indexOf('show=')==0;if(s)h=h.slice(5);if(!h)return;"
    "var m=/^k(\\d+)/.exec(h),d=null;"
    "if(m)document.querySelectorAll('details.group').forEach(function(x){"
    "if((','+x.dataset.ks+',').indexOf(','+m[1]+',')>=0)d=x;});"
    "if(!d)d=document.getElementById(h);if(d&&d.matches('details.group'))d.open=true;else d=null;"
    "(d?ptxrayOpen(d):Promise.resolve(false)).then(function(z){var e=document.getElementById(h);"
    "if(z&&!s&&e)e.scrollIntoView();ptxrayShow(e);});}"
    "window.addEventListener('hashchange',ptxrayHash);document.addEventListener('DOMContentLoaded',ptxrayHash);";

void html_begin(FILE *o, const char *title)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"generator\" content=\"ptxray " PTXRAY_VERSION "\">\n<title>",
          o);
    html_escz(o, title);
    fprintf(o, "</title>\n<style>%s</style>\n<script>%s</script>\n</head>\n<body>\n", css, script);
}

void html_end(FILE *o) { fputs("</body>\n</html>\n", o); }

static void header(FILE *o, const char *cmd, const char *shown)
{
    fprintf(o, "<header><h1>ptxray %s: ", cmd);
    html_escz(o, shown);
    fputs("</h1><p>assumed: warps of 32 consecutive threads; 32-byte sectors; allocations 256-byte aligned; no "
          "index wraparound</p></header>\n<main>\n",
          o);
}

/* The summary table (summary_table.h), each group linked to its <details>. */
static void summary_table(FILE *o, const sum_table *t)
{
    fprintf(o, "<p>%u function%s in %zu group%s; ranked by proven cost, then possible cost; findings as "
               "proven/possible.</p>\n",
            t->nfuncs, t->nfuncs == 1 ? "" : "s", t->n, t->n == 1 ? "" : "s");
    if (t->supp_by) {
        fprintf(o, "<p>suppressed: %zu finding%s by ", t->nsupp, t->nsupp == 1 ? "" : "s");
        html_escz(o, t->supp_by);
        fputs("</p>\n", o);
    }
    fputs("<table class=\"index summary\"><tr><th>template or function</th><th>instances</th>", o);
    for (int r = 0; r < CHK_NRULES; r++)
        if (sum_shows_rule(t, r)) fprintf(o, "<th>%s</th>", chk_rule_name((enum chk_rule)r));
    fputs("<th>proven cost</th><th>possible cost</th></tr>\n", o);
    for (size_t i = 0; i < t->n; i++) {
        const sum_group *g = &t->g[i];
        fprintf(o, "<tr><td><a href=\"#g%zu\">", i);
        html_escz(o, g->name);
        fputs("</a></td>", o);
        if (g->is_template) fprintf(o, "<td class=\"n\">%u</td>", g->n);
        else fputs("<td class=\"n\">-</td>", o);
        for (int r = 0; r < CHK_NRULES; r++)
            if (!sum_shows_rule(t, r)) continue;
            else if (g->count[r][0] || g->count[r][1])
                fprintf(o, "<td class=\"n\">%u/%u</td>", g->count[r][0], g->count[r][1]);
            else fputs("<td class=\"n\">-</td>", o);
        fprintf(o, "<td class=\"n\">%llu</td><td class=\"n\">%llu</td></tr>\n",
                (unsigned long long)g->cost[CHK_PROVEN], (unsigned long long)g->cost[CHK_POSSIBLE]);
    }
    fputs("</table>\n", o);
}

/* base64 (RFC 4648) of n bytes: what atob reads back in the page. */
static void base64(FILE *o, const unsigned char *p, size_t n)
{
    static const char d[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
        char q[4] = {d[v >> 18 & 63], d[v >> 12 & 63], i + 1 < n ? d[v >> 6 & 63] : '=', i + 2 < n ? d[v & 63] : '='};
        fwrite(q, 1, 4, o);
    }
}

/* A group's sections, deflated and base64'd, for the script to inflate. */
static void deflated(FILE *o, const char *t, size_t n)
{
    uLongf zn = compressBound((uLong)n);
    unsigned char *z = malloc(zn ? zn : 1);
    if (!z || compress2(z, &zn, (const Bytef *)t, (uLong)n, Z_BEST_COMPRESSION) != Z_OK) abort();
    fputs("<script type=\"application/x-ptxray-deflate\" class=\"z\">", o);
    base64(o, z, zn);
    fputs("</script>", o);
    free(z);
}

void html_analyze(FILE *o, const char *shown, const char *ptx, const ptx_module *m, const html_kernel *ks, size_t n,
                  const sum_table *sum, bool ptxas, progress *pg)
{
    char title[512];
    snprintf(title, sizeof title, "ptxray analyze: %s", shown);
    html_begin(o, title);
    header(o, "analyze", shown);
    sc_ptxas_info info;
    memset(&info, 0, sizeof info);
    char why[320] = "ptxas -v not run";
    bool px = false;
    if (ptxas) px = !sc_ptxas_module(m, ptx, &info, why, sizeof why);
    if (!n) fputs("<p>No function with a body.</p>\n", o);
    else summary_table(o, sum);
    if (n)
        fputs("<p class=\"note\">Marks: <span class=\"b div proven\">divergent</span>branch not proven uniform "
              "<span class=\"b unc proven\">uncoalesced 8/4 sect.</span>sectors per request / ideal "
              "<span class=\"b bank proven\">bank 2-way</span>bank-conflict degree "
              "<span class=\"b mis possible\">misaligned +1 sect.?</span>excess sectors; ? and dashed: possible (depends on a loaded value, "
              "an alignment or a stride: hover for what), else proven.  Line colour: the findings' cost (excess "
              "sectors or wavefronts, &times;10 per loop level).</p>\n",
              o);
    if (n && ks[0].ra) html_ra_legend(o);
    /* each group's sections (its functions at each of their shapes, PTX
     * order), written aside first: the page's size decides how they go in */
    char **text = calloc(sum->n ? sum->n : 1, sizeof *text);
    size_t *len = calloc(sum->n ? sum->n : 1, sizeof *len), total = 0, done = 0;
    if (!text || !len) abort();
    for (size_t g = 0; g < sum->n; g++) {
        FILE *f = open_memstream(&text[g], &len[g]);
        if (!f) abort();
        for (size_t i = 0; i < n; i++)
            if (sum->group_of[ks[i].func] == g) {
                html_kernel_section(f, &ks[i], (uint32_t)i, px ? &info : NULL, why);
                pg_tick(pg, ++done, n, "kernels");
            }
        if (fclose(f)) abort();
        total += len[g];
    }
    pg_end(pg);
    bool plain = total <= HTML_PLAIN_MAX;
    for (size_t g = 0; g < sum->n; g++) {
        const sum_group *sg = &sum->g[g];
        fprintf(o, "<details class=\"group\" id=\"g%zu\" data-ks=\"", g);
        bool first = true;
        for (size_t i = 0; i < n; i++)
            if (sum->group_of[ks[i].func] == g) fprintf(o, "%s%zu", first ? "" : ",", i), first = false;
        fprintf(o, "\"%s><summary>", plain ? " open" : "");
        html_escz(o, sg->name);
        if (sg->is_template) fprintf(o, " (%u instance%s)", sg->n, sg->n == 1 ? "" : "s");
        fputs("</summary>\n", o);
        if (plain) fwrite(text[g], 1, len[g], o);
        else deflated(o, text[g], len[g]);
        fputs("</details>\n", o);
        free(text[g]);
    }
    free(text);
    free(len);
    html_svg_release();
    fputs("</main>\n", o);
    html_end(o);
    sc_ptxas_free(&info);
}

/* ---- check ------------------------------------------------------------------ */
static void badge(FILE *o, const chk_finding *x)
{
    fprintf(o, "<span class=\"b %s %s\">%s, %s</span>", html_rule_class(x->rule),
            chk_certainty_name((enum chk_certainty)x->certainty), chk_rule_name((enum chk_rule)x->rule),
            chk_certainty_name((enum chk_certainty)x->certainty));
}

static bool same_kernel(const chk_finding *a, const chk_finding *b)
{
    return a->ptx_path == b->ptx_path && !strcmp(a->symbol, b->symbol);
}

/* Findings (unsuppressed, of enabled rules) by file, then kernel: indexes
 * into l->v in file, kernel, cost order (qsort has no context argument:
 * the list is a file-scope variable while html_check sorts). */
static const chk_list *cmp_list;
static int cmp_file_kernel(const void *a, const void *b)
{
    const chk_finding *x = &cmp_list->v[*(const size_t *)a], *y = &cmp_list->v[*(const size_t *)b];
    int c = strcmp(x->ptx_path, y->ptx_path);
    if (!c) c = strcmp(x->symbol, y->symbol);
    if (!c) c = *(const size_t *)a < *(const size_t *)b ? -1 : 1; /* the list's order: by cost */
    return c;
}

void html_check(FILE *o, const chk_run *r)
{
    const chk_list *l = r->l;
    html_begin(o, "ptxray check");
    fputs("<header><h1>ptxray check</h1><p>assumed: warps of 32 consecutive threads; 32-byte sectors; allocations "
          "256-byte aligned; no index wraparound</p></header>\n<main>\n",
          o);
    size_t *ix = malloc(sizeof *ix * (l->n ? l->n : 1)), n = 0;
    if (!ix) abort();
    for (size_t i = 0; i < l->n; i++)
        if (!l->v[i].suppressed && (r->enabled >> l->v[i].rule & 1)) ix[n++] = i;
    cmp_list = l;
    qsort(ix, n, sizeof *ix, cmp_file_kernel);
    char counts[256];
    chk_counts_text(r, counts, sizeof counts);
    fprintf(o, "<p>%zu file%s checked, %zu with errors; %zu finding%s (%s).</p>\n", r->nfiles,
            r->nfiles == 1 ? "" : "s", r->nbad, n, n == 1 ? "" : "s", counts);
    /* the index: one row per kernel with findings, its file linked */
    fputs("<table class=\"index\"><tr><th>file</th><th>kernel</th>", o);
    for (int k = 0; k < CHK_NRULES; k++)
        if (r->enabled >> k & 1) fprintf(o, "<th>%s</th>", chk_rule_name((enum chk_rule)k));
    fputs("<th>total</th></tr>\n", o);
    /* files in the order they were checked (sorted by path) */
    char *const *paths = l->paths;
    for (size_t f = 0; f < l->npaths; f++) {
        bool any = false;
        for (size_t i = 0; i < n;) {
            const chk_finding *x = &l->v[ix[i]];
            size_t j = i;
            uint32_t c[CHK_NRULES] = {0};
            while (j < n && same_kernel(&l->v[ix[j]], x)) c[l->v[ix[j++]].rule]++;
            if (strcmp(x->ptx_path, paths[f])) {
                i = j;
                continue;
            }
            fprintf(o, "<tr><td><a href=\"#f%zu\">", f);
            html_escz(o, paths[f]);
            fputs("</a></td><td>", o);
            html_escz(o, x->kernel);
            fputs("</td>", o);
            for (int k = 0; k < CHK_NRULES; k++)
                if (r->enabled >> k & 1) fprintf(o, "<td class=\"n\">%u</td>", c[k]);
            fprintf(o, "<td class=\"n\">%zu</td></tr>\n", j - i);
            any = true;
            i = j;
        }
        if (!any) {
            fputs("<tr><td>", o);
            html_escz(o, paths[f]);
            fputs("</td><td>(none)</td>", o);
            for (int k = 0; k < CHK_NRULES; k++)
                if (r->enabled >> k & 1) fputs("<td class=\"n\">0</td>", o);
            fputs("<td class=\"n\">0</td></tr>\n", o);
        }
    }
    fputs("</table>\n", o);
    /* a section per file with findings */
    for (size_t f = 0; f < l->npaths; f++) {
        const chk_finding *prev = NULL;
        for (size_t i = 0; i < n; i++) {
            const chk_finding *x = &l->v[ix[i]];
            if (strcmp(x->ptx_path, paths[f])) continue;
            if (!prev) {
                fprintf(o, "<section class=\"file\" id=\"f%zu\"><h2>", f);
                html_escz(o, paths[f]);
                fputs("</h2>\n", o);
            }
            if (!prev || !same_kernel(prev, x)) {
                if (prev) fputs("</ol>\n", o);
                fputs("<h3>", o);
                html_escz(o, x->kernel);
                fputs("</h3>\n<ol class=\"findings\">\n", o);
            }
            prev = x;
            fputs("<li>", o);
            badge(o, x);
            if (x->src_file) {
                html_escz(o, x->src_file);
                fprintf(o, ":%u:%u, ", x->src_line, x->src_col);
            }
            fprintf(o, "PTX line %u, cost %llu: ", x->line, (unsigned long long)x->cost);
            html_finding_msg(o, x);
            if (x->src_text) {
                fputs("<pre class=\"q\">", o);
                html_escz(o, x->src_text);
                fputs("</pre>", o);
            }
            html_finding_hint(o, x, "");
            fputs("</li>\n", o);
        }
        if (prev) fputs("</ol>\n</section>\n", o);
    }
    fputs("</main>\n", o);
    html_end(o);
    free(ix);
}
