/* ptxray launches: the kernel launches of CUDA host code and their block
 * shapes (hostcode/launches.h, docs/launches.md). */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "launches.h"
#include "outfile.h"

static void usage(FILE *o)
{
    fputs("usage: ptxray launches FILE.cu... [-I DIR] [-D NAME[=V]] [-U NAME] [-std=c++NN] [-include FILE]\n"
          "                       [--cuda-path DIR] [--builtin-cuda] [--format text|json] [-o OUT] [--verbose]\n"
          "Finds every kernel launch of the host code (<<<...>>>, cudaLaunchKernel,\n"
          "cudaLaunchKernelEx, cudaLaunchCooperativeKernel) with libclang and evaluates its\n"
          "block shape where it is a compile-time constant (literals, macros, constexpr,\n"
          "dim3(...), template arguments, variables never assigned after their\n"
          "initialiser); otherwise says why it is unknown.  Per kernel (the PTX name and a\n"
          "readable one): its shapes and where each launch is.  __launch_bounds__ is shown\n"
          "as what it is, an upper bound.  The JSON is what --launches of check, coalescing,\n"
          "divergence, uniformize and analyze reads.\n"
          "  -I/-D/-U/-std/-include  as for nvcc (also -isystem, --include-path, --define-macro)\n"
          "  --cuda-path DIR  the CUDA toolkit whose headers to parse with (default: $CUDA_PATH,\n"
          "                 else /usr/local/cuda); --builtin-cuda: ptxray's own minimal declarations\n"
          "  --verbose        libclang's errors in system headers (the CUDA toolkit's own, written\n"
          "                 for nvcc) file by file; without it, one note counts them\n"
          "Exit status: 0, or 2 for bad input (a file libclang parses with errors in its own code\n"
          "is a warning).\n",
          o);
}

/* nvcc-style flag at argv[*i] into clang's form in flags (two entries for
 * a flag with a separate value); false when it is not one. */
static bool flag(int argc, char **argv, int *i, const char **flags, size_t *n, char **owned, size_t *nown)
{
    static const struct {
        const char *nv, *clang;
    } sep[] = {{"-I", "-I"}, {"--include-path", "-I"}, {"-D", "-D"}, {"--define-macro", "-D"},
               {"-U", "-U"}, {"--undefine-macro", "-U"}, {"-isystem", "-isystem"}, {"-include", "-include"},
               {"--pre-include", "-include"}, {"-std", "-std="}, {"--std", "-std="}};
    const char *a = argv[*i];
    for (size_t k = 0; k < sizeof sep / sizeof sep[0]; k++) {
        size_t l = strlen(sep[k].nv);
        if (strncmp(a, sep[k].nv, l)) continue;
        const char *v = NULL;
        if (!a[l]) {
            if (*i + 1 >= argc) return false;
            v = argv[++*i];
        } else if (a[l] == '=') v = a + l + 1;
        else if (l == 2 || !strcmp(sep[k].nv, "-isystem")) v = a + l; /* -Idir, -DX */
        else continue;
        bool glued = !strcmp(sep[k].clang, "-std=") || strlen(sep[k].clang) == 2;
        if (glued) {
            char *s = malloc(strlen(sep[k].clang) + strlen(v) + 1);
            if (!s) abort();
            strcpy(s, sep[k].clang);
            strcat(s, v);
            owned[(*nown)++] = s;
            flags[(*n)++] = s;
        } else {
            flags[(*n)++] = sep[k].clang;
            flags[(*n)++] = v;
        }
        return true;
    }
    return false;
}

int cmd_launches(int argc, char **argv)
{
    const char **flags = calloc((size_t)argc * 2 + 1, sizeof *flags);
    char **owned = calloc((size_t)argc + 1, sizeof *owned);
    const char **files = calloc((size_t)argc + 1, sizeof *files);
    if (!flags || !owned || !files) abort();
    size_t nflags = 0, nown = 0, nfiles = 0;
    const char *out = NULL, *format = "text";
    hc_opts o = {0};
    bool verbose = false;
    int rc = 0;
    for (int i = 1; i < argc && !rc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            rc = -1;
        } else if (!strcmp(a, "--format") || !strcmp(a, "-o") || !strcmp(a, "--output") || !strcmp(a, "--cuda-path")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "ptxray launches: %s needs a value\n", a);
                rc = 2;
            } else if (!strcmp(a, "--format")) format = argv[++i];
            else if (!strcmp(a, "--cuda-path")) o.cuda_path = argv[++i];
            else out = argv[++i];
        } else if (!strncmp(a, "--format=", 9)) format = a + 9;
        else if (!strncmp(a, "--cuda-path=", 12)) o.cuda_path = a + 12;
        else if (!strcmp(a, "--builtin-cuda")) o.builtin_cuda = true;
        else if (!strcmp(a, "--verbose")) verbose = true;
        else if (a[0] == '-' && a[1]) {
            if (!flag(argc, argv, &i, flags, &nflags, owned, &nown)) {
                fprintf(stderr, "ptxray launches: unknown option '%s'\n", a);
                usage(stderr);
                rc = 2;
            }
        } else files[nfiles++] = a;
    }
    if (!rc && strcmp(format, "text") && strcmp(format, "json")) {
        fprintf(stderr, "ptxray launches: --format '%s': expected text or json\n", format);
        rc = 2;
    }
    if (!rc && !nfiles) {
        usage(stderr);
        rc = 2;
    }
    hc_result r = {0};
    o.flags = flags;
    o.nflags = nflags;
    for (size_t i = 0; !rc && i < nfiles; i++) rc = hc_scan(files[i], &o, &r, "launches", stderr);
    if (!rc) hc_note_header_errors(&r, "launches", verbose, stderr);
    if (!rc) {
        outfile of;
        if (outfile_open(&of, out)) rc = 2;
        else {
            if (!strcmp(format, "json")) {
                json_t *j = hc_to_json(&r);
                json_dumpf(j, of.f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
                fputc('\n', of.f);
                json_decref(j);
            } else hc_print_text(of.f, &r);
            rc = outfile_commit(&of) ? 2 : 0;
        }
    }
    hc_free(&r);
    for (size_t i = 0; i < nown; i++) free(owned[i]);
    free(owned);
    free(flags);
    free(files);
    return rc < 0 ? 0 : rc;
}
