/* Findings of `ptxray check` and `ptxray analyze` (check_findings.h). */
#include "check_findings.h"
#include "config.h"
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "div_report.h"
#include "printer.h"
#include "sync_rules.h"
#include "names.h"

static const char *const rule_names[CHK_NRULES] = {"uncoalesced",      "misaligned",        "bank-conflict",
                                                   "divergent-branch", "divergent-barrier", "divergent-collective"};

const char *chk_rule_name(enum chk_rule r) { return r < CHK_NRULES ? rule_names[r] : "?"; }

static int rule_of(const char *s, size_t n)
{
    for (int r = 0; r < CHK_NRULES; r++)
        if (strlen(rule_names[r]) == n && !memcmp(rule_names[r], s, n)) return r;
    return -1;
}

bool chk_parse_rules(const char *s, unsigned *mask)
{
    *mask = 0;
    if (!strcmp(s, "none")) return true;
    for (;;) {
        const char *e = strchr(s, ',');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        int r = rule_of(s, n);
        if (r < 0) return false;
        *mask |= 1u << r;
        if (!e) return true;
        s = e + 1;
    }
}

static char *xstrdup(const char *s)
{
    char *d = strdup(s);
    if (!d) abort();
    return d;
}

/* What the findings of one collect call share: the printed instruction,
 * written into one memory stream rewound for each finding (a stream per
 * finding cost a zeroed 8 KiB buffer each, 4% of check on the corpus;
 * the text is p's first n bytes: a rewound stream is not NUL-terminated),
 * and the shown name of the last function (demangled once per function,
 * not per finding). */
typedef struct rawbuf {
    FILE *f;
    char *p;
    size_t n;
    const ptx_func *fn;
    char *shown;
} rawbuf;

static char *shown_name(rawbuf *rb, const ptx_func *fn)
{
    if (rb->fn != fn || !rb->shown) {
        free(rb->shown);
        rb->shown = ptx_func_shown(fn);
        rb->fn = fn;
        if (!rb->shown) return NULL;
    }
    return strdup(rb->shown);
}

static const char *inst_raw(rawbuf *rb, const ptx_func *fn, const ptx_inst *in, size_t *len)
{
    if (!rb->f) {
        rb->f = open_memstream(&rb->p, &rb->n);
        if (!rb->f) abort();
    } else if (fseeko(rb->f, 0, SEEK_SET)) abort();
    ptx_print_inst(rb->f, fn, in);
    if (fflush(rb->f)) abort();
    *len = rb->n;
    return rb->p;
}

static void rawbuf_free(rawbuf *rb)
{
    if (rb->f) fclose(rb->f);
    free(rb->p);
    free(rb->shown);
}

/* The printed instruction with whitespace collapsed and the digits of
 * register and label names dropped: nvcc renumbers %r12 and $L__BB0_3 when
 * unrelated code changes, while opcode, operand shape and symbols stay. */
static char *inst_normalized(const char *raw, size_t len, bool drop_digits)
{
    char *out = malloc(len + 1);
    if (!out) abort();
    size_t k = 0;
    bool in_name = false, space = false;
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)raw[i];
        if (isspace(ch)) {
            space = k > 0;
            in_name = false;
            continue;
        }
        if (ch == '%' || ch == '$') in_name = true;
        else if (!isalnum(ch) && ch != '_') in_name = false;
        if (drop_digits && in_name && isdigit(ch)) continue;
        if (space) out[k++] = ' ';
        space = false;
        out[k++] = (char)ch;
    }
    out[k] = 0;
    return out;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

static uint64_t fnv_str(uint64_t h, const char *s) { return fnv(h, s ? s : "", s ? strlen(s) + 1 : 1); }

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

const char *chk_certainty_name(enum chk_certainty c) { return c == CHK_PROVEN ? "proven" : "possible"; }

/* ---- the verdict on one access -------------------------------------------------- */

/* The model's verdict (coal_verdict_of) as check's rule and certainty, with
 * what it depends on in words: the decision is the model's, made once for
 * every view. */
_Static_assert((int)CHK_UNCOALESCED == (int)COAL_V_UNCOALESCED && (int)CHK_MISALIGNED == (int)COAL_V_MISALIGNED &&
                   (int)CHK_BANK_CONFLICT == (int)COAL_V_BANK_CONFLICT && (int)CHK_PROVEN == (int)COAL_PROVEN &&
                   (int)CHK_POSSIBLE == (int)COAL_POSSIBLE,
               "check's rules and certainties are the model's");

bool chk_access_verdict(const coal_report_ctx *c, const coal_func *f, const coal_access *a, enum chk_rule *rule,
                        enum chk_certainty *cert, uint32_t *excess, char *dep, size_t ndep)
{
    dep[0] = 0;
    coal_verdict v;
    if (!coal_verdict_of(a, &v)) return false;
    *rule = (enum chk_rule)v.rule;
    *cert = (enum chk_certainty)v.certainty;
    *excess = v.excess;
    coal_depends_text(c, f, a, (enum coal_dep)v.dep, dep, ndep);
    return true;
}

void chk_holds_at_text(const chk_finding *x, char *buf, size_t n)
{
    FILE *f = fmemopen(buf, n, "w");
    if (!f) abort();
    if (x->nshapes > 1 && x->nat == x->nshapes) fprintf(f, "holds at all %u launch shapes analysed: ", x->nshapes);
    else if (x->nshapes > 1) fprintf(f, "holds at %u of the %u launch shapes analysed: ", x->nat, x->nshapes);
    else fputs("block ", f);
    for (uint32_t k = 0; k < x->nat; k++) {
        char one[1024];
        chk_shape_text(&x->at[k], one, sizeof one);
        fprintf(f, "%s%s", k ? ", " : "", one);
    }
    fclose(f);
    buf[n - 1] = 0;
}

json_t *chk_holds_at_json(const chk_finding *x)
{
    json_t *a = json_array();
    for (uint32_t k = 0; k < x->nat; k++) {
        const chk_shape *s = &x->at[k];
        json_t *o = json_object();
        json_object_set_new(o, "block", blk_shape_json(s->block));
        json_object_set_new(o, "from", json_string(s->from));
        json_object_set_new(o, "certainty", json_string(chk_certainty_name((enum chk_certainty)s->certainty)));
        json_object_set_new(o, "cost", json_integer((json_int_t)s->cost));
        json_array_append_new(a, o);
    }
    return a;
}

/* ---- collection ------------------------------------------------------------------ */

static chk_finding *push_to(chk_finding **v, size_t *n, size_t *cap)
{
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        *v = realloc(*v, *cap * sizeof **v);
        if (!*v) abort();
    }
    chk_finding *x = &(*v)[(*n)++];
    memset(x, 0, sizeof *x);
    return x;
}

static chk_finding *push(chk_list *l) { return push_to(&l->v, &l->n, &l->cap); }

static uint64_t loop_weight(uint32_t depth)
{
    uint64_t w = 1;
    for (uint32_t i = 0; i < depth && i < 12; i++) w *= CHK_LOOP_WEIGHT;
    return w;
}

static void locate(chk_finding *x, rawbuf *rb, const coal_report_ctx *c, const coal_func *f, uint32_t stmt)
{
    const ptx_func *fn = f->pf->fn;
    const ptx_stmt *s = fn->stmts[stmt];
    x->line = s->loc.line;
    x->col = s->loc.col;
    x->ninst = 1;
    x->insts = malloc(sizeof *x->insts);
    if (!x->insts) abort();
    x->insts[0] = (chk_pos){NULL, x->line, x->col};
    src_pos p;
    src_pos_of(c->files, fn, stmt, &p);
    src_frame chain[SRC_MAX_INLINE + 1];
    uint32_t user, n = src_chain(&p, chain, &user);
    if (n) {
        x->src_file = xstrdup(chain[user].file);
        x->src_line = chain[user].line;
        x->src_col = chain[user].col;
        x->ncalls = n - user - 1;
        if (x->ncalls) {
            x->calls = malloc(sizeof *x->calls * x->ncalls);
            if (!x->calls) abort();
        }
        for (uint32_t i = 0; i < x->ncalls; i++) {
            const src_frame *fr = &chain[user + 1 + i];
            x->calls[i] = (chk_pos){xstrdup(fr->file), fr->line, fr->col};
        }
    }
    x->symbol = strndup(fn->name.p, fn->name.n);
    x->kernel = shown_name(rb, fn);
    if (!x->symbol || !x->kernel) abort();
    size_t len;
    const char *raw = inst_raw(rb, fn, &s->u.inst, &len);
    x->inst = inst_normalized(raw, len, true);
    const cfg *g = f->pf->g;
    uint32_t b = g->stmt_block[stmt];
    uint32_t lp = b == CFG_NONE ? CFG_NONE : g->blocks[b].loop;
    x->loop_depth = lp == CFG_NONE ? 0 : g->loops[lp].depth;
    /* the shape it was found at */
    const blk_opts *bo = coal_blocks(c->opts);
    enum blk_origin o = (enum blk_origin)f->origin;
    x->origin = f->origin;
    x->nshapes = blk_nshapes(bo, fn);
    x->nat = 1;
    x->at = calloc(1, sizeof *x->at);
    if (!x->at) abort();
    if (wl_shape_known(&f->shape)) memcpy(x->at->block, f->shape.block, sizeof x->at->block);
    x->at->from = xstrdup(blk_origin_for(bo, fn, o));
}

void chk_shape_text(const chk_shape *s, char *buf, size_t n)
{
    if (s->block[0]) snprintf(buf, n, "%ux%ux%u (%s)", s->block[0], s->block[1], s->block[2], s->from);
    else snprintf(buf, n, "%s", s->from);
}

static void set_cost(chk_finding *x, uint32_t excess, enum chk_certainty cert, const char *dep)
{
    x->excess = excess;
    x->cost = excess * loop_weight(x->loop_depth);
    x->certainty = (uint8_t)cert;
    if (cert == CHK_POSSIBLE && dep && dep[0]) x->depends = xstrdup(dep);
}

/* The texts of the grouped access findings v[0..n) of f: the access of
 * the group's first instruction, the message and hint of the one that
 * speaks for it (group). */
static void access_texts(chk_finding *v, size_t n, const coal_report_ctx *c, const coal_func *f)
{
    char buf[1024];
    for (size_t i = 0; i < n; i++) {
        chk_finding *x = &v[i];
        const coal_access *a = x->msg_src;
        if (!a) continue;
        coal_message_as(c, f, a, x->mixed ? "access" : NULL, buf, sizeof buf);
        x->message = xstrdup(buf);
        const char *pn;
        int32_t pi = coal_param(c, f, a, &pn);
        if (pi >= 0) x->has_param = true, x->param = (uint32_t)pi, x->param_name = pn ? xstrdup(pn) : NULL;
        else if (coal_value_label(c, f, a, buf, sizeof buf)) x->value = xstrdup(buf);
        if (coal_hint(c, f, a, buf, sizeof buf)) x->hint = xstrdup(buf);
        a = x->acc_src;
        snprintf(buf, sizeof buf, "%s %s %u %" PRId64, coal_pattern_name((enum coal_pattern)a->pattern),
                 a->has_stride ? "stride" : "-", a->bytes, a->has_stride ? a->stride : 0);
        x->access = xstrdup(buf);
        x->acc_src = x->msg_src = NULL;
    }
}

static void free_finding(chk_finding *x);

/* Adds text to a "; "-separated list unless it is there. */
static void add_assumed(char **list, const char *text)
{
    if (*list) {
        size_t n = strlen(text);
        for (const char *p = *list; (p = strstr(p, text)); p++)
            if ((p == *list || p[-1] == ' ') && (!p[n] || p[n] == ';')) return;
    }
    size_t a = *list ? strlen(*list) : 0, b = strlen(text);
    char *d = realloc(*list, a + b + 3);
    if (!d) abort();
    if (a) memcpy(d + a, "; ", 2), a += 2;
    memcpy(d + a, text, b + 1);
    *list = d;
}

/* The facts (config.h) that changed access a: on its finding x, or, when
 * they cleared it, counted with where it was. */
static void assumptions(chk_finding *x, rawbuf *rb, const coal_report_ctx *c, const coal_func *f, const coal_access *a)
{
    for (uint32_t k = 0; k < f->facts->n; k++) {
        if (!(a->assumed >> k & 1)) continue;
        const cfg_fact *fa = f->facts->v[k].tag;
        if (x) {
            char t[600];
            snprintf(t, sizeof t, "%s (%s)", fa->text, fa->where);
            add_assumed(&x->assumed, t);
            cfg_fact_note(fa, false, NULL);
            continue;
        }
        chk_finding y;
        memset(&y, 0, sizeof y);
        locate(&y, rb, c, f, a->stmt);
        char at[1024];
        if (y.src_file)
            snprintf(at, sizeof at, "%s:%u [%s] in %s", y.src_file, y.src_line,
                     coal_vrule_name((enum coal_vrule)(a->was - 1)), y.kernel);
        else
            snprintf(at, sizeof at, "PTX line %u [%s] in %s", y.line, coal_vrule_name((enum coal_vrule)(a->was - 1)),
                     y.kernel);
        cfg_fact_note(fa, true, at);
        free_finding(&y);
    }
}

/* "k.cu:17" for statement st of f (the user's frame), else "PTX line 230";
 * ptx: "PTX line 230 (k.cu:17)", as run --synccheck names where threads
 * wait (a reconvergence point's line is often not the one a user thinks
 * of). */
static void stmt_where(const coal_report_ctx *c, const coal_func *f, uint32_t st, bool ptx, char *buf, size_t n)
{
    src_frame fr;
    uint32_t line = f->pf->fn->stmts[st]->loc.line;
    bool src = src_user_frame(c->files, f->pf->fn, st, &fr);
    if (src && ptx) snprintf(buf, n, "PTX line %u (%s:%u)", line, fr.file, fr.line);
    else if (src) snprintf(buf, n, "%s:%u", fr.file, fr.line);
    else snprintf(buf, n, "PTX line %u", line);
}

/* "lanes 16..31" of a mask */
static void lanes_text(uint32_t m, char *buf, size_t n)
{
    size_t k = 0;
    unsigned runs = 0, total = (unsigned)__builtin_popcount(m);
    buf[0] = 0;
    for (unsigned i = 0; i < 32 && k < n;) {
        if (!(m >> i & 1)) { i++; continue; }
        unsigned j = i;
        while (j + 1 < 32 && (m >> (j + 1) & 1)) j++;
        int w = j > i ? snprintf(buf + k, n - k, "%s%u..%u", runs ? ", " : total > 1 ? "lanes " : "lane ", i, j)
                      : snprintf(buf + k, n - k, "%s%u", runs ? ", " : total > 1 ? "lanes " : "lane ", i);
        if (w > 0) k += (size_t)w;
        runs++;
        i = j + 1;
    }
}

/* The barrier and collective rules' findings (analyses/sync_rules.h), in
 * words. */
static void sync_findings(chk_list *l, rawbuf *rb, const char *path, const coal_report_ctx *c, const coal_func *f,
                          unsigned mask)
{
    arena a;
    arena_init(&a);
    sync_finding *v;
    uint32_t n = sync_check(f->pf, f->r, f->chain, &a, &v);
    for (uint32_t i = 0; i < n; i++) {
        const sync_finding *s = &v[i];
        enum chk_rule rule = s->rule == SYNC_BARRIER ? CHK_DIVERGENT_BARRIER : CHK_DIVERGENT_COLLECTIVE;
        if (!(mask >> rule & 1)) continue;
        char msg[2048], dep[512] = "", br[256] = "", ot[256] = "", who[700] = "", fix[400] = "";
        if (s->branch != UINT32_MAX) stmt_where(c, f, s->branch, false, br, sizeof br);
        if (s->other != UINT32_MAX) stmt_where(c, f, s->other, true, ot, sizeof ot);
        switch (s->kind) {
        case SYNC_K_SKIPPED:
            if (s->threads)
                sync_threads_text(s->threads, s->nthreads, f->r->shape_assumed ? 32 : f->r->block[0],
                                  f->r->shape_assumed ? 1 : f->r->block[1], who, sizeof who);
            else
                snprintf(who, sizeof who, "threads whose condition differs");
            /* the default assumption: the threads of warp 0 alone are known */
            if (s->threads && f->r->shape_assumed) strncat(who, " of warp 0", sizeof who - strlen(who) - 1);
            if (s->reconv)
                snprintf(msg, sizeof msg,
                         "%s barrier: %s take the other way at the branch at %s and wait at %s, where their warp "
                         "reconverges, while the rest of their warp waits here; an .aligned barrier is executed "
                         "by every live thread of the block, a warp together",
                         s->proven ? "divergent" : "possibly divergent", who, br, ot);
            else
                snprintf(msg, sizeof msg,
                         "%s barrier: %s take the other way at the branch at %s and wait at the barrier at %s "
                         "instead; every live thread of the block must execute the same .aligned barrier",
                         s->proven ? "divergent" : "possibly divergent", who, br, ot);
            snprintf(dep, sizeof dep, "the branch condition at %s in the block's threads (not proven the same)", br);
            snprintf(fix, sizeof fix, "move the barrier out of the branch, to where every thread of the block reaches it");
            break;
        case SYNC_K_ID:
            snprintf(msg, sizeof msg, "barrier id not proven the same in every thread of the block");
            snprintf(dep, sizeof dep, "the barrier id in the block's threads");
            snprintf(fix, sizeof fix, "compute the barrier id from block-uniform values only");
            break;
        case SYNC_K_COUNT:
            snprintf(msg, sizeof msg,
                     "barrier thread count not proven the same in every thread and a multiple of 32 (the warp "
                     "size), as the ISA requires");
            snprintf(dep, sizeof dep, "the thread count's value");
            snprintf(fix, sizeof fix, "use a count that is a block-uniform multiple of 32");
            break;
        case SYNC_K_COUNT_BIG:
            snprintf(msg, sizeof msg, "barrier waits for %" PRId64 " threads, more than the block's %u: it never completes",
                     s->count, f->r->block[0] * (f->r->block[1] ? f->r->block[1] : 1) * (f->r->block[2] ? f->r->block[2] : 1));
            snprintf(fix, sizeof fix, "launch with at least %" PRId64 " threads, or lower the count", s->count);
            break;
        case SYNC_K_COUNTS:
            snprintf(msg, sizeof msg,
                     "barrier used with %" PRId64 " threads here and %" PRId64 " at %s: the arrivals of one barrier "
                     "must agree on the count", s->count, s->count2, ot);
            snprintf(dep, sizeof dep, "whether both run in the same phase of the barrier");
            snprintf(fix, sizeof fix, "use one count for every arrival at this barrier, or another barrier id");
            break;
        case SYNC_K_ABSENT: {
            char ln[200];
            lanes_text(s->lanes, ln, sizeof ln);
            if (s->reconv)
                snprintf(msg, sizeof msg,
                         "divergent collective: its member mask 0x%08x names %s of warp %u, which take the other way "
                         "at the branch at %s and wait at %s, where their warp reconverges; it waits for every "
                         "live lane of its mask", s->mask, ln, s->warp, br, ot);
            else
                snprintf(msg, sizeof msg,
                         "divergent collective: its member mask 0x%08x names %s of warp %u, which do not execute it; "
                         "it waits for every live lane of its mask", s->mask, ln, s->warp);
            snprintf(fix, sizeof fix, "use __activemask() or the branch's ballot as the mask, or move it out of the branch");
            break;
        }
        case SYNC_K_NOT_NAMED: {
            char ln[200];
            lanes_text(s->lanes, ln, sizeof ln);
            snprintf(msg, sizeof msg,
                     "divergent collective: %s of warp %u execute it but are not in its member mask 0x%08x "
                     "(undefined in the ISA)", ln, s->warp, s->mask);
            snprintf(fix, sizeof fix, "name every lane that executes it in the mask: __activemask(), or the branch's ballot");
            break;
        }
        case SYNC_K_ALIGNED: {
            char ln[200];
            lanes_text(s->lanes, ln, sizeof ln);
            if (s->group) {
                unsigned g = s->warp & ~3u;
                if (s->proven)
                    snprintf(msg, sizeof msg,
                             "divergent warpgroup instruction: %s of warp %u do not execute it while other threads "
                             "of its warpgroup (warps %u..%u) do%s%s; every thread of the warpgroup executes it "
                             "together", ln, s->warp, g, g + 3, br[0] ? ", from the branch at " : "", br);
                else
                    snprintf(msg, sizeof msg,
                             "possibly divergent warpgroup instruction: in a branch that may split the warpgroup%s%s; "
                             "every thread of the warpgroup (four warps) executes it together",
                             br[0] ? " at " : "", br);
                snprintf(dep, sizeof dep, "the threads of the warpgroup that execute it");
                snprintf(fix, sizeof fix, "move it to where every thread of its warpgroup executes it (a branch on "
                                          "threadIdx.x / 128 keeps warpgroups together; one on the warp does not)");
                break;
            }
            if (s->proven && s->reconv)
                snprintf(msg, sizeof msg,
                         "divergent .aligned instruction: %s of warp %u take the other way at the branch at %s and "
                         "wait at %s, where their warp reconverges; every live lane of the warp executes it together",
                         ln, s->warp, br, ot);
            else if (s->proven)
                snprintf(msg, sizeof msg,
                         "divergent .aligned instruction: %s of warp %u do not execute it; every live lane of the warp "
                         "executes it together", ln, s->warp);
            else
                snprintf(msg, sizeof msg,
                         "possibly divergent .aligned instruction: in a branch that may split the warp%s%s; every live "
                         "lane of the warp executes it together", br[0] ? " at " : "", br);
            snprintf(dep, sizeof dep, "the lanes of the warp that execute it");
            snprintf(fix, sizeof fix, "move it out of the branch, to where every lane of the warp executes it");
            break;
        }
        default: /* SYNC_K_MASK */
            snprintf(msg, sizeof msg,
                     "possibly divergent collective: in a branch that may split the warp%s%s; its member mask is not "
                     "proven to be the lanes that execute it", br[0] ? " at " : "", br);
            snprintf(dep, sizeof dep, "the lanes that execute it against its member mask");
            snprintf(fix, sizeof fix, "use __activemask() or the branch's ballot as the mask");
            break;
        }
        chk_finding *x = push(l);
        x->ptx_path = path;
        x->rule = (uint8_t)rule;
        locate(x, rb, c, f, s->stmt);
        set_cost(x, 1, s->proven ? CHK_PROVEN : CHK_POSSIBLE, dep);
        x->message = xstrdup(msg);
        x->hint = xstrdup(fix);
    }
    arena_free(&a);
}

static void collect_func(chk_list *l, rawbuf *rb, const char *path, const coal_report_ctx *c, const coal_func *f,
                         unsigned mask)
{
    char buf[1024], dep[512];
    for (uint32_t j = 0; j < f->nacc; j++) {
        const coal_access *a = &f->acc[j];
        enum chk_rule rule;
        enum chk_certainty cert;
        uint32_t excess;
        if (!chk_access_verdict(c, f, a, &rule, &cert, &excess, dep, sizeof dep) || !(mask >> rule & 1)) {
            /* a finding of a rule reported that the facts cleared */
            if (a->assumed && a->was && (mask >> (a->was - 1) & 1) && f->facts) assumptions(NULL, rb, c, f, a);
            continue;
        }
        chk_finding *x = push(l);
        if (a->assumed && f->facts) assumptions(x, rb, c, f, a);
        x->ptx_path = path;
        x->rule = (uint8_t)rule;
        locate(x, rb, c, f, a->stmt);
        set_cost(x, excess, cert, dep);
        /* the texts once grouped (access_texts): most findings fold into
         * another, and writing theirs was a third of collecting */
        x->acc_src = x->msg_src = a;
        x->msg_excess = excess;
    }
    if (mask >> CHK_DIVERGENT_BARRIER & 1 || mask >> CHK_DIVERGENT_COLLECTIVE & 1) sync_findings(l, rb, path, c, f, mask);
    if (!(mask >> CHK_DIVERGENT_BRANCH & 1)) return;
    const cfg *g = f->pf->g;
    for (uint32_t b = 0; b < g->nblocks; b++) {
        const cfg_block *bb = &g->blocks[b];
        if (!bb->reachable || bb->nsucc < 2 || bb->term == CFG_NONE) continue;
        if (div_branch(f->r, b) == DIV_UNIFORM) {
            unsigned cond = div_branch_cond(f->r, b);
            if (!cond) continue;
            chk_finding *x = push_to(&l->cv, &l->ncv, &l->capcv);
            x->ptx_path = path;
            x->rule = CHK_DIVERGENT_BRANCH;
            locate(x, rb, c, f, bb->term);
            x->message = xstrdup(div_cond_text(cond));
            continue;
        }
        chk_finding *x = push(l);
        x->ptx_path = path;
        x->rule = CHK_DIVERGENT_BRANCH;
        locate(x, rb, c, f, bb->term);
        bool proven = div_branch_proven(f->r, b);
        set_cost(x, 1, proven ? CHK_PROVEN : CHK_POSSIBLE,
                 "the values of the branch condition in a warp's lanes (not proven the same, nor different)");
        const char *kw = bb->nsucc > 2 ? "indirect branch" : "branch";
        size_t len;
        const char *raw = inst_raw(rb, f->pf->fn, &f->pf->fn->stmts[bb->term]->u.inst, &len);
        char *one = inst_normalized(raw, len, false);
        if (proven) snprintf(buf, sizeof buf, "divergent %s: its condition differs between the lanes of a warp: %s", kw, one);
        else snprintf(buf, sizeof buf, "%s not proven uniform across the warp (affine analysis): %s", kw, one);
        free(one);
        x->message = xstrdup(buf);
    }
}

static const char *intern_path(chk_list *l, const char *path)
{
    for (size_t i = l->npaths; i-- > 0;)
        if (!strcmp(l->paths[i], path)) return l->paths[i];
    l->paths = realloc(l->paths, (l->npaths + 1) * sizeof *l->paths);
    if (!l->paths) abort();
    return l->paths[l->npaths++] = xstrdup(path);
}

static void free_finding(chk_finding *x)
{
    free(x->kernel);
    free(x->symbol);
    free(x->insts);
    free(x->src_file);
    for (uint32_t k = 0; k < x->ncalls; k++) free(x->calls[k].file);
    free(x->calls);
    free(x->src_text);
    free(x->message);
    free(x->hint);
    free(x->depends);
    free(x->param_name);
    free(x->value);
    free(x->inst);
    free(x->access);
    for (uint32_t k = 0; k < x->nat; k++) free(x->at[k].from);
    free(x->at);
    free(x->assumed);
}

static bool same_place(const chk_finding *a, const chk_finding *b)
{
    return a->src_file && b->src_file && a->rule == b->rule && a->src_line == b->src_line &&
           !strcmp(a->symbol, b->symbol) && !strcmp(a->src_file, b->src_file);
}

/* Whether x speaks for its group better than the group's current
 * representative: proven before possible, then the larger excess. */
static bool better(const chk_finding *x, uint8_t rep_cert, uint64_t rep_excess)
{
    if (x->certainty != rep_cert) return x->certainty < rep_cert;
    return x->excess > rep_excess;
}

static void merge_assumed(chk_finding *y, const chk_finding *x)
{
    if (!x->assumed) return;
    char *t = strdup(x->assumed), *save = NULL;
    if (!t) abort();
    for (char *p = strtok_r(t, ";", &save); p; p = strtok_r(NULL, ";", &save)) add_assumed(&y->assumed, p + (*p == ' '));
    free(t);
}

/* The kind of access a's message names: load, store, atomic, prefetch. */
static unsigned access_kind(const coal_access *a) { return a->prefetch ? 0xff : a->kind; }

/* Folds the findings v[0..n) (one per PTX instruction, in PTX order) into
 * one per (kernel, source file, line, rule); returns the new count. */
static size_t group(chk_finding *v, size_t n)
{
    size_t k = 0;
    uint8_t *rc = malloc(n ? n : 1);
    uint64_t *rx = malloc(sizeof *rx * (n ? n : 1));
    if (!rc || !rx) abort();
    for (size_t i = 0; i < n; i++) {
        chk_finding *x = &v[i];
        size_t g = k;
        for (size_t j = 0; j < k; j++)
            if (same_place(&v[j], x)) {
                g = j;
                break;
            }
        if (g == k) {
            rc[k] = x->certainty;
            rx[k] = x->excess;
            if (k != i) v[k] = *x;
            k++;
            continue;
        }
        chk_finding *y = &v[g];
        if (x->acc_src && y->acc_src && access_kind(x->acc_src) != access_kind(y->acc_src)) y->mixed = true;
        y->insts = realloc(y->insts, sizeof *y->insts * (y->ninst + 1));
        if (!y->insts) abort();
        y->insts[y->ninst++] = x->insts[0];
        if (better(x, rc[g], rx[g])) {
            rc[g] = x->certainty;
            rx[g] = x->excess;
            char *t;
            t = y->message, y->message = x->message, x->message = t;
            t = y->hint, y->hint = x->hint, x->hint = t;
            t = y->depends, y->depends = x->depends, x->depends = t;
            y->msg_src = x->msg_src;
            y->msg_excess = x->msg_excess;
            y->src_col = x->src_col;
        }
        if (x->certainty < y->certainty) y->certainty = x->certainty;
        if (y->certainty == CHK_PROVEN && y->depends) {
            free(y->depends);
            y->depends = NULL;
        }
        merge_assumed(y, x);
        y->excess += x->excess;
        y->cost += x->cost;
        if (x->loop_depth > y->loop_depth) y->loop_depth = x->loop_depth;
        free_finding(x);
    }
    free(rc);
    free(rx);
    return k;
}

/* Whitespace collapsed, trimmed. */
static char *text_normalized(const char *s, size_t n)
{
    char *out = malloc(n + 1);
    if (!out) abort();
    size_t k = 0;
    bool space = false;
    for (size_t i = 0; i < n; i++) {
        if (isspace((unsigned char)s[i])) {
            space = k > 0;
            continue;
        }
        if (space) out[k++] = ' ';
        space = false;
        out[k++] = s[i];
    }
    out[k] = 0;
    return out;
}

/* Without the ordinal: rule, the PTX file's base name, the kernel's
 * symbol, and the source line's text (whitespace collapsed) when it can be
 * read, else the source file's base name with the first instruction's text
 * and access.  Neither the directory nor any line number is part of it. */
static uint64_t base_fingerprint(const chk_finding *x)
{
    uint64_t h = 0xcbf29ce484222325ull;
    h = fnv_str(h, "ptxray-check-v2");
    h = fnv_str(h, chk_rule_name((enum chk_rule)x->rule));
    h = fnv_str(h, base_name(x->ptx_path));
    h = fnv_str(h, x->symbol);
    if (x->src_text) {
        char *t = text_normalized(x->src_text, strlen(x->src_text));
        h = fnv_str(h, "src");
        h = fnv_str(h, t);
        free(t);
        return h;
    }
    h = fnv_str(h, x->src_file ? base_name(x->src_file) : NULL);
    h = fnv_str(h, x->inst);
    return fnv_str(h, x->access);
}

/* The same finding at another shape: same kernel and rule, and the same
 * source line, or the same PTX position when there is none (such findings
 * are not grouped). */
static bool same_finding(const chk_finding *a, const chk_finding *b)
{
    if (a->src_file || b->src_file) return same_place(a, b);
    return a->rule == b->rule && a->line == b->line && a->col == b->col && !strcmp(a->symbol, b->symbol);
}

static int cmp_pos(const void *a, const void *b)
{
    const chk_pos *x = a, *y = b;
    if (x->line != y->line) return x->line < y->line ? -1 : 1;
    return x->col < y->col ? -1 : x->col > y->col;
}

/* x, found at another shape, into y: the shape added, the instructions of
 * both, the larger cost and excess, proven if proven at any shape, the
 * message of the one that speaks better for it (as group()). */
static void merge_shape(chk_finding *y, chk_finding *x)
{
    y->at = realloc(y->at, sizeof *y->at * (y->nat + x->nat));
    if (!y->at) abort();
    for (uint32_t k = 0; k < x->nat; k++) y->at[y->nat++] = x->at[k];
    x->nat = 0;
    for (uint32_t k = 0; k < x->ninst; k++) {
        bool have = false;
        for (uint32_t j = 0; j < y->ninst && !have; j++)
            have = y->insts[j].line == x->insts[k].line && y->insts[j].col == x->insts[k].col;
        if (have) continue;
        y->insts = realloc(y->insts, sizeof *y->insts * (y->ninst + 1));
        if (!y->insts) abort();
        y->insts[y->ninst++] = x->insts[k];
    }
    qsort(y->insts, y->ninst, sizeof *y->insts, cmp_pos);
    y->line = y->insts[0].line;
    y->col = y->insts[0].col;
    if (x->certainty < y->certainty || (x->certainty == y->certainty && x->cost > y->cost)) {
        char *t;
        t = y->message, y->message = x->message, x->message = t;
        t = y->hint, y->hint = x->hint, x->hint = t;
        t = y->depends, y->depends = x->depends, x->depends = t;
        t = y->access, y->access = x->access, x->access = t;
        t = y->param_name, y->param_name = x->param_name, x->param_name = t;
        t = y->value, y->value = x->value, x->value = t;
        bool hp = y->has_param;
        uint32_t pi = y->param;
        y->has_param = x->has_param, y->param = x->param, x->has_param = hp, x->param = pi;
        y->src_col = x->src_col;
    }
    if (x->certainty < y->certainty) y->certainty = x->certainty;
    if (y->certainty == CHK_PROVEN && y->depends) {
        free(y->depends);
        y->depends = NULL;
    }
    merge_assumed(y, x);
    if (x->cost > y->cost) y->cost = x->cost;
    if (x->excess > y->excess) y->excess = x->excess;
    if (x->loop_depth > y->loop_depth) y->loop_depth = x->loop_depth;
}

size_t chk_collect_begin(chk_list *l)
{
    if (!l->texts) l->texts = st_new();
    return l->n;
}

void chk_collect_at(chk_list *l, size_t first, const char *path, const coal_report_ctx *c, unsigned mask)
{
    const char *p = intern_path(l, path);
    const blk_opts *bo = coal_blocks(c->opts);
    size_t mid = l->n;
    rawbuf rb = {0};
    for (uint32_t i = 0; i < c->res->nfuncs; i++) {
        const coal_func *f = &c->res->f[i];
        if (!blk_round_has(bo, f->pf->fn)) continue;
        size_t at = l->n;
        collect_func(l, &rb, p, c, f, mask);
        l->ungrouped += l->n - at;
        l->n = at + group(l->v + at, l->n - at);
        access_texts(l->v + at, l->n - at, c, f);
        for (size_t k = at; k < l->n; k++) {
            l->v[k].at[0].cost = l->v[k].cost;
            l->v[k].at[0].certainty = l->v[k].certainty;
        }
        if (!bo || !bo->round) l->origin[f->origin]++;
    }
    rawbuf_free(&rb);
    /* the findings of this round that an earlier one had */
    size_t k = mid;
    for (size_t i = mid; i < l->n; i++) {
        chk_finding *x = &l->v[i];
        size_t j = first;
        while (j < mid && !same_finding(&l->v[j], x)) j++;
        if (j < mid) {
            merge_shape(&l->v[j], x);
            free_finding(x);
        } else l->v[k++] = *x;
    }
    l->n = k;
}

typedef struct fp_ord {
    uint64_t base;
    size_t i;
} fp_ord;

static int cmp_fp_ord(const void *a, const void *b)
{
    const fp_ord *x = a, *y = b;
    if (x->base != y->base) return x->base < y->base ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

void chk_collect_end(chk_list *l, size_t first, const char *path)
{
    for (size_t i = first; i < l->n; i++) {
        chk_finding *x = &l->v[i];
        size_t len;
        const char *t = x->src_file ? st_line(l->texts, path, x->src_file, x->src_line, &len, NULL) : NULL;
        if (t) x->src_text = strndup(t, len);
    }
    /* identical findings tell apart by their order in the file (those of
     * the first round first: a kernel's later shapes add findings after
     * them, so the fingerprints of one shape's stay) */
    /* a finding's ordinal among those of its base fingerprint: sorted by
     * (base, position), each run of one base counts up (a scan of the
     * earlier findings for each was quadratic in a file's findings) */
    size_t n = l->n - first;
    fp_ord *base = malloc(sizeof *base * (n ? n : 1));
    if (!base) abort();
    for (size_t i = 0; i < n; i++) base[i] = (fp_ord){base_fingerprint(&l->v[first + i]), i};
    qsort(base, n, sizeof *base, cmp_fp_ord);
    uint32_t ord = 0;
    for (size_t i = 0; i < n; i++) {
        ord = i && base[i].base == base[i - 1].base ? ord + 1 : 0;
        l->v[first + base[i].i].fingerprint = fnv(base[i].base, &ord, sizeof ord);
    }
    free(base);
}

void chk_collect(chk_list *l, const char *path, const coal_report_ctx *c, unsigned mask)
{
    size_t first = chk_collect_begin(l);
    chk_collect_at(l, first, path, c, mask);
    chk_collect_end(l, first, path);
}

int chk_rank_cmp(uint64_t proven_a, uint64_t possible_a, uint64_t proven_b, uint64_t possible_b)
{
    if (proven_a != proven_b) return proven_a > proven_b ? -1 : 1;
    if (possible_a != possible_b) return possible_a > possible_b ? -1 : 1;
    return 0;
}

static int cmp_finding(const void *a, const void *b)
{
    const chk_finding *x = a, *y = b;
    /* the certainty decides before the cost even were a cost 0 */
    if (x->certainty != y->certainty) return x->certainty < y->certainty ? -1 : 1;
    bool px = x->certainty == CHK_PROVEN, py = y->certainty == CHK_PROVEN;
    int r = chk_rank_cmp(px ? x->cost : 0, px ? 0 : x->cost, py ? y->cost : 0, py ? 0 : y->cost);
    if (r) return r;
    int c = strcmp(x->ptx_path, y->ptx_path);
    if (c) return c;
    if (x->line != y->line) return x->line < y->line ? -1 : 1;
    if (x->col != y->col) return x->col < y->col ? -1 : 1;
    if (x->rule != y->rule) return x->rule < y->rule ? -1 : 1;
    return x->fingerprint < y->fingerprint ? -1 : x->fingerprint > y->fingerprint;
}

static int cmp_position(const void *a, const void *b)
{
    const chk_finding *x = a, *y = b;
    int c = strcmp(x->ptx_path, y->ptx_path);
    if (c) return c;
    if (x->line != y->line) return x->line < y->line ? -1 : 1;
    return x->col < y->col ? -1 : x->col > y->col;
}

int chk_cmp_ptr(const void *a, const void *b)
{
    return cmp_finding(*(const chk_finding *const *)a, *(const chk_finding *const *)b);
}

void chk_sort(chk_list *l)
{
    if (l->n) qsort(l->v, l->n, sizeof *l->v, cmp_finding);
    if (l->ncv) qsort(l->cv, l->ncv, sizeof *l->cv, cmp_position);
}

/* Moves src's findings (the ptx_path re-interned) to the end of dst's. */
static void move_findings(chk_list *dst, chk_finding **v, size_t *n, size_t *cap, chk_finding *from, size_t nfrom)
{
    for (size_t i = 0; i < nfrom; i++) {
        chk_finding *x = push_to(v, n, cap);
        *x = from[i];
        x->ptx_path = intern_path(dst, from[i].ptx_path);
    }
}

void chk_merge(chk_list *dst, chk_list *src)
{
    if (!dst->texts) dst->texts = st_new();
    move_findings(dst, &dst->v, &dst->n, &dst->cap, src->v, src->n);
    move_findings(dst, &dst->cv, &dst->ncv, &dst->capcv, src->cv, src->ncv);
    for (int o = 0; o < BLK_NORIGINS; o++) dst->origin[o] += src->origin[o];
    dst->ungrouped += src->ungrouped;
    free(src->v);
    free(src->cv);
    for (size_t i = 0; i < src->npaths; i++) free(src->paths[i]);
    free(src->paths);
    st_free(src->texts);
    memset(src, 0, sizeof *src);
}

static void free_findings(chk_finding *v, size_t n)
{
    for (size_t i = 0; i < n; i++) free_finding(&v[i]);
    free(v);
}

void chk_free(chk_list *l)
{
    free_findings(l->v, l->n);
    free_findings(l->cv, l->ncv);
    for (size_t i = 0; i < l->npaths; i++) free(l->paths[i]);
    free(l->paths);
    st_free(l->texts);
    memset(l, 0, sizeof *l);
}
