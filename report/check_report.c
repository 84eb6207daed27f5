/* Text, JSON and SARIF reports of `ptxray check` (check_report.h). */
#include "check_report.h"
#include <inttypes.h>
#include <string.h>
#include "version.h"

void chk_fingerprint_text(uint64_t fp, char buf[17]) { snprintf(buf, 17, "%016" PRIx64, fp); }

static void count(const chk_run *r, size_t by_rule[CHK_NRULES], size_t *suppressed)
{
    memset(by_rule, 0, sizeof(size_t) * CHK_NRULES);
    *suppressed = 0;
    for (size_t i = 0; i < r->l->n; i++) {
        if (r->l->v[i].suppressed) (*suppressed)++;
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

void chk_report_text(FILE *o, const chk_run *r)
{
    size_t shown = 0;
    for (size_t i = 0; i < r->l->n; i++) {
        const chk_finding *x = &r->l->v[i];
        if (x->suppressed) continue;
        shown++;
        fprintf(o, "%s:%u:%u: warning: %s [%s]\n", x->ptx_path, x->line, x->col, x->message,
                chk_rule_name((enum chk_rule)x->rule));
        fprintf(o, "%s:%u:%u: note: in %s", x->ptx_path, x->line, x->col, x->kernel);
        if (x->src_file) fprintf(o, ", from %s:%u:%u", x->src_file, x->src_line, x->src_col);
        fputc('\n', o);
        if (x->hint) fprintf(o, "%s:%u:%u: note: hint: %s\n", x->ptx_path, x->line, x->col, x->hint);
    }
    size_t by[CHK_NRULES], sup;
    count(r, by, &sup);
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
    fprintf(o, "ptxray check: %zu files, %zu findings (%s), %zu suppressed by the baseline", r->nfiles, shown, counts,
            sup);
    if (r->nbad) fprintf(o, ", %zu files with errors", r->nbad);
    fprintf(o, "; failing on %s\n", fail);
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
    coal_report_ctx c = {NULL, NULL, r->opts, NULL};
    json_t *a = coal_assumptions_json(&c);
    json_object_set_new(a, "branches",
                        json_string("a conditional branch is divergent unless the affine analysis (degree 2, the "
                                    "coalescing model's block shape) proves its condition warp-uniform"));
    return a;
}

json_t *chk_report_json(const chk_run *r)
{
    json_t *root = json_object(), *fs = json_array(), *rules = json_object(), *sum = json_object(), *by = json_object();
    json_object_set_new(root, "tool", json_string("ptxray check"));
    json_object_set_new(root, "version", json_string(PTXRAY_VERSION));
    json_object_set_new(root, "assumptions", assumptions(r));
    json_object_set_new(rules, "enabled", rules_json(r->enabled));
    json_object_set_new(rules, "fail_on", rules_json(r->fail_on));
    json_object_set_new(root, "rules", rules);
    for (size_t i = 0; i < r->l->n; i++) {
        const chk_finding *x = &r->l->v[i];
        if (x->suppressed) continue;
        json_t *o = json_object();
        char fp[17];
        chk_fingerprint_text(x->fingerprint, fp);
        json_object_set_new(o, "file", json_string(x->ptx_path));
        json_object_set_new(o, "line", json_integer(x->line));
        json_object_set_new(o, "col", json_integer(x->col));
        json_object_set_new(o, "rule", json_string(chk_rule_name((enum chk_rule)x->rule)));
        json_object_set_new(o, "kernel", json_string(x->kernel));
        json_object_set_new(o, "src", x->src_file ? json_pack("{s:s,s:i,s:i}", "file", x->src_file, "line",
                                                              (json_int_t)x->src_line, "col", (json_int_t)x->src_col)
                                                  : json_null());
        json_object_set_new(o, "loop_depth", json_integer(x->loop_depth));
        json_object_set_new(o, "message", json_string(x->message));
        json_object_set_new(o, "hint", x->hint ? json_string(x->hint) : json_null());
        json_object_set_new(o, "fingerprint", json_string(fp));
        json_array_append_new(fs, o);
    }
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
    json_object_set_new(sum, "findings", json_integer((json_int_t)tot));
    json_object_set_new(sum, "by_rule", by);
    json_object_set_new(sum, "suppressed", json_integer((json_int_t)sup));
    json_object_set_new(root, "summary", sum);
    return root;
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

json_t *chk_report_sarif(const chk_run *r)
{
    json_t *run, *rules;
    json_t *root = coal_sarif_log(&run, &rules);
    coal_sarif_add_rule(rules, "divergent-branch", "DivergentBranch", "Branch not proven warp-uniform",
                        "A conditional branch whose condition the affine divergence analysis cannot prove to be the "
                        "same in every lane of a warp: the warp may split and run both paths.");
    json_t *results = json_array();
    for (size_t i = 0; i < r->l->n; i++) {
        const chk_finding *x = &r->l->v[i];
        if (x->suppressed) continue;
        char full[2300], note[512], fp[17];
        if (x->hint) snprintf(full, sizeof full, "%s. Hint: %s", x->message, x->hint);
        else snprintf(full, sizeof full, "%s", x->message);
        snprintf(note, sizeof note, "PTX instruction in %s", x->kernel);
        src_pos p;
        memset(&p, 0, sizeof p);
        p.file = x->src_file;
        p.line = x->src_line;
        p.col = x->src_col;
        const char *rule = chk_rule_name((enum chk_rule)x->rule);
        json_t *res = coal_sarif_result(rule, rule_index(rules, rule), full, &p, x->ptx_path, x->line, x->col, note);
        chk_fingerprint_text(x->fingerprint, fp);
        json_object_set_new(res, "partialFingerprints", json_pack("{s:s}", "ptxrayFingerprint/v1", fp));
        json_object_set_new(res, "properties", json_pack("{s:s,s:i,s:i}", "kernel", x->kernel, "ptxLine",
                                                         (json_int_t)x->line, "loopDepth", (json_int_t)x->loop_depth));
        json_array_append_new(results, res);
    }
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
