/* PTX read out of binaries (fatbin/, report/inputs.c, docs/binaries.md):
 * the container walker and the decompression on containers built here
 * byte by byte (each damage with its exact message), and, where nvcc is
 * installed, `ptxray check` on an executable in each compression mode, a
 * shared library, an object and a static archive built from one .cu. */
#include <criterion/criterion.h>
#include <lz4.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>
#include "fatbin.h"
#include "testutil.h"
#include "toolchain.h"

/* ---- containers made by hand ---- */

typedef struct fbuf {
    unsigned char b[1 << 16];
    size_t n;
} fbuf;

static void put(fbuf *f, size_t at, uint64_t v, unsigned bytes)
{
    for (unsigned i = 0; i < bytes; i++) f->b[at + i] = (unsigned char)(v >> (8 * i));
}

/* A container header at the end of f; its size is set by end_container. */
static size_t begin_container(fbuf *f)
{
    size_t at = f->n;
    put(f, at, 0xBA55ED50u, 4);
    put(f, at + 4, 1, 2);
    put(f, at + 6, 16, 2);
    f->n += 16;
    return at;
}
static void end_container(fbuf *f, size_t at) { put(f, at + 8, f->n - at - 16, 8); }

/* An entry with a 64-byte header: payload p (n bytes) padded to 8. */
static void entry(fbuf *f, unsigned kind, unsigned arch, uint64_t flags, uint32_t csize, uint64_t plain,
                  const void *p, size_t n)
{
    size_t at = f->n, padded = (n + 7) & ~(size_t)7;
    memset(f->b + at, 0, 64 + padded);
    put(f, at, kind, 2);
    put(f, at + 2, 0x0101, 2);
    put(f, at + 4, 64, 4);
    put(f, at + 8, padded, 8);
    put(f, at + 0x10, csize, 4);
    put(f, at + 0x18, 0, 2);
    put(f, at + 0x1a, 8, 2);
    put(f, at + 0x1c, arch, 4);
    put(f, at + 0x28, flags | 0x11, 8);
    put(f, at + 0x38, plain, 8);
    memcpy(f->b + at + 64, p, n);
    f->n += 64 + padded;
}

static const char PTX[] = ".version 8.0\n.target sm_80\n.address_size 64\n"
                          ".visible .entry k(.param .u64 p)\n{\n\tret;\n}\n";

typedef struct seen {
    char problems[8][300];
    unsigned np;
    fb_entry e[8];
    char text[8][512];
    char err[8][300];
    unsigned ne;
} seen;

static void on_problem(void *ctx, const char *msg)
{
    seen *s = ctx;
    if (s->np < 8) snprintf(s->problems[s->np++], sizeof s->problems[0], "%s", msg);
}

static void on_entry(void *ctx, const fb_entry *e)
{
    seen *s = ctx;
    if (s->ne >= 8) return;
    unsigned k = s->ne++;
    s->e[k] = *e;
    size_t len;
    char *t = fb_ptx_text(e, &len, s->err[k], sizeof s->err[0]);
    s->text[k][0] = 0;
    if (t) snprintf(s->text[k], sizeof s->text[0], "%s", t);
    free(t);
}

static seen walk(const fbuf *f, fb_stats *st, bool *ok)
{
    seen s;
    memset(&s, 0, sizeof s);
    fb_visit v = {on_entry, on_problem, &s};
    *ok = fb_walk("f.fatbin", f->b, f->n, &v, st);
    return s;
}

Test(fatbin, plain_zstd_and_lz4_entries_read_back)
{
    static fbuf f;
    f.n = 0;
    size_t c = begin_container(&f);
    entry(&f, FB_KIND_ELF, 80, 0, 0, 0, "\177ELF....", 8);
    entry(&f, FB_KIND_PTX, 80, 0, 0, 0, PTX, sizeof PTX - 1); /* plain: NUL padding dropped */
    char z[512], l[512];
    size_t zn = ZSTD_compress(z, sizeof z, PTX, sizeof PTX - 1, 3);
    cr_assert(!ZSTD_isError(zn));
    entry(&f, FB_KIND_PTX, 86, 0x8000, (uint32_t)zn, sizeof PTX - 1, z, zn);
    int ln = LZ4_compress_default(PTX, l, (int)sizeof PTX - 1, (int)sizeof l);
    cr_assert(ln > 0);
    entry(&f, FB_KIND_PTX, 90, 0x2000, (uint32_t)ln, sizeof PTX - 1, l, (size_t)ln);
    end_container(&f, c);
    fb_stats st;
    bool ok;
    seen s = walk(&f, &st, &ok);
    cr_assert(ok);
    cr_expect_eq(s.np, 0, "%s", s.problems[0]);
    cr_expect_eq(st.containers, 1);
    cr_expect_eq(st.entries, 4);
    cr_expect_eq(st.ptx, 3);
    cr_expect_eq(st.elf, 1);
    cr_assert_eq(s.ne, 4);
    static const enum fb_comp comp[] = {FB_PLAIN, FB_PLAIN, FB_ZSTD, FB_LZ4};
    static const unsigned arch[] = {80, 80, 86, 90};
    for (unsigned k = 1; k < 4; k++) {
        cr_expect_eq(s.e[k].comp, comp[k], "entry %u", k);
        cr_expect_eq(s.e[k].arch, arch[k], "entry %u", k);
        cr_expect_eq(s.e[k].index, k + 1);
        cr_expect_str_eq(s.text[k], PTX, "entry %u: %s", k, s.err[k]);
    }
    cr_expect_eq(s.e[3].stored, (uint64_t)ln);
    cr_expect_eq(s.e[3].plain, sizeof PTX - 1);
}

/* Each damage: the message, and the walk still ends. */
Test(fatbin, damaged_containers_and_entries)
{
    static fbuf f;
    fb_stats st;
    bool ok;
    seen s;
    /* a container stating more bytes than the file has */
    f.n = 0;
    size_t c = begin_container(&f);
    entry(&f, FB_KIND_PTX, 80, 0, 0, 0, PTX, sizeof PTX - 1);
    end_container(&f, c);
    put(&f, 8, 4096, 8);
    s = walk(&f, &st, &ok);
    cr_expect_eq(s.np, 1);
    cr_expect_str_eq(s.problems[0], "f.fatbin: container 1 at offset 0: 4096 bytes stated, 152 left in the file");
    cr_expect_eq(s.ne, 0);
    /* a payload running past its container */
    f.n = 0;
    c = begin_container(&f);
    entry(&f, FB_KIND_PTX, 80, 0, 0, 0, PTX, sizeof PTX - 1);
    end_container(&f, c);
    put(&f, 16 + 8, 4096, 8);
    s = walk(&f, &st, &ok);
    cr_expect_str_eq(s.problems[0],
                     "f.fatbin: container 1, entry 1: payload of 4096 bytes runs past the container's end (88 left)");
    /* an entry whose header says 0 bytes: it would never move on */
    put(&f, 16 + 4, 0, 4);
    put(&f, 16 + 8, 112, 8);
    s = walk(&f, &st, &ok);
    cr_expect_str_eq(s.problems[0], "f.fatbin: container 1, entry 1: header of 0 bytes (at least 64, at most the 152 left)");
    /* a header cut short: the container ends 40 bytes into the second entry */
    f.n = 0;
    c = begin_container(&f);
    entry(&f, FB_KIND_PTX, 80, 0, 0, 0, PTX, sizeof PTX - 1);
    memset(f.b + f.n, 0, 40);
    f.n += 40;
    end_container(&f, c);
    s = walk(&f, &st, &ok);
    cr_expect_eq(s.ne, 1);
    cr_expect_str_eq(s.text[0], PTX);
    cr_expect_str_eq(s.problems[0], "f.fatbin: container 1, entry 2: header cut short (40 bytes left of 64)");
    /* not a container where one should start */
    f.n = 0;
    c = begin_container(&f);
    end_container(&f, c);
    memcpy(f.b + f.n, "garbage!garbage!", 16);
    f.n += 16;
    s = walk(&f, &st, &ok);
    cr_expect_str_eq(s.problems[0], "f.fatbin: no fatbin container at offset 16 (16 bytes left)");
}

Test(fatbin, entries_that_do_not_decompress)
{
    static fbuf f;
    fb_stats st;
    bool ok;
    f.n = 0;
    size_t c = begin_container(&f);
    /* marked zstd, but not a frame */
    entry(&f, FB_KIND_PTX, 80, 0x8000, sizeof PTX - 1, sizeof PTX - 1, PTX, sizeof PTX - 1);
    /* an LZ4 block stating a plain size above what it holds */
    char l[512];
    int ln = LZ4_compress_default(PTX, l, (int)sizeof PTX - 1, (int)sizeof l);
    entry(&f, FB_KIND_PTX, 80, 0x2000, (uint32_t)ln, 400, l, (size_t)ln);
    /* not an LZ4 block at all */
    static const char junk[] = "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff";
    entry(&f, FB_KIND_PTX, 80, 0x2000, sizeof junk - 1, 100, junk, sizeof junk - 1);
    /* both flags */
    entry(&f, FB_KIND_PTX, 80, 0xa000, 8, 100, "12345678", 8);
    /* a plain size over the limit */
    entry(&f, FB_KIND_PTX, 80, 0x8000, 8, (uint64_t)1 << 31, "12345678", 8);
    /* a compressed size above the payload's */
    entry(&f, FB_KIND_PTX, 80, 0x8000, 4000, 100, "12345678", 8);
    end_container(&f, c);
    seen s = walk(&f, &st, &ok);
    cr_assert_eq(s.ne, 6);
    cr_expect_str_eq(s.err[0], "marked zstd-compressed, but not a zstd frame");
    cr_expect_str_eq(s.err[1], "decompressed to 87 bytes, not the 400 its header states");
    cr_expect_str_eq(s.err[2], "compressed in a format ptxray cannot read (flags 0x2011: not an LZ4 block)");
    cr_expect_str_eq(s.err[3], "compressed in a format ptxray cannot read (flags 0xa011)");
    cr_expect_str_eq(s.err[4], "states 2147483648 bytes of PTX, over the limit of 1073741824");
    cr_expect_eq(s.np, 1);
    cr_expect_str_eq(s.problems[0],
                     "f.fatbin: container 1, entry 6: compressed size of 4000 bytes is more than its payload (8)");
    cr_expect_str_eq(s.err[5], "marked zstd-compressed, but not a zstd frame");
}

/* The command line: a damaged entry is an error naming it (exit 2), and
 * the good entry beside it is still checked. */
Test(fatbin, check_names_the_bad_entry_and_reads_the_rest)
{
    static fbuf f;
    f.n = 0;
    size_t c = begin_container(&f);
    entry(&f, FB_KIND_PTX, 80, 0x8000, 8, 100, "12345678", 8);
    static const char bad_ptx[] = ".version 8.0\n.target sm_80\n.address_size 64\n"
                                  ".visible .entry k(.param .u64 p)\n{\n\tadd.s32 %r1, 1;\n}\n";
    entry(&f, FB_KIND_PTX, 86, 0, 0, 0, bad_ptx, sizeof bad_ptx - 1);
    end_container(&f, c);
    char path[] = "/tmp/ptxray-fatbin-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    cr_assert_eq(write(fd, f.b, f.n), (ssize_t)f.n);
    close(fd);
    char *out, *err;
    char *argv[] = {(char *)tu_bin(), "check", path, NULL};
    int rc = tu_run(argv, &out, &err);
    char want[1024];
    snprintf(want,
             sizeof want,
             "ptxray check: %s: container 1, entry 1 (PTX for compute_80): marked zstd-compressed, but not a zstd frame\n"
             "ptxray check: warning: %s: PTX built without -lineinfo: findings are placed at PTX lines; build with "
             "nvcc -lineinfo for .cu lines\n"
             "%s[compute_86]:6:10: error: use of undeclared register '%%r1'\n",
             path, path, path);
    cr_expect_eq(rc, 2);
    cr_expect(!strncmp(err, want, strlen(want)), "got:\n%s\nwant:\n%s", err, want);
    free(out);
    free(err);
    unlink(path);
}

/* ---- what nvcc builds ---- */

/* The text of the (last) PTX entry, whole. */
typedef struct grabbed {
    char *text;
    size_t len;
    enum fb_comp comp;
} grabbed;

static void grab_ptx(void *ctx, const fb_entry *e)
{
    grabbed *g = ctx;
    if (e->kind != FB_KIND_PTX) return;
    char err[300];
    free(g->text);
    g->text = fb_ptx_text(e, &g->len, err, sizeof err);
    g->comp = e->comp;
}

static char dir[64];

static int sh(const char *cmd, char **out, char **err)
{
    char full[4096];
    snprintf(full, sizeof full, "cd %s && %s", dir, cmd);
    char *argv[] = {"/bin/sh", "-c", full, NULL};
    return tu_run(argv, out, err);
}

static void build(const char *what)
{
    char *out, *err, cmd[2048];
    snprintf(cmd, sizeof cmd, "%s %s", tc_find_nvcc(), what);
    int rc = sh(cmd, &out, &err);
    cr_assert_eq(rc, 0, "%s: %s", cmd, err);
    free(out);
    free(err);
}

#define ARCH "-gencode arch=compute_80,code=compute_80 -gencode arch=compute_80,code=sm_80"

Test(binaries, check_finds_the_cu_line_in_each_kind_of_binary, .timeout = 300)
{
    if (!tc_find_nvcc()) cr_skip_test("nvcc not found");
    snprintf(dir, sizeof dir, "/tmp/ptxray-bin-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    char cu[512]; /* a copy: tu_src's buffer is its next call's */
    snprintf(cu, sizeof cu, "%s", tu_src("tests/data/binaries/k.cu"));
    char cmd[2048];
    static const char *const modes[] = {"default", "speed", "none"};
    for (int m = 0; m < 3; m++) {
        snprintf(cmd, sizeof cmd, "-lineinfo " ARCH " -compress-mode=%s -o app_%s %s", modes[m], modes[m], cu);
        build(cmd);
    }
    snprintf(cmd, sizeof cmd, "-lineinfo " ARCH " -shared -Xcompiler -fPIC -o libk.so %s", cu);
    build(cmd);
    snprintf(cmd, sizeof cmd, "-lineinfo " ARCH " -c -o k.o %s", cu);
    build(cmd);
    char *out, *err;
    cr_assert_eq(sh("ar rcs libk.a k.o", &out, &err), 0, "%s", err);
    free(out);
    free(err);
    static const char *const files[] = {"app_default", "app_speed", "app_none", "libk.so", "k.o", "libk.a"};
    static const char *const shown[] = {"app_default[compute_80]", "app_speed[compute_80]", "app_none[compute_80]",
                                        "libk.so[compute_80]", "k.o[compute_80]", "libk.a(k.o)[compute_80]"};
    for (int i = 0; i < 6; i++) {
        snprintf(cmd, sizeof cmd, "%s check %s", tu_bin(), files[i]);
        int rc = sh(cmd, &out, &err);
        cr_expect_eq(rc, 1, "%s: %s", files[i], err);
        char want[2048];
        snprintf(want, sizeof want,
                 "%s:7:9: warning: uncoalesced global load: lanes 132 B apart, 32 sectors/request, ideal 4 "
                 "[uncoalesced]\n"
                 "    7 |         out[i] = in[i * 33];\n"
                 "      |         ^\n"
                 "%s:46:1: note: in strided(float*, float const*, int): 1 PTX instruction, 28 excess sectors, cost 28\n",
                 cu, shown[i]);
        cr_expect(!strncmp(out, want, strlen(want)), "%s:\n%s", files[i], out);
        /* what is counted is PTX texts, not files */
        cr_expect(strstr(out, "\nptxray check: 1 PTX text (from a binary), 1 findings (") != NULL, "%s:\n%s", files[i],
                  out);
        cr_expect_str_eq(err, "", "%s", files[i]);
        free(out);
        free(err);
    }
    /* the whole directory: one finding, since the six hold one text */
    snprintf(cmd, sizeof cmd, "%s check --format json .", tu_bin());
    int rc = sh(cmd, &out, &err);
    cr_expect_eq(rc, 1, "%s", err);
    cr_expect(strstr(out, "\"file\": \"./app_default[compute_80]\"") != NULL, "%s", out);
    unsigned nf = 0;
    for (const char *p = out; (p = strstr(p, "\"rule\": \"uncoalesced\"")); p++) nf++;
    cr_expect_eq(nf, 1, "%s", out);
    cr_expect(strstr(out, "\"files\": 1,") && strstr(out, "\"from_binaries\": 1,"), "%s", out);
    free(out);
    free(err);
    /* a binary and a PTX file */
    snprintf(cmd, sizeof cmd, "%s check app_default %s", tu_bin(), tu_src("tests/data/findings/helpers.ptx"));
    sh(cmd, &out, &err);
    cr_expect(strstr(out, "\nptxray check: 2 PTX texts (1 from binaries), ") != NULL, "%s", out);
    free(out);
    free(err);
    /* SASS only: exit 2 and what to add */
    snprintf(cmd, sizeof cmd, "-gencode arch=compute_80,code=sm_80 -o app_sass %s", cu);
    build(cmd);
    snprintf(cmd, sizeof cmd, "%s check app_sass", tu_bin());
    cr_expect_eq(sh(cmd, &out, &err), 2);
    cr_expect(!strncmp(err,
                       "ptxray check: app_sass: no PTX inside: built with code=sm_80 only; add `-gencode "
                       "arch=compute_80,code=compute_80` to ship PTX\n",
                       strlen("ptxray check: app_sass: no PTX inside: built with code=sm_80 only; add `-gencode "
                              "arch=compute_80,code=compute_80` to ship PTX\n")),
              "%s", err);
    free(out);
    free(err);
    /* without -lineinfo: the warning, and findings at PTX lines */
    snprintf(cmd, sizeof cmd, ARCH " -o app_nolines %s", cu);
    build(cmd);
    snprintf(cmd, sizeof cmd, "%s check app_nolines", tu_bin());
    cr_expect_eq(sh(cmd, &out, &err), 1);
    cr_expect_str_eq(err,
                     "ptxray check: warning: app_nolines: PTX built without -lineinfo: findings are placed at PTX "
                     "lines; build with nvcc -lineinfo for .cu lines\n");
    cr_expect(!strncmp(out, "app_nolines[compute_80]:", strlen("app_nolines[compute_80]:")), "%s", out);
    free(out);
    free(err);
    /* one input of several texts: name one */
    snprintf(cmd, sizeof cmd, "-lineinfo -gencode arch=compute_80,code=compute_80 -gencode arch=compute_90,code=compute_90 -o app2 %s", cu);
    build(cmd);
    snprintf(cmd, sizeof cmd, "%s coalescing app2", tu_bin());
    cr_expect_eq(sh(cmd, &out, &err), 2);
    cr_expect_str_eq(err, "ptxray coalescing: app2: holds 2 PTX texts; name one: 'app2[compute_80]', 'app2[compute_90]'\n");
    free(out);
    free(err);
    snprintf(cmd, sizeof cmd, "%s coalescing 'app2[compute_90]'", tu_bin());
    cr_expect_eq(sh(cmd, &out, &err), 0, "%s", err);
    cr_expect(strstr(out, "app2[compute_90]: 2 global accesses, 1 uncoalesced") != NULL, "%s", out);
    free(out);
    free(err);
    /* the PTX read out is cuobjdump's, byte for byte */
    const char *cuobjdump = getenv("CUOBJDUMP");
    char cod[512] = "";
    if (!cuobjdump || !*cuobjdump) {
        snprintf(cod, sizeof cod, "/usr/local/lib/ptxray-cuda-tools/nvidia/cu13/bin/cuobjdump");
        if (access(cod, X_OK)) cod[0] = 0;
        cuobjdump = cod;
    }
    if (*cuobjdump) {
        snprintf(cmd, sizeof cmd, "%s -xptx all app_speed >/dev/null && ls *.ptx", cuobjdump);
        cr_assert_eq(sh(cmd, &out, &err), 0, "%s", err);
        char name[256];
        snprintf(name, sizeof name, "%s/%.*s", dir, (int)strcspn(out, "\n"), out);
        free(out);
        free(err);
        size_t n;
        char *theirs = tu_read(name, &n);
        cr_assert_not_null(theirs);
        char bin[256];
        snprintf(bin, sizeof bin, "%s/app_speed", dir);
        fb_file f;
        cr_assert_eq(fb_map(bin, &f), 0);
        grabbed g = {NULL, 0, 0};
        fb_visit v = {grab_ptx, NULL, &g};
        fb_stats st;
        cr_assert(fb_walk(bin, f.p, f.n, &v, &st));
        fb_unmap(&f);
        cr_assert_eq(st.ptx, 1);
        cr_expect_eq(g.comp, FB_LZ4); /* -compress-mode=speed */
        cr_assert_not_null(g.text);
        cr_expect_eq(g.len, n);
        cr_expect(g.len == n && !memcmp(g.text, theirs, n), "the PTX differs from cuobjdump's %s", name);
        free(g.text);
        free(theirs);
    }
    tu_rm_rf(dir);
}
