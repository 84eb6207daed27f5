/* Source names of PTX values (docs/check.md, "Source names"): the one
 * place a message, JSON, SARIF, HTML page or nvcc warning gets the name of
 * a kernel parameter.  nvcc calls parameter i of kernel K `K_param_i`; the
 * reports call it what the .cu calls it ("cols"), read with libclang
 * (hostcode/launches.h: hc_kernel.params) from
 *
 *   - the launch table the run already has (analyze FILE.cu's scan, a
 *     --launches FILE.json with "params", the nvcc wrapper's scan), else
 *   - the .cu a .file directive of the PTX names, found as the source lines
 *     are (srctext.h), parsed once per run and only when a report asks for
 *     a name (a parse takes about half a second);
 *
 * else, with no source, "param 6 of srad_cuda_1" (the kernel as people
 * name it), never the mangled symbol; a parameter that PTX written by hand
 * names itself ("pitch") keeps its name.  A value computed from them is
 * named as a short expression ("2·s"), a load of a __constant__ or
 * __device__ variable by the field it reads (the .cu's layout of the
 * variable, hc_var, read in the same parse). */
#ifndef PTXRAY_SRCNAMES_H
#define PTXRAY_SRCNAMES_H
#include <jansson.h>
#include <stdbool.h>
#include "addr_chain.h"
#include "block_opt.h"
#include "srcloc.h"

/* Where one PTX file's names come from; looked up on the first question. */
typedef struct sn_src {
    const char *ptx_path;   /* as given: relative .file paths resolve from it */
    const src_files *files; /* its .file table */
    const blk_opts *blocks; /* the run's launch table (blocks->launches), or NULL */
    bool looked;
    uint32_t ntabs;
    const hc_table *tabs[4]; /* the tables of its .cu files */
} sn_src;

/* The source name of parameter i of kernel fn, or NULL (s may be NULL). */
const char *sn_param_name(sn_src *s, const ptx_func *fn, uint32_t i);
/* The name of uniform value v of c for a message: a kernel parameter's
 * source name ("cols"), else "param 3 of Fan2" (or the PTX's own name
 * when it is not nvcc's NAME_param_N: hand-written PTX); else, when it is
 * a short expression (at most 3 operators, 40 characters) of those, of
 * constants, of the uniform special registers (blockDim.x, gridDim.x,
 * blockIdx.x) and of loads of device variables at constant offsets, that
 * expression: "2·s", "s + 1", "blockDim.x·cols", "c_cam.width" (the field
 * by its offset, from the .cu's layout of the variable; "[c_cam+28]"
 * without the source); else its PTX register.  *param (may be NULL): the
 * parameter's index, -1 when v is not one. */
const char *sn_value_label(sn_src *s, const addr_chain *c, uint32_t v, char *buf, size_t n, int32_t *param);
/* k·v as sn_value_label names v, a constant factor of the expression
 * folded into k ("64·pitch" for k = 4 and v = pitch << 4). */
const char *sn_value_times(sn_src *s, const addr_chain *c, uint32_t v, int64_t k, char *buf, size_t n);
/* The index of the kernel parameter v is (-1: v is not one), with its
 * source name in *name (NULL when unknown). */
int32_t sn_value_param(sn_src *s, const addr_chain *c, uint32_t v, const char **name);
/* {"index": N, "name": "cols"} (name null when unknown) when v is a kernel
 * parameter, else NULL. */
json_t *sn_param_json(sn_src *s, const addr_chain *c, uint32_t v);
/* Whether label (sn_value_label's) needs parentheses in a product: words,
 * a sum, a negation. */
bool sn_label_compound(const char *label);

#endif
