/* The shared register-allocation options (ra_opts.h). */
#include "ra_opts.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ra_opt_number(const char *cmd, const char *opt, const char *s, unsigned long max, unsigned long *out)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (!*s || *end || errno || v == 0 || v > max || *s == '-') {
        fprintf(stderr, "ptxray %s: %s %s: expected a number from 1 to %lu\n", cmd, opt, s, max);
        return -1;
    }
    *out = v;
    return 0;
}

int ra_opt_set(enum ra_opt which, const char *arg, const char *cmd, ra_options *o)
{
    unsigned long v;
    switch (which) {
    case RA_OPT_BUDGET:
        if (ra_opt_number(cmd, "--budget", arg, 65535, &v)) return -1;
        o->budget = (unsigned)v;
        return 0;
    case RA_OPT_MODE:
        for (int m = RA_MODE_LINEAR; m <= RA_MODE_AFF; m++)
            if (!strcmp(arg, ra_mode_name((enum ra_mode)m))) {
                o->mode = (enum ra_mode)m;
                return 0;
            }
        fprintf(stderr, "ptxray %s: --mode %s: expected linear, div or aff\n", cmd, arg);
        return -1;
    case RA_OPT_MAX_THREADS:
        if (ra_opt_number(cmd, "--max-threads", arg, 1024, &v)) return -1;
        o->max_threads = (uint32_t)v;
        return 0;
    case RA_OPT_SMEM_LIMIT:
        if (ra_opt_number(cmd, "--smem-limit", arg, 1u << 30, &v)) return -1;
        o->smem_limit = (uint32_t)v;
        return 0;
    }
    return -1;
}
