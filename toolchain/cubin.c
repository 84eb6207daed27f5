#include "cubin.h"
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(char *err, size_t n, const char *msg, const char *path) {
    snprintf(err, n, "%s: %s", path, msg);
    return -1;
}

int cubin_read_text(const char *path, cubin_text *out, char *err, size_t errn) {
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f) return fail(err, errn, "cannot open", path);
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = len > 0 ? malloc((size_t)len) : NULL;
    if (!buf || fread(buf, 1, (size_t)len, f) != (size_t)len) {
        fclose(f);
        free(buf);
        return fail(err, errn, "cannot read", path);
    }
    fclose(f);
    size_t n = (size_t)len;
    Elf64_Ehdr eh;
    if (n < sizeof eh || memcmp(buf, ELFMAG, SELFMAG) != 0 || buf[EI_CLASS] != ELFCLASS64) {
        free(buf);
        return fail(err, errn, "not a 64-bit ELF file", path);
    }
    memcpy(&eh, buf, sizeof eh);
    if (eh.e_shoff == 0 || eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shoff > n ||
        (n - eh.e_shoff) / sizeof(Elf64_Shdr) < eh.e_shnum || eh.e_shstrndx >= eh.e_shnum) {
        free(buf);
        return fail(err, errn, "malformed ELF section table", path);
    }
    Elf64_Shdr strh;
    memcpy(&strh, buf + eh.e_shoff + (size_t)eh.e_shstrndx * sizeof strh, sizeof strh);
    if (strh.sh_offset > n || strh.sh_size > n - strh.sh_offset) {
        free(buf);
        return fail(err, errn, "malformed ELF string table", path);
    }
    const char *names = (const char *)buf + strh.sh_offset;
    for (unsigned i = 0; i < eh.e_shnum; i++) {
        Elf64_Shdr sh;
        memcpy(&sh, buf + eh.e_shoff + (size_t)i * sizeof sh, sizeof sh);
        if (sh.sh_type != SHT_PROGBITS || sh.sh_name >= strh.sh_size) continue;
        const char *nm = names + sh.sh_name;
        size_t maxlen = strh.sh_size - sh.sh_name;
        if (strnlen(nm, maxlen) == maxlen || strncmp(nm, ".text.", 6) != 0) continue;
        if (sh.sh_offset > n || sh.sh_size > n - sh.sh_offset) {
            free(buf);
            cubin_text_free(out);
            return fail(err, errn, "malformed ELF section", path);
        }
        cubin_section *nv = realloc(out->v, (out->n + 1) * sizeof *nv);
        if (!nv) break;
        out->v = nv;
        cubin_section *s = &out->v[out->n++];
        s->name = strdup(nm);
        s->size = sh.sh_size;
        s->data = malloc(sh.sh_size ? sh.sh_size : 1);
        if (s->data) memcpy(s->data, buf + sh.sh_offset, sh.sh_size);
    }
    free(buf);
    return 0;
}

void cubin_text_free(cubin_text *t) {
    for (size_t i = 0; i < t->n; i++) {
        free(t->v[i].name);
        free(t->v[i].data);
    }
    free(t->v);
    memset(t, 0, sizeof *t);
}

const char *cubin_text_diff(const cubin_text *a, const cubin_text *b) {
    if (a->n != b->n) return "different number of .text sections";
    for (size_t i = 0; i < a->n; i++) {
        const cubin_section *x = &a->v[i], *y = NULL;
        for (size_t k = 0; k < b->n; k++)
            if (!strcmp(b->v[k].name, x->name)) y = &b->v[k];
        if (!y) return x->name;
        if (x->size != y->size || memcmp(x->data, y->data, x->size)) return x->name;
    }
    return NULL;
}
