/* ptxray parse / print: the front end's own commands. */
#include <getopt.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "outfile.h"
#include "printer.h"

ptx_module *cli_load(const char *path, int quiet) {
    ptx_diags d;
    ptx_diags_init(&d);
    ptx_module *m = ptx_parse_file(path, &d);
    if (!quiet || !m) {
        /* the module owns the source; on failure reread it for the caret lines */
        const char *src = m ? m->src : NULL;
        size_t len = m ? m->src_len : 0;
        char *tmp = NULL;
        if (!m && d.n) {
            FILE *f = strcmp(path, "-") ? fopen(path, "rb") : NULL;
            if (f) {
                fseek(f, 0, SEEK_END);
                long n = ftell(f);
                fseek(f, 0, SEEK_SET);
                if (n > 0 && (tmp = malloc((size_t)n + 1)) && fread(tmp, 1, (size_t)n, f) == (size_t)n) {
                    src = tmp;
                    len = (size_t)n;
                }
                fclose(f);
            }
        }
        ptx_diags_print(&d, strcmp(path, "-") ? path : "<stdin>", src, len, stderr);
        free(tmp);
    }
    ptx_diags_free(&d);
    return m;
}

prog *cli_load_prog(const char *cmd, const char *path, const char *kernel, enum prog_level level, ptx_module **mp)
{
    *mp = NULL;
    ptx_module *m = cli_load(path, 1);
    if (!m) return NULL;
    const ptx_func *fn = kernel ? ptx_module_find_func(m, kernel) : NULL;
    if (kernel && (!fn || !fn->has_body)) {
        if (!fn) fprintf(stderr, "ptxray %s: %s: no function named '%s'\n", cmd, path, kernel);
        else fprintf(stderr, "ptxray %s: %s: '%s' is only declared here (no body)\n", cmd, path, kernel);
        ptx_module_free(m);
        return NULL;
    }
    ptx_diags d;
    ptx_diags_init(&d);
    prog *p = prog_build(m, level, kernel, &d);
    if (!p) {
        ptx_diags_print(&d, path, m->src, m->src_len, stderr);
        ptx_module_free(m);
    } else {
        *mp = m;
    }
    ptx_diags_free(&d);
    return p;
}

static void parse_usage(FILE *o) {
    fputs("usage: ptxray parse [--format text|json] [-q] FILE...\n"
          "Parses each file (\"-\" reads standard input) and prints a summary of its\n"
          "functions.  Errors are reported as file:line:col with the source line;\n"
          "the exit status is 2 if any file has an error, else 0.\n", o);
}

static json_t *func_json(const ptx_func *f) {
    json_t *o = json_object();
    json_object_set_new(o, "name", json_stringn(f->name.p, f->name.n));
    json_object_set_new(o, "kind", json_string(f->is_entry ? "entry" : "func"));
    json_object_set_new(o, "defined", json_boolean(f->has_body));
    json_object_set_new(o, "params", json_integer(f->nparams));
    json_object_set_new(o, "instructions", json_integer(f->ninsts));
    json_object_set_new(o, "registers", json_integer(f->nregs));
    json_object_set_new(o, "line", json_integer(f->loc.line));
    return o;
}

int cmd_parse(int argc, char **argv) {
    static const struct option opts[] = {
        {"format", required_argument, 0, 'f'}, {"quiet", no_argument, 0, 'q'},
        {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    int json = 0, quiet = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "f:qh", opts, NULL)) != -1) {
        switch (c) {
        case 'f':
            if (!strcmp(optarg, "json")) json = 1;
            else if (strcmp(optarg, "text")) { fprintf(stderr, "ptxray parse: unknown format '%s'\n", optarg); return 2; }
            break;
        case 'q': quiet = 1; break;
        case 'h': parse_usage(stdout); return 0;
        default: parse_usage(stderr); return 2;
        }
    }
    if (optind >= argc) { parse_usage(stderr); return 2; }
    int rc = 0;
    json_t *files = json_array();
    for (int i = optind; i < argc; i++) {
        ptx_module *m = cli_load(argv[i], quiet);
        if (!m) {
            rc = 2;
            if (json) {
                json_t *o = json_object();
                json_object_set_new(o, "path", json_string(argv[i]));
                json_object_set_new(o, "ok", json_false());
                json_array_append_new(files, o);
            }
            continue;
        }
        uint32_t nk = 0, nf = 0, ni = 0;
        for (uint32_t k = 0; k < m->nfuncs; k++) {
            if (!m->funcs[k]->has_body) continue;
            if (m->funcs[k]->is_entry) nk++;
            else nf++;
            ni += m->funcs[k]->ninsts;
        }
        if (json) {
            json_t *o = json_object(), *fs = json_array();
            json_object_set_new(o, "path", json_string(argv[i]));
            json_object_set_new(o, "ok", json_true());
            json_object_set_new(o, "version", json_sprintf("%u.%u", m->version_major, m->version_minor));
            json_object_set_new(o, "bytes", json_integer((json_int_t)m->src_len));
            for (uint32_t k = 0; k < m->nfuncs; k++) json_array_append_new(fs, func_json(m->funcs[k]));
            json_object_set_new(o, "functions", fs);
            json_array_append_new(files, o);
        } else if (!quiet) {
            printf("%s: PTX %u.%u, %u kernel%s, %u device function%s, %u instruction%s\n", argv[i],
                   m->version_major, m->version_minor, nk, nk == 1 ? "" : "s", nf, nf == 1 ? "" : "s", ni,
                   ni == 1 ? "" : "s");
            for (uint32_t k = 0; k < m->nfuncs; k++) {
                const ptx_func *f = m->funcs[k];
                if (!f->has_body) continue;
                printf("  %-6s %.*s: %u param%s, %u instruction%s, %u register%s used\n",
                       f->is_entry ? ".entry" : ".func", (int)f->name.n, f->name.p, f->nparams,
                       f->nparams == 1 ? "" : "s", f->ninsts, f->ninsts == 1 ? "" : "s", f->nregs,
                       f->nregs == 1 ? "" : "s");
            }
        }
        ptx_module_free(m);
    }
    if (json) {
        json_t *root = json_object();
        json_object_set_new(root, "files", files);
        json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        fputc('\n', stdout);
        json_decref(root);
    } else {
        json_decref(files);
    }
    return rc;
}

static void print_usage(FILE *o) {
    fputs("usage: ptxray print FILE [-o OUT]\n"
          "Parses FILE and prints it back from the IR (to OUT, or standard output).\n"
          "The output assembles to the same machine code; comments are dropped.\n"
          "On any error nothing is written and the exit status is 2.\n", o);
}

int cmd_print(int argc, char **argv) {
    static const struct option opts[] = {
        {"output", required_argument, 0, 'o'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    const char *out = NULL;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'h': print_usage(stdout); return 0;
        default: print_usage(stderr); return 2;
        }
    }
    if (optind + 1 != argc) { print_usage(stderr); return 2; }
    ptx_module *m = cli_load(argv[optind], 1);
    if (!m) return 2;
    outfile of;
    if (outfile_open(&of, out)) { ptx_module_free(m); return 2; }
    ptx_print_module(of.f, m);
    ptx_module_free(m);
    return outfile_commit(&of) ? 2 : 0;
}
