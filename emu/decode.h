/* Decoder internals shared by decode.c (functions, operands, symbols) and
 * decode_ops.c (one decoder per opcode family). */
#ifndef PTXRAY_EMU_DECODE_H
#define PTXRAY_EMU_DECODE_H
#include "emu_internal.h"

#define MAX_MODS 24

typedef struct mods {
    ptx_str w[MAX_MODS];
    uint8_t used[MAX_MODS];
    unsigned nw;
    uint8_t types[4], ntypes;
    uint8_t spaces[2], nspaces;
    uint8_t vec;
    uint8_t rnd;
    uint8_t cmp; /* CMP_* */
} mods;

enum { CMP_NONE, CMP_EQ, CMP_NE, CMP_LT, CMP_LE, CMP_GT, CMP_GE, CMP_LO, CMP_LS, CMP_HI, CMP_HS,
       CMP_EQU, CMP_NEU, CMP_LTU, CMP_LEU, CMP_GTU, CMP_GEU, CMP_NUM, CMP_NAN };

typedef struct lsym {
    ptx_str name;
    uint32_t off, size;
} lsym;

typedef struct dctx {
    emu_machine *M;
    efunc *F;
    const ptx_func *fn;
    uint32_t fi;
    uint32_t nslots, npreds;
    uint32_t sink, psink;
    uint32_t cc;          /* carry-flag slot, EMU_NONE until needed */
    slotinit *init;
    uint32_t ninit, initcap;
    lsym *syms;
    uint32_t nsyms, symcap;
    bool dyn;
    char why[300];
} dctx;

enum { SYM_FRAME, SYM_KPARAM, SYM_GLOBAL, SYM_CONST, SYM_SHARED, SYM_FUNC };
typedef struct symref {
    uint8_t kind;
    uint64_t v;
    uint64_t size;
} symref;

void dec_why(dctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void dec_mods(const ptx_inst *in, mods *md);
bool dec_take(mods *md, const char *z);
uint32_t dec_const(dctx *c, uint64_t v);
uint32_t dec_src(dctx *c, const ptx_operand *o, unsigned t, bool *ok);
uint32_t dec_psrc(dctx *c, const ptx_operand *o, bool *ok);
uint32_t dec_dst(dctx *c, const ptx_operand *o, bool *ok);
uint32_t dec_pdst(dctx *c, const ptx_operand *o, bool *ok);
unsigned dec_reg_bytes(dctx *c, const ptx_operand *o);
bool dec_addr(dctx *c, const ptx_operand *o, einst *I, unsigned ptx_space);
bool dec_sym(dctx *c, ptx_str name, symref *out);
bool dec_sreg_dynamic(unsigned kind);

/* decode_ops.c: fills I for one instruction; false with c->why set if the
 * instruction or a modifier is not supported. */
bool dec_family(dctx *c, const ptx_inst *in, mods *md, einst *I);

/* Handler lookups (exec_*.c).  Each returns NULL and sets *why when the
 * combination of type and modifiers is not implemented. */
emu_fn emu_lookup_int(unsigned opc, einst *I, const char **why);
emu_fn emu_lookup_float(unsigned opc, einst *I, const char **why);
emu_fn emu_lookup_cvt(einst *I, const char **why);
emu_fn emu_lookup_mem(unsigned opc, einst *I, const char **why);
emu_cfn emu_lookup_coll(unsigned opc, einst *I, const char **why);

#endif
