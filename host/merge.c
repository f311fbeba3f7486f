/* merge — see mw_merge.h. A spill file is read line by line into memory (a record is a line
 * of ~60 bytes; events take 48 bytes each here), checked, then written in the store's one
 * write transaction; names and threads are tables indexed by their ids. Records: H header,
 * T thread, N name, E event, R rank, C clock sample, D drop counts, X clean end
 * (docs/probe.md). Numbers are parsed by hand (digits only, overflow checked): the merge of a
 * chatty program's millions of events is bounded by this parse, not by SQLite.
 *
 * A process with at least compact_min_events events goes to phase_blocks (docs/run-store.md),
 * but for the kinds the program marks itself (user phases, marks, counters: few, and what
 * one queries by name), which stay rows of phases: its other events (MPI, OpenMP, GPU), on
 * the recorder's clock, are grouped by thread (counting sort, stable), each
 * thread's run sorted by start only when it is not already (a thread's events are written in
 * the order they end, which is start order unless phases nest), cut into blocks of
 * MERGE_BLOCK_EVENTS and encoded by phase_codec.h; (kind, name) pairs get run-wide ids in
 * phase_names. A smaller process's events are rows of phases, as before version 3.
 *
 * After the commit, the spill files that were merged are removed by name through a
 * descriptor of RUNDIR/probe opened without following a link (unlinkat: a link there is
 * removed, never followed), then the directory if it is empty; files that were skipped stay.
 * A later merge that finds no spill file keeps what the store holds. */
#include "mw_merge.h"

#include "mw_alloc.h"
#include "phase_codec.h"
#include "store_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const kind_text[] = {"user", "compute", "comm", "wait",
                                        "omp",  "gpu",     "mark", "counter"};
#define NKINDS ((int)(sizeof kind_text / sizeof kind_text[0]))
#define MERGE_COMPACT_DEFAULT 65536 /* events of a process stored as blocks, at least */
/* the kinds a program marks itself (user phases, marks, counters: few, and what one queries
 * by name) stay rows even in a chatty process; the others (MPI, OpenMP, GPU) go to blocks */
#define MERGE_ROW_KINDS (1u << 0 | 1u << 6 | 1u << 7)
#define MERGE_BLOCK_EVENTS 4096 /* events per phase block */

typedef struct {
    int64_t local_ns, offset_ns, unc_ns;
} csample;

typedef struct {
    int64_t t0, t1, bytes;
    int tid, kind, name, peer;
    int64_t seq; /* order in the file: ties of a sort keep it */
} event;

typedef struct {
    char host[256];
    long long pid;
    int rank;
    char **names;
    int nnames;
    int *thread_of; /* probe tid -> thread number to store (the tid itself) */
    event *ev;
    size_t nev, cap;
    csample *cs;
    int ncs;
    long long dropped;
} spill;

static void spill_free(spill *f)
{
    for (int i = 0; i < f->nnames; i++)
        free(f->names[i]);
    free(f->names);
    free(f->thread_of);
    free(f->ev);
    free(f->cs);
}

/* Split line at TABs into at most max fields; returns the count. */
static int split(char *line, char **fld, int max)
{
    int n = 0;
    for (char *p = line; n < max;) {
        fld[n++] = p;
        char *t = strchr(p, '\t');
        if (!t) break;
        *t = 0;
        p = t + 1;
    }
    return n;
}

/* A decimal integer, optionally negative, that fills s: 0 with *v, -1 otherwise. */
static int num(const char *s, long long *v)
{
    int neg = *s == '-';
    s += neg;
    if (!*s) return -1;
    unsigned long long x = 0, lim = neg ? (unsigned long long)LLONG_MAX + 1 : LLONG_MAX;
    for (; *s; s++) {
        unsigned d = (unsigned)(*s - '0');
        if (d > 9 || x > (lim - d) / 10) return -1;
        x = x * 10 + d;
    }
    *v = neg ? (long long)(0 - x) : (long long)x;
    return 0;
}

/* Parse one file. Returns 0, or -1 with "FILE:LINE: what" in err. */
static int parse(const char *path, spill *f, char *err, size_t errlen)
{
    /* a regular file only, not through a link: its size bounds what getline reads; a FIFO or
     * device planted in RUNDIR/probe would never end */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    FILE *in = NULL;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || !(in = fdopen(fd, "r"))) {
        snprintf(err, errlen, "%s: not a regular file", path);
        close(fd);
        return -1;
    }
    memset(f, 0, sizeof *f);
    f->rank = -1;
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int lineno = 0, rc = 0;
    while ((len = getline(&line, &cap, in)) > 0) {
        lineno++;
        if (line[len - 1] != '\n') break; /* a partial last line: the process died writing */
        line[len - 1] = 0;
        char *fl[9];
        int n = split(line, fl, 9);
        long long a[8] = {0};
        const char *bad = NULL;
        if (lineno == 1 && (fl[0][0] != 'H' || n < 4 || strcmp(fl[1], "1") != 0)) {
            bad = "not a megawatt probe file of format 1";
        } else if (!strcmp(fl[0], "H")) {
            if (n < 4) {
                bad = "bad header record";
            } else {
                snprintf(f->host, sizeof f->host, "%s", fl[2]);
                if (num(fl[3], &f->pid)) bad = "bad pid";
            }
        } else if (!strcmp(fl[0], "N")) {
            if (n != 3 || num(fl[1], &a[0]) || a[0] < 0 || a[0] > 10000000) {
                bad = "bad name record";
            } else {
                if (a[0] >= f->nnames) {
                    char **nn = realloc(f->names, (size_t)(a[0] + 1) * sizeof *nn);
                    if (!nn) {
                        bad = "out of memory";
                    } else {
                        for (long long i = f->nnames; i <= a[0]; i++)
                            nn[i] = NULL;
                        f->names = nn;
                        f->nnames = (int)a[0] + 1;
                    }
                }
                if (!bad) {
                    free(f->names[a[0]]);
                    f->names[a[0]] = mw_xstrdup(fl[2]);
                }
            }
        } else if (!strcmp(fl[0], "E")) {
            for (int i = 1; i < 8 && !bad; i++)
                if (i >= n || num(fl[i], &a[i - 1])) bad = "bad event record";
            if (!bad && (a[1] < 0 || a[1] >= NKINDS || a[2] < 0 || a[2] >= f->nnames ||
                         !f->names[a[2]] || a[4] < a[3]))
                bad = "event with an unknown kind or name, or ending before it starts";
            if (!bad) {
                if (f->nev == f->cap) {
                    size_t nc = f->cap ? 2 * f->cap : 1024;
                    event *ne = realloc(f->ev, nc * sizeof *ne);
                    if (!ne) {
                        bad = "out of memory";
                    } else {
                        f->ev = ne;
                        f->cap = nc;
                    }
                }
                if (!bad && (a[0] < 0 || a[0] > 1000000 || a[6] < INT_MIN || a[6] > INT_MAX))
                    bad = "event with a bad thread or peer";
                if (!bad) {
                    f->ev[f->nev] = (event){a[3],      a[4],      a[5],      (int)a[0],
                                            (int)a[1], (int)a[2], (int)a[6], (int64_t)f->nev};
                    f->nev++;
                }
            }
        } else if (!strcmp(fl[0], "R")) {
            if (n != 3 || num(fl[1], &a[0]) || num(fl[2], &a[1]))
                bad = "bad rank record";
            else
                f->rank = (int)a[0];
        } else if (!strcmp(fl[0], "C")) {
            if (n != 4 || num(fl[1], &a[0]) || num(fl[2], &a[1]) || num(fl[3], &a[2])) {
                bad = "bad clock record";
            } else {
                csample *nc = realloc(f->cs, (size_t)(f->ncs + 1) * sizeof *nc);
                if (!nc) {
                    bad = "out of memory";
                } else {
                    f->cs = nc;
                    f->cs[f->ncs++] = (csample){a[0], a[1], a[2]};
                }
            }
        } else if (!strcmp(fl[0], "D")) {
            if (n >= 2 && !num(fl[1], &a[0]) && a[0] > 0) /* saturating: a count */
                f->dropped = a[0] > LLONG_MAX - f->dropped ? LLONG_MAX : f->dropped + a[0];
        } else if (strcmp(fl[0], "T") != 0 && strcmp(fl[0], "X") != 0) {
            bad = "unknown record type";
        }
        if (bad) {
            snprintf(err, errlen, "%s:%d: %s", path, lineno, bad);
            rc = -1;
            break;
        }
    }
    if (lineno == 0 && rc == 0) {
        snprintf(err, errlen, "%s: empty", path);
        rc = -1;
    }
    free(line);
    fclose(in);
    if (rc) spill_free(f);
    return rc;
}

/* v, or the nearest int64_t: times from a damaged file must not overflow */
static int64_t clamp_i64(__int128 v)
{
    return v > INT64_MAX ? INT64_MAX : v < INT64_MIN ? INT64_MIN : (int64_t)v;
}

/* The offset at local time t: linear between samples, constant outside (binary search for
 * the pair around t). Differences are taken in 128 bits (a file may hold any int64 values);
 * a < t <= b bounds w to (0, 1]. */
static int64_t offset_at(const spill *f, int64_t t)
{
    if (f->ncs == 0) return 0;
    if (t <= f->cs[0].local_ns || f->ncs == 1) return f->cs[0].offset_ns;
    if (t > f->cs[f->ncs - 1].local_ns) return f->cs[f->ncs - 1].offset_ns;
    int lo = 1, hi = f->ncs - 1; /* the first i with t <= cs[i].local_ns (samples ascend) */
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (t <= f->cs[mid].local_ns)
            hi = mid;
        else
            lo = mid + 1;
    }
    const csample *a = &f->cs[lo - 1], *b = &f->cs[lo];
    if (b->local_ns == a->local_ns) return b->offset_ns;
    double w = (double)((__int128)t - a->local_ns) / (double)((__int128)b->local_ns - a->local_ns);
    double d = (double)((__int128)b->offset_ns - a->offset_ns) * w;
    return clamp_i64((__int128)a->offset_ns + (__int128)d);
}

static int by_local(const void *a, const void *b)
{
    const csample *x = a, *y = b;
    return (x->local_ns > y->local_ns) - (x->local_ns < y->local_ns);
}

/* Every event's times on the recorder's clock, end never before start. */
static void map_times(spill *f)
{
    if (f->ncs > 1) qsort(f->cs, (size_t)f->ncs, sizeof *f->cs, by_local);
    for (size_t i = 0; i < f->nev; i++) {
        event *e = &f->ev[i];
        int64_t t0 = clamp_i64((__int128)e->t0 + offset_at(f, e->t0));
        int64_t t1 = clamp_i64((__int128)e->t1 + offset_at(f, e->t1));
        e->t0 = t0;
        e->t1 = t1 < t0 ? t0 : t1;
    }
}

/* ---- the run-wide (kind, name) ids of phase_names ------------------------------------- */

typedef struct {
    char **key; /* "KIND\tNAME" */
    int64_t *id;
    size_t cap, n;
} name_ids;

static uint64_t key_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static void ids_free(name_ids *m)
{
    for (size_t i = 0; i < m->cap; i++)
        free(m->key[i]);
    free(m->key);
    free(m->id);
}

/* The id of (kind, name), made (and stored in phase_names) if new; -1 on a store error. */
static int64_t name_id(mw_store *s, name_ids *m, int kind, const char *name)
{
    if (2 * (m->n + 1) > m->cap) {
        name_ids g = {mw_xcalloc(m->cap ? 2 * m->cap : 256, sizeof(char *)), NULL,
                      m->cap ? 2 * m->cap : 256, m->n};
        g.id = mw_xcalloc(g.cap, sizeof *g.id);
        for (size_t i = 0; i < m->cap; i++) {
            if (!m->key[i]) continue;
            size_t j = key_hash(m->key[i]) & (g.cap - 1);
            while (g.key[j])
                j = (j + 1) & (g.cap - 1);
            g.key[j] = m->key[i];
            g.id[j] = m->id[i];
        }
        free(m->key);
        free(m->id);
        *m = g;
    }
    size_t len = strlen(kind_text[kind]) + strlen(name) + 2;
    char *key = mw_xrealloc(NULL, len);
    snprintf(key, len, "%s\t%s", kind_text[kind], name);
    size_t j = key_hash(key) & (m->cap - 1);
    for (; m->key[j]; j = (j + 1) & (m->cap - 1))
        if (!strcmp(m->key[j], key)) {
            free(key);
            return m->id[j];
        }
    int64_t id = (int64_t)m->n;
    if (mw_store_phase_name_add(s, id, kind_text[kind], name) != 0) {
        free(key);
        return -1;
    }
    m->key[j] = key;
    m->id[j] = id;
    m->n++;
    return id;
}

/* ---- storing a file --------------------------------------------------------------------- */

/* The file's events of the kinds in mask (a bit per kind_text index) as rows of phases. */
static int rows_file(mw_store *s, const spill *f, unsigned mask)
{
    for (size_t i = 0; i < f->nev; i++) {
        const event *e = &f->ev[i];
        if (!(mask >> e->kind & 1)) continue;
        mw_store_phase p = {.rank = f->rank,
                            .host = f->host,
                            .thread = e->tid,
                            .kind = kind_text[e->kind],
                            .name = f->names[e->name],
                            .start_ns = e->t0,
                            .end_ns = e->t1,
                            .bytes = e->bytes,
                            .pid = f->pid,
                            .peer = e->peer};
        if (mw_store_phase_add(s, &p) != 0) return -1;
        if ((i & 4095) == 4095) mw_store_maybe_commit(s);
    }
    return 0;
}

static int by_start_seq(const void *a, const void *b)
{
    const event *x = a, *y = b;
    if (x->t0 != y->t0) return x->t0 < y->t0 ? -1 : 1;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

/* Keeps f's events of kinds outside MERGE_ROW_KINDS (stored as rows already), grouped by
 * thread: in place, in file order, when they are already (one thread: an MPI rank), else by a
 * stable counting sort into a new array (threads ascending), replacing f->ev. */
static void by_thread(spill *f)
{
    size_t n = 0;
    int maxtid = 0, grouped = 1;
    for (size_t i = 0; i < f->nev; i++) {
        if (MERGE_ROW_KINDS >> f->ev[i].kind & 1) continue;
        if (n && f->ev[i].tid < f->ev[n - 1].tid) grouped = 0;
        if (f->ev[i].tid > maxtid) maxtid = f->ev[i].tid;
        f->ev[n++] = f->ev[i];
    }
    f->nev = n;
    if (grouped) return;
    size_t *at = mw_xcalloc((size_t)maxtid + 2, sizeof *at);
    for (size_t i = 0; i < n; i++)
        at[f->ev[i].tid + 1]++;
    for (int t = 0; t <= maxtid; t++)
        at[t + 1] += at[t];
    event *out = mw_xrealloc(NULL, (n ? n : 1) * sizeof *out);
    for (size_t i = 0; i < n; i++)
        out[at[f->ev[i].tid]++] = f->ev[i];
    free(at);
    free(f->ev);
    f->ev = out;
    f->cap = n;
}

static void sort_by_start(event *ev, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (ev[i].t0 < ev[i - 1].t0) {
            qsort(ev, n, sizeof *ev, by_start_seq);
            return;
        }
}

/* Aggregation (mw_merge_opts.aggregate_hz): one window's events ev[0 .. n) (by start) as one
 * event per kind and name, written from ev[0] on; returns how many. */
static size_t aggregate_window(event *ev, size_t n)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        size_t k = 0;
        while (k < m && (ev[k].kind != ev[i].kind || ev[k].name != ev[i].name))
            k++;
        int64_t len = ev[i].t1 - ev[i].t0, bytes = ev[i].bytes;
        int peer = ev[i].peer;
        if (k == m) { /* new: ev[m] may still be unread (m <= i): move it first? no: m <= i */
            event e = ev[i];
            e.t1 = 0; /* the total length while summing */
            e.bytes = 0;
            ev[m++] = e;
        }
        ev[k].t1 = ev[k].t1 > INT64_MAX - len ? INT64_MAX : ev[k].t1 + len;
        __int128 sum = (__int128)ev[k].bytes + bytes; /* saturated: a file may hold any */
        ev[k].bytes = clamp_i64(sum);
        if (ev[k].peer != peer) ev[k].peer = -1;
    }
    int64_t at = ev[0].t0; /* end to end from the window's first start */
    for (size_t k = 0; k < m; k++) {
        int64_t len = ev[k].t1;
        ev[k].t0 = at;
        ev[k].t1 = at > INT64_MAX - len ? INT64_MAX : at + len;
        at = ev[k].t1;
    }
    return m;
}

/* The thread's events (by start), their busy meter windows aggregated; returns the new n. */
static size_t aggregate(event *ev, size_t n, int64_t window_ns, double max_per_window)
{
    size_t out = 0;
    for (size_t i = 0, j; i < n; i = j) {
        int64_t w = ev[i].t0 / window_ns - (ev[i].t0 % window_ns < 0);
        for (j = i + 1; j < n && ev[j].t0 / window_ns - (ev[j].t0 % window_ns < 0) == w; j++) {
        }
        if ((double)(j - i) > max_per_window) {
            size_t m = aggregate_window(ev + i, j - i);
            memmove(ev + out, ev + i, m * sizeof *ev);
            out += m;
        } else {
            memmove(ev + out, ev + i, (j - i) * sizeof *ev);
            out += j - i;
        }
    }
    return out;
}

/* One thread's events ev[0 .. n) as blocks (sorted by start here). */
static int blocks_thread(mw_store *s, const spill *f, event *ev, size_t n, const int64_t *ids,
                         mw_pc_event *pc, unsigned char *buf)
{
    sort_by_start(ev, n);
    for (size_t first = 0; first < n; first += MERGE_BLOCK_EVENTS) {
        size_t k = n - first < MERGE_BLOCK_EVENTS ? n - first : MERGE_BLOCK_EVENTS;
        int64_t end = INT64_MIN;
        for (size_t i = 0; i < k; i++) {
            const event *e = &ev[first + i];
            pc[i] = (mw_pc_event){e->t0, e->t1, e->bytes, ids[e->name * NKINDS + e->kind], e->peer};
            if (e->t1 > end) end = e->t1;
        }
        size_t len = mw_pc_encode(pc, k, pc[0].start_ns, buf);
        mw_store_phase_block b = {f->rank, ev[first].tid, f->host, f->pid, pc[0].start_ns,
                                  end,     (int64_t)k,    buf,     len};
        if (len == 0 || mw_store_phase_block_add(s, &b) != 0) return -1;
    }
    return 0;
}

typedef struct {
    long long compact_min;
    int64_t window_ns;     /* aggregation: the meter's window */
    double max_per_window; /* aggregation: events a window keeps as they are; 0: all */
    name_ids names;
} merge_job;

/* The file's events as phase blocks, each thread apart, but for MERGE_ROW_KINDS: rows.
 * f->ev keeps only the blocks' events afterwards. */
static int blocks_file(mw_store *s, spill *f, merge_job *job, mw_merge_stats *st)
{
    /* (name, kind) -> run-wide id, for the pairs the events use */
    int64_t *ids = mw_xrealloc(NULL, ((size_t)f->nnames * NKINDS + 1) * sizeof *ids);
    for (size_t i = 0; i < (size_t)f->nnames * NKINDS; i++)
        ids[i] = -1;
    int rc = 0;
    for (size_t i = 0; i < f->nev && !rc; i++) {
        if (MERGE_ROW_KINDS >> f->ev[i].kind & 1) continue;
        int64_t *id = &ids[f->ev[i].name * NKINDS + f->ev[i].kind];
        if (*id < 0 && (*id = name_id(s, &job->names, f->ev[i].kind, f->names[f->ev[i].name])) < 0)
            rc = -1;
    }
    if (!rc) rc = rows_file(s, f, MERGE_ROW_KINDS);
    if (!rc) by_thread(f);
    event *ev = rc ? NULL : f->ev;
    size_t n = f->nev;
    mw_pc_event *pc = mw_xrealloc(NULL, MERGE_BLOCK_EVENTS * sizeof *pc);
    unsigned char *buf = mw_xrealloc(NULL, MERGE_BLOCK_EVENTS * MW_PC_EVENT_MAX);
    for (size_t first = 0, i; ev && first < n && !rc; first = i) {
        for (i = first + 1; i < n && ev[i].tid == ev[first].tid; i++) {
        }
        size_t k = i - first;
        if (job->max_per_window > 0) {
            sort_by_start(ev + first, k);
            k = aggregate(ev + first, k, job->window_ns, job->max_per_window);
            st->aggregated += (long long)(i - first - k);
        }
        rc = blocks_thread(s, f, ev + first, k, ids, pc, buf);
        mw_store_maybe_commit(s);
    }
    free(buf);
    free(pc);
    free(ids);
    return rc;
}

static int store_file(mw_store *s, spill *f, merge_job *job, mw_merge_stats *st, char *err,
                      size_t errlen)
{
    for (int i = 0; i < f->ncs; i++)
        if (mw_store_clock_sync_add(s, f->rank, f->host, f->pid, f->cs[i].local_ns,
                                    f->cs[i].offset_ns, f->cs[i].unc_ns) != 0)
            goto fail;
    map_times(f);
    long long nev = (long long)f->nev; /* blocks_file leaves only its own events in f */
    if (nev >= job->compact_min ? blocks_file(s, f, job, st) : rows_file(s, f, ~0u)) goto fail;
    st->events += nev;
    st->clock_samples += f->ncs;
    st->dropped = f->dropped > LLONG_MAX - st->dropped ? LLONG_MAX : st->dropped + f->dropped;
    return 0;
fail:
    snprintf(err, errlen, "%s", mw_store_error(s));
    return -1;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A name the probe gives its spill files: HOST.PID.mwp (the host without '/'). */
static int probe_name(const char *n)
{
    size_t l = strlen(n);
    if (l < 7 || strcmp(n + l - 4, ".mwp") != 0) return 0;
    size_t d = l - 4;
    while (d > 0 && n[d - 1] >= '0' && n[d - 1] <= '9')
        d--;
    return d > 1 && d < l - 4 && n[d - 1] == '.';
}

/* Removes RUNDIR/probe/NAME for each merged NAME, then RUNDIR/probe if empty (see top). */
static void remove_spill(const char *rundir, char **files, const char *merged, size_t nfiles)
{
    int rfd = open(rundir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int pfd = rfd < 0 ? -1 : openat(rfd, "probe", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    for (size_t i = 0; pfd >= 0 && i < nfiles; i++)
        if (merged[i]) unlinkat(pfd, files[i], 0);
    if (pfd >= 0) {
        close(pfd);
        unlinkat(rfd, "probe", AT_REMOVEDIR); /* fails, harmlessly, unless empty */
    }
    if (rfd >= 0) close(rfd);
}

/* The probe's spill files in dir (sorted), or NULL with *n 0; -1 when dir cannot be read. */
static int list_spill(const char *dir, char ***files, size_t *n, char *err, size_t errlen)
{
    *files = NULL;
    *n = 0;
    DIR *d = opendir(dir);
    if (!d && errno != ENOENT) {
        snprintf(err, errlen, "%s: %s", dir, strerror(errno));
        return -1;
    }
    for (struct dirent *de; d && (de = readdir(d));) {
        size_t l = strlen(de->d_name);
        if (l < 5 || strcmp(de->d_name + l - 4, ".mwp") != 0) continue;
        *files = mw_xrealloc(*files, (*n + 1) * sizeof **files); /* never NULL: aborts */
        (*files)[(*n)++] = mw_xstrdup(de->d_name);
    }
    if (d) closedir(d);
    if (*n) qsort(*files, *n, sizeof **files, by_name);
    return 0;
}

static void meta_ll(mw_store *s, const char *key, long long v)
{
    char b[32];
    snprintf(b, sizeof b, "%lld", v);
    mw_store_meta_set(s, key, b);
}

int mw_merge_run_opts(mw_store *s, const char *rundir, const mw_merge_opts *o, mw_merge_stats *st,
                      void (*skipped)(void *ctx, const char *message), void *ctx, char *err,
                      size_t errlen)
{
    memset(st, 0, sizeof *st);
    merge_job job = {.compact_min =
                         o->compact_min_events > 0 ? o->compact_min_events : MERGE_COMPACT_DEFAULT,
                     .window_ns = 250000000};
    char rate[64];
    double hz = mw_store_meta_get(s, "meter_rate_hz", rate, sizeof rate) ? 0 : atof(rate);
    if (hz >= 0.01 && hz <= 1e6) job.window_ns = (int64_t)(1e9 / hz);
    if (o->aggregate_hz > 0) job.max_per_window = o->aggregate_hz * (double)job.window_ns / 1e9;
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/probe", rundir);
    char **files;
    size_t nfiles;
    if (list_spill(dir, &files, &nfiles, err, errlen)) return -1;
    if (nfiles == 0) { /* nothing new: what an earlier merge stored stays */
        if (mw_store_commit(s) == 0) return 0;
        snprintf(err, errlen, "%s", mw_store_error(s)); /* e.g. the disk is full */
        return -1;
    }
    char *merged = mw_xcalloc(nfiles, 1);
    int rc = 0;
    for (size_t i = 0; i < nfiles && !rc; i++) {
        char path[8400], ferr[9000];
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        spill f;
        if (parse(path, &f, ferr, sizeof ferr) != 0) {
            if (skipped) skipped(ctx, ferr);
            st->skipped++;
            continue;
        }
        /* the first file that parses replaces what earlier merges stored */
        if (!st->files++ && mw_store_probe_clear(s) != 0) {
            snprintf(err, errlen, "%s", mw_store_error(s));
            rc = -1;
        }
        if (!rc) rc = store_file(s, &f, &job, st, err, errlen);
        merged[i] = !rc && probe_name(files[i]);
        spill_free(&f);
    }
    ids_free(&job.names);
    if (rc == 0 && st->files) {
        meta_ll(s, "probe_processes", st->files);
        meta_ll(s, "probe_events", st->events);
        meta_ll(s, "probe_dropped_events", st->dropped);
        if (st->aggregated) meta_ll(s, "probe_aggregated_events", st->aggregated);
    }
    if (rc == 0 && mw_store_commit(s) != 0) {
        snprintf(err, errlen, "%s", mw_store_error(s));
        rc = -1;
    }
    if (rc == 0 && !o->keep_spill) remove_spill(rundir, files, merged, nfiles);
    free(merged);
    for (size_t i = 0; i < nfiles; i++)
        free(files[i]);
    free(files);
    return rc;
}

int mw_merge_run(mw_store *s, const char *rundir, mw_merge_stats *st,
                 void (*skipped)(void *ctx, const char *message), void *ctx, char *err,
                 size_t errlen)
{
    const char *keep = getenv("MW_KEEP_SPILL"), *compact = getenv("MW_MERGE_COMPACT_EVENTS");
    const char *agg = getenv("MW_MERGE_AGGREGATE_HZ");
    mw_merge_opts o = {.keep_spill = keep && *keep && strcmp(keep, "0") != 0,
                       .compact_min_events = compact ? atoll(compact) : 0,
                       .aggregate_hz = agg ? atof(agg) : 0};
    return mw_merge_run_opts(s, rundir, &o, st, skipped, ctx, err, errlen);
}
