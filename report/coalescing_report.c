/* Text, JSON and SARIF reports of the coalescing model (coalescing_report.h). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "coalescing_report.h"
#include "config.h"
#include "kname.h"
#include "version.h"
#include "names.h"

static const char *const assumption_text[] = {
    "warps are 32 threads with consecutive linear thread ids; global memory is read in 32-byte sectors and "
    "128-byte lines",
    "allocation bases (kernel pointer parameters) are 256-byte aligned; a uniform part of an address whose "
    "alignment is not known is taken as aligned",
    "index and address arithmetic does not wrap around",
    "a generic pointer counts as global when it comes from a kernel's 64-bit parameter or a cvta to or from "
    ".global; other generic accesses are not analysed",
    "source positions are the outermost call site of inlined code",
};

static void cat(char *buf, size_t n, size_t *len, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void cat(char *buf, size_t n, size_t *len, const char *fmt, ...)
{
    if (*len >= n) return;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(buf + *len, n - *len, fmt, ap);
    va_end(ap);
    if (w > 0) *len += (size_t)w < n - *len ? (size_t)w : n - *len - 1;
}

static const char *mono_text(unsigned i)
{
    static const char *const t[] = {"1", "tid.x", "tid.y", "tid.z", "laneid", "tid.x²", "tid.x·tid.y",
                                    "tid.x·tid.z", "tid.x·laneid", "tid.y²", "tid.y·tid.z", "tid.y·laneid",
                                    "tid.z²", "tid.z·laneid", "laneid²"};
    return i < sizeof t / sizeof t[0] ? t[i] : "?";
}

static const char *kind_word(const coal_access *x)
{
    return x->prefetch ? "prefetch" : coal_kind_name((enum coal_kind)x->kind);
}

/* The name of the stride's symbolic factor: "cols", "param 3 of Fan2"
 * without the source (srcnames.h); in parentheses as a factor when it is
 * several words. */
static const char *sym_name(const coal_report_ctx *c, const coal_func *f, const coal_access *x, bool factor, char *buf,
                            size_t n)
{
    char name[160];
    sn_value_label(c ? c->names : NULL, f->chain, x->sym_value, name, sizeof name, NULL);
    if (factor && sn_label_compound(name)) snprintf(buf, n, "(%s)", name);
    else snprintf(buf, n, "%s", name);
    return buf;
}

/* "4·cols"; "64·pitch" for 4·(pitch << 4) */
static void sym_stride_text(const coal_report_ctx *c, const coal_func *f, const coal_access *x, char *buf, size_t n)
{
    sn_value_times(c ? c->names : NULL, f->chain, x->sym_value, x->sym_k, buf, n);
}

int32_t coal_param(const coal_report_ctx *c, const coal_func *f, const coal_access *x, const char **name)
{
    *name = NULL;
    if (!x->sym_named && !x->bank_cond) return -1;
    return sn_value_param(c ? c->names : NULL, f->chain, x->sym_value, name);
}

bool coal_value_label(const coal_report_ctx *c, const coal_func *f, const coal_access *x, char *buf, size_t n)
{
    int32_t pi;
    if (!x->sym_named && !x->bank_cond) return false;
    sn_value_label(c ? c->names : NULL, f->chain, x->sym_value, buf, n, &pi);
    return pi < 0;
}

json_t *coal_param_json(const coal_report_ctx *c, const coal_func *f, const coal_access *x)
{
    if (!x->sym_named && !x->bank_cond) return NULL;
    return sn_param_json(c ? c->names : NULL, f->chain, x->sym_value);
}

/* The project file's facts (config.h) that changed x's verdict, as check
 * words them: "w % 32 == 0 (ptxray.yaml:8)", several joined by "; ";
 * false when none did. */
static bool assumed_text(const coal_func *f, const coal_access *x, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = 0;
    if (!x->assumed || !f->facts) return false;
    for (uint32_t k = 0; k < f->facts->n; k++) {
        if (!(x->assumed >> k & 1)) continue;
        const cfg_fact *fa = f->facts->v[k].tag;
        cat(buf, n, &len, "%s%s (%s)", len ? "; " : "", fa->text, fa->where);
    }
    return len > 0;
}

static void layout_text(const coal_report_ctx *c, const coal_func *f, const coal_access *x, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = 0;
    switch (x->pattern) {
    case COAL_P_UNIFORM: cat(buf, n, &len, "all lanes at one address"); break;
    case COAL_P_UNIT: cat(buf, n, &len, "lanes %" PRId64 " B apart (unit stride)", x->stride); break;
    case COAL_P_STRIDE: cat(buf, n, &len, "lanes %" PRId64 " B apart", x->stride); break;
    case COAL_P_PIECEWISE:
        if (x->dim_known >> DIV_C_X & 1)
            cat(buf, n, &len, "no single stride (%" PRId64 " B along tid.x, warp %u of %u)", x->dim_stride[DIV_C_X],
                x->worst_warp, x->nwarps);
        else cat(buf, n, &len, "no single stride");
        break;
    case COAL_P_SYMBOLIC:
        if (x->sym_named) {
            char s[256], name[192];
            sym_stride_text(c, f, x, s, sizeof s);
            sym_name(c, f, x, true, name, sizeof name);
            cat(buf, n, &len, "lanes %s B apart (stride from %s·%s)", s, mono_text(x->sym_mono), name);
        } else if (x->lane_eval)
            cat(buf, n, &len, "%u groups of lanes, exact within each, an unknown uniform distance apart", x->ngroups);
        else if (x->why_stmt != UINT32_MAX)
            cat(buf, n, &len, "stride unknown, from a value loaded at PTX line %u",
                f->pf->fn->stmts[x->why_stmt]->loc.line);
        else cat(buf, n, &len, "stride unknown (not a known multiple of the thread index)");
        break;
    case COAL_P_IRREGULAR:
        if (x->why_stmt != UINT32_MAX)
            cat(buf, n, &len, "address depends on a value loaded at PTX line %u",
                f->pf->fn->stmts[x->why_stmt]->loc.line);
        else if (x->poly.bot != AFF_ALL(x->poly.n))
            cat(buf, n, &len, "lane offsets depend on where the warp sits in the block");
        else cat(buf, n, &len, "address not affine in the thread index");
        break;
    case COAL_P_SINGLE: cat(buf, n, &len, "at most one lane"); break;
    case COAL_P_BOUNDED:
        cat(buf, n, &len, "lanes within a %" PRId64 "-byte window (a masked or reduced index)", x->window);
        break;
    default: break;
    }
}

static void degree_word(char *buf, size_t n, size_t *len, unsigned d)
{
    if (d <= 1) cat(buf, n, len, "conflict-free");
    else cat(buf, n, len, "%u-way", d);
}

void coal_bank_condition(const coal_report_ctx *c, const coal_func *f, const coal_access *x, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = 0;
    if (!x->bank_cond) return;
    char name[192];
    sym_name(c, f, x, false, name, sizeof name);
    const unsigned top = COAL_TZ_CLASSES - 1;
    /* the classes from the top down that share the top's degree: a multiple of 2^t */
    unsigned t = top;
    while (t > 0 && x->bank_by_tz[t - 1] == x->bank_by_tz[top]) t--;
    degree_word(buf, n, &len, x->bank_by_tz[top]);
    cat(buf, n, &len, " when `%s` is a multiple of %lld", name, 1LL << t);
    /* then runs [a, b] of classes with one degree, downwards */
    while (t > 0) {
        unsigned b = t - 1, a = b;
        while (a > 0 && x->bank_by_tz[a - 1] == x->bank_by_tz[b]) a--;
        cat(buf, n, &len, ", ");
        degree_word(buf, n, &len, x->bank_by_tz[b]);
        if (a == 0 && b == 0) cat(buf, n, &len, " when it is odd");
        else if (a == 0) cat(buf, n, &len, " when it is not a multiple of %lld", 1LL << (b + 1));
        else if (a == b) cat(buf, n, &len, " when it is %lld times an odd number", 1LL << a);
        else cat(buf, n, &len, " when it is a multiple of %lld but not of %lld", 1LL << a, 1LL << (b + 1));
        t = a;
    }
}

/* Where lane 0 sits, as far as it is known: "lane 0 is 4 B past a
 * 128-byte boundary", or with only the low k < 7 bits known "lane 0 is 4 B
 * past a 32-byte boundary" (k = 5) or "lane 0's address is 4 modulo 8". */
static void offset_text(const coal_access *x, char *buf, size_t n)
{
    unsigned k = x->base.k < 7 ? x->base.k : 7;
    unsigned long long m = 1ull << k, r = (unsigned long long)x->base.r % m;
    if (k >= 5) snprintf(buf, n, "lane 0 is %llu B past a %llu-byte boundary", r, m);
    else if (r) snprintf(buf, n, "lane 0's address is %llu modulo %llu (never on a 32-byte boundary)", r, m);
    else snprintf(buf, n, "lane 0's address known only modulo %llu", m);
}

void coal_depends_text(const coal_report_ctx *c, const coal_func *f, const coal_access *a, enum coal_dep d, char *dep,
                       size_t n)
{
    char name[192];
    switch (d) {
    case COAL_DEP_NONE: dep[0] = 0; return;
    case COAL_DEP_ALIGN:
        snprintf(dep, n,
                 "the alignment of lane 0's address, known only modulo %lld B (a base, row or offset from a "
                 "parameter or from memory, a structure's size); clean when it is a multiple of 32 B",
                 1LL << a->align_base.k);
        return;
    case COAL_DEP_ROWS:
        snprintf(dep, n,
                 "where each group of lanes starts (the rows of a block narrower than a warp): their distance is "
                 "not known modulo 32 B (a row pitch from a parameter or from memory); clean when every group "
                 "starts on a 32-byte boundary");
        return;
    case COAL_DEP_SYM_STRIDE:
    case COAL_DEP_BANK_STRIDE:
        sym_name(c, f, a, false, name, sizeof name);
        snprintf(dep, n, "the value of %s (the lanes' stride is a multiple of it)", name);
        return;
    case COAL_DEP_GROUPS: snprintf(dep, n, "the unknown distance between groups of lanes"); return;
    case COAL_DEP_LOADED_STRIDE:
        snprintf(dep, n, "a value loaded at PTX line %u (the stride)", f->pf->fn->stmts[a->why_stmt]->loc.line);
        return;
    case COAL_DEP_STRIDE: snprintf(dep, n, "an unknown stride"); return;
    case COAL_DEP_LOADED_ADDR:
        snprintf(dep, n, "a value loaded at PTX line %u (the lanes' addresses)", f->pf->fn->stmts[a->why_stmt]->loc.line);
        return;
    case COAL_DEP_ADDR: snprintf(dep, n, "the lanes' addresses (not affine in the thread index)"); return;
    case COAL_DEP_WINDOW: snprintf(dep, n, "where the lanes fall in their window"); return;
    default: snprintf(dep, n, "the lanes' addresses"); return;
    }
}

void coal_message(const coal_report_ctx *c, const coal_func *f, const coal_access *x, char *buf, size_t n)
{
    coal_message_as(c, f, x, NULL, buf, n);
}

void coal_message_as(const coal_report_ctx *c, const coal_func *f, const coal_access *x, const char *word, char *buf,
                     size_t n)
{
    const char *kind = word ? word : kind_word(x), *kind_plain = word ? word : coal_kind_name((enum coal_kind)x->kind);
    size_t len = 0;
    char lay[256];
    coal_verdict v;
    if (coal_verdict_of(x, &v) && v.by_alignment) {
        /* a finding only where the alignment is worse than assumed */
        int32_t at = x->sectors >= 0 ? x->sectors : x->sectors_asm;
        if (v.dep == COAL_DEP_ALIGN && x->has_stride)
            snprintf(buf, n,
                     "misaligned global %s unless lane 0 is 32-byte aligned: its address is known only modulo "
                     "%lld B, lanes %" PRId64 " B apart; %d sectors/request if aligned, up to %d otherwise, ideal %u",
                     kind_plain, 1LL << x->align_base.k, x->stride, at, x->sectors_max,
                     x->ideal);
        else {
            layout_text(c, f, x, lay, sizeof lay);
            snprintf(buf, n, "misaligned global %s unless %s: %s; %d sectors/request if aligned, up to %d otherwise, ideal %u",
                     kind_plain,
                     v.dep == COAL_DEP_ROWS ? "every group of lanes starts on a 32-byte boundary"
                                            : "lane 0 is 32-byte aligned",
                     lay, at, x->sectors_max, x->ideal);
        }
        return;
    }
    layout_text(c, f, x, lay, sizeof lay);
    buf[0] = 0;
    if (coal_bank_unknown(x)) {
        cat(buf, n, &len, "bank conflicts not analysed in shared %s: %s", kind, lay);
        return;
    }
    if (x->space == COAL_SHARED && x->bank_cond) {
        char cond[512];
        coal_bank_condition(c, f, x, cond, sizeof cond);
        cat(buf, n, &len, "up to %d-way bank conflict in shared %s: %s; %s", x->bank_degree_max, kind, lay,
            cond);
        return;
    }
    if (x->space == COAL_SHARED) {
        cat(buf, n, &len, "%d-way bank conflict in shared %s: %s, %d wavefronts, ideal %d", x->bank_degree,
            kind, lay, x->wavefronts, x->ideal_wavefronts);
        if (x->bank_serialised) cat(buf, n, &len, " (atomics on one word serialise)");
        return;
    }
    const char *rule = coal_rule(x);
    char off[96];
    offset_text(x, off, sizeof off);
    if (!strcmp(rule, "misaligned")) {
        cat(buf, n, &len, "misaligned global %s: %s, %s, %d sectors/request, ideal %u (%d if aligned)", kind,
            off, lay, x->sectors, x->ideal, x->sectors_aligned);
        return;
    }
    cat(buf, n, &len, "uncoalesced global %s: %s, ", kind, lay);
    if (x->sectors >= 0) cat(buf, n, &len, "%d sectors/request", x->sectors);
    else cat(buf, n, &len, "up to %d sectors/request", x->sectors_max);
    cat(buf, n, &len, ", ideal %u", x->ideal);
    if (x->misaligned) cat(buf, n, &len, " (misaligned: %s)", off);
}

static void stmt_src(const coal_report_ctx *c, const coal_func *f, uint32_t stmt, char *buf, size_t n)
{
    src_pos p;
    src_pos_of(c->files, f->pf->fn, stmt, &p);
    if (p.file) snprintf(buf, n, "%s:%u", p.file, p.line);
    else snprintf(buf, n, "%s:%u", c->ptx_path, f->pf->fn->stmts[stmt]->loc.line);
}

bool coal_hint(const coal_report_ctx *c, const coal_func *f, const coal_access *x, char *buf, size_t n)
{
    if (x->space != COAL_GLOBAL || !x->uncoalesced || x->hint_kind == COAL_HINT_NONE) return false;
    int32_t now = coal_current_sectors(x);
    if (x->hint_sectors < 0 || x->hint_sectors >= now) return false; /* only an improvement is a hint */
    char cur[32];
    snprintf(cur, sizeof cur, "%s%d", x->sectors >= 0 ? "" : "up to ", now);
    if (x->hint_kind == COAL_HINT_SWAP_XY) {
        snprintf(buf, n,
                 "swap the roles of tid.x and tid.y (GPUDrano's Fan2 fix): along tid.y the lanes' addresses are "
                 "%" PRId64 " B apart, so the access would touch %d sectors per request instead of %s",
                 x->dim_stride[DIV_C_Y], x->hint_sectors, cur);
        return true;
    }
    char where[512];
    stmt_src(c, f, x->step_stmt, where, sizeof where);
    int64_t apart = x->step < 0 ? -x->step : x->step;
    snprintf(buf, n,
             "give the iterations of the loop at %s to neighbouring threads (GPUDrano's Fan2 fix): the address "
             "moves %" PRId64 " B per iteration, so lanes %" PRId64 " B apart would touch %d sectors per request "
             "instead of %s",
             where, x->step, apart, x->hint_sectors, cur);
    return true;
}

/* The hint as JSON: its text, kind and the sector counts it compares. */
static json_t *hint_json(const coal_report_ctx *c, const coal_func *f, const coal_access *x)
{
    char buf[1024];
    if (!coal_hint(c, f, x, buf, sizeof buf)) return json_null();
    json_t *h = json_object();
    json_object_set_new(h, "text", json_string(buf));
    json_object_set_new(h, "kind", json_string(coal_hint_kind_name((enum coal_hint_kind)x->hint_kind)));
    json_object_set_new(h, "predicted_sectors", json_integer(x->hint_sectors));
    json_object_set_new(h, "current_sectors", json_integer(coal_current_sectors(x)));
    return h;
}

/* ---- JSON -------------------------------------------------------------------- */

static json_t *src_json(const src_pos *p)
{
    if (!p->file) return json_null();
    json_t *o = json_object();
    json_object_set_new(o, "file", json_string(p->file));
    json_object_set_new(o, "line", json_integer(p->line));
    json_object_set_new(o, "col", json_integer(p->col));
    json_t *inl = json_array();
    for (uint32_t i = 0; i < p->ninl; i++) {
        json_t *e = json_object();
        json_object_set_new(e, "file", json_string(p->inl[i].file));
        json_object_set_new(e, "line", json_integer(p->inl[i].line));
        json_object_set_new(e, "col", json_integer(p->inl[i].col));
        json_array_append_new(inl, e);
    }
    json_object_set_new(o, "inlined", inl);
    return o;
}

static json_t *int_or_null(bool known, int64_t v) { return known ? json_integer(v) : json_null(); }

const blk_opts *coal_blocks(const coal_options *o) { return o ? o->blocks : NULL; }

static json_t *block_json(const coal_report_ctx *c, const coal_func *f)
{
    json_t *b = json_object();
    json_object_set_new(b, "shape", wl_shape_known(&f->shape) ? blk_shape_json(f->shape.block) : json_null());
    json_object_set_new(b, "origin",
                        json_string(blk_origin_for(coal_blocks(c->opts), f->pf->fn, (enum blk_origin)f->origin)));
    json_object_set_new(b, "assumed",
                        json_string(wl_shape_known(&f->shape)
                                        ? "every warp of the block evaluated; the worst one reported"
                                        : BLK_DEFAULT_TEXT ": each warp is 32 consecutive tid.x with one "
                                                           "tid.y and tid.z"));
    return b;
}

static json_t *access_json(const coal_report_ctx *c, const coal_func *f, const coal_access *x)
{
    json_t *o = json_object();
    const ptx_stmt *s = f->pf->fn->stmts[x->stmt];
    src_pos p;
    src_pos_of(c->files, f->pf->fn, x->stmt, &p);
    json_object_set_new(o, "ptx_line", json_integer(s->loc.line));
    json_object_set_new(o, "src", src_json(&p));
    json_object_set_new(o, "opcode", json_stringn(x->in->opcode, x->in->opcode_len));
    json_object_set_new(o, "space", json_string(x->space == COAL_GLOBAL ? "global" : "shared"));
    json_object_set_new(o, "space_from",
                        json_string(x->explicit_space ? "instruction" : addr_prov_name((enum addr_prov)x->prov)));
    json_object_set_new(o, "kind", json_string(coal_kind_name((enum coal_kind)x->kind)));
    json_object_set_new(o, "bytes_per_lane", json_integer(x->bytes));
    json_object_set_new(o, "vector", json_integer(x->vec));
    json_object_set_new(o, "element_bytes", json_integer(x->elem_bytes));
    char buf[512];
    json_object_set_new(o, "pattern", json_string(coal_pattern_name((enum coal_pattern)x->pattern)));
    json_object_set_new(o, "stride_bytes", int_or_null(x->has_stride, x->stride));
    json_t *st = json_object();
    for (unsigned d = DIV_C_X; d <= DIV_C_LANE; d++)
        json_object_set_new(st, mono_text(d), int_or_null(x->dim_known >> d & 1, x->dim_stride[d]));
    json_object_set_new(o, "strides", st);
    if (x->sym_named) {
        sym_stride_text(c, f, x, buf, sizeof buf);
        json_object_set_new(o, "symbolic_stride", json_string(buf));
    } else json_object_set_new(o, "symbolic_stride", json_null());
    json_t *pj = coal_param_json(c, f, x); /* only when the stride's factor is a kernel parameter */
    if (pj) json_object_set_new(o, "param", pj);
    /* sectors and lines are global memory's; shared memory has banks */
    bool g = x->space == COAL_GLOBAL;
    json_object_set_new(o, "sectors_per_request", int_or_null(g && x->sectors >= 0, x->sectors));
    json_object_set_new(o, "sectors_per_request_max", int_or_null(g && x->sectors_max >= 0, x->sectors_max));
    json_object_set_new(o, "ideal_sectors", int_or_null(g, x->ideal));
    json_object_set_new(o, "lines_per_request", int_or_null(g && x->lines >= 0, x->lines));
    if (x->pattern != COAL_P_SYMBOLIC && x->pattern != COAL_P_IRREGULAR && x->pattern != COAL_P_SINGLE) {
        json_t *al = json_object();
        json_object_set_new(al, "offset", json_integer(x->base.r % 128));
        json_object_set_new(al, "known_modulo", json_integer((int64_t)1 << x->base.k));
        json_object_set_new(o, "alignment", al);
    } else json_object_set_new(o, "alignment", json_null());
    json_object_set_new(o, "misaligned", json_boolean(x->misaligned));
    if (x->pattern == COAL_P_SINGLE)
        json_object_set_new(o, "single_thread_from_line", json_integer(f->pf->fn->stmts[x->why_stmt]->loc.line));
    else json_object_set_new(o, "single_thread_from_line", json_null());
    if (x->space == COAL_GLOBAL) {
        json_object_set_new(o, "uncoalesced", json_boolean(x->uncoalesced));
        json_object_set_new(o, "swap_xy_sectors", int_or_null(x->swap_xy_sectors >= 0, x->swap_xy_sectors));
        json_object_set_new(o, "loop_to_lanes_sectors", int_or_null(x->loop_sectors >= 0, x->loop_sectors));
    } else {
        json_object_set_new(o, "bank_conflict_degree", int_or_null(x->bank_degree >= 0, x->bank_degree));
        json_object_set_new(o, "bank_conflict_degree_max", int_or_null(x->bank_degree_max >= 0, x->bank_degree_max));
        json_object_set_new(o, "wavefronts", int_or_null(x->wavefronts >= 0, x->wavefronts));
        json_object_set_new(o, "ideal_wavefronts", int_or_null(x->ideal_wavefronts >= 0, x->ideal_wavefronts));
        coal_verdict bv;
        json_object_set_new(o, "bank_conflict", json_boolean(coal_verdict_of(x, &bv)));
        /* false: the address is not exact within the warp; a note, not dropped */
        json_object_set_new(o, "bank_conflict_analysed", json_boolean(!coal_bank_unknown(x)));
        if (x->bank_cond) {
            json_t *bc = json_object(), *by = json_array();
            char name[192];
            json_object_set_new(bc, "value", json_string(sym_name(c, f, x, false, name, sizeof name)));
            for (unsigned t = 0; t < COAL_TZ_CLASSES; t++) json_array_append_new(by, json_integer(x->bank_by_tz[t]));
            json_object_set_new(bc, "degree_by_trailing_zeros", by);
            coal_bank_condition(c, f, x, buf, sizeof buf);
            json_object_set_new(bc, "text", json_string(buf));
            json_object_set_new(o, "bank_conflict_condition", bc);
        } else json_object_set_new(o, "bank_conflict_condition", json_null());
    }
    json_object_set_new(o, "loop_step_bytes", int_or_null(x->has_step, x->step));
    coal_verdict v;
    bool fnd = coal_verdict_of(x, &v);
    if (fnd || coal_bank_unknown(x)) {
        coal_message(c, f, x, buf, sizeof buf);
        json_object_set_new(o, "finding", fnd ? json_string(coal_vrule_name((enum coal_vrule)v.rule)) : json_null());
        if (fnd) { /* the verdict check and analyze give (coal_verdict_of) */
            json_object_set_new(o, "certainty", json_string(v.certainty == COAL_POSSIBLE ? "possible" : "proven"));
            json_object_set_new(o, "excess", json_integer(v.excess)); /* sectors or wavefronts per request */
            if (v.certainty == COAL_POSSIBLE) {
                char dep[512];
                coal_depends_text(c, f, x, (enum coal_dep)v.dep, dep, sizeof dep);
                json_object_set_new(o, "depends", json_string(dep));
            }
        }
        json_object_set_new(o, "message", json_string(buf));
    } else {
        json_object_set_new(o, "finding", json_null());
        json_object_set_new(o, "message", json_null());
    }
    json_object_set_new(o, "hint", hint_json(c, f, x));
    char as[1024];
    if (assumed_text(f, x, as, sizeof as)) json_object_set_new(o, "assumed", json_string(as)); /* a project file's */
    return o;
}

json_t *coal_assumptions_json(const coal_report_ctx *c)
{
    json_t *a = json_object();
    json_t *b = json_object();
    const blk_opts *bo = coal_blocks(c->opts);
    json_object_set_new(b, "shape", bo ? blk_shape_json(bo->all) : json_null());
    json_object_set_new(b, "per_kernel", blk_kernels_json(bo));
    json_object_set_new(b, "origin", json_string(BLK_ORDER_TEXT));
    json_object_set_new(b, "default", json_string(BLK_DEFAULT_TEXT " (so tid.y and tid.z are the same in all "
                                                                   "lanes of a warp)"));
    json_object_set_new(a, "block", b);
    json_object_set_new(a, "warp_size", json_integer(32));
    json_object_set_new(a, "sector_bytes", json_integer(COAL_SECTOR));
    json_object_set_new(a, "line_bytes", json_integer(COAL_LINE));
    json_object_set_new(a, "alignment", json_string(assumption_text[1]));
    json_object_set_new(a, "no_wraparound", json_string(assumption_text[2]));
    json_object_set_new(a, "generic_pointers", json_string(assumption_text[3]));
    json_object_set_new(a, "source_positions", json_string(assumption_text[4]));
    json_object_set_new(a, "shared_banks",
                        json_string("32 banks of 4 bytes; one word to many lanes is a broadcast, but atomics to one "
                                    "word serialise; 8-byte accesses in two half-warp phases, 16-byte in four "
                                    "quarter-warp phases"));
    return a;
}

static const coal_func *round_func(const coal_report_ctx *c, uint32_t r, uint32_t i);

json_t *coal_kernel_json(const coal_report_ctx *c0, uint32_t nr, uint32_t q, uint32_t n[5])
{
    uint32_t i = q / nr, r = q % nr;
    const coal_func *f = round_func(c0, r, i);
    if (!f) return NULL;
    const coal_report_ctx *c = &c0[r];
    json_t *k = json_object();
    kn_json(k, "name", f->pf->fn);
    json_object_set_new(k, "entry", json_boolean(f->pf->fn->is_entry));
    json_object_set_new(k, "block", block_json(c, f));
    json_t *acc = json_array(), *sh = json_array();
    memset(n, 0, 5 * sizeof *n);
    for (uint32_t j = 0; j < f->nacc; j++) {
        const coal_access *x = &f->acc[j];
        if (x->space == COAL_GLOBAL) {
            json_array_append_new(acc, access_json(c, f, x));
            n[0]++;
            n[1] += x->uncoalesced;
        } else {
            json_array_append_new(sh, access_json(c, f, x));
            n[2]++;
            coal_verdict v;
            n[3] += coal_verdict_of(x, &v);
            n[4] += coal_bank_unknown(x);
        }
    }
    json_object_set_new(k, "accesses", acc);
    json_object_set_new(k, "shared_accesses", sh);
    json_t *sum = coal_summary_json(n);
    json_object_set_new(sum, "generic_not_proven", json_integer(f->generic_unknown));
    json_object_set_new(k, "summary", sum);
    return k;
}

json_t *coal_summary_json(const uint32_t n[5])
{
    json_t *sum = json_object();
    json_object_set_new(sum, "global_accesses", json_integer(n[0]));
    json_object_set_new(sum, "uncoalesced", json_integer(n[1]));
    json_object_set_new(sum, "shared_accesses", json_integer(n[2]));
    json_object_set_new(sum, "bank_conflicts", json_integer(n[3]));
    json_object_set_new(sum, "bank_conflicts_not_analysed", json_integer(n[4]));
    return sum;
}

bool coal_parse_format(const char *s, const char *cmd, int *format)
{
    static const char *const names[] = {"text", "json", "sarif"};
    for (int i = 0; i < 3; i++)
        if (!strcmp(s, names[i])) {
            *format = i;
            return true;
        }
    fprintf(stderr, "ptxray %s: unknown format '%s' (text, json or sarif)\n", cmd, s);
    return false;
}

int coal_json_dump(FILE *o, json_t *j)
{
    int rc = json_dumpf(j, o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    fputc('\n', o);
    return rc;
}

/* ---- SARIF ------------------------------------------------------------------- */

void coal_ptx_note(const ptx_func *fn, const ptx_inst *in, char *buf, size_t n)
{
    char *shown = ptx_func_shown(fn);
    snprintf(buf, n, "PTX instruction %.*s in %s", (int)in->opcode_len, in->opcode, shown);
    free(shown);
}

static const struct {
    const char *id, *name, *short_text, *full_text, *help;
} rules_[] = {
    {"uncoalesced", "UncoalescedGlobalAccess", "Uncoalesced global memory access",
     "A warp's global load, store or atomic touches more 32-byte sectors than its bytes need: the lanes' addresses "
     "are strided, depend on loaded data, or have an unknown stride.",
     "Memory moves in 32-byte sectors: a warp whose 32 lanes read 4-byte elements 4 bytes apart needs 4 sectors, "
     "one whose lanes are 128 bytes apart needs 32. Let consecutive threads (threadIdx.x) touch consecutive "
     "elements: swap the roles of the thread indices, give a loop's iterations to neighbouring threads, store "
     "arrays of structures as structures of arrays, or stage the data through shared memory. Proven findings "
     "waste sectors at every launch that meets the stated assumptions; possible ones depend on a loaded value or "
     "an unknown stride."},
    {"misaligned", "MisalignedGlobalAccess", "Misaligned global memory access",
     "A constant offset moves a warp's otherwise coalesced access off a 128-byte (or 32-byte) boundary, so it "
     "touches more lines or sectors than needed.",
     "The lanes' addresses are consecutive but lane 0 does not start a 32-byte sector, so each request touches "
     "one sector more than its bytes need. Pad rows or structures to a multiple of 32 bytes, or start the warp's "
     "work at an aligned index. A possible misalignment is one whose alignment is not known (a structure reached "
     "through a pointer, an offset read from memory): it is clean when that base is a multiple of 32 bytes."},
    {"bank-conflict", "SharedBankConflict", "Shared memory bank conflict",
     "Lanes of a warp access different words in the same shared-memory bank, so the access is served in several "
     "wavefronts.",
     "Shared memory has 32 banks of 4 bytes; lanes reading different words of one bank are served one after the "
     "other. Pad the row pitch of a shared tile by one element (tile[32][33]), or swizzle the index, so that the "
     "lanes of a warp fall in different banks."},
    {"bank-conflict-unknown", "SharedBanksNotAnalysed", "Shared memory bank conflicts not analysed",
     "The lanes' shared-memory addresses are not known exactly within the warp (data-dependent, or integer "
     "operations the model does not evaluate), so the bank conflict degree is unknown.",
     "Nothing is known to be wrong: the model could not tell which banks the lanes use. Check the access with "
     "`ptxray run --bankcheck` on a representative launch."},
};

/* The SARIF level of a rule: a note for what was not analysed. */
static const char *rule_level(const char *id) { return strcmp(id, "bank-conflict-unknown") ? "warning" : "note"; }

void coal_sarif_uri(const char *path, char *buf, size_t n)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t k = 0;
    for (const unsigned char *p = (const unsigned char *)path; *p && k + 4 < n; p++) {
        unsigned ch = *p;
        if ((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-' ||
            ch == '.' || ch == '_' || ch == '~' || ch == '/')
            buf[k++] = (char)ch;
        else {
            buf[k++] = '%';
            buf[k++] = hex[ch >> 4];
            buf[k++] = hex[ch & 15];
        }
    }
    buf[k] = 0;
}

json_t *coal_sarif_location(const char *file, uint32_t line, uint32_t col, const char *msg)
{
    char uri[1024];
    coal_sarif_uri(file, uri, sizeof uri);
    json_t *loc = json_object(), *phys = json_object(), *art = json_object(), *reg = json_object();
    json_object_set_new(art, "uri", json_string(uri));
    json_object_set_new(phys, "artifactLocation", art);
    json_object_set_new(reg, "startLine", json_integer(line ? line : 1));
    if (col) json_object_set_new(reg, "startColumn", json_integer(col));
    json_object_set_new(phys, "region", reg);
    json_object_set_new(loc, "physicalLocation", phys);
    if (msg) {
        json_t *m = json_object();
        json_object_set_new(m, "text", json_string(msg));
        json_object_set_new(loc, "message", m);
    }
    return loc;
}

json_t *coal_sarif_text(const char *t)
{
    json_t *m = json_object();
    json_object_set_new(m, "text", json_string(t));
    return m;
}

void coal_sarif_add_rule(json_t *rules, const char *id, const char *name, const char *short_text,
                         const char *full_text, const char *help)
{
    json_t *r = json_object(), *cfg = json_object();
    json_object_set_new(r, "id", json_string(id));
    json_object_set_new(r, "name", json_string(name));
    json_object_set_new(r, "shortDescription", coal_sarif_text(short_text));
    json_object_set_new(r, "fullDescription", coal_sarif_text(full_text));
    json_object_set_new(r, "help", coal_sarif_text(help));
    json_object_set_new(cfg, "level", json_string(rule_level(id)));
    json_object_set_new(r, "defaultConfiguration", cfg);
    json_array_append_new(rules, r);
}

json_t *coal_sarif_log(json_t **run, json_t **rules)
{
    json_t *root = json_object();
    json_object_set_new(root, "$schema", json_string("https://json.schemastore.org/sarif-2.1.0.json"));
    json_object_set_new(root, "version", json_string("2.1.0"));
    json_t *tool = json_object(), *drv = json_object();
    *run = json_object();
    *rules = json_array();
    json_object_set_new(drv, "name", json_string("ptxray"));
    json_object_set_new(drv, "version", json_string(PTXRAY_VERSION));
    for (size_t i = 0; i < sizeof rules_ / sizeof rules_[0]; i++)
        coal_sarif_add_rule(*rules, rules_[i].id, rules_[i].name, rules_[i].short_text, rules_[i].full_text,
                            rules_[i].help);
    json_object_set_new(drv, "rules", *rules);
    json_object_set_new(tool, "driver", drv);
    json_object_set_new(*run, "tool", tool);
    json_t *runs = json_array();
    json_array_append_new(runs, *run);
    json_object_set_new(root, "runs", runs);
    return root;
}

size_t coal_sarif_rule_index(const char *rule)
{
    size_t ri = 0;
    while (ri + 1 < sizeof rules_ / sizeof rules_[0] && strcmp(rules_[ri].id, rule)) ri++;
    return ri;
}

json_t *coal_sarif_result(const char *rule, size_t rule_index, const char *msg, const src_pos *p,
                          const char *ptx_path, uint32_t line, uint32_t col, const char *ptx_msg)
{
    json_t *r = json_object(), *locs = json_array();
    json_object_set_new(r, "ruleId", json_string(rule));
    json_object_set_new(r, "ruleIndex", json_integer((json_int_t)rule_index));
    json_object_set_new(r, "level", json_string(rule_level(rule)));
    json_object_set_new(r, "message", coal_sarif_text(msg));
    /* one location (code scanning shows one), the PTX instruction related */
    if (p->file) {
        json_t *rel = json_array(), *ptx = coal_sarif_location(ptx_path, line, col, ptx_msg);
        json_object_set_new(ptx, "id", json_integer(1));
        json_array_append_new(locs, coal_sarif_location(p->file, p->line, p->col, NULL));
        json_array_append_new(rel, ptx);
        json_object_set_new(r, "locations", locs);
        json_object_set_new(r, "relatedLocations", rel);
    } else {
        json_array_append_new(locs, coal_sarif_location(ptx_path, line, col, ptx_msg));
        json_object_set_new(r, "locations", locs);
    }
    return r;
}

static bool names_shape(const coal_report_ctx *c, uint32_t nr, uint32_t i);

json_t *coal_sarif_access(const coal_report_ctx *c0, uint32_t nr, uint32_t i, const coal_variant *v)
{
    const coal_report_ctx *c = v->c;
    const coal_func *f = v->f;
    const coal_access *x = v->x;
    const char *rule = v->rule;
    char hint[1024], full[2300];
    const char *msg = v->msg;
    if (coal_hint(c, f, x, hint, sizeof hint)) snprintf(full, sizeof full, "%s. Hint: %s", msg, hint);
    else snprintf(full, sizeof full, "%s", msg);
    src_pos p;
    src_pos_of(c->files, f->pf->fn, x->stmt, &p);
    const ptx_stmt *s = f->pf->fn->stmts[x->stmt];
    char ptxmsg[256];
    coal_ptx_note(f->pf->fn, x->in, ptxmsg, sizeof ptxmsg);
    json_t *r = coal_sarif_result(rule, coal_sarif_rule_index(rule), full, &p, c->ptx_path, s->loc.line,
                                  s->loc.col, ptxmsg);
    json_t *props = json_object();
    kn_json(props, "kernel", f->pf->fn);
    json_object_set_new(props, "ptxLine", json_integer(s->loc.line));
    json_object_set_new(props, "pattern", json_string(coal_pattern_name((enum coal_pattern)x->pattern)));
    if (x->space == COAL_GLOBAL) {
        json_object_set_new(props, "sectorsPerRequest", int_or_null(x->sectors >= 0, x->sectors));
        json_object_set_new(props, "sectorsPerRequestMax", int_or_null(x->sectors_max >= 0, x->sectors_max));
        json_object_set_new(props, "idealSectors", json_integer(x->ideal));
        if (coal_hint(c, f, x, hint, sizeof hint)) {
            json_object_set_new(props, "hintKind",
                                json_string(coal_hint_kind_name((enum coal_hint_kind)x->hint_kind)));
            json_object_set_new(props, "hintPredictedSectors", json_integer(x->hint_sectors));
        }
    } else {
        json_object_set_new(props, "bankConflictDegree", int_or_null(x->bank_degree >= 0, x->bank_degree));
        json_object_set_new(props, "bankConflictDegreeMax",
                            int_or_null(x->bank_degree_max >= 0, x->bank_degree_max));
    }
    json_t *pj = coal_param_json(c, f, x);
    if (pj) json_object_set_new(props, "param", pj);
    char val[192];
    if (coal_value_label(c, f, x, val, sizeof val)) json_object_set_new(props, "value", json_string(val));
    char as[1024];
    if (assumed_text(f, x, as, sizeof as)) json_object_set_new(props, "assumed", json_string(as));
    if (names_shape(c0, nr, i)) {
        json_object_set_new(props, "shapesAnalysed", json_integer(coal_nshapes(c0, nr, i)));
        json_object_set_new(props, "holdsAt", coal_holds_at_json(c0, i, v));
    }
    json_object_set_new(r, "properties", props);
    return r;
}

/* ---- several launch shapes ----------------------------------------------------- */

/* Function i at round r, or NULL when it has no shape of its own there. */
static const coal_func *round_func(const coal_report_ctx *c, uint32_t r, uint32_t i)
{
    const coal_report_ctx *rc = &c[r];
    if (i >= rc->res->nfuncs) return NULL;
    const coal_func *f = &rc->res->f[i];
    return blk_round_has(coal_blocks(rc->opts), f->pf->fn) ? f : NULL;
}

uint32_t coal_nshapes(const coal_report_ctx *c, uint32_t nr, uint32_t i)
{
    uint32_t n = 0;
    for (uint32_t r = 0; r < nr; r++) n += round_func(c, r, i) != NULL;
    return n;
}

uint32_t coal_variants(const coal_report_ctx *c, uint32_t nr, uint32_t i, uint32_t j, coal_variant **out)
{
    coal_variant *v = NULL;
    uint32_t n = 0;
    for (uint32_t r = 0; r < nr; r++) {
        const coal_func *f = round_func(c, r, i);
        if (!f || j >= f->nacc) continue;
        const coal_access *x = &f->acc[j];
        bool note = coal_bank_unknown(x);
        coal_verdict vd;
        bool fnd = coal_verdict_of(x, &vd);
        if (!fnd && !note) continue;
        note = !fnd;
        coal_variant cur = {&c[r], f, x, note, note ? "bank-conflict-unknown" : coal_vrule_name((enum coal_vrule)vd.rule),
                            note ? COAL_PROVEN : vd.certainty, fnd && vd.by_alignment, "", 0, NULL};
        coal_message(cur.c, f, x, cur.msg, sizeof cur.msg);
        uint32_t k = 0;
        while (k < n && !(v[k].note == note && !strcmp(v[k].rule, cur.rule) && v[k].certainty == cur.certainty &&
                          !strcmp(v[k].msg, cur.msg)))
            k++;
        if (k == n) {
            v = realloc(v, sizeof *v * (n + 1));
            if (!v) abort();
            v[n++] = cur;
        }
        v[k].rounds = realloc(v[k].rounds, sizeof *v[k].rounds * (v[k].n + 1));
        if (!v[k].rounds) abort();
        v[k].rounds[v[k].n++] = r;
    }
    *out = v;
    return n;
}

void coal_variants_free(coal_variant *v, uint32_t n)
{
    for (uint32_t k = 0; k < n; k++) free(v[k].rounds);
    free(v);
}

static void shape_of(const coal_report_ctx *c, uint32_t r, uint32_t i, char *buf, size_t n)
{
    const coal_report_ctx *rc = &c[r];
    const coal_func *f = &rc->res->f[i];
    const char *from = blk_origin_for(coal_blocks(rc->opts), f->pf->fn, (enum blk_origin)f->origin);
    if (wl_shape_known(&f->shape))
        snprintf(buf, n, "%ux%ux%u (%s)", f->shape.block[0], f->shape.block[1], f->shape.block[2], from);
    else snprintf(buf, n, "%s", from);
}

void coal_holds_at_text(const coal_report_ctx *c, uint32_t nr, uint32_t i, const coal_variant *v, char *buf, size_t n)
{
    size_t len = 0;
    uint32_t ns = coal_nshapes(c, nr, i);
    buf[0] = 0;
    if (ns > 1 && v->n == ns) cat(buf, n, &len, "holds at all %u launch shapes analysed: ", ns);
    else if (ns > 1) cat(buf, n, &len, "holds at %u of the %u launch shapes analysed: ", v->n, ns);
    else cat(buf, n, &len, "block ");
    for (uint32_t k = 0; k < v->n; k++) {
        char one[1024];
        shape_of(c, v->rounds[k], i, one, sizeof one);
        cat(buf, n, &len, "%s%s", k ? ", " : "", one);
    }
}

json_t *coal_holds_at_json(const coal_report_ctx *c, uint32_t i, const coal_variant *v)
{
    json_t *a = json_array();
    for (uint32_t k = 0; k < v->n; k++) {
        const coal_report_ctx *rc = &c[v->rounds[k]];
        const coal_func *f = &rc->res->f[i];
        json_t *o = json_object();
        json_object_set_new(o, "block", wl_shape_known(&f->shape) ? blk_shape_json(f->shape.block) : json_null());
        json_object_set_new(
            o, "from", json_string(blk_origin_for(coal_blocks(rc->opts), f->pf->fn, (enum blk_origin)f->origin)));
        json_array_append_new(a, o);
    }
    return a;
}

/* ---- text -------------------------------------------------------------------- */

/* A kernel's shape is named by each of its warnings when it is its own
 * (--block KERNEL=, .reqntid, host-code launches; the summary line names
 * --block's and the default), with the shapes it holds at when several. */
static bool names_shape(const coal_report_ctx *c, uint32_t nr, uint32_t i)
{
    enum blk_origin o = (enum blk_origin)c->res->f[i].origin;
    return coal_nshapes(c, nr, i) > 1 || (o != BLK_DEFAULT && o != BLK_ALL);
}

void coal_report_text_count(FILE *o, const coal_report_ctx *c, uint32_t nr, uint32_t tot[6])
{
    uint32_t generic = 0;
    memset(tot, 0, 6 * sizeof *tot);
    for (uint32_t i = 0; i < c->res->nfuncs; i++) {
        const coal_func *f0 = &c->res->f[i];
        generic += f0->generic_unknown;
        for (uint32_t j = 0; j < f0->nacc; j++) {
            coal_variant *v;
            uint32_t nv = coal_variants(c, nr, i, j, &v);
            /* an access counts once, as a finding if it is one at any shape */
            bool fnd = false, unk = false;
            for (uint32_t k = 0; k < nv; k++) {
                unk |= v[k].note;
                /* a possible misalignment at a worse alignment than the
                 * assumed one is warned about, not counted as uncoalesced */
                fnd |= !v[k].note && !v[k].by_alignment;
            }
            if (f0->acc[j].space == COAL_GLOBAL) tot[0]++, tot[1] += fnd;
            else tot[2]++, tot[3] += fnd, tot[4] += unk && !fnd;
            for (uint32_t k = 0; k < nv; k++) {
                const coal_func *f = v[k].f;
                const coal_access *x = v[k].x;
                char hint[1024];
                src_pos p;
                src_pos_of(c->files, f->pf->fn, x->stmt, &p);
                const ptx_stmt *s = f->pf->fn->stmts[x->stmt];
                const char *lvl = v[k].note ? "note" : "warning";
                const char *cert = v[k].certainty == COAL_POSSIBLE ? ", possible" : ""; /* check's tag */
                if (p.file)
                    fprintf(o, "%s:%u:%u: %s: %s [%s%s]\n", p.file, p.line, p.col, lvl, v[k].msg, v[k].rule, cert);
                else fprintf(o, "%s:%u:%u: %s: %s [%s%s]\n", c->ptx_path, s->loc.line, s->loc.col, lvl, v[k].msg,
                             v[k].rule, cert);
                char *shown = ptx_func_shown(f->pf->fn);
                fprintf(o, "%s:%u:%u: note: in %s: %.*s", c->ptx_path, s->loc.line, s->loc.col, shown,
                        (int)x->in->opcode_len, x->in->opcode);
                free(shown);
                for (uint32_t q = 0; q < p.ninl; q++)
                    fprintf(o, "%s %s:%u:%u", q ? "," : ", inlined from", p.inl[q].file, p.inl[q].line, p.inl[q].col);
                fputc('\n', o);
                if (names_shape(c, nr, i)) {
                    char at[2048];
                    coal_holds_at_text(c, nr, i, &v[k], at, sizeof at);
                    fprintf(o, "%s:%u:%u: note: %s\n", c->ptx_path, s->loc.line, s->loc.col, at);
                }
                char as[1024];
                if (assumed_text(f, x, as, sizeof as))
                    fprintf(o, "%s:%u:%u: note: assuming %s\n", c->ptx_path, s->loc.line, s->loc.col, as);
                if (coal_hint(v[k].c, f, x, hint, sizeof hint)) {
                    if (p.file) fprintf(o, "%s:%u:%u: note: hint: %s\n", p.file, p.line, p.col, hint);
                    else fprintf(o, "%s:%u:%u: note: hint: %s\n", c->ptx_path, s->loc.line, s->loc.col, hint);
                }
            }
            coal_variants_free(v, nv);
        }
    }
    fprintf(o, "%s: %u global accesses, %u uncoalesced; %u shared accesses, %u with bank conflicts", c->ptx_path,
            tot[0], tot[1], tot[2], tot[3]);
    if (tot[4]) fprintf(o, " (%u not analysed)", tot[4]);
    if (generic) fprintf(o, "; %u generic accesses not proven global or shared (not analysed)", generic);
    fputc('\n', o);
    tot[5] = generic;
    uint32_t origin[BLK_NORIGINS] = {0};
    for (uint32_t i = 0; i < c->res->nfuncs; i++) origin[c->res->f[i].origin]++;
    char shape[512];
    blk_summary(coal_blocks(c->opts), origin, shape, sizeof shape);
    fprintf(o, "assumed: %s; allocations 256-byte aligned; no index wraparound\n", shape);
}
