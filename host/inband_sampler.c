/* inband_sampler — mw record's in-band sampler (mw_inband.h, docs/inband.md).
 *
 * Two threads and a connection of its own to the run store (mw_store_open_write: a second
 * writer beside the recorder, whose transactions it waits for through the busy timeout).
 * The sampling thread reads every source hz times a second on CLOCK_MONOTONIC deadlines,
 * stamps each read with CLOCK_REALTIME (the meter's windows' time axis), and queues the
 * window since the last good read of that source; the writing thread takes the queue once
 * a second and stores it in one short transaction (sorted by source, 32 rows a statement),
 * so the sampling never waits for the disk or the recorder; while the store is busy beyond
 * its timeout what was read waits for the next turn, and is lost only when the last
 * attempts at the end fail. A read that fails starts a gap, queued when a read succeeds
 * again (or at the end); the window after it spans the gap and holds the counter's exact
 * difference (MW_INBAND_FLAG_AFTER_GAP). Power sources (NVML without an energy counter)
 * are integrated by the trapezoid rule between samples. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "inband_internal.h"
#include "mw_alloc.h"
#include "mw_store.h"
#include "store_internal.h"

#define WRITE_PERIOD_NS 1000000000LL /* as the recorder commits; 1,600 rows a commit cost
                                         15 % less a row than 800 */
#define FLUSH_LAST_TRIES 3 /* the last flush's attempts, each waiting the busy timeout */

typedef struct {
    mw_inband_src *src;
    int source; /* the store's number */
    mw_inband_counter ctr;
    int have;
    int64_t last_t_ns, last_power_mw, sampled_uj;
    uint32_t seq;
    int failing;
    int64_t fail_since_ns, fails, backwards;
    char first_why[200];
} track;

typedef struct {
    int source;
    int64_t start_ns, end_ns;
    char reason[240];
} gap_row;

struct mw_inband_sampler {
    mw_store *st;
    track t[MW_INBAND_MAX_SOURCES];
    int n;
    int64_t period_ns;
    pthread_t sampler, writer;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int stop_sampling, stop_writing, writer_started;
    mw_inband_window *q;
    size_t nq, capq;
    gap_row *g;
    size_t ng, capg;
    int store_failed;
    char store_err[512];
    int64_t cpu_ns, write_cpu_ns; /* the threads' CPU time at their end */
};

static int64_t now_ns(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* under the lock */
static void queue_window(mw_inband_sampler *S, const mw_inband_window *w)
{
    if (S->nq == S->capq) S->q = mw_xrealloc(S->q, (S->capq = S->capq ? 2 * S->capq : 256) * sizeof *S->q);
    S->q[S->nq++] = *w;
}

static void queue_gap(mw_inband_sampler *S, track *k, int64_t end_ns)
{
    pthread_mutex_lock(&S->mu);
    if (S->ng == S->capg) S->g = mw_xrealloc(S->g, (S->capg = S->capg ? 2 * S->capg : 16) * sizeof *S->g);
    gap_row *g = &S->g[S->ng++];
    g->source = k->source;
    g->start_ns = k->fail_since_ns;
    g->end_ns = end_ns;
    snprintf(g->reason, sizeof g->reason, "read failed: %s", k->first_why);
    pthread_mutex_unlock(&S->mu);
    k->failing = 0;
}

/* mean power of delta_uj over dt_ns, mW, rounded half away from zero */
static int64_t mean_mw(int64_t delta_uj, int64_t dt_ns)
{
    if (dt_ns <= 0) return 0;
    __int128 num = (__int128)delta_uj * 1000000;
    return (int64_t)((num + (num >= 0 ? dt_ns / 2 : -dt_ns / 2)) / dt_ns);
}

/* read source k: 1 with the window since its last good read in *w, else 0 */
static int sample(mw_inband_sampler *S, track *k, mw_inband_window *w)
{
    uint64_t e = 0;
    int64_t p = 0;
    char why[200];
    int rc = mw_inband_src_read(k->src, &e, &p, why, sizeof why);
    int64_t t = now_ns(CLOCK_REALTIME);
    if (rc) {
        if (!k->failing) k->fail_since_ns = t;
        k->failing = 1;
        if (!k->fails++) snprintf(k->first_why, sizeof k->first_why, "%s", why);
        return 0;
    }
    unsigned flags = 0;
    if (k->failing) {
        queue_gap(S, k, t);
        flags |= MW_INBAND_FLAG_AFTER_GAP;
    }
    int sampled = k->src->info.sampled;
    int64_t delta = 0;
    if (!k->have) {
        if (!sampled) mw_inband_counter_step(&k->ctr, e, &delta);
    } else if (sampled) {
        /* trapezoid: mW x ns = pJ, / 1e6 = uJ */
        delta = (int64_t)(((__int128)(k->last_power_mw + p) * (t - k->last_t_ns)) / 2000000);
        k->sampled_uj += delta;
        flags |= MW_INBAND_FLAG_SAMPLED;
    } else {
        flags |= mw_inband_counter_step(&k->ctr, e, &delta);
        k->backwards += (flags & MW_INBAND_FLAG_BACKWARDS) != 0;
    }
    int have = k->have;
    if (have)
        *w = (mw_inband_window){
            .source = k->source,
            .seq = k->seq++,
            .t0_ns = k->last_t_ns,
            .t1_ns = t,
            .power_mw = mean_mw(delta, t - k->last_t_ns),
            .energy_uj = sampled ? k->sampled_uj : k->ctr.total_uj,
            .counter_uj = sampled ? p : (int64_t)(e > INT64_MAX ? INT64_MAX : e),
            .flags = flags,
        };
    k->have = 1;
    k->last_t_ns = t;
    k->last_power_mw = p;
    return have;
}

/* every source once; their windows queued under one lock */
static void sample_all(mw_inband_sampler *S)
{
    mw_inband_window w[MW_INBAND_MAX_SOURCES];
    int n = 0;
    for (int i = 0; i < S->n; i++)
        n += sample(S, &S->t[i], &w[n]);
    pthread_mutex_lock(&S->mu);
    for (int i = 0; i < n; i++)
        queue_window(S, &w[i]);
    pthread_mutex_unlock(&S->mu);
}

static int64_t thread_cpu_ns(void)
{
    struct timespec cpu;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu);
    return (int64_t)cpu.tv_sec * 1000000000LL + cpu.tv_nsec;
}

static void *sampling_thread(void *arg)
{
    mw_inband_sampler *S = arg;
    int64_t next = now_ns(CLOCK_MONOTONIC);
    pthread_mutex_lock(&S->mu);
    for (;;) {
        int stop = S->stop_sampling;
        pthread_mutex_unlock(&S->mu);
        sample_all(S);
        if (stop) break;
        next += S->period_ns;
        int64_t t = now_ns(CLOCK_MONOTONIC);
        if (next < t) next = t; /* late (a stopped process): no burst of catching up */
        struct timespec dl = {(time_t)(next / 1000000000LL), (long)(next % 1000000000LL)};
        pthread_mutex_lock(&S->mu);
        while (!S->stop_sampling && pthread_cond_timedwait(&S->cv, &S->mu, &dl) == 0)
            ;
    }
    S->cpu_ns = thread_cpu_ns();
    return NULL;
}

static void store_failed(mw_inband_sampler *S)
{
    if (!S->store_failed)
        snprintf(S->store_err, sizeof S->store_err, "%s", mw_store_error(S->st));
    S->store_failed = 1;
}

/* by source, then seq: each source's rows go in one after the other, at the end of its
 * part of the (source, seq) key, rather than interleaved over every source */
static int by_source_seq(const void *a, const void *b)
{
    const mw_inband_window *x = a, *y = b;
    if (x->source != y->source) return x->source < y->source ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* take what is queued and store it, one transaction. The write lock is taken first (the
 * busy timeout waits for the recorder's transaction): while it cannot be had, the queue
 * stays for the next turn, and only the last flush (last) counts a failure; a commit that
 * fails leaves the transaction open for the next turn likewise. */
static void flush(mw_inband_sampler *S, int last)
{
    int tries = 0;
    while (mw_store_write_begin(S->st)) {
        if (!last || ++tries >= FLUSH_LAST_TRIES) {
            if (last) store_failed(S);
            return;
        }
    }
    pthread_mutex_lock(&S->mu);
    mw_inband_window *q = S->q;
    gap_row *g = S->g;
    size_t nq = S->nq, ng = S->ng;
    S->q = NULL;
    S->g = NULL;
    S->nq = S->capq = S->ng = S->capg = 0;
    pthread_mutex_unlock(&S->mu);
    if (nq > 1) qsort(q, nq, sizeof *q, by_source_seq);
    int bad = mw_store_inband_windows_add(S->st, q, nq);
    for (size_t i = 0; i < ng && !bad; i++)
        bad = mw_store_inband_gap_add(S->st, g[i].source, g[i].start_ns, g[i].end_ns, g[i].reason);
    free(q);
    free(g);
    if (bad) {
        store_failed(S);
        return;
    }
    for (tries = 0; mw_store_commit(S->st); tries++)
        if (!last || tries + 1 >= FLUSH_LAST_TRIES) {
            if (last) store_failed(S);
            return;
        }
}

static void *writing_thread(void *arg)
{
    mw_inband_sampler *S = arg;
    for (;;) {
        int64_t next = now_ns(CLOCK_MONOTONIC) + WRITE_PERIOD_NS;
        struct timespec dl = {(time_t)(next / 1000000000LL), (long)(next % 1000000000LL)};
        pthread_mutex_lock(&S->mu);
        while (!S->stop_writing && pthread_cond_timedwait(&S->cv, &S->mu, &dl) == 0)
            ;
        int stop = S->stop_writing;
        pthread_mutex_unlock(&S->mu);
        if (stop) break; /* mw_inband_stop writes the rest */
        flush(S, 0);
    }
    S->write_cpu_ns = thread_cpu_ns();
    return NULL;
}

/* the sources which names, found; notes for what is absent */
static int find_sources(mw_inband_src **src, unsigned which, mw_inband_notes *notes)
{
    int n = 0;
    if (which & MW_INBAND_RAPL) n += mw_inband_rapl_find(src + n, MW_INBAND_MAX_SOURCES - n, notes);
    if (which & MW_INBAND_NVML) n += mw_inband_nvml_find(src + n, MW_INBAND_MAX_SOURCES - n, notes);
    return n;
}

/* the sources into the run's inband_channels, and the metadata: 0, or -1 */
static int store_sources(mw_inband_sampler *S, const char *host, double hz,
                         const mw_inband_notes *notes)
{
    char names[2048] = "", num[32], said[MW_INBAND_NOTES * 330] = "";
    size_t len = 0;
    for (int i = 0; i < S->n; i++) {
        const mw_inband_info *in = &S->t[i].src->info;
        if (mw_store_inband_channel_add(S->st, host, in, &S->t[i].source)) return -1;
        S->t[i].ctr.range_uj = in->range_uj;
        if (len < sizeof names)
            len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", i ? "," : "", in->name);
    }
    len = 0;
    for (int i = 0; i < notes->n && len < sizeof said; i++)
        len += (size_t)snprintf(said + len, sizeof said - len, "%s%s", i ? "; " : "", notes->line[i]);
    snprintf(num, sizeof num, "%g", hz);
    if (mw_store_meta_set(S->st, "inband", S->n ? names : "none") ||
        mw_store_meta_set(S->st, "inband_hz", num) ||
        (notes->n && mw_store_meta_set(S->st, "inband_notes", said)))
        return -1;
    return mw_store_commit(S->st);
}

static void sampler_free(mw_inband_sampler *S)
{
    for (int i = 0; i < S->n; i++)
        mw_inband_src_free(S->t[i].src);
    mw_store_close(S->st);
    pthread_mutex_destroy(&S->mu);
    pthread_cond_destroy(&S->cv);
    free(S->q);
    free(S->g);
    free(S);
}

mw_inband_sampler *mw_inband_start(const char *rundir, const char *host, unsigned which,
                                   double hz, mw_inband_notes *notes, char *err, size_t errlen)
{
    mw_inband_sampler *S = mw_xcalloc(1, sizeof *S);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&S->cv, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_init(&S->mu, NULL);
    if (!(hz >= 1 && hz <= MW_INBAND_MAX_HZ)) hz = MW_INBAND_DEFAULT_HZ;
    S->period_ns = (int64_t)(1e9 / hz + 0.5);
    mw_inband_src *src[MW_INBAND_MAX_SOURCES];
    S->n = find_sources(src, which, notes);
    for (int i = 0; i < S->n; i++)
        S->t[i].src = src[i];
    if (!S->n) return S; /* nothing to store: the run is left as it is */
    if (!(S->st = mw_store_open_write(rundir, err, errlen))) {
        sampler_free(S);
        return NULL;
    }
    if (store_sources(S, host, hz, notes)) {
        snprintf(err, errlen, "%s", mw_store_error(S->st));
        sampler_free(S);
        return NULL;
    }
    if (pthread_create(&S->sampler, NULL, sampling_thread, S) != 0) {
        snprintf(err, errlen, "%s: cannot start the in-band sampler", rundir);
        sampler_free(S);
        return NULL;
    }
    if (pthread_create(&S->writer, NULL, writing_thread, S) != 0) {
        snprintf(err, errlen, "%s: cannot start the in-band writer", rundir);
        mw_inband_stop(S, NULL, NULL); /* joins only the sampler */
        return NULL;
    }
    S->writer_started = 1;
    return S;
}

int mw_inband_sources(const mw_inband_sampler *S)
{
    return S ? S->n : 0;
}

int mw_inband_stop(mw_inband_sampler *S, mw_inband_notes *notes, int64_t *cpu_ns)
{
    int64_t a = 0, b = 0;
    int rc = mw_inband_stop_split(S, notes, &a, &b);
    if (cpu_ns) *cpu_ns = a + b;
    return rc;
}

int mw_inband_stop_split(mw_inband_sampler *S, mw_inband_notes *notes, int64_t *sample_cpu_ns,
                         int64_t *write_cpu_ns)
{
    if (!S) return 0;
    if (!S->n) {
        sampler_free(S);
        return 0;
    }
    mw_inband_notes dummy = {.n = 0};
    if (!notes) notes = &dummy;
    {
        pthread_mutex_lock(&S->mu);
        S->stop_sampling = 1;
        pthread_cond_broadcast(&S->cv);
        pthread_mutex_unlock(&S->mu);
        pthread_join(S->sampler, NULL); /* after its last read of every source */
        pthread_mutex_lock(&S->mu);
        S->stop_writing = 1;
        pthread_cond_broadcast(&S->cv);
        pthread_mutex_unlock(&S->mu);
        if (S->writer_started) pthread_join(S->writer, NULL);
    }
    int64_t end = now_ns(CLOCK_REALTIME);
    for (int i = 0; i < S->n; i++) {
        track *k = &S->t[i];
        if (k->failing) queue_gap(S, k, end); /* still failing at the end */
        if (k->fails)
            mw_inband_note(notes, "%s: %lld read%s failed (first: %s); gaps stored", k->src->info.name,
                           (long long)k->fails, k->fails > 1 ? "s" : "", k->first_why);
        if (k->backwards)
            mw_inband_note(notes, "%s: the counter went backwards %lld time%s (not a wrap): "
                           "flagged, not summed", k->src->info.name, (long long)k->backwards,
                           k->backwards > 1 ? "s" : "");
    }
    /* the last flush is the writer's work done on this thread: counted with it (the meta
     * has the time up to it: it is committed by it) */
    char num[32];
    snprintf(num, sizeof num, "%lld", (long long)(S->cpu_ns + S->write_cpu_ns));
    if (mw_store_meta_set(S->st, "inband_cpu_ns", num)) store_failed(S);
    int64_t c0 = thread_cpu_ns();
    flush(S, 1);
    S->write_cpu_ns += thread_cpu_ns() - c0;
    if (S->store_failed) mw_inband_note(notes, "in-band windows not stored: %s", S->store_err);
    if (sample_cpu_ns) *sample_cpu_ns = S->cpu_ns;
    if (write_cpu_ns) *write_cpu_ns = S->write_cpu_ns;
    int rc = S->store_failed ? -1 : 0;
    sampler_free(S);
    return rc;
}
