#ifndef PTXRAY_COMMANDS_H
#define PTXRAY_COMMANDS_H
#include "load.h"
#include "version.h"

int cmd_parse(int argc, char **argv);
int cmd_list(int argc, char **argv);
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

#endif
