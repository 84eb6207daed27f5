/* ptxray nvcc: the options of the nvcc wrapper (docs/nvcc.md); the work
 * is toolchain/nvcc_wrap.c's (nvcc with ptxray as its ptxas), the ptxas
 * step toolchain/nvcc_step.c's, the warnings report/nvcc_warn.c's. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "check_findings.h"
#include "commands.h"
#include "config.h"
#include "nvcc_step.h"
#include "nvcc_warn.h"
#include "toolchain.h"

#define DEFAULT_RULES                                                                                        \
    (1u << CHK_UNCOALESCED | 1u << CHK_BANK_CONFLICT | 1u << CHK_DIVERGENT_BARRIER | 1u << CHK_DIVERGENT_COLLECTIVE)

static void usage(FILE *o)
{
    fputs("usage: ptxray nvcc [PATH-TO-NVCC] [--ptxray-OPTION ...] NVCC-ARGS...\n"
          "Runs nvcc with NVCC-ARGS as they are; at each ptxas step (once per real target\n"
          "architecture) the PTX is analysed, its findings printed as compiler warnings at\n"
          "their .cu lines, and, when asked, rewritten by `ptxray regalloc` before ptxas.\n"
          "Without --ptxray options the outputs are those of nvcc alone.  nvcc is the\n"
          "PATH-TO-NVCC given first (as CMake's CUDA compiler launcher passes it), else\n"
          "$NVCC, PATH, /usr/local/cuda/bin.  Options also come from $PTXRAY_FLAGS.\n"
          "  --ptxray-warn=RULES     rules warned about: uncoalesced, misaligned,\n"
          "                          bank-conflict, divergent-branch, divergent-barrier,\n"
          "                          divergent-collective, comma-separated, or none (default\n"
          "                          uncoalesced,bank-conflict,divergent-barrier,\n"
          "                          divergent-collective)\n"
          "  --ptxray-possible       possible findings too (default: proven ones only)\n"
          "  --ptxray-werror         a warning fails the compilation (exit 1)\n"
          "  --ptxray-budget=K       rewrite: regalloc --budget K (32-bit units)\n"
          "  --ptxray-target-regs[=N]  rewrite: regalloc --target-regs N (shared slots and\n"
          "                          rematerialisation only, so that ptxas at\n"
          "                          -maxrregcount N spills less); N defaults to nvcc's\n"
          "                          -maxrregcount\n"
          "  --ptxray-mode=M         the rewrite's mode: linear, div or aff (default aff)\n"
          "  --ptxray-block=[KERNEL=]X,Y,Z  a block shape (default: ptxray.yaml's, else\n"
          "                          .reqntid, else the .cu's launches (for the warnings;\n"
          "                          not the rewrite), else blockDim.x a multiple of 32)\n"
          "  --ptxray-strict         PTX ptxray cannot analyse or rewrite fails the\n"
          "                          compilation (exit 2) instead of going to ptxas as it is\n"
          "  --ptxray-help           this text (`ptxray nvcc --help` too; with an nvcc path\n"
          "                          first, --help is nvcc's)\n"
          "Each rewritten kernel gets one line on stderr with ptxas's spill bytes before and\n"
          "after.  Exit status: nvcc's; 2 for bad ptxray options or a --ptxray-strict\n"
          "refusal.\n",
          o);
}

static int num(const char *opt, const char *s, unsigned max, unsigned *out)
{
    char *end;
    errno = 0;
    unsigned long v = s ? strtoul(s, &end, 10) : 0;
    if (!s || !*s || *end || errno || v == 0 || v > max || *s == '-') {
        fprintf(stderr, "ptxray nvcc: %s %s: expected a number from 1 to %u\n", opt, s ? s : "(missing)", max);
        return -1;
    }
    *out = (unsigned)v;
    return 0;
}

static bool is_num(const char *s) { return s && *s && strspn(s, "0123456789") == strlen(s); }

typedef struct popt {
    const char *name;
    int arg; /* 0 none, 1 required, 2 optional (=V or a number after) */
} popt;

static const popt popts[] = {{"warn", 1},   {"possible", 0}, {"werror", 0}, {"budget", 1}, {"target-regs", 2},
                             {"mode", 1},   {"block", 1},    {"strict", 0}, {"help", 0},   {NULL, 0}};

/* One --ptxray-NAME[=V] option (next: the argument after it, for "NAME V").
 * Returns the arguments used (1 or 2), 0 for --ptxray-help, -1 after a
 * message. */
static int one(nvw_opts *o, const char *a, const char *next, bool *mode_given)
{
    const char *n = a + 9, *eq = strchr(n, '=');
    size_t nl = eq ? (size_t)(eq - n) : strlen(n);
    const popt *p = popts;
    while (p->name && !(strlen(p->name) == nl && !strncmp(p->name, n, nl))) p++;
    if (!p->name) {
        fprintf(stderr, "ptxray nvcc: %s: unknown ptxray option\n", a);
        return -1;
    }
    const char *v = eq ? eq + 1 : NULL;
    int used = 1;
    if (!v && p->arg == 1) {
        if (!next) {
            fprintf(stderr, "ptxray nvcc: %s: missing value\n", a);
            return -1;
        }
        v = next, used = 2;
    } else if (!v && p->arg == 2 && is_num(next)) v = next, used = 2;
    if (v && !p->arg) {
        fprintf(stderr, "ptxray nvcc: %s takes no value\n", a);
        return -1;
    }
    if (!strcmp(p->name, "help")) return 0;
    if (!strcmp(p->name, "warn")) {
        if (!strcmp(v, "none")) o->rules = 0;
        else if (!chk_parse_rules(v, &o->rules)) {
            fprintf(stderr, "ptxray nvcc: --ptxray-warn %s: expected " CHK_RULE_LIST " (comma-separated) or none\n", v);
            return -1;
        }
    } else if (!strcmp(p->name, "possible")) o->possible = true;
    else if (!strcmp(p->name, "werror")) o->werror = true;
    else if (!strcmp(p->name, "strict")) o->strict = true;
    else if (!strcmp(p->name, "budget")) {
        if (num("--ptxray-budget", v, 65535, &o->budget)) return -1;
    } else if (!strcmp(p->name, "target-regs")) {
        if (v && num("--ptxray-target-regs", v, 255, &o->target)) return -1;
        if (!v) o->target_maxr = true;
    } else if (!strcmp(p->name, "mode")) {
        if (!strcmp(v, "linear")) o->ro.mode = RA_MODE_LINEAR;
        else if (!strcmp(v, "div")) o->ro.mode = RA_MODE_DIV;
        else if (!strcmp(v, "aff")) o->ro.mode = RA_MODE_AFF;
        else {
            fprintf(stderr, "ptxray nvcc: --ptxray-mode %s: expected linear, div or aff\n", v);
            return -1;
        }
        *mode_given = true;
    } else if (!blk_add(&o->blocks, v, "nvcc")) return -1;
    /* the normalised token, for the ptxas step */
    char *t = malloc(strlen(p->name) + (v ? strlen(v) : 0) + 12);
    if (!t) abort();
    sprintf(t, "--ptxray-%s%s%s", p->name, v ? "=" : "", v ? v : "");
    o->tokens = realloc(o->tokens, (size_t)(o->ntokens + 1) * sizeof *o->tokens);
    if (!o->tokens) abort();
    o->tokens[o->ntokens++] = t;
    return used;
}

/* args[0..n): the --ptxray options into o, the rest into rest (*nrest).
 * 0, 1 for --ptxray-help, -1 after a message. */
static int take(nvw_opts *o, char **args, int n, char **rest, int *nrest, bool *mode_given)
{
    for (int i = 0; i < n; i++) {
        if (strncmp(args[i], "--ptxray-", 9)) {
            if (rest) rest[(*nrest)++] = args[i];
            continue;
        }
        int u = one(o, args[i], i + 1 < n ? args[i + 1] : NULL, mode_given);
        if (u <= 0) return u < 0 ? -1 : 1;
        i += u - 1;
    }
    return 0;
}

/* The whitespace-separated words of s (a copy in *buf), or the lines
 * when sep is "\n". */
static char **words(const char *s, const char *sep, int *n, char **buf)
{
    *n = 0;
    *buf = strdup(s ? s : "");
    if (!*buf) abort();
    char **v = calloc(strlen(*buf) / 2 + 2, sizeof *v);
    if (!v) abort();
    char *save = NULL;
    for (char *w = strtok_r(*buf, sep, &save); w; w = strtok_r(NULL, sep, &save)) v[(*n)++] = w;
    return v;
}

static bool is_nvcc_path(const char *a)
{
    const char *b = strrchr(a, '/');
    b = b ? b + 1 : a;
    struct stat st;
    return a[0] != '-' && (!strcmp(b, "nvcc") || !strcmp(b, "nvcc.exe")) && !stat(a, &st) && S_ISREG(st.st_mode) &&
           !access(a, X_OK);
}

static void opts_free(nvw_opts *o)
{
    for (int i = 0; i < o->ntokens; i++) free(o->tokens[i]);
    free(o->tokens);
}

int cmd_nvcc(int argc, char **argv)
{
    nvw_opts o;
    memset(&o, 0, sizeof o);
    o.ro.mode = RA_MODE_AFF;
    o.ro.blocks = &o.blocks;
    o.rules = DEFAULT_RULES;
    bool mode_given = false, step = argc > 1 && !strcmp(argv[1], NVW_STEP_ARG);
    int rc = 0, nenv = 0, nrest = 0;
    char *envbuf = NULL;
    char **env = words(getenv(step ? NVW_ENV_OPTS : "PTXRAY_FLAGS"), step ? "\n" : " \t\n", &nenv, &envbuf);
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    if (!rest) abort();
    if (argc < 2 || (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")))) rc = 1;
    if (!rc) rc = take(&o, env, nenv, NULL, NULL, &mode_given);
    if (rc < 0) fputs("ptxray nvcc: (in $PTXRAY_FLAGS)\n", stderr);
    if (!rc && step) {
        /* the project file of the step's .cu (config.h), for its warnings
         * and its rewrite alike: read once, kept until ptxas replaces the
         * process */
        cfg_set configs;
        cfg_set_init(&configs, CONFIG_DISCOVER, NULL);
        o.config_ctx = &configs;
        o.config_shapes = nvw_config_shapes;
        rc = nvw_step(&o, argv + 2, argc - 2, nvw_warn);
        cfg_set_free(&configs);
        goto done;
    }
    int first = argc > 1 && is_nvcc_path(argv[1]) ? 2 : 1;
    if (!rc) rc = take(&o, argv + first, argc - first, rest, &nrest, &mode_given);
    if (!rc && o.budget && (o.target || o.target_maxr)) {
        fputs("ptxray nvcc: --ptxray-budget and --ptxray-target-regs exclude each other\n", stderr);
        rc = -1;
    }
    if (!rc && (o.target || o.target_maxr) && o.ro.mode == RA_MODE_LINEAR) {
        fputs("ptxray nvcc: --ptxray-target-regs takes no --ptxray-mode linear (it never adds .local spills)\n",
              stderr);
        rc = -1;
    }
    if (!rc && mode_given && !nvw_rewrites(&o)) {
        fputs("ptxray nvcc: --ptxray-mode needs --ptxray-budget or --ptxray-target-regs\n", stderr);
        rc = -1;
    }
    if (rc) {
        if (rc > 0) usage(stdout);
        else fputs("(`ptxray nvcc --ptxray-help` for the usage)\n", stderr);
        rc = rc > 0 ? 0 : 2;
        goto done;
    }
    /* Make exports a command line's NVCC="ptxray nvcc" to its recipes: an
     * $NVCC that is no executable is not nvcc's path */
    const char *env_nvcc = getenv("NVCC");
    if (env_nvcc && access(env_nvcc, X_OK)) unsetenv("NVCC");
    const char *nvcc = first == 2 ? argv[1] : tc_find_nvcc();
    if (!nvcc) {
        fputs("ptxray nvcc: nvcc not found ($NVCC, PATH, /usr/local/cuda/bin)\n", stderr);
        rc = 2;
    } else rc = nvw_wrap(&o, nvcc, rest, nrest);
done:
    free(rest);
    free(env);
    free(envbuf);
    opts_free(&o);
    return rc;
}
