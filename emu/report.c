/* Reports of the dynamic checks, as text and as JSON, one entry per PTX
 * instruction in source order, each with its PTX position and the CUDA
 * source line the caller's emu_srcmap gives. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include "emu_internal.h"

/* The instruction's source line through sm, or "". */
static void source_line(const emu_srcmap *sm, const ptx_func *fn, uint32_t stmt, char *buf, size_t n)
{
    buf[0] = 0;
    if (sm && sm->src) sm->src(sm->ctx, fn, stmt, buf, n);
}

typedef struct site_ref {
    const esite *s;
    uint32_t idx;
    uint32_t off;
} site_ref;

static int cmp_site(const void *a, const void *b)
{
    const site_ref *x = a, *y = b;
    if (x->off != y->off) return x->off < y->off ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static site_ref *sorted_sites(const emu_machine *M, uint32_t *n)
{
    site_ref *v = calloc(M->nsites + 1, sizeof *v);
    *n = 0;
    if (!v) return NULL;
    for (uint32_t i = 0; i < M->nsites; i++) {
        const esite *s = &M->sites[i];
        const einst *I = &s->f->code[s->pc];
        v[(*n)++] = (site_ref){s, i, s->f->fn->stmts[I->stmt]->loc.off};
    }
    qsort(v, *n, sizeof *v, cmp_site);
    return v;
}

static const ptx_inst *site_inst(const esite *s, ptx_loc *loc)
{
    const einst *I = &s->f->code[s->pc];
    const ptx_stmt *st = s->f->fn->stmts[I->stmt];
    *loc = st->loc;
    return &st->u.inst;
}

static void tid3(const emu_machine *M, uint32_t t, char *buf, size_t n)
{
    if (t == 0xffffffffu) {
        snprintf(buf, n, "several threads");
        return;
    }
    uint32_t bx = M->blockdim.x ? M->blockdim.x : 1, by = M->blockdim.y ? M->blockdim.y : 1;
    snprintf(buf, n, "thread (%u,%u,%u)", t % bx, (t / bx) % by, t / (bx * by));
}

static const char *const hkind[] = {"RAW", "WAR", "WAW"};

void emu_report_text(emu_machine *M, const char *path, const emu_srcmap *sm, FILE *out)
{
    unsigned ck = M->opt.checks;
    uint32_t n;
    site_ref *v = sorted_sites(M, &n);
    if (!v) return;
    char src[300];
    /* the location column is as wide as its longest entry */
    int lw = 8;
    for (uint32_t i = 0; i < n; i++) {
        const esite *st = v[i].s;
        if (!st->g_execs && !st->s_execs) continue;
        ptx_loc loc;
        site_inst(st, &loc);
        char where[300];
        int k = snprintf(where, sizeof where, "%s:%u:%u", path, loc.line, loc.col);
        if (k > lw) lw = k;
    }
    if (ck & EMU_CHECK_COALESCING) {
        fprintf(out, "coalescing: global memory requests per PTX instruction (32-byte sectors and 128-byte lines\n"
                     "touched by the active lanes of one warp request; ideal = fewest sectors the requested bytes fit in;\n"
                     "buffers are 256-byte aligned)\n");
        fprintf(out, "  %-*s %-22s %9s %8s %4s %8s %4s %7s  %s\n", lw, "location", "instruction", "requests", "sect/req",
                "max", "line/req", "max", "ideal", "source");
        unsigned shown = 0;
        for (uint32_t i = 0; i < n; i++) {
            const esite *s = v[i].s;
            if (!s->g_execs) continue;
            ptx_loc loc;
            const ptx_inst *in = site_inst(s, &loc);
            char where[300];
            snprintf(where, sizeof where, "%s:%u:%u", path, loc.line, loc.col);
            source_line(sm, s->f->fn, s->f->code[s->pc].stmt, src, sizeof src);
            fprintf(out, "  %-*s %-22.*s %9llu %8.2f %4u %8.2f %4u %7.2f  %s\n", lw, where, (int)in->opcode_len, in->opcode,
                    (unsigned long long)s->g_execs, (double)s->g_sectors / (double)s->g_execs, s->g_sec_max,
                    (double)s->g_lines / (double)s->g_execs, s->g_line_max, (double)s->g_ideal / (double)s->g_execs, src);
            shown++;
        }
        if (!shown) fprintf(out, "  (no global memory request executed)\n");
    }
    if (ck & EMU_CHECK_BANK) {
        fprintf(out, "bank conflicts: shared memory requests per PTX instruction (32 banks of 4 bytes; lanes reading the\n"
                     "same word share one access; 8-byte accesses in 2 half-warp phases, 16-byte in 4 quarter-warp phases;\n"
                     "ways = distinct words the busiest bank serves in the worst phase)\n");
        fprintf(out, "  %-*s %-22s %9s %8s %4s %10s %7s  %s\n", lw, "location", "instruction", "requests", "ways avg", "max",
                "wavefronts", "ideal", "source");
        unsigned shown = 0;
        for (uint32_t i = 0; i < n; i++) {
            const esite *s = v[i].s;
            if (!s->s_execs) continue;
            ptx_loc loc;
            const ptx_inst *in = site_inst(s, &loc);
            char where[300];
            snprintf(where, sizeof where, "%s:%u:%u", path, loc.line, loc.col);
            source_line(sm, s->f->fn, s->f->code[s->pc].stmt, src, sizeof src);
            fprintf(out, "  %-*s %-22.*s %9llu %8.2f %4u %10llu %7llu  %s\n", lw, where, (int)in->opcode_len, in->opcode,
                    (unsigned long long)s->s_execs, (double)s->s_ways_sum / (double)s->s_execs, s->s_ways_max,
                    (unsigned long long)s->s_wavefronts, (unsigned long long)s->s_ideal, src);
            shown++;
        }
        if (!shown) fprintf(out, "  (no shared memory request executed)\n");
    }
    if (ck & EMU_CHECK_RACE) {
        uint32_t nh = emu_race_n(M);
        fprintf(out, "racecheck: %u shared-memory hazard%s (pairs of accesses by different threads of a block\n"
                     "within one barrier interval; bar.warp.sync orders the lanes of its mask; atomics not checked)\n",
                nh, nh == 1 ? "" : "s");
        for (uint32_t i = 0; i < nh; i++) {
            unsigned kind;
            uint32_t s1, s2, t1, t2;
            uint64_t cnt, off;
            emu_dim3 blk;
            emu_race_get(M, i, &kind, &s1, &s2, &cnt, &blk, &t1, &t2, &off);
            ptx_loc l1, l2;
            const ptx_inst *i1 = site_inst(&M->sites[s1], &l1), *i2 = site_inst(&M->sites[s2], &l2);
            char a[64], b[64];
            tid3(M, t1, a, sizeof a);
            tid3(M, t2, b, sizeof b);
            source_line(sm, M->sites[s2].f->fn, M->sites[s2].f->code[M->sites[s2].pc].stmt, src, sizeof src);
            fprintf(out, "  %s:%u:%u: %s hazard: '%.*s' (line %u) then '%.*s' (line %u), %llu time%s%s%s\n", path,
                    l2.line, l2.col, hkind[kind], (int)i1->opcode_len, i1->opcode, l1.line, (int)i2->opcode_len,
                    i2->opcode, l2.line, (unsigned long long)cnt, cnt == 1 ? "" : "s", src[0] ? ", " : "", src);
            fprintf(out, "      first: block (%u,%u,%u), %s then %s, shared offset 0x%llx\n", blk.x, blk.y, blk.z, a, b,
                    (unsigned long long)off);
        }
        if (emu_race_dropped(M))
            fprintf(out, "  (%llu further hazards between other instruction pairs not listed)\n",
                    (unsigned long long)emu_race_dropped(M));
    }
    if (ck & EMU_CHECK_SYNC) emu_sync_report_text(M, path, sm, out);
    free(v);
}

void *emu_report_json(emu_machine *M, const char *path, const emu_srcmap *sm)
{
    unsigned ck = M->opt.checks;
    json_t *root = json_object();
    uint32_t n;
    site_ref *v = sorted_sites(M, &n);
    char src[300];
    if (ck & (EMU_CHECK_COALESCING | EMU_CHECK_BANK)) {
        json_t *co = json_array(), *bk = json_array();
        for (uint32_t i = 0; v && i < n; i++) {
            const esite *s = v[i].s;
            ptx_loc loc;
            const ptx_inst *in = site_inst(s, &loc);
            source_line(sm, s->f->fn, s->f->code[s->pc].stmt, src, sizeof src);
            if ((ck & EMU_CHECK_COALESCING) && s->g_execs) {
                json_t *o = json_object();
                json_object_set_new(o, "file", json_string(path));
                json_object_set_new(o, "line", json_integer(loc.line));
                json_object_set_new(o, "col", json_integer(loc.col));
                json_object_set_new(o, "instruction", json_stringn(in->opcode, in->opcode_len));
                json_object_set_new(o, "source", json_string(src));
                json_object_set_new(o, "requests", json_integer((json_int_t)s->g_execs));
                json_object_set_new(o, "sectors", json_integer((json_int_t)s->g_sectors));
                json_object_set_new(o, "sectors_max", json_integer(s->g_sec_max));
                json_object_set_new(o, "lines", json_integer((json_int_t)s->g_lines));
                json_object_set_new(o, "lines_max", json_integer(s->g_line_max));
                json_object_set_new(o, "ideal_sectors", json_integer((json_int_t)s->g_ideal));
                json_object_set_new(o, "bytes", json_integer((json_int_t)s->g_bytes));
                json_array_append_new(co, o);
            }
            if ((ck & EMU_CHECK_BANK) && s->s_execs) {
                json_t *o = json_object();
                json_object_set_new(o, "file", json_string(path));
                json_object_set_new(o, "line", json_integer(loc.line));
                json_object_set_new(o, "col", json_integer(loc.col));
                json_object_set_new(o, "instruction", json_stringn(in->opcode, in->opcode_len));
                json_object_set_new(o, "source", json_string(src));
                json_object_set_new(o, "requests", json_integer((json_int_t)s->s_execs));
                json_object_set_new(o, "ways_sum", json_integer((json_int_t)s->s_ways_sum));
                json_object_set_new(o, "ways_max", json_integer(s->s_ways_max));
                json_object_set_new(o, "wavefronts", json_integer((json_int_t)s->s_wavefronts));
                json_object_set_new(o, "ideal_wavefronts", json_integer((json_int_t)s->s_ideal));
                json_array_append_new(bk, o);
            }
        }
        if (ck & EMU_CHECK_COALESCING) json_object_set_new(root, "coalescing", co);
        else json_decref(co);
        if (ck & EMU_CHECK_BANK) json_object_set_new(root, "bank_conflicts", bk);
        else json_decref(bk);
    }
    if (ck & EMU_CHECK_RACE) {
        json_t *hz = json_array();
        for (uint32_t i = 0; i < emu_race_n(M); i++) {
            unsigned kind;
            uint32_t s1, s2, t1, t2;
            uint64_t cnt, off;
            emu_dim3 blk;
            emu_race_get(M, i, &kind, &s1, &s2, &cnt, &blk, &t1, &t2, &off);
            ptx_loc l1, l2;
            const ptx_inst *i1 = site_inst(&M->sites[s1], &l1), *i2 = site_inst(&M->sites[s2], &l2);
            json_t *o = json_object();
            json_object_set_new(o, "kind", json_string(hkind[kind]));
            json_object_set_new(o, "first_line", json_integer(l1.line));
            json_object_set_new(o, "first_instruction", json_stringn(i1->opcode, i1->opcode_len));
            json_object_set_new(o, "second_line", json_integer(l2.line));
            json_object_set_new(o, "second_instruction", json_stringn(i2->opcode, i2->opcode_len));
            json_object_set_new(o, "count", json_integer((json_int_t)cnt));
            json_object_set_new(o, "block", json_pack("[iii]", blk.x, blk.y, blk.z));
            json_object_set_new(o, "first_thread", t1 == 0xffffffffu ? json_null() : json_integer(t1));
            json_object_set_new(o, "second_thread", json_integer(t2));
            json_object_set_new(o, "shared_offset", json_integer((json_int_t)off));
            json_array_append_new(hz, o);
        }
        json_object_set_new(root, "races", hz);
    }
    if (ck & EMU_CHECK_SYNC) json_object_set_new(root, "synccheck", emu_sync_report_json(M, path, sm));
    free(v);
    return root;
}
