/* libclang, loaded on first use (clang_dl.c). */
#ifndef PTXRAY_CLANG_DL_H
#define PTXRAY_CLANG_DL_H
#include <stdbool.h>
#include <stddef.h>

/* Loads libclang once; false with the reason in err (n bytes) when it
 * cannot be found. */
bool hc_clang_load(char *err, size_t n);

#endif
