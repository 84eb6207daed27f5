/* What libclang needs besides the .cu file to parse CUDA host code
 * (docs/launches.md, "Parsing .cu files with libclang"): the compiler
 * flags, and small headers ptxray hands it as in-memory files under
 * HC_OVERLAY_DIR.  With a CUDA toolkit, clang's own CUDA wrapper headers
 * with the toolkit's headers, plus stubs for what clang 14's wrapper
 * expects but CUDA 12 and later removed (texture references); without
 * one, ptxray's own minimal declarations of the runtime API (dim3,
 * the launch functions, the built-in variables). */
#ifndef PTXRAY_HOSTCODE_CUDA_PRELUDE_H
#define PTXRAY_HOSTCODE_CUDA_PRELUDE_H
#include <stdbool.h>
#include <stddef.h>

#define HC_OVERLAY_DIR "/ptxray-cuda-overlay"

typedef struct hc_vfile {
    const char *name; /* HC_OVERLAY_DIR "/..." */
    const char *text;
} hc_vfile;

/* The toolkit directory to use (a static buffer), or NULL for the
 * built-in declarations: cuda_path if given, else $CUDA_PATH, else
 * /usr/local/cuda, each only when it has include/cuda_runtime.h. */
const char *hc_cuda_dir(const char *cuda_path);

/* The flags before the user's (args, at most HC_MAX_BASE_ARGS, strings in
 * bufs of HC_ARGBUF bytes each) and the in-memory files, for toolkit
 * (non-NULL) or built-in mode. */
#define HC_MAX_BASE_ARGS 16
#define HC_ARGBUF 4200
size_t hc_base_args(const char *toolkit, const char *args[HC_MAX_BASE_ARGS], char bufs[][HC_ARGBUF]);
const hc_vfile *hc_vfiles(bool toolkit, size_t *n);

#endif
