/* One decoder per opcode family: operands into slots, modifiers into einst
 * fields, then the handler from the exec_*.c lookups.  Anything not
 * recognised leaves a reason in c->why and the instruction becomes
 * CTL_UNSUP (see decode.c). */
#include <stdlib.h>
#include <string.h>
#include "decode.h"

static bool nopd(dctx *c, const ptx_inst *in, unsigned lo, unsigned hi)
{
    if (in->nopd < lo || in->nopd > hi) {
        dec_why(c, "'%.*s' with %u operands is not supported", (int)in->opcode_len, in->opcode, in->nopd);
        return false;
    }
    return true;
}

static bool is_float_type(unsigned t)
{
    return t == PTX_T_F16 || t == PTX_T_F16X2 || t == PTX_T_BF16 || t == PTX_T_BF16X2 || t == PTX_T_F32 ||
           t == PTX_T_F64 || t == PTX_T_TF32;
}

static bool lookup_fail(dctx *c, const ptx_inst *in, const char *why)
{
    dec_why(c, "'%.*s' is not supported%s%s", (int)in->opcode_len, in->opcode, why ? ": " : "", why ? why : "");
    return false;
}

/* The carry flag (add.cc / addc) lives in a hidden per-frame slot. */
static uint32_t cc_slot(dctx *c)
{
    if (c->cc == EMU_NONE) c->cc = c->nslots++;
    return c->cc;
}

/* d, a, b, ... with every source of type st (or the instruction type). */
static bool alu_operands(dctx *c, const ptx_inst *in, einst *I, unsigned nsrc, const unsigned *stypes)
{
    bool ok = true;
    if (!nopd(c, in, 1 + nsrc, 1 + nsrc)) return false;
    I->d[0] = dec_dst(c, &in->opd[0], &ok);
    for (unsigned k = 0; k < nsrc && k < EI_MAXS; k++)
        I->s[k] = dec_src(c, &in->opd[1 + k], stypes ? stypes[k] : I->type, &ok);
    return ok;
}

static bool arith(dctx *c, const ptx_inst *in, mods *md, einst *I)
{
    unsigned op = in->op;
    unsigned t = in->type;
    bool fl = is_float_type(t);
    unsigned nsrc;
    switch (op) {
    case PTX_OPC_ABS: case PTX_OPC_NEG: case PTX_OPC_RCP: case PTX_OPC_SQRT: case PTX_OPC_RSQRT:
    case PTX_OPC_SIN: case PTX_OPC_COS: case PTX_OPC_LG2: case PTX_OPC_EX2: case PTX_OPC_TANH:
        nsrc = 1; break;
    case PTX_OPC_MAD: case PTX_OPC_MAD24: case PTX_OPC_SAD: case PTX_OPC_FMA: nsrc = 3; break;
    default: nsrc = 2; break;
    }
    if (dec_take(md, ".ftz")) I->flags |= EI_FTZ;
    if (dec_take(md, ".sat")) I->flags |= EI_SAT;
    if (dec_take(md, ".relu")) I->flags |= EI_RELU;
    if (dec_take(md, ".NaN")) I->flags |= EI_NAN;
    if (dec_take(md, ".xorsign")) I->flags |= EI_XORSIGN;
    if (dec_take(md, ".abs")) I->flags |= EI_ABS;
    if (dec_take(md, ".cc")) I->flags |= EI_CC;
    if (dec_take(md, ".approx")) I->sub = 1;
    if (dec_take(md, ".full")) I->sub = 2;
    if (dec_take(md, ".hi")) I->sub = MUL_HI;
    else if (dec_take(md, ".wide")) I->sub = MUL_WIDE;
    else if (dec_take(md, ".lo")) I->sub = MUL_LO;
    dec_take(md, ".noftz");
    I->rnd = md->rnd;
    if (!alu_operands(c, in, I, nsrc, NULL)) return false;
    if (I->flags & EI_CC) I->d[1] = cc_slot(c);
    const char *why = NULL;
    I->fn = fl ? emu_lookup_float(op, I, &why) : emu_lookup_int(op, I, &why);
    if (!I->fn) return lookup_fail(c, in, why);
    if (!fl && op == PTX_OPC_MUL && I->sub == MUL_WIDE) I->dbytes = dec_reg_bytes(c, &in->opd[0]);
    return true;
}

static bool intop(dctx *c, const ptx_inst *in, mods *md, einst *I)
{
    unsigned op = in->op;
    unsigned u32 = PTX_T_U32;
    unsigned st[5] = {in->type, in->type, in->type, in->type, in->type};
    unsigned nsrc = 2;
    bool ok = true;
    switch (op) {
    case PTX_OPC_POPC: case PTX_OPC_CLZ: case PTX_OPC_BREV: case PTX_OPC_NOT: case PTX_OPC_CNOT: nsrc = 1; break;
    case PTX_OPC_BFIND:
        nsrc = 1;
        if (dec_take(md, ".shiftamt")) I->flags |= EI_SHIFTAMT;
        break;
    case PTX_OPC_FNS: nsrc = 3; st[0] = st[1] = st[2] = u32; break;
    case PTX_OPC_BFE: nsrc = 3; st[1] = st[2] = u32; break;
    case PTX_OPC_BFI: nsrc = 4; st[2] = st[3] = u32; break;
    case PTX_OPC_SZEXT: case PTX_OPC_BMSK:
        if (dec_take(md, ".clamp")) I->sub2 = 1;
        else if (!dec_take(md, ".wrap")) { dec_why(c, "'%.*s' needs .clamp or .wrap", (int)in->opcode_len, in->opcode); return false; }
        st[1] = u32;
        break;
    case PTX_OPC_DP4A: case PTX_OPC_DP2A:
        nsrc = 3;
        if (md->ntypes != 2) { dec_why(c, "dp4a/dp2a need two types"); return false; }
        I->type = md->types[0];  /* a */
        I->type2 = md->types[1]; /* b */
        st[0] = I->type; st[1] = I->type2; st[2] = u32;
        if (op == PTX_OPC_DP2A) {
            if (dec_take(md, ".hi")) I->sub = 1;
            else if (!dec_take(md, ".lo")) { dec_why(c, "dp2a needs .lo or .hi"); return false; }
        }
        break;
    case PTX_OPC_ADDC: case PTX_OPC_SUBC:
        if (dec_take(md, ".cc")) I->flags |= EI_CC;
        break;
    case PTX_OPC_MADC:
        nsrc = 3;
        if (dec_take(md, ".cc")) I->flags |= EI_CC;
        if (dec_take(md, ".hi")) I->sub = MUL_HI;
        else if (!dec_take(md, ".lo")) { dec_why(c, "madc needs .lo or .hi"); return false; }
        break;
    case PTX_OPC_LOP3: nsrc = 4; st[3] = u32; break;
    case PTX_OPC_SHF:
        nsrc = 3; st[2] = u32;
        if (dec_take(md, ".l")) I->sub = SHF_L;
        else if (dec_take(md, ".r")) I->sub = SHF_R;
        if (dec_take(md, ".clamp")) I->sub2 = 1;
        else if (!dec_take(md, ".wrap")) { dec_why(c, "shf needs .clamp or .wrap"); return false; }
        if (!I->sub) { dec_why(c, "shf needs .l or .r"); return false; }
        break;
    case PTX_OPC_SHL: case PTX_OPC_SHR: st[1] = u32; break;
    case PTX_OPC_PRMT: {
        nsrc = 3; st[2] = u32;
        static const char *const pm[] = {NULL, ".f4e", ".b4e", ".rc8", ".ecl", ".ecr", ".rc16"};
        for (unsigned k = 1; k < 7; k++)
            if (dec_take(md, pm[k])) I->sub = (uint8_t)k;
        break;
    }
    default: break;
    }
    /* predicate logic: and/or/xor/not on .pred */
    if (in->type == PTX_T_PRED) {
        if (!nopd(c, in, 1 + nsrc, 1 + nsrc)) return false;
        I->d[0] = dec_pdst(c, &in->opd[0], &ok);
        for (unsigned k = 0; k < nsrc; k++) I->s[k] = dec_psrc(c, &in->opd[1 + k], &ok);
        if (!ok) return false;
    } else {
        if (!alu_operands(c, in, I, nsrc, st)) return false;
    }
    if ((op == PTX_OPC_ADDC || op == PTX_OPC_SUBC || op == PTX_OPC_MADC)) {
        I->s[nsrc] = cc_slot(c);
        if (I->flags & EI_CC) I->d[1] = cc_slot(c);
    }
    const char *why = NULL;
    I->fn = emu_lookup_int(op, I, &why);
    if (!I->fn) return lookup_fail(c, in, why);
    return true;
}

static bool setp(dctx *c, const ptx_inst *in, mods *md, einst *I)
{
    bool ok = true;
    if (!md->cmp) { dec_why(c, "comparison missing"); return false; }
    I->sub = md->cmp;
    if (dec_take(md, ".and")) I->sub2 = BOP_AND;
    else if (dec_take(md, ".or")) I->sub2 = BOP_OR;
    else if (dec_take(md, ".xor")) I->sub2 = BOP_XOR;
    if (dec_take(md, ".ftz")) I->flags |= EI_FTZ;
    if (!nopd(c, in, 3, 4)) return false;
    if (I->sub2 != BOP_NONE && in->nopd != 4) { dec_why(c, "a combining setp needs a predicate operand c"); return false; }
    if (in->op == PTX_OPC_SETP) {
        const ptx_operand *d = &in->opd[0];
        if (d->kind == PTX_O_PAIR) {
            I->d[0] = dec_pdst(c, &d->p.elems[0], &ok);
            I->d[1] = dec_pdst(c, &d->p.elems[1], &ok);
            I->flags |= EI_PRED_DST2;
        } else {
            I->d[0] = dec_pdst(c, d, &ok);
        }
    } else {
        /* set.cmp.dtype.stype: type2 is the destination type */
        if (md->ntypes != 2) { dec_why(c, "set needs a destination and a source type"); return false; }
        I->type = md->types[1];
        I->type2 = md->types[0];
        I->d[0] = dec_dst(c, &in->opd[0], &ok);
    }
    I->s[0] = dec_src(c, &in->opd[1], I->type, &ok);
    I->s[1] = dec_src(c, &in->opd[2], I->type, &ok);
    if (in->nopd == 4) {
        I->s[2] = dec_psrc(c, &in->opd[3], &ok);
        if (I->sub2 == BOP_NONE) { dec_why(c, "setp with a fourth operand needs .and/.or/.xor"); return false; }
    }
    if (!ok) return false;
    const char *why = NULL;
    I->fn = is_float_type(I->type) ? emu_lookup_float(in->op, I, &why) : emu_lookup_int(in->op, I, &why);
    if (!I->fn) return lookup_fail(c, in, why);
    return true;
}

static bool selp(dctx *c, const ptx_inst *in, mods *md, einst *I)
{
    bool ok = true;
    if (!nopd(c, in, 4, 4)) return false;
    if (in->op == PTX_OPC_SELP) {
        I->d[0] = dec_dst(c, &in->opd[0], &ok);
        I->s[0] = dec_src(c, &in->opd[1], I->type, &ok);
        I->s[1] = dec_src(c, &in->opd[2], I->type, &ok);
        I->s[2] = dec_psrc(c, &in->opd[3], &ok);
    } else {
        /* slct.dtype.ctype d, a, b, c */
        if (md->ntypes != 2) { dec_why(c, "slct needs two types"); return false; }
        if (dec_take(md, ".ftz")) I->flags |= EI_FTZ;
        I->type = md->types[0];
        I->type2 = md->types[1];
        I->d[0] = dec_dst(c, &in->opd[0], &ok);
        I->s[0] = dec_src(c, &in->opd[1], I->type, &ok);
        I->s[1] = dec_src(c, &in->opd[2], I->type, &ok);
        I->s[2] = dec_src(c, &in->opd[3], I->type2, &ok);
    }
    if (!ok) return false;
    const char *why = NULL;
    I->fn = emu_lookup_int(in->op, I, &why);
    if (!I->fn) return lookup_fail(c, in, why);
    return true;
}

static bool mov(dctx *c, const ptx_inst *in, mods *md, einst *I)
{
    (void)md;
    bool ok = true;
    if (!nopd(c, in, 2, 2)) return false;
    const ptx_operand *d = &in->opd[0], *a = &in->opd[1];
    unsigned tb = emu_type_bytes(in->type);
    if (in->type == PTX_T_PRED) {
        I->d[0] = dec_pdst(c, d, &ok);
        I->s[0] = dec_psrc(c, a, &ok);
        if (!ok) return false;
        I->sub = 1; /* predicate move */
    } else if (d->kind == PTX_O_VEC) {
        /* unpack: mov.b64 {lo, hi}, %rd */
        if (d->n < 2 || d->n > 4 || tb % d->n) { dec_why(c, "unsupported vector mov"); return false; }
        I->vec = (uint8_t)d->n;
        for (uint32_t k = 0; k < d->n; k++) I->d[k] = dec_dst(c, &d->p.elems[k], &ok);
        I->s[0] = dec_src(c, a, in->type, &ok);
        I->sub = 2;
        I->bytes = (uint16_t)(tb / d->n);
    } else if (a->kind == PTX_O_VEC) {
        if (a->n < 2 || a->n > 4 || tb % a->n) { dec_why(c, "unsupported vector mov"); return false; }
        I->vec = (uint8_t)a->n;
        I->d[0] = dec_dst(c, d, &ok);
        for (uint32_t k = 0; k < a->n; k++) I->s[k] = dec_src(c, &a->p.elems[k], PTX_T_NONE, &ok);
        I->sub = 3;
        I->bytes = (uint16_t)(tb / a->n);
    } else {
        I->d[0] = dec_dst(c, d, &ok);
        I->s[0] = dec_src(c, a, in->type, &ok);
    }
    if (!ok) return false;
    const char *why = NULL;
    I->fn = emu_lookup_int(PTX_OPC_MOV, I, &why);
    if (!I->fn) return lookup_fail(c, in, why);
    return true;
}

static bool cvt(dctx *c, const ptx_inst *in, mods *md, einst *I)
{
    bool ok = true;
    if (dec_take(md, ".ftz")) I->flags |= EI_FTZ;
    if (dec_take(md, ".sat")) I->flags |= EI_SAT;
    if (dec_take(md, ".relu")) I->flags |= EI_RELU;
    if (dec_take(md, ".satfinite")) I->flags |= EI_SATFINITE;
    if (md->ntypes != 2) { dec_why(c, "cvt needs a destination and a source type"); return false; }
    I->type2 = md->types[0]; /* destination */
    I->type = md->types[1];  /* source */
    I->rnd = md->rnd;
    if (!nopd(c, in, 2, 3)) return false;
    I->d[0] = dec_dst(c, &in->opd[0], &ok);
    I->dbytes = (uint8_t)dec_reg_bytes(c, &in->opd[0]);
    I->s[0] = dec_src(c, &in->opd[1], I->type, &ok);
    if (in->nopd == 3) {
        I->s[1] = dec_src(c, &in->opd[2], I->type, &ok);
        I->vec = 2;
    }
    if (!ok) return false;
    const char *why = NULL;
    I->fn = emu_lookup_cvt(I, &why);
    if (!I->fn) return lookup_fail(c, in, why);
    return true;
}

static bool space_of(dctx *c, const mods *md, unsigned *sp)
{
    (void)c;
    *sp = md->nspaces ? md->spaces[0] : PTX_SP_NONE;
    return true;
}

static bool cvta(dctx *c, const ptx_inst *in, mods *md, einst *I)
{
    bool ok = true;
    unsigned sp;
    space_of(c, md, &sp);
    if (!nopd(c, in, 2, 2)) return false;
    if (in->op == PTX_OPC_CVTA) {
        I->sub = dec_take(md, ".to") ? 1 : 0;
        I->d[0] = dec_dst(c, &in->opd[0], &ok);
        I->s[0] = dec_src(c, &in->opd[1], in->type, &ok);
    } else {
        I->d[0] = dec_pdst(c, &in->opd[0], &ok);
        I->s[0] = dec_src(c, &in->opd[1], PTX_T_U64, &ok);
    }
    if (!ok) return false;
    switch (sp) {
    case PTX_SP_GLOBAL: I->space = MS_GLOBAL; break;
    case PTX_SP_SHARED: case PTX_SP_SHARED_CTA: I->space = MS_SHARED; break;
    case PTX_SP_LOCAL: I->space = MS_LOCAL; break;
    case PTX_SP_CONST: I->space = MS_CONST; break;
    case PTX_SP_PARAM: case PTX_SP_PARAM_ENTRY: I->space = c->fn->is_entry ? MS_PARAM_K : MS_LOCAL; break;
    default: dec_why(c, "state space %s is not supported here", ptx_space_name((ptx_space)sp)); return false;
    }
    const char *why = NULL;
    I->fn = emu_lookup_mem(in->op, I, &why);
    if (!I->fn) return lookup_fail(c, in, why);
    return true;
}

static bool ldst(dctx *c, const ptx_inst *in, mods *md, einst *I)
{
    bool ok = true;
    unsigned sp;
    space_of(c, md, &sp);
    dec_take(md, ".nc");
    if (!nopd(c, in, 2, 3)) return false; /* a cache-policy operand may follow */
    I->vec = md->vec ? md->vec : 1;
    if (I->vec > EI_MAXD) { dec_why(c, "%u-element vectors are not supported", I->vec); return false; }
    unsigned tb = emu_type_bytes(in->type);
    if (!tb || tb > 8) { dec_why(c, "type %s is not supported for memory access", ptx_type_name((ptx_type)in->type)); return false; }
    I->bytes = (uint16_t)tb;
    I->flags |= EI_MEM;
    bool is_ld = in->op != PTX_OPC_ST;
    const ptx_operand *val = is_ld ? &in->opd[0] : &in->opd[1];
    const ptx_operand *adr = is_ld ? &in->opd[1] : &in->opd[0];
    if (!dec_addr(c, adr, I, sp)) return false;
    if (I->vec > 1) {
        if (val->kind != PTX_O_VEC || val->n != I->vec) { dec_why(c, "vector operand does not match .v%u", I->vec); return false; }
        for (unsigned k = 0; k < I->vec; k++) {
            const ptx_operand *e = &val->p.elems[k];
            if (is_ld) {
                I->d[k] = dec_dst(c, e, &ok);
            } else {
                I->s[1 + k] = dec_src(c, e, in->type, &ok);
            }
        }
        if (is_ld) I->dbytes = (uint8_t)dec_reg_bytes(c, &val->p.elems[0]);
    } else if (is_ld) {
        I->d[0] = dec_dst(c, val, &ok);
        I->dbytes = (uint8_t)dec_reg_bytes(c, val);
    } else {
        I->s[1] = dec_src(c, val, in->type, &ok);
    }
    if (!ok) return false;
    if (I->dbytes == 0 || I->dbytes > 8) I->dbytes = 8;
    const char *why = NULL;
    I->fn = emu_lookup_mem(in->op, I, &why);
    if (!I->fn) return lookup_fail(c, in, why);
    return true;
}

static bool atom(dctx *c, const ptx_inst *in, mods *md, einst *I)
{
    bool ok = true;
    unsigned sp;
    space_of(c, md, &sp);
    static const struct { const char *s; uint8_t op; } ops[] = {
        {".add", AOP_ADD}, {".inc", AOP_INC}, {".dec", AOP_DEC}, {".min", AOP_MIN}, {".max", AOP_MAX},
        {".and", AOP_AND}, {".or", AOP_OR}, {".xor", AOP_XOR}, {".exch", AOP_EXCH}, {".cas", AOP_CAS}};
    bool found = false;
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++)
        if (dec_take(md, ops[k].s)) { I->sub = ops[k].op; found = true; }
    if (!found) { dec_why(c, "atomic operation missing"); return false; }
    dec_take(md, ".noftz");
    if (md->vec) { dec_why(c, "vector atomics are not supported"); return false; }
    unsigned tb = emu_type_bytes(in->type);
    I->bytes = (uint16_t)tb;
    I->flags |= EI_MEM;
    bool is_red = in->op == PTX_OPC_RED;
    unsigned base = is_red ? 0 : 1;
    unsigned need = base + (I->sub == AOP_CAS ? 3 : 2);
    if (in->nopd < need || in->nopd > need + 1) { dec_why(c, "atomic with %u operands is not supported", in->nopd); return false; }
    if (!is_red) {
        I->d[0] = dec_dst(c, &in->opd[0], &ok);
        I->dbytes = (uint8_t)dec_reg_bytes(c, &in->opd[0]);
    } else {
        I->d[0] = c->sink;
        I->dbytes = 8;
    }
    if (!dec_addr(c, &in->opd[base], I, sp)) return false;
    I->s[1] = dec_src(c, &in->opd[base + 1], in->type, &ok);
    if (I->sub == AOP_CAS) I->s[2] = dec_src(c, &in->opd[base + 2], in->type, &ok);
    if (!ok) return false;
    const char *why = NULL;
    I->fn = emu_lookup_mem(PTX_OPC_ATOM, I, &why);
    if (!I->fn) return lookup_fail(c, in, why);
    return true;
}

static bool cp_async(dctx *c, const ptx_inst *in, mods *md, einst *I)
{
    bool ok = true;
    if (!dec_take(md, ".async")) { dec_why(c, "'%.*s' is not supported", (int)in->opcode_len, in->opcode); return false; }
    if (dec_take(md, ".commit_group") || dec_take(md, ".wait_all")) {
        /* copies complete when issued: groups are always complete */
        I->fn = emu_lookup_mem(PTX_OPC_MEMBAR, I, NULL);
        return true;
    }
    if (dec_take(md, ".wait_group")) {
        I->fn = emu_lookup_mem(PTX_OPC_MEMBAR, I, NULL);
        return true;
    }
    if (dec_take(md, ".bulk") || dec_take(md, ".mbarrier")) { dec_why(c, "'%.*s' (bulk/mbarrier copies) is not supported", (int)in->opcode_len, in->opcode); return false; }
    dec_take(md, ".ca");
    dec_take(md, ".cg");
    if (md->nspaces != 2 || (md->spaces[0] != PTX_SP_SHARED && md->spaces[0] != PTX_SP_SHARED_CTA) ||
        md->spaces[1] != PTX_SP_GLOBAL) {
        dec_why(c, "only cp.async.shared.global is supported");
        return false;
    }
    if (in->nopd < 3 || in->nopd > 5) { dec_why(c, "cp.async operands"); return false; }
    einst src;
    memset(&src, 0, sizeof src);
    if (!dec_addr(c, &in->opd[0], I, PTX_SP_SHARED)) return false;
    if (!dec_addr(c, &in->opd[1], &src, PTX_SP_GLOBAL)) return false;
    if (src.am != AM_REG) { dec_why(c, "cp.async source must be a register address"); return false; }
    I->s[1] = src.s[0];
    I->target = (uint32_t)src.imm; /* source offset (small) */
    if (src.flags & EI_ADDR32) I->flags |= EI_SRC32;
    if (in->opd[2].kind != PTX_O_IMM || (in->opd[2].v != 4 && in->opd[2].v != 8 && in->opd[2].v != 16)) {
        dec_why(c, "cp.async size must be 4, 8 or 16");
        return false;
    }
    I->bytes = (uint16_t)in->opd[2].v;
    I->s[2] = EMU_NONE;
    if (in->nopd >= 4 && in->opd[3].kind != PTX_O_SINK) {
        /* src-size (bytes actually read, the rest zero-filled) unless it is the cache policy */
        if (!(in->nopd == 4 && dec_take(md, ".L2::cache_hint"))) I->s[2] = dec_src(c, &in->opd[3], PTX_T_U32, &ok);
    }
    if (!ok) return false;
    I->flags |= EI_MEM;
    const char *why = NULL;
    I->fn = emu_lookup_mem(PTX_OPC_CP, I, &why);
    if (!I->fn) return lookup_fail(c, in, why);
    return true;
}

static bool bar(dctx *c, const ptx_inst *in, mods *md, einst *I)
{
    bool ok = true;
    dec_take(md, ".cta");
    if (dec_take(md, ".warp")) {
        if (!dec_take(md, ".sync")) { dec_why(c, "bar.warp needs .sync"); return false; }
        if (!nopd(c, in, 1, 1)) return false;
        I->ctl = CTL_COLL;
        I->sub = COLL_BARWARP;
        I->s[4] = dec_src(c, &in->opd[0], PTX_T_U32, &ok);
        const char *why = NULL;
        I->aux = (const void *)emu_lookup_coll(COLL_BARWARP, I, &why);
        return ok;
    }
    if (dec_take(md, ".cluster")) { dec_why(c, "cluster barriers are not supported"); return false; }
    if (in->op == PTX_OPC_BAR || dec_take(md, ".aligned")) I->flags |= EI_ALIGNED;
    unsigned first = 0;
    if (dec_take(md, ".sync")) I->sub = BAR_SYNC;
    else if (dec_take(md, ".arrive")) { I->sub = BAR_ARRIVE; I->flags |= EI_NOWAIT; }
    else if (dec_take(md, ".red")) {
        if (dec_take(md, ".popc")) I->sub = BAR_RED_POPC;
        else if (dec_take(md, ".and")) I->sub = BAR_RED_AND;
        else if (dec_take(md, ".or")) I->sub = BAR_RED_OR;
        else { dec_why(c, "bar.red needs .popc, .and or .or"); return false; }
        first = 1;
    } else if (in->op == PTX_OPC_BAR && md->nw == 0) {
        I->sub = BAR_SYNC; /* plain "bar 0" is bar.sync */
    } else {
        dec_why(c, "barrier form not supported");
        return false;
    }
    unsigned n = in->nopd - first - (first ? 1 : 0);
    if (n < 1 || n > 2) { dec_why(c, "barrier operands"); return false; }
    if (first) {
        if (I->sub == BAR_RED_POPC) I->d[0] = dec_dst(c, &in->opd[0], &ok);
        else I->d[0] = dec_pdst(c, &in->opd[0], &ok);
        I->s[2] = dec_psrc(c, &in->opd[in->nopd - 1], &ok);
    }
    I->s[0] = dec_src(c, &in->opd[first], PTX_T_U32, &ok);
    if (n == 2) {
        I->s[1] = dec_src(c, &in->opd[first + 1], PTX_T_U32, &ok);
        I->flags |= EI_HASCOUNT;
    }
    if (I->sub == BAR_ARRIVE && n != 2) { dec_why(c, "bar.arrive needs a thread count"); return false; }
    I->ctl = CTL_BAR;
    return ok;
}

static bool coll(dctx *c, const ptx_inst *in, mods *md, einst *I)
{
    bool ok = true;
    bool sync = dec_take(md, ".sync");
    unsigned op = in->op;
    I->ctl = CTL_COLL;
    unsigned nmem = sync ? 1 : 0; /* membermask operand */
    if (!sync) I->flags |= EI_LEGACY;
    switch (op) {
    case PTX_OPC_SHFL: {
        I->sub = COLL_SHFL;
        if (dec_take(md, ".up")) I->sub2 = SHFL_UP;
        else if (dec_take(md, ".down")) I->sub2 = SHFL_DOWN;
        else if (dec_take(md, ".bfly")) I->sub2 = SHFL_BFLY;
        else if (dec_take(md, ".idx")) I->sub2 = SHFL_IDX;
        else { dec_why(c, "shfl mode missing"); return false; }
        if (!nopd(c, in, 4 + nmem, 4 + nmem)) return false;
        const ptx_operand *d = &in->opd[0];
        if (d->kind == PTX_O_PAIR) {
            I->d[0] = dec_dst(c, &d->p.elems[0], &ok);
            I->d[1] = dec_pdst(c, &d->p.elems[1], &ok);
            I->flags |= EI_PRED_DST2;
        } else {
            I->d[0] = dec_dst(c, d, &ok);
        }
        I->s[0] = dec_src(c, &in->opd[1], PTX_T_B32, &ok);
        I->s[1] = dec_src(c, &in->opd[2], PTX_T_U32, &ok);
        I->s[2] = dec_src(c, &in->opd[3], PTX_T_U32, &ok);
        if (sync) I->s[4] = dec_src(c, &in->opd[4], PTX_T_U32, &ok);
        break;
    }
    case PTX_OPC_VOTE: {
        I->sub = COLL_VOTE;
        if (dec_take(md, ".all")) I->sub2 = VOTE_ALL;
        else if (dec_take(md, ".any")) I->sub2 = VOTE_ANY;
        else if (dec_take(md, ".uni")) I->sub2 = VOTE_UNI;
        else if (dec_take(md, ".ballot")) I->sub2 = VOTE_BALLOT;
        else { dec_why(c, "vote mode missing"); return false; }
        if (!nopd(c, in, 2 + nmem, 2 + nmem)) return false;
        if (I->sub2 == VOTE_BALLOT) I->d[0] = dec_dst(c, &in->opd[0], &ok);
        else I->d[0] = dec_pdst(c, &in->opd[0], &ok);
        I->s[0] = dec_psrc(c, &in->opd[1], &ok);
        if (sync) I->s[4] = dec_src(c, &in->opd[2], PTX_T_U32, &ok);
        break;
    }
    case PTX_OPC_MATCH: {
        if (!sync) { dec_why(c, "match needs .sync"); return false; }
        if (dec_take(md, ".any")) I->sub = COLL_MATCH_ANY;
        else if (dec_take(md, ".all")) I->sub = COLL_MATCH_ALL;
        else { dec_why(c, "match mode missing"); return false; }
        if (!nopd(c, in, 3, 3)) return false;
        const ptx_operand *d = &in->opd[0];
        if (d->kind == PTX_O_PAIR) {
            I->d[0] = dec_dst(c, &d->p.elems[0], &ok);
            I->d[1] = dec_pdst(c, &d->p.elems[1], &ok);
            I->flags |= EI_PRED_DST2;
        } else {
            I->d[0] = dec_dst(c, d, &ok);
        }
        I->s[0] = dec_src(c, &in->opd[1], in->type, &ok);
        I->s[4] = dec_src(c, &in->opd[2], PTX_T_U32, &ok);
        break;
    }
    case PTX_OPC_REDUX: {
        if (!sync) { dec_why(c, "redux needs .sync"); return false; }
        static const struct { const char *s; uint8_t op; } ops[] = {
            {".add", AOP_ADD}, {".min", AOP_MIN}, {".max", AOP_MAX}, {".and", AOP_AND}, {".or", AOP_OR}, {".xor", AOP_XOR}};
        bool f = false;
        for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++)
            if (dec_take(md, ops[k].s)) { I->sub2 = ops[k].op; f = true; }
        if (!f) { dec_why(c, "redux operation missing"); return false; }
        I->sub = COLL_REDUX;
        if (!nopd(c, in, 3, 3)) return false;
        I->d[0] = dec_dst(c, &in->opd[0], &ok);
        I->s[0] = dec_src(c, &in->opd[1], in->type, &ok);
        I->s[4] = dec_src(c, &in->opd[2], PTX_T_U32, &ok);
        break;
    }
    case PTX_OPC_ELECT: {
        if (!sync) { dec_why(c, "elect needs .sync"); return false; }
        I->sub = COLL_ELECT;
        if (!nopd(c, in, 2, 2)) return false;
        const ptx_operand *d = &in->opd[0];
        if (d->kind == PTX_O_PAIR) {
            I->d[0] = dec_dst(c, &d->p.elems[0], &ok);
            I->d[1] = dec_pdst(c, &d->p.elems[1], &ok);
        } else {
            I->d[0] = dec_dst(c, d, &ok);
            I->d[1] = c->psink;
        }
        I->s[4] = dec_src(c, &in->opd[1], PTX_T_U32, &ok);
        break;
    }
    default: return false;
    }
    if (!ok) return false;
    const char *why = NULL;
    emu_cfn f = emu_lookup_coll(I->sub, I, &why);
    if (!f) return lookup_fail(c, in, why);
    I->aux = (const void *)f;
    return true;
}

/* call (rets), target, (args) [, proto | targets] */
static bool call(dctx *c, const ptx_inst *in, mods *md, einst *I)
{
    (void)md;
    bool ok = true;
    unsigned i = 0;
    const ptx_operand *rets = NULL, *args = NULL;
    if (i < in->nopd && in->opd[i].kind == PTX_O_LIST) rets = &in->opd[i++];
    if (i >= in->nopd) { dec_why(c, "call without a target"); return false; }
    const ptx_operand *tgt = &in->opd[i++];
    if (i < in->nopd && in->opd[i].kind == PTX_O_LIST) args = &in->opd[i++];
    ecall *cd = ARENA_NEW(&c->M->ar, ecall);
    cd->callee = EMU_NONE;
    if (tgt->kind == PTX_O_SYM) {
        ptx_str name = ptx_opd_text(tgt);
        const ptx_module *m = c->M->mod;
        for (uint32_t f = 0; f < m->nfuncs; f++)
            if (ptx_str_eqs(m->funcs[f]->name, name) && (m->funcs[f]->has_body || cd->callee == EMU_NONE))
                cd->callee = f;
        if (cd->callee == EMU_NONE) { dec_why(c, "call to unknown function '%.*s'", (int)name.n, name.p); return false; }
        if (!m->funcs[cd->callee]->has_body) {
            if (ptx_str_eq(name, "vprintf")) cd->builtin = BI_VPRINTF;
            else if (ptx_str_eq(name, "__assertfail") || ptx_str_eq(name, "__assert_fail")) cd->builtin = BI_ASSERTFAIL;
            else { dec_why(c, "call to '%.*s', which has no body in this module (only vprintf and __assertfail are built in)", (int)name.n, name.p); return false; }
        }
    } else if (tgt->kind == PTX_O_REG) {
        cd->target_slot = dec_src(c, tgt, PTX_T_U64, &ok);
    } else {
        dec_why(c, "unsupported call target");
        return false;
    }
    cd->nrets = rets ? rets->n : 0;
    cd->nargs = args ? args->n : 0;
    cd->rets = ARENA_NEWN(&c->M->ar, struct ecall_opd, cd->nrets + 1);
    cd->args = ARENA_NEWN(&c->M->ar, struct ecall_opd, cd->nargs + 1);
    for (unsigned pass = 0; pass < 2; pass++) {
        const ptx_operand *L = pass ? args : rets;
        struct ecall_opd *out = pass ? cd->args : cd->rets;
        unsigned n = pass ? cd->nargs : cd->nrets;
        for (unsigned k = 0; k < n; k++) {
            const ptx_operand *o = &L->p.elems[k];
            if (o->kind == PTX_O_SYM) {
                symref r;
                if (!dec_sym(c, ptx_opd_text(o), &r) || r.kind != SYM_FRAME) {
                    dec_why(c, "call argument '%.*s' is not a .param variable of this function", (int)o->n, o->p.text);
                    return false;
                }
                out[k].kind = 'f';
                out[k].off = (uint32_t)r.v;
                out[k].size = (uint32_t)r.size;
            } else if (o->kind == PTX_O_REG || (pass && o->kind == PTX_O_IMM)) {
                out[k].kind = 'r';
                out[k].slot = pass ? dec_src(c, o, PTX_T_NONE, &ok) : dec_dst(c, o, &ok);
                out[k].size = dec_reg_bytes(c, o);
            } else {
                dec_why(c, "unsupported call argument");
                return false;
            }
        }
    }
    if (!ok) return false;
    I->ctl = CTL_CALL;
    I->aux = cd;
    return true;
}

bool dec_family(dctx *c, const ptx_inst *in, mods *md, einst *I)
{
    unsigned op = in->op;
    switch (op) {
    case PTX_OPC_ADD: case PTX_OPC_SUB: case PTX_OPC_MUL: case PTX_OPC_MAD: case PTX_OPC_MUL24:
    case PTX_OPC_MAD24: case PTX_OPC_SAD: case PTX_OPC_DIV: case PTX_OPC_REM: case PTX_OPC_ABS:
    case PTX_OPC_NEG: case PTX_OPC_MIN: case PTX_OPC_MAX: case PTX_OPC_FMA: case PTX_OPC_RCP:
    case PTX_OPC_SQRT: case PTX_OPC_RSQRT: case PTX_OPC_SIN: case PTX_OPC_COS: case PTX_OPC_LG2:
    case PTX_OPC_EX2: case PTX_OPC_TANH: case PTX_OPC_COPYSIGN:
        return arith(c, in, md, I);
    case PTX_OPC_TESTP: {
        bool ok = true;
        static const char *const tp[] = {".finite", ".infinite", ".number", ".notanumber", ".normal", ".subnormal"};
        bool f = false;
        for (unsigned k = 0; k < 6; k++)
            if (dec_take(md, tp[k])) { I->sub = (uint8_t)k; f = true; }
        if (!f || !nopd(c, in, 2, 2)) { dec_why(c, "testp form not supported"); return false; }
        I->d[0] = dec_pdst(c, &in->opd[0], &ok);
        I->s[0] = dec_src(c, &in->opd[1], in->type, &ok);
        const char *why = NULL;
        I->fn = ok ? emu_lookup_float(op, I, &why) : NULL;
        if (ok && !I->fn) return lookup_fail(c, in, why);
        return ok;
    }
    case PTX_OPC_POPC: case PTX_OPC_CLZ: case PTX_OPC_BFIND: case PTX_OPC_FNS: case PTX_OPC_BREV:
    case PTX_OPC_BFE: case PTX_OPC_BFI: case PTX_OPC_SZEXT: case PTX_OPC_BMSK: case PTX_OPC_DP4A:
    case PTX_OPC_DP2A: case PTX_OPC_ADDC: case PTX_OPC_SUBC: case PTX_OPC_MADC: case PTX_OPC_AND:
    case PTX_OPC_OR: case PTX_OPC_XOR: case PTX_OPC_NOT: case PTX_OPC_CNOT: case PTX_OPC_LOP3:
    case PTX_OPC_SHF: case PTX_OPC_SHL: case PTX_OPC_SHR: case PTX_OPC_PRMT:
        return intop(c, in, md, I);
    case PTX_OPC_SETP: case PTX_OPC_SET: return setp(c, in, md, I);
    case PTX_OPC_SELP: case PTX_OPC_SLCT: return selp(c, in, md, I);
    case PTX_OPC_MOV: return mov(c, in, md, I);
    case PTX_OPC_CVT: return cvt(c, in, md, I);
    case PTX_OPC_CVTA: case PTX_OPC_ISSPACEP: return cvta(c, in, md, I);
    case PTX_OPC_LD: case PTX_OPC_LDU: case PTX_OPC_ST: return ldst(c, in, md, I);
    case PTX_OPC_ATOM: case PTX_OPC_RED: return atom(c, in, md, I);
    case PTX_OPC_CP: return cp_async(c, in, md, I);
    case PTX_OPC_MEMBAR: case PTX_OPC_FENCE: case PTX_OPC_PREFETCH: case PTX_OPC_PREFETCHU:
    case PTX_OPC_NANOSLEEP: case PTX_OPC_PMEVENT: case PTX_OPC_GRIDDEPCONTROL: case PTX_OPC_APPLYPRIORITY:
    case PTX_OPC_DISCARD:
        /* no effect on results in a sequentially consistent emulation */
        for (unsigned i = 0; i < md->nw; i++) md->used[i] = 1;
        I->fn = emu_lookup_mem(PTX_OPC_MEMBAR, I, NULL);
        return true;
    case PTX_OPC_BRA:
        if (!nopd(c, in, 1, 1)) return false;
        I->ctl = CTL_BRA;
        return true;
    case PTX_OPC_BRX: {
        bool ok = true;
        if (!dec_take(md, ".idx") || !nopd(c, in, 2, 2)) { dec_why(c, "only brx.idx is supported"); return false; }
        I->s[0] = dec_src(c, &in->opd[0], PTX_T_U32, &ok);
        I->ctl = CTL_BRX;
        return ok;
    }
    case PTX_OPC_CALL: return call(c, in, md, I);
    case PTX_OPC_RET: I->ctl = CTL_RET; return true;
    case PTX_OPC_EXIT: I->ctl = CTL_EXIT; return true;
    case PTX_OPC_TRAP: I->ctl = CTL_TRAP; return true;
    case PTX_OPC_BAR: case PTX_OPC_BARRIER: return bar(c, in, md, I);
    case PTX_OPC_SHFL: case PTX_OPC_VOTE: case PTX_OPC_MATCH: case PTX_OPC_REDUX: case PTX_OPC_ELECT:
        return coll(c, in, md, I);
    case PTX_OPC_ACTIVEMASK: {
        bool ok = true;
        if (!nopd(c, in, 1, 1)) return false;
        I->d[0] = dec_dst(c, &in->opd[0], &ok);
        I->ctl = CTL_ACTMASK;
        return ok;
    }
    default: break;
    }
    const char *what = "";
    switch (op) {
    case PTX_OPC_TEX: case PTX_OPC_TLD4: case PTX_OPC_TXQ: case PTX_OPC_SULD: case PTX_OPC_SUST:
    case PTX_OPC_SURED: case PTX_OPC_SUQ: case PTX_OPC_ISTYPEP:
        what = " (texture and surface instructions are not emulated)"; break;
    case PTX_OPC_WMMA: case PTX_OPC_MMA: case PTX_OPC_WGMMA: case PTX_OPC_LDMATRIX: case PTX_OPC_STMATRIX:
    case PTX_OPC_MOVMATRIX: case PTX_OPC_TCGEN05:
        what = " (tensor-core matrix instructions are not emulated)"; break;
    case PTX_OPC_MAPA: case PTX_OPC_GETCTARANK:
        what = " (thread-block clusters are not emulated)"; break;
    default: break;
    }
    dec_why(c, "instruction '%.*s' is not supported%s", (int)in->opcode_len, in->opcode, what);
    return false;
}
