/* Text, JSON and SARIF reports of `ptxray check` (check_report.h). */
#include "check_report.h"
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "json_stream.h"
#include "version.h"

void chk_fingerprint_text(uint64_t fp, char buf[17]) { snprintf(buf, 17, "%016" PRIx64, fp); }

static void count(const chk_run *r, size_t by_rule[CHK_NRULES], size_t *suppressed)
{
    memset(by_rule, 0, sizeof(size_t) * CHK_NRULES);
    *suppressed = 0;
    for (size_t i = 0; i < r->l->n; i++) {
        if (r->l->v[i].suppressed) *suppressed += !r->l->v[i].supp; /* the project file's: config_note */
        else by_rule[r->l->v[i].rule]++;
    }
}

void chk_counts_text(const chk_run *r, char *buf, size_t n)
{
    size_t by[CHK_NRULES], sup, len = 0;
    count(r, by, &sup);
    buf[0] = 0;
    for (int k = 0; k < CHK_NRULES && len < n; k++) {
        if (!(r->enabled >> k & 1)) continue;
        int w = snprintf(buf + len, n - len, "%s%s %zu", len ? ", " : "", chk_rule_name((enum chk_rule)k), by[k]);
        if (w > 0) len += (size_t)w;
    }
}

static void mask_text(unsigned mask, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = 0;
    for (int k = 0; k < CHK_NRULES && len < n; k++)
        if (mask >> k & 1) {
            int w = snprintf(buf + len, n - len, "%s%s", len ? "," : "", chk_rule_name((enum chk_rule)k));
            if (w > 0) len += (size_t)w;
        }
    if (!len) snprintf(buf, n, "none");
}

/* The condition the conditional verdicts rest on: the weakest of theirs
 * when they differ ("blockDim.x is a multiple of 32" implies the other). */
static const char *cond_summary(const chk_list *l)
{
    const char *t = l->cv[0].message;
    for (size_t i = 1; i < l->ncv; i++)
        if (strcmp(l->cv[i].message, t)) return "the default block shape holds (blockDim.x a multiple of 32)";
    return t;
}

/* The uniform branch verdicts that rest on the default block shape. */
static json_t *conditional_json(const chk_list *l)
{
    json_t *a = json_array();
    for (size_t i = 0; i < l->ncv; i++) {
        const chk_finding *x = &l->cv[i];
        json_t *o = json_object();
        json_object_set_new(o, "file", json_string(x->ptx_path));
        json_object_set_new(o, "line", json_integer(x->line));
        json_object_set_new(o, "col", json_integer(x->col));
        json_object_set_new(o, "kernel", json_string(x->kernel));
        json_object_set_new(o, "src", x->src_file ? json_pack("{s:s,s:i,s:i}", "file", x->src_file, "line",
                                                              (json_int_t)x->src_line, "col", (json_int_t)x->src_col)
                                                  : json_null());
        json_object_set_new(o, "verdict", json_string("uniform"));
        json_object_set_new(o, "condition", json_string(x->message));
        json_array_append_new(a, o);
    }
    return a;
}

bool chk_fails(const chk_run *r, const chk_finding *x)
{
    return !x->suppressed && (r->fail_on >> x->rule & 1) && (x->certainty == CHK_PROVEN || r->strict);
}

static const char *excess_unit(const chk_finding *x)
{
    switch (x->rule) {
    case CHK_BANK_CONFLICT: return "excess wavefronts";
    case CHK_DIVERGENT_BRANCH: return x->excess == 1 ? "branch" : "branches";
    case CHK_DIVERGENT_BARRIER: return x->excess == 1 ? "barrier" : "barriers";
    case CHK_DIVERGENT_COLLECTIVE: return x->excess == 1 ? "collective" : "collectives";
    default: return "excess sectors";
    }
}

/* The source line and a caret under the column, as gcc prints them. */
static void caret(FILE *o, const chk_finding *x)
{
    if (!x->src_text) return;
    int w = fprintf(o, "%5u | ", x->src_line);
    fprintf(o, "%s\n", x->src_text);
    fprintf(o, "%*s| ", w > 2 ? w - 2 : 0, "");
    size_t n = strlen(x->src_text);
    for (uint32_t i = 1; i < x->src_col && i - 1 < n; i++) fputc(x->src_text[i - 1] == '\t' ? '\t' : ' ', o);
    fputs("^\n", o);
}

static void finding_text(FILE *o, const chk_finding *x)
{
    const char *rule = chk_rule_name((enum chk_rule)x->rule);
    bool possible = x->certainty == CHK_POSSIBLE;
    if (x->src_file) fprintf(o, "%s:%u:%u: ", x->src_file, x->src_line, x->src_col);
    else fprintf(o, "%s:%u:%u: ", x->ptx_path, x->line, x->col);
    fprintf(o, "warning: %s%s [%s%s]\n", possible ? "possible: " : "", x->message, rule, possible ? ", possible" : "");
    if (x->src_file) caret(o, x);
    fprintf(o, "%s:%u:%u: note: in %s: %u PTX instruction%s", x->ptx_path, x->line, x->col, x->kernel, x->ninst,
            x->ninst == 1 ? "" : "s");
    if (x->ninst > 1) fprintf(o, " (first at line %u)", x->line);
    fprintf(o, ", %" PRIu64 " %s, cost %" PRIu64, x->excess, excess_unit(x), x->cost);
    if (x->loop_depth) fprintf(o, " (loop depth %u)", x->loop_depth);
    fputc('\n', o);
    for (uint32_t k = 0; k < x->ncalls; k++)
        fprintf(o, "%s:%u:%u: note: inlined from here\n", x->calls[k].file, x->calls[k].line, x->calls[k].col);
    if (x->nshapes > 1 || (x->origin != BLK_DEFAULT && x->origin != BLK_ALL)) {
        char at[2048];
        chk_holds_at_text(x, at, sizeof at);
        fprintf(o, "%s:%u:%u: note: %s\n", x->ptx_path, x->line, x->col, at);
    }
    if (possible && x->depends) fprintf(o, "%s:%u:%u: note: depends on %s\n", x->ptx_path, x->line, x->col, x->depends);
    if (x->assumed) fprintf(o, "%s:%u:%u: note: assuming %s\n", x->ptx_path, x->line, x->col, x->assumed);
    if (x->hint) fprintf(o, "%s:%u:%u: note: hint: %s\n", x->ptx_path, x->line, x->col, x->hint);
    if (x->also) fprintf(o, "%s:%u:%u: note: the same PTX is also in %s\n", x->ptx_path, x->line, x->col, x->also);
}

static void certainty_count(const chk_run *r, size_t *proven, size_t *possible)
{
    *proven = *possible = 0;
    for (size_t i = 0; i < r->l->n; i++)
        if (!r->l->v[i].suppressed) {
            if (r->l->v[i].certainty == CHK_PROVEN) (*proven)++;
            else (*possible)++;
        }
}

/* What n inputs are called: files, or, when a binary contributed (it holds
 * several), PTX texts. */
static const char *inputs_word(const chk_run *r, size_t n)
{
    return !r->nbin ? "files" : n == 1 ? "PTX text" : "PTX texts";
}

void chk_report_text(FILE *o, const chk_run *r)
{
    size_t shown = 0;
    for (size_t i = 0; i < r->l->n; i++) {
        const chk_finding *x = &r->l->v[i];
        if (x->suppressed) continue;
        shown++;
        finding_text(o, x);
    }
    size_t by[CHK_NRULES], sup, proven, possible;
    count(r, by, &sup);
    certainty_count(r, &proven, &possible);
    char counts[256], fail[128];
    chk_counts_text(r, counts, sizeof counts);
    mask_text(r->fail_on, fail, sizeof fail);
    char shape[512];
    blk_summary(coal_blocks(r->opts), r->l->origin, shape, sizeof shape);
    fprintf(o, "assumed: %s\n", shape);
    if (r->l->ncv)
        fprintf(o, "assumed: %zu branch%s proven uniform only if %s (--format json or sarif lists them; --block "
                   "X,Y,Z checks them at your shape)\n",
                r->l->ncv, r->l->ncv == 1 ? "" : "es", cond_summary(r->l));
    fprintf(o, "ptxray check: %zu %s", r->nfiles, inputs_word(r, r->nfiles));
    if (r->nbin == r->nfiles && r->nbin) fprintf(o, r->nbin == 1 ? " (from a binary)" : " (from binaries)");
    else if (r->nbin) fprintf(o, " (%zu from binaries)", r->nbin);
    fprintf(o, ", %zu findings (%s; %zu proven, %zu possible), %zu suppressed by the baseline", shown, counts, proven,
            possible, sup);
    if (r->config_note) fprintf(o, "%s", r->config_note);
    if (r->nbad) fprintf(o, ", %zu %s with errors", r->nbad, inputs_word(r, r->nbad));
    fprintf(o, "; failing on %s%s\n", fail, r->strict ? " (--strict: possible findings too)" : "");
}

static json_t *rules_json(unsigned mask)
{
    json_t *a = json_array();
    for (int k = 0; k < CHK_NRULES; k++)
        if (mask >> k & 1) json_array_append_new(a, json_string(chk_rule_name((enum chk_rule)k)));
    return a;
}

static json_t *assumptions(const chk_run *r)
{
    coal_report_ctx c = {NULL, NULL, r->opts, NULL, NULL};
    json_t *a = coal_assumptions_json(&c);
    json_object_set_new(a, "branches",
                        json_string("a conditional branch is divergent unless the affine analysis (degree 2, the "
                                    "coalescing model's block shape) proves its condition warp-uniform"));
    return a;
}

/* The JSON report with its "findings" empty: *findings, to fill. */
static json_t *report_json(const chk_run *r, json_t **findings)
{
    json_t *root = json_object(), *fs = json_array(), *rules = json_object(), *sum = json_object(), *by = json_object();
    *findings = fs;
    json_object_set_new(root, "tool", json_string("ptxray check"));
    json_object_set_new(root, "version", json_string(PTXRAY_VERSION));
    json_object_set_new(root, "assumptions", assumptions(r));
    json_object_set_new(rules, "enabled", rules_json(r->enabled));
    json_object_set_new(rules, "fail_on", rules_json(r->fail_on));
    json_object_set_new(rules, "strict", json_boolean(r->strict));
    json_object_set_new(root, "rules", rules);
    json_object_set_new(root, "findings", fs);
    json_object_set_new(root, "conditional_verdicts", conditional_json(r->l));
    size_t n[CHK_NRULES], sup, tot = 0;
    count(r, n, &sup);
    for (int k = 0; k < CHK_NRULES; k++)
        if (r->enabled >> k & 1) {
            json_object_set_new(by, chk_rule_name((enum chk_rule)k), json_integer((json_int_t)n[k]));
            tot += n[k];
        }
    json_object_set_new(sum, "files", json_integer((json_int_t)r->nfiles));
    json_object_set_new(sum, "files_with_errors", json_integer((json_int_t)r->nbad));
    if (r->nbin) json_object_set_new(sum, "from_binaries", json_integer((json_int_t)r->nbin));
    json_object_set_new(sum, "findings", json_integer((json_int_t)tot));
    json_object_set_new(sum, "by_rule", by);
    size_t proven, possible;
    certainty_count(r, &proven, &possible);
    json_object_set_new(sum, "proven", json_integer((json_int_t)proven));
    json_object_set_new(sum, "possible", json_integer((json_int_t)possible));
    size_t ninst = 0;
    for (size_t i = 0; i < r->l->n; i++)
        if (!r->l->v[i].suppressed) ninst += r->l->v[i].ninst;
    json_object_set_new(sum, "instructions", json_integer((json_int_t)ninst));
    json_object_set_new(sum, "suppressed", json_integer((json_int_t)sup));
    json_object_set_new(root, "summary", sum);
    return root;
}

/* ---- a finding written straight to the stream -------------------------------- */
/* The bytes jansson would dump for the finding's tree, without building
 * one per finding (a tenth of `check --format json`'s instructions on the
 * corpus).  Where a tree would drop a member (jansson refuses a NULL or
 * non-UTF-8 string: json_string gives NULL, which json_object_set_new and
 * json_array_append_new leave out), so does this. */

/* v would make a jansson string: not NULL, and valid UTF-8 (ASCII is). */
static bool str_ok(const char *v)
{
    if (!v) return false;
    const unsigned char *u = (const unsigned char *)v;
    while (*u && *u < 0x80) u++;
    if (!*u) return true;
    json_t *k = json_string(v);
    json_decref(k);
    return k != NULL;
}

/* json_object_set_new(o, key, json_string(v)) */
static void put_str(jstream *s, const char *key, const char *v)
{
    if (str_ok(v)) js_str(s, key, v);
}

/* json_object_set_new(o, key, v ? json_string(v) : json_null()) */
static void put_str_or_null(jstream *s, const char *key, const char *v)
{
    if (!v) js_null(s, key);
    else put_str(s, key, v);
}

/* json_pack("{s:s,s:i,s:i}", "file", file, "line", line, "col", col) as
 * member key or element, left open; false (nothing written) where
 * json_pack fails */
static bool open_pos(jstream *s, const char *key, const char *file, uint32_t line, uint32_t col)
{
    if (!str_ok(file)) return false;
    js_open_object(s, key);
    js_str(s, "file", file);
    js_int(s, "line", (long long)line);
    js_int(s, "col", (long long)col);
    return true;
}

void chk_put_finding(jstream *s, const chk_finding *x)
{
    char fp[17];
    chk_fingerprint_text(x->fingerprint, fp);
    js_open_object(s, NULL);
    put_str(s, "file", x->ptx_path);
    if (x->also) put_str(s, "also_in", x->also);
    js_int(s, "line", (long long)x->line);
    js_int(s, "col", (long long)x->col);
    put_str(s, "rule", chk_rule_name((enum chk_rule)x->rule));
    put_str(s, "certainty", chk_certainty_name((enum chk_certainty)x->certainty));
    put_str_or_null(s, "depends_on", x->depends);
    if (x->has_param) {
        js_open_object(s, "param");
        js_int(s, "index", (long long)x->param);
        put_str_or_null(s, "name", x->param_name);
        js_close(s);
    }
    if (x->value) put_str(s, "value", x->value);
    put_str(s, "kernel", x->kernel);
    put_str(s, "symbol", x->symbol);
    if (!x->src_file) js_null(s, "src");
    else if (open_pos(s, "src", x->src_file, x->src_line, x->src_col)) {
        put_str_or_null(s, "text", x->src_text);
        js_close(s);
    }
    js_open_array(s, "call_sites");
    for (uint32_t k = 0; k < x->ncalls; k++)
        if (open_pos(s, NULL, x->calls[k].file, x->calls[k].line, x->calls[k].col)) js_close(s);
    js_close(s);
    js_int(s, "instructions", (long long)x->ninst);
    js_open_array(s, "ptx_lines");
    for (uint32_t k = 0; k < x->ninst; k++) js_int(s, NULL, (long long)x->insts[k].line);
    js_close(s);
    js_int(s, "loop_depth", (long long)x->loop_depth);
    js_int(s, "excess", (long long)(json_int_t)x->excess);
    js_int(s, "cost", (long long)(json_int_t)x->cost);
    put_str(s, "message", x->message);
    put_str_or_null(s, "hint", x->hint);
    if (x->assumed) put_str(s, "assumed", x->assumed); /* a project file's facts */
    js_int(s, "shapes_analysed", (long long)x->nshapes);
    /* chk_holds_at_json */
    js_open_array(s, "holds_at");
    for (uint32_t k = 0; k < x->nat; k++) {
        const chk_shape *h = &x->at[k];
        js_open_object(s, NULL);
        if (!h->block[0]) js_null(s, "block"); /* blk_shape_json */
        else {
            js_open_array(s, "block");
            for (int d = 0; d < 3; d++) js_int(s, NULL, (long long)h->block[d]);
            js_close(s);
        }
        put_str(s, "from", h->from);
        put_str(s, "certainty", chk_certainty_name((enum chk_certainty)h->certainty));
        js_int(s, "cost", (long long)(json_int_t)h->cost);
        js_close(s);
    }
    js_close(s);
    put_str(s, "fingerprint", fp);
    js_close(s);
}

static void put_findings(jstream *s, void *ctx)
{
    const chk_run *r = ctx;
    for (size_t i = 0; i < r->l->n; i++)
        if (!r->l->v[i].suppressed) chk_put_finding(s, &r->l->v[i]);
}

bool chk_write_json(FILE *o, const chk_run *r)
{
    jstream s;
    js_init(&s, o);
    json_t *fs, *root = report_json(r, &fs);
    js_put_tree(&s, NULL, root, fs, put_findings, (void *)r);
    return js_finish(&s);
}

/* A result's ruleIndex: the rule's position in the driver's rules. */
static size_t rule_index(json_t *rules, const char *id)
{
    size_t i;
    json_t *r;
    json_array_foreach(rules, i, r)
        if (!strcmp(json_string_value(json_object_get(r, "id")), id)) return i;
    return 0;
}

/* ---- SARIF ------------------------------------------------------------------ */

/* path made absolute (from the current directory) with "." and ".."
 * segments resolved lexically; malloc'd. */
static char *abs_path(const char *path)
{
    char cwd[4096];
    const char *pre = "";
    if (path[0] != '/') {
        if (!getcwd(cwd, sizeof cwd)) snprintf(cwd, sizeof cwd, "/");
        pre = cwd;
    }
    size_t n = strlen(pre) + strlen(path) + 3;
    char *in = malloc(n), *out = malloc(n);
    if (!in || !out) abort();
    snprintf(in, n, "%s/%s", pre, path);
    size_t k = 0;
    for (char *seg = in; *seg;) {
        char *e = strchr(seg, '/');
        size_t len = e ? (size_t)(e - seg) : strlen(seg);
        if (!len || (len == 1 && seg[0] == '.')) {
        } else if (len == 2 && seg[0] == '.' && seg[1] == '.') {
            while (k > 0 && out[k - 1] != '/') k--;
            if (k > 0) k--;
        } else {
            out[k++] = '/';
            memcpy(out + k, seg, len);
            k += len;
        }
        if (!e) break;
        seg = e + 1;
    }
    if (!k) out[k++] = '/';
    out[k] = 0;
    free(in);
    return out;
}

typedef struct sarif_ctx {
    const chk_run *r;
    char *root; /* absolute, no trailing slash (but "/" itself) */
} sarif_ctx;

/* An artifactLocation: relative to the root with uriBaseId SRCROOT when
 * under it, else an absolute file URI. */
static json_t *artifact(const sarif_ctx *s, const char *path)
{
    char *a = abs_path(path);
    size_t rl = strlen(s->root);
    json_t *o = json_object();
    char uri[4200];
    if (!strcmp(s->root, "/") || (!strncmp(a, s->root, rl) && a[rl] == '/')) {
        coal_sarif_uri(a + (strcmp(s->root, "/") ? rl + 1 : 1), uri, sizeof uri);
        json_object_set_new(o, "uri", json_string(uri));
        json_object_set_new(o, "uriBaseId", json_string("SRCROOT"));
    } else {
        char enc[4096];
        coal_sarif_uri(a, enc, sizeof enc);
        snprintf(uri, sizeof uri, "file://%s", enc);
        json_object_set_new(o, "uri", json_string(uri));
    }
    free(a);
    return o;
}

static json_t *location(const sarif_ctx *s, const char *path, uint32_t line, uint32_t col, const char *msg, int id)
{
    json_t *loc = json_object(), *phys = json_object(), *reg = json_object();
    if (id >= 0) json_object_set_new(loc, "id", json_integer(id));
    json_object_set_new(phys, "artifactLocation", artifact(s, path));
    json_object_set_new(reg, "startLine", json_integer(line ? line : 1));
    if (col) json_object_set_new(reg, "startColumn", json_integer(col));
    json_object_set_new(phys, "region", reg);
    json_object_set_new(loc, "physicalLocation", phys);
    if (msg) json_object_set_new(loc, "message", coal_sarif_text(msg));
    return loc;
}

/* The path the source file was read from, else its .loc path. */
static const char *src_path(const chk_run *r, const chk_finding *x)
{
    size_t len;
    const char *found = NULL;
    if (r->l->texts) st_line(r->l->texts, x->ptx_path, x->src_file, x->src_line, &len, &found);
    return found ? found : x->src_file;
}

static const char *sarif_level(const chk_run *r, const chk_finding *x)
{
    if (x->certainty == CHK_POSSIBLE) return "note";
    return r->fail_on >> x->rule & 1 ? "error" : "warning";
}

static json_t *sarif_result(const sarif_ctx *s, json_t *rules, const chk_finding *x)
{
    char full[3000], note[512], fp[17];
    size_t len = (size_t)snprintf(full, sizeof full, "%s%s", x->certainty == CHK_POSSIBLE ? "Possible: " : "",
                                  x->message);
    if (x->depends && len < sizeof full)
        len += (size_t)snprintf(full + len, sizeof full - len, ". Depends on %s", x->depends);
    if (x->hint && len < sizeof full) snprintf(full + len, sizeof full - len, ". Hint: %s", x->hint);
    const char *rule = chk_rule_name((enum chk_rule)x->rule);
    json_t *res = json_object(), *locs = json_array(), *rel = json_array();
    json_object_set_new(res, "ruleId", json_string(rule));
    json_object_set_new(res, "ruleIndex", json_integer((json_int_t)rule_index(rules, rule)));
    json_object_set_new(res, "level", json_string(sarif_level(s->r, x)));
    json_object_set_new(res, "message", coal_sarif_text(full));
    if (x->src_file) json_array_append_new(locs, location(s, src_path(s->r, x), x->src_line, x->src_col, NULL, -1));
    else json_array_append_new(locs, location(s, x->ptx_path, x->line, x->col, NULL, -1));
    json_object_set_new(res, "locations", locs);
    int id = 1;
    for (uint32_t k = 0; k < x->ninst; k++) {
        snprintf(note, sizeof note, "PTX instruction %u of %u in %s", k + 1, x->ninst, x->kernel);
        json_array_append_new(rel, location(s, x->ptx_path, x->insts[k].line, x->insts[k].col, note, id++));
    }
    for (uint32_t k = 0; k < x->ncalls; k++)
        json_array_append_new(rel, location(s, x->calls[k].file, x->calls[k].line, x->calls[k].col,
                                            "inlined from here", id++));
    json_object_set_new(res, "relatedLocations", rel);
    chk_fingerprint_text(x->fingerprint, fp);
    json_object_set_new(res, "partialFingerprints", json_pack("{s:s}", "ptxrayFingerprint/v2", fp));
    json_t *props = json_pack("{s:s,s:s,s:s,s:i,s:i,s:i,s:I,s:I}", "kernel", x->kernel, "symbol", x->symbol,
                              "certainty", chk_certainty_name((enum chk_certainty)x->certainty), "ptxLine",
                              (json_int_t)x->line, "instructions", (json_int_t)x->ninst, "loopDepth",
                              (json_int_t)x->loop_depth, "excess", (json_int_t)x->excess, "cost",
                              (json_int_t)x->cost);
    if (x->depends) json_object_set_new(props, "dependsOn", json_string(x->depends));
    if (x->has_param)
        json_object_set_new(props, "param", json_pack("{s:i, s:o}", "index", (json_int_t)x->param, "name",
                                                      x->param_name ? json_string(x->param_name) : json_null()));
    if (x->value) json_object_set_new(props, "value", json_string(x->value));
    if (x->assumed) json_object_set_new(props, "assumed", json_string(x->assumed)); /* a project file's facts */
    json_object_set_new(props, "shapesAnalysed", json_integer(x->nshapes));
    json_object_set_new(props, "holdsAt", chk_holds_at_json(x));
    json_object_set_new(res, "properties", props);
    return res;
}

/* The SARIF log with its results empty: *results, to fill (sarif_result
 * with *s and *rules). */
static json_t *report_sarif(const chk_run *r, sarif_ctx *s, json_t **rules_out, json_t **results_out)
{
    json_t *run, *rules;
    json_t *root = coal_sarif_log(&run, &rules);
    coal_sarif_add_rule(rules, "divergent-branch", "DivergentBranch", "Branch not proven warp-uniform",
                        "A conditional branch whose condition the affine divergence analysis cannot prove to be the "
                        "same in every lane of a warp: the warp may split and run both paths.",
                        "The lanes of a warp that disagree on the condition run the two paths one after the other. "
                        "Make the condition depend on values that are the same across a warp (the warp index "
                        "tid.x / 32, blockIdx, kernel parameters), or move the work so that whole warps take one "
                        "side. A bounds check at the end of an array (if (i < n)) splits one warp at most and is "
                        "usually fine. Proven findings have a condition that differs between lanes in every warp; "
                        "possible ones depend on values the analysis cannot see.");
    coal_sarif_add_rule(rules, "divergent-barrier", "DivergentBarrier", "Barrier some live threads of the block skip",
                        "A CTA barrier (__syncthreads(), bar.sync, barrier.sync.aligned) that threads of the block go "
                        "round at a branch not uniform across the block and then wait elsewhere: at another barrier, "
                        "or where their split warp reconverges; or a barrier id or thread count that may differ "
                        "between threads.",
                        "The PTX ISA requires every non-exited thread of the CTA to execute the same .aligned barrier, "
                        "a warp together, and a thread count that is a multiple of the warp size. Move the barrier out "
                        "of the branch, to where every thread of the block reaches it. Threads that leave the kernel "
                        "before it (if (i >= n) return;) do not take part and are no finding.");
    coal_sarif_add_rule(rules, "divergent-collective", "DivergentCollective",
                        "Warp collective whose member mask and executing lanes disagree",
                        "A .sync warp collective (__shfl_sync, __ballot_sync, __syncwarp, match, redux, elect) whose "
                        "member mask names a live lane that does not execute it, or that a lane outside its mask "
                        "executes.",
                        "The PTX ISA: the instruction waits for every non-exited lane of its member mask, and is "
                        "undefined when the executing lane is not in the mask. Use __activemask() or the branch's "
                        "ballot as the mask, or move the collective out of the branch.");
    *s = (sarif_ctx){r, abs_path(r->root ? r->root : ".")};
    json_t *results = json_array();
    *rules_out = rules;
    *results_out = results;
    char base[4200], enc[4096];
    coal_sarif_uri(s->root, enc, sizeof enc);
    snprintf(base, sizeof base, "file://%s%s", enc, strcmp(s->root, "/") ? "/" : "");
    json_object_set_new(run, "originalUriBaseIds", json_pack("{s:{s:s}}", "SRCROOT", "uri", base));
    json_object_set_new(run, "results", results);
    json_t *props = json_object();
    json_object_set_new(props, "assumptions", assumptions(r));
    json_object_set_new(props, "conditionalVerdicts", conditional_json(r->l));
    size_t by[CHK_NRULES], sup;
    count(r, by, &sup);
    json_object_set_new(props, "suppressedByBaseline", json_integer((json_int_t)sup));
    json_object_set_new(run, "properties", props);
    return root;
}

json_t *chk_report_sarif(const chk_run *r)
{
    sarif_ctx s;
    json_t *rules, *results, *root = report_sarif(r, &s, &rules, &results);
    for (size_t i = 0; i < r->l->n; i++)
        if (!r->l->v[i].suppressed) json_array_append_new(results, sarif_result(&s, rules, &r->l->v[i]));
    free(s.root);
    return root;
}

typedef struct sarif_fill {
    sarif_ctx *s;
    json_t *rules;
} sarif_fill;

static void put_results(jstream *js, void *ctx)
{
    sarif_fill *f = ctx;
    const chk_run *r = f->s->r;
    for (size_t i = 0; i < r->l->n; i++)
        if (!r->l->v[i].suppressed) js_put(js, NULL, sarif_result(f->s, f->rules, &r->l->v[i]));
}

bool chk_write_sarif(FILE *o, const chk_run *r)
{
    jstream js;
    js_init(&js, o);
    sarif_ctx s;
    json_t *rules, *results, *root = report_sarif(r, &s, &rules, &results);
    sarif_fill f = {&s, rules};
    js_put_tree(&js, NULL, root, results, put_results, &f);
    free(s.root);
    return js_finish(&js);
}
