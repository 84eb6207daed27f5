/* PTX grammar (PTX ISA 6.0-9.0, chapters 4-5 and 11).  The grammar only
 * recognises structure; build.c turns it into IR and does the checks that
 * need context (declared registers, types, duplicate labels). */
%require "3.8"
%define api.pure full
%define api.prefix {ptx_yy}
%define api.location.type {ptx_loc}
%define parse.error custom
%locations
%param {struct ptx_lexstate *lexer}
%parse-param {ptx_builder *b}

%code requires {
#include "ir.h"
typedef struct ptx_builder ptx_builder;
/* ".loc F L C" read by the lexer (numbers of at most 9 digits: lex_loc3) */
typedef struct ptx_loc3v { uint32_t file, line, col; } ptx_loc3v;
struct ptx_lexstate;
#define YYLLOC_DEFAULT(Cur, Rhs, N)                                           \
    do {                                                                      \
        if (N) (Cur) = YYRHSLOC(Rhs, 1);                                      \
        else (Cur) = YYRHSLOC(Rhs, 0);                                        \
    } while (0)
}

%code {
#include <string.h>
#include "build.h"
/* Bison's stack must hold PTX_MAX_SCOPE_DEPTH nested blocks (3 entries each)
 * so that the builder, not "memory exhausted", reports the limit. */
#define YYMAXDEPTH 100000
/* flex's scanner called directly; ptx_yylex only while a body is skipped
 * after an error in its header (one call less per token). */
#define ptx_yylex(lval, lloc, lx)                                                 \
    (__builtin_expect(!(lx)->skip, 1)                                             \
         ? ((lx)->semi ? ptx_lex_semi(lx, lloc) : ptx_yylex_raw(lval, lloc, (lx)->scanner)) \
         : ptx_yylex(lval, lloc, lx))
static void ptx_yyerror(ptx_loc *loc, struct ptx_lexstate *lexer, ptx_builder *b, const char *msg) {
    (void)lexer;
    /* the only message bison itself produces is stack exhaustion */
    if (!strcmp(msg, "memory exhausted"))
        ptx_b_error(b, *loc, "input nested too deeply (parser stack limit %d)", YYMAXDEPTH);
    else
        ptx_b_error(b, *loc, "%s", msg);
}
}

%union {
    ptx_str s;
    ptx_loc3v l3;
    uint32_t u;
    int64_t i;
    ptx_expr *e;
    ptx_init *init;
    ptx_var *var;
    ptx_func *fn;
}

%token <s> T_IDENT "identifier" T_PIDENT "register" T_OPCODE "instruction"
%token <s> T_INT "integer" T_FLOAT "floating-point number" T_STRING "string"
%token <l3> T_LOC3 ".loc directive"
%token <s> T_ADDR "address" T_REGC "register," T_ADDRC "address,"
%token <s> T_DOTIDENT "directive" T_FDIR "performance directive" T_RAWBLOCK "section body"
%token T_VERSION ".version" T_TARGET ".target" T_ADDRESS_SIZE ".address_size"
%token T_FILE ".file" T_LOC ".loc" T_SECTION ".section" T_ENTRY ".entry" T_FUNC ".func"
%token <u> T_LINKAGE "linkage directive" T_SPACE "state space" T_TYPE "type" T_VEC "vector size"
%token <u> T_TARGETS ".branchtargets/.calltargets"
%token T_ALIGN ".align" T_PTR ".ptr" T_ATTRIBUTE ".attribute" T_PRAGMA ".pragma"
%token T_CALLPROTOTYPE ".callprototype" T_ALIAS ".alias"
%token T_SHL "<<" T_SHR ">>" T_LAND "&&" T_LOR "||" T_EQ "==" T_NE "!=" T_LE "<=" T_GE ">="

%type <u> opd_list opd_pfx opd_cx addr_list addr_pfx param_list_opt param_list ddims init_list ident_list
%type <u> string_list expr_list fdir_args file_extra
%type <i> guard drange
%type <e> expr
%type <init> init dinit
%type <var> quals1 opt_quals declarator
%type <fn> func_begin
%type <s> opcode dname

%right '?' ':'
%left T_LOR
%left T_LAND
%left '|'
%left '^'
%left '&'
%left T_EQ T_NE
%left '<' '>' T_LE T_GE
%left T_SHL T_SHR
%left '+' '-'
%left '*' '/' '%'
%precedence UNARY

/* Two shift/reduce conflicts, both resolved by shifting.  An operand that
 * starts with '(' and holds one expression, "(x)", is read as a
 * parenthesised expression; build.c turns it into a one-element list where
 * the operand is a call's argument or return list.  A .pragma after a
 * function declaration written without ';' belongs to the function. */
%expect 2

%%

module: %empty
      | module top
      ;

top: T_VERSION T_FLOAT                      { ptx_b_version(b, $2, @1, @2); }
   | T_VERSION T_INT                        { ptx_b_version(b, $2, @1, @2); }
   | T_TARGET ident_list                    { ptx_b_target(b, $2, @1); }
   | T_ADDRESS_SIZE T_INT                   { ptx_b_address_size(b, $2, @1, @2); }
   | T_FILE T_INT T_STRING file_extra       { ptx_b_file(b, $2, $3, $4, @1); }
   | T_SECTION T_DOTIDENT T_RAWBLOCK        { ptx_b_section(b, $2, $3, @1); }
   | T_ALIAS T_IDENT ',' T_IDENT ';'        { ptx_b_alias(b, $2, $4, @1); }
   | T_PRAGMA string_list ';'               { ptx_b_pragma(b, $2, @1); }
   | quals1 declarators ';'
   | func
   | loc                                    { ptx_b_loc_end(b); }
   | error ';'                              { yyerrok; ptx_b_recover_toplevel(b); }
   | error '}'                              { yyerrok; ptx_b_recover_toplevel(b); }
   | error '{'                              { yyerrok; ptx_b_recover_body(b); }
   ;

file_extra: %empty                         { $$ = 0; }
          | file_extra ',' T_INT            { ptx_b_push_str(b, $3); $$ = $1 + 1; }
          ;

ident_list: T_IDENT                         { ptx_b_push_str(b, $1); $$ = 1; }
          | ident_list ',' T_IDENT          { ptx_b_push_str(b, $3); $$ = $1 + 1; }
          ;

string_list: T_STRING                       { ptx_b_push_str(b, $1); $$ = 1; }
           | string_list ',' T_STRING       { ptx_b_push_str(b, $3); $$ = $1 + 1; }
           ;

/* ---- declarations ---- */
/* Each qualifier is applied to the builder's declaration template as it is
 * read; the template is cleared before the first qualifier of the next
 * declaration.  Keeping the semantic value small keeps the parser fast. */
quals1: qual                                { $$ = &b->tmpl; }
      | quals1 qual                         { $$ = $1; }
      ;

opt_quals: %empty                           { $$ = NULL; }
         | quals1                           { $$ = $1; }
         ;

qual: T_SPACE                               { ptx_b_qual(b, 's', $1, (ptx_str){0, 0}, @1); }
    | T_LINKAGE                             { ptx_b_qual(b, 'l', $1, (ptx_str){0, 0}, @1); }
    | T_TYPE                                { ptx_b_qual(b, 't', $1, (ptx_str){0, 0}, @1); }
    | T_VEC                                 { ptx_b_qual(b, 'v', $1, (ptx_str){0, 0}, @1); }
    | T_ALIGN T_INT                         { ptx_b_qual(b, 'a', 0, $2, @2); }
    | T_PTR                                 { ptx_b_qual(b, 'p', 0, (ptx_str){0, 0}, @1); }
    | T_ATTRIBUTE '(' attr_args ')'         { ptx_b_qual(b, 'A', 0, ptx_b_span(b, @1, @4), @1); }
    | T_DOTIDENT                            { ptx_b_qual(b, '?', 0, $1, @1); }
    ;

attr_args: %empty
         | attr_args attr_tok
         ;
attr_tok: T_DOTIDENT | T_INT | ',' | T_IDENT | '(' attr_args ')' ;

declarators: declarator                     { ptx_b_declared(b, $1); }
           | declarators ',' declarator     { ptx_b_declared(b, $3); }
           ;

declarator: dname drange ddims dinit        { $$ = ptx_b_var(b, $1, @1, $2, $3, $4); }
          ;

dname: T_IDENT | T_PIDENT ;

drange: %empty                              { $$ = -1; }
      | '<' T_INT '>'                       { $$ = ptx_b_range(b, $2, @2); }
      ;

ddims: %empty                               { $$ = 0; }
     | ddims '[' T_INT ']'                  { ptx_b_push_dim(b, $3, @3); $$ = $1 + 1; }
     | ddims '[' ']'                        { ptx_b_push_dim(b, (ptx_str){0, 0}, @2); $$ = $1 + 1; }
     ;

dinit: %empty                               { $$ = NULL; }
     | '=' init                             { $$ = $2; }
     ;

init: expr                                  { $$ = ptx_b_init_expr(b, $1); }
    | '{' init_list '}'                     { $$ = ptx_b_init_list(b, $2); }
    | '{' '}'                               { $$ = ptx_b_init_list(b, 0); }
    ;

init_list: init                             { ptx_b_push_init(b, $1); $$ = 1; }
         | T_IDENT '=' T_IDENT              { ptx_b_push_init(b, ptx_b_init_kv(b, $1, $3)); $$ = 1; }
         | init_list ',' init               { ptx_b_push_init(b, $3); $$ = $1 + 1; }
         | init_list ',' T_IDENT '=' T_IDENT { ptx_b_push_init(b, ptx_b_init_kv(b, $3, $5)); $$ = $1 + 1; }
         ;

/* ---- functions ---- */
func: func_begin func_rets T_IDENT func_params fdirs func_tail
                                            { ptx_b_func_end(b, $1, $3, @3); }
    ;

func_begin: opt_quals T_ENTRY               { $$ = ptx_b_func_begin(b, $1, 1, @2); }
          | opt_quals T_FUNC                { $$ = ptx_b_func_begin(b, $1, 0, @2); }
          ;

func_rets: %empty
         | '(' param_list_opt ')'           { ptx_b_sig_list(b, $2, @1, 1); }
         ;

func_params: %empty
           | '(' param_list_opt ')'         { ptx_b_sig_list(b, $2, @1, 0); }
           ;

param_list_opt: %empty                      { $$ = 0; }
              | param_list                  { $$ = $1; }
              ;

param_list: quals1 declarator               { ptx_b_push_var(b, $2); $$ = 1; }
          | param_list ',' quals1 declarator { ptx_b_push_var(b, $4); $$ = $1 + 1; }
          ;

fdirs: %empty
     | fdirs T_FDIR fdir_args               { ptx_b_fdir(b, $2, $3, @2); }
     | fdirs T_PRAGMA string_list ';'       { ptx_b_fdir_pragma(b, $3); }
     ;

fdir_args: %empty                          { $$ = 0; }
         | T_INT                            { ptx_b_push_str(b, $1); $$ = 1; }
         | fdir_args ',' T_INT              { ptx_b_push_str(b, $3); $$ = $1 + 1; }
         ;

/* A declaration may end without ';' (PTX 2.x nvopencc output: "\t.visible
 * .func (...) f (...)" on a line of its own, the definition later). */
func_tail: ';'                              { ptx_b_no_body(b); }
         | %empty                           { ptx_b_no_body(b); }
         | '{'                              { ptx_b_body_begin(b); }
           stmts '}'                        { ptx_b_body_end(b); }
         ;

/* The commonest statements (instructions, labels, .loc) are alternatives
 * of stmts itself, the rest go through stmt: one reduction per statement
 * instead of two.  An instruction without operands has the empty no_opds:
 * its default reduction is what makes "add.s32 ," or "ret }" say "expected
 * ';'", and one with operands pays no reduction for it. */
stmts: %empty
     | stmts stmt
     | stmts T_OPCODE opd_list ';'          { ptx_b_inst(b, 0, $2, @2, $3); }
     | stmts T_OPCODE no_opds ';'           { ptx_b_inst(b, 0, $2, @2, 0); }
     | stmts T_IDENT opd_list ';'           { ptx_b_inst(b, 0, $2, @2, $3); }
     | stmts T_IDENT no_opds ';'            { ptx_b_inst(b, 0, $2, @2, 0); }
     | stmts guard opcode opd_list ';'      { ptx_b_inst(b, $2, $3, @2, $4); }
     | stmts guard opcode no_opds ';'       { ptx_b_inst(b, $2, $3, @2, 0); }
     | stmts T_IDENT ':'                    { ptx_b_label(b, $2, @2); }
     | stmts loc                            { ptx_b_loc_end(b); }
     ;

stmt: T_IDENT ':' T_CALLPROTOTYPE           { ptx_b_proto_begin(b, $1, @1); }
      func_rets T_IDENT func_params fdirs ';'
                                            { ptx_b_proto_end(b, $6, @6); }
    | T_IDENT ':' T_TARGETS ident_list ';'  { ptx_b_targets(b, $1, $3, $4, @1); }
    | quals1 declarators ';'
    | T_PRAGMA string_list ';'              { ptx_b_pragma(b, $2, @1); }
    | '{'                                   { ptx_b_scope_begin(b, @1); }
      stmts '}'                             { ptx_b_scope_end(b, @4); }
    | error ';'                             { yyerrok; ptx_b_recover_stmt(b); }
    ;

/* A .loc and its attributes, one reduction each; the statement that holds
 * it adds it (ptx_b_loc_end). */
loc: T_LOC T_INT T_INT T_INT                { ptx_b_loc_begin(b, $2, $3, $4, @1); }
   | T_LOC3                                 { ptx_b_loc3(b, $1, @1); }
   | loc ',' T_IDENT T_IDENT                { ptx_b_loc_fn(b, $3, $4, @3); }
   | loc ',' T_IDENT T_INT T_INT T_INT      { ptx_b_loc_ia(b, $3, $4, $5, $6, @3); }
   ;

/* ---- instructions ---- */
opcode: T_OPCODE | T_IDENT ;

no_opds: %empty ;

guard: '@' T_PIDENT                         { $$ = ptx_b_guard(b, $2, @2, 0); }
     | '@' '!' T_PIDENT                     { $$ = ptx_b_guard(b, $3, @3, 1); }
     | '@' T_IDENT                          { $$ = ptx_b_guard(b, $2, @2, 0); }
     | '@' '!' T_IDENT                      { $$ = ptx_b_guard(b, $3, @3, 1); }
     ;

/* An operand list is a prefix of operands each followed by ',' and a last
 * operand.  The lexer delivers "%r1," and "[%rd1]," as single tokens (T_REGC,
 * T_ADDRC) inside instructions, the commonest shapes. */
opd_list: opd                               { $$ = 1; }
        | opd_pfx opd                       { $$ = $1 + 1; }
        ;

opd_pfx: T_REGC                             { $$ = ptx_b_opd_regs(b, $1, @1, 0); }
       | T_ADDRC                            { ptx_b_opd_addr_tok(b, $1, @1); $$ = 1; }
       | opd ','                            { $$ = 1; }
       | opd_cx                             { $$ = $1; }
       | opd_pfx T_REGC                     { $$ = $1 + ptx_b_opd_regs(b, $2, @2, 0); }
       | opd_pfx T_ADDRC                    { ptx_b_opd_addr_tok(b, $2, @2); $$ = $1 + 1; }
       | opd_pfx opd ','                    { $$ = $1 + 1; }
       | opd_pfx opd_cx                     { $$ = $1 + $2; }
       ;

/* the rarer operand shapes that end in a register-with-comma token: its
 * first register negated or paired, the others as they are */
opd_cx: '!' T_REGC                          { $$ = ptx_b_opd_regs(b, $2, @2, 1); }
      | T_PIDENT '|' T_REGC                 { ptx_b_opd_reg(b, $1, @1, 0); $$ = ptx_b_opd_regs(b, $3, @3, 2); }
      | expr '|' T_REGC                     { ptx_b_opd_expr(b, $1); $$ = ptx_b_opd_regs(b, $3, @3, 2); }
      ;

opd: T_PIDENT                               { ptx_b_opd_reg(b, $1, @1, 0); }
   | '!' T_PIDENT                           { ptx_b_opd_reg(b, $2, @2, 1); }
   | T_PIDENT '|' T_PIDENT                  { ptx_b_opd_reg(b, $1, @1, 0); ptx_b_opd_reg(b, $3, @3, 0);
                                              ptx_b_opd_agg(b, PTX_O_PAIR, 2); }
   | T_PIDENT '|' expr                      { ptx_b_opd_reg(b, $1, @1, 0); ptx_b_opd_expr(b, $3);
                                              ptx_b_opd_agg(b, PTX_O_PAIR, 2); }
   | expr '|' T_PIDENT                      { ptx_b_opd_expr(b, $1); ptx_b_opd_reg(b, $3, @3, 0);
                                              ptx_b_opd_agg(b, PTX_O_PAIR, 2); }
   | expr                                   { ptx_b_opd_expr(b, $1); }
   | '{' opd_list '}'                       { ptx_b_opd_agg(b, PTX_O_VEC, $2); }
   | T_ADDR                                 { ptx_b_opd_addr_tok(b, $1, @1); }
   | '[' addr_list ']'                      { ptx_b_opd_addr(b, $2, @1); }
   | '(' opd_list ')'                       { ptx_b_opd_agg(b, PTX_O_LIST, $2); }
   | '(' ')'                                { ptx_b_opd_agg(b, PTX_O_LIST, 0); }
   ;

addr_list: addr_elem                        { $$ = 1; }
         | addr_pfx addr_elem               { $$ = $1 + 1; }
         ;

addr_pfx: addr_elem ','                     { $$ = 1; }
        | T_REGC                            { $$ = ptx_b_opd_regs(b, $1, @1, 0); }
        | addr_pfx addr_elem ','            { $$ = $1 + 1; }
        | addr_pfx T_REGC                   { $$ = $1 + ptx_b_opd_regs(b, $2, @2, 0); }
        ;

addr_elem: opd
         | T_PIDENT '+' expr                { ptx_b_opd_reg_off(b, $1, @1, $3, 0); }
         | T_PIDENT '-' expr                { ptx_b_opd_reg_off(b, $1, @1, $3, 1); }
         ;

/* ---- constant expressions ---- */
expr: T_INT                                 { $$ = ptx_b_e_int(b, $1, @1); }
    | T_FLOAT                               { $$ = ptx_b_e_float(b, $1, @1); }
    | T_IDENT                               { $$ = ptx_b_e_sym(b, $1, @1); }
    | T_IDENT '(' expr_list ')'             { $$ = ptx_b_e_call(b, $1, $3, @1); }
    | '(' expr ')'                          { $$ = ptx_b_e_unary(b, '(', $2, @1); }
    | '-' expr %prec UNARY                  { $$ = ptx_b_e_unary(b, '-', $2, @1); }
    | '+' expr %prec UNARY                  { $$ = ptx_b_e_unary(b, '+', $2, @1); }
    | '~' expr %prec UNARY                  { $$ = ptx_b_e_unary(b, '~', $2, @1); }
    | '!' expr %prec UNARY                  { $$ = ptx_b_e_unary(b, '!', $2, @1); }
    | expr '+' expr                         { $$ = ptx_b_e_bin(b, '+', $1, $3, @2); }
    | expr '-' expr                         { $$ = ptx_b_e_bin(b, '-', $1, $3, @2); }
    | expr '*' expr                         { $$ = ptx_b_e_bin(b, '*', $1, $3, @2); }
    | expr '/' expr                         { $$ = ptx_b_e_bin(b, '/', $1, $3, @2); }
    | expr '%' expr                         { $$ = ptx_b_e_bin(b, '%', $1, $3, @2); }
    | expr T_SHL expr                       { $$ = ptx_b_e_bin(b, PTX_OP_SHL, $1, $3, @2); }
    | expr T_SHR expr                       { $$ = ptx_b_e_bin(b, PTX_OP_SHR, $1, $3, @2); }
    | expr '&' expr                         { $$ = ptx_b_e_bin(b, '&', $1, $3, @2); }
    | expr '|' expr                         { $$ = ptx_b_e_bin(b, '|', $1, $3, @2); }
    | expr '^' expr                         { $$ = ptx_b_e_bin(b, '^', $1, $3, @2); }
    | expr T_LAND expr                      { $$ = ptx_b_e_bin(b, PTX_OP_LAND, $1, $3, @2); }
    | expr T_LOR expr                       { $$ = ptx_b_e_bin(b, PTX_OP_LOR, $1, $3, @2); }
    | expr T_EQ expr                        { $$ = ptx_b_e_bin(b, PTX_OP_EQ, $1, $3, @2); }
    | expr T_NE expr                        { $$ = ptx_b_e_bin(b, PTX_OP_NE, $1, $3, @2); }
    | expr '<' expr                         { $$ = ptx_b_e_bin(b, '<', $1, $3, @2); }
    | expr '>' expr                         { $$ = ptx_b_e_bin(b, '>', $1, $3, @2); }
    | expr T_LE expr                        { $$ = ptx_b_e_bin(b, PTX_OP_LE, $1, $3, @2); }
    | expr T_GE expr                        { $$ = ptx_b_e_bin(b, PTX_OP_GE, $1, $3, @2); }
    | expr '?' expr ':' expr                { $$ = ptx_b_e_cond(b, $1, $3, $5, @2); }
    ;

expr_list: expr                             { ptx_b_push_expr(b, $1); $$ = 1; }
         | expr_list ',' expr               { ptx_b_push_expr(b, $3); $$ = $1 + 1; }
         ;

%%

/* Messages name what was found and, when it is a short list, what was
 * expected: "unexpected identifier 'foo', expected ';'". */
static int yyreport_syntax_error(const yypcontext_t *ctx, struct ptx_lexstate *lexer, ptx_builder *b) {
    (void)lexer;
    enum { NEXP = 5 };
    yysymbol_kind_t exp[NEXP];
    const char *names[NEXP];
    int n = yypcontext_expected_tokens(ctx, exp, NEXP);
    for (int i = 0; i < n; i++) names[i] = yysymbol_name(exp[i]);
    yysymbol_kind_t got = yypcontext_token(ctx);
    ptx_b_syntax_error(b, *yypcontext_location(ctx), yysymbol_name(got),
                       got == YYSYMBOL_YYEOF, n, names);
    return 0;
}
