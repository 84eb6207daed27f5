/* The project file (ptxray.yaml, report/config.h) as every command that
 * reads it takes it: the options `--config FILE` and `--no-config`, and
 * the run between opening the inputs' files and saying what they did.
 * Each command keeps its own --help text (the wording differs). */
#ifndef PTXRAY_CONFIG_OPT_H
#define PTXRAY_CONFIG_OPT_H
#include <getopt.h>
#include <stdbool.h>
#include "config.h"

/* getopt_long codes: no command has -C or -N as a short option */
enum { CFG_OPT_FILE = 'C', CFG_OPT_NONE = 'N' };

/* The two as struct option entries, for a command's table. */
#define CFG_OPT_LONG {"config", required_argument, 0, CFG_OPT_FILE}, {"no-config", no_argument, 0, CFG_OPT_NONE}

/* Whether getopt's c is one of the two (then taken into o). */
bool cfg_opt_take(int c, const char *arg, cfg_opt *o);

/* Opens the project files of the n inputs into s before anything runs, so
 * that an error in one stops the run: 0, or 2 after the error on stderr
 * (nothing to free then). */
int cfg_opt_open(cfg_set *s, const cfg_opt *o, char *const *inputs, size_t n);

/* The end of a run that opened s: what its files said on stderr
 * (cfg_report_end with supps: kernel entries that named nothing, unbound
 * assumptions, expired suppressions), then s freed.  Returns rc, the
 * run's exit status (what the files said does not change it). */
int cfg_opt_close(cfg_set *s, enum cfg_supps supps, int rc);

#endif
