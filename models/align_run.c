/* align_run — see align_run.h. The spans' reader walks the phases by rank: one rank's
 * selected spans are kept, with their pid, until the rank changes; then they are sorted by
 * pid (ties in reading order) and each pid's run of spans is merged in place. */
#include "align_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mw_alloc.h"
#include "mw_phase_class.h"
#include "mw_run.h"

int mw_align_selects(const mw_align_selector *sel, const mw_store_phase *p)
{
    if (p->end_ns <= p->start_ns || (sel->host && strcmp(p->host, sel->host))) return 0;
    if (sel->computation) /* every phase of the program feeds the rule */
        return strcmp(p->kind, "mw") && strcmp(p->kind, "mark") && strcmp(p->kind, "counter");
    if (!strcmp(p->kind, sel->what) && !mw_phase_user_waiting(p->kind, p->name)) return 1;
    return sel->by_name && !strcmp(p->name, sel->what);
}

int mw_align_run_channels(mw_store *s, mw_align_channel *list, int *n)
{
    *n = 0;
    mw_run_cursor *c = mw_run_channels(s);
    if (!c) return -1;
    mw_run_channel ch;
    int rc = 0;
    while (*n < MW_ALIGN_MAX_CHANNELS && (rc = mw_run_channel_next(c, &ch)) == 1) {
        mw_align_channel *a = &list[(*n)++];
        a->channel = ch.channel;
        snprintf(a->name, sizeof a->name, "%s", ch.name);
        snprintf(a->host, sizeof a->host, "%s", ch.host ? ch.host : "");
    }
    if (*n == MW_ALIGN_MAX_CHANNELS) rc = 0; /* the rest is left out */
    mw_run_close(c);
    return rc < 0 ? -1 : 0;
}

/* The phases the selector may select, by rank (the kind filtered by the store when it must
 * be `what`). */
static mw_run_cursor *candidates(mw_store *s, const mw_align_selector *sel)
{
    const char *kinds[] = {sel->what, NULL};
    mw_run_phase_filter f = mw_run_phase_all();
    f.spans = 1;
    f.order = MW_RUN_BY_RANK;
    if (!sel->by_name && !sel->computation) f.kinds = kinds;
    return mw_run_phases(s, &f); /* the filter's values are bound, not kept */
}

int mw_align_run_count(mw_store *s, const mw_align_selector *sel, int64_t *count)
{
    *count = 0;
    mw_run_cursor *c = candidates(s, sel);
    if (!c) return -1;
    mw_store_phase p;
    int rc;
    while ((rc = mw_run_phase_next(c, &p)) == 1)
        *count += mw_align_selects(sel, &p);
    mw_run_close(c);
    return rc ? -1 : 0;
}

static double seconds(int64_t t, int64_t origin)
{
    return (double)(int64_t)((uint64_t)t - (uint64_t)origin) / 1e9;
}

int mw_align_run_windows(mw_store *s, int channel, int64_t origin_ns, mw_align_window **w,
                         size_t *n)
{
    *w = NULL;
    *n = 0;
    mw_run_cursor *c = mw_run_windows(s, channel, MW_RUN_BY_WINDOW);
    if (!c) return -1;
    mw_store_sample x;
    size_t cap = 0;
    int rc;
    while ((rc = mw_run_window_next(c, &x)) == 1) {
        if (*n == cap) {
            cap = cap ? 2 * cap : 4096;
            *w = mw_xrealloc(*w, cap * sizeof **w);
        }
        (*w)[(*n)++] = (mw_align_window){seconds(x.t0_ns, origin_ns), seconds(x.t1_ns, origin_ns),
                                         (double)x.power_mw / 1e3};
    }
    mw_run_close(c);
    return rc ? -1 : 0;
}

/* One rank's selected spans with their pids and reading order. */
typedef struct {
    int64_t pid;
    size_t order;
    mw_align_span span;
    mw_phase_span ph; /* the phase for the rule (computation), ns */
} pid_span;

static int by_pid(const void *a, const void *b)
{
    const pid_span *x = a, *y = b;
    if (x->pid != y->pid) return x->pid < y->pid ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

typedef struct {
    mw_align_span *sp;
    size_t n, cap, processes;
} span_list;

static void push_span(span_list *out, mw_align_span sp)
{
    if (out->n == out->cap) {
        out->cap = out->cap ? 2 * out->cap : 4096;
        out->sp = mw_xrealloc(out->sp, out->cap * sizeof *out->sp);
    }
    out->sp[out->n++] = sp;
}

/* The computation of one process's phases b[0..n) (mw_phase_class.h), s since origin_ns. */
static void push_computation(const pid_span *b, size_t n, int64_t origin_ns, span_list *out)
{
    mw_phase_span *ph = mw_xcalloc(n, sizeof *ph);
    for (size_t i = 0; i < n; i++)
        ph[i] = b[i].ph;
    mw_energy_span *c;
    size_t m = mw_phase_computation_spans(ph, n, &c, NULL);
    for (size_t i = 0; i < m; i++)
        push_span(out, (mw_align_span){seconds(c[i].start_ns, origin_ns),
                                       seconds(c[i].end_ns, origin_ns)});
    free(c);
    free(ph);
}

/* The rank's spans b[0..nb), process by process (pid order), merged, onto out. */
static void flush_rank(pid_span *b, size_t nb, int computation, int64_t origin_ns,
                       span_list *out)
{
    qsort(b, nb, sizeof *b, by_pid);
    for (size_t i = 0; i < nb;) {
        size_t first = out->n, from = i;
        int64_t pid = b[i].pid;
        for (; i < nb && b[i].pid == pid; i++)
            if (!computation) push_span(out, b[i].span);
        if (computation) push_computation(b + from, i - from, origin_ns, out);
        out->n = first + mw_align_merge(out->sp + first, out->n - first);
        out->processes++;
    }
}

int mw_align_run_spans(mw_store *s, const mw_align_selector *sel, int64_t origin_ns,
                       mw_align_span **sp, size_t *n, size_t *processes)
{
    *sp = NULL;
    *n = *processes = 0;
    mw_run_cursor *c = candidates(s, sel);
    if (!c) return -1;
    span_list out = {0};
    pid_span *b = NULL;
    size_t nb = 0, cap = 0;
    int rank = 0, rc;
    mw_store_phase p;
    while ((rc = mw_run_phase_next(c, &p)) == 1) {
        if (!mw_align_selects(sel, &p)) continue;
        if (nb && p.rank != rank) flush_rank(b, nb, sel->computation, origin_ns, &out), nb = 0;
        rank = p.rank;
        if (nb == cap) {
            cap = cap ? 2 * cap : 4096;
            b = mw_xrealloc(b, cap * sizeof *b);
        }
        b[nb] = (pid_span){p.pid, nb, {seconds(p.start_ns, origin_ns), seconds(p.end_ns, origin_ns)},
                           mw_phase_span_of(p.kind, p.name, p.start_ns, p.end_ns)};
        nb++;
    }
    mw_run_close(c);
    if (!rc && nb) flush_rank(b, nb, sel->computation, origin_ns, &out);
    free(b);
    *sp = out.sp;
    *n = out.n;
    *processes = out.processes;
    return rc ? -1 : 0;
}
