/* PTX shipped inside binaries (docs/binaries.md): the input layer below the
 * pipeline.  Reads ELF executables, shared libraries and relocatable
 * objects (libelf), ar archives of them, and raw fatbin files, and walks
 * every fatbin container they hold: each entry with its kind (PTX or
 * ELF/SASS), architecture, compression and sizes, and the PTX text of a
 * PTX entry decompressed (zstd: libzstd; LZ4 blocks: liblz4; or stored
 * plain).  Knows nothing of PTX itself: the text goes to ptxparse like a
 * file's.
 *
 * The container format is NVIDIA's and undocumented; docs/binaries.md
 * gives the fields this reader relies on, each measured on nvcc 13 output
 * and checked against cuobjdump.  Every size in it is checked against the
 * bytes that hold it, so a corrupt binary gives a message, never a read
 * out of bounds. */
#ifndef PTXRAY_FATBIN_H
#define PTXRAY_FATBIN_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a file holds, by its first bytes (never by its name). */
enum fb_format { FB_TEXT, FB_ELF, FB_AR, FB_FATBIN };
enum fb_format fb_detect(const void *p, size_t n);

enum { FB_KIND_PTX = 1, FB_KIND_ELF = 2 };
enum fb_comp { FB_PLAIN, FB_ZSTD, FB_LZ4, FB_UNKNOWN };
const char *fb_comp_name(enum fb_comp c);

/* A decompressed PTX entry larger than this is refused (the PTX reader
 * takes at most 4 GiB; no real entry comes near). */
#define FB_MAX_PLAIN ((uint64_t)1 << 30)

typedef struct fb_entry {
    const char *member;   /* the archive member ("k.o"), NULL outside an archive */
    const char *section;  /* the ELF section (".nv_fatbin"), NULL in a raw fatbin */
    uint64_t at;          /* the entry's offset in the file (in the member, for archives) */
    unsigned container;   /* 1, 2, ... in the file (in the member) */
    unsigned index;       /* 1, 2, ... in its container */
    unsigned kind;        /* FB_KIND_PTX, FB_KIND_ELF, or another the format has */
    unsigned arch;        /* 80: compute_80 for PTX, sm_80 for ELF */
    unsigned major, minor;/* PTX: the ISA version; ELF: the code version */
    uint64_t flags;
    enum fb_comp comp;
    uint64_t stored;      /* bytes in the container */
    uint64_t plain;       /* bytes once decompressed (the stored size when plain) */
    const char *name;     /* the source file the header names ("k.cu"), or "" */
    const char *options;  /* the ptxas options it carries (" --generate-line-info "), or "" */
    const unsigned char *data; /* the stored bytes */
} fb_entry;

typedef struct fb_visit {
    /* every entry, in file order */
    void (*entry)(void *ctx, const fb_entry *e);
    /* a container or entry that cannot be read: the message names the
     * file, the member, the container and the entry; the walk goes on
     * with the next container */
    void (*problem)(void *ctx, const char *msg);
    void *ctx;
} fb_visit;

typedef struct fb_stats {
    unsigned containers, entries, ptx, elf, problems;
} fb_stats;

/* Walks every fatbin container of the binary image data (n bytes, file
 * `path` for messages); st counts what it found.  Returns false (with a
 * problem reported) when the file itself cannot be read as its format. */
bool fb_walk(const char *path, const void *data, size_t n, const fb_visit *v, fb_stats *st);

/* The PTX text of a PTX entry, decompressed and without its trailing NUL
 * padding: malloc'd, NUL-terminated, length in *len.  NULL with a message
 * in err (what is wrong with the entry, not where: the caller names it). */
char *fb_ptx_text(const fb_entry *e, size_t *len, char *err, size_t errn);

/* "libk.a(k.o)", "app": where an entry is, for messages and origins. */
void fb_where(const char *path, const fb_entry *e, char *out, size_t n);

/* A file mapped read-only (or read, where it cannot be mapped). */
typedef struct fb_file {
    const unsigned char *p;
    size_t n;
    bool mapped;
} fb_file;
/* 0, or errno. */
int fb_map(const char *path, fb_file *f);
void fb_unmap(fb_file *f);

#endif
