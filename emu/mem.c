/* Emulated memory: global segments, and address translation for every
 * state space with bounds and alignment checks.
 *
 * Global buffers are placed at 256-byte aligned addresses from GLOBAL_BASE
 * with at least 4 KiB of unmapped space between them, so an overrun reads
 * nothing and faults.  Shared, local, constant and kernel-parameter
 * addresses are offsets in their space; a generic address carries its space
 * in bits 40..47 (see emu_internal.h). */
#include <stdlib.h>
#include <string.h>
#include "emu_internal.h"

#define SEG_GAP 4096u
#define MAX_GLOBAL_BYTES (1ull << 36)

gseg *emu_seg_new(emu_machine *M, size_t bytes, size_t align, const char *name, size_t namelen)
{
    if (bytes == 0 || bytes > MAX_GLOBAL_BYTES) return NULL;
    if (align < 256) align = 256;
    if (align & (align - 1)) align = 256;
    uint64_t base = (M->next_addr + align - 1) / align * align;
    if (base + bytes >= WIN_BASE(WIN_FUNC)) return NULL;
    uint8_t *data = calloc(1, bytes);
    if (!data) return NULL;
    if (M->nsegs == M->segcap) {
        uint32_t nc = M->segcap ? M->segcap * 2 : 16;
        gseg *ns = realloc(M->segs, nc * sizeof *ns);
        if (!ns) { free(data); return NULL; }
        M->segs = ns;
        M->segcap = nc;
        M->last_seg = NULL;
    }
    gseg *g = &M->segs[M->nsegs++];
    g->base = base;
    g->size = bytes;
    g->data = data;
    g->name = malloc(namelen + 1);
    if (g->name) {
        memcpy(g->name, name ? name : "", name ? namelen : 0);
        g->name[name ? namelen : 0] = 0;
    }
    M->next_addr = base + bytes + SEG_GAP;
    return g;
}

const gseg *emu_seg_find(emu_machine *M, uint64_t addr)
{
    const gseg *c = M->last_seg;
    if (c && addr - c->base < c->size) return c;
    uint32_t lo = 0, hi = M->nsegs;
    while (lo < hi) { /* segments are created in address order */
        uint32_t mid = (lo + hi) / 2;
        if (M->segs[mid].base <= addr) lo = mid + 1;
        else hi = mid;
    }
    if (lo == 0) return NULL;
    c = &M->segs[lo - 1];
    if (addr - c->base < c->size) {
        M->last_seg = c;
        return c;
    }
    return NULL;
}

uint64_t emu_malloc(emu_machine *M, size_t bytes, const char *name)
{
    gseg *g = emu_seg_new(M, bytes, 256, name, name ? strlen(name) : 0);
    return g ? g->base : 0;
}

void *emu_host(emu_machine *M, uint64_t addr, size_t bytes)
{
    const gseg *g = emu_seg_find(M, addr);
    if (!g || bytes > g->size - (addr - g->base)) return NULL;
    return g->data + (addr - g->base);
}

unsigned emu_generic_space(uint64_t addr)
{
    switch (addr >> WIN_SHIFT) {
    case WIN_SHARED: return MS_SHARED;
    case WIN_LOCAL: return MS_LOCAL;
    case WIN_CONST: return MS_CONST;
    case WIN_PARAM: return MS_PARAM_K;
    default: return MS_GLOBAL;
    }
}

static const char *space_word(unsigned sp)
{
    static const char *const w[] = {"generic", ".global", ".shared", ".local", ".const", ".param"};
    return sp < MS__COUNT ? w[sp] : "?";
}

/* Says which buffer is nearest to a bad global address, so an off-by-one
 * reads as one. */
static void describe_near(emu_machine *M, uint64_t addr, char *buf, size_t n)
{
    const gseg *best = NULL;
    uint64_t bestd = UINT64_MAX;
    for (uint32_t i = 0; i < M->nsegs; i++) {
        const gseg *g = &M->segs[i];
        uint64_t d = addr < g->base ? g->base - addr : addr - (g->base + g->size) + 1;
        if (addr >= g->base && addr < g->base + g->size) d = 0;
        if (d < bestd) { bestd = d; best = g; }
    }
    if (!best || bestd > (1u << 20)) { buf[0] = 0; return; }
    snprintf(buf, n, "; nearest buffer '%s' is [0x%llx, 0x%llx)", best->name ? best->name : "",
             (unsigned long long)best->base, (unsigned long long)(best->base + best->size));
}

uint8_t *emu_xlate(emu_exec *x, unsigned space, uint64_t addr, unsigned bytes, unsigned lane, bool write)
{
    emu_machine *M = x->M;
    const char *what = write ? "store" : "load";
    unsigned sp = space;
    uint64_t a = addr;
    if (sp == MS_GENERIC) {
        sp = emu_generic_space(addr);
        if (sp != MS_GLOBAL) a = addr - WIN_BASE(addr >> WIN_SHIFT);
    }
    /* natural alignment of the whole access (vectors included), as the
     * hardware requires */
    unsigned al = bytes > 16 ? 16 : bytes;
    if (al & (al - 1)) al = 1;
    if (a & (al - 1)) {
        emu_fault_lane(x, lane, "misaligned %s %s of %u bytes at 0x%llx (must be %u-byte aligned)",
                       space_word(sp), what, bytes, (unsigned long long)addr, al);
        return NULL;
    }
    switch (sp) {
    case MS_GLOBAL: {
        const gseg *g = M->last_seg;
        if (!(g && a - g->base < g->size && bytes <= g->size - (a - g->base))) {
            g = emu_seg_find(M, a);
            if (!g || bytes > g->size - (a - g->base)) {
                char nb[200];
                describe_near(M, a, nb, sizeof nb);
                emu_fault_lane(x, lane, "out-of-bounds .global %s of %u bytes at 0x%llx%s", what, bytes,
                               (unsigned long long)addr, nb);
                return NULL;
            }
        }
        return g->data + (a - g->base);
    }
    case MS_SHARED:
        if (a >= M->shared_total || bytes > M->shared_total - a) {
            emu_fault_lane(x, lane,
                           "out-of-bounds .shared %s of %u bytes at shared offset 0x%llx (the block has %u bytes of "
                           "shared memory)",
                           what, bytes, (unsigned long long)a, M->shared_total);
            return NULL;
        }
        return x->b->shared + a;
    case MS_LOCAL: {
        warp *w = x->w;
        if (a >= w->local_cap || bytes > w->local_cap - a) {
            emu_fault_lane(x, lane, "out-of-bounds .local %s of %u bytes at local offset 0x%llx (frame top 0x%x)",
                           what, bytes, (unsigned long long)a, w->sp[lane]);
            return NULL;
        }
        return w->local + (size_t)lane * w->local_cap + a;
    }
    case MS_CONST:
        if (write) {
            emu_fault_lane(x, lane, "store to constant memory at 0x%llx", (unsigned long long)addr);
            return NULL;
        }
        if (a >= M->cbank_size || bytes > M->cbank_size - a) {
            emu_fault_lane(x, lane, "out-of-bounds .const load of %u bytes at 0x%llx (constant bank of %u bytes)",
                           bytes, (unsigned long long)a, M->cbank_size);
            return NULL;
        }
        return M->cbank + a;
    case MS_PARAM_K:
        if (write) {
            emu_fault_lane(x, lane, "store to a kernel parameter at 0x%llx", (unsigned long long)addr);
            return NULL;
        }
        if (a >= M->params_size || bytes > M->params_size - a) {
            emu_fault_lane(x, lane, "out-of-bounds .param load of %u bytes at offset 0x%llx (%u bytes of parameters)",
                           bytes, (unsigned long long)a, M->params_size);
            return NULL;
        }
        return M->params + a;
    }
    emu_fault_lane(x, lane, "access to an unknown state space");
    return NULL;
}

/* Makes room for bytes more local memory per lane: lanes are laid out
 * lane-major, so growing re-spreads them. */
bool emu_local_reserve(emu_machine *M, warp *w, uint32_t bytes)
{
    if (bytes <= w->local_cap) return true;
    uint32_t limit = M->opt.local_bytes ? M->opt.local_bytes : EMU_DEFAULT_LOCAL;
    if (bytes > limit) return false;
    uint32_t nc = w->local_cap ? w->local_cap : 256;
    while (nc < bytes) nc *= 2;
    if (nc > limit) nc = limit;
    uint8_t *nl = calloc(32, nc);
    if (!nl) return false;
    for (unsigned l = 0; l < 32 && w->local; l++)
        memcpy(nl + (size_t)l * nc, w->local + (size_t)l * w->local_cap, w->local_cap);
    free(w->local);
    w->local = nl;
    w->local_cap = nc;
    return true;
}
