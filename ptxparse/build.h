/* Internal: the state shared by the lexer, the grammar actions and the IR
 * builder.  Not part of the public API (see ptx.h). */
#ifndef PTXRAY_BUILD_H
#define PTXRAY_BUILD_H
#include <stdint.h>
#include "ir.h"
#include "ptx.h"
#include "parser.h"

/* flex's bison bridge names the types without the api.prefix */
#ifndef YYSTYPE
#define YYSTYPE PTX_YYSTYPE
#endif
#ifndef YYLTYPE
#define YYLTYPE ptx_loc
#endif

struct ptx_lexstate {
    char *buf;              /* source, followed by two NULs */
    size_t len;
    uint32_t line;
    const char *line_start;
    int stop;               /* set when the error limit is reached: lexer returns EOF */
    int section;            /* 1 after .section, 2 after its name: next '{' opens raw text */
    int braces;             /* '{' minus '}' seen so far */
    int skip;               /* error recovery: drop tokens until braces returns to 0 */
    const char *raw_start;
    ptx_loc raw_loc;
    int semi;               /* a ';' read with the token before it, not returned yet */
    ptx_loc semi_loc;
    ptx_builder *b;
    void *scanner;          /* the flex scanner reading buf */
};

/* Deeper nesting of { } in a body, or of constant expressions, is refused
 * (real PTX nests a few levels); recursion over the IR stays bounded. */
#define PTX_MAX_SCOPE_DEPTH 1000
#define PTX_MAX_EXPR_DEPTH 1000

#define PTX_VEC(T) struct { T *v; uint32_t n, cap; }

/* FNV-1a: the one hash of names (registers, symbols, mnemonics). */
static inline uint32_t ptx_hash(const char *s, size_t n) {
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

typedef struct ptx_range {
    ptx_str prefix;   /* "%r" of %r<100> */
    uint64_t pword;   /* the prefix's bytes as a little-endian word, when at most 8 */
    uint32_t count;
    uint32_t decl;    /* index in the body's declaration list */
    uint32_t depth;   /* scope depth of the declaration */
    uint8_t type, vec;
    uint32_t *ids;    /* number -> register index, UINT32_MAX until first use */
} ptx_range;


typedef struct ptx_named_slice {
    ptx_func *f;
    uint32_t first, n;
} ptx_named_slice;

typedef struct ptx_opcache {
    const char *text;
    uint64_t head, tail; /* first and last 8 bytes (zero-padded when shorter) */
    uint16_t len, op;
    uint8_t nmods, type, type2, space, vec;
    uint32_t spell;      /* the validator's id of the spelling, UINT32_MAX if none */
} ptx_opcache;
/* Small: the builder is zeroed for every file (a corpus of small files
 * paid more for zeroing 1024 entries than for the misses), and a miss costs a
 * few hundred instructions. */
#define PTX_OPCACHE_SIZE 256

/* Register-range prefix ("%rd" as a word) -> the innermost range with that
 * prefix, valid while gen matches the builder's regcache_gen (any
 * declaration or scope exit starts a new generation). */
typedef struct ptx_rangecache {
    uint64_t pword;
    uint32_t k, idx, gen, pad_;
} ptx_rangecache;
#define PTX_RANGECACHE_SIZE 64

struct ptx_builder {
    ptx_module *m;
    arena *a;          /* the module's arena */
    arena pool;        /* expressions of the statement being parsed; reset after it */
    char *pool_reset;  /* pool.cur just after its last reset */
    ptx_diags *d;
    struct ptx_lexstate ls;

    PTX_VEC(ptx_operand) ostack;
    PTX_VEC(ptx_str) sstack;
    PTX_VEC(ptx_var *) vstack;
    PTX_VEC(uint64_t) dstack;
    PTX_VEC(ptx_init *) istack;
    PTX_VEC(ptx_expr *) estack;
    PTX_VEC(ptx_stmt *) top;
    PTX_VEC(ptx_func *) funcs;

    ptx_var tmpl;      /* qualifiers of the declaration being parsed */
    int tmpl_used;     /* a declarator or function took tmpl: clear it at the next qualifier */
    int tmpl_bad;      /* an unknown qualifier was reported: no follow-up errors */
    ptx_loc tmpl_link_loc;
    ptx_loc off_loc;   /* first [reg+off] element of the address being parsed */
    int has_off_loc;
    int64_t sreg_off; /* offset of "[%sreg+off]": a special register's v is its family index */
    ptx_loc entry_rets_loc;
    ptx_func *fn;      /* function whose header or body is being parsed */
    ptx_func *sig;     /* function or .callprototype whose parameters are being parsed */
    int in_body;
    uint32_t depth;    /* scope depth inside the body (body = 1) */

    PTX_VEC(ptx_stmt *) body;
    /* For resolve.c: the indices in their body of the statements that define
     * or use a name (labels, variables, prototypes, targets, instructions with
     * a symbol operand), in order, for all bodies; and each body's slice of
     * that list. */
    PTX_VEC(uint32_t) named;
    PTX_VEC(ptx_named_slice) named_bodies;
    uint32_t named_start;
    PTX_VEC(ptx_reg) regs;
    PTX_VEC(uint32_t) hnext;   /* per register: next in its hash chain */
    PTX_VEC(uint32_t) rdepth;  /* per register: scope depth of its declaration */
    uint32_t *heads;           /* hash buckets of single register names */
    uint32_t hcap;
    PTX_VEC(uint32_t) undo;    /* single registers in the table, in insertion order */
    PTX_VEC(uint32_t) marks;   /* undo-log size at each open scope */
    PTX_VEC(ptx_range) ranges;
    uint32_t nvars;            /* declarations in the body so far */
    uint32_t digit_singles;    /* single registers in scope whose name ends in a digit */

    ptx_opcache opcache[PTX_OPCACHE_SIZE];
    ptx_rangecache rangecache[PTX_RANGECACHE_SIZE];
    uint32_t regcache_gen;
    ptx_stmt *cur_loc;
    int seen_version, seen_target, seen_other;
    PTX_VEC(ptx_str) unknown_ops; /* unknown mnemonics already warned about */
    struct ptx_vstate *vs;     /* the validator's state, NULL with validation off */
};

extern int ptx_validation;

/* Lexer side. */
void ptx_lex_begin(struct ptx_lexstate *ls);
void ptx_lex_end(struct ptx_lexstate *ls);
int ptx_yylex(PTX_YYSTYPE *lval, ptx_loc *lloc, struct ptx_lexstate *ls);
/* The ';' the scanner read with the token before it (lexer.l, SEMI). */
static inline int ptx_lex_semi(struct ptx_lexstate *ls, ptx_loc *lloc) {
    ls->semi = 0;
    if (ls->stop) return PTX_YYEOF;
    *lloc = ls->semi_loc;
    return ';';
}
int ptx_yylex_raw(PTX_YYSTYPE *lval, ptx_loc *lloc, void *scanner); /* flex's own */
void ptx_lex_error(struct ptx_lexstate *ls, const ptx_loc *loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Messages' positions and words, read off the source by the lexer's module
 * (lexer.l), not by their callers.  ptx_loc_at: the position of p in src
 * counted from from (a word inside a statement: resolve.c, validate.c);
 * from when p is outside.  ptx_lex_token_text: the text of the token at
 * loc, up to the next separator (a syntax error's "unexpected identifier
 * 'foo'").  ptx_lex_operand: where operand i starts in the text p..e after
 * an opcode (top-level commas); NULL past the ';'. */
ptx_loc ptx_loc_at(const char *src, size_t len, ptx_loc from, const char *p);
int ptx_lex_token_text(const struct ptx_lexstate *ls, ptx_loc loc, char *out, size_t cap);
const char *ptx_lex_operand(const char *p, const char *e, unsigned i);

/* Grammar actions (build.c). */
void ptx_b_error(ptx_builder *b, ptx_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* nexp = 0: too many possibilities to list. */
void ptx_b_syntax_error(ptx_builder *b, ptx_loc loc, const char *got, int at_eof, int nexp,
                        const char **exp);
void ptx_b_version(ptx_builder *b, ptx_str v, ptx_loc dloc, ptx_loc loc);
void ptx_b_target(ptx_builder *b, uint32_t n, ptx_loc loc);
void ptx_b_address_size(ptx_builder *b, ptx_str v, ptx_loc loc, ptx_loc vloc);
void ptx_b_file(ptx_builder *b, ptx_str idx, ptx_str path, uint32_t n, ptx_loc loc);
void ptx_b_section(ptx_builder *b, ptx_str name, ptx_str raw, ptx_loc loc);
void ptx_b_alias(ptx_builder *b, ptx_str a, ptx_str c, ptx_loc loc);
void ptx_b_pragma(ptx_builder *b, uint32_t n, ptx_loc loc);
void ptx_b_recover_toplevel(ptx_builder *b);
void ptx_b_recover_stmt(ptx_builder *b);
void ptx_b_recover_body(ptx_builder *b);
void ptx_b_push_str(ptx_builder *b, ptx_str s);
ptx_str ptx_b_span(ptx_builder *b, ptx_loc from, ptx_loc last_char);

/* Applies one qualifier (k: 's'pace 'l'inkage 't'ype 'v'ector 'a'lign 'p'tr
 * 'A'ttribute '?'unknown) to b->tmpl, clearing it first if its previous
 * declaration has been consumed. */
void ptx_b_qual(ptx_builder *b, int k, uint32_t v, ptx_str s, ptx_loc loc);
void ptx_b_declared(ptx_builder *b, ptx_var *v);
ptx_var *ptx_b_var(ptx_builder *b, ptx_str name, ptx_loc loc, int64_t range, uint32_t ndims,
                   ptx_init *init);
int64_t ptx_b_range(ptx_builder *b, ptx_str n, ptx_loc loc);
void ptx_b_push_dim(ptx_builder *b, ptx_str n, ptx_loc loc);
ptx_init *ptx_b_init_expr(ptx_builder *b, ptx_expr *e);
ptx_init *ptx_b_init_list(ptx_builder *b, uint32_t n);
ptx_init *ptx_b_init_kv(ptx_builder *b, ptx_str k, ptx_str v);
void ptx_b_push_init(ptx_builder *b, ptx_init *i);
void ptx_b_push_var(ptx_builder *b, ptx_var *v);

ptx_func *ptx_b_func_begin(ptx_builder *b, ptx_var *quals, int is_entry, ptx_loc loc);
void ptx_b_sig_list(ptx_builder *b, uint32_t n, ptx_loc loc, int rets);
void ptx_b_fdir(ptx_builder *b, ptx_str name, uint32_t nargs, ptx_loc loc);
void ptx_b_fdir_pragma(ptx_builder *b, uint32_t n);
void ptx_b_no_body(ptx_builder *b);
void ptx_b_body_begin(ptx_builder *b);
void ptx_b_body_end(ptx_builder *b);
void ptx_b_func_end(ptx_builder *b, ptx_func *f, ptx_str name, ptx_loc loc);

void ptx_b_label(ptx_builder *b, ptx_str name, ptx_loc loc);
void ptx_b_proto_begin(ptx_builder *b, ptx_str label, ptx_loc loc);
void ptx_b_proto_end(ptx_builder *b, ptx_str name, ptx_loc loc);
void ptx_b_targets(ptx_builder *b, ptx_str label, uint32_t kind, uint32_t n, ptx_loc loc);
void ptx_b_scope_begin(ptx_builder *b, ptx_loc loc);
void ptx_b_scope_end(ptx_builder *b, ptx_loc loc);
void ptx_b_loc_begin(ptx_builder *b, ptx_str file, ptx_str line, ptx_str col, ptx_loc loc);
void ptx_b_loc3(ptx_builder *b, ptx_loc3v v, ptx_loc loc);
void ptx_b_loc_fn(ptx_builder *b, ptx_str key, ptx_str name, ptx_loc loc);
void ptx_b_loc_ia(ptx_builder *b, ptx_str key, ptx_str f, ptx_str l, ptx_str c, ptx_loc loc);
void ptx_b_loc_end(ptx_builder *b);

void ptx_b_inst(ptx_builder *b, int64_t guard, ptx_str opcode, ptx_loc loc, uint32_t nopd);
int64_t ptx_b_guard(ptx_builder *b, ptx_str name, ptx_loc loc, int neg);
void ptx_b_opd_reg(ptx_builder *b, ptx_str name, ptx_loc loc, int neg);
/* The registers of a T_REGC token ("%r1, %r2,"), each as ptx_b_opd_reg
 * (mode 1: the first negated; 2: the first paired with the operand before
 * it); returns how many. */
uint32_t ptx_b_opd_regs(ptx_builder *b, ptx_str run, ptx_loc loc, int mode);
void ptx_b_opd_reg_off(ptx_builder *b, ptx_str name, ptx_loc loc, ptx_expr *off, int neg);
void ptx_b_opd_expr(ptx_builder *b, ptx_expr *e);
void ptx_b_opd_agg(ptx_builder *b, int kind, uint32_t n);
void ptx_b_opd_addr(ptx_builder *b, uint32_t n, ptx_loc loc);
void ptx_b_opd_addr_tok(ptx_builder *b, ptx_str tok, ptx_loc loc);

ptx_expr *ptx_b_e_int(ptx_builder *b, ptx_str t, ptx_loc loc);
ptx_expr *ptx_b_e_float(ptx_builder *b, ptx_str t, ptx_loc loc);
ptx_expr *ptx_b_e_sym(ptx_builder *b, ptx_str t, ptx_loc loc);
ptx_expr *ptx_b_e_call(ptx_builder *b, ptx_str name, uint32_t n, ptx_loc loc);
ptx_expr *ptx_b_e_unary(ptx_builder *b, int op, ptx_expr *a, ptx_loc loc);
ptx_expr *ptx_b_e_bin(ptx_builder *b, int op, ptx_expr *l, ptx_expr *r, ptx_loc loc);
ptx_expr *ptx_b_e_cond(ptx_builder *b, ptx_expr *c, ptx_expr *t, ptx_expr *f, ptx_loc loc);
void ptx_b_push_expr(ptx_builder *b, ptx_expr *e);

/* After parsing: resolve symbols of every function (resolve.c). */
void ptx_resolve_module(ptx_builder *b);
/* Every instruction against its form (validate.c, isa.def), as it is
 * built, while it is still in the cache; the messages are held back and
 * reach the diagnostics only from ptx_validate_module, after a parse and
 * resolution without errors (as if the module were checked afterwards). */
void ptx_validate_begin(ptx_builder *b);
uint32_t ptx_validate_spelling(ptx_builder *b, const ptx_inst *in); /* id for the opcode cache */
void ptx_validate_inst(ptx_builder *b, const ptx_stmt *s, uint32_t spell);
void ptx_validate_body_begin(ptx_builder *b);
void ptx_validate_body_end(ptx_builder *b, const ptx_func *f);
void ptx_validate_module(ptx_builder *b);
void ptx_validate_free(ptx_builder *b);

/* ir.c: modifier/opcode tables. */
enum { PTX_MOD_NONE, PTX_MOD_TYPE, PTX_MOD_SPACE, PTX_MOD_VEC };
void ptx_tables_init(void);
int ptx_mod_classify(const char *s, size_t n, uint8_t *val); /* s includes '.' */

#endif
