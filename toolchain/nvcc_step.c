/* The ptxas step (nvcc_step.h). */
#include "nvcc_step.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include "printer.h"
#include "ptx.h"
#include "names.h"
#include "ra_target.h"
#include "textbuf.h"
#include "toolchain.h"

extern char **environ;

void nvw_tmpx_key(const char *path, char *buf, size_t n)
{
    const char *t = strstr(path, "tmpxft_");
    size_t k = t ? (size_t)(t - path) + 7 : 0;
    if (t && strspn(t + 7, "0123456789abcdef") == 8 && t[15] == '_') {
        snprintf(buf, n, "%.*s*%s", (int)k, path, t + 15);
    } else snprintf(buf, n, "%s", path);
}

/* The step's view of ptxas's arguments. */
typedef struct step_args {
    int input;        /* index of the .ptx operand, -1 if none */
    const char *arch; /* "sm_80", NULL if not given */
    unsigned maxr;    /* -maxrregcount N, 0 if not given */
} step_args;

static const char *value_of(char **args, int n, int *i, const char *opt)
{
    size_t k = strlen(opt);
    const char *a = args[*i];
    if (strncmp(a, opt, k)) return NULL;
    if (a[k] == '=') return a + k + 1;
    if (!a[k] && *i + 1 < n) return args[++*i];
    return NULL;
}

static void scan_args(char **args, int n, step_args *s)
{
    memset(s, 0, sizeof *s);
    s->input = -1;
    for (int i = 0; i < n; i++) {
        const char *v;
        if (!strcmp(args[i], "-o") || !strcmp(args[i], "--output-file")) i++;
        else if ((v = value_of(args, n, &i, "-arch")) || (v = value_of(args, n, &i, "--gpu-name"))) s->arch = v;
        else if ((v = value_of(args, n, &i, "-maxrregcount")) || (v = value_of(args, n, &i, "--maxrregcount")))
            s->maxr = (unsigned)strtoul(v, NULL, 10);
        else if (args[i][0] != '-' && tc_ends_with(args[i], ".ptx")) s->input = i;
    }
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    char *b = malloc(cap);
    if (!b) abort();
    size_t r;
    while ((r = fread(b + n, 1, cap - n - 1, f)) > 0)
        if ((n += r) + 1 == cap && !(b = realloc(b, cap *= 2))) abort();
    fclose(f);
    b[n] = 0;
    if (len) *len = n;
    return b;
}

/* The quoted value after opt (" --opt "X"") in line, into buf. */
static bool quoted_after(const char *line, const char *opt, char *buf, size_t n)
{
    const char *p = strstr(line, opt);
    if (!p || p[strlen(opt)] != '"') return false;
    p += strlen(opt) + 1;
    const char *e = strchr(p, '"');
    if (!e || (size_t)(e - p) >= n) return false;
    memcpy(buf, p, (size_t)(e - p));
    buf[e - p] = 0;
    return true;
}

/* The cicc line that made ptx (from the dryrun), its per-process names
 * those of this run; NULL when none. */
static char *cicc_line(const char *dir, const char *ptx)
{
    char p[4200], key[4096];
    snprintf(p, sizeof p, "%s/%s", dir, NVW_CICC_FILE);
    char *all = slurp(p, NULL), *found = NULL;
    nvw_tmpx_key(ptx, key, sizeof key);
    size_t kl = strlen(key);
    for (char *l = all, *next; l && *l && !found; l = next) {
        next = strchr(l, '\n');
        if (next) *next++ = 0;
        if (!strncmp(l, key, kl) && l[kl] == '\t') found = l + kl + 1;
    }
    textbuf out = {0};
    if (found) {
        /* the dryrun's "tmpxft_XXXXXXXX_" becomes the run's */
        const char *run = strstr(ptx, "tmpxft_");
        for (const char *s = found; *s;) {
            const char *t = strstr(s, "tmpxft_");
            if (!t || !run) {
                tb_puts(&out, s);
                break;
            }
            tb_put(&out, s, (size_t)(t - s));
            tb_put(&out, t, 7);
            if (strspn(t + 7, "0123456789abcdef") >= 8) tb_put(&out, run + 7, 8), s = t + 15;
            else s = t + 7;
        }
    }
    free(all);
    return out.p;
}

/* cicc again with -generate-line-info, its outputs in dir: the PTX into li.
 * The cicc line of nvcc's listing is cut after its -o "X.ptx" (nvcc's
 * --threads adds redirections). */
static bool lineinfo_ptx(const char *dir, const char *line, const char *li)
{
    static const char *outs[] = {" --gen_c_file_name ", " --stub_file_name ", " --gen_device_file_name ", " -o "};
    textbuf cmd = {0};
    const char *s = line, *end = strstr(line, " -o \"");
    if (!end || !(end = strchr(end + 5, '"'))) return false;
    end++;
    int pid = (int)getpid();
    while (s < end) {
        const char *best = NULL;
        size_t bi = 0;
        for (size_t i = 0; i < 4; i++) {
            const char *p = strstr(s, outs[i]);
            if (p && p < end && (!best || p < best)) best = p, bi = i;
        }
        if (!best) {
            tb_put(&cmd, s, (size_t)(end - s));
            break;
        }
        const char *q = best + strlen(outs[bi]);
        const char *qe = *q == '"' ? strchr(q + 1, '"') : NULL;
        if (!qe) return free(cmd.p), false;
        tb_put(&cmd, s, (size_t)(q - s));
        char repl[4600];
        if (bi == 3) snprintf(repl, sizeof repl, "\"%s\" -generate-line-info", li);
        else snprintf(repl, sizeof repl, "\"%s/li-%d.%zu\"", dir, pid, bi);
        tb_puts(&cmd, repl);
        s = qe + 1;
    }
    char *argv[] = {"/bin/sh", "-c", cmd.p, NULL};
    char *log = NULL;
    int rc = tc_run(argv, &log);
    free(log);
    free(cmd.p);
    for (int i = 0; i < 3; i++) {
        char p[4400];
        snprintf(p, sizeof p, "%s/li-%d.%d", dir, pid, i);
        unlink(p);
    }
    return rc == 0;
}

/* The spill bytes (stores + loads) ptxas -v's log gives function name; -1 if absent. */
static long fn_spills(const char *log, const char *name)
{
    char pat[600];
    snprintf(pat, sizeof pat, "Function properties for %s\n", name);
    const char *p = log ? strstr(log, pat) : NULL;
    if (!p) return -1;
    p += strlen(pat);
    long st = 0, ld = 0;
    if (sscanf(p, " %*d bytes stack frame, %ld bytes spill stores, %ld bytes spill loads", &st, &ld) != 2) return -1;
    return st + ld;
}

/* nvcc's ptxas on ptx with the step's arguments and -v, the output in dir:
 * the log, or NULL (shown) when it fails. */
static char *ptxas_log(const char *ptxas, char **args, int n, const step_args *s, const char *ptx, const char *dir,
                       const char *maxr)
{
    char **argv = calloc((size_t)n + 8, sizeof *argv);
    char out[4200];
    if (!argv) abort();
    snprintf(out, sizeof out, "%s/spills-%d.cubin", dir, (int)getpid());
    int k = 0;
    argv[k++] = (char *)ptxas;
    for (int i = 0; i < n; i++) {
        if (!strcmp(args[i], "-o") || !strcmp(args[i], "--output-file")) {
            i++;
            continue;
        }
        argv[k++] = i == s->input ? (char *)ptx : args[i];
    }
    if (maxr) argv[k++] = "-maxrregcount", argv[k++] = (char *)maxr;
    argv[k++] = "-v";
    argv[k++] = "-o";
    argv[k++] = out;
    char *log = NULL;
    int rc = tc_run(argv, &log);
    free(argv);
    unlink(out);
    if (rc) {
        fprintf(stderr, "ptxray nvcc: warning: ptxas failed on %s (status %d)\n%s", ptx, rc, log ? log : "");
        free(log);
        return NULL;
    }
    return log;
}

static void print_rewrites(const char *shown, const char *arch, const char *what, const ra_stats *st,
                           const char *before, const char *after)
{
    for (uint32_t i = 0; i < st->nfuncs; i++) {
        const ra_func_stats *f = &st->funcs[i];
        uint32_t moved = f->spilled;
        if (!moved) continue;
        char *dn = ptx_demangle(f->name, strlen(f->name), true);
        fprintf(stderr,
                "ptxray: %s (%s): %s %s: %s: %u values moved (%u to shared slots, %u to .local, %u rematerialised); "
                "ptxas spill bytes %ld -> %ld\n",
                shown, arch, f->is_entry ? "kernel" : "function", dn ? dn : f->name, what, moved,
                f->by_place[RA_P_SHARED] + f->by_place[RA_P_SHARED_AFFINE], f->by_place[RA_P_LOCAL],
                f->by_place[RA_P_CONST] + f->by_place[RA_P_AFFINE],
                fn_spills(before, f->name), fn_spills(after, f->name));
        free(dn);
    }
}

/* The step's one parse of nvcc's PTX: the analysis (the warnings) reads
 * it, then the rewrite rewrites it.  Its diagnostics are kept as text and
 * printed where each used to print them when each parsed the file itself:
 * the analysis only a failure's (the pipeline's quiet parse), the rewrite
 * all of them. */
typedef struct step_ptx {
    bool tried;
    ptx_module *m;
    char *diags;
    size_t ndiags;
} step_ptx;

static ptx_module *step_parse(step_ptx *sp, const char *in)
{
    if (sp->tried) return sp->m;
    sp->tried = true;
    FILE *f = open_memstream(&sp->diags, &sp->ndiags);
    if (!f) abort();
    sp->m = ptx_load_to(in, 0, f);
    fclose(f);
    return sp->m;
}

static void step_ptx_free(step_ptx *sp)
{
    if (sp->m) ptx_module_free(sp->m);
    free(sp->diags);
}

/* The rewrite at o's budget or target, at the block shapes of
 * --ptxray-block and then of the project file found from `from` (the .cu,
 * else the PTX): the rewritten PTX's path into rw, and what ptxas
 * -maxrregcount the target needs into maxr.  0: rewritten; 1: left as it
 * is (said why); -1: failed (said why). */
static int rewrite(const nvw_opts *o, char **args, int n, const step_args *s, const char *dir, const char *ptxas,
                   const char *shown, const char *from, step_ptx *sp, char *rw, size_t rwn, char *maxr, size_t maxrn)
{
    const char *in = args[s->input];
    unsigned target = o->target ? o->target : o->target_maxr ? s->maxr : 0;
    if (o->target_maxr && !o->target && !s->maxr) {
        fprintf(stderr, "ptxray: %s (%s): warning: --ptxray-target-regs without -maxrregcount: not rewritten\n",
                shown, s->arch ? s->arch : "?");
        return 1;
    }
    if (target && !s->maxr) snprintf(maxr, maxrn, "%u", target);
    /* the project file before the parse, so that its errors come first
     * (as in regalloc); its entries live as long as the step */
    blk_opts blocks = o->blocks;
    if (o->config_shapes && !o->config_shapes(o->config_ctx, from, &blocks)) return -1;
    ptx_module *m = step_parse(sp, in);
    fputs(sp->diags ? sp->diags : "", stderr);
    if (!m) return -1;
    ra_options base = o->ro;
    base.blocks = &blocks;
    ra_options ro = base;
    ro.budget = o->budget;
    char what[96];
    snprintf(what, sizeof what, "%s at budget %u", ra_mode_name(ro.mode), o->budget);
    if (target) {
        char *text = NULL;
        size_t len = 0;
        ra_target_result r;
        const char *arch = s->arch && !strncmp(s->arch, "sm_", 3) ? s->arch : NULL;
        int rc = ra_target_regs("nvcc", m, target, arch, &base, &text, &len, &r, stderr);
        free(text);
        if (rc) return -1;
        if (!r.budget) {
            fprintf(stderr, "ptxray: %s (%s): -maxrregcount %u: ptxas alone spills %ld bytes; no budget below the "
                            "pressure (%u) spilled less: not rewritten\n",
                    shown, s->arch ? s->arch : "?", target, r.alone, r.pressure);
            return 1;
        }
        ro.budget = r.budget;
        ro.only_nonlocal = true;
        snprintf(what, sizeof what, "--ptxray-target-regs %u (%s at budget %u)", target, ra_mode_name(ro.mode),
                 r.budget);
    }
    ptx_diags d;
    ptx_diags_init(&d);
    ra_stats st;
    int rc = 0;
    if (ra_run(m, &ro, &st, &d)) {
        ptx_diags_print(&d, in, m->src, m->src_len, stderr);
        rc = -1;
    }
    ptx_diags_free(&d);
    if (!rc) {
        size_t len;
        char *text = ptx_print_text(m, &len);
        snprintf(rw, rwn, "%s/rw-%d.ptx", dir, (int)getpid());
        if (tc_write_file(rw, text, len)) rc = -1;
        free(text);
        char *before = rc ? NULL : ptxas_log(ptxas, args, n, s, in, dir, *maxr ? maxr : NULL);
        char *after = before ? ptxas_log(ptxas, args, n, s, rw, dir, *maxr ? maxr : NULL) : NULL;
        if (!after) rc = -1; /* the rewritten PTX does not assemble: the original goes on */
        else print_rewrites(shown, s->arch ? s->arch : "?", what, &st, before, after);
        free(before);
        free(after);
        ra_stats_free(&st);
    }
    return rc;
}

static char *read_all(FILE *f)
{
    long n = (fflush(f), fseek(f, 0, SEEK_END), ftell(f));
    char *b = malloc(n > 0 ? (size_t)n + 1 : 1);
    if (!b) abort();
    rewind(f);
    size_t r = n > 0 ? fread(b, 1, (size_t)n, f) : 0;
    b[r] = 0;
    return b;
}

/* Runs argv with this process's streams: its exit status, 128 + its
 * signal, or -1 when it could not be started. */
static int run_inherit(char **argv)
{
    pid_t pid;
    if (posix_spawn(&pid, argv[0], NULL, NULL, argv, environ)) return -1;
    int st;
    while (waitpid(pid, &st, 0) < 0) {}
    return WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : -1;
}

static int strict_fail(const char *dir)
{
    char p[4200];
    snprintf(p, sizeof p, "%s/%s", dir, NVW_STRICT_FILE);
    FILE *f = fopen(p, "w");
    if (f) fclose(f);
    return 2;
}

static char **read_lines(const char *path, size_t *n, char **buf)
{
    *buf = slurp(path, NULL);
    *n = 0;
    char **v = calloc(1, sizeof *v);
    if (!v) abort();
    for (char *l = *buf, *next; l && *l; l = next) {
        next = strchr(l, '\n');
        if (next) *next++ = 0;
        if (!*l) continue;
        if (!(v = realloc(v, (*n + 2) * sizeof *v))) abort();
        v[(*n)++] = l;
    }
    return v;
}

int nvw_step(const nvw_opts *o, char **args, int n, nvw_analyse_fn analyse)
{
    const char *dir = getenv(NVW_ENV_DIR), *ptxas = getenv(NVW_ENV_PTXAS);
    if (!dir || !ptxas) {
        fprintf(stderr, "ptxray nvcc: %s is ptxray's own (nvcc runs it as ptxas)\n", NVW_STEP_ARG);
        return 2;
    }
    setenv("PTXAS", ptxas, 1); /* ra_target's ptxas: not this shim */
    step_args s;
    scan_args(args, n, &s);
    char **argv = calloc((size_t)n + 4, sizeof *argv);
    if (!argv) abort();
    char rw[4400] = "", maxr[16] = "", *failed_analysis = NULL;
    step_ptx sp = {0};
    if (s.input >= 0) {
        const char *in = args[s.input];
        char *line = cicc_line(dir, in), cu[4096] = "";
        if (line) quoted_after(line, "--orig_src_path_name ", cu, sizeof cu);
        char cwd[4096];
        const char *shown = *cu ? cu + tc_shown_skip(cu, strlen(cu), getcwd(cwd, sizeof cwd)) : in;
        if (o->rules) {
            size_t len;
            char *text = slurp(in, &len);
            char li[4400];
            const char *ptx = in;
            snprintf(li, sizeof li, "%s/li-%d.ptx", dir, (int)getpid());
            bool loc = text && strstr(text, "\t.loc\t");
            free(text);
            char seen[4400], hcp[4400], *hcbuf;
            snprintf(seen, sizeof seen, "%s/%s", dir, NVW_SEEN_FILE);
            snprintf(hcp, sizeof hcp, "%s/hcflags", dir);
            size_t nhc;
            char **hc = read_lines(hcp, &nhc, &hcbuf);
            nvw_analysis a = {ptx, *cu ? cu : NULL, s.arch ? s.arch : "?", seen, hc, nhc, false, NULL, NULL};
            /* nvcc's PTX has .loc lines only with -lineinfo or -G: a copy
             * with them costs a cicc run, made only when there is something
             * to say (the findings do not depend on the .loc lines) */

            /* held back until it is known whether ptxas takes the PTX: when
             * it does not, its own error is what the user needs to see */
            fflush(stderr);
            FILE *held = tmpfile();
            int saved = held ? dup(2) : -1;
            if (saved >= 0) dup2(fileno(held), 2);
            int nw = 0;
            /* nvcc's PTX is parsed once, here (inside the hold), for the
             * analysis and the rewrite */
            a.m = step_parse(&sp, in);
            a.diags = sp.diags ? sp.diags : "";
            if (!loc && line) {
                a.count_only = true;
                nw = analyse(o, &a);
                if (nw > 0 && lineinfo_ptx(dir, line, li)) ptx = a.ptx = li, a.m = NULL, a.diags = NULL;
                a.count_only = false;
            }
            if (nw > 0 || (nw == 0 && (loc || !line))) nw = analyse(o, &a);
            fflush(stderr);
            if (saved >= 0) dup2(saved, 2), close(saved);
            char *said = held ? read_all(held) : NULL;
            if (held) fclose(held);
            if (nw >= 0 || o->strict) fputs(said ? said : "", stderr), free(said), said = NULL;
            free(hc);
            free(hcbuf);
            if (ptx == li) unlink(li);
            if (said) failed_analysis = said;
            if (nw < 0 && o->strict) {
                fprintf(stderr, "ptxray nvcc: error: %s: not analysed (--ptxray-strict)\n", shown);
                free(line);
                step_ptx_free(&sp);
                free(argv);
                return strict_fail(dir);
            }
            if (nw > 0 && o->werror) {
                fprintf(stderr, "ptxray nvcc: error: %s: %d warning%s treated as errors (--ptxray-werror)\n", shown,
                        nw, nw == 1 ? "" : "s");
                free(line);
                step_ptx_free(&sp);
                free(argv);
                return 1;
            }
        }
        if (nvw_rewrites(o) && failed_analysis) {
            /* the rewrite would rewrite the PTX the analysis could not read: said with its warning */
            char line[4600];
            snprintf(line, sizeof line, "ptxray nvcc: warning: %s (%s): the PTX could not be rewritten: ptxas gets "
                                        "nvcc's PTX\n", shown, s.arch ? s.arch : "?");
            failed_analysis = realloc(failed_analysis, strlen(failed_analysis) + strlen(line) + 1);
            if (!failed_analysis) abort();
            strcat(failed_analysis, line);
        } else if (nvw_rewrites(o)) {
            int r = rewrite(o, args, n, &s, dir, ptxas, shown, *cu ? cu : in, &sp, rw, sizeof rw, maxr, sizeof maxr);
            if (r < 0) {
                fprintf(stderr, "ptxray nvcc: %s: %s (%s): the PTX could not be rewritten%s\n",
                        o->strict ? "error" : "warning", shown, s.arch ? s.arch : "?",
                        o->strict ? " (--ptxray-strict)" : ": ptxas gets nvcc's PTX");
                if (o->strict) {
                    free(line);
                    step_ptx_free(&sp);
                    free(argv);
                    return strict_fail(dir);
                }
            }
            if (r) rw[0] = 0;
        }
        free(line);
        step_ptx_free(&sp);
    }
    int k = 0;
    argv[k++] = (char *)ptxas;
    for (int i = 0; i < n; i++) argv[k++] = i == s.input && *rw ? rw : args[i];
    if (*rw && *maxr) argv[k++] = "-maxrregcount", argv[k++] = maxr;
    fflush(NULL);
    if (!failed_analysis) {
        execv(ptxas, argv);
        fprintf(stderr, "ptxray nvcc: %s could not be run\n", ptxas);
        free(argv);
        return 2;
    }
    int rc = run_inherit(argv);
    if (rc == 0) fputs(failed_analysis, stderr);
    free(failed_analysis);
    free(argv);
    return rc < 0 ? 2 : rc;
}
