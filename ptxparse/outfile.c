#include "outfile.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int outfile_open(outfile *o, const char *path) {
    memset(o, 0, sizeof *o);
    if (!path || strcmp(path, "-") == 0) {
        o->f = stdout;
        return 0;
    }
    size_t n = strlen(path);
    o->path = strdup(path);
    o->tmp = malloc(n + 16);
    if (!o->path || !o->tmp) {
        fprintf(stderr, "ptxray: out of memory\n");
        outfile_abort(o);
        return -1;
    }
    snprintf(o->tmp, n + 16, "%s.tmpXXXXXX", path);
    int fd = mkstemp(o->tmp);
    if (fd < 0) {
        fprintf(stderr, "ptxray: cannot create %s: %s\n", path, strerror(errno));
        free(o->tmp);
        o->tmp = NULL;
        outfile_abort(o);
        return -1;
    }
    /* mkstemp makes it 0600: give it the mode a new file gets (0644 under
     * umask 022), as the shell's > would */
    mode_t um = umask(0);
    umask(um);
    if (fchmod(fd, 0666 & ~um)) {
        fprintf(stderr, "ptxray: cannot create %s: %s\n", path, strerror(errno));
        close(fd);
        outfile_abort(o);
        return -1;
    }
    o->f = fdopen(fd, "w");
    if (!o->f) {
        close(fd);
        outfile_abort(o);
        return -1;
    }
    static char buf[1 << 16];
    setvbuf(o->f, buf, _IOFBF, sizeof buf);
    return 0;
}

int outfile_commit(outfile *o) {
    if (!o->path) {
        int bad = fflush(stdout) != 0 || ferror(stdout);
        if (bad) fprintf(stderr, "ptxray: error writing standard output\n");
        return bad ? -1 : 0;
    }
    int bad = ferror(o->f) != 0;
    if (fclose(o->f) != 0) bad = 1;
    o->f = NULL;
    if (bad) {
        fprintf(stderr, "ptxray: error writing %s: %s\n", o->path, strerror(errno));
        outfile_abort(o);
        return -1;
    }
    if (rename(o->tmp, o->path) != 0) {
        fprintf(stderr, "ptxray: cannot write %s: %s\n", o->path, strerror(errno));
        outfile_abort(o);
        return -1;
    }
    free(o->tmp);
    free(o->path);
    memset(o, 0, sizeof *o);
    return 0;
}

void outfile_abort(outfile *o) {
    if (o->f && o->f != stdout) fclose(o->f);
    if (o->tmp) unlink(o->tmp);
    free(o->tmp);
    free(o->path);
    memset(o, 0, sizeof *o);
}

int outfile_write(const char *path, const void *data, size_t len) {
    outfile o;
    if (outfile_open(&o, path)) return -1;
    fwrite(data, 1, len, o.f);
    return outfile_commit(&o);
}
