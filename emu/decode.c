/* Decoding: IR functions -> einst arrays (see emu_internal.h).
 *
 * Per kernel launch the functions reachable from the kernel are decoded
 * with that kernel's shared-memory layout baked into addresses.  An
 * instruction the emulator does not implement (or an operand form it does
 * not understand) is decoded into a CTL_UNSUP instruction carrying the
 * reason: the run stops with that message only if the instruction is
 * reached, so a kernel is not refused for code it never executes. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "decode.h"
#include "fp.h"
#include "reconv.h"
#include "reach.h"

/* ---- slots ------------------------------------------------------------------- */
static uint32_t new_slot(dctx *c) { return c->nslots++; }

static void add_init(dctx *c, uint32_t slot, uint8_t kind, uint64_t v)
{
    if (c->ninit == c->initcap) {
        c->initcap = c->initcap ? c->initcap * 2 : 32;
        c->init = realloc(c->init, c->initcap * sizeof *c->init);
        if (!c->init) abort();
    }
    c->init[c->ninit++] = (slotinit){slot, kind, v};
}

static uint32_t const_slot(dctx *c, uint8_t kind, uint64_t v)
{
    for (uint32_t i = 0; i < c->ninit; i++) /* few distinct constants per function */
        if (c->init[i].kind == kind && c->init[i].v == v) return c->init[i].slot;
    uint32_t s = kind == SI_PCONST ? c->npreds++ | PRED_SLOT : new_slot(c);
    add_init(c, s, kind, v);
    return s;
}

uint32_t dec_const(dctx *c, uint64_t v) { return const_slot(c, SI_CONST, v); }

static uint32_t sreg_slot(dctx *c, unsigned kind)
{
    return const_slot(c, SI_SREG, kind);
}

/* ---- errors -------------------------------------------------------------------- */
void dec_why(dctx *c, const char *fmt, ...)
{
    if (c->why[0]) return; /* keep the first reason */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->why, sizeof c->why, fmt, ap);
    va_end(ap);
}

/* ---- modifiers ------------------------------------------------------------------ */
static const char *const cmp_names[] = {"", ".eq", ".ne", ".lt", ".le", ".gt", ".ge", ".lo", ".ls", ".hi", ".hs",
                                        ".equ", ".neu", ".ltu", ".leu", ".gtu", ".geu", ".num", ".nan"};

/* Performance and ordering hints with no effect in a sequentially
 * consistent, single-threaded emulation. */
static const char *const ignorable[] = {
    ".ca", ".cg", ".cs", ".lu", ".cv", ".wb", ".wt", ".weak", ".volatile", ".relaxed", ".acquire",
    ".release", ".acq_rel", ".sc", ".mmio", ".cta", ".gpu", ".sys", ".uni", ".aligned", ".unified",
    NULL};

static bool is_ignorable(ptx_str m)
{
    for (int i = 0; ignorable[i]; i++)
        if (ptx_str_eq(m, ignorable[i])) return true;
    static const char *const prefixes[] = {".L1::", ".L2::", ".level::", NULL};
    for (int i = 0; prefixes[i]; i++) {
        size_t n = strlen(prefixes[i]);
        if (m.n > n && !memcmp(m.p, prefixes[i], n)) return true;
    }
    return false;
}

void dec_mods(const ptx_inst *in, mods *md)
{
    memset(md, 0, sizeof *md);
    unsigned n = in->nmods;
    if (n > MAX_MODS) n = MAX_MODS;
    for (unsigned i = 0; i < n; i++) {
        ptx_str m = ptx_inst_mod(in, i);
        md->w[md->nw] = m;
        md->used[md->nw] = 0;
        md->nw++;
        ptx_type t = ptx_type_from_str(m);
        if (t != PTX_T_NONE) {
            if (md->ntypes < 4) md->types[md->ntypes++] = (uint8_t)t;
            md->used[md->nw - 1] = 1;
            continue;
        }
        ptx_space s = ptx_space_from_str(m);
        if (s != PTX_SP_NONE) {
            if (md->nspaces < 2) md->spaces[md->nspaces++] = (uint8_t)s;
            md->used[md->nw - 1] = 1;
            continue;
        }
        if (ptx_str_eq(m, ".v2") || ptx_str_eq(m, ".v4") || ptx_str_eq(m, ".v8")) {
            md->vec = (uint8_t)(m.p[2] - '0');
            md->used[md->nw - 1] = 1;
            continue;
        }
        static const struct { const char *s; uint8_t r; } rn[] = {
            {".rn", RND_RN}, {".rz", RND_RZ}, {".rm", RND_RM}, {".rp", RND_RP}, {".rna", RND_RNA},
            {".rni", RND_RNI}, {".rzi", RND_RZI}, {".rmi", RND_RMI}, {".rpi", RND_RPI}};
        for (size_t k = 0; k < sizeof rn / sizeof rn[0]; k++)
            if (ptx_str_eq(m, rn[k].s)) {
                md->rnd = rn[k].r;
                md->used[md->nw - 1] = 1;
            }
        for (unsigned k = 1; k < sizeof cmp_names / sizeof cmp_names[0]; k++)
            if (ptx_str_eq(m, cmp_names[k]) && !md->cmp) {
                md->cmp = (uint8_t)k;
                md->used[md->nw - 1] = 1;
            }
        if (is_ignorable(m)) md->used[md->nw - 1] = 1;
    }
}

bool dec_take(mods *md, const char *z)
{
    for (unsigned i = 0; i < md->nw; i++)
        if (ptx_str_eq(md->w[i], z)) {
            md->used[i] = 1;
            return true;
        }
    return false;
}

/* The first modifier not understood, or NULL. */
static const ptx_str *leftover(const mods *md)
{
    for (unsigned i = 0; i < md->nw; i++)
        if (!md->used[i]) return &md->w[i];
    return NULL;
}

/* ---- operands -------------------------------------------------------------------- */
static uint32_t reg_slot(dctx *c, const ptx_operand *o)
{
    uint32_t s = c->F->reg_slot[o->n];
    if (o->comp && !(s & PRED_SLOT)) {
        unsigned k = o->comp == 'x' ? 0 : o->comp == 'y' ? 1 : o->comp == 'z' ? 2 : o->comp == 'w' ? 3 : 0;
        const ptx_reg *r = &c->fn->regs[o->n];
        if (r->vec > 1 && k < r->vec) s += k;
    }
    return s;
}

unsigned dec_reg_bytes(dctx *c, const ptx_operand *o)
{
    if (o->kind != PTX_O_REG) return 8;
    unsigned b = emu_type_bytes(c->fn->regs[o->n].type);
    return b ? b : 8;
}

static unsigned sreg_kind(const ptx_operand *o, bool *ok)
{
    unsigned comp = o->comp == 'y' ? 1 : o->comp == 'z' ? 2 : 0;
    *ok = true;
    switch ((ptx_sreg)o->n) {
    case PTX_SR_TID: return SR_TID_X + comp;
    case PTX_SR_NTID: return SR_NTID_X + comp;
    case PTX_SR_CTAID: return SR_CTAID_X + comp;
    case PTX_SR_NCTAID: return SR_NCTAID_X + comp;
    case PTX_SR_LANEID: return SR_LANEID;
    case PTX_SR_WARPID: return SR_WARPID;
    case PTX_SR_NWARPID: return SR_NWARPID;
    case PTX_SR_SMID: return SR_SMID;
    case PTX_SR_NSMID: return SR_NSMID;
    case PTX_SR_GRIDID: return SR_GRIDID;
    case PTX_SR_LANEMASK_EQ: return SR_LM_EQ;
    case PTX_SR_LANEMASK_LE: return SR_LM_LE;
    case PTX_SR_LANEMASK_LT: return SR_LM_LT;
    case PTX_SR_LANEMASK_GE: return SR_LM_GE;
    case PTX_SR_LANEMASK_GT: return SR_LM_GT;
    case PTX_SR_CLOCK: return SR_CLOCK;
    case PTX_SR_CLOCK_HI: return SR_CLOCK_HI;
    case PTX_SR_CLOCK64: return SR_CLOCK64;
    case PTX_SR_GLOBALTIMER: return SR_GTIMER;
    case PTX_SR_GLOBALTIMER_LO: return SR_GTIMER_LO;
    case PTX_SR_GLOBALTIMER_HI: return SR_GTIMER_HI;
    case PTX_SR_DYNAMIC_SMEM_SIZE: return SR_DYN_SMEM;
    case PTX_SR_TOTAL_SMEM_SIZE: return SR_TOTAL_SMEM;
    case PTX_SR_AGGR_SMEM_SIZE: return SR_AGGR_SMEM;
    case PTX_SR_PM: case PTX_SR_PM64: case PTX_SR_RESERVED_SMEM: return SR_ZERO;
    case PTX_SR_ENVREG: return o->v < 32 ? SR_ENVREG0 + (unsigned)o->v : SR_ZERO;
    default: *ok = false; return 0;
    }
}

bool dec_sreg_dynamic(unsigned k)
{
    return k >= SR_CLOCK && k <= SR_GTIMER_HI;
}

/* An immediate as the bits an instruction of type t reads. */
static uint64_t imm_bits(const ptx_operand *o, unsigned t)
{
    uint64_t v = (uint64_t)o->v;
    bool f32 = t == PTX_T_F32, f64 = t == PTX_T_F64;
    switch (o->flags & 3) {
    case PTX_IMM_F32:
        if (f64) return f64_bits((double)f32_from((uint32_t)v));
        return v;
    case PTX_IMM_F64:
    case PTX_IMM_DEC:
        if (f32) return f32_bits((float)f64_from(v));
        if (t == PTX_T_F16) return fp_round(f64_from(v), 0, FMT_F16, RND_RN, false);
        if (t == PTX_T_BF16) return fp_round(f64_from(v), 0, FMT_BF16, RND_RN, false);
        return v;
    default:
        if (f32) return f32_bits((float)(int64_t)v);
        if (f64) return f64_bits((double)(int64_t)v);
        return v;
    }
}

/* Symbol lookup: the innermost declaration visible at the current
 * statement, then the function's parameters, then the module. */
bool dec_sym(dctx *c, ptx_str name, symref *out)
{
    for (uint32_t i = c->nsyms; i-- > 0;)
        if (ptx_str_eqs(c->syms[i].name, name)) {
            out->kind = SYM_FRAME;
            out->v = c->syms[i].off;
            out->size = c->syms[i].size;
            return true;
        }
    const ptx_func *fn = c->fn;
    for (uint32_t i = 0; i < fn->nparams; i++)
        if (ptx_str_eqs(fn->params[i]->name, name)) {
            if (fn->is_entry) {
                out->kind = SYM_KPARAM;
                out->v = c->M->kparams ? c->M->kparams[i].off : 0;
                out->size = c->M->kparams ? c->M->kparams[i].size : 0;
            } else {
                out->kind = SYM_FRAME;
                out->v = c->F->param_off[i];
                out->size = c->F->param_size[i];
            }
            return true;
        }
    for (uint32_t i = 0; i < fn->nrets; i++)
        if (ptx_str_eqs(fn->rets[i]->name, name)) {
            out->kind = SYM_FRAME;
            out->v = c->F->ret_off[i];
            out->size = c->F->ret_size[i];
            return true;
        }
    const mvar *v = NULL;
    for (uint32_t i = 0; i < c->M->nvars && !v; i++) /* this function's own .shared first */
        if (c->M->vars[i].owner == fn && ptx_str_eqs(c->M->vars[i].name, name)) v = &c->M->vars[i];
    if (!v) v = emu_var_find(c->M, name);
    if (v) {
        out->size = v->size;
        out->v = v->addr;
        switch (v->space) {
        case PTX_SP_GLOBAL: out->kind = SYM_GLOBAL; return true;
        case PTX_SP_CONST: out->kind = SYM_CONST; return true;
        case PTX_SP_SHARED:
            out->kind = SYM_SHARED;
            out->v = v->is_extern_shared ? c->M->dyn_shared_off : v->addr;
            return true;
        }
    }
    uint32_t fi;
    if (emu_func_index(c->M, name, &fi)) {
        out->kind = SYM_FUNC;
        out->v = emu_func_addr(fi);
        out->size = 0;
        return true;
    }
    return false;
}

/* Value of a symbol used as an operand (its address in its own space). */
static uint32_t sym_value_slot(dctx *c, ptx_str name, int64_t add, bool *ok)
{
    symref r;
    if (!dec_sym(c, name, &r)) {
        dec_why(c, "unknown symbol '%.*s'", (int)name.n, name.p);
        *ok = false;
        return 0;
    }
    if (r.kind == SYM_FRAME) return const_slot(c, SI_FRAME, (uint64_t)((int64_t)r.v + add));
    return dec_const(c, r.v + (uint64_t)add);
}

uint32_t dec_src(dctx *c, const ptx_operand *o, unsigned t, bool *ok)
{
    switch (o->kind) {
    case PTX_O_REG: {
        uint32_t s = reg_slot(c, o);
        if (s & PRED_SLOT) {
            /* a predicate read as a value (selp c is handled elsewhere):
             * only legal in a few bit-moving forms; refuse */
            dec_why(c, "predicate register used as a value operand");
            *ok = false;
        }
        return s;
    }
    case PTX_O_IMM: return dec_const(c, imm_bits(o, t));
    case PTX_O_SREG: {
        bool k;
        unsigned kind = sreg_kind(o, &k);
        if (!k) {
            bool cl = o->n >= PTX_SR_CLUSTERID && o->n <= PTX_SR_IS_EXPLICIT_CLUSTER;
            char comp[3] = {o->comp ? '.' : 0, (char)o->comp, 0};
            dec_why(c, "special register %s%s is not supported%s", ptx_sreg_name((ptx_sreg)o->n), comp,
                    cl ? " (thread-block clusters are not emulated)" : "");
            *ok = false;
            return 0;
        }
        if (dec_sreg_dynamic(kind)) c->dyn = true;
        return sreg_slot(c, kind);
    }
    case PTX_O_SYM: return sym_value_slot(c, ptx_opd_text(o), 0, ok);
    case PTX_O_EXPR: {
        const ptx_expr *e = o->p.expr;
        /* sym+off and generic(sym)+off forms may name frame symbols */
        if (e->kind == PTX_E_BINARY && (e->op == '+' || e->op == '-') && e->u.a->kind == PTX_E_SYM &&
            e->b->kind == PTX_E_INT) {
            int64_t off = e->op == '+' ? e->b->u.i : -e->b->u.i;
            return sym_value_slot(c, e->u.a->text, off, ok);
        }
        int64_t v;
        char err[200];
        if (!emu_eval_expr(c->M, e, &v, err, sizeof err)) {
            dec_why(c, "%s", err);
            *ok = false;
            return 0;
        }
        return dec_const(c, (uint64_t)v);
    }
    default:
        dec_why(c, "unsupported operand form");
        *ok = false;
        return 0;
    }
}

uint32_t dec_psrc(dctx *c, const ptx_operand *o, bool *ok)
{
    if (o->kind == PTX_O_REG) {
        uint32_t s = reg_slot(c, o);
        if (!(s & PRED_SLOT)) {
            dec_why(c, "a predicate operand is needed");
            *ok = false;
            return 0;
        }
        return o->neg ? s | PNEG : s;
    }
    if (o->kind == PTX_O_IMM) return const_slot(c, SI_PCONST, o->v ? FULL_MASK : 0);
    dec_why(c, "a predicate operand is needed");
    *ok = false;
    return 0;
}

uint32_t dec_dst(dctx *c, const ptx_operand *o, bool *ok)
{
    if (o->kind == PTX_O_SINK) return c->sink;
    if (o->kind == PTX_O_REG) {
        uint32_t s = reg_slot(c, o);
        if (s & PRED_SLOT) {
            dec_why(c, "predicate register where a value register is needed");
            *ok = false;
        }
        return s;
    }
    dec_why(c, "unsupported destination operand");
    *ok = false;
    return 0;
}

uint32_t dec_pdst(dctx *c, const ptx_operand *o, bool *ok)
{
    if (o->kind == PTX_O_SINK) return c->psink;
    if (o->kind == PTX_O_REG) {
        uint32_t s = reg_slot(c, o);
        if (!(s & PRED_SLOT)) {
            dec_why(c, "a predicate destination is needed");
            *ok = false;
        }
        return s;
    }
    dec_why(c, "unsupported predicate destination");
    *ok = false;
    return 0;
}

static unsigned map_space(dctx *c, unsigned sp)
{
    switch (sp) {
    case PTX_SP_NONE: return MS_GENERIC;
    case PTX_SP_GLOBAL: return MS_GLOBAL;
    case PTX_SP_SHARED: case PTX_SP_SHARED_CTA: return MS_SHARED;
    case PTX_SP_LOCAL: return MS_LOCAL;
    case PTX_SP_CONST: return MS_CONST;
    case PTX_SP_PARAM: case PTX_SP_PARAM_ENTRY: case PTX_SP_PARAM_FUNC:
        return c->fn->is_entry ? MS_PARAM_K : MS_LOCAL;
    default: return MS__COUNT;
    }
}

/* A memory operand [base+off] into I->am / s[0] / imm; *space is the
 * instruction's state space (ptx_space in, mspace out). */
bool dec_addr(dctx *c, const ptx_operand *o, einst *I, unsigned ptx_sp)
{
    unsigned sp = map_space(c, ptx_sp);
    if (sp == MS__COUNT) {
        dec_why(c, "state space %s is not supported", ptx_space_name((ptx_space)ptx_sp));
        return false;
    }
    if (o->kind != PTX_O_ADDR || o->n != 1) {
        dec_why(c, "unsupported address operand");
        return false;
    }
    const ptx_operand *b = &o->p.elems[0];
    int64_t off = o->v;
    I->space = (uint8_t)sp;
    switch (b->kind) {
    case PTX_O_REG: {
        uint32_t s = reg_slot(c, b);
        if (s & PRED_SLOT) {
            dec_why(c, "predicate register used as an address");
            return false;
        }
        I->am = AM_REG;
        I->s[0] = s;
        I->imm = off;
        if (dec_reg_bytes(c, b) <= 4) I->flags |= EI_ADDR32;
        return true;
    }
    case PTX_O_IMM:
        I->am = AM_IMM;
        I->imm = (int64_t)((uint64_t)b->v + (uint64_t)off);
        return true;
    case PTX_O_SYM:
    case PTX_O_EXPR: {
        ptx_str name;
        if (b->kind == PTX_O_SYM) {
            name = ptx_opd_text(b);
        } else {
            const ptx_expr *e = b->p.expr;
            if (e->kind == PTX_E_BINARY && (e->op == '+' || e->op == '-') && e->u.a->kind == PTX_E_SYM &&
                e->b->kind == PTX_E_INT) {
                name = e->u.a->text;
                off += e->op == '+' ? e->b->u.i : -e->b->u.i;
            } else {
                int64_t v;
                char err[200];
                if (!emu_eval_expr(c->M, e, &v, err, sizeof err)) {
                    dec_why(c, "%s", err);
                    return false;
                }
                I->am = AM_IMM;
                I->imm = v + off;
                return true;
            }
        }
        symref r;
        if (!dec_sym(c, name, &r)) {
            dec_why(c, "unknown symbol '%.*s'", (int)name.n, name.p);
            return false;
        }
        I->imm = (int64_t)(r.v + (uint64_t)off);
        I->am = AM_IMM;
        switch (r.kind) {
        case SYM_FRAME:
            I->am = AM_FRAME;
            if (sp != MS_LOCAL && sp != MS_PARAM_K && sp != MS_GENERIC) goto wrong;
            I->space = MS_LOCAL;
            if (sp == MS_GENERIC) { I->space = MS_GENERIC; I->imm += (int64_t)WIN_BASE(WIN_LOCAL); }
            return true;
        case SYM_KPARAM:
            if (sp == MS_GENERIC) { I->imm += (int64_t)WIN_BASE(WIN_PARAM); return true; }
            if (sp != MS_PARAM_K) goto wrong;
            return true;
        case SYM_GLOBAL:
            if (sp != MS_GLOBAL && sp != MS_GENERIC) goto wrong;
            return true;
        case SYM_CONST:
            if (sp == MS_GENERIC) { I->imm += (int64_t)WIN_BASE(WIN_CONST); return true; }
            if (sp != MS_CONST) goto wrong;
            return true;
        case SYM_SHARED:
            if (sp == MS_GENERIC) { I->imm += (int64_t)WIN_BASE(WIN_SHARED); return true; }
            if (sp != MS_SHARED) goto wrong;
            return true;
        default: goto wrong;
        }
    wrong:
        dec_why(c, "symbol '%.*s' is not in the instruction's state space", (int)name.n, name.p);
        return false;
    }
    default:
        dec_why(c, "unsupported address operand");
        return false;
    }
}

/* ---- the instruction ------------------------------------------------------------- */
static bool finish_mods(dctx *c, mods *md, const ptx_inst *in)
{
    const ptx_str *l = leftover(md);
    if (l) {
        dec_why(c, "modifier '%.*s' of '%.*s' is not supported", (int)l->n, l->p, (int)in->opcode_len, in->opcode);
        return false;
    }
    return true;
}

/* Whether the instruction starts a rematerialisation of `ptxray
 * regalloc` (docs/regalloc.md, "Marks of rematerialisation"): unguarded,
 * its destination a register named %ra[N]_m<c|a|s>_..., which it does not
 * read.  The rewrite rebuilds a value into such a register, starting with
 * an instruction that writes it without reading it; the later steps and
 * the use read it. */
typedef struct remat_scan {
    uint32_t reg;
    bool reads;
} remat_scan;

static void remat_reads(void *ctx, const ptx_inst *in, const ptx_reg_ref *r)
{
    (void)in;
    remat_scan *sc = ctx;
    if ((r->role & PTX_REF_USE) && !(r->role & PTX_REF_SREG) && r->id == sc->reg) sc->reads = true;
}

static uint32_t remat_flag(const ptx_func *fn, const ptx_inst *in)
{
    if (in->has_guard || !in->nopd || in->opd[0].kind != PTX_O_REG || in->opd[0].n >= fn->nregs) return 0;
    ptx_str nm = fn->regs[in->opd[0].n].name;
    const char *p = nm.p, *end = nm.p + nm.n;
    if (nm.n < 8 || memcmp(p, "%ra", 3)) return 0;
    p += 3;
    while (p < end && *p >= '0' && *p <= '9') p++;
    if (end - p < 4 || p[0] != '_' || p[1] != 'm' || p[3] != '_') return 0;
    uint32_t flag = p[2] == 'c' ? EI_REMAT_C : p[2] == 'a' ? EI_REMAT_A : p[2] == 's' ? EI_REMAT_S : 0;
    if (!flag) return 0;
    remat_scan sc = {in->opd[0].n, false};
    ptx_inst_foreach_reg(in, NULL, remat_reads, &sc);
    return sc.reads ? 0 : flag;
}

static void dec_one(dctx *c, uint32_t si, const ptx_inst *in, einst *I)
{
    memset(I, 0, sizeof *I);
    I->stmt = si;
    I->site = EMU_NONE;
    I->vec = 1;
    I->type = in->type;
    I->type2 = in->type2;
    c->why[0] = 0;
    c->dyn = false;
    bool ok = true;
    if (in->has_guard) {
        uint32_t g = c->F->reg_slot[in->guard];
        if (!(g & PRED_SLOT)) {
            dec_why(c, "guard is not a predicate");
            ok = false;
        }
        I->has_guard = 1;
        I->guard = g & ~PRED_SLOT;
        I->guard_neg = in->guard_neg;
    }
    mods md;
    dec_mods(in, &md);
    if (ok) ok = dec_family(c, in, &md, I);
    if (ok) ok = finish_mods(c, &md, in);
    if (ok && c->dyn) I->flags |= EI_DYN_SREG;
    if (!ok) {
        I->ctl = CTL_UNSUP;
        I->fn = NULL;
        if (!c->why[0]) dec_why(c, "unsupported instruction");
        char buf[400];
        snprintf(buf, sizeof buf, "%s", c->why);
        I->aux = arena_strndup(&c->M->ar, buf, strlen(buf));
    }
}

/* ---- functions -------------------------------------------------------------------- */
static uint32_t align_up(uint32_t v, uint32_t a) { return a > 1 ? (v + a - 1) / a * a : v; }

static uint32_t decl_bytes(const ptx_var *v)
{
    uint64_t n = emu_type_bytes(v->type) * (uint64_t)(v->vec ? v->vec : 1);
    if (v->type == PTX_T_PRED) n = 1;
    for (uint32_t i = 0; i < v->ndims; i++) n *= v->dims[i] ? v->dims[i] : 1;
    return n > (1u << 30) ? (1u << 30) : (uint32_t)n;
}

static uint32_t decl_align(const ptx_var *v)
{
    uint32_t a = v->align ? v->align : emu_type_bytes(v->type) * (v->vec ? v->vec : 1);
    return a ? a : 1;
}

static void push_sym(dctx *c, const ptx_var *v, uint32_t off, uint32_t size)
{
    if (c->nsyms == c->symcap) {
        c->symcap = c->symcap ? c->symcap * 2 : 32;
        c->syms = realloc(c->syms, c->symcap * sizeof *c->syms);
        if (!c->syms) abort();
    }
    c->syms[c->nsyms++] = (lsym){v->name, off, size};
}

typedef struct labelent {
    ptx_str name;
    uint32_t stmt;
} labelent;

static uint32_t find_label(const labelent *L, uint32_t n, ptx_str name)
{
    for (uint32_t i = 0; i < n; i++)
        if (ptx_str_eqs(L[i].name, name)) return L[i].stmt;
    return EMU_NONE;
}

static efunc *decode_func(emu_machine *M, uint32_t fi)
{
    const ptx_func *fn = M->mod->funcs[fi];
    efunc *F = ARENA_NEW(&M->ar, efunc);
    F->fn = fn;
    F->index = fi;
    dctx c;
    memset(&c, 0, sizeof c);
    c.cc = EMU_NONE;
    c.M = M;
    c.F = F;
    c.fn = fn;
    c.fi = fi;
    /* registers */
    F->reg_slot = ARENA_NEWN(&M->ar, uint32_t, fn->nregs + 1);
    for (uint32_t i = 0; i < fn->nregs; i++) {
        const ptx_reg *r = &fn->regs[i];
        if (r->type == PTX_T_PRED) F->reg_slot[i] = PRED_SLOT | c.npreds++;
        else {
            F->reg_slot[i] = c.nslots;
            c.nslots += r->vec > 1 ? r->vec : 1;
        }
    }
    c.sink = new_slot(&c);
    c.psink = PRED_SLOT | c.npreds++;
    /* frame: formal parameters and return values first, then body variables */
    uint32_t off = 0;
    F->nparams = fn->nparams;
    F->nrets = fn->nrets;
    F->param_off = ARENA_NEWN(&M->ar, uint32_t, fn->nparams + 1);
    F->param_size = ARENA_NEWN(&M->ar, uint32_t, fn->nparams + 1);
    F->ret_off = ARENA_NEWN(&M->ar, uint32_t, fn->nrets + 1);
    F->ret_size = ARENA_NEWN(&M->ar, uint32_t, fn->nrets + 1);
    if (!fn->is_entry) {
        for (uint32_t i = 0; i < fn->nparams; i++) {
            off = align_up(off, decl_align(fn->params[i]));
            F->param_off[i] = off;
            F->param_size[i] = decl_bytes(fn->params[i]);
            off += F->param_size[i];
        }
    }
    for (uint32_t i = 0; i < fn->nrets; i++) {
        off = align_up(off, decl_align(fn->rets[i]));
        F->ret_off[i] = off;
        F->ret_size[i] = decl_bytes(fn->rets[i]);
        off += F->ret_size[i];
    }
    /* labels (forward references) */
    labelent *labels = NULL;
    uint32_t nlabels = 0;
    uint32_t ninst = 0;
    for (uint32_t s = 0; s < fn->nstmts; s++) {
        if (fn->stmts[s]->kind == PTX_S_LABEL || fn->stmts[s]->kind == PTX_S_TARGETS) nlabels++;
        if (fn->stmts[s]->kind == PTX_S_INST) ninst++;
    }
    labels = calloc(nlabels + 1, sizeof *labels);
    nlabels = 0;
    for (uint32_t s = 0; s < fn->nstmts; s++) {
        const ptx_stmt *st = fn->stmts[s];
        if (st->kind == PTX_S_LABEL) labels[nlabels++] = (labelent){st->u.name, s};
        else if (st->kind == PTX_S_TARGETS) labels[nlabels++] = (labelent){st->u.dir->name, s};
    }
    F->code = ARENA_NEWN(&M->ar, einst, ninst + 1);
    F->stmt_pc = ARENA_NEWN(&M->ar, uint32_t, fn->nstmts + 1);
    /* scopes: symbol table entries pushed by declarations, popped at '}' */
    uint32_t scope_stack[1024];
    uint32_t depth = 0;
    uint32_t pc = 0;
    for (uint32_t s = 0; s < fn->nstmts; s++) {
        const ptx_stmt *st = fn->stmts[s];
        F->stmt_pc[s] = pc;
        switch (st->kind) {
        case PTX_S_SCOPE_BEGIN:
            if (depth < 1024) scope_stack[depth] = c.nsyms;
            depth++;
            break;
        case PTX_S_SCOPE_END:
            if (depth) {
                depth--;
                if (depth < 1024) c.nsyms = scope_stack[depth];
            }
            break;
        case PTX_S_VAR: {
            const ptx_var *v = st->u.var;
            if (v->space == PTX_SP_LOCAL || v->space == PTX_SP_PARAM || v->space == PTX_SP_PARAM_FUNC) {
                uint32_t a = decl_align(v);
                if (a > 16) a = 16;
                off = align_up(off, a);
                uint32_t sz = decl_bytes(v);
                push_sym(&c, v, off, sz);
                if (v->space == PTX_SP_LOCAL && v->name.n >= 10 && !memcmp(v->name.p, "__ra_local", 10)) {
                    F->ra_local_lo = off;
                    F->ra_local_hi = off + sz;
                    M->ra_slots = true;
                }
                off += sz;
                if (off > (1u << 28)) off = 1u << 28;
            }
            break;
        }
        case PTX_S_INST: {
            einst *I = &F->code[pc];
            dec_one(&c, s, &st->u.inst, I);
            I->flags |= remat_flag(fn, &st->u.inst);
            pc++;
            break;
        }
        default: break;
        }
    }
    F->stmt_pc[fn->nstmts] = pc;
    F->ncode = pc;
    F->local_size = align_up(off, 16);
    /* branch targets and reconvergence points */
    for (uint32_t p = 0; p < pc; p++) {
        einst *I = &F->code[p];
        if (I->ctl == CTL_BRA || I->ctl == CTL_BRX) {
            const ptx_inst *in = &fn->stmts[I->stmt]->u.inst;
            if (I->ctl == CTL_BRA) {
                const ptx_operand *o = &in->opd[in->nopd - 1];
                uint32_t ls = o->kind != PTX_O_SYM ? EMU_NONE
                            : ptx_label_ref(fn, o) != UINT32_MAX ? ptx_label_ref(fn, o) /* block-scoped label */
                                                                  : find_label(labels, nlabels, ptx_opd_text(o));
                if (ls == EMU_NONE) {
                    I->ctl = CTL_UNSUP;
                    I->aux = "branch target is not a label of this function";
                    continue;
                }
                I->target = F->stmt_pc[ls];
            } else {
                const ptx_operand *o = &in->opd[1];
                uint32_t ts = o->kind == PTX_O_SYM ? find_label(labels, nlabels, ptx_opd_text(o)) : EMU_NONE;
                if (ts == EMU_NONE || fn->stmts[ts]->kind != PTX_S_TARGETS) {
                    I->ctl = CTL_UNSUP;
                    I->aux = "brx.idx needs a .branchtargets list of this function";
                    continue;
                }
                const ptx_dirinfo *di = fn->stmts[ts]->u.dir;
                ebrx *t = ARENA_NEW(&M->ar, ebrx);
                t->n = di->n;
                t->pc = ARENA_NEWN(&M->ar, uint32_t, di->n + 1);
                bool good = true;
                for (uint32_t k = 0; k < di->n; k++) {
                    uint32_t ls = find_label(labels, nlabels, di->items[k]);
                    if (ls == EMU_NONE) good = false;
                    else t->pc[k] = F->stmt_pc[ls];
                }
                if (!good) {
                    I->ctl = CTL_UNSUP;
                    I->aux = "a .branchtargets entry is not a label of this function";
                    continue;
                }
                I->aux = t;
            }
        }
    }
    emu_reconv_fill(M, F);
    for (uint32_t p = 0; p < pc; p++)
        if (F->code[p].flags & EI_MEM) F->code[p].site = emu_site_new(M, F, p);
    /* slot initial values */
    F->nslots = c.nslots;
    F->npreds = c.npreds;
    F->ninit = c.ninit;
    F->init = ARENA_NEWN(&M->ar, slotinit, c.ninit + 1);
    if (c.ninit) memcpy(F->init, c.init, c.ninit * sizeof *c.init);
    for (uint32_t i = 0; i < c.ninit; i++)
        if (c.init[i].kind == SI_SREG && dec_sreg_dynamic((unsigned)c.init[i].v)) F->has_dyn_sreg = true;
    free(c.init);
    free(c.syms);
    free(labels);
    return F;
}

/* ---- kernels ------------------------------------------------------------------------ */
uint64_t emu_func_addr(uint32_t index) { return WIN_BASE(WIN_FUNC) + 16 * (uint64_t)(index + 1); }

const efunc *emu_func_by_addr(const emu_machine *M, uint64_t addr)
{
    if ((addr >> WIN_SHIFT) != WIN_FUNC || (addr & 15)) return NULL;
    uint64_t i = ((addr - WIN_BASE(WIN_FUNC)) >> 4);
    if (i == 0 || i > M->mod->nfuncs) return NULL;
    return M->funcs[i - 1];
}

ptx_loc emu_inst_loc(const efunc *f, const einst *I)
{
    return f->fn->stmts[I->stmt]->loc;
}

const ptx_inst *emu_inst_ir(const efunc *f, const einst *I)
{
    return &f->fn->stmts[I->stmt]->u.inst;
}

/* cfg_reach's callback: the shared variables the kernel's code names */
static void mark_shared(void *ctx, const ptx_operand *o, ptx_str name)
{
    const emu_machine *M = ((void **)ctx)[0];
    uint8_t *used = ((void **)ctx)[1];
    (void)o;
    for (uint32_t i = 0; i < M->nvars; i++)
        if (M->vars[i].space == PTX_SP_SHARED && ptx_str_eqs(M->vars[i].name, name)) used[i] = 1;
}

/* Functions reachable from the kernel (cfg_reach: direct calls and any
 * function whose name appears as an operand, and, for indirect calls, any
 * named in a variable initialiser), and the shared variables they name. */
static void reachable(emu_machine *M, uint32_t kfi, uint8_t *freach, uint8_t *sused)
{
    uint32_t nf = M->mod->nfuncs;
    uint8_t *named = calloc(nf + 1, 1);
    /* functions named in initialisers (function-pointer tables) */
    for (uint32_t i = 0; i < M->nvars; i++)
        if (M->vars[i].var->init) {
            /* walk the initialiser tree for symbols */
            const ptx_init *stack[256];
            unsigned sp = 0;
            stack[sp++] = M->vars[i].var->init;
            while (sp) {
                const ptx_init *in = stack[--sp];
                if (in->kind == 'l') {
                    for (uint32_t k = 0; k < in->n && sp < 256; k++) stack[sp++] = in->items[k];
                } else if (in->expr) {
                    const ptx_expr *e = in->expr;
                    if (e->kind == PTX_E_CALL && e->nargs == 1) e = e->u.args[0];
                    if (e->kind == PTX_E_BINARY) e = e->u.a;
                    if (e->kind == PTX_E_SYM)
                        for (uint32_t f = 0; f < nf; f++)
                            if (ptx_str_eqs(M->mod->funcs[f]->name, e->text)) named[f] = 1;
                }
            }
        }
    void *ctx[2] = {M, sused};
    cfg_reach(M->mod, kfi, named, freach, mark_shared, ctx);
    free(named);
}

bool emu_prepare_kernel(emu_machine *M, const ptx_func *kernel)
{
    if (M->prepared == kernel) return true;
    uint32_t nf = M->mod->nfuncs, kfi = 0;
    for (uint32_t i = 0; i < nf; i++)
        if (M->mod->funcs[i] == kernel) kfi = i;
    uint8_t *freach = calloc(nf + 1, 1);
    uint8_t *sused = calloc(M->nvars + 1, 1);
    reachable(M, kfi, freach, sused);
    /* shared layout: the variables the kernel's code names, in declaration
     * order, each at its alignment; dynamic shared memory after them */
    uint32_t off = 0, dyn_align = 16;
    M->ra_shared_lo = M->ra_shared_hi = 0;
    M->ra_slots = false;
    for (uint32_t i = 0; i < M->nvars; i++) {
        mvar *v = &M->vars[i];
        if (v->space != PTX_SP_SHARED) continue;
        if (v->is_extern_shared) {
            if (v->align > dyn_align) dyn_align = v->align;
            continue;
        }
        if (!sused[i]) continue;
        off = align_up(off, v->align);
        v->addr = off;
        off += (uint32_t)v->size;
        /* the register allocator's warp slots (spill traffic statistics) */
        if (v->owner == kernel && v->name.n >= 11 && !memcmp(v->name.p, "__ra_shared", 11)) {
            M->ra_shared_lo = (uint32_t)v->addr;
            M->ra_shared_hi = off;
            M->ra_slots = true;
        }
    }
    M->static_shared = off;
    M->dyn_shared_off = align_up(off, dyn_align);
    /* reset previous decode: sites stay valid only for this kernel */
    M->nsites = 0;
    if (!M->funcs) M->funcs = ARENA_NEWN(&M->ar, efunc *, nf + 1);
    memset(M->funcs, 0, (nf + 1) * sizeof *M->funcs);
    M->kernel_fi = kfi;
    for (uint32_t i = 0; i < nf; i++)
        if (freach[i] && M->mod->funcs[i]->has_body) M->funcs[i] = decode_func(M, i);
    free(freach);
    free(sused);
    M->prepared = kernel;
    return true;
}

uint32_t emu_site_new(emu_machine *M, const efunc *f, uint32_t pc)
{
    if (M->nsites == M->sitecap) {
        uint32_t nc = M->sitecap ? M->sitecap * 2 : 64;
        esite *ns = realloc(M->sites, nc * sizeof *ns);
        if (!ns) return EMU_NONE;
        M->sites = ns;
        M->sitecap = nc;
    }
    esite *s = &M->sites[M->nsites];
    memset(s, 0, sizeof *s);
    s->f = f;
    s->pc = pc;
    return M->nsites++;
}
