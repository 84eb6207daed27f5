/* Reconvergence at the immediate post-dominator, as stack-based SIMT
 * hardware does.  The CFG is built without CFG_SPLIT_LOOP_EXITS, so every
 * block is a range of real statements.  Any choice of reconvergence point
 * keeps each thread's own sequence of instructions (simt.c only merges
 * lanes that wait at the same pc), so a function whose CFG cannot be built
 * still runs correctly, just without reconvergence. */
#include "reconv.h"

uint32_t emu_reconv_point(const cfg *g, uint32_t stmt)
{
    uint32_t b = g->stmt_block[stmt];
    if (b == CFG_NONE) return EMU_NONE;
    uint32_t ip = g->blocks[b].ipdom;
    if (ip == CFG_NONE || ip == CFG_EXIT) return EMU_NONE;
    uint32_t s = cfg_block_resume_stmt(g, ip);
    return s >= g->fn->nstmts ? EMU_NONE : s;
}

void emu_reconv_fill(emu_machine *M, efunc *F)
{
    (void)M;
    arena a;
    arena_init(&a);
    cfg *g = cfg_build(F->fn, &a, 0, NULL);
    for (uint32_t pc = 0; pc < F->ncode; pc++) {
        einst *I = &F->code[pc];
        if (I->ctl != CTL_BRA && I->ctl != CTL_BRX) continue;
        I->rpc = EMU_NONE;
        if (!g) continue;
        uint32_t s = emu_reconv_point(g, I->stmt);
        if (s != EMU_NONE) I->rpc = F->stmt_pc[s];
    }
    arena_free(&a);
}
