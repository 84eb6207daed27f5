/* The ptxray IR: module -> top-level statements (directives, variables,
 * functions) -> function body statements (instructions, labels, declarations,
 * scopes, .loc).  Everything is arena-allocated and owned by the module.
 *
 * Strings are spans (pointer + length, not NUL-terminated) into the source
 * buffer, which the module keeps alive; nodes built by rewriting passes point
 * into the arena instead.  Positions are 1-based lines and 1-based byte
 * columns (a tab counts as one column). */
#ifndef PTXRAY_IR_H
#define PTXRAY_IR_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "arena.h"

typedef struct ptx_str {
    const char *p;
    uint32_t n;
} ptx_str;

typedef struct ptx_loc {
    uint32_t line, col, off; /* off: byte offset in the source */
} ptx_loc;

#define PTX_STR_LIT(s) ((ptx_str){(s), (uint32_t)(sizeof(s) - 1)})
/* Inline: most callers compare with a literal, whose strlen the compiler
 * then knows (semantics.c compares every modifier of every instruction). */
static inline bool ptx_str_eq(ptx_str a, const char *z)
{
    size_t n = strlen(z);
    return a.n == n && memcmp(a.p, z, n) == 0;
}
static inline bool ptx_str_eqs(ptx_str a, ptx_str b) { return a.n == b.n && memcmp(a.p, b.p, a.n) == 0; }

/* ---- types and state spaces ------------------------------------------- */
/* Every type (ISA 5.2) in one row: its id, its name and its width in bits
 * (opaque references: 64).  The enum, ptx_type_name and ptx_type_bits are
 * made from it. */
#define PTX_TYPES(X)                                                                                      \
    X(PRED, "pred", 1)                                                                                    \
    X(B8, "b8", 8) X(B16, "b16", 16) X(B32, "b32", 32) X(B64, "b64", 64) X(B128, "b128", 128)             \
    X(U8, "u8", 8) X(U16, "u16", 16) X(U32, "u32", 32) X(U64, "u64", 64)                                  \
    X(S8, "s8", 8) X(S16, "s16", 16) X(S32, "s32", 32) X(S64, "s64", 64)                                  \
    X(F16, "f16", 16) X(F16X2, "f16x2", 32) X(BF16, "bf16", 16) X(BF16X2, "bf16x2", 32)                   \
    X(TF32, "tf32", 32) X(F32, "f32", 32) X(F64, "f64", 64)                                               \
    X(E4M3, "e4m3", 8) X(E5M2, "e5m2", 8) X(E4M3X2, "e4m3x2", 16) X(E5M2X2, "e5m2x2", 16)                 \
    X(E2M3, "e2m3", 8) X(E3M2, "e3m2", 8) X(E2M1, "e2m1", 4) X(E2M1X2, "e2m1x2", 8)                       \
    X(E2M3X2, "e2m3x2", 16) X(E3M2X2, "e3m2x2", 16)                                                       \
    X(UE8M0, "ue8m0", 8) X(UE8M0X2, "ue8m0x2", 16) X(UE4M3, "ue4m3", 8)                                   \
    X(U4, "u4", 4) X(S4, "s4", 4) X(B1, "b1", 1) /* sub-byte mma operand types */                        \
    X(TEXREF, "texref", 64) X(SAMPLERREF, "samplerref", 64) X(SURFREF, "surfref", 64)                     \
    X(F32X2, "f32x2", 64) /* add, sub, mul, fma on a pair of .f32 in a .b64 (sm_100) */
/* The state spaces (ISA 5.1), each with its name; none: generic addressing */
#define PTX_SPACES(X)                                                                                     \
    X(REG, "reg") X(SREG, "sreg") X(CONST, "const") X(GLOBAL, "global") X(LOCAL, "local")                 \
    X(PARAM, "param") X(SHARED, "shared") X(SHARED_CTA, "shared::cta")                                    \
    X(SHARED_CLUSTER, "shared::cluster") X(TEX, "tex") X(PARAM_ENTRY, "param::entry")                     \
    X(PARAM_FUNC, "param::func")
#define PTX_TYPE_ID(id, name, ...) PTX_T_##id,
#define PTX_SPACE_ID(id, name) PTX_SP_##id,
typedef enum ptx_type { PTX_T_NONE = 0, PTX_TYPES(PTX_TYPE_ID) PTX_T__COUNT } ptx_type;
typedef enum ptx_space { PTX_SP_NONE = 0, PTX_SPACES(PTX_SPACE_ID) PTX_SP__COUNT } ptx_space;

const char *ptx_type_name(ptx_type t);   /* ".b32" */
const char *ptx_space_name(ptx_space s); /* ".global" */
/* Width in bits of a value of type t (pred: 1, b128: 128, opaque refs: 64). */
unsigned ptx_type_bits(ptx_type t);
/* The integer register types .b8-.b64, .u8-.u64, .s8-.s64 (not .b128, which
 * no integer arithmetic reads). */
static inline bool ptx_type_is_int(unsigned t) { return t >= PTX_T_B8 && t <= PTX_T_S64 && t != PTX_T_B128; }
static inline bool ptx_type_is_signed(unsigned t) { return t >= PTX_T_S8 && t <= PTX_T_S64; }
static inline bool ptx_type_is_unsigned(unsigned t) { return t >= PTX_T_U8 && t <= PTX_T_U64; }
ptx_type ptx_type_from_str(ptx_str s);   /* s includes the leading '.'; NONE if not a type */
ptx_space ptx_space_from_str(ptx_str s); /* ".global", ".shared::cta", ...; NONE if not */

/* ---- constant expressions (initialisers, operands, debug arithmetic) -- */
typedef enum ptx_expr_kind {
    PTX_E_INT,    /* integer literal: v.i, text = its spelling without sign */
    PTX_E_FLOAT,  /* 0fXXXXXXXX / 0dXXXX..., or decimal: text */
    PTX_E_SYM,    /* identifier */
    PTX_E_UNARY,  /* op in {'-','~','!','+'} */
    PTX_E_BINARY, /* op: + - * / % << >> & | ^ && || == != < > <= >= */
    PTX_E_COND,   /* a ? b : c */
    PTX_E_CALL,   /* generic(sym), mask(...): name + args */
    PTX_E_PAREN,  /* ( e ) kept so the printer reproduces grouping */
} ptx_expr_kind;

enum { PTX_OP_SHL = 256, PTX_OP_SHR, PTX_OP_LAND, PTX_OP_LOR, PTX_OP_EQ, PTX_OP_NE, PTX_OP_LE, PTX_OP_GE };

typedef struct ptx_expr ptx_expr;
struct ptx_expr {
    uint8_t kind;
    uint8_t fkind;  /* PTX_E_FLOAT: 'f' = 0f hex, 'd' = 0d hex, 'x' = decimal */
    uint16_t op;    /* operator for UNARY/BINARY (a char or PTX_OP_*) */
    uint16_t depth; /* height of the tree (a literal is 1); bounded by the parser */
    uint16_t pad_;
    uint32_t nargs; /* CALL */
    ptx_str text;   /* INT/FLOAT spelling, SYM/CALL name */
    union {
        int64_t i;    /* INT value (wraps to 64 bits); FLOAT 0f/0d: raw bits */
        ptx_expr *a;  /* UNARY/PAREN operand, BINARY/COND left */
        ptx_expr **args;
    } u;
    ptx_expr *b, *c;
    ptx_loc loc;
};

/* ---- operands ------------------------------------------------------------ */
/* 24 bytes: the IR of a 100 MB file must stay within a few times its size. */
typedef enum ptx_opd_kind {
    PTX_O_REG,  /* virtual register: n = index into fn->regs; comp: 0 or 'x','y','z','w' */
    PTX_O_SREG, /* special register: n = ptx_sreg, v = family index (%envreg3), comp;
                 * p.text = its spelling ("%tid.x") when parsed, NULL when built */
    PTX_O_IMM,  /* literal: v = value (int, or raw IEEE bits of a float), p.text/n = spelling
                 * including a leading '-'; flags = PTX_IMM_* */
    PTX_O_SYM,  /* symbol (label, variable, function, param): p.text/n = name; a label
                 * (or a .branchtargets table) of the function's body: v = index of
                 * its statement in fn->stmts + 1 (the resolver's answer, which also
                 * tells apart the sibling { } blocks that reuse a name), else 0 */
    PTX_O_EXPR, /* any other constant expression: p.expr */
    PTX_O_ADDR, /* [elems[0] + v] (v = offset; flags PTX_ADDR_OFF when written, even +0),
                 * or [a, b, {c,d}] (texture/surface form, n > 1) */
    PTX_O_VEC,  /* {a, b, c, d}: p.elems, n */
    PTX_O_PAIR, /* a|b: p.elems[0..1] */
    PTX_O_LIST, /* (a, b): call return/argument list: p.elems, n */
    PTX_O_SINK, /* _ */
} ptx_opd_kind;

enum {
    PTX_IMM_INT = 0, PTX_IMM_F32 = 1 /* 0f */, PTX_IMM_F64 = 2 /* 0d */, PTX_IMM_DEC = 3 /* 1.5: double bits */,
    PTX_ADDR_OFF = 4,
};

typedef struct ptx_operand ptx_operand;
struct ptx_operand {
    uint8_t kind;
    uint8_t neg;   /* !p operand */
    uint8_t comp;
    uint8_t flags;
    uint32_t n;
    union {
        const char *text;
        ptx_operand *elems;
        struct ptx_expr *expr;
    } p;
    int64_t v;
};
/* SYM name / IMM spelling as a span. */
static inline ptx_str ptx_opd_text(const ptx_operand *o) { ptx_str s = {o->p.text, o->n}; return s; }
/* fn(ctx, o, name) for each symbol an operand or a constant expression
 * names, in order: o is the symbol operand itself, NULL for a name inside an
 * expression.  The one walker of names (resolution, the emulator, the
 * allocator's shared area). */
typedef void (*ptx_sym_fn)(void *ctx, const ptx_operand *o, ptx_str name);
void ptx_opd_syms(const ptx_operand *o, ptx_sym_fn fn, void *ctx);
void ptx_expr_syms(const struct ptx_expr *e, ptx_sym_fn fn, void *ctx);

/* Special registers (ISA 10).  The table lives in ir.c. */
typedef enum ptx_sreg {
    PTX_SR_UNKNOWN = 0,
    PTX_SR_TID, PTX_SR_NTID, PTX_SR_LANEID, PTX_SR_WARPID, PTX_SR_NWARPID,
    PTX_SR_CTAID, PTX_SR_NCTAID, PTX_SR_SMID, PTX_SR_NSMID, PTX_SR_GRIDID,
    PTX_SR_LANEMASK_EQ, PTX_SR_LANEMASK_LE, PTX_SR_LANEMASK_LT, PTX_SR_LANEMASK_GE,
    PTX_SR_LANEMASK_GT, PTX_SR_CLOCK, PTX_SR_CLOCK_HI, PTX_SR_CLOCK64,
    PTX_SR_PM, PTX_SR_PM64, PTX_SR_ENVREG, PTX_SR_GLOBALTIMER, PTX_SR_GLOBALTIMER_LO,
    PTX_SR_GLOBALTIMER_HI, PTX_SR_RESERVED_SMEM, PTX_SR_TOTAL_SMEM_SIZE,
    PTX_SR_AGGR_SMEM_SIZE, PTX_SR_DYNAMIC_SMEM_SIZE, PTX_SR_CURRENT_GRAPH_EXEC,
    PTX_SR_CLUSTERID, PTX_SR_NCLUSTERID, PTX_SR_CLUSTER_CTAID, PTX_SR_CLUSTER_NCTAID,
    PTX_SR_CLUSTER_CTARANK, PTX_SR_CLUSTER_NCTARANK, PTX_SR_IS_EXPLICIT_CLUSTER,
    PTX_SR__COUNT
} ptx_sreg;
/* Looks up "%tid" style names (without component); for numbered families
 * (%pm0..7, %envreg0..31, %reserved_smem_offset_*) *index receives the number. */
ptx_sreg ptx_sreg_lookup(ptx_str name, uint32_t *index);
const char *ptx_sreg_name(ptx_sreg id); /* "%tid"; numbered families give the prefix */

/* ---- declarations ---------------------------------------------------------- */
enum {
    PTX_LINK_VISIBLE = 1, PTX_LINK_EXTERN = 2, PTX_LINK_WEAK = 4, PTX_LINK_COMMON = 8,
};

typedef struct ptx_init ptx_init;
struct ptx_init {
    uint8_t kind; /* 'e' expr, 'l' list {..}, 'k' key = value (sampler fields) */
    uint32_t n;
    ptx_expr *expr;     /* 'e'; 'k': value */
    ptx_str key;        /* 'k' */
    ptx_init **items;   /* 'l' */
};

/* A variable, parameter or register declaration (one declarator). */
typedef struct ptx_var {
    ptx_str name;
    uint8_t space;     /* ptx_space */
    uint8_t type;      /* ptx_type */
    uint8_t vec;       /* 0, 2, 4, 8 */
    uint8_t linkage;   /* PTX_LINK_* */
    uint8_t is_ptr;    /* .ptr attribute on a kernel parameter */
    uint8_t ptr_space; /* .ptr .global etc. */
    uint8_t has_range; /* .reg %r<N> */
    uint8_t unsized;   /* trailing [] */
    uint32_t align;    /* 0 = not written */
    uint32_t ptr_align;
    uint32_t range;    /* N of %r<N> */
    uint32_t ndims;
    uint64_t *dims;    /* 0 for the unsized dimension */
    ptx_init *init;
    ptx_str attrs;     /* raw ".attribute(...)" text, printed verbatim */
    ptx_loc loc;
} ptx_var;

/* One entry per register name actually used or declared singly; ranges
 * (%r<N>) materialise entries lazily as names are used. */
typedef struct ptx_reg {
    ptx_str name;
    uint8_t type;
    uint8_t vec;
    uint32_t decl; /* index of the declaring ptx_var in fn->vars, or UINT32_MAX */
} ptx_reg;

/* ---- instructions ---------------------------------------------------------- */
/* Opcode families (isa.def: the mnemonic before the first '.'). UNKNOWN
 * keeps the text and is treated conservatively by every analysis. */
typedef enum ptx_opcode {
    PTX_OPC_UNKNOWN,
#define PTX_OP(id, text, ...) PTX_OPC_##id,
#include "isa.def"
#undef PTX_OP
    PTX_OPC__COUNT
} ptx_opcode;
const char *ptx_opcode_name(ptx_opcode op);
ptx_opcode ptx_opcode_lookup(const char *s, size_t n);

typedef struct ptx_inst {
    const char *opcode;  /* full text "ld.global.nc.v4.f32", opcode_len bytes */
    ptx_operand *opd;
    uint32_t guard;      /* register index of the guard predicate */
    uint16_t op;         /* ptx_opcode */
    uint16_t opcode_len;
    uint8_t has_guard;
    uint8_t guard_neg;
    uint8_t nmods;       /* modifiers after the base mnemonic */
    uint8_t type;        /* last type modifier (ptx_type) */
    uint8_t type2;       /* the type modifier before it, or NONE: cvt.s64.s32 has type S32 (the source) and type2 S64 (the destination) */
    uint8_t space;       /* state-space modifier (ptx_space), NONE if generic/none */
    uint8_t vec;         /* .v2/.v4/.v8 */
    uint8_t nopd;
} ptx_inst;              /* its position is the owning statement's loc */

/* The modifiers of an instruction in one pass over its opcode text:
 *   ptx_mod_iter it = ptx_mods_begin(in); ptx_str m;
 *   while (ptx_mods_next(&it, &m)) ...
 * m is ".xxx" with its '.'; "::" parts stay inside one modifier. */
typedef struct ptx_mod_iter {
    const char *p, *end;
} ptx_mod_iter;

static inline ptx_mod_iter ptx_mods_begin(const ptx_inst *in)
{
    ptx_mod_iter it = {in->opcode, in->opcode + in->opcode_len};
    if (!it.p) {
        it.end = NULL;
        return it;
    }
    while (it.p < it.end && *it.p != '.') it.p++;
    return it;
}

static inline bool ptx_mods_next(ptx_mod_iter *it, ptx_str *m)
{
    if (!it->p || it->p >= it->end) return false;
    const char *s = it->p++;
    while (it->p < it->end && *it->p != '.') it->p++;
    m->p = s;
    m->n = (uint32_t)(it->p - s);
    return true;
}

/* Modifier i (0-based) of an instruction, with its leading '.', e.g. ".nc". */
ptx_str ptx_inst_mod(const ptx_inst *in, unsigned i);
/* mod (with its '.') among the modifiers: one pass over the opcode's text
 * (ptx_inst_mod(in, i) for each i would rescan it from the start every
 * time), inline where it is asked (the semantics' sub-operation rules ask
 * it on every instruction they see). */
static inline bool ptx_inst_has_mod(const ptx_inst *in, const char *mod)
{
    size_t n = strlen(mod);
    ptx_mod_iter it = ptx_mods_begin(in);
    ptx_str m;
    while (ptx_mods_next(&it, &m))
        if (m.n == n && !memcmp(m.p, mod, n)) return true;
    return false;
}

/* ---- statements ------------------------------------------------------------ */
typedef enum ptx_stmt_kind {
    PTX_S_INST,
    PTX_S_LABEL,      /* name */
    PTX_S_VAR,        /* var (register or variable declaration, one declarator) */
    PTX_S_LOC,        /* .loc */
    PTX_S_PRAGMA,     /* .pragma "a", "b"; : strings */
    PTX_S_SCOPE_BEGIN,
    PTX_S_SCOPE_END,
    PTX_S_PROTO,      /* label: .callprototype ... */
    PTX_S_TARGETS,    /* label: .branchtargets/.calltargets a, b; */
    PTX_S_VERSION, PTX_S_TARGET, PTX_S_ADDRSIZE,
    PTX_S_FILE,       /* .file */
    PTX_S_SECTION,    /* .section name { raw } */
    PTX_S_FUNC,       /* function definition or declaration */
    PTX_S_ALIAS,      /* .alias a, b; */
    PTX_S_DIRECTIVE,  /* any other directive: name + raw operand text */
} ptx_stmt_kind;

typedef struct ptx_func ptx_func;

typedef struct ptx_locinfo {
    const char *fn_name;   /* function_name label, fn_name_len bytes; NULL if absent */
    uint32_t fn_name_len;
    uint32_t file, line, col;
    uint32_t ia_file, ia_line, ia_col; /* inlined_at; ia_file == 0 if absent */
} ptx_locinfo;

/* Payload of the less frequent statements, kept out of line so that the
 * common ones (instructions, labels, .loc) stay small. */
typedef struct ptx_dirinfo {
    ptx_str name;   /* TARGETS/PROTO: the label; FILE: quoted path; SECTION: section
                     * name; DIRECTIVE: the directive */
    ptx_str raw;    /* VERSION/ADDRSIZE: number text; FILE: index; SECTION: text
                     * between the braces; DIRECTIVE: the rest up to ';' */
    uint32_t n;
    ptx_str *items; /* PRAGMA: strings (quotes included); TARGETS: targets; ALIAS: the
                     * two names; TARGET: target names; FILE: extra numbers */
    ptx_func *proto;/* PROTO: the prototype as a body-less function */
    uint32_t *refs; /* TARGETS of a function body ('b'): the statement index of each
                     * item's label (UINT32_MAX: not a label), recorded by the resolver;
                     * NULL when not recorded (use ptx_target_ref) */
} ptx_dirinfo;

typedef struct ptx_stmt {
    uint8_t kind;
    uint8_t flag;      /* TARGETS: 'b' branch, 'c' call */
    uint8_t pad_[2];
    ptx_loc loc;
    union {
        ptx_inst inst;
        ptx_str name;  /* LABEL */
        ptx_var *var;  /* VAR */
        ptx_locinfo locinfo;
        ptx_func *func;
        ptx_dirinfo *dir;
    } u;
} ptx_stmt;

/* The parser allocates a statement with the bytes its kind uses, not
 * sizeof(ptx_stmt) (which the .loc payload sets): an instruction takes 48
 * bytes (its operands follow), a label 32, a .loc 56; a 100k-block body
 * has 250k statements.  So a ptx_stmt is never copied whole or read past
 * its kind's member; a pass that builds statements may allocate the whole
 * struct. */
#define PTX_STMT_BYTES(member) (offsetof(ptx_stmt, u) + sizeof(((ptx_stmt *)0)->u.member))
static inline size_t ptx_stmt_bytes(unsigned kind) {
    return kind == PTX_S_LOC ? sizeof(ptx_stmt) : kind == PTX_S_LABEL ? PTX_STMT_BYTES(name) : PTX_STMT_BYTES(inst);
}

/* A performance or other function-header directive (.maxntid 256,1,1). */
typedef struct ptx_fdirective {
    ptx_str name;
    uint32_t n;
    uint64_t vals[3];
    ptx_str raw; /* for directives with non-numeric arguments (.pragma) */
} ptx_fdirective;

struct ptx_func {
    ptx_str name;
    uint8_t is_entry;
    uint8_t linkage;
    uint8_t has_body;   /* false for declarations / prototypes */
    uint8_t has_params; /* a parameter list was written, even () */
    uint8_t has_rets;
    uint8_t noreturn;
    uint32_t nrets, nparams, nfdirs;
    ptx_var **rets, **params;
    ptx_fdirective *fdirs;
    uint32_t nstmts;
    ptx_stmt **stmts;
    uint32_t nregs;
    ptx_reg *regs;
    uint32_t ninsts; /* number of PTX_S_INST statements */
    ptx_loc loc;      /* the .entry/.func keyword */
    ptx_loc name_loc; /* the function's name */
};

typedef struct ptx_module {
    arena arena;
    const char *path;      /* for diagnostics */
    char *src;             /* the source buffer (owned) */
    size_t src_len;
    bool src_in_arena;     /* src lives in the arena (else malloc'd) */
    uint32_t nstmts;
    ptx_stmt **stmts;
    uint32_t nfuncs;       /* definitions and declarations, in order */
    ptx_func **funcs;
    uint32_t version_major, version_minor;
    uint32_t address_size; /* 32/64, 0 if not given */
    uint32_t target_sm;    /* NN of the .target's sm_NN, 0 if none */
    uint8_t target_arch;   /* sm_NNa (arch-specific) or sm_NNf (family) */
    uint8_t target_suffix; /* 'a', 'f' or 0: which of the two */
} ptx_module;

ptx_func *ptx_module_find_func(const ptx_module *m, const char *name);

/* The statement index of the statement of kind `kind` (PTX_S_LABEL, or
 * PTX_S_TARGETS for brx.idx's table) that a PTX_O_SYM operand of f's body
 * names (recorded by the resolver, see PTX_O_SYM), or UINT32_MAX when none
 * was recorded or the body has changed since: then look it up by name. */
static inline uint32_t ptx_stmt_ref(const ptx_func *f, const ptx_operand *o, unsigned kind) {
    if (o->kind != PTX_O_SYM || o->v <= 0 || (uint64_t)o->v > f->nstmts) return UINT32_MAX;
    const ptx_stmt *s = f->stmts[o->v - 1];
    if (s->kind != kind) return UINT32_MAX;
    ptx_str name = kind == PTX_S_LABEL ? s->u.name : s->u.dir->name;
    if (name.n != o->n || !ptx_str_eqs(name, ptx_opd_text(o))) return UINT32_MAX;
    return (uint32_t)(o->v - 1);
}
static inline uint32_t ptx_label_ref(const ptx_func *f, const ptx_operand *o) {
    return ptx_stmt_ref(f, o, PTX_S_LABEL);
}
/* The statement index of the label that item i of a .branchtargets
 * statement of f names, as the resolver recorded it, or UINT32_MAX (look it
 * up by name). */
static inline uint32_t ptx_target_ref(const ptx_func *f, const ptx_dirinfo *d, uint32_t i) {
    if (!d->refs || d->refs[i] >= f->nstmts) return UINT32_MAX;
    const ptx_stmt *s = f->stmts[d->refs[i]];
    if (s->kind != PTX_S_LABEL || !ptx_str_eqs(s->u.name, d->items[i])) return UINT32_MAX;
    return d->refs[i];
}

#endif
