/* Device-side printf: nvcc lowers printf to vprintf(format, args) where
 * format is a generic pointer to the string and args points to a local
 * buffer holding the arguments, each aligned to its own size (ints 4 bytes,
 * 64-bit integers, doubles and pointers 8).  The conversion is done with
 * the host's snprintf one directive at a time.  Lines of different threads
 * come out in execution order (lanes of a warp in lane order). */
#include <string.h>
#include "emu_internal.h"

#define MAX_FMT 4096

static bool read_bytes(emu_exec *x, unsigned lane, uint64_t addr, void *dst, unsigned n)
{
    const uint8_t *p = emu_xlate(x, MS_GENERIC, addr, n, lane, false);
    if (!p) return false;
    memcpy(dst, p, n);
    return true;
}

/* A NUL-terminated device string into buf (truncated at n-1). */
static bool read_str(emu_exec *x, unsigned lane, uint64_t addr, char *buf, size_t n)
{
    size_t i = 0;
    for (; i + 1 < n; i++) {
        uint8_t c;
        if (!read_bytes(x, lane, addr + i, &c, 1)) return false;
        buf[i] = (char)c;
        if (!c) return true;
    }
    buf[i] = 0;
    return true;
}

int emu_vprintf(emu_exec *x, unsigned lane, uint64_t fmt_addr, uint64_t args, int32_t *ret)
{
    char fmt[MAX_FMT], out[8192];
    if (!read_str(x, lane, fmt_addr, fmt, sizeof fmt)) return 1;
    size_t o = 0;
    uint64_t ap = args;
    for (const char *p = fmt; *p;) {
        if (*p != '%') {
            if (o + 1 < sizeof out) out[o++] = *p;
            p++;
            continue;
        }
        if (p[1] == '%') {
            if (o + 1 < sizeof out) out[o++] = '%';
            p += 2;
            continue;
        }
        /* one directive: flags, width, precision, length, conversion */
        const char *s = p++;
        while (*p && strchr("-+ #0", *p)) p++;
        while (*p >= '0' && *p <= '9') p++;
        if (*p == '.') {
            p++;
            while (*p >= '0' && *p <= '9') p++;
        }
        int lng = 0;
        while (*p == 'l' || *p == 'h' || *p == 'z' || *p == 'j' || *p == 't' || *p == 'L') {
            if (*p == 'l' || *p == 'z' || *p == 'j' || *p == 't') lng++;
            p++;
        }
        char conv = *p;
        if (!conv) break;
        p++;
        char spec[64];
        size_t sl = (size_t)(p - s);
        if (sl >= sizeof spec - 4) sl = sizeof spec - 4;
        /* rebuild the directive with a length the host understands */
        size_t k = 0;
        for (const char *q = s; q < s + sl - 1; q++)
            if (*q != 'l' && *q != 'h' && *q != 'z' && *q != 'j' && *q != 't' && *q != 'L') spec[k++] = *q;
        char tmp[512];
        int nb = 0;
        switch (conv) {
        case 'd': case 'i': case 'u': case 'x': case 'X': case 'o': case 'c': {
            unsigned sz = lng ? 8 : 4;
            ap = (ap + sz - 1) / sz * sz;
            uint64_t v = 0;
            if (!read_bytes(x, lane, ap, &v, sz)) return 1;
            ap += sz;
            spec[k++] = 'l';
            spec[k++] = 'l';
            spec[k++] = conv;
            spec[k] = 0;
            if (conv == 'd' || conv == 'i')
                nb = snprintf(tmp, sizeof tmp, spec, (long long)(sz == 4 ? (int64_t)(int32_t)v : (int64_t)v));
            else if (conv == 'c') {
                spec[k - 3] = 'c';
                spec[k - 2] = 0;
                nb = snprintf(tmp, sizeof tmp, spec, (int)(uint8_t)v);
            } else
                nb = snprintf(tmp, sizeof tmp, spec, (unsigned long long)(sz == 4 ? (uint32_t)v : v));
            break;
        }
        case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': case 'a': case 'A': {
            ap = (ap + 7) / 8 * 8;
            double v = 0;
            if (!read_bytes(x, lane, ap, &v, 8)) return 1;
            ap += 8;
            spec[k++] = conv;
            spec[k] = 0;
            nb = snprintf(tmp, sizeof tmp, spec, v);
            break;
        }
        case 'p': {
            ap = (ap + 7) / 8 * 8;
            uint64_t v = 0;
            if (!read_bytes(x, lane, ap, &v, 8)) return 1;
            ap += 8;
            nb = snprintf(tmp, sizeof tmp, "0x%llx", (unsigned long long)v);
            break;
        }
        case 's': {
            ap = (ap + 7) / 8 * 8;
            uint64_t v = 0;
            if (!read_bytes(x, lane, ap, &v, 8)) return 1;
            ap += 8;
            char str[1024];
            if (!v) snprintf(str, sizeof str, "(null)");
            else if (!read_str(x, lane, v, str, sizeof str)) return 1;
            spec[k++] = 's';
            spec[k] = 0;
            nb = snprintf(tmp, sizeof tmp, spec, str);
            break;
        }
        default:
            /* unknown directive: print it as written */
            nb = snprintf(tmp, sizeof tmp, "%.*s", (int)(p - s), s);
            break;
        }
        if (nb > 0) {
            size_t c = (size_t)nb < sizeof tmp ? (size_t)nb : sizeof tmp - 1;
            if (o + c >= sizeof out) c = sizeof out - 1 - o;
            memcpy(out + o, tmp, c);
            o += c;
        }
    }
    FILE *f = x->M->opt.printf_out ? x->M->opt.printf_out : stdout;
    fwrite(out, 1, o, f);
    *ret = (int32_t)o;
    return 0;
}
