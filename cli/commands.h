#ifndef PTXRAY_COMMANDS_H
#define PTXRAY_COMMANDS_H
#include "program.h"
#include "ptx.h"

#define PTXRAY_VERSION "0.1.0"

int cmd_parse(int argc, char **argv);
int cmd_print(int argc, char **argv);
int cmd_roundtrip(int argc, char **argv);
int cmd_cfg(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_divergence(int argc, char **argv);
int cmd_uniformize(int argc, char **argv);
int cmd_coalescing(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_analyze(int argc, char **argv);
int cmd_regalloc(int argc, char **argv);
int cmd_nvcc(int argc, char **argv);
int cmd_spillcost(int argc, char **argv);
int cmd_launches(int argc, char **argv);

/* Loads path and builds its program up to level (only `kernel`'s function
 * when not NULL), reporting errors as "ptxray CMD: ..." or file:line:col
 * diagnostics; NULL on error (nothing to free), else the program and *m. */
prog *cli_load_prog(const char *cmd, const char *path, const char *kernel, enum prog_level level, ptx_module **m);

/* Parses path, printing diagnostics to stderr; NULL on error. */
ptx_module *cli_load(const char *path, int quiet);
#endif
