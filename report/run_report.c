/* ptxray run's launch and report (run_report.h). */
#include "run_report.h"
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "divcheck.h"
#include "kname.h"
#include "launch_table.h"
#include "load.h"
#include "outfile.h"
#include "ptx.h"
#include "names.h"
#include "run_args.h"
#include "srcloc.h"

/* violated divergence claims listed in the text report; JSON has them all */
#define DIVCHECK_LISTED 20u

/* The reports' source column: the frame check names too (srcloc.h), so an
 * atomicAdd is the user's call of it, not device_atomic_functions.hpp. */
static void user_line(void *ctx, const ptx_func *fn, uint32_t stmt, char *buf, size_t n)
{
    src_frame fr;
    if (src_user_frame(ctx, fn, stmt, &fr)) snprintf(buf, n, "%s:%u", fr.file, fr.line);
}

/* --launches FILE: the one run FILE gives kernel (its shape into *block),
 * or NULL after "ptxray run: ..." on stderr: FILE has none or several, or
 * the name it has for kernel names several kernels of m. */
static const hc_run *launch_run(const hc_table *t, const ptx_module *m, const char *kernel, const char *path,
                                emu_dim3 *block)
{
    const ptx_func *kfn = ptx_module_find_func(m, kernel), *hit;
    const hc_run *run = NULL;
    uint32_t n = 0;
    for (size_t i = 0; i < t->n; i++) {
        const char *name = t->k[i].name;
        if (ptx_name_match(kfn, name, strlen(name)) != PTX_NAME_EXACT) continue;
        if (ptx_name_lookup(m, name, strlen(name), true, false, &hit) > 1) {
            fprintf(stderr,
                    "ptxray run: --launches %s: '%s' names several kernels of %s; give its symbol or its C++ name "
                    "in full:\n",
                    path, name, m->path);
            load_list(m, true);
            return NULL;
        }
        for (uint32_t s = 0; s < t->k[i].n; s++)
            for (uint32_t r = 0; r < t->k[i].s[s].nruns; r++, n++)
                if (!run) {
                    run = &t->k[i].s[s].runs[r];
                    *block = (emu_dim3){t->k[i].s[s].block[0], t->k[i].s[s].block[1], t->k[i].s[s].block[2]};
                }
    }
    if (n == 1) return run;
    char *shown = ptx_func_shown(kfn);
    if (n) fprintf(stderr, "ptxray run: --launches %s: %u runs of %s; run takes one (give --grid, --block and --arg)\n",
                   path, n, shown);
    else {
        fprintf(stderr, "ptxray run: --launches %s: no run of %s; the file has runs of:\n", path, shown);
        for (size_t i = 0; i < t->n; i++) {
            uint32_t runs = 0;
            for (uint32_t s = 0; s < t->k[i].n; s++) runs += t->k[i].s[s].nruns;
            if (runs) fprintf(stderr, "  %s\n", t->k[i].name);
        }
    }
    free(shown);
    return NULL;
}

int run_exec(const run_job *j)
{
    const char *path = j->path, *kernel = j->kernel;
    emu_options eo = j->eo;
    emu_dim3 grid = j->grid, block = j->block;
    bool json = j->json;
    ptx_module *m = ptx_load(path, 1);
    if (!m) return 2;
    if (kernel && !(kernel = load_kernel("run", m, path, kernel, true))) {
        ptx_module_free(m);
        return 2;
    }
    if (!kernel) {
        unsigned nk = 0;
        for (uint32_t i = 0; i < m->nfuncs; i++)
            if (m->funcs[i]->is_entry && m->funcs[i]->has_body) {
                nk++;
                kernel = NULL;
            }
        if (nk != 1) {
            fprintf(stderr, "ptxray run: %s has %u kernels; name one with --kernel:\n", path, nk);
            load_list(m, true);
            ptx_module_free(m);
            return 2;
        }
        static char kbuf[1024];
        for (uint32_t i = 0; i < m->nfuncs; i++)
            if (m->funcs[i]->is_entry && m->funcs[i]->has_body)
                snprintf(kbuf, sizeof kbuf, "%.*s", (int)m->funcs[i]->name.n, m->funcs[i]->name.p);
        kernel = kbuf;
    }
    hc_table lt = {0};
    const char *const *argv = j->args; /* --arg, or the run's */
    unsigned nargs = j->nargs;
    if (j->launches) {
        const hc_run *run = NULL;
        if (hc_table_load(&lt, j->launches, stderr) || !(run = launch_run(&lt, m, kernel, j->launches, &block))) {
            hc_table_free(&lt);
            ptx_module_free(m);
            return 2;
        }
        grid = (emu_dim3){run->grid[0], run->grid[1], run->grid[2]};
        argv = (const char *const *)run->args;
        nargs = run->nargs;
    }
    divcheck *dc = NULL;
    if (j->checkdiv) {
        ptx_diags dd;
        ptx_diags_init(&dd);
        dc = divcheck_new(m, j->divan, &dd);
        ptx_diags_print(&dd, path, m->src, m->src_len, stderr);
        ptx_diags_free(&dd);
        if (!dc) {
            fprintf(stderr, "ptxray run: --check-divergence: %s cannot be analysed\n", path);
            hc_table_free(&lt);
            ptx_module_free(m);
            return 2;
        }
        divcheck_begin(dc, block);
        eo.observer = divcheck_observer(dc);
    }
    const ptx_func *kfn = ptx_module_find_func(m, kernel);
    char *shown = ptx_func_shown(kfn); /* the kernel as people name it */
    run_args R;
    memset(&R, 0, sizeof R);
    R.M = emu_create(m, &eo);
    int rc = 0;
    emu_param_info pinfo[RUN_MAX_SPECS];
    uint8_t *argbytes[RUN_MAX_SPECS];
    emu_arg args[RUN_MAX_SPECS];
    unsigned nparams = 0;
    memset(argbytes, 0, sizeof argbytes);
    int np = emu_kernel_params(R.M, kernel, pinfo, RUN_MAX_SPECS);
    if (np < 0) {
        fprintf(stderr, "ptxray run: %s has no kernel named '%s'\n", path, kernel);
        rc = 2;
        goto out;
    }
    nparams = (unsigned)np;
    if (nargs != nparams) {
        fprintf(stderr, "ptxray run: kernel '%s' takes %u parameter%s, %u %s given:", shown, nparams,
                nparams == 1 ? "" : "s", nargs, j->launches ? "arguments" : "--arg");
        for (unsigned i = 0; i < nparams && i < RUN_MAX_SPECS; i++)
            fprintf(stderr, "%s %s%s (%u bytes)", i ? "," : "", pinfo[i].is_array ? ".b8 array" : ptx_type_name((ptx_type)pinfo[i].type),
                    "", pinfo[i].size);
        fputc('\n', stderr);
        rc = 2;
        goto out;
    }
    for (unsigned i = 0; i < j->nbufs; i++) {
        const char *eq = strchr(j->bufs[i], '=');
        char nm[128];
        if (!eq || eq == j->bufs[i] || (size_t)(eq - j->bufs[i]) >= sizeof nm) {
            fprintf(stderr, "ptxray run: --buf '%s': expected NAME=TYPE:COUNT[:INIT]\n", j->bufs[i]);
            rc = 2;
            goto out;
        }
        memcpy(nm, j->bufs[i], (size_t)(eq - j->bufs[i]));
        nm[eq - j->bufs[i]] = 0;
        if (!run_new_buffer(&R, nm, eq + 1)) {
            fprintf(stderr, "ptxray run: --buf '%s': %s\n", j->bufs[i], R.err);
            rc = 2;
            goto out;
        }
    }
    for (unsigned i = 0; i < j->nsets; i++)
        if (!run_set_symbol(&R, j->sets[i])) {
            fprintf(stderr, "ptxray run: %s\n", R.err);
            rc = 2;
            goto out;
        }
    for (unsigned i = 0; i < nparams; i++) {
        argbytes[i] = calloc(pinfo[i].size ? pinfo[i].size : 1, 1);
        if (!argbytes[i] || !run_argument(&R, argv[i], &pinfo[i], argbytes[i])) {
            fprintf(stderr, "ptxray run: --arg %u '%s' (parameter %.*s): %s\n", i + 1, argv[i],
                    (int)pinfo[i].name.n, pinfo[i].name.p, R.err);
            rc = 2;
            goto out;
        }
        args[i] = (emu_arg){argbytes[i], pinfo[i].size};
    }
    /* validate --dump/--print names before running */
    for (unsigned i = 0; i < j->ndumps + j->nprints; i++) {
        const char *s = i < j->ndumps ? j->dumps[i] : j->prints[i - j->ndumps];
        const char *end = strchr(s, i < j->ndumps ? '=' : ':');
        size_t n = end ? (size_t)(end - s) : strlen(s);
        size_t bytes;
        const elem_type *t;
        if ((i < j->ndumps && !end) || !run_named_data(&R, s, n, &bytes, &t)) {
            fprintf(stderr, "ptxray run: %s '%s': %s\n", i < j->ndumps ? "--dump" : "--print", s,
                    i < j->ndumps && !end ? "expected NAME=PATH" : "no buffer or module variable of that name");
            rc = 2;
            goto out;
        }
    }
    ptx_diags d;
    ptx_diags_init(&d);
    emu_status st = emu_launch(R.M, kernel, grid, block, args, nparams, &d);
    ptx_diags_print(&d, path, m->src, m->src_len, stderr);
    ptx_diags_free(&d);
    rc = emu_status_exit_code(st);
    const emu_stats *S = emu_last_stats(R.M);
    json_t *root = json ? json_object() : NULL;
    arena sa;
    arena_init(&sa);
    const emu_srcmap sm = {user_line, src_files_build(m, &sa)};
    if (json) {
        kn_json(root, "kernel", kfn);
        json_object_set_new(root, "status", json_string(emu_status_name(st)));
        json_object_set_new(root, "grid", json_pack("[iii]", grid.x, grid.y, grid.z));
        json_object_set_new(root, "block", json_pack("[iii]", block.x, block.y, block.z));
        json_object_set_new(root, "warp_instructions", json_integer((json_int_t)S->warp_insts));
        json_object_set_new(root, "thread_instructions", json_integer((json_int_t)S->thread_insts));
        json_object_set_new(root, "divergent_branches", json_integer((json_int_t)S->divergent_branches));
        if (S->spill_local_ld + S->spill_local_st + S->spill_shared_ld + S->spill_shared_st)
            json_object_set_new(root, "spill_bytes",
                                json_pack("{s:I,s:I,s:I,s:I}", "local_loaded", (json_int_t)S->spill_local_ld,
                                          "local_stored", (json_int_t)S->spill_local_st, "shared_loaded",
                                          (json_int_t)S->spill_shared_ld, "shared_stored",
                                          (json_int_t)S->spill_shared_st));
        if (S->remat_const + S->remat_affine + S->remat_shared)
            json_object_set_new(root, "remat_executed",
                                json_pack("{s:I,s:I,s:I}", "const", (json_int_t)S->remat_const, "affine",
                                          (json_int_t)S->remat_affine, "shared_affine",
                                          (json_int_t)S->remat_shared));
        if (eo.checks) {
            json_t *rep = emu_report_json(R.M, path, &sm);
            json_object_update(root, rep);
            json_decref(rep);
        }
        if (dc) json_object_set_new(root, "divergence_check", divcheck_report_json(dc, path));
    } else {
        if (!j->quiet)
            printf("%s: kernel %s, grid (%u,%u,%u) x block (%u,%u,%u): %s; %llu warp-instructions, %llu thread-instructions, "
                   "%llu divergent branches\n",
                   path, shown, grid.x, grid.y, grid.z, block.x, block.y, block.z, emu_status_name(st),
                   (unsigned long long)S->warp_insts, (unsigned long long)S->thread_insts,
                   (unsigned long long)S->divergent_branches);
        if (!j->quiet && S->spill_local_ld + S->spill_local_st + S->spill_shared_ld + S->spill_shared_st)
            printf("spill slots (regalloc): .local %llu bytes loaded, %llu stored; .shared %llu bytes loaded, %llu "
                   "stored\n",
                   (unsigned long long)S->spill_local_ld, (unsigned long long)S->spill_local_st,
                   (unsigned long long)S->spill_shared_ld, (unsigned long long)S->spill_shared_st);
        if (!j->quiet && S->remat_const + S->remat_affine + S->remat_shared)
            printf("rematerialisations (regalloc, per lane): const %llu, affine %llu, shared-affine %llu\n",
                   (unsigned long long)S->remat_const, (unsigned long long)S->remat_affine,
                   (unsigned long long)S->remat_shared);
        if (eo.checks && st == EMU_OK) emu_report_text(R.M, path, &sm, stdout);
        else if (eo.checks & EMU_CHECK_SYNC) emu_sync_report_text(R.M, path, &sm, stdout);
        if (dc && st == EMU_OK) divcheck_report_text(dc, path, DIVCHECK_LISTED, stdout);
    }
    if (dc && st == EMU_OK && divcheck_nviolations(dc) && rc == 0) rc = 1;
    if ((eo.checks & EMU_CHECK_RACE) && st == EMU_OK && emu_race_count(R.M) && rc == 0) rc = 1;
    if ((eo.checks & EMU_CHECK_SYNC) && emu_sync_count(R.M) && rc == 0) rc = 1;
    if (st == EMU_OK) {
        json_t *pr = json ? json_object() : NULL;
        for (unsigned i = 0; i < j->nprints; i++) {
            const char *colon = strchr(j->prints[i], ':');
            size_t n = colon ? (size_t)(colon - j->prints[i]) : strlen(j->prints[i]);
            uint64_t count = 16;
            if (colon && !spec_number(colon + 1, &count)) count = 16;
            size_t bytes;
            const elem_type *t;
            const uint8_t *data = run_named_data(&R, j->prints[i], n, &bytes, &t);
            json_t *arr = json ? json_array() : NULL;
            if (!json) printf("%.*s:", (int)n, j->prints[i]);
            for (uint64_t k = 0; k < count && (k + 1) * t->bytes <= bytes; k++) {
                char num[64];
                spec_format(t, data + k * t->bytes, num, sizeof num);
                if (json) json_array_append_new(arr, json_string(num));
                else printf(" %s", num);
            }
            if (json) json_object_set_new(pr, j->prints[i], arr);
            else putchar('\n');
        }
        if (json) json_object_set_new(root, "print", pr);
        for (unsigned i = 0; i < j->ndumps; i++) {
            const char *eq = strchr(j->dumps[i], '=');
            size_t bytes;
            const elem_type *t;
            const uint8_t *data = run_named_data(&R, j->dumps[i], (size_t)(eq - j->dumps[i]), &bytes, &t);
            if (outfile_write(eq + 1, data, bytes)) rc = 2;
        }
    }
    arena_free(&sa);
    if (json) {
        json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        fputc('\n', stdout);
        json_decref(root);
    }
out:
    free(shown);
    for (unsigned i = 0; i < nparams; i++) free(argbytes[i]);
    run_args_free(&R);
    emu_destroy(R.M);
    divcheck_free(dc);
    hc_table_free(&lt);
    ptx_module_free(m);
    return rc;
}
