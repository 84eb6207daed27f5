/* --block: parsing, the shape of a function and where it came from
 * (block_opt.h). */
#include "block_opt.h"
#include "names.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool fail(const char *cmd, const char *arg, const char *why)
{
    fprintf(stderr, "ptxray %s: --block '%s': %s\n", cmd, arg, why);
    return false;
}

/* "X[,Y[,Z]]" at s into block (missing extents 1). */
static bool parse_shape(const char *s, const char *arg, const char *cmd, uint32_t block[3])
{
    static const char *form = "expected X[,Y[,Z]] or KERNEL=X[,Y[,Z]], positive integers separated by commas";
    unsigned long long total = 1;
    for (int i = 0; i < 3; i++) block[i] = 1;
    for (int i = 0; i < 3; i++) {
        if (*s < '0' || *s > '9') return fail(cmd, arg, form);
        errno = 0;
        char *e;
        unsigned long long v = strtoull(s, &e, 10);
        if (v == 0 || v > 1024 || errno) return fail(cmd, arg, "each extent must be between 1 and 1024");
        block[i] = (uint32_t)v;
        total *= v;
        s = e;
        if (!*s) break;
        if (*s != ',' || i == 2) return fail(cmd, arg, form);
        s++;
    }
    if (total > 1024) {
        char why[64];
        snprintf(why, sizeof why, "%llu threads; a block has at most 1024", total);
        return fail(cmd, arg, why);
    }
    return true;
}

bool blk_add(blk_opts *b, const char *arg, const char *cmd)
{
    const char *eq = strrchr(arg, '='); /* the last: the shape has none */
    if (!eq) return parse_shape(arg, arg, cmd, b->all);
    if (eq == arg) return fail(cmd, arg, "expected KERNEL=X[,Y[,Z]]: the kernel's name is missing");
    blk_kernel k = {arg, (size_t)(eq - arg), {0, 0, 0}, 0, false, NULL};
    if (!parse_shape(eq + 1, arg, cmd, k.block)) return false;
    if (b->n == BLK_MAX) return fail(cmd, arg, "at most 64 kernels can be given a shape");
    b->k[b->n++] = k;
    return true;
}

bool blk_add_config(blk_opts *b, const char *pattern, const uint32_t block[3], const char *from)
{
    if (b->n == BLK_MAX) return false;
    blk_kernel k = {pattern, strlen(pattern), {block[0], block[1], block[2]}, 0, ptx_name_is_glob(pattern), from};
    b->k[b->n++] = k;
    return true;
}

static bool names(const blk_kernel *k, const ptx_func *fn)
{
    if (k->glob) return ptx_name_glob(fn, k->arg);
    return ptx_name_match(fn, k->arg, k->len) == PTX_NAME_EXACT;
}

/* The last entry naming fn: of --block (config false) or of a project file. */
static const blk_kernel *entry_for(const blk_opts *b, const ptx_func *fn, bool config)
{
    for (uint32_t i = b ? b->n : 0; i-- > 0;)
        if ((b->k[i].from != NULL) == config && names(&b->k[i], fn)) return &b->k[i];
    return NULL;
}

enum blk_origin blk_resolve(const blk_opts *b, const ptx_func *fn, uint32_t block[3])
{
    memset(block, 0, 3 * sizeof *block);
    const blk_kernel *k = entry_for(b, fn, false);
    if (k) {
        memcpy(block, k->block, 3 * sizeof *block);
        return BLK_KERNEL;
    }
    if (b && b->all[0]) {
        memcpy(block, b->all, 3 * sizeof *block);
        return BLK_ALL;
    }
    if ((k = entry_for(b, fn, true))) {
        memcpy(block, k->block, 3 * sizeof *block);
        return BLK_CONFIG;
    }
    for (uint32_t i = 0; i < fn->nfdirs; i++) {
        const ptx_fdirective *d = &fn->fdirs[i];
        if (!ptx_str_eq(d->name, ".reqntid") || !d->n) continue;
        for (uint32_t k = 0; k < 3; k++) block[k] = k < d->n && d->vals[k] ? (uint32_t)d->vals[k] : 1;
        return BLK_REQNTID;
    }
    const hc_kshapes *ks = blk_launch_shapes(b, fn);
    if (ks) {
        uint32_t r = b->round < ks->n ? b->round : ks->n - 1;
        memcpy(block, ks->s[r].block, 3 * sizeof *block);
        return BLK_LAUNCH;
    }
    return BLK_DEFAULT;
}

bool blk_every_shape(const blk_opts *b, const ptx_func *fn, uint32_t s, uint32_t block[3], enum blk_origin *o)
{
    uint32_t ns = blk_nshapes(b, fn);
    if (s > ns) return false;
    blk_opts at = *b;
    at.round = s;
    enum blk_origin f = blk_resolve(&at, fn, block);
    if (s == ns) { /* the launches of a shape host code does not fix */
        const hc_kshapes *ks = blk_launch_shapes(b, fn);
        if (!(f == BLK_LAUNCH && ks && ks->unknown)) return false;
        f = BLK_DEFAULT;
    }
    if (f != BLK_KERNEL && f != BLK_ALL && f != BLK_CONFIG && f != BLK_LAUNCH) memset(block, 0, 3 * sizeof *block);
    *o = f;
    return true;
}

bool blk_option_shape(const void *ctx, const ptx_func *fn, uint32_t block[3])
{
    enum blk_origin o = blk_resolve(ctx, fn, block);
    if (o <= BLK_CONFIG || o == BLK_LAUNCH) return true;
    memset(block, 0, 3 * sizeof *block);
    return false;
}

const char *blk_origin_text(enum blk_origin o)
{
    static const char *const t[BLK_NORIGINS] = {"--block KERNEL=", "--block", "ptxray.yaml", ".reqntid",
                                                "host-code launch", "default: blockDim.x a multiple of 32"};
    return o < BLK_NORIGINS ? t[o] : "?";
}

/* The tables --launches loaded, freed at exit. */
static hc_table loaded[4];
static unsigned nloaded;

static void free_loaded(void)
{
    for (unsigned i = 0; i < nloaded; i++) hc_table_free(&loaded[i]);
    nloaded = 0;
}

bool blk_add_launches(blk_opts *b, const char *path, const char *cmd)
{
    if (nloaded == sizeof loaded / sizeof loaded[0]) {
        fprintf(stderr, "ptxray %s: --launches: at most one file\n", cmd);
        return false;
    }
    if (b->launches) {
        fprintf(stderr, "ptxray %s: --launches '%s': given twice (run `ptxray launches` once over all the sources)\n",
                cmd, path);
        return false;
    }
    if (hc_table_load(&loaded[nloaded], path, stderr)) return false;
    if (!nloaded) atexit(free_loaded);
    b->launches = &loaded[nloaded++];
    return true;
}

uint32_t blk_rounds(const blk_opts *b)
{
    uint32_t n = b ? hc_table_max_shapes(b->launches) : 0;
    return n ? n : 1;
}

const hc_kshapes *blk_launch_entry(const blk_opts *b, const ptx_func *fn)
{
    if (!b || !b->launches) return NULL;
    /* `ptxray launches` writes symbols: those first, without demangling */
    const hc_kshapes *k = hc_table_find(b->launches, fn->name.p, fn->name.n);
    if (!k) {
        ptx_fname f;
        ptx_fname_init(&f, fn);
        for (size_t i = 0; !k && f.full && i < b->launches->n; i++)
            if (ptx_fname_match(&f, b->launches->k[i].name, strlen(b->launches->k[i].name)) == PTX_NAME_EXACT)
                k = &b->launches->k[i];
        ptx_fname_free(&f);
    }
    return k;
}

const hc_kshapes *blk_launch_shapes(const blk_opts *b, const ptx_func *fn)
{
    const hc_kshapes *k = blk_launch_entry(b, fn);
    return k && k->n ? k : NULL;
}

uint32_t blk_nshapes(const blk_opts *b, const ptx_func *fn)
{
    uint32_t block[3];
    const hc_kshapes *ks = blk_launch_shapes(b, fn);
    return ks && blk_resolve(b, fn, block) == BLK_LAUNCH ? ks->n : 1;
}

uint32_t blk_module_rounds(const blk_opts *b, const ptx_module *m)
{
    uint32_t n = 1;
    for (uint32_t f = 0; b && b->launches && f < m->nfuncs; f++) {
        uint32_t k = m->funcs[f]->has_body ? blk_nshapes(b, m->funcs[f]) : 1;
        if (k > n) n = k;
    }
    return n;
}

bool blk_round_has(const blk_opts *b, const ptx_func *fn) { return !b || !b->round || b->round < blk_nshapes(b, fn); }

const char *blk_origin_for(const blk_opts *b, const ptx_func *fn, enum blk_origin o)
{
    const blk_kernel *k = o == BLK_CONFIG ? entry_for(b, fn, true) : NULL;
    if (k) return k->from;
    const hc_kshapes *ks = o == BLK_LAUNCH ? blk_launch_shapes(b, fn) : NULL;
    if (!ks) return blk_origin_text(o);
    return ks->s[b->round < ks->n ? b->round : ks->n - 1].from;
}

void blk_mark(blk_opts *b, const ptx_module *m)
{
    for (uint32_t i = 0; i < b->n; i++) {
        const ptx_func *hit;
        if (b->k[i].from) continue; /* a project file's: ptxray.yaml says which match nothing */
        uint32_t n = ptx_name_lookup(m, b->k[i].arg, b->k[i].len, false, false, &hit);
        b->k[i].seen |= n == 1 ? BLK_SEEN : n ? BLK_CLASH : 0;
    }
}

static const blk_kernel *unseen(const blk_opts *b, uint8_t bit)
{
    for (uint32_t i = 0; i < b->n; i++)
        if (!b->k[i].from && (bit == BLK_CLASH ? (b->k[i].seen & BLK_CLASH) != 0 : !b->k[i].seen)) return &b->k[i];
    return NULL;
}

bool blk_check(blk_opts *b, const ptx_module *m, const char *cmd, const char *path)
{
    blk_mark(b, m);
    const char *shown = strcmp(path, "-") ? path : "<stdin>";
    const blk_kernel *k = unseen(b, BLK_CLASH);
    const char *name = k ? k->arg : NULL, *what = "--block";
    size_t len = k ? k->len : 0;
    for (size_t i = 0; !k && b->launches && i < b->launches->n; i++) {
        /* a launch table describes the whole program: a kernel of another
         * file is no error here, one naming several of this file's is */
        const ptx_func *hit;
        name = b->launches->k[i].name, len = strlen(name), what = "--launches";
        if (ptx_name_lookup(m, name, len, false, false, &hit) > 1) break;
        name = NULL;
    }
    if (!name && (k = unseen(b, BLK_SEEN))) name = k->arg, len = k->len;
    if (!name) return true;
    if (k) fprintf(stderr, "ptxray %s: --block '%s': %s: ", cmd, k->arg, shown);
    else fprintf(stderr, "ptxray %s: %s: %s: ", cmd, what, shown);
    if (k && !k->seen) fprintf(stderr, "no function named '%.*s'", (int)len, name);
    else fprintf(stderr, "'%.*s' names several functions", (int)len, name);
    fputs("; give its symbol or its C++ name, in full or without its parameters:\n", stderr);
    ptx_names_print(stderr, m, false);
    return false;
}

bool blk_check_seen(const blk_opts *b, const char *cmd)
{
    const blk_kernel *k = unseen(b, BLK_CLASH);
    if (k)
        fprintf(stderr,
                "ptxray %s: --block '%s': '%.*s' names several functions of a file; give its symbol or its C++ "
                "name in full (`ptxray list`)\n",
                cmd, k->arg, (int)k->len, k->arg);
    else if ((k = unseen(b, BLK_SEEN)))
        fprintf(stderr, "ptxray %s: --block '%s': no kernel named '%.*s' in any file\n", cmd, k->arg, (int)k->len,
                k->arg);
    return !k;
}

void blk_summary(const blk_opts *b, const uint32_t count[BLK_NORIGINS], char *buf, size_t n)
{
    uint32_t total = 0;
    for (int o = 0; o < BLK_NORIGINS; o++) total += count[o];
    FILE *f = fmemopen(buf, n, "w");
    if (!f) abort();
    fputs("block shape", f);
    const char *sep = "";
    for (int o = 0; o < BLK_DEFAULT; o++) {
        if (!count[o]) continue;
        fprintf(f, "%s from %s", sep, o == BLK_LAUNCH ? "host-code launches" : blk_origin_text((enum blk_origin)o));
        if (o == BLK_ALL && b) fprintf(f, " %u,%u,%u", b->all[0], b->all[1], b->all[2]);
        if (count[o] < total) fprintf(f, " in %u of %u functions", count[o], total);
        sep = ",";
    }
    if (count[BLK_DEFAULT] || !total) fprintf(f, "%s unknown, assumed " BLK_DEFAULT_TEXT, *sep ? ", else" : "");
    fclose(f);
    buf[n - 1] = 0;
}

json_t *blk_shape_json(const uint32_t block[3])
{
    return block[0] ? json_pack("[iii]", (json_int_t)block[0], (json_int_t)block[1], (json_int_t)block[2])
                    : json_null();
}

json_t *blk_kernels_json(const blk_opts *b)
{
    json_t *o = json_object();
    for (uint32_t i = 0; b && i < b->n; i++) {
        char name[256];
        if (b->k[i].from) continue; /* the project file's: its own list (report/config.h) */
        snprintf(name, sizeof name, "%.*s", (int)b->k[i].len, b->k[i].arg);
        json_object_set_new(o, name, blk_shape_json(b->k[i].block));
    }
    return o;
}
