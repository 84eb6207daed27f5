/* --coalescing and --bankcheck: per-request statistics of every global and
 * shared access instruction.
 *
 * Coalescing (GPUDrano section 5): a warp request touches the distinct
 * 32-byte sectors and 128-byte lines its active lanes address; ideal is
 * the fewest sectors the requested bytes could occupy.
 *
 * Banks: 32 banks of 4 bytes; lanes reading the same word share one access
 * (broadcast); the conflict degree ("ways") of a request is the largest
 * number of distinct words one bank must deliver.  Accesses wider than 4
 * bytes are served in phases, as on recent NVIDIA GPUs: 8-byte accesses in
 * two half-warps, 16-byte accesses in four quarter-warps; the request's
 * degree is that of its worst phase and its wavefronts the sum over
 * phases. */
#include <stdlib.h>
#include "emu_internal.h"

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static unsigned distinct(uint64_t *v, unsigned n)
{
    if (n < 2) return n;
    qsort(v, n, sizeof *v, cmp_u64);
    unsigned d = 1;
    for (unsigned i = 1; i < n; i++)
        if (v[i] != v[i - 1]) d++;
    return d;
}

void emu_check_global(emu_exec *x, const einst *I, const uint64_t *addr, uint32_t m, unsigned bytes)
{
    if (I->site == EMU_NONE || !m) return;
    esite *s = &x->M->sites[I->site];
    uint64_t sec[64], lin[64];
    unsigned ns = 0, nl = 0;
    FOR_LANES(m, l, {
        uint64_t a = addr[l], e = a + (bytes ? bytes - 1 : 0);
        sec[ns++] = a >> 5;
        if ((e >> 5) != (a >> 5) && ns < 64) sec[ns++] = e >> 5;
        lin[nl++] = a >> 7;
        if ((e >> 7) != (a >> 7) && nl < 64) lin[nl++] = e >> 7;
    });
    unsigned ds = distinct(sec, ns), dl = distinct(lin, nl);
    uint64_t req = (uint64_t)popc32(m) * bytes;
    /* ideal: the distinct bytes asked for, packed into whole sectors */
    uint64_t ua[32];
    unsigned nu = 0;
    FOR_LANES(m, l, ua[nu++] = addr[l]);
    uint64_t uniq = (uint64_t)distinct(ua, nu) * bytes;
    s->g_execs++;
    s->g_sectors += ds;
    s->g_lines += dl;
    s->g_bytes += req;
    s->g_ideal += (uniq + 31) / 32;
    if (ds > s->g_sec_max) s->g_sec_max = ds;
    if (dl > s->g_line_max) s->g_line_max = dl;
}

static void bank_check(emu_exec *x, const einst *I, const uint64_t *addr, uint32_t m, unsigned bytes)
{
    esite *s = &x->M->sites[I->site];
    unsigned phases = bytes <= 4 ? 1 : bytes <= 8 ? 2 : 4;
    unsigned per = 32 / phases;
    unsigned worst = 0, wave = 0, ideal = 0;
    for (unsigned ph = 0; ph < phases; ph++) {
        uint32_t pm = m & (per == 32 ? FULL_MASK : ((1u << per) - 1) << (ph * per));
        if (!pm) continue;
        uint64_t words[128];
        unsigned n = 0;
        FOR_LANES(pm, l, {
            uint64_t w0 = addr[l] >> 2, w1 = (addr[l] + (bytes ? bytes - 1 : 0)) >> 2;
            for (uint64_t w = w0; w <= w1 && n < 128; w++) words[n++] = w;
        });
        qsort(words, n, sizeof *words, cmp_u64);
        unsigned cnt[32] = {0}, ways = 0;
        for (unsigned i = 0; i < n; i++) {
            if (i && words[i] == words[i - 1]) continue; /* same word: broadcast */
            unsigned b = (unsigned)(words[i] & 31);
            if (++cnt[b] > ways) ways = cnt[b];
        }
        if (ways > worst) worst = ways;
        wave += ways;
        ideal++;
    }
    s->s_execs++;
    s->s_ways_sum += worst;
    s->s_wavefronts += wave;
    s->s_ideal += ideal;
    if (worst > s->s_ways_max) s->s_ways_max = worst;
}

void emu_check_shared(emu_exec *x, const einst *I, const uint64_t *addr, uint32_t m, unsigned bytes, bool write,
                      bool atomic)
{
    if (I->site == EMU_NONE || !m) return;
    if (x->M->opt.checks & EMU_CHECK_BANK) bank_check(x, I, addr, m, bytes);
    if ((x->M->opt.checks & EMU_CHECK_RACE) && !atomic) emu_race_access(x, I, addr, m, bytes, write);
}
