/* Instruction semantics table: real instructions (most from nvcc 13.0
 * -arch=sm_90 output, the sm_90a/sm_100a ones in the form the PTX ISA
 * examples and CUTLASS use) parsed with ptx_parse_string, then checked for
 * defs, uses, flags, state space, types and access size. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx.h"
#include "semantics.h"

static ptx_module *g_mod;
static ptx_func *g_fn;

static void teardown(void)
{
    if (g_mod)
        ptx_module_free(g_mod);
    g_mod = NULL;
    g_fn = NULL;
}

TestSuite(semantics, .fini = teardown);

#define MODULE_DECLS                                                                     \
    ".global .align 4 .u32 g_cnt;\n"                                                    \
    ".shared .align 8 .b64 sbar;\n"                                                     \
    ".global .texref tex0;\n"                                                           \
    ".global .surfref surf0;\n"                                                         \
    ".extern .func (.param .b32 func_retval0) callee(.param .b32 a, .param .b32 b);\n"        \
    ".extern .func callee0(.param .b32 a, .param .b32 b);\n"

#define BODY_DECLS                                                                      \
    "\t.reg .pred %p<8>;\n\t.reg .b16 %rs<8>;\n\t.reg .b32 %r<64>;\n"                   \
    "\t.reg .f32 %f<64>;\n\t.reg .b64 %rd<32>;\n\t.reg .f64 %fd<8>;\n"                  \
    "\t.reg .v4 .f32 %v;\n"                                                             \
    "\t.param .b32 param0;\n\t.param .b32 param1;\n\t.param .b32 retval0;\n"

static void validation_off(void) { ptx_set_validation(0); }
static void validation_on(void) { ptx_set_validation(1); }

/* Parses one instruction inside a kernel and returns it (the first
 * instruction of the body); extra_mod / extra_body are added declarations. */
static const ptx_inst *parse_inst_with(const char *extra_mod, const char *extra_body,
                                       const char *text)
{
    char src[8192];
    int n = snprintf(src, sizeof src,
                     ".version 8.7\n.target sm_100a\n.address_size 64\n%s"
                     "%s\n.visible .entry k(.param .u64 p)\n{\n%s%s\n\t%s\n"
                     "$L__BB0_2:\n\tret;\n}\n",
                     MODULE_DECLS, extra_mod, BODY_DECLS, extra_body, text);
    cr_assert(n > 0 && (size_t)n < sizeof src);
    ptx_diags d;
    ptx_diags_init(&d);
    teardown();
    g_mod = ptx_parse_string("test.ptx", src, (size_t)n, &d);
    if (!g_mod || d.nerrors)
        ptx_diags_print(&d, "test.ptx", src, (size_t)n, stderr);
    cr_assert_not_null(g_mod, "parse failed for: %s", text);
    ptx_diags_free(&d);
    for (uint32_t i = 0; i < g_mod->nfuncs; i++)
        if (g_mod->funcs[i]->has_body)
            g_fn = g_mod->funcs[i];
    cr_assert_not_null(g_fn);
    for (uint32_t i = 0; i < g_fn->nstmts; i++)
        if (g_fn->stmts[i]->kind == PTX_S_INST)
            return &g_fn->stmts[i]->u.inst;
    cr_assert_fail("no instruction in: %s", text);
    return NULL;
}

static const ptx_inst *parse_inst(const char *text) { return parse_inst_with("", "", text); }

static const char *sreg_name(uint32_t id)
{
    switch (id) {
    case PTX_SR_TID: return "%tid";
    case PTX_SR_NTID: return "%ntid";
    case PTX_SR_CTAID: return "%ctaid";
    case PTX_SR_LANEID: return "%laneid";
    case PTX_SR_CLOCK64: return "%clock64";
    default: return "%sreg?";
    }
}

typedef struct refbuf {
    char s[2048];
    size_t n;
} refbuf;

/* One token per reference: u:use a:use-in-address g:guard s:special-register
 * d:def m:maybe-def (old value survives). */
static void collect(void *ctx, const ptx_inst *in, const ptx_reg_ref *r)
{
    (void)in;
    refbuf *b = ctx;
    char kind;
    if (r->role & PTX_REF_DEF)
        kind = (r->role & PTX_REF_MAYDEF) ? 'm' : 'd';
    else if (r->role & PTX_REF_GUARD)
        kind = 'g';
    else if (r->role & PTX_REF_SREG)
        kind = 's';
    else if (r->role & PTX_REF_ADDR)
        kind = 'a';
    else
        kind = 'u';
    cr_assert(((r->role & PTX_REF_USE) != 0) != ((r->role & PTX_REF_DEF) != 0),
              "exactly one of USE/DEF");
    char name[64];
    if (r->role & PTX_REF_SREG)
        snprintf(name, sizeof name, "%s", sreg_name(r->id));
    else {
        cr_assert_lt(r->id, g_fn->nregs);
        ptx_str s = g_fn->regs[r->id].name;
        snprintf(name, sizeof name, "%.*s", (int)s.n, s.p);
    }
    int k = snprintf(b->s + b->n, sizeof b->s - b->n, "%s%c:%s", b->n ? " " : "", kind, name);
    if (r->comp)
        k += snprintf(b->s + b->n + k, sizeof b->s - b->n - k, ".%c", r->comp);
    b->n += (size_t)k;
}

static const char *refs_of(const ptx_inst *in, const ptx_inst_sem *sem)
{
    static refbuf b;
    b.n = 0;
    b.s[0] = '\0';
    ptx_inst_foreach_reg(in, sem, collect, &b);
    return b.s;
}

#define NOO PTX_SEM_NO_OPD
#define SE PTX_SEM_SIDE_EFFECT
#define LD PTX_SEM_LOAD
#define STO PTX_SEM_STORE
#define ATM PTX_SEM_ATOMIC
#define ORD PTX_SEM_ORDERED
#define COL PTX_SEM_COLLECTIVE
#define SYN PTX_SEM_SYNC
#define ALN PTX_SEM_ALIGNED
#define ASY PTX_SEM_ASYNC
#define FEN PTX_SEM_FENCE
#define TRM (PTX_SEM_TERMINATOR | SE)

/* Checks everything but the address operands; returns the semantics. */
static ptx_inst_sem check_inst(const ptx_inst *in, unsigned ndef, uint32_t flags, int space,
                               int dtype, int stype, uint32_t bytes, const char *refs)
{
    ptx_inst_sem s;
    char want[256], got[256];
    ptx_inst_semantics(in, &s);
    cr_assert_eq(s.flags, flags, "%.*s: flags %s, expected %s", (int)in->opcode_len, in->opcode,
                 ptx_sem_flags_str(s.flags, got, sizeof got),
                 ptx_sem_flags_str(flags, want, sizeof want));
    cr_assert_eq(s.ndef, ndef, "%.*s: ndef %u, expected %u", (int)in->opcode_len, in->opcode,
                 s.ndef, ndef);
    cr_assert_eq(s.space, space, "%.*s: space %u, expected %d", (int)in->opcode_len, in->opcode,
                 s.space, space);
    cr_assert_eq(s.dtype, dtype, "%.*s: dtype %s, expected %s", (int)in->opcode_len, in->opcode,
                 ptx_type_name(s.dtype), ptx_type_name(dtype));
    cr_assert_eq(s.stype, stype, "%.*s: stype %s, expected %s", (int)in->opcode_len, in->opcode,
                 ptx_type_name(s.stype), ptx_type_name(stype));
    cr_assert_eq(s.access_bytes, bytes, "%.*s: access_bytes %u, expected %u",
                 (int)in->opcode_len, in->opcode, s.access_bytes, bytes);
    const char *r = refs_of(in, &s);
    cr_assert_str_eq(r, refs, "%.*s: refs '%s', expected '%s'", (int)in->opcode_len, in->opcode,
                     r, refs);
    /* The NULL-sem form must agree. */
    char copy[2048];
    snprintf(copy, sizeof copy, "%s", r);
    static refbuf b;
    b.n = 0;
    b.s[0] = '\0';
    ptx_inst_foreach_reg(in, NULL, collect, &b);
    cr_assert_str_eq(b.s, copy);
    return s;
}

#define CHECK(text, ...) check_inst(parse_inst(text), __VA_ARGS__)

static void check_addr(const ptx_inst_sem *s, unsigned addr, unsigned src, int src_space)
{
    cr_assert_eq(s->addr_opd, addr, "addr_opd %u, expected %u", s->addr_opd, addr);
    cr_assert_eq(s->src_addr_opd, src, "src_addr_opd %u, expected %u", s->src_addr_opd, src);
    cr_assert_eq(s->src_space, src_space, "src_space %u, expected %d", s->src_space, src_space);
}

/* ---- arithmetic ------------------------------------------------------------ */
Test(semantics, add_s32)
{
    ptx_inst_sem s = CHECK("add.s32 %r3, %r6, %r5;", 1, 0, PTX_SP_NONE, PTX_T_S32, PTX_T_S32, 0,
                           "u:%r6 u:%r5 d:%r3");
    check_addr(&s, NOO, NOO, PTX_SP_NONE);
    cr_assert_eq(s.nrmw, 0);
}

Test(semantics, fma_f32)
{
    CHECK("fma.rn.f32 %f12, %f5, %f6, %f4;", 1, 0, PTX_SP_NONE, PTX_T_F32, PTX_T_F32, 0,
          "u:%f5 u:%f6 u:%f4 d:%f12");
}

Test(semantics, mad_lo_s32)
{
    CHECK("mad.lo.s32 %r4, %r2, %r1, %r3;", 1, 0, PTX_SP_NONE, PTX_T_S32, PTX_T_S32, 0,
          "u:%r2 u:%r1 u:%r3 d:%r4");
}

Test(semantics, mul_wide_s32)
{
    CHECK("mul.wide.s32 %rd8, %r6, 16;", 1, PTX_SEM_WIDE, PTX_SP_NONE, PTX_T_S64, PTX_T_S32, 0,
          "u:%r6 d:%rd8");
}

Test(semantics, mul_wide_u32)
{
    CHECK("mul.wide.u32 %rd3, %r4, 4;", 1, PTX_SEM_WIDE, PTX_SP_NONE, PTX_T_U64, PTX_T_U32, 0,
          "u:%r4 d:%rd3");
}

Test(semantics, mad_wide_u16)
{
    CHECK("mad.wide.u16 %r1, %rs1, %rs2, %r2;", 1, PTX_SEM_WIDE, PTX_SP_NONE, PTX_T_U32, PTX_T_U16, 0,
          "u:%rs1 u:%rs2 u:%r2 d:%r1");
}

Test(semantics, mul_hi_u32)
{
    CHECK("mul.hi.u32 %r28, %r27, %r2;", 1, PTX_SEM_HI, PTX_SP_NONE, PTX_T_U32, PTX_T_U32, 0,
          "u:%r27 u:%r2 d:%r28");
}

Test(semantics, add_cc)
{
    CHECK("add.cc.u32 %r1, %r2, %r3;", 1, PTX_SEM_CC_DEF, PTX_SP_NONE, PTX_T_U32, PTX_T_U32, 0,
          "u:%r2 u:%r3 d:%r1");
}

Test(semantics, addc_cc)
{
    CHECK("addc.cc.u32 %r4, %r5, %r6;", 1, PTX_SEM_CC_DEF | PTX_SEM_CC_USE, PTX_SP_NONE,
          PTX_T_U32, PTX_T_U32, 0, "u:%r5 u:%r6 d:%r4");
}

Test(semantics, addc_plain)
{
    CHECK("addc.u32 %r4, %r5, %r6;", 1, PTX_SEM_CC_USE, PTX_SP_NONE, PTX_T_U32, PTX_T_U32, 0,
          "u:%r5 u:%r6 d:%r4");
}

Test(semantics, sub_cc_subc)
{
    CHECK("sub.cc.u32 %r1, %r2, %r3;", 1, PTX_SEM_CC_DEF, PTX_SP_NONE, PTX_T_U32, PTX_T_U32, 0,
          "u:%r2 u:%r3 d:%r1");
    CHECK("subc.u32 %r1, %r2, %r3;", 1, PTX_SEM_CC_USE, PTX_SP_NONE, PTX_T_U32, PTX_T_U32, 0,
          "u:%r2 u:%r3 d:%r1");
}

Test(semantics, mad_cc_madc)
{
    CHECK("mad.lo.cc.u32 %r1, %r2, %r3, %r4;", 1, PTX_SEM_CC_DEF, PTX_SP_NONE, PTX_T_U32,
          PTX_T_U32, 0, "u:%r2 u:%r3 u:%r4 d:%r1");
    CHECK("madc.hi.cc.u32 %r1, %r2, %r3, %r4;", 1, PTX_SEM_CC_DEF | PTX_SEM_CC_USE | PTX_SEM_HI, PTX_SP_NONE,
          PTX_T_U32, PTX_T_U32, 0, "u:%r2 u:%r3 u:%r4 d:%r1");
}

Test(semantics, popc_counts_are_u32)
{
    CHECK("popc.b32 %r23, %r1;", 1, 0, PTX_SP_NONE, PTX_T_U32, PTX_T_B32, 0, "u:%r1 d:%r23");
    CHECK("popc.b64 %r1, %rd1;", 1, 0, PTX_SP_NONE, PTX_T_U32, PTX_T_B64, 0, "u:%rd1 d:%r1");
    CHECK("bfind.u64 %r1, %rd1;", 1, 0, PTX_SP_NONE, PTX_T_U32, PTX_T_U64, 0, "u:%rd1 d:%r1");
}

Test(semantics, dp4a_mixed_sign)
{
    CHECK("dp4a.u32.s32 %r1, %r2, %r3, %r4;", 1, 0, PTX_SP_NONE, PTX_T_S32, PTX_T_U32, 0,
          "u:%r2 u:%r3 u:%r4 d:%r1");
    CHECK("dp4a.u32.u32 %r1, %r2, %r3, %r4;", 1, 0, PTX_SP_NONE, PTX_T_U32, PTX_T_U32, 0,
          "u:%r2 u:%r3 u:%r4 d:%r1");
}

Test(semantics, lop3_prmt)
{
    CHECK("lop3.b32 %r1, %r2, %r3, %r4, 150;", 1, 0, PTX_SP_NONE, PTX_T_B32, PTX_T_B32, 0,
          "u:%r2 u:%r3 u:%r4 d:%r1");
    CHECK("prmt.b32 %r1, %r2, %r3, 0x3210;", 1, 0, PTX_SP_NONE, PTX_T_B32, PTX_T_B32, 0,
          "u:%r2 u:%r3 d:%r1");
}

/* ---- comparisons, selection, conversion ------------------------------------- */
Test(semantics, setp)
{
    CHECK("setp.ne.s32 %p1, %r1, 0;", 1, 0, PTX_SP_NONE, PTX_T_PRED, PTX_T_S32, 0,
          "u:%r1 d:%p1");
    CHECK("setp.gt.f32 %p2, %f12, 0f00000000;", 1, 0, PTX_SP_NONE, PTX_T_PRED, PTX_T_F32, 0,
          "u:%f12 d:%p2");
}

Test(semantics, setp_pair_dest)
{
    CHECK("setp.lt.and.s32 %p1|%p2, %r1, %r2, %p3;", 1, 0, PTX_SP_NONE, PTX_T_PRED, PTX_T_S32, 0,
          "u:%r1 u:%r2 u:%p3 d:%p1 d:%p2");
}

Test(semantics, set_and_slct)
{
    CHECK("set.lt.u32.f32 %r1, %f1, %f2;", 1, 0, PTX_SP_NONE, PTX_T_U32, PTX_T_F32, 0,
          "u:%f1 u:%f2 d:%r1");
    CHECK("slct.f32.s32 %f1, %f2, %f3, %r1;", 1, 0, PTX_SP_NONE, PTX_T_F32, PTX_T_F32, 0,
          "u:%f2 u:%f3 u:%r1 d:%f1");
}

Test(semantics, selp)
{
    CHECK("selp.u32 %r21, 1, 0, %p2;", 1, 0, PTX_SP_NONE, PTX_T_U32, PTX_T_U32, 0,
          "u:%p2 d:%r21");
}

Test(semantics, testp)
{
    CHECK("testp.finite.f32 %p1, %f1;", 1, 0, PTX_SP_NONE, PTX_T_PRED, PTX_T_F32, 0,
          "u:%f1 d:%p1");
}

Test(semantics, cvt_types)
{
    CHECK("cvt.rn.f32.s32 %f13, %r22;", 1, 0, PTX_SP_NONE, PTX_T_F32, PTX_T_S32, 0,
          "u:%r22 d:%f13");
    CHECK("cvt.u32.u64 %r22, %rd1;", 1, 0, PTX_SP_NONE, PTX_T_U32, PTX_T_U64, 0,
          "u:%rd1 d:%r22");
    CHECK("cvt.s64.s32 %rd1, %r6;", 1, 0, PTX_SP_NONE, PTX_T_S64, PTX_T_S32, 0, "u:%r6 d:%rd1");
    CHECK("cvt.rzi.s32.f32 %r2, %f1;", 1, 0, PTX_SP_NONE, PTX_T_S32, PTX_T_F32, 0,
          "u:%f1 d:%r2");
}

Test(semantics, cvt_pack)
{
    CHECK("cvt.pack.sat.u8.s32.b32 %r1, %r2, %r3, %r4;", 1, PTX_SEM_SAT, PTX_SP_NONE, PTX_T_B32,
          PTX_T_S32, 0, "u:%r2 u:%r3 u:%r4 d:%r1");
}

Test(semantics, cvta_to_global)
{
    ptx_inst_sem s = CHECK("cvta.to.global.u64 %rd10, %rd6;", 1, 0, PTX_SP_GLOBAL, PTX_T_U64,
                           PTX_T_U64, 0, "u:%rd6 d:%rd10");
    check_addr(&s, NOO, NOO, PTX_SP_NONE);
}

Test(semantics, cvta_shared_symbol)
{
    CHECK("cvta.shared.u64 %rd1, sbar;", 1, 0, PTX_SP_SHARED, PTX_T_U64, PTX_T_U64, 0,
          "d:%rd1");
}

Test(semantics, isspacep_mapa)
{
    CHECK("isspacep.global %p1, %rd1;", 1, 0, PTX_SP_GLOBAL, PTX_T_PRED, PTX_T_NONE, 0,
          "u:%rd1 d:%p1");
    CHECK("mapa.shared::cluster.u32 %r1, %r2, %r3;", 1, 0, PTX_SP_SHARED_CLUSTER, PTX_T_U32,
          PTX_T_U32, 0, "u:%r2 u:%r3 d:%r1");
}

/* ---- moves ------------------------------------------------------------------ */
Test(semantics, mov_sreg)
{
    CHECK("mov.u32 %r1, %tid.x;", 1, 0, PTX_SP_NONE, PTX_T_U32, PTX_T_U32, 0,
          "s:%tid.x d:%r1");
}

Test(semantics, mov_unpack_vec_dest)
{
    CHECK("mov.b64 {%r1, %r2}, %rd1;", 1, 0, PTX_SP_NONE, PTX_T_B64, PTX_T_B64, 0,
          "u:%rd1 d:%r1 d:%r2");
}

Test(semantics, mov_pack_vec_src)
{
    CHECK("mov.b64 %rd1, {%r1, %r2};", 1, 0, PTX_SP_NONE, PTX_T_B64, PTX_T_B64, 0,
          "u:%r1 u:%r2 d:%rd1");
}

Test(semantics, mov_symbol_address)
{
    CHECK("mov.u32 %r6, sbar;", 1, 0, PTX_SP_NONE, PTX_T_U32, PTX_T_U32, 0, "d:%r6");
}

Test(semantics, mov_vector_component_is_partial_def)
{
    CHECK("mov.f32 %v.x, %f1;", 1, 0, PTX_SP_NONE, PTX_T_F32, PTX_T_F32, 0, "u:%f1 m:%v.x");
}

Test(semantics, guarded_def_keeps_old_value)
{
    CHECK("@%p1 add.s32 %r1, %r1, 1;", 1, 0, PTX_SP_NONE, PTX_T_S32, PTX_T_S32, 0,
          "g:%p1 u:%r1 m:%r1");
}

/* ---- memory ------------------------------------------------------------------- */
Test(semantics, ld_global_nc_v4)
{
    ptx_inst_sem s = CHECK("ld.global.nc.v4.f32 {%f4, %f5, %f6, %f7}, [%rd9];", 1, LD,
                           PTX_SP_GLOBAL, PTX_T_F32, PTX_T_NONE, 16,
                           "a:%rd9 d:%f4 d:%f5 d:%f6 d:%f7");
    check_addr(&s, 1, NOO, PTX_SP_NONE);
}

Test(semantics, ld_global_symbol)
{
    CHECK("ld.global.u32 %r3, [g_cnt];", 1, LD, PTX_SP_GLOBAL, PTX_T_U32, PTX_T_NONE, 4,
          "d:%r3");
}

Test(semantics, ld_offset)
{
    CHECK("ld.global.u64 %rd26, [%rd2+16];", 1, LD, PTX_SP_GLOBAL, PTX_T_U64, PTX_T_NONE, 8,
          "a:%rd2 d:%rd26");
}

Test(semantics, ld_param_shared_generic)
{
    CHECK("ld.param.u64 %rd1, [p];", 1, LD, PTX_SP_PARAM, PTX_T_U64, PTX_T_NONE, 8, "d:%rd1");
    CHECK("ld.shared.f32 %f14, [%r13];", 1, LD, PTX_SP_SHARED, PTX_T_F32, PTX_T_NONE, 4,
          "a:%r13 d:%f14");
    CHECK("ld.u8 %rs1, [%rd1];", 1, LD, PTX_SP_NONE, PTX_T_U8, PTX_T_NONE, 1, "a:%rd1 d:%rs1");
}

Test(semantics, ld_volatile_acquire_are_ordered)
{
    CHECK("ld.volatile.global.u32 %r1, [%rd1];", 1, LD | ORD | SE, PTX_SP_GLOBAL, PTX_T_U32,
          PTX_T_NONE, 4, "a:%rd1 d:%r1");
    CHECK("ld.acquire.gpu.global.u32 %r1, [%rd1];", 1, LD | ORD | SE, PTX_SP_GLOBAL, PTX_T_U32,
          PTX_T_NONE, 4, "a:%rd1 d:%r1");
}

Test(semantics, ldu_v2)
{
    CHECK("ldu.global.v2.f32 {%f1, %f2}, [%rd1];", 1, LD, PTX_SP_GLOBAL, PTX_T_F32, PTX_T_NONE,
          8, "a:%rd1 d:%f1 d:%f2");
}

Test(semantics, st_global)
{
    ptx_inst_sem s = CHECK("st.global.f32 [%rd6+4], %f13;", 0, STO | SE, PTX_SP_GLOBAL,
                           PTX_T_NONE, PTX_T_F32, 4, "a:%rd6 u:%f13");
    check_addr(&s, 0, NOO, PTX_SP_NONE);
}

Test(semantics, st_v4_and_param)
{
    CHECK("st.global.v4.f32 [%rd1], {%f1, %f2, %f3, %f4};", 0, STO | SE, PTX_SP_GLOBAL,
          PTX_T_NONE, PTX_T_F32, 16, "a:%rd1 u:%f1 u:%f2 u:%f3 u:%f4");
    CHECK("st.param.b32 [param0+0], %r22;", 0, STO | SE, PTX_SP_PARAM, PTX_T_NONE, PTX_T_B32, 4,
          "u:%r22");
    CHECK("st.shared.f32 [%r10], %f13;", 0, STO | SE, PTX_SP_SHARED, PTX_T_NONE, PTX_T_F32, 4,
          "a:%r10 u:%f13");
}

Test(semantics, st_async)
{
    CHECK("st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%r1], %r2, [%r3];", 0,
          STO | SE | ASY, PTX_SP_SHARED_CLUSTER, PTX_T_NONE, PTX_T_U32, 4, "a:%r1 u:%r2 a:%r3");
}

Test(semantics, atom_add)
{
    ptx_inst_sem s = CHECK("atom.global.add.u32 %r18, [%rd10], 1;", 1, ATM | LD | STO | ORD | SE,
                           PTX_SP_GLOBAL, PTX_T_U32, PTX_T_U32, 4, "a:%rd10 d:%r18");
    check_addr(&s, 1, NOO, PTX_SP_NONE);
}

Test(semantics, atom_cas)
{
    CHECK("atom.global.cas.b32 %r20, [%rd12], %r18, %r6;", 1, ATM | LD | STO | ORD | SE,
          PTX_SP_GLOBAL, PTX_T_B32, PTX_T_B32, 4, "a:%rd12 u:%r18 u:%r6 d:%r20");
    CHECK("atom.acquire.gpu.shared::cta.cas.b64 %rd1, [%r1], %rd3, %rd4;",
          1, ATM | LD | STO | ORD | SE, PTX_SP_SHARED_CTA, PTX_T_B64, PTX_T_B64, 8,
          "a:%r1 u:%rd3 u:%rd4 d:%rd1");
}

Test(semantics, red_add)
{
    CHECK("red.global.add.u32 [%rd11], %r1;", 0, ATM | LD | STO | ORD | SE, PTX_SP_GLOBAL,
          PTX_T_NONE, PTX_T_U32, 4, "a:%rd11 u:%r1");
}

Test(semantics, prefetch)
{
    CHECK("prefetch.global.L2 [%rd1];", 0, PTX_SEM_PREFETCH | SE, PTX_SP_GLOBAL, PTX_T_NONE,
          PTX_T_NONE, 0, "a:%rd1");
}

Test(semantics, discard_applypriority)
{
    CHECK("discard.global.L2 [%rd1], 128;", 0, STO | SE, PTX_SP_GLOBAL, PTX_T_NONE, PTX_T_NONE,
          128, "a:%rd1");
    CHECK("applypriority.global.L2::evict_normal [%rd1], 128;", 0, PTX_SEM_PREFETCH | SE,
          PTX_SP_GLOBAL, PTX_T_NONE, PTX_T_NONE, 128, "a:%rd1");
}

Test(semantics, multimem)
{
    CHECK("multimem.ld_reduce.relaxed.sys.global.add.u32 %r1, [%rd1];", 1, LD | ORD | SE,
          PTX_SP_GLOBAL, PTX_T_U32, PTX_T_U32, 4, "a:%rd1 d:%r1");
    CHECK("multimem.st.relaxed.sys.global.b32 [%rd1], %r1;", 0, STO | ORD | SE, PTX_SP_GLOBAL,
          PTX_T_NONE, PTX_T_B32, 4, "a:%rd1 u:%r1");
    CHECK("multimem.red.relaxed.sys.global.add.u32 [%rd1], %r1;", 0, ATM | LD | STO | ORD | SE,
          PTX_SP_GLOBAL, PTX_T_NONE, PTX_T_U32, 4, "a:%rd1 u:%r1");
}

Test(semantics, cp_async)
{
    ptx_inst_sem s = CHECK("cp.async.cg.shared.global [%r3], [%rd2], 16;", 0, LD | STO | ASY | SE,
                           PTX_SP_SHARED, PTX_T_NONE, PTX_T_NONE, 16, "a:%r3 a:%rd2");
    check_addr(&s, 0, 1, PTX_SP_GLOBAL);
    CHECK("cp.async.ca.shared.global [%r1], [%rd1], 4, %r2;", 0, LD | STO | ASY | SE,
          PTX_SP_SHARED, PTX_T_NONE, PTX_T_NONE, 4, "a:%r1 a:%rd1 u:%r2");
}

Test(semantics, cp_async_groups)
{
    CHECK("cp.async.commit_group;", 0, ASY | SE, PTX_SP_NONE, PTX_T_NONE, PTX_T_NONE, 0, "");
    CHECK("cp.async.wait_group 0;", 0, ASY | FEN | SE, PTX_SP_NONE, PTX_T_NONE, PTX_T_NONE, 0, "");
}

Test(semantics, cp_async_bulk)
{
    ptx_inst_sem s = CHECK(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1], 256, [%r2];",
        0, LD | STO | ASY | SE, PTX_SP_SHARED_CLUSTER, PTX_T_NONE, PTX_T_NONE, 256,
        "a:%r1 a:%rd1 a:%r2");
    check_addr(&s, 0, 1, PTX_SP_GLOBAL);
}

Test(semantics, cp_async_bulk_tensor)
{
    ptx_inst_sem s = CHECK("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                           " [%r1], [%rd1, {%r2, %r3}], [%r4];",
                           0, LD | STO | ASY | SE, PTX_SP_SHARED_CLUSTER, PTX_T_NONE, PTX_T_NONE, 0,
                           "a:%r1 a:%rd1 a:%r2 a:%r3 a:%r4");
    check_addr(&s, 0, 1, PTX_SP_GLOBAL);
}

Test(semantics, texture_and_surface)
{
    CHECK("tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [tex0, {%f5, %f6}];", 1, LD, PTX_SP_TEX,
          PTX_T_F32, PTX_T_F32, 16, "a:%f5 a:%f6 d:%f1 d:%f2 d:%f3 d:%f4");
    CHECK("suld.b.2d.v4.b32.trap {%r1, %r2, %r3, %r4}, [surf0, {%r5, %r6}];", 1, LD, PTX_SP_TEX,
          PTX_T_B32, PTX_T_NONE, 16, "a:%r5 a:%r6 d:%r1 d:%r2 d:%r3 d:%r4");
    CHECK("sust.b.2d.v4.b32.trap [surf0, {%r5, %r6}], {%r1, %r2, %r3, %r4};", 0, STO | SE,
          PTX_SP_TEX, PTX_T_NONE, PTX_T_B32, 16, "a:%r5 a:%r6 u:%r1 u:%r2 u:%r3 u:%r4");
}

/* ---- control flow ------------------------------------------------------------- */
Test(semantics, bra_guarded_falls_through)
{
    const ptx_inst *in = parse_inst("@%p1 bra $L__BB0_2;");
    ptx_inst_sem s = check_inst(in, 0, PTX_SEM_BRANCH | TRM, PTX_SP_NONE, PTX_T_NONE, PTX_T_NONE,
                                0, "g:%p1");
    cr_assert(ptx_sem_falls_through(in, &s));
}

Test(semantics, bra_uni_does_not_fall_through)
{
    const ptx_inst *in = parse_inst("bra.uni $L__BB0_2;");
    ptx_inst_sem s = check_inst(in, 0, PTX_SEM_BRANCH | TRM, PTX_SP_NONE, PTX_T_NONE, PTX_T_NONE,
                                0, "");
    cr_assert_not(ptx_sem_falls_through(in, &s));
}

Test(semantics, brx_idx)
{
    const ptx_inst *in = parse_inst_with("", "$Ltab: .branchtargets $L__BB0_2;",
                                         "brx.idx %r1, $Ltab;");
    check_inst(in, 0, PTX_SEM_BRANCH | TRM, PTX_SP_NONE, PTX_T_NONE, PTX_T_U32, 0, "u:%r1");
}

Test(semantics, ret_exit_trap)
{
    CHECK("ret;", 0, PTX_SEM_RET | TRM, PTX_SP_NONE, PTX_T_NONE, PTX_T_NONE, 0, "");
    CHECK("exit;", 0, PTX_SEM_EXIT | TRM, PTX_SP_NONE, PTX_T_NONE, PTX_T_NONE, 0, "");
    CHECK("trap;", 0, PTX_SEM_EXIT | TRM, PTX_SP_NONE, PTX_T_NONE, PTX_T_NONE, 0, "");
}

Test(semantics, brkpt_is_not_a_terminator)
{
    CHECK("brkpt;", 0, SE, PTX_SP_NONE, PTX_T_NONE, PTX_T_NONE, 0, "");
}

Test(semantics, call_param_lists)
{
    CHECK("call.uni (retval0), callee, (param0, param1);", 1, PTX_SEM_CALL | LD | STO | SE,
          PTX_SP_NONE, PTX_T_NONE, PTX_T_NONE, 0, "");
    CHECK("call.uni callee0, (param0, param1);", 0, PTX_SEM_CALL | LD | STO | SE, PTX_SP_NONE,
          PTX_T_NONE, PTX_T_NONE, 0, "");
}

Test(semantics, call_register_lists)
{
    const ptx_inst *in = parse_inst_with(".extern .func (.reg .b32 rr) callee3(.reg .b32 ra);",
                                         "", "call.uni (%r2), callee3, (%r1);");
    check_inst(in, 1, PTX_SEM_CALL | LD | STO | SE, PTX_SP_NONE, PTX_T_NONE, PTX_T_NONE, 0,
               "u:%r1 d:%r2");
}

Test(semantics, call_indirect)
{
    const ptx_inst *in = parse_inst_with(
        "", "proto: .callprototype (.param .b32 _) _ (.param .b32 _, .param .b32 _);",
        "call (retval0), %rd1, (param0, param1), proto;");
    check_inst(in, 1, PTX_SEM_CALL | LD | STO | SE, PTX_SP_NONE, PTX_T_NONE, PTX_T_NONE, 0,
               "u:%rd1");
}

/* ---- synchronisation ------------------------------------------------------------ */
Test(semantics, bar_sync)
{
    CHECK("bar.sync 0;", 0, SYN | SE | ALN, PTX_SP_NONE, PTX_T_NONE, PTX_T_NONE, 0, "");
    CHECK("barrier.sync %r1, %r2;", 0, SYN | SE, PTX_SP_NONE, PTX_T_NONE, PTX_T_NONE, 0,
          "u:%r1 u:%r2");
}

Test(semantics, bar_red_popc)
{
    CHECK("bar.red.popc.u32 %r22, 0, %p1;", 1, SYN | COL | SE | ALN, PTX_SP_NONE, PTX_T_U32,
          PTX_T_PRED, 0, "u:%p1 d:%r22");
    CHECK("barrier.red.or.pred %p2, 1, !%p1;", 1, SYN | COL | SE, PTX_SP_NONE, PTX_T_PRED,
          PTX_T_PRED, 0, "u:%p1 d:%p2");
}

Test(semantics, bar_warp_sync)
{
    CHECK("bar.warp.sync -1;", 0, SYN | SE, PTX_SP_NONE, PTX_T_NONE, PTX_T_NONE, 0, "");
}

Test(semantics, barrier_cluster)
{
    CHECK("barrier.cluster.arrive.relaxed.aligned;", 0, SYN | SE | ALN, PTX_SP_NONE, PTX_T_NONE,
          PTX_T_NONE, 0, "");
    CHECK("barrier.cluster.wait;", 0, SYN | SE, PTX_SP_NONE, PTX_T_NONE, PTX_T_NONE, 0, "");
}

Test(semantics, membar_fence)
{
    CHECK("membar.gl;", 0, FEN | SE, PTX_SP_NONE, PTX_T_NONE, PTX_T_NONE, 0, "");
    CHECK("fence.acq_rel.gpu;", 0, FEN | SE, PTX_SP_NONE, PTX_T_NONE, PTX_T_NONE, 0, "");
    ptx_inst_sem s = CHECK("fence.proxy.tensormap::generic.acquire.gpu [%rd1], 128;", 0, FEN | SE,
                           PTX_SP_NONE, PTX_T_NONE, PTX_T_NONE, 0, "a:%rd1");
    check_addr(&s, 0, NOO, PTX_SP_NONE);
}

Test(semantics, mbarrier_init_zero_defs)
{
    ptx_inst_sem s = CHECK("mbarrier.init.shared::cta.b64 [%r7], %r8;", 0, STO | SE,
                           PTX_SP_SHARED_CTA, PTX_T_NONE, PTX_T_NONE, 8, "a:%r7 u:%r8");
    check_addr(&s, 0, NOO, PTX_SP_NONE);
}

Test(semantics, mbarrier_arrive_one_def)
{
    ptx_inst_sem s = CHECK("mbarrier.arrive.shared::cta.b64 %rd4, [%r9];", 1,
                           ATM | LD | STO | ORD | SYN | SE, PTX_SP_SHARED_CTA, PTX_T_B64,
                           PTX_T_NONE, 8, "a:%r9 d:%rd4");
    check_addr(&s, 1, NOO, PTX_SP_NONE);
    CHECK("mbarrier.arrive.expect_tx.release.cluster.shared::cluster.b64 _, [%r1], %r2;", 1,
          ATM | LD | STO | ORD | SYN | SE, PTX_SP_SHARED_CLUSTER, PTX_T_B64, PTX_T_NONE, 8,
          "a:%r1 u:%r2");
}

Test(semantics, mbarrier_waits)
{
    CHECK("mbarrier.try_wait.parity.shared::cta.b64 %p1, [%r9], %r2;", 1, LD | ORD | SYN | SE,
          PTX_SP_SHARED_CTA, PTX_T_PRED, PTX_T_NONE, 8, "a:%r9 u:%r2 d:%p1");
    CHECK("mbarrier.test_wait.shared.b64 %p1, [%r9], %rd2;", 1, LD | ORD | SYN | SE,
          PTX_SP_SHARED, PTX_T_PRED, PTX_T_NONE, 8, "a:%r9 u:%rd2 d:%p1");
}

Test(semantics, mbarrier_expect_tx_pending_count)
{
    CHECK("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%r1], 1024;", 0,
          ATM | LD | STO | ORD | SYN | SE, PTX_SP_SHARED_CTA, PTX_T_NONE, PTX_T_NONE, 8, "a:%r1");
    CHECK("mbarrier.pending_count.b64 %r1, %rd1;", 1, 0, PTX_SP_NONE, PTX_T_U32, PTX_T_B64, 0,
          "u:%rd1 d:%r1");
}

Test(semantics, griddepcontrol_setmaxnreg_nanosleep)
{
    CHECK("griddepcontrol.wait;", 0, SYN | SE, PTX_SP_NONE, PTX_T_NONE, PTX_T_NONE, 0, "");
    CHECK("griddepcontrol.launch_dependents;", 0, SE, PTX_SP_NONE, PTX_T_NONE, PTX_T_NONE, 0, "");
    CHECK("setmaxnreg.inc.sync.aligned.u32 240;", 0, SE | ALN, PTX_SP_NONE, PTX_T_NONE,
          PTX_T_NONE, 0, "");
    CHECK("nanosleep.u32 %r26;", 0, SE, PTX_SP_NONE, PTX_T_NONE, PTX_T_U32, 0, "u:%r26");
}

/* ---- warp collectives ----------------------------------------------------------- */
Test(semantics, shfl_pair_dest)
{
    CHECK("shfl.sync.down.b32 %r17|%p1, %r14, %r7, %r15, %r16;", 1, COL, PTX_SP_NONE, PTX_T_B32,
          PTX_T_B32, 0, "u:%r14 u:%r7 u:%r15 u:%r16 d:%r17 d:%p1");
}

Test(semantics, vote)
{
    CHECK("vote.sync.ballot.b32 %r1, %p2, %r16;", 1, COL, PTX_SP_NONE, PTX_T_B32, PTX_T_PRED, 0,
          "u:%p2 u:%r16 d:%r1");
    CHECK("vote.sync.any.pred %p5, !%p4, %r16;", 1, COL, PTX_SP_NONE, PTX_T_PRED, PTX_T_PRED, 0,
          "u:%p4 u:%r16 d:%p5");
}

Test(semantics, match_redux_activemask_elect)
{
    CHECK("match.any.sync.b32 %r30, %r27, %r16;", 1, COL, PTX_SP_NONE, PTX_T_B32, PTX_T_B32, 0,
          "u:%r27 u:%r16 d:%r30");
    CHECK("redux.sync.add.s32 %r31, %r27, %r16;", 1, COL, PTX_SP_NONE, PTX_T_S32, PTX_T_S32, 0,
          "u:%r27 u:%r16 d:%r31");
    CHECK("activemask.b32 %r25;", 1, COL, PTX_SP_NONE, PTX_T_B32, PTX_T_NONE, 0, "d:%r25");
    CHECK("elect.sync %r1|%p1, -1;", 1, COL, PTX_SP_NONE, PTX_T_B32, PTX_T_NONE, 0,
          "d:%r1 d:%p1");
}

Test(semantics, ldmatrix_stmatrix)
{
    CHECK("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r12,%r13,%r14,%r15}, [%r3];", 1,
          LD | COL | ALN, PTX_SP_SHARED, PTX_T_B16, PTX_T_NONE, 0,
          "a:%r3 d:%r12 d:%r13 d:%r14 d:%r15");
    CHECK("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%r1], {%r2, %r3};", 0,
          STO | COL | SE | ALN, PTX_SP_SHARED, PTX_T_NONE, PTX_T_B16, 0, "a:%r1 u:%r2 u:%r3");
}

Test(semantics, wmma)
{
    CHECK("wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r2, %r3, %r4, %r5, %r6, %r7, %r8, "
          "%r9}, [%rd6], %r1;",
          1, LD | COL | ALN, PTX_SP_GLOBAL, PTX_T_F16, PTX_T_NONE, 0,
          "a:%rd6 u:%r1 d:%r2 d:%r3 d:%r4 d:%r5 d:%r6 d:%r7 d:%r8 d:%r9");
    CHECK("wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%f2, %f3, %f4, %f5, %f6, %f7, %f8, "
          "%f9}, {%r2, %r3, %r4, %r5, %r6, %r7, %r8, %r9}, {%r10, %r11, %r12, %r13, %r14, %r15, "
          "%r16, %r17}, {%f1, %f1, %f1, %f1, %f1, %f1, %f1, %f1};",
          1, COL | ALN, PTX_SP_NONE, PTX_T_F32, PTX_T_F32, 0,
          "u:%r2 u:%r3 u:%r4 u:%r5 u:%r6 u:%r7 u:%r8 u:%r9 u:%r10 u:%r11 u:%r12 u:%r13 u:%r14 "
          "u:%r15 u:%r16 u:%r17 u:%f1 u:%f1 u:%f1 u:%f1 u:%f1 u:%f1 u:%f1 u:%f1 d:%f2 d:%f3 d:%f4 "
          "d:%f5 d:%f6 d:%f7 d:%f8 d:%f9");
    CHECK("wmma.store.d.sync.aligned.row.m16n16k16.global.f32 [%rd5], {%f2, %f3, %f4, %f5, %f6, "
          "%f7, %f8, %f9}, %r1;",
          0, STO | COL | SE | ALN, PTX_SP_GLOBAL, PTX_T_NONE, PTX_T_F32, 0,
          "a:%rd5 u:%f2 u:%f3 u:%f4 u:%f5 u:%f6 u:%f7 u:%f8 u:%f9 u:%r1");
}

Test(semantics, mma_sync)
{
    CHECK("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, "
          "%r4}, {%r5, %r6}, {%f5, %f6, %f7, %f8};",
          1, COL | ALN, PTX_SP_NONE, PTX_T_F32, PTX_T_F16, 0,
          "u:%r1 u:%r2 u:%r3 u:%r4 u:%r5 u:%r6 u:%f5 u:%f6 u:%f7 u:%f8 d:%f1 d:%f2 d:%f3 d:%f4");
}

Test(semantics, wgmma_accumulator_rmw)
{
    ptx_inst_sem s = CHECK(
        "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd1, %rd2, %p1, "
        "1, 1, 0, 0;",
        1, LD | COL | ASY | SE | ALN, PTX_SP_NONE, PTX_T_F32, PTX_T_F16, 0,
        "u:%f1 u:%f2 u:%f3 u:%f4 u:%rd1 u:%rd2 u:%p1 d:%f1 d:%f2 d:%f3 d:%f4");
    cr_assert_eq(s.nrmw, 1);
}

Test(semantics, wgmma_scale_d_zero_is_not_read)
{
    ptx_inst_sem s = CHECK(
        "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd1, %rd2, 0, "
        "1, 1, 0, 0;",
        1, LD | COL | ASY | SE | ALN, PTX_SP_NONE, PTX_T_F32, PTX_T_F16, 0,
        "u:%rd1 u:%rd2 d:%f1 d:%f2 d:%f3 d:%f4");
    cr_assert_eq(s.nrmw, 0);
}

Test(semantics, wgmma_fence_commit_wait)
{
    CHECK("wgmma.fence.sync.aligned;", 0, FEN | ASY | SE | ALN, PTX_SP_NONE, PTX_T_NONE,
          PTX_T_NONE, 0, "");
    CHECK("wgmma.commit_group.sync.aligned;", 0, ASY | SE | ALN, PTX_SP_NONE, PTX_T_NONE,
          PTX_T_NONE, 0, "");
    CHECK("wgmma.wait_group.sync.aligned 0;", 0, FEN | ASY | SE | ALN, PTX_SP_NONE, PTX_T_NONE,
          PTX_T_NONE, 0, "");
}

/* ---- tensor memory (sm_100a) ------------------------------------------------------ */
Test(semantics, tcgen05_ld_st)
{
    CHECK("tcgen05.ld.sync.aligned.32x32b.x2.b32 {%r1, %r2}, [%r3];", 1, LD | ASY | ALN,
          PTX_SEM_SPACE_TMEM, PTX_T_B32, PTX_T_NONE, 0, "a:%r3 d:%r1 d:%r2");
    CHECK("tcgen05.st.sync.aligned.32x32b.x2.b32 [%r3], {%r1, %r2};", 0, STO | ASY | SE | ALN,
          PTX_SEM_SPACE_TMEM, PTX_T_NONE, PTX_T_B32, 0, "a:%r3 u:%r1 u:%r2");
}

Test(semantics, tcgen05_alloc_wait_mma_commit)
{
    CHECK("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r1], 32;", 0, STO | SE | ALN,
          PTX_SP_SHARED_CTA, PTX_T_NONE, PTX_T_NONE, 4, "a:%r1");
    CHECK("tcgen05.wait::ld.sync.aligned;", 0, FEN | ASY | SE | ALN, PTX_SP_NONE, PTX_T_NONE,
          PTX_T_NONE, 0, "");
    CHECK("tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd1, %rd2, %r2, %p1;", 0,
          LD | STO | ASY | SE, PTX_SEM_SPACE_TMEM, PTX_T_NONE, PTX_T_NONE, 0,
          "a:%r1 u:%rd1 u:%rd2 u:%r2 u:%p1");
    CHECK("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%r1];", 0,
          ATM | LD | STO | SYN | ASY | SE, PTX_SP_SHARED_CLUSTER, PTX_T_NONE, PTX_T_NONE, 8,
          "a:%r1");
}

Test(semantics, clusterlaunchcontrol)
{
    CHECK("clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 "
          "[%r1], [%r2];",
          0, STO | ASY | SE, PTX_SP_SHARED_CTA, PTX_T_NONE, PTX_T_NONE, 16, "a:%r1 a:%r2");
}

Test(semantics, createpolicy)
{
    CHECK("createpolicy.fractional.L2::evict_last.b64 %rd1, 1.0;", 1, 0, PTX_SP_NONE, PTX_T_B64,
          PTX_T_NONE, 0, "d:%rd1");
}

/* ---- unknown ------------------------------------------------------------------ */
#define UNK                                                                                  \
    (PTX_SEM_UNKNOWN | LD | STO | ATM | FEN | SYN | COL | SE)

/* Unknown instructions are errors (validate.c); with the validation off
 * they parse generically and their semantics are as cautious as can be. */
Test(semantics, unknown_opcode_is_conservative, .init = validation_off, .fini = validation_on)
{
    ptx_inst_sem s = CHECK("frobnicate.b32 %r1, [%rd1], %r2;", 3, UNK, PTX_SP_NONE, PTX_T_B32,
                           PTX_T_B32, 0, "u:%r1 a:%rd1 u:%r2 m:%r1 m:%r2");
    cr_assert_eq(s.nrmw, 3);
    cr_assert_eq(s.addr_opd, 1);
}

Test(semantics, unknown_subop_is_conservative, .init = validation_off, .fini = validation_on)
{
    CHECK("mbarrier.frobnicate.shared.b64 %rd1, [%r1];", 2, UNK, PTX_SP_SHARED, PTX_T_B64,
          PTX_T_B64, 0, "u:%rd1 a:%r1 m:%rd1");
}

/* ---- table coverage and helpers ---------------------------------------------- */
Test(semantics, every_family_has_a_row)
{
    /* Families whose operands depend on the sub-operation are UNKNOWN when
     * it is missing; every other family must be described by the table. */
    static const int subop[] = {PTX_OPC_MULTIMEM, PTX_OPC_CP, PTX_OPC_TENSORMAP, PTX_OPC_BAR,
                                PTX_OPC_BARRIER, PTX_OPC_MBARRIER, PTX_OPC_GRIDDEPCONTROL,
                                PTX_OPC_CLUSTERLAUNCHCONTROL, PTX_OPC_WMMA, PTX_OPC_WGMMA,
                                PTX_OPC_TCGEN05};
    for (int op = 1; op < PTX_OPC__COUNT; op++) {
        const char *name = ptx_opcode_name((ptx_opcode)op);
        ptx_inst in;
        memset(&in, 0, sizeof in);
        in.op = (uint16_t)op;
        in.opcode = name;
        in.opcode_len = (uint16_t)strlen(name);
        ptx_inst_sem s;
        ptx_inst_semantics(&in, &s);
        bool is_subop = false;
        for (size_t i = 0; i < sizeof subop / sizeof subop[0]; i++)
            is_subop |= subop[i] == op;
        cr_assert_eq((s.flags & PTX_SEM_UNKNOWN) != 0, is_subop, "%s", name);
        cr_assert_eq(s.ndef, 0, "%s: ndef clamped to nopd", name);
    }
}

Test(semantics, flags_str)
{
    char buf[128];
    cr_assert_str_eq(ptx_sem_flags_str(0, buf, sizeof buf), "none");
    cr_assert_str_eq(ptx_sem_flags_str(LD | STO | ATM, buf, sizeof buf), "atomic|load|store");
    cr_assert_str_eq(ptx_sem_flags_str(PTX_SEM_BRANCH | PTX_SEM_TERMINATOR, buf, sizeof buf),
                     "branch|terminator");
    char small[8];
    ptx_sem_flags_str(LD | STO | ATM, small, sizeof small);
    cr_assert_str_eq(small, "atomic");
}

/* ---- the one decoder of integer operations (ptx_iop_decode) --------------------------- */
/* rule, widths, sign and wide of text's instruction; the registers of
 * BODY_DECLS (%rs .b16, %r .b32, %rd .b64, %f .f32, %p .pred). */
static void expect_iop(const char *text, ptx_iop_rule rule, unsigned w, unsigned sw, unsigned sgn, unsigned wide)
{
    const ptx_inst *in = parse_inst(text);
    ptx_inst_sem sem;
    ptx_iop d;
    ptx_inst_semantics(in, &sem);
    ptx_iop_decode(g_fn, in, &sem, &d);
    cr_expect_eq(d.rule, rule, "%s: rule %u, expected %u", text, d.rule, rule);
    if (rule == PTX_IOP_GENERIC) return;
    cr_expect(d.w == w && d.sw == sw && d.sgn == sgn && d.wide == wide,
              "%s: w %u sw %u sgn %u wide %u, expected %u %u %u %u", text, d.w, d.sw, d.sgn, d.wide, w, sw, sgn, wide);
}

Test(semantics, integer_operations_are_decoded_with_one_set_of_guards)
{
    /* the plain ring operations */
    expect_iop("add.s32 %r1, %r2, %r3;", PTX_IOP_ADD, 32, 32, 1, 0);
    expect_iop("sub.u64 %rd1, %rd2, %rd3;", PTX_IOP_SUB, 64, 64, 0, 0);
    expect_iop("mul.lo.s32 %r1, %r2, 4;", PTX_IOP_MUL, 32, 32, 1, 0);
    expect_iop("mul.wide.u16 %r1, %rs1, 3;", PTX_IOP_MUL, 32, 16, 0, 1);
    expect_iop("mad.wide.s32 %rd1, %r1, %r2, %rd2;", PTX_IOP_MAD, 64, 32, 1, 1);
    expect_iop("shl.b32 %r1, %r2, 3;", PTX_IOP_SHL, 32, 32, 0, 0);
    expect_iop("shr.s32 %r1, %r2, 3;", PTX_IOP_SHR, 32, 32, 1, 0);
    expect_iop("min.u32 %r1, %r2, %r3;", PTX_IOP_MINMAX, 32, 32, 0, 0);
    expect_iop("mov.u32 %r1, %tid.x;", PTX_IOP_MOV_INT, 32, 32, 0, 0);
    expect_iop("mov.f32 %f1, %f2;", PTX_IOP_MOV, 32, 32, 0, 0);
    expect_iop("mov.b64 {%r1, %r2}, %rd1;", PTX_IOP_UNPACK, 64, 64, 0, 0);
    expect_iop("cvt.s64.s32 %rd1, %r1;", PTX_IOP_CVT_S, 64, 32, 1, 0);
    expect_iop("cvt.u32.u64 %r1, %rd1;", PTX_IOP_CVT_U, 32, 64, 0, 0);
    expect_iop("setp.lt.s32 %p1, %r1, %r2;", PTX_IOP_CMP, 1, 32, 1, 0);
    expect_iop("and.pred %p1, %p2, %p3;", PTX_IOP_AND, 1, 1, 0, 0);
    /* what is not the plain operation has no rule */
    expect_iop("add.sat.s32 %r1, %r2, %r3;", PTX_IOP_GENERIC, 0, 0, 0, 0);
    expect_iop("add.cc.u32 %r1, %r2, %r3;", PTX_IOP_GENERIC, 0, 0, 0, 0);
    expect_iop("addc.u32 %r1, %r2, %r3;", PTX_IOP_GENERIC, 0, 0, 0, 0);
    expect_iop("mul.hi.u32 %r1, %r2, %r3;", PTX_IOP_GENERIC, 0, 0, 0, 0);
    expect_iop("add.f32 %f1, %f2, %f3;", PTX_IOP_GENERIC, 0, 0, 0, 0);
    expect_iop("neg.f32 %f1, %f2;", PTX_IOP_GENERIC, 0, 0, 0, 0);
    expect_iop("setp.lt.f32 %p1, %f1, %f2;", PTX_IOP_GENERIC, 0, 0, 0, 0);
    expect_iop("mov.b64 %rd1, {%r1, %r2};", PTX_IOP_GENERIC, 0, 0, 0, 0);
    expect_iop("cvt.sat.u8.s32 %rs1, %r1;", PTX_IOP_GENERIC, 0, 0, 0, 0);
    expect_iop("cvt.rzi.s32.f32 %r1, %f1;", PTX_IOP_GENERIC, 0, 0, 0, 0);
    /* a register wider than the conversion's type: cvt.u8.u32 into a .b16
     * register extends the low 8 bits to 16; cvt.u32.s8 from one reads its
     * low 8 bits */
    expect_iop("cvt.u8.u32 %rs1, %r1;", PTX_IOP_GENERIC, 0, 0, 0, 0);
    expect_iop("cvt.u32.s8 %r1, %rs1;", PTX_IOP_GENERIC, 0, 0, 0, 0);
    expect_iop("cvt.u32.u16 %r1, %rs1;", PTX_IOP_CVT_U, 32, 16, 0, 0);
}

/* An integer setp/set's comparison, signedness and combining operator, read
 * once by the decoder for every analysis that asks (ISA "setp": .lo .ls .hi
 * .hs are the unsigned .lt .le .gt .ge; the modifiers in any order). */
static void expect_cmp(const char *text, unsigned cmp, unsigned sgn, unsigned comb)
{
    const ptx_inst *in = parse_inst(text);
    ptx_inst_sem sem;
    ptx_iop d;
    ptx_inst_semantics(in, &sem);
    ptx_iop_decode(g_fn, in, &sem, &d);
    cr_expect(d.cmp == cmp && d.sgn == sgn && d.comb == comb, "%s: cmp %u sgn %u comb %u, expected %u %u %u", text,
              d.cmp, d.sgn, d.comb, cmp, sgn, comb);
}

Test(semantics, integer_comparisons_are_decoded_once)
{
    expect_cmp("setp.lt.s32 %p1, %r1, %r2;", PTX_CMP_LT, 1, 0);
    expect_cmp("setp.lt.u32 %p1, %r1, %r2;", PTX_CMP_LT, 0, 0);
    expect_cmp("setp.lo.u32 %p1, %r1, %r2;", PTX_CMP_LT, 0, 0);
    expect_cmp("setp.ls.u32 %p1, %r1, %r2;", PTX_CMP_LE, 0, 0);
    expect_cmp("setp.hi.u32 %p1, %r1, %r2;", PTX_CMP_GT, 0, 0);
    expect_cmp("setp.hs.u64 %p1, %rd1, %rd2;", PTX_CMP_GE, 0, 0);
    expect_cmp("setp.ge.s64 %p1, %rd1, %rd2;", PTX_CMP_GE, 1, 0);
    expect_cmp("setp.s32.gt %p1, %r1, %r2;", PTX_CMP_GT, 1, 0);
    expect_cmp("setp.eq.b32 %p1, %r1, %r2;", PTX_CMP_EQ, 0, 0);
    expect_cmp("setp.ne.and.s32 %p1, %r1, %r2, %p2;", PTX_CMP_NE, 1, PTX_OPC_AND);
    expect_cmp("setp.le.or.u32 %p1, %r1, %r2, %p2;", PTX_CMP_LE, 0, PTX_OPC_OR);
    expect_cmp("setp.eq.xor.s32 %p1|%p2, %r1, %r2, %p3;", PTX_CMP_EQ, 1, PTX_OPC_XOR);
    expect_cmp("set.lt.u32.s32 %r1, %r2, %r3;", PTX_CMP_LT, 1, 0);
    /* not an integer comparison: no comparison decoded */
    expect_cmp("setp.lt.f32 %p1, %f1, %f2;", PTX_CMP_NONE, 0, 0);
    expect_cmp("add.s32 %r1, %r2, %r3;", PTX_CMP_NONE, 1, 0);
}
