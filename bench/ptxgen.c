/* ptxgen: writes a synthetic but valid PTX module that looks like nvcc output,
 * for the parser benchmark (`make bench`).
 *
 *   ptxgen [BYTES] > file.ptx        (default 105000000)
 *
 * The module is `.version 8.0 / .target sm_80 / .address_size 64` followed by
 * many `.visible .entry` kernels of 2000-5000 instructions each: parameter
 * loads, cvta, special-register moves, integer and float arithmetic, global
 * and shared loads/stores (including ld.shared.v4), shfl.sync with a %r|%p
 * destination, atomics, bar.sync, setp + predicated branches to $L__BB labels,
 * and `.loc` lines every few instructions.  Every register used lies inside
 * the declared %p<N>/%r<N>/%f<N>/%rd<N> ranges, and only registers already
 * written (in text order) are read, so ptxas accepts the output.
 *
 * The output is deterministic (fixed seed) and its size is within a few
 * hundred bytes to one kernel of BYTES (the last kernel is sized to fit).
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- deterministic PRNG (xorshift64*) --------------------------------- */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void) {
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1Dull;
}
static unsigned rn(unsigned n) { return (unsigned)(rnd() % n); } /* [0, n) */
static unsigned rr(unsigned lo, unsigned hi) { return hi <= lo ? lo : lo + rn(hi - lo + 1); } /* [lo, hi] */

/* ---- growable text buffer ----------------------------------------------- */
typedef struct {
    char *p;
    size_t n, cap;
} buf;

static void buf_reserve(buf *b, size_t extra) {
    if (b->n + extra + 1 <= b->cap) return;
    size_t cap = b->cap ? b->cap : 1 << 16;
    while (cap < b->n + extra + 1) cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) {
        fprintf(stderr, "ptxgen: out of memory\n");
        exit(1);
    }
    b->p = p;
    b->cap = cap;
}

__attribute__((format(printf, 2, 3))) static void bp(buf *b, const char *fmt, ...) {
    va_list ap;
    for (;;) {
        size_t room = b->cap - b->n;
        va_start(ap, fmt);
        int k = vsnprintf(b->p ? b->p + b->n : NULL, b->p ? room : 0, fmt, ap);
        va_end(ap);
        if (k < 0) {
            fprintf(stderr, "ptxgen: formatting error\n");
            exit(1);
        }
        if (b->p && (size_t)k < room) {
            b->n += (size_t)k;
            return;
        }
        buf_reserve(b, (size_t)k + 1);
    }
}

/* ---- register files ------------------------------------------------------ */
/* Destinations are numbered upwards like nvcc's virtual registers; after
 * `cap` they wrap to `base` (the registers the prologue keeps live).  Sources
 * are drawn from registers written earlier, mostly recent ones. */
typedef struct {
    unsigned next; /* next register number to define */
    unsigned max;  /* highest register number defined so far */
    unsigned base; /* first register that may be recycled */
    unsigned cap;  /* wrap-around point */
    int wrapped;
} regfile;

static void rf_init(regfile *r, unsigned cap) {
    r->next = 1;
    r->max = 0;
    r->base = 1;
    r->cap = cap;
    r->wrapped = 0;
}

static unsigned rf_def(regfile *r) {
    if (r->next > r->cap) {
        r->next = r->base;
        r->wrapped = 1;
    }
    unsigned v = r->next++;
    if (v > r->max) r->max = v;
    return v;
}

static unsigned rf_use(regfile *r) {
    if (r->max == 0) return rf_def(r); /* should not happen: prologue defines some */
    unsigned hi = r->wrapped ? r->max : r->next - 1;
    /* mostly a recent register, sometimes an older one */
    if (rn(4) != 0) {
        unsigned back = rn(12);
        unsigned last = r->next - 1;
        if (last >= r->base + back && last - back >= 1) return last - back;
    }
    return rr(1, hi);
}

typedef struct {
    regfile p, r, f, rd;
    unsigned kid;     /* kernel number, for label and symbol names */
    unsigned nblocks; /* labels $L__BB<kid>_1 .. _nblocks */
    unsigned curblock;
    unsigned line;    /* .loc line */
    unsigned ninst;
    unsigned since_loc;
    unsigned gbase[4]; /* %rd registers holding global base pointers */
    unsigned smem;     /* %rd register holding the shared array address */
    unsigned n_param;  /* the .u32 size parameter (%r register) */
    unsigned tid;      /* %r register holding the global thread index */
} kstate;

static const char *fimm[] = {
    "0f3F800000", "0f00000000", "0f40000000", "0fBF800000", "0f3F000000",
    "0f3DCCCCCD", "0f41200000", "0fC0800000", "0f7F800000", "0f3E800000",
};
#define NFIMM (sizeof fimm / sizeof fimm[0])

static const char *cmp_s[] = {"lt", "le", "gt", "ge", "eq", "ne"};

static void loc(buf *b, kstate *k) {
    k->line += rr(0, 3);
    bp(b, "\t.loc\t1 %u %u\n", k->line, rr(0, 40));
    k->since_loc = 0;
}

#define I(...) (bp(b, __VA_ARGS__), k->ninst++, k->since_loc++)

/* One "source statement": a short instruction group like nvcc emits. */
static void emit_group(buf *b, kstate *k) {
    unsigned choice = rn(100);
    if (choice < 16) {
        /* indexed global load: mul.wide + add.s64 + ld */
        unsigned idx = rf_use(&k->r);
        unsigned w = rf_def(&k->rd), a = rf_def(&k->rd);
        I("\tmul.wide.s32 \t%%rd%u, %%r%u, 4;\n", w, idx);
        I("\tadd.s64 \t%%rd%u, %%rd%u, %%rd%u;\n", a, k->gbase[rn(4)], w);
        unsigned f = rf_def(&k->f);
        int off = (int)rr(0, 8) * 4 - 8;
        if (off == 0)
            I("\tld.global.%sf32 \t%%f%u, [%%rd%u];\n", rn(2) ? "nc." : "", f, a);
        else
            I("\tld.global.%sf32 \t%%f%u, [%%rd%u+%d];\n", rn(2) ? "nc." : "", f, a, off);
    } else if (choice < 34) {
        /* float arithmetic */
        unsigned x = rf_use(&k->f), y = rf_use(&k->f), z = rf_use(&k->f);
        unsigned d = rf_def(&k->f);
        switch (rn(8)) {
        case 0: case 1: case 2:
            I("\tfma.rn.f32 \t%%f%u, %%f%u, %%f%u, %%f%u;\n", d, x, y, z);
            break;
        case 3:
            I("\tfma.rn.f32 \t%%f%u, %%f%u, %s, %%f%u;\n", d, x, fimm[rn(NFIMM)], z);
            break;
        case 4:
            I("\tadd.f32 \t%%f%u, %%f%u, %%f%u;\n", d, x, y);
            break;
        case 5:
            I("\tmul.f32 \t%%f%u, %%f%u, %s;\n", d, x, fimm[rn(NFIMM)]);
            break;
        case 6:
            I("\tsub.f32 \t%%f%u, %%f%u, %%f%u;\n", d, x, y);
            break;
        default:
            I("\tmax.f32 \t%%f%u, %%f%u, %%f%u;\n", d, x, y);
            break;
        }
    } else if (choice < 44) {
        /* integer arithmetic, hex and negative immediates */
        unsigned x = rf_use(&k->r), y = rf_use(&k->r), z = rf_use(&k->r);
        unsigned d = rf_def(&k->r);
        switch (rn(8)) {
        case 0:
            I("\tmad.lo.s32 \t%%r%u, %%r%u, %%r%u, %%r%u;\n", d, x, y, z);
            break;
        case 1:
            I("\tadd.s32 \t%%r%u, %%r%u, %d;\n", d, x, -(int)rr(1, 64));
            break;
        case 2:
            I("\tand.b32 \t%%r%u, %%r%u, 0x%X;\n", d, x, (1u << rr(2, 16)) - 1);
            break;
        case 3:
            I("\tshl.b32 \t%%r%u, %%r%u, %u;\n", d, x, rr(1, 5));
            break;
        case 4:
            I("\tadd.s32 \t%%r%u, %%r%u, %%r%u;\n", d, x, y);
            break;
        case 5:
            I("\txor.b32 \t%%r%u, %%r%u, %%r%u;\n", d, x, y);
            break;
        case 6:
            I("\tshr.u32 \t%%r%u, %%r%u, %u;\n", d, x, rr(1, 31));
            break;
        default:
            I("\tmul.lo.s32 \t%%r%u, %%r%u, %u;\n", d, x, rr(3, 1000));
            break;
        }
    } else if (choice < 54) {
        /* indexed global store */
        unsigned idx = rf_use(&k->r), v = rf_use(&k->f);
        unsigned w = rf_def(&k->rd), a = rf_def(&k->rd);
        I("\tmul.wide.s32 \t%%rd%u, %%r%u, 4;\n", w, idx);
        I("\tadd.s64 \t%%rd%u, %%rd%u, %%rd%u;\n", a, k->gbase[rn(4)], w);
        int off = (int)rr(0, 4) * 4;
        if (off == 0)
            I("\tst.global.f32 \t[%%rd%u], %%f%u;\n", a, v);
        else
            I("\tst.global.f32 \t[%%rd%u+%d], %%f%u;\n", a, off, v);
    } else if (choice < 60) {
        /* predicates */
        unsigned p = rf_def(&k->p);
        if (rn(2)) {
            unsigned x = rf_use(&k->r);
            if (rn(2))
                I("\tsetp.%s.s32 \t%%p%u, %%r%u, %%r%u;\n", cmp_s[rn(6)], p, x, rf_use(&k->r));
            else
                I("\tsetp.%s.s32 \t%%p%u, %%r%u, %d;\n", cmp_s[rn(6)], p, x, (int)rr(0, 255) - 16);
        } else {
            unsigned x = rf_use(&k->f);
            I("\tsetp.%s.f32 \t%%p%u, %%f%u, %s;\n", rn(2) ? "gt" : "lt", p, x, fimm[rn(NFIMM)]);
        }
        if (rn(3) == 0) {
            unsigned q = rf_def(&k->p);
            I("\tor.pred  \t%%p%u, %%p%u, %%p%u;\n", q, p, rf_use(&k->p));
        }
        if (rn(2)) {
            unsigned d = rf_def(&k->r);
            I("\tselp.b32 \t%%r%u, %%r%u, %%r%u, %%p%u;\n", d, rf_use(&k->r), rf_use(&k->r), p);
        }
    } else if (choice < 64) {
        /* warp shuffle reduction step */
        unsigned v = rf_use(&k->r);
        unsigned d = rf_def(&k->r), p = rf_def(&k->p);
        static const char *mode[] = {"down", "bfly", "up", "idx"};
        unsigned m = rn(4);
        I("\tshfl.sync.%s.b32 \t%%r%u|%%p%u, %%r%u, %u, %u, -1;\n", mode[m], d, p, v,
          m == 3 ? rn(32) : 1u << rn(5), m == 2 ? 0u : 31u);
        if (rn(2)) {
            unsigned f = rf_def(&k->f);
            I("\tmov.b32 \t%%f%u, %%r%u;\n", f, d);
        }
    } else if (choice < 70) {
        /* shared memory: vector load, scalar store */
        if (rn(2)) {
            unsigned a = rf_def(&k->f), bb = rf_def(&k->f), c = rf_def(&k->f), d = rf_def(&k->f);
            unsigned off = rn(256) * 16;
            if (off)
                I("\tld.shared.v4.f32 \t{%%f%u, %%f%u, %%f%u, %%f%u}, [%%rd%u+%u];\n", a, bb, c, d,
                  k->smem, off);
            else
                I("\tld.shared.v4.f32 \t{%%f%u, %%f%u, %%f%u, %%f%u}, [%%rd%u];\n", a, bb, c, d,
                  k->smem);
        } else {
            I("\tst.shared.f32 \t[%%rd%u+%u], %%f%u;\n", k->smem, rn(1024) * 4, rf_use(&k->f));
        }
        if (rn(3) == 0) I("\tbar.sync \t0;\n");
    } else if (choice < 73) {
        /* atomic */
        unsigned d = rf_def(&k->r);
        if (rn(2))
            I("\tatom.global.add.u32 \t%%r%u, [%%rd%u], 1;\n", d, k->gbase[rn(4)]);
        else
            I("\tatom.global.add.u32 \t%%r%u, [%%rd%u+%u], %%r%u;\n", d, k->gbase[rn(4)],
              rn(64) * 4, rf_use(&k->r));
    } else if (choice < 79) {
        /* conversions and moves */
        switch (rn(5)) {
        case 0: {
            unsigned d = rf_def(&k->f);
            I("\tcvt.rn.f32.s32 \t%%f%u, %%r%u;\n", d, rf_use(&k->r));
            break;
        }
        case 1: {
            unsigned d = rf_def(&k->r);
            I("\tcvt.rzi.s32.f32 \t%%r%u, %%f%u;\n", d, rf_use(&k->f));
            break;
        }
        case 2: {
            unsigned d = rf_def(&k->f);
            I("\tmov.f32 \t%%f%u, %s;\n", d, fimm[rn(NFIMM)]);
            break;
        }
        case 3: {
            unsigned d = rf_def(&k->rd);
            I("\tcvt.s64.s32 \t%%rd%u, %%r%u;\n", d, rf_use(&k->r));
            break;
        }
        default: {
            static const char *sr[] = {"%tid.x", "%tid.y", "%ntid.x", "%ctaid.x", "%laneid"};
            unsigned d = rf_def(&k->r);
            I("\tmov.u32 \t%%r%u, %s;\n", d, sr[rn(5)]);
            break;
        }
        }
    } else if (choice < 83) {
        /* transcendental-ish float ops */
        unsigned x = rf_use(&k->f), d = rf_def(&k->f);
        static const char *op[] = {"ex2.approx.ftz.f32", "rcp.rn.f32", "sqrt.rn.f32",
                                   "abs.f32", "neg.f32"};
        I("\t%s \t%%f%u, %%f%u;\n", op[rn(5)], d, x);
    } else if (choice < 88) {
        /* 64-bit pointer arithmetic */
        unsigned x = rf_use(&k->rd), d = rf_def(&k->rd);
        if (rn(2))
            I("\tadd.s64 \t%%rd%u, %%rd%u, %u;\n", d, x, rr(1, 64) * 4);
        else
            I("\tshl.b64 \t%%rd%u, %%rd%u, %u;\n", d, x, rr(1, 3));
    } else {
        /* bounds-checked fused update: the kernel's main pattern */
        unsigned w = rf_def(&k->rd), a = rf_def(&k->rd);
        I("\tmul.wide.s32 \t%%rd%u, %%r%u, 4;\n", w, k->tid);
        I("\tadd.s64 \t%%rd%u, %%rd%u, %%rd%u;\n", a, k->gbase[rn(4)], w);
        unsigned f1 = rf_def(&k->f), f2 = rf_def(&k->f);
        I("\tld.global.f32 \t%%f%u, [%%rd%u];\n", f1, a);
        I("\tfma.rn.f32 \t%%f%u, %%f%u, %%f%u, %%f%u;\n", f2, f1, rf_use(&k->f), f1);
        I("\tst.global.f32 \t[%%rd%u], %%f%u;\n", a, f2);
    }
}

/* Ends the current basic block with a branch and starts the next one. */
static void end_block(buf *b, kstate *k) {
    if (k->curblock >= k->nblocks) return;
    unsigned target = (rn(4) || k->curblock == 0) ? rr(k->curblock + 1, k->nblocks) : rr(1, k->curblock);
    if (rn(6) == 0) {
        I("\tbra.uni \t$L__BB%u_%u;\n", k->kid, k->curblock + 1 <= k->nblocks ? k->curblock + 1 : target);
    } else {
        unsigned p = rf_def(&k->p);
        I("\tsetp.%s.s32 \t%%p%u, %%r%u, %%r%u;\n", cmp_s[rn(6)], p, rf_use(&k->r), k->n_param);
        I("\t@%s%%p%u bra \t$L__BB%u_%u;\n", rn(5) ? "" : "!", p, k->kid, target);
    }
    k->curblock++;
    bp(b, "\n$L__BB%u_%u:\n", k->kid, k->curblock);
    loc(b, k);
}

/* Writes one kernel of about `ninst` instructions to out. */
static void emit_kernel(buf *out, buf *body, unsigned kid, unsigned ninst) {
    kstate ks, *k = &ks;
    buf *b = body;
    memset(k, 0, sizeof *k);
    rf_init(&k->p, rr(40, 90));
    rf_init(&k->r, rr(300, 900));
    rf_init(&k->f, rr(300, 900));
    rf_init(&k->rd, rr(120, 300));
    k->kid = kid;
    k->line = 10 + rn(40);
    k->nblocks = ninst / rr(12, 30) + 1;
    k->curblock = 0;
    body->n = 0;

    char name[64];
    snprintf(name, sizeof name, "_Z%ugen_kernel_%uPfS_S_Pii", kid < 10 ? 12u : kid < 100 ? 13u : kid < 1000 ? 14u : 15u, kid);
    /* (the mangled-length prefix is cosmetic; ptxas does not demangle) */

    /* prologue: parameters, cvta, thread index, shared base */
    unsigned praw[4];
    for (unsigned i = 0; i < 4; i++) {
        praw[i] = rf_def(&k->rd);
        I("\tld.param.u64 \t%%rd%u, [%s_param_%u];\n", praw[i], name, i);
    }
    k->n_param = rf_def(&k->r);
    I("\tld.param.u32 \t%%r%u, [%s_param_4];\n", k->n_param, name);
    loc(b, k);
    for (unsigned i = 0; i < 4; i++) {
        k->gbase[i] = rf_def(&k->rd);
        I("\tcvta.to.global.u64 \t%%rd%u, %%rd%u;\n", k->gbase[i], praw[i]);
    }
    unsigned ntid = rf_def(&k->r), ctaid = rf_def(&k->r), tid = rf_def(&k->r);
    I("\tmov.u32 \t%%r%u, %%ntid.x;\n", ntid);
    I("\tmov.u32 \t%%r%u, %%ctaid.x;\n", ctaid);
    I("\tmov.u32 \t%%r%u, %%tid.x;\n", tid);
    k->tid = rf_def(&k->r);
    I("\tmad.lo.s32 \t%%r%u, %%r%u, %%r%u, %%r%u;\n", k->tid, ctaid, ntid, tid);
    k->smem = rf_def(&k->rd);
    I("\tmov.u64 \t%%rd%u, %s_smem;\n", k->smem, name);
    loc(b, k);
    {
        unsigned p = rf_def(&k->p);
        I("\tsetp.ge.s32 \t%%p%u, %%r%u, %%r%u;\n", p, k->tid, k->n_param);
        I("\t@%%p%u bra \t$L__BB%u_%u;\n", p, kid, k->nblocks);
    }
    /* seed a few float registers so the float pool is never empty */
    for (unsigned i = 0; i < 4; i++) {
        unsigned a = rf_def(&k->rd), f = rf_def(&k->f);
        if (i == 0) {
            unsigned w = rf_def(&k->rd);
            I("\tmul.wide.s32 \t%%rd%u, %%r%u, 4;\n", w, k->tid);
            I("\tadd.s64 \t%%rd%u, %%rd%u, %%rd%u;\n", a, k->gbase[0], w);
        } else {
            I("\tadd.s64 \t%%rd%u, %%rd%u, %u;\n", a, k->gbase[i], i * 128);
        }
        I("\tld.global.f32 \t%%f%u, [%%rd%u];\n", f, a);
    }
    /* registers defined so far stay live: never recycle them */
    k->p.base = k->p.next;
    k->r.base = k->r.next;
    k->f.base = k->f.next;
    k->rd.base = k->rd.next;

    unsigned per_block = ninst / k->nblocks + 1;
    unsigned in_block = 0;
    while (k->ninst < ninst) {
        emit_group(b, k);
        in_block++;
        if (k->since_loc >= rr(3, 7)) loc(b, k);
        if (in_block * 2 >= per_block && k->curblock < k->nblocks && k->ninst >= per_block * (k->curblock + 1)) {
            end_block(b, k);
            in_block = 0;
        }
    }
    while (k->curblock < k->nblocks) end_block(b, k);
    I("\tret;\n");

    /* header, now that the register counts are known */
    bp(out, "\t// .globl\t%s\n", name);
    bp(out, ".visible .entry %s(\n", name);
    for (unsigned i = 0; i < 4; i++) bp(out, "\t.param .u64 %s_param_%u,\n", name, i);
    bp(out, "\t.param .u32 %s_param_4\n)\n", name);
    if (kid % 4 == 1) bp(out, ".maxntid 256, 1, 1\n");
    bp(out, "{\n");
    bp(out, "\t.reg .pred \t%%p<%u>;\n", k->p.max + 1);
    bp(out, "\t.reg .f32 \t%%f<%u>;\n", k->f.max + 1);
    bp(out, "\t.reg .b32 \t%%r<%u>;\n", k->r.max + 1);
    bp(out, "\t.reg .b64 \t%%rd<%u>;\n", k->rd.max + 1);
    bp(out, "\t// demoted variable\n");
    bp(out, "\t.shared .align 16 .b8 %s_smem[4096];\n", name);
    bp(out, "\t.loc\t1 %u 0\n\n", k->line > 5 ? 5u : 1u);
    buf_reserve(out, body->n);
    memcpy(out->p + out->n, body->p, body->n);
    out->n += body->n;
    bp(out, "\n}\n");
}

int main(int argc, char **argv) {
    unsigned long long target = 105000000ull;
    if (argc > 2 || (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))) {
        fprintf(stderr, "usage: ptxgen [BYTES] > file.ptx   (default %llu)\n", target);
        return 2;
    }
    if (argc == 2) {
        char *end;
        target = strtoull(argv[1], &end, 10);
        if (*end || target == 0) {
            fprintf(stderr, "ptxgen: bad size '%s'\n", argv[1]);
            return 2;
        }
    }

    static char iobuf[1 << 20];
    setvbuf(stdout, iobuf, _IOFBF, sizeof iobuf);

    buf out = {0}, body = {0};
    bp(&out, "//\n// Generated by ptxgen (ptxray benchmark input)\n//\n// Based on NVVM-style output\n//\n\n");
    bp(&out, ".version 8.0\n.target sm_80\n.address_size 64\n\n");
    const char *trailer = "\t.file\t1 \"/tmp/ptxgen/gen_kernels.cu\"\n";
    unsigned long long written = 0, total_inst = 0;
    for (unsigned kid = 0;; kid++) {
        unsigned long long have = written + out.n + strlen(trailer);
        if (kid > 0 && have + 4000 >= target) break;
        /* bytes per instruction so far (labels, .loc and headers included) */
        double bpi = total_inst ? (double)have / (double)total_inst : 38.0;
        double room = (double)(target - have) / bpi - 20; /* header and ret */
        unsigned ninst = rr(2000, 5000);
        if (room < ninst + 2000.0) { /* last kernel(s): size to fit */
            if (room > 5000) ninst = (unsigned)(room / 2);
            else ninst = room > 100 ? (unsigned)room : 100;
        }
        total_inst += ninst;
        emit_kernel(&out, &body, kid, ninst);
        if (out.n > (1u << 20)) {
            if (fwrite(out.p, 1, out.n, stdout) != out.n) {
                perror("ptxgen: write");
                return 1;
            }
            written += out.n;
            out.n = 0;
        }
    }
    bp(&out, "%s", trailer);
    if (fwrite(out.p, 1, out.n, stdout) != out.n || fflush(stdout) != 0) {
        perror("ptxgen: write");
        return 1;
    }
    free(out.p);
    free(body.p);
    return 0;
}
