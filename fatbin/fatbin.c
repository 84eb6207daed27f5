/* The fatbin reader (fatbin.h, docs/binaries.md). */
#include "fatbin.h"
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <lz4.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#define FB_MAGIC 0xBA55ED50u
#define FB_HEADER 16u      /* the container's header */
#define FB_ENTRY_MIN 64u   /* an entry's header, at least */
/* entry flags: how the payload is stored (measured: -compress-mode=default
 * and size set 0x8000 with a zstd frame; speed sets 0x2000 with an LZ4
 * block; none sets neither) */
#define FB_FLAG_ZSTD 0x8000u
#define FB_FLAG_LZ4 0x2000u

/* Little-endian reads at any alignment (the format is little-endian). */
static uint16_t rd16(const unsigned char *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t rd32(const unsigned char *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static uint64_t rd64(const unsigned char *p) { return rd32(p) | (uint64_t)rd32(p + 4) << 32; }

enum fb_format fb_detect(const void *v, size_t n)
{
    const unsigned char *p = v;
    if (n >= 4 && !memcmp(p, "\177ELF", 4)) return FB_ELF;
    if (n >= 8 && !memcmp(p, "!<arch>\n", 8)) return FB_AR;
    if (n >= 4 && rd32(p) == FB_MAGIC) return FB_FATBIN;
    return FB_TEXT;
}

const char *fb_comp_name(enum fb_comp c)
{
    static const char *const names[] = {"none", "zstd", "lz4", "unknown"};
    return names[c];
}

typedef struct walker {
    const char *path;
    const fb_visit *v;
    fb_stats *st;
    const char *member;
} walker;

static void problem(walker *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void problem(walker *w, const char *fmt, ...)
{
    char msg[512];
    int k = w->member ? snprintf(msg, sizeof msg, "%s(%s): ", w->path, w->member)
                      : snprintf(msg, sizeof msg, "%s: ", w->path);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg + k, sizeof msg - (size_t)k, fmt, ap);
    va_end(ap);
    w->st->problems++;
    if (w->v->problem) w->v->problem(w->v->ctx, msg);
}

/* A string of the entry header (name, options): [off, off + len) inside
 * the header's hs bytes, cut at its first NUL, trailing blanks dropped. */
static void header_string(const unsigned char *e, uint32_t hs, uint32_t off, uint32_t len, char *out, size_t n)
{
    out[0] = 0;
    if (off < FB_ENTRY_MIN || off > hs || len > hs - off) return;
    size_t k = 0;
    while (k < len && k + 1 < n && e[off + k]) {
        out[k] = (char)e[off + k];
        k++;
    }
    while (k && (out[k - 1] == ' ' || out[k - 1] == '\t')) k--;
    out[k] = 0;
}

/* The entries of one container, its payload [p, p + n) at file offset at. */
static void walk_entries(walker *w, const unsigned char *p, uint64_t n, uint64_t at, unsigned container,
                         const char *section)
{
    uint64_t o = 0;
    for (unsigned idx = 1; o < n; idx++) {
        const unsigned char *e = p + o;
        uint64_t left = n - o;
        if (left < FB_ENTRY_MIN) {
            problem(w, "container %u, entry %u: header cut short (%llu bytes left of %u)", container, idx,
                    (unsigned long long)left, FB_ENTRY_MIN);
            return;
        }
        uint32_t hs = rd32(e + 4);
        uint64_t psz = rd64(e + 8);
        if (hs < FB_ENTRY_MIN || hs > left) {
            problem(w, "container %u, entry %u: header of %u bytes (at least %u, at most the %llu left)", container,
                    idx, hs, FB_ENTRY_MIN, (unsigned long long)left);
            return;
        }
        if (psz > left - hs) {
            problem(w, "container %u, entry %u: payload of %llu bytes runs past the container's end (%llu left)",
                    container, idx, (unsigned long long)psz, (unsigned long long)(left - hs));
            return;
        }
        char name[256], opts[512];
        fb_entry x = {.member = w->member, .section = section, .at = at + o, .container = container, .index = idx};
        x.kind = rd16(e);
        x.minor = rd16(e + 0x18);
        x.major = rd16(e + 0x1a);
        x.arch = rd32(e + 0x1c);
        x.flags = rd64(e + 0x28);
        header_string(e, hs, rd32(e + 0x20), rd32(e + 0x24), name, sizeof name);
        uint32_t od = rd32(e + 0x14); /* where the options' offset and length are, when there are some */
        opts[0] = 0;
        if (od >= FB_ENTRY_MIN && od <= hs && hs - od >= 8)
            header_string(e, hs, rd32(e + od), rd32(e + od + 4), opts, sizeof opts);
        x.name = name;
        x.options = opts;
        x.data = e + hs;
        bool zstd = x.flags & FB_FLAG_ZSTD, lz4 = x.flags & FB_FLAG_LZ4;
        x.comp = zstd && lz4 ? FB_UNKNOWN : zstd ? FB_ZSTD : lz4 ? FB_LZ4 : FB_PLAIN;
        if (x.comp == FB_PLAIN) x.stored = x.plain = psz;
        else {
            x.stored = rd32(e + 0x10);
            x.plain = rd64(e + 0x38);
            if (x.stored > psz) {
                problem(w, "container %u, entry %u: compressed size of %llu bytes is more than its payload (%llu)",
                        container, idx, (unsigned long long)x.stored, (unsigned long long)psz);
                x.stored = psz;
            }
        }
        w->st->entries++;
        if (x.kind == FB_KIND_PTX) w->st->ptx++;
        else if (x.kind == FB_KIND_ELF) w->st->elf++;
        if (w->v->entry) w->v->entry(w->v->ctx, &x);
        o += hs + psz;
    }
}

/* Every container in [p, p + n) (a section, a raw fatbin), at file offset
 * at: back to back, each 16 + its size; zero padding between them is
 * skipped. */
static void walk_containers(walker *w, const unsigned char *p, size_t n, uint64_t at, const char *section)
{
    size_t o = 0;
    while (o + FB_HEADER <= n) {
        if (rd32(p + o) != FB_MAGIC) {
            size_t z = o;
            while (z < n && !p[z]) z++;
            if (z == n) return; /* padding to the end */
            z = (z + 7) & ~(size_t)7;
            if (z + FB_HEADER <= n && rd32(p + z) == FB_MAGIC) {
                o = z;
                continue;
            }
            problem(w, "%s%s%sno fatbin container at offset %llu (%zu bytes left)", section ? "section " : "",
                    section ? section : "", section ? ": " : "", (unsigned long long)(at + o), n - o);
            return;
        }
        unsigned c = ++w->st->containers;
        uint16_t version = rd16(p + o + 4), hs = rd16(p + o + 6);
        uint64_t size = rd64(p + o + 8);
        if (version != 1 || hs < FB_HEADER || hs > n - o) {
            problem(w, "container %u at offset %llu: version %u with a header of %u bytes (expected version 1, 16 "
                    "bytes)",
                    c, (unsigned long long)(at + o), version, hs);
            return;
        }
        if (size > n - o - hs) {
            problem(w, "container %u at offset %llu: %llu bytes stated, %llu left in the %s", c,
                    (unsigned long long)(at + o), (unsigned long long)size, (unsigned long long)(n - o - hs),
                    section ? "section" : "file");
            return;
        }
        walk_entries(w, p + o + hs, size, at + o + hs, c, section);
        o += hs + size;
    }
}

static bool walk_elf(walker *w, const unsigned char *p, size_t n)
{
    Elf *e = elf_memory((char *)p, n);
    size_t shstrndx;
    if (!e || elf_kind(e) != ELF_K_ELF || elf_getshdrstrndx(e, &shstrndx)) {
        problem(w, "not a readable ELF file (%s)", elf_errmsg(-1));
        if (e) elf_end(e);
        return false;
    }
    for (Elf_Scn *s = elf_nextscn(e, NULL); s; s = elf_nextscn(e, s)) {
        GElf_Shdr sh;
        if (!gelf_getshdr(s, &sh) || sh.sh_type == SHT_NOBITS || sh.sh_size < FB_HEADER) continue;
        if (sh.sh_offset > n || sh.sh_size > n - sh.sh_offset) continue; /* not in the file: not ours to judge */
        const unsigned char *q = p + sh.sh_offset;
        if (rd32(q) != FB_MAGIC) continue;
        const char *name = elf_strptr(e, shstrndx, sh.sh_name);
        walk_containers(w, q, (size_t)sh.sh_size, sh.sh_offset, name ? name : "?");
    }
    elf_end(e);
    return true;
}

static bool walk_ar(walker *w, const unsigned char *p, size_t n)
{
    Elf *a = elf_memory((char *)p, n);
    if (!a || elf_kind(a) != ELF_K_AR) {
        problem(w, "not a readable ar archive (%s)", elf_errmsg(-1));
        if (a) elf_end(a);
        return false;
    }
    Elf_Cmd cmd = ELF_C_READ_MMAP; /* the command elf_memory's descriptor takes (elfutils) */
    Elf *m;
    while ((m = elf_begin(-1, cmd, a))) {
        Elf_Arhdr *h = elf_getarhdr(m);
        size_t sz = 0;
        const unsigned char *raw = (const unsigned char *)elf_rawfile(m, &sz);
        if (h && h->ar_name && h->ar_name[0] != '/' && raw) { /* "/", "//": the symbol and name tables */
            walker mw = *w;
            mw.member = h->ar_name;
            enum fb_format f = fb_detect(raw, sz);
            if (f == FB_ELF) walk_elf(&mw, raw, sz);
            else if (f == FB_FATBIN) walk_containers(&mw, raw, sz, 0, NULL);
        }
        cmd = elf_next(m);
        elf_end(m);
    }
    elf_end(a);
    return true;
}

bool fb_walk(const char *path, const void *data, size_t n, const fb_visit *v, fb_stats *st)
{
    static bool init;
    if (!init) {
        elf_version(EV_CURRENT);
        init = true;
    }
    memset(st, 0, sizeof *st);
    walker w = {path, v, st, NULL};
    switch (fb_detect(data, n)) {
    case FB_ELF: return walk_elf(&w, data, n);
    case FB_AR: return walk_ar(&w, data, n);
    case FB_FATBIN: walk_containers(&w, data, n, 0, NULL); return true;
    default: problem(&w, "not an ELF file, an ar archive or a fatbin"); return false;
    }
}

static char *fail(char *err, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static char *fail(char *err, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
    return NULL;
}

char *fb_ptx_text(const fb_entry *e, size_t *len, char *err, size_t errn)
{
    if (e->comp == FB_UNKNOWN)
        return fail(err, errn, "compressed in a format ptxray cannot read (flags 0x%llx)",
                    (unsigned long long)e->flags);
    if (e->plain > FB_MAX_PLAIN)
        return fail(err, errn, "states %llu bytes of PTX, over the limit of %llu", (unsigned long long)e->plain,
                    (unsigned long long)FB_MAX_PLAIN);
    if (e->comp != FB_PLAIN && !e->plain) return fail(err, errn, "compressed, but states no plain size");
    char *buf = malloc((size_t)e->plain + 1);
    if (!buf) return fail(err, errn, "out of memory for %llu bytes", (unsigned long long)e->plain);
    size_t got = (size_t)e->plain;
    if (e->comp == FB_PLAIN) memcpy(buf, e->data, got);
    else if (e->comp == FB_ZSTD) {
        if (e->stored < 4 || rd32(e->data) != 0xFD2FB528u) {
            free(buf);
            return fail(err, errn, "marked zstd-compressed, but not a zstd frame");
        }
        size_t r = ZSTD_decompress(buf, got, e->data, (size_t)e->stored);
        if (ZSTD_isError(r)) {
            free(buf);
            return fail(err, errn, "zstd: %s", ZSTD_getErrorName(r));
        }
        got = r;
    } else {
        if (e->stored > INT_MAX || e->plain > INT_MAX) {
            free(buf);
            return fail(err, errn, "LZ4 block over 2 GiB");
        }
        int r = LZ4_decompress_safe((const char *)e->data, buf, (int)e->stored, (int)e->plain);
        if (r < 0) {
            free(buf);
            return fail(err, errn, "compressed in a format ptxray cannot read (flags 0x%llx: not an LZ4 block)",
                        (unsigned long long)e->flags);
        }
        got = (size_t)r;
    }
    if (got != e->plain) {
        free(buf);
        return fail(err, errn, "decompressed to %zu bytes, not the %llu its header states", got,
                    (unsigned long long)e->plain);
    }
    while (got && !buf[got - 1]) got--; /* the payload's padding */
    buf[got] = 0;
    *len = got;
    return buf;
}

void fb_where(const char *path, const fb_entry *e, char *out, size_t n)
{
    if (e->member) snprintf(out, n, "%s(%s)", path, e->member);
    else snprintf(out, n, "%s", path);
}

int fb_map(const char *path, fb_file *f)
{
    *f = (fb_file){NULL, 0, false};
    int fd = open(path, O_RDONLY);
    if (fd < 0) return errno;
    struct stat st;
    if (fstat(fd, &st)) {
        int e = errno;
        close(fd);
        return e;
    }
    if (S_ISREG(st.st_mode) && st.st_size > 0) {
        void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p != MAP_FAILED) {
            close(fd);
            *f = (fb_file){p, (size_t)st.st_size, true};
            return 0;
        }
    }
    /* not mappable (a pipe, an empty file): read it */
    size_t cap = 1 << 16, n = 0;
    unsigned char *buf = malloc(cap);
    if (!buf) abort();
    for (;;) {
        if (n == cap) {
            unsigned char *nb = realloc(buf, cap *= 2);
            if (!nb) abort();
            buf = nb;
        }
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0) {
            int e = errno;
            free(buf);
            close(fd);
            return e;
        }
        if (!r) break;
        n += (size_t)r;
    }
    close(fd);
    *f = (fb_file){buf, n, false};
    return 0;
}

void fb_unmap(fb_file *f)
{
    if (f->mapped) munmap((void *)f->p, f->n);
    else free((void *)f->p);
    *f = (fb_file){NULL, 0, false};
}
