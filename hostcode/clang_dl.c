/* libclang, loaded when it is first needed.
 *
 * Only `ptxray launches` and `analyze FILE.cu` read host code, but linking
 * libclang maps libclang and libLLVM (~100 MB of code) into every ptxray
 * process: 0.1 s and ~55 MB of resident memory at each start, paid by
 * every `check` in CI and every compile through the nvcc wrapper.  So
 * ptxray does not link it.  Each libclang function that hostcode/ calls is
 * defined here with its prototype from clang-c/Index.h, and forwards to
 * the library's own, looked up on first call.  hc_clang_load() must have
 * succeeded before any of them is called (hc_scan does it).  The
 * environment variable PTXRAY_LIBCLANG names another libclang to load.
 *
 * A function added to hostcode/ must be added to the list below, or the
 * link fails with an undefined reference: nothing is resolved silently. */
#ifndef PTXRAY_NO_LIBCLANG
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <clang-c/Index.h>
#include "clang_dl.h"

#ifndef HC_LIBCLANG
#define HC_LIBCLANG "libclang.so"
#endif

static void *lib;

bool hc_clang_load(char *err, size_t n)
{
    if (lib) return true;
    /* the library found at build time, then the loader's search path */
    static const char *const names[] = {HC_LIBCLANG, "libclang.so", "libclang-14.so.1", "libclang-14.so.13"};
    const char *why = "", *env = getenv("PTXRAY_LIBCLANG");
    if (env && *env) { /* the user's choice, and only it */
        lib = dlopen(env, RTLD_NOW | RTLD_LOCAL);
        if (!lib) snprintf(err, n, "cannot load libclang from PTXRAY_LIBCLANG=%s (%s)", env, dlerror());
        return lib != NULL;
    }
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !lib; i++) {
        if (!names[i][0]) continue; /* dlopen("") would give the program itself */
        lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (!lib && i == 0) why = dlerror();
    }
    if (!lib) snprintf(err, n, "cannot load libclang (%s); install libclang-dev, e.g. with `make deps`", why);
    return lib != NULL;
}

static void *sym(const char *name)
{
    void *p = lib ? dlsym(lib, name) : NULL;
    if (!p) { /* a programming error: hc_clang_load not called, or a libclang without the function */
        fprintf(stderr, "ptxray: internal error: libclang function %s is not available\n", name);
        abort();
    }
    return p;
}

/* The pointer to libclang's function `name`, looked up once. */
#define LOOKUP(ret, name, params)                                                                       \
    static ret(*fp) params;                                                                            \
    if (!fp) {                                                                                         \
        void *p = sym(#name);                                                                          \
        memcpy(&fp, &p, sizeof fp);                                                                    \
    }
/* ret name(params) { return libclang's name(args); }, and the same for void */
#define FWD(ret, name, params, args)                                                                    \
    ret name params                                                                                    \
    {                                                                                                  \
        LOOKUP(ret, name, params)                                                                      \
        return fp args;                                                                                \
    }
#define FWDV(name, params, args)                                                                        \
    void name params                                                                                   \
    {                                                                                                  \
        LOOKUP(void, name, params)                                                                     \
        fp args;                                                                                       \
    }

FWD(CXIndex, clang_createIndex, (int a, int b), (a, b))
FWD(enum CXErrorCode, clang_parseTranslationUnit2,
    (CXIndex i, const char *f, const char *const *a, int na, struct CXUnsavedFile *u, unsigned nu, unsigned o,
     CXTranslationUnit *tu),
    (i, f, a, na, u, nu, o, tu))
FWD(CXTranslationUnit, clang_parseTranslationUnit,
    (CXIndex i, const char *f, const char *const *a, int na, struct CXUnsavedFile *u, unsigned nu, unsigned o),
    (i, f, a, na, u, nu, o))
FWDV(clang_disposeIndex, (CXIndex i), (i))
FWDV(clang_disposeTranslationUnit, (CXTranslationUnit t), (t))
FWDV(clang_disposeString, (CXString s), (s))
FWD(const char *, clang_getCString, (CXString s), (s))
FWD(unsigned, clang_getNumDiagnostics, (CXTranslationUnit t), (t))
FWD(CXDiagnostic, clang_getDiagnostic, (CXTranslationUnit t, unsigned i), (t, i))
FWD(enum CXDiagnosticSeverity, clang_getDiagnosticSeverity, (CXDiagnostic d), (d))
FWD(CXSourceLocation, clang_getDiagnosticLocation, (CXDiagnostic d), (d))
FWD(CXString, clang_formatDiagnostic, (CXDiagnostic d, unsigned o), (d, o))
FWDV(clang_disposeDiagnostic, (CXDiagnostic d), (d))
FWD(CXCursor, clang_getTranslationUnitCursor, (CXTranslationUnit t), (t))
FWD(unsigned, clang_visitChildren, (CXCursor c, CXCursorVisitor v, CXClientData d), (c, v, d))
FWD(enum CXCursorKind, clang_getCursorKind, (CXCursor c), (c))
FWD(CXString, clang_getCursorSpelling, (CXCursor c), (c))
FWD(CXCursor, clang_getCursorReferenced, (CXCursor c), (c))
FWD(CXCursor, clang_getNullCursor, (void), ())
FWD(int, clang_Cursor_isNull, (CXCursor c), (c))
FWD(CXCursor, clang_Cursor_getArgument, (CXCursor c, unsigned i), (c, i))
FWD(int, clang_Cursor_getNumArguments, (CXCursor c), (c))
FWD(int, clang_Cursor_getNumTemplateArguments, (CXCursor c), (c))
FWD(CXString, clang_Cursor_getMangling, (CXCursor c), (c))
FWD(CXEvalResult, clang_Cursor_Evaluate, (CXCursor c), (c))
FWD(CXEvalResultKind, clang_EvalResult_getKind, (CXEvalResult e), (e))
FWD(long long, clang_EvalResult_getAsLongLong, (CXEvalResult e), (e))
FWDV(clang_EvalResult_dispose, (CXEvalResult e), (e))
FWD(CXType, clang_getCursorType, (CXCursor c), (c))
FWD(CXType, clang_getCanonicalType, (CXType t), (t))
FWD(CXString, clang_getTypeSpelling, (CXType t), (t))
FWD(unsigned, clang_isConstQualifiedType, (CXType t), (t))
FWD(CXSourceLocation, clang_getCursorLocation, (CXCursor c), (c))
FWD(CXSourceRange, clang_getCursorExtent, (CXCursor c), (c))
FWD(CXCursor, clang_getCursorSemanticParent, (CXCursor c), (c))
FWD(CXCursor, clang_getCursor, (CXTranslationUnit t, CXSourceLocation l), (t, l))
FWD(unsigned, clang_equalCursors, (CXCursor a, CXCursor b), (a, b))
FWD(unsigned, clang_isCursorDefinition, (CXCursor c), (c))
FWD(unsigned, clang_isExpression, (enum CXCursorKind k), (k))
FWD(enum CXLinkageKind, clang_getCursorLinkage, (CXCursor c), (c))
FWD(CXType, clang_getPointeeType, (CXType t), (t))
FWD(CXCursor, clang_getSpecializedCursorTemplate, (CXCursor c), (c))
FWDV(clang_getSpellingLocation, (CXSourceLocation l, CXFile *f, unsigned *li, unsigned *co, unsigned *of),
    (l, f, li, co, of))
FWDV(clang_getExpansionLocation, (CXSourceLocation l, CXFile *f, unsigned *li, unsigned *co, unsigned *of),
    (l, f, li, co, of))
FWD(int, clang_Location_isInSystemHeader, (CXSourceLocation l), (l))
FWD(CXSourceLocation, clang_getLocation, (CXTranslationUnit t, CXFile f, unsigned li, unsigned co), (t, f, li, co))
FWD(CXSourceRange, clang_getRange, (CXSourceLocation a, CXSourceLocation b), (a, b))
FWD(CXSourceLocation, clang_getRangeStart, (CXSourceRange r), (r))
FWD(CXSourceLocation, clang_getRangeEnd, (CXSourceRange r), (r))
FWD(CXFile, clang_getFile, (CXTranslationUnit t, const char *n), (t, n))
FWD(CXString, clang_getFileName, (CXFile f), (f))
FWD(const char *, clang_getFileContents, (CXTranslationUnit t, CXFile f, size_t *n), (t, f, n))
FWD(int, clang_File_isEqual, (CXFile a, CXFile b), (a, b))
FWDV(clang_tokenize, (CXTranslationUnit t, CXSourceRange r, CXToken **k, unsigned *n), (t, r, k, n))
FWDV(clang_disposeTokens, (CXTranslationUnit t, CXToken *k, unsigned n), (t, k, n))
FWD(CXTokenKind, clang_getTokenKind, (CXToken k), (k))
/* device variables' layouts (srcnames: c_cam.width for ld.const [c_cam+28]) */
FWD(long long, clang_Type_getSizeOf, (CXType t), (t))
FWD(long long, clang_Type_getAlignOf, (CXType t), (t))
FWD(long long, clang_Cursor_getOffsetOfField, (CXCursor c), (c))
FWD(unsigned, clang_Cursor_isBitField, (CXCursor c), (c))
FWD(unsigned, clang_Type_visitFields, (CXType t, CXFieldVisitor v, CXClientData d), (t, v, d))
FWD(CXCursor, clang_getTypeDeclaration, (CXType t), (t))
FWD(CXType, clang_getArrayElementType, (CXType t), (t))
FWD(long long, clang_getArraySize, (CXType t), (t))
FWD(CXString, clang_getTokenSpelling, (CXTranslationUnit t, CXToken k), (t, k))
FWD(CXSourceLocation, clang_getTokenLocation, (CXTranslationUnit t, CXToken k), (t, k))

#endif
