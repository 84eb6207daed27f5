/* nvcc's command line: the one table of nvcc's options in ptxray
 * (NVIDIA's "NVCC Command Options", as nvcc 13.0's --help lists them), and
 * the one reader of it, for the commands that take nvcc's options beside
 * their own: `analyze FILE.cu` (nvcc -ptx, and libclang for the launches)
 * and `launches` (libclang).  (`ptxray nvcc` passes nvcc's command line to
 * nvcc untouched and reads what it needs from `nvcc --dryrun`.)
 *
 * nvcc's notation: every option has a long name (--include-path) and a
 * short one (-I); a value follows after spaces or '=' (-I dir, -I=dir,
 * --include-path=dir), or, after a one-character short name, directly
 * (-Idir, -DX, -O3); a list option's values are comma-separated (-Ia,b is
 * -I a -I b), and nvcc splits -D's value there too. */
#ifndef PTXRAY_NVCC_OPTS_H
#define PTXRAY_NVCC_OPTS_H
#include <stdbool.h>
#include <stddef.h>

enum nvo_role {
    NVO_PASS,    /* to nvcc as given */
    NVO_PP,      /* preprocessor (-I, -isystem, -D, -U, -include, -std): nvcc, and libclang in clang's spelling */
    NVO_HOSTCC,  /* -Xcompiler: nvcc; its -DNAME, -UNAME and -IDIR items libclang too */
    NVO_ARCH,    /* -arch: the architecture of the PTX */
    NVO_GENCODE, /* -gencode: its highest arch= is the PTX's when -arch is not given */
    NVO_OUTPUT,  /* -o: the command's own output file */
    NVO_HELP,    /* -h, --help: the command's own usage */
    NVO_OPTFILE, /* --options-file (CMake's response files): nvcc; the preprocessor options in it libclang too */
    NVO_IGNORED  /* for other steps than one PTX compile: phases, linking, dependency and other outputs, -code */
};

/* What the options of a command line come to. */
typedef struct nvo_set {
    const char **nvcc; /* for nvcc: the options as given, values apart where given apart */
    size_t nnvcc;
    const char **clang; /* for libclang: the preprocessor ones in clang's spelling (-Ia -Ib for -Ia,b) */
    size_t nclang;
    const char **ignored; /* NVO_IGNORED options, each as given (a value apart joined with a space, owned) */
    size_t nignored;
    const char *arch;  /* the last -arch's value; NULL: not given */
    char gencode[32];  /* the highest arch= of the -gencode options; "": none */
    const char *output; /* the last -o's value */
    const char *first;   /* the first option for nvcc (not -o, -h) as given, for messages; NULL: none */
    bool help;
    char **owned; /* what the lists above point to that is not argv's */
    size_t nowned, cap[4]; /* the capacities of nvcc, clang, ignored, owned */
} nvo_set;

/* The nvcc option at argv[i] into s.  Returns the argv entries it used (1,
 * or 2 for a value given apart), 0 when argv[i] is not one of nvcc's
 * options, -1 after "ptxray CMD: ..." on stderr (a missing or bad value).
 * With as_given (the arguments after `--`) every argument goes to nvcc as
 * it is, an unknown one too (nvcc says what it makes of it); the
 * preprocessor ones still go to libclang as well. */
int nvo_take(nvo_set *s, int argc, char **argv, int i, bool as_given, const char *cmd);

/* The architecture nvcc -ptx is to compile for: -arch's, else the highest
 * -gencode arch=, else dflt. */
const char *nvo_arch(const nvo_set *s, const char *dflt);

void nvo_free(nvo_set *s);

#endif
