/* Parallel batches (batch.h): a pool of threads taking the next file,
 * and the calling thread handing the results back in order. */
#include "batch.h"
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Files a worker may run ahead of the first one not handed back. */
#define BATCH_AHEAD 4
/* The progress line is shown for batches of this many files or more. */
#define BATCH_PROGRESS_MIN 20
/* The analyses recurse: the threads get the stack the main thread has. */
#define BATCH_STACK ((size_t)64 << 20)

typedef struct slot {
    void *result;
    char *err;
    size_t nerr;
    bool done;
} slot;

typedef struct pool {
    pthread_mutex_t mu;
    pthread_cond_t can_take, finished;
    size_t n, next, emitted, ahead;
    slot *s;
    batch_work work;
    void *ctx;
    unsigned nworkers;
} pool;

typedef struct worker {
    pool *p;
    unsigned w;
} worker;

unsigned batch_default_jobs(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > BATCH_MAX_JOBS ? BATCH_MAX_JOBS : (unsigned)n;
}

bool batch_parse_jobs(const char *arg, const char *cmd, unsigned *jobs)
{
    char *end;
    errno = 0;
    long v = *arg >= '0' && *arg <= '9' ? strtol(arg, &end, 10) : 0;
    if (v < 1 || v > BATCH_MAX_JOBS || errno || *end) {
        fprintf(stderr, "ptxray %s: -j '%s': expected a number of parallel jobs from 1 to %d\n", cmd, arg,
                BATCH_MAX_JOBS);
        return false;
    }
    *jobs = (unsigned)v;
    return true;
}

/* One file's work with its diagnostics caught. */
static void run_one(batch_work work, void *ctx, unsigned w, size_t i, slot *s)
{
    FILE *err = open_memstream(&s->err, &s->nerr);
    if (!err) abort();
    s->result = work(ctx, w, i, err);
    if (fclose(err)) abort();
}

static void *worker_main(void *arg)
{
    worker *wk = arg;
    pool *p = wk->p;
    for (;;) {
        pthread_mutex_lock(&p->mu);
        while (p->next < p->n && p->next >= p->emitted + p->ahead) pthread_cond_wait(&p->can_take, &p->mu);
        if (p->next >= p->n) {
            pthread_mutex_unlock(&p->mu);
            return NULL;
        }
        size_t i = p->next++;
        pthread_mutex_unlock(&p->mu);
        slot one = {0};
        run_one(p->work, p->ctx, wk->w, i, &one);
        pthread_mutex_lock(&p->mu);
        p->s[i] = one;
        p->s[i].done = true;
        pthread_cond_signal(&p->finished);
        pthread_mutex_unlock(&p->mu);
    }
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

typedef struct progress {
    bool on;
    const batch_opts *o;
    size_t n;
    double t0, bytes;
} progress;

static void progress_step(progress *g, size_t i)
{
    if (!g->on) return;
    struct stat st;
    if (stat(g->o->paths[i], &st) == 0) g->bytes += (double)st.st_size;
    double dt = now() - g->t0;
    fprintf(stderr, "\rptxray %s: %zu/%zu files, %.1f MB/s", g->o->cmd, i + 1, g->n,
            dt > 0 ? g->bytes / 1e6 / dt : 0.0);
}

/* Copies a file's diagnostics to stderr (the progress line erased first,
 * redrawn by the next step) unless the batch was stopped, and hands its
 * result back; false once stopped. */
static bool hand_back(progress *g, slot *s, size_t i, batch_emit emit, void *ctx, bool stopped)
{
    if (s->nerr && !stopped) {
        if (g->on) fputs("\r\033[K", stderr);
        fwrite(s->err, 1, s->nerr, stderr);
    }
    free(s->err);
    s->err = NULL;
    bool go = emit(ctx, i, s->result) && !stopped;
    if (go) progress_step(g, i);
    return go;
}

void batch_run(size_t n, const batch_opts *o, batch_work work, batch_emit emit, void *ctx)
{
    progress g = {n >= BATCH_PROGRESS_MIN && o->paths && isatty(2), o, n, now(), 0};
    unsigned jobs = o->jobs ? o->jobs : 1;
    if (jobs > n) jobs = n ? (unsigned)n : 1;
    slot *s = calloc(n ? n : 1, sizeof *s);
    if (!s) abort();
    if (jobs == 1) {
        for (size_t i = 0; i < n; i++) {
            run_one(work, ctx, 0, i, &s[i]);
            if (!hand_back(&g, &s[i], i, emit, ctx, false)) break;
        }
    } else {
        pool p = {.n = n, .ahead = (size_t)jobs * BATCH_AHEAD, .s = s, .work = work, .ctx = ctx};
        pthread_mutex_init(&p.mu, NULL);
        pthread_cond_init(&p.can_take, NULL);
        pthread_cond_init(&p.finished, NULL);
        pthread_t *t = malloc(sizeof *t * jobs);
        worker *wk = malloc(sizeof *wk * jobs);
        if (!t || !wk) abort();
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setstacksize(&attr, BATCH_STACK);
        for (unsigned w = 0; w < jobs; w++) {
            wk[w] = (worker){&p, w};
            if (pthread_create(&t[w], &attr, worker_main, &wk[w])) abort();
        }
        pthread_attr_destroy(&attr);
        bool stopped = false;
        for (size_t i = 0; i < n; i++) {
            pthread_mutex_lock(&p.mu);
            if (stopped && i >= p.next) { /* not started */
                pthread_mutex_unlock(&p.mu);
                break;
            }
            while (!s[i].done) pthread_cond_wait(&p.finished, &p.mu);
            pthread_mutex_unlock(&p.mu);
            bool go = hand_back(&g, &s[i], i, emit, ctx, stopped);
            pthread_mutex_lock(&p.mu);
            if (!go && !stopped) {
                stopped = true;
                if (p.next > i + 1) p.n = p.next; /* the started ones finish */
                else p.n = i + 1;
            }
            p.emitted = i + 1;
            pthread_cond_broadcast(&p.can_take);
            pthread_mutex_unlock(&p.mu);
        }
        for (unsigned w = 0; w < jobs; w++) pthread_join(t[w], NULL);
        pthread_cond_destroy(&p.finished);
        pthread_cond_destroy(&p.can_take);
        pthread_mutex_destroy(&p.mu);
        free(wk);
        free(t);
    }
    if (g.on) fputs("\r\033[K", stderr);
    free(s);
}
