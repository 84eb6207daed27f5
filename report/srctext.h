/* The text of CUDA source lines, for the reports that quote them (a
 * gcc-style caret line) and for the fingerprints of `ptxray check`
 * (docs/check.md).  A .file path is looked up as written (absolute, or
 * from the current directory), then relative to the PTX file's directory
 * and up to three of its parents (nvcc writes the path it was given, so
 * ptx/k.ptx may name src/k.cu of the directory above).  Files are read
 * once and kept. */
#ifndef PTXRAY_SRCTEXT_H
#define PTXRAY_SRCTEXT_H
#include <stddef.h>
#include <stdint.h>

typedef struct src_texts src_texts;

src_texts *st_new(void);
void st_free(src_texts *t);
/* Line `line` (1-based) of source `file` named in PTX file ptx_path,
 * without its newline, with *len its length; NULL when the file cannot be
 * read or is shorter.  *found (may be NULL) is the path it was read from.
 * The memory is t's. */
const char *st_line(src_texts *t, const char *ptx_path, const char *file, uint32_t line, size_t *len,
                    const char **found);
/* The path source `file` named in PTX file ptx_path is read from (the
 * lookup above), or NULL when it cannot be read.  The memory is t's. */
const char *st_find(src_texts *t, const char *ptx_path, const char *file);

#endif
