/* Instruction semantics table.  See semantics.h for the meaning of every
 * field; the facts below follow the PTX ISA (9.0) instruction descriptions. */
#include "semantics.h"
#include "build.h" /* ptx_mod_classify */

#include <stdio.h>
#include <string.h>

/* ---- modifiers ------------------------------------------------------------- */
/* Modifiers are scanned from the opcode text rather than taken from
 * ptx_inst.type/type2/space alone: several instructions carry three types
 * (cvt.pack, mma) or two state spaces (cp.async.shared.global). */
/* ".wait" matches ".wait" and ".wait::ld". */
static bool mod_is_op(ptx_str m, const char *z)
{
    size_t n = strlen(z);
    return m.n >= n && !memcmp(m.p, z, n) && (m.n == n || (m.n > n + 1 && m.p[n] == ':' && m.p[n + 1] == ':'));
}

typedef struct mod_info {
    uint8_t ntypes, nspaces;
    uint8_t types[4];  /* type modifiers in order */
    uint8_t spaces[2]; /* state-space modifiers in order */
    bool strong;       /* a memory-ordering qualifier */
    /* PTX_SEM_ALIGNED, and integer arithmetic's CC_DEF (.cc), SAT, HI and
     * WIDE, found by the same scan (not a second one) */
    uint32_t flags;
} mod_info;

static void scan_mods(const ptx_inst *in, mod_info *mi)
{
    static const char *const strong[] = {".volatile", ".relaxed", ".acquire", ".release",
                                         ".acq_rel", ".sc", ".mmio"};
    memset(mi, 0, sizeof *mi);
    ptx_tables_init();
    ptx_mod_iter it = ptx_mods_begin(in);
    ptx_str m;
    while (ptx_mods_next(&it, &m)) {
        /* one table look-up per modifier (a type, then a space look-up
         * was most of this scan) */
        uint8_t v;
        int cls = ptx_mod_classify(m.p, m.n, &v);
        if (cls == PTX_MOD_TYPE && v != PTX_T_NONE) {
            if (mi->ntypes < 4)
                mi->types[mi->ntypes++] = v;
            continue;
        }
        if (cls == PTX_MOD_SPACE && v != PTX_SP_NONE) {
            if (mi->nspaces < 2)
                mi->spaces[mi->nspaces++] = v;
            continue;
        }
        switch (m.n) { /* the modifiers of one length share a compare */
        case 3: /* .cc, .hi (.sc is a strong qualifier, below) */
            if (m.p[1] == 'c' && m.p[2] == 'c') { mi->flags |= PTX_SEM_CC_DEF; continue; }
            if (m.p[1] == 'h' && m.p[2] == 'i') { mi->flags |= PTX_SEM_HI; continue; }
            break;
        case 4:
            if (!memcmp(m.p, ".sat", 4)) { mi->flags |= PTX_SEM_SAT; continue; }
            break;
        case 5: /* .wide (.mmio is a strong qualifier, below) */
            if (!memcmp(m.p, ".wide", 5)) { mi->flags |= PTX_SEM_WIDE; continue; }
            break;
        case 8:
            if (ptx_str_eq(m, ".aligned")) { mi->flags |= PTX_SEM_ALIGNED; continue; }
            break;
        default: break;
        }
        for (size_t i = 0; i < sizeof strong / sizeof strong[0]; i++)
            if (ptx_str_eq(m, strong[i]))
                mi->strong = true;
    }
    if (mi->nspaces == 0 && in->space != PTX_SP_NONE)
        mi->spaces[mi->nspaces++] = in->space;
}

/* ---- the table ------------------------------------------------------------- */
enum {
    TY_NONE,
    TY_T,     /* ptx_inst.type (the last type modifier) */
    TY_T0,    /* first type modifier (falls back to type) */
    TY_T1,    /* second type modifier (falls back to type) */
    TY_PRED,
    TY_U32,
    TY_B32,
    TY_DOT,   /* dp4a/dp2a: .u32 if both inputs unsigned, else .s32 */
};

enum {
    AC_NONE,
    AC_VD,   /* vec * size of dtype */
    AC_VS,   /* vec * size of stype */
    AC_IMM1, /* value of operand 1 if it is an integer constant */
};

typedef struct sem_row {
    uint32_t flags;
    uint8_t known; /* 0: no row (family not described) */
    uint8_t subop; /* shape depends on the sub-operation: see subop_rules() */
    uint8_t ndef;
    uint8_t addr;
    uint8_t dty, sty;
    uint8_t acc;
} sem_row;

#define NO PTX_SEM_NO_OPD
#define R(fl, nd, ad, dt, st, ac) {(fl), 1, 0, (nd), (ad), (dt), (st), (ac)}
#define SUB(fl) {(fl), 1, 1, 0, NO, TY_NONE, TY_NONE, AC_NONE}
/* A pure lane-local value computation: one def, sources of the same type. */
#define ALU R(0, 1, NO, TY_T, TY_T, AC_NONE)

#define L_ PTX_SEM_LOAD
#define S_ PTX_SEM_STORE
#define A_ PTX_SEM_ATOMIC
#define O_ PTX_SEM_ORDERED
#define C_ PTX_SEM_COLLECTIVE
#define SY PTX_SEM_SYNC
#define F_ PTX_SEM_FENCE
#define AS PTX_SEM_ASYNC
#define PF PTX_SEM_PREFETCH
#define SE PTX_SEM_SIDE_EFFECT
#define TERM (PTX_SEM_TERMINATOR | SE)

/* Each opcode's row is in isa.def, next to its forms. */
static const sem_row table[PTX_OPC__COUNT] = {
#define PTX_OP(id, text, sem, ...) [PTX_OPC_##id] = sem,
#include "isa.def"
#undef PTX_OP
};

/* ---- helpers --------------------------------------------------------------- */
static bool opd_int(const ptx_inst *in, unsigned i, int64_t *v)
{
    if (i >= in->nopd)
        return false;
    const ptx_operand *o = &in->opd[i];
    if (o->kind != PTX_O_IMM || o->flags != PTX_IMM_INT)
        return false;
    *v = o->v;
    return true;
}

static uint8_t first_addr_opd(const ptx_inst *in)
{
    for (uint32_t i = 0; i < in->nopd && i < NO; i++)
        if (in->opd[i].kind == PTX_O_ADDR)
            return (uint8_t)i;
    return NO;
}

static uint8_t widen(uint8_t t)
{
    switch (t) {
    case PTX_T_U16: return PTX_T_U32;
    case PTX_T_U32: return PTX_T_U64;
    case PTX_T_S16: return PTX_T_S32;
    case PTX_T_S32: return PTX_T_S64;
    case PTX_T_B16: return PTX_T_B32;
    case PTX_T_B32: return PTX_T_B64;
    case PTX_T_F16: return PTX_T_F32;
    case PTX_T_F32: return PTX_T_F64;
    default: return t;
    }
}

static uint8_t resolve_type(uint8_t code, const ptx_inst *in, const mod_info *mi)
{
    switch (code) {
    case TY_T: return in->type;
    case TY_T0: return mi->ntypes > 0 ? mi->types[0] : in->type;
    case TY_T1: return mi->ntypes > 1 ? mi->types[1] : in->type;
    case TY_PRED: return PTX_T_PRED;
    case TY_U32: return PTX_T_U32;
    case TY_B32: return PTX_T_B32;
    case TY_DOT:
        return resolve_type(TY_T0, in, mi) == PTX_T_U32 && resolve_type(TY_T1, in, mi) == PTX_T_U32 ? PTX_T_U32
                                                                                                   : PTX_T_S32;
    default: return PTX_T_NONE;
    }
}

static uint32_t vec_bytes(const ptx_inst *in, uint8_t t)
{
    unsigned bits = t == PTX_T_NONE ? 0 : ptx_type_bits((ptx_type)t);
    return (in->vec ? in->vec : 1u) * (bits / 8u);
}

/* Conservative description of something not understood. */
static void make_unknown(const ptx_inst *in, const mod_info *mi, ptx_inst_sem *out)
{
    uint8_t n = in->nopd;
    out->flags = PTX_SEM_UNKNOWN | L_ | S_ | A_ | F_ | SY | C_ | SE;
    out->ndef = n;
    out->nrmw = n;
    out->addr_opd = first_addr_opd(in);
    out->space = mi->nspaces ? mi->spaces[0] : PTX_SP_NONE;
    out->src_addr_opd = NO;
    out->src_space = PTX_SP_NONE;
    out->dtype = out->stype = in->type;
    out->access_bytes = 0;
}

static void set_mem(ptx_inst_sem *out, uint32_t flags, uint8_t ndef, uint8_t addr,
                    uint8_t space, uint32_t bytes)
{
    out->flags = flags;
    out->ndef = ndef;
    out->addr_opd = addr;
    out->space = space;
    out->access_bytes = bytes;
}

/* Copies: [dst], [src], ...; the first state-space modifier names the
 * destination, the second the source (cp.async.ca.shared.global). */
static void set_copy(ptx_inst_sem *out, const mod_info *mi, uint32_t flags)
{
    out->flags = flags;
    out->ndef = 0;
    out->addr_opd = 0;
    out->space = mi->nspaces > 0 ? mi->spaces[0] : PTX_SP_NONE;
    out->src_addr_opd = 1;
    out->src_space = mi->nspaces > 1 ? mi->spaces[1] : PTX_SP_NONE;
}

static uint32_t imm_bytes(const ptx_inst *in, unsigned i)
{
    int64_t v;
    return opd_int(in, i, &v) && v > 0 && v <= (int64_t)UINT32_MAX ? (uint32_t)v : 0;
}

/* ---- families whose shape depends on the sub-operation -------------------- */
/* Returns false when the sub-operation is not recognised. */

/* A value written to operand 0 without touching memory: its type and the
 * sources'. */
static bool set_value(ptx_inst_sem *out, uint32_t flags, uint8_t dtype, uint8_t stype)
{
    out->flags = flags;
    out->ndef = 1;
    out->dtype = dtype;
    out->stype = stype;
    return true;
}

static bool subop_rules(const ptx_inst *in, const mod_info *mi, ptx_inst_sem *out)
{
    ptx_str m0 = ptx_inst_mod(in, 0);
    uint8_t sp0 = mi->nspaces ? mi->spaces[0] : PTX_SP_NONE;

    switch (in->op) {
    case PTX_OPC_BAR:
    case PTX_OPC_BARRIER:
        out->flags = SY | SE;
        /* bar.warp.sync only waits for the warp; it is not .aligned. */
        if (in->op == PTX_OPC_BAR && ptx_str_eq(m0, ".warp") && ptx_inst_has_mod(in, ".sync"))
            return true;
        if (in->op == PTX_OPC_BARRIER && ptx_str_eq(m0, ".cluster"))
            return ptx_inst_has_mod(in, ".arrive") || ptx_inst_has_mod(in, ".wait");
        /* bar{.cta}.* is barrier{.cta}.*.aligned. */
        out->flags |= in->op == PTX_OPC_BAR ? PTX_SEM_ALIGNED : 0;
        /* bar.red / barrier.red: a reduction of a predicate across the CTA into d */
        if (ptx_inst_has_mod(in, ".red")) return set_value(out, out->flags | C_, in->type, PTX_T_PRED);
        return ptx_inst_has_mod(in, ".sync") || ptx_inst_has_mod(in, ".arrive");
    case PTX_OPC_MBARRIER:
        if (ptx_str_eq(m0, ".init") || ptx_str_eq(m0, ".inval"))
            set_mem(out, S_ | SE, 0, 0, sp0, 8);
        else if (ptx_str_eq(m0, ".expect_tx") || ptx_str_eq(m0, ".complete_tx"))
            set_mem(out, A_ | L_ | S_ | O_ | SY | SE, 0, 0, sp0, 8);
        else if (ptx_str_eq(m0, ".arrive") || ptx_str_eq(m0, ".arrive_drop")) {
            /* state, [addr]{, count}: the state may be the sink _ */
            set_mem(out, A_ | L_ | S_ | O_ | SY | SE, 1, 1, sp0, 8);
            out->dtype = PTX_T_B64;
        } else if (ptx_str_eq(m0, ".test_wait") || ptx_str_eq(m0, ".try_wait")) {
            set_mem(out, L_ | O_ | SY | SE, 1, 1, sp0, 8);
            out->dtype = PTX_T_PRED;
        } else if (ptx_str_eq(m0, ".pending_count")) {
            /* Decodes a state value held in a register: no memory. */
            set_value(out, 0, PTX_T_U32, PTX_T_B64);
        } else
            return false;
        return true;
    case PTX_OPC_CP: {
        bool reduce = ptx_str_eq(m0, ".reduce");
        if (!ptx_inst_has_mod(in, ".async"))
            return false;
        if (ptx_inst_has_mod(in, ".commit_group")) {
            out->flags = AS | SE;
            return true;
        }
        if (ptx_inst_has_mod(in, ".wait_group") || ptx_inst_has_mod(in, ".wait_all")) {
            out->flags = AS | F_ | SE;
            return true;
        }
        if (!reduce && ptx_inst_has_mod(in, ".mbarrier") && ptx_inst_has_mod(in, ".arrive")) {
            /* cp.async.mbarrier.arrive{.noinc}{.shared{::cta}}.b64 [addr] */
            set_mem(out, A_ | L_ | S_ | SY | AS | SE, 0, 0, sp0, 8);
            return true;
        }
        if (ptx_inst_has_mod(in, ".bulk") && ptx_inst_has_mod(in, ".prefetch")) {
            set_mem(out, PF | AS | SE, 0, 0, sp0, 0);
            if (!ptx_inst_has_mod(in, ".tensor"))
                out->access_bytes = imm_bytes(in, 1);
            return true;
        }
        set_copy(out, mi, (reduce ? A_ : 0) | L_ | S_ | AS | SE);
        if (ptx_inst_has_mod(in, ".bulk"))
            out->access_bytes = ptx_inst_has_mod(in, ".tensor") ? 0 : imm_bytes(in, 2);
        else if (!reduce)
            out->access_bytes = imm_bytes(in, 2); /* cp-size: 4, 8 or 16 */
        else
            return false;
        return true;
    }
    case PTX_OPC_MULTIMEM:
        if (ptx_str_eq(m0, ".ld_reduce")) {
            set_mem(out, L_, 1, 1, sp0, vec_bytes(in, in->type));
            out->dtype = out->stype = in->type;
        } else if (ptx_str_eq(m0, ".st")) {
            set_mem(out, S_ | SE, 0, 0, sp0, vec_bytes(in, in->type));
            out->stype = in->type;
        } else if (ptx_str_eq(m0, ".red")) {
            set_mem(out, A_ | L_ | S_ | O_ | SE, 0, 0, sp0, vec_bytes(in, in->type));
            out->stype = in->type;
        } else if (ptx_str_eq(m0, ".cp")) {
            set_copy(out, mi, (ptx_inst_has_mod(in, ".reduce") ? A_ : 0) | L_ | S_ | AS | SE);
            out->access_bytes = imm_bytes(in, 2);
        } else
            return false;
        return true;
    case PTX_OPC_WMMA:
        if (ptx_str_eq(m0, ".load")) {
            set_mem(out, L_ | C_, 1, 1, sp0, 0);
            out->dtype = in->type;
        } else if (ptx_str_eq(m0, ".store")) {
            set_mem(out, S_ | C_ | SE, 0, 0, sp0, 0);
            out->stype = in->type;
        } else if (ptx_str_eq(m0, ".mma")) {
            set_value(out, C_, resolve_type(TY_T0, in, mi), resolve_type(TY_T1, in, mi));
        } else
            return false;
        return true;
    case PTX_OPC_WGMMA:
        if (ptx_str_eq(m0, ".mma_async")) {
            /* d, a, b, scale-d, ...: D = A*B + D unless scale-d is false. */
            int64_t v;
            unsigned scale_d = ptx_inst_has_mod(in, ".sp") ? 5 : 3;
            set_value(out, L_ | C_ | AS | SE, resolve_type(TY_T0, in, mi), resolve_type(TY_T1, in, mi));
            out->nrmw = opd_int(in, scale_d, &v) && v == 0 ? 0 : 1;
        } else if (ptx_str_eq(m0, ".fence") || ptx_str_eq(m0, ".wait_group"))
            out->flags = F_ | AS | SE;
        else if (ptx_str_eq(m0, ".commit_group"))
            out->flags = AS | SE;
        else
            return false;
        return true;
    case PTX_OPC_TCGEN05:
        if (mod_is_op(m0, ".alloc"))
            set_mem(out, S_ | SE, 0, 0, sp0, 4); /* writes the b32 tmem address */
        else if (mod_is_op(m0, ".dealloc") || mod_is_op(m0, ".relinquish_alloc_permit"))
            out->flags = SE;
        else if (mod_is_op(m0, ".ld")) {
            /* r, [taddr] or, with .red, r, redval, [taddr] */
            uint8_t nd = ptx_inst_has_mod(in, ".red") ? 2 : 1;
            set_mem(out, L_ | AS, nd, nd, PTX_SEM_SPACE_TMEM, 0);
            out->dtype = in->type;
        } else if (mod_is_op(m0, ".st")) {
            set_mem(out, S_ | AS | SE, 0, 0, PTX_SEM_SPACE_TMEM, 0);
            out->stype = in->type;
        } else if (mod_is_op(m0, ".mma") || mod_is_op(m0, ".cp") || mod_is_op(m0, ".shift"))
            set_mem(out, L_ | S_ | AS | SE, 0, 0, PTX_SEM_SPACE_TMEM, 0);
        else if (mod_is_op(m0, ".commit"))
            /* arrive-on an mbarrier once the prior tcgen05 work completes */
            set_mem(out, A_ | L_ | S_ | SY | AS | SE, 0, 0, sp0, 8);
        else if (mod_is_op(m0, ".wait"))
            out->flags = F_ | AS | SE;
        else if (mod_is_op(m0, ".fence"))
            out->flags = F_ | SE;
        else
            return false;
        return true;
    case PTX_OPC_GRIDDEPCONTROL:
        if (ptx_str_eq(m0, ".wait"))
            out->flags = SY | SE;
        else if (ptx_str_eq(m0, ".launch_dependents"))
            out->flags = SE;
        else
            return false;
        return true;
    case PTX_OPC_CLUSTERLAUNCHCONTROL:
        if (ptx_str_eq(m0, ".try_cancel"))
            set_mem(out, S_ | AS | SE, 0, 0, sp0, 16);
        else if (ptx_str_eq(m0, ".query_cancel"))
            set_value(out, 0, resolve_type(TY_T0, in, mi), resolve_type(TY_T1, in, mi));
        else
            return false;
        return true;
    case PTX_OPC_TENSORMAP:
        if (ptx_str_eq(m0, ".replace")) {
            set_mem(out, S_ | SE, 0, 0, sp0, 0);
            out->stype = in->type;
        } else if (ptx_str_eq(m0, ".cp_fenceproxy"))
            set_copy(out, mi, L_ | S_ | F_ | SE);
        else
            return false;
        return true;
    default:
        return false;
    }
}

/* ---- modifier-dependent adjustments of table families --------------------- */
static void modifier_rules(const ptx_inst *in, const mod_info *mi, ptx_inst_sem *out)
{
    switch (in->op) {
    case PTX_OPC_CVT:
        /* cvt.pack.sat.convertType.abType.cType d, a, b, c: d has cType. */
        if (ptx_inst_has_mod(in, ".pack")) {
            out->dtype = in->type;
            out->stype = resolve_type(TY_T1, in, mi);
        }
        break;
    case PTX_OPC_ST:
        if (ptx_inst_has_mod(in, ".async"))
            out->flags |= AS; /* st.async [a], b, [mbar] */
        if (ptx_inst_has_mod(in, ".bulk")) {
            /* st.bulk [a], size, initval: initialises size bytes */
            out->access_bytes = imm_bytes(in, 1);
            out->stype = PTX_T_NONE;
        }
        break;
    case PTX_OPC_RED:
        if (ptx_inst_has_mod(in, ".async"))
            out->flags |= AS;
        break;
    case PTX_OPC_TEX:
    case PTX_OPC_TLD4:
    case PTX_OPC_SULD:
    case PTX_OPC_SUST:
    case PTX_OPC_SURED:
        out->space = PTX_SP_TEX;
        break;
    case PTX_OPC_FENCE:
        /* fence.proxy.tensormap::generic.acquire.scope [addr], size */
        if (in->nopd > 0 && in->opd[0].kind == PTX_O_ADDR) {
            out->addr_opd = 0;
            out->space = mi->nspaces ? mi->spaces[0] : PTX_SP_NONE;
        }
        break;
    case PTX_OPC_CALL:
        /* call (rets), f, (args): the return list is the only def. */
        out->ndef = in->nopd > 0 && in->opd[0].kind == PTX_O_LIST ? 1 : 0;
        break;
    case PTX_OPC_CVTA:
    case PTX_OPC_ISSPACEP:
    case PTX_OPC_MAPA:
    case PTX_OPC_GETCTARANK:
        /* No memory touched, but the space says what the address means. */
        out->space = mi->nspaces ? mi->spaces[0] : PTX_SP_NONE;
        break;
    default:
        break;
    }
}

void ptx_inst_semantics(const ptx_inst *in, ptx_inst_sem *out)
{
    mod_info mi;
    scan_mods(in, &mi);
    memset(out, 0, sizeof *out);
    out->addr_opd = out->src_addr_opd = NO;

    const sem_row *r = in->op < PTX_OPC__COUNT ? &table[in->op] : NULL;
    if (!r || !r->known) {
        make_unknown(in, &mi, out);
        return;
    }
    out->flags = r->flags;
    if (r->subop) {
        if (!subop_rules(in, &mi, out)) {
            make_unknown(in, &mi, out);
            return;
        }
    } else {
        out->ndef = r->ndef;
        out->addr_opd = r->addr;
        out->dtype = resolve_type(r->dty, in, &mi);
        out->stype = resolve_type(r->sty, in, &mi);
        if (r->addr != NO)
            out->space = mi.nspaces ? mi.spaces[0] : PTX_SP_NONE;
        switch (r->acc) {
        case AC_VD: out->access_bytes = vec_bytes(in, out->dtype); break;
        case AC_VS: out->access_bytes = vec_bytes(in, out->stype); break;
        case AC_IMM1: out->access_bytes = imm_bytes(in, 1); break;
        default: break;
        }
        if (mi.flags & PTX_SEM_WIDE) /* mul.wide, mad.wide (the only ones) */
            out->dtype = widen(in->type);
        modifier_rules(in, &mi, out);
    }

    /* .cc is add's, sub's, mad's, addc's, subc's and madc's only */
    out->flags |= mi.flags;
    if (mi.strong && (out->flags & (L_ | S_)))
        out->flags |= O_ | SE;
    /* Never claim more operands than exist (e.g. mbarrier.arrive written
     * without its state operand would otherwise index past the end). */
    if (out->ndef > in->nopd)
        out->ndef = (uint8_t)in->nopd;
    if (out->nrmw > out->ndef)
        out->nrmw = out->ndef;
    if (out->addr_opd >= in->nopd || in->opd[out->addr_opd].kind != PTX_O_ADDR) /* NO stays NO */
        out->addr_opd = NO;
    if (out->src_addr_opd >= in->nopd || in->opd[out->src_addr_opd].kind != PTX_O_ADDR)
        out->src_addr_opd = NO;
}

/* ---- integer operations (semantics.h) ---------------------------------------- */
static unsigned bits_or_64(unsigned t)
{
    unsigned b = ptx_type_bits((ptx_type)t);
    return b ? b : 64;
}

/* The comparison and combining operator of an integer setp/set: the one
 * reading of them (the affine rules, the branch verdicts, the barrier
 * rules and the one-lane predicates read ptx_iop). */
static void cmp_decode(const ptx_inst *in, ptx_type stype, ptx_iop *out)
{
    out->sgn = 0;
    ptx_mod_iter it = ptx_mods_begin(in);
    ptx_str m;
    while (ptx_mods_next(&it, &m)) {
        if (m.n == 3) { /* .eq .ne .lt .le .gt .ge, the unsigned .lo .ls .hi .hs, .or */
            char a = m.p[1], b = m.p[2];
            uint8_t c = a == 'e' && b == 'q' ? PTX_CMP_EQ : a == 'n' && b == 'e' ? PTX_CMP_NE
                      : a == 'l' ? (b == 't' || b == 'o' ? PTX_CMP_LT : b == 'e' || b == 's' ? PTX_CMP_LE : PTX_CMP_NONE)
                      : a == 'g' ? (b == 't' ? PTX_CMP_GT : b == 'e' ? PTX_CMP_GE : PTX_CMP_NONE)
                      : a == 'h' ? (b == 'i' ? PTX_CMP_GT : b == 's' ? PTX_CMP_GE : PTX_CMP_NONE) : PTX_CMP_NONE;
            if (c != PTX_CMP_NONE) {
                out->cmp = c;
                out->sgn = a != 'h' && b != 'o' && b != 's' ? (uint8_t)ptx_type_is_signed(stype) : 0;
            }
            if (a == 'o' && b == 'r') out->comb = PTX_OPC_OR;
        }
        if (m.n == 4 && !memcmp(m.p, ".and", 4)) out->comb = PTX_OPC_AND;
        if (m.n == 4 && !memcmp(m.p, ".xor", 4)) out->comb = PTX_OPC_XOR;
    }
}

void ptx_iop_decode(const ptx_func *fn, const ptx_inst *in, const ptx_inst_sem *sem, ptx_iop *out)
{
    out->rule = PTX_IOP_GENERIC;
    out->cmp = PTX_CMP_NONE;
    out->comb = 0;
    out->w = (uint8_t)bits_or_64(sem->dtype);
    out->sw = (uint8_t)bits_or_64(sem->stype);
    out->sgn = (uint8_t)ptx_type_is_signed(in->type);
    out->wide = 0;
    bool integer = ptx_type_is_int(in->type);
    /* add/sub/mul/mad without saturation, carry or high half: ring
     * operations modulo 2^w */
    bool plain = integer && !(sem->flags & (PTX_SEM_CC_DEF | PTX_SEM_CC_USE | PTX_SEM_SAT | PTX_SEM_HI));
    switch (in->op) {
    case PTX_OPC_MOV:
        /* an unpack (mov.b64 {lo, hi}, d) gives each element its bits of
         * d, not d; a pack (mov.b64 d, {lo, hi}) is generic (uniform when
         * every element is) */
        if (in->nopd != 2 || in->opd[1].kind == PTX_O_VEC) break;
        if (in->opd[0].kind == PTX_O_VEC) out->rule = PTX_IOP_UNPACK;
        else out->rule = ptx_type_is_int(sem->dtype) ? PTX_IOP_MOV_INT : PTX_IOP_MOV;
        break;
    case PTX_OPC_ADD: if (plain) out->rule = PTX_IOP_ADD; break;
    case PTX_OPC_SUB: if (plain) out->rule = PTX_IOP_SUB; break;
    case PTX_OPC_NEG: if (integer) out->rule = PTX_IOP_NEG; break;
    case PTX_OPC_NOT: if (integer) out->rule = PTX_IOP_NOT; break;
    case PTX_OPC_MUL: case PTX_OPC_MAD:
        if (!plain) break;
        out->rule = in->op == PTX_OPC_MUL ? PTX_IOP_MUL : PTX_IOP_MAD;
        out->wide = (sem->flags & PTX_SEM_WIDE) != 0;
        break;
    case PTX_OPC_SHL: if (integer) out->rule = PTX_IOP_SHL; break;
    case PTX_OPC_SHR: if (integer) out->rule = PTX_IOP_SHR; break;
    case PTX_OPC_CVT:
        /* cvt.u8.u32 into a .b16 register keeps the low 8 bits and extends
         * them to 16 (ISA: a destination register wider than the type): a
         * result that rules keeping the value at the type's width do not
         * describe */
        if (in->nopd > 0 && in->opd[0].kind == PTX_O_REG && in->opd[0].n < fn->nregs &&
            ptx_type_bits((ptx_type)fn->regs[in->opd[0].n].type) > out->w)
            break;
        /* likewise cvt.u32.s8 from a .b16 register reads the low 8 bits
         * of it, sign-extended: a truncation the register's value (kept at
         * 16 bits) does not describe either.  The no-wraparound assumption
         * covers index arithmetic, 32 bits and wider (cvt.s64.s32 of a
         * 64-bit index, nvcc's (int) cast, keeps its rule); 8- and 16-bit
         * values wrap as a matter of course */
        if (out->sw < 32 && in->nopd > 1 && in->opd[1].kind == PTX_O_REG && in->opd[1].n < fn->nregs &&
            ptx_type_bits((ptx_type)fn->regs[in->opd[1].n].type) > out->sw)
            break;
        if (ptx_type_is_int(sem->dtype) && ptx_type_is_int(sem->stype) && !(sem->flags & PTX_SEM_SAT))
            out->rule = ptx_type_is_signed(sem->stype) ? PTX_IOP_CVT_S : PTX_IOP_CVT_U;
        break;
    case PTX_OPC_CVTA: out->rule = PTX_IOP_CVTA; break;
    case PTX_OPC_MIN: case PTX_OPC_MAX: if (integer && in->nopd == 3) out->rule = PTX_IOP_MINMAX; break;
    case PTX_OPC_SELP: out->rule = PTX_IOP_SELP; break;
    case PTX_OPC_SETP: case PTX_OPC_SET:
        if (!ptx_type_is_int(sem->stype)) break;
        out->rule = in->op == PTX_OPC_SETP ? PTX_IOP_CMP : PTX_IOP_SET;
        cmp_decode(in, (ptx_type)sem->stype, out);
        break;
    case PTX_OPC_AND: out->rule = PTX_IOP_AND; break;
    case PTX_OPC_OR: out->rule = PTX_IOP_OR; break;
    case PTX_OPC_XOR: out->rule = PTX_IOP_XOR; break;
    case PTX_OPC_DIV: if (integer) out->rule = PTX_IOP_DIV; break;
    case PTX_OPC_REM: if (integer) out->rule = PTX_IOP_REM; break;
    case PTX_OPC_BFE: if (in->nopd == 4) out->rule = PTX_IOP_BFE; break;
    case PTX_OPC_BFI: if (in->nopd == 5) out->rule = PTX_IOP_BFI; break;
    default: break;
    }
}

/* ---- register walk ---------------------------------------------------------- */
typedef struct walk_ctx {
    const ptx_inst *in;
    ptx_reg_cb cb;
    void *ctx;
    uint32_t opd;
    uint32_t def_extra; /* MAYDEF for guarded instructions / unknown opcodes */
} walk_ctx;

static void emit(walk_ctx *w, const ptx_operand *o, uint32_t role)
{
    ptx_reg_ref r = {o->n, w->opd, role, o->comp, o};
    w->cb(w->ctx, w->in, &r);
}

/* values: whether registers outside addresses are read here. */
static void walk_uses(walk_ctx *w, const ptx_operand *o, bool values, bool in_addr)
{
    switch (o->kind) {
    case PTX_O_REG:
        if (values || in_addr)
            emit(w, o, PTX_REF_USE | (in_addr ? PTX_REF_ADDR : 0));
        break;
    case PTX_O_SREG:
        emit(w, o, PTX_REF_USE | PTX_REF_SREG | (in_addr ? PTX_REF_ADDR : 0));
        break;
    case PTX_O_ADDR:
    case PTX_O_VEC:
    case PTX_O_PAIR:
    case PTX_O_LIST:
        for (uint32_t i = 0; i < o->n; i++)
            walk_uses(w, &o->p.elems[i], values, in_addr || o->kind == PTX_O_ADDR);
        break;
    default:
        break;
    }
}

static void walk_defs(walk_ctx *w, const ptx_operand *o)
{
    switch (o->kind) {
    case PTX_O_REG:
        emit(w, o, PTX_REF_DEF | w->def_extra | (o->comp ? PTX_REF_MAYDEF : 0));
        break;
    case PTX_O_VEC:
    case PTX_O_PAIR:
    case PTX_O_LIST:
        for (uint32_t i = 0; i < o->n; i++)
            walk_defs(w, &o->p.elems[i]);
        break;
    default: /* addresses are never written through; SREGs are read-only */
        break;
    }
}

void ptx_inst_foreach_reg(const ptx_inst *in, const ptx_inst_sem *sem, ptx_reg_cb cb, void *ctx)
{
    ptx_inst_sem local;
    if (!sem) {
        ptx_inst_semantics(in, &local);
        sem = &local;
    }
    walk_ctx w = {in, cb, ctx, 0, 0};
    if (in->has_guard) {
        ptx_reg_ref r = {in->guard, PTX_OPD_GUARD, PTX_REF_USE | PTX_REF_GUARD, 0, NULL};
        cb(ctx, in, &r);
    }
    for (uint32_t i = 0; i < in->nopd; i++) {
        w.opd = i;
        walk_uses(&w, &in->opd[i], i >= sem->ndef || i < sem->nrmw, false);
    }
    if (in->has_guard || (sem->flags & PTX_SEM_UNKNOWN))
        w.def_extra = PTX_REF_MAYDEF;
    for (uint32_t i = 0; i < sem->ndef && i < in->nopd; i++) {
        w.opd = i;
        walk_defs(&w, &in->opd[i]);
    }
}

/* ---- debugging ---------------------------------------------------------------- */
const char *ptx_sem_flags_str(uint32_t flags, char *buf, size_t n)
{
    static const char *const names[] = {
        "branch", "call", "ret", "exit", "terminator", "sync", "collective",
        "atomic", "load", "store", "prefetch", "fence", "async", "cc_def",
        "cc_use", "side_effect", "ordered", "aligned", "unknown", "sat", "hi", "wide",
    };
    size_t len = 0;
    if (!buf || n == 0)
        return buf;
    buf[0] = '\0';
    if (flags == 0) {
        snprintf(buf, n, "none");
        return buf;
    }
    for (unsigned b = 0; b < sizeof names / sizeof names[0]; b++) {
        if (!(flags & (1u << b)))
            continue;
        int k = snprintf(buf + len, n - len, "%s%s", len ? "|" : "", names[b]);
        if (k < 0 || (size_t)k >= n - len) {
            buf[len] = '\0'; /* drop the partial name */
            break;
        }
        len += (size_t)k;
    }
    return buf;
}
