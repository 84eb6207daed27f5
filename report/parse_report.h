/* `ptxray parse`: each file checked and summarised (PTX version, kernels,
 * device functions, instructions; per function its parameters,
 * instructions and registers), in text or JSON. */
#ifndef PTXRAY_PARSE_REPORT_H
#define PTXRAY_PARSE_REPORT_H
#include <stdbool.h>

/* Prints the summary of the n files on stdout (text: nothing with quiet
 * but the diagnostics of files that fail).  Returns 2 if any file has an
 * error, else 0. */
int parse_report(char **files, int n, bool json, bool quiet);

#endif
