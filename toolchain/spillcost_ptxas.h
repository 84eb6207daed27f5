/* ptxas -v for ptxray spillcost: running it and reading its per-function
 * resource lines (docs/spillcost.md). */
#ifndef PTXRAY_SPILLCOST_PTXAS_H
#define PTXRAY_SPILLCOST_PTXAS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What ptxas -v says about one function.  A .func gets only the
 * "Function properties" line (stack and spills); an entry also gets the
 * "Used N registers, ..." line. */
typedef struct sc_ptxas_func {
    char *name;                 /* malloc'd */
    bool has_props, has_used;
    uint32_t registers, stack_frame, spill_stores, spill_loads, smem;
} sc_ptxas_func;

typedef struct sc_ptxas_info {
    uint32_t nfuncs;
    sc_ptxas_func *funcs;       /* in the order ptxas names them */
    uint32_t reg_lower_bound;   /* "adjusting per thread register count of N to lower bound of M": M, else 0 */
} sc_ptxas_info;

/* Reads the output of ptxas -v (any other lines are ignored).  Returns 0,
 * or -1 if it names no function at all. */
int sc_ptxas_parse(const char *log, sc_ptxas_info *out);
const sc_ptxas_func *sc_ptxas_find(const sc_ptxas_info *p, const char *name);
void sc_ptxas_free(sc_ptxas_info *p);

/* The line of a ptxas log that says why it failed ("fatal" or "error"),
 * else its last line, into buf ("no output" for none). */
const char *sc_ptxas_why(const char *log, char *buf, size_t n);

/* Runs `ptxas -v -arch=ARCH -O3|-g [-maxrregcount N] PTX -o CUBIN` (maxrreg
 * 0: none) and parses what it prints.  Returns 0, or -1 with *log (malloc'd,
 * may be NULL) holding what ptxas said when it failed or said nothing
 * usable. */
int sc_ptxas_run(const char *ptxas, const char *ptx, const char *cubin, const char *arch, bool debug,
                 unsigned maxrreg, sc_ptxas_info *out, char **log);

/* ptxas -v for `ptxray list` and analyze's pages: m (parsed from path)
 * assembled for the sm_XX of its .target (-g when it says debug), the
 * cubin in dir and removed.  0 with *why "ptxas -v -arch=sm_XX", or -1
 * with *why saying why not (ptxas NULL: "ptxas not found"). */
struct ptx_module;
int sc_ptxas_module(const struct ptx_module *m, const char *path, const char *ptxas, const char *dir,
                    sc_ptxas_info *info, char *why, size_t n);

#endif
