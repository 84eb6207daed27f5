/* The project file, ptxray.yaml (config.h): found, read with libyaml,
 * checked, and asked by the pipeline for shapes, facts and suppressions. */
#include "config.h"
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <yaml.h>
#include "check_findings.h"
#include "ptx.h"
#include "names.h"
#include "srcnames.h"
#include "toolchain.h"

static char *xstrdup(const char *s)
{
    char *d = strdup(s ? s : "");
    if (!d) abort();
    return d;
}

static char *xfmt(const char *fmt, ...)
{
    va_list ap, aq;
    va_start(ap, fmt);
    va_copy(aq, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = malloc((size_t)n + 1);
    if (!s || n < 0) abort();
    vsnprintf(s, (size_t)n + 1, fmt, aq);
    va_end(aq);
    return s;
}

/* ---- reading ------------------------------------------------------------- */

typedef struct rd {
    yaml_document_t doc;
    ptx_config *c;
    ptx_diags d;
    bool bad;
} rd;

static ptx_loc loc_of(const yaml_node_t *n)
{
    return (ptx_loc){(uint32_t)n->start_mark.line + 1, (uint32_t)n->start_mark.column + 1,
                     (uint32_t)n->start_mark.index};
}

static bool bad(rd *r, const yaml_node_t *n, const char *fmt, ...)
{
    if (r->bad) return false;
    va_list ap;
    va_start(ap, fmt);
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    ptx_diag_add(&r->d, PTX_DIAG_ERROR, loc_of(n), "%s", msg);
    r->bad = true;
    return false;
}

static const char *kind_name(const yaml_node_t *n)
{
    return n->type == YAML_SCALAR_NODE ? "a scalar" : n->type == YAML_SEQUENCE_NODE ? "a list" : "a mapping";
}

/* A scalar's text (NUL-terminated by libyaml), or NULL after an error. */
static const char *scalar(rd *r, const yaml_node_t *n, const char *what)
{
    if (n->type == YAML_SCALAR_NODE) return (const char *)n->data.scalar.value;
    bad(r, n, "%s: expected a scalar, found %s", what, kind_name(n));
    return NULL;
}

static bool uint_of(rd *r, const yaml_node_t *n, const char *what, unsigned long lo, unsigned long hi, uint32_t *v)
{
    const char *s = scalar(r, n, what);
    if (!s) return false;
    char *e;
    errno = 0;
    unsigned long x = strtoul(s, &e, 10);
    if (*s < '0' || *s > '9' || *e || errno || x < lo || x > hi)
        return bad(r, n, "%s: expected an integer from %lu to %lu, found '%s'", what, lo, hi, s);
    *v = (uint32_t)x;
    return true;
}

static yaml_node_t *node(rd *r, int id) { return yaml_document_get_node(&r->doc, id); }

/* A mapping's pairs: each key must be one of keys (NULL-terminated);
 * vals[i] the value of keys[i] or NULL. */
static bool fields(rd *r, const yaml_node_t *n, const char *what, const char *const *keys, yaml_node_t **vals)
{
    size_t nk = 0;
    while (keys[nk]) vals[nk++] = NULL;
    if (n->type != YAML_MAPPING_NODE) return bad(r, n, "%s: expected a mapping, found %s", what, kind_name(n));
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        yaml_node_t *k = node(r, p->key), *v = node(r, p->value);
        const char *ks = scalar(r, k, what);
        if (!ks) return false;
        size_t i = 0;
        while (i < nk && strcmp(keys[i], ks)) i++;
        if (i == nk) {
            char list[256] = "";
            for (size_t j = 0; j < nk; j++)
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", j ? ", " : "", keys[j]);
            return bad(r, k, "%s: unknown key '%s' (expected %s)", what, ks, list);
        }
        if (vals[i]) return bad(r, k, "%s: '%s' given twice", what, ks);
        vals[i] = v;
    }
    return true;
}

/* Rules: "a,b" or a list; none only where allow_none. */
static bool rules_of(rd *r, const yaml_node_t *n, const char *what, bool allow_none, unsigned *mask, char **text)
{
    char buf[256] = "";
    if (n->type == YAML_SEQUENCE_NODE) {
        for (yaml_node_item_t *i = n->data.sequence.items.start; i < n->data.sequence.items.top; i++) {
            const char *s = scalar(r, node(r, *i), what);
            if (!s) return false;
            snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", buf[0] ? "," : "", s);
        }
    } else {
        const char *s = scalar(r, n, what);
        if (!s) return false;
        snprintf(buf, sizeof buf, "%s", s);
    }
    if (!chk_parse_rules(buf, mask) || (!allow_none && !*mask))
        return bad(r, n,
                   "%s: expected rules among " CHK_RULE_LIST "%s, found '%s'",
                   what, allow_none ? " (or none)" : "", buf);
    if (text) *text = xstrdup(buf);
    return true;
}

/* "NAME % N == R", N a power of two from 2 to 2^RES_KMAX. */
static bool fact_of(rd *r, const yaml_node_t *n, cfg_fact *f)
{
    const char *s = scalar(r, n, "assume");
    if (!s) return false;
    const char *p = s, *form = "assume: expected 'NAME % N == R' (N a power of two), found '%s'";
    while (*p == ' ') p++;
    const char *nm = p;
    while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_' || *p == '$' ||
           (p > nm && *p >= '0' && *p <= '9'))
        p++;
    size_t nl = (size_t)(p - nm);
    while (*p == ' ') p++;
    if (!nl || *p != '%') return bad(r, n, form, s);
    p++;
    char *e;
    errno = 0;
    unsigned long long m = strtoull(p, &e, 10);
    if (e == p || errno) return bad(r, n, form, s);
    p = e;
    while (*p == ' ') p++;
    if (p[0] != '=' || p[1] != '=') return bad(r, n, form, s);
    p += 2;
    errno = 0;
    unsigned long long v = strtoull(p, &e, 10);
    if (e == p || errno) return bad(r, n, form, s);
    p = e;
    while (*p == ' ') p++;
    if (*p) return bad(r, n, form, s);
    if (m < 2 || m > (1u << RES_KMAX) || (m & (m - 1)))
        return bad(r, n, "assume: '%s': the modulus must be a power of two from 2 to %u (the analysis knows an integer's low bits)", s,
                   1u << RES_KMAX);
    if (v >= m) return bad(r, n, "assume: '%s': the remainder must be below %llu", s, m);
    f->param = strndup(nm, nl);
    if (!f->param) abort();
    f->text = xfmt("%s %% %llu == %llu", f->param, m, v);
    f->res = res_make((int64_t)v, (unsigned)__builtin_ctzll(m));
    f->line = (uint32_t)n->start_mark.line + 1;
    f->col = (uint32_t)n->start_mark.column + 1;
    return true;
}

static bool shape_of(rd *r, const yaml_node_t *n, uint32_t block[3])
{
    uint32_t got = 0;
    block[0] = block[1] = block[2] = 1;
    if (n->type == YAML_SEQUENCE_NODE) {
        for (yaml_node_item_t *i = n->data.sequence.items.start; i < n->data.sequence.items.top; i++) {
            if (got == 3) return bad(r, node(r, *i), "block: at most 3 extents");
            if (!uint_of(r, node(r, *i), "block", 1, 1024, &block[got++])) return false;
        }
    } else {
        const char *s = scalar(r, n, "block");
        if (!s) return false;
        const char *p = s;
        while (*p) {
            char *e;
            errno = 0;
            unsigned long x = strtoul(p, &e, 10);
            if (e == p || *p < '0' || *p > '9' || errno || !x || x > 1024 || got == 3 || (*e && *e != ','))
                return bad(r, n, "block: expected X[,Y[,Z]] or [X, Y, Z], extents from 1 to 1024, found '%s'", s);
            block[got++] = (uint32_t)x;
            p = *e ? e + 1 : e;
        }
    }
    if (!got) return bad(r, n, "block: expected 1 to 3 extents");
    if ((uint64_t)block[0] * block[1] * block[2] > 1024)
        return bad(r, n, "block: %u threads; a block has at most 1024", block[0] * block[1] * block[2]);
    return true;
}

static bool kernel_of(rd *r, const yaml_node_t *n, cfg_kernel *k)
{
    static const char *const keys[] = {"kernel", "block", "assume", NULL};
    yaml_node_t *v[3];
    if (!fields(r, n, "kernels", keys, v)) return false;
    if (!v[0]) return bad(r, n, "kernels: an entry needs 'kernel' (a name or a glob)");
    const char *pat = scalar(r, v[0], "kernel");
    if (!pat) return false;
    if (!*pat) return bad(r, v[0], "kernel: empty name");
    k->pattern = xstrdup(pat);
    k->line = (uint32_t)v[0]->start_mark.line + 1;
    k->col = (uint32_t)v[0]->start_mark.column + 1;
    if (v[1]) {
        k->has_block = true;
        if (!shape_of(r, v[1], k->block)) return false;
    }
    if (v[2]) {
        if (v[2]->type != YAML_SEQUENCE_NODE) return bad(r, v[2], "assume: expected a list, found %s", kind_name(v[2]));
        size_t cnt = (size_t)(v[2]->data.sequence.items.top - v[2]->data.sequence.items.start);
        if (cnt > PARAM_FACTS_MAX) return bad(r, v[2], "assume: at most %d facts per kernel", PARAM_FACTS_MAX);
        k->facts = calloc(cnt ? cnt : 1, sizeof *k->facts);
        if (!k->facts) abort();
        for (yaml_node_item_t *i = v[2]->data.sequence.items.start; i < v[2]->data.sequence.items.top; i++)
            if (!fact_of(r, node(r, *i), &k->facts[k->nfacts++])) return false;
    }
    if (!k->has_block && !k->nfacts) return bad(r, n, "kernels: an entry needs 'block' or 'assume'");
    return true;
}

static bool date_ok(const char *s)
{
    if (strlen(s) != 10 || s[4] != '-' || s[7] != '-') return false;
    for (int i = 0; i < 10; i++)
        if (i != 4 && i != 7 && (s[i] < '0' || s[i] > '9')) return false;
    int mo = (s[5] - '0') * 10 + s[6] - '0', d = (s[8] - '0') * 10 + s[9] - '0';
    return mo >= 1 && mo <= 12 && d >= 1 && d <= 31;
}

static bool supp_of(rd *r, const yaml_node_t *n, cfg_supp *x, const char *today)
{
    static const char *const keys[] = {"kernel", "rule", "file", "line", "reason", "expires", NULL};
    yaml_node_t *v[6];
    if (!fields(r, n, "suppress", keys, v)) return false;
    if (!v[0]) return bad(r, n, "suppress: an entry needs 'kernel' (a name or a glob)");
    if (!v[1]) return bad(r, n, "suppress: an entry needs 'rule'");
    if (!v[4]) return bad(r, n, "suppress: an entry needs 'reason': why the finding is accepted");
    const char *s;
    if (!(s = scalar(r, v[0], "kernel"))) return false;
    x->kernel = xstrdup(s);
    if (!rules_of(r, v[1], "rule", false, &x->rules, &x->rule_text)) return false;
    if (v[2]) {
        if (!(s = scalar(r, v[2], "file"))) return false;
        x->file = xstrdup(s);
    }
    if (v[3] && !uint_of(r, v[3], "line", 1, UINT32_MAX, &x->src_line)) return false;
    if (!(s = scalar(r, v[4], "reason"))) return false;
    if (!*s) return bad(r, v[4], "reason: empty; say why the finding is accepted");
    x->reason = xstrdup(s);
    if (v[5]) {
        if (!(s = scalar(r, v[5], "expires"))) return false;
        if (!date_ok(s)) return bad(r, v[5], "expires: expected a date YYYY-MM-DD, found '%s'", s);
        x->expires = xstrdup(s);
        x->expired = strcmp(s, today) < 0;
    }
    x->line = (uint32_t)n->start_mark.line + 1;
    x->col = (uint32_t)n->start_mark.column + 1;
    return true;
}

static void today_of(char buf[11])
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, 11, "%Y-%m-%d", &tm);
}

static bool read_root(rd *r, const yaml_node_t *root)
{
    static const char *const keys[] = {"fail-on", "kernels", "suppress", NULL};
    yaml_node_t *v[3];
    if (!fields(r, root, "ptxray.yaml", keys, v)) return false;
    ptx_config *c = r->c;
    if (v[0]) {
        c->has_fail_on = true;
        if (!rules_of(r, v[0], "fail-on", true, &c->fail_on, NULL)) return false;
    }
    if (v[1]) {
        if (v[1]->type != YAML_SEQUENCE_NODE) return bad(r, v[1], "kernels: expected a list, found %s", kind_name(v[1]));
        size_t cnt = (size_t)(v[1]->data.sequence.items.top - v[1]->data.sequence.items.start);
        c->k = calloc(cnt ? cnt : 1, sizeof *c->k);
        if (!c->k) abort();
        for (yaml_node_item_t *i = v[1]->data.sequence.items.start; i < v[1]->data.sequence.items.top; i++)
            if (!kernel_of(r, node(r, *i), &c->k[c->nk++])) return false;
    }
    if (v[2]) {
        if (v[2]->type != YAML_SEQUENCE_NODE)
            return bad(r, v[2], "suppress: expected a list, found %s", kind_name(v[2]));
        size_t cnt = (size_t)(v[2]->data.sequence.items.top - v[2]->data.sequence.items.start);
        c->s = calloc(cnt ? cnt : 1, sizeof *c->s);
        if (!c->s) abort();
        char today[11];
        today_of(today);
        for (yaml_node_item_t *i = v[2]->data.sequence.items.start; i < v[2]->data.sequence.items.top; i++)
            if (!supp_of(r, node(r, *i), &c->s[c->ns++], today)) return false;
    }
    return true;
}

/* Relative to the current directory when below it (tc_shown_skip). */
static char *shown_path(const char *path)
{
    char cwd[PATH_MAX];
    return xstrdup(path + tc_shown_skip(path, strlen(path), getcwd(cwd, sizeof cwd)));
}

int cfg_load(const char *path, ptx_config **out, FILE *err)
{
    *out = NULL;
    char *shown = shown_path(path);
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(err, "%s: error: cannot read the project file: %s\n", shown, strerror(errno));
        free(shown);
        return 2;
    }
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    if (!buf) abort();
    size_t k;
    while ((k = fread(buf + len, 1, cap - len, f)) > 0) {
        len += k;
        if (len == cap && !(buf = realloc(buf, cap *= 2))) abort();
    }
    fclose(f);
    rd r = {.bad = false};
    ptx_diags_init(&r.d);
    r.c = calloc(1, sizeof *r.c);
    if (!r.c) abort();
    r.c->path = xstrdup(path);
    r.c->shown = shown;
    yaml_parser_t p;
    yaml_parser_initialize(&p);
    yaml_parser_set_input_string(&p, (const unsigned char *)buf, len);
    if (!yaml_parser_load(&p, &r.doc)) {
        ptx_loc l = {(uint32_t)p.problem_mark.line + 1, (uint32_t)p.problem_mark.column + 1,
                     (uint32_t)p.problem_mark.index};
        if (p.context)
            ptx_diag_add(&r.d, PTX_DIAG_ERROR, l, "%s %s (line %zu)", p.problem ? p.problem : "bad YAML", p.context,
                         p.context_mark.line + 1);
        else ptx_diag_add(&r.d, PTX_DIAG_ERROR, l, "%s", p.problem ? p.problem : "bad YAML");
        r.bad = true;
    } else {
        yaml_node_t *root = yaml_document_get_root_node(&r.doc);
        if (root) read_root(&r, root);
        yaml_document_delete(&r.doc);
    }
    yaml_parser_delete(&p);
    int rc = 0;
    if (r.bad) {
        ptx_diags_print(&r.d, shown, buf, len, err);
        cfg_free(r.c);
        rc = 2;
    } else {
        ptx_config *c = r.c;
        for (uint32_t i = 0; i < c->nk; i++) {
            c->k[i].where = xfmt("%s:%u", c->shown, c->k[i].line);
            for (uint32_t j = 0; j < c->k[i].nfacts; j++) {
                c->k[i].facts[j].where = xfmt("%s:%u", c->shown, c->k[i].facts[j].line);
                c->k[i].facts[j].cfg = c;
            }
        }
        for (uint32_t i = 0; i < c->ns; i++) c->s[i].where = xfmt("%s:%u", c->shown, c->s[i].line);
        *out = c;
    }
    ptx_diags_free(&r.d);
    free(buf);
    return rc;
}

void cfg_free(ptx_config *c)
{
    if (!c) return;
    for (uint32_t i = 0; i < c->nk; i++) {
        for (uint32_t j = 0; j < c->k[i].nfacts; j++) {
            cfg_fact *f = &c->k[i].facts[j];
            free(f->text);
            free(f->param);
            free(f->where);
            for (size_t i = 0; i < f->ncleared_at; i++) free(f->cleared_at[i]);
            free(f->cleared_at);
        }
        free(c->k[i].facts);
        free(c->k[i].pattern);
        free(c->k[i].where);
    }
    for (uint32_t i = 0; i < c->ns; i++) {
        cfg_supp *s = &c->s[i];
        free(s->kernel);
        free(s->file);
        free(s->rule_text);
        free(s->reason);
        free(s->expires);
        free(s->where);
    }
    free(c->k);
    free(c->s);
    free(c->path);
    free(c->shown);
    free(c);
}

/* ---- finding ------------------------------------------------------------- */

void cfg_set_init(cfg_set *s, enum cfg_mode mode, const char *file)
{
    memset(s, 0, sizeof *s);
    s->mode = mode;
    s->file = file;
    pthread_mutex_init(&s->mu, NULL);
}

void cfg_set_free(cfg_set *s)
{
    for (size_t i = 0; i < s->ndirs; i++) free(s->dirs[i]);
    free(s->dirs);
    free(s->dcfg);
    for (size_t i = 0; i < s->n; i++) cfg_free(s->all[i]);
    free(s->all);
    pthread_mutex_destroy(&s->mu);
    memset(s, 0, sizeof *s);
}

static void remember(cfg_set *s, char *dir, ptx_config *c)
{
    s->dirs = realloc(s->dirs, (s->ndirs + 1) * sizeof *s->dirs);
    s->dcfg = realloc(s->dcfg, (s->ndirs + 1) * sizeof *s->dcfg);
    if (!s->dirs || !s->dcfg) abort();
    s->dirs[s->ndirs] = dir;
    s->dcfg[s->ndirs++] = c;
}

static void keep(cfg_set *s, ptx_config *c)
{
    s->all = realloc(s->all, (s->n + 1) * sizeof *s->all);
    if (!s->all) abort();
    s->all[s->n++] = c;
}

static bool regular(const char *p)
{
    struct stat st;
    return !stat(p, &st) && S_ISREG(st.st_mode);
}

/* input's directory as an absolute path, "." and ".." segments resolved
 * lexically. */
static bool lexical_dir(const char *input, char *abs, size_t n)
{
    char cwd[PATH_MAX], tmp[2 * PATH_MAX + 2];
    if (input[0] != '/' && !getcwd(cwd, sizeof cwd)) return false;
    const char *slash = strcmp(input, "-") ? strrchr(input, '/') : NULL;
    size_t dl = slash ? (size_t)(slash - input) : 0;
    if (input[0] == '/') snprintf(tmp, sizeof tmp, "%.*s", (int)dl, input);
    else snprintf(tmp, sizeof tmp, "%s/%.*s", cwd, (int)dl, input);
    size_t len = 0;
    abs[0] = 0;
    char *save = NULL;
    for (char *seg = strtok_r(tmp, "/", &save); seg; seg = strtok_r(NULL, "/", &save)) {
        if (!strcmp(seg, ".")) continue;
        if (!strcmp(seg, "..")) {
            while (len && abs[len - 1] != '/') len--;
            if (len) len--;
            abs[len] = 0;
            continue;
        }
        size_t k = strlen(seg);
        if (len + 1 + k + 1 > n) return false;
        abs[len++] = '/';
        memcpy(abs + len, seg, k + 1);
        len += k;
    }
    if (!len) strcpy(abs, "/");
    return true;
}

int cfg_for(cfg_set *s, const char *input, const ptx_config **out)
{
    *out = NULL;
    if (s->mode == CONFIG_NONE) return 0;
    int rc = 0;
    pthread_mutex_lock(&s->mu);
    if (s->mode == CONFIG_FILE) {
        if (!s->n) {
            ptx_config *c;
            if ((rc = cfg_load(s->file, &c, stderr))) s->mode = CONFIG_NONE;
            else keep(s, c);
        }
        if (s->n) *out = s->all[0];
        pthread_mutex_unlock(&s->mu);
        return rc;
    }
    /* the input's directory, absolute, walked up to the root: lexically,
     * as the path is written (a directory reached through a symbolic link
     * is looked for where the path says, as the shell's `cd ..`) */
    char abs[PATH_MAX];
    if (!lexical_dir(input, abs, sizeof abs)) {
        pthread_mutex_unlock(&s->mu);
        return 0; /* the input's own error says why */
    }
    size_t first = s->ndirs; /* the directories this walk adds */
    ptx_config *found = NULL;
    bool known = false;
    for (;;) {
        for (size_t i = 0; i < s->ndirs && !known; i++)
            if (!strcmp(s->dirs[i], abs)) {
                found = s->dcfg[i];
                known = true;
            }
        if (known) break;
        remember(s, xstrdup(abs), NULL);
        static const char *const names[] = {"ptxray.yaml", ".ptxray.yaml"};
        for (int k = 0; k < 2 && !found && !rc; k++) {
            char *p = xfmt("%s%s%s", abs, abs[1] ? "/" : "", names[k]);
            if (regular(p)) {
                if (!(rc = cfg_load(p, &found, stderr))) keep(s, found);
            }
            free(p);
        }
        if (found || rc || !abs[1]) break;
        char *up = strrchr(abs, '/');
        if (up == abs) abs[1] = 0;
        else *up = 0;
    }
    for (size_t i = first; i < s->ndirs; i++) s->dcfg[i] = found;
    if (rc) s->mode = CONFIG_NONE; /* reported once */
    *out = found;
    pthread_mutex_unlock(&s->mu);
    return rc;
}

/* ---- asking -------------------------------------------------------------- */

bool cfg_names(const char *pattern, const ptx_func *fn)
{
    if (ptx_name_is_glob(pattern)) return ptx_name_glob(fn, pattern);
    return ptx_name_match(fn, pattern, strlen(pattern)) == PTX_NAME_EXACT;
}

bool cfg_add_blocks(const ptx_config *c, blk_opts *b, const char *cmd)
{
    for (uint32_t i = 0; c && i < c->nk; i++)
        if (c->k[i].has_block && !blk_add_config(b, c->k[i].pattern, c->k[i].block, c->k[i].where)) {
            fprintf(stderr, "ptxray %s: %s: at most %d kernels can be given a shape\n", cmd, c->k[i].where, BLK_MAX);
            return false;
        }
    return true;
}

void cfg_mark(const ptx_config *c, const ptx_module *m)
{
    for (uint32_t i = 0; c && i < c->nk; i++)
        for (uint32_t f = 0; f < m->nfuncs; f++)
            if (m->funcs[f]->has_body && cfg_names(c->k[i].pattern, m->funcs[f])) {
                __atomic_fetch_add(&c->k[i].matched, 1, __ATOMIC_RELAXED);
                break;
            }
}

bool cfg_facts_of(const void *ctx, const ptx_func *fn, param_facts *out)
{
    const cfg_facts_ctx *x = ctx;
    out->n = 0;
    if (!x || !x->cfg || !fn->is_entry) return false;
    for (uint32_t i = 0; i < x->cfg->nk; i++) {
        cfg_kernel *k = &x->cfg->k[i];
        if (!cfg_names(k->pattern, fn)) continue;
        for (uint32_t j = 0; j < k->nfacts && out->n < PARAM_FACTS_MAX; j++) {
            cfg_fact *f = &k->facts[j];
            __atomic_fetch_add(&f->asked, 1, __ATOMIC_RELAXED);
            for (uint32_t p = 0; p < fn->nparams; p++) {
                const char *src = sn_param_name(x->names, fn, p);
                if ((src && !strcmp(src, f->param)) || ptx_str_eq(fn->params[p]->name, f->param)) {
                    out->v[out->n++] = (param_fact){p, f->res, f};
                    __atomic_fetch_add(&f->bound, 1, __ATOMIC_RELAXED);
                    break;
                }
            }
        }
    }
    return out->n > 0;
}

static pthread_mutex_t note_mu = PTHREAD_MUTEX_INITIALIZER;

void cfg_fact_note(const cfg_fact *cf, bool cleared, const char *at)
{
    cfg_fact *f = (cfg_fact *)cf; /* its counters only */
    if (!cleared) {
        __atomic_fetch_add(&f->changed, 1, __ATOMIC_RELAXED);
        return;
    }
    __atomic_fetch_add(&f->cleared, 1, __ATOMIC_RELAXED);
    if (!at) return;
    pthread_mutex_lock(&note_mu);
    /* sorted, each once: the same whatever order threads come in */
    size_t i = 0;
    while (i < f->ncleared_at && strcmp(f->cleared_at[i], at) < 0) i++;
    if (i == f->ncleared_at || strcmp(f->cleared_at[i], at)) {
        f->cleared_at = realloc(f->cleared_at, (f->ncleared_at + 1) * sizeof *f->cleared_at);
        if (!f->cleared_at) abort();
        memmove(f->cleared_at + i + 1, f->cleared_at + i, (f->ncleared_at - i) * sizeof *f->cleared_at);
        f->cleared_at[i] = xstrdup(at);
        f->ncleared_at++;
    }
    pthread_mutex_unlock(&note_mu);
}

static bool file_matches(const char *pat, const char *path)
{
    if (!path) return false;
    if (!strcmp(pat, path) || !fnmatch(pat, path, 0)) return true;
    size_t n = strlen(pat), m = strlen(path);
    return m > n && path[m - n - 1] == '/' && !strcmp(path + m - n, pat);
}

cfg_supp *cfg_suppression(const ptx_config *c, unsigned rule, const ptx_func *fn, const char *file, uint32_t line)
{
    for (uint32_t i = 0; c && i < c->ns; i++) {
        cfg_supp *s = &c->s[i];
        if (s->expired || !(s->rules >> rule & 1) || !cfg_names(s->kernel, fn)) continue;
        if (s->file && !file_matches(s->file, file)) continue;
        if (s->src_line && s->src_line != line) continue;
        return s;
    }
    return NULL;
}

int cfg_fail_on(const cfg_set *s, bool *has, unsigned *mask, const char *cmd)
{
    *has = false;
    const ptx_config *by = NULL;
    for (size_t i = 0; i < s->n; i++) {
        const ptx_config *c = s->all[i];
        if (!c->has_fail_on) continue;
        if (by && c->fail_on != *mask) {
            fprintf(stderr, "ptxray %s: %s and %s give different fail-on rules; give --fail-on or --config\n", cmd,
                    by->shown, c->shown);
            return 2;
        }
        by = c;
        *has = true;
        *mask = c->fail_on;
    }
    return 0;
}

void cfg_drop_present(cfg_set *s, const char *at)
{
    for (size_t i = 0; i < s->n; i++)
        for (uint32_t k = 0; k < s->all[i]->nk; k++)
            for (uint32_t j = 0; j < s->all[i]->k[k].nfacts; j++) {
                cfg_fact *f = &s->all[i]->k[k].facts[j];
                for (size_t q = 0; q < f->ncleared_at; q++)
                    if (!strcmp(f->cleared_at[q], at)) {
                        free(f->cleared_at[q]);
                        memmove(f->cleared_at + q, f->cleared_at + q + 1, (f->ncleared_at - q - 1) * sizeof *f->cleared_at);
                        f->ncleared_at--;
                        break;
                    }
            }
}

int cfg_report_end(cfg_set *s, FILE *out, FILE *err, bool strict, enum cfg_supps supps)
{
    int rc = 0;
    for (size_t i = 0; i < s->n; i++) {
        const ptx_config *c = s->all[i];
        for (uint32_t k = 0; k < c->nk; k++)
            if (!c->k[k].matched) {
                fprintf(err, "%s:%u:%u: %s: kernel '%s' names no function of the files read\n", c->shown, c->k[k].line,
                        c->k[k].col, strict ? "error" : "warning", c->k[k].pattern);
                if (strict) rc = 1;
            }
        for (uint32_t k = 0; k < c->nk; k++) {
            const cfg_kernel *e = &c->k[k];
            for (uint32_t j = 0; j < e->nfacts; j++) {
                const cfg_fact *f = &e->facts[j];
                if (f->asked && !f->bound) {
                    /* a typo, or a source name without the .cu in reach: the
                     * fact is about nothing, say so rather than drop it */
                    fprintf(err,
                            "%s:%u:%u: %s: assumption '%s': no function kernel '%s' names has a parameter '%s' (its "
                            "name in the .cu, when the .cu is found, or in the PTX)\n",
                            c->shown, f->line, f->col, strict ? "error" : "warning", f->text, e->pattern, f->param);
                    if (strict) rc = 1;
                } else if (f->changed || f->cleared) {
                    if (out) {
                        fprintf(out, "%s:%u:%u: note: assuming %s (kernel %s): the verdicts of %u PTX instruction%s changed",
                                c->shown, f->line, f->col, f->text, e->pattern, f->changed + f->cleared,
                                f->changed + f->cleared == 1 ? "" : "s");
                        fprintf(out, "; %zu finding%s cleared", f->ncleared_at, f->ncleared_at == 1 ? "" : "s");
                        for (size_t i = 0; i < f->ncleared_at; i++) fprintf(out, "%s%s", i ? ", " : ": ", f->cleared_at[i]);
                        fputc('\n', out);
                    }
                } else if (strict) {
                    fprintf(err, "%s:%u:%u: error: assumption '%s' (kernel %s) changed no finding [--strict-assumptions]\n",
                            c->shown, f->line, f->col, f->text, e->pattern);
                    rc = 1;
                }
            }
        }
        for (uint32_t k = 0; supps && k < c->ns; k++) {
            const cfg_supp *x = &c->s[k];
            if (x->expired) {
                fprintf(err, "%s:%u:%u: %s: suppression of %s in %s expired on %s (reason: %s); renew or remove it\n",
                        c->shown, x->line, x->col, supps == CFG_SUPPS_GATE ? "error" : "warning", x->rule_text,
                        x->kernel, x->expires, x->reason);
                if (supps == CFG_SUPPS_GATE) rc = 1;
            } else if (strict && !x->used) {
                fprintf(err, "%s:%u:%u: error: suppression of %s in %s suppressed no finding [--strict-assumptions]\n",
                        c->shown, x->line, x->col, x->rule_text, x->kernel);
                rc = 1;
            }
        }
    }
    return rc;
}

void cfg_suppress(chk_list *l, size_t first, const ptx_module *m, const ptx_config *c)
{
    for (size_t i = first; i < l->n; i++) {
        chk_finding *f = &l->v[i];
        const ptx_func *fn = NULL;
        for (uint32_t k = 0; k < m->nfuncs && !fn; k++)
            if (ptx_str_eq(m->funcs[k]->name, f->symbol)) fn = m->funcs[k];
        if (!fn) continue;
        cfg_supp *s = f->src_file ? cfg_suppression(c, f->rule, fn, f->src_file, f->src_line)
                                  : cfg_suppression(c, f->rule, fn, f->ptx_path, f->line);
        if (!s) continue;
        f->supp = s;
        __atomic_fetch_add(&s->used, 1, __ATOMIC_RELAXED);
    }
}

int cfg_set_open(cfg_set *s, enum cfg_mode mode, const char *file, char *const *inputs, size_t n)
{
    cfg_set_init(s, mode, file);
    for (size_t i = 0; i < n; i++) {
        const ptx_config *c;
        if (cfg_for(s, inputs[i], &c)) {
            cfg_set_free(s);
            return 2;
        }
    }
    return 0;
}
