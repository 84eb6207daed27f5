/* Kernel launches of CUDA host code through libclang (launches.h,
 * docs/launches.md).
 *
 * Every function definition of the scanned file (not of system headers or
 * ptxray's in-memory ones) is walked, and so is every instantiation of a
 * function template the file's code names: libclang shows template
 * patterns with dependent expressions, the instantiations with the
 * template arguments substituted, which is where a block shape built from
 * a template parameter becomes a constant.  A launch is a call with a
 * __cudaPushCallConfiguration child (what clang makes of `<<<...>>>`) or a
 * call of cudaLaunchKernel, cudaLaunchCooperativeKernel, cudaLaunchKernelEx
 * or cudaLaunchKernelExC.  A launch whose kernel operand is a function
 * pointer waits for the whole file to be walked (fp_resolve, below). */
#include "launches.h"
#include <stdlib.h>
#include <string.h>

const char *hc_via_text(enum hc_via v)
{
    static const char *const t[HC_NVIAS] = {"<<<>>>", "cudaLaunchKernel", "cudaLaunchKernelEx",
                                            "cudaLaunchCooperativeKernel"};
    return v < HC_NVIAS ? t[v] : "?";
}

static char *dup(const char *s)
{
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (!d) abort();
    memcpy(d, s, n);
    return d;
}

void hc_free(hc_result *r)
{
    for (size_t i = 0; i < r->nk; i++) {
        free(r->k[i].name);
        free(r->k[i].display);
        free(r->k[i].file);
        free(r->k[i].addr_taken);
        for (uint32_t j = 0; j < r->k[i].nparams; j++) free(r->k[i].params[j]);
        free(r->k[i].params);
    }
    for (size_t i = 0; i < r->nl; i++) {
        free(r->l[i].kernel);
        free(r->l[i].display);
        free(r->l[i].file);
        free(r->l[i].why);
        free(r->l[i].through);
        free(r->l[i].called_at);
    }
    for (size_t i = 0; i < r->nfiles; i++) {
        free(r->files[i]);
        free(r->file_first_error[i]);
        free(r->file_first_header_error[i]);
    }
    free(r->files);
    free(r->file_errors);
    free(r->file_first_error);
    free(r->file_header_errors);
    free(r->file_first_header_error);
    for (size_t i = 0; i < r->nv; i++) hc_var_free(&r->v[i]);
    free(r->v);
    free(r->k);
    free(r->l);
    memset(r, 0, sizeof *r);
}

void hc_var_free(hc_var *v)
{
    for (uint32_t i = 0; i < v->nf; i++) free(v->f[i].name);
    free(v->f);
    free(v->name);
    memset(v, 0, sizeof *v);
}

void hc_var_copy(hc_var *d, const hc_var *v)
{
    *d = *v;
    d->name = dup(v->name);
    d->f = malloc((v->nf ? v->nf : 1) * sizeof *d->f);
    if (!d->f) abort();
    for (uint32_t i = 0; i < v->nf; i++) {
        d->f[i] = v->f[i];
        d->f[i].name = dup(v->f[i].name);
    }
}

bool hc_var_path(const hc_var *v, uint64_t off, uint32_t bytes, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = 0;
    uint32_t node = 0;
    for (int depth = 0; node < v->nf && depth < 32; depth++) {
        const hc_field *f = &v->f[node];
        int w = 0;
        if (f->opaque) return false;
        if (f->count) { /* an array: the element off falls in */
            uint64_t es = f->size / f->count, i = es ? off / es : f->count;
            if (i >= f->count || f->nkids != 1) return false;
            w = snprintf(buf + len, n - len, "[%llu]", (unsigned long long)i);
            off -= i * es;
            node = f->first;
        } else if (f->record) { /* the field off falls in */
            uint32_t k = f->first, end = f->first + f->nkids;
            while (k < end && !(off >= v->f[k].off && off < v->f[k].off + v->f[k].size)) k++;
            if (k == end) return false; /* padding */
            w = snprintf(buf + len, n - len, ".%s", v->f[k].name);
            off -= v->f[k].off;
            node = k;
        } else /* a scalar: the load reads all of it */
            return off == 0 && bytes == f->size;
        if (w < 0 || (size_t)w >= n - len) return false;
        len += (size_t)w;
    }
    return false;
}

void hc_note_header_errors(const hc_result *r, const char *cmd, bool verbose, FILE *err)
{
    uint64_t n = 0;
    size_t files = 0;
    for (size_t i = 0; i < r->nfiles; i++)
        if (r->file_header_errors[i]) n += r->file_header_errors[i], files++;
    if (!n) return;
    fprintf(err,
            "ptxray %s: note: libclang reported %llu error%s in system headers (the CUDA toolkit's own, written "
            "for nvcc) in %zu file%s; the launches it could evaluate are reported%s\n",
            cmd, (unsigned long long)n, n == 1 ? "" : "s", files, files == 1 ? "" : "s",
            verbose ? ":" : "; --verbose lists them");
    if (verbose)
        for (size_t i = 0; i < r->nfiles; i++)
            if (r->file_header_errors[i])
                fprintf(err, "  %s: %u error%s (first: %s)\n", r->files[i], r->file_header_errors[i],
                        r->file_header_errors[i] == 1 ? "" : "s", r->file_first_header_error[i]);
}

#ifndef PTXRAY_NO_LIBCLANG
#include <clang-c/Index.h>
#include <libiberty/demangle.h>
#include "clang_dl.h"
#include "cuda_prelude.h"

bool hc_available(void) { return true; }

#define MAX_DEPTH 8  /* variables followed to their initialisers */
#define WHY 320

/* A launch whose kernel operand is not a kernel: resolved once the whole
 * file is walked (fp_resolve), when every call of a helper is known. */
typedef struct pending {
    CXCursor call, callee, barg;
    enum hc_via via;
    bool resolved; /* every target known: its reads of pointers are accounted for */
} pending;

/* A use of a kernel other than as a launch's kernel, in walk order: the
 * kernel's address_used_at unless a resolved launch accounts for it. */
typedef struct kuse {
    CXCursor ref;
    char *name, *at;
} kuse;

/* A variable or parameter a launch's kernel is read through (fv_get). */
typedef struct fvar fvar;

/* What a resolution passed through: a read of a pointer (a DeclRefExpr or
 * ArraySubscriptExpr) or a kernel's name, and where its value goes: into
 * fvar dest, or (dest -1) into pending launch p's kernel operand. */
typedef struct fmark {
    CXCursor c;
    int dest, p;
} fmark;

typedef struct scan {
    CXTranslationUnit tu;
    hc_result *r;
    const char *path;      /* as given */
    char **done;           /* instantiations walked (mangled names) */
    size_t ndone, capdone;
    pending *pend;         /* launches through function pointers */
    size_t npend, cappend;
    CXCursor *calls;       /* every call of the walked code */
    size_t ncalls, capcalls;
    CXCursor *frefs;       /* every name of a (non-kernel) function in the walked code */
    size_t nfrefs, capfrefs;
    kuse *kuses;
    size_t nkuses, capkuses;
    fvar *fv;
    size_t nfv, capfv;
    fmark *marks;
    size_t nmarks, capmarks;
} scan;

/* Appends one element to a growable array of the scan. */
#define PUSH(arr, n, cap, val)                                                                                       \
    do {                                                                                                           \
        if ((n) == (cap)) {                                                                                        \
            (cap) = (cap) ? 2 * (cap) : 16;                                                                        \
            (arr) = realloc((arr), (cap) * sizeof *(arr));                                                         \
            if (!(arr)) abort();                                                                                   \
        }                                                                                                          \
        (arr)[(n)++] = (val);                                                                                      \
    } while (0)

/* ---- small libclang helpers ---- */

static char *take(CXString s)
{
    char *d = dup(clang_getCString(s) ? clang_getCString(s) : "");
    clang_disposeString(s);
    return d;
}

static void pos(CXCursor c, CXFile *f, unsigned *line, unsigned *col, unsigned *off)
{
    clang_getExpansionLocation(clang_getCursorLocation(c), f, line, col, off);
}

/* A file ptxray scans: not a system header, not one of ptxray's own. */
static bool user_code(CXCursor c)
{
    CXSourceLocation l = clang_getCursorLocation(c);
    if (clang_Location_isInSystemHeader(l)) return false;
    CXFile f;
    clang_getExpansionLocation(l, &f, NULL, NULL, NULL);
    if (!f) return false;
    char *n = take(clang_getFileName(f));
    bool ours = !strncmp(n, HC_OVERLAY_DIR, strlen(HC_OVERLAY_DIR));
    free(n);
    return !ours;
}

/* The file name to show for a location: the path given for the main file. */
static char *file_name(scan *s, CXFile f)
{
    if (!f) return dup("<unknown>");
    CXFile m = clang_getFile(s->tu, s->path);
    if (m && clang_File_isEqual(m, f)) return dup(s->path);
    return take(clang_getFileName(f));
}

/* The source text of c's extent, blanks collapsed, at most 60 bytes. */
static void text_of(scan *s, CXCursor c, char *buf, size_t n)
{
    buf[0] = 0;
    CXSourceRange r = clang_getCursorExtent(c);
    CXFile f1, f2;
    unsigned o1, o2;
    clang_getSpellingLocation(clang_getRangeStart(r), &f1, NULL, NULL, &o1);
    clang_getSpellingLocation(clang_getRangeEnd(r), &f2, NULL, NULL, &o2);
    if (!f1 || !f2 || !clang_File_isEqual(f1, f2) || o2 < o1) {
        char *sp = take(clang_getCursorSpelling(c));
        snprintf(buf, n, "%s", sp);
        free(sp);
        return;
    }
    size_t size;
    const char *t = clang_getFileContents(s->tu, f1, &size);
    if (!t || o2 > size) return;
    size_t k = 0;
    bool blank = false;
    for (unsigned i = o1; i < o2 && k + 4 < n; i++) {
        char ch = t[i];
        if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r') {
            blank = k > 0;
            continue;
        }
        if (blank) buf[k++] = ' ';
        blank = false;
        buf[k++] = ch;
        if (k >= 60) {
            memcpy(buf + k, "...", 3);
            k += 3;
            break;
        }
    }
    buf[k] = 0;
}

typedef struct kids {
    CXCursor v[16];
    unsigned n;
} kids;

static enum CXChildVisitResult collect(CXCursor c, CXCursor p, CXClientData d)
{
    (void)p;
    kids *k = d;
    if (k->n < 16) k->v[k->n++] = c;
    return CXChildVisit_Continue;
}

static kids children(CXCursor c)
{
    kids k;
    k.n = 0;
    clang_visitChildren(c, collect, &k);
    return k;
}

static bool is_expr(CXCursor c) { return clang_isExpression(clang_getCursorKind(c)) != 0; }

/* Through implicit conversions, parentheses, casts and temporaries. */
static CXCursor unwrap(CXCursor c)
{
    for (int guard = 0; guard < 32; guard++) {
        enum CXCursorKind k = clang_getCursorKind(c);
        if (k != CXCursor_UnexposedExpr && k != CXCursor_ParenExpr && k != CXCursor_CStyleCastExpr &&
            k != CXCursor_CXXFunctionalCastExpr && k != CXCursor_CXXStaticCastExpr &&
            k != CXCursor_CXXReinterpretCastExpr && k != CXCursor_CXXConstCastExpr)
            return c;
        kids ch = children(c);
        CXCursor next = clang_getNullCursor();
        for (unsigned i = 0; i < ch.n; i++)
            if (is_expr(ch.v[i])) next = ch.v[i];
        if (clang_Cursor_isNull(next)) return c;
        c = next;
    }
    return c;
}

static bool type_is(CXType t, const char *name)
{
    char *sp = take(clang_getTypeSpelling(clang_getCanonicalType(t)));
    bool eq = !strcmp(sp, name) || !strcmp(sp, name + (strncmp(name, "const ", 6) ? 0 : 6));
    if (!eq && !strncmp(sp, "const ", 6)) eq = !strcmp(sp + 6, name);
    if (!eq && !strncmp(sp, "struct ", 7)) eq = !strcmp(sp + 7, name);
    free(sp);
    return eq;
}

static bool is_integer(CXType t)
{
    enum CXTypeKind k = clang_getCanonicalType(t).kind;
    return (k >= CXType_Bool && k <= CXType_Int128) || k == CXType_Enum;
}

/* ---- kernels ---- */

/* The PTX name of a kernel from its host-side mangled name: clang mangles
 * the host stub, "_Z16__device_stub__kPf" for k(float*). */
static char *unstub(const char *m)
{
    static const char stub[] = "__device_stub__";
    const size_t sl = sizeof stub - 1;
    const char *p = strstr(m, stub);
    if (!p) return NULL;
    char *out = malloc(strlen(m) + 1);
    if (!out) abort();
    if (p == m) { /* extern "C" */
        strcpy(out, m + sl);
        return out;
    }
    const char *d = p;
    while (d > m && d[-1] >= '0' && d[-1] <= '9') d--;
    if (d == p) {
        free(out);
        return NULL;
    }
    unsigned long len = strtoul(d, NULL, 10);
    if (len <= sl) {
        free(out);
        return NULL;
    }
    size_t k = (size_t)(d - m);
    memcpy(out, m, k);
    k += (size_t)sprintf(out + k, "%lu", len - sl);
    strcpy(out + k, p + sl);
    return out;
}

static enum CXChildVisitResult find_global(CXCursor c, CXCursor p, CXClientData d)
{
    (void)p;
    if (clang_getCursorKind(c) != CXCursor_CUDAGlobalAttr) return CXChildVisit_Continue;
    *(bool *)d = true;
    return CXChildVisit_Break;
}

/* The PTX name of a function declaration when it is a kernel, else NULL. */
static char *kernel_name(CXCursor fn)
{
    enum CXCursorKind k = clang_getCursorKind(fn);
    if (k != CXCursor_FunctionDecl) return NULL;
    bool global = false;
    clang_visitChildren(fn, find_global, &global);
    if (!global) return NULL;
    char *m = take(clang_Cursor_getMangling(fn));
    char *n = unstub(m);
    if (!n) return m; /* extern "C": the plain name */
    free(m);
    return n;
}

static char *demangle(const char *name)
{
    if (strncmp(name, "_Z", 2)) return dup(name);
    /* libiberty's demangler (the one ptxparse/demangle.c uses), with the
     * flags of the C++ runtime's __cxa_demangle */
    char *d = cplus_demangle(name, DMGL_PARAMS | DMGL_TYPES);
    return d ? d : dup(name);
}

static hc_kernel *find_kernel(hc_result *r, const char *name)
{
    for (size_t i = 0; i < r->nk; i++)
        if (!strcmp(r->k[i].name, name)) return &r->k[i];
    return NULL;
}

static hc_kernel *add_kernel(hc_result *r, const char *name)
{
    hc_kernel *k = find_kernel(r, name);
    if (k) return k;
    if (r->nk == r->capk) {
        r->capk = r->capk ? 2 * r->capk : 16;
        r->k = realloc(r->k, r->capk * sizeof *r->k);
        if (!r->k) abort();
    }
    k = &r->k[r->nk++];
    memset(k, 0, sizeof *k);
    k->name = dup(name);
    k->display = demangle(name);
    return k;
}

/* An integer literal token, or a macro whose definition is one. */
static bool token_value(scan *s, CXToken t, uint32_t *v)
{
    char *sp = take(clang_getTokenSpelling(s->tu, t));
    bool ok = false;
    if (clang_getTokenKind(t) == CXToken_Literal) {
        char *e;
        unsigned long x = strtoul(sp, &e, 0);
        while (*e == 'u' || *e == 'U' || *e == 'l' || *e == 'L') e++;
        ok = !*e && x <= 0xffffffffu;
        *v = (uint32_t)x;
    } else if (clang_getTokenKind(t) == CXToken_Identifier) {
        CXCursor c = clang_getCursor(s->tu, clang_getTokenLocation(s->tu, t));
        if (clang_getCursorKind(c) == CXCursor_MacroExpansion) {
            CXCursor d = clang_getCursorReferenced(c);
            CXToken *dt;
            unsigned n;
            clang_tokenize(s->tu, clang_getCursorExtent(d), &dt, &n);
            if (n == 2) ok = token_value(s, dt[1], v);
            clang_disposeTokens(s->tu, dt, n);
        }
    }
    free(sp);
    return ok;
}

/* __launch_bounds__(MAX[, MIN[, ...]]) in the declaration's tokens. */
static void launch_bounds(scan *s, CXCursor fn, hc_kernel *k)
{
    /* from the start of the declaration to its name, as written (the
     * extent starts in the expansion of __global__, which clang_tokenize
     * does not take) */
    CXFile f, nf;
    unsigned line, col, nline, ncol;
    clang_getExpansionLocation(clang_getRangeStart(clang_getCursorExtent(fn)), &f, &line, &col, NULL);
    clang_getExpansionLocation(clang_getCursorLocation(fn), &nf, &nline, &ncol, NULL);
    if (!f || !nf || !clang_File_isEqual(f, nf)) return;
    CXToken *t;
    unsigned n;
    clang_tokenize(s->tu, clang_getRange(clang_getLocation(s->tu, f, line, col), clang_getLocation(s->tu, nf, nline, ncol)),
                   &t, &n);
    for (unsigned i = 0; i + 3 < n; i++) {
        char *sp = take(clang_getTokenSpelling(s->tu, t[i]));
        bool lb = !strcmp(sp, "__launch_bounds__");
        bool body = !strcmp(sp, "{");
        free(sp);
        if (body) break;
        if (!lb) continue;
        uint32_t v[2] = {0, 0};
        unsigned a = 0, ntok = 0;
        for (unsigned j = i + 2; j < n && a < 2; j++) {
            char *q = take(clang_getTokenSpelling(s->tu, t[j]));
            bool end = !strcmp(q, ")"), comma = !strcmp(q, ",");
            free(q);
            if (end) break;
            if (comma) {
                a++;
                ntok = 0;
                continue;
            }
            uint32_t x; /* one literal or macro; an expression of several tokens is not read */
            v[a] = !ntok++ && token_value(s, t[j], &x) ? x : 0;
        }
        k->max_threads = v[0];
        k->min_blocks = v[1];
        break;
    }
    clang_disposeTokens(s->tu, t, n);
}

/* The names of fn's parameters (a definition's win over a declaration's,
 * which may leave them out): what messages call NAME_param_i. */
static void kernel_params(hc_kernel *k, CXCursor fn, bool replace)
{
    int n = clang_Cursor_getNumArguments(fn);
    if (n < 0 || (k->params && !replace)) return;
    for (uint32_t j = 0; j < k->nparams; j++) free(k->params[j]);
    free(k->params);
    k->params = calloc((size_t)n + 1, sizeof *k->params);
    if (!k->params) abort();
    k->nparams = (uint32_t)n;
    for (int j = 0; j < n; j++) k->params[j] = take(clang_getCursorSpelling(clang_Cursor_getArgument(fn, (unsigned)j)));
}

static void declared_kernel(scan *s, CXCursor fn)
{
    char *name = kernel_name(fn);
    if (!name) return;
    hc_kernel *k = add_kernel(s->r, name);
    free(name);
    if (!k->file || clang_isCursorDefinition(fn)) {
        CXFile f;
        unsigned line, col, off;
        pos(fn, &f, &line, &col, &off);
        free(k->file);
        k->file = file_name(s, f);
        k->line = line;
    }
    kernel_params(k, fn, clang_isCursorDefinition(fn));
    if (!k->max_threads) launch_bounds(s, fn, k);
}

/* ---- evaluation ---- */

typedef struct ev {
    scan *s;
    char why[WHY];
    /* a launch through a function-pointer parameter of env_fn, evaluated
     * for one call of it: env_fn's parameters are that call's arguments */
    bool env;
    CXCursor env_fn, env_call;
} ev;

static void why(ev *e, const char *fmt, const char *a, const char *b)
{
    if (e->why[0]) return; /* the innermost reason stays */
    snprintf(e->why, sizeof e->why, fmt, a, b ? b : "");
}

typedef struct uses {
    CXCursor var;
    const char *text;
    size_t size;
    unsigned assigned_line; /* 0: never */
    bool address;
} uses;

/* Whether the reference ref (a use of u->var) writes it: an assignment or
 * increment of it or of a member, or its address taken. */
static void classify(uses *u, CXCursor ref)
{
    CXSourceRange r = clang_getCursorExtent(ref);
    CXFile f;
    unsigned o1, o2, line;
    clang_getSpellingLocation(clang_getRangeStart(r), &f, &line, NULL, &o1);
    clang_getSpellingLocation(clang_getRangeEnd(r), NULL, NULL, NULL, &o2);
    const char *t = u->text;
    size_t n = u->size;
    if (!t || o2 > n) return;
    size_t i = o2;
    for (;;) { /* .member, ->member, [index] */
        while (i < n && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n')) i++;
        if (i < n && t[i] == '.') i++;
        else if (i + 1 < n && t[i] == '-' && t[i + 1] == '>') i += 2;
        else break;
        while (i < n && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n')) i++;
        while (i < n && (t[i] == '_' || (t[i] >= 'a' && t[i] <= 'z') || (t[i] >= 'A' && t[i] <= 'Z') ||
                         (t[i] >= '0' && t[i] <= '9')))
            i++;
    }
    bool w = false;
    if (i < n) {
        char c0 = t[i], c1 = i + 1 < n ? t[i + 1] : 0, c2 = i + 2 < n ? t[i + 2] : 0;
        if (c0 == '=' && c1 != '=') w = true;
        else if (strchr("+-*/%&|^", c0) && c0 && c1 == '=') w = true;
        else if ((c0 == '+' && c1 == '+') || (c0 == '-' && c1 == '-')) w = true;
        else if ((c0 == '<' || c0 == '>') && c1 == c0 && c2 == '=') w = true;
    }
    size_t j = o1;
    while (j > 0 && (t[j - 1] == ' ' || t[j - 1] == '\t' || t[j - 1] == '\n')) j--;
    if (j >= 2 && ((t[j - 1] == '+' && t[j - 2] == '+') || (t[j - 1] == '-' && t[j - 2] == '-'))) w = true;
    if (j >= 1 && t[j - 1] == '&' && (j < 2 || t[j - 2] != '&')) u->address = true;
    if (w && !u->assigned_line) u->assigned_line = line;
}

static enum CXChildVisitResult find_uses(CXCursor c, CXCursor p, CXClientData d)
{
    (void)p;
    uses *u = d;
    if (clang_getCursorKind(c) == CXCursor_DeclRefExpr &&
        clang_equalCursors(clang_getCursorReferenced(c), u->var))
        classify(u, c);
    return CXChildVisit_Recurse;
}

/* Whether a local variable is written after its declaration, in the
 * function it belongs to. */
static void var_uses(ev *e, CXCursor var, uses *u)
{
    memset(u, 0, sizeof *u);
    u->var = var;
    CXCursor fn = clang_getCursorSemanticParent(var);
    enum CXCursorKind k = clang_getCursorKind(fn);
    if (k == CXCursor_TranslationUnit || k == CXCursor_Namespace) return; /* a global: const checked by the caller */
    CXFile f;
    clang_getSpellingLocation(clang_getCursorLocation(var), &f, NULL, NULL, NULL);
    if (!f) return;
    u->text = clang_getFileContents(e->s->tu, f, &u->size);
    clang_visitChildren(fn, find_uses, u);
}

static CXCursor initializer(CXCursor var)
{
    kids ch = children(var);
    CXCursor init = clang_getNullCursor();
    for (unsigned i = 0; i < ch.n; i++)
        if (is_expr(ch.v[i])) init = ch.v[i];
    return init;
}

static char *owner_name(CXCursor c)
{
    return take(clang_getCursorSpelling(clang_getCursorSemanticParent(c)));
}

/* The position of parameter parm of function fn; -1 if none. */
static int param_index(CXCursor fn, CXCursor parm)
{
    int n = clang_Cursor_getNumArguments(fn);
    for (int i = 0; i < n; i++)
        if (clang_equalCursors(clang_Cursor_getArgument(fn, (unsigned)i), parm)) return i;
    return -1;
}

/* A variable's value through its initialiser (a parameter's: the
 * argument of e's call, where e has one): NULL-cursor with e->why set
 * when it cannot be followed. */
static CXCursor follow_var(ev *e, CXCursor ref, CXCursor var)
{
    char *name = take(clang_getCursorSpelling(var));
    CXCursor out = clang_getNullCursor();
    int pi = -1;
    if (clang_getCursorKind(var) == CXCursor_ParmDecl && e->env &&
        clang_equalCursors(clang_getCursorSemanticParent(var), e->env_fn) &&
        (pi = param_index(e->env_fn, var)) >= 0 && pi < clang_Cursor_getNumArguments(e->env_call)) {
        /* the argument of the call the launch is evaluated for, unless the
         * helper writes its parameter */
        uses u;
        var_uses(e, var, &u);
        char at[32];
        if (u.assigned_line) {
            snprintf(at, sizeof at, "%u", u.assigned_line);
            why(e, "'%s' is assigned at line %s", name, at);
        } else if (u.address) why(e, "the address of '%s' is taken", name, NULL);
        else out = clang_Cursor_getArgument(e->env_call, (unsigned)pi);
    } else if (clang_getCursorKind(var) == CXCursor_ParmDecl) {
        char *fn = owner_name(var);
        why(e, "'%s' is a parameter of '%s', given by its callers", name, fn);
        free(fn);
    } else if (clang_getCursorKind(var) != CXCursor_VarDecl) {
        char buf[96];
        text_of(e->s, ref, buf, sizeof buf);
        why(e, "'%s' is not a compile-time constant", buf, NULL);
    } else {
        uses u;
        var_uses(e, var, &u);
        CXCursor fn = clang_getCursorSemanticParent(var);
        enum CXCursorKind pk = clang_getCursorKind(fn);
        bool global = pk == CXCursor_TranslationUnit || pk == CXCursor_Namespace;
        bool isconst = clang_isConstQualifiedType(clang_getCursorType(var));
        char at[32];
        if (global && !isconst) why(e, "'%s' is a non-const global variable", name, NULL);
        else if (u.assigned_line) {
            snprintf(at, sizeof at, "%u", u.assigned_line);
            why(e, "'%s' is assigned at line %s", name, at);
        } else if (u.address) why(e, "the address of '%s' is taken", name, NULL);
        else {
            out = initializer(var);
            if (clang_Cursor_isNull(out)) {
                if (type_is(clang_getCursorType(var), "dim3")) out = var; /* dim3 b; is 1,1,1 */
                else why(e, "'%s' has no initialiser", name, NULL);
            }
        }
    }
    free(name);
    return out;
}

static bool eval_int(ev *e, CXCursor c, int depth, int64_t *v)
{
    CXEvalResult r = clang_Cursor_Evaluate(c);
    if (r) {
        bool ok = clang_EvalResult_getKind(r) == CXEval_Int;
        if (ok) *v = clang_EvalResult_getAsLongLong(r);
        clang_EvalResult_dispose(r);
        if (ok) return true;
    }
    CXCursor u = unwrap(c);
    if (clang_getCursorKind(u) == CXCursor_DeclRefExpr && depth < MAX_DEPTH) {
        CXCursor var = clang_getCursorReferenced(u);
        CXCursor init = follow_var(e, u, var);
        if (!clang_Cursor_isNull(init) && !clang_equalCursors(init, var)) {
            if (eval_int(e, init, depth + 1, v)) return true;
            /* a parameter bound to a call's argument (ev.env): the
             * argument's own reason, which names it */
            if (clang_getCursorKind(var) == CXCursor_ParmDecl) return false;
            char *name = take(clang_getCursorSpelling(var));
            char buf[96];
            text_of(e->s, init, buf, sizeof buf);
            e->why[0] = 0;
            why(e, "'%s' is computed at run time: %s", name, buf);
            free(name);
        }
        return false;
    }
    char buf[96];
    text_of(e->s, c, buf, sizeof buf);
    why(e, "computed at run time: %s", buf, NULL);
    return false;
}

static bool eval_dim3(ev *e, CXCursor c, int depth, uint32_t out[3])
{
    for (int guard = 0; guard < 32; guard++) {
        c = unwrap(c);
        CXType t = clang_getCursorType(c);
        enum CXCursorKind k = clang_getCursorKind(c);
        if (k == CXCursor_VarDecl) { /* dim3 b; */
            out[0] = out[1] = out[2] = 1;
            return true;
        }
        if (!type_is(t, "dim3") && !type_is(t, "uint3")) {
            int64_t v;
            if (!is_integer(t)) {
                char buf[96];
                text_of(e->s, c, buf, sizeof buf);
                why(e, "not a block shape ptxray can evaluate: %s", buf, NULL);
                return false;
            }
            if (!eval_int(e, c, depth, &v)) return false;
            out[0] = (uint32_t)v;
            out[1] = out[2] = 1;
            return v >= 0 && v <= 0xffffffff;
        }
        if (k == CXCursor_DeclRefExpr) {
            if (depth >= MAX_DEPTH) return false;
            CXCursor var = clang_getCursorReferenced(c);
            CXCursor init = follow_var(e, c, var);
            if (clang_Cursor_isNull(init)) return false;
            c = init;
            depth++;
            continue;
        }
        if (k == CXCursor_CallExpr) {
            int n = clang_Cursor_getNumArguments(c);
            if (n == 1) {
                CXCursor a = clang_Cursor_getArgument(c, 0);
                if (type_is(clang_getCursorType(a), "dim3") || type_is(clang_getCursorType(a), "uint3")) {
                    c = a;
                    continue;
                }
            }
            if (n >= 1 && n <= 3) {
                for (int i = 0; i < 3; i++) {
                    int64_t v = 1;
                    if (i < n && !eval_int(e, clang_Cursor_getArgument(c, (unsigned)i), depth, &v)) return false;
                    if (v < 0 || v > 0xffffffff) {
                        why(e, "an extent out of range", NULL, NULL);
                        return false;
                    }
                    out[i] = (uint32_t)v;
                }
                return true;
            }
            if (n == 0) {
                kids ch = children(c);
                if (ch.n == 1 && is_expr(ch.v[0])) {
                    c = ch.v[0];
                    continue;
                }
                out[0] = out[1] = out[2] = 1;
                return true;
            }
        }
        if (k == CXCursor_InitListExpr) {
            kids ch = children(c);
            for (int i = 0; i < 3; i++) {
                int64_t v = 1;
                if ((unsigned)i < ch.n && !eval_int(e, ch.v[i], depth, &v)) return false;
                out[i] = (uint32_t)v;
            }
            return true;
        }
        char buf[96];
        text_of(e->s, c, buf, sizeof buf);
        why(e, "not a compile-time constant: %s", buf, NULL);
        return false;
    }
    return false;
}

/* cfg.blockDim = X or the initialiser of cfg (a cudaLaunchConfig_t). */
typedef struct cfg_find {
    CXCursor var;
    CXCursor rhs[4];
    unsigned n;
    unsigned line;
} cfg_find;

static bool refers_to(CXCursor c, CXCursor var)
{
    c = unwrap(c);
    return clang_getCursorKind(c) == CXCursor_DeclRefExpr && clang_equalCursors(clang_getCursorReferenced(c), var);
}

static enum CXChildVisitResult find_blockdim(CXCursor c, CXCursor p, CXClientData d)
{
    (void)p;
    cfg_find *f = d;
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k != CXCursor_CallExpr && k != CXCursor_BinaryOperator) return CXChildVisit_Recurse;
    CXCursor lhs, rhs;
    if (k == CXCursor_CallExpr) {
        char *sp = take(clang_getCursorSpelling(c));
        bool assign = !strcmp(sp, "operator=");
        free(sp);
        if (!assign || clang_Cursor_getNumArguments(c) != 2) return CXChildVisit_Recurse;
        lhs = clang_Cursor_getArgument(c, 0);
        rhs = clang_Cursor_getArgument(c, 1);
    } else {
        kids ch = children(c);
        if (ch.n != 2) return CXChildVisit_Recurse;
        lhs = ch.v[0];
        rhs = ch.v[1];
    }
    lhs = unwrap(lhs);
    if (clang_getCursorKind(lhs) != CXCursor_MemberRefExpr) return CXChildVisit_Recurse;
    char *m = take(clang_getCursorSpelling(lhs));
    bool bd = !strcmp(m, "blockDim");
    free(m);
    kids base = children(lhs);
    if (bd && base.n >= 1 && refers_to(base.v[0], f->var) && f->n < 4) {
        f->rhs[f->n++] = rhs;
        unsigned line;
        clang_getExpansionLocation(clang_getCursorLocation(c), NULL, &line, NULL, NULL);
        f->line = line;
    }
    return CXChildVisit_Continue;
}

static bool eval_config(ev *e, CXCursor cfg, uint32_t out[3])
{
    cfg = unwrap(cfg);
    if (clang_getCursorKind(cfg) == CXCursor_UnaryOperator) {
        kids ch = children(cfg);
        if (ch.n == 1) cfg = unwrap(ch.v[0]);
    }
    if (clang_getCursorKind(cfg) != CXCursor_DeclRefExpr) {
        char buf[96];
        text_of(e->s, cfg, buf, sizeof buf);
        why(e, "the launch configuration is not a local variable: %s", buf, NULL);
        return false;
    }
    CXCursor var = clang_getCursorReferenced(cfg);
    char *name = take(clang_getCursorSpelling(var));
    cfg_find f = {.var = var};
    CXCursor fn = clang_getCursorSemanticParent(var);
    if (clang_getCursorKind(var) == CXCursor_VarDecl) clang_visitChildren(fn, find_blockdim, &f);
    bool ok = false;
    if (f.n > 1) why(e, "'%s.blockDim' is assigned more than once", name, NULL);
    else if (f.n == 1) ok = eval_dim3(e, f.rhs[0], 0, out);
    else {
        CXCursor init = clang_getCursorKind(var) == CXCursor_VarDecl ? initializer(var) : clang_getNullCursor();
        if (!clang_Cursor_isNull(init) && clang_getCursorKind(unwrap(init)) == CXCursor_InitListExpr) {
            kids ch = children(unwrap(init));
            if (ch.n >= 2) ok = eval_dim3(e, ch.v[1], 0, out); /* {gridDim, blockDim, ...} */
            else why(e, "'%s' is initialised without a blockDim", name, NULL);
        } else why(e, "'%s.blockDim' is not set in the function of the launch", name, NULL);
    }
    free(name);
    return ok;
}

/* ---- launches ---- */

static hc_launch *new_launch(scan *s, CXCursor call, enum hc_via via)
{
    hc_result *r = s->r;
    if (r->nl == r->capl) {
        r->capl = r->capl ? 2 * r->capl : 16;
        r->l = realloc(r->l, r->capl * sizeof *r->l);
        if (!r->l) abort();
    }
    hc_launch *l = &r->l[r->nl++];
    memset(l, 0, sizeof *l);
    CXFile f;
    unsigned line, col, off;
    pos(call, &f, &line, &col, &off);
    l->file = file_name(s, f);
    l->line = line;
    l->col = col;
    l->via = (uint8_t)via;
    return l;
}

/* The kernel a launch's kernel operand names directly (kernel, &kernel,
 * (void *)kernel): its declaration, its PTX name in *name; else a null
 * cursor and NULL. */
static CXCursor direct_kernel(CXCursor callee, char **name)
{
    CXCursor k = unwrap(callee);
    if (clang_getCursorKind(k) == CXCursor_UnaryOperator) { /* &kernel */
        kids ch = children(k);
        if (ch.n == 1) k = unwrap(ch.v[0]);
    }
    CXCursor d = clang_getCursorKind(k) == CXCursor_DeclRefExpr ? clang_getCursorReferenced(k) : clang_getNullCursor();
    *name = clang_Cursor_isNull(d) ? NULL : kernel_name(d);
    return *name ? d : clang_getNullCursor();
}

/* l launches kernel d (name, taken), at block b when known, else for the
 * reason whytext. */
static void launch_kernel(scan *s, hc_launch *l, CXCursor d, char *name, bool known, const uint32_t b[3],
                          const char *whytext)
{
    hc_result *r = s->r;
    hc_kernel *hk = add_kernel(r, name);
    if (!hk->file && user_code(d)) { /* an instantiation of a kernel template: where the template is */
        CXFile df;
        unsigned dl, dc, doff;
        pos(d, &df, &dl, &dc, &doff);
        hk->file = file_name(s, df);
        hk->line = dl;
    }
    if (!hk->max_threads && user_code(d)) launch_bounds(s, d, hk);
    kernel_params(hk, d, false); /* an instantiation's, as its template names them */
    l->kernel = name;
    l->display = dup(hk->display);
    l->known = known;
    if (known) memcpy(l->block, b, sizeof l->block);
    else l->why = dup(whytext);
    if (l->known) {
        uint64_t t = (uint64_t)b[0] * b[1] * b[2];
        if (!b[0] || !b[1] || !b[2] || t > 1024) {
            char w[WHY];
            snprintf(w, sizeof w, "evaluates to %ux%ux%u, not a valid block (1 to 1024 threads)", b[0], b[1], b[2]);
            l->known = false;
            l->why = dup(w);
        }
    }
}

/* The block shape of a launch (barg: its block argument, or the
 * configuration of cudaLaunchKernelEx; a null cursor: none). */
static bool eval_block(ev *e, enum hc_via via, CXCursor barg, uint32_t b[3])
{
    if (clang_Cursor_isNull(barg)) return false;
    return via == HC_LAUNCH_KERNEL_EX ? eval_config(e, barg, b) : eval_dim3(e, barg, 0, b);
}

/* A launch of a kernel named directly gets its shape now; one through a
 * function pointer waits for the whole file (fp_resolve). */
static void add_launch(scan *s, CXCursor call, CXCursor callee, enum hc_via via, CXCursor barg)
{
    char *name;
    CXCursor d = direct_kernel(callee, &name);
    if (!name) {
        pending p = {.call = call, .callee = callee, .barg = barg, .via = via, .resolved = false};
        PUSH(s->pend, s->npend, s->cappend, p);
        return;
    }
    ev e = {.s = s};
    uint32_t b[3] = {0, 0, 0};
    bool known = eval_block(&e, via, barg, b);
    launch_kernel(s, new_launch(s, call, via), d, name, known, b, e.why);
}

static void walk(scan *s, CXCursor fn);

static bool callee_named(CXCursor call, char *out, size_t n)
{
    CXCursor d = clang_getCursorReferenced(call);
    if (clang_Cursor_isNull(d)) return false;
    char *sp = take(clang_getCursorSpelling(d));
    snprintf(out, n, "%s", sp);
    free(sp);
    return true;
}

typedef struct walker {
    scan *s;
    CXCursor skip[2]; /* a launch's kernel operand: not a function-pointer use */
    bool query;       /* in the arguments of cudaFunc*, cudaOccupancy*: not launches either */
} walker;

static enum CXChildVisitResult visit(CXCursor c, CXCursor p, CXClientData d);

static void visit_except(walker *w, CXCursor c, CXCursor skip)
{
    walker sub = *w;
    sub.skip[0] = skip;
    sub.skip[1] = unwrap(skip);
    clang_visitChildren(c, visit, &sub);
}

static void launch(walker *w, CXCursor call)
{
    scan *s = w->s;
    kids ch = children(call);
    for (unsigned i = 0; i < ch.n; i++) {
        if (clang_getCursorKind(ch.v[i]) != CXCursor_CallExpr) continue;
        char *sp = take(clang_getCursorSpelling(ch.v[i]));
        bool cfg = !strcmp(sp, "__cudaPushCallConfiguration") || !strcmp(sp, "cudaConfigureCall");
        free(sp);
        if (!cfg || i == 0) continue;
        CXCursor barg = clang_Cursor_getNumArguments(ch.v[i]) >= 2 ? clang_Cursor_getArgument(ch.v[i], 1)
                                                                   : clang_getNullCursor();
        add_launch(s, call, ch.v[0], HC_CHEVRONS, barg);
        visit_except(w, call, ch.v[0]);
        return;
    }
    char name[128];
    if (!callee_named(call, name, sizeof name)) {
        clang_visitChildren(call, visit, w);
        return;
    }
    if (!strncmp(name, "cudaFunc", 8) || !strncmp(name, "cudaOccupancy", 13)) {
        walker sub = *w;
        sub.query = true;
        clang_visitChildren(call, visit, &sub);
        return;
    }
    int n = clang_Cursor_getNumArguments(call);
    enum hc_via via = HC_NVIAS;
    int kernel_arg = 0, block_arg = 2;
    if (!strcmp(name, "cudaLaunchKernel")) via = HC_LAUNCH_KERNEL;
    else if (!strcmp(name, "cudaLaunchCooperativeKernel")) via = HC_LAUNCH_COOPERATIVE;
    else if (!strcmp(name, "cudaLaunchKernelEx") || !strcmp(name, "cudaLaunchKernelExC")) {
        via = HC_LAUNCH_KERNEL_EX;
        kernel_arg = 1;
        block_arg = 0;
    }
    if (via == HC_NVIAS || n <= block_arg || n <= kernel_arg) {
        clang_visitChildren(call, visit, w);
        return;
    }
    CXCursor barg = clang_Cursor_getArgument(call, (unsigned)block_arg);
    CXCursor karg = clang_Cursor_getArgument(call, (unsigned)kernel_arg);
    add_launch(s, call, karg, via, barg);
    visit_except(w, call, karg);
}

static bool done_before(scan *s, const char *m)
{
    for (size_t i = 0; i < s->ndone; i++)
        if (!strcmp(s->done[i], m)) return true;
    if (s->ndone == s->capdone) {
        s->capdone = s->capdone ? 2 * s->capdone : 16;
        s->done = realloc(s->done, s->capdone * sizeof *s->done);
        if (!s->done) abort();
    }
    s->done[s->ndone++] = dup(m);
    return false;
}

static enum CXChildVisitResult visit(CXCursor c, CXCursor p, CXClientData d)
{
    (void)p;
    walker *w = d;
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k == CXCursor_CallExpr) {
        PUSH(w->s->calls, w->s->ncalls, w->s->capcalls, c);
        launch(w, c);
        return CXChildVisit_Continue;
    }
    if (k == CXCursor_DeclRefExpr && !clang_equalCursors(c, w->skip[0]) && !clang_equalCursors(c, w->skip[1])) {
        CXCursor ref = clang_getCursorReferenced(c);
        char *kn = kernel_name(ref);
        if (kn && w->query) free(kn);
        else if (kn) { /* a kernel used other than as a launch's kernel */
            hc_kernel *hk = add_kernel(w->s->r, kn);
            kernel_params(hk, ref, false);
            /* its address_used_at, unless a launch through a function
             * pointer accounts for this use (fp_account) */
            CXFile f;
            unsigned line, col, off;
            pos(c, &f, &line, &col, &off);
            char *fname = file_name(w->s, f);
            char at[4200];
            snprintf(at, sizeof at, "%s:%u", fname, line);
            free(fname);
            kuse u = {.ref = c, .name = kn, .at = dup(at)};
            PUSH(w->s->kuses, w->s->nkuses, w->s->capkuses, u);
        } else {
            enum CXCursorKind rk = clang_getCursorKind(ref);
            /* a helper a function pointer may be passed to: its calls are
             * all its names when it is never used otherwise (fp_param) */
            if (rk == CXCursor_FunctionDecl || rk == CXCursor_CXXMethod)
                PUSH(w->s->frefs, w->s->nfrefs, w->s->capfrefs, c);
            if (rk == CXCursor_FunctionDecl && clang_Cursor_getNumTemplateArguments(ref) > 0 &&
                clang_isCursorDefinition(ref) && user_code(ref)) {
                /* an instantiation of a function template of the file: walk it
                 * with its arguments substituted */
                char *m = take(clang_Cursor_getMangling(ref));
                if (!done_before(w->s, m)) walk(w->s, ref);
                free(m);
            }
        }
    }
    return CXChildVisit_Recurse;
}

static void walk(scan *s, CXCursor fn)
{
    walker w = {.s = s, .skip = {clang_getNullCursor(), clang_getNullCursor()}, .query = false};
    clang_visitChildren(fn, visit, &w);
}

/* ---- device variables' layouts ---- */

#define MAX_FIELDS 512 /* nodes of one variable's layout: a bigger one is not named */

typedef struct layout {
    hc_field *f;
    uint32_t n, cap;
    bool fail;
} layout;

static uint32_t node_new(layout *l)
{
    if (l->n == MAX_FIELDS) {
        l->fail = true;
        return 0;
    }
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 8;
        l->f = realloc(l->f, l->cap * sizeof *l->f);
        if (!l->f) abort();
    }
    memset(&l->f[l->n], 0, sizeof l->f[l->n]);
    return l->n++;
}

typedef struct fields {
    CXCursor v[MAX_FIELDS];
    uint32_t n;
    bool opaque;
} fields;

static enum CXVisitorResult field_of(CXCursor c, CXClientData d)
{
    fields *fs = d;
    char *name = take(clang_getCursorSpelling(c));
    /* a bit-field or an unnamed member: the bytes are not one named field */
    if (clang_Cursor_isBitField(c) || !name[0] || fs->n == MAX_FIELDS) fs->opaque = true;
    else fs->v[fs->n++] = c;
    free(name);
    return fs->opaque ? CXVisit_Break : CXVisit_Continue;
}

static void lay(layout *l, uint32_t node, CXType t, int depth)
{
    t = clang_getCanonicalType(t);
    long long size = clang_Type_getSizeOf(t);
    if (size <= 0 || depth > 8) {
        l->fail = true;
        return;
    }
    l->f[node].size = (uint64_t)size;
    if (t.kind == CXType_ConstantArray) {
        long long count = clang_getArraySize(t);
        if (count <= 0) {
            l->fail = true;
            return;
        }
        uint32_t e = node_new(l);
        if (l->fail) return;
        l->f[node].count = (uint64_t)count;
        l->f[node].first = e;
        l->f[node].nkids = 1;
        lay(l, e, clang_getArrayElementType(t), depth + 1);
    } else if (t.kind == CXType_Record) {
        enum CXCursorKind k = clang_getCursorKind(clang_getTypeDeclaration(t));
        if (k != CXCursor_StructDecl && k != CXCursor_ClassDecl) {
            l->f[node].opaque = true; /* a union: which member is read is not known */
            return;
        }
        fields *fs = calloc(1, sizeof *fs);
        if (!fs) abort();
        clang_Type_visitFields(t, field_of, fs);
        l->f[node].record = true;
        l->f[node].opaque = fs->opaque;
        if (!fs->opaque && fs->n) {
            uint32_t first = l->n;
            for (uint32_t i = 0; i < fs->n && !l->fail; i++) node_new(l);
            l->f[node].first = first;
            l->f[node].nkids = fs->n;
            for (uint32_t i = 0; i < fs->n && !l->fail; i++) {
                long long bits = clang_Cursor_getOffsetOfField(fs->v[i]);
                if (bits < 0 || bits % 8) {
                    l->fail = true;
                    break;
                }
                l->f[first + i].name = take(clang_getCursorSpelling(fs->v[i]));
                l->f[first + i].off = (uint64_t)bits / 8;
                lay(l, first + i, clang_getCursorType(fs->v[i]), depth + 1);
            }
        }
        free(fs);
    }
}

static enum CXChildVisitResult find_space(CXCursor c, CXCursor p, CXClientData d)
{
    (void)p;
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k == CXCursor_CUDAConstantAttr || k == CXCursor_CUDADeviceAttr) *(bool *)d = true;
    return CXChildVisit_Continue;
}

/* A __constant__ or __device__ (__managed__ is __device__ too) variable:
 * its PTX symbol and layout, for srcnames to name what a load of it reads. */
static void device_var(scan *s, CXCursor c)
{
    bool dev = false;
    clang_visitChildren(c, find_space, &dev);
    if (!dev) return;
    char *m = take(clang_Cursor_getMangling(c));
    /* nvcc keeps a static variable's plain name (s_state, not clang's _ZL7s_state) */
    if (!strncmp(m, "_ZL", 3)) {
        char *e;
        unsigned long len = strtoul(m + 3, &e, 10);
        if (len && strlen(e) == len) memmove(m, e, len + 1);
    }
    for (size_t i = 0; i < s->r->nv; i++)
        if (!strcmp(s->r->v[i].name, m)) {
            free(m);
            return;
        }
    layout l = {0};
    node_new(&l);
    CXType t = clang_getCursorType(c);
    lay(&l, 0, t, 0);
    long long al = clang_Type_getAlignOf(clang_getCanonicalType(t));
    if (l.fail || al <= 0) {
        for (uint32_t i = 0; i < l.n; i++) free(l.f[i].name);
        free(l.f);
        free(m);
        return;
    }
    hc_result *r = s->r;
    if (r->nv == r->capv) {
        r->capv = r->capv ? 2 * r->capv : 8;
        r->v = realloc(r->v, r->capv * sizeof *r->v);
        if (!r->v) abort();
    }
    r->v[r->nv++] = (hc_var){m, l.f[0].size, (uint64_t)al, l.f, l.n};
}

/* Function definitions of the file, through namespaces, extern "C" blocks
 * and classes (not templates: their instantiations are walked from where
 * they are named). */
static enum CXChildVisitResult top(CXCursor c, CXCursor p, CXClientData d)
{
    (void)p;
    scan *s = d;
    if (!user_code(c)) return CXChildVisit_Continue;
    switch (clang_getCursorKind(c)) {
    case CXCursor_Namespace:
    case CXCursor_LinkageSpec:
    case CXCursor_UnexposedDecl: /* extern "C" without braces */
    case CXCursor_ClassDecl:
    case CXCursor_StructDecl:
        return CXChildVisit_Recurse;
    case CXCursor_FunctionDecl:
        declared_kernel(s, c);
        /* fallthrough */
    case CXCursor_CXXMethod:
    case CXCursor_Constructor:
    case CXCursor_Destructor:
        if (clang_isCursorDefinition(c)) walk(s, c);
        return CXChildVisit_Continue;
    case CXCursor_VarDecl: /* kernels named in initialisers: tables of function pointers */
        device_var(s, c);
        walk(s, c);
        return CXChildVisit_Continue;
    default:
        return CXChildVisit_Continue;
    }
}

/* ---- launches through function pointers ----
 *
 * A launch whose kernel operand is a function pointer resolves to every
 * kernel the pointer may hold, when all of them are known: the pointer is
 * a local variable, a global only this file can write (static, in an
 * anonymous namespace, or const), an element of such an array of kernels
 * (any index), or a parameter of a function every call of which this file
 * has; its values are its initialiser, the right side of each of its
 * assignments, each call's argument, each of them a kernel, `&kernel`, a
 * cast of one, a `?:` of such values, or another such pointer.  Any other
 * use of the pointer that may write it (its address taken, a reference
 * bound to it, an array passed on) makes its targets unknown, as does any
 * value that is not one of those (a call's result, a load through a
 * pointer, a member).  Resolution waits for the whole file: a helper's
 * calls may follow it. */

#define FV_MAX 256 /* values, reads of one pointer; a kernel set's size */

struct fvar {
    CXCursor var;            /* a VarDecl or a ParmDecl */
    bool array;
    CXCursor vals[FV_MAX];   /* its values (above) */
    CXCursor calls[FV_MAX];  /* for a parameter: the call vals[i] is the argument of */
    unsigned nvals, nassign; /* nassign: how many of vals are assignments */
    CXCursor reads[FV_MAX];  /* where its value is read (DeclRefExpr, or ArraySubscriptExpr of an array) */
    unsigned nreads;
    CXCursor skip[FV_MAX];   /* names of it already classified (assigned, subscripted) */
    unsigned nskip;
    char why[WHY];           /* why its values are not all known; "" when they are */
    bool busy, good;
};

typedef struct fuse {
    scan *s;
    fvar *v;
    const char *text; /* the file's text, for the operator of an assignment */
    size_t size;
    CXFile file;
} fuse;

static void fv_why(fvar *v, const char *fmt, const char *a, unsigned line)
{
    if (v->why[0]) return;
    char at[16];
    snprintf(at, sizeof at, "%u", line);
    snprintf(v->why, sizeof v->why, fmt, a, at);
}

static char *name_of(CXCursor c) { return take(clang_getCursorSpelling(c)); }

static unsigned line_of(CXCursor c)
{
    unsigned line;
    clang_getExpansionLocation(clang_getCursorLocation(c), NULL, &line, NULL, NULL);
    return line;
}

static bool names_var(CXCursor c, CXCursor var)
{
    return clang_getCursorKind(c) == CXCursor_DeclRefExpr && clang_equalCursors(clang_getCursorReferenced(c), var);
}

/* The array an `a[i]` subscripts: the name under the decay. */
static CXCursor subscript_base(CXCursor c)
{
    kids ch = children(c);
    return ch.n == 2 ? unwrap(ch.v[0]) : clang_getNullCursor();
}

/* The same expression node: clang_equalCursors also compares the
 * declaration a cursor was reached from, which a cursor found through
 * children() of an expression lacks. */
static bool same_expr(CXCursor a, CXCursor b) { return a.kind == b.kind && a.data[1] == b.data[1]; }

static bool fv_skipped(const fvar *v, CXCursor c)
{
    for (unsigned i = 0; i < v->nskip; i++)
        if (same_expr(v->skip[i], c)) return true;
    return false;
}

static bool fv_push(fvar *v, CXCursor *arr, unsigned *n, CXCursor c)
{
    if (*n == FV_MAX) {
        char *nm = name_of(v->var);
        fv_why(v, "'%s' has more than 256 uses or values (the first beyond them at line %s)", nm, line_of(c));
        free(nm);
        return false;
    }
    arr[(*n)++] = c;
    return true;
}

/* A value of the pointer, from call (a null cursor: not a call's argument). */
static bool fv_value(fvar *v, CXCursor c, CXCursor call)
{
    if (v->nvals < FV_MAX) v->calls[v->nvals] = call;
    return fv_push(v, v->vals, &v->nvals, c);
}

/* Whether the binary operator between lhs and rhs is `=`: libclang 14
 * does not tell the operator, the source does. */
static bool is_assign(fuse *u, CXCursor lhs, CXCursor rhs)
{
    CXFile f1, f2;
    unsigned o1, o2;
    clang_getSpellingLocation(clang_getRangeEnd(clang_getCursorExtent(lhs)), &f1, NULL, NULL, &o1);
    clang_getSpellingLocation(clang_getRangeStart(clang_getCursorExtent(rhs)), &f2, NULL, NULL, &o2);
    if (!f1 || !f2 || !clang_File_isEqual(f1, f2)) return false;
    size_t size;
    const char *t = clang_getFileContents(u->s->tu, f1, &size);
    if (!t || o2 > size || o1 > o2) return false;
    unsigned eq = 0, other = 0;
    for (unsigned i = o1; i < o2; i++) {
        if (t[i] == '=') eq++;
        else if (t[i] != ' ' && t[i] != '\t' && t[i] != '\n' && t[i] != '\r') other++;
    }
    return eq == 1 && !other;
}

static void fv_escape(fvar *v, CXCursor c, CXCursor parent)
{
    char *nm = name_of(v->var);
    if (clang_getCursorKind(parent) == CXCursor_UnaryOperator)
        fv_why(v, "the address of '%s' is taken at line %s", nm, line_of(c));
    else fv_why(v, "'%s' is passed on or bound to a reference at line %s, where it may be written", nm, line_of(c));
    free(nm);
}

/* Every use of the pointer in its scope: an assignment (a value), a read,
 * or a use that may write it (fv_escape). */
static enum CXChildVisitResult fv_visit(CXCursor c, CXCursor p, CXClientData d)
{
    fuse *u = d;
    fvar *v = u->v;
    if (v->why[0]) return CXChildVisit_Break;
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k == CXCursor_BinaryOperator) {
        kids ch = children(c);
        if (ch.n != 2) return CXChildVisit_Recurse;
        CXCursor lhs = ch.v[0];
        CXCursor target = clang_getCursorKind(lhs) == CXCursor_ArraySubscriptExpr ? subscript_base(lhs) : lhs;
        if (names_var(target, v->var) && is_assign(u, lhs, ch.v[1])) {
            if (!fv_push(v, v->skip, &v->nskip, lhs)) return CXChildVisit_Break;
            if (!fv_value(v, ch.v[1], clang_getNullCursor())) return CXChildVisit_Break;
            v->nassign++;
        }
        return CXChildVisit_Recurse;
    }
    if (k == CXCursor_ArraySubscriptExpr) {
        CXCursor base = subscript_base(c);
        if (!names_var(base, v->var)) return CXChildVisit_Recurse;
        if (!fv_push(v, v->skip, &v->nskip, base)) return CXChildVisit_Break;
        if (fv_skipped(v, c)) return CXChildVisit_Recurse; /* assigned */
        if (clang_getCursorKind(p) == CXCursor_UnexposedExpr) { /* read: an lvalue-to-rvalue conversion */
            if (!fv_push(v, v->reads, &v->nreads, c)) return CXChildVisit_Break;
        } else fv_escape(v, c, p);
        return CXChildVisit_Recurse;
    }
    if (k == CXCursor_DeclRefExpr && names_var(c, v->var) && !fv_skipped(v, c)) {
        enum CXCursorKind pk = clang_getCursorKind(p);
        if (pk == CXCursor_UnaryExpr) return CXChildVisit_Continue; /* sizeof */
        if (!v->array && pk == CXCursor_UnexposedExpr) {
            if (!fv_push(v, v->reads, &v->nreads, c)) return CXChildVisit_Break;
        } else fv_escape(v, c, p);
    }
    return CXChildVisit_Recurse;
}

/* The file's own top-level declarations, for a global's uses. */
static enum CXChildVisitResult fv_top(CXCursor c, CXCursor p, CXClientData d)
{
    (void)p;
    if (user_code(c)) clang_visitChildren(c, fv_visit, d);
    return ((fuse *)d)->v->why[0] ? CXChildVisit_Break : CXChildVisit_Continue;
}

static bool same_place(CXCursor a, CXCursor b)
{
    CXFile fa, fb;
    unsigned oa, ob;
    clang_getExpansionLocation(clang_getCursorLocation(a), &fa, NULL, NULL, &oa);
    clang_getExpansionLocation(clang_getCursorLocation(b), &fb, NULL, NULL, &ob);
    return fa && fb && oa == ob && clang_File_isEqual(fa, fb);
}

/* A name of fn (or of its template) in code the walk did not follow (a
 * class template's member, a member function template): calls there are
 * not all in sight.  Instantiations share their template's places. */
typedef struct unseen {
    const scan *s;
    CXCursor fn, tmpl;
    unsigned line; /* of the first such name; 0: none */
} unseen;

static enum CXChildVisitResult find_unseen(CXCursor c, CXCursor p, CXClientData d)
{
    (void)p;
    unseen *u = d;
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k != CXCursor_DeclRefExpr && k != CXCursor_MemberRefExpr) return CXChildVisit_Recurse;
    CXCursor r = clang_getCursorReferenced(c);
    if (!clang_equalCursors(r, u->fn) && (clang_Cursor_isNull(u->tmpl) || !clang_equalCursors(r, u->tmpl)))
        return CXChildVisit_Recurse;
    for (size_t i = 0; i < u->s->nfrefs; i++)
        if (same_place(u->s->frefs[i], c)) return CXChildVisit_Recurse;
    for (size_t i = 0; i < u->s->ncalls; i++)
        if (same_place(u->s->calls[i], c)) return CXChildVisit_Recurse;
    u->line = line_of(c);
    return CXChildVisit_Break;
}

static enum CXChildVisitResult unseen_top(CXCursor c, CXCursor p, CXClientData d)
{
    (void)p;
    if (user_code(c)) clang_visitChildren(c, find_unseen, d);
    return ((unseen *)d)->line ? CXChildVisit_Break : CXChildVisit_Continue;
}

/* A parameter's values: each call's argument, when the file has every
 * call of its function. */
static void fv_param(scan *s, fvar *v)
{
    CXCursor fn = clang_getCursorSemanticParent(v->var);
    char *pn = name_of(v->var), *fname = name_of(fn), w[WHY];
    int pi = param_index(fn, v->var);
    size_t ncalls = 0, nrefs = 0;
    for (size_t i = 0; i < s->nfrefs; i++) nrefs += clang_equalCursors(clang_getCursorReferenced(s->frefs[i]), fn);
    for (size_t i = 0; i < s->ncalls && !v->why[0]; i++) {
        CXCursor call = s->calls[i];
        if (!clang_equalCursors(clang_getCursorReferenced(call), fn)) continue;
        ncalls++;
        if (pi < 0 || pi >= clang_Cursor_getNumArguments(call)) {
            /* a default argument */
            snprintf(w, sizeof w, "the call of '%s' at line %u gives no argument for '%s'", fname, line_of(call), pn);
            snprintf(v->why, sizeof v->why, "%s", w);
            break;
        }
        if (!fv_value(v, clang_Cursor_getArgument(call, (unsigned)pi), call)) break;
    }
    if (!v->why[0] && nrefs > ncalls) {
        /* the first name of fn that does not begin a call of it */
        unsigned other = 0;
        for (size_t i = 0; i < s->nfrefs && !other; i++) {
            if (!clang_equalCursors(clang_getCursorReferenced(s->frefs[i]), fn)) continue;
            unsigned o1;
            clang_getExpansionLocation(clang_getCursorLocation(s->frefs[i]), NULL, NULL, NULL, &o1);
            bool call = false;
            for (size_t j = 0; j < s->ncalls && !call; j++) {
                unsigned o2;
                clang_getExpansionLocation(clang_getRangeStart(clang_getCursorExtent(s->calls[j])), NULL, NULL, NULL,
                                           &o2);
                call = o1 == o2 && clang_equalCursors(clang_getCursorReferenced(s->calls[j]), fn);
            }
            if (!call) other = line_of(s->frefs[i]);
        }
        if (other)
            snprintf(w, sizeof w, "'%s' is a parameter of '%s', which is also used other than called at line %u", pn,
                     fname, other);
        else snprintf(w, sizeof w, "'%s' is a parameter of '%s', which is also used other than called", pn, fname);
        snprintf(v->why, sizeof v->why, "%s", w);
    } else if (!v->why[0] && !ncalls) {
        snprintf(w, sizeof w, "'%s' is a parameter of '%s', which no code of this file calls", pn, fname);
        snprintf(v->why, sizeof v->why, "%s", w);
    }
    if (!v->why[0]) {
        CXCursor tmpl = clang_getSpecializedCursorTemplate(fn);
        unseen u = {.s = s, .fn = fn, .tmpl = tmpl, .line = 0};
        clang_visitChildren(clang_getTranslationUnitCursor(s->tu), unseen_top, &u);
        if (u.line) {
            snprintf(w, sizeof w, "'%s' is a parameter of '%s', also named at line %u in code whose calls ptxray does not follow",
                     pn, fname, u.line);
            snprintf(v->why, sizeof v->why, "%s", w);
        }
    }
    free(pn);
    free(fname);
}

static enum CXChildVisitResult init_elem(CXCursor c, CXCursor p, CXClientData d)
{
    (void)p;
    fvar *v = d;
    if (!is_expr(c)) return CXChildVisit_Continue;
    return fv_value(v, c, clang_getNullCursor()) ? CXChildVisit_Continue : CXChildVisit_Break;
}

/* The fvar of var, its values and uses found on first request. */
static int fv_get(scan *s, CXCursor var)
{
    for (size_t i = 0; i < s->nfv; i++)
        if (clang_equalCursors(s->fv[i].var, var)) return (int)i;
    if (s->nfv == s->capfv) {
        s->capfv = s->capfv ? 2 * s->capfv : 8;
        s->fv = realloc(s->fv, s->capfv * sizeof *s->fv);
        if (!s->fv) abort();
    }
    int vi = (int)s->nfv++;
    fvar *v = &s->fv[vi];
    memset(v, 0, sizeof *v);
    v->var = var;
    enum CXTypeKind tk = clang_getCanonicalType(clang_getCursorType(var)).kind;
    v->array = tk == CXType_ConstantArray || tk == CXType_IncompleteArray;
    CXCursor scope = clang_getCursorSemanticParent(var);
    enum CXCursorKind sk = clang_getCursorKind(scope);
    bool global = sk == CXCursor_TranslationUnit || sk == CXCursor_Namespace || sk == CXCursor_ClassDecl ||
                  sk == CXCursor_StructDecl;
    char *nm = name_of(var);
    if (clang_getCursorKind(var) == CXCursor_ParmDecl) fv_param(s, v);
    else {
        if (global && clang_getCursorLinkage(var) == CXLinkage_External &&
            !clang_isConstQualifiedType(clang_getCursorType(var)))
            fv_why(v, "'%s' is a non-const global variable, which other files may assign", nm, 0);
        CXCursor init = initializer(var);
        if (!clang_Cursor_isNull(init) && clang_getCursorKind(unwrap(init)) == CXCursor_InitListExpr)
            clang_visitChildren(unwrap(init), init_elem, v); /* every element (children() keeps 16) */
        else if (!clang_Cursor_isNull(init)) {
            fv_value(v, init, clang_getNullCursor());
        }
    }
    if (!v->why[0]) {
        fuse u = {.s = s, .v = v};
        if (global) clang_visitChildren(clang_getTranslationUnitCursor(s->tu), fv_top, &u);
        else clang_visitChildren(scope, fv_visit, &u);
    }
    if (!v->why[0] && !v->nvals) fv_why(v, "'%s' has no initialiser", nm, 0);
    free(nm);
    return vi;
}

static void fp_mark(scan *s, CXCursor c, int dest, int p)
{
    fmark m = {.c = c, .dest = dest, .p = p};
    PUSH(s->marks, s->nmarks, s->capmarks, m);
}

/* The kernels a launch may run. */
typedef struct tset {
    scan *s;
    CXCursor decl[FV_MAX];
    char *name[FV_MAX];
    unsigned n;
    char why[WHY];
} tset;

static bool tfail(tset *x, const char *fmt, const char *a)
{
    if (!x->why[0]) snprintf(x->why, sizeof x->why, fmt, a);
    return false;
}

static void tfree(tset *x)
{
    for (unsigned i = 0; i < x->n; i++) free(x->name[i]);
    x->n = 0;
}

/* Through implicit conversions, casts, `&kernel` and `*pointer`. */
static CXCursor strip_fn(scan *s, CXCursor c)
{
    for (int guard = 0; guard < 32; guard++) {
        c = unwrap(c);
        if (clang_getCursorKind(c) != CXCursor_UnaryOperator) return c;
        kids ch = children(c);
        if (ch.n != 1) return c;
        CXSourceRange r = clang_getCursorExtent(c);
        CXFile f;
        unsigned o;
        clang_getSpellingLocation(clang_getRangeStart(r), &f, NULL, NULL, &o);
        size_t size;
        const char *t = f ? clang_getFileContents(s->tu, f, &size) : NULL;
        if (!t || o >= size) return c;
        CXType ot = clang_getCanonicalType(clang_getCursorType(unwrap(ch.v[0])));
        bool fn = ot.kind == CXType_FunctionProto || ot.kind == CXType_FunctionNoProto;
        enum CXTypeKind pk =
            ot.kind == CXType_Pointer ? clang_getCanonicalType(clang_getPointeeType(ot)).kind : CXType_Invalid;
        bool fnptr = pk == CXType_FunctionProto || pk == CXType_FunctionNoProto;
        if (!((t[o] == '&' && fn) || (t[o] == '*' && (fn || fnptr)))) return c;
        c = ch.v[0];
    }
    return c;
}

/* Adds the kernels expression e may be to x; false with x->why when one
 * is not known.  dest, p: where e's value goes (fmark). */
static bool targets(tset *x, CXCursor e, int depth, int dest, int p)
{
    scan *s = x->s;
    CXCursor c = strip_fn(s, e);
    enum CXCursorKind k = clang_getCursorKind(c);
    char buf[96];
    if (k == CXCursor_ConditionalOperator) {
        kids ch = children(c);
        if (ch.n == 3) return targets(x, ch.v[1], depth, dest, p) && targets(x, ch.v[2], depth, dest, p);
    }
    text_of(s, c, buf, sizeof buf);
    if (depth > MAX_DEPTH) return tfail(x, "'%s' is followed through too many variables", buf);
    CXCursor var = clang_getNullCursor();
    if (k == CXCursor_DeclRefExpr) {
        CXCursor d = clang_getCursorReferenced(c);
        char *name = kernel_name(d);
        if (name) {
            fp_mark(s, c, dest, p);
            for (unsigned i = 0; i < x->n; i++)
                if (!strcmp(x->name[i], name)) {
                    free(name);
                    return true;
                }
            if (x->n == FV_MAX) {
                free(name);
                return tfail(x, "it may be any of more than 256 kernels%s", "");
            }
            x->decl[x->n] = d;
            x->name[x->n++] = name;
            return true;
        }
        enum CXCursorKind dk = clang_getCursorKind(d);
        if (dk == CXCursor_FunctionDecl || dk == CXCursor_CXXMethod) return tfail(x, "'%s' is not a kernel", buf);
        if (dk == CXCursor_VarDecl || dk == CXCursor_ParmDecl) var = d;
    } else if (k == CXCursor_ArraySubscriptExpr) {
        CXCursor base = subscript_base(c);
        if (clang_getCursorKind(base) == CXCursor_DeclRefExpr) {
            CXCursor d = clang_getCursorReferenced(base);
            enum CXTypeKind tk = clang_getCanonicalType(clang_getCursorType(d)).kind;
            if (clang_getCursorKind(d) == CXCursor_VarDecl &&
                (tk == CXType_ConstantArray || tk == CXType_IncompleteArray))
                var = d;
        }
    }
    if (clang_Cursor_isNull(var)) {
        bool word = false;
        for (const char *q = buf; *q && !word; q++)
            word = *q == '_' || (*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9');
        if (word || dest < 0) return tfail(x, "'%s' is computed at run time or read from memory", buf);
        /* an implicit initialiser (a range-for's element): name the variable */
        char *nm = name_of(s->fv[dest].var);
        tfail(x, "'%s' is given a value ptxray cannot follow", nm);
        free(nm);
        return false;
    }
    fp_mark(s, c, dest, p);
    int vi = fv_get(s, var);
    if (s->fv[vi].why[0]) return tfail(x, "%s", s->fv[vi].why);
    if (s->fv[vi].busy) return true; /* a cycle adds nothing */
    s->fv[vi].busy = true;
    bool ok = true;
    for (unsigned j = 0; ok && j < s->fv[vi].nvals; j++) ok = targets(x, s->fv[vi].vals[j], depth + 1, vi, -1);
    s->fv[vi].busy = false;
    return ok;
}

static char *at_text(scan *s, CXCursor c)
{
    CXFile f;
    unsigned line, col, off;
    pos(c, &f, &line, &col, &off);
    char *fname = file_name(s, f);
    char at[4200];
    snprintf(at, sizeof at, "%s:%u:%u", fname, line, col);
    free(fname);
    return dup(at);
}

/* One launch per kernel of x, at the block e evaluates barg to. */
static void fp_launches(scan *s, const pending *pd, tset *x, ev *e, const char *text, CXCursor call)
{
    uint32_t b[3] = {0, 0, 0};
    bool known = eval_block(e, pd->via, pd->barg, b);
    for (unsigned i = 0; i < x->n; i++) {
        hc_launch *l = new_launch(s, pd->call, pd->via);
        launch_kernel(s, l, x->decl[i], x->name[i], known, b, e->why);
        l->through = dup(text);
        if (!clang_Cursor_isNull(call)) l->called_at = at_text(s, call);
    }
    x->n = 0; /* the names are the launches' now */
}

static void fp_unknown(scan *s, const pending *pd, const char *text, const char *whytext)
{
    hc_launch *l = new_launch(s, pd->call, pd->via);
    char w[WHY + 128];
    l->display = dup(text);
    snprintf(w, sizeof w, "the kernel is '%s', a function pointer: %s", text, whytext);
    l->why = dup(w);
}

static void fp_resolve(scan *s)
{
    for (size_t i = 0; i < s->npend; i++) {
        pending *pd = &s->pend[i];
        CXCursor c = strip_fn(s, pd->callee);
        char text[96];
        text_of(s, c, text, sizeof text);
        CXCursor d = clang_getCursorKind(c) == CXCursor_DeclRefExpr ? clang_getCursorReferenced(c)
                                                                    : clang_getNullCursor();
        int vi = !clang_Cursor_isNull(d) && clang_getCursorKind(d) == CXCursor_ParmDecl ? fv_get(s, d) : -1;
        if (vi >= 0 && !s->fv[vi].why[0] && !s->fv[vi].nassign) {
            /* a parameter the helper never assigns: each call gives its
             * kernels, and the shape evaluated with its arguments */
            fp_mark(s, c, -1, (int)i);
            unsigned n = s->fv[vi].nvals;
            tset *xs = calloc(n, sizeof *xs);
            if (!xs) abort();
            bool ok = true;
            unsigned bad = 0;
            s->fv[vi].busy = true;
            for (unsigned j = 0; j < n && ok; j++) {
                xs[j].s = s;
                ok = targets(&xs[j], s->fv[vi].vals[j], 1, vi, -1);
                if (ok && !xs[j].n) ok = tfail(&xs[j], "no kernel reaches '%s'", text);
                if (!ok) bad = j;
            }
            s->fv[vi].busy = false;
            if (!ok) fp_unknown(s, pd, text, xs[bad].why);
            for (unsigned j = 0; j < n && ok; j++) {
                ev e = {.s = s, .env = true, .env_fn = clang_getCursorSemanticParent(d), .env_call = s->fv[vi].calls[j]};
                fp_launches(s, pd, &xs[j], &e, text, s->fv[vi].calls[j]);
            }
            pd->resolved = ok;
            for (unsigned j = 0; j < n; j++) tfree(&xs[j]);
            free(xs);
            continue;
        }
        tset x = {.s = s};
        bool ok = targets(&x, pd->callee, 0, -1, (int)i);
        if (ok && !x.n) ok = tfail(&x, "no kernel reaches '%s'", text);
        if (!ok) fp_unknown(s, pd, text, x.why);
        else {
            ev e = {.s = s};
            fp_launches(s, pd, &x, &e, text, clang_getNullCursor());
        }
        pd->resolved = ok;
        tfree(&x);
    }
}

/* Whether a read of a pointer or a kernel's name (c) goes only where a
 * resolved launch accounts for it. */
static bool consumed(const scan *s, CXCursor c)
{
    for (size_t i = 0; i < s->nmarks; i++) {
        const fmark *m = &s->marks[i];
        if (!same_expr(m->c, c)) continue;
        if (m->dest < 0 ? s->pend[m->p].resolved : s->fv[m->dest].good) return true;
    }
    return false;
}

/* A kernel's address_used_at: its first use that no resolved launch
 * accounts for, i.e. whose pointer may also be used otherwise. */
static void fp_account(scan *s)
{
    for (size_t i = 0; i < s->nfv; i++) s->fv[i].good = !s->fv[i].why[0];
    for (bool changed = true; changed;) {
        changed = false;
        for (size_t i = 0; i < s->nfv; i++) {
            fvar *v = &s->fv[i];
            for (unsigned j = 0; v->good && j < v->nreads; j++)
                if (!consumed(s, v->reads[j])) v->good = false, changed = true;
        }
    }
    for (size_t i = 0; i < s->nkuses; i++) {
        kuse *u = &s->kuses[i];
        hc_kernel *hk = find_kernel(s->r, u->name);
        if (hk && !hk->addr_taken && !consumed(s, u->ref)) hk->addr_taken = dup(u->at);
    }
}

static void fp_free(scan *s)
{
    for (size_t i = 0; i < s->nkuses; i++) {
        free(s->kuses[i].name);
        free(s->kuses[i].at);
    }
    free(s->kuses);
    free(s->pend);
    free(s->calls);
    free(s->frefs);
    free(s->fv);
    free(s->marks);
}

/* errors[0], first[0]: in the file's own code; [1]: in system headers. */
static void add_file(hc_result *r, const char *path, const uint32_t errors[2], char *const first[2])
{
    size_t n = r->nfiles + 1;
    r->files = realloc(r->files, n * sizeof *r->files);
    r->file_errors = realloc(r->file_errors, n * sizeof *r->file_errors);
    r->file_first_error = realloc(r->file_first_error, n * sizeof *r->file_first_error);
    r->file_header_errors = realloc(r->file_header_errors, n * sizeof *r->file_header_errors);
    r->file_first_header_error = realloc(r->file_first_header_error, n * sizeof *r->file_first_header_error);
    if (!r->files || !r->file_errors || !r->file_first_error || !r->file_header_errors || !r->file_first_header_error)
        abort();
    r->files[r->nfiles] = dup(path);
    r->file_errors[r->nfiles] = errors[0];
    r->file_first_error[r->nfiles] = dup(first[0]);
    r->file_header_errors[r->nfiles] = errors[1];
    r->file_first_header_error[r->nfiles] = dup(first[1]);
    r->nfiles++;
}


int hc_scan(const char *path, const hc_opts *o, hc_result *r, const char *cmd, FILE *err)
{
    FILE *probe = fopen(path, "rb");
    if (!probe) {
        fprintf(err, "ptxray %s: %s: cannot read the file\n", cmd, path);
        return 2;
    }
    fclose(probe);
    char why[256];
    if (!hc_clang_load(why, sizeof why)) {
        fprintf(err, "ptxray %s: %s: %s\n", cmd, path, why);
        return 2;
    }
    const char *toolkit = o && o->builtin_cuda ? NULL : hc_cuda_dir(o ? o->cuda_path : NULL);
    const char *args[HC_MAX_BASE_ARGS + 256];
    char bufs[2][HC_ARGBUF];
    size_t na = hc_base_args(toolkit, args, bufs);
    for (size_t i = 0; o && i < o->nflags && na < sizeof args / sizeof args[0]; i++) args[na++] = o->flags[i];
    size_t nv;
    const hc_vfile *vf = hc_vfiles(toolkit != NULL, &nv);
    struct CXUnsavedFile uf[16];
    for (size_t i = 0; i < nv && i < 16; i++)
        uf[i] = (struct CXUnsavedFile){vf[i].name, vf[i].text, (unsigned long)strlen(vf[i].text)};
    CXIndex idx = clang_createIndex(0, 0);
    CXTranslationUnit tu = NULL;
    enum CXErrorCode ec = clang_parseTranslationUnit2(
        idx, path, args, (int)na, uf, (unsigned)nv,
        CXTranslationUnit_KeepGoing | CXTranslationUnit_DetailedPreprocessingRecord |
            CXTranslationUnit_IgnoreNonErrorsFromIncludedFiles,
        &tu);
    if (ec != CXError_Success || !tu) {
        fprintf(err, "ptxray %s: %s: libclang could not parse the file (error %d)\n", cmd, path, (int)ec);
        clang_disposeIndex(idx);
        return 2;
    }
    /* [0]: in the file's own code and its project's headers; [1]: in
     * system headers (the toolkit's, included as system headers) */
    uint32_t errors[2] = {0, 0};
    char *first[2] = {NULL, NULL};
    unsigned nd = clang_getNumDiagnostics(tu);
    for (unsigned i = 0; i < nd; i++) {
        CXDiagnostic dg = clang_getDiagnostic(tu, i);
        if (clang_getDiagnosticSeverity(dg) >= CXDiagnostic_Error) {
            int sys = clang_Location_isInSystemHeader(clang_getDiagnosticLocation(dg)) != 0;
            if (!errors[sys]++)
                first[sys] = take(clang_formatDiagnostic(dg, CXDiagnostic_DisplaySourceLocation |
                                                                 CXDiagnostic_DisplayColumn));
        }
        clang_disposeDiagnostic(dg);
    }
    if (errors[0])
        fprintf(err,
                "ptxray %s: warning: %s: libclang reported %u error%s (first: %s); the launches it could "
                "evaluate are reported\n",
                cmd, path, errors[0], errors[0] == 1 ? "" : "s", first[0]);
    add_file(r, path, errors, first);
    free(first[0]);
    free(first[1]);
    scan s = {.tu = tu, .r = r, .path = path};
    clang_visitChildren(clang_getTranslationUnitCursor(tu), top, &s);
    fp_resolve(&s);
    fp_account(&s);
    fp_free(&s);
    for (size_t i = 0; i < s.ndone; i++) free(s.done[i]);
    free(s.done);
    clang_disposeTranslationUnit(tu);
    clang_disposeIndex(idx);
    return 0;
}

#else /* built without libclang */

bool hc_available(void) { return false; }

int hc_scan(const char *path, const hc_opts *o, hc_result *r, const char *cmd, FILE *err)
{
    (void)o;
    (void)r;
    fprintf(err,
            "ptxray %s: %s: this ptxray was built without libclang, which reading host code needs "
            "(install libclang-dev, e.g. with `make deps`, and rebuild)\n",
            cmd, path);
    return 2;
}

#endif
