/* nvcc's options (nvcc_opts.h). */
#include "nvcc_opts.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { B, V, L }; /* no value, one value, a comma-separated list */

typedef struct nvo_opt {
    const char *lng, *shrt;
    unsigned char arg, role;
    const char *clang; /* NVO_PP: clang's option ("-I": glued, "-std=": glued, "-isystem": apart) */
} nvo_opt;

/* nvcc 13.0's --help, in its order, with -Xcudafe and -Xcicc (accepted,
 * not listed).  NVO_IGNORED: options of the phases after PTX (-c, -dc,
 * -lib, ...), of linking, and of other outputs than the PTX (-M*, -odir,
 * -keep, -time, --dryrun, --version, the listings), and -code (the PTX is
 * one architecture's).  Everything else reaches nvcc. */
static const nvo_opt opts[] = {
    {"--cuda", "-cuda", B, NVO_IGNORED, 0},
    {"--cubin", "-cubin", B, NVO_IGNORED, 0},
    {"--fatbin", "-fatbin", B, NVO_IGNORED, 0},
    {"--ptx", "-ptx", B, NVO_IGNORED, 0},
    {"--optix-ir", "-optix-ir", B, NVO_IGNORED, 0},
    {"--ltoir", "-ltoir", B, NVO_IGNORED, 0},
    {"--preprocess", "-E", B, NVO_IGNORED, 0},
    {"--generate-dependencies", "-M", B, NVO_IGNORED, 0},
    {"--generate-nonsystem-dependencies", "-MM", B, NVO_IGNORED, 0},
    {"--generate-dependencies-with-compile", "-MD", B, NVO_IGNORED, 0},
    {"--generate-nonsystem-dependencies-with-compile", "-MMD", B, NVO_IGNORED, 0},
    {"--dependency-output", "-MF", V, NVO_IGNORED, 0},
    {"--generate-dependency-targets", "-MP", B, NVO_IGNORED, 0},
    {"--compile", "-c", B, NVO_IGNORED, 0},
    {"--device-c", "-dc", B, NVO_IGNORED, 0},
    {"--device-w", "-dw", B, NVO_IGNORED, 0},
    {"--device-link", "-dlink", B, NVO_IGNORED, 0},
    {"--link", "-link", B, NVO_IGNORED, 0},
    {"--lib", "-lib", B, NVO_IGNORED, 0},
    {"--run", "-run", B, NVO_IGNORED, 0},
    {"--output-file", "-o", V, NVO_OUTPUT, 0},
    {"--pre-include", "-include", L, NVO_PP, "-include"},
    {"--objdir-as-tempdir", "-objtemp", B, NVO_IGNORED, 0},
    {"--library", "-l", L, NVO_IGNORED, 0},
    {"--define-macro", "-D", L, NVO_PP, "-D"},
    {"--undefine-macro", "-U", L, NVO_PP, "-U"},
    {"--include-path", "-I", L, NVO_PP, "-I"},
    {"--system-include", "-isystem", L, NVO_PP, "-isystem"},
    {"--library-path", "-L", L, NVO_IGNORED, 0},
    {"--output-directory", "-odir", V, NVO_IGNORED, 0},
    {"--compiler-bindir", "-ccbin", V, NVO_PASS, 0},
    {"--allow-unsupported-compiler", "-allow-unsupported-compiler", B, NVO_PASS, 0},
    {"--archiver-binary", "-arbin", V, NVO_IGNORED, 0},
    {"--cudart", "-cudart", V, NVO_IGNORED, 0},
    {"--cudadevrt", "-cudadevrt", V, NVO_IGNORED, 0},
    {"--libdevice-directory", "-ldir", V, NVO_PASS, 0},
    {"--target-directory", "-target-dir", V, NVO_PASS, 0},
    {"--use-local-env", "-use-local-env", B, NVO_PASS, 0},
    {"--force-cl-env-setup", "-force-cl-env-setup", B, NVO_PASS, 0},
    {"--profile", "-pg", B, NVO_PASS, 0},
    {"--debug", "-g", B, NVO_PASS, 0},
    {"--device-debug", "-G", B, NVO_PASS, 0},
    {"--generate-line-info", "-lineinfo", B, NVO_PASS, 0},
    {"--optimization-info", "-opt-info", L, NVO_PASS, 0},
    {"--optimize", "-O", V, NVO_PASS, 0},
    {"--Ofast-compile", "-Ofc", V, NVO_PASS, 0},
    {"--dopt", "-dopt", V, NVO_PASS, 0},
    {"--dlink-time-opt", "-dlto", B, NVO_PASS, 0},
    {"--lto", "-lto", B, NVO_PASS, 0},
    {"--gen-opt-lto", "-gen-opt-lto", B, NVO_PASS, 0},
    {"--ftemplate-backtrace-limit", "-ftemplate-backtrace-limit", V, NVO_PASS, 0},
    {"--ftemplate-depth", "-ftemplate-depth", V, NVO_PASS, 0},
    {"--no-exceptions", "-noeh", B, NVO_PASS, 0},
    {"--shared", "-shared", B, NVO_IGNORED, 0},
    {"--x", "-x", V, NVO_PASS, 0},
    {"--std", "-std", V, NVO_PP, "-std="},
    {"--no-host-device-initializer-list", "-nohdinitlist", B, NVO_PASS, 0},
    {"--no-host-device-move-forward", "-nohdmoveforward", B, NVO_PASS, 0},
    {"--expt-relaxed-constexpr", "-expt-relaxed-constexpr", B, NVO_PASS, 0},
    {"--extended-lambda", "-extended-lambda", B, NVO_PASS, 0},
    {"--expt-extended-lambda", "-expt-extended-lambda", B, NVO_PASS, 0},
    {"--machine", "-m", V, NVO_PASS, 0},
    {"--m64", "-m64", B, NVO_PASS, 0},
    {"--compiler-options", "-Xcompiler", L, NVO_HOSTCC, 0},
    {"--linker-options", "-Xlinker", L, NVO_IGNORED, 0},
    {"--archive-options", "-Xarchive", L, NVO_IGNORED, 0},
    {"--ptxas-options", "-Xptxas", L, NVO_PASS, 0},
    {"--nvlink-options", "-Xnvlink", L, NVO_IGNORED, 0},
    {"--cudafe-options", "-Xcudafe", L, NVO_PASS, 0},
    {"--cicc-options", "-Xcicc", L, NVO_PASS, 0},
    {"--static-global-template-stub", "-static-global-template-stub", V, NVO_PASS, 0},
    {"--device-entity-has-hidden-visibility", "-device-entity-has-hidden-visibility", V, NVO_PASS, 0},
    {"--forward-unknown-to-host-compiler", "-forward-unknown-to-host-compiler", B, NVO_PASS, 0},
    {"--forward-unknown-to-host-linker", "-forward-unknown-to-host-linker", B, NVO_IGNORED, 0},
    {"--forward-unknown-opts", "-forward-unknown-opts", B, NVO_PASS, 0},
    {"--dont-use-profile", "-noprof", B, NVO_PASS, 0},
    {"--dryrun", "-dryrun", B, NVO_IGNORED, 0},
    {"--verbose", "-v", B, NVO_PASS, 0},
    {"--threads", "-t", V, NVO_PASS, 0},
    {"--split-compile", "-split-compile", V, NVO_PASS, 0},
    {"--split-compile-extended", "-split-compile-extended", V, NVO_PASS, 0},
    {"--fdevice-syntax-only", "-fdevice-syntax-only", B, NVO_IGNORED, 0},
    {"--fdevice-time-trace", "-fdevice-time-trace", V, NVO_IGNORED, 0},
    {"--keep", "-keep", B, NVO_IGNORED, 0},
    {"--keep-dir", "-keep-dir", V, NVO_IGNORED, 0},
    {"--save-temps", "-save-temps", B, NVO_IGNORED, 0},
    {"--clean-targets", "-clean", B, NVO_IGNORED, 0},
    {"--time", "-time", V, NVO_IGNORED, 0},
    {"--run-args", "-run-args", L, NVO_IGNORED, 0},
    {"--input-drive-prefix", "-idp", V, NVO_PASS, 0},
    {"--dependency-drive-prefix", "-ddp", V, NVO_IGNORED, 0},
    {"--drive-prefix", "-dp", V, NVO_PASS, 0},
    {"--dependency-target-name", "-MT", V, NVO_IGNORED, 0},
    {"--no-align-double", "--no-align-double", B, NVO_PASS, 0},
    {"--no-device-link", "-nodlink", B, NVO_IGNORED, 0},
    {"--gpu-architecture", "-arch", V, NVO_ARCH, 0},
    {"--gpu-code", "-code", L, NVO_IGNORED, 0},
    {"--generate-code", "-gencode", L, NVO_GENCODE, 0},
    {"--relocatable-device-code", "-rdc", V, NVO_PASS, 0},
    {"--entries", "-e", L, NVO_PASS, 0},
    {"--maxrregcount", "-maxrregcount", V, NVO_PASS, 0},
    {"--use_fast_math", "-use_fast_math", B, NVO_PASS, 0},
    {"--ftz", "-ftz", V, NVO_PASS, 0},
    {"--prec-div", "-prec-div", V, NVO_PASS, 0},
    {"--prec-sqrt", "-prec-sqrt", V, NVO_PASS, 0},
    {"--fmad", "-fmad", V, NVO_PASS, 0},
    {"--extra-device-vectorization", "-extra-device-vectorization", B, NVO_PASS, 0},
    {"--default-stream", "-default-stream", V, NVO_PASS, 0},
    {"--disable-warnings", "-w", B, NVO_PASS, 0},
    {"--keep-device-functions", "-keep-device-functions", B, NVO_PASS, 0},
    {"--source-in-ptx", "-src-in-ptx", B, NVO_PASS, 0},
    {"--restrict", "-restrict", B, NVO_PASS, 0},
    {"--Wreorder", "-Wreorder", B, NVO_PASS, 0},
    {"--Wdefault-stream-launch", "-Wdefault-stream-launch", B, NVO_PASS, 0},
    {"--Wmissing-launch-bounds", "-Wmissing-launch-bounds", B, NVO_PASS, 0},
    {"--Wext-lambda-captures-this", "-Wext-lambda-captures-this", B, NVO_PASS, 0},
    {"--Wno-deprecated-declarations", "-Wno-deprecated-declarations", B, NVO_PASS, 0},
    {"--Wno-deprecated-gpu-targets", "-Wno-deprecated-gpu-targets", B, NVO_PASS, 0},
    {"--Werror", "-Werror", L, NVO_PASS, 0},
    {"--resource-usage", "-res-usage", B, NVO_PASS, 0},
    {"--extensible-whole-program", "-ewp", B, NVO_PASS, 0},
    {"--no-compress", "-no-compress", B, NVO_PASS, 0},
    {"--qpp-config", "-qpp-config", B, NVO_PASS, 0},
    {"--compile-as-tools-patch", "-astoolspatch", B, NVO_PASS, 0},
    {"--list-gpu-code", "-code-ls", B, NVO_IGNORED, 0},
    {"--list-gpu-arch", "-arch-ls", B, NVO_IGNORED, 0},
    {"--display-error-number", "-err-no", B, NVO_PASS, 0},
    {"--no-display-error-number", "-no-err-no", B, NVO_PASS, 0},
    {"--diag-error", "-diag-error", L, NVO_PASS, 0},
    {"--diag-suppress", "-diag-suppress", L, NVO_PASS, 0},
    {"--diag-warn", "-diag-warn", L, NVO_PASS, 0},
    {"--host-linker-script", "-hls", V, NVO_IGNORED, 0},
    {"--augment-host-linker-script", "-aug-hls", B, NVO_IGNORED, 0},
    {"--relocatable-link", "-r", B, NVO_IGNORED, 0},
    {"--brief-diagnostics", "-brief-diag", V, NVO_PASS, 0},
    {"--jump-table-density", "-jtd", V, NVO_PASS, 0},
    {"--relocatable-ptx", "-reloc-ptx", B, NVO_PASS, 0},
    {"--device-stack-protector", "-device-stack-protector", V, NVO_PASS, 0},
    {"--compress-mode", "-compress-mode", V, NVO_PASS, 0},
    {"--frandom-seed", "-frandom-seed", V, NVO_PASS, 0},
    {"--sanitize", "-sanitize", V, NVO_PASS, 0},
    {"--jobserver", "-jobserver", B, NVO_PASS, 0},
    {"--help", "-h", B, NVO_HELP, 0},
    {"--version", "-V", B, NVO_IGNORED, 0},
    {"--options-file", "-optf", L, NVO_OPTFILE, 0},
};

/* The option a (up to '=' or its end) names, else one with a one-character
 * short name that takes a value glued to it (-Idir, -O3); *glued says which. */
static const nvo_opt *lookup(const char *a, bool *glued)
{
    size_t n = strcspn(a, "=");
    *glued = false;
    for (size_t k = 0; k < sizeof opts / sizeof opts[0]; k++)
        if ((strlen(opts[k].lng) == n && !strncmp(a, opts[k].lng, n)) ||
            (strlen(opts[k].shrt) == n && !strncmp(a, opts[k].shrt, n)))
            return &opts[k];
    if (a[0] != '-' || a[1] == '-' || !a[1] || !a[2]) return NULL;
    for (size_t k = 0; k < sizeof opts / sizeof opts[0]; k++)
        if (opts[k].arg != B && strlen(opts[k].shrt) == 2 && opts[k].shrt[1] == a[1]) {
            *glued = true;
            return &opts[k];
        }
    return NULL;
}

static void *grow(void *v, size_t n, size_t *cap, size_t size)
{
    if (n < *cap) return v;
    *cap = *cap ? *cap * 2 : 16;
    v = realloc(v, *cap * size);
    if (!v) abort();
    return v;
}

static char *own(nvo_set *s, char *p)
{
    if (!p) abort();
    s->owned = grow(s->owned, s->nowned, &s->cap[3], sizeof *s->owned);
    return s->owned[s->nowned++] = p;
}

static void push(const char ***v, size_t *n, size_t *cap, const char *a)
{
    *v = grow(*v, *n, cap, sizeof **v);
    (*v)[(*n)++] = a;
}

static char *cat(const char *a, const char *b, size_t nb)
{
    size_t na = strlen(a);
    char *p = malloc(na + nb + 1);
    if (!p) abort();
    memcpy(p, a, na);
    memcpy(p + na, b, nb);
    p[na + nb] = 0;
    return p;
}

/* libclang's spelling of option o with value v: each of a list's values. */
static void to_clang(nvo_set *s, const nvo_opt *o, const char *v)
{
    bool glued = strlen(o->clang) == 2 || o->clang[strlen(o->clang) - 1] == '=';
    for (const char *p = v;;) {
        size_t n = o->arg == L ? strcspn(p, ",") : strlen(p);
        if (n && glued) push(&s->clang, &s->nclang, &s->cap[1], own(s, cat(o->clang, p, n)));
        else if (n) {
            push(&s->clang, &s->nclang, &s->cap[1], o->clang);
            push(&s->clang, &s->nclang, &s->cap[1], own(s, cat("", p, n)));
        }
        if (!p[n]) break;
        p += n + 1;
    }
}

/* -Xcompiler's items that are preprocessor options (-DNAME, -UNAME, -IDIR:
 * the host compiler's spelling is clang's) go to libclang as they are. */
static void hostcc_to_clang(nvo_set *s, const char *v)
{
    for (const char *p = v;;) {
        size_t n = strcspn(p, ",");
        if (n > 2 && p[0] == '-' && (p[1] == 'D' || p[1] == 'U' || p[1] == 'I'))
            push(&s->clang, &s->nclang, &s->cap[1], own(s, cat("", p, n)));
        if (!p[n]) break;
        p += n + 1;
    }
}

/* The highest arch= of a -gencode value ("arch=compute_90,code=sm_90",
 * several of them comma-separated) into s->gencode; false when it names
 * none. */
static bool gencode(nvo_set *s, const char *v)
{
    bool any = false;
    for (const char *p = v; (p = strstr(p, "arch=")); p += 5) {
        if (p != v && p[-1] != ',' && p[-1] != '"' && p[-1] != '\'') continue;
        const char *a = p + 5;
        size_t n = strcspn(a, ",\"' ");
        if (!n || n >= sizeof s->gencode) continue;
        any = true;
        const char *u = memchr(a, '_', n);
        unsigned num = u ? (unsigned)strtoul(u + 1, NULL, 10) : 0, best = 0;
        if (*s->gencode) {
            const char *bu = strchr(s->gencode, '_');
            best = bu ? (unsigned)strtoul(bu + 1, NULL, 10) : 0;
        }
        if (!*s->gencode || num > best) snprintf(s->gencode, sizeof s->gencode, "%.*s", (int)n, a);
    }
    return any;
}

/* How take() treats an option: analyze's command line, the arguments
 * after `--` (to nvcc as they are), an --options-file's (nvcc reads the
 * file itself: only libclang's share is taken). */
enum mode { OWN, AS_GIVEN, IN_FILE };

static int take(nvo_set *s, int argc, char **argv, int i, enum mode m, const char *cmd, int depth);

/* The options in the files of an --options-file list (nvcc's format:
 * whitespace-separated words, "..." keeping spaces), for libclang.  false
 * after a message when one cannot be read (OWN only: otherwise nvcc says
 * so). */
static bool options_files(nvo_set *s, const char *list, enum mode m, const char *cmd, int depth)
{
    for (const char *p = list; depth < 8;) {
        size_t n = strcspn(p, ",");
        char *path = cat("", p, n), *text = NULL;
        FILE *f = fopen(path, "rb");
        size_t len = 0, cap = 0;
        for (int c; f && (c = fgetc(f)) != EOF;) {
            text = grow(text, len + 1, &cap, 1);
            text[len++] = (char)c;
        }
        if (!f && m == OWN) {
            fprintf(stderr, "ptxray %s: --options-file %s: cannot read the file\n", cmd, path);
            free(path);
            return false;
        }
        if (f) fclose(f);
        free(path);
        text = grow(text, len + 1, &cap, 1);
        text[len] = 0;
        /* the words, unquoted in place */
        char **w = calloc(len / 2 + 2, sizeof *w);
        if (!w) abort();
        int nw = 0;
        for (char *r = text, *wr = text; *r;) {
            while (*r == ' ' || *r == '\t' || *r == '\n' || *r == '\r') r++;
            if (!*r) break;
            char *start = wr = r;
            for (bool q = false; *r && (q || !strchr(" \t\n\r", *r)); r++)
                if (*r == '"') q = !q;
                else *wr++ = *r;
            if (*r) r++;
            *wr = 0;
            w[nw++] = start;
        }
        for (int k = 0; k < nw;) {
            int u = take(s, nw, w, k, IN_FILE, cmd, depth + 1);
            k += u > 0 ? u : 1;
        }
        free(w);
        free(text);
        if (!p[n]) break;
        p += n + 1;
    }
    return true;
}

static int take(nvo_set *s, int argc, char **argv, int i, enum mode m, const char *cmd, int depth)
{
    const char *a = argv[i];
    bool glued, as_given = m == AS_GIVEN;
    const nvo_opt *o = a[0] == '-' ? lookup(a, &glued) : NULL;
    if (!o) {
        if (!as_given) return 0;
        push(&s->nvcc, &s->nnvcc, &s->cap[0], a);
        return 1;
    }
    const char *v = NULL, *eq = strchr(a, '=');
    int used = 1;
    if (glued) v = a + 2;
    else if (eq) v = eq + 1;
    if (o->arg == B && eq && !glued) {
        if (m != OWN) return as_given ? push(&s->nvcc, &s->nnvcc, &s->cap[0], a), 1 : 1;
        fprintf(stderr, "ptxray %s: %.*s takes no value\n", cmd, (int)(eq - a), a);
        return -1;
    }
    if (o->arg != B && !v) {
        if (i + 1 >= argc) {
            if (m != OWN) return as_given ? push(&s->nvcc, &s->nnvcc, &s->cap[0], a), 1 : 1;
            fprintf(stderr, "ptxray %s: %s needs a value\n", cmd, a);
            return -1;
        }
        v = argv[i + 1];
        used = 2;
    }
    if (as_given || (m == OWN && (o->role == NVO_PASS || o->role == NVO_PP || o->role == NVO_HOSTCC ||
                                  o->role == NVO_OPTFILE)))
        for (int k = 0; k < used; k++) push(&s->nvcc, &s->nnvcc, &s->cap[0], argv[i + k]);
    if (o->role == NVO_PP) to_clang(s, o, v);
    else if (o->role == NVO_HOSTCC) hostcc_to_clang(s, v);
    else if (o->role == NVO_OPTFILE && !options_files(s, v, m, cmd, depth)) return -1;
    if (m != OWN) return used;
    if (!s->first && o->role != NVO_OUTPUT && o->role != NVO_HELP) s->first = a;
    switch (o->role) {
    case NVO_ARCH: s->arch = v; break;
    case NVO_GENCODE:
        if (!gencode(s, v)) {
            fprintf(stderr, "ptxray %s: %s%s%s: no arch= (nvcc's form: arch=compute_90,code=sm_90)\n", cmd, a,
                    used == 2 ? " " : "", used == 2 ? v : "");
            return -1;
        }
        break;
    case NVO_OUTPUT: s->output = v; break;
    case NVO_HELP: s->help = true; break;
    case NVO_IGNORED:
        if (used == 2) {
            char *t = own(s, cat(a, " ", 1));
            a = own(s, cat(t, v, strlen(v)));
        }
        push(&s->ignored, &s->nignored, &s->cap[2], a);
        break;
    default: break;
    }
    return used;
}

int nvo_take(nvo_set *s, int argc, char **argv, int i, bool as_given, const char *cmd)
{
    return take(s, argc, argv, i, as_given ? AS_GIVEN : OWN, cmd, 0);
}

const char *nvo_arch(const nvo_set *s, const char *dflt)
{
    return s->arch ? s->arch : *s->gencode ? s->gencode : dflt;
}

void nvo_free(nvo_set *s)
{
    for (size_t i = 0; i < s->nowned; i++) free(s->owned[i]);
    free(s->owned);
    free(s->nvcc);
    free(s->clang);
    free(s->ignored);
    memset(s, 0, sizeof *s);
}
