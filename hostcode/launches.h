/* Kernel launches read from CUDA host code (docs/launches.md): every
 * `<<<grid, block>>>`, cudaLaunchKernel, cudaLaunchKernelEx and
 * cudaLaunchCooperativeKernel call of a .cu file, found with libclang, and
 * the block shape of each where it is a compile-time constant (literals,
 * macros, constexpr and const variables, dim3 built from those, template
 * arguments of the function the launch is in, local variables never
 * assigned after their initialiser); otherwise the reason it is unknown.
 * A launch through a function pointer is one launch of each kernel the
 * pointer may hold, when every one is known (issue 38: variables, tables
 * of kernels, a helper's parameter with each call's arguments), else one
 * launch of a kernel not known statically, with the reason.
 * Kernels are named as the PTX names them (the Itanium mangled name, or the
 * plain name of an extern "C" kernel).  __launch_bounds__ is recorded as
 * what it is: an upper bound on the block size, not a shape. */
#ifndef PTXRAY_HOSTCODE_LAUNCHES_H
#define PTXRAY_HOSTCODE_LAUNCHES_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum hc_via { HC_CHEVRONS, HC_LAUNCH_KERNEL, HC_LAUNCH_KERNEL_EX, HC_LAUNCH_COOPERATIVE, HC_NVIAS };

typedef struct hc_launch {
    char *kernel;       /* the PTX name; NULL: the kernel is not known statically */
    char *display;      /* readable name, or the callee expression's text */
    char *file;         /* as given on the command line for the main file */
    uint32_t line, col;
    uint8_t via;        /* hc_via */
    bool known;         /* block[] holds the shape */
    uint32_t block[3];
    char *why;          /* why the shape (or the kernel) is unknown; NULL when known */
    /* a launch through a function pointer whose every target is known (one
     * hc_launch per target kernel): the callee's text ("k", "table[i]"),
     * and, when the pointer is a parameter of the launching function, the
     * call that passed this kernel ("file:line:col"); both NULL otherwise */
    char *through, *called_at;
} hc_launch;

typedef struct hc_kernel {
    char *name, *display;
    char *file;         /* where declared; NULL for a kernel only seen launched */
    uint32_t line;
    uint32_t max_threads, min_blocks; /* __launch_bounds__; 0: none or not a literal */
    char *addr_taken;   /* "file:line" of a use other than a launch (a function pointer), else NULL */
    /* the source names of its parameters, in order (nvcc's NAME_param_i is
     * the i-th; "" for an unnamed one); NULL when no declaration was seen */
    char **params;
    uint32_t nparams;
} hc_kernel;

/* One node of a device variable's type layout (hc_var.f): the variable
 * itself, a field of a struct or class, an array or its element; what
 * names the bytes a PTX load reads (srcnames: ld.const [c_cam+28] is
 * c_cam.width).  Offsets in bytes from the enclosing node. */
typedef struct hc_field {
    char *name;         /* the field's name; NULL for the variable and an array's element */
    uint64_t off, size;
    uint64_t count;     /* an array: its element count, the element its one child */
    uint32_t first, nkids; /* its children in hc_var.f: a struct's fields, an array's element */
    bool record;        /* a struct or class: named by field */
    bool opaque;        /* a union, a struct with bit-fields or unnamed members: no names inside */
} hc_field;

/* A __constant__, __device__ or __managed__ variable at namespace scope. */
typedef struct hc_var {
    char *name;         /* the PTX symbol (clang's mangling; a static one's plain name) */
    uint64_t size, align;
    hc_field *f;        /* f[0]: the variable's type */
    uint32_t nf;
} hc_var;

typedef struct hc_result {
    hc_kernel *k;
    size_t nk, capk;
    hc_launch *l;
    size_t nl, capl;
    hc_var *v;          /* device variables with a layout libclang could give */
    size_t nv, capv;
    char **files;       /* the files scanned */
    uint32_t *file_errors; /* libclang errors per file, in its own code */
    char **file_first_error;
    /* and in system headers: the CUDA toolkit's own, which use nvcc's
     * extensions that libclang lacks (cooperative_groups.h's libcu++) */
    uint32_t *file_header_errors;
    char **file_first_header_error;
    size_t nfiles;
} hc_result;

typedef struct hc_opts {
    const char *const *flags; /* -I, -D, -U, -std=, -include ... passed to libclang */
    size_t nflags;
    const char *cuda_path;    /* NULL: $CUDA_PATH, else /usr/local/cuda, when it has include/cuda_runtime.h */
    bool builtin_cuda;        /* ignore any toolkit: ptxray's own minimal CUDA declarations */
} hc_opts;

/* true when ptxray was built with libclang. */
bool hc_available(void);

/* Scans one .cu file and appends its kernels and launches to r (kernels
 * already in r, by name, are kept once).  0; 2 after "ptxray CMD: ..." on
 * err when the file cannot be read or libclang cannot start.  A file
 * libclang parses with errors still gives what it could evaluate: errors
 * in the file's own code (and its project's headers) get a warning on err,
 * those in system headers none (hc_note_header_errors); r records both
 * counts. */
int hc_scan(const char *path, const hc_opts *o, hc_result *r, const char *cmd, FILE *err);
/* Once per run, after the scans: one note on err when libclang reported
 * errors in system headers ("... --verbose lists them"); with verbose, a
 * line per file with its count and first error.  Nothing when there were
 * none. */
void hc_note_header_errors(const hc_result *r, const char *cmd, bool verbose, FILE *err);
void hc_free(hc_result *r);
/* A copy of v (its strings and layout) into *d; frees what a copy holds. */
void hc_var_copy(hc_var *d, const hc_var *v);
void hc_var_free(hc_var *v);
/* The source path of the scalar of bytes bytes at byte off of v: ".width",
 * "[3]", ".origin.x", "" for a scalar variable; false when off falls on
 * padding, inside a union, across scalars or past the end. */
bool hc_var_path(const hc_var *v, uint64_t off, uint32_t bytes, char *buf, size_t n);

const char *hc_via_text(enum hc_via v); /* "<<<>>>", "cudaLaunchKernel", ... */

/* The per-kernel view: kernels in order (declared ones first, in the order
 * of their files and lines, then ones only seen launched), each with its
 * distinct shapes in the order of their first launch.  Text and JSON. */
void hc_print_text(FILE *o, const hc_result *r);
/* A jansson json_t * (void * here to keep this header small). */
void *hc_to_json(const hc_result *r);

#endif
