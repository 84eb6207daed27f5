/* `ptxray list`: the kernels of PTX files as people name them (demangled
 * C++ names), with their parameters, launch bounds and, when ptxas is
 * found, what `ptxas -v` says about each: registers, spill bytes, shared
 * memory. */
#ifndef PTXRAY_LIST_REPORT_H
#define PTXRAY_LIST_REPORT_H

/* Lists the kernels of the n files on stdout.  Returns 2 if a file could
 * not be read or parsed (the others are still listed), else 0. */
int list_report(char **files, int n);

#endif
