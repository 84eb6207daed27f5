/* Name tables of the IR: types, state spaces, special registers, opcodes,
 * and the modifier classifier used on every instruction. */
#include <string.h>
#include <threads.h>
#include "build.h"

#define TYPE_ROW(id, name, bits) [PTX_T_##id] = {"." name, bits},
#define SPACE_NAME(id, name) [PTX_SP_##id] = "." name,
static const struct { const char *name; uint8_t bits; } types[PTX_T__COUNT] = {[PTX_T_NONE] = {"", 0}, PTX_TYPES(TYPE_ROW)};
static const char *const space_names[PTX_SP__COUNT] = {[PTX_SP_NONE] = "", PTX_SPACES(SPACE_NAME)};

const char *ptx_type_name(ptx_type t) { return t < PTX_T__COUNT ? types[t].name : ""; }
const char *ptx_space_name(ptx_space s) { return s < PTX_SP__COUNT ? space_names[s] : ""; }
unsigned ptx_type_bits(ptx_type t) { return t < PTX_T__COUNT ? types[t].bits : 0; }

static const char *const opcode_names[PTX_OPC__COUNT] = {
    [PTX_OPC_UNKNOWN] = "",
#define PTX_OP(id, text, ...) [PTX_OPC_##id] = text,
#include "isa.def"
#undef PTX_OP
};
const char *ptx_opcode_name(ptx_opcode op) { return op < PTX_OPC__COUNT ? opcode_names[op] : ""; }

/* ---- one hash table for mnemonics and modifiers -------------------------
 * Every instruction is classified through it (base mnemonic, then each
 * modifier), so it is a small open-addressing table probed with a cheap hash
 * instead of string comparisons against every name. */
enum { TAB_BITS = 10, TAB_SIZE = 1 << TAB_BITS };
typedef struct { const char *s; uint8_t len, cls, val; } tab_ent;
static tab_ent tab[TAB_SIZE];
enum { CLS_OPCODE = 8 };

static void tab_put(const char *s, uint8_t cls, uint8_t val) {
    size_t n = strlen(s);
    uint32_t i = ptx_hash(s, n) & (TAB_SIZE - 1);
    while (tab[i].s) i = (i + 1) & (TAB_SIZE - 1);
    tab[i] = (tab_ent){s, (uint8_t)n, cls, val};
}

static inline const tab_ent *tab_get(const char *s, size_t n) {
    if (n == 0 || n > 255) return NULL;
    uint32_t i = ptx_hash(s, n) & (TAB_SIZE - 1);
    while (tab[i].s) {
        if (tab[i].len == n) {
            size_t k = 0;
            while (k < n && tab[i].s[k] == s[k]) k++;
            if (k == n) return &tab[i];
        }
        i = (i + 1) & (TAB_SIZE - 1);
    }
    return NULL;
}

static void tables_build(void) {
    for (int t = 1; t < PTX_T__COUNT; t++) tab_put(types[t].name, PTX_MOD_TYPE, (uint8_t)t);
    for (int s = 1; s < PTX_SP__COUNT; s++) tab_put(space_names[s], PTX_MOD_SPACE, (uint8_t)s);
    tab_put(".v2", PTX_MOD_VEC, 2);
    tab_put(".v4", PTX_MOD_VEC, 4);
    tab_put(".v8", PTX_MOD_VEC, 8);
    for (int o = 1; o < PTX_OPC__COUNT; o++) tab_put(opcode_names[o], CLS_OPCODE, (uint8_t)o);
}

static once_flag tables_once = ONCE_FLAG_INIT;
void ptx_tables_init(void) { call_once(&tables_once, tables_build); }

int ptx_mod_classify(const char *s, size_t n, uint8_t *val) {
    const tab_ent *e = tab_get(s, n);
    if (!e || e->cls == CLS_OPCODE) return PTX_MOD_NONE;
    *val = e->val;
    return e->cls;
}

ptx_opcode ptx_opcode_lookup(const char *s, size_t n) {
    ptx_tables_init();
    const tab_ent *e = tab_get(s, n);
    return e && e->cls == CLS_OPCODE ? (ptx_opcode)e->val : PTX_OPC_UNKNOWN;
}

ptx_type ptx_type_from_str(ptx_str s) {
    uint8_t v;
    ptx_tables_init();
    return ptx_mod_classify(s.p, s.n, &v) == PTX_MOD_TYPE ? (ptx_type)v : PTX_T_NONE;
}

ptx_space ptx_space_from_str(ptx_str s) {
    uint8_t v;
    ptx_tables_init();
    return ptx_mod_classify(s.p, s.n, &v) == PTX_MOD_SPACE ? (ptx_space)v : PTX_SP_NONE;
}

/* ---- special registers (PTX ISA chapter 10) ---- */
static const struct { const char *name; ptx_sreg id; uint8_t numbered; } sregs[] = {
    {"%tid", PTX_SR_TID, 0}, {"%ntid", PTX_SR_NTID, 0}, {"%laneid", PTX_SR_LANEID, 0},
    {"%warpid", PTX_SR_WARPID, 0}, {"%nwarpid", PTX_SR_NWARPID, 0},
    {"%ctaid", PTX_SR_CTAID, 0}, {"%nctaid", PTX_SR_NCTAID, 0}, {"%smid", PTX_SR_SMID, 0},
    {"%nsmid", PTX_SR_NSMID, 0}, {"%gridid", PTX_SR_GRIDID, 0},
    {"%lanemask_eq", PTX_SR_LANEMASK_EQ, 0}, {"%lanemask_le", PTX_SR_LANEMASK_LE, 0},
    {"%lanemask_lt", PTX_SR_LANEMASK_LT, 0}, {"%lanemask_ge", PTX_SR_LANEMASK_GE, 0},
    {"%lanemask_gt", PTX_SR_LANEMASK_GT, 0}, {"%clock", PTX_SR_CLOCK, 0},
    {"%clock_hi", PTX_SR_CLOCK_HI, 0}, {"%clock64", PTX_SR_CLOCK64, 0},
    {"%pm", PTX_SR_PM, 1}, {"%envreg", PTX_SR_ENVREG, 1},
    {"%globaltimer", PTX_SR_GLOBALTIMER, 0}, {"%globaltimer_lo", PTX_SR_GLOBALTIMER_LO, 0},
    {"%globaltimer_hi", PTX_SR_GLOBALTIMER_HI, 0},
    {"%reserved_smem_offset_", PTX_SR_RESERVED_SMEM, 2},
    {"%total_smem_size", PTX_SR_TOTAL_SMEM_SIZE, 0},
    {"%aggr_smem_size", PTX_SR_AGGR_SMEM_SIZE, 0},
    {"%dynamic_smem_size", PTX_SR_DYNAMIC_SMEM_SIZE, 0},
    {"%current_graph_exec", PTX_SR_CURRENT_GRAPH_EXEC, 0},
    {"%clusterid", PTX_SR_CLUSTERID, 0}, {"%nclusterid", PTX_SR_NCLUSTERID, 0},
    {"%cluster_ctaid", PTX_SR_CLUSTER_CTAID, 0}, {"%cluster_nctaid", PTX_SR_CLUSTER_NCTAID, 0},
    {"%cluster_ctarank", PTX_SR_CLUSTER_CTARANK, 0},
    {"%cluster_nctarank", PTX_SR_CLUSTER_NCTARANK, 0},
    {"%is_explicit_cluster", PTX_SR_IS_EXPLICIT_CLUSTER, 0},
};

ptx_sreg ptx_sreg_lookup(ptx_str name, uint32_t *index) {
    *index = 0;
    for (size_t i = 0; i < sizeof sregs / sizeof sregs[0]; i++) {
        size_t n = strlen(sregs[i].name);
        if (sregs[i].numbered == 0) {
            if (name.n == n && memcmp(name.p, sregs[i].name, n) == 0) return sregs[i].id;
        } else if (name.n > n && memcmp(name.p, sregs[i].name, n) == 0) {
            /* %pm0..7, %envreg0..31, %reserved_smem_offset_begin/_end/_cap/<n> */
            uint32_t v = 0;
            size_t j = n;
            if (sregs[i].numbered == 2) return sregs[i].id;
            for (; j < name.n && name.p[j] >= '0' && name.p[j] <= '9'; j++)
                v = v * 10 + (uint32_t)(name.p[j] - '0');
            if (j == name.n && j - n <= 2) {
                *index = v;
                return sregs[i].id;
            }
        }
    }
    /* %pm0_64 .. %pm7_64 */
    if (name.n == 7 && memcmp(name.p, "%pm", 3) == 0 && name.p[3] >= '0' && name.p[3] <= '7' &&
        memcmp(name.p + 4, "_64", 3) == 0) {
        *index = (uint32_t)(name.p[3] - '0');
        return PTX_SR_PM64;
    }
    return PTX_SR_UNKNOWN;
}

ptx_str ptx_inst_mod(const ptx_inst *in, unsigned i) {
    ptx_mod_iter it = ptx_mods_begin(in);
    ptx_str m;
    while (ptx_mods_next(&it, &m))
        if (i-- == 0) return m;
    return (ptx_str){NULL, 0};
}


void ptx_expr_syms(const ptx_expr *e, ptx_sym_fn fn, void *ctx) {
    if (!e) return;
    switch (e->kind) {
    case PTX_E_SYM: fn(ctx, NULL, e->text); break;
    case PTX_E_CALL:
        for (uint32_t i = 0; i < e->nargs; i++) ptx_expr_syms(e->u.args[i], fn, ctx);
        break;
    case PTX_E_UNARY: case PTX_E_PAREN: case PTX_E_BINARY: case PTX_E_COND: /* b, c: NULL where unused */
        ptx_expr_syms(e->u.a, fn, ctx);
        ptx_expr_syms(e->b, fn, ctx);
        ptx_expr_syms(e->c, fn, ctx);
        break;
    default: break;
    }
}

void ptx_opd_syms(const ptx_operand *o, ptx_sym_fn fn, void *ctx) {
    switch (o->kind) {
    case PTX_O_SYM: fn(ctx, o, ptx_opd_text(o)); break;
    case PTX_O_EXPR: ptx_expr_syms(o->p.expr, fn, ctx); break;
    case PTX_O_ADDR: case PTX_O_VEC: case PTX_O_PAIR: case PTX_O_LIST:
        for (uint32_t i = 0; i < o->n; i++) ptx_opd_syms(&o->p.elems[i], fn, ctx);
        break;
    default: break;
    }
}

ptx_func *ptx_module_find_func(const ptx_module *m, const char *name) {
    ptx_func *decl = NULL;
    for (uint32_t i = 0; i < m->nfuncs; i++)
        if (ptx_str_eq(m->funcs[i]->name, name)) {
            if (m->funcs[i]->has_body) return m->funcs[i];
            decl = m->funcs[i];
        }
    return decl;
}

const char *ptx_sreg_name(ptx_sreg id) {
    if (id == PTX_SR_PM64) return "%pm";
    for (size_t i = 0; i < sizeof sregs / sizeof sregs[0]; i++)
        if (sregs[i].id == id) return sregs[i].name;
    return "%?";
}
