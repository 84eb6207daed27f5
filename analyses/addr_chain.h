/* Facts about address computations that the affine analysis does not keep,
 * found by following each value's definitions in SSA form:
 *
 *  - provenance: which state space a pointer provably points into (a
 *    kernel's 64-bit parameter, a cvta to or from .global, a .global or
 *    .shared variable), so that generic loads and stores through such
 *    pointers count as global (or shared) accesses;
 *  - the constant term modulo a power of two: the affine analysis calls the
 *    base of an address "⊥" (a parameter plus blockIdx·blockDim·4 ...); here
 *    a kernel pointer parameter is an allocation base, 256-byte aligned
 *    (cudaMalloc guarantees it), blockDim.x is a multiple of 32 when the
 *    block shape is not given, and the constants added on the way are
 *    tracked exactly, so an address like a + 4·(i + 1) is known to sit 4
 *    bytes past a 128-byte boundary;
 *  - the name of an unknown stride: tid.x·N for N a kernel parameter;
 *  - the step of a pointer that a loop advances by a constant.
 *
 * Everything is per function, over the SSA values of prog_func.  Memory
 * from the arena given. */
#ifndef PTXRAY_ADDR_CHAIN_H
#define PTXRAY_ADDR_CHAIN_H
#include <stdbool.h>
#include "divergence.h"
#include "residue.h"
#include "warp_lanes.h"

enum addr_prov {
    AP_TOP,     /* not computed yet */
    AP_INT,     /* no pointer: an index, a size, a constant */
    AP_PARAM64, /* a kernel's 64-bit parameter: a pointer into global memory, or a 64-bit integer */
    AP_GLOBAL,
    AP_SHARED,
    AP_LOCAL,
    AP_CONST,
    AP_UNKNOWN, /* loaded from memory, returned by a call, or of mixed origin */
};

/* What the author states about a kernel's parameters and the PTX cannot
 * know (a project file's `width % 32 == 0`, a pointer 128-byte aligned;
 * report/config.h): parameter `param`'s value modulo 2^res.k.  Read where
 * the parameter is loaded, in place of what the chain assumes there
 * (nothing for an integer, 256-byte alignment for a pointer): the same
 * residues, seeded with more bits.  tag: the statement's owner's. */
typedef struct param_fact {
    uint32_t param;
    residue res;
    const void *tag;
} param_fact;

#define PARAM_FACTS_MAX 32

typedef struct param_facts {
    uint32_t n;
    param_fact v[PARAM_FACTS_MAX];
} param_facts;

typedef struct addr_chain {
    const prog_func *pf;
    const param_facts *facts; /* NULL: none */
    const div_result *r; /* an affine analysis of pf */
    const ptx_module *m;
    warp_shape shape;
    uint8_t *prov;       /* per SSA value: addr_prov */
    residue *res;        /* per SSA value: its constant term modulo 2^k */
} addr_chain;

addr_chain *addr_chain_build(const ptx_module *m, const prog_func *pf, const div_result *r, const warp_shape *sh,
                             const param_facts *facts, arena *a);

/* The kernel parameters (bit i: parameter i < 64) whose loaded value v is
 * computed from, through every definition and phi: what a fact on a
 * parameter can have changed of v. */
uint64_t addr_param_deps(const addr_chain *c, uint32_t v);

/* The instruction defining value v (*stmt its statement), or NULL. */
const ptx_inst *addr_def(const addr_chain *c, uint32_t v, uint32_t *stmt);

/* What the address operand opd of the instruction at stmt is known to be:
 * its register's constant term plus the operand's offset (or a variable's
 * alignment), and its provenance. */
residue addr_operand_residue(const addr_chain *c, uint32_t stmt, uint32_t opd);
enum addr_prov addr_operand_prov(const addr_chain *c, uint32_t stmt, uint32_t opd);

/* The coefficient of monomial i in value v as k·sym, sym a uniform value
 * (a kernel parameter, %ntid.x, ...) that the affine analysis could not
 * know: tid.x·N.  False when it is not of that form. */
bool addr_name_coef(const addr_chain *c, uint32_t v, unsigned i, int64_t *k, uint32_t *sym);

/* The PTX name of uniform value v: the parameter it was loaded from
 * ("Fan2_param_3", *param_index its index in the kernel's parameters, else
 * -1; may be NULL), a special register ("%ntid.x"), else its register.
 * Reports name values with sn_value_label (report/srcnames.h), which
 * gives a parameter its source name. */
const char *addr_value_label(const addr_chain *c, uint32_t v, char *buf, size_t n, int32_t *param_index);

/* When v is a loop's induction pointer (a mu advanced by a constant each
 * iteration, the address an unrolled loop walks with [p], [p+4], ...): the
 * step in bytes and the statement of the increment. */
bool addr_loop_step(const addr_chain *c, uint32_t v, int64_t *step, uint32_t *stmt);

const char *addr_prov_name(enum addr_prov p);

#endif
