/* cvt's packed and narrow floating-point forms: the rows of cvt_forms.def
 * matched against an instruction's spelling.  The spelling is read as text
 * (rounding, modifiers, the two types last) since several of these formats
 * (.e2m1x4, ...) are types of cvt only. */
#include <stdio.h>
#include <string.h>
#include "cvt_forms.h"

typedef struct {
    const char *dst, *src, *rnd, *must, *may, *shape, *ptx, *targets;
} cvt_row;

static const cvt_row rows[] = {
#define PTX_CVT(d, s, r, mu, ma, sh, p, t) {d, s, r, mu, ma, sh, p, t},
#include "cvt_forms.def"
#undef PTX_CVT
};
#define NROWS (sizeof rows / sizeof rows[0])

static unsigned ver_of(const char *s) { return (unsigned)(s[0] - '0') * 10u + (unsigned)(s[2] - '0'); }

/* Is the word w (n bytes, with its '.') in the blank-separated list? On a
 * match *min is its "@v.v/sm" suffix, or NULL. */
static int in_list(const char *list, const char *w, size_t n, const char **min) {
    for (const char *p = list; *p;) {
        while (*p == ' ') p++;
        const char *e = p;
        while (*e && *e != ' ' && *e != '@') e++;
        if ((size_t)(e - p) == n && !memcmp(p, w, n)) {
            *min = *e == '@' ? e + 1 : NULL;
            return 1;
        }
        while (*e && *e != ' ') e++;
        p = e;
    }
    return 0;
}

/* Does the target match one entry of the row's list (see cvt_forms.def)? */
static int target_ok(const char *list, unsigned ver, unsigned sm, char suffix) {
    for (const char *p = list; *p;) {
        while (*p == ' ') p++;
        unsigned v = 0;
        while (*p >= '0' && *p <= '9') v = v * 10 + (unsigned)(*p++ - '0');
        char suf = (*p == 'a' || *p == 'f') ? *p++ : 0;
        unsigned need = *p == '@' ? ver_of(p + 1) : 0;
        while (*p && *p != ' ') p++;
        if (need && ver < need) continue;
        if (suf ? sm == v && suffix == suf : sm >= v) return 1;
    }
    return 0;
}

static int is_rounding(const char *w, size_t n) {
    static const char *const r[] = {".rn", ".rz", ".rm", ".rp", ".rna", ".rs", ".rni", ".rzi", ".rmi", ".rpi"};
    for (size_t i = 0; i < sizeof r / sizeof r[0]; i++)
        if (strlen(r[i]) == n && !memcmp(r[i], w, n)) return 1;
    return 0;
}

static int pair_is(const char *a, size_t an, const char *name) { return strlen(name) == an && !memcmp(a, name, an); }

int ptx_cvt_check(const char *op, size_t n, unsigned ver, unsigned sm, char suffix, ptx_cvt_shape *shape, char *msg,
                  size_t msgn, const char **at) {
    /* the words after "cvt": the last two are the types */
    const char *w[16];
    size_t wn[16], nw = 0;
    ptx_mod_iter it = {memchr(op, '.', n), op + n}; /* ptx_mods_begin of the text */
    for (ptx_str m; nw < 16 && ptx_mods_next(&it, &m); nw++) {
        w[nw] = m.p;
        wn[nw] = m.n;
    }
    if (nw < 2) return 0;
    const char *dt = w[nw - 2] + 1, *st = w[nw - 1] + 1;
    size_t dn = wn[nw - 2] - 1, sn = wn[nw - 1] - 1;
    const char *rnd = NULL;
    size_t rn = 0;
    int relu_or_sat = 0;
    for (size_t i = 0; i + 2 < nw; i++) {
        if (is_rounding(w[i], wn[i]) && !rnd) rnd = w[i], rn = wn[i];
        if (pair_is(w[i], wn[i], ".relu") || pair_is(w[i], wn[i], ".satfinite")) relu_or_sat = 1;
    }
    /* f16/bf16 from f32 without .relu/.satfinite are classic conversions */
    if (!relu_or_sat && (pair_is(dt, dn, "f16") || pair_is(dt, dn, "bf16")) && pair_is(st, sn, "f32")) return 0;
    const cvt_row *any = NULL, *row = NULL;
    char rlist[64] = "";
    for (size_t i = 0; i < NROWS; i++) {
        if (!pair_is(dt, dn, rows[i].dst) || !pair_is(st, sn, rows[i].src)) continue;
        if (!any) any = &rows[i];
        size_t k = strlen(rlist);
        snprintf(rlist + k, sizeof rlist - k, "%s%s", k ? " " : "", rows[i].rnd);
        const char *min;
        if (rnd && !row && in_list(rows[i].rnd, rnd, rn, &min)) row = &rows[i];
    }
    if (!any) {
        /* a packed or narrow format with a partner no row has */
        static const char *const packed[] = {"f16x2", "bf16x2", "tf32", "e4m3x2", "e5m2x2", "e2m1x2", "e2m3x2",
                                             "e3m2x2", "ue8m0x2", "e4m3x4", "e5m2x4", "e2m3x4", "e3m2x4", "e2m1x4"};
        const char *f = NULL;
        for (size_t i = 0; i < sizeof packed / sizeof packed[0] && !f; i++)
            if (pair_is(dt, dn, packed[i]) || pair_is(st, sn, packed[i])) f = packed[i];
        if (!f) return 0;
        char list[200];
        size_t k = 0;
        list[0] = 0;
        for (size_t i = 0; i < NROWS && k + 24 < sizeof list; i++) {
            if (strcmp(rows[i].dst, f) && strcmp(rows[i].src, f)) continue;
            char one[32];
            snprintf(one, sizeof one, ".%s.%s", rows[i].dst, rows[i].src);
            const char *dup = strstr(list, one);
            if (dup && (dup[strlen(one)] == ' ' || !dup[strlen(one)])) continue;
            k += (size_t)snprintf(list + k, sizeof list - k, "%s%s", k ? " " : "", one);
        }
        snprintf(msg, msgn, "cvt has no conversion from .%.*s to .%.*s; the forms with .%s are %s", (int)sn, st,
                 (int)dn, dt, f, list);
        *at = w[nw - 2];
        return -1;
    }
    if (!rnd) {
        snprintf(msg, msgn, "'%.*s' needs a rounding modifier: one of %s", (int)n, op, rlist);
        *at = op;
        return -1;
    }
    if (!row) {
        snprintf(msg, msgn, "'%.*s' is not a rounding modifier of cvt.%.*s.%.*s; expected one of %s", (int)rn - 1,
                 rnd + 1, (int)dn, dt, (int)sn, st, rlist);
        *at = rnd;
        return -1;
    }
    for (size_t i = 0; i + 2 < nw; i++) {
        const char *min = NULL;
        if (w[i] == rnd) continue;
        if (is_rounding(w[i], wn[i])) {
            snprintf(msg, msgn, "more than one rounding modifier in '%.*s'", (int)n, op);
            *at = w[i];
            return -1;
        }
        if (!in_list(row->must, w[i], wn[i], &min) && !in_list(row->may, w[i], wn[i], &min)) {
            snprintf(msg, msgn, "'%.*s' is not a modifier of cvt%.*s.%.*s.%.*s; it takes %s%s%s", (int)wn[i] - 1,
                     w[i] + 1, (int)rn, rnd, (int)dn, dt, (int)sn, st, row->must, *row->must && *row->may ? " " : "",
                     *row->must || *row->may ? row->may : "no other");
            *at = w[i];
            return -1;
        }
        if (min) {
            unsigned v = ver_of(min), s = 0;
            for (const char *q = min + 4; *q >= '0' && *q <= '9'; q++) s = s * 10 + (unsigned)(*q - '0');
            if (ver < v || (s && sm < s)) {
                if (ver < v)
                    snprintf(msg, msgn, "'%.*s' on cvt%.*s.%.*s.%.*s requires PTX ISA %u.%u or later (the file is "
                             ".version %u.%u)", (int)wn[i], w[i], (int)rn, rnd, (int)dn, dt, (int)sn, st, v / 10,
                             v % 10, ver / 10, ver % 10);
                else
                    snprintf(msg, msgn, "'%.*s' on cvt%.*s.%.*s.%.*s requires sm_%u or higher (the .target is "
                             "sm_%u)", (int)wn[i], w[i], (int)rn, rnd, (int)dn, dt, (int)sn, st, s, sm);
                *at = w[i];
                return -1;
            }
        }
    }
    for (const char *m = row->must; *m;) {
        while (*m == ' ') m++;
        const char *me = m;
        while (*me && *me != ' ') me++;
        int found = 0;
        for (size_t i = 0; i + 2 < nw && !found; i++) found = wn[i] == (size_t)(me - m) && !memcmp(w[i], m, wn[i]);
        if (!found && me > m) {
            snprintf(msg, msgn, "'%.*s' needs %.*s", (int)n, op, (int)(me - m), m);
            *at = op;
            return -1;
        }
        m = me;
    }
    unsigned pv = ver_of(row->ptx);
    if (ver < pv) {
        snprintf(msg, msgn, "cvt%.*s.%.*s.%.*s requires PTX ISA %u.%u or later (the file is .version %u.%u)",
                 (int)rn, rnd, (int)dn, dt, (int)sn, st, pv / 10, pv % 10, ver / 10, ver % 10);
        *at = op;
        return -1;
    }
    if (sm && !target_ok(row->targets, ver, sm, suffix)) {
        char list[96], *o = list;
        /* the list as targets: "sm_89 (PTX ISA 8.1) sm_90", "sm_100a sm_103a" */
        for (const char *q = row->targets; *q && o < list + sizeof list - 24;) {
            while (*q == ' ') q++;
            const char *qe = q;
            while (*qe && *qe != ' ' && *qe != '@') qe++;
            o += snprintf(o, (size_t)(list + sizeof list - o), "%ssm_%.*s%s", o > list ? ", " : "", (int)(qe - q), q,
                          (*qe == '@' || (qe[-1] >= '0' && qe[-1] <= '9')) ? "+" : "");
            if (*qe == '@') o += snprintf(o, (size_t)(list + sizeof list - o), " with PTX ISA %.3s", qe + 1);
            while (*qe && *qe != ' ') qe++;
            q = qe;
        }
        snprintf(msg, msgn, "cvt%.*s.%.*s.%.*s is not available on .target sm_%u%s; it needs %s", (int)rn, rnd, (int)dn,
                 dt, (int)sn, st, sm, suffix == 'a' ? "a" : suffix == 'f' ? "f" : "", list);
        *at = op;
        return -1;
    }
    static const struct { const char *name; uint8_t bits; ptx_type t; } fmt[] = {
        {"f16", 16, PTX_T_F16}, {"bf16", 16, PTX_T_B16}, {"f16x2", 32, PTX_T_F16X2}, {"bf16x2", 32, PTX_T_B32},
        {"tf32", 32, PTX_T_B32}, {"f32", 32, PTX_T_F32}, {"e4m3x2", 16, PTX_T_B16}, {"e5m2x2", 16, PTX_T_B16},
        {"e2m1x2", 8, PTX_T_B8}, {"e2m3x2", 16, PTX_T_B16}, {"e3m2x2", 16, PTX_T_B16}, {"ue8m0x2", 16, PTX_T_B16},
        {"e4m3x4", 32, PTX_T_B32}, {"e5m2x4", 32, PTX_T_B32}, {"e2m3x4", 32, PTX_T_B32}, {"e3m2x4", 32, PTX_T_B32},
        {"e2m1x4", 16, PTX_T_B16},
    };
    memset(shape, 0, sizeof *shape);
    for (size_t i = 0; i < sizeof fmt / sizeof fmt[0]; i++) {
        if (!strcmp(fmt[i].name, row->dst)) shape->dbits = fmt[i].bits;
        if (!strcmp(fmt[i].name, row->src)) shape->src = fmt[i].t;
    }
    shape->nopd = (uint8_t)(row->shape[0] == 'V' ? 3 : row->shape[0] - '0');
    shape->vec4 = row->shape[0] == 'V';
    shape->rbits = row->shape[0] == 'V' || row->shape[0] == '4';
    return 1;
}
