/* libFuzzer target: the emulator (make fuzz-all).  Input: PTX (block
 * shape, grid, schedule and seed, checks hashed from it, fuzz_common.h).  For a
 * module that parses, its first kernel is launched with every pointer
 * parameter a 4 KiB buffer of zeros and every other parameter zero, at
 * most 20,000 warp-instructions.  Whatever the kernel does (faults,
 * traps, deadlocks, unsupported instructions), the emulator must report
 * it and never crash. */
#include <string.h>
#include "emu.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t p[FZ_NPARAM];
    ptx_module *m = fz_input(data, size, p);
    if (!m) return 0;
    const ptx_func *k = NULL;
    for (uint32_t i = 0; i < m->nfuncs && !k; i++)
        if (m->funcs[i]->is_entry && m->funcs[i]->has_body) k = m->funcs[i];
    if (k) {
        static FILE *devnull;
        if (!devnull) devnull = fopen("/dev/null", "w");
        emu_options o;
        memset(&o, 0, sizeof o);
        o.schedule = (emu_schedule)(p[2] % 3);
        o.seed = p[2] >> 2;
        o.max_steps = 20000;
        o.checks = p[3] & 7;
        o.printf_out = devnull;
        emu_machine *M = emu_create(m, &o);
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)k->name.n, k->name.p);
        emu_param_info pi[32];
        int np = emu_kernel_params(M, name, pi, 32);
        if (np >= 0 && np <= 32) {
            uint8_t *bytes[32];
            emu_arg args[32];
            for (int i = 0; i < np; i++) {
                bytes[i] = calloc(pi[i].size ? pi[i].size : 1, 1);
                if (!bytes[i]) abort();
                if (pi[i].size == 8 && !pi[i].is_array) {
                    uint64_t a = emu_malloc(M, 4096, "buf");
                    memcpy(bytes[i], &a, 8);
                }
                args[i] = (emu_arg){bytes[i], pi[i].size};
            }
            uint32_t b[3];
            fz_shape(p, b);
            emu_dim3 grid = {1u + (p[3] >> 3 & 1), 1, 1}, block = {b[0], b[1], b[2]};
            emu_launch(M, name, grid, block, args, (unsigned)np, NULL);
            for (int i = 0; i < np; i++) free(bytes[i]);
        }
        emu_destroy(M);
    }
    ptx_module_free(m);
    return 0;
}
