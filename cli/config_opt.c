/* The project-file options and run of the commands (config_opt.h). */
#include "config_opt.h"

bool cfg_opt_take(int c, const char *arg, cfg_opt *o)
{
    if (c == CFG_OPT_FILE) {
        o->mode = CONFIG_FILE;
        o->file = arg;
    } else if (c == CFG_OPT_NONE) o->mode = CONFIG_NONE;
    return c == CFG_OPT_FILE || c == CFG_OPT_NONE;
}

int cfg_opt_open(cfg_set *s, const cfg_opt *o, char *const *inputs, size_t n)
{
    return cfg_set_open(s, o->mode, o->file, inputs, n);
}

int cfg_opt_close(cfg_set *s, enum cfg_supps supps, int rc)
{
    cfg_report_end(s, NULL, stderr, false, supps);
    cfg_set_free(s);
    return rc;
}
