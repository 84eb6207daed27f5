/* ptxray launches: the kernel launches of CUDA host code and their block
 * shapes (hostcode/launches.h, docs/launches.md). */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "launches.h"
#include "nvcc_opts.h"
#include "outfile.h"

static void usage(FILE *o)
{
    fputs("usage: ptxray launches FILE.cu... [NVCC-OPTIONS] [--cuda-path DIR] [--builtin-cuda]\n"
          "                       [--format text|json] [-o OUT] [--verbose]\n"
          "Finds every kernel launch of the host code (<<<...>>>, cudaLaunchKernel,\n"
          "cudaLaunchKernelEx, cudaLaunchCooperativeKernel) with libclang and evaluates its\n"
          "block shape where it is a compile-time constant (literals, macros, constexpr,\n"
          "dim3(...), template arguments, variables never assigned after their\n"
          "initialiser); otherwise says why it is unknown.  Per kernel (the PTX name and a\n"
          "readable one): its shapes and where each launch is.  __launch_bounds__ is shown\n"
          "as what it is, an upper bound.  The JSON is what --launches of check, coalescing,\n"
          "divergence, uniformize and analyze reads.\n"
          "  NVCC-OPTIONS     nvcc's, in nvcc's spellings (-I DIR, -IDIR, --include-path=DIR,\n"
          "                 -D NAME[=V], -U, -isystem, -include, -std c++17, -Xcompiler -DX, ...):\n"
          "                 the preprocessor ones reach libclang, the rest are accepted and\n"
          "                 mean nothing here (the same command line as nvcc's serves)\n"
          "  --cuda-path DIR  the CUDA toolkit whose headers to parse with (default: $CUDA_PATH,\n"
          "                 else /usr/local/cuda); --builtin-cuda: ptxray's own minimal declarations\n"
          "  --verbose        libclang's errors in system headers (the CUDA toolkit's own, written\n"
          "                 for nvcc) file by file; without it, one note counts them\n"
          "Exit status: 0, or 2 for bad input (a file libclang parses with errors in its own code\n"
          "is a warning).\n",
          o);
}

int cmd_launches(int argc, char **argv)
{
    /* nvcc's options, read as analyze reads them (toolchain/nvcc_opts.h):
     * the preprocessor ones reach libclang, the rest mean nothing here and
     * are accepted, so that a .cu's nvcc command line serves as it is */
    nvo_set nv = {0};
    const char **files = calloc((size_t)argc + 1, sizeof *files);
    if (!files) abort();
    size_t nfiles = 0;
    const char *out = NULL, *format = "text";
    hc_opts o = {0};
    bool verbose = false;
    int rc = 0;
    for (int i = 1; i < argc && !rc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--format") || !strcmp(a, "--output") || !strcmp(a, "--cuda-path")) {
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
        else if (!strncmp(a, "--output=", 9)) out = a + 9;
        else if (a[0] == '-' && a[1]) {
            int u = nvo_take(&nv, argc, argv, i, false, "launches");
            if (u > 0) i += u - 1;
            else if (u < 0) rc = 2;
            else {
                fprintf(stderr, "ptxray launches: unknown option '%s' (neither launches' nor nvcc's)\n", a);
                usage(stderr);
                rc = 2;
            }
        } else files[nfiles++] = a;
    }
    if (nv.output) out = nv.output;
    if (!rc && nv.help) {
        usage(stdout);
        rc = -1;
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
    o.flags = nv.clang;
    o.nflags = nv.nclang;
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
    nvo_free(&nv);
    free(files);
    return rc < 0 ? 0 : rc;
}
