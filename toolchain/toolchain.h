/* Locating and running the CUDA toolchain (ptxas, nvcc). */
#ifndef PTXRAY_TOOLCHAIN_H
#define PTXRAY_TOOLCHAIN_H
#include <stdbool.h>
#include <stddef.h>

/* Full path of ptxas: $PTXAS, then PATH, then /usr/local/cuda/bin.  NULL if
 * none is executable (the caller says so; nothing crashes). */
const char *tc_find_ptxas(void);
/* The same for nvcc ($NVCC first). */
const char *tc_find_nvcc(void);
const char *tc_find_gnuplot(void); /* $GNUPLOT, then PATH: for spillcost --plot */

/* Runs argv (argv[0] a path) with stdout/stderr captured into *log (malloc'd,
 * NUL-terminated, may be NULL).  Returns the exit status, or -1 if it could
 * not be started or was killed. */
int tc_run(char *const argv[], char **log);

/* Whether file name s ends with suffix (".cu": what nvcc compiles). */
bool tc_ends_with(const char *s, const char *suffix);

/* Writes len bytes of text to path; 0, or -1. */
int tc_write_file(const char *path, const char *text, size_t len);

/* How a file's path is shown to people: relative to the current directory
 * cwd (getcwd's; NULL or "/": never) when it lies below it with no "." or
 * ".." component, as a compiler names the file it was given (nvcc writes
 * the .cu's .file, and cicc its --orig_src_path_name, as absolute paths);
 * else as written.  Returns how many leading bytes of path[0..len) to skip. */
size_t tc_shown_skip(const char *path, size_t len, const char *cwd);

/* `nvcc -ptx -lineinfo -arch=ARCH -o DIR/out.ptx CU`: the PTX's path into
 * ptx (n bytes).  0, or 2 with the reason (nvcc's own messages included)
 * on stderr, as "ptxray CMD: CU: ...". */
int tc_nvcc_ptx(const char *cmd, const char *cu, const char *arch, const char *dir, char *ptx, size_t n,
                const char *const *flags, size_t nflags);

/* "sm_80" from a module's .target, into buf; returns 0 or -1 if none. */
struct ptx_module;
int tc_target_arch(const struct ptx_module *m, char *buf, size_t n);
/* 1 if the module's .target lists "debug" (it is assembled with -g). */
int tc_target_debug(const struct ptx_module *m);

#endif
