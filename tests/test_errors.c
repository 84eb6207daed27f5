/* Malformed input and robustness.
 *
 * 1. A table of broken PTX inputs.  Each row is a small complete file with
 *    one thing (or, for the error-recovery rows, two or three independent
 *    things) broken, and the position and wording of every error it must
 *    produce.  Every position was counted by hand from the input: it points
 *    at the offending token, not at whatever the tool happened to print.
 *    Each row is checked through ptx_parse_string (NULL, the exact
 *    line:col, a substring of the message, the exact number of errors) and
 *    through the real binary, `ptxray print FILE -o OUT`: exit status 2,
 *    "FILE:LINE:COL: error:", the source line and a caret under the column,
 *    and OUT (and no temporary next to it) left behind.
 *
 * 2. Robustness: CRLF line endings, a truncated corpus file, 1 MB lines,
 *    8 MB of random bytes, whitespace-only input, 10,000-deep scopes, a very
 *    long expression, too many errors, and a big generated file (20 MB by
 *    default, 200 MB with PTXRAY_BIG=1; ASan makes the 200 MB run slow).
 *
 * Known parser problems.  A row or check whose correct answer the parser
 * does not give yet carries a KNOWN_* flag and an `issue` text: the correct
 * expectation is still written down, and is checked "softly" (a warning in
 * the log, and an info line once it passes so the flag can be dropped).
 * PTXRAY_STRICT=1 turns every soft check into a failure.  Most problems
 * this table found (wrong positions, duplicate errors, EOF positions, a
 * stack overflow) are fixed; the rows still flagged are top-level recovery
 * cascades (ISSUE_TOPLEVEL_RECOVERY). */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <criterion/parameterized.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ptx.h"

/* ---------------------------------------------------------------------------
 * helpers
 * ------------------------------------------------------------------------- */

static void *xmalloc(size_t n)
{
    void *p = malloc(n);
    if (!p) {
        fputs("test_errors: out of memory\n", stderr);
        abort();
    }
    return p;
}

static int strict(void)
{
    const char *s = getenv("PTXRAY_STRICT");
    return s && *s == '1';
}

/* A check the parser is known to fail today: a warning (or, with
 * PTXRAY_STRICT=1, a failure); an info line once it passes. */
static void soft_check(int ok, const char *issue, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void soft_check(int ok, const char *issue, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (ok)
        cr_log_info("known issue now fixed (drop its KNOWN flag): %s [%s]", issue, buf);
    else if (strict())
        cr_expect(0, "known issue: %s: %s", issue, buf);
    else
        cr_log_warn("known issue: %s: %s", issue, buf);
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static char *tmpdir_new(void)
{
    const char *base = getenv("TMPDIR");
    char tmpl[512];
    snprintf(tmpl, sizeof tmpl, "%s/ptxray-errors-XXXXXX", base && *base ? base : "/tmp");
    char *d = mkdtemp(tmpl);
    cr_assert_not_null(d, "mkdtemp: %s", strerror(errno));
    return strdup(d);
}

static void tmpdir_remove(char *dir)
{
    if (!dir)
        return;
    DIR *dp = opendir(dir);
    if (dp) {
        struct dirent *e;
        char p[1024];
        while ((e = readdir(dp))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            unlink(p);
        }
        closedir(dp);
    }
    rmdir(dir);
    free(dir);
}

/* Number of entries in dir other than . and .. */
static int dir_entries(const char *dir)
{
    DIR *dp = opendir(dir);
    int n = 0;
    if (!dp)
        return -1;
    struct dirent *e;
    while ((e = readdir(dp)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            n++;
    closedir(dp);
    return n;
}

static void write_file(const char *path, const char *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "cannot create %s: %s", path, strerror(errno));
    cr_assert_eq(fwrite(data, 1, len, f), len);
    cr_assert_eq(fclose(f), 0);
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap + 1); /* NULL handled */
    size_t r;
    while (buf && (r = fread(buf + n, 1, cap - n, f)) > 0) {
        n += r;
        if (n == cap) {
            char *nb = realloc(buf, cap * 2 + 1);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    fclose(f);
    if (buf)
        buf[n] = 0;
    if (len)
        *len = n;
    return buf;
}

static const char *ptxray_bin(void)
{
    const char *b = getenv("PTXRAY_BIN");
    return b && *b ? b : "bin/ptxray";
}

static const char *src_root(void)
{
    const char *s = getenv("PTXRAY_SRC");
    return s && *s ? s : ".";
}

typedef struct {
    int exited, status, signaled, sig;
    char *out, *err; /* stdout, stderr (NUL-terminated, malloc'd) */
    size_t outlen, errlen;
    double secs;
} cli_result;

static void cli_free(cli_result *r)
{
    free(r->out);
    free(r->err);
    memset(r, 0, sizeof *r);
}

/* Runs ptxray with args (NULL-terminated, without argv[0]); stdout and
 * stderr go to files in dir (named so that they do not collide with the
 * files the test looks for).  A run longer than limit_s is killed: a hang. */
static cli_result run_ptxray(const char *dir, const char *const *args, unsigned limit_s)
{
    char outp[1024], errp[1024];
    snprintf(outp, sizeof outp, "%s/.stdout", dir);
    snprintf(errp, sizeof errp, "%s/.stderr", dir);
    const char *argv[16];
    int n = 0;
    argv[n++] = ptxray_bin();
    for (; args[n - 1] && n < 15; n++)
        argv[n] = args[n - 1];
    argv[n] = NULL;
    double t0 = now_s();
    pid_t pid = fork();
    cr_assert(pid >= 0, "fork: %s", strerror(errno));
    if (pid == 0) {
        int in = open("/dev/null", O_RDONLY);
        int o = open(outp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int e = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (in < 0 || o < 0 || e < 0)
            _exit(126);
        dup2(in, 0);
        dup2(o, 1);
        dup2(e, 2);
        alarm(limit_s); /* survives exec: SIGALRM ends a hang */
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    cli_result r;
    memset(&r, 0, sizeof r);
    r.secs = now_s() - t0;
    r.exited = WIFEXITED(st);
    r.status = r.exited ? WEXITSTATUS(st) : -1;
    r.signaled = WIFSIGNALED(st);
    r.sig = r.signaled ? WTERMSIG(st) : 0;
    r.out = read_file(outp, &r.outlen);
    r.err = read_file(errp, &r.errlen);
    unlink(outp);
    unlink(errp);
    cr_assert(r.status != 127 && r.status != 126, "cannot run %s (exit %d; set PTXRAY_BIN)", argv[0],
              r.status);
    if (!r.out)
        r.out = strdup("");
    if (!r.err)
        r.err = strdup("");
    return r;
}

/* Writes data to a new temporary directory as `name` and runs
 * `ptxray print <it> -o <dir>/out.ptx` there. */
typedef struct {
    char *dir;
    char in[1024], out[1024];
    cli_result r;
} print_run;

static print_run print_file(const char *name, const char *data, size_t len, unsigned limit_s) {
    print_run p;
    p.dir = tmpdir_new();
    snprintf(p.in, sizeof p.in, "%s/%s", p.dir, name);
    snprintf(p.out, sizeof p.out, "%s/out.ptx", p.dir);
    write_file(p.in, data, len);
    const char *args[] = {"print", p.in, "-o", p.out, NULL};
    p.r = run_ptxray(p.dir, args, limit_s);
    return p;
}

static size_t count_substr(const char *hay, const char *needle)
{
    size_t n = 0, k = strlen(needle);
    for (const char *p = hay; (p = strstr(p, needle)); p += k)
        n++;
    return n;
}

/* Indices of the errors (not warnings) in d; returns how many. */
static uint32_t error_indices(const ptx_diags *d, uint32_t *idx, uint32_t cap)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < d->n; i++)
        if (d->v[i].severity == PTX_DIAG_ERROR && k < cap)
            idx[k++] = i;
    return k;
}

/* Line `line` (1-based) of text, without its '\n' and a '\r' before it, as
 * the diagnostic printer shows it: tabs kept, other non-printables as '?'. */
static char *source_line(const char *text, size_t len, uint32_t line)
{
    const char *p = text, *e = text + len;
    for (uint32_t l = 1; l < line && p < e; p++)
        if (*p == '\n')
            l++;
    const char *q = p;
    while (q < e && *q != '\n')
        q++;
    if (q > p && q[-1] == '\r')
        q--;
    char *s = xmalloc((size_t)(q - p) + 1);
    size_t n = 0;
    for (const char *c = p; c < q; c++)
        s[n++] = (*c == '\t' || (*c >= 32 && *c < 127)) ? *c : '?';
    s[n] = 0;
    return s;
}

/* The caret line the printer writes under a short source line. */
static char *caret_line(const char *srcline, uint32_t col)
{
    size_t n = strlen(srcline);
    char *s = xmalloc(n + 8);
    size_t k = 0;
    s[k++] = ' ';
    for (uint32_t i = 0; i + 1 < col && i < n; i++)
        s[k++] = srcline[i] == '\t' ? '\t' : ' ';
    s[k++] = '^';
    s[k++] = '\n';
    s[k] = 0;
    return s;
}

/* ---------------------------------------------------------------------------
 * the malformed-input table
 * ------------------------------------------------------------------------- */

/* Valid skeleton.  With K(body), body starts on line 11. */
#define HDR ".version 8.0\n.target sm_80\n.address_size 64\n\n"
#define KHEAD                                                                            \
    ".visible .entry k(\n\t.param .u64 p\n)\n{\n\t.reg .b32 %r<4>;\n\t.reg .pred %p<2>;\n"
#define KTAIL "\tret;\n}\n"
#define K(body) HDR KHEAD body KTAIL
/* The skeleton without .version (lines shift up by one). */
#define HDR_NOVER ".target sm_80\n.address_size 64\n\n"

enum {
    KNOWN_POS = 1,   /* the first error's line:col is wrong today */
    KNOWN_MSG = 2,   /* its wording is wrong today */
    KNOWN_COUNT = 4, /* extra (cascade or duplicate) errors today */
    NO_SRC = 8,      /* no source line to show (empty file) */
};

typedef struct {
    uint32_t line, col;
} pos;

typedef struct {
    const char *name;
    const char *text;
    size_t len;       /* 0: strlen(text); set for inputs holding NUL bytes */
    uint32_t line, col; /* the first error */
    const char *msg;  /* substring of the first error's message */
    uint32_t nerr;    /* exact number of errors; 0 means 1 */
    pos more[3];      /* positions of errors 2..nerr, in order */
    unsigned flags;
    const char *msg_ok; /* KNOWN_MSG: the substring the message should have */
    const char *issue;  /* what is wrong today (KNOWN_* rows) */
} err_case;

#define NUL_TEXT1 ".version 8.0\n.target sm_80\n.ad\0\0\0dress_size 64\n\n" KHEAD KTAIL
#define X64 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
#define X4K X64 X64 X64 X64 X64 X64 X64 X64 X64 X64 X64 X64 X64 X64 X64 X64 \
            X64 X64 X64 X64 X64 X64 X64 X64 X64 X64 X64 X64 X64 X64 X64 X64 \
            X64 X64 X64 X64 X64 X64 X64 X64 X64 X64 X64 X64 X64 X64 X64 X64 \
            X64 X64 X64 X64 X64 X64 X64 X64 X64 X64 X64 X64 X64 X64 X64 X64
/* A NUL after the first 4 KB (past the up-front binary check): line 11 is a
 * 4 KB comment, the NUL follows the ';' on line 12. */
#define NUL_TEXT2 HDR KHEAD "// " X4K "\n\tmov.u32 %r1, 1;\0\n" KTAIL

/* Rows give name, text, len, line, col, msg positionally and the rest only
 * when needed. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
static const err_case cases[] = {
    /* ---- syntax ---- */
    {"missing_semicolon", K("\tmov.u32 %r1, 1\n\tadd.u32 %r1, %r1, 1;\n"), 0,
     12, 2, "unexpected instruction 'add.u32', expected ';'"},
    {"unexpected_comma", K("\tmov.u32 %r1, , 1;\n"), 0, 11, 15, "unexpected ','"},
    {"unexpected_comma_tabs", K("\tmov.u32\t%r1,\t,1;\n"), 0, 11, 15, "unexpected ','"},
    {"missing_comma", K("\tadd.u32 %r1, %r1 2;\n"), 0, 11, 19, "unexpected integer '2'"},
    {"missing_comma_register", K("\tmov.u32 %r1 %r2;\n"), 0, 11, 14, "unexpected register '%r2'"},
    {"stray_close_brace", K("") "}\n", 0, 13, 1, "unexpected '}'"},
    {"unclosed_address", K("\tld.global.u32 %r1, [%r2;\n"), 0, 11, 25, "unexpected ';', expected ']'"},
    {"unclosed_vector", K("\tmov.b64 %r1, {%r2, %r3;\n"), 0, 11, 24, "unexpected ';', expected '}'"},
    {"string_operand", K("\tld.global.u32 %r1, \"x\";\n"), 0, 11, 21, "unexpected string"},
    {"func_inside_body", K("\t.func g()\n"), 0, 11, 2, "unexpected .func"},
    {"missing_close_paren", HDR ".visible .entry k(\n\t.param .u64 p\n{\n\tret;\n}\n", 0,
     7, 1, "unexpected '{', expected ')'"},
    {"entry_without_name", HDR ".visible .entry (\n\t.param .u64 p\n)\n{\n\tret;\n}\n", 0, 8, 1,
     "unexpected '{', expected identifier"},
    {"octal_with_digit_9", K("\tmov.u32 %r1, 09;\n"), 0, 11, 15, "invalid digit in octal literal '09'"},
    /* an address's offset is an integer literal too (ptxas 13.0: "syntax error") */
    {"address_offset_octal_with_digit_9", K("\tld.global.u32 %r1, [%rd2+09];\n"), 0, 11, 27,
     "invalid digit in octal literal '09'"},
    {"errors_in_source_order", K("\tbra $nowhere;\nL1:\nL1:\n"), 0, 11, 6, "use of undeclared identifier '$nowhere'",
     2, {{13, 1}}},
    {"recovery_after_missing_semicolon", K("\tmov.u32 %r1, 1\n\t@%p1 bra L1;\n\tadd.s32 %r2, %r9, 1;\n"), 0, 12, 2,
     "unexpected '@', expected ';'", 2, {{13, 15}}},
    {"eof_in_body", HDR KHEAD "\tmov.u32 %r1, 1;\n\tret;\n", 0, 12, 6, "unexpected end of file"},
    {"eof_in_body_no_newline", HDR KHEAD "\tmov.u32 %r1, 1;\n\tret;", 0, 12, 6,
     "unexpected end of file"},
    {"eof_in_nested_scope", K("\t{\n\tmov.u32 %r1, 1;\n"), 0, 14, 2, "unexpected end of file"},

    /* ---- lexical ---- */
    {"unterminated_string", K("\t.pragma \"nounroll;\n"), 0, 11, 10, "missing terminating '\"' character"},
    {"unterminated_comment", K("\tmov.u32 %r1, 1; /* oops\n"), 0, 11, 18, "unterminated /* comment"},
    {"invalid_character", K("\tmov.u32 %r1, 1 # 2;\n"), 0, 11, 17, "unexpected character '#'"},
    /* prefixes of the lexer's rich tokens that are not tokens: flex does not
     * back up, a rule of their own puts back what the token would not take */
    {"address_with_register_offset", K("\tld.global.u32 %r1, [%r2+%r3];\n"), 0, 11, 26, "unexpected register '%r3'"},
    {"register_run_dot_no_component", K("\tadd.s32 %r1, %r2, %r3.;\n"), 0, 11, 23, "unexpected character '.'"},
    {"register_dot_no_component", K("\tmov.u32 %r1, %r2.;\n"), 0, 11, 18, "unexpected character '.'"},
    {"loc_two_numbers", K("\t.loc 1 2 ret;\n"), 0, 11, 11, "unexpected identifier 'ret', expected integer"},
    {"opcode_trailing_dot", K("\tld.global. %r1, [%r2];\n"), 0, 11, 11, "unexpected character '.'"},
    {"shared_space_prefix", K("\t.shared::clu .b8 x[4];\n"), 0, 11, 9, "unexpected ':'"},
    {"float_exponent_without_digits", K("\tmov.f32 %r1, 1.5e;\n"), 0, 11, 18, "unexpected identifier 'e', expected ';'"},
    {"version_like_trailing_dot", K("\tmov.u32 %r1, 8.0.;\n"), 0, 11, 18, "unexpected character '.'"},
    {"number_exponent_sign_only", K("\tmov.u32 %r1, 12e+;\n"), 0, 11, 15, "invalid number '12e'"},
    /* (a '\' just before a line's end would do too, but not with CRLF, where it escapes the CR) */
    {"string_backslash_at_eof", HDR ".pragma \"ab\\", 0, 5, 9, "missing terminating '\"' character",
     2, {{5, 12}}},
    {"hex_float_7_digits", K("\tmov.b32 %r1, 0f3F80000;\n"), 0, 11, 15,
     "malformed hexadecimal float literal '0f3F80000'"},
    {"hex_float_9_digits", K("\tmov.b32 %r1, 0f3F8000000;\n"), 0, 11, 15,
     "malformed hexadecimal float literal '0f3F8000000'"},
    {"hex_double_15_digits", K("\tmov.b32 %r1, 0d3FF00000000000;\n"), 0, 11, 15,
     "malformed hexadecimal float literal '0d3FF00000000000'"},
    {"invalid_number", K("\tmov.u32 %r1, 12ab;\n"), 0, 11, 15, "invalid number '12ab'"},
    {"integer_too_large", K("\tmov.u32 %r1, 123456789012345678901234;\n"), 0, 11, 15,
     "integer literal '123456789012345678901234' does not fit in 64 bits"},
    {"high_bytes", K("\t\xff\xfe\x80 mov.u32 %r1, 1;\n"), 0, 11, 2, "invalid characters in input (0xff"},
    {"nul_bytes", NUL_TEXT1, sizeof NUL_TEXT1 - 1, 3, 4, "NUL byte in input"},
    {"nul_after_4k", NUL_TEXT2, sizeof NUL_TEXT2 - 1, 12, 17, "NUL byte in input"},
    {"empty_file", "", 0, 1, 1, "empty input", .flags = NO_SRC},

    /* ---- registers, labels, symbols ---- */
    {"undeclared_register", K("\tmov.u32 %r4, 1;\n"), 0, 11, 10, "use of undeclared register '%r4'"},
    {"undeclared_special_register", K("\tmov.u32 %r1, %tidx;\n"), 0, 11, 15,
     "use of undeclared register '%tidx'"},
    {"undeclared_label", K("\tbra $L_nowhere;\n"), 0, 11, 6, "use of undeclared identifier '$L_nowhere'"},
    {"undeclared_identifier_expr", K("\tmov.u32 %r1, nosuch + 4;\n"), 0, 11, 15,
     "use of undeclared identifier 'nosuch'"},
    {"undeclared_identifier_address", K("\tld.global.u32 %r1, [nosuch+4];\n"), 0, 11, 22,
     "use of undeclared identifier 'nosuch'"},
    {"redefined_label", K("L1:\n\tmov.u32 %r1, 1;\nL1:\n"), 0, 13, 1, "redefinition of label 'L1'"},
    /* a label defined twice after a variable of its name: the second is a
     * redefinition of a label too, in a body with { } blocks or without
     * (before issue 34 the body without blocks said only the first two) */
    {"redefined_label_after_variable", K("\t.shared .b32 X;\nX:\nX:\n"), 0, 12, 1,
     "redeclaration of 'X' in the same scope: already declared as a variable", 3, {{13, 1}, {13, 1}}},
    {"redeclared_register", K("\t.reg .b32 %x;\n\t.reg .b32 %x;\n"), 0, 12, 12, "redeclaration of register '%x'"},
    {"redeclared_register_range", K("\t.reg .b32 %r<8>;\n"), 0, 11, 12,
     "redeclaration of register range '%r<8>'"},
    {"guard_not_pred", K("\t@%r1 bra L1;\nL1:\n"), 0, 11, 3, "guard '%r1' is not a .pred register"},
    {"guard_undeclared", K("\t@!%q bra L1;\nL1:\n"), 0, 11, 4, "use of undeclared predicate '%q' as guard"},
    /* a .target list over two lines: the unknown one at its own line and column */
    {"unknown_target_on_next_line", ".version 8.0\n.target sm_80,\n  sm_99\n.address_size 64\n\n" KHEAD KTAIL, 0, 3, 3,
     "unknown target 'sm_99'"},
    {"redefined_global", HDR ".global .u32 g;\n.global .u32 g;\n" KHEAD KTAIL, 0, 6, 14, "redefinition of 'g'"},
    {"function_redefinition", HDR ".func f()\n{\n\tret;\n}\n.func f()\n{\n\tret;\n}\n", 0, 9, 7,
     "redefinition of function 'f'"},
    {"unknown_function_in_expr", K("\tmov.u32 %r1, foo(4);\n"), 0, 11, 15, "unknown function 'foo'"},
    {"address_offset_not_constant", K("\tld.global.u32 %r1, [%r2+x];\n"), 0, 11, 26,
     "address offset must be an integer constant"},
    {"offset_in_multi_element_address", K("\tld.global.u32 %r1, [%r2+4, %r3];\n"), 0, 11, 22,
     "an offset is only allowed in a single-element address"},

    /* ".loc F L C" is one token whose numbers the lexer reads; one of more
     * than 9 digits, or with a leading 0, makes it ".loc" and three integer
     * tokens: the builder says which is too big, the lexer that "09" is no
     * octal number (ptxas 13.0: "syntax error") */
    {"loc_line_past_32_bits", K("\t.loc 1 99999999999 0\n"), 0, 11, 2,
     ".loc line '99999999999' is out of range (maximum 4294967295)"},
    {"loc_column_past_32_bits", K("\t.loc\t1 0000000000005 4294967296\n"), 0, 11, 2,
     ".loc column '4294967296' is out of range (maximum 4294967295)"},
    {"loc_line_not_octal", K("\t.loc 1 09 5\n"), 0, 11, 9, "invalid digit in octal literal '09'"},

    /* ---- declarations ---- */
    {"unknown_type_b33", K("\t.reg .b33 %q;\n"), 0, 11, 7, "unknown type or directive '.b33'"},
    {"two_state_spaces", K("\t.reg .local .b32 %q;\n"), 0, 11, 7, "more than one state space"},
    {"two_types", K("\t.reg .b32 .f32 %q;\n"), 0, 11, 12, "more than one type"},
    {"no_state_space", K("\t.b32 %q;\n"), 0, 11, 7, "declaration of '%q' has no state space"},
    {"align_not_power_of_two", K("\t.local .align 3 .b8 buf[16];\n"), 0, 11, 16,
     ".align must be a power of two, not 3"},
    {"register_range_zero", K("\t.reg .b32 %q<0>;\n"), 0, 11, 15, "declares no register"},
    {"register_range_too_large", K("\t.reg .b32 %q<99999999>;\n"), 0, 11, 15,
     "register count '99999999' is out of range"},
    {"range_on_non_register", K("\t.local .b32 q<4>;\n"), 0, 11, 14, "only .reg declarations can use"},
    {"array_size_zero", HDR ".global .u8 a[0];\n" KHEAD KTAIL, 0, 5, 15, "array size must be positive"},
    {"reg_at_module_scope", HDR ".reg .b32 %g;\n" KHEAD KTAIL, 0, 5, 11,
     ".reg variables can only be declared inside a function"},
    {"param_at_module_scope", HDR ".param .u32 x;\n" KHEAD KTAIL, 0, 5, 13,
     ".param variables can only be declared inside a function"},
    {"linkage_in_body", K("\t.visible .global .u32 gg;\n"), 0, 11, 2,
     "linkage directives are not allowed inside a function body"},

    /* ---- functions ---- */
    {"entry_with_return_params",
     HDR ".visible .entry (.param .b32 r) k(\n\t.param .u64 p\n)\n{\n\tret;\n}\n", 0, 5, 17,
     "a .entry function cannot return values"},
    {"duplicate_parameter", HDR ".visible .entry k(\n\t.param .u64 p,\n\t.param .u64 p\n)\n{\n\tret;\n}\n", 0,
     7, 14, "duplicate parameter name 'p'"},
    {"kernel_reg_parameter", HDR ".visible .entry k(\n\t.reg .u64 p\n)\n{\n\tret;\n}\n", 0, 6, 12,
     "kernel parameter 'p' must be in the .param state space"},
    {"callprototype_named", K("p1: .callprototype (.param .b32 r) f (.param .b32 a);\n"), 0, 11, 36,
     "written with '_' in place of the function name"},

    /* ---- module directives ---- */
    {"missing_version", HDR_NOVER KHEAD KTAIL, 0, 1, 1, "PTX must begin with a .version directive"},
    {"version_not_first", ".target sm_80\n.version 8.0\n.address_size 64\n\n" KHEAD KTAIL, 0, 1, 1,
     "PTX must begin with a .version directive", 2, {{2, 1}}},
    {"duplicate_version", ".version 8.0\n" HDR KHEAD KTAIL, 0, 2, 1, "duplicate .version directive"},
    {"malformed_version_integer", ".version 8\n" HDR_NOVER KHEAD KTAIL, 0, 1, 10, "malformed .version '8'"},
    {"malformed_version_three_parts", ".version 8.0.1\n" HDR_NOVER KHEAD KTAIL, 0, 1, 10,
     "malformed .version '8.0.1'"},
    {"missing_target", ".version 8.0\n.address_size 64\n\n" KHEAD KTAIL, 0, 1, 1, "missing .target directive"},
    {"bad_address_size", ".version 8.0\n.target sm_80\n.address_size 48\n\n" KHEAD KTAIL, 0, 3, 15,
     ".address_size must be 32 or 64, not 48"},
    {"unknown_loc_attribute", HDR ".file 1 \"a.cu\"\n" KHEAD "\t.loc 1 2 3, foo bar\n" KTAIL, 0, 12, 14,
     "unknown .loc attribute 'foo'"},
    {"unterminated_section", K("") ".section .debug_info\n{\n.b8 1\n", 0, 14, 1,
     "unterminated .section block: missing '}'"},

    /* Open: a syntax error in a module-level directive makes top-level
     * recovery skip to the first ';' inside the next kernel's body, so its
     * .reg lines, its 'ret' and its '}' are reported as spurious errors. */
#define ISSUE_TOPLEVEL_RECOVERY                                                               \
    "top-level recovery after a syntax error in a module directive skips to the first ';' "   \
    "inside the next function body: spurious errors for its .reg, 'ret' and '}'"
    {"version_not_a_number", ".version abc\n" HDR_NOVER KHEAD KTAIL, 0, 1, 10,
     "unexpected identifier 'abc'", .flags = KNOWN_COUNT, .issue = ISSUE_TOPLEVEL_RECOVERY},
    {"target_without_name", ".version 8.0\n.target\n.address_size 64\n\n" KHEAD KTAIL, 0, 3, 1,
     "unexpected .address_size, expected identifier", .flags = KNOWN_COUNT,
     .issue = ISSUE_TOPLEVEL_RECOVERY},
    {"label_at_module_scope", HDR "L1:\n" KHEAD KTAIL, 0, 5, 1, "unexpected identifier 'L1'",
     .flags = KNOWN_COUNT, .issue = ISSUE_TOPLEVEL_RECOVERY},
    {"unterminated_string_module_scope", HDR ".pragma \"nounroll;\n" KHEAD KTAIL, 0, 5, 9,
     "missing terminating '\"' character", .flags = KNOWN_COUNT, .issue = ISSUE_TOPLEVEL_RECOVERY},

    /* ---- error recovery: several independent errors in one run ---- */
    {"recovery_three_errors", K("\tmov.u32 %r4, 1;\n\tadd.u32 %r1, %r1 2;\n\t@%r1 bra $L;\n$L:\n"), 0,
     11, 10, "use of undeclared register '%r4'", 3, {{12, 19}, {13, 3}}},
    {"recovery_three_lexical", K("\tmov.u32 %r1, 12ab;\n\tmov.b32 %r1, 0f123;\n\tmov.u32 %r1, 1 # 2;\n"), 0,
     11, 15, "invalid number '12ab'", 3, {{12, 15}, {13, 17}}},
    {"recovery_across_functions",
     HDR ".global .u8 a[0];\n.func f()\n{\n\tmov.u32 %q, 1;\n\tret;\n}\n"
         ".visible .entry k()\n{\n\t.reg .b32 %r<2>;\n\tmov.u32 %r1, , 1;\n\tret;\n}\n",
     0, 5, 15, "array size must be positive", 3, {{8, 10}, {14, 15}}},
    {"recovery_two_undeclared_labels", K("\tbra $nowhere;\n\tbra $gone;\n"), 0, 11, 6,
     "use of undeclared identifier '$nowhere'", 2, {{12, 6}}},
};
#pragma GCC diagnostic pop

#define NCASES (sizeof cases / sizeof cases[0])

Test(errors, table_size)
{
    cr_assert_geq(NCASES, 40, "the malformed-input table must have at least 40 rows, has %zu",
                  (size_t)NCASES);
    size_t multi = 0;
    for (size_t i = 0; i < NCASES; i++)
        if (cases[i].nerr > 1)
            multi++;
    cr_assert_geq(multi, 3);
}

static size_t case_len(const err_case *c) { return c->len ? c->len : strlen(c->text); }

/* Parses a row through the library and checks every expectation. */
static void check_api(const err_case *c, const char *text, size_t len, const char *what)
{
    ptx_diags d;
    ptx_diags_init(&d);
    ptx_module *m = ptx_parse_string("t.ptx", text, len, &d);
    cr_expect_null(m, "%s%s: parsed without error", c->name, what);
    if (m)
        ptx_module_free(m);
    uint32_t idx[64];
    uint32_t ne = error_indices(&d, idx, 64);
    cr_assert_geq(ne, 1, "%s%s: no error reported", c->name, what);
    cr_expect_eq(ne, d.nerrors);
    const ptx_diag *g = &d.v[idx[0]];
    uint32_t want_n = c->nerr ? c->nerr : 1;

    int pos_ok = g->loc.line == c->line && g->loc.col == c->col;
    if (c->flags & KNOWN_POS)
        soft_check(pos_ok, c->issue, "%s%s: first error at %u:%u, want %u:%u", c->name, what,
                   g->loc.line, g->loc.col, c->line, c->col);
    else
        cr_expect(pos_ok, "%s%s: first error at %u:%u (\"%s\"), want %u:%u", c->name, what,
                  g->loc.line, g->loc.col, g->msg, c->line, c->col);

    if (c->flags & KNOWN_MSG) {
        soft_check(strstr(g->msg, c->msg_ok) != NULL, c->issue, "%s%s: message \"%s\", want \"%s\"",
                   c->name, what, g->msg, c->msg_ok);
        if (!(c->flags & KNOWN_POS) && strcmp(c->msg, c->msg_ok))
            cr_expect(strstr(g->msg, c->msg) != NULL, "%s%s: message \"%s\" lacks \"%s\"", c->name,
                      what, g->msg, c->msg);
    } else {
        cr_expect(strstr(g->msg, c->msg) != NULL, "%s%s: message \"%s\" lacks \"%s\"", c->name, what,
                  g->msg, c->msg);
    }

    if (c->flags & KNOWN_COUNT)
        soft_check(ne == want_n, c->issue, "%s%s: %u errors, want %u", c->name, what, ne, want_n);
    else
        cr_expect_eq(ne, want_n, "%s%s: %u errors, want %u (second: %u:%u %s)", c->name, what, ne,
                     want_n, ne > 1 ? d.v[idx[1]].loc.line : 0, ne > 1 ? d.v[idx[1]].loc.col : 0,
                     ne > 1 ? d.v[idx[1]].msg : "");
    for (uint32_t k = 1; k < want_n && k < ne && !(c->flags & KNOWN_COUNT); k++) {
        const ptx_diag *h = &d.v[idx[k]];
        cr_expect(h->loc.line == c->more[k - 1].line && h->loc.col == c->more[k - 1].col,
                  "%s%s: error %u at %u:%u (\"%s\"), want %u:%u", c->name, what, k + 1, h->loc.line,
                  h->loc.col, h->msg, c->more[k - 1].line, c->more[k - 1].col);
    }
    cr_expect_eq(d.truncated, 0);
    ptx_diags_free(&d);
}

/* Runs `ptxray print FILE -o OUT` on a row. */
static void check_cli(const err_case *c, const char *dir)
{
    char in[1024], out[1024];
    snprintf(in, sizeof in, "%s/%s.ptx", dir, c->name);
    snprintf(out, sizeof out, "%s/out.ptx", dir);
    size_t len = case_len(c);
    write_file(in, c->text, len);
    const char *args[] = {"print", in, "-o", out, NULL};
    cli_result r = run_ptxray(dir, args, 60);
    cr_expect(!r.signaled, "%s: ptxray killed by signal %d", c->name, r.sig);
    cr_expect_eq(r.status, 2, "%s: exit status %d, want 2; stderr:\n%s", c->name, r.status, r.err);
    cr_expect_neq(access(out, F_OK), 0, "%s: %s was written despite the error", c->name, out);
    cr_expect_eq(dir_entries(dir), 1, "%s: files left next to the output (temporary not removed?)",
                 c->name);
    cr_expect_eq(r.outlen, 0, "%s: something was written to stdout", c->name);

    /* the first error's header, source line and caret */
    char head[1200];
    snprintf(head, sizeof head, "%s:%u:%u: error: ", in, c->line, c->col);
    int head_ok = strstr(r.err, head) != NULL;
    int src_ok = 1, caret_ok = 1;
    if (!(c->flags & NO_SRC)) {
        char *sl = source_line(c->text, len, c->line);
        size_t n = strlen(sl);
        char *want = xmalloc(n + 4);
        snprintf(want, n + 4, " %s\n", sl);
        src_ok = strstr(r.err, want) != NULL;
        char *car = caret_line(sl, c->col);
        caret_ok = strstr(r.err, car) != NULL;
        free(want);
        free(car);
        free(sl);
    }
    if (c->flags & KNOWN_POS) {
        soft_check(head_ok && src_ok && caret_ok, c->issue, "%s: stderr lacks \"%s\" with its caret",
                   c->name, head);
    } else {
        cr_expect(head_ok, "%s: stderr lacks \"%s\":\n%s", c->name, head, r.err);
        cr_expect(src_ok, "%s: stderr lacks the source line %u:\n%s", c->name, c->line, r.err);
        cr_expect(caret_ok, "%s: stderr lacks a caret under column %u:\n%s", c->name, c->col, r.err);
    }
    /* every error is printed, each with its position */
    uint32_t want_n = c->nerr ? c->nerr : 1;
    if (!(c->flags & KNOWN_COUNT)) {
        cr_expect_eq(count_substr(r.err, ": error: "), want_n, "%s: stderr:\n%s", c->name, r.err);
        for (uint32_t k = 1; k < want_n; k++) {
            snprintf(head, sizeof head, "%s:%u:%u: error: ", in, c->more[k - 1].line, c->more[k - 1].col);
            cr_expect(strstr(r.err, head) != NULL, "%s: stderr lacks \"%s\":\n%s", c->name, head, r.err);
        }
    }
    cr_expect(strstr(r.err, "^\n") != NULL || (c->flags & NO_SRC), "%s: no caret line", c->name);
    cli_free(&r);
    unlink(in);
}

ParameterizedTestParameters(errors, malformed)
{
    static size_t idx[NCASES];
    for (size_t i = 0; i < NCASES; i++)
        idx[i] = i;
    return cr_make_param_array(size_t, idx, NCASES);
}

ParameterizedTest(size_t *i, errors, malformed)
{
    const err_case *c = &cases[*i];
    check_api(c, c->text, case_len(c), "");
    char *dir = tmpdir_new();
    check_cli(c, dir);
    tmpdir_remove(dir);
}

/* ---------------------------------------------------------------------------
 * robustness
 * ------------------------------------------------------------------------- */

/* LF -> CRLF */
static char *to_crlf(const char *s, size_t len, size_t *outlen)
{
    char *o = xmalloc(len * 2 + 1);
    size_t k = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '\n')
            o[k++] = '\r';
        o[k++] = s[i];
    }
    o[k] = 0;
    *outlen = k;
    return o;
}

static char *corpus_file(const char *rel, size_t *len)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/ptx-corpus/%s", src_root(), rel);
    char *t = read_file(p, len);
    if (!t)
        cr_skip_test("corpus file %s not found (set PTXRAY_SRC)", p);
    return t;
}

static uint32_t count_insts(const ptx_module *m)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < m->nfuncs; i++)
        n += m->funcs[i]->ninsts;
    return n;
}

static ptx_module *parse_ok(const char *name, const char *text, size_t len)
{
    ptx_diags d;
    ptx_diags_init(&d);
    ptx_module *m = ptx_parse_string(name, text, len, &d);
    if (!m)
        ptx_diags_print(&d, name, text, len, stderr);
    uint32_t ne = d.nerrors;
    ptx_diags_free(&d);
    cr_assert_not_null(m, "%s does not parse", name);
    cr_expect_eq(ne, 0);
    return m;
}

/* A valid corpus file (and one with .section blocks) converted to CRLF
 * parses, to the same functions and instruction count, and prints. */
Test(errors, crlf_valid_corpus)
{
    static const char *const files[] = {"sm_80/atomic_cas_loop.ptx", "debug/noinline_calls.sm_80.ptx"};
    int found = 0;
    for (size_t f = 0; f < 2; f++) {
        size_t len, clen;
        char path[1024];
        snprintf(path, sizeof path, "%s/ptx-corpus/%s", src_root(), files[f]);
        char *lf = read_file(path, &len);
        if (!lf) {
            cr_log_warn("corpus file %s not found", path);
            continue;
        }
        found++;
        char *crlf = to_crlf(lf, len, &clen);
        cr_assert_gt(clen, len);
        ptx_module *a = parse_ok(files[f], lf, len);
        ptx_module *b = parse_ok(files[f], crlf, clen);
        cr_expect_eq(a->nfuncs, b->nfuncs, "%s", files[f]);
        cr_expect_gt(count_insts(a), 0);
        cr_expect_eq(count_insts(a), count_insts(b), "%s", files[f]);
        cr_expect_eq(a->nstmts, b->nstmts, "%s", files[f]);
        ptx_module_free(a);
        ptx_module_free(b);

        char *dir = tmpdir_new();
        char in[1024], out[1024];
        snprintf(in, sizeof in, "%s/crlf.ptx", dir);
        snprintf(out, sizeof out, "%s/out.ptx", dir);
        write_file(in, crlf, clen);
        const char *args[] = {"print", in, "-o", out, NULL};
        cli_result r = run_ptxray(dir, args, 60);
        cr_expect_eq(r.status, 0, "%s (CRLF): exit %d\n%s", files[f], r.status, r.err);
        cr_expect_eq(access(out, F_OK), 0);
        cli_free(&r);
        tmpdir_remove(dir);
        free(lf);
        free(crlf);
    }
    if (!found)
        cr_skip_test("no corpus file found (set PTXRAY_SRC)");
}

/* Every table row converted to CRLF reports its errors at the same
 * line:col with the same message. */
Test(errors, crlf_same_positions)
{
    size_t checked = 0;
    for (size_t i = 0; i < NCASES; i++) {
        const err_case *c = &cases[i];
        size_t len = case_len(c), clen;
        char *crlf = to_crlf(c->text, len, &clen);
        ptx_diags d1, d2;
        ptx_diags_init(&d1);
        ptx_diags_init(&d2);
        ptx_module *m1 = ptx_parse_string("lf.ptx", c->text, len, &d1);
        ptx_module *m2 = ptx_parse_string("crlf.ptx", crlf, clen, &d2);
        cr_expect_null(m2, "%s (CRLF) parsed", c->name);
        ptx_module_free(m1);
        ptx_module_free(m2);
        if (!(c->flags & KNOWN_COUNT))
            cr_expect_eq(d1.nerrors, d2.nerrors, "%s: %u errors with LF, %u with CRLF", c->name,
                         d1.nerrors, d2.nerrors);
        uint32_t i1[64], i2[64];
        uint32_t n1 = error_indices(&d1, i1, 64), n2 = error_indices(&d2, i2, 64);
        /* KNOWN_COUNT rows: only the first error is meaningful */
        uint32_t upto = (c->flags & KNOWN_COUNT) ? 1 : n1;
        for (uint32_t k = 0; k < upto && k < n1 && k < n2; k++) {
            const ptx_diag *a = &d1.v[i1[k]], *b = &d2.v[i2[k]];
            cr_expect(a->loc.line == b->loc.line && a->loc.col == b->loc.col,
                      "%s: error %u at %u:%u with LF, %u:%u with CRLF", c->name, k + 1, a->loc.line,
                      a->loc.col, b->loc.line, b->loc.col);
            cr_expect_str_eq(a->msg, b->msg, "%s", c->name);
        }
        ptx_diags_free(&d1);
        ptx_diags_free(&d2);
        free(crlf);
        checked++;
    }
    cr_expect_eq(checked, NCASES);
}

/* The CLI shows a CRLF source line without its '\r'. */
Test(errors, crlf_cli_caret)
{
    const char *text = K("\tmov.u32 %r1, , 1;\n");
    size_t clen;
    char *crlf = to_crlf(text, strlen(text), &clen);
    print_run pr = print_file("crlf.ptx", crlf, clen, 60);
    char *dir = pr.dir;
    const char *in = pr.in, *out = pr.out;
    cli_result r = pr.r;
    cr_expect_eq(r.status, 2);
    char head[1200];
    snprintf(head, sizeof head, "%s:11:15: error: unexpected ','\n \tmov.u32 %%r1, , 1;\n \t             ^\n", in);
    cr_expect(strstr(r.err, head) != NULL, "stderr:\n%s", r.err);
    cr_expect_null(strchr(r.err, '\r'), "a '\\r' was printed");
    cr_expect_neq(access(out, F_OK), 0);
    cli_free(&r);
    tmpdir_remove(dir);
    free(crlf);
}

/* Line and column of byte offset `off` in text (1-based). */
static void pos_after(const char *text, size_t off, uint32_t *line, uint32_t *col) {
    uint32_t l = 1;
    size_t ls = 0;
    for (size_t i = 0; i < off; i++)
        if (text[i] == '\n') {
            l++;
            ls = i + 1;
        }
    *line = l;
    *col = (uint32_t)(off - ls) + 1;
}

/* A corpus file cut in the middle of an instruction (no newline at the
 * end): one error, "unexpected end of file", just past the last byte. */
Test(errors, truncated_corpus_mid_instruction)
{
    size_t len;
    char *t = corpus_file("sm_80/atomic_cas_loop.ptx", &len);
    const char *inst = strstr(t, "ld.global.u32 \t%r10, [%rd1]");
    cr_assert_not_null(inst, "corpus file changed: update the cut point");
    size_t cut = (size_t)(inst - t) + strlen("ld.global.u32 \t%r10, [%rd1");
    uint32_t line, col;
    pos_after(t, cut, &line, &col); /* just past "%rd1" */

    ptx_diags d;
    ptx_diags_init(&d);
    ptx_module *m = ptx_parse_string("cut.ptx", t, cut, &d);
    cr_expect_null(m);
    ptx_module_free(m);
    cr_assert_eq(d.nerrors, 1, "want exactly one error, got %u (first: %s)", d.nerrors,
                 d.n ? d.v[0].msg : "");
    cr_expect(strstr(d.v[0].msg, "unexpected end of file") != NULL, "%s", d.v[0].msg);
    cr_expect_eq(d.v[0].loc.line, line);
    cr_expect_eq(d.v[0].loc.col, col, "truncated file: error at %u:%u, want %u:%u (just past the last byte)",
                 d.v[0].loc.line, d.v[0].loc.col, line, col);
    ptx_diags_free(&d);

    print_run pr = print_file("cut.ptx", t, cut, 60);
    char *dir = pr.dir;
    const char *in = pr.in, *out = pr.out;
    cli_result r = pr.r;
    cr_expect_eq(r.status, 2);
    char head[1200];
    snprintf(head, sizeof head, "%s:%u:", in, line);
    cr_expect(strstr(r.err, head) != NULL, "stderr:\n%s", r.err);
    cr_expect(strstr(r.err, "error: unexpected end of file") != NULL, "stderr:\n%s", r.err);
    cr_expect(strstr(r.err, "\tld.global.u32 \t%r10, [%rd1\n") != NULL, "no source line:\n%s", r.err);
    cr_expect_neq(access(out, F_OK), 0);
    cli_free(&r);
    tmpdir_remove(dir);
    free(t);
}

/* Cut after a whole line inside a function body: the error is at the end of
 * the last line. */
Test(errors, truncated_corpus_between_lines)
{
    size_t len;
    char *t = corpus_file("sm_80/atomic_cas_loop.ptx", &len);
    const char *inst = strstr(t, "ld.global.u32 \t%r10, [%rd1];\n");
    cr_assert_not_null(inst);
    size_t cut = (size_t)(inst - t) + strlen("ld.global.u32 \t%r10, [%rd1];\n");
    uint32_t line, col;
    pos_after(t, cut - 1, &line, &col); /* the final newline */
    ptx_diags d;
    ptx_diags_init(&d);
    ptx_module *m = ptx_parse_string("cut.ptx", t, cut, &d);
    cr_expect_null(m);
    ptx_module_free(m);
    cr_assert_eq(d.nerrors, 1);
    cr_expect(strstr(d.v[0].msg, "unexpected end of file") != NULL, "%s", d.v[0].msg);
    cr_expect(d.v[0].loc.line == line && d.v[0].loc.col == col, "at %u:%u, want %u:%u", d.v[0].loc.line,
              d.v[0].loc.col, line, col);
    ptx_diags_free(&d);
    free(t);
}

/* Appends the decimal list "1,1,...,1" (n ones) to buf at k. */
static size_t put_ones(char *buf, size_t k, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        buf[k++] = '1';
        if (i + 1 < n)
            buf[k++] = ',';
    }
    return k;
}

enum { MB = 1 << 20 };

/* A 1 MB comment line and a 1 MB initializer line parse; the initializer
 * keeps every element. */
Test(errors, long_lines_parse)
{
    size_t n = MB / 2; /* "1," per element: 1 MB */
    char *buf = xmalloc(3 * MB + 4096);
    size_t k = 0;
    k += (size_t)sprintf(buf + k, "%s// ", HDR);
    memset(buf + k, 'c', MB);
    k += MB;
    k += (size_t)sprintf(buf + k, "\n.global .u8 a[%zu] = {", n);
    k = put_ones(buf, k, n);
    k += (size_t)sprintf(buf + k, "};\n%s%s", KHEAD, KTAIL);
    ptx_module *m = parse_ok("long.ptx", buf, k);
    const ptx_var *v = NULL;
    for (uint32_t i = 0; i < m->nstmts; i++)
        if (m->stmts[i]->kind == PTX_S_VAR)
            v = m->stmts[i]->u.var;
    cr_assert_not_null(v);
    cr_assert_not_null(v->init);
    cr_expect_eq(v->init->kind, 'l');
    cr_expect_eq(v->init->n, n);
    cr_expect_eq(count_insts(m), 1);
    ptx_module_free(m);
    free(buf);
}

/* A 1 MB line with an error at its end: the exact column, and the printed
 * source line is shortened around it. */
Test(errors, long_line_error_column)
{
    size_t n = MB / 2;
    char *buf = xmalloc(MB + 4096);
    size_t k = (size_t)sprintf(buf, "%s.global .u8 a[%zu] = {", HDR, n);
    size_t ls = strlen(HDR);
    k = put_ones(buf, k, n);
    size_t semi = k + 1;
    k += (size_t)sprintf(buf + k, " ;\n%s%s", KHEAD, KTAIL); /* missing '}' */
    uint32_t col = (uint32_t)(semi - ls) + 1;
    cr_assert_gt(col, MB);

    ptx_diags d;
    ptx_diags_init(&d);
    ptx_module *m = ptx_parse_string("long.ptx", buf, k, &d);
    cr_expect_null(m);
    ptx_module_free(m);
    cr_assert_geq(d.nerrors, 1);
    cr_expect_eq(d.nerrors, 1, "%u errors after a syntax error in a 1 MB initializer (second: %s)",
                 d.nerrors, d.n > 1 ? d.v[1].msg : "");
    cr_expect_eq(d.v[0].loc.line, 5);
    cr_expect_eq(d.v[0].loc.col, col, "col %u, want %u", d.v[0].loc.col, col);
    cr_expect(strstr(d.v[0].msg, "unexpected ';'") != NULL, "%s", d.v[0].msg);
    ptx_diags_free(&d);

    print_run pr = print_file("long.ptx", buf, k, 60);
    char *dir = pr.dir;
    const char *in = pr.in, *out = pr.out;
    cli_result r = pr.r;
    cr_expect_eq(r.status, 2);
    char head[1200];
    snprintf(head, sizeof head, "%s:5:%u: error: unexpected ';'", in, col);
    cr_expect(strstr(r.err, head) != NULL, "stderr:\n%.2000s", r.err);
    size_t longest = 0, cur = 0;
    for (const char *p = r.err; *p; p++) {
        if (*p == '\n') {
            if (cur > longest)
                longest = cur;
            cur = 0;
        } else {
            cur++;
        }
    }
    cr_expect_lt(longest, 250, "a %zu-character line was printed", longest);
    cr_expect(strstr(r.err, "1,1 ;\n") != NULL, "source excerpt lacks the end of the line");
    cr_expect(strstr(r.err, "^\n") != NULL);
    cr_expect_neq(access(out, F_OK), 0);
    cli_free(&r);
    tmpdir_remove(dir);
    free(buf);
}

/* A 1 MB expression "1+1+...+1" (a 500,000-deep tree) must not crash the
 * parser: it either parses or is rejected with an error. */
Test(errors, long_expression_no_crash, .timeout = 120)
{
    size_t n = MB / 2;
    char *buf = xmalloc(MB + 4096);
    size_t k = (size_t)sprintf(buf, "%s%s\tmov.u32 %%r1, ", HDR, KHEAD);
    for (size_t i = 0; i < n; i++) {
        buf[k++] = '1';
        buf[k++] = '+';
    }
    k += (size_t)sprintf(buf + k, "1;\n%s", KTAIL);
    print_run pr = print_file("expr.ptx", buf, k, 100);
    char *dir = pr.dir;
    cli_result r = pr.r;
    cr_expect_neq(r.sig, SIGALRM, "ptxray hung");
    cr_expect(!r.signaled, "1 MB expression: killed by signal %d", r.sig);
    cr_expect(r.status == 0 || r.status == 2, "1 MB expression: exit status %d; stderr: %.300s", r.status,
              r.err);
    if (r.status == 2)
        cr_expect_eq(count_substr(r.err, ": error: "), 1, "stderr: %.2000s", r.err);
    cli_free(&r);
    tmpdir_remove(dir);
    free(buf);
}

static uint64_t xorshift(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

/* Parses junk through the library and the CLI: an error (at most 20, the
 * default limit), no crash, quickly. */
static void check_junk(const char *name, const char *buf, size_t len, double limit_s)
{
    ptx_diags d;
    ptx_diags_init(&d);
    double t0 = now_s();
    ptx_module *m = ptx_parse_string(name, buf, len, &d);
    double t = now_s() - t0;
    cr_expect_null(m, "%s parsed", name);
    ptx_module_free(m);
    cr_expect_geq(d.nerrors, 1, "%s", name);
    cr_expect_leq(d.nerrors, 20, "%s: %u errors", name, d.nerrors);
    cr_expect(d.nerrors < 20 || d.truncated, "%s", name);
    cr_expect_lt(t, limit_s, "%s: %.1f s", name, t);
    ptx_diags_free(&d);

    print_run pr = print_file("junk.bin", buf, len, 120);
    char *dir = pr.dir;
    const char *out = pr.out;
    cli_result r = pr.r;
    cr_expect(!r.signaled, "%s: killed by signal %d", name, r.sig);
    cr_expect_eq(r.status, 2, "%s: exit %d", name, r.status);
    cr_expect_leq(count_substr(r.err, ": error: "), 20, "%s", name);
    cr_expect_gt(count_substr(r.err, ": error: "), 0, "%s", name);
    cr_expect_lt(r.errlen, 64 * 1024, "%s: %zu bytes of diagnostics", name, r.errlen);
    cr_expect_lt(r.secs, limit_s, "%s: CLI took %.1f s", name, r.secs);
    cr_expect_neq(access(out, F_OK), 0);
    cli_free(&r);
    tmpdir_remove(dir);
}

/* 8 MB of seeded random bytes: as they are (rejected as binary), with the
 * NULs replaced (so the lexer and parser see it all), and as random PTX
 * tokens. */
Test(errors, random_bytes_8mb, .timeout = 240)
{
    size_t len = 8 * MB;
    char *buf = xmalloc(len);
    uint64_t s = 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i < len; i++)
        buf[i] = (char)(xorshift(&s) >> 56);
    check_junk("random", buf, len, 30);
    for (size_t i = 0; i < len; i++)
        if (!buf[i])
            buf[i] = ' ';
    check_junk("random-no-nul", buf, len, 30);

    static const char *const toks[] = {".reg", ".b32", "%r1", ",", ";", "{", "}", "mov.u32", "@", "!",
                                       "[", "]", "0f3F800000", "12", "\"s", "/*", "*/", "//", "\n",
                                       ".entry", "(", ")", ".version", "8.0", "_", "<", ">", "0x1F",
                                       ".global", "=", ".section", ".loc", "+", "-", "$L1", ":", ".func",
                                       ".target", "sm_80", ".param", ".u64"};
    size_t k = 0;
    while (k + 32 < len) {
        const char *t = toks[xorshift(&s) % (sizeof toks / sizeof toks[0])];
        size_t n = strlen(t);
        memcpy(buf + k, t, n);
        k += n;
        buf[k++] = " \t "[xorshift(&s) % 3];
    }
    check_junk("random-tokens", buf, k, 30);
    free(buf);
}

/* Only whitespace and comments: one error, "missing .version directive". */
Test(errors, whitespace_and_comments_only)
{
    static const char *const inputs[] = {"   \n\t\n\r\n\f\v \n", "// a comment\n/* another\n one */\n\n",
                                         "\n\n\n"};
    for (size_t i = 0; i < 3; i++) {
        ptx_diags d;
        ptx_diags_init(&d);
        ptx_module *m = ptx_parse_string("ws.ptx", inputs[i], strlen(inputs[i]), &d);
        cr_expect_null(m);
        ptx_module_free(m);
        cr_assert_eq(d.nerrors, 1, "input %zu: %u errors", i, d.nerrors);
        cr_expect(strstr(d.v[0].msg, "missing .version directive") != NULL, "%s", d.v[0].msg);
        cr_expect(d.v[0].loc.line == 1 && d.v[0].loc.col == 1);
        ptx_diags_free(&d);
    }
    char *dir = tmpdir_new();
    char in[1024], out[1024];
    snprintf(in, sizeof in, "%s/ws.ptx", dir);
    snprintf(out, sizeof out, "%s/out.ptx", dir);
    write_file(in, inputs[1], strlen(inputs[1]));
    const char *args[] = {"print", in, "-o", out, NULL};
    cli_result r = run_ptxray(dir, args, 60);
    cr_expect_eq(r.status, 2);
    char head[1200];
    snprintf(head, sizeof head, "%s:1:1: error: missing .version directive", in);
    cr_expect(strstr(r.err, head) != NULL, "stderr:\n%s", r.err);
    cr_expect_neq(access(out, F_OK), 0);
    cli_free(&r);
    tmpdir_remove(dir);
}

static size_t put_str(char *buf, size_t k, const char *s)
{
    size_t n = strlen(s);
    memcpy(buf + k, s, n);
    return k + n;
}

/* `{ { ... } }` nested scopes inside a body, depth deep. */
static char *nested_scopes(size_t depth, size_t *len)
{
    char *buf = xmalloc(4 * depth + 4096);
    size_t k = put_str(buf, 0, HDR KHEAD);
    for (size_t i = 0; i < depth; i++) {
        buf[k++] = '{';
        buf[k++] = ' ';
    }
    k = put_str(buf, k, "mov.u32 %r1, 1; ");
    for (size_t i = 0; i < depth; i++) {
        buf[k++] = '}';
        buf[k++] = ' ';
    }
    k = put_str(buf, k, "\n" KTAIL);
    *len = k;
    return buf;
}

/* 500 levels parse, with every scope kept. */
Test(errors, nested_scopes_500)
{
    size_t len;
    char *buf = nested_scopes(500, &len);
    ptx_module *m = parse_ok("deep.ptx", buf, len);
    cr_assert_eq(m->nfuncs, 1);
    uint32_t open = 0, close = 0;
    for (uint32_t i = 0; i < m->funcs[0]->nstmts; i++) {
        open += m->funcs[0]->stmts[i]->kind == PTX_S_SCOPE_BEGIN;
        close += m->funcs[0]->stmts[i]->kind == PTX_S_SCOPE_END;
    }
    cr_expect_eq(open, 500);
    cr_expect_eq(close, 500);
    cr_expect_eq(m->funcs[0]->ninsts, 2);
    ptx_module_free(m);
    free(buf);
}

/* 10,000 levels: no crash, no hang; parsed, or rejected with one error
 * that says the nesting is too deep (not bison's "memory exhausted"). */
Test(errors, nested_scopes_10000)
{
    size_t len;
    char *buf = nested_scopes(10000, &len);
    ptx_diags d;
    ptx_diags_init(&d);
    ptx_module *m = ptx_parse_string("deep.ptx", buf, len, &d);
    if (m) {
        cr_expect_eq(d.nerrors, 0);
        ptx_module_free(m);
    } else {
        cr_expect_eq(d.nerrors, 1, "%u errors", d.nerrors);
        cr_expect_eq(d.v[0].loc.line, 11);
        cr_expect(d.nerrors && strstr(d.v[0].msg, "nested too deeply") != NULL,
                  "message \"%s\": should say the nesting is too deep", d.nerrors ? d.v[0].msg : "");
    }
    ptx_diags_free(&d);

    print_run pr = print_file("deep.ptx", buf, len, 60);
    char *dir = pr.dir;
    cli_result r = pr.r;
    cr_expect(!r.signaled, "killed by signal %d", r.sig);
    cr_expect(r.status == 0 || r.status == 2, "exit %d", r.status);
    cr_expect_eq(r.status == 0, m != NULL);
    cr_expect_lt(r.errlen, 4096);
    cli_free(&r);
    tmpdir_remove(dir);
    free(buf);
}

/* 10,000 nested parentheses in an operand: no crash. */
Test(errors, nested_parens_10000)
{
    size_t depth = 10000;
    char *buf = xmalloc(2 * depth + 4096);
    size_t k = (size_t)sprintf(buf, "%s%s\tmov.u32 %%r1, ", HDR, KHEAD);
    memset(buf + k, '(', depth);
    k += depth;
    buf[k++] = '1';
    memset(buf + k, ')', depth);
    k += depth;
    k += (size_t)sprintf(buf + k, ";\n%s", KTAIL);
    print_run pr = print_file("parens.ptx", buf, k, 60);
    char *dir = pr.dir;
    cli_result r = pr.r;
    cr_expect(!r.signaled, "killed by signal %d", r.sig);
    cr_expect(r.status == 0 || r.status == 2, "exit %d", r.status);
    cr_expect_leq(count_substr(r.err, ": error: "), 1, "stderr:\n%.2000s", r.err);
    cli_free(&r);
    tmpdir_remove(dir);
    free(buf);
}

/* 30 independent errors: exactly 20 reported, truncated set, and the CLI
 * says it stopped. */
Test(errors, too_many_errors)
{
    char *buf = xmalloc(8192);
    size_t k = (size_t)sprintf(buf, "%s%s", HDR, KHEAD);
    for (int i = 0; i < 30; i++)
        k += (size_t)sprintf(buf + k, "\tmov.u32 %%x%d, 1;\n", i);
    k += (size_t)sprintf(buf + k, "%s", KTAIL);
    ptx_diags d;
    ptx_diags_init(&d);
    ptx_module *m = ptx_parse_string("many.ptx", buf, k, &d);
    cr_expect_null(m);
    ptx_module_free(m);
    cr_expect_eq(d.nerrors, 20);
    cr_expect_eq(d.truncated, 1);
    for (uint32_t i = 0; i < d.n && i < 20; i++) {
        char want[64];
        snprintf(want, sizeof want, "'%%x%u'", i);
        cr_expect(d.v[i].loc.line == 11 + i && d.v[i].loc.col == 10, "error %u at %u:%u", i + 1,
                  d.v[i].loc.line, d.v[i].loc.col);
        cr_expect(strstr(d.v[i].msg, want) != NULL, "error %u: %s", i + 1, d.v[i].msg);
    }
    ptx_diags_free(&d);

    print_run pr = print_file("many.ptx", buf, k, 60);
    char *dir = pr.dir;
    const char *in = pr.in, *out = pr.out;
    cli_result r = pr.r;
    cr_expect_eq(r.status, 2);
    cr_expect_eq(count_substr(r.err, ": error: "), 20, "stderr:\n%s", r.err);
    cr_expect(strstr(r.err, "too many errors (20)") != NULL, "stderr:\n%s", r.err);
    char last[1200];
    snprintf(last, sizeof last, "%s:30:10: error: use of undeclared register '%%x19'", in);
    cr_expect(strstr(r.err, last) != NULL);
    cr_expect_null(strstr(r.err, "'%x20'"));
    cr_expect_neq(access(out, F_OK), 0);
    cli_free(&r);
    tmpdir_remove(dir);
    free(buf);
}

/* Past the limit, the errors kept are the first in source order, whichever
 * check finds them: here a variable redeclared (the scope's namespace) and a
 * label redefined, alternately, 30 times in one body. */
Test(errors, too_many_declaration_errors)
{
    char *buf = xmalloc(8192);
    size_t k = (size_t)sprintf(buf, "%s%s\t.local .u32 v;\nL:\n", HDR, KHEAD);
    for (int i = 0; i < 15; i++) k += (size_t)sprintf(buf + k, "\t.local .u32 v;\nL:\n");
    k += (size_t)sprintf(buf + k, "%s", KTAIL);
    ptx_diags d;
    ptx_diags_init(&d);
    ptx_module *m = ptx_parse_string("decls.ptx", buf, k, &d);
    cr_expect_null(m);
    cr_expect_eq(d.nerrors, 20);
    cr_expect_eq(d.truncated, 1);
    for (uint32_t i = 0; i < d.n && i < 20; i++) {
        const char *want = i % 2 ? "redefinition of label 'L'"
                                 : "redeclaration of 'v' in the same scope: already declared as a variable at line 11";
        cr_expect(d.v[i].loc.line == 13 + i, "error %u at line %u", i + 1, d.v[i].loc.line);
        cr_expect(strstr(d.v[i].msg, want) != NULL, "error %u: %s", i + 1, d.v[i].msg);
    }
    ptx_diags_free(&d);
    free(buf);
}

/* One declaration that clashes with several earlier ones says so once for
 * each, in the order of their names (length, then bytes): a range over
 * three registers declared before it, and a register that is an element of
 * two ranges (%r01 is element 1 of %r<3> and of %r0<9>). */
Test(errors, range_messages_in_name_order)
{
    static const char *const text[2] = {
        K("\t.reg .b32 %q2;\n\t.reg .b32 %q10;\n\t.reg .b32 %q1;\n\t.reg .b32 %q<11>;\n"),
        K("\t.reg .b32 %t<3>;\n\t.reg .b32 %t0<9>;\n\t.reg .b32 %t01;\n"),
    };
    static const char *const want[2][3] = {
        {"register range '%q<11>' declares '%q1', already declared in the same scope as a register at line 13",
         "register range '%q<11>' declares '%q2', already declared in the same scope as a register at line 11",
         "register range '%q<11>' declares '%q10', already declared in the same scope as a register at line 12"},
        {"redeclaration of '%t01' in the same scope: already declared by the register range '%t<3>' at line 11",
         "redeclaration of '%t01' in the same scope: already declared by the register range '%t0<9>' at line 12",
         NULL},
    };
    for (int t = 0; t < 2; t++) {
        ptx_diags d;
        ptx_diags_init(&d);
        ptx_module *m = ptx_parse_string("order.ptx", text[t], strlen(text[t]), &d);
        cr_expect_null(m);
        uint32_t n = want[t][2] ? 3 : 2;
        cr_expect_eq(d.n, n, "case %d: %u messages", t, d.n);
        for (uint32_t i = 0; i < d.n && i < n; i++)
            cr_expect(strstr(d.v[i].msg, want[t][i]) != NULL, "case %d, message %u: %s", t, i + 1, d.v[i].msg);
        ptx_diags_free(&d);
    }
}

/* A big generated file: one kernel of simple instructions, parsed from
 * disk; the instruction count is exact.  20 MB by default, 200 MB with
 * PTXRAY_BIG=1 (about 6 s in a release build, much longer under ASan). */
Test(errors, big_file, .timeout = 600)
{
    const char *big = getenv("PTXRAY_BIG");
    size_t target = (big && *big == '1') ? (size_t)200 * MB : (size_t)20 * MB;
    static const char line[] = "\tmad.lo.s32 %r1, %r2, %r3, 12345678;\n";
    size_t ll = sizeof line - 1;
    size_t n = target / ll;
    char *dir = tmpdir_new();
    char in[1024];
    snprintf(in, sizeof in, "%s/big.ptx", dir);
    FILE *f = fopen(in, "wb");
    cr_assert_not_null(f);
    static char chunk[1 << 16];
    size_t per = sizeof chunk / ll, cl = per * ll;
    for (size_t i = 0; i < per; i++)
        memcpy(chunk + i * ll, line, ll);
    fputs(HDR KHEAD, f);
    for (size_t done = 0; done < n; done += per)
        fwrite(chunk, 1, n - done >= per ? cl : (n - done) * ll, f);
    fputs(KTAIL, f);
    cr_assert_eq(fclose(f), 0);
    struct stat st;
    cr_assert_eq(stat(in, &st), 0);
    cr_expect_geq((size_t)st.st_size, target - ll);

    double t0 = now_s();
    ptx_diags d;
    ptx_diags_init(&d);
    ptx_module *m = ptx_parse_file(in, &d);
    double t = now_s() - t0;
    cr_log_info("big_file: %zu bytes, %zu instructions parsed in %.2f s", (size_t)st.st_size, n + 1, t);
    cr_assert_not_null(m, "%u errors, first: %s", d.nerrors, d.n ? d.v[0].msg : "");
    cr_expect_eq(d.nerrors, 0);
    cr_expect_eq(m->src_len, (size_t)st.st_size);
    cr_assert_eq(m->nfuncs, 1);
    cr_expect_eq(m->funcs[0]->ninsts, n + 1, "%u instructions, want %zu", m->funcs[0]->ninsts, n + 1);
    ptx_module_free(m);
    ptx_diags_free(&d);

    /* the CLI agrees */
    const char *args[] = {"parse", in, NULL};
    cli_result r = run_ptxray(dir, args, 500);
    cr_expect_eq(r.status, 0, "stderr: %.500s", r.err);
    char want[128];
    snprintf(want, sizeof want, "%zu instructions\n", n + 1);
    cr_expect(strstr(r.out, want) != NULL, "stdout: %.500s", r.out);
    cli_free(&r);
    tmpdir_remove(dir);
}
