/* merge — see merge.h. A spill file is read whole into memory (they are small: a record is
 * a line of ~60 bytes), checked, then written; names and threads are tables indexed by
 * their ids. Records: H header, T thread, N name, E event, R rank, C clock sample, D drop
 * counts, X clean end (docs/probe.md). */
#include "mw_merge.h"

#include "mw_alloc.h"

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

typedef struct {
    int64_t local_ns, offset_ns, unc_ns;
} csample;

typedef struct {
    int tid, kind, name;
    int64_t t0, t1, bytes;
    int peer;
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

static int num(const char *s, long long *v)
{
    char *end;
    errno = 0;
    *v = strtoll(s, &end, 10);
    return errno || end == s || *end ? -1 : 0;
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
                if (!bad)
                    f->ev[f->nev++] =
                        (event){(int)a[0], (int)a[1], (int)a[2], a[3], a[4], a[5], (int)a[6]};
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

/* The offset at local time t: linear between samples, constant outside. Differences are
 * taken in 128 bits (a file may hold any int64 values); a < t <= b bounds w to (0, 1]. */
static int64_t offset_at(const spill *f, int64_t t)
{
    if (f->ncs == 0) return 0;
    if (t <= f->cs[0].local_ns || f->ncs == 1) return f->cs[0].offset_ns;
    for (int i = 1; i < f->ncs; i++) {
        const csample *a = &f->cs[i - 1], *b = &f->cs[i];
        if (t <= b->local_ns) {
            if (b->local_ns == a->local_ns) return b->offset_ns;
            double w =
                (double)((__int128)t - a->local_ns) / (double)((__int128)b->local_ns - a->local_ns);
            double d = (double)((__int128)b->offset_ns - a->offset_ns) * w;
            return clamp_i64((__int128)a->offset_ns + (__int128)d);
        }
    }
    return f->cs[f->ncs - 1].offset_ns;
}

static int store_file(mw_store *s, const spill *f, mw_merge_stats *st, char *err, size_t errlen)
{
    for (int i = 0; i < f->ncs; i++)
        if (mw_store_clock_sync_add(s, f->rank, f->host, f->pid, f->cs[i].local_ns,
                                    f->cs[i].offset_ns, f->cs[i].unc_ns) != 0)
            goto fail;
    for (size_t i = 0; i < f->nev; i++) {
        const event *e = &f->ev[i];
        mw_store_phase p = {.rank = f->rank,
                            .host = f->host,
                            .thread = e->tid,
                            .kind = kind_text[e->kind],
                            .name = f->names[e->name],
                            .start_ns = clamp_i64((__int128)e->t0 + offset_at(f, e->t0)),
                            .end_ns = clamp_i64((__int128)e->t1 + offset_at(f, e->t1)),
                            .bytes = e->bytes,
                            .pid = f->pid,
                            .peer = e->peer};
        if (p.end_ns < p.start_ns) p.end_ns = p.start_ns;
        if (mw_store_phase_add(s, &p) != 0) goto fail;
        if ((i & 4095) == 4095) mw_store_maybe_commit(s);
    }
    st->events += (long long)f->nev;
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

int mw_merge_run(mw_store *s, const char *rundir, mw_merge_stats *st,
                 void (*skipped)(void *ctx, const char *message), void *ctx, char *err,
                 size_t errlen)
{
    memset(st, 0, sizeof *st);
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/probe", rundir);
    if (mw_store_probe_clear(s) != 0) {
        snprintf(err, errlen, "%s", mw_store_error(s));
        return -1;
    }
    DIR *d = opendir(dir);
    if (!d && errno != ENOENT) {
        snprintf(err, errlen, "%s: %s", dir, strerror(errno));
        return -1;
    }
    if (!d) {
        if (mw_store_commit(s) == 0) return 0;
        snprintf(err, errlen, "%s", mw_store_error(s)); /* e.g. the disk is full */
        return -1;
    }
    char **files = NULL;
    size_t nfiles = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        size_t l = strlen(de->d_name);
        if (l < 5 || strcmp(de->d_name + l - 4, ".mwp") != 0) continue;
        files = mw_xrealloc(files, (nfiles + 1) * sizeof *files); /* never NULL: aborts */
        files[nfiles++] = mw_xstrdup(de->d_name);
    }
    closedir(d);
    qsort(files, nfiles, sizeof *files, by_name);
    int rc = 0;
    for (size_t i = 0; i < nfiles; i++) {
        char path[8400], ferr[9000];
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        spill f;
        if (parse(path, &f, ferr, sizeof ferr) != 0) {
            if (skipped) skipped(ctx, ferr);
            st->skipped++;
            continue;
        }
        st->files++;
        if (!rc && store_file(s, &f, st, err, errlen) != 0) rc = -1;
        spill_free(&f);
    }
    for (size_t i = 0; i < nfiles; i++)
        free(files[i]);
    free(files);
    if (rc == 0 && mw_store_commit(s) != 0) {
        snprintf(err, errlen, "%s", mw_store_error(s));
        rc = -1;
    }
    return rc;
}
