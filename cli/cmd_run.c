/* ptxray run: execute a kernel on the warp-level SIMT emulator. */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "divcheck.h"
#include "emu.h"
#include "outfile.h"
#include "run_spec.h"

static void run_usage(FILE *o)
{
    fputs("usage: ptxray run FILE --kernel NAME --grid X[,Y[,Z]] --block X[,Y[,Z]] --arg SPEC...\n"
          "Executes a kernel on the warp-level SIMT emulator (docs/emulator.md).\n"
          "\n"
          "Arguments, one --arg per kernel parameter, in order:\n"
          "  TYPE:VALUE                   a scalar: i8 i16 i32 i64 u8 u16 u32 u64 f16 bf16 f32 f64\n"
          "                               (decimal, 0x hex, or a float), e.g. i32:1024 f32:0.5\n"
          "  [NAME=]buf:TYPE:COUNT[:INIT] a new zero-based global buffer of COUNT elements; the\n"
          "                               parameter is its address.  INIT is one of\n"
          "                                 zero (default), fill:V, iota[:START[:STEP]],\n"
          "                                 rand:SEED[:LO:HI] (splitmix64; integers uniform in\n"
          "                                 [LO,HI], default [0,99]; floats in [LO,HI), default [0,1))\n"
          "  [NAME=]buf:TYPE:file:PATH    a buffer holding the bytes of PATH\n"
          "  ptr:NAME[+BYTES]             the address of a buffer defined before\n"
          "  struct:FIELD,FIELD,...       a structure passed by value; each FIELD is TYPE:VALUE or\n"
          "                               ptr:NAME[+BYTES], placed at its natural alignment\n"
          "  zero                         a parameter of any size, all bytes zero\n"
          "Data options:\n"
          "  --buf NAME=TYPE:COUNT[:INIT] a global buffer that is not a parameter (for ptr:)\n"
          "  --set SYM=TYPE:INIT          initialise a module .global or .const variable (whole),\n"
          "  --set SYM=TYPE:file:PATH     from a file, or\n"
          "  --set SYM=struct:FIELDS      from fields\n"
          "  --dump NAME=PATH             after the run, write a buffer or module variable to PATH\n"
          "                               (raw bytes)\n"
          "  --print NAME[:COUNT]         after the run, print its first COUNT elements (default 16;\n"
          "                               a module variable not set with --set prints as bytes)\n"
          "Execution:\n"
          "  --kernel NAME                the kernel (optional when the module has one)\n"
          "  --grid X[,Y[,Z]]             blocks (default 1,1,1)\n"
          "  --block X[,Y[,Z]]            threads per block (at most 1024)\n"
          "  --shared-bytes N             dynamic shared memory per block\n"
          "  --schedule lockstep|interleave  diverged paths of a warp in stack order (default) or\n"
          "                               interleaved at random, as sm_70+ may (with --seed N)\n"
          "  --max-steps N                stop after N warp-instructions (default 2000000000)\n"
          "  --resident-blocks N          blocks executing concurrently (default 16)\n"
          "  --local-bytes N              local memory per thread (default 524288)\n"
          "  --cooperative                all blocks resident and a grid-sync workspace (grid.sync())\n"
          "Checks (reported per PTX instruction, with the CUDA line when .loc is present):\n"
          "  --coalescing                 32-byte sectors and 128-byte lines per global request\n"
          "  --racecheck                  shared-memory RAW/WAR/WAW hazards between barriers\n"
          "  --bankcheck                  shared-memory bank-conflict degree per request\n"
          "  --check-divergence[=simple|affine|affine2]\n"
          "                               check what the divergence analysis (default affine)\n"
          "                               claims against every warp: uniform values and\n"
          "                               branches, affine coefficients\n"
          "Output:\n"
          "  --format text|json           summary and reports (default text)\n"
          "  -q, --quiet                  no summary line\n"
          "Exit status: 0 ok; 1 the kernel faulted (out-of-bounds or misaligned access, reported\n"
          "with its PTX line and address), trapped, deadlocked, hit --max-steps, --racecheck\n"
          "found hazards or --check-divergence a violated claim; 2 bad usage or input, or an\n"
          "instruction the emulator does not support.\n",
          o);
}

#define MAX_BUFS 256

typedef struct buf {
    char *name;
    const elem_type *t;
    uint64_t addr;
    size_t bytes;
    bool is_symbol;
} buf;

typedef struct run {
    emu_machine *M;
    buf bufs[MAX_BUFS];
    unsigned nbufs;
    unsigned anon;
    char err[512];
} run;

static buf *find_buf(run *r, const char *name, size_t n)
{
    for (unsigned i = 0; i < r->nbufs; i++)
        if (strlen(r->bufs[i].name) == n && !memcmp(r->bufs[i].name, name, n)) return &r->bufs[i];
    return NULL;
}

/* Splits at the first ':' (returns the rest, or NULL). */
static const char *field(const char *s, char *out, size_t n)
{
    const char *c = strchr(s, ':');
    size_t len = c ? (size_t)(c - s) : strlen(s);
    if (len >= n) len = n - 1;
    memcpy(out, s, len);
    out[len] = 0;
    return c ? c + 1 : NULL;
}

/* TYPE:COUNT[:INIT] or TYPE:file:PATH into a new buffer. */
static bool new_buffer(run *r, const char *name, const char *spec)
{
    char tn[32], cnt[64];
    const char *rest = field(spec, tn, sizeof tn);
    const elem_type *t = spec_type(tn, strlen(tn));
    if (!t) {
        snprintf(r->err, sizeof r->err, "unknown element type '%s'", tn);
        return false;
    }
    if (!rest) {
        snprintf(r->err, sizeof r->err, "'%s': expected TYPE:COUNT[:INIT] or TYPE:file:PATH", spec);
        return false;
    }
    if (r->nbufs == MAX_BUFS) {
        snprintf(r->err, sizeof r->err, "too many buffers");
        return false;
    }
    if (name && find_buf(r, name, strlen(name))) {
        snprintf(r->err, sizeof r->err, "buffer '%s' is defined twice", name);
        return false;
    }
    uint8_t *filedata = NULL;
    size_t count, flen = 0;
    const char *init = field(rest, cnt, sizeof cnt);
    if (!strcmp(cnt, "file")) {
        if (!init) {
            snprintf(r->err, sizeof r->err, "'%s': file needs a PATH", spec);
            return false;
        }
        filedata = spec_read_file(init, &flen, r->err, sizeof r->err);
        if (!filedata) return false;
        if (flen % t->bytes || !flen) {
            snprintf(r->err, sizeof r->err, "'%s' has %zu bytes, not a positive multiple of %u (%s)", init, flen,
                     t->bytes, t->name);
            free(filedata);
            return false;
        }
        count = flen / t->bytes;
    } else {
        char *end;
        unsigned long long c = strtoull(cnt, &end, 0);
        if (!cnt[0] || *end || c == 0 || c > (1ull << 32)) {
            snprintf(r->err, sizeof r->err, "'%s' is not an element count (1 to 2^32)", cnt);
            return false;
        }
        count = (size_t)c;
    }
    char nm[64];
    if (!name) {
        snprintf(nm, sizeof nm, "arg%u", ++r->anon);
        name = nm;
    }
    size_t bytes = count * t->bytes;
    uint64_t addr = emu_malloc(r->M, bytes, name);
    uint8_t *host = addr ? emu_host(r->M, addr, bytes) : NULL;
    if (!host) {
        snprintf(r->err, sizeof r->err, "cannot allocate %zu bytes", bytes);
        free(filedata);
        return false;
    }
    if (filedata) {
        memcpy(host, filedata, bytes);
        free(filedata);
    } else if (!spec_fill(t, init, host, count, r->err, sizeof r->err)) {
        return false;
    }
    buf *b = &r->bufs[r->nbufs++];
    b->name = strdup(name);
    b->t = t;
    b->addr = addr;
    b->bytes = bytes;
    b->is_symbol = false;
    return true;
}

/* ptr:NAME[+BYTES] */
static bool pointer(run *r, const char *s, uint64_t *out)
{
    const char *plus = strchr(s, '+');
    size_t n = plus ? (size_t)(plus - s) : strlen(s);
    buf *b = find_buf(r, s, n);
    if (!b) {
        snprintf(r->err, sizeof r->err, "no buffer named '%.*s' (define it before with --buf or NAME=buf:...)", (int)n, s);
        return false;
    }
    uint64_t off = 0;
    if (plus) {
        char *end;
        off = strtoull(plus + 1, &end, 0);
        if (*end || off > b->bytes) {
            snprintf(r->err, sizeof r->err, "bad offset in 'ptr:%s'", s);
            return false;
        }
    }
    *out = b->addr + off;
    return true;
}

/* struct:FIELD,... into dst (size bytes) */
static bool structure(run *r, const char *s, uint8_t *dst, size_t size)
{
    size_t off = 0;
    memset(dst, 0, size);
    char tmp[512];
    snprintf(tmp, sizeof tmp, "%s", s);
    for (char *save = NULL, *f = strtok_r(tmp, ",", &save); f; f = strtok_r(NULL, ",", &save)) {
        uint8_t val[8];
        unsigned n;
        if (!strncmp(f, "ptr:", 4)) {
            uint64_t a;
            if (!pointer(r, f + 4, &a)) return false;
            memcpy(val, &a, 8);
            n = 8;
        } else {
            char tn[32];
            const char *v = field(f, tn, sizeof tn);
            const elem_type *t = spec_type(tn, strlen(tn));
            if (!t || !v) {
                snprintf(r->err, sizeof r->err, "struct field '%s' is not TYPE:VALUE or ptr:NAME", f);
                return false;
            }
            if (!spec_value(t, v, val, r->err, sizeof r->err)) return false;
            n = t->bytes;
        }
        off = (off + n - 1) / n * n;
        if (off + n > size) {
            snprintf(r->err, sizeof r->err, "struct fields need more than the parameter's %zu bytes", size);
            return false;
        }
        memcpy(dst + off, val, n);
        off += n;
    }
    return true;
}

static const char *type_word(uint8_t t) { return ptx_type_name((ptx_type)t); }

/* One --arg for parameter p (its bytes into out). */
static bool argument(run *r, const char *spec, const emu_param_info *p, uint8_t *out)
{
    const char *eq = strchr(spec, '=');
    const char *colon = strchr(spec, ':');
    const char *name = NULL;
    char nm[128];
    const char *body = spec;
    if (eq && (!colon || eq < colon)) {
        size_t n = (size_t)(eq - spec);
        if (n == 0 || n >= sizeof nm) {
            snprintf(r->err, sizeof r->err, "bad buffer name in '%s'", spec);
            return false;
        }
        memcpy(nm, spec, n);
        nm[n] = 0;
        name = nm;
        body = eq + 1;
    }
    if (!strncmp(body, "buf:", 4)) {
        if (p->size != 8) {
            snprintf(r->err, sizeof r->err, "a buffer address is 8 bytes but the parameter is %u bytes (%s)", p->size,
                     type_word(p->type));
            return false;
        }
        if (!new_buffer(r, name, body + 4)) return false;
        memcpy(out, &r->bufs[r->nbufs - 1].addr, 8);
        return true;
    }
    if (name) {
        snprintf(r->err, sizeof r->err, "only buf: arguments take a NAME=");
        return false;
    }
    if (!strncmp(body, "ptr:", 4)) {
        if (p->size != 8) {
            snprintf(r->err, sizeof r->err, "an address is 8 bytes but the parameter is %u bytes", p->size);
            return false;
        }
        uint64_t a;
        if (!pointer(r, body + 4, &a)) return false;
        memcpy(out, &a, 8);
        return true;
    }
    if (!strncmp(body, "struct:", 7)) return structure(r, body + 7, out, p->size);
    if (!strcmp(body, "zero")) {
        memset(out, 0, p->size);
        return true;
    }
    char tn[32];
    const char *v = field(body, tn, sizeof tn);
    const elem_type *t = spec_type(tn, strlen(tn));
    if (!t || !v) {
        snprintf(r->err, sizeof r->err, "'%s' is not TYPE:VALUE, buf:, ptr:, struct: or zero", body);
        return false;
    }
    if (t->bytes != p->size) {
        snprintf(r->err, sizeof r->err, "a %s value has %u bytes but the parameter has %u (%s)", t->name, t->bytes,
                 p->size, p->is_array ? ".b8 array" : type_word(p->type));
        return false;
    }
    return spec_value(t, v, out, r->err, sizeof r->err);
}

/* --set SYM=... */
static bool set_symbol(run *r, const char *spec)
{
    const char *eq = strchr(spec, '=');
    if (!eq || eq == spec) {
        snprintf(r->err, sizeof r->err, "--set '%s': expected SYM=TYPE:INIT, SYM=TYPE:file:PATH or SYM=struct:...", spec);
        return false;
    }
    char sym[256];
    size_t n = (size_t)(eq - spec) < sizeof sym - 1 ? (size_t)(eq - spec) : sizeof sym - 1;
    memcpy(sym, spec, n);
    sym[n] = 0;
    uint64_t addr;
    size_t bytes;
    void *host;
    if (!emu_symbol(r->M, sym, &addr, &bytes, &host, NULL) || !host) {
        snprintf(r->err, sizeof r->err, "--set: no .global or .const variable '%s' in the module", sym);
        return false;
    }
    const char *v = eq + 1;
    if (!strncmp(v, "struct:", 7)) return structure(r, v + 7, host, bytes);
    char tn[32];
    const char *rest = field(v, tn, sizeof tn);
    const elem_type *t = spec_type(tn, strlen(tn));
    if (!t) {
        snprintf(r->err, sizeof r->err, "--set %s: unknown element type '%s'", sym, tn);
        return false;
    }
    if (rest && !strncmp(rest, "file:", 5)) {
        size_t flen;
        uint8_t *d = spec_read_file(rest + 5, &flen, r->err, sizeof r->err);
        if (!d) return false;
        if (flen != bytes) {
            snprintf(r->err, sizeof r->err, "--set %s: '%s' has %zu bytes, the variable %zu", sym, rest + 5, flen, bytes);
            free(d);
            return false;
        }
        memcpy(host, d, bytes);
        free(d);
    } else if (!spec_fill(t, rest, host, bytes / t->bytes, r->err, sizeof r->err)) {
        return false;
    }
    if (!find_buf(r, sym, strlen(sym)) && r->nbufs < MAX_BUFS) {
        buf *b = &r->bufs[r->nbufs++];
        b->name = strdup(sym);
        b->t = t;
        b->addr = addr;
        b->bytes = bytes;
        b->is_symbol = true;
    }
    return true;
}

/* A buffer or module variable by name, for --dump and --print. */
static const uint8_t *named_data(run *r, const char *name, size_t n, size_t *bytes, const elem_type **t)
{
    buf *b = find_buf(r, name, n);
    char sym[256];
    if (n >= sizeof sym) return NULL;
    memcpy(sym, name, n);
    sym[n] = 0;
    uint64_t addr;
    void *host;
    size_t sz;
    if (b && !b->is_symbol) {
        *bytes = b->bytes;
        *t = b->t;
        return emu_host(r->M, b->addr, b->bytes);
    }
    if (emu_symbol(r->M, sym, &addr, &sz, &host, NULL) && host) {
        *bytes = sz;
        *t = b ? b->t : spec_type("u8", 2);
        return host;
    }
    return NULL;
}

static bool dims(const char *s, emu_dim3 *d)
{
    unsigned long v[3] = {1, 1, 1};
    int k = 0;
    const char *p = s;
    while (k < 3) {
        char *end;
        if (*p < '0' || *p > '9') return false;
        v[k++] = strtoul(p, &end, 10);
        if (v[k - 1] == 0 || v[k - 1] > 0x7fffffffu) return false;
        if (!*end) break;
        if (*end != ',') return false;
        p = end + 1;
    }
    if (k == 3 && strchr(p, ',')) return false;
    d->x = (uint32_t)v[0];
    d->y = (uint32_t)v[1];
    d->z = (uint32_t)v[2];
    return true;
}

static bool number(const char *s, uint64_t *out)
{
    char *end;
    if (!s || !*s || *s == '-') return false;
    unsigned long long v = strtoull(s, &end, 0);
    if (*end) return false;
    *out = v;
    return true;
}

enum { O_KERNEL = 256, O_GRID, O_BLOCK, O_ARG, O_BUF, O_SET, O_DUMP, O_PRINT, O_SHARED, O_SCHED, O_SEED,
       O_STEPS, O_RESIDENT, O_LOCAL, O_COOP, O_COAL, O_RACE, O_BANK, O_CHECKDIV, O_FORMAT };

#define MAX_ARGS 512
/* violated divergence claims listed in the text report; JSON has them all */
#define DIVCHECK_LISTED 20u

int cmd_run(int argc, char **argv)
{
    static const struct option opts[] = {
        {"kernel", required_argument, 0, O_KERNEL}, {"grid", required_argument, 0, O_GRID},
        {"block", required_argument, 0, O_BLOCK}, {"arg", required_argument, 0, O_ARG},
        {"buf", required_argument, 0, O_BUF}, {"set", required_argument, 0, O_SET},
        {"dump", required_argument, 0, O_DUMP}, {"print", required_argument, 0, O_PRINT},
        {"shared-bytes", required_argument, 0, O_SHARED}, {"schedule", required_argument, 0, O_SCHED},
        {"seed", required_argument, 0, O_SEED}, {"max-steps", required_argument, 0, O_STEPS},
        {"resident-blocks", required_argument, 0, O_RESIDENT}, {"local-bytes", required_argument, 0, O_LOCAL},
        {"cooperative", no_argument, 0, O_COOP}, {"coalescing", no_argument, 0, O_COAL},
        {"racecheck", no_argument, 0, O_RACE}, {"bankcheck", no_argument, 0, O_BANK},
        {"check-divergence", optional_argument, 0, O_CHECKDIV},
        {"format", required_argument, 0, O_FORMAT}, {"quiet", no_argument, 0, 'q'},
        {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    const char *kernel = NULL, *argspec[MAX_ARGS], *bufspec[MAX_ARGS], *setspec[MAX_ARGS];
    const char *dumps[MAX_ARGS], *prints[MAX_ARGS];
    unsigned nargs = 0, nbuf = 0, nset = 0, ndump = 0, nprint = 0;
    emu_dim3 grid = {1, 1, 1}, block = {0, 0, 0};
    emu_options eo;
    memset(&eo, 0, sizeof eo);
    eo.printf_out = stdout;
    int json = 0, quiet = 0, checkdiv = 0, c;
    enum div_analysis divan = DIV_AN_AFFINE;
    uint64_t v;
    optind = 1;
#define BAD(...) do { fprintf(stderr, "ptxray run: " __VA_ARGS__); fputc('\n', stderr); return 2; } while (0)
    while ((c = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
        switch (c) {
        case O_KERNEL: kernel = optarg; break;
        case O_GRID: if (!dims(optarg, &grid)) BAD("--grid '%s': expected X[,Y[,Z]] of positive integers", optarg); break;
        case O_BLOCK: if (!dims(optarg, &block)) BAD("--block '%s': expected X[,Y[,Z]] of positive integers", optarg); break;
        case O_ARG: if (nargs == MAX_ARGS) BAD("too many --arg"); argspec[nargs++] = optarg; break;
        case O_BUF: if (nbuf == MAX_ARGS) BAD("too many --buf"); bufspec[nbuf++] = optarg; break;
        case O_SET: if (nset == MAX_ARGS) BAD("too many --set"); setspec[nset++] = optarg; break;
        case O_DUMP: if (ndump == MAX_ARGS) BAD("too many --dump"); dumps[ndump++] = optarg; break;
        case O_PRINT: if (nprint == MAX_ARGS) BAD("too many --print"); prints[nprint++] = optarg; break;
        case O_SHARED:
            if (!number(optarg, &v) || v > (1u << 20)) BAD("--shared-bytes '%s': expected 0 to 1048576", optarg);
            eo.shared_bytes = (uint32_t)v;
            break;
        case O_SCHED:
            if (!strcmp(optarg, "lockstep")) eo.schedule = EMU_SCHED_LOCKSTEP;
            else if (!strcmp(optarg, "interleave")) eo.schedule = EMU_SCHED_INTERLEAVE;
            else BAD("--schedule '%s': expected lockstep or interleave", optarg);
            break;
        case O_SEED: if (!number(optarg, &eo.seed)) BAD("--seed '%s': expected a non-negative integer", optarg); break;
        case O_STEPS: if (!number(optarg, &eo.max_steps) || !eo.max_steps) BAD("--max-steps '%s': expected a positive integer", optarg); break;
        case O_RESIDENT:
            if (!number(optarg, &v) || !v || v > 4096) BAD("--resident-blocks '%s': expected 1 to 4096", optarg);
            eo.resident_blocks = (uint32_t)v;
            break;
        case O_LOCAL:
            if (!number(optarg, &v) || !v || v > (1u << 30)) BAD("--local-bytes '%s': expected 1 to 2^30", optarg);
            eo.local_bytes = (uint32_t)v;
            break;
        case O_COOP: eo.cooperative = true; break;
        case O_COAL: eo.checks |= EMU_CHECK_COALESCING; break;
        case O_RACE: eo.checks |= EMU_CHECK_RACE; break;
        case O_BANK: eo.checks |= EMU_CHECK_BANK; break;
        case O_CHECKDIV:
            checkdiv = 1;
            if (!optarg || !strcmp(optarg, "affine")) divan = DIV_AN_AFFINE;
            else if (!strcmp(optarg, "simple")) divan = DIV_AN_SIMPLE;
            else if (!strcmp(optarg, "affine2")) divan = DIV_AN_AFFINE2;
            else BAD("--check-divergence=%s: expected simple, affine or affine2", optarg);
            break;
        case O_FORMAT:
            if (!strcmp(optarg, "json")) json = 1;
            else if (strcmp(optarg, "text")) BAD("--format '%s': expected text or json", optarg);
            break;
        case 'q': quiet = 1; break;
        case 'h': run_usage(stdout); return 0;
        default: run_usage(stderr); return 2;
        }
    }
    if (optind + 1 != argc) {
        run_usage(stderr);
        return 2;
    }
    if (!block.x) BAD("--block is required");
    const char *path = argv[optind];
    ptx_module *m = cli_load(path, 1);
    if (!m) return 2;
    if (!kernel) {
        unsigned nk = 0;
        for (uint32_t i = 0; i < m->nfuncs; i++)
            if (m->funcs[i]->is_entry && m->funcs[i]->has_body) {
                nk++;
                kernel = NULL;
            }
        if (nk != 1) {
            fprintf(stderr, "ptxray run: %s has %u kernels; name one with --kernel:", path, nk);
            for (uint32_t i = 0; i < m->nfuncs; i++)
                if (m->funcs[i]->is_entry && m->funcs[i]->has_body)
                    fprintf(stderr, " %.*s", (int)m->funcs[i]->name.n, m->funcs[i]->name.p);
            fputc('\n', stderr);
            ptx_module_free(m);
            return 2;
        }
        static char kbuf[1024];
        for (uint32_t i = 0; i < m->nfuncs; i++)
            if (m->funcs[i]->is_entry && m->funcs[i]->has_body)
                snprintf(kbuf, sizeof kbuf, "%.*s", (int)m->funcs[i]->name.n, m->funcs[i]->name.p);
        kernel = kbuf;
    }
    divcheck *dc = NULL;
    if (checkdiv) {
        ptx_diags dd;
        ptx_diags_init(&dd);
        dc = divcheck_new(m, divan, &dd);
        ptx_diags_print(&dd, path, m->src, m->src_len, stderr);
        ptx_diags_free(&dd);
        if (!dc) {
            fprintf(stderr, "ptxray run: --check-divergence: %s cannot be analysed\n", path);
            ptx_module_free(m);
            return 2;
        }
        divcheck_begin(dc, block);
        eo.observer = divcheck_observer(dc);
    }
    run R;
    memset(&R, 0, sizeof R);
    R.M = emu_create(m, &eo);
    int rc = 0;
    emu_param_info pinfo[MAX_ARGS];
    uint8_t *argbytes[MAX_ARGS];
    emu_arg args[MAX_ARGS];
    unsigned nparams = 0;
    memset(argbytes, 0, sizeof argbytes);
    int np = emu_kernel_params(R.M, kernel, pinfo, MAX_ARGS);
    if (np < 0) {
        fprintf(stderr, "ptxray run: %s has no kernel named '%s'\n", path, kernel);
        rc = 2;
        goto out;
    }
    nparams = (unsigned)np;
    if (nargs != nparams) {
        fprintf(stderr, "ptxray run: kernel '%s' takes %u parameter%s, %u --arg given:", kernel, nparams,
                nparams == 1 ? "" : "s", nargs);
        for (unsigned i = 0; i < nparams && i < MAX_ARGS; i++)
            fprintf(stderr, "%s %s%s (%u bytes)", i ? "," : "", pinfo[i].is_array ? ".b8 array" : type_word(pinfo[i].type),
                    "", pinfo[i].size);
        fputc('\n', stderr);
        rc = 2;
        goto out;
    }
    for (unsigned i = 0; i < nbuf; i++) {
        const char *eq = strchr(bufspec[i], '=');
        char nm[128];
        if (!eq || eq == bufspec[i] || (size_t)(eq - bufspec[i]) >= sizeof nm) {
            fprintf(stderr, "ptxray run: --buf '%s': expected NAME=TYPE:COUNT[:INIT]\n", bufspec[i]);
            rc = 2;
            goto out;
        }
        memcpy(nm, bufspec[i], (size_t)(eq - bufspec[i]));
        nm[eq - bufspec[i]] = 0;
        if (!new_buffer(&R, nm, eq + 1)) {
            fprintf(stderr, "ptxray run: --buf '%s': %s\n", bufspec[i], R.err);
            rc = 2;
            goto out;
        }
    }
    for (unsigned i = 0; i < nset; i++)
        if (!set_symbol(&R, setspec[i])) {
            fprintf(stderr, "ptxray run: %s\n", R.err);
            rc = 2;
            goto out;
        }
    for (unsigned i = 0; i < nparams; i++) {
        argbytes[i] = calloc(pinfo[i].size ? pinfo[i].size : 1, 1);
        if (!argbytes[i] || !argument(&R, argspec[i], &pinfo[i], argbytes[i])) {
            fprintf(stderr, "ptxray run: --arg %u '%s' (parameter %.*s): %s\n", i + 1, argspec[i],
                    (int)pinfo[i].name.n, pinfo[i].name.p, R.err);
            rc = 2;
            goto out;
        }
        args[i] = (emu_arg){argbytes[i], pinfo[i].size};
    }
    /* validate --dump/--print names before running */
    for (unsigned i = 0; i < ndump + nprint; i++) {
        const char *s = i < ndump ? dumps[i] : prints[i - ndump];
        const char *end = strchr(s, i < ndump ? '=' : ':');
        size_t n = end ? (size_t)(end - s) : strlen(s);
        size_t bytes;
        const elem_type *t;
        if ((i < ndump && !end) || !named_data(&R, s, n, &bytes, &t)) {
            fprintf(stderr, "ptxray run: %s '%s': %s\n", i < ndump ? "--dump" : "--print", s,
                    i < ndump && !end ? "expected NAME=PATH" : "no buffer or module variable of that name");
            rc = 2;
            goto out;
        }
    }
    ptx_diags d;
    ptx_diags_init(&d);
    emu_status st = emu_launch(R.M, kernel, grid, block, args, nparams, &d);
    ptx_diags_print(&d, path, m->src, m->src_len, stderr);
    ptx_diags_free(&d);
    rc = emu_status_exit_code(st);
    const emu_stats *S = emu_last_stats(R.M);
    json_t *root = json ? json_object() : NULL;
    if (json) {
        json_object_set_new(root, "kernel", json_string(kernel));
        json_object_set_new(root, "status", json_string(emu_status_name(st)));
        json_object_set_new(root, "grid", json_pack("[iii]", grid.x, grid.y, grid.z));
        json_object_set_new(root, "block", json_pack("[iii]", block.x, block.y, block.z));
        json_object_set_new(root, "warp_instructions", json_integer((json_int_t)S->warp_insts));
        json_object_set_new(root, "thread_instructions", json_integer((json_int_t)S->thread_insts));
        json_object_set_new(root, "divergent_branches", json_integer((json_int_t)S->divergent_branches));
        if (eo.checks) {
            json_t *rep = emu_report_json(R.M, path);
            json_object_update(root, rep);
            json_decref(rep);
        }
        if (dc) json_object_set_new(root, "divergence_check", divcheck_report_json(dc, path));
    } else {
        if (!quiet)
            printf("%s: kernel %s, grid (%u,%u,%u) x block (%u,%u,%u): %s; %llu warp-instructions, %llu thread-instructions, "
                   "%llu divergent branches\n",
                   path, kernel, grid.x, grid.y, grid.z, block.x, block.y, block.z, emu_status_name(st),
                   (unsigned long long)S->warp_insts, (unsigned long long)S->thread_insts,
                   (unsigned long long)S->divergent_branches);
        if (eo.checks && st == EMU_OK) emu_report_text(R.M, path, stdout);
        if (dc && st == EMU_OK) divcheck_report_text(dc, path, DIVCHECK_LISTED, stdout);
    }
    if (dc && st == EMU_OK && divcheck_nviolations(dc) && rc == 0) rc = 1;
    if ((eo.checks & EMU_CHECK_RACE) && st == EMU_OK && emu_race_count(R.M) && rc == 0) rc = 1;
    if (st == EMU_OK) {
        json_t *pr = json ? json_object() : NULL;
        for (unsigned i = 0; i < nprint; i++) {
            const char *colon = strchr(prints[i], ':');
            size_t n = colon ? (size_t)(colon - prints[i]) : strlen(prints[i]);
            uint64_t count = 16;
            if (colon && !number(colon + 1, &count)) count = 16;
            size_t bytes;
            const elem_type *t;
            const uint8_t *data = named_data(&R, prints[i], n, &bytes, &t);
            json_t *arr = json ? json_array() : NULL;
            if (!json) printf("%.*s:", (int)n, prints[i]);
            for (uint64_t k = 0; k < count && (k + 1) * t->bytes <= bytes; k++) {
                char num[64];
                spec_format(t, data + k * t->bytes, num, sizeof num);
                if (json) json_array_append_new(arr, json_string(num));
                else printf(" %s", num);
            }
            if (json) json_object_set_new(pr, prints[i], arr);
            else putchar('\n');
        }
        if (json) json_object_set_new(root, "print", pr);
        for (unsigned i = 0; i < ndump; i++) {
            const char *eq = strchr(dumps[i], '=');
            size_t bytes;
            const elem_type *t;
            const uint8_t *data = named_data(&R, dumps[i], (size_t)(eq - dumps[i]), &bytes, &t);
            outfile of;
            if (outfile_open(&of, eq + 1)) { rc = 2; continue; }
            fwrite(data, 1, bytes, of.f);
            if (outfile_commit(&of)) rc = 2;
        }
    }
    if (json) {
        json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        fputc('\n', stdout);
        json_decref(root);
    }
out:
    for (unsigned i = 0; i < nparams; i++) free(argbytes[i]);
    for (unsigned i = 0; i < R.nbufs; i++) free(R.bufs[i].name);
    emu_destroy(R.M);
    divcheck_free(dc);
    ptx_module_free(m);
    return rc;
#undef BAD
}
