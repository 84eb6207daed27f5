#include "commands.h"
int cmd_analyze(int argc, char **argv) { (void)argc; (void)argv; return 2; }
