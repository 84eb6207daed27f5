/* Inserting instructions and declarations into a parsed function.
 *
 * New instructions are written as PTX text and read by the real parser
 * (in a scratch module), then copied into the function: the IR a rewrite
 * builds is exactly what parsing its printed form gives, so the printer,
 * the emulator and ptxas all see the same program.  In that text a
 * register of the function is named %x<index> (ra_edit_rname).  Each
 * distinct shape of line (registers and integer literals aside) is parsed
 * once per module: the edits of one module share an ra_shapes. */
#ifndef PTXRAY_RA_IR_EDIT_H
#define PTXRAY_RA_IR_EDIT_H
#include <stdint.h>
#include "ir.h"

typedef struct ra_edit ra_edit;
typedef struct ra_shapes ra_shapes;

/* The parsed shapes of module m (their copies live in m's arena). */
ra_shapes *ra_shapes_new(ptx_module *m);
void ra_shapes_free(ra_shapes *s);

/* An edit of fn, a function of the shapes' module. */
ra_edit *ra_edit_new(ra_shapes *sh, ptx_func *fn);
/* A fresh register of type t (declared at the top of the body), its index
 * in fn->regs. */
uint32_t ra_edit_reg(ra_edit *e, unsigned type);
/* The same, named so that the printed PTX shows what it holds: tag 'c',
 * 'a' or 's' gives <prefix>mc_..., ma_..., ms_... (a rematerialised
 * constant, affine function of the thread coordinates, or shared slot plus
 * coordinates; docs/regalloc.md, "Marks of rematerialisation"). */
uint32_t ra_edit_reg_tagged(ra_edit *e, unsigned type, char tag);
/* "%x12": how emitted text names register r of the function. */
const char *ra_edit_rname(ra_edit *e, uint32_t r);
/* A name for a new function-scope variable that clashes with nothing in
 * the module ("__ra_local", "__ra_local1", ...); stable for the edit. */
const char *ra_edit_symbol(ra_edit *e, const char *base);
/* Declares `.space .align A .b8 name[bytes];` at the top of the body. */
void ra_edit_array(ra_edit *e, ptx_space space, uint32_t align, uint32_t bytes, const char *name);

/* The instruction of statement s as the rewrite's own: a copy (operands
 * and their elements) in the module's arena takes the statement's place in
 * fn->stmts, so that renaming its registers leaves the statement as parsed
 * intact (ra_options.keep_parsed: analyze's HTML page runs the allocator
 * on its own module and puts each function's statements back).  Once per
 * statement. */
ptx_inst *ra_edit_own(ra_edit *e, uint32_t s);

/* Where the next emitted instructions go: before or after statement s, or
 * (s == RA_EDIT_START) at the start of the body, after its declarations. */
#define RA_EDIT_START UINT32_MAX
void ra_edit_at(ra_edit *e, uint32_t s, bool after);
/* One instruction, printf-style (%s, %u, %d with l or ll, %%), with or
 * without the trailing ';'. */
void ra_edit_emit(ra_edit *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Lines emitted so far (a mark for ra_edit_replay). */
uint32_t ra_edit_mark(const ra_edit *e);
/* Emits lines [from, to) again at the current point with register old[i]
 * replaced by new_[i] (of the same type): what emitting their text again
 * with those registers gives, without formatting and matching it.  For
 * the sequences the rewrite repeats at every access. */
void ra_edit_replay(ra_edit *e, uint32_t from, uint32_t to, const uint32_t *old, const uint32_t *new_, unsigned n);

/* Applies each edit to its function (fn->stmts, fn->regs, fn->ninsts)
 * and frees it; the edits are of the shapes' module, and the shapes they
 * use first are parsed together.  Aborts if the emitted text does not
 * parse: that is a bug of the pass, never of the input. */
void ra_edit_commit_all(ra_edit *const *edits, uint32_t n);

#endif
