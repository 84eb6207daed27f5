/* `ptxray roundtrip`: a file and its printed form assembled with the same
 * ptxas and options (the file's .target; -g when it says debug), their
 * code sections (.text.*) compared byte for byte.  Debug sections are left
 * out: they legitimately change when comments or blank lines move. */
#ifndef PTXRAY_ROUNDTRIP_H
#define PTXRAY_ROUNDTRIP_H

/* One file, its temporaries in dir; arch_opt NULL: the .target's.  Prints
 * "PATH: identical (...)" or "PATH: DIFFERENT (...)" on stdout, errors on
 * stderr.  Returns 0 identical, 1 different, 2 error. */
int rt_file(const char *ptxas, const char *path, const char *arch_opt, const char *dir);

#endif
