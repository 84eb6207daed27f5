/* ptxray parse's summary (parse_report.h). */
#include "parse_report.h"
#include "inputs.h"
#include <jansson.h>
#include <stdio.h>
#include "kname.h"
#include "ptx.h"

static json_t *func_json(const ptx_func *f) {
    json_t *o = json_object();
    kn_json(o, "name", f);
    json_object_set_new(o, "kind", json_string(f->is_entry ? "entry" : "func"));
    json_object_set_new(o, "defined", json_boolean(f->has_body));
    json_object_set_new(o, "params", json_integer(f->nparams));
    json_object_set_new(o, "instructions", json_integer(f->ninsts));
    json_object_set_new(o, "registers", json_integer(f->nregs));
    json_object_set_new(o, "line", json_integer(f->loc.line));
    return o;
}

int parse_report(char **files, int n, bool json, bool quiet)
{
    int rc = 0;
    json_t *list = json_array();
    in_units u = {0, 0, NULL};
    for (int i = 0; i < n; i++) rc |= in_expand(&u, "parse", files[i], stderr);
    for (size_t i = 0; i < u.n; i++) {
        const char *path = u.v[i].shown;
        ptx_module *m = in_load(&u.v[i], quiet, stderr);
        if (!m) {
            rc = 2;
            if (json) {
                json_t *o = json_object();
                json_object_set_new(o, "path", json_string(path));
                json_object_set_new(o, "ok", json_false());
                json_array_append_new(list, o);
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
            json_object_set_new(o, "path", json_string(path));
            json_object_set_new(o, "ok", json_true());
            json_object_set_new(o, "version", json_sprintf("%u.%u", m->version_major, m->version_minor));
            json_object_set_new(o, "bytes", json_integer((json_int_t)m->src_len));
            for (uint32_t k = 0; k < m->nfuncs; k++) json_array_append_new(fs, func_json(m->funcs[k]));
            json_object_set_new(o, "functions", fs);
            json_array_append_new(list, o);
        } else if (!quiet) {
            printf("%s: PTX %u.%u, %u kernel%s, %u device function%s, %u instruction%s\n", path,
                   m->version_major, m->version_minor, nk, nk == 1 ? "" : "s", nf, nf == 1 ? "" : "s", ni,
                   ni == 1 ? "" : "s");
            for (uint32_t k = 0; k < m->nfuncs; k++) {
                const ptx_func *f = m->funcs[k];
                if (!f->has_body) continue;
                printf("  %-6s ", f->is_entry ? ".entry" : ".func");
                kn_print(stdout, f);
                printf(": %u param%s, %u instruction%s, %u register%s used\n", f->nparams,
                       f->nparams == 1 ? "" : "s", f->ninsts, f->ninsts == 1 ? "" : "s", f->nregs,
                       f->nregs == 1 ? "" : "s");
            }
        }
        ptx_module_free(m);
    }
    in_free(&u);
    if (json) {
        json_t *root = json_object();
        json_object_set_new(root, "files", list);
        json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        fputc('\n', stdout);
        json_decref(root);
    } else {
        json_decref(list);
    }
    return rc;
}
