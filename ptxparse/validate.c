/* The validator: every instruction against its form in isa.def (opcode,
 * modifiers and their classes, operand count and kinds, register types, the
 * first PTX ISA version and target), after parsing.  Messages name the legal
 * set, like a compiler's.  A spelling is checked once per module (modifiers
 * depend only on the text); operands are checked per instruction. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>
#include "build.h"

enum { F_D = 1, F_A = 2, F_L = 4, F_S = 8, F_BAG = 16 };

typedef struct fmod {
    const char *name; /* with its '.' */
    uint8_t len, cls;
    uint16_t ver, sm; /* 0: no minimum of its own */
    uint8_t sm_a;
    const char *only; /* "=.t.u": the types it goes with, up to a blank; NULL: any */
} fmod;

typedef struct fform {
    uint8_t nmin, nmax, flags, sm_a;
    uint16_t ver, sm;
    char need[8];
    fmod *mods;
    uint32_t nmods;
} fform;

static const struct {
    const char *nopd, *ptx, *sm, *need, *flags, *mods;
} form_src[PTX_OPC__COUNT] = {
#define PTX_OP(id, op, sem, nopd, ptx, sm, need, flags, mods) [PTX_OPC_##id] = {nopd, ptx, sm, need, flags, mods},
#include "isa.def"
#undef PTX_OP
};

static fform forms[PTX_OPC__COUNT];

/* cvt's packed and narrow floating-point forms, and their modifier lists as
 * fmods (rounding, required, allowed). */
typedef struct {
    const char *dst, *src, *rnd, *must, *may, *shape, *ptx, *targets;
} cvt_row;

static const cvt_row cvt_rows[] = {
#define PTX_CVT(d, s, r, mu, ma, sh, p, t) {d, s, r, mu, ma, sh, p, t},
#include "cvt_forms.def"
#undef PTX_CVT
};
#define NCVT (sizeof cvt_rows / sizeof cvt_rows[0])

static struct {
    fmod *rnd, *must, *may;
    uint32_t nrnd, nmust, nmay;
} cvt_lists[NCVT];

static const char *const class_name[128] = {
    ['S'] = "state space", ['T'] = "type", ['V'] = "vector width", ['C'] = "comparison",
    ['R'] = "rounding modifier", ['O'] = "operation", ['Q'] = "memory-ordering qualifier",
    ['P'] = "cache hint", ['M'] = "modifier",
};

/* Is w one of the blank-separated words of list? */
static bool in_words(const char *list, const char *w) {
    size_t n = strlen(w);
    for (const char *p = list; (p = strstr(p, w)) != NULL; p++)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || !p[n])) return true;
    return false;
}

/* Is the type t (n bytes) in a modifier's "=.t.u" list?  words: the list
 * for a message, ".t, .u and .v". */
static bool only_has(const char *w, const char *t, size_t n, char *words, size_t cap) {
    bool found = false;
    size_t k = 0;
    for (const char *p = w, *e; *p == '.' && k < cap; p = e) {
        for (e = p + 1; *e && *e != '.' && *e != ' ';) e++;
        found |= (size_t)(e - p) == n && !memcmp(p, t, n);
        k += (size_t)snprintf(words + k, cap - k, "%s%.*s", !k ? "" : *e == '.' ? ", " : " and ", (int)(e - p), p);
    }
    return found;
}

static uint16_t parse_ver(const char *s) { return (uint16_t)((s[0] - '0') * 10 + (s[2] - '0')); }

static uint16_t parse_sm(const char *s, uint8_t *a) {
    unsigned v = 0;
    while (*s >= '0' && *s <= '9') v = v * 10 + (unsigned)(*s++ - '0');
    *a = *s == 'a';
    return (uint16_t)v;
}

/* A list of modifiers "[K:].name[@v.v/sm][=.t.u]" separated by blanks (K:
 * the class, in isa.def's rows; cvt_forms.def's lists have none). */
static fmod *parse_mods(const char *m, uint32_t *n) {
    uint32_t cap = 1;
    for (const char *q = m; *q; q++) cap += *q == ' ';
    fmod *v = calloc(cap, sizeof *v);
    if (!v) abort();
    *n = 0;
    for (const char *q = m; *q;) {
        while (*q == ' ') q++;
        if (!*q) break;
        fmod *x = &v[(*n)++];
        if (q[1] == ':') {
            x->cls = (uint8_t)q[0];
            q += 2;
        }
        x->name = q;
        const char *e = x->name;
        while (*e && *e != ' ' && *e != '@' && *e != '=') e++;
        x->len = (uint8_t)(e - x->name);
        if (*e == '@') {
            x->ver = parse_ver(e + 1);
            x->sm = parse_sm(e + 5, &x->sm_a);
            while (*e && *e != ' ' && *e != '=') e++;
        }
        if (*e == '=') x->only = e + 1;
        while (*e && *e != ' ') e++;
        q = e;
    }
    return v;
}

static void forms_build(void) {
    for (size_t i = 1; i < PTX_OPC__COUNT; i++) { /* 0: PTX_OPC_UNKNOWN, no form */
        fform *f = &forms[i];
        const char *n = form_src[i].nopd;
        f->nmin = (uint8_t)atoi(n);
        const char *dash = strchr(n, '-');
        f->nmax = dash ? (uint8_t)atoi(dash + 1) : f->nmin;
        f->ver = parse_ver(form_src[i].ptx);
        f->sm = parse_sm(form_src[i].sm, &f->sm_a);
        snprintf(f->need, sizeof f->need, "%s", form_src[i].need);
        for (const char *p = form_src[i].flags; *p; p++)
            f->flags |= *p == 'D' ? F_D : *p == 'A' ? F_A : *p == 'L' ? F_L : *p == 'S' ? F_S : *p == 'B' ? F_BAG : 0;
        f->mods = parse_mods(form_src[i].mods, &f->nmods);
    }
    for (size_t i = 0; i < NCVT; i++) {
        cvt_lists[i].rnd = parse_mods(cvt_rows[i].rnd, &cvt_lists[i].nrnd);
        cvt_lists[i].must = parse_mods(cvt_rows[i].must, &cvt_lists[i].nmust);
        cvt_lists[i].may = parse_mods(cvt_rows[i].may, &cvt_lists[i].nmay);
    }
}

static once_flag forms_once = ONCE_FLAG_INIT;

/* ---- messages ---- */
typedef struct vctx {
    ptx_builder *b;
    const ptx_module *m;
    const ptx_reg *regs; /* the body's registers (the builder's while it is built) */
    const ptx_stmt *s;
    const ptx_inst *in;
} vctx;

/* ---- state over a module ---- */
/* The operands of a form of cvt_forms.def. */
typedef struct cvt_shape {
    uint8_t nopd;      /* operands, a {a, b, e, f} vector counting as one; 0: not such a form */
    uint8_t vec4;      /* operand 2 is a vector of four .f32 */
    uint8_t rbits;     /* the last operand is the random bits (.b32) */
    uint8_t dbits;     /* the destination register's width */
    ptx_type src;      /* the type of each source value (a .bN for a packed format) */
} cvt_shape;

typedef struct mods_info {
    uint8_t types[4], ntypes, rnd, has_wide, has_lohi, has_approx, has_full, has_sat, has_ftz, has_nc,
        space, vec, has_boolop, has_hint, has_async, has_pack, has_sync, has_cas,
        int16x2, /* the last type is .s16x2 or .u16x2 (no ptx_type: types[] holds 0) */
        has_narrow; /* .relu or .satfinite: only cvt_forms.def's conversions take them */
    const char *cmpname; /* in isa.def's list: cmplen bytes, not NUL-ended */
    uint8_t cmplen;
    cvt_shape cvt;     /* a form of cvt_forms.def (nopd > 0): its operands */
} mods_info;

/* One distinct opcode spelling: checked at its first use, remembered. */
typedef struct seen {
    const char *p;
    uint32_t n;
    uint8_t state; /* SP_NEW, SP_OK, SP_BAD (reported at its first use) */
    mods_info mi;
} seen;
enum { SP_NEW, SP_OK, SP_BAD };

struct ptx_vstate {
    seen *v;          /* spellings by id */
    uint32_t n, cap;
    uint32_t *hash;   /* open addressing: id + 1, 0 = empty */
    uint32_t hcap;
    ptx_diags held;   /* messages, until ptx_validate_module */
    uint32_t errors_before; /* errors in the diagnostics when the parse began */
    uint32_t seg;     /* held.n when the current body began */
    int stop;         /* the error limit is reached */
    int loc_reported;
};

/* Where operand i of the instruction starts in the source; the opcode if
 * it cannot be found. */
static const char *opd_text(const vctx *c, unsigned i) {
    const char *p = ptx_lex_operand(c->in->opcode + c->in->opcode_len, c->m->src + c->m->src_len, i);
    return p ? p : c->in->opcode;
}

/* Holds the message at `at`; returns false, what a check returns after reporting. */
__attribute__((format(printf, 3, 4))) static bool verr(const vctx *c, const char *at, const char *fmt, ...) {
    char buf[640];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    struct ptx_vstate *vs = c->b->vs;
    ptx_diag_add(&vs->held, PTX_DIAG_ERROR, ptx_loc_at(c->m->src, c->m->src_len, c->s->loc, at), "%s", buf);
    /* the limit as if these followed the parse's messages */
    if (vs->errors_before + vs->held.nerrors >= c->b->d->max_errors) vs->stop = 1;
    return false;
}

/* "one of .a .b .c" for the modifiers of class cls (all classes: 0). */
static void list_class(const fform *f, int cls, char *out, size_t cap) {
    size_t k = 0;
    unsigned n = 0;
    out[0] = 0;
    for (uint32_t i = 0; i < f->nmods && k + 1 < cap; i++) {
        if (cls && f->mods[i].cls != cls) continue;
        if (n == 16) {
            k += (size_t)snprintf(out + k, cap - k, " ...");
            break;
        }
        k += (size_t)snprintf(out + k, cap - k, "%s%.*s", n ? " " : "", f->mods[i].len, f->mods[i].name);
        n++;
    }
}

static unsigned edit_distance(const char *a, size_t n, const char *b, size_t m) {
    unsigned row[64];
    if (n > 62 || m > 62) return 99;
    for (size_t j = 0; j <= m; j++) row[j] = (unsigned)j;
    for (size_t i = 1; i <= n; i++) {
        unsigned prev = row[0];
        row[0] = (unsigned)i;
        for (size_t j = 1; j <= m; j++) {
            unsigned cur = row[j];
            unsigned best = prev + ((a[i - 1] | 0x20) == (b[j - 1] | 0x20) ? 0u : 1u);
            if (row[j] + 1 < best) best = row[j] + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            prev = cur;
        }
    }
    return row[m];
}

/* The .target/.version requirements of a form or modifier. */
static bool check_min(const vctx *c, const char *what, int wlen, unsigned ver, unsigned sm, int sm_a) {
    const ptx_module *m = c->m;
    unsigned have = m->version_major * 10 + m->version_minor;
    if (ver && have < ver)
        return verr(c, what, "'%.*s' requires PTX ISA %u.%u or later (the file is .version %u.%u)", wlen, what,
                    ver / 10, ver % 10, have / 10, have % 10);
    if (sm && m->target_sm && (m->target_sm < sm || (sm_a && !m->target_arch)))
        return verr(c, what, "'%.*s' requires sm_%u%s or higher (the .target is sm_%u%s)", wlen, what, sm,
                    sm_a ? "a" : "", m->target_sm, m->target_arch ? "a" : "");
    return true;
}

/* ---- modifiers (once per spelling) ---- */

static int find_mod(const fmod *v, uint32_t nv, const char *p, size_t n) {
    for (uint32_t i = 0; i < nv; i++)
        if (v[i].len == n && memcmp(v[i].name, p, n) == 0) return (int)i;
    return -1;
}

static bool is_cmp_unsigned(const char *s) {
    return !strncmp(s, ".lo", 3) || !strncmp(s, ".ls", 3) || !strncmp(s, ".hi", 3) || !strncmp(s, ".hs", 3);
}

/* ---- cvt's packed and narrow floating-point forms (cvt_forms.def) ---- */
/* cvt's spelling, legal for isa.def's row, against the table: the last two
 * words are its types (several of these formats, .e2m1x4 ..., are types of
 * cvt only), rnd its rounding modifier (NULL if none).  No row about the
 * pair of types: a classic conversion, mi->cvt.nopd stays 0.  Returns false
 * after reporting. */
static bool check_cvt_form(const vctx *c, mods_info *mi, const char *rnd, size_t rn) {
    const char *op = c->in->opcode;
    int n = (int)c->in->opcode_len;
    unsigned ver = c->m->version_major * 10 + c->m->version_minor, sm = c->m->target_sm;
    char suffix = (char)c->m->target_suffix;
    ptx_str w[16];
    size_t nw = 0;
    ptx_mod_iter it = ptx_mods_begin(c->in);
    while (nw < 16 && ptx_mods_next(&it, &w[nw])) nw++;
    if (nw < 2) return true;
    ptx_str dt = {w[nw - 2].p + 1, w[nw - 2].n - 1}, st = {w[nw - 1].p + 1, w[nw - 1].n - 1}; /* without the '.' */
    /* f16/bf16 from f32 without .relu/.satfinite are classic conversions */
    if (!mi->has_narrow && (ptx_str_eq(dt, "f16") || ptx_str_eq(dt, "bf16")) && ptx_str_eq(st, "f32")) return true;
    /* the formats of the table: their register width and the type of a value;
     * after the first three, the packed and narrow ones */
    static const struct { const char *name; uint8_t bits; ptx_type t; } fmt[] = {
        {"f16", 16, PTX_T_F16}, {"bf16", 16, PTX_T_B16}, {"f32", 32, PTX_T_F32}, {"f16x2", 32, PTX_T_F16X2},
        {"bf16x2", 32, PTX_T_B32}, {"tf32", 32, PTX_T_B32}, {"e4m3x2", 16, PTX_T_B16}, {"e5m2x2", 16, PTX_T_B16},
        {"e2m1x2", 8, PTX_T_B8}, {"e2m3x2", 16, PTX_T_B16}, {"e3m2x2", 16, PTX_T_B16}, {"ue8m0x2", 16, PTX_T_B16},
        {"e4m3x4", 32, PTX_T_B32}, {"e5m2x4", 32, PTX_T_B32}, {"e2m3x4", 32, PTX_T_B32}, {"e3m2x4", 32, PTX_T_B32},
        {"e2m1x4", 16, PTX_T_B16},
    };
    const cvt_row *any = NULL, *row = NULL;
    size_t ri = 0;
    char rlist[64] = "";
    for (size_t i = 0; i < NCVT; i++) {
        if (!ptx_str_eq(dt, cvt_rows[i].dst) || !ptx_str_eq(st, cvt_rows[i].src)) continue;
        if (!any) any = &cvt_rows[i];
        size_t k = strlen(rlist);
        snprintf(rlist + k, sizeof rlist - k, "%s%s", k ? " " : "", cvt_rows[i].rnd);
        if (rnd && !row && find_mod(cvt_lists[i].rnd, cvt_lists[i].nrnd, rnd, rn) >= 0) row = &cvt_rows[ri = i];
    }
    if (!any) {
        /* a packed or narrow format with a partner no row has */
        const char *f = NULL;
        for (size_t i = 3; i < sizeof fmt / sizeof fmt[0] && !f; i++)
            if (ptx_str_eq(dt, fmt[i].name) || ptx_str_eq(st, fmt[i].name)) f = fmt[i].name;
        if (!f) return true;
        char list[200];
        size_t k = 0;
        list[0] = 0;
        for (size_t i = 0; i < NCVT && k + 24 < sizeof list; i++) {
            if (strcmp(cvt_rows[i].dst, f) && strcmp(cvt_rows[i].src, f)) continue;
            char one[32];
            snprintf(one, sizeof one, ".%s.%s", cvt_rows[i].dst, cvt_rows[i].src);
            if (in_words(list, one)) continue;
            k += (size_t)snprintf(list + k, sizeof list - k, "%s%s", k ? " " : "", one);
        }
        return verr(c, w[nw - 2].p, "cvt has no conversion from .%.*s to .%.*s; the forms with .%s are %s", (int)st.n,
                    st.p, (int)dt.n, dt.p, f, list);
    }
    if (!rnd) return verr(c, op, "'%.*s' needs a rounding modifier: one of %s", n, op, rlist);
    if (!row)
        return verr(c, rnd, "'%.*s' is not a rounding modifier of cvt.%.*s.%.*s; expected one of %s", (int)rn - 1,
                    rnd + 1, (int)dt.n, dt.p, (int)st.n, st.p, rlist);
    char form[64]; /* "cvt.rn.e4m3x2.f32", for the messages */
    snprintf(form, sizeof form, "cvt%.*s.%.*s.%.*s", (int)rn, rnd, (int)dt.n, dt.p, (int)st.n, st.p);
    /* the other modifiers (check_mods let one rounding modifier through) */
    const fmod *must = cvt_lists[ri].must, *may = cvt_lists[ri].may;
    for (size_t i = 0; i + 2 < nw; i++) {
        if (w[i].p == rnd) continue;
        int k = find_mod(must, cvt_lists[ri].nmust, w[i].p, w[i].n);
        int j = k < 0 ? find_mod(may, cvt_lists[ri].nmay, w[i].p, w[i].n) : -1;
        if (k < 0 && j < 0)
            return verr(c, w[i].p, "'%.*s' is not a modifier of %s; it takes %s%s%s", (int)w[i].n - 1, w[i].p + 1,
                        form, row->must, *row->must && *row->may ? " " : "",
                        *row->must || *row->may ? row->may : "no other");
        const fmod *x = k >= 0 ? &must[k] : &may[j];
        if (ver < x->ver)
            return verr(c, w[i].p, "'%.*s' on %s requires PTX ISA %u.%u or later (the file is .version %u.%u)",
                        (int)w[i].n, w[i].p, form, x->ver / 10, x->ver % 10, ver / 10, ver % 10);
        if (sm < x->sm)
            return verr(c, w[i].p, "'%.*s' on %s requires sm_%u or higher (the .target is sm_%u)", (int)w[i].n, w[i].p,
                        form, x->sm, sm);
    }
    for (uint32_t k = 0; k < cvt_lists[ri].nmust; k++) {
        bool found = false;
        for (size_t i = 0; i + 2 < nw && !found; i++)
            found = w[i].n == must[k].len && !memcmp(w[i].p, must[k].name, w[i].n);
        if (!found) return verr(c, op, "'%.*s' needs %.*s", n, op, (int)must[k].len, must[k].name);
    }
    unsigned pv = parse_ver(row->ptx);
    if (ver < pv)
        return verr(c, op, "%s requires PTX ISA %u.%u or later (the file is .version %u.%u)", form, pv / 10, pv % 10,
                    ver / 10, ver % 10);
    /* Does the target match one entry of the row's list (see cvt_forms.def)?
     * The list for the message: "sm_89+ with PTX ISA 8.1, sm_90+", "sm_100a, sm_103a" */
    char list[96], *o = list;
    bool on_target = !sm;
    for (const char *q = row->targets; *q;) {
        while (*q == ' ') q++;
        const char *q0 = q;
        unsigned v = 0;
        while (*q >= '0' && *q <= '9') v = v * 10 + (unsigned)(*q++ - '0');
        char suf = (*q == 'a' || *q == 'f') ? *q++ : 0;
        unsigned need = *q == '@' ? parse_ver(q + 1) : 0;
        if ((!need || ver >= need) && (suf ? sm == v && suffix == suf : sm >= v)) on_target = true;
        if (o < list + sizeof list - 24) {
            o += snprintf(o, (size_t)(list + sizeof list - o), "%ssm_%.*s%s", o > list ? ", " : "", (int)(q - q0), q0,
                          suf && *q != '@' ? "" : "+");
            if (*q == '@') o += snprintf(o, (size_t)(list + sizeof list - o), " with PTX ISA %.3s", q + 1);
        }
        while (*q && *q != ' ') q++;
    }
    if (!on_target)
        return verr(c, op, "%s is not available on .target sm_%u%s; it needs %s", form, sm,
                    suffix == 'a' ? "a" : suffix == 'f' ? "f" : "", list);
    cvt_shape *shape = &mi->cvt;
    for (size_t i = 0; i < sizeof fmt / sizeof fmt[0]; i++) {
        if (!strcmp(fmt[i].name, row->dst)) shape->dbits = fmt[i].bits;
        if (!strcmp(fmt[i].name, row->src)) shape->src = fmt[i].t;
    }
    shape->nopd = (uint8_t)(row->shape[0] == 'V' ? 3 : row->shape[0] - '0');
    shape->vec4 = row->shape[0] == 'V';
    shape->rbits = row->shape[0] == 'V' || row->shape[0] == '4';
    return true;
}

/* Returns false after reporting the first problem of the spelling. */
static bool check_mods(const vctx *c, const fform *f, const char *op, size_t oplen, mods_info *mi) {
    const ptx_inst *in = c->in;
    unsigned count[128], needc[128];
    memset(count, 0, sizeof count);
    memset(needc, 0, sizeof needc);
    for (const char *r = f->need; *r; r++) needc[(unsigned char)*r]++;
    memset(mi, 0, sizeof *mi);
    const char *rnd = NULL, *tname = NULL; /* the rounding modifier, the last type */
    size_t rnd_n = 0, tn = 0;
    const fmod *lim[4]; /* modifiers with a list of types */
    unsigned nlim = 0;
    ptx_mod_iter it = ptx_mods_begin(in);
    for (ptx_str m; ptx_mods_next(&it, &m);) {
        const char *p = m.p;
        size_t n = m.n;
        int k = find_mod(f->mods, f->nmods, p, n);
        if (k < 0) {
            /* the nearest legal modifier says what was meant */
            unsigned best = 99;
            int bi = -1;
            for (uint32_t i = 0; i < f->nmods; i++) {
                unsigned d = edit_distance(p + 1, n - 1, f->mods[i].name + 1, f->mods[i].len - 1u);
                if (d < best) {
                    best = d;
                    bi = (int)i;
                }
            }
            char list[400];
            int cls = bi >= 0 && best <= (n > 4 ? 3u : 2u) ? f->mods[bi].cls : 0;
            /* a required class the spelling lacks is what was meant, unless
             * the word is one letter off another modifier */
            if (best > 1)
                for (const char *r = f->need; *r; r++) {
                    bool present = false;
                    ptx_mod_iter u = ptx_mods_begin(in);
                    for (ptx_str x; !present && ptx_mods_next(&u, &x);) {
                        int j = find_mod(f->mods, f->nmods, x.p, x.n);
                        present = j >= 0 && f->mods[j].cls == *r;
                    }
                    if (!present) {
                        cls = *r;
                        break;
                    }
                }
            list_class(f, cls, list, sizeof list);
            if (!f->nmods)
                return verr(c, p, "'%.*s' is not a modifier of %.*s; %.*s takes none", (int)n - 1, p + 1, (int)oplen,
                            op, (int)oplen, op);
            return verr(c, p, "'%.*s' is not %s %s of %.*s; expected one of %s", (int)n - 1, p + 1,
                        cls == 'O' ? "an" : "a", cls ? class_name[cls] : "modifier", (int)oplen, op, list);
        }
        const fmod *x = &f->mods[k];
        if (!check_min(c, p, (int)n, x->ver, x->sm, x->sm_a)) return false;
        if (x->only && nlim < 4) lim[nlim++] = x;
        unsigned maxc = needc[x->cls] > 1 ? needc[x->cls] : 1;
        if (x->cls == 'T' && in->op == PTX_OPC_CVT) maxc = 3; /* cvt.pack.sat.u8.s32.b32 */
        if (!(f->flags & F_BAG) && x->cls != 'M' && x->cls != 'P' && x->cls != 'Q' && count[x->cls] >= maxc)
            return verr(c, p, "more than one %s in '%.*s'", class_name[x->cls], (int)in->opcode_len, in->opcode);
        /* A modifier written twice is an error (ptxas 13.0: "Duplicate .ftz
         * modifier", also for .volatile, .relaxed, .L1::evict_last...),
         * except saturation, which ptxas takes once or more: add.sat.sat,
         * cvt.rn.satfinite.satfinite.  Classes counted above (types, spaces,
         * rounding...) say "more than one" instead. */
        if (!(f->flags & F_BAG) && (x->cls == 'M' || x->cls == 'P' || x->cls == 'Q') &&
            !(n == 4 && !memcmp(p, ".sat", 4)) && !(n == 10 && !memcmp(p, ".satfinite", 10))) {
            ptx_mod_iter u = ptx_mods_begin(in);
            for (ptx_str x; ptx_mods_next(&u, &x) && x.p < p;)
                if (ptx_str_eqs(x, m))
                    return verr(c, p, "'%.*s' is repeated in '%.*s'", (int)n, p, (int)in->opcode_len, in->opcode);
        }
        count[x->cls]++;
        if (n == 15 && !memcmp(p, ".L2::cache_hint", 15)) mi->has_hint = 1;
        if (n == 6 && !memcmp(p, ".async", 6)) mi->has_async = 1;
        if (n == 5 && !memcmp(p, ".pack", 5)) mi->has_pack = 1;
        if (n == 5 && !memcmp(p, ".sync", 5)) mi->has_sync = 1;
        if (n == 4 && !memcmp(p, ".cas", 4)) mi->has_cas = 1;
        switch (x->cls) {
        case 'T':
            tname = p;
            tn = n;
            if (mi->ntypes < 4) {
                uint8_t v;
                mi->types[mi->ntypes++] = ptx_mod_classify(p, n, &v) == PTX_MOD_TYPE ? v : 0;
            }
            break;
        case 'C': mi->cmpname = x->name; mi->cmplen = x->len; break;
        case 'R': /* 2: an integer rounding (.rni ...) */
            mi->rnd = x->name[x->len - 1] == 'i' ? 2 : 1;
            rnd = p;
            rnd_n = n;
            break;
        case 'S': {
            uint8_t v;
            if (ptx_mod_classify(p, n, &v) == PTX_MOD_SPACE) mi->space = v;
            break;
        }
        case 'V': mi->vec = (uint8_t)atoi(p + 2); break;
        case 'O':
            if (n == 5 && !memcmp(p, ".wide", 5)) mi->has_wide = 1;
            if (n == 3 && (!memcmp(p, ".lo", 3) || !memcmp(p, ".hi", 3))) mi->has_lohi = 1;
            if ((n == 4 && (!memcmp(p, ".and", 4) || !memcmp(p, ".xor", 4))) || (n == 3 && !memcmp(p, ".or", 3)))
                mi->has_boolop = 1;
            break;
        case 'M':
            if (n == 7 && !memcmp(p, ".approx", 7)) mi->has_approx = 1;
            if (n == 5 && !memcmp(p, ".full", 5)) mi->has_full = 1;
            if (n == 4 && !memcmp(p, ".sat", 4)) mi->has_sat = 1;
            if (n == 4 && !memcmp(p, ".ftz", 4)) mi->has_ftz = 1;
            if (n == 3 && !memcmp(p, ".nc", 3)) mi->has_nc = 1;
            if ((n == 5 && !memcmp(p, ".relu", 5)) || (n == 10 && !memcmp(p, ".satfinite", 10))) mi->has_narrow = 1;
            break;
        default: break;
        }
    }
    /* these have only approximate forms: .approx is required whatever else
     * is written (ptxas 13.0: ".approx modifier required for instruction
     * 'rsqrt'", also for rsqrt.ftz.f32) */
    if (!mi->has_approx && (in->op == PTX_OPC_RSQRT || in->op == PTX_OPC_SIN || in->op == PTX_OPC_COS ||
                            in->op == PTX_OPC_LG2 || in->op == PTX_OPC_EX2 || in->op == PTX_OPC_TANH))
        return verr(c, in->opcode, "'%.*s' needs .approx", (int)in->opcode_len, in->opcode);
    /* required classes */
    for (int k = 'A'; k <= 'Z'; k++) {
        if (!needc[k] || count[k] >= needc[k]) continue;
        char list[400];
        list_class(f, k, list, sizeof list);
        if (k == 'T' && needc[k] == 2)
            return verr(c, in->opcode, "'%.*s' needs two types (destination and source): each one of %s",
                        (int)in->opcode_len, in->opcode, list);
        return verr(c, in->opcode, "'%.*s' needs a %s: one of %s", (int)in->opcode_len, in->opcode, class_name[k],
                    list);
    }
    for (unsigned i = 0; i < nlim && tn; i++) {
        char list[96];
        if (!only_has(lim[i]->only, tname, tn, list, sizeof list))
            return verr(c, in->opcode, "'%.*s': %.*s applies only to %s", (int)in->opcode_len, in->opcode, lim[i]->len,
                        lim[i]->name, list);
    }
    mi->int16x2 = tn == 6 && (tname[1] == 's' || tname[1] == 'u');
    if (in->op == PTX_OPC_CVT) {
        /* the packed and narrow formats: a table of their own (cvt_forms.def) */
        if (!check_cvt_form(c, mi, rnd, rnd_n)) return false;
        if (!mi->cvt.nopd && mi->has_narrow)
            return verr(c, in->opcode, "'%.*s': .relu and .satfinite apply only to conversions from .f32 to .f16, "
                        ".bf16, .tf32 and the packed formats (.f16x2, .e4m3x2, ...)", (int)in->opcode_len, in->opcode);
    }
    return true;
}

/* ---- combinations (ISA: the "Description" and "Notes" of each form) ---- */
static inline bool t_float(unsigned t) { return t == PTX_T_F32 || t == PTX_T_F64; }
static inline bool t_half(unsigned t) {
    return t == PTX_T_F16 || t == PTX_T_F16X2 || t == PTX_T_BF16 || t == PTX_T_BF16X2;
}
static inline bool t_bits(unsigned t) { return t >= PTX_T_B8 && t <= PTX_T_B128; }

/* cp.async.bulk.prefetch{.tensor.Nd}.L2.global (ISA 9.7.9.25.4.3/4): the
 * .L2 level is required and is only for prefetches; the source is .global. */
static bool check_cp_prefetch(const vctx *c, const mods_info *mi) {
    const ptx_inst *in = c->in;
    int L = (int)in->opcode_len;
    bool pf = ptx_inst_has_mod(in, ".prefetch"), l2 = ptx_inst_has_mod(in, ".L2");
    if (l2 && !pf)
        return verr(c, in->opcode, "'%.*s': the .L2 level applies only to cp.async.bulk.prefetch", L, in->opcode);
    if (!pf) return true;
    if (!ptx_inst_has_mod(in, ".bulk") || !ptx_inst_has_mod(in, ".async"))
        return verr(c, in->opcode, "'%.*s': a prefetch is cp.async.bulk.prefetch", L, in->opcode);
    if (!l2) return verr(c, in->opcode, "'%.*s' needs the level .L2", L, in->opcode);
    if (mi->space != PTX_SP_GLOBAL || ptx_inst_has_mod(in, ".shared") || ptx_inst_has_mod(in, ".shared::cta") ||
        ptx_inst_has_mod(in, ".shared::cluster"))
        return verr(c, in->opcode, "'%.*s' needs the state space .global (and no other)", L, in->opcode);
    return true;
}

/* The operands of cp.async.bulk.prefetch: [a], size[, policy], or
 * [tensorMap, {N coordinates}][, {im2col offsets}][, policy]. */
static bool check_cp_prefetch_opds(const vctx *c, const mods_info *mi) {
    const ptx_inst *in = c->in;
    int L = (int)in->opcode_len;
    unsigned n = in->nopd, hint = mi->has_hint;
    if (!ptx_inst_has_mod(in, ".tensor"))
        return n == 2 + hint || verr(c, in->opcode, "'%.*s' takes %u operands ([a], size%s), not %u", L, in->opcode,
                                     2 + hint, hint ? ", cache-policy" : "", n);
    unsigned dim = 0;
    for (unsigned d = 1; d <= 5; d++) {
        char w[4] = {'.', (char)('0' + d), 'd', 0};
        if (ptx_inst_has_mod(in, w)) dim = d;
    }
    unsigned im2col = ptx_inst_has_mod(in, ".im2col") || ptx_inst_has_mod(in, ".im2col::w") || ptx_inst_has_mod(in, ".im2col::w::128");
    unsigned want = 1 + im2col + hint;
    if (n != want)
        return verr(c, in->opcode, "'%.*s' takes %u operands ([tensorMap, {coordinates}]%s%s), not %u", L, in->opcode,
                    want, im2col ? ", {im2col offsets}" : "", hint ? ", cache-policy" : "", n);
    const ptx_operand *a = &in->opd[0];
    unsigned ncoord = ptx_inst_has_mod(in, ".tile::gather4") ? 5 : dim;
    if (dim && a->kind == PTX_O_ADDR && a->n == 2 && a->p.elems[1].kind == PTX_O_VEC && a->p.elems[1].n != ncoord)
        return verr(c, opd_text(c, 0), "operand 1 of '%.*s' needs %u coordinate%s for .%ud%s, not %u", L, in->opcode,
                    ncoord, ncoord == 1 ? "" : "s", dim, ncoord != dim ? " .tile::gather4" : "", a->p.elems[1].n);
    return true;
}

static bool check_combos(const vctx *c, const mods_info *mi) {
    const ptx_inst *in = c->in;
    const char *at = in->opcode;
    int op = in->op;
    unsigned t = mi->ntypes ? mi->types[mi->ntypes - 1] : 0;
    int L = (int)in->opcode_len;
    switch (op) {
    case PTX_OPC_ADD: case PTX_OPC_SUB: case PTX_OPC_MUL: case PTX_OPC_MAD:
        /* the carry (its types: isa.def) never goes with .sat or mad.wide
         * (ptxas 13.0: "Illegal modifier '.cc' for instruction 'mad.wide'") */
        if ((mi->has_sat || mi->has_wide) && ptx_inst_has_mod(in, ".cc"))
            return verr(c, at, mi->has_sat ? "'%.*s': .cc and .sat exclude each other" : "'%.*s': .cc does not apply to .wide",
                        L, at);
        if (ptx_type_is_int(t) || mi->int16x2) {
            if (mi->rnd) return verr(c, at, "'%.*s': a rounding modifier applies only to floating-point types", L, at);
            /* ptxas 13.0: "Illegal modifier '.sat' for instruction 'mad.lo'" */
            if (mi->has_sat && op == PTX_OPC_MAD && !ptx_inst_has_mod(in, ".hi"))
                return verr(c, at, "'%.*s': an integer .sat applies to mad only with .hi", L, at);
            if ((op == PTX_OPC_MUL || op == PTX_OPC_MAD) && !mi->has_wide && !mi->has_lohi)
                return verr(c, at, "'%.*s' needs .lo, .hi or .wide for an integer type", L, at);
            if (mi->has_wide && ptx_type_bits((ptx_type)t) > 32)
                return verr(c, at, "'%.*s': .wide applies to 16- and 32-bit integer types only", L, at);
        } else if (t_float(t) || t_half(t) || t == PTX_T_F32X2) {
            if (mi->has_wide || mi->has_lohi)
                return verr(c, at, "'%.*s': .lo, .hi and .wide apply only to integer types", L, at);
            /* the half types round to nearest only (ptxas 13.0: "Illegal rounding
             * modifier for instruction 'add'"); fma.bf16 is checked below */
            if (t_half(t) && mi->rnd && !ptx_inst_has_mod(in, ".rn"))
                return verr(c, at, "'%.*s': the half types take only the rounding modifier .rn", L, at);
            if (op == PTX_OPC_MAD && !mi->rnd && c->m->target_sm >= 20)
                return verr(c, at, "'%.*s' needs a rounding modifier: one of .rn .rz .rm .rp", L, at);
            if (mi->rnd == 2) return verr(c, at, "'%.*s': expected one of .rn .rz .rm .rp", L, at);
        }
        break;
    case PTX_OPC_DIV:
        if (ptx_type_is_int(t) && (mi->rnd || mi->has_approx || mi->has_full || mi->has_ftz))
            return verr(c, at, "'%.*s': rounding, .approx, .full and .ftz apply only to floating-point types", L, at);
        /* .approx and .full are their own roundings (ptxas 13.0: "Illegal
         * rounding modifier for instruction 'div.full'") */
        if (mi->rnd && (mi->has_approx || mi->has_full))
            return verr(c, at, "'%.*s': a rounding modifier does not go with %s", L, at, mi->has_approx ? ".approx" : ".full");
        if (t == PTX_T_F32 && !mi->rnd && !mi->has_approx && !mi->has_full)
            return verr(c, at, "'%.*s' needs .approx, .full or a rounding modifier (.rn .rz .rm .rp)", L, at);
        if (t == PTX_T_F64 && !mi->rnd)
            return verr(c, at, "'%.*s' needs a rounding modifier: one of .rn .rz .rm .rp", L, at);
        break;
    case PTX_OPC_SQRT: case PTX_OPC_RCP:
        if (mi->rnd && mi->has_approx)
            return verr(c, at, "'%.*s': a rounding modifier does not go with .approx", L, at);
        if (!mi->rnd && !mi->has_approx)
            return verr(c, at, "'%.*s' needs .approx or a rounding modifier (.rn .rz .rm .rp)", L, at);
        if (mi->has_approx && t == PTX_T_F64 && (op == PTX_OPC_SQRT || !mi->has_ftz))
            return verr(c, at, "'%.*s': .approx applies to .f64 only as rcp.approx.ftz.f64", L, at);
        break;
    case PTX_OPC_MAD24:
        if (mi->has_sat && (t != PTX_T_S32 || !ptx_inst_has_mod(in, ".hi")))
            return verr(c, at, "'%.*s': .sat applies only to mad24.hi.s32", L, at);
        break;
    case PTX_OPC_SETP: case PTX_OPC_SET:
        /* set's destination by its source type: .u32 .s32 .f32 .f16 .bf16
         * from the classic types, the 16-bit forms from .f16/.bf16, a packed
         * result only from its own packed type (ptxas 13.0: "Unexpected
         * instruction types specified for 'set'", set.lt.f32.bf16) */
        if (op == PTX_OPC_SET && mi->ntypes == 2) {
            unsigned d = mi->types[0], s = mi->types[1];
            const char *legal = s == PTX_T_F16      ? ".u32 .s32 .u16 .s16 .f16 .bf16"
                                : s == PTX_T_BF16   ? ".u32 .s32 .u16 .s16 .bf16"
                                : s == PTX_T_F16X2  ? ".u32 .s32 .f16x2"
                                : s == PTX_T_BF16X2 ? ".u32 .s32 .bf16x2"
                                                    : ".u32 .s32 .f32 .f16 .bf16";
            if (!in_words(legal, ptx_type_name((ptx_type)d)))
                return verr(c, at, "'%.*s': from %s, set's destination type is one of %s", L, at,
                            ptx_type_name((ptx_type)s), legal);
        }
        if (mi->cmpname) {
            /* .equ .neu .ltu .leu .gtu .geu (the unordered four letters), .num, .nan */
            int fc = mi->cmplen == 4 || !strncmp(mi->cmpname, ".num", 4) || !strncmp(mi->cmpname, ".nan", 4);
            if (fc && !t_float(t) && !t_half(t))
                return verr(c, at, "'%.*s': comparison %.4s applies only to floating-point types", L, at, mi->cmpname);
            if (is_cmp_unsigned(mi->cmpname) && !ptx_type_is_unsigned(t) && !t_bits(t))
                return verr(c, at, "'%.*s': comparison %.3s applies only to unsigned types", L, at, mi->cmpname);
            if (t_bits(t) && strncmp(mi->cmpname, ".eq", 3) && strncmp(mi->cmpname, ".ne", 3))
                return verr(c, at, "'%.*s': a .b type takes only .eq and .ne", L, at);
        }
        break;
    case PTX_OPC_CVT: {
        if (mi->ntypes < 2 || mi->cvt.nopd || mi->has_pack) break;
        unsigned d = mi->types[0], s = mi->types[1];
        if (mi->has_ftz && d != PTX_T_F32 && s != PTX_T_F32)
            return verr(c, at, "'%.*s': .ftz applies only to a conversion from or to .f32", L, at);
        int fd = t_float(d) || t_half(d) || d == PTX_T_TF32, fs = t_float(s) || t_half(s);
        const char *need = NULL, *illegal = NULL;
        if (fd && !fs) { if (mi->rnd != 1) need = ".rn .rz .rm .rp"; }
        else if (!fd && fs) { if (mi->rnd != 2) need = ".rni .rzi .rmi .rpi"; }
        else if (fd && fs) {
            unsigned bd = ptx_type_bits((ptx_type)d), bs = ptx_type_bits((ptx_type)s);
            if (bd < bs && mi->rnd != 1 && d != PTX_T_TF32) need = ".rn .rz .rm .rp";
            else if (bd > bs && mi->rnd) illegal = "";
            else if (bd == bs && mi->rnd == 1 && d == s) illegal = "";
        } else if (mi->rnd) illegal = "";
        if (need) return verr(c, at, "'%.*s' needs a rounding modifier: one of %s", L, at, need);
        if (illegal) return verr(c, at, "'%.*s': no rounding modifier applies to this conversion", L, at);
        break;
    }
    case PTX_OPC_CP:
        if (!check_cp_prefetch(c, mi)) return false;
        break;
    case PTX_OPC_PREFETCH:
        if (ptx_inst_has_mod(in, ".tensormap") && (ptx_inst_has_mod(in, ".global") || ptx_inst_has_mod(in, ".local")))
            return verr(c, at, "'%.*s': .tensormap takes the state space .const or .param, or none", L, at);
        break;
    case PTX_OPC_FMA:
        /* .relu (for the half types: isa.def) excludes .sat; .f16 rounds to
         * nearest only, while ptxas 13.0 takes fma.rz.bf16 ("Illegal rounding
         * modifier for instruction 'fma'", "Modifier '.relu' cannot be
         * combined with modifier '.sat'") */
        if (ptx_inst_has_mod(in, ".relu") && mi->has_sat)
            return verr(c, at, "'%.*s': .relu and .sat exclude each other", L, at);
        if ((t == PTX_T_F16 || t == PTX_T_F16X2) && mi->rnd && !ptx_inst_has_mod(in, ".rn"))
            return verr(c, at, "'%.*s': .f16 and .f16x2 take only the rounding modifier .rn", L, at);
        break;
    case PTX_OPC_MIN: case PTX_OPC_MAX: {
        /* .xorsign.abs: both or neither (ptxas 13.0: "Modifier '.abs' requires
         * modifier '.xorsign'"); their types, .relu's and .NaN's: isa.def */
        bool xs = ptx_inst_has_mod(in, ".xorsign"), ab = ptx_inst_has_mod(in, ".abs");
        if (xs != ab) return verr(c, at, "'%.*s' needs %s", L, at, xs ? ".abs" : ".xorsign");
        break;
    }
    case PTX_OPC_LD:
        if (mi->has_nc && mi->space != PTX_SP_GLOBAL)
            return verr(c, at, "'%.*s': .nc applies only to .global", L, at);
        break;
    default: break;
    }
    /* ex2's .bf16 forms need .ftz (ptxas 13.0: ".ftz modifier required for
     * instruction 'ex2.bf16'"); its other types and .ftz: isa.def */
    if (op == PTX_OPC_EX2 && (t == PTX_T_BF16 || t == PTX_T_BF16X2) && !mi->has_ftz)
        return verr(c, at, "'%.*s' needs .ftz", L, at);
    return true;
}

/* ---- operands ---- */
/* Is a register of type r usable where the instruction has type t?  ISA
 * 5.2.4: .bN accepts any type of N bits, .uN/.sN accept .b/.u/.s, .fN
 * accepts .b/.f; relaxed (ld, st, cvt): integer registers may be wider. */
static bool compatible_rule(unsigned t, unsigned r, int relaxed) {
    if (t == PTX_T_PRED || r == PTX_T_PRED) return t == r;
    unsigned bt = ptx_type_bits((ptx_type)t), br = ptx_type_bits((ptx_type)r);
    int rf = t_float(r) || t_half(r), tf = t_float(t) || t_half(t);
    int rint = ptx_type_is_int(r) || r == PTX_T_B128;
    if (!rf && !rint) return true; /* sub-byte, fp8, refs: not checked here */
    if (tf) {
        if (rint && !t_bits(r)) return false;
        return br == bt || (relaxed && t_half(t) && br >= bt && t_bits(r));
    }
    if (t_bits(t)) return br == bt || (relaxed && br >= bt && !rf);
    if (rf) return false;
    return br == bt || (relaxed && br >= bt);
}

/* compatible_rule as a table (one lookup per operand: parsing checks every
 * register operand of every instruction). */
static uint8_t compat_tab[2][PTX_T__COUNT][PTX_T__COUNT];
static once_flag compat_once = ONCE_FLAG_INIT;
static void compat_build(void) {
    for (int x = 0; x < 2; x++)
        for (unsigned t = 0; t < PTX_T__COUNT; t++)
            for (unsigned r = 0; r < PTX_T__COUNT; r++) compat_tab[x][t][r] = compatible_rule(t, r, x);
}

static inline bool compatible(unsigned t, unsigned r, int relaxed) {
    if (t >= PTX_T__COUNT || r >= PTX_T__COUNT) return compatible_rule(t, r, relaxed);
    return compat_tab[relaxed != 0][t][r];
}

static bool check_value_full(const vctx *c, unsigned idx, const ptx_operand *o, unsigned t, int relaxed,
                             int allow_sym) {
#define at opd_text(c, idx) /* where the operand is: only wanted for a message */
    int L = (int)c->in->opcode_len;
    const char *op = c->in->opcode;
    if (o->kind == PTX_O_REG) {
        const ptx_reg *r = &c->regs[o->n];
        if (!compatible(t, r->type, relaxed))
            return verr(c, at, "operand %u of '%.*s': '%.*s' is a %s register, not compatible with %s", idx + 1, L, op,
                        (int)r->name.n, r->name.p, ptx_type_name((ptx_type)r->type), ptx_type_name((ptx_type)t));
        return true;
    }
    if (o->kind == PTX_O_SREG) {
        /* special registers are 32-bit unsigned, a few 64-bit (ISA 10) */
        unsigned bits = o->n == PTX_SR_CLOCK64 || o->n == PTX_SR_GLOBALTIMER || o->n == PTX_SR_GRIDID ||
                                o->n == PTX_SR_PM64 || o->n == PTX_SR_CURRENT_GRAPH_EXEC
                            ? 64
                            : 32;
        if (!ptx_type_is_int(t) || ptx_type_bits((ptx_type)t) > bits)
            return verr(c, at, "operand %u of '%.*s': a %u-bit special register where the type is %s", idx + 1, L, op,
                        bits, ptx_type_name((ptx_type)t));
        return true;
    }
    if (o->kind == PTX_O_IMM) {
        int isf = o->flags != PTX_IMM_INT;
        if (t == PTX_T_PRED) return true;
        if ((t_float(t) && !isf) || (ptx_type_is_int(t) && !t_bits(t) && isf))
            return verr(c, at, "operand %u of '%.*s': %s literal where the type is %s", idx + 1, L, op,
                        isf ? "a floating-point" : "an integer", ptx_type_name((ptx_type)t));
        return true;
    }
    if (o->kind != PTX_O_SYM || ptx_str_eq(ptx_opd_text(o), "WARP_SZ")) return true;
    if (!allow_sym)
        return verr(c, at, "operand %u of '%.*s' must be a register or a constant, not the symbol '%.*s'", idx + 1, L,
                    op, (int)o->n, o->p.text);
    if (!ptx_type_is_int(t) || ptx_type_bits((ptx_type)t) < 32)
        return verr(c, at, "operand %u of '%.*s': the address of '%.*s' needs a 32- or 64-bit integer type, not %s",
                    idx + 1, L, op, (int)o->n, o->p.text, ptx_type_name((ptx_type)t));
    return true;
}

#undef at

/* The common case first, inline: a register of a compatible type.  The
 * rest (and every message) is check_value_full's. */
static inline bool check_value(const vctx *c, unsigned idx, const ptx_operand *o, unsigned t, int relaxed,
                               int allow_sym) {
    if (!t) return true;
    if (o->kind == PTX_O_REG && compatible(t, c->regs[o->n].type, relaxed)) return true;
    return check_value_full(c, idx, o, t, relaxed, allow_sym);
}

static bool is_result(const ptx_operand *o) {
    return o->kind == PTX_O_REG || o->kind == PTX_O_VEC || o->kind == PTX_O_PAIR || o->kind == PTX_O_SINK;
}

static bool check_vec(const vctx *c, unsigned idx, const ptx_operand *o, unsigned vec, unsigned t, int relaxed) {
    int L = (int)c->in->opcode_len;
    const char *op = c->in->opcode;
    if (vec) {
        if (o->kind != PTX_O_VEC || o->n != vec)
            return verr(c, opd_text(c, idx), "operand %u of '%.*s' must be a vector of %u elements {a, b%s}", idx + 1,
                        L, op, vec, vec > 2 ? ", ..." : "");
        for (uint32_t k = 0; k < o->n; k++)
            if (o->p.elems[k].kind != PTX_O_SINK && !check_value(c, idx, &o->p.elems[k], t, relaxed, 0)) return false;
        return true;
    }
    if (o->kind == PTX_O_VEC)
        return verr(c, opd_text(c, idx), "operand %u of '%.*s' is a vector but the instruction has no .v2/.v4",
                    idx + 1, L, op);
    return check_value(c, idx, o, t, relaxed, 0);
}

static void check_operands(const vctx *c, const fform *f, const mods_info *mi) {
    const ptx_inst *in = c->in;
    unsigned n = in->nopd;
    int L = (int)in->opcode_len;
    const char *op = in->opcode;
    if (n < f->nmin || n > f->nmax) {
        if (f->nmin == f->nmax)
            verr(c, n > f->nmax ? opd_text(c, f->nmax) : op, "'%.*s' takes %u operand%s, not %u", L, op, f->nmin,
                 f->nmin == 1 ? "" : "s", n);
        else
            verr(c, n > f->nmax ? opd_text(c, f->nmax) : op, "'%.*s' takes %u to %u operands, not %u", L, op, f->nmin,
                 f->nmax, n);
        return;
    }
    /* the optional last operands: a cache policy (ld, st with
     * .L2::cache_hint), setp's predicate (with .and/.or/.xor), cvt.pack's */
    unsigned want = 0;
    if ((f->flags & (F_L | F_S)) && n == 3 && !mi->has_hint && !mi->has_async)
        want = 2;
    else if (in->op == PTX_OPC_CVT && mi->cvt.nopd)
        want = mi->cvt.nopd;
    else if (in->op == PTX_OPC_CVT && !mi->has_pack)
        want = 2;
    else if (in->op == PTX_OPC_SHFL)
        want = mi->has_sync ? 5u : 4u; /* d[|p], a, b, c[, membermask] */
    else if (in->op == PTX_OPC_ATOM && !mi->has_hint)
        want = mi->has_cas ? 4u : 3u; /* d, [a], b[, c] */
    else if (in->op == PTX_OPC_SETP || in->op == PTX_OPC_SET)
        want = 3u + mi->has_boolop;
    if (want && n != want) {
        verr(c, n > want ? opd_text(c, want) : op, "'%.*s' takes %u operands, not %u%s", L, op, want, n,
             (in->op == PTX_OPC_SETP || in->op == PTX_OPC_SET) && !mi->has_boolop && n == 4
                 ? " (a fourth needs .and, .or or .xor)"
                 : "");
        return;
    }
    if ((f->flags & F_D) && n && !is_result(&in->opd[0])) {
        verr(c, opd_text(c, 0), "operand 1 of '%.*s' is its result and must be a register", L, op);
        return;
    }
    unsigned t = mi->ntypes ? mi->types[mi->ntypes - 1] : 0;
    if (f->flags & (F_L | F_S)) {
        unsigned a = f->flags & F_L ? 1 : 0; /* the address: ld d, [a]; st [a], b */
        if (in->opd[a].kind != PTX_O_ADDR) {
            verr(c, opd_text(c, a), "operand %u of '%.*s' must be an address [a]", a + 1, L, op);
            return;
        }
        check_vec(c, 1 - a, &in->opd[1 - a], mi->vec, t, 1);
        return;
    }
    switch (in->op) {
    case PTX_OPC_SETP:
        if (in->opd[0].kind == PTX_O_PAIR) {
            for (int k = 0; k < 2; k++)
                if (!check_value(c, 0, &in->opd[0].p.elems[k], PTX_T_PRED, 0, 0)) return;
        } else if (!check_value(c, 0, &in->opd[0], PTX_T_PRED, 0, 0)) return;
        if (!check_value(c, 1, &in->opd[1], t, 0, 0) || !check_value(c, 2, &in->opd[2], t, 0, 0)) return;
        if (n == 4) check_value(c, 3, &in->opd[3], PTX_T_PRED, 0, 0);
        return;
    case PTX_OPC_SELP:
        for (unsigned i = 0; i < 3; i++)
            if (!check_value(c, i, &in->opd[i], t, 0, 0)) return;
        check_value(c, 3, &in->opd[3], PTX_T_PRED, 0, 0);
        return;
    case PTX_OPC_SHL: case PTX_OPC_SHR:
        if (!check_value(c, 0, &in->opd[0], t, 0, 0) || !check_value(c, 1, &in->opd[1], t, 0, 0)) return;
        check_value(c, 2, &in->opd[2], PTX_T_U32, 0, 0);
        return;
    case PTX_OPC_MOV:
        if (in->opd[0].kind == PTX_O_VEC || in->opd[1].kind == PTX_O_VEC) return; /* pack/unpack */
        /* fall through */
    case PTX_OPC_CVTA:
        if (!check_value(c, 0, &in->opd[0], t, 0, 0)) return;
        check_value(c, 1, &in->opd[1], t, 0, 1);
        return;
    case PTX_OPC_SETMAXNREG:
        /* ISA 9.7.19.5: a multiple of 8 in [24, 256] */
        if (n == 1 && in->opd[0].kind == PTX_O_IMM && (in->opd[0].v < 24 || in->opd[0].v > 256 || in->opd[0].v % 8))
            verr(c, opd_text(c, 0), "operand 1 of '%.*s' must be a multiple of 8 from 24 to 256, not %lld", L, op,
                 (long long)in->opd[0].v);
        return;
    case PTX_OPC_CP:
        if (in->opcode_len > 22 && in->opcode[14] == 'p' && ptx_inst_has_mod(in, ".prefetch")) check_cp_prefetch_opds(c, mi);
        return;
    case PTX_OPC_CVT:
        if (mi->cvt.nopd) {
            /* d (.bN of the format's width), a[, b] or {a, b, e, f}[, rbits] */
            const cvt_shape *sh = &mi->cvt;
            ptx_type dt = sh->dbits == 8 ? PTX_T_B8 : sh->dbits == 16 ? PTX_T_B16 : PTX_T_B32;
            if (!check_value(c, 0, &in->opd[0], dt, 0, 0)) return;
            unsigned nsrc = n - 1u - sh->rbits;
            for (unsigned i = 1; i <= nsrc; i++) {
                const ptx_operand *o = &in->opd[i];
                if (sh->vec4) {
                    if (o->kind != PTX_O_VEC || o->n != 4) {
                        verr(c, opd_text(c, i), "operand %u of '%.*s' must be a vector of 4 elements {a, b, e, f}",
                             i + 1, L, op);
                        return;
                    }
                    for (unsigned k = 0; k < 4; k++)
                        if (!check_value(c, i, &o->p.elems[k], PTX_T_F32, 0, 0)) return;
                } else if (sh->src != PTX_T_F32 && o->kind != PTX_O_REG) {
                    /* a packed value has no literal form */
                    verr(c, opd_text(c, i), "operand %u of '%.*s' must be a register", i + 1, L, op);
                    return;
                } else if (!check_value(c, i, o, sh->src, 0, 0)) {
                    return;
                }
            }
            if (sh->rbits) check_value(c, n - 1, &in->opd[n - 1], PTX_T_B32, 0, 0);
            return;
        }
        if (mi->ntypes == 2 && n == 2) {
            if (!check_value(c, 0, &in->opd[0], mi->types[0], 1, 0)) return;
            check_value(c, 1, &in->opd[1], mi->types[1], 1, 0);
        }
        return;
    default: break;
    }
    if (!(f->flags & F_A) || !t) return;
    if (t == PTX_T_F32X2) /* a pair of .f32 in a .b64: no literal form */
        for (unsigned i = 0; i < n; i++)
            if (in->opd[i].kind != PTX_O_REG) {
                verr(c, opd_text(c, i), "operand %u of '%.*s' must be a .b64 register (a pair of .f32)", i + 1, L, op);
                return;
            }
    for (unsigned i = 0; i < n; i++) {
        unsigned ti = t;
        if (mi->has_wide && (i == 0 || (in->op == PTX_OPC_MAD && i == 3))) {
            /* the result (and mad's addend) are twice as wide */
            ti = t == PTX_T_U16 ? PTX_T_U32 : t == PTX_T_S16 ? PTX_T_S32 : t == PTX_T_U32 ? PTX_T_U64 : PTX_T_S64;
        }
        if (in->opd[i].kind == PTX_O_VEC || in->opd[i].kind == PTX_O_PAIR || in->opd[i].kind == PTX_O_ADDR) continue;
        if (!check_value(c, i, &in->opd[i], ti, 0, 0)) return;
    }
}

/* ---- per module ---- */
/* The nearest opcodes to an unknown one, for the message. */
static void suggest(const char *p, size_t n, char *out, size_t cap) {
    unsigned best[3] = {99, 99, 99};
    int bi[3] = {-1, -1, -1};
    for (int o = 1; o < PTX_OPC__COUNT; o++) {
        const char *nm = ptx_opcode_name((ptx_opcode)o);
        unsigned d = 2 * edit_distance(p, n, nm, strlen(nm)) + (nm[0] != p[0]);
        for (int k = 0; k < 3; k++)
            if (d < best[k]) {
                for (int j = 2; j > k; j--) {
                    best[j] = best[j - 1];
                    bi[j] = bi[j - 1];
                }
                best[k] = d;
                bi[k] = o;
                break;
            }
    }
    size_t k = 0;
    out[0] = 0;
    for (int i = 0; i < 3 && bi[i] > 0 && best[i] <= 5 + n / 2; i++)
        k += (size_t)snprintf(out + k, cap - k, "%s%s", i == 0 ? "" : (i == 2 || bi[i + 1 < 3 ? i + 1 : 2] <= 0 ? " or " : ", "),
                              ptx_opcode_name((ptx_opcode)bi[i]));
}

/* Spellings are hashed by length and their first and last 8 bytes (the
 * source buffer has 2 NULs after the text; shorter spellings are read byte
 * by byte), as decode_opcode's cache does. */
static uint32_t hspell(const char *p, uint32_t n) {
    uint64_t head = 0, tail = 0;
    if (n >= 8) {
        memcpy(&head, p, 8);
        memcpy(&tail, p + n - 8, 8);
    } else {
        for (uint32_t i = 0; i < n; i++) head |= (uint64_t)(unsigned char)p[i] << (8 * i);
    }
    return (uint32_t)((head * 0x9E3779B97F4A7C15ull ^ tail * 0xC2B2AE3D27D4EB4Full ^ n) >> 32);
}

/* Spellings found legal, over all the modules of the process, by their text
 * and the module's .version and .target, its suffix included (sm_100a and
 * sm_100f take different cvt forms): all a spelling's check reads.  A
 * corpus of small files repeats the same few hundred.  A fixed table; once
 * half full, nothing more is added. */
typedef struct okspell {
    char *p; /* malloc'd copy, NULL = empty slot */
    uint32_t n;
    uint16_t ver, sm;
    uint8_t suffix; /* the target's 'a' or 'f', or 0 */
    mods_info mi;
} okspell;
#define OKSPELL_CAP 4096
static struct {
    mtx_t lock;
    okspell slot[OKSPELL_CAP];
    uint32_t used;
} oks;
static once_flag oks_once = ONCE_FLAG_INIT;
static void oks_init(void) { mtx_init(&oks.lock, mtx_plain); }

/* The spelling's slot, or the empty one where it goes (under oks.lock). */
static okspell *oks_slot(const char *p, uint32_t n, const ptx_module *m) {
    uint32_t h = (hspell(p, n) ^ (m->version_major * 131u + m->version_minor * 7u + m->target_sm * 1031u +
                                  m->target_suffix)) & (OKSPELL_CAP - 1);
    for (okspell *e; (e = &oks.slot[h])->p; h = (h + 1) & (OKSPELL_CAP - 1))
        if (e->n == n && e->ver == m->version_major * 10 + m->version_minor && e->sm == m->target_sm &&
            e->suffix == m->target_suffix && !memcmp(e->p, p, n))
            return e;
    return &oks.slot[h];
}

static bool oks_find(const char *p, uint32_t n, const ptx_module *m, mods_info *mi) {
    mtx_lock(&oks.lock);
    const okspell *e = oks_slot(p, n, m);
    bool found = e->p != NULL;
    if (found) *mi = e->mi;
    mtx_unlock(&oks.lock);
    return found;
}

static void oks_add(const char *p, uint32_t n, const ptx_module *m, const mods_info *mi) {
    mtx_lock(&oks.lock);
    if (oks.used < OKSPELL_CAP / 2) {
        okspell *e = oks_slot(p, n, m);
        char *copy = e->p ? NULL : malloc(n ? n : 1);
        if (copy) {
            memcpy(copy, p, n);
            *e = (okspell){copy, n, (uint16_t)(m->version_major * 10 + m->version_minor), (uint16_t)m->target_sm,
                           m->target_suffix, *mi};
            oks.used++;
        }
    }
    mtx_unlock(&oks.lock);
}

void ptx_validate_begin(ptx_builder *b) {
    call_once(&oks_once, oks_init);
    call_once(&forms_once, forms_build);
    call_once(&compat_once, compat_build);
    struct ptx_vstate *vs = calloc(1, sizeof *vs);
    if (!vs) abort();
    vs->hcap = 256;
    vs->hash = calloc(vs->hcap, sizeof *vs->hash);
    if (!vs->hash) abort();
    ptx_diags_init(&vs->held);
    vs->held.max_errors = 0; /* the limit is vs->stop's */
    vs->errors_before = b->d->nerrors;
    b->vs = vs;
}

void ptx_validate_free(ptx_builder *b) {
    struct ptx_vstate *vs = b->vs;
    if (!vs) return;
    free(vs->v);
    free(vs->hash);
    ptx_diags_free(&vs->held);
    free(vs);
    b->vs = NULL;
}

/* The id of the instruction's spelling (a new one is checked at its first
 * ptx_validate_inst).  Called on the opcode cache's misses only. */
uint32_t ptx_validate_spelling(ptx_builder *b, const ptx_inst *in) {
    struct ptx_vstate *vs = b->vs;
    const char *op = in->opcode;
    uint32_t n = in->opcode_len;
    uint32_t h = hspell(op, n) & (vs->hcap - 1);
    for (uint32_t id; (id = vs->hash[h]) != 0; h = (h + 1) & (vs->hcap - 1))
        if (vs->v[id - 1].n == n && !memcmp(vs->v[id - 1].p, op, n)) return id - 1;
    if (vs->n == vs->cap) {
        vs->cap = vs->cap ? vs->cap * 2 : 64;
        seen *nv = realloc(vs->v, vs->cap * sizeof *nv);
        if (!nv) abort();
        vs->v = nv;
    }
    vs->v[vs->n] = (seen){.p = op, .n = n, .state = SP_NEW};
    vs->hash[h] = ++vs->n;
    if (vs->n * 2 > vs->hcap) {
        uint32_t nc = vs->hcap * 2, *nh = calloc(nc, sizeof *nh);
        if (!nh) abort();
        for (uint32_t id = 0; id < vs->n; id++) {
            uint32_t k = hspell(vs->v[id].p, vs->v[id].n) & (nc - 1);
            while (nh[k]) k = (k + 1) & (nc - 1);
            nh[k] = id + 1;
        }
        free(vs->hash);
        vs->hash = nh;
        vs->hcap = nc;
    }
    return vs->n - 1;
}

void ptx_validate_body_begin(ptx_builder *b) { b->vs->seg = b->vs->held.n; }

/* No point checking on once the parse has failed: the messages would be
 * dropped. */
static bool vs_live(const ptx_builder *b) { return !b->vs->stop && b->d->nerrors == b->vs->errors_before; }

/* A spelling's first use in the module (rare: kept out of the registers of
 * ptx_validate_inst, which checks the operands of every instruction). */
static __attribute__((noinline)) void check_spelling(const vctx *c, const fform *form, seen *e) {
    const char *op = c->in->opcode;
    mods_info mi = {0};
    bool ok = oks_find(op, c->in->opcode_len, c->m, &mi);
    if (!ok) {
        size_t oplen = 0;
        while (oplen < c->in->opcode_len && op[oplen] != '.') oplen++;
        ok = check_min(c, op, (int)oplen, form->ver, form->sm, form->sm_a) &&
             check_mods(c, form, op, oplen, &mi) && check_combos(c, &mi);
        if (ok) oks_add(op, c->in->opcode_len, c->m, &mi);
    }
    e->state = ok ? SP_OK : SP_BAD;
    e->mi = mi;
}

void ptx_validate_inst(ptx_builder *b, const ptx_stmt *s, uint32_t spell) {
    if (!vs_live(b)) return;
    struct ptx_vstate *vs = b->vs;
    const ptx_inst *in = &s->u.inst;
    vctx c = {b, b->m, b->regs.v, s, in};
    const char *op = in->opcode;
    if (in->op == PTX_OPC_UNKNOWN) {
        size_t oplen = 0;
        while (oplen < in->opcode_len && op[oplen] != '.') oplen++;
        char sug[80];
        suggest(op, oplen, sug, sizeof sug);
        if (sug[0])
            verr(&c, op, "unknown instruction '%.*s'; did you mean %s?", (int)oplen, op, sug);
        else
            verr(&c, op, "unknown instruction '%.*s'", (int)oplen, op);
        return;
    }
    const fform *form = &forms[in->op];
    if (spell == UINT32_MAX) spell = ptx_validate_spelling(b, in);
    seen *e = &vs->v[spell];
    if (e->state == SP_NEW) check_spelling(&c, form, e);
    if (e->state == SP_OK) check_operands(&c, form, &e->mi);
}

/* ".loc F L C, function_name N, inlined_at F L C" needs PTX ISA 7.0: said
 * once per module, ahead of the body's other messages. */
void ptx_validate_body_end(ptx_builder *b, const ptx_func *f) {
    struct ptx_vstate *vs = b->vs;
    const ptx_module *m = b->m;
    if (b->d->nerrors != vs->errors_before || (vs->stop && vs->held.n == vs->seg) || vs->loc_reported) return;
    if (m->version_major * 10 + m->version_minor >= 70) return;
    for (uint32_t si = 0; si < f->nstmts; si++) {
        const ptx_stmt *s = f->stmts[si];
        if (s->kind != PTX_S_LOC || !(s->u.locinfo.fn_name || s->u.locinfo.ia_file)) continue;
        ptx_diag_add(&vs->held, PTX_DIAG_ERROR, s->loc,
                     ".loc with function_name or inlined_at requires PTX ISA 7.0 or later (the file is .version %u.%u)",
                     m->version_major, m->version_minor);
        ptx_diag x = vs->held.v[vs->held.n - 1];
        memmove(&vs->held.v[vs->seg + 1], &vs->held.v[vs->seg], (vs->held.n - 1 - vs->seg) * sizeof x);
        vs->held.v[vs->seg] = x;
        if (vs->errors_before + vs->held.nerrors >= b->d->max_errors) vs->stop = 1;
        vs->loc_reported = 1;
        return;
    }
}

/* After a parse and resolution without errors: the function directives'
 * version and target, then the held messages, up to the error limit. */
void ptx_validate_module(ptx_builder *b) {
    const ptx_module *m = b->m;
    unsigned have = m->version_major * 10 + m->version_minor;
    /* function directives (ISA 11.4): first version and target */
    static const struct { const char *name; uint8_t ver, sm; } fdirs[] = {
        {".maxnreg", 13, 0}, {".maxntid", 13, 0}, {".reqntid", 21, 0}, {".minnctapersm", 20, 0},
        {".maxnctapersm", 13, 0}, {".noreturn", 64, 30}, {".explicitcluster", 78, 90},
        {".reqnctapercluster", 78, 90}, {".maxclusterrank", 78, 90}, {".blocksareclusters", 90, 90},
        {".abi_preserve", 90, 0}, {".abi_preserve_control", 90, 0},
    };
    for (uint32_t fi = 0; fi < m->nfuncs && !b->ls.stop; fi++) {
        const ptx_func *f = m->funcs[fi];
        for (uint32_t k = 0; k < f->nfdirs; k++)
            for (size_t j = 0; j < sizeof fdirs / sizeof fdirs[0]; j++) {
                if (!ptx_str_eq(f->fdirs[k].name, fdirs[j].name)) continue;
                /* the directive's own position: on the header's lines after the name */
                ptx_loc l = ptx_loc_at(m->src, m->src_len, f->name_loc, f->fdirs[k].name.p);
                if (have < fdirs[j].ver)
                    ptx_b_error(b, l, "%s requires PTX ISA %u.%u or later (the file is .version %u.%u)", fdirs[j].name,
                                fdirs[j].ver / 10u, fdirs[j].ver % 10u, m->version_major, m->version_minor);
                else if (fdirs[j].sm && m->target_sm && m->target_sm < fdirs[j].sm)
                    ptx_b_error(b, l, "%s requires sm_%u or higher (the .target is sm_%u)", fdirs[j].name,
                                fdirs[j].sm, m->target_sm);
            }
    }
    const ptx_diags *held = &b->vs->held;
    for (uint32_t i = 0; i < held->n && !b->ls.stop; i++) ptx_b_error(b, held->v[i].loc, "%s", held->v[i].msg);
}
