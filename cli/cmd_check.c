/* ptxray check: the coalescing and divergence findings of many PTX files,
 * for CI (docs/check.md): baselines, exit status by rule, text/JSON/SARIF. */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "check_report.h"
#include "commands.h"
#include "outfile.h"

#define CHK_DEFAULT_RULES (1u << CHK_UNCOALESCED | 1u << CHK_MISALIGNED | 1u << CHK_BANK_CONFLICT)
#define CHK_PROGRESS_MIN 20

static void usage(FILE *o)
{
    fputs("usage: ptxray check [--format text|json|sarif] [--baseline FILE] [--write-baseline FILE]\n"
          "                    [--fail-on RULES] [--enable RULES] [--block [KERNEL=]X,Y,Z]... [-o OUT] PATH...\n"
          "Checks PTX files (directories: every *.ptx below, recursively) for uncoalesced and\n"
          "misaligned global accesses, shared-memory bank conflicts and, when enabled,\n"
          "branches not proven warp-uniform.  Findings are listed by file, line, column, rule.\n"
          "  RULES     comma-separated: uncoalesced, misaligned, bank-conflict, divergent-branch\n"
          "  --fail-on the rules whose findings make the exit status 1\n"
          "            (default uncoalesced,misaligned,bank-conflict)\n"
          "  --enable  rules reported besides those (divergent-branch is off by default: most\n"
          "            kernels branch on the thread index by design)\n"
          "  --baseline        suppress the findings whose fingerprints FILE lists\n"
          "  --write-baseline  write every finding's fingerprint to FILE (exit 0 unless bad input)\n"
          "  --block   the block shape of KERNEL, else of every kernel; repeatable (default:\n"
          "            .reqntid, else blockDim.x is assumed a multiple of 32)\n"
          "  --launches FILE.json  the shapes host code launches kernels with (`ptxray launches`),\n"
          "            after --block and .reqntid; a kernel launched with several is checked at each\n"
          "Exit status: 0 clean, 1 findings of a --fail-on rule, 2 bad input or usage (bad files\n"
          "are reported on stderr and the others still checked).  Details: docs/check.md.\n",
          o);
}

typedef struct strvec {
    size_t n, cap;
    char **v;
} strvec;

static void sv_push(strvec *s, char *p)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 64;
        s->v = realloc(s->v, s->cap * sizeof *s->v);
        if (!s->v) abort();
    }
    s->v[s->n++] = p;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static bool is_ptx(const char *name)
{
    size_t n = strlen(name);
    return n > 4 && !strcmp(name + n - 4, ".ptx");
}

/* Symbolic links to directories are not followed (no cycles). */
static int walk(strvec *out, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "ptxray check: %s: %s\n", dir, strerror(errno));
        return 2;
    }
    int rc = 0;
    size_t dl = strlen(dir);
    bool slash = dl && dir[dl - 1] == '/';
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char *p = malloc(dl + strlen(e->d_name) + 2);
        if (!p) abort();
        sprintf(p, "%s%s%s", dir, slash ? "" : "/", e->d_name);
        struct stat st;
        if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
            rc |= walk(out, p);
            free(p);
        } else if (is_ptx(e->d_name) && stat(p, &st) == 0 && S_ISREG(st.st_mode)) sv_push(out, p);
        else free(p);
    }
    closedir(d);
    return rc;
}

/* Every file, sorted and without repeats; 2 if a directory could not be read. */
static int collect_paths(strvec *out, char **args, int n)
{
    int rc = 0;
    for (int i = 0; i < n; i++) {
        struct stat st;
        if (stat(args[i], &st) == 0 && S_ISDIR(st.st_mode)) rc |= walk(out, args[i]);
        else {
            char *p = strdup(args[i]);
            if (!p) abort();
            sv_push(out, p);
        }
    }
    if (out->n) qsort(out->v, out->n, sizeof *out->v, cmp_str);
    size_t k = 0;
    for (size_t i = 0; i < out->n; i++) {
        if (k && !strcmp(out->v[k - 1], out->v[i])) free(out->v[i]);
        else out->v[k++] = out->v[i];
    }
    out->n = k;
    return rc;
}

typedef struct fpset {
    size_t n;
    uint64_t *v; /* sorted */
} fpset;

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* One fingerprint (16 hex digits) at the start of each line; '#' starts a
 * comment, blank lines are skipped, the rest of a line is for people. */
static int load_baseline(const char *path, fpset *s)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "%s:1:1: error: cannot read the baseline: %s\n", path, strerror(errno));
        return 2;
    }
    char line[4096];
    uint32_t ln = 0;
    size_t cap = 0;
    int rc = 0;
    while (fgets(line, sizeof line, f)) {
        ln++;
        if (line[0] == '#' || line[0] == '\n' || line[0] == '\r' || line[0] == 0) continue;
        char *e;
        errno = 0;
        uint64_t fp = strtoull(line, &e, 16);
        if (e - line != 16 || errno || (*e && *e != ' ' && *e != '\t' && *e != '\n' && *e != '\r')) {
            fprintf(stderr, "%s:%u:1: error: expected a fingerprint of 16 hex digits\n", path, ln);
            rc = 2;
            break;
        }
        if (s->n == cap) {
            cap = cap ? 2 * cap : 64;
            s->v = realloc(s->v, cap * sizeof *s->v);
            if (!s->v) abort();
        }
        s->v[s->n++] = fp;
    }
    fclose(f);
    if (s->n) qsort(s->v, s->n, sizeof *s->v, cmp_u64);
    return rc;
}

static int write_baseline(const char *path, const chk_list *l)
{
    outfile of;
    if (outfile_open(&of, path)) return 2;
    fputs("# ptxray check baseline (docs/check.md): fingerprint, rule, PTX file, kernel\n", of.f);
    for (size_t i = 0; i < l->n; i++) {
        char fp[17];
        chk_fingerprint_text(l->v[i].fingerprint, fp);
        fprintf(of.f, "%s %s %s %s\n", fp, chk_rule_name((enum chk_rule)l->v[i].rule), l->v[i].ptx_path,
                l->v[i].kernel);
    }
    return outfile_commit(&of) ? 2 : 0;
}

static int check_file(chk_list *l, const char *path, const coal_options *co, blk_opts *blocks, unsigned mask)
{
    ptx_module *m;
    prog *p;
    coal_result *res;
    if (chk_load(path, co, &m, &p, &res)) return 2;
    blk_mark(blocks, m);
    coal_report_ctx ctx = {res, path, co, src_files_build(m, &p->a)};
    chk_collect(l, path, &ctx, mask);
    chk_unload(m, p);
    return 0;
}

typedef struct chk_args {
    int format; /* coal_format */
    const char *baseline, *write, *out;
    unsigned enable, fail_on;
    coal_options co;
    blk_opts blocks;
} chk_args;

static int parse_rules_opt(const char *opt, const char *arg, unsigned *mask)
{
    if (chk_parse_rules(arg, mask)) return 0;
    fprintf(stderr,
            "ptxray check: %s '%s': expected rules among uncoalesced, misaligned, bank-conflict, "
            "divergent-branch separated by commas (or none)\n",
            opt, arg);
    return 2;
}

/* 0, 1 (--help printed) or 2 (usage error printed). */
static int parse_args(int argc, char **argv, chk_args *a)
{
    static const struct option opts[] = {{"format", required_argument, 0, 'f'},
                                         {"baseline", required_argument, 0, 'B'},
                                         {"write-baseline", required_argument, 0, 'W'},
                                         {"fail-on", required_argument, 0, 'F'},
                                         {"enable", required_argument, 0, 'E'},
                                         {"launches", required_argument, 0, 'L'},
                                         {"block", required_argument, 0, 'b'},
                                         {"output", required_argument, 0, 'o'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    memset(a, 0, sizeof *a);
    a->fail_on = a->enable = CHK_DEFAULT_RULES;
    a->co.block_of = blk_option_shape;
    a->co.block_ctx = &a->blocks;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "f:o:b:h", opts, NULL)) != -1) {
        switch (c) {
        case 'f':
            if (!coal_parse_format(optarg, "check", &a->format)) return 2;
            break;
        case 'B': a->baseline = optarg; break;
        case 'W': a->write = optarg; break;
        case 'F':
            if (parse_rules_opt("--fail-on", optarg, &a->fail_on)) return 2;
            break;
        case 'E':
            if (parse_rules_opt("--enable", optarg, &a->enable)) return 2;
            a->enable |= CHK_DEFAULT_RULES;
            break;
        case 'b':
            if (!blk_add(&a->blocks, optarg, "check")) return 2;
            break;
        case 'L':
            if (!blk_add_launches(&a->blocks, optarg, "check")) return 2;
            break;
        case 'o': a->out = optarg; break;
        case 'h': usage(stdout); return 1;
        default: usage(stderr); return 2;
        }
    }
    if (optind >= argc) {
        usage(stderr);
        return 2;
    }
    return 0;
}

static void mark_suppressed(chk_list *l, const fpset *base)
{
    for (size_t i = 0; i < l->n; i++)
        l->v[i].suppressed =
            base->n && bsearch(&l->v[i].fingerprint, base->v, base->n, sizeof *base->v, cmp_u64) != NULL;
}

static int report(const chk_args *a, const chk_run *run)
{
    outfile of;
    if (outfile_open(&of, a->out)) return 2;
    if (a->format == COAL_FMT_TEXT) chk_report_text(of.f, run);
    else {
        json_t *j = a->format == COAL_FMT_JSON ? chk_report_json(run) : chk_report_sarif(run);
        coal_json_dump(of.f, j);
        json_decref(j);
    }
    return outfile_commit(&of) ? 2 : 0;
}

int cmd_check(int argc, char **argv)
{
    chk_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc) return rc == 1 ? 0 : 2;
    fpset base = {0, NULL};
    if (a.baseline && load_baseline(a.baseline, &base)) {
        free(base.v);
        return 2;
    }
    strvec files = {0, 0, NULL};
    rc = collect_paths(&files, argv + optind, argc - optind);
    /* a CI job pointed at the wrong directory must not pass quietly */
    if (!files.n) {
        fputs("ptxray check: no PTX file found\n", stderr);
        rc = 2;
    }
    chk_list l;
    memset(&l, 0, sizeof l);
    unsigned enabled = a.enable | a.fail_on;
    size_t nbad = 0;
    bool progress = files.n >= CHK_PROGRESS_MIN && isatty(2);
    for (size_t i = 0; i < files.n; i++) {
        if (progress) fprintf(stderr, "\rptxray check: %zu/%zu files", i + 1, files.n);
        if (check_file(&l, files.v[i], &a.co, &a.blocks, enabled)) nbad++;
    }
    if (progress) fputs("\r\033[K", stderr);
    if (nbad) rc = 2;
    chk_sort(&l);
    mark_suppressed(&l, &base);
    chk_run run = {&l, files.n, nbad, enabled, a.fail_on, &a.co};
    if (!blk_check_seen(&a.blocks, "check")) rc = 2; /* nothing written */
    else if (report(&a, &run)) rc = 2;
    /* a baseline missing the findings of a file that failed to parse would
     * hide them later: none is written then */
    if (a.write && !rc) rc = write_baseline(a.write, &l);
    else if (!rc)
        for (size_t i = 0; i < l.n; i++)
            if (!l.v[i].suppressed && a.fail_on >> l.v[i].rule & 1) rc = 1;
    chk_free(&l);
    for (size_t i = 0; i < files.n; i++) free(files.v[i]);
    free(files.v);
    free(base.v);
    return rc;
}
